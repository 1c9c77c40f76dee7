//! NumPy's subscripts in full ([`Index`], [`Array::index`], [`Array::index_put`]): ints,
//! ranges, `...` and new axes mixed with any number of integer and boolean index arrays.
//!
//! Decision: a subscript with index arrays is planned once ([`Plan`]) and then served by
//! the gather that exists (`take`) and one scatter kernel of this module's:
//! - the basic entries make a view, the index arrays' axes kept whole;
//! - a boolean array becomes its `nonzero` coordinates (one index array per axis it covers);
//!   an int beside index arrays is an index array too (a 0-d one, folded into a constant);
//! - the index arrays broadcast together (shape `B`) and one small elementwise kernel per
//!   array folds them into one position over the indexed axes (`Σ k_p · m_p`, negative
//!   indices counted from the end), an out-of-range entry marked by a sentinel that the
//!   gather's or scatter's own index check reports (then the first bad index is looked up
//!   on the host, for NumPy's message naming its axis); a lone int64 index array, the
//!   common `a[idx]` and `a[:, idx] = v`, skips the fold: the gather and the scatter fix
//!   and check its indices against the axis themselves (`Plan::direct`);
//! - reading gathers along the indexed axes merged into one (`take`, which reads a view
//!   where it lies; where the view's strides do not merge, the merged axis is a view too,
//!   stepping one element over the offsets the indexed axes reach, so a transposed or
//!   broadcast view is never copied whole first); writing scatters
//!   with `cuprum_put_block`, which finds each target from the result position and the
//!   folded index, so nothing of the result's size is made but the values (an index
//!   array selecting whole rows of a large array costs its values, not eight bytes per
//!   element); `ufunc.at` (`scatter_at.rs`) scatters to positions in the view's C order.
//!
//! Result shape (NumPy's rule): where the index arrays (and the ints among them) are
//! adjacent, `B` replaces their axes in place; otherwise `B` comes first. Out-of-range
//! indices are an `IndexError` (NumPy), not wrapped (CuPy).

use super::compact::MAX_ND;
use super::indexing::{ErrFlag, INDEX_FIX, IndexMode, idx_type, nonzero, take_with, target_meta};
use super::programs::{PRELUDE, Program, bits_type, blocks_for, fits_u32, program};
use crate::array::{Array, DType, SliceArg};
use crate::error::{Error, ErrorKind, Result, bail, err};
use crate::kernel::{ByValue, DevicePtr, ElementwiseKernel, IntoOperand, Operand};
use crate::shape::{Shape, broadcast_shapes, c_strides_of_valid, format_shape};
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// One entry of a NumPy subscript (`a[i, 1:3, ..., None, idx, mask]`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, SliceArg, ops::Index};
/// let a = Array::from_slice(&(0..12).collect::<Vec<i32>>(), &[3, 4])?;
/// let rows = Array::from_slice(&[2i64, 0], &[2])?;
/// let cols = Array::from_slice(&[1i64, 3], &[2])?;
/// // a[[2, 0], [1, 3]]: one element per pair of indices
/// let pairs = a.index(&[Index::Array(rows.clone()), Index::Array(cols)])?;
/// assert_eq!(pairs.to_vec::<i32>()?, vec![9, 3]);
/// // a[[2, 0], 1:3]: rows 2 and 0, columns 1 and 2
/// let block = a.index(&[Index::Array(rows), Index::Basic(SliceArg::from(1..3))])?;
/// assert_eq!(block.to_vec::<i32>()?, vec![9, 10, 1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub enum Index {
    /// An int, a range or a new axis, as [`Array::slice`] takes them.
    Basic(SliceArg),
    /// `...`: as many whole axes as the other entries leave (at most one per subscript).
    Ellipsis,
    /// An integer array (its values index one axis) or a bool array (a mask of as many
    /// axes as it has dimensions; a 0-d one adds an axis of 1 or 0 elements).
    Array(Array),
}

impl From<SliceArg> for Index {
    fn from(s: SliceArg) -> Index {
        Index::Basic(s)
    }
}

