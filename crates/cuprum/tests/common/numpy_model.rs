//! A host model of NumPy values and dtypes: every element widened to a [`V`] of its kind,
//! NumPy's conversions ([`cast_v`]), integer wrapping and float rounding per dtype, machine
//! epsilons, device arrays to and from host values, and the comparison of a result
//! element with the host's (floats within a tolerance, NaN matching NaN).

use super::{Rng, coin, signed};
use cuprum::{Array, DType, DTypeKind, Element, Scalar, SliceArg};
use half::{bf16, f16};
use num_complex::Complex;

/// One element as the host sees it: every dtype's value widened to its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum V {
    B(bool),
    I(i128),
    F(f64),
    C(f64, f64),
}

use V::{B, C, F, I};

pub fn truthy(v: V) -> bool {
    match v {
        B(b) => b,
        I(i) => i != 0,
        F(f) => f != 0.0,
        C(re, im) => re != 0.0 || im != 0.0,
    }
}

/// The real part of a value as a float (bool as 0 / 1).
pub fn as_f64(v: V) -> f64 {
    match v {
        B(b) => f64::from(u8::from(b)),
        I(i) => i as f64,
        F(f) => f,
        C(re, _) => re,
    }
}

/// A value as a complex pair (real, imaginary).
pub fn as_c(v: V) -> (f64, f64) {
    match v {
        C(re, im) => (re, im),
        other => (as_f64(other), 0.0),
    }
}

