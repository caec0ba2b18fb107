//! Picks the instruction set and lane width at run time and instantiates the chunk loop
//! for each. The loop itself is written once ([`run_chunk`]), generic over the lane type.

use crate::LaunchStats;
use crate::workset::Ptrs;
use hawk::lane::Multi;
use hawk::save::{GroupSave, NoSave, Saver};
use hawk::{
    ACTIVE, FAILED, FINISHED, HostLoops, Kernel, Lane, LaneArray, Mask, Real, advance,
    advance_checked, needs_replay, run_sample,
};
use std::simd::Simd;

/// An element type the host team can run: `f64` or `f32`, with its SIMD lane types.
pub trait HostReal: Real + Lane<Elem = Self, Mask = bool> + crate::buffers::FreeList {
    /// 2 samples per group.
    type X2: Lane<Elem = Self>;
    /// 4 samples per group.
    type X4: Lane<Elem = Self>;
    /// 8 samples per group.
    type X8: Lane<Elem = Self>;
    /// 12 samples per group.
    type X12: Lane<Elem = Self>;
    /// 16 samples per group.
    type X16: Lane<Elem = Self>;
    /// 32 samples per group.
    type X32: Lane<Elem = Self>;
    /// 64 samples per group.
    type X64: Lane<Elem = Self>;
    /// 8 samples per group as one plain vector (one AVX-512 register of `f64`).
    type V8: Lane<Elem = Self>;
    /// 16 samples per group as one plain vector (two AVX-512 registers of `f64`).
    type V16: Lane<Elem = Self>;
}

macro_rules! host_real {
    ($t:ty) => {
        impl HostReal for $t {
            type X2 = Simd<$t, 2>;
            type X4 = Simd<$t, 4>;
            type X8 = Multi<Simd<$t, 4>, 2>;
            type X12 = Multi<Simd<$t, 4>, 3>;
            type X16 = Multi<Simd<$t, 4>, 4>;
            type X32 = Simd<$t, 32>;
            type X64 = Simd<$t, 64>;
            type V8 = Simd<$t, 8>;
            type V16 = Simd<$t, 16>;
        }
    };
}
host_real!(f64);
host_real!(f32);

/// The instruction set a host team's loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Isa {
    /// Whatever the build target guarantees (SSE2 on x86-64).
    Portable,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512F (with AVX2 and FMA).
    Avx512,
}

impl Isa {
    /// The best instruction set this CPU has.
    pub fn detect() -> Isa {
        [Isa::Avx512, Isa::Avx2]
            .into_iter()
            .find(|i| i.available())
            .unwrap_or(Isa::Portable)
    }

    /// `true` if this CPU can run it.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Portable => true,
                Isa::Avx2 => {
                    std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("fma")
                }
                Isa::Avx512 => {
                    Isa::Avx2.available() && std::arch::is_x86_feature_detected!("avx512f")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Isa::Portable
        }
    }

    /// As the card and the tuning cache write it: `portable`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The instruction set [`Isa::name`] names.
    pub fn from_name(name: &str) -> Option<Isa> {
        [Isa::Portable, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .find(|i| i.name() == name)
    }

    /// The lane widths this instruction set's loops are compiled for. On x86-64 one `f64`
    /// value of a group fills at most 8 vector registers: the AVX2 loops (16 registers)
    /// stop at 32 lanes, the portable (SSE2) loops at 8, and AVX-512 has every one of
    /// [`crate::LANE_WIDTHS`]. The tuner's candidates (1 to 8 vectors) are all
    /// among them but AVX2's 64 lanes of `f32`. Any x86-64 CPU from 2013 on runs the AVX2
    /// loops, so the portable ones are a fallback. The widths left out were about 60% of
    /// the machine code of each kernel's host loops, in every build. Elsewhere the portable
    /// loops have every width.
    pub fn lane_widths(self) -> &'static [usize] {
        #[cfg(target_arch = "x86_64")]
        match self {
            Isa::Portable => return &[1, 2, 4, 8],
            Isa::Avx2 => return &[1, 2, 4, 8, 12, 16, 32],
            Isa::Avx512 => {}
        }
        &crate::LANE_WIDTHS
    }

    /// Vector register width in bytes.
    pub fn vector_bytes(self) -> usize {
        match self {
            Isa::Portable => 16,
            Isa::Avx2 => 32,
            Isa::Avx512 => 64,
        }
    }

    /// Samples per group before anything is measured: two vectors' worth of `f64` (8 on
    /// AVX2), so two independent dependency chains are in flight. `lanes: auto` (the
    /// default, see [`crate::tune`]) measures instead; this is where a fixed ISA without
    /// a fixed width starts.
    pub fn default_lanes<R: Real>(self) -> usize {
        self.vector_bytes() / 8 * 2
    }
}

