//! Seed: "Definition: ElementwiseKernel" (001) — `clipped_relu`,
//! `y = min(max(x, 0.0), cap)` on 1e7 normal float64 with the scalar cap 6.0, then on a
//! (1000, 1000) array with the scalar cap and, broadcast along the rows, a (1000,) array of
//! caps from 0.5 to 3. Every result is compared exactly with the host.
use cuprum::{Array, DType, ElementwiseKernel, Endpoint, random};

/// Number of elements where `y` differs from `min(max(x, 0), cap(i))`.
fn mismatches(x: &Array, y: &Array, cap: impl Fn(usize) -> f64) -> cuprum::Result<usize> {
    let (hx, hy) = (x.to_vec::<f64>()?, y.to_vec::<f64>()?);
    Ok((0..hx.len())
        .filter(|&i| hy[i] != hx[i].max(0.0).min(cap(i)))
        .count())
}

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("clipped_relu: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let clipped_relu = ElementwiseKernel::new(
        "float64 x, float64 cap",
        "float64 y",
        "y = min(max(x, 0.0), cap)",
        "clipped_relu",
    )?;
    let x = random::normal(0.0, 1.0, &[10_000_000], DType::F64)?;
    let y = clipped_relu.call((&x, 6.0))?;
    let bad_1d = mismatches(&x, &y, |_| 6.0)?;

    let side = 1000usize;
    let x2 = random::normal(0.0, 1.0, &[side, side], DType::F64)?;
    let y2 = clipped_relu.call((&x2, 6.0))?;
    let bad_2d = mismatches(&x2, &y2, |_| 6.0)?;
    let caps = Array::linspace(0.5, 3.0, side, Endpoint::Included, DType::F64)?;
    let y3 = clipped_relu.call((&x2, &caps))?;
    let hcaps = caps.to_vec::<f64>()?;
    let bad_rows = mismatches(&x2, &y3, |i| hcaps[i % side])?;

    let shapes_ok = y2.shape() == [side, side] && y3.shape() == [side, side];
    let ok = bad_1d == 0 && bad_2d == 0 && bad_rows == 0 && shapes_ok;
    println!(
        "clipped_relu: 1e7 cap 6: {bad_1d} mismatches; (1000, 1000) cap 6: {bad_2d}; \
         (1000, 1000) with (1000,) caps: {bad_rows}: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
