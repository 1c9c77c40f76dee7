//! Device types: a user's `#[repr(C)]` struct usable in kernels and as an array element
//! (`#[derive(cuprum::DeviceType)]`), and the record dtype an array of them has.
//!
//! **The name.** `DeviceType` pairs with `#[cuprum::device]`: a type that lives on the
//! device as it lives on the host. The dtype kind is NumPy's word, *record* (a structured
//! element), so that CuPy users recognise it.
//!
//! **One layout, checked on both sides.** The derive accepts `#[repr(C)]` structs with named
//! fields whose types are [`DeviceField`]s: bool, the integers, f16, bf16, f32, f64, fixed
//! arrays of them and other device types. It writes the C++ declaration (`struct Particle
//! { float pos[3]; … };`) with `static_assert`s of the Rust `size_of`, `align_of` and
//! every `offset_of!`, so the C++ compiler refuses a declaration that differs (NVRTC has no
//! `offsetof`: it checks size and alignment, the host device's compiler every offset too);
//! on the Rust side a `const` assertion checks each offset against the C rules
//! (`c_offset`), so a layout that is not C's is a compile error too.
//!
//! **How kernels learn the types.** `#[cuprum::kernel]` sees only its own function, never
//! the struct. The translator names a device type in C++ by its written name, reads fields
//! through `decltype` (`cj::plain_t<decltype(cj::val<Particle>().mass)>`), and the kernel's
//! program gets each type's declaration at run time through this trait
//! ([`DeviceField::declare`], in dependency order, each once; two different types of one C++
//! name in one program are an error at launch). So the macro needs nothing but names, and
//! rustc (the twin is real Rust) type-checks every field use.
//!
//! **Array fields.** A C++ array member (`float c[3]`) cannot be copied, while Rust's
//! `[f32; 3]` can: kernels read a field through `cj::cp` (a C++ array becomes the
//! `cj::Arr` a Rust array is; the identity otherwise) and write one through `cj::set`, and
//! `cj::plain_t` names an array field's type as that `cj::Arr`, so `let c = p.c;`,
//! `p.c = c;` and passing `p.c` to a device function taking `[f32; 3]` all work.
//!
//! **Bytes.** A device type may have padding (never initialised in Rust) and bool fields
//! (only 0 and 1 are valid). Values go to the device field by field
//! ([`DeviceField::write_bytes`], padding zeroed), and come back only after
//! [`DeviceField::valid_bytes`] accepts every bool: reading device memory is sound whatever
//! a kernel wrote there.

use crate::dtype::{DType, RecordInfo, RecordType};
use crate::error::{Result, bail};
use half::{bf16, f16};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A type a device type's field may have: bool, the integers, f16, bf16, f32, f64, fixed
/// arrays of field types, and device types (`#[derive(cuprum::DeviceType)]`).
///
/// ```
/// use cuprum::DeviceField;
/// assert_eq!(<f32 as DeviceField>::cpp_member("x"), "float x");
/// assert_eq!(<[[u8; 3]; 2] as DeviceField>::cpp_member("m"), "unsigned char m[2][3]");
/// ```
///
/// # Safety
/// `cpp_member` must declare a C++ member of exactly the Rust type's size and alignment;
/// `write_bytes` must write every byte of `out` (`size_of::<Self>()` bytes) from the value;
/// `valid_bytes` must accept only bit patterns that are valid values of `Self`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a device type",
    note = "fields may be bool, i8–i64, u8–u64, f16, bf16, f32, f64, fixed arrays of them, and types with `#[derive(cuprum::DeviceType)]`"
)]
pub unsafe trait DeviceField: Copy + Send + Sync + 'static {
    /// The C++ member declaration of a field `name` of this type (`float x`, `float v[3]`).
    fn cpp_member(name: &str) -> String;
    /// Adds the declarations of the device types this type uses (itself included).
    fn declare(decls: &mut Declarations);
    /// Writes the value into `out` (`size_of::<Self>()` bytes), padding as zeros.
    fn write_bytes(&self, out: &mut [u8]);
    /// Whether `bytes` (`size_of::<Self>()` of them) hold a valid value.
    fn valid_bytes(bytes: &[u8]) -> bool;
    /// The dtype of an array of this type (`None` for fixed arrays: not an element type).
    fn element_dtype() -> Option<DType>;
}

