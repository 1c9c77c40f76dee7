//! Searches and counts against host models with NumPy's semantics: `searchsorted` (both
//! sides, `sorter`, promotion), `isin` (and `invert`), `bincount` (weights, `minlength`, few
//! and many bins), `histogram` (equal bins with NumPy's edges, given edges, `range`,
//! `density`), `argwhere`, and `count_nonzero` inside `fuse`. Random inputs of every dtype
//! in scope with NaNs, infinities, signed zeros and duplicates; 0-d, empty, one-element and
//! non-contiguous inputs, sizes around the kernels' block and sample counts; every error
//! with its message. The `model_*` tests check the host models and run without a GPU. The
//! NVRTC compile of the programs for every dtype is in tests/nvrtc.rs (routine samples).

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{dev, host, int_range, round_float};
use common::{Rng, assert_err, coin};
use cuprum::fuse::fuse;
use cuprum::ops::{self, Bins, Keepdims, Side};
use cuprum::{Array, DType, DTypeKind, ErrorKind};

// ---------------------------------------------------------------- host models

/// NumPy's sort order (`lt`): NaNs last; complex numbers lexicographically, NaN parts last
/// (npysort's CFLOAT_LT).
fn lt(a: V, b: V) -> bool {
    let flt = |x: f64, y: f64| x < y || (y.is_nan() && !x.is_nan());
    match (a, b) {
        (F(x), F(y)) => flt(x, y),
        (I(x), I(y)) => x < y,
        (B(x), B(y)) => !x & y,
        (C(ar, ai), C(br, bi)) => {
            if ar < br {
                !ai.is_nan() || bi.is_nan()
            } else if ar > br {
                bi.is_nan() && !ai.is_nan()
            } else if ar == br || (ar.is_nan() && br.is_nan()) {
                ai < bi || (bi.is_nan() && !ai.is_nan())
            } else {
                br.is_nan()
            }
        }
        (x, y) => panic!("not comparable: {x:?} {y:?}"),
    }
}

/// `==` of two values of one kind (NaN equal to nothing, -0.0 to 0.0).
fn eq(a: V, b: V) -> bool {
    match (a, b) {
        (F(x), F(y)) => x == y,
        (C(ar, ai), C(br, bi)) => ar == br && ai == bi,
        _ => a == b,
    }
}

/// NumPy's `searchsorted` of one value in a sorted slice.
fn search(a: &[V], v: V, side: Side) -> i64 {
    a.iter()
        .filter(|&&x| match side {
            Side::Left => lt(x, v),
            Side::Right => !lt(v, x),
        })
        .count() as i64
}

