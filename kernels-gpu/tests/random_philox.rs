//! Philox4x32-10 against the known-answer vectors of Random123's `kat_vectors` file (the
//! three `philox4x32 10` lines: counter, key, expected output).

use hawk::random::philox4x32_10;

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
