//! NumPy's results at the edges, and where cuprum follows NumPy instead of CuPy:
//!
//! - **The edge-value harness**: every element-wise operation of `ops` runs over the edge
//!   grid of every dtype (`common::numpy_model::edge_grid`: MIN, MAX, -1, zero divisors,
//!   shift widths, NaN, ±inf, -0.0, subnormals, overflow thresholds) and is compared with
//!   NumPy's rules (`numpy_model::numpy_loop`, `numpy_model::ufunc`). [`ROWS`] is the
//!   table: one row per operation (name, operands, loop rule, tolerance class, the cuprum
//!   call, the model), so adding an operation is one line. One kernel per operation and
//!   dtype: a unary row runs the whole grid as one array, a binary row every pair of grid
//!   values as two arrays, `clip` the grid against every pair of bounds. Complex values are
//!   finite (infinite and NaN complex arguments are the Annex G tests'), and results of
//!   complex transcendental functions are compared where NumPy's is finite and off the
//!   axes (their branch cuts). [`REDUCTIONS`] runs the reductions over each grid (twice,
//!   the second time reversed: NaNs and ties at both ends), one kernel per reduction and
//!   dtype.
//! - **CuPy's differences, pinned to NumPy's results** (docs/for-cupy-users.md, "Intentional
//!   differences"): float32 subnormals are values (CuPy compiles with `-ftz=true`), `inf //
//!   2`, `5 % inf`, `5e-324 // -5.95`, NaN bounds of `clip`, NaN data when `lo > hi`.
//! - **`clip` with a missing bound and `angle_deg`**: `ops`, the `Array` methods, `_into`
//!   and `fuse`, against the same model, with NumPy's refusals.
//!
//! GPU tests begin with `require_gpu!()`; without a GPU they run on the host device, on its
//! representative dtypes (`common::dtypes`).

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::ufunc as np;
use common::numpy_model::{
    Loops, as_c, cast_v, close_f, dev, edge_bounds, edge_grid, eps, host, numpy_loop, small_vals,
    view_of, weak_promote,
};
use common::{Rng, assert_err, expect_err};
use cuprum::fuse::{ArgSpec, fuse};
use cuprum::ops;
use cuprum::{Array, DType, DTypeKind, ErrorKind};

// =========================================================================================
// The table
// =========================================================================================

/// What a row's operands are, over the grid of a dtype.
#[derive(Debug, Clone, Copy)]
enum Args {
    /// One array: the grid.
    One,
    /// Two arrays: every pair of grid values.
    Two,
    /// An array and a weak Rust scalar (the call passes the same value).
    Scalar(V),
    /// `clip(x, lo, hi)`: the grid against every pair of bounds (`edge_bounds`).
    Bounds,
    /// `where(cond, x, y)`: every pair of grid values, the condition alternating.
    Cond,
}

impl Args {
    fn arity(self) -> usize {
        match self {
            Args::One => 1,
            Args::Two | Args::Scalar(_) => 2,
            Args::Bounds | Args::Cond => 3,
        }
    }
}

/// How closely a result must match NumPy's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tol {
    /// Exactly, the sign of a zero included (complex results: within 8 ulps, as the GPU
    /// may contract `a * b - c * d`).
    Exact,
    /// Exactly, except the sign of a zero where the operands tie (maximum, minimum, clip:
    /// NumPy's SIMD loops and its scalar loop differ there).
    Ties,
    /// A transcendental function: 8 ulps of the result's magnitude (complex: 512, and
    /// only where NumPy's result is finite).
    Ulps,
}

type Call = fn(&[&Array]) -> cuprum::Result<Array>;
type Model = fn(&[V], DType, DType) -> V;

/// One operation: its name, operands, NumPy's loop rule, tolerance, the cuprum call and
/// NumPy's result per element.
struct Row {
    name: &'static str,
    args: Args,
    loops: Loops,
    tol: Tol,
    call: Call,
    model: Model,
}

/// The table: one line per operation (`name, operands, loop rule, tolerance, call =>
/// model;`, the call an expression of the operands `a`), kept out of rustfmt's reach like
/// the ufunc table of `ops/ufunc.rs`.
macro_rules! rows {
    ($($name:literal, $args:expr, $loops:ident, $tol:ident, |$a:ident| $call:expr => $model:expr;)*) => {
        /// Every element-wise operation of `ops`, one line each.
        static ROWS: &[Row] = &[$(Row {
            name: $name,
            args: $args,
            loops: Loops::$loops,
            tol: Tol::$tol,
            call: |$a: &[&Array]| $call,
            model: $model,
        }),*];
    };
}

use Args::{Bounds, Cond, One, Two};

