//! Seed: "Kernel with shared memory optimization" — a block reduction with dynamic shared
//! memory over 1e6 float32, block sums added on the host and compared with a host sum.
//! The kernel, the data and the check are in `seeds/` (`raw.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example(
        "shared_memory_reduction",
        seeds::raw::shared_memory_reduction,
    )
}
