//! CUDA toolkit headers in user code (`cooperative_groups.h`, `cub/...`, `cuda_fp16.h`,
//! `cuda_bf16.h`, `math_constants.h`, `cuda/std/...`): NVRTC compile checks of every header
//! family without a GPU (CI installs the wheels and sets CUPRUM_REQUIRE_NVRTC=1), and GPU
//! tests of kernels that use them, against host references on random data.

mod common;

use cuprum::compile::{CompileOptions, compile_for_arch};
use cuprum::{Array, DType, Device, ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
use half::{bf16, f16};

/// Phase 1 writes every element, `grid.sync()`, phase 2 reads elements other blocks wrote.
const COOPERATIVE: &str = r#"#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void mirror_sum(const float* x, float* buf, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) buf[i] = 2.0f * x[i];
    grid.sync();
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) out[i] = buf[i] + buf[n - 1 - i];
}
"#;

/// One partial sum per block through `cub::BlockReduce`, and one per warp through
/// `cub::WarpReduce`.
const CUB: &str = r#"#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
extern "C" __global__ void block_sums(const float* x, float* partial, long long n) {
    using BlockReduce = cub::BlockReduce<float, 256>;
    __shared__ typename BlockReduce::TempStorage tmp;
    float v = 0.0f;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += (long long)gridDim.x * 256) v += x[i];
    float s = BlockReduce(tmp).Sum(v);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
extern "C" __global__ void warp_sums(const int* x, int* out, int n) {
    using WarpReduce = cub::WarpReduce<int>;
    __shared__ typename WarpReduce::TempStorage tmp[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x / 32;
    int s = WarpReduce(tmp[warp]).Sum(i < n ? x[i] : 0);
    if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = s;
}
"#;

/// `y = a * b + a` in half and in bfloat16 arithmetic.
const HALVES: &str = r#"#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void fma_half(const __half* a, const __half* b, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hadd(__hmul(a[i], b[i]), a[i]);
}
extern "C" __global__ void fma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hadd(__hmul(a[i], b[i]), a[i]);
}
extern "C" __global__ void half_to_float(const __half* a, const __nv_bfloat16* b, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __half2float(a[i]) + __bfloat162float(b[i]);
}
"#;

const MATH_CONSTANTS: &str = r#"#include <math_constants.h>
extern "C" __global__ void constants(float* f, double* d) {
    f[0] = CUDART_PI_F; f[1] = -CUDART_INF_F; f[2] = CUDART_NAN_F; f[3] = CUDART_SQRT_TWO_F;
    d[0] = CUDART_PI; d[1] = CUDART_INF; d[2] = CUDART_NAN; d[3] = CUDART_SQRT_TWO;
}
"#;

const CUDA_STD: &str = r#"#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/cstdint>
extern "C" __global__ void limits(float* f, long long* i) {
    static_assert(cuda::std::is_same<cuda::std::int32_t, int>::value, "int32_t is int");
    f[0] = cuda::std::numeric_limits<float>::max();
    f[1] = cuda::std::numeric_limits<float>::lowest();
    f[2] = cuda::std::numeric_limits<float>::epsilon();
    i[0] = cuda::std::numeric_limits<cuda::std::int64_t>::min();
}
"#;

/// Compiles `src` for sm_90 with default options (the CUDA include folders come by
/// themselves) and checks the cubin holds `kernels`.
fn compiles(name: &str, src: &str, kernels: &[&str]) {
    let opts = CompileOptions::default().program_name(name);
    let img = compile_for_arch(src, &opts, 90).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(img.is_cubin && img.image.starts_with(b"\x7fELF"), "{name}");
    for k in kernels {
        let b = k.as_bytes();
        assert!(img.image.windows(b.len()).any(|w| w == b), "{name}: no {k}");
    }
}

#[test]
fn cooperative_groups_grid_sync_compiles_without_rdc() {
    require_nvrtc!();
    compiles("coop.cu", COOPERATIVE, &["mirror_sum"]);
}

#[test]
fn cub_block_and_warp_reduce_compile() {
    require_nvrtc!();
    compiles("cub.cu", CUB, &["block_sums", "warp_sums"]);
}

