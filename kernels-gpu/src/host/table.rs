//! Each kernel's chunk loops, one per instruction set and lane width, as a table of
//! function pointers built at compile time.

use super::chunk::run_chunk;
use super::{ChunkFn, ChunkPtrs, ISAS, LANE_WIDTHS, LaneTypes, LaunchStats, portable_width};
use crate::{HostLoops, Kernel, Lane};

/// The chunk loops of one kernel, one per instruction set, as methods of a trait every
/// kernel implements: rustc places a method's instances with the type it is implemented
/// for, so each kernel's loops go to a codegen unit of the kernel's own module, and LLVM
/// compiles different kernels' loops in parallel.
trait ChunkLoops: Kernel
where
    Self::Real: LaneTypes,
{
    /// [`run_chunk`] compiled for AVX2 and FMA.
    ///
    /// # Safety
    /// As [`run_chunk`], on a CPU with AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    unsafe fn avx2<L: Lane<Elem = Self::Real>>(
        p: &ChunkPtrs<'_, Self::Real>,
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
        p: &ChunkPtrs<'_, Self::Real>,
        lo: usize,
        hi: usize,
        k: u32,
    ) -> LaunchStats;
    /// [`run_chunk`] for whatever the build target guarantees.
    ///
    /// # Safety
    /// As [`run_chunk`].
    unsafe fn portable<L: Lane<Elem = Self::Real>>(
        p: &ChunkPtrs<'_, Self::Real>,
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
            p: &ChunkPtrs<'_, K::Real>,
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
    K::Real: LaneTypes,
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
        Some(<$K as ChunkLoops>::$isa::<$L> as ChunkFn<$K::Real>)
    };
}

/// A kernel's chunk loops: for each instruction set (by index, see [`ISAS`]) and each of
/// [`LANE_WIDTHS`], the loop that runs that shape, or `None` where the instruction set has
/// no loop of that width.
///
/// [`LoopTable::of`] makes one at compile time. `#[kernel]` keeps it in a `static` of the
/// kernel's crate ([`Kernel::host_loops`]): a function pointer in a static is compiled in
/// the static's crate, once, and every crate that runs the kernel links it.
#[derive(Clone, Copy, Debug)]
pub struct LoopTable<R: 'static> {
    loops: [[Option<ChunkFn<R>>; LANE_WIDTHS.len()]; ISAS],
}

/// Where `lanes` stands in [`LANE_WIDTHS`].
const fn width_index(lanes: usize) -> Option<usize> {
    let mut i = 0;
    while i < LANE_WIDTHS.len() {
        if LANE_WIDTHS[i] == lanes {
            return Some(i);
        }
        i += 1;
    }
    None
}

impl<R: LaneTypes> LoopTable<R> {
    /// The loop of instruction set `isa` (an index below [`ISAS`]) at `lanes` samples per
    /// group; `None` when it has none.
    pub fn get(&self, isa: usize, lanes: usize) -> Option<ChunkFn<R>> {
        self.loops.get(isa)?[width_index(lanes)?]
    }

    /// Kernel `K`'s loops.
    ///
    /// Shapes whose vectors are the same on several instruction sets are compiled once (13
    /// loops per kernel on x86-64): 1 and 2 lanes (a scalar, one 128-bit vector) run the
    /// portable loop on every instruction set, and on AVX-512, 4 and 12 lanes (vectors of
    /// at most 256 bits) run the AVX2 loop. Every shape gives the same bits anyway, and
    /// these are never among the shapes `lanes: auto` measures. On AVX-512, 8 and 16 lanes
    /// are plain vectors (whole 512-bit registers); elsewhere they are `Multi`s of 4-lane
    /// vectors (independent dependency chains on AVX2). On x86-64 the portable (SSE2) loops
    /// stop at 8 lanes and the AVX2 loops at 32; elsewhere the portable loops have every
    /// width.
    ///
    /// A kernel with `host_loops = "portable"` ([`HostLoops::Portable`]) has the 4 portable
    /// loops alone: any shape runs the portable loop at [`portable_width`]. The table is
    /// a constant, so only the loops it holds are compiled.
    pub const fn of<K: Kernel<Real = R>>() -> Self {
        if matches!(K::HOST_LOOPS, HostLoops::Portable) {
            return Self::portable_of::<K>();
        }
        let p = Self::portable_loops::<K>();
        // Rows by instruction set; columns by LANE_WIDTHS: 1, 2, 4, 8, 12, 16, 32, 64 lanes.
        #[cfg(target_arch = "x86_64")]
        let loops = {
            let (avx2_4, avx2_12) = (shape!(avx2, K, R::X4), shape!(avx2, K, R::X12));
            [
                [p[0], p[1], p[2], p[3], None, None, None, None],
                [
                    p[0],
                    p[1],
                    avx2_4,
                    shape!(avx2, K, R::X8),
                    avx2_12,
                    shape!(avx2, K, R::X16),
                    shape!(avx2, K, R::X32),
                    None,
                ],
                [
                    p[0],
                    p[1],
                    avx2_4,
                    shape!(avx512, K, R::V8),
                    avx2_12,
                    shape!(avx512, K, R::V16),
                    shape!(avx512, K, R::X32),
                    shape!(avx512, K, R::X64),
                ],
            ]
        };
        #[cfg(not(target_arch = "x86_64"))]
        let loops = [
            [
                p[0],
                p[1],
                p[2],
                p[3],
                shape!(portable, K, R::X12),
                shape!(portable, K, R::X16),
                shape!(portable, K, R::X32),
                shape!(portable, K, R::X64),
            ],
            [None; LANE_WIDTHS.len()],
            [None; LANE_WIDTHS.len()],
        ];
        LoopTable { loops }
    }

