//! Philox4x32-10 against the known-answer vectors of Random123's `kat_vectors` file (the
//! three `philox4x32 10` lines: counter, key, expected output) and an independent
//! implementation (randomgen); the lanes against the one-block function; the variates'
//! layout, range and moments.
#![feature(portable_simd)]

use hawk::Lane;
use hawk::random::{Stream, philox_lanes, philox4x32_10};
use std::simd::Simd;

#[test]
fn philox4x32_10_reproduces_random123_known_answers() {
    let cases: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0; 4],
            [0; 2],
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
        ),
        (
            [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
            [0xa409_3822, 0x299f_31d0],
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
        ),
    ];
    for (counter, key, want) in cases {
        assert_eq!(
            philox4x32_10(counter, key),
            want,
            "counter {counter:x?}, key {key:x?}"
        );
    }
}

#[test]
fn neighbouring_counters_and_keys_give_unrelated_blocks() {
    // A bijection of the counter for each key: distinct counters, distinct blocks; and one
    // flipped bit of the counter or key changes about half of the 128 output bits.
    let base = philox4x32_10([1, 2, 3, 4], [5, 6]);
    for bit in 0..32 {
        let flipped = philox4x32_10([1 ^ (1 << bit), 2, 3, 4], [5, 6]);
        let changed: u32 = base
            .iter()
            .zip(&flipped)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        assert!(
            (32..=96).contains(&changed),
            "counter bit {bit}: {changed} bits"
        );
        let rekeyed = philox4x32_10([1, 2, 3, 4], [5 ^ (1 << bit), 6]);
        let changed: u32 = base
            .iter()
            .zip(&rekeyed)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        assert!(
            (32..=96).contains(&changed),
            "key bit {bit}: {changed} bits"
        );
    }
}

/// Blocks from the `randomgen` package's `Philox(number=4, width=32)` (version 2.5.1), an
/// implementation independent of Random123's and of ours, printed by
/// `python3 scripts/philox_randomgen.py` (counter, key, block).
const RANDOMGEN: [([u32; 4], [u32; 2], [u32; 4]); 6] = [
    (
        [0x00000001, 0x00000000, 0x00000000, 0x00000000],
        [0x00000000, 0x00000000],
        [0xf8e4cca4, 0x5cb200db, 0xb1a574eb, 0x097eff67],
    ),
    (
        [0x00000000, 0x00000000, 0x00000001, 0x00000000],
        [0x00000007, 0x00000003],
        [0xc6ebeca9, 0x15e80db7, 0x54259455, 0x6f952904],
    ),
    (
        [0x000000fb, 0x00000000, 0x00000000, 0x00000000],
        [0x0000002a, 0x000f423f],
        [0x3d374e24, 0x0992a0c4, 0xcb9ed5ee, 0x283d9161],
    ),
    (
        [0xffffffff, 0x000fffff, 0x00000005, 0x00000000],
        [0xdeadbeef, 0x12345678],
        [0x2a913f43, 0xab153f65, 0xc81e819b, 0x81c48ef3],
    ),
    (
        [0x00003039, 0x00000000, 0x00000002, 0x00000000],
        [0x00000001, 0xffffffff],
        [0xd016848b, 0xcb724437, 0xfa3a39f2, 0x28902ab9],
    ),
    (
        [0x89abcdef, 0x01234567, 0x76543210, 0xfedcba98],
        [0x0f1e2d3c, 0x4b5a6978],
        [0x5ee5d3fd, 0x61d542d7, 0xf7efcdb8, 0xd60f8f2b],
    ),
];

#[test]
fn philox4x32_10_agrees_with_randomgen() {
    for (counter, key, want) in RANDOMGEN {
        assert_eq!(
            philox4x32_10(counter, key),
            want,
            "counter {counter:x?}, key {key:x?}"
        );
    }
}

/// A scrambled but reproducible word for case `i`, slot `j`.
fn word(i: u64, j: u64) -> u32 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ j.wrapping_mul(0xBF58_476D_1CE4_E5B9)).rotate_left(17)
        as u32
}

#[test]
fn lanes_give_the_one_block_function_lane_by_lane() {
    const N: usize = 8;
    for case in 0..64u64 {
        let c: [[u32; 4]; N] = core::array::from_fn(|l| {
            core::array::from_fn(|j| word(case * 97 + l as u64, j as u64))
        });
        let k: [[u32; 2]; N] = core::array::from_fn(|l| {
            core::array::from_fn(|j| word(case * 31 + l as u64, 9 + j as u64))
        });
        let want: [[u32; 4]; N] = core::array::from_fn(|l| philox4x32_10(c[l], k[l]));
        // 64-bit lanes (f64 kernels): the words zero-extended.
        let c64: [Simd<i64, N>; 4] = core::array::from_fn(|j| {
            Simd::from_array(core::array::from_fn(|l| i64::from(c[l][j])))
        });
        let k64: [Simd<i64, N>; 2] = core::array::from_fn(|j| {
            Simd::from_array(core::array::from_fn(|l| i64::from(k[l][j])))
        });
        let r64 = philox_lanes(c64, k64);
        // 32-bit lanes (f32 kernels): the words' bits.
        let c32: [Simd<i32, N>; 4] =
            core::array::from_fn(|j| Simd::from_array(core::array::from_fn(|l| c[l][j] as i32)));
        let k32: [Simd<i32, N>; 2] =
            core::array::from_fn(|j| Simd::from_array(core::array::from_fn(|l| k[l][j] as i32)));
        let r32 = philox_lanes(c32, k32);
        for l in 0..N {
            let scalar64 = philox_lanes(c[l].map(i64::from), k[l].map(i64::from));
            let scalar32 = philox_lanes(c[l].map(|w| w as i32), k[l].map(|w| w as i32));
            for j in 0..4 {
                assert_eq!(
                    r64[j][l],
                    i64::from(want[l][j]),
                    "case {case} lane {l} word {j}"
                );
                assert_eq!(
                    r32[j][l] as u32, want[l][j],
                    "case {case} lane {l} word {j}"
                );
                assert_eq!(scalar64[j], i64::from(want[l][j]));
                assert_eq!(scalar32[j] as u32, want[l][j]);
            }
        }
    }
}