/// `vals` sorted in NumPy's order.
fn sorted(vals: &[V]) -> Vec<V> {
    let mut s = vals.to_vec();
    s.sort_by(|&x, &y| {
        if lt(x, y) {
            std::cmp::Ordering::Less
        } else if lt(y, x) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    s
}

/// Histogram counts over `edges` (the last bin closed; NaNs nowhere).
fn hist_counts(vals: &[f64], edges: &[f64]) -> Vec<i64> {
    let nb = edges.len() - 1;
    let mut c = vec![0i64; nb];
    for &x in vals {
        if x.is_nan() || x < edges[0] || x > edges[nb] {
            continue;
        }
        // the last edge at or below x starts its bin (an empty bin between equal edges is
        // passed over); the last bin is closed, so x == edges[nb] counts in it
        let i = edges
            .partition_point(|&e| e <= x)
            .saturating_sub(1)
            .min(nb - 1);
        c[i] += 1;
    }
    c
}

/// The C-order coordinates of the non-zero values, one row each.
fn argwhere_model(vals: &[V], shape: &[usize]) -> Vec<i64> {
    let mut out = Vec::new();
    for (k, &v) in vals.iter().enumerate() {
        let nz = match v {
            B(b) => b,
            I(i) => i != 0,
            F(f) => f != 0.0,
            C(r, i) => r != 0.0 || i != 0.0,
        };
        if nz {
            let mut rem = k;
            let mut row = vec![0i64; shape.len()];
            for d in (0..shape.len()).rev() {
                row[d] = (rem % shape[d]) as i64;
                rem /= shape[d];
            }
            out.extend(row);
        }
    }
    out
}

#[test]
fn model_search_orders_nans_last_and_closes_the_last_bin() {
    let a = sorted(&[F(f64::NAN), F(2.0), F(-0.0), F(1.0), F(2.0), F(0.0)]);
    assert!(a[5] != a[5]);
    assert_eq!(search(&a, F(2.0), Side::Left), 3);
    assert_eq!(search(&a, F(2.0), Side::Right), 5);
    assert_eq!(search(&a, F(0.0), Side::Left), 0);
    assert_eq!(search(&a, F(f64::NAN), Side::Left), 5);
    assert_eq!(search(&a, F(f64::NAN), Side::Right), 6);
    assert!(lt(C(1.0, 5.0), C(1.0, f64::NAN)));
    assert!(lt(C(1.0, f64::NAN), C(f64::NAN, 0.0)));
    assert!(!lt(C(f64::NAN, 0.0), C(2.0, 0.0)));
    assert!(eq(F(-0.0), F(0.0)) && !eq(F(f64::NAN), F(f64::NAN)));
    assert_eq!(
        hist_counts(&[0.0, 0.5, 1.0, 2.0, 3.0, f64::NAN], &[0.0, 1.0, 2.0]),
        vec![2, 2]
    );
    assert_eq!(
        argwhere_model(&[I(0), I(3), I(4), I(0)], &[2, 2]),
        vec![0, 1, 1, 0]
    );
}

// ---------------------------------------------------------------- random inputs

/// Random values of `d` around 0 (`span` integers; floats with a 1-in-8 chance of NaN,
/// ±inf or a signed zero when `special`), duplicates likely.
fn rand_vals(rng: &mut Rng, d: DType, n: usize, span: u64, special: bool) -> Vec<V> {
    (0..n)
        .map(|_| {
            let k = (rng.next_u64() % span) as f64 - (span / 2) as f64;
            let pick = |rng: &mut Rng| {
                let s = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0];
                s[rng.usize(0, s.len())]
            };
            match d.kind() {
                DTypeKind::Bool => B(coin(rng)),
                DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                    let (lo, hi) = int_range(d);
                    I((k as i128).clamp(lo, hi))
                }
                DTypeKind::Float => {
                    if special && rng.usize(0, 8) == 0 {
                        F(pick(rng))
                    } else {
                        F(round_float(k / 4.0, d))
                    }
                }
                DTypeKind::Record => unreachable!("the record dtype is not numeric"),
                DTypeKind::Complex => {
                    let im = if special && rng.usize(0, 8) == 0 {
                        pick(rng)
                    } else {
                        (rng.next_u64() % 3) as f64
                    };
                    let re = if special && rng.usize(0, 8) == 0 {
                        pick(rng)
                    } else {
                        k / 4.0
                    };
                    C(round_float(re, d), round_float(im, d))
                }
            }
        })
        .collect()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

// ---------------------------------------------------------------- searchsorted

#[test]
fn searchsorted_every_dtype_both_sides_and_shapes() {
    require_gpu!();
    let mut rng = Rng::new(301);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        // around the sample count (1024) and the lockstep block (256 x 4)
        for (j, n) in [0usize, 1, 7, 1024, 1025, 5003].into_iter().enumerate() {
            let a = sorted(&rand_vals(&mut rng, d, n, 300, true));
            // values: hits, misses and specials, of several shapes and layouts
            let mut vals = rand_vals(&mut rng, d, 1100, 320, true);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let dev_a = dev(&a, &[n], d);
            for (k, x) in a.iter().enumerate().take(200) {
                vals[k * 5] = *x;
            }
            let cases: Vec<(Array, Vec<V>)> = vec![
                (dev(&vals[..1], &[], d), vals[..1].to_vec()),
                (dev(&vals[..1], &[1], d), vals[..1].to_vec()),
                (dev(&vals[..1100], &[1100], d), vals[..1100].to_vec()),
                {
                    // a transposed (20, 55) view: C order of the view is the transpose
                    let base = dev(&vals[..1100], &[55, 20], d);
                    let mut t = Vec::new();
                    for i in 0..20 {
                        for j in 0..55 {
                            t.push(vals[j * 20 + i]);
                        }
                    }
                    (base.t(), t)
                },
                (dev(&[], &[0, 3], d), vec![]),
            ];
            for (v, want_vals) in &cases {
                for side in [Side::Left, Side::Right] {
                    let what = format!("{d} n={n} v{:?} {side:?}", v.shape());
                    let got = ops::searchsorted(&dev_a, v, side)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(got.dtype(), DType::I64, "{what}");
                    assert_eq!(got.shape(), v.shape(), "{what}");
                    let want: Vec<i64> = want_vals.iter().map(|&x| search(&a, x, side)).collect();
                    assert_eq!(i64s(&got), want, "{what}");
                }
            }
        }
    }
}

