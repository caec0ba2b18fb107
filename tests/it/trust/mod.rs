//! Trustworthy runs, tried hard: random ensembles and settings against a plain scalar
//! reference (planes and statuses bit for bit, on the host team and the emulated device),
//! a batch where 1% of samples blow up, cancel and time limit from another thread then
//! resume, injected device faults (at every allocation and launch), NaN reorder keys, and a
//! soak test (`cargo test --release --test it trust::soak -- --ignored --nocapture`).
//!
//! One test binary, a module per job: `wob` (the wobble ensemble and its scalar
//! reference), `reference` (proptests against it), `failures` (samples that blow up or are
//! flagged), `resume` (cancel, time limit, resume), `faults` (injected device faults),
//! `reorder` (NaN reorder keys), `soak`.

mod failures;
mod faults;
mod reference;
mod reorder;
mod resume;
mod soak;
mod wob;
