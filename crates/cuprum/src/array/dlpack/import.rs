//! [`Array::from_dlpack`] and [`Array::from_raw_parts`]: arrays over memory another library
//! owns (a foreign buffer: never freed by cuprum, its owner dropped once cuprum is done).

use super::codes;
use super::export::{Exported, delete_exported};
use super::ffi::DLTensor;
use super::tensor::{DlpackTensor, slice_or_empty};
use crate::array::shape::{Shape, Strides, c_strides};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::runtime::{Buffer, Device, ForeignTerms, Stream};
use std::any::Any;
use std::sync::Arc;

impl Array {
    /// Imports a DLPack tensor without a copy (Python's `from_dlpack`): the array addresses
    /// the producer's memory and owns the tensor; the producer's deleter runs once, after
    /// the last view is gone and the work cuprum queued on the memory has run. The memory
    /// counts as allocated on the calling thread's current stream of its device. A
    /// read-only tensor gives an array that refuses writes. A tensor cuprum exported comes
    /// back as a view of the original buffer.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, dlpack::ExportOptions};
    /// let a = Array::from_slice(&[1i64, 2, 3], &[3])?;
    /// let t = a.to_dlpack(&ExportOptions { read_only: true, ..Default::default() })?;
    /// let b = Array::from_dlpack(t)?;
    /// assert!(!b.is_writeable());
    /// assert_eq!(b.to_vec::<i64>()?, vec![1, 2, 3]);
    /// assert!(b.fill(0i64).is_err());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Errors
    /// `DType` for a data type cuprum lacks (naming code, bits and lanes); `Unsupported` for
    /// a device type other than CPU, CUDA, CUDA host or CUDA managed memory; the device's
    /// error for a GPU ordinal that does not exist; `InvalidArgument` for a negative extent,
    /// a null pointer to non-empty data, or a misaligned data pointer. The tensor is dropped
    /// (its deleter runs) on every error.
    pub fn from_dlpack(tensor: DlpackTensor) -> Result<Array> {
        // SAFETY: the default terms check the address and wait for the work to run: they
        // assume nothing of the producer.
        unsafe { Array::from_dlpack_on(tensor, ForeignTerms::default()) }
    }

    /// [`Array::from_dlpack`] with what is assumed of the producer (`runtime/foreign.rs`:
    /// whether the driver checks the address, when the producer's deleter may run).
    ///
    /// # Safety
    /// Without `terms.check_address`, the tensor's memory is addressable from the device it
    /// names; with `Release::InStreamOrder`, the producer reuses it only in the order of the
    /// calling thread's current stream of that device (see `Buffer::foreign`).
    pub(crate) unsafe fn from_dlpack_on(
        tensor: DlpackTensor,
        terms: ForeignTerms,
    ) -> Result<Array> {
        crate::runtime::collect_foreign();
        if let Some(a) = own_export(&tensor) {
            return Ok(a);
        }
        let dl = *tensor.dl_tensor();
        let read_only = tensor.is_read_only();
        // SAFETY: the description is the tensor's, valid until its deleter runs, which only
        // the owner (the tensor itself) calls; the caller's promise for what `terms` leave
        // unchecked.
        let mut a = unsafe { Array::from_dl_tensor(&dl, Box::new(tensor), terms) }?;
        a.read_only = read_only;
        Ok(a)
    }

    /// An array over the memory a DLPack description names, kept alive by `owner` (for a
    /// producer's borrowed description: the producer's object). The shape and strides are
    /// copied at once; a null `strides` means C order.
    ///
    /// # Safety
    /// `dl` describes memory of its device (`shape`/`strides` point to `ndim` values, or
    /// `shape` is null for ndim 0) that stays allocated while `owner` lives; with
    /// `terms`, as for [`Array::from_dlpack_on`].
    pub(crate) unsafe fn from_dl_tensor(
        dl: &DLTensor,
        owner: crate::runtime::ForeignOwner,
        terms: ForeignTerms,
    ) -> Result<Array> {
        crate::runtime::collect_foreign();
        let dtype = codes::dtype_of(dl.dtype)?;
        let device = codes::device_of(dl.device)?;
        // SAFETY: the caller's promise on `shape` and `strides`.
        let (dims, strides) = unsafe {
            (
                slice_or_empty(dl.shape, dl.ndim),
                (!dl.strides.is_null()).then(|| slice_or_empty(dl.strides, dl.ndim)),
            )
        };
        let shape = extents(dims)?;
        // Also the check that the element count fits (a `Shape` error), strides or not.
        let c_order = c_strides(&shape)?;
        let strides: Strides = match strides {
            Some(s) => s.iter().map(|&v| v as isize).collect(),
            None => c_order,
        };
        let ptr = (dl.data as u64).wrapping_add(dl.byte_offset);
        // SAFETY: the producer's description names `shape`/`strides` elements of `dtype`
        // at `ptr` on `device`, alive while `owner` lives (the caller's promise).
        unsafe { foreign_array(ptr, dtype, shape, strides, device, owner, terms) }
    }

