//! Seed: "Kernel with shared memory optimization" — a block reduction with dynamic shared
//! memory over 1e6 float32, block sums added on the host and compared with a host sum.
use cuprum::{Array, DType, RawKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("shared_memory_reduction: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let kernel = RawKernel::new(
        include_str!("kernels/optimized_reduction.cu"),
        "optimized_reduction",
    );
    let n = 1_000_000usize;
    let data = random::random(&[n], DType::F32)?;
    let block = 256u32;
    let grid = (n as u32).div_ceil(block);
    let out = Array::zeros(&[grid as usize], DType::F32)?;
    kernel
        .configure(grid, block)
        .shared_mem(block as usize * 4)
        .launch((&data, &out, n as i32))?;
    let gpu: f64 = out.to_vec::<f32>()?.iter().map(|&x| x as f64).sum();
    let host: f64 = data.to_vec::<f32>()?.iter().map(|&x| x as f64).sum();
    let ok = (gpu - host).abs() / host < 1e-5;
    println!(
        "shared_memory_reduction: GPU {gpu:.3}, host {host:.3}: {}",
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
