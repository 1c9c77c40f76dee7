//! CuPy's memory objects: `cuprum.cuda.MemoryPointer` (an address in a block of device
//! memory, which it keeps alive), `cuprum.cuda.alloc` (also `cuprum.cuda.memory.alloc`), and
//! `cuprum.ndarray(shape, dtype, memptr, strides, order)`, CuPy's constructor, which views
//! the memory a pointer addresses.
//!
//! A pointer holds its whole block as a 1-D `uint8` array (a view of the block's buffer)
//! and a byte offset into it: copies, `memset` and the arrays made over it are cuprum's
//! array operations on that view, queued on the current stream (or the `stream=` given to
//! an `_async` method); a raw kernel given a pointer gets its address, ordered as an array
//! argument's. Every range is checked against the block: an array or a copy that would
//! reach past it is an `ArgumentError` (a `ValueError`) naming both sizes, where CuPy
//! would read or write out of bounds.

use super::errors::type_name;
use crate::array::shape::{Shape, Strides};
use crate::array::{Array, DType};
use crate::error::err;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use smallvec::smallvec;

/// CuPy's `MemoryPointer`: an address (`ptr`) in a block of device memory that the pointer
/// keeps alive (an array's `data`, `alloc(size)`, `RawModule.get_global(name)`).
#[pyclass(name = "MemoryPointer", module = "cuprum.cuda", frozen)]
pub struct MemoryPointer {
    /// The block as bytes: a 1-D `uint8` view of its whole buffer (offset 0).
    block: Array,
    /// This pointer's byte offset in `block` (at most its length).
    offset: usize,
}

impl MemoryPointer {
    /// The memory `array` starts at: its buffer's block, pointed at element `[0, …, 0]`.
    pub(crate) fn of(array: &Array) -> MemoryPointer {
        MemoryPointer {
            block: bytes_view(array, array.buf.bytes(), 0),
            offset: array.offset * array.itemsize(),
        }
    }

    /// The bytes from this pointer to the end of its block (a raw kernel's argument).
    pub(crate) fn tail(&self) -> Array {
        bytes_view(&self.block, self.len() - self.offset, self.offset)
    }

    fn len(&self) -> usize {
        self.block.shape[0]
    }

    /// `size` bytes from this pointer, checked against the block (`what` names the call).
    fn span(&self, size: usize, what: &str) -> PyResult<Array> {
        let left = self.len() - self.offset;
        if size > left {
            return Err(err!(
                InvalidArgument,
                "MemoryPointer.{what}: {size} bytes asked for, but only {left} bytes of the \
                 memory block lie from this pointer to its end (the block has {} bytes)",
                self.len()
            )
            .into());
        }
        Ok(bytes_view(&self.block, size, self.offset))
    }

    fn moved(&self, by: i128) -> PyResult<MemoryPointer> {
        let to = self.offset as i128 + by;
        if to < 0 || to > self.len() as i128 {
            return Err(PyValueError::new_err(format!(
                "MemoryPointer offset {by:+} leaves the memory block: the pointer is {} bytes \
                 into a block of {} bytes (expected a result within 0..={})",
                self.offset,
                self.len(),
                self.len()
            )));
        }
        Ok(MemoryPointer {
            block: self.block.clone(),
            offset: to as usize,
        })
    }
}

/// `len` bytes of `array`'s buffer from its byte `start` (counted from the buffer's
/// beginning, whatever `array`'s own offset), as a 1-D `uint8` array.
fn bytes_view(array: &Array, len: usize, start: usize) -> Array {
    Array {
        buf: array.buf.clone(),
        dtype: DType::U8,
        shape: smallvec![len],
        strides: smallvec![1],
        offset: start,
        read_only: array.read_only,
    }
}

/// A host address: an int, or a ctypes pointer (`ctypes.c_void_p`: anything whose
/// `value` is an int).
fn host_address(mem: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    let value = match mem.getattr(pyo3::intern!(mem.py(), "value")) {
        Ok(v) if !mem.is_instance_of::<pyo3::types::PyInt>() => v,
        _ => mem.clone(),
    };
    if value.is_none() {
        return Ok(0); // a NULL ctypes pointer: refused by the caller, by name
    }
    value.extract::<usize>().map_err(|_| {
        PyTypeError::new_err(format!(
            "MemoryPointer.{what}: expected a host address (a ctypes.c_void_p or an int), got {}",
            type_name(mem)
        ))
    })
}

