//! Order statistics against host models with NumPy's semantics: complex `sort` / `argsort`
//! (NumPy's order of complex numbers and of the NaNs among them), `median`, `quantile` /
//! `percentile` (the `linear` method, result dtypes, NaN rows, `q` scalar / list / array,
//! `keepdims`), `unique_all`, `unique_index` and `unique` along an axis. Random inputs of
//! every dtype in scope with duplicates, NaNs, infinities and signed zeros; 0-d, empty,
//! one-element and multi-tile sizes; views; every error with its message. Some cases are
//! NumPy 2.4's own outputs, written down. The `model_*` tests check the host models and
//! run without a GPU.

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{as_f64, close_v, dev, eps, host, int_range, is_nan, round_float, wrap};
use common::routines_model::numpy_cmp;
use common::{Rng, assert_err, coin};
use cuprum::ops::{self, Keepdims, Quantiles};
use cuprum::{Array, DType, DTypeKind, ErrorKind};
use num_complex::Complex;
use std::cmp::Ordering;

// ---------------------------------------------------------------- host models

/// NumPy's order of complex numbers: real part, then imaginary part; `R + nanj` after
/// every NaN-free value (by real part), then `nan + Rj` (by imaginary part), then
/// `nan + nanj` (all equal); -0.0 equal to 0.0.
fn complex_cmp((ar, ai): (f64, f64), (br, bi): (f64, f64)) -> Ordering {
    let class = |re: f64, im: f64| u8::from(re.is_nan()) * 2 + u8::from(im.is_nan());
    let (ca, cb) = (class(ar, ai), class(br, bi));
    let by = |x: f64, y: f64| x.partial_cmp(&y).unwrap_or(Ordering::Equal);
    ca.cmp(&cb).then(match ca {
        0 => by(ar, br).then(by(ai, bi)),
        1 => by(ar, br),
        2 => by(ai, bi),
        _ => Ordering::Equal,
    })
}

/// NumPy's sort order of any two values of one dtype.
fn cmp(a: V, b: V) -> Ordering {
    match (a, b) {
        (C(ar, ai), C(br, bi)) => complex_cmp((ar, ai), (br, bi)),
        _ => numpy_cmp(a, b),
    }
}

fn argsort1(vals: &[V]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..vals.len()).collect();
    idx.sort_by(|&i, &j| cmp(vals[i], vals[j]));
    idx
}

/// The lanes of `shape` along `axis`: each the flat positions of one lane, lanes in C
/// order of the other axes.
fn lanes(shape: &[usize], axis: usize) -> Vec<Vec<usize>> {
    common::routines_model::lanes(shape, axis)
}

/// Bit-for-bit equality of values, NaN matching NaN in the same part.
fn same(g: V, w: V) -> bool {
    let f = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y;
    match (g, w) {
        (F(x), F(y)) => f(x, y),
        (C(a, b), C(c, d)) => f(a, c) && f(b, d),
        _ => g == w,
    }
}

/// NumPy's median of one lane in f64 (complex: each part), the mean of the middle two.
fn median1(lane: &[V]) -> V {
    let n = lane.len();
    if n == 0 {
        return F(f64::NAN);
    }
    let order = argsort1(lane);
    let last = lane[order[n - 1]];
    if is_nan(last) {
        return last;
    }
    let mid = lane[order[n / 2]];
    if n % 2 == 1 {
        return match mid {
            C(..) => mid,
            _ => F(as_f64(mid)),
        };
    }
    let lo = lane[order[n / 2 - 1]];
    match (lo, mid) {
        (C(a, b), C(c, d)) => C((a + c) / 2.0, (b + d) / 2.0),
        _ => F((as_f64(lo) + as_f64(mid)) / 2.0),
    }
}

/// NumPy's `linear` quantile of one lane (values of dtype `d`, `q` already in `qd`),
/// in f64, with the virtual index rounded to `qd` and the neighbours' difference taken
/// in `d` (integers wrap).
fn quantile1(lane: &[V], d: DType, q: f64, qd: DType) -> f64 {
    let n = lane.len();
    let order = argsort1(lane);
    let s: Vec<V> = order.iter().map(|&k| lane[k]).collect();
    let last = as_f64(s[n - 1]);
    if last.is_nan() {
        return last;
    }
    let n1 = (n - 1) as f64;
    let v = round_float(round_float(n1, qd) * q, qd);
    let (lo, hi, t) = if v >= n1 {
        (n - 1, n - 1, round_float(v + 1.0, qd))
    } else {
        let lo = v.floor() as usize;
        (lo, lo + 1, round_float(v - lo as f64, qd))
    };
    let (a, b) = (s[lo], s[hi]);
    let diff = match (a, b) {
        (I(x), I(y)) => wrap(y - x, d) as f64,
        _ => round_float(as_f64(b) - as_f64(a), d),
    };
    if t >= 0.5 {
        as_f64(b) - diff * (1.0 - t)
    } else {
        as_f64(a) + diff * t
    }
}