rows! {
    // name, operands, NumPy's loop rule, tolerance, |operands| the cuprum call => NumPy's rule
    "add", Two, Same, Exact, |a| ops::add(a[0], a[1]) => np::add;
    "subtract", Two, NoBool, Exact, |a| ops::subtract(a[0], a[1]) => np::subtract;
    "multiply", Two, Same, Exact, |a| ops::multiply(a[0], a[1]) => np::multiply;
    "divide", Two, TrueDivide, Exact, |a| ops::divide(a[0], a[1]) => np::divide;
    "remainder", Two, IntLike, Exact, |a| ops::remainder(a[0], a[1]) => np::remainder;
    "floor_divide", Two, IntLike, Exact, |a| ops::floor_divide(a[0], a[1]) => np::floor_divide;
    "fmod", Two, IntLike, Exact, |a| ops::fmod(a[0], a[1]) => np::fmod;
    "power", Two, BoolInt8, Ulps, |a| ops::power(a[0], a[1]) => np::power;
    "power(x, 2)", Args::Scalar(I(2)), BoolInt8, Exact, |a| ops::power(a[0], 2i64) => np::power;
    "power(x, 3)", Args::Scalar(I(3)), BoolInt8, Ulps, |a| ops::power(a[0], 3i64) => np::power;
    "power(x, 0.5)", Args::Scalar(F(0.5)), BoolInt8, Ulps, |a| ops::power(a[0], 0.5f64) => np::sqrt;
    "maximum", Two, Same, Ties, |a| ops::maximum(a[0], a[1]) => np::maximum;
    "minimum", Two, Same, Ties, |a| ops::minimum(a[0], a[1]) => np::minimum;
    "clip", Bounds, RealOnly, Ties, |a| ops::clip(a[0], a[1], a[2]) => np::clip;
    "clip(x, lo, ..)", Two, RealOnly, Ties, |a| ops::clip(a[0], a[1], ..) => np::maximum;
    "clip(x, .., hi)", Two, RealOnly, Ties, |a| ops::clip(a[0], .., a[1]) => np::minimum;
    "where", Cond, Same, Exact, |a| ops::where_(a[0], a[1], a[2]) => np::where_;
    "equal", Two, ToBool, Exact, |a| ops::equal(a[0], a[1]) => np::equal;
    "not_equal", Two, ToBool, Exact, |a| ops::not_equal(a[0], a[1]) => np::not_equal;
    "less", Two, ToBool, Exact, |a| ops::less(a[0], a[1]) => np::less;
    "less_equal", Two, ToBool, Exact, |a| ops::less_equal(a[0], a[1]) => np::less_equal;
    "greater", Two, ToBool, Exact, |a| ops::greater(a[0], a[1]) => np::greater;
    "greater_equal", Two, ToBool, Exact, |a| ops::greater_equal(a[0], a[1]) => np::greater_equal;
    "logical_and", Two, ToBool, Exact, |a| ops::logical_and(a[0], a[1]) => np::logical_and;
    "logical_or", Two, ToBool, Exact, |a| ops::logical_or(a[0], a[1]) => np::logical_or;
    "logical_xor", Two, ToBool, Exact, |a| ops::logical_xor(a[0], a[1]) => np::logical_xor;
    "bitwise_and", Two, Bitwise, Exact, |a| ops::bitwise_and(a[0], a[1]) => np::bitwise_and;
    "bitwise_or", Two, Bitwise, Exact, |a| ops::bitwise_or(a[0], a[1]) => np::bitwise_or;
    "bitwise_xor", Two, Bitwise, Exact, |a| ops::bitwise_xor(a[0], a[1]) => np::bitwise_xor;
    "left_shift", Two, Shift, Exact, |a| ops::left_shift(a[0], a[1]) => np::left_shift;
    "right_shift", Two, Shift, Exact, |a| ops::right_shift(a[0], a[1]) => np::right_shift;
    "arctan2", Two, RealFloat, Ulps, |a| ops::arctan2(a[0], a[1]) => np::arctan2;
    "hypot", Two, RealFloat, Ulps, |a| ops::hypot(a[0], a[1]) => np::hypot;
    "negative", One, NoBool, Exact, |a| ops::negative(a[0]) => np::negative;
    "positive", One, NoBool, Exact, |a| ops::positive(a[0]) => np::positive;
    "absolute", One, RealPart, Exact, |a| ops::abs(a[0]) => np::absolute;
    "floor", One, Rounding, Exact, |a| ops::floor(a[0]) => np::floor;
    "ceil", One, Rounding, Exact, |a| ops::ceil(a[0]) => np::ceil;
    "trunc", One, Rounding, Exact, |a| ops::trunc(a[0]) => np::trunc;
    "rint", One, Float, Exact, |a| ops::rint(a[0]) => np::rint;
    "round", One, Round, Exact, |a| ops::round(a[0]) => np::round;
    "isnan", One, ToBool, Exact, |a| ops::isnan(a[0]) => np::isnan;
    "isinf", One, ToBool, Exact, |a| ops::isinf(a[0]) => np::isinf;
    "isfinite", One, ToBool, Exact, |a| ops::isfinite(a[0]) => np::isfinite;
    "signbit", One, Signbit, Exact, |a| ops::signbit(a[0]) => np::signbit;
    "logical_not", One, ToBool, Exact, |a| ops::logical_not(a[0]) => np::logical_not;
    "invert", One, Bitwise, Exact, |a| ops::invert(a[0]) => np::invert;
    "sign", One, NoBoolLoop, Exact, |a| ops::sign(a[0]) => np::sign;
    "square", One, BoolInt8, Exact, |a| ops::square(a[0]) => np::square;
    "reciprocal", One, BoolInt8, Exact, |a| ops::reciprocal(a[0]) => np::reciprocal;
    "conjugate", One, BoolInt8, Exact, |a| ops::conj(a[0]) => np::conj;
    "real", One, RealPart, Exact, |a| ops::real(a[0]) => np::real;
    "imag", One, RealPart, Exact, |a| ops::imag(a[0]) => np::imag;
    "angle", One, Angle, Ulps, |a| ops::angle(a[0]) => np::angle;
    "angle_deg", One, Angle, Ulps, |a| ops::angle_deg(a[0]) => np::angle_deg;
    "sqrt", One, Float, Ulps, |a| ops::sqrt(a[0]) => np::sqrt;
    "cbrt", One, RealFloat, Ulps, |a| ops::cbrt(a[0]) => np::cbrt;
    "exp", One, Float, Ulps, |a| ops::exp(a[0]) => np::exp;
    "exp2", One, Float, Ulps, |a| ops::exp2(a[0]) => np::exp2;
    "expm1", One, Float, Ulps, |a| ops::expm1(a[0]) => np::expm1;
    "log", One, Float, Ulps, |a| ops::log(a[0]) => np::log;
    "log2", One, Float, Ulps, |a| ops::log2(a[0]) => np::log2;
    "log10", One, Float, Ulps, |a| ops::log10(a[0]) => np::log10;
    "log1p", One, Float, Ulps, |a| ops::log1p(a[0]) => np::log1p;
    "sin", One, Float, Ulps, |a| ops::sin(a[0]) => np::sin;
    "cos", One, Float, Ulps, |a| ops::cos(a[0]) => np::cos;
    "tan", One, Float, Ulps, |a| ops::tan(a[0]) => np::tan;
    "arcsin", One, Float, Ulps, |a| ops::arcsin(a[0]) => np::arcsin;
    "arccos", One, Float, Ulps, |a| ops::arccos(a[0]) => np::arccos;
    "arctan", One, Float, Ulps, |a| ops::arctan(a[0]) => np::arctan;
    "sinh", One, Float, Ulps, |a| ops::sinh(a[0]) => np::sinh;
    "cosh", One, Float, Ulps, |a| ops::cosh(a[0]) => np::cosh;
    "tanh", One, Float, Ulps, |a| ops::tanh(a[0]) => np::tanh;
    "arcsinh", One, Float, Ulps, |a| ops::arcsinh(a[0]) => np::arcsinh;
    "arccosh", One, Float, Ulps, |a| ops::arccosh(a[0]) => np::arccosh;
    "arctanh", One, Float, Ulps, |a| ops::arctanh(a[0]) => np::arctanh;
}

