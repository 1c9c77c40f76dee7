//! Seed: "Raw CUDA Kernels" — `vector_add` as a RawKernel (n = 1,000,000 float64),
//! checked against the host.
//! The kernel, the data and the check are `seeds/raw.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/raw.rs"]
mod raw;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("vector_add: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    raw::vector_add()?.report("vector_add");
    Ok(())
}
