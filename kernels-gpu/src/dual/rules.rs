//! The elementary functions of [`crate::math`] on [`Dual`](super::Dual)s: each value from
//! the lane's own function, each derivative by the chain rule.

/// The lane constant `v` (an `f64` literal converted to the element type).
#[inline(always)]
pub(super) fn c<L: crate::Lane>(v: f64) -> L {
    L::splat(<L::Elem as crate::Real>::from_f64(v))
}

/// The math methods of `Lane` for `Dual<L, D>` (expanded inside its `impl Lane`).
macro_rules! dual_math_methods {
    () => {
        #[inline(always)]
        fn sin(self) -> Self {
            let (s, co) = self.v.sin_cos();
            self.chain(s, co)
        }
        #[inline(always)]
        fn cos(self) -> Self {
            let (s, co) = self.v.sin_cos();
            self.chain(co, -s)
        }
        #[inline(always)]
        fn sin_cos(self) -> (Self, Self) {
            let (s, co) = self.v.sin_cos();
            (self.chain(s, co), self.chain(co, -s))
        }
        /// `tan' = 1 + tan^2`.
        #[inline(always)]
        fn tan(self) -> Self {
            let t = self.v.tan();
            self.chain(t, t.mul_add(t, super::rules::c(1.0)))
        }
        /// `asin' = 1 / sqrt(1 - x^2)`.
        #[inline(always)]
        fn asin(self) -> Self {
            let one = super::rules::c::<L>(1.0);
            self.chain(self.v.asin(), one / (one - self.v * self.v).sqrt())
        }
        /// `acos' = -1 / sqrt(1 - x^2)`.
        #[inline(always)]
        fn acos(self) -> Self {
            let one = super::rules::c::<L>(1.0);
            self.chain(self.v.acos(), -(one / (one - self.v * self.v).sqrt()))
        }
        /// `atan' = 1 / (1 + x^2)`.
        #[inline(always)]
        fn atan(self) -> Self {
            let one = super::rules::c::<L>(1.0);
            self.chain(self.v.atan(), one / self.v.mul_add(self.v, one))
        }
        /// `atan2(y, x)' = (x y' - y x') / (x^2 + y^2)`.
        #[inline(always)]
        fn atan2(self, x: Self) -> Self {
            let r2 = x.v * x.v + self.v * self.v;
            Dual {
                v: self.v.atan2(x.v),
                d: core::array::from_fn(|k| (x.v * self.d[k] - self.v * x.d[k]) / r2),
            }
        }
        #[inline(always)]
        fn sinh(self) -> Self {
            self.chain(self.v.sinh(), self.v.cosh())
        }
        #[inline(always)]
        fn cosh(self) -> Self {
            self.chain(self.v.cosh(), self.v.sinh())
        }
        /// `tanh' = 1 - tanh^2`.
        #[inline(always)]
        fn tanh(self) -> Self {
            let t = self.v.tanh();
            self.chain(t, (-t).mul_add(t, super::rules::c(1.0)))
        }
        #[inline(always)]
        fn exp(self) -> Self {
            let e = self.v.exp();
            self.chain(e, e)
        }
        /// `(2^x)' = 2^x ln 2`.
        #[inline(always)]
        fn exp2(self) -> Self {
            let e = self.v.exp2();
            self.chain(e, e * L::splat(<L::Elem as crate::math::Consts>::LN2))
        }
        /// `(e^x - 1)' = e^x`.
        #[inline(always)]
        fn exp_m1(self) -> Self {
            let e = self.v.exp_m1();
            self.chain(e, e + super::rules::c(1.0))
        }
        #[inline(always)]
        fn ln(self) -> Self {
            self.chain(self.v.ln(), self.v.recip())
        }
        /// `log2' = log2(e) / x`.
        #[inline(always)]
        fn log2(self) -> Self {
            let k = L::splat(<L::Elem as crate::math::Consts>::LOG2E);
            self.chain(self.v.log2(), k / self.v)
        }
        /// `log10' = log10(e) / x`.
        #[inline(always)]
        fn log10(self) -> Self {
            let k = L::splat(<L::Elem as crate::math::Consts>::LOG10E);
            self.chain(self.v.log10(), k / self.v)
        }
        /// `ln(1 + x)' = 1 / (1 + x)`.
        #[inline(always)]
        fn ln_1p(self) -> Self {
            self.chain(self.v.ln_1p(), (self.v + super::rules::c(1.0)).recip())
        }
        /// `(x^e)' = e x^(e-1) x' + x^e ln(x) e'`; the second term only along directions where
        /// `e'` is not zero (a constant exponent of a negative base stays finite).
        #[inline(always)]
        fn powf(self, e: Self) -> Self {
            let zero = super::rules::c::<L>(0.0);
            let p = self.v.powf(e.v);
            let dx = e.v * self.v.powf(e.v - super::rules::c(1.0));
            let pl = p * self.v.ln();
            Dual {
                v: p,
                d: core::array::from_fn(|k| {
                    let de = L::select(e.d[k].simd_eq(zero), zero, pl * e.d[k]);
                    dx.mul_add(self.d[k], de)
                }),
            }
        }
        /// `(x^n)' = n x^(n-1)`.
        #[inline(always)]
        fn powi(self, n: i32) -> Self {
            let dfdx = if n == 0 {
                super::rules::c(0.0)
            } else {
                super::rules::c::<L>(n as f64) * self.v.powi(n - 1)
            };
            self.chain(self.v.powi(n), dfdx)
        }
        /// `cbrt' = 1 / (3 cbrt^2)`.
        #[inline(always)]
        fn cbrt(self) -> Self {
            let r = self.v.cbrt();
            self.chain(r, (super::rules::c::<L>(3.0) * r * r).recip())
        }
        /// `hypot(a, b)' = (a a' + b b') / hypot(a, b)`.
        #[inline(always)]
        fn hypot(self, o: Self) -> Self {
            let h = self.v.hypot(o.v);
            Dual {
                v: h,
                d: core::array::from_fn(|k| (self.v * self.d[k] + o.v * o.d[k]) / h),
            }
        }
        /// `(1 / x)' = -1 / x^2`.
        #[inline(always)]
        fn recip(self) -> Self {
            let r = self.v.recip();
            self.chain(r, -(r * r))
        }
        #[inline(always)]
        fn floor(self) -> Self {
            self.chain(self.v.floor(), super::rules::c(0.0))
        }
        #[inline(always)]
        fn ceil(self) -> Self {
            self.chain(self.v.ceil(), super::rules::c(0.0))
        }
        #[inline(always)]
        fn round(self) -> Self {
            self.chain(self.v.round(), super::rules::c(0.0))
        }
        #[inline(always)]
        fn trunc(self) -> Self {
            self.chain(self.v.trunc(), super::rules::c(0.0))
        }
        /// `fract' = 1`.
        #[inline(always)]
        fn fract(self) -> Self {
            Dual {
                v: self.v.fract(),
                d: self.d,
            }
        }
        /// The derivative flips where the sign does.
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            let one = super::rules::c::<L>(1.0);
            let flip = one.copysign(self.v) * one.copysign(sign.v);
            self.chain(self.v.copysign(sign.v), flip)
        }
        #[inline(always)]
        fn signum(self) -> Self {
            self.chain(self.v.signum(), super::rules::c(0.0))
        }
    };
}
pub(super) use dual_math_methods;
