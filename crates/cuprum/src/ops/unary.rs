//! One-argument operations as functions — math, rounding, predicates and conversions of
//! the ufunc table, each with its `out=` form — plus `bitwise_not`, `conjugate` and
//! `where_` (`clip` is in `clip.rs`).

use super::elementwise::{self, Op, unary, unary_to};
use crate::array::Array;
use crate::error::Result;
use crate::kernel::IntoOperand;

macro_rules! unary_fns {
    ($($(#[$doc:meta])* $name:ident, $into:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            unary(Op::$op, a)
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (NumPy's `out=`): `a` \
            broadcasts to `out`'s shape, the result converts to `out`'s dtype under NumPy's \
            `same_kind` rule ([`can_cast_same_kind`](crate::ops::can_cast_same_kind)); `out` may be `a` itself (in place).")]
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i16, -2], &[2])?;
    /// assert_eq!(ops::negative(&a)?.to_vec::<i16>()?, vec![-1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    negative, negative_into => Neg;
    /// `+a`: a copy of `a`'s values in a new array of its dtype (NumPy's `positive`; an
    /// error for bool).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i16, -2], &[2])?;
    /// assert_eq!(ops::positive(&a)?.to_vec::<i16>()?, vec![1, -2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    positive, positive_into => Pos;
    /// Absolute value; complex input gives the real magnitude (complex64 → float32).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[4.0f32, 9.0], &[2])?;
    /// assert_eq!(ops::sqrt(&a)?.to_vec::<f32>()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sqrt, sqrt_into => Sqrt;
    /// `e^a`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::exp(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    exp, exp_into => Exp;
    /// Natural logarithm.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::log(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log, log_into => Log;
    /// Sine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sin(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sin, sin_into => Sin;
    /// Cosine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cos(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cos, cos_into => Cos;
    /// Tangent.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tan, tan_into => Tan;
    /// Hyperbolic tangent.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.5f32, 1.5], &[2])?;
    /// assert_eq!(ops::floor(&a)?.to_vec::<f32>()?, vec![-2.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    floor, floor_into => Floor;
    /// Smallest integer not below `a` (integers and bools unchanged).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.5f32, 1.5], &[2])?;
    /// assert_eq!(ops::ceil(&a)?.to_vec::<f32>()?, vec![-1.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ceil, ceil_into => Ceil;
    /// `a` rounded toward zero (integers and bools unchanged).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.5f32, 1.5, 2.5, -0.7], &[4])?;
    /// assert_eq!(ops::rint(&a)?.to_vec::<f32>()?, vec![0.0, 2.0, 2.0, -1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    rint, rint_into => Rint;
    /// NumPy's `round(a)` (0 decimals): floats and complex numbers as [`rint`], integers
    /// unchanged in their own dtype, bools as float16 (NumPy rounds them through `rint`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f32::NAN, 1.0, f32::INFINITY], &[3])?;
    /// assert_eq!(ops::isnan(&a)?.to_vec::<bool>()?, vec![true, false, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    isnan, isnan_into => IsNan;
    /// Whether `a` is +inf or -inf, as bools.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[f32::NAN, 1.0, f32::NEG_INFINITY], &[3])?;
    /// assert_eq!(ops::isinf(&a)?.to_vec::<bool>()?, vec![false, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    isinf, isinf_into => IsInf;
    /// Whether `a` is neither NaN nor infinite, as bools (always for integers).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-0.0f32, 0.0, -2.0], &[3])?;
    /// assert_eq!(ops::signbit(&a)?.to_vec::<bool>()?, vec![true, false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    signbit, signbit_into => Signbit;
    /// Logical not of the truth values (non-zero is true), as bools.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[8.0f32, 0.5], &[2])?;
    /// assert_eq!(ops::log2(&a)?.to_vec::<f32>()?, vec![3.0, -1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log2, log2_into => Log2;
    /// Base-10 logarithm.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1000.0f64], &[1])?;
    /// assert_eq!(ops::log10(&a)?.to_vec::<f64>()?, vec![3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log10, log10_into => Log10;
    /// `log(1 + a)`, accurate for small `a`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1e-20f64], &[1])?;
    /// assert_eq!(ops::log1p(&a)?.to_vec::<f64>()?, vec![1e-20]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log1p, log1p_into => Log1p;
    /// `e^a - 1`, accurate for small `a`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1e-20f64], &[1])?;
    /// assert_eq!(ops::expm1(&a)?.to_vec::<f64>()?, vec![1e-20]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    expm1, expm1_into => Expm1;
    /// `2^a`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// assert_eq!(ops::arcsin(&a)?.to_vec::<f64>()?, vec![0.0, std::f64::consts::FRAC_PI_2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arcsin, arcsin_into => Arcsin;
    /// Inverse cosine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::arccos(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arccos, arccos_into => Arccos;
    /// Inverse tangent.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::arctan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arctan, arctan_into => Arctan;
    /// Hyperbolic sine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sinh(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sinh, sinh_into => Sinh;
    /// Hyperbolic cosine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cosh(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cosh, cosh_into => Cosh;
    /// Inverse hyperbolic sine.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::arcsinh(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arcsinh, arcsinh_into => Arcsinh;
    /// Inverse hyperbolic cosine (NaN below 1 for real input).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::arccosh(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arccosh, arccosh_into => Arccosh;
    /// Inverse hyperbolic tangent (±inf at ±1).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// assert_eq!(ops::arctanh(&a)?.to_vec::<f64>()?, vec![0.0, f64::INFINITY]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    arctanh, arctanh_into => Arctanh;
    /// Cube root (real numbers; negative numbers have negative roots).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-8.0f64, 27.0], &[2])?;
    /// let r = ops::cbrt(&a)?.to_vec::<f64>()?;
    /// // within an ulp: CUDA's cbrt gives 3 exactly, the host device's C library 3 + 1 ulp
    /// assert!((r[0] + 2.0).abs() <= 4e-16 && (r[1] - 3.0).abs() <= 5e-16, "{r:?}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cbrt, cbrt_into => Cbrt;
    /// The modified Bessel function of the first kind, order 0 (CuPy's `i0`; integers
    /// compute in the float type NumPy's ufuncs pick).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64, 1.0, -1.0], &[3])?;
    /// let r = ops::i0(&a)?.to_vec::<f64>()?;
    /// assert_eq!(r[0], 1.0);
    /// assert!((r[1] - 1.266_065_877_752_008_4).abs() < 1e-14 && r[2] == r[1], "{r:?}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    i0, i0_into => I0;
    /// -1, 0 or 1 by the sign of `a` (NaN stays NaN, `-0.0` gives 0; bools are a dtype error;
    /// complex numbers give `a / |a|`, as in NumPy 2).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i32, 0, 9], &[3])?;
    /// assert_eq!(ops::sign(&a)?.to_vec::<i32>()?, vec![-1, 0, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sign, sign_into => Sign;
    /// `a * a` (bools compute in int8; integers wrap).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(0.0f64, 1.0)], &[1])?;
    /// assert_eq!(ops::angle(&z)?.to_vec::<f64>()?, vec![std::f64::consts::FRAC_PI_2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    angle, angle_into => Angle;
    /// The angle in degrees: NumPy's `angle(z, deg=True)` (the radians of [`angle`] times
    /// `180 / pi`, rounded to the result's type as NumPy's `*=` does).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ops};
    /// use num_complex::Complex;
    /// let z = Array::from_slice(&[Complex::new(0.0f64, 1.0), Complex::new(-1.0, 0.0)], &[2])?;
    /// assert_eq!(ops::angle_deg(&z)?.to_vec::<f64>()?, vec![90.0, 180.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    angle_deg, angle_deg_into => AngleDeg;
}

/// Bitwise not: the same as [`invert`] (NumPy's alias).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2.0f32], &[1])?;
/// assert_eq!(ops::conjugate(&a)?.to_vec::<f32>()?, vec![2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn conjugate(a: &Array) -> Result<Array> {
    conj(a)
}

/// `x` where `cond` is non-zero, else `y` (NumPy's `where`; all three broadcast).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
