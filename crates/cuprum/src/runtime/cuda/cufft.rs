//! cuFFT, loaded at run time (`culib.rs`: a probe that never panics), with a process-wide
//! cache of plans for the CUDA backend.
//!
//! Plans: making one costs from tens of microseconds to milliseconds (cuFFT chooses its
//! kernels and allocates its work area), so plans are kept, keyed by device, stream and
//! transform ([`FftPlan`]: kind, precision, lengths, batch), the least recently used
//! dropped beyond [`plan_cache_limit`] (16 by default, CuPy's default). The stream is part
//! of the key because a plan owns one work area: two streams that used one plan could run
//! its transforms at the same time over the same scratch memory. A plan is bound to the
//! call's stream (`cufftSetStream`) and its transform queued while the cache's lock is
//! held, so two threads never use one plan at once. Destroying a plan frees its work area
//! with `cudaFree`, which waits for the device, so work still queued with it finishes
//! first.
//!
//! A transform captured into a CUDA graph bakes its plan's work area into the graph, so a
//! plan used while its stream is being captured leaves the cache for good: it is never
//! destroyed (graphs may be replayed for the rest of the process), and the next transform
//! of that shape makes a fresh plan.
//!
//! Plans are made with `cufftMakePlanMany64` over the default (contiguous) layout: the
//! ops layer hands cuFFT C-contiguous batches only. A C2R transform overwrites its input
//! (cuFFT's documented behaviour for multi-dimensional ones); the ops layer passes a copy.

use super::culib::{self, LibSpec, Loaded};
use super::driver::CUstream;
use crate::error::{Error, ErrorKind, Result, bail};
use crate::runtime::backend::{FftKind, FftPlan};
use cudarc::cufft::sys;
use std::ffi::{c_int, c_longlong};
use std::sync::{Mutex, OnceLock};

/// Every cuFFT symbol cuprum calls (each is checked before cudarc resolves it).
const SYMBOLS: &[&str] = &[
    "cufftCreate",
    "cufftDestroy",
    "cufftMakePlanMany64",
    "cufftSetStream",
    "cufftExecC2C",
    "cufftExecZ2Z",
    "cufftExecR2C",
    "cufftExecD2Z",
    "cufftExecC2R",
    "cufftExecZ2D",
    "cufftGetVersion",
];

/// cuFFT as `culib` loads it (CUDA 13 ships `libcufft.so.12`, CUDA 12 `.11`).
const SPEC: LibSpec = LibSpec {
    stem: "cufft",
    name: "cuFFT",
    kind: ErrorKind::Fft,
    symbols: SYMBOLS,
    majors: &["12", "11"],
    companions: &[],
    pip: "nvidia-cufft",
    present: sys::is_culib_present,
};

fn loaded() -> Result<&'static Loaded> {
    static LOADED: OnceLock<Result<Loaded>> = OnceLock::new();
    LOADED
        .get_or_init(|| culib::load(&SPEC))
        .as_ref()
        .map_err(Clone::clone)
}

fn check(status: sys::cufftResult, call: &str) -> Result<()> {
    match status {
        sys::cufftResult::CUFFT_SUCCESS => Ok(()),
        sys::cufftResult::CUFFT_ALLOC_FAILED => Err(Error::new(
            ErrorKind::OutOfMemory,
            format!("{call} failed: cuFFT could not allocate its work area ({status:?})"),
        )),
        _ => Err(Error::new(
            ErrorKind::Fft,
            format!("{call} failed: {status:?}"),
        )),
    }
}

/// The version of the loaded cuFFT (e.g. `12000`).
pub(crate) fn version() -> Result<i32> {
    loaded()?;
    let mut v: c_int = 0;
    // SAFETY: cuFFT is loaded with every symbol checked; `v` is a valid out pointer.
    check(unsafe { sys::cufftGetVersion(&mut v) }, "cufftGetVersion")?;
    Ok(v)
}

// ------------------------------------------------------------------------------------------
// Plans
// ------------------------------------------------------------------------------------------

#[derive(PartialEq, Eq)]
struct Key {
    ordinal: usize,
    stream: usize,
    plan: FftPlan,
}

/// The cache: plans in order of use, the most recent last.
struct Cache {
    plans: Vec<(Key, sys::cufftHandle)>,
    limit: usize,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    plans: Vec::new(),
    limit: 16,
});

/// Plans whose work area a captured graph uses: kept for the process.
static CAPTURED: Mutex<Vec<sys::cufftHandle>> = Mutex::new(Vec::new());

fn cache() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

fn destroy(h: sys::cufftHandle) {
    // SAFETY: `h` is a plan this module made and no longer lists; nothing else holds it.
    // A failure leaves at worst a leaked plan.
    let _ = unsafe { sys::cufftDestroy(h) };
}

impl Cache {
    fn shrink_to(&mut self, limit: usize) {
        while self.plans.len() > limit {
            let (_, h) = self.plans.remove(0);
            destroy(h);
        }
    }
}

/// The most plans the cache keeps.
pub(crate) fn plan_cache_limit() -> usize {
    cache().limit
}

/// Sets how many plans the cache keeps (0 keeps none: each transform makes and destroys
/// its plan), dropping the least recently used beyond it.
pub(crate) fn set_plan_cache_limit(limit: usize) {
    let mut c = cache();
    c.limit = limit;
    c.shrink_to(limit);
}

