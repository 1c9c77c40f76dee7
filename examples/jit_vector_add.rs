//! Seeds 000/001 ("Raw CUDA Kernels"): `vector_add` written in Rust, one generic kernel
//! (`#[cuprum::kernel] fn vector_add<T: Num>`) instantiated for float32 (seed 000) and
//! float64 (seed 001), 1e6 elements each, checked exactly against the host. `--source`
//! prints the CUDA C++ template.
use cuprum::kernel::JitConfig;
use cuprum::{Array, DType, random};

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod kernels;
use kernels::vector_add;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", vector_add::program());
        return Ok(());
    }
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!(
            "jit_vector_add: no GPU here ({why}); nothing to run (--source prints the kernel)"
        );
        return Ok(());
    }
    let n = 1_000_000usize;
    let cfg = JitConfig::for_len(n, 256);
    let a = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let b = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let mut c = Array::empty(&[n], DType::F32)?;
    vector_add::launch::<f32>(cfg, &a, &b, &mut c, n as i32)?;
    let (ha, hb, hc) = (a.to_vec::<f32>()?, b.to_vec::<f32>()?, c.to_vec::<f32>()?);
    let bad32 = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    let a = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let b = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let mut c = Array::empty(&[n], DType::F64)?;
    vector_add::launch::<f64>(cfg, &a, &b, &mut c, n as i32)?;
    let (ha, hb, hc) = (a.to_vec::<f64>()?, b.to_vec::<f64>()?, c.to_vec::<f64>()?);
    let bad64 = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    println!(
        "jit_vector_add: float32 and float64, {bad32} + {bad64} mismatches of {n} each; c[0..3] = {:?}",
        &hc[..3]
    );
    if bad32 + bad64 > 0 {
        std::process::exit(1);
    }
    Ok(())
}
