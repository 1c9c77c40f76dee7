mod common;

// The compile layer without a GPU: the two-level kernel cache (memory memo + disk entries),
// its key, its behaviour on damaged entries and unwritable folders, concurrent first
// compiles, readable compile errors, the bundled headers and ptxas resource reports.
//
// Every test uses its own `KernelCache` in a temporary folder, so the tests run in parallel
// and never touch the user's cache. The two tests that must go through the global cache
// (`compile_for_arch`) or see a different environment run this test binary again as a child
// process with its own `CUPRUM_CACHE_DIR`.

use cuprum::ErrorKind;
use cuprum::compile::{
    CacheStats, CompileOptions, CompiledImage, KernelCache, compile_for_arch, nvrtc, resource_usage,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

const ARCH: u32 = 90;

/// A small kernel; `tag` makes the source (and so the key) unique to a test.
fn kernel(tag: &str) -> String {
    format!(
        "// {tag}\n\
         extern \"C\" __global__ void add_one(float* x, int n) {{\n\
         \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20 if (i < n) x[i] += 1.0f;\n\
         }}\n"
    )
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("cuprum-compile-cache-test")
        .tempdir()
        .unwrap()
}

/// A cache in `<tmp>/cache` (a folder that does not exist yet: the cache creates it).
fn cache_in(dir: &Path) -> KernelCache {
    KernelCache::new(Some(dir.join("cache")))
}

fn hex(key: &[u8; 32]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every plain file under `dir`, recursively, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The one `.cubin` entry file under `dir` (panics unless there is exactly one).
fn only_entry(dir: &Path) -> PathBuf {
    let cubins: Vec<PathBuf> = files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
        .collect();
    assert_eq!(cubins.len(), 1, "{cubins:?}");
    cubins.into_iter().next().unwrap()
}

fn stats(
    memo_hits: u64,
    disk_hits: u64,
    misses: u64,
    disk_writes: u64,
    corrupt: u64,
) -> CacheStats {
    CacheStats {
        memo_hits,
        disk_hits,
        misses,
        disk_writes,
        corrupt_entries: corrupt,
    }
}

fn assert_same_image(a: &CompiledImage, b: &CompiledImage) {
    assert_eq!(a.image, b.image, "images differ");
    assert_eq!(a.is_cubin, b.is_cubin);
    assert_eq!(a.lowered_names, b.lowered_names);
    assert_eq!(a.log, b.log);
}

fn contains_bytes(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

// ---------------------------------------------------------------------------------------
// memory and disk hits

#[test]
fn miss_then_memo_hit_then_disk_hit_in_a_new_instance() {
    require_nvrtc!();
    let t = tmp();
    let src = kernel("miss_then_memo_hit");
    let opts = CompileOptions::default();

    let c1 = cache_in(t.path());
    assert_eq!(c1.dir(), Some(t.path().join("cache")));
    assert_eq!(c1.stats(), CacheStats::default());
    assert!(
        !t.path().join("cache").exists(),
        "nothing is created before the first write"
    );

    let first = c1.compile(&src, &opts, ARCH).unwrap();
    assert!(first.is_cubin);
    assert!(first.image.starts_with(b"\x7fELF"), "not a cubin");
    assert!(contains_bytes(&first.image, b"add_one"));
    assert_eq!(c1.stats(), stats(0, 0, 1, 1, 0));

    let again = c1.compile(&src, &opts, ARCH).unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "a memo hit returns the same image"
    );
    assert_eq!(c1.stats(), stats(1, 0, 1, 1, 0));
    assert_eq!(c1.entries().unwrap().len(), 1);

    // A new instance on the same folder is what a new process sees.
    let c2 = cache_in(t.path());
    let from_disk = c2.compile(&src, &opts, ARCH).unwrap();
    assert_eq!(c2.stats(), stats(0, 1, 0, 0, 0));
    assert_same_image(&first, &from_disk);
    c2.compile(&src, &opts, ARCH).unwrap();
    assert_eq!(c2.stats(), stats(1, 1, 0, 0, 0));

    // clear_memo forgets memory only: the next lookup is a disk hit again.
    c2.clear_memo();
    let after_memo_clear = c2.compile(&src, &opts, ARCH).unwrap();
    assert_eq!(c2.stats(), stats(1, 2, 0, 0, 0));
    assert_same_image(&first, &after_memo_clear);
}

#[test]
fn memory_only_cache_never_writes() {
    require_nvrtc!();
    let c = KernelCache::new(None);
    assert_eq!(c.dir(), None);
    let src = kernel("memory_only");
    c.compile(&src, &CompileOptions::default(), ARCH).unwrap();
    c.compile(&src, &CompileOptions::default(), ARCH).unwrap();
    assert_eq!(c.stats(), stats(1, 0, 1, 0, 0));
    assert!(c.entries().unwrap().is_empty());
    assert_eq!(c.clear().unwrap(), 0);
}

// ---------------------------------------------------------------------------------------
// the key

/// A source with a template, so that a name expression can be added as a key input.
fn key_source() -> String {
    format!(
        "{}template <typename T> __global__ void tk(T* x) {{ x[0] = T(1); }}\n",
        kernel("key_inputs")
    )
}

#[test]
fn every_key_input_changes_the_key_and_is_a_miss() {
    require_nvrtc!();
    let t = tmp();
    let inc = tempfile::tempdir().unwrap();
    let base_src = key_source();
    let base = CompileOptions::default();
    let c = cache_in(t.path());
    c.compile(&base_src, &base, ARCH).unwrap();
    assert_eq!(c.stats(), stats(0, 0, 1, 1, 0));
    let base_key = KernelCache::key(&base_src, &base, ARCH);
    assert_eq!(base_key, KernelCache::key(&base_src, &base.clone(), ARCH));

    let other_arch = if nvrtc().unwrap().supported_archs().contains(&80) {
        80
    } else {
        89
    };
    let variants: Vec<(&str, String, CompileOptions, u32)> = vec![
        (
            "source",
            format!("{base_src}// one more comment\n"),
            base.clone(),
            ARCH,
        ),
        (
            "option",
            base_src.clone(),
            base.clone().option("-DCUPRUM_KEY_TEST=1"),
            ARCH,
        ),
        ("std", base_src.clone(), base.clone().std("c++20"), ARCH),
        (
            "include path",
            base_src.clone(),
            base.clone().include_path(inc.path()),
            ARCH,
        ),
        (
            "name expression",
            base_src.clone(),
            base.clone().name_expression("tk<int>"),
            ARCH,
        ),
        (
            "in-memory header",
            base_src.clone(),
            base.clone().header("unused/h.cuh", "#define UNUSED 1\n"),
            ARCH,
        ),
        (
            "program name",
            base_src.clone(),
            base.clone().program_name("other.cu"),
            ARCH,
        ),
        ("arch", base_src.clone(), base.clone(), other_arch),
    ];
    let mut keys = vec![base_key];
    for (i, (what, src, opts, arch)) in variants.iter().enumerate() {
        let key = KernelCache::key(src, opts, *arch);
        assert!(!keys.contains(&key), "changing the {what} kept a known key");
        keys.push(key);
        let img = c
            .compile(src, opts, *arch)
            .unwrap_or_else(|e| panic!("variant {what}: {e}"));
        assert!(img.is_cubin, "{what}");
        let n = i as u64 + 2;
        assert_eq!(
            c.stats(),
            stats(0, 0, n, n, 0),
            "changing the {what} must be a miss"
        );
        if *what == "name expression" {
            assert_eq!(img.lowered_names.len(), 1);
            assert_eq!(img.lowered_names[0].0, "tk<int>");
        }
    }
    assert_eq!(c.entries().unwrap().len(), variants.len() + 1);
    // the original is still a memory hit
    c.compile(&base_src, &base, ARCH).unwrap();
    assert_eq!(c.stats().memo_hits, 1);
}

fn key_test_opts() -> CompileOptions {
    CompileOptions::default()
        .option("-DN=3")
        .name_expression("tk<float>")
}

/// Runs one test of this binary in a child process with extra environment variables and
/// returns its stdout (the test must pass there).
fn run_child(test: &str, env: &[(&str, &Path)]) -> String {
    let mut cmd = common::harness::child_test(test);
    cmd.env("CUPRUM_TEST_CHILD", "1")
        .env_remove("CUPRUM_CACHE_IN_MEMORY")
        .env_remove("CUPRUM_CACHE_SAVE_SOURCE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child {test} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "child {test} did not run\n{stdout}"
    );
    stdout
}

fn child_mode(test: &str) -> bool {
    let child = std::env::var_os("CUPRUM_TEST_CHILD").is_some();
    if !child {
        eprintln!("{test}: a helper run in a child process by another test; nothing to do");
    }
    child
}

#[test]
#[ignore = "helper: run by key_ignores_unrelated_environment in a child process"]
fn child_print_key() {
    require_nvrtc!();
    if !child_mode("child_print_key") {
        return;
    }
    let key = KernelCache::key(&key_source(), &key_test_opts(), ARCH);
    println!("KEY={}", hex(&key));
}

#[test]
fn key_ignores_unrelated_environment() {
    require_nvrtc!();
    let t = tmp();
    let here = hex(&KernelCache::key(&key_source(), &key_test_opts(), ARCH));
    // Another process, with an unrelated variable set and another cache folder (the folder
    // is not part of the key either), computes the same key.
    let out = run_child(
        "child_print_key",
        &[
            ("CUPRUM_UNRELATED_TEST_VARIABLE", Path::new("some value")),
            ("CUPRUM_CACHE_DIR", t.path()),
        ],
    );
    let there = out
        .lines()
        .find_map(|l| l.split_once("KEY=").map(|(_, k)| k.trim()))
        .unwrap_or_else(|| panic!("no KEY= line in\n{out}"));
    assert_eq!(there, here);
    assert_eq!(here.len(), 64);
}

// ---------------------------------------------------------------------------------------
// damaged entries

enum Damage {
    FlipMiddle,
    TruncateHalf,
    TruncateEmpty,
}

fn damaged_entry_is_a_miss_and_is_rewritten(damage: Damage, tag: &str) {
    let t = tmp();
    let src = kernel(tag);
    let opts = CompileOptions::default();
    let c1 = cache_in(t.path());
    let original = c1.compile(&src, &opts, ARCH).unwrap();
    let entry = only_entry(t.path());
    let good = std::fs::read(&entry).unwrap();
    assert!(good.len() > 100, "{}", good.len());

    let bad: Vec<u8> = match damage {
        Damage::FlipMiddle => {
            let mut b = good.clone();
            let mid = b.len() / 2;
            for x in &mut b[mid..mid + 4] {
                *x ^= 0xA5;
            }
            b
        }
        Damage::TruncateHalf => good[..good.len() / 2].to_vec(),
        Damage::TruncateEmpty => Vec::new(),
    };
    std::fs::write(&entry, &bad).unwrap();

    let c2 = cache_in(t.path());
    let img = c2.compile(&src, &opts, ARCH).unwrap();
    assert_eq!(c2.stats(), stats(0, 0, 1, 1, 1));
    assert_same_image(&original, &img);
    let rewritten = std::fs::read(&entry).unwrap();
    assert_ne!(rewritten, bad);
    assert_eq!(rewritten.len(), good.len());

    // The rewritten entry is valid: a third instance reads it.
    let c3 = cache_in(t.path());
    let img3 = c3.compile(&src, &opts, ARCH).unwrap();
    assert_eq!(c3.stats(), stats(0, 1, 0, 0, 0));
    assert_same_image(&original, &img3);
    assert_eq!(only_entry(t.path()), entry);
}

#[test]
fn flipped_bytes_in_an_entry_are_a_miss_and_are_repaired() {
    require_nvrtc!();
    damaged_entry_is_a_miss_and_is_rewritten(Damage::FlipMiddle, "flip");
}

#[test]
fn entry_truncated_to_half_is_a_miss_and_is_repaired() {
    require_nvrtc!();
    damaged_entry_is_a_miss_and_is_rewritten(Damage::TruncateHalf, "half");
}

#[test]
fn empty_entry_is_a_miss_and_is_repaired() {
    require_nvrtc!();
    damaged_entry_is_a_miss_and_is_rewritten(Damage::TruncateEmpty, "empty");
}

// ---------------------------------------------------------------------------------------
// unwritable folders

/// Compiles twice through a cache whose folder cannot be written and checks it degrades
/// to memory only.
fn assert_degrades_to_memory(c: &KernelCache, tag: &str) {
    assert!(c.dir().is_some(), "nothing is tried before the first write");
    let src = kernel(tag);
    let img = c.compile(&src, &CompileOptions::default(), ARCH).unwrap();
    assert!(img.is_cubin && img.image.starts_with(b"\x7fELF"));
    assert_eq!(c.dir(), None, "the cache should be memory-only now");
    assert_eq!(c.stats(), stats(0, 0, 1, 0, 0));
    // still caches in memory, and further new kernels compile
    c.compile(&src, &CompileOptions::default(), ARCH).unwrap();
    c.compile(
        &kernel(&format!("{tag} 2")),
        &CompileOptions::default(),
        ARCH,
    )
    .unwrap();
    assert_eq!(c.stats(), stats(1, 0, 2, 0, 0));
    assert!(c.entries().unwrap().is_empty());
}

#[cfg(unix)]
#[test]
fn read_only_folder_degrades_to_memory_only() {
    use std::os::unix::fs::PermissionsExt;
    require_nvrtc!();
    let t = tmp();
    let ro = t.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o500)).unwrap();
    /// Gives the folder its permissions back so the temp dir can be removed.
    struct Restore(PathBuf);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o700));
        }
    }
    let _restore = Restore(ro.clone());
    if std::fs::write(ro.join("probe"), b"x").is_ok() {
        common::skip(
            common::Need::Other,
            "a 0o500 folder is writable here (running as root); \
             unwritable_cache_path_degrades_to_memory_only covers the degrade path",
        );
        return;
    }
    let c = KernelCache::new(Some(ro.clone()));
    assert_degrades_to_memory(&c, "read-only folder");
    assert!(files_under(&ro).is_empty());
}

