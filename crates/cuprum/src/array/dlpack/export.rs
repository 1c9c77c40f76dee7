//! [`Array::to_dlpack`]: an array as a versioned DLPack tensor whose manager context keeps
//! a clone of the array (and so its buffer) until the consumer calls the deleter.

use super::codes;
use super::ffi::{DLManagedTensorVersioned, DLTensor, DlpackFlags};
use super::stream::ConsumerStream;
use super::stream::order_for_consumer;
use super::tensor::{DlpackTensor, current_version};
use crate::array::{Array, DType};
use crate::error::Result;
use smallvec::SmallVec;

/// What an exported tensor owns: the managed tensor (first: the consumer's pointer is a
/// pointer to this), the array it describes, and the shape and strides it points to.
#[repr(C)]
pub(super) struct Exported {
    managed: DLManagedTensorVersioned,
    pub(super) array: Array,
    shape: SmallVec<[i64; 6]>,
    strides: SmallVec<[i64; 6]>,
}

/// How [`Array::to_dlpack`](crate::Array::to_dlpack) exports (the arguments of Python's
/// `__dlpack__`).
///
/// ```
/// use cuprum::dlpack::{ConsumerStream, ExportOptions};
/// let o = ExportOptions { consumer_stream: Some(ConsumerStream::Legacy), ..Default::default() };
/// assert!(!o.read_only);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The stream the consumer will use the tensor on: cuprum's pending work on the array
    /// is ordered before it (an event wait). `None`: no ordering (Python's `stream=-1`).
    pub consumer_stream: Option<ConsumerStream>,
    /// Flag the tensor read-only (`DLPACK_FLAG_BITMASK_READ_ONLY`); a read-only array is
    /// always exported read-only.
    pub read_only: bool,
}

/// The deleter of cuprum's exports: drops the [`Exported`] box (and so the array clone).
///
/// # Safety
/// `p` came from `Array::to_dlpack` and is deleted once.
pub(super) unsafe extern "C" fn delete_exported(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY: the caller's guarantee: `p` is the leaked box (`managed` is its first field in
    // a `repr(C)` struct).
    drop(unsafe { Box::from_raw(p.cast::<Exported>()) });
}

impl Array {
    /// Exports the array as a DLPack tensor, without a copy (Python's `__dlpack__`): the
    /// tensor describes this view (shape, strides in elements, dtype, device) and keeps the
    /// memory alive until it is dropped or its consumer calls the deleter, however long the
    /// array itself lives. See [`dlpack`](crate::dlpack) for what maps to what.
    ///
    /// With [`ExportOptions::consumer_stream`], the consumer's stream first waits (event
    /// waits, no synchronisation) for every stream's work queued so far on the memory.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, s};
    /// let a = Array::arange(0.0, 12.0, 1.0, DType::F32)?.reshape(&[3, 4])?;
    /// let col = a.slice(&s![.., 1])?;
    /// let t = col.to_dlpack(&Default::default())?;
    /// assert_eq!((t.shape(), t.strides()), (&[3i64][..], Some(&[4i64][..])));
    /// drop(a);
    /// let back = Array::from_dlpack(t)?;              // memory still alive
    /// assert_eq!(back.to_vec::<f32>()?, vec![1.0, 5.0, 9.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Errors
    /// What ordering the consumer's stream returns (a driver error for a bad handle).
    pub fn to_dlpack(&self, opts: &ExportOptions) -> Result<DlpackTensor> {
        if let DType::Record(r) = self.dtype {
            crate::error::bail!(
                DType,
                "DLPack exports numbers; given an array of records ({}): DLPack has no struct types",
                r.name()
            );
        }
        if let Some(consumer) = opts.consumer_stream {
            order_for_consumer(self, consumer)?;
        }
        crate::runtime::collect_foreign();
        let mut flags = DlpackFlags::empty();
        if opts.read_only || self.read_only {
            flags |= DlpackFlags::READ_ONLY;
        }
        let boxed = Box::new(Exported {
            managed: DLManagedTensorVersioned {
                version: current_version(),
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_exported),
                flags,
                dl_tensor: DLTensor {
                    data: self.data_ptr() as *mut std::ffi::c_void,
                    device: codes::dl_device(self.device()),
                    ndim: self.ndim() as i32,
                    dtype: codes::data_type(self.dtype),
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
            array: self.clone(),
            shape: self.shape.iter().map(|&n| n as i64).collect(),
            strides: self.strides.iter().map(|&s| s as i64).collect(),
        });
        let raw = Box::into_raw(boxed);
        // SAFETY: `raw` points to a live `Exported` whose first field is the managed tensor;
        // its contents never move until the deleter frees them, so the shape, strides and
        // context pointers stay valid; its ownership passes to the `DlpackTensor` (whose
        // drop calls `delete_exported`).
        unsafe {
            (*raw).managed.dl_tensor.shape = (*raw).shape.as_mut_ptr();
            (*raw).managed.dl_tensor.strides = (*raw).strides.as_mut_ptr();
            (*raw).managed.manager_ctx = raw.cast();
            DlpackTensor::from_raw_versioned(raw.cast())
        }
    }

    /// The array's DLPack device (Python's `__dlpack_device__`): `(ffi::KDL_CUDA, ordinal)`
    /// on a GPU, `(ffi::KDL_CPU, 0)` on the host device.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::dlpack::ffi;
    /// let a = cuprum::Array::zeros(&[2], cuprum::DType::F32)?;
    /// let (kind, _id) = a.dlpack_device();
    /// assert!(kind == ffi::KDL_CUDA || kind == ffi::KDL_CPU);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn dlpack_device(&self) -> (i32, i32) {
        codes::device_code(self.device())
    }
}
