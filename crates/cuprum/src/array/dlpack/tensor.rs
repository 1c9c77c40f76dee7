//! [`DlpackTensor`]: an owned DLPack managed tensor, versioned or legacy, whose drop calls
//! its deleter exactly once; and the conversions between the two forms.

use super::ffi::{DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor, DlpackFlags};
use crate::error::{Result, bail};
use std::ptr::NonNull;

/// Either form of a managed tensor.
#[derive(Clone, Copy)]
enum Raw {
    Versioned(NonNull<DLManagedTensorVersioned>),
    Legacy(NonNull<DLManagedTensor>),
}

/// An owned DLPack tensor (a `DLManagedTensorVersioned` or a legacy `DLManagedTensor`):
/// dropping it calls the producer's deleter once. Made by
/// [`Array::to_dlpack`](crate::Array::to_dlpack) or from a raw pointer a producer handed
/// over ([`from_raw_versioned`](DlpackTensor::from_raw_versioned),
/// [`from_raw_legacy`](DlpackTensor::from_raw_legacy)); consumed by
/// [`Array::from_dlpack`](crate::Array::from_dlpack) or handed on as a raw pointer
/// ([`into_raw_versioned`](DlpackTensor::into_raw_versioned),
/// [`into_raw_legacy`](DlpackTensor::into_raw_legacy)).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, dlpack::{ExportOptions, ffi}};
/// let a = Array::zeros(&[2, 3], DType::F64)?;
/// let t = a.to_dlpack(&ExportOptions { read_only: true, ..Default::default() })?;
/// assert!(t.is_read_only());
/// assert_eq!(t.shape(), &[2, 3]);
/// assert_eq!(t.device(), a.dlpack_device());
/// drop(t); // the deleter runs: the array's memory is still `a`'s
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct DlpackTensor {
    raw: Raw,
}

// SAFETY: a managed tensor is a plain description plus a deleter; DLPack lets the consumer
// call the deleter from any thread, and `&DlpackTensor` only reads fields.
unsafe impl Send for DlpackTensor {}
// SAFETY: as above: shared access only reads the immutable description.
unsafe impl Sync for DlpackTensor {}

impl std::fmt::Debug for DlpackTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DlpackTensor")
            .field("version", &self.version())
            .field("device", &self.device())
            .field("shape", &self.shape())
            .field("read_only", &self.is_read_only())
            .finish()
    }
}

/// The version cuprum's tensors carry: DLPack 1.x with the minor `dlpark` was generated for.
pub(super) fn current_version() -> DLPackVersion {
    DLPackVersion {
        major: super::ffi::DLPACK_MAJOR_VERSION,
        minor: super::ffi::DLPACK_MINOR_VERSION,
    }
}

impl DlpackTensor {
    /// Takes ownership of a versioned tensor (what a `"dltensor_versioned"` capsule holds).
    ///
    /// # Errors
    /// `InvalidArgument` for a null pointer; `Unsupported` for a major version other than 1
    /// (its deleter is called, as DLPack asks, and nothing else is read).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::dlpack::DlpackTensor;
    /// let p = cuprum::Array::zeros(&[2], cuprum::DType::I8)?
    ///     .to_dlpack(&Default::default())?
    ///     .into_raw_versioned()?;
    /// // SAFETY: `p` is a live tensor whose ownership passes to `t`.
    /// let t = unsafe { DlpackTensor::from_raw_versioned(p)? };
    /// assert_eq!(t.shape(), &[2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Safety
    /// `p` points to a live `DLManagedTensorVersioned` whose ownership passes to the result
    /// (nobody else calls its deleter), and whose description (data, shape, strides) stays
    /// valid until the deleter is called.
    pub unsafe fn from_raw_versioned(p: *mut DLManagedTensorVersioned) -> Result<DlpackTensor> {
        let Some(nn) = NonNull::new(p) else {
            bail!(
                InvalidArgument,
                "a null DLManagedTensorVersioned pointer: expected a tensor"
            );
        };
        // SAFETY: `p` is live (the caller's guarantee); `version` and `deleter` precede
        // everything that may change between major versions.
        let (version, deleter) = unsafe { ((*p).version, (*p).deleter) };
        if version.major != 1 {
            if let Some(d) = deleter {
                // SAFETY: we own the tensor and give it back once, as DLPack asks for a
                // major version we cannot read.
                unsafe { d(p) };
            }
            bail!(
                Unsupported,
                "DLPack version {}.{}: cuprum reads major version 1 (any minor)",
                version.major,
                version.minor
            );
        }
        Ok(DlpackTensor {
            raw: Raw::Versioned(nn),
        })
    }

