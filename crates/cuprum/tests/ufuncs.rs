//! Issue 16's element-wise additions against a host model of NumPy 2 (`common::numpy_model`
//! and the references below, written from NumPy's definitions, not from the library):
//!
//! - the rest of CuPy's ufuncs (`floor_divide`, `fmod`, rounding, predicates, logical and
//!   bitwise operations, shifts, inverse and hyperbolic functions, `sign`, `square`,
//!   `reciprocal`, `conj`, `real`, `imag`, `angle`) for every dtype, with NumPy's result
//!   dtypes and refusals, special float values, integer division by zero and `MIN // -1`;
//! - the `_into` forms (broadcasting to `out`, `same_kind` casting, outputs that alias or
//!   overlap an input), the in-place methods and the `InPlace` operators;
//! - the bit operators on arrays;
//! - the random additions: `randint`, `standard_normal`, `permutation`.
//!
//! Masked assignment and updates are in `tests/masked.rs`. GPU tests begin with
//! `require_gpu!()`.

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{
    as_c, as_f64, cast_v, close_v, dev, eps, host, int_floor_div, int_range, int_rem, round_float,
    small_vals, truthy, view_of, wrap,
};
use common::{Rng, assert_err, expect_err};
use cuprum::ops::{self, InPlace};
use cuprum::random::{self, Generator};
use cuprum::{Array, DType, DTypeKind, ErrorKind, SliceArg};
use num_complex::Complex;

// =========================================================================================
// The operations under test
// =========================================================================================

#[derive(Debug, Clone, Copy, PartialEq)]
enum U {
    Floor,
    Ceil,
    Trunc,
    Rint,
    Round,
    IsNan,
    IsInf,
    IsFinite,
    Signbit,
    LogicalNot,
    Invert,
    Log2,
    Log10,
    Log1p,
    Expm1,
    Exp2,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Arcsinh,
    Arccosh,
    Arctanh,
    Cbrt,
    Sign,
    Square,
    Reciprocal,
    Conj,
    Real,
    Imag,
    Angle,
}

const UNS: [U; 32] = [
    U::Floor,
    U::Ceil,
    U::Trunc,
    U::Rint,
    U::Round,
    U::IsNan,
    U::IsInf,
    U::IsFinite,
    U::Signbit,
    U::LogicalNot,
    U::Invert,
    U::Log2,
    U::Log10,
    U::Log1p,
    U::Expm1,
    U::Exp2,
    U::Arcsin,
    U::Arccos,
    U::Arctan,
    U::Sinh,
    U::Cosh,
    U::Arcsinh,
    U::Arccosh,
    U::Arctanh,
    U::Cbrt,
    U::Sign,
    U::Square,
    U::Reciprocal,
    U::Conj,
    U::Real,
    U::Imag,
    U::Angle,
];

impl U {
    fn call(self, a: &Array) -> cuprum::Result<Array> {
        match self {
            U::Floor => ops::floor(a),
            U::Ceil => ops::ceil(a),
            U::Trunc => ops::trunc(a),
            U::Rint => ops::rint(a),
            U::Round => ops::round(a),
            U::IsNan => ops::isnan(a),
            U::IsInf => ops::isinf(a),
            U::IsFinite => ops::isfinite(a),
            U::Signbit => ops::signbit(a),
            U::LogicalNot => ops::logical_not(a),
            U::Invert => ops::invert(a),
            U::Log2 => ops::log2(a),
            U::Log10 => ops::log10(a),
            U::Log1p => ops::log1p(a),
            U::Expm1 => ops::expm1(a),
            U::Exp2 => ops::exp2(a),
            U::Arcsin => ops::arcsin(a),
            U::Arccos => ops::arccos(a),
            U::Arctan => ops::arctan(a),
            U::Sinh => ops::sinh(a),
            U::Cosh => ops::cosh(a),
            U::Arcsinh => ops::arcsinh(a),
            U::Arccosh => ops::arccosh(a),
            U::Arctanh => ops::arctanh(a),
            U::Cbrt => ops::cbrt(a),
            U::Sign => ops::sign(a),
            U::Square => ops::square(a),
            U::Reciprocal => ops::reciprocal(a),
            U::Conj => ops::conj(a),
            U::Real => ops::real(a),
            U::Imag => ops::imag(a),
            U::Angle => ops::angle(a),
        }
    }

    fn call_into(self, a: &Array, out: &Array) -> cuprum::Result<()> {
        match self {
            U::Floor => ops::floor_into(a, out),
            U::Ceil => ops::ceil_into(a, out),
            U::Trunc => ops::trunc_into(a, out),
            U::Rint => ops::rint_into(a, out),
            U::Round => ops::round_into(a, out),
            U::IsNan => ops::isnan_into(a, out),
            U::IsInf => ops::isinf_into(a, out),
            U::IsFinite => ops::isfinite_into(a, out),
            U::Signbit => ops::signbit_into(a, out),
            U::LogicalNot => ops::logical_not_into(a, out),
            U::Invert => ops::invert_into(a, out),
            U::Log2 => ops::log2_into(a, out),
            U::Log10 => ops::log10_into(a, out),
            U::Log1p => ops::log1p_into(a, out),
            U::Expm1 => ops::expm1_into(a, out),
            U::Exp2 => ops::exp2_into(a, out),
            U::Arcsin => ops::arcsin_into(a, out),
            U::Arccos => ops::arccos_into(a, out),
            U::Arctan => ops::arctan_into(a, out),
            U::Sinh => ops::sinh_into(a, out),
            U::Cosh => ops::cosh_into(a, out),
            U::Arcsinh => ops::arcsinh_into(a, out),
            U::Arccosh => ops::arccosh_into(a, out),
            U::Arctanh => ops::arctanh_into(a, out),
            U::Cbrt => ops::cbrt_into(a, out),
            U::Sign => ops::sign_into(a, out),
            U::Square => ops::square_into(a, out),
            U::Reciprocal => ops::reciprocal_into(a, out),
            U::Conj => ops::conj_into(a, out),
            U::Real => ops::real_into(a, out),
            U::Imag => ops::imag_into(a, out),
            U::Angle => ops::angle_into(a, out),
        }
    }

    /// The `Array` method of the same operation.
    fn method(self, a: &Array) -> cuprum::Result<Array> {
        match self {
            U::Floor => a.floor(),
            U::Ceil => a.ceil(),
            U::Trunc => a.trunc(),
            U::Rint => a.rint(),
            U::Round => a.round(),
            U::IsNan => a.isnan(),
            U::IsInf => a.isinf(),
            U::IsFinite => a.isfinite(),
            U::Signbit => a.signbit(),
            U::LogicalNot => a.logical_not(),
            U::Invert => a.invert(),
            U::Log2 => a.log2(),
            U::Log10 => a.log10(),
            U::Log1p => a.log1p(),
            U::Expm1 => a.expm1(),
            U::Exp2 => a.exp2(),
            U::Arcsin => a.arcsin(),
            U::Arccos => a.arccos(),
            U::Arctan => a.arctan(),
            U::Sinh => a.sinh(),
            U::Cosh => a.cosh(),
            U::Arcsinh => a.arcsinh(),
            U::Arccosh => a.arccosh(),
            U::Arctanh => a.arctanh(),
            U::Cbrt => a.cbrt(),
            U::Sign => a.sign(),
            U::Square => a.square(),
            U::Reciprocal => a.reciprocal(),
            U::Conj => a.conj(),
            U::Real => a.real(),
            U::Imag => a.imag(),
            U::Angle => a.angle(),
        }
    }

