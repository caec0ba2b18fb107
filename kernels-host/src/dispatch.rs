//! Picks the instruction set and lane width at run time, and the kernel's chunk loop for
//! them from the loops compiled with the kernel (`hawk::host`, [`Kernel::host_loops`]).

use hawk::host::{ChunkFn, LaneTypes};
use hawk::{Kernel, Real};

/// An element type the host team can run: `f64` or `f32`, with its SIMD lane types
/// ([`LaneTypes`]) and its free list of kept buffers.
pub trait HostReal: LaneTypes + crate::buffers::FreeList {}

impl<R: LaneTypes + crate::buffers::FreeList> HostReal for R {}

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

    /// Its row in a kernel's [`hawk::host::LoopTable`].
    pub fn table_index(self) -> usize {
        match self {
            Isa::Portable => 0,
            Isa::Avx2 => 1,
            Isa::Avx512 => 2,
        }
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

/// The chunk loop for kernel `K` on `isa` with `lanes` samples per group (one of
/// [`Isa::lane_widths`]), from the kernel's [`hawk::host::LoopTable`] (which shapes share a
/// loop, and what a kernel with `host_loops = "portable"` runs: [`hawk::host::LoopTable::of`]).
pub(crate) fn chunk_fn<K: Kernel>(isa: Isa, lanes: usize) -> ChunkFn<K::Real>
where
    K::Real: HostReal,
{
    K::host_loops()
        .get(isa.table_index(), lanes)
        .unwrap_or_else(|| {
            unreachable!("{lanes} lanes on {isa:?} were validated against Isa::lane_widths")
        })
}
