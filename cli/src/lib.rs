//! # eagle-cli: eagle's programs
//!
//! The main job, `profile-your-run` ("Profile your run" on the best team available), and
//! the performance card (feature `card`): the `card` module (workloads, arms, yardsticks),
//! the `card` binary (one row from the command line, for profilers), the card bench (`cargo
//! card` at the workspace root) and the tests that run card workloads (tests/). Kept out of the `eagle` library so that depending on eagle pulls in
//! no CLI parser, plotting or JSON crates.

#[cfg(feature = "card")]
pub mod card;
pub mod figure;
