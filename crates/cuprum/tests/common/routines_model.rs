//! Host models of the array routines with NumPy's semantics, written independently of the
//! library: cumulative sums and products (result dtypes, wrapping, a float tolerance per
//! element), stable sorts with NaNs last, unique, nonzero, boolean-mask reads, take / put /
//! add.at with NumPy's index modes, concatenate / stack / split. Pure functions on host
//! values ([`V`], C order), unit-tested in tests/routines.rs without a GPU.

use super::numpy_model::V::{self, B, C, F, I};
use super::numpy_model::{as_c, as_f64, cast_v, eps, is_nan, wrap};
use super::views::{c_strides, unravel};
use cuprum::{DType, DTypeKind};
use std::cmp::Ordering;

/// NumPy's `cumsum` / `cumprod` dtype.
pub fn scan_dtype(d: DType) -> DType {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt => DType::I64,
        DTypeKind::UnsignedInt => DType::U64,
        _ => d,
    }
}

/// The float type the GPU accumulates `d` in (float32 for the 16-bit floats).
fn acc_eps(d: DType) -> f64 {
    match d {
        DType::F16 | DType::BF16 | DType::F32 | DType::C64 => eps(DType::F32),
        _ => eps(DType::F64),
    }
}

/// Positions (C order, in `shape`) of every lane along `axis`: one `Vec` per lane, in order
/// along the axis.
pub fn lanes(shape: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let st = c_strides(shape);
    let len = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for r in 0..inner {
            let base = o * len * inner + r;
            out.push((0..len).map(|k| base + k * st[axis]).collect());
        }
    }
    out
}

/// `cumsum` (or `cumprod` when `prod`) of `vals` (dtype `d`, C order in `shape`) along
/// `axis` (`None`: flattened). Returns every result value in the result dtype and the
/// tolerance to compare it with (0 for integers): the accumulation error bound of a float
/// type plus half an ulp of the result's rounding.
pub fn cum(
    vals: &[V],
    shape: &[usize],
    axis: Option<usize>,
    d: DType,
    prod: bool,
) -> Vec<(V, f64)> {
    let od = scan_dtype(d);
    let (shape, axis): (Vec<usize>, usize) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let mut out = vec![(I(0), 0.0); vals.len()];
    for lane in lanes(&shape, axis) {
        let len = lane.len() as f64;
        match od.kind() {
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                let mut acc: i128 = if prod { 1 } else { 0 };
                for &p in &lane {
                    let x = match cast_v(vals[p], od) {
                        I(i) => i,
                        other => panic!("{other:?}"),
                    };
                    acc = wrap(if prod { acc * x } else { acc + x }, od);
                    out[p] = (I(acc), 0.0);
                }
            }
            _ => {
                let (mut re, mut im) = if prod { (1.0, 0.0) } else { (0.0, 0.0) };
                let mut mag = 0.0f64;
                for &p in &lane {
                    let (xr, xi) = as_c(vals[p]);
                    if prod {
                        (re, im) = (re * xr - im * xi, re * xi + im * xr);
                        mag = (re * re + im * im).sqrt().max(mag);
                    } else {
                        re += xr;
                        im += xi;
                        mag += (xr * xr + xi * xi).sqrt();
                    }
                    let w = if od.is_complex() {
                        cast_v(C(re, im), od)
                    } else {
                        cast_v(F(re), od)
                    };
                    let tol = acc_eps(d) * (len + 4.0) * mag * 4.0 + eps(od) * mag;
                    out[p] = (w, tol);
                }
            }
        }
    }
    out
}

/// NumPy's sort order of two values: NaNs after everything (and equal to each other),
/// -0.0 equal to 0.0; complex numbers are not sorted.
pub fn numpy_cmp(a: V, b: V) -> Ordering {
    match (a, b) {
        (F(x), F(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        },
        (I(x), I(y)) => x.cmp(&y),
        (B(x), B(y)) => x.cmp(&y),
        (x, y) => panic!("not comparable: {x:?} {y:?}"),
    }
}

/// Stable argsort of a sequence.
pub fn argsort1(vals: &[V]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..vals.len()).collect();
    idx.sort_by(|&i, &j| numpy_cmp(vals[i], vals[j]));
    idx
}

/// Stable argsort along `axis` (`None`: flattened), positions within each lane (int64).
pub fn argsort(vals: &[V], shape: &[usize], axis: Option<usize>) -> Vec<i64> {
    let (shape, axis): (Vec<usize>, usize) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let mut out = vec![0i64; vals.len()];
    for lane in lanes(&shape, axis) {
        let lv: Vec<V> = lane.iter().map(|&p| vals[p]).collect();
        for (k, &j) in argsort1(&lv).iter().enumerate() {
            out[lane[k]] = j as i64;
        }
    }
    out
}

/// Sorted values along `axis` (`None`: flattened).
pub fn sort(vals: &[V], shape: &[usize], axis: Option<usize>) -> Vec<V> {
    let (shape2, ax): (Vec<usize>, usize) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let order = argsort(vals, shape, axis);
    let mut out = vals.to_vec();
    for lane in lanes(&shape2, ax) {
        for &p in &lane {
            out[p] = vals[lane[order[p] as usize]];
        }
    }
    out
}

/// Whether two sorted values are the same in NumPy's order (NaN matches NaN, -0.0 0.0).
pub fn same_sorted(g: V, w: V) -> bool {
    match (g, w) {
        (F(x), F(y)) => (x.is_nan() && y.is_nan()) || x == y,
        _ => g == w,
    }
}

