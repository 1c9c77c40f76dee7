// cuprum/reduce.cuh — helpers of generated reduction kernels.
#pragma once
namespace cuprum {
// Warp shuffle of any trivially copyable value, moved as 32-bit words.
template <typename T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta) {
  constexpr int W = (sizeof(T) + 3) / 4;
  unsigned w[W];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < W; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
  T out;
  memcpy(&out, w, sizeof(T));
  return out;
}
}  // namespace cuprum
namespace cuprum {
// Running count, mean and sum of squared deviations (Chan et al.'s parallel merge): the
// accumulator of var and std.
template <typename T>
struct Welford {
  T n, mean, m2;
  __device__ Welford() : n(0), mean(0), m2(0) {}
  __device__ explicit Welford(T x) : n(1), mean(x), m2(0) {}
  __device__ Welford(T n_, T mean_, T m2_) : n(n_), mean(mean_), m2(m2_) {}
};
template <typename T>
__device__ __forceinline__ Welford<T> welford_merge(const Welford<T>& a, const Welford<T>& b) {
  if (a.n == T(0)) return b;
  if (b.n == T(0)) return a;
  const T n = a.n + b.n, d = b.mean - a.mean;
  return Welford<T>(n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n));
}
// The variance with `ddof` delta degrees of freedom (NumPy: m2 / max(n - ddof, 0), so
// inf or NaN when ddof >= n).
template <typename T>
__device__ __forceinline__ T welford_var(const Welford<T>& w, double ddof) {
  T d = w.n - T(ddof);
  if (!(d > T(0))) d = T(0);
  return w.m2 / d;
}
// Two Welford triples: the real and imaginary parts of complex values (complex var / std:
// NumPy's mean(|x - mean(x)|^2) is the sum of the parts' variances).
template <typename T>
struct Welford2 {
  Welford<T> re, im;
  __device__ Welford2() {}
  template <typename C>
  __device__ explicit Welford2(const C& z) : re(z.re), im(z.im) {}
  __device__ Welford2(const Welford<T>& r, const Welford<T>& i) : re(r), im(i) {}
};
template <typename T>
__device__ __forceinline__ Welford2<T> welford_merge(const Welford2<T>& a, const Welford2<T>& b) {
  return Welford2<T>(welford_merge(a.re, b.re), welford_merge(a.im, b.im));
}
template <typename T>
__device__ __forceinline__ T welford_var(const Welford2<T>& w, double ddof) {
  T d = w.re.n - T(ddof);
  if (!(d > T(0))) d = T(0);
  return (w.re.m2 + w.im.m2) / d;
}
// A sum and the number of values in it: the accumulator of nanmean (NaNs are not counted).
template <typename T>
struct SumCount {
  T s;
  long long n;
  __device__ SumCount() : s(0), n(0) {}
  __device__ explicit SumCount(T x) : s(x), n(1) {}
  __device__ SumCount(T s_, long long n_) : s(s_), n(n_) {}
};
template <typename T>
__device__ __forceinline__ SumCount<T> sum_count_merge(const SumCount<T>& a, const SumCount<T>& b) {
  return SumCount<T>(a.s + b.s, a.n + b.n);
}
// A value and its position: the accumulator of argmax and argmin.
template <typename T>
struct ArgBest {
  T v;
  long long j;
  __device__ ArgBest() : v(0), j(0) {}
  __device__ ArgBest(T v_, long long j_) : v(v_), j(j_) {}
};
// The order argmax / argmin and nanmax / nanmin compare by: `>` and `<`, and for complex
// values NumPy's lexicographic order (real part, then imaginary part); a complex value is
// NaN when either part is.
template <typename T>
__device__ __forceinline__ bool order_greater(const T& a, const T& b) { return a > b; }
template <typename T>
__device__ __forceinline__ bool order_less(const T& a, const T& b) { return a < b; }
#ifdef CUPRUM_COMPLEX_CUH
template <typename T>
__device__ __forceinline__ bool order_greater(const complex<T>& a, const complex<T>& b) {
  return a.re > b.re || (a.re == b.re && a.im > b.im);
}
template <typename T>
__device__ __forceinline__ bool order_less(const complex<T>& a, const complex<T>& b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}
#endif  // CUPRUM_COMPLEX_CUH
// NumPy's rule: the first NaN wins; otherwise the larger (smaller) value, ties to the
// smaller position.
template <typename T>
__device__ __forceinline__ ArgBest<T> argmax_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (an && (!bn || a.j < b.j)) ? a : b;
  return (order_greater(a.v, b.v) || (a.v == b.v && a.j < b.j)) ? a : b;
}
template <typename T>
__device__ __forceinline__ ArgBest<T> argmin_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (an && (!bn || a.j < b.j)) ? a : b;
  return (order_less(a.v, b.v) || (a.v == b.v && a.j < b.j)) ? a : b;
}
// nanargmax / nanargmin: a NaN loses to any number (all NaN: the first NaN, which the
// caller reports as an all-NaN slice).
template <typename T>
__device__ __forceinline__ ArgBest<T> nanargmax_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (bn && (!an || a.j < b.j)) ? a : b;
  return (order_greater(a.v, b.v) || (a.v == b.v && a.j < b.j)) ? a : b;
}
template <typename T>
__device__ __forceinline__ ArgBest<T> nanargmin_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (bn && (!an || a.j < b.j)) ? a : b;
  return (order_less(a.v, b.v) || (a.v == b.v && a.j < b.j)) ? a : b;
}
}  // namespace cuprum
