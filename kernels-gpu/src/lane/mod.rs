//! Lane types: what a kernel body computes with.
//!
//! A kernel body is generic over one [`Lane`] type. On the GPU the lane is a plain `f64` or
//! `f32` (one thread per sample); on the host it is a `core::simd` vector holding several
//! samples at once. Per-sample decisions are [`Mask`]s and [`Lane::select`], never an `if` on
//! a sample's value, so every lane type gives the same bits.
//!
//! The traits live here; the impls in `scalar.rs` (`f64`, `f32`), `simd.rs` (`core::simd`)
//! and `multi.rs` ([`Multi`], host only).

use crate::bits::IntLane;
use core::fmt::Debug;
use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Div, DivAssign, Mul,
    MulAssign, Neg, Not, Sub, SubAssign,
};

/// An element type a plane can hold: `f64` or `f32`.
///
/// Sealed: no other type implements it, so code that moves planes as bytes (device
/// uploads, MPI messages) may rely on an element without padding, every bit pattern of
/// which is a value.
pub trait Real:
    sealed::Sealed
    + Copy
    + Send
    + Sync
    + Default
    + Debug
    + PartialOrd
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + crate::math::Consts
    + crate::math::Format
{
    /// The element's name as a kernel author writes it (`"f64"`).
    const NAME: &'static str;
    /// Bytes per element.
    const BYTES: usize;
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(v: f64) -> Self;
    /// Widens to `f64`.
    fn to_f64(self) -> f64;
    /// `true` when neither NaN nor infinite.
    fn finite(self) -> bool;
}

mod sealed {
    /// Implemented for `f64` and `f32` only (see [`Real`](super::Real)).
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

/// A per-lane boolean: `bool` for a scalar lane, a SIMD mask for a vector lane.
pub trait Mask:
    Copy
    + Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// Every lane set to `b`.
    fn splat(b: bool) -> Self;
    /// `true` if any lane is set.
    fn any(self) -> bool;
    /// `true` if every lane is set.
    fn all(self) -> bool;
    /// Lane `i`'s value.
    fn test(self, i: usize) -> bool;
    /// Builds a mask lane by lane.
    fn from_fn(f: impl FnMut(usize) -> bool) -> Self;
    /// Lanes in the mask.
    const LANES: usize;
    /// The mask as bits, lane `i` in bit `i` (at most 64 lanes).
    fn to_bits(self) -> u64;
}

/// What a kernel body computes with: `WIDTH` samples' values of one plane.
///
/// Arithmetic is IEEE per lane and never fused behind the author's back, so a scalar lane
/// and a vector lane give bit-identical results.
pub trait Lane:
    Copy
    + Send
    + Sync
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// The element type (`f64` or `f32`).
    type Elem: Real;
    /// The per-lane boolean type.
    type Mask: Mask;
    /// Samples per lane value.
    const WIDTH: usize;
    /// Every lane set to `v`.
    fn splat(v: Self::Elem) -> Self;
    /// Reads `WIDTH` consecutive elements.
    ///
    /// # Safety
    /// `p` must be valid for reading `WIDTH` elements.
    unsafe fn load(p: *const Self::Elem) -> Self;
    /// Writes `WIDTH` consecutive elements.
    ///
    /// # Safety
    /// `p` must be valid for writing `WIDTH` elements.
    unsafe fn store(self, p: *mut Self::Elem);
    /// Writes `WIDTH` consecutive elements that will not be read again soon (saved points):
    /// on x86-64 vector lanes, non-temporal (streaming) stores where `p` is 16-byte aligned,
    /// which skip the read of each line a plain store makes; else a plain [`store`](Self::store).
    /// The same bits either way.
    ///
    /// # Safety
    /// As [`store`](Self::store). On x86-64 the writing thread must run an `sfence`
    /// (`core::arch::x86_64::_mm_sfence`) before any other thread reads what it wrote.
    #[inline(always)]
    unsafe fn store_stream(self, p: *mut Self::Elem) {
        // SAFETY: `p` is valid for writing `WIDTH` elements (this method's contract, which
        // is `store`'s).
        unsafe { self.store(p) }
    }
    /// Lane `i`'s value.
    fn lane(self, i: usize) -> Self::Elem;
    /// Per lane: `a` where `m` is set, else `b` (numpy's `where`).
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Per lane `self >= o`.
    fn simd_ge(self, o: Self) -> Self::Mask;
    /// Per lane `self > o`.
    fn simd_gt(self, o: Self) -> Self::Mask;
    /// Per lane `self <= o`.
    fn simd_le(self, o: Self) -> Self::Mask;
    /// Per lane `self < o`.
    fn simd_lt(self, o: Self) -> Self::Mask;
    /// Per lane `self == o`.
    fn simd_eq(self, o: Self) -> Self::Mask;
    /// Per lane: neither NaN nor infinite.
    fn is_finite(self) -> Self::Mask;
    /// Per lane fused `self * a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Per lane square root, correctly rounded.
    fn sqrt(self) -> Self;
    /// Per lane absolute value.
    fn abs(self) -> Self;
    /// Per lane minimum (IEEE minNum: a NaN operand yields the other).
    fn min(self, o: Self) -> Self;
    /// Per lane maximum (IEEE maxNum).
    fn max(self, o: Self) -> Self;
    /// The integer companion (same width as the elements), for bit-level range reductions.
    type Int: IntLane<Mask = Self::Mask>;
    /// Per lane: the element's bits as a signed integer (`f64::to_bits`, reinterpreted).
    fn to_bits(self) -> Self::Int;
    /// Per lane: the element whose bits are `i` (`f64::from_bits`).
    fn from_bits(i: Self::Int) -> Self;

    crate::math::lane_methods!();
}

/// A fixed-size group of lane values: one per plane of a role.
pub trait LaneArray<L: Lane>: Copy + Send + Sync {
    /// Number of planes.
    const LEN: usize;
    /// Builds the group plane by plane.
    fn from_fn(f: impl FnMut(usize) -> L) -> Self;
    /// The values as a slice.
    fn as_slice(&self) -> &[L];
    /// The values as a mutable slice.
    fn as_mut_slice(&mut self) -> &mut [L];
}

impl<L: Lane, const N: usize> LaneArray<L> for [L; N] {
    const LEN: usize = N;
    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> L) -> Self {
        core::array::from_fn(f)
    }
    #[inline(always)]
    fn as_slice(&self) -> &[L] {
        self
    }
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [L] {
        self
    }
}

mod scalar;
#[cfg(not(target_arch = "nvptx64"))]
mod simd;

#[cfg(not(target_arch = "nvptx64"))]
mod multi;
#[cfg(not(target_arch = "nvptx64"))]
pub use multi::{Multi, MultiMask};
