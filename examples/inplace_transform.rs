//! Seed: "In-place operation kernel" (002) — `inplace_transform`, `x * alpha + 1` with
//! alpha = 2.0 on 1e6 random float32, the same array passed as input and as output
//! (`inplace_kernel(data, 2.0, data)`). Checks that the data stays in the same device buffer
//! (`data_ptr()` before and after, `shares_memory` with the returned array) and that every
//! value became exactly `2 * old + 1`. The seed's strings are used verbatim: `x` is in both
//! parameter lists with the same type, which makes it one read-write parameter (CuPy 14.2
//! refuses this kernel; cuprum does what the seed documents). `call((&data, 2.0f32))`,
//! without the repeated output, writes in place as well.
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("inplace_transform", seeds::elementwise::inplace_transform)
}
