//! NVRTC compile checks: run without a GPU (CI installs NVRTC from pip and sets
//! CUPRUM_REQUIRE_NVRTC=1 so these cannot silently skip).
//!
//! For sm_90: every array kernel; every generated kernel's argument schema against its
//! cubin's parameter table (`every_generated_kernel_schema_matches_its_cubin`); every
//! elementwise layout class in both index widths and every reduction strategy; every
//! built-in operation for every dtype (`every_builtin_operation_compiles_for_every_dtype`,
//! which also covers every `astype` pair, the `_into` conversions and the masked kernels;
//! `CUPRUM_OPS_FILTER` selects sources by name) and every built-in reduction; every array
//! routine program for every dtype it takes (`every_routine_kernel_compiles_for_every_dtype`,
//! `CUPRUM_ROUTINE_FILTER`); the examples' kernels; and cuprum's `math_constants.cuh`
//! against the toolkit's. Generated sources must compile without a warning. The thousands
//! of independent programs compile on every core; on a machine without a GPU the per-dtype
//! sweeps stop at PTX (`common::sweep_options`: NVRTC's front end, half the time) and the GPU
//! suite builds their cubins; the layouts, strategies and array kernels, whose cubins the
//! schema check reads, stay cubins, and there one in three of them compiles (`in_cover`:
//! every operation, dtype and kernel kind still compiles; the GPU suite compiles all).

mod common;

use cuprum::ErrorKind;
use cuprum::compile::{CompileOptions, CompiledImage, compile_for_arch, nvrtc};
use std::sync::Arc;

/// Compiles every source for sm_90 with `opts` on all cores (NVRTC programs are independent) and
/// returns what `judge` says about each, in order: `None` when the result is fine, else the
/// failure to report. A GPU machine's many cores then finish the thousands of
/// specialisations of these checks in seconds; two cores lose nothing.
fn compile_all(
    sources: &[(String, String)],
    opts: &CompileOptions,
    judge: impl Fn(&str, &str, cuprum::Result<Arc<CompiledImage>>) -> Option<String> + Sync,
) -> Vec<String> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut found: Vec<(usize, String)> = std::thread::scope(|sc| {
        let jobs: Vec<_> = (0..workers)
            .map(|_| {
                sc.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((name, src)) = sources.get(i) else {
                            return out;
                        };
                        let before = cuprum::internal::compile_retries_on_this_thread();
                        let r = compile_for_arch(src, opts, 90);
                        let retried = cuprum::internal::compile_retries_on_this_thread() != before;
                        if let Some(f) = judge(name, src, r) {
                            out.push((i, f));
                        } else if retried {
                            // A generated kernel compiles with `--minimal` and the lean
                            // headers the first time (a retry is a second compile).
                            out.push((i, format!("{name}: compiled only on the retry")));
                        }
                    }
                })
            })
            .collect();
        jobs.into_iter()
            .flat_map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    found.sort_by_key(|f| f.0);
    found.into_iter().map(|f| f.1).collect()
}

/// The per-dtype samples this machine compiles: every one where a GPU is (the GPU suite,
/// whose machine has the cores), else (CI: two cores, no GPU) those whose dtypes are all
/// among the test harness's representative dtypes (`common::HOST_DTYPES`: every kind and
/// item size), and of the radix sort's programs (two seconds of NVRTC each, half the
/// routines' compile time) a cover: every mode for float32 and complex128
/// ([`SORT_EVERY_MODE`]), one mode each for the other representatives, the modes in turn
/// (see [`sort_cover`]) — the GPU suite compiles the rest, so nothing goes unchecked.
fn for_this_machine(sources: Vec<(String, String)>) -> Vec<(String, String)> {
    if common::has_gpu() {
        return sources;
    }
    let all: Vec<String> = cuprum::DType::ALL.iter().map(|d| d.to_string()).collect();
    let rep: Vec<String> = common::HOST_DTYPES.iter().map(|d| d.to_string()).collect();
    let n = sources.len();
    let kept: Vec<(String, String)> = sources
        .into_iter()
        .filter(|(name, _)| {
            name.split_whitespace()
                .all(|t| !all.iter().any(|a| a == t) || rep.iter().any(|r| r == t))
        })
        .collect();
    let kept = diagonals(sort_cover(kept), &rep);
    eprintln!(
        "cuprum: no GPU: {} of {n} per-dtype samples compiled here, of the {} representative \
         dtypes one operation and dtype cell in {} (every operation and every dtype still \
         compiles), the radix sort's modes as a cover (the GPU suite compiles every one)",
        kept.len(),
        rep.len(),
        common::HOST_CELL_STRIDE,
    );
    kept
}

