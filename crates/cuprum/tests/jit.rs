//! Kernels written in Rust (`#[cuprum::kernel]`, `#[cuprum::device]`): the examples'
//! kernels against host references; device functions on the host and on the GPU over
//! random inputs (integers exact); Rust's semantics (wrapping, truncating division,
//! saturating casts); generic kernels for every numeric type; shared memory, atomics,
//! warps, grid sync. The bounds-check fault as a typed error with file, line, block and
//! thread, the context usable afterwards, is in tests/jit_faults.rs (its own process: a
//! fault is reported at the process's next synchronisation); argument checks (aliasing
//! `&mut`, dtype, contiguity). GPU tests skip without a GPU; the host tests at the top
//! always run.

#![allow(clippy::needless_range_loop, clippy::nonminimal_bool)]

mod common;
mod jit_kernels;

#[allow(dead_code)]
#[path = "../../../examples/kernels/rust_kernels.rs"]
mod kernels;

#[allow(dead_code)]
#[path = "../../../examples/reference/prime_factor_sum.rs"]
mod reference;

use common::Rng;
use cuprum::gpu::{Float, Int, Num, Scalar, Slice, bf16, f16};
use cuprum::kernel::JitConfig;
use cuprum::{Array, DType, Element, ErrorKind, s};
use jit_kernels as jk;

fn dev<T: Element>(v: &[T]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

fn zeros<T: Scalar>(n: usize) -> Array {
    Array::zeros(&[n], T::DTYPE).unwrap()
}

/// `|a - b| <= tol * (1 + |b|)`, NaN equal to NaN.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * (1.0 + b.abs())
}

// ---- on the host: device functions are ordinary Rust functions ------------------------------

#[test]
fn device_functions_run_on_the_host() {
    for n in [2i64, 3, 4, 12, 287, 999_999, 1_000_000, 97 * 89] {
        assert_eq!(
            jk::sum_prime_factors(n),
            reference::prime_factor_sum(n),
            "{n}"
        );
    }
    assert_eq!(
        [999_998, 999_999, 1_000_000].map(jk::sum_prime_factors),
        [287, 77, 42]
    );
    assert_eq!(kernels::activation_relu(-1.5), 0.0);
    assert_eq!(kernels::activation_relu(2.5), 2.5);
    assert!((kernels::activation_sigmoid(0.0) - 0.5).abs() < 1e-7);
    assert_eq!(jk::int_mix::<u8>(200, 100), jk::int_mix::<u8>(200, 100));
    let x = [1.0f32, 2.0, 3.0];
    assert_eq!(jk::read_at(Slice::new(&x), 2), 3.0);
}

#[test]
fn sources_and_programs_are_visible() {
    assert!(
        kernels::prime_factor_sum::SOURCE
            .starts_with("extern \"C\" __global__ void prime_factor_sum(")
    );
    let p = kernels::apply_activation::program();
    assert!(p.contains("#include <cuprum/jit.cuh>"), "{p}");
    assert!(
        p.contains("__device__ inline float activation_relu(float x)"),
        "{p}"
    );
    assert!(
        p.contains("__device__ inline float activation_sigmoid(float x)"),
        "{p}"
    );
    assert!(kernels::activation_relu::SOURCE.contains("namespace cj_dev"));
    assert!(
        kernels::vector_add::SOURCE
            .starts_with("template <typename T>\n__global__ void vector_add(")
    );
    let def = &kernels::vector_add::__CUPRUM_KERNEL;
    assert_eq!(def.instance_name(&["float".into()]), "vector_add<float>");
    assert!(!kernels::prime_factor_sum::__CUPRUM_KERNEL.is_cooperative());
    assert!(jk::two_phase::__CUPRUM_KERNEL.is_cooperative());
}

#[test]
fn launch_configs_convert() {
    let c: JitConfig = (3907u32, 256u32).into();
    assert_eq!(
        (c.grid(), c.block()),
        (
            cuprum::kernel::Dim3(3907, 1, 1),
            cuprum::kernel::Dim3(256, 1, 1)
        )
    );
    let c: JitConfig = ((64, 32), (16, 16)).into();
    assert_eq!(c.grid(), cuprum::kernel::Dim3(64, 32, 1));
    assert_eq!(
        JitConfig::for_len(0, 256).grid(),
        cuprum::kernel::Dim3(1, 1, 1)
    );
    assert_eq!(
        JitConfig::for_len(257, 256).grid(),
        cuprum::kernel::Dim3(2, 1, 1)
    );
}

// ---- the examples' kernels --------------------------------------------------------------------

#[test]
fn prime_factor_sum_matches_the_host() {
    require_gpu!();
    let n = 1_000_000usize;
    let mut a = Array::empty(&[n - 1], DType::I64).unwrap();
    let blocks = ((n - 1) as u32).div_ceil(256);
    kernels::prime_factor_sum::launch((blocks, 256), &mut a, (n - 1) as i32).unwrap();
    let v = a.to_vec::<i64>().unwrap();
    assert_eq!(&v[v.len() - 3..], [287, 77, 42]);
    let bad = (0..n - 1)
        .filter(|&i| v[i] != reference::prime_factor_sum(i as i64 + 2))
        .count();
    assert_eq!(bad, 0);
}

