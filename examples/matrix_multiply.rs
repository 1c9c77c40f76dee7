//! Seed: "RawKernel — matrix multiply" (M, N, K = 1024, 1024, 512, 16×16 blocks), checked
//! against a CPU reference.
//! The kernel, the data and the check are `seeds/raw.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/raw.rs"]
mod raw;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("matrix_multiply: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    raw::matrix_multiply(raw::host_reference)?.report("matrix_multiply");
    Ok(())
}