#[test]
fn unwritable_cache_path_degrades_to_memory_only() {
    require_nvrtc!();
    let t = tmp();
    // A regular file where a folder should be: nothing below it can be created, even by root.
    let afile = t.path().join("afile");
    std::fs::write(&afile, b"not a folder").unwrap();
    let c = KernelCache::new(Some(afile.join("cache")));
    assert_degrades_to_memory(&c, "path below a file");
    assert_eq!(std::fs::read(&afile).unwrap(), b"not a folder");
}

// ---------------------------------------------------------------------------------------
// concurrency

#[test]
fn sixteen_threads_compile_once() {
    require_nvrtc!();
    let t = tmp();
    let c = cache_in(t.path());
    let src = kernel("sixteen threads");
    let opts = CompileOptions::default();
    let barrier = Barrier::new(16);
    let images: Vec<Arc<CompiledImage>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..16)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    c.compile(&src, &opts, ARCH).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(images.len(), 16);
    for img in &images {
        assert!(Arc::ptr_eq(img, &images[0]), "all threads share one image");
    }
    assert!(images[0].image.starts_with(b"\x7fELF"));
    assert_eq!(c.stats(), stats(15, 0, 1, 1, 0));
    assert_eq!(c.entries().unwrap().len(), 1);
}

// ---------------------------------------------------------------------------------------
// what an entry holds, and where

