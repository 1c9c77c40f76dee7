//! DLPack capsules, both ways, as the Python array API's protocol says.
//!
//! **Consuming** (an object's `__dlpack__`): call it with `stream=` (the stream cuprum will
//! use; `None` for host memory) and `max_version=(1, 0)`, and without `max_version` when a
//! pre-1.0 producer refuses it with `TypeError` (remembered per type). The capsule is named
//! `"dltensor_versioned"` (a `DLManagedTensorVersioned`) or `"dltensor"` (the legacy
//! `DLManagedTensor`); cuprum renames it `"used_dltensor_versioned"` / `"used_dltensor"`
//! *before* taking the pointer over, so that from then on the producer's capsule destructor
//! leaves the tensor alone and exactly one deleter call happens: cuprum's (when the imported
//! array's last view is gone, or at once when the import is refused).
//!
//! **Producing** (`cuprum.ndarray.__dlpack__`): a capsule named as above whose destructor
//! calls the tensor's deleter only when the capsule still has its original name, i.e. when
//! no consumer took the tensor over.

use super::stream::{self, TypeInfo};
use crate::array::Array;
use crate::dlpack::{DlpackTensor, ExportOptions, ffi as dl};
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCapsule, PyDict, PyTuple};
use std::ffi::{CStr, c_void};
use std::ptr::NonNull;

const VERSIONED: &CStr = c"dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const USED_LEGACY: &CStr = c"used_dltensor";

/// Calls `obj.__dlpack__(stream=…, max_version=(1, 0))` and imports the capsule as an
/// array (zero-copy). `stream_arg` is `None` for host memory, `-1` for no ordering;
/// `on_framework_stream`: the calling thread's current stream is the framework's own
/// current stream (the producer's word on the device is trusted and its memory goes
/// back in stream order: `runtime/foreign.rs`).
pub(super) fn import(
    obj: &Bound<'_, PyAny>,
    info: TypeInfo,
    stream_arg: Option<i64>,
    on_framework_stream: bool,
) -> PyResult<Array> {
    let capsule = call_dlpack(obj, info, stream_arg)?;
    let tensor = take_tensor(&capsule)?;
    if on_framework_stream {
        return super::exchange::import_on_current(tensor);
    }
    Ok(Array::from_dlpack(tensor)?)
}

/// A bare DLPack capsule (the legacy exchange: `toDlpack()`, or `__dlpack__()` called by
/// hand) imported as an array, zero-copy; the producer ordered its work when it made the
/// capsule, as the legacy protocol has it.
pub(super) fn import_capsule(capsule: &Bound<'_, PyAny>) -> PyResult<Array> {
    Ok(Array::from_dlpack(take_tensor(capsule)?)?)
}

/// `obj.__dlpack__(...)`, with the `max_version` fallback for pre-1.0 producers.
fn call_dlpack<'py>(
    obj: &Bound<'py, PyAny>,
    info: TypeInfo,
    stream_arg: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item(pyo3::intern!(py, "stream"), stream_arg)?;
    if info.takes_max_version != Some(false) {
        kwargs.set_item(pyo3::intern!(py, "max_version"), version_1_0(py)?)?;
        match obj.call_method(pyo3::intern!(py, "__dlpack__"), (), Some(&kwargs)) {
            Ok(c) => {
                if info.takes_max_version.is_none() {
                    stream::set_takes_max_version(obj, true);
                }
                return Ok(c);
            }
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                // A pre-1.0 producer. Remembered for the type only when it is the type's
                // first answer (instances of one type may differ: try again each time).
                if info.takes_max_version.is_none() {
                    stream::set_takes_max_version(obj, false);
                }
                kwargs.del_item(pyo3::intern!(py, "max_version"))?;
            }
            Err(e) => return Err(e),
        }
    }
    obj.call_method(pyo3::intern!(py, "__dlpack__"), (), Some(&kwargs))
}

/// The tuple `(1, 0)`, made once.
fn version_1_0(py: Python<'_>) -> PyResult<&Bound<'_, PyTuple>> {
    static V: PyOnceLock<Py<PyTuple>> = PyOnceLock::new();
    Ok(
        V.get_or_try_init(py, || PyTuple::new(py, [1, 0]).map(Bound::unbind))?
            .bind(py),
    )
}

/// Takes the tensor out of a fresh DLPack capsule: renames the capsule to `used_…` and
/// wraps the pointer (whose deleter cuprum now owns).
fn take_tensor(capsule: &Bound<'_, PyAny>) -> PyResult<DlpackTensor> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "__dlpack__ returned an object of type {}, expected a DLPack capsule",
            super::errors::type_name(capsule)
        ))
    })?;
    let raw = capsule.as_ptr();
    // SAFETY: `raw` is a live capsule (borrowed from `capsule`); `PyCapsule_IsValid` only
    // reads its name and pointer and never raises.
    let versioned = unsafe { ffi::PyCapsule_IsValid(raw, VERSIONED.as_ptr()) } == 1;
    // SAFETY: as above.
    let legacy = !versioned && unsafe { ffi::PyCapsule_IsValid(raw, LEGACY.as_ptr()) } == 1;
    if !versioned && !legacy {
        return Err(PyBufferError::new_err(format!(
            "expected a DLPack capsule named 'dltensor_versioned' or 'dltensor', got one named \
             {:?} (a capsule named 'used_…' was already consumed)",
            capsule_name(capsule)
        )));
    }
    let (name, used) = if versioned {
        (VERSIONED, USED_VERSIONED)
    } else {
        (LEGACY, USED_LEGACY)
    };
    // SAFETY: the capsule is valid with this name (checked above), so this returns its
    // non-null pointer without raising.
    let ptr = unsafe { ffi::PyCapsule_GetPointer(raw, name.as_ptr()) };
    // SAFETY: renaming a valid capsule to a 'static name; from here on the producer's
    // destructor leaves the tensor to us (the protocol), and `from_raw_*` below owns it
    // (on an error it calls the deleter itself).
    if unsafe { ffi::PyCapsule_SetName(raw, used.as_ptr()) } != 0 {
        return Err(PyErr::fetch(capsule.py()));
    }
    // SAFETY: `ptr` is the producer's tensor of the kind the capsule's name promises; it
    // was taken over exactly once (the capsule is now marked used).
    let tensor = unsafe {
        if versioned {
            DlpackTensor::from_raw_versioned(ptr.cast())
        } else {
            DlpackTensor::from_raw_legacy(ptr.cast())
        }
    }?;
    Ok(tensor)
}