#[test]
fn vector_add_f32_and_f64() {
    require_gpu!();
    let mut rng = Rng::new(1);
    for n in [1usize, 255, 256, 1000, 100_003] {
        let a: Vec<f32> = (0..n).map(|_| rng.f64(-10.0, 10.0) as f32).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.f64(-10.0, 10.0) as f32).collect();
        let mut c = zeros::<f32>(n);
        kernels::vector_add::launch::<f32>(
            JitConfig::for_len(n, 256),
            &dev(&a),
            &dev(&b),
            &mut c,
            n as i32,
        )
        .unwrap();
        let c = c.to_vec::<f32>().unwrap();
        assert!((0..n).all(|i| c[i] == a[i] + b[i]), "n = {n}");
        let a: Vec<f64> = a.iter().map(|&x| x as f64 * 1.5).collect();
        let mut c = zeros::<f64>(n);
        kernels::vector_add::launch::<f64>(
            JitConfig::for_len(n, 128),
            &dev(&a),
            &dev(&a),
            &mut c,
            n as i32,
        )
        .unwrap();
        let c = c.to_vec::<f64>().unwrap();
        assert!((0..n).all(|i| c[i] == a[i] + a[i]), "n = {n}");
    }
}

/// `vector_add_wide` (16-byte `load4`/`store4` chunks, then the tail one by one): every
/// length modulo 4, several grid sizes (one chunk per thread, a small grid-stride grid),
/// f32, f64, i32 and f16, and views starting at an odd element (no chunk aligned: the plain
/// accesses), all exact. The output is poisoned first; elements outside it stay untouched.
#[test]
fn vector_add_wide_every_tail_and_alignment() {
    require_gpu!();
    fn case<T: Num + Element + std::fmt::Debug>(
        rng: &mut Rng,
        n: usize,
        offset: usize,
        cfg: JitConfig<'_>,
        of: impl Fn(f64) -> T,
    ) {
        let m = n + offset + 3;
        let a: Vec<T> = (0..m).map(|_| of(rng.f64(-100.0, 100.0).round())).collect();
        let b: Vec<T> = (0..m).map(|_| of(rng.f64(-100.0, 100.0).round())).collect();
        let poison = of(-7.0);
        let big = Array::from_slice(&vec![poison; m], &[m]).unwrap();
        let (da, db) = (dev(&a), dev(&b));
        let (lo, hi) = (offset as isize, (offset + n) as isize);
        let view = |x: &Array| x.slice(&s![lo..hi]).unwrap();
        let mut c = view(&big);
        kernels::vector_add_wide::launch::<T>(cfg, &view(&da), &view(&db), &mut c).unwrap();
        let got = big.to_vec::<T>().unwrap();
        for i in 0..m {
            let want = if (offset..offset + n).contains(&i) {
                a[i] + b[i]
            } else {
                poison
            };
            assert_eq!(got[i], want, "n = {n}, offset {offset}, element {i}");
        }
    }
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 1023, 1_000_003] {
        for offset in [0usize, 1, 2] {
            let chunks = JitConfig::for_len(n.div_ceil(4), 256);
            let small = JitConfig::new(3, 64);
            case::<f32>(&mut rng, n, offset, chunks, |x| x as f32);
            case::<f32>(&mut rng, n, offset, small, |x| x as f32);
            case::<f64>(&mut rng, n, offset, chunks, |x| x);
            case::<i32>(&mut rng, n, offset, small, |x| x as i32);
            case::<f16>(&mut rng, n, offset, chunks, |x| f16::from_f64(x / 8.0));
        }
    }
}

#[test]
fn matrix_multiply_odd_sizes() {
    require_gpu!();
    let mut rng = Rng::new(2);
    for (m, n, k) in [(37usize, 53usize, 29usize), (1, 1, 1), (64, 16, 100)] {
        let a: Vec<f32> = (0..m * k).map(|_| rng.f64(-1.0, 1.0) as f32).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.f64(-1.0, 1.0) as f32).collect();
        let mut c = zeros::<f32>(m * n);
        let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
        kernels::matrix_multiply::launch(
            (grid, (16, 16)),
            &dev(&a),
            &dev(&b),
            &mut c,
            m as i32,
            n as i32,
            k as i32,
        )
        .unwrap();
        let c = c.to_vec::<f32>().unwrap();
        for i in 0..m {
            for j in 0..n {
                let r: f64 = (0..k)
                    .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                    .sum();
                assert!(
                    close(c[i * n + j] as f64, r, 1e-5),
                    "({i},{j}) {} vs {r}",
                    c[i * n + j]
                );
            }
        }
    }
}

#[test]
fn shared_memory_reduction_partial_blocks() {
    require_gpu!();
    let mut rng = Rng::new(3);
    for n in [1usize, 1000, 1_000_000] {
        let x: Vec<f32> = (0..n).map(|_| rng.f64(0.0, 1.0) as f32).collect();
        let grid = (n as u32).div_ceil(256);
        let mut out = zeros::<f32>(grid as usize);
        kernels::optimized_reduction::launch(
            JitConfig::new(grid, 256).shared_mem(1024),
            &dev(&x),
            &mut out,
            n as i32,
        )
        .unwrap();
        let got: f64 = out.to_vec::<f32>().unwrap().iter().map(|&v| v as f64).sum();
        let want: f64 = x.iter().map(|&v| v as f64).sum();
        assert!(close(got, want, 1e-5), "n = {n}: {got} vs {want}");
    }
}