    /// An array over memory another library allocated (candle, burn, a CUDA library): `ptr`
    /// is the address of element `[0, …, 0]` on `device` (a GPU address, or a host address
    /// on the host device), `strides` in elements (`None`: C order; negative strides
    /// allowed). `owner` keeps the memory alive: cuprum drops it once the last view is gone
    /// and the work it queued on the memory has run, and never frees the memory itself.
    /// The memory counts as allocated on the calling thread's current stream of `device`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let src = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    /// // Any value can be the owner: here another array keeps the memory alive.
    /// let ptr = src.data_ptr();
    /// let dev = src.device();
    /// // SAFETY: `ptr` addresses 4 float32 of `dev`, kept alive by the owner `src`.
    /// let v = unsafe { Array::from_raw_parts(ptr, DType::F32, &[2, 2], None, dev, Box::new(src))? };
    /// assert_eq!(v.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when `strides` has another length than `shape`, the address is
    /// null for non-empty data or misaligned for `dtype`, or the extent overflows.
    ///
    /// # Safety
    /// Every element the shape and strides reach from `ptr` lies in memory of `device` that
    /// kernels and copies of `device` can read and write (bytes valid for `dtype`: a bool is
    /// 0 or 1), and that stays allocated until `owner` is dropped; nobody else writes it
    /// while cuprum work on it may run, except in an order you establish with streams.
    pub unsafe fn from_raw_parts(
        ptr: u64,
        dtype: DType,
        shape: &[usize],
        strides: Option<&[isize]>,
        device: Device,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Result<Array> {
        let shape: Shape = shape.iter().copied().collect();
        let strides: Strides = match strides {
            Some(s) if s.len() != shape.len() => bail!(
                InvalidArgument,
                "{} strides for a shape of {} dimensions: expected one per dimension",
                s.len(),
                shape.len()
            ),
            Some(s) => s.iter().copied().collect(),
            None => c_strides(&shape)?,
        };
        // SAFETY: the caller's guarantee.
        unsafe {
            foreign_array(
                ptr,
                dtype,
                shape,
                strides,
                device,
                owner,
                ForeignTerms::default(),
            )
        }
    }
}

/// A tensor cuprum exported, as a view of the original buffer (the tensor is dropped: the
/// view keeps the buffer).
fn own_export(tensor: &DlpackTensor) -> Option<Array> {
    let (ctx, deleter) = tensor.versioned_parts()?;
    let ours = deleter.is_some_and(|d| {
        std::ptr::fn_addr_eq(
            d,
            delete_exported as unsafe extern "C" fn(*mut super::ffi::DLManagedTensorVersioned),
        )
    });
    if !ours || ctx.is_null() {
        return None;
    }
    // SAFETY: only `Array::to_dlpack` installs `delete_exported`, with the `Exported` box as
    // the manager context; it lives until `tensor` (which owns it) is dropped.
    let e = unsafe { &*ctx.cast::<Exported>() };
    let mut a = e.array.clone();
    a.read_only |= tensor.is_read_only();
    Some(a)
}

/// The shape of DLPack extents (each must be >= 0).
fn extents(dims: &[i64]) -> Result<Shape> {
    dims.iter()
        .map(|&n| {
            usize::try_from(n).map_err(|_| {
                crate::error::err!(
                    InvalidArgument,
                    "DLPack shape {dims:?} has a negative extent {n}: expected extents >= 0"
                )
            })
        })
        .collect()
}

/// The lowest and highest element offsets a view reaches (both 0 when it is empty).
fn reach(shape: &[usize], strides: &[isize]) -> Result<(isize, isize)> {
    let (mut lo, mut hi) = (0isize, 0isize);
    if shape.contains(&0) {
        return Ok((0, 0));
    }
    for (&n, &s) in shape.iter().zip(strides) {
        let far = (n as isize - 1)
            .checked_mul(s)
            .ok_or_else(|| overflow(shape, strides))?;
        if far < 0 {
            lo = lo
                .checked_add(far)
                .ok_or_else(|| overflow(shape, strides))?;
        } else {
            hi = hi
                .checked_add(far)
                .ok_or_else(|| overflow(shape, strides))?;
        }
    }
    Ok((lo, hi))
}

fn overflow(shape: &[usize], strides: &[isize]) -> crate::error::Error {
    crate::error::err!(
        InvalidArgument,
        "shape {shape:?} with strides {strides:?} reaches beyond the address space"
    )
}

/// An array over foreign memory: element `[0, …]` at `ptr`, its buffer spanning what the
/// strides reach, owned by `owner`, on the current stream of `device`.
///
/// # Safety
/// As for [`Array::from_raw_parts`], and for what `terms` leave unchecked as for
/// `Buffer::foreign`.
unsafe fn foreign_array(
    ptr: u64,
    dtype: DType,
    shape: Shape,
    strides: Strides,
    device: Device,
    owner: crate::runtime::ForeignOwner,
    terms: ForeignTerms,
) -> Result<Array> {
    let item = dtype.itemsize();
    let (lo, hi) = reach(&shape, &strides)?;
    let empty = shape.contains(&0);
    if !empty {
        if ptr == 0 {
            bail!(
                InvalidArgument,
                "a null data pointer for {} elements of {}: expected the address of the data",
                shape.iter().product::<usize>(),
                dtype.name()
            );
        }
        let align = item.min(16) as u64;
        if !ptr.is_multiple_of(align) {
            bail!(
                InvalidArgument,
                "data address {ptr:#x} is not aligned for {} (expected a multiple of {align})",
                dtype.name()
            );
        }
    }
    let span = if empty { 0 } else { (hi - lo) as usize + 1 };
    let bytes = span
        .checked_mul(item)
        .ok_or_else(|| overflow(&shape, &strides))?;
    let base = ptr.wrapping_sub((-lo) as u64 * item as u64);
    let stream = Stream::for_device(device)?;
    // SAFETY: the caller's guarantee covers every element in `base..base + bytes`.
    let buf = unsafe { Buffer::foreign(base, bytes, &stream, owner, terms) }?;
    Ok(Array {
        buf: Arc::new(buf),
        dtype,
        shape,
        strides,
        offset: (-lo) as usize,
        read_only: false,
    })
}
