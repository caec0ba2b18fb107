//! `hawk::math` on the host team's lanes vs the `libm` crate and std's `f64` methods, one
//! element at a time, over the same large array in the same run:
//! `cargo bench -p hawk-host --bench math`. Each row reports elements per second (criterion's
//! throughput); the medians are what the README quotes.
#![feature(portable_simd)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hawk::Lane;
use hawk::lane::Multi;
use hawk_host::Isa;
use std::hint::black_box;
use std::simd::Simd;

/// Elements per array: 64 Ki `f64` (512 KiB per array: in L2, so the functions, not memory,
/// are timed).
const N: usize = 1 << 16;

/// A deterministic generator of arguments.
fn args(n: usize, lo: f64, hi: f64, log: bool, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            if log {
                (lo.ln() + (hi.ln() - lo.ln()) * u).exp()
            } else {
                lo + (hi - lo) * u
            }
        })
        .collect()
}

/// `out[i] = f(x[i], y[i])`, `L::WIDTH` elements at a time.
#[inline(always)]
fn map<L: Lane<Elem = f64>>(f: impl Fn(L, L) -> L, x: &[f64], y: &[f64], out: &mut [f64]) {
    assert!(x.len().is_multiple_of(L::WIDTH) && y.len() == x.len() && out.len() == x.len());
    for i in (0..x.len()).step_by(L::WIDTH) {
        // SAFETY: `x`, `y` and `out` have one length, a multiple of `WIDTH` (checked
        // above), so `WIDTH` elements from `i` are inside each.
        unsafe {
            f(L::load(x.as_ptr().add(i)), L::load(y.as_ptr().add(i))).store(out.as_mut_ptr().add(i))
        }
    }
}

/// The functions: name, hawk's (generic over the lane), libm's, std's, argument ranges.
macro_rules! with_lanes {
    ($name:ident, $isa:literal, $body:expr) => {
        #[target_feature(enable = $isa)]
        fn $name<L: Lane<Elem = f64>>(f: usize, x: &[f64], y: &[f64], out: &mut [f64]) {
            match f {
                0 => map::<L>(|a, _| a.sin(), x, y, out),
                1 => map::<L>(|a, _| a.cos(), x, y, out),
                2 => map::<L>(|a, _| a.exp(), x, y, out),
                3 => map::<L>(|a, _| a.ln(), x, y, out),
                4 => map::<L>(|a, _| a.tanh(), x, y, out),
                _ => map::<L>(|a, b| a.powf(b), x, y, out),
            }
        }
    };
}
with_lanes!(hawk_avx512, "avx512f,avx2,fma", ());
with_lanes!(hawk_avx2, "avx2,fma", ());

const NAMES: [&str; 6] = ["sin", "cos", "exp", "ln", "tanh", "powf"];

fn libm_fn(f: usize) -> fn(f64, f64) -> f64 {
    [
        |a, _| libm::sin(a),
        |a, _| libm::cos(a),
        |a, _| libm::exp(a),
        |a, _| libm::log(a),
        |a, _| libm::tanh(a),
        libm::pow,
    ][f]
}

fn std_fn(f: usize) -> fn(f64, f64) -> f64 {
    [
        |a: f64, _| a.sin(),
        |a: f64, _| a.cos(),
        |a: f64, _| a.exp(),
        |a: f64, _| a.ln(),
        |a: f64, _| a.tanh(),
        f64::powf,
    ][f]
}

fn inputs(f: usize) -> (Vec<f64>, Vec<f64>) {
    let x = match f {
        0 | 1 => args(N, -100.0, 100.0, false, 1),
        2 => args(N, -50.0, 50.0, false, 2),
        3 => args(N, 1e-10, 1e10, true, 3),
        4 => args(N, -5.0, 5.0, false, 4),
        _ => args(N, 0.1, 10.0, true, 5),
    };
    (x, args(N, -5.0, 5.0, false, 6))
}

fn bench(c: &mut Criterion) {
    let isa = Isa::detect();
    for (f, name) in NAMES.iter().enumerate() {
        let (x, y) = inputs(f);
        let mut out = vec![0.0; N];
        let mut g = c.benchmark_group(format!("math/{name}"));
        g.throughput(Throughput::Elements(N as u64));
        if isa == Isa::Avx512 {
            g.bench_function(BenchmarkId::from_parameter("hawk avx512 x8"), |b| {
                // SAFETY: this CPU has AVX-512 (`Isa::detect`).
                b.iter(|| unsafe { hawk_avx512::<Simd<f64, 8>>(f, black_box(&x), &y, &mut out) })
            });
            g.bench_function(BenchmarkId::from_parameter("hawk avx512 x16 multi"), |b| {
                // SAFETY: this CPU has AVX-512 (`Isa::detect`).
                b.iter(|| unsafe {
                    hawk_avx512::<Multi<Simd<f64, 4>, 4>>(f, black_box(&x), &y, &mut out)
                })
            });
        }
        if Isa::Avx2.available() {
            g.bench_function(BenchmarkId::from_parameter("hawk avx2 x4"), |b| {
                // SAFETY: this CPU has AVX2 and FMA (`available()`).
                b.iter(|| unsafe { hawk_avx2::<Simd<f64, 4>>(f, black_box(&x), &y, &mut out) })
            });
            g.bench_function(BenchmarkId::from_parameter("hawk avx2 x8 multi"), |b| {
                // SAFETY: this CPU has AVX2 and FMA (`available()`).
                b.iter(|| unsafe {
                    hawk_avx2::<Multi<Simd<f64, 4>, 2>>(f, black_box(&x), &y, &mut out)
                })
            });
        }
        let lf = libm_fn(f);
        g.bench_function(BenchmarkId::from_parameter("libm per element"), |b| {
            b.iter(|| {
                for i in 0..N {
                    out[i] = lf(black_box(x[i]), y[i]);
                }
            })
        });
        let sf = std_fn(f);
        g.bench_function(BenchmarkId::from_parameter("std per element"), |b| {
            b.iter(|| {
                for i in 0..N {
                    out[i] = sf(black_box(x[i]), y[i]);
                }
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
