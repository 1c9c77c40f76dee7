//! The table itself (see the module's face, `mod.rs`): `dtype_table!` and what it generates.

use crate::error::{Result, bail};
use half::{bf16, f16};
use num_complex::Complex;
use std::any::TypeId;
use std::fmt;
use std::mem::MaybeUninit;

/// How a dtype behaves in arithmetic (NumPy's "kind").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DTypeKind {
    /// `bool`
    Bool,
    /// signed integers
    SignedInt,
    /// unsigned integers
    UnsignedInt,
    /// floating point (float16, bfloat16, float32, float64)
    Float,
    /// complex numbers
    Complex,
    /// records: elements of a user's device type (`#[derive(cuprum::DeviceType)]`)
    Record,
}

/// Calls `$m!` once with the whole table:
/// `(Variant, "numpy name", RustType, "C type", size_in_bytes, kind, "type char")`.
macro_rules! dtype_table {
    ($m:ident) => {
        $m! {
            (Bool, "bool", bool, "bool", 1, Bool, '?'),
            (I8, "int8", i8, "signed char", 1, SignedInt, 'b'),
            (I16, "int16", i16, "short", 2, SignedInt, 'h'),
            (I32, "int32", i32, "int", 4, SignedInt, 'i'),
            (I64, "int64", i64, "long long", 8, SignedInt, 'q'),
            (U8, "uint8", u8, "unsigned char", 1, UnsignedInt, 'B'),
            (U16, "uint16", u16, "unsigned short", 2, UnsignedInt, 'H'),
            (U32, "uint32", u32, "unsigned int", 4, UnsignedInt, 'I'),
            (U64, "uint64", u64, "unsigned long long", 8, UnsignedInt, 'Q'),
            (F16, "float16", f16, "float16", 2, Float, 'e'),
            (BF16, "bfloat16", bf16, "bfloat16", 2, Float, 'E'),
            (F32, "float32", f32, "float", 4, Float, 'f'),
            (F64, "float64", f64, "double", 8, Float, 'd'),
            (C64, "complex64", Complex<f32>, "complex<float>", 8, Complex, 'F'),
            (C128, "complex128", Complex<f64>, "complex<double>", 16, Complex, 'D'),
        }
    };
}
pub(crate) use dtype_table;

macro_rules! define_dtype {
    ($(($v:ident, $name:literal, $rust:ty, $c:literal, $size:literal, $kind:ident, $ch:literal)),* $(,)?) => {
        /// An element type. The table (NumPy name → Rust type → C type):
        ///
        /// | dtype | Rust | C (generated kernels) |
        /// |---|---|---|
        $(#[doc = concat!("| `", $name, "` | `", stringify!($rust), "` | `", $c, "` |")])*
        ///
        /// ```
        /// use cuprum::DType;
        /// assert_eq!(DType::F32.name(), "float32");
        /// assert_eq!(DType::from_name("complex128").unwrap(), DType::C128);
        /// assert_eq!(DType::C128.itemsize(), 16);
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DType {
            $(#[doc = concat!("`", $name, "` (Rust `", stringify!($rust), "`)")] $v,)*
            /// A record: an element of a user's device type (`#[derive(cuprum::DeviceType)]`),
            /// its C++ struct and size in the [`RecordType`]. Numeric operations refuse it.
            Record(RecordType),
        }

        impl DType {
            /// Every numeric dtype, in NumPy's type-char order (records are not listed).
            pub const ALL: &'static [DType] = &[$(DType::$v),*];

            /// NumPy's name (`"float32"`).
            pub const fn name(self) -> &'static str {
                match self { $(DType::$v => $name,)* DType::Record(r) => r.name() }
            }
            /// Bytes per element.
            pub const fn itemsize(self) -> usize {
                match self { $(DType::$v => $size,)* DType::Record(r) => r.itemsize() }
            }
            /// The C type generated kernels use for it.
            pub const fn c_type(self) -> &'static str {
                match self { $(DType::$v => $c,)* DType::Record(r) => r.name() }
            }
            /// NumPy's kind of the dtype.
            pub const fn kind(self) -> DTypeKind {
                match self { $(DType::$v => DTypeKind::$kind,)* DType::Record(_) => DTypeKind::Record }
            }
            /// NumPy's one-letter type code (`'f'` for float32; `'E'` is ours for bfloat16).
            pub const fn char(self) -> char {
                match self { $(DType::$v => $ch,)* DType::Record(_) => 'V' }
            }
            /// The Rust type's name (`"f32"`).
            pub const fn rust_name(self) -> &'static str {
                match self { $(DType::$v => stringify!($rust),)* DType::Record(r) => r.rust_name() }
            }
            /// Look a dtype up by NumPy name (also the short aliases NumPy accepts: `float`,
            /// `int`, `complex`, `half`, `double`, `single`, `f4` ...).
            ///
            /// ```
            /// # use cuprum::{DType, ErrorKind};
            /// assert_eq!(DType::from_name("f8").unwrap(), DType::F64);
            /// let err = DType::from_name("float33").unwrap_err();
            /// assert_eq!(err.kind(), ErrorKind::DType);
            /// ```
            pub fn from_name(name: &str) -> Result<DType> {
                $(if name == $name { return Ok(DType::$v); })*
                let d = match name {
                    "float" | "double" | "f8" | "d" => DType::F64,
                    "single" | "f4" | "f" => DType::F32,
                    "half" | "f2" | "e" => DType::F16,
                    "int" | "i8" | "q" | "l" | "long" | "longlong" => DType::I64,
                    "i4" | "i" | "intc" => DType::I32,
                    "i2" | "h" | "short" => DType::I16,
                    "i1" | "b" | "byte" => DType::I8,
                    "uint" | "u8" | "Q" | "L" | "ulonglong" => DType::U64,
                    "u4" | "I" | "uintc" => DType::U32,
                    "u2" | "H" | "ushort" => DType::U16,
                    "u1" | "B" | "ubyte" => DType::U8,
                    "complex" | "c16" | "D" | "cdouble" => DType::C128,
                    "c8" | "F" | "csingle" => DType::C64,
                    "?" | "bool_" => DType::Bool,
                    "bf16" => DType::BF16,
                    _ => bail!(DType, "data type '{name}' not understood"),
                };
                Ok(d)
            }
        }

        mod sealed {
            use super::*;
            pub trait Sealed {}
            $(impl Sealed for $rust {})*
        }

        $(
            impl Element for $rust {
                const DTYPE: DType = DType::$v;
            }
        )*
    };
}
dtype_table!(define_dtype);

