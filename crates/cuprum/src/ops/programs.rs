//! The [`RawModule`] programs of the array routines (scans, compaction, radix sort, gathers
//! and scatters): one module per specialisation, its CUDA C++ generated from a key,
//! compiled through the kernel cache on first use and kept for the process; each kernel
//! a [`RawKernel`] (arguments checked against the compiled parameter list at launch).
//!
//! Also what several routines share: the CUDA prelude (element types, relaxed and
//! acquire/release accesses for decoupled look-back, generic warp shuffles, vector
//! loads and stores), launch shapes, scratch buffers that must start zeroed, and the one
//! device → host read of a result size.
//!
//! A specialisation is keyed by dtype or item size, index width and mode. The scan, the
//! compaction and each radix-sort pass are single-pass kernels with **decoupled
//! look-back**: a block takes its tile from an atomic ticket (so every predecessor has
//! started), publishes the tile's aggregate, then looks back at its predecessors' status
//! words until it meets an inclusive prefix (each routine's status word is described in
//! its file). Loads are warp-striped vectors (each lane holds `VEC` consecutive elements of
//! a 32-lane row), so ranks come from ballots and shuffles without shared-memory
//! transposes. Scratch that must start zeroed is one memset per call.
//!
//! Synchronisation: a result that needs its size (a mask read, `nonzero`) costs one
//! device → host read of that size, and `IndexMode::Raise` one read of an error flag;
//! nothing else synchronises. Determinism: a float `cumsum` combines in an order that
//! depends on timing (the last bits may vary between runs); integer scans, sorts,
//! compactions and gathers are exact and deterministic; `scatter_add` uses atomics (a CAS
//! on the enclosing 32-bit word for 1- and 2-byte types).
//!
//! Routines built on the current stream run inside [`on_device_of`] their first array, so
//! that they run on the device where it lives.

use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::{Result, err};
use crate::kernel::{Dim3, KernelArgs, RawKernel, RawModule};
use crate::runtime::{Stream, zero_device};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One compiled-on-first-use module and the kernels taken from it.
pub(crate) struct Program {
    module: RawModule,
    kernels: Mutex<FxHashMap<&'static str, Arc<RawKernel>>>,
}

type Table = Mutex<FxHashMap<String, Arc<Program>>>;

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(Default::default)
}

/// The program for `key`, its source made by `source` the first time the key is seen.
pub(crate) fn program(key: &str, source: impl FnOnce() -> String) -> Arc<Program> {
    let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = t.get(key) {
        return p.clone();
    }
    let opts =
        CompileOptions::new().program_name(format!("cuprum_{}.cu", key.replace(['|', ' '], "_")));
    let p = Arc::new(Program::new(source(), opts));
    t.insert(key.to_owned(), p.clone());
    p
}

impl Program {
    /// A program of `source` compiled with `options` on first use (kept by its owner, not
    /// in the routines' table: a `ScanKernel`'s programs live with the kernel).
    pub(crate) fn new(source: String, options: CompileOptions) -> Program {
        Program {
            module: RawModule::new(source).options(options),
            kernels: Mutex::default(),
        }
    }

    /// The kernel `name` (an `extern "C"` function of the program), compiled and loaded on
    /// the current device on first use.
    pub(crate) fn kernel(&self, name: &'static str) -> Result<Arc<RawKernel>> {
        if let Some(k) = self
            .kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
        {
            return Ok(k.clone());
        }
        let k = Arc::new(self.module.get_function(name)?);
        self.kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name, k.clone());
        Ok(k)
    }

    /// Launches kernel `name` with `grid` blocks of `block` threads on the current stream.
    pub(crate) fn launch(
        &self,
        name: &'static str,
        grid: u32,
        block: u32,
        args: impl KernelArgs,
    ) -> Result<()> {
        self.kernel(name)?
            .launch(Dim3(grid.max(1), 1, 1), Dim3(block, 1, 1), args)
    }
}

/// Threads per block of every routine kernel.
pub(crate) const BLOCK: u32 = 256;

/// Blocks for a grid-stride loop over `n` items: one item per thread, at most 2^24 blocks.
pub(crate) fn blocks_for(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize).clamp(1, 1 << 24) as u32
}

/// Whether 32-bit indexing covers `n` items (with room for one tile past the end).
pub(crate) fn fits_u32(n: usize) -> bool {
    n < (1usize << 31)
}

