use hawk::prelude::*;

// A controller steers an adaptive method only.
#[problem(method = "rk4", controller = hawk::methods::PiControl::GUSTAFSSON)]
pub fn fixed_with_controller(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

// A method is a string, a path to a value, or `fixed(value)`.
#[problem(method = 3)]
pub fn a_number(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

// RK4 has no error estimate: named as an adaptive method, the type says so.
#[problem(method = hawk::methods::RK4)]
pub fn rk4_as_adaptive(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

// A controller is a value whose type implements `Controller`.
#[problem(method = "tsit5", controller = 0.5)]
pub fn number_controller(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

fn main() {}
