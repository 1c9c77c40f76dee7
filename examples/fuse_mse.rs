//! Seed 003's mean squared error written with `cuprum::fuse`, beside the seed's
//! ReductionKernel (`mse_kernel`, examples/mse.rs): the idiom `mean((y_true - y_pred) ** 2)`
//! becomes one ReductionKernel (map `d * d`, post-map `/ n`). On the seed's data (1e7
//! float64 `y_true` uniform in [0, 100), `y_pred = y_true + noise`, normal noise of scale 5,
//! so the MSE is about 25); both results are checked against a compensated host sum
//! (relative 1e-12) and against each other.
#[path = "fused/functions.rs"]
mod functions;
#[path = "seeds/mod.rs"]
mod seeds;
use seeds::{check, reduction};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("fuse_mse: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let mse_kernel = reduction::mse_kernel()?;
    let mse = functions::mse();
    let n_samples = 10_000_000usize;
    let (y_true, y_pred) = reduction::mse_data(n_samples)?;
    let fused = mse.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let seed = mse_kernel.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let kernels = mse.explain((&y_true, &y_pred))?.kernels().len();

    let (t, p) = (y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?);
    let host = check::kahan(t.iter().zip(&p).map(|(t, p)| (t - p) * (t - p))) / n_samples as f64;
    let rel = |v: f64| (v - host).abs() / host;
    let ok = rel(fused) <= 1e-12
        && rel(seed) <= 1e-12
        && (fused - seed).abs() <= 1e-12 * host
        && (20.0..30.0).contains(&fused)
        && kernels == 1;
    println!(
        "fuse_mse: fused MSE {fused} in {kernels} kernel (ReductionKernel {seed}, host {host}; \
         relative differences {:.1e}, {:.1e}): {}",
        rel(fused),
        rel(seed),
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
