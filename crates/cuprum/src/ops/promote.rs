//! NumPy's type promotion for the built-in operations (user kernels never promote).
//!
//! Arrays are *strong*: two array dtypes promote to the smallest dtype both cast to safely
//! (`numpy.promote_types`; bfloat16 behaves as in ml_dtypes). Rust scalars are *weak*
//! (NumPy 2's rule for Python scalars): a scalar of the same or a lower kind than the arrays
//! takes the arrays' dtype (`f32_array * 2.0` stays float32, `u8_array + 1` stays uint8 and
//! `u8_array + 300` is an error); only a higher kind promotes (`i32_array * 0.5` → float64).

use crate::array::{DType, DTypeKind};
use crate::error::{Result, bail};
use crate::kernel::Operand;

/// Order in which the smallest common type is searched (NumPy's type-char order, bfloat16
/// after float16).
const SEARCH: &[DType] = &[
    DType::Bool,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::I32,
    DType::U32,
    DType::I64,
    DType::U64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

/// Bits of precision of a float (or each part of a complex) type.
fn mantissa(d: DType) -> u32 {
    match d {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 | DType::C64 => 24,
        DType::F64 | DType::C128 => 53,
        _ => 0,
    }
}

/// Largest finite exponent class (so float16 does not cast to bfloat16 or back).
fn range_rank(d: DType) -> u32 {
    match d {
        DType::F16 => 1,
        DType::BF16 | DType::F32 | DType::C64 => 2,
        DType::F64 | DType::C128 => 3,
        _ => 0,
    }
}

/// Value bits of an integer type (sign excluded).
fn int_bits(d: DType) -> (u32, bool) {
    let signed = d.kind() == DTypeKind::SignedInt;
    let bits = d.itemsize() as u32 * 8 - signed as u32;
    (bits, signed)
}

/// Whether every value of `from` is exactly representable in `to` (NumPy's
/// `can_cast(from, to, "safe")`, which also calls int64 → float64 safe).
///
/// ```
/// use cuprum::{DType, ops::can_cast_safe};
/// assert!(can_cast_safe(DType::I16, DType::F32));
/// assert!(!can_cast_safe(DType::I32, DType::F32));
/// assert!(can_cast_safe(DType::I64, DType::F64));
/// assert!(!can_cast_safe(DType::F16, DType::BF16));
/// ```
pub fn can_cast_safe(from: DType, to: DType) -> bool {
    use DTypeKind::*;
    if from == to || from.kind() == Bool {
        return true;
    }
    match (from.kind(), to.kind()) {
        (_, Bool) => false,
        (SignedInt | UnsignedInt, SignedInt | UnsignedInt) => {
            let ((fb, fs), (tb, ts)) = (int_bits(from), int_bits(to));
            if fs && !ts { false } else { tb >= fb }
        }
        (SignedInt | UnsignedInt, Float | Complex) => {
            let (bits, _) = int_bits(from);
            // NumPy: int64/uint64 -> float64 counts as safe.
            bits <= mantissa(to) || (from.itemsize() == 8 && mantissa(to) == 53)
        }
        (Float, Float | Complex) | (Complex, Complex) => {
            mantissa(to) >= mantissa(from) && range_rank(to) >= range_rank(from)
        }
        _ => false,
    }
}

/// Whether NumPy's `same_kind` casting allows `from` → `to`: a safe cast, or one that does
/// not go down the kind order bool < unsigned integer < signed integer < float < complex
/// (float64 → float32 and int64 → int8 are allowed; float → int, int8 → uint8 and
/// complex → float are not). In-place operations and `_into` outputs follow it.
///
/// ```
/// use cuprum::{DType, ops::can_cast_same_kind};
/// assert!(can_cast_same_kind(DType::F64, DType::F32));
/// assert!(can_cast_same_kind(DType::I64, DType::I8));
/// assert!(can_cast_same_kind(DType::U8, DType::I8));
/// assert!(!can_cast_same_kind(DType::I8, DType::U8));
/// assert!(!can_cast_same_kind(DType::F64, DType::I32));
/// assert!(!can_cast_same_kind(DType::C64, DType::F64));
/// ```
pub fn can_cast_same_kind(from: DType, to: DType) -> bool {
    fn rank(k: DTypeKind) -> u8 {
        match k {
            DTypeKind::Bool => 0,
            DTypeKind::UnsignedInt => 1,
            DTypeKind::SignedInt => 2,
            DTypeKind::Float => 3,
            DTypeKind::Complex => 4,
            DTypeKind::Record => 5,
        }
    }
    can_cast_safe(from, to) || rank(from.kind()) <= rank(to.kind())
}

/// Refuses a record dtype (an array of a device type) where numbers are needed.
pub(crate) fn numeric(what: &str, d: DType) -> Result<()> {
    if let DType::Record(r) = d {
        crate::error::bail!(
            DType,
            "{what} needs numbers, given an array of records ({}, {} bytes each); numeric operations \
             do not apply to device types: use a kernel that reads their fields",
            r.name(),
            r.itemsize()
        );
    }
    Ok(())
}

/// NumPy's `promote_types`: the smallest dtype both cast to safely.
///
/// ```
/// use cuprum::{DType, ops::promote_types};
/// assert_eq!(promote_types(DType::I8, DType::U8), DType::I16);
/// assert_eq!(promote_types(DType::I64, DType::U64), DType::F64);
/// assert_eq!(promote_types(DType::F16, DType::BF16), DType::F32);
/// assert_eq!(promote_types(DType::C64, DType::F64), DType::C128);
/// ```
pub fn promote_types(a: DType, b: DType) -> DType {
    SEARCH
        .iter()
        .copied()
        .find(|&t| can_cast_safe(a, t) && can_cast_safe(b, t))
        .unwrap_or(DType::C128)
}

/// The complex type with `d`'s precision.
fn complex_of(d: DType) -> DType {
    if mantissa(d) > 24 {
        DType::C128
    } else {
        DType::C64
    }
}

/// Kind order for weak scalars: bool < integer < float < complex.
fn weak_rank(k: DTypeKind) -> u8 {
    match k {
        DTypeKind::Bool => 0,
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => 1,
        DTypeKind::Float => 2,
        DTypeKind::Complex => 3,
        DTypeKind::Record => 4,
    }
}

/// The dtype of an operation on `operands`: arrays promote strongly, scalars weakly.
///
/// ```
/// use cuprum::{DType, ops::result_type_of};
/// assert_eq!(result_type_of(&[DType::F32], &[DType::F64]).unwrap(), DType::F32);
/// assert_eq!(result_type_of(&[DType::I32], &[DType::F64]).unwrap(), DType::F64);
/// assert_eq!(result_type_of(&[DType::Bool], &[DType::I32]).unwrap(), DType::I64);
/// assert_eq!(result_type_of(&[DType::F32], &[DType::C128]).unwrap(), DType::C64);
/// assert!(result_type_of(&[], &[DType::F32]).is_err());
/// ```
pub fn result_type_of(arrays: &[DType], scalars: &[DType]) -> Result<DType> {
    let Some(mut t) = arrays.iter().copied().reduce(promote_types) else {
        bail!(
            InvalidArgument,
            "an operation on scalars only: at least one operand must be an Array"
        );
    };
    for &s in scalars {
        if weak_rank(s.kind()) > weak_rank(t.kind()) {
            t = match s.kind() {
                DTypeKind::SignedInt | DTypeKind::UnsignedInt => DType::I64,
                DTypeKind::Float => DType::F64,
                DTypeKind::Complex if t.kind() == DTypeKind::Float => complex_of(t),
                _ => DType::C128,
            };
        }
    }
    Ok(t)
}

/// [`result_type_of`] for operands.
pub(crate) fn result_type(operands: &[Operand<'_>]) -> Result<DType> {
    let mut arrays = smallvec::SmallVec::<[DType; 4]>::new();
    let mut scalars = smallvec::SmallVec::<[DType; 4]>::new();
    for o in operands {
        match o {
            Operand::Array(a) => {
                numeric("this operation", a.dtype())?;
                arrays.push(a.dtype())
            }
            Operand::Scalar(s) => scalars.push(s.dtype()),
            Operand::Record(_) | Operand::Texture(_) => {
                o.numeric("this operation")?;
            }
        }
    }
    result_type_of(&arrays, &scalars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn numpy_promotion_table_samples() {
        let cases = [
            (Bool, Bool, Bool),
            (Bool, I8, I8),
            (U8, I8, I16),
            (U16, I16, I32),
            (U32, I32, I64),
            (U64, I64, F64),
            (U8, U32, U32),
            (I8, F16, F16),
            (U8, F16, F16),
            (I16, F16, F32),
            (I32, F16, F64),
            (I32, F32, F64),
            (I16, F32, F32),
            (I64, F32, F64),
            (F32, F64, F64),
            (F16, F32, F32),
            (C64, F32, C64),
            (C64, F64, C128),
            (C64, I32, C128),
            (C64, I16, C64),
            (U8, BF16, BF16),
            (I16, BF16, F32),
            (BF16, F32, F32),
            (BF16, C64, C64),
        ];
        for (a, b, want) in cases {
            assert_eq!(promote_types(a, b), want, "{a} + {b}");
            assert_eq!(promote_types(b, a), want, "{b} + {a}");
        }
    }

    #[test]
    fn same_kind_casting() {
        // NumPy: np.can_cast(a, b, "same_kind")
        let yes = [
            (F64, F32),
            (F64, F16),
            (I64, I8),
            (U8, I8),
            (U64, I8),
            (Bool, U8),
            (I32, F16),
            (C128, C64),
            (F64, C64),
            (F32, BF16),
        ];
        let no = [
            (I8, U8),
            (F16, I64),
            (F64, I32),
            (C64, F64),
            (I8, Bool),
            (U8, Bool),
        ];
        for (a, b) in yes {
            assert!(can_cast_same_kind(a, b), "{a} -> {b}");
        }
        for (a, b) in no {
            assert!(!can_cast_same_kind(a, b), "{a} -> {b}");
        }
    }

    #[test]
    fn weak_scalars() {
        assert_eq!(result_type_of(&[U8], &[I64]).unwrap(), U8);
        assert_eq!(result_type_of(&[I8], &[F32]).unwrap(), F64);
        assert_eq!(result_type_of(&[F16], &[F64]).unwrap(), F16);
        assert_eq!(result_type_of(&[F64], &[C64]).unwrap(), C128);
        assert_eq!(result_type_of(&[I32], &[C64]).unwrap(), C128);
        assert_eq!(result_type_of(&[I32], &[Bool]).unwrap(), I32);
        assert_eq!(result_type_of(&[Bool], &[Bool]).unwrap(), Bool);
        assert_eq!(result_type_of(&[I8, F32], &[I64]).unwrap(), F32);
    }
}