/// A `#[repr(C)]` struct usable in kernels, as a kernel parameter, a slice element, a
/// RawKernel argument and an array element (dtype kind *record*). Implement it with
/// `#[derive(cuprum::DeviceType)]`.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
/// #[repr(C)]
/// struct Particle {
///     pos: [f32; 3],
///     alive: bool,
///     mass: f64,
/// }
///
/// use cuprum::DeviceType;
/// let d = Particle::declaration();
/// assert!(d.contains("struct Particle {"));
/// assert!(d.contains("static_assert(sizeof(Particle) == 24"));
/// assert!(d.contains("offsetof(Particle, mass) == 16"));
/// ```
///
/// # Safety
/// `declaration` must declare a C++ struct named `CPP_NAME` of the Rust type's layout;
/// the [`DeviceField`] obligations hold. The derive guarantees both.
pub unsafe trait DeviceType: DeviceField {
    /// The C++ name of the struct (the Rust name).
    const CPP_NAME: &'static str;
    /// The C++ declaration of this type alone, with its layout's `static_assert`s.
    fn declaration() -> String;
    /// The record dtype of arrays of this type.
    fn record() -> RecordType {
        RecordType::of::<Self>()
    }
}

/// The C++ declarations a program needs, each once, in dependency order.
#[derive(Debug, Default)]
pub struct Declarations {
    names: Vec<&'static str>,
    decls: Vec<String>,
    text: String,
    conflict: Option<String>,
}

impl Declarations {
    /// None yet.
    pub fn new() -> Declarations {
        Declarations::default()
    }

    /// Adds `T` (once; call it after the types its fields use, as `DeviceField::declare`
    /// does). A different type of the same C++ name is recorded as the conflict.
    pub fn add<T: DeviceType>(&mut self) {
        let decl = T::declaration();
        if let Some(i) = self.names.iter().position(|n| *n == T::CPP_NAME) {
            if self.decls[i] != decl && self.conflict.is_none() {
                self.conflict = Some(format!(
                    "two different device types are named `{}` (one is `{}`); C++ has one \
                     namespace for them: rename one",
                    T::CPP_NAME,
                    std::any::type_name::<T>()
                ));
            }
            return;
        }
        self.names.push(T::CPP_NAME);
        self.text.push_str(&decl);
        self.decls.push(decl);
    }

    /// The declarations, in order.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The C++ names declared, in order.
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// Two different types of one name, if any were added.
    pub fn conflict(&self) -> Option<&str> {
        self.conflict.as_deref()
    }
}

macro_rules! prim_fields {
    ($($t:ty => $c:literal, $d:ident);* $(;)?) => {$(
        // SAFETY: the C++ type has the Rust type's size and alignment on every target cuprum
        // builds for (the dtype table's facts; usize/isize are 64-bit there); every byte is written; every bit pattern of
        // a number is valid.
        unsafe impl DeviceField for $t {
            fn cpp_member(name: &str) -> String {
                format!("{} {name}", $c)
            }
            fn declare(_: &mut Declarations) {}
            fn write_bytes(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_ne_bytes());
            }
            fn valid_bytes(_: &[u8]) -> bool {
                true
            }
            fn element_dtype() -> Option<DType> {
                Some(DType::$d)
            }
        }
    )*};
}

prim_fields! {
    i8 => "signed char", I8; i16 => "short", I16; i32 => "int", I32; i64 => "long long", I64;
    isize => "long long", I64; u8 => "unsigned char", U8; u16 => "unsigned short", U16;
    u32 => "unsigned int", U32; u64 => "unsigned long long", U64;
    usize => "unsigned long long", U64; f16 => "float16", F16; bf16 => "bfloat16", BF16;
    f32 => "float", F32; f64 => "double", F64;
}

// SAFETY: C++ `bool` is one byte holding 0 or 1, as Rust's; the byte is written; only 0
// and 1 are accepted back.
unsafe impl DeviceField for bool {
    fn cpp_member(name: &str) -> String {
        format!("bool {name}")
    }
    fn declare(_: &mut Declarations) {}
    fn write_bytes(&self, out: &mut [u8]) {
        out[0] = u8::from(*self);
    }
    fn valid_bytes(bytes: &[u8]) -> bool {
        bytes[0] <= 1
    }
    fn element_dtype() -> Option<DType> {
        Some(DType::Bool)
    }
}

// SAFETY: a C array `T name[N]` has the layout of `[T; N]` (N elements of T's size, T's
// alignment); each element writes its bytes; each element is checked.
unsafe impl<T: DeviceField, const N: usize> DeviceField for [T; N] {
    fn cpp_member(name: &str) -> String {
        T::cpp_member(&format!("{name}[{N}]"))
    }
    fn declare(decls: &mut Declarations) {
        T::declare(decls)
    }
    fn write_bytes(&self, out: &mut [u8]) {
        let n = std::mem::size_of::<T>();
        for (x, o) in self.iter().zip(out.chunks_exact_mut(n.max(1))) {
            x.write_bytes(o);
        }
    }
    fn valid_bytes(bytes: &[u8]) -> bool {
        let n = std::mem::size_of::<T>().max(1);
        bytes.chunks_exact(n).take(N).all(T::valid_bytes)
    }
    fn element_dtype() -> Option<DType> {
        None
    }
}