    /// A transcendental function (tolerances in ulps rather than exact).
    fn is_transcendental(self) -> bool {
        matches!(
            self,
            U::Log2
                | U::Log10
                | U::Log1p
                | U::Expm1
                | U::Exp2
                | U::Arcsin
                | U::Arccos
                | U::Arctan
                | U::Sinh
                | U::Cosh
                | U::Arcsinh
                | U::Arccosh
                | U::Arctanh
                | U::Cbrt
                | U::Angle
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Bn {
    FloorDiv,
    Fmod,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitAnd,
    BitOr,
    BitXor,
    LeftShift,
    RightShift,
    Arctan2,
    Hypot,
}

const BNS: [Bn; 12] = [
    Bn::FloorDiv,
    Bn::Fmod,
    Bn::LogicalAnd,
    Bn::LogicalOr,
    Bn::LogicalXor,
    Bn::BitAnd,
    Bn::BitOr,
    Bn::BitXor,
    Bn::LeftShift,
    Bn::RightShift,
    Bn::Arctan2,
    Bn::Hypot,
];

impl Bn {
    fn call(
        self,
        a: impl cuprum::kernel::IntoOperand,
        b: impl cuprum::kernel::IntoOperand,
    ) -> cuprum::Result<Array> {
        match self {
            Bn::FloorDiv => ops::floor_divide(a, b),
            Bn::Fmod => ops::fmod(a, b),
            Bn::LogicalAnd => ops::logical_and(a, b),
            Bn::LogicalOr => ops::logical_or(a, b),
            Bn::LogicalXor => ops::logical_xor(a, b),
            Bn::BitAnd => ops::bitwise_and(a, b),
            Bn::BitOr => ops::bitwise_or(a, b),
            Bn::BitXor => ops::bitwise_xor(a, b),
            Bn::LeftShift => ops::left_shift(a, b),
            Bn::RightShift => ops::right_shift(a, b),
            Bn::Arctan2 => ops::arctan2(a, b),
            Bn::Hypot => ops::hypot(a, b),
        }
    }

    fn call_into(
        self,
        a: impl cuprum::kernel::IntoOperand,
        b: impl cuprum::kernel::IntoOperand,
        out: &Array,
    ) -> cuprum::Result<()> {
        match self {
            Bn::FloorDiv => ops::floor_divide_into(a, b, out),
            Bn::Fmod => ops::fmod_into(a, b, out),
            Bn::LogicalAnd => ops::logical_and_into(a, b, out),
            Bn::LogicalOr => ops::logical_or_into(a, b, out),
            Bn::LogicalXor => ops::logical_xor_into(a, b, out),
            Bn::BitAnd => ops::bitwise_and_into(a, b, out),
            Bn::BitOr => ops::bitwise_or_into(a, b, out),
            Bn::BitXor => ops::bitwise_xor_into(a, b, out),
            Bn::LeftShift => ops::left_shift_into(a, b, out),
            Bn::RightShift => ops::right_shift_into(a, b, out),
            Bn::Arctan2 => ops::arctan2_into(a, b, out),
            Bn::Hypot => ops::hypot_into(a, b, out),
        }
    }
}

// =========================================================================================
// NumPy's dtypes (the test's own table, from numpy/_core/code_generators/generate_umath.py)
// =========================================================================================

/// The float type NumPy's float loops pick for `d` (`e f d`; bfloat16 and complex keep
/// their own).
fn fl(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 => DType::F32,
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => DType::F64,
        other => other,
    }
}

fn real_of(d: DType) -> DType {
    match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        other => other,
    }
}

fn is_float(d: DType) -> bool {
    d.kind() == DTypeKind::Float
}

fn is_complex(d: DType) -> bool {
    d.kind() == DTypeKind::Complex
}

fn is_bool(d: DType) -> bool {
    d == DType::Bool
}

/// (compute, result) of a unary operation on `d`, or `None` where NumPy refuses it.
fn un_types(op: U, d: DType) -> Option<(DType, DType)> {
    let same = Some((d, d));
    match op {
        U::Floor | U::Ceil | U::Trunc if is_complex(d) => None,
        U::Round if is_bool(d) => Some((DType::F16, DType::F16)),
        U::Floor | U::Ceil | U::Trunc | U::Round => same,
        U::Rint => Some((fl(d), fl(d))),
        U::IsNan | U::IsInf | U::IsFinite | U::LogicalNot => Some((d, DType::Bool)),
        U::Signbit if is_complex(d) => None,
        U::Signbit => Some((fl(d), DType::Bool)),
        U::Invert if is_float(d) || is_complex(d) => None,
        U::Invert => same,
        U::Cbrt if is_complex(d) => None,
        U::Sign if is_bool(d) => None,
        U::Square | U::Reciprocal | U::Conj if is_bool(d) => Some((DType::I8, DType::I8)),
        U::Sign | U::Square | U::Reciprocal | U::Conj => same,
        U::Real | U::Imag => Some((d, real_of(d))),
        U::Angle if is_complex(d) => Some((d, real_of(d))),
        // arctan2(0, x) with a weak Python int 0: bools promote to int64.
        U::Angle if is_bool(d) => Some((DType::F64, DType::F64)),
        _ => Some((fl(d), fl(d))),
    }
}

/// (compute, result) of a binary operation on operands promoted to `c`.
fn bin_types(op: Bn, c: DType) -> Option<(DType, DType)> {
    match op {
        Bn::FloorDiv | Bn::Fmod if is_complex(c) => None,
        Bn::FloorDiv | Bn::Fmod | Bn::LeftShift | Bn::RightShift if is_bool(c) => {
            Some((DType::I8, DType::I8))
        }
        Bn::FloorDiv | Bn::Fmod => Some((c, c)),
        Bn::LogicalAnd | Bn::LogicalOr | Bn::LogicalXor => Some((c, DType::Bool)),
        Bn::BitAnd | Bn::BitOr | Bn::BitXor | Bn::LeftShift | Bn::RightShift
            if is_float(c) || is_complex(c) =>
        {
            None
        }
        Bn::BitAnd | Bn::BitOr | Bn::BitXor | Bn::LeftShift | Bn::RightShift => Some((c, c)),
        Bn::Arctan2 | Bn::Hypot if is_complex(c) => None,
        Bn::Arctan2 | Bn::Hypot => Some((fl(c), fl(c))),
    }
}

// =========================================================================================
// Host references (values already converted to the compute dtype `t`)
// =========================================================================================

fn cplx(z: Complex<f64>, t: DType) -> V {
    C(round_float(z.re, t), round_float(z.im, t))
}

/// NumPy's `floor_divide` of floats (npy_floor_divide / npy_divmod).
fn py_floor_div(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut fl = div.floor();
        if div - fl > 0.5 {
            fl += 1.0;
        }
        fl
    } else {
        0f64.copysign(a / b)
    }
}

fn ref_un(op: U, x: V, t: DType, out: DType) -> V {
    let f1 = |f: fn(f64) -> f64, g: fn(Complex<f64>) -> Complex<f64>| match x {
        F(v) => F(round_float(f(v), t)),
        C(re, im) => cplx(g(Complex::new(re, im)), t),
        other => panic!("{op:?} of {other:?}"),
    };
    match op {
        U::Floor => match x {
            F(v) => F(v.floor()),
            other => other,
        },
        U::Ceil => match x {
            F(v) => F(v.ceil()),
            other => other,
        },
        U::Trunc => match x {
            F(v) => F(v.trunc()),
            other => other,
        },
        U::Rint | U::Round => match x {
            F(v) => F(v.round_ties_even()),
            C(re, im) => C(re.round_ties_even(), im.round_ties_even()),
            other => other,
        },
        U::IsNan => B(match x {
            F(v) => v.is_nan(),
            C(re, im) => re.is_nan() || im.is_nan(),
            _ => false,
        }),
        U::IsInf => B(match x {
            F(v) => v.is_infinite(),
            C(re, im) => re.is_infinite() || im.is_infinite(),
            _ => false,
        }),
        U::IsFinite => B(match x {
            F(v) => v.is_finite(),
            C(re, im) => re.is_finite() && im.is_finite(),
            _ => true,
        }),
        U::Signbit => B(as_f64(x).is_sign_negative()),
        U::LogicalNot => B(!truthy(x)),
        U::Invert => match x {
            B(b) => B(!b),
            I(i) => I(wrap(-i - 1, t)),
            other => panic!("invert of {other:?}"),
        },
        U::Log2 => f1(f64::log2, Complex::log2),
        U::Log10 => f1(f64::log10, Complex::log10),
        U::Log1p => f1(f64::ln_1p, |z| (z + 1.0).ln()),
        U::Expm1 => f1(f64::exp_m1, |z| z.exp() - 1.0),
        U::Exp2 => f1(f64::exp2, Complex::exp2),
        U::Arcsin => f1(f64::asin, Complex::asin),
        U::Arccos => f1(f64::acos, Complex::acos),
        U::Arctan => f1(f64::atan, Complex::atan),
        U::Sinh => f1(f64::sinh, Complex::sinh),
        U::Cosh => f1(f64::cosh, Complex::cosh),
        U::Arcsinh => f1(f64::asinh, Complex::asinh),
        U::Arccosh => f1(f64::acosh, Complex::acosh),
        U::Arctanh => f1(f64::atanh, Complex::atanh),
        U::Cbrt => f1(f64::cbrt, |z| z),
        U::Sign => match x {
            I(i) => I(i.signum()),
            F(v) => F(if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else if v == 0.0 {
                0.0
            } else {
                v
            }),
            C(re, im) => {
                let a = re.hypot(im);
                if a == 0.0 {
                    C(0.0, 0.0)
                } else {
                    cplx(Complex::new(re / a, im / a), t)
                }
            }
            other => panic!("sign of {other:?}"),
        },
        U::Square => match x {
            I(i) => I(wrap(i * i, t)),
            F(v) => F(round_float(v * v, t)),
            C(re, im) => cplx(Complex::new(re, im) * Complex::new(re, im), t),
            other => panic!("square of {other:?}"),
        },
        U::Reciprocal => match x {
            I(i) => I(if i == 1 || i == -1 { i } else { 0 }),
            F(v) => F(round_float(1.0 / v, t)),
            C(re, im) => cplx(Complex::new(1.0, 0.0) / Complex::new(re, im), t),
            other => panic!("reciprocal of {other:?}"),
        },
        U::Conj => match x {
            C(re, im) => C(re, -im),
            other => other,
        },
        U::Real => match x {
            C(re, _) => F(re),
            other => other,
        },
        U::Imag => match x {
            C(_, im) => F(im),
            B(_) => B(false),
            I(_) => I(0),
            F(_) => F(0.0),
        },
        U::Angle => match x {
            C(re, im) => F(round_float(im.atan2(re), out)),
            F(v) => F(round_float(0f64.atan2(v), t)),
            other => panic!("angle of {other:?}"),
        },
    }
}

