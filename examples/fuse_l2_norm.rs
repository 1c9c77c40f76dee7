//! The L2 norm with `cuprum::fuse`: `sqrt(sum(x * x))` is one ReductionKernel with the square
//! root in its final stage (the seed's `l2_norm_squared` ReductionKernel needs a second
//! call for the root). On 1e7 normal float64 (against a compensated host sum, relative
//! 1e-12) and per row of a (2, 5) float32 `arange` (√30 and √255, relative 1e-6).
use cuprum::{Array, DType, random};

#[path = "fused/functions.rs"]
mod functions;

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
        println!("fuse_l2_norm: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let (l2_norm, l2_norm_rows) = (functions::l2_norm(), functions::l2_norm_rows());
    let x = random::normal(0.0, 1.0, &[10_000_000], DType::F64)?;
    let norm = l2_norm.call((&x,))?;
    let got = norm.to_vec::<f64>()?[0];
    let host = host_ssq(x.to_vec::<f64>()?).sqrt();

    let m = Array::arange(0.0, 10.0, 1.0, DType::F32)?.reshape(&[2, 5])?;
    let rows = l2_norm_rows.call((&m,))?;
    let got_rows = rows.to_vec::<f32>()?;
    let want_rows = [30f64.sqrt(), 255f64.sqrt()];
    let rows_ok = rows.shape() == [2]
        && rows.dtype() == DType::F32
        && got_rows
            .iter()
            .zip(&want_rows)
            .all(|(&g, &w)| close(g as f64, w, 1e-6));
    let ok = norm.ndim() == 0 && close(got, host, 1e-12) && rows_ok;
    println!(
        "fuse_l2_norm: ‖1e7 randn‖ = {got:.9} (host {host:.9}); rows of arange(10).reshape(2, 5): \
         {got_rows:?}: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