#[test]
fn activations_by_match_equal_the_if_chain() {
    require_gpu!();
    let mut rng = Rng::new(40);
    for n in [0usize, 1, 10_007] {
        let x: Vec<f32> = (0..n).map(|_| rng.f64(-8.0, 8.0) as f32).collect();
        for kind in [0, 1, 2, -1] {
            let mut a = zeros::<f32>(n);
            let mut b = zeros::<f32>(n);
            let cfg = JitConfig::for_len(n.max(1), 256);
            kernels::apply_activation_match::launch(cfg, &dev(&x), &mut a, n as i32, kind).unwrap();
            let g = a.to_vec::<f32>().unwrap();
            for i in 0..n {
                let h = match kind {
                    0 => kernels::activation_relu(x[i]),
                    1 => kernels::activation_sigmoid(x[i]),
                    _ => x[i],
                };
                assert!(
                    close(g[i] as f64, h as f64, 1e-6),
                    "{kind} {}: {} vs {h}",
                    x[i],
                    g[i]
                );
            }
            if kind == 0 || kind == 1 {
                let cfg = JitConfig::for_len(n.max(1), 256);
                kernels::apply_activation::launch(cfg, &dev(&x), &mut b, n as i32, kind).unwrap();
                assert_eq!(g, b.to_vec::<f32>().unwrap(), "kind {kind}");
            }
        }
    }
}

#[test]
fn activations_relu_and_sigmoid() {
    require_gpu!();
    let mut rng = Rng::new(4);
    let n = 10_007usize;
    let x: Vec<f32> = (0..n).map(|_| rng.f64(-8.0, 8.0) as f32).collect();
    let mut y = zeros::<f32>(n);
    for kind in [0, 1] {
        kernels::apply_activation::launch(
            JitConfig::for_len(n, 256),
            &dev(&x),
            &mut y,
            n as i32,
            kind,
        )
        .unwrap();
        let g = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            let h = if kind == 0 {
                kernels::activation_relu(x[i])
            } else {
                kernels::activation_sigmoid(x[i])
            };
            assert!(
                close(g[i] as f64, h as f64, 1e-6),
                "{kind} {}: {} vs {h}",
                x[i],
                g[i]
            );
        }
    }
}

// ---- device functions: host and GPU agree ------------------------------------------------------

#[test]
fn prime_device_function_host_vs_gpu() {
    require_gpu!();
    let mut out = zeros::<i64>(4097);
    let start = 987_654_321i64;
    jk::prime_tidy::launch((8, 128), &mut out, start).unwrap();
    let g = out.to_vec::<i64>().unwrap();
    for (i, v) in g.iter().enumerate() {
        assert_eq!(*v, jk::sum_prime_factors(i as i64 + start), "{i}");
    }
}

/// Random values of an integer type over its whole range (no `MIN / -1`).
fn int_inputs<T: Int + Element + TryFrom<i128>>(
    rng: &mut Rng,
    n: usize,
    lo: i128,
    hi: i128,
) -> (Vec<T>, Vec<T>) {
    let span = (hi - lo) as u128 + 1;
    let pick = |rng: &mut Rng| -> T {
        let v =
            lo + ((rng.next_u64() as u128 * 0x1_0000_0001 + rng.next_u64() as u128) % span) as i128;
        T::try_from(v).ok().unwrap_or_else(T::zero)
    };
    let mut a: Vec<T> = (0..n).map(|_| pick(rng)).collect();
    let b: Vec<T> = (0..n).map(|_| pick(rng)).collect();
    let minus_one = T::try_from(-1).ok();
    for i in 0..n {
        if Some(b[i]) == minus_one && T::try_from(lo).ok() == Some(a[i]) {
            a[i] = T::zero();
        }
        if i % 17 == 0 {
            a[i] = b[i]; // equal operands
        }
    }
    (a, b)
}

fn int_mix_case<T: Int + Element + TryFrom<i128>>(seed: u64, lo: i128, hi: i128) {
    let mut rng = Rng::new(seed);
    let n = 5000;
    let (a, b) = int_inputs::<T>(&mut rng, n, lo, hi);
    let mut out = zeros::<T>(n);
    jk::int_mix_kernel::launch::<T>((16, 128), &dev(&a), &dev(&b), &mut out).unwrap();
    let g = out.to_vec::<T>().unwrap();
    for i in 0..n {
        assert_eq!(
            g[i],
            jk::int_mix(a[i], b[i]),
            "{} {:?} {:?}",
            T::CUDA_NAME,
            a[i],
            b[i]
        );
    }
}