/// `samples` cut to the diagonals of their operation × dtype grid (those cells `(i, j)` with
/// `(i + j) % HOST_CELL_STRIDE == 0`, as [`common::sweep_cell`] cuts the host device's sweeps):
/// a sample's operation is its name without its dtype tokens (row `i`, in the order the
/// operations first come), its column the sum of its dtypes' places in `rep` (an `astype`
/// pair's two add up), so each operation compiles for a third of its dtypes and each dtype
/// for a third of the operations. An operation none of whose cells falls on a diagonal
/// keeps its first sample; the radix sort's programs (already a cover) all stay.
fn diagonals(samples: Vec<(String, String)>, rep: &[String]) -> Vec<(String, String)> {
    let mut ops: Vec<String> = Vec::new();
    let cells: Vec<Option<(usize, usize)>> = samples
        .iter()
        .map(|(name, _)| {
            if name.starts_with("sort ") {
                return None;
            }
            let tokens: Vec<&str> = name.split_whitespace().collect();
            let places: Vec<usize> = tokens
                .iter()
                .filter_map(|t| rep.iter().position(|r| r == t))
                .collect();
            if places.is_empty() {
                return None;
            }
            let op: Vec<&str> = tokens
                .into_iter()
                .filter(|t| !rep.iter().any(|r| r == t))
                .collect();
            let op = op.join(" ");
            let i = ops.iter().position(|o| *o == op).unwrap_or_else(|| {
                ops.push(op);
                ops.len() - 1
            });
            Some((i, places.iter().sum()))
        })
        .collect();
    let diagonal = |i: usize, j: usize| (i + j).is_multiple_of(common::HOST_CELL_STRIDE);
    let on = |c: &Option<(usize, usize)>| c.is_none_or(|(i, j)| diagonal(i, j));
    let mut covered = vec![false; ops.len()];
    for c in cells.iter().flatten() {
        covered[c.0] |= diagonal(c.0, c.1);
    }
    let mut first_taken = vec![false; ops.len()];
    samples
        .into_iter()
        .zip(cells)
        .filter(|(_, c)| {
            on(c)
                || c.is_some_and(|(i, _)| {
                    !covered[i] && !std::mem::replace(&mut first_taken[i], true)
                })
        })
        .map(|(s, _)| s)
        .collect()
}

/// The dtypes whose radix sort compiles in every mode on a machine without a GPU: float32
/// (a float key's transform) and complex128 (the 16-byte key of two parts). The other
/// representatives (bool, int8, uint64, float16, float64) take one mode each, so each mode
/// also meets a second dtype and every key width (1, 2, 4, 8 and 16 bytes: the tiling, the
/// digit passes and the key type) compiles.
const SORT_EVERY_MODE: &[&str] = &["float32", "complex128"];

/// `samples` with the radix sort's (`sort <dtype> <mode>`) cut to a cover: every mode of
/// the [`SORT_EVERY_MODE`] dtypes; of each other dtype one mode, the next one in turn
/// (bool the first, uint8 the second …), so that each mode also runs on a second dtype of
/// another kind. The other samples stay.
fn sort_cover(samples: Vec<(String, String)>) -> Vec<(String, String)> {
    let sort_dtype = |name: &str| -> Option<String> {
        let t: Vec<&str> = name.split_whitespace().collect();
        (t.len() == 3 && t[0] == "sort").then(|| t[1].to_string())
    };
    // the sort samples' dtypes and modes, in the order they come
    let mut dtypes: Vec<String> = Vec::new();
    let mut modes: Vec<String> = Vec::new();
    for (name, _) in &samples {
        if let Some(d) = sort_dtype(name) {
            let mode = name.rsplit(' ').next().unwrap_or_default().to_string();
            if !dtypes.contains(&d) {
                dtypes.push(d);
            }
            if !modes.contains(&mode) {
                modes.push(mode);
            }
        }
    }
    let others: Vec<&String> = dtypes
        .iter()
        .filter(|d| !SORT_EVERY_MODE.contains(&d.as_str()))
        .collect();
    samples
        .into_iter()
        .filter(|(name, _)| {
            let Some(d) = sort_dtype(name) else {
                return true;
            };
            match others.iter().position(|o| **o == d) {
                None => true,
                Some(i) => name.ends_with(&format!(" {}", modes[i % modes.len()])),
            }
        })
        .collect()
}

