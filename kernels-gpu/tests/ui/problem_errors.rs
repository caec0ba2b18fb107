use hawk::prelude::*;

// A problem needs a method, a known one, and the right-hand side's shape.
#[problem]
pub fn no_method(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = "euler")]
pub fn unknown(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = "rk4")]
pub fn not_an_array(_t: Scalar, y: &mut Scalar) -> Scalar {
    -*y
}

fn main() {}