#[test]
fn cuda_fp16_and_bf16_arithmetic_compiles() {
    require_nvrtc!();
    compiles(
        "halves.cu",
        HALVES,
        &["fma_half", "fma_bf16", "half_to_float"],
    );
}

#[test]
fn math_constants_compile() {
    require_nvrtc!();
    compiles("constants.cu", MATH_CONSTANTS, &["constants"]);
}

#[test]
fn cuda_std_compiles() {
    require_nvrtc!();
    compiles("std.cu", CUDA_STD, &["limits"]);
}

#[test]
fn cub_block_scan_and_cuda_std_algorithms_compile() {
    require_nvrtc!();
    // Device-wide CUB (`cub/cub.cuh`, `cub/device/...`) and thrust need the host C++
    // library, which NVRTC has not: block- and warp-level primitives are what compiles.
    let src = r#"#include <cub/block/block_scan.cuh>
#include <cub/block/block_load.cuh>
#include <cuda/std/functional>
extern "C" __global__ void scan(float* x) {
    using Scan = cub::BlockScan<int, 128>;
    __shared__ typename Scan::TempStorage t;
    int v;
    Scan(t).InclusiveSum((int)threadIdx.x, v);
    x[threadIdx.x] = cuda::std::max(x[0], (float)v);
}
"#;
    compiles("scan.cu", src, &["scan"]);
}

#[test]
fn the_include_folders_come_only_with_cuda_headers() {
    require_nvrtc!();
    // A generated-style source: no CUDA include folder is passed (a compile error's option
    // list shows them).
    let plain = "#include <cuprum/all.cuh>\nextern \"C\" __global__ void k() { nope; }";
    let e = compile_for_arch(plain, &CompileOptions::default(), 90).unwrap_err();
    let opts = e.compile_failure().unwrap().options.join(" ");
    assert!(!opts.contains("-I"), "{opts}");
    // A source with a CUDA header: the folders are passed.
    let with = "#include <math_constants.h>\nextern \"C\" __global__ void k() { nope; }";
    let e = compile_for_arch(with, &CompileOptions::default(), 90).unwrap_err();
    let opts = e.compile_failure().unwrap().options.join(" ");
    let dirs = cuprum::compile::locate().include_dirs;
    assert!(!dirs.is_empty());
    for d in dirs {
        assert!(opts.contains(&format!("-I{}", d.display())), "{opts}");
    }
}

#[test]
fn elementwise_and_reduction_preambles_may_include_cuda_headers() {
    require_nvrtc!();
    let ew = ElementwiseKernel::new("float32 x", "float32 y", "y = x * CUDART_PI_F", "times_pi")
        .unwrap()
        .preamble("#include <math_constants.h>");
    let src = ew
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    compiles("times_pi.cu", &src, &["times_pi"]);
    let h = ElementwiseKernel::new(
        "float32 x",
        "float32 y",
        "y = __half2float(__float2half(x))",
        "round_to_half",
    )
    .unwrap()
    .preamble("#include <cuda_fp16.h>");
    let src = h
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    compiles("round_to_half.cu", &src, &["round_to_half"]);
    let r = ReductionKernel::new(
        "float32 x",
        "float32 y",
        "x",
        "max(a, b)",
        "y = a",
        Some("-CUDART_INF_F"),
        "max_with_inf",
    )
    .unwrap()
    .preamble("#include <math_constants.h>");
    let src = r
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    compiles("max_with_inf.cu", &src, &["max_with_inf"]);
}

// ------------------------------------------------------------------------------------
// GPU tests.

fn randf(rng: &mut common::Rng, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    (0..n).map(|_| rng.f64(lo, hi) as f32).collect()
}

