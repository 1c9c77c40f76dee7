//! `cuprum info`: what this machine offers cuprum. Exits 0 without a GPU, saying so.

use cuprum::{Device, runtime};
use std::process::ExitCode;

pub fn run() -> Result<ExitCode, Box<dyn std::error::Error>> {
    out!("cuprum {}", env!("CARGO_PKG_VERSION"));
    match runtime::driver_info() {
        Ok(d) => {
            out!("driver:  CUDA {}.{} ({})", d.major(), d.minor(), d.version);
            for i in 0..d.device_count {
                match Device::get(i) {
                    Ok(dev) => {
                        let (cc0, cc1) = dev.compute_capability();
                        out!(
                            "gpu {i}:   {} (sm_{cc0}{cc1}, {} SMs, {:.1} GiB, L2 {} MiB)",
                            dev.name(),
                            dev.sm_count(),
                            dev.total_memory() as f64 / (1u64 << 30) as f64,
                            dev.l2_cache_bytes() >> 20
                        );
                    }
                    Err(e) => out!("gpu {i}:   unavailable: {e}"),
                }
            }
        }
        Err(e) => {
            out!("driver:  none ({e})");
            out!("gpu:     no GPU on this machine: kernels can be compiled (NVRTC) but not run");
        }
    }
    match cuprum::compile::nvrtc() {
        Ok(n) => {
            let (a, b) = n.version();
            let archs: Vec<String> = n
                .supported_archs()
                .iter()
                .map(|a| format!("sm_{a}"))
                .collect();
            out!(
                "nvrtc:   {a}.{b} from {} (found via {})",
                n.path(),
                n.found_by()
            );
            out!("targets: {}", archs.join(" "));
        }
        Err(e) => out!("nvrtc:   not found: {e}"),
    }
    match cuprum::compile::KernelCache::global() {
        Ok(c) => match c.dir() {
            Some(d) => out!("cache:   {}", d.display()),
            None => out!("cache:   memory only (CUPRUM_CACHE_IN_MEMORY=1)"),
        },
        Err(e) => out!("cache:   {e}"),
    }
    Ok(ExitCode::SUCCESS)
}
