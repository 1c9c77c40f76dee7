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
