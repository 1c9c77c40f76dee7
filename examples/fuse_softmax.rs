//! Softmax over the rows of a matrix with `cuprum::fuse`: `exp(x - max) / sum(exp(x - max))`
//! along the last axis. A reduced value is used again on the row's elements, so the plan is
//! three kernels (row maxima, row sums of the exponentials, the quotient), which `explain`
//! prints. On (1000, 1000) normal float32 of scale 3, against a float64 host softmax
//! (relative 1e-5 per element; every row sums to 1 within 1e-5).
use cuprum::{DType, random};

#[path = "fused/functions.rs"]
mod functions;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("fuse_softmax: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let softmax = functions::softmax_rows();
    let (rows, cols) = (1000usize, 1000usize);
    let x = random::normal(0.0, 3.0, &[rows, cols], DType::F32)?;
    let y = softmax.call((&x,))?;
    let plan = softmax.explain((&x,))?;
    print!("{}", plan.summary());

    let (hx, hy) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?);
    let mut bad = 0usize;
    let mut worst_sum = 0.0f64;
    for r in 0..rows {
        let row = &hx[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        let mut sum = 0.0f64;
        for c in 0..cols {
            let (g, w) = (hy[r * cols + c] as f64, e[c] / s);
            sum += g;
            if (g - w).abs() > 1e-5 * w + 1e-12 {
                bad += 1;
            }
        }
        worst_sum = worst_sum.max((sum - 1.0).abs());
    }
    let ok =
        bad == 0 && worst_sum <= 1e-5 && plan.kernels().len() == 3 && y.shape() == [rows, cols];
    println!(
        "fuse_softmax: (1000, 1000) rows in {} kernels: {bad} elements off, rows sum to 1 within \
         {worst_sum:.1e}: {}",
        plan.kernels().len(),
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
