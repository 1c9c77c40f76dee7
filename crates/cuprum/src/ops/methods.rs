//! The built-in operations as methods of [`Array`].

use super::elementwise::{Op, astype, binary_of, unary};
use crate::array::{Array, DType};
use crate::error::Result;
use crate::kernel::IntoOperand;

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> Result<Array> {
            unary(Op::$op, self)
        }
    )*};
}

macro_rules! binary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self, other: impl IntoOperand) -> Result<Array> {
            binary_of(Op::$op, self, &other)
        }
    )*};
}

impl Array {
    /// A copy converted to `dtype` (NumPy's `astype`: floats truncate toward zero into
    /// integers, complex → real keeps the real part, anything → bool is "non-zero").
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::from_slice(&[1.7f32, -2.5], &[2])?;
    /// assert_eq!(a.astype(DType::I32)?.to_vec::<i32>()?, vec![1, -2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        astype(self, dtype)
    }

    /// Limits values to `[lo, hi]` ([`ops::clip`](crate::ops::clip)); `..` is a missing
    /// bound (NumPy's `None`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::Array;
    /// let a = Array::from_slice(&[-3i32, 5], &[2])?;
    /// assert_eq!(a.clip(0i32, 4i32)?.to_vec::<i32>()?, vec![0, 4]);
    /// assert_eq!(a.clip(.., 4i32)?.to_vec::<i32>()?, vec![-3, 4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn clip(&self, lo: impl super::ClipBound, hi: impl super::ClipBound) -> Result<Array> {
        super::clip(self, lo, hi)
    }

    unary_methods! {
        /// Absolute value ([`ops::abs`](crate::ops::abs)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[-3i32, 5], &[2])?;
        /// assert_eq!(a.abs()?.to_vec::<i32>()?, vec![3, 5]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        abs => Abs;
        /// Square root ([`ops::sqrt`](crate::ops::sqrt)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[4.0f64], &[1])?.sqrt()?.to_vec::<f64>()?, vec![2.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        sqrt => Sqrt;
        /// `e^x` ([`ops::exp`](crate::ops::exp)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[0.0f64], &[1])?.exp()?.to_vec::<f64>()?, vec![1.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        exp => Exp;
        /// Natural logarithm ([`ops::log`](crate::ops::log)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[1.0f64], &[1])?.log()?.to_vec::<f64>()?, vec![0.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        log => Log;
        /// Sine ([`ops::sin`](crate::ops::sin)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[0.0f64], &[1])?.sin()?.to_vec::<f64>()?, vec![0.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        sin => Sin;
        /// Cosine ([`ops::cos`](crate::ops::cos)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[0.0f64], &[1])?.cos()?.to_vec::<f64>()?, vec![1.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        cos => Cos;
        /// Tangent ([`ops::tan`](crate::ops::tan)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[0.0f64], &[1])?.tan()?.to_vec::<f64>()?, vec![0.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        tan => Tan;
        /// Hyperbolic tangent ([`ops::tanh`](crate::ops::tanh)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// assert_eq!(Array::from_slice(&[0.0f64], &[1])?.tanh()?.to_vec::<f64>()?, vec![0.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        tanh => Tanh;
    }

    binary_methods! {
        /// `self ** other` ([`ops::power`](crate::ops::power)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[3.0f32], &[1])?;
        /// assert_eq!(a.pow(2.0)?.to_vec::<f32>()?, vec![9.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pow => Pow;
        /// Elementwise maximum ([`ops::maximum`](crate::ops::maximum)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[-3.0f32], &[1])?;
        /// assert_eq!(a.maximum(0.0)?.to_vec::<f32>()?, vec![0.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        maximum => Maximum;
        /// Elementwise minimum ([`ops::minimum`](crate::ops::minimum)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[-3.0f32], &[1])?;
        /// assert_eq!(a.minimum(0.0)?.to_vec::<f32>()?, vec![-3.0]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        minimum => Minimum;
        /// `self == other` as bools ([`ops::equal`](crate::ops::equal)).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.equal(2u8)?.to_vec::<bool>()?, vec![false, true]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        equal => Equal;
        /// `self != other` as bools.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.not_equal(2u8)?.to_vec::<bool>()?, vec![true, false]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        not_equal => NotEqual;
        /// `self < other` as bools.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.less(2u8)?.to_vec::<bool>()?, vec![true, false]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        less => Less;
        /// `self <= other` as bools.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.less_equal(1u8)?.to_vec::<bool>()?, vec![true, false]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        less_equal => LessEqual;
        /// `self > other` as bools.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.greater(1u8)?.to_vec::<bool>()?, vec![false, true]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        greater => Greater;
        /// `self >= other` as bools.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// # use cuprum::Array;
        /// let a = Array::from_slice(&[1u8, 2], &[2])?;
        /// assert_eq!(a.greater_equal(2u8)?.to_vec::<bool>()?, vec![false, true]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        greater_equal => GreaterEqual;
    }
}

/// Methods for the rows of the ufunc table, each documented by its `ops` function.
macro_rules! more_unary_methods {
    ($($name:ident => $op:ident;)*) => {
        impl Array {$(
            #[doc = concat!("[`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ") of this array (NumPy's dtypes).")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// # use cuprum::{Array, ops};
            /// let a = Array::from_slice(&[1i64, 4, -2], &[3])?;
            #[doc = concat!("let r = a.", stringify!($name), "()?;")]
            #[doc = concat!("assert_eq!(r.dtype(), ops::", stringify!($name), "(&a)?.dtype());")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $name(&self) -> Result<Array> {
                unary(Op::$op, self)
            }
        )*}
    };
}

