//! The host's own peaks, measured once per process: FP64 and FP32 FMA throughput (FLOP/s)
//! over all worker threads, the yardstick for "% of peak" on the host team, and a STREAM
//! triad for memory bandwidth. A peak measured on a busy machine reads low, so a caller
//! that observes more than it ([`raise_fma_peak`]) measures again and keeps the best.
//!
//! The FMA peaks are also remembered on disk, beside the `lanes: auto` choices (the folder
//! the first host team with a tuning folder names, [`remember_in`]), per CPU model,
//! instruction set, element type and thread count: a new process starts from the best
//! reading any earlier one made (a quiet moment's), rather than from its own, which a busy
//! machine makes low. A corrupt or foreign entry is ignored and measured again. Entries
//! are private files as the tuning entries are ([`crate::tune`]): one in a folder, or
//! itself, owned by another user or writable by group or others is not used (measured
//! again, nothing written there, a note for [`take_notes`]).

use crate::Isa;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::simd::{Simd, StdFloat};
use std::sync::{Mutex, OnceLock};
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
                // SAFETY: as above.
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
///
/// # Panics
/// When this CPU does not have `isa` ([`Isa::available`]).
pub fn measure_fp64_peak(isa: Isa, threads: usize) -> f64 {
    assert!(
        isa.available(),
        "{} is not available on this CPU",
        isa.name()
    );
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

/// [`host_fma_peak`] on `threads` threads (a row's own thread count): the on-disk entry
/// when there is one, else measured (and stored).
pub fn host_fma_peak_on(elem_bytes: usize, threads: usize) -> f64 {
    let mut peaks = peaks();
    *peaks.entry((elem_bytes, threads)).or_insert_with(|| {
        let dir = cache_dir();
        dir.and_then(|d| load(d, elem_bytes, threads))
            .unwrap_or_else(|| {
                let p = measure_on(elem_bytes, threads);
                if let Some(d) = dir {
                    store(d, elem_bytes, threads, p);
                }
                p
            })
    })
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
    if again > *p {
        *p = again;
        if let Some(d) = cache_dir() {
            store(d, elem_bytes, threads, again);
        }
    }
    *p
}

/// Folder of the on-disk peaks, set once per process (the first call wins; later ones,
/// e.g. from every host team deployed, are ignored). `None`: this process only.
pub fn remember_in(dir: Option<PathBuf>) {
    let _ = CACHE_DIR.set(dir);
}

static CACHE_DIR: OnceLock<Option<PathBuf>> = OnceLock::new();

fn cache_dir() -> Option<&'static Path> {
    CACHE_DIR.get().and_then(|d| d.as_deref())
}

/// Refusals of the on-disk peaks not yet handed to a report (process-wide, as the folder).
static NOTES: Mutex<crate::tune::Notes> = Mutex::new(crate::tune::Notes::new());

/// Notes not yet taken: why the on-disk peaks were not used (a folder or an entry another
/// user owns, or group or others may write), each reason once per process.
pub fn take_notes() -> Vec<String> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).take()
}

fn refused(why: String) {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).add(format!(
        "host peaks cache: {why}: not used (measured again, nothing written there)"
    ));
}

/// First line of a peak entry.
const HEADER: &str = "eagle host peak v1";

/// An entry's key line: everything the peak depends on.
fn entry_key(elem_bytes: usize, threads: usize) -> String {
    format!(
        "fma elem_bytes={elem_bytes} threads={threads} cpu={} isa={} eagle={}",
        crate::tune::cpu_model(),
        Isa::detect().name(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The file name of the entry for `key`.
fn file_name(key: &str) -> String {
    format!("{:016x}.peak", crate::tune::fnv1a(key))
}

#[cfg(test)]
fn file(dir: &Path, key: &str) -> PathBuf {
    dir.join(crate::tune::HOST_DIR).join(file_name(key))
}

/// The peak an entry for (`elem_bytes`, `threads`) holds, if its header and key match and
/// its value is a positive finite FLOP rate.
fn load(dir: &Path, elem_bytes: usize, threads: usize) -> Option<f64> {
    let key = entry_key(elem_bytes, threads);
    let text = crate::tune::load_entry(dir, &file_name(&key), refused)?;
    let mut lines = crate::tune::entry_lines(&text, HEADER, &key)?;
    let v: f64 = lines.next()?.parse().ok()?;
    (v.is_finite() && v > 0.0 && lines.next().is_none()).then_some(v)
}

/// Stores `flops` for (`elem_bytes`, `threads`).
fn store(dir: &Path, elem_bytes: usize, threads: usize, flops: f64) {
    let key = entry_key(elem_bytes, threads);
    let text = format!("{HEADER}\n{key}\n{flops}\n");
    crate::tune::store_entry(dir, &file_name(&key), &text, refused);
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

/// [`store`] for another module's tests (FP64 on 1 thread).
#[cfg(test)]
pub(crate) fn store_for_test(dir: &Path, flops: f64) {
    store(dir, 8, 1, flops);
}

/// [`load`] for another module's tests (FP64 on 1 thread).
#[cfg(test)]
pub(crate) fn load_for_test(dir: &Path) -> Option<f64> {
    load(dir, 8, 1)
}

/// The entry's file name for another module's tests (FP64 on 1 thread).
#[cfg(test)]
pub(crate) fn file_name_for_test() -> String {
    file_name(&entry_key(8, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn peaks_in_a_folder_others_may_write_are_not_used_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("eagle");
        store(&d, 8, 5, 3e10);
        let path = file(&d, &entry_key(8, 5));
        use std::os::unix::fs::MetadataExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o7777;
        assert_eq!(
            (mode(&d), mode(&d.join("host")), mode(&path)),
            (0o700, 0o700, 0o600)
        );
        assert_eq!(load(&d, 8, 5), Some(3e10));
        for (p, m) in [
            (d.clone(), 0o777),
            (d.join("host"), 0o770),
            (path.clone(), 0o666),
        ] {
            chmod(&p, m);
            assert_eq!(load(&d, 8, 5), None, "{m:o}: measured again");
            let notes = take_notes();
            assert!(
                notes.iter().any(|n| n.starts_with("host peaks cache: ")
                    && n.contains(&format!(
                        "{} is writable by group or others (mode {m:04o})",
                        p.display()
                    ))),
                "{notes:?}"
            );
            if m != 0o666 {
                // Nothing written into a folder others may write.
                store(&d, 8, 6, 1e10);
                assert!(!file(&d, &entry_key(8, 6)).exists(), "{m:o}");
            }
            chmod(&p, if p == path { 0o600 } else { 0o700 });
        }
        assert_eq!(load(&d, 8, 5), Some(3e10));
    }

    #[test]
    fn a_stored_peak_is_read_back_and_corrupt_or_foreign_entries_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(load(d, 8, 3), None, "nothing stored yet");
        store(d, 8, 3, 1.25e11);
        assert_eq!(load(d, 8, 3), Some(1.25e11));
        assert_eq!(load(d, 4, 3), None, "another element type");
        assert_eq!(load(d, 8, 2), None, "another thread count");
        let path = file(d, &entry_key(8, 3));
        for bad in [
            String::new(),
            "garbage".to_owned(),
            format!("{HEADER}\n{}\n1e11\n", entry_key(8, 2)),
            format!("{HEADER}\n{}\n-1\n", entry_key(8, 3)),
            format!("{HEADER}\n{}\nNaN\n", entry_key(8, 3)),
            format!("{HEADER}\n{}\n1e11\nextra\n", entry_key(8, 3)),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(load(d, 8, 3), None, "{bad:?}");
        }
    }
}
