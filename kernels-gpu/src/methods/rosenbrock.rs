//! Rosenbrock methods for stiff systems: linearly implicit, one Jacobian and one LU
//! factorization per step, adaptive with the same [`AdaptiveState`], [`Settings`] and
//! [`StepControl`] as the explicit pairs.
//!
//! A stiff right-hand side implements [`Jacobian`]: `f(t, y)` with `df/dy` and `df/dt`. The
//! easy way is [`crate::dual::linearize`], which gets all three from one evaluation of the
//! right-hand side on dual numbers (a `#[problem]` with a Rosenbrock method does this for
//! you); a hand-written Jacobian is a plain impl.
//!
//! **Rosenbrock23** ([`rosenbrock23_step`]): the pair of MATLAB's `ode23s`, L. F. Shampine
//! and M. W. Reichelt, "The MATLAB ODE Suite", SIAM J. Sci. Comput. 18(1), 1997, section 3.1:
//! `d = 1 / (2 + sqrt 2)`, `e32 = 6 + sqrt 2`, `W = I - h d J`,
//! ```text
//! F0 = f(t, y)                      k1 = W \ (F0 + h d T)
//! F1 = f(t + h/2, y + h/2 k1)       k2 = W \ (F1 - k1) + k1
//! y1 = y + h k2                     F2 = f(t + h, y1)
//! k3 = W \ (F2 - e32 (k2 - F1) - 2 (k1 - F0) + h d T)
//! err = h/6 (k1 - 2 k2 + k3)
//! ```
//! with `T = df/dt`. It propagates the order-2 solution (L-stable, so a step may be far
//! larger than the fastest time scale); the error estimate is of order 3, so the controller
//! uses `q = 2`. Per step: one linearization, two more evaluations of `f`, one LU
//! factorization and three solves.
//!
//! **Rodas4** ([`RODAS4`], stepped by [`rosenbrock_step_to`]): Hairer and Wanner's
//! stiffly accurate 6-stage method of order 4 with an embedded order-3 solution, E. Hairer
//! and G. Wanner, *Solving Ordinary Differential Equations II*, 2nd ed., Springer 1996,
//! section IV.7 (the coefficients of their code `rodas.f`, as its 16-digit decimals; the
//! same digits are in Sandu et al.'s KPP and FATODE integrators). In their form, with
//! `gamma` the diagonal and `T = df/dt`,
//! ```text
//! (I / (h gamma) - J) k_i = f(t + alpha_i h, y + sum_j a_ij k_j) + sum_j (c_ij / h) k_j
//!                           + gamma_i h T
//! y1 = y + sum_i m_i k_i        err = sum_i e_i k_i
//! ```
//! Rodas4 is L-stable and its last stage is its solution (stiffly accurate), so it stays
//! accurate where a stiff component sits on its slow manifold; at tight tolerances it takes
//! far fewer steps than Rosenbrock23 (order 2). Per step: one linearization, five more
//! evaluations of `f`, one LU factorization and six solves.
//!
//! **Rodas5P** ([`RODAS5P`]): G. Steinebach, "Construction of Rosenbrock-Wanner method
//! Rodas5P and numerical benchmarks within the Julia Differential Equations package", BIT
//! Numerical Mathematics 63, 27 (2023): 8 stages, order 5 with an embedded order-4
//! solution, L-stable and stiffly accurate, in the same form (its coefficients as 17-digit
//! decimals from OrdinaryDiffEq.jl's `Rodas5PTableau`, whose `d_i` are the `gamma_i` here
//! and whose last three stages add `k6`, `k7`, `k8` as the last rows of `a` do). It is
//! DiffEqGPU's default stiff method and the most accurate per step of the three. Per step:
//! one linearization, seven more evaluations of `f`, one LU factorization and eight solves.
//!
//! ```
//! use hawk::methods::{AdaptiveState, Settings, StepControl};
//! use hawk::methods::rosenbrock::{Jacobian, rosenbrock23_step};
//! use hawk::dual::{Linearization, linearize};
//! use hawk::methods::Rhs;
//! use hawk::Lane;
//!
//! // y' = -1e6 (y - cos t): stiff; the solution follows cos t after a fast transient.
//! fn f<S: Lane<Elem = f64>>(t: S, y: &[S; 1]) -> [S; 1] {
//!     [S::splat(-1e6) * (y[0] - t.cos())]
//! }
//! struct Stiff;
//! impl Rhs<f64, 1> for Stiff {
//!     fn eval(&self, t: f64, y: &[f64; 1]) -> [f64; 1] { f(t, y) }
//! }
//! impl Jacobian<f64, 1> for Stiff {
//!     fn linearize(&self, t: f64, y: &[f64; 1]) -> Linearization<f64, 1> {
//!         linearize::<f64, 1, 2>(|t, y| f(t, y), t, y)
//!     }
//! }
//! let mut s = AdaptiveState::new(0.0, [0.0], 1e-8);
//! let set = Settings { rtol: 1e-4, atol: 1e-7, t_end: 10.0 };
//! while !rosenbrock23_step(&Stiff, &mut s, &set, &StepControl::DEFAULT).terminated {}
//! // The solution after the transient: cos t + sin t / 1e6 (to 1e-12).
//! approx::assert_abs_diff_eq!(s.y[0], 10.0f64.cos() + 10.0f64.sin() / 1e6, epsilon = 1e-5);
//! // An explicit method's step must stay below about 3e-6 for stability: 3 million steps.
//! assert!(s.accepted < 1000.0, "{} {}", s.accepted, s.y[0] - (10.0f64.cos() + 10.0f64.sin() / 1e6));
//! ```

