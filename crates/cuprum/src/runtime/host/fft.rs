//! FFT on the host device: `rustfft`'s planned transforms (any length: mixed radix, Rader,
//! Bluestein), one axis at a time, lines spread over the host device's workers.
//!
//! A multi-axis transform is separable, so each axis is a batch of 1-D transforms of its
//! lines: lines along the last axis are contiguous and transformed where they lie; lines
//! along another axis are gathered a few at a time into a buffer and scattered back. Real
//! transforms go through the last axis first (R2C: the real lines become complex lines,
//! of which the first `n / 2 + 1` values are kept, and the other axes are transformed on
//! that half) or last (C2R: the other axes are transformed back on a copy of the half
//! spectrum, then each line is completed by Hermitian symmetry, `Y[k] = conj(y[n - k])`,
//! transformed and its real part kept: the imaginary parts of `y[0]` and, for even `n`,
//! `y[n / 2]` drop out, as NumPy's `irfft` drops them). Plans come from one planner per
//! precision, which keeps them for the process.

use super::launch::on_workers;
use crate::runtime::backend::{FftKind, FftPlan};
use num_complex::Complex;
use rustfft::num_traits::Zero;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A float type with a process-wide planner.
trait Planned: FftNum {
    fn planner() -> &'static Mutex<FftPlanner<Self>>;
}

impl Planned for f32 {
    fn planner() -> &'static Mutex<FftPlanner<f32>> {
        static P: OnceLock<Mutex<FftPlanner<f32>>> = OnceLock::new();
        P.get_or_init(|| Mutex::new(FftPlanner::new()))
    }
}

impl Planned for f64 {
    fn planner() -> &'static Mutex<FftPlanner<f64>> {
        static P: OnceLock<Mutex<FftPlanner<f64>>> = OnceLock::new();
        P.get_or_init(|| Mutex::new(FftPlanner::new()))
    }
}

fn plan_of<T: Planned>(n: usize, forward: bool) -> Arc<dyn Fft<T>> {
    let dir = if forward {
        FftDirection::Forward
    } else {
        FftDirection::Inverse
    };
    let mut p = T::planner().lock().unwrap_or_else(|e| e.into_inner());
    p.plan_fft(n, dir)
}

/// A pointer the workers share; each unit of work touches elements no other unit touches.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);

impl<T> Shared<T> {
    /// The pointer (a method, so that closures capture the whole `Shared`, not its field).
    /// Element `i`'s address (dereferencing it is the caller's business).
    fn at(self, i: usize) -> *mut T {
        self.0.wrapping_add(i)
    }
}

// SAFETY: the workers write disjoint elements through it (each unit of work owns its
// lines), and the memory outlives `on_workers`, which returns after every worker is done.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

/// Runs `unit(i)` for `i < units` on the workers, each `i` once.
fn for_each_unit(units: usize, unit: &(dyn Fn(usize) + Sync)) {
    let next = AtomicUsize::new(0);
    on_workers(&|| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= units {
                return;
            }
            unit(i);
        }
    });
}

/// Transforms, in place, every line along the middle axis of `data` seen as an
/// `(outer, n, inner)` array.
///
/// # Safety
/// `data` addresses `outer * n * inner` complex values no other thread touches meanwhile.
unsafe fn transform_axis<T: Planned>(
    data: *mut Complex<T>,
    (outer, n, inner): (usize, usize, usize),
    forward: bool,
) {
    if n <= 1 || outer * inner == 0 {
        return;
    }
    let fft = plan_of::<T>(n, forward);
    let data = Shared(data);
    if inner == 1 {
        // Contiguous lines: a few at a time where they lie.
        let per = (1usize << 16).div_ceil(n).max(1);
        let units = outer.div_ceil(per);
        for_each_unit(units, &|u| {
            let first = u * per;
            let lines = per.min(outer - first);
            let mut scratch = vec![Complex::zero(); fft.get_inplace_scratch_len()];
            // SAFETY: lines `first..first + lines` lie inside `data` (caller) and belong to
            // this unit alone.
            let buf = unsafe { std::slice::from_raw_parts_mut(data.at(first * n), lines * n) };
            fft.process_with_scratch(buf, &mut scratch);
        });
        return;
    }
    // Strided lines: `CHUNK` neighbours gathered into a buffer, transformed, put back.
    const CHUNK: usize = 8;
    let chunks = inner.div_ceil(CHUNK);
    for_each_unit(outer * chunks, &|u| {
        let (o, c) = (u / chunks, u % chunks);
        let i0 = c * CHUNK;
        let width = CHUNK.min(inner - i0);
        let base = o * n * inner + i0;
        let mut buf = vec![Complex::zero(); n * width];
        let mut scratch = vec![Complex::zero(); fft.get_inplace_scratch_len()];
        for k in 0..n {
            for j in 0..width {
                // SAFETY: `base + k * inner + j` < `(o + 1) * n * inner`, inside `data`; the
                // unit owns lines `i0..i0 + width` of block `o`.
                buf[j * n + k] = unsafe { *data.at(base + k * inner + j) };
            }
        }
        fft.process_with_scratch(&mut buf, &mut scratch);
        for k in 0..n {
            for j in 0..width {
                // SAFETY: as above.
                unsafe { *data.at(base + k * inner + j) = buf[j * n + k] };
            }
        }
    });
}

