//! Matrix products through cuBLAS: [`matmul`] (NumPy's `matmul`, stacks of matrices
//! included) and [`dot`] (NumPy's `dot` for 1-D and 2-D operands). float32 and float64
//! go to cuBLAS; other dtypes (integers, bool, half types, complex) are composed from the
//! elementwise product and a sum (`matmul_generic.rs`).
//!
//! cuBLAS is column-major, arrays are row-major: `C = A·B` in row-major order is
//! `Cᵀ = Bᵀ·Aᵀ` in column-major order, and a row-major matrix read as column-major *is*
//! its transpose, so the GEMM is called with the operands swapped and no data moves.
//! An operand whose last two axes are a transposed C-contiguous layout (or any layout with
//! unit stride along one of them and a large enough stride along the other, such as a
//! slice of columns) is passed as it is with cuBLAS' transpose flag; anything else (a
//! broadcast or reversed axis, steps in both axes) is copied to C order first. Stacks use
//! strided-batched GEMM, with a zero stride for operands broadcast along the stack.

use crate::array::shape::{
    Shape, Strides, broadcast_shapes, broadcast_strides, c_strides, format_shape,
    merge_dims_of_views,
};
use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::runtime::{BlasFloat, Gemm, GemmInput, Stream, gemm};
use smallvec::SmallVec;

/// NumPy's matrix product (`a @ b`), computed by cuBLAS for float32 and float64 (other
/// dtypes: an elementwise product summed over `k`, in NumPy's result dtype).
///
/// * 2-D × 2-D: `(m, k) · (k, n) → (m, n)`.
/// * A 1-D operand is a vector: `(k,) · (k, n) → (n,)`, `(m, k) · (k,) → (m,)`,
///   `(k,) · (k,) → ()` (a 0-d array).
/// * More than two dimensions: stacks of matrices in the last two axes; the leading
///   (batch) axes broadcast, `(2, 1, m, k) · (3, k, n) → (2, 3, m, n)`.
///
/// Mixed float32 and float64 operands promote to float64 as in NumPy (the float32 one is
/// converted with [`Array::astype`] first). float32 products use full float32 arithmetic
/// (cuBLAS' default math mode: no TF32 unless `NVIDIA_TF32_OVERRIDE=1` is set). `k = 0`
/// gives zeros, an empty `m`, `n` or batch axis an empty result. The result is a new
/// C-contiguous array computed on the current stream.
///
/// Errors: [`ErrorKind::DType`](crate::ErrorKind::DType) for records,
/// [`ErrorKind::Shape`](crate::ErrorKind::Shape) for 0-d operands, a core dimension
/// mismatch (NumPy's message) or batch axes that do not broadcast,
/// [`ErrorKind::Blas`](crate::ErrorKind::Blas) when cuBLAS is missing or fails.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let b = Array::from_slice(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2])?;
/// let c = ops::matmul(&a, &b)?;
/// assert_eq!(c.shape(), &[2, 2]);
/// assert_eq!(c.to_vec::<f32>()?, vec![4.0, 5.0, 10.0, 11.0]);
/// let v = Array::from_slice(&[1.0f32, 1.0], &[2])?;
/// assert_eq!(ops::matmul(&v, &a)?.to_vec::<f32>()?, vec![5.0, 7.0, 9.0]);
/// let g = ops::matmul(&a, &a.t())?;                     // transposed view: no copy
/// assert_eq!(g.to_vec::<f32>()?, vec![14.0, 32.0, 32.0, 77.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    for (i, x) in [a, b].into_iter().enumerate() {
        if x.ndim() == 0 {
            bail!(
                Shape,
                "matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core \
                 with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
            );
        }
    }
    let plan = Plan::new(a.shape(), b.shape())?;
    product(&plan, a, b)
}

