mod common;

// Kernel bundles, recording, precompile and the cache's export/import, without a GPU:
// bundles are built with NVRTC (for sm_80 and sm_90, plus PTX), registered, and lookups
// answered from them without a single NVRTC compile (`cuprum::internal::nvrtc_compiles`);
// a child process with NVRTC hidden (CUPRUM_NVRTC names no library) shows that a bundled
// program needs none and that a missing kernel is a `Bundle` error saying how to add it.
// Damaged, truncated, foreign and later-format bundles are typed errors. The launch of a
// bundled kernel needs a GPU (`bundled_kernel_launches_on_the_gpu`; the GPU suite runs it).

use cuprum::ErrorKind;
use cuprum::bundle::{self, Bundle, KernelRecord};
use cuprum::compile::{CompileOptions, KernelCache, compile_for_arch};
use std::path::Path;

/// The NVRTC compile counter is per process: the tests of this binary that compile or read
/// it run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

const TEMPLATED: &str = r#"
template <typename T, int N>
__global__ void scale(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= T(N);
}
"#;

fn plain(tag: &str) -> String {
    format!(
        "// {tag}\nextern \"C\" __global__ void add_n(float* x, int n) {{\n\
         \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20 if (i < n) x[i] += N;\n}}\n"
    )
}

/// Three kernels: plain with a `-D` option, templated with name expressions, and one with
/// an in-memory header.
fn records(tag: &str) -> Vec<KernelRecord> {
    let with_header = format!(
        "// {tag}\n#include \"consts.h\"\nextern \"C\" __global__ void k(int* x) {{ x[0] = SEVEN; }}\n"
    );
    vec![
        KernelRecord::new(&plain(tag), &CompileOptions::new().option("-DN=3")),
        KernelRecord::new(
            &format!("// {tag}\n{TEMPLATED}"),
            &CompileOptions::new()
                .name_expression("scale<float, 2>")
                .name_expression("scale<double, 4>"),
        ),
        KernelRecord::new(
            &with_header,
            &CompileOptions::new().header("consts.h", "#define SEVEN 7\n"),
        ),
    ]
}

fn built(tag: &str) -> Vec<u8> {
    bundle::build(
        &records(tag),
        &bundle::parse_targets("sm_80,sm_90").unwrap(),
        &|_| {},
    )
    .unwrap()
}

#[test]
fn lookups_hit_the_bundle_without_compiling() {
    let _serial = serial();
    require_nvrtc!();
    let bytes = built("hits");
    let b = Bundle::from_bytes(&bytes, "test").unwrap();
    assert_eq!((b.kernels(), b.images()), (3, 9));
    assert_eq!(b.targets(), ["sm_80", "sm_90", "compute_90"]);
    assert!(b.made_by().starts_with("cuprum "), "{}", b.made_by());
    bundle::register(Box::leak(bytes.into_boxed_slice())).unwrap();
    let recs = records("hits");
    let before = cuprum::internal::nvrtc_compiles();
    for r in &recs {
        // its own architecture: the cubin
        let img = compile_for_arch(r.source(), &r.options(), 90).unwrap();
        assert!(
            img.is_cubin && img.image.starts_with(b"\x7fELF"),
            "{}",
            r.name()
        );
        // sm_86: the sm_80 cubin (same major)
        let img = compile_for_arch(r.source(), &r.options(), 86).unwrap();
        assert!(img.is_cubin, "{}", r.name());
        // a later GPU: the PTX, for the driver to compile
        let img = compile_for_arch(r.source(), &r.options(), 120).unwrap();
        assert!(
            !img.is_cubin && img.image.starts_with(b"//"),
            "{}",
            r.name()
        );
    }
    let img = compile_for_arch(recs[1].source(), &recs[1].options(), 90).unwrap();
    let names: Vec<&str> = img.lowered_names.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names, ["scale<float, 2>", "scale<double, 4>"]);
    assert!(img.lowered_names[0].1.starts_with("_Z5scaleIfLi2EEvPT_i"));
    assert_eq!(
        cuprum::internal::nvrtc_compiles(),
        before,
        "no NVRTC compile"
    );
    // Not from the bundle: compiled by NVRTC, or read from the tests' kernel cache (kept
    // between runs) where an earlier run compiled it.
    let compiled_or_read =
        || cuprum::internal::nvrtc_compiles() + KernelCache::global().unwrap().stats().disk_hits;
    let before = compiled_or_read();
    // sm_75: not in the bundle (nor any PTX at or below it)
    compile_for_arch(recs[0].source(), &recs[0].options(), 75).unwrap();
    assert_eq!(compiled_or_read(), before + 1);
    // different options are a different kernel
    compile_for_arch(recs[0].source(), &CompileOptions::new().option("-DN=4"), 90).unwrap();
    assert_eq!(compiled_or_read(), before + 2);
}

