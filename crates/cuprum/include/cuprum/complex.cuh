// cuprum/complex.cuh — complex<float> and complex<double> for generated kernels
// (layout: real part, then imaginary part, like num_complex::Complex and std::complex).
//
// Special values: the elementary functions follow C99 Annex G (G.6) at infinities, NaNs and
// signed zeros, as NumPy does (NumPy's results are the reference: tests/complex_special.rs
// compares every complex ufunc with them over the special-value grid). Each function takes
// its ordinary formula when both parts are finite and ordinary (one branch on the parts),
// and its Annex G cases only otherwise. Where NumPy deviates from C99, NumPy wins; the
// places are marked "NumPy:".
#pragma once
#define CUPRUM_COMPLEX_CUH 1
namespace cuprum {
template <typename T>
struct __align__(2 * sizeof(T)) complex {
  T re, im;
  complex() = default;
  __device__ complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  __device__ explicit complex(const complex<U>& o) : re(T(o.re)), im(T(o.im)) {}
  __device__ T real() const { return re; }
  __device__ T imag() const { return im; }
  __device__ complex& operator+=(const complex& o) { re += o.re; im += o.im; return *this; }
  __device__ complex& operator-=(const complex& o) { re -= o.re; im -= o.im; return *this; }
  __device__ complex& operator*=(const complex& o) { *this = *this * o; return *this; }
  __device__ complex& operator/=(const complex& o) { *this = *this / o; return *this; }
  __device__ friend complex operator+(complex a, complex b) { return complex(a.re + b.re, a.im + b.im); }
  __device__ friend complex operator-(complex a, complex b) { return complex(a.re - b.re, a.im - b.im); }
  // NumPy: the textbook product, without Annex G's recovery of infinities from NaN parts
  // (G.5.1's (inf + i nan) * (1 + i0) = inf + i nan stays nan + i nan there as here).
  __device__ friend complex operator*(complex a, complex b) {
    return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  // NumPy's division: Smith's algorithm (no overflow for large |b|) with a reciprocal
  // scale; a zero divisor divides each part by +0 (x / 0 = inf or nan per part, where
  // Annex G's G.5.1 would give a complex infinity).
  // Each product is rounded on its own (`mul_rn`), as NumPy's C loop rounds it: a product
  // fused with the following add (an FMA, which the GPU compiler makes by default) leaves
  // 1e-17 where NumPy's result is an exact 0 (e.g. (1 + 2.5i) / (1 + 2.5i)).
  __device__ friend complex operator/(complex a, complex b) {
    const T br = fabs(b.re), bi = fabs(b.im);
    if (br >= bi) {
      if (br == T(0) && bi == T(0)) return complex(a.re / br, a.im / br);
      const T rat = b.im / b.re, scl = T(1) / (b.re + mul_rn(b.im, rat));
      return complex((a.re + mul_rn(a.im, rat)) * scl, (a.im - mul_rn(a.re, rat)) * scl);
    }
    const T rat = b.re / b.im, scl = T(1) / (b.im + mul_rn(b.re, rat));
    return complex((mul_rn(a.re, rat) + a.im) * scl, (mul_rn(a.im, rat) - a.re) * scl);
  }
  __device__ static float mul_rn(float x, float y) { return __fmul_rn(x, y); }
  __device__ static double mul_rn(double x, double y) { return __dmul_rn(x, y); }
  __device__ friend complex operator-(complex a) { return complex(-a.re, -a.im); }
  __device__ friend bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  __device__ friend bool operator!=(complex a, complex b) { return !(a == b); }
};

// Constants of the part type: machine epsilon, the smallest normal, the largest finite
// value, and the limits of the functions' ordinary ranges.
template <typename T> struct cx_limits;
template <> struct cx_limits<float> {
  __device__ static float eps() { return 1.1920929e-7f; }
  __device__ static float min_normal() { return 1.17549435e-38f; }
  __device__ static float max() { return 3.40282347e38f; }
  __device__ static float inf() { return __int_as_float(0x7f800000); }
  __device__ static float nan() { return __int_as_float(0x7fc00000); }
  // exp(x) is finite below this; tanh(x) rounds to 1 (and the imaginary part of tanh is
  // 4 sin y cos y e^-2|x| to the last bit) above this.
  __device__ static float exp_max() { return 88.0f; }
  __device__ static float tanh_big() { return 12.0f; }
  // Above this |z| the inverse functions take their asymptotic forms (error below eps).
  __device__ static float big() { return 8192.0f; }
  // Scales of sqrt's subnormal inputs: 2^48 up and 2^-24 back.
  __device__ static float up() { return 281474976710656.0f; }
  __device__ static float down() { return 5.9604645e-8f; }
};
template <> struct cx_limits<double> {
  __device__ static double eps() { return 2.220446049250313e-16; }
  __device__ static double min_normal() { return 2.2250738585072014e-308; }
  __device__ static double max() { return 1.7976931348623157e308; }
  __device__ static double inf() { return __longlong_as_double(0x7ff0000000000000LL); }
  __device__ static double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
  __device__ static double exp_max() { return 709.0; }
  __device__ static double tanh_big() { return 22.0; }
  __device__ static double big() { return 134217728.0; }
  __device__ static double up() { return 324518553658426726783156020576256.0; }  // 2^108
  __device__ static double down() { return 5.551115123125783e-17; }               // 2^-54
};
#define CUPRUM_PI 3.14159265358979323846
#define CUPRUM_LN2 0.69314718055994530942

template <typename T> __device__ T real(complex<T> z) { return z.re; }
template <typename T> __device__ T imag(complex<T> z) { return z.im; }
template <typename T> __device__ complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }
template <typename T> __device__ T norm(complex<T> z) { return z.re * z.re + z.im * z.im; }
// |z| and arg z: hypot and atan2 carry Annex G's cases themselves (F.10.4.3: hypot(inf, nan)
// is inf; F.10.1.4: atan2 of signed zeros and infinities), which is what cabs and carg are.
template <typename T> __device__ T abs(complex<T> z) { return hypot(z.re, z.im); }
template <typename T> __device__ T arg(complex<T> z) { return atan2(z.im, z.re); }
template <typename T> __device__ complex<T> polar(T r, T t) { return complex<T>(r * cos(t), r * sin(t)); }

// cexp, G.6.3.1. Ordinary: e^x cis y. Otherwise: y = 0 keeps its zero (exp(x) + i y, also
// for x = nan or inf); x = +inf with y inf or nan gives inf + i nan, x = -inf gives +0 + i0
// (zeros of y's sign); x = nan or a finite x with y inf or nan give nan + i nan; a finite x
// past exp's range computes e^(x/2) twice so that a finite result stays finite.
template <typename T> __device__ complex<T> exp(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(y) && y != T(0) && x < cx_limits<T>::exp_max()) return polar(T(::exp(x)), y);
  if (y == T(0)) return complex<T>(::exp(x), y);
  const T nan = cx_limits<T>::nan(), inf = cx_limits<T>::inf();
  if (::isnan(x)) return complex<T>(nan, nan);
  if (!::isfinite(y)) {
    if (x == inf) return complex<T>(inf, nan);
    if (x == -inf) return complex<T>(T(0), copysign(T(0), y));
    return complex<T>(nan, nan);
  }
  if (x == inf) return complex<T>(x * ::cos(y), x * ::sin(y));
  const T h = ::exp(x / T(2));
  return complex<T>((h * ::cos(y)) * h, (h * ::sin(y)) * h);
}
// clog, G.6.3.2: log|z| + i arg z, where hypot and atan2 give every case of the clause
// (log(-0 + i0) = -inf + i pi, log(+-inf + i nan) = +inf + i nan, ...).
template <typename T> __device__ complex<T> log(complex<T> z) { return complex<T>(::log(abs(z)), arg(z)); }
// csqrt, G.6.4.2. Ordinary (finite, neither part past max/4 nor both below 4 x the
// smallest normal, which would round (|z| + |x|) / 2): t = sqrt((|z| + |x|) / 2), then
// (t, y / 2t) or (|y| / 2t, +-t). Otherwise: y = +-inf gives +inf + i y for every x (nan
// too); x = nan or y = nan (x finite) give nan + i nan; x = +inf gives +inf + i0 (nan: +inf
// + i nan), x = -inf gives +0 + i inf (nan: nan + i inf); very large or tiny parts are
// scaled by a power of 4 first.
template <typename T> __device__ complex<T> sqrt(complex<T> z) {
  T x = z.re, y = z.im;
  const T ax = fabs(x), ay = fabs(y), m = ax > ay ? ax : ay;
  T scale = T(1);
  if (!(m <= cx_limits<T>::max() / T(4) && m >= T(4) * cx_limits<T>::min_normal())) {
    const T inf = cx_limits<T>::inf(), nan = cx_limits<T>::nan();
    if (ay == inf) return complex<T>(inf, y);
    if (::isnan(x)) return complex<T>(nan, nan);
    if (x == inf) return complex<T>(inf, ::isnan(y) ? y : copysign(T(0), y));
    if (x == -inf) return ::isnan(y) ? complex<T>(nan, inf) : complex<T>(T(0), copysign(inf, y));
    if (::isnan(y)) return complex<T>(nan, nan);
    if (m == T(0)) return complex<T>(T(0), y);  // sqrt(+-0 + i(+-0)) = +0 + i(+-0)
    if (m > T(1)) {
      x *= T(0.25), y *= T(0.25), scale = T(2);
    } else {
      x *= cx_limits<T>::up(), y *= cx_limits<T>::up(), scale = cx_limits<T>::down();
    }
  }
  const T t = ::sqrt((hypot(x, y) + fabs(x)) / T(2));
  if (x >= T(0)) return complex<T>(t * scale, (y / (T(2) * t)) * scale);
  return complex<T>((fabs(y) / (T(2) * t)) * scale, copysign(t * scale, y));
}
// The product of G.5.1 (C99's multiplication of complex numbers, as glibc's cpow computes
// b log a): the textbook product, except that where both of its parts are NaN and a factor
// is infinite (or a partial product overflowed), the infinite factor becomes its unit
// direction, NaN parts become zeros, and the product is taken times infinity.
template <typename T> __device__ complex<T> mul_annex_g(complex<T> p, complex<T> q) {
  T a = p.re, b = p.im, c = q.re, d = q.im;
  const T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  const complex<T> r(ac - bd, ad + bc);
  if (!(::isnan(r.re) && ::isnan(r.im))) return r;
  bool again = false;
  if (::isinf(a) || ::isinf(b)) {
    a = copysign(::isinf(a) ? T(1) : T(0), a);
    b = copysign(::isinf(b) ? T(1) : T(0), b);
    if (::isnan(c)) c = copysign(T(0), c);
    if (::isnan(d)) d = copysign(T(0), d);
    again = true;
  }
  if (::isinf(c) || ::isinf(d)) {
    c = copysign(::isinf(c) ? T(1) : T(0), c);
    d = copysign(::isinf(d) ? T(1) : T(0), d);
    if (::isnan(a)) a = copysign(T(0), a);
    if (::isnan(b)) b = copysign(T(0), b);
    again = true;
  }
  if (!again && (::isinf(ac) || ::isinf(bd) || ::isinf(ad) || ::isinf(bc))) {
    if (::isnan(a)) a = copysign(T(0), a);
    if (::isnan(b)) b = copysign(T(0), b);
    if (::isnan(c)) c = copysign(T(0), c);
    if (::isnan(d)) d = copysign(T(0), d);
    again = true;
  }
  if (!again) return r;
  const T inf = cx_limits<T>::inf();
  return complex<T>(inf * (a * c - b * d), inf * (a * d + b * c));
}
// NumPy's power (npy_cpow): b = 0 gives 1; a = 0 gives 0 for Re b > 0 and nan + i nan
// otherwise; an integer b with |b| < 100 multiplies (textbook products: 1, 2 and 3 unrolled,
// then binary powers, a negative b divides 1 by the power); every other b is
// exp(b log a), G.6.4.1, with G.5.1's product and the Annex G cases of exp and log above
// (NumPy's, through the C library's cpow).
template <typename T> __device__ complex<T> pow(complex<T> a, complex<T> b) {
  if (b.re == T(0) && b.im == T(0)) return complex<T>(T(1), T(0));
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re > T(0)) return complex<T>(T(0), T(0));
    return complex<T>(cx_limits<T>::nan(), cx_limits<T>::nan());
  }
  if (b.im == T(0) && fabs(b.re) < T(100) && b.re == T((long long)b.re)) {
    long long n = (long long)b.re;
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * (a * a);
    if (n < 0) n = -n;
    complex<T> acc(T(1), T(0)), p = a;
    long long mask = 1;
    while (true) {
      if (n & mask) acc = acc * p;
      mask <<= 1;
      if (n < mask) break;
      p = p * p;
    }
    if (b.re < T(0)) acc = complex<T>(T(1), T(0)) / acc;
    return acc;
  }
  return exp(mul_annex_g(b, log(a)));
}
// csinh, G.6.2.5. Ordinary (finite, |x| within exp's range): sinh x cos y + i cosh x sin y.
// Otherwise: y = 0 keeps its zero (sinh x + i y, also for x = +-inf and nan); x = +-inf
// with finite y gives +-inf cis y (odd), with y inf or nan gives +inf + i nan; x = +-0 with y
// inf or nan gives +-0 + i nan; other finite x or nan x give nan + i nan; a finite x past
// exp's range computes e^(|x|/2) twice.
template <typename T> __device__ complex<T> sinh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(y) && fabs(x) < cx_limits<T>::exp_max())
    return complex<T>(::sinh(x) * ::cos(y), ::cosh(x) * ::sin(y));
  const T nan = cx_limits<T>::nan(), inf = cx_limits<T>::inf();
  if (y == T(0)) return complex<T>(::sinh(x), y);
  if (::isnan(x)) return complex<T>(nan, nan);
  if (!::isfinite(y)) {
    if (::isinf(x)) return complex<T>(inf, nan);
    if (x == T(0)) return complex<T>(x, nan);
    return complex<T>(nan, nan);
  }
  if (::isinf(x)) return complex<T>(x * ::cos(y), inf * ::sin(y));
  const T h = ::exp(fabs(x) / T(2)) / T(2), g = ::exp(fabs(x) / T(2));
  return complex<T>(copysign(T(1), x) * ((h * ::cos(y)) * g), (h * ::sin(y)) * g);
}
// ccosh, G.6.2.4. Ordinary: cosh x cos y + i sinh x sin y. Otherwise: y = 0 gives
// cosh x + i y sign(x) (also x = +-inf; x = nan gives nan + i y); x = +-inf with finite y
// gives inf cos y + i x sin y, with y inf or nan gives +inf + i nan; x = 0 with y inf or nan
// gives nan + i0 (NumPy: +0 whatever the signs); other finite x or nan x give nan + i nan;
// a finite x past exp's range computes e^(|x|/2) twice.
template <typename T> __device__ complex<T> cosh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(y) && fabs(x) < cx_limits<T>::exp_max())
    return complex<T>(::cosh(x) * ::cos(y), ::sinh(x) * ::sin(y));
  const T nan = cx_limits<T>::nan(), inf = cx_limits<T>::inf();
  if (y == T(0)) return complex<T>(::cosh(x), ::isnan(x) ? y : copysign(T(1), x) * y);
  if (::isnan(x)) return complex<T>(nan, nan);
  if (!::isfinite(y)) {
    if (::isinf(x)) return complex<T>(inf, nan);
    if (x == T(0)) return complex<T>(nan, T(0));
    return complex<T>(nan, nan);
  }
  if (::isinf(x)) return complex<T>(inf * ::cos(y), x * ::sin(y));
  const T h = ::exp(fabs(x) / T(2)) / T(2), g = ::exp(fabs(x) / T(2));
  return complex<T>((h * ::cos(y)) * g, copysign(T(1), x) * ((h * ::sin(y)) * g));
}
// ctanh, G.6.2.6. Ordinary (finite y, |x| <= tanh_big): Kahan's form, t = tan y,
// b = 1 + t^2, s = sinh x: (b s sqrt(1 + s^2) + i t) / (1 + b s^2). Otherwise: x = nan
// gives nan + i y for y = 0, nan + i nan else; |x| > tanh_big (+-inf too) with finite y
// gives +-1 + i 4 sin y cos y e^-2|x| (zero of sin 2y's sign at inf); x = +-inf with y inf
// or nan gives +-1 + i0 (zero of y's sign); x = +-0 with y inf or nan gives +-0 + i nan
// (C11's addition to G.6.2.6); other finite x give nan + i nan.
template <typename T> __device__ complex<T> tanh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::isfinite(y) && fabs(x) <= cx_limits<T>::tanh_big()) {
    const T t = ::tan(y), b = T(1) + t * t, s = ::sinh(x), d = T(1) + b * s * s;
    return complex<T>(b * s * ::sqrt(T(1) + s * s) / d, t / d);
  }
  const T nan = cx_limits<T>::nan();
  if (::isnan(x)) return complex<T>(x, y == T(0) ? y : nan);
  if (::isfinite(y)) {
    const T e = ::exp(T(-2) * fabs(x));
    return complex<T>(copysign(T(1), x), T(4) * ::sin(y) * ::cos(y) * e);
  }
  if (::isinf(x)) return complex<T>(copysign(T(1), x), copysign(T(0), y));
  if (x == T(0)) return complex<T>(x, nan);
  return complex<T>(nan, nan);
}
// csin, ccos, ctan by their definitions in G.6 (G.6.2.5, G.6.2.4, G.6.2.6 through):
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
// NumPy: where Annex G leaves the sign of an infinite imaginary part open (x inf or nan,
// y = +-inf), sin gives +inf.
template <typename T> __device__ complex<T> sin(complex<T> z) {
  if (::isinf(z.im) && !::isfinite(z.re)) return complex<T>(cx_limits<T>::nan(), cx_limits<T>::inf());
  complex<T> s = sinh(complex<T>(-z.im, z.re));
  return complex<T>(s.im, -s.re);
}
template <typename T> __device__ complex<T> cos(complex<T> z) { return cosh(complex<T>(-z.im, z.re)); }
template <typename T> __device__ complex<T> tan(complex<T> z) {
  complex<T> t = tanh(complex<T>(-z.im, z.re));
  return complex<T>(t.im, -t.re);
}
}  // namespace cuprum
using cuprum::complex;