/// cuBLAS for float32 and float64 (mixed: float64), the composed product for the other
/// dtypes (`matmul_generic.rs`).
fn product(plan: &Plan, a: &Array, b: &Array) -> Result<Array> {
    if check_dtypes("matmul", a, b).is_ok() {
        return run(plan, a, b);
    }
    let dtype = super::promote_types(a.dtype(), b.dtype());
    if matches!(dtype, DType::F32 | DType::F64) {
        return run(plan, &a.astype(dtype)?, &b.astype(dtype)?);
    }
    super::matmul_generic::matmul_by_sum(a, b, &plan.out, (plan.m, plan.k, plan.n), dtype)
}

/// NumPy's `dot` for 1-D and 2-D operands: the inner product of two
/// vectors (a 0-d array), otherwise the same as [`matmul`]. Mixed float32/float64 promote
/// to float64.
///
/// Errors: [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for 0-d operands (use
/// [`multiply`](crate::ops::multiply)) and for more than two dimensions (NumPy's `dot` of
/// stacks is not `matmul`; use [`matmul`] for stacks of matrices);
/// [`ErrorKind::Shape`](crate::ErrorKind::Shape) with NumPy's "not aligned" message;
/// [`ErrorKind::DType`](crate::ErrorKind::DType) for records.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
/// let y = Array::from_slice(&[4.0f64, 5.0, 6.0], &[3])?;
/// let d = ops::dot(&x, &y)?;
/// assert_eq!((d.shape(), d.to_vec::<f64>()?), (&[][..], vec![32.0]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    let (na, nb) = (a.ndim(), b.ndim());
    if na == 0 || nb == 0 || na > 2 || nb > 2 {
        bail!(
            Unsupported,
            "dot supports 1-D and 2-D operands, got shapes {} and {}; use ops::multiply for \
             0-d operands and ops::matmul for stacks of matrices",
            format_shape(a.shape()),
            format_shape(b.shape())
        );
    }
    let ka = a.shape()[na - 1];
    let kb = b.shape()[0];
    if ka != kb {
        bail!(
            Shape,
            "shapes {} and {} not aligned: {ka} (dim {}) != {kb} (dim 0)",
            tuple(a.shape()),
            tuple(b.shape()),
            na - 1
        );
    }
    let plan = Plan::new(a.shape(), b.shape())?;
    product(&plan, a, b)
}

impl Array {
    /// The matrix product `self @ other` ([`ops::matmul`](crate::ops::matmul)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::ones(&[4, 3], DType::F64)?;
    /// let b = Array::ones(&[3, 5], DType::F64)?;
    /// let c = a.matmul(&b)?;
    /// assert_eq!(c.shape(), &[4, 5]);
    /// assert_eq!(c.to_vec::<f64>()?, vec![3.0; 20]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        matmul(self, other)
    }

    /// NumPy's `dot` for 1-D and 2-D arrays ([`ops::dot`](crate::ops::dot)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let v = Array::ones(&[3], DType::F32)?;
    /// assert_eq!(v.dot(&v)?.to_vec::<f32>()?, vec![3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn dot(&self, other: &Array) -> Result<Array> {
        dot(self, other)
    }
}

/// NumPy's tuple spelling of a shape in `dot`'s message: `(2,3)`, `(3,)`.
fn tuple(shape: &[usize]) -> String {
    let inner: Vec<String> = shape.iter().map(usize::to_string).collect();
    if shape.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(","))
    }
}

fn check_dtypes(what: &str, a: &Array, b: &Array) -> Result<()> {
    for (i, x) in [a, b].into_iter().enumerate() {
        if !matches!(x.dtype(), DType::F32 | DType::F64) {
            bail!(
                DType,
                "{what} supports float32 and float64 arrays (through cuBLAS), but operand {i} \
                 is {}",
                x.dtype()
            );
        }
    }
    Ok(())
}

/// The shapes of a matrix product, from the operands' shapes alone.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    /// The broadcast batch (stack) axes.
    batch: Shape,
    m: usize,
    n: usize,
    k: usize,
    /// `batch` + `[m]` unless `a` is 1-D + `[n]` unless `b` is 1-D.
    out: Shape,
}

