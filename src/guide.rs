//! The user guide: one chapter per module, from `docs/guide/` (its examples run as doctests).

/// Chapter 1: writing kernels (planes, lanes, masks, elementary functions).
#[doc = include_str!("../docs/guide/01-kernels.md")]
pub mod kernels {}

/// Chapter 2: teams and deploy, running, the report.
#[doc = include_str!("../docs/guide/02-deploy.md")]
pub mod deploy {}

/// Chapter 3: saving trajectories.
#[doc = include_str!("../docs/guide/03-trajectories.md")]
pub mod trajectories {}

/// Chapter 4: many devices (fleets) and MPI ranks.
#[doc = include_str!("../docs/guide/04-devices-and-ranks.md")]
pub mod devices_and_ranks {}

/// Chapter 5: your own kernel crate, built with eagle-build and embedded with `include_module!`.
#[doc = include_str!("../docs/guide/05-your-crate.md")]
pub mod your_crate {}

/// Chapter 6: the performance card.
#[doc = include_str!("../docs/guide/06-card.md")]
pub mod card {}

/// Chapter 7: tuning (`lanes: auto` and the tuning cache).
#[doc = include_str!("../docs/guide/07-tuning.md")]
pub mod tuning {}

/// Chapter 8: runs you can trust (bad input, failures, cancel and resume, invariants).
#[doc = include_str!("../docs/guide/08-trust.md")]
pub mod trust {}

/// Chapter 9: array planes, tables and problems (`#[problem]`).
#[doc = include_str!("../docs/guide/09-arrays-and-problems.md")]
pub mod arrays_and_problems {}

/// Chapter 10: events (a condition crossing zero inside a step, located and acted on).
#[doc = include_str!("../docs/guide/10-events.md")]
pub mod events {}

/// Chapter 11: stochastic ensembles: counter-based noise, Euler-Maruyama, Milstein, SRA1.
#[doc = include_str!("../docs/guide/11-stochastic.md")]
pub mod stochastic {}

/// Chapter 12: stiff ensembles: Rosenbrock methods with Jacobians by dual numbers.
#[doc = include_str!("../docs/guide/12-stiff.md")]
pub mod stiff {}

/// Chapter 13: fused arithmetic by choice (`contract`), the same bits on every team.
#[doc = include_str!("../docs/guide/13-contract.md")]
pub mod contract {}

/// Chapter 14: methods and controllers as values (your own tableau, PI control, Verner).
#[doc = include_str!("../docs/guide/14-methods.md")]
pub mod methods {}
