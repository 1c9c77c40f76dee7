//! Seed: "RawModule with Multiple Kernels" — relu and sigmoid through one module.
//! The kernel, the data and the check are in `seeds/` (`raw.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("activation_module", seeds::raw::activation_module)
}
