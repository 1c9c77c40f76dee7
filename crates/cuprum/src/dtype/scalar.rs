//! A single typed value ([`Scalar`]) and NumPy's assignment conversion between dtypes.

use super::half_round::f16_from_f64;
use super::table::{DType, Element, dtype_table};
use crate::error::{Result, bail};
use half::{bf16, f16};
use num_complex::Complex;

macro_rules! define_scalar {
    ($(($v:ident, $name:literal, $rust:ty, $c:literal, $size:literal, $kind:ident, $ch:literal)),* $(,)?) => {
        /// One value with its dtype: what fills an array, or what a kernel takes by value.
        ///
        /// Every [`Element`] type converts into it with `From`.
        ///
        /// ```
        /// use cuprum::{DType, Scalar};
        /// let s = Scalar::from(3i32);
        /// assert_eq!(s.dtype(), DType::I32);
        /// assert_eq!(s.cast(DType::F64).unwrap(), Scalar::F64(3.0));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Scalar {
            $(#[doc = concat!("a `", $name, "` value")] $v($rust),)*
        }

        impl Scalar {
            /// The dtype of the value.
            pub fn dtype(&self) -> DType {
                match self { $(Scalar::$v(_) => DType::$v,)* }
            }

            /// The value's bytes as the device stores them (little-endian, `itemsize` long).
            pub fn to_bytes(&self) -> ([u8; 16], usize) {
                let mut out = [0u8; 16];
                match self {
                    $(Scalar::$v(x) => {
                        let b = super::table::as_bytes(std::slice::from_ref(x));
                        out[..b.len()].copy_from_slice(b);
                        (out, b.len())
                    })*
                }
            }

            /// The value as a typed Rust value when the dtypes match.
            pub fn get<T: Element>(&self) -> Option<T> {
                $(if let Scalar::$v(x) = self {
                    if T::DTYPE == DType::$v {
                        let b = super::table::as_bytes(std::slice::from_ref(x));
                        return super::table::vec_from_bytes::<T>(b).pop();
                    }
                })*
                None
            }
        }

        $(impl From<$rust> for Scalar {
            fn from(x: $rust) -> Scalar { Scalar::$v(x) }
        })*
    };
}
dtype_table!(define_scalar);

/// The value seen through the widest type of its kind.
#[derive(Debug, Clone, Copy)]
enum Wide {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

impl Scalar {
    fn wide(&self) -> Wide {
        match *self {
            Scalar::Bool(b) => Wide::Bool(b),
            Scalar::I8(x) => Wide::Int(x.into()),
            Scalar::I16(x) => Wide::Int(x.into()),
            Scalar::I32(x) => Wide::Int(x.into()),
            Scalar::I64(x) => Wide::Int(x.into()),
            Scalar::U8(x) => Wide::Int(x.into()),
            Scalar::U16(x) => Wide::Int(x.into()),
            Scalar::U32(x) => Wide::Int(x.into()),
            Scalar::U64(x) => Wide::Int(x.into()),
            Scalar::F16(x) => Wide::Float(x.to_f64()),
            Scalar::BF16(x) => Wide::Float(x.to_f64()),
            Scalar::F32(x) => Wide::Float(x.into()),
            Scalar::F64(x) => Wide::Float(x),
            Scalar::C64(z) => Wide::Complex(z.re.into(), z.im.into()),
            Scalar::C128(z) => Wide::Complex(z.re, z.im),
        }
    }

