//! Tsitouras' 7-stage embedded pair 5(4) ("Tsit5"), propagating the order-5 solution.
//!
//! Source: Ch. Tsitouras, "Runge-Kutta pairs of order 5(4) satisfying only the first column
//! simplifying assumption", Computers & Mathematics with Applications 62 (2011) 770-775,
//! Table 1 (16-digit decimals).
//!
//! Notes on the data:
//! - The first column of rows 1 to 5 is computed in `f64` as `c_i - sum_{j>=1} a_ij` (that is
//!   how the paper defines it), so the row sums hold to rounding.
//! - The paper prints the error weights `b_i - bhat_i`, with a sign error on the last one;
//!   `b_embedded` here is `b - e` with `e_6 = -1/66`, as in the common implementations; the
//!   order-4 conditions in the tests confirm the sign.
//! - The pair is first-same-as-last (row 6 of `a` equals `b`), but [`adaptive_step`]
//!   (super::adaptive_step) keeps no stage between calls, so a step costs 7 evaluations.
// The published digits are kept verbatim (trailing zeros included).
#![allow(clippy::excessive_precision)]

use super::tableau::{Tableau, row, with_first_column};

const C: [f64; 7] = [0.0, 0.161, 0.327, 0.9, 0.9800255409045097, 1.0, 1.0];

const B: [f64; 7] = [
    0.09646076681806523,
    0.01,
    0.4798896504144996,
    1.379008574103742,
    -3.290069515436081,
    2.324710524099774,
    0.0,
];

/// `b - bhat` as published (with the last sign corrected).
const E: [f64; 7] = [
    0.001780011052226,
    0.000816434459657,
    -0.007880878010262,
    0.144711007173263,
    -0.582357165452555,
    0.458082105929187,
    -1.0 / 66.0,
];

const fn embedded() -> [f64; 7] {
    let mut out = [0.0; 7];
    let mut i = 0;
    while i < 7 {
        out[i] = B[i] - E[i];
        i += 1;
    }
    out
}

/// Tsitouras 5(4), 7 stages: propagates order 5, error estimate of order 4.
pub const TSIT5: Tableau<7> = Tableau {
    name: "Tsitouras 5(4)",
    c: C,
    a: with_first_column(
        [
            row(&[]),
            row(&[0.0]),
            row(&[0.0, 0.3354806554923570]),
            row(&[0.0, -6.359448489975075, 4.362295432869581]),
            row(&[
                0.0,
                -11.74888356406283,
                7.495539342889836,
                -0.09249506636175525,
            ]),
            row(&[
                0.0,
                -12.92096931784711,
                8.159367898576159,
                -0.07158497328140100,
                -0.02826905039406838,
            ]),
            B,
        ],
        &C,
        6,
    ),
    b: B,
    b_embedded: embedded(),
    order: 5,
    embedded_order: 4,
};
