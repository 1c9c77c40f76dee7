//! Integration tests of NumPy's reduction keywords (`ops::ReduceOpts`: `ddof`, `dtype=`,
//! `out=`), complex `var` / `std`, the `nan*` reductions, `cumsum` / `cumprod` with
//! `dtype=` / `out=`, and the same options inside `fuse`, against NumPy 2 semantics.
//!
//! Every GPU result is compared with a host reference computed from random inputs made by
//! `common::Rng` (`common::numpy_model` values): the two-pass variance in f64 divided by
//! `max(n - ddof, 0)`, sums and products of the input cast to the requested dtype (integers
//! wrapping), NaN-skipping sums, means, extremes and first positions. Shapes: 0-d, empty,
//! one element, sizes that are no multiple of a block, and non-contiguous views. Every
//! error case is provoked and its kind and message checked. GPU tests begin with
//! `require_gpu!()` (the host device runs them where there is no GPU).

mod common;

use common::numpy_model::V::{self, C, F, I};
use common::numpy_model::{as_c, cast_v, close_v, dev, eps, host, round_float, view_of};
use common::{Rng, assert_err, dtypes};
use cuprum::fuse::{ArgSpec, fuse};
use cuprum::ops::{Keepdims, ReduceOpts};
use cuprum::{Array, DType, DTypeKind, ErrorKind, ops};

// =========================================================================================
// Inputs and host references
// =========================================================================================

/// A random non-zero value of `d`: integers in ±[1, 50] (unsigned [1, 100]), floats and
/// complex parts in ±[0.5, 10).
fn val(rng: &mut Rng, d: DType) -> V {
    let v = match d.kind() {
        DTypeKind::Bool => V::B(rng.next_u64() & 1 == 1),
        DTypeKind::SignedInt => {
            I(rng.usize(1, 51) as i128 * if rng.next_u64() & 1 == 1 { 1 } else { -1 })
        }
        DTypeKind::UnsignedInt => I(rng.usize(1, 101) as i128),
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Float | DTypeKind::Complex => {
            common::numpy_model::rand_signed(rng, d, 0.5, 10.0)
        }
    };
    cast_v(v, d)
}

fn vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    (0..n).map(|_| val(rng, d)).collect()
}

/// The groups of C-order positions each output of a reduction of `shape` over `axis`
/// (`None`: every axis) reduces, in the output's C order. 2-D (or 0-d / 1-D) shapes.
fn groups(shape: &[usize], axis: Option<usize>) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    match axis {
        None => vec![(0..n).collect()],
        Some(0) if shape.len() == 1 => vec![(0..n).collect()],
        Some(0) => (0..shape[1])
            .map(|c| (0..shape[0]).map(|r| r * shape[1] + c).collect())
            .collect(),
        Some(_) => (0..shape[0])
            .map(|r| (0..shape[1]).map(|c| r * shape[1] + c).collect())
            .collect(),
    }
}

/// NumPy's variance of the values (complex: `mean(|x - mean|^2)`), divided by
/// `max(n - ddof, 0)`.
fn var_ref(xs: &[V], ddof: f64) -> f64 {
    let n = xs.len() as f64;
    let (mut sr, mut si) = (0.0, 0.0);
    for &x in xs {
        let (r, i) = as_c(x);
        sr += r;
        si += i;
    }
    let (mr, mi) = (sr / n, si / n);
    let m2: f64 = xs
        .iter()
        .map(|&x| {
            let (r, i) = as_c(x);
            (r - mr).powi(2) + (i - mi).powi(2)
        })
        .sum();
    m2 / (n - ddof).max(0.0)
}

/// NumPy's result dtype of var / std without `dtype=`.
fn var_dtype(d: DType) -> DType {
    match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => d,
        _ => DType::F64,
    }
}

/// A tolerance for results of dtype `d` around magnitude `m` after `n` steps.
fn tol(d: DType, m: f64, n: usize) -> f64 {
    let e = match d.kind() {
        DTypeKind::Float | DTypeKind::Complex => eps(d),
        _ => 2f64.powi(-52),
    };
    e * m.abs().max(1.0) * (8.0 + (n as f64).sqrt() * 4.0)
}

fn check(got: &Array, want: &[V], d: DType, n: usize, what: &str) {
    assert_eq!(got.dtype(), d, "{what}: dtype");
    let g = host(got);
    assert_eq!(g.len(), want.len(), "{what}: size");
    for (k, (&gv, &wv)) in g.iter().zip(want).enumerate() {
        let m = match wv {
            F(f) => f,
            C(r, i) => r.abs().max(i.abs()),
            _ => 0.0,
        };
        assert!(
            close_v(gv, wv, tol(d, m, n)),
            "{what}: element {k}: got {gv:?}, want {wv:?}"
        );
    }
}

