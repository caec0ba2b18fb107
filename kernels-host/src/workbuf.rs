//! A working copy of one plane, in memory the OS may back with 2 MiB pages.
//!
//! The first run in a process copies the caller's planes into fresh memory, and on a
//! virtual machine faulting that in 4 KiB at a time is a large share of a short run: 0.7 ms
//! for the 2.4 MB of the profile page's oscillator on a 2-core AMD EPYC, against 0.12 ms
//! with 2 MiB pages (a C program, 20 repetitions each, medians). So a copy of at least
//! [`HUGE_MIN`] bytes is allocated 2 MiB-aligned, in whole 2 MiB units, and (on Linux)
//! marked `MADV_HUGEPAGE`, which transparent huge pages honour in their default `madvise`
//! mode. The cost is memory: up to 2 MiB per plane above its length.
//!
//! Hand-written rather than a `Vec`, because a `Vec` must free its memory with the
//! alignment of its element, so it cannot own a 2 MiB-aligned allocation.

use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The huge page size (x86-64 and most aarch64 Linux): large allocations are aligned to it.
pub const HUGE: usize = 2 << 20;

/// Copies of at least this many bytes go in huge-page memory (a quarter of a huge page, so
/// at most a quarter of the memory such a plane holds is its own data).
pub const HUGE_MIN: usize = HUGE / 4;

/// A plane's working copy: a fixed-capacity buffer of `R`s (see the module docs).
pub struct WorkBuf<R: Copy> {
    ptr: NonNull<R>,
    len: usize,
    cap: usize,
}

// SAFETY: a `WorkBuf` owns its elements like a `Vec` does.
unsafe impl<R: Copy + Send> Send for WorkBuf<R> {}
// SAFETY: as for `Send`: shared, it hands out `&[R]` only.
unsafe impl<R: Copy + Sync> Sync for WorkBuf<R> {}

/// A working copy the allocator could not provide (or whose size overflows `usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocError {
    /// The bytes asked for (`usize::MAX` when the size overflows).
    pub bytes: usize,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not allocate {} bytes", self.bytes)
    }
}

impl std::error::Error for AllocError {}

/// The capacity allocated for at least `len` elements (whole huge pages once large; never
/// below `len`, which the copies into the buffer rely on) and its layout (`None`: nothing
/// to allocate); `None` when the size overflows or fits no layout.
fn room<R>(len: usize) -> Option<(usize, Option<Layout>)> {
    let bytes = len.checked_mul(size_of::<R>())?;
    let (cap_bytes, align) = if bytes >= HUGE_MIN {
        (bytes.checked_next_multiple_of(HUGE)?, HUGE)
    } else {
        (bytes, align_of::<R>())
    };
    let layout = match cap_bytes {
        0 => None,
        b => Some(Layout::from_size_align(b, align).ok()?),
    };
    Some((cap_bytes / size_of::<R>(), layout))
}

impl<R: Copy> WorkBuf<R> {
    /// An empty buffer with room for `len` elements; an error when the allocator cannot
    /// provide it (or its size overflows), never an abort.
    fn try_with_room(len: usize) -> Result<Self, AllocError> {
        assert!(size_of::<R>() > 0, "zero-sized elements");
        let too_large = AllocError {
            bytes: len.saturating_mul(size_of::<R>()),
        };
        let (cap, layout) = room::<R>(len).ok_or(too_large)?;
        let ptr = match layout {
            None => NonNull::dangling(),
            Some(l) => {
                // SAFETY: `l` has a non-zero size.
                let p = unsafe { alloc(l) };
                let Some(p) = NonNull::new(p.cast::<R>()) else {
                    return Err(AllocError { bytes: l.size() });
                };
                if l.align() == HUGE {
                    advise_range(p.as_ptr() as usize, l.size());
                }
                p
            }
        };
        Ok(WorkBuf { ptr, len: 0, cap })
    }

    /// [`WorkBuf::try_with_room`], aborting (as a `Vec` does) when memory runs out.
    fn with_room(len: usize) -> Self {
        Self::try_with_room(len).unwrap_or_else(|e| match room::<R>(len) {
            Some((_, Some(l))) => handle_alloc_error(l),
            _ => panic!("plane too large: {e}"),
        })
    }

    /// A new buffer holding a copy of `src`; an error when memory runs out.
    pub fn try_copy_of(src: &[R]) -> Result<Self, AllocError> {
        let mut b = Self::try_with_room(src.len())?;
        b.refill(src);
        Ok(b)
    }

    /// A new buffer holding a copy of `src` (aborting when memory runs out, as a `Vec`
    /// does; [`WorkBuf::try_copy_of`] returns an error instead).
    pub fn copy_of(src: &[R]) -> Self {
        let mut b = Self::with_room(src.len());
        b.refill(src);
        b
    }

    /// A new buffer holding `src[order[0]], src[order[1]], ...`.
    pub fn gather(src: &[R], order: &[usize]) -> Self {
        let mut b = Self::with_room(order.len());
        b.refill_gathered(src, order);
        b
    }

    /// Replaces the contents with a copy of `src` (reallocating only when it does not fit).
    pub fn refill(&mut self, src: &[R]) {
        self.make_room(src.len());
        // SAFETY: `src.len() <= cap`, and `src` cannot alias memory `self` owns exclusively.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr(), src.len()) };
        self.len = src.len();
    }