/// A bool or integer value as an integer (panics on floats and complex values).
pub fn as_int(v: V) -> i128 {
    match v {
        B(b) => i128::from(b),
        I(i) => i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Magnitude of a value (for tolerances).
pub fn magnitude(v: V) -> f64 {
    let (re, im) = as_c(v);
    re.hypot(im)
}

/// Whether a value (either part of a complex one) is NaN.
pub fn is_nan(v: V) -> bool {
    let (re, im) = as_c(v);
    re.is_nan() || im.is_nan()
}

/// Inclusive value range of an integer dtype.
pub fn int_range(d: DType) -> (i128, i128) {
    let bits = 8 * d.itemsize() as u32;
    if d.kind() == DTypeKind::SignedInt {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `i` wrapped into the range of integer dtype `d` (two's complement, as NumPy and the GPU
/// do).
pub fn wrap(i: i128, d: DType) -> i128 {
    let bits = 8 * d.itemsize() as u32;
    let m = i.rem_euclid(1i128 << bits);
    if d.kind() == DTypeKind::SignedInt && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// `x` rounded to the float type of `d` (each part of a complex type).
pub fn round_float(x: f64, d: DType) -> f64 {
    match d {
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        DType::F32 | DType::C64 => x as f32 as f64,
        _ => x,
    }
}

/// NumPy's `astype` of one value (for the values these tests use: floats truncate toward
/// zero into integers, integers wrap, complex → real keeps the real part, → bool is
/// "non-zero").
pub fn cast_v(v: V, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(truthy(v)),
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let i = match v {
                B(b) => i128::from(b),
                I(i) => i,
                F(f) | C(f, _) => f.trunc() as i128,
            };
            I(wrap(i, d))
        }
        DTypeKind::Float => F(round_float(as_f64(v), d)),
        DTypeKind::Complex => {
            let (re, im) = as_c(v);
            C(round_float(re, d), round_float(im, d))
        }
        DTypeKind::Record => panic!("the NumPy model has no records"),
    }
}

/// A random value of float or complex dtype `d` (each part of a complex one) with its
/// magnitude in `[lo, hi)` and a random sign, rounded to `d`.
pub fn rand_signed(rng: &mut Rng, d: DType, lo: f64, hi: f64) -> V {
    if d.is_complex() {
        let (re, im) = (rng.f64(lo, hi), rng.f64(lo, hi));
        C(
            round_float(signed(rng, re), d),
            round_float(signed(rng, im), d),
        )
    } else {
        let x = rng.f64(lo, hi);
        F(round_float(signed(rng, x), d))
    }
}

/// Machine epsilon of a float (or complex) dtype; 0 for exact dtypes.
pub fn eps(d: DType) -> f64 {
    match d {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 | DType::C64 => 2f64.powi(-23),
        DType::F64 | DType::C128 => 2f64.powi(-52),
        _ => 0.0,
    }
}

/// A Rust element type with conversions to and from host values.
pub trait HostElem: Element {
    fn to_v(self) -> V;
    /// The value converted the way NumPy's `astype` does ([`cast_v`]).
    fn from_v(v: V) -> Self;
}

impl HostElem for bool {
    fn to_v(self) -> V {
        B(self)
    }
    fn from_v(v: V) -> Self {
        truthy(v)
    }
}

macro_rules! host_int {
    ($($t:ty),*) => {$(
        impl HostElem for $t {
            fn to_v(self) -> V {
                I(self as i128)
            }
            fn from_v(v: V) -> Self {
                match cast_v(v, <$t as Element>::DTYPE) {
                    I(i) => i as $t,
                    other => unreachable!("{other:?}"),
                }
            }
        }
    )*};
}
host_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! host_float {
    ($($t:ty => $from:expr, $to:expr);*) => {$(
        impl HostElem for $t {
            fn to_v(self) -> V {
                F($to(self))
            }
            fn from_v(v: V) -> Self {
                $from(as_f64(v))
            }
        }
    )*};
}
host_float!(
    f16 => f16::from_f64, f16::to_f64;
    bf16 => bf16::from_f64, bf16::to_f64;
    f32 => |x: f64| x as f32, f64::from;
    f64 => |x: f64| x, |x: f64| x
);

impl HostElem for Complex<f32> {
    fn to_v(self) -> V {
        C(f64::from(self.re), f64::from(self.im))
    }
    fn from_v(v: V) -> Self {
        let (re, im) = as_c(v);
        Complex::new(re as f32, im as f32)
    }
}

impl HostElem for Complex<f64> {
    fn to_v(self) -> V {
        C(self.re, self.im)
    }
    fn from_v(v: V) -> Self {
        let (re, im) = as_c(v);
        Complex::new(re, im)
    }
}

/// Runs `$body` with `$T` the Rust element type of dtype `$d`.
macro_rules! with_type {
    ($d:expr, $T:ident => $body:expr) => {
        match $d {
            DType::Bool => {
                type $T = bool;
                $body
            }
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::U64 => {
                type $T = u64;
                $body
            }
            DType::F16 => {
                type $T = f16;
                $body
            }
            DType::BF16 => {
                type $T = bf16;
                $body
            }
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::C64 => {
                type $T = Complex<f32>;
                $body
            }
            DType::C128 => {
                type $T = Complex<f64>;
                $body
            }
            DType::Record(r) => panic!("the NumPy model has no records ({})", r.name()),
        }
    };
}

/// A device array of dtype `d` holding `vals` (C order, converted with [`cast_v`]).
pub fn dev(vals: &[V], shape: &[usize], d: DType) -> Array {
    with_type!(d, T => {
        let host: Vec<T> = vals.iter().map(|&v| T::from_v(v)).collect();
        Array::from_slice(&host, shape).unwrap()
    })
}

/// [`dev`] of values that `d` holds exactly: an integer dtype takes only bool and integer
/// values in its range (anything else panics instead of being converted).
pub fn dev_exact(vals: &[V], shape: &[usize], d: DType) -> Array {
    if matches!(d.kind(), DTypeKind::SignedInt | DTypeKind::UnsignedInt) {
        let (lo, hi) = int_range(d);
        let name = with_type!(d, T => std::any::type_name::<T>());
        for &v in vals {
            let i = as_int(v);
            assert!((lo..=hi).contains(&i), "{i} does not fit {name}");
        }
    }
    dev(vals, shape, d)
}

/// The elements of `a` (C order) as host values.
pub fn host(a: &Array) -> Vec<V> {
    with_type!(a.dtype(), T => {
        a.to_vec::<T>().unwrap().into_iter().map(HostElem::to_v).collect()
    })
}

/// A scalar operand of dtype `d`.
pub fn scalar_of(v: V, d: DType) -> Scalar {
    with_type!(d, T => Scalar::from(T::from_v(v)))
}

/// Whether float `g` matches `w` within `tol` (NaN matches NaN, an infinity only itself).
pub fn close_f(g: f64, w: f64, tol: f64) -> bool {
    if w.is_nan() {
        g.is_nan()
    } else if w.is_infinite() {
        g == w
    } else {
        (g - w).abs() <= tol
    }
}

/// Whether result element `g` matches the host's `w`: floats and each part of complex
/// values with [`close_f`], everything else exactly.
pub fn close_v(g: V, w: V, tol: f64) -> bool {
    match (g, w) {
        (F(g), F(w)) => close_f(g, w, tol),
        (C(gr, gi), C(wr, wi)) => close_f(gr, wr, tol) && close_f(gi, wi, tol),
        _ => g == w,
    }
}

/// A random non-zero value of `d`, small enough that no element-wise operation overflows:
/// integers in ±[1, 9] (unsigned [1, 15]), floats and complex parts in ±[0.5, 10).
pub fn small_val(rng: &mut Rng, d: DType) -> V {
    let v = match d.kind() {
        DTypeKind::Bool => B(coin(rng)),
        DTypeKind::SignedInt => I(rng.usize(1, 10) as i128 * if coin(rng) { 1 } else { -1 }),
        DTypeKind::UnsignedInt => I(rng.usize(1, 16) as i128),
        DTypeKind::Float | DTypeKind::Complex => rand_signed(rng, d, 0.5, 10.0),
        DTypeKind::Record => panic!("the NumPy model has no records"),
    };
    cast_v(v, d)
}

/// `n` values of [`small_val`] (a bool array of two or more gets both values).
pub fn small_vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    let mut v: Vec<V> = (0..n).map(|_| small_val(rng, d)).collect();
    if d == DType::Bool && n > 1 {
        v[0] = B(true);
        v[1] = B(false);
    }
    v
}

/// NumPy's floor division of integers (0 for a zero divisor, as NumPy gives with a
/// warning).
pub fn int_floor_div(x: i128, y: i128) -> i128 {
    if y == 0 {
        return 0;
    }
    let q = x / y;
    if x % y != 0 && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    }
}

/// NumPy's integer remainder: the divisor's sign, 0 for a zero divisor.
pub fn int_rem(x: i128, y: i128) -> i128 {
    if y == 0 {
        return 0;
    }
    let r = x % y;
    if r != 0 && ((r < 0) != (y < 0)) {
        r + y
    } else {
        r
    }
}

/// A device view of `shape` holding `vals` (C order): contiguous, or (kind 1) reversed along
/// the last axis, (2) every other element of a longer base, (3) the transpose of a
/// transposed copy.
pub fn view_of(vals: &[V], shape: &[usize], d: DType, kind: usize) -> Array {
    let plain = dev(vals, shape, d);
    let nd = shape.len();
    if nd == 0 || shape.contains(&0) {
        return plain;
    }
    let a = match kind % 4 {
        1 => {
            let mut ax: Vec<SliceArg> = vec![SliceArg::from(..); nd];
            ax[nd - 1] = SliceArg::from(..).step(-1);
            let rev = plain.slice(&ax).unwrap().to_contiguous().unwrap();
            rev.slice(&ax).unwrap()
        }
        2 => {
            let mut base_shape = shape.to_vec();
            base_shape[nd - 1] *= 2;
            let base = Array::zeros(&base_shape, d).unwrap();
            let mut ax: Vec<SliceArg> = vec![SliceArg::from(..); nd];
            ax[nd - 1] = SliceArg::from(..).step(2);
            let v = base.slice(&ax).unwrap();
            v.assign(&plain).unwrap();
            v
        }
        3 => plain.t().to_contiguous().unwrap().t(),
        _ => plain,
    };
    assert_eq!(a.shape(), shape);
    a
}

// =========================================================================================
// The edge-value grid and NumPy's element-wise rules (`tests/numpy_edges.rs`)
// =========================================================================================

/// Every value of the edge grid of `d`, in its own dtype: integers — MIN, MIN + 1, -1, 0,
/// 1, MAX - 1, MAX, small values of both signs, the shift amounts around the width and the
/// square-overflow threshold; floats — NaN, ±inf, ±0.0, halves and ties, the smallest and
/// largest subnormals, the smallest normal, ±MAX, and the thresholds where a square or `exp`
/// overflows; complex — every pair of finite parts from a small set (zeros of both signs, a
/// large part whose products still fit). Infinite and NaN complex values are left out: the
/// complex functions at infinities (C99 Annex G) have tests of their own.
pub fn edge_grid(d: DType) -> Vec<V> {
    let mut v: Vec<V> = match d.kind() {
        DTypeKind::Bool => vec![B(false), B(true)],
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let (lo, hi) = int_range(d);
            let bits = 8 * d.itemsize() as i128;
            let root = (hi as f64).sqrt() as i128;
            let mut xs = vec![
                lo,
                lo + 1,
                -(root + 1),
                -7,
                -2,
                -1,
                0,
                1,
                2,
                7,
                bits - 1,
                bits,
                bits + 1,
                root,
                root + 1,
                hi - 1,
                hi,
            ];
            xs.retain(|x| (lo..=hi).contains(x));
            xs.into_iter().map(I).collect()
        }
        DTypeKind::Float => float_edges(d).into_iter().map(F).collect(),
        DTypeKind::Complex => {
            let big = if d == DType::C64 { 1e18 } else { 1e150 };
            let parts = [0.0, -0.0, 1.0, -2.5, 0.5, 3.0, big];
            let mut out = Vec::new();
            for &re in &parts {
                for &im in &parts {
                    out.push(C(re, im));
                }
            }
            out
        }
        DTypeKind::Record => panic!("the NumPy model has no records"),
    };
    // Distinct values only (bit patterns: -0.0 and 0.0 both stay).
    let mut seen = Vec::new();
    v.retain(|x| {
        let key = format!("{x:?}");
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
    v.into_iter().map(|x| cast_v(x, d)).collect()
}

/// The float edge values of `d` (see [`edge_grid`]).
fn float_edges(d: DType) -> Vec<f64> {
    // (smallest subnormal, largest subnormal, smallest normal, largest finite)
    let (sub, max_sub, norm, max) = match d {
        DType::F16 => (
            2f64.powi(-24),
            1023.0 * 2f64.powi(-24),
            2f64.powi(-14),
            65504.0,
        ),
        DType::BF16 => (
            2f64.powi(-133),
            127.0 * 2f64.powi(-133),
            2f64.powi(-126),
            bf16::MAX.to_f64(),
        ),
        DType::F32 => (
            2f64.powi(-149),
            f64::from(f32::MIN_POSITIVE) - 2f64.powi(-149),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX),
        ),
        _ => (
            5e-324,
            f64::MIN_POSITIVE - 5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
        ),
    };
    let mant = match d {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 => 24,
        _ => 53,
    };
    vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.0,
        -7.0,
        5.95,
        -5.95,
        sub,
        -sub,
        max_sub,
        norm,
        max,
        -max,
        // squares overflow from here
        max.sqrt() * 2.0,
        // `exp` overflows from here
        max.ln().ceil(),
        // the first float whose neighbours are two apart (floor, rint, // of large values)
        2f64.powi(mant) + 2.0,
    ]
}

/// The bounds `clip` runs the grid against (each pair of them, `lo > hi` and NaN included).
pub fn edge_bounds(d: DType) -> Vec<V> {
    let v: Vec<V> = match d.kind() {
        DTypeKind::Bool => vec![B(false), B(true)],
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let (lo, hi) = int_range(d);
            let mut xs = vec![lo, -1, 0, 2, hi];
            xs.retain(|x| (lo..=hi).contains(x));
            xs.into_iter().map(I).collect()
        }
        _ => [
            f64::NAN,
            f64::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            2.5,
            f64::INFINITY,
        ]
        .into_iter()
        .map(F)
        .collect(),
    };
    v.into_iter().map(|x| cast_v(x, d)).collect()
}

