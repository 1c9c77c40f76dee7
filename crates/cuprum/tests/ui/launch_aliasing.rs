use cuprum::gpu::*;
use cuprum::{Array, DType};

#[cuprum::kernel]
fn scale(x: &[f32], y: &mut [f32], factor: f32) {
    for i in grid_stride(y.len()) {
        y[i] = x[i] * factor;
    }
}

fn main() -> cuprum::Result<()> {
    let mut y = Array::zeros(&[4], DType::F32)?;
    // One array as both the input and the output: a `&mut` argument is an exclusive
    // borrow (views sharing memory are refused at launch time instead).
    scale::launch((1, 32), &y, &mut y, 2.0)?;
    Ok(())
}
