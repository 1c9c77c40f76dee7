//! Seed: "Raw CUDA Kernels" — `vector_add` as a RawKernel (n = 1,000,000 float64),
//! checked against the host.
use cuprum::{Array, DType, RawKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("vector_add: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let vector_add = RawKernel::new(include_str!("kernels/vector_add_f64.cu"), "vector_add");
    let n = 1_000_000usize;
    let a = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let b = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let c = Array::empty(&[n], DType::F64)?;
    let threads = 256u32;
    let blocks = (n as u32).div_ceil(threads);
    vector_add.launch(blocks, threads, (&a, &b, &c, n as i32))?;
    let (ha, hb, hc) = (a.to_vec::<f64>()?, b.to_vec::<f64>()?, c.to_vec::<f64>()?);
    let bad = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    println!(
        "vector_add: c[0..3] = {:?}, {bad} mismatches of {n}",
        &hc[..3]
    );
    if bad > 0 {
        std::process::exit(1);
    }
    Ok(())
}
