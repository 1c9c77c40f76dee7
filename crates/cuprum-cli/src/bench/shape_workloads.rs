//! The workloads of the shape routines (`ops::diff`, `flip`, `roll`, `repeat`, `tile`,
//! `tril`, `trace`, `outer`), each timed with its output allocated per call, as CuPy's twins
//! in scripts/cupy_bench.py are. The bytes are what one call must move at the least: every
//! input element read once and every output element written once.

use super::timed::{R, Timed};
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::{Array, DType, ops};

/// Elements of the long 1-d inputs.
const N: usize = 100_000_000;
/// Elements of the inputs that grow (`repeat`, `tile`).
const SMALL_N: usize = 10_000_000;
/// Side of the square matrices.
const SIDE: usize = 10_000;

/// Uniform in [0.5, 1.5), as the other workloads' inputs (and CuPy's).
fn rand(shape: &[usize]) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.5, 1.5, shape, DType::F32)
}

/// Times `call` after one call outside the timing (which compiles its kernels).
fn warm(
    o: &BenchmarkOptions,
    name: &str,
    mut call: impl FnMut() -> cuprum::Result<()>,
) -> R<PerfCaseResult> {
    call()?;
    Ok(benchmark(name, call, o)?)
}

pub fn diff100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[N])?;
    let r = warm(o, "diff100M_f32", || ops::diff(&x, 1, -1).map(drop))?;
    Ok((r, 8 * N as u64))
}

pub fn flip100m_copy(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[N])?;
    let r = warm(o, "flip100M_f32_copy", || {
        ops::flip(&x, None)?.copy().map(drop)
    })?;
    Ok((r, 8 * N as u64))
}

pub fn roll100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[N])?;
    let r = warm(o, "roll100M_f32", || ops::roll(&x, 12_345, None).map(drop))?;
    Ok((r, 8 * N as u64))
}

pub fn repeat10m_x4(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[SMALL_N])?;
    let r = warm(o, "repeat10M_f32_x4", || ops::repeat(&x, 4, None).map(drop))?;
    Ok((r, (4 + 4 * 4) * SMALL_N as u64))
}

pub fn tile10m_3x3(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[1_000, SMALL_N / 1_000])?;
    let r = warm(o, "tile10M_f32_3x3", || ops::tile(&x, &[3, 3]).map(drop))?;
    Ok((r, (4 + 9 * 4) * SMALL_N as u64))
}

pub fn tril10000(o: &BenchmarkOptions) -> R<Timed> {
    let m = rand(&[SIDE, SIDE])?;
    let r = warm(o, "tril_10000x10000_f32", || ops::tril(&m, 0).map(drop))?;
    Ok((r, 8 * (SIDE * SIDE) as u64))
}

pub fn trace10000(o: &BenchmarkOptions) -> R<Timed> {
    let m = rand(&[SIDE, SIDE])?;
    let r = warm(o, "trace10000x10000_f32", || {
        ops::trace(&m, 0, 0, 1).map(drop)
    })?;
    Ok((r, 0))
}

pub fn outer10000(o: &BenchmarkOptions) -> R<Timed> {
    let (a, b) = (rand(&[SIDE])?, rand(&[SIDE])?);
    let r = warm(o, "outer10000_f32", || ops::outer(&a, &b).map(drop))?;
    Ok((r, 4 * (SIDE * SIDE) as u64))
}
