//! Seed: "Custom ReductionKernel" (002) — the weighted mean of float32 [1, 2, 3, 4] with
//! weights [0.1, 0.2, 0.3, 0.4] (3.0). As in the seed, in two passes: the `weighted_sum`
//! ReductionKernel (`x * w` reduced with `a + b`; the seed's '0' and name sit in the
//! post-map and identity positions, so as intended post-map `out = a`, identity `0`), the
//! sum of the weights (`ops::sum`, the seed's `cp.sum(weights)`) and their quotient on the
//! GPU. Then in one pass: a ReductionKernel whose accumulator is a
//! `float2` (sum of `w * x`, sum of `w`) with two outputs, both returned by `call_all`.
//! Checked against the host in double precision (relative 1e-6 on the seed's arrays, 1e-5 on
//! 1e6 random values and weights).
use cuprum::{Array, DType, ReductionKernel, ops, random};

/// Host weighted mean in double precision.
fn host_mean(x: &[f32], w: &[f32]) -> f64 {
    let s: f64 = x.iter().zip(w).map(|(&x, &w)| x as f64 * w as f64).sum();
    s / w.iter().map(|&w| w as f64).sum::<f64>()
}

/// Relative distance of `v` from `r`.
fn rel(v: f32, r: f64) -> f64 {
    (v as f64 - r).abs() / r.abs()
}

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("weighted_mean: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    // The seed's two passes.
    let weighted_mean = ReductionKernel::new(
        "float32 x, float32 w",
        "float32 out",
        "x * w",
        "a + b",
        "out = a",
        Some("0"),
        "weighted_sum",
    )?;
    let two_pass = |x: &Array, w: &Array| -> cuprum::Result<f32> {
        let weighted_sum = weighted_mean.call((x, w))?;
        let total_weight = ops::sum(w)?;
        Ok(ops::divide(&weighted_sum, &total_weight)?.to_vec::<f32>()?[0])
    };
    // One pass: both sums in one float2 accumulator, two outputs.
    let sums = ReductionKernel::new(
        "float32 x, float32 w",
        "float32 weighted_sum, float32 total_weight",
        "make_float2(x * w, w)",
        "make_float2(a.x + b.x, a.y + b.y)",
        "weighted_sum = a.x; total_weight = a.y",
        Some("make_float2(0, 0)"),
        "weighted_sums",
    )?
    .reduce_type("float2");
    let one_pass = |x: &Array, w: &Array| -> cuprum::Result<f32> {
        let outs = sums.call_all((x, w))?;
        let (s, t) = (outs[0].to_vec::<f32>()?[0], outs[1].to_vec::<f32>()?[0]);
        Ok(s / t)
    };

    let (hv, hw) = ([1.0f32, 2.0, 3.0, 4.0], [0.1f32, 0.2, 0.3, 0.4]);
    let values = Array::from_slice(&hv, &[4])?;
    let weights = Array::from_slice(&hw, &[4])?;
    let seed_ref = host_mean(&hv, &hw);
    let (seed_two, seed_one) = (two_pass(&values, &weights)?, one_pass(&values, &weights)?);

    let n = 1_000_000usize;
    let x = random::uniform(0.0, 10.0, &[n], DType::F32)?;
    let w = random::uniform(0.5, 1.5, &[n], DType::F32)?;
    let big_ref = host_mean(&x.to_vec::<f32>()?, &w.to_vec::<f32>()?);
    let (big_two, big_one) = (two_pass(&x, &w)?, one_pass(&x, &w)?);

    // float32 sums: a few roundings on the seed's arrays, a tree of 1e6 terms otherwise.
    let ok = [
        (seed_two, seed_ref, 1e-6),
        (seed_one, seed_ref, 1e-6),
        (big_two, big_ref, 1e-5),
        (big_one, big_ref, 1e-5),
    ]
    .iter()
    .all(|&(v, r, tol)| rel(v, r) <= tol);
    println!(
        "weighted_mean: Weighted mean: {seed_two} (one pass {seed_one}, host {seed_ref:.7}); \
         1e6 random: {big_two} / {big_one} (host {big_ref:.7}): {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
