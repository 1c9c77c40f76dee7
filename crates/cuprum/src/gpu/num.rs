//! The numeric traits of kernels written in Rust: [`Scalar`] (every element type, with its
//! CUDA name), [`Num`], [`Int`] and [`Float`] (the bounds of generic kernels, with the
//! methods kernels may call), and the atomic capability traits.
//!
//! Their host implementations give a `#[cuprum::device]` function called on the CPU the same
//! results as on the GPU, up to the last bits of transcendental functions: integer
//! arithmetic wraps as in a Rust release build, f16/bf16 math goes through f32 and rounds
//! once, as the device does.

use crate::array::DType;
use half::{bf16, f16};
use std::ops::{
    Add, AddAssign, BitAnd, BitOr, BitXor, Div, DivAssign, Mul, MulAssign, Neg, Not, Rem,
    RemAssign, Shl, Shr, Sub, SubAssign,
};

mod sealed {
    pub trait Sealed {}
}

/// A type kernels can take as a scalar or slice element: bool, the integers, f16, bf16,
/// f32, f64.
///
/// ```
/// use cuprum::gpu::Scalar;
/// assert_eq!(<f32 as Scalar>::CUDA_NAME, "float");
/// assert_eq!(<i64 as Scalar>::CUDA_NAME, "long long");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter or slice element",
    note = "kernels take bool, i8–i64, isize, u8–u64, usize, f16, bf16, f32 and f64"
)]
pub trait Scalar:
    Copy
    + Default
    + PartialEq
    + PartialOrd
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
    + crate::array::DeviceField
    + sealed::Sealed
{
    /// The C++ type generated kernels use (`float`, `long long`, `float16` …).
    const CUDA_NAME: &'static str;
    /// The array dtype of the same layout (usize/isize: uint64/int64).
    const DTYPE: DType;
    /// A number unique to each C++ type (the key of a generic kernel's instantiations).
    const KEY: u64;
}

/// Numbers: what generic kernels over `T: Num` may do besides arithmetic.
pub trait Num:
    Scalar
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + RemAssign
{
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// `v as Self` (f16/bf16: rounded to nearest).
    fn from_f32(v: f32) -> Self;
    /// `v as Self` (f16/bf16: rounded to nearest).
    fn from_f64(v: f64) -> Self;
    /// `v as Self`.
    fn from_i32(v: i32) -> Self;
    /// `self as f32`.
    fn to_f32(self) -> f32;
    /// `self as f64`.
    fn to_f64(self) -> f64;
}

/// Integers: bit operations and the integer methods kernels may call.
pub trait Int:
    Num
    + Eq
    + Ord
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// Number of one bits.
    fn count_ones(self) -> u32;
    /// Number of leading zero bits.
    fn leading_zeros(self) -> u32;
    /// Number of trailing zero bits.
    fn trailing_zeros(self) -> u32;
    /// `self` to the power `e`, wrapping.
    fn pow(self, e: u32) -> Self;
    /// Wrapping `+`.
    fn wrapping_add(self, o: Self) -> Self;
    /// Wrapping `-`.
    fn wrapping_sub(self, o: Self) -> Self;
    /// Wrapping `*`.
    fn wrapping_mul(self, o: Self) -> Self;
}

