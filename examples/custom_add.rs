//! Seed: "Basic ElementwiseKernel" (002) — `custom_add`, `z = x + y * 2` on float32
//! [1, 2, 3, 4] and [5, 6, 7, 8], which must give exactly [11, 14, 17, 20]; also seed 000's
//! `add_kernel` (`z = x + y` on [1, 2, 3, 4] and [10, 20, 30, 40] → [11, 22, 33, 44]).
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("custom_add", seeds::elementwise::custom_add)
}
