//! [`Var`]: a traced value, with the operations of `ops` as operators and methods.
//!
//! Every operation records a node in the current trace, at the caller's line
//! (`#[track_caller]`). Adding a traced operation for a new row of the ufunc table is one
//! line in `unary_methods!` or `binary_methods!` below (name, table variant, the dtype its
//! example returns for float32 input).

use super::operand::{IntoVar, Loc, Var, VarArg, VarBound};
use super::trace;
use crate::array::DType;
use crate::kernel::{Axes, Keepdims};
use crate::ops::ReduceOpts;
use crate::ops::reduction::ROp;
use crate::ops::scan::ScanOp;
use crate::ops::ufunc::Op;
use half::{bf16, f16};
use num_complex::Complex;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};
use std::panic::Location;

#[track_caller]
fn here() -> Loc {
    Location::caller()
}

macro_rules! operator {
    ($trait:ident, $method:ident, $op:ident) => {
        impl<T: IntoVar> $trait<T> for Var {
            type Output = Var;
            #[track_caller]
            fn $method(self, rhs: T) -> Var {
                trace::ufunc(Op::$op, &[VarArg::Var(self), rhs.into_arg()], here())
            }
        }
        operator!(@scalar_lhs $trait, $method, $op, bool, i8, i16, i32, i64, u8, u16, u32, u64,
                  f16, bf16, f32, f64, Complex<f32>, Complex<f64>);
    };
    (@scalar_lhs $trait:ident, $method:ident, $op:ident, $($t:ty),*) => {$(
        impl $trait<Var> for $t {
            type Output = Var;
            #[track_caller]
            fn $method(self, rhs: Var) -> Var {
                trace::ufunc(Op::$op, &[self.into_arg(), VarArg::Var(rhs)], here())
            }
        }
    )*};
}

operator!(Add, add, Add);
operator!(Sub, sub, Sub);
operator!(Mul, mul, Mul);
operator!(Div, div, Div);
operator!(Rem, rem, Rem);
operator!(BitAnd, bitand, BitAnd);
operator!(BitOr, bitor, BitOr);
operator!(BitXor, bitxor, BitXor);
operator!(Shl, shl, LeftShift);
operator!(Shr, shr, RightShift);

impl Neg for Var {
    type Output = Var;
    #[track_caller]
    fn neg(self) -> Var {
        trace::ufunc(Op::Neg, &[VarArg::Var(self)], here())
    }
}

/// `!x`: NumPy's `invert` (`~`: bitwise not, logical not for bools).
impl Not for Var {
    type Output = Var;
    #[track_caller]
    fn not(self) -> Var {
        trace::ufunc(Op::Invert, &[VarArg::Var(self)], here())
    }
}

macro_rules! unary_methods {
    ($($name:ident => $op:ident, $doc:literal;)*) => {
        impl Var {$(
            #[doc = concat!($doc, " ([`ops::", stringify!($name), "`](crate::ops::", stringify!($name), "), NumPy's dtypes).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
            #[doc = concat!("let f = fuse(\"f\", |[x]| x.", stringify!($name), "());")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[3])])?;
            /// assert_eq!(e.outputs()[0].0, DType::F32);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $name(self) -> Var {
                trace::ufunc(Op::$op, &[VarArg::Var(self)], here())
            }
        )*}
    };
}

