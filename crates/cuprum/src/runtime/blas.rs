//! GEMM for the ops layer, on whichever backend runs the stream (cuBLAS on a GPU,
//! `matrixmultiply` on the host device), and the cuBLAS version.

use super::backend::Gemm;
use super::device::Device;
use super::stream::Stream;
use crate::error::Result;

/// Queues the GEMM `g` on `stream`.
///
/// # Safety
///
/// For every `i < g.batch`: `g.a.ptr + i * g.a.stride` (in elements) must address a matrix
/// of the dimensions and leading dimension `g.a` describes (`op(A)` is `m × k`), likewise
/// for `b`, and `g.c + i * g.stride_c` an `m × n` matrix with leading dimension `ldc`, all
/// in live device memory of the stream's device holding elements of `g.float`, with the
/// output not overlapping the inputs or another output matrix. The memory must stay
/// allocated until the work queued on `stream` is done.
pub(crate) unsafe fn gemm(stream: &Stream, g: &Gemm) -> Result<()> {
    stream.device().check_fault()?;
    // SAFETY: forwarded from the caller.
    unsafe { stream.device().backend().gemm(g, stream.raw()) }
}

/// The version of the loaded cuBLAS (e.g. `130001` for 13.0.1), using the current device
/// (a [`Blas`](crate::ErrorKind::Blas) error on the host device, which multiplies without
/// it).
///
/// ```
/// # if !cuprum_doctest::gpu()? { return Ok(()); }
/// let v = cuprum::runtime::cublas_version()?;
/// println!("cuBLAS {}.{}.{}", v / 10000, v / 100 % 100, v % 100);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cublas_version() -> Result<i32> {
    let device = Device::current()?;
    device.check_fault()?;
    device.backend().blas_version()
}
