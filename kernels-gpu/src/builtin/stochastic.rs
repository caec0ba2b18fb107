//! The card's stochastic workloads: geometric Brownian motion for Monte Carlo option
//! pricing (Euler-Maruyama) and an Ornstein-Uhlenbeck ensemble (Rößler's SRA1, additive
//! noise), both f64, each path's noise keyed by `(seed, path)` and its step
//! ([`crate::random::Stream`]).

use crate::prelude::*;

/// Geometric Brownian motion `dS = mu S dt + sigma S dW`, Euler-Maruyama at a fixed `dt`
/// (until `t >= t_end - dt/2`).
#[problem(host_code = "where_used", method = "euler_maruyama", diffusion = gbm_vol)]
pub fn gbm_em(_t: Scalar, s: &[Scalar; 1], mu: Param, sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [mu * s[0]]
}

/// GBM's noise, `sigma S`.
#[helper]
pub fn gbm_vol(_t: Scalar, s: &[Scalar; 1], _mu: Param, sigma: Param) -> [Scalar; 1] {
    [sigma * s[0]]
}

/// Ornstein-Uhlenbeck `dx = theta (mean - x) dt + sigma dW`, each sample its own `theta`,
/// Rößler's SRA1 at a fixed `dt`.
#[problem(host_code = "where_used", method = "sra1", diffusion = ou_vol)]
pub fn ou_sra1(
    _t: Scalar,
    x: &[Scalar; 1],
    theta: Scalar,
    mean: Param,
    sigma: Param,
) -> [Scalar; 1] {
    let _ = sigma;
    [theta * (mean - x[0])]
}

/// The OU noise, `sigma` (additive).
#[helper]
pub fn ou_vol(
    _t: Scalar,
    _x: &[Scalar; 1],
    _theta: Scalar,
    _mean: Param,
    sigma: Param,
) -> [Scalar; 1] {
    [sigma]
}
