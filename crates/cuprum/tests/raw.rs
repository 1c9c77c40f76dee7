//! GPU tests of RawKernel and RawModule: checked arguments, launch limits, faults,
//! cooperative launch, templates, constant memory, concurrency.

mod common;

use cuprum::kernel::{Backend, ByValue, DevicePtr, Strided};
use cuprum::{Array, DType, Device, ErrorKind, RawKernel, RawModule, Stream, s};

const ADD: &str = r#"
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"#;

fn randf(rng: &mut common::Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.f64(-10.0, 10.0) as f32).collect()
}

#[test]
fn vector_add_matches_host_for_odd_sizes() {
    require_gpu!();
    let k = RawKernel::new(ADD, "vector_add");
    let mut rng = common::Rng::new(1);
    for n in [1usize, 255, 257, 100_003] {
        let (ha, hb) = (randf(&mut rng, n), randf(&mut rng, n));
        let a = Array::from_slice(&ha, &[n]).unwrap();
        let b = Array::from_slice(&hb, &[n]).unwrap();
        let c = Array::full(&[n], f32::NAN, DType::F32).unwrap();
        k.launch((n as u32).div_ceil(256), 256, (&a, &b, &c, n as i32))
            .unwrap();
        let hc = c.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(hc[i], ha[i] + hb[i], "n={n} i={i}");
        }
    }
}

#[test]
fn argument_mismatches_are_errors_naming_the_argument() {
    require_gpu!();
    let k = RawKernel::new(ADD, "vector_add");
    let a = Array::ones(&[8], DType::F32).unwrap();
    // count
    let e = k.launch(1, 8, (&a, &a, &a)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(
        e.to_string().contains("takes 4 parameter(s)") && e.to_string().contains("3 argument(s)"),
        "{e}"
    );
    // a 64-bit integer where the kernel takes int
    let e = k.launch(1, 8, (&a, &a, &a, 8i64)).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("argument 3 is i64 (8 bytes)") && m.contains("parameter 3 is 4 bytes"),
        "{m}"
    );
    assert!(m.contains("as i32"), "{m}");
    // a 2-byte scalar where a pointer goes
    let e = k.launch(1, 8, (&a, 1u16, &a, 8i32)).unwrap_err();
    assert!(e.to_string().contains("argument 1 is u16 (2 bytes)"), "{e}");
    // a strided view where the kernel takes a pointer
    let m2 = Array::ones(&[4, 2], DType::F32).unwrap();
    let e = k.launch(1, 8, (&m2.t(), &a, &a, 8i32)).unwrap_err();
    assert!(
        e.to_string()
            .contains("argument 0 is a non-contiguous view"),
        "{e}"
    );
    // ... unless the user opts in
    let out = Array::zeros(&[8], DType::F32).unwrap();
    let t = m2.t();
    k.launch(1, 8, (Strided(&t), &a, &out, 8i32)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![2.0; 8]);
    // a contiguous slice passes its first element's address
    let base = Array::arange(0.0, 10.0, 1.0, DType::F32).unwrap();
    let tail = base.slice(&s![2..]).unwrap();
    let out = Array::zeros(&[8], DType::F32).unwrap();
    k.launch(1, 8, (&tail, &a, &out, 8i32)).unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        (3..11).map(|x| x as f32).collect::<Vec<_>>()
    );
}

#[test]
fn launch_configs_outside_limits_are_errors() {
    require_gpu!();
    let k = RawKernel::new(ADD, "vector_add");
    let a = Array::ones(&[8], DType::F32).unwrap();
    let args = (&a, &a, &a, 8i32);
    let e = k.launch(0, 8, args).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("zero dimension"), "{e}");
    let e = k.launch(1, (0, 1), args).unwrap_err();
    assert!(e.to_string().contains("zero dimension"), "{e}");
    let e = k.launch(1, 2048, args).unwrap_err();
    assert!(
        (e.to_string().contains("2048 threads") || e.to_string().contains("dimension x is 2048"))
            && e.to_string().contains("1024"),
        "{e}"
    );
    let e = k.launch(1, (32, 32, 2), args).unwrap_err();
    assert!(
        e.to_string().contains("dimension z is 2") || e.to_string().contains("2048 threads"),
        "{e}"
    );
    let e = k
        .configure(1, 8)
        .shared_mem(1 << 20)
        .launch(args)
        .unwrap_err();
    assert!(e.to_string().contains("dynamic shared memory"), "{e}");
    let e = k.launch((1, 1, 100_000), 8, args).unwrap_err();
    assert!(e.to_string().contains("grid dimension z is 100000"), "{e}");
}

