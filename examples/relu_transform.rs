//! Seed: "More complex elementwise operation" (002) — `relu_transform`,
//! `z = max(x * alpha + y, 0)` written as two statements with a local variable, `alpha` a
//! scalar argument (0.5). Checked on the seed's [1, 2, 3, 4], [5, 6, 7, 8] (exactly
//! [5.5, 7, 8.5, 10]) and on 1e6 normal float32 pairs against the host, exactly: `x * 0.5`
//! is exact, so a fused multiply-add rounds the same as the host's multiply then add.
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("relu_transform", seeds::elementwise::relu_transform)
}