/// NumPy's loop rule of a ufunc: for operands promoted to a dtype, the dtype it computes in
/// and the dtype of its result, or `None` where NumPy has no loop (from NumPy's type tables,
/// `numpy/_core/code_generators/generate_umath.py`). Rules marked "cuprum" are the
/// documented differences of docs/for-cupy-users.md.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Loops {
    /// Every dtype, the same dtype.
    Same,
    /// As `Same`; bools refused (`subtract`, `negative`).
    NoBool,
    /// Integers and bools in float64 (`divide`).
    TrueDivide,
    /// No complex; bools in int8 (`remainder`, `floor_divide`, `fmod`).
    IntLike,
    /// Bools in int8 (`power`, `square`, `reciprocal`, `conjugate`).
    BoolInt8,
    /// No bool loop (`sign`).
    NoBoolLoop,
    /// A bool result (comparisons, predicates, logical operations).
    ToBool,
    /// The float type of the dtype (`e` for 8-bit, `f` for 16-bit, `d` for wider integers).
    Float,
    /// `Float`, without complex numbers (`cbrt`, `arctan2`, `hypot`).
    RealFloat,
    /// Without complex numbers, the same dtype (`floor`, `ceil`, `trunc`).
    Rounding,
    /// `np.round`: integers keep their dtype, bools float16.
    Round,
    /// A bool result, computed in the float type, no complex numbers (`signbit`).
    Signbit,
    /// Integers and bools only (`bitwise_*`, `invert`).
    Bitwise,
    /// Integers only, bools in int8 (`left_shift`, `right_shift`).
    Shift,
    /// Complex numbers give their real type (`absolute`, `real`, `imag`).
    RealPart,
    /// `np.angle`: `arctan2(0, x)` for real numbers (bools through int64: float64).
    Angle,
    /// cuprum: no complex numbers (`maximum`, `minimum`, `clip`; NumPy orders them).
    RealOnly,
}

