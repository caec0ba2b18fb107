// `contract` rewrites `a * b + c` whatever the operands' type; one that is no lane, real or
// integer is an error at the operator, saying how to keep the product apart.
use core::ops::{Add, Mul};

#[derive(Clone, Copy)]
struct Money(i64);

impl Mul for Money {
    type Output = Money;
    fn mul(self, o: Money) -> Money {
        Money(self.0 * o.0)
    }
}

impl Add for Money {
    type Output = Money;
    fn add(self, o: Money) -> Money {
        Money(self.0 + o.0)
    }
}

#[hawk::contract]
fn interest(a: Money, b: Money, c: Money) -> Money {
    a * b + c
}

fn main() {
    let _ = interest(Money(1), Money(2), Money(3));
}
