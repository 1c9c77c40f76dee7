//! Built-in operations on arrays. Elementwise ones are
//! [`ElementwiseKernel`](crate::ElementwiseKernel)s and reductions
//! [`ReductionKernel`](crate::ReductionKernel)s (no separate launch path); `matmul` and
//! `dot` call cuBLAS.
//!
//! Unlike user kernels these follow NumPy: operands broadcast, dtypes promote
//! ([`promote_types`]), and Rust scalars are *weak* — `f32_array * 2.0` stays float32,
//! `i32_array * 0.5` becomes float64, `u8_array + 300` is an error (300 does not fit).
//! Operators work on `&Array` and return `Result<Array>`:
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{Array, DType, ops, ops::Keepdims};
//! let x = Array::from_slice(&[1.0f32, -2.0, 3.0], &[3])?;
//! let y = (&x * 2.0)?;                                  // float32
//! let z = ops::maximum(&y, 0.0)?;                        // relu
//! let m = ops::less(&x, 0.0)?;                           // bool mask
//! let w = ops::where_(&m, 0.0, &x)?;
//! assert_eq!(w.to_vec::<f32>()?, vec![1.0, 0.0, 3.0]);
//! assert_eq!((&x + 1i32)?.dtype(), DType::F32);
//! let total = ops::sum(&x)?;                             // a 0-d array
//! let rows = ops::mean_axis(&x.reshape(&[3, 1])?, 1, Keepdims::No)?;
//! assert!(ops::allclose(&x, &x)?);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! Reductions (`sum`, `prod`, `mean`, `var`, `std`, `max`, `min`, `argmax`, `argmin`,
//! `all`, `any`, `count_nonzero`) are [`ReductionKernel`](crate::ReductionKernel)s: each
//! has a full form (`sum(&a)`, a 0-d result) and an axis form
//! (`sum_axis(&a, axis, Keepdims::No)`). Result dtypes follow NumPy: integer sums and products
//! are int64 (uint64 for unsigned), means/variances of integers float64; float16 and
//! bfloat16 accumulate in float32; `var`/`std` use one pass with Welford merges (ddof 0).
//! NumPy's keywords (`dtype=`, `ddof`, `out=`) go through one builder, [`ReduceOpts`]
//! (`sum_with(&a, ReduceOpts::new().axis(1).dtype(DType::F64))`); the `nan*` reductions
//! skip NaNs.

mod binary;
pub(crate) mod clip;
mod close;
pub(crate) mod elementwise;
mod inplace;
mod linalg;
mod matmul_generic;
mod methods;
mod operators;
pub(crate) mod promote;
pub(crate) mod reduce_opts;
pub(crate) mod reduction;
mod reductions;
pub(crate) mod ufunc;
mod unary;
// Array routines (issue 16): scans, masks and gathers, sorts, joins.
pub(crate) mod compact;
mod indexing;
mod join;
mod mask;
mod masked;
mod masked_update;
pub(crate) mod permutation;
pub(crate) mod programs;
mod quantile;
mod radix;
mod samples;
pub(crate) mod scan;
mod scatter_at;
mod select;
mod sort;
mod sort_by_key;
pub(crate) mod sort_tuned;
pub(crate) mod subscript;
mod tune_inputs;
mod unique;
// Searches and counts: searchsorted, isin, bincount, histogram, argwhere.
mod argwhere;
mod histogram;
mod search;
// Shape routines: differences, rearranging, matrices.
mod diff;
pub mod fft;
pub(crate) mod fft_columns;
mod matrix;
mod rearrange;
mod unique_all;
mod unique_hash;

pub use crate::kernel::Keepdims;
pub use argwhere::argwhere;
pub use binary::*;
pub use clip::{ClipBound, clip, clip_into};
pub use close::{Tolerance, allclose, allclose_with, isclose};
pub use diff::{diff, diff_with};
pub use histogram::{Bins, bincount, histogram};
pub use indexing::{
    IndexMode, compress, flatnonzero, nonzero, put, put_with, scatter_add, take, take_with,
    where_nonzero,
};
pub use inplace::InPlace;
pub use join::{Split, array_split, concatenate, split, stack};
pub use linalg::{dot, matmul};
pub use mask::Masked;
pub use matrix::{diagonal, outer, trace, tril, triu};
pub use promote::{can_cast_safe, can_cast_same_kind, promote_types, result_type_of};
pub use quantile::{Quantiles, median, percentile, quantile};
pub use rearrange::{Repeats, flip, fliplr, flipud, repeat, roll, roll_axes, tile};
pub use reduce_opts::*;
pub use reductions::*;
#[doc(hidden)]
pub use samples::{elementwise_sample_sources, reduction_sample_sources, routine_sample_sources};
pub use scan::{cumprod, cumsum};
pub use scatter_at::{AtOp, at};
pub use search::{Side, isin, isin_with, searchsorted, searchsorted_with};
pub use sort::{argsort, sort};
pub use sort_by_key::sort_by_key;
pub use subscript::Index;
pub use unary::*;
pub use unique::{unique, unique_counts, unique_inverse};
pub use unique_all::{UniqueAll, unique_all, unique_all_axis, unique_axis, unique_index};
