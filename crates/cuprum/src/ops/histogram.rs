//! `bincount` and `histogram` (NumPy's): counts of values in bins, each element read once.
//!
//! One program per (input dtype, edge dtype) holds every kernel. A first pass finds the
//! input's minimum and maximum (each block writes its pair): for `bincount` the host reduces
//! them (the one device → host read, which sizes the result and checks for negative
//! input); `histogram` without a range reduces them on the device into its edges and
//! reads the range back once at the end, for NumPy's check that it is finite. The counting pass **privatises the
//! bins in shared memory**: each block keeps up to 8 copies of the bins (warps spread over
//! them, so that few bins do not serialise on one counter), adds with shared-memory
//! atomics, and merges its non-zero bins into the result with one global atomic each.
//! Bins that do not fit in 48 KiB of shared memory are counted with global atomics.
//! Bytes: the input read twice when the range must be found (once otherwise), the result
//! written once.
//!
//! Both passes run as many blocks as the device holds at once and read an aligned input 16
//! bytes at a time, 4 loads in flight a thread (whole chunks without a bound check per
//! element); the min/max pass keeps its running values in the input's own type (float for
//! 16-bit floats), with NaN-ignoring `fminf`/`fmaxf` and a NaN flag apart (one instruction
//! each, not three compares and two selects). `histogram`'s counting pass (1000 equal bins
//! of float32) was issue-bound (`ncu`, H100: 77 % of the SM, 47 % of DRAM): per element the
//! guess, two corrections reading the staged edges (shared-memory bank conflicts: random
//! bins) and a shared atomic. Now a guess whose fraction is farther from a whole number
//! than the rounding of the guess and of the edges allows (`guess_eps`) is the bin, and only
//! elements next to an edge read the edges. H100, outside the library, 1e8 float32 in
//! [0, 1), 1000 bins, µs: counting 199 → 159 (the quick bin) → 154 (16-byte loads); a lane
//! per column of bins (conflict-free atomics, 1 block of 1024 threads an SM) 153, not taken
//! (no faster, 128 KiB of shared memory). With the range found on the device,
//! `cuprum_histogram_range` reduces the extremes and writes the edges there, so the passes
//! run back to back (the host read the extremes and wrote the edges between them before:
//! the H100's bench row spent 406 µs for 337 µs of kernels).
//!
//! Histogram bins follow NumPy: equal bins are `linspace(first, last, bins + 1)` in the
//! edges' dtype (the input's float dtype, float64 for integers); an element's bin is
//! first guessed from `(x - first) / (last - first) * bins` in that precision, then moved
//! until `edges[i] <= x < edges[i + 1]` (the last bin closed), so the counts agree with the
//! returned edges. Given edges, each element is a binary search among them.

use super::programs::{PRELUDE, Program, on_device_of, program};
use super::search::{check_1d, less_code};
use crate::array::{Array, DType, DTypeKind};
use crate::dtype::f16_from_f64;
use crate::error::{Result, bail, err};
use crate::kernel::{DevicePtr, Dim3};
use crate::runtime::Device;
use crate::shape::format_shape;
use std::fmt::Write;
use std::sync::Arc;

/// Shared memory a block's private bins may take.
const SHARED_BINS_BYTES: usize = 48 * 1024;
/// Most private copies of the bins per block.
const MAX_COPIES: usize = 8;
/// Elements a thread loads per step of the counting loop.
const UNROLL: usize = 4;

/// How [`histogram`] makes its bins (NumPy's `bins`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::Bins};
/// let edges = Array::from_slice(&[0.0f64, 1.0, 10.0], &[3])?;
/// assert!(matches!(Bins::from(10), Bins::Count(10)));
/// assert!(matches!(Bins::from(&edges), Bins::Edges(_)));
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Bins<'a> {
    /// This many equal-width bins over the range.
    Count(usize),
    /// The bin edges: a monotonically increasing 1-D array (`bins + 1` values); the last
    /// bin includes its right edge.
    Edges(&'a Array),
}

impl From<usize> for Bins<'_> {
    fn from(n: usize) -> Self {
        Bins::Count(n)
    }
}

impl<'a> From<&'a Array> for Bins<'a> {
    fn from(edges: &'a Array) -> Self {
        Bins::Edges(edges)
    }
}

fn count_program(t: DType, e: DType) -> Arc<Program> {
    program(&format!("count|{}|{}", t.name(), e.name()), || {
        count_source(t, e)
    })
}

/// The counting program for input dtype `t` and edge dtype `e` (float64 for `bincount`;
/// the edge-search kernels exist when `e == t`).
pub(crate) fn count_source(t: DType, e: DType) -> String {
    let mut s = String::from(PRELUDE);
    let f = if e == DType::F64 || !e.is_float() {
        "double"
    } else {
        "float"
    };
    let _ = write!(
        s,
        "typedef {tc} T;\ntypedef {ec} E;\ntypedef {f} F;\ntypedef {m} M;\n\
         constexpr int UNROLL = {UNROLL};\n\
         #define CUPRUM_EDGES {edges}\n",
        tc = t.c_type(),
        ec = e.c_type(),
        m = match t {
            DType::F16 | DType::BF16 => "float",
            DType::Bool => "int",
            _ => t.c_type(),
        },
        edges = u8::from(t == e),
    );
    if t == e {
        s.push_str(less_code(t));
    }
    s.push_str(COUNT_BODY);
    s
}

