//! Creating arrays: `empty`, `zeros`, `ones`, `full`, the `*_like` forms, `arange`,
//! `linspace`, and uploads from host memory.

use super::device_array::Array;
use super::kernels::{self, KernelKey};
use super::shape::{Shape, format_shape, nbytes_of, size_of};
use crate::dtype::Scalar;
use crate::dtype::{DType, Element, as_bytes};
use crate::error::{Result, bail};
use crate::runtime::{Buffer, Stream, copy_htod};

/// Whether [`Array::linspace`] ends at `stop` (NumPy's `endpoint`).
///
/// ```
/// assert_eq!(cuprum::Endpoint::default(), cuprum::Endpoint::Included);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endpoint {
    /// `stop` is the last value (NumPy's default).
    #[default]
    Included,
    /// The values stop one step before `stop`.
    Excluded,
}

impl Array {
    /// An uninitialised array on the current stream's device. A repeat allocation of the
    /// same size is served from the device's memory pool in about a microsecond.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::empty(&[1000, 1000], DType::F32)?;
    /// assert_eq!(a.nbytes(), 4_000_000);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn empty(shape: &[usize], dtype: DType) -> Result<Array> {
        // The shape is checked before a device is touched.
        nbytes_of(shape, dtype.itemsize())?;
        Array::empty_on(shape, dtype, &Stream::current()?)
    }

    /// [`empty`](Array::empty) on a given stream: the array belongs to `stream` (allocated
    /// and freed there; see [Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn empty_on(shape: &[usize], dtype: DType, stream: &Stream) -> Result<Array> {
        let bytes = nbytes_of(shape, dtype.itemsize())?;
        let buf = Buffer::alloc(bytes, stream)?;
        Ok(Array::from_buffer(buf, dtype, Shape::from_slice(shape)))
    }

    /// [`zeros`](Array::zeros) on a given device (on its stream: the current stream when it
    /// belongs to `device`, else the device's default stream). For the other creation
    /// functions, run them inside [`Device::with`](crate::Device::with).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, DType, Device};
    /// let dev = Device::get(0)?;
    /// let z = Array::zeros_on_device(dev, &[4], DType::F64)?;
    /// assert_eq!(z.device(), dev);
    /// let r = dev.with(|| Array::arange(0.0, 4.0, 1.0, DType::F32))?;  // any creation function
    /// assert_eq!(r.device(), dev);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn zeros_on_device(device: crate::Device, shape: &[usize], dtype: DType) -> Result<Array> {
        nbytes_of(shape, dtype.itemsize())?;
        let stream = Stream::for_device(device)?;
        let a = Array::empty_on(shape, dtype, &stream)?;
        let (bytes, n) = Scalar::zero(dtype).to_bytes();
        kernels::fill(&a, &bytes[..n], &stream)?;
        Ok(a)
    }

    /// Uploads host data as an array of `shape` on `device` (see
    /// [`from_slice`](Array::from_slice)).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, Device};
    /// let dev = Device::get(0)?;
    /// let a = Array::from_slice_on_device(dev, &[1i32, 2, 3], &[3])?;
    /// assert_eq!((a.device(), a.to_vec::<i32>()?), (dev, vec![1, 2, 3]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_slice_on_device<T: Element>(
        device: crate::Device,
        data: &[T],
        shape: &[usize],
    ) -> Result<Array> {
        upload(data, shape, || Stream::for_device(device))
    }

    /// An array of zeros.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let z = Array::zeros(&[2, 3], DType::I32)?;
    /// assert_eq!(z.to_vec::<i32>()?, vec![0; 6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn zeros(shape: &[usize], dtype: DType) -> Result<Array> {
        Array::full(shape, Scalar::zero(dtype), dtype)
    }

    /// An array of ones.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// assert_eq!(Array::ones(&[3], DType::F64)?.to_vec::<f64>()?, vec![1.0; 3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn ones(shape: &[usize], dtype: DType) -> Result<Array> {
        Array::full(shape, Scalar::one(dtype), dtype)
    }

    /// An array filled with `value` converted to `dtype` (NumPy's assignment rules: an
    /// out-of-range integer is an error).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let a = Array::full(&[2], 7i32, DType::F32)?;
    /// assert_eq!(a.to_vec::<f32>()?, vec![7.0, 7.0]);
    /// let err = Array::full(&[2], 300i32, DType::I8).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn full(shape: &[usize], value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
        let v = value.into().cast(dtype)?;
        let a = Array::empty(shape, dtype)?;
        a.fill(v)?;
        Ok(a)
    }

    /// Sets every element of this view to `value` (converted to the array's dtype).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, s};
    /// let a = Array::zeros(&[2, 3], DType::F32)?;
    /// a.slice(&s![.., 1])?.fill(5.0f32)?;          // writes through the view
    /// assert_eq!(a.to_vec::<f32>()?, vec![0.0, 5.0, 0.0, 0.0, 5.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        self.check_writeable("fill")?;
        let v = value.into().cast(self.dtype)?;
        let (bytes, n) = v.to_bytes();
        kernels::fill(self, &bytes[..n], &Stream::for_device(self.device())?)
    }

    /// An uninitialised array with the shape and dtype of `other`, on `other`'s device
    /// (the `*_like` functions follow their model's device).
    pub fn empty_like(other: &Array) -> Result<Array> {
        Array::empty_on(
            &other.shape,
            other.dtype,
            &Stream::for_device(other.device())?,
        )
    }
    /// Zeros with the shape and dtype of `other`, on `other`'s device.
    pub fn zeros_like(other: &Array) -> Result<Array> {
        Array::full_like(other, Scalar::zero(other.dtype))
    }
    /// Ones with the shape and dtype of `other`, on `other`'s device.
    pub fn ones_like(other: &Array) -> Result<Array> {
        Array::full_like(other, Scalar::one(other.dtype))
    }
    /// `value` with the shape and dtype of `other`, on `other`'s device.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[2], DType::U8)?;
    /// assert_eq!(Array::full_like(&a, 9u8)?.to_vec::<u8>()?, vec![9, 9]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn full_like(other: &Array, value: impl Into<Scalar>) -> Result<Array> {
        let v = value.into().cast(other.dtype)?;
        let a = Array::empty_like(other)?;
        a.fill(v)?;
        Ok(a)
    }

    /// Evenly spaced values `start, start + step, ...` below `stop` (NumPy's `arange`),
    /// of `dtype` (integers, floats, bool for a length ≤ 2).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// assert_eq!(Array::arange(0.0, 5.0, 2.0, DType::I32)?.to_vec::<i32>()?, vec![0, 2, 4]);
    /// assert_eq!(Array::arange(1.0, 0.0, -0.25, DType::F32)?.size(), 4);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Array> {
        if dtype.is_complex() {
            bail!(Unsupported, "arange does not support {dtype}");
        }
        if step == 0.0 || !step.is_finite() {
            bail!(
                InvalidArgument,
                "arange step must be finite and non-zero, got {step}"
            );
        }
        if !start.is_finite() || !stop.is_finite() {
            bail!(
                InvalidArgument,
                "arange bounds must be finite, got start={start}, stop={stop}"
            );
        }
        let len = ((stop - start) / step).ceil();
        let n = if len > 0.0 { len as usize } else { 0 };
        if dtype.is_integer() {
            for (what, v) in [("start", start), ("step", step)] {
                if v.fract() != 0.0 {
                    bail!(
                        DType,
                        "arange with dtype {dtype} needs an integral {what}, got {v}"
                    );
                }
            }
            if n > 0 {
                let last = start + step * (n - 1) as f64;
                Scalar::F64(start).cast(dtype)?;
                Scalar::F64(last).cast(dtype)?;
            }
        }
        if dtype == DType::Bool && n > 2 {
            bail!(
                DType,
                "arange of {n} elements cannot be represented as bool"
            );
        }
        arange_of(n, (start, step), (start as i64, step as i64), dtype)
    }

    /// [`arange`](Array::arange) with integer bounds, exact at every magnitude (`arange`
    /// takes `f64`s, which hold integers exactly only up to 2^53): `[start, stop)` by
    /// `step` in any real dtype; an integer dtype must hold every value (NumPy's
    /// `arange(2**60, 2**60 + 5)`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let big = 1i128 << 60;
    /// let a = Array::arange_int(big, big + 3, 1, DType::I64)?;
    /// assert_eq!(a.to_vec::<i64>()?, vec![1 << 60, (1 << 60) + 1, (1 << 60) + 2]);
    /// let top = Array::arange_int(u64::MAX as i128, 0, -(1i128 << 62), DType::U64)?;
    /// assert_eq!(top.size(), 4);
    /// let e = Array::arange_int(0, 300, 1, DType::U8).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn arange_int(start: i128, stop: i128, step: i128, dtype: DType) -> Result<Array> {
        if dtype.is_complex() {
            bail!(Unsupported, "arange does not support {dtype}");
        }
        if step == 0 {
            bail!(InvalidArgument, "arange step must be non-zero, got 0");
        }
        let span = if step > 0 { stop - start } else { start - stop };
        let n = if span > 0 {
            let n = (span + step.abs() - 1) / step.abs();
            usize::try_from(n).map_err(|_| {
                crate::error::err!(
                    InvalidArgument,
                    "arange({start}, {stop}, {step}) has {n} elements: too many"
                )
            })?
        } else {
            0
        };
        if dtype == DType::Bool && n > 2 {
            bail!(
                DType,
                "arange of {n} elements cannot be represented as bool"
            );
        }
        if dtype.is_integer() && n > 0 {
            let last = start + step * (n as i128 - 1);
            for v in [start, last] {
                if !fits_integer(v, dtype) {
                    bail!(
                        DType,
                        "arange({start}, {stop}, {step}): {v} does not fit in {dtype}"
                    );
                }
            }
        }
        let bits = |v: i128| -> i64 { v as u64 as i64 };
        arange_of(
            n,
            (start as f64, step as f64),
            (bits(start), bits(step)),
            dtype,
        )
    }

    /// `num` evenly spaced values from `start` to `stop` (`stop` the last one with
    /// [`Endpoint::Included`], NumPy's default), of `dtype` (NumPy's `linspace`; integer
    /// dtypes round toward −∞ like NumPy 2).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, Endpoint};
    /// let x = Array::linspace(0.0, 1.0, 5, Endpoint::Included, DType::F64)?;
    /// assert_eq!(x.to_vec::<f64>()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// let y = Array::linspace(0.0, 1.0, 4, Endpoint::Excluded, DType::F64)?;
    /// assert_eq!(y.to_vec::<f64>()?, vec![0.0, 0.25, 0.5, 0.75]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn linspace(
        start: f64,
        stop: f64,
        num: usize,
        endpoint: Endpoint,
        dtype: DType,
    ) -> Result<Array> {
        let endpoint = endpoint == Endpoint::Included;
        if dtype.is_complex() {
            bail!(Unsupported, "linspace does not support {dtype}");
        }
        if dtype.is_integer() && num > 0 {
            Scalar::F64(start.floor()).cast(dtype)?;
            Scalar::F64(stop.floor()).cast(dtype)?;
        }
        if !start.is_finite() || !stop.is_finite() {
            bail!(
                InvalidArgument,
                "linspace bounds must be finite, got start={start}, stop={stop}"
            );
        }
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let step = if div > 0 {
            (stop - start) / div as f64
        } else {
            0.0
        };
        let out = Array::empty(&[num], dtype)?;
        kernels::launch_1d(
            &out,
            KernelKey::Linspace(dtype),
            &[
                Scalar::F64(start),
                Scalar::F64(step),
                Scalar::F64(stop),
                Scalar::I32(endpoint as i32),
            ],
            &Stream::current()?,
        )?;
        Ok(out)
    }

    /// Uploads host data as an array of `shape` (the slice length must equal the size).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.shape(), &[2, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
        upload(data, shape, Stream::current)
    }

    /// Uploads a vector as an array of `shape`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::from_vec(vec![1u8, 2, 3], &[3])?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Array> {
        Array::from_slice(&data, shape)
    }

    /// A 0-d array holding one value.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::scalar(2.5f64)?;
    /// assert_eq!(a.ndim(), 0);
    /// assert_eq!(a.to_vec::<f64>()?, vec![2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn scalar<T: Element>(value: T) -> Result<Array> {
        Array::from_slice(&[value], &[])
    }
}