const TEMPLATE: &str = "template<typename T, int N> __global__ void scale(T* x) {\n\
                        \x20 x[threadIdx.x] *= T(N);\n\
                        }\n";

#[test]
fn name_expressions_survive_the_disk_round_trip() {
    require_nvrtc!();
    let t = tmp();
    let opts = CompileOptions::default()
        .name_expression("scale<float, 4>")
        .name_expression("scale<double, 2>");
    let c1 = cache_in(t.path());
    let img = c1.compile(TEMPLATE, &opts, ARCH).unwrap();
    let exprs: Vec<&str> = img.lowered_names.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(exprs, ["scale<float, 4>", "scale<double, 2>"]);
    for (e, l) in &img.lowered_names {
        assert!(l.starts_with("_Z"), "{e} -> {l}");
        assert!(
            contains_bytes(&img.image, l.as_bytes()),
            "{l} not in the cubin"
        );
    }
    assert_ne!(img.lowered_names[0].1, img.lowered_names[1].1);

    let c2 = cache_in(t.path());
    let back = c2.compile(TEMPLATE, &opts, ARCH).unwrap();
    assert_eq!(c2.stats(), stats(0, 1, 0, 0, 0));
    assert_eq!(back.lowered_names, img.lowered_names);
    assert_same_image(&img, &back);
}

