//! `hawk::math` gives the same bits on every lane type and ISA: each function on the scalar
//! lane vs `Simd` of 2, 4 and 32 lanes and `Multi` lanes of 8 and 12 (the host team's widths),
//! compiled for the portable target, AVX2+FMA and AVX-512 (when the CPU has them); proptest
//! over arguments (any bit pattern, and log-uniform magnitudes of both signs). NaNs compare
//! equal to NaNs (payloads are not part of the promise).
#![feature(portable_simd)]

use hawk::Lane;
use hawk::lane::Multi;
use hawk_host::Isa;
use proptest::prelude::*;
use std::simd::Simd;

/// Every function's outputs over `xs` (and `ys` for the binary ones), one vector per
/// function, computed `L::WIDTH` arguments at a time.
#[inline(always)]
fn run_all<L: Lane>(xs: &[L::Elem], ys: &[L::Elem]) -> Vec<Vec<L::Elem>> {
    let w = L::WIDTH;
    assert!(xs.len().is_multiple_of(w) && ys.len() == xs.len());
    let mut out: Vec<Vec<L::Elem>> = Vec::new();
    let mut col = |f: &dyn Fn(L, L) -> L| {
        let mut v = vec![xs[0]; xs.len()];
        for i in (0..xs.len()).step_by(w) {
            // SAFETY: `xs`, `ys` and `v` have one length, a multiple of `w` (checked above),
            // so `WIDTH` elements from `i` are inside each.
            unsafe {
                f(L::load(xs.as_ptr().add(i)), L::load(ys.as_ptr().add(i)))
                    .store(v.as_mut_ptr().add(i))
            };
        }
        out.push(v);
    };
    macro_rules! unary {
        ($($f:ident),*) => { $(col(&|x: L, _| x.$f());)* };
    }
    macro_rules! binary {
        ($($f:ident),*) => { $(col(&|x: L, y: L| x.$f(y));)* };
    }
    unary!(
        sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, exp2, exp_m1, ln, log2, log10,
        ln_1p, cbrt, recip, floor, ceil, round, trunc, fract, signum
    );
    binary!(atan2, powf, hypot, copysign);
    col(&|x: L, _| x.sin_cos().0);
    col(&|x: L, _| x.sin_cos().1);
    for n in [-3, 0, 1, 2, 7, 100] {
        col(&|x: L, _| x.powi(n));
    }
    out
}

/// `run_all` compiled with AVX2 and FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_all_avx2<L: Lane>(xs: &[L::Elem], ys: &[L::Elem]) -> Vec<Vec<L::Elem>> {
    run_all::<L>(xs, ys)
}

/// `run_all` compiled with AVX-512F.
///
/// # Safety
/// The CPU must have AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn run_all_avx512<L: Lane>(xs: &[L::Elem], ys: &[L::Elem]) -> Vec<Vec<L::Elem>> {
    run_all::<L>(xs, ys)
}

/// Every lane type of the host team, every ISA this CPU has: `(name, outputs)`.
fn every_lane<R>(xs: &[R], ys: &[R]) -> Vec<(String, Vec<Vec<R>>)>
where
    R: hawk_host::HostReal,
    Simd<R, 2>: Lane<Elem = R>,
    Simd<R, 4>: Lane<Elem = R>,
    Simd<R, 32>: Lane<Elem = R>,
    Multi<Simd<R, 4>, 2>: Lane<Elem = R>,
    Multi<Simd<R, 4>, 3>: Lane<Elem = R>,
    R: std::simd::SimdElement,
{
    let mut v = Vec::new();
    macro_rules! widths {
        ($isa:expr, $run:ident) => {
            // SAFETY: `$run` is `portable` or an ISA variant this CPU has (checked with
            // `available()` where the macro is used); the arguments as in `run_all`.
            v.push((format!("{:?} x2", $isa), unsafe {
                $run::<Simd<R, 2>>(xs, ys)
            }));
            // SAFETY: as above.
            v.push((format!("{:?} x4", $isa), unsafe {
                $run::<Simd<R, 4>>(xs, ys)
            }));
            // SAFETY: as above.
            v.push((format!("{:?} x8 multi", $isa), unsafe {
                $run::<Multi<Simd<R, 4>, 2>>(xs, ys)
            }));
            // SAFETY: as above.
            v.push((format!("{:?} x12 multi", $isa), unsafe {
                $run::<Multi<Simd<R, 4>, 3>>(xs, ys)
            }));
            // SAFETY: as above.
            v.push((format!("{:?} x32", $isa), unsafe {
                $run::<Simd<R, 32>>(xs, ys)
            }));
        };
    }
    unsafe fn portable<L: Lane>(xs: &[L::Elem], ys: &[L::Elem]) -> Vec<Vec<L::Elem>> {
        run_all::<L>(xs, ys)
    }
    widths!(Isa::Portable, portable);
    #[cfg(target_arch = "x86_64")]
    {
        if Isa::Avx2.available() {
            widths!(Isa::Avx2, run_all_avx2);
        }
        if Isa::Avx512.available() {
            widths!(Isa::Avx512, run_all_avx512);
        }
    }
    v
}

/// Bit-identical (widening to `f64` is exact), or both NaN.
fn same<R: hawk::Real>(a: R, b: R) -> bool {
    let (a, b) = (a.to_f64(), b.to_f64());
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check<R: hawk_host::HostReal + std::simd::SimdElement>(xs: Vec<R>, ys: Vec<R>)
where
    Simd<R, 2>: Lane<Elem = R>,
    Simd<R, 4>: Lane<Elem = R>,
    Simd<R, 32>: Lane<Elem = R>,
    Multi<Simd<R, 4>, 2>: Lane<Elem = R>,
    Multi<Simd<R, 4>, 3>: Lane<Elem = R>,
{
    let scalar = run_all::<R>(&xs, &ys);
    for (name, outs) in every_lane(&xs, &ys) {
        for (f, (a, b)) in scalar.iter().zip(&outs).enumerate() {
            for i in 0..xs.len() {
                assert!(
                    same(a[i], b[i]),
                    "{name}: function #{f} at ({:?}, {:?}): scalar {:?}, lanes {:?}",
                    xs[i],
                    ys[i],
                    a[i],
                    b[i]
                );
            }
        }
    }
}

/// 96 arguments: a multiple of every width (2, 4, 8, 12, 32).
const N: usize = 96;

fn arg64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        (-40.0..40.0f64, any::<bool>()).prop_map(|(e, s)| if s { -e.exp2() } else { e.exp2() }),
        (-1100.0..1024.0f64, any::<bool>()).prop_map(|(e, s)| if s { -e.exp2() } else { e.exp2() }),
    ]
}

fn arg32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>(),
        (-40.0..40.0f64, any::<bool>())
            .prop_map(|(e, s)| (if s { -e.exp2() } else { e.exp2() }) as f32),
        (-150.0..128.0f64, any::<bool>())
            .prop_map(|(e, s)| (if s { -e.exp2() } else { e.exp2() }) as f32),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn f64_lanes_match_scalar(xs in prop::collection::vec(arg64(), N), ys in prop::collection::vec(arg64(), N)) {
        check::<f64>(xs, ys);
    }

    #[test]
    fn f32_lanes_match_scalar(xs in prop::collection::vec(arg32(), N), ys in prop::collection::vec(arg32(), N)) {
        check::<f32>(xs, ys);
    }
}