/// Unique values with NumPy's rules: (values, first indices, inverse, counts);
/// `equal_nan` collapses every NaN into the first.
fn unique_model(vals: &[V], equal_nan: bool) -> (Vec<V>, Vec<i64>, Vec<i64>, Vec<i64>) {
    let order = argsort1(vals);
    let (mut values, mut first, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    let mut inverse = vec![0i64; vals.len()];
    for &i in &order {
        let v = vals[i];
        let same_as_last = values.last().is_some_and(|&l: &V| {
            if is_nan(l) || is_nan(v) {
                equal_nan && is_nan(l) && is_nan(v)
            } else {
                cmp(l, v) == Ordering::Equal
            }
        });
        if !same_as_last {
            values.push(v);
            first.push(i as i64);
            counts.push(0);
        }
        *counts.last_mut().expect("a value") += 1;
        inverse[i] = values.len() as i64 - 1;
    }
    (values, first, inverse, counts)
}

/// Rows equal element by element with `==` (NaN never equal) and their lexicographic order.
fn row_cmp(a: &[V], b: &[V]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| cmp(x, y))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or(Ordering::Equal)
}

fn rows_equal(a: &[V], b: &[V]) -> bool {
    a.iter()
        .zip(b)
        .all(|(&x, &y)| !is_nan(x) && !is_nan(y) && cmp(x, y) == Ordering::Equal)
}

// ---------------------------------------------------------------- random inputs

/// Random values of `d` with many duplicates (`span` values), floats with NaN, ±inf, ±0
/// one time in `special` (never when 0), complex numbers with NaN or ±0 in either part.
fn rand_vals(rng: &mut Rng, d: DType, n: usize, span: u64, special: usize) -> Vec<V> {
    let pick = |rng: &mut Rng| -> f64 {
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0];
        if special > 0 && rng.usize(0, special) == 0 {
            specials[rng.usize(0, specials.len())]
        } else {
            round_float((rng.next_u64() % span) as f64 * 0.5 - span as f64 / 4.0, d)
        }
    };
    (0..n)
        .map(|_| match d.kind() {
            DTypeKind::Bool => B(coin(rng)),
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                let (lo, hi) = int_range(d);
                I(((rng.next_u64() % span) as i128 + lo.max(-(span as i128) / 2)).clamp(lo, hi))
            }
            DTypeKind::Float => F(pick(rng)),
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => C(pick(rng), pick(rng)),
        })
        .collect()
}

/// Every dtype but complex and bool (what `quantile` takes).
fn real_dtypes() -> Vec<DType> {
    let all: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| !matches!(d.kind(), DTypeKind::Complex | DTypeKind::Bool))
        .collect();
    common::dtypes(&all)
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

fn check_close(got: &[V], want: &[V], tol_of: impl Fn(V) -> f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            close_v(g, w, tol_of(w)),
            "{what}: element {k}: got {g:?}, want {w:?}"
        );
    }
}

// ---------------------------------------------------------------- models (no GPU)

#[test]
fn model_complex_order_is_numpys() {
    // np.sort of these nine values (NumPy 2.4):
    // [-1+5j, -0-1j, 0+0j, 2+0j, 0+nanj, 1+nanj, nan+0j, nan+1j, nan+nanj]
    let nan = f64::NAN;
    let v = [
        (nan, 1.0),
        (1.0, nan),
        (2.0, 0.0),
        (nan, nan),
        (nan, 0.0),
        (0.0, nan),
        (-1.0, 5.0),
        (0.0, 0.0),
        (-0.0, -1.0),
    ];
    let vals: Vec<V> = v.iter().map(|&(a, b)| C(a, b)).collect();
    assert_eq!(argsort1(&vals), vec![6, 8, 7, 2, 5, 1, 4, 0, 3]);
    assert_eq!(complex_cmp((0.0, 1.0), (-0.0, 1.0)), Ordering::Equal);
    assert_eq!(complex_cmp((nan, nan), (nan, nan)), Ordering::Equal);
}

#[test]
fn model_quantile_and_median_match_numpy_cases() {
    // np.quantile(np.array([-100, 100], np.int8), 0.5) == 128.0 (the difference wraps)
    let q = quantile1(&[I(-100), I(100)], DType::I8, 0.5, DType::F64);
    assert_eq!(q, 128.0);
    assert_eq!(
        quantile1(&[I(-100), I(100)], DType::I8, 0.25, DType::F64),
        -114.0
    );
    // np.quantile([3., 1, 2, inf], [0, .5, .9, 1]) == [1, 2.5, nan, nan]
    let v = [F(3.0), F(1.0), F(2.0), F(f64::INFINITY)];
    let got: Vec<f64> = [0.0, 0.5, 0.9, 1.0]
        .iter()
        .map(|&q| quantile1(&v, DType::F64, q, DType::F64))
        .collect();
    assert_eq!(&got[..2], &[1.0, 2.5]);
    assert!(got[2].is_nan() && got[3].is_nan());
    assert_eq!(median1(&[I(1), I(4), I(2), I(3)]), F(2.5));
    assert_eq!(
        median1(&[C(1.0, 2.0), C(3.0, -1.0), C(0.0, 0.0), C(2.0, 2.0)]),
        C(1.5, 2.0)
    );
    let (u, first, inv, counts) = unique_model(
        &[F(2.0), F(1.0), F(2.0), F(f64::NAN), F(1.0), F(f64::NAN)],
        false,
    );
    assert_eq!(
        (u.len(), first, inv, counts),
        (
            4,
            vec![1, 0, 3, 5],
            vec![1, 0, 1, 2, 0, 3],
            vec![2, 2, 1, 1]
        )
    );
    assert!(!rows_equal(&[F(f64::NAN)], &[F(f64::NAN)]));
}

