//! Explicit embedded Butcher tableaus as `const` data, and one fixed step of such a pair.

use super::{Rhs, lc};
use crate::lane::Lane;
use core::mem::MaybeUninit;

/// An explicit embedded Runge-Kutta pair with `S` stages, as `f64` coefficients.
///
/// The coefficients are converted to the lane's element type with
/// [`Real::from_f64`](crate::lane::Real::from_f64) where they are used. `a` is stored as a
/// full `S x S` matrix whose upper triangle (and diagonal) is zero; zero entries are skipped
/// when stages are formed (a branch on a constant, never on a sample's value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tableau<const S: usize> {
    /// A short name (`"Fehlberg 7(8)"`).
    pub name: &'static str,
    /// Nodes: stage `i` is evaluated at `t + c[i] * h`.
    pub c: [f64; S],
    /// Stage coefficients: stage `i` is evaluated at `y + h * sum_{j<i} a[i][j] k_j`.
    pub a: [[f64; S]; S],
    /// Weights of the propagated solution `y_new = y + h * sum b[i] k_i`.
    pub b: [f64; S],
    /// Weights of the embedded solution, used only for the error estimate
    /// `err = h * sum (b[i] - b_embedded[i]) k_i`.
    pub b_embedded: [f64; S],
    /// Order of the propagated solution (`b`).
    pub order: u32,
    /// Order of the embedded solution (`b_embedded`).
    pub embedded_order: u32,
}

impl<const S: usize> Tableau<S> {
    /// Number of stages (right-hand-side evaluations per step).
    pub const STAGES: usize = S;

    /// The lower of the two orders: the order `q` of the error estimate, which the step-size
    /// controller uses in its exponent `-1 / (q + 1)`.
    pub const fn error_order(&self) -> u32 {
        if self.order < self.embedded_order {
            self.order
        } else {
            self.embedded_order
        }
    }
}

/// A row of length `S` from its leading entries, the rest zero (for writing tableaus).
pub(crate) const fn row<const S: usize>(lead: &[f64]) -> [f64; S] {
    let mut out = [0.0; S];
    let mut i = 0;
    while i < lead.len() {
        out[i] = lead[i];
        i += 1;
    }
    out
}

/// Sets `a[i][0] = c[i] - sum_{j>=1} a[i][j]` for rows `1..rows`, so that the row-sum
/// condition holds in `f64` even where the published first column is a rounded decimal.
pub(crate) const fn with_first_column<const S: usize>(
    mut a: [[f64; S]; S],
    c: &[f64; S],
    rows: usize,
) -> [[f64; S]; S] {
    let mut i = 1;
    while i < rows {
        let mut s = 0.0;
        let mut j = 1;
        while j < i {
            s += a[i][j];
            j += 1;
        }
        a[i][0] = c[i] - s;
        i += 1;
    }
    a
}

/// The result of one step of an embedded pair: the propagated solution and the error
/// estimate (propagated minus embedded solution).
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedStep<L, const N: usize> {
    /// The propagated solution `y + h * sum b_i k_i`.
    pub y: [L; N],
    /// The error estimate `h * sum (b_i - b_embedded_i) k_i`.
    pub err: [L; N],
}

/// One fixed step of the embedded pair `tab` from `(t, y)` with step `h` (`S` evaluations of
/// `f`, no adaptivity, no first-same-as-last reuse).
///
/// Each stage state is `y + h * (sum_j a_ij k_j)` with the sum accumulated in `j` order, the
/// new solution `y + h * (sum_i b_i k_i)` and the error `h * (sum_i (b_i - bhat_i) k_i)`,
/// where the weight differences are formed in `f64` before conversion. Plain IEEE operations
/// only, so every lane type gives the same bits.
#[inline(always)]
pub fn embedded_step<L: Lane, F: Rhs<L, N>, const N: usize, const S: usize>(
    f: &F,
    tab: &Tableau<S>,
    t: L,
    y: &[L; N],
    h: L,
) -> EmbeddedStep<L, N> {
    let zero = lc::<L>(0.0);
    // Stage values, written in order before they are read. Left uninitialised: zeroing
    // `S * N` lane groups costs a memset per step where the array does not fit registers.
    let mut k = [const { MaybeUninit::<[L; N]>::uninit() }; S];
    for i in 0..S {
        let mut yi = *y;
        if i > 0 {
            for (n, yin) in yi.iter_mut().enumerate() {
                let mut acc = zero;
                for (j, &a) in tab.a[i].iter().enumerate().take(i) {
                    if a != 0.0 {
                        // SAFETY: `j < i`, and stage `j` was written in iteration `j`. (A
                        // reference: copying the stage out would copy `N` lane groups per
                        // term, which LLVM does not remove for large `N`.)
                        let kj = unsafe { k[j].assume_init_ref() };
                        acc += lc::<L>(a) * kj[n];
                    }
                }
                *yin = y[n] + h * acc;
            }
        }
        k[i].write(f.eval(t + lc::<L>(tab.c[i]) * h, &yi));
    }
    let mut out = EmbeddedStep {
        y: *y,
        err: [zero; N],
    };
    for n in 0..N {
        let (mut sb, mut se) = (zero, zero);
        for (i, (&b, &be)) in tab.b.iter().zip(&tab.b_embedded).enumerate() {
            // SAFETY: the loop above wrote every stage.
            let ki = unsafe { k[i].assume_init_ref() };
            if b != 0.0 {
                sb += lc::<L>(b) * ki[n];
            }
            let e = b - be;
            if e != 0.0 {
                se += lc::<L>(e) * ki[n];
            }
        }
        out.y[n] = y[n] + h * sb;
        out.err[n] = h * se;
    }
    out
}
