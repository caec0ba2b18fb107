//! NVTX ranges for profilers (`nsys profile --stats=true`): the run's phases (module load,
//! graph capture, launches and replays, compaction, reorder, transfers) as named ranges.
//!
//! Only with the `nvtx` feature; without it [`range`] returns a zero-sized guard and
//! compiles to nothing. With it, a missing `libnvToolsExt` makes every range a no-op (the
//! library is looked for once, before anything is called).

/// A range that ends when dropped. Bind it (`let _r = range(..)`): `let _ = ..` drops it
/// at once.
#[must_use = "the range ends when this guard is dropped"]
pub(crate) struct Range {
    #[cfg(feature = "nvtx")]
    _inner: Option<cudarc::nvtx::Range>,
}

/// Starts the range `name` (a no-op without the `nvtx` feature or without libnvToolsExt).
#[cfg(feature = "nvtx")]
pub(crate) fn range(name: &str) -> Range {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: the check loads (and unloads) the system's NVTX library by its usual names;
    // its initialisers are NVIDIA's own, run by every profiled CUDA program.
    let present = *PRESENT.get_or_init(|| unsafe { cudarc::nvtx::sys::is_culib_present() });
    Range {
        _inner: present.then(|| cudarc::nvtx::scoped_range(name)),
    }
}

/// Starts the range `name` (a no-op without the `nvtx` feature or without libnvToolsExt).
#[cfg(not(feature = "nvtx"))]
#[inline(always)]
pub(crate) fn range(_name: &str) -> Range {
    Range {}
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_nest_and_never_panic() {
        // Without the feature the guard is zero-sized; with it and no libnvToolsExt (this
        // machine) it holds nothing. Either way nesting and dropping are safe.
        #[cfg(not(feature = "nvtx"))]
        assert_eq!(std::mem::size_of::<super::Range>(), 0);
        let outer = super::range("outer");
        {
            let _inner = super::range("inner");
        }
        drop(outer);
    }
}
