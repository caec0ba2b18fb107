//! The host's own peaks, measured once per process: FP64 FMA throughput (FLOP/s) over all
//! worker threads, the yardstick for "% of peak" on the host team.

use crate::Isa;
use std::hint::black_box;
use std::simd::{Simd, StdFloat};
use std::sync::OnceLock;
use std::time::Instant;

/// Independent FMA chains per thread: enough to cover FMA latency on two pipes.
const CHAINS: usize = 12;

#[inline(always)]
fn fma_loop<const N: usize>(iters: u64) -> f64 {
    let a = Simd::<f64, N>::splat(black_box(0.999_999_9));
    let b = Simd::<f64, N>::splat(black_box(1e-9));
    let mut acc = [Simd::<f64, N>::splat(1.0); CHAINS];
    for _ in 0..iters {
        for x in acc.iter_mut() {
            *x = x.mul_add(a, b);
        }
    }
    acc.iter().map(|v| v[0]).sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn fma_avx2(iters: u64) -> f64 {
    fma_loop::<4>(iters)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn fma_avx512(iters: u64) -> f64 {
    fma_loop::<8>(iters)
}

/// Runs `iters` iterations of the FMA loop on `isa`; returns FLOPs done.
fn run(isa: Isa, iters: u64) -> u64 {
    let lanes = isa.vector_bytes() / 8;
    let sink = match isa {
        // SAFETY: the ISA was checked with `available()` by the caller.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { fma_avx512(iters) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { fma_avx2(iters) },
        _ => fma_loop::<2>(iters),
    };
    black_box(sink);
    iters * (CHAINS * lanes * 2) as u64
}

/// FP64 FMA peak of `threads` threads on `isa`, in FLOP/s: best of 7 short runs.
pub fn measure_fp64_peak(isa: Isa, threads: usize) -> f64 {
    let pool = pool(threads);
    best_fma_rate(isa, |f| pool.broadcast(|_| f()))
}

/// Best FLOP rate of 7 runs of the FMA loop on `isa`, on every thread `on_all` runs it on.
fn best_fma_rate(isa: Isa, on_all: impl Fn(&(dyn Fn() -> u64 + Sync)) -> Vec<u64>) -> f64 {
    let iters = 3_000_000;
    (0..7)
        .map(|_| {
            let t0 = Instant::now();
            let flops: u64 = on_all(&|| run(isa, iters)).iter().sum();
            flops as f64 / t0.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

/// A pool of exactly `threads` threads, so every one of them runs the loop at once.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool for the peak measurement")
}

/// The FP64 FMA peak of this machine (all of rayon's threads, best ISA), measured once.
/// It runs on rayon's global pool itself: a second pool would compete with the global
/// pool's workers, which spin for a while after a run and would halve the reading.
pub fn host_fp64_peak() -> f64 {
    static PEAK: OnceLock<f64> = OnceLock::new();
    *PEAK.get_or_init(|| best_fma_rate(Isa::detect(), |f| rayon::broadcast(|_| f())))
}

/// Memory bandwidth of `threads` threads by a STREAM triad (`a = b + s * c` over arrays
/// well beyond the last-level cache), in bytes/s: best of 5, counting 3 arrays x 8 bytes
/// per element as STREAM does.
pub fn measure_triad_bandwidth(threads: usize) -> f64 {
    use rayon::prelude::*;
    let n = 1 << 23; // 3 x 64 MiB
    let (mut a, b, c) = (vec![0.0f64; n], vec![1.0f64; n], vec![2.0f64; n]);
    let s = black_box(3.0);
    let pool = pool(threads);
    (0..5)
        .map(|_| {
            let t0 = Instant::now();
            pool.install(|| {
                a.par_chunks_mut(1 << 16)
                    .zip(b.par_chunks(1 << 16))
                    .zip(c.par_chunks(1 << 16))
                    .for_each(|((a, b), c)| {
                        for i in 0..a.len() {
                            a[i] = b[i] + s * c[i];
                        }
                    })
            });
            black_box(&a);
            (3 * 8 * n) as f64 / t0.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

/// The host's memory bandwidth (all of rayon's threads), measured once.
pub fn host_bandwidth() -> f64 {
    static BW: OnceLock<f64> = OnceLock::new();
    *BW.get_or_init(|| measure_triad_bandwidth(rayon::current_num_threads()))
}
