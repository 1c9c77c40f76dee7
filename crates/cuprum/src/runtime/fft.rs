//! Fourier transforms for the ops layer, on whichever backend runs the stream (cuFFT on a
//! GPU, `rustfft` on the host device), the cuFFT version and its plan cache.

use super::backend::FftPlan;
use super::cuda::cufft;
use super::device::Device;
use super::stream::Stream;
use crate::error::Result;

/// Queues the transforms `plan` describes on `stream` (`forward`: exponent sign -1).
///
/// # Safety
/// `input` and `output` address `plan.batch` times [`FftPlan::elements`] elements (of the
/// input's and the output's type) in live memory of the stream's device, the same address
/// (C2C only) or not overlapping; the memory must stay allocated until the work queued on
/// `stream` is done. A C2R transform may overwrite its input.
pub(crate) unsafe fn fft(
    stream: &Stream,
    plan: &FftPlan,
    input: u64,
    output: u64,
    forward: bool,
) -> Result<()> {
    stream.device().check_fault()?;
    // SAFETY: forwarded from the caller.
    unsafe {
        stream
            .device()
            .backend()
            .fft(plan, input, output, forward, stream.raw())
    }
}

/// The version of the loaded cuFFT (e.g. `12000` for 12.0.0), using the current device
/// (an [`Fft`](crate::ErrorKind::Fft) error on the host device, which transforms without
/// it).
///
/// ```
/// # if !cuprum_doctest::gpu()? { return Ok(()); }
/// let v = cuprum::runtime::cufft_version()?;
/// println!("cuFFT {}.{}.{}", v / 1000, v / 100 % 10, v % 100);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cufft_version() -> Result<i32> {
    let device = Device::current()?;
    device.check_fault()?;
    device.backend().fft_version()
}

/// How many cuFFT plans the process keeps (16 unless set): plans are keyed by device,
/// stream and transform, the least recently used destroyed beyond this many.
///
/// ```
/// let limit = cuprum::runtime::fft_plan_cache_limit();
/// assert!(cuprum::runtime::fft_plan_cache_len() <= limit);
/// ```
pub fn fft_plan_cache_limit() -> usize {
    cufft::plan_cache_limit()
}

/// Sets how many cuFFT plans the process keeps (0: none, each transform makes its plan
/// and destroys it), destroying the least recently used beyond `limit` now.
///
/// ```
/// let before = cuprum::runtime::fft_plan_cache_limit();
/// cuprum::runtime::set_fft_plan_cache_limit(4);
/// assert_eq!(cuprum::runtime::fft_plan_cache_limit(), 4);
/// cuprum::runtime::set_fft_plan_cache_limit(before);
/// ```
pub fn set_fft_plan_cache_limit(limit: usize) {
    cufft::set_plan_cache_limit(limit)
}

/// The cuFFT plans the process keeps now.
///
/// ```
/// cuprum::runtime::clear_fft_plan_cache();
/// assert_eq!(cuprum::runtime::fft_plan_cache_len(), 0);
/// ```
pub fn fft_plan_cache_len() -> usize {
    cufft::plan_cache_len()
}

/// Destroys every cached cuFFT plan (each frees its work area).
///
/// ```
/// cuprum::runtime::clear_fft_plan_cache();
/// assert_eq!(cuprum::runtime::fft_plan_cache_len(), 0);
/// ```
pub fn clear_fft_plan_cache() {
    cufft::clear_plan_cache()
}