/// Above 48 KiB a launch opts in by itself (the kernel's limit is raised once, as the one
/// launch check does for every kernel kind), up to the device's opt-in limit.
#[test]
fn dynamic_shared_memory_above_48k_opts_in_at_launch() {
    require_gpu!();
    let k = RawKernel::new(
        r#"extern "C" __global__ void fill(float* out, int n) {
            extern __shared__ float buf[];
            for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = (float)i;
            __syncthreads();
            for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];
        }"#,
        "fill",
    );
    let n = 24 * 1024usize; // 96 KiB of shared memory
    let out = Array::zeros(&[n], DType::F32).unwrap();
    assert!(k.attributes().unwrap().max_dynamic_shared_size_bytes as usize <= 48 << 10);
    k.configure(1, 256)
        .shared_mem(n * 4)
        .launch((&out, n as i32))
        .unwrap();
    assert_eq!(
        k.attributes().unwrap().max_dynamic_shared_size_bytes as usize,
        n * 4
    );
    let v = out.to_vec::<f32>().unwrap();
    assert_eq!(v[0], (n - 1) as f32);
    assert_eq!(v[n - 1], 0.0);
    let optin = Device::current()
        .unwrap()
        .max_shared_memory_per_block_optin();
    let too_much = optin + 1;
    let e = k
        .configure(1, 256)
        .shared_mem(too_much)
        .launch((&out, n as i32))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(
        e.to_string().contains("dynamic shared memory")
            && e.to_string().contains(&format!("at most {}", optin)),
        "{e}"
    );
    // Setting the limit by hand still works (lower or higher), within the device's limit.
    k.set_max_dynamic_shared_memory(n * 4).unwrap();
    assert_eq!(
        k.set_max_dynamic_shared_memory(too_much)
            .unwrap_err()
            .kind(),
        ErrorKind::Launch
    );
    k.set_preferred_carveout(50).unwrap();
    assert!(k.set_preferred_carveout(101).is_err());
}

#[test]
fn attributes_are_reported() {
    require_gpu!();
    let k = RawKernel::new(ADD, "vector_add");
    let a = k.attributes().unwrap();
    assert_eq!(a.max_threads_per_block, 1024);
    let dev = Device::current().unwrap();
    assert_eq!(a.shared_size_bytes, 0);
    if dev.is_host() {
        // registers and PTX/SASS versions mean nothing for host code
        assert_eq!(
            (a.num_regs, a.binary_version, a.ptx_version),
            (0, 0, 0),
            "{a:?}"
        );
        assert_eq!(a.max_dynamic_shared_size_bytes, 48 << 10);
        return;
    }
    assert!(a.num_regs > 0 && a.num_regs < 255, "{a:?}");
    assert_eq!(a.binary_version as u32, dev.arch());
}

#[test]
fn compile_errors_surface_at_compile_with_the_log() {
    require_gpu!();
    let k = RawKernel::new(
        "extern \"C\" __global__ void k(int* x) { x[0] = nope; }",
        "k",
    );
    let e = k.compile().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile);
    assert!(e.compile_log().unwrap().contains("nope"));
    let missing = RawKernel::new(ADD, "no_such_kernel");
    let e = missing.compile().unwrap_err();
    assert!(
        e.to_string().contains("no kernel named 'no_such_kernel'")
            && e.to_string()
                .ends_with("(CUDA_ERROR_NOT_FOUND: named symbol not found)"),
        "{e}"
    );
    let e = cuprum::RawModule::from_file("/nonexistent/module.cubin")
        .compile()
        .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("(CUDA_ERROR_FILE_NOT_FOUND: file not found)"),
        "{e}"
    );
}

