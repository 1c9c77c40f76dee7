//! The array routines against host models with NumPy's semantics (tests/common/
//! routines_model.rs): cumsum / cumprod, sort / argsort / unique, boolean-mask reads,
//! nonzero / compress, take / put / scatter_add, concatenate / stack / split. Random inputs
//! of every dtype in scope, views, every axis, empty and 0-d inputs, sizes around the
//! kernels' tile boundaries, and every error. The `model_*` tests check the host models
//! themselves and run without a GPU. The NVRTC compile of every routine program for every
//! dtype is in tests/nvrtc.rs.

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{close_v, dev, dev_exact, host, int_range, round_float, wrap};
use common::routines_model::{self as model, Mode};
use common::{Rng, assert_err, coin, gpu_proptest_runner};
use cuprum::ops::{self, IndexMode};
use cuprum::{Array, DType, DTypeKind, ErrorKind, SliceArg};
use proptest::prelude::*;

// ---------------------------------------------------------------- host models (no GPU)

#[test]
fn model_cumsum_and_cumprod_follow_numpy() {
    let v: Vec<V> = [1, 2, 3, 4, 5, 6].iter().map(|&i| I(i)).collect();
    let flat: Vec<V> = model::cum(&v, &[2, 3], None, DType::I32, false)
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(flat, [1, 3, 6, 10, 15, 21].map(I));
    let ax0: Vec<V> = model::cum(&v, &[2, 3], Some(0), DType::I32, false)
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(ax0, [1, 2, 3, 5, 7, 9].map(I));
    let ax1: Vec<V> = model::cum(&v, &[2, 3], Some(1), DType::I8, true)
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(ax1, [1, 2, 6, 4, 20, 120].map(I));
    // uint64 wraps
    let big = vec![I(u64::MAX as i128), I(2)];
    let w = model::cum(&big, &[2], None, DType::U64, false);
    assert_eq!(w[1].0, I(1));
    assert_eq!(model::scan_dtype(DType::Bool), DType::I64);
    assert_eq!(model::scan_dtype(DType::U8), DType::U64);
    assert_eq!(model::scan_dtype(DType::F16), DType::F16);
    let f = model::cum(&[F(0.5), F(0.25)], &[2], None, DType::F32, false);
    assert_eq!(f[1].0, F(0.75));
    assert!(f[1].1 > 0.0 && f[1].1 < 1e-4);
}

#[test]
fn model_sort_is_stable_with_nans_last() {
    let v = vec![
        F(2.0),
        F(f64::NAN),
        F(-0.0),
        F(1.0),
        F(0.0),
        F(f64::NAN),
        F(-1.0),
    ];
    assert_eq!(model::argsort1(&v), vec![6, 2, 4, 3, 0, 1, 5]);
    let s = model::sort(&v, &[7], None);
    assert!(model::same_sorted(s[0], F(-1.0)));
    assert!(model::same_sorted(s[6], F(f64::NAN)));
    let m = vec![I(3), I(1), I(2), I(0)];
    assert_eq!(model::argsort(&m, &[2, 2], Some(1)), vec![1, 0, 1, 0]);
    assert_eq!(model::argsort(&m, &[2, 2], Some(0)), vec![1, 1, 0, 0]);
    assert_eq!(
        model::sort(&m, &[2, 2], Some(0)),
        vec![I(2), I(0), I(3), I(1)]
    );
}

#[test]
fn model_unique_collapses_nans_and_zeros() {
    let v = vec![F(1.0), F(f64::NAN), F(-0.0), F(0.0), F(f64::NAN), F(1.0)];
    let (u, c, inv) = model::unique(&v);
    assert_eq!(u.len(), 3);
    assert_eq!(c, vec![2, 2, 2]);
    assert_eq!(inv, vec![1, 2, 0, 0, 2, 1]);
}

#[test]
fn model_nonzero_masks_and_takes() {
    let v = vec![I(0), I(5), I(0), I(7)];
    assert_eq!(model::nonzero(&v, &[2, 2]), vec![vec![0, 1], vec![1, 1]]);
    let (sh, m) = model::masked(&v, &[2, 2], &[false, true], 1);
    assert_eq!((sh, m), (vec![1, 2], vec![I(0), I(7)]));
    let (sh, m) = model::masked(&v, &[2, 2], &[true, false, false, true], 2);
    assert_eq!((sh, m), (vec![2], vec![I(0), I(7)]));
    assert_eq!(model::fix_index(-1, 3, Mode::Raise), Ok(2));
    assert_eq!(model::fix_index(3, 3, Mode::Raise), Err(3));
    assert_eq!(model::fix_index(-4, 3, Mode::Wrap), Ok(2));
    assert_eq!(model::fix_index(-4, 3, Mode::Clip), Ok(0));
    let t = model::take(&v, &[2, 2], &[1, 0, 1], &[3], Some(1), Mode::Raise).unwrap();
    assert_eq!(t.0, vec![2, 3]);
    assert_eq!(t.1, [5, 0, 5, 7, 0, 7].map(I));
    assert_eq!(
        model::take(&v, &[2, 2], &[9], &[1], None, Mode::Raise),
        Err(9)
    );
    let mut a = vec![I(0); 4];
    model::put(&mut a, &[1, -1], &[I(9)], Mode::Raise).unwrap();
    assert_eq!(a, [0, 9, 0, 9].map(I));
    let mut z = vec![F(0.0); 4];
    model::scatter_add(&mut z, &[2, 2], &[1, 1, 0], &[F(1.0); 6], DType::F32).unwrap();
    assert_eq!(z, [1.0, 1.0, 2.0, 2.0].map(F));
    let (sh, c) = model::concatenate(
        &[
            (vec![I(1), I(2)], vec![2, 1]),
            (vec![I(3), I(4), I(5), I(6)], vec![2, 2]),
        ],
        1,
    );
    assert_eq!((sh, c), (vec![2, 3], [1, 3, 4, 2, 5, 6].map(I).to_vec()));
}

// ---------------------------------------------------------------- random inputs, views

/// Every dtype the sorts take (the representatives of them on the host device:
/// [`common::dtypes`]).
fn sortable() -> Vec<DType> {
    let all: Vec<DType> = DType::ALL
        .iter()
        .copied()
        .filter(|d| !d.is_complex())
        .collect();
    common::dtypes(&all)
}

/// Random values of `d`: integers over `span` values around 0 (or the whole range when
/// `span` is 0), floats in ±100 with NaNs, infinities and signed zeros when `special`.
fn rand_vals(rng: &mut Rng, d: DType, n: usize, span: u64, special: bool) -> Vec<V> {
    (0..n)
        .map(|_| match d.kind() {
            DTypeKind::Bool => B(coin(rng)),
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                let (lo, hi) = int_range(d);
                let x = if span == 0 {
                    wrap(rng.next_u64() as i128, d)
                } else {
                    (rng.next_u64() % span) as i128 - (span / 2) as i128
                };
                I(x.clamp(lo, hi))
            }
            DTypeKind::Float => {
                if special && rng.usize(0, 10) == 0 {
                    let pick = [
                        f64::NAN,
                        -f64::NAN,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        0.0,
                        -0.0,
                    ];
                    F(pick[rng.usize(0, pick.len())])
                } else if span > 0 {
                    F(round_float(
                        (rng.next_u64() % span) as f64 - (span / 2) as f64,
                        d,
                    ))
                } else {
                    F(round_float(rng.f64(-100.0, 100.0), d))
                }
            }
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => C(
                round_float(rng.f64(-10.0, 10.0), d),
                round_float(rng.f64(-10.0, 10.0), d),
            ),
        })
        .collect()
}

/// Layouts a test input comes in: contiguous, transposed, every other element of the last
/// axis, reversed along every axis, offset by one row.
#[derive(Debug, Clone, Copy)]
enum Layout {
    Contiguous,
    Transposed,
    Strided,
    Reversed,
}

const LAYOUTS: [Layout; 4] = [
    Layout::Contiguous,
    Layout::Transposed,
    Layout::Strided,
    Layout::Reversed,
];

/// A device view of exactly `shape` and dtype `d` in `layout`, holding `vals` in C order.
fn view_of(vals: &[V], shape: &[usize], d: DType, layout: Layout) -> Array {
    let nd = shape.len();
    match layout {
        Layout::Contiguous => dev(vals, shape, d),
        Layout::Transposed => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let base = dev(vals, shape, d).t().copy().unwrap();
            let v = base.t();
            assert_eq!(v.shape(), shape);
            assert_eq!(base.shape(), rev.as_slice());
            v
        }
        Layout::Strided => {
            if nd == 0 {
                return dev(vals, shape, d);
            }
            let mut bshape = shape.to_vec();
            bshape[nd - 1] = 2 * shape[nd - 1] + 1;
            let base = Array::zeros(&bshape, d).unwrap();
            let mut args: Vec<SliceArg> = vec![SliceArg::from(..); nd - 1];
            args.push(SliceArg::Range {
                start: Some(1),
                end: None,
                step: 2,
            });
            let v = base.slice(&args).unwrap();
            assert_eq!(v.shape(), shape);
            v.assign(&dev(vals, shape, d)).unwrap();
            v
        }
        Layout::Reversed => {
            let base = Array::zeros(shape, d).unwrap();
            let args: Vec<SliceArg> = vec![SliceArg::from(..).step(-1); nd];
            let v = base.slice(&args).unwrap();
            v.assign(&dev(vals, shape, d)).unwrap();
            v
        }
    }
}

/// Checks a float-aware element-wise match, naming the first difference.
fn assert_close(got: &[V], want: &[(V, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, (w, tol))) in got.iter().zip(want).enumerate() {
        assert!(
            close_v(*g, *w, *tol),
            "{what}: element {k}: got {g:?}, want {w:?} (tolerance {tol:e})"
        );
    }
}

fn assert_same(got: &[V], want: &[V], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            model::same(*g, *w),
            "{what}: element {k}: got {g:?}, want {w:?}"
        );
    }
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

fn mode_of(m: IndexMode) -> Mode {
    match m {
        IndexMode::Raise => Mode::Raise,
        IndexMode::Wrap => Mode::Wrap,
        IndexMode::Clip => Mode::Clip,
    }
}

// ---------------------------------------------------------------- cumsum / cumprod

/// Values for cumulative products that neither overflow nor vanish: integers in [-2, 2],
/// floats near 1, complex numbers near the unit circle.
fn prod_vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    (0..n)
        .map(|_| match d.kind() {
            DTypeKind::Bool => B(rng.usize(0, 8) != 0),
            DTypeKind::SignedInt => I(rng.usize(0, 5) as i128 - 2),
            DTypeKind::UnsignedInt => I(rng.usize(0, 3) as i128),
            DTypeKind::Float => F(round_float(rng.f64(0.97, 1.03), d)),
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => {
                let t = rng.f64(0.0, std::f64::consts::TAU);
                let r = rng.f64(0.98, 1.02);
                C(round_float(r * t.cos(), d), round_float(r * t.sin(), d))
            }
        })
        .collect()
}

