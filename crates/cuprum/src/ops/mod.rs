//! Built-in operations on arrays, every one defined as an
//! [`ElementwiseKernel`](crate::ElementwiseKernel) (no separate launch path).
//!
//! Unlike user kernels these follow NumPy: operands broadcast, dtypes promote
//! ([`promote_types`]), and Rust scalars are *weak* — `f32_array * 2.0` stays float32,
//! `i32_array * 0.5` becomes float64, `u8_array + 300` is an error (300 does not fit).
//! Operators work on `&Array` and return `Result<Array>`:
//!
//! ```no_run
//! use cuprum::{Array, DType, ops};
//! let x = Array::from_slice(&[1.0f32, -2.0, 3.0], &[3])?;
//! let y = (&x * 2.0)?;                                  // float32
//! let z = ops::maximum(&y, 0.0)?;                        // relu
//! let m = ops::less(&x, 0.0)?;                           // bool mask
//! let w = ops::where_(&m, 0.0, &x)?;
//! assert_eq!(w.to_vec::<f32>()?, vec![1.0, 0.0, 3.0]);
//! assert_eq!((&x + 1i32)?.dtype(), DType::F32);
//! # Ok::<(), cuprum::Error>(())
//! ```

mod elementwise;
mod methods;
mod operators;
mod promote;

#[doc(hidden)]
pub use elementwise::sample_sources as elementwise_sample_sources;
pub use promote::{can_cast_safe, promote_types, result_type_of};

use crate::array::Array;
use crate::error::Result;
use crate::kernel::IntoOperand;
use elementwise::{Op, binary_of, unary};

macro_rules! binary_fns {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: impl IntoOperand, b: impl IntoOperand) -> Result<Array> {
            binary_of(Op::$op, &a, &b)
        }
    )*};
}

binary_fns! {
    /// `a + b` (bool: logical or).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert_eq!(ops::add(&a, 10i32)?.to_vec::<i32>()?, vec![11, 12]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    add => Add;
    /// `a - b` (an error for bool, as in NumPy).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f64, 2.5], &[2])?;
    /// assert_eq!(ops::subtract(&a, 1.0)?.to_vec::<f64>()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    subtract => Sub;
    /// `a * b` (bool: logical and).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f32, 2.0], &[2])?;
    /// assert_eq!(ops::multiply(&a, &a)?.to_vec::<f32>()?, vec![2.25, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    multiply => Mul;
    /// True division `a / b`: integers and bools give float64, as in NumPy.
    ///
    /// ```no_run
    /// # use cuprum::{Array, DType, ops};
    /// let a = Array::from_slice(&[1i32, 3], &[2])?;
    /// let q = ops::divide(&a, 2i32)?;
    /// assert_eq!((q.dtype(), q.to_vec::<f64>()?), (DType::F64, vec![0.5, 1.5]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    divide => Div;
    /// NumPy's `remainder` (`%`): the result has the sign of the divisor; integer
    /// division by zero gives 0.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-7i32, 7], &[2])?;
    /// assert_eq!(ops::remainder(&a, 3i32)?.to_vec::<i32>()?, vec![2, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    remainder => Rem;
    /// `a ** b`. Integer powers are exact; a negative integer exponent gives 0 (except
    /// for bases 1 and -1) where NumPy raises.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2i64, 3], &[2])?;
    /// assert_eq!(ops::power(&a, 3i64)?.to_vec::<i64>()?, vec![8, 27]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    power => Pow;
    /// Elementwise maximum; NaN propagates.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::maximum(&a, 0.0)?.to_vec::<f32>()?, vec![0.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    maximum => Maximum;
    /// Elementwise minimum; NaN propagates.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::minimum(&a, 0.0)?.to_vec::<f32>()?, vec![-1.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    minimum => Minimum;
    /// `a == b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::equal(&a, 2i8)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    equal => Equal;
    /// `a != b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::not_equal(&a, 2i8)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    not_equal => NotEqual;
    /// `a < b` as a bool array (complex numbers compare lexicographically).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less(&a, 1.5)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less => Less;
    /// `a <= b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less_equal(&a, 2.0)?.to_vec::<bool>()?, vec![true, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less_equal => LessEqual;
    /// `a > b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater(&a, 1.5)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater => Greater;
    /// `a >= b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater_equal(&a, 2.0)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater_equal => GreaterEqual;
}

macro_rules! unary_fns {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            unary(Op::$op, a)
        }
    )*};
}

unary_fns! {
    /// `-a` (an error for bool; unsigned integers wrap).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i16, -2], &[2])?;
    /// assert_eq!(ops::negative(&a)?.to_vec::<i16>()?, vec![-1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    negative => Neg;
    /// Absolute value; complex input gives the real magnitude (complex64 → float32).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let z = Array::from_slice(&[num_complex::Complex::new(3.0f64, 4.0)], &[1])?;
    /// assert_eq!(ops::abs(&z)?.to_vec::<f64>()?, vec![5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    abs => Abs;
    /// Square root (integers compute in the float type NumPy picks: int8 → float16,
    /// int16 → float32, int32/int64 → float64).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[4.0f32, 9.0], &[2])?;
    /// assert_eq!(ops::sqrt(&a)?.to_vec::<f32>()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sqrt => Sqrt;
    /// `e^a`.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::exp(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    exp => Exp;
    /// Natural logarithm.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::log(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log => Log;
    /// Sine.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sin(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sin => Sin;
    /// Cosine.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cos(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cos => Cos;
    /// Tangent.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tan => Tan;
    /// Hyperbolic tangent.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tanh(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tanh => Tanh;
}

/// Limits values to `[lo, hi]` (either bound an array or a scalar; NaN propagates).
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// assert_eq!(ops::clip(&a, 0.0, 6.0)?.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip(a: impl IntoOperand, lo: impl IntoOperand, hi: impl IntoOperand) -> Result<Array> {
    elementwise::clip(a.operand(), lo.operand(), hi.operand())
}

/// `x` where `cond` is non-zero, else `y` (NumPy's `where`; all three broadcast).
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let c = Array::from_slice(&[true, false], &[2])?;
/// assert_eq!(ops::where_(&c, 1i32, -1i32)?.to_vec::<i32>()?, vec![1, -1]);
/// let x = Array::from_slice(&[1i32, 2], &[2])?;
/// assert_eq!(ops::where_(&c, &x, -1i32)?.to_vec::<i32>()?, vec![1, -1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[doc(alias = "where")]
pub fn where_(cond: impl IntoOperand, x: impl IntoOperand, y: impl IntoOperand) -> Result<Array> {
    elementwise::where_(cond.operand(), x.operand(), y.operand())
}
