//! # cuprum — CuPy's user-defined CUDA kernels, in Rust
//!
//! GPU n-d arrays ([`Array`]), CUDA C++ compiled at run time with NVRTC and cached on disk,
//! [`ElementwiseKernel`] (a per-element operation over broadcast arrays, generated for each
//! memory layout), [`RawKernel`] / [`RawModule`] (your own CUDA with checked arguments)
//! and NumPy-style built-in operations ([`ops`]), themselves ElementwiseKernels. CUDA is
//! loaded when first used: everything builds, and every error is typed, on a machine
//! without a GPU.
//!
//! ```no_run
//! use cuprum::{Array, DType, ElementwiseKernel, s};
//! let x = Array::linspace(0.0, 1.0, 5, true, DType::F32)?;      // on the GPU
//! let y = Array::ones(&[5], DType::F32)?;
//! let add = ElementwiseKernel::new("T x, T y", "T z", "z = x + y * 2", "custom_add")?;
//! let z = add.call((&x, &y))?;                                   // compiled once, cached
//! let w = ((&z * 0.5)? - &x)?;                                   // built-in operations
//! let m = Array::arange(0.0, 12.0, 1.0, DType::F64)?.reshape(&[3, 4])?;
//! let v = m.t().slice(&s![1..;2, ..;-1])?;                      // views, no copies
//! println!("{:?} {:?}", w.to_vec::<f32>()?, v.to_vec::<f64>()?);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! Layers, bottom up (see ARCHITECTURE.md): [`runtime`] (driver, devices, streams, memory,
//! modules, launch) → [`compile`] (NVRTC, cache) → the array layer ([`Array`], [`DType`],
//! [`shape`], [`random`]) → [`kernel`] (user kernels) → [`ops`] (built-in operations) →
//! [`profiler`].

#![deny(missing_docs)]

mod array;
pub mod compile;
mod error;
pub mod kernel;
pub mod ops;

/// Every CuPy call of the seed documents and of CuPy's kernel reference, mapped to
/// cuprum, with the intentional differences (docs/for-cupy-users.md; its examples are
/// compiled as doc tests).
#[doc = include_str!("../../../docs/for-cupy-users.md")]
pub mod guide {}
pub mod profiler;
pub mod runtime;

pub use array::{Array, DType, DTypeKind, Element, Scalar, SliceArg, random, shape};
pub use compile::{CompileOptions, clear_memo, compile_with_cache};
pub use error::{Error, ErrorKind, Result};
pub use kernel::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
pub use runtime::{Device, Event, Stream};

/// The README's Rust examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// Helpers for tools and tests (the `cuprum` CLI's benchmarks, NVRTC compile checks, the
/// fuzz targets).
/// Not a stable API.
#[doc(hidden)]
pub mod internal {
    pub use crate::array::kernels::{all_sources, launch_empty, launch_no_args};
    pub use crate::compile::cache::{decode as decode_cache_entry, encode as encode_cache_entry};
    pub use crate::kernel::{elementwise_sample_sources, reduction_sample_sources};
    pub use crate::kernel::{elementwise_source_for_fuzzing, reduction_source_for_fuzzing};
    pub use crate::ops::elementwise_sample_sources as ops_sample_sources;
    pub use crate::ops::reduction_sample_sources as ops_reduction_sample_sources;
}