unary_methods! {
    abs => Abs, "Absolute value (complex: the real magnitude)";
    sqrt => Sqrt, "Square root";
    exp => Exp, "`e^x`";
    log => Log, "Natural logarithm";
    sin => Sin, "Sine";
    cos => Cos, "Cosine";
    tan => Tan, "Tangent";
    tanh => Tanh, "Hyperbolic tangent";
    negative => Neg, "`-x` (unsigned integers wrap)";
    positive => Pos, "`+x` (an error for bool)";
    floor => Floor, "Largest integer not above `x`";
    ceil => Ceil, "Smallest integer not below `x`";
    trunc => Trunc, "`x` rounded toward zero";
    rint => Rint, "`x` rounded to the nearest integer, halves to even";
    round => Round, "NumPy's `round(x)` (halves to even; integers unchanged)";
    log2 => Log2, "Base-2 logarithm";
    log10 => Log10, "Base-10 logarithm";
    log1p => Log1p, "`log(1 + x)`";
    expm1 => Expm1, "`e^x - 1`";
    exp2 => Exp2, "`2^x`";
    arcsin => Arcsin, "Inverse sine";
    arccos => Arccos, "Inverse cosine";
    arctan => Arctan, "Inverse tangent";
    sinh => Sinh, "Hyperbolic sine";
    cosh => Cosh, "Hyperbolic cosine";
    arcsinh => Arcsinh, "Inverse hyperbolic sine";
    arccosh => Arccosh, "Inverse hyperbolic cosine";
    arctanh => Arctanh, "Inverse hyperbolic tangent";
    cbrt => Cbrt, "Cube root";
    i0 => I0, "Modified Bessel function of the first kind, order 0";
    sign => Sign, "-1, 0 or 1 by the sign of `x`";
    square => Square, "`x * x`";
    reciprocal => Reciprocal, "`1 / x`";
    conj => Conj, "Complex conjugate";
    real => Real, "Real part";
    imag => Imag, "Imaginary part";
    angle => Angle, "Angle of a complex number";
    angle_deg => AngleDeg, "Angle of a complex number in degrees";
}

/// Unary traced methods whose result is bool for float32 input (NumPy's predicates).
macro_rules! predicate_methods {
    ($($name:ident => $op:ident, $doc:literal;)*) => {
        impl Var {$(
            #[doc = concat!($doc, " ([`ops::", stringify!($name), "`](crate::ops::", stringify!($name), "), a bool result).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
            #[doc = concat!("let f = fuse(\"f\", |[x]| x.", stringify!($name), "());")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[3])])?;
            /// assert_eq!(e.outputs()[0].0, DType::Bool);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $name(self) -> Var {
                trace::ufunc(Op::$op, &[VarArg::Var(self)], here())
            }
        )*}
    };
}

predicate_methods! {
    isnan => IsNan, "Whether `x` is NaN";
    isinf => IsInf, "Whether `x` is infinite";
    isfinite => IsFinite, "Whether `x` is finite";
    signbit => Signbit, "Whether the sign bit of `x` is set";
    logical_not => LogicalNot, "Logical not of the truth value";
}

impl Var {
    /// Bitwise not (logical not for bools): NumPy's `invert`, also the `!` operator
    /// ([`ops::invert`](crate::ops::invert)).
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
    /// let f = fuse("f", |[x]| x.invert());
    /// let e = f.explain_for(&[ArgSpec::array(DType::I32, &[3])])?;
    /// assert_eq!(e.outputs()[0].0, DType::I32);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn invert(self) -> Var {
        trace::ufunc(Op::Invert, &[VarArg::Var(self)], here())
    }
}

macro_rules! binary_methods {
    ($($name:ident => $op:ident, $out:ident, $doc:literal;)*) => {
        impl Var {$(
            #[doc = concat!($doc, " ([`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ")).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
            #[doc = concat!("let f = fuse(\"f\", |[x, y]| x.", stringify!($name), "(y));")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[3]), ArgSpec::array(DType::F32, &[3])])?;
            #[doc = concat!("assert_eq!(e.outputs()[0].0, DType::", stringify!($out), ");")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $name(self, other: impl IntoVar) -> Var {
                trace::ufunc(Op::$op, &[VarArg::Var(self), other.into_arg()], here())
            }
        )*}
    };
}

