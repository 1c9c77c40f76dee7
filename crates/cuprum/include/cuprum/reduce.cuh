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