/// `data` as a new array of `shape` on the stream `stream` gives (asked for once the
/// shape is known to fit `data`).
fn upload<T: Element>(
    data: &[T],
    shape: &[usize],
    stream: impl FnOnce() -> Result<Stream>,
) -> Result<Array> {
    let n = size_of(shape)?;
    if n != data.len() {
        bail!(
            Shape,
            "cannot make an array of shape {} ({n} elements) from {} elements",
            format_shape(shape),
            data.len()
        );
    }
    let stream = stream()?;
    let a = Array::empty_on(shape, T::DTYPE, &stream)?;
    // SAFETY: `a` is a new contiguous array of `n` elements of `T` on `stream`, and `data`
    // holds `n` values of `T`, alive past the copy.
    unsafe { copy_htod(a.ptr_on(&stream), as_bytes(data), &stream)? };
    Ok(a)
}

/// `n` values `start + i * step` of `dtype` (the float pair for float dtypes, the integer
/// pair, as two's-complement bits, for integer ones).
fn arange_of(n: usize, float: (f64, f64), int: (i64, i64), dtype: DType) -> Result<Array> {
    let out = Array::empty(&[n], dtype)?;
    kernels::launch_1d(
        &out,
        KernelKey::Arange(dtype),
        &[
            Scalar::F64(float.0),
            Scalar::F64(float.1),
            Scalar::I64(int.0),
            Scalar::I64(int.1),
        ],
        &Stream::current()?,
    )?;
    Ok(out)
}

/// Whether the integer `v` is a value of the integer dtype `d`.
fn fits_integer(v: i128, d: DType) -> bool {
    let bits = 8 * d.itemsize() as u32;
    if d.kind() == crate::dtype::DTypeKind::SignedInt {
        (-(1i128 << (bits - 1))..(1i128 << (bits - 1))).contains(&v)
    } else {
        (0..(1i128 << bits)).contains(&v)
    }
}
