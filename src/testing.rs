//! Test hooks: fault injection on the emulated device, for tests of the device team's
//! error paths without a GPU. Not for production programs.

pub use eagle_runtime::FaultPlan;

/// The emulated device team injecting the faults `plan` names (out of memory, a kernel
/// trap, a lost context), as a [`crate::Target`].
///
/// ```
/// use eagle::testing::{FaultPlan, emulated_with_faults};
/// let target = emulated_with_faults(FaultPlan { trap_launch: Some(0), ..FaultPlan::none() });
/// assert_ne!(target, eagle::Target::Emulated);
/// ```
pub fn emulated_with_faults(plan: FaultPlan) -> crate::Target {
    crate::Target::EmulatedFaults(plan)
}