// =========================================================================================
// var / std: ddof, complex input, odd shapes and views
// =========================================================================================

#[test]
fn var_and_std_take_ddof_on_every_dtype_and_layout() {
    require_gpu!();
    let mut rng = Rng::new(11);
    for (i, d) in dtypes(DType::ALL).into_iter().enumerate() {
        if d == DType::Bool {
            continue;
        }
        let out_d = var_dtype(d);
        // (shape, axis, view kind)
        let cases: [(&[usize], Option<usize>, usize); 6] = [
            (&[], None, 0),
            (&[0], None, 0),
            (&[1], None, 0),
            (&[3, 333], Some(1), 0),
            (&[37, 5], Some(0), 1),
            (&[6, 7], None, 2),
        ];
        for (j, (shape, axis, kind)) in cases.into_iter().enumerate() {
            let n: usize = shape.iter().product();
            let xs = vals(&mut rng, d, n);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let a = view_of(&xs, shape, d, kind);
            // ddof 0, a fractional one (past the count of the small shapes), and 1 (std)
            for ddof in [0.0, 2.5, 1.0] {
                let mut o = ReduceOpts::new();
                if ddof != 0.0 {
                    o = o.ddof(ddof);
                }
                if let Some(ax) = axis {
                    o = o.axis(ax as isize);
                }
                let want: Vec<V> = groups(shape, axis)
                    .iter()
                    .map(|g| {
                        let sel: Vec<V> = g.iter().map(|&k| xs[k]).collect();
                        F(round_float(var_ref(&sel, ddof), out_d))
                    })
                    .collect();
                let what = format!("var {d} {shape:?} axis {axis:?} view {kind} ddof {ddof}");
                if ddof != 1.0 {
                    let got =
                        ops::var_with(&a, o.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
                    check(&got, &want, out_d, n, &what);
                } else {
                    let s = a.std_with(o).unwrap_or_else(|e| panic!("std {what}: {e}"));
                    let sw: Vec<V> = want
                        .iter()
                        .map(|&v| match v {
                            F(f) => F(round_float(f.sqrt(), out_d)),
                            other => other,
                        })
                        .collect();
                    check(&s, &sw, out_d, n, &format!("std {what}"));
                }
            }
        }
    }
}

#[test]
fn ddof_at_or_past_the_count_gives_inf_or_nan_as_numpy() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f64, 2.0, 4.0], &[3]).unwrap();
    for ddof in [3.0, 4.0, 1e300] {
        let v = ops::var_with(&a, ReduceOpts::new().ddof(ddof)).unwrap();
        assert_eq!(
            v.to_vec::<f64>().unwrap(),
            vec![f64::INFINITY],
            "ddof {ddof}"
        );
    }
    let same = Array::from_slice(&[2.0f64, 2.0], &[2]).unwrap();
    let v = ops::std_with(&same, ReduceOpts::new().ddof(3.0)).unwrap();
    assert!(v.to_vec::<f64>().unwrap()[0].is_nan());
    // a negative ddof divides by more than n, as NumPy
    let v = ops::var_with(&a, ReduceOpts::new().ddof(-1.0)).unwrap();
    let want = var_ref(&[F(1.0), F(2.0), F(4.0)], -1.0);
    assert!((v.to_vec::<f64>().unwrap()[0] - want).abs() < 1e-12);
}

#[test]
fn complex_var_is_the_real_variance_of_the_values() {
    require_gpu!();
    // NumPy: np.var([1+2j, 3-1j, 0.5j]) == 3.0555555555555554 (float64)
    let z = [
        num_complex::Complex::new(1.0f64, 2.0),
        num_complex::Complex::new(3.0, -1.0),
        num_complex::Complex::new(0.0, 0.5),
    ];
    let a = Array::from_slice(&z, &[3]).unwrap();
    let v = ops::var(&a).unwrap();
    assert_eq!(v.dtype(), DType::F64);
    assert!((v.to_vec::<f64>().unwrap()[0] - 3.055_555_555_555_555_4).abs() < 1e-12);
    // dtype=complex64: NumPy gives complex64(3.0555556+0j)
    let c = ops::var_with(&a, ReduceOpts::new().dtype(DType::C64)).unwrap();
    assert_eq!(c.dtype(), DType::C64);
    let got = c.to_vec::<num_complex::Complex<f32>>().unwrap()[0];
    assert!(
        (got.re - 3.055_555_6).abs() < 1e-5 && got.im == 0.0,
        "{got}"
    );
}

// =========================================================================================
// dtype=
// =========================================================================================