#[test]
fn entries_live_in_private_two_hex_digit_shards() {
    require_nvrtc!();
    let t = tmp();
    let c = cache_in(t.path());
    let src = kernel("shards");
    let opts = CompileOptions::default();
    c.compile(&src, &opts, ARCH).unwrap();
    let key = hex(&KernelCache::key(&src, &opts, ARCH));

    // exactly one file: the entry (no temp file left behind)
    let files = files_under(t.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let entry = &files[0];
    let stem = entry.file_stem().unwrap().to_str().unwrap();
    assert_eq!(stem, key);
    assert_eq!(stem.len(), 64);
    assert!(
        stem.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(entry.extension().unwrap(), "cubin");
    let shard = entry.parent().unwrap();
    assert_eq!(shard.file_name().unwrap().to_str().unwrap(), &key[..2]);
    assert_eq!(shard.parent().unwrap(), t.path().join("cache"));
    assert_eq!(c.entries().unwrap()[0].path, *entry);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(shard).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "shard mode {mode:o}");
    }
}

// ---------------------------------------------------------------------------------------
// hygiene: whose entries are read, and where the tests' own compiles go

/// Two entries (sources `a` and `b`) in a fresh cache folder; returns the folder's temp
/// dir and the two entry paths.
fn two_entries(tag: &str) -> (tempfile::TempDir, String, String, PathBuf, PathBuf) {
    let t = tmp();
    let c = cache_in(t.path());
    let (a, b) = (kernel(&format!("{tag} a")), kernel(&format!("{tag} b")));
    let opts = CompileOptions::default();
    c.compile(&a, &opts, ARCH).unwrap();
    c.compile(&b, &opts, ARCH).unwrap();
    let path = |src: &str| {
        let key = hex(&KernelCache::key(src, &opts, ARCH));
        t.path()
            .join("cache")
            .join(&key[..2])
            .join(format!("{key}.cubin"))
    };
    let (pa, pb) = (path(&a), path(&b));
    assert!(pa.is_file() && pb.is_file());
    (t, a, b, pa, pb)
}

