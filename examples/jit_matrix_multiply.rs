//! Seed 002 ("matrix_multiply_kernel") written in Rust: the naive product (M, N, K = 1024,
//! 1024, 512, 16×16 blocks), checked against a CPU reference. `--source` prints the C++.
use cuprum::{Array, DType, random};

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod kernels;
use kernels::matrix_multiply;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", matrix_multiply::program());
        return Ok(());
    }
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!(
            "jit_matrix_multiply: no GPU here ({why}); nothing to run (--source prints the kernel)"
        );
        return Ok(());
    }
    let (m, n, k) = (1024usize, 1024usize, 512usize);
    let a = random::random(&[m, k], DType::F32)?;
    let b = random::random(&[k, n], DType::F32)?;
    let mut c = Array::zeros(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    matrix_multiply::launch(
        (grid, (16, 16)),
        &a,
        &b,
        &mut c,
        m as i32,
        n as i32,
        k as i32,
    )?;
    let (ha, hb, hc) = (a.to_vec::<f32>()?, b.to_vec::<f32>()?, c.to_vec::<f32>()?);
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let r: f64 = (0..k)
                .map(|p| ha[i * k + p] as f64 * hb[p * n + j] as f64)
                .sum();
            worst = worst.max((hc[i * n + j] as f64 - r).abs() / r.abs().max(1.0));
        }
    }
    let ok = worst < 1e-4;
    println!(
        "jit_matrix_multiply: C[0,0] = {:.4}, worst relative error vs CPU {worst:.2e}: {}",
        hc[0],
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
