//! Seed: "mse_reduc.py" (003) — `mse_kernel`, the mean squared error of two arrays as one
//! ReductionKernel: `(y_pred - y_true) * (y_pred - y_true)` reduced with `a + b`, divided in
//! the post-map by `_in_ind.size()` (the number of reduced elements). On the seed's data:
//! 1e7 float64 `y_true` uniform in [0, 100), `y_pred = y_true + noise` with normal noise of
//! scale 5 (so the MSE is about 25), compared with a compensated host sum (relative 1e-12).
//! The kernel, the data and the check are in `seeds/` (`reduction.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("mse", seeds::reduction::mse)
}
