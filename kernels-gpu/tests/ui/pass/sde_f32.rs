//! Stochastic problems in f32: every method, and the kernel body run on one lane.
use hawk::prelude::*;

#[helper(real = "f32")]
fn vol(_t: Scalar, y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    [sigma * y[0], sigma * y[1]]
}

#[helper(real = "f32")]
fn vol_dy(_t: Scalar, _y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    [sigma, sigma]
}

#[problem(method = "euler_maruyama", real = "f32", diffusion = vol)]
fn em(_t: Scalar, y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    let _ = sigma;
    [-y[0], -y[1]]
}

#[problem(method = "milstein", real = "f32", diffusion = vol, derivative = vol_dy)]
fn mil(_t: Scalar, y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    let _ = sigma;
    [-y[0], -y[1]]
}

#[problem(method = "milstein", real = "f32", diffusion = vol, derivative = "finite_difference")]
fn mil_free(_t: Scalar, y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    let _ = sigma;
    [-y[0], -y[1]]
}

#[problem(method = "sra1", real = "f32", diffusion = vol)]
fn sra(_t: Scalar, y: &[Scalar; 2], sigma: Param) -> [Scalar; 2] {
    let _ = sigma;
    [-y[0], -y[1]]
}

fn main() {
    // One step on one f32 lane: path 16777215 (the largest f32 key), step 0.
    let (mut done, mut failed) = (false, false);
    let (mut y, mut t, mut step) = ([1.0f32, 2.0], 0.0f32, 0.0f32);
    em::<f32>(0.5, 0.01, 1.0, 3.0, 16_777_215.0, &mut done, &mut failed, &mut y, &mut t, &mut step);
    assert_eq!((t, step, done, failed), (0.01, 1.0, false, false));
    assert!(y[0] != 0.99 && y[1] != 1.98, "noise was added: {y:?}");
    // A step count at the f32 limit fails the sample.
    let mut step = 16_777_216.0f32;
    sra::<f32>(0.5, 0.01, 1.0, 3.0, 1.0, &mut done, &mut failed, &mut y, &mut t, &mut step);
    assert!(failed);
    let _ = (mil::<f32>, mil_free::<f32>);
}