/// Runs `f` on `stream` (a `cuprum.cuda.Stream`) or on the current stream for `None`.
fn on_stream<R>(
    stream: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce() -> crate::Result<R>,
) -> PyResult<R> {
    match stream.filter(|s| !s.is_none()) {
        None => Ok(f()?),
        Some(_) => Ok(super::cuda::stream_or_current(stream)?.with(f)?),
    }
}

/// CuPy's `Memory`: the whole block a `MemoryPointer` points into (`pointer.mem`), kept
/// alive while this object lives.
#[pyclass(name = "Memory", module = "cuprum.cuda", frozen)]
pub struct Memory {
    /// The block as bytes (offset 0).
    block: Array,
}

#[pymethods]
impl Memory {
    /// The block of a 1-D C-contiguous `uint8` array's bytes (`UnownedMemory`'s engine:
    /// the array views memory another library owns and keeps its owner alive).
    #[staticmethod]
    fn _of_bytes(array: &Bound<'_, super::PyArray>) -> PyResult<Memory> {
        let a = array.get().array();
        if a.dtype() != DType::U8 || a.ndim() != 1 || !a.is_c_contiguous() || a.offset != 0 {
            return Err(PyValueError::new_err(format!(
                "Memory: expected a 1-D C-contiguous uint8 array from its buffer's start, \
                 given {} of shape {:?} at element {}",
                a.dtype(),
                a.shape(),
                a.offset
            )));
        }
        Ok(Memory {
            block: bytes_view(a, a.size(), 0),
        })
    }

    /// The block's first address (an int).
    #[getter]
    fn ptr(&self) -> u64 {
        self.block.data_ptr()
    }

    /// The block's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.block.shape[0]
    }

    /// The device's ordinal (0 on the host device).
    #[getter]
    fn device_id(&self) -> usize {
        device_id(&self.block)
    }

    /// The device, as a `cuprum.cuda.Device`.
    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        super::array::device_object(py, &self.block)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Memory 0x{:x}, {} bytes on device {}>",
            self.ptr(),
            self.size(),
            self.device_id()
        )
    }
}

#[pymethods]
impl MemoryPointer {
    /// CuPy's `MemoryPointer(mem, offset)`: `offset` bytes into the block `mem` (a `Memory`,
    /// such as `UnownedMemory(...)` or another pointer's `mem`), which it keeps alive.
    #[new]
    fn new(mem: &Bound<'_, Memory>, offset: i64) -> PyResult<Self> {
        let block = mem.get().block.clone();
        let len = block.shape[0];
        match usize::try_from(offset) {
            Ok(o) if o <= len => Ok(MemoryPointer { block, offset: o }),
            _ => Err(PyValueError::new_err(format!(
                "MemoryPointer: offset {offset} lies outside the memory block of {len} bytes \
                 (expected 0..={len})"
            ))),
        }
    }

    /// The address (an int).
    #[getter]
    fn ptr(&self) -> u64 {
        self.block.data_ptr() + self.offset as u64
    }

    /// The block of memory this pointer points into (CuPy's `Memory`: `ptr`, `size`,
    /// `device_id`, `device`).
    #[getter]
    fn mem(&self) -> Memory {
        Memory {
            block: self.block.clone(),
        }
    }

    /// The device's ordinal (0 on the host device).
    #[getter]
    fn device_id(&self) -> usize {
        device_id(&self.block)
    }

