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
    share_the_dependency_check();
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}

/// trybuild checks the dependencies with one set of rustflags, then the tests with one more
/// (`--diagnostic-width=140`), so cargo checks every dependency (cuprum included) twice:
/// half of this binary's time on two cores. trybuild runs the cargo that `CARGO` names;
/// here that is a script that drops the extra flag (140 columns is rustc's width when it
/// writes to a pipe anyway) and runs the real cargo, so the test build reuses the first.
fn share_the_dependency_check() {
    let (Some(cargo), Some(dir)) = (
        std::env::var_os("CARGO"),
        option_env!("CARGO_TARGET_TMPDIR"),
    ) else {
        return;
    };
    let script = std::path::Path::new(dir).join("trybuild-cargo.sh");
    let text = "#!/usr/bin/env bash\n\
        args=()\n\
        for a in \"$@\"; do\n\
        \x20 case $a in *rustflags=*) a=${a//, \\\"--diagnostic-width=140\\\"/} ;; esac\n\
        \x20 args+=(\"$a\")\n\
        done\n\
        exec \"$CUPRUM_TRYBUILD_CARGO\" \"${args[@]}\"\n";
    let written = std::fs::write(&script, text).and_then(|()| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
    });
    if written.is_err() {
        return;
    }
    // SAFETY: this binary holds one test, which runs alone: no other thread reads or
    // writes the environment while these two variables are set.
    unsafe {
        std::env::set_var("CUPRUM_TRYBUILD_CARGO", cargo);
        std::env::set_var("CARGO", &script);
    }
}