impl From<Array> for Index {
    fn from(a: Array) -> Index {
        Index::Array(a)
    }
}

/// An index of an indexed axis: an array, or an int beside arrays (already checked and
/// counted from the front).
enum Along {
    Array(Array),
    Int(i64),
}

/// An axis of the view indexed by an array.
struct Indexed {
    /// its position in the view
    axis: usize,
    /// its position in the array (for messages)
    source_axis: usize,
    along: Along,
}

/// A subscript with index arrays, planned (module docs).
struct Plan {
    view: Array,
    indexed: Vec<Indexed>,
    /// the index arrays' broadcast shape
    b: Shape,
    /// NumPy's rule: the indexed axes are adjacent (then `B` takes their place)
    adjacent: bool,
}

impl Plan {
    fn first(&self) -> usize {
        self.indexed.first().map_or(0, |i| i.axis)
    }

    fn is_indexed(&self, axis: usize) -> bool {
        self.indexed.iter().any(|i| i.axis == axis)
    }

    /// The view's axes not indexed by arrays, in order.
    fn rest(&self) -> Vec<usize> {
        (0..self.view.ndim())
            .filter(|&d| !self.is_indexed(d))
            .collect()
    }

    /// The result's shape, and where `B` sits in it.
    fn result_shape(&self) -> (Shape, usize) {
        let vs = self.view.shape();
        let at = if self.adjacent { self.first() } else { 0 };
        let mut shape = Shape::new();
        let rest = self.rest();
        let before = rest.iter().filter(|&&d| self.adjacent && d < at).count();
        shape.extend(rest[..before].iter().map(|&d| vs[d]));
        shape.extend_from_slice(&self.b);
        shape.extend(rest[before..].iter().map(|&d| vs[d]));
        (shape, before)
    }

    /// The size of the indexed axes together.
    fn indexed_size(&self) -> usize {
        self.indexed
            .iter()
            .map(|i| self.view.shape()[i.axis])
            .product()
    }

    /// `shift + Σ k_p · mult(p)` over the indexed axes, shape `B` (int64; an out-of-range
    /// index gives a negative sentinel, so every partial sum must stay non-negative). The
    /// ints among the indices add a constant, the start.
    fn positions(&self, mult: impl Fn(usize) -> i64, shift: i64) -> Result<Array> {
        let start: i64 = shift
            + self
                .indexed
                .iter()
                .enumerate()
                .map(|(p, ix)| match ix.along {
                    Along::Int(k) => k * mult(p),
                    Along::Array(_) => 0,
                })
                .sum::<i64>();
        let mut acc: Option<Array> = None;
        for (p, ix) in self.indexed.iter().enumerate() {
            let Along::Array(k) = &ix.along else { continue };
            let n = self.view.shape()[ix.axis] as i64;
            let m = mult(p);
            acc = Some(match &acc {
                Some(f) => fold_kernel()?.call((f, k, n, m))?,
                None => fold_kernel()?.call((start, k, n, m))?,
            });
        }
        let acc = acc.ok_or_else(|| err!(InvalidArgument, "a subscript without index arrays"))?;
        if acc.shape() == self.b.as_slice() {
            Ok(acc)
        } else {
            acc.broadcast_to(&self.b)?.to_contiguous()
        }
    }

    /// The positions of a subscript with one index array and no other indexed axis, for a
    /// consumer that fixes each index itself (negative from the end, out of range
    /// reported) against the axis's extent, as `take` in raise mode and `put_block` do:
    /// the int64 index array as it is, without the fold's pass over it (a gather of 10^7
    /// indices read and wrote 160 MB more through the fold). `None` where the fold is
    /// needed.
    fn direct(&self) -> Result<Option<Array>> {
        let [ix] = self.indexed.as_slice() else {
            return Ok(None);
        };
        match &ix.along {
            Along::Array(k) if k.dtype() == DType::I64 && k.shape() == self.b.as_slice() => {
                Ok(Some(k.to_contiguous()?))
            }
            _ => Ok(None),
        }
    }