const COUNT_BODY: &str = r#"
constexpr int BLOCK = 256;
// NaN-ignoring minimum and maximum (one instruction for floats) and the NaN test (false for
// integers); a NaN is tracked apart, so it costs one compare an element, not three.
__device__ __forceinline__ float vmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double vmin(double a, double b) { return fmin(a, b); }
template <typename A> __device__ __forceinline__ A vmin(A a, A b) { return b < a ? b : a; }
__device__ __forceinline__ float vmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double vmax(double a, double b) { return fmax(a, b); }
template <typename A> __device__ __forceinline__ A vmax(A a, A b) { return b > a ? b : a; }
template <typename A> __device__ __forceinline__ bool vnan(A a) { return a != a; }
// NaN-propagating minimum and maximum (the range kernel's reduction of the blocks' pairs).
template <typename A> __device__ __forceinline__ A amin(A a, A b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }
template <typename A> __device__ __forceinline__ A amax(A a, A b) { return a != a ? a : (b != b ? b : (b > a ? b : a)); }
template <typename A> __device__ __forceinline__ A nan_of() { return A(); }
template <> __device__ __forceinline__ double nan_of<double>() { return nan(""); }
// Each block's (min, max) of x[0..n) (n > 0; NaN propagates) into part[2 * block ..], kept
// in M (T itself, float for the 16-bit floats: no conversion per element) and written as A.
// An aligned input is read 16 bytes at a time, MV loads in flight; the rest (or an
// unaligned input) MM elements at a time, whole chunks without a bound check per element.
template <typename A> __device__ __forceinline__ void minmax(const T* __restrict__ x, long long n, A* __restrict__ part) {
  __shared__ M s_lo[BLOCK], s_hi[BLOCK];
  __shared__ int s_nan;
  if (threadIdx.x == 0) s_nan = 0;
  M lo = cuprum::cast<M>(x[0]), hi = lo;
  bool nan = false;
  auto take = [&](const T& t) {
    const M v = cuprum::cast<M>(t);
    lo = vmin(lo, v);
    hi = vmax(hi, v);
    nan |= vnan(v);
  };
  constexpr int VK = sizeof(T) < 16 ? 16 / sizeof(T) : 1, MV = 4, MM = 8;
  long long i0 = 0;
  if ((reinterpret_cast<size_t>(x) & 15) == 0) {
    const long long nv = n / VK, vstride = (long long)gridDim.x * BLOCK * MV;
    for (long long j0 = (long long)blockIdx.x * BLOCK * MV + threadIdx.x; j0 < nv; j0 += vstride) {
      T xv[MV][VK];
      const bool whole = j0 + (long long)(MV - 1) * BLOCK < nv;
#pragma unroll
      for (int u = 0; u < MV; ++u) {
        const long long j = j0 + (long long)u * BLOCK;
        if (whole || j < nv) {
          rt::load_vec<T, VK>(x + j * VK, xv[u]);
        } else {
#pragma unroll
          for (int q = 0; q < VK; ++q) xv[u][q] = x[0];
        }
      }
#pragma unroll
      for (int u = 0; u < MV; ++u) {
#pragma unroll
        for (int q = 0; q < VK; ++q) take(xv[u][q]);
      }
    }
    i0 = nv * VK;
  }
  const long long stride = (long long)gridDim.x * BLOCK * MM;
  for (long long i = i0 + (long long)blockIdx.x * BLOCK * MM + threadIdx.x; i < n; i += stride) {
    T xv[MM];
    const T* __restrict__ p = x + i;
    if (i + (long long)(MM - 1) * BLOCK < n) {
#pragma unroll
      for (int u = 0; u < MM; ++u) xv[u] = p[u * BLOCK];
    } else {
#pragma unroll
      for (int u = 0; u < MM; ++u) xv[u] = i + (long long)u * BLOCK < n ? p[u * BLOCK] : x[0];
    }
#pragma unroll
    for (int u = 0; u < MM; ++u) take(xv[u]);
  }
  s_lo[threadIdx.x] = lo;
  s_hi[threadIdx.x] = hi;
  __syncthreads();
  if (nan) s_nan = 1;
  for (int o = BLOCK / 2; o > 0; o >>= 1) {
    if ((int)threadIdx.x < o) {
      s_lo[threadIdx.x] = vmin(s_lo[threadIdx.x], s_lo[threadIdx.x + o]);
      s_hi[threadIdx.x] = vmax(s_hi[threadIdx.x], s_hi[threadIdx.x + o]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[2 * blockIdx.x] = s_nan ? nan_of<A>() : cuprum::cast<A>(s_lo[0]);
    part[2 * blockIdx.x + 1] = s_nan ? nan_of<A>() : cuprum::cast<A>(s_hi[0]);
  }
}
extern "C" __global__ void __launch_bounds__(256) cuprum_minmax_int(const T* __restrict__ x, long long n, long long* __restrict__ part) {
  minmax<long long>(x, n, part); }
extern "C" __global__ void __launch_bounds__(256) cuprum_minmax_float(const T* __restrict__ x, long long n, double* __restrict__ part) {
  minmax<double>(x, n, part); }

// MODE 2's quick bin: the guess g = (f - first) * scale is the bin when its fraction is
// farther than eps from an integer (eps bounds the guess's rounding and the edges' distance
// from their exact places, in bins: `guess_eps` on the host, `cuprum_histogram_range` on
// the device; 1 when no guess can be trusted), else -1 (the edges decide).
__device__ __forceinline__ float floor_of(float g) { return floorf(g); }
__device__ __forceinline__ double floor_of(double g) { return floor(g); }
__device__ __forceinline__ long long quick_bin(F g, long long nb, F eps) {
  const F fl = floor_of(g), fr = g - fl;
  return (fr > eps && fr < (F)1 - eps && fl < (F)nb) ? (long long)fl : -1;
}
// The bin of element value xv (-1: not counted). MODE 0/1: bincount (the value itself);
// 2: equal bins over edges[0..nb] (the quick bin, else the guess moved until
// edges[i] <= x < edges[i+1], the last bin closed); 3: given edges (binary search).
// For MODE 2, lo and hi are edges[0] and edges[nb], scale is nb / (last - first): the guess
// multiplies (the moves after it make the bin exact whatever the guess's rounding).
template <int MODE> __device__ __forceinline__ long long bin_of(const T& xv, const E* __restrict__ edges, long long nb,
    F first, F lo, F hi, F scale, F eps) {
  if (MODE < 2) return cuprum::cast<long long>(xv);
  if (MODE == 2) {
    const F f = cuprum::cast<F>(xv);
    if (!(f >= lo && f <= hi)) return -1;
    const F g = (f - first) * scale;
    const long long q = quick_bin(g, nb, eps);
    if (q >= 0) return q;
    long long i = g >= (F)nb ? nb - 1 : (g > (F)0 ? (long long)g : 0);
    while (i > 0 && f < cuprum::cast<F>(edges[i])) --i;
    while (i < nb - 1 && f >= cuprum::cast<F>(edges[i + 1])) ++i;
    return i;
  }
#if CUPRUM_EDGES
  long long c = 0, l = nb + 1;
  while (l > 0) {
    const long long h = l >> 1;
    if (!lt(xv, edges[c + h])) { c += h + 1; l -= h + 1; } else { l = h; }
  }
  if (c == 0) return -1;
  if (c <= nb) return c - 1;
  return lt(edges[nb], xv) ? -1 : nb - 1;
#else
  return -1;
#endif
}
// MODE 2's bin of xv with 32-bit indices and the edges in shared memory (a shared count:
// fewer than 2^31 bins), the same quick bin, guess and moves as bin_of.
__device__ __forceinline__ int bin_small(const T& xv, const F* __restrict__ e, int nb, F first, F lo, F hi, F scale, F eps) {
  const F f = cuprum::cast<F>(xv);
  if (!(f >= lo && f <= hi)) return -1;
  const F g = (f - first) * scale;
  const long long q = quick_bin(g, nb, eps);
  if (q >= 0) return (int)q;
  int i = g >= (F)nb ? nb - 1 : (g > (F)0 ? (int)g : 0);
  while (i > 0 && f < e[i]) --i;
  while (i < nb - 1 && f >= e[i + 1]) ++i;
  return i;
}
template <bool W> struct Ctr { typedef unsigned S; typedef unsigned long long G; };
template <> struct Ctr<true> { typedef double S; typedef double G; };
// Counts (or sums of weights) per bin into out[0..nb) (zeroed): with SHARED, in `copies`
// private copies of the bins in shared memory, merged at the end; else global atomics.
// MODE 2 takes (first, last - first, eps) from prm when it is not null (the range found on
// the device), else from the arguments.
template <int MODE, bool SHARED>
__device__ __forceinline__ void count(const T* __restrict__ x, const double* __restrict__ w, long long n,
    const E* __restrict__ edges, long long nb, double first, double denom, double eps, const double* __restrict__ prm,
    int copies, void* __restrict__ out) {
  constexpr bool WEIGHTED = MODE == 1;
  typedef typename Ctr<WEIGHTED>::S S;
  typedef typename Ctr<WEIGHTED>::G G;
  extern __shared__ __align__(16) unsigned char s_dyn[];
  S* s_bins = reinterpret_cast<S*>(s_dyn);
  G* g_bins = reinterpret_cast<G*>(out);
  // Equal bins counted in shared memory: the edges staged there too, as F, after the bins
  // (16-byte aligned), so the guess's corrections read shared memory.
  constexpr bool STAGED = SHARED && MODE == 2;
  F* s_edges = reinterpret_cast<F*>(s_dyn + (((long long)copies * nb * sizeof(S) + 15) & ~15ll));
  if (SHARED) {
    for (long long k = threadIdx.x; k < (long long)copies * nb; k += BLOCK) s_bins[k] = (S)0;
    if (STAGED) for (long long k = threadIdx.x; k <= nb; k += BLOCK) s_edges[k] = cuprum::cast<F>(edges[k]);
    __syncthreads();
  }
  S* mine = s_bins + (SHARED ? (long long)((threadIdx.x >> 5) % copies) * nb : 0);
  if (MODE == 2 && prm) {
    first = prm[0];
    denom = prm[1];
    eps = prm[2];
  }
  const F ff = (F)first, fd = (F)denom, fe = (F)eps;
  // MODE 2: the range and the scale of the guess, once per thread rather than per element
  const F lo = MODE == 2 ? cuprum::cast<F>(edges[0]) : (F)0;
  const F hi = MODE == 2 ? cuprum::cast<F>(edges[nb]) : (F)0;
  const F scale = MODE == 2 ? (F)nb / fd : (F)0;
  auto add = [&](const T& xv, double wv) {
    // Shared bins are few (below 2^31): 32-bit bins, and the staged edges for MODE 2.
    const long long b = STAGED ? (long long)bin_small(xv, s_edges, (int)nb, ff, lo, hi, scale, fe)
                               : bin_of<MODE>(xv, edges, nb, ff, lo, hi, scale, fe);
    if (b >= 0) {
      if (SHARED) atomicAdd(&mine[b], WEIGHTED ? (S)wv : (S)1);
      else atomicAdd(&g_bins[b], WEIGHTED ? (G)wv : (G)1);
    }
  };
  long long i0 = 0;
  // Without weights an aligned input is read 16 bytes at a time, MV loads in flight (the
  // counting is issue-bound: a quarter of the load instructions).
  constexpr int VK = sizeof(T) < 16 ? 16 / sizeof(T) : 1, MV = 4;
  if (!WEIGHTED && (reinterpret_cast<size_t>(x) & 15) == 0) {
    const long long nv = n / VK, vstride = (long long)gridDim.x * BLOCK * MV;
    for (long long j0 = (long long)blockIdx.x * BLOCK * MV + threadIdx.x; j0 < nv; j0 += vstride) {
      T xv[MV][VK];
      const bool whole = j0 + (long long)(MV - 1) * BLOCK < nv;
#pragma unroll
      for (int u = 0; u < MV; ++u)
        if (whole || j0 + (long long)u * BLOCK < nv) rt::load_vec<T, VK>(x + (j0 + (long long)u * BLOCK) * VK, xv[u]);
#pragma unroll
      for (int u = 0; u < MV; ++u) {
        if (whole || j0 + (long long)u * BLOCK < nv) {
#pragma unroll
          for (int q = 0; q < VK; ++q) add(xv[u][q], 0.0);
        }
      }
    }
    i0 = nv * VK;
  }
  // CU loads in flight per thread; whole chunks without a bound check per element.
  constexpr int CU = 2 * UNROLL;
  const long long stride = (long long)gridDim.x * BLOCK * CU;
  for (long long i = i0 + (long long)blockIdx.x * BLOCK * CU + threadIdx.x; i < n; i += stride) {
    T xv[CU];
    double wv[CU];
    const bool whole = i + (long long)(CU - 1) * BLOCK < n;
    if (whole) {
#pragma unroll
      for (int u = 0; u < CU; ++u) { xv[u] = x[i + u * BLOCK]; if (WEIGHTED) wv[u] = w[i + u * BLOCK]; }
    } else {
#pragma unroll
      for (int u = 0; u < CU; ++u) {
        const long long k = i + (long long)u * BLOCK;
        if (k < n) { xv[u] = x[k]; if (WEIGHTED) wv[u] = w[k]; }
      }
    }
#pragma unroll
    for (int u = 0; u < CU; ++u)
      if (whole || i + (long long)u * BLOCK < n) add(xv[u], WEIGHTED ? wv[u] : 0.0);
  }
  if (SHARED) {
    __syncthreads();
    for (long long k = threadIdx.x; k < nb; k += BLOCK) {
      S sum = (S)0;
      for (int r = 0; r < copies; ++r) sum += s_bins[(long long)r * nb + k];
      if (sum != (S)0) atomicAdd(&g_bins[k], (G)sum);
    }
  }
}
// The equal bins of a range found on the device (no round trip to the host between the
// passes): the blocks' (min, max) pairs reduced (NaN propagating), NumPy's widening of an
// empty range by 0.5 each way, `linspace(first, last, nb + 1)` as NumPy computes it in
// float64 (a multiply and an add, each rounded) rounded once to E, the last edge `last`.
// prm gets (first, last - first, eps) for the count (eps as `guess_eps` computes it, from
// the unit roundoffs uf of F and ue of E), range the data's (min, max) for the host's
// finiteness check after the count.
extern "C" __global__ void __launch_bounds__(256) cuprum_histogram_range(const double* __restrict__ part, int nparts,
    long long nb, E* __restrict__ edges, double* __restrict__ prm, double* __restrict__ range, double uf, double ue) {
  __shared__ double s_lo[BLOCK], s_hi[BLOCK];
  double lo = part[0], hi = part[1];
  for (int b = threadIdx.x; b < nparts; b += BLOCK) {
    lo = amin(lo, part[2 * b]);
    hi = amax(hi, part[2 * b + 1]);
  }
  s_lo[threadIdx.x] = lo;
  s_hi[threadIdx.x] = hi;
  __syncthreads();
  for (int o = BLOCK / 2; o > 0; o >>= 1) {
    if ((int)threadIdx.x < o) {
      s_lo[threadIdx.x] = amin(s_lo[threadIdx.x], s_lo[threadIdx.x + o]);
      s_hi[threadIdx.x] = amax(s_hi[threadIdx.x], s_hi[threadIdx.x + o]);
    }
    __syncthreads();
  }
  double first = s_lo[0], last = s_hi[0];
  if (threadIdx.x == 0) {
    range[0] = first;
    range[1] = last;
  }
  if (first == last) {
    first = __dsub_rn(first, 0.5);
    last = __dadd_rn(last, 0.5);
  }
  const double width = __dsub_rn(last, first), step = __ddiv_rn(width, (double)nb);
  for (long long i = threadIdx.x; i <= nb; i += BLOCK)
    edges[i] = cuprum::cast<E>(i == nb ? last : __dadd_rn(__dmul_rn((double)i, step), first));
  if (threadIdx.x == 0) {
    const double m = fmax(fabs(first), fabs(last));
    const double eps = 4.0 * (6.0 * uf * (double)nb + 2.0 * ue * m * (double)nb / width);
    prm[0] = first;
    prm[1] = width;
    prm[2] = eps < 0.25 ? eps : 1.0;
  }
}
#define CUPRUM_COUNT_ENTRY(NAME, MODE, SHARED) \
extern "C" __global__ void __launch_bounds__(256) NAME(const T* __restrict__ x, const double* __restrict__ w, long long n, \
    const E* __restrict__ edges, long long nb, double first, double denom, double eps, const double* __restrict__ prm, \
    int copies, void* __restrict__ out) { \
  count<MODE, SHARED>(x, w, n, edges, nb, first, denom, eps, prm, copies, out); }
CUPRUM_COUNT_ENTRY(cuprum_bincount_shared, 0, true)
CUPRUM_COUNT_ENTRY(cuprum_bincount_global, 0, false)
CUPRUM_COUNT_ENTRY(cuprum_bincount_weighted_shared, 1, true)
CUPRUM_COUNT_ENTRY(cuprum_bincount_weighted_global, 1, false)
CUPRUM_COUNT_ENTRY(cuprum_histogram_equal_shared, 2, true)
CUPRUM_COUNT_ENTRY(cuprum_histogram_equal_global, 2, false)
#if CUPRUM_EDGES
CUPRUM_COUNT_ENTRY(cuprum_histogram_edges_shared, 3, true)
CUPRUM_COUNT_ENTRY(cuprum_histogram_edges_global, 3, false)
#endif
"#;

/// Blocks of the grid-stride passes: enough to fill the device, no more (each block
/// merges its bins once).
fn grid_for(n: usize) -> Result<u32> {
    let sms = Device::current()?.sm_count().max(1) as usize;
    Ok(n.div_ceil(256 * UNROLL).clamp(1, sms * 4) as u32)
}

/// Loads in flight per thread of the min/max pass (`MM` of its kernel).
const MINMAX_LOADS: usize = 8;

/// A grid-stride grid of `k` in blocks of 256 threads with `shared` bytes of dynamic shared
/// memory: `wanted` blocks, at most as many as the device holds at once (one wave; a fixed
/// 4 blocks an SM left half the threads idle, with too few loads in flight for the
/// bandwidth).
fn resident_grid(k: &crate::kernel::RawKernel, wanted: usize, shared: usize) -> Result<u32> {
    let resident = k.occupancy(256, shared as u32)?.resident_blocks().max(1);
    Ok(wanted.clamp(1, resident as usize) as u32)
}

/// The minimum and maximum of the contiguous, non-empty `x` (as int64 for `int`, else as
/// float64, NaN propagating).
enum Extremes {
    Int(i64, i64),
    Float(f64, f64),
}

/// Each block's (minimum, maximum) of the contiguous, non-empty `x` on the device (int64
/// pairs for `int`, else float64), and the number of blocks.
fn extreme_parts(prog: &Program, x: &Array, int: bool) -> Result<(Array, u32)> {
    let name = if int {
        "cuprum_minmax_int"
    } else {
        "cuprum_minmax_float"
    };
    let k = prog.kernel(name)?;
    let grid = resident_grid(&k, x.size().div_ceil(256 * MINMAX_LOADS), 0)?;
    let part = Array::empty(
        &[2 * grid as usize],
        if int { DType::I64 } else { DType::F64 },
    )?;
    k.configure(Dim3(grid, 1, 1), Dim3(256, 1, 1))
        .launch((x, x.size() as i64, &part))?;
    Ok((part, grid))
}

fn extremes(prog: &Program, x: &Array, int: bool) -> Result<Extremes> {
    let (part, _) = extreme_parts(prog, x, int)?;
    if int {
        let v = part.to_vec::<i64>()?;
        let lo = v.iter().step_by(2).copied().min();
        let hi = v.iter().skip(1).step_by(2).copied().max();
        Ok(Extremes::Int(lo.unwrap_or(0), hi.unwrap_or(0)))
    } else {
        let v = part.to_vec::<f64>()?;
        let nan = v.iter().any(|x| x.is_nan());
        let lo = v.iter().step_by(2).copied().fold(f64::INFINITY, f64::min);
        let hi = v
            .iter()
            .skip(1)
            .step_by(2)
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        Ok(if nan {
            Extremes::Float(f64::NAN, f64::NAN)
        } else {
            Extremes::Float(lo, hi)
        })
    }
}

/// The unit roundoffs of the float arithmetic a count with edges of dtype `e` guesses in
/// (`F` of its program: float64 for float64 and integer edges, else float32) and of the
/// edges' own dtype.
fn unit_roundoffs(e: DType) -> (f64, f64) {
    let uf = if e == DType::F64 || !e.is_float() {
        f64::EPSILON / 2.0
    } else {
        f64::from(f32::EPSILON) / 2.0
    };
    let ue = match e {
        DType::F16 => f64::from(half::f16::EPSILON) / 2.0,
        DType::BF16 => f64::from(half::bf16::EPSILON) / 2.0,
        DType::F32 => f64::from(f32::EPSILON) / 2.0,
        _ => f64::EPSILON / 2.0,
    };
    (uf, ue)
}

/// How close to a whole number (in bins) the guess `(x - first) * nb / (last - first)` may
/// fall before the edges decide an element's bin: four times the bound on the guess's
/// rounding (a few unit roundoffs `uf` of its arithmetic, times `nb`) plus the edges'
/// distance from their exact places (`linspace` rounded once to the edges' dtype: `ue` of
/// the largest magnitude, in bins). 1 (never quick) when that reaches a quarter of a bin:
/// narrow bins of large values, or 16-bit edges. `cuprum_histogram_range` computes the same
/// on the device.
fn guess_eps(first: f64, last: f64, nb: usize, (uf, ue): (f64, f64)) -> f64 {
    let m = first.abs().max(last.abs());
    let nb = nb as f64;
    let eps = 4.0 * (6.0 * uf * nb + 2.0 * ue * m * nb / (last - first));
    if eps < 0.25 { eps } else { 1.0 }
}

/// One counting launch: `out` (zeroed, `nb` int64 counts or float64 sums) from the
/// contiguous `x`. `kernel` names the pair `<kernel>_shared` / `<kernel>_global`.
struct CountLaunch<'a> {
    x: &'a Array,
    weights: Option<&'a Array>,
    edges: Option<&'a Array>,
    nb: usize,
    first: f64,
    denom: f64,
    /// Equal bins: how close to a bin's edge the guess may fall ([`guess_eps`]).
    eps: f64,
    /// Equal bins over a range found on the device: (first, last - first, eps) there,
    /// instead of the three fields above.
    params: Option<&'a Array>,
    out: &'a Array,
    /// Equal bins: the shared kernel stages the edges in shared memory.
    stage_edges: bool,
}

impl CountLaunch<'_> {
    fn run(&self, prog: &Program, shared: &'static str, global: &'static str) -> Result<()> {
        let n = self.x.size();
        if n == 0 || self.nb == 0 {
            return Ok(());
        }
        let grid = grid_for(n)?;
        let item = if self.weights.is_some() { 8 } else { 4 };
        let per_block = n.div_ceil(grid as usize);
        // Equal bins stage their edges (as F: 8 bytes for float64 edges and integers' edges,
        // else 4) after the bins, 16-byte aligned.
        let staged = match (self.stage_edges, self.edges) {
            (true, Some(e)) => {
                let f = if e.dtype() == DType::F64 || !e.dtype().is_float() {
                    8
                } else {
                    4
                };
                (self.nb + 1) * f + 16
            }
            _ => 0,
        };
        let fits = self.nb * item + staged <= SHARED_BINS_BYTES && per_block < (1usize << 32);
        let copies = if fits {
            ((SHARED_BINS_BYTES - staged) / 2 / (self.nb * item)).clamp(1, MAX_COPIES)
        } else {
            1
        };
        let null = DevicePtr(0);
        let w = self.weights.map_or(null, |w| DevicePtr(w.data_ptr()));
        let e = self.edges.map_or(null, |e| DevicePtr(e.data_ptr()));
        let prm = self.params.map_or(null, |p| DevicePtr(p.data_ptr()));
        let args = (
            self.x,
            w,
            n as i64,
            e,
            self.nb as i64,
            self.first,
            self.denom,
            self.eps,
            prm,
            copies as i32,
            self.out,
        );
        let (name, bytes) = if fits {
            (shared, copies * self.nb * item + staged)
        } else {
            (global, 0)
        };
        let k = prog.kernel(name)?;
        // Every bin a block holds is merged once: as many blocks as fit at once, no more.
        let grid = resident_grid(&k, n.div_ceil(256 * UNROLL), bytes)?;
        k.configure(Dim3(grid, 1, 1), Dim3(256, 1, 1))
            .shared_mem(bytes)
            .launch(args)
    }
}