#[cfg(unix)]
#[test]
fn an_entry_of_another_user_is_ignored_and_replaced() {
    use std::os::unix::fs::MetadataExt;
    require_nvrtc!();
    // SAFETY: geteuid takes no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        common::skip(
            common::Need::Other,
            "giving a file to another user needs root; the ownership rule is unit-tested in \
             compile::cache",
        );
        return;
    }
    let (t, _, b, _, pb) = two_entries("foreign");
    // Another user "plants" the entry: same bytes, their file.
    std::os::unix::fs::chown(&pb, Some(12345), Some(12345)).unwrap();
    let c = cache_in(t.path());
    c.compile(&b, &CompileOptions::default(), ARCH).unwrap();
    // not read: compiled again, and the entry rewritten as this user's
    assert_eq!(c.stats(), stats(0, 0, 1, 1, 1));
    assert_eq!(std::fs::metadata(&pb).unwrap().uid(), 0);
    let again = cache_in(t.path());
    again.compile(&b, &CompileOptions::default(), ARCH).unwrap();
    assert_eq!(again.stats(), stats(0, 1, 0, 0, 0));
}

#[test]
fn an_entry_copied_to_another_key_is_a_miss() {
    require_nvrtc!();
    let (t, _, b, pa, pb) = two_entries("moved");
    // a valid entry of `a`, under the name of `b`'s key: its checksum is keyed with `a`'s key
    std::fs::copy(&pa, &pb).unwrap();
    let c = cache_in(t.path());
    let img = c.compile(&b, &CompileOptions::default(), ARCH).unwrap();
    assert_eq!(c.stats(), stats(0, 0, 1, 1, 1));
    assert!(contains_bytes(&img.image, b"add_one"));
    assert_ne!(std::fs::read(&pa).unwrap(), std::fs::read(&pb).unwrap());
}

#[cfg(unix)]
#[test]
fn a_link_in_place_of_an_entry_is_not_followed() {
    require_nvrtc!();
    let (t, _, b, pa, pb) = two_entries("link");
    std::fs::remove_file(&pb).unwrap();
    std::os::unix::fs::symlink(&pa, &pb).unwrap();
    let c = cache_in(t.path());
    c.compile(&b, &CompileOptions::default(), ARCH).unwrap();
    assert_eq!(c.stats(), stats(0, 0, 1, 1, 1));
    // the link was replaced by a file of its own
    assert!(!std::fs::symlink_metadata(&pb).unwrap().is_symlink());
}

#[cfg(unix)]
#[test]
fn every_folder_level_the_cache_creates_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    require_nvrtc!();
    let t = tmp();
    let root = t.path().join("x").join("y");
    let c = KernelCache::new(Some(root.join("cache")));
    c.compile(&kernel("levels"), &CompileOptions::default(), ARCH)
        .unwrap();
    let entry = only_entry(t.path());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let mut level = entry.parent().unwrap();
    while level != t.path() {
        assert_eq!(mode(level), 0o700, "{}", level.display());
        level = level.parent().unwrap();
    }
    assert_eq!(mode(&entry), 0o600);
}

