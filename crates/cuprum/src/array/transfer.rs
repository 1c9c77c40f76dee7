//! Moving data: device → host, host → device into an existing array, device copies of any
//! view, and `ndarray` interop (cargo feature `ndarray`).

use super::device_array::Array;
use super::kernels;
use super::shape::format_shape;
use crate::dtype::{DType, Element, as_bytes, vec_filled};
use crate::error::{Result, bail};
use crate::runtime::{Device, Stream, copy_dtod, copy_dtoh, copy_htod, copy_peer};

impl Array {
    /// Downloads the elements in C order (any view; non-contiguous views are packed on
    /// the GPU first). `T` must be the array's dtype.
    ///
    /// Into a new vector, a large download is bounded by the host zeroing the vector's
    /// fresh pages (about half the link's speed on an H100 host); a program that downloads
    /// repeatedly keeps one vector and uses [`copy_to_slice`](Array::copy_to_slice) (the
    /// link's speed), or a [`PinnedBuffer`](crate::PinnedBuffer).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let a = Array::arange(0.0, 4.0, 1.0, DType::I16)?;
    /// assert_eq!(a.to_vec::<i16>()?, vec![0, 1, 2, 3]);
    /// assert_eq!(a.to_vec::<f32>().unwrap_err().kind(), ErrorKind::DType);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_dtype::<T>("to_vec")?;
        let c = self.to_contiguous()?;
        let stream = Stream::for_device(c.device())?;
        vec_filled(c.size(), |bytes| {
            // SAFETY: `c` is contiguous with `size()` elements of `T`, `bytes.len()` bytes,
            // and alive until the copy returns.
            unsafe { copy_dtoh(bytes, c.ptr_on(&stream), &stream) }
        })
    }

    /// Downloads the elements in C order into `out` (any view; `out.len()` must equal the
    /// size, `T` the array's dtype): [`to_vec`](Array::to_vec) into a buffer the program
    /// already has (CuPy's `get(out=)`). Large copies run at the link's speed through
    /// cuprum's pinned staging.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let a = Array::arange(0.0, 4.0, 1.0, DType::F32)?;
    /// let mut out = [0.0f32; 4];
    /// a.copy_to_slice(&mut out)?;
    /// assert_eq!(out, [0.0, 1.0, 2.0, 3.0]);
    /// let mut short = [0.0f32; 3];
    /// assert_eq!(a.copy_to_slice(&mut short).unwrap_err().kind(), ErrorKind::Shape);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy_to_slice<T: Element>(&self, out: &mut [T]) -> Result<()> {
        self.check_dtype::<T>("copy_to_slice")?;
        if out.len() != self.size() {
            bail!(
                Shape,
                "copy_to_slice: the array of shape {} has {} elements, the slice {}",
                format_shape(&self.shape),
                self.size(),
                out.len()
            );
        }
        let c = self.to_contiguous()?;
        let stream = Stream::for_device(c.device())?;
        let len = std::mem::size_of_val(out);
        // SAFETY: `out` is initialised memory of `len` bytes, `c.nbytes()`; while `bytes`
        // lives `out` is not used. The copy writes only bytes of elements of `T`: every bit
        // pattern is a valid `T` except for `bool`, whose bytes are made 0 or 1 below
        // before `out` is used again, whether the copy succeeded or not.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(),
                len,
            )
        };
        // SAFETY: `c` is contiguous with `size()` elements, alive until the copy returns.
        let copied = unsafe { copy_dtoh(bytes, c.ptr_on(&stream), &stream) };
        if T::DTYPE == DType::Bool {
            // In place: no second host copy of the data.
            // SAFETY: the same `len` bytes, each initialised (a bool before, or written by
            // the copy); rewritten as `u8` 0 or 1, valid `bool`s again.
            let raw = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), len) };
            for b in raw {
                *b = u8::from(*b != 0);
            }
        }
        copied
    }

    /// Overwrites this view with host data in C order (`data.len()` must equal the size).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, s};
    /// let a = Array::zeros(&[2, 2], DType::F32)?;
    /// a.slice(&s![.., 0])?.copy_from_slice(&[1.0f32, 2.0])?;
    /// assert_eq!(a.to_vec::<f32>()?, vec![1.0, 0.0, 2.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy_from_slice<T: Element>(&self, data: &[T]) -> Result<()> {
        self.check_writeable("copy_from_slice")?;
        self.check_dtype::<T>("copy_from_slice")?;
        if data.len() != self.size() {
            bail!(
                Shape,
                "copy_from_slice: the array of shape {} has {} elements, the slice {}",
                format_shape(&self.shape),
                self.size(),
                data.len()
            );
        }
        let stream = Stream::for_device(self.device())?;
        if self.is_c_contiguous() {
            // SAFETY: the view is contiguous with `data.len()` elements of `T` (checked
            // above, with the dtype), and keeps its buffer alive past the copy.
            return unsafe { copy_htod(self.ptr_on(&stream), as_bytes(data), &stream) };
        }
        let staged = Array::empty_on(&self.shape, self.dtype, &stream)?;
        // SAFETY: `staged` is a new contiguous array of `self`'s shape and dtype, so it holds
        // exactly `data.len()` elements of `T` (checked above), and lives past the copy.
        unsafe { copy_htod(staged.ptr_on(&stream), as_bytes(data), &stream)? };
        kernels::copy(&staged, self, &stream)
    }

    /// Copies `src` (same shape and dtype, any layouts) into this view on the GPU.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::arange(0.0, 6.0, 1.0, DType::F32)?.reshape(&[2, 3])?;
    /// let b = Array::zeros(&[3, 2], DType::F32)?;
    /// b.assign(&a.t())?;
    /// assert_eq!(b.to_vec::<f32>()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn assign(&self, src: &Array) -> Result<()> {
        self.check_writeable("assign")?;
        if src.dtype != self.dtype {
            bail!(
                DType,
                "assign: source dtype {} differs from destination dtype {}",
                src.dtype,
                self.dtype
            );
        }
        if src.shape != self.shape {
            bail!(
                Shape,
                "assign: source shape {} differs from destination shape {}",
                format_shape(&src.shape),
                format_shape(&self.shape)
            );
        }
        check_same_device("assign", self.device(), src.device())?;
        let stream = Stream::for_device(self.device())?;
        if self.is_c_contiguous() && src.is_c_contiguous() {
            // SAFETY: both views are contiguous with the same shape and dtype (checked
            // above), so `nbytes()` bytes of valid elements lie in each live buffer.
            return unsafe {
                copy_dtod(
                    self.ptr_on(&stream),
                    src.ptr_on(&stream),
                    self.nbytes(),
                    &stream,
                )
            };
        }
        kernels::copy(src, self, &stream)
    }

    /// A new C-contiguous array with the same values (always new memory).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::ones(&[3], DType::F32)?;
    /// let b = a.copy()?;
    /// assert!(!b.shares_memory(&a));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn copy(&self) -> Result<Array> {
        let out = Array::empty_on(&self.shape, self.dtype, &Stream::for_device(self.device())?)?;
        out.assign(self)?;
        Ok(out)
    }

    /// `self` when already C-contiguous (no copy), else a contiguous copy.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[2, 3], DType::F32)?;
    /// assert!(a.to_contiguous()?.shares_memory(&a));
    /// assert!(a.t().to_contiguous()?.is_c_contiguous());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_contiguous(&self) -> Result<Array> {
        if self.is_c_contiguous() {
            Ok(self.clone())
        } else {
            self.copy()
        }
    }

    /// A C-contiguous copy of this array on `device` (always new memory, also when the
    /// array already lives there). Between two GPUs the copy is peer-to-peer
    /// (`cuMemcpyPeerAsync`, with peer access enabled once per pair) when the driver allows
    /// it, else staged through host memory. The copy is queued on `device`'s stream (the
    /// current stream when it belongs to `device`, else the device's default stream) after
    /// the work already queued on the source; non-contiguous views are packed on their own
    /// device first.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, Device};
    /// let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;       // on the current device
    /// let last = Device::get(Device::count()? - 1)?;
    /// let b = a.to_device(last)?;
    /// assert_eq!(b.device(), last);
    /// assert_eq!(b.to_vec::<f32>()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn to_device(&self, device: Device) -> Result<Array> {
        let c = self.to_contiguous()?;
        let src_stream = Stream::for_device(c.device())?;
        let stream = Stream::for_device(device)?;
        let out = Array::empty_on(&self.shape, self.dtype, &stream)?;
        let src = c.ptr_on(&src_stream);
        // Records the use on the destination stream: it waits for the source's queued work,
        // and the source is freed only after the copy.
        c.ptr_on(&stream);
        // SAFETY: `out` is new and contiguous with `c`'s shape and dtype, so both hold
        // `nbytes()` bytes of valid elements; both live past the copy (the source's free
        // waits for `stream`, where its use is recorded).
        unsafe {
            copy_peer(
                out.ptr_on(&stream),
                src,
                c.device(),
                c.nbytes(),
                &stream,
                &src_stream,
            )?
        };
        Ok(out)
    }

    fn check_dtype<T: Element>(&self, what: &str) -> Result<()> {
        if T::DTYPE != self.dtype {
            bail!(
                DType,
                "{what}: the array holds {} but {} ({}) was requested",
                self.dtype,
                T::DTYPE,
                T::DTYPE.rust_name()
            );
        }
        Ok(())
    }
}