/// The number of occurrences of each value `0..=max(x)` in the non-negative integers `x`
/// (NumPy's `bincount`): int64, or float64 sums of `weights` (same length as `x`) when
/// given; at least `minlength` bins. `x` is 1-D, of bool or an integer dtype that casts
/// safely to int64 (not uint64). One pass finds the largest value (and refuses negative
/// ones: one device → host read), one pass counts in shared-memory bins.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let x = Array::from_slice(&[1i32, 3, 1, 0], &[4])?;
/// assert_eq!(ops::bincount(&x, None, 0)?.to_vec::<i64>()?, vec![1, 2, 0, 1]);
/// let w = Array::from_slice(&[0.5f32, 1.0, 0.25, 2.0], &[4])?;
/// assert_eq!(ops::bincount(&x, Some(&w), 6)?.to_vec::<f64>()?, vec![2.0, 0.75, 0.0, 1.0, 0.0, 0.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn bincount(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
    if super::programs::is_elsewhere(x)? {
        return on_device_of(x, || bincount(x, weights, minlength));
    }
    check_1d(x, "bincount: x")?;
    let d = x.dtype();
    if !(d.is_integer() || d == DType::Bool) || d == DType::U64 {
        bail!(
            DType,
            "bincount: Cannot cast array data from dtype('{}') to dtype('int64') according to \
             the rule 'safe' (x must hold non-negative integers)",
            d.name()
        );
    }
    let w = match weights {
        None => None,
        Some(w) => {
            if w.dtype().is_complex() {
                bail!(
                    DType,
                    "bincount: Cannot cast array data from dtype('{}') to dtype('float64') \
                     according to the rule 'safe' (weights must be real)",
                    w.dtype().name()
                );
            }
            if w.shape() != x.shape() {
                bail!(
                    Shape,
                    "The weights and list don't have the same length: x has shape {}, the \
                     weights {}",
                    format_shape(x.shape()),
                    format_shape(w.shape())
                );
            }
            Some(w.astype(DType::F64)?.to_contiguous()?)
        }
    };
    let out_dt = if w.is_some() { DType::F64 } else { DType::I64 };
    let n = x.size();
    if n == 0 {
        return Array::zeros(&[minlength], out_dt);
    }
    let x = x.to_contiguous()?;
    let prog = count_program(d, DType::F64);
    let Extremes::Int(lo, hi) = extremes(&prog, &x, true)? else {
        return Err(err!(InvalidArgument, "bincount: integer extremes expected"));
    };
    if lo < 0 {
        bail!(
            InvalidArgument,
            "'list' argument must have no negative elements (bincount's smallest value is {lo})"
        );
    }
    let nb = (hi as usize + 1).max(minlength);
    let out = Array::zeros(&[nb], out_dt)?;
    let launch = CountLaunch {
        x: &x,
        weights: w.as_ref(),
        edges: None,
        nb,
        first: 0.0,
        denom: 1.0,
        eps: 1.0,
        params: None,
        out: &out,
        stage_edges: false,
    };
    if w.is_some() {
        launch.run(
            &prog,
            "cuprum_bincount_weighted_shared",
            "cuprum_bincount_weighted_global",
        )?;
    } else {
        launch.run(&prog, "cuprum_bincount_shared", "cuprum_bincount_global")?;
    }
    Ok(out)
}

