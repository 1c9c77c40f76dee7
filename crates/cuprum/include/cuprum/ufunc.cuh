// cuprum/ufunc.cuh — the built-in element-wise operations whose NumPy semantics take more
// than one expression (ops/ufunc.rs writes every operation as a call or an expression, for
// the `ops` kernels and for `fuse` alike). Operands arrive in the operation's loop type.
#pragma once
namespace cuprum {
// Whether a 64-bit integer fits 32 bits (then 64-bit division takes the much cheaper
// 32-bit instruction sequence; narrower types always do).
template <typename T>
__device__ __forceinline__ bool fits_i32(T v) {
  return sizeof(T) < 8 || (unsigned long long)(long long)v + 0x80000000ull < 0x100000000ull;
}
template <typename T>
__device__ __forceinline__ bool fits_u32(T v) {
  return sizeof(T) < 8 || (unsigned long long)v < 0x100000000ull;
}
// Truncating quotient and remainder of signed x / y, y not 0 or -1.
template <typename T>
__device__ __forceinline__ void divmod_trunc(T x, T y, T& q, T& r) {
  if (fits_i32(x) && fits_i32(y)) {
    const int qi = (int)x / (int)y;
    q = (T)qi;
  } else {
    q = x / y;
  }
  r = (T)(x - q * y);
}
template <typename T>
__device__ __forceinline__ T div_unsigned(T x, T y) {
  return (fits_u32(x) && fits_u32(y)) ? (T)((unsigned int)x / (unsigned int)y) : (T)(x / y);
}
// NumPy's remainder: the sign of the divisor; integer division by zero (and by -1) gives 0.
template <typename T>
__device__ __forceinline__ T remainder_signed(T x, T y) {
  if (y == 0 || y == (T)-1) return (T)0;
  T q, r;
  divmod_trunc(x, y, q, r);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
template <typename T>
__device__ __forceinline__ T remainder_unsigned(T x, T y) {
  return y == 0 ? (T)0 : (T)(x - div_unsigned(x, y) * y);
}
// NumPy's floor_divide of integers: the quotient rounded toward minus infinity; a zero
// divisor gives 0 and MIN // -1 wraps to MIN (NumPy's results, without a fault).
template <typename T>
__device__ __forceinline__ T floor_divide_signed(T x, T y) {
  if (y == 0) return (T)0;
  if (y == (T)-1) return (T)(0ull - (unsigned long long)(long long)x);
  T q, r;
  divmod_trunc(x, y, q, r);
  return (r != 0 && ((r < 0) != (y < 0))) ? (T)(q - 1) : q;
}
template <typename T>
__device__ __forceinline__ T floor_divide_unsigned(T x, T y) {
  return y == 0 ? (T)0 : div_unsigned(x, y);
}
// NumPy's floor_divide of floats (npy_divmod): the floored quotient of (x - fmod(x, y)) / y,
// snapped to the nearest integer; a zero divisor gives x / y.
template <typename F>
__device__ __forceinline__ F floor_divide_float(F x, F y) {
  if (y == F(0)) return x / y;
  const F mod = fmod(x, y);
  F div = (x - mod) / y;
  if (mod != F(0)) {
    if ((y < F(0)) != (mod < F(0))) div -= F(1);
  }
  if (div != F(0)) {
    F fl = floor(div);
    if (div - fl > F(0.5)) fl += F(1);
    return fl;
  }
  return copysign(F(0), x / y);
}
// C's fmod of integers (the sign of the dividend); a zero divisor gives 0.
template <typename T>
__device__ __forceinline__ T fmod_signed(T x, T y) {
  if (y == 0 || y == (T)-1) return (T)0;
  T q, r;
  divmod_trunc(x, y, q, r);
  return r;
}
// Shifts as NumPy defines them: an amount outside [0, bits) shifts every bit out (left: 0;
// right: 0, or -1 for a negative signed value); signed left shifts wrap.
template <typename T>
__device__ __forceinline__ T left_shift(T x, T n) {
  if ((unsigned long long)(long long)n >= 8 * sizeof(T)) return (T)0;
  return (T)((unsigned long long)(long long)x << (int)n);
}
template <typename T>
__device__ __forceinline__ T right_shift_signed(T x, T n) {
  if ((unsigned long long)(long long)n >= 8 * sizeof(T)) return (T)(x < 0 ? -1 : 0);
  return (T)(x >> (int)n);
}
template <typename T>
__device__ __forceinline__ T right_shift_unsigned(T x, T n) {
  if ((unsigned long long)n >= 8 * sizeof(T)) return (T)0;
  return (T)(x >> (int)n);
}
// 1 / x of an integer (truncated); 1 / 0 gives 0, as integer division by zero does.
template <typename T>
__device__ __forceinline__ T reciprocal_signed(T x) {
  return (x == 1 || x == -1) ? x : (T)0;
}
template <typename T>
__device__ __forceinline__ T reciprocal_unsigned(T x) {
  return x == 1 ? (T)1 : (T)0;
}
// NumPy's sign: -1, 0 or 1 (NaN stays NaN; -0.0 gives 0); complex: z / |z| (0 for 0).
template <typename T>
__device__ __forceinline__ T sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
}
template <typename T>
__device__ __forceinline__ complex<T> sign(complex<T> z) {
  const T a = abs(z);
  if (a == T(0)) return complex<T>(T(0), T(0));
  return complex<T>(z.re / a, z.im / a);
}
// Rounding and predicates of complex numbers (each part).
template <typename T>
__device__ __forceinline__ complex<T> rint(complex<T> z) { return complex<T>(::rint(z.re), ::rint(z.im)); }
template <typename T>
__device__ __forceinline__ bool isnan(complex<T> z) { return ::isnan(z.re) || ::isnan(z.im); }
template <typename T>
__device__ __forceinline__ bool isinf(complex<T> z) { return ::isinf(z.re) || ::isinf(z.im); }
template <typename T>
__device__ __forceinline__ bool isfinite(complex<T> z) { return ::isfinite(z.re) && ::isfinite(z.im); }
// Complex logarithms and exponentials beyond complex.cuh's.
template <typename T>
__device__ __forceinline__ complex<T> log2(complex<T> z) {
  const complex<T> l = log(z);
  const T k = T(1.4426950408889634);  // 1 / ln 2
  return complex<T>(l.re * k, l.im * k);
}
template <typename T>
__device__ __forceinline__ complex<T> log10(complex<T> z) {
  const complex<T> l = log(z);
  const T k = T(0.43429448190325176);  // 1 / ln 10
  return complex<T>(l.re * k, l.im * k);
}
template <typename T>
__device__ __forceinline__ complex<T> exp2(complex<T> z) {
  const T k = T(0.6931471805599453);  // ln 2
  return exp(complex<T>(z.re * k, z.im * k));
}
// log(1 + z) without losing small z: log|1 + z| = log1p(2x + x^2 + y^2) / 2.
template <typename T>
__device__ __forceinline__ complex<T> log1p(complex<T> z) {
  const T x = z.re, y = z.im;
  return complex<T>(::log1p(x * (T(2) + x) + y * y) / T(2), ::atan2(y, T(1) + x));
}
// exp(z) - 1 without losing small z: expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y.
template <typename T>
__device__ __forceinline__ complex<T> expm1(complex<T> z) {
  const T s = ::sin(z.im / T(2));
  return complex<T>(::expm1(z.re) * ::cos(z.im) - T(2) * s * s, ::exp(z.re) * ::sin(z.im));
}
// Inverse hyperbolic and circular functions of complex numbers (principal branches, as
// NumPy): asinh(z) = log(z + sqrt(z^2 + 1)), computed for Re z >= 0 (odd symmetry).
template <typename T>
__device__ __forceinline__ complex<T> asinh(complex<T> z) {
  const bool neg = z.re < T(0);
  const complex<T> w = neg ? -z : z;
  const complex<T> r = log(w + sqrt(w * w + complex<T>(T(1), T(0))));
  return neg ? -r : r;
}
template <typename T>
__device__ __forceinline__ complex<T> acosh(complex<T> z) {
  const complex<T> one(T(1), T(0));
  return log(z + sqrt(z + one) * sqrt(z - one));
}
template <typename T>
__device__ __forceinline__ complex<T> atanh(complex<T> z) {
  const complex<T> one(T(1), T(0));
  const complex<T> d = log(one + z) - log(one - z);
  return complex<T>(d.re / T(2), d.im / T(2));
}
// asin(z) = -i asinh(iz), atan(z) = -i atanh(iz), acos(z) = pi/2 - asin(z).
template <typename T>
__device__ __forceinline__ complex<T> asin(complex<T> z) {
  const complex<T> r = asinh(complex<T>(-z.im, z.re));
  return complex<T>(r.im, -r.re);
}
template <typename T>
__device__ __forceinline__ complex<T> atan(complex<T> z) {
  const complex<T> r = atanh(complex<T>(-z.im, z.re));
  return complex<T>(r.im, -r.re);
}
template <typename T>
__device__ __forceinline__ complex<T> acos(complex<T> z) {
  const complex<T> a = asin(z);
  return complex<T>(T(1.5707963267948966) - a.re, -a.im);
}
template <typename F>
__device__ __forceinline__ F remainder_float(F x, F y) {
  F r = fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  else if (r == 0) r = copysign((F)0, y);
  return r;
}
// Exact integer powers by squaring; a negative exponent gives 0 except for bases 1 and -1.
template <typename T>
__device__ __forceinline__ T power_signed(T b, T e) {
  if (e < 0) return b == 1 ? (T)1 : (b == (T)-1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0);
  T r = 1;
  while (e) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
template <typename T>
__device__ __forceinline__ T power_unsigned(T b, T e) {
  T r = 1;
  while (e) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return r;
}
// maximum / minimum / clip: NaN propagates (a NaN in x wins, as in NumPy).
template <typename T>
__device__ __forceinline__ T maximum(T x, T y) { return (x > y || x != x) ? x : y; }
template <typename T>
__device__ __forceinline__ T minimum(T x, T y) { return (x < y || x != x) ? x : y; }
template <typename T>
__device__ __forceinline__ T clip(T x, T lo, T hi) { return minimum(maximum(x, lo), hi); }
// Complex numbers order lexicographically (real part, then imaginary part), as in NumPy.
template <typename T>
__device__ __forceinline__ bool lex_less(complex<T> x, complex<T> y) { return x.re < y.re || (x.re == y.re && x.im < y.im); }
template <typename T>
__device__ __forceinline__ bool lex_less_equal(complex<T> x, complex<T> y) { return x.re < y.re || (x.re == y.re && x.im <= y.im); }
template <typename T>
__device__ __forceinline__ bool lex_greater(complex<T> x, complex<T> y) { return x.re > y.re || (x.re == y.re && x.im > y.im); }
template <typename T>
__device__ __forceinline__ bool lex_greater_equal(complex<T> x, complex<T> y) { return x.re > y.re || (x.re == y.re && x.im >= y.im); }
}  // namespace cuprum
