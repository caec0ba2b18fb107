//! Kernel-authoring mistakes are compile errors with a hint, at the offending code.
//!
//! Regenerate the expected messages with `TRYBUILD=overwrite cargo test -p hawk --test
//! compile_fail`, then read every `.stderr` before committing it.

#[test]
fn kernel_authoring_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