/// The (compute, result) dtypes of rule `l` for operands promoted to `c`.
pub fn numpy_loop(l: Loops, c: DType) -> Option<(DType, DType)> {
    let (b, cx) = (c == DType::Bool, c.is_complex());
    let fl = match c {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 => DType::F32,
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => DType::F64,
        other => other,
    };
    let real = match c {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        other => other,
    };
    let same = Some((c, c));
    match l {
        Loops::Same => same,
        Loops::NoBool | Loops::NoBoolLoop if b => None,
        Loops::NoBool | Loops::NoBoolLoop => same,
        Loops::TrueDivide if c.is_integer() || b => Some((DType::F64, DType::F64)),
        Loops::TrueDivide => same,
        Loops::IntLike if cx => None,
        Loops::IntLike | Loops::BoolInt8 | Loops::Shift if b => Some((DType::I8, DType::I8)),
        Loops::IntLike | Loops::BoolInt8 => same,
        Loops::ToBool => Some((c, DType::Bool)),
        Loops::RealFloat | Loops::Rounding | Loops::Signbit | Loops::RealOnly if cx => None,
        Loops::Float | Loops::RealFloat => Some((fl, fl)),
        Loops::Rounding | Loops::RealOnly => same,
        Loops::Round if b => Some((DType::F16, DType::F16)),
        Loops::Round => same,
        Loops::Signbit => Some((fl, DType::Bool)),
        Loops::Bitwise | Loops::Shift if c.is_float() || cx => None,
        Loops::Bitwise | Loops::Shift => same,
        Loops::RealPart => Some((c, real)),
        Loops::Angle if cx => Some((c, real)),
        Loops::Angle if b => Some((DType::F64, DType::F64)),
        Loops::Angle => Some((fl, fl)),
    }
}

/// NumPy 2's (NEP 50) result dtype of an array of `d` with a weak Rust scalar of `kind`
/// (`Bool`, `SignedInt` for a Rust integer, `Float`, `Complex`).
pub fn weak_promote(d: DType, kind: DTypeKind) -> DType {
    match (d.kind(), kind) {
        (DTypeKind::Bool, DTypeKind::SignedInt | DTypeKind::UnsignedInt) => DType::I64,
        (DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt, DTypeKind::Float) => {
            DType::F64
        }
        (DTypeKind::Complex, _) | (_, DTypeKind::Bool) => d,
        (DTypeKind::Float, DTypeKind::Complex) => {
            if d == DType::F64 {
                DType::C128
            } else {
                DType::C64
            }
        }
        (_, DTypeKind::Complex) => DType::C128,
        _ => d,
    }
}

/// NumPy's results element by element: `x` holds the operands already converted to the
/// loop's compute dtype `t`, `out` is the result dtype. Written from NumPy's C loops
/// (`numpy/_core/src/umath/loops*.c.src`, `npy_math`), not from cuprum.
pub mod ufunc {
    use super::V::{self, B, C, F, I};
    use super::{as_c, as_f64, round_float, truthy, wrap};
    use cuprum::{DType, DTypeKind};
    use num_complex::Complex;

    fn rf(x: f64, t: DType) -> V {
        F(round_float(x, t))
    }

    fn rc(z: Complex<f64>, t: DType) -> V {
        C(round_float(z.re, t), round_float(z.im, t))
    }

    fn cx(v: V) -> Complex<f64> {
        let (re, im) = as_c(v);
        Complex::new(re, im)
    }

    fn bits(t: DType) -> i128 {
        8 * t.itemsize() as i128
    }

    /// A complex operation whose every step rounds with the given function.
    type ComplexOp = fn(Complex<f64>, Complex<f64>, &dyn Fn(f64) -> f64) -> Complex<f64>;

    /// An arithmetic operation per kind: bools, integers (wrapped), floats (rounded),
    /// complex values (each part rounded after each step: the compute type's arithmetic).
    fn arith(
        x: &[V],
        t: DType,
        b: fn(bool, bool) -> bool,
        i: fn(i128, i128) -> i128,
        f: fn(f64, f64) -> f64,
        c: ComplexOp,
    ) -> V {
        match (x[0], x[1]) {
            (B(p), B(q)) => B(b(p, q)),
            (I(p), I(q)) => I(wrap(i(p, q), t)),
            (F(p), F(q)) => rf(f(p, q), t),
            (p, q) => rc(c(cx(p), cx(q), &|v| round_float(v, t)), t),
        }
    }

    fn cmul(a: Complex<f64>, b: Complex<f64>, r: &dyn Fn(f64) -> f64) -> Complex<f64> {
        Complex::new(
            r(r(a.re * b.re) - r(a.im * b.im)),
            r(r(a.re * b.im) + r(a.im * b.re)),
        )
    }

    /// NumPy's complex division (Smith's algorithm; a zero divisor divides each part by
    /// `|b.re|`).
    fn cdiv(a: Complex<f64>, b: Complex<f64>, r: &dyn Fn(f64) -> f64) -> Complex<f64> {
        let (br, bi) = (b.re.abs(), b.im.abs());
        if br >= bi {
            if br == 0.0 && bi == 0.0 {
                return Complex::new(a.re / br, a.im / br);
            }
            let rat = r(b.im / b.re);
            let scl = r(1.0 / r(b.re + r(b.im * rat)));
            Complex::new(
                r(r(a.re + r(a.im * rat)) * scl),
                r(r(a.im - r(a.re * rat)) * scl),
            )
        } else {
            let rat = r(b.re / b.im);
            let scl = r(1.0 / r(b.im + r(b.re * rat)));
            Complex::new(
                r(r(r(a.re * rat) + a.im) * scl),
                r(r(r(a.im * rat) - a.re) * scl),
            )
        }
    }

