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
// A value and its position: the accumulator of argmax and argmin.
template <typename T>
struct ArgBest {
  T v;
  long long j;
  __device__ ArgBest() : v(0), j(0) {}
  __device__ ArgBest(T v_, long long j_) : v(v_), j(j_) {}
};
// NumPy's rule: the first NaN wins; otherwise the larger (smaller) value, ties to the
// smaller position.
template <typename T>
__device__ __forceinline__ ArgBest<T> argmax_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (an && (!bn || a.j < b.j)) ? a : b;
  return (a.v > b.v || (a.v == b.v && a.j < b.j)) ? a : b;
}
template <typename T>
__device__ __forceinline__ ArgBest<T> argmin_merge(const ArgBest<T>& a, const ArgBest<T>& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return (an && (!bn || a.j < b.j)) ? a : b;
  return (a.v < b.v || (a.v == b.v && a.j < b.j)) ? a : b;
}
}  // namespace cuprum
