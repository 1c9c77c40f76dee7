//! Integration tests of the built-in reductions (`ops::{sum, prod, mean, var, std, max, min,
//! argmax, argmin, all, any, count_nonzero}`, their `_axis` forms and the `Array`
//! methods) and of `isclose` / `allclose`, against NumPy 2 semantics: result dtypes (int64
//! / uint64 sums and products, float64 means of integers, 16-bit floats kept), wrapping
//! integer sums, NaN-propagating `max` / `min`, first-occurrence `argmax` / `argmin` (the
//! first NaN wins), ddof-0 `var` / `std`, the identities of empty reductions, axis tuples,
//! negative axes and `keepdims`, views (transposed, stepped, reversed, broadcast), and
//! NumPy's `isclose` formula `|x - y| <= atol + rtol * |y|` with infinities, NaNs,
//! broadcasting, scalars, complex and mixed dtypes.
//!
//! Every GPU result is compared with a reference computed on the host from random inputs
//! made by `common::Rng`: a small host model of NumPy's reductions (`V` values of
//! `common::numpy_model`, `plan` for the groups of elements each output reduces,
//! `reduce_host` for the value of one group, two-pass `var` in f64) and of `isclose`. Integer results must match exactly;
//! float results within a tolerance that scales with the dtype's epsilon, the depth of the
//! reduction and the magnitudes involved (loose for float16 / bfloat16). GPU tests begin
//! with `require_gpu!()`: without a GPU they print a SKIPPED line and return
//! (`CUPRUM_REQUIRE_GPU=1` makes that a failure).
//!
//! Tests named `*_numpy_divergence` pin down behaviour where the library differs from
//! NumPy (see their comments); they fail until the library is fixed.

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{
    as_c, as_int, close_v, dev_exact, eps, host, int_range, is_nan, magnitude, rand_signed,
    round_float, truthy, wrap,
};
use common::views::{c_order, c_strides};
use common::{Rng, coin, gpu_proptest_runner, picked_axes, signed};
use cuprum::ops::{Keepdims, Tolerance};
use cuprum::{Array, DType, DTypeKind, ErrorKind, SliceArg, ops, s};
use half::f16;
use num_complex::Complex;
use proptest::prelude::*;

// =========================================================================================
// A host model of values (besides `common::numpy_model`)
// =========================================================================================

/// `x > y` for two non-NaN real values of one kind.
fn greater(x: V, y: V) -> bool {
    match (x, y) {
        (B(a), B(b)) => a & !b,
        (I(a), I(b)) => a > b,
        (F(a), F(b)) => a > b,
        _ => panic!("cannot order {x:?} and {y:?}"),
    }
}

fn is_half(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16)
}

// =========================================================================================
// Random inputs
// =========================================================================================

/// A random non-zero value of `d`: integers over their whole range (so that sums leave the
/// input type and 64-bit sums wrap), floats and complex parts in ±[0.5, 10).
fn rand_val(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(coin(rng)),
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let (lo, hi) = int_range(d);
            let span = (hi - lo + 1) as u128;
            let v = lo + ((rng.next_u64() as u128) % span) as i128;
            I(if v == 0 { 1 } else { v })
        }
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Float | DTypeKind::Complex => rand_signed(rng, d, 0.5, 10.0),
    }
}

/// `n` random non-zero values of `d` (a bool array gets both values).
fn rand_vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    let mut v: Vec<V> = (0..n).map(|_| rand_val(rng, d)).collect();
    if d == DType::Bool && n > 1 {
        v[0] = B(true);
        v[1] = B(false);
    }
    v
}

/// A value of real dtype `d` from a handful (many ties): the integer extremes and a few
/// small integers, or a few floats and (rarely) ±inf.
fn tie_val(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(coin(rng)),
        DTypeKind::SignedInt => {
            let (lo, hi) = int_range(d);
            let c = [lo, -2, -1, 1, 1, 2, 2, hi];
            I(c[rng.usize(0, c.len())])
        }
        DTypeKind::UnsignedInt => {
            let (_, hi) = int_range(d);
            let c = [1, 1, 2, 2, 3, hi];
            I(c[rng.usize(0, c.len())])
        }
        DTypeKind::Float => {
            let c = [
                f64::NEG_INFINITY,
                -1.5,
                -1.5,
                0.5,
                0.5,
                2.5,
                2.5,
                f64::INFINITY,
            ];
            F(c[rng.usize(0, c.len())])
        }
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Complex => panic!("no ties for complex {d}"),
    }
}

fn tie_vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    (0..n).map(|_| tie_val(rng, d)).collect()
}

// =========================================================================================
// A host model of NumPy's reductions
// =========================================================================================

/// Which axes of an `nd`-dimensional array `axes` reduces (all when `None`; negative
/// axes count from the end).
fn reduced_mask(axes: Option<&[isize]>, nd: usize) -> Vec<bool> {
    let mut red = vec![axes.is_none(); nd];
    for &a in axes.unwrap_or(&[]) {
        let k = if a < 0 { a + nd as isize } else { a };
        red[k as usize] = true;
    }
    red
}

/// The output shape of a reduction and, per output element (C order), the C-order
/// positions of the input elements it reduces, themselves in C order of the reduced axes
/// (so that a position in a group is what argmax reports).
struct Plan {
    out_shape: Vec<usize>,
    groups: Vec<Vec<usize>>,
}

fn plan(shape: &[usize], axes: Option<&[isize]>, keepdims: bool) -> Plan {
    let nd = shape.len();
    let red = reduced_mask(axes, nd);
    let kept: Vec<usize> = (0..nd).filter(|&k| !red[k]).collect();
    let rax: Vec<usize> = (0..nd).filter(|&k| red[k]).collect();
    let kshape: Vec<usize> = kept.iter().map(|&k| shape[k]).collect();
    let rshape: Vec<usize> = rax.iter().map(|&k| shape[k]).collect();
    let st = c_strides(shape);
    let rpos = c_order(&rshape);
    let groups = c_order(&kshape)
        .iter()
        .map(|ko| {
            let base: usize = kept.iter().zip(ko).map(|(&k, &i)| i * st[k]).sum();
            rpos.iter()
                .map(|ro| base + rax.iter().zip(ro).map(|(&k, &i)| i * st[k]).sum::<usize>())
                .collect()
        })
        .collect();
    let out_shape = if keepdims {
        (0..nd).map(|k| if red[k] { 1 } else { shape[k] }).collect()
    } else {
        kshape
    };
    Plan { out_shape, groups }
}

/// Every reduction under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Sum,
    Prod,
    Mean,
    Var,
    Std,
    Max,
    Min,
    ArgMax,
    ArgMin,
    All,
    Any,
    Count,
}

/// NumPy's result dtype of `op` on `d`.
fn out_dtype(op: Op, d: DType) -> DType {
    let int_like = matches!(
        d.kind(),
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt
    );
    match op {
        Op::Sum | Op::Prod => match d.kind() {
            DTypeKind::Bool | DTypeKind::SignedInt => DType::I64,
            DTypeKind::UnsignedInt => DType::U64,
            _ => d,
        },
        Op::Mean | Op::Var | Op::Std if int_like => DType::F64,
        // the variance of complex values is real
        Op::Var | Op::Std if d == DType::C64 => DType::F32,
        Op::Var | Op::Std if d == DType::C128 => DType::F64,
        Op::Mean | Op::Var | Op::Std | Op::Max | Op::Min => d,
        Op::ArgMax | Op::ArgMin | Op::Count => DType::I64,
        Op::All | Op::Any => DType::Bool,
    }
}

/// The dtype the library accumulates float results in (float32 for the 16-bit floats).
fn acc_dtype(op: Op, d: DType) -> DType {
    if is_half(d) {
        DType::F32
    } else {
        out_dtype(op, d)
    }
}

fn mean_parts(xs: &[V]) -> (f64, f64) {
    let n = xs.len() as f64;
    let (re, im) = xs.iter().fold((0.0, 0.0), |(a, b), &x| {
        let (r, i) = as_c(x);
        (a + r, b + i)
    });
    (re / n, im / n)
}

/// Two-pass population variance (ddof 0) in f64.
fn var_host(xs: &[V]) -> f64 {
    let (m, mi) = mean_parts(xs);
    xs.iter()
        .map(|&x| {
            let (r, i) = as_c(x);
            (r - m).powi(2) + (i - mi).powi(2)
        })
        .sum::<f64>()
        / xs.len() as f64
}

/// The first largest (`max`) or smallest element, NaN propagating.
fn best(xs: &[V], max: bool) -> V {
    xs[argbest(xs, max)]
}

/// NumPy's argmax / argmin: the first NaN, else the first of the largest (smallest).
fn argbest(xs: &[V], max: bool) -> usize {
    let mut j = 0;
    for k in 1..xs.len() {
        if is_nan(xs[j]) {
            return j;
        }
        let better = if max {
            greater(xs[k], xs[j])
        } else {
            greater(xs[j], xs[k])
        };
        if is_nan(xs[k]) || better {
            j = k;
        }
    }
    j
}

/// NumPy's value of `op` over the group `xs` of dtype `d`.
fn reduce_host(op: Op, xs: &[V], d: DType) -> V {
    let out = out_dtype(op, d);
    let exact = out.is_integer();
    match op {
        Op::Sum if exact => I(xs.iter().fold(0, |a, &x| wrap(a + as_int(x), out))),
        Op::Prod if exact => I(xs
            .iter()
            .fold(1, |a: i128, &x| wrap(a.wrapping_mul(as_int(x)), out))),
        Op::Sum | Op::Prod => {
            let (mut re, mut im) = if op == Op::Sum {
                (0.0, 0.0)
            } else {
                (1.0, 0.0)
            };
            for &x in xs {
                let (r, i) = as_c(x);
                (re, im) = if op == Op::Sum {
                    (re + r, im + i)
                } else {
                    (re * r - im * i, re * i + im * r)
                };
            }
            if d.is_complex() { C(re, im) } else { F(re) }
        }
        Op::Mean => {
            let (re, im) = mean_parts(xs);
            if d.is_complex() { C(re, im) } else { F(re) }
        }
        Op::Var => F(var_host(xs)),
        Op::Std => F(var_host(xs).sqrt()),
        Op::Max => best(xs, true),
        Op::Min => best(xs, false),
        Op::ArgMax => I(argbest(xs, true) as i128),
        Op::ArgMin => I(argbest(xs, false) as i128),
        Op::All => B(xs.iter().all(|&x| truthy(x))),
        Op::Any => B(xs.iter().any(|&x| truthy(x))),
        Op::Count => I(xs.iter().filter(|&&x| truthy(x)).count() as i128),
    }
}