/// NumPy's `_get_outer_edges`: the range of the equal bins.
fn outer_edges(prog: &Program, x: &Array, range: Option<(f64, f64)>) -> Result<(f64, f64)> {
    let (first, last) = match range {
        Some((lo, hi)) => {
            if lo > hi {
                bail!(
                    InvalidArgument,
                    "max must be larger than min in range parameter (got range ({}, {}))",
                    py_float(lo),
                    py_float(hi)
                );
            }
            if !(lo.is_finite() && hi.is_finite()) {
                bail!(
                    InvalidArgument,
                    "supplied range of [{}, {}] is not finite",
                    py_float(lo),
                    py_float(hi)
                );
            }
            (lo, hi)
        }
        None if x.size() == 0 => (0.0, 1.0),
        None => {
            let (lo, hi) = match extremes(prog, x, false)? {
                Extremes::Float(lo, hi) => (lo, hi),
                Extremes::Int(lo, hi) => (lo as f64, hi as f64),
            };
            check_autodetected(lo, hi)?;
            (lo, hi)
        }
    };
    Ok(if first == last {
        (first - 0.5, last + 0.5)
    } else {
        (first, last)
    })
}

/// NumPy's refusal of a range found in the data that is not finite (NaN or infinities in it).
fn check_autodetected(lo: f64, hi: f64) -> Result<()> {
    if !(lo.is_finite() && hi.is_finite()) {
        bail!(
            InvalidArgument,
            "autodetected range of [{}, {}] is not finite",
            py_float(lo),
            py_float(hi)
        );
    }
    Ok(())
}

