//! Seed: "Definition: ReductionKernel" (001) — `l2_norm_squared` (`l2_norm_sq`: float64
//! `x * x` reduced with `a + b`, post-map `y = a`, identity 0) on 1e7 normal float64, the L2
//! norm then taken as in the seed with a square root of the result on the GPU
//! (`ops::sqrt`); and the one-kernel L2 norm with the post-map `y = sqrt(a)`, on the same
//! array and per row of a (2, 5) float32 `arange` with `axis=1` (√30, √255). Checked
//! against compensated host sums in double precision (relative 1e-12 for float64, 1e-6 for
//! float32).
use cuprum::{Array, DType, ReductionKernel, ops, random};

/// Kahan-compensated sum of squares.
fn host_ssq(x: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for v in x {
        let y = v * v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}

fn close(v: f64, r: f64, rtol: f64) -> bool {
    (v - r).abs() <= rtol * r.abs()
}

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("l2_norm: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let l2_norm_squared = ReductionKernel::new(
        "float64 x",
        "float64 y",
        "x * x",
        "a + b",
        "y = a",
        Some("0"),
        "l2_norm_sq",
    )?;
    let l2norm = ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "l2norm",
    )?;

    let x = random::normal(0.0, 1.0, &[10_000_000], DType::F64)?;
    let result = l2_norm_squared.call((&x,))?;
    let sq = result.to_vec::<f64>()?[0];
    let norm = ops::sqrt(&result)?.to_vec::<f64>()?[0];
    let norm_one = l2norm.call((&x,))?.to_vec::<f64>()?[0];
    let host_sq = host_ssq(x.to_vec::<f64>()?);
    let host_norm = host_sq.sqrt();

    let m = Array::arange(0.0, 10.0, 1.0, DType::F32)?.reshape(&[2, 5])?;
    let rows = l2norm.axis(1).call((&m,))?;
    let hm = m.to_vec::<f32>()?;
    let host_rows: Vec<f64> = hm
        .chunks(5)
        .map(|r| host_ssq(r.iter().map(|&v| v as f64)).sqrt())
        .collect();
    let got_rows = rows.to_vec::<f32>()?;
    let rows_ok = rows.shape() == [2]
        && got_rows
            .iter()
            .zip(&host_rows)
            .all(|(&g, &h)| close(g as f64, h, 1e-6));

    let ok = close(sq, host_sq, 1e-12)
        && close(norm, host_norm, 1e-12)
        && close(norm_one, host_norm, 1e-12)
        && rows_ok;
    println!(
        "l2_norm: 1e7 randn: squared {sq:.6}, norm {norm:.9} (y = sqrt(a): {norm_one:.9}, host \
         {host_norm:.9}); rows of arange(10).reshape(2, 5): {got_rows:?}: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
