//! Integration tests of the built-in elementwise operations (`cuprum::ops`, the `Array`
//! methods and the `+ - * / %` / unary `-` operators), against NumPy 2 semantics:
//! broadcasting, type promotion (`promote_types`, NEP 50 weak Rust scalars), true division,
//! NumPy's `remainder`, exact integer powers, NaN-propagating `maximum` / `minimum`,
//! lexicographic complex comparisons, the float type NumPy picks for math functions of
//! integers, `clip`, `where_` and `astype`.
//!
//! Every GPU result is compared with a reference computed on the host from random inputs
//! made by `common::Rng` (a small host model of NumPy's arithmetic: `V` values and `cast_v`
//! for NumPy's conversions from `common::numpy_model`, `ref_bin` for the binary
//! operations). GPU tests begin with `require_gpu!()`: without a GPU they print a SKIPPED
//! line and return (`CUPRUM_REQUIRE_GPU=1` makes that a failure). The promotion tests need
//! no GPU.

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{
    HostElem, as_c, as_f64, cast_v, close_v, dev, eps, host, int_rem, magnitude, round_float,
    scalar_of, small_val, small_vals, truthy, wrap,
};
use common::views::{c_strides, unravel};
use common::{Rng, coin, expect_err};
use cuprum::kernel::IntoOperand;
use cuprum::ops::{self, can_cast_safe, promote_types, result_type_of};
use cuprum::{Array, DType, DTypeKind, ErrorKind, Scalar, s};
use half::{bf16, f16};
use num_complex::Complex;
use std::cmp::Ordering;
use std::ops::{Add, Div, Mul, Rem, Sub};

// =========================================================================================
// Checks against the host model of NumPy values (`common::numpy_model`)
// =========================================================================================

/// Asserts that `got` equals `want` for dtype `d`: exactly for bool and integers, within
/// `ulps * eps(d) * scales[i]` for floats (NaN matches NaN).
#[track_caller]
fn assert_vals(got: &[V], want: &[V], d: DType, ulps: f64, scales: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let tol = ulps * eps(d) * scales.get(i).copied().unwrap_or(1.0);
        assert!(
            close_v(g, w, tol),
            "{what}: element {i}: got {g:?}, want {w:?} (dtype {d}, tolerance {tol:e})"
        );
    }
}

/// NumPy's broadcasting of a C-ordered host array of `shape` to `out` (written
/// independently of the library: right-aligned axes, extent-1 axes repeat).
fn bcast(vals: &[V], shape: &[usize], out: &[usize]) -> Vec<V> {
    let n: usize = out.iter().product();
    let st = c_strides(shape);
    let off = out.len() - shape.len();
    (0..n)
        .map(|flat| {
            let mi = unravel(flat, out);
            let idx: usize = shape
                .iter()
                .enumerate()
                .map(|(k, &e)| if e == 1 { 0 } else { mi[off + k] * st[k] })
                .sum();
            vals[idx]
        })
        .collect()
}

// =========================================================================================
// Random inputs
// =========================================================================================

/// Second operands for `xs`: random, except that every 5th equals `xs` (when the value
/// converts to `d` exactly) and, for complex numbers, every 5th + 1 shares the real part
/// (so that every comparison outcome, lexicographic ties included, occurs).
fn rand_partners(rng: &mut Rng, xs: &[V], d: DType) -> Vec<V> {
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let r = small_val(rng, d);
            let same = cast_v(x, d);
            let exact = match (same, x) {
                (I(a), I(b)) => a == b,
                _ => as_c(same) == as_c(x),
            };
            if i % 5 == 0 && exact {
                same
            } else if i % 5 == 1 && d.is_complex() {
                let (re, _) = as_c(x);
                let (_, im) = as_c(r);
                cast_v(C(re, im), d)
            } else {
                r
            }
        })
        .collect()
}

/// Exponents for `power` with bases `bases`: integers 0..=4 for integer types (exact
/// results), non-integer floats in [-2, 2) for positive float bases and integer-valued
/// floats in -2..=3 for negative ones (no NaN), small complex exponents.
fn pow_exps(rng: &mut Rng, d: DType, bases: &[V]) -> Vec<V> {
    bases
        .iter()
        .map(|&b| {
            let v = match d.kind() {
                DTypeKind::Bool => B(coin(rng)),
                DTypeKind::SignedInt | DTypeKind::UnsignedInt => I(rng.usize(0, 5) as i128),
                DTypeKind::Float if as_f64(b) > 0.0 => F(rng.f64(-2.0, 2.0)),
                DTypeKind::Float => F(rng.usize(0, 6) as f64 - 2.0),
                DTypeKind::Record => unreachable!("the record dtype is not numeric"),
                DTypeKind::Complex => C(rng.f64(-1.0, 1.0), rng.f64(-1.0, 1.0)),
            };
            cast_v(v, d)
        })
        .collect()
}

// =========================================================================================
// Reference binary operations
// =========================================================================================

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Max,
    Min,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

const BINS: [Bin; 14] = [
    Bin::Add,
    Bin::Sub,
    Bin::Mul,
    Bin::Div,
    Bin::Rem,
    Bin::Pow,
    Bin::Max,
    Bin::Min,
    Bin::Eq,
    Bin::Ne,
    Bin::Lt,
    Bin::Le,
    Bin::Gt,
    Bin::Ge,
];

/// Some of the binary operations (arithmetic, `maximum` and two comparisons), for the
/// tests that cover their operands rather than every operation.
const SOME_BINS: [Bin; 7] = [
    Bin::Add,
    Bin::Sub,
    Bin::Mul,
    Bin::Div,
    Bin::Max,
    Bin::Lt,
    Bin::Eq,
];

impl Bin {
    fn call(self, a: impl IntoOperand, b: impl IntoOperand) -> cuprum::Result<Array> {
        match self {
            Bin::Add => ops::add(a, b),
            Bin::Sub => ops::subtract(a, b),
            Bin::Mul => ops::multiply(a, b),
            Bin::Div => ops::divide(a, b),
            Bin::Rem => ops::remainder(a, b),
            Bin::Pow => ops::power(a, b),
            Bin::Max => ops::maximum(a, b),
            Bin::Min => ops::minimum(a, b),
            Bin::Eq => ops::equal(a, b),
            Bin::Ne => ops::not_equal(a, b),
            Bin::Lt => ops::less(a, b),
            Bin::Le => ops::less_equal(a, b),
            Bin::Gt => ops::greater(a, b),
            Bin::Ge => ops::greater_equal(a, b),
        }
    }

    fn is_cmp(self) -> bool {
        matches!(
            self,
            Bin::Eq | Bin::Ne | Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge
        )
    }
}

/// (loop dtype, output dtype) of `op` on operands that promote to `c`, or `None` where the
/// operation is refused with a DType error: NumPy refuses boolean subtract and complex
/// remainder.
fn bin_types(op: Bin, c: DType) -> Option<(DType, DType)> {
    let k = c.kind();
    let int_like = matches!(
        k,
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt
    );
    match op {
        _ if op.is_cmp() => Some((c, DType::Bool)),
        Bin::Sub if k == DTypeKind::Bool => None,
        Bin::Div if int_like => Some((DType::F64, DType::F64)),
        Bin::Rem if k == DTypeKind::Complex => None,
        Bin::Rem | Bin::Pow if k == DTypeKind::Bool => Some((DType::I8, DType::I8)),
        _ => Some((c, c)),
    }
}

/// NumPy's float remainder (`fmod`, then shifted to the divisor's sign; a zero result
/// takes the divisor's sign).
fn float_rem(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
        r + y
    } else if r == 0.0 {
        0f64.copysign(y)
    } else {
        r
    }
}

/// Integer power with wraparound in `t`. Negative exponents follow cuprum's documented
/// rule (NumPy raises): 1 and -1 keep their powers, every other base gives 0.
fn int_pow(b: i128, e: i128, t: DType) -> i128 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 if e % 2 != 0 => -1,
            -1 => 1,
            _ => 0,
        };
    }
    let mut r = 1i128;
    for _ in 0..e {
        r = wrap(r * b, t);
    }
    r
}

/// NumPy's complex power: `x ** 0 == 1`, `0 ** y` is 0 for a positive real `y` and NaN
/// otherwise.
fn complex_pow(x: Complex<f64>, y: Complex<f64>) -> Complex<f64> {
    if y == Complex::new(0.0, 0.0) {
        Complex::new(1.0, 0.0)
    } else if x == Complex::new(0.0, 0.0) {
        if y.im == 0.0 && y.re > 0.0 {
            Complex::new(0.0, 0.0)
        } else {
            Complex::new(f64::NAN, f64::NAN)
        }
    } else {
        x.powc(y)
    }
}

/// Ordering of two values of one kind (complex numbers lexicographically, as NumPy).
fn order(x: V, y: V) -> Option<Ordering> {
    match (x, y) {
        (B(p), B(q)) => Some(p.cmp(&q)),
        (I(p), I(q)) => Some(p.cmp(&q)),
        (F(p), F(q)) => p.partial_cmp(&q),
        (C(a, b), C(c, d)) => match a.partial_cmp(&c)? {
            Ordering::Equal => b.partial_cmp(&d),
            o => Some(o),
        },
        _ => unreachable!("{x:?} vs {y:?}"),
    }
}

/// `op` on `x` and `y` computed in loop dtype `t` (both converted to `t` first).
fn ref_bin(op: Bin, x: V, y: V, t: DType) -> V {
    let (x, y) = (cast_v(x, t), cast_v(y, t));
    if op.is_cmp() {
        let o = order(x, y);
        return B(match op {
            Bin::Eq => o == Some(Ordering::Equal),
            Bin::Ne => o != Some(Ordering::Equal),
            Bin::Lt => o == Some(Ordering::Less),
            Bin::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
            Bin::Gt => o == Some(Ordering::Greater),
            _ => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        });
    }
    match (x, y) {
        (B(p), B(q)) => B(match op {
            Bin::Add | Bin::Max => p || q,
            Bin::Mul | Bin::Min => p && q,
            _ => unreachable!("{op:?} on bools"),
        }),
        (I(p), I(q)) => I(wrap(
            match op {
                Bin::Add => p + q,
                Bin::Sub => p - q,
                Bin::Mul => p * q,
                Bin::Rem => int_rem(p, q),
                Bin::Pow => int_pow(p, q, t),
                Bin::Max => p.max(q),
                Bin::Min => p.min(q),
                _ => unreachable!("{op:?} on integers"),
            },
            t,
        )),
        (F(p), F(q)) => F(round_float(
            match op {
                Bin::Add => p + q,
                Bin::Sub => p - q,
                Bin::Mul => p * q,
                Bin::Div => p / q,
                Bin::Rem => float_rem(p, q),
                Bin::Pow => p.powf(q),
                Bin::Max if p.is_nan() || q.is_nan() => f64::NAN,
                Bin::Min if p.is_nan() || q.is_nan() => f64::NAN,
                Bin::Max => p.max(q),
                Bin::Min => p.min(q),
                _ => unreachable!(),
            },
            t,
        )),
        (C(a, b), C(c, d)) if matches!(op, Bin::Max | Bin::Min) => {
            // NumPy's CGE / CLE: x when either of its parts is NaN or it orders at or past
            // y (lexicographically; a NaN in an imaginary part stops a real-part win).
            let greater = op == Bin::Max;
            let past = if greater { a > c } else { a < c };
            let tie = if greater { b >= d } else { b <= d };
            let wins = (past && !b.is_nan() && !d.is_nan()) || (a == c && tie);
            if a.is_nan() || b.is_nan() || wins {
                C(a, b)
            } else {
                C(c, d)
            }
        }
        (C(a, b), C(c, d)) => {
            let (p, q) = (Complex::new(a, b), Complex::new(c, d));
            let z = match op {
                Bin::Add => p + q,
                Bin::Sub => p - q,
                Bin::Mul => p * q,
                // NumPy divides each part by +0 for a zero divisor (inf or nan per part).
                Bin::Div if c == 0.0 && d == 0.0 => Complex::new(a / 0.0, b / 0.0),
                Bin::Div => p / q,
                Bin::Pow => complex_pow(p, q),
                _ => unreachable!("{op:?} on complex numbers"),
            };
            C(round_float(z.re, t), round_float(z.im, t))
        }
        _ => unreachable!(),
    }
}

