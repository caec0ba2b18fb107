//! Driver errors as typed [`Error`]s that keep the driver's code as their source.

use crate::error::{DriverCode, Error};
use cudarc::driver::{DriverError, sys};

/// The driver's name and description of `e` (`CUDA_ERROR_OUT_OF_MEMORY: out of memory`).
pub(crate) fn describe(e: &DriverError) -> String {
    let name = name_of(e);
    match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    }
}

fn name_of(e: &DriverError) -> String {
    e.error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUresult {}", e.0 as u32))
}

/// A driver error as a typed [`Error`]: out of memory, a kernel trap (the context is
/// unusable afterwards) and a lost context get their own variants; the rest is `Device`.
/// `what` says what was being done; the driver's code is the error's `source()`.
pub(crate) fn dev_err(what: &str, e: DriverError) -> Error {
    use sys::cudaError_enum as R;
    let message = match e.error_string() {
        Ok(s) => format!("{what}: {}", s.to_string_lossy()),
        Err(_) => what.to_owned(),
    };
    let code = Some(DriverCode {
        code: e.0 as u32,
        name: name_of(&e),
    });
    match e.0 {
        R::CUDA_ERROR_OUT_OF_MEMORY => Error::DeviceOutOfMemory { message, code },
        R::CUDA_ERROR_ILLEGAL_ADDRESS
        | R::CUDA_ERROR_LAUNCH_FAILED
        | R::CUDA_ERROR_ASSERT
        | R::CUDA_ERROR_HARDWARE_STACK_ERROR
        | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
        | R::CUDA_ERROR_MISALIGNED_ADDRESS
        | R::CUDA_ERROR_INVALID_PC
        | R::CUDA_ERROR_LAUNCH_TIMEOUT => Error::KernelTrap { message, code },
        R::CUDA_ERROR_CONTEXT_IS_DESTROYED
        | R::CUDA_ERROR_INVALID_CONTEXT
        | R::CUDA_ERROR_DEINITIALIZED
        | R::CUDA_ERROR_DEVICE_UNAVAILABLE
        | R::CUDA_ERROR_ECC_UNCORRECTABLE => Error::ContextLost { message, code },
        _ => Error::Device { message, code },
    }
}
