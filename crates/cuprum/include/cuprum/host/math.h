// cuprum/host/math.h — CUDA's device math that the C and C++ libraries do not have (or
// have under other names), for the host device: min/max with CUDA's overloads, reciprocal
// and special functions, intrinsics (__expf ...: the accurate function on the host),
// rounding-mode variants, conversions with CUDA's saturation, bit casts and integer
// intrinsics. Accuracy: glibc's functions (within a few ulps, like CUDA's, but not the
// same bits).
#pragma once

// ---- min and max: CUDA's overload set ------------------------------------------------------
#define CUPRUM_MINMAX(A, B, R)                                   \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUPRUM_MINMAX(int, int, int)
CUPRUM_MINMAX(unsigned int, unsigned int, unsigned int)
CUPRUM_MINMAX(int, unsigned int, unsigned int)
CUPRUM_MINMAX(unsigned int, int, unsigned int)
CUPRUM_MINMAX(long, long, long)
CUPRUM_MINMAX(unsigned long, unsigned long, unsigned long)
CUPRUM_MINMAX(long, unsigned long, unsigned long)
CUPRUM_MINMAX(unsigned long, long, unsigned long)
CUPRUM_MINMAX(long long, long long, long long)
CUPRUM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUPRUM_MINMAX(long long, unsigned long long, unsigned long long)
CUPRUM_MINMAX(unsigned long long, long long, unsigned long long)
#undef CUPRUM_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin((double)a, b); }
inline double max(float a, double b) { return fmax((double)a, b); }
inline double min(double a, float b) { return fmin(a, (double)b); }
inline double max(double a, float b) { return fmax(a, (double)b); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- functions CUDA has and libm does not ---------------------------------------------------
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline double sinpi(double x) {
  const double r = fmod(x, 2.0);  // sin(pi x) has period 2; integers give a signed zero
  if (r == floor(r)) return copysign(0.0, x);
  return sin(3.14159265358979323846 * r);
}
inline double cospi(double x) {
  const double r = fmod(fabs(x), 2.0);
  if (r == 0.5 || r == 1.5) return 0.0;
  return cos(3.14159265358979323846 * r);
}
inline float sinpif(float x) { return (float)sinpi((double)x); }
inline float cospif(float x) { return (float)cospi((double)x); }
inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline double rhypot(double a, double b) { return 1.0 / hypot(a, b); }
inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
inline float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline double norm4d(double a, double b, double c, double d) { return sqrt(a * a + b * b + c * c + d * d); }
inline float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
inline double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
inline float normcdff(float x) { return (float)normcdf((double)x); }
// erfinv: a rational first guess refined by Newton steps on erf (double precision).
inline double erfinv(double y) {
  if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
  if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
  if (y != y) return y;
  double w = -log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
    x = p * y;
  }
  for (int i = 0; i < 3; ++i) {
    const double err = erf(x) - y;
    x -= err / (1.12837916709551257390 * exp(-x * x));
  }
  return x;
}
// The modified Bessel function of the first kind, order 0: its power series in (x/2)^2,
// whose terms are all positive (no cancellation), summed until they no longer change the
// sum; it overflows to infinity where the function does (|x| > ~713.98).
inline double cyl_bessel_i0(double x) {
  x = fabs(x);
  if (x != x || x == HUGE_VAL) return x;
  const double q = 0.25 * x * x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 4096; ++k) {
    term *= q / ((double)k * (double)k);
    sum += term;
    if (term <= sum * 1e-17) break;
  }
  return sum;
}
inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0((double)x); }
inline float erfinvf(float y) { return (float)erfinv((double)y); }
inline double erfcinv(double y) { return y == 0.0 ? HUGE_VAL : (y == 2.0 ? -HUGE_VAL : erfinv(1.0 - y)); }
inline float erfcinvf(float y) { return (float)erfcinv((double)y); }
inline double normcdfinv(double p) { return -1.41421356237309504880 * erfcinv(2.0 * p); }
inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }
inline double erfcx(double x) { return exp(x * x) * erfc(x); }
inline float erfcxf(float x) { return (float)erfcx((double)x); }
inline float __saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
inline float saturate(float x) { return __saturatef(x); }
inline float fdividef(float a, float b) { return a / b; }

// ---- intrinsics: the accurate function on the host ---------------------------------------
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __powf(float x, float y) { return powf(x, y); }

// ---- rounding-mode variants ------------------------------------------------------------
namespace cuprum_host {
template <class T, class F> inline T rounded(int mode, F f) {
  const int old = fegetround();
  fesetround(mode);
  const T r = f();
  fesetround(old);
  return r;
}
}  // namespace cuprum_host
#define CUPRUM_ROUND2(NAME, T, OP)                                                                                \
  inline T NAME##_rn(T a, T b) { volatile T x = a, y = b; return x OP y; }                                      \
  inline T NAME##_rz(T a, T b) { volatile T x = a, y = b; return cuprum_host::rounded<T>(FE_TOWARDZERO, [&] { return (T)(x OP y); }); } \
  inline T NAME##_ru(T a, T b) { volatile T x = a, y = b; return cuprum_host::rounded<T>(FE_UPWARD, [&] { return (T)(x OP y); }); }     \
  inline T NAME##_rd(T a, T b) { volatile T x = a, y = b; return cuprum_host::rounded<T>(FE_DOWNWARD, [&] { return (T)(x OP y); }); }
