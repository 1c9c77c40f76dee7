//! The programs of the demo's cases for kernels written in Rust (`#[cuprum::kernel]`,
//! examples/kernels/rust_kernels.rs); their data and checks are the `jit_*` examples'
//! (examples/seeds/jit.rs), the same as the RawKernel seeds'.

use super::program::Program;
use crate::rust_kernels as rk;

type R<T> = cuprum::Result<T>;

pub fn vector_add_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::jit(&rk::vector_add::__CUPRUM_KERNEL, &["float"]),
        Program::jit(&rk::vector_add::__CUPRUM_KERNEL, &["double"]),
    ])
}

pub fn matrix_multiply_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::matrix_multiply::__CUPRUM_KERNEL,
        &[],
    )])
}

pub fn activation_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::apply_activation::__CUPRUM_KERNEL,
        &[],
    )])
}

pub fn smem_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::optimized_reduction::__CUPRUM_KERNEL,
        &[],
    )])
}

pub fn prime_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::prime_factor_sum::__CUPRUM_KERNEL,
        &[],
    )])
}

pub fn activations_enum_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &crate::device_kernels::apply_activation_enum::__CUPRUM_KERNEL,
        &[],
    )])
}

/// The n-body step: the Rust kernel and its raw CUDA twin (the ElementwiseKernel's
/// specialisation is compiled at its first call).
pub fn nbody_programs() -> R<Vec<Program>> {
    let raw = crate::seeds_types::nbody_raw_source();
    Ok(vec![
        Program::jit(&crate::device_kernels::nbody_step::__CUPRUM_KERNEL, &[]),
        Program::raw("nbody.cu", &raw),
    ])
}