impl Plan {
    /// Checks the shapes (both at least 1-D) and works out the result's.
    fn new(a: &[usize], b: &[usize]) -> Result<Plan> {
        let (na, nb) = (a.len(), b.len());
        let (m, k) = if na == 1 {
            (1, a[0])
        } else {
            (a[na - 2], a[na - 1])
        };
        let (kb, n) = if nb == 1 {
            (b[0], 1)
        } else {
            (b[nb - 2], b[nb - 1])
        };
        if kb != k {
            bail!(
                Shape,
                "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc \
                 signature (n?,k),(k,m?)->(n?,m?) (size {kb} is different from {k})"
            );
        }
        let (ba, bb) = (&a[..na.saturating_sub(2)], &b[..nb.saturating_sub(2)]);
        let batch = broadcast_shapes(&[ba, bb]).map_err(|_| {
            err!(
                Shape,
                "matmul: the stacks of matrices do not broadcast: operands of shapes {} and {} \
                 have batch shapes {} and {}",
                format_shape(a),
                format_shape(b),
                format_shape(ba),
                format_shape(bb)
            )
        })?;
        let mut out = batch.clone();
        if na > 1 {
            out.push(m);
        }
        if nb > 1 {
            out.push(n);
        }
        crate::array::shape::size_of(&out)?;
        Ok(Plan {
            batch,
            m,
            n,
            k,
            out,
        })
    }
}

/// How one stored `rows × cols` matrix (row-major strides `rs`, `cs`) can be handed to
/// cuBLAS: `Some((transposed, ld))` — `transposed` when it is stored column by column —
/// or `None` when it has to be copied to C order first.
fn mat_layout(rows: usize, cols: usize, rs: isize, cs: isize) -> Option<(bool, usize)> {
    let fits = |s: isize, min: usize| s >= 0 && (s as usize) >= min.max(1);
    // Row by row: unit steps along a row, rows at least a row apart.
    if (cols == 1 || cs == 1) && (rows == 1 || fits(rs, cols)) {
        let ld = if rows == 1 { cols.max(1) } else { rs as usize };
        return Some((false, ld));
    }
    // Column by column (a transposed C-contiguous matrix, a slice of columns of one ...).
    if (rows == 1 || rs == 1) && (cols == 1 || fits(cs, rows)) {
        let ld = if cols == 1 { rows.max(1) } else { cs as usize };
        return Some((true, ld));
    }
    None
}

/// One operand as GEMM sees it: its matrices' layout and its strides along the batch axes.
struct Prepared {
    arr: Array,
    trans: bool,
    ld: usize,
    batch_strides: Strides,
}

/// The stored matrix of `x` (a 1-D `x` is a row when `row_vector`, else a column), its
/// layout and its batch strides broadcast to `batch`; `None` when cuBLAS cannot read it
/// as it is.
fn layout_of(x: &Array, row_vector: bool, batch: &[usize]) -> Result<Option<Prepared>> {
    let (shape, strides) = (x.shape(), x.strides());
    let nd = shape.len();
    let (rows, cols, rs, cs) = if nd == 1 {
        if row_vector {
            (1, shape[0], 0, strides[0])
        } else {
            (shape[0], 1, strides[0], 0)
        }
    } else {
        (
            shape[nd - 2],
            shape[nd - 1],
            strides[nd - 2],
            strides[nd - 1],
        )
    };
    let Some((trans, ld)) = mat_layout(rows, cols, rs, cs) else {
        return Ok(None);
    };
    let bd = nd.saturating_sub(2);
    let batch_strides = broadcast_strides(&shape[..bd], &strides[..bd], batch)?;
    if ld > i32::MAX as usize || batch_strides.iter().any(|&s| s < 0) {
        return Ok(None);
    }
    Ok(Some(Prepared {
        arr: x.clone(),
        trans,
        ld,
        batch_strides,
    }))
}

/// `x` ready for GEMM: as it is when its layout allows, else a C-contiguous copy.
fn prepare(x: &Array, row_vector: bool, batch: &[usize]) -> Result<Prepared> {
    if let Some(p) = layout_of(x, row_vector, batch)? {
        return Ok(p);
    }
    let c = x.copy()?;
    layout_of(&c, row_vector, batch)?.ok_or_else(|| {
        err!(
            Unsupported,
            "matmul: an operand of shape {} cannot be passed to cuBLAS (a leading dimension \
             above 2^31 - 1)",
            format_shape(x.shape())
        )
    })
}