/// NumPy's sum / prod of `xs` cast to `t` (integers wrap per step; floats in f64).
fn fold_ref(xs: &[V], t: DType, prod: bool) -> V {
    let cs: Vec<V> = xs.iter().map(|&x| cast_v(x, t)).collect();
    match t.kind() {
        DTypeKind::Bool => {
            let mut b = cs.iter().map(|&v| v == V::B(true));
            V::B(if prod { b.all(|x| x) } else { b.any(|x| x) })
        }
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let mut acc: i128 = i128::from(prod);
            for v in cs {
                let I(i) = v else { unreachable!() };
                acc = common::numpy_model::wrap(if prod { acc * i } else { acc + i }, t);
            }
            I(acc)
        }
        _ => {
            let (mut r, mut im) = (f64::from(u8::from(prod)), 0.0);
            for v in cs {
                let (a, b) = as_c(v);
                if prod {
                    (r, im) = (r * a - im * b, r * b + im * a);
                } else {
                    (r, im) = (r + a, im + b);
                }
            }
            if t.kind() == DTypeKind::Complex {
                C(round_float(r, t), round_float(im, t))
            } else {
                F(round_float(r, t))
            }
        }
    }
}

#[test]
fn dtype_sets_the_accumulator_and_the_result() {
    require_gpu!();
    let mut rng = Rng::new(12);
    // (input, dtype=): wider, narrower (wrapping), float → int (each element truncated,
    // NumPy's unsafe cast), complex → real (the real part), int → bool, int → float16.
    let pairs = [
        (DType::F32, DType::F64),
        (DType::I32, DType::I8),
        (DType::F64, DType::I32),
        (DType::C128, DType::F64),
        (DType::I64, DType::Bool),
        (DType::U8, DType::F16),
        (DType::I16, DType::C64),
    ];
    for (i, (d, t)) in pairs.into_iter().enumerate() {
        for (j, (shape, axis, kind)) in [
            (&[1000usize][..], None, 0usize),
            (&[5, 41][..], Some(1usize), 1),
            (&[0][..], None, 0),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let xs = vals(&mut rng, d, n);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let a = view_of(&xs, shape, d, kind);
            let mut o = ReduceOpts::new().dtype(t);
            if let Some(ax) = axis {
                o = o.axis(ax as isize);
            }
            let gs = groups(shape, axis);
            let what = format!("{d} dtype={t} {shape:?}");
            let sel = |g: &Vec<usize>| g.iter().map(|&k| xs[k]).collect::<Vec<V>>();
            let want: Vec<V> = gs.iter().map(|g| fold_ref(&sel(g), t, false)).collect();
            let got = ops::sum_with(&a, o.clone()).unwrap_or_else(|e| panic!("sum {what}: {e}"));
            check(&got, &want, t, n, &format!("sum {what}"));
            // products of short groups only (no overflow to inf in the floats)
            if n <= 41 * 5 && axis.is_some() {
                let small: Vec<Vec<usize>> = gs.iter().map(|g| g[..4].to_vec()).collect();
                let b = a.slice(&cuprum::s![.., 0..4]).unwrap();
                let want: Vec<V> = small.iter().map(|g| fold_ref(&sel(g), t, true)).collect();
                let got = ops::prod_with(&b, o.clone()).unwrap();
                check(&got, &want, t, 4, &format!("prod {what}"));
            }
            // mean: the sum in dtype, divided (integer dtypes truncate the quotient)
            let want: Vec<V> = gs
                .iter()
                .map(|g| {
                    let s = fold_ref(&sel(g), t, false);
                    let k = g.len() as f64;
                    match s {
                        V::B(b) => V::B(f64::from(u8::from(b)) / k != 0.0),
                        I(i) if k > 0.0 => cast_v(F(i as f64 / k), t),
                        I(_) => cast_v(F(f64::NAN), t),
                        F(f) => F(round_float(f / k, t)),
                        C(r, i) => C(round_float(r / k, t), round_float(i / k, t)),
                    }
                })
                .collect();
            if !(n == 0 && matches!(t.kind(), DTypeKind::SignedInt | DTypeKind::Bool)) {
                let got = ops::mean_with(&a, o).unwrap_or_else(|e| panic!("mean {what}: {e}"));
                check(&got, &want, t, n, &format!("mean {what}"));
            }
        }
    }
}

#[test]
fn var_takes_float_and_complex_dtypes_and_refuses_integer_ones() {
    require_gpu!();
    let mut rng = Rng::new(13);
    let xs = vals(&mut rng, DType::I32, 257);
    let a = dev(&xs, &[257], DType::I32);
    let v = ops::var_with(&a, ReduceOpts::new().dtype(DType::F32).ddof(1.0)).unwrap();
    check(
        &v,
        &[F(round_float(var_ref(&xs, 1.0), DType::F32))],
        DType::F32,
        257,
        "var f32",
    );
    let s = ops::std_with(&a, ReduceOpts::new().dtype(DType::C128)).unwrap();
    check(
        &s,
        &[C(var_ref(&xs, 0.0).sqrt(), 0.0)],
        DType::C128,
        257,
        "std c128",
    );
    assert_err(
        ops::var_with(&a, ReduceOpts::new().dtype(DType::I32)),
        ErrorKind::Unsupported,
        "var with dtype=int32: NumPy truncates",
    );
    let z = dev(&vals(&mut rng, DType::C64, 4), &[4], DType::C64);
    assert_err(
        ops::std_with(&z, ReduceOpts::new().dtype(DType::F64)),
        ErrorKind::Unsupported,
        "std of complex64 values with dtype=float64",
    );
}