#[test]
fn faulting_kernel_is_an_error_not_an_abort() {
    require_gpu!();
    // A device fault poisons the context for the whole process, so it runs in a child.
    let exe = std::env::current_exe().unwrap();
    let out = common::child_env(&mut std::process::Command::new(exe))
        .args([
            "--exact",
            "fault_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CUPRUM_FAULT_CHILD", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("FAULT-OK"), "child output:\n{text}");
    // the host device reports the SIGSEGV it caught, naming block and thread
    let want = if cuprum::Device::current().unwrap().is_host() {
        "invalid memory access at address"
    } else {
        "CUDA_ERROR_ILLEGAL_ADDRESS"
    };
    assert!(text.contains(want), "child output:\n{text}");
}

#[test]
#[ignore = "run by faulting_kernel_is_an_error_not_an_abort in a child process"]
fn fault_child() {
    if std::env::var("CUPRUM_FAULT_CHILD").is_err() {
        return;
    }
    common::setup();
    let k = RawKernel::new(
        "extern \"C\" __global__ void oob(float* x) { x[threadIdx.x + (1ll << 40)] = 1.0f; }",
        "oob",
    );
    let a = Array::zeros(&[4], DType::F32).unwrap();
    let launched = k.launch(1, 32, (&a,));
    let synced = Stream::current().unwrap().synchronize();
    let e = launched.and(synced).unwrap_err();
    println!("FAULT-OK: {e}");
}

#[test]
fn cooperative_launch_with_grid_sync() {
    require_gpu!();
    let inc = std::env::var("CUDA_HOME").unwrap_or_else(|_| "/usr/local/cuda".into()) + "/include";
    // the host device has its own cooperative_groups.h
    let host = Device::current().unwrap().is_host();
    if !host
        && !std::path::Path::new(&inc)
            .join("cooperative_groups.h")
            .exists()
    {
        common::skip(
            common::Need::Other,
            &format!("no cooperative_groups.h under {inc}"),
        );
        return;
    }
    let k = RawKernel::new(
        r#"#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void two_phase(int* data, int* out, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) data[i] = i;
    g.sync();
    if (i < n) out[i] = data[n - 1 - i];
}"#,
        "two_phase",
    )
    .options(
        cuprum::CompileOptions::new()
            .toolkit_includes()
            .program_name("coop.cu"),
    )
    .cooperative(true);
    let dev = Device::current().unwrap();
    let blocks = dev.sm_count();
    let n = (blocks * 256) as usize;
    let data = Array::zeros(&[n], DType::I32).unwrap();
    let out = Array::zeros(&[n], DType::I32).unwrap();
    k.launch(blocks, 256, (&data, &out, n as i32)).unwrap();
    let v = out.to_vec::<i32>().unwrap();
    assert!(v.iter().enumerate().all(|(i, &x)| x == (n - 1 - i) as i32));
    let e = k
        .launch(blocks * 1000, 256, (&data, &out, n as i32))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("exceeds the limit"), "{e}");
}

#[test]
fn templates_through_name_expressions_and_constant_memory() {
    require_gpu!();
    let m = RawModule::new(
        r#"
__constant__ float coeffs[4];
__device__ int counter;
template<typename T, int N> __global__ void scale(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * N + (T)coeffs[i % 4];
}
extern "C" __global__ void bump() { atomicAdd(&counter, 1); }
"#,
    )
    .name_expression("scale<float, 4>")
    .name_expression("scale<double, 2>");
    let c = m.get_global::<f32>("coeffs").unwrap();
    assert_eq!(c.shape(), &[4]);
    c.copy_from_slice(&[0.5f32, 1.5, 2.5, 3.5]).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![0.5, 1.5, 2.5, 3.5]);
    let kf = m.get_function("scale<float, 4>").unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5]).unwrap();
    kf.launch(1, 32, (&x, 5i32)).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![4.5, 9.5, 14.5, 19.5, 20.5]);
    let kd = m.get_function("scale<double, 2>").unwrap();
    let y = Array::from_slice(&[1.0f64, -1.0], &[2]).unwrap();
    kd.launch(1, 32, (&y, 2i32)).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![2.5, -0.5]);
    // the float kernel given a double array's element size is still a pointer: fine; but a
    // f64 scalar for `int n` is not
    assert!(kf.launch(1, 32, (&x, 5.0f64)).is_err());
    let counter = m.get_global::<i32>("counter").unwrap();
    counter.fill(0i32).unwrap();
    let bump = m.get_function("bump").unwrap();
    bump.launch(3, 64, ()).unwrap();
    assert_eq!(counter.to_vec::<i32>().unwrap(), vec![192]);
    assert_eq!(m.get_global::<f64>("coeffs").unwrap().size(), 2);
}

/// Unknown names are typed errors (kept apart from the test above: the driver's "not found"
/// answer is an API error that compute-sanitizer reports, so the sanitizer sweep leaves this
/// test out).
#[test]
fn unknown_globals_and_functions_are_typed_errors() {
    require_gpu!();
    let m = RawModule::new(
        r#"
__device__ int counter;
template<typename T> __global__ void scale(T* x) { x[0] = x[0] * (T)2; }
"#,
    )
    .name_expression("scale<float>");
    assert!(m.get_global::<i32>("counter").is_ok());
    let e = m.get_global::<f32>("nope").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("nope"), "{e}");
    let e = m.get_function("scale<int>").unwrap_err();
    assert!(e.to_string().contains("scale<int>"), "{e}");
}