/// The magnitude a float result's error is relative to (intermediate values of complex
/// arithmetic can be much larger than the result).
fn error_scale(op: Bin, x: V, y: V, w: V) -> f64 {
    let (ax, ay, aw) = (magnitude(x), magnitude(y), magnitude(w));
    let s = match op {
        Bin::Add | Bin::Sub | Bin::Rem => ax + ay,
        Bin::Mul => ax * ay,
        Bin::Div => ax / ay,
        Bin::Pow => aw * (1.0 + ay * (ax.ln().abs() + std::f64::consts::PI)),
        _ => aw,
    };
    s.max(aw).max(f64::MIN_POSITIVE)
}

/// Checks the result of binary operation `op` on operands whose values (broadcast to the
/// result's shape) are `xs` and `ys` and whose promoted dtype is `c`.
#[track_caller]
fn check_op(
    op: Bin,
    got: cuprum::Result<Array>,
    (xs, ys): (&[V], &[V]),
    c: DType,
    shape: &[usize],
    what: &str,
) {
    let Some((t, out)) = bin_types(op, c) else {
        expect_err(got, ErrorKind::DType);
        return;
    };
    let r = got.unwrap_or_else(|e| panic!("{what}: {op:?} failed: {e}"));
    assert_eq!(r.dtype(), out, "{what}: {op:?}: result dtype");
    assert_eq!(r.shape(), shape, "{what}: {op:?}: result shape");
    let want: Vec<V> = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| ref_bin(op, x, y, t))
        .collect();
    let scales: Vec<f64> = xs
        .iter()
        .zip(ys)
        .zip(&want)
        .map(|((&x, &y), &w)| error_scale(op, x, y, w))
        .collect();
    let ulps = match (op, out.is_complex()) {
        (Bin::Pow, true) => 16.0,
        (Bin::Pow, false) | (_, true) => 4.0,
        _ => 2.0,
    };
    assert_vals(
        &host(&r),
        &want,
        out,
        ulps,
        &scales,
        &format!("{what}: {op:?}"),
    );
}

/// The second operand of `op` for first operands `xs`: exponents for `power`, partners
/// (with ties) otherwise.
fn second_operand(rng: &mut Rng, op: Bin, xs: &[V], d: DType) -> Vec<V> {
    if op == Bin::Pow {
        pow_exps(rng, d, xs)
    } else {
        rand_partners(rng, xs, d)
    }
}

// =========================================================================================
// 1. Promotion (no GPU)
// =========================================================================================

/// The 14 NumPy dtypes in NumPy's type-character order `?bhiqBHIQefdFD`.
const NUMPY: [DType; 14] = [
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
    DType::F32,
    DType::F64,
    DType::C64,
    DType::C128,
];

fn from_char(c: char) -> DType {
    *DType::ALL
        .iter()
        .find(|d| d.char() == c)
        .unwrap_or_else(|| panic!("no dtype '{c}'"))
}

#[test]
fn promote_types_matches_numpy_for_every_pair() {
    // Row r, column k: numpy.promote_types(NUMPY[r], NUMPY[k]).char, as NumPy 2 prints it
    // ('l', the C long, is int64 on Linux and written 'q' here).
    let table = [
        "?bhiqBHIQefdFD", // bool
        "bbhiqhiqdefdFD", // int8
        "hhhiqhiqdffdFD", // int16
        "iiiiqiiqddddDD", // int32
        "qqqqqqqqddddDD", // int64
        "BhhiqBHIQefdFD", // uint8
        "HiiiqHHIQffdFD", // uint16
        "IqqqqIIIQdddDD", // uint32
        "QddddQQQQdddDD", // uint64
        "eefddefddefdFD", // float16
        "fffddffddffdFD", // float32
        "ddddddddddddDD", // float64
        "FFFDDFFDDFFDFD", // complex64
        "DDDDDDDDDDDDDD", // complex128
    ];
    for (r, row) in table.iter().enumerate() {
        for (k, ch) in row.chars().enumerate() {
            let (a, b, want) = (NUMPY[r], NUMPY[k], from_char(ch));
            assert_eq!(promote_types(a, b), want, "promote_types({a}, {b})");
        }
    }
    // The cases most often gotten wrong, spelled out.
    use DType::*;
    for (a, b, want) in [
        (I64, U64, F64),
        (I8, U8, I16),
        (I16, F16, F32),
        (U64, I8, F64),
        (C64, F64, C128),
        (C64, I32, C128),
        (U32, I8, I64),
        (I32, F32, F64),
        (U16, F16, F32),
        (Bool, Bool, Bool),
    ] {
        assert_eq!(promote_types(a, b), want, "promote_types({a}, {b})");
        assert_eq!(promote_types(b, a), want, "promote_types({b}, {a})");
    }
}

#[test]
fn promote_types_is_symmetric_and_idempotent_with_bfloat16_like_ml_dtypes() {
    for &a in DType::ALL {
        assert_eq!(promote_types(a, a), a, "promote_types({a}, {a})");
        assert_eq!(promote_types(DType::Bool, a), a, "bool with {a}");
        for &b in DType::ALL {
            let p = promote_types(a, b);
            assert_eq!(p, promote_types(b, a), "promote_types({a}, {b}) symmetric");
            // The result is one both cast to safely, and no smaller kind than either.
            assert!(
                can_cast_safe(a, p) && can_cast_safe(b, p),
                "{a}, {b} -> {p}"
            );
            assert!(p.kind() >= a.kind().min(b.kind()), "{a}, {b} -> {p}");
        }
    }
    use DType::*;
    for (a, b, want) in [
        (BF16, F16, F32),
        (BF16, F32, F32),
        (BF16, F64, F64),
        (BF16, U8, BF16),
        (BF16, I8, BF16),
        (BF16, C64, C64),
        (BF16, Bool, BF16),
    ] {
        assert_eq!(promote_types(a, b), want, "promote_types({a}, {b})");
    }
}

#[test]
fn can_cast_safe_agrees_with_promotion_on_numpy_dtypes() {
    // For NumPy's own dtypes, `can_cast(a, b, "safe")` holds exactly when a and b
    // promote to b.
    for a in NUMPY {
        for b in NUMPY {
            assert_eq!(
                can_cast_safe(a, b),
                promote_types(a, b) == b,
                "can_cast_safe({a}, {b})"
            );
        }
    }
    assert!(can_cast_safe(DType::I64, DType::F64));
    assert!(can_cast_safe(DType::U64, DType::F64));
    assert!(!can_cast_safe(DType::I32, DType::F32));
    assert!(!can_cast_safe(DType::U64, DType::I64));
    assert!(!can_cast_safe(DType::F64, DType::C64));
    assert!(!can_cast_safe(DType::C64, DType::F64));
    assert!(!can_cast_safe(DType::F16, DType::BF16));
    assert!(!can_cast_safe(DType::BF16, DType::F16));
}

#[test]
fn result_type_of_treats_rust_scalars_as_weak() {
    use DType::*;
    let cases: &[(&[DType], &[DType], DType)] = &[
        // Same or lower kind: the arrays' dtype wins.
        (&[U8], &[I32], U8),
        (&[U8], &[I64], U8),
        (&[U64], &[I8], U64),
        (&[I16], &[U8], I16),
        (&[F32], &[F64], F32),
        (&[F16], &[F64], F16),
        (&[BF16], &[F32], BF16),
        (&[F16], &[I64], F16),
        (&[C64], &[F64], C64),
        (&[C64], &[C128], C64),
        (&[C64], &[I64], C64),
        (&[I32], &[Bool], I32),
        (&[Bool], &[Bool], Bool),
        // A higher kind promotes to its default type (int64, float64, complex128) ...
        (&[Bool], &[I32], I64),
        (&[Bool], &[U8], I64),
        (&[Bool], &[F32], F64),
        (&[Bool], &[C64], C128),
        (&[I8], &[F32], F64),
        (&[I32], &[F64], F64),
        (&[U64], &[F16], F64),
        (&[I32], &[C64], C128),
        // ... except that a complex scalar keeps a float array's precision.
        (&[F16], &[C128], C64),
        (&[BF16], &[C128], C64),
        (&[F32], &[C128], C64),
        (&[F64], &[C64], C128),
        // Several arrays promote strongly first.
        (&[I8, U8], &[F64], F64),
        (&[I8, U8], &[I64], I16),
        (&[I8, F32], &[I64], F32),
        (&[F16, F32], &[C64], C64),
        (&[U8, U8], &[Bool, I32], U8),
    ];
    for &(arrays, scalars, want) in cases {
        assert_eq!(
            result_type_of(arrays, scalars).unwrap(),
            want,
            "result_type_of({arrays:?}, {scalars:?})"
        );
    }
    let e = expect_err(result_type_of(&[], &[F32]), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("Array"), "{e}");
}

#[test]
fn an_operation_on_scalars_only_is_invalid() {
    // Decided before any GPU work: runs everywhere.
    expect_err(ops::add(1i32, 2i32), ErrorKind::InvalidArgument);
    expect_err(ops::maximum(1.0f32, 2.0f32), ErrorKind::InvalidArgument);
    expect_err(ops::less(1u8, 2u8), ErrorKind::InvalidArgument);
    expect_err(ops::clip(1.0f64, 0.0, 2.0), ErrorKind::InvalidArgument);
}

// =========================================================================================
// 2. Binary operations for every dtype
// =========================================================================================

#[test]
fn binary_ops_between_arrays_of_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(11);
    let n = 37;
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        let xs = small_vals(&mut rng, d, n);
        let a = dev(&xs, &[n], d);
        for (j, op) in BINS.into_iter().enumerate() {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let ys = second_operand(&mut rng, op, &xs, d);
            let b = dev(&ys, &[n], d);
            let what = format!("{d} array {op:?} {d} array");
            check_op(op, op.call(&a, &b), (&xs, &ys), d, &[n], &what);
        }
    }
}

/// The scalar used with arrays of `d`: the same dtype (weak, so the result keeps `d`).
fn scalar_value(d: DType) -> V {
    cast_v(
        match d.kind() {
            DTypeKind::Bool => B(true),
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => I(3),
            DTypeKind::Float => F(2.5),
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => C(1.5, -0.5),
        },
        d,
    )
}

