//! Every way a deploy or a run can be refused, each naming the plane, length or value.

use hawk_host::HostError;

/// A CUDA driver error code, kept as the [`std::error::Error::source`] of a device error.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("CUDA driver error {code} ({name})")]
pub struct DriverCode {
    /// The `CUresult` value.
    pub code: u32,
    /// Its name (`CUDA_ERROR_OUT_OF_MEMORY`).
    pub name: String,
}

/// An error from eagle. No error leaves the caller's planes changed (a run that completes
/// leaves them fully updated).
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The kernel declares a plane the caller did not give.
    #[error("kernel `{kernel}` needs plane `{plane}` ({role}), but it was not given")]
    MissingPlane {
        /// Kernel name.
        kernel: &'static str,
        /// The missing plane (`x`, or an array plane's component `x[3]`).
        plane: String,
        /// Its type as written in the kernel.
        role: String,
    },
    /// The caller gave a plane the kernel does not declare.
    #[error("kernel `{kernel}` has no plane `{plane}` (its planes: {known})")]
    UnknownPlane {
        /// Kernel name.
        kernel: &'static str,
        /// The unknown name.
        plane: String,
        /// The kernel's plane names.
        known: String,
    },
    /// A plane was given twice.
    #[error("plane `{plane}` was given twice")]
    DuplicatePlane {
        /// The plane.
        plane: String,
    },
    /// A plane was given with another role than the kernel declares.
    #[error("plane `{plane}` is `{expected}` in kernel `{kernel}`, but was given as `{given}`")]
    WrongRole {
        /// Kernel name.
        kernel: &'static str,
        /// The plane.
        plane: String,
        /// Role in the kernel.
        expected: String,
        /// Role given.
        given: &'static str,
    },
    /// Per-sample planes of different lengths.
    #[error("plane `{plane}` has length {len}, but plane `{reference}` has length {expected}")]
    LengthMismatch {
        /// The plane that differs.
        plane: String,
        /// Its length.
        len: usize,
        /// The first plane's name.
        reference: String,
        /// The first plane's length.
        expected: usize,
    },
    /// The ensemble has no samples.
    #[error("the ensemble is empty: plane `{plane}` has length 0 (give at least one sample)")]
    Empty {
        /// The first per-sample plane.
        plane: String,
    },
    /// A table (`&[Param; M]`) was given with another number of values.
    #[error("table `{plane}` of kernel `{kernel}` has {expected} values, but {given} were given")]
    TableLength {
        /// Kernel name.
        kernel: &'static str,
        /// The table.
        plane: String,
        /// Its length in the kernel.
        expected: usize,
        /// The length given.
        given: usize,
    },
    /// A buffer that holds an array plane's components one after another (component-major,
    /// `N x n`) has a length that is not a multiple of `N`.
    #[error(
        "a component-major buffer for {components} components has length {len}, not a multiple of {components}"
    )]
    ComponentBuffer {
        /// The array plane's length `N`.
        components: usize,
        /// The buffer's length.
        len: usize,
    },
    /// `max_steps` was 0.
    #[error("max_steps must be at least 1, got 0")]
    MaxSteps,
    /// A fixed steps-per-launch of 0.
    #[error("steps per launch must be at least 1, got 0")]
    FixedSteps,
    /// A shared parameter was NaN or infinite.
    #[error("param `{plane}` is {value}: params must be finite")]
    NonFiniteParam {
        /// The param (a table's value: `w[3]`).
        plane: String,
        /// Its value.
        value: f64,
    },
    /// A param the kernel needs positive (`Kernel::POSITIVE`: a step, a tolerance) was not.
    #[error("param `{plane}` of kernel `{kernel}` is {value}: it must be positive")]
    ParamNotPositive {
        /// The kernel's name.
        kernel: &'static str,
        /// The param.
        plane: String,
        /// Its value.
        value: f64,
    },
    /// A plane or param that keys random numbers (`Kernel::COUNTERS`: a seed, a path
    /// number, a step count) held something other than a whole number below the limit.
    #[error(
        "`{plane}` of kernel `{kernel}` is {value} at sample {sample}: it keys random numbers, \
         so it must be a whole number from 0 to below {limit} (give each path its own number, \
         e.g. the sample index)"
    )]
    NotACounter {
        /// The kernel's name.
        kernel: &'static str,
        /// The plane or param.
        plane: String,
        /// The first sample that holds a bad value (0 for a param).
        sample: usize,
        /// Its value.
        value: f64,
        /// The limit: `hawk::random::counter_limit` of the kernel's element type.
        limit: f64,
    },
    /// The reorder key is not a per-sample plane of the kernel.
    #[error("reorder key `{plane}` is not a per-sample plane of kernel `{kernel}`")]
    ReorderKey {
        /// Kernel name.
        kernel: &'static str,
        /// The key given.
        plane: String,
    },
    /// A plane name asked for after a run does not exist.
    #[error("no plane `{plane}` in this run")]
    NoSuchPlane {
        /// The name asked for.
        plane: String,
    },
    /// The host team could not be set up.
    #[error("host team: {0}")]
    Host(#[from] HostError),
    /// The device failed (a driver call, a launch, an allocation).
    #[error("device: {message}")]
    Device {
        /// What failed.
        message: String,
        /// The driver's error code, when a driver call failed.
        #[source]
        code: Option<DriverCode>,
    },
    /// The host could not allocate a buffer the run needs (working copies of the mutable
    /// planes, status bytes, a trajectory, planes coming home). Nothing was written: the
    /// caller's planes are as they were.
    #[error(
        "out of host memory: {what} need {:.1} GiB, which could not be allocated; nothing \
         was written, your planes are as they were (run fewer samples at a time, or save \
         fewer points)",
        *.bytes as f64 / (1u64 << 30) as f64
    )]
    HostOutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// The bytes asked for.
        bytes: u128,
    },
    /// The device ran out of memory (uploading the planes, or compaction buffers).
    #[error("device out of memory: {message}")]
    DeviceOutOfMemory {
        /// What was being allocated.
        message: String,
        /// The driver's error code (none on the emulated device).
        #[source]
        code: Option<DriverCode>,
    },
    /// A kernel trapped on the device (an illegal address, an assertion, a hardware fault).
    #[error("a kernel trapped on the device: {message}")]
    KernelTrap {
        /// Which launch trapped.
        message: String,
        /// The driver's error code (none on the emulated device).
        #[source]
        code: Option<DriverCode>,
    },
    /// The device context was lost (destroyed, device gone); the runner's device state is
    /// dropped and the next run starts again from the caller's planes.
    #[error("the device context was lost: {message}")]
    ContextLost {
        /// The call that found it lost.
        message: String,
        /// The driver's error code (none on the emulated device).
        #[source]
        code: Option<DriverCode>,
    },
    /// `resume()` was called on a runner that has no stopped run to continue.
    #[error("nothing to resume: call run() first (resume continues a run that stopped early)")]
    NothingToResume,
    /// A device run's results were read before they came home.
    #[error(
        "the last run's {what} is still on the device: call Runner::to_host() first (dropping \
         the runner also brings the results home)"
    )]
    NotHome {
        /// What was read: `plane \`x\`` or `trajectory`.
        what: String,
    },
    /// The device module lacks GPU entries the kernel needs (it was built from another
    /// kernel crate, e.g. the built-in module for your kernel).
    #[error(
        "kernel `{kernel}` cannot run from GPU module `{module}`: it lacks the entries {}; \
         build the crate that defines the kernel with eagle-build (in build.rs: \
         eagle_build::KernelBuilder::new(\"<your kernel crate>\").build()) and deploy with \
         eagle::include_module!().deploy(kernel, target)",
        .missing.join(", ")
    )]
    MissingEntries {
        /// Kernel name.
        kernel: &'static str,
        /// The module's name ([`crate::Module::name`]).
        module: String,
        /// The entries the module lacks.
        missing: Vec<String>,
    },
    /// The device module declares an entry with other parameters than this runtime passes
    /// (it was built by another version of eagle-build and hawk).
    #[error(
        "entry `{entry}` of GPU module `{module}` takes parameters of {} bytes, but this \
         eagle launches it with {}: rebuild the module with this version's eagle-build",
        sizes(.found),
        sizes(.expected)
    )]
    EntryParams {
        /// The module's name.
        module: String,
        /// The entry.
        entry: &'static str,
        /// Parameter sizes this runtime passes.
        expected: Vec<u16>,
        /// Parameter sizes the PTX declares.
        found: Vec<u16>,
    },
    /// The device module's kernel of this name is another kernel (its identity differs
    /// from `Kernel::IDENTITY`: another body, other planes or settings, or another hawk):
    /// a GPU would run that kernel's code. Nothing ran.
    #[error(
        "GPU module `{module}` holds another kernel named `{kernel}` ({}): a GPU would run \
         that code, not this kernel's. Build this kernel into a module of your own \
         (a kernel crate built by eagle-build, then `eagle::include_module!().deploy(..)`), \
         or rename it if it clashes with a built-in of eagle's module",
        match .found {
            Some(_) => "its identity differs: another body, other planes or settings",
            None => "the module stores no identity for it: built by an older eagle-build",
        }
    )]
    OtherKernel {
        /// Kernel name.
        kernel: &'static str,
        /// The module's name.
        module: String,
        /// The identity the module stores for that name, if any.
        found: Option<u64>,
    },
    /// Save points (`Options::save`) that cannot be saved as asked.
    #[error("save points: {0}")]
    Save(String),
    /// The saved points would not fit: the message names the size, the limit and how to
    /// shrink it. Nothing ran; the planes are untouched.
    #[error("{message}")]
    TrajectoryTooLarge {
        /// Bytes the trajectory needs.
        bytes: u64,
        /// The limit it exceeds.
        limit: u64,
        /// The whole explanation.
        message: String,
    },
    /// The device team was asked for but cannot be used.
    #[error("device team unavailable: {0}")]
    DeviceUnavailable(String),
}