// =========================================================================================
// The runner
// =========================================================================================

/// The operand values of `row` over the grid of `d` (one vector per operand).
fn operands(row: &Row, d: DType) -> Vec<Vec<V>> {
    let g = edge_grid(d);
    let pairs = || {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for &p in &g {
            for &q in &g {
                x.push(p);
                y.push(q);
            }
        }
        (x, y)
    };
    match row.args {
        Args::One | Args::Scalar(_) => vec![g.clone()],
        Args::Two => {
            let (x, y) = pairs();
            vec![x, y]
        }
        Args::Cond => {
            let (x, y) = pairs();
            let c = (0..x.len()).map(|k| B(k % 3 != 1)).collect();
            vec![c, x, y]
        }
        Args::Bounds => {
            let b = edge_bounds(d);
            let (mut x, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new());
            for &v in &g {
                for &l in &b {
                    for &h in &b {
                        x.push(v);
                        lo.push(l);
                        hi.push(h);
                    }
                }
            }
            vec![x, lo, hi]
        }
    }
}

/// The loop NumPy picks for `row` on arrays of `d`: (compute, result), or `None` for a
/// refusal.
fn loop_of(row: &Row, d: DType) -> Option<(DType, DType)> {
    let c = match row.args {
        Args::Scalar(s) => weak_promote(
            d,
            match s {
                B(_) => DTypeKind::Bool,
                I(_) => DTypeKind::SignedInt,
                F(_) => DTypeKind::Float,
                C(..) => DTypeKind::Complex,
            },
        ),
        _ => d,
    };
    // `x ** 0.5` is `sqrt` in NumPy for inexact arrays; integers take float64's power loop.
    if row.name == "power(x, 0.5)" {
        let l = numpy_loop(Loops::Float, c)?;
        return Some(l);
    }
    numpy_loop(row.loops, c)
}

/// Whether `got` is NumPy's `want` for a result of dtype `out` computed in `t` under `tol`
/// (`None`), or why not.
fn mismatch(got: V, want: V, t: DType, out: DType, tol: Tol) -> Option<String> {
    let (wr, wi) = as_c(want);
    // Complex results, and real ones of complex operands (`absolute`: `hypot`, whose GPU and
    // C library versions differ from NumPy's by an ulp or two), are not bit-exact.
    let complex = t.is_complex() || out.is_complex();
    if tol == Tol::Ulps && complex && !(wr.is_finite() && wi.is_finite()) {
        return None; // Annex G territory: the complex-special-values tests
    }
    let ulps = match (tol, complex) {
        (Tol::Ulps, true) => 512.0,
        (Tol::Ulps, false) | (_, true) => 8.0,
        _ => 0.0,
    };
    let mag = if wr.is_finite() && wi.is_finite() {
        wr.hypot(wi).max(0.01)
    } else {
        1.0
    };
    let t = ulps * eps(out) * mag;
    let ok = match (got, want) {
        (F(g), F(w)) => {
            close_f(g, w, t)
                && (tol != Tol::Exact || w != 0.0 || g.is_sign_negative() == w.is_sign_negative())
        }
        (C(gr, gi), C(wr, wi)) => close_f(gr, wr, t) && close_f(gi, wi, t),
        _ => got == want,
    };
    (!ok).then(|| format!("got {got:?}, want {want:?} (tolerance {t:e})"))
}