fn check_cum(x: &Array, vals: &[V], axis: Option<isize>, prod: bool, what: &str) {
    let d = x.dtype();
    let got = if prod {
        ops::cumprod(x, axis)
    } else {
        ops::cumsum(x, axis)
    }
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.dtype(), model::scan_dtype(d), "{what}: dtype");
    let ax = axis.map(|a| {
        if a < 0 {
            (a + x.ndim() as isize) as usize
        } else {
            a as usize
        }
    });
    let want_shape: Vec<usize> = match ax {
        None => vec![x.size()],
        Some(_) => x.shape().to_vec(),
    };
    assert_eq!(got.shape(), want_shape.as_slice(), "{what}: shape");
    let want = model::cum(vals, x.shape(), ax, d, prod);
    assert_close(&host(&got), &want, what);
}

#[test]
fn cumsum_of_every_dtype_over_every_axis() {
    require_gpu!();
    let mut rng = Rng::new(11);
    for d in common::dtypes(DType::ALL) {
        let shape = [3usize, 2500];
        let vals = rand_vals(&mut rng, d, 7500, 200, false);
        let x = dev_exact(&vals, &shape, d);
        for axis in [None, Some(0), Some(1), Some(-1)] {
            check_cum(&x, &vals, axis, false, &format!("cumsum {d} axis {axis:?}"));
        }
        // the leading axis over several tiles along it, a partial block of columns
        let shape = [301usize, 40];
        let vals = rand_vals(&mut rng, d, 301 * 40, 200, false);
        let x = dev_exact(&vals, &shape, d);
        check_cum(
            &x,
            &vals,
            Some(0),
            false,
            &format!("cumsum {d} {shape:?} axis 0"),
        );
    }
}

#[test]
fn cumprod_of_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(12);
    for d in common::dtypes(DType::ALL) {
        let shape = [4usize, 300];
        let vals = prod_vals(&mut rng, d, 1200);
        let x = dev(&vals, &shape, d);
        for axis in [None, Some(1), Some(0)] {
            check_cum(&x, &vals, axis, true, &format!("cumprod {d} axis {axis:?}"));
        }
    }
}

#[test]
fn cumsum_over_many_tiles_is_exact_for_integers() {
    require_gpu!();
    let mut rng = Rng::new(13);
    // 10M elements: ~2400 tiles, so every look-back window shape occurs.
    let n = 10_000_000;
    let host_vals: Vec<i32> = (0..n).map(|_| rng.usize(0, 2001) as i32 - 1000).collect();
    let x = Array::from_slice(&host_vals, &[n]).unwrap();
    let got = ops::cumsum(&x, None).unwrap().to_vec::<i64>().unwrap();
    let mut acc = 0i64;
    for (k, &v) in host_vals.iter().enumerate() {
        acc += v as i64;
        assert_eq!(got[k], acc, "element {k}");
    }
    // float32 at the benchmark's shape class: within the accumulation bound
    let f: Vec<f32> = (0..n).map(|_| rng.f64(0.0, 1.0) as f32).collect();
    let xf = Array::from_slice(&f, &[n]).unwrap();
    let gf = ops::cumsum(&xf, Some(0)).unwrap().to_vec::<f32>().unwrap();
    let mut s = 0f64;
    for (k, &v) in f.iter().enumerate() {
        s += v as f64;
        if k % 9973 == 0 || k == n - 1 {
            let tol = s * 5e-4 + 1e-3;
            assert!(
                (gf[k] as f64 - s).abs() <= tol,
                "element {k}: {} vs {s}",
                gf[k]
            );
        }
    }
}

#[test]
fn cumsum_of_rows_long_short_and_columns() {
    require_gpu!();
    let mut rng = Rng::new(14);
    for (shape, axis) in [
        (vec![37usize, 10007], 1isize), // long rows: segments across tiles
        (vec![60000, 7], 1),            // short rows: many segments per tile
        (vec![100000, 1], 1),           // rows of one
        (vec![3000, 5], 0),             // few columns: moved last
        (vec![100, 20000], 0),          // many columns: the column kernel
        (vec![4, 33, 129], 1),          // a middle axis
        (vec![1000, 37], 0),            // many tiles along the axis, 37 columns
        (vec![3, 700, 45], 1),          // column blocks across the outer index
        (vec![2049, 64], 0),            // one past a tile boundary
        (vec![5, 4096, 33], 1),
        (vec![2, 3, 4], 2),
    ] {
        let n: usize = shape.iter().product();
        let vals = rand_vals(&mut rng, DType::I32, n, 2000, false);
        let x = dev_exact(&vals, &shape, DType::I32);
        check_cum(
            &x,
            &vals,
            Some(axis),
            false,
            &format!("cumsum {shape:?} axis {axis}"),
        );
    }
}

#[test]
fn cumsum_and_cumprod_of_many_long_rows() {
    require_gpu!();
    let mut rng = Rng::new(19);
    // 520 rows of 1030 (not a multiple of 4: scalar loads for 4-byte inputs, vector loads
    // for 8-byte ones) and 512 rows of 1024: a block per row, several chunks a row. On the
    // host device 130 and 128 rows: still the rows kernel (128 rows or more), a quarter of
    // the fibers.
    let rows = |r: usize| if common::on_host() { r / 4 } else { r };
    for (i, shape) in [[rows(520), 1030], [rows(512), 1024]]
        .into_iter()
        .enumerate()
    {
        let n = shape[0] * shape[1];
        for (j, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let vals = rand_vals(&mut rng, d, n, 200, false);
            let x = dev_exact(&vals, &shape, d);
            check_cum(
                &x,
                &vals,
                Some(1),
                false,
                &format!("cumsum {d} {shape:?} axis 1"),
            );
        }
        for (j, d) in common::dtypes(&[DType::F32, DType::F64, DType::I32, DType::C64])
            .into_iter()
            .enumerate()
        {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let vals = prod_vals(&mut rng, d, n);
            let x = dev(&vals, &shape, d);
            check_cum(
                &x,
                &vals,
                Some(-1),
                true,
                &format!("cumprod {d} {shape:?} axis -1"),
            );
        }
    }
    // a non-contiguous view (every other column) of 600 rows (150 on the host device)
    let r = rows(600);
    let vals = rand_vals(&mut rng, DType::I32, r * 4100, 2000, false);
    let x = dev_exact(&vals, &[r, 4100], DType::I32);
    let v = x
        .slice(&[SliceArg::from(..), SliceArg::from(..).step(2)])
        .unwrap();
    let sub: Vec<V> = (0..r * 2050)
        .map(|k| vals[(k / 2050) * 4100 + 2 * (k % 2050)])
        .collect();
    check_cum(&v, &sub, Some(1), false, "cumsum of a strided view's rows");
}

#[test]
fn cumsum_edge_shapes_and_errors() {
    require_gpu!();
    let mut rng = Rng::new(15);
    for n in [
        0usize,
        1,
        2,
        31,
        32,
        33,
        4095,
        4096,
        4097,
        8191,
        8193,
        2 * 4096 * 32 + 1,
    ] {
        let vals = rand_vals(&mut rng, DType::F32, n, 0, false);
        let x = dev(&vals, &[n], DType::F32);
        check_cum(&x, &vals, None, false, &format!("cumsum f32 n={n}"));
        let v8 = rand_vals(&mut rng, DType::U8, n, 0, false);
        let x8 = dev_exact(&v8, &[n], DType::U8);
        check_cum(&x8, &v8, Some(0), false, &format!("cumsum u8 n={n}"));
    }
    // 0-d: axis None gives (1,); an axis is an error
    let z = Array::from_slice(&[2.5f64], &[]).unwrap();
    let c = ops::cumsum(&z, None).unwrap();
    assert_eq!(
        (c.shape(), c.to_vec::<f64>().unwrap()),
        (&[1usize][..], vec![2.5])
    );
    assert_err(
        ops::cumsum(&z, Some(0)),
        ErrorKind::Shape,
        "axis 0 is out of bounds for array of dimension 0",
    );
    let m = Array::zeros(&[2, 3], DType::F32).unwrap();
    assert_err(
        ops::cumprod(&m, Some(2)),
        ErrorKind::Shape,
        "axis 2 is out of bounds for array of dimension 2",
    );
    let e = ops::cumsum(&Array::zeros(&[0, 3], DType::I8).unwrap(), Some(1)).unwrap();
    assert_eq!((e.shape(), e.dtype()), (&[0usize, 3][..], DType::I64));
    // the method form
    let b = Array::from_slice(&[true, true, false, true], &[4]).unwrap();
    assert_eq!(i64s(&b.cumsum(None).unwrap()), vec![1, 2, 2, 3]);
}

