//! `argwhere`: the coordinates of the non-zero elements as the rows of one int64 `(N,
//! ndim)` array. The same compaction as `nonzero` (compact.rs), its coordinates written
//! interleaved (row `k` holds the `ndim` coordinates of the `k`-th non-zero element)
//! instead of one array per dimension: a count (one reduction and one device → host read),
//! then one pass that reads the input once and writes the result once.

use super::compact::{MAX_ND, argwhere_coords};
use super::programs::elsewhere_then;
use crate::array::{Array, DType};
use crate::error::Result;

/// The indices of the non-zero elements of `a`, one row per element in C order (NumPy's
/// `argwhere`: int64 of shape `(N, a.ndim())`; a 0-d `a` gives `(1, 0)` or `(0, 0)`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[0.0f32, 1.5, 0.0, -2.0, 3.0, 0.0], &[2, 3])?;
/// let ij = ops::argwhere(&a)?;
/// assert_eq!(ij.shape(), &[3, 2]);
/// assert_eq!(ij.to_vec::<i64>()?, vec![0, 1, 1, 0, 1, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argwhere(a: &Array) -> Result<Array> {
    if let Some(r) = elsewhere_then(a, || argwhere(a)) {
        return r;
    }
    let count = super::count_nonzero(a)?.to_vec::<i64>()?;
    let count = count.first().copied().unwrap_or(0).max(0) as usize;
    let nd = a.ndim();
    if nd == 0 {
        return Array::empty(&[count, 0], DType::I64);
    }
    if nd > MAX_ND {
        let cols = super::nonzero(a)?;
        let refs: Vec<&Array> = cols.iter().collect();
        return super::stack(&refs, 1);
    }
    let out = Array::empty(&[count, nd], DType::I64)?;
    if count > 0 {
        argwhere_coords(&a.to_contiguous()?, a.shape(), &out)?;
    }
    Ok(out)
}
