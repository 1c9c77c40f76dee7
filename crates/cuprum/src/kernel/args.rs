//! Kernel arguments: arrays pass their first element's device address, scalars their exact
//! Rust type, device types (`#[derive(cuprum::DeviceType)]`) their bytes written field by
//! field ([`record_arg`]), other `#[repr(C)]` structs their bytes ([`ByValue`]). Lists of mixed arguments are
//! tuples (`(&a, &b, n as i32)`) or slices of `&dyn KernelArg`.

use crate::array::Array;
use crate::runtime::{Device, Stream};
use half::{bf16, f16};
use num_complex::Complex;
use smallvec::SmallVec;

/// How an argument is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A device address. `contiguous` is false for a strided view; `allow_strided` is the
    /// user's explicit opt-in ([`Strided`]).
    Pointer {
        /// whether the view is C-contiguous
        contiguous: bool,
        /// whether a non-contiguous view may be passed anyway
        allow_strided: bool,
    },
    /// A value passed by copy.
    Value,
}

/// One packed argument: its bytes, how it is passed, and its Rust type (for messages).
#[derive(Debug, Clone)]
pub struct ArgValue {
    /// The bytes the kernel receives.
    pub bytes: SmallVec<[u8; 16]>,
    /// Pointer or value.
    pub kind: ArgKind,
    /// The Rust type, as error messages show it.
    pub type_name: &'static str,
    /// For a non-contiguous array: shape and element strides (for the message refusing a
    /// strided view; inline, so packing an array argument allocates nothing). `None` for
    /// values and contiguous arrays.
    pub view: Option<(crate::shape::Shape, crate::shape::Strides)>,
}

/// Something a kernel can take as one argument.
///
/// ```
/// use cuprum::kernel::{KernelArg, ArgKind};
/// let a = 3i32.to_arg();
/// assert_eq!(a.bytes.as_slice(), &3i32.to_le_bytes());
/// assert_eq!(a.kind, ArgKind::Value);
/// assert_eq!(a.type_name, "i32");
/// ```
pub trait KernelArg {
    /// The packed argument.
    fn to_arg(&self) -> ArgValue;

    /// The packed argument for a launch on `stream`. Arrays record the use, so that their
    /// memory is not freed or reused before the launch's work on `stream` is done (see
    /// [Arrays and streams](crate::Stream#arrays-and-streams)). A type of yours that holds
    /// an [`Array`] should forward this to the array's `to_arg_on`; the default calls
    /// [`to_arg`](KernelArg::to_arg).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, Stream, kernel::KernelArg};
    /// let a = Array::zeros(&[4], DType::F32)?;
    /// let arg = a.to_arg_on(&Stream::current()?);
    /// assert_eq!(arg.bytes.as_slice(), &a.data_ptr().to_le_bytes());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    fn to_arg_on(&self, stream: &Stream) -> ArgValue {
        let _ = stream;
        self.to_arg()
    }

    /// The device whose memory the argument points to: an array's device; `None` for
    /// values and raw addresses (the default). Raw kernels launch on the first array
    /// argument's device when no stream is given, and check every array argument's device.
    ///
    /// ```
    /// use cuprum::kernel::KernelArg;
    /// assert!(3i32.device().is_none());
    /// ```
    fn device(&self) -> Option<Device> {
        None
    }
}

fn value(bytes: &[u8], type_name: &'static str) -> ArgValue {
    ArgValue {
        bytes: SmallVec::from_slice(bytes),
        kind: ArgKind::Value,
        type_name,
        view: None,
    }
}

macro_rules! scalar_args {
    ($($t:ty => $name:literal),* $(,)?) => {$(
        impl KernelArg for $t {
            fn to_arg(&self) -> ArgValue {
                value(crate::array::dtype::as_bytes(std::slice::from_ref(self)), $name)
            }
        }
    )*};
}
scalar_args!(
    bool => "bool", i8 => "i8", i16 => "i16", i32 => "i32", i64 => "i64",
    u8 => "u8", u16 => "u16", u32 => "u32", u64 => "u64",
    f16 => "half::f16", bf16 => "half::bf16", f32 => "f32", f64 => "f64",
    Complex<f32> => "Complex<f32>", Complex<f64> => "Complex<f64>",
);

/// A [`Scalar`](crate::Scalar) passes its value (its dtype's bytes) by copy.
///
/// ```
/// use cuprum::{Scalar, kernel::{ArgKind, KernelArg}};
/// let a = Scalar::F64(2.5).to_arg();
/// assert_eq!((a.bytes.as_slice(), a.kind, a.type_name), (&2.5f64.to_le_bytes()[..], ArgKind::Value, "f64"));
/// ```
impl KernelArg for crate::array::Scalar {
    fn to_arg(&self) -> ArgValue {
        let (bytes, len) = self.to_bytes();
        value(&bytes[..len], self.dtype().rust_name())
    }
}