/// Absolute tolerance of the float result of `op` over `xs` (0 for exact results):
/// rounding in the accumulator over a reduction tree of depth ~log2(n) (doubled: threads
/// also add short runs sequentially), plus rounding to the output dtype.
fn tolerance(op: Op, xs: &[V], d: DType) -> f64 {
    let out = out_dtype(op, d);
    if !(out.is_float() || out.is_complex()) || matches!(op, Op::Max | Op::Min) {
        return 0.0;
    }
    let (ea, eo) = (eps(acc_dtype(op, d)), eps(out));
    let n = xs.len().max(1) as f64;
    let depth = 2.0 + 2.0 * n.log2();
    let sum_abs: f64 = xs.iter().map(|&x| magnitude(x)).sum();
    match op {
        Op::Sum => (depth * ea + eo) * sum_abs,
        Op::Prod => {
            let p = magnitude(reduce_host(Op::Prod, xs, d));
            ((2.0 * n + 4.0) * ea + eo) * p
        }
        Op::Mean => (depth * ea + eo) * sum_abs / n,
        Op::Var | Op::Std => {
            let mean_sq = xs.iter().map(|&x| magnitude(x).powi(2)).sum::<f64>() / n;
            let tv = (8.0 * depth * ea + eo) * mean_sq;
            if op == Op::Var {
                tv
            } else {
                let sd = var_host(xs).sqrt();
                let t = if sd * sd > tv { tv / sd } else { tv.sqrt() };
                t + eo * sd
            }
        }
        _ => 0.0,
    }
}

/// Runs `op` through `ops::*` (or the `Array` methods when `method`): the full form for
/// `axes == None` without keepdims, the axis form (every axis for `None`) otherwise.
fn call(
    op: Op,
    a: &Array,
    axes: Option<&[isize]>,
    keepdims: bool,
    method: bool,
) -> cuprum::Result<Array> {
    let all: Vec<isize> = (0..a.ndim() as isize).collect();
    let ax = match (axes, keepdims) {
        (None, false) => {
            return match (op, method) {
                (Op::Sum, false) => ops::sum(a),
                (Op::Sum, true) => a.sum(),
                (Op::Prod, false) => ops::prod(a),
                (Op::Prod, true) => a.prod(),
                (Op::Mean, false) => ops::mean(a),
                (Op::Mean, true) => a.mean(),
                (Op::Var, false) => ops::var(a),
                (Op::Var, true) => a.var(),
                (Op::Std, false) => ops::std(a),
                (Op::Std, true) => a.std(),
                (Op::Max, false) => ops::max(a),
                (Op::Max, true) => a.max(),
                (Op::Min, false) => ops::min(a),
                (Op::Min, true) => a.min(),
                (Op::ArgMax, false) => ops::argmax(a),
                (Op::ArgMax, true) => a.argmax(),
                (Op::ArgMin, false) => ops::argmin(a),
                (Op::ArgMin, true) => a.argmin(),
                (Op::All, false) => ops::all(a),
                (Op::All, true) => a.all(),
                (Op::Any, false) => ops::any(a),
                (Op::Any, true) => a.any(),
                (Op::Count, false) => ops::count_nonzero(a),
                (Op::Count, true) => a.count_nonzero(),
            };
        }
        (None, true) => &all[..],
        (Some(ax), _) => ax,
    };
    let keepdims = if keepdims {
        Keepdims::Yes
    } else {
        Keepdims::No
    };
    match (op, method) {
        (Op::Sum, false) => ops::sum_axis(a, ax, keepdims),
        (Op::Sum, true) => a.sum_axis(ax, keepdims),
        (Op::Prod, false) => ops::prod_axis(a, ax, keepdims),
        (Op::Prod, true) => a.prod_axis(ax, keepdims),
        (Op::Mean, false) => ops::mean_axis(a, ax, keepdims),
        (Op::Mean, true) => a.mean_axis(ax, keepdims),
        (Op::Var, false) => ops::var_axis(a, ax, keepdims),
        (Op::Var, true) => a.var_axis(ax, keepdims),
        (Op::Std, false) => ops::std_axis(a, ax, keepdims),
        (Op::Std, true) => a.std_axis(ax, keepdims),
        (Op::Max, false) => ops::max_axis(a, ax, keepdims),
        (Op::Max, true) => a.max_axis(ax, keepdims),
        (Op::Min, false) => ops::min_axis(a, ax, keepdims),
        (Op::Min, true) => a.min_axis(ax, keepdims),
        (Op::ArgMax | Op::ArgMin, _) => {
            assert_eq!(ax.len(), 1, "argmax / argmin take one axis");
            if op == Op::ArgMax {
                ops::argmax_axis(a, ax[0], keepdims)
            } else {
                ops::argmin_axis(a, ax[0], keepdims)
            }
        }
        (Op::All, false) => ops::all_axis(a, ax, keepdims),
        (Op::All, true) => a.all_axis(ax, keepdims),
        (Op::Any, false) => ops::any_axis(a, ax, keepdims),
        (Op::Any, true) => a.any_axis(ax, keepdims),
        (Op::Count, false) => ops::count_nonzero_axis(a, ax, keepdims),
        (Op::Count, true) => a.count_nonzero_axis(ax, keepdims),
    }
}

/// Asserts dtype, shape and values of `got` (integers and bools exactly, floats within
/// `tols[i]`, NaN matching NaN).
#[track_caller]
fn assert_result(ctx: &str, got: &Array, dtype: DType, shape: &[usize], want: &[V], tols: &[f64]) {
    assert_eq!(got.dtype(), dtype, "{ctx}: result dtype");
    assert_eq!(got.shape(), shape, "{ctx}: result shape");
    let g = host(got);
    assert_eq!(g.len(), want.len(), "{ctx}: result size");
    for (i, (&g, &w)) in g.iter().zip(want).enumerate() {
        let tol = tols.get(i).copied().unwrap_or(0.0);
        assert!(
            close_v(g, w, tol),
            "{ctx}: element {i}: got {g:?}, want {w:?} (tolerance {tol:e})"
        );
    }
}

/// Runs `op` on `a` (whose C-order values are `vals`) over `axes` and checks it against
/// the host model.
#[track_caller]
fn check_op(
    op: Op,
    a: &Array,
    vals: &[V],
    axes: Option<&[isize]>,
    keepdims: bool,
    method: bool,
    what: &str,
) {
    let d = a.dtype();
    let ctx = format!(
        "{what}: {op:?} of {d} {:?} (strides {:?}) over {axes:?}, keepdims={keepdims}{}",
        a.shape(),
        a.strides(),
        if method { " (method)" } else { "" }
    );
    let p = plan(a.shape(), axes, keepdims);
    let r = call(op, a, axes, keepdims, method).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut want = Vec::with_capacity(p.groups.len());
    let mut tols = Vec::with_capacity(p.groups.len());
    for g in &p.groups {
        let xs: Vec<V> = g.iter().map(|&i| vals[i]).collect();
        want.push(reduce_host(op, &xs, d));
        tols.push(tolerance(op, &xs, d));
    }
    assert_result(&ctx, &r, out_dtype(op, d), &p.out_shape, &want, &tols);
}

/// Unwraps the error of `r` and checks its kind.
#[track_caller]
fn expect_err<T>(r: cuprum::Result<T>, kind: ErrorKind, ctx: &str) -> cuprum::Error {
    match r {
        Ok(_) => panic!("{ctx}: expected a {kind:?} error, got Ok"),
        Err(e) => {
            assert_eq!(e.kind(), kind, "{ctx}: unexpected error kind: {e}");
            e
        }
    }
}

/// (axes, keepdims) cases for an `nd`-dimensional array: the full form, single axes
/// (negative ones too), axis tuples in any order, every axis with keepdims.
fn axis_cases(nd: usize) -> Vec<(Option<Vec<isize>>, bool)> {
    match nd {
        1 => vec![
            (None, false),
            (None, true),
            (Some(vec![0]), false),
            (Some(vec![-1]), true),
        ],
        2 => vec![
            (None, false),
            (Some(vec![0]), false),
            (Some(vec![1]), true),
            (Some(vec![-1]), false),
            (Some(vec![-2, -1]), true),
            (Some(vec![1, 0]), false),
        ],
        3 => vec![
            (None, false),
            (Some(vec![0]), false),
            (Some(vec![1]), true),
            (Some(vec![2]), false),
            (Some(vec![-1]), true),
            (Some(vec![0, 2]), false),
            (Some(vec![-3, -2]), true),
            (Some(vec![2, 0]), true),
            (Some(vec![0, 1, 2]), true),
            (Some(vec![-1, 0, 1]), false),
        ],
        _ => panic!("no cases for {nd} dimensions"),
    }
}

/// The single-axis cases (argmax / argmin).
fn single_axis_cases(nd: usize) -> Vec<(Option<Vec<isize>>, bool)> {
    let mut v = vec![(None, false)];
    for k in 0..nd as isize {
        v.push((Some(vec![k]), k % 2 == 1));
        v.push((Some(vec![k - nd as isize]), k % 2 == 0));
    }
    v
}

