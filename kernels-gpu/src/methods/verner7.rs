//! Verner's "most efficient" 10-stage embedded pair 7(6), propagating the order-7 solution.
//!
//! Source: J. H. Verner, "Numerically optimal Runge-Kutta pairs with interpolants",
//! Numerical Algorithms 53 (2010) 383-396, the most efficient 7(6) pair of his coefficient
//! files. The digits were read from SciML's OrdinaryDiffEq.jl,
//! `lib/OrdinaryDiffEqVerner/src/verner_tableaus.jl` (commit `b211787f`), the exact rational
//! coefficients of the generic `Vern7Tableau` constructor (with the embedded weights `bhat`
//! from its commented lines). Verner's newer RKV76.IIa (2024), also in that file, is a
//! different pair.
//!
//! Notes on the data:
//! - Only the 10 stages of the pair are here; the extra stages of Verner's interpolants are
//!   not (the pair is not first-same-as-last: stage 9 is not the propagated solution).
//! - Rationals whose numerator and denominator are below `2^53` are written as `p / q`
//!   (both exact in `f64`, so the quotient is correctly rounded). The others (up to 72
//!   digits) are written as decimals to 20 significant digits, evaluated from the exact
//!   rationals (SymPy, 40 digits); so every entry is the `f64` nearest to Verner's
//!   coefficient. (The file's own `Float64` table agrees within 1 ulp.) The first column is
//!   therefore not recomputed from the row sums; the row sums hold to a few ulps.
//! - The source stores the error weights `btilde = b - bhat`; `b_embedded` here is `bhat`
//!   itself, which the order-6 conditions in the tests confirm (and `b - bhat == btilde`
//!   holds exactly in the rationals).
// More digits than `f64` holds, on purpose (they are correctly rounded when parsed).
#![allow(clippy::excessive_precision)]

use super::tableau::{Tableau, row};

/// Verner's most efficient 7(6), 10 stages: propagates order 7, error estimate of order 6.
pub const VERN7: Tableau<10> = Tableau {
    name: "Verner 7(6) efficient",
    c: [
        0.0,
        1.0 / 200.0,
        49.0 / 450.0,
        49.0 / 300.0,
        911.0 / 2000.0,
        3480084980.0 / 5709648941.0,
        221.0 / 250.0,
        37.0 / 40.0,
        1.0,
        1.0,
    ],
    a: [
        row(&[]),
        row(&[1.0 / 200.0]),
        row(&[-4361.0 / 4050.0, 2401.0 / 2025.0]),
        row(&[49.0 / 1200.0, 0.0, 49.0 / 400.0]),
        row(&[
            2454451729.0 / 3841600000.0,
            0.0,
            -9433712007.0 / 3841600000.0,
            4364554539.0 / 1920800000.0,
        ]),
        row(&[
            -2.6615773750187571311,
            0.0,
            10.804513886456137696,
            -8.3539146573961994120,
            0.82048759495665697914,
        ]),
        row(&[
            6.0677414346967709927,
            0.0,
            -24.711273635911085797,
            20.427517930788893940,
            -1.9061579788166471506,
            1.0061722492420680148,
        ]),
        row(&[
            12.054670076253202995,
            0.0,
            -1990261989751005.0 / 40001418792832.0,
            41.142888638604676633,
            -4.4617601499740041856,
            2.0423348222391749598,
            -0.098348436654061073795,
        ]),
        row(&[
            10.138146522881807876,
            0.0,
            -42.641136031717502146,
            35.763840039922570071,
            -4.3480228403929076533,
            2.0098622683770358954,
            0.34874904603382724060,
            -0.27143900510483128424,
        ]),
        row(&[
            -45.030072034298677124,
            0.0,
            187.32724376545888408,
            -154.02882369350186906,
            18.564653063475362339,
            -7.1418096792950788549,
            1.3088085781613786251,
        ]),
    ],
    b: [
        0.047155618486272221704,
        0.0,
        0.0,
        0.25750564298434151896,
        0.26216653977412620477,
        0.15216092656738557403,
        0.49399691700324842469,
        -0.29430311714032504416,
        0.081317472324951099997,
        0.0,
    ],
    b_embedded: [
        117807213929927.0 / 2640907728177740.0,
        0.0,
        0.0,
        0.26716403785713726805,
        0.22010183001772930200,
        0.21884317031431568310,
        0.22898717054112028834,
        0.0,
        0.0,
        0.020295184663356282228,
    ],
    order: 7,
    embedded_order: 6,
};
