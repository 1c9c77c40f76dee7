//! Where NVRTC and the CUDA headers are found, end to end: each scenario runs this test
//! binary again in a child process with its own environment (the search reads the
//! environment once per process), so no test changes another's answer. No GPU needed.
//! Scenarios: the not-found message naming every place and the fixes, the data folder found
//! first, the note a missing CUDA header gets, and a changed header never served from the
//! cache. The search itself is unit-tested over fake folder trees in
//! `src/compile/discovery.rs` and `src/compile/python.rs`; `cuprum setup` and the setup on
//! first need are tested in `crates/cuprum-cli/tests/setup.rs`.

mod common;

use cuprum::ErrorKind;
use cuprum::compile::{CompileOptions, KernelCache, Origin, compile_for_arch, nvrtc};
use std::path::{Path, PathBuf};
use std::process::Command;

const CHILD: &str = "CUPRUM_DISCOVERY_CHILD";

/// Runs the test `name` of this binary in a child with `vars` set (and cuprum's own
/// variables removed unless given); returns its output, panicking when it failed.
fn child(name: &str, vars: &[(&str, &Path)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--nocapture", "--test-threads=1"]);
    for v in [
        "CUPRUM_NVRTC",
        "CUPRUM_CUDA_INCLUDE",
        "CUPRUM_DATA_DIR",
        "CUPRUM_CACHE_DIR",
        "CUPRUM_CACHE_IN_MEMORY",
    ] {
        cmd.env_remove(v);
    }
    cmd.env(CHILD, "1");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {name} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child {name} did not run:\n{text}"
    );
    text
}

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// The value a child printed as `name=value`.
fn printed<'a>(text: &'a str, name: &str) -> &'a str {
    let key = format!("{name}=");
    text.lines()
        .find_map(|l| l.find(key.as_str()).map(|i| &l[i + key.len()..]))
        .unwrap_or_else(|| panic!("no {name}= in:\n{text}"))
}

// ------------------------------------------------------------------------------------

#[test]
fn not_found_names_every_place_and_the_fixes() {
    if in_child() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_not_found", "--nocapture"])
        .env(CHILD, "1")
        .env("CUPRUM_DATA_DIR", tmp.path())
        .env("CUPRUM_PYTHON", "/nonexistent/python3")
        .env_remove("CUPRUM_NVRTC")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}

