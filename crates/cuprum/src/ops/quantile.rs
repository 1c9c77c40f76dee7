//! `median`, `quantile` and `percentile` (NumPy's default `linear` method) along one axis
//! or over the flattened array.
//!
//! How, for one row (the flattened array, or an axis that every other axis of length 1
//! leaves alone) of real numbers or bools, and at most four quantiles: the **radix select**
//! (`ops/select.rs`) finds the one or two neighbours each result needs — the ranks come
//! from an element-wise kernel that computes the virtual index exactly as the
//! interpolation does — and one element-wise kernel interpolates. It reads the input about
//! twice (a median of 1e8 float32: 0.8 GB) where a sort moves 6.4 GB.
//!
//! Otherwise (many rows, complex numbers, more quantiles): the reduced axis is moved last
//! (one copy unless it already is the contiguous last axis), the rows are sorted with the
//! segmented radix sort (`ops/sort.rs`: NaNs last), then one element-wise kernel reads,
//! for every output element, the one or two neighbours it needs and interpolates. Cost:
//! the sort — per byte of the dtype one pass that reads and writes keys and 32-bit
//! positions (for rows, plus one pass per byte of the row count), about `2 · itemsize ·
//! (itemsize + 4)` bytes moved per element — then a gather of two elements per output.
//!
//! NumPy's semantics, exactly:
//! - **quantile** (`linear`): virtual index `v = (n - 1) · q` computed in `q`'s dtype (a
//!   scalar `q` takes a float input's dtype, otherwise float64; an array `q` keeps its
//!   float dtype), `lo = floor(v)`, `hi = lo + 1` (both `n - 1` when `v ≥ n - 1`), `t = v −
//!   lo`; the neighbours' difference `d = b − a` in the input's dtype (integers wrap, as
//!   NumPy's), then `a + d·t`, or `b − d·(1 − t)` where `t ≥ 0.5`, in the result dtype
//!   `promote(input, q's dtype)` (float64 for integers and a float64 `q`). A row whose
//!   largest element is NaN gives that NaN. `percentile` divides `q` by 100 first (in the
//!   dtype NumPy divides in). Complex and bool inputs are refused as NumPy refuses them;
//!   `q` outside `[0, 1]` (`[0, 100]`) gives NumPy's message; an empty reduced axis is an
//!   error (NumPy's `IndexError`).
//! - **median**: the middle element, or the mean of the two middle ones, in NumPy's mean
//!   dtype (float64 for bool and integers; float16 and bfloat16 add in float32 and round
//!   back; complex stays complex); a row holding a NaN gives NaN; an empty reduced axis
//!   gives NaN (NumPy warns "Mean of empty slice" and returns NaN).
//!
//! One axis or all of them (`None`); NumPy's tuples of axes are not taken.

use super::promote::promote_types;
use super::select::{MAX_RANKS, select, selectable};
use super::sort::sort;
use crate::array::{Array, DType, DTypeKind, Scalar};
use crate::dtype::f16_from_f64;
use crate::error::{Result, bail};
use crate::kernel::{ElementwiseKernel, Keepdims};
use crate::shape::normalize_axis;
use half::{bf16, f16};
use std::sync::OnceLock;

/// The quantiles `q` of [`quantile`] (the fractions) or [`percentile`] (the percentages).
#[derive(Debug, Clone, Copy)]
pub enum Quantiles<'a> {
    /// One value (NumPy's Python float): the result has the reduced shape, and a float
    /// input keeps its dtype.
    Scalar(f64),
    /// A 1-D list of float64 values: the result has a leading axis of its length.
    List(&'a [f64]),
    /// An array of any shape (read back to check its values): its shape leads the
    /// result's; a float array keeps its dtype, any other is read as float64.
    Array(&'a Array),
}

impl From<f64> for Quantiles<'_> {
    fn from(q: f64) -> Self {
        Quantiles::Scalar(q)
    }
}

impl<'a> From<&'a [f64]> for Quantiles<'a> {
    fn from(q: &'a [f64]) -> Self {
        Quantiles::List(q)
    }
}

impl<'a, const N: usize> From<&'a [f64; N]> for Quantiles<'a> {
    fn from(q: &'a [f64; N]) -> Self {
        Quantiles::List(q)
    }
}

impl<'a> From<&'a Vec<f64>> for Quantiles<'a> {
    fn from(q: &'a Vec<f64>) -> Self {
        Quantiles::List(q)
    }
}