/// Many values (2^20 or more) in a large sorted array (2^22 or more) are searched in sorted
/// order, then put back by position: both sides, duplicates, NaNs and -0.0 among the
/// values, a 2-D value array.
#[test]
fn searchsorted_of_many_values_in_a_large_array() {
    require_gpu!();
    if common::not_on_host("a host model of 4M sorted values and 1M searches takes CI's minutes") {
        return;
    }
    let mut rng = Rng::new(305);
    let (n, m) = ((1 << 22) + 3, (1 << 20) + 6);
    for d in [DType::F32, DType::I64, DType::F16, DType::U8] {
        let a = sorted(&rand_vals(&mut rng, d, n, 1 << 20, true));
        let vals = rand_vals(&mut rng, d, m, 1 << 21, true);
        let dev_a = dev(&a, &[n], d);
        let v = dev(&vals, &[2, m / 2], d);
        for side in [Side::Left, Side::Right] {
            let got = ops::searchsorted(&dev_a, &v, side).unwrap();
            assert_eq!(got.shape(), &[2, m / 2]);
            let want: Vec<i64> = vals
                .iter()
                .map(|&x| match side {
                    Side::Left => a.partition_point(|&y| lt(y, x)) as i64,
                    Side::Right => a.partition_point(|&y| !lt(x, y)) as i64,
                })
                .collect();
            assert_eq!(i64s(&got), want, "{d} {side:?}");
        }
    }
}

#[test]
fn searchsorted_promotes_takes_a_sorter_and_refuses_bad_input() {
    require_gpu!();
    // int32 haystack, float64 needles: compared as float64
    let a = Array::from_slice(&[1i32, 2, 2, 3], &[4]).unwrap();
    let v = Array::from_slice(&[2.5f64, 2.0, -1.0, 1e10], &[4]).unwrap();
    assert_eq!(
        i64s(&ops::searchsorted(&a, &v, Side::Left).unwrap()),
        vec![3, 1, 0, 4]
    );
    assert_eq!(
        i64s(&a.searchsorted(&v, Side::Right).unwrap()),
        vec![3, 3, 0, 4]
    );
    // sorter: an unsorted array and its argsort (negative indices count from the end)
    let mut rng = Rng::new(302);
    let raw = rand_vals(&mut rng, DType::F32, 3000, 500, true);
    let x = dev(&raw, &[3000], DType::F32);
    let order = ops::argsort(&x, Some(0)).unwrap();
    let s = sorted(&raw);
    let q = rand_vals(&mut rng, DType::F32, 777, 520, true);
    let qd = dev(&q, &[777], DType::F32);
    for side in [Side::Left, Side::Right] {
        let got = ops::searchsorted_with(&x, &qd, side, Some(&order)).unwrap();
        let want: Vec<i64> = q.iter().map(|&v| search(&s, v, side)).collect();
        assert_eq!(i64s(&got), want, "sorter {side:?}");
    }
    let neg = ops::subtract(&order, 3000i64).unwrap();
    let got = ops::searchsorted_with(&x, &qd, Side::Left, Some(&neg)).unwrap();
    let want: Vec<i64> = q.iter().map(|&v| search(&s, v, Side::Left)).collect();
    assert_eq!(i64s(&got), want, "negative sorter");
    // empty haystack: every insertion point is 0
    let e = Array::empty(&[0], DType::F64).unwrap();
    assert_eq!(
        i64s(&ops::searchsorted(&e, &v, Side::Right).unwrap()),
        vec![0; 4]
    );
    // errors
    let m = Array::zeros(&[2, 2], DType::F32).unwrap();
    assert_err(
        ops::searchsorted(&m, &v, Side::Left),
        ErrorKind::Shape,
        "object too deep for desired array",
    );
    let z = Array::from_slice(&[1.0f32], &[]).unwrap();
    assert_err(
        ops::searchsorted(&z, &v, Side::Left),
        ErrorKind::Shape,
        "object of too small depth for desired array",
    );
    let short = Array::from_slice(&[0i64, 1], &[2]).unwrap();
    assert_err(
        ops::searchsorted_with(&a, &v, Side::Left, Some(&short)),
        ErrorKind::Shape,
        "sorter.size must equal a.size",
    );
    let bad = Array::from_slice(&[0i64, 1, 2, 4], &[4]).unwrap();
    assert_err(
        ops::searchsorted_with(&a, &v, Side::Left, Some(&bad)),
        ErrorKind::Shape,
        "Sorter index out of range.",
    );
    let fsort = Array::from_slice(&[0.0f32, 1.0, 2.0, 3.0], &[4]).unwrap();
    assert_err(
        ops::searchsorted_with(&a, &v, Side::Left, Some(&fsort)),
        ErrorKind::DType,
        "the sorter must hold integers, got an array of float32",
    );
}

