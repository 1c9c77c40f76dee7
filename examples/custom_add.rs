//! Seed: "Basic ElementwiseKernel" (002) — `custom_add`, `z = x + y * 2` on float32
//! [1, 2, 3, 4] and [5, 6, 7, 8], which must give exactly [11, 14, 17, 20]; also seed 000's
//! `add_kernel` (`z = x + y` on [1, 2, 3, 4] and [10, 20, 30, 40] → [11, 22, 33, 44]).
//! The kernel, the data and the check are `seeds/elementwise.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/elementwise.rs"]
mod elementwise;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("custom_add: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    elementwise::custom_add()?.report("custom_add");
    Ok(())
}
