//! `cuprum setup`, `cuprum setup --check`, the setup `compile` runs on first need, and
//! `--arch` targets — each in an empty home folder with a stand-in Python whose "pip"
//! links this machine's NVRTC and headers into the target folder (no network).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's test harness: visible skips naming the test.
#[path = "../../cuprum/tests/common/harness.rs"]
mod harness;

/// `cuprum` in an empty home: no cuprum, CUDA or Python settings inherited; the Python is
/// `python` (a stand-in); the kernel cache inside the home.
fn cuprum_in(home: &Path, python: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cuprum"));
    for v in [
        "CUPRUM_NVRTC",
        "CUPRUM_CUDA_INCLUDE",
        "CUPRUM_DATA_DIR",
        "CUPRUM_CACHE_DIR",
        "CUPRUM_CACHE_IN_MEMORY",
        "CUPRUM_NO_AUTO_SETUP",
        "CUDA_HOME",
        "CUDA_PATH",
        "LD_LIBRARY_PATH",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
    ] {
        c.env_remove(v);
    }
    c.env("HOME", home).env("CUPRUM_PYTHON", python);
    c
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "success: {}\n--- stdout\n{}--- stderr\n{}",
            self.ok, self.stdout, self.stderr
        )
    }
}

fn run(cmd: &mut Command) -> Run {
    let o = cmd.output().expect("cannot run the cuprum binary");
    let r = Run {
        ok: o.status.success(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!r.stderr.contains("panicked"), "the CLI panicked\n{r}");
    r
}

/// A stand-in Python: `-c` (the site-packages question) answers none; `-m pip --version`
/// works; `-m pip install --target T` links NVRTC's folder and the include folder this
/// machine has into `T` in the wheel layout, and writes the wheels' `dist-info` folders.
/// `None` without NVRTC and headers here.
fn stand_in_python(dir: &Path) -> Option<PathBuf> {
    let n = cuprum::compile::nvrtc().ok()?;
    let lib = Path::new(n.path()).parent()?.to_path_buf();
    let include = cuprum::compile::locate().include_dirs.first()?.clone();
    let p = dir.join("python3");
    let script = format!(
        "#!/bin/sh\n\
         case \"$1\" in -c) exit 0;; esac\n\
         if [ \"$3\" = \"--version\" ]; then echo 'pip 24.0 (stand-in)'; exit 0; fi\n\
         T=''\nwhile [ $# -gt 0 ]; do if [ \"$1\" = \"--target\" ]; then T=\"$2\"; fi; shift; done\n\
         echo 'Collecting nvidia-cuda-nvrtc (stand-in)'\n\
         mkdir -p \"$T/nvidia/cu13\" && ln -s '{}' \"$T/nvidia/cu13/lib\" && ln -s '{}' \"$T/nvidia/cu13/include\"\n\
         for w in nvrtc runtime cccl crt; do mkdir -p \"$T/nvidia_cuda_$w-13.0.1.dist-info\"; done\n",
        lib.display(),
        include.display()
    );
    std::fs::write(&p, script).ok()?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).ok()?;
    Some(p)
}

fn available() -> bool {
    let ok = cuprum::compile::nvrtc().is_ok() && cuprum::compile::cuda_headers().len() == 3;
    if !ok {
        harness::skip(
            harness::Need::Nvrtc,
            "no NVRTC and CUDA headers here to stand in for a download",
        );
    }
    ok
}

const KERNEL: &str = "#include <cub/warp/warp_reduce.cuh>\n\
    extern \"C\" __global__ void warp_sum(const int* x, int* out) {\n\
    __shared__ cub::WarpReduce<int>::TempStorage t;\n\
    int s = cub::WarpReduce<int>(t).Sum(x[threadIdx.x]);\n\
    if (threadIdx.x == 0) out[0] = s;\n}\n";

