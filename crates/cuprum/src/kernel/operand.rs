//! Operands of ElementwiseKernel / ReductionKernel calls and of the built-in operations:
//! an array (borrowed, never copied), a typed scalar, or a device type's value (a
//! *record scalar*: `#[derive(cuprum::DeviceType)]` implements [`IntoOperand`]).
//!
//! A record scalar is borrowed as a [`RecordArg`] (its record dtype and how to write its
//! bytes), so operands stay `Copy` and nothing is written before the launch packs it
//! field by field, padding zeroed. Only the generated kernels take one, for a parameter
//! declared with that same device type (`"Vec3 g"`); the built-in operations refuse it
//! ([`Operand::numeric`]), as they refuse a texture object (an ElementwiseKernel operand
//! only).

use crate::array::{Array, RecordType, Scalar};
use crate::error::Result;
use smallvec::SmallVec;

/// One argument of a generated kernel's call.
#[derive(Debug, Clone, Copy)]
pub enum Operand<'a> {
    /// A device array (inputs and outputs).
    Array(&'a Array),
    /// A scalar, converted to its parameter's type with range checks.
    Scalar(Scalar),
    /// A device type's value, for a parameter of that device type.
    Record(RecordArg<'a>),
    /// A texture object, for an ElementwiseKernel input whose type placeholder appears
    /// nowhere else: the placeholder is bound to `cudaTextureObject_t` (`unsigned long
    /// long`) and the kernel gets the handle, to sample with `tex1D<T>(t, x)` and the like.
    Texture(&'a crate::texture::TextureObject),
}

/// A borrowed device-type value as an operand: its record dtype and its bytes on demand.
///
/// ```
/// #[derive(Clone, Copy, cuprum::DeviceType)]
/// #[repr(C)]
/// struct G { x: f32, on: bool }
///
/// use cuprum::{DType, DeviceType, kernel::{IntoOperand, Operand}};
/// let g = G { x: 2.0, on: true };
/// let Operand::Record(r) = g.operand() else { unreachable!() };
/// assert_eq!(DType::Record(r.record()), DType::Record(G::record()));
/// let mut b = [9u8; 8];
/// r.write(&mut b);
/// assert_eq!(b, [0, 0, 0, 64, 1, 0, 0, 0]);
/// ```
#[derive(Clone, Copy)]
pub struct RecordArg<'a>(&'a dyn RecordValue);

impl<'a> RecordArg<'a> {
    /// The operand of a device-type value (what the derive's [`IntoOperand`] returns).
    pub fn of<T: crate::DeviceType>(v: &'a T) -> RecordArg<'a> {
        RecordArg(v)
    }

    /// The record dtype of the value.
    pub fn record(&self) -> RecordType {
        self.0.record_type()
    }

    /// Writes the value into `out` (the record's item size), padding as zeros.
    pub fn write(&self, out: &mut [u8]) {
        self.0.write_record(out)
    }
}

impl std::fmt::Debug for RecordArg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecordArg({})", self.record().name())
    }
}

/// A device type's value, type-erased (every [`DeviceType`](crate::DeviceType) is one).
trait RecordValue: Sync {
    fn record_type(&self) -> RecordType;
    fn write_record(&self, out: &mut [u8]);
}

impl<T: crate::DeviceType> RecordValue for T {
    fn record_type(&self) -> RecordType {
        T::record()
    }
    fn write_record(&self, out: &mut [u8]) {
        out.fill(0);
        self.write_bytes(out)
    }
}

impl<'a> Operand<'a> {
    /// What the operand is, for messages (`"float32 array of shape (3,)"`, `"f32 scalar"`).
    pub fn describe(&self) -> String {
        match self {
            Operand::Array(a) => format!(
                "{} array of shape {}",
                a.dtype(),
                crate::shape::format_shape(a.shape())
            ),
            Operand::Scalar(s) => format!("{} scalar", s.dtype().rust_name()),
            Operand::Record(r) => format!("{} value (a device type)", r.record().name()),
            Operand::Texture(_) => "texture object".to_string(),
        }
    }

    /// The operand's dtype: an array's, a scalar's, a device type's record.
    pub(crate) fn dtype(&self) -> crate::array::DType {
        match self {
            Operand::Array(a) => a.dtype(),
            Operand::Scalar(s) => s.dtype(),
            Operand::Record(r) => crate::array::DType::Record(r.record()),
            Operand::Texture(_) => crate::array::DType::U64,
        }
    }

    /// The operand for a built-in (numeric) operation `what`: a device type's value is
    /// refused with a typed error (records are not numbers).
    pub(crate) fn numeric(self, what: &str) -> Result<Operand<'a>> {
        match self {
            Operand::Record(_) | Operand::Texture(_) => Err(self.not_numeric(what)),
            _ => Ok(self),
        }
    }

    /// The error of a built-in operation `what` given this operand where a number or an
    /// array is needed.
    pub(crate) fn not_numeric(&self, what: &str) -> crate::Error {
        crate::error::err!(
            DType,
            "{what}: expected an array or a number, given a {}; records are arguments of \
             ElementwiseKernel, ReductionKernel, RawKernel and Rust kernels only",
            self.describe()
        )
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

/// A texture object is an ElementwiseKernel operand (see [`Operand::Texture`]).
impl IntoOperand for crate::texture::TextureObject {
    fn operand(&self) -> Operand<'_> {
        Operand::Texture(self)
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

impl Operands for [Operand<'_>] {
    fn operands(&self) -> SmallVec<[Operand<'_>; 8]> {
        self.iter().copied().collect()
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