/// Runs `row` over the grid of `d`; every disagreement goes into `bad`.
fn run_row(row: &Row, d: DType, bad: &mut Vec<String>) {
    let vals = operands(row, d);
    let n = vals[0].len();
    let arrays: Vec<Array> = vals
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let dt = if matches!(row.args, Args::Cond) && k == 0 {
                DType::Bool
            } else {
                d
            };
            dev(v, &[n], dt)
        })
        .collect();
    let refs: Vec<&Array> = arrays.iter().collect();
    let what = format!("{} of {d}", row.name);
    let Some((t, out)) = loop_of(row, d) else {
        match (row.call)(&refs) {
            Ok(r) => bad.push(format!(
                "{what}: NumPy refuses it, cuprum gave {}",
                r.dtype()
            )),
            Err(e) if e.kind() != ErrorKind::DType => bad.push(format!("{what}: {e:?}")),
            Err(e) if !e.to_string().contains(d.name()) => {
                bad.push(format!("{what}: the message does not name the dtype: {e}"))
            }
            Err(_) => {}
        }
        return;
    };
    let r = match (row.call)(&refs) {
        Ok(r) => r,
        Err(e) => {
            bad.push(format!("{what}: {e}"));
            return;
        }
    };
    if r.dtype() != out || r.shape() != [n] {
        bad.push(format!(
            "{what}: result {} {:?}, NumPy's {out} [{n}]",
            r.dtype(),
            r.shape()
        ));
        return;
    }
    let got = host(&r);
    let mut shown = 0;
    for k in 0..n {
        let mut x: Vec<V> = vals.iter().map(|v| cast_v(v[k], t)).collect();
        match row.args {
            Args::Cond => x[0] = vals[0][k],
            Args::Scalar(s) => x.push(cast_v(s, t)),
            _ => {}
        }
        // Complex transcendental functions at huge arguments and on the axes (the branch
        // cuts, where C99 Annex G decides by the sign of a zero part) are the Annex G tests'
        // (`tests/complex_special.rs`, against NumPy's own values); the model's num_complex
        // ignores the sign of a zero.
        let theirs = |v: &V| matches!(v, C(re, im) if re.abs() > 10.0 || im.abs() > 10.0 || *re == 0.0 || *im == 0.0);
        if row.tol == Tol::Ulps && t.is_complex() && x.iter().any(theirs) {
            continue;
        }
        let want = (row.model)(&x, t, out);
        if let Some(why) = mismatch(got[k], want, t, out, row.tol) {
            if shown < 4 {
                let input: Vec<V> = (0..vals.len()).map(|j| vals[j][k]).collect();
                bad.push(format!("{what}: {input:?}: {why}"));
            }
            shown += 1;
        }
    }
    if shown > 4 {
        bad.push(format!("{what}: … {shown} elements in all"));
    }
}

#[test]
fn every_operation_follows_numpy_over_the_edge_grid_of_every_dtype() {
    require_gpu!();
    let cases: Vec<(DType, &Row)> = common::dtypes(DType::ALL)
        .into_iter()
        .enumerate()
        .flat_map(|(i, d)| {
            ROWS.iter()
                .enumerate()
                .filter(move |&(j, _)| common::sweep_cell(i, j))
                .map(move |(_, row)| (d, row))
        })
        .collect();
    // Each case a kernel of its own: on the host device, on every core.
    let bad: Vec<String> = common::each_on_every_core(&cases, |&(d, row)| {
        assert_eq!(
            row.args.arity(),
            operands(row, d).len() + usize::from(matches!(row.args, Args::Scalar(_)))
        );
        let mut bad = Vec::new();
        run_row(row, d, &mut bad);
        bad
    })
    .concat();
    let checked = cases.len();
    assert!(checked > 70, "{checked}");
    assert!(
        bad.is_empty(),
        "{} disagreements with NumPy:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

// =========================================================================================
// Where CuPy and NumPy disagree, cuprum follows NumPy (docs/for-cupy-users.md)
// =========================================================================================

/// The float dtypes these run in (float32 is where CuPy's `-ftz=true` flushes).
fn floats() -> Vec<DType> {
    common::dtypes(&[DType::F16, DType::BF16, DType::F32, DType::F64])
}

#[test]
fn float32_subnormals_are_values_not_zeros() {
    require_gpu!();
    // CuPy compiles with -ftz=true: a float32 subnormal reads as 0 in sign, the logical
    // operations and count_nonzero. NumPy (and cuprum) see the value.
    let tiny = 1e-40f32;
    assert!(tiny > 0.0 && tiny < f32::MIN_POSITIVE);
    let a = Array::from_slice(&[tiny, -tiny, 0.0], &[3]).unwrap();
    assert_eq!(
        ops::sign(&a).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0, -1.0, 0.0]
    );
    assert_eq!(
        ops::logical_not(&a).unwrap().to_vec::<bool>().unwrap(),
        vec![false, false, true]
    );
    assert_eq!(
        ops::logical_and(&a, true)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, true, false]
    );
    assert_eq!(
        ops::logical_or(&a, false)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, true, false]
    );
    assert_eq!(
        ops::logical_xor(&a, true)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![false, false, true]
    );
    assert_eq!(
        ops::count_nonzero(&a).unwrap().to_vec::<i64>().unwrap(),
        vec![2]
    );
    assert_eq!(
        ops::any(&a.slice(&[cuprum::SliceArg::from(..1)]).unwrap())
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true]
    );
    assert_eq!(
        ops::equal(&a, 0.0).unwrap().to_vec::<bool>().unwrap(),
        vec![false, false, true]
    );
    assert_eq!(
        a.astype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
        vec![true, true, false]
    );
    // Arithmetic keeps them too: tiny * 2 is 2e-40, not 0.
    let twice = (&a * 2.0f32).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(twice[0], tiny * 2.0);
    // Through fuse as well.
    let f = fuse("nz", |[x]| (x.sign(), x.logical_not()));
    let outs = f.call_all((&a,)).unwrap();
    assert_eq!(outs[0].to_vec::<f32>().unwrap(), vec![1.0, -1.0, 0.0]);
    assert_eq!(outs[1].to_vec::<bool>().unwrap(), vec![false, false, true]);
}