impl DType {
    /// True for float16, bfloat16, float32, float64.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), DTypeKind::Float)
    }
    /// True for complex64 and complex128.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), DTypeKind::Complex)
    }
    /// True for the signed and unsigned integers (not bool).
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::SignedInt | DTypeKind::UnsignedInt)
    }
    /// Alignment of the element in device memory (complex128 is 16-byte aligned).
    pub const fn align(self) -> usize {
        match self {
            DType::Record(r) => r.align(),
            d => d.itemsize(),
        }
    }
    /// True for records (arrays of a user's device type).
    pub const fn is_record(self) -> bool {
        matches!(self, DType::Record(_))
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<DType> {
        DType::from_name(s)
    }
}

/// A Rust type that can be an array element: exactly the types in the [`DType`] table.
///
/// Sealed: the dtype table is the only source of implementations.
///
/// ```
/// use cuprum::{DType, Element};
/// assert_eq!(<f32 as Element>::DTYPE, DType::F32);
/// assert_eq!(<half::bf16 as Element>::DTYPE, DType::BF16);
/// ```
pub trait Element: Copy + Send + Sync + 'static + fmt::Debug + sealed::Sealed {
    /// The dtype of this Rust type.
    const DTYPE: DType;
}

/// Views a slice of elements as bytes (every element type has no padding and, bool included,
/// every byte pattern it holds is a valid `u8`).
pub(crate) fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: every Element type is a plain value type without padding (bool, integers, half
    // floats, floats and `Complex<f32|f64>`, which is `#[repr(C)]` of two floats), so each of
    // its bytes is initialised; the length covers exactly the slice's memory.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// Builds a `Vec<T>` from raw device bytes (length must be a multiple of the item size).
pub(crate) fn vec_from_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / std::mem::size_of::<T>();
    if T::DTYPE == DType::Bool {
        // bool cannot take arbitrary bytes: map through u8.
        let v: Vec<bool> = bytes[..n].iter().map(|&b| b != 0).collect();
        let mut v = std::mem::ManuallyDrop::new(v);
        // SAFETY: T is bool here (checked through the sealed dtype table), so the vector's
        // pointer, length and capacity describe a valid Vec<T>.
        return unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<T>(), v.len(), v.capacity()) };
    }
    let mut out: Vec<T> = Vec::with_capacity(n);
    // SAFETY: T is not bool, so every byte pattern is a valid T (integers, IEEE floats, pairs
    // of floats); we copy exactly n * size_of::<T>() bytes into the reserved capacity and
    // only then set the length.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            out.as_mut_ptr().cast::<u8>(),
            n * std::mem::size_of::<T>(),
        );
        out.set_len(n);
    }
    out
}