/// A failure when NVRTC warns or remarks about cuprum's generated code.
fn warned(name: &str, img: &CompiledImage) -> Option<String> {
    (img.log.contains("warning") || img.log.contains("remark"))
        .then(|| format!("{name}: NVRTC warns about generated code:\n{}", img.log))
}

/// The judge of the per-dtype sweeps: fine when the program compiled without a warning.
fn compiled_clean(name: &str, _: &str, r: cuprum::Result<Arc<CompiledImage>>) -> Option<String> {
    match r {
        Ok(img) => warned(name, &img),
        Err(e) => Some(format!("{name}: {e}")),
    }
}

/// Panics listing every failure, when there is one.
#[track_caller]
fn assert_none_failed(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn nvrtc_is_found_and_reports_itself() {
    require_nvrtc!();
    let n = nvrtc().unwrap();
    assert!(n.version().0 >= 12, "{:?}", n.version());
    assert!(
        n.supported_archs().contains(&90),
        "{:?}",
        n.supported_archs()
    );
    assert!(!n.path().is_empty());
    eprintln!(
        "NVRTC {:?} from {} ({})",
        n.version(),
        n.path(),
        n.found_by()
    );
}

/// How many generated kernels' schemas matched their cubins: the samples compiled once per
/// test binary, in parallel, by whichever of the tests that compile the same sources comes
/// first (the others wait, then find each compile in the tests' kernel cache instead of
/// compiling it a second time beside it).
fn schemas_checked() -> usize {
    static CHECKED: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CHECKED.get_or_init(|| cuprum::internal::check_sample_schemas_where(90, in_cover).unwrap())
}

/// Whether this machine compiles the layout and strategy sample `label` (elementwise
/// layouts, reduction strategies, the array layer's kernels: the schema check's samples):
/// every one where a GPU is (the GPU suite); else (CI: two cores, no GPU) one in three,
/// chosen by a hash of the label, so that the schema check and the compile tests choose the
/// same ones and each compiles once. They are ~65 CPU-seconds of NVRTC in all, the larger
/// part of this binary's time on two cores.
fn in_cover(label: &str) -> bool {
    static GPU: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *GPU.get_or_init(common::has_gpu) {
        return true;
    }
    // FNV-1a: stable across runs and toolchains
    let h = label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    h % 3 == 0
}

/// `sources` cut to [`in_cover`].
fn covered(sources: Vec<(String, String)>) -> Vec<(String, String)> {
    sources.into_iter().filter(|(n, _)| in_cover(n)).collect()
}

#[test]
fn every_array_kernel_compiles_for_sm90() {
    require_nvrtc!();
    schemas_checked();
    let sources = cuprum::internal::all_sources();
    assert!(sources.len() > 40, "{}", sources.len());
    assert_none_failed(compile_all(
        &covered(sources),
        &CompileOptions::default(),
        |name, src, r| match r {
            Ok(img) if img.is_cubin && img.image.starts_with(b"\x7fELF") => None,
            Ok(_) => Some(format!("{name}: not a cubin")),
            Err(e) => Some(format!("{name} failed to compile: {e}\n{src}")),
        },
    ));
}

/// The argument schema of every generated kernel (elementwise layouts, reduction
/// strategies, the array layer's kernels) matches the parameter sizes of its compiled
/// cubin: the packer writes what the kernel reads, checked without a GPU.
#[test]
fn every_generated_kernel_schema_matches_its_cubin() {
    require_nvrtc!();
    let checked = schemas_checked();
    let least = if common::has_gpu() { 350 } else { 100 };
    assert!(checked > least, "{checked}");
}

#[test]
fn unknown_arch_falls_back_to_ptx_of_newest_known() {
    require_nvrtc!();
    let n = nvrtc().unwrap();
    let newest = *n.supported_archs().iter().max().unwrap();
    let (target, cubin) = n.target_for(newest as u32 + 100);
    assert_eq!(target, format!("compute_{newest}"));
    assert!(!cubin);
    let img = compile_for_arch(
        "extern \"C\" __global__ void k(int* x) { x[0] = 1; }",
        &CompileOptions::default(),
        newest as u32 + 100,
    )
    .unwrap();
    assert!(!img.is_cubin);
    let text = String::from_utf8_lossy(&img.image);
    assert!(text.contains(".entry k"), "{text}");
}

#[test]
fn compile_error_carries_the_log() {
    require_nvrtc!();
    let opts = CompileOptions::default().program_name("broken.cu");
    let err = compile_for_arch(
        "extern \"C\" __global__ void k(float* x) { x[0] = undefined_thing; }",
        &opts,
        90,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Compile);
    let log = err.compile_log().unwrap();
    assert!(log.contains("undefined_thing"), "{log}");
    assert!(log.contains("broken.cu"), "{log}");
    assert!(
        err.to_string()
            .contains("identifier \"undefined_thing\" is undefined"),
        "{err}"
    );
    // `{:?}` (what unwrap and main print) is as concise as `{}`: no log appended
    assert_eq!(format!("{err:?}"), format!("{err} (Compile)"));
}

/// Warnings about the user's own code stay in the log a user is shown.
#[test]
fn warnings_about_user_code_stay_in_the_log() {
    require_nvrtc!();
    let src = "extern \"C\" __global__ void k(float* x) { int my_unused_var = 1; x[0] = nope; }";
    let err =
        compile_for_arch(src, &CompileOptions::default().program_name("warn.cu"), 90).unwrap_err();
    let log = err.compile_log().unwrap();
    assert!(log.contains("my_unused_var"), "{log}");
    assert!(log.contains("\"nope\" is undefined"), "{log}");
    let d = err.compile_failure().unwrap().diagnostics();
    assert!(
        d.iter()
            .any(|d| d.severity == "warning" && d.message.contains("my_unused_var")),
        "{d:?}"
    );
}

#[test]
fn name_expressions_give_lowered_names() {
    require_nvrtc!();
    let src = "template<typename T, int N> __global__ void scale(T* x) { x[threadIdx.x] *= N; }";
    let opts = CompileOptions::default()
        .name_expression("scale<float, 4>")
        .name_expression("scale<double, 2>");
    let img = compile_for_arch(src, &opts, 90).unwrap();
    assert_eq!(img.lowered_names.len(), 2);
    assert_eq!(img.lowered_names[0].0, "scale<float, 4>");
    assert!(
        img.lowered_names[0].1.starts_with("_Z"),
        "{:?}",
        img.lowered_names
    );
    assert_ne!(img.lowered_names[0].1, img.lowered_names[1].1);
}

#[test]
fn in_memory_headers_are_found() {
    require_nvrtc!();
    let opts = CompileOptions::default().header("my/twice.h", "#define TWICE(x) ((x) * 2)\n");
    let img = compile_for_arch(
        "#include <my/twice.h>\nextern \"C\" __global__ void k(int* x) { x[0] = TWICE(x[0]); }",
        &opts,
        90,
    )
    .unwrap();
    assert!(img.is_cubin);
}

/// The seed kernels the examples and benchmarks use (`examples/kernels/*.cu`), inside the
/// test binary: the GPU suite runs away from the repository and reads no source files.
const EXAMPLE_KERNELS: &[(&str, &str)] = &[
    (
        "activations.cu",
        include_str!("../../../examples/kernels/activations.cu"),
    ),
    (
        "grid_stride_square.cu",
        include_str!("../../../examples/kernels/grid_stride_square.cu"),
    ),
    (
        "matrix_multiply.cu",
        include_str!("../../../examples/kernels/matrix_multiply.cu"),
    ),
    (
        "optimized_reduction.cu",
        include_str!("../../../examples/kernels/optimized_reduction.cu"),
    ),
    (
        "prime_factor_sum.cu",
        include_str!("../../../examples/kernels/prime_factor_sum.cu"),
    ),
    (
        "thread_indexing.cu",
        include_str!("../../../examples/kernels/thread_indexing.cu"),
    ),
    (
        "vector_add_f32.cu",
        include_str!("../../../examples/kernels/vector_add_f32.cu"),
    ),
    (
        "vector_add_f64.cu",
        include_str!("../../../examples/kernels/vector_add_f64.cu"),
    ),
];

/// Every seed kernel the examples and benchmarks use compiles for sm_90.
#[test]
fn every_example_kernel_compiles() {
    require_nvrtc!();
    for (name, src) in EXAMPLE_KERNELS {
        let opts = CompileOptions::default().program_name(*name);
        let img = compile_for_arch(src, &opts, 90).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(img.is_cubin, "{name}");
    }
}

#[test]
fn every_elementwise_layout_compiles_for_sm90() {
    require_nvrtc!();
    schemas_checked();
    let sources = cuprum::internal::elementwise_sample_sources().unwrap();
    assert!(sources.len() > 60, "{}", sources.len());
    assert_none_failed(compile_all(
        &covered(sources),
        &CompileOptions::default(),
        |name, src, r| match r {
            Ok(img) if !img.is_cubin => Some(format!("{name}: not a cubin")),
            Ok(img) => warned(name, &img),
            Err(e) => Some(format!("{name} failed to compile: {e}\n{src}")),
        },
    ));
}

#[test]
fn every_builtin_operation_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::ops_sample_sources().unwrap();
    assert!(sources.len() > 1000, "{}", sources.len());
    let sources = for_this_machine(sources);
    // `CUPRUM_OPS_FILTER=floor_divide` compiles only the sources whose name contains it.
    let filter = std::env::var("CUPRUM_OPS_FILTER").unwrap_or_default();
    let sources: Vec<(String, String)> = sources
        .into_iter()
        .filter(|(n, _)| n.contains(&filter))
        .collect();
    assert_none_failed(compile_all(
        &sources,
        &common::sweep_options(),
        compiled_clean,
    ));
}

