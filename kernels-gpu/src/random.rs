//! Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
//! random numbers: as easy as 1, 2, 3", SC'11; the Random123 library).
//!
//! A counter-based generator has no state: the output is a function of a counter and a
//! key, so a sample's draws can be keyed by what identifies them (a seed and the sample's
//! caller id as the key, the step and draw index as the counter) and are then the same
//! whichever team, lane, shard or compaction slot computes them.
//!
//! - [`philox4x32_10`]: the bijection on one 128-bit block (plain `u32` words).
//! - [`philox_lanes`]: the same on lanes of words ([`IntLane`]), every lane its own counter
//!   and key; the same bits as [`philox4x32_10`] lane by lane.
//! - [`Stream`]: one sample's draws of one step, keyed by the floats a kernel holds: key
//!   `(seed, path)`, counter `(step, block)`. [`Stream::uniforms`] and [`Stream::normals`]
//!   give whole lane values, vectorized on the host (no per-lane calls).
//!
//! **The layout**, for an independent implementation to reproduce the draws: block `b` of
//! step `s` of path `p` under seed `k` is `philox4x32_10([s mod 2^32, s div 2^32, b, 0],
//! [k, p])`. A uniform in `f64` takes two words, `(w0 * 2^20 + w1 div 2^12 + 1/2) 2^-52`
//! (words 0, 1 and 2, 3: two per block); in `f32` one word, `(w div 2^9 + 1/2) 2^-23` (four
//! per block). Both ends are excluded: the smallest uniform is `2^-53` (`2^-24` in
//! `f32`), the largest one ulp of it below 1. A normal pair is Box-Muller on two
//! consecutive uniforms, `sqrt(-2 ln u1) (cos 2 pi u2, sin 2 pi u2)` (normals `2i`, `2i+1`),
//! with the library's `ln`, `sqrt` and `sin_cos`, so within a few ulps of the exact
//! transform of those uniforms; its tails stop at `sqrt(-2 ln 2^-53) = 8.57` (`5.77` in
//! `f32`, where `P(|Z| > 5.77)` is `8e-9`).
//!
//! Each of the 10 rounds multiplies words 0 and 2 of the counter by the constants
//! [`PHILOX_M0`] and [`PHILOX_M1`] (32 x 32 -> 64 bits), and mixes the halves with words 1
//! and 3 and the key; the key is bumped by the Weyl constants [`PHILOX_W0`] and
//! [`PHILOX_W1`] between rounds. The known-answer vectors of Random123's `kat_vectors`
//! file are tests (`kernels-gpu/tests/random_philox.rs`).

use crate::bits::IntLane;
use crate::lane::{Lane, Real};

/// The multiplier of counter word 0.
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// The multiplier of counter word 2.
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// The Weyl increment of key word 0 (the golden ratio's fraction, 32 bits).
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// The Weyl increment of key word 1 (`sqrt(3) - 1`, 32 bits).
pub const PHILOX_W1: u32 = 0xBB67_AE85;

/// One round: the two products, their halves mixed with the other words and the key.
#[inline(always)]
fn round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let p0 = u64::from(PHILOX_M0) * u64::from(c[0]);
    let p1 = u64::from(PHILOX_M1) * u64::from(c[2]);
    [
        (p1 >> 32) as u32 ^ c[1] ^ k[0],
        p1 as u32,
        (p0 >> 32) as u32 ^ c[3] ^ k[1],
        p0 as u32,
    ]
}

/// Philox4x32-10: four 32-bit words from a 128-bit `counter` and a 64-bit `key`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    c = round(c, k);
    for _ in 1..10 {
        k = [k[0].wrapping_add(PHILOX_W0), k[1].wrapping_add(PHILOX_W1)];
        c = round(c, k);
    }
    c
}

