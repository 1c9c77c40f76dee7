//! `cuprum compile FILE.cu`: compile through the kernel cache (no GPU needed) and print each
//! kernel's registers, shared, local and constant memory — or the readable compile error.

use clap::Args;
use cuprum::compile::{CompileOptions, KernelCache, resource_usage};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CompileArgs {
    /// The CUDA C++ file.
    file: PathBuf,
    /// A template instantiation to compile and report, e.g. `scale<float, 4>` (repeatable).
    #[arg(long = "name-expr", value_name = "EXPR")]
    name_exprs: Vec<String>,
    /// An NVRTC option, e.g. `-O --use_fast_math` or `-O=-DN=4` (repeatable).
    #[arg(
        short = 'O',
        long = "option",
        value_name = "OPT",
        allow_hyphen_values = true
    )]
    options: Vec<String>,
    /// Target: `sm_90` (a cubin), `sm_90a` (arch-specific), `sm_100f` (family) or
    /// `compute_90` (PTX); default: GPU 0's architecture, else sm_90.
    #[arg(long)]
    arch: Option<String>,
}

/// `sm_90`, `sm_90a`, `sm_100f`, `compute_90`: the shape of a target (NVRTC then says
/// whether it supports it).
fn well_formed(arch: &str) -> bool {
    let Some(rest) = arch
        .trim()
        .strip_prefix("sm_")
        .or_else(|| arch.trim().strip_prefix("compute_"))
    else {
        return false;
    };
    let digits = rest.strip_suffix(['a', 'f']).unwrap_or(rest);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

pub fn run(args: &CompileArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Some(a) = args.arch.as_deref().filter(|a| !well_formed(a)) {
        eprintln!(
            "error: --arch {a:?}: expected sm_XX (a cubin, e.g. sm_90), sm_XXa (arch-specific), \
             sm_XXf (family) or compute_XX (PTX)"
        );
        return Ok(ExitCode::FAILURE);
    }
    crate::setup::on_first_need("compile", cuprum::compile::needs_cuda_headers(&source))?;
    let nv = cuprum::compile::nvrtc()?;
    let (arch, target) = match &args.arch {
        Some(a) => match nv.check_target(a) {
            Ok(n) => (n, Some(a.trim().to_string())),
            Err(e) => {
                eprintln!("error: --arch {e}");
                return Ok(ExitCode::FAILURE);
            }
        },
        None => (cuprum::Device::get(0).map_or(90, |d| d.arch()), None),
    };
    let mut opts = CompileOptions::new()
        .program_name(
            args.file
                .file_name()
                .map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned()),
        )
        .option("-Xptxas=-v");
    if let Some(dir) = args.file.parent().filter(|d| !d.as_os_str().is_empty()) {
        opts = opts.include_path(dir);
    }
    for o in &args.options {
        opts = opts.option(o.clone());
    }
    if let Some(t) = &target {
        opts = opts.option(format!("-arch={t}"));
    }
    for e in &args.name_exprs {
        opts = opts.name_expression(e.clone());
    }
    let cache = KernelCache::global()?;
    let t = std::time::Instant::now();
    let img = match cache.compile(&source, &opts, arch) {
        Ok(img) => img,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let st = cache.stats();
    let how = if st.disk_hits > 0 {
        "from the disk cache"
    } else {
        "compiled"
    };
    let target = target.unwrap_or_else(|| format!("sm_{arch}"));
    out!(
        "{}: {} for {target} ({how}, {ms:.1} ms, {} bytes)",
        args.file.display(),
        if img.is_cubin { "cubin" } else { "PTX" },
        img.image.len()
    );
    for (e, l) in &img.lowered_names {
        out!("  {e} -> {l}");
    }
    let res = resource_usage(&img.log);
    if res.is_empty() {
        out!("  (no kernels reported)");
    } else {
        out!(
            "  {:<40} {:>9} {:>12} {:>11} {:>14}",
            "kernel",
            "registers",
            "shared B",
            "local B",
            "constant B"
        );
        for r in res {
            let name = img
                .lowered_names
                .iter()
                .find(|(_, l)| *l == r.name)
                .map_or(r.name.clone(), |(e, _)| e.clone());
            let spill = if r.spill_store_bytes + r.spill_load_bytes > 0 {
                format!(" (spills {}/{})", r.spill_store_bytes, r.spill_load_bytes)
            } else {
                String::new()
            };
            out!(
                "  {:<40} {:>9} {:>12} {:>11} {:>14}{spill}",
                name,
                r.registers,
                r.shared_bytes,
                r.stack_bytes,
                r.constant_bytes
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