impl<'a> From<&'a Array> for Quantiles<'a> {
    fn from(q: &'a Array) -> Self {
        Quantiles::Array(q)
    }
}

/// `x` rounded to float dtype `d`.
fn round_to(x: f64, d: DType) -> f64 {
    match d {
        DType::F16 => f16_from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        DType::F32 => f64::from(x as f32),
        _ => x,
    }
}

/// `x / 100` in float dtype `d` (`x` first rounded to `d`; half types divide in float32
/// and round back, as NumPy's do).
fn div100(x: f64, d: DType) -> f64 {
    match d {
        DType::F16 => f16::from_f32(f16_from_f64(x).to_f32() / 100.0).to_f64(),
        DType::BF16 => bf16::from_f32(bf16::from_f64(x).to_f32() / 100.0).to_f64(),
        DType::F32 => f64::from(x as f32 / 100.0),
        _ => x / 100.0,
    }
}

/// The quantile values as fractions, their shape and the dtype of the virtual index (see
/// the module docs), checked to lie in `[0, 1]`.
fn fractions(a: DType, q: Quantiles<'_>, percent: bool) -> Result<(Vec<f64>, Vec<usize>, DType)> {
    let a_float = a.kind() == DTypeKind::Float;
    let (vals, shape, qd) = match q {
        Quantiles::Scalar(x) => (vec![x], vec![], if a_float { a } else { DType::F64 }),
        Quantiles::List(v) => (v.to_vec(), vec![v.len()], DType::F64),
        Quantiles::Array(qa) => {
            if qa.dtype().is_complex() {
                bail!(
                    DType,
                    "q must be real: got a {} array of quantiles",
                    qa.dtype()
                );
            }
            let qd = if qa.dtype().kind() == DTypeKind::Float {
                qa.dtype()
            } else {
                DType::F64
            };
            // NumPy divides by a scalar of a float input's dtype (not a weak one).
            let qd = if percent && a_float {
                promote_types(qd, a)
            } else {
                qd
            };
            let host = qa.astype(DType::F64)?.to_vec::<f64>()?;
            (host, qa.shape().to_vec(), qd)
        }
    };
    let vals: Vec<f64> = vals
        .iter()
        .map(|&x| {
            if percent {
                div100(x, qd)
            } else {
                round_to(x, qd)
            }
        })
        .collect();
    if !vals.iter().all(|x| (0.0..=1.0).contains(x)) {
        if percent {
            bail!(InvalidArgument, "Percentiles must be in the range [0, 100]");
        }
        bail!(InvalidArgument, "Quantiles must be in the range [0, 1]");
    }
    Ok((vals, shape, qd))
}

/// `a` sorted along `axis` as contiguous rows (`[rows…, n]`), the row length `n`, the
/// reduced shape and the shape `Keepdims::Yes` keeps.
struct Rows {
    sorted: Array,
    len: usize,
    reduced: Vec<usize>,
    kept: Vec<usize>,
}

/// The reduction of `a` over `axis`: the row length, the reduced shape, the shape
/// `Keepdims::Yes` keeps, and the axis (`None`: all of them).
struct Reduced {
    len: usize,
    reduced: Vec<usize>,
    kept: Vec<usize>,
    axis: Option<usize>,
}

fn reduced(a: &Array, axis: Option<isize>) -> Result<Reduced> {
    let Some(axis) = axis else {
        return Ok(Reduced {
            len: a.size(),
            reduced: vec![],
            kept: vec![1; a.ndim()],
            axis: None,
        });
    };
    let ax = normalize_axis(axis, a.ndim())?;
    let mut reduced = a.shape().to_vec();
    reduced.remove(ax);
    let mut kept = a.shape().to_vec();
    kept[ax] = 1;
    Ok(Reduced {
        len: a.shape()[ax],
        reduced,
        kept,
        axis: Some(ax),
    })
}

fn sorted_rows(a: &Array, r: Reduced) -> Result<Rows> {
    let Some(ax) = r.axis else {
        let flat = a.reshape_copy(&[-1])?;
        return Ok(Rows {
            sorted: sort(&flat, Some(0))?,
            len: r.len,
            reduced: r.reduced,
            kept: r.kept,
        });
    };
    let nd = a.ndim();
    let mut perm: Vec<isize> = (0..nd as isize).filter(|&k| k != ax as isize).collect();
    perm.push(ax as isize);
    let moved = if ax + 1 == nd {
        a.clone()
    } else {
        a.permute(&perm)?.copy()?
    };
    Ok(Rows {
        sorted: sort(&moved, Some(-1))?,
        len: r.len,
        reduced: r.reduced,
        kept: r.kept,
    })
}