const REAL_DTYPES: [DType; 13] = [
    DType::Bool,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

/// The host model itself against values worked out by hand from NumPy's definitions (no
/// GPU needed).
#[test]
fn host_model_matches_numpy_by_hand() {
    let p = plan(&[2, 3], Some(&[1]), false);
    assert_eq!(
        (p.out_shape, p.groups),
        (vec![2], vec![vec![0, 1, 2], vec![3, 4, 5]])
    );
    let p = plan(&[2, 3], Some(&[0]), true);
    assert_eq!(p.out_shape, vec![1, 3]);
    assert_eq!(p.groups, vec![vec![0, 3], vec![1, 4], vec![2, 5]]);
    let p = plan(&[2, 3, 4], Some(&[-1, 0]), false);
    assert_eq!(p.out_shape, vec![3]);
    assert_eq!(p.groups[1], vec![4, 5, 6, 7, 16, 17, 18, 19]);
    let p = plan(&[2, 3], None, false);
    assert_eq!(
        (p.out_shape.len(), p.groups),
        (0, vec![(0..6).collect::<Vec<_>>()])
    );
    let p = plan(&[3, 0], Some(&[0]), false);
    assert_eq!((p.out_shape, p.groups.len()), (vec![0], 0));
    let p = plan(&[3, 0], Some(&[1]), false);
    assert_eq!(p.groups, vec![Vec::<usize>::new(); 3]);
    let p = plan(&[3], Some(&[]), false);
    assert_eq!(p.groups, vec![vec![0], vec![1], vec![2]]);
    // np.argmax([1, 3, 3, nan, nan]) == 3, np.argmax([1, 3, 3]) == 1, np.argmin([2, -1, -1]) == 1
    let f = |v: &[f64]| v.iter().map(|&x| F(x)).collect::<Vec<V>>();
    assert_eq!(argbest(&f(&[1.0, 3.0, 3.0, f64::NAN, f64::NAN]), true), 3);
    assert_eq!(argbest(&f(&[1.0, 3.0, 3.0]), true), 1);
    assert_eq!(argbest(&f(&[2.0, -1.0, -1.0]), false), 1);
    assert_eq!(argbest(&f(&[f64::NAN, 1.0]), false), 0);
    assert!(is_nan(best(&f(&[1.0, 2.0, f64::NAN]), true)));
    assert_eq!(best(&[B(false), B(true)], true), B(true));
    assert_eq!(best(&[I(-128), I(127)], false), I(-128));
    // np.sum(np.array([2**63 - 1, 1], np.int64)) wraps to -2**63; np.var([1, 2, 3, 4]) == 1.25
    assert_eq!(
        reduce_host(Op::Sum, &[I(i64::MAX as i128), I(1)], DType::I64),
        I(i64::MIN as i128)
    );
    assert_eq!(reduce_host(Op::Prod, &[I(-3), I(5)], DType::I8), I(-15));
    assert_eq!(reduce_host(Op::Sum, &[B(true), B(true)], DType::Bool), I(2));
    assert_eq!(
        reduce_host(Op::Var, &f(&[1.0, 2.0, 3.0, 4.0]), DType::F64),
        F(1.25)
    );
    assert_eq!(reduce_host(Op::Mean, &[I(1), I(2)], DType::I32), F(1.5));
    assert_eq!(
        reduce_host(Op::Count, &f(&[0.0, -0.0, f64::NAN, 2.0]), DType::F64),
        I(2)
    );
    assert_eq!(out_dtype(Op::Sum, DType::U8), DType::U64);
    assert_eq!(out_dtype(Op::Mean, DType::Bool), DType::F64);
    assert_eq!(out_dtype(Op::Max, DType::F16), DType::F16);
    // np.isclose(1, inf) is False, np.isclose(inf, inf) True, NaNs only with equal_nan
    let inf = f64::INFINITY;
    assert!(!isclose_host(F(1.0), F(inf), 1e-5, 1e-8, false));
    assert!(isclose_host(F(inf), F(inf), 1e-5, 1e-8, false));
    assert!(!isclose_host(F(inf), F(-inf), 1e-5, 1e-8, false));
    assert!(!isclose_host(F(f64::NAN), F(f64::NAN), 1e-5, 1e-8, false));
    assert!(isclose_host(F(f64::NAN), F(f64::NAN), 1e-5, 1e-8, true));
    assert!(isclose_host(F(10.0), F(9.5), 0.0, 0.5, false));
    assert!(!isclose_host(F(10.0), F(9.5), 0.0526, 0.0, false));
    // a transposed (2, 3) is [[0, 3], [1, 4], [2, 5]]
    let base: Vec<V> = (0..6).map(I).collect();
    assert_eq!(
        strided(&base, 0, &[3, 2], &[1, 3]),
        [0, 3, 1, 4, 2, 5].map(I)
    );
    assert_eq!(wrap(300, DType::U8), 44);
    assert_eq!(wrap(200, DType::I8), -56);
}

// =========================================================================================
// 1. sum, max, min: every dtype, full and per axis
// =========================================================================================

#[test]
fn sum_max_min_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0001);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        for shape in [&[4usize, 5, 6][..], &[3, 1000], &[777]] {
            let vals = rand_vals(&mut rng, d, shape.iter().product());
            let a = dev_exact(&vals, shape, d);
            for (k, (axes, keep)) in axis_cases(shape.len()).into_iter().enumerate() {
                for (j, op) in [Op::Sum, Op::Max, Op::Min].into_iter().enumerate() {
                    if d.is_complex() && op != Op::Sum || !common::sweep_cell(i + k, j) {
                        continue;
                    }
                    check_op(
                        op,
                        &a,
                        &vals,
                        axes.as_deref(),
                        keep,
                        k % 3 == 1,
                        "every dtype",
                    );
                }
            }
        }
    }
}

#[test]
fn integer_sums_accumulate_in_64_bits_and_wrap_like_numpy() {
    require_gpu!();
    let cases: Vec<(Vec<V>, DType, DType, i128)> = vec![
        // int32 overflow is avoided: the sum is int64
        (
            vec![I(i32::MAX as i128); 4],
            DType::I32,
            DType::I64,
            4 * i32::MAX as i128,
        ),
        (vec![I(-128); 3], DType::I8, DType::I64, -384),
        (vec![I(255); 300], DType::U8, DType::U64, 76_500),
        (
            vec![I(65_535); 70_000],
            DType::U16,
            DType::U64,
            65_535 * 70_000,
        ),
        // bool sums count
        (
            (0..1000).map(|i| B(i % 3 == 0)).collect(),
            DType::Bool,
            DType::I64,
            334,
        ),
        // 64-bit sums wrap (NumPy wraps silently too)
        (
            vec![I(i64::MAX as i128), I(1)],
            DType::I64,
            DType::I64,
            i64::MIN as i128,
        ),
        (vec![I(u64::MAX as i128), I(2)], DType::U64, DType::U64, 1),
    ];
    for (vals, d, out, want) in cases {
        let a = dev_exact(&vals, &[vals.len()], d);
        let r = ops::sum(&a).unwrap();
        assert_result(
            &format!("sum of {} {d}", vals.len()),
            &r,
            out,
            &[],
            &[I(want)],
            &[],
        );
    }
    // products too: int8 -> int64, uint8 -> uint64
    let a = dev_exact(&[I(100), I(100), I(100)], &[3], DType::I8);
    assert_result(
        "prod int8",
        &ops::prod(&a).unwrap(),
        DType::I64,
        &[],
        &[I(1_000_000)],
        &[],
    );
    let a = dev_exact(&[I(200), I(200), I(200)], &[3], DType::U8);
    assert_result(
        "prod uint8",
        &a.prod().unwrap(),
        DType::U64,
        &[],
        &[I(8_000_000)],
        &[],
    );
}

#[test]
fn half_sums_accumulate_in_f32() {
    require_gpu!();
    // Accumulating in float16 would stall at 2048 (bfloat16: 256); NumPy's pairwise sum
    // and the library's float32 accumulator both give the exact count.
    for (d, n) in [(DType::F16, 5000usize), (DType::BF16, 1000)] {
        let a = Array::ones(&[n], d).unwrap();
        let r = ops::sum(&a).unwrap();
        assert_result(
            &format!("sum of {n} ones {d}"),
            &r,
            d,
            &[],
            &[F(n as f64)],
            &[0.0],
        );
        let r = ops::sum_axis(&a.reshape(&[2, -1]).unwrap(), 1, Keepdims::No).unwrap();
        let half = (n / 2) as f64;
        assert_result(
            &format!("row sums of {n} ones {d}"),
            &r,
            d,
            &[2],
            &[F(half), F(half)],
            &[0.0, 0.0],
        );
        let r = ops::mean(&a).unwrap();
        assert_result(&format!("mean of ones {d}"), &r, d, &[], &[F(1.0)], &[0.0]);
    }
}

#[test]
fn max_min_propagate_nan_and_handle_infinities() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0002);
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let shape = [5usize, 6];
        let mut vals = rand_vals(&mut rng, d, 30);
        // NaN first in the array, last in a row, inside a column; infinities elsewhere
        vals[0] = F(f64::NAN);
        vals[11] = F(f64::NAN);
        vals[27] = F(f64::NAN);
        vals[14] = F(f64::INFINITY);
        vals[20] = F(f64::NEG_INFINITY);
        vals[29] = F(f64::INFINITY);
        let a = dev_exact(&vals, &shape, d);
        for (k, (axes, keep)) in axis_cases(2).into_iter().enumerate() {
            for op in [Op::Max, Op::Min] {
                check_op(op, &a, &vals, axes.as_deref(), keep, k % 2 == 0, "NaN");
            }
        }
        // only the last element NaN: it still wins
        let mut vals = rand_vals(&mut rng, d, 1000);
        vals[999] = F(f64::NAN);
        let a = dev_exact(&vals, &[1000], d);
        for op in [Op::Max, Op::Min] {
            check_op(op, &a, &vals, None, false, false, "last NaN");
        }
    }
}

// =========================================================================================
// 2. prod, mean, var, std
// =========================================================================================

/// Small non-zero values for products: floats ±[0.5, 1.5), integers ±1 / ±2.
fn prod_val(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(rng.usize(0, 8) != 0),
        DTypeKind::SignedInt => {
            let m = rng.usize(1, 3) as f64;
            I(signed(rng, m) as i128)
        }
        DTypeKind::UnsignedInt => I(rng.usize(1, 3) as i128),
        DTypeKind::Float => rand_signed(rng, d, 0.5, 1.5),
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Complex => rand_signed(rng, d, 0.3, 0.8),
    }
}

#[test]
fn prod_of_small_values() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0003);
    // on the host device, the representative dtypes (`common::dtypes`)
    for d in common::dtypes(&[
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U16,
        DType::Bool,
        DType::C128,
    ]) {
        for shape in [&[3usize, 4, 5][..], &[2, 40]] {
            let vals: Vec<V> = (0..shape.iter().product())
                .map(|_| prod_val(&mut rng, d))
                .collect();
            let a = dev_exact(&vals, shape, d);
            for (k, (axes, keep)) in axis_cases(shape.len()).into_iter().enumerate() {
                check_op(
                    Op::Prod,
                    &a,
                    &vals,
                    axes.as_deref(),
                    keep,
                    k % 2 == 0,
                    "prod",
                );
            }
        }
    }
}

#[test]
fn mean_var_std_against_two_pass_f64() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0004);
    // on the host device, the representative dtypes (`common::dtypes`)
    for (i, d) in common::dtypes(&[
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U16,
        DType::I64,
        DType::Bool,
        DType::F16,
        DType::C128,
    ])
    .into_iter()
    .enumerate()
    {
        for shape in [&[3usize, 4, 5][..], &[4, 300]] {
            // floats get an offset so that means are not near zero
            let vals: Vec<V> = rand_vals(&mut rng, d, shape.iter().product())
                .into_iter()
                .map(|v| match v {
                    F(x) => F(round_float(x + 4.0, d)),
                    other => other,
                })
                .collect();
            let a = dev_exact(&vals, shape, d);
            for (k, (axes, keep)) in axis_cases(shape.len()).into_iter().enumerate() {
                for (j, op) in [Op::Mean, Op::Var, Op::Std].into_iter().enumerate() {
                    if !common::sweep_cell(i + k, j) {
                        continue;
                    }
                    check_op(op, &a, &vals, axes.as_deref(), keep, k % 2 == 1, "moments");
                }
            }
        }
    }
}

