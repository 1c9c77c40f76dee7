// cuprum/host/prelude.h — what the host device compiles every kernel with, before the
// kernel's own source: the few standard headers, CUDA's qualifiers, vector types and
// built-in variables, and (in runtime.h, math.h-like extras in math.h, texture.h) barriers,
// warp operations, atomics, math functions, texture and surface objects and the launcher of
// every kernel entry.
//
// Order matters: every standard header comes first, then the macros (libstdc++ itself
// writes __attribute__((__noinline__)), so CUDA's qualifier macros must follow it).
#pragma once

// libstdc++'s C++17 special functions (std::riemann_zeta, std::cyl_bessel_i ...; no CUDA kernel
// can call them) are most of <cmath>'s precompiled header and two thirds of the time each
// compile spends loading it: their header is marked as already read.
#define _GLIBCXX_BITS_SPECFUN_H 1
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cfenv>
#include <initializer_list>
#include <limits>
#include <math.h>
#include <new>
#include <stdlib.h>
#include <type_traits>
#include <utility>

#include <cuprum/host/abi.h>
#include <cuprum/host/half_bits.h>

#define __CUPRUM_HOST__ 1
// Kernels are written for NVRTC: the macros its headers and user code test.
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 800
#define __CUDA_ARCH_LIST__ 800

// ---- qualifiers ------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ thread_local
#define __forceinline__ inline
#define __noinline__
#define __inline_hint__ inline
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))

// ---- vector types ----------------------------------------------------------------------
#define CUPRUM_VEC1(T, N, A) \
  struct __attribute__((aligned(A))) N { T x; }; \
  inline N make_##N(T x) { N v; v.x = x; return v; }
#define CUPRUM_VEC2(T, N, A) \
  struct __attribute__((aligned(A))) N { T x, y; }; \
  inline N make_##N(T x, T y) { N v; v.x = x; v.y = y; return v; }
#define CUPRUM_VEC3(T, N, A) \
  struct __attribute__((aligned(A))) N { T x, y, z; }; \
  inline N make_##N(T x, T y, T z) { N v; v.x = x; v.y = y; v.z = z; return v; }
#define CUPRUM_VEC4(T, N, A) \
  struct __attribute__((aligned(A))) N { T x, y, z, w; }; \
  inline N make_##N(T x, T y, T z, T w) { N v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define CUPRUM_VECS(T, P, S1, S2, S3, S4) \
  CUPRUM_VEC1(T, P##1, S1) CUPRUM_VEC2(T, P##2, S2) CUPRUM_VEC3(T, P##3, S3) CUPRUM_VEC4(T, P##4, S4)
CUPRUM_VECS(signed char, char, 1, 2, 1, 4)
CUPRUM_VECS(unsigned char, uchar, 1, 2, 1, 4)
CUPRUM_VECS(short, short, 2, 4, 2, 8)
CUPRUM_VECS(unsigned short, ushort, 2, 4, 2, 8)
CUPRUM_VECS(int, int, 4, 8, 4, 16)
CUPRUM_VECS(unsigned int, uint, 4, 8, 4, 16)
CUPRUM_VECS(long, long, 8, 16, 8, 16)
CUPRUM_VECS(unsigned long, ulong, 8, 16, 8, 16)
CUPRUM_VECS(long long, longlong, 8, 16, 8, 16)
CUPRUM_VECS(unsigned long long, ulonglong, 8, 16, 8, 16)
CUPRUM_VECS(float, float, 4, 8, 4, 16)
CUPRUM_VECS(double, double, 8, 16, 8, 16)
#undef CUPRUM_VECS
#undef CUPRUM_VEC1
#undef CUPRUM_VEC2
#undef CUPRUM_VEC3
#undef CUPRUM_VEC4

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- built-in variables ----------------------------------------------------------------
// The running block (set by every kernel entry on the worker thread that runs the block).
inline thread_local cuprum_host_block* __cuprum_b = nullptr;

#define threadIdx (*reinterpret_cast<const uint3*>(&__cuprum_b->thread_idx))
#define blockIdx (*reinterpret_cast<const uint3*>(&__cuprum_b->block_idx))
#define blockDim (*reinterpret_cast<const dim3*>(&__cuprum_b->block_dim))
#define gridDim (*reinterpret_cast<const dim3*>(&__cuprum_b->grid_dim))
#define warpSize 32

inline void* __cuprum_dynamic_smem() { return __cuprum_b->dyn_smem; }

#include <cuprum/host/runtime.h>
#include <cuprum/host/math.h>
#include <cuprum/host/texture.h>
