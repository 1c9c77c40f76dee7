//! Seed 002's activations with `match` on the activation number instead of an `if` chain
//! (`apply_activation_match` in `kernels/rust_kernels.rs`): ReLU, the sigmoid or the
//! input, checked against the device functions run on the host and against the `if`-chain
//! kernel. `--source` prints the whole program (the `match` is a `?:` chain in C++).
//! The data and the check are `seeds/jit.rs`.

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod rust_kernels;
#[path = "seeds/mod.rs"]
mod seeds;
#[path = "seeds/jit.rs"]
mod seeds_jit;

fn main() -> Result<(), cuprum::Error> {
    seeds_jit::example(
        "jit_activations_match",
        rust_kernels::apply_activation_match::program(),
        seeds_jit::activations_match,
    )
}