#[test]
fn stream_follows_the_documented_layout() {
    // Seed 42, path 999999, step 2^32 + 17 (f64): block b is philox([17, 1, b, 0], [42, 999999]).
    let step = 4_294_967_296.0 + 17.0;
    let s = Stream::<f64>::new(42.0, 999_999.0, step);
    for b in 0..3u32 {
        let w = philox4x32_10([17, 1, b, 0], [42, 999_999]);
        let got = s.block(b);
        assert_eq!(got.map(|x| x as u32), w);
        let u = |a: u32, c: u32| {
            ((u64::from(a) << 20 | u64::from(c) >> 12) as f64 + 0.5) * 2f64.powi(-52)
        };
        assert_eq!(
            s.uniforms::<2>(b),
            [u(w[0], w[1]), u(w[2], w[3])],
            "block {b}"
        );
    }
    // f32: four uniforms per block, one word each; paths up to 2^24.
    let s = Stream::<f32>::new(3.0, 16_777_215.0, 70_000.0);
    let w = philox4x32_10([70_000, 0, 5, 0], [3, 16_777_215]);
    let want = w.map(|a| ((a >> 9) as f32 + 0.5) * 2f32.powi(-23));
    assert_eq!(s.uniforms::<4>(5), want);
    // Normals are Box-Muller on consecutive uniforms.
    let s = Stream::<f64>::new(1.0, 2.0, 3.0);
    let [u1, u2] = s.uniforms::<2>(0);
    let r = (-2.0 * u1.ln()).sqrt();
    let z = s.normals::<2>(0);
    let angle = std::f64::consts::TAU * u2;
    assert!((z[0] - r * angle.cos()).abs() < 1e-14 && (z[1] - r * angle.sin()).abs() < 1e-14);
}

/// Draws `n` paths' values at one step through lanes of width `W`, as a kernel would.
fn draws<L: Lane, const D: usize>(n: usize, normal: bool) -> Vec<L::Elem> {
    let mut out = Vec::with_capacity(n * D);
    for first in (0..n).step_by(L::WIDTH) {
        let ids: Vec<L::Elem> = (first..first + L::WIDTH)
            .map(|p| <L::Elem as hawk::Real>::from_f64(p as f64))
            .collect();
        // SAFETY: `ids` holds `WIDTH` elements.
        let path = unsafe { <L as Lane>::load(ids.as_ptr()) };
        let s = Stream::<L>::new(
            L::splat(<L::Elem as hawk::Real>::from_f64(5.0)),
            path,
            L::splat(<L::Elem as hawk::Real>::from_f64(11.0)),
        );
        let v: [L; D] = if normal { s.normals(0) } else { s.uniforms(0) };
        for l in 0..L::WIDTH {
            for d in v {
                out.push(d.lane(l));
            }
        }
    }
    out
}

#[test]
fn every_lane_width_draws_the_same_bits() {
    let want = draws::<f64, 3>(64, true);
    assert_eq!(draws::<Simd<f64, 4>, 3>(64, true), want);
    assert_eq!(draws::<Simd<f64, 8>, 3>(64, true), want);
    let want = draws::<f32, 5>(64, true);
    assert_eq!(draws::<Simd<f32, 8>, 5>(64, true), want);
    assert_eq!(draws::<Simd<f32, 16>, 5>(64, true), want);
    assert_eq!(
        draws::<Simd<f64, 8>, 3>(64, false),
        draws::<f64, 3>(64, false)
    );
}

/// Mean, variance and kurtosis of `v` (as f64).
fn moments(v: impl Iterator<Item = f64>) -> (f64, f64, f64, f64, f64) {
    let v: Vec<f64> = v.collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let kurt = v.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n / (var * var);
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    (mean, var, kurt, lo, hi)
}

#[test]
fn uniforms_and_normals_have_their_moments() {
    // 2^20 draws: standard errors of the mean 1/sqrt(12 n) = 2.8e-4 (uniform), 1e-3 (normal).
    let n = 1 << 18;
    for (m, v, lo, hi) in [
        moments(draws::<Simd<f64, 8>, 4>(n, false).into_iter()),
        moments(
            draws::<Simd<f32, 16>, 4>(n, false)
                .into_iter()
                .map(f64::from),
        ),
    ]
    .map(|(m, v, _, lo, hi)| (m, v, lo, hi))
    {
        assert!((m - 0.5).abs() < 5.0 * 2.8e-4, "uniform mean {m}");
        assert!(
            (v - 1.0 / 12.0).abs() < 5.0 * 1.5e-4,
            "uniform variance {v}"
        );
        assert!(lo > 0.0 && hi < 1.0, "uniforms in (0, 1): {lo} {hi}");
    }
    for (m, v, k) in [
        moments(draws::<Simd<f64, 8>, 4>(n, true).into_iter()),
        moments(
            draws::<Simd<f32, 16>, 4>(n, true)
                .into_iter()
                .map(f64::from),
        ),
    ]
    .map(|(m, v, k, _, _)| (m, v, k))
    {
        assert!(m.abs() < 5.0 * 1e-3, "normal mean {m}");
        assert!((v - 1.0).abs() < 5.0 * 1.4e-3, "normal variance {v}");
        assert!((k - 3.0).abs() < 5.0 * 4.8e-3, "normal kurtosis {k}");
    }
}