#[test]
fn cumsum_and_cumprod_property() {
    require_gpu!();
    let dtypes = [
        DType::F32,
        DType::I32,
        DType::U8,
        DType::F64,
        DType::Bool,
        DType::C64,
        DType::I64,
    ];
    let dims = [0usize, 1, 2, 3, 5, 31, 33, 127, 1025, 4097];
    let strategy = (
        0usize..dtypes.len(),
        prop::collection::vec(0usize..dims.len(), 0..4),
        0usize..5,
        0usize..4,
        any::<bool>(),
        any::<u64>(),
    );
    gpu_proptest_runner(40)
        .run(&strategy, |(di, dix, axis_pick, layout, prod, seed)| {
            let d = dtypes[di];
            let shape: Vec<usize> = dix.iter().map(|&k| dims[k]).collect();
            let n: usize = shape.iter().product();
            prop_assume!(n <= 300_000);
            let mut rng = Rng::new(seed);
            let vals = if prod {
                prod_vals(&mut rng, d, n)
            } else {
                rand_vals(&mut rng, d, n, 100, false)
            };
            let x = view_of(&vals, &shape, d, LAYOUTS[layout]);
            let axis = if axis_pick == 0 || shape.is_empty() {
                None
            } else {
                Some(
                    (axis_pick % shape.len()) as isize
                        - if coin(&mut rng) {
                            shape.len() as isize
                        } else {
                            0
                        },
                )
            };
            check_cum(
                &x,
                &vals,
                axis,
                prod,
                &format!(
                    "{d} {shape:?} {:?} axis {axis:?} prod {prod}",
                    LAYOUTS[layout]
                ),
            );
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------- sort / argsort / unique

fn check_sort(x: &Array, vals: &[V], axis: Option<isize>, what: &str) {
    let ax = axis.map(|a| {
        if a < 0 {
            (a + x.ndim() as isize) as usize
        } else {
            a as usize
        }
    });
    let s = ops::sort(x, axis).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(s.dtype(), x.dtype(), "{what}");
    let want = model::sort(vals, x.shape(), ax);
    let got = host(&s);
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            model::same_sorted(*g, *w),
            "{what}: sorted element {k}: got {g:?}, want {w:?}"
        );
    }
    let a = ops::argsort(x, axis).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(a.dtype(), DType::I64, "{what}");
    assert_eq!(
        i64s(&a),
        model::argsort(vals, x.shape(), ax),
        "{what}: argsort"
    );
}

#[test]
fn sort_and_argsort_every_dtype_with_nans_and_duplicates() {
    require_gpu!();
    let mut rng = Rng::new(21);
    for (i, d) in sortable().into_iter().enumerate() {
        // 3 tiles and a tail; floats with NaN, ±inf, ±0; integers over the full range
        let vals = rand_vals(&mut rng, d, 10007, 0, true);
        if common::sweep_cell(i, 0) {
            let x = dev_exact(&vals, &[10007], d);
            check_sort(&x, &vals, None, &format!("{d} full range"));
        }
        // many equal keys: stability decides the argsort
        let dup = rand_vals(&mut rng, d, 5000, 7, true);
        if common::sweep_cell(i, 1) {
            let y = dev_exact(&dup, &[5000], d);
            check_sort(&y, &dup, Some(0), &format!("{d} duplicates"));
        }
        // rows of an n-d array
        let rows = rand_vals(&mut rng, d, 37 * 129, 50, true);
        if common::sweep_cell(i, 2) {
            let r = dev_exact(&rows, &[37, 129], d);
            check_sort(&r, &rows, Some(-1), &format!("{d} rows"));
        }
    }
}

#[test]
fn sort_edge_sizes_axes_and_layouts() {
    require_gpu!();
    let mut rng = Rng::new(22);
    for (i, n) in [0usize, 1, 2, 3, 4095, 4096, 4097, 2048, 2049, 8193]
        .into_iter()
        .enumerate()
    {
        for (j, d) in [DType::F32, DType::I64, DType::U8].into_iter().enumerate() {
            let vals = rand_vals(&mut rng, d, n, 0, true);
            if !common::sweep_cell(i, j) {
                continue;
            }
            check_sort(
                &dev_exact(&vals, &[n], d),
                &vals,
                Some(0),
                &format!("{d} n={n}"),
            );
        }
    }
    for (i, (shape, axis)) in [
        (vec![300usize, 3], -1isize), // short rows, two row passes
        (vec![70000, 2], 1),          // 70000 rows: three row passes
        (vec![50, 7], 0),             // a leading axis: moved last
        (vec![3, 40, 5], 1),
        (vec![4, 1, 3], 1), // rows of one
        (vec![6, 300], 1),
        (vec![3, 5000], 1), // rows past the shared-memory row sort: radix segments
        (vec![2, 2049], -1), // 2049 > 2048: 8-byte keys take the radix segments
        // the longest shared-memory rows of 4-byte keys: 500 of them on a GPU; 16 on the host
        // device, where the row count changes no path (the flattened sort of 64Ki stays
        // many tiles) and 2M elements of fibers cost a CI core 20 s
        (vec![if common::on_host() { 16 } else { 500 }, 4096], 1),
    ]
    .into_iter()
    .enumerate()
    {
        let n: usize = shape.iter().product();
        // Every layout of every shape on a GPU. On the host device (a CPU, where a sort of
        // these sizes runs its blocks' threads as fibers) the shapes past 10^4 elements run
        // contiguous and one other layout, the next in turn: each row-pass and segment edge
        // still runs, and every layout still meets a large shape.
        let layouts: Vec<Layout> = if common::on_host() && n > 10_000 {
            vec![LAYOUTS[0], LAYOUTS[1 + i % (LAYOUTS.len() - 1)]]
        } else {
            LAYOUTS.to_vec()
        };
        for layout in layouts {
            let vals = rand_vals(&mut rng, DType::I16, n, 40, false);
            let x = view_of(&vals, &shape, DType::I16, layout);
            check_sort(
                &x,
                &vals,
                Some(axis),
                &format!("{shape:?} axis {axis} {layout:?}"),
            );
        }
        let fv = rand_vals(&mut rng, DType::F64, n, 0, true);
        check_sort(
            &dev(&fv, &shape, DType::F64),
            &fv,
            None,
            &format!("{shape:?} flattened"),
        );
    }
    // 8-byte keys in rows past the shared-memory row sort (2048): the radix segments, whose
    // histogram keeps one shared copy (12 digit passes)
    for d in [DType::F64, DType::I64] {
        let vals = rand_vals(&mut rng, d, 3 * 2100, 0, true);
        check_sort(
            &dev_exact(&vals, &[3, 2100], d),
            &vals,
            Some(-1),
            &format!("{d} rows of 2100"),
        );
    }
}

/// Keys whose digits are constant in some passes (one digit holds every key: the pass is
/// the identity): runs of such passes between the first and the last are skipped two at a
/// time and a leftover one copies; a constant first or last digit copies with its key
/// transform. Each pattern sorts, argsorts and sorts by key, and rows take row passes.
#[test]
fn sorts_with_constant_digits_skip_or_copy_those_passes() {
    require_gpu!();
    let mut rng = Rng::new(27);
    let n = 3 * 4096 + 17;
    // Which bytes of an int64 key vary (the others constant, non-zero where set).
    let patterns: [(&str, u64, u64); 6] = [
        ("bytes 0 and 2 vary", 0x00ff_00ff, 0x0102_0304_0500_0600),
        ("bytes 0 and 4 vary", 0xff_0000_00ff, 0x7100_0000_0000_0000),
        (
            "byte 7 varies",
            0xff00_0000_0000_0000,
            0x0011_2233_4455_6677,
        ),
        ("byte 3 varies", 0xff00_0000, 0x4000_0000_0000_0001),
        ("small non-negative", 0x3ff, 0),
        ("all equal", 0, 0x1234_5678_9abc_def0),
    ];
    for (what, vary, fixed) in patterns {
        let vals: Vec<V> = (0..n)
            .map(|_| I(((rng.next_u64() & vary) | fixed) as i64 as i128))
            .collect();
        let x = dev_exact(&vals, &[n], DType::I64);
        check_sort(&x, &vals, None, &format!("int64 {what}"));
        let pos: Vec<u32> = (0..n as u32).collect();
        let (k, v) = ops::sort_by_key(&x, &Array::from_slice(&pos, &[n]).unwrap()).unwrap();
        let order = model::argsort(&vals, &[n], Some(0));
        let want: Vec<u32> = order.iter().map(|&i| i as u32).collect();
        assert_eq!(v.to_vec::<u32>().unwrap(), want, "sort_by_key {what}");
        assert_eq!(
            host(&k),
            model::sort(&vals, &[n], Some(0)),
            "sort_by_key keys {what}"
        );
        // Rows: one row of the whole (a constant row digit), and 3 rows.
        for shape in [[1usize, n], [3, n / 3]] {
            let r = dev_exact(&vals[..shape[0] * shape[1]], &shape, DType::I64);
            check_sort(
                &r,
                &vals[..shape[0] * shape[1]],
                Some(-1),
                &format!("int64 {what} rows {shape:?}"),
            );
        }
    }
    // 4-byte and 1-byte keys with constant high digits; float32 of one sign and exponent.
    let small: Vec<V> = (0..n).map(|_| I(rng.usize(0, 300) as i128)).collect();
    check_sort(
        &dev_exact(&small, &[n], DType::I32),
        &small,
        None,
        "int32 below 300",
    );
    let bytes: Vec<V> = (0..n).map(|_| I(5)).collect();
    check_sort(
        &dev_exact(&bytes, &[n], DType::U8),
        &bytes,
        None,
        "uint8 all equal",
    );
    let f: Vec<V> = (0..n)
        .map(|_| F(1.0 + rng.usize(0, 1 << 10) as f64 / 1024.0))
        .collect();
    check_sort(
        &dev_exact(&f, &[n], DType::F32),
        &f,
        None,
        "float32 in [1, 2)",
    );
}

#[test]
fn argsort_is_stable_on_large_inputs() {
    require_gpu!();
    let mut rng = Rng::new(23);
    // on the host device a fifth: still many tiles per radix pass (`common::gpu_or_host`)
    let n = common::gpu_or_host(1_000_003, 200_003);
    let vals: Vec<f32> = (0..n)
        .map(|_| rng.usize(0, 16) as f32 * 0.5 - 4.0)
        .collect();
    let x = Array::from_slice(&vals, &[n]).unwrap();
    let got = i64s(&ops::argsort(&x, None).unwrap());
    let mut want: Vec<usize> = (0..n).collect();
    want.sort_by(|&i, &j| vals[i].partial_cmp(&vals[j]).unwrap());
    assert!(got.iter().zip(&want).all(|(&g, &w)| g == w as i64));
    let zeros = Array::zeros(&[20000], DType::I32).unwrap();
    assert_eq!(
        i64s(&ops::argsort(&zeros, None).unwrap()),
        (0..20000).collect::<Vec<i64>>()
    );
    let u: Vec<u32> = (0..common::gpu_or_host(3_000_000, 600_000))
        .map(|_| rng.next_u64() as u32)
        .collect();
    let s = ops::sort(&Array::from_slice(&u, &[u.len()]).unwrap(), None).unwrap();
    let mut w = u.clone();
    w.sort_unstable();
    assert!(s.to_vec::<u32>().unwrap() == w);
}

/// Whether two sorted keys are the same key bits (NaNs one key; -0.0 and 0.0 two).
fn same_key_bits(a: V, b: V) -> bool {
    match (a, b) {
        (F(x), F(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// `sort_by_key` of `keys` (host values `kv`) with the positions as `vd` values: the keys
/// sorted as `sort` sorts them, every value the one its key brought, equal keys' values in
/// input order.
fn check_sort_by_key(keys: &Array, kv: &[V], vd: DType, what: &str) {
    let n = kv.len();
    let pos: Vec<V> = (0..n)
        .map(|i| match vd.kind() {
            DTypeKind::Float => F(i as f64),
            _ => I(i as i128),
        })
        .collect();
    let vals = dev_exact(&pos, &[n], vd);
    let (k, v) = ops::sort_by_key(keys, &vals).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!((k.dtype(), v.dtype()), (keys.dtype(), vd), "{what}");
    assert_eq!((k.shape(), v.shape()), (&[n][..], &[n][..]), "{what}");
    let got_k = host(&k);
    let want = model::sort(kv, &[n], Some(0));
    for (j, (g, w)) in got_k.iter().zip(&want).enumerate() {
        assert!(
            model::same_sorted(*g, *w),
            "{what}: key {j}: got {g:?}, want {w:?}"
        );
    }
    let perm: Vec<usize> = host(&v)
        .into_iter()
        .map(|x| match x {
            F(f) => f as usize,
            I(i) => i as usize,
            other => panic!("{what}: value {other:?}"),
        })
        .collect();
    let mut seen = vec![false; n];
    for (j, &p) in perm.iter().enumerate() {
        assert!(
            p < n && !seen[p],
            "{what}: value {j} is {p}: not a permutation"
        );
        seen[p] = true;
        assert!(
            model::same_sorted(kv[p], got_k[j]),
            "{what}: value {j} came with key {:?}, sits beside {:?}",
            kv[p],
            got_k[j]
        );
        if j > 0 && same_key_bits(got_k[j - 1], got_k[j]) {
            assert!(
                perm[j - 1] < p,
                "{what}: equal keys at {j} out of input order"
            );
        }
    }
}

#[test]
fn sort_by_key_every_key_dtype_and_value_width() {
    require_gpu!();
    let mut rng = Rng::new(25);
    for (i, d) in sortable().into_iter().enumerate() {
        for (n, span) in [(10007usize, 0u64), (5000, 7), (1, 0), (4097, 3)] {
            let kv = rand_vals(&mut rng, d, n, span, true);
            let keys = dev_exact(&kv, &[n], d);
            // 4-byte values ride in the passes; other widths gather by the argsort
            for (j, vd) in [DType::U32, DType::F32, DType::I64, DType::I16]
                .into_iter()
                .enumerate()
            {
                if !common::sweep_cell(i, j) {
                    continue;
                }
                check_sort_by_key(
                    &keys,
                    &kv,
                    vd,
                    &format!("{d} keys n={n} span={span}, {vd} values"),
                );
            }
        }
    }
    // a strided view of keys, 2-D values (flattened order), an empty pair
    let kv = rand_vals(&mut rng, DType::I32, 2 * 300, 50, false);
    let base = dev_exact(&kv, &[300, 2], DType::I32);
    let col = base
        .slice(&[SliceArg::from(..), SliceArg::Index(0)])
        .unwrap();
    let col_vals: Vec<V> = kv.iter().step_by(2).copied().collect();
    check_sort_by_key(&col, &col_vals, DType::I32, "strided keys");
    let (k, v) = ops::sort_by_key(
        &Array::zeros(&[0], DType::F32).unwrap(),
        &Array::zeros(&[0], DType::U8).unwrap(),
    )
    .unwrap();
    assert_eq!((k.size(), v.size(), v.dtype()), (0, 0, DType::U8));
    // on the host device a tenth: the same passes over many tiles (`common::gpu_or_host`)
    let half = common::gpu_or_host(1_000_001, 100_001);
    let u: Vec<u32> = (0..2 * half).map(|_| rng.next_u64() as u32).collect();
    let w: Vec<f32> = u.iter().map(|&x| (x % 1000) as f32).collect();
    let (k, v) = ops::sort_by_key(
        &Array::from_slice(&u, &[u.len()]).unwrap(),
        &Array::from_slice(&w, &[2, half]).unwrap(),
    )
    .unwrap();
    let mut pairs: Vec<(u32, f32)> = u.iter().copied().zip(w.iter().copied()).collect();
    pairs.sort_by_key(|p| p.0);
    let (wk, wv): (Vec<u32>, Vec<f32>) = pairs.into_iter().unzip();
    assert!(k.to_vec::<u32>().unwrap() == wk);
    assert!(v.to_vec::<f32>().unwrap() == wv);
}

#[test]
fn sort_by_key_errors() {
    require_gpu!();
    let k = Array::from_slice(&[3i32, 1, 2], &[3]).unwrap();
    let v = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    assert_err(
        ops::sort_by_key(&k, &v),
        ErrorKind::Shape,
        "keys [3] hold 3 elements and values [2] 2",
    );
}

#[test]
fn sort_errors_and_in_place_form() {
    require_gpu!();
    let s0 = Array::from_slice(&[3i32], &[]).unwrap();
    assert_err(
        ops::sort(&s0, Some(-1)),
        ErrorKind::Shape,
        "axis -1 is out of bounds",
    );
    assert_eq!(
        ops::sort(&s0, None).unwrap().to_vec::<i32>().unwrap(),
        vec![3]
    );
    let m = Array::from_slice(&[3.0f32, 1.0, 2.0, 0.0, -1.0, 5.0], &[2, 3]).unwrap();
    let t = m.t(); // (3, 2) view
    t.sort(Some(-1)).unwrap();
    // the rows of the transposed view are the columns of `m`
    assert_eq!(
        m.to_vec::<f32>().unwrap(),
        vec![0.0, -1.0, 2.0, 3.0, 1.0, 5.0]
    );
    m.sort(None).unwrap();
    assert_eq!(
        m.to_vec::<f32>().unwrap(),
        vec![-1.0, 0.0, 1.0, 2.0, 3.0, 5.0]
    );
    let b = Array::from_slice(&[true, false, true, false], &[4]).unwrap();
    assert_eq!(i64s(&b.argsort(Some(0)).unwrap()), vec![1, 3, 0, 2]);
    assert_eq!(
        ops::sort(&b, None).unwrap().to_vec::<bool>().unwrap(),
        vec![false, false, true, true]
    );
}

#[test]
fn sort_property() {
    require_gpu!();
    let dtypes = [
        DType::F32,
        DType::I32,
        DType::U8,
        DType::F16,
        DType::I64,
        DType::Bool,
    ];
    let dims = [0usize, 1, 2, 3, 17, 255, 257, 4097];
    let strategy = (
        0usize..dtypes.len(),
        prop::collection::vec(0usize..dims.len(), 0..4),
        0usize..5,
        0usize..4,
        prop::sample::select(vec![0u64, 3, 1000]),
        any::<u64>(),
    );
    gpu_proptest_runner(40)
        .run(&strategy, |(di, dix, axis_pick, layout, span, seed)| {
            let d = dtypes[di];
            let shape: Vec<usize> = dix.iter().map(|&k| dims[k]).collect();
            let n: usize = shape.iter().product();
            prop_assume!(n <= 200_000);
            let mut rng = Rng::new(seed);
            let vals = rand_vals(&mut rng, d, n, span, true);
            let x = view_of(&vals, &shape, d, LAYOUTS[layout]);
            let axis = if axis_pick == 0 || shape.is_empty() {
                None
            } else {
                Some((axis_pick % shape.len()) as isize)
            };
            check_sort(
                &x,
                &vals,
                axis,
                &format!("{d} {shape:?} {:?} axis {axis:?}", LAYOUTS[layout]),
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn unique_values_counts_and_inverse() {
    require_gpu!();
    let mut rng = Rng::new(24);
    for d in sortable() {
        for n in [0usize, 1, 9, 5000] {
            let vals = rand_vals(&mut rng, d, n, 13, true);
            let shape = if n == 5000 { vec![50, 100] } else { vec![n] };
            let x = dev_exact(&vals, &shape, d);
            let (wv, wc, wi) = model::unique(&vals);
            let what = format!("unique {d} n={n}");
            let u = ops::unique(&x).unwrap();
            let got = host(&u);
            assert_eq!(got.len(), wv.len(), "{what}");
            assert!(
                got.iter().zip(&wv).all(|(g, w)| model::same_sorted(*g, *w)),
                "{what}: {got:?} vs {wv:?}"
            );
            let (v2, c) = ops::unique_counts(&x).unwrap();
            assert_eq!(host(&v2).len(), wv.len(), "{what}");
            assert_eq!(i64s(&c), wc, "{what}: counts");
            let (v3, inv) = ops::unique_inverse(&x).unwrap();
            assert_eq!(host(&v3).len(), wv.len(), "{what}");
            assert_eq!(inv.shape(), x.shape(), "{what}");
            assert_eq!(i64s(&inv), wi, "{what}: inverse");
        }
    }
}

/// `ops::unique` of a 1-D array of `vals` (as `d`, from `i64` bits), against the sorted
/// distinct values; `stride` 2 reads every other element of an array twice as long.
fn check_large_unique(vals: &[i64], d: DType, stride: usize, what: &str) {
    let x = match d {
        DType::I32 => Array::from_slice(
            &vals.iter().map(|&v| v as i32).collect::<Vec<_>>(),
            &[vals.len()],
        ),
        DType::U32 => Array::from_slice(
            &vals.iter().map(|&v| v as u32).collect::<Vec<_>>(),
            &[vals.len()],
        ),
        DType::I64 => Array::from_slice(vals, &[vals.len()]),
        _ => Array::from_slice(
            &vals.iter().map(|&v| v as u64).collect::<Vec<_>>(),
            &[vals.len()],
        ),
    }
    .unwrap();
    let x = if stride == 1 {
        x
    } else {
        x.slice(&[SliceArg::Range {
            start: None,
            end: None,
            step: stride as isize,
        }])
        .unwrap()
    };
    let mut want: Vec<i64> = x.astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
    let as_key = |v: i64| {
        if d == DType::U64 {
            (v as u64) as i128
        } else if d == DType::U32 {
            (v as u32) as i128
        } else {
            v as i128
        }
    };
    want.sort_by_key(|&v| as_key(v));
    want.dedup();
    let got = ops::unique(&x).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.dtype(), d, "{what}");
    let got = got.astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
    assert_eq!(got.len(), want.len(), "{what}: how many");
    assert!(got == want, "{what}: the values differ");
}

#[test]
fn unique_of_large_integer_arrays() {
    // 2^20 elements or more take the hash table (ops/unique_hash.rs); past its limit (2^21
    // distinct 4-byte values, 2^20 of 8 bytes) they sort.
    require_gpu!();
    let mut rng = Rng::new(45);
    let n = common::gpu_or_host(3_000_000, (1 << 20) + 4099);
    // the host device (two CPU cores in CI) takes one type of each width
    let types = common::gpu_or_host(
        &[DType::I32, DType::U32, DType::I64, DType::U64][..],
        &[DType::U32, DType::I64][..],
    );
    for &d in types {
        let signed = matches!(d, DType::I32 | DType::I64);
        let wide = d.itemsize() == 8;
        // few distinct values, negative ones where the type has them, the first one common
        let few: Vec<i64> = (0..n)
            .map(|_| {
                let v = rng.usize(0, 70_000) as i64;
                if signed { v - 35_000 } else { v }
            })
            .collect();
        check_large_unique(&few, d, 1, &format!("{d}: few distinct"));
        // wide values (the high bits hash), one value repeated, a strided view
        let spread: Vec<i64> = (0..2 * n)
            .map(|_| {
                let v = (rng.next_u64() % 5000) as i64;
                let hi = if wide { v << 40 } else { v << 19 };
                if signed && coin(&mut rng) { -hi } else { hi }
            })
            .collect();
        check_large_unique(&spread, d, 2, &format!("{d}: high bits, strided"));
        check_large_unique(&vec![7; n], d, 1, &format!("{d}: one value"));
        // more distinct values than the table takes: the sort (for 8-byte values on the GPU
        // only: 2^21 elements sorted on the host device cost CI seconds, and the fallback
        // is the host side's); on the host device, 4-byte ones all distinct in the table
        if wide && common::on_host() {
            continue;
        }
        let many_n = if wide {
            (1 << 20) * 2 + 5
        } else {
            common::gpu_or_host(5_000_000, n)
        };
        let many: Vec<i64> = (0..many_n)
            .map(|i| ((i as i64) * 7919) % many_n as i64)
            .collect();
        check_large_unique(&many, d, 1, &format!("{d}: all distinct"));
    }
}

// ---------------------------------------------------------------- masks, nonzero, compress

fn rand_mask(rng: &mut Rng, n: usize, p_true: f64) -> Vec<bool> {
    (0..n).map(|_| rng.f64(0.0, 1.0) < p_true).collect()
}

fn check_masked(
    x: &Array,
    vals: &[V],
    mask: &[bool],
    mask_shape: &[usize],
    mlayout: Layout,
    what: &str,
) {
    let mv: Vec<V> = mask.iter().map(|&b| B(b)).collect();
    let m = view_of(&mv, mask_shape, DType::Bool, mlayout);
    let got = x.masked(&m).get().unwrap_or_else(|e| panic!("{what}: {e}"));
    let (ws, wv) = model::masked(vals, x.shape(), mask, mask_shape.len());
    assert_eq!(got.shape(), ws.as_slice(), "{what}: shape");
    assert_eq!(got.dtype(), x.dtype(), "{what}");
    assert_same(&host(&got), &wv, what);
}

#[test]
fn masked_read_of_every_dtype_and_mask_density() {
    require_gpu!();
    let mut rng = Rng::new(31);
    for d in common::dtypes(DType::ALL) {
        let n = 10007;
        let vals = rand_vals(&mut rng, d, n, 0, true);
        let x = dev_exact(&vals, &[n], d);
        for p in [0.0, 0.5, 1.0, 0.03] {
            let mask = rand_mask(&mut rng, n, p);
            check_masked(
                &x,
                &vals,
                &mask,
                &[n],
                Layout::Contiguous,
                &format!("{d} p={p}"),
            );
        }
    }
}

#[test]
fn masked_read_sizes_views_and_leading_masks() {
    require_gpu!();
    let mut rng = Rng::new(32);
    for n in [0usize, 1, 3, 4095, 4096, 4097, 2048, 16385, 100_003] {
        let vals = rand_vals(&mut rng, DType::F32, n, 0, false);
        let mask = rand_mask(&mut rng, n, 0.5);
        for layout in LAYOUTS {
            let x = view_of(&vals, &[n], DType::F32, layout);
            check_masked(&x, &vals, &mask, &[n], layout, &format!("n={n} {layout:?}"));
        }
    }
    // 2-D mask of the full shape, on views
    let shape = [37usize, 61];
    let vals = rand_vals(&mut rng, DType::I16, 37 * 61, 0, false);
    let mask = rand_mask(&mut rng, 37 * 61, 0.4);
    for layout in LAYOUTS {
        let x = view_of(&vals, &shape, DType::I16, layout);
        check_masked(
            &x,
            &vals,
            &mask,
            &shape,
            Layout::Transposed,
            &format!("2-D {layout:?}"),
        );
    }
    // a mask over the leading axis selects rows; over the two leading axes of 3-D
    let rows = rand_mask(&mut rng, 37, 0.5);
    check_masked(
        &dev(&vals, &shape, DType::I16),
        &vals,
        &rows,
        &[37],
        Layout::Contiguous,
        "rows",
    );
    let v3 = rand_vals(&mut rng, DType::F64, 4 * 5 * 6, 0, false);
    let m2 = rand_mask(&mut rng, 20, 0.5);
    check_masked(
        &dev(&v3, &[4, 5, 6], DType::F64),
        &v3,
        &m2,
        &[4, 5],
        Layout::Contiguous,
        "3-D lead 2",
    );
    // 0-d array and mask
    let z = Array::from_slice(&[7u8], &[]).unwrap();
    let t = Array::from_slice(&[true], &[]).unwrap();
    let f = Array::from_slice(&[false], &[]).unwrap();
    assert_eq!(z.masked(&t).get().unwrap().to_vec::<u8>().unwrap(), vec![7]);
    assert_eq!(z.masked(&f).get().unwrap().shape(), &[0]);
    // few selected out of many: the result is copied into its own memory
    let big = Array::ones(&[2_000_000], DType::F32).unwrap();
    let sparse = ops::greater(
        Array::arange(0.0, 2e6, 1.0, DType::F32).unwrap(),
        1_999_990.0,
    )
    .unwrap();
    let sel = big.masked(&sparse).get().unwrap();
    assert_eq!(sel.to_vec::<f32>().unwrap(), vec![1.0; 9]);
    assert!(!sel.shares_memory(&big));
}

#[test]
fn masked_read_errors() {
    require_gpu!();
    let x = Array::zeros(&[3, 4], DType::F32).unwrap();
    let im = Array::zeros(&[3, 4], DType::I32).unwrap();
    assert_err(
        x.masked(&im).get(),
        ErrorKind::DType,
        "a mask must be a bool array, got int32",
    );
    let wrong = Array::zeros(&[3, 5], DType::Bool).unwrap();
    assert_err(
        x.masked(&wrong).get(),
        ErrorKind::Shape,
        "boolean index did not match indexed array along axis 1; size of axis is 4 but size of corresponding boolean axis is 5",
    );
    let deep = Array::zeros(&[3, 4, 1], DType::Bool).unwrap();
    assert_err(
        x.masked(&deep).get(),
        ErrorKind::Shape,
        "too many indices for array",
    );
    let h = x.masked(&wrong);
    assert!(h.array().shares_memory(&x) && h.mask().shares_memory(&wrong));
}

#[test]
fn nonzero_of_every_dtype_and_shape() {
    require_gpu!();
    let mut rng = Rng::new(33);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        for (j, shape) in [vec![10007usize], vec![33, 129], vec![3, 4, 5]]
            .into_iter()
            .enumerate()
        {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let n: usize = shape.iter().product();
            let mut vals = rand_vals(&mut rng, d, n, 5, false);
            for v in vals.iter_mut() {
                if coin(&mut rng) {
                    *v = match *v {
                        B(_) => B(false),
                        I(_) => I(0),
                        F(_) => F(if coin(&mut rng) { 0.0 } else { -0.0 }),
                        C(..) => C(0.0, 0.0),
                    };
                }
            }
            let x = dev_exact(&vals, &shape, d);
            let got = ops::nonzero(&x).unwrap();
            let want = model::nonzero(&vals, &shape);
            assert_eq!(got.len(), shape.len());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.dtype(), DType::I64);
                assert_eq!(&i64s(g), w, "{d} {shape:?} dimension {k}");
            }
        }
    }
}

#[test]
fn nonzero_views_edges_and_many_dimensions() {
    require_gpu!();
    let mut rng = Rng::new(34);
    for layout in LAYOUTS {
        for shape in [vec![4097usize], vec![65, 70]] {
            let n: usize = shape.iter().product();
            let vals: Vec<V> = rand_mask(&mut rng, n, 0.3).into_iter().map(B).collect();
            let x = view_of(&vals, &shape, DType::Bool, layout);
            let got: Vec<Vec<i64>> = ops::nonzero(&x).unwrap().iter().map(i64s).collect();
            assert_eq!(got, model::nonzero(&vals, &shape), "{shape:?} {layout:?}");
        }
    }
    // all false, all true, empty
    let f = Array::zeros(&[5, 6], DType::F32).unwrap();
    assert!(ops::nonzero(&f).unwrap().iter().all(|a| a.shape() == [0]));
    let t = Array::ones(&[2, 3], DType::U8).unwrap();
    let ij: Vec<Vec<i64>> = ops::nonzero(&t).unwrap().iter().map(i64s).collect();
    assert_eq!(ij, vec![vec![0, 0, 0, 1, 1, 1], vec![0, 1, 2, 0, 1, 2]]);
    assert_eq!(
        ops::nonzero(&Array::zeros(&[0, 4], DType::I8).unwrap())
            .unwrap()
            .len(),
        2
    );
    // more dimensions than one pass writes (9): flat positions, then unravelled
    let shape = [2usize, 1, 2, 1, 3, 1, 2, 1, 2];
    let n: usize = shape.iter().product();
    let vals: Vec<V> = rand_mask(&mut rng, n, 0.5).into_iter().map(B).collect();
    let got: Vec<Vec<i64>> = ops::nonzero(&dev(&vals, &shape, DType::Bool))
        .unwrap()
        .iter()
        .map(i64s)
        .collect();
    assert_eq!(got, model::nonzero(&vals, &shape));
    // 0-d is NumPy 2's error; flatnonzero and where_nonzero
    assert_err(
        ops::nonzero(&Array::from_slice(&[1i32], &[]).unwrap()),
        ErrorKind::Shape,
        "Calling nonzero on 0d arrays is not allowed",
    );
    let a = Array::from_slice(&[0i32, 3, 0, 4, 5, 0], &[2, 3]).unwrap();
    assert_eq!(i64s(&ops::flatnonzero(&a).unwrap()), vec![1, 3, 4]);
    assert_eq!(
        i64s(&ops::flatnonzero(&Array::from_slice(&[2.0f32], &[]).unwrap()).unwrap()),
        vec![0]
    );
    let w = ops::where_nonzero(&a).unwrap();
    assert_eq!((i64s(&w[0]), i64s(&w[1])), (vec![0, 1, 1], vec![1, 0, 1]));
    assert_eq!(i64s(&a.nonzero().unwrap()[1]), vec![1, 0, 1]);
}

#[test]
fn compress_along_axes() {
    require_gpu!();
    let mut rng = Rng::new(35);
    let shape = [6usize, 5];
    let vals = rand_vals(&mut rng, DType::F64, 30, 0, false);
    let a = dev(&vals, &shape, DType::F64);
    for (axis, len) in [(Some(0usize), 6usize), (Some(1), 5), (None, 30)] {
        for clen in [len, len - 2] {
            let cond = rand_mask(&mut rng, clen, 0.5);
            let c = Array::from_slice(&cond, &[clen]).unwrap();
            let idx: Vec<i64> = (0..clen).filter(|&k| cond[k]).map(|k| k as i64).collect();
            let (ws, wv) =
                model::take(&vals, &shape, &idx, &[idx.len()], axis, Mode::Raise).unwrap();
            let got = ops::compress(&c, &a, axis.map(|x| x as isize)).unwrap();
            assert_eq!(got.shape(), ws.as_slice(), "axis {axis:?} cond {clen}");
            assert_same(&host(&got), &wv, &format!("compress axis {axis:?}"));
        }
    }
    // a longer condition is fine while it selects nothing past the end
    let long_ok = Array::from_slice(
        &[true, false, false, false, false, false, false, false],
        &[8],
    )
    .unwrap();
    assert_eq!(
        ops::compress(&long_ok, &a, Some(0)).unwrap().shape(),
        &[1, 5]
    );
    let long_bad =
        Array::from_slice(&[false, false, false, false, false, false, true], &[7]).unwrap();
    assert_err(
        ops::compress(&long_bad, &a, Some(0)),
        ErrorKind::Shape,
        "index 6 is out of bounds for axis 0 with size 6",
    );
    let two_d = Array::zeros(&[2, 2], DType::Bool).unwrap();
    assert_err(
        ops::compress(&two_d, &a, None),
        ErrorKind::Shape,
        "condition must be a 1-d array",
    );
    let m = a
        .compress(&Array::from_slice(&[true, true], &[2]).unwrap(), Some(1))
        .unwrap();
    assert_eq!(m.shape(), &[6, 2]);
}

// ---------------------------------------------------------------- take / put / scatter_add

#[test]
fn take_every_item_size_index_dtype_and_mode() {
    require_gpu!();
    let mut rng = Rng::new(41);
    for d in [
        DType::Bool,
        DType::I16,
        DType::F32,
        DType::F64,
        DType::C128,
        DType::BF16,
    ] {
        let shape = [4usize, 7, 3];
        let vals = rand_vals(&mut rng, d, 84, 0, false);
        let a = dev_exact(&vals, &shape, d);
        for axis in [None, Some(0usize), Some(1), Some(2)] {
            let len = axis.map_or(84, |x| shape[x]);
            for idt in [DType::I64, DType::I32, DType::U8, DType::I8, DType::Bool] {
                for mode in [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip] {
                    let lo = if mode == IndexMode::Raise {
                        -(len as i64)
                    } else {
                        -3 * len as i64
                    };
                    let hi = if mode == IndexMode::Raise {
                        len as i64
                    } else {
                        3 * len as i64
                    };
                    let mut idx: Vec<i64> = (0..12)
                        .map(|_| lo + (rng.next_u64() % (hi - lo) as u64) as i64)
                        .collect();
                    let (ilo, ihi) = int_range(idt);
                    for v in idx.iter_mut() {
                        *v = (*v as i128).clamp(
                            ilo.max(if idt == DType::Bool { 0 } else { ilo }),
                            ihi.min(if idt == DType::Bool { 1 } else { ihi }),
                        ) as i64;
                    }
                    let ishape = [3usize, 4];
                    let iv: Vec<V> = idx
                        .iter()
                        .map(|&i| {
                            if idt == DType::Bool {
                                B(i != 0)
                            } else {
                                I(i as i128)
                            }
                        })
                        .collect();
                    let ia = dev_exact(&iv, &ishape, idt);
                    let what = format!("take {d} axis {axis:?} {idt} {mode:?}");
                    let (ws, wv) =
                        model::take(&vals, &shape, &idx, &ishape, axis, mode_of(mode)).unwrap();
                    let got = ops::take_with(&a, &ia, axis.map(|x| x as isize), mode)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(got.shape(), ws.as_slice(), "{what}");
                    assert_same(&host(&got), &wv, &what);
                }
            }
        }
    }
}

#[test]
fn take_large_views_errors_and_method() {
    require_gpu!();
    let mut rng = Rng::new(42);
    let n = 1_000_000;
    let src: Vec<f32> = (0..n).map(|k| k as f32).collect();
    let a = Array::from_slice(&src, &[n]).unwrap();
    let idx: Vec<i64> = (0..300_001)
        .map(|_| rng.usize(0, n) as i64 - if coin(&mut rng) { n as i64 } else { 0 })
        .collect();
    let got = ops::take(&a, &Array::from_slice(&idx, &[idx.len()]).unwrap(), None).unwrap();
    let want: Vec<f32> = idx
        .iter()
        .map(|&k| src[k.rem_euclid(n as i64) as usize])
        .collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
    // a transposed source and a strided index view
    let vals = rand_vals(&mut rng, DType::I32, 20, 0, false);
    let m = view_of(&vals, &[4, 5], DType::I32, Layout::Transposed);
    let iv = view_of(
        &[I(4), I(0), I(2), I(-1)],
        &[4],
        DType::I64,
        Layout::Strided,
    );
    let (ws, wv) = model::take(&vals, &[4, 5], &[4, 0, 2, -1], &[4], Some(1), Mode::Raise).unwrap();
    let got = ops::take(&m, &iv, Some(1)).unwrap();
    assert_eq!(got.shape(), ws.as_slice());
    assert_same(&host(&got), &wv, "views");
    // 0-d index drops the axis
    let zi = Array::from_slice(&[1i64], &[]).unwrap();
    assert_eq!(ops::take(&m, &zi, Some(0)).unwrap().shape(), &[5]);
    // errors
    let x = Array::arange(0.0, 6.0, 1.0, DType::F32)
        .unwrap()
        .reshape(&[2, 3])
        .unwrap();
    let bad = Array::from_slice(&[0i64, 7, 1], &[3]).unwrap();
    assert_err(
        ops::take(&x, &bad, Some(1)),
        ErrorKind::Shape,
        "index 7 is out of bounds for axis 1 with size 3",
    );
    let neg = Array::from_slice(&[-3i32], &[1]).unwrap();
    assert_err(
        ops::take(&x, &neg, Some(0)),
        ErrorKind::Shape,
        "index -3 is out of bounds for axis 0 with size 2",
    );
    assert_err(
        ops::take(&x, &bad, Some(2)),
        ErrorKind::Shape,
        "axis 2 is out of bounds",
    );
    let fi = Array::from_slice(&[1.0f32], &[1]).unwrap();
    assert_err(
        ops::take(&x, &fi, None),
        ErrorKind::DType,
        "indices must be integers",
    );
    let ui = Array::from_slice(&[1u64], &[1]).unwrap();
    assert_err(
        ops::take(&x, &ui, None),
        ErrorKind::DType,
        "dtype('uint64')",
    );
    let empty_axis = Array::zeros(&[2, 0], DType::F32).unwrap();
    assert_err(
        ops::take(&empty_axis, &neg, Some(1)),
        ErrorKind::Shape,
        "cannot do a non-empty take from an empty axes.",
    );
    let none = Array::zeros(&[0], DType::I64).unwrap();
    assert_eq!(
        ops::take(&empty_axis, &none, Some(1)).unwrap().shape(),
        &[2, 0]
    );
    assert_eq!(
        x.take(&Array::from_slice(&[5i64], &[1]).unwrap(), None)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![5.0]
    );
}

#[test]
fn put_values_modes_views_and_errors() {
    require_gpu!();
    let mut rng = Rng::new(43);
    for d in [DType::F32, DType::U8, DType::C64, DType::F16, DType::I64] {
        for layout in LAYOUTS {
            let shape = [5usize, 8];
            let vals = rand_vals(&mut rng, d, 40, 0, false);
            let a = view_of(&vals, &shape, d, layout);
            // distinct targets (duplicates leave the winner unspecified)
            let mut order: Vec<i64> = (0..40).collect();
            for k in (1..40).rev() {
                order.swap(k, rng.usize(0, k + 1));
            }
            let idx: Vec<i64> = order[..13]
                .iter()
                .map(|&k| if coin(&mut rng) { k - 40 } else { k })
                .collect();
            let new = rand_vals(&mut rng, d, 5, 0, false);
            let mut want = vals.clone();
            model::put(&mut want, &idx, &new, Mode::Raise).unwrap();
            ops::put(
                &a,
                &Array::from_slice(&idx, &[13]).unwrap(),
                dev_exact(&new, &[5], d),
            )
            .unwrap();
            assert_same(&host(&a), &want, &format!("put {d} {layout:?}"));
        }
    }
    // scalar values, wrap / clip, a converted value dtype
    let a = Array::zeros(&[6], DType::I32).unwrap();
    let idx = Array::from_slice(&[8i64, -7, 2], &[3]).unwrap();
    ops::put_with(&a, &idx, 4i32, IndexMode::Wrap).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![0, 0, 4, 0, 0, 4]);
    ops::put_with(
        &a,
        &idx,
        Array::from_slice(&[1.9f64, -2.7, 3.2], &[3]).unwrap(),
        IndexMode::Clip,
    )
    .unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![-2, 0, 3, 0, 0, 1]);
    a.put(&Array::from_slice(&[0i32], &[1]).unwrap(), 9i32)
        .unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap()[0], 9);
    // errors
    let one_bad = Array::from_slice(&[8i64, 1], &[2]).unwrap();
    assert_err(
        ops::put(&a, &one_bad, 1i32),
        ErrorKind::Shape,
        "index 8 is out of bounds for axis 0 with size 6",
    );
    let empty = Array::zeros(&[0], DType::F32).unwrap();
    assert_err(
        ops::put(&empty, &idx, 1.0f32),
        ErrorKind::Shape,
        "cannot replace elements of an empty array",
    );
    assert_err(
        ops::put(&a, &idx, Array::zeros(&[0], DType::I32).unwrap()),
        ErrorKind::Shape,
        "no values",
    );
    ops::put(&empty, &Array::zeros(&[0], DType::I64).unwrap(), 1.0f32).unwrap();
}

#[test]
fn scatter_add_every_dtype_with_repeats() {
    require_gpu!();
    let mut rng = Rng::new(44);
    for d in common::dtypes(DType::ALL) {
        let shape = [9usize];
        // Values whose sums every order of the atomic adds gets exactly: integers, or
        // quarters (whole numbers for bfloat16) with small sums.
        let step = |rng: &mut Rng| match d {
            DType::BF16 => rng.usize(0, 2) as f64,
            _ => rng.usize(0, 5) as f64 * 0.25,
        };
        let vals: Vec<V> = match d.kind() {
            DTypeKind::Complex => (0..9)
                .map(|_| C(rng.usize(0, 7) as f64 - 3.0, rng.usize(0, 7) as f64 - 3.0))
                .collect(),
            _ => rand_vals(&mut rng, d, 9, 6, false),
        };
        let a = dev_exact(&vals, &shape, d);
        let m = 3000;
        let idx: Vec<i64> = (0..m).map(|_| rng.usize(0, 18) as i64 - 9).collect();
        let add: Vec<V> = match d.kind() {
            DTypeKind::Float => (0..m).map(|_| F(step(&mut rng))).collect(),
            DTypeKind::Complex => (0..m).map(|_| C(step(&mut rng), step(&mut rng))).collect(),
            _ => rand_vals(&mut rng, d, m, 4, false),
        };
        let mut want = vals.clone();
        model::scatter_add(&mut want, &shape, &idx, &add, d).unwrap();
        ops::scatter_add(
            &a,
            &Array::from_slice(&idx, &[m]).unwrap(),
            dev_exact(&add, &[m], d),
        )
        .unwrap();
        // floats: quarter steps add exactly while the sums stay small
        assert_same(&host(&a), &want, &format!("scatter_add {d}"));
    }
}

#[test]
fn scatter_add_rows_broadcasts_views_and_errors() {
    require_gpu!();
    let mut rng = Rng::new(45);
    let shape = [6usize, 4];
    let base = rand_vals(&mut rng, DType::F64, 24, 10, false);
    for layout in LAYOUTS {
        let a = view_of(&base, &shape, DType::F64, layout);
        let idx = [5i64, 0, 5, -1, 2];
        // a row vector broadcast over the 5 selected rows
        let row = rand_vals(&mut rng, DType::F64, 4, 10, false);
        let mut bvals = Vec::new();
        for _ in 0..5 {
            bvals.extend_from_slice(&row);
        }
        let mut want = base.clone();
        model::scatter_add(&mut want, &shape, &idx, &bvals, DType::F64).unwrap();
        ops::scatter_add(
            &a,
            &Array::from_slice(&idx, &[5]).unwrap(),
            dev(&row, &[4], DType::F64),
        )
        .unwrap();
        assert_same(&host(&a), &want, &format!("rows {layout:?}"));
    }
    // a scalar, int32 indices of 2-D shape
    let a = Array::zeros(&[3, 2], DType::I32).unwrap();
    let idx = Array::from_slice(&[0i32, 2, 2, 2], &[2, 2]).unwrap();
    ops::scatter_add(&a, &idx, 5i32).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![5, 5, 0, 0, 15, 15]);
    // large: 1e6 values into 1e3 bins, exact in int64
    let m = 1_000_000;
    let ix: Vec<i64> = (0..m).map(|_| rng.usize(0, 1000) as i64).collect();
    let bins = Array::zeros(&[1000], DType::I64).unwrap();
    ops::scatter_add(&bins, &Array::from_slice(&ix, &[m]).unwrap(), 1i64).unwrap();
    let mut w = vec![0i64; 1000];
    for &k in &ix {
        w[k as usize] += 1;
    }
    assert_eq!(i64s(&bins), w);
    // errors
    let f = Array::zeros(&[3], DType::F32).unwrap();
    let oob = Array::from_slice(&[3i64], &[1]).unwrap();
    assert_err(
        ops::scatter_add(&f, &oob, 1.0f32),
        ErrorKind::Shape,
        "index 3 is out of bounds for axis 0 with size 3",
    );
    let i = Array::zeros(&[3], DType::I32).unwrap();
    let ok = Array::from_slice(&[1i64], &[1]).unwrap();
    assert_err(
        ops::scatter_add(&i, &ok, 1.5f64),
        ErrorKind::DType,
        "rule 'same_kind'",
    );
    assert_err(
        ops::scatter_add(&i, &ok, Array::ones(&[1], DType::F32).unwrap()),
        ErrorKind::DType,
        "same_kind",
    );
    assert_err(
        ops::scatter_add(&i, &ok, Array::ones(&[2], DType::I32).unwrap()),
        ErrorKind::Shape,
        "do not broadcast",
    );
    let z = Array::from_slice(&[1.0f32], &[]).unwrap();
    assert_err(
        ops::scatter_add(&z, &ok, 1.0f32),
        ErrorKind::Shape,
        "0-dimensional",
    );
    ops::scatter_add(
        &f,
        &Array::from_slice(&[0i64], &[1]).unwrap(),
        Array::ones(&[1], DType::F64).unwrap(),
    )
    .unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 0.0]);
}

