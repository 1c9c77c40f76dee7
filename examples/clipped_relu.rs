//! Seed: "Definition: ElementwiseKernel" (001) — `clipped_relu`,
//! `y = min(max(x, 0.0), cap)` on 1e7 normal float64 with the scalar cap 6.0, then on a
//! (1000, 1000) array with the scalar cap and, broadcast along the rows, a (1000,) array of
//! caps from 0.5 to 3. Every result is compared exactly with the host.
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("clipped_relu", seeds::elementwise::clipped_relu)
}
