//! `cuprum_example`: three of cuprum's example kernels as a Python extension module, on the
//! memory of whatever array the caller passes (PyTorch, CuPy, JAX, NumPy, cuprum.Array),
//! without a copy and on the caller's stream (`cuprum::python`).
//!
//! - `custom_add(x, y, out=None)`: seed 002's ElementwiseKernel, `z = x + y * 2` on float32
//!   (`examples/seeds/elementwise.rs`);
//! - `mse(y_true, y_pred)`: the fused mean squared error (`examples/fused/functions.rs`), a
//!   0-d array;
//! - `prime_factor_sum(out)`: the `#[cuprum::kernel]` of seed 003
//!   (`examples/kernels/rust_kernels.rs`): `out[i]` = the sum of the prime factors of
//!   `i + 2`, for a contiguous int64 `out`, written in place;
//! - `data_ptr(x)`: the address cuprum's kernels see for `x` (to check "no copy");
//! - `Array` and the exception classes (`CuprumError`, `DTypeError` …) of `cuprum::python`.
//!
//! The kernels are the examples' own source, included with `#[path]`.

#[path = "../../fused/functions.rs"]
mod functions;
#[allow(dead_code)]
#[path = "../../kernels/rust_kernels.rs"]
mod rust_kernels;
#[path = "../../seeds/mod.rs"]
mod seeds;

use cuprum::python::{Call, to_python};
use cuprum::{Array, DType, ElementwiseKernel, fuse::Fused};
use pyo3::prelude::*;
use std::sync::OnceLock;

/// A value made once per process (a kernel or a fused function); its error is kept and
/// returned to every caller.
fn once<T>(
    cell: &'static OnceLock<cuprum::Result<T>>,
    make: fn() -> cuprum::Result<T>,
) -> PyResult<&'static T> {
    Ok(cell.get_or_init(make).as_ref().map_err(Clone::clone)?)
}

/// custom_add(x, y, out=None)
/// --
///
/// Seed 002's ElementwiseKernel `z = x + y * 2` (float32, broadcasting) on the arrays'
/// device and the caller's stream; `out`, when given, is written and returned (as a
/// cuprum.Array over the same memory).
#[pyfunction]
#[pyo3(signature = (x, y, out=None))]
fn custom_add<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    static KERNEL: OnceLock<cuprum::Result<ElementwiseKernel>> = OnceLock::new();
    let kernel = once(&KERNEL, seeds::elementwise::custom_add_kernel)?;
    let call = Call::new(&[x, y])?;
    let (x, y) = (call.array(x)?, call.array(y)?);
    let z = match out {
        Some(out) => kernel.call((&x, &y, &call.array(out)?))?,
        None => kernel.call((&x, &y))?,
    };
    to_python(py, z)
}

/// mse(y_true, y_pred)
/// --
///
/// The fused mean squared error `mean((y_true - y_pred) ** 2)` (one ReductionKernel), a 0-d
/// array of NumPy's result dtype, on the inputs' device and the caller's stream.
#[pyfunction]
fn mse<'py>(
    py: Python<'py>,
    y_true: &Bound<'py, PyAny>,
    y_pred: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    static MSE: OnceLock<cuprum::Result<Fused>> = OnceLock::new();
    let mse = once(&MSE, || Ok(functions::mse()))?;
    let call = Call::new(&[y_true, y_pred])?;
    let value = mse.call((&call.array(y_true)?, &call.array(y_pred)?))?;
    to_python(py, value)
}

/// prime_factor_sum(out)
/// --
///
/// The `#[cuprum::kernel]` prime-factor sum of seed 003: writes `out[i]` = the sum of the
/// prime factors of `i + 2` into a contiguous 1-d int64 array, in place, and returns it.
#[pyfunction]
fn prime_factor_sum<'py>(py: Python<'py>, out: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let call = Call::new(&[out])?;
    let mut a: Array = call.array(out)?;
    if a.ndim() != 1 || a.dtype() != DType::I64 {
        return Err(cuprum::python::error(
            cuprum::ErrorKind::DType,
            format!(
                "prime_factor_sum expects a 1-d int64 array, got a {}-d {} array",
                a.ndim(),
                a.dtype().name()
            ),
        ));
    }
    let n = i32::try_from(a.size()).map_err(|_| {
        cuprum::python::error(
            cuprum::ErrorKind::Shape,
            format!(
                "prime_factor_sum takes at most {} elements, got {}",
                i32::MAX,
                a.size()
            ),
        )
    })?;
    if n > 0 {
        let blocks = (n as u32).div_ceil(256);
        rust_kernels::prime_factor_sum::launch((blocks, 256), &mut a, n)?;
    }
    to_python(py, a)
}