impl KernelArg for Array {
    fn to_arg(&self) -> ArgValue {
        array_arg(self, self.data_ptr())
    }
    fn to_arg_on(&self, stream: &Stream) -> ArgValue {
        array_arg(self, self.ptr_on(stream))
    }
    fn device(&self) -> Option<Device> {
        Some(Array::device(self))
    }
}

fn array_arg(a: &Array, ptr: u64) -> ArgValue {
    let contiguous = a.is_c_contiguous();
    ArgValue {
        bytes: SmallVec::from_slice(&ptr.to_le_bytes()),
        kind: ArgKind::Pointer {
            contiguous,
            allow_strided: false,
        },
        type_name: "&Array",
        // Only a strided view's message needs them (`RawKernel`'s refusal).
        view: (!contiguous).then(|| {
            (
                crate::shape::Shape::from_slice(a.shape()),
                crate::shape::Strides::from_slice(a.strides()),
            )
        }),
    }
}

impl<T: KernelArg + ?Sized> KernelArg for &T {
    fn to_arg(&self) -> ArgValue {
        (**self).to_arg()
    }
    fn to_arg_on(&self, stream: &Stream) -> ArgValue {
        (**self).to_arg_on(stream)
    }
    fn device(&self) -> Option<Device> {
        (**self).device()
    }
}

/// Passes a non-contiguous view's first-element address anyway (the kernel must do its own
/// strided indexing).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, kernel::Strided};
/// let a = Array::zeros(&[4, 4], DType::F32)?;
/// let col = a.t();               // not contiguous
/// let arg = Strided(&col);       // explicit: the kernel knows the strides
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Strided<'a>(pub &'a Array);

impl KernelArg for Strided<'_> {
    fn to_arg(&self) -> ArgValue {
        self.strided(self.0.to_arg())
    }
    fn to_arg_on(&self, stream: &Stream) -> ArgValue {
        self.strided(self.0.to_arg_on(stream))
    }
    fn device(&self) -> Option<Device> {
        Some(self.0.device())
    }
}

impl Strided<'_> {
    fn strided(&self, mut a: ArgValue) -> ArgValue {
        a.kind = ArgKind::Pointer {
            contiguous: self.0.is_c_contiguous(),
            allow_strided: true,
        };
        a
    }
}

/// A raw device address (for memory cuprum does not manage). Null is `DevicePtr(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevicePtr(pub u64);

impl KernelArg for DevicePtr {
    fn to_arg(&self) -> ArgValue {
        ArgValue {
            bytes: SmallVec::from_slice(&self.0.to_le_bytes()),
            kind: ArgKind::Pointer {
                contiguous: true,
                allow_strided: true,
            },
            type_name: "DevicePtr",
            view: None,
        }
    }
}

/// A texture object passes its 64-bit handle (`cudaTextureObject_t`) by copy.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, kernel::KernelArg, texture::*};
/// let arr = CudaArray::new(ChannelFormat::of(DType::F32, 1)?, [4, 0, 0])?;
/// let t = TextureObject::new(&Resource::Array(arr), &TextureDesc::default())?;
/// assert_eq!(t.to_arg().bytes.as_slice(), &t.handle().to_le_bytes());
/// # Ok::<(), cuprum::Error>(())
/// ```
impl KernelArg for crate::texture::TextureObject {
    fn to_arg(&self) -> ArgValue {
        value(&self.handle().to_le_bytes(), "TextureObject")
    }
    fn device(&self) -> Option<Device> {
        Some(crate::texture::TextureObject::device(self))
    }
}

/// A surface object passes its 64-bit handle (`cudaSurfaceObject_t`) by copy.
impl KernelArg for crate::texture::SurfaceObject {
    fn to_arg(&self) -> ArgValue {
        value(&self.handle().to_le_bytes(), "SurfaceObject")
    }
    fn device(&self) -> Option<Device> {
        Some(self.array().device())
    }
}

/// A plain-old-data value passed by copy — a user `#[repr(C)]` struct matching a kernel's
/// struct parameter.
///
/// ```
/// use cuprum::kernel::{ByValue, KernelArg};
/// #[repr(C)]
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// struct Params { scale: f32, offset: f32, n: i32, pad: i32 }
/// let a = ByValue(Params { scale: 2.0, offset: 1.0, n: 10, pad: 0 }).to_arg();
/// assert_eq!(a.bytes.len(), 16);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ByValue<T: bytemuck::Pod>(pub T);

impl<T: bytemuck::Pod> KernelArg for ByValue<T> {
    fn to_arg(&self) -> ArgValue {
        value(bytemuck::bytes_of(&self.0), std::any::type_name::<T>())
    }
}