fn ref_bin(op: Bn, x: V, y: V, t: DType) -> V {
    let bits = 8 * t.itemsize() as i128;
    match op {
        Bn::LogicalAnd => return B(truthy(x) && truthy(y)),
        Bn::LogicalOr => return B(truthy(x) || truthy(y)),
        Bn::LogicalXor => return B(truthy(x) != truthy(y)),
        _ => {}
    }
    match (x, y) {
        (B(p), B(q)) => B(match op {
            Bn::BitAnd => p && q,
            Bn::BitOr => p || q,
            Bn::BitXor => p != q,
            _ => panic!("{op:?} on bools"),
        }),
        (I(p), I(q)) => I(match op {
            Bn::FloorDiv => wrap(int_floor_div(p, q), t),
            Bn::Fmod if q == 0 => 0,
            Bn::Fmod => p % q,
            Bn::BitAnd => wrap(p & q, t),
            Bn::BitOr => wrap(p | q, t),
            Bn::BitXor => wrap(p ^ q, t),
            Bn::LeftShift if q < 0 || q >= bits => 0,
            Bn::LeftShift => wrap(p.wrapping_shl(q as u32), t),
            Bn::RightShift if q < 0 || q >= bits => {
                if p < 0 {
                    -1
                } else {
                    0
                }
            }
            Bn::RightShift => p >> q,
            _ => panic!("{op:?} on integers"),
        }),
        (F(p), F(q)) => F(round_float(
            match op {
                Bn::FloorDiv => py_floor_div(p, q),
                Bn::Fmod => p % q,
                Bn::Arctan2 => p.atan2(q),
                Bn::Hypot => p.hypot(q),
                _ => panic!("{op:?} on floats"),
            },
            t,
        )),
        _ => panic!("{op:?} on {x:?}, {y:?}"),
    }
}

/// Whether `got` matches `want` for an operation's result of dtype `out`: exactly for exact
/// results, within `ulps` of the result's magnitude (at least 0.01) for floats.
#[track_caller]
fn check_vals(got: &[V], want: &[V], out: DType, ulps: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (re, im) = as_c(w);
        let mag = if re.is_finite() && im.is_finite() {
            re.hypot(im).max(0.01)
        } else {
            1.0
        };
        let tol = ulps * eps(out) * mag;
        assert!(
            close_v(g, w, tol),
            "{what}: element {k}: got {g:?}, want {w:?} (tolerance {tol:e})"
        );
    }
}

// =========================================================================================
// Random inputs
// =========================================================================================

fn ulps_for_un(op: U, out: DType) -> f64 {
    match (op.is_transcendental(), is_complex(out)) {
        (true, true) => 512.0,
        (true, false) => 8.0,
        (false, true) => 8.0,
        (false, false) => 2.0,
    }
}

// =========================================================================================
// 1. Every operation for every dtype
// =========================================================================================

#[test]
fn unary_ufuncs_for_every_dtype_follow_numpy() {
    require_gpu!();
    let mut rng = Rng::new(16);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        let xs = small_vals(&mut rng, d, 37);
        let a = dev(&xs, &[37], d);
        for (j, op) in UNS.into_iter().enumerate() {
            let what = format!("{op:?} of {d}");
            let Some((t, out)) = un_types(op, d) else {
                let e = expect_err(op.call(&a), ErrorKind::DType);
                assert!(e.to_string().contains(d.name()), "{what}: {e}");
                continue;
            };
            // each cell is a kernel: on the host device the diagonals
            if !common::sweep_cell(i, j) {
                continue;
            }
            let r = op.call(&a).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.dtype(), out, "{what}: result dtype");
            assert_eq!(r.shape(), &[37], "{what}");
            let want: Vec<V> = xs
                .iter()
                .map(|&x| ref_un(op, cast_v(x, t), t, out))
                .collect();
            check_vals(&host(&r), &want, out, ulps_for_un(op, out), &what);
            // The method is the same operation.
            let m = op.method(&a).unwrap();
            assert_eq!(
                format!("{:?}", host(&m)),
                format!("{:?}", host(&r)),
                "{what}: method"
            );
        }
    }
}

#[test]
fn binary_ufuncs_for_every_dtype_follow_numpy() {
    require_gpu!();
    let mut rng = Rng::new(17);
    for (i, d) in common::dtypes(DType::ALL).into_iter().enumerate() {
        let xs = small_vals(&mut rng, d, 41);
        let ys = small_vals(&mut rng, d, 41);
        let (a, b) = (dev(&xs, &[41], d), dev(&ys, &[41], d));
        for (j, op) in BNS.into_iter().enumerate() {
            let what = format!("{op:?} of {d}");
            let Some((t, out)) = bin_types(op, d) else {
                let e = expect_err(op.call(&a, &b), ErrorKind::DType);
                assert!(e.to_string().contains(d.name()), "{what}: {e}");
                continue;
            };
            // each cell is a kernel: on the host device the diagonals
            if !common::sweep_cell(i, j) {
                continue;
            }
            let r = op.call(&a, &b).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.dtype(), out, "{what}: result dtype");
            let want: Vec<V> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| ref_bin(op, cast_v(x, t), cast_v(y, t), t))
                .collect();
            check_vals(&host(&r), &want, out, 4.0, &what);
        }
    }
}

#[test]
fn binary_ufuncs_promote_mixed_dtypes_and_weak_scalars() {
    require_gpu!();
    let mut rng = Rng::new(18);
    let pairs = [
        (DType::I8, DType::U8),
        (DType::U16, DType::I16),
        (DType::I32, DType::F32),
        (DType::Bool, DType::I16),
        (DType::U16, DType::I64),
        (DType::F16, DType::F64),
    ];
    for (da, db) in pairs {
        let xs = small_vals(&mut rng, da, 9);
        let ys = small_vals(&mut rng, db, 9);
        let (a, b) = (dev(&xs, &[9], da), dev(&ys, &[9], db));
        for op in BNS {
            let c = match op {
                // float loops only: NumPy takes the first loop both operands cast to
                // safely, each operand's own smallest float (int8 and uint8: float16)
                Bn::Arctan2 | Bn::Hypot => ops::promote_types(fl(da), fl(db)),
                _ => ops::promote_types(da, db),
            };
            let what = format!("{op:?} of {da} and {db}");
            let Some((t, out)) = bin_types(op, c) else {
                expect_err(op.call(&a, &b), ErrorKind::DType);
                continue;
            };
            let r = op.call(&a, &b).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.dtype(), out, "{what}");
            let want: Vec<V> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| ref_bin(op, cast_v(x, t), cast_v(y, t), t))
                .collect();
            check_vals(&host(&r), &want, out, 4.0, &what);
        }
    }
    // Weak Rust scalars: the array's dtype decides.
    let a = dev(&[I(7), I(-7), I(9)], &[3], DType::I16);
    let r = ops::floor_divide(&a, 2i64).unwrap();
    assert_eq!(r.dtype(), DType::I16);
    assert_eq!(host(&r), vec![I(3), I(-4), I(4)]);
    let r = ops::floor_divide(&a, 2.0f64).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    assert_eq!(host(&r), vec![F(3.0), F(-4.0), F(4.0)]);
    let u = dev(&[I(200), I(3)], &[2], DType::U8);
    assert_eq!(ops::logical_and(&u, 0.5).unwrap().dtype(), DType::Bool);
    // -3 does not fit uint8 (NumPy 2 raises too)
    expect_err(ops::logical_and(&u, -3i32), ErrorKind::DType);
    expect_err(ops::bitwise_and(&u, 300i32), ErrorKind::DType);
    let r = ops::left_shift(&u, 1i32).unwrap();
    assert_eq!((r.dtype(), host(&r)), (DType::U8, vec![I(144), I(6)]));
    // an int8 operand and a scalar on the left
    let s = ops::right_shift(64i32, dev(&[I(1), I(3)], &[2], DType::I8)).unwrap();
    assert_eq!((s.dtype(), host(&s)), (DType::I8, vec![I(32), I(8)]));
}