#[test]
fn int_device_function_every_integer_type() {
    require_gpu!();
    int_mix_case::<i8>(10, i8::MIN as i128, i8::MAX as i128);
    int_mix_case::<i16>(11, i16::MIN as i128, i16::MAX as i128);
    int_mix_case::<i32>(12, i32::MIN as i128, i32::MAX as i128);
    int_mix_case::<i64>(13, i64::MIN as i128, i64::MAX as i128);
    int_mix_case::<u8>(14, 0, u8::MAX as i128);
    int_mix_case::<u16>(15, 0, u16::MAX as i128);
    int_mix_case::<u32>(16, 0, u32::MAX as i128);
    int_mix_case::<u64>(17, 0, u64::MAX as i128);
}

fn float_mix_case<T: Float + Element>(seed: u64, tol: f64) {
    let mut rng = Rng::new(seed);
    let n = 4096;
    let x: Vec<T> = (0..n).map(|_| T::from_f64(rng.f64(-5.0, 5.0))).collect();
    let y: Vec<T> = (0..n)
        .map(|_| {
            let v = rng.f64(0.1, 3.0);
            T::from_f64(if common::coin(&mut rng) { v } else { -v })
        })
        .collect();
    let mut out = zeros::<T>(n);
    jk::float_mix_kernel::launch::<T>((8, 256), &dev(&x), &dev(&y), &mut out).unwrap();
    let g = out.to_vec::<T>().unwrap();
    for i in 0..n {
        let h = jk::float_mix(x[i], y[i]);
        assert!(
            close(g[i].to_f64(), h.to_f64(), tol),
            "{} x={:?} y={:?}: GPU {:?}, host {:?}",
            T::CUDA_NAME,
            x[i],
            y[i],
            g[i],
            h
        );
    }
}

#[test]
fn float_device_function_every_float_type() {
    require_gpu!();
    float_mix_case::<f32>(20, 2e-5);
    float_mix_case::<f64>(21, 1e-12);
    float_mix_case::<f16>(22, 2e-2);
    float_mix_case::<bf16>(23, 5e-2);
}

#[test]
fn f32_methods_host_vs_gpu() {
    require_gpu!();
    let mut rng = Rng::new(24);
    let x: Vec<f32> = (0..3000)
        .map(|_| common::nz(&mut rng, -5.0, 5.0) as f32)
        .collect();
    let mut out = zeros::<f32>(x.len());
    jk::f32_methods_kernel::launch((4, 128), &dev(&x), &mut out).unwrap();
    let g = out.to_vec::<f32>().unwrap();
    for i in 0..x.len() {
        let h = jk::f32_methods(x[i]);
        assert!(
            close(g[i] as f64, h as f64, 2e-5),
            "x={}: GPU {}, host {h}",
            x[i],
            g[i]
        );
    }
}

// ---- Rust's semantics ---------------------------------------------------------------------------

#[test]
fn integer_overflow_wraps() {
    require_gpu!();
    let a = [i32::MAX, i32::MIN, -1, 7, i32::MIN, 123_456_789];
    let b = [1, -1, i32::MIN, 40, 33, -987_654_321];
    let mut out = zeros::<i32>(a.len() * 5);
    jk::wrapping_ops_i32::launch((1, 32), &dev(&a), &dev(&b), &mut out).unwrap();
    let g = out.to_vec::<i32>().unwrap();
    for i in 0..a.len() {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
            x.wrapping_shl((y & 31) as u32) ^ (x >> 7),
        ];
        assert_eq!(&g[i * 5..i * 5 + 5], want, "{x} {y}");
    }
    let a = [255u8, 0, 128, 17];
    let b = [1u8, 1, 2, 255];
    let mut out = zeros::<u8>(a.len() * 4);
    jk::wrapping_ops_u8::launch((1, 32), &dev(&a), &dev(&b), &mut out).unwrap();
    let g = out.to_vec::<u8>().unwrap();
    for i in 0..a.len() {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            !x ^ y.wrapping_shl(3),
        ];
        assert_eq!(&g[i * 4..i * 4 + 4], want, "{x} {y}");
    }
    let a = [i64::MAX, i64::MIN, 3_000_000_000];
    let b = [1i64, -1, 4_000_000_000];
    let mut out = zeros::<i64>(9);
    jk::wrapping_ops_i64::launch((1, 32), &dev(&a), &dev(&b), &mut out).unwrap();
    let g = out.to_vec::<i64>().unwrap();
    for i in 0..3 {
        assert_eq!(
            &g[i * 3..i * 3 + 3],
            [
                a[i].wrapping_add(b[i]),
                a[i].wrapping_mul(b[i]),
                a[i].wrapping_neg()
            ]
        );
    }
}

fn div_rem_case<T: Int + Element + TryFrom<i64>>(pairs: &[(i64, i64)]) {
    let conv = |v: i64| T::try_from(v).ok().unwrap_or_else(T::zero);
    let a: Vec<T> = pairs.iter().map(|p| conv(p.0)).collect();
    let b: Vec<T> = pairs.iter().map(|p| conv(p.1)).collect();
    let (mut q, mut r) = (zeros::<T>(a.len()), zeros::<T>(a.len()));
    jk::div_rem::launch::<T>((1, 64), &dev(&a), &dev(&b), &mut q, &mut r).unwrap();
    let (q, r) = (q.to_vec::<T>().unwrap(), r.to_vec::<T>().unwrap());
    for i in 0..a.len() {
        assert_eq!(
            (q[i], r[i]),
            (a[i] / b[i], a[i] % b[i]),
            "{} {:?} / {:?}",
            T::CUDA_NAME,
            a[i],
            b[i]
        );
    }
}

