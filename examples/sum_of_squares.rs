//! Seed: "Custom ReductionKernel" (002) — `sum_of_squares`, float32 `x * x` reduced with
//! `a + b` from the identity 0: [1, 2, 3, 4, 5] gives exactly 55 (a 0-d array), and its
//! (1, 5) reshape with `axis=1` gives [55] of shape (1,). The seed passes '0' and the name
//! in the post-map and identity positions of CuPy's signature; as intended, the post-map is
//! `out = a` and the identity `0`.
//! The kernel, the data and the check are in `seeds/` (`reduction.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("sum_of_squares axis=1", || {
        seeds::reduction::sum_of_squares()?.report("sum_of_squares");
        seeds::reduction::sum_of_squares_axis()
    })
}
