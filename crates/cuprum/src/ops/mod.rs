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
//! # if !cuprum::internal::doc_device()? { return Ok(()); }
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

mod close;
mod elementwise;
mod inplace;
mod linalg;
mod methods;
mod operators;
pub(crate) mod promote;
pub(crate) mod reduction;
pub(crate) mod ufunc;
// Array routines (issue 16): scans, masks and gathers, sorts, joins.
mod compact;
mod indexing;
mod join;
mod masked;
mod masked_update;
pub(crate) mod permutation;
mod programs;
mod scan;
mod sort;
mod unique;

#[doc(hidden)]
pub use elementwise::sample_sources as elementwise_sample_sources;
pub use indexing::{
    IndexMode, compress, flatnonzero, nonzero, put, put_with, scatter_add, take, take_with,
    where_nonzero,
};
pub use inplace::InPlace;
pub use join::{Split, array_split, concatenate, split, stack};
pub use linalg::{dot, matmul};
pub use masked::Masked;
pub use promote::{can_cast_safe, can_cast_same_kind, promote_types, result_type_of};
#[doc(hidden)]
pub use reduction::sample_sources as reduction_sample_sources;
pub use scan::{cumprod, cumsum};
pub use sort::{argsort, sort};
pub use unique::{unique, unique_counts, unique_inverse};

/// Every routine kernel's source for NVRTC compile checks (scans, compaction, sorts,
/// gathers and scatters, for every dtype).
#[doc(hidden)]
pub fn routine_sample_sources() -> Result<Vec<(String, String)>> {
    let mut v = scan::sample_sources();
    v.extend(compact::sample_sources());
    v.extend(indexing::sample_sources());
    v.extend(sort::sample_sources());
    v.extend(indexing::elementwise_sources()?);
    v.extend(unique::elementwise_sources()?);
    Ok(v)
}

use crate::array::Array;
use crate::error::Result;
pub use crate::kernel::Keepdims;
use crate::kernel::{Axes, IntoOperand};
pub use close::Tolerance;
use elementwise::{Op, binary_into, binary_of, unary, unary_to};
use reduction::{ROp, reduce};