/// Floats (f16, bf16, f32, f64): the math methods kernels may call (the functions of
/// [`ops`](crate::ops) and more).
pub trait Float: Num + Neg<Output = Self> {
    /// The smaller (NaN loses, as `f32::min`).
    fn min(self, other: Self) -> Self;
    /// The larger (NaN loses, as `f32::max`).
    fn max(self, other: Self) -> Self;
    /// `self` limited to `[lo, hi]` (NaN stays NaN).
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// |x|
    fn abs(self) -> Self;
    /// √x
    fn sqrt(self) -> Self;
    /// ∛x
    fn cbrt(self) -> Self;
    /// eˣ
    fn exp(self) -> Self;
    /// 2ˣ
    fn exp2(self) -> Self;
    /// eˣ − 1
    fn exp_m1(self) -> Self;
    /// ln x
    fn ln(self) -> Self;
    /// ln(1 + x)
    fn ln_1p(self) -> Self;
    /// log₂ x
    fn log2(self) -> Self;
    /// log₁₀ x
    fn log10(self) -> Self;
    /// log of `self` in `base`
    fn log(self, base: Self) -> Self;
    /// sine
    fn sin(self) -> Self;
    /// cosine
    fn cos(self) -> Self;
    /// tangent
    fn tan(self) -> Self;
    /// arcsine
    fn asin(self) -> Self;
    /// arccosine
    fn acos(self) -> Self;
    /// arctangent
    fn atan(self) -> Self;
    /// four-quadrant arctangent of `self` (y) and `x`
    fn atan2(self, x: Self) -> Self;
    /// hyperbolic sine
    fn sinh(self) -> Self;
    /// hyperbolic cosine
    fn cosh(self) -> Self;
    /// hyperbolic tangent
    fn tanh(self) -> Self;
    /// inverse hyperbolic sine
    fn asinh(self) -> Self;
    /// inverse hyperbolic cosine
    fn acosh(self) -> Self;
    /// inverse hyperbolic tangent
    fn atanh(self) -> Self;
    /// ⌊x⌋
    fn floor(self) -> Self;
    /// ⌈x⌉
    fn ceil(self) -> Self;
    /// nearest integer, halves away from zero
    fn round(self) -> Self;
    /// nearest integer, halves to even
    fn round_ties_even(self) -> Self;
    /// integer part
    fn trunc(self) -> Self;
    /// fractional part
    fn fract(self) -> Self;
    /// xʸ
    fn powf(self, y: Self) -> Self;
    /// xⁿ
    fn powi(self, n: i32) -> Self;
    /// √(x² + y²)
    fn hypot(self, y: Self) -> Self;
    /// x·a + b with one rounding
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// 1/x
    fn recip(self) -> Self;
    /// sign (±1, NaN stays NaN)
    fn signum(self) -> Self;
    /// magnitude of `self`, sign of `sign`
    fn copysign(self, sign: Self) -> Self;
    /// whether NaN
    fn is_nan(self) -> bool;
    /// whether finite
    fn is_finite(self) -> bool;
    /// whether ±∞
    fn is_infinite(self) -> bool;
}

