// One 16-bit float type of the host device's <cuda_fp16.h> / <cuda_bf16.h>, written once and
// included by each header with its names defined (then undefined here):
//   CUPRUM_F16_T      the scalar type (__half, __nv_bfloat16)
//   CUPRUM_F16_T2     the pair type (__half2, __nv_bfloat162)
//   CUPRUM_F16_RAW    the raw type (__half_raw, __nv_bfloat16_raw)
//   CUPRUM_F16_N      the name in CUDA's conversion functions (half, bfloat16)
//   CUPRUM_F16_BITS   the cuprum_host conversion stem (f16, bf16)
//   CUPRUM_F16_INF    the bits of +inf (0x7c00u, 0x7f80u)
// Arithmetic goes through float: for these formats float has enough bits that + - * / and
// sqrt come out correctly rounded.

#define CUPRUM_F16_CAT_(a, b) a##b
#define CUPRUM_F16_CAT(a, b) CUPRUM_F16_CAT_(a, b)
#define CUPRUM_F16_CAT3(a, b, c) CUPRUM_F16_CAT(CUPRUM_F16_CAT(a, b), c)
#define CUPRUM_F16_TO_BITS cuprum_host::CUPRUM_F16_CAT3(f32_to_, CUPRUM_F16_BITS, _bits)
#define CUPRUM_F16_FROM_BITS cuprum_host::CUPRUM_F16_CAT(CUPRUM_F16_BITS, _bits_to_f32)
// a CUDA conversion name: P <name> S, e.g. __float2 half _rn
#define CUPRUM_F16_NAME(P, S) CUPRUM_F16_CAT3(P, CUPRUM_F16_N, S)
#define CUPRUM_F16_NAME2(P, S) CUPRUM_F16_CAT3(P, CUPRUM_F16_CAT(CUPRUM_F16_N, 2), S)

struct __attribute__((aligned(2))) CUPRUM_F16_RAW {
  unsigned short x;
};

