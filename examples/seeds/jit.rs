//! The seeds written in Rust (`#[cuprum::kernel]`, `kernels/rust_kernels.rs`): the same
//! examples, data and checks as the RawKernel seeds. Included with `#[path]` by the `jit_*`
//! examples and `cuprum demo`, beside `seeds` (mod.rs) and the kernels as `rust_kernels`.
#![allow(dead_code)] // each example uses one seed of the family

use super::rust_kernels as rk;
use super::seeds::check::{Checked, close, kahan, list, off};
use super::seeds::{prime, raw};
use cuprum::DType::{F32, F64, I64};
use cuprum::kernel::JitConfig;
use cuprum::{Array, random};

type R<T> = cuprum::Result<T>;

/// Seeds 000/001 "Raw CUDA Kernels": one generic kernel, 1e6 float32 (seed 000) and
/// float64 (seed 001), exact. Timed: float32.
pub fn vector_add() -> R<Checked> {
    let n = 1_000_000usize;
    let cfg = JitConfig::for_len(n, 256);
    let a = random::normal(0.0, 1.0, &[n], F32)?;
    let b = random::normal(0.0, 1.0, &[n], F32)?;
    let mut c = Array::empty(&[n], F32)?;
    rk::vector_add::launch::<f32>(cfg, &a, &b, &mut c, n as i32)?;
    let (ha, hb, hc) = (a.to_vec::<f32>()?, b.to_vec::<f32>()?, c.to_vec::<f32>()?);
    let bad32 = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    let a64 = random::normal(0.0, 1.0, &[n], F64)?;
    let b64 = random::normal(0.0, 1.0, &[n], F64)?;
    let mut c64 = Array::empty(&[n], F64)?;
    rk::vector_add::launch::<f64>(cfg, &a64, &b64, &mut c64, n as i32)?;
    let (ha, hb, hc) = (
        a64.to_vec::<f64>()?,
        b64.to_vec::<f64>()?,
        c64.to_vec::<f64>()?,
    );
    let bad64 = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    Ok(Checked {
        result: format!(
            "1e6 float32 and float64{}",
            off(bad32 + bad64, 2 * n, "the host")
        ),
        ok: bad32 + bad64 == 0,
        timed: Box::new(move || rk::vector_add::launch::<f32>(cfg, &a, &b, &mut c, n as i32)),
    })
}

