//! Seed: "Definition: ReductionKernel" (001) — `l2_norm_squared` (`l2_norm_sq`: float64
//! `x * x` reduced with `a + b`, post-map `y = a`, identity 0) on 1e7 normal float64, the L2
//! norm then taken as in the seed with a square root of the result on the GPU
//! (`ops::sqrt`); and the one-kernel L2 norm with the post-map `y = sqrt(a)`, on the same
//! array and per row of a (2, 5) float32 `arange` with `axis=1` (√30, √255). Checked
//! against compensated host sums in double precision (relative 1e-12 for float64, 1e-6 for
//! float32).
//! The kernel, the data and the check are in `seeds/` (`reduction.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("l2_norm", seeds::reduction::l2_norm)
}