/// Philox4x32-10 on lanes of words: each lane's 32-bit words (zero-extended on 64-bit
/// lanes) are that lane's counter and key, and the result is [`philox4x32_10`] of them,
/// lane by lane.
// Out of line in unoptimized builds: inlined there, every temporary of the rounds and
// the math keeps a stack slot of its own, and a 32-lane group's step needs megabytes.
#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn philox_lanes<I: IntLane>(counter: [I; 4], key: [I; 2]) -> [I; 4] {
    let word = I::splat(0xffff_ffff);
    let (w0, w1) = (
        I::splat(i64::from(PHILOX_W0)),
        I::splat(i64::from(PHILOX_W1)),
    );
    let (mut c, mut k) = (counter, key);
    c = round_lanes(c, k);
    for _ in 1..10 {
        k = [k[0].add(w0).and(word), k[1].add(w1).and(word)];
        c = round_lanes(c, k);
    }
    c
}

/// One round on lanes (see [`round`]).
#[inline(always)]
fn round_lanes<I: IntLane>(c: [I; 4], k: [I; 2]) -> [I; 4] {
    let (hi0, lo0) = c[0].mul_wide(PHILOX_M0);
    let (hi1, lo1) = c[2].mul_wide(PHILOX_M1);
    [hi1.xor(c[1]).xor(k[0]), lo1, hi0.xor(c[3]).xor(k[1]), lo0]
}

/// Whole numbers below this convert exactly to a key or counter word ([`Stream::new`]):
/// `2^32` in `f64` kernels, `2^24` in `f32` kernels (the largest `f32` below which every
/// whole number is exact).
pub const fn counter_limit<R: Real>() -> f64 {
    if R::BYTES == 8 {
        4_294_967_296.0
    } else {
        16_777_216.0
    }
}

/// A whole number `0 <= x < 2^52` (`f64`) or `0 <= x <= 2^24` (`f32`) as two 32-bit words,
/// low and high.
#[inline(always)]
fn words_of<L: Lane>(x: L) -> (L::Int, L::Int) {
    if L::Elem::BYTES == 8 {
        // `x + 2^52` holds `x` in its 52 fraction bits.
        let b = (x + L::splat(L::Elem::from_f64(4_503_599_627_370_496.0))).to_bits();
        let low = b.and(L::Int::splat(0xffff_ffff));
        let high = b.lshr(32).and(L::Int::splat(0xf_ffff));
        (low, high)
    } else {
        // Two 12-bit halves (each exact), each through `v + 2^23`'s 23 fraction bits.
        let scale = L::splat(L::Elem::from_f64(4096.0));
        let high = (x * L::splat(L::Elem::from_f64(1.0 / 4096.0))).floor();
        let low = x - high * scale;
        let magic = L::splat(L::Elem::from_f64(8_388_608.0));
        let field = L::Int::splat(0x7f_ffff);
        let (h, l) = (
            (high + magic).to_bits().and(field),
            (low + magic).to_bits().and(field),
        );
        (h.shl(12).or(l), L::Int::splat(0))
    }
}

/// One sample's random numbers for one step: Philox4x32-10 keyed by `(seed, path)`, its
/// counter `(step, block)` (the layout is in the [module docs](self)).
///
/// The key and counter come from floats a kernel holds (a param and planes), so the draws
/// move with the sample: the same on every team, lane width, shard, rank and compaction
/// slot, and after a cancelled run is resumed from its planes.
///
/// ```
/// use hawk::random::Stream;
/// // Seed 7, path 3, step 0: two standard normals (one lane of f64).
/// let z: [f64; 2] = Stream::new(7.0, 3.0, 0.0).normals(0);
/// assert_eq!(z, Stream::new(7.0, 3.0, 0.0).normals::<2>(0));
/// assert_ne!(z, Stream::new(7.0, 4.0, 0.0).normals::<2>(0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Stream<L: Lane> {
    key: [L::Int; 2],
    step: [L::Int; 2],
}

impl<L: Lane> Stream<L> {
    /// The stream of `path` at `step` under `seed`: each a whole number below
    /// [`counter_limit`] (a run checks this before it starts, `Kernel::COUNTERS`); the
    /// bits of anything else are unspecified.
    #[inline(always)]
    pub fn new(seed: L, path: L, step: L) -> Self {
        let (seed, _) = words_of(seed);
        let (path, _) = words_of(path);
        let (lo, hi) = words_of(step);
        Stream {
            key: [seed, path],
            step: [lo, hi],
        }
    }

