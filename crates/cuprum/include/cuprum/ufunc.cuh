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
// NumPy's sign: -1, 0 or 1 (NaN stays NaN; -0.0 gives 0).
template <typename T>
__device__ __forceinline__ T sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == T(0) ? T(0) : x));
}
#ifdef CUPRUM_COMPLEX_CUH  // the complex functions, with complex.cuh only
// NumPy 2's complex sign, z / |z|: 0 for 0 (+0 + i0 for every signed zero); at an infinite
// |z| the unit of the infinite part (+-1 + i0 or 0 +- i: the other part may be NaN), NaN
// when both parts are infinite; NaN + i NaN for a NaN |z| (hypot(inf, nan) is inf).
template <typename T>
__device__ __forceinline__ complex<T> sign(complex<T> z) {
  const T a = abs(z);
  if (::isfinite(a) && a != T(0)) return complex<T>(z.re / a, z.im / a);
  const T nan = cx_limits<T>::nan();
  if (a == T(0)) return complex<T>(T(0), T(0));
  if (::isnan(a)) return complex<T>(nan, nan);
  if (::isinf(z.re)) {
    if (::isinf(z.im)) return complex<T>(nan, nan);
    return complex<T>(z.re > T(0) ? T(1) : T(-1), T(0));
  }
  return complex<T>(T(0), z.im > T(0) ? T(1) : T(-1));
}
// NumPy's complex square: fma(x, x, -y^2) + i (xy + yx), so that (1e308 + 1e308i)^2 is
// -inf + i inf as in NumPy (its loop rounds the real part once).
template <typename T>
__device__ __forceinline__ complex<T> square(complex<T> z) {
  return complex<T>(::fma(z.re, z.re, -(z.im * z.im)), z.re * z.im + z.im * z.re);
}
// NumPy's complex reciprocal: Smith's division of 1 by z (signed zeros and infinities as
// NumPy's loop gives them: 1 / (x + i0) = 1/x - i0; 1 / 0 = inf + i nan).
template <typename T>
__device__ __forceinline__ complex<T> reciprocal(complex<T> z) {
  if (fabs(z.im) <= fabs(z.re)) {
    const T r = z.im / z.re, d = z.re + z.im * r;
    return complex<T>(T(1) / d, -r / d);
  }
  const T r = z.re / z.im, d = z.re * r + z.im;
  return complex<T>(r / d, T(-1) / d);
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
// Complex logarithms and exponentials beyond complex.cuh's. NumPy defines these (they are
// not C99 functions): log2 and log10 scale log (so they take clog's Annex G cases), exp2
// is exp(z ln 2) (cexp's), expm1 and log1p are NumPy's formulas below.
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
// log(1 + z): log|1 + z| + i atan2(y, 1 + x). For small z, log|1 + z| =
// log1p(2x + x^2 + y^2) / 2, which keeps z's digits; elsewhere NumPy's own
// log(hypot(1 + x, y)) (also every special value: hypot's and atan2's cases). NumPy
// computes log(hypot(1 + x, y)) everywhere, which loses small z (log1p(1e-40) is 0 there):
// cuprum keeps the accurate value (tests/complex_special.rs accepts it).
template <typename T>
__device__ __forceinline__ complex<T> log1p(complex<T> z) {
  const T x = z.re, y = z.im;
  if (fabs(x) < T(0.5) && fabs(y) < T(0.5))
    return complex<T>(::log1p(x * (T(2) + x) + y * y) / T(2), ::atan2(y, T(1) + x));
  return complex<T>(::log(hypot(T(1) + x, y)), ::atan2(y, T(1) + x));
}
// exp(z) - 1 without losing small z (NumPy's formula, special values included):
// expm1(x) cos y - 2 sin^2(y / 2) + i e^x sin y.
template <typename T>
__device__ __forceinline__ complex<T> expm1(complex<T> z) {
  const T s = ::sin(z.im / T(2));
  return complex<T>(::expm1(z.re) * ::cos(z.im) - T(2) * s * s, ::exp(z.re) * ::sin(z.im));
}
// Inverse circular and hyperbolic functions (principal branches, C99's and NumPy's).
//
// asin_core: asin(x + iy) for finite x, y >= 0 by Hull, Fairgrieve and Tang's method
// ("Implementing the complex arcsine and arccosine functions using exception handling",
// ACM TOMS 1997): with r = |z + 1|, s = |z - 1|, A = (r + s) / 2 and B = x / A, the real
// part is asin B (acos B for acos), or an atan form where B is near 1; the imaginary part
// is log(A + sqrt(A^2 - 1)), through log1p of A - 1 computed without cancellation near A =
// 1. Large |z| takes log 2z (re = atan2(x, y), im = log|z| + ln 2) and tiny |z| gives z, so
// no square overflows or underflows. Sets re (asin's real part), ac (acos's) and im.
template <typename T>
__device__ __forceinline__ void asin_core(T x, T y, T& re, T& ac, T& im) {
  const T big = cx_limits<T>::big(), half_pi = T(CUPRUM_PI / 2);
  if (x > big || y > big) {
    re = ::atan2(x, y);
    ac = ::atan2(y, x);
    im = ::log(hypot(x * T(0.5), y * T(0.5))) + T(2 * CUPRUM_LN2);
    return;
  }
  const T eps = cx_limits<T>::eps();
  if (x < eps && y < eps) {  // asin z = z + z^3/6 + ...: z to the last bit
    re = x;
    ac = half_pi - x;
    im = y;
    return;
  }
  const T xp1 = x + T(1), xm1 = x - T(1);
  const T r = hypot(xp1, y), s = hypot(xm1, y);
  const T a = (r + s) / T(2), b = x / a, y2 = y * y;
  if (b <= T(0.6417)) {
    re = ::asin(b);
    ac = ::acos(b);
  } else if (x <= T(1)) {
    const T d = ::sqrt((a + x) / T(2) * (y2 / (r + xp1) + (s - xm1)));
    re = ::atan(x / d);
    ac = ::atan(d / x);
  } else {
    const T apx = a + x;
    const T d = y * ::sqrt((apx / (r + xp1) + apx / (s + xm1)) / T(2));
    re = ::atan(x / d);
    ac = ::atan(d / x);
  }
  if (a <= T(1.5)) {
    T am1x2;  // 2 (A - 1), not halved where it may be subnormal
    if (x < T(1)) {
      if (y < eps * (T(1) - x)) {  // y^2 would underflow: im = y / sqrt(1 - x^2)
        im = y / ::sqrt((T(1) - x) * (T(1) + x));
        return;
      }
      am1x2 = y2 / (r + xp1) + y2 / (s - xm1);
    } else {
      am1x2 = y2 / (r + xp1) + (s + xm1);
    }
    im = ::log1p(am1x2 / T(2) + ::sqrt(am1x2 * ((a + T(1)) / T(2))));
  } else {
    im = ::log(a + ::sqrt(a * a - T(1)));
  }
}
// casinh, G.6.2.2 (odd, conj-symmetric): asinh z = i asin(-iz) on |x|, |y|, signs copied
// back. Special: x = +-inf gives +-inf + i0 (y finite), +-inf + i pi/4 (y inf), +-inf + i nan
// (y nan); y = +-inf gives +-inf + i pi/2 (x finite; x nan: +inf + i nan); x = nan gives
// nan + i0 for y = 0, nan + i nan else; y = nan (x finite) gives nan + i nan.
template <typename T>
__device__ __forceinline__ complex<T> asinh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(x) && ::isfinite(y)) {
    T re, ac, im;
    asin_core(fabs(y), fabs(x), re, ac, im);
    return complex<T>(copysign(im, x), copysign(re, y));
  }
  const T nan = cx_limits<T>::nan(), inf = cx_limits<T>::inf();
  if (::isinf(x)) {
    if (::isnan(y)) return complex<T>(x, y);
    return complex<T>(x, copysign(::isinf(y) ? T(CUPRUM_PI / 4) : T(0), y));
  }
  if (::isinf(y)) return ::isnan(x) ? complex<T>(inf, nan) : complex<T>(copysign(inf, x), copysign(T(CUPRUM_PI / 2), y));
  if (::isnan(x) && y == T(0)) return complex<T>(x, y);
  return complex<T>(nan, nan);
}
// cacos, G.6.1.1 (conj-symmetric; acos(-z) = pi - acos z): asin_core's acos part.
// Special: x = nan gives nan -+ i inf for y = +-inf, nan + i nan else; y = nan gives
// pi/2 + i nan for x = 0, nan - i inf for x = +-inf (NumPy's sign of the unspecified
// infinity), nan + i nan else; y = +-inf gives pi/2 -+ i inf (finite x), pi/4 or 3pi/4 -+
// i inf (x = +inf or -inf); x = +inf gives +0 -+ i inf, x = -inf gives pi -+ i inf.
template <typename T>
__device__ __forceinline__ complex<T> acos(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(x) && ::isfinite(y)) {
    T re, ac, im;
    asin_core(fabs(x), fabs(y), re, ac, im);
    return complex<T>(x < T(0) ? T(CUPRUM_PI) - ac : ac, -copysign(im, y));
  }
  const T nan = cx_limits<T>::nan(), inf = cx_limits<T>::inf();
  if (::isnan(x)) return ::isinf(y) ? complex<T>(nan, -y) : complex<T>(nan, nan);
  if (::isnan(y)) {
    if (::isinf(x)) return complex<T>(nan, -inf);
    if (x == T(0)) return complex<T>(T(CUPRUM_PI / 2), y);
    return complex<T>(nan, nan);
  }
  if (::isinf(y)) {
    const T re = ::isinf(x) ? (x > T(0) ? T(CUPRUM_PI / 4) : T(3 * CUPRUM_PI / 4)) : T(CUPRUM_PI / 2);
    return complex<T>(re, -y);
  }
  return complex<T>(x > T(0) ? T(0) : T(CUPRUM_PI), -copysign(inf, y));
}
// cacosh, G.6.2.1: acosh z = +-i acos z, the sign that makes the real part >= 0 (the
// imaginary part takes y's sign): every case of the clause follows from cacos's (NumPy,
// with C11: acosh(+-0 + i nan) = nan + i pi/2).
template <typename T>
__device__ __forceinline__ complex<T> acosh(complex<T> z) {
  const complex<T> a = acos(z);
  return complex<T>(fabs(a.im), copysign(a.re, z.im));
}
// catanh, G.6.2.3 (odd, conj-symmetric), on |x|, |y|: re = log1p(4x / ((1 - x)^2 + y^2)) / 4,
// im = atan2(2y, (1 - x)(1 + x) - y^2) / 2; x = 1 with tiny y takes (ln 2 - log y) / 2 (the
// square underflows; atanh(1 + i0) = +inf + i0); large |z| takes 1/z + i pi/2 (scaled, no
// overflow). Special: x = nan gives +-0 +- i pi/2 for y = +-inf, nan + i nan else; y = nan
// gives +-0 + i nan for x = +-inf or +-0, nan + i nan else; any other infinite part gives
// +-0 +- i pi/2.
template <typename T>
__device__ __forceinline__ complex<T> atanh(complex<T> z) {
  const T x = z.re, y = z.im;
  const T half_pi = T(CUPRUM_PI / 2);
  if (::isfinite(x) && ::isfinite(y)) {
    const T ax = fabs(x), ay = fabs(y), big = cx_limits<T>::big();
    T re, im;
    if (ax > big || ay > big) {
      const T m = ax > ay ? ax : ay, a = ax / m, b = ay / m, n = a * a + b * b;
      re = (a / n) / m;
      im = half_pi - (b / n) / m;
    } else {
      if (ax == T(1) && ay < cx_limits<T>::eps())
        re = (T(CUPRUM_LN2) - ::log(ay)) / T(2);
      else
        re = ::log1p(T(4) * ax / ((T(1) - ax) * (T(1) - ax) + ay * ay)) / T(4);
      im = ::atan2(T(2) * ay, (T(1) - ax) * (T(1) + ax) - ay * ay) / T(2);
    }
    return complex<T>(copysign(re, x), copysign(im, y));
  }
  const T nan = cx_limits<T>::nan();
  if (::isnan(x)) return ::isinf(y) ? complex<T>(copysign(T(0), x), copysign(half_pi, y)) : complex<T>(nan, nan);
  if (::isnan(y)) return (::isinf(x) || x == T(0)) ? complex<T>(copysign(T(0), x), y) : complex<T>(nan, nan);
  return complex<T>(copysign(T(0), x), copysign(half_pi, y));
}
// casin and catan by their definitions in G.6 (through G.6.2.2 and G.6.2.3):
// asin z = -i asinh(iz), atan z = -i atanh(iz).
// NumPy: where Annex G leaves the sign of asin's infinite imaginary part open (x = +-inf,
// y = nan), asin gives +inf.
template <typename T>
__device__ __forceinline__ complex<T> asin(complex<T> z) {
  if (::isinf(z.re) && ::isnan(z.im)) return complex<T>(z.im, cx_limits<T>::inf());
  const complex<T> r = asinh(complex<T>(-z.im, z.re));
  return complex<T>(r.im, -r.re);
}
// NumPy: atan(+-inf + i nan) = +-pi/2 + i0 (Annex G leaves the zero's sign open; through
// atanh it would follow the NaN's sign bit, which differs between CPUs and GPUs).
template <typename T>
__device__ __forceinline__ complex<T> atan(complex<T> z) {
  if (::isinf(z.re) && ::isnan(z.im)) return complex<T>(copysign(T(CUPRUM_PI / 2), z.re), T(0));
  const complex<T> r = atanh(complex<T>(-z.im, z.re));
  return complex<T>(r.im, -r.re);
}
#endif  // CUPRUM_COMPLEX_CUH
// hypot with the C library's (NumPy's) answer where CUDA's overflows: CUDA gives inf for
// hypot(1, DBL_MAX) (its scaling rounds past the largest finite value); there the larger
// part times sqrt(1 + r^2), r = smaller / larger, is the finite answer.
template <typename T>
__device__ __forceinline__ T safe_hypot(T x, T y) {
  const T h = hypot(x, y);
  if (!::isinf(h) || ::isinf(x) || ::isinf(y)) return h;
  const T a = fmax(fabs(x), fabs(y)), b = fmin(fabs(x), fabs(y)), r = b / a;
  return a * ::sqrt(T(1) + r * r);
}
// signbit of a float or double. The host device reads the bit itself: GCC 12's vectorizer
// stops with an internal compiler error on signbit feeding a select (a fused copysign).
template <typename F>
__device__ __forceinline__ bool sign_bit(F x) {
#ifdef __CUPRUM_HOST__
  unsigned long long b = 0;
  memcpy(&b, &x, sizeof(F));
  return ((b >> (8 * sizeof(F) - 1)) & 1ull) != 0;
#else
  return signbit(x);
#endif
}
// NumPy's ldexp in double, the exponent an integer's value: beyond +-100000 every result is
// 0 or infinity, so the clamp keeps the conversion to int defined and changes nothing.
__device__ __forceinline__ double ldexp(double x, double e) {
  const double k = e < -100000.0 ? -100000.0 : (e > 100000.0 ? 100000.0 : e);
  return ::ldexp(x, (int)k);
}
// NumPy's frexp in double: infinities and NaN keep their value with exponent 0 (x - x is 0
// exactly for finite x).
__device__ __forceinline__ double frexp_mantissa(double x) {
  int n = 0;
  return x - x != 0.0 ? x : ::frexp(x, &n);
}
__device__ __forceinline__ int frexp_exponent(double x) {
  int n = 0;
  if (x - x == 0.0) (void)::frexp(x, &n);
  return n;
}
// NumPy's nextafter of a 16-bit float (cuprum's float16 or bfloat16, both sign and
// magnitude with the magnitude's bits ordered as its values): one step of the last bit,
// away from zero or towards it; from zero, the smallest subnormal with the sign of `y`.
template <typename H>
__device__ __forceinline__ H nextafter16(H x, H y) {
  const float fx = (float)x, fy = (float)y;
  if (fx != fx || fy != fy) return H(fx + fy);
  if (fx == fy) return y;
  H r = x;
  if (fx == 0.0f) {
    r.bits = (unsigned short)(fy < 0.0f ? 0x8001u : 0x0001u);
  } else {
    r.bits = (unsigned short)(((fy > fx) == (fx > 0.0f)) ? x.bits + 1u : x.bits - 1u);
  }
  return r;
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
#ifdef CUPRUM_COMPLEX_CUH
// Complex numbers order lexicographically (real part, then imaginary part), as in NumPy.
template <typename T>
__device__ __forceinline__ bool lex_less(complex<T> x, complex<T> y) { return x.re < y.re || (x.re == y.re && x.im < y.im); }
template <typename T>
__device__ __forceinline__ bool lex_less_equal(complex<T> x, complex<T> y) { return x.re < y.re || (x.re == y.re && x.im <= y.im); }
template <typename T>
__device__ __forceinline__ bool lex_greater(complex<T> x, complex<T> y) { return x.re > y.re || (x.re == y.re && x.im > y.im); }
template <typename T>
__device__ __forceinline__ bool lex_greater_equal(complex<T> x, complex<T> y) { return x.re > y.re || (x.re == y.re && x.im >= y.im); }
// NumPy's complex maximum / minimum (loops.c.src, CGE / CLE): x when either of its parts is
// NaN or it orders at or past y (a NaN in y's imaginary part stops a win on the real part),
// else y — so a NaN in either operand propagates.
template <typename T>
__device__ __forceinline__ complex<T> maximum(complex<T> x, complex<T> y) {
  const bool ge = (x.re > y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im >= y.im);
  return (x.re != x.re || x.im != x.im || ge) ? x : y;
}
template <typename T>
__device__ __forceinline__ complex<T> minimum(complex<T> x, complex<T> y) {
  const bool le = (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im <= y.im);
  return (x.re != x.re || x.im != x.im || le) ? x : y;
}
#endif  // CUPRUM_COMPLEX_CUH
}  // namespace cuprum
