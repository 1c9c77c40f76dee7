//! The CUDA prelude of the generated programs built on [`Program`](crate::kernel::program)
//! (the scan engine, the array routines): element types, relaxed and acquire/release
//! accesses for decoupled look-back, generic warp shuffles, vector loads and stores,
//! asynchronous copies into shared memory, each with its host-device form.

/// Everything the routine kernels share, put before each program's own code.
pub(crate) const PRELUDE: &str = r#"#include <cuprum/half.cuh>
#include <cuprum/complex.cuh>
#include <cuprum/cast.cuh>
namespace rt {
constexpr unsigned FULL = 0xffffffffu;
#ifdef __CUPRUM_HOST__
__device__ __forceinline__ unsigned lanemask_lt() { return (1u << __cuprum_lane_id()) - 1u; }
__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
__device__ __forceinline__ void st_release(unsigned long long* p, unsigned long long v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
#else
__device__ __forceinline__ unsigned lanemask_lt() { unsigned m; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); return m; }
__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v; asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long* p) {
  unsigned long long v; asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void st_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }
#endif
// Asks L2 for elements [i0, i0 + cnt) of p (clipped to n): the block's threads take one
// 128-byte line each in turn; a hint, never a fault. A no-op on the host.
#ifdef __CUPRUM_HOST__
template <typename T> __device__ __forceinline__ void prefetch_l2(const T*, unsigned long long, unsigned long long, unsigned long long) {}
#else
template <typename T> __device__ __forceinline__ void prefetch_l2(const T* p, unsigned long long i0, unsigned long long cnt, unsigned long long n) {
  if (i0 >= n) return;
  if (cnt > n - i0) cnt = n - i0;
  const unsigned long long first = reinterpret_cast<unsigned long long>(p + i0);
  const unsigned long long end = first + cnt * sizeof(T);
  for (unsigned long long a = (first & ~127ull) + 128ull * threadIdx.x; a < end; a += 128ull * blockDim.x)
    asm volatile("prefetch.global.L2 [%0];" :: "l"(a));
}
#endif
// Asynchronous copies into shared memory (`cp.async`, sm_80 on): BYTES (4, 8 or 16) from
// global `src` to shared `dst`, both aligned to BYTES. False where the device has none (the
// host device, older GPUs, other sizes): the caller then copies itself. `cp_async_commit`
// closes the thread's group of copies; `cp_async_wait<N>` waits until at most N of its
// groups are in flight, after which its copies are visible to it (and only to it).
template <int BYTES> __device__ __forceinline__ bool cp_async(void* dst, const void* src) {
#ifndef __CUPRUM_HOST__
#if __CUDA_ARCH__ >= 800
  if constexpr (BYTES == 16 || BYTES == 8 || BYTES == 4) {
    unsigned long long s;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(s) : "l"(dst));
    if constexpr (BYTES == 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)s), "l"(src) : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"((unsigned)s), "l"(src), "n"(BYTES) : "memory");
    return true;
  }
#endif
#endif
  return false;
}
__device__ __forceinline__ void cp_async_commit() {
#ifndef __CUPRUM_HOST__
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#endif
}
template <int N> __device__ __forceinline__ void cp_async_wait() {
#ifndef __CUPRUM_HOST__
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
#endif
#endif
}
// Exclusive sum over a block of W warps of each thread's v (`total`: the whole sum), through
// W words of shared memory `s_w`; one barrier inside, so `s_w` may be written again only
// after another.
template <int W> __device__ __forceinline__ unsigned block_exclusive(unsigned v, unsigned* s_w, unsigned& total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned incl = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const unsigned y = __shfl_up_sync(FULL, incl, o); if (lane >= o) incl += y; }
  if (lane == 31) s_w[warp] = incl;
  __syncthreads();
  unsigned pre = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < W; ++w) { const unsigned c = s_w[w]; if (w < warp) pre += c; total += c; }
  return pre + incl - v;
}
// Warp shuffles of any plain type, one 32-bit word at a time.
template <typename T> struct Words { static constexpr int N = (sizeof(T) + 3) / 4; };
template <typename T> __device__ __forceinline__ T shfl_up(const T& v, unsigned d) {
  unsigned w[Words<T>::N] = {}; memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < Words<T>::N; ++k) w[k] = __shfl_up_sync(FULL, w[k], d);
  T r; memcpy(&r, w, sizeof(T)); return r; }
template <typename T> __device__ __forceinline__ T shfl_down(const T& v, unsigned d) {
  unsigned w[Words<T>::N] = {}; memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < Words<T>::N; ++k) w[k] = __shfl_down_sync(FULL, w[k], d);
  T r; memcpy(&r, w, sizeof(T)); return r; }
template <typename T> __device__ __forceinline__ T shfl_idx(const T& v, int src) {
  unsigned w[Words<T>::N] = {}; memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < Words<T>::N; ++k) w[k] = __shfl_sync(FULL, w[k], src);
  T r; memcpy(&r, w, sizeof(T)); return r; }
// V consecutive elements moved with aligned accesses of at most 16 bytes.
template <typename T, int V> struct __align__(sizeof(T) * V) Pack { T v[V]; };
template <typename T, int V> __device__ __forceinline__ void load_vec(const T* p, T* out) {
  constexpr int C = (sizeof(T) * V <= 16) ? V : (16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1);
#pragma unroll
  for (int c = 0; c < V; c += C) {
    Pack<T, C> w = *reinterpret_cast<const Pack<T, C>*>(p + c);
#pragma unroll
    for (int k = 0; k < C; ++k) out[c + k] = w.v[k];
  } }
template <typename T, int V> __device__ __forceinline__ void store_vec(T* p, const T* in) {
  constexpr int C = (sizeof(T) * V <= 16) ? V : (16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1);
#pragma unroll
  for (int c = 0; c < V; c += C) {
    Pack<T, C> w;
#pragma unroll
    for (int k = 0; k < C; ++k) w.v[k] = in[c + k];
    *reinterpret_cast<Pack<T, C>*>(p + c) = w;
  } }
}  // namespace rt
struct __align__(16) cuprum_u128 { unsigned long long lo, hi; };
"#;
