use hawk::prelude::*;

// A Rosenbrock method solves a linear system of the state's length: at most 16.
#[problem(method = "rodas5p")]
pub fn too_long(_t: Scalar, y: &[Scalar; 17]) -> [Scalar; 17] {
    *y
}

// Events are not available with a Rosenbrock method yet.
#[problem(method = "rosenbrock23", event(when = low, then = "terminate"))]
pub fn with_event(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[helper]
pub fn low(_t: Scalar, y: &[Scalar; 1]) -> Scalar {
    y[0] - Scalar::splat(0.5)
}

fn main() {}