    /// Converts to `dtype` with NumPy's assignment rules, refusing lossy cases NumPy would
    /// refuse or warn about: an integer out of the target's range, NaN or infinity into an
    /// integer, a complex value with a non-zero imaginary part into a real type.
    /// Floats into integers truncate toward zero, as NumPy does.
    ///
    /// ```
    /// use cuprum::{DType, ErrorKind, Scalar};
    /// assert_eq!(Scalar::from(2.7f64).cast(DType::I32).unwrap(), Scalar::I32(2));
    /// let err = Scalar::from(300i64).cast(DType::I8).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::DType);
    /// assert!(err.to_string().contains("300"), "{err}");
    /// ```
    pub fn cast(&self, dtype: DType) -> Result<Scalar> {
        let src = self.dtype();
        if src == dtype {
            return Ok(*self);
        }
        let w = self.wide();
        // Integer target: need an exact integer value in range.
        let as_int = |w: Wide| -> Result<i128> {
            match w {
                Wide::Bool(b) => Ok(b as i128),
                Wide::Int(i) => Ok(i),
                Wide::Float(f) | Wide::Complex(f, 0.0) => {
                    if !f.is_finite() {
                        bail!(
                            DType,
                            "cannot convert {src} value {f} to {dtype}: not finite"
                        );
                    }
                    Ok(f.trunc() as i128)
                }
                Wide::Complex(re, im) => bail!(
                    DType,
                    "cannot convert {src} value ({re}{im:+}j) to {dtype} without losing the imaginary part"
                ),
            }
        };
        let as_f64 = |w: Wide| -> Result<f64> {
            match w {
                Wide::Bool(b) => Ok(b as u8 as f64),
                Wide::Int(i) => Ok(i as f64),
                Wide::Float(f) | Wide::Complex(f, 0.0) => Ok(f),
                Wide::Complex(re, im) => bail!(
                    DType,
                    "cannot convert {src} value ({re}{im:+}j) to {dtype} without losing the imaginary part"
                ),
            }
        };
        macro_rules! int {
            ($t:ty, $v:ident) => {{
                let i = as_int(w)?;
                match <$t>::try_from(i) {
                    Ok(x) => Scalar::$v(x),
                    Err(_) => bail!(
                        DType,
                        "value {i} (from {src}) is out of range for {dtype} [{}, {}]",
                        <$t>::MIN,
                        <$t>::MAX
                    ),
                }
            }};
        }
        let out = match dtype {
            DType::Record(r) => bail!(
                DType,
                "cannot convert {src} value to the record dtype {} (an array of a device type)",
                r.name()
            ),
            DType::Bool => Scalar::Bool(match w {
                Wide::Bool(b) => b,
                Wide::Int(i) => i != 0,
                Wide::Float(f) => f != 0.0,
                Wide::Complex(re, im) => re != 0.0 || im != 0.0,
            }),
            DType::I8 => int!(i8, I8),
            DType::I16 => int!(i16, I16),
            DType::I32 => int!(i32, I32),
            DType::I64 => int!(i64, I64),
            DType::U8 => int!(u8, U8),
            DType::U16 => int!(u16, U16),
            DType::U32 => int!(u32, U32),
            DType::U64 => int!(u64, U64),
            DType::F16 => Scalar::F16(f16_from_f64(as_f64(w)?)),
            DType::BF16 => Scalar::BF16(bf16::from_f64(as_f64(w)?)),
            DType::F32 => Scalar::F32(as_f64(w)? as f32),
            DType::F64 => Scalar::F64(as_f64(w)?),
            DType::C64 | DType::C128 => {
                let (re, im) = match w {
                    Wide::Complex(re, im) => (re, im),
                    other => (as_f64(other)?, 0.0),
                };
                if dtype == DType::C64 {
                    Scalar::C64(Complex::new(re as f32, im as f32))
                } else {
                    Scalar::C128(Complex::new(re, im))
                }
            }
        };
        Ok(out)
    }

    /// The value as an integer, for integer and bool scalars.
    pub(crate) fn as_i128(&self) -> Option<i128> {
        match self.wide() {
            Wide::Bool(b) => Some(b as i128),
            Wide::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The value as `f64` (real part for complex numbers; `true` is 1).
    pub fn to_f64(&self) -> f64 {
        match self.wide() {
            Wide::Bool(b) => b as u8 as f64,
            Wide::Int(i) => i as f64,
            Wide::Float(f) => f,
            Wide::Complex(re, _) => re,
        }
    }

    /// Zero of `dtype`.
    pub fn zero(dtype: DType) -> Scalar {
        Scalar::Bool(false)
            .cast(dtype)
            .unwrap_or(Scalar::Bool(false))
    }

    /// One of `dtype`.
    pub fn one(dtype: DType) -> Scalar {
        Scalar::Bool(true).cast(dtype).unwrap_or(Scalar::Bool(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn casts_follow_numpy_assignment() {
        assert_eq!(
            Scalar::from(-3.9f32).cast(DType::I16).unwrap(),
            Scalar::I16(-3)
        );
        assert_eq!(
            Scalar::from(255i32).cast(DType::U8).unwrap(),
            Scalar::U8(255)
        );
        assert_eq!(
            Scalar::from(-1i32).cast(DType::U8).unwrap_err().kind(),
            ErrorKind::DType
        );
        assert_eq!(
            Scalar::from(f64::NAN).cast(DType::I32).unwrap_err().kind(),
            ErrorKind::DType
        );
        assert_eq!(
            Scalar::from(2.0f64).cast(DType::Bool).unwrap(),
            Scalar::Bool(true)
        );
        assert_eq!(
            Scalar::from(1.5f64).cast(DType::C64).unwrap(),
            Scalar::C64(Complex::new(1.5, 0.0))
        );
        let e = Scalar::from(Complex::new(1.0f64, 2.0))
            .cast(DType::F32)
            .unwrap_err();
        assert!(e.to_string().contains("imaginary"), "{e}");
        assert_eq!(
            Scalar::from(u64::MAX).cast(DType::I64).unwrap_err().kind(),
            ErrorKind::DType
        );
        assert_eq!(Scalar::one(DType::BF16), Scalar::BF16(bf16::ONE));
        assert_eq!(
            Scalar::zero(DType::C128),
            Scalar::C128(Complex::new(0.0, 0.0))
        );
    }

    #[test]
    fn bytes_and_get() {
        let (b, n) = Scalar::from(1.0f32).to_bytes();
        assert_eq!(n, 4);
        assert_eq!(&b[..4], &1.0f32.to_le_bytes());
        assert_eq!(Scalar::from(7u16).get::<u16>(), Some(7));
        assert_eq!(Scalar::from(7u16).get::<i16>(), None);
        assert_eq!(Scalar::from(true).to_bytes().1, 1);
    }
}
