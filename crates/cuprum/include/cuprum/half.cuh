// cuprum/half.cuh — float16 and bfloat16 element types for generated kernels.
// Storage is the 16-bit pattern; arithmetic goes through float. No toolkit headers needed.
#pragma once
namespace cuprum {
#ifdef __CUPRUM_HOST__
__device__ __forceinline__ unsigned short f32_to_f16_bits(float f) { return cuprum_host::f32_to_f16_bits(f); }
__device__ __forceinline__ unsigned short f64_to_f16_bits(double d) { return cuprum_host::f64_to_f16_bits(d); }
__device__ __forceinline__ float f16_bits_to_f32(unsigned short h) { return cuprum_host::f16_bits_to_f32(h); }
#else
__device__ __forceinline__ unsigned short f32_to_f16_bits(float f) {
  unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f)); return r;
}
// A double rounds to float16 once, as NumPy's casts do (through float it could round twice).
__device__ __forceinline__ unsigned short f64_to_f16_bits(double d) {
  unsigned short r; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(d)); return r;
}
__device__ __forceinline__ float f16_bits_to_f32(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
#endif
__device__ __forceinline__ unsigned short f32_to_bf16_bits(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);                                                  // round to nearest even
  return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float bf16_bits_to_f32(unsigned short h) {
  return __uint_as_float(((unsigned int)h) << 16);
}
// bfloat16 from a double goes through float, as PyTorch's and ml_dtypes' casts do.
__device__ __forceinline__ unsigned short f64_to_bf16_bits(double d) { return f32_to_bf16_bits((float)d); }

#define CUPRUM_HALF_TYPE(NAME, TO, TO64, FROM)                                                     \
  struct __align__(2) NAME {                                                                    \
    unsigned short bits;                                                                        \
    NAME() = default;                                                                           \
    __device__ NAME(float f) : bits(TO(f)) {}                                                   \
    __device__ NAME(double d) : bits(TO64(d)) {}                                                \
    __device__ NAME(int i) : bits(TO((float)i)) {}                                              \
    __device__ NAME(long long i) : bits(TO((float)i)) {}                                        \
    __device__ NAME(unsigned int i) : bits(TO((float)i)) {}                                     \
    __device__ NAME(unsigned long long i) : bits(TO((float)i)) {}                               \
    __device__ NAME(bool b) : bits(TO(b ? 1.0f : 0.0f)) {}                                      \
    __device__ operator float() const { return FROM(bits); }                                    \
    __device__ NAME& operator+=(NAME o) { *this = NAME(float(*this) + float(o)); return *this; } \
    __device__ NAME& operator-=(NAME o) { *this = NAME(float(*this) - float(o)); return *this; } \
    __device__ NAME& operator*=(NAME o) { *this = NAME(float(*this) * float(o)); return *this; } \
    __device__ NAME& operator/=(NAME o) { *this = NAME(float(*this) / float(o)); return *this; } \
  };                                                                                            \
  __device__ __forceinline__ NAME operator+(NAME a, NAME b) { return NAME(float(a) + float(b)); } \
  __device__ __forceinline__ NAME operator-(NAME a, NAME b) { return NAME(float(a) - float(b)); } \
  __device__ __forceinline__ NAME operator*(NAME a, NAME b) { return NAME(float(a) * float(b)); } \
  __device__ __forceinline__ NAME operator/(NAME a, NAME b) { return NAME(float(a) / float(b)); } \
  __device__ __forceinline__ NAME operator-(NAME a) { return NAME(-float(a)); }                   \
  __device__ __forceinline__ bool operator==(NAME a, NAME b) { return float(a) == float(b); }     \
  __device__ __forceinline__ bool operator!=(NAME a, NAME b) { return float(a) != float(b); }     \
  __device__ __forceinline__ bool operator<(NAME a, NAME b) { return float(a) < float(b); }       \
  __device__ __forceinline__ bool operator<=(NAME a, NAME b) { return float(a) <= float(b); }     \
  __device__ __forceinline__ bool operator>(NAME a, NAME b) { return float(a) > float(b); }       \
  __device__ __forceinline__ bool operator>=(NAME a, NAME b) { return float(a) >= float(b); }

CUPRUM_HALF_TYPE(float16, f32_to_f16_bits, f64_to_f16_bits, f16_bits_to_f32)
CUPRUM_HALF_TYPE(bfloat16, f32_to_bf16_bits, f64_to_bf16_bits, bf16_bits_to_f32)
#undef CUPRUM_HALF_TYPE
}  // namespace cuprum
using cuprum::bfloat16;
using cuprum::float16;
