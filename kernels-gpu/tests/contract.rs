//! `#[contract]` and `#[helper(contract)]` compute the documented fused forms: on scalar
//! and SIMD lanes the result is `mul_add`'s single rounding (0.1 * 10 - 1 is 2^-54 exactly,
//! which separate operations round to 0), integers compute as written, and constant
//! expressions are left alone.
#![feature(portable_simd)]

use hawk::prelude::*;
use std::simd::Simd;

const TWO_TO_MINUS_54: f64 = 5.551115123125783e-17;

#[contract]
fn mul_sub<L: Lane>(a: L, b: L, c: L) -> L {
    a * b - c
}

#[contract]
fn neg_mul_add<L: Lane>(a: L, b: L, c: L) -> L {
    c - a * b
}

#[helper(contract)]
fn event_value(t: Scalar, y: &[Scalar; 1], a: Scalar) -> Scalar {
    let mut s = -t;
    s += a * y[0];
    s
}

struct Index;

#[contract]
impl Index {
    /// Index arithmetic and a constant length: as written.
    fn odd(i: usize) -> [usize; 2 * 2 + 1] {
        [2 * i + 1; 2 * 2 + 1]
    }
}

#[test]
fn fused_forms_round_once_on_every_lane_type() {
    assert_eq!(mul_sub(0.1f64, 10.0, 1.0), TWO_TO_MINUS_54);
    assert_eq!(neg_mul_add(-0.1f64, 10.0, -1.0), TWO_TO_MINUS_54);
    assert_eq!(event_value(1.0f64, &[10.0], 0.1), TWO_TO_MINUS_54);
    let v = mul_sub(
        Simd::<f64, 4>::splat(0.1),
        Simd::splat(10.0),
        Simd::splat(1.0),
    );
    assert_eq!(v, Simd::splat(TWO_TO_MINUS_54));
    let v = event_value(
        Simd::<f64, 8>::splat(1.0),
        &[Simd::splat(10.0)],
        Simd::splat(0.1),
    );
    assert_eq!(v, Simd::splat(TWO_TO_MINUS_54));
    // f32: 0.1f32 * 10 - 1 rounds to 0 unfused, and to its exact value fused.
    let exact = f64::from(0.1f32) * 10.0 - 1.0;
    assert_eq!(0.1f32 * 10.0 - 1.0, 0.0);
    assert_eq!(f64::from(mul_sub(0.1f32, 10.0, 1.0)), exact);
    assert_eq!(Index::odd(3), [7; 5]);
}