macro_rules! binary_fns {
    ($($(#[$doc:meta])* $name:ident, $into:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: impl IntoOperand, b: impl IntoOperand) -> Result<Array> {
            binary_of(Op::$op, &a, &b)
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (NumPy's `out=`). The operands \
            broadcast to `out`'s shape; the result converts to `out`'s dtype under NumPy's \
            `same_kind` rule ([`can_cast_same_kind`]: float64 into float32 is fine, float into an \
            integer array is an error); `out` may be one of the operands (`a op= b` is \
            `", stringify!($into), "(&a, &b, &a)`), and an operand that only partly overlaps \
            `out` is copied first, so the result is as if nothing overlapped.")]
        ///
        /// ```
        /// # if !cuprum::internal::doc_device()? { return Ok(()); }
        /// # use cuprum::{Array, ops};
        /// let a = Array::from_slice(&[6i64, 3, -7], &[3])?;
        /// let b = Array::from_slice(&[4i64, 2, 2], &[3])?;
        #[doc = concat!("let want = ops::", stringify!($name), "(&a, &b)?;")]
        /// let out = Array::empty(&[3], want.dtype())?;
        #[doc = concat!("ops::", stringify!($into), "(&a, &b, &out)?;")]
        /// assert!(ops::all(&ops::equal(&out, &want)?)?.to_vec::<bool>()?[0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn $into(a: impl IntoOperand, b: impl IntoOperand, out: &Array) -> Result<()> {
            binary_into(Op::$op, &a, &b, out)
        }
    )*};
}

binary_fns! {
    /// `a + b` (bool: logical or).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert_eq!(ops::add(&a, 10i32)?.to_vec::<i32>()?, vec![11, 12]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    add, add_into => Add;
    /// `a - b` (an error for bool, as in NumPy).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f64, 2.5], &[2])?;
    /// assert_eq!(ops::subtract(&a, 1.0)?.to_vec::<f64>()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    subtract, subtract_into => Sub;
    /// `a * b` (bool: logical and).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f32, 2.0], &[2])?;
    /// assert_eq!(ops::multiply(&a, &a)?.to_vec::<f32>()?, vec![2.25, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    multiply, multiply_into => Mul;
    /// True division `a / b`: integers and bools give float64, as in NumPy.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, DType, ops};
    /// let a = Array::from_slice(&[1i32, 3], &[2])?;
    /// let q = ops::divide(&a, 2i32)?;
    /// assert_eq!((q.dtype(), q.to_vec::<f64>()?), (DType::F64, vec![0.5, 1.5]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    divide, divide_into => Div;
    /// NumPy's `remainder` (`%`): the result has the sign of the divisor; integer
    /// division by zero gives 0.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-7i32, 7], &[2])?;
    /// assert_eq!(ops::remainder(&a, 3i32)?.to_vec::<i32>()?, vec![2, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    remainder, remainder_into => Rem;
    /// `a ** b`. Integer powers are exact; a negative integer exponent gives 0 (except
    /// for bases 1 and -1) where NumPy raises. A scalar exponent 2 or 3 is computed as
    /// multiplications and 0.5 as a square root (as NumPy's `**`): `power(&d, 2)` costs what
    /// `multiply(&d, &d)` costs.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2i64, 3], &[2])?;
    /// assert_eq!(ops::power(&a, 3i64)?.to_vec::<i64>()?, vec![8, 27]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    power, power_into => Pow;
    /// Elementwise maximum; NaN propagates.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::maximum(&a, 0.0)?.to_vec::<f32>()?, vec![0.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    maximum, maximum_into => Maximum;
    /// Elementwise minimum; NaN propagates.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::minimum(&a, 0.0)?.to_vec::<f32>()?, vec![-1.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    minimum, minimum_into => Minimum;
    /// `a == b` as a bool array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::equal(&a, 2i8)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    equal, equal_into => Equal;
    /// `a != b` as a bool array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::not_equal(&a, 2i8)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    not_equal, not_equal_into => NotEqual;
    /// `a < b` as a bool array (complex numbers compare lexicographically).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less(&a, 1.5)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less, less_into => Less;
    /// `a <= b` as a bool array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less_equal(&a, 2.0)?.to_vec::<bool>()?, vec![true, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less_equal, less_equal_into => LessEqual;
    /// `a > b` as a bool array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater(&a, 1.5)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater, greater_into => Greater;
    /// `a >= b` as a bool array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater_equal(&a, 2.0)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater_equal, greater_equal_into => GreaterEqual;
    /// NumPy's `//`: the quotient rounded toward minus infinity, for integers and floats
    /// (bools compute in int8; no complex numbers). Integer division by zero gives 0 and
    /// `MIN // -1` wraps to `MIN`, as in NumPy, without a fault; a float divided by zero
    /// gives `a / 0` (±inf or NaN).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[7i64, -7, 7, 5], &[4])?;
    /// let b = Array::from_slice(&[2i64, 2, -2, 0], &[4])?;
    /// assert_eq!(ops::floor_divide(&a, &b)?.to_vec::<i64>()?, vec![3, -4, -4, 0]);
    /// let f = Array::from_slice(&[-7.5f64, 7.5], &[2])?;
    /// assert_eq!(ops::floor_divide(&f, 2.0)?.to_vec::<f64>()?, vec![-4.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    floor_divide, floor_divide_into => FloorDiv;
    /// C's `fmod`: the remainder with the sign of the dividend (NumPy's `fmod`; integer
    /// division by zero gives 0).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-7i32, 7], &[2])?;
    /// assert_eq!(ops::fmod(&a, 3i32)?.to_vec::<i32>()?, vec![-1, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    fmod, fmod_into => Fmod;
    /// Logical and of the operands' truth values (non-zero is true), as bools.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32, 2.0, 3.0], &[3])?;
    /// let b = Array::from_slice(&[1i8, 0, 5], &[3])?;
    /// assert_eq!(ops::logical_and(&a, &b)?.to_vec::<bool>()?, vec![false, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    logical_and, logical_and_into => LogicalAnd;
    /// Logical or of the operands' truth values, as bools.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0i32, 0, 3], &[3])?;
    /// assert_eq!(ops::logical_or(&a, false)?.to_vec::<bool>()?, vec![false, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    logical_or, logical_or_into => LogicalOr;
    /// Logical exclusive or of the operands' truth values, as bools.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[true, false], &[2])?;
    /// assert_eq!(ops::logical_xor(&a, true)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    logical_xor, logical_xor_into => LogicalXor;
    /// Bitwise and of integers (bools: logical and); also the `&` operator. Floats are a
    /// dtype error, as in NumPy.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[12u8, 10], &[2])?;
    /// assert_eq!(ops::bitwise_and(&a, 6u8)?.to_vec::<u8>()?, vec![4, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    bitwise_and, bitwise_and_into => BitAnd;
    /// Bitwise or of integers (bools: logical or); also the `|` operator.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[12u8, 10], &[2])?;
    /// assert_eq!(ops::bitwise_or(&a, 1u8)?.to_vec::<u8>()?, vec![13, 11]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    bitwise_or, bitwise_or_into => BitOr;
    /// Bitwise exclusive or of integers (bools: not equal); also the `^` operator.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[12i16, -1], &[2])?;
    /// assert_eq!(ops::bitwise_xor(&a, 5i16)?.to_vec::<i16>()?, vec![9, -6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    bitwise_xor, bitwise_xor_into => BitXor;
    /// `a << b` for integers (bools compute in int8); also the `<<` operator. Signed values
    /// wrap; an amount outside `[0, bits)` shifts every bit out (0), as in NumPy.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 3, 64], &[3])?;
    /// assert_eq!(ops::left_shift(&a, 1i8)?.to_vec::<i8>()?, vec![2, 6, -128]);
    /// assert_eq!(ops::left_shift(&a, 8i8)?.to_vec::<i8>()?, vec![0, 0, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    left_shift, left_shift_into => LeftShift;
    /// `a >> b` for integers (arithmetic for signed types); also the `>>` operator. An
    /// amount outside `[0, bits)` gives 0, or -1 for a negative value, as in NumPy.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-8i32, 8], &[2])?;
    /// assert_eq!(ops::right_shift(&a, 2i32)?.to_vec::<i32>()?, vec![-2, 2]);
    /// assert_eq!(ops::right_shift(&a, 40i32)?.to_vec::<i32>()?, vec![-1, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    right_shift, right_shift_into => RightShift;
    /// `atan2(a, b)`: the angle of the point `(b, a)` in `[-pi, pi]` (real numbers;
    /// integers compute in the float type NumPy picks).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let y = Array::from_slice(&[1.0f64, -1.0], &[2])?;
    /// let a = ops::arctan2(&y, -1.0)?.to_vec::<f64>()?;
    /// assert!((a[0] - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arctan2, arctan2_into => Arctan2;
    /// `sqrt(a^2 + b^2)` without intermediate overflow (real numbers).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[3.0f32, 1e30], &[2])?;
    /// assert_eq!(ops::hypot(&a, 4.0f32)?.to_vec::<f32>()?, vec![5.0, 1e30]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    hypot, hypot_into => Hypot;
}

macro_rules! unary_fns {
    ($($(#[$doc:meta])* $name:ident, $into:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            unary(Op::$op, a)
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (NumPy's `out=`): `a` \
            broadcasts to `out`'s shape, the result converts to `out`'s dtype under NumPy's \
            `same_kind` rule ([`can_cast_same_kind`]); `out` may be `a` itself (in place).")]
        ///
        /// ```
        /// # if !cuprum::internal::doc_device()? { return Ok(()); }
        /// # use cuprum::{Array, ops};
        /// let a = Array::from_slice(&[1i64, 4, -2], &[3])?;
        #[doc = concat!("let want = ops::", stringify!($name), "(&a)?;")]
        /// let out = Array::empty(&[3], want.dtype())?;
        #[doc = concat!("ops::", stringify!($into), "(&a, &out)?;")]
        /// assert_eq!(out.shape(), want.shape());
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn $into(a: &Array, out: &Array) -> Result<()> {
            unary_to(Op::$op, a, Some(out)).map(drop)
        }
    )*};
}

unary_fns! {
    /// `-a` (an error for bool; unsigned integers wrap).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i16, -2], &[2])?;
    /// assert_eq!(ops::negative(&a)?.to_vec::<i16>()?, vec![-1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    negative, negative_into => Neg;
    /// Absolute value; complex input gives the real magnitude (complex64 → float32).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let z = Array::from_slice(&[num_complex::Complex::new(3.0f64, 4.0)], &[1])?;
    /// assert_eq!(ops::abs(&z)?.to_vec::<f64>()?, vec![5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    abs, abs_into => Abs;
    /// Square root (integers compute in the float type NumPy picks: int8 → float16,
    /// int16 → float32, int32/int64 → float64).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[4.0f32, 9.0], &[2])?;
    /// assert_eq!(ops::sqrt(&a)?.to_vec::<f32>()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sqrt, sqrt_into => Sqrt;
    /// `e^a`.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::exp(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    exp, exp_into => Exp;
    /// Natural logarithm.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::log(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log, log_into => Log;
    /// Sine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sin(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sin, sin_into => Sin;
    /// Cosine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cos(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cos, cos_into => Cos;
    /// Tangent.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tan, tan_into => Tan;
    /// Hyperbolic tangent.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tanh(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tanh, tanh_into => Tanh;
    /// Largest integer not above `a` (NumPy 2: integers and bools keep their dtype and
    /// value; no complex numbers).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.5f32, 1.5], &[2])?;
    /// assert_eq!(ops::floor(&a)?.to_vec::<f32>()?, vec![-2.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    floor, floor_into => Floor;
    /// Smallest integer not below `a` (integers and bools unchanged).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.5f32, 1.5], &[2])?;
    /// assert_eq!(ops::ceil(&a)?.to_vec::<f32>()?, vec![-1.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ceil, ceil_into => Ceil;
    /// `a` rounded toward zero (integers and bools unchanged).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.5f64, 1.5], &[2])?;
    /// assert_eq!(ops::trunc(&a)?.to_vec::<f64>()?, vec![-1.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    trunc, trunc_into => Trunc;
    /// `a` rounded to the nearest integer, halves to even (NumPy's `rint`: integers compute
    /// in the float type NumPy picks; complex numbers round each part).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.5f32, 1.5, 2.5, -0.7], &[4])?;
    /// assert_eq!(ops::rint(&a)?.to_vec::<f32>()?, vec![0.0, 2.0, 2.0, -1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    rint, rint_into => Rint;
    /// NumPy's `round(a)` (0 decimals): floats and complex numbers as [`rint`], integers and
    /// bools unchanged in their own dtype.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, DType, ops};
    /// let a = Array::from_slice(&[2.5f64, -3.5], &[2])?;
    /// assert_eq!(ops::round(&a)?.to_vec::<f64>()?, vec![2.0, -4.0]);
    /// let i = Array::from_slice(&[7i16], &[1])?;
    /// assert_eq!(ops::round(&i)?.dtype(), DType::I16);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    round, round_into => Round;
    /// Whether `a` is NaN, as bools (either part of a complex number; never for integers).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f32::NAN, 1.0, f32::INFINITY], &[3])?;
    /// assert_eq!(ops::isnan(&a)?.to_vec::<bool>()?, vec![true, false, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    isnan, isnan_into => IsNan;
    /// Whether `a` is +inf or -inf, as bools.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f32::NAN, 1.0, f32::NEG_INFINITY], &[3])?;
    /// assert_eq!(ops::isinf(&a)?.to_vec::<bool>()?, vec![false, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    isinf, isinf_into => IsInf;
    /// Whether `a` is neither NaN nor infinite, as bools (always for integers).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f64::NAN, 1.0, f64::INFINITY], &[3])?;
    /// assert_eq!(ops::isfinite(&a)?.to_vec::<bool>()?, vec![false, true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    isfinite, isfinite_into => IsFinite;
    /// Whether the sign bit is set, as bools (`-0.0` and negative NaNs too; integers
    /// through their float type; no complex numbers).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-0.0f32, 0.0, -2.0], &[3])?;
    /// assert_eq!(ops::signbit(&a)?.to_vec::<bool>()?, vec![true, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    signbit, signbit_into => Signbit;
    /// Logical not of the truth values (non-zero is true), as bools.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0i32, 5], &[2])?;
    /// assert_eq!(ops::logical_not(&a)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    logical_not, logical_not_into => LogicalNot;
    /// Bitwise not of integers, logical not of bools (NumPy's `invert`, `~`; the `!`
    /// operator). Floats are a dtype error.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0u8, 5], &[2])?;
    /// assert_eq!(ops::invert(&a)?.to_vec::<u8>()?, vec![255, 250]);
    /// let b = Array::from_slice(&[true, false], &[2])?;
    /// assert_eq!(ops::invert(&b)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    invert, invert_into => Invert;
    /// Base-2 logarithm (integers compute in the float type NumPy picks).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[8.0f32, 0.5], &[2])?;
    /// assert_eq!(ops::log2(&a)?.to_vec::<f32>()?, vec![3.0, -1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log2, log2_into => Log2;
    /// Base-10 logarithm.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1000.0f64], &[1])?;
    /// assert_eq!(ops::log10(&a)?.to_vec::<f64>()?, vec![3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log10, log10_into => Log10;
    /// `log(1 + a)`, accurate for small `a`.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1e-20f64], &[1])?;
    /// assert_eq!(ops::log1p(&a)?.to_vec::<f64>()?, vec![1e-20]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log1p, log1p_into => Log1p;
    /// `e^a - 1`, accurate for small `a`.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1e-20f64], &[1])?;
    /// assert_eq!(ops::expm1(&a)?.to_vec::<f64>()?, vec![1e-20]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    expm1, expm1_into => Expm1;
    /// `2^a`.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[3.0f32, -1.0], &[2])?;
    /// assert_eq!(ops::exp2(&a)?.to_vec::<f32>()?, vec![8.0, 0.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    exp2, exp2_into => Exp2;
    /// Inverse sine (NaN outside [-1, 1] for real input; complex numbers on the principal
    /// branch).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// assert_eq!(ops::arcsin(&a)?.to_vec::<f64>()?, vec![0.0, std::f64::consts::FRAC_PI_2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arcsin, arcsin_into => Arcsin;
    /// Inverse cosine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::arccos(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arccos, arccos_into => Arccos;
    /// Inverse tangent.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::arctan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arctan, arctan_into => Arctan;
    /// Hyperbolic sine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sinh(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sinh, sinh_into => Sinh;
    /// Hyperbolic cosine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cosh(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cosh, cosh_into => Cosh;
    /// Inverse hyperbolic sine.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::arcsinh(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arcsinh, arcsinh_into => Arcsinh;
    /// Inverse hyperbolic cosine (NaN below 1 for real input).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::arccosh(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arccosh, arccosh_into => Arccosh;
    /// Inverse hyperbolic tangent (±inf at ±1).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// assert_eq!(ops::arctanh(&a)?.to_vec::<f64>()?, vec![0.0, f64::INFINITY]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arctanh, arctanh_into => Arctanh;
    /// Cube root (real numbers; negative numbers have negative roots).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-8.0f64, 27.0], &[2])?;
    /// let r = ops::cbrt(&a)?.to_vec::<f64>()?;
    /// // within an ulp: CUDA's cbrt gives 3 exactly, the host device's C library 3 + 1 ulp
    /// assert!((r[0] + 2.0).abs() <= 4e-16 && (r[1] - 3.0).abs() <= 5e-16, "{r:?}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cbrt, cbrt_into => Cbrt;
    /// -1, 0 or 1 by the sign of `a` (NaN stays NaN, `-0.0` gives 0; bools compute in int8;
    /// complex numbers give `a / |a|`, as in NumPy 2).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i32, 0, 9], &[3])?;
    /// assert_eq!(ops::sign(&a)?.to_vec::<i32>()?, vec![-1, 0, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sign, sign_into => Sign;
    /// `a * a` (bools compute in int8; integers wrap).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i32, 4], &[2])?;
    /// assert_eq!(ops::square(&a)?.to_vec::<i32>()?, vec![9, 16]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    square, square_into => Square;
    /// `1 / a`. Integers keep their dtype: the truncated quotient (1 for 1, -1 for -1, else
    /// 0, and 0 for 0, where NumPy's result is platform-defined); bools compute in int8.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[4.0f32, -0.5], &[2])?;
    /// assert_eq!(ops::reciprocal(&a)?.to_vec::<f32>()?, vec![0.25, -2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    reciprocal, reciprocal_into => Reciprocal;
    /// Complex conjugate (real numbers unchanged; bools compute in int8, as NumPy's
    /// `conjugate`).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(1.0f64, 2.0)], &[1])?;
    /// assert_eq!(ops::conj(&z)?.to_vec::<Complex<f64>>()?, vec![Complex::new(1.0, -2.0)]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    conj, conj_into => Conj;
    /// Real part: complex64 → float32, complex128 → float64; real numbers are copied
    /// unchanged (NumPy's `real`, as a new array).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(1.0f32, 2.0)], &[1])?;
    /// assert_eq!(ops::real(&z)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    real, real_into => Real;
    /// Imaginary part: complex64 → float32, complex128 → float64; real numbers give
    /// zeros of their own dtype.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(1.0f32, 2.0)], &[1])?;
    /// assert_eq!(ops::imag(&z)?.to_vec::<f32>()?, vec![2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    imag, imag_into => Imag;
    /// The angle of complex numbers in radians, `atan2(imag, real)`; real numbers give 0,
    /// or pi when negative (integers compute in the float type NumPy picks).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(0.0f64, 1.0)], &[1])?;
    /// assert_eq!(ops::angle(&z)?.to_vec::<f64>()?, vec![std::f64::consts::FRAC_PI_2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    angle, angle_into => Angle;
}

/// Bitwise not: the same as [`invert`] (NumPy's alias).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[0i8], &[1])?;
/// assert_eq!(ops::bitwise_not(&a)?.to_vec::<i8>()?, vec![-1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn bitwise_not(a: &Array) -> Result<Array> {
    invert(a)
}

/// Complex conjugate: the same as [`conj`] (NumPy's `conjugate`).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2.0f32], &[1])?;
/// assert_eq!(ops::conjugate(&a)?.to_vec::<f32>()?, vec![2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn conjugate(a: &Array) -> Result<Array> {
    conj(a)
}

/// Limits values to `[lo, hi]` (either bound an array or a scalar; NaN propagates).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// assert_eq!(ops::clip(&a, 0.0, 6.0)?.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip(a: impl IntoOperand, lo: impl IntoOperand, hi: impl IntoOperand) -> Result<Array> {
    elementwise::clip_to(a.operand(), lo.operand(), hi.operand(), None)
}