/// `a` as one contiguous row when the select serves this reduction (`ranks` neighbours
/// wanted): one non-empty row of a dtype it takes.
fn one_row(a: &Array, r: &Reduced, ranks: usize) -> Result<Option<Array>> {
    let one = r.reduced.iter().product::<usize>() == 1 && r.len > 0;
    if !one || ranks > MAX_RANKS || !selectable(a.dtype()) {
        return Ok(None);
    }
    Ok(Some(a.reshape_copy(&[-1])?.to_contiguous()?))
}

fn shape_isize(s: &[usize]) -> Vec<isize> {
    s.iter().map(|&d| d as isize).collect()
}

/// NumPy's `linear` interpolation between the two neighbours of each quantile (the
/// module docs): `S` the sorted rows' dtype, `Q` the virtual index's, `C` the result's.
fn quantile_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw S x, raw Q q, int64 len, int64 rows",
            "C y",
            format!(
                "const long long j = i / rows, r = i - j * rows;\n{VIRTUAL_INDEX}\
                 const S a = x[r * len + lo], b = x[r * len + hi], m = x[r * len + n1];\n{LINEAR}"
            ),
            "cuprum_quantile_linear",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Quantile `j`'s virtual index into `len` sorted values (the module docs): the
/// neighbours `lo`, `hi` and the fraction `t` between them (`Q` the index's dtype).
const VIRTUAL_INDEX: &str = "const long long n1 = len - 1;\n\
    const Q v = Q(n1) * q[j];\n\
    long long lo, hi;\n\
    double g;\n\
    if ((double)v >= (double)n1) { lo = n1; hi = n1; g = (double)v + 1.0; }\n\
    else { lo = (long long)(double)v; hi = lo + 1; g = (double)v - (double)lo; }\n\
    const Q t = Q(g);\n";

/// The interpolation between neighbours `a` and `b` at `t` (`m` the row's largest value:
/// a NaN there is the result).
const LINEAR: &str = "const S d = (S)(b - a);\n\
    if (m != m) y = cuprum::cast<C>(m);\n\
    else if (t >= Q(0.5)) y = cuprum::cast<C>(b) - cuprum::cast<C>(d) * cuprum::cast<C>(Q(1) - t);\n\
    else y = cuprum::cast<C>(a) + cuprum::cast<C>(d) * cuprum::cast<C>(t)";

/// The ranks the select finds for quantiles `q` of one row of `len`: `lo` then `hi` of
/// each (`k[2j]`, `k[2j + 1]`).
fn quantile_ranks_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw Q q, int64 len",
            "int64 k",
            format!("const long long j = i >> 1;\n{VIRTUAL_INDEX}(void)t;\nk = (i & 1) ? hi : lo"),
            "cuprum_quantile_ranks",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The quantiles of one row from the values the select found (`x[2j]`, `x[2j + 1]` at the
/// ranks of [`quantile_ranks_kernel`], `x[nr]` a NaN when the row holds one).
fn quantile_select_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw S x, raw Q q, int64 len, int64 nr",
            "C y",
            format!(
                "const long long j = i;\n{VIRTUAL_INDEX}(void)lo;\n(void)hi;\n\
                 const S a = x[2 * j], b = x[2 * j + 1], m = x[nr];\n{LINEAR}"
            ),
            "cuprum_quantile_select",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `s / 2`, complex numbers part by part (NumPy divides by a real divisor so: `inf` parts
/// stay `inf`, where a complex division would make `inf · 0 = NaN`).
const HALVE: &str = "template <typename T> __device__ __forceinline__ T cuprum_halve(T s, T two) { return s / two; }\n\
template <typename T> __device__ __forceinline__ cuprum::complex<T> cuprum_halve(cuprum::complex<T> s, cuprum::complex<T> two) {\n\
\x20 return cuprum::complex<T>(s.re / two.re, s.im / two.re);\n}\n";

/// The middle element or the mean of the two middle ones in dtype `A` (`two[0]` is 2 in
/// `A`: a one-element array, as scalars do not decide placeholders), NaN where the row's largest element is NaN; `R` the result's dtype.
fn median_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw S x, int64 len, raw A two",
            "R y",
            "const long long b = i * len, m = len / 2;\n\
             const S last = x[b + len - 1];\n\
             if (last != last) y = cuprum::cast<R>(last);\n\
             else if (len & 1) y = cuprum::cast<R>(cuprum::cast<A>(x[b + m]));\n\
             else y = cuprum::cast<R>(cuprum_halve(cuprum::cast<A>(x[b + m - 1]) + cuprum::cast<A>(x[b + m]), two[0]))",
            "cuprum_median",
        )
        .map(|k| k.preamble(HALVE))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The median's two ranks in a row of `n`: `(n - 1) / 2` and `n / 2` (one rank twice for
/// an odd `n`).
fn median_ranks_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "int64 n",
            "int64 k",
            "k = (n - 1 + i) / 2",
            "cuprum_median_ranks",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// [`median_kernel`] of one row from the values the select found at the
/// [`median_ranks_kernel`] ranks (`x[2]` a NaN when the row holds one).
fn median_select_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw S x, int64 len, raw A two",
            "R y",
            "const S last = x[2];\n\
             if (last != last) y = cuprum::cast<R>(last);\n\
             else if (len & 1) y = cuprum::cast<R>(cuprum::cast<A>(x[0]));\n\
             else y = cuprum::cast<R>(cuprum_halve(cuprum::cast<A>(x[0]) + cuprum::cast<A>(x[1]), two[0]))",
            "cuprum_median_select",
        )
        .map(|k| k.preamble(HALVE))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// NumPy's mean dtype of a median of `d` (the dtype it adds in, the result's dtype).
