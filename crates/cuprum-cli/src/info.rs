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
                            "gpu {i}:   {} (sm_{cc0}{cc1}, {} SMs, {:.1} GiB, L2 {} MiB) {}",
                            dev.name(),
                            dev.sm_count(),
                            dev.total_memory() as f64 / (1u64 << 30) as f64,
                            dev.l2_cache_bytes() >> 20,
                            dev.uuid()
                        );
                    }
                    Err(e) => out!("gpu {i}:   unavailable: {e}"),
                }
            }
            if let Ok(all) = Device::all()
                && all.len() > 1
            {
                let pairs: Vec<String> = all
                    .iter()
                    .flat_map(|&a| all.iter().map(move |&b| (a, b)))
                    .filter(|(a, b)| a != b)
                    .map(|(a, b)| {
                        let yes = a.can_access_peer(b).unwrap_or(false);
                        format!(
                            "{}→{} {}",
                            a.ordinal(),
                            b.ordinal(),
                            if yes { "yes" } else { "no" }
                        )
                    })
                    .collect();
                out!("peer:    {}", pairs.join(", "));
            }
        }
        Err(e) => {
            out!("driver:  none ({e})");
            out!("gpu:     no GPU on this machine: kernels can be compiled (NVRTC) but not run");
        }
    }
    match cuprum::nccl::version() {
        Ok((a, b, c)) => out!(
            "nccl:    {a}.{b}.{c} from {}",
            cuprum::nccl::library_path().unwrap_or_default()
        ),
        Err(e) => out!("nccl:    not loaded (collectives over several GPUs need it): {e}"),
    }
    // One answer per component, from the same search every compile uses.
    match cuprum::compile::nvrtc() {
        Ok(n) => {
            let (a, b) = n.version();
            let package = n
                .location()
                .and_then(|f| f.version())
                .map_or(String::new(), |v| format!("; package {v}"));
            out!(
                "nvrtc:   {a}.{b} from {} ({}{package})",
                n.path(),
                n.found_by()
            );
            let archs: Vec<String> = n
                .supported_archs()
                .iter()
                .map(|a| format!("sm_{a}"))
                .collect();
            out!(
                "targets: {} (also sm_XXa from sm_90, sm_XXf from sm_100, compute_XX for PTX)",
                archs.join(" ")
            );
        }
        Err(e) => out!("nvrtc:   not found: {e}"),
    }
    let headers = cuprum::compile::cuda_headers();
    if headers.is_empty() {
        out!(
            "headers: CUDA headers not found (kernels that include cuda_fp16.h, \
             cooperative_groups.h, cub/... need them: `cuprum setup` installs them)"
        );
    }
    for c in cuprum::compile::Component::HEADERS {
        let found = headers.iter().find(|f| f.component == c);
        if !headers.is_empty() {
            out!(
                "headers: {:<15}  {}",
                c.name(),
                crate::setup::component_line(c, found)
            );
        }
    }
    let s = cuprum::compile::Setup::new();
    match s.target() {
        Some(dir) if s.missing().is_empty() => out!("setup:   {} (complete)", dir.display()),
        Some(dir) if s.missing().len() == cuprum::compile::Component::ALL.len() => out!(
            "setup:   {} (empty: `cuprum setup` installs NVRTC and the CUDA headers there)",
            dir.display()
        ),
        Some(dir) => out!(
            "setup:   {} (incomplete: `cuprum setup` completes it)",
            dir.display()
        ),
        None => out!("setup:   no data folder (no home folder; set CUPRUM_DATA_DIR)"),
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
