// <cuda_bf16.h> for the host device: __nv_bfloat16 and __nv_bfloat162 with CUDA's conversions,
// arithmetic (through float), comparisons, math functions and atomics.
#pragma once

struct __attribute__((aligned(2))) __nv_bfloat16_raw {
  unsigned short x;
};

struct __attribute__((aligned(2))) __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  constexpr __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  __nv_bfloat16(float f) : __x(cuprum_host::f32_to_bf16_bits(f)) {}
  __nv_bfloat16(double d) : __x(cuprum_host::f32_to_bf16_bits((float)d)) {}
  __nv_bfloat16(int i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  __nv_bfloat16(unsigned int i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  __nv_bfloat16(long long i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  __nv_bfloat16(unsigned long long i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  __nv_bfloat16(short i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  __nv_bfloat16(unsigned short i) : __x(cuprum_host::f32_to_bf16_bits((float)i)) {}
  operator float() const { return cuprum_host::bf16_bits_to_f32(__x); }
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __nv_bfloat16& operator+=(__nv_bfloat16 o) { return *this = __nv_bfloat16(float(*this) + float(o)); }
  __nv_bfloat16& operator-=(__nv_bfloat16 o) { return *this = __nv_bfloat16(float(*this) - float(o)); }
  __nv_bfloat16& operator*=(__nv_bfloat16 o) { return *this = __nv_bfloat16(float(*this) * float(o)); }
  __nv_bfloat16& operator/=(__nv_bfloat16 o) { return *this = __nv_bfloat16(float(*this) / float(o)); }
  __nv_bfloat16& operator++() { return *this += __nv_bfloat16(1.0f); }
  __nv_bfloat16& operator--() { return *this -= __nv_bfloat16(1.0f); }
};
typedef __nv_bfloat16 nv_bfloat16;

struct __attribute__((aligned(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) + float(b)); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) - float(b)); }
inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) * float(b)); }
inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) / float(b)); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a) { __nv_bfloat16 r; r.__x = (unsigned short)(a.__x ^ 0x8000u); return r; }
inline __nv_bfloat16 operator+(__nv_bfloat16 a) { return a; }
inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) == float(b); }
inline bool operator!=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) != float(b); }
inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) < float(b); }
inline bool operator<=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) <= float(b); }
inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) > float(b); }
inline bool operator>=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) >= float(b); }
inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x + b.x, a.y + b.y); }
inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x - b.x, a.y - b.y); }
inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x * b.x, a.y * b.y); }
inline __nv_bfloat162 operator/(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x / b.x, a.y / b.y); }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16((float)d); }
inline float __nv_bfloat162float(__nv_bfloat16 h) { return float(h); }
inline float __bfloat162float(__nv_bfloat16 h) { return float(h); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16((float)i); }
inline __nv_bfloat16 __uint2bfloat16_rn(unsigned int i) { return __nv_bfloat16((float)i); }
inline int __nv_bfloat162int_rz(__nv_bfloat16 h) { return __float2int_rz(float(h)); }
inline int __nv_bfloat162int_rn(__nv_bfloat16 h) { return __float2int_rn(float(h)); }
inline unsigned short __nv_bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline short __nv_bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { __nv_bfloat16 h; h.__x = u; return h; }
inline __nv_bfloat16 __short_as_bfloat16(short s) { __nv_bfloat16 h; h.__x = (unsigned short)s; return h; }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(a)); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 v) { return __nv_bfloat162(__nv_bfloat16(v.x), __nv_bfloat16(v.y)); }
inline float2 __nv_bfloat1622float2(__nv_bfloat162 h) { return make_float2(float(h.x), float(h.y)); }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat162 __nv_bfloat162half2(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }

inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return a - b; }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return a / b; }
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return -a; }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { __nv_bfloat16 r; r.__x = (unsigned short)(a.__x & 0x7fffu); return r; }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __nv_bfloat16(fmaf(float(a), float(b), float(c))); }
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(fmaxf(float(a), float(b))); }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(fminf(float(a), float(b))); }
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return a == b; }
inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return a != b; }
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b; }
inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return a <= b; }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return a > b; }
inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return a >= b; }
inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
inline int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) == 0x7f80u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return a + b; }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return a - b; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return a * b; }
inline __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) { return a / b; }
inline __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(-a.x, -a.y); }
inline __nv_bfloat162 __habs2(__nv_bfloat162 a) { return __nv_bfloat162(__habs(a.x), __habs(a.y)); }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) { return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __nv_bfloat162 __hmax2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
inline __nv_bfloat162 __hmin2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
#define CUPRUM_BF16_FN(NAME, NAME2, F) \
  inline __nv_bfloat16 NAME(__nv_bfloat16 a) { return __nv_bfloat16(F(float(a))); } \
  inline __nv_bfloat162 NAME2(__nv_bfloat162 a) { return __nv_bfloat162(NAME(a.x), NAME(a.y)); }
CUPRUM_BF16_FN(hsqrt, h2sqrt, sqrtf)
CUPRUM_BF16_FN(hrsqrt, h2rsqrt, rsqrtf)
CUPRUM_BF16_FN(hexp, h2exp, expf)
CUPRUM_BF16_FN(hexp2, h2exp2, exp2f)
CUPRUM_BF16_FN(hexp10, h2exp10, exp10f)
CUPRUM_BF16_FN(hlog, h2log, logf)
CUPRUM_BF16_FN(hlog2, h2log2, log2f)
CUPRUM_BF16_FN(hlog10, h2log10, log10f)
CUPRUM_BF16_FN(hsin, h2sin, sinf)
CUPRUM_BF16_FN(hcos, h2cos, cosf)
CUPRUM_BF16_FN(hceil, h2ceil, ceilf)
CUPRUM_BF16_FN(hfloor, h2floor, floorf)
CUPRUM_BF16_FN(htrunc, h2trunc, truncf)
CUPRUM_BF16_FN(hrint, h2rint, rintf)
CUPRUM_BF16_FN(hrcp, h2rcp, 1.0f /)
#undef CUPRUM_BF16_FN

inline __nv_bfloat16 atomicAdd(__nv_bfloat16* p, __nv_bfloat16 v) {
  return cuprum_host::cas_loop<__nv_bfloat16, unsigned short>(p, [v](__nv_bfloat16 o) { return o + v; });
}
inline __nv_bfloat162 atomicAdd(__nv_bfloat162* p, __nv_bfloat162 v) {
  return cuprum_host::cas_loop<__nv_bfloat162, unsigned int>(p, [v](__nv_bfloat162 o) { return o + v; });
}
