//! The right-hand side of an ODE system `y' = f(t, y)`, as a user plugs it in.

use crate::lane::Lane;

/// The right-hand side `f(t, y)` of an ODE system with `N` components, evaluated for one lane
/// group of samples at once.
///
/// Implement it for a struct holding the per-sample parameters as lane values, or pass a
/// closure `|t: L, y: &[L; N]| -> [L; N]` (blanket impl below). The body must be generic or
/// written for one lane type, and must decide per sample with masks and [`Lane::select`],
/// never with an `if` on a sample's value.
///
/// On the host team, write a right-hand side that calls elementary functions (`sin`, `exp`,
/// ...) as a struct whose `eval` is `#[inline(always)]`, or as an `#[inline(always)] fn`
/// passed by reference, not as a closure: a closure's body is a function of its own, and a
/// large one is not inlined into the team's ISA-specific loop, so it runs without that
/// loop's instruction set (each `mul_add` a call per lane: many times slower; the results
/// are the same bits). Small closures (a few arithmetic operations) are inlined.
///
/// The integrators evaluate it for every lane of a group, including lanes whose sample is
/// already finished (their results are discarded), so it must be total: no panics on any
/// input, NaN and infinities included.
pub trait Rhs<L: Lane, const N: usize> {
    /// `dy/dt` at time `t` and state `y`.
    fn eval(&self, t: L, y: &[L; N]) -> [L; N];
}

impl<L: Lane, const N: usize, F: Fn(L, &[L; N]) -> [L; N]> Rhs<L, N> for F {
    #[inline(always)]
    fn eval(&self, t: L, y: &[L; N]) -> [L; N] {
        self(t, y)
    }
}