binary_methods! {
    maximum => Maximum, F32, "Elementwise maximum; NaN propagates";
    minimum => Minimum, F32, "Elementwise minimum; NaN propagates";
    equal => Equal, Bool, "`self == other` as bools";
    not_equal => NotEqual, Bool, "`self != other` as bools";
    less => Less, Bool, "`self < other` as bools (complex: lexicographic)";
    less_equal => LessEqual, Bool, "`self <= other` as bools";
    greater => Greater, Bool, "`self > other` as bools";
    greater_equal => GreaterEqual, Bool, "`self >= other` as bools";
    remainder => Rem, F32, "NumPy's remainder (the sign of the divisor), also `%`";
    floor_divide => FloorDiv, F32, "NumPy's `//` (the quotient rounded toward minus infinity)";
    fmod => Fmod, F32, "C's fmod (the sign of the dividend)";
    logical_and => LogicalAnd, Bool, "Logical and of the truth values";
    logical_or => LogicalOr, Bool, "Logical or of the truth values";
    logical_xor => LogicalXor, Bool, "Logical exclusive or of the truth values";
    arctan2 => Arctan2, F32, "`atan2(self, other)`";
    hypot => Hypot, F32, "`sqrt(self^2 + other^2)`";
    nextafter => Nextafter, F32, "The next float after `self` towards `other`";
}

/// Binary traced methods of integer operations (examples on int32 arrays).
macro_rules! integer_methods {
    ($($name:ident => $op:ident, $doc:literal;)*) => {
        impl Var {$(
            #[doc = concat!($doc, " ([`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ")).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
            #[doc = concat!("let f = fuse(\"f\", |[x, y]| x.", stringify!($name), "(y));")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::I32, &[3]), ArgSpec::array(DType::I32, &[3])])?;
            /// assert_eq!(e.outputs()[0].0, DType::I32);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $name(self, other: impl IntoVar) -> Var {
                trace::ufunc(Op::$op, &[VarArg::Var(self), other.into_arg()], here())
            }
        )*}
    };
}

integer_methods! {
    bitwise_and => BitAnd, "Bitwise and (bools: logical), also `&`";
    bitwise_or => BitOr, "Bitwise or (bools: logical), also `|`";
    bitwise_xor => BitXor, "Bitwise exclusive or, also `^`";
    left_shift => LeftShift, "`self << other` (NumPy's rules), also `<<`";
    right_shift => RightShift, "`self >> other` (NumPy's rules), also `>>`";
}

