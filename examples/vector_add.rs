//! Seed: "Raw CUDA Kernels" — `vector_add` as a RawKernel (n = 1,000,000 float64),
//! checked against the host.
//! The kernel, the data and the check are in `seeds/` (`raw.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("vector_add", seeds::raw::vector_add)
}
