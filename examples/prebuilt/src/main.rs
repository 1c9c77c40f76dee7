//! Rust kernels compiled during `cargo build` (see `build.rs`) and embedded in the binary:
//! on a GPU the program compiles nothing at run time and needs no NVRTC. It runs `saxpy`
//! and `scale` (float32 and float64) on random inputs, checks them against the CPU, and
//! prints how many kernels the bundle holds and how many NVRTC compiles the run made (on a
//! GPU the bundle covers, any compile is an error).
//! `CUPRUM_DEVICE=host` runs it on the CPU (the host device builds its kernels with the
//! C++ compiler; bundles are for GPUs).

mod kernels;

use cuprum::kernel::JitConfig;
use cuprum::runtime::CodeTarget;
use cuprum::{DType, Device, random};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bundle = cuprum::include_bundle!()?;
    println!(
        "bundle: {} kernels, {} images ({})",
        bundle.kernels(),
        bundle.images(),
        bundle.targets().join(", ")
    );
    let n = 100_003usize;
    let cfg = JitConfig::for_len(n, 256);
    let x = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let mut y = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let (hx, hy) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?);
    kernels::saxpy::launch(cfg, 1.5, &x, &mut y)?;
    let got = y.to_vec::<f32>()?;
    let bad_saxpy = (0..n)
        .filter(|&i| got[i] != 1.5f32.mul_add(hx[i], hy[i]) && got[i] != 1.5 * hx[i] + hy[i])
        .count();
    let mut z = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let hz = z.to_vec::<f32>()?;
    kernels::scale::launch::<f32>(cfg, &mut z, 0.25)?;
    let got = z.to_vec::<f32>()?;
    let bad_f32 = (0..n).filter(|&i| got[i] != hz[i] * 0.25).count();
    let mut w = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let hw = w.to_vec::<f64>()?;
    kernels::scale::launch::<f64>(cfg, &mut w, -3.0)?;
    let got = w.to_vec::<f64>()?;
    let bad_f64 = (0..n).filter(|&i| got[i] != hw[i] * -3.0).count();
    let bad = bad_saxpy + bad_f32 + bad_f64;
    println!("saxpy, scale<f32>, scale<f64> on {n} elements: {bad} differ from the CPU");
    let compiles = cuprum::internal::nvrtc_compiles();
    println!("nvrtc compiles: {compiles}");
    if bad != 0 {
        return Err(format!("{bad} results differ from the CPU").into());
    }
    // On a GPU the bundle covers (a cubin of its major, or the PTX), nothing compiles.
    let oldest = bundle
        .targets()
        .iter()
        .filter_map(|t| t.strip_prefix("sm_")?.parse::<u32>().ok())
        .min();
    if let (CodeTarget::Cuda(arch), Some(oldest)) = (Device::current()?.code_target(), oldest)
        && arch >= oldest
        && compiles > 0
    {
        return Err(format!(
            "{compiles} NVRTC compiles on sm_{arch}, although the embedded bundle holds every kernel"
        )
        .into());
    }
    Ok(())
}
