//! The device API of kernels written in Rust (`#[cuprum::kernel]`, `#[cuprum::device]`):
//! thread and block indices, grid-stride loops, barriers, shared memory, atomics, warp
//! shuffles and votes, grid-wide sync, and the number types and methods kernels use.
//!
//! Kernels `use cuprum::gpu::*;`. Everything here also runs on the host, so device
//! functions are ordinary Rust functions, callable and testable on the CPU: there the grid
//! is a single thread.
//!
//! ```
//! use cuprum::gpu::*;
//!
//! #[cuprum::device]
//! fn relu(x: f32) -> f32 {
//!     x.max(0.0)
//! }
//!
//! #[cuprum::kernel]
//! fn apply_relu(x: &[f32], y: &mut [f32]) {
//!     for i in grid_stride(y.len()) {
//!         y[i] = relu(x[i]);
//!     }
//! }
//!
//! fn main() -> cuprum::Result<()> {
//! #     if !cuprum_doctest::device()? {
//! #         return Ok(());
//! #     }
//!     assert_eq!(relu(-1.0), 0.0); // on the host
//!     let x = cuprum::Array::from_slice(&[-1.0f32, 2.0], &[2])?;
//!     let mut y = cuprum::Array::empty(&[2], cuprum::DType::F32)?;
//!     apply_relu::launch((1, 32), &x, &mut y)?;
//!     assert_eq!(y.to_vec::<f32>()?, [0.0, 2.0]);
//!     Ok(())
//! }
//! ```

mod builtins;
mod memory;
mod num;

pub use builtins::*;
pub use half::{bf16, f16};
pub use memory::{DynShared, SharedArray, Slice, dynamic_shared, shared_array};
pub use num::{AtomicAdd, AtomicBits, AtomicOrd, Float, Int, IntIndex, Num, Scalar};