/// The harness points this binary's global cache at the tests' shared folder in cargo's
/// target folder (or the one `CUPRUM_TEST_CACHE_DIR` names), never the user's.
#[test]
fn this_test_binary_compiles_into_the_tests_cache() {
    common::setup();
    let dir = KernelCache::global().unwrap().dir();
    let dir = dir.expect("the test cache is on disk");
    assert_ne!(dir, cuprum::compile::default_dir());
    let expected = std::env::var_os("CUPRUM_TEST_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(common::shared_test_cache_dir)
        .unwrap();
    assert_eq!(dir, expected);
    assert!(dir.is_dir(), "{}", dir.display());
}

#[test]
fn entries_lists_and_clear_removes() {
    require_nvrtc!();
    let t = tmp();
    let c = cache_in(t.path());
    assert!(c.entries().unwrap().is_empty(), "no folder yet: no entries");
    let sources: Vec<String> = (0..3).map(|i| kernel(&format!("entries {i}"))).collect();
    for s in &sources {
        c.compile(s, &CompileOptions::default(), ARCH).unwrap();
    }
    let entries = c.entries().unwrap();
    assert_eq!(entries.len(), 3);
    let mut expected: Vec<PathBuf> = sources
        .iter()
        .map(|s| {
            let k = hex(&KernelCache::key(s, &CompileOptions::default(), ARCH));
            t.path()
                .join("cache")
                .join(&k[..2])
                .join(format!("{k}.cubin"))
        })
        .collect();
    expected.sort();
    let listed: Vec<PathBuf> = entries.iter().map(|e| e.path.clone()).collect();
    assert_eq!(listed, expected, "entries() is sorted by path");
    for e in &entries {
        assert_eq!(e.bytes, std::fs::metadata(&e.path).unwrap().len());
        assert!(e.bytes > 100);
    }
    // foreign files in the folder are not entries
    std::fs::write(t.path().join("cache").join("README"), "x").unwrap();
    assert_eq!(c.entries().unwrap().len(), 3);

    assert_eq!(c.clear().unwrap(), 3);
    assert!(c.entries().unwrap().is_empty());
    for p in &expected {
        assert!(!p.exists(), "{} survived clear()", p.display());
    }
    assert_eq!(c.clear().unwrap(), 0);
    // clear() also forgets the memo: the next compile is a miss
    c.compile(&sources[0], &CompileOptions::default(), ARCH)
        .unwrap();
    assert_eq!(c.stats(), stats(0, 0, 4, 4, 0));
}

#[test]
fn save_source_writes_the_source_beside_the_entry() {
    require_nvrtc!();
    let t = tmp();
    let src = kernel("save source \u{00e9}");
    let c = cache_in(t.path()).with_save_source(true);
    c.compile(&src, &CompileOptions::default(), ARCH).unwrap();
    let entry = only_entry(t.path());
    let cu = entry.with_extension("cu");
    assert_eq!(std::fs::read_to_string(&cu).unwrap(), src);
    assert_eq!(files_under(t.path()).len(), 2);
    assert_eq!(c.clear().unwrap(), 1);
    assert!(!cu.exists(), "clear() removes the saved source too");
    assert!(files_under(t.path()).is_empty());

    // without the switch, no source is written
    let t2 = tmp();
    let plain = cache_in(t2.path());
    plain
        .compile(&src, &CompileOptions::default(), ARCH)
        .unwrap();
    assert!(!only_entry(t2.path()).with_extension("cu").exists());
}

// ---------------------------------------------------------------------------------------
// compile errors

struct Broken<'a> {
    name: &'a str,
    source: &'a str,
    /// The line NVRTC reports.
    line: usize,
    /// Text of NVRTC's message.
    log_text: &'a str,
}

fn check_compile_error(b: &Broken) {
    let t = tmp();
    let c = cache_in(t.path());
    let opts = CompileOptions::default().program_name(b.name);
    let err = c.compile(b.source, &opts, ARCH).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Compile, "{err}");
    let msg = err.to_string();
    let lines: Vec<&str> = b.source.lines().collect();
    let bad = lines[b.line - 1];
    assert!(
        msg.contains(&format!("{}:{}: ", b.name, b.line)),
        "message does not name {}:{}:\n{msg}",
        b.name,
        b.line
    );
    assert!(
        msg.contains(&format!(">{:>6} | {bad}", b.line)),
        "message does not mark line {}:\n{msg}",
        b.line
    );
    assert!(msg.contains(b.log_text), "{msg}");

    let log = err.compile_log().unwrap();
    assert!(log.contains(b.log_text), "{log}");
    assert!(log.contains(&format!("{}({})", b.name, b.line)), "{log}");

    let f = err.compile_failure().unwrap();
    assert_eq!(f.name, b.name);
    assert_eq!(f.source, b.source);
    let first = &f.errors()[0];
    assert_eq!((first.file.as_str(), first.line), (b.name, b.line));
    let dump = f.dump();
    assert!(dump.starts_with("NVRTC compilation error: "), "{dump}");
    assert!(dump.contains(&format!("\nName: {}\n", b.name)), "{dump}");
    // (then the CUDA include folders: the source includes a header cuprum does not bundle)
    assert!(
        dump.contains("\nOptions: -arch=sm_90 --std=c++17"),
        "{dump}"
    );
    let numbered: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{:05} {l}\n", i + 1))
        .collect();
    assert!(
        dump.contains(&format!("CUDA source:\n{numbered}-----\n")),
        "{dump}"
    );

    // failures are not cached: a second call compiles again, and nothing is written
    assert_eq!(c.stats(), stats(0, 0, 1, 0, 0));
    let again = c.compile(b.source, &opts, ARCH).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Compile);
    assert_eq!(c.stats(), stats(0, 0, 2, 0, 0));
    assert!(c.entries().unwrap().is_empty());
}