// =========================================================================================
// 2. Special values
// =========================================================================================

const SPECIALS: [f64; 13] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    3.0,
    -7.0,
    1.0,
];

#[test]
fn special_float_values_follow_numpy() {
    require_gpu!();
    // On the host device the cells of `unary_ufuncs_for_every_dtype_follow_numpy`'s
    // diagonals (the same kernels), of the float dtypes it sweeps.
    let swept = common::dtypes(DType::ALL);
    for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let Some(i) = swept.iter().position(|&s| s == d) else {
            continue;
        };
        let xs: Vec<V> = SPECIALS.iter().map(|&v| cast_v(F(v), d)).collect();
        let a = dev(&xs, &[xs.len()], d);
        for (j, op) in UNS.into_iter().enumerate() {
            let Some((t, out)) = un_types(op, d) else {
                continue;
            };
            if !common::sweep_cell(i, j) {
                continue;
            }
            let what = format!("{op:?} of {d} specials");
            let r = op.call(&a).unwrap_or_else(|e| panic!("{what}: {e}"));
            let want: Vec<V> = xs
                .iter()
                .map(|&x| ref_un(op, cast_v(x, t), t, out))
                .collect();
            check_vals(&host(&r), &want, out, ulps_for_un(op, out), &what);
        }
        // Every pair of specials through the binary float operations.
        let (mut px, mut py) = (Vec::new(), Vec::new());
        for &p in &xs {
            for &q in &xs {
                px.push(p);
                py.push(q);
            }
        }
        let n = px.len();
        let (a, b) = (dev(&px, &[n], d), dev(&py, &[n], d));
        for op in [
            Bn::FloorDiv,
            Bn::Fmod,
            Bn::Arctan2,
            Bn::Hypot,
            Bn::LogicalXor,
        ] {
            let (t, out) = bin_types(op, d).unwrap();
            let what = format!("{op:?} of {d} specials");
            let r = op.call(&a, &b).unwrap_or_else(|e| panic!("{what}: {e}"));
            let want: Vec<V> = px
                .iter()
                .zip(&py)
                .map(|(&x, &y)| ref_bin(op, x, y, t))
                .collect();
            check_vals(&host(&r), &want, out, 4.0, &what);
        }
    }
    // NumPy's documented examples.
    let a = dev(&[F(-0.0), F(0.0), F(f64::NAN), F(-3.5)], &[4], DType::F64);
    assert_eq!(
        host(&ops::signbit(&a).unwrap()),
        vec![B(true), B(false), B(false), B(true)]
    );
    let s = host(&ops::sign(&a).unwrap());
    assert_eq!((s[0], s[1], s[3]), (F(0.0), F(0.0), F(-1.0)));
    assert!(matches!(s[2], F(v) if v.is_nan()));
    let ang = host(&ops::angle(&a).unwrap());
    assert_eq!((ang[0], ang[1]), (F(std::f64::consts::PI), F(0.0)));
    let fd =
        host(&ops::floor_divide(dev(&[F(1.0), F(-1.0), F(0.0)], &[3], DType::F64), 0.0).unwrap());
    assert_eq!((fd[0], fd[1]), (F(f64::INFINITY), F(f64::NEG_INFINITY)));
    assert!(matches!(fd[2], F(v) if v.is_nan()));
}

#[test]
fn complex_special_values() {
    require_gpu!();
    for d in [DType::C64, DType::C128] {
        let xs: Vec<V> = [
            C(f64::NAN, 1.0),
            C(1.0, f64::INFINITY),
            C(0.0, 0.0),
            C(3.0, -4.0),
            C(-2.5, 0.5),
        ]
        .iter()
        .map(|&v| cast_v(v, d))
        .collect();
        let a = dev(&xs, &[5], d);
        let flags = |op: U| host(&op.call(&a).unwrap());
        assert_eq!(
            flags(U::IsNan),
            vec![B(true), B(false), B(false), B(false), B(false)]
        );
        assert_eq!(
            flags(U::IsInf),
            vec![B(false), B(true), B(false), B(false), B(false)]
        );
        assert_eq!(
            flags(U::IsFinite),
            vec![B(false), B(false), B(true), B(true), B(true)]
        );
        let s = host(&ops::sign(&a).unwrap());
        assert_eq!(s[2], C(0.0, 0.0));
        assert!(close_v(s[3], C(0.6, -0.8), 1e-6), "{:?}", s[3]);
        let r = host(&ops::rint(&a).unwrap());
        assert_eq!(r[4], C(-2.0, 0.0));
        let re = ops::real(&a).unwrap();
        assert_eq!(re.dtype(), real_of(d));
        assert_eq!(host(&re)[3], F(3.0));
        assert_eq!(host(&ops::imag(&a).unwrap())[3], F(-4.0));
        assert_eq!(host(&ops::conj(&a).unwrap())[3], C(3.0, 4.0));
    }
}

// =========================================================================================
// 3. Integers: division by zero, MIN // -1, 64-bit values, shifts
// =========================================================================================

/// Dividends and divisors covering zero, ±1, the extremes and (for 64-bit types) values
/// beyond 32 bits.
fn int_specials(d: DType) -> Vec<i128> {
    let (lo, hi) = int_range(d);
    let mut v = vec![lo, lo + 1, -7, -2, -1, 0, 1, 2, 7, hi - 1, hi];
    if d.itemsize() == 8 {
        v.extend([
            (1i128 << 40) + 3,
            -(1i128 << 40) - 5,
            (1i128 << 33) - 1,
            3 << 31,
        ]);
    }
    v.into_iter().filter(|x| (lo..=hi).contains(x)).collect()
}

#[test]
fn integer_division_by_zero_and_min_by_minus_one_follow_numpy() {
    require_gpu!();
    for d in common::dtypes(DType::ALL) {
        if !d.is_integer() {
            continue;
        }
        let vals = int_specials(d);
        let (mut px, mut py) = (Vec::new(), Vec::new());
        for &p in &vals {
            for &q in &vals {
                px.push(I(p));
                py.push(I(q));
            }
        }
        let n = px.len();
        let (a, b) = (dev(&px, &[n], d), dev(&py, &[n], d));
        for op in [Bn::FloorDiv, Bn::Fmod] {
            let r = op.call(&a, &b).unwrap();
            let want: Vec<V> = px
                .iter()
                .zip(&py)
                .map(|(&x, &y)| ref_bin(op, x, y, d))
                .collect();
            check_vals(&host(&r), &want, d, 0.0, &format!("{op:?} of {d}"));
        }
        let r = ops::remainder(&a, &b).unwrap();
        let want: Vec<V> = px
            .iter()
            .zip(&py)
            .map(|(&x, &y)| match (x, y) {
                (I(p), I(q)) => I(int_rem(p, q)),
                _ => unreachable!(),
            })
            .collect();
        check_vals(&host(&r), &want, d, 0.0, &format!("remainder of {d}"));
        // `//` by zero is 0 and `MIN // -1` wraps to MIN, as in NumPy.
        let (lo, _) = int_range(d);
        let z =
            ops::floor_divide(dev(&[I(lo), I(5)], &[2], d), dev(&[I(0), I(0)], &[2], d)).unwrap();
        assert_eq!(host(&z), vec![I(0), I(0)], "{d}");
        if d.kind() == DTypeKind::SignedInt {
            let m = ops::floor_divide(dev(&[I(lo)], &[1], d), -1i32).unwrap();
            assert_eq!(host(&m), vec![I(lo)], "{d}");
        }
    }
}

#[test]
fn shifts_follow_numpy_for_every_integer_dtype() {
    require_gpu!();
    for d in common::dtypes(DType::ALL) {
        if !d.is_integer() {
            continue;
        }
        let (lo, hi) = int_range(d);
        let bits = 8 * d.itemsize() as i128;
        let xs: Vec<i128> = [lo, -1, 1, 5, hi]
            .into_iter()
            .filter(|x| (lo..=hi).contains(x))
            .collect();
        let amounts: Vec<i128> = [-1, 0, 1, bits - 1, bits, bits + 1, 100]
            .into_iter()
            .filter(|x| (lo..=hi).contains(x))
            .collect();
        let (mut px, mut py) = (Vec::new(), Vec::new());
        for &p in &xs {
            for &q in &amounts {
                px.push(I(p));
                py.push(I(q));
            }
        }
        let n = px.len();
        let (a, b) = (dev(&px, &[n], d), dev(&py, &[n], d));
        for op in [Bn::LeftShift, Bn::RightShift] {
            let r = op.call(&a, &b).unwrap();
            let want: Vec<V> = px
                .iter()
                .zip(&py)
                .map(|(&x, &y)| ref_bin(op, x, y, d))
                .collect();
            check_vals(&host(&r), &want, d, 0.0, &format!("{op:?} of {d}"));
        }
    }
}

