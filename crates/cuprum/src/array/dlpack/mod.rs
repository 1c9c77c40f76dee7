//! DLPack 1.0: share arrays with PyTorch, CuPy, JAX, NumPy and any other DLPack library,
//! both ways, without a copy.
//!
//! - [`Array::to_dlpack`](crate::Array::to_dlpack) exports a view as a [`DlpackTensor`] (turned into the raw
//!   `DLManagedTensorVersioned` of DLPack ≥ 1.0, or the legacy `DLManagedTensor` for older
//!   consumers, with [`DlpackTensor::into_raw_versioned`] /
//!   [`into_raw_legacy`](DlpackTensor::into_raw_legacy)); the tensor's manager context holds
//!   a clone of the array, so the memory lives until the consumer calls the deleter *and*
//!   every cuprum view is gone.
//! - [`Array::from_dlpack`](crate::Array::from_dlpack) imports one: the array addresses the producer's memory; the
//!   tensor (whose drop calls the producer's deleter, once) lives inside the array's buffer
//!   and is dropped when the last view is gone and cuprum's queued work on the memory has
//!   run (never a host synchronisation: see `runtime/foreign.rs`). cuprum never frees
//!   imported memory nor puts it in its pool.
//!
//! **What maps to what.** dtypes by kind and size: `bool` ↔ `kDLBool`/8, signed ↔
//! `kDLInt`, unsigned ↔ `kDLUInt`, float16/32/64 ↔ `kDLFloat`, bfloat16 ↔ `kDLBfloat`/16,
//! complex64/128 ↔ `kDLComplex`/64/128, one lane; anything else is an `ErrorKind::DType`
//! naming the code, bits and lanes. Strides count elements on both sides (as cuprum's).
//! A GPU is `kDLCUDA` with its ordinal; the host device is `kDLCPU` (id 0). Imports also
//! take `kDLCUDAHost` (pinned host memory: the host device addresses it) and
//! `kDLCUDAManaged` (managed memory: the current device, a GPU or the host device, both
//! address it); other device types are `ErrorKind::Unsupported`. Exports point `data` at
//! the view's first element with `byte_offset` 0 (what every consumer reads); imports
//! honour `byte_offset` and negative strides. Versions: major 1 with any minor is accepted,
//! any other major is refused (`ErrorKind::Unsupported`, naming it) after calling its
//! deleter, as the DLPack header asks.
//!
//! **Read-only.** A tensor flagged `DLPACK_FLAG_BITMASK_READ_ONLY` imports as an array
//! that is not [writeable](crate::Array::is_writeable): every view of it refuses to be a kernel's
//! output, a read-write parameter, an in-place operation's target or a copy's destination
//! (an `InvalidArgument` naming the operation); reading works. Raw kernels cannot tell what
//! they write and are not checked. Exports flag read-only when asked
//! ([`ExportOptions::read_only`]) or when the array is read-only; a read-only tensor has no
//! legacy form (the legacy struct has no flags) and is refused there.
//!
//! **Streams** (the Python array API's `__dlpack__(stream=…)`). With a
//! [`ConsumerStream`], an export makes the consumer's stream wait (an event recorded per
//! stream, never a device synchronisation) for all work queued so far on every stream that
//! used the array, so the consumer sees what cuprum wrote. An import treats the memory as
//! allocated on the importing thread's current stream: later cuprum work on another stream
//! first waits for it, and the release waits for every stream that used it. On the host
//! device work has finished when its call returns, so every stream is trivially ordered
//! and the same calls succeed.
//!
//! **candle, burn and other Rust libraries.** Two doors, neither of which pins a second
//! `cudarc`: DLPack (a library that exports or imports `DLManagedTensorVersioned`, e.g.
//! through the `dlpark` crate whose C structs [`ffi`] re-exports, meets
//! [`Array::from_dlpack`](crate::Array::from_dlpack) / [`Array::to_dlpack`](crate::Array::to_dlpack) directly), or a raw device pointer with an
//! owner: [`Array::from_raw_parts`](crate::Array::from_raw_parts) wraps memory any library allocated (candle's
//! `CudaSlice` device pointer, burn's buffer) with a `Box<dyn Any + Send + Sync>` that keeps
//! it alive (the library's tensor or storage itself), and [`Array::data_ptr`](crate::Array::data_ptr) hands
//! cuprum's memory the other way. `ndarray` conversion (feature `ndarray`) copies through
//! host memory.
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{Array, DType, dlpack::ExportOptions};
//! let a = Array::arange(0.0, 6.0, 1.0, DType::F32)?.reshape(&[2, 3])?;
//! let t = a.to_dlpack(&ExportOptions::default())?;
//! let raw = t.into_raw_versioned()?;                 // what a capsule carries
//! // SAFETY: `raw` came from `into_raw_versioned` and is consumed once.
//! let back = Array::from_dlpack(unsafe { cuprum::dlpack::DlpackTensor::from_raw_versioned(raw)? })?;
//! assert_eq!(back.data_ptr(), a.data_ptr());         // no copy
//! assert_eq!(back.to_vec::<f32>()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
//! # Ok::<(), cuprum::Error>(())
//! ```

mod codes;
mod export;
pub mod ffi;
mod import;
mod stream;
mod tensor;

pub use export::ExportOptions;
pub use stream::{ConsumerStream, StreamHandle};
pub use tensor::DlpackTensor;

/// Gives back the imported memory whose last view is gone and whose queued work has run
/// since (its producer's deleter runs now), without blocking. cuprum does this by itself
/// at every DLPack import, export and release of imported memory; call it after a
/// synchronisation to give memory back sooner when none of those follow. Where another
/// thread collects at the same moment, a deleter it took first runs on that thread and
/// may still be running when this call returns (waiting for it could deadlock on a lock
/// the deleter takes, such as Python's GIL).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// cuprum::Device::current()?.synchronize()?;
/// cuprum::dlpack::release_finished();
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn release_finished() {
    crate::runtime::collect_foreign();
}
