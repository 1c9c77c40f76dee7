//! Seed 001's `clipped_relu` (`min(max(x, 0), cap)`) and a scale fused into one
//! ElementwiseKernel with `cuprum::fuse`: `x.clip(0.0, cap) * scale`, where `cap` and
//! `scale` are scalar arguments (kernel parameters: new values never recompile). On 1e7
//! normal float32 with cap 6 and scale 0.5, then a (1000, 1000) transposed view with cap 1.5
//! and scale 2; every element compared exactly with the host.
use cuprum::{Array, DType, random};

#[path = "fused/functions.rs"]
mod functions;

/// Elements where `y` differs from `min(max(x, 0), cap) * scale` (in float32).
fn mismatches(x: &Array, y: &Array, cap: f32, scale: f32) -> cuprum::Result<usize> {
    let (hx, hy) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?);
    Ok(hx
        .iter()
        .zip(&hy)
        .filter(|&(&x, &y)| y != x.clamp(0.0, cap) * scale)
        .count())
}

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("fuse_clipped_relu: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let relu = functions::clipped_relu_scale();
    let x = random::normal(0.0, 4.0, &[10_000_000], DType::F32)?;
    let y = relu.call((&x, 6.0f32, 0.5f32))?;
    let bad_1d = mismatches(&x, &y, 6.0, 0.5)?;

    let m = random::normal(0.0, 2.0, &[1000, 1000], DType::F32)?;
    let t = m.t();
    let y2 = relu.call((&t, 1.5f32, 2.0f32))?;
    let bad_t = mismatches(&t.to_contiguous()?, &y2, 1.5, 2.0)?;
    let ok = bad_1d == 0
        && bad_t == 0
        && y.dtype() == DType::F32
        && y2.shape() == [1000, 1000]
        && relu.traces() == 2;
    println!(
        "fuse_clipped_relu: 1e7 cap 6 scale 0.5: {bad_1d} mismatches; (1000, 1000).T cap 1.5 \
         scale 2: {bad_t}; {} traces: {}",
        relu.traces(),
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