// ---------------------------------------------------------------- isin

#[test]
fn isin_every_dtype_invert_and_edges() {
    require_gpu!();
    let mut rng = Rng::new(303);
    let real: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| !d.is_complex())
        .collect();
    for d in common::dtypes(&real) {
        // sets held in a hash table (up to 2048 elements of 4 bytes or less, 1024 of 8) and
        // sorted and searched (5000)
        for m in [1usize, 9, 1000, 2000, 5000] {
            let test = rand_vals(&mut rng, d, m, 60, true);
            let elems = rand_vals(&mut rng, d, 37 * 29, 80, true);
            let td = dev(&test, &[m], d);
            // the elements as a transposed view
            let base = dev(&elems, &[29, 37], d);
            let view = base.t();
            let mut order = Vec::new();
            for i in 0..37 {
                for j in 0..29 {
                    order.push(elems[j * 37 + i]);
                }
            }
            for invert in [false, true] {
                let what = format!("{d} m={m} invert={invert}");
                let got =
                    ops::isin_with(&view, &td, invert).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(
                    (got.dtype(), got.shape()),
                    (DType::Bool, &[37usize, 29][..])
                );
                let want: Vec<bool> = order
                    .iter()
                    .map(|&x| test.iter().any(|&t| eq(x, t)) != invert)
                    .collect();
                assert_eq!(got.to_vec::<bool>().unwrap(), want, "{what}");
            }
        }
    }
    // many elements over many blocks; the set's first element (the hash table's empty
    // mark) a NaN or -0.0, with 0.0 and NaNs after it
    for d in common::dtypes(&[DType::F32, DType::F64, DType::F16, DType::I32, DType::U8]) {
        let n = common::gpu_or_host(70_001, 9_001);
        let elems = rand_vals(&mut rng, d, n, 300, true);
        let e = dev(&elems, &[n], d);
        for first in [f64::NAN, -0.0, 7.0] {
            let mut test = rand_vals(&mut rng, d, 150, 300, true);
            test[0] = if d.is_float() {
                F(first)
            } else {
                I(first.abs() as i128)
            };
            test.push(if d.is_float() { F(0.0) } else { I(3) });
            let td = dev(&test, &[test.len()], d);
            let got = ops::isin(&e, &td).unwrap().to_vec::<bool>().unwrap();
            let want: Vec<bool> = elems
                .iter()
                .map(|&x| test.iter().any(|&t| eq(x, t)))
                .collect();
            assert_eq!(got, want, "{d} first {first}");
        }
    }
    // promotion: int elements in a float set, a 2-D test set, NaN never found, -0.0 == 0.0
    let e = Array::from_slice(&[1i64, 2, 3, 0], &[4]).unwrap();
    let t = Array::from_slice(&[2.0f32, f32::NAN, 3.5, -0.0], &[2, 2]).unwrap();
    assert_eq!(
        ops::isin(&e, &t).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true, false, true]
    );
    let nan = Array::from_slice(&[f64::NAN], &[]).unwrap();
    assert_eq!(
        ops::isin(&nan, &t).unwrap().to_vec::<bool>().unwrap(),
        vec![false]
    );
    // an empty test set, empty elements
    let none = Array::empty(&[0], DType::I32).unwrap();
    assert_eq!(
        ops::isin_with(&e, &none, true)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true; 4]
    );
    assert_eq!(
        ops::isin(&none, &e).unwrap().shape(),
        &[0],
        "empty elements"
    );
    let c = Array::from_slice(&[num_complex::Complex::new(1.0f32, 0.0)], &[1]).unwrap();
    assert_err(ops::isin(&c, &e), ErrorKind::Unsupported, "complex");
}

// ---------------------------------------------------------------- bincount

