//! [`Fused`]: what `#[kernel(contract)]` and `#[contract]` rewrite multiply-adds into.

use crate::lane::Lane;

/// A multiply-add that a contracted body fuses: one rounding for lanes and reals (their
/// [`Lane::mul_add`]: `vfmadd` on the host, `fma.rn` on the GPU, a correctly rounded `fma`
/// on the emulated device, so every team gives the same bits), the plain operations for
/// integers (index arithmetic is left as it was).
#[diagnostic::on_unimplemented(
    message = "`contract` fuses multiply-adds of lanes, reals and integers, not of `{Self}`",
    label = "a multiply-add of `{Self}` values, rewritten by `contract`",
    note = "bind the product with `let` to keep it out of the rewrite: `let p = a * b; p + c`"
)]
pub trait Fused: Copy {
    /// `self * b + c`.
    fn fused_mul_add(self, b: Self, c: Self) -> Self;
    /// `self * b - c`.
    fn fused_mul_sub(self, b: Self, c: Self) -> Self;
    /// `c - self * b`.
    fn fused_neg_mul_add(self, b: Self, c: Self) -> Self;
}

impl<L: Lane> Fused for L {
    #[inline(always)]
    fn fused_mul_add(self, b: L, c: L) -> L {
        self.mul_add(b, c)
    }
    // Negation is exact, so each is the exact value rounded once.
    #[inline(always)]
    fn fused_mul_sub(self, b: L, c: L) -> L {
        self.mul_add(b, -c)
    }
    #[inline(always)]
    fn fused_neg_mul_add(self, b: L, c: L) -> L {
        (-self).mul_add(b, c)
    }
}

macro_rules! unfused_integers {
    ($($t:ty),*) => {$(
        impl Fused for $t {
            #[inline(always)]
            fn fused_mul_add(self, b: $t, c: $t) -> $t {
                self * b + c
            }
            #[inline(always)]
            fn fused_mul_sub(self, b: $t, c: $t) -> $t {
                self * b - c
            }
            #[inline(always)]
            fn fused_neg_mul_add(self, b: $t, c: $t) -> $t {
                c - self * b
            }
        }
    )*};
}
unfused_integers!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

#[cfg(test)]
mod tests {
    use super::Fused;

    const TWO_TO_MINUS_54: f64 = 5.551115123125783e-17;

    #[test]
    fn reals_round_once_integers_compute_as_written() {
        // 0.1 * 10 - 1 is 2^-54 exactly: two roundings lose it, one keeps it.
        let (a, b, c) = (0.1f64, 10.0, 1.0);
        assert_eq!(a * b - c, 0.0);
        assert_eq!(a.fused_mul_sub(b, c), TWO_TO_MINUS_54);
        assert_eq!(a.fused_mul_add(b, -c), TWO_TO_MINUS_54);
        assert_eq!((-a).fused_neg_mul_add(b, -c), TWO_TO_MINUS_54);
        assert_eq!(3usize.fused_mul_add(4, 5), 17);
        assert_eq!(3usize.fused_mul_sub(4, 5), 7);
        assert_eq!(3usize.fused_neg_mul_add(4, 13), 1);
    }
}
