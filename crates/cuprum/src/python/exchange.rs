//! DLPack's C exchange API (DLPack 1.3, `type(x).__dlpack_c_exchange_api__`): a
//! producer's function table that turns its tensor into a `DLManagedTensorVersioned` and
//! names its current work stream with C calls, no Python method call in between.
//!
//! Decision: a call whose first array's type offers the table (PyTorch ≥ 2.10's
//! `torch.Tensor`) runs on the stream the table names for the array's device and imports
//! every array of that type through the table (`dltensor_from_py_object_no_sync`, a
//! borrowed description kept valid by holding the object itself, or else
//! `managed_tensor_from_py_object_no_sync`; no stream synchronisation, which is right since
//! cuprum's work goes on that same stream). That replaces, per argument, the `__dlpack__` method call (2.5 µs on an H100
//! host for torch, against 0.28 µs for the C conversion) and, per call, the
//! `__dlpack_device__` call (0.73 µs) and the stream lookup. Arrays of other types in the
//! same call take the `__dlpack__(stream=…)` path (`capsule.rs`).
//!
//! The table is looked up once per type (`stream.rs` caches it with the type) and must
//! live as long as the process (the protocol says so); cuprum also keeps the capsule that
//! holds it. A table of another major version than 1 is walked back through `prev_api`;
//! none of major 1 means the type takes the `__dlpack__` path.
//!
//! What the producer checks in `__dlpack__` but not in its C table (PyTorch: a tensor that
//! requires grad, one with the conjugate bit) is the producer's policy for library
//! extensions, as for a C++ extension reading `data_ptr()`; cuprum reads the memory as the
//! tensor describes it.

use crate::array::Array;
use crate::dlpack::DlpackTensor;
use crate::dlpack::ffi::{DLDeviceType, DLTensor};
use dlpark::ffi::{DLPackExchangeAPI, DLPackExchangeAPIHeader};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::{CStr, c_void};
use std::ptr::NonNull;

const CAPSULE_NAME: &CStr = c"dlpack_exchange_api";

/// A producer's exchange table of DLPack major version 1 (alive for the process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Exchange(NonNull<DLPackExchangeAPI>);

// SAFETY: the table is immutable, static data of the producer (function pointers), alive
// for the process; its functions are called with the GIL held, as the protocol asks.
unsafe impl Send for Exchange {}
// SAFETY: as above.
unsafe impl Sync for Exchange {}

impl Exchange {
    /// The table of `ty` (`ty.__dlpack_c_exchange_api__`), when it has one of major
    /// version 1 with the functions cuprum calls.
    pub(super) fn of_type(ty: &Bound<'_, pyo3::types::PyType>) -> Option<Exchange> {
        let attr = ty
            .getattr(pyo3::intern!(ty.py(), "__dlpack_c_exchange_api__"))
            .ok()?;
        let capsule = attr.cast::<PyCapsule>().ok()?;
        let raw = capsule.as_ptr();
        // SAFETY: `raw` is a live capsule; `PyCapsule_IsValid` never raises and only reads
        // its name and pointer.
        if unsafe { pyo3::ffi::PyCapsule_IsValid(raw, CAPSULE_NAME.as_ptr()) } != 1 {
            return None;
        }
        // SAFETY: valid with this name (checked), so this returns its non-null pointer.
        let mut header = unsafe { pyo3::ffi::PyCapsule_GetPointer(raw, CAPSULE_NAME.as_ptr()) }
            .cast::<DLPackExchangeAPIHeader>();
        // The table must outlive every use: keep its capsule alive for the process too.
        std::mem::forget(capsule.clone().unbind());
        while !header.is_null() {
            // SAFETY: a producer's table starts with the stable header; `prev_api` links
            // older tables, or is null.
            let h = unsafe { *header };
            if h.version.major == 1 {
                // SAFETY: major version 1: the header heads a `DLPackExchangeAPI`.
                let api = unsafe { &*header.cast::<DLPackExchangeAPI>() };
                if api.managed_tensor_from_py_object_no_sync.is_none()
                    || api.current_work_stream.is_none()
                {
                    return None;
                }
                return NonNull::new(header.cast::<DLPackExchangeAPI>()).map(Exchange);
            }
            header = h.prev_api;
        }
        None
    }

    fn api(&self) -> &DLPackExchangeAPI {
        // SAFETY: checked in `of_type`; the table lives for the process.
        unsafe { self.0.as_ref() }
    }