// =========================================================================================
// 4. Views, broadcasting, empty and 0-d operands
// =========================================================================================

#[test]
fn ufuncs_on_views_broadcast_empty_and_zero_dimensional_operands() {
    require_gpu!();
    let mut rng = Rng::new(19);
    for (k, d) in [DType::I32, DType::F32, DType::U8, DType::F64]
        .into_iter()
        .enumerate()
    {
        let shape = [3usize, 5];
        let xs = small_vals(&mut rng, d, 15);
        let ys = small_vals(&mut rng, d, 5);
        for kind in 0..4 {
            let a = view_of(&xs, &shape, d, kind + k);
            let row = view_of(&ys, &[5], d, kind);
            for op in [Bn::FloorDiv, Bn::Fmod, Bn::BitXor, Bn::Hypot, Bn::LogicalOr] {
                let Some((t, out)) = bin_types(op, d) else {
                    continue;
                };
                let what = format!("{op:?} of {d} views kind {kind}");
                let r = op.call(&a, &row).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(r.shape(), &shape, "{what}");
                let want: Vec<V> = (0..15)
                    .map(|i| ref_bin(op, cast_v(xs[i], t), cast_v(ys[i % 5], t), t))
                    .collect();
                check_vals(&host(&r), &want, out, 4.0, &what);
            }
            for op in [U::Floor, U::Sign, U::Square, U::Angle, U::IsFinite] {
                let (t, out) = un_types(op, d).unwrap();
                let r = op.call(&a).unwrap();
                let want: Vec<V> = xs
                    .iter()
                    .map(|&x| ref_un(op, cast_v(x, t), t, out))
                    .collect();
                check_vals(
                    &host(&r),
                    &want,
                    out,
                    ulps_for_un(op, out),
                    &format!("{op:?}"),
                );
            }
        }
    }
    // Empty and 0-d operands keep NumPy's shapes.
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    assert_eq!(ops::floor(&e).unwrap().shape(), &[0, 3]);
    assert_eq!(ops::hypot(&e, 1.0).unwrap().shape(), &[0, 3]);
    let z = Array::scalar(-7i64).unwrap();
    let q = ops::floor_divide(&z, 2i64).unwrap();
    assert_eq!((q.shape().len(), host(&q)), (0, vec![I(-4)]));
    let b = dev(&[I(1), I(2)], &[2], DType::I64);
    assert_eq!(
        host(&ops::left_shift(&z, &b).unwrap()),
        vec![I(-14), I(-28)]
    );
}

// =========================================================================================
// 5. Operators
// =========================================================================================

#[test]
fn bit_operators_on_arrays_and_scalars() {
    require_gpu!();
    let a = dev(&[I(12), I(10), I(-1)], &[3], DType::I16);
    let b = dev(&[I(6), I(3), I(5)], &[3], DType::I16);
    assert_eq!(host(&(&a & &b).unwrap()), vec![I(4), I(2), I(5)]);
    assert_eq!(host(&(&a | &b).unwrap()), vec![I(14), I(11), I(-1)]);
    assert_eq!(host(&(&a ^ &b).unwrap()), vec![I(10), I(9), I(-6)]);
    assert_eq!(host(&(&a << 2i16).unwrap()), vec![I(48), I(40), I(-4)]);
    assert_eq!(host(&(&a >> 1i16).unwrap()), vec![I(6), I(5), I(-1)]);
    assert_eq!(host(&(1i16 << &b).unwrap()), vec![I(64), I(8), I(32)]);
    assert_eq!(host(&(!&a).unwrap()), vec![I(-13), I(-11), I(0)]);
    assert_eq!(host(&(a.clone() & 8i16).unwrap()), vec![I(8), I(8), I(8)]);
    let m = dev(&[B(true), B(false)], &[2], DType::Bool);
    assert_eq!(host(&(!m.clone()).unwrap()), vec![B(false), B(true)]);
    assert_eq!(host(&(&m ^ true).unwrap()), vec![B(false), B(true)]);
    let f = dev(&[F(1.0)], &[1], DType::F32);
    assert_err(
        &f & &f,
        ErrorKind::DType,
        "bitwise_and is only defined for integer and bool operands (as in NumPy), got float32",
    );
    assert_err(
        !&f,
        ErrorKind::DType,
        "invert is only defined for integer and bool operands",
    );
    assert_err(
        &f << 1i32,
        ErrorKind::DType,
        "left_shift is only defined for integer operands",
    );
}

// =========================================================================================
// 6. `_into`: broadcasting, casting, aliasing
// =========================================================================================

#[test]
fn into_forms_write_the_result_of_the_plain_forms() {
    require_gpu!();
    let mut rng = Rng::new(20);
    for (i, d) in [
        DType::I32,
        DType::U8,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::Bool,
    ]
    .into_iter()
    .enumerate()
    {
        let xs = small_vals(&mut rng, d, 11);
        let ys = small_vals(&mut rng, d, 11);
        let (a, b) = (dev(&xs, &[11], d), dev(&ys, &[11], d));
        for (j, op) in UNS.into_iter().enumerate() {
            if !common::sweep_cell(i, j) {
                continue;
            }
            let Ok(want) = op.call(&a) else {
                continue;
            };
            let out = Array::zeros(&[11], want.dtype()).unwrap();
            op.call_into(&a, &out).unwrap();
            assert_eq!(
                format!("{:?}", host(&out)),
                format!("{:?}", host(&want)),
                "{op:?} into, {d}"
            );
        }
        for (j, op) in BNS.into_iter().enumerate() {
            if !common::sweep_cell(i, UNS.len() + j) {
                continue;
            }
            let Ok(want) = op.call(&a, &b) else {
                continue;
            };
            let out = Array::zeros(&[11], want.dtype()).unwrap();
            op.call_into(&a, &b, &out).unwrap();
            assert_eq!(
                format!("{:?}", host(&out)),
                format!("{:?}", host(&want)),
                "{op:?} into, {d}"
            );
        }
    }
    // The existing operations have `_into` forms too.
    let a = dev(&[F(1.5), F(-2.0)], &[2], DType::F64);
    let out = Array::zeros(&[2], DType::F64).unwrap();
    ops::add_into(&a, 1.0, &out).unwrap();
    assert_eq!(host(&out), vec![F(2.5), F(-1.0)]);
    ops::maximum_into(&a, 0.0, &out).unwrap();
    assert_eq!(host(&out), vec![F(1.5), F(0.0)]);
    ops::negative_into(&a, &out).unwrap();
    assert_eq!(host(&out), vec![F(-1.5), F(2.0)]);
    ops::clip_into(&a, -1.0, 1.0, &out).unwrap();
    assert_eq!(host(&out), vec![F(1.0), F(-1.0)]);
    let cmp = Array::zeros(&[2], DType::Bool).unwrap();
    ops::less_into(&a, 0.0, &cmp).unwrap();
    assert_eq!(host(&cmp), vec![B(false), B(true)]);
}

#[test]
fn into_broadcasts_operands_to_the_output_shape() {
    require_gpu!();
    let col = dev(&[I(10), I(20), I(30)], &[3, 1], DType::I64);
    let row = dev(&[I(3), I(4)], &[2], DType::I64);
    let out = Array::zeros(&[3, 2], DType::I64).unwrap();
    ops::floor_divide_into(&col, &row, &out).unwrap();
    assert_eq!(
        host(&out),
        [3, 2, 6, 5, 10, 7]
            .iter()
            .map(|&v| I(v))
            .collect::<Vec<_>>()
    );
    // The output may be larger than the operands' broadcast shape.
    let big = Array::zeros(&[2, 3, 2], DType::I64).unwrap();
    ops::fmod_into(&col, &row, &big).unwrap();
    let one = [1, 2, 2, 0, 0, 2].map(I);
    let want: Vec<V> = one.iter().chain(one.iter()).copied().collect();
    assert_eq!(host(&big), want);
    // A scalar operand fills the output.
    let f = Array::zeros(&[2, 2], DType::F32).unwrap();
    ops::hypot_into(dev(&[F(3.0)], &[1], DType::F32), 4.0f32, &f).unwrap();
    assert_eq!(host(&f), vec![F(5.0); 4]);
    // An output that the operands do not broadcast to is NumPy's error.
    let small = Array::zeros(&[3], DType::I64).unwrap();
    assert_err(
        ops::floor_divide_into(&col, &row, &small),
        ErrorKind::Shape,
        "non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (3, 2)",
    );
    let wrong = Array::zeros(&[3, 3], DType::I64).unwrap();
    expect_err(ops::floor_divide_into(&col, &row, &wrong), ErrorKind::Shape);
    assert_err(
        ops::sign_into(&col, &small),
        ErrorKind::Shape,
        "non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (3, 3)",
    );
    // A broadcast view cannot be written.
    let bview = Array::zeros(&[2], DType::I64)
        .unwrap()
        .broadcast_to(&[3, 2])
        .unwrap();
    assert_err(
        ops::floor_divide_into(&col, &row, &bview),
        ErrorKind::InvalidArgument,
        "assignment destination is read-only",
    );
}

