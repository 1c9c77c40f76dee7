//! Reductions as functions: `sum` … `count_nonzero` over the whole array (a 0-d result) or
//! along axes (`sum_axis`), and `argmax`/`argmin` (see `reduction.rs` for how each
//! accumulates).

use super::reduction::{ROp, reduce};
use crate::array::Array;
use crate::error::Result;
use crate::kernel::{Axes, Keepdims};

macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident, $axis_name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            reduce(ROp::$op, a, None, false)
        }

        #[doc = concat!("[`", stringify!($name), "`](crate::ops::", stringify!($name), "()) over `axis` (one axis, several, negative ones \
            counting from the end); [`Keepdims::Yes`] keeps reduced axes with extent 1.")]
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::{Array, DType, ops, ops::Keepdims};
        /// let m = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        #[doc = concat!("let r = ops::", stringify!($axis_name), "(&m, 1, Keepdims::No)?;")]
        /// assert_eq!(r.shape(), &[2]);
        #[doc = concat!("let k = ops::", stringify!($axis_name), "(&m, [0, 1], Keepdims::Yes)?;")]
        /// assert_eq!(k.shape(), &[1, 1]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn $axis_name(a: &Array, axis: impl Into<Axes>, keepdims: Keepdims) -> Result<Array> {
            reduce(ROp::$op, a, Some(axis.into()), keepdims.keeps())
        }
    )*};
}

reductions! {
    /// Sum of every element (a 0-d array; integers sum in int64, unsigned in uint64).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(ops::sum(&a)?.to_vec::<i64>()?, vec![6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sum, sum_axis => Sum;
    /// Product of every element.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2.0f64, 3.0, 4.0], &[3])?;
    /// assert_eq!(ops::prod(&a)?.to_vec::<f64>()?, vec![24.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    prod, prod_axis => Prod;
    /// Arithmetic mean (float64 for integer input).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
    /// assert_eq!(ops::mean(&a)?.to_vec::<f64>()?, vec![2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    mean, mean_axis => Mean;
    /// Population variance (ddof 0), one pass (Welford merges in a fixed order).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(ops::var(&a)?.to_vec::<f64>()?, vec![1.25]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    var, var_axis => Var;
    /// Population standard deviation (ddof 0).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 3.0], &[2])?;
    /// assert_eq!(ops::std(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    std, std_axis => Std;
    /// Largest element (NaN propagates; an error for an empty array).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::max(&a)?.to_vec::<i8>()?, vec![7]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    max, max_axis => Max;
    /// Smallest element (NaN propagates; an error for an empty array).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::min(&a)?.to_vec::<i8>()?, vec![-3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    min, min_axis => Min;
    /// Whether every element is non-zero.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::all(&a)?.to_vec::<bool>()?, vec![false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    all, all_axis => All;
    /// Whether any element is non-zero.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::any(&a)?.to_vec::<bool>()?, vec![true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    any, any_axis => Any;
    /// Number of non-zero elements (int64).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f32, 0.0, 2.0], &[3])?;
    /// assert_eq!(ops::count_nonzero(&a)?.to_vec::<i64>()?, vec![2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    count_nonzero, count_nonzero_axis => CountNonzero;
    /// Sum ignoring NaNs (NumPy's `nansum`: NaNs count as zero, an all-NaN slice sums to
    /// 0; integer and bool input: [`sum`](crate::ops::sum)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f32, f32::NAN, 2.0], &[3])?;
    /// assert_eq!(ops::nansum(&a)?.to_vec::<f32>()?, vec![3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nansum, nansum_axis => NanSum;
    /// Mean ignoring NaNs (NumPy's `nanmean`: NaN for an all-NaN or empty slice; integers
    /// average in float64).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, f64::NAN, 2.0], &[3])?;
    /// assert_eq!(ops::nanmean(&a)?.to_vec::<f64>()?, vec![1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmean, nanmean_axis => NanMean;
    /// Largest element ignoring NaNs (NumPy's `nanmax`: NaN only for an all-NaN slice; an
    /// error for an empty array).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f64::NAN, -1.0, 2.0], &[3])?;
    /// assert_eq!(ops::nanmax(&a)?.to_vec::<f64>()?, vec![2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmax, nanmax_axis => NanMax;
    /// Smallest element ignoring NaNs (NumPy's `nanmin`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f64::NAN, -1.0, 2.0], &[3])?;
    /// assert_eq!(ops::nanmin(&a)?.to_vec::<f64>()?, vec![-1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmin, nanmin_axis => NanMin;
}

/// Index of the largest element ignoring NaNs, in C order (NumPy's `nanargmax`; int64, 0-d).
/// An all-NaN array is an `InvalidArgument` error, "All-NaN slice encountered" (checked on
/// the host: the call waits for the result).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[f32::NAN, 9.0, 9.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::nanargmax(&a)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nanargmax(a: &Array) -> Result<Array> {
    reduce(ROp::NanArgMax, a, None, false)
}

/// [`nanargmax`] along one axis (an all-NaN slice is an error).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[f32::NAN, 9.0, 7.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::nanargmax_axis(&a, 0, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nanargmax_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::NanArgMax, a, Some(axis.into()), keepdims.keeps())
}

/// Index of the smallest element ignoring NaNs, in C order (NumPy's `nanargmin`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[4.0f64, f64::NAN, -1.0], &[3])?;
/// assert_eq!(ops::nanargmin(&a)?.to_vec::<i64>()?, vec![2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nanargmin(a: &Array) -> Result<Array> {
    reduce(ROp::NanArgMin, a, None, false)
}

/// [`nanargmin`] along one axis (an all-NaN slice is an error).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[4.0f64, f64::NAN, -1.0, 8.0], &[2, 2])?;
/// assert_eq!(ops::nanargmin_axis(&a, 1, Keepdims::No)?.to_vec::<i64>()?, vec![0, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nanargmin_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::NanArgMin, a, Some(axis.into()), keepdims.keeps())
}

/// Index of the largest element in C order (int64, 0-d); the first one on ties, the first
/// NaN if there is one.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 9.0, 9.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::argmax(&a)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmax(a: &Array) -> Result<Array> {
    reduce(ROp::ArgMax, a, None, false)
}

/// Index of the largest element along one axis.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[1.0f32, 9.0, 7.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::argmax_axis(&a, 1, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmax_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::ArgMax, a, Some(axis.into()), keepdims.keeps())
}

/// Index of the smallest element in C order (int64, 0-d); the first one on ties, the
/// first NaN if there is one.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[4i32, -1, -1], &[3])?;
/// assert_eq!(ops::argmin(&a)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmin(a: &Array) -> Result<Array> {
    reduce(ROp::ArgMin, a, None, false)
}

/// Index of the smallest element along one axis.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[4i32, -1, 0, 8], &[2, 2])?;
/// assert_eq!(ops::argmin_axis(&a, 0, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmin_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::ArgMin, a, Some(axis.into()), keepdims.keeps())
}