/// A device type's value as a kernel argument (`#[derive(cuprum::DeviceType)]` implements
/// [`KernelArg`] through it): its bytes written field by field, padding zeroed, passed by
/// copy (RawKernel checks the size against the kernel's parameter).
///
/// ```
/// #[derive(Clone, Copy, cuprum::DeviceType)]
/// #[repr(C)]
/// struct Params { scale: f32, on: bool }
///
/// use cuprum::kernel::{ArgKind, KernelArg};
/// let a = Params { scale: 2.0, on: true }.to_arg();
/// assert_eq!(a.bytes.as_slice(), &[0, 0, 0, 64, 1, 0, 0, 0]);
/// assert_eq!(a.kind, ArgKind::Value);
/// ```
pub fn record_arg<T: crate::DeviceType>(v: &T) -> ArgValue {
    let n = std::mem::size_of::<T>();
    let mut bytes: SmallVec<[u8; 16]> = SmallVec::from_elem(0, n);
    v.write_bytes(&mut bytes);
    ArgValue {
        bytes,
        kind: ArgKind::Value,
        type_name: std::any::type_name::<T>(),
        view: None,
    }
}

/// A list of kernel arguments: tuples of up to 16 [`KernelArg`]s, arrays and slices of
/// `&dyn KernelArg`, or `()` for none.
pub trait KernelArgs {
    /// Appends every argument in order.
    fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>);

    /// Appends every argument in order, for a launch on `stream` (each argument's
    /// [`to_arg_on`](KernelArg::to_arg_on)); the default calls
    /// [`collect_args`](KernelArgs::collect_args).
    fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
        let _ = stream;
        self.collect_args(out);
    }

    /// Each argument's [`device`](KernelArg::device), in order (the default: none known).
    ///
    /// ```
    /// use cuprum::kernel::KernelArgs;
    /// assert_eq!((1i32, 2.0f32).devices(), vec![None, None]);
    /// ```
    fn devices(&self) -> Vec<Option<Device>> {
        Vec::new()
    }
}

impl KernelArgs for () {
    fn collect_args(&self, _out: &mut SmallVec<[ArgValue; 8]>) {}
}

impl KernelArgs for [&dyn KernelArg] {
    fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(|a| a.to_arg()));
    }
    fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(|a| a.to_arg_on(stream)));
    }
    fn devices(&self) -> Vec<Option<Device>> {
        self.iter().map(|a| a.device()).collect()
    }
}

impl<const N: usize> KernelArgs for [&dyn KernelArg; N] {
    fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>) {
        self.as_slice().collect_args(out);
    }
    fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
        self.as_slice().collect_args_on(stream, out);
    }
    fn devices(&self) -> Vec<Option<Device>> {
        self.as_slice().devices()
    }
}

impl KernelArgs for Vec<Box<dyn KernelArg>> {
    fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(|a| a.to_arg()));
    }
    fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(|a| a.to_arg_on(stream)));
    }
    fn devices(&self) -> Vec<Option<Device>> {
        self.iter().map(|a| a.device()).collect()
    }
}

macro_rules! tuple_args {
    ($($name:ident)+) => {
        impl<$($name: KernelArg),+> KernelArgs for ($($name,)+) {
            #[allow(non_snake_case)]
            fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>) {
                let ($($name,)+) = self;
                $(out.push($name.to_arg());)+
            }
            #[allow(non_snake_case)]
            fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
                let ($($name,)+) = self;
                $(out.push($name.to_arg_on(stream));)+
            }
            #[allow(non_snake_case)]
            fn devices(&self) -> Vec<Option<Device>> {
                let ($($name,)+) = self;
                vec![$($name.device(),)+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A B);
tuple_args!(A B C);
tuple_args!(A B C D);
tuple_args!(A B C D E);
tuple_args!(A B C D E F);
tuple_args!(A B C D E F G);
tuple_args!(A B C D E F G H);
tuple_args!(A B C D E F G H I);
tuple_args!(A B C D E F G H I J);
tuple_args!(A B C D E F G H I J K);
tuple_args!(A B C D E F G H I J K L);
tuple_args!(A B C D E F G H I J K L M);
tuple_args!(A B C D E F G H I J K L M N);
tuple_args!(A B C D E F G H I J K L M N O);
tuple_args!(A B C D E F G H I J K L M N O P);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_keep_their_exact_width() {
        let mut v = SmallVec::new();
        (1u8, 2i16, 3.0f32, 4.0f64, true, Complex::new(1.0f64, 2.0)).collect_args(&mut v);
        let sizes: Vec<usize> = v.iter().map(|a| a.bytes.len()).collect();
        assert_eq!(sizes, vec![1, 2, 4, 8, 1, 16]);
        assert_eq!(v[3].type_name, "f64");
        assert_eq!(v[4].bytes.as_slice(), &[1]);
        let mut w = SmallVec::new();
        let dynargs: [&dyn KernelArg; 2] = [&7u64, &DevicePtr(0)];
        dynargs.collect_args(&mut w);
        assert_eq!(
            w[1].kind,
            ArgKind::Pointer {
                contiguous: true,
                allow_strided: true
            }
        );
    }
}
