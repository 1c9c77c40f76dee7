//! The CUDA Array Interface (v3; `obj.__cuda_array_interface__`), for objects that offer it
//! and not DLPack (Numba's device arrays, older libraries): imported without a copy; and
//! exported by `cuprum.ndarray` as CuPy's is (`export`).
//!
//! Decisions:
//! - **Device**: the interface names none; its data pointer is memory of the current CUDA
//!   device (the protocol's convention), checked with the driver when imported, so memory
//!   of another GPU is a `DeviceError`, not a wrong read.
//! - **Shape and strides**: `shape` may be `()` (a 0-d array) or hold zeros (empty; the
//!   pointer may then be 0); `strides` in bytes, or `None` for C order; each stride must be
//!   a multiple of the item size (cuprum's views count elements).
//! - **Streams**: a `stream` entry other than `None` is work the producer still has queued:
//!   the call's stream waits for it (an event, never a host synchronisation); `0` is refused,
//!   as the protocol says.
//! - **Lifetime**: the array holds the object itself; cuprum lets it go once the work it
//!   queued on the memory has run.

use super::errors::type_name;
use crate::array::{Array, DType};
use crate::error::{bail, err};
use crate::runtime::{Event, Stream};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The interface of array `a` (its Python object `obj`), as CuPy exports it: `shape`,
/// `typestr` and `descr` (NumPy's), `data` (the address of element `[0, …]`, 0 for an
/// empty array, and whether it is read-only), `strides` (`None` when C-contiguous), and
/// `version` 3 with the current stream as `stream` (the legacy default stream's `1` where
/// its handle is 0, which the protocol forbids); CuPy's
/// `CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION=2` leaves the stream out. Memory of the host
/// device is no GPU memory: there the attribute does not exist (`AttributeError`).
pub(super) fn export<'py>(obj: &Bound<'py, PyAny>, a: &Array) -> PyResult<Bound<'py, PyDict>> {
    let py = obj.py();
    if a.device().addresses_host_memory() {
        return Err(pyo3::exceptions::PyAttributeError::new_err(
            "__cuda_array_interface__: the array is in host memory (the host device), not on a \
             GPU",
        ));
    }
    let version = match std::env::var("CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION") {
        Err(_) => 3,
        Ok(v) => match v.trim() {
            "3" => 3,
            "2" => 2,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION can only be set to 3 (default) or 2",
                ));
            }
        },
    };
    let dtype = obj.getattr(pyo3::intern!(py, "dtype"))?;
    let d = PyDict::new(py);
    d.set_item("shape", obj.getattr(pyo3::intern!(py, "shape"))?)?;
    d.set_item("typestr", dtype.getattr(pyo3::intern!(py, "str"))?)?;
    d.set_item("descr", dtype.getattr(pyo3::intern!(py, "descr"))?)?;
    if version == 3 {
        let handle = Stream::current()?.raw_handle() as usize;
        d.set_item("stream", if handle == 0 { 1 } else { handle })?;
    }
    d.set_item("version", version)?;
    if a.is_c_contiguous() {
        d.set_item("strides", py.None())?;
    } else {
        d.set_item("strides", obj.getattr(pyo3::intern!(py, "strides"))?)?;
    }
    let ptr = if a.size() > 0 { a.data_ptr() } else { 0 };
    d.set_item("data", (ptr, !a.is_writeable()))?;
    Ok(d)
}

/// Whether `obj` offers the interface.
pub(super) fn offers(obj: &Bound<'_, PyAny>) -> bool {
    obj.hasattr(pyo3::intern!(obj.py(), "__cuda_array_interface__"))
        .unwrap_or(false)
}

/// `obj`'s memory as an array on `stream`'s device, after the producer's queued work.
pub(super) fn import(obj: &Bound<'_, PyAny>, stream: &Stream) -> PyResult<Array> {
    let py = obj.py();
    let iface = obj.getattr(pyo3::intern!(py, "__cuda_array_interface__"))?;
    let d = iface.cast::<PyDict>().map_err(|_| {
        err!(
            InvalidArgument,
            "__cuda_array_interface__ of a {} is not a dict",
            type_name(obj)
        )
    })?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(key)?.ok_or_else(|| {
            err!(
                InvalidArgument,
                "__cuda_array_interface__ of a {} has no '{key}'",
                type_name(obj)
            )
            .into()
        })
    };
    let shape: Vec<usize> = get("shape")?.extract()?;
    let typestr: String = get("typestr")?.extract()?;
    let dtype = dtype_of_typestr(&typestr)?;
    let (ptr, read_only): (u64, bool) = get("data")?.extract()?;
    let strides = match d.get_item("strides")? {
        Some(s) if !s.is_none() => Some(element_strides(&s.extract::<Vec<isize>>()?, dtype)?),
        _ => None,
    };
    let device = stream.device();
    if device.addresses_host_memory() {
        return Err(err!(
            DeviceMismatch,
            "a {} with __cuda_array_interface__ is GPU memory, but the call runs on the host \
             device: use a GPU (unset CUPRUM_DEVICE=host)",
            type_name(obj)
        )
        .into());
    }
    if let Some(s) = d.get_item("stream")?.filter(|s| !s.is_none()) {
        wait_for_producer(obj, s.extract::<i64>()?, stream)?;
    }
    let owner: crate::runtime::ForeignOwner = Box::new(obj.clone().unbind());
    // SAFETY: the producer's interface describes `shape`/`strides` elements of `dtype` at
    // `ptr`, memory of the current CUDA device (the protocol's convention, checked by the
    // driver in `from_raw_parts`), kept alive by `owner` (the object itself).
    let mut a =
        unsafe { Array::from_raw_parts(ptr, dtype, &shape, strides.as_deref(), device, owner) }?;
    a.read_only = read_only;
    Ok(a)
}

