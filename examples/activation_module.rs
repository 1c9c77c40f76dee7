//! Seed: "RawModule with Multiple Kernels" — relu and sigmoid through one module.
//! The kernel, the data and the check are `seeds/raw.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/raw.rs"]
mod raw;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("activation_module: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    raw::activation_module()?.report("activation_module");
    Ok(())
}