#[test]
fn structs_by_value_and_raw_pointers() {
    require_gpu!();
    #[repr(C)]
    #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    struct Affine {
        scale: f32,
        shift: f32,
        n: i32,
        pad: i32,
    }
    let k = RawKernel::new(
        r#"struct Affine { float scale; float shift; int n; int pad; };
extern "C" __global__ void affine(float* x, Affine p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) x[i] = x[i] * p.scale + p.shift;
}"#,
        "affine",
    );
    let x = Array::arange(0.0, 10.0, 1.0, DType::F32).unwrap();
    let p = Affine {
        scale: 2.0,
        shift: 1.0,
        n: 10,
        pad: 0,
    };
    k.launch(1, 32, (DevicePtr(x.data_ptr()), ByValue(p)))
        .unwrap();
    assert_eq!(
        x.to_vec::<f32>().unwrap(),
        (0..10).map(|i| 2.0 * i as f32 + 1.0).collect::<Vec<_>>()
    );
}

#[test]
fn concurrent_launches_from_threads_on_streams() {
    require_gpu!();
    let k = std::sync::Arc::new(RawKernel::new(ADD, "vector_add"));
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let k = k.clone();
            std::thread::spawn(move || {
                let s = Stream::new().unwrap();
                s.with(|| {
                    let n = 10_000 + t;
                    let a = Array::full(&[n], t as f32, DType::F32).unwrap();
                    let c = Array::empty(&[n], DType::F32).unwrap();
                    for _ in 0..20 {
                        k.launch((n as u32).div_ceil(128), 128, (&a, &a, &c, n as i32))
                            .unwrap();
                    }
                    s.synchronize().unwrap();
                    assert!(
                        c.to_vec::<f32>()
                            .unwrap()
                            .iter()
                            .all(|&v| v == 2.0 * t as f32)
                    );
                });
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn nvcc_backend_or_a_clear_error() {
    require_gpu!();
    let k = RawKernel::new(ADD, "vector_add").backend(Backend::Nvcc);
    match k.compile() {
        Ok(()) => {
            let a = Array::ones(&[4], DType::F32).unwrap();
            let c = Array::empty(&[4], DType::F32).unwrap();
            k.launch(1, 4, (&a, &a, &c, 4i32)).unwrap();
            assert_eq!(c.to_vec::<f32>().unwrap(), vec![2.0; 4]);
        }
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::NvccNotFound, "{e}");
            assert!(e.to_string().contains("nvcc"), "{e}");
        }
    }
}

#[test]
fn module_from_a_cubin_file() {
    require_cuda!();
    let dev = Device::current().unwrap();
    let img =
        cuprum::compile::compile_for_arch(ADD, &cuprum::CompileOptions::default(), dev.arch())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("add.cubin");
    std::fs::write(&path, &img.image).unwrap();
    let m = RawModule::from_file(&path);
    let k = m.get_function("vector_add").unwrap();
    let a = Array::ones(&[3], DType::F32).unwrap();
    let c = Array::empty(&[3], DType::F32).unwrap();
    k.launch(1, 3, (&a, &a, &c, 3i32)).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![2.0; 3]);
    let missing = RawModule::from_file(dir.path().join("missing.cubin"));
    assert_eq!(
        missing.get_function("vector_add").unwrap_err().kind(),
        ErrorKind::Io
    );
}

const ADD_ONE_GRID_STRIDE: &str = r#"
extern "C" __global__ void add_one_gs(float* x, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        x[i] += 1.0f;
}"#;