#[test]
fn into_casts_with_numpys_same_kind_rule() {
    require_gpu!();
    let a = dev(&[F(1.25), F(-2.5)], &[2], DType::F64);
    // float64 result into float32 and float16 outputs: same kind.
    for d in [DType::F32, DType::F16] {
        let out = Array::zeros(&[2], d).unwrap();
        ops::floor_divide_into(&a, 0.5, &out).unwrap();
        assert_eq!(host(&out), vec![F(2.0), F(-5.0)], "{d}");
    }
    // int8 result into int64 (safe), uint8 into int8 (same kind: u < i).
    let i8a = dev(&[I(-3), I(4)], &[2], DType::I8);
    let i64o = Array::zeros(&[2], DType::I64).unwrap();
    ops::left_shift_into(&i8a, 1i8, &i64o).unwrap();
    assert_eq!(host(&i64o), vec![I(-6), I(8)]);
    let u8a = dev(&[I(200), I(3)], &[2], DType::U8);
    let i8o = Array::zeros(&[2], DType::I8).unwrap();
    ops::bitwise_or_into(&u8a, 1u8, &i8o).unwrap();
    assert_eq!(host(&i8o), vec![I(-55), I(3)]);
    // Complex into float, float into int, int into uint, and int into bool are refused.
    let z = dev(&[C(1.0, 2.0)], &[1], DType::C128);
    let f = Array::zeros(&[1], DType::F64).unwrap();
    assert_err(
        ops::sign_into(&z, &f),
        ErrorKind::DType,
        "cannot cast ufunc 'sign' output from complex128 to float64 with casting rule 'same_kind'",
    );
    let i = Array::zeros(&[2], DType::I32).unwrap();
    assert_err(
        ops::floor_divide_into(&a, 2.0, &i),
        ErrorKind::DType,
        "cannot cast ufunc 'floor_divide' output from float64 to int32 with casting rule 'same_kind'",
    );
    let u = Array::zeros(&[2], DType::U8).unwrap();
    assert_err(
        ops::floor_divide_into(&i8a, 2i8, &u),
        ErrorKind::DType,
        "from int8 to uint8",
    );
    let bo = Array::zeros(&[2], DType::Bool).unwrap();
    expect_err(ops::sign_into(&i8a, &bo), ErrorKind::DType);
    // A refused cast leaves the output untouched.
    assert_eq!(host(&i), vec![I(0), I(0)]);
}

