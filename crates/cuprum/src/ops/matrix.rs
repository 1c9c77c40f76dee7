//! Matrix routines over stacks of matrices: `diagonal` (a strided view, no copy), `trace`
//! (that view summed: the reduction's result dtypes), `tril` / `triu` (one element-wise
//! kernel that keeps or zeroes each element by its row and column, from the C-order loop
//! index: one read and one write per element) and `outer` (a broadcast multiply of the
//! flattened inputs: NumPy's promotion, one write per element).

use super::{multiply, sum_axis};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::kernel::{ElementwiseKernel, Keepdims};
use crate::shape::{Shape, Strides, normalize_axis};
use std::sync::OnceLock;

/// The diagonal of `a` in the plane of `axis1` and `axis2` (NumPy's `diagonal`): a view, no
/// copy, with the other axes first and the diagonal last. `offset > 0` takes the diagonal
/// above the main one (`a[i, i + offset]`), `offset < 0` below it; past the edge the
/// diagonal is empty.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 9.0, 1.0, DType::I32)?.reshape(&[3, 3])?;
/// assert_eq!(ops::diagonal(&a, 0, 0, 1)?.to_vec::<i32>()?, vec![0, 4, 8]);
/// assert_eq!(ops::diagonal(&a, 1, 0, 1)?.to_vec::<i32>()?, vec![1, 5]);
/// assert_eq!(ops::diagonal(&a, -2, 0, 1)?.to_vec::<i32>()?, vec![6]);
/// assert!(ops::diagonal(&a, 0, 0, 1)?.shares_memory(&a));
/// assert!(ops::diagonal(&a, 0, 1, -1).is_err());        // the same axis twice
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn diagonal(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    let nd = a.ndim();
    if nd < 2 {
        bail!(
            Shape,
            "diag requires an array of at least two dimensions (given {nd})"
        );
    }
    let named = |x: isize, name: &str| {
        normalize_axis(x, nd).map_err(|e| crate::error::err!(Shape, "{name}: {e}"))
    };
    let (a1, a2) = (named(axis1, "axis1")?, named(axis2, "axis2")?);
    if a1 == a2 {
        bail!(
            InvalidArgument,
            "axis1 and axis2 cannot be the same (both are axis {a1})"
        );
    }
    let (n1, n2) = (a.shape()[a1] as i128, a.shape()[a2] as i128);
    let off = offset as i128;
    // Start at row max(0, -offset), column max(0, offset); i128 keeps every sum exact.
    let (r0, c0) = (0i128.max(-off), 0i128.max(off));
    let len = (n1 - r0).min(n2 - c0).max(0) as usize;
    let (s1, s2) = (a.strides()[a1], a.strides()[a2]);
    let mut shape = Shape::new();
    let mut strides = Strides::new();
    for d in (0..nd).filter(|&d| d != a1 && d != a2) {
        shape.push(a.shape()[d]);
        strides.push(a.strides()[d]);
    }
    shape.push(len);
    // The two strides add up within the buffer whenever two diagonal elements exist.
    strides.push(if len > 1 { s1 + s2 } else { s1 });
    let start = if len == 0 || shape.contains(&0) {
        a.offset
    } else {
        // Inside the view: row r0 < n1 and column c0 < n2, both small enough to fit.
        (a.offset as isize + r0 as isize * s1 + c0 as isize * s2) as usize
    };
    Ok(a.view(shape, strides, start))
}

/// The sum along a diagonal (NumPy's `trace`): over the plane of `axis1` and `axis2` of a
/// stack of matrices, one sum per matrix (a 0-d array for a matrix). Result dtypes are
/// [`sum`](crate::ops::sum)'s: bool and signed integers sum in int64, unsigned in uint64,
/// floats and complex numbers in their own dtype.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 9.0, 1.0, DType::I32)?.reshape(&[3, 3])?;
/// let t = ops::trace(&a, 0, 0, 1)?;
/// assert_eq!((t.dtype(), t.to_vec::<i64>()?), (DType::I64, vec![12]));
/// assert_eq!(ops::trace(&a, 1, 0, 1)?.to_vec::<i64>()?, vec![6]);
/// let stack = Array::ones(&[2, 3, 3], DType::F32)?;
/// assert_eq!(ops::trace(&stack, 0, 1, 2)?.to_vec::<f32>()?, vec![3.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn trace(a: &Array, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    sum_axis(&diagonal(a, offset, axis1, axis2)?, -1, Keepdims::No)
}