/// Makes `stream` wait for the work the producer has queued on its stream `handle`.
fn wait_for_producer(obj: &Bound<'_, PyAny>, handle: i64, stream: &Stream) -> PyResult<()> {
    if handle == 0 {
        return Err(err!(
            InvalidArgument,
            "__cuda_array_interface__ of a {} names stream 0, which the protocol does not allow \
             (1 is the legacy default stream, 2 the per-thread default stream)",
            type_name(obj)
        )
        .into());
    }
    let handle = usize::try_from(handle).map_err(|_| {
        err!(
            InvalidArgument,
            "__cuda_array_interface__ names stream {handle}: expected a positive handle"
        )
    })?;
    if handle == stream.raw_handle() as usize {
        return Ok(());
    }
    // SAFETY: the protocol's contract: the producer names a live stream of the current
    // device, used here only within this call.
    let theirs = unsafe { Stream::from_raw(&stream.device(), handle as *mut std::ffi::c_void) }?;
    let e = Event::new_on(stream.device())?;
    e.record(&theirs)?;
    Ok(stream.wait_event(&e)?)
}

/// Byte strides as element strides of `dtype`.
fn element_strides(bytes: &[isize], dtype: DType) -> crate::Result<Vec<isize>> {
    let item = dtype.itemsize() as isize;
    bytes
        .iter()
        .map(|&b| {
            if b % item != 0 {
                bail!(
                    InvalidArgument,
                    "__cuda_array_interface__ stride {b} bytes is not a multiple of {}'s {item} \
                     bytes: cuprum's views step whole elements",
                    dtype
                );
            }
            Ok(b / item)
        })
        .collect()
}

/// The dtype of a NumPy type string (`"<f4"`, `"|b1"`, `"<c16"`).
fn dtype_of_typestr(t: &str) -> crate::Result<DType> {
    let b = t.as_bytes();
    if b.len() < 3 || b[0] == b'>' {
        bail!(
            DType,
            "__cuda_array_interface__ typestr {t:?}: expected a little-endian NumPy type string \
             such as '<f4'"
        );
    }
    let size: usize = t[2..].parse().map_err(|_| {
        err!(
            DType,
            "__cuda_array_interface__ typestr {t:?} has no item size"
        )
    })?;
    let d = match (b[1], size) {
        (b'b', 1) => DType::Bool,
        (b'i', 1) => DType::I8,
        (b'i', 2) => DType::I16,
        (b'i', 4) => DType::I32,
        (b'i', 8) => DType::I64,
        (b'u', 1) => DType::U8,
        (b'u', 2) => DType::U16,
        (b'u', 4) => DType::U32,
        (b'u', 8) => DType::U64,
        (b'f', 2) => DType::F16,
        (b'f', 4) => DType::F32,
        (b'f', 8) => DType::F64,
        (b'c', 8) => DType::C64,
        (b'c', 16) => DType::C128,
        _ => bail!(
            DType,
            "__cuda_array_interface__ typestr {t:?} is not a dtype cuprum has (bool, integers, \
             float16/32/64, complex64/128)"
        ),
    };
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_strings_name_dtypes() {
        assert_eq!(dtype_of_typestr("<f4").unwrap(), DType::F32);
        assert_eq!(dtype_of_typestr("|b1").unwrap(), DType::Bool);
        assert_eq!(dtype_of_typestr("<c16").unwrap(), DType::C128);
        assert_eq!(dtype_of_typestr("|u1").unwrap(), DType::U8);
        let e = dtype_of_typestr(">f4").unwrap_err();
        assert!(e.to_string().contains("little-endian"), "{e}");
        let e = dtype_of_typestr("<U8").unwrap_err();
        assert!(e.to_string().contains("not a dtype cuprum has"), "{e}");
    }

    #[test]
    fn byte_strides_become_element_strides() {
        assert_eq!(element_strides(&[16, 4], DType::F32).unwrap(), vec![4, 1]);
        assert_eq!(element_strides(&[-8], DType::F64).unwrap(), vec![-1]);
        let e = element_strides(&[6], DType::F32).unwrap_err();
        assert!(e.to_string().contains("not a multiple"), "{e}");
    }
}