// ---------------------------------------------------------------- complex sort

fn check_sort(x: &Array, vals: &[V], axis: Option<isize>, what: &str) {
    let (shape, ax) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (
            x.shape().to_vec(),
            if a < 0 {
                (a + x.ndim() as isize) as usize
            } else {
                a as usize
            },
        ),
    };
    let s = host(&ops::sort(x, axis).unwrap_or_else(|e| panic!("{what}: {e}")));
    let p = i64s(&ops::argsort(x, axis).unwrap_or_else(|e| panic!("{what}: {e}")));
    for lane in lanes(&shape, ax) {
        let lv: Vec<V> = lane.iter().map(|&k| vals[k]).collect();
        let want = argsort1(&lv);
        for (k, &pos) in lane.iter().enumerate() {
            assert_eq!(p[pos], want[k] as i64, "{what}: argsort at {pos}");
            assert!(
                same(s[pos], lv[want[k]]),
                "{what}: sorted at {pos}: {:?} vs {:?}",
                s[pos],
                lv[want[k]]
            );
        }
    }
}

#[test]
fn complex_sort_and_argsort_in_numpys_order() {
    require_gpu!();
    let mut rng = Rng::new(71);
    for d in common::dtypes(&[DType::C64, DType::C128]) {
        // 3000: several tiles of 16-byte keys (1024) and a tail; few distinct values
        for (n, span, special) in [(0usize, 5u64, 4usize), (1, 5, 0), (37, 5, 3), (3000, 9, 6)] {
            let vals = rand_vals(&mut rng, d, n, span, special);
            let x = dev(&vals, &[n], d);
            check_sort(&x, &vals, None, &format!("{d} n={n}"));
            check_sort(&x, &vals, Some(0), &format!("{d} n={n} axis 0"));
        }
        for (shape, axis) in [
            (vec![5usize, 300], 1isize),
            (vec![40, 7], 0),
            (vec![3, 4, 5], -2),
        ] {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 7, 5);
            check_sort(
                &dev(&vals, &shape, d),
                &vals,
                Some(axis),
                &format!("{d} {shape:?} axis {axis}"),
            );
            // a transposed view of the same values
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let base = dev(&vals, &shape, d).t().copy().unwrap();
            assert_eq!(base.shape(), rev.as_slice());
            check_sort(
                &base.t(),
                &vals,
                Some(axis),
                &format!("{d} {shape:?} view axis {axis}"),
            );
        }
    }
}

#[test]
fn complex64_sort_nans_and_in_place_form() {
    require_gpu!();
    let nan = f32::NAN;
    let c = |a: f32, b: f32| Complex::new(a, b);
    let v = [
        c(nan, 1.0),
        c(1.0, nan),
        c(2.0, 0.0),
        c(nan, nan),
        c(nan, 0.0),
        c(0.0, nan),
        c(-1.0, 5.0),
        c(0.0, 0.0),
        c(-0.0, -1.0),
    ];
    let x = Array::from_slice(&v, &[9]).unwrap();
    assert_eq!(
        i64s(&ops::argsort(&x, None).unwrap()),
        vec![6, 8, 7, 2, 5, 1, 4, 0, 3]
    );
    let s = ops::sort(&x, Some(-1))
        .unwrap()
        .to_vec::<Complex<f32>>()
        .unwrap();
    assert_eq!((s[0], s[1].im, s[3]), (c(-1.0, 5.0), -1.0, c(2.0, 0.0)));
    assert!(
        s[1].re == 0.0 && s[1].re.is_sign_negative(),
        "-0.0 kept: {:?}",
        s[1]
    );
    assert!(s[7].re.is_nan() && s[7].im == 1.0 && s[8].re.is_nan() && s[8].im.is_nan());
    let m = Array::from_slice(
        &[c(3.0, 0.0), c(1.0, 1.0), c(1.0, -1.0), c(0.0, 2.0)],
        &[2, 2],
    )
    .unwrap();
    m.sort(Some(0)).unwrap();
    assert_eq!(
        m.to_vec::<Complex<f32>>().unwrap(),
        vec![c(1.0, -1.0), c(0.0, 2.0), c(3.0, 0.0), c(1.0, 1.0)]
    );
    assert_eq!(i64s(&m.argsort(Some(-1)).unwrap()), vec![1, 0, 1, 0]);
    let z = Array::from_slice(&[c(1.0, 2.0)], &[]).unwrap();
    assert_err(
        ops::sort(&z, Some(0)),
        ErrorKind::Shape,
        "axis 0 is out of bounds",
    );
    assert_eq!(
        ops::sort(&z, None)
            .unwrap()
            .to_vec::<Complex<f32>>()
            .unwrap(),
        vec![c(1.0, 2.0)]
    );
}

// ---------------------------------------------------------------- median