#[test]
fn binary_ops_with_a_scalar_on_either_side_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(12);
    let n = 29;
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        let xs = small_vals(&mut rng, d, n);
        let a = dev(&xs, &[n], d);
        let sv = scalar_value(d);
        let svs = vec![sv; n];
        let sc = scalar_of(sv, d);
        for (j, op) in BINS.into_iter().enumerate() {
            if !common::sweep_cell(i, j) {
                continue;
            }
            if op == Bin::Pow {
                // array ** 2 and 2 ** array (exponents chosen for a positive base).
                let two = cast_v(if d.is_complex() { C(2.0, 0.0) } else { I(2) }, d);
                let twos = vec![two; n];
                let what = format!("{d} array ** scalar");
                let r = op.call(&a, scalar_of(two, d));
                check_op(op, r, (&xs, &twos), d, &[n], &what);
                let exps = pow_exps(&mut rng, d, &twos);
                let e = dev(&exps, &[n], d);
                let what = format!("{d} scalar ** array");
                let r = op.call(scalar_of(two, d), &e);
                check_op(op, r, (&twos, &exps), d, &[n], &what);
                continue;
            }
            let what = format!("{d} array {op:?} {d} scalar");
            check_op(op, op.call(&a, sc), (&xs, &svs), d, &[n], &what);
            let what = format!("{d} scalar {op:?} {d} array");
            check_op(op, op.call(sc, &a), (&svs, &xs), d, &[n], &what);
        }
    }
}

/// NEP 50 for Rust scalars: a scalar of the same or a lower kind than the array takes the
/// array's dtype; a higher kind promotes (int → int64, float → float64, complex →
/// complex128, or complex64 for float16 / bfloat16 / float32 arrays). Written as a table
/// of kinds, independently of the library.
fn weak_result(d: DType, s: DTypeKind) -> DType {
    fn rank(k: DTypeKind) -> u8 {
        match k {
            DTypeKind::Bool => 0,
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => 1,
            DTypeKind::Float => 2,
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => 3,
        }
    }
    if rank(s) <= rank(d.kind()) {
        return d;
    }
    match s {
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => DType::I64,
        DTypeKind::Float => DType::F64,
        _ if matches!(d, DType::F16 | DType::BF16 | DType::F32) => DType::C64,
        _ => DType::C128,
    }
}

#[test]
fn weak_scalars_of_every_kind_with_arrays_of_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(13);
    let n = 19;
    let scalars = [
        (Scalar::from(true), B(true)),
        (Scalar::from(3i32), I(3)),
        (Scalar::from(2u8), I(2)),
        (Scalar::from(-2i64), I(-2)),
        (Scalar::from(2.5f64), F(2.5)),
        (Scalar::from(0.75f32), F(0.75)),
        (Scalar::from(Complex::new(1.5f64, -0.5)), C(1.5, -0.5)),
    ];
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        let xs = small_vals(&mut rng, d, n);
        let a = dev(&xs, &[n], d);
        for (k, &(sc, sv)) in scalars.iter().enumerate() {
            let c = weak_result(d, sc.dtype().kind());
            if d.kind() == DTypeKind::UnsignedInt && as_f64(sv) < 0.0 && c == d {
                // -2 does not fit an unsigned array's dtype: an error, as in NumPy 2.
                let e = expect_err(ops::add(&a, sc), ErrorKind::DType);
                assert!(e.to_string().contains("-2"), "{e}");
                continue;
            }
            let svs = vec![sv; n];
            for (j, op) in SOME_BINS.into_iter().enumerate() {
                if !common::sweep_cell(i * scalars.len() + k, j) {
                    continue;
                }
                let what = format!("{d} array {op:?} {} scalar", sc.dtype());
                check_op(op, op.call(&a, sc), (&xs, &svs), c, &[n], &what);
                let what = format!("{} scalar {op:?} {d} array", sc.dtype());
                check_op(op, op.call(sc, &a), (&svs, &xs), c, &[n], &what);
            }
        }
    }
}

#[test]
fn weak_scalar_examples_from_numpy() {
    require_gpu!();
    // int32 array * 0.5 -> float64.
    let a = Array::from_slice(&[3i32, -4, 7], &[3]).unwrap();
    let r = (&a * 0.5f64).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![1.5, -2.0, 3.5]);
    let r = (0.5f32 * &a).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    // bool array + 1 -> int64.
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    let r = (&b + 1i32).unwrap();
    assert_eq!(r.dtype(), DType::I64);
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![2, 1]);
    // bool array + true stays bool (logical or).
    let r = (&b + true).unwrap();
    assert_eq!(r.dtype(), DType::Bool);
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, true]);
    // float32 array + complex scalar -> complex64.
    let f = Array::from_slice(&[1.0f32, -2.0], &[2]).unwrap();
    let r = (&f + Complex::new(0.0f64, 1.0)).unwrap();
    assert_eq!(r.dtype(), DType::C64);
    assert_eq!(
        r.to_vec::<Complex<f32>>().unwrap(),
        vec![Complex::new(1.0, 1.0), Complex::new(-2.0, 1.0)]
    );
    // float32 stays float32 with float64 and integer scalars.
    let r = (2.0f32 * &f).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (DType::F32, vec![2.0, -4.0])
    );
    let r = (&f * 2.0f64).unwrap();
    assert_eq!(r.dtype(), DType::F32);
    let r = (&f + 1i64).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (DType::F32, vec![2.0, -1.0])
    );
    // float16 with a float64 scalar stays float16.
    let h = Array::from_slice(&[f16::from_f32(1.5)], &[1]).unwrap();
    let r = (&h * 2.0f64).unwrap();
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(r.to_vec::<f16>().unwrap(), vec![f16::from_f32(3.0)]);
    // float16 + a float too large for it overflows to inf (NumPy 2 does the same).
    let r = (&h + 1e6f64).unwrap();
    assert_eq!(r.to_vec::<f16>().unwrap(), vec![f16::INFINITY]);
    // uint8 array + 255 fits (and wraps); int8 array * 1.5 -> float64.
    let u = Array::from_slice(&[1u8, 2], &[2]).unwrap();
    let r = (&u + 255i32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<u8>().unwrap()),
        (DType::U8, vec![0, 1])
    );
    let i8a = Array::from_slice(&[1i8, -2], &[2]).unwrap();
    let r = (&i8a * 1.5f32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![1.5, -3.0])
    );
    // float64 + complex64 scalar -> complex128; uint64 + int8 scalar stays uint64.
    let d = Array::from_slice(&[0.1f64], &[1]).unwrap();
    let r = (&d + Complex::new(1.0f32, 2.0)).unwrap();
    assert_eq!(r.dtype(), DType::C128);
    assert_eq!(
        r.to_vec::<Complex<f64>>().unwrap(),
        vec![Complex::new(1.1, 2.0)]
    );
    let q = Array::from_slice(&[u64::MAX - 1], &[1]).unwrap();
    let r = (&q + 1i8).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<u64>().unwrap()),
        (DType::U64, vec![u64::MAX])
    );
    // int16 array < 2.5 compares as float64.
    let s16 = Array::from_slice(&[1i16, 2, 3], &[3]).unwrap();
    let r = ops::less(&s16, 2.5f64).unwrap();
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, true, false]);
    // int32 + true stays int32.
    let r = (&a + true).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i32>().unwrap()),
        (DType::I32, vec![4, -3, 8])
    );
}

#[test]
fn mixed_dtype_arrays_promote_like_numpy() {
    require_gpu!();
    use DType::*;
    let mut rng = Rng::new(14);
    let n = 31;
    let pairs = [
        (I8, U8, I16),
        (U8, I8, I16),
        (I64, U64, F64),
        (U64, I8, F64),
        (I32, F32, F64),
        (F16, F32, F32),
        (I16, F16, F32),
        (C64, F64, C128),
        (C64, I32, C128),
        (Bool, I8, I8),
        (U16, I16, I32),
        (U32, I32, I64),
        (F32, C128, C128),
        (Bool, F16, F16),
        (BF16, F16, F32),
        (U8, BF16, BF16),
        (I64, F16, F64),
    ];
    for (i, (da, db, want)) in pairs.into_iter().enumerate() {
        assert_eq!(promote_types(da, db), want, "promote_types({da}, {db})");
        let xs = small_vals(&mut rng, da, n);
        let a = dev(&xs, &[n], da);
        for (j, op) in BINS.into_iter().enumerate() {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let ys = second_operand(&mut rng, op, &xs, db);
            let b = dev(&ys, &[n], db);
            let what = format!("{da} array {op:?} {db} array");
            check_op(op, op.call(&a, &b), (&xs, &ys), want, &[n], &what);
        }
    }
}

#[test]
fn array_methods_match_the_ops_functions() {
    require_gpu!();
    let mut rng = Rng::new(15);
    let n = 23;
    let xs = small_vals(&mut rng, DType::F32, n);
    let ys = rand_partners(&mut rng, &xs, DType::F32);
    let (a, b) = (dev(&xs, &[n], DType::F32), dev(&ys, &[n], DType::F32));
    let pairs: [(cuprum::Result<Array>, Bin); 9] = [
        (a.pow(&b), Bin::Pow),
        (a.maximum(&b), Bin::Max),
        (a.minimum(&b), Bin::Min),
        (a.equal(&b), Bin::Eq),
        (a.not_equal(&b), Bin::Ne),
        (a.less(&b), Bin::Lt),
        (a.less_equal(&b), Bin::Le),
        (a.greater(&b), Bin::Gt),
        (a.greater_equal(&b), Bin::Ge),
    ];
    for (got, op) in pairs {
        let got = got.unwrap();
        let want = op.call(&a, &b).unwrap();
        assert_eq!(got.dtype(), want.dtype(), "{op:?}");
        let what = format!("{op:?} method");
        assert_vals(&host(&got), &host(&want), got.dtype(), 0.0, &[], &what);
    }
    let r = a.maximum(0.0f64).unwrap();
    let want: Vec<V> = xs.iter().map(|&x| F(as_f64(x).max(0.0))).collect();
    assert_eq!(host(&r), want);
}

// -----------------------------------------------------------------------------------------
// Operators with arrays or Rust scalars on either side, for every Rust element type
// -----------------------------------------------------------------------------------------

/// `-x` in dtype `d` (None for bool: NumPy refuses boolean negative).
fn ref_neg(x: V, d: DType) -> Option<V> {
    match x {
        B(_) => None,
        I(i) => Some(I(wrap(-i, d))),
        F(f) => Some(F(-f)),
        C(re, im) => Some(C(-re, -im)),
    }
}