struct __attribute__((aligned(2))) CUPRUM_F16_T {
  unsigned short __x;
  CUPRUM_F16_T() = default;
  constexpr CUPRUM_F16_T(const CUPRUM_F16_RAW& r) : __x(r.x) {}
  CUPRUM_F16_T(float f) : __x(CUPRUM_F16_TO_BITS(f)) {}
  CUPRUM_F16_T(double d) : __x(CUPRUM_F16_TO_BITS((float)d)) {}
  CUPRUM_F16_T(int i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  CUPRUM_F16_T(unsigned int i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  CUPRUM_F16_T(long long i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  CUPRUM_F16_T(unsigned long long i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  CUPRUM_F16_T(short i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  CUPRUM_F16_T(unsigned short i) : __x(CUPRUM_F16_TO_BITS((float)i)) {}
  operator float() const { return CUPRUM_F16_FROM_BITS(__x); }
  operator CUPRUM_F16_RAW() const { return CUPRUM_F16_RAW{__x}; }
  CUPRUM_F16_T& operator+=(CUPRUM_F16_T o) { return *this = CUPRUM_F16_T(float(*this) + float(o)); }
  CUPRUM_F16_T& operator-=(CUPRUM_F16_T o) { return *this = CUPRUM_F16_T(float(*this) - float(o)); }
  CUPRUM_F16_T& operator*=(CUPRUM_F16_T o) { return *this = CUPRUM_F16_T(float(*this) * float(o)); }
  CUPRUM_F16_T& operator/=(CUPRUM_F16_T o) { return *this = CUPRUM_F16_T(float(*this) / float(o)); }
  CUPRUM_F16_T& operator++() { return *this += CUPRUM_F16_T(1.0f); }
  CUPRUM_F16_T& operator--() { return *this -= CUPRUM_F16_T(1.0f); }
};

struct __attribute__((aligned(4))) CUPRUM_F16_T2 {
  CUPRUM_F16_T x, y;
  CUPRUM_F16_T2() = default;
  constexpr CUPRUM_F16_T2(CUPRUM_F16_T a, CUPRUM_F16_T b) : x(a), y(b) {}
};

#define T CUPRUM_F16_T
#define T2 CUPRUM_F16_T2
inline T operator+(T a, T b) { return T(float(a) + float(b)); }
inline T operator-(T a, T b) { return T(float(a) - float(b)); }
inline T operator*(T a, T b) { return T(float(a) * float(b)); }
inline T operator/(T a, T b) { return T(float(a) / float(b)); }
inline T operator-(T a) { T r; r.__x = (unsigned short)(a.__x ^ 0x8000u); return r; }
inline T operator+(T a) { return a; }
inline bool operator==(T a, T b) { return float(a) == float(b); }
inline bool operator!=(T a, T b) { return float(a) != float(b); }
inline bool operator<(T a, T b) { return float(a) < float(b); }
inline bool operator<=(T a, T b) { return float(a) <= float(b); }
inline bool operator>(T a, T b) { return float(a) > float(b); }
inline bool operator>=(T a, T b) { return float(a) >= float(b); }
inline T2 operator+(T2 a, T2 b) { return T2(a.x + b.x, a.y + b.y); }
inline T2 operator-(T2 a, T2 b) { return T2(a.x - b.x, a.y - b.y); }
inline T2 operator*(T2 a, T2 b) { return T2(a.x * b.x, a.y * b.y); }
inline T2 operator/(T2 a, T2 b) { return T2(a.x / b.x, a.y / b.y); }

// Conversions (named after the type: __float2half, __float2bfloat16, ...).
inline T CUPRUM_F16_NAME(__float2, )(float f) { return T(f); }
inline T CUPRUM_F16_NAME(__float2, _rn)(float f) { return T(f); }
inline T CUPRUM_F16_NAME(__double2, )(double d) { return T((float)d); }
inline float CUPRUM_F16_NAME(__, 2float)(T h) { return float(h); }
inline T CUPRUM_F16_NAME(__int2, _rn)(int i) { return T((float)i); }
inline T CUPRUM_F16_NAME(__uint2, _rn)(unsigned int i) { return T((float)i); }
inline int CUPRUM_F16_NAME(__, 2int_rz)(T h) { return __float2int_rz(float(h)); }
inline int CUPRUM_F16_NAME(__, 2int_rn)(T h) { return __float2int_rn(float(h)); }
inline unsigned short CUPRUM_F16_NAME(__, _as_ushort)(T h) { return h.__x; }
inline short CUPRUM_F16_NAME(__, _as_short)(T h) { return (short)h.__x; }
inline T CUPRUM_F16_NAME(__ushort_as_, )(unsigned short u) { T h; h.__x = u; return h; }
inline T CUPRUM_F16_NAME(__short_as_, )(short s) { T h; h.__x = (unsigned short)s; return h; }
inline T2 CUPRUM_F16_NAME2(__floats2, _rn)(float a, float b) { return T2(T(a), T(b)); }
inline T2 CUPRUM_F16_NAME2(__float2, _rn)(float a) { return T2(T(a), T(a)); }
inline T2 CUPRUM_F16_NAME2(__float22, _rn)(float2 v) { return T2(T(v.x), T(v.y)); }
inline float2 CUPRUM_F16_NAME(__, 22float2)(T2 h) { return make_float2(float(h.x), float(h.y)); }
inline float __low2float(T2 h) { return float(h.x); }
inline float __high2float(T2 h) { return float(h.y); }
inline T CUPRUM_F16_NAME(__low2, )(T2 h) { return h.x; }
inline T CUPRUM_F16_NAME(__high2, )(T2 h) { return h.y; }
inline T2 CUPRUM_F16_NAME2(__halves2, )(T a, T b) { return T2(a, b); }
inline T2 CUPRUM_F16_CAT3(CUPRUM_F16_NAME(__, 2), CUPRUM_F16_N, 2)(T a) { return T2(a, a); }
inline T2 CUPRUM_F16_NAME2(__lows2, )(T2 a, T2 b) { return T2(a.x, b.x); }
inline T2 CUPRUM_F16_NAME2(__highs2, )(T2 a, T2 b) { return T2(a.y, b.y); }

// Arithmetic, comparisons and math functions (the same names for both types).
inline T __hadd(T a, T b) { return a + b; }
inline T __hsub(T a, T b) { return a - b; }
inline T __hmul(T a, T b) { return a * b; }
inline T __hdiv(T a, T b) { return a / b; }
inline T __hneg(T a) { return -a; }
inline T __habs(T a) { T r; r.__x = (unsigned short)(a.__x & 0x7fffu); return r; }
inline T __hfma(T a, T b, T c) { return T(fmaf(float(a), float(b), float(c))); }
inline T __hmax(T a, T b) { return T(fmaxf(float(a), float(b))); }
inline T __hmin(T a, T b) { return T(fminf(float(a), float(b))); }
inline bool __heq(T a, T b) { return a == b; }
inline bool __hne(T a, T b) { return a != b; }
inline bool __hlt(T a, T b) { return a < b; }
inline bool __hle(T a, T b) { return a <= b; }
inline bool __hgt(T a, T b) { return a > b; }
inline bool __hge(T a, T b) { return a >= b; }
inline bool __hisnan(T a) { return (a.__x & 0x7fffu) > CUPRUM_F16_INF; }
inline int __hisinf(T a) { return (a.__x & 0x7fffu) == CUPRUM_F16_INF ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline T2 __hadd2(T2 a, T2 b) { return a + b; }
inline T2 __hsub2(T2 a, T2 b) { return a - b; }
inline T2 __hmul2(T2 a, T2 b) { return a * b; }
inline T2 __h2div(T2 a, T2 b) { return a / b; }
inline T2 __hneg2(T2 a) { return T2(-a.x, -a.y); }
inline T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }
inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline T2 __hmax2(T2 a, T2 b) { return T2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
inline T2 __hmin2(T2 a, T2 b) { return T2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
#define CUPRUM_F16_FN(NAME, NAME2, F) \
  inline T NAME(T a) { return T(F(float(a))); } \
  inline T2 NAME2(T2 a) { return T2(NAME(a.x), NAME(a.y)); }
CUPRUM_F16_FN(hsqrt, h2sqrt, sqrtf)
CUPRUM_F16_FN(hrsqrt, h2rsqrt, rsqrtf)
CUPRUM_F16_FN(hexp, h2exp, expf)
CUPRUM_F16_FN(hexp2, h2exp2, exp2f)
CUPRUM_F16_FN(hexp10, h2exp10, exp10f)
CUPRUM_F16_FN(hlog, h2log, logf)
CUPRUM_F16_FN(hlog2, h2log2, log2f)
CUPRUM_F16_FN(hlog10, h2log10, log10f)
CUPRUM_F16_FN(hsin, h2sin, sinf)
CUPRUM_F16_FN(hcos, h2cos, cosf)
CUPRUM_F16_FN(hceil, h2ceil, ceilf)
CUPRUM_F16_FN(hfloor, h2floor, floorf)
CUPRUM_F16_FN(htrunc, h2trunc, truncf)
CUPRUM_F16_FN(hrint, h2rint, rintf)
CUPRUM_F16_FN(hrcp, h2rcp, 1.0f /)
#undef CUPRUM_F16_FN

inline T atomicAdd(T* p, T v) {
  return cuprum_host::cas_loop<T, unsigned short>(p, [v](T o) { return o + v; });
}
inline T2 atomicAdd(T2* p, T2 v) {
  return cuprum_host::cas_loop<T2, unsigned int>(p, [v](T2 o) { return o + v; });
}
#undef T
#undef T2
#undef CUPRUM_F16_T
#undef CUPRUM_F16_T2
#undef CUPRUM_F16_RAW
#undef CUPRUM_F16_N
#undef CUPRUM_F16_BITS
#undef CUPRUM_F16_INF