/// The widest of the portable-only kernels' loops (1, 2, 4 and 8 lanes) that divides
/// `lanes`: what a kernel with [`HostLoops::Portable`] runs when `lanes` are asked for.
pub fn portable_width(lanes: usize) -> usize {
    [8, 4, 2]
        .into_iter()
        .find(|&w| lanes.is_multiple_of(w))
        .unwrap_or(1)
}

/// One chunk of one launch: `(ptrs, lo, hi, k) -> what it did in lo..hi`. Calling it is
/// unsafe: `run_chunk`'s contract, and the CPU must have the chunk function's ISA.
pub(crate) type ChunkFn<R> = unsafe fn(&Ptrs<R>, usize, usize, u32) -> LaunchStats;

/// Advances the lane group at slot `i` (lanes set in `start` already stopped) `k` steps and
/// writes its state and changed status bytes back; returns how many lanes are still running
/// and how many steps the group took (each one issued for all its lanes).
///
/// # Safety
/// As [`run_chunk`], for slots `i..i + L::WIDTH`.
#[inline(always)]
unsafe fn group<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    p: &'t Ptrs<K::Real>,
    params: &K::Params<L>,
    i: usize,
    start: L::Mask,
    k: u32,
) -> (usize, u32)
where
    K::Real: HostReal,
{
    let w = L::WIDTH;
    // SAFETY: `run_chunk`'s contract for slots `i..i + WIDTH`: every plane of `p` is valid
    // there and no other thread touches them; the save target and `p.ids` are valid for
    // those slots' samples (`S::begin`).
    unsafe {
        let flags = p.terminated.add(i);
        let ins = K::Ins::<L>::from_fn(|j| L::load(p.ins[j].add(i)));
        let load = || K::Muts::<L>::from_fn(|j| L::load(p.muts[j].add(i)));
        let mut st = load();
        let (mut term, mut failed) = (start, L::Mask::splat(false));
        let mut sv = S::begin(&p.save, p.ids, i, start, &st);
        let mut taken =
            advance::<K, L, S>(&ins, params, &mut st, &mut term, &mut failed, k, &mut sv);
        if needs_replay::<K, L>(&st, start, failed) {
            // The planes still hold the launch's start state: replay it checked (its saved
            // points overwrite the fast path's).
            // Fresh locals, so the fast path's state never has its address taken
            // (which would keep it in memory instead of registers).
            let mut st2 = load();
            let (mut term2, mut failed2) = (start, L::Mask::splat(false));
            let mut sv2 = S::begin(&p.save, p.ids, i, start, &st2);
            taken = advance_checked::<K, L, S>(
                &ins,
                params,
                &mut st2,
                &mut term2,
                &mut failed2,
                k,
                &mut sv2,
            );
            (st, term, failed, sv) = (st2, term2, failed2, sv2);
        }
        for (j, v) in st.as_slice().iter().enumerate() {
            v.store(p.muts[j].add(i));
        }
        // Masks as bits once: per-lane `test` on a vector mask is an extract each.
        let (t, s0, f) = (term.to_bits(), start.to_bits(), failed.to_bits());
        // Only lanes that were running and now stopped change their byte.
        let changed = (t | f) & !s0;
        if changed != 0 {
            // Lanes that stopped in this launch keep their final state for later points.
            let stopped = L::Mask::from_fn(|l| changed >> l & 1 == 1);
            sv.finish(taken, &st, term, failed, stopped);
            for l in 0..w {
                if changed >> l & 1 == 1 {
                    *flags.add(l) = if f >> l & 1 == 1 { FAILED } else { FINISHED };
                }
            }
        }
        (w - t.count_ones() as usize, taken)
    }
}

/// Advances slots `lo..hi`: lane groups of `L`, then a scalar tail.
///
/// # Safety
/// `lo..hi` must lie inside the work set behind `p`, and no other thread may touch it;
/// `p.save` must be valid for the samples those slots hold (`p.ids`), for every step of the
/// launch.
#[inline(always)]
unsafe fn run_chunk<K: Kernel, L: Lane<Elem = K::Real>>(
    p: &Ptrs<K::Real>,
    lo: usize,
    hi: usize,
    k: u32,
) -> LaunchStats
where
    K::Real: HostReal,
{
    // One branch per chunk: the loop without saving is its own monomorphization.
    // SAFETY: `chunk_with` has this function's contract.
    unsafe {
        if p.save.on() {
            let stats = chunk_with::<K, L, GroupSave<'_, L>>(p, lo, hi, k);
            // Saved points were written with streaming stores: make them visible before
            // the launch ends (the rule of `Lane::store_stream`).
            #[cfg(target_arch = "x86_64")]
            core::arch::x86_64::_mm_sfence();
            stats
        } else {
            chunk_with::<K, L, NoSave>(p, lo, hi, k)
        }
    }
}