use super::{
    AdaptiveMethod, AdaptiveState, Attempt, Controller, Rhs, Settings, StepOutcome,
    adaptive_step_to, lc,
};
use crate::dual::Linearization;
use crate::lane::Lane;
use crate::linalg::lu_factor;

/// A right-hand side with its linearization, what an implicit method needs.
///
/// Implement it with [`crate::dual::linearize`] on a right-hand side generic over the lane,
/// or by hand. Like [`Rhs::eval`] it is called for every lane of a group, finished ones
/// included, so it must not panic on any input.
pub trait Jacobian<L: Lane, const N: usize>: Rhs<L, N> {
    /// `f(t, y)`, `df/dy` and `df/dt` at `(t, y)`.
    fn linearize(&self, t: L, y: &[L; N]) -> Linearization<L, N>;
}

/// A Rosenbrock method with `S` stages in Hairer and Wanner's form (see the module docs):
/// `a` and `c` strictly lower triangular (`a[i][j]`, `j < i`), as `f64`, converted per use.
#[derive(Clone, Copy, Debug)]
pub struct RosenbrockTableau<const S: usize> {
    /// The method's name, for reports.
    pub name: &'static str,
    /// The diagonal `gamma`.
    pub gamma: f64,
    /// The stage times `alpha_i`.
    pub alpha: [f64; S],
    /// The stage time-derivative weights `gamma_i` (the row sums of the full `Gamma`).
    pub gamma_sum: [f64; S],
    /// Stage state weights.
    pub a: [[f64; S]; S],
    /// Stage coupling weights (divided by `h` in the step).
    pub c: [[f64; S]; S],
    /// Solution weights.
    pub m: [f64; S],
    /// Error-estimate weights.
    pub e: [f64; S],
    /// The order of the embedded solution (the controller's `q`).
    pub error_order: u32,
}

// The published digits are kept verbatim.
#[allow(clippy::excessive_precision)]
const RODAS4_A5: [f64; 4] = [
    1.221224509226641,
    6.019134481288629,
    12.53708332932087,
    -0.6878860361058950,
];