impl Var {
    /// `self ** exponent` ([`ops::power`](crate::ops::power)). A literal exponent 2 or 3
    /// becomes multiplications and 0.5 a square root (NumPy's `**` does the same), so
    /// `d.pow(2)` costs one multiplication.
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
    /// let f = fuse("sq", |[x]| x.pow(2));
    /// let e = f.explain_for(&[ArgSpec::array(DType::F64, &[3])])?;
    /// assert!(e.kernels()[0].source.contains("* "), "{e}");
    /// assert!(!e.kernels()[0].source.contains("pow("));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn pow(self, exponent: impl IntoVar) -> Var {
        trace::power(VarArg::Var(self), exponent.into_arg(), here())
    }

    /// Limits values to `[lo, hi]` ([`ops::clip`](crate::ops::clip): NaN propagates, `lo >
    /// hi` gives `hi`); `..` is a missing bound (NumPy's `None`), see [`VarBound`]. One
    /// bound traces `maximum` or `minimum`, none the value itself. A Rust integer literal
    /// beyond an integer value's dtype is dropped as in `ops::clip`; a scalar *argument* of
    /// the call is range-checked instead (its value is unknown while tracing).
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
    /// let f = fuse("relu6", |[x]| x.clip(0.0, 6.0));
    /// let e = f.explain_for(&[ArgSpec::array(DType::F16, &[3])])?;
    /// assert_eq!(e.outputs()[0].0, DType::F16);
    /// let g = fuse("cap", |[x]| x.clip(.., 6.0));
    /// let e = g.explain_for(&[ArgSpec::array(DType::F32, &[3])])?;
    /// assert!(e.kernels()[0].source.contains("minimum"), "{e}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn clip(self, lo: impl VarBound, hi: impl VarBound) -> Var {
        trace::clip(self, lo.bound(), hi.bound(), here())
    }

    /// Adds an axis of extent 1 at `axis` (NumPy's `expand_dims`; `axis` in
    /// `-(ndim + 1)..=ndim`): `x[None, :]` is `x.expand_dims(0)`. Of a computed value too —
    /// the new axis moves down to the arrays it reads, each then read through a view with
    /// that axis (a reduced value is written by its kernel and read so by the next).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, fuse, ops::Keepdims};
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// let f = fuse("center_rows", |[x]| {
    ///     let mean = x.sum_axis(1, Keepdims::No) / 3.0;
    ///     x - mean.expand_dims(1) // (2,) -> (2, 1): one mean a row
    /// });
    /// assert_eq!(f.call((&x,))?.to_vec::<f32>()?, [-1.0, 0.0, 1.0, -1.0, 0.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn expand_dims(self, axis: isize) -> Var {
        trace::expand_axis(self, axis, here())
    }

    /// Converts to `dtype` (NumPy's `astype`: floats truncate toward zero into integers,
    /// anything → bool is "non-zero"). The result is a strong (array) value even when
    /// `self` comes from Rust scalars.
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
    /// let f = fuse("to_i32", |[x]| x.astype(DType::I32));
    /// let e = f.explain_for(&[ArgSpec::array(DType::F64, &[3])])?;
    /// assert_eq!(e.outputs()[0].0, DType::I32);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn astype(self, dtype: DType) -> Var {
        trace::astype(self, dtype, here())
    }

    /// Inclusive cumulative sum along `axis` (`None`: of the flattened value, a 1-D
    /// result; [`ops::cumsum`](crate::ops::cumsum)'s dtypes: bool and signed integers give
    /// int64, unsigned integers uint64). One scan kernel: the element-wise work producing
    /// `self` runs in its loads; work on the result is a following kernel.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, fuse};
    /// let f = fuse("shifted_cumsum", |[x]| (x * 2.0).cumsum(None) + 1.0);
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// assert_eq!(f.call((&x,))?.to_vec::<f32>()?, vec![3.0, 7.0, 13.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn cumsum(self, axis: Option<isize>) -> Var {
        trace::scan(ScanOp::Sum, self, axis, here())
    }

    /// Inclusive cumulative product along `axis` (`None`: flattened), with
    /// [`cumsum`](Self::cumsum)'s dtypes ([`ops::cumprod`](crate::ops::cumprod)).
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, KernelKind, fuse}};
    /// let f = fuse("growth", |[r]| (r + 1.0).cumprod(Some(-1)));
    /// let e = f.explain_for(&[ArgSpec::array(DType::F64, &[4, 12])])?;
    /// assert_eq!(e.kernels()[0].kind, KernelKind::Scan);
    /// assert_eq!(e.outputs()[0], (DType::F64, vec![4, 12]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[track_caller]
    pub fn cumprod(self, axis: Option<isize>) -> Var {
        trace::scan(ScanOp::Prod, self, axis, here())
    }
}

/// `x` where `cond` is non-zero, else `y` ([`ops::where_`](crate::ops::where_); all three
/// broadcast; `x` and `y` promote together, the condition converts to bool).
///
/// ```
/// use cuprum::{DType, fuse::{ArgSpec, fuse, where_}};
/// let f = fuse("relu", |[x]| where_(x.less(0.0), 0.0, x));
/// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[3])])?;
/// assert_eq!(e.outputs()[0].0, DType::F32);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[doc(alias = "where")]
#[track_caller]
pub fn where_(cond: impl IntoVar, x: impl IntoVar, y: impl IntoVar) -> Var {
    trace::ufunc(
        Op::Where,
        &[cond.into_arg(), x.into_arg(), y.into_arg()],
        here(),
    )
}