    /// The error for the first out-of-range index (NumPy's message), looked up on the
    /// host once a gather or scatter has reported one.
    fn bounds_error(&self, fallback: Error) -> Error {
        for ix in &self.indexed {
            let Along::Array(k) = &ix.along else { continue };
            let n = self.view.shape()[ix.axis] as i64;
            let Ok(values) = k.astype(DType::I64).and_then(|v| v.to_vec::<i64>()) else {
                continue;
            };
            if let Some(bad) = values.iter().find(|&&v| v < -n || v >= n) {
                return err!(
                    Shape,
                    "index {bad} is out of bounds for axis {} with size {n}",
                    ix.source_axis
                );
            }
        }
        fallback
    }
}

/// `y = f + fix(k) · m`, `fix` counting a negative index from the end; an out-of-range one
/// (or an earlier one, `f < 0`) gives the sentinel `i64::MIN`.
fn fold_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "int64 f, K k, int64 n, int64 m",
            "int64 y",
            "long long v = (long long)k; if (v < 0) v += n; \
             y = (f < 0 || v < 0 || v >= n) ? (-9223372036854775807LL - 1) : f + v * m",
            "cuprum_index_fold",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn whole() -> SliceArg {
    SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    }
}

/// How many axes of the array an entry consumes.
fn consumed(e: &Index) -> usize {
    match e {
        Index::Basic(SliceArg::NewAxis | SliceArg::Invalid(_)) | Index::Ellipsis => 0,
        Index::Basic(_) => 1,
        Index::Array(a) if a.dtype() == DType::Bool => a.ndim(),
        Index::Array(_) => 1,
    }
}

/// The entries with `...` replaced by whole ranges (checks NumPy's counts).
fn expand(a: &Array, key: &[Index]) -> Result<Vec<Index>> {
    let used: usize = key.iter().map(consumed).sum();
    let ellipses = key.iter().filter(|e| matches!(e, Index::Ellipsis)).count();
    if ellipses > 1 {
        bail!(Shape, "an index can only have a single ellipsis ('...')");
    }
    if used > a.ndim() {
        bail!(
            Shape,
            "too many indices for array: array is {}-dimensional, but {used} were indexed",
            a.ndim()
        );
    }
    let mut out = Vec::with_capacity(key.len() + a.ndim());
    for e in key {
        match e {
            Index::Ellipsis => {
                out.extend((0..a.ndim() - used).map(|_| Index::Basic(whole())));
            }
            e => out.push(e.clone()),
        }
    }
    Ok(out)
}

/// An int index checked against an axis of extent `n` (counted from the front).
fn checked_int(i: isize, n: usize, axis: usize) -> Result<i64> {
    let k = if i < 0 { i + n as isize } else { i };
    if k < 0 || k as usize >= n {
        bail!(
            Shape,
            "index {i} is out of bounds for axis {axis} with size {n}"
        );
    }
    Ok(k as i64)
}

/// Whether a subscript has index arrays.
fn has_arrays(key: &[Index]) -> bool {
    key.iter().any(|e| matches!(e, Index::Array(_)))
}

