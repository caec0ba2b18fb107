//! The card's stiff workloads: Robertson's chemical kinetics and HIRES, Rodas5P with the
//! Jacobian by dual numbers (`crate::dual`), f64.

use crate::prelude::*;

/// Robertson's kinetics, three species: `y1' = -k1 y1 + k3 y2 y3`, `y2' = k1 y1 - k2 y2^2 -
/// k3 y2 y3`, `y3' = k2 y2^2`, rates per sample; Rodas5P (adaptive).
#[problem(host_code = "where_used", method = "rodas5p")]
pub fn robertson_rodas5p(
    _t: Scalar,
    y: &[Scalar; 3],
    k1: Scalar,
    k2: Scalar,
    k3: Scalar,
) -> [Scalar; 3] {
    crate::models::robertson(y, k1, k2, k3)
}

/// HIRES, the 8-state photomorphogenesis problem (Hairer and Wanner II, IV.10), with the
/// rate of `y1 -> y2` (1.71) scaled by `p` per sample; Rodas5P (adaptive).
#[problem(host_code = "where_used", method = "rodas5p")]
pub fn hires_rodas5p(_t: Scalar, y: &[Scalar; 8], p: Scalar) -> [Scalar; 8] {
    crate::models::hires(y, p)
}
