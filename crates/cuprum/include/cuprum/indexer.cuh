// cuprum/indexer.cuh — strided n-d access for generated kernels.
// Strides count elements. ND = 0 is a 0-d array (one element).
#pragma once
namespace cuprum {
template <int ND, typename I>
struct Indexer {
  I size;
  I shape[ND > 0 ? ND : 1];
  // Unravels a C-order linear index into per-axis positions (last axis fastest).
  __device__ __forceinline__ void unravel(I i, I* pos) const {
#pragma unroll
    for (int d = ND - 1; d > 0; --d) { pos[d] = i % shape[d]; i /= shape[d]; }
    if (ND > 0) pos[0] = i;
  }
};
template <typename T, int ND>
struct CArray {
  T* data;
  long long shape_[ND > 0 ? ND : 1];
  long long strides_[ND > 0 ? ND : 1];
  // Element at per-axis positions.
  template <typename I>
  __device__ __forceinline__ T& at(const I* pos) const {
    long long off = 0;
#pragma unroll
    for (int d = 0; d < ND; ++d) off += (long long)pos[d] * strides_[d];
    return data[off];
  }
  // Element at a C-order linear index (unravels over the array's own shape).
  __device__ __forceinline__ T& operator[](long long i) const {
    long long off = 0;
#pragma unroll
    for (int d = ND - 1; d >= 0; --d) {
      long long k = i % shape_[d]; i /= shape_[d]; off += k * strides_[d];
    }
    return data[off];
  }
  __device__ __forceinline__ long long size() const {
    long long n = 1;
#pragma unroll
    for (int d = 0; d < ND; ++d) n *= shape_[d];
    return n;
  }
  __device__ __forceinline__ const long long* shape() const { return shape_; }
  __device__ __forceinline__ const long long* strides() const { return strides_; }
};
// The loop size of an elementwise kernel, as `_ind.size()`.
struct LoopSize {
  long long n;
  __device__ __forceinline__ long long size() const { return n; }
};
// A bool element as NumPy reads it: any non-zero byte is true. A bool array viewed from
// other bytes (`int8_array.view(bool)`) holds bytes other than 0 and 1, and using such a
// byte as a C++ bool is undefined (compilers keep the byte, or test one bit); generated
// kernels read bool inputs through this.
__device__ __forceinline__ bool as_bool(const bool& b) { return *reinterpret_cast<const unsigned char*>(&b) != 0; }
// V consecutive elements moved with one aligned (vector) load or store.
template <typename T, int V>
struct __align__(sizeof(T) * V) Vec {
  T v[V];
};
}  // namespace cuprum
using cuprum::CArray;
using cuprum::Indexer;
