//! Compile-fail UI tests of `#[cuprum::kernel]` / `#[cuprum::device]` (trybuild): each
//! unsupported construct is a spanned error naming it, type errors are rustc's at the
//! user's tokens, and the typed launcher refuses wrong argument counts, types, mutability
//! and aliasing at compile time. The `.stderr` files hold the expected messages and spans
//! (`TRYBUILD=overwrite` regenerates them; they follow the pinned toolchain).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
