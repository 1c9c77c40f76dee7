//! cuBLAS, loaded at run time: a probe that never panics, one handle per (device, thread)
//! bound to the call's stream before every call, and the one routine the ops layer needs
//! (GEMM, single or strided-batched, float32 and float64) for the CUDA backend.
//!
//! Loading: `culib.rs` (every symbol below checked before cudarc resolves one), once per
//! process; a missing library is an [`ErrorKind::Blas`] error naming what was tried.
//!
//! Handles: creating one costs milliseconds, so each thread keeps one per device; when a
//! thread ends its handles go to a process-wide pool that the next thread takes from (as
//! PyTorch does), so handles are created at most once per concurrently active thread and
//! never destroyed. cuBLAS allows one handle to be used with several streams, one after the
//! other; `cublasSetStream` is called before every operation.

use super::culib::{self, LibSpec, Loaded};
use super::driver::CUstream;
use crate::error::{Error, ErrorKind, Result, err};
use crate::runtime::backend::{BlasFloat, Gemm};
use cudarc::cublas::sys;
use std::cell::RefCell;
use std::ffi::{c_int, c_longlong};
use std::sync::{Mutex, OnceLock};

/// Every cuBLAS symbol cuprum calls (each is checked before cudarc resolves it).
const SYMBOLS: &[&str] = &[
    "cublasCreate_v2",
    "cublasSetStream_v2",
    "cublasGetVersion_v2",
    "cublasSgemm_v2",
    "cublasDgemm_v2",
    "cublasSgemmStridedBatched",
    "cublasDgemmStridedBatched",
];

/// cuBLAS as `culib` loads it.
const SPEC: LibSpec = LibSpec {
    stem: "cublas",
    name: "cuBLAS",
    kind: ErrorKind::Blas,
    symbols: SYMBOLS,
    majors: &["13", "12"],
    companions: &["cublasLt"],
    pip: "nvidia-cublas",
    present: sys::is_culib_present,
};

fn loaded() -> Result<&'static Loaded> {
    static LOADED: OnceLock<Result<Loaded>> = OnceLock::new();
    LOADED
        .get_or_init(|| culib::load(&SPEC))
        .as_ref()
        .map_err(Clone::clone)
}

/// Checks (once) that cuBLAS can be loaded and has every symbol cuprum uses.
pub(crate) fn probe() -> Result<()> {
    loaded().map(|_| ())
}

/// A cuBLAS status as a cuprum error naming the call (allocation failures are
/// [`ErrorKind::OutOfMemory`]).
fn blas_error(status: sys::cublasStatus_t, call: &str) -> Error {
    let kind = if status == sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED {
        ErrorKind::OutOfMemory
    } else {
        ErrorKind::Blas
    };
    Error::new(kind, format!("{call} failed: {status:?}"))
}

fn check(status: sys::cublasStatus_t, call: &str) -> Result<()> {
    if status == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(blas_error(status, call))
    }
}

// ------------------------------------------------------------------------------------------
// Handles
// ------------------------------------------------------------------------------------------

struct RawHandle(sys::cublasHandle_t);

// SAFETY: a cuBLAS handle may be used from any thread as long as no two threads use it at
// once; a handle is only ever held by one thread's `ThreadHandles` or by the pool.
unsafe impl Send for RawHandle {}

/// Handles released by threads that ended, per device ordinal.
static POOL: Mutex<Vec<(usize, RawHandle)>> = Mutex::new(Vec::new());

struct ThreadHandles(Vec<(usize, RawHandle)>);

impl Drop for ThreadHandles {
    fn drop(&mut self) {
        let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
        pool.append(&mut self.0);
    }
}

thread_local! {
    static HANDLES: RefCell<ThreadHandles> = const { RefCell::new(ThreadHandles(Vec::new())) };
}

/// The calling thread's handle for device `ordinal` (taken from the pool or created). The
/// device's context must be current.
fn handle(ordinal: usize) -> Result<sys::cublasHandle_t> {
    let r = HANDLES.try_with(|cell| -> Result<sys::cublasHandle_t> {
        let mut mine = cell.try_borrow_mut().map_err(|_| {
            err!(
                Blas,
                "the thread's cuBLAS handles are in use (re-entrant call)"
            )
        })?;
        if let Some((_, h)) = mine.0.iter().find(|(d, _)| *d == ordinal) {
            return Ok(h.0);
        }
        let pooled = {
            let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
            pool.iter()
                .position(|(d, _)| *d == ordinal)
                .map(|i| pool.swap_remove(i).1)
        };
        let h = match pooled {
            Some(h) => h,
            None => {
                let mut raw: sys::cublasHandle_t = std::ptr::null_mut();
                // SAFETY: cuBLAS is loaded with every symbol checked (`probe`), the
                // device's context is current, and `raw` is a valid out pointer.
                check(unsafe { sys::cublasCreate_v2(&mut raw) }, "cublasCreate")?;
                RawHandle(raw)
            }
        };
        let raw = h.0;
        mine.0.push((ordinal, h));
        Ok(raw)
    });
    r.map_err(|_| err!(Blas, "cuBLAS used while the thread is shutting down"))?
}