fn check_median(vals: &[V], shape: &[usize], d: DType, axis: Option<isize>, what: &str) {
    let x = dev(vals, shape, d);
    let view = if shape.len() >= 2 {
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        let base = x.t().copy().unwrap();
        assert_eq!(base.shape(), rev.as_slice());
        base.t()
    } else {
        x.clone()
    };
    let want_dt = match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt => DType::F64,
        _ => d,
    };
    let (lane_shape, ax) = match axis {
        None => (vec![vals.len()], 0),
        Some(a) => (
            shape.to_vec(),
            if a < 0 {
                (a + shape.len() as isize) as usize
            } else {
                a as usize
            },
        ),
    };
    let want: Vec<V> = lanes(&lane_shape, ax)
        .iter()
        .map(|lane| {
            let lv: Vec<V> = lane.iter().map(|&k| vals[k]).collect();
            match (median1(&lv), want_dt.is_complex()) {
                (F(f), false) => F(round_float(f, want_dt)),
                (v, _) => v,
            }
        })
        .collect();
    for (input, how) in [(&x, "contiguous"), (&view, "view")] {
        let m = ops::median(input, axis, Keepdims::No).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(m.dtype(), want_dt, "{what}");
        let mut reduced = shape.to_vec();
        match axis {
            None => reduced.clear(),
            Some(_) => {
                reduced.remove(ax);
            }
        }
        assert_eq!(m.shape(), reduced.as_slice(), "{what}");
        let e = 4.0 * eps(want_dt);
        check_close(
            &host(&m),
            &want,
            |w| e * common::numpy_model::magnitude(w).max(1.0),
            &format!("{what} {how}"),
        );
    }
    let k = ops::median(&x, axis, Keepdims::Yes).unwrap();
    let kept: Vec<usize> = match axis {
        None => vec![1; shape.len()],
        Some(_) => shape
            .iter()
            .enumerate()
            .map(|(i, &s)| if i == ax { 1 } else { s })
            .collect(),
    };
    assert_eq!(k.shape(), kept.as_slice(), "{what} keepdims");
}

#[test]
fn median_every_dtype_axis_and_nan_rows() {
    require_gpu!();
    let mut rng = Rng::new(72);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        for (j, (shape, axis)) in [
            (vec![7usize], None),
            (vec![8], Some(0)),
            (vec![1], Some(-1)),
            (vec![6, 9], Some(1)),
            (vec![6, 9], Some(0)),
            (vec![4, 5, 3], Some(1)),
            (vec![4, 5, 3], None),
            (vec![3, 2000], Some(-1)),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 40, 9);
            if !common::sweep_cell(i, j) {
                continue;
            }
            check_median(
                &vals,
                &shape,
                d,
                axis,
                &format!("median {d} {shape:?} axis {axis:?}"),
            );
        }
    }
}

