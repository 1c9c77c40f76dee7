//! Seed: "mse_reduc.py" (003) — `mse_kernel`, the mean squared error of two arrays as one
//! ReductionKernel: `(y_pred - y_true) * (y_pred - y_true)` reduced with `a + b`, divided in
//! the post-map by `_in_ind.size()` (the number of reduced elements). On the seed's data:
//! 1e7 float64 `y_true` uniform in [0, 100), `y_pred = y_true + noise` with normal noise of
//! scale 5 (so the MSE is about 25), compared with a compensated host sum (relative 1e-12).
use cuprum::{DType, ReductionKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("mse: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let mse_kernel = ReductionKernel::new(
        "T y_pred, T y_true",
        "T mse_out",
        "(y_pred - y_true) * (y_pred - y_true)",
        "a + b",
        "mse_out = a / _in_ind.size()",
        Some("0"),
        "mse_kernel",
    )?;
    let n_samples = 10_000_000usize;
    let y_true = random::uniform(0.0, 100.0, &[n_samples], DType::F64)?;
    let noise = random::normal(0.0, 5.0, &[n_samples], DType::F64)?;
    let y_pred = (&y_true + &noise)?;
    // As in the seed: mse_kernel(y_cp_true, y_cp_pred).
    let mse = mse_kernel.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];

    let (t, p) = (y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?);
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for (t, p) in t.iter().zip(&p) {
        let y = (p - t) * (p - t) - c;
        let u = s + y;
        c = (u - s) - y;
        s = u;
    }
    let host = s / n_samples as f64;
    let ok = (mse - host).abs() <= 1e-12 * host && (20.0..30.0).contains(&mse);
    println!(
        "mse: MSE: {mse} (host {host}, relative difference {:.1e}): {}",
        (mse - host).abs() / host,
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