/// The plan of a subscript with index arrays (module docs).
fn plan(a: &Array, key: &[Index]) -> Result<Plan> {
    // NumPy's adjacency is of the subscript's entries: `...` between two index arrays
    // parts them even where it stands for no axis
    let advanced: Vec<usize> = key
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Index::Array(_) | Index::Basic(SliceArg::Index(_))))
        .map(|(i, _)| i)
        .collect();
    let adjacent = advanced.windows(2).all(|w| w[1] == w[0] + 1);
    let key = expand(a, key)?;
    let mut args = Vec::with_capacity(key.len());
    let mut indexed = Vec::new();
    let (mut axis, mut source_axis) = (0usize, 0usize);
    for e in key {
        match e {
            Index::Ellipsis => {} // expanded
            Index::Basic(SliceArg::Index(i)) => {
                let n = a.shape()[source_axis];
                let k = checked_int(i, n, source_axis)?;
                args.push(whole());
                indexed.push(Indexed {
                    axis,
                    source_axis,
                    along: Along::Int(k),
                });
                axis += 1;
                source_axis += 1;
            }
            Index::Basic(s @ SliceArg::NewAxis) => {
                args.push(s);
                axis += 1;
            }
            Index::Basic(s) => {
                args.push(s);
                axis += 1;
                source_axis += 1;
            }
            Index::Array(m) if m.dtype() == DType::Bool => {
                if m.ndim() == 0 {
                    // a 0-d mask: a new axis holding the element once (true) or never
                    let count = usize::from(m.to_vec::<bool>()?.first().copied().unwrap_or(false));
                    args.push(SliceArg::NewAxis);
                    indexed.push(Indexed {
                        axis,
                        source_axis,
                        along: Along::Array(Array::zeros(&[count], DType::I64)?),
                    });
                    axis += 1;
                    continue;
                }
                check_mask(a, &m, source_axis)?;
                for k in nonzero(&m)? {
                    args.push(whole());
                    indexed.push(Indexed {
                        axis,
                        source_axis,
                        along: Along::Array(k),
                    });
                    axis += 1;
                    source_axis += 1;
                }
            }
            Index::Array(k) => {
                if !k.dtype().is_integer() {
                    bail!(
                        Shape,
                        "arrays used as indices must be of integer (or boolean) type, got {}",
                        k.dtype()
                    );
                }
                args.push(whole());
                indexed.push(Indexed {
                    axis,
                    source_axis,
                    along: Along::Array(k),
                });
                axis += 1;
                source_axis += 1;
            }
        }
    }
    let view = a.slice(&args)?;
    let shapes: Vec<&[usize]> = indexed
        .iter()
        .filter_map(|i| match &i.along {
            Along::Array(k) => Some(k.shape()),
            Along::Int(_) => None,
        })
        .collect();
    let b = broadcast_shapes(&shapes).map_err(|_| {
        let listed: Vec<String> = shapes.iter().map(|s| format_shape(s)).collect();
        err!(
            Shape,
            "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
            listed.join(" ")
        )
    })?;
    Ok(Plan {
        view,
        indexed,
        b,
        adjacent,
    })
}

/// NumPy's rule for a mask inside a subscript: its shape is that of the axes it covers
/// (an empty mask may have extent 0 where the array has more: it selects nothing).
fn check_mask(a: &Array, m: &Array, from: usize) -> Result<()> {
    for (j, &mm) in m.shape().iter().enumerate() {
        let am = a.shape()[from + j];
        if am != mm && !(mm == 0 && m.size() == 0) {
            bail!(
                Shape,
                "boolean index did not match indexed array along axis {}; size of axis is {am} \
                 but size of corresponding boolean axis is {mm}",
                from + j
            );
        }
    }
    Ok(())
}

/// Whether an error is the index check of a gather or scatter.
fn is_bounds(e: &Error) -> bool {
    e.kind() == ErrorKind::Shape && e.to_string().contains("is out of bounds for axis")
}

/// What a gather with index arrays reads: `array`, whose axis `at` is the indexed axes
/// merged into one, and the position along it of indices `k_q` (`Σ k_q · mult[q] + shift`).
struct Merged {
    array: Array,
    at: usize,
    mult: Vec<i64>,
    shift: i64,
}