/// Raise-mode checks from several threads at once (half of them on streams of their own),
/// some calls with one out-of-range index unique to the call: each call gets its own
/// answer or names its own bad index (the error flags are never shared between calls).
#[test]
fn raise_mode_checks_from_many_threads_keep_their_own_flags() {
    require_gpu!();
    let n = 5000usize;
    let src: Vec<i32> = (0..n as i32).map(|k| k * 3 + 1).collect();
    let a = Array::from_slice(&src, &[n]).unwrap();
    std::thread::scope(|sc| {
        for t in 0..6usize {
            let (a, src) = (&a, &src);
            sc.spawn(move || {
                let mut rng = Rng::new(900 + t as u64);
                let stream = (t % 2 == 0).then(|| cuprum::Stream::new().unwrap());
                for round in 0..40usize {
                    let m = 1 + rng.usize(0, 3000);
                    let mut idx: Vec<i64> = (0..m)
                        .map(|_| rng.usize(0, 2 * n) as i64 - n as i64)
                        .collect();
                    let bad = coin(&mut rng).then(|| {
                        let past = (n + 1000 * t + round) as i64;
                        let b = if coin(&mut rng) { past } else { -past - 1 };
                        let at = rng.usize(0, m);
                        idx[at] = b;
                        b
                    });
                    let call = || {
                        let ia = Array::from_slice(&idx, &[m])?;
                        ops::take(a, &ia, None)?.to_vec::<i32>()
                    };
                    let got = match &stream {
                        Some(s) => s.with(call),
                        None => call(),
                    };
                    match bad {
                        Some(b) => {
                            assert_err(
                                got,
                                ErrorKind::Shape,
                                &format!("index {b} is out of bounds for axis 0 with size {n}"),
                            );
                        }
                        None => {
                            let want: Vec<i32> = idx
                                .iter()
                                .map(|&k| src[k.rem_euclid(n as i64) as usize])
                                .collect();
                            assert_eq!(got.unwrap(), want, "thread {t} round {round}");
                        }
                    }
                }
            });
        }
    });
}