#[test]
fn cooperative_grid_sync_kernel_gives_the_host_result() {
    require_gpu!();
    let k = RawKernel::new(COOPERATIVE, "mirror_sum").cooperative(true);
    let dev = Device::current().unwrap();
    let mut rng = common::Rng::new(19);
    // More elements than threads: every thread handles several, and phase 2 reads values
    // that other blocks wrote in phase 1.
    for n in [1usize, 1000, 3 * 256 * dev.sm_count() as usize + 17] {
        let hx = randf(&mut rng, n, -100.0, 100.0);
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let buf = Array::full(&[n], f32::NAN, DType::F32).unwrap();
        let out = Array::full(&[n], f32::NAN, DType::F32).unwrap();
        k.launch(dev.sm_count(), 256, (&x, &buf, &out, n as i32))
            .unwrap();
        let got = out.to_vec::<f32>().unwrap();
        for i in 0..n {
            let want = 2.0 * hx[i] + 2.0 * hx[n - 1 - i];
            assert_eq!(got[i], want, "n={n} i={i}");
        }
    }
}

#[test]
fn cub_block_reduce_sum_matches_the_host() {
    require_gpu!();
    skip_on_host!("CUB headers are GPU-only (the host device refuses them before compiling)");
    let m = RawModule::new(CUB);
    let sums = m.get_function("block_sums").unwrap();
    let mut rng = common::Rng::new(20);
    for n in [1usize, 255, 257, 1_000_003] {
        let hx = randf(&mut rng, n, -1.0, 1.0);
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let blocks = 120u32;
        let partial = Array::full(&[blocks as usize], f32::NAN, DType::F32).unwrap();
        sums.launch(blocks, 256, (&x, &partial, n as i64)).unwrap();
        let p = partial.to_vec::<f32>().unwrap();
        // Each block's sum against its own elements: an f64 reference, and float's rounding
        // bound (at most 33 additions per thread plus 8 tree levels, under 64 roundings).
        for (b, got) in p.iter().enumerate() {
            let mut want = 0.0f64;
            let mut mag = 0.0f64;
            let mut i = b * 256;
            while i < n {
                for v in &hx[i..(i + 256).min(n)] {
                    want += *v as f64;
                    mag += (*v as f64).abs();
                }
                i += blocks as usize * 256;
            }
            let tol = 64.0 * f32::EPSILON as f64 * mag;
            assert!(
                (*got as f64 - want).abs() <= tol,
                "n={n} block {b}: {got} vs {want}"
            );
        }
    }
    // WarpReduce: integer sums are exact.
    let warps = m.get_function("warp_sums").unwrap();
    let n = 1000usize;
    let hx: Vec<i32> = (0..n).map(|_| rng.usize(0, 2001) as i32 - 1000).collect();
    let x = Array::from_slice(&hx, &[n]).unwrap();
    let nw = n.div_ceil(32);
    let out = Array::zeros(&[nw], DType::I32).unwrap();
    warps
        .launch(n.div_ceil(256) as u32, 256, (&x, &out, n as i32))
        .unwrap();
    let got = out.to_vec::<i32>().unwrap();
    for w in 0..nw {
        let want: i32 = hx[w * 32..((w + 1) * 32).min(n)].iter().sum();
        assert_eq!(got[w], want, "warp {w}");
    }
}