fn median_dtypes(d: DType) -> (DType, DType) {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt => (DType::F64, DType::F64),
        _ if matches!(d, DType::F16 | DType::BF16) => (DType::F32, d),
        _ => (d, d),
    }
}

fn quantile_impl(
    a: &Array,
    q: Quantiles<'_>,
    axis: Option<isize>,
    keepdims: Keepdims,
    percent: bool,
) -> Result<Array> {
    let what = if percent { "percentile" } else { "quantile" };
    match a.dtype().kind() {
        DTypeKind::Complex => bail!(
            DType,
            "a must be an array of real numbers: got {}",
            a.dtype()
        ),
        DTypeKind::Bool => bail!(
            DType,
            "{what} of a bool array: the linear interpolation subtracts neighbours, and \
             numpy boolean subtract, the `-` operator, is not supported"
        ),
        _ => {}
    }
    let (vals, qshape, qd) = fractions(a.dtype(), q, percent)?;
    let r = reduced(a, axis)?;
    if let Some(row) = one_row(a, &r, 2 * vals.len())? {
        let cd = promote_types(a.dtype(), qd);
        let mut shape = qshape.clone();
        shape.extend_from_slice(&r.reduced);
        let out = Array::empty(&shape, cd)?;
        if out.size() > 0 {
            let qa = Array::from_slice(&vals, &[vals.len()])?.astype(qd)?;
            let ranks = Array::empty(&[2 * vals.len()], DType::I64)?;
            quantile_ranks_kernel()?.call((&qa, r.len as i64, &ranks))?;
            let v = select(&row, &ranks)?;
            let nr = ranks.size() as i64;
            quantile_select_kernel()?.call((&v, &qa, r.len as i64, nr, &out))?;
        }
        return keep(out, keepdims, qshape, &r.kept);
    }
    let rows = sorted_rows(a, r)?;
    if rows.len == 0 {
        bail!(
            Shape,
            "{what} of an empty array (the reduced axis has length 0): index -1 is out of \
             bounds for axis 0 with size 0"
        );
    }
    let cd = promote_types(a.dtype(), qd);
    let nrows: usize = rows.reduced.iter().product();
    let mut shape = qshape.clone();
    shape.extend_from_slice(&rows.reduced);
    let out = Array::empty(&shape, cd)?;
    if out.size() > 0 {
        let qa = Array::from_slice(&vals, &[vals.len()])?.astype(qd)?;
        quantile_kernel()?.call((&rows.sorted, &qa, rows.len as i64, nrows as i64, &out))?;
    }
    keep(out, keepdims, qshape, &rows.kept)
}

/// `out` of shape `lead + reduced`, reshaped to `lead + kept` for `Keepdims::Yes`.
fn keep(out: Array, keepdims: Keepdims, lead: Vec<usize>, kept: &[usize]) -> Result<Array> {
    match keepdims {
        Keepdims::No => Ok(out),
        Keepdims::Yes => {
            let mut shape = lead;
            shape.extend_from_slice(kept);
            out.reshape(&shape_isize(&shape))
        }
    }
}