// =========================================================================================
// out=
// =========================================================================================

#[test]
fn out_takes_the_result_cast_to_its_dtype() {
    require_gpu!();
    let x = Array::from_slice(&[1.5f64, 2.5, 4.0, -7.25, 0.5, 3.0], &[2, 3]).unwrap();
    // NumPy: np.sum(x, out=np.zeros((), np.int32)) == 4 (the float64 sum, cast)
    let o = Array::zeros(&[], DType::I32).unwrap();
    let r = ops::sum_with(&x, ReduceOpts::new().out(&o)).unwrap();
    assert_eq!(o.to_vec::<i32>().unwrap(), vec![4]);
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![4]);
    // into a non-contiguous view (a column of a wider array), keepdims
    let wide = Array::zeros(&[2, 3], DType::F32).unwrap();
    let col = wide.slice(&cuprum::s![.., 1..2]).unwrap();
    ops::mean_with(&x, ReduceOpts::new().axis(-1).keepdims(true).out(&col)).unwrap();
    let got = wide.to_vec::<f32>().unwrap();
    assert_eq!(got, vec![0.0, 8.0 / 3.0, 0.0, 0.0, -3.75 / 3.0, 0.0]);
    // max into int32, var into complex128, argmax into uint8, all into float32
    let o = Array::zeros(&[3], DType::I32).unwrap();
    ops::max_with(&x, ReduceOpts::new().axis(0).out(&o)).unwrap();
    assert_eq!(o.to_vec::<i32>().unwrap(), vec![1, 2, 4]);
    let o = Array::zeros(&[], DType::C128).unwrap();
    ops::var_with(&x, ReduceOpts::new().ddof(1.0).out(&o)).unwrap();
    let vals: Vec<V> = [1.5, 2.5, 4.0, -7.25, 0.5, 3.0]
        .iter()
        .map(|&f| F(f))
        .collect();
    check(
        &o,
        &[C(var_ref(&vals, 1.0), 0.0)],
        DType::C128,
        6,
        "var into complex128",
    );
    let o = Array::zeros(&[2], DType::U8).unwrap();
    ops::argmax_with(&x, ReduceOpts::new().axis(1).out(&o)).unwrap();
    assert_eq!(o.to_vec::<u8>().unwrap(), vec![2, 2]);
    let o = Array::zeros(&[2], DType::F32).unwrap();
    ops::all_with(&x, ReduceOpts::new().axis(1).out(&o)).unwrap();
    assert_eq!(o.to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
    // nanargmax into int32 (through a checked int64 result)
    let o = Array::zeros(&[], DType::I32).unwrap();
    ops::nanargmin_with(&x, ReduceOpts::new().out(&o)).unwrap();
    assert_eq!(o.to_vec::<i32>().unwrap(), vec![3]);
}