CUPRUM_ROUND2(__fadd, float, +)
CUPRUM_ROUND2(__fsub, float, -)
CUPRUM_ROUND2(__fmul, float, *)
CUPRUM_ROUND2(__fdiv, float, /)
CUPRUM_ROUND2(__dadd, double, +)
CUPRUM_ROUND2(__dsub, double, -)
CUPRUM_ROUND2(__dmul, double, *)
CUPRUM_ROUND2(__ddiv, double, /)
#undef CUPRUM_ROUND2
#define CUPRUM_ROUND_FMA(NAME, T, FN)                                                                            \
  inline T NAME##_rn(T a, T b, T c) { return FN(a, b, c); }                                                       \
  inline T NAME##_rz(T a, T b, T c) { volatile T x = a; return cuprum_host::rounded<T>(FE_TOWARDZERO, [&] { return FN(x, b, c); }); } \
  inline T NAME##_ru(T a, T b, T c) { volatile T x = a; return cuprum_host::rounded<T>(FE_UPWARD, [&] { return FN(x, b, c); }); }     \
  inline T NAME##_rd(T a, T b, T c) { volatile T x = a; return cuprum_host::rounded<T>(FE_DOWNWARD, [&] { return FN(x, b, c); }); }
CUPRUM_ROUND_FMA(__fmaf, float, fmaf)
CUPRUM_ROUND_FMA(__fma, double, fma)
#undef CUPRUM_ROUND_FMA
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }
inline float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }

// ---- conversions with CUDA's saturation (NaN converts to 0) ---------------------------------
namespace cuprum_host {
template <class I, class F> inline I saturate_to(F v) {
  if (v != v) return (I)0;
  if (v <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (v >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)v;
}
}  // namespace cuprum_host
#define CUPRUM_F2I(FROM, F, TO, I)                                                                       \
  inline I __##FROM##2##TO##_rz(F v) { return cuprum_host::saturate_to<I>(trunc(v)); }                    \
  inline I __##FROM##2##TO##_rn(F v) { return cuprum_host::saturate_to<I>(nearbyint(v)); }                \
  inline I __##FROM##2##TO##_ru(F v) { return cuprum_host::saturate_to<I>(ceil(v)); }                     \
  inline I __##FROM##2##TO##_rd(F v) { return cuprum_host::saturate_to<I>(floor(v)); }
CUPRUM_F2I(float, float, int, int)
CUPRUM_F2I(float, float, uint, unsigned int)
CUPRUM_F2I(float, float, ll, long long)
CUPRUM_F2I(float, float, ull, unsigned long long)
CUPRUM_F2I(double, double, int, int)
CUPRUM_F2I(double, double, uint, unsigned int)
CUPRUM_F2I(double, double, ll, long long)
CUPRUM_F2I(double, double, ull, unsigned long long)
#undef CUPRUM_F2I
inline float __int2float_rn(int v) { return (float)v; }
inline float __uint2float_rn(unsigned int v) { return (float)v; }
inline float __ll2float_rn(long long v) { return (float)v; }
inline float __ull2float_rn(unsigned long long v) { return (float)v; }
inline double __int2double_rn(int v) { return (double)v; }
inline double __uint2double_rn(unsigned int v) { return (double)v; }
inline double __ll2double_rn(long long v) { return (double)v; }
inline double __ull2double_rn(unsigned long long v) { return (double)v; }
inline float __double2float_rn(double v) { return (float)v; }
inline float __double2float_rz(double v) {
  return cuprum_host::rounded<float>(FE_TOWARDZERO, [&] { volatile double x = v; return (float)x; });
}

// ---- bit casts ---------------------------------------------------------------------------
namespace cuprum_host {
template <class To, class From> inline To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From), "");
  To r;
  std::memcpy(&r, &v, sizeof(To));
  return r;
}
}  // namespace cuprum_host
inline float __int_as_float(int v) { return cuprum_host::bit_cast<float>(v); }
inline int __float_as_int(float v) { return cuprum_host::bit_cast<int>(v); }
inline float __uint_as_float(unsigned int v) { return cuprum_host::bit_cast<float>(v); }
inline unsigned int __float_as_uint(float v) { return cuprum_host::bit_cast<unsigned int>(v); }
inline double __longlong_as_double(long long v) { return cuprum_host::bit_cast<double>(v); }
inline long long __double_as_longlong(double v) { return cuprum_host::bit_cast<long long>(v); }
inline int __double2hiint(double v) { return (int)(__double_as_longlong(v) >> 32); }
inline int __double2loint(double v) { return (int)(unsigned int)__double_as_longlong(v); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo));
}

// ---- integer intrinsics ------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned int)((v >> (((s >> (4 * i)) & 7u) * 8)) & 0xFFu) << (8 * i);
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) << (s & 31u) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) << (s > 32u ? 32u : s) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (s & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (s > 32u ? 32u : s));
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
inline unsigned int __sad(int x, int y, unsigned int z) { return (unsigned int)(x > y ? (long long)x - y : (long long)y - x) + z; }
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y) >> 1); }
inline unsigned int __urhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y + 1) >> 1); }
inline int __dp4a(int a, int b, int c) {
  int r = c;
  for (int i = 0; i < 4; ++i) r += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return r;
}