macro_rules! scalar {
    ($($t:ty => $cuda:literal, $dtype:ident, $key:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const CUDA_NAME: &'static str = $cuda;
            const DTYPE: DType = DType::$dtype;
            const KEY: u64 = $key;
        }
    )*};
}
scalar! {
    bool => "bool", Bool, 1;
    i8 => "signed char", I8, 2;
    i16 => "short", I16, 3;
    i32 => "int", I32, 4;
    i64 => "long long", I64, 5;
    isize => "long long", I64, 5;
    u8 => "unsigned char", U8, 6;
    u16 => "unsigned short", U16, 7;
    u32 => "unsigned int", U32, 8;
    u64 => "unsigned long long", U64, 9;
    usize => "unsigned long long", U64, 9;
    f16 => "float16", F16, 10;
    bf16 => "bfloat16", BF16, 11;
    f32 => "float", F32, 12;
    f64 => "double", F64, 13;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn zero() -> Self { 0 }
            fn one() -> Self { 1 }
            fn from_f32(v: f32) -> Self { v as $t }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_i32(v: i32) -> Self { v as $t }
            fn to_f32(self) -> f32 { self as f32 }
            fn to_f64(self) -> f64 { self as f64 }
        }
        impl Int for $t {
            fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
            fn pow(self, e: u32) -> Self { <$t>::wrapping_pow(self, e) }
            fn wrapping_add(self, o: Self) -> Self { <$t>::wrapping_add(self, o) }
            fn wrapping_sub(self, o: Self) -> Self { <$t>::wrapping_sub(self, o) }
            fn wrapping_mul(self, o: Self) -> Self { <$t>::wrapping_mul(self, o) }
        }
    )*};
}
int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_native {
    ($($t:ident),*) => {$(
        impl Num for $t {
            fn zero() -> Self { 0.0 }
            fn one() -> Self { 1.0 }
            fn from_f32(v: f32) -> Self { v as $t }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_i32(v: i32) -> Self { v as $t }
            fn to_f32(self) -> f32 { self as f32 }
            fn to_f64(self) -> f64 { self as f64 }
        }
        impl Float for $t {
            fn min(self, o: Self) -> Self { <$t>::min(self, o) }
            fn max(self, o: Self) -> Self { <$t>::max(self, o) }
            fn clamp(self, lo: Self, hi: Self) -> Self {
                let mut x = self;
                if x < lo { x = lo; }
                if x > hi { x = hi; }
                x
            }
            fn abs(self) -> Self { <$t>::abs(self) }
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn cbrt(self) -> Self { <$t>::cbrt(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn exp2(self) -> Self { <$t>::exp2(self) }
            fn exp_m1(self) -> Self { <$t>::exp_m1(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            fn log2(self) -> Self { <$t>::log2(self) }
            fn log10(self) -> Self { <$t>::log10(self) }
            fn log(self, b: Self) -> Self { <$t>::ln(self) / <$t>::ln(b) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn asin(self) -> Self { <$t>::asin(self) }
            fn acos(self) -> Self { <$t>::acos(self) }
            fn atan(self) -> Self { <$t>::atan(self) }
            fn atan2(self, x: Self) -> Self { <$t>::atan2(self, x) }
            fn sinh(self) -> Self { <$t>::sinh(self) }
            fn cosh(self) -> Self { <$t>::cosh(self) }
            fn tanh(self) -> Self { <$t>::tanh(self) }
            fn asinh(self) -> Self { <$t>::asinh(self) }
            fn acosh(self) -> Self { <$t>::acosh(self) }
            fn atanh(self) -> Self { <$t>::atanh(self) }
            fn floor(self) -> Self { <$t>::floor(self) }
            fn ceil(self) -> Self { <$t>::ceil(self) }
            fn round(self) -> Self { <$t>::round(self) }
            fn round_ties_even(self) -> Self { <$t>::round_ties_even(self) }
            fn trunc(self) -> Self { <$t>::trunc(self) }
            fn fract(self) -> Self { <$t>::fract(self) }
            fn powf(self, y: Self) -> Self { <$t>::powf(self, y) }
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            fn hypot(self, y: Self) -> Self { <$t>::hypot(self, y) }
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
            fn recip(self) -> Self { <$t>::recip(self) }
            fn signum(self) -> Self { <$t>::signum(self) }
            fn copysign(self, s: Self) -> Self { <$t>::copysign(self, s) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_infinite(self) -> bool { <$t>::is_infinite(self) }
        }
    )*};
}
float_native!(f32, f64);

/// f16/bf16 math: through f32, rounded once at the end (as the device computes it).
macro_rules! float_half {
    ($($t:ident),*) => {$(
        impl Num for $t {
            fn zero() -> Self { $t::ZERO }
            fn one() -> Self { $t::ONE }
            fn from_f32(v: f32) -> Self { $t::from_f32(v) }
            fn from_f64(v: f64) -> Self { $t::from_f64(v) }
            fn from_i32(v: i32) -> Self { $t::from_f32(v as f32) }
            fn to_f32(self) -> f32 { $t::to_f32(self) }
            fn to_f64(self) -> f64 { $t::to_f64(self) }
        }
        impl Float for $t {
            fn min(self, o: Self) -> Self { $t::from_f32(self.to_f32().min(o.to_f32())) }
            fn max(self, o: Self) -> Self { $t::from_f32(self.to_f32().max(o.to_f32())) }
            fn clamp(self, lo: Self, hi: Self) -> Self {
                let mut x = self;
                if x < lo { x = lo; }
                if x > hi { x = hi; }
                x
            }
            fn abs(self) -> Self { $t::from_f32(self.to_f32().abs()) }
            fn sqrt(self) -> Self { $t::from_f32(self.to_f32().sqrt()) }
            fn cbrt(self) -> Self { $t::from_f32(self.to_f32().cbrt()) }
            fn exp(self) -> Self { $t::from_f32(self.to_f32().exp()) }
            fn exp2(self) -> Self { $t::from_f32(self.to_f32().exp2()) }
            fn exp_m1(self) -> Self { $t::from_f32(self.to_f32().exp_m1()) }
            fn ln(self) -> Self { $t::from_f32(self.to_f32().ln()) }
            fn ln_1p(self) -> Self { $t::from_f32(self.to_f32().ln_1p()) }
            fn log2(self) -> Self { $t::from_f32(self.to_f32().log2()) }
            fn log10(self) -> Self { $t::from_f32(self.to_f32().log10()) }
            fn log(self, b: Self) -> Self { $t::from_f32(self.to_f32().ln() / b.to_f32().ln()) }
            fn sin(self) -> Self { $t::from_f32(self.to_f32().sin()) }
            fn cos(self) -> Self { $t::from_f32(self.to_f32().cos()) }
            fn tan(self) -> Self { $t::from_f32(self.to_f32().tan()) }
            fn asin(self) -> Self { $t::from_f32(self.to_f32().asin()) }
            fn acos(self) -> Self { $t::from_f32(self.to_f32().acos()) }
            fn atan(self) -> Self { $t::from_f32(self.to_f32().atan()) }
            fn atan2(self, x: Self) -> Self { $t::from_f32(self.to_f32().atan2(x.to_f32())) }
            fn sinh(self) -> Self { $t::from_f32(self.to_f32().sinh()) }
            fn cosh(self) -> Self { $t::from_f32(self.to_f32().cosh()) }
            fn tanh(self) -> Self { $t::from_f32(self.to_f32().tanh()) }
            fn asinh(self) -> Self { $t::from_f32(self.to_f32().asinh()) }
            fn acosh(self) -> Self { $t::from_f32(self.to_f32().acosh()) }
            fn atanh(self) -> Self { $t::from_f32(self.to_f32().atanh()) }
            fn floor(self) -> Self { $t::from_f32(self.to_f32().floor()) }
            fn ceil(self) -> Self { $t::from_f32(self.to_f32().ceil()) }
            fn round(self) -> Self { $t::from_f32(self.to_f32().round()) }
            fn round_ties_even(self) -> Self { $t::from_f32(self.to_f32().round_ties_even()) }
            fn trunc(self) -> Self { $t::from_f32(self.to_f32().trunc()) }
            fn fract(self) -> Self { $t::from_f32(self.to_f32().fract()) }
            fn powf(self, y: Self) -> Self { $t::from_f32(self.to_f32().powf(y.to_f32())) }
            fn powi(self, n: i32) -> Self {
                // The device's algorithm (repeated squaring in the type itself).
                let (mut x, mut n, inv) = (self, n, n < 0);
                let mut r = $t::ONE;
                loop {
                    if n & 1 != 0 { r *= x; }
                    n /= 2;
                    if n == 0 { break; }
                    x *= x;
                }
                if inv { $t::ONE / r } else { r }
            }
            fn hypot(self, y: Self) -> Self { $t::from_f32(self.to_f32().hypot(y.to_f32())) }
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::from_f32(self.to_f32().mul_add(a.to_f32(), b.to_f32()))
            }
            fn recip(self) -> Self { $t::from_f32(1.0 / self.to_f32()) }
            fn signum(self) -> Self { $t::from_f32(self.to_f32().signum()) }
            fn copysign(self, s: Self) -> Self { $t::from_f32(self.to_f32().copysign(s.to_f32())) }
            fn is_nan(self) -> bool { self.to_f32().is_nan() }
            fn is_finite(self) -> bool { self.to_f32().is_finite() }
            fn is_infinite(self) -> bool { self.to_f32().is_infinite() }
        }
    )*};
}
float_half!(f16, bf16);

/// Element types of `atomic_add` / `atomic_sub`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic add/sub on the GPU",
    note = "atomic_add and atomic_sub work on i32, u32, i64, u64, f32 and f64"
)]
pub trait AtomicAdd: Scalar {
    #[doc(hidden)]
    fn host_add(self, v: Self) -> Self;
    #[doc(hidden)]
    fn host_sub(self, v: Self) -> Self;
}
/// Element types of `atomic_min` / `atomic_max` / `atomic_exch` / `atomic_cas`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic min/max/exch/cas on the GPU",
    note = "these atomics work on i32, u32, i64, u64, f32 and f64"
)]
pub trait AtomicOrd: Scalar {
    #[doc(hidden)]
    fn host_min(self, v: Self) -> Self;
    #[doc(hidden)]
    fn host_max(self, v: Self) -> Self;
}
/// Element types of `atomic_and` / `atomic_or` / `atomic_xor`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic bit operations on the GPU",
    note = "atomic_and, atomic_or and atomic_xor work on i32, u32, i64 and u64"
)]
pub trait AtomicBits:
    Scalar + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self>
{
}