#[test]
fn floor_divide_and_remainder_at_infinities_and_subnormals_follow_numpy() {
    require_gpu!();
    for d in floats() {
        let x = dev(
            &[F(f64::INFINITY), F(f64::NEG_INFINITY), F(5.0), F(-5.0)],
            &[4],
            d,
        );
        // inf // 2 is NaN in NumPy (CuPy: inf).
        let q = host(&ops::floor_divide(&x, 2.0).unwrap());
        assert!(matches!(q[0], F(v) if v.is_nan()), "{d}: {q:?}");
        assert!(matches!(q[1], F(v) if v.is_nan()), "{d}: {q:?}");
        assert_eq!((q[2], q[3]), (F(2.0), F(-3.0)), "{d}");
        // 5 % inf is 5 in NumPy (CuPy: NaN); -5 % inf is inf, 5 % -inf is -inf.
        let inf = dev(&[F(f64::INFINITY)], &[1], d);
        let neg_inf = ops::negative(&inf).unwrap();
        let tail = x.slice(&[cuprum::SliceArg::from(2..)]).unwrap();
        let r = host(&ops::remainder(&tail, &inf).unwrap());
        assert_eq!(r, vec![F(5.0), F(f64::INFINITY)], "{d}");
        let r = host(&ops::remainder(5.0, &neg_inf).unwrap());
        assert_eq!(r, vec![F(f64::NEG_INFINITY)], "{d}");
        // 5 // inf is 0, -5 // inf is -1 (NumPy's divmod).
        let q = host(&ops::floor_divide(&tail, &inf).unwrap());
        assert_eq!(q, vec![F(0.0), F(-1.0)], "{d}");
    }
    // 5e-324 // -5.95 is -1.0 in NumPy (CuPy: -0.0): the remainder is the dividend, with
    // the divisor's sign opposite, so the quotient steps down.
    let tiny = Array::from_slice(&[5e-324f64, -5e-324], &[2]).unwrap();
    assert_eq!(
        ops::floor_divide(&tiny, -5.95)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![-1.0, 0.0]
    );
    let r = ops::remainder(&tiny, -5.95)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(r, vec![5e-324 - 5.95, -5e-324]);
    let t32 = Array::from_slice(&[1e-45f32], &[1]).unwrap();
    assert_eq!(
        ops::floor_divide(&t32, -5.95f32)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![-1.0]
    );
    // fuse lowers to the same expressions.
    let f = fuse("fd", |[x, y]| (x.floor_divide(y), x % y));
    let x = Array::from_slice(&[f64::INFINITY, 5.0, 5e-324], &[3]).unwrap();
    let y = Array::from_slice(&[2.0, f64::INFINITY, -5.95], &[3]).unwrap();
    let outs = f.call_all((&x, &y)).unwrap();
    let q = outs[0].to_vec::<f64>().unwrap();
    assert!(q[0].is_nan() && q[1] == 0.0 && q[2] == -1.0, "{q:?}");
    let r = outs[1].to_vec::<f64>().unwrap();
    assert!(
        r[0].is_nan() && r[1] == 5.0 && r[2] == 5e-324 - 5.95,
        "{r:?}"
    );
}

#[test]
fn clip_nan_bounds_and_crossed_bounds_follow_numpy() {
    require_gpu!();
    for d in floats() {
        let x = dev(&[F(-3.0), F(1.0), F(9.0), F(f64::NAN)], &[4], d);
        let nan = |v: &V| matches!(v, F(f) if f.is_nan());
        // A NaN bound gives NaN everywhere (CuPy ignores it).
        for r in [
            ops::clip(&x, f64::NAN, 5.0).unwrap(),
            ops::clip(&x, 0.0, f64::NAN).unwrap(),
            ops::clip(&x, f64::NAN, ..).unwrap(),
            ops::clip(&x, .., f64::NAN).unwrap(),
        ] {
            assert!(host(&r).iter().all(nan), "{d}: {:?}", host(&r));
        }
        // lo > hi gives hi, and NaN data stays NaN (CuPy clips it).
        let r = host(&ops::clip(&x, 5.0, 0.0).unwrap());
        assert_eq!(&r[..3], &[F(0.0), F(0.0), F(0.0)], "{d}");
        assert!(nan(&r[3]), "{d}: {r:?}");
        // A NaN bound array element affects only its own element.
        let lo = dev(&[F(f64::NAN), F(0.0), F(0.0), F(0.0)], &[4], d);
        let r = host(&ops::clip(&x, &lo, 5.0).unwrap());
        assert!(nan(&r[0]) && nan(&r[3]), "{d}: {r:?}");
        assert_eq!(&r[1..3], &[F(1.0), F(5.0)], "{d}");
    }
    // fuse agrees.
    let x = Array::from_slice(&[-3.0f32, f32::NAN], &[2]).unwrap();
    let f = fuse("c", |[x]| (x.clip(f32::NAN, 1.0), x.clip(5.0, 0.0)));
    let outs = f.call_all((&x,)).unwrap();
    assert!(outs[0].to_vec::<f32>().unwrap().iter().all(|v| v.is_nan()));
    let r = outs[1].to_vec::<f32>().unwrap();
    assert!(r[0] == 0.0 && r[1].is_nan(), "{r:?}");
}

// =========================================================================================
// clip with a missing bound
// =========================================================================================