/// Parameter sizes as `(4, 8, 8)`.
fn sizes(v: &[u16]) -> String {
    let list: Vec<String> = v.iter().map(u16::to_string).collect();
    format!("({})", list.join(", "))
}

impl Error {
    /// A kernel trap or a lost context: the device's context is unusable afterwards.
    pub(crate) fn breaks_context(&self) -> bool {
        matches!(self, Error::KernelTrap { .. } | Error::ContextLost { .. })
    }
    /// A device failure without a driver code.
    pub(crate) fn device(message: impl Into<String>) -> Self {
        Error::Device {
            message: message.into(),
            code: None,
        }
    }
    /// An out-of-memory failure without a driver code (the emulated device's).
    pub(crate) fn out_of_memory(message: impl Into<String>) -> Self {
        Error::DeviceOutOfMemory {
            message: message.into(),
            code: None,
        }
    }
    /// A kernel trap without a driver code (the emulated device's).
    pub(crate) fn kernel_trap(message: impl Into<String>) -> Self {
        Error::KernelTrap {
            message: message.into(),
            code: None,
        }
    }
    /// A lost context without a driver code (the emulated device's).
    pub(crate) fn context_lost(message: impl Into<String>) -> Self {
        Error::ContextLost {
            message: message.into(),
            code: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_driver_code_is_the_source_of_a_device_error() {
        let e = Error::DeviceOutOfMemory {
            message: "allocating 8 B".into(),
            code: Some(DriverCode {
                code: 2,
                name: "CUDA_ERROR_OUT_OF_MEMORY".into(),
            }),
        };
        assert_eq!(e.to_string(), "device out of memory: allocating 8 B");
        let src = e.source().expect("the driver code").to_string();
        assert_eq!(src, "CUDA driver error 2 (CUDA_ERROR_OUT_OF_MEMORY)");
        assert!(Error::device("x").source().is_none());
    }
}
