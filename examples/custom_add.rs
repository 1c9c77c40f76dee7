//! Seed: "Basic ElementwiseKernel" (002) — `custom_add`, `z = x + y * 2` on float32
//! [1, 2, 3, 4] and [5, 6, 7, 8], which must give exactly [11, 14, 17, 20]; also seed 000's
//! `add_kernel` (`z = x + y` on [1, 2, 3, 4] and [10, 20, 30, 40] → [11, 22, 33, 44]).
use cuprum::{Array, ElementwiseKernel};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("custom_add: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let custom_add = ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )?;
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let result = custom_add.call((&a, &b))?.to_vec::<f32>()?;

    let add_kernel = ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y",
        "add_kernel",
    )?;
    let b10 = Array::from_slice(&[10.0f32, 20.0, 30.0, 40.0], &[4])?;
    let sum = add_kernel.call((&a, &b10))?.to_vec::<f32>()?;

    let ok = result == [11.0, 14.0, 17.0, 20.0] && sum == [11.0, 22.0, 33.0, 44.0];
    println!(
        "custom_add: {result:?}, add_kernel: {sum:?}: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
