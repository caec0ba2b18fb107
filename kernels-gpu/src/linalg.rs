//! Small dense linear systems in registers, one per sample: LU factorization with partial
//! pivoting and the solves that reuse it, for `N` up to [`MAX_DIM`].
//!
//! Generic over the [`Lane`]: every lane holds its own matrix, and a pivot choice, which
//! may differ between the lanes of a group, is a mask and [`Lane::select`]s (each candidate
//! row is swapped with the pivot row where it was chosen), never an `if` on a value. So the
//! scalar lane, every SIMD width and the GPU give the same bits.
//!
//! ```
//! use hawk::linalg::lu_factor;
//!
//! // [[0, 2], [4, 1]] x = [4, 6] needs a row swap: x = [1, 2].
//! let lu = lu_factor([[0.0_f64, 2.0], [4.0, 1.0]]);
//! assert!(!lu.singular);
//! assert_eq!(lu.solve([4.0, 6.0]), [1.0, 2.0]);
//! ```

use crate::lane::{Lane, Mask, Real};

/// The largest system [`lu_factor`] takes (a larger `N` is a compile-time error): `N^2`
/// lane values live in registers, and the work grows as `N^3`.
pub const MAX_DIM: usize = 16;

/// The lane constant `v`.
#[inline(always)]
fn c<L: Lane>(v: f64) -> L {
    L::splat(<L::Elem as Real>::from_f64(v))
}

/// An LU factorization `P A = L U` of one `N x N` matrix per lane.
#[derive(Clone, Copy, Debug)]
pub struct Lu<L: Lane, const N: usize> {
    /// `L` below the diagonal (its unit diagonal not stored) and `U` on and above it.
    pub lu: [[L; N]; N],
    /// `1 / U[k][k]`, so the solves multiply instead of divide.
    pub inv_diag: [L; N],
    /// The row swapped with row `k` at step `k` (a row index as a lane value, `>= k`).
    pub pivot: [L; N],
    /// Lanes whose matrix is singular to working precision: a pivot was zero, or not
    /// finite (a NaN or infinite entry). Their solves give non-finite values.
    pub singular: L::Mask,
}

/// Factors `a` (`a[i][j]`: row `i`, column `j`) with partial pivoting: at step `k` the row
/// at or below `k` with the largest `|a[i][k]|` (the first such) becomes the pivot row.
#[inline(always)]
pub fn lu_factor<L: Lane, const N: usize>(a: [[L; N]; N]) -> Lu<L, N> {
    const {
        assert!(
            N <= MAX_DIM,
            "hawk::linalg supports systems of at most MAX_DIM = 16 unknowns"
        )
    };
    let mut a = a;
    let one = c::<L>(1.0);
    let mut singular = L::Mask::splat(false);
    let mut pivot = [c::<L>(0.0); N];
    let mut inv_diag = [one; N];
    for k in 0..N {
        let mut best = a[k][k].abs();
        let mut p = c::<L>(k as f64);
        for (i, row) in a.iter().enumerate().skip(k + 1) {
            let v = row[k].abs();
            let m = v.simd_gt(best);
            best = L::select(m, v, best);
            p = L::select(m, c(i as f64), p);
        }
        for i in k + 1..N {
            let m = p.simd_eq(c(i as f64));
            for j in 0..N {
                let (rk, ri) = (a[k][j], a[i][j]);
                a[k][j] = L::select(m, ri, rk);
                a[i][j] = L::select(m, rk, ri);
            }
        }
        pivot[k] = p;
        // `!(best > 0)` also catches a NaN column.
        singular |= !best.simd_gt(c(0.0)) | !best.is_finite();
        let inv = one / a[k][k];
        inv_diag[k] = inv;
        for i in k + 1..N {
            let l = a[i][k] * inv;
            a[i][k] = l;
            for j in k + 1..N {
                a[i][j] -= l * a[k][j];
            }
        }
    }
    Lu {
        lu: a,
        inv_diag,
        pivot,
        singular,
    }
}

impl<L: Lane, const N: usize> Lu<L, N> {
    /// `x` with `A x = b`: the row swaps applied to `b`, then the two triangular solves.
    #[inline(always)]
    pub fn solve(&self, b: [L; N]) -> [L; N] {
        let mut x = b;
        for k in 0..N {
            for i in k + 1..N {
                let m = self.pivot[k].simd_eq(c(i as f64));
                let (xk, xi) = (x[k], x[i]);
                x[k] = L::select(m, xi, xk);
                x[i] = L::select(m, xk, xi);
            }
        }
        for i in 1..N {
            for j in 0..i {
                x[i] -= self.lu[i][j] * x[j];
            }
        }
        for i in (0..N).rev() {
            for j in i + 1..N {
                x[i] -= self.lu[i][j] * x[j];
            }
            x[i] *= self.inv_diag[i];
        }
        x
    }
}
