//! Seed: "RawKernel — matrix multiply" (M, N, K = 1024, 1024, 512, 16×16 blocks), checked
//! against a CPU reference.
use cuprum::{Array, DType, RawKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("matrix_multiply: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let mm = RawKernel::new(
        include_str!("kernels/matrix_multiply.cu"),
        "matrix_multiply",
    );
    let (m, n, k) = (1024usize, 1024usize, 512usize);
    let a = random::random(&[m, k], DType::F32)?;
    let b = random::random(&[k, n], DType::F32)?;
    let c = Array::zeros(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    mm.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, k as i32))?;
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
        "matrix_multiply: C[0,0] = {:.4}, worst relative error vs CPU {worst:.2e}: {}",
        hc[0],
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