    /// Takes ownership of a legacy (pre-1.0) tensor (what a `"dltensor"` capsule holds).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::dlpack::DlpackTensor;
    /// let p = cuprum::Array::zeros(&[2], cuprum::DType::I8)?
    ///     .to_dlpack(&Default::default())?
    ///     .into_raw_legacy()?;
    /// // SAFETY: `p` is a live tensor whose ownership passes to `t`.
    /// let t = unsafe { DlpackTensor::from_raw_legacy(p)? };
    /// assert_eq!(t.version(), None);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for a null pointer.
    ///
    /// # Safety
    /// As for [`from_raw_versioned`](DlpackTensor::from_raw_versioned), for a
    /// `DLManagedTensor`.
    pub unsafe fn from_raw_legacy(p: *mut DLManagedTensor) -> Result<DlpackTensor> {
        let Some(nn) = NonNull::new(p) else {
            bail!(
                InvalidArgument,
                "a null DLManagedTensor pointer: expected a tensor"
            );
        };
        Ok(DlpackTensor {
            raw: Raw::Legacy(nn),
        })
    }

    /// Hands the tensor over as a `DLManagedTensorVersioned` (the caller, or the consumer
    /// it passes it to, now calls the deleter once). A legacy tensor is wrapped in a
    /// versioned one (flags 0) whose deleter calls the legacy deleter.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, dlpack::{DlpackTensor, ExportOptions}};
    /// let a = Array::ones(&[3], DType::I32)?;
    /// let p = a.to_dlpack(&ExportOptions::default())?.into_raw_versioned()?;
    /// // SAFETY: `p` is ours; wrapping it again makes its drop call the deleter.
    /// drop(unsafe { DlpackTensor::from_raw_versioned(p)? });
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn into_raw_versioned(self) -> Result<*mut DLManagedTensorVersioned> {
        match self.raw {
            Raw::Versioned(p) => {
                std::mem::forget(self);
                Ok(p.as_ptr())
            }
            Raw::Legacy(_) => {
                let dl_tensor = *self.dl_tensor();
                Ok(wrap(
                    DLManagedTensorVersioned {
                        version: current_version(),
                        manager_ctx: std::ptr::null_mut(),
                        deleter: Some(delete_wrapped::<DLManagedTensorVersioned>),
                        flags: DlpackFlags::empty(),
                        dl_tensor,
                    },
                    self,
                ))
            }
        }
    }

