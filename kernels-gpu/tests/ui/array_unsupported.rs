use hawk::prelude::*;

// A mutable table, a table by value and an array time plane are not kernel arguments.
#[kernel]
pub fn mutable_table(terminated: &mut Terminated, w: &mut [Param; 3], x: &mut Scalar) {
    *terminated = x.simd_ge(Scalar::splat(1.0));
}

#[kernel]
pub fn table_by_value(terminated: &mut Terminated, w: [Param; 3], x: &mut Scalar) {
    *terminated = x.simd_ge(Scalar::splat(1.0));
}

#[kernel(time = u)]
pub fn array_time(terminated: &mut Terminated, u: &mut [Scalar; 2]) {
    *terminated = u[0].simd_ge(Scalar::splat(1.0));
}

fn main() {}
