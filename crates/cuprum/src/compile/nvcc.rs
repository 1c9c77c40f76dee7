//! The `nvcc` backend of raw kernels: the CUDA toolkit's compiler run as a program
//! (`$NVCC`, else `nvcc` on `PATH`), one cubin per call (no cache: CuPy's `backend='nvcc'`).

use super::options::CompileOptions;
use crate::error::{Result, bail, err};

/// Compiles with `nvcc` (from `$NVCC` or `PATH`) to a cubin; with it, what nvcc printed
/// (its warnings: the compile's log).
pub(crate) fn compile(src: &str, opts: &CompileOptions, arch: u32) -> Result<(Vec<u8>, String)> {
    let nvcc = std::env::var("NVCC").unwrap_or_else(|_| "nvcc".into());
    let dir = tempfile::tempdir()
        .map_err(|e| err!(Io, "nvcc: cannot make a temp folder: {e}").with_source(e))?;
    let cu = dir.path().join(&opts.program_name);
    let out = dir.path().join("out.cubin");
    std::fs::write(&cu, src)
        .map_err(|e| err!(Io, "nvcc: cannot write {}: {e}", cu.display()).with_source(e))?;
    let mut cmd = std::process::Command::new(&nvcc);
    cmd.arg("--cubin")
        .arg(format!("-gencode=arch=compute_{arch},code=sm_{arch}"))
        .arg(format!("-std={}", opts.std))
        .arg("-o")
        .arg(&out);
    for p in &opts.include_paths {
        cmd.arg(format!("-I{}", p.display()));
    }
    cmd.args(&opts.options).arg(&cu);
    let output = cmd.output().map_err(|e| {
        err!(
            NvccNotFound,
            "failed to run `{nvcc}` ({e}): the nvcc backend needs the CUDA toolkit's nvcc on PATH \
             (or NVCC=/path/to/nvcc); the default NVRTC backend needs no toolkit"
        )
    })?;
    if !output.status.success() {
        bail!(
            Compile,
            "`nvcc` command returns non-zero exit status.\ncommand: {cmd:?}\nreturn-code: {}\nstdout/stderr:\n{}{}",
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let cubin =
        std::fs::read(&out).map_err(|e| err!(Io, "nvcc: no output cubin: {e}").with_source(e))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok((cubin, log))
}