/// NumPy's `clip(x, lo, hi)` of host values in dtype `t` (`None`: a missing bound).
fn clip_model(x: V, lo: Option<V>, hi: Option<V>, t: DType) -> V {
    let x = cast_v(x, t);
    let x = match lo {
        Some(l) => np::maximum(&[x, cast_v(l, t)], t, t),
        None => x,
    };
    match hi {
        Some(h) => np::minimum(&[x, cast_v(h, t)], t, t),
        None => x,
    }
}

#[test]
fn clip_with_a_missing_bound_follows_numpy_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(71);
    for d in common::dtypes(DType::ALL) {
        let xs = small_vals(&mut rng, d, 37);
        let bs = small_vals(&mut rng, d, 37);
        let (a, b) = (dev(&xs, &[37], d), dev(&bs, &[37], d));
        if d.is_complex() {
            let e = expect_err(ops::clip(&a, &b, ..), ErrorKind::DType);
            assert!(e.to_string().contains("clip"), "{e}");
            expect_err(ops::clip(&a, .., &b), ErrorKind::DType);
            expect_err(ops::clip(&a, .., ..), ErrorKind::DType);
            continue;
        }
        let check = |r: Array, lo: bool, hi: bool, what: &str| {
            assert_eq!(r.dtype(), d, "{what} of {d}");
            let want: Vec<V> = (0..37)
                .map(|k| clip_model(xs[k], lo.then(|| bs[k]), hi.then(|| bs[k]), d))
                .collect();
            assert_eq!(host(&r), want, "{what} of {d}");
        };
        check(
            ops::clip(&a, &b, ..).unwrap(),
            true,
            false,
            "clip(a, b, ..)",
        );
        check(
            ops::clip(&a, .., &b).unwrap(),
            false,
            true,
            "clip(a, .., b)",
        );
        check(a.clip(&b, ..).unwrap(), true, false, "a.clip(b, ..)");
        check(
            ops::clip(&a, Some(&b), None::<&Array>).unwrap(),
            true,
            false,
            "Option bounds",
        );
        check(ops::clip(&a, &b, &b).unwrap(), true, true, "clip(a, b, b)");
        // The _into forms, in place included.
        let out = Array::empty(&[37], d).unwrap();
        ops::clip_into(&a, .., &b, &out).unwrap();
        check(out, false, true, "clip_into(a, .., b)");
        if d == DType::Bool {
            let e = assert_err(ops::clip(&a, .., ..), ErrorKind::DType, "positive");
            assert!(e.contains("bool"), "{e}");
            continue;
        }
        // Neither bound: a copy (NumPy's positive).
        let c = ops::clip(&a, .., ..).unwrap();
        assert_eq!((c.dtype(), host(&c)), (d, xs.clone()), "{d}");
        assert!(!c.shares_memory(&a), "{d}");
        let c = a.copy().unwrap();
        ops::clip_into(&c, .., &b, &c).unwrap();
        check(c, false, true, "in place");
    }
}

#[test]
fn clip_bounds_promote_as_numpy_and_integer_bounds_beyond_the_dtype_are_dropped() {
    require_gpu!();
    let u = Array::from_slice(&[1u8, 2, 250], &[3]).unwrap();
    // NumPy's _clip: a Python int bound at or beyond an integer dtype's range is None.
    for (r, want) in [
        (ops::clip(&u, -1, 300).unwrap(), vec![1u8, 2, 250]),
        (ops::clip(&u, -1, 1).unwrap(), vec![1, 1, 1]),
        (ops::clip(&u, 2, 300).unwrap(), vec![2, 2, 250]),
        (ops::clip(&u, 0, 255).unwrap(), vec![1, 2, 250]),
        (u.clip(-5i64, ..).unwrap(), vec![1, 2, 250]),
    ] {
        assert_eq!((r.dtype(), r.to_vec::<u8>().unwrap()), (DType::U8, want));
    }
    // A remaining bound out of range is NumPy's OverflowError: a dtype error here.
    expect_err(ops::clip(&u, 300, 400), ErrorKind::DType);
    expect_err(ops::clip(&u, .., -1), ErrorKind::DType);
    // The result dtype promotes the array with the given bounds only.
    let i = Array::from_slice(&[1i8, -7], &[2]).unwrap();
    let r = ops::clip(&i, .., 2.5).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![1.0, -7.0])
    );
    let r = ops::clip(&i, -1000, ..).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i8>().unwrap()),
        (DType::I8, vec![1, -7])
    );
    let r = ops::clip(&i, -1000.0, 5).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    let w = Array::from_slice(&[3.0f64, 3.0], &[2]).unwrap();
    let ints = Array::from_slice(&[1i64, 5], &[2]).unwrap();
    let r = ops::clip(&ints, &w, ..).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![3.0, 5.0])
    );
    // bool arrays: a Rust integer bound makes int64 (NEP 50), a bool bound keeps bool.
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    let r = ops::clip(&b, 0, ..).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i64>().unwrap()),
        (DType::I64, vec![1, 0])
    );
    let r = ops::clip(&b, false, true).unwrap();
    assert_eq!(r.dtype(), DType::Bool);
    // float32 stays float32 with weak bounds.
    let f = Array::from_slice(&[1.5f32, -2.0], &[2]).unwrap();
    assert_eq!(ops::clip(&f, .., 1i32).unwrap().dtype(), DType::F32);
}