/// Checks the operators for `T` where dtype sweeps run `T::DTYPE` ([`common::dtypes`]),
/// returning it; `None` where the sweep leaves it out.
fn check_operators<T>(rng: &mut Rng) -> Option<DType>
where
    T: HostElem + IntoOperand,
    T: for<'x> Add<&'x Array, Output = cuprum::Result<Array>>
        + for<'x> Sub<&'x Array, Output = cuprum::Result<Array>>
        + for<'x> Mul<&'x Array, Output = cuprum::Result<Array>>
        + for<'x> Div<&'x Array, Output = cuprum::Result<Array>>
        + for<'x> Rem<&'x Array, Output = cuprum::Result<Array>>
        + Add<Array, Output = cuprum::Result<Array>>
        + Sub<Array, Output = cuprum::Result<Array>>
        + Mul<Array, Output = cuprum::Result<Array>>
        + Div<Array, Output = cuprum::Result<Array>>
        + Rem<Array, Output = cuprum::Result<Array>>,
{
    let d = T::DTYPE;
    if !common::sweeps_dtype(d) {
        return None;
    }
    let n = 17;
    let xs = small_vals(rng, d, n);
    let ys = rand_partners(rng, &xs, d);
    let (a, b) = (dev(&xs, &[n], d), dev(&ys, &[n], d));
    let sv = scalar_value(d);
    let svs = vec![sv; n];
    let s = T::from_v(sv);
    let sh = [n];
    macro_rules! all_forms {
        ($op:tt, $bin:expr) => {{
            let what = format!("{d} operator {}", stringify!($op));
            check_op($bin, &a $op &b, (&xs, &ys), d, &sh, &what);
            check_op($bin, &a $op b.clone(), (&xs, &ys), d, &sh, &what);
            check_op($bin, a.clone() $op &b, (&xs, &ys), d, &sh, &what);
            check_op($bin, a.clone() $op b.clone(), (&xs, &ys), d, &sh, &what);
            check_op($bin, &a $op s, (&xs, &svs), d, &sh, &what);
            check_op($bin, a.clone() $op s, (&xs, &svs), d, &sh, &what);
            check_op($bin, s $op &a, (&svs, &xs), d, &sh, &what);
            check_op($bin, s $op a.clone(), (&svs, &xs), d, &sh, &what);
        }};
    }
    all_forms!(+, Bin::Add);
    all_forms!(-, Bin::Sub);
    all_forms!(*, Bin::Mul);
    all_forms!(/, Bin::Div);
    all_forms!(%, Bin::Rem);
    // Unary minus, borrowed and owned.
    for got in [-&a, -a.clone()] {
        let want: Option<Vec<V>> = xs.iter().map(|&x| ref_neg(x, d)).collect();
        match want {
            None => {
                expect_err(got, ErrorKind::DType);
            }
            Some(want) => {
                let r = got.unwrap();
                assert_eq!(r.dtype(), d);
                assert_vals(&host(&r), &want, d, 0.0, &[], &format!("-{d} array"));
            }
        }
    }
    Some(d)
}

#[test]
fn operators_with_arrays_and_rust_scalars_on_either_side() {
    require_gpu!();
    let mut rng = Rng::new(16);
    let covered = [
        check_operators::<bool>(&mut rng),
        check_operators::<i8>(&mut rng),
        check_operators::<i16>(&mut rng),
        check_operators::<i32>(&mut rng),
        check_operators::<i64>(&mut rng),
        check_operators::<u8>(&mut rng),
        check_operators::<u16>(&mut rng),
        check_operators::<u32>(&mut rng),
        check_operators::<u64>(&mut rng),
        check_operators::<f16>(&mut rng),
        check_operators::<bf16>(&mut rng),
        check_operators::<f32>(&mut rng),
        check_operators::<f64>(&mut rng),
        check_operators::<Complex<f32>>(&mut rng),
        check_operators::<Complex<f64>>(&mut rng),
    ];
    // Every dtype is listed (and each one the sweep takes ran).
    let covered: Vec<DType> = covered.into_iter().flatten().collect();
    assert_eq!(covered, common::dtypes(DType::ALL));
}

#[test]
fn operators_chain_and_mix_dtypes() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let b = (&(&a * 2.0f32).unwrap() + &a).unwrap();
    let c = (1.0f32 - &b).unwrap();
    let d = (-&c).unwrap();
    assert_eq!(d.to_vec::<f32>().unwrap(), vec![2.0, 5.0]);
    let i = Array::from_slice(&[-3i8, 4], &[2]).unwrap();
    let u = Array::from_slice(&[200u8, 7], &[2]).unwrap();
    let r = (&i + &u).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i16>().unwrap()),
        (DType::I16, vec![197, 11])
    );
    let r = (&i / &u).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![-3.0 / 200.0, 4.0 / 7.0]);
    let r = (i.clone() % u.clone()).unwrap();
    assert_eq!(r.to_vec::<i16>().unwrap(), vec![197, 4]);
    // Integer true division by zero gives inf / nan, like NumPy.
    let x = Array::from_slice(&[1i32, -1, 0], &[3]).unwrap();
    let z = Array::zeros(&[3], DType::I32).unwrap();
    let r = (&x / &z).unwrap().to_vec::<f64>().unwrap();
    assert_eq!((r[0], r[1]), (f64::INFINITY, f64::NEG_INFINITY));
    assert!(r[2].is_nan());
}

// =========================================================================================
// 3. Broadcasting and views
// =========================================================================================

#[test]
fn broadcasting_4x1x3_with_5x3() {
    require_gpu!();
    let mut rng = Rng::new(21);
    for d in [DType::F64, DType::I32, DType::C64] {
        let xs = small_vals(&mut rng, d, 12);
        let a = dev(&xs, &[4, 1, 3], d);
        let out = [4usize, 5, 3];
        let xb = bcast(&xs, &[4, 1, 3], &out);
        for op in BINS {
            let ys = if op == Bin::Pow {
                // Integer-valued exponents: the bases may be negative.
                pow_exps(&mut rng, d, &[cast_v(I(-1), d); 15])
            } else {
                small_vals(&mut rng, d, 15)
            };
            let b = dev(&ys, &[5, 3], d);
            let yb = bcast(&ys, &[5, 3], &out);
            let what = format!("{d} (4,1,3) {op:?} (5,3)");
            check_op(op, op.call(&a, &b), (&xb, &yb), d, &out, &what);
            // And the other way round.
            let what = format!("{d} (5,3) {op:?} (4,1,3)");
            if op != Bin::Pow {
                check_op(op, op.call(&b, &a), (&yb, &xb), d, &out, &what);
            }
        }
    }
    // Both operands broadcast: (3,1) + (1,4) -> (3,4), and (4,) with (3,1).
    let xs: Vec<V> = (0..3).map(|i| F(f64::from(i) * 10.0)).collect();
    let ys: Vec<V> = (0..4).map(|i| F(f64::from(i))).collect();
    let a = dev(&xs, &[3, 1], DType::F32);
    let b = dev(&ys, &[1, 4], DType::F32);
    let r = (&a + &b).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    let want: Vec<f32> = (0..12).map(|k| ((k / 4) * 10 + k % 4) as f32).collect();
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    let b4 = dev(&ys, &[4], DType::F32);
    let r = ops::less(&b4, &a).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    let want: Vec<bool> = (0..12).map(|k| (k % 4) < (k / 4) * 10).collect();
    assert_eq!(r.to_vec::<bool>().unwrap(), want);
}

#[test]
fn transposed_and_stepped_views_as_operands() {
    require_gpu!();
    let mut rng = Rng::new(22);
    let d = DType::F32;
    // A transposed (3,4) array against a contiguous (4,3) one.
    let xs = small_vals(&mut rng, d, 12);
    let a = dev(&xs, &[3, 4], d);
    let at = a.t();
    assert!(!at.is_c_contiguous());
    let xt: Vec<V> = (0..12).map(|k| xs[(k % 3) * 4 + k / 3]).collect();
    let ys = rand_partners(&mut rng, &xt, d);
    let b = dev(&ys, &[4, 3], d);
    for op in SOME_BINS {
        let what = format!("transposed {op:?} contiguous");
        check_op(op, op.call(&at, &b), (&xt, &ys), d, &[4, 3], &what);
        let what = format!("contiguous {op:?} transposed");
        check_op(op, op.call(&b, &at), (&ys, &xt), d, &[4, 3], &what);
        let what = format!("transposed {op:?} transposed");
        check_op(op, op.call(&at, &at), (&xt, &xt), d, &[4, 3], &what);
    }
    // Stepped and reversed slices of a 1-d array.
    let d = DType::I32;
    let xs = small_vals(&mut rng, d, 10);
    let a = dev(&xs, &[10], d);
    let even = a.slice(&s![..;2]).unwrap();
    let odd = a.slice(&s![1..;2]).unwrap();
    let rev = a.slice(&s![..;-1]).unwrap();
    let xe: Vec<V> = xs.iter().step_by(2).copied().collect();
    let xo: Vec<V> = xs.iter().skip(1).step_by(2).copied().collect();
    let xr: Vec<V> = xs.iter().rev().copied().collect();
    for op in [Bin::Add, Bin::Sub, Bin::Mul, Bin::Rem, Bin::Max, Bin::Ge] {
        check_op(op, op.call(&even, &odd), (&xe, &xo), d, &[5], "even/odd");
        check_op(op, op.call(&rev, &a), (&xr, &xs), d, &[10], "reversed");
        let fives = vec![I(5); 5];
        check_op(
            op,
            op.call(&odd, 5i32),
            (&xo, &fives),
            d,
            &[5],
            "odd/scalar",
        );
    }
    // A 2-d slice with a step and a reversed axis, broadcast against a row.
    let d = DType::F64;
    let xs = small_vals(&mut rng, d, 24);
    let m = dev(&xs, &[4, 6], d);
    let v = m.slice(&s![1..;2, ..;-1]).unwrap();
    assert_eq!(v.shape(), &[2, 6]);
    let xv: Vec<V> = (0..12)
        .map(|k| xs[(1 + 2 * (k / 6)) * 6 + (5 - k % 6)])
        .collect();
    let ys = small_vals(&mut rng, d, 6);
    let row = dev(&ys, &[6], d);
    let yb = bcast(&ys, &[6], &[2, 6]);
    for op in [Bin::Add, Bin::Mul, Bin::Div, Bin::Min, Bin::Gt] {
        check_op(op, op.call(&v, &row), (&xv, &yb), d, &[2, 6], "2-d slice");
    }
}

#[test]
fn zero_dimensional_operands() {
    require_gpu!();
    let s = Array::scalar(2.5f32).unwrap();
    let m = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let r = (&s * &m).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        vec![2.5, 5.0, 7.5, 10.0, 12.5, 15.0]
    );
    let r = (&m - &s).unwrap();
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        vec![-1.5, -0.5, 0.5, 1.5, 2.5, 3.5]
    );
    // 0-d with 0-d stays 0-d; with a scalar too.
    let t = Array::scalar(4.0f32).unwrap();
    let r = (&s + &t).unwrap();
    assert_eq!((r.ndim(), r.to_vec::<f32>().unwrap()), (0, vec![6.5]));
    let r = ops::maximum(&s, 3.0f64).unwrap();
    assert_eq!((r.ndim(), r.to_vec::<f32>().unwrap()), (0, vec![3.0]));
    let r = ops::less(&s, &t).unwrap();
    assert_eq!((r.ndim(), r.to_vec::<bool>().unwrap()), (0, vec![true]));
    let r = (-&s).unwrap();
    assert_eq!((r.ndim(), r.to_vec::<f32>().unwrap()), (0, vec![-2.5]));
    // A 0-d array of another dtype promotes like an array (strong), unlike a Rust scalar.
    let i = Array::scalar(2i64).unwrap();
    let u = Array::from_slice(&[1u8, 2], &[2]).unwrap();
    let r = (&u * &i).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i64>().unwrap()),
        (DType::I64, vec![2, 4])
    );
    let r = (&u * 2i64).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<u8>().unwrap()),
        (DType::U8, vec![2, 4])
    );
}