#[test]
fn example_elementwise_operations_compile() {
    require_nvrtc!();
    let op = include_str!("../../../examples/kernels/prime_factor_sum_elementwise.op");
    let k = cuprum::ElementwiseKernel::new("", "int64 A", op, "prime_factor_sum").unwrap();
    let src = k.generated_source(&[cuprum::DType::I64], &[false]).unwrap();
    let img = compile_for_arch(&src, &CompileOptions::default(), 90)
        .unwrap_or_else(|e| panic!("prime_factor_sum_elementwise.op: {e}\n{src}"));
    assert!(img.is_cubin);
}

#[test]
fn every_reduction_strategy_compiles_for_sm90() {
    require_nvrtc!();
    schemas_checked();
    let sources = cuprum::internal::reduction_sample_sources().unwrap();
    assert!(sources.len() >= 100, "{}", sources.len());
    assert_none_failed(compile_all(
        &covered(sources),
        &CompileOptions::default(),
        |name, src, r| match r {
            Ok(img) => warned(name, &img),
            Err(e) => Some(format!("{name}: {e}\n{src}")),
        },
    ));
}

#[test]
fn every_builtin_reduction_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::ops_reduction_sample_sources().unwrap();
    assert!(sources.len() > 150, "{}", sources.len());
    let sources = for_this_machine(sources);
    assert_none_failed(compile_all(
        &sources,
        &common::sweep_options(),
        compiled_clean,
    ));
}

