// Methods and controllers named by value: a library pair by path, a user's own tableau
// (adaptive, and at a fixed step), Verner's pairs by their short names, a PI controller,
// a Rosenbrock method with an event, and `debug` (prints the expansion while compiling).
use hawk::methods::{PiControl, Tableau};
use hawk::prelude::*;

const BS32: Tableau<4> = Tableau {
    name: "Bogacki-Shampine 3(2)",
    c: [0.0, 0.5, 0.75, 1.0],
    a: [
        [0.0; 4],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.75, 0.0, 0.0],
        [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
    ],
    b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
    b_embedded: [7.0 / 24.0, 0.25, 1.0 / 3.0, 0.125],
    order: 3,
    embedded_order: 2,
};

#[problem(method = hawk::methods::TSIT5, host_loops = "portable")]
pub fn by_path(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = BS32, controller = PiControl::GUSTAFSSON, debug, host_loops = "portable")]
pub fn own_pair(_t: Scalar, y: &[Scalar; 1], k: Scalar) -> [Scalar; 1] {
    [-k * y[0]]
}

#[problem(method = fixed(BS32), host_loops = "portable")]
pub fn own_fixed(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = "vern7", host_loops = "portable")]
pub fn verner7(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = "vern9", controller = hawk::methods::StepControl { fac_max: 3.0, ..hawk::methods::StepControl::DEFAULT }, host_loops = "portable")]
pub fn verner9(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[problem(method = "rosenbrock23", event(when = low, then = "terminate"), host_loops = "portable")]
pub fn stiff_event(_t: Scalar, y: &[Scalar; 1]) -> [Scalar; 1] {
    [-y[0]]
}

#[helper]
pub fn low(_t: Scalar, y: &[Scalar; 1]) -> Scalar {
    y[0] - Scalar::splat(0.5)
}

fn main() {
    let _ = (OwnPair, OwnFixed, Verner7, Verner9, StiffEvent, ByPath);
}