/// Counts `x` (contiguous, not empty) into `nb` equal bins over its range (zeroed `out`) and
/// returns their edges (float32 or float64 `bin_dt`), with no round trip to the host between
/// the passes: the blocks' extremes, the range and the edges (`cuprum_histogram_range`) and
/// the count all run on the device, and the range is read back once at the end for NumPy's
/// check (an H100 spent ~50 µs idle between the passes while the host read the extremes
/// and wrote the edges).
fn equal_bins_on_device(
    prog: &Program,
    x: &Array,
    nb: usize,
    bin_dt: DType,
    (uf, ue): (f64, f64),
    out: &Array,
) -> Result<Array> {
    let (part, grid) = extreme_parts(prog, x, false)?;
    let edges = Array::empty(&[nb + 1], bin_dt)?;
    let params = Array::empty(&[3], DType::F64)?;
    let range = Array::empty(&[2], DType::F64)?;
    prog.kernel("cuprum_histogram_range")?
        .configure(Dim3(1, 1, 1), Dim3(256, 1, 1))
        .launch((
            &part,
            grid as i32,
            nb as i64,
            &edges,
            &params,
            &range,
            uf,
            ue,
        ))?;
    CountLaunch {
        x,
        weights: None,
        edges: Some(&edges),
        nb,
        first: 0.0,
        denom: 1.0,
        eps: 1.0,
        params: Some(&params),
        out,
        stage_edges: true,
    }
    .run(
        prog,
        "cuprum_histogram_equal_shared",
        "cuprum_histogram_equal_global",
    )?;
    let r = range.to_vec::<f64>()?;
    check_autodetected(r[0], r[1])?;
    Ok(edges)
}