/// Every array-routine kernel (scans, compaction, radix sort, gathers and scatters) for
/// every dtype it takes.
#[test]
fn every_routine_kernel_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::routine_sample_sources().unwrap();
    assert!(sources.len() >= 150, "{}", sources.len());
    // a filter compiles every sample it names, GPU or not (the host's cut is for the sweep)
    let filter = std::env::var("CUPRUM_ROUTINE_FILTER").unwrap_or_default();
    let sources = if filter.is_empty() {
        for_this_machine(sources)
    } else {
        sources
    };
    let sources: Vec<(String, String)> = sources
        .into_iter()
        .filter(|(n, _)| n.contains(&filter))
        .collect();
    assert_none_failed(compile_all(
        &sources,
        &common::sweep_options(),
        |name, _, r| r.err().map(|e| format!("{name}: {e}")),
    ));
}

/// The asynchronous copies (`cp.async`, inline PTX) of the persistent scan and of the
/// compaction's ring of values assemble: their programs compiled to sm_90 and sm_80
/// cubins, which NVRTC assembles without a GPU.
#[test]
fn the_asynchronous_copies_assemble_for_sm_80_and_sm_90() {
    require_nvrtc!();
    let sources: Vec<(String, String)> = cuprum::internal::routine_sample_sources()
        .unwrap()
        .into_iter()
        .filter(|(n, _)| n.ends_with(" staged"))
        .collect();
    assert!(sources.len() >= 12, "{}", sources.len());
    for arch in ["-arch=sm_90", "-arch=sm_80"] {
        let opts = cuprum::compile::CompileOptions::default().option(arch);
        assert_none_failed(compile_all(&sources, &opts, |name, _, r| match r {
            Ok(img) if img.is_cubin => None,
            Ok(_) => Some(format!("{name}: PTX, not a cubin, for {arch}")),
            Err(e) => Some(format!("{name} ({arch}): {e}")),
        }));
    }
}

