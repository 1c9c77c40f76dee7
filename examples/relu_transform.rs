//! Seed: "More complex elementwise operation" (002) — `relu_transform`,
//! `z = max(x * alpha + y, 0)` written as two statements with a local variable, `alpha` a
//! scalar argument (0.5). Checked on the seed's [1, 2, 3, 4], [5, 6, 7, 8] (exactly
//! [5.5, 7, 8.5, 10]) and on 1e6 normal float32 pairs against the host, exactly: `x * 0.5`
//! is exact, so a fused multiply-add rounds the same as the host's multiply then add.
use cuprum::{Array, DType, ElementwiseKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("relu_transform: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let relu_transform = ElementwiseKernel::new(
        "float32 x, float32 y, float32 alpha",
        "float32 z",
        "float temp = x * alpha + y;\n\
         z = temp > 0 ? temp : 0;  // ReLU activation",
        "relu_transform",
    )?;
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let small = relu_transform.call((&a, &b, 0.5f32))?.to_vec::<f32>()?;

    let n = 1_000_000usize;
    let x = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let y = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let z = relu_transform.call((&x, &y, 0.5f32))?;
    let (hx, hy, hz) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?, z.to_vec::<f32>()?);
    let bad = (0..n)
        .filter(|&i| hz[i] != (hx[i] * 0.5 + hy[i]).max(0.0))
        .count();
    let zeros = hz.iter().filter(|&&v| v == 0.0).count();

    let ok = small == [5.5, 7.0, 8.5, 10.0] && bad == 0;
    println!(
        "relu_transform: {small:?}; 1e6 random: {zeros} clamped to 0, {bad} mismatches vs host: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