#[test]
fn syntax_error_points_at_the_line() {
    require_nvrtc!();
    check_compile_error(&Broken {
        name: "syntax.cu",
        source: "extern \"C\" __global__ void k(float* x) {\n\
                 \x20 float y = x[0]\n\
                 \x20 x[0] = y * 2.0f;\n\
                 }\n",
        line: 3,
        log_text: "expected a \";\"",
    });
}

#[test]
fn unknown_identifier_points_at_the_line() {
    require_nvrtc!();
    check_compile_error(&Broken {
        name: "unknown.cu",
        source: "extern \"C\" __global__ void k(float* x) {\n\
                 \x20 float y = x[0];\n\
                 \x20 x[0] = y + foo;\n\
                 }\n",
        line: 3,
        log_text: "identifier \"foo\" is undefined",
    });
}

#[test]
fn missing_include_points_at_the_line() {
    require_nvrtc!();
    check_compile_error(&Broken {
        name: "kernel.cu",
        source: "// uses a header that is not there\n\
                 #include \"does_not_exist.h\"\n\
                 extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n",
        line: 2,
        log_text: "cannot open source file \"does_not_exist.h\"",
    });
}

#[test]
fn a_failed_compile_is_retried_after_the_fix() {
    require_nvrtc!();
    let t = tmp();
    let inc = tmp();
    let c = cache_in(t.path());
    let src = "#include \"late.h\"\nextern \"C\" __global__ void k(float* x) { x[0] = LATE; }\n";
    let opts = CompileOptions::default().include_path(inc.path());
    let err = c.compile(src, &opts, ARCH).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Compile);
    assert!(
        err.compile_log().unwrap().contains("late.h"),
        "{:?}",
        err.compile_log()
    );
    // the same key, now that the header exists
    std::fs::write(inc.path().join("late.h"), "#define LATE 2.5f\n").unwrap();
    let img = c.compile(src, &opts, ARCH).unwrap();
    assert!(img.is_cubin);
    assert_eq!(c.stats(), stats(0, 0, 2, 1, 0));
}

// ---------------------------------------------------------------------------------------
// bundled headers, ptxas reports, PTX fallback

#[test]
fn bundled_headers_compile_for_sm90() {
    require_nvrtc!();
    let t = tmp();
    let src = r#"#include <cuprum/all.cuh>
extern "C" __global__ void mix(CArray<float, 2> a, complex<double>* z, float16* h, bfloat16* b) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= a.size()) return;
  complex<double> w = z[i] * complex<double>(1.0, 2.0) + complex<double>(0.5);
  w = exp(w) / (w - complex<double>(3.0, -1.0));
  w += conj(w) * complex<double>(abs(w));
  double m = abs(w);
  float16 hv = float16(a[i]) * float16(2.0f) + float16(m);
  bfloat16 bv = bfloat16(m) - bfloat16(float(hv));
  h[i] = hv;
  b[i] = bv;
  a[i] = float(bv) + float(hv);
  z[i] = w;
}
"#;
    let c = cache_in(t.path());
    let opts = CompileOptions::default().option("-Xptxas=-v");
    let img = c
        .compile(src, &opts, ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(img.is_cubin && img.image.starts_with(b"\x7fELF"));
    // ptxas also reports device functions the kernel calls (e.g. the slow path of the
    // double-precision trig reduction), so look the kernel up by name.
    let res = resource_usage(&img.log);
    let mix = res
        .iter()
        .find(|r| r.name == "mix")
        .unwrap_or_else(|| panic!("mix not in {res:?}\n{}", img.log));
    assert!(mix.registers > 0, "{mix:?}");
    assert_eq!(mix.shared_bytes, 0, "{mix:?}");
}