#[test]
fn bincount_counts_weights_and_minlength() {
    require_gpu!();
    let mut rng = Rng::new(304);
    let ints: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| (d.is_integer() && *d != DType::U64) || *d == DType::Bool)
        .collect();
    for d in common::dtypes(&ints) {
        let hi = if d == DType::Bool {
            1
        } else {
            int_range(d).1.min(30_000) as u64
        };
        // few bins (contention), a block's worth, many bins (past shared memory for int8+)
        for (n, span) in [(1usize, 3u64), (5000, 3), (4099, 300), (20_011, 20_000)] {
            let span = span.min(hi + 1);
            let vals: Vec<i64> = (0..n).map(|_| (rng.next_u64() % span) as i64).collect();
            let v: Vec<V> = vals
                .iter()
                .map(|&x| {
                    if d == DType::Bool {
                        B(x != 0)
                    } else {
                        I(x as i128)
                    }
                })
                .collect();
            let x = dev(&v, &[n], d);
            let max = vals.iter().copied().max().unwrap_or(0) as usize;
            for minlength in [0usize, max + 5] {
                let what = format!("{d} n={n} span={span} minlength={minlength}");
                let got =
                    ops::bincount(&x, None, minlength).unwrap_or_else(|e| panic!("{what}: {e}"));
                let nb = (max + 1).max(minlength);
                let mut want = vec![0i64; nb];
                for &k in &vals {
                    want[k as usize] += 1;
                }
                assert_eq!(got.dtype(), DType::I64, "{what}");
                assert_eq!(i64s(&got), want, "{what}");
            }
            // weights (float32, converted to float64 sums); exact in binary fractions
            let w: Vec<f32> = (0..n).map(|_| (rng.usize(0, 64) as f32) / 8.0).collect();
            let wd = Array::from_slice(&w, &[n]).unwrap();
            let got = ops::bincount(&x, Some(&wd), 0).unwrap();
            let mut want = vec![0f64; max + 1];
            for (k, &x) in vals.iter().enumerate() {
                want[x as usize] += f64::from(w[k]);
            }
            assert_eq!(got.dtype(), DType::F64);
            assert_eq!(got.to_vec::<f64>().unwrap(), want, "{d} weighted n={n}");
        }
    }
    // a strided view, int64 weights; empty input with minlength
    let base = Array::from_slice(&[0i64, 9, 2, 9, 2, 9, 7, 9], &[8]).unwrap();
    let x = base.slice(&[cuprum::SliceArg::from(..).step(2)]).unwrap();
    assert_eq!(
        i64s(&ops::bincount(&x, None, 0).unwrap()),
        vec![1, 0, 2, 0, 0, 0, 0, 1]
    );
    let wi = Array::from_slice(&[1i64, 2, 3, 4], &[4]).unwrap();
    assert_eq!(
        ops::bincount(&x, Some(&wi), 0)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![1.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 4.0]
    );
    let empty = Array::empty(&[0], DType::I32).unwrap();
    assert_eq!(i64s(&ops::bincount(&empty, None, 3).unwrap()), vec![0; 3]);
    assert_eq!(ops::bincount(&empty, None, 0).unwrap().shape(), &[0]);
}

#[test]
fn bincount_errors() {
    require_gpu!();
    let neg = Array::from_slice(&[3i32, -1, 2], &[3]).unwrap();
    assert_err(
        ops::bincount(&neg, None, 0),
        ErrorKind::InvalidArgument,
        "'list' argument must have no negative elements",
    );
    let m = Array::zeros(&[2, 2], DType::I32).unwrap();
    assert_err(
        ops::bincount(&m, None, 0),
        ErrorKind::Shape,
        "object too deep for desired array",
    );
    let s = Array::from_slice(&[1i32], &[]).unwrap();
    assert_err(
        ops::bincount(&s, None, 0),
        ErrorKind::Shape,
        "object of too small depth",
    );
    let f = Array::from_slice(&[1.0f64], &[1]).unwrap();
    assert_err(
        ops::bincount(&f, None, 0),
        ErrorKind::DType,
        "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'",
    );
    let u = Array::from_slice(&[1u64], &[1]).unwrap();
    assert_err(
        ops::bincount(&u, None, 0),
        ErrorKind::DType,
        "dtype('uint64')",
    );
    let x = Array::from_slice(&[1i32, 2], &[2]).unwrap();
    let w = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    assert_err(
        ops::bincount(&x, Some(&w), 0),
        ErrorKind::Shape,
        "The weights and list don't have the same length",
    );
    let wc = Array::from_slice(&[num_complex::Complex::new(1.0f64, 0.0); 2], &[2]).unwrap();
    assert_err(
        ops::bincount(&x, Some(&wc), 0),
        ErrorKind::DType,
        "dtype('complex128') to dtype('float64')",
    );
}

// ---------------------------------------------------------------- histogram