more_unary_methods! {
    negative => Neg;
    positive => Pos;
    floor => Floor;
    ceil => Ceil;
    trunc => Trunc;
    rint => Rint;
    round => Round;
    isnan => IsNan;
    isinf => IsInf;
    isfinite => IsFinite;
    signbit => Signbit;
    logical_not => LogicalNot;
    invert => Invert;
    log2 => Log2;
    log10 => Log10;
    log1p => Log1p;
    expm1 => Expm1;
    exp2 => Exp2;
    arcsin => Arcsin;
    arccos => Arccos;
    arctan => Arctan;
    sinh => Sinh;
    cosh => Cosh;
    arcsinh => Arcsinh;
    arccosh => Arccosh;
    arctanh => Arctanh;
    cbrt => Cbrt;
    i0 => I0;
    sign => Sign;
    square => Square;
    reciprocal => Reciprocal;
    conj => Conj;
    real => Real;
    imag => Imag;
    angle => Angle;
    angle_deg => AngleDeg;
}

/// Binary methods for the rows of the ufunc table, each documented by its `ops` function.
macro_rules! more_binary_methods {
    ($($name:ident => $op:ident;)*) => {
        impl Array {$(
            #[doc = concat!("[`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ")`(self, other)` (NumPy's broadcasting and dtypes).")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// # use cuprum::{Array, ops};
            /// let a = Array::from_slice(&[7i64, -7], &[2])?;
            #[doc = concat!("let r = a.", stringify!($name), "(2i64)?;")]
            #[doc = concat!("assert_eq!(r.dtype(), ops::", stringify!($name), "(&a, 2i64)?.dtype());")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $name(&self, other: impl IntoOperand) -> Result<Array> {
                binary_of(Op::$op, self, &other)
            }
        )*}
    };
}

more_binary_methods! {
    remainder => Rem;
    floor_divide => FloorDiv;
    fmod => Fmod;
    logical_and => LogicalAnd;
    logical_or => LogicalOr;
    logical_xor => LogicalXor;
    bitwise_and => BitAnd;
    bitwise_or => BitOr;
    bitwise_xor => BitXor;
    left_shift => LeftShift;
    right_shift => RightShift;
    arctan2 => Arctan2;
    hypot => Hypot;
    nextafter => Nextafter;
}

macro_rules! reduction_methods {
    ($($name:ident, $axis_name:ident;)*) => {
        impl Array {$(
            #[doc = concat!("[`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ") of every element (a 0-d array).")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// # use cuprum::{Array, DType};
            /// let a = Array::ones(&[2, 3], DType::F64)?;
            #[doc = concat!("let r = a.", stringify!($name), "()?;")]
            /// assert_eq!(r.ndim(), 0);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $name(&self) -> Result<Array> {
                crate::ops::$name(self)
            }

            #[doc = concat!("[`ops::", stringify!($axis_name), "`](crate::ops::", stringify!($axis_name), "): over `axis`, keeping reduced axes with [`Keepdims::Yes`](crate::ops::Keepdims).")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// # use cuprum::{Array, DType, ops::Keepdims};
            /// let a = Array::ones(&[2, 3], DType::F64)?;
            #[doc = concat!("let r = a.", stringify!($axis_name), "(-1, Keepdims::No)?;")]
            /// assert_eq!(r.shape(), &[2]);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $axis_name(&self, axis: impl Into<crate::kernel::Axes>, keepdims: crate::kernel::Keepdims) -> Result<Array> {
                crate::ops::$axis_name(self, axis, keepdims)
            }
        )*}
    };
}

reduction_methods! {
    sum, sum_axis;
    prod, prod_axis;
    mean, mean_axis;
    var, var_axis;
    std, std_axis;
    max, max_axis;
    min, min_axis;
    all, all_axis;
    any, any_axis;
    count_nonzero, count_nonzero_axis;
    nansum, nansum_axis;
    nanmean, nanmean_axis;
    nanmax, nanmax_axis;
    nanmin, nanmin_axis;
}

impl Array {
    /// [`ops::argmax`](crate::ops::argmax): index of the largest element in C order.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::Array;
    /// assert_eq!(Array::from_slice(&[3i32, 9, 1], &[3])?.argmax()?.to_vec::<i64>()?, vec![1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn argmax(&self) -> Result<Array> {
        crate::ops::argmax(self)
    }

    /// [`ops::argmin`](crate::ops::argmin): index of the smallest element in C order.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::Array;
    /// assert_eq!(Array::from_slice(&[3i32, 9, 1], &[3])?.argmin()?.to_vec::<i64>()?, vec![2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn argmin(&self) -> Result<Array> {
        crate::ops::argmin(self)
    }

    /// [`ops::nanargmax`](crate::ops::nanargmax): index of the largest element ignoring NaNs.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::Array;
    /// assert_eq!(Array::from_slice(&[f64::NAN, 9.0, 1.0], &[3])?.nanargmax()?.to_vec::<i64>()?, vec![1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn nanargmax(&self) -> Result<Array> {
        crate::ops::nanargmax(self)
    }

    /// [`ops::nanargmin`](crate::ops::nanargmin): index of the smallest element ignoring NaNs.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::Array;
    /// assert_eq!(Array::from_slice(&[f64::NAN, 9.0, 1.0], &[3])?.nanargmin()?.to_vec::<i64>()?, vec![2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn nanargmin(&self) -> Result<Array> {
        crate::ops::nanargmin(self)
    }
}
