// cuprum/ufunc.cuh — the built-in element-wise operations whose NumPy semantics take more
// than one expression (ops/ufunc.rs writes every operation as a call or an expression, for
// the `ops` kernels and for `fuse` alike). Operands arrive in the operation's loop type.
#pragma once
namespace cuprum {
// NumPy's remainder: the sign of the divisor; integer division by zero (and by -1) gives 0.
template <typename T>
__device__ __forceinline__ T remainder_signed(T x, T y) {
  if (y == 0 || y == (T)-1) return (T)0;
  T r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}
template <typename T>
__device__ __forceinline__ T remainder_unsigned(T x, T y) {
  return y == 0 ? (T)0 : (T)(x % y);
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