/// [`clip`] written into `out` (NumPy's `out=`; broadcasting, `same_kind` casting and
/// overlap as for the binary `_into` functions, e.g. [`add_into`]).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// ops::clip_into(&a, 0.0, 6.0, &a)?;                       // in place
/// assert_eq!(a.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip_into(
    a: impl IntoOperand,
    lo: impl IntoOperand,
    hi: impl IntoOperand,
    out: &Array,
) -> Result<()> {
    elementwise::clip_to(a.operand(), lo.operand(), hi.operand(), Some(out)).map(drop)
}

/// `x` where `cond` is non-zero, else `y` (NumPy's `where`; all three broadcast).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
        /// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(ops::sum(&a)?.to_vec::<i64>()?, vec![6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sum, sum_axis => Sum;
    /// Product of every element.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2.0f64, 3.0, 4.0], &[3])?;
    /// assert_eq!(ops::prod(&a)?.to_vec::<f64>()?, vec![24.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    prod, prod_axis => Prod;
    /// Arithmetic mean (float64 for integer input).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
    /// assert_eq!(ops::mean(&a)?.to_vec::<f64>()?, vec![2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    mean, mean_axis => Mean;
    /// Population variance (ddof 0), one pass (Welford merges in a fixed order).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(ops::var(&a)?.to_vec::<f64>()?, vec![1.25]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    var, var_axis => Var;
    /// Population standard deviation (ddof 0).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 3.0], &[2])?;
    /// assert_eq!(ops::std(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    std, std_axis => Std;
    /// Largest element (NaN propagates; an error for an empty array).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::max(&a)?.to_vec::<i8>()?, vec![7]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    max, max_axis => Max;
    /// Smallest element (NaN propagates; an error for an empty array).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::min(&a)?.to_vec::<i8>()?, vec![-3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    min, min_axis => Min;
    /// Whether every element is non-zero.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::all(&a)?.to_vec::<bool>()?, vec![false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    all, all_axis => All;
    /// Whether any element is non-zero.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::any(&a)?.to_vec::<bool>()?, vec![true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    any, any_axis => Any;
    /// Number of non-zero elements (int64).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f32, 0.0, 2.0], &[3])?;
    /// assert_eq!(ops::count_nonzero(&a)?.to_vec::<i64>()?, vec![2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    count_nonzero, count_nonzero_axis => CountNonzero;
}

