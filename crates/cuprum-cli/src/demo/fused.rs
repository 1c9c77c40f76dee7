//! The demo's `cuprum::fuse` cases: the `fuse_*` examples (their fused functions are shared
//! through examples/fused/functions.rs), each checked against a host reference and timed.

use super::outcome::{Outcome, gpu_time};
use super::program::Program;
use crate::seeds::check::{close, kahan};
use crate::seeds::reduction;
use cuprum::{DType, random};

#[path = "../../../../examples/fused/functions.rs"]
mod functions;

type R<T> = cuprum::Result<T>;

/// The kernels of the fused function at `index` of `functions::all_with_args()`.
fn programs_of(index: usize) -> R<Vec<Program>> {
    let all = functions::all_with_args();
    let Some((f, args)) = all.get(index) else {
        return Ok(Vec::new());
    };
    Ok(f.explain_for(args)?
        .kernels()
        .iter()
        .map(|k| Program {
            name: format!("{}.cu", k.name),
            source: k.source.clone(),
            name_expressions: Vec::new(),
        })
        .collect())
}

pub fn mse_programs() -> R<Vec<Program>> {
    programs_of(0)
}

pub fn l2_norm_programs() -> R<Vec<Program>> {
    let mut p = programs_of(1)?;
    p.extend(programs_of(2)?);
    Ok(p)
}

pub fn clipped_relu_programs() -> R<Vec<Program>> {
    programs_of(3)
}

pub fn softmax_programs() -> R<Vec<Program>> {
    programs_of(4)
}

/// Seed 003's MSE with `fuse` on the seed's data, equal to the seed's ReductionKernel and
/// to a compensated host sum (relative 1e-12).
pub fn mse() -> R<Outcome> {
    let f = functions::mse();
    let seed = reduction::mse_kernel()?;
    let n = 10_000_000usize;
    let (y_true, y_pred) = reduction::mse_data(n)?;
    let got = f.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let reduction = seed.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let (ht, hp) = (y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?);
    let host = kahan(ht.iter().zip(&hp).map(|(t, p)| (t - p) * (t - p))) / n as f64;
    let t = gpu_time(|| f.call((&y_true, &y_pred)).map(drop))?;
    Ok(Outcome {
        result: format!("fused MSE of 1e7 = {got:.6} (ReductionKernel {reduction:.6})"),
        ok: close(got, host, 1e-12) && close(got, reduction, 1e-12),
        gpu_seconds: t,
    })
}

/// `sqrt(sum(x * x))` in one kernel, of 1e7 randn and per row of a (2, 5) `arange`.
pub fn l2_norm() -> R<Outcome> {
    let (norm, rows) = (functions::l2_norm(), functions::l2_norm_rows());
    let x = random::normal(0.0, 1.0, &[10_000_000], DType::F64)?;
    let got = norm.call((&x,))?.to_vec::<f64>()?[0];
    let host = kahan(x.to_vec::<f64>()?.iter().map(|v| v * v)).sqrt();
    let m = cuprum::Array::arange(0.0, 10.0, 1.0, DType::F32)?.reshape(&[2, 5])?;
    let r = rows.call((&m,))?.to_vec::<f32>()?;
    let rows_ok = r.len() == 2
        && close(r[0] as f64, 30f64.sqrt(), 1e-6)
        && close(r[1] as f64, 255f64.sqrt(), 1e-6);
    let t = gpu_time(|| norm.call((&x,)).map(drop))?;
    Ok(Outcome {
        result: format!("‖1e7 randn‖ = {got:.4}; rows [{:.4}, {:.4}]", r[0], r[1]),
        ok: close(got, host, 1e-12) && rows_ok,
        gpu_seconds: t,
    })
}

/// `clip(x, 0, cap) * scale` in one pass over 1e7 float32, exact.
pub fn clipped_relu() -> R<Outcome> {
    let f = functions::clipped_relu_scale();
    let x = random::normal(0.0, 4.0, &[10_000_000], DType::F32)?;
    let y = f.call((&x, 6.0f32, 0.5f32))?;
    let (hx, hy) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?);
    let bad = hx
        .iter()
        .zip(&hy)
        .filter(|&(&x, &y)| y != x.clamp(0.0, 6.0) * 0.5)
        .count();
    let t = gpu_time(|| f.call((&x, 6.0f32, 0.5f32)).map(drop))?;
    Ok(Outcome {
        result: format!("1e7 float32, cap 6, scale 0.5: {bad} mismatches"),
        ok: bad == 0,
        gpu_seconds: t,
    })
}

/// Softmax over the rows of (1000, 1000) float32: a plan of three kernels, against a
/// float64 host softmax (relative 1e-5).
pub fn softmax() -> R<Outcome> {
    let f = functions::softmax_rows();
    let (rows, cols) = (1000usize, 1000usize);
    let x = random::normal(0.0, 3.0, &[rows, cols], DType::F32)?;
    let y = f.call((&x,))?.to_vec::<f32>()?;
    let hx = x.to_vec::<f32>()?;
    let mut bad = 0usize;
    for r in 0..rows {
        let row = &hx[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        bad += (0..cols)
            .filter(|&c| (y[r * cols + c] as f64 - e[c] / s).abs() > 1e-5 * e[c] / s + 1e-12)
            .count();
    }
    let kernels = f.explain((&x,))?.kernels().len();
    let t = gpu_time(|| f.call((&x,)).map(drop))?;
    Ok(Outcome {
        result: format!("(1000, 1000) rows in {kernels} kernels: {bad} elements off"),
        ok: bad == 0 && kernels == 3,
        gpu_seconds: t,
    })
}