/// The view's indexed axes as one (moved to the front first when they are not adjacent):
/// a reshape of the view where its strides allow, with C-order multipliers; else a view of
/// the same memory whose merged axis steps one element over every offset the indexed axes
/// reach (their strides the multipliers), so that a transposed or broadcast view is read
/// where it lies instead of copied whole (a broadcast view can be far larger than memory).
fn merged(p: &Plan) -> Result<Merged> {
    let v = &p.view;
    let n = p.indexed_size() as isize;
    let (src, at) = if p.adjacent {
        (v.clone(), p.first())
    } else {
        let order: Vec<isize> = p
            .indexed
            .iter()
            .map(|i| i.axis)
            .chain(p.rest())
            .map(|d| d as isize)
            .collect();
        (v.permute(&order)?, 0)
    };
    let k = p.indexed.len();
    let c_mult = |array: Array| {
        let mult = (0..k).map(block_mult(p)).collect();
        Ok(Merged {
            array,
            at,
            mult,
            shift: 0,
        })
    };
    if k == 1 {
        return c_mult(src);
    }
    let s = src.shape();
    let mut shape: Vec<isize> = s[..at].iter().map(|&d| d as isize).collect();
    shape.push(n);
    shape.extend(s[at + k..].iter().map(|&d| d as isize));
    if let Ok(view) = src.reshape(&shape) {
        return c_mult(view);
    }
    if src.size() == 0 {
        return c_mult(src.reshape_copy(&shape)?);
    }
    // The offsets (elements, from the view's first element) the indexed axes reach lie in
    // [lo, hi], both reached by an element of the view, so every position of the span is
    // inside the buffer (a gather reads only positions its indices give, each checked).
    let st = src.strides();
    let (mut lo, mut hi) = (0isize, 0isize);
    for q in at..at + k {
        let far = (s[q] as isize - 1) * st[q];
        lo += far.min(0);
        hi += far.max(0);
    }
    let mut vshape = Shape::from_slice(&s[..at]);
    vshape.push((hi - lo + 1) as usize);
    vshape.extend_from_slice(&s[at + k..]);
    let mut vstrides = crate::shape::Strides::from_slice(&st[..at]);
    vstrides.push(1);
    vstrides.extend_from_slice(&st[at + k..]);
    let offset = (src.offset as isize + lo) as usize;
    Ok(Merged {
        array: src.view(vshape, vstrides, offset),
        at,
        mult: st[at..at + k].iter().map(|&x| x as i64).collect(),
        shift: -(lo as i64),
    })
}

/// C-order multipliers of the indexed axes within their merged block.
fn block_mult(p: &Plan) -> impl Fn(usize) -> i64 + '_ {
    move |q| {
        p.indexed[q + 1..]
            .iter()
            .map(|i| p.view.shape()[i.axis] as i64)
            .product()
    }
}

/// The error of a subscript reaching into an empty axis (every index is out of range).
fn empty_axis_error(p: &Plan) -> Error {
    p.bounds_error(err!(
        Shape,
        "index 0 is out of bounds for axis {} with size 0",
        p.indexed.first().map_or(0, |i| i.source_axis)
    ))
}