/// data_ptr(x)
/// --
///
/// The address of `x`'s first element as cuprum imports it (equal to the producer's own
/// pointer: no copy).
#[pyfunction]
fn data_ptr(x: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(cuprum::python::array_arg(x)?.data_ptr())
}

/// _bench_custom_add_rust(n, repeat, batch, on=None)
/// --
///
/// The Rust-only twin of `custom_add` for bench.py: two float32 arrays of `n` ones made by
/// cuprum on the current device (or, with `on=(x, y, z)`, those arrays' memory, imported),
/// then `repeat` batches of `batch` back-to-back calls with `out=` (after warm-up), each
/// batch between two events on cuprum's own stream; returns the medians per call
/// `(host µs, GPU µs)`.
#[pyfunction]
#[pyo3(signature = (n, repeat, batch, on=None))]
fn _bench_custom_add_rust(
    n: usize,
    repeat: usize,
    batch: usize,
    on: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>)>,
) -> PyResult<(f64, f64)> {
    static KERNEL: OnceLock<cuprum::Result<ElementwiseKernel>> = OnceLock::new();
    let kernel = once(&KERNEL, seeds::elementwise::custom_add_kernel)?;
    let (x, y, z) = match on {
        Some((x, y, z)) => (
            cuprum::python::array_arg(&x)?,
            cuprum::python::array_arg(&y)?,
            cuprum::python::array_arg(&z)?,
        ),
        None => (
            Array::ones(&[n], DType::F32)?,
            Array::ones(&[n], DType::F32)?,
            Array::empty(&[n], DType::F32)?,
        ),
    };
    let stream = cuprum::Stream::current()?;
    let (start, end) = (cuprum::Event::new()?, cuprum::Event::new()?);
    for _ in 0..3 {
        kernel.run((&x, &y, &z))?;
    }
    let (mut host, mut gpu) = (Vec::new(), Vec::new());
    for _ in 0..repeat.max(1) {
        start.record(&stream)?;
        let t = std::time::Instant::now();
        for _ in 0..batch.max(1) {
            kernel.run((&x, &y, &z))?;
        }
        host.push(t.elapsed().as_secs_f64() * 1e6 / batch.max(1) as f64);
        end.record(&stream)?;
        end.synchronize()?;
        gpu.push(f64::from(start.elapsed_ms(&end)?) * 1e3 / batch.max(1) as f64);
    }
    Ok((median(&mut host), median(&mut gpu)))
}

/// _profile_custom_add(x, y, n)
/// --
///
/// Where the host time of `custom_add(x, y)` goes, for bench.py: `n` calls timed stage by
/// stage (starting the call, importing `x`, importing `y`, the kernel call, wrapping the
/// result, dropping it all); returns the median µs of each stage as a dict.
#[pyfunction]
fn _profile_custom_add<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    n: usize,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use std::time::Instant;
    static KERNEL: OnceLock<cuprum::Result<ElementwiseKernel>> = OnceLock::new();
    let kernel = once(&KERNEL, seeds::elementwise::custom_add_kernel)?;
    const STAGES: [&str; 6] = [
        "call_new",
        "import_x",
        "import_y",
        "kernel",
        "to_python",
        "drop",
    ];
    let mut t: Vec<Vec<f64>> = vec![Vec::with_capacity(n); STAGES.len()];
    let us = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e6;
    for _ in 0..n.max(1) {
        let t0 = Instant::now();
        let call = Call::new(&[x, y])?;
        let t1 = Instant::now();
        let xa = call.array(x)?;
        let t2 = Instant::now();
        let ya = call.array(y)?;
        let t3 = Instant::now();
        let z = kernel.call((&xa, &ya))?;
        let t4 = Instant::now();
        let obj = to_python(py, z)?;
        let t5 = Instant::now();
        drop((obj, xa, ya, call));
        let t6 = Instant::now();
        for (i, (a, b)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6)]
            .into_iter()
            .enumerate()
        {
            t[i].push(us(a, b));
        }
    }
    let d = pyo3::types::PyDict::new(py);
    for (name, mut v) in STAGES.into_iter().zip(t) {
        d.set_item(name, median(&mut v))?;
    }
    Ok(d)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[pymodule]
fn cuprum_example(m: &Bound<'_, PyModule>) -> PyResult<()> {
    cuprum::python::register(m)?;
    m.add_function(wrap_pyfunction!(custom_add, m)?)?;
    m.add_function(wrap_pyfunction!(mse, m)?)?;
    m.add_function(wrap_pyfunction!(prime_factor_sum, m)?)?;
    m.add_function(wrap_pyfunction!(data_ptr, m)?)?;
    m.add_function(wrap_pyfunction!(_bench_custom_add_rust, m)?)?;
    m.add_function(wrap_pyfunction!(_profile_custom_add, m)?)?;
    Ok(())
}