#[test]
fn median_numpy_cases_and_empty_inputs() {
    require_gpu!();
    // np.median(np.array([1, 2, 3, 4], np.float16)) == 2.5; [65504, 65504] adds in float32
    let h = |v: &[f32]| {
        Array::from_slice(
            &v.iter()
                .map(|&x| half::f16::from_f32(x))
                .collect::<Vec<_>>(),
            &[v.len()],
        )
        .unwrap()
    };
    let m = ops::median(&h(&[1.0, 2.0, 3.0, 4.0]), None, Keepdims::No).unwrap();
    assert_eq!(
        (m.dtype(), m.to_vec::<half::f16>().unwrap()[0].to_f32()),
        (DType::F16, 2.5)
    );
    let big = ops::median(&h(&[65504.0, 65504.0]), None, Keepdims::No).unwrap();
    assert_eq!(big.to_vec::<half::f16>().unwrap()[0].to_f32(), 65504.0);
    // float32 adds in float32: np.median(np.float32([3e38, 3e38])) == inf
    let f = Array::from_slice(&[3e38f32, 3e38], &[2]).unwrap();
    assert_eq!(
        ops::median(&f, None, Keepdims::No)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![f32::INFINITY]
    );
    // -inf and inf in the middle: nan; bool: float64
    let g = Array::from_slice(&[f64::NEG_INFINITY, f64::INFINITY], &[2]).unwrap();
    assert!(
        ops::median(&g, None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()[0]
            .is_nan()
    );
    let b = Array::from_slice(&[true, false, true], &[3]).unwrap();
    assert_eq!(
        ops::median(&b, None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![1.0]
    );
    // empty: NaN (NumPy warns "Mean of empty slice"), empty rows give an empty result
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    let m0 = ops::median(&e, Some(0), Keepdims::No).unwrap();
    assert_eq!(m0.shape(), &[3]);
    assert!(m0.to_vec::<f32>().unwrap().iter().all(|x| x.is_nan()));
    assert_eq!(
        ops::median(&e, Some(1), Keepdims::No).unwrap().shape(),
        &[0]
    );
    assert!(
        ops::median(&e, None, Keepdims::No)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()[0]
            .is_nan()
    );
    let s0 = Array::from_slice(&[5i32], &[]).unwrap();
    assert_eq!(
        ops::median(&s0, None, Keepdims::Yes)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![5.0]
    );
    assert_err(
        ops::median(&s0, Some(0), Keepdims::No),
        ErrorKind::Shape,
        "axis 0 is out of bounds for array of dimension 0",
    );
    assert_err(
        ops::median(&e, Some(2), Keepdims::No),
        ErrorKind::Shape,
        "axis 2 is out of bounds for array of dimension 2",
    );
}

/// Every element of `a` as text: NaN equals NaN, -0.0 differs from 0.0.
fn exact(a: &Array) -> String {
    format!("{:?}", host(a))
}

/// One row's median and quantiles (at most four: the radix select) equal, exactly, the
/// same row's through the sort (two copies of the row, reduced along the rows): every
/// dtype the select takes, sizes past several blocks and not multiples of a tile, runs of
/// equal values, one value only, NaNs.
#[test]
fn one_rows_order_statistics_by_select_equal_the_sorts() {
    require_gpu!();
    let mut rng = Rng::new(75);
    let dts: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| d.kind() != DTypeKind::Complex)
        .collect();
    // several blocks of the select's passes (on the host device, 4099 already makes three)
    let sizes = [1usize, 2, 5, 2048, 4099, common::gpu_or_host(70_001, 4100)];
    // (distinct values, one NaN / inf / zero in …)
    let kinds = [(1u64 << 40, 0usize), (5, 0), (1, 0), (1000, 7)];
    for (i, d) in common::dtypes(&dts).into_iter().enumerate() {
        for (j, (&n, &(span, special))) in sizes
            .iter()
            .flat_map(|n| kinds.iter().map(move |k| (n, k)))
            .enumerate()
        {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let vals = rand_vals(&mut rng, d, n, span, special);
            let x = dev(&vals, &[n], d);
            let two = ops::stack(&[&x, &x], 0).unwrap();
            let what = format!("{d} n {n} span {span} special {special}");
            let m = ops::median(&x, None, Keepdims::No).unwrap();
            let m2 = ops::median(&two, Some(1), Keepdims::No).unwrap();
            let m2 = m2.slice(&[cuprum::SliceArg::Index(0)]).unwrap();
            assert_eq!(exact(&m), exact(&m2), "median {what}");
            if d.kind() == DTypeKind::Bool {
                continue;
            }
            let qs = [0.0, 0.3, 0.999, 1.0];
            let q = ops::quantile(&x, &qs, Some(0), Keepdims::Yes).unwrap();
            let q2 = ops::quantile(&two, &qs, Some(1), Keepdims::Yes).unwrap();
            let q2 = q2
                .slice(&[
                    cuprum::SliceArg::Range {
                        start: None,
                        end: None,
                        step: 1,
                    },
                    cuprum::SliceArg::Index(0),
                ])
                .unwrap();
            assert_eq!(q.shape(), &[4, 1], "quantile {what}");
            assert_eq!(exact(&q), exact(&q2), "quantile {what}");
        }
    }
}

// ---------------------------------------------------------------- quantile / percentile

/// One quantile case: `q`, its values, its shape, the virtual index's dtype, whether
/// percentages.
type QCase<'a> = (Quantiles<'a>, Vec<f64>, Vec<usize>, DType, bool);

/// `x` as NumPy's `q` in dtype `qd` (percentages divided by 100 in `qd`).
fn frac(x: f64, qd: DType, percent: bool) -> f64 {
    if !percent {
        return round_float(x, qd);
    }
    match qd {
        DType::F16 | DType::BF16 | DType::F32 => {
            round_float((round_float(x, qd) as f32 / 100.0) as f64, qd)
        }
        _ => x / 100.0,
    }
}