/// [`run_chunk`] with saver `S`.
///
/// # Safety
/// As [`run_chunk`].
#[inline(always)]
unsafe fn chunk_with<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    p: &'t Ptrs<K::Real>,
    lo: usize,
    hi: usize,
    k: u32,
) -> LaunchStats
where
    K::Real: HostReal,
{
    let w = L::WIDTH;
    let params = K::Params::<L>::from_fn(|j| L::splat(p.params[j]));
    let mut stats = LaunchStats::default();
    let mut i = lo;
    // SAFETY: `lo..hi` lies inside the work set and belongs to this thread (the contract):
    // every group `i..i + w` and every tail slot `i` below is inside it.
    unsafe {
        while i + w <= hi {
            let flags = p.terminated.add(i);
            // Most groups start a launch with every lane running: then the start mask is a
            // constant and, unless a lane finishes or fails, no status byte changes.
            let all_running = (0..w).all(|l| *flags.add(l) == ACTIVE);
            let (s, taken) = if all_running {
                group::<K, L, S>(p, &params, i, L::Mask::splat(false), k)
            } else {
                let start = L::Mask::from_fn(|l| *flags.add(l) != ACTIVE);
                if start.all() {
                    i += w;
                    continue;
                }
                group::<K, L, S>(p, &params, i, start, k)
            };
            stats.active += s;
            stats.loaded += w;
            stats.lane_steps += w as u64 * u64::from(taken);
            i += w;
        }
        while i < hi {
            if *p.terminated.add(i) == ACTIVE {
                stats.loaded += 1;
            }
            let (running, taken) = run_sample::<K>(
                i,
                k,
                &p.ins,
                &p.params,
                &p.muts,
                p.terminated,
                &p.save,
                p.ids,
            );
            stats.active += running as usize;
            stats.lane_steps += u64::from(taken);
            i += 1;
        }
    }
    stats
}

/// The chunk loops of one kernel, one per instruction set, as methods of a trait every
/// kernel implements: rustc places a method's instances with the type it is implemented
/// for, so each kernel's loops go to a codegen unit of the kernel's own module, and LLVM
/// compiles different kernels' loops in parallel. (As free generic functions, every
/// kernel's loops shared one unit, `hawk_host::dispatch`: one core compiled them all.)
trait ChunkLoops: Kernel
where
    Self::Real: HostReal,
{
    /// [`run_chunk`] compiled for AVX2 and FMA.
    ///
    /// # Safety
    /// As [`run_chunk`], on a CPU with AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    unsafe fn avx2<L: Lane<Elem = Self::Real>>(
        p: &Ptrs<Self::Real>,
        lo: usize,
        hi: usize,
        k: u32,
    ) -> LaunchStats;
    /// [`run_chunk`] compiled for AVX-512F (with AVX2 and FMA).
    ///
    /// # Safety
    /// As [`run_chunk`], on a CPU with AVX-512F, AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    unsafe fn avx512<L: Lane<Elem = Self::Real>>(
        p: &Ptrs<Self::Real>,
        lo: usize,
        hi: usize,
        k: u32,
    ) -> LaunchStats;
    /// [`run_chunk`] for whatever the build target guarantees.
    ///
    /// # Safety
    /// As [`run_chunk`].
    unsafe fn portable<L: Lane<Elem = Self::Real>>(
        p: &Ptrs<Self::Real>,
        lo: usize,
        hi: usize,
        k: u32,
    ) -> LaunchStats;
}