#[test]
fn division_and_remainder_truncate() {
    require_gpu!();
    let signed = [
        (-7, 2),
        (7, -2),
        (-7, -2),
        (7, 2),
        (-1, 3),
        (0, -5),
        (100, 7),
        (-100, 7),
        (5, 100),
    ];
    div_rem_case::<i8>(&signed);
    div_rem_case::<i16>(&signed);
    div_rem_case::<i32>(&signed);
    div_rem_case::<i64>(&signed);
    let unsigned = [(7, 2), (100, 7), (5, 100), (255, 16), (0, 3)];
    div_rem_case::<u8>(&unsigned);
    div_rem_case::<u16>(&unsigned);
    div_rem_case::<u32>(&unsigned);
    div_rem_case::<u64>(&unsigned);
    // -7 / 2 == -3 and -7 % 2 == -1: Rust's (and C's), not Python's floor division.
    let mut q = zeros::<i32>(1);
    let mut r = zeros::<i32>(1);
    jk::div_rem::launch::<i32>((1, 32), &dev(&[-7i32]), &dev(&[2i32]), &mut q, &mut r).unwrap();
    assert_eq!(
        (q.to_vec::<i32>().unwrap()[0], r.to_vec::<i32>().unwrap()[0]),
        (-3, -1)
    );
}

#[test]
fn float_to_int_casts_saturate() {
    require_gpu!();
    let x = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        -1e300,
        1e10,
        -1e10,
        300.7,
        -300.7,
        255.5,
        256.0,
        -0.5,
        -1.0,
        2147483647.5,
        -2147483648.9,
        4294967296.0,
        9.3e18,
        1.9e19,
        -9.3e18,
        0.0,
        -0.0,
        3.99,
        1e-320,
        16777217.0,
    ];
    let n = x.len();
    let (mut i32s, mut u8s, mut i64s, mut u64s, mut f32s) = (
        zeros::<i32>(n),
        zeros::<u8>(n),
        zeros::<i64>(n),
        zeros::<u64>(n),
        zeros::<f32>(n),
    );
    jk::casts::launch(
        (1, 32),
        &dev(&x),
        &mut i32s,
        &mut u8s,
        &mut i64s,
        &mut u64s,
        &mut f32s,
    )
    .unwrap();
    let (a, b, c, d, e) = (
        i32s.to_vec::<i32>().unwrap(),
        u8s.to_vec::<u8>().unwrap(),
        i64s.to_vec::<i64>().unwrap(),
        u64s.to_vec::<u64>().unwrap(),
        f32s.to_vec::<f32>().unwrap(),
    );
    for i in 0..n {
        let v = x[i];
        assert_eq!(
            (a[i], b[i], c[i], d[i]),
            (v as i32, v as u8, v as i64, v as u64),
            "{v}"
        );
        assert!(
            e[i].to_bits() == (v as f32).to_bits() || (e[i].is_nan() && v.is_nan()),
            "{v}"
        );
    }
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let (mut i8s, mut u32s, mut i16s) = (zeros::<i8>(n), zeros::<u32>(n), zeros::<i16>(n));
    jk::casts_f32::launch((1, 32), &dev(&xf), &mut i8s, &mut u32s, &mut i16s).unwrap();
    let (a, b, c) = (
        i8s.to_vec::<i8>().unwrap(),
        u32s.to_vec::<u32>().unwrap(),
        i16s.to_vec::<i16>().unwrap(),
    );
    for i in 0..n {
        let v = xf[i];
        assert_eq!((a[i], b[i], c[i]), (v as i8, v as u32, v as i16), "{v}");
    }
    let xi = [
        i64::MAX,
        i64::MIN,
        -1,
        300,
        65_537,
        -40_000,
        1 << 40,
        (1 << 24) + 1,
    ];
    let m = xi.len();
    let (mut u8s, mut i16s, mut u32s, mut f32s) = (
        zeros::<u8>(m),
        zeros::<i16>(m),
        zeros::<u32>(m),
        zeros::<f32>(m),
    );
    jk::int_casts::launch(
        (1, 32),
        &dev(&xi),
        &mut u8s,
        &mut i16s,
        &mut u32s,
        &mut f32s,
    )
    .unwrap();
    let (a, b, c, d) = (
        u8s.to_vec::<u8>().unwrap(),
        i16s.to_vec::<i16>().unwrap(),
        u32s.to_vec::<u32>().unwrap(),
        f32s.to_vec::<f32>().unwrap(),
    );
    for i in 0..m {
        let v = xi[i];
        assert_eq!(
            (a[i], b[i], c[i], d[i]),
            (v as u8, v as i16, v as u32, v as f32),
            "{v}"
        );
    }
}

// ---- generic kernels for every numeric type ---------------------------------------------------