/// `x` as Python prints a float (`nan`, `inf`, `1.0`), for NumPy's messages.
fn py_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// NumPy's `linspace(first, last, nb + 1)` in float64 (`i * step + first`, the last value
/// exactly `last`).
fn equal_edges(first: f64, last: f64, nb: usize) -> Vec<f64> {
    let step = (last - first) / nb as f64;
    let mut v: Vec<f64> = (0..=nb).map(|i| i as f64 * step + first).collect();
    if let Some(e) = v.last_mut() {
        *e = last;
    }
    v
}

/// The float64 edges `e` rounded once to the float dtype `d` (as NumPy's `astype`).
fn edges_array(e: &[f64], d: DType) -> Result<Array> {
    let shape = [e.len()];
    match d {
        DType::F16 => {
            let v: Vec<half::f16> = e.iter().map(|&x| f16_from_f64(x)).collect();
            Array::from_slice(&v, &shape)
        }
        DType::BF16 => {
            let v: Vec<half::bf16> = e.iter().map(|&x| half::bf16::from_f64(x)).collect();
            Array::from_slice(&v, &shape)
        }
        DType::F32 => {
            let v: Vec<f32> = e.iter().map(|&x| x as f32).collect();
            Array::from_slice(&v, &shape)
        }
        _ => Array::from_slice(e, &shape),
    }
}

