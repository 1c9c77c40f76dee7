//! Matrix products of the dtypes cuBLAS is not asked for (integers, bool, float16,
//! bfloat16, complex): NumPy's `matmul` semantics composed from the elementwise product
//! and a sum over `k` (`(…, m, k, 1) · (…, 1, k, n)` summed along `k`), in row blocks
//! so that the product of one block holds at most [`BLOCK_ELEMENTS`] elements.
//!
//! Decision: correctness and coverage over speed. These dtypes are rare in matrix
//! products (CuPy computes them with its own kernels, cuBLAS having none either); the
//! float32/float64 products, the ones that matter for speed, stay on cuBLAS
//! (`linalg.rs`). Result dtypes are NumPy's: the operands' promoted dtype (integers do
//! not widen, as `matmul` does not), bool the logical or of the ands.

use super::reduce_opts::ReduceOpts;
use crate::array::{Array, DType};
use crate::error::{Result, bail};

/// The largest elementwise product one block makes.
const BLOCK_ELEMENTS: usize = 1 << 26;

/// `a @ b` for operands already checked by the plan: `out` the result's shape, `(m, k,
/// n)` the core sizes, `dtype` the promoted dtype.
pub(super) fn matmul_by_sum(
    a: &Array,
    b: &Array,
    out: &[usize],
    (m, k, n): (usize, usize, usize),
    dtype: DType,
) -> Result<Array> {
    if matches!(dtype, DType::Record(_)) {
        bail!(DType, "matmul: records are not numbers");
    }
    let a = if a.dtype() == dtype {
        a.clone()
    } else {
        a.astype(dtype)?
    };
    let b = if b.dtype() == dtype {
        b.clone()
    } else {
        b.astype(dtype)?
    };
    // 1-D operands as a row and a column
    let a2 = if a.ndim() == 1 {
        a.reshape(&[1, k as isize])?
    } else {
        a
    };
    let b2 = if b.ndim() == 1 {
        b.reshape(&[k as isize, 1])?
    } else {
        b
    };
    let result = Array::zeros(out, dtype)?;
    if result.size() == 0 || k == 0 {
        return Ok(result);
    }
    let batch: usize = result.size() / (m * n).max(1);
    let rows = (BLOCK_ELEMENTS / (batch * k * n).max(1)).clamp(1, m.max(1));
    // the result seen as (…, m, n) whatever the 1-D operands removed
    let batch_shape = crate::array::shape::broadcast_shapes(&[
        &a2.shape()[..a2.ndim() - 2],
        &b2.shape()[..b2.ndim() - 2],
    ])?;
    let mut full: Vec<isize> = batch_shape.iter().map(|&d| d as isize).collect();
    full.extend([m as isize, n as isize]);
    let target = result.reshape(&full)?;
    let acc = match dtype {
        DType::Bool => DType::I64,
        d => d,
    };
    let mut i0 = 0;
    while i0 < m {
        let i1 = (i0 + rows).min(m);
        let ablock = rows_of(&a2, i0, i1)?;
        let prod = crate::ops::multiply(&ablock.expand_dims(-1)?, &b2.expand_dims(-3)?)?;
        let summed = crate::ops::sum_with(&prod, ReduceOpts::new().axis(-2).dtype(acc))?;
        let summed = if dtype == DType::Bool {
            crate::ops::not_equal(&summed, 0i64)?
        } else {
            summed
        };
        rows_of(&target, i0, i1)?.assign(&summed)?;
        i0 = i1;
    }
    Ok(result)
}

/// Rows `i0..i1` of the second-to-last axis of `x`.
fn rows_of(x: &Array, i0: usize, i1: usize) -> Result<Array> {
    let mut args: Vec<crate::array::SliceArg> = (0..x.ndim() - 2)
        .map(|_| crate::array::SliceArg::from(..))
        .collect();
    args.push(crate::array::SliceArg::from(i0 as isize..i1 as isize));
    x.slice(&args)
}