/// The error of a call that got arrays of two devices: `expected` is the device the call
/// runs on, `given` the device of the array named by `what`.
pub(crate) fn check_same_device(what: &str, expected: Device, given: Device) -> Result<()> {
    if expected != given {
        bail!(
            DeviceMismatch,
            "{what}: expected an array on {expected}, given one on {given}; move it with \
             `to_device` first"
        );
    }
    Ok(())
}

#[cfg(feature = "ndarray")]
mod nd {
    use super::*;
    use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};

    impl Array {
        /// Uploads an `ndarray` array (any layout; it is packed in C order first).
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// let h = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
        /// let a = cuprum::Array::from_ndarray(&h)?;
        /// assert_eq!(a.shape(), &[2, 2]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn from_ndarray<T: Element, S: Data<Elem = T>, D: Dimension>(
            a: &ArrayBase<S, D>,
        ) -> Result<Array> {
            let shape = a.shape().to_vec();
            match a.as_slice() {
                Some(s) => Array::from_slice(s, &shape),
                None => {
                    let v: Vec<T> = a.iter().copied().collect();
                    Array::from_slice(&v, &shape)
                }
            }
        }

        /// Downloads into an `ndarray::ArrayD` of the same shape.
        ///
        /// ```
        /// # if !cuprum_doctest::device()? { return Ok(()); }
        /// let a = cuprum::Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
        /// let h = a.to_ndarray::<i32>()?;
        /// assert_eq!(h[[1, 0]], 3);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
            let v = self.to_vec::<T>()?;
            ArrayD::from_shape_vec(IxDyn(&self.shape), v)
                .map_err(|e| crate::error::err!(Shape, "to_ndarray: {e}"))
        }
    }
}
