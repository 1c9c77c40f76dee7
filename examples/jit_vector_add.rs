//! Seeds 000/001 ("Raw CUDA Kernels"): `vector_add` written in Rust, one generic kernel
//! (`#[cuprum::kernel] fn vector_add<T: Num>`) instantiated for float32 (seed 000) and
//! float64 (seed 001), 1e6 elements each, checked exactly against the host. `--source`
//! prints the CUDA C++ template.
//! The data and the check are `seeds/jit.rs`, shared with `cuprum demo`.

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod rust_kernels;
#[path = "seeds/mod.rs"]
mod seeds;
#[path = "seeds/jit.rs"]
mod seeds_jit;

fn main() -> Result<(), cuprum::Error> {
    seeds_jit::example(
        "jit_vector_add",
        rust_kernels::vector_add::program(),
        seeds_jit::vector_add,
    )
}
