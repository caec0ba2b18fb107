//! The bits a generated kernel gave before a change, kept as one hash per run in
//! `tests/it/data/method-bits.txt`: a change to the method layer (the macro's templates,
//! hawk's step functions) that moves one bit of a problem's planes fails the test that ran
//! it.
//!
//! To record them again after a deliberate change of results (say why in the commit):
//! `EAGLE_BLESS_BITS=1 cargo test --release -p eagle --test it -- --test-threads 1`, then
//! commit the file.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// FNV-1a over the words' little-endian bytes: a fixed, documented hash (std's hashers
/// may change between Rust releases). Not cryptographic; it only has to change when a bit
/// does.
fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/method-bits.txt")
}

/// One writer at a time while blessing.
static BLESS: Mutex<()> = Mutex::new(());

fn read() -> BTreeMap<String, String> {
    std::fs::read_to_string(file())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_owned(), v.trim().to_owned()))
        .collect()
}

/// Asserts that `bits` (every plane of run `name`, in a fixed order) hash to what the file
/// holds for `name`; with `EAGLE_BLESS_BITS=1`, records them instead.
pub fn same_bits_as_before(name: &str, bits: impl IntoIterator<Item = u64>) {
    let got = format!("{:016x}", fnv1a(bits));
    if std::env::var_os("EAGLE_BLESS_BITS").is_some() {
        let _guard = BLESS.lock().unwrap();
        let mut all = read();
        all.insert(name.to_owned(), got);
        let mut text = String::from(
            "# FNV-1a of each run's planes (tests/it/common/golden.rs); rebless with\n\
             # EAGLE_BLESS_BITS=1 cargo test --release -p eagle --test it -- --test-threads 1\n",
        );
        for (k, v) in all {
            text.push_str(&format!("{k} {v}\n"));
        }
        std::fs::write(file(), text).unwrap();
        return;
    }
    let want = read().remove(name).unwrap_or_else(|| {
        panic!(
            "no recorded bits for `{name}` in {}: bless them",
            file().display()
        )
    });
    assert_eq!(
        got, want,
        "`{name}`: the planes' bits changed since they were recorded (tests/it/common/golden.rs)"
    );
}

/// [`same_bits_as_before`] over `f64` planes, in the order given.
pub fn same_planes_as_before(name: &str, planes: &[&[f64]]) {
    let bits = planes.iter().flat_map(|p| p.iter().map(|v| v.to_bits()));
    same_bits_as_before(name, bits);
}
