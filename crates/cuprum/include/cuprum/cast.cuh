// cuprum/cast.cuh — NumPy's astype conversions between every element type:
// complex -> real keeps the real part, anything -> bool is "non-zero".
#pragma once
#include <cuprum/indexer.cuh>
namespace cuprum {
template <typename To, typename From>
struct Caster {
  __device__ __forceinline__ static To go(const From& x) { return To(x); }
};
template <typename From>
struct Caster<bool, From> {
  __device__ __forceinline__ static bool go(const From& x) { return x != From(0); }
};
// A bool is read by its byte (indexer.cuh's as_bool: NumPy's reading of any byte).
template <typename To>
struct Caster<To, bool> {
  __device__ __forceinline__ static To go(const bool& x) { return To(as_bool(x)); }
};
template <>
struct Caster<bool, bool> {
  __device__ __forceinline__ static bool go(const bool& x) { return as_bool(x); }
};
#ifdef CUPRUM_COMPLEX_CUH  // complex.cuh included (all.cuh includes it first)
template <typename To, typename T>
struct Caster<To, complex<T>> {
  __device__ __forceinline__ static To go(const complex<T>& x) { return To(x.re); }
};
template <typename T>
struct Caster<bool, complex<T>> {
  __device__ __forceinline__ static bool go(const complex<T>& x) { return x.re != T(0) || x.im != T(0); }
};
template <typename U, typename T>
struct Caster<complex<U>, complex<T>> {
  __device__ __forceinline__ static complex<U> go(const complex<T>& x) { return complex<U>(x); }
};
#endif
template <typename To, typename From>
__device__ __forceinline__ To cast(const From& x) { return Caster<To, From>::go(x); }
}  // namespace cuprum
