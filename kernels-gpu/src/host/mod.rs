//! The host team's chunk loops, compiled in the crate that defines each kernel.
//!
//! A chunk loop advances one contiguous range of a work set's slots in lane groups of one
//! SIMD shape (instruction set x width) and then a scalar tail. It needs only `core::simd`
//! and `#[target_feature]`, so it lives here, in the `no_std` kernel language, and
//! `#[kernel]` makes each kernel's table of loops ([`LoopTable`]) a `static` of the kernel's
//! own crate (host builds only): an app, a test binary or the card that deploys the kernel
//! links those loops instead of compiling them again. The host team (`hawk-host`) picks a
//! loop from the table ([`crate::Kernel::host_loops`]) and hands it chunks on rayon threads.

mod chunk;
mod table;

pub use table::LoopTable;

use crate::lane::Multi;
use crate::save::{SaveTarget, SlotIds};
use crate::{Lane, Real};
use core::simd::Simd;

/// Lane widths the host team can run, in samples per SIMD group.
pub const LANE_WIDTHS: [usize; 8] = [1, 2, 4, 8, 12, 16, 32, 64];

/// The instruction sets a [`LoopTable`] has loops for, by index: what `hawk-host`'s `Isa`
/// maps to (`Isa::Portable` 0, `Isa::Avx2` 1, `Isa::Avx512` 2).
pub const ISAS: usize = 3;

/// An element type whose lanes the host loops are compiled for: `f64` or `f32`, with its
/// SIMD lane types, one per shape.
pub trait LaneTypes: Real + Lane<Elem = Self, Mask = bool> {
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

macro_rules! lane_types {
    ($t:ty) => {
        impl LaneTypes for $t {
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
lane_types!(f64);
lane_types!(f32);

/// The widest of the portable-only kernels' loops (1, 2, 4 and 8 lanes) that divides
/// `lanes`: what a kernel with [`crate::HostLoops::Portable`] runs when `lanes` are asked
/// for.
pub const fn portable_width(lanes: usize) -> usize {
    if lanes.is_multiple_of(8) {
        8
    } else if lanes.is_multiple_of(4) {
        4
    } else if lanes.is_multiple_of(2) {
        2
    } else {
        1
    }
}

/// What one launch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchStats {
    /// Slots still active after the launch.
    pub active: usize,
    /// Slots whose state was loaded and stored (lane groups that were not all finished,
    /// finished lanes of such groups included): what the launch's bytes are issued for.
    pub loaded: usize,
    /// Sample steps issued: each lane group's steps times its width (finished lanes of
    /// running groups included), the scalar tail's steps one each.
    pub lane_steps: u64,
}

impl core::ops::Add for LaunchStats {
    type Output = Self;
    /// Both counts added.
    fn add(self, o: Self) -> Self {
        LaunchStats {
            active: self.active + o.active,
            loaded: self.loaded + o.loaded,
            lane_steps: self.lane_steps + o.lane_steps,
        }
    }
}

/// Raw views of a work set for one launch, as the chunk loops read them.
#[derive(Clone, Copy, Debug)]
pub struct ChunkPtrs<'p, R> {
    /// Each read-only plane's first slot.
    pub ins: &'p [*const R],
    /// The shared parameters.
    pub params: &'p [R],
    /// Each mutable plane's first slot.
    pub muts: &'p [*mut R],
    /// The slots' status bytes.
    pub terminated: *mut u8,
    /// Where the launch saves points (`SaveTarget::NONE`: nowhere).
    pub save: SaveTarget<R>,
    /// Which caller sample each slot holds (for saved points).
    pub ids: SlotIds,
}

// SAFETY: the pointers address a work set's planes, borrowed mutably for the launch; a
// launch hands disjoint index ranges to different threads, so no element is written by
// two threads or read by one while another writes it.
unsafe impl<R: Send> Send for ChunkPtrs<'_, R> {}
// SAFETY: as for `Send`: the threads sharing the views touch disjoint index ranges.
unsafe impl<R: Sync> Sync for ChunkPtrs<'_, R> {}

/// One chunk of one launch: `(ptrs, lo, hi, k) -> what it did in lo..hi`.
///
/// # Safety (of a call)
/// `lo..hi` must lie inside the work set behind `ptrs`, and no other thread may touch it;
/// `ptrs.save` must be valid for the samples those slots hold (`ptrs.ids`), for every step
/// of the launch; the CPU must have the loop's instruction set.
pub type ChunkFn<R> = unsafe fn(&ChunkPtrs<'_, R>, usize, usize, u32) -> LaunchStats;
