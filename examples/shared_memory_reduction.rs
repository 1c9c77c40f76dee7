//! Seed: "Kernel with shared memory optimization" — a block reduction with dynamic shared
//! memory over 1e6 float32, block sums added on the host and compared with a host sum.
//! The kernel, the data and the check are `seeds/raw.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/raw.rs"]
mod raw;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("shared_memory_reduction: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    raw::shared_memory_reduction()?.report("shared_memory_reduction");
    Ok(())
}