/// `a[key]` (NumPy's `__getitem__`): a view when the key has no index arrays, else a new
/// array (module docs).
pub(crate) fn index(a: &Array, key: &[Index]) -> Result<Array> {
    if !has_arrays(key) {
        let args = expand(a, key)?
            .into_iter()
            .map(|e| match e {
                Index::Basic(s) => s,
                _ => whole(),
            })
            .collect::<Vec<_>>();
        return a.slice(&args);
    }
    let p = plan(a, key)?;
    let bsize: usize = p.b.iter().product();
    if p.indexed_size() == 0 && bsize > 0 {
        return Err(empty_axis_error(&p));
    }
    let m = merged(&p)?;
    let f = match p.direct()? {
        Some(k) => k,
        None => p.positions(|q| m.mult[q], m.shift)?,
    };
    let r = take_with(&m.array, &f, Some(m.at as isize), IndexMode::Raise)
        .map_err(|e| if is_bounds(&e) { p.bounds_error(e) } else { e })?;
    let (shape, _) = p.result_shape();
    if r.shape() == shape.as_slice() {
        Ok(r)
    } else {
        r.reshape(&shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
    }
}

/// The positions (C order of the view) a subscript with index arrays reaches, shaped as
/// its result, with the plan.
fn target_positions(a: &Array, key: &[Index]) -> Result<(Plan, Array)> {
    let p = plan(a, key)?;
    let (shape, at) = p.result_shape();
    let cs = c_strides_of_valid(p.view.shape());
    let f = p.positions(|q| cs[p.indexed[q].axis] as i64, 0)?;
    // B's place in the result, the other axes of extent 1
    let nb = p.b.len();
    let mut placed: Vec<isize> = vec![1; shape.len()];
    for (j, &d) in p.b.iter().enumerate() {
        placed[at + j] = d as isize;
    }
    let mut pos = f.reshape(&placed)?;
    for (j, d) in p.rest().into_iter().enumerate() {
        let n = p.view.shape()[d];
        let slot = if j < at { j } else { j + nb };
        let mut s = vec![1isize; shape.len()];
        s[slot] = n as isize;
        let step = cs[d] as i128;
        let term =
            Array::arange_int(0, n as i128 * step.max(1), step.max(1), DType::I64)?.reshape(&s)?;
        pos = shift_array_kernel()?.call((&pos, &term))?;
    }
    let pos = if pos.shape() == shape.as_slice() {
        pos
    } else {
        pos.broadcast_to(&shape)?.to_contiguous()?
    };
    Ok((p, pos))
}

/// `y = f + c` where `f` is not the sentinel (broadcasting).
fn shift_array_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "int64 f, int64 c",
            "int64 y",
            "y = f < 0 ? f : f + c",
            "cuprum_index_shift_array",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `v` broadcast to `shape` for an assignment: NumPy also drops leading axes of extent 1
/// that `v` has beyond `shape`'s (`a[...] = v[None]`).
pub(crate) fn fit_value(v: &Array, shape: &[usize]) -> Result<Array> {
    let extra = v.ndim().saturating_sub(shape.len());
    let v = if extra > 0 && v.shape()[..extra].iter().all(|&d| d == 1) {
        let rest: Vec<isize> = v.shape()[extra..].iter().map(|&d| d as isize).collect();
        v.reshape(&rest)?
    } else {
        v.clone()
    };
    v.broadcast_to(shape)
}

/// The values of `a[key] = values` as an array of the selection's shape and `a`'s dtype
/// (NumPy's broadcast); `None` for a scalar, which is written as it is.
fn values_for(values: &Operand<'_>, shape: &[usize], dtype: DType) -> Result<Option<Array>> {
    match values {
        Operand::Array(v) => {
            let b = fit_value(v, shape).map_err(|_| {
                err!(
                    Shape,
                    "shape mismatch: value array of shape {} could not be broadcast to indexing \
                     result of shape {}",
                    format_shape(v.shape()),
                    format_shape(shape)
                )
            })?;
            Ok(Some(if b.dtype() == dtype {
                b
            } else {
                b.astype(dtype)?
            }))
        }
        Operand::Scalar(_) => Ok(None),
        o => Err(o.not_numeric("index assignment")),
    }
}

/// `a[key] = values` (NumPy's `__setitem__`): values broadcast to the selection and are
/// cast to `a`'s dtype; with repeated indices one of the values wins.
pub(crate) fn index_put(a: &Array, key: &[Index], values: Operand<'_>) -> Result<()> {
    a.check_writeable("index assignment")?;
    if !has_arrays(key) {
        let view = index(a, key)?;
        return match values {
            Operand::Scalar(s) => view.fill(s),
            Operand::Array(v) => {
                let v = if v.dtype() == view.dtype() {
                    v.clone()
                } else {
                    v.astype(view.dtype())?
                };
                view.assign(&fit_value(&v, view.shape()).map_err(|_| {
                    err!(
                        Shape,
                        "could not broadcast input array from shape {} into shape {}",
                        format_shape(v.shape()),
                        format_shape(view.shape())
                    )
                })?)
            }
            o => Err(o.not_numeric("index assignment")),
        };
    }
    let p = plan(a, key)?;
    let (shape, _) = p.result_shape();
    let vals = values_for(&values, &shape, a.dtype())?;
    let m: usize = shape.iter().product();
    if m == 0 {
        return Ok(());
    }
    if p.indexed_size() == 0 {
        return Err(empty_axis_error(&p));
    }
    let vals = match (vals, values) {
        (Some(v), _) => v.to_contiguous()?,
        (None, Operand::Scalar(s)) => Array::full(&[1], s.cast(a.dtype())?, a.dtype())?,
        (None, o) => return Err(o.not_numeric("index assignment")),
    };
    let f = match p.direct()? {
        Some(k) => k,
        None => p.positions(block_mult(&p), 0)?,
    };
    put_block(&p, &f, &vals).map_err(|e| if is_bounds(&e) { p.bounds_error(e) } else { e })
}

/// `view[o, f[j], r] = v[q]` for every result position `q = (o, j, r)`: the view with its
/// indexed axes merged (and moved first when not adjacent), `f` the folded indices.
fn put_block(p: &Plan, f: &Array, v: &Array) -> Result<()> {
    let vs = p.view.shape();
    let (target, outer, inner) = if p.adjacent {
        let at = p.first();
        let k = p.indexed.len();
        let outer: usize = vs[..at].iter().product();
        let inner: usize = vs[at + k..].iter().product();
        (p.view.clone(), outer, inner)
    } else {
        let order: Vec<isize> = p
            .indexed
            .iter()
            .map(|i| i.axis)
            .chain(p.rest())
            .map(|d| d as isize)
            .collect();
        let t = p.view.permute(&order)?;
        let inner: usize = p.rest().iter().map(|&d| vs[d]).product();
        (t, 1, inner)
    };
    let len = p.indexed_size();
    if target_meta(target.shape(), target.strides()).0.len() > MAX_ND {
        // more dimensions than the kernel addresses: through a contiguous copy
        let c = target.copy()?;
        put_block_launch(&c, f, v, outer, len, inner)?;
        return target.assign(&c);
    }
    put_block_launch(&target, f, v, outer, len, inner)
}

fn put_block_program(item: usize, wide: bool) -> Arc<Program> {
    let key = format!("put_block|{item}|{}", u8::from(wide));
    program(&key, || put_block_source(item, wide))
}

/// `cuprum_put_block{nd}` for `item`-byte elements, one per target rank.
pub(crate) fn put_block_source(item: usize, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(
        s,
        "typedef {} T;\ntypedef {} I;",
        bits_type(item),
        idx_type(wide)
    );
    s.push_str(INDEX_FIX);
    s.push_str(
        r#"
// a.flat[(o * len + f[j]) * inner + r] = v[q] for q = (o * nb + j) * inner + r: the target
// (an ND-dimensional strided view, its indexed axes one block of `len` positions) found
// from the result position q and the folded index f[j] (a bad one is reported, skipped).
template <int ND>
__device__ __forceinline__ void put_block_nd(T* a, const long long* __restrict__ f, const T* __restrict__ v,
    I m, I nv, long long nb, long long len, long long inner, unsigned long long* __restrict__ err, const Meta& meta) {
  for (I q = (I)blockIdx.x * blockDim.x + threadIdx.x; q < m; q += (I)gridDim.x * blockDim.x) {
    // in I (32 bits unless the sizes need 64): the divisions are the kernel's cost
    const I t = q / (I)inner, r = q - t * (I)inner;
    const I o = t / (I)nb, j = t - o * (I)nb;
    long long k = f[j];
    if (fix_index(k, len, 0, err))
      a[offset_of<ND>(((long long)o * len + k) * inner + (long long)r, meta)] = v[nv == 1 ? 0 : q];
  }
}
"#,
    );
    for nd in 1..=MAX_ND {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__(256) cuprum_put_block{nd}(T* a, const long long* __restrict__ f,\n\
             \x20   const T* __restrict__ v, unsigned long long m, unsigned long long nv, long long nb, long long len, long long inner,\n\
             \x20   unsigned long long* __restrict__ err, Meta meta) {{ put_block_nd<{nd}>(a, f, v, (I)m, (I)nv, nb, len, inner, err, meta); }}"
        );
    }
    s
}

