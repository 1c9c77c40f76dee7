//! Seed 002 ("RawModule with Multiple Kernels") written in Rust: ReLU and the sigmoid are
//! `#[cuprum::device]` functions (also called here on the host, as ordinary Rust), applied
//! by the kernel `apply_activation`; the module's vector add is the generic `vector_add`.
//! `--source` prints the whole program.
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
        "jit_activations",
        rust_kernels::apply_activation::program(),
        seeds_jit::activations,
    )
}
