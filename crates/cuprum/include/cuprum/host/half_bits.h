// cuprum/host/half_bits.h — IEEE binary16 conversions in software (round to nearest even;
// NaN becomes the canonical 0x7fff, as the GPU's cvt.rn.f16.f32 gives).
#pragma once
namespace cuprum_host {
inline unsigned short f32_to_f16_bits(float f) {
  unsigned int x;
  std::memcpy(&x, &f, 4);
  const unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int mant = x & 0x7fffffu;
  const int exp = (int)((x >> 23) & 0xffu);
  if (exp == 0xff) return mant ? (unsigned short)0x7fffu : (unsigned short)(sign | 0x7c00u);
  const int e = exp - 127 + 15;
  if (e >= 0x1f) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    mant |= 0x800000u;
    const unsigned int shift = (unsigned int)(14 - e);
    unsigned int h = mant >> shift;
    const unsigned int rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return (unsigned short)(sign | h);
  }
  unsigned int h = sign | ((unsigned int)e << 10) | (mant >> 13);
  const unsigned int rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry rounds up into the exponent
  return (unsigned short)h;
}
// A double rounds to binary16 once (through float it could round twice, as NumPy's does not).
inline unsigned short f64_to_f16_bits(double d) {
  unsigned long long x;
  std::memcpy(&x, &d, 8);
  const unsigned int sign = (unsigned int)(x >> 48) & 0x8000u;
  unsigned long long mant = x & 0xfffffffffffffull;
  const int exp = (int)((x >> 52) & 0x7ffu);
  if (exp == 0x7ff) return mant ? (unsigned short)0x7fffu : (unsigned short)(sign | 0x7c00u);
  const int e = exp - 1023 + 15;
  if (e >= 0x1f) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    mant |= 1ull << 52;
    const unsigned int shift = (unsigned int)(43 - e);
    unsigned long long h = mant >> shift;
    const unsigned long long rem = mant & ((1ull << shift) - 1ull), half = 1ull << (shift - 1u);
    if (rem > half || (rem == half && (h & 1ull))) ++h;
    return (unsigned short)(sign | (unsigned int)h);
  }
  unsigned int h = sign | ((unsigned int)e << 10) | (unsigned int)(mant >> 42);
  const unsigned long long rem = mant & ((1ull << 42) - 1ull), half = 1ull << 41;
  if (rem > half || (rem == half && (h & 1u))) ++h;  // a carry rounds up into the exponent
  return (unsigned short)h;
}
inline float f16_bits_to_f32(unsigned short h) {
  const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  const unsigned int exp = (h >> 10) & 0x1fu;
  unsigned int mant = h & 0x3ffu, x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      x = sign | ((unsigned int)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
// bfloat16: the upper half of a float, rounded to nearest even; NaN is 0x7fff.
inline unsigned short f32_to_bf16_bits(float f) {
  unsigned int u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)0x7fffu;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
inline float bf16_bits_to_f32(unsigned short h) {
  const unsigned int u = (unsigned int)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace cuprum_host