macro_rules! reductions {
    ($($name:ident, $axis_name:ident, $with:ident => $op:ident, $out:ident, $doc:literal;)*) => {
        impl Var {$(
            #[doc = concat!($doc, " of every element (a 0-d value; [`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ")'s dtypes).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}};
            #[doc = concat!("let f = fuse(\"f\", |[x]| x.", stringify!($name), "());")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[2, 3])])?;
            #[doc = concat!("assert_eq!(e.outputs()[0], (DType::", stringify!($out), ", vec![]));")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $name(self) -> Var {
                trace::reduce(ROp::$op, self, None, false, here())
            }

            #[doc = concat!($doc, " over `axis` (one axis or several, negative ones counting from the end); [`Keepdims::Yes`] keeps reduced axes with extent 1.")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}, ops::Keepdims};
            #[doc = concat!("let f = fuse(\"f\", |[x]| x.", stringify!($axis_name), "(-1, Keepdims::Yes));")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[2, 3])])?;
            #[doc = concat!("assert_eq!(e.outputs()[0], (DType::", stringify!($out), ", vec![2, 1]));")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $axis_name(self, axis: impl Into<Axes>, keepdims: Keepdims) -> Var {
                let axes = axis.into();
                trace::reduce(ROp::$op, self, Some(&axes.0), keepdims.keeps(), here())
            }

            #[doc = concat!($doc, " with NumPy's keywords ([`ReduceOpts`]: `axis`, `keepdims`, and `dtype` / `ddof` where [`ops::", stringify!($with), "`](crate::ops::", stringify!($with), ") takes them; `out=` is an error inside `fuse`).")]
            ///
            /// ```
            /// use cuprum::{DType, fuse::{ArgSpec, fuse}, ops::ReduceOpts};
            #[doc = concat!("let f = fuse(\"f\", |[x]| x.", stringify!($with), "(ReduceOpts::new().axis(0).keepdims(true)));")]
            /// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[2, 3])])?;
            #[doc = concat!("assert_eq!(e.outputs()[0], (DType::", stringify!($out), ", vec![1, 3]));")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            #[track_caller]
            pub fn $with(self, opts: ReduceOpts<'_>) -> Var {
                trace::reduce_with(ROp::$op, self, &opts, here())
            }
        )*}
    };
}

reductions! {
    sum, sum_axis, sum_with => Sum, F32, "Sum";
    prod, prod_axis, prod_with => Prod, F32, "Product";
    mean, mean_axis, mean_with => Mean, F32, "Arithmetic mean";
    var, var_axis, var_with => Var, F32, "Population variance (ddof 0, one pass; complex input gives a real variance)";
    std, std_axis, std_with => Std, F32, "Population standard deviation (ddof 0)";
    max, max_axis, max_with => Max, F32, "Largest element (NaN propagates; an empty reduction is an error)";
    min, min_axis, min_with => Min, F32, "Smallest element (NaN propagates; an empty reduction is an error)";
    all, all_axis, all_with => All, Bool, "Whether every element is non-zero";
    any, any_axis, any_with => Any, Bool, "Whether any element is non-zero";
    count_nonzero, count_nonzero_axis, count_nonzero_with => CountNonzero, I64, "Number of non-zero elements (int64)";
    nansum, nansum_axis, nansum_with => NanSum, F32, "Sum ignoring NaNs (NumPy's `nansum`)";
    nanmean, nanmean_axis, nanmean_with => NanMean, F32, "Mean ignoring NaNs (NumPy's `nanmean`: NaN for an all-NaN slice)";
    nanmax, nanmax_axis, nanmax_with => NanMax, F32, "Largest element ignoring NaNs (NumPy's `nanmax`: NaN for an all-NaN slice)";
    nanmin, nanmin_axis, nanmin_with => NanMin, F32, "Smallest element ignoring NaNs (NumPy's `nanmin`: NaN for an all-NaN slice)";
}