#[test]
fn empty_arrays() {
    require_gpu!();
    let e = Array::from_slice::<f32>(&[], &[0, 3]).unwrap();
    let row = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let r = (&e + &row).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[0usize, 3][..], DType::F32));
    assert!(r.to_vec::<f32>().unwrap().is_empty());
    let r = ops::less(&row, &e).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[0usize, 3][..], DType::Bool));
    let r = (2.0f32 * &e).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
    let r = ops::sqrt(&e).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
    let r = e.astype(DType::I16).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[0usize, 3][..], DType::I16));
    let r = ops::where_(&e, 1i32, 0i32).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
    // (0,) broadcasts with (1,) to (0,), not with (2,).
    let z = Array::from_slice::<i32>(&[], &[0]).unwrap();
    let one = Array::from_slice(&[7i32], &[1]).unwrap();
    let r = (&z * &one).unwrap();
    assert_eq!(r.shape(), &[0]);
    let two = Array::from_slice(&[1i32, 2], &[2]).unwrap();
    expect_err(&z + &two, ErrorKind::Shape);
}

// =========================================================================================
// 4. Unary operations, clip, where_, astype, remainder and power rules
// =========================================================================================

#[test]
fn negative_positive_and_abs_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(31);
    let n = 21;
    for d in common::dtypes(DType::ALL) {
        let xs = small_vals(&mut rng, d, n);
        let a = dev(&xs, &[n], d);
        // negative
        let want: Option<Vec<V>> = xs.iter().map(|&x| ref_neg(x, d)).collect();
        match want {
            None => {
                let e = expect_err(ops::negative(&a), ErrorKind::DType);
                assert!(e.to_string().contains("negative"), "{e}");
            }
            Some(want) => {
                let r = ops::negative(&a).unwrap();
                assert_eq!(r.dtype(), d);
                assert_vals(&host(&r), &want, d, 0.0, &[], &format!("negative {d}"));
            }
        }
        // positive: the same values in a new array; bools refused as by NumPy.
        if d == DType::Bool {
            let e = expect_err(ops::positive(&a), ErrorKind::DType);
            assert!(e.to_string().contains("boolean positive"), "{e}");
        } else {
            let r = a.positive().unwrap();
            assert_eq!(r.dtype(), d);
            assert!(!r.shares_memory(&a), "positive {d} returns a new array");
            assert_vals(&host(&r), &xs, d, 0.0, &[], &format!("positive {d}"));
        }
        // abs: complex gives the real type.
        let out = match d {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            other => other,
        };
        let want: Vec<V> = xs
            .iter()
            .map(|&x| match x {
                B(b) => B(b),
                I(i) => I(wrap(i.abs(), d)),
                F(f) => F(f.abs()),
                C(re, im) => F(round_float(re.hypot(im), out)),
            })
            .collect();
        for r in [ops::abs(&a).unwrap(), a.abs().unwrap()] {
            assert_eq!(r.dtype(), out, "abs {d}");
            let scales: Vec<f64> = want.iter().map(|&w| magnitude(w)).collect();
            assert_vals(&host(&r), &want, out, 2.0, &scales, &format!("abs {d}"));
        }
    }
}

#[test]
fn negative_and_abs_edge_values() {
    require_gpu!();
    // Unsigned negative wraps.
    let u = Array::from_slice(&[0u8, 1, 200], &[3]).unwrap();
    assert_eq!(
        ops::negative(&u).unwrap().to_vec::<u8>().unwrap(),
        vec![0, 255, 56]
    );
    let q = Array::from_slice(&[1u64, 0], &[2]).unwrap();
    assert_eq!((-&q).unwrap().to_vec::<u64>().unwrap(), vec![u64::MAX, 0]);
    // The most negative integer stays itself under negative and abs.
    let i = Array::from_slice(&[-128i8, -5, 7, 127], &[4]).unwrap();
    assert_eq!(
        ops::abs(&i).unwrap().to_vec::<i8>().unwrap(),
        vec![-128, 5, 7, 127]
    );
    assert_eq!(
        (-&i).unwrap().to_vec::<i8>().unwrap(),
        vec![-128, 5, -7, -127]
    );
    let l = Array::from_slice(&[i64::MIN, -3], &[2]).unwrap();
    assert_eq!(l.abs().unwrap().to_vec::<i64>().unwrap(), vec![i64::MIN, 3]);
    // Complex magnitude.
    let z = Array::from_slice(
        &[Complex::new(3.0f32, 4.0), Complex::new(-5.0, -12.0)],
        &[2],
    )
    .unwrap();
    let r = ops::abs(&z).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (DType::F32, vec![5.0, 13.0])
    );
    // abs(-0.0) is +0.0; NaN stays NaN.
    let f = Array::from_slice(&[-0.0f64, f64::NAN, f64::NEG_INFINITY], &[3]).unwrap();
    let r = ops::abs(&f).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(r[0].to_bits(), 0.0f64.to_bits());
    assert!(r[1].is_nan());
    assert_eq!(r[2], f64::INFINITY);
    // bool: abs is the identity, negative an error.
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert_eq!(
        ops::abs(&b).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    expect_err(-&b, ErrorKind::DType);
}

#[derive(Debug, Clone, Copy)]
enum Math {
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
}

const MATHS: [Math; 7] = [
    Math::Sqrt,
    Math::Exp,
    Math::Log,
    Math::Sin,
    Math::Cos,
    Math::Tan,
    Math::Tanh,
];

impl Math {
    fn call(self, a: &Array) -> cuprum::Result<Array> {
        match self {
            Math::Sqrt => ops::sqrt(a),
            Math::Exp => ops::exp(a),
            Math::Log => ops::log(a),
            Math::Sin => ops::sin(a),
            Math::Cos => ops::cos(a),
            Math::Tan => ops::tan(a),
            Math::Tanh => ops::tanh(a),
        }
    }

    fn method(self, a: &Array) -> cuprum::Result<Array> {
        match self {
            Math::Sqrt => a.sqrt(),
            Math::Exp => a.exp(),
            Math::Log => a.log(),
            Math::Sin => a.sin(),
            Math::Cos => a.cos(),
            Math::Tan => a.tan(),
            Math::Tanh => a.tanh(),
        }
    }

    fn real(self, x: f64) -> f64 {
        match self {
            Math::Sqrt => x.sqrt(),
            Math::Exp => x.exp(),
            Math::Log => x.ln(),
            Math::Sin => x.sin(),
            Math::Cos => x.cos(),
            Math::Tan => x.tan(),
            Math::Tanh => x.tanh(),
        }
    }

    fn complex(self, z: Complex<f64>) -> Complex<f64> {
        match self {
            Math::Sqrt => z.sqrt(),
            Math::Exp => z.exp(),
            Math::Log => z.ln(),
            Math::Sin => z.sin(),
            Math::Cos => z.cos(),
            Math::Tan => z.tan(),
            Math::Tanh => z.tanh(),
        }
    }

    /// Inputs in the function's well-conditioned domain.
    fn input(self, rng: &mut Rng, d: DType) -> V {
        let (lo, hi): (f64, f64) = match self {
            Math::Sqrt | Math::Log => (0.1, 10.0),
            Math::Exp => (-5.0, 5.0),
            Math::Tan => (-1.3, 1.3),
            Math::Sin | Math::Cos | Math::Tanh => (-4.0, 4.0),
        };
        let v = match d.kind() {
            DTypeKind::Bool => B(coin(rng)),
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                let lo = if d.kind() == DTypeKind::UnsignedInt || lo > 0.0 {
                    lo.max(0.0).ceil() as i64
                } else {
                    lo.ceil() as i64
                };
                I(i128::from(
                    lo + rng.usize(0, (hi as i64 - lo) as usize) as i64,
                ))
            }
            DTypeKind::Float => F(rng.f64(lo, hi)),
            DTypeKind::Record => unreachable!("the record dtype is not numeric"),
            DTypeKind::Complex => C(rng.f64(-2.0, 2.0), rng.f64(-2.0, 2.0)),
        };
        let v = cast_v(v, d);
        match (self, v) {
            // log / sqrt of an integer 0 is avoided (bool false is fine: sqrt(0) = 0).
            (Math::Log, I(0)) => I(1),
            (Math::Log, B(false)) => B(true),
            _ => v,
        }
    }
}

/// The float type NumPy computes a math function of `d` in (first of `e f d` that `d`
/// casts to safely), written out as NumPy 2 reports it (`np.sqrt(np.ones(1, d)).dtype`).
fn math_loop(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 => DType::F32,
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => DType::F64,
        other => other,
    }
}

#[test]
fn math_functions_for_every_dtype_compute_in_numpys_float_type() {
    require_gpu!();
    let mut rng = Rng::new(32);
    let n = 25;
    for d in common::dtypes(DType::ALL) {
        let t = math_loop(d);
        for f in MATHS {
            let xs: Vec<V> = (0..n).map(|_| f.input(&mut rng, d)).collect();
            let a = dev(&xs, &[n], d);
            let want: Vec<V> = xs
                .iter()
                .map(|&x| match cast_v(x, t) {
                    F(v) => F(round_float(f.real(v), t)),
                    C(re, im) => {
                        let z = f.complex(Complex::new(re, im));
                        C(round_float(z.re, t), round_float(z.im, t))
                    }
                    other => unreachable!("{other:?}"),
                })
                .collect();
            let ulps = match t {
                DType::F16 | DType::BF16 => 2.0,
                DType::C64 | DType::C128 => 32.0,
                _ => 4.0,
            };
            // tan is ill-conditioned where it is large: its error grows with |tan|^2.
            let scales: Vec<f64> = want
                .iter()
                .map(|&w| match f {
                    Math::Tan => magnitude(w).max(1.0) * (1.0 + magnitude(w)),
                    _ => magnitude(w).max(1.0),
                })
                .collect();
            for (how, r) in [("ops", f.call(&a)), ("method", f.method(&a))] {
                let r = r.unwrap_or_else(|e| panic!("{f:?} of {d} ({how}): {e}"));
                assert_eq!(r.dtype(), t, "{f:?} of {d}: result dtype");
                let what = format!("{f:?} of {d} ({how})");
                assert_vals(&host(&r), &want, t, ulps, &scales, &what);
            }
        }
    }
}

