//! `+ - * / %`, the bit operators `& | ^ << >>`, unary `-` and `!` for `&Array`, with
//! arrays or Rust scalars on either side. Each returns `Result<Array>` (shapes and dtypes
//! are checked at run time). `&`, `|`, `^` are NumPy's `bitwise_and` / `or` / `xor`
//! (logical for bools), `<<` / `>>` its `left_shift` / `right_shift`, `!` its `invert`
//! (`~`: bitwise not, logical not for bools). Compound assignments (`+=` …) are in
//! [`InPlace`](crate::ops::InPlace).
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::Array;
//! let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
//! let b = (&(&a * 2.0f32)? + &a)?;
//! let c = (1.0f32 - &b)?;
//! let d = (-&c)?;
//! assert_eq!(d.to_vec::<f32>()?, vec![2.0, 5.0]);
//! let m = Array::from_slice(&[12u8, 10], &[2])?;
//! assert_eq!((&(&m & 6u8)? << 1u8)?.to_vec::<u8>()?, vec![8, 4]);
//! assert_eq!((!&m)?.to_vec::<u8>()?, vec![243, 245]);
//! # Ok::<(), cuprum::Error>(())
//! ```

use super::elementwise::{Op, binary_of, unary};
use crate::array::{Array, Element};
use crate::error::Result;
use half::{bf16, f16};
use num_complex::Complex;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

macro_rules! operator {
    ($trait:ident, $method:ident, $op:ident) => {
        impl $trait<&Array> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> {
                binary_of(Op::$op, self, rhs)
            }
        }
        impl $trait<Array> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> {
                binary_of(Op::$op, self, &rhs)
            }
        }
        impl $trait<&Array> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> {
                binary_of(Op::$op, &self, rhs)
            }
        }
        impl $trait<Array> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> {
                binary_of(Op::$op, &self, &rhs)
            }
        }
        impl<T: Element + crate::kernel::IntoOperand> $trait<T> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: T) -> Result<Array> {
                binary_of(Op::$op, self, &rhs)
            }
        }
        impl<T: Element + crate::kernel::IntoOperand> $trait<T> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: T) -> Result<Array> {
                binary_of(Op::$op, &self, &rhs)
            }
        }
        operator!(@scalar_lhs $trait, $method, $op, bool, i8, i16, i32, i64, u8, u16, u32, u64,
                  f16, bf16, f32, f64, Complex<f32>, Complex<f64>);
    };
    (@scalar_lhs $trait:ident, $method:ident, $op:ident, $($t:ty),*) => {$(
        impl $trait<&Array> for $t {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> {
                binary_of(Op::$op, &self, rhs)
            }
        }
        impl $trait<Array> for $t {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> {
                binary_of(Op::$op, &self, &rhs)
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

impl Neg for &Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        unary(Op::Neg, self)
    }
}

impl Neg for Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        unary(Op::Neg, &self)
    }
}

impl Not for &Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        unary(Op::Invert, self)
    }
}

impl Not for Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        unary(Op::Invert, &self)
    }
}