    pub fn add(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |p, q| p || q,
            |p, q| p + q,
            |p, q| p + q,
            |a, b, r| Complex::new(r(a.re + b.re), r(a.im + b.im)),
        )
    }

    pub fn subtract(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |_, _| unreachable!(),
            |p, q| p - q,
            |p, q| p - q,
            |a, b, r| Complex::new(r(a.re - b.re), r(a.im - b.im)),
        )
    }

    pub fn multiply(x: &[V], t: DType, _: DType) -> V {
        arith(x, t, |p, q| p && q, i128::wrapping_mul, |p, q| p * q, cmul)
    }

    pub fn divide(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |_, _| unreachable!(),
            |_, _| unreachable!(),
            |p, q| p / q,
            cdiv,
        )
    }

    /// NumPy's float `divmod` (`npy_divmod`): (floor quotient, remainder).
    fn divmod(a: f64, b: f64) -> (f64, f64) {
        let m = a % b;
        if b == 0.0 {
            return (a / b, m);
        }
        let mut div = (a - m) / b;
        let mut m = m;
        if m != 0.0 {
            if (b < 0.0) != (m < 0.0) {
                m += b;
                div -= 1.0;
            }
        } else {
            m = 0f64.copysign(b);
        }
        let q = if div != 0.0 {
            let mut fl = div.floor();
            if div - fl > 0.5 {
                fl += 1.0;
            }
            fl
        } else {
            0f64.copysign(a / b)
        };
        (q, m)
    }

    /// A 16-bit float computes through float32 (NumPy's half loops), others in their own
    /// type; the model computes in f64 and rounds, which is the same for these operations
    /// except where the float32 step matters: rounded here too.
    fn via(t: DType, v: f64) -> f64 {
        match t {
            DType::F16 | DType::BF16 => v as f32 as f64,
            _ => v,
        }
    }

    pub fn remainder(x: &[V], t: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (I(p), I(q)) => I(wrap(super::int_rem(p, q), t)),
            (p, q) => {
                let (a, b) = (as_f64(p), as_f64(q));
                rf(via(t, divmod(a, b).1), t)
            }
        }
    }

    pub fn floor_divide(x: &[V], t: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (I(p), I(q)) => I(wrap(super::int_floor_div(p, q), t)),
            (p, q) => {
                let (a, b) = (as_f64(p), as_f64(q));
                let (fa, fb) = (via(t, a), via(t, b));
                rf(if b == 0.0 { fa / fb } else { divmod(fa, fb).0 }, t)
            }
        }
    }

    pub fn fmod(x: &[V], t: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (I(_), I(0)) => I(0),
            (I(p), I(q)) => I(wrap(p % q, t)),
            (p, q) => rf(as_f64(p) % as_f64(q), t),
        }
    }

    /// Integer powers by squaring (wrapping); negative exponents give 0 except for bases 1
    /// and -1 (cuprum; NumPy raises).
    fn int_pow(b: i128, e: i128, t: DType) -> i128 {
        if e < 0 {
            return match b {
                1 => 1,
                -1 => {
                    if e % 2 == 0 {
                        1
                    } else {
                        -1
                    }
                }
                _ => 0,
            };
        }
        let (mut r, mut b, mut e) = (1i128, wrap(b, t), e);
        while e > 0 {
            if e & 1 == 1 {
                r = wrap(r.wrapping_mul(b), t);
            }
            b = wrap(b.wrapping_mul(b), t);
            e >>= 1;
        }
        r
    }

    /// NumPy's complex power (`npy_cpow`): 1 for a zero exponent, 0 or NaN for a zero base,
    /// repeated multiplication for small integer exponents, `exp(b log a)` otherwise.
    fn cpow(a: Complex<f64>, b: Complex<f64>, r: &dyn Fn(f64) -> f64) -> Complex<f64> {
        if b.re == 0.0 && b.im == 0.0 {
            return Complex::new(1.0, 0.0);
        }
        if a.re == 0.0 && a.im == 0.0 {
            return if b.re > 0.0 {
                Complex::new(0.0, 0.0)
            } else {
                Complex::new(f64::NAN, f64::NAN)
            };
        }
        if b.im == 0.0 && b.re == b.re.trunc() && b.re.abs() < 100.0 {
            let n = b.re as i64;
            let mut acc = Complex::new(1.0, 0.0);
            for _ in 0..n.abs() {
                acc = cmul(acc, a, r);
            }
            return if n < 0 {
                cdiv(Complex::new(1.0, 0.0), acc, r)
            } else {
                acc
            };
        }
        a.powc(b)
    }

    pub fn power(x: &[V], t: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (I(p), I(q)) => I(int_pow(p, q, t)),
            (F(p), F(q)) => rf(via(t, p).powf(via(t, q)), t),
            (p, q) => rc(cpow(cx(p), cx(q), &|v| round_float(v, t)), t),
        }
    }

    fn nan_first(p: f64, q: f64, pick: fn(f64, f64) -> f64) -> f64 {
        if p.is_nan() {
            p
        } else if q.is_nan() {
            q
        } else {
            pick(p, q)
        }
    }

    /// NumPy's complex maximum / minimum (`CGE` / `CLE` of loops.c.src): `x` when either
    /// of its parts is NaN or it orders at or past `y`, else `y`.
    fn complex_pick(x: V, y: V, greater: bool) -> V {
        let ((xr, xi), (yr, yi)) = (as_c(x), as_c(y));
        let past = if greater { xr > yr } else { xr < yr };
        let tie = if greater { xi >= yi } else { xi <= yi };
        let wins = (past && !xi.is_nan() && !yi.is_nan()) || (xr == yr && tie);
        if xr.is_nan() || xi.is_nan() || wins {
            C(xr, xi)
        } else {
            C(yr, yi)
        }
    }

    pub fn maximum(x: &[V], _: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (B(p), B(q)) => B(p || q),
            (I(p), I(q)) => I(p.max(q)),
            (p @ C(..), q) | (p, q @ C(..)) => complex_pick(p, q, true),
            (p, q) => F(nan_first(
                as_f64(p),
                as_f64(q),
                |p, q| if p > q { p } else { q },
            )),
        }
    }

    pub fn minimum(x: &[V], _: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (B(p), B(q)) => B(p && q),
            (I(p), I(q)) => I(p.min(q)),
            (p @ C(..), q) | (p, q @ C(..)) => complex_pick(p, q, false),
            (p, q) => F(nan_first(
                as_f64(p),
                as_f64(q),
                |p, q| if p < q { p } else { q },
            )),
        }
    }

    /// `minimum(maximum(x, lo), hi)`: NaN anywhere gives NaN, `lo > hi` gives `hi`.
    pub fn clip(x: &[V], t: DType, o: DType) -> V {
        minimum(&[maximum(&x[..2], t, o), x[2]], t, o)
    }

    pub fn where_(x: &[V], _: DType, _: DType) -> V {
        if truthy(x[0]) { x[1] } else { x[2] }
    }

    /// A comparison: exact for integers, IEEE for floats, lexicographic for complex values
    /// (NumPy's `CLT`: a NaN imaginary part makes `<` false unless the real parts decide).
    fn compare(x: &[V], f: fn(f64, f64) -> bool, i: fn(i128, i128) -> bool) -> V {
        B(match (x[0], x[1]) {
            (B(p), B(q)) => i(i128::from(p), i128::from(q)),
            (I(p), I(q)) => i(p, q),
            (F(p), F(q)) => f(p, q),
            (p, q) => {
                let (a, b) = (cx(p), cx(q));
                if a.re == b.re {
                    f(a.im, b.im)
                } else {
                    f(a.re, b.re)
                }
            }
        })
    }

    pub fn equal(x: &[V], _: DType, _: DType) -> V {
        match (x[0], x[1]) {
            (C(..), _) => B(cx(x[0]) == cx(x[1])),
            _ => compare(x, |p, q| p == q, |p, q| p == q),
        }
    }

    pub fn not_equal(x: &[V], t: DType, o: DType) -> V {
        B(!truthy(equal(x, t, o)))
    }

    pub fn less(x: &[V], _: DType, _: DType) -> V {
        compare(x, |p, q| p < q, |p, q| p < q)
    }

    pub fn less_equal(x: &[V], _: DType, _: DType) -> V {
        compare(x, |p, q| p <= q, |p, q| p <= q)
    }

    pub fn greater(x: &[V], _: DType, _: DType) -> V {
        compare(x, |p, q| p > q, |p, q| p > q)
    }

    pub fn greater_equal(x: &[V], _: DType, _: DType) -> V {
        compare(x, |p, q| p >= q, |p, q| p >= q)
    }

    pub fn negative(x: &[V], t: DType, _: DType) -> V {
        match x[0] {
            I(p) => I(wrap(-p, t)),
            F(p) => F(-p),
            C(re, im) => C(-re, -im),
            B(_) => unreachable!(),
        }
    }

    pub fn positive(x: &[V], _: DType, _: DType) -> V {
        match x[0] {
            B(_) => unreachable!(),
            v => v,
        }
    }

    pub fn absolute(x: &[V], t: DType, out: DType) -> V {
        match x[0] {
            I(p) => I(wrap(p.abs(), t)),
            F(p) => F(p.abs()),
            C(re, im) => rf(re.hypot(im), out),
            b => b,
        }
    }

    /// A float function of real and complex values (complex ones from num_complex, compared
    /// where the result is finite).
    fn math(x: V, t: DType, f: fn(f64) -> f64, g: fn(Complex<f64>) -> Complex<f64>) -> V {
        match x {
            C(re, im) => rc(g(Complex::new(re, im)), t),
            v => rf(f(via(t, as_f64(v))), t),
        }
    }

    macro_rules! math_fns {
        ($($name:ident: $f:expr, $g:expr;)*) => {$(
            pub fn $name(x: &[V], t: DType, _: DType) -> V {
                math(x[0], t, $f, $g)
            }
        )*};
    }

    math_fns! {
        sqrt: f64::sqrt, Complex::sqrt;
        exp: f64::exp, Complex::exp;
        log: f64::ln, Complex::ln;
        sin: f64::sin, Complex::sin;
        cos: f64::cos, Complex::cos;
        tan: f64::tan, Complex::tan;
        tanh: f64::tanh, Complex::tanh;
        log2: f64::log2, |z| z.ln() / std::f64::consts::LN_2;
        log10: f64::log10, |z| z.ln() / std::f64::consts::LN_10;
        log1p: f64::ln_1p, |z| (z + 1.0).ln();
        expm1: f64::exp_m1, |z| z.exp() - 1.0;
        exp2: f64::exp2, |z| (z * std::f64::consts::LN_2).exp();
        arcsin: f64::asin, Complex::asin;
        arccos: f64::acos, Complex::acos;
        arctan: f64::atan, Complex::atan;
        sinh: f64::sinh, Complex::sinh;
        cosh: f64::cosh, Complex::cosh;
        arcsinh: asinh, Complex::asinh;
        arccosh: acosh, Complex::acosh;
        arctanh: f64::atanh, Complex::atanh;
        cbrt: f64::cbrt, |z| z;
    }

    /// C's `asinh` (Rust's overflows to inf above about 1e154: `x*x`).
    fn asinh(x: f64) -> f64 {
        if x.abs() > 2f64.powi(28) {
            (x.abs().ln() + std::f64::consts::LN_2).copysign(x)
        } else {
            x.asinh()
        }
    }

    /// C's `acosh` (Rust's overflows to inf above about 1e154).
    fn acosh(x: f64) -> f64 {
        if x > 2f64.powi(28) {
            x.ln() + std::f64::consts::LN_2
        } else {
            x.acosh()
        }
    }

    pub fn arctan2(x: &[V], t: DType, _: DType) -> V {
        rf(via(t, as_f64(x[0])).atan2(via(t, as_f64(x[1]))), t)
    }

    pub fn hypot(x: &[V], t: DType, _: DType) -> V {
        rf(via(t, as_f64(x[0])).hypot(via(t, as_f64(x[1]))), t)
    }

    fn rounded(x: V, f: fn(f64) -> f64) -> V {
        match x {
            F(p) => F(f(p)),
            C(re, im) => C(f(re), f(im)),
            other => other,
        }
    }

    pub fn floor(x: &[V], _: DType, _: DType) -> V {
        rounded(x[0], f64::floor)
    }

    pub fn ceil(x: &[V], _: DType, _: DType) -> V {
        rounded(x[0], f64::ceil)
    }

    pub fn trunc(x: &[V], _: DType, _: DType) -> V {
        rounded(x[0], f64::trunc)
    }

    pub fn rint(x: &[V], _: DType, _: DType) -> V {
        rounded(x[0], f64::round_ties_even)
    }

    pub fn isnan(x: &[V], _: DType, _: DType) -> V {
        let (re, im) = as_c(x[0]);
        B(re.is_nan() || im.is_nan())
    }

    pub fn isinf(x: &[V], _: DType, _: DType) -> V {
        let (re, im) = as_c(x[0]);
        B(re.is_infinite() || im.is_infinite())
    }

    pub fn isfinite(x: &[V], _: DType, _: DType) -> V {
        let (re, im) = as_c(x[0]);
        B(re.is_finite() && im.is_finite())
    }

    pub fn signbit(x: &[V], _: DType, _: DType) -> V {
        B(as_f64(x[0]).is_sign_negative())
    }

    pub fn logical_and(x: &[V], _: DType, _: DType) -> V {
        B(truthy(x[0]) && truthy(x[1]))
    }

    pub fn logical_or(x: &[V], _: DType, _: DType) -> V {
        B(truthy(x[0]) || truthy(x[1]))
    }

    pub fn logical_xor(x: &[V], _: DType, _: DType) -> V {
        B(truthy(x[0]) != truthy(x[1]))
    }

    pub fn logical_not(x: &[V], _: DType, _: DType) -> V {
        B(!truthy(x[0]))
    }

    pub fn bitwise_and(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |p, q| p && q,
            |p, q| p & q,
            |_, _| unreachable!(),
            |_, _, _| unreachable!(),
        )
    }

    pub fn bitwise_or(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |p, q| p || q,
            |p, q| p | q,
            |_, _| unreachable!(),
            |_, _, _| unreachable!(),
        )
    }

    pub fn bitwise_xor(x: &[V], t: DType, _: DType) -> V {
        arith(
            x,
            t,
            |p, q| p != q,
            |p, q| p ^ q,
            |_, _| unreachable!(),
            |_, _, _| unreachable!(),
        )
    }

    pub fn invert(x: &[V], t: DType, _: DType) -> V {
        match x[0] {
            B(p) => B(!p),
            I(p) => I(wrap(-p - 1, t)),
            other => unreachable!("{other:?}"),
        }
    }

    /// Shifts (NumPy's `npy_lshift` / `npy_rshift`): an amount outside `[0, bits)` shifts
    /// every bit out.
    pub fn left_shift(x: &[V], t: DType, _: DType) -> V {
        let (p, q) = (super::as_int(x[0]), super::as_int(x[1]));
        I(if q < 0 || q >= bits(t) {
            0
        } else {
            wrap(p.wrapping_shl(q as u32), t)
        })
    }

    pub fn right_shift(x: &[V], t: DType, _: DType) -> V {
        let (p, q) = (super::as_int(x[0]), super::as_int(x[1]));
        I(if q < 0 || q >= bits(t) {
            if p < 0 { -1 } else { 0 }
        } else {
            p >> q
        })
    }

    /// NumPy 2's `sign`: -1, 0, 1 (NaN stays NaN); complex: `z / |z|` (0 for 0).
    pub fn sign(x: &[V], t: DType, _: DType) -> V {
        match x[0] {
            I(p) => I(p.signum()),
            F(p) => F(if p > 0.0 {
                1.0
            } else if p < 0.0 {
                -1.0
            } else if p == 0.0 {
                0.0
            } else {
                p
            }),
            C(re, im) => {
                let a = round_float(re.hypot(im), t);
                if a == 0.0 {
                    C(0.0, 0.0)
                } else {
                    rc(Complex::new(re / a, im / a), t)
                }
            }
            B(_) => unreachable!(),
        }
    }

    pub fn square(x: &[V], t: DType, o: DType) -> V {
        multiply(&[x[0], x[0]], t, o)
    }

    /// `1 / x`; integers: 1 and -1 themselves, else 0 (cuprum: NumPy's 0 is
    /// platform-defined); complex: NumPy's own Smith step.
    pub fn reciprocal(x: &[V], t: DType, _: DType) -> V {
        match x[0] {
            I(p) => I(if p == 1 || p == -1 { p } else { 0 }),
            F(p) => rf(1.0 / via(t, p), t),
            C(re, im) => {
                let r = |v: f64| round_float(v, t);
                if im.abs() <= re.abs() {
                    let q = r(im / re);
                    let d = r(re + r(im * q));
                    C(r(1.0 / d), r(-q / d))
                } else {
                    let q = r(re / im);
                    let d = r(r(re * q) + im);
                    C(r(q / d), r(-1.0 / d))
                }
            }
            B(_) => unreachable!(),
        }
    }

    pub fn conj(x: &[V], _: DType, _: DType) -> V {
        match x[0] {
            C(re, im) => C(re, -im),
            other => other,
        }
    }

    pub fn real(x: &[V], _: DType, _: DType) -> V {
        match x[0] {
            C(re, _) => F(re),
            other => other,
        }
    }

    pub fn imag(x: &[V], _: DType, _: DType) -> V {
        match x[0] {
            C(_, im) => F(im),
            B(_) => B(false),
            I(_) => I(0),
            F(_) => F(0.0),
        }
    }

    /// `np.angle`: `arctan2(imag, real)` in the result's type.
    pub fn angle(x: &[V], t: DType, out: DType) -> V {
        match x[0] {
            C(re, im) => rf(im.atan2(re), out),
            v => rf(0f64.atan2(as_f64(v)), t),
        }
    }

    /// `np.angle(z, deg=True)`: the angle, then `*= 180 / pi` (a weak scalar: the result's
    /// type; a 16-bit float multiplies in float32 and rounds).
    pub fn angle_deg(x: &[V], t: DType, out: DType) -> V {
        let rad = as_f64(angle(x, t, out));
        let k = round_float(180.0 / std::f64::consts::PI, out);
        rf(via(out, rad * k), out)
    }

    /// `np.round` (`around` with 0 decimals): `rint` of floats and each complex part,
    /// integers unchanged.
    pub fn round(x: &[V], t: DType, o: DType) -> V {
        rint(x, t, o)
    }

    /// Whether the result kind of `out` is exact (bool or integer).
    pub fn exact(out: DType) -> bool {
        !matches!(out.kind(), DTypeKind::Float | DTypeKind::Complex)
    }
}