fn child_mode(test: &str) -> bool {
    let child = std::env::var_os("CUPRUM_TEST_CHILD").is_some();
    if !child {
        eprintln!("{test}: a helper run in a child process by another test; nothing to do");
    }
    child
}

fn run_child(test: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = common::harness::child_test(test);
    cmd.env("CUPRUM_TEST_CHILD", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {test} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A bundled program with NVRTC hidden: every kernel from the bundle, zero NVRTC calls;
/// a missing kernel, and one held only for other architectures, are `Bundle` errors that
/// name the kernel and say how to add it.
#[test]
fn a_bundled_program_needs_no_nvrtc() {
    let _serial = serial();
    require_nvrtc!();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("app.cuprum-bundle");
    std::fs::write(&path, built("hidden")).unwrap();
    run_child(
        "child_without_nvrtc",
        &[
            ("CUPRUM_TEST_BUNDLE", path.to_str().unwrap()),
            ("CUPRUM_NVRTC", "/nonexistent/libnvrtc.so.13"),
            ("CUPRUM_CACHE_DIR", t.path().join("cache").to_str().unwrap()),
        ],
    );
}

#[test]
#[ignore = "helper: run by a_bundled_program_needs_no_nvrtc in a child process"]
fn child_without_nvrtc() {
    if !child_mode("child_without_nvrtc") {
        return;
    }
    let path = std::env::var("CUPRUM_TEST_BUNDLE").unwrap();
    let b = bundle::load(&path).unwrap();
    assert_eq!(b.kernels(), 3);
    for r in records("hidden") {
        let img = compile_for_arch(r.source(), &r.options(), 90).unwrap();
        assert!(img.is_cubin);
    }
    assert_eq!(cuprum::internal::nvrtc_compiles(), 0);
    let missing = plain("not in the bundle");
    let e = compile_for_arch(&missing, &CompileOptions::new(), 90).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Bundle, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("kernel `add_n` is not in the kernel bundles loaded")
            && msg.contains(&path)
            && msg.contains("NVRTC not found")
            && msg.contains("cuprum bundle record -o kernels.list")
            && msg.contains("cuprum bundle build kernels.list --arch sm_90"),
        "{msg}"
    );
    let r = &records("hidden")[1];
    let e = compile_for_arch(r.source(), &r.options(), 75).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Bundle, "{e}");
    assert!(
        e.to_string().contains(
            "kernel `scale<float, 2>, scale<double, 4>` is in the kernel bundle only for \
             sm_80, sm_90, compute_90"
        ),
        "{e}"
    );
    assert_eq!(cuprum::internal::nvrtc_compiles(), 0);
}

fn load_err(bytes: &[u8]) -> cuprum::Error {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("x.cuprum-bundle");
    std::fs::write(&p, bytes).unwrap();
    bundle::load(&p).unwrap_err()
}

