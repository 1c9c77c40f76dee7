//! `cuprum compile FILE.cu`: compile through the kernel cache (no GPU needed) and print each
//! kernel's registers, shared, local and constant memory — or the readable compile error.
//! `--profile`: one uncached compile's breakdown instead (`cuprum::compile::profile_compile`),
//! then the module load (with a GPU) and a disk hit through a temporary cache.

use clap::Args;
use cuprum::compile::{CompileOptions, KernelCache, profile_compile, resource_usage};
use cuprum::runtime::Module;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    /// Where a cold compile's time goes: key hashing, NVRTC's calls and phases, the
    /// headers parsed, the module load (with a GPU) and a disk hit (no cache is touched).
    #[arg(long)]
    profile: bool,
    /// With `--profile`: compile the source this many more times, each made new content by
    /// an unused `__device__` variable (NVRTC 13 reuses a program it compiled before from
    /// the CUDA ComputeCache, across processes, even when only a comment differs), and
    /// print each compile's time.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "profile")]
    repeat: usize,
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
    let mut opts = CompileOptions::new().program_name(
        args.file
            .file_name()
            .map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned()),
    );
    if !args.profile {
        opts = opts.option("-Xptxas=-v");
    }
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
    if args.profile {
        return profile(args, &source, &opts, arch);
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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `--profile`: the breakdown of one uncached compile, the module load, a disk hit.
fn profile(
    args: &CompileArgs,
    source: &str,
    opts: &CompileOptions,
    arch: u32,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    // NVRTC's one-time start (its first program) is measured apart, on a trivial
    // program, so the breakdown below is a cold compile with NVRTC warm (the bench rows').
    let nv = cuprum::compile::nvrtc()?;
    let t = Instant::now();
    let warm = cuprum::compile::KernelCache::new(None).compile(
        "extern \"C\" __global__ void cuprum_profile_warm_up() {}\n",
        &CompileOptions::new(),
        arch,
    );
    let first = t.elapsed();
    if let Err(e) = warm {
        eprintln!("{e}");
        return Ok(ExitCode::FAILURE);
    }
    let p = match profile_compile(source, opts, arch) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    out!(
        "{}: {} ({} bytes) with NVRTC {}.{}; flags: {}",
        args.file.display(),
        if p.is_cubin { "cubin" } else { "PTX" },
        p.image_bytes,
        nv.version().0,
        nv.version().1,
        p.flags.join(" ")
    );
    out!(
        "  {:<34} {:>9.3} ms",
        "first program (empty; once)",
        ms(first)
    );
    out!("  then this source, NVRTC warm:");
    out!("  {:<34} {:>9.3} ms", "cache key (blake3)", ms(p.key_hash));
    out!(
        "  {:<34} {:>9.3} ms",
        "nvrtcCreateProgram",
        ms(p.steps.create)
    );
    out!(
        "  {:<34} {:>9.3} ms",
        "nvrtcCompileProgram",
        ms(p.steps.compile)
    );
    for (phase, t) in &p.phases {
        out!("    {:<32} {:>9.3} ms (NVRTC --time)", phase, t);
    }
    out!(
        "  {:<34} {:>9.3} ms",
        "log + image + names, destroy",
        ms(p.steps.fetch)
    );
    let (bytes, lines) = p.bundled_total();
    out!(
        "  cuprum headers parsed: {} ({bytes} bytes, {lines} lines){}{}",
        p.bundled_headers.len(),
        if p.cuda_headers {
            "; and CUDA toolkit headers (-I)"
        } else {
            ""
        },
        if p.minimal { "; --minimal" } else { "" }
    );
    for (n, b, l) in p.bundled_headers.iter().chain(&p.memory_headers) {
        out!("    {n:<32} {b:>7} bytes {l:>5} lines");
    }
    if args.repeat > 0 {
        let times: Vec<String> = (0..args.repeat)
            .map(|i| {
                let src = format!("{source}\n__device__ int cuprum_compile_repeat_{i};\n");
                let t = Instant::now();
                cuprum::compile::KernelCache::new(None)
                    .compile(&src, opts, arch)
                    .map(|_| format!("{:.1}", ms(t.elapsed())))
            })
            .collect::<cuprum::Result<_>>()?;
        out!(
            "  then {} more compiles (ms): {}",
            args.repeat,
            times.join(" ")
        );
    }
    match cuprum::Device::get(0)
        .ok()
        .filter(|d| matches!(d.code_target(), cuprum::runtime::CodeTarget::Cuda(_)))
    {
        Some(dev) => {
            let img = cuprum::compile::KernelCache::new(None).compile(source, opts, arch)?;
            let t = Instant::now();
            Module::load(dev, &img.image)?;
            out!(
                "  {:<34} {:>9.3} ms",
                "module load (cuModuleLoadData)",
                ms(t.elapsed())
            );
        }
        None => out!("  module load: no GPU here"),
    }
    let dir = tempfile::tempdir()?;
    KernelCache::new(Some(dir.path().to_path_buf())).compile(source, opts, arch)?;
    let mut hits: Vec<Duration> = (0..9)
        .map(|_| {
            let c = KernelCache::new(Some(dir.path().to_path_buf()));
            let t = Instant::now();
            c.compile(source, opts, arch).map(|_| t.elapsed())
        })
        .collect::<cuprum::Result<_>>()?;
    hits.sort();
    out!(
        "  {:<34} {:>9.3} ms (median of 9; a new KernelCache, this process)",
        "disk hit (key, read, checksum)",
        ms(hits[hits.len() / 2])
    );
    Ok(ExitCode::SUCCESS)
}