/// A histogram of the flattened `a` (NumPy's `histogram`): the counts (int64; float64
/// densities with `density`, so that they integrate to 1 over the range) and the bin
/// edges. [`Bins::Count`] makes equal bins over `range` (default: the data's minimum and
/// maximum, widened by 0.5 each way when equal; a `range` ignores values outside it), with
/// edges of `a`'s float dtype (float64 for integers); [`Bins::Edges`] takes them as given
/// (monotonically increasing; `range` is then unused) and returns them. An element counts
/// in bin `i` when `edges[i] <= x < edges[i + 1]`, the last bin closed; NaNs count nowhere.
/// Real dtypes (not bool, not complex).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::{self, Bins}};
/// let a = Array::from_slice(&[0.5f32, 1.5, 1.7, 4.0], &[4])?;
/// let (counts, edges) = ops::histogram(&a, Bins::Count(2), Some((0.0, 4.0)), false)?;
/// assert_eq!(counts.to_vec::<i64>()?, vec![3, 1]);
/// assert_eq!(edges.to_vec::<f32>()?, vec![0.0, 2.0, 4.0]);
/// let e = Array::from_slice(&[0i64, 1, 2, 10], &[4])?;
/// let (c, _) = ops::histogram(&a, Bins::Edges(&e), None, false)?;
/// assert_eq!(c.to_vec::<i64>()?, vec![1, 2, 1]);
/// let (dens, _) = ops::histogram(&a, Bins::Count(2), Some((0.0, 4.0)), true)?;
/// assert_eq!(dens.to_vec::<f64>()?, vec![0.375, 0.125]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn histogram(
    a: &Array,
    bins: Bins<'_>,
    range: Option<(f64, f64)>,
    density: bool,
) -> Result<(Array, Array)> {
    if super::programs::is_elsewhere(a)? {
        return on_device_of(a, || histogram(a, bins, range, density));
    }
    let d = a.dtype();
    match d.kind() {
        DTypeKind::Complex => bail!(
            Unsupported,
            "histogram of {d}: complex values have no order (pass the real or imaginary part)"
        ),
        DTypeKind::Bool => bail!(
            DType,
            "histogram of bool: numpy boolean subtract, the `-` operator, is not supported \
             (convert the array to an integer dtype)"
        ),
        _ => {}
    }
    let x = a.reshape_copy(&[-1])?.to_contiguous()?;
    let (counts, edges) = match bins {
        Bins::Count(0) => bail!(
            InvalidArgument,
            "`bins` must be positive, when an integer (got 0)"
        ),
        Bins::Count(nb) => {
            let bin_dt = if d.is_float() { d } else { DType::F64 };
            let prog = count_program(d, bin_dt);
            let out = Array::zeros(&[nb], DType::I64)?;
            let rounding = unit_roundoffs(bin_dt);
            // float32 and float64 edges are made on the device as on the host (16-bit ones
            // would round twice there, through float32).
            let edges =
                if range.is_none() && x.size() > 0 && matches!(bin_dt, DType::F32 | DType::F64) {
                    equal_bins_on_device(&prog, &x, nb, bin_dt, rounding, &out)?
                } else {
                    let (first, last) = outer_edges(&prog, &x, range)?;
                    let edges = edges_array(&equal_edges(first, last, nb), bin_dt)?;
                    CountLaunch {
                        x: &x,
                        weights: None,
                        edges: Some(&edges),
                        nb,
                        first,
                        denom: last - first,
                        eps: guess_eps(first, last, nb, rounding),
                        params: None,
                        out: &out,
                        stage_edges: true,
                    }
                    .run(
                        &prog,
                        "cuprum_histogram_equal_shared",
                        "cuprum_histogram_equal_global",
                    )?;
                    edges
                };
            (out, edges)
        }
        Bins::Edges(e) => {
            if e.ndim() != 1 {
                bail!(
                    Shape,
                    "`bins` must be 1d, when an array (got shape {})",
                    format_shape(e.shape())
                );
            }
            if e.size() == 0 {
                bail!(
                    InvalidArgument,
                    "`bins` must hold at least one edge, when an array (got none)"
                );
            }
            if e.dtype().is_complex() {
                bail!(
                    Unsupported,
                    "histogram with {} edges: complex values have no order",
                    e.dtype()
                );
            }
            let host = e.astype(DType::F64)?.to_vec::<f64>()?;
            if host.windows(2).any(|p| p[0] > p[1]) {
                bail!(
                    InvalidArgument,
                    "`bins` must increase monotonically, when an array"
                );
            }
            let p = super::promote_types(d, e.dtype());
            let xp = if p == d { x } else { x.astype(p)? };
            let ep = e.astype(p)?.to_contiguous()?;
            let nb = e.size() - 1;
            let out = Array::zeros(&[nb], DType::I64)?;
            let prog = count_program(p, p);
            CountLaunch {
                x: &xp,
                weights: None,
                edges: Some(&ep),
                nb,
                first: 0.0,
                denom: 1.0,
                eps: 1.0,
                params: None,
                out: &out,
                stage_edges: false,
            }
            .run(
                &prog,
                "cuprum_histogram_edges_shared",
                "cuprum_histogram_edges_global",
            )?;
            (out, e.clone())
        }
    };
    if !density {
        return Ok((counts, edges));
    }
    let nb = counts.size();
    let e64 = edges.astype(DType::F64)?;
    let upper = e64.slice(&[crate::array::SliceArg::Range {
        start: Some(1),
        end: None,
        step: 1,
    }])?;
    let lower = e64.slice(&[crate::array::SliceArg::Range {
        start: None,
        end: Some(nb as isize),
        step: 1,
    }])?;
    let widths = super::subtract(&upper, &lower)?;
    let per_width = super::divide(&counts, &widths)?;
    let total = super::sum(&counts)?;
    Ok((super::divide(&per_width, &total)?, edges))
}