#[test]
fn math_function_examples() {
    require_gpu!();
    let a = Array::from_slice(&[4.0f32, 9.0, 0.25], &[3]).unwrap();
    assert_eq!(
        ops::sqrt(&a).unwrap().to_vec::<f32>().unwrap(),
        vec![2.0, 3.0, 0.5]
    );
    let i = Array::from_slice(&[4i8, 9], &[2]).unwrap();
    let r = ops::sqrt(&i).unwrap();
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(
        r.to_vec::<f16>().unwrap(),
        vec![f16::from_f32(2.0), f16::from_f32(3.0)]
    );
    let i = Array::from_slice(&[0i32, 1], &[2]).unwrap();
    let r = ops::exp(&i).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    let r = r.to_vec::<f64>().unwrap();
    assert_eq!(r[0], 1.0);
    assert!((r[1] - std::f64::consts::E).abs() < 1e-15);
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    let r = ops::cos(&b).unwrap();
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(r.to_vec::<f16>().unwrap()[1], f16::ONE);
    // Outside the domain: NaN and -inf, like NumPy.
    let f = Array::from_slice(&[-1.0f64, 0.0], &[2]).unwrap();
    let r = ops::log(&f).unwrap().to_vec::<f64>().unwrap();
    assert!(r[0].is_nan());
    assert_eq!(r[1], f64::NEG_INFINITY);
    let r = ops::sqrt(&f).unwrap().to_vec::<f64>().unwrap();
    assert!(r[0].is_nan());
    // Complex sqrt of a negative real is on the positive imaginary axis.
    let z = Array::from_slice(&[Complex::new(-4.0f32, 0.0)], &[1]).unwrap();
    let r = ops::sqrt(&z).unwrap().to_vec::<Complex<f32>>().unwrap();
    assert!((r[0] - Complex::new(0.0, 2.0)).norm() < 1e-6, "{r:?}");
}

#[test]
fn maximum_and_minimum_propagate_nan() {
    require_gpu!();
    let nan = f64::NAN;
    let xs = [nan, 1.0, 2.0, nan, -0.5];
    let ys = [0.0, nan, 1.0, nan, 3.0];
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let xv: Vec<V> = xs.iter().map(|&x| F(x)).collect();
        let yv: Vec<V> = ys.iter().map(|&x| F(x)).collect();
        let (a, b) = (dev(&xv, &[5], d), dev(&yv, &[5], d));
        for op in [Bin::Max, Bin::Min] {
            check_op(op, op.call(&a, &b), (&xv, &yv), d, &[5], "NaN");
            check_op(op, op.call(&b, &a), (&yv, &xv), d, &[5], "NaN");
        }
        let r = host(&ops::maximum(&a, f64::NAN).unwrap());
        assert!(
            r.iter().all(|&v| matches!(v, F(x) if x.is_nan())),
            "{d}: {r:?}"
        );
        let r = host(&ops::minimum(f64::NAN, &a).unwrap());
        assert!(
            r.iter().all(|&v| matches!(v, F(x) if x.is_nan())),
            "{d}: {r:?}"
        );
    }
    let a = Array::from_slice(&[nan, 1.0, 2.0], &[3]).unwrap();
    let r = ops::maximum(&a, 1.5).unwrap().to_vec::<f64>().unwrap();
    assert!(r[0].is_nan());
    assert_eq!(&r[1..], &[1.5, 2.0]);
}

fn ref_clip(x: V, lo: V, hi: V, t: DType) -> V {
    let (x, lo, hi) = (cast_v(x, t), cast_v(lo, t), cast_v(hi, t));
    let max = ref_bin(Bin::Max, x, lo, t);
    ref_bin(Bin::Min, max, hi, t)
}

#[test]
fn clip_with_scalar_and_array_bounds() {
    require_gpu!();
    let mut rng = Rng::new(33);
    // Scalar bounds, every real dtype.
    for d in common::dtypes(DType::ALL) {
        let xs = small_vals(&mut rng, d, 20);
        let a = dev(&xs, &[20], d);
        let (lo, hi) = match d.kind() {
            DTypeKind::Bool => (B(false), B(true)),
            DTypeKind::UnsignedInt => (I(3), I(9)),
            DTypeKind::SignedInt => (I(-2), I(4)),
            _ => (F(-1.5), F(2.5)),
        };
        let r = a.clip(scalar_of(lo, d), scalar_of(hi, d));
        if d.is_complex() {
            expect_err(r, ErrorKind::DType);
            continue;
        }
        let r = r.unwrap();
        assert_eq!(r.dtype(), d, "clip {d}");
        let want: Vec<V> = xs.iter().map(|&x| ref_clip(x, lo, hi, d)).collect();
        assert_vals(&host(&r), &want, d, 0.0, &[], &format!("clip {d}"));
    }
    // Array bounds that broadcast: a (4,3), lo (3,), hi (4,1).
    let d = DType::F32;
    let xs = small_vals(&mut rng, d, 12);
    let los: Vec<V> = (0..3)
        .map(|_| F(rng.f64(-5.0, 0.0)))
        .map(|v| cast_v(v, d))
        .collect();
    let his: Vec<V> = (0..4)
        .map(|_| F(rng.f64(0.0, 5.0)))
        .map(|v| cast_v(v, d))
        .collect();
    let (a, lo, hi) = (
        dev(&xs, &[4, 3], d),
        dev(&los, &[3], d),
        dev(&his, &[4, 1], d),
    );
    let r = ops::clip(&a, &lo, &hi).unwrap();
    assert_eq!(r.shape(), &[4, 3]);
    let lb = bcast(&los, &[3], &[4, 3]);
    let hb = bcast(&his, &[4, 1], &[4, 3]);
    let want: Vec<V> = (0..12).map(|k| ref_clip(xs[k], lb[k], hb[k], d)).collect();
    assert_eq!(host(&r), want);
    // One array bound, one scalar bound.
    let r = ops::clip(&a, &lo, 1.0f64).unwrap();
    let want: Vec<V> = (0..12).map(|k| ref_clip(xs[k], lb[k], F(1.0), d)).collect();
    assert_eq!(host(&r), want);
    // NaN propagates; lo > hi gives hi (as NumPy's minimum(maximum(a, lo), hi)).
    let f = Array::from_slice(&[-2.0f32, 0.5, f32::NAN, 9.0], &[4]).unwrap();
    let r = f.clip(0.0f32, 1.0f32).unwrap().to_vec::<f32>().unwrap();
    assert_eq!((r[0], r[1], r[3]), (0.0, 0.5, 1.0));
    assert!(r[2].is_nan());
    let r = ops::clip(&f, 1.0, 0.0).unwrap().to_vec::<f32>().unwrap();
    assert_eq!((r[0], r[1], r[3]), (0.0, 0.0, 0.0));
    // Integers; a float bound promotes an integer array to float64.
    let i = Array::from_slice(&[-3i32, 5, 2], &[3]).unwrap();
    assert_eq!(
        i.clip(0i32, 4i32).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 4, 2]
    );
    let r = i.clip(0.5f64, 2.5f64).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![0.5, 2.5, 2.0])
    );
}

#[test]
fn where_with_any_condition_dtype_and_scalar_branches() {
    require_gpu!();
    let mut rng = Rng::new(34);
    // A float condition: non-zero (NaN included) is true, -0.0 is false.
    let c = Array::from_slice(&[0.0f64, f64::NAN, -0.0, 2.0], &[4]).unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let r = ops::where_(&c, &x, 0.0f64).unwrap();
    assert_eq!(r.dtype(), DType::F32);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0, 2.0, 0.0, 4.0]);
    // Scalar branches: their own dtypes decide.
    let b = Array::from_slice(&[true, false, true], &[3]).unwrap();
    let r = ops::where_(&b, 1.5f64, -1.5f64).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![1.5, -1.5, 1.5])
    );
    let r = ops::where_(&b, 1i32, -1i32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i32>().unwrap()),
        (DType::I32, vec![1, -1, 1])
    );
    // A complex condition: non-zero if either part is.
    let z = Array::from_slice(
        &[
            Complex::new(0.0f32, 0.0),
            Complex::new(0.0, 1.0),
            Complex::new(1.0, 0.0),
        ],
        &[3],
    )
    .unwrap();
    let r = ops::where_(&z, 1u8, 0u8).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<u8>().unwrap()),
        (DType::U8, vec![0, 1, 1])
    );
    // Array branches of different dtypes promote; everything broadcasts.
    for cd in common::dtypes(DType::ALL) {
        let cs = small_vals(&mut rng, cd, 4);
        let cs: Vec<V> = cs
            .iter()
            .enumerate()
            .map(|(k, &v)| if k == 2 { cast_v(I(0), cd) } else { v })
            .collect();
        let cond = dev(&cs, &[4, 1], cd);
        let xs = small_vals(&mut rng, DType::I8, 3);
        let ys = small_vals(&mut rng, DType::U8, 3);
        let (xa, ya) = (dev(&xs, &[3], DType::I8), dev(&ys, &[3], DType::U8));
        let r = ops::where_(&cond, &xa, &ya).unwrap();
        assert_eq!((r.dtype(), r.shape()), (DType::I16, &[4usize, 3][..]));
        let cb = bcast(&cs, &[4, 1], &[4, 3]);
        let xb = bcast(&xs, &[3], &[4, 3]);
        let yb = bcast(&ys, &[3], &[4, 3]);
        let want: Vec<V> = (0..12)
            .map(|k| if truthy(cb[k]) { xb[k] } else { yb[k] })
            .collect();
        assert_eq!(host(&r), want, "where_ with a {cd} condition");
        // A 0-d array as one branch, a weak scalar as the other.
        let r = ops::where_(&cond, Array::scalar(2.5f32).unwrap(), 7i64).unwrap();
        assert_eq!((r.dtype(), r.shape()), (DType::F32, &[4usize, 1][..]));
        let want: Vec<V> = cs
            .iter()
            .map(|&c| if truthy(c) { F(2.5) } else { F(7.0) })
            .collect();
        assert_eq!(host(&r), want, "where_ with a {cd} condition and scalars");
    }
    // A weak scalar branch that does not fit the array branch's dtype is an error (as in
    // NumPy 2).
    let u = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap();
    expect_err(ops::where_(&b, &u, -1i32), ErrorKind::DType);
}

#[test]
fn astype_across_every_pair_of_dtypes() {
    require_gpu!();
    let base = [
        0.0, 1.0, 2.0, 3.0, 7.0, 100.0, 126.0, 2.5, 0.75, -1.0, -100.0, -128.0, -2.5,
    ];
    let dtypes = common::dtypes(DType::ALL);
    for &from in &dtypes {
        for &to in &dtypes {
            let unsigned = |d: DType| d.kind() == DTypeKind::UnsignedInt;
            let mut vals: Vec<V> = base
                .iter()
                .filter(|&&x| x >= 0.0 || !(unsigned(from) || unsigned(to)))
                .map(|&x| cast_v(F(x), from))
                .collect();
            if from.is_complex() {
                vals.push(C(0.0, 1.5));
                vals.push(C(2.0, -1.0));
            }
            let a = dev(&vals, &[vals.len()], from);
            let r = a
                .astype(to)
                .unwrap_or_else(|e| panic!("astype {from} -> {to}: {e}"));
            assert_eq!(r.dtype(), to, "astype {from} -> {to}");
            assert_eq!(r.shape(), a.shape());
            assert!(!r.shares_memory(&a), "astype {from} -> {to} must copy");
            let want: Vec<V> = vals.iter().map(|&v| cast_v(v, to)).collect();
            assert_eq!(host(&r), want, "astype {from} -> {to} of {vals:?}");
        }
    }
}

