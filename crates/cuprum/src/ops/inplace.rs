//! In-place operations: NumPy's `a += b`, `a //= 2`, `a <<= 1` ….
//!
//! The primary API are methods that return `Result<()>`: `a.add_assign(&b)?`,
//! `a.floor_div_assign(2)?` (each is the operation's `ops::*_into(&a, &b, &a)`), and the
//! masked forms `a.masked(&m).add(&b)?`. They take `&self` (an `Array` is a handle to
//! device memory, written through shared references like [`Array::fill`]), so `a += a` is
//! `a.add_assign(&a)`.
//!
//! Rust's `+=` operators cannot return a `Result`, and panicking is not an option, so they
//! are implemented on [`InPlace`], a short-lived handle that exists only inside
//! [`Array::inplace`] / [`Masked::inplace`]: the first error is kept, the operators after
//! it do nothing, and `inplace` returns it. The error cannot be ignored silently: it is
//! the (`#[must_use]`) `Result` of the call that ran the closure.

use super::elementwise::{binary_into, binary_to};
use super::mask::Masked;
use super::masked_update::update;
use super::ufunc::Op;
use crate::array::{Array, Element};
use crate::error::{Error, Result};
use crate::kernel::{IntoOperand, Operand};
use std::ops::{
    AddAssign, BitAndAssign, BitOrAssign, BitXorAssign, DivAssign, MulAssign, RemAssign, ShlAssign,
    ShrAssign, SubAssign,
};

macro_rules! assign_methods {
    ($($name:ident => $op:ident, $sym:literal, $into:ident, $ex:literal, $arg:literal, $want:literal;)*) => {
        impl Array {$(
            #[doc = concat!("NumPy's `a ", $sym, " b`: writes [`ops::", stringify!($into), "`](crate::ops::", stringify!($into), ")`(self, other, self)` \\
                into this array's memory. `other` (an array or a Rust scalar) broadcasts to \\
                this array's shape; the result must cast to this array's dtype under NumPy's \\
                `same_kind` rule (an int32 array `+= 0.5` is an error, as in NumPy, and \\
                leaves the array unchanged). `other` may be this array or overlap it.")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// use cuprum::Array;
            #[doc = concat!("let a = Array::from_slice(&", $ex, ", &[3])?;")]
            #[doc = concat!("a.", stringify!($name), "(", $arg, ")?;")]
            #[doc = concat!("assert_eq!(a.to_vec::<i32>()?, vec!", $want, ");")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $name(&self, other: impl IntoOperand) -> Result<()> {
                binary_into(Op::$op, self, &other, self)
            }
        )*}
    };
}

assign_methods! {
    add_assign => Add, "+=", add_into, "[1i32, 2, 3]", "10i32", "[11, 12, 13]";
    sub_assign => Sub, "-=", subtract_into, "[1i32, 2, 3]", "1i32", "[0, 1, 2]";
    mul_assign => Mul, "*=", multiply_into, "[1i32, 2, 3]", "3i32", "[3, 6, 9]";
    rem_assign => Rem, "%=", remainder_into, "[-7i32, 7, 8]", "3i32", "[2, 1, 2]";
    floor_div_assign => FloorDiv, "//=", floor_divide_into, "[-7i32, 7, 8]", "2i32", "[-4, 3, 4]";
    pow_assign => Pow, "**=", power_into, "[1i32, 2, 3]", "3i32", "[1, 8, 27]";
    bitand_assign => BitAnd, "&=", bitwise_and_into, "[1i32, 2, 3]", "2i32", "[0, 2, 2]";
    bitor_assign => BitOr, "|=", bitwise_or_into, "[1i32, 2, 3]", "4i32", "[5, 6, 7]";
    bitxor_assign => BitXor, "^=", bitwise_xor_into, "[1i32, 2, 3]", "1i32", "[0, 3, 2]";
    shl_assign => LeftShift, "<<=", left_shift_into, "[1i32, 2, 3]", "2i32", "[4, 8, 12]";
    shr_assign => RightShift, ">>=", right_shift_into, "[-8i32, 8, 3]", "1i32", "[-4, 4, 1]";
}

