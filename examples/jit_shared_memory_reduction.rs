//! Seed 002 ("Kernel with shared memory optimization") written in Rust: block sums in
//! dynamic shared memory over 1e6 float32 (`dynamic_shared::<f32>()`, `sync_threads()`),
//! added on the host and compared with a host sum. `--source` prints the C++.
use cuprum::kernel::JitConfig;
use cuprum::{Array, DType, random};

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod kernels;
use kernels::optimized_reduction;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", optimized_reduction::program());
        return Ok(());
    }
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!(
            "jit_shared_memory_reduction: no GPU here ({why}); nothing to run (--source prints the kernel)"
        );
        return Ok(());
    }
    let n = 1_000_000usize;
    let data = random::random(&[n], DType::F32)?;
    let block = 256u32;
    let grid = (n as u32).div_ceil(block);
    let mut out = Array::zeros(&[grid as usize], DType::F32)?;
    let cfg = JitConfig::new(grid, block).shared_mem(block as usize * 4);
    optimized_reduction::launch(cfg, &data, &mut out, n as i32)?;
    let gpu: f64 = out.to_vec::<f32>()?.iter().map(|&x| x as f64).sum();
    let host: f64 = data.to_vec::<f32>()?.iter().map(|&x| x as f64).sum();
    let ok = (gpu - host).abs() / host < 1e-5;
    println!(
        "jit_shared_memory_reduction: GPU {gpu:.3}, host {host:.3}: {}",
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