#[test]
fn var_std_use_ddof_zero() {
    require_gpu!();
    let a = Array::from_slice(&[1i32, 2, 3, 4], &[4]).unwrap();
    assert_result(
        "var int32",
        &ops::var(&a).unwrap(),
        DType::F64,
        &[],
        &[F(1.25)],
        &[0.0],
    );
    let a = Array::from_slice(&[1.0f32, 3.0, 5.0, 7.0], &[2, 2]).unwrap();
    let r = ops::std_axis(&a, 1, Keepdims::Yes).unwrap();
    assert_result(
        "std f32 rows",
        &r,
        DType::F32,
        &[2, 1],
        &[F(1.0), F(1.0)],
        &[0.0; 2],
    );
    let r = ops::var_axis(&a, 0, Keepdims::No).unwrap();
    assert_result(
        "var f32 columns",
        &r,
        DType::F32,
        &[2],
        &[F(4.0), F(4.0)],
        &[0.0; 2],
    );
    // a single element has variance 0 (not NaN, as with ddof 1)
    let a = Array::from_slice(&[5.0f64], &[1]).unwrap();
    assert_result(
        "var of one",
        &a.var().unwrap(),
        DType::F64,
        &[],
        &[F(0.0)],
        &[0.0],
    );
}

// =========================================================================================
// 3. argmax / argmin
// =========================================================================================

#[test]
fn argmax_argmin_every_real_dtype_with_ties() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0005);
    for (i, d) in common::dtypes(&REAL_DTYPES).into_iter().enumerate() {
        for shape in [&[6usize, 7][..], &[3, 4, 5], &[300]] {
            let vals = tie_vals(&mut rng, d, shape.iter().product());
            let a = dev_exact(&vals, shape, d);
            for (k, (axes, keep)) in single_axis_cases(shape.len()).into_iter().enumerate() {
                for (j, op) in [Op::ArgMax, Op::ArgMin, Op::Max, Op::Min]
                    .into_iter()
                    .enumerate()
                {
                    if !common::sweep_cell(i + k, j) {
                        continue;
                    }
                    check_op(op, &a, &vals, axes.as_deref(), keep, k % 2 == 0, "ties");
                }
            }
        }
    }
}

#[test]
fn argmax_argmin_first_nan_wins() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0006);
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let mut vals = tie_vals(&mut rng, d, 40);
        for p in [3usize, 9, 17, 26, 39] {
            vals[p] = F(f64::NAN);
        }
        let a = dev_exact(&vals, &[5, 8], d);
        for (axes, keep) in single_axis_cases(2) {
            for op in [Op::ArgMax, Op::ArgMin] {
                check_op(op, &a, &vals, axes.as_deref(), keep, false, "NaN");
            }
        }
        // the explicit expectation of the full form
        assert_eq!(ops::argmax(&a).unwrap().to_vec::<i64>().unwrap(), vec![3]);
        assert_eq!(ops::argmin(&a).unwrap().to_vec::<i64>().unwrap(), vec![3]);
    }
}

/// The values of a view of a C-ordered host base: element `v` of the view (shape
/// `vshape`) is `base[offset + Σ v[i] * strides[i]]` (element units).
fn strided(base: &[V], offset: isize, vshape: &[usize], strides: &[isize]) -> Vec<V> {
    c_order(vshape)
        .iter()
        .map(|v| {
            let p = offset
                + v.iter()
                    .zip(strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            base[p as usize]
        })
        .collect()
}

/// Views of a (6, 8) and a (2, 3, 4) base with their host values: (name, view, values).
fn views_of(rng: &mut Rng, d: DType, ties: bool) -> Vec<(&'static str, Array, Vec<V>)> {
    let make = |rng: &mut Rng, n: usize| {
        if ties {
            tie_vals(rng, d, n)
        } else {
            rand_vals(rng, d, n)
        }
    };
    let b2 = make(rng, 48);
    let a2 = dev_exact(&b2, &[6, 8], d);
    let b3 = make(rng, 24);
    let a3 = dev_exact(&b3, &[2, 3, 4], d);
    let b1 = make(rng, 5);
    let a1 = dev_exact(&b1, &[1, 5], d);
    let mut out = vec![
        (
            "transpose",
            a2.transpose(),
            strided(&b2, 0, &[8, 6], &[1, 8]),
        ),
        (
            "[1:5, ::-2]",
            a2.slice(&s![1..5, ..;-2]).unwrap(),
            strided(&b2, 15, &[4, 4], &[8, -2]),
        ),
        (
            "[::-1, 1::3]",
            a2.slice(&s![..;-1, 1..;3]).unwrap(),
            strided(&b2, 41, &[6, 3], &[-8, 3]),
        ),
        (
            "[:, 2:7].T",
            a2.slice(&s![.., 2..7]).unwrap().transpose(),
            strided(&b2, 2, &[5, 6], &[1, 8]),
        ),
        (
            "permute(2, 0, 1)",
            a3.permute(&[2, 0, 1]).unwrap(),
            strided(&b3, 0, &[4, 2, 3], &[1, 12, 4]),
        ),
        (
            "broadcast (1, 5) -> (4, 5)",
            a1.broadcast_to(&[4, 5]).unwrap(),
            strided(&b1, 0, &[4, 5], &[0, 1]),
        ),
    ];
    for (name, v, vals) in &mut out {
        assert_eq!(v.size(), vals.len(), "view {name}");
    }
    out.push(("contiguous", a2, b2));
    out
}

#[test]
fn argmax_argmin_on_views() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0007);
    for d in [DType::F32, DType::I16, DType::F64] {
        for ties in [false, true] {
            for (name, v, vals) in views_of(&mut rng, d, ties) {
                for (axes, keep) in single_axis_cases(v.ndim()) {
                    for op in [Op::ArgMax, Op::ArgMin] {
                        check_op(op, &v, &vals, axes.as_deref(), keep, false, name);
                    }
                }
                for op in [Op::Sum, Op::Max, Op::Mean] {
                    check_op(op, &v, &vals, None, false, true, name);
                    check_op(op, &v, &vals, Some(&[0]), true, false, name);
                    check_op(op, &v, &vals, Some(&[-1]), false, false, name);
                }
            }
        }
    }
}

#[test]
fn argmax_argmin_long_reductions() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0008);
    let n = 3_000_003usize;
    let mut v: Vec<f32> = (0..n).map(|_| rng.f64(0.0, 1.0) as f32).collect();
    // ties far apart: the first wins
    let (p1, p2) = (1_234_567usize, 2_900_000usize);
    let (q1, q2) = (77_777usize, 2_222_222usize);
    v[p2] = 2.0;
    v[p1] = 2.0;
    v[q1] = -1.0;
    v[q2] = -1.0;
    let a = Array::from_slice(&v, &[n]).unwrap();
    let idx = |r: cuprum::Result<Array>| r.unwrap().to_vec::<i64>().unwrap();
    assert_eq!(idx(ops::argmax(&a)), vec![p1 as i64]);
    assert_eq!(idx(ops::argmin(&a)), vec![q1 as i64]);
    // through an offset (misaligned) view
    let tail = a.slice(&s![1..]).unwrap();
    assert_eq!(idx(ops::argmax(&tail)), vec![p1 as i64 - 1]);
    assert_eq!(idx(ops::argmin(&tail)), vec![q1 as i64 - 1]);
    // a NaN beats both, the first NaN wins
    let (r1, r2) = (2_500_001usize, 2_600_000usize);
    v[r2] = f32::NAN;
    v[r1] = f32::NAN;
    let a = Array::from_slice(&v, &[n]).unwrap();
    assert_eq!(idx(ops::argmax(&a)), vec![r1 as i64]);
    assert_eq!(idx(ops::argmin(&a)), vec![r1 as i64]);
    assert!(ops::max(&a).unwrap().to_vec::<f32>().unwrap()[0].is_nan());
    // per row of a (3, 1_000_001) matrix, ties planted in each row
    let cols = 1_000_001usize;
    let mut m: Vec<f32> = (0..3 * cols).map(|_| rng.f64(0.0, 1.0) as f32).collect();
    let firsts = [5usize, 999_999, 500_000];
    for (r, &c) in firsts.iter().enumerate() {
        m[r * cols + c] = 3.0;
        m[r * cols + cols - 1] = 3.0;
        m[r * cols + c + 1] = 3.0;
    }
    let a = Array::from_slice(&m, &[3, cols]).unwrap();
    let want: Vec<i64> = firsts.iter().map(|&c| c as i64).collect();
    assert_eq!(idx(ops::argmax_axis(&a, 1, Keepdims::No)), want);
    assert_eq!(idx(ops::argmax_axis(&a, -1, Keepdims::Yes)), want);
    // the transposed view: the same over axis 0
    assert_eq!(idx(ops::argmax_axis(&a.transpose(), 0, Keepdims::No)), want);
}

// =========================================================================================
// 4. all, any, count_nonzero
// =========================================================================================

/// A zero of `d` (floats: sometimes -0.0).
fn zero_of(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(false),
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => I(0),
        DTypeKind::Float => F(if coin(rng) { 0.0 } else { -0.0 }),
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Complex => C(if coin(rng) { 0.0 } else { -0.0 }, 0.0),
    }
}

/// A non-zero of `d`; floats are sometimes NaN (non-zero in NumPy) and complex numbers
/// sometimes purely imaginary.
fn nonzero_of(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(true),
        DTypeKind::Float if rng.usize(0, 6) == 0 => F(f64::NAN),
        DTypeKind::Complex if rng.usize(0, 4) == 0 => C(0.0, round_float(2.5, d)),
        _ => rand_val(rng, d),
    }
}

#[test]
fn all_any_count_nonzero_with_zeros() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_0009);
    // on the host device, the representative dtypes (`common::dtypes`), and of each dtype
    // and shape one operation, in turn (`common::sweep_cell`)
    for (i, d) in common::dtypes(&[
        DType::Bool,
        DType::I32,
        DType::U8,
        DType::I64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::C64,
    ])
    .into_iter()
    .enumerate()
    {
        for (j, shape) in [&[6usize, 7][..], &[3, 4, 5], &[2, 2000]]
            .into_iter()
            .enumerate()
        {
            let ops: Vec<Op> = [Op::All, Op::Any, Op::Count]
                .into_iter()
                .enumerate()
                .filter(|&(o, _)| common::sweep_cell(i, 3 * j + o))
                .map(|(_, op)| op)
                .collect();
            let n: usize = shape.iter().product();
            let row = n / shape[0];
            // the first row all zero, the second all non-zero, the rest 40 % zeros
            let vals: Vec<V> = (0..n)
                .map(|i| match i / row {
                    0 => zero_of(&mut rng, d),
                    1 => nonzero_of(&mut rng, d),
                    _ if rng.usize(0, 5) < 2 => zero_of(&mut rng, d),
                    _ => nonzero_of(&mut rng, d),
                })
                .collect();
            let a = dev_exact(&vals, shape, d);
            for (k, (axes, keep)) in axis_cases(shape.len()).into_iter().enumerate() {
                for &op in &ops {
                    check_op(op, &a, &vals, axes.as_deref(), keep, k % 2 == 0, "truth");
                }
            }
            // the transposed view
            let t = a.transpose();
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let tst: Vec<isize> = c_strides(shape).iter().rev().map(|&s| s as isize).collect();
            let tv = strided(&vals, 0, &rev, &tst);
            for &op in &ops {
                check_op(op, &t, &tv, Some(&[-1]), false, false, "truth of transpose");
                check_op(op, &t, &tv, Some(&[0]), true, true, "truth of transpose");
            }
        }
    }
}

