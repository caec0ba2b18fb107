use hawk::prelude::*;

// A Rosenbrock method solves a linear system of the state's length: at most 16.
#[problem(method = "rodas5p")]
pub fn too_long(_t: Scalar, y: &[Scalar; 17]) -> [Scalar; 17] {
    *y
}

fn main() {}