macro_rules! atomic_int {
    ($($t:ty),*) => {$(
        impl AtomicAdd for $t {
            fn host_add(self, v: Self) -> Self { self.wrapping_add(v) }
            fn host_sub(self, v: Self) -> Self { self.wrapping_sub(v) }
        }
        impl AtomicOrd for $t {
            fn host_min(self, v: Self) -> Self { Ord::min(self, v) }
            fn host_max(self, v: Self) -> Self { Ord::max(self, v) }
        }
        impl AtomicBits for $t {}
    )*};
}
atomic_int!(i32, u32, i64, u64);
macro_rules! atomic_float {
    ($($t:ty),*) => {$(
        impl AtomicAdd for $t {
            fn host_add(self, v: Self) -> Self { self + v }
            fn host_sub(self, v: Self) -> Self { self - v }
        }
        impl AtomicOrd for $t {
            fn host_min(self, v: Self) -> Self { <$t>::min(self, v) }
            fn host_max(self, v: Self) -> Self { <$t>::max(self, v) }
        }
    )*};
}
atomic_float!(f32, f64);

/// Integer types usable as indices and `grid_stride` bounds (any integer, as in kernels
/// `x[i]` takes any integer type; a negative index is out of bounds).
pub trait IntIndex: Copy + sealed::Sealed {
    /// The index as `usize`, `None` when negative or too large.
    fn to_index(self) -> Option<usize>;
    #[doc(hidden)]
    fn to_i128(self) -> i128;
    #[doc(hidden)]
    fn from_i128(v: i128) -> Self;
}
macro_rules! int_index {
    ($($t:ty),*) => {$(
        impl IntIndex for $t {
            fn to_index(self) -> Option<usize> { usize::try_from(self).ok() }
            fn to_i128(self) -> i128 { self as i128 }
            fn from_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
int_index!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