/// NumPy's reductions of a whole array of values `x` (dtype `d`): the result dtype and
/// value, or `None` where cuprum refuses.
pub mod reduce {
    use super::V::{self, B, C, F, I};
    use super::{as_c, truthy, wrap};
    use cuprum::{DType, DTypeKind};

    fn nan_index(x: &[V]) -> Option<usize> {
        x.iter().position(|&v| matches!(v, F(f) if f.is_nan()))
    }

    /// `max` / `min`: the first NaN, else the extreme (bools: or / and; complex values:
    /// NumPy's `maximum` / `minimum` folded left to right, the first value with a NaN part
    /// winning).
    fn extreme(x: &[V], d: DType, greater: bool) -> Option<(DType, V)> {
        if d.is_complex() {
            let f = if greater {
                super::ufunc::maximum
            } else {
                super::ufunc::minimum
            };
            let first = *x.first()?;
            return Some((d, x[1..].iter().fold(first, |acc, &v| f(&[acc, v], d, d))));
        }
        let i = arg_extreme(x, d, greater)?.1;
        Some((d, i))
    }

    /// The index of the first NaN, else of the first extreme element.
    fn arg_extreme(x: &[V], d: DType, greater: bool) -> Option<(usize, V)> {
        if d.is_complex() {
            return complex_arg_extreme(x, greater);
        }
        if let Some(k) = nan_index(x) {
            return Some((k, x[k]));
        }
        let key = |v: V| match v {
            B(b) => f64::from(u8::from(b)),
            I(i) => i as f64,
            F(f) => f,
            C(..) => unreachable!(),
        };
        let exact = |v: V| match v {
            I(i) => i,
            B(b) => i128::from(b),
            _ => 0,
        };
        let mut best = 0;
        for k in 1..x.len() {
            let (a, b) = (x[k], x[best]);
            let better = if matches!(a, I(_) | B(_)) {
                if greater {
                    exact(a) > exact(b)
                } else {
                    exact(a) < exact(b)
                }
            } else if greater {
                key(a) > key(b)
            } else {
                key(a) < key(b)
            };
            if better {
                best = k;
            }
        }
        Some((best, x[best]))
    }