/// A `Vec<T>` of `n` elements whose bytes `fill` writes straight into its memory (every
/// byte of the slice it is given), without zeroing them first or copying them again.
/// Large vectors ask for transparent huge pages, so that the first touch of a fresh
/// buffer costs one page fault per 2 MiB rather than per 4 KiB.
pub(crate) fn vec_filled<T: Element>(
    n: usize,
    fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<()>,
) -> Result<Vec<T>> {
    let bytes = n * std::mem::size_of::<T>();
    let mut out: Vec<T> = Vec::with_capacity(n);
    advise_huge_pages(out.as_mut_ptr().cast(), bytes);
    // SAFETY: the capacity holds at least `n` elements, `bytes` bytes, which the view covers;
    // `MaybeUninit<u8>` asks nothing of their contents.
    let spare = unsafe {
        std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<u8>>(), bytes)
    };
    fill(spare)?;
    if T::DTYPE == DType::Bool {
        // SAFETY: `fill` initialised every byte; they are read and rewritten as `u8` (0 or
        // 1) before anything reads them as `bool`.
        let raw = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), n) };
        for b in raw {
            *b = u8::from(*b != 0);
        }
    }
    // SAFETY: `fill` wrote all `n` elements' bytes; every bit pattern is a valid `T` except
    // for `bool`, whose bytes were made 0 or 1 above.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// Asks the kernel for transparent huge pages over the 2 MiB-aligned part of a fresh
/// allocation of 4 MiB or more (advice only: nothing happens where it is not supported).
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if bytes < 2 * HUGE || std::env::var_os("CUPRUM_NO_HUGE_PAGES").is_some() {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside one live allocation of ours; MADV_HUGEPAGE only
            // changes how future page faults are served, never the memory's contents.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

/// What the record dtype knows of its type.
#[derive(Debug)]
pub struct RecordInfo {
    pub(crate) cpp_name: &'static str,
    pub(crate) rust_name: &'static str,
    pub(crate) size: usize,
    pub(crate) align: usize,
    pub(crate) declarations: String,
    pub(crate) type_id: TypeId,
}

/// The element type of an array of a device type: the payload of [`DType::Record`] (its
/// registry is `array/record.rs`). One
/// per Rust type (equal exactly when the Rust types are).
///
/// ```
/// #[derive(Clone, Copy, cuprum::DeviceType)]
/// #[repr(C)]
/// struct P { x: f32, alive: bool }
///
/// use cuprum::DeviceType;
/// let r = P::record();
/// assert_eq!((r.name(), r.itemsize(), r.align()), ("P", 8, 4));
/// assert!(r.declarations().contains("struct P {"));
/// assert_eq!(cuprum::DType::Record(r).name(), "P");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RecordType(pub(crate) &'static RecordInfo);

impl RecordType {
    /// The C++ name (also the dtype's name).
    pub const fn name(self) -> &'static str {
        self.0.cpp_name
    }
    /// The Rust type's path.
    pub const fn rust_name(self) -> &'static str {
        self.0.rust_name
    }
    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        self.0.size
    }
    /// Alignment of an element.
    pub const fn align(self) -> usize {
        self.0.align
    }
    /// The C++ declarations of the type and those it uses, in order.
    pub fn declarations(self) -> &'static str {
        &self.0.declarations
    }
    /// Whether this is `T`'s record dtype.
    pub fn is<T: 'static>(self) -> bool {
        self.0.type_id == TypeId::of::<T>()
    }
}

impl PartialEq for RecordType {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.0, o.0)
    }
}
impl Eq for RecordType {}
impl std::hash::Hash for RecordType {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.type_id.hash(h)
    }
}
impl PartialOrd for RecordType {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for RecordType {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.0.cpp_name, self.0 as *const RecordInfo as usize)
            .cmp(&(o.0.cpp_name, o.0 as *const RecordInfo as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for &d in DType::ALL {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
            assert!(d.itemsize().is_power_of_two());
            assert_eq!(d.align(), d.itemsize());
        }
        assert_eq!(DType::ALL.len(), 15);
        assert_eq!(std::mem::size_of::<Complex<f64>>(), DType::C128.itemsize());
        assert_eq!(std::mem::size_of::<bf16>(), DType::BF16.itemsize());
        assert_eq!(<u16 as Element>::DTYPE, DType::U16);
        assert_eq!(DType::I64.c_type(), "long long");
    }

    #[test]
    fn unknown_names_error() {
        let e = DType::from_name("float128").unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::DType);
        assert_eq!(e.to_string(), "data type 'float128' not understood");
    }

    #[test]
    fn bytes_round_trip() {
        let v = vec![1.5f64, -2.0, 3.25];
        assert_eq!(vec_from_bytes::<f64>(as_bytes(&v)), v);
        let b = vec![true, false, true];
        assert_eq!(vec_from_bytes::<bool>(&[1, 0, 7]), b);
        let c = vec![Complex::new(1.0f32, -1.0)];
        assert_eq!(vec_from_bytes::<Complex<f32>>(as_bytes(&c)), c);
    }
}