#[test]
fn child_not_found() {
    if !in_child() {
        return;
    }
    let e = match nvrtc() {
        Ok(n) => {
            // A machine with NVRTC in /usr/local/cuda or on the loader path: nothing to test.
            eprintln!(
                "SKIPPED child_not_found: NVRTC found at {} ({})",
                n.path(),
                n.found_by()
            );
            return;
        }
        Err(e) => e,
    };
    assert_eq!(e.kind(), ErrorKind::NvrtcNotFound);
    let m = e.to_string();
    let data = std::env::var("CUPRUM_DATA_DIR").unwrap();
    for part in [
        "NVRTC (the CUDA 13 runtime compiler) not found. Looked in: ",
        &format!("cuprum's data folder {data}/cuda-13 (no libnvrtc.so.13)"),
        "/usr/local/cuda (no libnvrtc.so.13)",
        "the site-packages of /nonexistent/python3 (not found)",
        "the system library path (libnvrtc.so.13, libnvrtc.so)",
        "run `cuprum setup` (in a program: `cuprum::setup()`)",
        &format!("into {data}/cuda-13"),
        "-m pip install \"nvidia-cuda-nvrtc==13.0.*\"",
        "install the CUDA 13 toolkit",
        "CUPRUM_NVRTC",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    // The same answer on every call (nothing remembered on disk, nothing half-found).
    assert_eq!(nvrtc().unwrap_err().to_string(), m);
    assert!(!Path::new(&data).join("cuda-13").exists());
}

/// Builds `<data>/cuda-13` from the NVRTC and headers this machine has (symbolic links in
/// the wheel layout `cuprum setup` makes), as if `cuprum setup` had run.
fn fake_setup(data: &Path) -> Option<PathBuf> {
    let n = nvrtc().ok()?;
    let lib = Path::new(n.path()).parent()?.to_path_buf();
    let include = cuprum::compile::locate().include_dirs.first()?.clone();
    let base = data.join("cuda-13/nvidia/cu13");
    std::fs::create_dir_all(&base).unwrap();
    std::os::unix::fs::symlink(&lib, base.join("lib")).unwrap();
    std::os::unix::fs::symlink(&include, base.join("include")).unwrap();
    Some(base)
}

#[test]
fn the_data_folder_is_found_first() {
    if in_child() || !common::nvrtc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let Some(base) = fake_setup(tmp.path()) else {
        common::skip(
            common::Need::Other,
            "no NVRTC library or CUDA include folder to link into a fake data folder",
        );
        return;
    };
    let text = child("child_data_folder", &[("CUPRUM_DATA_DIR", tmp.path())]);
    assert_eq!(
        printed(&text, "nvrtc"),
        base.join("lib/libnvrtc.so.13").display().to_string()
    );
    assert_eq!(printed(&text, "headers"), "cuprum's data folder");
}

#[test]
fn child_data_folder() {
    if !in_child() {
        return;
    }
    let n = nvrtc().unwrap();
    assert_eq!(n.found_by(), &Origin::DataFolder);
    println!("nvrtc={}", n.path());
    let headers = cuprum::compile::cuda_headers();
    assert_eq!(headers.len(), 3, "{headers:?}");
    assert!(headers.iter().all(|f| f.origin == Origin::DataFolder));
    println!("headers={}", headers[0].origin);
    // The include folders come by themselves, from the data folder.
    let broken = "#include <cooperative_groups.h>\nextern \"C\" __global__ void k() { nope; }";
    let e = compile_for_arch(broken, &CompileOptions::default(), 90).unwrap_err();
    let opts = e.compile_failure().unwrap().options.join(" ");
    let data = std::env::var("CUPRUM_DATA_DIR").unwrap();
    assert!(
        opts.contains(&format!("-I{data}/cuda-13/nvidia/cu13/include")),
        "{opts}"
    );
    let ok = "#include <cub/warp/warp_reduce.cuh>\nextern \"C\" __global__ void k(int* x) {\
              __shared__ cub::WarpReduce<int>::TempStorage t; x[0] = cub::WarpReduce<int>(t).Sum(x[threadIdx.x]); }";
    compile_for_arch(ok, &CompileOptions::default(), 90).unwrap();
}

#[test]
fn a_missing_cuda_header_says_what_to_install() {
    if in_child() || !common::nvrtc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty-include");
    std::fs::create_dir_all(&empty).unwrap();
    child("child_missing_header", &[("CUPRUM_CUDA_INCLUDE", &empty)]);
}

#[test]
fn child_missing_header() {
    if !in_child() {
        return;
    }
    let dir = std::env::var("CUPRUM_CUDA_INCLUDE").unwrap();
    let src = "#include <cub/block/block_reduce.cuh>\nextern \"C\" __global__ void k() {}";
    let e = compile_for_arch(src, &CompileOptions::default(), 90).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile);
    let m = e.to_string();
    for part in [
        "cannot open source file \"cub/block/block_reduce.cuh\"",
        "note: `cub/block/block_reduce.cuh` belongs to the CCCL headers (cub/, thrust/, cuda/std/), \
         which cuprum did not find (looked in: CUPRUM_CUDA_INCLUDE=",
        &dir,
        "`cuprum setup` (in a program: `cuprum::setup()`)",
        "pip install \"nvidia-cuda-cccl==13.0.*\"",
        "the CUDA 13 toolkit",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    // A header that is not CUDA's: where to add it.
    let e = compile_for_arch(
        "#include <my_own_header.h>\n__global__ void k() {}",
        &CompileOptions::default(),
        90,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("note: `my_own_header.h` is not a CUDA header cuprum knows; add the folder"),
        "{e}"
    );
}

#[test]
fn a_changed_header_is_never_served_from_the_cache() {
    if in_child() || !common::nvrtc() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let inc = tmp.path().join("include");
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&inc).unwrap();
    // The runtime headers' identity file, standing in for a real one.
    let header = inc.join("cuda_fp16.h");
    std::fs::write(&header, "#define CUPRUM_TEST_VALUE 1\n").unwrap();
    let vars = [
        ("CUPRUM_CUDA_INCLUDE", inc.as_path()),
        ("CUPRUM_CACHE_DIR", &cache),
    ];
    let first = child("child_compile_with_header", &vars);
    assert_eq!(printed(&first, "misses"), "1");
    let again = child("child_compile_with_header", &vars);
    assert_eq!(printed(&again, "disk_hits"), "1");
    assert_eq!(printed(&again, "image"), printed(&first, "image"));
    std::fs::write(&header, "#define CUPRUM_TEST_VALUE 1234567\n").unwrap();
    let changed = child("child_compile_with_header", &vars);
    assert_eq!(printed(&changed, "misses"), "1", "{changed}");
    assert_ne!(printed(&changed, "image"), printed(&first, "image"));
}

#[test]
fn child_compile_with_header() {
    if !in_child() {
        return;
    }
    let src = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(int* x) { x[0] = CUPRUM_TEST_VALUE; }";
    let cache = KernelCache::global().unwrap();
    let img = cache.compile(src, &CompileOptions::default(), 90).unwrap();
    let st = cache.stats();
    println!("misses={}", st.misses);
    println!("disk_hits={}", st.disk_hits);
    println!("image={}", fingerprint(&img.image));
}

fn fingerprint(bytes: &[u8]) -> String {
    // A short fingerprint without another dependency: FNV-1a.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}
