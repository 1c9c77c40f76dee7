//! The bundle workloads: loading a bundle of every seed example's kernels in a fresh
//! process and looking each up (`bundle_load_64_kernels`), and the whole demo from an
//! empty kernel cache without and with a bundle (`demo_cold_start`,
//! `demo_cold_start_bundle`). The kernels come from recording `cuprum demo` once per bench
//! run (NVRTC present, a cache folder of its own); the bundle is built on the fly for the
//! GPU's architecture and carries the recording's tuning choices. Nothing touches the
//! user's cache.

use super::subprocess::{ChildMode, children, host_only, temp_cache_dir};
use super::timed::{R, Timed};
use cuprum::bundle::{self, KernelRecord};
use cuprum::profiler::BenchmarkOptions;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

const LIST: &str = "kernels.list";
const BUNDLE: &str = "demo.cuprum-bundle";

/// The folder holding the demo's recorded list and its bundle for this GPU (made once per
/// bench process).
fn prepared() -> R<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| prepare().map_err(|e| e.to_string()))
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(|e| e.clone().into())
}

fn prepare() -> R<PathBuf> {
    let dir = temp_cache_dir("bundle");
    std::fs::create_dir_all(&dir)?;
    let list = dir.join(LIST);
    let out = std::process::Command::new(std::env::current_exe()?)
        .arg("demo")
        .env(bundle::RECORD_VAR, &list)
        .env("CUPRUM_CACHE_DIR", dir.join("record-cache"))
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "recording the demo's kernels failed: {}",
            String::from_utf8_lossy(&out.stdout)
        )
        .into());
    }
    let records = bundle::read_list(&list)?;
    let arch = cuprum::Device::current()?.arch();
    let bytes = bundle::build(&records, &[arch], &|_| {})?;
    // The recording's tuning choices go with its kernels: a family measured at first use
    // (a GPU model without a built-in choice) would otherwise be measured again in each
    // replay and may pick another candidate, whose kernel the bundle does not hold.
    let bytes = match std::fs::read(dir.join("record-cache").join(cuprum::tuning::FILE)) {
        Ok(choices) => bundle::with_tuning(&bytes, &choices)?,
        Err(_) => bytes,
    };
    std::fs::write(dir.join(BUNDLE), bytes)?;
    Ok(dir)
}

/// `bench-child bundle-load DIR`: load `DIR`'s bundle and look every kernel of its list up
/// the way a program does (no NVRTC compile may happen); returns the seconds.
pub fn load_child(dir: &Path) -> R<f64> {
    let records: Vec<KernelRecord> = bundle::read_list(&dir.join(LIST))?;
    let arch = cuprum::Device::current()?.arch();
    let t = Instant::now();
    bundle::load(dir.join(BUNDLE))?;
    for r in &records {
        cuprum::compile::compile_for_arch(r.source(), &r.options(), arch)?;
    }
    let s = t.elapsed().as_secs_f64();
    if cuprum::internal::nvrtc_compiles() != 0 {
        return Err("a kernel of the bundle was compiled by NVRTC".into());
    }
    Ok(s)
}

pub fn bundle_load(o: &BenchmarkOptions) -> R<Timed> {
    let dir = prepared()?;
    let r = children(
        "bundle_load_64_kernels",
        ChildMode::BundleLoad,
        dir,
        o.n_repeat.clamp(1, 10),
        false,
    )?;
    Ok((r, 0))
}

/// The whole demo in a fresh process with an empty kernel cache (and the bundle when
/// `with_bundle`), timed from the outside.
fn demo(o: &BenchmarkOptions, name: &str, with_bundle: bool) -> R<Timed> {
    let dir = prepared()?;
    let mut times = Vec::new();
    for _ in 0..o.n_repeat.clamp(1, 3) {
        let cache = temp_cache_dir("demo-cold");
        let mut cmd = std::process::Command::new(std::env::current_exe()?);
        cmd.arg("demo").env("CUPRUM_CACHE_DIR", &cache);
        if with_bundle {
            cmd.arg("--bundle").arg(dir.join(BUNDLE));
        }
        let t = Instant::now();
        let out = cmd.output()?;
        times.push(t.elapsed().as_secs_f64());
        let _ = std::fs::remove_dir_all(&cache);
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || (with_bundle && !text.contains("NVRTC compiles: 0)")) {
            return Err(format!("{name}: the demo failed or compiled with NVRTC:\n{text}").into());
        }
    }
    Ok((host_only(name, times), 0))
}

pub fn demo_cold(o: &BenchmarkOptions) -> R<Timed> {
    demo(o, "demo_cold_start", false)
}

pub fn demo_cold_bundle(o: &BenchmarkOptions) -> R<Timed> {
    demo(o, "demo_cold_start_bundle", true)
}