    /// Replaces the contents with `src[order[0]], src[order[1]], ...` (reallocating only
    /// when they do not fit).
    pub fn refill_gathered(&mut self, src: &[R], order: &[usize]) {
        self.make_room(order.len());
        let dst = self.ptr.as_ptr();
        for (k, &i) in order.iter().enumerate() {
            // SAFETY: `k < order.len() <= cap`.
            unsafe { dst.add(k).write(src[i]) };
        }
        self.len = order.len();
    }

    /// Keeps the first `len` elements (no effect when there are fewer); the room stays.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Makes room for `len` elements, dropping the contents when it must reallocate.
    fn make_room(&mut self, len: usize) {
        if len > self.cap {
            *self = Self::with_room(len);
        }
    }

    /// Elements the buffer has room for.
    pub fn capacity(&self) -> usize {
        self.cap
    }
}

/// Asks Linux for transparent huge pages under the whole 2 MiB pages inside `v` (a hint,
/// for a large buffer not yet touched: its first touches then take one page fault per 2 MiB
/// instead of one per 4 KiB; where the kernel says no, e.g. THP `never`, nothing changes).
pub fn advise_huge_pages<T>(v: &mut [T]) {
    advise_range(v.as_mut_ptr() as usize, size_of_val(v));
}

/// [`advise_huge_pages`] for the `bytes` bytes at `start`, memory this process owns.
fn advise_range(start: usize, bytes: usize) {
    let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) & !(HUGE - 1));
    #[cfg(target_os = "linux")]
    if hi > lo {
        // SAFETY: the range lies inside memory this process allocated; the advice changes
        // no contents.
        let _ = unsafe {
            rustix::mm::madvise(lo as *mut _, hi - lo, rustix::mm::Advice::LinuxHugepage)
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (lo, hi);
}

impl<R: Copy> Drop for WorkBuf<R> {
    fn drop(&mut self) {
        if let Some((_, Some(l))) = room::<R>(self.cap) {
            // SAFETY: allocated in `with_room` with this same layout.
            unsafe { dealloc(self.ptr.as_ptr().cast(), l) };
        }
    }
}

impl<R: Copy> Deref for WorkBuf<R> {
    type Target = [R];
    fn deref(&self) -> &[R] {
        // SAFETY: the first `len` elements are initialised.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<R: Copy> DerefMut for WorkBuf<R> {
    fn deref_mut(&mut self) -> &mut [R] {
        // SAFETY: the first `len` elements are initialised, and `self` is borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<R: Copy> Clone for WorkBuf<R> {
    fn clone(&self) -> Self {
        Self::copy_of(self)
    }
}

impl<R: Copy + fmt::Debug> fmt::Debug for WorkBuf<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A size no allocator can give (all of x86-64's user address space) and one that
    /// overflows are errors naming the size, not aborts.
    #[test]
    fn sizes_memory_cannot_hold_are_errors() {
        let e = WorkBuf::<f64>::try_with_room(1 << 44).expect_err("128 TiB");
        assert_eq!(e.bytes, 1 << 47);
        let e = WorkBuf::<f64>::try_with_room(usize::MAX / 4).expect_err("overflow");
        assert_eq!(e.bytes, usize::MAX);
        assert!(WorkBuf::<f64>::try_with_room(1000).is_ok());
    }

    #[test]
    fn small_copies_are_exact_and_large_ones_are_huge_aligned() {
        let small = WorkBuf::copy_of(&[1.0f64, 2.0, 3.0]);
        assert_eq!(&*small, &[1.0, 2.0, 3.0]);
        assert_eq!(small.capacity(), 3);
        let n = HUGE_MIN / 8 + 1;
        let src: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let big = WorkBuf::copy_of(&src);
        assert_eq!(&*big, &src[..]);
        assert_eq!(big.as_ptr() as usize % HUGE, 0, "2 MiB-aligned");
        assert_eq!(big.capacity() * 8, HUGE, "whole huge pages");
        let empty = WorkBuf::<f32>::copy_of(&[]);
        assert!(empty.is_empty());
    }

    #[test]
    fn refill_reuses_room_and_grows_when_needed() {
        let mut b = WorkBuf::copy_of(&[1.0f32; 8]);
        let p = b.as_ptr();
        b.refill(&[2.0; 5]);
        assert_eq!(&*b, &[2.0; 5]);
        assert_eq!(b.as_ptr(), p, "fits: same memory");
        b.refill(&[3.0; 9]);
        assert_eq!(&*b, &[3.0; 9]);
        assert!(b.capacity() >= 9);
    }

    #[test]
    fn gather_and_clone_copy_values() {
        let g = WorkBuf::gather(&[10.0f64, 11.0, 12.0, 13.0], &[3, 1, 1]);
        assert_eq!(&*g, &[13.0, 11.0, 11.0]);
        let mut c = g.clone();
        c[0] = 0.0;
        assert_eq!(g[0], 13.0, "clones own their memory");
        assert_eq!(format!("{c:?}"), "[0.0, 11.0, 11.0]");
        let room = c.capacity();
        c.truncate(1);
        assert_eq!((&*c, c.capacity()), (&[0.0][..], room));
        c.refill_gathered(&[5.0, 6.0], &[1, 0]);
        assert_eq!(&*c, &[6.0, 5.0]);
    }
}