    /// Complex values: the first with a NaN part, else the first extreme in NumPy's
    /// lexicographic order (real parts, then imaginary ones).
    fn complex_arg_extreme(x: &[V], greater: bool) -> Option<(usize, V)> {
        let parts = |v: V| match v {
            C(r, i) => (r, i),
            _ => unreachable!(),
        };
        if let Some(k) = x.iter().position(|&v| {
            let (r, i) = parts(v);
            r.is_nan() || i.is_nan()
        }) {
            return Some((k, x[k]));
        }
        let mut best = 0;
        for k in 1..x.len() {
            let (a, b) = (parts(x[k]), parts(x[best]));
            let order = a.partial_cmp(&b)?;
            let better = if greater {
                order.is_gt()
            } else {
                order.is_lt()
            };
            if better {
                best = k;
            }
        }
        x.get(best).map(|&v| (best, v))
    }

    pub fn max(x: &[V], d: DType) -> Option<(DType, V)> {
        extreme(x, d, true)
    }

    pub fn min(x: &[V], d: DType) -> Option<(DType, V)> {
        extreme(x, d, false)
    }

    pub fn argmax(x: &[V], d: DType) -> Option<(DType, V)> {
        Some((DType::I64, I(arg_extreme(x, d, true)?.0 as i128)))
    }

