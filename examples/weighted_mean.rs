//! Seed: "Custom ReductionKernel" (002) — the weighted mean of float32 [1, 2, 3, 4] with
//! weights [0.1, 0.2, 0.3, 0.4] (3.0). As in the seed, in two passes: the `weighted_sum`
//! ReductionKernel (`x * w` reduced with `a + b`; the seed's '0' and name sit in the
//! post-map and identity positions, so as intended post-map `out = a`, identity `0`), the
//! sum of the weights (`ops::sum`, the seed's `cp.sum(weights)`) and their quotient on the
//! GPU. Then in one pass: a ReductionKernel whose accumulator is a
//! `float2` (sum of `w * x`, sum of `w`) with two outputs, both returned by `call_all`.
//! Checked against the host in double precision (relative 1e-6 on the seed's arrays, 1e-5 on
//! 1e6 random values and weights).
//! The kernel, the data and the check are in `seeds/` (`reduction.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("weighted_mean", seeds::reduction::weighted_mean)
}