#[test]
fn half_and_bfloat16_kernels_match_the_host() {
    require_gpu!();
    let m = RawModule::new(HALVES);
    let mut rng = common::Rng::new(21);
    let n = 10_007usize;
    let grid = (n as u32).div_ceil(256);
    let fa = randf(&mut rng, n, -4.0, 4.0);
    let fb = randf(&mut rng, n, -4.0, 4.0);
    // float16: a * b rounds to half, then + a rounds again (or both at once when the
    // compiler contracts them into one fma): within one half ulp of either.
    let (ha, hb): (Vec<f16>, Vec<f16>) = fa
        .iter()
        .zip(&fb)
        .map(|(a, b)| (f16::from_f32(*a), f16::from_f32(*b)))
        .unzip();
    let (a, b) = (
        Array::from_slice(&ha, &[n]).unwrap(),
        Array::from_slice(&hb, &[n]).unwrap(),
    );
    let y = Array::zeros(&[n], DType::F16).unwrap();
    m.get_function("fma_half")
        .unwrap()
        .launch(grid, 256, (&a, &b, &y, n as i32))
        .unwrap();
    let got = y.to_vec::<f16>().unwrap();
    for i in 0..n {
        let (x, z) = (ha[i].to_f64(), hb[i].to_f64());
        let two_roundings = f16::from_f64(f16::from_f64(x * z).to_f64() + x);
        let one_rounding = f16::from_f64(x * z + x);
        assert!(
            got[i] == two_roundings || got[i] == one_rounding,
            "float16 i={i}: {} * {} + {}: got {}, want {two_roundings}",
            ha[i],
            hb[i],
            ha[i],
            got[i]
        );
    }
    // bfloat16, the same way.
    let (ba, bb): (Vec<bf16>, Vec<bf16>) = fa
        .iter()
        .zip(&fb)
        .map(|(a, b)| (bf16::from_f32(*a), bf16::from_f32(*b)))
        .unzip();
    let (a2, b2) = (
        Array::from_slice(&ba, &[n]).unwrap(),
        Array::from_slice(&bb, &[n]).unwrap(),
    );
    let y2 = Array::zeros(&[n], DType::BF16).unwrap();
    m.get_function("fma_bf16")
        .unwrap()
        .launch(grid, 256, (&a2, &b2, &y2, n as i32))
        .unwrap();
    let got = y2.to_vec::<bf16>().unwrap();
    for i in 0..n {
        let (x, z) = (ba[i].to_f64(), bb[i].to_f64());
        let two_roundings = bf16::from_f64(bf16::from_f64(x * z).to_f64() + x);
        let one_rounding = bf16::from_f64(x * z + x);
        assert!(
            got[i] == two_roundings || got[i] == one_rounding,
            "bfloat16 i={i}: got {}, want {two_roundings}",
            got[i]
        );
    }
    // Conversions: exact.
    let yf = Array::zeros(&[n], DType::F32).unwrap();
    m.get_function("half_to_float")
        .unwrap()
        .launch(grid, 256, (&a, &b2, &yf, n as i32))
        .unwrap();
    let got = yf.to_vec::<f32>().unwrap();
    for i in 0..n {
        assert_eq!(got[i], ha[i].to_f32() + bb[i].to_f32(), "i={i}");
    }
}

#[test]
fn math_constants_and_cuda_std_values_on_the_gpu() {
    require_gpu!();
    skip_on_host!(
        "libcu++ headers (cuda/std) are GPU-only (the host device refuses them before compiling)"
    );
    let k = RawKernel::new(MATH_CONSTANTS, "constants");
    let f = Array::zeros(&[4], DType::F32).unwrap();
    let d = Array::zeros(&[4], DType::F64).unwrap();
    k.launch(1, 1, (&f, &d)).unwrap();
    let f = f.to_vec::<f32>().unwrap();
    let d = d.to_vec::<f64>().unwrap();
    assert_eq!(f[0], std::f32::consts::PI);
    assert_eq!(f[1], f32::NEG_INFINITY);
    assert!(f[2].is_nan());
    assert_eq!(f[3], std::f32::consts::SQRT_2);
    assert_eq!(d[0], std::f64::consts::PI);
    assert_eq!(d[1], f64::INFINITY);
    assert!(d[2].is_nan());
    assert_eq!(d[3], std::f64::consts::SQRT_2);
    let k = RawKernel::new(CUDA_STD, "limits");
    let f = Array::zeros(&[3], DType::F32).unwrap();
    let i = Array::zeros(&[1], DType::I64).unwrap();
    k.launch(1, 1, (&f, &i)).unwrap();
    assert_eq!(
        f.to_vec::<f32>().unwrap(),
        [f32::MAX, f32::MIN, f32::EPSILON]
    );
    assert_eq!(i.to_vec::<i64>().unwrap(), [i64::MIN]);
}

#[test]
fn an_elementwise_preamble_with_a_cuda_header_runs() {
    require_gpu!();
    let k = ElementwiseKernel::new("float32 x", "float32 y", "y = x * CUDART_PI_F", "times_pi")
        .unwrap()
        .preamble("#include <math_constants.h>");
    let mut rng = common::Rng::new(22);
    for n in [1usize, 257, 100_003] {
        let hx = randf(&mut rng, n, -10.0, 10.0);
        let x = Array::from_slice(&hx, &[n]).unwrap();
        let y = k.call((&x,)).unwrap();
        let got = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got[i], hx[i] * std::f32::consts::PI, "n={n} i={i}");
        }
    }
}
