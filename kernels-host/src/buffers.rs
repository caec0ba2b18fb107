//! Working buffers a host team keeps between runs.
//!
//! A run works on copies of the caller's mutable planes. Fresh allocations of that size are
//! new pages to the OS, and faulting them in cost more than a third of a short run's time
//! on a virtual machine (3.5 ms of the profile page's oscillator run on 2 cores); reused
//! buffers cost a copy. The first run's buffers are [`WorkBuf`]s in huge-page memory.

use crate::HostReal;
use crate::workbuf::{AllocError, WorkBuf};

/// Most buffers kept per element type; more are freed.
const KEEP: usize = 32;

/// Buffers of each element type, free for the next run.
#[derive(Debug, Default)]
pub struct Buffers {
    f64: Vec<WorkBuf<f64>>,
    f32: Vec<WorkBuf<f32>>,
}

impl Buffers {
    /// A copy of `src` in a kept buffer (the smallest one it fits in, if any), else in a
    /// new one; an error when memory for that runs out.
    pub fn copy_of<R: HostReal>(&mut self, src: &[R]) -> Result<WorkBuf<R>, AllocError> {
        match self.take::<R>(src.len()) {
            Some(mut buf) => {
                buf.refill(src);
                Ok(buf)
            }
            None => WorkBuf::try_copy_of(src),
        }
    }

    /// `src[order[0]], src[order[1]], ...` in a kept buffer (the smallest one they fit in,
    /// if any).
    pub fn gathered<R: HostReal>(&mut self, src: &[R], order: &[usize]) -> WorkBuf<R> {
        match self.take::<R>(order.len()) {
            Some(mut buf) => {
                buf.refill_gathered(src, order);
                buf
            }
            None => WorkBuf::gather(src, order),
        }
    }

    /// The smallest kept buffer with room for `len` elements, taken off the free list.
    fn take<R: HostReal>(&mut self, len: usize) -> Option<WorkBuf<R>> {
        let free = R::free_list(self);
        let i = (0..free.len())
            .filter(|&i| free[i].capacity() >= len)
            .min_by_key(|&i| free[i].capacity())?;
        Some(free.swap_remove(i))
    }

    /// Keeps `bufs` for later runs (up to a bound; the rest are freed).
    pub fn keep<R: HostReal>(&mut self, bufs: impl IntoIterator<Item = WorkBuf<R>>) {
        let free = R::free_list(self);
        for b in bufs {
            if free.len() < KEEP {
                free.push(b);
            }
        }
    }

    /// Bytes held by kept buffers.
    pub fn held_bytes(&self) -> usize {
        let f64s: usize = self.f64.iter().map(WorkBuf::capacity).sum();
        let f32s: usize = self.f32.iter().map(WorkBuf::capacity).sum();
        f64s * 8 + f32s * 4
    }

    /// Frees every kept buffer.
    pub fn clear(&mut self) {
        self.f64.clear();
        self.f32.clear();
    }
}

/// How an element type finds its free list.
pub trait FreeList: Sized + Copy {
    /// The free list of `Self` buffers in `b`.
    fn free_list(b: &mut Buffers) -> &mut Vec<WorkBuf<Self>>;
}

impl FreeList for f64 {
    fn free_list(b: &mut Buffers) -> &mut Vec<WorkBuf<f64>> {
        &mut b.f64
    }
}

impl FreeList for f32 {
    fn free_list(b: &mut Buffers) -> &mut Vec<WorkBuf<f32>> {
        &mut b.f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_reuse_kept_memory() {
        let mut b = Buffers::default();
        let first = b.copy_of(&[1.0f64, 2.0, 3.0]).unwrap();
        assert_eq!(*first, [1.0, 2.0, 3.0]);
        let ptr = first.as_ptr();
        b.keep([first]);
        assert!(b.held_bytes() >= 24);
        let again = b.copy_of(&[4.0f64, 5.0]).unwrap();
        assert_eq!(*again, [4.0, 5.0]);
        assert_eq!(again.as_ptr(), ptr, "the kept buffer is reused");
        assert_eq!(b.held_bytes(), 0);
        // The smallest buffer that fits is taken: the large one stays for a large plane.
        b.keep([again, WorkBuf::copy_of(&[0.0f64; 100])]);
        let g = b.gathered(&[7.0f64, 8.0, 9.0], &[2, 0]);
        assert_eq!((&*g, g.as_ptr()), (&[9.0, 7.0][..], ptr));
        assert_eq!(b.held_bytes(), 800);
        b.clear();
        let f32s = b.copy_of(&[1.5f32]).unwrap();
        b.keep([f32s, WorkBuf::copy_of(&[0.0f32; 4])]);
        assert!(b.held_bytes() >= 4 * (1 + 4));
        b.clear();
        assert_eq!(b.held_bytes(), 0);
    }

    #[test]
    fn keeps_at_most_the_bound() {
        let mut b = Buffers::default();
        b.keep((0..KEEP + 5).map(|_| WorkBuf::copy_of(&[0.0f64; 2])));
        assert_eq!(b.held_bytes(), KEEP * 2 * 8);
    }
}