/// A call that raised leaves no trace in the flag the next call gets (the slot is zeroed
/// for each call): take, put and scatter_add alternate bad and good indices.
#[test]
fn raise_mode_flag_is_clear_after_an_error() {
    require_gpu!();
    let a = Array::from_slice(&[10i32, 20, 30], &[3]).unwrap();
    let bad = Array::from_slice(&[0i64, 3], &[2]).unwrap();
    let good = Array::from_slice(&[2i64, -3], &[2]).unwrap();
    let oob = "index 3 is out of bounds for axis 0 with size 3";
    for round in 0..3 {
        assert_err(ops::take(&a, &bad, None), ErrorKind::Shape, oob);
        let got = ops::take(&a, &good, None).unwrap();
        assert_eq!(got.to_vec::<i32>().unwrap(), vec![30, 10], "round {round}");

        let p = Array::zeros(&[3], DType::I32).unwrap();
        assert_err(ops::put(&p, &bad, 5i32), ErrorKind::Shape, oob);
        let q = Array::zeros(&[3], DType::I32).unwrap();
        ops::put(&q, &good, 7i32).unwrap();
        assert_eq!(q.to_vec::<i32>().unwrap(), vec![7, 0, 7], "round {round}");

        let c = Array::zeros(&[3], DType::I32).unwrap();
        assert_err(ops::scatter_add(&c, &bad, 1i32), ErrorKind::Shape, oob);
        let d = Array::zeros(&[3], DType::I32).unwrap();
        ops::scatter_add(&d, &good, 1i32).unwrap();
        assert_eq!(d.to_vec::<i32>().unwrap(), vec![1, 0, 1], "round {round}");
    }
}