fn affine_case<T: Num + Element>(x: &[T], a: T, b: T, exact: bool) {
    let mut y = zeros::<T>(x.len());
    jk::affine::launch((2, 64), &dev(x), &mut y, a, b).unwrap();
    let g = y.to_vec::<T>().unwrap();
    for i in 0..x.len() {
        let h = a * x[i] + b;
        if exact {
            assert_eq!(g[i], h, "{} {:?}", T::CUDA_NAME, x[i]);
        } else {
            assert!(
                close(g[i].to_f64(), h.to_f64(), 1e-6),
                "{} {:?}: {:?} vs {h:?}",
                T::CUDA_NAME,
                x[i],
                g[i]
            );
        }
    }
}

#[test]
fn generic_kernel_every_numeric_type() {
    require_gpu!();
    let mut rng = Rng::new(30);
    let n = 301;
    let small: Vec<i32> = (0..n).map(|_| rng.usize(0, 11) as i32 - 5).collect();
    let pos: Vec<u32> = (0..n).map(|_| rng.usize(0, 6) as u32).collect();
    affine_case::<i8>(
        &small.iter().map(|&v| v as i8).collect::<Vec<_>>(),
        -3,
        7,
        true,
    );
    affine_case::<i16>(
        &small.iter().map(|&v| v as i16 * 100).collect::<Vec<_>>(),
        3,
        -7,
        true,
    );
    affine_case::<i32>(
        &small.iter().map(|&v| v * 100_000).collect::<Vec<_>>(),
        11,
        5,
        true,
    );
    affine_case::<i64>(
        &small.iter().map(|&v| (v as i64) << 40).collect::<Vec<_>>(),
        -2,
        1 << 50,
        true,
    );
    affine_case::<u8>(
        &pos.iter().map(|&v| v as u8).collect::<Vec<_>>(),
        3,
        10,
        true,
    );
    affine_case::<u16>(
        &pos.iter().map(|&v| v as u16 * 1000).collect::<Vec<_>>(),
        2,
        9,
        true,
    );
    affine_case::<u32>(
        &pos.iter().map(|&v| v * 100_000_000).collect::<Vec<_>>(),
        7,
        1,
        true,
    );
    affine_case::<u64>(
        &pos.iter()
            .map(|&v| v as u64 * (1 << 50))
            .collect::<Vec<_>>(),
        3,
        2,
        true,
    );
    let xs: Vec<f64> = (0..n).map(|_| rng.f64(-4.0, 4.0)).collect();
    affine_case::<f16>(
        &xs.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>(),
        f16::from_f32(1.5),
        f16::from_f32(-0.25),
        true,
    );
    affine_case::<bf16>(
        &xs.iter().map(|&v| bf16::from_f64(v)).collect::<Vec<_>>(),
        bf16::from_f32(1.5),
        bf16::from_f32(-0.25),
        true,
    );
    affine_case::<f32>(
        &xs.iter().map(|&v| v as f32).collect::<Vec<_>>(),
        1.7,
        -0.3,
        false,
    );
    affine_case::<f64>(&xs, 1.7, -0.3, false);
    let x: Vec<f16> = xs.iter().map(|&v| f16::from_f64(v)).collect();
    let mut y = zeros::<bf16>(n);
    jk::half_scale::launch((1, 512), &dev(&x), &mut y, 3.0).unwrap();
    let g = y.to_vec::<bf16>().unwrap();
    for i in 0..n {
        assert_eq!(g[i], bf16::from_f32(x[i].to_f32() * 3.0));
    }
}

// ---- control flow ---------------------------------------------------------------------------------

#[test]
fn loops_and_control_flow() {
    require_gpu!();
    let n: Vec<i32> = (-3..40).collect();
    let mut out = zeros::<i64>(n.len());
    jk::control_flow::launch((2, 32), &dev(&n), &mut out).unwrap();
    let g = out.to_vec::<i64>().unwrap();
    for (i, &v) in n.iter().enumerate() {
        assert_eq!(g[i], jk::control_flow_host(v), "n = {v}");
    }
}

#[test]
fn grid_stride_loops_cover_exactly_once() {
    require_gpu!();
    let len = 1000;
    for (n32, n64, ni) in [(777u32, 1000usize, 500i64), (0, 1, -5), (1000, 999, 1000)] {
        let (mut a, mut b, mut c) = (zeros::<u32>(len), zeros::<u32>(len), zeros::<u32>(len));
        jk::strides::launch((3, 64), &mut a, &mut b, &mut c, n32, n64, ni).unwrap();
        let (a, b, c) = (
            a.to_vec::<u32>().unwrap(),
            b.to_vec::<u32>().unwrap(),
            c.to_vec::<u32>().unwrap(),
        );
        for i in 0..len {
            assert_eq!(a[i], if i < n32 as usize { 1 } else { 0 }, "a[{i}]");
            assert_eq!(b[i], if i < n64 { 2 } else { 0 }, "b[{i}]");
            assert_eq!(c[i], if (i as i64) < ni { 3 } else { 0 }, "c[{i}]");
        }
    }
}

// ---- shared memory, atomics, warps, grid sync ---------------------------------------------------

