//! `sort` and `argsort` (stable, NumPy's order) of arrays along an axis or flattened, by
//! the radix sort engine (`radix.rs`, which says how it sorts) in the tile shape tuned for
//! the device (`sort_tuned.rs`); short rows sort in shared memory, complex values by their
//! stable `argsort` and a gather.

use super::indexing::{IndexMode, take_with};
use super::radix::{self, SortMode, small_rows_max};
use super::sort_tuned::{first_tiling, tiling};
use crate::array::{Array, DType, DTypeKind};
use crate::error::Result;
use crate::kernel::ElementwiseKernel;
use crate::runtime::Device;
use crate::shape::normalize_axis;
use std::sync::OnceLock;

/// The CUDA source of the radix sort of dtype `d` in `mode`, hand-picked tiling.
pub(crate) fn sort_source(d: DType, mode: SortMode) -> Result<String> {
    radix::sort_source_with(d, mode, first_tiling(d.itemsize(), mode != SortMode::Sort))
}

/// Sorts the contiguous `x` (rows of `len` when the mode is segmented) into `out`: the
/// sorted values (`x`'s dtype) or the int64 permutation, in the current device's tiling.
pub(crate) fn radix(x: &Array, mode: SortMode, len: usize, out: &Array) -> Result<()> {
    radix_with(x, mode, len, out, None)
}

/// [`radix`], and for [`SortMode::ByKey`] the 4-byte values carried from `vals.0` into
/// `vals.1` (both contiguous, `x.size()` elements).
pub(crate) fn radix_with(
    x: &Array,
    mode: SortMode,
    len: usize,
    out: &Array,
    by_key: Option<(&Array, &Array)>,
) -> Result<()> {
    let t = tiling(Device::current()?, x.itemsize(), mode != SortMode::Sort)?;
    radix::run(x, mode, len, out, by_key, t)
}

/// Sorts the rows of length `len` of the contiguous `x` in shared memory (see
/// [`radix::small_rows`]), in the program of the device's tiling.
fn small_rows(x: &Array, mode: SortMode, len: usize, out: &Array) -> Result<()> {
    let t = tiling(Device::current()?, x.itemsize(), mode != SortMode::Sort)?;
    radix::small_rows(x, mode, len, out, t)
}

/// Sorts or argsorts `a` along `axis` (`None`: flattened).
fn sort_impl(a: &Array, axis: Option<isize>, arg: bool) -> Result<Array> {
    if a.dtype().kind() == DTypeKind::Complex && !arg {
        return complex_sort(a, axis);
    }
    let out_dt = if arg { DType::I64 } else { a.dtype() };
    let Some(axis) = axis else {
        let flat = a.reshape_copy(&[-1])?.to_contiguous()?;
        let out = Array::empty(flat.shape(), out_dt)?;
        let mode = if arg {
            SortMode::ArgSort
        } else {
            SortMode::Sort
        };
        if flat.size() > 0 {
            radix(&flat, mode, flat.size(), &out)?;
        }
        return Ok(out);
    };
    let ax = normalize_axis(axis, a.ndim())?;
    let out = Array::empty(a.shape(), out_dt)?;
    let n = a.size();
    if n == 0 {
        return Ok(out);
    }
    let len = a.shape()[ax];
    if len == 1 {
        if arg {
            out.fill(0i64)?;
        } else {
            out.assign(a)?;
        }
        return Ok(out);
    }
    let inner: usize = a.shape()[ax + 1..].iter().product();
    let sort_rows = |x: &Array, dst: &Array| -> Result<()> {
        let mode = match (x.size() == len, arg) {
            (true, false) => SortMode::Sort,
            (true, true) => SortMode::ArgSort,
            (false, false) => SortMode::SegSort,
            (false, true) => SortMode::SegArgSort,
        };
        if mode.segmented()
            && len <= small_rows_max(x.dtype())
            && x.size() / len <= u32::MAX as usize
        {
            small_rows(x, mode, len, dst)
        } else {
            radix(x, mode, len, dst)
        }
    };
    if inner == 1 {
        sort_rows(&a.to_contiguous()?, &out)?;
    } else {
        let last = a.ndim() as isize - 1;
        let moved = a.swapaxes(ax as isize, last)?.copy()?;
        let sorted = Array::empty(moved.shape(), out_dt)?;
        sort_rows(&moved, &sorted)?;
        out.assign(&sorted.swapaxes(ax as isize, last)?)?;
    }
    Ok(out)
}

/// `y = x[row start + p]`: the element at position `p` of the row of length `len` that
/// holds `y` (gathers rows by their within-row permutation).
fn gather_rows_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw T x, int64 p, int64 len",
            "T y",
            "y = x[i - i % len + p]",
            "cuprum_sort_gather_rows",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// A complex sort: the stable argsort's permutation gathers the values (the key is not
