use hawk::prelude::*;

#[helper]
fn vol(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    [sigma * y[0]]
}

#[problem(method = "milstein", diffusion = vol)]
fn no_derivative(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[problem(method = "euler_maruyama")]
fn no_diffusion(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[problem(method = "rk4", diffusion = vol)]
fn diffusion_without_sde(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[problem(method = "sra1", diffusion = vol, derivative = "finite_difference")]
fn derivative_not_used(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[problem(method = "milstein", diffusion = vol, derivative = "numeric")]
fn bad_derivative(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[helper]
fn ground(_t: Scalar, y: &[Scalar; 1], _sigma: Param) -> Scalar {
    y[0]
}

#[problem(method = "euler_maruyama", diffusion = vol, event(when = ground, then = "terminate"))]
fn events_with_sde(_t: Scalar, y: &[Scalar; 1], sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [y[0]]
}

#[helper]
fn none(_t: Scalar, _y: &[Scalar; 0]) -> [Scalar; 0] {
    []
}

#[problem(method = "euler_maruyama", diffusion = none)]
fn no_channels(_t: Scalar, _y: &[Scalar; 0]) -> [Scalar; 0] {
    []
}

fn main() {}