/// One method of [`ChunkLoops`]: [`run_chunk`] with the target features given.
macro_rules! chunk_loop {
    ($name:ident $(, $feat:literal)?) => {
        $(#[target_feature(enable = $feat)])?
        unsafe fn $name<L: Lane<Elem = K::Real>>(
            p: &Ptrs<K::Real>,
            lo: usize,
            hi: usize,
            k: u32,
        ) -> LaunchStats {
            // SAFETY: the caller guarantees `run_chunk`'s contract (and checked that the
            // CPU has the features this loop is compiled for).
            unsafe { run_chunk::<K, L>(p, lo, hi, k) }
        }
    };
}

impl<K: Kernel> ChunkLoops for K
where
    K::Real: HostReal,
{
    #[cfg(target_arch = "x86_64")]
    chunk_loop!(avx2, "avx2,fma");
    #[cfg(target_arch = "x86_64")]
    chunk_loop!(avx512, "avx512f,avx2,fma");
    chunk_loop!(portable);
}

/// Kernel `$K`'s chunk loop for instruction set `$isa` on lane type `$L`.
macro_rules! shape {
    ($isa:ident, $K:ident, $L:ty) => {
        <$K as ChunkLoops>::$isa::<$L> as ChunkFn<$K::Real>
    };
}

/// `$isa`'s loop at width `$w` of 4 and more (1 and 2 are the portable loop's alone).
#[cfg(not(target_arch = "x86_64"))]
macro_rules! by_width {
    ($isa:ident, $K:ident, $w:expr) => {
        match $w {
            4 => shape!($isa, $K, <$K::Real as HostReal>::X4),
            8 => shape!($isa, $K, <$K::Real as HostReal>::X8),
            12 => shape!($isa, $K, <$K::Real as HostReal>::X12),
            16 => shape!($isa, $K, <$K::Real as HostReal>::X16),
            32 => shape!($isa, $K, <$K::Real as HostReal>::X32),
            64 => shape!($isa, $K, <$K::Real as HostReal>::X64),
            w => unreachable!("lane width {w} was validated against LANE_WIDTHS"),
        }
    };
}

/// The chunk loop for kernel `K` on `isa` with `lanes` samples per group (one of
/// [`Isa::lane_widths`]).
///
/// Shapes whose vectors are the same on several instruction sets are compiled once (13
/// loops per kernel on x86-64): 1 and 2 lanes (a scalar, one 128-bit vector) run the
/// portable loop on every instruction set, and on AVX-512, 4 and 12 lanes (vectors of at
/// most 256 bits) run the AVX2 loop. Every shape gives the same bits anyway, and these are
/// never among the shapes `lanes: auto` measures. On AVX-512, 8 and 16 lanes are plain
/// vectors (whole 512-bit registers); elsewhere they are `Multi`s of 4-lane vectors
/// (independent dependency chains on AVX2). On x86-64 the portable (SSE2) loops stop at 8
/// lanes and the AVX2 loops at 32 ([`Isa::lane_widths`]).
///
/// A kernel with `host_loops = "portable"` ([`HostLoops::Portable`]) has the portable
/// loops alone: any shape runs the portable loop at [`portable_width`]. (The test is a
/// constant, so the other loops are never instantiated for it.)
pub(crate) fn chunk_fn<K: Kernel>(isa: Isa, lanes: usize) -> ChunkFn<K::Real>
where
    K::Real: HostReal,
{
    if const { matches!(K::HOST_LOOPS, HostLoops::Portable) } {
        return match portable_width(lanes) {
            1 => shape!(portable, K, K::Real),
            2 => shape!(portable, K, <K::Real as HostReal>::X2),
            4 => shape!(portable, K, <K::Real as HostReal>::X4),
            _ => shape!(portable, K, <K::Real as HostReal>::X8),
        };
    }
    match (isa, lanes) {
        (_, 1) => shape!(portable, K, K::Real),
        (_, 2) => shape!(portable, K, <K::Real as HostReal>::X2),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx512, 8) => shape!(avx512, K, <K::Real as HostReal>::V8),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx512, 16) => shape!(avx512, K, <K::Real as HostReal>::V16),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx512, 32) => shape!(avx512, K, <K::Real as HostReal>::X32),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx512, 64) => shape!(avx512, K, <K::Real as HostReal>::X64),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2 | Isa::Avx512, 4) => shape!(avx2, K, <K::Real as HostReal>::X4),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, 8) => shape!(avx2, K, <K::Real as HostReal>::X8),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2 | Isa::Avx512, 12) => shape!(avx2, K, <K::Real as HostReal>::X12),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, 16) => shape!(avx2, K, <K::Real as HostReal>::X16),
        #[cfg(target_arch = "x86_64")]
        (Isa::Avx2, 32) => shape!(avx2, K, <K::Real as HostReal>::X32),
        #[cfg(target_arch = "x86_64")]
        (Isa::Portable, 4) => shape!(portable, K, <K::Real as HostReal>::X4),
        #[cfg(target_arch = "x86_64")]
        (Isa::Portable, 8) => shape!(portable, K, <K::Real as HostReal>::X8),
        #[cfg(target_arch = "x86_64")]
        (isa, w) => unreachable!("{w} lanes on {isa:?} were validated against Isa::lane_widths"),
        #[cfg(not(target_arch = "x86_64"))]
        (_, w) => by_width!(portable, K, w),
    }
}
