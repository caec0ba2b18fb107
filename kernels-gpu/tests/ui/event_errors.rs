use hawk::prelude::*;

#[helper]
fn ground(_t: Scalar, y: &[Scalar; 2]) -> Scalar {
    y[0]
}

#[problem(method = "rk4", event(when = ground, then = "terminate"), max_events = 0)]
fn zero_record(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[problem(method = "rk4", event(when = ground, direction = "up", then = "terminate"))]
fn bad_direction(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[problem(method = "rk4", event(when = ground, then = 5))]
fn bad_action(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[problem(method = "rk4", event(then = "count"))]
fn no_condition(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[problem(method = "rk4", event(when = ground, then = "count"), when_full = "stop")]
fn no_record(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[helper]
fn branchy(_t: Scalar, y: &[Scalar; 2]) -> Scalar {
    if y[0].simd_gt(Scalar::splat(0.0)).any() { y[0] } else { y[1] }
}

#[problem(method = "rk4", stop(times = 0))]
fn no_stop_times(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

#[problem(method = "rk4", stop(then = ground))]
fn stop_without_times(_t: Scalar, y: &[Scalar; 2]) -> [Scalar; 2] {
    [y[1], -y[0]]
}

fn main() {}