fn to_i32(v: usize, what: &str) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        err!(
            Unsupported,
            "matmul: {what} = {v} is above cuBLAS' limit of 2^31 - 1"
        )
    })
}

/// Computes the product planned in `plan` (shapes already checked).
fn run(plan: &Plan, a: &Array, b: &Array) -> Result<Array> {
    let stream = Stream::for_device(a.device())?;
    let device = stream.device();
    crate::array::check_same_device("matmul", device, b.device())?;
    // NumPy's promotion: float32 with float64 computes in float64.
    let dtype = if a.dtype() == DType::F64 || b.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let size = crate::array::shape::size_of(&plan.out)?;
    if size == 0 {
        return Array::empty_on(&plan.out, dtype, &stream);
    }
    if plan.k == 0 {
        return Array::zeros(&plan.out, dtype);
    }
    let (m, n, k) = (
        to_i32(plan.m, "m")?,
        to_i32(plan.n, "n")?,
        to_i32(plan.k, "k")?,
    );
    let promote = |x: &Array| -> Result<Array> {
        if x.dtype() == dtype {
            Ok(x.clone())
        } else {
            x.astype(dtype)
        }
    };
    let (a, b) = (promote(a)?, promote(b)?);
    let pa = prepare(&a, true, &plan.batch)?;
    let pb = prepare(&b, false, &plan.batch)?;
    let out = Array::empty_on(&plan.out, dtype, &stream)?;
    let mn = plan.m * plan.n;
    let out_batch_strides: Strides = c_strides(&plan.batch)?
        .iter()
        .map(|s| s * mn as isize)
        .collect();

    // Batch axes merged jointly; the last merged axis is one strided-batched call, the
    // ones before it (only when an operand's batch strides do not merge) are a host loop.
    let (bshape, bstrides) = merge_dims_of_views(
        &plan.batch,
        &[&pa.batch_strides, &pb.batch_strides, &out_batch_strides],
    );
    let (count, inner): (usize, [isize; 3]) = match bshape.last() {
        Some(&c) => (
            c,
            [
                *bstrides[0].last().unwrap_or(&0),
                *bstrides[1].last().unwrap_or(&0),
                *bstrides[2].last().unwrap_or(&0),
            ],
        ),
        None => (1, [0, 0, 0]),
    };
    let outer_shape: Shape = bshape
        .iter()
        .take(bshape.len().saturating_sub(1))
        .copied()
        .collect();
    let outer: usize = outer_shape.iter().product();
    let batch = to_i32(count, "the batch size")?;
    let float = if dtype == DType::F64 {
        BlasFloat::F64
    } else {
        BlasFloat::F32
    };
    let item = dtype.itemsize() as u64;
    let mut index: SmallVec<[usize; 6]> = SmallVec::from_elem(0, outer_shape.len());
    for _ in 0..outer {
        let off = |which: usize| -> u64 {
            let s: isize = index
                .iter()
                .zip(bstrides[which].iter())
                .map(|(&i, &st)| i as isize * st)
                .sum();
            s as u64 * item
        };
        // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B goes first, m and n swap.
        let g = Gemm {
            float,
            m: n,
            n: m,
            k,
            a: GemmInput {
                ptr: pb.arr.ptr_on(&stream) + off(1),
                trans: pb.trans,
                ld: pb.ld as i32,
                stride: inner[1] as i64,
            },
            b: GemmInput {
                ptr: pa.arr.ptr_on(&stream) + off(0),
                trans: pa.trans,
                ld: pa.ld as i32,
                stride: inner[0] as i64,
            },
            c: out.ptr_on(&stream) + off(2),
            ldc: n,
            stride_c: inner[2] as i64,
            batch,
        };
        // SAFETY: `pa`/`pb` describe their arrays' memory exactly (`mat_layout` checked the
        // leading dimensions against the matrix extents, batch strides are the arrays' own
        // non-negative strides broadcast to the batch shape, 0 on broadcast axes), so every
        // matrix cuBLAS reads lies inside a live buffer of `dtype` elements; `out` is a
        // fresh C-contiguous `batch + (m, n)` array of `dtype` (ldc = n, matrices m·n
        // apart), disjoint from the inputs. All three buffers are kept alive by `pa`, `pb`
        // and `out` until this function returns, and their frees are ordered after this
        // work on `stream`, the stream they were allocated on or the current stream that
        // every cuprum operation uses.
        unsafe { gemm(&stream, &g) }?;
        // Next outer index in C order.
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < outer_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(a: &[usize], b: &[usize]) -> Result<Plan> {
        Plan::new(a, b)
    }

    #[test]
    fn plan_shapes_follow_numpy() {
        let p = plan(&[7, 3], &[3, 5]).unwrap();
        assert_eq!((p.m, p.n, p.k, p.out.as_slice()), (7, 5, 3, &[7, 5][..]));
        assert_eq!(plan(&[3], &[3, 5]).unwrap().out.as_slice(), &[5]);
        assert_eq!(plan(&[7, 3], &[3]).unwrap().out.as_slice(), &[7]);
        assert_eq!(plan(&[3], &[3]).unwrap().out.as_slice(), &[] as &[usize]);
        let p = plan(&[2, 1, 4, 3], &[5, 3, 6]).unwrap();
        assert_eq!(p.batch.as_slice(), &[2, 5]);
        assert_eq!(p.out.as_slice(), &[2, 5, 4, 6]);
        assert_eq!(plan(&[4, 3, 2], &[2]).unwrap().out.as_slice(), &[4, 3]);
        assert_eq!(plan(&[2], &[4, 2, 3]).unwrap().out.as_slice(), &[4, 3]);
        assert_eq!(plan(&[0, 3], &[3, 5]).unwrap().out.as_slice(), &[0, 5]);
        assert_eq!(plan(&[4, 0], &[0, 5]).unwrap().k, 0);
    }

    #[test]
    fn plan_errors_use_numpy_messages() {
        let e = plan(&[2, 4], &[3, 5]).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Shape);
        assert_eq!(
            e.to_string(),
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc \
             signature (n?,k),(k,m?)->(n?,m?) (size 3 is different from 4)"
        );
        let e = plan(&[2, 3, 4], &[3, 4, 5]).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Shape);
        assert!(e.to_string().contains("do not broadcast"), "{e}");
    }

    #[test]
    fn layouts() {
        // C-contiguous (4, 3): row-major, ld 3.
        assert_eq!(mat_layout(4, 3, 3, 1), Some((false, 3)));
        // Its transpose (3, 4) with strides (1, 3): column-major, ld 3.
        assert_eq!(mat_layout(3, 4, 1, 3), Some((true, 3)));
        // A slice of columns of a (4, 10) matrix: row-major, ld 10.
        assert_eq!(mat_layout(4, 5, 10, 1), Some((false, 10)));
        // Steps in both axes, broadcast or reversed rows: copy.
        assert_eq!(mat_layout(4, 5, 20, 2), None);
        assert_eq!(mat_layout(4, 5, 0, 1), None);
        assert_eq!(mat_layout(4, 5, -5, 1), None);
        // Overlapping rows are not a valid leading dimension.
        assert_eq!(mat_layout(4, 5, 3, 1), None);
        // Vectors: any positive step.
        assert_eq!(mat_layout(1, 5, 0, 1), Some((false, 5)));
        assert_eq!(mat_layout(1, 5, 0, 3), Some((true, 3)));
        assert_eq!(mat_layout(5, 1, 3, 0), Some((false, 3)));
        assert_eq!(mat_layout(5, 1, 1, 0), Some((false, 1)));
        assert_eq!(mat_layout(5, 1, -1, 0), None);
        assert_eq!(mat_layout(1, 1, 0, 0), Some((false, 1)));
    }

    #[test]
    fn dot_shape_spelling() {
        assert_eq!(tuple(&[2, 3]), "(2,3)");
        assert_eq!(tuple(&[3]), "(3,)");
    }
}