/// NumPy's equal edges: linspace in float64, then rounded to the bins' dtype.
fn numpy_edges(first: f64, last: f64, nb: usize, d: DType) -> Vec<f64> {
    let (first, last) = if first == last {
        (first - 0.5, last + 0.5)
    } else {
        (first, last)
    };
    let step = (last - first) / nb as f64;
    let mut e: Vec<f64> = (0..=nb).map(|i| i as f64 * step + first).collect();
    e[nb] = last;
    e.into_iter().map(|x| round_float(x, d)).collect()
}

#[test]
fn histogram_equal_bins_of_every_real_dtype() {
    require_gpu!();
    let mut rng = Rng::new(305);
    let real: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| !d.is_complex() && *d != DType::Bool)
        .collect();
    for d in common::dtypes(&real) {
        let bin_dt = if d.is_float() { d } else { DType::F64 };
        for (n, nb) in [(1usize, 1usize), (3001, 10), (20_000, 1000), (1000, 20_000)] {
            let vals = rand_vals(&mut rng, d, n, 400, false);
            let x = dev(&vals, &[n], d);
            let hv = f64s(&x);
            let (lo, hi) = hv
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            for range in [None, Some((-20.0, 33.3))] {
                let what = format!("{d} n={n} bins={nb} range={range:?}");
                let (c, e) = ops::histogram(&x, Bins::Count(nb), range, false)
                    .unwrap_or_else(|err| panic!("{what}: {err}"));
                let (first, last) = range.unwrap_or((lo, hi));
                let want_e = numpy_edges(first, last, nb, bin_dt);
                assert_eq!(e.dtype(), bin_dt, "{what}");
                let got_e = f64s(&e);
                if let Some(k) = (0..=nb).find(|&k| got_e[k] != want_e[k]) {
                    panic!(
                        "{what}: edge {k}: {} made, {} expected",
                        got_e[k], want_e[k]
                    );
                }
                assert_eq!(c.dtype(), DType::I64, "{what}");
                let (got_c, want_c) = (i64s(&c), hist_counts(&hv, &want_e));
                if let Some(k) = (0..nb).find(|&k| got_c[k] != want_c[k]) {
                    panic!(
                        "{what}: bin {k}: {} counted, {} expected",
                        got_c[k], want_c[k]
                    );
                }
            }
        }
        // NaN and infinities: outside every range, refused for an automatic one
        if d.is_float() {
            let x = dev(
                &[F(1.0), F(f64::NAN), F(f64::INFINITY), F(2.0), F(-0.0)],
                &[5],
                d,
            );
            let (c, _) = ops::histogram(&x, Bins::Count(2), Some((0.0, 2.0)), false).unwrap();
            assert_eq!(i64s(&c), vec![1, 2], "{d} specials");
            assert_err(
                ops::histogram(&x, Bins::Count(2), None, false),
                ErrorKind::InvalidArgument,
                "autodetected range of [nan, nan] is not finite",
            );
        }
    }
}

/// One step toward +inf (`up`) or -inf in the float dtype `d` (float32 or float64).
fn ulp_step(x: f64, d: DType, up: bool) -> f64 {
    match (d, up) {
        (DType::F32, true) => f64::from((x as f32).next_up()),
        (DType::F32, false) => f64::from((x as f32).next_down()),
        (_, true) => x.next_up(),
        (_, false) => x.next_down(),
    }
}

/// Equal bins where the guess of an element's bin lands on an edge or beside it: every
/// edge, the values one step on either side of it, values whose spacing is wider than a
/// bin's guess can be trusted with (1e6 in float32: the edges decide every element), and
/// an unaligned view whose counting loop starts and ends off its 16-byte loads. The range
/// found on the device (range=None) and given by the caller count the same.
#[test]
fn histogram_equal_bins_on_and_beside_the_edges() {
    require_gpu!();
    for d in [DType::F32, DType::F64, DType::I32] {
        let bin_dt = if d.is_float() { d } else { DType::F64 };
        for (first, last, nb) in [
            (-3.0, 5.0, 7usize),
            (0.0, 1.0, 1000),
            (1.0e6, 1.0e6 + 1.0, 1000),
            (-2.5, 2500.0, 300),
        ] {
            let what = format!("{d} [{first}, {last}] bins={nb}");
            let edges = numpy_edges(first, last, nb, bin_dt);
            let mut vals: Vec<f64> = if d.is_float() {
                let mut v = Vec::new();
                for &e in &edges {
                    v.push(e);
                    v.push(ulp_step(e, d, false).max(first));
                    v.push(ulp_step(e, d, true).min(last));
                }
                v
            } else {
                (first.ceil() as i64..=last.floor() as i64)
                    .map(|i| i as f64)
                    .collect()
            };
            if !d.is_float() && (vals.first() != Some(&first) || vals.last() != Some(&last)) {
                continue;
            }
            // enough copies for whole 16-byte loads, a ragged end, and one value before the view
            let base = vals.clone();
            while vals.len() < 40_000 {
                vals.extend_from_slice(&base);
            }
            vals.push(base[base.len() / 2]);
            let want = hist_counts(&vals, &edges);
            let mut all = vec![F(base[0])];
            all.extend(
                vals.iter()
                    .map(|&x| if d.is_float() { F(x) } else { I(x as i128) }),
            );
            let whole = dev(&all, &[all.len()], d);
            let x = whole.slice(&cuprum::s![1..]).unwrap();
            for range in [None, Some((first, last))] {
                let (c, e) = ops::histogram(&x, Bins::Count(nb), range, false)
                    .unwrap_or_else(|err| panic!("{what} range={range:?}: {err}"));
                assert_eq!(f64s(&e), edges, "{what} range={range:?}: edges");
                let got = i64s(&c);
                if let Some(k) = (0..nb).find(|&k| got[k] != want[k]) {
                    panic!(
                        "{what} range={range:?}: bin {k}: {} counted, {} expected",
                        got[k], want[k]
                    );
                }
            }
        }
    }
}