#[test]
fn block_sum_with_const_generic_shared_memory_and_shuffles() {
    require_gpu!();
    let mut rng = Rng::new(40);
    let n = 100_037usize;
    let x: Vec<f32> = (0..n).map(|_| rng.f64(0.0, 1.0) as f32).collect();
    let grid = (n as u32).div_ceil(256);
    let mut partial = zeros::<f32>(grid as usize);
    jk::block_sum::launch::<256>((grid, 256), &dev(&x), &mut partial).unwrap();
    let got: f64 = partial
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|&v| v as f64)
        .sum();
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    assert!(close(got, want, 1e-5), "{got} vs {want}");
}

#[test]
fn atomics_global_and_shared() {
    require_gpu!();
    let mut rng = Rng::new(41);
    let values: Vec<u32> = (0..10_000).map(|_| rng.usize(0, 1000) as u32).collect();
    let mut bins = zeros::<u32>(16);
    let mut maxes = zeros::<i64>(4);
    jk::histogram::launch((8, 128), &dev(&values), &mut bins, &mut maxes).unwrap();
    let (bins, maxes) = (
        bins.to_vec::<u32>().unwrap(),
        maxes.to_vec::<i64>().unwrap(),
    );
    for k in 0..16u32 {
        assert_eq!(
            bins[k as usize],
            values.iter().filter(|&&v| v % 16 == k).count() as u32,
            "bin {k}"
        );
    }
    for k in 0..4u32 {
        let m = values
            .iter()
            .filter(|&&v| v % 4 == k)
            .max()
            .copied()
            .unwrap_or(0) as i64;
        assert_eq!(maxes[k as usize], m, "max {k}");
    }
    let mut ints = dev(&[0i32, 100, 0, 0, 0, -1, 0, 0, 0]);
    let mut longs = dev(&[0u64, 0]);
    let mut floats = dev(&[0.0f32, -1e30, 1e30]);
    let mut doubles = dev(&[0.0f64, 0.0]);
    jk::atomics_all::launch((2, 128), &mut ints, &mut longs, &mut floats, &mut doubles).unwrap();
    assert_eq!(
        ints.to_vec::<i32>().unwrap(),
        [512, 100 - 768, -255, 255, 0x7fff_ffff, i32::MIN, 0, 42, 9]
    );
    assert_eq!(longs.to_vec::<u64>().unwrap(), [256, 255]);
    assert_eq!(floats.to_vec::<f32>().unwrap(), [128.0, 255.0, -255.0]);
    assert_eq!(doubles.to_vec::<f64>().unwrap(), [64.0, -64.0]);
}

#[test]
fn warp_votes_and_lanes() {
    require_gpu!();
    let mut rng = Rng::new(42);
    let n = 128;
    let x: Vec<i32> = (0..n)
        .map(|i| {
            if i < 32 {
                1
            } else if i < 64 {
                -1
            } else {
                rng.usize(0, 3) as i32 - 1
            }
        })
        .collect();
    let (mut ballots, mut all, mut any, mut lanes) = (
        zeros::<u32>(n),
        zeros::<i32>(n),
        zeros::<i32>(n),
        zeros::<u32>(n),
    );
    jk::warp_votes::launch(
        (2, 64),
        &dev(&x),
        &mut ballots,
        &mut all,
        &mut any,
        &mut lanes,
    )
    .unwrap();
    let (b, a, y, l) = (
        ballots.to_vec::<u32>().unwrap(),
        all.to_vec::<i32>().unwrap(),
        any.to_vec::<i32>().unwrap(),
        lanes.to_vec::<u32>().unwrap(),
    );
    for w in 0..n / 32 {
        let lanes_x = &x[w * 32..w * 32 + 32];
        let mask = lanes_x
            .iter()
            .enumerate()
            .fold(0u32, |m, (k, &v)| if v > 0 { m | 1 << k } else { m });
        for k in 0..32 {
            let i = w * 32 + k;
            assert_eq!(b[i], mask, "warp {w}");
            assert_eq!(a[i], lanes_x.iter().all(|&v| v > 0) as i32);
            assert_eq!(y[i], lanes_x.iter().any(|&v| v > 0) as i32);
            assert_eq!(l[i], k as u32);
        }
    }
}

#[test]
fn grid_sync_cooperative_launch() {
    require_gpu!();
    let dev0 = cuprum::Device::current().unwrap();
    let blocks = dev0.sm_count();
    let n = (blocks * 256) as usize;
    let (mut data, mut out) = (zeros::<i32>(n), zeros::<i32>(n));
    jk::two_phase::launch((blocks, 256), &mut data, &mut out).unwrap();
    let v = out.to_vec::<i32>().unwrap();
    assert!(v.iter().enumerate().all(|(i, &x)| x == (n - 1 - i) as i32));
    let e = jk::two_phase::launch((blocks * 1000, 256), &mut data, &mut out).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("calls grid_sync()"), "{e}");
}

#[test]
fn dynamic_shared_memory_reverses_blocks() {
    require_gpu!();
    let n = 1000usize;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let mut y = zeros::<f64>(n);
    jk::block_reverse::launch(
        JitConfig::for_len(n, 128).shared_mem(128 * 8),
        &dev(&x),
        &mut y,
    )
    .unwrap();
    let g = y.to_vec::<f64>().unwrap();
    for i in 0..n {
        let (b, t) = (i / 128, i % 128);
        let j = b * 128 + (127 - t);
        if j < n {
            assert_eq!(g[i], x[j], "{i}");
        }
    }
}