#[test]
fn clip_with_a_missing_bound_on_views_broadcasts_and_odd_shapes() {
    require_gpu!();
    let mut rng = Rng::new(72);
    let d = DType::F32;
    for (k, shape) in [vec![], vec![0], vec![1], vec![3, 259], vec![2, 1, 5]]
        .into_iter()
        .enumerate()
    {
        let n: usize = shape.iter().product();
        let xs = small_vals(&mut rng, d, n);
        let a = view_of(&xs, &shape, d, k);
        let r = ops::clip(&a, .., 0.5).unwrap();
        assert_eq!(r.shape(), &shape[..]);
        let want: Vec<V> = xs
            .iter()
            .map(|&x| clip_model(x, None, Some(F(0.5)), d))
            .collect();
        assert_eq!(host(&r), want, "{shape:?}");
        let r = ops::clip(&a, -0.5, ..).unwrap();
        let want: Vec<V> = xs
            .iter()
            .map(|&x| clip_model(x, Some(F(-0.5)), None, d))
            .collect();
        assert_eq!(host(&r), want, "{shape:?}");
    }
    // A bound array broadcasts against the data.
    let a = Array::from_slice(&[1.0f64, 5.0, 9.0, -2.0, 0.0, 4.0], &[2, 3]).unwrap();
    let hi = Array::from_slice(&[0.0f64, 4.0, 8.0], &[3]).unwrap();
    let r = ops::clip(&a, .., &hi).unwrap();
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![0.0, 4.0, 8.0, -2.0, 0.0, 4.0]
    );
    // The output's shape must be the broadcast shape.
    let bad = Array::empty(&[3], DType::F64).unwrap();
    assert_err(
        ops::clip_into(&a, .., &hi, &bad),
        ErrorKind::Shape,
        "non-broadcastable output",
    );
    // same_kind casting of the result into `out`.
    let out_i = Array::empty(&[2, 3], DType::I32).unwrap();
    assert_err(
        ops::clip_into(&a, 0.0, .., &out_i),
        ErrorKind::DType,
        "same_kind",
    );
    assert_err(
        ops::clip_into(&a, .., .., &out_i),
        ErrorKind::DType,
        "same_kind",
    );
}

#[test]
fn fused_clip_takes_the_same_bounds_as_ops() {
    require_gpu!();
    let x = Array::from_slice(&[-3.0f32, 0.5, 9.0, f32::NAN], &[4]).unwrap();
    let f = fuse("bounds", |[x]| {
        let none: Option<f32> = None;
        (
            x.clip(0.0, ..),
            x.clip(.., 6.0),
            x.clip(Some(0.0f32), none),
            x.clip(.., ..) * 2.0,
        )
    });
    let outs = f.call_all((&x,)).unwrap();
    for (k, (lo, hi)) in [(Some(0.0), None), (None, Some(6.0)), (Some(0.0), None)]
        .into_iter()
        .enumerate()
    {
        let want = host(&ops::clip(&x, lo, hi).unwrap());
        assert_eq!(format!("{:?}", host(&outs[k])), format!("{want:?}"), "{k}");
    }
    assert_eq!(
        format!("{:?}", host(&outs[3])),
        format!("{:?}", host(&(&x * 2.0).unwrap()))
    );
    // One bound traces maximum / minimum; the dtype promotes with the given bound only.
    let e = fuse("lo", |[x]| x.clip(0.0, ..))
        .explain_for(&[ArgSpec::array(DType::F16, &[3])])
        .unwrap();
    assert_eq!(e.outputs()[0].0, DType::F16);
    assert!(
        e.kernels()[0].source.contains("maximum") && !e.kernels()[0].source.contains("clip"),
        "{e}"
    );
    let e = fuse("hi", |[x]| x.clip(.., 2.5))
        .explain_for(&[ArgSpec::array(DType::I8, &[3])])
        .unwrap();
    assert_eq!(e.outputs()[0].0, DType::F64);
    // Integer literals beyond the dtype are dropped, as in ops.
    let u = Array::from_slice(&[1u8, 250], &[2]).unwrap();
    let g = fuse("u", |[x]| x.clip(-1, 300));
    let r = g.call((&u,)).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<u8>().unwrap()),
        (DType::U8, vec![1, 250])
    );
    let g = fuse("u2", |[x]| x.clip(2, 300));
    assert_eq!(g.call((&u,)).unwrap().to_vec::<u8>().unwrap(), vec![2, 250]);
    // NumPy's refusals: bools with neither bound, complex values, an out-of-range bound.
    let b = Array::from_slice(&[true], &[1]).unwrap();
    assert_err(
        fuse("b", |[x]| x.clip(.., ..)).call((&b,)),
        ErrorKind::DType,
        "positive",
    );
    let z = Array::from_slice(&[num_complex::Complex::new(1.0f32, 1.0)], &[1]).unwrap();
    assert_err(
        fuse("z", |[x]| x.clip(0.0, ..)).call((&z,)),
        ErrorKind::DType,
        "clip",
    );
    expect_err(
        fuse("o", |[x]| x.clip(300, ..)).call((&u,)),
        ErrorKind::DType,
    );
}

// =========================================================================================
// angle in degrees
// =========================================================================================