/// Transforms, in place, axes `0..axes` of each of the `batch` arrays of shape `shape`
/// that lie one after the other at `data`.
///
/// # Safety
/// `data` addresses `batch * product(shape)` complex values no other thread touches.
unsafe fn transform_leading<T: Planned>(
    data: *mut Complex<T>,
    batch: usize,
    shape: &[usize],
    axes: usize,
    forward: bool,
) {
    for a in 0..axes {
        let outer = batch * shape[..a].iter().product::<usize>();
        let inner: usize = shape[a + 1..].iter().product();
        // SAFETY: forwarded; `outer * shape[a] * inner` is every value of the batch.
        unsafe { transform_axis(data, (outer, shape[a], inner), forward) };
    }
}

/// Runs the transforms `plan` describes to completion.
///
/// # Safety
/// As for `DeviceBackend::fft`, with host addresses.
pub(crate) unsafe fn fft(plan: &FftPlan, input: u64, output: u64, forward: bool) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if plan.double {
            run::<f64>(plan, input, output, forward);
        } else {
            run::<f32>(plan, input, output, forward);
        }
    }
}

/// # Safety
/// As for [`fft`].
unsafe fn run<T: Planned>(plan: &FftPlan, input: u64, output: u64, forward: bool) {
    let dims = &plan.dims;
    let r = dims.len();
    let n = dims[r - 1];
    let m = n / 2 + 1;
    let lines = plan.batch * dims[..r - 1].iter().product::<usize>();
    let (ins, outs) = plan.elements();
    match plan.kind {
        FftKind::C2C => {
            let out = output as *mut Complex<T>;
            if input != output {
                // SAFETY: both address `batch * ins` complex values and do not overlap
                // (caller).
                unsafe {
                    std::ptr::copy_nonoverlapping(input as *const Complex<T>, out, plan.batch * ins)
                };
            }
            // SAFETY: `out` holds the batch (caller).
            unsafe { transform_leading(out, plan.batch, dims, r, forward) };
        }
        FftKind::R2C => {
            let (src, out) = (Shared(input as *mut T), Shared(output as *mut Complex<T>));
            let fft = plan_of::<T>(n, true);
            for_each_unit(lines, &|l| {
                let mut buf: Vec<Complex<T>> = (0..n)
                    // SAFETY: line `l` of the input holds `n` reals (caller).
                    .map(|k| Complex::new(unsafe { *src.at(l * n + k) }, T::zero()))
                    .collect();
                fft.process(&mut buf);
                // SAFETY: line `l` of the output holds `m` values, owned by this unit.
                let dst = unsafe { std::slice::from_raw_parts_mut(out.at(l * m), m) };
                dst.copy_from_slice(&buf[..m]);
            });
            let mut half: smallvec::SmallVec<[usize; 3]> = dims.clone();
            half[r - 1] = m;
            // SAFETY: the output holds `batch * outs` values of that shape (caller).
            unsafe { transform_leading(out.0, plan.batch, &half, r - 1, true) };
            debug_assert_eq!(outs, half.iter().product::<usize>());
        }
        FftKind::C2R => {
            // SAFETY: the input holds `batch * ins` complex values (caller); the copy keeps
            // the caller's input as it was.
            let mut spec: Vec<Complex<T>> =
                unsafe { std::slice::from_raw_parts(input as *const Complex<T>, plan.batch * ins) }
                    .to_vec();
            let mut half: smallvec::SmallVec<[usize; 3]> = dims.clone();
            half[r - 1] = m;
            // SAFETY: `spec` holds the batch of half spectra.
            unsafe { transform_leading(spec.as_mut_ptr(), plan.batch, &half, r - 1, false) };
            let (sp, out) = (Shared(spec.as_mut_ptr()), Shared(output as *mut T));
            let fft = plan_of::<T>(n, false);
            for_each_unit(lines, &|l| {
                // SAFETY: line `l` of `spec` holds `m` values.
                let y = unsafe { std::slice::from_raw_parts(sp.at(l * m), m) };
                let mut buf: Vec<Complex<T>> = (0..n)
                    .map(|k| if k < m { y[k] } else { y[n - k].conj() })
                    .collect();
                fft.process(&mut buf);
                for (k, v) in buf.iter().enumerate() {
                    // SAFETY: line `l` of the output holds `n` reals, owned by this unit.
                    unsafe { *out.at(l * n + k) = v.re };
                }
            });
            debug_assert_eq!(outs, dims.iter().product::<usize>());
        }
    }
}