    /// The device, as a `cuprum.cuda.Device`.
    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        super::array::device_object(py, &self.block)
    }

    /// Copies `size` bytes from `mem` to here: `mem` a `MemoryPointer` (device memory) or a
    /// host address (`ctypes.c_void_p`, an int).
    fn copy_from(&self, mem: &Bound<'_, PyAny>, size: usize) -> PyResult<()> {
        self.copy_from_async(mem, size, None)
    }

    /// `copy_from` queued on `stream` (the current stream for `None`).
    #[pyo3(signature = (mem, size, stream=None))]
    fn copy_from_async(
        &self,
        mem: &Bound<'_, PyAny>,
        size: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if let Ok(src) = mem.cast::<MemoryPointer>() {
            return self.copy_from_device_async(src.get(), size, stream);
        }
        self.copy_from_host_async(mem, size, stream)
    }

    /// Copies `size` bytes from the device memory `src` points at to here.
    fn copy_from_device(&self, src: &MemoryPointer, size: usize) -> PyResult<()> {
        self.copy_from_device_async(src, size, None)
    }

    /// `copy_from_device` queued on `stream` (the current stream for `None`).
    #[pyo3(signature = (src, size, stream=None))]
    fn copy_from_device_async(
        &self,
        src: &MemoryPointer,
        size: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (to, from) = (
            self.span(size, "copy_from_device")?,
            src.span(size, "copy_from_device (its source)")?,
        );
        on_stream(stream, || to.assign(&from))
    }

    /// Copies `size` bytes from the host memory at `mem` (a `ctypes.c_void_p` or an int
    /// address, `size` bytes readable there) to here.
    fn copy_from_host(&self, mem: &Bound<'_, PyAny>, size: usize) -> PyResult<()> {
        self.copy_from_host_async(mem, size, None)
    }

    /// `copy_from_host` on `stream` (the current stream for `None`); the host memory is read
    /// before the call returns.
    #[pyo3(signature = (mem, size, stream=None))]
    pub(crate) fn copy_from_host_async(
        &self,
        mem: &Bound<'_, PyAny>,
        size: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let to = self.span(size, "copy_from_host")?;
        let addr = host_address(mem, "copy_from_host")?;
        if size == 0 {
            return Ok(());
        }
        if addr == 0 {
            return Err(PyValueError::new_err(
                "MemoryPointer.copy_from_host: the host address is NULL",
            ));
        }
        // SAFETY: CuPy's contract for this method: `mem` addresses `size` readable bytes of
        // host memory, not written while the call runs (`copy_from_slice` reads them all
        // before it returns).
        let from = unsafe { std::slice::from_raw_parts(addr as *const u8, size) };
        on_stream(stream, || to.copy_from_slice(from))
    }

    /// Copies `size` bytes from here to the host memory at `mem` (a `ctypes.c_void_p` or an
    /// int address, `size` writable bytes there).
    fn copy_to_host(&self, mem: &Bound<'_, PyAny>, size: usize) -> PyResult<()> {
        self.copy_to_host_async(mem, size, None)
    }

    /// `copy_to_host` on `stream` (the current stream for `None`); the host memory is
    /// written before the call returns.
    #[pyo3(signature = (mem, size, stream=None))]
    fn copy_to_host_async(
        &self,
        mem: &Bound<'_, PyAny>,
        size: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let from = self.span(size, "copy_to_host")?;
        let addr = host_address(mem, "copy_to_host")?;
        if size == 0 {
            return Ok(());
        }
        if addr == 0 {
            return Err(PyValueError::new_err(
                "MemoryPointer.copy_to_host: the host address is NULL",
            ));
        }
        // SAFETY: CuPy's contract for this method: `mem` addresses `size` writable bytes of
        // host memory that nothing else uses while the call runs; any byte is a valid `u8`.
        let to = unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, size) };
        on_stream(stream, || from.copy_to_slice(to))
    }

    /// Sets `size` bytes from here to `value` (its low byte, as `cudaMemset`).
    fn memset(&self, value: i64, size: usize) -> PyResult<()> {
        self.memset_async(value, size, None)
    }

    /// `memset` queued on `stream` (the current stream for `None`).
    #[pyo3(signature = (value, size, stream=None))]
    fn memset_async(
        &self,
        value: i64,
        size: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let to = self.span(size, "memset")?;
        if size == 0 {
            return Ok(());
        }
        on_stream(stream, || to.fill((value & 0xff) as u8))
    }

    /// The pointer `n` bytes further (within the block).
    fn __add__(&self, n: i64) -> PyResult<MemoryPointer> {
        self.moved(i128::from(n))
    }

    fn __radd__(&self, n: i64) -> PyResult<MemoryPointer> {
        self.moved(i128::from(n))
    }

    /// The pointer `n` bytes back (within the block).
    fn __sub__(&self, n: i64) -> PyResult<MemoryPointer> {
        self.moved(-i128::from(n))
    }

    fn __int__(&self) -> u64 {
        self.ptr()
    }

    fn __repr__(&self) -> String {
        format!(
            "<MemoryPointer 0x{:x} on device {}>",
            self.ptr(),
            self.device_id()
        )
    }
}

fn device_id(a: &Array) -> usize {
    a.device().id()
}

/// `alloc(size)`: a `MemoryPointer` to `size` new bytes (uninitialised) on the current
/// device, kept while the pointer (or an array over it) lives.
#[pyfunction]
pub(crate) fn alloc(size: &Bound<'_, PyAny>) -> PyResult<MemoryPointer> {
    let n: i64 = size.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "alloc: size must be an int (bytes), got {}",
            type_name(size)
        ))
    })?;
    let n = usize::try_from(n).map_err(|_| {
        PyValueError::new_err(format!(
            "alloc: size must be a non-negative number of bytes, got {n}"
        ))
    })?;
    // The block is exactly the `n` bytes asked for (the pool's block may be larger).
    Ok(MemoryPointer {
        block: Array::empty(&[n], DType::U8)?,
        offset: 0,
    })
}

