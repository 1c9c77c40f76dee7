//! Seed: "In-place operation kernel" (002) — `inplace_transform`, `x * alpha + 1` with
//! alpha = 2.0 on 1e6 random float32, the same array passed as input and as output
//! (`inplace_kernel(data, 2.0, data)`). Checks that the data stays in the same device buffer
//! (`data_ptr()` before and after, `shares_memory` with the returned array) and that every
//! value became exactly `2 * old + 1`. The seed's strings are used verbatim: `x` is in both
//! parameter lists with the same type, which makes it one read-write parameter (CuPy 14.2
//! refuses this kernel; cuprum does what the seed documents). `call((&data, 2.0f32))`,
//! without the repeated output, writes in place as well.
use cuprum::{DType, ElementwiseKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("inplace_transform: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let inplace_kernel = ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x", // Same array for input and output
        "x = x * alpha + 1",
        "inplace_transform",
    )?;
    let data = random::random(&[1_000_000], DType::F32)?;
    let before = data.to_vec::<f32>()?;
    let original_ptr = data.data_ptr();

    let out = inplace_kernel.call((&data, 2.0f32, &data))?;

    let same_memory = data.data_ptr() == original_ptr
        && out.data_ptr() == original_ptr
        && out.shares_memory(&data);
    let after = data.to_vec::<f32>()?;
    let bad = before
        .iter()
        .zip(&after)
        .filter(|&(&b, &a)| a != b * 2.0 + 1.0)
        .count();
    let ok = same_memory && bad == 0;
    println!(
        "inplace_transform: same memory location: {same_memory}, {bad} of {} values not 2x+1: {}",
        after.len(),
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
