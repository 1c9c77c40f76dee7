use cuprum::gpu::*;
use cuprum::{Array, DType};

#[cuprum::kernel]
fn scale(x: &[f32], y: &mut [f32], factor: f32) {
    for i in grid_stride(y.len()) {
        y[i] = x[i] * factor;
    }
}

fn main() -> cuprum::Result<()> {
    let x = Array::zeros(&[4], DType::F32)?;
    let mut y = Array::zeros(&[4], DType::F32)?;
    // Too few arguments.
    scale::launch((1, 32), &x, &mut y)?;
    // `&` where the kernel writes (`&mut [f32]`).
    scale::launch((1, 32), &x, &y, 2.0)?;
    // A scalar of the wrong type.
    scale::launch((1, 32), &x, &mut y, 2.0f64)?;
    Ok(())
}
