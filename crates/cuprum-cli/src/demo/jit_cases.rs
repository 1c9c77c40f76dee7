//! The demo's cases for kernels written in Rust (`#[cuprum::kernel]`, examples/kernels/
//! rust_kernels.rs): the same seed examples, data and checks as the RawKernel cases.

use super::{Outcome, Program, R, gpu_time, host, list, off, prime_outcome};
use crate::rust_kernels as rk;
use cuprum::kernel::JitConfig;
use cuprum::{Array, DType, ops, random};

pub fn vector_add_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::jit(&rk::vector_add::__CUPRUM_KERNEL, &["float"]),
        Program::jit(&rk::vector_add::__CUPRUM_KERNEL, &["double"]),
    ])
}

/// Seeds 000/001 "Raw CUDA Kernels" in Rust: one generic kernel, 1e6 float32 and float64,
/// exact.
pub fn vector_add() -> R<Outcome> {
    let n = 1_000_000usize;
    let cfg = JitConfig::for_len(n, 256);
    let a = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let b = random::normal(0.0, 1.0, &[n], DType::F32)?;
    let mut c = Array::empty(&[n], DType::F32)?;
    rk::vector_add::launch::<f32>(cfg, &a, &b, &mut c, n as i32)?;
    let (ha, hb, hc) = (a.to_vec::<f32>()?, b.to_vec::<f32>()?, c.to_vec::<f32>()?);
    let bad32 = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    let a64 = random::normal(0.0, 1.0, &[n], DType::F64)?;
    let mut c64 = Array::empty(&[n], DType::F64)?;
    rk::vector_add::launch::<f64>(cfg, &a64, &a64, &mut c64, n as i32)?;
    let (ha, hc) = (a64.to_vec::<f64>()?, c64.to_vec::<f64>()?);
    let bad64 = (0..n).filter(|&i| hc[i] != ha[i] + ha[i]).count();
    let t = gpu_time(|| rk::vector_add::launch::<f32>(cfg, &a, &b, &mut c, n as i32))?;
    Ok(Outcome {
        result: format!(
            "1e6 float32 and float64{}",
            off(bad32 + bad64, 2 * n, "the host")
        ),
        ok: bad32 + bad64 == 0,
        gpu_seconds: t,
    })
}

pub fn matrix_multiply_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::matrix_multiply::__CUPRUM_KERNEL,
        &[],
    )])
}

/// Seed 002 "matrix_multiply_kernel" in Rust: 1024×1024×512 float32, against cuBLAS (or a
/// double-precision host product without it).
pub fn matrix_multiply() -> R<Outcome> {
    let (m, n, k) = (1024usize, 1024usize, 512usize);
    let a = random::random(&[m, k], DType::F32)?;
    let b = random::random(&[k, n], DType::F32)?;
    let mut c = Array::zeros(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    rk::matrix_multiply::launch(
        (grid, (16, 16)),
        &a,
        &b,
        &mut c,
        m as i32,
        n as i32,
        k as i32,
    )?;
    let hc = c.to_vec::<f32>()?;
    let reference: Vec<f64> = match ops::matmul(&a, &b) {
        Ok(r) => r.to_vec::<f32>()?.into_iter().map(f64::from).collect(),
        Err(e) if e.kind() == cuprum::ErrorKind::Blas => {
            host::matmul(&a.to_vec::<f32>()?, &b.to_vec::<f32>()?, m, n, k)
        }
        Err(e) => return Err(e),
    };
    let worst = super::raw::worst_relative(&hc, &reference);
    let t = gpu_time(|| {
        rk::matrix_multiply::launch(
            (grid, (16, 16)),
            &a,
            &b,
            &mut c,
            m as i32,
            n as i32,
            k as i32,
        )
    })?;
    Ok(Outcome {
        result: format!("C[0,0] = {:.3}, diff {worst:.0e}", hc[0]),
        ok: worst < 1e-4,
        gpu_seconds: t,
    })
}

pub fn activation_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::apply_activation::__CUPRUM_KERNEL,
        &[],
    )])
}

/// Seed 002 "RawModule with Multiple Kernels" in Rust: ReLU and the sigmoid are
/// `#[cuprum::device]` functions, checked against the same functions run on the host.
pub fn activations() -> R<Outcome> {
    let input = [-2.0f32, -1.0, 0.0, 1.0, 2.0];
    let data = Array::from_slice(&input, &[5])?;
    let mut output = Array::zeros(&[5], DType::F32)?;
    rk::apply_activation::launch((1, 256), &data, &mut output, 5, 0)?;
    let relu = output.to_vec::<f32>()?;
    rk::apply_activation::launch((1, 256), &data, &mut output, 5, 1)?;
    let sigmoid = output.to_vec::<f32>()?;
    let relu_ok = relu
        .iter()
        .zip(&input)
        .all(|(&g, &x)| g == rk::activation_relu(x));
    let sigmoid_ok = sigmoid
        .iter()
        .zip(&input)
        .all(|(&g, &x)| (g - rk::activation_sigmoid(x)).abs() < 1e-6);
    let t = gpu_time(|| rk::apply_activation::launch((1, 256), &data, &mut output, 5, 1))?;
    Ok(Outcome {
        result: format!("relu {}, sigmoid(2) = {:.4}", list(&relu), sigmoid[4]),
        ok: relu_ok && sigmoid_ok,
        gpu_seconds: t,
    })
}

pub fn smem_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::optimized_reduction::__CUPRUM_KERNEL,
        &[],
    )])
}

/// Seed 002 "Kernel with shared memory optimization" in Rust: block sums of 1e6 float32
/// in dynamic shared memory, against the host sum (rtol 1e-5).
pub fn shared_memory_reduction() -> R<Outcome> {
    let n = 1_000_000usize;
    let data = random::random(&[n], DType::F32)?;
    let grid = (n as u32).div_ceil(256);
    let mut out = Array::zeros(&[grid as usize], DType::F32)?;
    let cfg = JitConfig::new(grid, 256).shared_mem(1024);
    rk::optimized_reduction::launch(cfg, &data, &mut out, n as i32)?;
    let gpu = host::kahan(out.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let want = host::kahan(data.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let t = gpu_time(|| rk::optimized_reduction::launch(cfg, &data, &mut out, n as i32))?;
    Ok(Outcome {
        result: format!("Σ 1e6 = {gpu:.2} (host {want:.2})"),
        ok: host::close(gpu, want, 1e-5),
        gpu_seconds: t,
    })
}

pub fn prime_programs() -> R<Vec<Program>> {
    Ok(vec![Program::jit(
        &rk::prime_factor_sum::__CUPRUM_KERNEL,
        &[],
    )])
}

/// Seed 003's `cupyx.jit.rawkernel` version in Rust (line for line): 999,999 int64.
pub fn prime_factor_sum() -> R<Outcome> {
    let n = 1_000_000usize - 1;
    let mut a = Array::empty(&[n], DType::I64)?;
    let blocks = (n as u32).div_ceil(256);
    rk::prime_factor_sum::launch((blocks, 256), &mut a, n as i32)?;
    let v = a.to_vec::<i64>()?;
    let t = gpu_time(|| rk::prime_factor_sum::launch((blocks, 256), &mut a, n as i32))?;
    Ok(prime_outcome(&v, t))
}