#[test]
fn astype_special_values() {
    require_gpu!();
    // Floats truncate toward zero; NaN is true as a bool.
    let f = Array::from_slice(&[1.7f32, -2.5, -0.9, 0.9], &[4]).unwrap();
    assert_eq!(
        f.astype(DType::I32).unwrap().to_vec::<i32>().unwrap(),
        vec![1, -2, 0, 0]
    );
    let f = Array::from_slice(&[f64::NAN, 0.0, -0.0, 0.5], &[4]).unwrap();
    assert_eq!(
        f.astype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, false, true]
    );
    // Complex -> real keeps the real part; -> bool is non-zero in either part.
    let z = Array::from_slice(
        &[
            Complex::new(0.0f64, 0.0),
            Complex::new(0.0, 1.0),
            Complex::new(-3.5, 2.0),
        ],
        &[3],
    )
    .unwrap();
    assert_eq!(
        z.astype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true, true]
    );
    assert_eq!(
        z.astype(DType::F32).unwrap().to_vec::<f32>().unwrap(),
        vec![0.0, 0.0, -3.5]
    );
    assert_eq!(
        z.astype(DType::I16).unwrap().to_vec::<i16>().unwrap(),
        vec![0, 0, -3]
    );
    // Integers wrap into narrower integers, as NumPy's astype does.
    let i = Array::from_slice(&[300i32, -1, 255], &[3]).unwrap();
    assert_eq!(
        i.astype(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![44, 255, 255]
    );
    assert_eq!(
        i.astype(DType::I8).unwrap().to_vec::<i8>().unwrap(),
        vec![44, -1, -1]
    );
    // Large integers to float64 and back.
    let q = Array::from_slice(&[1i64 << 53, -(1i64 << 40)], &[2]).unwrap();
    let r = q.astype(DType::F64).unwrap();
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![2f64.powi(53), -(2f64.powi(40))]
    );
    assert_eq!(
        r.astype(DType::I64).unwrap().to_vec::<i64>().unwrap(),
        vec![1i64 << 53, -(1i64 << 40)]
    );
    // A view converts its own elements only.
    let m = Array::from_slice(&[1.5f64, 2.5, 3.5, 4.5, 5.5, 6.5], &[2, 3]).unwrap();
    let r = m.t().astype(DType::I32).unwrap();
    assert_eq!(
        (r.shape(), r.to_vec::<i32>().unwrap()),
        (&[3usize, 2][..], vec![1, 4, 2, 5, 3, 6])
    );
}

#[test]
fn remainder_sign_rules() {
    require_gpu!();
    for d in [DType::I8, DType::I16, DType::I32, DType::I64] {
        let xs: Vec<V> = [-7, 7, -7, 7, 5, -5, 0, 6, -6]
            .iter()
            .map(|&x| I(x))
            .collect();
        let ys: Vec<V> = [3, -3, -3, 3, 0, 0, 5, 3, -1]
            .iter()
            .map(|&x| I(x))
            .collect();
        let (a, b) = (dev(&xs, &[9], d), dev(&ys, &[9], d));
        let r = (&a % &b).unwrap();
        let want: Vec<V> = [2, -2, -1, 1, 0, 0, 0, 0, 0]
            .iter()
            .map(|&x| I(x))
            .collect();
        assert_eq!((r.dtype(), host(&r)), (d, want), "{d} remainder");
    }
    // The most negative value % -1 is 0 (no trap), x % 0 is 0 for unsigned integers too.
    let i = Array::from_slice(&[i32::MIN, i32::MIN, 5], &[3]).unwrap();
    let r = ops::remainder(&i, -1i32).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![0, 0, 0]);
    let r = ops::remainder(&i, 7i32).unwrap();
    assert_eq!(
        r.to_vec::<i32>().unwrap(),
        vec![i32::MIN.rem_euclid(7), i32::MIN.rem_euclid(7), 5]
    );
    let u = Array::from_slice(&[7u16, 9], &[2]).unwrap();
    let z = Array::zeros(&[2], DType::U16).unwrap();
    assert_eq!((&u % &z).unwrap().to_vec::<u16>().unwrap(), vec![0, 0]);
    assert_eq!((&u % 4u16).unwrap().to_vec::<u16>().unwrap(), vec![3, 1]);
    assert_eq!((10u16 % &u).unwrap().to_vec::<u16>().unwrap(), vec![3, 1]);
    // Scalar on the left.
    let t = Array::from_slice(&[3i64, -3], &[2]).unwrap();
    assert_eq!((-7i64 % &t).unwrap().to_vec::<i64>().unwrap(), vec![2, -1]);
    // Floats: sign of the divisor, a zero result takes the divisor's sign, x % 0 is NaN.
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let xs: Vec<V> = [-7.5, 7.5, -6.0, 6.0, 1.0, 5.25]
            .iter()
            .map(|&x| F(x))
            .collect();
        let ys: Vec<V> = [2.0, -2.0, 3.0, -3.0, 0.0, 2.0]
            .iter()
            .map(|&x| F(x))
            .collect();
        let (a, b) = (dev(&xs, &[6], d), dev(&ys, &[6], d));
        let r = host(&(&a % &b).unwrap());
        let want = [0.5, -0.5, 0.0, -0.0, f64::NAN, 1.25];
        for (k, (&g, &w)) in r.iter().zip(&want).enumerate() {
            let F(g) = g else { panic!("{g:?}") };
            if w.is_nan() {
                assert!(g.is_nan(), "{d} remainder {k}: {g}");
            } else {
                assert_eq!(g, w, "{d} remainder {k}");
                assert_eq!(
                    g.is_sign_negative(),
                    w.is_sign_negative(),
                    "{d} remainder {k}: sign of {g}"
                );
            }
        }
    }
    // Weak float scalar with an integer array: float64.
    let a = Array::from_slice(&[-7i32, 7], &[2]).unwrap();
    let r = (&a % 2.5f64).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![0.5, 2.0])
    );
    // bool % bool is int8 (NumPy), 0 for a false divisor.
    let p = Array::from_slice(&[true, false, true], &[3]).unwrap();
    let q = Array::from_slice(&[true, true, false], &[3]).unwrap();
    let r = (&p % &q).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i8>().unwrap()),
        (DType::I8, vec![0, 0, 0])
    );
}

#[test]
fn integer_power_is_exact_and_wraps() {
    require_gpu!();
    let a = Array::from_slice(&[3i64, -3, 2, 7, 0, 1], &[6]).unwrap();
    let e = Array::from_slice(&[39i64, 39, 62, 22, 0, 1000], &[6]).unwrap();
    let r = ops::power(&a, &e).unwrap();
    assert_eq!(
        r.to_vec::<i64>().unwrap(),
        vec![
            3i64.pow(39),
            (-3i64).pow(39),
            1i64 << 62,
            7i64.pow(22),
            1,
            1
        ]
    );
    // Wraparound, as NumPy: int8 3**5 = 243 -> -13, (-3)**5 -> 13, 5**4 = 625 -> 113.
    let b = Array::from_slice(&[3i8, -3, 5], &[3]).unwrap();
    let e = Array::from_slice(&[5i8, 5, 4], &[3]).unwrap();
    assert_eq!(
        ops::power(&b, &e).unwrap().to_vec::<i8>().unwrap(),
        vec![-13, 13, 113]
    );
    let u = Array::from_slice(&[2u32, 3], &[2]).unwrap();
    assert_eq!(
        u.pow(33u32).unwrap().to_vec::<u32>().unwrap(),
        vec![0, 3u32.wrapping_pow(33)]
    );
    let u = Array::from_slice(&[2u64, 3], &[2]).unwrap();
    assert_eq!(
        u.pow(40u64).unwrap().to_vec::<u64>().unwrap(),
        vec![1 << 40, 3u64.pow(40)]
    );
    // Scalar base on the left.
    let e = Array::from_slice(&[0i32, 1, 10, 30], &[4]).unwrap();
    assert_eq!(
        ops::power(2i32, &e).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2, 1024, 1 << 30]
    );
    // Negative integer exponents (NumPy raises; cuprum documents 0 except for bases ±1).
    let b = Array::from_slice(&[2i32, 1, -1, -1, -2], &[5]).unwrap();
    let e = Array::from_slice(&[-1i32, -3, -3, -2, -1], &[5]).unwrap();
    assert_eq!(
        ops::power(&b, &e).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, -1, 1, 0]
    );
    // bool ** bool is int8.
    let p = Array::from_slice(&[true, false, false, true], &[4]).unwrap();
    let q = Array::from_slice(&[false, false, true, true], &[4]).unwrap();
    let r = ops::power(&p, &q).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i8>().unwrap()),
        (DType::I8, vec![1, 1, 0, 1])
    );
    // Float powers.
    let f = Array::from_slice(&[4.0f64, 2.0, -8.0], &[3]).unwrap();
    let r = f.pow(0.5f64).unwrap().to_vec::<f64>().unwrap();
    // CUDA's pow is within 2 ulp (not always correctly rounded).
    assert_eq!(r[0], 2.0);
    assert!((r[1] - 2f64.sqrt()).abs() <= 4.0 * f64::EPSILON, "{}", r[1]);
    assert!(r[2].is_nan());
    let r = f.pow(-1i32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f64>().unwrap()),
        (DType::F64, vec![0.25, 0.5, -0.125])
    );
}

/// NumPy: `0j ** 0j == 1`, `0j ** 2 == 0`, `0j ** -1` and `0j ** 1j` are NaN
/// (`np.array([0j], np.complex64) ** np.array([0j])` is `[1+0j]` in NumPy 2.5).
#[test]
fn complex_power_of_a_zero_base_follows_numpy() {
    require_gpu!();
    let zero = Complex::new(0.0f64, 0.0);
    let exps = [
        Complex::new(0.0, 0.0),
        Complex::new(2.0, 0.0),
        Complex::new(-1.0, 0.0),
        Complex::new(0.0, 1.0),
    ];
    let want: Vec<Complex<f64>> = exps.iter().map(|&e| complex_pow(zero, e)).collect();
    for d in [DType::C64, DType::C128] {
        let bases: Vec<V> = vec![C(0.0, 0.0); 4];
        let ev: Vec<V> = exps.iter().map(|e| C(e.re, e.im)).collect();
        let r = ops::power(dev(&bases, &[4], d), dev(&ev, &[4], d)).unwrap();
        let got = host(&r);
        for (k, (&g, w)) in got.iter().zip(&want).enumerate() {
            let (gr, gi) = as_c(g);
            let ok = if w.re.is_nan() {
                gr.is_nan() || gi.is_nan()
            } else {
                gr == w.re && gi == w.im
            };
            assert!(ok, "{d}: 0j ** {} gave {g:?}, NumPy gives {w}", exps[k]);
        }
        // Any base ** 0 is 1.
        let x = dev(&[C(3.0, -4.0), C(0.0, 0.0)], &[2], d);
        let got = host(&ops::power(&x, scalar_of(C(0.0, 0.0), d)).unwrap());
        assert_eq!(got, vec![C(1.0, 0.0); 2], "{d}: z ** 0");
    }
}

// =========================================================================================
// 5. Errors
// =========================================================================================