fn capsule_name(capsule: &Bound<'_, PyCapsule>) -> String {
    match capsule.name() {
        Ok(Some(n)) => {
            // SAFETY: the name is valid while the capsule lives and we copy it at once.
            unsafe { n.as_cstr() }.to_string_lossy().into_owned()
        }
        _ => String::from("<none>"),
    }
}

/// Exports `array` as a capsule: versioned (`"dltensor_versioned"`) or legacy
/// (`"dltensor"`), with the protocol's destructor.
pub(super) fn export<'py>(
    py: Python<'py>,
    array: &Array,
    opts: &ExportOptions,
    versioned: bool,
) -> PyResult<Bound<'py, PyCapsule>> {
    let tensor = array.to_dlpack(opts)?;
    if versioned {
        let ptr = tensor.into_raw_versioned()?;
        // SAFETY: `ptr` is a fresh tensor that only this capsule holds; the destructor
        // deletes it unless a consumer renamed the capsule (and so took it over).
        unsafe { new_capsule(py, ptr.cast(), VERSIONED, destroy_versioned) }
    } else {
        let ptr = tensor.into_raw_legacy()?;
        // SAFETY: as above, for the legacy struct.
        unsafe { new_capsule(py, ptr.cast(), LEGACY, destroy_legacy) }
    }
}

/// # Safety
/// `ptr` is a tensor of the kind `name` says, owned by nobody else; `destructor` matches.
unsafe fn new_capsule<'py>(
    py: Python<'py>,
    ptr: *mut c_void,
    name: &'static CStr,
    destructor: unsafe extern "C" fn(*mut ffi::PyObject),
) -> PyResult<Bound<'py, PyCapsule>> {
    let Some(ptr) = NonNull::new(ptr) else {
        return Err(PyBufferError::new_err(
            "DLPack export returned a null tensor",
        ));
    };
    // SAFETY: the caller's promise; `destructor` never unwinds and takes the GIL it is
    // called with. On failure (out of memory) the tensor is deleted here.
    let made =
        unsafe { PyCapsule::new_with_pointer_and_destructor(py, ptr, name, Some(destructor)) };
    if made.is_err() {
        // SAFETY: no capsule holds the tensor: delete it (once) ourselves.
        unsafe { delete(ptr.as_ptr(), name == VERSIONED) };
    }
    made
}

/// Runs the deleter of the tensor at `ptr` (versioned or legacy).
///
/// # Safety
/// `ptr` is a live tensor of that kind whose deleter has not run.
unsafe fn delete(ptr: *mut c_void, versioned: bool) {
    // SAFETY: the caller's promise; a null deleter means nothing to delete.
    unsafe {
        if versioned {
            let t = ptr.cast::<dl::DLManagedTensorVersioned>();
            if let Some(d) = (*t).deleter {
                d(t)
            }
        } else {
            let t = ptr.cast::<dl::DLManagedTensor>();
            if let Some(d) = (*t).deleter {
                d(t)
            }
        }
    }
}

/// The capsule destructor (called by Python with the GIL held): deletes the tensor only
/// when the capsule still has its first name (no consumer took it over).
unsafe extern "C" fn destroy_versioned(capsule: *mut ffi::PyObject) {
    // SAFETY: Python passes the capsule being destroyed; the checks never raise.
    unsafe { destroy(capsule, VERSIONED, true) }
}

/// As [`destroy_versioned`], for legacy capsules.
unsafe extern "C" fn destroy_legacy(capsule: *mut ffi::PyObject) {
    // SAFETY: as above.
    unsafe { destroy(capsule, LEGACY, false) }
}

/// # Safety
/// `capsule` is a capsule being destroyed, made by [`new_capsule`] with `name`.
unsafe fn destroy(capsule: *mut ffi::PyObject, name: &CStr, versioned: bool) {
    // SAFETY: `PyCapsule_IsValid` never raises; a valid capsule with this name still owns
    // its (non-null) tensor, whose deleter has not run.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, name.as_ptr()) == 1 {
            let ptr = ffi::PyCapsule_GetPointer(capsule, name.as_ptr());
            delete(ptr, versioned);
        }
    }
}
