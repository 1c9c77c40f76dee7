//! NVRTC compile checks: run without a GPU (CI installs NVRTC from pip and sets
//! CUPRUM_REQUIRE_NVRTC=1 so these cannot silently skip).

mod common;

use cuprum::ErrorKind;
use cuprum::compile::{CompileOptions, compile_for_arch, nvrtc};

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

#[test]
fn every_array_kernel_compiles_for_sm90() {
    require_nvrtc!();
    let sources = cuprum::internal::all_sources();
    assert!(sources.len() > 40, "{}", sources.len());
    for (name, src) in sources {
        let img = compile_for_arch(&src, &CompileOptions::default(), 90)
            .unwrap_or_else(|e| panic!("{name} failed to compile: {e}\n{src}"));
        assert!(img.is_cubin, "{name}");
        assert!(img.image.starts_with(b"\x7fELF"), "{name}: not a cubin");
    }
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

/// Every seed kernel the examples and benchmarks use (`examples/kernels/*.cu`) compiles for
/// sm_90.
#[test]
fn every_example_kernel_compiles() {
    require_nvrtc!();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "cu") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let opts = CompileOptions::default().program_name(name.clone());
        let img = compile_for_arch(&src, &opts, 90).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(img.is_cubin, "{name}");
        count += 1;
    }
    assert!(
        count >= 6,
        "found only {count} kernels in {}",
        dir.display()
    );
}

#[test]
fn every_elementwise_layout_compiles_for_sm90() {
    require_nvrtc!();
    let sources = cuprum::internal::elementwise_sample_sources().unwrap();
    assert!(sources.len() > 60, "{}", sources.len());
    for (name, src) in sources {
        let img = compile_for_arch(&src, &CompileOptions::default(), 90)
            .unwrap_or_else(|e| panic!("{name} failed to compile: {e}\n{src}"));
        assert!(img.is_cubin, "{name}");
    }
}

#[test]
fn every_builtin_operation_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::ops_sample_sources().unwrap();
    assert!(sources.len() > 400, "{}", sources.len());
    let mut failures = Vec::new();
    for (name, src) in sources {
        if let Err(e) = compile_for_arch(&src, &CompileOptions::default(), 90) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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
    let sources = cuprum::internal::reduction_sample_sources().unwrap();
    assert!(sources.len() >= 100, "{}", sources.len());
    let mut failures = Vec::new();
    for (name, src) in sources {
        if let Err(e) = compile_for_arch(&src, &CompileOptions::default(), 90) {
            failures.push(format!("{name}: {e}\n{src}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed; first: {}",
        failures.len(),
        failures[0]
    );
}

#[test]
fn every_builtin_reduction_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::ops_reduction_sample_sources().unwrap();
    assert!(sources.len() > 150, "{}", sources.len());
    let mut failures = Vec::new();
    for (name, src) in sources {
        if let Err(e) = compile_for_arch(&src, &CompileOptions::default(), 90) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed; first: {}",
        failures.len(),
        failures[0]
    );
}

/// Every array-routine kernel (scans, compaction, radix sort, gathers and scatters) for
/// every dtype it takes.
#[test]
fn every_routine_kernel_compiles_for_every_dtype() {
    require_nvrtc!();
    let sources = cuprum::internal::routine_sample_sources().unwrap();
    assert!(sources.len() >= 150, "{}", sources.len());
    let filter = std::env::var("CUPRUM_ROUTINE_FILTER").unwrap_or_default();
    let mut failures = Vec::new();
    for (name, src) in sources {
        if !name.contains(&filter) {
            continue;
        }
        if let Err(e) = compile_for_arch(&src, &CompileOptions::default(), 90) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed; first: {}",
        failures.len(),
        failures[0]
    );
}
