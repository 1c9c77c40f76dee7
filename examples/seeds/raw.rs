//! The RawKernel / RawModule seeds (000, 001, 002): each kernel (the `.cu` files of
//! `examples/kernels/`) with its data and its check. A module of `seeds` (mod.rs).

use super::check::{Checked, close, kahan, list, off};
use cuprum::DType::{F32, F64};
use cuprum::{Array, RawKernel, RawModule, random};

type R<T> = cuprum::Result<T>;

/// Seeds 000/001 "Raw CUDA Kernels": `vector_add` over float64.
pub const VECTOR_ADD_F64_CU: &str = include_str!("../kernels/vector_add_f64.cu");
/// Seed 002 "matrix_multiply_kernel": a naive float32 product, one thread per element.
pub const MATRIX_MULTIPLY_CU: &str = include_str!("../kernels/matrix_multiply.cu");
/// Seed 002 "RawModule with Multiple Kernels": `apply_activation` and `vector_add`.
pub const ACTIVATIONS_CU: &str = include_str!("../kernels/activations.cu");
/// Seed 002 "Kernel with shared memory optimization": block sums in dynamic shared memory.
pub const OPTIMIZED_REDUCTION_CU: &str = include_str!("../kernels/optimized_reduction.cu");

/// Seed 001 "RawKernel — Full CUDA C Kernels": 1e6 float64, exact.
pub fn vector_add() -> R<Checked> {
    let k = RawKernel::new(VECTOR_ADD_F64_CU, "vector_add");
    let n = 1_000_000usize;
    let a = random::normal(0.0, 1.0, &[n], F64)?;
    let b = random::normal(0.0, 1.0, &[n], F64)?;
    let c = Array::empty(&[n], F64)?;
    let blocks = (n as u32).div_ceil(256);
    k.launch(blocks, 256, (&a, &b, &c, n as i32))?;
    let (ha, hb, hc) = (a.to_vec::<f64>()?, b.to_vec::<f64>()?, c.to_vec::<f64>()?);
    let bad = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    Ok(Checked {
        result: format!(
            "1e6 float64, c[0] = {:.6}{}",
            hc[0],
            off(bad, n, "the host")
        ),
        ok: bad == 0,
        timed: Box::new(move || k.launch(blocks, 256, (&a, &b, &c, n as i32))),
    })
}

/// The product a matrix-multiply seed is checked against (double precision, row-major) and
/// what it is (`host`, `cuBLAS …`).
pub type Reference = fn(&Array, &Array) -> R<(Vec<f64>, String)>;

/// The matrix-multiply seeds' sizes: `(M, N, K)`.
pub const MATMUL_MNK: (usize, usize, usize) = (1024, 1024, 512);

/// Row-major `a (m×k) · b (k×n)` in double precision.
pub fn host_matmul(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for p in 0..k {
            let aip = a[i * k + p] as f64;
            for (r, &bv) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *r += aip * bv as f64;
            }
        }
    }
    c
}

/// The double-precision host product of two 2-d float32 arrays: a [`Reference`].
pub fn host_reference(a: &Array, b: &Array) -> R<(Vec<f64>, String)> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let c = host_matmul(&a.to_vec::<f32>()?, &b.to_vec::<f32>()?, m, n, k);
    Ok((c, "host".to_owned()))
}

/// The largest difference of `c` from `reference` relative to max(|reference|, 1), or
/// infinity when their lengths differ.
pub fn worst_relative(c: &[f32], reference: &[f64]) -> f64 {
    if c.len() != reference.len() {
        return f64::INFINITY;
    }
    c.iter()
        .zip(reference)
        .map(|(&g, &r)| (g as f64 - r).abs() / r.abs().max(1.0))
        .fold(0.0f64, f64::max)
}

/// Seed 002 "matrix_multiply_kernel": naive 1024×1024×512 float32 with 16×16 blocks, the
/// largest difference relative to max(|C|, 1) below 1e-4 against `reference`.
pub fn matrix_multiply(reference: Reference) -> R<Checked> {
    let k = RawKernel::new(MATRIX_MULTIPLY_CU, "matrix_multiply");
    let (m, n, kk) = MATMUL_MNK;
    let a = random::random(&[m, kk], F32)?;
    let b = random::random(&[kk, n], F32)?;
    let c = Array::zeros(&[m, n], F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    k.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, kk as i32))?;
    let hc = c.to_vec::<f32>()?;
    let (want, against) = reference(&a, &b)?;
    let worst = worst_relative(&hc, &want);
    Ok(Checked {
        result: format!("C[0,0] = {:.3}, diff {worst:.0e} vs {against}", hc[0]),
        ok: worst < 1e-4,
        timed: Box::new(move || {
            k.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, kk as i32))
        }),
    })
}

/// Seed 002 "RawModule with Multiple Kernels": ReLU and sigmoid of [-2, -1, 0, 1, 2]
/// through `apply_activation`, and the module's `vector_add`. Timed: the sigmoid.
pub fn activation_module() -> R<Checked> {
    let module = RawModule::new(ACTIVATIONS_CU);
    let activation = module.get_function("apply_activation")?;
    let add = module.get_function("vector_add")?;
    let input = [-2.0f32, -1.0, 0.0, 1.0, 2.0];
    let data = Array::from_slice(&input, &[5])?;
    let output = Array::zeros_like(&data)?;
    activation.launch(1, 256, (&data, &output, 5i32, 0i32))?;
    let relu = output.to_vec::<f32>()?;
    activation.launch(1, 256, (&data, &output, 5i32, 1i32))?;
    let sigmoid = output.to_vec::<f32>()?;
    let sum = Array::empty_like(&data)?;
    add.launch(1, 256, (&data, &data, &sum, 5i32))?;
    let twice = sum.to_vec::<f32>()?;
    let sigmoid_ok = sigmoid
        .iter()
        .zip(&input)
        .all(|(s, x)| (s - 1.0 / (1.0 + (-x).exp())).abs() < 1e-6);
    let twice_ok = twice == [-4.0, -2.0, 0.0, 2.0, 4.0];
    Ok(Checked {
        result: format!(
            "relu {}, sigmoid(2) = {:.4}, add{}",
            list(&relu),
            sigmoid[4],
            if twice_ok {
                String::new()
            } else {
                format!(" {}", list(&twice))
            }
        ),
        ok: relu == [0.0, 0.0, 0.0, 1.0, 2.0] && sigmoid_ok && twice_ok,
        timed: Box::new(move || activation.launch(1, 256, (&data, &output, 5i32, 1i32))),
    })
}

/// Seed 002 "Kernel with shared memory optimization": block sums of 1e6 float32 in dynamic
/// shared memory, added on the host, against the host sum (rtol 1e-5).
pub fn shared_memory_reduction() -> R<Checked> {
    let k = RawKernel::new(OPTIMIZED_REDUCTION_CU, "optimized_reduction");
    let n = 1_000_000usize;
    let data = random::random(&[n], F32)?;
    let (block, grid) = (256u32, (n as u32).div_ceil(256));
    let out = Array::zeros(&[grid as usize], F32)?;
    let launch = move |data: &Array, out: &Array| {
        k.configure(grid, block)
            .shared_mem(block as usize * 4)
            .launch((data, out, n as i32))
    };
    launch(&data, &out)?;
    let gpu = kahan(out.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let host = kahan(data.to_vec::<f32>()?.iter().map(|&v| v as f64));
    Ok(Checked {
        result: format!("Σ 1e6 = {gpu:.2} (host {host:.2})"),
        ok: close(gpu, host, 1e-5),
        timed: Box::new(move || launch(&data, &out)),
    })
}
