//! GEMM on the host device: `matrixmultiply`'s blocked, vectorised kernels, one call per
//! matrix of the batch, batches spread over the host device's workers.

use crate::runtime::backend::{BlasFloat, Gemm, GemmInput};

/// The row and column strides (in elements) of `op(X)` for a column-major `X` with leading
/// dimension `ld`.
fn strides(x: &GemmInput) -> (isize, isize) {
    if x.trans {
        (x.ld as isize, 1)
    } else {
        (1, x.ld as isize)
    }
}

/// Runs the GEMM `g` to completion.
///
/// # Safety
/// As for `DeviceBackend::gemm`, with host addresses.
pub(crate) unsafe fn gemm(g: &Gemm) {
    let (m, n, k) = (
        g.m.max(0) as usize,
        g.n.max(0) as usize,
        g.k.max(0) as usize,
    );
    let (rsa, csa) = strides(&g.a);
    let (rsb, csb) = strides(&g.b);
    let (rsc, csc) = (1isize, g.ldc as isize);
    let one = |i: usize| {
        let (ia, ib, ic) = (
            g.a.stride as isize * i as isize,
            g.b.stride as isize * i as isize,
            g.stride_c as isize * i as isize,
        );
        // SAFETY: the caller guarantees matrix `i` of each operand lies in live memory
        // with these dimensions and strides, and that the outputs do not overlap.
        unsafe {
            match g.float {
                BlasFloat::F32 => matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    1.0,
                    (g.a.ptr as *const f32).offset(ia),
                    rsa,
                    csa,
                    (g.b.ptr as *const f32).offset(ib),
                    rsb,
                    csb,
                    0.0,
                    (g.c as *mut f32).offset(ic),
                    rsc,
                    csc,
                ),
                BlasFloat::F64 => matrixmultiply::dgemm(
                    m,
                    k,
                    n,
                    1.0,
                    (g.a.ptr as *const f64).offset(ia),
                    rsa,
                    csa,
                    (g.b.ptr as *const f64).offset(ib),
                    rsb,
                    csb,
                    0.0,
                    (g.c as *mut f64).offset(ic),
                    rsc,
                    csc,
                ),
            }
        }
    };
    let batch = g.batch.max(0) as usize;
    if batch <= 1 {
        if batch == 1 {
            one(0);
        }
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    super::launch::on_workers(&|| {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= batch {
                return;
            }
            one(i);
        }
    });
}
