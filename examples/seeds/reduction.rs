//! The ReductionKernel seeds (001, 002, 003): each kernel defined once, with its data and its
//! check. A module of `seeds` (mod.rs).

use super::check::{Checked, close, kahan, list};
use cuprum::DType::{F32, F64};
use cuprum::{Array, ReductionKernel, ops, random};

type R<T> = cuprum::Result<T>;

/// Seed 002 "Custom ReductionKernel" (`sum_of_squares`; the seed's '0' and name sit in the
/// post-map and identity positions, so post-map `out = a`, identity `0` as intended).
pub fn sum_of_squares_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float32 x",
        "float32 out",
        "x * x",
        "a + b",
        "out = a",
        Some("0"),
        "sum_of_squares",
    )
}

/// Float32 [1, 2, 3, 4, 5] → exactly 55, of shape ().
pub fn sum_of_squares() -> R<Checked> {
    let k = sum_of_squares_kernel()?;
    let data = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
    let r = k.call((&data,))?;
    let v = r.to_vec::<f32>()?;
    Ok(Checked {
        result: format!("{} (shape {:?})", list(&v), r.shape()),
        ok: r.shape().is_empty() && v == [55.0],
        timed: Box::new(move || k.call((&data,)).map(drop)),
    })
}

/// The same with `axis=1` on the (1, 5) reshape: [55] of shape (1,).
pub fn sum_of_squares_axis() -> R<Checked> {
    let k = sum_of_squares_kernel()?;
    let data = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?.reshape(&[1, -1])?;
    let r = k.axis(1).call((&data,))?;
    let v = r.to_vec::<f32>()?;
    Ok(Checked {
        result: format!("{} (shape {:?}) from (1, 5)", list(&v), r.shape()),
        ok: r.shape() == [1] && v == [55.0],
        timed: Box::new(move || k.axis(1).call((&data,)).map(drop)),
    })
}

/// Seed 002 "Custom ReductionKernel" (`weighted_mean`'s first pass): `x * w` summed.
pub fn weighted_sum_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float32 x, float32 w",
        "float32 out",
        "x * w",
        "a + b",
        "out = a",
        Some("0"),
        "weighted_sum",
    )
}

/// Both sums of the weighted mean in one `float2` accumulator, two outputs.
pub fn weighted_sums_kernel() -> R<ReductionKernel> {
    Ok(ReductionKernel::new(
        "float32 x, float32 w",
        "float32 weighted_sum, float32 total_weight",
        "make_float2(x * w, w)",
        "make_float2(a.x + b.x, a.y + b.y)",
        "weighted_sum = a.x; total_weight = a.y",
        Some("make_float2(0, 0)"),
        "weighted_sums",
    )?
    .reduce_type("float2"))
}

/// Host weighted mean in double precision.
fn host_weighted_mean(x: &[f32], w: &[f32]) -> f64 {
    let s: f64 = x.iter().zip(w).map(|(&x, &w)| x as f64 * w as f64).sum();
    s / w.iter().map(|&w| w as f64).sum::<f64>()
}

/// The seed's two passes (the `weighted_sum` kernel, `sum(w)`, the quotient, on the GPU)
/// and one pass with the `float2` accumulator, on [1, 2, 3, 4] with weights
/// [0.1, 0.2, 0.3, 0.4] (3.0) and on 1e6 random values, against the host in double
/// precision. Timed: the two passes on 1e6.
pub fn weighted_mean() -> R<Checked> {
    let (weighted_sum, sums) = (weighted_sum_kernel()?, weighted_sums_kernel()?);
    let two_pass_array = move |x: &Array, w: &Array| -> R<Array> {
        ops::divide(&weighted_sum.call((x, w))?, &ops::sum(w)?)
    };
    let two_pass = |x: &Array, w: &Array| -> R<f32> { Ok(two_pass_array(x, w)?.to_vec()?[0]) };
    let one_pass = |x: &Array, w: &Array| -> R<f32> {
        let outs = sums.call_all((x, w))?;
        Ok(outs[0].to_vec::<f32>()?[0] / outs[1].to_vec::<f32>()?[0])
    };
    let (hv, hw) = ([1.0f32, 2.0, 3.0, 4.0], [0.1f32, 0.2, 0.3, 0.4]);
    let (values, weights) = (Array::from_slice(&hv, &[4])?, Array::from_slice(&hw, &[4])?);
    let seed_ref = host_weighted_mean(&hv, &hw);
    let (seed_two, seed_one) = (two_pass(&values, &weights)?, one_pass(&values, &weights)?);
    let n = 1_000_000usize;
    let x = random::uniform(0.0, 10.0, &[n], F32)?;
    let w = random::uniform(0.5, 1.5, &[n], F32)?;
    let big_ref = host_weighted_mean(&x.to_vec::<f32>()?, &w.to_vec::<f32>()?);
    let (big_two, big_one) = (two_pass(&x, &w)?, one_pass(&x, &w)?);
    // float32 sums: a few roundings on the seed's arrays, a tree of 1e6 terms otherwise.
    let ok = [
        (seed_two, seed_ref, 1e-6),
        (seed_one, seed_ref, 1e-6),
        (big_two, big_ref, 1e-5),
        (big_one, big_ref, 1e-5),
    ]
    .iter()
    .all(|&(v, r, tol)| close(v as f64, r, tol));
    Ok(Checked {
        result: format!(
            "{seed_two} (one pass {seed_one}); 1e6 random {big_two:.5} (host {big_ref:.5})"
        ),
        ok,
        timed: Box::new(move || two_pass_array(&x, &w).map(drop)),
    })
}