#[test]
fn bad_options_are_typed_errors_with_numpys_words() {
    require_gpu!();
    let x = Array::ones(&[2, 3], DType::F64).unwrap();
    let zeros = |s: &[usize], d| Array::zeros(s, d).unwrap();
    let o1 = zeros(&[1], DType::F64);
    assert_err(
        ops::sum_with(&x, ReduceOpts::new().out(&o1)),
        ErrorKind::Shape,
        "output parameter for reduction operation add has the wrong number of dimensions: Found 1 but expected 0",
    );
    let o3 = zeros(&[3], DType::F64);
    assert_err(
        ops::prod_with(&x, ReduceOpts::new().axis(1).out(&o3)),
        ErrorKind::Shape,
        "output parameter for reduction operation multiply has the wrong shape: expected (2,), got (3,)",
    );
    let o2 = zeros(&[2], DType::F64);
    assert_err(
        ops::max_with(&x, ReduceOpts::new().axis(1).keepdims(true).out(&o2)),
        ErrorKind::Shape,
        "maximum has the wrong number of dimensions: Found 1 but expected 2 (must match the operand's when keepdims=True)",
    );
    let u = zeros(&[], DType::U64);
    assert_err(
        ops::argmax_with(&x, ReduceOpts::new().out(&u)),
        ErrorKind::DType,
        "Cannot cast scalar from dtype('uint64') to dtype('int64') according to the rule 'safe'",
    );
    let f = zeros(&[], DType::F64);
    assert_err(
        ops::nanargmin_with(&x, ReduceOpts::new().out(&f)),
        ErrorKind::DType,
        "dtype('float64') to dtype('int64')",
    );
    let i2 = zeros(&[2], DType::I64);
    assert_err(
        ops::argmin_with(&x, ReduceOpts::new().out(&i2)),
        ErrorKind::Shape,
        "output array does not match result of np.argmin: expected shape (), got (2,)",
    );
    let i0 = zeros(&[], DType::I64);
    assert_err(
        ops::count_nonzero_with(&x, ReduceOpts::new().out(&i0)),
        ErrorKind::InvalidArgument,
        "count_nonzero() got an unexpected keyword argument 'out'",
    );
    assert_err(
        ops::max_with(&x, ReduceOpts::new().dtype(DType::F32)),
        ErrorKind::InvalidArgument,
        "max() got an unexpected keyword argument 'dtype'",
    );
    assert_err(
        ops::nanargmax_with(&x, ReduceOpts::new().dtype(DType::F32)),
        ErrorKind::InvalidArgument,
        "nanargmax() got an unexpected keyword argument 'dtype'",
    );
    assert_err(
        ops::mean_with(&x, ReduceOpts::new().ddof(1.0)),
        ErrorKind::InvalidArgument,
        "mean() got an unexpected keyword argument 'ddof'",
    );
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_err(
            ops::std_with(&x, ReduceOpts::new().ddof(bad)),
            ErrorKind::InvalidArgument,
            "std: ddof must be a finite number, got",
        );
    }
    assert_err(
        ops::argmax_with(&x, ReduceOpts::new().axis([0, 1])),
        ErrorKind::InvalidArgument,
        "argmax takes one axis or none, got [0, 1]",
    );
    assert_err(
        ops::sum_with(&x, ReduceOpts::new().axis([1, -1]).out(&o3)),
        ErrorKind::Shape,
        "duplicate value in 'axis'",
    );
    assert_err(
        ops::sum_with(&x, ReduceOpts::new().axis(2)),
        ErrorKind::Shape,
        "",
    );
    // scans
    assert_err(
        ops::cumsum_with(&x, ReduceOpts::new().out(&o2)),
        ErrorKind::Shape,
        "cumsum: provided out is the wrong size for the accumulation: expected shape (6,), got (2,)",
    );
    assert_err(
        ops::cumprod_with(&x, ReduceOpts::new().axis([0, 1])),
        ErrorKind::InvalidArgument,
        "cumprod takes one axis or none, got [0, 1]",
    );
    assert_err(
        ops::cumsum_with(&x, ReduceOpts::new().keepdims(true)),
        ErrorKind::InvalidArgument,
        "cumsum() got an unexpected keyword argument 'keepdims'",
    );
    assert_err(
        ops::cumsum_with(&x, ReduceOpts::new().ddof(1.0)),
        ErrorKind::InvalidArgument,
        "cumsum() got an unexpected keyword argument 'ddof'",
    );
}

// =========================================================================================
// nan* reductions
// =========================================================================================

/// Random values of float or complex `d`, about a third of them NaN, with the second row
/// all NaN.
fn with_nans(rng: &mut Rng, d: DType, rows: usize, cols: usize) -> Vec<V> {
    let nan = if d.kind() == DTypeKind::Complex {
        C(f64::NAN, 1.0)
    } else {
        F(f64::NAN)
    };
    (0..rows * cols)
        .map(|k| {
            if k / cols == 1 || rng.usize(0, 3) == 0 {
                nan
            } else {
                val(rng, d)
            }
        })
        .collect()
}

fn nan_v(v: V) -> bool {
    let (r, i) = as_c(v);
    r.is_nan() || i.is_nan()
}

