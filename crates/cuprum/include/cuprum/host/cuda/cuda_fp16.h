// <cuda_fp16.h> for the host device: __half and __half2 with CUDA's conversions,
// arithmetic (through float: float has enough bits that + - * / and sqrt come out
// correctly rounded), comparisons, math functions and atomics.
#pragma once

struct __attribute__((aligned(2))) __half_raw {
  unsigned short x;
};

struct __attribute__((aligned(2))) __half {
  unsigned short __x;
  __half() = default;
  constexpr __half(const __half_raw& r) : __x(r.x) {}
  __half(float f) : __x(cuprum_host::f32_to_f16_bits(f)) {}
  __half(double d) : __x(cuprum_host::f32_to_f16_bits((float)d)) {}
  __half(int i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  __half(unsigned int i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  __half(long long i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  __half(unsigned long long i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  __half(short i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  __half(unsigned short i) : __x(cuprum_host::f32_to_f16_bits((float)i)) {}
  operator float() const { return cuprum_host::f16_bits_to_f32(__x); }
  operator __half_raw() const { return __half_raw{__x}; }
  __half& operator+=(__half o) { return *this = __half(float(*this) + float(o)); }
  __half& operator-=(__half o) { return *this = __half(float(*this) - float(o)); }
  __half& operator*=(__half o) { return *this = __half(float(*this) * float(o)); }
  __half& operator/=(__half o) { return *this = __half(float(*this) / float(o)); }
  __half& operator++() { return *this += __half(1.0f); }
  __half& operator--() { return *this -= __half(1.0f); }
};
typedef __half half;

struct __attribute__((aligned(4))) __half2 {
  __half x, y;
  __half2() = default;
  constexpr __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;

inline __half operator+(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half operator-(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half operator*(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half operator/(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half operator-(__half a) { __half r; r.__x = (unsigned short)(a.__x ^ 0x8000u); return r; }
inline __half operator+(__half a) { return a; }
inline bool operator==(__half a, __half b) { return float(a) == float(b); }
inline bool operator!=(__half a, __half b) { return float(a) != float(b); }
inline bool operator<(__half a, __half b) { return float(a) < float(b); }
inline bool operator<=(__half a, __half b) { return float(a) <= float(b); }
inline bool operator>(__half a, __half b) { return float(a) > float(b); }
inline bool operator>=(__half a, __half b) { return float(a) >= float(b); }
inline __half2 operator+(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
inline __half2 operator-(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
inline __half2 operator*(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
inline __half2 operator/(__half2 a, __half2 b) { return __half2(a.x / b.x, a.y / b.y); }

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half((float)d); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half((float)i); }
inline __half __uint2half_rn(unsigned int i) { return __half((float)i); }
inline int __half2int_rz(__half h) { return __float2int_rz(float(h)); }
inline int __half2int_rn(__half h) { return __float2int_rn(float(h)); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline short __half_as_short(__half h) { return (short)h.__x; }
inline __half __ushort_as_half(unsigned short u) { __half h; h.__x = u; return h; }
inline __half __short_as_half(short s) { __half h; h.__x = (unsigned short)s; return h; }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
inline __half2 __float22half2_rn(float2 v) { return __half2(__half(v.x), __half(v.y)); }
inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __half2half2(__half a) { return __half2(a, a); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }

inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __habs(__half a) { __half r; r.__x = (unsigned short)(a.__x & 0x7fffu); return r; }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(float(a), float(b), float(c))); }
inline __half __hmax(__half a, __half b) { return __half(fmaxf(float(a), float(b))); }
inline __half __hmin(__half a, __half b) { return __half(fminf(float(a), float(b))); }
inline bool __heq(__half a, __half b) { return a == b; }
inline bool __hne(__half a, __half b) { return a != b; }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hle(__half a, __half b) { return a <= b; }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __hge(__half a, __half b) { return a >= b; }
inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline __half2 __hadd2(__half2 a, __half2 b) { return a + b; }
inline __half2 __hsub2(__half2 a, __half2 b) { return a - b; }
inline __half2 __hmul2(__half2 a, __half2 b) { return a * b; }
inline __half2 __h2div(__half2 a, __half2 b) { return a / b; }
inline __half2 __hneg2(__half2 a) { return __half2(-a.x, -a.y); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
inline __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
#define CUPRUM_HALF_FN(NAME, NAME2, F) \
  inline __half NAME(__half a) { return __half(F(float(a))); } \
  inline __half2 NAME2(__half2 a) { return __half2(NAME(a.x), NAME(a.y)); }
CUPRUM_HALF_FN(hsqrt, h2sqrt, sqrtf)
CUPRUM_HALF_FN(hrsqrt, h2rsqrt, rsqrtf)
CUPRUM_HALF_FN(hexp, h2exp, expf)
CUPRUM_HALF_FN(hexp2, h2exp2, exp2f)
CUPRUM_HALF_FN(hexp10, h2exp10, exp10f)
CUPRUM_HALF_FN(hlog, h2log, logf)
CUPRUM_HALF_FN(hlog2, h2log2, log2f)
CUPRUM_HALF_FN(hlog10, h2log10, log10f)
CUPRUM_HALF_FN(hsin, h2sin, sinf)
CUPRUM_HALF_FN(hcos, h2cos, cosf)
CUPRUM_HALF_FN(hceil, h2ceil, ceilf)
CUPRUM_HALF_FN(hfloor, h2floor, floorf)
CUPRUM_HALF_FN(htrunc, h2trunc, truncf)
CUPRUM_HALF_FN(hrint, h2rint, rintf)
CUPRUM_HALF_FN(hrcp, h2rcp, 1.0f /)
#undef CUPRUM_HALF_FN

inline __half atomicAdd(__half* p, __half v) {
  return cuprum_host::cas_loop<__half, unsigned short>(p, [v](__half o) { return o + v; });
}
inline __half2 atomicAdd(__half2* p, __half2 v) {
  return cuprum_host::cas_loop<__half2, unsigned int>(p, [v](__half2 o) { return o + v; });
}
