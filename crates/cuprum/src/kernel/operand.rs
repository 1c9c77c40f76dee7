//! Operands of ElementwiseKernel / ReductionKernel calls and of the built-in operations:
//! an array (borrowed, never copied) or a typed scalar.

use crate::array::{Array, Scalar};
use smallvec::SmallVec;

/// One argument of a generated kernel's call.
#[derive(Debug, Clone, Copy)]
pub enum Operand<'a> {
    /// A device array (inputs and outputs).
    Array(&'a Array),
    /// A scalar, converted to its parameter's type with range checks.
    Scalar(Scalar),
}

impl Operand<'_> {
    /// What the operand is, for messages (`"float32 array of shape (3,)"`, `"f32 scalar"`).
    pub fn describe(&self) -> String {
        match self {
            Operand::Array(a) => format!(
                "{} array of shape {}",
                a.dtype(),
                crate::shape::format_shape(a.shape())
            ),
            Operand::Scalar(s) => format!("{} scalar", s.dtype().rust_name()),
        }
    }
}

/// Something that can be one operand: an [`Array`] (by reference), a [`Scalar`], or a Rust
/// scalar of an [`Element`](crate::Element) type (`0.5f32`, `3i64`, `true` ...).
///
/// ```
/// use cuprum::kernel::{IntoOperand, Operand};
/// assert!(matches!(2.5f64.operand(), Operand::Scalar(cuprum::Scalar::F64(_))));
/// ```
pub trait IntoOperand {
    /// The operand.
    fn operand(&self) -> Operand<'_>;
}

impl IntoOperand for Array {
    fn operand(&self) -> Operand<'_> {
        Operand::Array(self)
    }
}

impl IntoOperand for Scalar {
    fn operand(&self) -> Operand<'_> {
        Operand::Scalar(*self)
    }
}

impl<T: IntoOperand + ?Sized> IntoOperand for &T {
    fn operand(&self) -> Operand<'_> {
        (**self).operand()
    }
}

macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl IntoOperand for $t {
            fn operand(&self) -> Operand<'_> {
                Operand::Scalar(Scalar::from(*self))
            }
        }
    )*};
}
scalar_operands!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    half::f16,
    half::bf16,
    f32,
    f64,
    num_complex::Complex<f32>,
    num_complex::Complex<f64>
);

/// The operand list of one call: tuples of up to 12 [`IntoOperand`]s
/// (`(&x, &y, 0.5f32)`), arrays or slices of `&dyn IntoOperand`, a `Vec<Operand>`, or `()`.
pub trait Operands {
    /// The operands in order.
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]>;
}

impl Operands for () {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        SmallVec::new()
    }
}

impl Operands for [&dyn IntoOperand] {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        self.iter().map(|a| a.operand()).collect()
    }
}

impl<const N: usize> Operands for [&dyn IntoOperand; N] {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        self.iter().map(|a| a.operand()).collect()
    }
}

impl Operands for Vec<Operand<'_>> {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        self.iter().copied().collect()
    }
}

impl<T: Operands + ?Sized> Operands for &T {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        (**self).operands()
    }
}

macro_rules! tuple_operands {
    ($($name:ident)+) => {
        impl<$($name: IntoOperand),+> Operands for ($($name,)+) {
            #[allow(non_snake_case)]
            fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
                let ($($name,)+) = self;
                let mut v = SmallVec::new();
                $(v.push($name.operand());)+
                v
            }
        }
    };
}
tuple_operands!(A);
tuple_operands!(A B);
tuple_operands!(A B C);
tuple_operands!(A B C D);
tuple_operands!(A B C D E);
tuple_operands!(A B C D E F);
tuple_operands!(A B C D E F G);
tuple_operands!(A B C D E F G H);
tuple_operands!(A B C D E F G H I);
tuple_operands!(A B C D E F G H I J);
tuple_operands!(A B C D E F G H I J K);
tuple_operands!(A B C D E F G H I J K L);
