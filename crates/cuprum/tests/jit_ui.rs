//! Compile-fail UI tests of `#[cuprum::kernel]` / `#[cuprum::device]` (trybuild): each
//! unsupported construct is a spanned error naming it, type errors are rustc's at the
//! user's tokens, and the typed launcher refuses wrong argument counts, types, mutability
//! and aliasing at compile time. The `.stderr` files hold the expected messages and spans
//! (`TRYBUILD=overwrite` regenerates them; they follow the pinned toolchain).

/// The workspace's test harness: visible skips naming the test.
#[path = "common/harness.rs"]
mod harness;

#[test]
fn ui() {
    // trybuild runs cargo on the files of tests/ui: a test binary run outside `cargo test`
    // in the repository (the GPU suite) skips.
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/ui"));
    if std::env::var_os("CARGO").is_none() || !dir.is_dir() {
        harness::skip(harness::Need::Other, "needs `cargo test` in the repository");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