/// Every counting program's source (NVRTC compile checks): `bincount` for bool and every
/// integer dtype, equal bins for every real dtype, given edges for every real dtype.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for &d in DType::ALL {
        if d.is_complex() || d == DType::Bool {
            if d == DType::Bool {
                v.push(("count bool".into(), count_source(d, DType::F64)));
            }
            continue;
        }
        let bin = if d.is_float() { d } else { DType::F64 };
        v.push((
            format!("count {} {}", d.name(), bin.name()),
            count_source(d, bin),
        ));
        if bin != d {
            v.push((format!("count {} edges", d.name()), count_source(d, d)));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python() {
        assert_eq!(py_float(f64::NAN), "nan");
        assert_eq!(py_float(f64::NEG_INFINITY), "-inf");
        assert_eq!(py_float(0.0), "0.0");
        assert_eq!(py_float(2.5), "2.5");
    }

    #[test]
    fn equal_edges_end_exactly() {
        let e = equal_edges(0.1, 0.7, 3);
        assert_eq!(e.len(), 4);
        assert_eq!(e[0], 0.1);
        assert_eq!(e[3], 0.7);
        assert_eq!(e[1], 0.1 + (0.7 - 0.1) / 3.0);
    }

    #[test]
    fn edge_kernels_exist_only_for_matching_dtypes() {
        let same = count_source(DType::F32, DType::F32);
        assert!(same.contains("#define CUPRUM_EDGES 1") && same.contains("bool lt("));
        let int = count_source(DType::I32, DType::F64);
        assert!(int.contains("#define CUPRUM_EDGES 0") && int.contains("typedef double F;"));
        assert!(count_source(DType::F16, DType::F16).contains("typedef float F;"));
    }
}
