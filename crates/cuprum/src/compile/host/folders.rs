//! Where and how host compiles happen: the folder of host entries (and the shim's include
//! folder and PCH), the scratch folder of a memory-only cache, the private-folder check
//! every compiler input passes, and the `-O` level.

use crate::compile::cache::KernelCache;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where host entries, the header folder and the PCH go: `CUPRUM_HOST_CACHE_DIR`, else
/// `<kernel cache>/host`; `None` when the kernel cache is memory-only.
pub(super) fn entries_dir() -> Option<PathBuf> {
    if let Some(d) = host_dir_override() {
        return d;
    }
    if let Some(d) = std::env::var_os("CUPRUM_HOST_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    KernelCache::global().ok()?.dir().map(|d| d.join("host"))
}

static HOST_DIR: Mutex<Option<Option<PathBuf>>> = Mutex::new(None);

fn host_dir_override() -> Option<Option<PathBuf>> {
    HOST_DIR.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Puts the host device's compiled kernels (and its precompiled shim) in `dir` for this
/// process (`None`: back to the default, `<kernel cache>/host`), over
/// `CUPRUM_HOST_CACHE_DIR`. Test harnesses use it to share host entries between test
/// binaries while each keeps a kernel cache of its own.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("cuprum-doc-host-{}", std::process::id()));
/// cuprum::compile::set_host_cache_dir(Some(dir.clone()));
/// cuprum::compile::set_host_cache_dir(None);
/// # let _ = std::fs::remove_dir_all(&dir);
/// ```
pub fn set_host_cache_dir(dir: Option<PathBuf>) {
    *HOST_DIR.lock().unwrap_or_else(|p| p.into_inner()) = dir.map(Some);
}

/// The optimisation level [`set_host_opt_level`] chose (`u8::MAX`: none).
static OPT_LEVEL: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(u8::MAX);

/// Compiles the host device's kernels with `-O<level>` (0 to 3) for the rest of the
/// process, over `CUPRUM_HOST_OPT`; `None`: back to the default (`CUPRUM_HOST_OPT`, else
/// 2). Levels above 3 count as 3. Test harnesses use 0: a kernel compiles in about half the
/// time and test inputs are small. The level is part of a compiled kernel's cache key.
///
/// ```
/// cuprum::compile::set_host_opt_level(Some(0));
/// cuprum::compile::set_host_opt_level(None);
/// ```
pub fn set_host_opt_level(level: Option<u8>) {
    let v = level.map_or(u8::MAX, |l| l.min(3));
    OPT_LEVEL.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// The `-O` level of host compiles: [`set_host_opt_level`]'s, else `CUPRUM_HOST_OPT` (a
/// digit 0 to 3; anything else is ignored), else 2.
pub(super) fn opt_level() -> u8 {
    match OPT_LEVEL.load(std::sync::atomic::Ordering::Relaxed) {
        u8::MAX => std::env::var("CUPRUM_HOST_OPT")
            .ok()
            .and_then(|v| v.trim().parse::<u8>().ok())
            .filter(|&l| l <= 3)
            .unwrap_or(2),
        l => l,
    }
}

/// A folder for headers and the PCH when the cache is memory-only:
/// `$TMPDIR/cuprum-host-<uid>` (owner-only; refused if another user owns it).
pub(super) fn scratch_dir() -> PathBuf {
    // SAFETY: geteuid takes no arguments and cannot fail.
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("cuprum-host-{uid}"))
}

/// Whether a folder may hold what the compiler reads: owned by the user, not writable by
/// group or others.
pub(super) fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid takes no arguments and cannot fail.
    let uid = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o022 == 0)
}