/// Sorted unique values (NaNs collapse to one), their counts, and the inverse.
pub fn unique(vals: &[V]) -> (Vec<V>, Vec<i64>, Vec<i64>) {
    let order = argsort1(vals);
    let mut values: Vec<V> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; vals.len()];
    for &i in &order {
        let v = vals[i];
        let same = values
            .last()
            .is_some_and(|&l| numpy_cmp(l, v) == Ordering::Equal);
        if !same {
            values.push(v);
            counts.push(0);
        }
        *counts.last_mut().expect("a value") += 1;
        inverse[i] = values.len() as i64 - 1;
    }
    (values, counts, inverse)
}

/// Whether a value is non-zero (NumPy's truth).
pub fn nonzero_v(v: V) -> bool {
    match v {
        B(b) => b,
        I(i) => i != 0,
        F(f) => f != 0.0,
        C(re, im) => re != 0.0 || im != 0.0,
    }
}

/// `nonzero`: one index list per dimension.
pub fn nonzero(vals: &[V], shape: &[usize]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new(); shape.len()];
    for (p, &v) in vals.iter().enumerate() {
        if nonzero_v(v) {
            for (d, c) in unravel(p, shape).into_iter().enumerate() {
                out[d].push(c as i64);
            }
        }
    }
    out
}

/// `a[mask]` for a mask over the leading `mask_ndim` axes of `shape`: the result shape
/// and values.
pub fn masked(
    vals: &[V],
    shape: &[usize],
    mask: &[bool],
    mask_ndim: usize,
) -> (Vec<usize>, Vec<V>) {
    let inner: usize = shape[mask_ndim..].iter().product();
    let mut out = Vec::new();
    let mut count = 0;
    for (r, &m) in mask.iter().enumerate() {
        if m {
            count += 1;
            out.extend_from_slice(&vals[r * inner..(r + 1) * inner]);
        }
    }
    let mut s = vec![count];
    s.extend_from_slice(&shape[mask_ndim..]);
    (s, out)
}

/// Index modes of the model (NumPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Raise,
    Wrap,
    Clip,
}

/// Applies `mode` to index `k` of an axis of extent `len`; `Err(k)` for a bad one.
pub fn fix_index(k: i64, len: usize, mode: Mode) -> Result<usize, i64> {
    let n = len as i64;
    match mode {
        Mode::Wrap => Ok(k.rem_euclid(n) as usize),
        Mode::Clip => Ok(k.clamp(0, n - 1) as usize),
        Mode::Raise => {
            let j = if k < 0 { k + n } else { k };
            if (0..n).contains(&j) {
                Ok(j as usize)
            } else {
                Err(k)
            }
        }
    }
}

/// `take(a, idx, axis)`: the result shape and values, or the first bad index.
pub fn take(
    vals: &[V],
    shape: &[usize],
    idx: &[i64],
    idx_shape: &[usize],
    axis: Option<usize>,
    mode: Mode,
) -> Result<(Vec<usize>, Vec<V>), i64> {
    let (shape, ax): (Vec<usize>, usize) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let len = shape[ax];
    let outer: usize = shape[..ax].iter().product();
    let inner: usize = shape[ax + 1..].iter().product();
    let mut out_shape = shape[..ax].to_vec();
    out_shape.extend_from_slice(idx_shape);
    out_shape.extend_from_slice(&shape[ax + 1..]);
    let mut out = Vec::new();
    for o in 0..outer {
        for &k in idx {
            let j = fix_index(k, len, mode)?;
            for r in 0..inner {
                out.push(vals[(o * len + j) * inner + r]);
            }
        }
    }
    Ok((out_shape, out))
}

/// `put(a, idx, values, mode)` on the flat values (values repeat); last write wins.
pub fn put(a: &mut [V], idx: &[i64], values: &[V], mode: Mode) -> Result<(), i64> {
    for (j, &k) in idx.iter().enumerate() {
        let p = fix_index(k, a.len(), mode)?;
        a[p] = values[j % values.len()];
    }
    Ok(())
}

/// `add.at(a, idx, values)` along the first axis (`values` already broadcast to
/// `idx.len() × inner`), in dtype `d`; floats sum in f64 (compare with a tolerance).
pub fn scatter_add(
    a: &mut [V],
    shape: &[usize],
    idx: &[i64],
    values: &[V],
    d: DType,
) -> Result<(), i64> {
    let len0 = shape[0];
    let inner: usize = shape[1..].iter().product();
    for (j, &k) in idx.iter().enumerate() {
        let row = fix_index(k, len0, Mode::Raise)?;
        for r in 0..inner {
            let p = row * inner + r;
            let v = values[j * inner + r];
            a[p] = match (a[p], v) {
                (B(x), B(y)) => B(x || y),
                (I(x), I(y)) => I(wrap(x + y, d)),
                (F(x), F(y)) => F(x + y),
                (C(xr, xi), C(yr, yi)) => C(xr + yr, xi + yi),
                (x, y) => panic!("mixed {x:?} {y:?}"),
            };
        }
    }
    Ok(())
}

/// `concatenate` of `(values, shape)` parts along `axis`.
pub fn concatenate(parts: &[(Vec<V>, Vec<usize>)], axis: usize) -> (Vec<usize>, Vec<V>) {
    let mut shape = parts[0].1.clone();
    shape[axis] = parts.iter().map(|p| p.1[axis]).sum();
    let outer: usize = shape[..axis].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for (vals, s) in parts {
            let chunk: usize = s[axis..].iter().product();
            out.extend_from_slice(&vals[o * chunk..(o + 1) * chunk]);
        }
    }
    (shape, out)
}

/// Float-aware equality for gathered values (bit-exact copies: NaN matches NaN).
pub fn same(g: V, w: V) -> bool {
    if is_nan(g) && is_nan(w) {
        return true;
    }
    g == w || (matches!((g, w), (F(_), F(_))) && as_f64(g) == as_f64(w))
}