#[test]
fn into_outputs_may_alias_or_overlap_inputs() {
    require_gpu!();
    let n = 1000usize;
    let vals: Vec<V> = (0..n).map(|i| I(i as i128 * 7 - 3000)).collect();
    let orig: Vec<i128> = (0..n).map(|i| i as i128 * 7 - 3000).collect();
    let ints = |v: &[V]| -> Vec<i128> {
        v.iter()
            .map(|x| match x {
                I(i) => *i,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    // The same view: in place.
    let a = dev(&vals, &[n], DType::I64);
    ops::floor_divide_into(&a, 3i64, &a).unwrap();
    let want: Vec<i128> = orig.iter().map(|&x| int_floor_div(x, 3)).collect();
    assert_eq!(ints(&host(&a)), want);
    // `a += a` through `_into` with both operands the output.
    let a = dev(&vals, &[n], DType::I64);
    ops::add_into(&a, &a, &a).unwrap();
    assert_eq!(
        ints(&host(&a)),
        orig.iter().map(|x| 2 * x).collect::<Vec<_>>()
    );
    // The reversed view of the output as an operand: computed as if copied first.
    let a = dev(&vals, &[n], DType::I64);
    let rev = a.slice(&[SliceArg::from(..).step(-1)]).unwrap();
    ops::subtract_into(&a, &rev, &a).unwrap();
    let want: Vec<i128> = (0..n).map(|i| orig[i] - orig[n - 1 - i]).collect();
    assert_eq!(ints(&host(&a)), want);
    // A shifted overlapping view (a[1:] = a[:-1] * 2).
    let a = dev(&vals, &[n], DType::I64);
    let head = a.slice(&[(0..n as isize - 1).into()]).unwrap();
    let tail = a.slice(&[(1..n as isize).into()]).unwrap();
    ops::multiply_into(&head, 2i64, &tail).unwrap();
    let got = ints(&host(&a));
    assert_eq!(got[0], orig[0]);
    for i in 1..n {
        assert_eq!(got[i], 2 * orig[i - 1], "element {i}");
    }
    // A row broadcast from the output itself (m[:] = m[0] + m).
    let m = dev(&vals[..12], &[3, 4], DType::I64);
    let first = m.slice(&[0isize.into()]).unwrap();
    ops::add_into(&first, &m, &m).unwrap();
    let got = ints(&host(&m));
    for r in 0..3 {
        for c in 0..4 {
            assert_eq!(got[r * 4 + c], orig[c] + orig[r * 4 + c], "({r}, {c})");
        }
    }
    // Unary in place on a transposed view.
    let t = dev(&vals[..12], &[3, 4], DType::I64).t();
    ops::negative_into(&t, &t).unwrap();
    let back = ints(&host(&t.t()));
    assert_eq!(back, orig[..12].iter().map(|x| -x).collect::<Vec<_>>());
}

// =========================================================================================
// 7. In-place methods and the InPlace operators
// =========================================================================================

#[test]
fn inplace_methods_follow_numpys_inplace_operators() {
    require_gpu!();
    let ints = |a: &Array| host(a);
    let a = dev(&[I(-7), I(7), I(8)], &[3], DType::I32);
    a.floor_div_assign(2i32).unwrap();
    assert_eq!(ints(&a), vec![I(-4), I(3), I(4)]);
    a.rem_assign(3i32).unwrap();
    assert_eq!(ints(&a), vec![I(2), I(0), I(1)]);
    a.add_assign(dev(&[I(1), I(2), I(3)], &[3], DType::I32))
        .unwrap();
    assert_eq!(ints(&a), vec![I(3), I(2), I(4)]);
    a.mul_assign(&a).unwrap(); // a *= a
    assert_eq!(ints(&a), vec![I(9), I(4), I(16)]);
    a.sub_assign(1i8).unwrap();
    a.pow_assign(2i32).unwrap();
    assert_eq!(ints(&a), vec![I(64), I(9), I(225)]);
    a.shr_assign(2i32).unwrap();
    a.shl_assign(1i32).unwrap();
    a.bitand_assign(0xfe_i32).unwrap();
    a.bitor_assign(1i32).unwrap();
    a.bitxor_assign(3i32).unwrap();
    // 64 >> 2 << 1 = 32, & 0xfe, | 1, ^ 3: 34; 9: 4, 5, 6; 225: 112, 113, 114
    assert_eq!(ints(&a), vec![I(34), I(6), I(114)]);
    // int32 += 0.5: float64 does not cast to int32 under same_kind; the array is unchanged.
    assert_err(
        a.add_assign(0.5),
        ErrorKind::DType,
        "cannot cast ufunc 'add' output from float64 to int32 with casting rule 'same_kind'",
    );
    assert_err(
        a.div_assign(2i32),
        ErrorKind::DType,
        "cannot cast ufunc 'divide' output from float64 to int32",
    );
    assert_eq!(ints(&a), vec![I(34), I(6), I(114)]);
    // uint8 += an int16 array: int16 does not cast to uint8 (same_kind).
    let u = dev(&[I(1)], &[1], DType::U8);
    assert_err(
        u.add_assign(dev(&[I(1)], &[1], DType::I16)),
        ErrorKind::DType,
        "from int16 to uint8",
    );
    // A weak scalar that does not fit the array's dtype.
    expect_err(u.add_assign(300i32), ErrorKind::DType);
    // float32 -= float64 array: same kind.
    let f = dev(&[F(1.5), F(2.5)], &[2], DType::F32);
    f.sub_assign(dev(&[F(0.25), F(0.5)], &[2], DType::F64))
        .unwrap();
    f.div_assign(2.0).unwrap();
    assert_eq!(host(&f), vec![F(0.625), F(1.0)]);
    // Broadcasting into the array; the array cannot grow.
    let m = dev(&[F(1.0), F(2.0), F(3.0), F(4.0)], &[2, 2], DType::F64);
    m.mul_assign(dev(&[F(10.0), F(100.0)], &[2], DType::F64))
        .unwrap();
    assert_eq!(host(&m), vec![F(10.0), F(200.0), F(30.0), F(400.0)]);
    let row = dev(&[F(1.0), F(2.0)], &[2], DType::F64);
    assert_err(
        row.add_assign(&m),
        ErrorKind::Shape,
        "non-broadcastable output operand with shape (2,) doesn't match the broadcast shape (2, 2)",
    );
    // A bool array: += is logical or.
    let b = dev(&[B(false), B(true)], &[2], DType::Bool);
    b.add_assign(true).unwrap();
    assert_eq!(host(&b), vec![B(true), B(true)]);
}

#[test]
fn inplace_operators_run_in_order_and_keep_the_first_error() {
    require_gpu!();
    let a = dev(&[F(1.0), F(2.0)], &[2], DType::F32);
    let b = dev(&[F(10.0), F(20.0)], &[2], DType::F32);
    a.inplace(|x: &mut InPlace<'_>| {
        *x += &b;
        *x -= 2.0;
        *x *= 3.0f32;
        *x /= 2i32;
        *x %= 7.0;
        assert!(!x.failed());
    })
    .unwrap();
    // ((1 + 10 - 2) * 3 / 2) % 7 = 13.5 % 7 = 6.5; ((2 + 20 - 2) * 3 / 2) % 7 = 30 % 7 = 2
    assert_eq!(host(&a), vec![F(6.5), F(2.0)]);
    let i = dev(&[I(5), I(6)], &[2], DType::I64);
    let r = i.inplace(|x| {
        *x += 1i64;
        *x += 0.5; // same_kind error: kept
        *x += 100i64; // skipped
        assert!(x.failed());
    });
    assert_err(r, ErrorKind::DType, "from float64 to int64");
    assert_eq!(host(&i), vec![I(6), I(7)]);
    // Bit operators and an owned right-hand side.
    i.inplace(|x| {
        *x <<= 2i64;
        *x |= 1i64;
        *x &= 0xffi64;
        *x ^= Array::from_slice(&[1i64, 1], &[2]).unwrap();
        *x >>= 1i64;
    })
    .unwrap();
    assert_eq!(host(&i), vec![I(12), I(14)]);
    assert!(i.inplace(|x| assert_eq!(x.array().shape(), &[2])).is_ok());
}

// =========================================================================================
// 8. Random integers, normals and permutations
// =========================================================================================

/// `v` as integers (bool and integer dtypes).
fn int_values(a: &Array) -> Vec<i128> {
    host(a)
        .into_iter()
        .map(|v| match v {
            B(b) => i128::from(b),
            I(i) => i,
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn randint_is_uniform_in_the_range_for_every_integer_dtype() {
    require_gpu!();
    let mut g = Generator::new(1616).unwrap();
    let n = 200_000usize;
    for d in common::dtypes(DType::ALL) {
        if !(d.is_integer() || d == DType::Bool) {
            continue;
        }
        let (lo, hi) = if d == DType::Bool {
            (0i128, 2i128)
        } else {
            let (min, _) = int_range(d);
            (min.max(-5), min.max(-5) + 10)
        };
        let a = g.randint(lo, hi, &[n], d).unwrap();
        assert_eq!((a.dtype(), a.shape()), (d, &[n][..]), "{d}");
        let v = int_values(&a);
        let buckets = (hi - lo) as usize;
        let mut counts = vec![0usize; buckets];
        for &x in &v {
            assert!((lo..hi).contains(&x), "{d}: {x} outside [{lo}, {hi})");
            counts[(x - lo) as usize] += 1;
        }
        let expect = n as f64 / buckets as f64;
        for (k, &c) in counts.iter().enumerate() {
            assert!(
                (c as f64 - expect).abs() < 0.05 * expect,
                "{d}: value {} drawn {c} times, expected about {expect}",
                lo + k as i128
            );
        }
    }
    // The whole range of int8 and uint8: every value appears.
    for d in [DType::I8, DType::U8] {
        let (min, max) = int_range(d);
        let v = int_values(&g.randint(min, max + 1, &[100_000], d).unwrap());
        let mut seen = vec![false; 256];
        for x in v {
            seen[(x - min) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "{d}: a value never appears");
    }
    // 64-bit ranges: the whole of int64 and uint64 (both halves appear), a wide shifted one.
    let v = int_values(
        &g.randint(i64::MIN, i128::from(i64::MAX) + 1, &[10_000], DType::I64)
            .unwrap(),
    );
    assert!(v.iter().any(|&x| x < 0) && v.iter().any(|&x| x > 0));
    let v = int_values(&g.randint(0, 1i128 << 64, &[10_000], DType::U64).unwrap());
    assert!(v.iter().any(|&x| x >= 1 << 63) && v.iter().any(|&x| x < 1 << 63));
    let (lo, hi) = (-(3i128 << 40), 5i128 << 40);
    let v = int_values(&g.randint(lo, hi, &[10_000], DType::I64).unwrap());
    assert!(v.iter().all(|x| (lo..hi).contains(x)));
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    let mid = (lo + hi) as f64 / 2.0;
    assert!((mean - mid).abs() < 0.05 * (hi - lo) as f64, "mean {mean}");
    // shapes: n-d, 0-d, empty
    assert_eq!(
        g.randint(0, 3, &[2, 3, 4], DType::I32).unwrap().shape(),
        &[2, 3, 4]
    );
    let z = g.randint(7, 8, &[], DType::I16).unwrap();
    assert_eq!((z.ndim(), host(&z)), (0, vec![I(7)]));
    assert_eq!(
        g.randint(0, 3, &[0, 5], DType::U32).unwrap().shape(),
        &[0, 5]
    );
    // the default generator
    let d = random::randint(1, 7, &[1000], DType::U8).unwrap();
    assert!(int_values(&d).iter().all(|x| (1..7).contains(x)));
}

#[test]
fn randint_refuses_what_numpy_refuses() {
    require_gpu!();
    let mut g = Generator::new(1).unwrap();
    assert_err(
        g.randint(5, 5, &[3], DType::I32),
        ErrorKind::InvalidArgument,
        "low >= high (5 >= 5)",
    );
    assert_err(
        g.randint(0, 257, &[3], DType::U8),
        ErrorKind::InvalidArgument,
        "high is out of bounds for uint8",
    );
    assert_err(
        g.randint(-1, 5, &[3], DType::U16),
        ErrorKind::InvalidArgument,
        "low is out of bounds for uint16",
    );
    assert_err(
        g.randint(0, 2, &[3], DType::F32),
        ErrorKind::DType,
        "Unsupported dtype float32 for randint",
    );
    assert_err(
        random::randint(0, 3, &[3], DType::Bool),
        ErrorKind::InvalidArgument,
        "high is out of bounds for bool",
    );
    // 256 is uint8's largest value + 1: allowed
    assert_eq!(
        g.randint(255, 256, &[2], DType::U8)
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        vec![255, 255]
    );
}

#[test]
fn standard_normal_has_mean_zero_and_std_one() {
    require_gpu!();
    let mut g = Generator::new(77).unwrap();
    for d in [DType::F32, DType::F64] {
        let n = 1_000_001; // odd: cuRAND generates pairs
        let x = g.standard_normal(&[n], d).unwrap();
        assert_eq!((x.dtype(), x.shape()), (d, &[n][..]));
        let v: Vec<f64> = host(&x)
            .into_iter()
            .map(common::numpy_model::as_f64)
            .collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.005, "{d}: mean {mean}");
        assert!((var.sqrt() - 1.0).abs() < 0.005, "{d}: std {}", var.sqrt());
        let beyond3 = v.iter().filter(|x| x.abs() > 3.0).count() as f64 / n as f64;
        assert!(
            (beyond3 - 0.0027).abs() < 0.0005,
            "{d}: P(|x| > 3) = {beyond3}"
        );
    }
    let x = random::standard_normal(&[4, 5], DType::F64).unwrap();
    assert_eq!(x.shape(), &[4, 5]);
    expect_err(random::standard_normal(&[3], DType::I32), ErrorKind::DType);
}

#[test]
fn permutations_hold_every_index_once() {
    require_gpu!();
    for n in [0usize, 1, 2, 7, 1000, 100_003] {
        let p = random::permutation(n).unwrap();
        assert_eq!((p.dtype(), p.shape()), (DType::I64, &[n][..]));
        let mut v = p.to_vec::<i64>().unwrap();
        v.sort_unstable();
        assert_eq!(v, (0..n as i64).collect::<Vec<_>>(), "n = {n}");
    }
    // Two permutations of 1000 differ, and a permutation is not the identity.
    let a = random::permutation(1000).unwrap().to_vec::<i64>().unwrap();
    let b = random::permutation(1000).unwrap().to_vec::<i64>().unwrap();
    assert_ne!(a, b);
    assert_ne!(a, (0..1000).collect::<Vec<i64>>());
    // Every position takes every value about equally often (8 elements, 100 draws: 12.5
    // expected per pair).
    let mut counts = [[0usize; 8]; 8];
    for _ in 0..100 {
        let small = random::permutation(8).unwrap().to_vec::<i64>().unwrap();
        for (pos, &val) in small.iter().enumerate() {
            counts[pos][val as usize] += 1;
        }
    }
    for row in counts {
        assert!(row.iter().all(|&c| c < 40), "{row:?}");
    }
    // permutation_of shuffles rows
    let m = Array::from_slice(&(0..30i32).collect::<Vec<_>>(), &[10, 3]).unwrap();
    let s = random::permutation_of(&m).unwrap();
    assert_eq!(s.shape(), &[10, 3]);
    let mut rows: Vec<Vec<i32>> = s
        .to_vec::<i32>()
        .unwrap()
        .chunks(3)
        .map(|c| c.to_vec())
        .collect();
    rows.sort();
    let want: Vec<Vec<i32>> = (0..10).map(|r| vec![3 * r, 3 * r + 1, 3 * r + 2]).collect();
    assert_eq!(rows, want);
    assert_err(
        random::permutation_of(&Array::scalar(1.0f32).unwrap()),
        ErrorKind::Shape,
        "permutation_of needs an array of at least one dimension",
    );
}

// =========================================================================================
// nextafter and i0 (CuPy's ufuncs of those names)
// =========================================================================================

/// One step of the last bit in each float type, towards the second operand: away from
/// zero and towards it, from zero (the smallest subnormal with the other operand's sign),
/// to infinity past the largest value, NaN in, and equal operands (the second returned).
#[test]
fn nextafter_steps_the_last_bit_of_each_float_type() {
    require_gpu!();
    let mut rng = Rng::new(41);
    let mut a: Vec<f64> = (0..300).map(|_| rng.f64(-500.0, 500.0)).collect();
    let mut b: Vec<f64> = (0..300).map(|_| rng.f64(-500.0, 500.0)).collect();
    for (x, y) in [
        (0.0, 1.0),
        (0.0, -1.0),
        (-0.0, 1.0),
        (1.0, 1.0),
        (1.0, 0.0),
        (-1.0, 0.0),
        (2.0, 3.0),
        (f64::INFINITY, 0.0),
        (f64::NAN, 1.0),
        (1.0, f64::NAN),
    ] {
        a.push(x);
        b.push(y);
    }
    let n = a.len();
    // f64 and f32: the standard library's next_up / next_down.
    let step64 = |x: f64, y: f64| {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x == y {
            y
        } else if y > x {
            x.next_up()
        } else {
            x.next_down()
        }
    };
    let ga = Array::from_slice(&a, &[n]).unwrap();
    let gb = Array::from_slice(&b, &[n]).unwrap();
    let got = ops::nextafter(&ga, &gb).unwrap().to_vec::<f64>().unwrap();
    for i in 0..n {
        let want = step64(a[i], b[i]);
        assert!(
            got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()),
            "f64 nextafter({}, {}) = {} (want {want})",
            a[i],
            b[i],
            got[i]
        );
    }
    let (a32, b32): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&v| v as f32).collect(),
        b.iter().map(|&v| v as f32).collect(),
    );
    let got = ops::nextafter(
        Array::from_slice(&a32, &[n]).unwrap(),
        Array::from_slice(&b32, &[n]).unwrap(),
    )
    .unwrap();
    assert_eq!(got.dtype(), DType::F32);
    let got = got.to_vec::<f32>().unwrap();
    for i in 0..n {
        let (x, y) = (a32[i], b32[i]);
        let want = if x.is_nan() || y.is_nan() {
            f32::NAN
        } else if x == y {
            y
        } else if y > x {
            x.next_up()
        } else {
            x.next_down()
        };
        assert!(
            got[i].to_bits() == want.to_bits() || (got[i].is_nan() && want.is_nan()),
            "f32 nextafter({x}, {y}) = {} (want {want})",
            got[i]
        );
    }
    // float16 and bfloat16: the neighbour in the 16-bit type (not in float).
    for dt in [DType::F16, DType::BF16] {
        let ha = Array::from_slice(&a, &[n]).unwrap().astype(dt).unwrap();
        let hb = Array::from_slice(&b, &[n]).unwrap().astype(dt).unwrap();
        let (xa, xb) = (
            ha.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            hb.astype(DType::F64).unwrap().to_vec::<f64>().unwrap(),
        );
        let r = ops::nextafter(&ha, &hb).unwrap();
        assert_eq!(r.dtype(), dt);
        let got = r.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        for i in 0..n {
            let (x, y) = (xa[i], xb[i]);
            let want = if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x == y {
                y
            } else {
                let to_f64 = |bits: u16| match dt {
                    DType::F16 => f64::from(half::f16::from_bits(bits)),
                    _ => f64::from(half::bf16::from_bits(bits)),
                };
                let bits = match dt {
                    DType::F16 => half::f16::from_f64(x).to_bits(),
                    _ => half::bf16::from_f64(x).to_bits(),
                };
                let bits = if x == 0.0 {
                    if y < 0.0 { 0x8001 } else { 0x0001 }
                } else if (y > x) == (x > 0.0) {
                    bits + 1
                } else {
                    bits - 1
                };
                to_f64(bits)
            };
            assert!(
                got[i] == want || (got[i].is_nan() && want.is_nan()),
                "{dt} nextafter({x}, {y}) = {} (want {want})",
                got[i]
            );
        }
    }
    // Integers compute in NumPy's float type (int32: float64); complex numbers are refused.
    let ints = Array::from_slice(&[1i32, -3], &[2]).unwrap();
    let r = ops::nextafter(&ints, 5i32).unwrap();
    assert_eq!(r.dtype(), DType::F64);
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![1.0f64.next_up(), (-3.0f64).next_up()]
    );
    let z = Array::from_slice(&[Complex::new(1.0f32, 0.0)], &[1]).unwrap();
    assert_err(
        ops::nextafter(&z, &z),
        ErrorKind::DType,
        "nextafter is not defined for complex64 operands (as in NumPy)",
    );
}

/// I0 by its power series in (x/2)^2, summed in f64 (all terms positive).
fn i0_series(x: f64) -> f64 {
    let q = 0.25 * x * x;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..2000 {
        term *= q / f64::from(k * k);
        sum += term;
        if term <= sum * 1e-18 {
            break;
        }
    }
    sum
}

/// i0 against its series on random values of every float type (CUDA's and the host
/// device's functions within a few ulps), its special values, and NumPy's ufunc loops for
/// integers (int8: float16, int32: float64).
#[test]
fn i0_matches_its_power_series() {
    require_gpu!();
    let mut rng = Rng::new(42);
    let mut xs: Vec<f64> = (0..257).map(|_| rng.f64(-30.0, 30.0)).collect();
    xs.extend([0.0, -0.0, 1.0, -1.0, 1e-8, 700.0]);
    let n = xs.len();
    for (dt, rtol) in [(DType::F64, 1e-13), (DType::F32, 2e-6), (DType::F16, 2e-3)] {
        let a = Array::from_slice(&xs, &[n]).unwrap().astype(dt).unwrap();
        let exact = a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        let r = ops::i0(&a).unwrap();
        assert_eq!(r.dtype(), dt);
        let got = r.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
        for i in 0..n {
            let want = i0_series(exact[i]);
            let want = match dt {
                DType::F32 => f64::from(want as f32),
                DType::F16 => f64::from(half::f16::from_f64(want)),
                _ => want,
            };
            assert!(
                (got[i] == want) || ((got[i] - want) / want).abs() <= rtol,
                "{dt} i0({}) = {} (want {want})",
                exact[i],
                got[i]
            );
        }
    }
    let sp = Array::from_slice(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 800.0], &[4]).unwrap();
    let got = ops::i0(&sp).unwrap().to_vec::<f64>().unwrap();
    assert!(got[0].is_nan(), "{got:?}");
    assert_eq!(&got[1..], &[f64::INFINITY; 3]);
    assert_eq!(
        ops::i0(&Array::from_slice(&[1i8], &[1]).unwrap())
            .unwrap()
            .dtype(),
        DType::F16
    );
    assert_eq!(
        ops::i0(&Array::from_slice(&[1i32], &[1]).unwrap())
            .unwrap()
            .dtype(),
        DType::F64
    );
    let z = Array::from_slice(&[Complex::new(1.0f64, 0.0)], &[1]).unwrap();
    assert_err(
        ops::i0(&z),
        ErrorKind::DType,
        "i0 is not defined for complex128 operands (as in NumPy)",
    );
}