/// Seed 001 "Definition: ReductionKernel" (`l2_norm_squared`): `y = a`, the root after.
pub fn l2_norm_sq_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float64 x",
        "float64 y",
        "x * x",
        "a + b",
        "y = a",
        Some("0"),
        "l2_norm_sq",
    )
}

/// The norm in one kernel: `y = sqrt(a)`, for any dtype `T`.
pub fn l2norm_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "l2norm",
    )
}

/// `l2_norm_sq` on 1e7 normal float64 then `sqrt` on the GPU, and the one-kernel
/// `y = sqrt(a)` on the same array and per row of a (2, 5) float32 `arange`; compensated
/// host sums (rtol 1e-12, 1e-6 for float32). Timed: the seed's `l2_norm_sq` + `sqrt`.
pub fn l2_norm() -> R<Checked> {
    let (sq_kernel, norm_kernel) = (l2_norm_sq_kernel()?, l2norm_kernel()?);
    let seed_norm = |k: &ReductionKernel, x: &Array| -> R<Array> { ops::sqrt(&k.call((x,))?) };
    let x = random::normal(0.0, 1.0, &[10_000_000], F64)?;
    let norm = seed_norm(&sq_kernel, &x)?.to_vec::<f64>()?[0];
    let norm_one = norm_kernel.call((&x,))?.to_vec::<f64>()?[0];
    let host_norm = kahan(x.to_vec::<f64>()?.iter().map(|v| v * v)).sqrt();
    let m = Array::arange(0.0, 10.0, 1.0, F32)?.reshape(&[2, 5])?;
    let rows = norm_kernel.axis(1).call((&m,))?;
    let got_rows = rows.to_vec::<f32>()?;
    let host_rows = [30.0f64.sqrt(), 255.0f64.sqrt()];
    let rows_ok = rows.shape() == [2]
        && got_rows
            .iter()
            .zip(&host_rows)
            .all(|(&g, &h)| close(g as f64, h, 1e-6));
    let ok = close(norm, host_norm, 1e-12) && close(norm_one, host_norm, 1e-12) && rows_ok;
    Ok(Checked {
        result: format!(
            "‖1e7 randn‖ = {norm:.4}; rows [{:.4}, {:.4}]",
            got_rows[0], got_rows[1]
        ),
        ok,
        timed: Box::new(move || seed_norm(&sq_kernel, &x).map(drop)),
    })
}

/// Seed 003 "mse_reduc.py": `mse_out = a / _in_ind.size()`, for any dtype `T`.
pub fn mse_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "T y_pred, T y_true",
        "T mse_out",
        "(y_pred - y_true) * (y_pred - y_true)",
        "a + b",
        "mse_out = a / _in_ind.size()",
        Some("0"),
        "mse_kernel",
    )
}

/// The seed's data for `n` samples: `y_true` uniform in [0, 100) and
/// `y_pred = y_true + noise` with normal noise of scale 5 (so the MSE is about 25), float64,
/// on the current device.
pub fn mse_data(n: usize) -> R<(Array, Array)> {
    let y_true = random::uniform(0.0, 100.0, &[n], F64)?;
    let noise = random::normal(0.0, 5.0, &[n], F64)?;
    let y_pred = (&y_true + &noise)?;
    Ok((y_true, y_pred))
}

/// `mse_kernel` on the seed's 1e7 samples, called as the seed calls it
/// (`mse_kernel(y_true, y_pred)`), rtol 1e-12 against a compensated host sum.
pub fn mse() -> R<Checked> {
    let k = mse_kernel()?;
    let n = 10_000_000usize;
    let (y_true, y_pred) = mse_data(n)?;
    let mse = k.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let (ht, hp) = (y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?);
    let host = kahan(ht.iter().zip(&hp).map(|(t, p)| (p - t) * (p - t))) / n as f64;
    Ok(Checked {
        result: format!("MSE of 1e7 = {mse:.6} (host {host:.6})"),
        ok: close(mse, host, 1e-12),
        timed: Box::new(move || k.call((&y_true, &y_pred)).map(drop)),
    })
}