#[test]
fn compile_sets_up_on_first_need_then_finds_the_data_folder() {
    if !available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let python = stand_in_python(t.path()).unwrap();
    let file = t.path().join("warp.cu");
    std::fs::write(&file, KERNEL).unwrap();
    let data = home.join(".local/share/cuprum/cuda-13");

    // Opted out: nothing is downloaded, and the error says how to get NVRTC.
    let r = run(cuprum_in(&home, &python)
        .env("CUPRUM_NO_AUTO_SETUP", "1")
        .arg("compile")
        .arg(&file));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr
            .contains("NVRTC (the CUDA 13 runtime compiler) not found"),
        "{r}"
    );
    assert!(r.stderr.contains("run `cuprum setup`"), "{r}");
    assert!(!data.exists(), "{r}");

    // `setup --check` reports what is missing and downloads nothing.
    let r = run(cuprum_in(&home, &python).args(["setup", "--check"]));
    assert!(!r.ok, "{r}");
    assert!(
        r.stdout
            .contains("nvrtc            MISSING (pip package nvidia-cuda-nvrtc)"),
        "{r}"
    );
    assert!(
        r.stdout
            .contains("cccl headers     MISSING (pip package nvidia-cuda-cccl)"),
        "{r}"
    );
    assert!(
        r.stdout.contains(&format!(
            "`cuprum setup` would run: {} -m pip install --target {}",
            python.display(),
            data.display()
        )),
        "{r}"
    );
    assert!(!data.exists(), "{r}");

    // First need: the setup runs, says what it downloads and where, then the compile works.
    let r = run(cuprum_in(&home, &python).arg("compile").arg(&file));
    assert!(r.ok, "{r}");
    assert!(
        r.stderr
            .contains("cuprum compile needs NVRTC, which this machine lacks"),
        "{r}"
    );
    assert!(
        r.stderr
            .contains("cuprum: installing NVRTC and the CUDA headers (nvidia-cuda-nvrtc")
            && r.stderr.contains(&format!("into {}", data.display())),
        "{r}"
    );
    assert!(
        r.stdout.contains("Collecting nvidia-cuda-nvrtc (stand-in)"),
        "{r}"
    );
    assert!(r.stdout.contains("warp.cu: cubin for sm_"), "{r}");
    assert!(r.stdout.contains("warp_sum"), "{r}");

    // From now on everything comes from the data folder, and nothing is downloaded again.
    let r = run(cuprum_in(&home, &python).arg("info"));
    assert!(r.ok, "{r}");
    let nvrtc = r.stdout.lines().find(|l| l.starts_with("nvrtc:")).unwrap();
    assert!(
        nvrtc.contains(&format!("from {}/nvidia/cu13/lib/", data.display()))
            && nvrtc.contains("(cuprum's data folder; package 13.0.1)"),
        "{r}"
    );
    let headers: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("headers:"))
        .collect();
    assert_eq!(headers.len(), 3, "{r}");
    assert!(
        headers
            .iter()
            .all(|l| l.contains("(cuprum's data folder; 13.0.1)")),
        "{r}"
    );
    assert!(r.stdout.contains("(complete)"), "{r}");
    let r = run(cuprum_in(&home, &python).args(["setup", "--check"]));
    assert!(r.ok, "{r}");
    assert!(r.stdout.contains("has every component"), "{r}");
    let r = run(cuprum_in(&home, &python).arg("setup"));
    assert!(r.ok, "{r}");
    assert!(
        r.stdout
            .starts_with(&format!("already installed in {}", data.display())),
        "{r}"
    );
    assert!(!r.stdout.contains("stand-in"), "{r}");
}

#[test]
fn without_python_setup_says_what_to_install() {
    let t = tempfile::tempdir().unwrap();
    let r = run(cuprum_in(t.path(), Path::new("/nonexistent/python3")).arg("setup"));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr
            .contains("`/nonexistent/python3` was not found. Install Python 3 with pip"),
        "{r}"
    );
    assert!(r.stderr.contains("install the CUDA 13 toolkit"), "{r}");
    assert!(!t.path().join(".local/share/cuprum/cuda-13").exists());
}

#[test]
fn arch_targets_are_checked_against_nvrtc() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("k.cu");
    std::fs::write(
        &file,
        "extern \"C\" __global__ void k(int* x) { x[0] = 1; }\n",
    )
    .unwrap();
    let cache = t.path().join("kernels");
    let cli = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuprum"));
        c.env("CUPRUM_CACHE_DIR", &cache)
            .env("CUPRUM_NO_AUTO_SETUP", "1");
        c
    };
    let r = run(cli().arg("compile").arg(&file).args(["--arch", "hopper"]));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr.contains("--arch \"hopper\": expected sm_XX"),
        "{r}"
    );
    if cuprum::compile::nvrtc().is_err() {
        harness::skip(harness::Need::Nvrtc, "the rest of the test: no NVRTC");
        return;
    }
    for (arch, what) in [
        ("sm_90a", "cubin for sm_90a"),
        ("sm_100f", "cubin for sm_100f"),
        ("compute_90", "PTX for compute_90"),
    ] {
        let r = run(cli().arg("compile").arg(&file).args(["--arch", arch]));
        assert!(r.ok, "{r}");
        assert!(r.stdout.contains(what), "{r}");
    }
    let r = run(cli().arg("compile").arg(&file).args(["--arch", "sm_91"]));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr
            .contains("--arch \"sm_91\" is not a target NVRTC 13."),
        "{r}"
    );
    assert!(r.stderr.contains("sm_90 sm_100"), "{r}");
    assert!(r.stderr.contains("sm_90a sm_100a"), "{r}");
}
