//! Seed: "Custom ReductionKernel" (002) — `sum_of_squares`, float32 `x * x` reduced with
//! `a + b` from the identity 0: [1, 2, 3, 4, 5] gives exactly 55 (a 0-d array), and its
//! (1, 5) reshape with `axis=1` gives [55] of shape (1,). The seed passes '0' and the name
//! in the post-map and identity positions of CuPy's signature; as intended, the post-map is
//! `out = a` and the identity `0`.
use cuprum::{Array, ReductionKernel};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("sum_of_squares: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let sum_of_squares = ReductionKernel::new(
        "float32 x",
        "float32 out",
        "x * x",
        "a + b",
        "out = a",
        Some("0"),
        "sum_of_squares",
    )?;
    let values = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    let host: f32 = values.iter().map(|v| v * v).sum();
    let data = Array::from_slice(&values, &[5])?;
    let result = sum_of_squares.call((&data,))?;
    let axis_result = sum_of_squares.axis(1).call((&data.reshape(&[1, -1])?,))?;
    let (r, ar) = (result.to_vec::<f32>()?, axis_result.to_vec::<f32>()?);

    let ok = host == 55.0
        && result.shape().is_empty()
        && r == [host]
        && axis_result.shape() == [1]
        && ar == [host];
    println!(
        "sum_of_squares: {} (shape {:?}), axis=1 of (1, 5): {ar:?} (shape {:?}): {}",
        r[0],
        result.shape(),
        axis_result.shape(),
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