#[test]
fn resource_usage_reports_registers_and_shared_memory() {
    require_nvrtc!();
    let t = tmp();
    let src = "extern \"C\" __global__ void smem_kernel(float* x) {\n\
               \x20 __shared__ float s[64];\n\
               \x20 s[threadIdx.x] = x[threadIdx.x];\n\
               \x20 __syncthreads();\n\
               \x20 x[threadIdx.x] = s[63 - threadIdx.x] * 3.0f;\n\
               }\n";
    let opts = CompileOptions::default().option("-Xptxas=-v");
    let c = cache_in(t.path());
    let img = c.compile(src, &opts, ARCH).unwrap();
    let res = resource_usage(&img.log);
    let k = res
        .iter()
        .find(|r| r.name == "smem_kernel")
        .unwrap_or_else(|| panic!("smem_kernel not in {res:?}\n{}", img.log));
    assert!(k.registers > 0, "{k:?}");
    assert_eq!(k.shared_bytes, 256, "{k:?}");
    assert_eq!((k.spill_store_bytes, k.spill_load_bytes), (0, 0));

    // the log (and so the report) is kept in the disk entry
    let c2 = cache_in(t.path());
    let back = c2.compile(src, &opts, ARCH).unwrap();
    assert_eq!(c2.stats().disk_hits, 1);
    assert_eq!(resource_usage(&back.log), res);

    // without -Xptxas=-v there is no report
    let quiet = c.compile(src, &CompileOptions::default(), ARCH).unwrap();
    assert!(resource_usage(&quiet.log).is_empty(), "{}", quiet.log);
}

const PTX_SRC: &str = "extern \"C\" __global__ void ptx_k(int* x) { x[0] = 7; }\n";

fn check_ptx(img: &CompiledImage) {
    let newest = *nvrtc().unwrap().supported_archs().iter().max().unwrap();
    assert!(!img.is_cubin);
    let text = std::str::from_utf8(&img.image).unwrap();
    assert!(text.contains(".entry ptx_k"), "{text}");
    assert!(text.contains(&format!(".target sm_{newest}")), "{text}");
    assert!(!text.starts_with("\x7fELF"));
}

#[test]
#[ignore = "helper: run by compile_for_arch_of_an_unknown_arch_gives_ptx in a child process"]
fn child_compile_for_unknown_arch() {
    require_nvrtc!();
    if !child_mode("child_compile_for_unknown_arch") {
        return;
    }
    let img = compile_for_arch(PTX_SRC, &CompileOptions::default(), 990).unwrap();
    check_ptx(&img);
    println!("PTX_BYTES={}", img.image.len());
}

#[test]
fn compile_for_arch_of_an_unknown_arch_gives_ptx() {
    require_nvrtc!();
    assert!(!nvrtc().unwrap().supported_archs().contains(&990));
    // compile_for_arch goes through the global cache: run it in a child process whose
    // global cache is a temp folder.
    let t = tmp();
    let out = run_child(
        "child_compile_for_unknown_arch",
        &[("CUPRUM_CACHE_DIR", t.path())],
    );
    let n: usize = out
        .lines()
        .find_map(|l| l.split_once("PTX_BYTES=").map(|(_, n)| n.trim()))
        .unwrap_or_else(|| panic!("no PTX_BYTES= line in\n{out}"))
        .parse()
        .unwrap();

    // The child's global cache wrote its entry to that folder; read it back here, with the
    // PTX flag intact.
    let c = KernelCache::new(Some(t.path().to_path_buf()));
    let img = c.compile(PTX_SRC, &CompileOptions::default(), 990).unwrap();
    assert_eq!(c.stats(), stats(0, 1, 0, 0, 0));
    assert_eq!(img.image.len(), n);
    check_ptx(&img);
}

#[test]
fn compile_log_has_no_nul_bytes() {
    require_nvrtc!();
    let src = "extern \"C\" __global__ void nul_k(float* x) { x[0] = 1.0f; }\n";
    let img = KernelCache::new(None)
        .compile(src, &CompileOptions::default().option("-Xptxas=-v"), ARCH)
        .unwrap();
    assert!(img.log.contains("nul_k"), "{:?}", img.log);
    assert!(!img.log.contains('\0'), "NUL in the log: {:?}", img.log);
}