#[test]
fn empty_reductions_give_identities() {
    require_gpu!();
    for d in [DType::F32, DType::I32, DType::Bool, DType::F16, DType::U8] {
        let e = Array::zeros(&[0], d).unwrap();
        for op in [
            Op::Sum,
            Op::Prod,
            Op::Mean,
            Op::Var,
            Op::Std,
            Op::All,
            Op::Any,
            Op::Count,
        ] {
            check_op(op, &e, &[], None, false, false, "empty");
            check_op(op, &e, &[], None, true, true, "empty, keepdims");
        }
        let want = |op: Op| reduce_host(op, &[], d);
        assert_eq!(want(Op::Sum), if d.is_float() { F(0.0) } else { I(0) });
        assert_eq!(want(Op::Prod), if d.is_float() { F(1.0) } else { I(1) });
        assert!(is_nan(want(Op::Mean)) && is_nan(want(Op::Var)));
        assert_eq!(want(Op::All), B(true));
        assert_eq!(want(Op::Any), B(false));
        assert_eq!(want(Op::Count), I(0));
        // (3, 0): over axis 1 three identities; over axis 0 an empty result
        let e = Array::zeros(&[3, 0], d).unwrap();
        for op in [Op::Sum, Op::Prod, Op::Mean, Op::All, Op::Any, Op::Count] {
            check_op(op, &e, &[], Some(&[1]), false, false, "(3, 0) over 1");
            check_op(op, &e, &[], Some(&[-1]), true, true, "(3, 0) over -1");
            check_op(op, &e, &[], Some(&[0]), false, false, "(3, 0) over 0");
        }
        // max / argmax with an empty result (nothing to reduce into) are fine, as in NumPy
        for op in [Op::Max, Op::Min, Op::ArgMax, Op::ArgMin] {
            check_op(op, &e, &[], Some(&[0]), false, false, "(3, 0) over 0");
        }
    }
}

// =========================================================================================
// 5. isclose / allclose
// =========================================================================================

/// NumPy 2's isclose of one pair: `|x - y| <= atol + rtol * |y|` where `y` is finite, or
/// `x == y`, or (with `equal_nan`) both NaN (a complex number is NaN when a part is).
fn isclose_host(x: V, y: V, rtol: f64, atol: f64, equal_nan: bool) -> bool {
    let ((xr, xi), (yr, yi)) = (as_c(x), as_c(y));
    let within = (xr - yr).hypot(xi - yi) <= atol + rtol * yr.hypot(yi);
    let finite = yr.is_finite() && yi.is_finite();
    within && finite || (xr == yr && xi == yi) || (equal_nan && is_nan(x) && is_nan(y))
}

/// NumPy's default tolerances (`rtol`, `atol`, `equal_nan`).
const DEFAULT_TOL: (f64, f64, bool) = (1e-5, 1e-8, false);

/// Asserts that `got` is the isclose of the pairs of `xs` and `ys` with `tol`.
#[track_caller]
fn check_isclose(
    ctx: &str,
    got: &Array,
    shape: &[usize],
    xs: &[V],
    ys: &[V],
    (rtol, atol, equal_nan): (f64, f64, bool),
) {
    let want: Vec<V> = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| B(isclose_host(x, y, rtol, atol, equal_nan)))
        .collect();
    assert_result(ctx, got, DType::Bool, shape, &want, &[]);
}

/// Checks `isclose` and `allclose_with` of `a` and `b` (of `shape`, holding `xs` and `ys`)
/// with `rtol` and `atol` (NaNs unequal) against the host.
#[track_caller]
fn check_isclose_and_allclose(
    ctx: &str,
    (a, b): (&Array, &Array),
    shape: &[usize],
    xs: &[V],
    ys: &[V],
    (rtol, atol): (f64, f64),
) {
    let r = ops::isclose(a, b, Tolerance::new(rtol, atol)).unwrap();
    check_isclose(ctx, &r, shape, xs, ys, (rtol, atol, false));
    let all = xs
        .iter()
        .zip(ys)
        .all(|(&x, &y)| isclose_host(x, y, rtol, atol, false));
    assert_eq!(
        ops::allclose_with(a, b, Tolerance::new(rtol, atol)).unwrap(),
        all
    );
}

/// Partners of `xs`: relative perturbations far from the default threshold (1e-5): equal,
/// 1e-7 and 2e-6 (close), 1e-4 and 0.3 (not).
fn partners(rng: &mut Rng, xs: &[V], d: DType) -> Vec<V> {
    xs.iter()
        .map(|&x| {
            let rel = [0.0, 1e-7, -2e-6, 1e-4, -0.3][rng.usize(0, 5)];
            match x {
                F(v) => F(round_float(v * (1.0 + rel), d)),
                C(re, im) => C(
                    round_float(re * (1.0 + rel), d),
                    round_float(im * (1.0 - rel), d),
                ),
                other => other,
            }
        })
        .collect()
}

#[test]
fn isclose_default_tolerances() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_000A);
    let xs = rand_vals(&mut rng, DType::F64, 200);
    let mut ys = partners(&mut rng, &xs, DType::F64);
    // near zero only atol counts: 5e-9 is close to 0, 5e-8 is not
    let mut xs = xs;
    xs.extend([F(0.0), F(0.0), F(5e-9), F(-1e-300)]);
    ys.extend([F(5e-9), F(5e-8), F(0.0), F(1e-300)]);
    let (a, b) = (
        dev_exact(&xs, &[xs.len()], DType::F64),
        dev_exact(&ys, &[ys.len()], DType::F64),
    );
    let r = ops::isclose(&a, &b, Tolerance::new(1e-5, 1e-8)).unwrap();
    check_isclose("isclose defaults", &r, &[xs.len()], &xs, &ys, DEFAULT_TOL);
    let all = xs
        .iter()
        .zip(&ys)
        .all(|(&x, &y)| isclose_host(x, y, 1e-5, 1e-8, false));
    assert!(!all, "the data has pairs that are not close");
    assert_eq!(ops::allclose(&a, &b).unwrap(), all);
    assert!(ops::allclose(&a, &a).unwrap());
    // only the close pairs: allclose is true; the not-close ones alone: false
    let (cx, cy): (Vec<V>, Vec<V>) = xs
        .iter()
        .zip(&ys)
        .filter(|&(&x, &y)| isclose_host(x, y, 1e-5, 1e-8, false))
        .map(|(&x, &y)| (x, y))
        .unzip();
    let (ca, cb) = (
        dev_exact(&cx, &[cx.len()], DType::F64),
        dev_exact(&cy, &[cy.len()], DType::F64),
    );
    assert!(ops::allclose(&ca, &cb).unwrap());
    assert!(ops::allclose_with(&ca, &cb, Tolerance::new(1e-5, 1e-8)).unwrap());
    assert!(!ops::allclose_with(&ca, &cb, Tolerance::new(0.0, 0.0)).unwrap());
    // float32 (compared in float64)
    let x32 = rand_vals(&mut rng, DType::F32, 100);
    let y32 = partners(&mut rng, &x32, DType::F32);
    let (a, b) = (
        dev_exact(&x32, &[10, 10], DType::F32),
        dev_exact(&y32, &[10, 10], DType::F32),
    );
    let r = ops::isclose(&a, &b, Tolerance::new(1e-5, 1e-8)).unwrap();
    check_isclose("isclose f32", &r, &[10, 10], &x32, &y32, DEFAULT_TOL);
}

#[test]
fn isclose_explicit_tolerances_and_asymmetry() {
    require_gpu!();
    let xs = [F(1.0), F(1.0), F(1.0), F(100.0), F(100.0), F(-3.0), F(0.0)];
    let ys = [
        F(1.05),
        F(1.2),
        F(1.0),
        F(105.0),
        F(115.0),
        F(-3.0),
        F(0.09),
    ];
    let (a, b) = (
        dev_exact(&xs, &[7], DType::F64),
        dev_exact(&ys, &[7], DType::F64),
    );
    for (rtol, atol) in [
        (0.0, 0.1),
        (0.1, 0.0),
        (0.0, 0.0),
        (0.01, 0.02),
        (1e-5, 1e-8),
    ] {
        let ctx = format!("rtol={rtol} atol={atol}");
        check_isclose_and_allclose(&ctx, (&a, &b), &[7], &xs, &ys, (rtol, atol));
    }
    // rtol scales |b|, not |a|: |10 - 9.5| = 0.5 <= 0.0526 * 10 but > 0.0526 * 9.5
    let (p, q) = (
        Array::from_slice(&[10.0f64], &[1]).unwrap(),
        Array::from_slice(&[9.5f64], &[1]).unwrap(),
    );
    let v = |r: cuprum::Result<Array>| r.unwrap().to_vec::<bool>().unwrap();
    assert_eq!(
        v(ops::isclose(&p, &q, Tolerance::new(0.0526, 0.0))),
        vec![false]
    );
    assert_eq!(
        v(ops::isclose(&q, &p, Tolerance::new(0.0526, 0.0))),
        vec![true]
    );
    assert!(!ops::allclose_with(&p, &q, Tolerance::new(0.0526, 0.0)).unwrap());
    assert!(ops::allclose_with(&q, &p, Tolerance::new(0.0526, 0.0)).unwrap());
}

#[test]
fn isclose_infinities_and_nan() {
    require_gpu!();
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let xs = [inf, -inf, inf, inf, nan, nan, 1.0, nan, 2.0, -inf];
    let ys = [inf, -inf, -inf, 1e308, nan, 1.0, nan, 0.0, 2.0, -1e308];
    let (xs, ys): (Vec<V>, Vec<V>) = (xs.map(F).to_vec(), ys.map(F).to_vec());
    for d in [DType::F64, DType::F32] {
        let (a, b) = (dev_exact(&xs, &[10], d), dev_exact(&ys, &[10], d));
        // float32 rounds ±1e308 to ±inf: compare against what is on the device
        let (hx, hy) = (host(&a), host(&b));
        for equal_nan in [false, true] {
            let r = ops::isclose(
                &a,
                &b,
                Tolerance {
                    equal_nan,
                    ..Tolerance::default()
                },
            )
            .unwrap();
            check_isclose(
                &format!("inf/nan {d} equal_nan={equal_nan}"),
                &r,
                &[10],
                &hx,
                &hy,
                (1e-5, 1e-8, equal_nan),
            );
        }
        assert_eq!(
            ops::isclose(&a, &b, Tolerance::new(1e-5, 1e-8))
                .unwrap()
                .to_vec::<bool>()
                .unwrap()[..4],
            [true, true, false, d == DType::F32]
        );
    }
    // allclose: equal infinities are close; NaNs only with equal_nan
    let p = Array::from_slice(&[inf, -inf, nan, 1.0], &[4]).unwrap();
    assert!(!ops::allclose(&p, &p).unwrap());
    assert!(!ops::allclose_with(&p, &p, Tolerance::new(1e-5, 1e-8)).unwrap());
    assert!(ops::allclose_with(&p, &p, Tolerance::new(1e-5, 1e-8).nan_equal()).unwrap());
    let q = Array::from_slice(&[inf, -inf, 1.0, 1.0], &[4]).unwrap();
    assert!(ops::allclose(&q, &q).unwrap());
    let q2 = Array::from_slice(&[inf, inf, 1.0, 1.0], &[4]).unwrap();
    assert!(!ops::allclose(&q, &q2).unwrap());
    assert!(!ops::allclose_with(&p, &q, Tolerance::new(1e-5, 1e-8).nan_equal()).unwrap());
}