    /// Hands the tensor over as a legacy `DLManagedTensor` (for consumers before DLPack
    /// 1.0). A versioned tensor is wrapped in a legacy one whose deleter calls the versioned
    /// deleter.
    ///
    /// # Errors
    /// `Unsupported` for a read-only tensor: the legacy struct cannot say so, and its
    /// consumer might write (the tensor is dropped).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, dlpack::{DlpackTensor, ExportOptions}};
    /// let a = Array::ones(&[3], DType::I32)?;
    /// let p = a.to_dlpack(&ExportOptions::default())?.into_raw_legacy()?;
    /// // SAFETY: `p` is ours and consumed once.
    /// let b = Array::from_dlpack(unsafe { DlpackTensor::from_raw_legacy(p)? })?;
    /// assert_eq!(b.to_vec::<i32>()?, vec![1, 1, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn into_raw_legacy(self) -> Result<*mut DLManagedTensor> {
        match self.raw {
            Raw::Legacy(p) => {
                std::mem::forget(self);
                Ok(p.as_ptr())
            }
            Raw::Versioned(_) => {
                if self.is_read_only() {
                    bail!(
                        Unsupported,
                        "a read-only DLPack tensor cannot be handed over as a legacy \
                         DLManagedTensor (it has no read-only flag): expected a consumer of \
                         DLPack >= 1.0 (max_version >= (1, 0))"
                    );
                }
                let dl_tensor = *self.dl_tensor();
                Ok(wrap(
                    DLManagedTensor {
                        dl_tensor,
                        manager_ctx: std::ptr::null_mut(),
                        deleter: Some(delete_wrapped::<DLManagedTensor>),
                    },
                    self,
                ))
            }
        }
    }

    /// The tensor's device as DLPack codes: `(device_type, device_id)`, e.g.
    /// `(ffi::KDL_CUDA, 0)` (see [`ffi`](super::ffi) for the codes).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[3], cuprum::DType::F32)?;
    /// assert_eq!(a.to_dlpack(&Default::default())?.device(), a.dlpack_device());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn device(&self) -> (i32, i32) {
        let d = self.dl_tensor().device;
        (d.device_type.0 as i32, d.device_id)
    }

    /// Whether the producer flagged the tensor read-only (never for a legacy tensor).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[3], cuprum::DType::F32)?;
    /// assert!(!a.to_dlpack(&Default::default())?.is_read_only());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn is_read_only(&self) -> bool {
        self.flags().contains(DlpackFlags::READ_ONLY)
    }

    /// The DLPack version (`None` for a legacy tensor).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let t = cuprum::Array::zeros(&[1], cuprum::DType::U8)?
    ///     .to_dlpack(&Default::default())?;
    /// assert_eq!(t.version().map(|v| v.0), Some(1));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn version(&self) -> Option<(u32, u32)> {
        match self.raw {
            // SAFETY: the tensor is live while `self` owns it.
            Raw::Versioned(p) => Some(unsafe {
                let v = (*p.as_ptr()).version;
                (v.major, v.minor)
            }),
            Raw::Legacy(_) => None,
        }
    }

    /// The address of element `[0, …, 0]` (`data + byte_offset`), e.g. to check that an
    /// exchange made no copy.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[3], cuprum::DType::F32)?;
    /// assert_eq!(a.to_dlpack(&Default::default())?.data_ptr(), a.data_ptr());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn data_ptr(&self) -> u64 {
        let t = self.dl_tensor();
        (t.data as u64).wrapping_add(t.byte_offset)
    }

    /// The extents (empty for a 0-d tensor).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[], cuprum::DType::F32)?;
    /// assert!(a.to_dlpack(&Default::default())?.shape().is_empty());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn shape(&self) -> &[i64] {
        let t = self.dl_tensor();
        // SAFETY: DLPack: `shape` points to `ndim` extents alive as long as the tensor (or
        // may be null for ndim 0); `slice_or_empty` checks both.
        unsafe { slice_or_empty(t.shape, t.ndim) }
    }

    /// The strides in elements, `None` where the producer left them null (C order, allowed
    /// before DLPack 1.2).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let a = cuprum::Array::zeros(&[2, 3], cuprum::DType::F32)?;
    /// assert_eq!(a.t().to_dlpack(&Default::default())?.strides(), Some(&[1i64, 3][..]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn strides(&self) -> Option<&[i64]> {
        let t = self.dl_tensor();
        if t.strides.is_null() {
            return None;
        }
        // SAFETY: non-null strides point to `ndim` values alive as long as the tensor.
        Some(unsafe { slice_or_empty(t.strides, t.ndim) })
    }

    /// The flags (empty for a legacy tensor).
    pub(super) fn flags(&self) -> DlpackFlags {
        match self.raw {
            // SAFETY: the tensor is live while `self` owns it.
            Raw::Versioned(p) => unsafe { (*p.as_ptr()).flags },
            Raw::Legacy(_) => DlpackFlags::empty(),
        }
    }

    /// The described tensor.
    pub(super) fn dl_tensor(&self) -> &DLTensor {
        // SAFETY: the tensor is live and its description unchanged while `self` owns it.
        unsafe {
            match self.raw {
                Raw::Versioned(p) => &(*p.as_ptr()).dl_tensor,
                Raw::Legacy(p) => &(*p.as_ptr()).dl_tensor,
            }
        }
    }

    /// The versioned tensor's manager context and deleter (`None` for a legacy one), to
    /// recognise cuprum's own exports.
    pub(super) fn versioned_parts(
        &self,
    ) -> Option<(
        *mut std::ffi::c_void,
        Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    )> {
        match self.raw {
            // SAFETY: the tensor is live while `self` owns it.
            Raw::Versioned(p) => {
                Some(unsafe { ((*p.as_ptr()).manager_ctx, (*p.as_ptr()).deleter) })
            }
            Raw::Legacy(_) => None,
        }
    }
}

impl Drop for DlpackTensor {
    fn drop(&mut self) {
        // SAFETY: `self` owns the tensor and calls its deleter once, here (the `into_raw_*`
        // forms forget `self` instead).
        unsafe {
            match self.raw {
                Raw::Versioned(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr());
                    }
                }
                Raw::Legacy(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr());
                    }
                }
            }
        }
    }
}

/// `ndim` values at `p` (none for `ndim <= 0` or a null pointer).
///
/// # Safety
/// A non-null `p` with `ndim > 0` points to `ndim` initialised `i64`s that outlive `'a`.
pub(super) unsafe fn slice_or_empty<'a>(p: *const i64, ndim: i32) -> &'a [i64] {
    if p.is_null() || ndim <= 0 {
        return &[];
    }
    // SAFETY: the caller's guarantee.
    unsafe { std::slice::from_raw_parts(p, ndim as usize) }
}

/// A managed tensor of one form that owns a tensor of the other form.
#[repr(C)]
struct Wrapped<M> {
    /// First, so that a pointer to the `Wrapped` is a pointer to the managed tensor.
    managed: M,
    inner: DlpackTensor,
}

/// Boxes `managed` with the tensor it describes and returns the pointer the consumer owns.
fn wrap<M>(managed: M, inner: DlpackTensor) -> *mut M {
    Box::into_raw(Box::new(Wrapped { managed, inner })).cast::<M>()
}

/// The deleter of a [`Wrapped`] tensor: drops the box, and so the inner tensor (whose
/// deleter runs).
///
/// # Safety
/// `p` came from [`wrap`] with the same `M` and is deleted once.
unsafe extern "C" fn delete_wrapped<M>(p: *mut M) {
    if p.is_null() {
        return;
    }
    // SAFETY: the caller's guarantee: `p` is the box `wrap` leaked (`managed` is first in a
    // `repr(C)` struct).
    drop(unsafe { Box::from_raw(p.cast::<Wrapped<M>>()) });
}