#[test]
fn unchecked_access_in_a_hot_loop() {
    require_gpu!();
    let (rows, cols) = (300usize, 77usize);
    let m: Vec<f32> = (0..rows * cols).map(|i| (i % 13) as f32).collect();
    let mut out = zeros::<f32>(rows);
    jk::sum_rows_unchecked::launch(JitConfig::for_len(rows, 64), &dev(&m), &mut out, cols).unwrap();
    let g = out.to_vec::<f32>().unwrap();
    for r in 0..rows {
        assert_eq!(g[r], m[r * cols..(r + 1) * cols].iter().sum::<f32>());
    }
}

#[test]
fn recursive_device_function() {
    require_gpu!();
    let mut out = zeros::<u64>(20);
    jk::fibs::launch((1, 32), &mut out).unwrap();
    let want: Vec<u64> = (0..20).map(jk::fib).collect();
    assert_eq!(out.to_vec::<u64>().unwrap(), want);
}

#[test]
fn arrays_bools_and_bytes() {
    require_gpu!();
    let v: Vec<f32> = (0..50).map(|i| i as f32 * 0.25).collect();
    for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut out = zeros::<f32>(50);
        let mut flags = zeros::<bool>(2);
        let mut bytes = dev(&[0u8, 0, 0b1011_0001, 0, 0]);
        jk::odds_and_ends::launch((1, 64), &dev(&v), &mut out, &mut flags, &mut bytes, a, b)
            .unwrap();
        let o = out.to_vec::<f32>().unwrap();
        for i in 0..49 {
            assert_eq!(o[i], v[i] * 2.0 + v[i + 1], "{i}");
        }
        assert_eq!(
            flags.to_vec::<bool>().unwrap(),
            [!a & b | a ^ b, a && !b || b]
        );
        let c = 0b1011_0001u8;
        let x = if a {
            1u8
        } else if b {
            2
        } else {
            3
        };
        assert_eq!(
            bytes.to_vec::<u8>().unwrap(),
            [
                250u8.wrapping_add(10),
                !c,
                c,
                c.rotate_left(3),
                x + c / 7 % 5
            ]
        );
    }
}

// ---- argument checks ----------------------------------------------------------------------------

#[test]
fn aliasing_mut_arguments_are_refused() {
    require_gpu!();
    let a = dev(&[1.0f32; 100]);
    let mut alias = a.clone(); // a view of the same memory
    let e = kernels::vector_add::launch::<f32>((1, 128), &a, &a, &mut alias, 100).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(
        e.to_string()
            .contains("argument `c` (a `&mut` slice) shares memory with argument `a`"),
        "{e}"
    );
    let big = Array::zeros(&[200], DType::F32).unwrap();
    big.slice(&s![0..100])
        .unwrap()
        .copy_from_slice(&[2.0f32; 100])
        .unwrap();
    let lo = big.slice(&s![0..100]).unwrap();
    let mut overlap = big.slice(&s![50..150]).unwrap();
    let e = kernels::vector_add::launch::<f32>((1, 128), &lo, &lo, &mut overlap, 100).unwrap_err();
    assert!(e.to_string().contains("shares memory"), "{e}");
    // Disjoint views of one buffer are fine.
    let mut hi = big.slice(&s![100..200]).unwrap();
    kernels::vector_add::launch::<f32>((1, 128), &lo, &lo, &mut hi, 100).unwrap();
    assert_eq!(hi.to_vec::<f32>().unwrap(), [4.0; 100]);
}

#[test]
fn wrong_dtype_noncontiguous_and_bad_configs_are_refused() {
    require_gpu!();
    let f = dev(&[1.0f32; 16]);
    let i = dev(&[1i32; 16]);
    let mut out = zeros::<f32>(16);
    let e = kernels::vector_add::launch::<f32>((1, 32), &f, &i, &mut out, 16).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string().contains("argument `b` is a int32 array"),
        "{e}"
    );
    let m = Array::zeros(&[4, 4], DType::F32).unwrap().t();
    let e = kernels::vector_add::launch::<f32>((1, 32), &m, &f, &mut out, 16).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("non-contiguous"), "{e}");
    let e = kernels::vector_add::launch::<f32>((1, 0), &f, &f, &mut out, 16).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    let e = kernels::vector_add::launch::<f32>((1, 4096), &f, &f, &mut out, 16).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    // Empty arrays launch fine.
    let (z, mut zo) = (zeros::<f32>(0), zeros::<f32>(0));
    kernels::vector_add::launch::<f32>((1, 32), &z, &z, &mut zo, 0).unwrap();
}

#[test]
fn launches_on_an_explicit_stream() {
    require_gpu!();
    let s = cuprum::Stream::new().unwrap();
    let (a, mut c) = s.with(|| (dev(&[2.0f64; 8]), zeros::<f64>(8)));
    kernels::vector_add::launch::<f64>(JitConfig::new(1, 32).stream(&s), &a, &a, &mut c, 8)
        .unwrap();
    s.synchronize().unwrap();
    assert_eq!(s.with(|| c.to_vec::<f64>()).unwrap(), [4.0; 8]);
}