/// The offset C gives field `i` of a struct whose fields have these `(size, align)`s (the
/// derive's const assertion compares it with `offset_of!`).
///
pub const fn c_offset(fields: &[(usize, usize)], i: usize) -> usize {
    let mut at: usize = 0;
    let mut k = 0;
    while k < fields.len() {
        let (size, align) = fields[k];
        at = at.next_multiple_of(if align == 0 { 1 } else { align });
        if k == i {
            return at;
        }
        at += size;
        k += 1;
    }
    at
}

/// The size C gives a struct whose fields have these `(size, align)`s.
///
pub const fn c_size(fields: &[(usize, usize)]) -> usize {
    let mut align = 1;
    let mut k = 0;
    while k < fields.len() {
        if fields[k].1 > align {
            align = fields[k].1;
        }
        k += 1;
    }
    c_offset(fields, fields.len()).next_multiple_of(align)
}

impl RecordType {
    /// The record dtype of `T` (registered on first use).
    pub fn of<T: DeviceType>() -> RecordType {
        static TABLE: OnceLock<Mutex<HashMap<TypeId, &'static RecordInfo>>> = OnceLock::new();
        let table = TABLE.get_or_init(Default::default);
        let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
        let info = *t.entry(TypeId::of::<T>()).or_insert_with(|| {
            let mut d = Declarations::new();
            T::declare(&mut d);
            Box::leak(Box::new(RecordInfo {
                cpp_name: T::CPP_NAME,
                rust_name: std::any::type_name::<T>(),
                size: std::mem::size_of::<T>(),
                align: std::mem::align_of::<T>(),
                declarations: d.text().to_string(),
                type_id: TypeId::of::<T>(),
            }))
        });
        RecordType(info)
    }
}

impl crate::Array {
    /// Uploads device-type values (`#[derive(cuprum::DeviceType)]`) as an array of `shape`
    /// with `T`'s record dtype (each value written field by field, padding zeroed) on the
    /// current stream.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// #[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
    /// #[repr(C)]
    /// struct P { x: f32, alive: bool }
    ///
    /// use cuprum::{Array, DeviceType, ErrorKind};
    /// let v = [P { x: 1.5, alive: true }, P { x: -2.0, alive: false }];
    /// let a = Array::from_records(&v, &[2])?;
    /// assert_eq!(a.dtype(), cuprum::DType::Record(P::record()));
    /// assert_eq!(a.to_records::<P>()?, v);
    /// // numeric operations refuse records
    /// assert_eq!(a.sum().unwrap_err().kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_records<T: DeviceType>(data: &[T], shape: &[usize]) -> Result<crate::Array> {
        let n = super::shape::size_of(shape)?;
        if n != data.len() {
            bail!(
                Shape,
                "cannot make an array of shape {} ({n} elements) from {} records",
                super::shape::format_shape(shape),
                data.len()
            );
        }
        let stream = crate::runtime::Stream::current()?;
        let a = crate::Array::empty_on(shape, DType::Record(T::record()), &stream)?;
        let bytes = records_to_bytes(data);
        // SAFETY: `a` is a new contiguous array of `n` elements of `T`'s size on `stream`;
        // `bytes` holds exactly their bytes and lives past the copy (which returns once
        // the source may be reused).
        unsafe { crate::runtime::copy_htod(a.ptr_on(&stream), &bytes, &stream)? };
        Ok(a)
    }

    /// Downloads an array of `T`'s record dtype into a `Vec<T>` in C order. Refused: another
    /// dtype, a non-contiguous view, an element that is not a valid `T` (a bool field
    /// holding a byte other than 0 or 1, written by a kernel).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// #[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
    /// #[repr(C)]
    /// struct Q { a: u8, b: f64 }
    ///
    /// use cuprum::{Array, DType, ErrorKind};
    /// let a = Array::from_records(&[Q { a: 3, b: 0.5 }], &[1])?;
    /// assert_eq!(a.to_records::<Q>()?, [Q { a: 3, b: 0.5 }]);
    /// let f = Array::from_slice(&[1.0f32], &[1])?;
    /// assert_eq!(f.to_records::<Q>().unwrap_err().kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_records<T: DeviceType>(&self) -> Result<Vec<T>> {
        let want = DType::Record(T::record());
        if self.dtype() != want {
            bail!(
                DType,
                "to_records::<{}>: expected an array of dtype {want}, given {}",
                std::any::type_name::<T>(),
                self.dtype()
            );
        }
        if !self.is_c_contiguous() {
            bail!(
                Launch,
                "to_records: the array is a non-contiguous view (shape {:?}, element strides {:?}); \
                 records are read from contiguous arrays",
                self.shape(),
                self.strides()
            );
        }
        let stream = crate::runtime::Stream::for_device(self.device())?;
        let mut bytes = vec![0u8; self.nbytes()];
        // SAFETY: the array is contiguous with `nbytes()` bytes, alive until the copy
        // returns; `bytes` has room for all of them.
        unsafe {
            crate::runtime::copy_dtoh(
                crate::runtime::as_uninit(&mut bytes),
                self.ptr_on(&stream),
                &stream,
            )?
        };
        records_from_bytes(&bytes)
    }
}