#[test]
fn histogram_edges_density_views_and_errors() {
    require_gpu!();
    // given edges: int edges over float data (promoted), equal edges, the last bin closed
    let a = Array::from_slice(&[0.5f32, 1.0, 1.0, 2.0, 3.0, 3.0, 7.0, f32::NAN], &[2, 4]).unwrap();
    let e = Array::from_slice(&[1i64, 2, 2, 3], &[4]).unwrap();
    let (c, edges) = ops::histogram(&a, Bins::Edges(&e), None, false).unwrap();
    assert_eq!(i64s(&c), vec![2, 0, 3]);
    assert_eq!(
        (edges.dtype(), i64s(&edges)),
        (DType::I64, vec![1, 2, 2, 3])
    );
    // random data against random sorted edges, a transposed view
    let mut rng = Rng::new(306);
    for d in [DType::F64, DType::I16, DType::F16] {
        let vals = rand_vals(&mut rng, d, 60 * 70, 300, true);
        let x = dev(&vals, &[60, 70], d).t();
        let ev: Vec<f64> = {
            let mut v: Vec<f64> = (0..50).map(|_| rng.f64(-40.0, 40.0).round()).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let ed = Array::from_slice(&ev, &[50]).unwrap();
        let (c, _) = ops::histogram(&x, Bins::Edges(&ed), None, false).unwrap();
        let hv = f64s(&x);
        assert_eq!(i64s(&c), hist_counts(&hv, &ev), "{d} given edges");
    }
    // density: counts / width / total; a constant input widens its range by 0.5
    let k = Array::from_slice(&[3i32, 3, 3, 4], &[4]).unwrap();
    let (dens, e) = ops::histogram(&k, Bins::Count(2), None, true).unwrap();
    assert_eq!(f64s(&e), vec![3.0, 3.5, 4.0]);
    assert_eq!(dens.to_vec::<f64>().unwrap(), vec![1.5, 0.5]);
    let one = Array::from_slice(&[5u8], &[]).unwrap();
    let (c, e) = ops::histogram(&one, Bins::Count(4), None, false).unwrap();
    assert_eq!(
        (i64s(&c), f64s(&e)),
        (vec![0, 0, 1, 0], vec![4.5, 4.75, 5.0, 5.25, 5.5])
    );
    let empty = Array::empty(&[0], DType::F32).unwrap();
    let (c, e) = ops::histogram(&empty, Bins::Count(2), None, false).unwrap();
    assert_eq!((i64s(&c), f64s(&e)), (vec![0, 0], vec![0.0, 0.5, 1.0]));
    let (dens, _) = ops::histogram(&empty, Bins::Count(2), None, true).unwrap();
    assert!(dens.to_vec::<f64>().unwrap().iter().all(|x| x.is_nan()));
    // errors
    let x = Array::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
    assert_err(
        ops::histogram(&x, Bins::Count(0), None, false),
        ErrorKind::InvalidArgument,
        "`bins` must be positive, when an integer",
    );
    let down = Array::from_slice(&[1.0f64, 0.0], &[2]).unwrap();
    assert_err(
        ops::histogram(&x, Bins::Edges(&down), None, false),
        ErrorKind::InvalidArgument,
        "`bins` must increase monotonically, when an array",
    );
    let flat = Array::zeros(&[2, 2], DType::F64).unwrap();
    assert_err(
        ops::histogram(&x, Bins::Edges(&flat), None, false),
        ErrorKind::Shape,
        "`bins` must be 1d, when an array",
    );
    assert_err(
        ops::histogram(&x, Bins::Count(3), Some((2.0, 1.0)), false),
        ErrorKind::InvalidArgument,
        "max must be larger than min in range parameter",
    );
    assert_err(
        ops::histogram(&x, Bins::Count(3), Some((0.0, f64::INFINITY)), false),
        ErrorKind::InvalidArgument,
        "supplied range of [0.0, inf] is not finite",
    );
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert_err(
        ops::histogram(&b, Bins::Count(2), None, false),
        ErrorKind::DType,
        "numpy boolean subtract",
    );
    let z = Array::from_slice(&[num_complex::Complex::new(1.0f32, 0.0)], &[1]).unwrap();
    assert_err(
        ops::histogram(&z, Bins::Count(2), None, false),
        ErrorKind::Unsupported,
        "complex",
    );
}

// ---------------------------------------------------------------- argwhere, count_nonzero

#[test]
fn argwhere_of_every_dtype_shape_and_layout() {
    require_gpu!();
    let mut rng = Rng::new(307);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        for (j, shape) in [vec![5003usize], vec![3, 5, 7], vec![2, 3, 4, 5]]
            .into_iter()
            .enumerate()
        {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n, 4, false);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let x = dev(&vals, &shape, d);
            let got = ops::argwhere(&x).unwrap();
            let want = argwhere_model(&vals, &shape);
            assert_eq!(got.dtype(), DType::I64);
            assert_eq!(
                got.shape(),
                &[want.len() / shape.len(), shape.len()],
                "{d} {shape:?}"
            );
            assert_eq!(i64s(&got), want, "{d} {shape:?}");
        }
    }
    // a transposed view, 0-d, empty, more than 8 dimensions
    let vals = rand_vals(&mut rng, DType::I32, 6 * 7, 3, false);
    let x = dev(&vals, &[6, 7], DType::I32).t();
    let host_t = host(&x);
    assert_eq!(
        i64s(&ops::argwhere(&x).unwrap()),
        argwhere_model(&host_t, &[7, 6])
    );
    let s = Array::from_slice(&[2.5f32], &[]).unwrap();
    assert_eq!(ops::argwhere(&s).unwrap().shape(), &[1, 0]);
    let s0 = Array::from_slice(&[0.0f32], &[]).unwrap();
    assert_eq!(ops::argwhere(&s0).unwrap().shape(), &[0, 0]);
    let e = Array::empty(&[3, 0], DType::F64).unwrap();
    assert_eq!(ops::argwhere(&e).unwrap().shape(), &[0, 2]);
    let shape9 = [2usize, 1, 2, 1, 2, 1, 2, 1, 2];
    let v9 = rand_vals(&mut rng, DType::U8, 32, 3, false);
    let x9 = dev(&v9, &shape9, DType::U8);
    let got = ops::argwhere(&x9).unwrap();
    assert_eq!(got.shape()[1], 9);
    assert_eq!(i64s(&got), argwhere_model(&v9, &shape9));
}

