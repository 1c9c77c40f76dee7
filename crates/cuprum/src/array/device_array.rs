//! [`Array`]: a dynamically typed n-d device array; views share one buffer.
//!
//! An array is a view: `Arc<Buffer>` + dtype + shape + element strides + element offset.
//! Strides count elements (CuPy counts bytes: [`Array::byte_strides`] gives those). The
//! shape arithmetic behind views is pure code in `shape.rs`.

use super::shape::{Shape, Strides};
use crate::dtype::DType;
use crate::runtime::{Buffer, Device, Stream};
use std::sync::Arc;

/// A dynamically typed n-dimensional array in GPU memory (CuPy's `ndarray`).
///
/// An `Array` is a *view*: a dtype, a shape, element strides and an offset into a shared
/// device buffer. Cloning, slicing, transposing, broadcasting and most reshapes make new
/// views of the same memory without copying; [`copy`](Array::copy) makes new memory.
/// Like CuPy arrays, views that share memory see each other's writes.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, s};
/// let a = Array::arange(0.0, 12.0, 1.0, DType::F32)?.reshape(&[3, 4])?;
/// let col = a.slice(&s![.., 1])?;               // view, no copy
/// assert_eq!(col.to_vec::<f32>()?, vec![1.0, 5.0, 9.0]);
/// assert_eq!(a.t().shape(), &[4, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct Array {
    pub(crate) buf: Arc<Buffer>,
    pub(crate) dtype: DType,
    pub(crate) shape: Shape,
    pub(crate) strides: Strides,
    pub(crate) offset: usize,
    /// Writes through this view are refused (an imported read-only DLPack tensor, and every
    /// view of it): NumPy's `flags.writeable == False`.
    pub(crate) read_only: bool,
}

impl Array {
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Element strides (CuPy reports bytes: see [`byte_strides`](Array::byte_strides)).
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Strides in bytes, as CuPy and NumPy report them.
    pub fn byte_strides(&self) -> Vec<isize> {
        let item = self.dtype.itemsize() as isize;
        self.strides.iter().map(|s| s * item).collect()
    }
    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements (1 for a 0-d array).
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }
    /// Bytes per element.
    pub fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }
    /// Bytes of the elements the view covers (`size * itemsize`).
    pub fn nbytes(&self) -> usize {
        self.size() * self.itemsize()
    }
    /// Whether the elements are laid out in C order without gaps.
    pub fn is_c_contiguous(&self) -> bool {
        super::shape::is_c_contiguous_view(&self.shape, &self.strides)
    }
    /// Device address of the first element of the view, for interop with other CUDA code.
    ///
    /// cuprum's own kernels, copies and launches (including raw kernels given `&Array`
    /// arguments) order every stream that uses the memory before it is freed or reused
    /// (see [Arrays and streams](crate::Stream#arrays-and-streams)). Work that you queue
    /// with this address outside cuprum is not known to it: make sure that work has
    /// finished, or is ordered on the array's stream, before the array is dropped.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[4], cuprum::DType::F32)?;
    /// assert_ne!(a.data_ptr(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn data_ptr(&self) -> u64 {
        self.buf.addr() + self.byte_offset()
    }

    /// Device address of the first element of the view, for work queued on `stream`. Every
    /// internal path that hands an array to the GPU asks for its address here: on the
    /// array's own stream that is a pointer compare; on another stream the use is recorded
    /// so that the buffer's first use and its free are ordered with that stream.
    #[inline]
    pub(crate) fn ptr_on(&self, stream: &Stream) -> u64 {
        if crate::runtime::is_capturing(stream) {
            // A graph being captured keeps the memory for every replay.
            crate::runtime::keep_buffer(&self.buf);
        }
        self.buf.ptr_on(stream) + self.byte_offset()
    }

    #[inline]
    fn byte_offset(&self) -> u64 {
        (self.offset * self.dtype.itemsize()) as u64
    }
    /// The device holding the data.
    pub fn device(&self) -> Device {
        self.buf.stream().device()
    }
    /// Whether two arrays are views of the same device buffer.
    pub fn shares_memory(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// Wraps a fresh buffer as a C-contiguous array.
    pub(crate) fn from_buffer(buf: Buffer, dtype: DType, shape: Shape) -> Array {
        let strides = super::shape::c_strides_of_valid(&shape);
        Array::planned(buf, dtype, shape, strides)
    }

    /// Wraps a fresh buffer of `shape` as a C-contiguous array, with `strides` its C
    /// strides computed before (a replayed call's outputs, `call_memo.rs`: no strides
    /// computed again).
    #[inline]
    pub(crate) fn planned(buf: Buffer, dtype: DType, shape: Shape, strides: Strides) -> Array {
        Array {
            buf: Arc::new(buf),
            dtype,
            shape,
            strides,
            offset: 0,
            read_only: false,
        }
    }

    /// A new view of the same buffer.
    pub(crate) fn view(&self, shape: Shape, strides: Strides, offset: usize) -> Array {
        Array {
            buf: self.buf.clone(),
            dtype: self.dtype,
            shape,
            strides,
            offset,
            read_only: self.read_only,
        }
    }

    /// Whether writes through this array are allowed (NumPy's `flags.writeable`): false for
    /// an imported read-only DLPack tensor and every view of it.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[4], cuprum::DType::F32)?;
    /// assert!(a.is_writeable());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn is_writeable(&self) -> bool {
        !self.read_only
    }

    /// Refuses a write through a read-only array, naming the operation that would write.
    pub(crate) fn check_writeable(
        &self,
        operation: impl std::fmt::Display,
    ) -> crate::error::Result<()> {
        if self.read_only {
            crate::error::bail!(
                InvalidArgument,
                "{operation} writes to a read-only array (shape {}, {}; imported from a \
                 read-only DLPack tensor): expected a writeable array",
                crate::shape::format_shape(&self.shape),
                self.dtype.name()
            );
        }
        Ok(())
    }
}
