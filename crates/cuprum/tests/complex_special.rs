//! Every complex operation of the ufunc table at the special values of C99 Annex G —
//! infinities, NaNs, signed zeros, subnormals and values near the top of the range, in
//! each part — against NumPy itself: `fixtures/complex_special.txt` holds what NumPy
//! returned for complex64 and complex128 over the grid (the inputs are rebuilt here from its
//! `part` / `bpart` / `pbase` / `exps` lines, in the recording script's order).
//!
//! A result matches when it is NaN where NumPy's is (either sign), the same infinity or the
//! same signed zero where NumPy's is one, and otherwise finite and within [`ULPS`] units in
//! the last place of the part, or of the larger part (an error relative to the complex
//! number's magnitude, which is what complex functions bound). A few places where NumPy's
//! own formula loses accuracy that cuprum keeps are listed in [`accepted`], each with why.
//!
//! Re-recording the fixture (after a change of the grid, or to check a newer NumPy):
//!
//! ```text
//! python3 -m pip install numpy      # the script only; never a dependency of cuprum
//! python3 scripts/record_complex_special.py
//! ```
//!
//! and commit the new `crates/cuprum/tests/fixtures/complex_special.txt` (its first line
//! says which NumPy recorded it). One kernel per function and dtype: each function runs
//! once over the whole grid. GPU tests begin with `require_gpu!()` (the host device runs
//! them where there is no GPU; both dtypes run there too, the grid being the point).

mod common;

use cuprum::{Array, DType, ops};
use num_complex::Complex;
use std::collections::BTreeMap;

/// The fixture NumPy recorded.
const FIXTURE: &str = include_str!("fixtures/complex_special.txt");

/// Units in the last place a finite part may differ from NumPy's (libm's and CUDA's
/// functions differ by an ulp or two each, and complex formulas combine a few of them).
const ULPS: f64 = 8.0;

/// The unary operations the fixture holds, with the cuprum function that runs each.
type Unary = fn(&Array) -> cuprum::Result<Array>;
const UNARY: &[(&str, Unary)] = &[
    ("exp", ops::exp),
    ("exp2", ops::exp2),
    ("expm1", ops::expm1),
    ("log", ops::log),
    ("log2", ops::log2),
    ("log10", ops::log10),
    ("log1p", ops::log1p),
    ("sqrt", ops::sqrt),
    ("square", ops::square),
    ("reciprocal", ops::reciprocal),
    ("sin", ops::sin),
    ("cos", ops::cos),
    ("tan", ops::tan),
    ("sinh", ops::sinh),
    ("cosh", ops::cosh),
    ("tanh", ops::tanh),
    ("arcsin", ops::arcsin),
    ("arccos", ops::arccos),
    ("arctan", ops::arctan),
    ("arcsinh", ops::arcsinh),
    ("arccosh", ops::arccosh),
    ("arctanh", ops::arctanh),
    ("absolute", ops::abs),
    ("angle", ops::angle),
    ("sign", ops::sign),
    ("conjugate", ops::conj),
    ("real", ops::real),
    ("imag", ops::imag),
    ("negative", ops::negative),
    ("rint", ops::rint),
    ("isnan", ops::isnan),
    ("isinf", ops::isinf),
    ("isfinite", ops::isfinite),
];

/// The fixture, parsed: the grids' parts and NumPy's results per (function, dtype), each
/// result element as its parts (one for real and bool results, two for complex ones).
struct Fixture {
    parts: BTreeMap<String, Vec<String>>,
    bpart: Vec<String>,
    pbase: Vec<(String, String)>,
    exps: Vec<(String, String)>,
    results: BTreeMap<(String, String), Vec<Vec<String>>>,
}

fn pair(s: &str) -> (String, String) {
    let (a, b) = s.split_once(',').expect("a re,im pair");
    (a.to_owned(), b.to_owned())
}

fn fixture() -> Fixture {
    let mut f = Fixture {
        parts: BTreeMap::new(),
        bpart: Vec::new(),
        pbase: Vec::new(),
        exps: Vec::new(),
        results: BTreeMap::new(),
    };
    for line in FIXTURE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut w = line.split(' ');
        let head = w.next().unwrap();
        match head {
            "part" => {
                let d = w.next().unwrap().to_owned();
                f.parts.insert(d, w.map(str::to_owned).collect());
            }
            "bpart" => f.bpart = w.map(str::to_owned).collect(),
            "pbase" => f.pbase = w.map(pair).collect(),
            "exps" => f.exps = w.map(pair).collect(),
            name => {
                let d = w.next().unwrap().to_owned();
                let row = w.map(|v| v.split(',').map(str::to_owned).collect());
                f.results
                    .entry((name.to_owned(), d))
                    .or_default()
                    .extend(row);
            }
        }
    }
    f
}

