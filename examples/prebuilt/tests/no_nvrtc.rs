//! The prebuilt example: the bundle `build.rs` wrote holds every instance the program
//! launches, exactly as its launches look them up (no NVRTC compile to find them); on a GPU,
//! the program runs with NVRTC hidden and makes zero NVRTC calls; on the host device it
//! runs and matches the CPU.

#[allow(dead_code)]
#[path = "../src/kernels.rs"]
mod kernels;

use cuprum::bundle::KernelRecord;

const BIN: &str = env!("CARGO_BIN_EXE_cuprum-example-prebuilt");

fn instances() -> Vec<KernelRecord> {
    // the program's launches use the default check mode: this build's debug assertions
    cuprum::build::KernelBuild::new()
        .kernel(cuprum::kernel_instance!(kernels::saxpy))
        .kernel(cuprum::kernel_instance!(kernels::scale<f32>))
        .kernel(cuprum::kernel_instance!(kernels::scale<f64>))
        .checked(cfg!(debug_assertions))
        .records()
        .unwrap()
}

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

#[test]
fn the_embedded_bundle_holds_every_instance_the_program_launches() {
    let bundle = cuprum::include_bundle!().unwrap();
    if bundle.kernels() == 0 {
        let why = cuprum::compile::nvrtc().err();
        assert!(
            why.is_some() && !required("CUPRUM_REQUIRE_NVRTC"),
            "the bundle is empty although NVRTC is here"
        );
        eprintln!("SKIPPED: no NVRTC when the example was built: its bundle is empty");
        return;
    }
    assert_eq!(bundle.kernels(), 3);
    assert_eq!(bundle.targets(), ["sm_80", "sm_90", "compute_90"]);
    let mut names = bundle.kernel_names();
    names.sort();
    assert_eq!(names, ["saxpy", "scale<double>", "scale<float>"]);
    for r in instances() {
        let opts = r.options();
        let sm90 = bundle.image_for(r.source(), &opts, 90);
        assert!(sm90.is_some_and(|i| i.is_cubin), "{} on sm_90", r.name());
        let sm86 = bundle.image_for(r.source(), &opts, 86);
        assert!(sm86.is_some_and(|i| i.is_cubin), "{} on sm_86", r.name());
        let sm120 = bundle.image_for(r.source(), &opts, 120);
        assert!(
            sm120.is_some_and(|i| !i.is_cubin),
            "{} on sm_120 (PTX)",
            r.name()
        );
        assert!(bundle.image_for(r.source(), &opts, 75).is_none());
        // the other check mode is another kernel: not in the bundle
        let other = cuprum::build::KernelBuild::new()
            .kernel(cuprum::kernel_instance!(kernels::saxpy))
            .checked(!cfg!(debug_assertions))
            .records()
            .unwrap();
        assert!(
            bundle
                .image_for(other[0].source(), &other[0].options(), 90)
                .is_none()
        );
    }
    assert_eq!(cuprum::internal::nvrtc_compiles(), 0);
}

fn run(env: &[(&str, &str)]) -> String {
    let cache = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(BIN);
    cmd.env("CUPRUM_CACHE_DIR", cache.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the example failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// On a GPU with NVRTC hidden (every discovery path empty): every kernel comes from the
/// embedded bundle, the results match the CPU, and not one NVRTC call is made.
#[test]
fn on_a_gpu_the_program_needs_no_nvrtc() {
    if cuprum::Device::get(0).is_err() {
        assert!(!required("CUPRUM_REQUIRE_GPU"), "no GPU");
        eprintln!("SKIPPED: needs a CUDA GPU");
        return;
    }
    if cuprum::include_bundle!().unwrap().kernels() == 0 {
        assert!(!required("CUPRUM_REQUIRE_NVRTC"), "the bundle is empty");
        eprintln!("SKIPPED: no NVRTC when the example was built: its bundle is empty");
        return;
    }
    let out = run(&[
        ("CUPRUM_NVRTC", "/nonexistent/libnvrtc.so.13"),
        ("CUDA_PATH", "/nonexistent"),
        ("CUDA_HOME", "/nonexistent"),
        ("PYTHONPATH", "/nonexistent"),
        ("CUPRUM_DEVICE", "0"),
    ]);
    assert!(out.contains("on 100003 elements: 0 differ"), "{out}");
    assert!(out.contains("nvrtc compiles: 0"), "{out}");
}

/// On the host device (the CPU; its kernels are built by the C++ compiler) the same program
/// runs and matches the CPU.
#[test]
fn on_the_host_device_the_program_matches_the_cpu() {
    let out = run(&[("CUPRUM_DEVICE", "host")]);
    assert!(out.contains("on 100003 elements: 0 differ"), "{out}");
    assert!(out.contains("nvrtc compiles: 0"), "{out}");
}
