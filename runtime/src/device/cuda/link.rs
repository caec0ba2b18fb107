//! The driver's linker (`cuLink*`) as one owned value: the PTX JIT and the WHILE
//! condition setter (PTX + `libcudadevrt.a`) both go through it, and the link state is
//! destroyed on every path.

use super::error::dev_err;
use crate::error::Error;
use cudarc::driver::sys;
use std::ffi::{CStr, CString, c_void};
use std::path::Path;

/// An open link: inputs are added, then [`Linker::finish`] returns the cubin.
pub(super) struct Linker {
    state: sys::CUlinkState,
    /// The driver writes its error log here (the address must stay put: boxed).
    log: Box<[u8]>,
}

impl Linker {
    /// Creates a link state with an error log.
    pub fn new() -> Result<Self, Error> {
        let mut log = vec![0u8; 16 << 10].into_boxed_slice();
        let mut opts = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        // SAFETY: two options with two values each as the driver expects (a buffer pointer
        // and its size); the log buffer is boxed and owned by the `Linker`, so it outlives
        // the link state it is given to (destroyed first, in `drop`).
        unsafe { sys::cuLinkCreate_v2(2, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state) }
            .result()
            .map_err(|e| dev_err("cuLinkCreate", e))?;
        Ok(Linker { state, log })
    }

    /// What the driver logged so far (trimmed).
    fn log(&self) -> String {
        let end = self
            .log
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.log.len());
        String::from_utf8_lossy(&self.log[..end]).trim().to_owned()
    }

    /// `what` failed: the driver's error with the link log.
    fn fail(&self, what: &str, e: cudarc::driver::DriverError) -> Error {
        dev_err(&format!("{what} ({})", self.log()), e)
    }

    /// Adds PTX text under `name` (for the log).
    pub fn add_ptx(&mut self, name: &CStr, ptx: &str) -> Result<(), Error> {
        let src = CString::new(ptx).map_err(|_| Error::device("the PTX contains a NUL byte"))?;
        // SAFETY: `self.state` is a live link state; `src` is a NUL-terminated buffer of the
        // length given and `name` a C string, both alive for the call (the driver copies
        // them); no options.
        unsafe {
            sys::cuLinkAddData_v2(
                self.state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                src.as_ptr() as *mut c_void,
                src.as_bytes_with_nul().len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| self.fail("JIT-compiling the PTX", e))
    }

    /// Adds a static device library (`libcudadevrt.a`).
    pub fn add_library(&mut self, path: &Path) -> Result<(), Error> {
        let p = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| Error::device(format!("{} contains a NUL byte", path.display())))?;
        // SAFETY: `self.state` is a live link state and `p` a C string alive for the call;
        // no options.
        unsafe {
            sys::cuLinkAddFile_v2(
                self.state,
                sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                p.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| self.fail(&format!("linking {}", path.display()), e))
    }

    /// Completes the link and returns a copy of the cubin (the driver's belongs to the
    /// link state, destroyed with it).
    pub fn finish(self) -> Result<Vec<u8>, Error> {
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `self.state` is a live link state; `cubin` and `size` are valid places
        // for the results.
        unsafe { sys::cuLinkComplete(self.state, &mut cubin, &mut size) }
            .result()
            .map_err(|e| self.fail("completing the link", e))?;
        // SAFETY: on success the driver's cubin is `size` bytes at `cubin`, owned by the
        // link state, which `self` keeps alive until this function returns (after the copy).
        Ok(unsafe { std::slice::from_raw_parts(cubin as *const u8, size) }.to_vec())
    }
}

impl Drop for Linker {
    fn drop(&mut self) {
        // SAFETY: the link state is owned by this value and destroyed once, here.
        unsafe {
            let _ = sys::cuLinkDestroy(self.state);
        }
    }
}

/// A loaded module, unloaded when dropped (with its context current).
pub(super) struct LoadedModule(pub sys::CUmodule);

impl LoadedModule {
    /// `cuModuleLoadData` on a copy of `image` that is 8-byte aligned and followed by
    /// zeros (the call takes no length; an image that is not ELF is read as text).
    pub fn load(image: &[u8]) -> Result<Self, cudarc::driver::DriverError> {
        let mut buf = vec![0u64; image.len().div_ceil(8) + 1];
        // SAFETY: `buf` holds at least `image.len() + 8` bytes, so the copy fits and the
        // image is followed by zeros; `buf` is 8-byte aligned and alive for the call (the
        // driver copies the image).
        unsafe {
            std::ptr::copy_nonoverlapping(
                image.as_ptr(),
                buf.as_mut_ptr().cast::<u8>(),
                image.len(),
            );
            cudarc::driver::result::module::load_data(buf.as_ptr().cast()).map(LoadedModule)
        }
    }

    /// The entry `symbol`.
    pub fn function(&self, symbol: &str) -> Result<sys::CUfunction, Error> {
        let c = CString::new(symbol).map_err(|_| Error::device("a symbol contains a NUL"))?;
        // SAFETY: `self.0` is a loaded module (unloaded only when `self` drops).
        unsafe { cudarc::driver::result::module::get_function(self.0, c) }
            .map_err(|e| dev_err(&format!("finding entry `{symbol}` in the module"), e))
    }
}

impl Drop for LoadedModule {
    fn drop(&mut self) {
        // SAFETY: the module is owned by this value and unloaded once, here.
        unsafe {
            let _ = cudarc::driver::result::module::unload(self.0);
        }
    }
}