#[test]
fn boolean_subtract_and_negative_are_dtype_errors() {
    require_gpu!();
    let p = Array::from_slice(&[true, false], &[2]).unwrap();
    let q = Array::from_slice(&[false, false], &[2]).unwrap();
    let e = expect_err(&p - &q, ErrorKind::DType);
    assert!(e.to_string().contains("boolean subtract"), "{e}");
    expect_err(ops::subtract(&p, true), ErrorKind::DType);
    expect_err(true - &p, ErrorKind::DType);
    let e = expect_err(-&p, ErrorKind::DType);
    assert!(e.to_string().contains("boolean negative"), "{e}");
    expect_err(ops::negative(&p), ErrorKind::DType);
    // With an integer on the other side it is integer arithmetic.
    let r = (&p - 1i32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i64>().unwrap()),
        (DType::I64, vec![0, -1])
    );
}

#[test]
fn out_of_range_weak_scalars_are_dtype_errors() {
    require_gpu!();
    let u = Array::from_slice(&[1u8, 2], &[2]).unwrap();
    let e = expect_err(&u + 300i32, ErrorKind::DType);
    assert!(e.to_string().contains("300"), "{e}");
    let e = expect_err(300i32 + &u, ErrorKind::DType);
    assert!(e.to_string().contains("300"), "{e}");
    let e = expect_err(&u * -1i32, ErrorKind::DType);
    assert!(e.to_string().contains("-1"), "{e}");
    expect_err(ops::maximum(&u, 256i64), ErrorKind::DType);
    expect_err(ops::power(&u, 300i32), ErrorKind::DType);
    let i = Array::from_slice(&[1i8], &[1]).unwrap();
    let e = expect_err(&i - 200u8, ErrorKind::DType);
    assert!(e.to_string().contains("200"), "{e}");
    expect_err(&i % 128i16, ErrorKind::DType);
    // The limits themselves fit.
    assert_eq!((&i + 126i64).unwrap().to_vec::<i8>().unwrap(), vec![127]);
    assert_eq!((&i + -128i32).unwrap().to_vec::<i8>().unwrap(), vec![-127]);
    assert_eq!((-128i64 - &i).unwrap().to_vec::<i8>().unwrap(), vec![127]);
}

#[test]
fn complex_remainder_and_clip_are_dtype_errors_maximum_orders_as_numpy() {
    require_gpu!();
    let z = Array::from_slice(&[Complex::new(1.0f64, 2.0)], &[1]).unwrap();
    let e = expect_err(&z % &z, ErrorKind::DType);
    assert!(e.to_string().contains("remainder"), "{e}");
    expect_err(&z % 2.0f64, ErrorKind::DType);
    let f = Array::from_slice(&[1.0f32], &[1]).unwrap();
    expect_err(&f % Complex::new(1.0f32, 1.0), ErrorKind::DType);
    expect_err(ops::clip(&z, 0.0, 1.0), ErrorKind::DType);
    // NumPy: lexicographic on (real, imaginary); complex128 with float32 promotes.
    let m = ops::maximum(&z, 1.0f64)
        .unwrap()
        .to_vec::<Complex<f64>>()
        .unwrap();
    assert_eq!(m, [Complex::new(1.0, 2.0)]);
    let m = ops::minimum(&z, 1.0f64)
        .unwrap()
        .to_vec::<Complex<f64>>()
        .unwrap();
    assert_eq!(m, [Complex::new(1.0, 0.0)]);
    let m = z.maximum(&f).unwrap();
    assert_eq!(m.dtype(), DType::C128);
}

#[test]
fn incompatible_shapes_are_shape_errors() {
    require_gpu!();
    let a = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let b = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let e = expect_err(&a + &b, ErrorKind::Shape);
    assert!(
        e.to_string()
            .contains("operands could not be broadcast together with shapes (2,) (3,)"),
        "{e}"
    );
    expect_err(ops::less(&a, &b), ErrorKind::Shape);
    let m = Array::zeros(&[4, 3], DType::F32).unwrap();
    let e = expect_err(ops::maximum(&m, &a), ErrorKind::Shape);
    assert!(e.to_string().contains("(4, 3) (2,)"), "{e}");
    expect_err(ops::where_(&a, &b, 0.0f32), ErrorKind::Shape);
    expect_err(ops::clip(&b, &a, 1.0f32), ErrorKind::Shape);
}

/// NumPy 2 converts a Python integer to the dtype of the ufunc loop, not to the array's:
/// `true_divide` of integers runs in float64, so `np.array([3, 200], np.uint8) / 300` is
/// `[0.01, 0.6667]` and `/ -4` is `[-0.75, -50.0]` (NumPy 2.5); only operations whose loop
/// is the array's own integer type (`+`, `%`, `**`, `maximum` ...) raise OverflowError.
#[test]
fn true_division_by_an_integer_scalar_outside_the_array_dtype_follows_numpy() {
    require_gpu!();
    let u = Array::from_slice(&[3u8, 200], &[2]).unwrap();
    let r = (&u / 300i32).unwrap_or_else(|e| panic!("uint8 array / 300: {e}"));
    assert_eq!(r.dtype(), DType::F64);
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![3.0 / 300.0, 200.0 / 300.0]);
    let r = ops::divide(&u, -4i64).unwrap_or_else(|e| panic!("uint8 array / -4: {e}"));
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![-0.75, -50.0]);
    let r = (1000i32 / &u).unwrap_or_else(|e| panic!("1000 / uint8 array: {e}"));
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![1000.0 / 3.0, 5.0]);
}

/// NumPy 2 compares integer arrays with Python integers outside their dtype exactly
/// instead of raising: `np.array([3, 200], np.uint8) < 300` is `[True, True]`,
/// `== -1` is `[False, False]`, `np.array([-128, -5, 7], np.int8) > 1000` is all False
/// (NumPy 2.5).
#[test]
fn comparison_with_an_integer_scalar_outside_the_array_dtype_follows_numpy() {
    require_gpu!();
    let u = Array::from_slice(&[3u8, 200], &[2]).unwrap();
    let cases: [(&str, cuprum::Result<Array>, [bool; 2]); 4] = [
        ("uint8 < 300", ops::less(&u, 300i32), [true, true]),
        ("uint8 == -1", ops::equal(&u, -1i32), [false, false]),
        ("uint8 != -1", ops::not_equal(&u, -1i64), [true, true]),
        ("-1 < uint8", ops::less(-1i32, &u), [true, true]),
    ];
    for (what, r, want) in cases {
        let r = r.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.dtype(), DType::Bool, "{what}");
        assert_eq!(r.to_vec::<bool>().unwrap(), want.to_vec(), "{what}");
    }
    let i = Array::from_slice(&[-128i8, -5, 7], &[3]).unwrap();
    let r = ops::greater(&i, 1000i32).unwrap_or_else(|e| panic!("int8 > 1000: {e}"));
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![false; 3]);
    let r = ops::greater_equal(&i, -129i32).unwrap_or_else(|e| panic!("int8 >= -129: {e}"));
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true; 3]);
}

// =========================================================================================
// 6. Large arrays
// =========================================================================================

#[test]
fn large_arrays_through_operators_match_the_host() {
    require_gpu!();
    let mut rng = Rng::new(61);
    let n = 1_000_003;
    let av: Vec<f32> = (0..n).map(|_| rng.f64(-100.0, 100.0) as f32).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.f64(-100.0, 100.0) as f32).collect();
    let a = Array::from_slice(&av, &[n]).unwrap();
    let b = Array::from_slice(&bv, &[n]).unwrap();
    let r = (&a + (&b * 2.0f32).unwrap()).unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::F32, &[n][..]));
    let got = r.to_vec::<f32>().unwrap();
    for (k, ((&g, &x), &y)) in got.iter().zip(&av).zip(&bv).enumerate() {
        let w = x + y * 2.0;
        assert_eq!(g, w, "element {k}: {x} + {y} * 2");
    }
    // Comparisons and a scalar on the left over the same data.
    let m = ops::greater(&a, &b).unwrap().to_vec::<bool>().unwrap();
    let wrong = m
        .iter()
        .zip(av.iter().zip(&bv))
        .filter(|(g, (x, y))| **g != (x > y))
        .count();
    assert_eq!(wrong, 0);
    let r = (1.0f32 - &a).unwrap().to_vec::<f32>().unwrap();
    assert!(r.iter().zip(&av).all(|(&g, &x)| g == 1.0 - x));
    // A large integer array with wraparound and remainder.
    let iv: Vec<u16> = (0..n).map(|_| rng.next_u64() as u16).collect();
    let ia = Array::from_slice(&iv, &[n]).unwrap();
    let r = (&(&ia * 3u16).unwrap() % 1000u16)
        .unwrap()
        .to_vec::<u16>()
        .unwrap();
    assert!(
        r.iter()
            .zip(&iv)
            .all(|(&g, &x)| g == x.wrapping_mul(3) % 1000)
    );
}

/// Bool arrays whose bytes are not 0 and 1 (a raw kernel's writes, another library's
/// bytes): every operation reads a non-zero byte as true, as NumPy does (reading such a
/// byte as a C++ bool is undefined: the operation kept the byte or tested one bit).
#[test]
fn bool_bytes_other_than_one_are_true() {
    require_gpu!();
    let bytes: Vec<u8> = vec![3, 0, 1, 2, 0, 255, 4, 128, 0, 1, 6];
    let want: Vec<bool> = bytes.iter().map(|&b| b != 0).collect();
    let raw = Array::from_slice(&bytes, &[bytes.len()]).unwrap();
    let k = cuprum::ElementwiseKernel::new(
        "uint8 x",
        "bool y",
        "*reinterpret_cast<unsigned char*>(&y) = x",
        "bool_from_bytes",
    )
    .unwrap();
    let b = k.call((&raw,)).unwrap();
    let ints: Vec<i32> = want.iter().map(|&t| t as i32).collect();
    assert_eq!(b.astype(DType::I32).unwrap().to_vec::<i32>().unwrap(), ints);
    let not: Vec<bool> = want.iter().map(|&t| !t).collect();
    assert_eq!(ops::logical_not(&b).unwrap().to_vec::<bool>().unwrap(), not);
    let sum: Vec<u8> = ops::add(&b, &b)
        .unwrap()
        .astype(DType::U8)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(sum, ints.iter().map(|&t| t as u8).collect::<Vec<_>>());
    let trues = want.iter().filter(|&&t| t).count() as i64;
    assert_eq!(
        ops::count_nonzero(&b).unwrap().to_vec::<i64>().unwrap(),
        vec![trues]
    );
    let at: Vec<i64> = (0..want.len() as i64)
        .filter(|&i| want[i as usize])
        .collect();
    assert_eq!(ops::nonzero(&b).unwrap()[0].to_vec::<i64>().unwrap(), at);
    let running: Vec<i64> = ints
        .iter()
        .scan(0i64, |s, &t| {
            *s += t as i64;
            Some(*s)
        })
        .collect();
    assert_eq!(
        ops::cumsum(&b, None).unwrap().to_vec::<i64>().unwrap(),
        running
    );
    let one = Array::from_slice(&[true], &[1]).unwrap();
    assert_eq!(ops::isin(&b, &one).unwrap().to_vec::<bool>().unwrap(), want);
    let sorted = ops::sort(&b, None).unwrap();
    let falses = want.iter().filter(|&&t| !t).count() as i64;
    let at = ops::searchsorted(&sorted, &one, ops::Side::Left).unwrap();
    assert_eq!(at.to_vec::<i64>().unwrap(), vec![falses]);
}