/// A value of the fixture in the dtype's part type (read as f32 for complex64, so that
/// `1e-40` is the float32 subnormal), widened to f64 exactly.
fn val(s: &str, single: bool) -> f64 {
    if single {
        s.parse::<f32>().unwrap_or_else(|_| panic!("bad value {s}")) as f64
    } else {
        s.parse::<f64>().unwrap_or_else(|_| panic!("bad value {s}"))
    }
}

/// A complex array of dtype `d` (complex64 or complex128) from (re, im) pairs.
fn array(z: &[(f64, f64)], d: DType) -> Array {
    if d == DType::C64 {
        let v: Vec<Complex<f32>> = z
            .iter()
            .map(|&(r, i)| Complex::new(r as f32, i as f32))
            .collect();
        Array::from_slice(&v, &[v.len()]).unwrap()
    } else {
        let v: Vec<Complex<f64>> = z.iter().map(|&(r, i)| Complex::new(r, i)).collect();
        Array::from_slice(&v, &[v.len()]).unwrap()
    }
}

/// The elements of a result as their parts (widened to f64; bools as 0 and 1).
fn parts_of(a: &Array) -> Vec<Vec<f64>> {
    match a.dtype() {
        DType::C64 => a
            .to_vec::<Complex<f32>>()
            .unwrap()
            .iter()
            .map(|c| vec![c.re as f64, c.im as f64])
            .collect(),
        DType::C128 => a
            .to_vec::<Complex<f64>>()
            .unwrap()
            .iter()
            .map(|c| vec![c.re, c.im])
            .collect(),
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&x| vec![x as f64])
            .collect(),
        DType::F64 => a
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|&x| vec![x])
            .collect(),
        DType::Bool => a
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&x| vec![x as u8 as f64])
            .collect(),
        other => panic!("unexpected result dtype {other}"),
    }
}

/// A unit in the last place of `x` in the part type (the smallest subnormal at least).
fn ulp(x: f64, single: bool) -> f64 {
    let x = x.abs();
    if single {
        let f = x as f32;
        (f32::from_bits(f.to_bits() + 1) - f).max(f32::from_bits(1)) as f64
    } else if x.is_finite() {
        (f64::from_bits(x.to_bits() + 1) - x).max(f64::from_bits(1))
    } else {
        f64::INFINITY
    }
}

/// Whether part `i` of `got` matches NumPy's `want` (see the module's docs), `cond` times
/// [`ULPS`] allowed for a finite part.
fn part_matches(got: &[f64], want: &[f64], i: usize, single: bool, cond: f64) -> bool {
    let (g, w) = (got[i], want[i]);
    if w.is_nan() {
        return g.is_nan();
    }
    if w.is_infinite() || w == 0.0 {
        return g.to_bits() == w.to_bits();
    }
    if !g.is_finite() {
        return false;
    }
    let scale = want
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    (g - w).abs() <= cond * ULPS * ulp(w, single).max(ulp(scale, single))
}

/// Places where cuprum keeps an accuracy that NumPy's own formula loses, so that NumPy's
/// result is off by more than [`ULPS`] (or is a zero where the true result is not):
/// - `log1p(z)`: NumPy computes `log(hypot(1 + x, y))`, which rounds `1 + x` first and
///   gives 0 (or a few ulps of garbage) for small `|z|`; cuprum computes
///   `log1p(2x + x^2 + y^2) / 2`, correct to the last bits there. Accepted when cuprum's
///   real part is within a few ulps of `x + (y^2 - x^2) / 2` (its series) and small.
/// - `power`: a zero result whose signs Annex G leaves open (`cexp(-inf + i nan)` is
///   `+-0 +- i0`, G.6.3.1), reached through a NaN that NumPy's C library makes itself
///   (`inf * 0`): the sign NumPy records is that of the CPU's default NaN (x86: negative),
///   a GPU's default NaN is positive. Accepted when both parts are zeros and the base or
///   the exponent is not finite (where `b log a` makes that NaN: `(0 + i inf) log i`).
fn accepted(
    name: &str,
    z: (f64, f64),
    input: &str,
    got: &[f64],
    want: &[f64],
    single: bool,
) -> bool {
    if name == "power" {
        let not_finite = !z.0.is_finite() || !z.1.is_finite() || input.contains("inf");
        return not_finite && got.iter().chain(want).all(|&v| v == 0.0);
    }
    if name == "log1p" {
        let (x, y) = z;
        let eps = if single {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        if x.abs() < eps && y.abs() < eps && got.len() == 2 {
            let series = x + (y * y - x * x) / 2.0;
            return (got[0] - series).abs() <= ULPS * ulp(series, single);
        }
    }
    false
}

/// How much `a ** b` = exp(b log a) magnifies rounding errors: an error of one ulp in the
/// exponent `b log a` is an error of `|b log a|` ulps in the result, and NumPy's C library
/// and cuprum round differently on the way (1 where that is below 1, or not finite).
fn power_condition(a: (f64, f64), b: (f64, f64)) -> f64 {
    let l = Complex::new(a.0, a.1).ln();
    let c = Complex::new(b.0, b.1).norm() * (l.re.abs() + l.im.abs());
    if c.is_finite() { c.max(1.0) } else { 1.0 }
}

fn show(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:e}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Compares one function's results with NumPy's, collecting the mismatches.
#[allow(clippy::too_many_arguments)]
fn compare(
    name: &str,
    d: DType,
    inputs: &[String],
    z: &[(f64, f64)],
    cond: &[f64],
    got: &[Vec<f64>],
    want: &[Vec<String>],
    bad: &mut Vec<String>,
) {
    let single = d == DType::C64;
    assert_eq!(got.len(), want.len(), "{name} {d}: element count");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let w: Vec<f64> = w.iter().map(|s| val(s, single)).collect();
        assert_eq!(g.len(), w.len(), "{name} {d}: parts of element {k}");
        let ok = (0..w.len()).all(|i| part_matches(g, &w, i, single, cond[k]));
        if !ok && !accepted(name, z[k], &inputs[k], g, &w, single) {
            bad.push(format!(
                "{name} {d} at {}: got {} want {}",
                inputs[k],
                show(g),
                show(&w)
            ));
        }
    }
}