impl Array {
    /// NumPy's `a /= b` (true division into this array): only float and complex arrays
    /// can take it, since the quotient of integers is float64 and float64 does not cast to
    /// an integer dtype under `same_kind` (the error NumPy raises too; use
    /// [`floor_div_assign`](Array::floor_div_assign) for `//=`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ErrorKind};
    /// let a = Array::from_slice(&[1.0f32, 3.0], &[2])?;
    /// a.div_assign(2.0)?;
    /// assert_eq!(a.to_vec::<f32>()?, vec![0.5, 1.5]);
    /// let i = Array::from_slice(&[1i32, 3], &[2])?;
    /// assert_eq!(i.div_assign(2i32).unwrap_err().kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn div_assign(&self, other: impl IntoOperand) -> Result<()> {
        binary_into(Op::Div, self, &other, self)
    }

    /// Runs `f` with an [`InPlace`] handle of this array, on which Rust's compound
    /// assignment operators (`+= -= *= /= %= &= |= ^= <<= >>=`) write into this array, and
    /// returns the first error (the operators after it do nothing). The same rules as the
    /// `*_assign` methods apply.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let b = Array::from_slice(&[10.0f32, 20.0], &[2])?;
    /// a.inplace(|a| {
    ///     *a += &b;
    ///     *a -= 2.0;
    ///     *a *= 3.0f32;
    /// })?;
    /// assert_eq!(a.to_vec::<f32>()?, vec![27.0, 60.0]);
    /// let i = Array::from_slice(&[1i32], &[1])?;
    /// assert!(i.inplace(|i| *i += 0.5).is_err());            // same_kind: float into int32
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn inplace(&self, f: impl FnOnce(&mut InPlace<'_>)) -> Result<()> {
        InPlace::run(Target::Array(self), f)
    }
}

impl Masked<'_> {
    /// [`Array::inplace`] for the selected elements: the operators update only where the
    /// mask is set (`*t += p` is NumPy's `a[mask] += p`, [`Masked::add`]).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops};
    /// let totals = Array::from_slice(&[0i64, 0, 0, 0], &[4])?;
    /// let nums = Array::from_slice(&[2i64, 3, 4, 5], &[4])?;
    /// let even = ops::equal(&ops::remainder(&nums, 2i64)?, 0i64)?;
    /// totals.masked(&even).inplace(|t| *t += 2i64)?;
    /// assert_eq!(totals.to_vec::<i64>()?, vec![2, 0, 2, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn inplace(&self, f: impl FnOnce(&mut InPlace<'_>)) -> Result<()> {
        InPlace::run(Target::Masked(*self), f)
    }
}

/// What an [`InPlace`] writes into.
#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    Array(&'a Array),
    Masked(Masked<'a>),
}

/// The target of Rust's compound assignment operators on arrays, made by
/// [`Array::inplace`] or [`Masked::inplace`]: `*a += &b`, `*a -= 2.0`, `*a <<= 1` …
/// (right-hand sides: `&Array`, `Array` or a Rust scalar, as for the binary operators).
/// Each operator runs at once; the first error is kept and returned by `inplace`, and the
/// operators after it do nothing.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::Array;
/// let a = Array::from_slice(&[6u8, 9], &[2])?;
/// a.inplace(|a| {
///     *a >>= 1u8;
///     *a |= 1u8;
/// })?;
/// assert_eq!(a.to_vec::<u8>()?, vec![3, 5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug)]
pub struct InPlace<'a> {
    target: Target<'a>,
    error: Option<Error>,
}

impl<'a> InPlace<'a> {
    fn run(target: Target<'a>, f: impl FnOnce(&mut InPlace<'a>)) -> Result<()> {
        let mut h = InPlace {
            target,
            error: None,
        };
        f(&mut h);
        match h.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The array being written (the whole array for a masked target).
    pub fn array(&self) -> &'a Array {
        match self.target {
            Target::Array(a) => a,
            Target::Masked(m) => m.array(),
        }
    }

    /// Whether an operator has failed (the later ones are skipped).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn apply(&mut self, op: Op, rhs: Operand<'_>) {
        if self.error.is_some() {
            return;
        }
        let r = match self.target {
            Target::Array(a) => binary_to(op, Operand::Array(a), rhs, Some(a)).map(drop),
            Target::Masked(m) => update(&m, Some(op), rhs),
        };
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}

macro_rules! assign_operators {
    ($($trait:ident, $method:ident => $op:ident;)*) => {$(
        impl $trait<&Array> for InPlace<'_> {
            fn $method(&mut self, rhs: &Array) {
                self.apply(Op::$op, Operand::Array(rhs));
            }
        }
        impl $trait<Array> for InPlace<'_> {
            fn $method(&mut self, rhs: Array) {
                self.apply(Op::$op, Operand::Array(&rhs));
            }
        }
        impl<T: Element + IntoOperand> $trait<T> for InPlace<'_> {
            fn $method(&mut self, rhs: T) {
                self.apply(Op::$op, rhs.operand());
            }
        }
    )*};
}

assign_operators! {
    AddAssign, add_assign => Add;
    SubAssign, sub_assign => Sub;
    MulAssign, mul_assign => Mul;
    DivAssign, div_assign => Div;
    RemAssign, rem_assign => Rem;
    BitAndAssign, bitand_assign => BitAnd;
    BitOrAssign, bitor_assign => BitOr;
    BitXorAssign, bitxor_assign => BitXor;
    ShlAssign, shl_assign => LeftShift;
    ShrAssign, shr_assign => RightShift;
}
