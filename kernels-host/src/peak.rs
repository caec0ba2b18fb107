//! The host's own peaks, measured once per process: FP64 and FP32 FMA throughput (FLOP/s)
//! over all worker threads, the yardstick for "% of peak" on the host team, and a STREAM
//! triad for memory bandwidth. A peak measured on a busy machine reads low, so a caller
//! that observes more than it ([`raise_fma_peak`]) measures again and keeps the best.

use crate::Isa;
use std::hint::black_box;
use std::simd::{Simd, StdFloat};
use std::sync::OnceLock;
use std::time::Instant;

/// Independent FMA chains per thread: enough to cover FMA latency on two pipes.
const CHAINS: usize = 12;

macro_rules! fma_loops {
    ($t:ty, $loop:ident, $avx2:ident, $avx512:ident, $run:ident) => {
        #[inline(always)]
        fn $loop<const N: usize>(iters: u64) -> $t {
            let a = Simd::<$t, N>::splat(black_box(0.999_999_9));
            let b = Simd::<$t, N>::splat(black_box(1e-9));
            let mut acc = [Simd::<$t, N>::splat(1.0); CHAINS];
            for _ in 0..iters {
                for x in acc.iter_mut() {
                    *x = x.mul_add(a, b);
                }
            }
            acc.iter().map(|v| v[0]).sum()
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $avx2(iters: u64) -> $t {
            $loop::<{ 32 / size_of::<$t>() }>(iters)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx2,fma")]
        fn $avx512(iters: u64) -> $t {
            $loop::<{ 64 / size_of::<$t>() }>(iters)
        }

        /// Runs `iters` iterations of the FMA loop on `isa`; returns FLOPs done.
        fn $run(isa: Isa, iters: u64) -> u64 {
            let lanes = isa.vector_bytes() / size_of::<$t>();
            let sink = match isa {
                // SAFETY: the ISA was checked with `available()` by the caller.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { $avx512(iters) },
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { $avx2(iters) },
                _ => $loop::<{ 16 / size_of::<$t>() }>(iters),
            };
            black_box(sink);
            iters * (CHAINS * lanes * 2) as u64
        }
    };
}
fma_loops!(f64, fma_loop_f64, fma_avx2_f64, fma_avx512_f64, run_f64);
fma_loops!(f32, fma_loop_f32, fma_avx2_f32, fma_avx512_f32, run_f32);

/// FMA loop FLOPs on `isa` for elements of `elem_bytes` (4: f32, else f64).
fn run(isa: Isa, elem_bytes: usize, iters: u64) -> u64 {
    if elem_bytes == 4 {
        run_f32(isa, iters)
    } else {
        run_f64(isa, iters)
    }
}

/// FP64 FMA peak of `threads` threads on `isa`, in FLOP/s: best of 7 short runs.
pub fn measure_fp64_peak(isa: Isa, threads: usize) -> f64 {
    let pool = pool(threads);
    best_fma_rate(isa, 8, |f| pool.broadcast(|_| f()))
}

/// Best FLOP rate of 7 runs of the FMA loop on `isa`, on every thread `on_all` runs it on.
fn best_fma_rate(
    isa: Isa,
    elem_bytes: usize,
    on_all: impl Fn(&(dyn Fn() -> u64 + Sync)) -> Vec<u64>,
) -> f64 {
    let iters = 3_000_000;
    (0..7)
        .map(|_| {
            let t0 = Instant::now();
            let flops: u64 = on_all(&|| run(isa, elem_bytes, iters)).iter().sum();
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
    host_fma_peak(8)
}

/// The FMA peak for elements of `elem_bytes` (4: FP32, 8: FP64) of this machine on all of
/// rayon's threads (best ISA): measured once, raised by [`raise_fma_peak`].
pub fn host_fma_peak(elem_bytes: usize) -> f64 {
    host_fma_peak_on(elem_bytes, rayon::current_num_threads())
}

/// [`host_fma_peak`] on `threads` threads (a row's own thread count).
pub fn host_fma_peak_on(elem_bytes: usize, threads: usize) -> f64 {
    let mut peaks = peaks();
    *peaks
        .entry((elem_bytes, threads))
        .or_insert_with(|| measure_on(elem_bytes, threads))
}

/// A rate of `observed` FLOP/s on `threads` threads was seen above the FMA peak for
/// `elem_bytes`: the peak was under-measured (a busy machine reads low). Measures again,
/// keeps the best, and returns the new peak (still possibly below `observed`: the caller
/// then says so).
pub fn raise_fma_peak(elem_bytes: usize, threads: usize, observed: f64) -> f64 {
    let current = host_fma_peak_on(elem_bytes, threads);
    if observed <= current {
        return current;
    }
    let again = measure_on(elem_bytes, threads);
    let mut peaks = peaks();
    let p = peaks.entry((elem_bytes, threads)).or_insert(again);
    *p = p.max(again);
    *p
}

/// Best of 7 FMA runs on `threads` threads: on rayon's global pool when that is its size
/// (a second pool would compete with the global pool's workers, which spin for a while
/// after a run and would halve the reading), else on a pool of its own.
fn measure_on(elem_bytes: usize, threads: usize) -> f64 {
    let isa = Isa::detect();
    if threads == rayon::current_num_threads() {
        best_fma_rate(isa, elem_bytes, |f| rayon::broadcast(|_| f()))
    } else {
        let pool = pool(threads);
        best_fma_rate(isa, elem_bytes, |f| pool.broadcast(|_| f()))
    }
}

/// Peaks measured so far, by (element bytes, threads).
fn peaks() -> std::sync::MutexGuard<'static, std::collections::HashMap<(usize, usize), f64>> {
    static PEAKS: OnceLock<std::sync::Mutex<std::collections::HashMap<(usize, usize), f64>>> =
        OnceLock::new();
    PEAKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
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