/// Runs every function of the fixture for one dtype and returns the mismatches.
fn run_dtype(f: &Fixture, d: DType) -> Vec<String> {
    let key = if d == DType::C64 { "c64" } else { "c128" };
    let single = d == DType::C64;
    let mut bad = Vec::new();
    // The unary grid: re-major over the dtype's parts.
    let p = &f.parts[key];
    let mut zs = Vec::new();
    let mut texts = Vec::new();
    for re in p {
        for im in p {
            zs.push((val(re, single), val(im, single)));
            texts.push(format!("({re}, {im})"));
        }
    }
    let a = array(&zs, d);
    for &(name, op) in UNARY {
        let want = &f.results[&(name.to_owned(), key.to_owned())];
        let got = parts_of(&op(&a).unwrap_or_else(|e| panic!("{name} {d}: {e}")));
        compare(
            name,
            d,
            &texts,
            &zs,
            &vec![1.0; zs.len()],
            &got,
            want,
            &mut bad,
        );
    }
    // The binary grids: every a with every b.
    let bgrid: Vec<(String, String)> = f
        .bpart
        .iter()
        .flat_map(|re| f.bpart.iter().map(move |im| (re.clone(), im.clone())))
        .collect();
    let bases: Vec<(String, String)> = bgrid.iter().chain(&f.pbase).cloned().collect();
    for (name, a_list, b_list) in [
        ("multiply", &bgrid, &bgrid),
        ("divide", &bgrid, &bgrid),
        ("power", &bases, &f.exps),
    ] {
        let (mut az, mut bz, mut texts, mut cond) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (ar, ai) in a_list {
            for (br, bi) in b_list {
                let (a, b) = (
                    (val(ar, single), val(ai, single)),
                    (val(br, single), val(bi, single)),
                );
                az.push(a);
                bz.push(b);
                texts.push(format!("({ar}, {ai}) and ({br}, {bi})"));
                cond.push(if name == "power" {
                    power_condition(a, b)
                } else {
                    1.0
                });
            }
        }
        let (x, y) = (array(&az, d), array(&bz, d));
        let r = match name {
            "multiply" => ops::multiply(&x, &y),
            "divide" => ops::divide(&x, &y),
            _ => ops::power(&x, &y),
        };
        let got = parts_of(&r.unwrap_or_else(|e| panic!("{name} {d}: {e}")));
        let want = &f.results[&(name.to_owned(), key.to_owned())];
        compare(name, d, &texts, &az, &cond, &got, want, &mut bad);
    }
    bad
}

fn check(d: DType) {
    let f = fixture();
    let bad = run_dtype(&f, d);
    assert!(
        bad.is_empty(),
        "{} of NumPy's special values differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn complex64_matches_numpy_at_special_values() {
    require_gpu!();
    check(DType::C64);
}

#[test]
fn complex128_matches_numpy_at_special_values() {
    require_gpu!();
    check(DType::C128);
}

#[test]
fn the_fixture_covers_every_complex_operation() {
    let f = fixture();
    for key in ["c64", "c128"] {
        let n = f.parts[key].len();
        for &(name, _) in UNARY {
            let r = &f.results[&(name.to_owned(), key.to_owned())];
            assert_eq!(r.len(), n * n, "{name} {key}");
        }
        let nb = f.bpart.len() * f.bpart.len();
        for (name, len) in [
            ("multiply", nb * nb),
            ("divide", nb * nb),
            ("power", (nb + f.pbase.len()) * f.exps.len()),
        ] {
            assert_eq!(
                f.results[&(name.to_owned(), key.to_owned())].len(),
                len,
                "{name} {key}"
            );
        }
    }
}