/// Many bad indices at once (every one, and one in three): the error names one of them,
/// (one lane of a warp reports, while the flag reads clear: `report_bad_index`).
#[test]
fn raise_mode_with_many_bad_indices_names_one_of_them() {
    require_gpu!();
    let n = if common::on_host() { 20_000 } else { 4_000_000 };
    let a = Array::from_slice(&(0..1000).collect::<Vec<i32>>(), &[1000]).unwrap();
    let all_bad: Vec<i64> = (0..n as i64).map(|i| 1000 + i % 7).collect();
    let some_bad: Vec<i64> = (0..n as i64)
        .map(|i| if i % 3 == 0 { -1001 - i % 5 } else { i % 1000 })
        .collect();
    for (what, idx, allowed) in [
        ("all bad", &all_bad, (1000..1007).collect::<Vec<i64>>()),
        ("one in three", &some_bad, (-1005..=-1001).collect()),
    ] {
        let i = Array::from_slice(idx, &[n]).unwrap();
        let e = ops::take(&a, &i, None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape, "{what}");
        let named = allowed.iter().any(|b| {
            e.to_string().contains(&format!(
                "index {b} is out of bounds for axis 0 with size 1000"
            ))
        });
        assert!(named, "{what}: {e}");
        let c = Array::zeros(&[1000], DType::I32).unwrap();
        let e = ops::scatter_add(&c, &i, 1i32).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape, "{what}");
    }
}