// =========================================================================================
// CUDA's math constants in generated kernels
// =========================================================================================

/// The folder holding the toolkit's `math_constants.h`: `$CUDA_HOME`, `$CUDA_PATH`,
/// `/usr/local/cuda`, or the pip wheel (`nvidia/cu13/include` of python3's site-packages).
fn toolkit_include() -> Option<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|d| std::path::PathBuf::from(d).join("include"))
        .collect();
    dirs.push("/usr/local/cuda/include".into());
    if let Ok(out) = std::process::Command::new("python3")
        .args(["-c", "import nvidia; print(list(nvidia.__path__)[0])"])
        .output()
    {
        let p = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if !p.is_empty() {
            dirs.push(std::path::Path::new(&p).join("cu13/include"));
        }
    }
    dirs.into_iter()
        .find(|d| d.join("math_constants.h").is_file())
}

fn bundled(name: &str) -> &'static str {
    cuprum::compile::BUNDLED_HEADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("{name} is not bundled"))
}

/// `NAME -> value` of every `#define CUDART_*` in a header, with the value as the bits of
/// the float (`_F` names) or double it denotes (integers as themselves).
fn cudart_values(text: &str) -> std::collections::BTreeMap<String, u64> {
    let mut m = std::collections::BTreeMap::new();
    for line in text.lines() {
        let mut t = line.split_whitespace();
        if t.next() != Some("#define") {
            continue;
        }
        let Some(name) = t.next().filter(|n| n.starts_with("CUDART_")) else {
            continue;
        };
        let v: String = t.collect::<Vec<_>>().join("");
        let single = name.ends_with("_F");
        let hex = |v: &str| {
            let h = v.split("0x").nth(1).unwrap();
            let h: String = h.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            u64::from_str_radix(&h, 16).unwrap()
        };
        let bits = if v.contains("_as_float(") || v.contains("_as_double(") {
            hex(&v)
        } else if name.starts_with("CUDART_REMQUO") {
            // integers: 3 bits, and the mask of 3 bits
            if name.ends_with("BITS_F") { 3 } else { 7 }
        } else {
            let num = v.trim_matches(|c| c == '(' || c == ')');
            let num = num.trim_end_matches(['F', 'f']);
            let x: f64 = num.parse().unwrap_or_else(|e| panic!("{name} {v}: {e}"));
            if single {
                u64::from((num.parse::<f32>().unwrap()).to_bits())
            } else {
                x.to_bits()
            }
        };
        m.insert(name.to_owned(), bits);
    }
    m
}

/// The bundled constants have the toolkit's names and values (checked against the installed
/// toolkit header when there is one).
#[test]
fn bundled_math_constants_match_the_toolkits() {
    let ours = cudart_values(bundled("cuprum/math_constants.cuh"));
    assert_eq!(ours.len(), 95, "{ours:?}");
    assert_eq!(ours["CUDART_INF_F"], u64::from(f32::INFINITY.to_bits()));
    assert_eq!(
        ours["CUDART_PI_F"],
        u64::from(std::f32::consts::PI.to_bits())
    );
    assert_eq!(ours["CUDART_PI"], std::f64::consts::PI.to_bits());
    assert_eq!(ours["CUDART_INF"], f64::INFINITY.to_bits());
    assert!(f64::from_bits(ours["CUDART_NAN"]).is_nan());
    assert!(f32::from_bits(ours["CUDART_NAN_F"] as u32).is_nan());
    let Some(dir) = toolkit_include() else {
        common::skip(
            common::Need::Other,
            "the comparison with the toolkit: no math_constants.h found",
        );
        return;
    };
    let text = std::fs::read_to_string(dir.join("math_constants.h")).unwrap();
    let theirs = cudart_values(&text);
    assert_eq!(ours, theirs, "against {}", dir.display());
}