/// NumPy: `isclose(1.0, inf)` is false (`isfinite(y)` is required for the tolerance test;
/// only `x == y` makes infinities close). The library's kernel evaluates
/// `|1 - inf| <= atol + rtol * |inf|`, i.e. `inf <= inf`, which is true whenever
/// `rtol > 0`, so a finite value counts as close to an infinite one (and `allclose` of
/// `[1.0]` and `[inf]` is true).
#[test]
fn isclose_finite_vs_infinite_numpy_divergence() {
    require_gpu!();
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let a = Array::from_slice(&[1.0f64, -5.0, 1e300, 0.0, inf, 1.0], &[6]).unwrap();
    let b = Array::from_slice(&[inf, -inf, inf, inf, 1.0, nan], &[6]).unwrap();
    let r = ops::isclose(&a, &b, Tolerance::new(1e-5, 1e-8)).unwrap();
    assert_eq!(
        r.to_vec::<bool>().unwrap(),
        vec![false; 6],
        "NumPy: all false"
    );
    let r = ops::isclose(&a, &b, Tolerance::new(1e-5, 1e-8).nan_equal()).unwrap();
    assert_eq!(
        r.to_vec::<bool>().unwrap(),
        vec![false; 6],
        "NumPy: all false"
    );
    let (one, inf_a) = (
        Array::from_slice(&[1.0f32], &[1]).unwrap(),
        Array::from_slice(&[f32::INFINITY], &[1]).unwrap(),
    );
    assert!(!ops::allclose(&one, &inf_a).unwrap(), "allclose(1, inf)");
    // complex: a finite value is not close to one with an infinite part
    let z = Array::from_slice(&[Complex::new(1.0f64, 0.0)], &[1]).unwrap();
    let zi = Array::from_slice(&[Complex::new(inf, 0.0)], &[1]).unwrap();
    assert_eq!(
        ops::isclose(&z, &zi, Tolerance::new(1e-5, 1e-8))
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![false]
    );
}

#[test]
fn isclose_broadcasting_and_scalars() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_000B);
    // (3, 4) vs (4,): the first row of `a` is close to `b`, the others a mixture
    let row = rand_vals(&mut rng, DType::F64, 4);
    let mut xs: Vec<V> = row.iter().map(|&h| F(as_c(h).0 * (1.0 + 1e-7))).collect();
    xs.extend(partners(
        &mut rng,
        &[&row[..], &row[..]].concat(),
        DType::F64,
    ));
    xs[11] = F(as_c(row[3]).0 * 1.5);
    let a = dev_exact(&xs, &[3, 4], DType::F64);
    let b = dev_exact(&row, &[4], DType::F64);
    let bys: Vec<V> = (0..12).map(|i| row[i % 4]).collect();
    for (x, y, xv, yv) in [(&a, &b, &xs, &bys), (&b, &a, &bys, &xs)] {
        let r = ops::isclose(x, y, Tolerance::new(1e-5, 1e-8)).unwrap();
        check_isclose("(3, 4) vs (4,)", &r, &[3, 4], xv, yv, DEFAULT_TOL);
    }
    assert!(!ops::allclose(&a, &b).unwrap());
    let first = a.slice(&s![0..1]).unwrap();
    assert!(ops::allclose(&first, &b).unwrap(), "(1, 4) vs (4,)");
    let wide = first.broadcast_to(&[5, 4]).unwrap();
    assert!(
        ops::allclose(&wide, &b).unwrap(),
        "broadcast view (5, 4) vs (4,)"
    );
    assert!(
        ops::allclose(&b, &wide).unwrap(),
        "(4,) vs broadcast view (5, 4)"
    );
    // (3, 1) vs (4,) -> (3, 4)
    let col = dev_exact(&xs[..3], &[3, 1], DType::F64);
    let r = ops::isclose(&col, &b, Tolerance::new(1e-5, 1e-8)).unwrap();
    let cx: Vec<V> = (0..12).map(|i| xs[i / 4]).collect();
    check_isclose("(3, 1) vs (4,)", &r, &[3, 4], &cx, &bys, DEFAULT_TOL);
    // a scalar operand on either side
    let vals = [
        2.5,
        2.5 + 1e-7,
        2.5 - 2e-3,
        -2.5,
        2.5 * (1.0 + 9e-6),
        2.5 * (1.0 + 1.1e-5),
    ];
    let hv: Vec<V> = vals.iter().map(|&v| F(v)).collect();
    let s2 = vec![F(2.5); hv.len()];
    let a = dev_exact(&hv, &[2, 3], DType::F64);
    let r = ops::isclose(&a, 2.5f64, Tolerance::new(1e-5, 1e-8)).unwrap();
    check_isclose("array vs scalar", &r, &[2, 3], &hv, &s2, DEFAULT_TOL);
    let r = ops::isclose(2.5f64, &a, Tolerance::new(1e-5, 1e-8)).unwrap();
    check_isclose("scalar vs array", &r, &[2, 3], &s2, &hv, DEFAULT_TOL);
    let r = ops::isclose(&a, 2.5f64, Tolerance::new(0.0, 1e-3)).unwrap();
    check_isclose(
        "array vs scalar, atol",
        &r,
        &[2, 3],
        &hv,
        &s2,
        (0.0, 1e-3, false),
    );
    // an integer array against an integer scalar
    let ia = Array::from_slice(&[3i32, 4, 3], &[3]).unwrap();
    let r = ops::isclose(&ia, 3i32, Tolerance::new(1e-5, 1e-8)).unwrap();
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, false, true]);
    // shapes that do not broadcast
    let c = Array::zeros(&[3], DType::F64).unwrap();
    let e = expect_err(
        ops::isclose(&b, &c, Tolerance::new(1e-5, 1e-8)),
        ErrorKind::Shape,
        "isclose (4,) (3,)",
    );
    assert!(!e.to_string().is_empty());
    expect_err(
        ops::allclose(&b, &c),
        ErrorKind::Shape,
        "allclose (4,) (3,)",
    );
}

#[test]
fn isclose_complex() {
    require_gpu!();
    let mut rng = Rng::new(0x5EED_000C);
    for d in [DType::C128, DType::C64] {
        let xs = rand_vals(&mut rng, d, 60);
        let ys = partners(&mut rng, &xs, d);
        let (a, b) = (dev_exact(&xs, &[6, 10], d), dev_exact(&ys, &[6, 10], d));
        for (rtol, atol) in [(1e-5, 1e-8), (1e-3, 0.0), (0.0, 0.5)] {
            let ctx = format!("{d} rtol={rtol} atol={atol}");
            check_isclose_and_allclose(&ctx, (&a, &b), &[6, 10], &xs, &ys, (rtol, atol));
        }
        assert!(ops::allclose(&a, &a).unwrap());
    }
    // the magnitude of the difference counts, not each part: |(3e-5, 4e-5)| = 5e-5
    let z = |re: f64, im: f64| Complex::new(re, im);
    let a = Array::from_slice(&[z(3.0, 4.0), z(3.0, 4.0)], &[2]).unwrap();
    let b = Array::from_slice(&[z(3.0 + 3e-5, 4.0 + 4e-5), z(3.0 + 3e-5, 4.0)], &[2]).unwrap();
    let r = ops::isclose(&a, &b, Tolerance::new(0.0, 4.5e-5)).unwrap();
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![false, true]);
    // NaN in either part is NaN; equal_nan matches any two NaNs
    let nan = f64::NAN;
    let xs = [C(nan, 1.0), C(1.0, nan), C(nan, nan), C(1.0, 1.0)];
    let ys = [C(1.0, nan), C(1.0, nan), C(2.0, 1.0), C(1.0, 1.0)];
    let (a, b) = (
        dev_exact(&xs, &[4], DType::C128),
        dev_exact(&ys, &[4], DType::C128),
    );
    for equal_nan in [false, true] {
        let r = ops::isclose(
            &a,
            &b,
            Tolerance {
                equal_nan,
                ..Tolerance::default()
            },
        )
        .unwrap();
        check_isclose("complex NaN", &r, &[4], &xs, &ys, (1e-5, 1e-8, equal_nan));
    }
    // complex64 against float64: compared as complex128
    let c = Array::from_slice(
        &[
            Complex::new(1.0f32, 0.0),
            Complex::new(2.0, 1e-3),
            Complex::new(0.5, 0.0),
        ],
        &[3],
    )
    .unwrap();
    let f = Array::from_slice(&[1.0f64, 2.0, 0.5], &[3]).unwrap();
    let v = |r: cuprum::Result<Array>| r.unwrap().to_vec::<bool>().unwrap();
    assert_eq!(
        v(ops::isclose(&c, &f, Tolerance::new(1e-5, 1e-8))),
        vec![true, false, true]
    );
    assert_eq!(
        v(ops::isclose(&f, &c, Tolerance::new(1e-5, 1e-8))),
        vec![true, false, true]
    );
    assert!(!ops::allclose(&c, &f).unwrap());
    assert!(ops::allclose_with(&c, &f, Tolerance::new(0.0, 2e-3)).unwrap());
}