// ---------------------------------------------------------------- joins

#[test]
fn concatenate_stack_and_split() {
    require_gpu!();
    let mut rng = Rng::new(51);
    for layout in LAYOUTS {
        let (va, vb) = (
            rand_vals(&mut rng, DType::F32, 12, 0, false),
            rand_vals(&mut rng, DType::F32, 20, 0, false),
        );
        let a = view_of(&va, &[3, 4], DType::F32, layout);
        let b = view_of(&vb, &[5, 4], DType::F32, Layout::Contiguous);
        let (ws, wv) = model::concatenate(&[(va.clone(), vec![3, 4]), (vb.clone(), vec![5, 4])], 0);
        let c = ops::concatenate(&[&a, &b], Some(0)).unwrap();
        assert_eq!(c.shape(), ws.as_slice());
        assert_same(&host(&c), &wv, &format!("axis 0 {layout:?}"));
        let bt = view_of(
            &rand_vals(&mut rng, DType::F32, 6, 0, false),
            &[3, 2],
            DType::F32,
            layout,
        );
        let vbt = host(&bt);
        let (ws, wv) = model::concatenate(&[(va.clone(), vec![3, 4]), (vbt, vec![3, 2])], 1);
        let c = ops::concatenate(&[&a, &bt], Some(-1)).unwrap();
        assert_eq!(c.shape(), ws.as_slice());
        assert_same(&host(&c), &wv, &format!("axis 1 {layout:?}"));
    }
    // axis None flattens; mixed dtypes promote; empty parts
    let x = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2]).unwrap();
    let y = Array::from_slice(&[0.5f32], &[1]).unwrap();
    let e = Array::zeros(&[0], DType::I32).unwrap();
    let c = ops::concatenate(&[&x, &e, &y], None).unwrap();
    assert_eq!(
        (c.dtype(), c.to_vec::<f64>().unwrap()),
        (DType::F64, vec![1.0, 2.0, 3.0, 4.0, 0.5])
    );
    // stack
    let s0 = ops::stack(&[&x, &x.t()], 0).unwrap();
    assert_eq!(
        (s0.shape(), s0.to_vec::<i32>().unwrap()),
        (&[2usize, 2, 2][..], vec![1, 2, 3, 4, 1, 3, 2, 4])
    );
    let s2 = ops::stack(&[&x, &x], -1).unwrap();
    assert_eq!(
        (s2.shape(), s2.to_vec::<i32>().unwrap()),
        (&[2usize, 2, 2][..], vec![1, 1, 2, 2, 3, 3, 4, 4])
    );
    let sc = Array::from_slice(&[7i32], &[]).unwrap();
    assert_eq!(
        ops::stack(&[&sc, &sc], 0).unwrap().to_vec::<i32>().unwrap(),
        vec![7, 7]
    );
    // split: views sharing memory
    let r = Array::arange(0.0, 12.0, 1.0, DType::I64)
        .unwrap()
        .reshape(&[3, 4])
        .unwrap();
    let parts = ops::split(&r, 2, 1).unwrap();
    assert_eq!(i64s(&parts[1]), vec![2, 3, 6, 7, 10, 11]);
    assert!(parts.iter().all(|p| p.shares_memory(&r)));
    let parts = ops::split(&r, [1, -1, 10], 0).unwrap();
    let sizes: Vec<&[usize]> = parts.iter().map(|p| p.shape()).collect();
    assert_eq!(sizes, vec![&[1usize, 4][..], &[1, 4], &[1, 4], &[0, 4]]);
    assert_eq!(
        ops::array_split(&r, 3, 1)
            .unwrap()
            .iter()
            .map(|p| p.shape()[1])
            .collect::<Vec<_>>(),
        vec![2, 1, 1]
    );
    // errors
    assert_err(
        ops::concatenate(&[], Some(0)),
        ErrorKind::InvalidArgument,
        "need at least one array",
    );
    assert_err(
        ops::concatenate(&[&sc, &sc], Some(0)),
        ErrorKind::Shape,
        "zero-dimensional arrays cannot be concatenated",
    );
    let bad = Array::zeros(&[3, 3], DType::I32).unwrap();
    assert_err(
        ops::concatenate(&[&x, &bad], Some(0)),
        ErrorKind::Shape,
        "along dimension 1, the array at index 0 has size 2 and the array at index 1 has size 3",
    );
    assert_err(
        ops::concatenate(&[&x, &y], Some(0)),
        ErrorKind::Shape,
        "array 0 has 2 dimension(s)",
    );
    assert_err(
        ops::concatenate(&[&x, &x], Some(2)),
        ErrorKind::Shape,
        "axis 2 is out of bounds",
    );
    assert_err(
        ops::stack(&[&x, &bad], 0),
        ErrorKind::Shape,
        "all input arrays must have the same shape",
    );
    assert_err(
        ops::stack(&[], 0),
        ErrorKind::InvalidArgument,
        "need at least one array",
    );
    assert_err(
        ops::split(&r, 3, 1),
        ErrorKind::Shape,
        "array split does not result in an equal division",
    );
    assert_err(
        ops::split(&r, 0, 1),
        ErrorKind::InvalidArgument,
        "number sections must be larger than 0",
    );
    assert_err(ops::split(&sc, 1, 0), ErrorKind::Shape, "0-d");
}