fn put_block_name(nd: usize) -> &'static str {
    const N: [&str; MAX_ND] = [
        "cuprum_put_block1",
        "cuprum_put_block2",
        "cuprum_put_block3",
        "cuprum_put_block4",
        "cuprum_put_block5",
        "cuprum_put_block6",
        "cuprum_put_block7",
        "cuprum_put_block8",
    ];
    N[nd.clamp(1, MAX_ND) - 1]
}

/// Launches `cuprum_put_block` into `target` (at most eight merged dimensions).
fn put_block_launch(
    target: &Array,
    f: &Array,
    v: &Array,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<()> {
    if crate::ops::programs::is_elsewhere(target)? {
        return crate::ops::programs::on_device_of(target, || {
            put_block_launch(target, f, v, outer, len, inner)
        });
    }
    let (ms, meta) = target_meta(target.shape(), target.strides());
    let nb = f.size();
    let m = outer * nb * inner;
    let wide = !fits_u32(m.max(target.size()));
    let prog = put_block_program(target.itemsize(), wide);
    let flag = ErrFlag::new(IndexMode::Raise)?;
    let args = (
        DevicePtr(target.data_ptr()),
        f,
        v,
        m as u64,
        v.size() as u64,
        nb as i64,
        len as i64,
        inner as i64,
        flag.ptr(),
        ByValue(meta),
    );
    prog.launch(put_block_name(ms.len()), blocks_for(m), 256, args)?;
    flag.check(0, len)
}

/// Runs `write(view, positions)` for the in-place operations of ufuncs (`ufunc.at`): the
/// view a subscript reaches and the positions it selects (C order of that view, shaped as
/// the selection); an out-of-range index that `write` reports becomes NumPy's error.
pub(crate) fn scatter_with(
    a: &Array,
    key: &[Index],
    write: impl FnOnce(&Array, &Array) -> Result<()>,
) -> Result<()> {
    if !has_arrays(key) {
        let view = index(a, key)?;
        let shape: Vec<isize> = view.shape().iter().map(|&d| d as isize).collect();
        let pos = Array::arange_int(0, view.size() as i128, 1, DType::I64)?.reshape(&shape)?;
        return write(&view, &pos);
    }
    let (p, pos) = target_positions(a, key)?;
    if pos.size() > 0 && p.indexed_size() == 0 {
        return Err(empty_axis_error(&p));
    }
    write(&p.view, &pos).map_err(|e| if is_bounds(&e) { p.bounds_error(e) } else { e })
}

impl Array {
    /// `self[key]` with NumPy's full subscripts: a view for ints, ranges, `...` and new
    /// axes; a new array when the key holds index arrays ([`Index`]; NumPy's rules for
    /// the result's shape, out-of-range indices an error).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, SliceArg, ops::Index};
    /// let a = Array::from_slice(&(0..24).collect::<Vec<i64>>(), &[2, 3, 4])?;
    /// let i = Array::from_slice(&[0i64, 2], &[2])?;
    /// // a[0, :, [0, 2]]: the int and the array are not adjacent, so B comes first
    /// let r = a.index(&[Index::Basic(SliceArg::Index(0)), Index::Basic(SliceArg::from(..)),
    ///                   Index::Array(i)])?;
    /// assert_eq!(r.shape(), &[2, 3]);
    /// assert_eq!(r.to_vec::<i64>()?, vec![0, 4, 8, 2, 6, 10]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn index(&self, key: &[Index]) -> Result<Array> {
        index(self, key)
    }

    /// `self[key] = values` with NumPy's full subscripts ([`Index`]): `values` (a scalar or
    /// an array) broadcast to the selection and are cast to this array's dtype; where an
    /// index repeats, one of its values is written.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, SliceArg, ops::Index};
    /// let a = Array::zeros(&[3, 3], DType::F32)?;
    /// let i = Array::from_slice(&[0i64, 1, 2], &[3])?;
    /// a.index_put(&[Index::Array(i.clone()), Index::Array(i)], 1.0f32)?; // the diagonal
    /// assert_eq!(a.to_vec::<f32>()?, vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn index_put(&self, key: &[Index], values: impl IntoOperand) -> Result<()> {
        index_put(self, key, values.operand())
    }
}

/// Every block-scatter program's source (NVRTC compile checks).
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    [1, 2, 4, 8, 16]
        .into_iter()
        .flat_map(|item| {
            [false, true].map(|wide| {
                (
                    format!("put_block {item}B{}", if wide { " wide" } else { "" }),
                    put_block_source(item, wide),
                )
            })
        })
        .collect()
}
