//! Forward-mode dual numbers over lanes: a right-hand side written for [`Lane`] gives its
//! Jacobian without a second implementation.
//!
//! [`Dual<L, D>`] holds a lane value and its derivatives along `D` directions, each a lane
//! value of the same type. It is a [`Lane`] itself (same element type, mask and width as
//! `L`), so any body generic over `Scalar: Lane<Elem = f64>` runs on duals unchanged:
//! `+ - * /`, `mul_add`, `sqrt`, `abs`, `min`, `max`, `select` and every elementary function
//! of [`crate::math`] carry their derivatives by the chain rule (each function's own value
//! is computed by `L`'s implementation, bit for bit the value a plain evaluation gives).
//!
//! [`linearize`] seeds the state and time directions and returns `f(t, y)`, the Jacobian
//! `df/dy` and `df/dt` from one evaluation, which is what the Rosenbrock methods
//! ([`crate::methods::rosenbrock`]) need each step.
//!
//! ```
//! use hawk::dual::linearize;
//! use hawk::Lane;
//!
//! // f(t, y) = [y0 * y1 + t, sin(y0)] at t = 2, y = [3, 4].
//! fn f<S: Lane<Elem = f64>>(t: S, y: &[S; 2]) -> [S; 2] {
//!     [y[0] * y[1] + t, y[0].sin()]
//! }
//! let lin = linearize::<f64, 2, 3>(|t, y| f(t, y), 2.0, &[3.0, 4.0]);
//! assert_eq!(lin.f, [14.0, 3.0f64.sin()]);
//! assert_eq!(lin.jac, [[4.0, 3.0], [3.0f64.cos(), 0.0]]);
//! assert_eq!(lin.dfdt, [1.0, 0.0]);
//! ```
//!
//! Derivative rules at points where a function is not differentiable follow one side
//! (`abs` at 0 gives `+d`, `min`/`max` of equal values the first operand's, the rounding
//! functions 0). A derivative is as accurate as the formula it comes from: `f'(x)` is
//! computed from the function's value where the rule allows (`exp`, `tanh`, `sqrt`), else
//! from its own elementary functions (`asin`'s `1 / sqrt(1 - x^2)`), each below 1 ulp.

mod lane_impl;
mod rules;

use crate::lane::{Lane, Real};

/// A lane value `v` with its derivatives `d[k]` along `D` directions.
#[derive(Clone, Copy, Debug)]
pub struct Dual<L, const D: usize> {
    /// The value.
    pub v: L,
    /// The derivatives, one lane value per direction.
    pub d: [L; D],
}

impl<L: Lane, const D: usize> Dual<L, D> {
    /// A constant: value `v`, every derivative zero.
    #[inline(always)]
    pub fn constant(v: L) -> Self {
        Dual {
            v,
            d: [L::splat(<L::Elem as Real>::from_f64(0.0)); D],
        }
    }

    /// The variable along direction `k`: value `v`, derivative 1 along `k`, 0 elsewhere.
    #[inline(always)]
    pub fn variable(v: L, k: usize) -> Self {
        let mut x = Self::constant(v);
        x.d[k] = L::splat(<L::Elem as Real>::from_f64(1.0));
        x
    }

    /// The chain rule for a function of one argument: value `fx`, derivative `dfdx * d`.
    #[inline(always)]
    pub(crate) fn chain(self, fx: L, dfdx: L) -> Self {
        Dual {
            v: fx,
            d: self.d.map(|d| dfdx * d),
        }
    }
}

/// `f(t, y)` with its partial derivatives at one point, per lane.
#[derive(Clone, Copy, Debug)]
pub struct Linearization<L, const N: usize> {
    /// `f(t, y)`.
    pub f: [L; N],
    /// The Jacobian: `jac[i][j]` is `df_i / dy_j`.
    pub jac: [[L; N]; N],
    /// `df / dt`.
    pub dfdt: [L; N],
}

/// `f(t, y)`, `df/dy` and `df/dt` from one evaluation of `f` on duals with `D = N + 1`
/// directions: `y[j]` is seeded along direction `j`, `t` along direction `N`.
///
/// `D` must be `N + 1` (a const generic cannot be computed from `N` yet); another `D` is a
/// compile-time error.
#[inline(always)]
pub fn linearize<L: Lane, const N: usize, const D: usize>(
    f: impl FnOnce(Dual<L, D>, &[Dual<L, D>; N]) -> [Dual<L, D>; N],
    t: L,
    y: &[L; N],
) -> Linearization<L, N> {
    const {
        assert!(
            D == N + 1,
            "hawk::dual::linearize needs D = N + 1 directions (the states and the time)"
        )
    };
    let ys: [Dual<L, D>; N] = core::array::from_fn(|j| Dual::variable(y[j], j));
    let out = f(Dual::variable(t, N), &ys);
    Linearization {
        f: out.map(|o| o.v),
        jac: out.map(|o| core::array::from_fn(|j| o.d[j])),
        dfdt: out.map(|o| o.d[N]),
    }
}