/// CuPy's `ndarray(shape, dtype=float, memptr=None, strides=None, order='C')`: new memory
/// (uninitialised, C or Fortran order) without `memptr`, else a view of the memory `memptr`
/// points at with C, Fortran or the given (byte) strides.
pub(crate) fn construct(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memptr: Option<&Bound<'_, PyAny>>,
    strides: Option<&Bound<'_, PyAny>>,
    order: &str,
) -> PyResult<Array> {
    let shape = shape_arg(shape)?;
    let dtype = match dtype.filter(|d| !d.is_none()) {
        Some(d) => super::convert::dtype_of(d)?,
        None => DType::F64,
    };
    let fortran = match order {
        "C" | "c" => false,
        "F" | "f" => true,
        other => {
            return Err(PyValueError::new_err(format!(
                "order not understood. order={other} (expected 'C' or 'F')"
            )));
        }
    };
    let strides = strides.filter(|s| !s.is_none());
    let Some(memptr) = memptr.filter(|m| !m.is_none()) else {
        if let Some(s) = strides {
            return strided_empty(&shape, dtype, &byte_strides_arg(s, &shape)?);
        }
        if fortran {
            let reversed: Vec<usize> = shape.iter().rev().copied().collect();
            return Ok(Array::empty(&reversed, dtype)?.t());
        }
        return Ok(Array::empty(&shape, dtype)?);
    };
    let memptr = memptr.cast::<MemoryPointer>().map_err(|_| {
        PyTypeError::new_err(format!(
            "memptr must be a cuprum.cuda.MemoryPointer, got {}",
            type_name(memptr)
        ))
    })?;
    let memptr = memptr.get();
    let item = dtype.itemsize();
    let byte_strides: Vec<isize> = match strides {
        Some(s) => byte_strides_arg(s, &shape)?,
        None => contiguous_byte_strides(&shape, item, fortran),
    };
    view_at(memptr, &shape, dtype, &byte_strides)
}

/// The `strides` argument: one byte stride per axis of `shape`.
fn byte_strides_arg(s: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<Vec<isize>> {
    let s: Vec<isize> = s.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "strides must be a tuple of ints (bytes), got {}",
            type_name(s)
        ))
    })?;
    if s.len() != shape.len() {
        return Err(PyValueError::new_err(format!(
            "strides has {} entries but the shape {:?} has {} dimensions",
            s.len(),
            shape,
            shape.len()
        )));
    }
    Ok(s)
}