    pub fn argmin(x: &[V], d: DType) -> Option<(DType, V)> {
        Some((DType::I64, I(arg_extreme(x, d, false)?.0 as i128)))
    }

    pub fn all(x: &[V], _: DType) -> Option<(DType, V)> {
        Some((DType::Bool, B(x.iter().all(|&v| truthy(v)))))
    }

    pub fn any(x: &[V], _: DType) -> Option<(DType, V)> {
        Some((DType::Bool, B(x.iter().any(|&v| truthy(v)))))
    }

    pub fn count_nonzero(x: &[V], _: DType) -> Option<(DType, V)> {
        Some((
            DType::I64,
            I(x.iter().filter(|&&v| truthy(v)).count() as i128),
        ))
    }

    /// `sum`: bools and signed integers in int64, unsigned in uint64 (wrapping: the same in
    /// any order); floats and complex values in their own type (a NaN, or +inf with -inf,
    /// gives NaN; the grids hold both).
    pub fn sum(x: &[V], d: DType) -> Option<(DType, V)> {
        Some(match d.kind() {
            DTypeKind::Bool | DTypeKind::SignedInt => {
                let s = x.iter().map(|&v| super::as_int(v)).sum::<i128>();
                (DType::I64, I(wrap(s, DType::I64)))
            }
            DTypeKind::UnsignedInt => {
                let s = x.iter().map(|&v| super::as_int(v)).sum::<i128>();
                (DType::U64, I(wrap(s, DType::U64)))
            }
            DTypeKind::Float => (d, F(x.iter().map(|&v| as_c(v).0).sum::<f64>())),
            DTypeKind::Complex => {
                let re = x.iter().map(|&v| as_c(v).0).sum::<f64>();
                let im = x.iter().map(|&v| as_c(v).1).sum::<f64>();
                (d, C(re, im))
            }
            DTypeKind::Record => return None,
        })
    }
}