    /// Block `block` of this step: four 32-bit words per lane.
    #[inline(always)]
    pub fn block(&self, block: u32) -> [L::Int; 4] {
        let b = L::Int::splat(i64::from(block));
        philox_lanes([self.step[0], self.step[1], b, L::Int::splat(0)], self.key)
    }

    /// Uniforms in the open interval (0, 1) per block: 2 in `f64`, 4 in `f32`.
    pub const PER_BLOCK: usize = if L::Elem::BYTES == 8 { 2 } else { 4 };

    /// `D` uniforms in (0, 1), both ends excluded, from blocks `first_block` on (`D / 2`
    /// blocks in `f64`, `D / 4` in `f32`, rounded up).
    #[inline(always)]
    pub fn uniforms<const D: usize>(&self, first_block: u32) -> [L; D] {
        const { assert!(D > 0, "a draw needs at least one value") };
        let mut out = [L::splat(L::Elem::from_f64(0.5)); D];
        let mut i = 0;
        let mut b = first_block;
        while i < D {
            let u = uniforms_of::<L>(self.block(b));
            for v in u.into_iter().take(Self::PER_BLOCK) {
                if i < D {
                    out[i] = v;
                    i += 1;
                }
            }
            b += 1;
        }
        out
    }

    /// `D` standard normals, Box-Muller on the uniforms of blocks `first_block` on (pairs:
    /// `D / 2` blocks in `f64`, `D / 4` in `f32`, rounded up). A caller that needs two
    /// independent sets in one step starts the second at `first_block + D` (never fewer
    /// blocks than that are used).
    #[inline(always)]
    pub fn normals<const D: usize>(&self, first_block: u32) -> [L; D] {
        const { assert!(D > 0, "a noise draw needs at least one channel") };
        let mut out = [L::splat(L::Elem::from_f64(0.0)); D];
        let mut i = 0;
        let mut b = first_block;
        while i < D {
            let u = uniforms_of::<L>(self.block(b));
            let mut j = 0;
            // No Box-Muller for a pair no output needs (f32 blocks hold two pairs).
            while j < Self::PER_BLOCK && i < D {
                let (z0, z1) = box_muller(u[j], u[j + 1]);
                for z in [z0, z1] {
                    if i < D {
                        out[i] = z;
                        i += 1;
                    }
                }
                j += 2;
            }
            b += 1;
        }
        out
    }
}

/// The uniforms of one block (the first [`Stream::PER_BLOCK`] are meaningful).
// Out of line in unoptimized builds: inlined there, every temporary of the rounds and
// the math keeps a stack slot of its own, and a 32-lane group's step needs megabytes.
#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn uniforms_of<L: Lane>(w: [L::Int; 4]) -> [L; 4] {
    if L::Elem::BYTES == 8 {
        // 52 bits: `1 + m 2^-52` in [1, 2), minus `1 - 2^-53` (exact, Sterbenz).
        let one = L::Int::splat(0x3ff0_0000_0000_0000);
        let shift = L::splat(L::Elem::from_f64(1.0 - 1.0 / 9_007_199_254_740_992.0));
        let u = |a: L::Int, b: L::Int| L::from_bits(a.shl(20).or(b.lshr(12)).or(one)) - shift;
        let (u0, u1) = (u(w[0], w[1]), u(w[2], w[3]));
        [u0, u1, u0, u1]
    } else {
        // 23 bits: `1 + m 2^-23` in [1, 2), minus `1 - 2^-24`.
        let one = L::Int::splat(0x3f80_0000);
        let shift = L::splat(L::Elem::from_f64(1.0 - 1.0 / 16_777_216.0));
        w.map(|a| L::from_bits(a.lshr(9).or(one)) - shift)
    }
}

/// Box-Muller: two independent standard normals from two uniforms in (0, 1).
// Out of line in unoptimized builds: inlined there, every temporary of the rounds and
// the math keeps a stack slot of its own, and a 32-lane group's step needs megabytes.
#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn box_muller<L: Lane>(u1: L, u2: L) -> (L, L) {
    let r = (L::splat(L::Elem::from_f64(-2.0)) * u1.ln()).sqrt();
    let (s, c) = (L::splat(L::Elem::from_f64(core::f64::consts::TAU)) * u2).sin_cos();
    (r * c, r * s)
}