#[test]
fn quantile_and_percentile_every_dtype_q_and_axis() {
    require_gpu!();
    let mut rng = Rng::new(73);
    for (i, d) in real_dtypes().into_iter().enumerate() {
        let float = d.kind() == DTypeKind::Float;
        for (j, (shape, axis)) in [
            (vec![9usize], None),
            (vec![1], Some(0)),
            (vec![5, 7], Some(1)),
            (vec![5, 7], Some(-2)),
            (vec![3, 4, 6], Some(2)),
            (vec![2, 1500], Some(1)),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 60, 11);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let x = dev(&vals, &shape, d);
            let (lane_shape, ax) = match axis {
                None => (vec![n], 0),
                Some(a) => (
                    shape.clone(),
                    if a < 0 {
                        (a + shape.len() as isize) as usize
                    } else {
                        a as usize
                    },
                ),
            };
            let ls = lanes(&lane_shape, ax);
            let mut reduced = shape.clone();
            match axis {
                None => reduced.clear(),
                Some(_) => {
                    reduced.remove(ax);
                }
            }
            let qarr = Array::from_slice(&[0.1f32, 0.5, 1.0, 0.0, 0.77, 0.3], &[2, 3]).unwrap();
            let cases: Vec<QCase<'_>> = vec![
                (
                    Quantiles::Scalar(0.37),
                    vec![0.37],
                    vec![],
                    if float { d } else { DType::F64 },
                    false,
                ),
                (
                    Quantiles::List(&[0.0, 0.25, 0.5, 0.999, 1.0]),
                    vec![0.0, 0.25, 0.5, 0.999, 1.0],
                    vec![5],
                    DType::F64,
                    false,
                ),
                (
                    Quantiles::Array(&qarr),
                    vec![0.1f32 as f64, 0.5, 1.0, 0.0, 0.77f32 as f64, 0.3f32 as f64],
                    vec![2, 3],
                    DType::F32,
                    false,
                ),
                (
                    Quantiles::Scalar(62.5),
                    vec![62.5],
                    vec![],
                    if float { d } else { DType::F64 },
                    true,
                ),
                (
                    Quantiles::List(&[10.0, 90.0]),
                    vec![10.0, 90.0],
                    vec![2],
                    DType::F64,
                    true,
                ),
            ];
            for (q, qs, qshape, qd, pct) in cases {
                let qd = if pct && matches!(q, Quantiles::Array(_)) && float {
                    ops::promote_types(qd, d)
                } else {
                    qd
                };
                let cd = ops::promote_types(d, qd);
                let what = format!(
                    "{} {d} {shape:?} axis {axis:?} q {qs:?}",
                    if pct { "percentile" } else { "quantile" }
                );
                let got = if pct {
                    ops::percentile(&x, q, axis, Keepdims::No)
                } else {
                    ops::quantile(&x, q, axis, Keepdims::No)
                }
                .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(got.dtype(), cd, "{what}");
                let mut want_shape = qshape.clone();
                want_shape.extend_from_slice(&reduced);
                assert_eq!(got.shape(), want_shape.as_slice(), "{what}");
                let mut want = Vec::new();
                for &qv in &qs {
                    let qf = frac(qv, qd, pct);
                    for lane in &ls {
                        let lv: Vec<V> = lane.iter().map(|&k| vals[k]).collect();
                        want.push(F(round_float(quantile1(&lv, d, qf, qd), cd)));
                    }
                }
                let e = 4.0 * eps(cd).max(eps(qd)) + if float { 4.0 * eps(d) } else { 0.0 };
                check_close(&host(&got), &want, |w| e * as_f64(w).abs().max(64.0), &what);
                if qs.len() == 1 && !pct {
                    let k = ops::quantile(&x, q, axis, Keepdims::Yes).unwrap();
                    let kept: Vec<usize> = match axis {
                        None => vec![1; shape.len()],
                        Some(_) => shape
                            .iter()
                            .enumerate()
                            .map(|(i, &s)| if i == ax { 1 } else { s })
                            .collect(),
                    };
                    let mut ks = qshape.clone();
                    ks.extend(kept);
                    assert_eq!(k.shape(), ks.as_slice(), "{what} keepdims");
                }
            }
        }
    }
}