#[test]
fn nan_reductions_skip_nans() {
    require_gpu!();
    let mut rng = Rng::new(14);
    let floats: Vec<DType> = dtypes(DType::ALL)
        .into_iter()
        .filter(|d| matches!(d.kind(), DTypeKind::Float | DTypeKind::Complex))
        .collect();
    for (i, d) in floats.into_iter().enumerate() {
        let complex = d.kind() == DTypeKind::Complex;
        let (rows, cols) = (4, 67);
        let xs = with_nans(&mut rng, d, rows, cols);
        for (j, kind) in [0, 2].into_iter().enumerate() {
            if !common::sweep_one_of(i, j, 2) {
                continue;
            }
            let a = view_of(&xs, &[rows, cols], d, kind);
            let gs = groups(&[rows, cols], Some(1));
            let keep = |g: &Vec<usize>| -> Vec<V> {
                g.iter().map(|&k| xs[k]).filter(|&v| !nan_v(v)).collect()
            };
            let what = format!("{d} view {kind}");
            let acc = if matches!(d, DType::F16 | DType::BF16) {
                DType::F32
            } else {
                d
            };
            // nansum, nanmean
            let sums: Vec<V> = gs.iter().map(|g| fold_ref(&keep(g), acc, false)).collect();
            let want: Vec<V> = sums.iter().map(|&s| cast_v(s, d)).collect();
            let got = ops::nansum_with(&a, ReduceOpts::new().axis(1)).unwrap();
            check(&got, &want, d, cols, &format!("nansum {what}"));
            let want: Vec<V> = gs
                .iter()
                .zip(&sums)
                .map(|(g, &s)| {
                    let k = keep(g).len() as f64;
                    let (r, i) = as_c(s);
                    if complex {
                        C(round_float(r / k, d), round_float(i / k, d))
                    } else {
                        F(round_float(r / k, d))
                    }
                })
                .collect();
            let got = ops::nanmean_axis(&a, 1, Keepdims::No).unwrap();
            check(&got, &want, d, cols, &format!("nanmean {what}"));
            if complex {
                // NumPy's lexicographic order (real parts, then imaginary ones), NaNs skipped:
                // the first row, which has values that are not NaN
                let ok = view_of(&xs[..cols], &[1, cols], d, kind);
                let kept = keep(&gs[0]);
                let order = |x: &&V, y: &&V| as_c(**x).partial_cmp(&as_c(**y)).unwrap();
                let hi = *kept.iter().max_by(order).unwrap();
                let lo = *kept.iter().min_by(order).unwrap();
                let got = ops::nanmax_with(&ok, ReduceOpts::new().axis(1)).unwrap();
                check(&got, &[hi], d, cols, &format!("nanmax {what}"));
                let first = xs[..cols]
                    .iter()
                    .position(|&v| !nan_v(v) && as_c(v) == as_c(lo))
                    .unwrap();
                let got = ops::nanargmin_axis(&ok, 1, Keepdims::No).unwrap();
                assert_eq!(got.to_vec::<i64>().unwrap(), vec![first as i64], "{what}");
                continue;
            }
            // nanmax / nanmin: NaN only for the all-NaN row
            for (max, name) in [(true, "nanmax"), (false, "nanmin")] {
                let want: Vec<V> = gs
                    .iter()
                    .map(|g| {
                        let k = keep(g);
                        let f = k.iter().map(|&v| as_c(v).0);
                        F(if k.is_empty() {
                            f64::NAN
                        } else if max {
                            f.fold(f64::MIN, f64::max)
                        } else {
                            f.fold(f64::MAX, f64::min)
                        })
                    })
                    .collect();
                let o = ReduceOpts::new().axis(-1);
                let got = if max {
                    a.nanmax_with(o).unwrap()
                } else {
                    a.nanmin_with(o).unwrap()
                };
                check(&got, &want, d, cols, &format!("{name} {what}"));
                // nanargmax / nanargmin: the first extreme of each row but the all-NaN one
                let ok = view_of(&xs[..cols], &[1, cols], d, kind);
                let got = if max {
                    ops::nanargmax_axis(&ok, 1, Keepdims::Yes).unwrap()
                } else {
                    ops::nanargmin_axis(&ok, 1, Keepdims::Yes).unwrap()
                };
                assert_eq!(got.shape(), &[1, 1]);
                let F(best) = want[0] else { unreachable!() };
                let first = xs[..cols].iter().position(|&v| v == F(best)).unwrap();
                assert_eq!(
                    got.to_vec::<i64>().unwrap(),
                    vec![first as i64],
                    "{name} {what}"
                );
                let r = if max {
                    ops::nanargmax_axis(&a, 1, Keepdims::No)
                } else {
                    ops::nanargmin_axis(&a, 1, Keepdims::No)
                };
                assert_err(r, ErrorKind::InvalidArgument, "All-NaN slice encountered");
            }
        }
    }
}

