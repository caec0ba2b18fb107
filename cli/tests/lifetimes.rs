//! `Lifetimes`: the compaction bound is the lane groups' maxima over the useful steps.
//! (An integration test, not a unit test, so `cargo test` compiles eagle-cli's library once:
//! it monomorphizes every card workload and is the workspace's costliest crate to build.)

use eagle_cli::card::Lifetimes;

#[test]
fn bound_is_group_maxima_over_useful_steps() {
    // Groups [1, 3] and [2, 2, ...]: maxima 3 and 2 -> (3*2 + 2*2) / 8.
    let l = Lifetimes::new(&[1, 3, 2, 2], 2);
    assert_eq!((l.min, l.max, l.lanes), (1, 3, 2));
    approx::assert_relative_eq!(l.mean, 2.0, epsilon = 1e-12);
    approx::assert_relative_eq!(l.compaction_bound, 10.0 / 8.0, epsilon = 1e-12);
    // A short last group counts only its own samples.
    let l = Lifetimes::new(&[4, 4, 1], 2);
    approx::assert_relative_eq!(l.compaction_bound, 9.0 / 9.0, epsilon = 1e-12);
    // Equal lifetimes leave compaction nothing to gain.
    assert_eq!(Lifetimes::new(&[5; 16], 8).compaction_bound, 1.0);
}