/// Rodas4 (Hairer and Wanner 1996, IV.7; `rodas.f`): 6 stages, order 4(3), L-stable,
/// stiffly accurate.
#[allow(clippy::excessive_precision)]
pub const RODAS4: RosenbrockTableau<6> = RosenbrockTableau {
    name: "Rodas4",
    gamma: 0.25,
    alpha: [0.0, 0.386, 0.21, 0.63, 1.0, 1.0],
    gamma_sum: [0.25, -0.1043, 0.1035, -0.3620000000000023e-1, 0.0, 0.0],
    a: [
        [0.0; 6],
        [1.544, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.9466785280815826, 0.2557011698983284, 0.0, 0.0, 0.0, 0.0],
        [
            3.314825187068521,
            2.896124015972201,
            0.9986419139977817,
            0.0,
            0.0,
            0.0,
        ],
        [
            RODAS4_A5[0],
            RODAS4_A5[1],
            RODAS4_A5[2],
            RODAS4_A5[3],
            0.0,
            0.0,
        ],
        [
            RODAS4_A5[0],
            RODAS4_A5[1],
            RODAS4_A5[2],
            RODAS4_A5[3],
            1.0,
            0.0,
        ],
    ],
    c: [
        [0.0; 6],
        [-5.6688, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-2.430093356833875, -0.2063599157091915, 0.0, 0.0, 0.0, 0.0],
        [
            -0.1073529058151375,
            -9.594562251023355,
            -20.47028614809616,
            0.0,
            0.0,
            0.0,
        ],
        [
            7.496443313967647,
            -10.24680431464352,
            -33.99990352819905,
            11.70890893206160,
            0.0,
            0.0,
        ],
        [
            8.083246795921522,
            -7.981132988064893,
            -31.52159432874371,
            16.31930543123136,
            -6.058818238834054,
            0.0,
        ],
    ],
    m: [
        RODAS4_A5[0],
        RODAS4_A5[1],
        RODAS4_A5[2],
        RODAS4_A5[3],
        1.0,
        1.0,
    ],
    e: [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    error_order: 3,
};

const RODAS5P_A6: [f64; 5] = [
    -7.502846399306121,
    2.561846144803919,
    -11.627539656261098,
    -0.18268767659942256,
    0.030198172008377946,
];

/// Rodas5P (Steinebach 2023; OrdinaryDiffEq.jl's digits): 8 stages, order 5(4), L-stable,
/// stiffly accurate.
#[allow(clippy::excessive_precision)]
pub const RODAS5P: RosenbrockTableau<8> = {
    let a6 = RODAS5P_A6;
    RosenbrockTableau {
        name: "Rodas5P",
        gamma: 0.21193756319429014,
        alpha: [
            0.0,
            0.6358126895828704,
            0.4095798393397535,
            0.9769306725060716,
            0.4288403609558664,
            1.0,
            1.0,
            1.0,
        ],
        gamma_sum: [
            0.21193756319429014,
            -0.42387512638858027,
            -0.3384627126235924,
            1.8046452872882734,
            2.325825639765069,
            0.0,
            0.0,
            0.0,
        ],
        a: [
            [0.0; 8],
            [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                2.849394379747939,
                0.45842242204463923,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                -6.954028509809101,
                2.489845061869568,
                -10.358996098473584,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                2.8029986275628964,
                0.5072464736228206,
                -0.3988312541770524,
                -0.04721187230404641,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [a6[0], a6[1], a6[2], a6[3], a6[4], 0.0, 0.0, 0.0],
            [a6[0], a6[1], a6[2], a6[3], a6[4], 1.0, 0.0, 0.0],
            [a6[0], a6[1], a6[2], a6[3], a6[4], 1.0, 1.0, 0.0],
        ],
        c: [
            [0.0; 8],
            [-14.155112264123755, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                -17.97296035885952,
                -2.859693295451294,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                147.12150275711716,
                -1.41221402718213,
                71.68940251302358,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                165.43517024871676,
                -0.4592823456491126,
                42.90938336958603,
                -5.961986721573306,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                24.854864614690072,
                -3.0009227002832186,
                47.4931110020768,
                5.5814197821558125,
                -0.6610691825249471,
                0.0,
                0.0,
                0.0,
            ],
            [
                30.91273214028599,
                -3.1208243349937974,
                77.79954646070892,
                34.28646028294783,
                -19.097331116725623,
                -28.087943162872662,
                0.0,
                0.0,
            ],
            [
                37.80277123390563,
                -3.2571969029072276,
                112.26918849496327,
                66.9347231244047,
                -40.06618937091002,
                -54.66780262877968,
                -9.48861652309627,
                0.0,
            ],
        ],
        m: [a6[0], a6[1], a6[2], a6[3], a6[4], 1.0, 1.0, 1.0],
        e: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        error_order: 4,
    }
};

/// One attempted step of the Rosenbrock method `tab` (see the module docs), landing on
/// `t_end` and on `next_save` exactly, accepted or rejected as [`super::adaptive_step_to`]
/// does (the same norm, controller and counters, with `q` = `tab.error_order`). Where the
/// matrix `I / (h gamma) - J` is singular the step is rejected and
/// [`StepOutcome::singular`] is set.
#[inline(always)]
pub fn rosenbrock_step_to<
    L: Lane,
    F: Jacobian<L, N>,
    C: Controller,
    const N: usize,
    const S: usize,
>(
    f: &F,
    tab: &RosenbrockTableau<S>,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
    next_save: L,
) -> StepOutcome<L::Mask> {
    adaptive_step_to(f, tab, state, settings, ctl, next_save)
}

impl<L: Lane, F: Jacobian<L, N>, const N: usize, const S: usize> AdaptiveMethod<L, N, F>
    for RosenbrockTableau<S>
{
    #[inline(always)]
    fn error_order(&self) -> u32 {
        self.error_order
    }

    #[inline(always)]
    fn attempt(&self, f: &F, t: L, y: &[L; N], h: L, _t_new: L) -> Attempt<L, N> {
        let tab = self;
        let y = *y;
        let lin = f.linearize(t, &y);
        let (zero, one) = (lc::<L>(0.0), lc::<L>(1.0));
        let ghinv = one / (h * lc::<L>(tab.gamma));
        let inv_h = one / h;
        let w: [[L; N]; N] = core::array::from_fn(|i| {
            core::array::from_fn(|j| (if i == j { ghinv } else { zero }) - lin.jac[i][j])
        });
        let lu = lu_factor(w);
        let mut k = [[zero; N]; S];
        for i in 0..S {
            let fi = if i == 0 {
                lin.f
            } else {
                let yi: [L; N] = core::array::from_fn(|n| {
                    let mut v = y[n];
                    for j in 0..i {
                        if tab.a[i][j] != 0.0 {
                            v += lc::<L>(tab.a[i][j]) * k[j][n];
                        }
                    }
                    v
                });
                f.eval(t + lc::<L>(tab.alpha[i]) * h, &yi)
            };
            let hg = h * lc::<L>(tab.gamma_sum[i]);
            let rhs: [L; N] = core::array::from_fn(|n| {
                let mut v = fi[n];
                for j in 0..i {
                    v += lc::<L>(tab.c[i][j]) * inv_h * k[j][n];
                }
                if tab.gamma_sum[i] != 0.0 {
                    v += hg * lin.dfdt[n];
                }
                v
            });
            k[i] = lu.solve(rhs);
        }
        let y1: [L; N] = core::array::from_fn(|n| {
            let mut v = y[n];
            for (j, kj) in k.iter().enumerate() {
                if tab.m[j] != 0.0 {
                    v += lc::<L>(tab.m[j]) * kj[n];
                }
            }
            v
        });
        let err: [L; N] = core::array::from_fn(|n| {
            let mut v = zero;
            for (j, kj) in k.iter().enumerate() {
                if tab.e[j] != 0.0 {
                    v += lc::<L>(tab.e[j]) * kj[n];
                }
            }
            v
        });
        Attempt {
            y: y1,
            err,
            singular: lu.singular,
        }
    }
}

/// `d = 1 / (2 + sqrt 2)`, the diagonal of Rosenbrock23's `W`.
const D: f64 = 1.0 / (2.0 + core::f64::consts::SQRT_2);
/// `e32 = 6 + sqrt 2`.
const E32: f64 = 6.0 + core::f64::consts::SQRT_2;

/// One attempted Rosenbrock23 step of every sample not done yet: [`rosenbrock23_step_to`]
/// with no save time.
#[inline(always)]
pub fn rosenbrock23_step<L: Lane, F: Jacobian<L, N>, C: Controller, const N: usize>(
    f: &F,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
) -> StepOutcome<L::Mask> {
    rosenbrock23_step_to(f, state, settings, ctl, lc::<L>(f64::INFINITY))
}

/// One attempted Rosenbrock23 step (see the module docs), landing on `t_end` and on
/// `next_save` exactly, accepted or rejected as [`super::adaptive_step_to`] does (the same
/// norm, controller and counters, with `q = 2`). Where `W` is singular (a zero or non-finite
/// pivot) the step is rejected and [`StepOutcome::singular`] is set. The same as
/// `adaptive_step_to(f, &ROSENBROCK23, ..)`.
#[inline(always)]
pub fn rosenbrock23_step_to<L: Lane, F: Jacobian<L, N>, C: Controller, const N: usize>(
    f: &F,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
    next_save: L,
) -> StepOutcome<L::Mask> {
    adaptive_step_to(f, &ROSENBROCK23, state, settings, ctl, next_save)
}

/// Rosenbrock23 (MATLAB's `ode23s` pair, see the module docs) as a value ([`ROSENBROCK23`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rosenbrock23;

/// Rosenbrock23 as a value, for `adaptive_step_to` and `#[problem(method = ..)]`.
pub const ROSENBROCK23: Rosenbrock23 = Rosenbrock23;

impl<L: Lane, F: Jacobian<L, N>, const N: usize> AdaptiveMethod<L, N, F> for Rosenbrock23 {
    #[inline(always)]
    fn error_order(&self) -> u32 {
        2
    }

    #[inline(always)]
    fn attempt(&self, f: &F, t: L, y: &[L; N], h: L, t_new: L) -> Attempt<L, N> {
        let y = *y;
        let lin = f.linearize(t, &y);
        let hd = h * lc::<L>(D);
        let (zero, one) = (lc::<L>(0.0), lc::<L>(1.0));
        let w: [[L; N]; N] = core::array::from_fn(|i| {
            core::array::from_fn(|j| (if i == j { one } else { zero }) - hd * lin.jac[i][j])
        });
        let lu = lu_factor(w);
        let f0 = lin.f;
        let hdt: [L; N] = core::array::from_fn(|i| hd * lin.dfdt[i]);

        let k1 = lu.solve(core::array::from_fn(|i| f0[i] + hdt[i]));
        let half = h * lc::<L>(0.5);
        let f1 = f.eval(t + half, &core::array::from_fn(|i| y[i] + half * k1[i]));
        let mut k2 = lu.solve(core::array::from_fn(|i| f1[i] - k1[i]));
        for i in 0..N {
            k2[i] += k1[i];
        }
        let y1: [L; N] = core::array::from_fn(|i| y[i] + h * k2[i]);
        let f2 = f.eval(t_new, &y1);
        let (e32, two) = (lc::<L>(E32), lc::<L>(2.0));
        let k3 = lu.solve(core::array::from_fn(|i| {
            f2[i] - e32 * (k2[i] - f1[i]) - two * (k1[i] - f0[i]) + hdt[i]
        }));
        let sixth = h / lc::<L>(6.0);
        let err: [L; N] = core::array::from_fn(|i| sixth * (k1[i] - two * k2[i] + k3[i]));
        Attempt {
            y: y1,
            err,
            singular: lu.singular,
        }
    }
}