/// The `q`-th quantiles of `a` along `axis` (`None`: the flattened array), NumPy's
/// `quantile` with its default `linear` method: for `n` sorted values the virtual index
/// `(n - 1)·q` and a linear interpolation between its neighbours (details, result dtypes
/// and costs in the module docs). `q` is one value (`0.5`), a list (`&[0.25, 0.75]`) or an
/// [`Array`]; its shape leads the result's. Float inputs keep their dtype for a scalar
/// `q`, integers give float64. A row holding a NaN gives NaN.
///
/// Errors: `q` outside `[0, 1]` (NumPy's "Quantiles must be in the range [0, 1]"), complex
/// or bool input (`DType`), an empty reduced axis (`Shape`), a bad axis (`Shape`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[1.0f32, 3.0, 2.0, 10.0, 7.0, 4.0], &[2, 3])?;
/// let m = ops::quantile(&a, 0.5, Some(1), Keepdims::No)?;
/// assert_eq!(m.to_vec::<f32>()?, vec![2.0, 7.0]);
/// let qs = ops::quantile(&a, &[0.0, 0.25], None, Keepdims::No)?; // float64 list
/// assert_eq!(qs.to_vec::<f64>()?, vec![1.0, 2.25]);
/// assert!(ops::quantile(&a, 1.5, None, Keepdims::No).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn quantile<'q>(
    a: &Array,
    q: impl Into<Quantiles<'q>>,
    axis: Option<isize>,
    keepdims: Keepdims,
) -> Result<Array> {
    on_its_device(a, q.into(), axis, keepdims, false)
}

/// The `q`-th percentiles of `a` (`q` in `[0, 100]`): [`quantile`] of `q / 100`, divided
/// in the dtype NumPy divides in (a float input's dtype for a scalar `q`). Errors as
/// [`quantile`]'s, with NumPy's "Percentiles must be in the range [0, 100]".
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[0i32, 10, 20, 30, 40], &[5])?;
/// let p = ops::percentile(&a, &[25.0, 90.0], Some(0), Keepdims::No)?;
/// assert_eq!(p.to_vec::<f64>()?, vec![10.0, 36.0]);
/// assert!(ops::percentile(&a, 101.0, None, Keepdims::No).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn percentile<'q>(
    a: &Array,
    q: impl Into<Quantiles<'q>>,
    axis: Option<isize>,
    keepdims: Keepdims,
) -> Result<Array> {
    on_its_device(a, q.into(), axis, keepdims, true)
}

/// `quantile_impl` on `a`'s device (`percent`: `q` in percent).
fn on_its_device(
    a: &Array,
    q: Quantiles<'_>,
    axis: Option<isize>,
    keepdims: Keepdims,
    percent: bool,
) -> Result<Array> {
    if let Some(r) =
        crate::ops::programs::elsewhere_then(a, || quantile_impl(a, q, axis, keepdims, percent))
    {
        return r;
    }
    quantile_impl(a, q, axis, keepdims, percent)
}

/// The median of `a` along `axis` (`None`: the flattened array), NumPy's `median`: the
/// middle element, or the mean of the two middle ones, in NumPy's mean dtype (float64 for
/// bool and integers, the input's for floats and complex numbers; float16 and bfloat16
/// add in float32). A row holding a NaN gives NaN; an empty reduced axis gives NaN (NumPy
/// warns and returns NaN). A sort along the axis and one gather (costs in the module
/// docs).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops, ops::Keepdims};
/// let a = Array::from_slice(&[4i16, 1, 3, 2], &[2, 2])?;
/// let m = ops::median(&a, None, Keepdims::No)?;
/// assert_eq!((m.dtype(), m.to_vec::<f64>()?), (DType::F64, vec![2.5]));
/// let rows = ops::median(&a, Some(-1), Keepdims::Yes)?;
/// assert_eq!((rows.shape(), rows.to_vec::<f64>()?), (&[2usize, 1][..], vec![2.5, 2.5]));
/// let f = Array::from_slice(&[1.0f32, f32::NAN, 0.0], &[3])?;
/// assert!(ops::median(&f, None, Keepdims::No)?.to_vec::<f32>()?[0].is_nan());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn median(a: &Array, axis: Option<isize>, keepdims: Keepdims) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || median(a, axis, keepdims)) {
        return r;
    }
    let (acc, rd) = median_dtypes(a.dtype());
    let r = reduced(a, axis)?;
    if let Some(row) = one_row(a, &r, 2)? {
        let out = Array::empty(&r.reduced, rd)?;
        let ranks = Array::empty(&[2], DType::I64)?;
        median_ranks_kernel()?.call((r.len as i64, &ranks))?;
        let v = select(&row, &ranks)?;
        let two = Array::full(&[1], 2.0f64, acc)?;
        median_select_kernel()?.call((&v, r.len as i64, &two, &out))?;
        return keep(out, keepdims, vec![], &r.kept);
    }
    let rows = sorted_rows(a, r)?;
    let out = Array::empty(&rows.reduced, rd)?;
    if out.size() > 0 {
        if rows.len == 0 {
            let nan = if rd.is_complex() {
                Scalar::from(num_complex::Complex::new(f64::NAN, f64::NAN)).cast(rd)?
            } else {
                Scalar::from(f64::NAN).cast(rd)?
            };
            out.fill(nan)?;
        } else {
            let two = Array::full(&[1], 2.0f64, acc)?;
            median_kernel()?.call((&rows.sorted, rows.len as i64, &two, &out))?;
        }
    }
    keep(out, keepdims, vec![], &rows.kept)
}