/// Makes `T` usable by name in ElementwiseKernel and ReductionKernel parameter lists
/// (`"Particle p, float32 dt"`, fields read in the operation: `p.mass`): its C++ name
/// becomes a parameter type, and every specialisation that uses it starts with its
/// declaration. Such a parameter takes an array of records or one value of the type (a
/// record scalar, passed by value). Registering a type twice is fine; another type of the
/// same name is an error.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// #[derive(Clone, Copy, cuprum::DeviceType)]
/// #[repr(C)]
/// struct Pt { x: f32, y: f32 }
///
/// use cuprum::{Array, DType, ElementwiseKernel, ErrorKind};
/// cuprum::kernel::register_record::<Pt>()?;
/// let norm2 = ElementwiseKernel::new("Pt p", "float32 r", "r = p.x * p.x + p.y * p.y", "norm2")?;
/// let pts = Array::from_records(&[Pt { x: 3.0, y: 4.0 }, Pt { x: 1.0, y: 0.0 }], &[2])?;
/// let r = norm2.call((&pts,))?;
/// assert_eq!(r.to_vec::<f32>()?, [25.0, 1.0]);
/// // One value as a scalar argument, and a number where a record is declared.
/// let dist2 = ElementwiseKernel::new(
///     "Pt p, Pt c", "float32 r", "r = (p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y)", "dist2")?;
/// let r = dist2.call((&pts, Pt { x: 1.0, y: 0.0 }))?;
/// assert_eq!(r.to_vec::<f32>()?, [20.0, 0.0]);
/// assert_eq!(dist2.call((&pts, 1.0f32)).unwrap_err().kind(), ErrorKind::DType);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn register_record<T: DeviceType>() -> Result<DType> {
    let r = T::record();
    let mut t = names().lock().unwrap_or_else(|p| p.into_inner());
    match t.get(r.name()) {
        Some(other) if *other != r => bail!(
            InvalidArgument,
            "register_record::<{}>: another device type ({}) is already registered as `{}`",
            std::any::type_name::<T>(),
            other.rust_name(),
            r.name()
        ),
        _ => {
            t.insert(r.name(), r);
            Ok(DType::Record(r))
        }
    }
}

fn names() -> &'static Mutex<HashMap<&'static str, RecordType>> {
    static NAMES: OnceLock<Mutex<HashMap<&'static str, RecordType>>> = OnceLock::new();
    NAMES.get_or_init(Default::default)
}

/// The record dtype registered under `name`, if any.
pub(crate) fn registered_record(name: &str) -> Option<DType> {
    let t = names().lock().unwrap_or_else(|p| p.into_inner());
    t.get(name).map(|r| DType::Record(*r))
}

/// The bytes of `values`, each element written field by field (padding zeroed).
pub(crate) fn records_to_bytes<T: DeviceType>(values: &[T]) -> Vec<u8> {
    let n = std::mem::size_of::<T>();
    let mut out = vec![0u8; std::mem::size_of_val(values)];
    if n > 0 {
        for (v, o) in values.iter().zip(out.chunks_exact_mut(n)) {
            v.write_bytes(o);
        }
    }
    out
}

/// The values in `bytes` (a whole number of `T`s), refused when an element holds an
/// invalid value (a bool byte other than 0 or 1).
pub(crate) fn records_from_bytes<T: DeviceType>(bytes: &[u8]) -> Result<Vec<T>> {
    let n = std::mem::size_of::<T>();
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(bytes.len() / n);
    for (i, chunk) in bytes.chunks_exact(n).enumerate() {
        if !T::valid_bytes(chunk) {
            bail!(
                DType,
                "element {i} of the {} array is not a valid `{}` (a bool field holds a byte other than 0 or 1)",
                T::CPP_NAME,
                std::any::type_name::<T>()
            );
        }
        // SAFETY: `chunk` holds `size_of::<T>()` bytes that `valid_bytes` accepted as a
        // valid `T` (every field's bit pattern is valid; padding may hold anything); the
        // read is unaligned-safe.
        out.push(unsafe { std::ptr::read_unaligned(chunk.as_ptr().cast::<T>()) });
    }
    Ok(out)
}
