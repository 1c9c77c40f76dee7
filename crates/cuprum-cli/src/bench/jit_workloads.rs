//! The workloads of kernels written in Rust (`#[cuprum::kernel]`, the examples' kernels in
//! examples/kernels/rust_kernels.rs), each beside its RawKernel twin in the same run:
//! the seed's prime-factor sum, the vector add at 1e8 (the tuned `vector_add_wide`) and at 4
//! elements (the seed's `vector_add`, host time), the shared-memory block reduction.

use super::timed::{R, Timed};
use crate::rust_kernels as rk;
use cuprum::kernel::JitConfig;
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::{Array, DType};

/// Times `call` after one call outside the timing (the first launch compiles the kernel).
fn warm(
    o: &BenchmarkOptions,
    name: &str,
    mut call: impl FnMut() -> cuprum::Result<()>,
) -> R<cuprum::profiler::PerfCaseResult> {
    call()?;
    Ok(benchmark(name, call, o)?)
}

pub fn prime1m_jit(o: &BenchmarkOptions) -> R<Timed> {
    let n = 1_000_000usize;
    let mut a = Array::empty(&[n - 1], DType::I64)?;
    let blocks = ((n - 1) as u32).div_ceil(256);
    let r = warm(o, "prime1M_jit", || {
        rk::prime_factor_sum::launch((blocks, 256), &mut a, (n - 1) as i32)
    })?;
    Ok((r, 0))
}

fn add(o: &BenchmarkOptions, name: &str, n: usize) -> R<Timed> {
    let a = cuprum::random::random(&[n], DType::F32)?;
    let b = cuprum::random::random(&[n], DType::F32)?;
    let mut c = Array::empty(&[n], DType::F32)?;
    let blocks = (n as u32).div_ceil(256);
    let r = warm(o, name, || {
        rk::vector_add::launch::<f32>((blocks, 256), &a, &b, &mut c, n as i32)
    })?;
    Ok((r, 12 * n as u64))
}

/// `jit_add100M_f32`: the tuned kernel (`vector_add_wide`: 16-byte loads and stores), one
/// chunk of four elements per thread, as cuprum's ElementwiseKernel launches its vectorised
/// loop.
pub fn jit_add100m(o: &BenchmarkOptions) -> R<Timed> {
    let n = 100_000_000usize;
    let a = cuprum::random::random(&[n], DType::F32)?;
    let b = cuprum::random::random(&[n], DType::F32)?;
    let mut c = Array::empty(&[n], DType::F32)?;
    let cfg = JitConfig::for_len(n.div_ceil(4), 256);
    let r = warm(o, "jit_add100M_f32", || {
        rk::vector_add_wide::launch::<f32>(cfg, &a, &b, &mut c)
    })?;
    Ok((r, 12 * n as u64))
}

pub fn jit_add4(o: &BenchmarkOptions) -> R<Timed> {
    let (r, _) = add(o, "jit_add4_overhead", 4)?;
    Ok((r, 0))
}

pub fn jit_smem_reduce(o: &BenchmarkOptions) -> R<Timed> {
    let n = 1_000_000usize;
    let data = cuprum::random::random(&[n], DType::F32)?;
    let grid = (n as u32).div_ceil(256);
    let mut out = Array::zeros(&[grid as usize], DType::F32)?;
    let cfg = JitConfig::new(grid, 256).shared_mem(1024);
    let r = warm(o, "jit_smem_reduce1M", || {
        rk::optimized_reduction::launch(cfg, &data, &mut out, n as i32)
    })?;
    Ok((r, 4 * n as u64))
}