#[test]
fn math_constants_compile_in_operations_identities_and_preambles() {
    require_nvrtc!();
    use cuprum::{DType, ElementwiseKernel, ReductionKernel};
    let opts = CompileOptions::default();
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        for (name, id, cmp) in [
            ("max_inf", "-CUDART_INF_F", ">"),
            ("min_inf", "CUDART_INF_F", "<"),
            ("max_inf_d", "-CUDART_INF", ">"),
        ] {
            let k = ReductionKernel::new(
                "T x",
                "T y",
                "x",
                format!("a {cmp} b ? a : b"),
                "y = a",
                Some(id),
                name,
            )
            .unwrap();
            let src = k.generated_source(&[d, d], &[false, false]).unwrap();
            assert!(src.contains(&format!("_type_reduce({id})")), "{src}");
            let img = compile_for_arch(&src, &opts, 90)
                .unwrap_or_else(|e| panic!("{name} {d}: {e}\n{src}"));
            assert!(img.is_cubin);
            assert!(!img.log.contains("warning"), "{name} {d}: {}", img.log);
        }
    }
    let k = ElementwiseKernel::new(
        "T x",
        "T y",
        "y = isinf(x) ? (T)CUDART_PI : (x > 0 ? (T)CUDART_INF : (T)scaled_nan())",
        "constants_op",
    )
    .unwrap()
    .preamble("__device__ float scaled_nan() { return CUDART_NAN_F * CUDART_TWO_TO_23_F; }");
    for d in [DType::F32, DType::F64] {
        let src = k.generated_source(&[d, d], &[false, false]).unwrap();
        compile_for_arch(&src, &opts, 90).unwrap_or_else(|e| panic!("{d}: {e}\n{src}"));
    }
}

/// A source that also includes the toolkit's `<math_constants.h>`, before or after
/// cuprum's, compiles with every macro defined once (no redefinition warnings).
#[test]
fn math_constants_do_not_clash_with_the_toolkit_header() {
    require_nvrtc!();
    // A stand-in with the toolkit header's include guard and other spellings of the values.
    let stand_in = "#if !defined(__MATH_CONSTANTS_H__)\n#define __MATH_CONSTANTS_H__\n\
                    #define CUDART_INF_F __int_as_float(0x7f800000)\n\
                    #define CUDART_PI 3.1415926535897931e+0\n#endif\n";
    let mut folders = vec![(
        "stand-in",
        CompileOptions::default().header("math_constants.h", stand_in),
    )];
    match toolkit_include() {
        Some(dir) => folders.push(("toolkit", CompileOptions::default().include_path(dir))),
        None => common::skip(
            common::Need::Other,
            "the real toolkit header: no math_constants.h found",
        ),
    }
    let k =
        cuprum::ElementwiseKernel::new("T x", "T y", "y = x > 0 ? x : -CUDART_INF_F", "relu_inf")
            .unwrap()
            .preamble("#include <math_constants.h>\n__device__ double pi() { return CUDART_PI; }");
    let generated = k
        .generated_source(&[cuprum::DType::F32; 2], &[false, false])
        .unwrap();
    // toolkit first, then cuprum's (a raw kernel that includes both)
    let raw = "#include <math_constants.h>\n#include <cuprum/math_constants.cuh>\n\
               extern \"C\" __global__ void k(float* x) { x[0] = CUDART_INF_F + (float)CUDART_PI; }";
    for (what, opts) in &folders {
        for (order, src) in [
            ("cuprum's first", generated.as_str()),
            ("toolkit's first", raw),
        ] {
            let img = compile_for_arch(src, opts, 90)
                .unwrap_or_else(|e| panic!("{what}, {order}: {e}\n{src}"));
            assert!(
                !img.log.contains("warning") && !img.log.contains("redefin"),
                "{what}, {order}: {}",
                img.log
            );
        }
    }
}

/// The scatters of subscripts with index arrays (`a[i, j] = v`: `cuprum_put_block`) and of
/// `ufunc.at` (every operation, every dtype it takes) compile, all of them on every
/// machine: they are new to the sweep's sampling above.
#[test]
fn the_subscript_scatters_and_ufunc_at_compile_for_every_dtype() {
    require_nvrtc!();
    let sources: Vec<(String, String)> = cuprum::internal::routine_sample_sources()
        .unwrap()
        .into_iter()
        .filter(|(n, _)| n.starts_with("put_block ") || n.contains(".at "))
        .collect();
    assert!(sources.len() >= 70, "{}", sources.len());
    assert_none_failed(compile_all(
        &sources,
        &common::sweep_options(),
        |name, _, r| r.err().map(|e| format!("{name}: {e}")),
    ));
}