#[test]
fn concatenate_large_contiguous_parts() {
    require_gpu!();
    let n = 3_000_001;
    let a = Array::arange(0.0, n as f64, 1.0, DType::F32).unwrap();
    let b = Array::full(&[n], -1.0f32, DType::F32).unwrap();
    let c = ops::concatenate(&[&a, &b], Some(0))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(c.len(), 2 * n);
    assert!(c[..n].iter().enumerate().all(|(k, &v)| v == k as f32));
    assert!(c[n..].iter().all(|&v| v == -1.0));
}

// ------------------------------------- persistent look-back kernels over many tiles

/// The scans' persistent blocks loop over more tiles than the GPU holds at once, with
/// look-back windows of every width: past 2^24 elements for 4- and 8-byte accumulators,
/// complex128 (four status words a tile), and segments (rows) over many tiles.
#[test]
fn cumsum_past_2_pow_24_elements_and_every_status_width() {
    require_gpu!();
    let mut rng = Rng::new(71);
    // On the host device (two "SMs", so a few tiles fill it) 2^20 + 4097 elements and a
    // tenth of the other sizes: the same persistent loop over many tiles and the same
    // status widths; the GPU suite runs past 2^24 (`common::gpu_or_host`).
    let n = common::gpu_or_host(1usize << 24, 1 << 20) + 4097;
    let f: Vec<f32> = (0..n).map(|_| rng.f64(0.0, 1.0) as f32).collect();
    let got = ops::cumsum(&Array::from_slice(&f, &[n]).unwrap(), None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut s = 0f64;
    for (k, &v) in f.iter().enumerate() {
        s += v as f64;
        let tol = s * 5e-4 + 1e-3;
        assert!(
            (got[k] as f64 - s).abs() <= tol,
            "f32 element {k}: {} vs {s}",
            got[k]
        );
    }
    // int32 sums in int64 accumulators (two status words a tile): exact
    let iv: Vec<i32> = (0..n).map(|_| rng.usize(0, 2001) as i32 - 1000).collect();
    let gi = ops::cumsum(&Array::from_slice(&iv, &[n]).unwrap(), Some(0))
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    let mut acc = 0i64;
    for (k, &v) in iv.iter().enumerate() {
        acc += v as i64;
        assert_eq!(gi[k], acc, "i32 element {k}");
    }
    // complex128 (small integers: exact) and rows spanning many tiles, or many rows a tile
    let nc = common::gpu_or_host(1_000_003, 100_003);
    let cv: Vec<V> = (0..nc)
        .map(|_| C(rng.usize(0, 7) as f64 - 3.0, rng.usize(0, 7) as f64 - 3.0))
        .collect();
    let xc = dev_exact(&cv, &[nc], DType::C128);
    check_cum(&xc, &cv, None, false, &format!("cumsum complex128 {nc}"));
    let (long, many) = common::gpu_or_host((2_000_003, 1_000_001), (200_003, 100_001));
    for shape in [vec![3usize, long], vec![many, 3]] {
        let m: usize = shape.iter().product();
        let vals = rand_vals(&mut rng, DType::I32, m, 2000, false);
        let x = dev_exact(&vals, &shape, DType::I32);
        check_cum(&x, &vals, Some(1), false, &format!("cumsum {shape:?} rows"));
    }
}

/// The radix passes' look-back (several tiles a read) and the vectorised histogram over
/// more than 2^24 keys, keys alone and with positions (a stable argsort).
/// The first position where `got` and `want` differ, for a short failure message.
fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Option<usize> {
    if got.len() != want.len() {
        return Some(got.len().min(want.len()));
    }
    got.iter().zip(want).position(|(a, b)| a != b)
}

#[test]
fn scans_selection_and_sort_past_2_pow_31_bytes() {
    require_gpu!();
    skip_on_host!("2.4 GB arrays take minutes on a CPU");
    // 600M int32: 2.4 GB in, 4.8 GB out for the int64 scans.
    let (rows, len) = (60_000usize, 10_000usize);
    let n = rows * len;
    let x = cuprum::random::randint(-1000, 1000, &[n], DType::I32).unwrap();
    let host: Vec<i32> = x.to_vec().unwrap();
    let mut want: Vec<i64> = Vec::with_capacity(n);
    let mut acc = 0i64;
    for &v in &host {
        acc += v as i64;
        want.push(acc);
    }
    let got: Vec<i64> = ops::cumsum(&x, None).unwrap().to_vec().unwrap();
    assert_eq!(
        first_difference(&got, &want),
        None,
        "1-D cumsum of {n} int32"
    );
    drop(got);
    // the same as (60000, 10000) rows, a block per row: each row's prefix less the one
    // before it (from the last row back, so the one before is still the 1-D prefix)
    for r in (1..rows).rev() {
        let base = want[r * len - 1];
        for v in &mut want[r * len..(r + 1) * len] {
            *v -= base;
        }
    }
    let m2 = x.reshape(&[rows as isize, len as isize]).unwrap();
    let got: Vec<i64> = ops::cumsum(&m2, Some(1)).unwrap().to_vec().unwrap();
    assert_eq!(
        first_difference(&got, &want),
        None,
        "cumsum of {rows} rows of {len}"
    );
    drop((got, want));
    // a masked read of the negative elements (about half)
    let mask = ops::less(&x, 0i32).unwrap();
    let got: Vec<i32> = x.masked(&mask).get().unwrap().to_vec().unwrap();
    let neg: Vec<i32> = host.iter().copied().filter(|&v| v < 0).collect();
    assert_eq!(first_difference(&got, &neg), None, "x[x < 0] of {n} int32");
    drop((got, neg, mask));
    // sort
    let got: Vec<i32> = ops::sort(&x, None).unwrap().to_vec().unwrap();
    let mut sorted = host;
    sorted.sort_unstable();
    assert_eq!(first_difference(&got, &sorted), None, "sort of {n} int32");
}

#[test]
fn sort_and_argsort_past_2_pow_24_elements() {
    require_gpu!();
    skip_on_host!(
        "2^24 keys take minutes through the host device's block scheduler on two cores; the \
         multi-block look-back is covered on the host by the 10^6-key stable argsort"
    );
    let mut rng = Rng::new(72);
    let n = (1usize << 24) + 3;
    let f: Vec<f32> = (0..n).map(|_| rng.f64(-1e3, 1e3) as f32).collect();
    let got = ops::sort(&Array::from_slice(&f, &[n]).unwrap(), None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut want = f.clone();
    want.sort_unstable_by(|a, b| a.total_cmp(b));
    assert!(got == want, "sort of {n} float32");
    // duplicates everywhere: stability decides every position
    let iv: Vec<i32> = (0..n).map(|_| rng.usize(0, 1000) as i32 - 500).collect();
    let gi = i64s(&ops::argsort(&Array::from_slice(&iv, &[n]).unwrap(), None).unwrap());
    let mut wi: Vec<usize> = (0..n).collect();
    wi.sort_by_key(|&i| iv[i]);
    assert!(
        gi.iter().zip(&wi).all(|(&g, &w)| g == w as i64),
        "argsort of {n} int32"
    );
}

/// Boolean-mask reads and `nonzero` over more tiles than the GPU holds at once (the
/// persistent compaction), dense and sparse masks.
/// `x[m]` of `n` elements of one type, each selected with probability `p`, against the
/// host's filter.
fn check_masked_read<T: cuprum::Element + PartialEq + std::fmt::Debug>(
    rng: &mut Rng,
    n: usize,
    p: f64,
    make: impl Fn(usize) -> T,
) {
    let x: Vec<T> = (0..n).map(make).collect();
    let mask = rand_mask(rng, n, p);
    let xa = Array::from_slice(&x, &[n]).unwrap();
    let m = Array::from_slice(&mask, &[n]).unwrap();
    let got = xa.masked(&m).get().unwrap().to_vec::<T>().unwrap();
    let want: Vec<T> = x
        .into_iter()
        .zip(&mask)
        .filter(|(_, b)| **b)
        .map(|(v, _)| v)
        .collect();
    assert!(
        got == want,
        "masked read of {n} {}",
        std::any::type_name::<T>()
    );
}

#[test]
fn compaction_at_run_boundaries_of_every_item_size() {
    require_gpu!();
    let mut rng = Rng::new(74);
    // A block takes runs of 4 tiles: 16384 elements of 1 to 4 bytes, 8192 of 8, 4096 of
    // 16; around one and two runs, and a partial last tile.
    for n in [
        4095usize, 4097, 8191, 8193, 16383, 16384, 16385, 32769, 40000,
    ] {
        check_masked_read(&mut rng, n, 0.4, |i| (i % 251) as u8);
        check_masked_read(&mut rng, n, 0.4, |i| (i as i16).wrapping_mul(7));
        check_masked_read(&mut rng, n, 0.4, |i| i as f32 * 0.5);
        check_masked_read(&mut rng, n, 0.4, |i| i as f64 - 3.0);
        check_masked_read(&mut rng, n, 0.4, |i| {
            num_complex::Complex64::new(i as f64, -(i as f64))
        });
    }
}

#[test]
fn compaction_over_many_tiles() {
    require_gpu!();
    let mut rng = Rng::new(73);
    // on the host device (two "SMs") a million elements are already many tiles per block
    // (`common::gpu_or_host`)
    let n = common::gpu_or_host(6_000_007, 1_000_003);
    for p in [0.5, 0.03] {
        check_masked_read(&mut rng, n, p, |i| (i as f32).sin());
    }
    // nonzero of a 2-D bool mask (coordinates) and of 1-D float64 (8-byte mask items)
    let shape = common::gpu_or_host([2003usize, 3001], [503, 1001]);
    let mask = rand_mask(&mut rng, shape[0] * shape[1], 0.5);
    let got = ops::nonzero(&Array::from_slice(&mask, &shape).unwrap()).unwrap();
    let (rows, cols): (Vec<i64>, Vec<i64>) = (0..mask.len())
        .filter(|&i| mask[i])
        .map(|i| ((i / shape[1]) as i64, (i % shape[1]) as i64))
        .unzip();
    assert_eq!(got.len(), 2);
    assert!(
        i64s(&got[0]) == rows && i64s(&got[1]) == cols,
        "nonzero 2-D"
    );
    let nf = common::gpu_or_host(3_000_001, 500_001);
    let fv: Vec<f64> = (0..nf)
        .map(|_| {
            if coin(&mut rng) {
                0.0
            } else {
                rng.f64(-1.0, 1.0)
            }
        })
        .collect();
    let got = ops::nonzero(&Array::from_slice(&fv, &[nf]).unwrap()).unwrap();
    let want: Vec<i64> = (0..nf)
        .filter(|&i| fv[i] != 0.0)
        .map(|i| i as i64)
        .collect();
    assert!(i64s(&got[0]) == want, "nonzero float64");
}
