//! The workloads of kernels over device types (`#[derive(cuprum::DeviceType)]`, the
//! examples' kernels in examples/kernels/device_types.rs), each beside its twin in the same
//! run: the n-body step over 1M `Particle` records (the Rust kernel and its raw CUDA twin,
//! kernels/nbody.cu), and the seed's activation over 1e8 float32 selected by an enum
//! `match` against the integer-selected version.

use super::timed::{R, Timed};
use crate::device_kernels::{self as dk, Activation, Particle};
use crate::rust_kernels as rk;
use crate::seeds_types as st;
use cuprum::kernel::JitConfig;
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::{Array, DType, DeviceType};

const PARTICLES: usize = 1_000_000;
const ACT_N: usize = 100_000_000;

fn warm(
    o: &BenchmarkOptions,
    name: &str,
    mut call: impl FnMut() -> cuprum::Result<()>,
) -> R<PerfCaseResult> {
    call()?;
    Ok(benchmark(name, call, o)?)
}

/// 1M particles and the seed's 64 bodies on the device, and an output array.
fn nbody_arrays() -> R<(Array, Array, Array)> {
    let (ps, bs) = st::nbody_data(PARTICLES, st::BODIES);
    let a = Array::from_records(&ps, &[PARTICLES])?;
    let b = Array::from_records(&bs, &[st::BODIES])?;
    let out = Array::empty(&[PARTICLES], DType::Record(Particle::record()))?;
    Ok((a, b, out))
}

/// Bytes one step moves: each particle read and written.
fn nbody_bytes() -> u64 {
    2 * (PARTICLES * std::mem::size_of::<Particle>()) as u64
}

/// `nbody_step_1M_particles`: the Rust kernel.
pub fn nbody_rust(o: &BenchmarkOptions) -> R<Timed> {
    let (a, b, mut out) = nbody_arrays()?;
    let cfg = JitConfig::for_len(PARTICLES, 256);
    let r = warm(o, "nbody_step_1M_particles", || {
        dk::nbody_step::launch(cfg, &a, &b, &mut out, st::DT, st::EPS2)
    })?;
    Ok((r, nbody_bytes()))
}

/// `nbody_step_1M_raw`: the raw CUDA twin on the same data.
pub fn nbody_raw(o: &BenchmarkOptions) -> R<Timed> {
    let (a, b, out) = nbody_arrays()?;
    let k = st::nbody_raw_kernel();
    let blocks = (PARTICLES as u32).div_ceil(256);
    let (n, m) = (PARTICLES as u64, st::BODIES as u64);
    let r = warm(o, "nbody_step_1M_raw", || {
        k.launch((blocks,), (256u32,), (&a, n, &b, m, &out, st::DT, st::EPS2))
    })?;
    Ok((r, nbody_bytes()))
}

fn activation_arrays() -> R<(Array, Array)> {
    let x = cuprum::random::normal(0.0, 2.0, &[ACT_N], DType::F32)?;
    let y = Array::empty(&[ACT_N], DType::F32)?;
    Ok((x, y))
}

/// `jit_match_activation100M_f32`: the sigmoid selected by `match` on an enum.
pub fn activation_enum(o: &BenchmarkOptions) -> R<Timed> {
    let (x, mut y) = activation_arrays()?;
    let cfg = JitConfig::for_len(ACT_N, 256);
    let r = warm(o, "jit_match_activation100M_f32", || {
        dk::apply_activation_enum::launch(cfg, &x, &mut y, ACT_N as i32, Activation::Sigmoid)
    })?;
    Ok((r, 8 * ACT_N as u64))
}

/// `jit_switch_activation100M_f32`: the same selected by an integer (the seed's version).
pub fn activation_int(o: &BenchmarkOptions) -> R<Timed> {
    let (x, mut y) = activation_arrays()?;
    let cfg = JitConfig::for_len(ACT_N, 256);
    let r = warm(o, "jit_switch_activation100M_f32", || {
        rk::apply_activation::launch(cfg, &x, &mut y, ACT_N as i32, 1)
    })?;
    Ok((r, 8 * ACT_N as u64))
}
