//! The compile cache's checks of the host device's compiled modules: an entry that is
//! damaged, of another key, a link, or another user's is not loaded (it is compiled again
//! and replaced), and a module in a folder others may write to is not loaded at all. Runs
//! in a child process with a cache folder of its own (the counters and the folder are
//! process-wide).
mod common;

use cuprum::compile::{CacheStats, KernelCache};
use cuprum::{Array, Device, ErrorKind, RawModule};
use std::path::{Path, PathBuf};

/// Every file under `dir` named `<64 hex>.so` in a two-hex-digit shard.
fn host_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = shard.file_name().to_string_lossy().into_owned();
        if name.len() != 2 || !shard.path().is_dir() {
            continue;
        }
        for e in std::fs::read_dir(shard.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.len() == 67 && n.ends_with(".so") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn module_source(tag: &str) -> String {
    format!(
        "// {tag}\nextern \"C\" __global__ void add_k(const int* x, int* y, int k, int n) {{\n  \
         int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i] + k;\n}}\n"
    )
}

/// Compiles (or loads) the module of `tag` afresh and checks that it computes.
fn run_module(tag: &str) -> cuprum::Result<()> {
    cuprum::clear_memo();
    let k = RawModule::new(module_source(tag)).get_function("add_k")?;
    let n = 300usize;
    let xv: Vec<i32> = (0..n as i32).map(|i| i * 7 - 1000).collect();
    // (no Array::zeros: its fill kernel would count in the cache's counters too)
    let y = Array::from_slice(&vec![0i32; n], &[n])?;
    k.launch(3, 128, (&common::dev(&xv, &[n]), &y, 17i32, n as i32))?;
    let want: Vec<i32> = xv.iter().map(|v| v + 17).collect();
    assert_eq!(y.to_vec::<i32>()?, want, "{tag}");
    Ok(())
}

fn stats() -> CacheStats {
    KernelCache::global().unwrap().stats()
}

/// What changed between two readings of the counters: (disk hits, misses, corrupt).
fn delta(a: CacheStats, b: CacheStats) -> (u64, u64, u64) {
    (
        b.disk_hits - a.disk_hits,
        b.misses - a.misses,
        b.corrupt_entries - a.corrupt_entries,
    )
}

#[test]
#[ignore = "run by damaged_or_foreign_host_modules_are_not_loaded in a child process"]
fn host_cache_child() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Some(cache) = std::env::var_os("CUPRUM_HOST_CACHE_CHILD") else {
        return;
    };
    common::setup(); // a child: keeps the cache folder it was given
    let dir = PathBuf::from(cache).join("host");
    Device::host().with(|| {
        // a fresh entry, then a disk hit
        let s0 = stats();
        run_module("a").unwrap();
        assert_eq!(delta(s0, stats()), (0, 1, 0), "first compile");
        let entries = host_entries(&dir);
        assert_eq!(entries.len(), 1, "{entries:?}");
        let entry = entries[0].clone();
        let good = std::fs::read(&entry).unwrap();
        let s = stats();
        run_module("a").unwrap();
        assert_eq!(delta(s, stats()), (1, 0, 0), "an intact entry loads");
        // a second module, whose entry is valid but under another key
        run_module("b").unwrap();
        let other = host_entries(&dir)
            .into_iter()
            .find(|p| *p != entry)
            .unwrap();
        // SAFETY: geteuid takes no arguments and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let root = uid == 0;

        // Damage replaces the file (as another process would): rewriting it in place would
        // change the pages of the module this process has loaded from it.
        let replace = |bytes: &[u8]| {
            let tmp = dir.join("damaged.tmp");
            std::fs::write(&tmp, bytes).unwrap();
            std::fs::rename(&tmp, &entry).unwrap();
        };
        let damages: [(&str, &dyn Fn()); 6] = [
            ("bytes flipped in the middle", &|| {
                let mut b = good.clone();
                let mid = b.len() / 2;
                for x in &mut b[mid..mid + 8] {
                    *x ^= 0x5A;
                }
                replace(&b);
            }),
            ("a byte of the trailer flipped", &|| {
                let mut b = good.clone();
                let last = b.len() - 20;
                b[last] ^= 1;
                replace(&b);
            }),
            ("truncated to half", &|| replace(&good[..good.len() / 2])),
            ("an entry of another key", &|| {
                replace(&std::fs::read(&other).unwrap())
            }),
            ("a link to a valid entry", &|| {
                let copy = dir.join("elsewhere.so");
                std::fs::write(&copy, &good).unwrap();
                std::fs::remove_file(&entry).unwrap();
                std::os::unix::fs::symlink(&copy, &entry).unwrap();
            }),
            ("a file of another user", &|| {
                if root {
                    replace(&good);
                    std::os::unix::fs::chown(&entry, Some(12345), Some(12345)).unwrap();
                } else {
                    // not root: a link stands in (also not the user's own regular file)
                    std::fs::remove_file(&entry).unwrap();
                    std::os::unix::fs::symlink(&other, &entry).unwrap();
                }
            }),
        ];
        for (what, damage) in damages {
            damage();
            let s = stats();
            run_module("a").unwrap();
            assert_eq!(
                delta(s, stats()),
                (0, 1, 1),
                "{what}: not loaded, compiled again"
            );
            let meta = std::fs::symlink_metadata(&entry).unwrap();
            assert!(meta.is_file(), "{what}: replaced by a regular file");
            assert_eq!(meta.uid(), uid, "{what}: owned by the user");
            assert_eq!(meta.mode() & 0o077, 0, "{what}: private");
            let s = stats();
            run_module("a").unwrap();
            assert_eq!(
                delta(s, stats()),
                (1, 0, 0),
                "{what}: the repaired entry loads"
            );
        }

        // a shard folder others may write to: its module is not loaded at all
        let shard = entry.parent().unwrap();
        std::fs::set_permissions(shard, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = run_module("a").unwrap_err();
        std::fs::set_permissions(shard, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(e.kind(), ErrorKind::Io, "{e}");
        assert!(
            e.to_string()
                .contains("is not a private folder of this user"),
            "{e}"
        );
        assert!(e.to_string().contains("is not loaded"), "{e}");
        run_module("a").unwrap();
    });
}

#[test]
fn damaged_or_foreign_host_modules_are_not_loaded() {
    common::host_device();
    let t = tempfile::Builder::new()
        .prefix("cuprum-host-cache-test")
        .tempdir()
        .unwrap();
    let cache = t.path().join("cache");
    common::harness::run_child(
        "host_cache_child",
        &[
            ("CUPRUM_HOST_CACHE_CHILD", &cache),
            ("CUPRUM_CACHE_DIR", &cache),
            ("CUPRUM_TEST_CHILD", Path::new("1")),
            ("CUPRUM_HOST_OPT", Path::new("0")),
        ],
        &["CUPRUM_HOST_CACHE_DIR", "CUPRUM_CACHE_IN_MEMORY"],
    );
}