/// invertible: see the module docs).
fn complex_sort(a: &Array, axis: Option<isize>) -> Result<Array> {
    let Some(axis) = axis else {
        let flat = a.reshape_copy(&[-1])?;
        let perm = sort_impl(&flat, Some(0), true)?;
        return take_with(&flat, &perm, None, IndexMode::Clip);
    };
    let ax = normalize_axis(axis, a.ndim())? as isize;
    let last = a.ndim() as isize - 1;
    let moved = a.swapaxes(ax, last)?.copy()?;
    let perm = sort_impl(&moved, Some(-1), true)?;
    let sorted = Array::empty(moved.shape(), a.dtype())?;
    if sorted.size() > 0 {
        let len = moved.shape()[a.ndim() - 1] as i64;
        gather_rows_kernel()?.call((&moved, &perm, len, &sorted))?;
    }
    let out = Array::empty(a.shape(), a.dtype())?;
    out.assign(&sorted.swapaxes(ax, last)?)?;
    Ok(out)
}

/// A sorted copy of `a` along `axis` (`None`: the flattened array; NumPy sorts the last
/// axis by default: pass `Some(-1)`). Integers, floats and bool; NaNs sort last (as one
/// canonical NaN); -0.0 and 0.0 are equal (either may come first). Complex numbers sort
/// as NumPy sorts them (real part, then imaginary part; values holding a NaN last, see the
/// module docs), each element kept exactly (a gather by the stable `argsort`). An LSD radix sort:
/// one pass per byte of the dtype (plus, for rows of an n-d array, one per byte of the
/// row count), each reading and writing the data once.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[3.0f32, f32::NAN, -1.0, 2.0], &[2, 2])?;
/// let s = ops::sort(&a, Some(-1))?.to_vec::<f32>()?;
/// assert_eq!((s[0], s[2], s[3]), (3.0, -1.0, 2.0));
/// assert!(s[1].is_nan());
/// assert_eq!(ops::sort(&a, None)?.to_vec::<f32>()?[..3], [-1.0, 2.0, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sort(a: &Array, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || sort(a, axis)) {
        return r;
    }
    sort_impl(a, axis, false)
}

/// The indices (int64) that sort `a` along `axis` (`None`: flattened), *stable*: equal
/// elements keep their order (NumPy's `argsort(kind='stable')`); NaNs last in input order,
/// -0.0 equal to 0.0. Complex numbers in NumPy's order: by real part, then imaginary part;
/// `R + nanj` after every NaN-free value (by real part), then `nan + Rj` (by imaginary
/// part), then `nan + nanj`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2i32, 1, 2, 1], &[4])?;
/// assert_eq!(ops::argsort(&a, Some(0))?.to_vec::<i64>()?, vec![1, 3, 0, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argsort(a: &Array, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || argsort(a, axis)) {
        return r;
    }
    if a.ndim() == 0 && axis.is_some() {
        // NumPy sorts a 0-d array along an axis as one of one element
        return sort_impl(&a.reshape(&[1])?, axis, true);
    }
    sort_impl(a, axis, true)
}

impl Array {
    /// Sorts this array in place along `axis` (`None`: in flattened order), as NumPy's
    /// `a.sort()` (which sorts the last axis: pass `Some(-1)`). See [`ops::sort`](crate::ops::sort).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[3u16, 1, 2], &[3])?;
    /// a.sort(Some(-1))?;
    /// assert_eq!(a.to_vec::<u16>()?, vec![1, 2, 3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn sort(&self, axis: Option<isize>) -> Result<()> {
        self.check_writeable("Array::sort (in place)")?;
        let sorted = sort(self, axis)?;
        match axis {
            Some(_) => self.assign(&sorted),
            None => self.assign(
                &sorted.reshape(&self.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?,
            ),
        }
    }

    /// [`ops::argsort`](crate::ops::argsort) of this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[0.5f64, -1.0], &[2])?;
    /// assert_eq!(a.argsort(Some(-1))?.to_vec::<i64>()?, vec![1, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn argsort(&self, axis: Option<isize>) -> Result<Array> {
        argsort(self, axis)
    }
}

/// Every sort program's source (NVRTC compile checks): every sortable dtype in every mode.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for &d in DType::ALL {
        for mode in SortMode::ALL {
            if let Ok(s) = sort_source(d, mode) {
                v.push((format!("sort {} {mode:?}", d.name()), s));
            }
        }
    }
    v
}

/// The element-wise kernel of this file (complex sorts' row gather), for compile checks.
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let k = gather_rows_kernel()?;
    [DType::C64, DType::C128]
        .iter()
        .map(|&d| {
            Ok((
                format!("cuprum_sort_gather_rows {}", d.name()),
                k.generated_source(
                    &[d, DType::I64, DType::I64, d],
                    &[false, false, true, false],
                )?,
            ))
        })
        .collect()
}