/// Index of the largest element in C order (int64, 0-d); the first one on ties, the first
/// NaN if there is one.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[4i32, -1, 0, 8], &[2, 2])?;
/// assert_eq!(ops::argmin_axis(&a, 0, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmin_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::ArgMin, a, Some(axis.into()), keepdims.keeps())
}

/// Elementwise `|a - b| <= atol + rtol * |b|` as a bool array (NumPy's `isclose`); equal
/// infinities are close; NaNs are close to each other only with
/// [`nan_equal`](Tolerance::nan_equal).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// let c = ops::isclose(&a, 1.0 + 1e-9, Tolerance::new(1e-5, 1e-8))?;
/// assert_eq!(c.to_vec::<bool>()?, vec![true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn isclose(a: impl IntoOperand, b: impl IntoOperand, tol: Tolerance) -> Result<Array> {
    close::isclose(&a, &b, tol.rtol, tol.atol, tol.equal_nan)
}

/// Whether every pair is close with NumPy's defaults (`rtol = 1e-5`, `atol = 1e-8`, NaNs
/// never close), in one reduction over the broadcast arrays.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// let b = Array::from_slice(&[1.0f32, 2.000001], &[2])?;
/// assert!(ops::allclose(&a, &b)?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose(a: &Array, b: &Array) -> Result<bool> {
    allclose_with(a, b, Tolerance::default())
}

/// [`allclose`] with explicit tolerances and NaN handling.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[f64::NAN, 1.0], &[2])?;
/// assert!(ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0).nan_equal())?);
/// assert!(!ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0))?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose_with(a: &Array, b: &Array, tol: Tolerance) -> Result<bool> {
    close::allclose(a, b, tol.rtol, tol.atol, tol.equal_nan)
}
