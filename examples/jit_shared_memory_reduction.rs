//! Seed 002 ("Kernel with shared memory optimization") written in Rust: block sums in
//! dynamic shared memory over 1e6 float32 (`dynamic_shared::<f32>()`, `sync_threads()`),
//! added on the host and compared with a host sum. `--source` prints the C++.
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
        "jit_shared_memory_reduction",
        rust_kernels::optimized_reduction::program(),
        seeds_jit::shared_memory_reduction,
    )
}