/// Seed 002 "matrix_multiply_kernel": the naive product with 16×16 blocks, checked as the
/// RawKernel's ([`raw::matrix_multiply`]) against `reference`.
pub fn matrix_multiply(reference: raw::Reference) -> R<Checked> {
    let (m, n, k) = raw::MATMUL_MNK;
    let a = random::random(&[m, k], F32)?;
    let b = random::random(&[k, n], F32)?;
    let mut c = Array::zeros(&[m, n], F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    rk::matrix_multiply::launch((grid, (16, 16)), &a, &b, &mut c, mi, ni, ki)?;
    let hc = c.to_vec::<f32>()?;
    let (want, against) = reference(&a, &b)?;
    let worst = raw::worst_relative(&hc, &want);
    Ok(Checked {
        result: format!("C[0,0] = {:.3}, diff {worst:.0e} vs {against}", hc[0]),
        ok: worst < 1e-4,
        timed: Box::new(move || {
            rk::matrix_multiply::launch((grid, (16, 16)), &a, &b, &mut c, mi, ni, ki)
        }),
    })
}

/// Seed 002 "RawModule with Multiple Kernels": ReLU and the sigmoid are
/// `#[cuprum::device]` functions, checked against the same functions run on the host (and
/// ReLU against the seed's values); the module's vector add is the generic `vector_add`.
/// Timed: the sigmoid.
pub fn activations() -> R<Checked> {
    let input = [-2.0f32, -1.0, 0.0, 1.0, 2.0];
    let data = Array::from_slice(&input, &[5])?;
    let mut output = Array::zeros(&[5], F32)?;
    rk::apply_activation::launch((1, 256), &data, &mut output, 5, 0)?;
    let relu = output.to_vec::<f32>()?;
    rk::apply_activation::launch((1, 256), &data, &mut output, 5, 1)?;
    let sigmoid = output.to_vec::<f32>()?;
    let mut sum = Array::empty(&[5], F32)?;
    rk::vector_add::launch::<f32>((1, 256), &data, &data, &mut sum, 5)?;
    let twice = sum.to_vec::<f32>()?;
    // The device functions are ordinary Rust functions on the host.
    let relu_ok = relu
        .iter()
        .zip(&input)
        .all(|(&g, &x)| g == rk::activation_relu(x))
        && relu == [0.0, 0.0, 0.0, 1.0, 2.0];
    let sigmoid_ok = sigmoid
        .iter()
        .zip(&input)
        .all(|(&g, &x)| (g - rk::activation_sigmoid(x)).abs() < 1e-6);
    let twice_ok = twice == [-4.0, -2.0, 0.0, 2.0, 4.0];
    Ok(Checked {
        result: format!(
            "relu {}, sigmoid(2) = {:.4}{}",
            list(&relu),
            sigmoid[4],
            if twice_ok {
                String::new()
            } else {
                format!(", add {}", list(&twice))
            }
        ),
        ok: relu_ok && sigmoid_ok && twice_ok,
        timed: Box::new(move || rk::apply_activation::launch((1, 256), &data, &mut output, 5, 1)),
    })
}

/// Seed 002's activations selected by `match` on the integer (`apply_activation_match`):
/// ReLU (0), the sigmoid (1), the input (any other) on 1e6 float32, each against the
/// same device functions run on the host and the `if`-chain kernel. Timed: the sigmoid.
pub fn activations_match() -> R<Checked> {
    let n = 1_000_000usize;
    let cfg = JitConfig::for_len(n, 256);
    let x = random::normal(0.0, 2.0, &[n], F32)?;
    let hx = x.to_vec::<f32>()?;
    let mut y = Array::empty(&[n], F32)?;
    let mut z = Array::empty(&[n], F32)?;
    let mut ok = true;
    for kind in [0, 1, 7] {
        rk::apply_activation_match::launch(cfg, &x, &mut y, n as i32, kind)?;
        let hy = y.to_vec::<f32>()?;
        let host = |v: f32| match kind {
            0 => rk::activation_relu(v),
            1 => rk::activation_sigmoid(v),
            _ => v,
        };
        ok &= hy
            .iter()
            .zip(&hx)
            .all(|(&g, &v)| (g - host(v)).abs() <= 1e-6);
        if kind < 2 {
            rk::apply_activation::launch(cfg, &x, &mut z, n as i32, kind)?;
            ok &= z.to_vec::<f32>()? == hy;
        }
    }
    rk::apply_activation_match::launch(cfg, &x, &mut y, n as i32, 1)?;
    let first = y.to_vec::<f32>()?[0];
    Ok(Checked {
        result: format!(
            "sigmoid(x[0] = {:.4}) = {first:.4}, relu/sigmoid/identity checked",
            hx[0]
        ),
        ok,
        timed: Box::new(move || rk::apply_activation_match::launch(cfg, &x, &mut y, n as i32, 1)),
    })
}

/// Seed 002 "Kernel with shared memory optimization": block sums of 1e6 float32 in
/// dynamic shared memory (`dynamic_shared::<f32>()`, `sync_threads()`), added on the host,
/// against the host sum (rtol 1e-5).
pub fn shared_memory_reduction() -> R<Checked> {
    let n = 1_000_000usize;
    let data = random::random(&[n], F32)?;
    let grid = (n as u32).div_ceil(256);
    let mut out = Array::zeros(&[grid as usize], F32)?;
    let cfg = JitConfig::new(grid, 256).shared_mem(256 * 4);
    rk::optimized_reduction::launch(cfg, &data, &mut out, n as i32)?;
    let gpu = kahan(out.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let want = kahan(data.to_vec::<f32>()?.iter().map(|&v| v as f64));
    Ok(Checked {
        result: format!("Σ 1e6 = {gpu:.2} (host {want:.2})"),
        ok: close(gpu, want, 1e-5),
        timed: Box::new(move || rk::optimized_reduction::launch(cfg, &data, &mut out, n as i32)),
    })
}

/// The sums of seed 003's `cupyx.jit.rawkernel` version in Rust (line for line): 999,999
/// int64.
pub fn prime_factor_sums() -> R<Array> {
    let mut a = Array::empty(&[prime::LEN], I64)?;
    let blocks = (prime::LEN as u32).div_ceil(256);
    rk::prime_factor_sum::launch((blocks, 256), &mut a, prime::LEN as i32)?;
    Ok(a)
}

/// A `jit_*` example's `main`: `--source` prints `program` (what NVRTC compiles), and
/// otherwise as every seed example ([`check::example`](super::seeds::check::example)).
pub fn example(name: &str, program: &str, seed: impl FnOnce() -> R<Checked>) -> R<()> {
    if std::env::args().any(|a| a == "--source") {
        print!("{program}");
        return Ok(());
    }
    super::seeds::check::example(name, seed)
}

/// The sums checked as every version's ([`prime::summary`]); timed: the launch.
pub fn prime_factor_sum() -> R<Checked> {
    let mut a = prime_factor_sums()?;
    let (result, ok) = prime::summary(&a.to_vec::<i64>()?);
    let blocks = (prime::LEN as u32).div_ceil(256);
    Ok(Checked {
        result,
        ok,
        timed: Box::new(move || {
            rk::prime_factor_sum::launch((blocks, 256), &mut a, prime::LEN as i32)
        }),
    })
}