/// The version of the loaded cuBLAS (e.g. `130001` for 13.0.1), through device
/// `ordinal`'s handle (its context current).
pub(crate) fn version(ordinal: usize) -> Result<i32> {
    probe()?;
    let h = handle(ordinal)?;
    let mut v: c_int = 0;
    // SAFETY: the handle is live for the process and `v` is a valid out pointer.
    check(
        unsafe { sys::cublasGetVersion_v2(h, &mut v) },
        "cublasGetVersion",
    )?;
    Ok(v)
}

// ------------------------------------------------------------------------------------------
// GEMM
// ------------------------------------------------------------------------------------------

fn op(trans: bool) -> sys::cublasOperation_t {
    if trans {
        sys::cublasOperation_t::CUBLAS_OP_T
    } else {
        sys::cublasOperation_t::CUBLAS_OP_N
    }
}

/// Queues the GEMM `g` on `stream` of device `ordinal` (whose context is current), with
/// this thread's cuBLAS handle of the device.
///
/// # Safety
/// As for `DeviceBackend::gemm`: every matrix of the batch lies in live device memory of
/// the device, the output overlapping no input or other output, allocated until the work
/// queued on `stream` is done.
pub(crate) unsafe fn gemm(ordinal: usize, g: &Gemm, stream: CUstream) -> Result<()> {
    probe()?;
    let h = handle(ordinal)?;
    // SAFETY: the handle is live; the stream belongs to the handle's device (the handle was
    // made for `device`) and outlives the queued work by the caller's contract.
    check(
        unsafe { sys::cublasSetStream_v2(h, stream.cast::<sys::CUstream_st>()) },
        "cublasSetStream",
    )?;
    let (ta, tb) = (op(g.a.trans), op(g.b.trans));
    let (m, n, k) = (g.m as c_int, g.n as c_int, g.k as c_int);
    let (lda, ldb, ldc) = (g.a.ld as c_int, g.b.ld as c_int, g.ldc as c_int);
    let batched = g.batch != 1;
    let (sa, sb, sc) = (
        g.a.stride as c_longlong,
        g.b.stride as c_longlong,
        g.stride_c as c_longlong,
    );
    let status = match g.float {
        BlasFloat::F32 => {
            let (one, zero) = (1.0f32, 0.0f32);
            let (a, b, c) = (
                g.a.ptr as *const f32,
                g.b.ptr as *const f32,
                g.c as *mut f32,
            );
            if batched {
                // SAFETY: pointers, dimensions and strides are valid by this function's
                // contract; alpha and beta are host scalars (the default pointer mode).
                unsafe {
                    sys::cublasSgemmStridedBatched(
                        h, ta, tb, m, n, k, &one, a, lda, sa, b, ldb, sb, &zero, c, ldc, sc,
                        g.batch,
                    )
                }
            } else {
                // SAFETY: as above, for one matrix.
                unsafe {
                    sys::cublasSgemm_v2(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc)
                }
            }
        }
        BlasFloat::F64 => {
            let (one, zero) = (1.0f64, 0.0f64);
            let (a, b, c) = (
                g.a.ptr as *const f64,
                g.b.ptr as *const f64,
                g.c as *mut f64,
            );
            if batched {
                // SAFETY: as for float32.
                unsafe {
                    sys::cublasDgemmStridedBatched(
                        h, ta, tb, m, n, k, &one, a, lda, sa, b, ldb, sb, &zero, c, ldc, sc,
                        g.batch,
                    )
                }
            } else {
                // SAFETY: as for float32.
                unsafe {
                    sys::cublasDgemm_v2(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc)
                }
            }
        }
    };
    let call = match (g.float, batched) {
        (BlasFloat::F32, false) => "cublasSgemm",
        (BlasFloat::F64, false) => "cublasDgemm",
        (BlasFloat::F32, true) => "cublasSgemmStridedBatched",
        (BlasFloat::F64, true) => "cublasDgemmStridedBatched",
    };
    check(status, call)
}