#[test]
fn damaged_and_foreign_bundles_are_typed_errors() {
    let _serial = serial();
    // an empty bundle needs no NVRTC; the format's unit tests flip every byte of a full one
    let good = bundle::build(&[], &[90], &|_| {}).unwrap();
    assert_eq!(Bundle::from_bytes(&good, "g").unwrap().kernels(), 0);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..good.len() - 1].to_vec(), "checksum mismatch"),
        (good[..20].to_vec(), "truncated: 20 bytes"),
        (Vec::new(), "truncated: 0 bytes"),
        (
            {
                let mut b = good.clone();
                *b.last_mut().unwrap() ^= 1;
                b
            },
            "checksum mismatch: the file is truncated, damaged or was edited",
        ),
        (
            {
                let mut b = good.clone();
                b[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\0");
                b
            },
            "not a cuprum kernel bundle",
        ),
        (
            {
                let mut b = good.clone();
                b[8..12].copy_from_slice(&3u32.to_le_bytes());
                b
            },
            "format version 3, but this cuprum reads versions 1 to 2 only",
        ),
    ];
    for (bytes, want) in cases {
        let e = load_err(&bytes);
        assert_eq!(e.kind(), ErrorKind::Bundle, "{e}");
        assert!(e.to_string().contains(want), "{e} (want {want})");
        assert!(e.to_string().starts_with("kernel bundle "), "{e}");
    }
    let e = bundle::load("/nonexistent/app.cuprum-bundle").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(
        e.to_string().contains("/nonexistent/app.cuprum-bundle"),
        "{e}"
    );
}

#[test]
fn bad_targets_and_failed_compiles_are_named() {
    let _serial = serial();
    for (list, want) in [
        ("sm_90a", "\"sm_90a\" is not an architecture"),
        ("compute_90", "\"compute_90\" is not an architecture"),
        ("", "no architecture given"),
    ] {
        let e = bundle::parse_targets(list).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains(want), "{e}");
    }
    require_nvrtc!();
    let bad = KernelRecord::new(
        "extern \"C\" __global__ void broken() { undeclared(); }",
        &CompileOptions::new(),
    );
    let e = bundle::build(&[bad], &[80, 90], &|_| {}).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile);
    assert!(
        e.to_string()
            .starts_with("3 of 3 compiles of the bundle failed; the first: kernel `broken` for "),
        "{e}"
    );
    let e = bundle::build(&records("t"), &[91], &|_| {}).unwrap_err();
    assert!(
        e.to_string().contains("\"sm_91\" is not a target NVRTC"),
        "{e}"
    );
}

/// `CUPRUM_BUNDLE_RECORD` in a child process: every compile is appended (source, options,
/// name expressions, headers), once; the list builds into a bundle.
#[test]
fn recording_appends_every_kernel_once() {
    let _serial = serial();
    require_nvrtc!();
    let t = tempfile::tempdir().unwrap();
    let list = t.path().join("kernels.list");
    run_child(
        "child_records",
        &[
            ("CUPRUM_BUNDLE_RECORD", list.to_str().unwrap()),
            ("CUPRUM_CACHE_DIR", t.path().join("cache").to_str().unwrap()),
        ],
    );
    let got = bundle::read_list(&list).unwrap();
    let want = records("recorded");
    assert_eq!(got.len(), 3, "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.source(), g.options()), (w.source(), w.options()));
        assert_eq!(g.target(), "cuda");
    }
    let text = std::fs::read_to_string(&list).unwrap();
    assert_eq!(text.lines().count(), 3, "each kernel once");
    let b = bundle::build(&got, &[90], &|_| {}).unwrap();
    assert_eq!(Bundle::from_bytes(&b, "r").unwrap().kernels(), 3);
}

#[test]
#[ignore = "helper: run by recording_appends_every_kernel_once in a child process"]
fn child_records() {
    if !child_mode("child_records") {
        return;
    }
    for _ in 0..2 {
        for r in records("recorded") {
            compile_for_arch(r.source(), &r.options(), 90).unwrap();
        }
    }
}

/// Recording into a place that cannot be written fails the first compile, naming the
/// variable and the path (`cuprum bundle record` checks before starting the program).
#[test]
fn recording_into_a_read_only_place_is_an_error() {
    let _serial = serial();
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    // a folder that is a file: unwritable even for root
    let list = file.join("kernels.list");
    run_child(
        "child_record_fails",
        &[
            ("CUPRUM_BUNDLE_RECORD", list.to_str().unwrap()),
            ("CUPRUM_TEST_LIST", list.to_str().unwrap()),
        ],
    );
    let e = bundle::open_list(&list).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
}