#[test]
fn isclose_mixed_dtypes() {
    require_gpu!();
    let v = |r: cuprum::Result<Array>| r.unwrap().to_vec::<bool>().unwrap();
    // float32 against float64: compared in float64 (NumPy promotes), so 0.1f32 != 0.1
    let a32 = Array::from_slice(&[0.1f32, 1.5, 3.3], &[3]).unwrap();
    let a64 = Array::from_slice(&[0.1f64, 1.5, 3.3], &[3]).unwrap();
    assert_eq!(
        v(ops::isclose(&a32, &a64, Tolerance::new(1e-5, 1e-8))),
        vec![true; 3]
    );
    assert_eq!(
        v(ops::isclose(&a32, &a64, Tolerance::new(0.0, 0.0))),
        vec![false, true, false]
    );
    assert_eq!(
        v(ops::isclose(&a64, &a32, Tolerance::new(0.0, 0.0))),
        vec![false, true, false]
    );
    assert!(ops::allclose(&a32, &a64).unwrap());
    assert!(!ops::allclose_with(&a32, &a64, Tolerance::new(0.0, 0.0)).unwrap());
    // integers against floats
    let i = Array::from_slice(&[1i32, 2, 3, -4], &[4]).unwrap();
    let f = Array::from_slice(&[1.0f64, 2.000001, 3.1, -4.0], &[4]).unwrap();
    assert_eq!(
        v(ops::isclose(&i, &f, Tolerance::new(1e-5, 1e-8))),
        vec![true, true, false, true]
    );
    assert_eq!(
        v(ops::isclose(&f, &i, Tolerance::new(1e-5, 1e-8))),
        vec![true, true, false, true]
    );
    assert!(!ops::allclose(&i, &f).unwrap());
    assert!(ops::allclose_with(&i, &f, Tolerance::new(0.05, 0.0)).unwrap());
    // int64 extremes (NumPy compares in float64; |MIN| must not overflow)
    let big = Array::from_slice(&[i64::MIN, i64::MAX, 0], &[3]).unwrap();
    assert_eq!(
        v(ops::isclose(&big, &big, Tolerance::new(0.0, 0.0))),
        vec![true; 3]
    );
    assert!(ops::allclose(&big, &big).unwrap());
    // float16 against float32, bool against int
    let h = Array::from_slice(&[f16::from_f32(0.5), f16::from_f32(1.0 / 3.0)], &[2]).unwrap();
    let s = Array::from_slice(&[0.5f32, 1.0 / 3.0], &[2]).unwrap();
    assert_eq!(
        v(ops::isclose(&h, &s, Tolerance::new(1e-5, 1e-8))),
        vec![true, false]
    );
    assert_eq!(
        v(ops::isclose(&h, &s, Tolerance::new(1e-3, 0.0))),
        vec![true, true]
    );
    let bl = Array::from_slice(&[true, false, true], &[3]).unwrap();
    let iu = Array::from_slice(&[1u8, 0, 2], &[3]).unwrap();
    assert_eq!(
        v(ops::isclose(&bl, &iu, Tolerance::new(1e-5, 1e-8))),
        vec![true, true, false]
    );
    // the result is always a bool array of the broadcast shape
    let r = ops::isclose(
        &a32,
        a64.reshape(&[3, 1]).unwrap(),
        Tolerance::new(1e-5, 1e-8),
    )
    .unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::Bool, &[3usize, 3][..]));
}

/// NumPy 2 treats Python scalars as weak: `isclose(float32_array, 0.1)` compares in
/// float32, where `0.1` rounds to the same value as the array's `0.1f32`, so it is close
/// even with zero tolerances. The library documents Rust scalars as weak but compares
/// `isclose` in float64, where `0.1f32 as f64 != 0.1`.
#[test]
fn isclose_weak_scalar_numpy_divergence() {
    require_gpu!();
    let a = Array::from_slice(&[0.1f32, 0.7, 0.2], &[3]).unwrap();
    let r = ops::isclose(&a, 0.1f64, Tolerance::new(0.0, 0.0)).unwrap();
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, false, false]);
    let r = ops::isclose(0.7f64, &a, Tolerance::new(0.0, 0.0)).unwrap();
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![false, true, false]);
}

// =========================================================================================
// 6. Property test: random shapes, views, axes and keepdims
// =========================================================================================

/// One random case: a base shape, per axis a step and a start offset (slicing), a
/// permutation seed, the reduced axes (each possibly written negative), whether to use the
/// full form, keepdims, the dtype and the data seed.
#[derive(Debug, Clone)]
struct PropCase {
    base: Vec<usize>,
    steps: Vec<isize>,
    offs: Vec<usize>,
    perm_seed: u64,
    reduce: Vec<bool>,
    negative: Vec<bool>,
    full: bool,
    keepdims: bool,
    dtype: DType,
    seed: u64,
}

fn prop_case() -> impl Strategy<Value = PropCase> {
    let extent = prop_oneof![
        1 => Just(0usize),
        12 => 1usize..6,
        3 => prop::sample::select(vec![7usize, 16, 33, 100]),
    ];
    (
        prop::collection::vec(extent, 0..=4),
        prop::collection::vec(
            prop::sample::select(vec![1isize, 1, 1, 2, -1, -1, -2, 3]),
            4,
        ),
        prop::collection::vec(0usize..3, 4),
        any::<u64>(),
        prop::collection::vec(any::<bool>(), 4),
        prop::collection::vec(any::<bool>(), 4),
        prop::bool::weighted(0.25),
        any::<bool>(),
        prop::sample::select(vec![
            DType::F64,
            DType::F32,
            DType::I32,
            DType::I16,
            DType::U8,
            DType::F16,
        ]),
        any::<u64>(),
    )
        .prop_map(
            |(mut base, steps, offs, perm_seed, reduce, negative, full, keepdims, dtype, seed)| {
                while base.iter().product::<usize>() > 20_000 {
                    let big = (0..base.len()).max_by_key(|&i| base[i]).unwrap_or(0);
                    base[big] /= 2;
                }
                PropCase {
                    base,
                    steps,
                    offs,
                    perm_seed,
                    reduce,
                    negative,
                    full,
                    keepdims,
                    dtype,
                    seed,
                }
            },
        )
}

/// The device view of `c` (base → slice → permute) and its host values in C order.
fn prop_view(c: &PropCase, rng: &mut Rng) -> (Array, Vec<V>) {
    let nd = c.base.len();
    let d = c.dtype;
    let n: usize = c.base.iter().product();
    let base: Vec<V> = if d.is_float() {
        rand_vals(rng, d, n)
    } else {
        tie_vals(rng, d, n)
    };
    let base_dev = dev_exact(&base, &c.base, d);
    let bst = c_strides(&c.base);
    let mut args = Vec::with_capacity(nd);
    let mut sliced = Vec::with_capacity(nd);
    let mut offset = 0isize;
    let mut sst = Vec::with_capacity(nd);
    for (j, &bs) in bst.iter().enumerate() {
        let (len, step) = (c.base[j], c.steps[j]);
        let off = c.offs[j].min(len.saturating_sub(1));
        let m = step.unsigned_abs();
        let (start, count) = if len == 0 {
            (0, 0)
        } else if step > 0 {
            (off, (len - off).div_ceil(m))
        } else {
            (len - 1 - off, (len - off).div_ceil(m))
        };
        args.push(SliceArg::Range {
            start: (len > 0).then_some(start as isize),
            end: None,
            step,
        });
        sliced.push(count);
        offset += start as isize * bs as isize;
        sst.push(bs as isize * step);
    }
    let mut perm: Vec<usize> = (0..nd).collect();
    let mut prng = Rng::new(c.perm_seed);
    for i in (1..nd).rev() {
        let j = prng.usize(0, i + 1);
        perm.swap(i, j);
    }
    let vshape: Vec<usize> = perm.iter().map(|&p| sliced[p]).collect();
    let vst: Vec<isize> = perm.iter().map(|&p| sst[p]).collect();
    let perm_i: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
    let view = base_dev.slice(&args).unwrap().permute(&perm_i).unwrap();
    assert_eq!(view.shape(), &vshape[..], "view of {c:?}");
    let vals = if vshape.contains(&0) {
        Vec::new()
    } else {
        strided(&base, offset, &vshape, &vst)
    };
    (view, vals)
}