#[test]
fn nan_reductions_of_edge_cases_follow_numpy() {
    require_gpu!();
    let nn = Array::from_slice(&[f64::NAN, f64::NAN], &[2]).unwrap();
    assert_eq!(
        ops::nansum(&nn).unwrap().to_vec::<f64>().unwrap(),
        vec![0.0]
    );
    assert!(ops::nanmean(&nn).unwrap().to_vec::<f64>().unwrap()[0].is_nan());
    assert!(ops::nanmax(&nn).unwrap().to_vec::<f64>().unwrap()[0].is_nan());
    assert!(nn.nanmin().unwrap().to_vec::<f64>().unwrap()[0].is_nan());
    assert_err(
        nn.nanargmax(),
        ErrorKind::InvalidArgument,
        "All-NaN slice encountered",
    );
    // -inf beats NaN in nanmax
    let m = Array::from_slice(&[f64::NEG_INFINITY, f64::NAN], &[2]).unwrap();
    assert_eq!(
        ops::nanmax(&m).unwrap().to_vec::<f64>().unwrap(),
        vec![f64::NEG_INFINITY]
    );
    assert_eq!(
        ops::nanargmax(&m).unwrap().to_vec::<i64>().unwrap(),
        vec![0]
    );
    let e = Array::zeros(&[0], DType::F32).unwrap();
    assert_eq!(ops::nansum(&e).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    assert!(ops::nanmean(&e).unwrap().to_vec::<f32>().unwrap()[0].is_nan());
    assert_err(
        ops::nanmax(&e),
        ErrorKind::InvalidArgument,
        "zero-size array to reduction operation fmax which has no identity",
    );
    assert_err(
        ops::nanmin(&e),
        ErrorKind::InvalidArgument,
        "zero-size array to reduction operation fmin which has no identity",
    );
    assert_err(
        ops::nanargmax(&e),
        ErrorKind::InvalidArgument,
        "zero-size array",
    );
    // a 0-d NaN
    let z = Array::from_slice(&[f32::NAN], &[]).unwrap();
    assert_eq!(ops::nansum(&z).unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    // dtype= on nanmean: an integer mean of the non-NaN values (NumPy: int32(2))
    let n = Array::from_slice(&[1.0f64, f64::NAN, 3.5], &[3]).unwrap();
    let r = ops::nanmean_with(&n, ReduceOpts::new().dtype(DType::I32)).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![2]);
    let r = ops::nansum_with(&n, ReduceOpts::new().dtype(DType::F32)).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![4.5]);
}

#[test]
fn nan_reductions_of_integers_are_the_plain_ones() {
    require_gpu!();
    let mut rng = Rng::new(15);
    for d in dtypes(DType::ALL) {
        if matches!(d.kind(), DTypeKind::Float | DTypeKind::Complex) {
            continue;
        }
        let xs = vals(&mut rng, d, 3 * 17);
        let a = view_of(&xs, &[3, 17], d, 1);
        let pairs = [
            (
                ops::nansum_axis(&a, 0, Keepdims::No),
                ops::sum_axis(&a, 0, Keepdims::No),
            ),
            (ops::nanmean(&a), ops::mean(&a)),
            (
                ops::nanmax_axis(&a, 1, Keepdims::Yes),
                ops::max_axis(&a, 1, Keepdims::Yes),
            ),
            (ops::nanmin(&a), ops::min(&a)),
            (ops::nanargmax(&a), ops::argmax(&a)),
            (
                ops::nanargmin_axis(&a, 0, Keepdims::No),
                ops::argmin_axis(&a, 0, Keepdims::No),
            ),
        ];
        for (k, (g, w)) in pairs.into_iter().enumerate() {
            let (g, w) = (g.unwrap(), w.unwrap());
            assert_eq!(g.dtype(), w.dtype(), "{d} pair {k}");
            assert_eq!(host(&g), host(&w), "{d} pair {k}");
        }
    }
}

// =========================================================================================
// cumsum / cumprod: dtype=, out=
// =========================================================================================

#[test]
fn scans_take_dtype_and_out() {
    require_gpu!();
    let mut rng = Rng::new(16);
    for (i, (d, t)) in [
        (DType::I32, DType::I8),
        (DType::F64, DType::I32),
        (DType::I16, DType::F32),
        (DType::C128, DType::F64),
        (DType::U8, DType::Bool),
    ]
    .into_iter()
    .enumerate()
    {
        for (j, (shape, axis, kind)) in [
            (&[5000usize][..], None, 0usize),
            (&[3, 41][..], Some(1isize), 2),
            (&[41, 3][..], Some(0), 1),
            (&[0][..], None, 0),
        ]
        .into_iter()
        .enumerate()
        {
            let n: usize = shape.iter().product();
            let xs = vals(&mut rng, d, n);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let a = view_of(&xs, shape, d, kind);
            let mut o = ReduceOpts::new().dtype(t);
            if let Some(ax) = axis {
                o = o.axis(ax);
            }
            // reference: running sums of each line of the scanned axis
            let mut want = vec![V::B(false); n];
            let lines: Vec<Vec<usize>> = match axis {
                None => vec![(0..n).collect()],
                Some(1) => groups(shape, Some(1)),
                Some(_) => groups(shape, Some(0)),
            };
            for line in &lines {
                for (j, &k) in line.iter().enumerate() {
                    let pre: Vec<V> = line[..=j].iter().map(|&p| xs[p]).collect();
                    want[k] = fold_ref(&pre, t, false);
                }
            }
            let what = format!("cumsum {d} dtype={t} {shape:?} axis {axis:?}");
            let got = ops::cumsum_with(&a, o).unwrap_or_else(|e| panic!("{what}: {e}"));
            let m = want.iter().map(|&v| as_c(v).0.abs()).fold(0.0, f64::max);
            let g = host(&got);
            assert_eq!(got.dtype(), t, "{what}");
            for (k, (&gv, &wv)) in g.iter().zip(&want).enumerate() {
                assert!(
                    close_v(gv, wv, tol(t, m, n)),
                    "{what}: {k}: {gv:?} vs {wv:?}"
                );
            }
        }
    }
    // out=: the result cast into it (NumPy: np.cumsum([1.5, 2.5, 4.0], out=int32) == [1, 4, 8])
    let x = Array::from_slice(&[1.5f64, 2.5, 4.0], &[3]).unwrap();
    let o = Array::zeros(&[3], DType::I32).unwrap();
    let r = x.cumsum_with(ReduceOpts::new().out(&o)).unwrap();
    assert_eq!(o.to_vec::<i32>().unwrap(), vec![1, 4, 8]);
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![1, 4, 8]);
    // a non-contiguous out, dtype= and out= together
    let wide = Array::zeros(&[3, 2], DType::F64).unwrap();
    let col = wide.slice(&cuprum::s![.., 1]).unwrap();
    x.cumprod_with(ReduceOpts::new().axis(0).dtype(DType::I32).out(&col))
        .unwrap();
    assert_eq!(
        wide.to_vec::<f64>().unwrap(),
        vec![0.0, 1.0, 0.0, 2.0, 0.0, 8.0]
    );
}

