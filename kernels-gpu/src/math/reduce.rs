//! Trigonometric argument reduction: `x = q pi/2 + r` with `r` as a double word.
//!
//! Below [`super::Format::TRIG_BIG`] (2^30 in `f64`, 2^17 in `f32`) Cody-Waite with pi/2 in
//! four parts (`PIO2_1..4`, fused multiply-adds, `x - q PIO2_1` exact), accurate to about
//! `q 2^-4p`. Above, Payne-Hanek without tables: `x` (scaled by 2^-S) times each part of
//! `2/pi * 2^S` as an exact product, each reduced modulo 4 exactly, summed in a triple word
//! (renormalized modulo 4 after each term); only run when some lane needs it.

use super::prim::*;
use crate::bits::IntLane;
use crate::lane::{Lane, Mask};

/// `u mod 4` in `[-2, 2]`, exact.
#[inline(always)]
fn mod4<L: Lane>(u: L) -> L {
    u - c::<L>(4.0) * round_even(u * c(0.25))
}

/// Payne-Hanek for finite `x`: `(q, rh, rl)`.
#[inline(never)]
fn reduce_big<L: Lane>(x: L) -> (L::Int, L, L) {
    let xs = x * k(E::<L>::PH_SCALE);
    let (mut a, mut b, mut cc) = (c::<L>(0.0), c::<L>(0.0), c::<L>(0.0));
    for &chunk in E::<L>::TWO_OVER_PI_CHUNKS {
        let (p, q) = two_prod(xs, k(chunk));
        for u in [p, q] {
            let (s, e1) = two_sum(a, mod4(u));
            a = mod4(s);
            let (s2, e2) = two_sum(b, e1);
            b = s2;
            cc += e2;
        }
    }
    let (kf, ki) = round_int(a);
    let (fh, fl) = two_sum(a - kf, b);
    let (fh, fl) = fast_two_sum(fh, fl + cc);
    let (p1, p2) = (k::<L>(E::<L>::PIO2_1), k::<L>(E::<L>::PIO2_2));
    let rh = fh * p1;
    let rl = fh.mul_add(p1, -rh) + (fh * p2 + fl * p1);
    (ki, rh, rl)
}

/// `x = q pi/2 + rh + rl` (mod 2 pi) with `|rh + rl| <= pi/4` (slightly more at the ends):
/// `(q, rh, rl)`. Garbage (to be masked) for infinite or NaN `x`.
#[inline(always)]
pub(crate) fn reduce<L: Lane>(x: L) -> (L::Int, L, L) {
    let (kf, ki) = round_int(x * k(E::<L>::TWO_OVER_PI));
    let r1 = (-kf).mul_add(k(E::<L>::PIO2_1), x);
    let (wh, wl) = two_prod(kf, k(E::<L>::PIO2_2));
    let (rh, e) = two_sum(r1, -wh);
    let rl = ((e - wl) - kf * k(E::<L>::PIO2_3)) - kf * k(E::<L>::PIO2_4);
    let (rh, rl) = fast_two_sum(rh, rl);
    let big = x.abs().simd_ge(k(E::<L>::TRIG_BIG)) & x.is_finite();
    if big.any() {
        let (qb, hb, lb) = reduce_big(L::select(big, x, c(0.0)));
        return (
            L::Int::select(big, qb, ki),
            L::select(big, hb, rh),
            L::select(big, lb, rl),
        );
    }
    (ki, rh, rl)
}