/// CuPy's `ndarray(shape, dtype, strides=…)` without `memptr`: new memory of the contiguous
/// size, the strides free within it (NumPy's rule: no negative reach, nothing past the
/// contiguous size).
fn strided_empty(shape: &[usize], dtype: DType, strides: &[isize]) -> PyResult<Array> {
    let item = dtype.itemsize();
    let size: usize = shape.iter().product();
    let (mut low, mut high) = (0i128, if size > 0 { item as i128 } else { 0 });
    if size > 0 {
        for (&n, &st) in shape.iter().zip(strides) {
            let reach = (n as i128 - 1) * st as i128;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
    }
    if low != 0 {
        return Err(PyValueError::new_err(
            "ndarray() with strides currently does not allow negative strides",
        ));
    }
    let contiguous = size as i128 * item as i128;
    if high > contiguous {
        return Err(PyValueError::new_err(format!(
            "ndarray() with strides must stay within a contiguous size of {contiguous} but \
             got {high}."
        )));
    }
    let block = MemoryPointer::of(&Array::empty(&[size.max(1) * item], DType::U8)?);
    view_at(&block, shape, dtype, strides)
}

/// Byte strides of a contiguous layout.
fn contiguous_byte_strides(shape: &[usize], item: usize, fortran: bool) -> Vec<isize> {
    let mut out = vec![0isize; shape.len()];
    let mut step = item as isize;
    let order: Vec<usize> = if fortran {
        (0..shape.len()).collect()
    } else {
        (0..shape.len()).rev().collect()
    };
    for i in order {
        out[i] = step;
        step *= shape[i].max(1) as isize;
    }
    out
}

/// The array of `shape`, `dtype` and byte strides `strides` whose element `[0, …, 0]` is
/// at `memptr`: every element must lie in the pointer's block.
fn view_at(
    memptr: &MemoryPointer,
    shape: &[usize],
    dtype: DType,
    strides: &[isize],
) -> PyResult<Array> {
    let item = dtype.itemsize();
    if let Some((i, s)) = strides
        .iter()
        .enumerate()
        .find(|(_, s)| **s % item as isize != 0)
    {
        return Err(err!(
            InvalidArgument,
            "strides[{i}] = {s} bytes is not a multiple of the item size of {} ({item} bytes): \
             cuprum's arrays take whole-element strides",
            dtype.name()
        )
        .into());
    }
    if !memptr.offset.is_multiple_of(item) {
        return Err(err!(
            InvalidArgument,
            "the pointer is {} bytes into its memory block, not a multiple of the item size \
             of {} ({item} bytes): expected an aligned pointer",
            memptr.offset,
            dtype.name()
        )
        .into());
    }
    let size: usize = shape.iter().product();
    if size > 0 {
        let (mut low, mut high) = (0i128, item as i128);
        for (&n, &s) in shape.iter().zip(strides) {
            let reach = (n as i128 - 1) * s as i128;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
        let start = memptr.offset as i128;
        if start + low < 0 || start + high > memptr.len() as i128 {
            return Err(err!(
                InvalidArgument,
                "an array of shape {shape:?}, {} and strides {strides:?} spans bytes {low}..{high} \
                 from the pointer, which is {start} bytes into a memory block of {} bytes: \
                 expected the array to lie within the block",
                dtype.name(),
                memptr.len()
            )
            .into());
        }
    }
    let shape: Shape = shape.iter().copied().collect();
    let strides: Strides = strides.iter().map(|s| s / item as isize).collect();
    Ok(Array {
        buf: memptr.block.buf.clone(),
        dtype,
        shape,
        strides,
        offset: memptr.offset / item,
        read_only: memptr.block.read_only,
    })
}

/// A shape: an int or a sequence of ints, none negative (CuPy's `ValueError`).
fn shape_arg(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let dims: Vec<i64> = match shape.extract::<i64>() {
        Ok(n) => vec![n],
        Err(_) => shape.extract::<Vec<i64>>().map_err(|_| {
            PyTypeError::new_err(format!(
                "shape must be an int or a tuple of ints, got {}",
                type_name(shape)
            ))
        })?,
    };
    dims.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                PyValueError::new_err(format!(
                    "Negative dimensions are not allowed (shape {dims:?})"
                ))
            })
        })
        .collect()
}

/// Page-locked host memory (CuPy's `cupy.cuda.PinnedMemory`): `size` uninitialised bytes at
/// the address `ptr`, which copies to and from a GPU read and write at the link's speed
/// (ordinary host memory on the host device), freed when the object goes. The package's
/// `PinnedMemoryPointer` (`cuprum.cuda.alloc_pinned_memory`) gives the bytes to the buffer
/// protocol (`numpy.frombuffer`) and keeps this object alive while anything views them.
#[pyclass(name = "PinnedMemory", module = "cuprum.cuda", frozen)]
pub struct PinnedMemory {
    mem: crate::runtime::PinnedBytes,
    size: usize,
}

#[pymethods]
impl PinnedMemory {
    /// `size` bytes of page-locked memory for the current device's copies. `flags` (CuPy's
    /// `cudaHostAlloc` flags) is accepted and not needed: the memory is always portable
    /// (every GPU of the process can use it). Running out of page-locked memory is an
    /// `OutOfMemoryError`.
    #[new]
    #[pyo3(signature = (size, flags=0))]
    fn new(size: usize, flags: u32) -> PyResult<Self> {
        let _ = flags;
        let device = crate::runtime::Device::current()?;
        // 64: a cache line, more than any element type needs (GPU allocations are
        // page-aligned anyway)
        let mem = crate::runtime::PinnedBytes::alloc(device, size, 64)?;
        Ok(PinnedMemory { mem, size })
    }

    /// The address of the first byte.
    #[getter]
    fn ptr(&self) -> usize {
        self.mem.ptr() as usize
    }

    /// The number of bytes.
    #[getter]
    fn size(&self) -> usize {
        self.size
    }

    /// The ordinal of the device the memory was allocated for.
    #[getter]
    fn device_id(&self) -> usize {
        self.mem.device().id()
    }

    fn __repr__(&self) -> String {
        format!(
            "<cuprum.cuda.PinnedMemory {} bytes at {:#x}>",
            self.size,
            self.mem.ptr() as usize
        )
    }
}