#[test]
fn quantile_numpy_cases() {
    require_gpu!();
    // np.quantile(np.int8([-100, 100]), 0.5) == 128.0 and [0.25] == [-114.]
    let i8s = Array::from_slice(&[100i8, -100], &[2]).unwrap();
    assert_eq!(
        ops::quantile(&i8s, 0.5, None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![128.0]
    );
    assert_eq!(
        ops::quantile(&i8s, &[0.25], None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![-114.0]
    );
    // float16 with a scalar q computes in float16: np.quantile(np.float16([1,2,4,8,16]), 0.33) == 2.64
    let h = Array::from_slice(
        &[1.0f32, 2.0, 4.0, 8.0, 16.0].map(half::f16::from_f32),
        &[5],
    )
    .unwrap();
    let q = ops::quantile(&h, 0.33, None, Keepdims::No).unwrap();
    assert_eq!(q.dtype(), DType::F16);
    assert_eq!(
        q.to_vec::<half::f16>().unwrap()[0],
        half::f16::from_f64(2.64)
    );
    let ql = ops::quantile(&h, &[0.1, 0.33], None, Keepdims::No).unwrap();
    assert_eq!(ql.dtype(), DType::F64);
    let qv = ql.to_vec::<f64>().unwrap();
    assert!(
        (qv[0] - 1.4).abs() < 1e-12 && (qv[1] - 2.64).abs() < 1e-12,
        "{qv:?}"
    );
    // float32 percentile divides in float32: np.percentile(np.arange(10, dtype=f32) * 1.1, 33.3)
    let a: Vec<f32> = (0..10).map(|i| i as f32 * 1.1f32).collect();
    let x = Array::from_slice(&a, &[10]).unwrap();
    let p = ops::percentile(&x, 33.3, None, Keepdims::No)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(p[0], 3.296_700_2_f32);
    let pl = ops::percentile(&x, &[33.3], None, Keepdims::No)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert!((pl[0] - 3.29670019030571).abs() < 1e-12, "{pl:?}");
    // np.quantile([3., 1, 2, inf], [0, .5, .9, 1]) == [1, 2.5, nan, nan]; a NaN row: NaN
    let g = Array::from_slice(&[3.0f64, 1.0, 2.0, f64::INFINITY], &[4]).unwrap();
    let r = ops::quantile(&g, &[0.0, 0.5, 0.9, 1.0], None, Keepdims::No)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(&r[..2], &[1.0, 2.5]);
    assert!(r[2].is_nan() && r[3].is_nan());
    let nanrow = Array::from_slice(&[1.0f32, f32::NAN, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let nr = ops::quantile(&nanrow, 0.0, Some(1), Keepdims::No)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(nr[0].is_nan() && nr[1] == 4.0, "{nr:?}");
    // int64 extremes: the difference wraps as NumPy's does
    let ext = Array::from_slice(&[i64::MAX, i64::MIN], &[2]).unwrap();
    assert_eq!(
        ops::quantile(&ext, 0.5, None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![9.223372036854776e18]
    );
    // 0-d input, rows that are empty along the other axis
    let s0 = Array::from_slice(&[5.0f64], &[]).unwrap();
    assert_eq!(
        ops::quantile(&s0, 0.3, None, Keepdims::No)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![5.0]
    );
    let e = Array::zeros(&[3, 0], DType::F32).unwrap();
    assert_eq!(
        ops::quantile(&e, &[0.5, 0.7], Some(0), Keepdims::No)
            .unwrap()
            .shape(),
        &[2, 0]
    );
}

#[test]
fn quantile_errors() {
    require_gpu!();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    for q in [1.5, -0.01, f64::NAN] {
        assert_err(
            ops::quantile(&x, q, None, Keepdims::No),
            ErrorKind::InvalidArgument,
            "Quantiles must be in the range [0, 1]",
        );
    }
    assert_err(
        ops::quantile(&x, &[0.5, 2.0], None, Keepdims::No),
        ErrorKind::InvalidArgument,
        "Quantiles must be in the range [0, 1]",
    );
    for q in [100.5, -1.0] {
        assert_err(
            ops::percentile(&x, q, None, Keepdims::No),
            ErrorKind::InvalidArgument,
            "Percentiles must be in the range [0, 100]",
        );
    }
    let qa = Array::from_slice(&[50.0f64, 101.0], &[2]).unwrap();
    assert_err(
        ops::percentile(&x, &qa, None, Keepdims::No),
        ErrorKind::InvalidArgument,
        "Percentiles must be in the range [0, 100]",
    );
    let z = Array::from_slice(&[Complex::new(1.0f64, 0.0)], &[1]).unwrap();
    assert_err(
        ops::quantile(&z, 0.5, None, Keepdims::No),
        ErrorKind::DType,
        "a must be an array of real numbers",
    );
    assert_err(
        ops::percentile(&z, 50.0, None, Keepdims::No),
        ErrorKind::DType,
        "a must be an array of real numbers",
    );
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert_err(
        ops::quantile(&b, 0.5, None, Keepdims::No),
        ErrorKind::DType,
        "boolean subtract",
    );
    let zq = Array::from_slice(&[Complex::new(0.5f32, 0.0)], &[1]).unwrap();
    assert_err(
        ops::quantile(&x, &zq, None, Keepdims::No),
        ErrorKind::DType,
        "q must be real",
    );
    let e = Array::zeros(&[0], DType::F64).unwrap();
    assert_err(
        ops::quantile(&e, 0.5, None, Keepdims::No),
        ErrorKind::Shape,
        "index -1 is out of bounds for axis 0 with size 0",
    );
    let e2 = Array::zeros(&[2, 0], DType::I32).unwrap();
    assert_err(
        ops::percentile(&e2, 50.0, Some(1), Keepdims::No),
        ErrorKind::Shape,
        "index -1 is out of bounds",
    );
    assert_err(
        ops::quantile(&x, 0.5, Some(1), Keepdims::No),
        ErrorKind::Shape,
        "axis 1 is out of bounds for array of dimension 1",
    );
    assert_err(
        ops::quantile(&x, 0.5, Some(-2), Keepdims::No),
        ErrorKind::Shape,
        "axis -2 is out of bounds",
    );
}

// ---------------------------------------------------------------- unique_all / index / axis

#[test]
fn unique_all_and_unique_index_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(74);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        for (j, (shape, special)) in [
            (vec![0usize], 0usize),
            (vec![1], 0),
            (vec![13], 3),
            (vec![40, 75], 8),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 12, special);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let x = dev(&vals, &shape, d);
            let what = format!("{d} {shape:?}");
            let (wv, wf, wi, wc) = unique_model(&vals, false);
            let u = ops::unique_all(&x).unwrap_or_else(|e| panic!("{what}: {e}"));
            let gv = host(&u.values);
            assert_eq!(gv.len(), wv.len(), "{what}: values {gv:?} vs {wv:?}");
            // the value at each run start is the first occurrence's, exactly
            for (k, (&g, &f)) in gv.iter().zip(&wf).enumerate() {
                assert!(
                    same(g, vals[f as usize]),
                    "{what}: value {k}: {g:?} vs {:?}",
                    vals[f as usize]
                );
            }
            assert_eq!(i64s(&u.indices), wf, "{what}: indices");
            assert_eq!(i64s(&u.counts), wc, "{what}: counts");
            assert_eq!(u.inverse.shape(), x.shape(), "{what}");
            assert_eq!(i64s(&u.inverse), wi, "{what}: inverse");
            let (nv, nf, _, _) = unique_model(&vals, true);
            let (iv, ii) = ops::unique_index(&x).unwrap();
            assert_eq!(host(&iv).len(), nv.len(), "{what}: unique_index values");
            assert_eq!(i64s(&ii), nf, "{what}: unique_index indices");
        }
    }
    // on a view: a transposed (40, 75) array
    let vals = rand_vals(&mut rng, DType::I16, 3000, 20, 0);
    let base = dev(&vals, &[40, 75], DType::I16).t().copy().unwrap();
    let t_vals = host(&base.t().copy().unwrap());
    let u = ops::unique_all(&base.t()).unwrap();
    assert_eq!(i64s(&u.indices), unique_model(&t_vals, false).1);
}

fn check_unique_axis(vals: &[V], shape: &[usize], d: DType, axis: isize, what: &str) {
    let x = dev(vals, shape, d);
    let nd = shape.len();
    let ax = if axis < 0 {
        (axis + nd as isize) as usize
    } else {
        axis as usize
    };
    // the sub-arrays along `ax`, each in C order of the other axes
    let n = shape[ax];
    let m: usize = shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ax)
        .map(|(_, &s)| s)
        .product();
    let strides: Vec<usize> = (0..nd).map(|i| shape[i + 1..].iter().product()).collect();
    let rows: Vec<Vec<V>> = (0..n)
        .map(|r| {
            (0..m)
                .map(|mut k| {
                    let mut pos = r * strides[ax];
                    for i in (0..nd).rev().filter(|&i| i != ax) {
                        pos += (k % shape[i]) * strides[i];
                        k /= shape[i];
                    }
                    vals[pos]
                })
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| row_cmp(&rows[i], &rows[j]));
    let (mut first, mut counts, mut inverse) = (Vec::new(), Vec::new(), vec![0i64; n]);
    for &i in &order {
        let new = first
            .last()
            .is_none_or(|&f: &usize| !rows_equal(&rows[f], &rows[i]));
        if new {
            first.push(i);
            counts.push(0i64);
        }
        *counts.last_mut().expect("a row") += 1;
        inverse[i] = first.len() as i64 - 1;
    }
    let u = ops::unique_all_axis(&x, axis).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut want_shape = shape.to_vec();
    want_shape[ax] = first.len();
    assert_eq!(u.values.shape(), want_shape.as_slice(), "{what}");
    assert_eq!(
        i64s(&u.indices),
        first.iter().map(|&f| f as i64).collect::<Vec<_>>(),
        "{what}: indices"
    );
    assert_eq!(i64s(&u.counts), counts, "{what}: counts");
    assert_eq!(i64s(&u.inverse), inverse, "{what}: inverse");
    // values: the first occurrences' sub-arrays, taken along the axis
    let idx = Array::from_slice(
        &first.iter().map(|&f| f as i64).collect::<Vec<_>>(),
        &[first.len()],
    )
    .unwrap();
    let want = host(&ops::take(&x, &idx, Some(ax as isize)).unwrap());
    let got = host(&ops::unique_axis(&x, axis).unwrap());
    assert_eq!(got.len(), want.len(), "{what}");
    assert!(
        got.iter().zip(&want).all(|(&g, &w)| same(g, w)),
        "{what}: values {got:?} vs {want:?}"
    );
}

#[test]
fn unique_along_an_axis() {
    require_gpu!();
    let mut rng = Rng::new(75);
    for (i, d) in common::dtypes(&[
        DType::Bool,
        DType::I32,
        DType::U8,
        DType::F32,
        DType::F64,
        DType::C128,
    ])
    .into_iter()
    .enumerate()
    {
        for (j, (shape, axis)) in [
            (vec![30usize, 3], 0isize),
            (vec![3, 30], 1),
            (vec![6, 4, 2], 1),
            (vec![6, 4, 2], -3),
            (vec![5], 0),
            (vec![1, 4], 0),
            (vec![0, 3], 0),
            (vec![3, 0], 0),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 3, 6);
            if !common::sweep_cell(i, j) {
                continue;
            }
            check_unique_axis(
                &vals,
                &shape,
                d,
                axis,
                &format!("{d} {shape:?} axis {axis}"),
            );
        }
    }
    // NumPy: np.unique([[nan, 1], [nan, 1], [0, 1], [-0., 1]], axis=0, return_inverse=True)
    // == ([[0, 1], [nan, 1], [nan, 1]], [1, 2, 0, 0])
    let x = Array::from_slice(
        &[f64::NAN, 1.0, f64::NAN, 1.0, 0.0, 1.0, -0.0, 1.0],
        &[4, 2],
    )
    .unwrap();
    let u = ops::unique_all_axis(&x, 0).unwrap();
    assert_eq!(u.values.shape(), &[3, 2]);
    assert_eq!(i64s(&u.inverse), vec![1, 2, 0, 0]);
    let s0 = Array::from_slice(&[1i32], &[]).unwrap();
    assert_err(
        ops::unique_axis(&s0, 0),
        ErrorKind::Shape,
        "axis 0 is out of bounds for array of dimension 0",
    );
    let m = Array::zeros(&[2, 2], DType::I32).unwrap();
    assert_err(
        ops::unique_axis(&m, 2),
        ErrorKind::Shape,
        "axis 2 is out of bounds for array of dimension 2",
    );
}