/// The element-wise kernels of this file, for compile checks: every dtype they take, with
/// the `q` dtypes NumPy's rules give them.
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let mut v = Vec::new();
    let (qk, qs) = (quantile_kernel()?, quantile_select_kernel()?);
    let (mk, ms) = (median_kernel()?, median_select_kernel()?);
    for &d in DType::ALL {
        if !matches!(d.kind(), DTypeKind::Complex | DTypeKind::Bool) {
            let qd = if d.kind() == DTypeKind::Float {
                d
            } else {
                DType::F64
            };
            let mut qds = vec![qd];
            if qd != DType::F64 {
                qds.push(DType::F64);
            }
            for q in qds {
                let c = promote_types(d, q);
                for (k, name) in [(qk, "linear"), (qs, "select")] {
                    v.push((
                        format!("cuprum_quantile_{name} {} {}", d.name(), q.name()),
                        k.generated_source(
                            &[d, q, DType::I64, DType::I64, c],
                            &[false, false, true, true, false],
                        )?,
                    ));
                }
            }
        }
        let (acc, rd) = median_dtypes(d);
        v.push((
            format!("cuprum_median {}", d.name()),
            mk.generated_source(&[d, DType::I64, acc, rd], &[false, true, false, false])?,
        ));
        if selectable(d) {
            v.push((
                format!("cuprum_median_select {}", d.name()),
                ms.generated_source(&[d, DType::I64, acc, rd], &[false, true, false, false])?,
            ));
        }
    }
    for q in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        v.push((
            format!("cuprum_quantile_ranks {}", q.name()),
            quantile_ranks_kernel()?
                .generated_source(&[q, DType::I64, DType::I64], &[false, true, false])?,
        ));
    }
    v.push((
        "cuprum_median_ranks".into(),
        median_ranks_kernel()?.generated_source(&[DType::I64; 2], &[true, false])?,
    ));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_follow_numpy_dtypes_and_checks() {
        let (v, s, d) = fractions(DType::F32, Quantiles::Scalar(0.3), false).unwrap();
        assert_eq!((v, s, d), (vec![f64::from(0.3f32)], vec![], DType::F32));
        let (v, _, d) = fractions(DType::I8, Quantiles::Scalar(30.0), true).unwrap();
        assert_eq!((v, d), (vec![0.3], DType::F64));
        let (v, _, _) = fractions(DType::F32, Quantiles::Scalar(30.0), true).unwrap();
        assert_eq!(v, vec![f64::from(30.0f32 / 100.0)]);
        let (_, s, d) = fractions(DType::F16, Quantiles::List(&[0.1, 0.2]), false).unwrap();
        assert_eq!((s, d), (vec![2], DType::F64));
        for (q, pct) in [
            (1.5, false),
            (-0.1, false),
            (f64::NAN, false),
            (100.5, true),
        ] {
            let e = fractions(DType::F64, Quantiles::Scalar(q), pct).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
        }
        assert_eq!(median_dtypes(DType::U8), (DType::F64, DType::F64));
        assert_eq!(median_dtypes(DType::BF16), (DType::F32, DType::BF16));
        assert_eq!(median_dtypes(DType::C64), (DType::C64, DType::C64));
    }
}
