//! Snapshots of the CUDA C++ generated for every example kernel written in Rust
//! (examples/kernels/rust_kernels.rs) and of a whole program with device functions. A
//! change to the translator shows here as a diff (`INSTA_UPDATE=always` rewrites them).

#[allow(dead_code)]
#[path = "../../../examples/kernels/rust_kernels.rs"]
mod kernels;

#[test]
fn prime_factor_sum() {
    insta::assert_snapshot!(kernels::prime_factor_sum::SOURCE);
}

#[test]
fn vector_add() {
    insta::assert_snapshot!(kernels::vector_add::SOURCE);
}

#[test]
fn matrix_multiply() {
    insta::assert_snapshot!(kernels::matrix_multiply::SOURCE);
}

#[test]
fn optimized_reduction() {
    insta::assert_snapshot!(kernels::optimized_reduction::SOURCE);
}

#[test]
fn activations_program() {
    insta::assert_snapshot!(kernels::apply_activation::program());
}
