//! The program's Rust kernels, shared with `build.rs` (which compiles them at build time).

use cuprum::gpu::*;

/// `y = a·x + y`, one thread per element.
#[cuprum::kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        y[i] = a * x[i] + y[i];
    }
}

/// `x *= s` for any float type.
#[cuprum::kernel]
pub fn scale<T: Float>(x: &mut [T], s: T) {
    for i in grid_stride(x.len()) {
        x[i] *= s;
    }
}
