//! Binary operations as functions — arithmetic, comparisons, logic, bitwise and the
//! two-argument math of the ufunc table — each with its `out=` form (`add_into`).

use super::elementwise::{Op, binary_into, binary_of};
use crate::array::Array;
use crate::error::Result;
use crate::kernel::IntoOperand;

macro_rules! binary_fns {
    ($($(#[$doc:meta])* $name:ident, $into:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: impl IntoOperand, b: impl IntoOperand) -> Result<Array> {
            binary_of(Op::$op, &a, &b)
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (NumPy's `out=`). The operands \
            broadcast to `out`'s shape; the result converts to `out`'s dtype under NumPy's \
            `same_kind` rule ([`can_cast_same_kind`](crate::ops::can_cast_same_kind): float64 into float32 is fine, float into an \
            integer array is an error); `out` may be one of the operands (`a op= b` is \
            `", stringify!($into), "(&a, &b, &a)`), and an operand that only partly overlaps \
            `out` is copied first, so the result is as if nothing overlapped.")]
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert_eq!(ops::add(&a, 10i32)?.to_vec::<i32>()?, vec![11, 12]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    add, add_into => Add;
    /// `a - b` (an error for bool, as in NumPy).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f64, 2.5], &[2])?;
    /// assert_eq!(ops::subtract(&a, 1.0)?.to_vec::<f64>()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    subtract, subtract_into => Sub;
    /// `a * b` (bool: logical and).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f32, 2.0], &[2])?;
    /// assert_eq!(ops::multiply(&a, &a)?.to_vec::<f32>()?, vec![2.25, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    multiply, multiply_into => Mul;
    /// True division `a / b`: integers and bools give float64, as in NumPy.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2i64, 3], &[2])?;
    /// assert_eq!(ops::power(&a, 3i64)?.to_vec::<i64>()?, vec![8, 27]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    power, power_into => Pow;
    /// Elementwise maximum; NaN propagates.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::maximum(&a, 0.0)?.to_vec::<f32>()?, vec![0.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    maximum, maximum_into => Maximum;
    /// Elementwise minimum; NaN propagates.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::minimum(&a, 0.0)?.to_vec::<f32>()?, vec![-1.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    minimum, minimum_into => Minimum;
    /// `a == b` as a bool array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::equal(&a, 2i8)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    equal, equal_into => Equal;
    /// `a != b` as a bool array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::not_equal(&a, 2i8)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    not_equal, not_equal_into => NotEqual;
    /// `a < b` as a bool array (complex numbers compare lexicographically).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less(&a, 1.5)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less, less_into => Less;
    /// `a <= b` as a bool array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less_equal(&a, 2.0)?.to_vec::<bool>()?, vec![true, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less_equal, less_equal_into => LessEqual;
    /// `a > b` as a bool array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater(&a, 1.5)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater, greater_into => Greater;
    /// `a >= b` as a bool array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-7i32, 7], &[2])?;
    /// assert_eq!(ops::fmod(&a, 3i32)?.to_vec::<i32>()?, vec![-1, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    fmod, fmod_into => Fmod;
    /// Logical and of the operands' truth values (non-zero is true), as bools.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0i32, 0, 3], &[3])?;
    /// assert_eq!(ops::logical_or(&a, false)?.to_vec::<bool>()?, vec![false, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    logical_or, logical_or_into => LogicalOr;
    /// Logical exclusive or of the operands' truth values, as bools.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[12u8, 10], &[2])?;
    /// assert_eq!(ops::bitwise_and(&a, 6u8)?.to_vec::<u8>()?, vec![4, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    bitwise_and, bitwise_and_into => BitAnd;
    /// Bitwise or of integers (bools: logical or); also the `|` operator.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[12u8, 10], &[2])?;
    /// assert_eq!(ops::bitwise_or(&a, 1u8)?.to_vec::<u8>()?, vec![13, 11]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    bitwise_or, bitwise_or_into => BitOr;
    /// Bitwise exclusive or of integers (bools: not equal); also the `^` operator.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[3.0f32, 1e30], &[2])?;
    /// assert_eq!(ops::hypot(&a, 4.0f32)?.to_vec::<f32>()?, vec![5.0, 1e30]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    hypot, hypot_into => Hypot;
    /// The next representable value after `a` towards `b`, in the operands' float type
    /// (real numbers; a 16-bit float steps by its own last bit).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f32, 0.0], &[2])?;
    /// let r = ops::nextafter(&a, 2.0f32)?.to_vec::<f32>()?;
    /// assert_eq!(r, vec![1.0 + f32::EPSILON, f32::from_bits(1)]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nextafter, nextafter_into => Nextafter;
}