#[test]
fn random_reductions_match_a_host_model() {
    require_gpu!();
    let mut runner = gpu_proptest_runner(20);
    let result = runner.run(&prop_case(), |c| {
        let mut rng = Rng::new(c.seed);
        let (v, vals) = prop_view(&c, &mut rng);
        let nd = v.ndim();
        let axes = picked_axes(nd, &c.reduce, &c.negative);
        let axes_opt = if c.full { None } else { Some(&axes[..]) };
        let arg_axis: Option<Vec<isize>> = if c.full || axes.is_empty() {
            None
        } else {
            Some(vec![axes[0]])
        };
        let cases = [
            (Op::Sum, axes_opt, c.keepdims),
            (Op::Mean, axes_opt, c.keepdims),
            (Op::Max, axes_opt, c.keepdims),
            (
                Op::ArgMax,
                arg_axis.as_deref(),
                c.keepdims && arg_axis.is_some(),
            ),
        ];
        for (op, ax, keep) in cases {
            let p = plan(v.shape(), ax, keep);
            let r_size = p.groups.first().map_or(0, Vec::len);
            let empty_err =
                matches!(op, Op::Max | Op::ArgMax) && !p.groups.is_empty() && r_size == 0;
            if empty_err {
                let e = call(op, &v, ax, keep, false);
                let ctx = format!("{op:?} over {ax:?} of {:?}", v.shape());
                let e = expect_err(e, ErrorKind::InvalidArgument, &ctx);
                prop_assert!(
                    e.to_string()
                        .starts_with("zero-size array to reduction operation"),
                    "{}: {}",
                    ctx,
                    e
                );
            } else {
                check_op(op, &v, &vals, ax, keep, c.seed % 2 == 0, &format!("{c:?}"));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// =========================================================================================
// 7. Large reductions
// =========================================================================================

#[test]
fn large_sum_of_1e8_float32() {
    require_gpu!();
    // on the host device 1e7: the same split reduction (see `common::gpu_or_host`)
    let n = common::gpu_or_host(100_000_000usize, 10_000_000);
    let mut rng = Rng::new(0x5EED_000D);
    // exact float32 values in [0, 1)
    let v: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
        .collect();
    let want: f64 = v.iter().map(|&x| f64::from(x)).sum();
    let a = Array::from_slice(&v, &[n]).unwrap();
    drop(v);
    let r = ops::sum(&a).unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::F32, &[][..]));
    let got = f64::from(r.to_vec::<f32>().unwrap()[0]);
    let rel = (got - want).abs() / want;
    assert!(
        rel < 1e-5,
        "sum of 1e8 float32: got {got}, want {want} (relative error {rel:e})"
    );
    // the same through the axis form over a 2-D reshape (rows of 1e4)
    let m = a.reshape(&[(n / 10_000) as isize, 10_000]).unwrap();
    let r = ops::sum_axis(&m, [0, 1], Keepdims::No).unwrap();
    let got = f64::from(r.to_vec::<f32>().unwrap()[0]);
    assert!(
        (got - want).abs() / want < 1e-5,
        "sum over (0, 1): got {got}, want {want}"
    );
}

#[test]
fn large_mean_of_1e7_float64() {
    require_gpu!();
    let n = 10_000_000usize;
    let mut rng = Rng::new(0x5EED_000E);
    let v: Vec<f64> = (0..n).map(|_| rng.f64(-1.0, 3.0)).collect();
    // host mean with a compensated (Neumaier) sum
    let (mut s, mut comp) = (0.0f64, 0.0f64);
    for &x in &v {
        let t = s + x;
        comp += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    let want = (s + comp) / n as f64;
    let a = Array::from_slice(&v, &[n]).unwrap();
    let r = a.mean().unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::F64, &[][..]));
    let got = r.to_vec::<f64>().unwrap()[0];
    let rel = (got - want).abs() / want.abs();
    assert!(
        rel < 1e-12,
        "mean of 1e7 float64: got {got}, want {want} (relative error {rel:e})"
    );
    // int32 input: a float64 mean
    let iv: Vec<i32> = v.iter().map(|&x| (x * 1000.0) as i32).collect();
    let want_i = iv.iter().map(|&x| i64::from(x)).sum::<i64>() as f64 / n as f64;
    let r = ops::mean(&Array::from_slice(&iv, &[n]).unwrap()).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    let got = r.to_vec::<f64>().unwrap()[0];
    assert!(
        (got - want_i).abs() <= 1e-12 * want_i.abs(),
        "int32 mean: got {got}, want {want_i}"
    );
}

#[test]
fn large_var_of_4096_squared_float32_per_axis() {
    require_gpu!();
    // on the host device 1024²: rows and columns of the same strategies
    let n = common::gpu_or_host(4096usize, 1024);
    let mut rng = Rng::new(0x5EED_000F);
    let v: Vec<f32> = (0..n * n).map(|_| rng.f64(-1.0, 3.0) as f32).collect();
    let a = Array::from_slice(&v, &[n, n]).unwrap();
    // two-pass per row (axis 1) and per column (axis 0) in f64
    let mut row_mean = vec![0.0f64; n];
    let mut col_mean = vec![0.0f64; n];
    for i in 0..n {
        for j in 0..n {
            let x = f64::from(v[i * n + j]);
            row_mean[i] += x;
            col_mean[j] += x;
        }
    }
    row_mean.iter_mut().for_each(|m| *m /= n as f64);
    col_mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut row_var = vec![0.0f64; n];
    let mut col_var = vec![0.0f64; n];
    for i in 0..n {
        for j in 0..n {
            let x = f64::from(v[i * n + j]);
            row_var[i] += (x - row_mean[i]).powi(2);
            col_var[j] += (x - col_mean[j]).powi(2);
        }
    }
    row_var.iter_mut().for_each(|m| *m /= n as f64);
    col_var.iter_mut().for_each(|m| *m /= n as f64);
    // ddof 1 would be off by 1/n (2.4e-4 relative, 9.8e-4 for 1024): the tolerance is well below
    let tol = 3e-5;
    for (axis, want) in [(0isize, &col_var), (1, &row_var), (-1, &row_var)] {
        let r = ops::var_axis(&a, axis, Keepdims::No).unwrap();
        assert_eq!((r.dtype(), r.shape()), (DType::F32, &[n][..]));
        let got = r.to_vec::<f32>().unwrap();
        for (k, (&g, &w)) in got.iter().zip(want.iter()).enumerate() {
            let rel = (f64::from(g) - w).abs() / w;
            assert!(
                rel < tol,
                "var over axis {axis}: element {k}: got {g}, want {w} (relative {rel:e})"
            );
        }
        let r = ops::std_axis(&a, axis, Keepdims::Yes).unwrap();
        let want_shape = if axis == 0 { [1, n] } else { [n, 1] };
        assert_eq!(r.shape(), &want_shape[..]);
        for (k, (&g, &w)) in r
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .zip(want.iter())
            .enumerate()
        {
            let rel = (f64::from(g) - w.sqrt()).abs() / w.sqrt();
            assert!(
                rel < tol,
                "std over axis {axis}: element {k}: got {g}, want {} (relative {rel:e})",
                w.sqrt()
            );
        }
    }
    // the transposed view over axis 0 is the rows
    let r = ops::var_axis(&a.transpose(), 0, Keepdims::No).unwrap();
    for (k, (&g, &w)) in r.to_vec::<f32>().unwrap().iter().zip(&row_var).enumerate() {
        let rel = (f64::from(g) - w).abs() / w;
        assert!(
            rel < tol,
            "var of the transpose over axis 0: element {k}: got {g}, want {w}"
        );
    }
}

// =========================================================================================
// 8. Errors
// =========================================================================================

#[test]
fn empty_max_min_argmax_argmin_are_errors() {
    require_gpu!();
    let names = [
        (Op::Max, "maximum"),
        (Op::Min, "minimum"),
        (Op::ArgMax, "argmax"),
        (Op::ArgMin, "argmin"),
    ];
    for d in [DType::F32, DType::I64, DType::Bool, DType::F16] {
        for (op, name) in names {
            let want =
                format!("zero-size array to reduction operation {name} which has no identity");
            for (shape, axes) in [
                (&[0usize][..], None),
                (&[0], Some(&[0isize][..])),
                (&[3, 0], None),
                (&[3, 0], Some(&[1][..])),
                (&[0, 3], Some(&[-2][..])),
                (&[2, 0, 4], Some(&[1][..])),
            ] {
                let e = Array::zeros(shape, d).unwrap();
                let ctx = format!("{op:?} of {d} {shape:?} over {axes:?}");
                for keep in [false, true] {
                    if axes.is_none() && keep {
                        continue;
                    }
                    let err = expect_err(
                        call(op, &e, axes, keep, false),
                        ErrorKind::InvalidArgument,
                        &ctx,
                    );
                    assert_eq!(err.to_string(), want, "{ctx}");
                }
            }
            // through the method
            let e = Array::zeros(&[0], d).unwrap();
            let err = expect_err(
                call(op, &e, None, false, true),
                ErrorKind::InvalidArgument,
                name,
            );
            assert_eq!(err.to_string(), want);
        }
    }
}

#[test]
fn complex_max_min_argmax_argmin_order_as_numpy() {
    require_gpu!();
    for d in [DType::C64, DType::C128] {
        // max / min: NumPy's lexicographic order (the real part, then the imaginary part)
        let z = |re: f64, im: f64| Complex::new(re, im);
        let vals = [
            z(1.0, 5.0),
            z(3.0, -1.0),
            z(-2.0, 9.0),
            z(3.0, 2.0),
            z(0.0, 0.0),
            z(-2.0, -4.0),
        ];
        let v = Array::from_slice(&vals, &[2, 3])
            .unwrap()
            .astype(d)
            .unwrap();
        let got = |op: Op, axis: Option<&[isize]>| -> Vec<Complex<f64>> {
            call(op, &v, axis, false, false)
                .unwrap_or_else(|e| panic!("{op:?} {d}: {e}"))
                .astype(DType::C128)
                .unwrap()
                .to_vec::<Complex<f64>>()
                .unwrap()
        };
        assert_eq!(got(Op::Max, None), vec![z(3.0, 2.0)], "max {d}");
        assert_eq!(got(Op::Min, None), vec![z(-2.0, -4.0)], "min {d}");
        assert_eq!(
            got(Op::Max, Some(&[1])),
            vec![z(3.0, -1.0), z(3.0, 2.0)],
            "max rows {d}"
        );
        assert_eq!(
            got(Op::Min, Some(&[0])),
            vec![z(1.0, 5.0), z(0.0, 0.0), z(-2.0, -4.0)],
            "min columns {d}"
        );
        // argmax / argmin: NumPy's lexicographic order too, the first extreme
        let idx = |op: Op, axis: Option<&[isize]>| -> Vec<i64> {
            call(op, &v, axis, false, false)
                .unwrap_or_else(|e| panic!("{op:?} {d}: {e}"))
                .to_vec::<i64>()
                .unwrap()
        };
        assert_eq!(idx(Op::ArgMax, None), vec![3], "argmax {d}");
        assert_eq!(idx(Op::ArgMin, None), vec![5], "argmin {d}");
        assert_eq!(idx(Op::ArgMax, Some(&[1])), vec![1, 0], "argmax rows {d}");
        assert_eq!(
            idx(Op::ArgMin, Some(&[0])),
            vec![0, 1, 1],
            "argmin columns {d}"
        );
        let a = Array::ones(&[2, 3], d).unwrap();
        // what complex arrays do support (var / std: a real variance, tests/reduce_args.rs)
        for op in [
            Op::Sum,
            Op::Prod,
            Op::Mean,
            Op::Var,
            Op::Std,
            Op::All,
            Op::Any,
            Op::Count,
        ] {
            call(op, &a, Some(&[1]), false, false).unwrap_or_else(|e| panic!("{op:?} {d}: {e}"));
        }
    }
}

// `argmax_axis` / `argmin_axis` take one `isize`, so the InvalidArgument the library has
// for several argmax axes cannot be reached through the public API (NumPy also takes a
// single axis); nothing to test here.

#[test]
fn axis_errors() {
    require_gpu!();
    let a = Array::ones(&[2, 3], DType::F32).unwrap();
    for op in [
        Op::Sum,
        Op::Prod,
        Op::Mean,
        Op::Var,
        Op::Std,
        Op::Max,
        Op::Min,
        Op::ArgMax,
        Op::ArgMin,
        Op::All,
        Op::Any,
        Op::Count,
    ] {
        for (axis, msg) in [
            (2isize, "axis 2 is out of bounds for array of dimension 2"),
            (-3, "axis -3 is out of bounds for array of dimension 2"),
        ] {
            let ctx = format!("{op:?} axis {axis}");
            let e = expect_err(
                call(op, &a, Some(&[axis]), false, false),
                ErrorKind::Shape,
                &ctx,
            );
            assert_eq!(e.to_string(), msg, "{ctx}");
        }
        if !matches!(op, Op::ArgMax | Op::ArgMin) {
            // out of range inside a tuple; a repeated axis (also written negative)
            let e = expect_err(
                call(op, &a, Some(&[0, 2]), true, false),
                ErrorKind::Shape,
                "tuple",
            );
            assert_eq!(
                e.to_string(),
                "axis 2 is out of bounds for array of dimension 2"
            );
            let e = expect_err(
                call(op, &a, Some(&[1, -1]), false, false),
                ErrorKind::Shape,
                "duplicate",
            );
            assert!(e.to_string().contains("duplicate value in 'axis'"), "{e}");
        }
    }
    // 0-d arrays have no axis 0
    let z = Array::scalar(1.5f64).unwrap();
    let e = expect_err(ops::sum_axis(&z, 0, Keepdims::No), ErrorKind::Shape, "0-d");
    assert_eq!(
        e.to_string(),
        "axis 0 is out of bounds for array of dimension 0"
    );
    let e = expect_err(
        ops::argmax_axis(&z, 0, Keepdims::No),
        ErrorKind::Shape,
        "0-d argmax",
    );
    assert_eq!(
        e.to_string(),
        "axis 0 is out of bounds for array of dimension 0"
    );
    // but reduce fully (NumPy: np.sum(np.float64(1.5)) == 1.5, np.argmax of it == 0)
    assert_eq!(ops::sum(&z).unwrap().to_vec::<f64>().unwrap(), vec![1.5]);
    assert_eq!(ops::argmax(&z).unwrap().to_vec::<i64>().unwrap(), vec![0]);
    // an empty axis tuple reduces nothing (the result has the reduction's dtype)
    let i = Array::from_slice(&[1i8, -2, 3], &[3]).unwrap();
    let r = ops::sum_axis(&i, Vec::<isize>::new(), Keepdims::No).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i64>().unwrap()),
        (DType::I64, vec![1, -2, 3])
    );
}