#[test]
fn count_nonzero_over_axes_in_and_out_of_fuse() {
    require_gpu!();
    let mut rng = Rng::new(308);
    let vals = rand_vals(&mut rng, DType::F32, 4 * 5 * 6, 4, true);
    let x = dev(&vals, &[4, 5, 6], DType::F32);
    let f = fuse("nnz", |[v]| v.count_nonzero_axis(-1, Keepdims::No));
    let g = fuse("nnz_all", |[v]| (v * 2.0).count_nonzero());
    let got = f.call((&x,)).unwrap();
    let want = ops::count_nonzero_axis(&x, -1, Keepdims::No).unwrap();
    assert_eq!((got.dtype(), got.shape()), (DType::I64, &[4usize, 5][..]));
    assert_eq!(i64s(&got), i64s(&want));
    let model: Vec<i64> = vals
        .chunks(6)
        .map(|r| r.iter().filter(|v| !matches!(v, F(z) if *z == 0.0)).count() as i64)
        .collect();
    assert_eq!(i64s(&got), model);
    let all = g.call((&x,)).unwrap();
    assert_eq!(i64s(&all), vec![model.iter().sum::<i64>()]);
    let k = ops::count_nonzero_axis(&x, [0, 2], Keepdims::Yes).unwrap();
    assert_eq!(k.shape(), &[1, 5, 1]);
}