/// Runs `f` with `a`'s device current (and, when the current stream belongs to another
/// device, that device's default stream as the current stream), so that the ops built on
/// the current stream (programs, scratch, temporaries) run where `a` lives.
pub(crate) fn on_device_of<R>(a: &Array, f: impl FnOnce() -> Result<R>) -> Result<R> {
    match elsewhere(a, f) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(f)) => f(),
        Err(e) => Err(e),
    }
}

/// For an op built on the current stream, called with `a` on another device than the
/// current stream's: `Some(f())` run with `a`'s device and stream current (`f` calls the
/// op again, which then finds its device current); `None` when `a`'s device is current.
/// The op's first lines: `if let Some(r) = elsewhere_then(a, || op(a, …)) { return r; }`.
pub(crate) fn elsewhere_then<R>(a: &Array, f: impl FnOnce() -> Result<R>) -> Option<Result<R>> {
    match elsewhere(a, f) {
        Ok(Ok(r)) => Some(Ok(r)),
        Ok(Err(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

/// Whether `a`'s device differs from the current stream's (the op must then run inside
/// [`on_device_of`]).
pub(crate) fn is_elsewhere(a: &Array) -> Result<bool> {
    Ok(Stream::for_device(a.device())? != Stream::current()?)
}

/// `Ok(Ok(f()))` run on `a`'s device when the current stream is another device's,
/// `Ok(Err(f))` (not run) when it is `a`'s device's.
#[allow(clippy::type_complexity)]
fn elsewhere<R, F: FnOnce() -> Result<R>>(a: &Array, f: F) -> Result<std::result::Result<R, F>> {
    let stream = Stream::for_device(a.device())?;
    if Stream::current()? == stream {
        return Ok(Err(f));
    }
    stream.with(f).map(Ok)
}

/// Scratch of `bytes` bytes, zeroed on the current stream (look-back status words, tile
/// counters, histograms, error flags).
pub(crate) fn zeroed_scratch(bytes: usize) -> Result<Array> {
    let a = Array::empty(&[bytes.div_ceil(8).max(1)], DType::U64)?;
    let stream = Stream::current()?;
    // SAFETY: `a` was just allocated on this stream with `nbytes()` bytes and lives past
    // the memset (stream-ordered free).
    unsafe { zero_device(a.ptr_on(&stream), a.nbytes(), &stream)? };
    Ok(a)
}

/// Device address `byte_offset` bytes into `a` (for carving one scratch buffer into parts).
pub(crate) fn ptr_at(a: &Array, byte_offset: usize) -> crate::kernel::DevicePtr {
    crate::kernel::DevicePtr(a.data_ptr() + byte_offset as u64)
}

/// Reads one `u64` the device wrote (a result size): the routines' one device → host read.
pub(crate) fn read_u64(a: &Array) -> Result<u64> {
    let v = a.slice(&[crate::array::SliceArg::Range {
        start: Some(0),
        end: Some(1),
        step: 1,
    }])?;
    v.to_vec::<u64>()?
        .first()
        .copied()
        .ok_or_else(|| err!(InvalidArgument, "empty result-size buffer"))
}

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

/// The unsigned type that moves one element of `item` bytes as bits.
pub(crate) fn bits_type(item: usize) -> &'static str {
    match item {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "cuprum_u128",
    }
}

/// Elements per vector access of a `item`-byte type (16 bytes at most, 4 elements at most).
pub(crate) fn vec_width(item: usize) -> usize {
    (16 / item).clamp(1, 4)
}

/// Whether every pointer is aligned for `vec`-element accesses of its item size.
pub(crate) fn aligned(arrays: &[&Array], vec: usize) -> bool {
    arrays
        .iter()
        .all(|a| a.data_ptr().is_multiple_of((a.itemsize() * vec) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_widths_stay_within_16_bytes() {
        assert_eq!(vec_width(1), 4);
        assert_eq!(vec_width(2), 4);
        assert_eq!(vec_width(4), 4);
        assert_eq!(vec_width(8), 2);
        assert_eq!(vec_width(16), 1);
        for item in [1, 2, 4, 8, 16] {
            assert!(vec_width(item) * item <= 16);
        }
    }

    #[test]
    fn launch_shapes() {
        assert_eq!(blocks_for(0), 1);
        assert_eq!(blocks_for(256), 1);
        assert_eq!(blocks_for(257), 2);
        assert!(fits_u32(1 << 30));
        assert!(!fits_u32(1 << 31));
        assert_eq!(bits_type(16), "cuprum_u128");
    }
}