#[test]
#[ignore = "helper: run by recording_into_a_read_only_place_is_an_error in a child process"]
fn child_record_fails() {
    if !child_mode("child_record_fails") {
        return;
    }
    let list = std::env::var("CUPRUM_TEST_LIST").unwrap();
    let src = plain("read-only");
    for _ in 0..2 {
        let e = compile_for_arch(&src, &CompileOptions::new(), 90).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io, "{e}");
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!(
                "CUPRUM_BUNDLE_RECORD={list}: cannot record kernels into {list}"
            )),
            "{msg}"
        );
    }
    assert_eq!(cuprum::internal::nvrtc_compiles(), 0);
}

/// Four processes, each appending 40 large records from 4 threads, into one list: every
/// line whole.
#[test]
fn concurrent_recorders_never_interleave() {
    let _serial = serial();
    let t = tempfile::tempdir().unwrap();
    let list = t.path().join("kernels.list");
    let children: Vec<_> = (0..4)
        .map(|i| {
            let mut cmd = common::harness::child_test("child_appends");
            cmd.env("CUPRUM_TEST_CHILD", "1")
                .env("CUPRUM_BUNDLE_RECORD", &list)
                .env("CUPRUM_TEST_TAG", i.to_string());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let got = bundle::read_list(&list).unwrap();
    assert_eq!(got.len(), 160);
    assert!(got.iter().all(|r| r.source().len() > 100_000));
}

#[test]
#[ignore = "helper: run by concurrent_recorders_never_interleave in child processes"]
fn child_appends() {
    if !child_mode("child_appends") {
        return;
    }
    let tag = std::env::var("CUPRUM_TEST_TAG").unwrap();
    let filler = "// filler line of a large kernel source\n".repeat(3000);
    std::thread::scope(|s| {
        for th in 0..4 {
            let (tag, filler) = (&tag, &filler);
            s.spawn(move || {
                for k in 0..10 {
                    let src = format!("// {tag} {th} {k}\n{filler}__global__ void k() {{}}\n");
                    cuprum::internal::record_kernel(&src, &CompileOptions::new()).unwrap();
                }
            });
        }
    });
}

#[test]
fn precompile_readies_raw_kernels_and_lists() {
    let _serial = serial();
    require_gpu!();
    let k = cuprum::RawKernel::new(
        "extern \"C\" __global__ void pre_fill(int* x) { x[threadIdx.x] = 5; }",
        "pre_fill",
    );
    let m = cuprum::RawModule::new(
        "extern \"C\" __global__ void pre_zero(int* x) { x[threadIdx.x] = 0; }",
    );
    let n = cuprum::precompile(&[&k as &dyn cuprum::compile::Precompile, &m, &m]).unwrap();
    assert_eq!(n, 2, "the module twice is one kernel");
    let a = cuprum::Array::zeros(&[4], cuprum::DType::I32).unwrap();
    k.launch(1, 4, (&a,)).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![5; 4]);
    let bad = KernelRecord::new(
        "extern \"C\" __global__ void nope() { x; }",
        &CompileOptions::new(),
    );
    let e = cuprum::precompile(&[&bad as &dyn cuprum::compile::Precompile, &k]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile);
    assert!(
        e.to_string()
            .starts_with("precompile: 1 of 2 kernels failed; the first:"),
        "{e}"
    );
}

#[test]
fn cache_export_import_moves_entries() {
    let _serial = serial();
    require_nvrtc!();
    let t = tempfile::tempdir().unwrap();
    let a = cuprum::compile::KernelCache::new(Some(t.path().join("a")));
    for r in records("export") {
        a.compile(r.source(), &r.options(), 90).unwrap();
    }
    let file = t.path().join("warm.cuprum-cache");
    assert_eq!(a.export(&file).unwrap(), 3);
    let b = cuprum::compile::KernelCache::new(Some(t.path().join("b")));
    assert_eq!(b.import(&file).unwrap(), (3, 0));
    assert_eq!(
        b.import(&file).unwrap(),
        (0, 3),
        "a second import writes nothing"
    );
    for r in records("export") {
        b.compile(r.source(), &r.options(), 90).unwrap();
    }
    assert_eq!((b.stats().disk_hits, b.stats().misses), (3, 0));
    // damaged: refused, nothing written
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let c = cuprum::compile::KernelCache::new(Some(t.path().join("c")));
    let e = c.import(&file).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    assert!(!t.path().join("c").exists());
    // an unwritable folder (a file where the folder should be): a clear error
    let file2 = t.path().join("warm2.cuprum-cache");
    a.export(&file2).unwrap();
    std::fs::write(t.path().join("d"), "").unwrap();
    let d = cuprum::compile::KernelCache::new(Some(t.path().join("d")));
    let e = d.import(&file2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(
        e.to_string().contains(&format!(
            "cannot import into the kernel cache folder {}",
            t.path().join("d").display()
        )),
        "{e}"
    );
    let e = cuprum::compile::KernelCache::new(None)
        .export(Path::new("x"))
        .unwrap_err();
    assert!(e.to_string().contains("memory-only"), "{e}");
}

/// On a GPU: a kernel launched from a bundle built for the device's architecture, with no
/// NVRTC compile.
#[test]
fn bundled_kernel_launches_on_the_gpu() {
    let _serial = serial();
    require_cuda!();
    require_nvrtc!();
    let dev = cuprum::Device::get(0).unwrap();
    let (major, minor) = dev.compute_capability();
    let arch = major * 10 + minor;
    let k = cuprum::RawKernel::new(plain("gpu launch"), "add_n").option("-DN=3");
    // the records precompile would compile are exactly what the launch compiles
    let recs = cuprum::compile::Precompile::kernels(&k);
    let bytes = bundle::build(&recs, &[arch], &|_| {}).unwrap();
    bundle::register(Box::leak(bytes.into_boxed_slice())).unwrap();
    let before = cuprum::internal::nvrtc_compiles();
    let x = cuprum::Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    k.launch(1, 32, (&x, 3i32)).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![4.0, 5.0, 6.0]);
    assert_eq!(cuprum::internal::nvrtc_compiles(), before);
}

/// A Rust kernel for the build-time tests: generic over the float type.
#[cuprum::kernel]
fn prebuilt_scale<T: cuprum::gpu::Float>(x: &mut [T], s: T) {
    for i in cuprum::gpu::grid_stride(x.len()) {
        x[i] *= s;
    }
}

/// A Rust kernel that is not generic.
#[cuprum::kernel]
fn prebuilt_fill(x: &mut [i32], v: i32) {
    for i in cuprum::gpu::grid_stride(x.len()) {
        x[i] = v + i as i32;
    }
}

fn prebuilt() -> cuprum::build::KernelBuild {
    cuprum::build::KernelBuild::new()
        .kernel(cuprum::kernel_instance!(prebuilt_scale<f32>))
        .kernel(cuprum::kernel_instance!(prebuilt_scale<f64>))
        .kernel(cuprum::kernel_instance!(prebuilt_fill))
}

/// `cuprum::build`: the instances a build script names land in the bundle under exactly the
/// key their launches look up (program, options, check mode), for every architecture asked.
#[test]
fn build_time_rust_kernels_are_found_as_launches_look_them_up() {
    let _serial = serial();
    require_nvrtc!();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(cuprum::build::BUNDLE_FILE);
    let built = prebuilt()
        .archs("sm_80,sm_90")
        .checked(false)
        .write(&path)
        .unwrap();
    assert_eq!(built.skipped, None);
    assert_eq!((built.kernels, built.images), (3, 9));
    let b = Bundle::read(&path).unwrap();
    assert_eq!(
        b.kernel_names(),
        [
            "prebuilt_fill",
            "prebuilt_scale<double>",
            "prebuilt_scale<float>"
        ]
    );
    let before = cuprum::internal::nvrtc_compiles();
    for (name, checked) in [("prebuilt_scale<float>", false), ("prebuilt_fill", false)] {
        let def = if name == "prebuilt_fill" {
            &prebuilt_fill::__CUPRUM_KERNEL
        } else {
            &prebuilt_scale::__CUPRUM_KERNEL
        };
        let inst = def.is_generic().then_some(name);
        let opts = def.compile_options(inst, checked);
        assert!(
            b.image_for(def.program(), &opts, 90)
                .is_some_and(|i| i.is_cubin)
        );
        assert!(
            b.image_for(def.program(), &opts, 89)
                .is_some_and(|i| i.is_cubin)
        );
        assert!(
            b.image_for(def.program(), &opts, 100)
                .is_some_and(|i| !i.is_cubin)
        );
        // the checked variant is another kernel
        let other = def.compile_options(inst, !checked);
        assert!(b.image_for(def.program(), &other, 90).is_none());
    }
    assert_eq!(
        cuprum::internal::nvrtc_compiles(),
        before,
        "lookups compile nothing"
    );
}

/// Bad build-time input: a generic kernel without its arguments, a bad architecture list,
/// `run` outside a build script, an unwritable output: typed errors saying what was expected.
#[test]
fn build_time_mistakes_are_named() {
    let generic = cuprum::build::KernelInstance::new(&prebuilt_scale::__CUPRUM_KERNEL, vec![]);
    let e = generic.record(false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string().contains("`prebuilt_scale` is generic")
            && e.to_string()
                .contains("kernel_instance!(path::to::prebuilt_scale<f32>)"),
        "{e}"
    );
    let plain =
        cuprum::build::KernelInstance::new(&prebuilt_fill::__CUPRUM_KERNEL, vec!["int".into()]);
    let e = plain.record(true).unwrap_err();
    assert!(
        e.to_string().contains("`prebuilt_fill` is not generic") && e.to_string().contains("<int>"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let e = prebuilt()
        .archs("sm_90,compute_90")
        .write(&dir.path().join("b"))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("\"compute_90\" is not an architecture"),
        "{e}"
    );
    if std::env::var_os("OUT_DIR").is_none() {
        let e = prebuilt().run().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("OUT_DIR is not set"), "{e}");
    }
    // an empty build needs no NVRTC; a folder that does not exist is an Io error
    let e = cuprum::build::KernelBuild::new()
        .archs("sm_90")
        .write(&dir.path().join("no/such/folder/b"))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(
        e.to_string().contains("cannot write the kernel bundle"),
        "{e}"
    );
    let empty = cuprum::build::KernelBuild::new()
        .archs("sm_90")
        .write(&dir.path().join("empty"))
        .unwrap();
    assert_eq!((empty.kernels, empty.images, empty.skipped), (0, 0, None));
}

/// On a GPU: Rust kernels built ahead of time (as a build script does) launch from the
/// registered bundle with no NVRTC compile, and compute what the CPU computes.
#[test]
fn build_time_rust_kernels_launch_on_the_gpu_without_nvrtc() {
    let _serial = serial();
    require_cuda!();
    require_nvrtc!();
    let dev = cuprum::Device::get(0).unwrap();
    let (major, minor) = dev.compute_capability();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.cuprum-bundle");
    prebuilt()
        .archs(&format!("sm_{}", major * 10 + minor))
        .write(&path)
        .unwrap();
    bundle::load(&path).unwrap();
    let before = cuprum::internal::nvrtc_compiles();
    let n = 1001usize;
    let host: Vec<f64> = (0..n).map(|i| (i as f64).sin() * 3.5 - 1.25).collect();
    let mut x = cuprum::Array::from_slice(&host, &[n]).unwrap();
    prebuilt_scale::launch::<f64>(cuprum::kernel::JitConfig::for_len(n, 128), &mut x, -0.5)
        .unwrap();
    let got = x.to_vec::<f64>().unwrap();
    assert!(got.iter().zip(&host).all(|(g, h)| *g == h * -0.5));
    let mut y = cuprum::Array::zeros(&[n], cuprum::DType::I32).unwrap();
    prebuilt_fill::launch(cuprum::kernel::JitConfig::for_len(n, 128), &mut y, 40).unwrap();
    let want: Vec<i32> = (0..n as i32).map(|i| 40 + i).collect();
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
    assert_eq!(
        cuprum::internal::nvrtc_compiles(),
        before,
        "every instance from the bundle"
    );
    bundle::unregister_all();
}
