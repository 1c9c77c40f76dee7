//! Snapshots of the CUDA C++ generated for every example kernel written in Rust
//! (examples/kernels/rust_kernels.rs) and of a whole program with device functions, and
//! of the language's constructs (`match`, tuples, … from tests/jit_kernels/language.rs). A
//! change to the translator shows here as a diff (`INSTA_UPDATE=always` rewrites them).

/// The workspace's test harness: visible skips naming the test.
#[path = "common/harness.rs"]
mod harness;
#[allow(dead_code)]
#[path = "../../../examples/kernels/rust_kernels.rs"]
mod kernels;
#[allow(dead_code)]
#[path = "jit_kernels/language.rs"]
mod language;

/// The snapshots are files of the repository: a test binary run elsewhere (the GPU suite)
/// skips.
fn snapshots_here() -> bool {
    let here = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots")).is_dir();
    if !here {
        harness::skip(
            harness::Need::Other,
            "the snapshot files are not here (run from the repository)",
        );
    }
    here
}

#[test]
fn prime_factor_sum() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::prime_factor_sum::SOURCE);
}

#[test]
fn vector_add() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::vector_add::SOURCE);
}

#[test]
fn vector_add_wide() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::vector_add_wide::SOURCE);
}

#[test]
fn matrix_multiply() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::matrix_multiply::SOURCE);
}

#[test]
fn optimized_reduction() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::optimized_reduction::SOURCE);
}

#[test]
fn activations_program() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::apply_activation::program());
}

#[test]
fn activations_by_match() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(kernels::apply_activation_match::SOURCE);
}

#[test]
fn match_on_integers_program() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(language::match_statements_u8::SOURCE);
    insta::assert_snapshot!(language::classify_i32_kernel::program());
}

#[test]
fn tuples_program() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(language::tuple_kernel::program());
    insta::assert_snapshot!(language::min_max_kernel::program());
}

#[test]
fn module_constants_program() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(language::consts_kernel::program());
}

#[test]
fn closures_source() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(language::closures_kernel::SOURCE);
}

#[test]
fn element_loops_source() {
    if !snapshots_here() {
        return;
    }
    insta::assert_snapshot!(language::elem_loops::SOURCE);
    insta::assert_snapshot!(language::elem_loops_mut::SOURCE);
}