// =========================================================================================
// fuse
// =========================================================================================

#[test]
fn fused_reductions_take_ddof_and_dtype() {
    require_gpu!();
    let mut rng = Rng::new(17);
    let xs = vals(&mut rng, DType::F32, 7 * 130);
    let x = dev(&xs, &[7, 130], DType::F32);
    // two reductions with options side by side in one kernel
    let f = fuse("stats", |[x]| {
        let o = ReduceOpts::new().axis(1);
        [
            x.var_with(o.clone().ddof(1.0)),
            x.sum_with(o.dtype(DType::F64)),
        ]
    });
    let r = f.call_all((&x,)).unwrap();
    let v = ops::var_with(&x, ReduceOpts::new().axis(1).ddof(1.0)).unwrap();
    let s = ops::sum_with(&x, ReduceOpts::new().axis(1).dtype(DType::F64)).unwrap();
    assert_eq!(r[1].dtype(), DType::F64);
    let want_v: Vec<V> = groups(&[7, 130], Some(1))
        .iter()
        .map(|g| F(var_ref(&g.iter().map(|&k| xs[k]).collect::<Vec<_>>(), 1.0)))
        .collect();
    check(&r[0], &want_v, DType::F32, 130, "fused var ddof 1");
    check(&v, &want_v, DType::F32, 130, "ops var ddof 1");
    check(&r[1], &host(&s), DType::F64, 130, "fused sum dtype f64");
    // nan* inside fuse, complex var inside fuse
    let g = fuse("nanstats", |[x]| {
        [x.nanmax(), x.nanmean_axis(0, Keepdims::No)]
    });
    let y = Array::from_slice(&[1.0f64, f64::NAN, 3.0, f64::NAN], &[2, 2]).unwrap();
    let r = g.call_all((&y,)).unwrap();
    assert_eq!(r[0].to_vec::<f64>().unwrap(), vec![3.0]);
    let m = r[1].to_vec::<f64>().unwrap();
    assert_eq!(m[0], 2.0);
    assert!(m[1].is_nan());
    let h = fuse("cvar", |[z]| z.var_with(ReduceOpts::new().ddof(1.0)));
    let zs = vals(&mut rng, DType::C128, 50);
    let z = dev(&zs, &[50], DType::C128);
    let r = h.call((&z,)).unwrap();
    check(
        &r,
        &[F(var_ref(&zs, 1.0))],
        DType::F64,
        50,
        "fused complex var",
    );
}

#[test]
fn fused_option_errors_point_at_the_call() {
    let arr = |d, s: &[usize]| ArgSpec::array(d, s);
    let f = fuse("bad_out", |[x]| {
        let o = Array::zeros(&[], DType::F32).unwrap();
        x.sum_with(ReduceOpts::new().out(&o))
    });
    let e = f.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(
        e.to_string().contains("out= is not supported inside fuse"),
        "{e}"
    );
    let g = fuse("bad_dtype", |[x]| {
        x.var_with(ReduceOpts::new().dtype(DType::I64))
    });
    let e = g.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    let h = fuse("bad_ddof", |[x]| x.max_with(ReduceOpts::new().ddof(1.0)));
    let e = h.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert!(
        e.to_string()
            .contains("max() got an unexpected keyword argument 'ddof'"),
        "{e}"
    );
    let k = fuse("ok", |[x]| {
        x.std_with(ReduceOpts::new().axis(0).dtype(DType::F64))
    });
    let ex = k.explain_for(&[arr(DType::F16, &[3, 2])]).unwrap();
    assert_eq!(ex.outputs()[0], (DType::F64, vec![2]));
}
