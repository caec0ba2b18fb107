//! Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
//! random numbers: as easy as 1, 2, 3", SC'11; the Random123 library).
//!
//! A counter-based generator has no state: the output is a function of a counter and a
//! key, so a sample's draws can be keyed by what identifies them (a seed and the sample's
//! caller id as the key, the step and draw index as the counter) and are then the same
//! whichever team, lane, shard or compaction slot computes them. This module has the
//! bijection itself, on one 128-bit block; lanes, variates and the kernel language's noise
//! argument come next (issue 31).
//!
//! Each of the 10 rounds multiplies words 0 and 2 of the counter by the constants
//! [`PHILOX_M0`] and [`PHILOX_M1`] (32 x 32 -> 64 bits), and mixes the halves with words 1
//! and 3 and the key; the key is bumped by the Weyl constants [`PHILOX_W0`] and
//! [`PHILOX_W1`] between rounds. The known-answer vectors of Random123's `kat_vectors`
//! file are tests (`kernels-gpu/tests/random_philox.rs`).

/// The multiplier of counter word 0.
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// The multiplier of counter word 2.
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// The Weyl increment of key word 0 (the golden ratio's fraction, 32 bits).
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// The Weyl increment of key word 1 (`sqrt(3) - 1`, 32 bits).
pub const PHILOX_W1: u32 = 0xBB67_AE85;

/// One round: the two products, their halves mixed with the other words and the key.
#[inline(always)]
fn round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let p0 = u64::from(PHILOX_M0) * u64::from(c[0]);
    let p1 = u64::from(PHILOX_M1) * u64::from(c[2]);
    [
        (p1 >> 32) as u32 ^ c[1] ^ k[0],
        p1 as u32,
        (p0 >> 32) as u32 ^ c[3] ^ k[1],
        p0 as u32,
    ]
}

/// Philox4x32-10: four 32-bit words from a 128-bit `counter` and a 64-bit `key`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    c = round(c, k);
    for _ in 1..10 {
        k = [k[0].wrapping_add(PHILOX_W0), k[1].wrapping_add(PHILOX_W1)];
        c = round(c, k);
    }
    c
}
