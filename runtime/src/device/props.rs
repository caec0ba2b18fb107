//! `device_props()`: what the card is and its peaks, read off the hardware.

use crate::error::Error;

/// A GPU's properties and the peaks derived from them.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceProps {
    /// The device name (`NVIDIA H200`).
    pub name: String,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// Peak SM clock in Hz.
    pub clock_hz: f64,
    /// Peak memory clock in Hz.
    pub memory_clock_hz: f64,
    /// Memory bus width in bits.
    pub memory_bus_bits: u32,
    /// Global memory in bytes.
    pub memory_bytes: usize,
    /// Driver CUDA version (12080 is 12.8).
    pub driver_version: i32,
    /// FP32 lanes per SM for this architecture.
    pub fp32_per_sm: u32,
    /// FP64 rate as a fraction of FP32 for this architecture (1/2 on data-centre parts).
    pub fp64_ratio: f64,
    /// Peak FP32 FLOP/s (an FMA counts 2).
    pub fp32_flops: f64,
    /// Peak FP64 FLOP/s (an FMA counts 2).
    pub fp64_flops: f64,
    /// Peak memory bandwidth in bytes/s (double data rate).
    pub memory_bandwidth: f64,
}

/// FP32 lanes per SM and the FP64:FP32 ratio, by compute capability.
pub fn arch_rates(major: u32, minor: u32) -> (u32, f64) {
    match (major, minor) {
        (6, 0) => (64, 0.5),
        (6, _) => (128, 1.0 / 32.0),
        (7, 0) => (64, 0.5),
        (7, _) => (64, 1.0 / 32.0),
        (8, 0) => (64, 0.5),
        (8, _) => (128, 1.0 / 64.0),
        (9, 0) => (128, 0.5),
        (10, _) => (128, 0.5),
        (_, _) => (128, 1.0 / 64.0),
    }
}

impl DeviceProps {
    /// Derives the peaks from raw attributes (clocks in kHz, as the driver gives them).
    #[allow(clippy::too_many_arguments)]
    pub fn from_attributes(
        name: String,
        sm_count: u32,
        cc: (u32, u32),
        clock_khz: u32,
        memory_clock_khz: u32,
        memory_bus_bits: u32,
        memory_bytes: usize,
        driver_version: i32,
    ) -> Self {
        let (fp32_per_sm, fp64_ratio) = arch_rates(cc.0, cc.1);
        let clock_hz = f64::from(clock_khz) * 1e3;
        let memory_clock_hz = f64::from(memory_clock_khz) * 1e3;
        let fp32_flops = f64::from(sm_count) * f64::from(fp32_per_sm) * 2.0 * clock_hz;
        DeviceProps {
            name,
            sm_count,
            compute_capability: cc,
            clock_hz,
            memory_clock_hz,
            memory_bus_bits,
            memory_bytes,
            driver_version,
            fp32_per_sm,
            fp64_ratio,
            fp32_flops,
            fp64_flops: fp32_flops * fp64_ratio,
            memory_bandwidth: 2.0 * memory_clock_hz * f64::from(memory_bus_bits) / 8.0,
        }
    }
}

/// The properties of GPU 0; [`Error::DeviceUnavailable`] without a driver or a GPU.
pub fn device_props() -> Result<DeviceProps, Error> {
    let (name, a, mem, drv) = super::cuda::attributes()?;
    let u = |v: i32| u32::try_from(v).unwrap_or(0);
    Ok(DeviceProps::from_attributes(
        name,
        u(a[0]),
        (u(a[1]), u(a[2])),
        u(a[3]),
        u(a[4]),
        u(a[5]),
        mem,
        drv,
    ))
}