    /// `obj` (of the type the table came from) described without any stream
    /// synchronisation: borrowed (`dltensor_from_py_object_no_sync`, no allocation on the
    /// producer's side) when the table has it, else an owned tensor.
    pub(super) fn describe(&self, obj: &Bound<'_, PyAny>) -> PyResult<Described> {
        if let Some(borrow) = self.api().dltensor_from_py_object_no_sync {
            let mut dl = std::mem::MaybeUninit::<DLTensor>::zeroed();
            // SAFETY: `obj` is a live object of the table's type (the caller looks the
            // table up from `obj`'s type), the GIL is held, `dl` is writable.
            let rc = unsafe { borrow(obj.as_ptr().cast::<c_void>(), dl.as_mut_ptr()) };
            if rc != 0 {
                return Err(failed(obj, rc));
            }
            // SAFETY: filled by the producer (rc 0); a zeroed DLTensor is valid anyway.
            return Ok(Described::Borrowed(unsafe { dl.assume_init() }));
        }
        let Some(from) = self.api().managed_tensor_from_py_object_no_sync else {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "the DLPack exchange table has no managed_tensor_from_py_object_no_sync",
            ));
        };
        let mut out = std::ptr::null_mut();
        // SAFETY: as above; `out` receives an owned tensor.
        let rc = unsafe { from(obj.as_ptr().cast::<c_void>(), &mut out) };
        if rc != 0 || out.is_null() {
            return Err(failed(obj, rc));
        }
        // SAFETY: a fresh tensor the producer handed over; we own its deleter from here.
        Ok(Described::Owned(unsafe {
            DlpackTensor::from_raw_versioned(out)
        }?))
    }

    /// The producer's current work stream of CUDA device `ordinal` (a raw `CUstream`; 0 is
    /// the legacy default stream).
    pub(super) fn cuda_stream(&self, py: Python<'_>, ordinal: usize) -> PyResult<usize> {
        let Some(current) = self.api().current_work_stream else {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "the DLPack exchange table has no current_work_stream",
            ));
        };
        let id = i32::try_from(ordinal).unwrap_or(i32::MAX);
        let mut out: *mut c_void = std::ptr::null_mut();
        // SAFETY: the table's function, called with the GIL held and a live out-pointer.
        let rc = unsafe { current(DLDeviceType::CUDA, id, &mut out) };
        if rc != 0 {
            return Err(PyErr::take(py).unwrap_or_else(|| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "the DLPack exchange table's current_work_stream failed for CUDA device \
                     {ordinal} (code {rc})"
                ))
            }));
        }
        Ok(out as usize)
    }
}

/// An array as a framework's exchange table describes it (`Exchange::describe`).
pub(super) enum Described {
    /// Valid while the producer's object lives and control stays in this call.
    Borrowed(DLTensor),
    Owned(DlpackTensor),
}

impl Described {
    /// The DLPack device `(type, id)`.
    pub(super) fn device(&self) -> (i32, i32) {
        match self {
            Described::Borrowed(dl) => (dl.device.device_type.0 as i32, dl.device.device_id),
            Described::Owned(t) => t.device(),
        }
    }

    /// The array over `obj`'s memory (the object the description came from), on the
    /// calling thread's current stream, which must be the framework's current stream (see
    /// [`import_on_current`]); a borrowed description is kept alive by `obj` itself.
    pub(super) fn into_array(self, obj: &Bound<'_, PyAny>) -> PyResult<Array> {
        match self {
            Described::Owned(t) => import_on_current(t),
            Described::Borrowed(dl) => {
                let owner: crate::runtime::ForeignOwner = Box::new(obj.clone().unbind());
                // SAFETY: the producer described `obj`'s memory just now, in this call
                // (shape and strides are copied at once); holding `obj` keeps the memory
                // alive; the terms as in `import_on_current`.
                Ok(unsafe { Array::from_dl_tensor(&dl, owner, framework_terms()) }?)
            }
        }
    }
}

fn failed(obj: &Bound<'_, PyAny>, rc: i32) -> PyErr {
    PyErr::take(obj.py()).unwrap_or_else(|| {
        pyo3::exceptions::PyBufferError::new_err(format!(
            "the DLPack exchange table of {} failed (code {rc}) without an exception",
            super::capsule::type_name(obj)
        ))
    })
}

/// What cuprum assumes of a framework's memory on the framework's current stream.
fn framework_terms() -> crate::runtime::ForeignTerms {
    crate::runtime::ForeignTerms {
        check_address: false,
        release: crate::runtime::ForeignRelease::InStreamOrder,
    }
}

/// Imports a tensor of the framework whose current stream the call runs on (the calling
/// thread's current cuprum stream; through its table, or its `__dlpack__` with
/// `stream=-1`): the producer's word on the device is trusted, and its memory goes back in
/// stream order (`runtime/foreign.rs`).
pub(super) fn import_on_current(tensor: DlpackTensor) -> PyResult<Array> {
    // SAFETY: the tensor came from its framework (PyTorch or CuPy, by its type), whose
    // device is the framework's own record of the memory; the call runs on the
    // framework's current stream of that device (`Call`), in whose order the framework's
    // caching allocator reuses memory (the contract of its own kernels).
    Ok(unsafe { Array::from_dlpack_on(tensor, framework_terms()) }?)
}