/// Seed 000's grid-stride loop: a grid sized by the driver's occupancy calculator covers
/// any number of elements, each exactly once.
#[test]
fn grid_stride_launches_are_sized_by_the_occupancy_calculator() {
    use cuprum::runtime::LaunchConfig;
    require_gpu!();
    let k = RawKernel::new(ADD_ONE_GRID_STRIDE, "add_one_gs");
    let dev = Device::current().unwrap();
    let occ = k.occupancy(256, 0).unwrap();
    assert_eq!((occ.block, occ.shared_mem_bytes), (256, 0));
    assert_eq!(occ.sm_count, dev.sm_count());
    assert!(occ.blocks_per_sm >= 1, "{occ:?}");
    assert!(occ.blocks_per_sm * 256 <= occ.max_threads_per_sm, "{occ:?}");
    assert!(occ.fraction() > 0.0 && occ.fraction() <= 1.0, "{occ:?}");
    assert_eq!(
        occ.resident_blocks(),
        u64::from(occ.blocks_per_sm) * u64::from(dev.sm_count())
    );
    let mut rng = common::Rng::new(7);
    for n in [1usize, 257, 100_003, 10_000_000] {
        let cfg = k.grid_stride(n, 256, 0).unwrap();
        let need = LaunchConfig::blocks_for(n, 256) as u64;
        assert_eq!(
            u64::from(cfg.grid.0),
            need.min(occ.resident_blocks()).max(1),
            "n={n}"
        );
        assert_eq!((cfg.grid.1, cfg.grid.2, cfg.block), (1, 1, (256, 1, 1)));
        let h = randf(&mut rng, n);
        let x = Array::from_slice(&h, &[n]).unwrap();
        k.configure(cfg.grid, cfg.block)
            .launch((&x, n as i64))
            .unwrap();
        let got = x.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got[i], h[i] + 1.0, "n={n} i={i}");
        }
    }
    // other block sizes; dynamic shared memory can only lower the residency
    for block in [32u32, 128, 512, 1024] {
        let o = k.occupancy(block, 0).unwrap();
        assert!(o.blocks_per_sm >= 1 && o.blocks_per_sm * block <= o.max_threads_per_sm);
    }
    let with_smem = k.occupancy(256, 40 * 1024).unwrap();
    assert!(
        with_smem.blocks_per_sm <= occ.blocks_per_sm,
        "{with_smem:?} vs {occ:?}"
    );
    // impossible blocks are errors that say why
    let e = k.occupancy(0, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("threads per block"), "{e}");
    let e = k.grid_stride(10, 4096, 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("blocks of 4096 threads"), "{e}");
}

/// Raw kernels written for CuPy include `<cupy/complex.cuh>`: `complex<T>` at global scope
/// and in `thrust`, its functions found by argument-dependent lookup or as `thrust::` names.
#[test]
fn cupy_complex_header_serves_cupy_kernels() {
    require_gpu!();
    let src = r#"
#include <cupy/complex.cuh>
template <typename T>
__global__ void square(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= x[i];
}
extern "C" __global__ void magnitude(const complex<double>* z, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = thrust::abs(z[i]) + 0.0 * abs(conj(z[i]));
}
"#;
    let m = RawModule::new(src).name_expression("square<complex<double>>");
    let z = [
        num_complex::Complex::new(1.0f64, 2.0),
        num_complex::Complex::new(-3.0, 0.5),
    ];
    let x = Array::from_slice(&z, &[2]).unwrap();
    m.get_function("square<complex<double>>")
        .unwrap()
        .launch(1u32, 2u32, (&x, 2i32))
        .unwrap();
    let got = x.to_vec::<num_complex::Complex<f64>>().unwrap();
    for (g, w) in got.iter().zip(&z) {
        assert!((g - w * w).norm() < 1e-12, "{g} vs {}", w * w);
    }
    let out = Array::zeros(&[2], DType::F64).unwrap();
    m.get_function("magnitude")
        .unwrap()
        .launch(
            1u32,
            2u32,
            (&Array::from_slice(&z, &[2]).unwrap(), &out, 2i32),
        )
        .unwrap();
    let got = out.to_vec::<f64>().unwrap();
    assert!((got[0] - 5f64.sqrt()).abs() < 1e-12 && (got[1] - 9.25f64.sqrt()).abs() < 1e-12);
}

/// A kernel that launches kernels (dynamic parallelism): compiled as relocatable device
/// code (`-dc`, CuPy's spelling) and linked with the CUDA device runtime when it loads.
const PARENT_CHILD: &str = r#"
extern "C" {
__global__ void fill_one(float* arr, int n) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) arr[i] = 1.0f + arr[i];
}
__global__ void parent(float* arr, int n, int chunk) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n / chunk) fill_one<<<1, chunk>>>(arr + i * chunk, chunk);
}
}"#;

#[test]
fn kernels_that_launch_kernels_link_with_the_device_runtime() {
    require_gpu!();
    skip_on_host!("launches from device code (dynamic parallelism)");
    let (n, chunk) = (169usize, 13usize);
    for flag in ["-dc", "-rdc=true", "--relocatable-device-code=true"] {
        let k = RawKernel::new(PARENT_CHILD, "parent").option(flag);
        let x = Array::from_slice(&vec![2.0f32; n], &[n]).unwrap();
        k.launch(1, (n / chunk) as u32, (&x, n as i32, chunk as i32))
            .unwrap();
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![3.0f32; n], "{flag}");
    }
    // Without relocatable device code NVRTC refuses the launch from device code.
    let e = RawKernel::new(PARENT_CHILD, "parent")
        .launch(
            1,
            13,
            (
                &Array::zeros(&[n], DType::F32).unwrap(),
                n as i32,
                chunk as i32,
            ),
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Compile, "{e}");
}