/// The plans the cache holds now.
pub(crate) fn plan_cache_len() -> usize {
    cache().plans.len()
}

/// Destroys every cached plan.
pub(crate) fn clear_plan_cache() {
    cache().shrink_to(0);
}

fn cufft_type(kind: FftKind, double: bool) -> sys::cufftType {
    use sys::cufftType::*;
    match (kind, double) {
        (FftKind::C2C, false) => CUFFT_C2C,
        (FftKind::C2C, true) => CUFFT_Z2Z,
        (FftKind::R2C, false) => CUFFT_R2C,
        (FftKind::R2C, true) => CUFFT_D2Z,
        (FftKind::C2R, false) => CUFFT_C2R,
        (FftKind::C2R, true) => CUFFT_Z2D,
    }
}

/// A new plan for `plan` (the device's context current).
fn make(plan: &FftPlan) -> Result<sys::cufftHandle> {
    let mut dims: Vec<c_longlong> = Vec::with_capacity(plan.dims.len());
    for &d in &plan.dims {
        dims.push(c_longlong::try_from(d).map_err(|_| {
            Error::new(ErrorKind::Fft, format!("an FFT length of {d} is too large"))
        })?);
    }
    let batch = c_longlong::try_from(plan.batch).map_err(|_| {
        Error::new(
            ErrorKind::Fft,
            format!("an FFT batch of {} is too large", plan.batch),
        )
    })?;
    let mut h: sys::cufftHandle = 0;
    // SAFETY: cuFFT is loaded with every symbol checked; `h` is a valid out pointer.
    check(unsafe { sys::cufftCreate(&mut h) }, "cufftCreate")?;
    let mut work: usize = 0;
    // SAFETY: `h` is a fresh plan; `dims` holds `rank` lengths; null embeds select the
    // contiguous layout (strides and distances are then ignored); `work` is a valid out
    // pointer.
    let status = unsafe {
        sys::cufftMakePlanMany64(
            h,
            dims.len() as c_int,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            1,
            0,
            std::ptr::null_mut(),
            1,
            0,
            cufft_type(plan.kind, plan.double),
            batch,
            &mut work,
        )
    };
    if let Err(e) = check(status, "cufftMakePlanMany64") {
        destroy(h);
        return Err(e);
    }
    Ok(h)
}

/// Queues the transforms `plan` describes on `stream` of device `ordinal` (whose context
/// is current).
///
/// # Safety
/// As for `DeviceBackend::fft`.
pub(crate) unsafe fn exec(
    ordinal: usize,
    plan: &FftPlan,
    input: u64,
    output: u64,
    forward: bool,
    stream: CUstream,
) -> Result<()> {
    loaded()?;
    if plan.dims.is_empty() || plan.dims.len() > 3 || plan.batch == 0 {
        bail!(
            Fft,
            "a cuFFT plan has 1 to 3 axes and a batch of at least one (got {:?})",
            plan
        );
    }
    let mut c = cache();
    let key = Key {
        ordinal,
        stream: stream as usize,
        plan: plan.clone(),
    };
    let h = match c.plans.iter().position(|(k, _)| *k == key) {
        Some(i) => {
            let entry = c.plans.remove(i);
            let h = entry.1;
            c.plans.push(entry);
            h
        }
        None => {
            let h = make(plan)?;
            c.plans.push((key, h));
            h
        }
    };
    // SAFETY: `h` is a live plan of this device (made with its context current), held
    // under the cache's lock; the stream belongs to the device and outlives the work.
    let r = check(
        unsafe { sys::cufftSetStream(h, stream.cast::<sys::CUstream_st>()) },
        "cufftSetStream",
    )
    .and_then(|()| {
        // SAFETY: the addresses hold the plan's batch of inputs and outputs (caller).
        unsafe { run(h, plan, input, output, forward) }
    });
    if crate::runtime::capture_state::is_capturing(stream as usize)
        && let Some(i) = c.plans.iter().position(|(_, p)| *p == h)
    {
        let (_, kept) = c.plans.remove(i);
        CAPTURED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(kept);
    }
    let limit = c.limit;
    c.shrink_to(limit);
    r
}

/// # Safety
/// As for [`exec`], `h` a live plan made for `plan`.
unsafe fn run(
    h: sys::cufftHandle,
    plan: &FftPlan,
    input: u64,
    output: u64,
    forward: bool,
) -> Result<()> {
    let dir: c_int = if forward { -1 } else { 1 };
    // SAFETY: forwarded from the caller: `input`/`output` address the batch in the types
    // the plan's kind and precision name.
    let status = unsafe {
        match (plan.kind, plan.double) {
            (FftKind::C2C, false) => sys::cufftExecC2C(h, input as _, output as _, dir),
            (FftKind::C2C, true) => sys::cufftExecZ2Z(h, input as _, output as _, dir),
            (FftKind::R2C, false) => sys::cufftExecR2C(h, input as _, output as _),
            (FftKind::R2C, true) => sys::cufftExecD2Z(h, input as _, output as _),
            (FftKind::C2R, false) => sys::cufftExecC2R(h, input as _, output as _),
            (FftKind::C2R, true) => sys::cufftExecZ2D(h, input as _, output as _),
        }
    };
    check(status, "cufftExec")
}