#[test]
fn angle_deg_follows_numpy_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(73);
    for d in common::dtypes(DType::ALL) {
        let mut xs = small_vals(&mut rng, d, 33);
        if d.is_float() {
            xs[0] = cast_v(F(-0.0), d);
            xs[1] = cast_v(F(f64::NAN), d);
            xs[2] = cast_v(F(-1.0), d);
        }
        let a = dev(&xs, &[33], d);
        let (t, out) = numpy_loop(Loops::Angle, d).unwrap();
        let r = ops::angle_deg(&a).unwrap();
        assert_eq!(r.dtype(), out, "{d}");
        let got = host(&r);
        for (k, &x) in xs.iter().enumerate() {
            let want = np::angle_deg(&[cast_v(x, t)], t, out);
            assert!(
                mismatch(got[k], want, t, out, Tol::Ulps).is_none(),
                "{d} {x:?}: {:?} vs {want:?}",
                got[k]
            );
            // degrees are the radians times 180 / pi
            let rad = common::numpy_model::as_f64(host(&ops::angle(&a).unwrap())[k]);
            let deg = common::numpy_model::as_f64(got[k]);
            assert!(
                close_f(deg, rad.to_degrees(), 4.0 * eps(out) * 180.0),
                "{d}: {deg} vs {rad}"
            );
        }
        assert_eq!(
            format!("{:?}", host(&a.angle_deg().unwrap())),
            format!("{got:?}"),
            "{d}: method"
        );
        let o = Array::empty(&[33], out).unwrap();
        ops::angle_deg_into(&a, &o).unwrap();
        assert_eq!(format!("{:?}", host(&o)), format!("{got:?}"), "{d}: into");
        let f = fuse("deg", |[x]| x.angle_deg());
        assert_eq!(
            format!("{:?}", host(&f.call((&a,)).unwrap())),
            format!("{got:?}"),
            "{d}: fuse"
        );
    }
    // NumPy's documented example: angle([1.0, 1.0j, 1+1j], deg=True) = [0, 90, 45].
    let z = Array::from_slice(
        &[
            num_complex::Complex::new(1.0f64, 0.0),
            num_complex::Complex::new(0.0, 1.0),
            num_complex::Complex::new(1.0, 1.0),
        ],
        &[3],
    )
    .unwrap();
    assert_eq!(
        ops::angle_deg(&z).unwrap().to_vec::<f64>().unwrap(),
        vec![0.0, 90.0, 45.0]
    );
    // float16 rounds the angle and the factor first: NumPy gives 179.9 for -1.
    let h = Array::from_slice(&[half::f16::from_f32(-1.0)], &[1]).unwrap();
    assert_eq!(
        ops::angle_deg(&h).unwrap().to_vec::<half::f16>().unwrap()[0].to_f32(),
        179.875
    );
    // Empty and 0-d inputs keep their shapes.
    let e = Array::zeros(&[0, 3], DType::C64).unwrap();
    assert_eq!(ops::angle_deg(&e).unwrap().shape(), &[0, 3]);
    let s = Array::from_slice(&[-2i32], &[]).unwrap();
    assert_eq!(
        ops::angle_deg(&s).unwrap().to_vec::<f64>().unwrap(),
        vec![180.0]
    );
    // The output keeps its kind (same_kind casting).
    let out_i = Array::empty(&[1], DType::I32).unwrap();
    assert_err(
        ops::angle_deg_into(&s.reshape(&[1]).unwrap(), &out_i),
        ErrorKind::DType,
        "same_kind",
    );
}

// =========================================================================================
// Reductions over the grid
// =========================================================================================

use common::numpy_model::reduce;

/// One reduction: its name, the cuprum call on the whole grid, NumPy's result (dtype and
/// value; `None`: cuprum's documented refusal).
struct ReduceRow {
    name: &'static str,
    call: fn(&Array) -> cuprum::Result<Array>,
    model: ReduceModel,
}

/// NumPy's result of a reduction of the values of a dtype: (result dtype, value).
type ReduceModel = fn(&[V], DType) -> Option<(DType, V)>;

/// The reductions' table: one line each (`name: cuprum's function => NumPy's rule;`).
macro_rules! reductions {
    ($($name:ident => $model:expr;)*) => {
        /// Every reduction of `ops` over a whole array.
        static REDUCTIONS: &[ReduceRow] = &[$(ReduceRow {
            name: stringify!($name),
            call: ops::$name,
            model: $model,
        }),*];
    };
}

reductions! {
    sum => reduce::sum;
    max => reduce::max;
    min => reduce::min;
    argmax => reduce::argmax;
    argmin => reduce::argmin;
    all => reduce::all;
    any => reduce::any;
    count_nonzero => reduce::count_nonzero;
}

#[test]
fn every_reduction_follows_numpy_over_the_edge_grid_of_every_dtype() {
    require_gpu!();
    // Each dtype's reductions on a core of their own on the host device.
    let bad: Vec<String> = common::each_on_every_core(&common::dtypes(DType::ALL), |&d| {
        let mut bad = Vec::new();
        let g = edge_grid(d);
        // Twice over, reversed the second time: ties and NaNs at both ends.
        let mut vals = g.clone();
        vals.extend(g.iter().rev());
        let a = dev(&vals, &[vals.len()], d);
        for row in REDUCTIONS {
            let what = format!("{} of {d}", row.name);
            let r = (row.call)(&a);
            let Some((out, want)) = (row.model)(&vals, d) else {
                if !matches!(&r, Err(e) if e.kind() == ErrorKind::DType) {
                    bad.push(format!("{what}: expected a dtype error, got {r:?}"));
                }
                continue;
            };
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    bad.push(format!("{what}: {e}"));
                    continue;
                }
            };
            if r.dtype() != out || !r.shape().is_empty() {
                bad.push(format!(
                    "{what}: {} {:?}, NumPy's {out} 0-d",
                    r.dtype(),
                    r.shape()
                ));
                continue;
            }
            if let Some(why) = mismatch(host(&r)[0], want, d, out, Tol::Exact) {
                bad.push(format!("{what}: {why}"));
            }
        }
        bad
    })
    .concat();
    assert!(
        bad.is_empty(),
        "{} disagreements with NumPy:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