/// `tril` and `triu`: `out = keep ? a : 0`, `keep` from the column minus the row (of the
/// last two axes of the C-order loop) against `k`.
fn tri_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "T a, int64 rows, int64 cols, int64 k, bool lower",
            "T out",
            "const cuprum_idx_t tri_i = (cuprum_idx_t)i, tri_cols = (cuprum_idx_t)cols; \
             const cuprum_idx_t tri_q = tri_i / tri_cols; \
             const long long tri_d = (long long)(tri_i - tri_q * tri_cols) \
               - (long long)(tri_q % (cuprum_idx_t)rows); \
             out = (lower ? tri_d <= k : tri_d >= k) ? a : T(0)",
            "cuprum_tri",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn tri(a: &Array, k: isize, lower: bool) -> Result<Array> {
    let what = if lower { "tril" } else { "triu" };
    let m = match a.ndim() {
        0 => bail!(
            Shape,
            "{what} requires an array of at least one dimension (given a 0-d array)"
        ),
        // NumPy's rule: a 1-d array is the row of every matrix row.
        1 => a.broadcast_to(&[a.size(), a.size()])?,
        _ => a.clone(),
    };
    let nd = m.ndim();
    let (rows, cols) = (m.shape()[nd - 2], m.shape()[nd - 1]);
    if m.size() == 0 {
        return Array::empty_on(
            m.shape(),
            m.dtype(),
            &crate::runtime::Stream::for_device(m.device())?,
        );
    }
    tri_kernel()?.call((&m, rows as i64, cols as i64, k as i64, lower))
}

/// The lower triangle of each matrix of `a` (its last two axes; NumPy's `tril`): elements
/// above the `k`-th diagonal zeroed (`k > 0`: above the main one). A 1-d array is taken as
/// every row of a square matrix. A new array of `a`'s dtype.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(1.0, 10.0, 1.0, DType::F32)?.reshape(&[3, 3])?;
/// assert_eq!(ops::tril(&a, 0)?.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 4.0, 5.0, 0.0, 7.0, 8.0, 9.0]);
/// assert_eq!(ops::tril(&a, -1)?.to_vec::<f32>()?, vec![0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 7.0, 8.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn tril(a: &Array, k: isize) -> Result<Array> {
    tri(a, k, true)
}

/// The upper triangle of each matrix of `a` (NumPy's `triu`): elements below the `k`-th
/// diagonal zeroed. See [`tril`].
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(1.0, 7.0, 1.0, DType::I64)?.reshape(&[2, 3])?;
/// assert_eq!(ops::triu(&a, 0)?.to_vec::<i64>()?, vec![1, 2, 3, 0, 5, 6]);
/// assert_eq!(ops::triu(&a, 1)?.to_vec::<i64>()?, vec![0, 2, 3, 0, 0, 6]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn triu(a: &Array, k: isize) -> Result<Array> {
    tri(a, k, false)
}

/// The outer product of the flattened `a` and `b` (NumPy's `outer`): `out[i, j] = a[i] *
/// b[j]`, of shape `[a.size(), b.size()]`, in the promoted dtype of the two
/// ([`multiply`](crate::ops::multiply)'s; bool × bool is the logical and).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
/// let b = Array::from_slice(&[1.0f32, 10.0], &[2])?;
/// let o = ops::outer(&a, &b)?;
/// assert_eq!((o.shape(), o.dtype()), (&[3usize, 2][..], DType::F64));
/// assert_eq!(o.to_vec::<f64>()?, vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    let col = a.reshape_copy(&[-1, 1])?;
    let row = b.reshape_copy(&[1, -1])?;
    multiply(&col, &row)
}

impl Array {
    /// The diagonal as a view ([`ops::diagonal`](crate::ops::diagonal)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::arange(0.0, 4.0, 1.0, DType::F64)?.reshape(&[2, 2])?;
    /// assert_eq!(a.diagonal(0, 0, 1)?.to_vec::<f64>()?, vec![0.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        diagonal(self, offset, axis1, axis2)
    }

    /// The sum along a diagonal ([`ops::trace`](crate::ops::trace)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::ones(&[3, 3], DType::U8)?;
    /// let t = a.trace(0, 0, 1)?;
    /// assert_eq!((t.dtype(), t.to_vec::<u64>()?), (DType::U64, vec![3]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn trace(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
        trace(self, offset, axis1, axis2)
    }
}

/// The element-wise kernels of this file, for compile checks (every dtype).
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let k = tri_kernel()?;
    DType::ALL
        .iter()
        .map(|&d| {
            Ok((
                format!("cuprum_tri {}", d.name()),
                k.generated_source(
                    &[d, DType::I64, DType::I64, DType::I64, DType::Bool, d],
                    &[false, true, true, true, true, false],
                )?,
            ))
        })
        .collect()
}