    /// Kernel `K`'s loops as with `host_loops = "portable"`, whatever `K` says: every
    /// shape runs the portable loop at [`portable_width`] (what [`crate::PortableLoops`]
    /// runs). Its loops are those of the portable row of [`LoopTable::of`]: the same
    /// functions, compiled once for both.
    pub const fn portable_of<K: Kernel<Real = R>>() -> Self {
        let portable = Self::portable_loops::<K>();
        let mut loops = [[None; LANE_WIDTHS.len()]; ISAS];
        let mut isa = 0;
        while isa < ISAS {
            let mut w = 0;
            while w < LANE_WIDTHS.len() {
                // 1, 2, 4, 8 lanes: portable[0..4].
                loops[isa][w] = portable[portable_width(LANE_WIDTHS[w]).trailing_zeros() as usize];
                w += 1;
            }
            isa += 1;
        }
        LoopTable { loops }
    }

    /// `K`'s portable loops at 1, 2, 4 and 8 lanes.
    const fn portable_loops<K: Kernel<Real = R>>() -> [Option<ChunkFn<R>>; 4] {
        [
            shape!(portable, K, R),
            shape!(portable, K, R::X2),
            shape!(portable, K, R::X4),
            shape!(portable, K, R::X8),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::Oscillator;
    use crate::prelude::*;
    use crate::save::{SaveTarget, SlotIds};
    use crate::{ACTIVE, PortableLoops};

    /// A loop's address, to compare loops (the same instance has one address in a table).
    fn addr<R>(f: Option<ChunkFn<R>>) -> Option<usize> {
        f.map(|f| f as usize)
    }

    /// A decay whose table is not a static of this crate (`host_code = "where_used"`):
    /// `Kernel::host_loops`' default, compiled where it runs.
    #[kernel(host_code = "where_used", host_loops = "portable", steps = 4)]
    fn halve(terminated: &mut Terminated, y: &mut Scalar) {
        *y *= Scalar::splat(0.5);
        *terminated = y.simd_lt(Scalar::splat(0.01));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_full_table_has_each_shape_of_each_instruction_set_and_shares_equal_vectors() {
        let t = Oscillator::host_loops();
        let has = |isa: usize| -> [bool; 8] {
            core::array::from_fn(|w| t.get(isa, LANE_WIDTHS[w]).is_some())
        };
        assert_eq!(has(0), [true, true, true, true, false, false, false, false]);
        assert_eq!(has(1), [true, true, true, true, true, true, true, false]);
        assert_eq!(has(2), [true; 8]);
        assert_eq!(addr(t.get(ISAS, 1)), None);
        assert_eq!(addr(t.get(0, 3)), None);
        // 1 and 2 lanes: the portable loop everywhere; AVX-512 at 4 and 12: the AVX2 loop.
        for isa in 1..ISAS {
            for w in [1, 2] {
                assert_eq!(addr(t.get(isa, w)), addr(t.get(0, w)));
            }
        }
        for w in [4, 12] {
            assert_eq!(addr(t.get(2, w)), addr(t.get(1, w)));
        }
        // The rest are loops of their own.
        assert_ne!(addr(t.get(2, 8)), addr(t.get(1, 8)));
        assert_ne!(addr(t.get(1, 4)), addr(t.get(0, 4)));
    }

    #[test]
    fn the_portable_table_is_the_full_tables_portable_row() {
        let (full, portable) = (Oscillator::host_loops(), Oscillator::portable_host_loops());
        for isa in 0..ISAS {
            for w in LANE_WIDTHS {
                assert_eq!(
                    addr(portable.get(isa, w)),
                    addr(full.get(0, portable_width(w))),
                    "isa {isa}, {w} lanes"
                );
            }
        }
        // The wrapper links the kernel's own portable table.
        assert!(core::ptr::eq(
            PortableLoops::<Oscillator>::host_loops(),
            Oscillator::portable_host_loops()
        ));
    }

    #[test]
    fn a_table_compiled_where_used_runs_each_shape_alike() {
        let t = Halve::host_loops();
        let run = |isa: usize, lanes: usize| {
            let mut y: [f64; 11] = core::array::from_fn(|i| 1.0 + i as f64);
            let mut flags = [ACTIVE; 11];
            let muts = [y.as_mut_ptr()];
            let p = ChunkPtrs {
                ins: &[],
                params: &[],
                muts: &muts,
                terminated: flags.as_mut_ptr(),
                save: SaveTarget::NONE,
                ids: SlotIds::Same,
            };
            let f = t.get(isa, lanes).expect("every shape runs a portable loop");
            // SAFETY: 0..11 is the whole work set, on this thread alone; nothing is saved;
            // every table row of a portable-only kernel is a portable loop.
            let stats = unsafe { f(&p, 0, 11, 4) };
            (y, flags, stats)
        };
        let one = run(0, 1);
        assert_eq!(one.0[0], 1.0 / 16.0);
        assert_eq!(one.2.lane_steps, 44);
        for isa in 0..ISAS {
            for w in LANE_WIDTHS {
                let got = run(isa, w);
                assert_eq!((got.0, got.1), (one.0, one.1), "isa {isa}, {w} lanes");
            }
        }
    }
}
