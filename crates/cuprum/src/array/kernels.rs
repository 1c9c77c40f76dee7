//! The small CUDA kernels the array layer needs (fill, strided copy, arange, linspace, and
//! the uniform map random numbers use), generated per specialisation with their argument
//! schemas, and compiled, packed and launched as every generated kernel is
//! (`crate::kernel_abi`); kept per device: a repeat call is one map lookup and one launch.
//!
//! A specialisation is keyed by operation, item size (moves and fills) or dtype, merged
//! number of dimensions and index width. Dimensions are merged first (`shape::merge_dims`),
//! so most copies and fills are 1-D and divide no index; 32-bit index arithmetic is used up
//! to `i32::MAX` elements. Contiguous copies do not come here: they are one
//! `cuMemcpyDtoDAsync` (`transfer.rs`). `randint` maps 64 random bits per element onto its
//! range with a multiply-high (`cuprum_randint`), `uniform` maps cuRAND's `(0, 1]` onto
//! `[low, high)` in place.

use super::device_array::Array;
use super::shape::merge_dims_of_views;
use crate::compile::CompileOptions;
use crate::dtype::DType;
use crate::dtype::Scalar;
use crate::error::{Result, bail};
use crate::kernel_abi::{
    ArgSchema, ArgSlot, CompiledKernel, GeneratedKernel, IndexWidth, KernelTable, Packer,
};
use crate::runtime::{Device, LaunchConfig, Stream};
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// Which kernel, specialised how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum KernelKey {
    /// Strided fill: item size, merged ndim, 64-bit indexing.
    Fill { item: usize, nd: usize, wide: bool },
    /// Strided copy between two views of equal shape and dtype.
    Copy { item: usize, nd: usize, wide: bool },
    /// A copy by rows: the innermost merged dimension contiguous in `dst` and read forward,
    /// backward or broadcast (`step` 1, -1, 0) from `src`, a vector of elements a thread.
    CopyRows {
        item: usize,
        nd: usize,
        wide: bool,
        step: i8,
        long: bool,
    },
    /// A copy from a source broadcast along some dimensions (stride 0, `nb` of them, at
    /// most [`MAX_REPLICAS`] copies in all) whose last dimension is read forward: each
    /// thread reads a vector of the source once and writes every copy of it.
    CopyReplicas {
        item: usize,
        nd: usize,
        nb: usize,
        wide: bool,
    },
    /// `out[i] = start + i * step` for a dtype.
    Arange(DType),
    /// NumPy's linspace for a dtype.
    Linspace(DType),
    /// `x = high - (high - low) * x` in place, clamped into `[low, high)` (float32/float64):
    /// maps cuRAND's `(0, 1]` onto `[low, high)`.
    Uniform(DType),
    /// `out[i] = low + mulhi(bits[i], range)` (`range` 0: all 64 bits) in a bool or integer
    /// dtype: 64 random bits per element mapped onto `[low, low + range)`.
    RandInt(DType),
    /// CuPy's legacy uniform map in place: `x = (x == 1) ? 0 : x`, then
    /// `x = T(low) + x * T(high - low)`, its expression (float32/float64).
    CupyUniform(DType),
    /// `count += (s[i] > limit)` over uint32 (`wide`: uint64) samples.
    CountAbove { wide: bool },
    /// `out[i] = T(low + s[i] % m)` (`m` 0: no modulo) from uint32 (`wide`: uint64)
    /// samples into a bool or integer dtype.
    CupyRandInt { dtype: DType, wide: bool },
    /// An empty kernel (the launch-overhead floor); `params`: with the parameter list of
    /// `python/benches/host_overhead.py`'s `axpy` (`const float*, float*, float, int`),
    /// unused, the floor of a launch that passes those four values.
    Empty { params: bool },
}

/// Index type per width.
fn idx(wide: bool) -> &'static str {
    if wide {
        "unsigned long long"
    } else {
        "unsigned int"
    }
}

/// An unsigned type of `item` bytes (for moving elements as bits).
fn bits_type(item: usize) -> &'static str {
    match item {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "cuprum_u128",
    }
}

/// What every array kernel starts with: a 16-byte element type, and the loop over `[0, n)`:
/// a grid-stride loop on a GPU; on the host device each thread takes a contiguous share
/// (the same elements, in an order the CPU's caches follow).
const PRELUDE: &str = "struct __align__(16) cuprum_u128 { unsigned long long lo, hi; };\n\
#ifdef __CUPRUM_HOST__\n\
#define CUPRUM_LOOP(I, i, n) for (I i##_end = 0, i = cuprum_host::share_begin<I>((n), &i##_end); i < i##_end; ++i)\n\
#else\n\
#define CUPRUM_LOOP(I, i, n) for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (I)blockDim.x * gridDim.x)\n\
#endif\n";

/// What the row copy and the replicated copy share (after their `Meta` and `Vec`): the
/// offsets of a row's start in both views (every dimension but the last, from `Meta`'s
/// shape and strides; the outermost needs no division).
macro_rules! row_at {
    () => {
        "__device__ __forceinline__ void cuprum_row_at(I row, const Meta& m, long long& o0, long long& o1) {\n\
  o0 = 0; o1 = 0; I rem = row;\n\
#pragma unroll\n\
  for (int d = ND - 2; d >= 0; --d) { I k = rem;\n\
    if (d > 0) { const I sh = (I)m.shape[d]; k = rem % sh; rem /= sh; }\n\
    o0 += (long long)k * m.s0[d]; o1 += (long long)k * m.s1[d]; }\n\
}\n"
    };
}

/// The row copies (`KernelKey::CopyRows`). Row `r`'s elements `VEC·v … VEC·v + VEC` are
/// one *slot*; the outer dimensions are divided out once per slot (short rows:
/// `cuprum_copy_rows`, a thread per slot of the whole array) or once per block and chunk of
/// `256 · ROW_UNROLL` slots (long rows: `cuprum_copy_rows_long`, a block per chunk, each
/// thread `ROW_UNROLL` slots of it), and the writes are 16-byte stores where the row's
/// start allows; the reads are a vector load (forward and aligned), one element repeated
/// (broadcast) or `VEC` elements (backward, misaligned). The outermost dimension needs no
/// division (the row index is already below its extent).
///
/// Measured on an H200 (one run each, % of the copy bandwidth, the element-a-thread copy
/// before): `flip` of 1e8 float32 copied 70 → 91–92 %, `repeat` of 1e7 ×4 43 → 74–75 %,
/// `tile` of (1000, 10000) 3 × 3 31 → 65–68 %. What held `tile` back was reading the source
/// once per copy: it now takes the replicated copy (below), 148 → 117 µs (65 → 81 % of the
/// copy bandwidth, CuPy 460 µs in the same run). Both kernels launch a thread per work item
/// (a grid capped at 32 blocks per SM looping over them was slower): `repeat`
/// 61 → 58 µs (78 → 82 %), `flip` 205 → 198 µs (93 → 96 %). Microbenchmark twins of the
/// two kernels, timed around the launch alone, take 111 and 55 µs (the bench times the
/// whole call).
const COPY_ROWS: &str = concat!(
    "struct Meta { long long shape[ND]; long long s0[ND]; long long s1[ND]; };\n\
struct __align__(16) Vec { T v[VEC]; };\n\
#define ROW_UNROLL 4\n",
    row_at!(),
    "\
__device__ __forceinline__ void cuprum_row_move(const T* __restrict__ in, T* __restrict__ out, I j0, I len) {\n\
  if (j0 + VEC <= len && ((unsigned long long)out % sizeof(Vec)) == 0) {\n\
    Vec w;\n\
    if (STEP == 1 && ((unsigned long long)in % sizeof(Vec)) == 0) { w = *(const Vec*)in; }\n\
    else if (STEP == 0) { const T x = in[0];\n\
#pragma unroll\n\
      for (int b = 0; b < VEC; ++b) w.v[b] = x; }\n\
    else {\n\
#pragma unroll\n\
      for (int b = 0; b < VEC; ++b) w.v[b] = in[(long long)STEP * b]; }\n\
    *(Vec*)out = w;\n\
  } else {\n\
    for (int b = 0; b < VEC && j0 + (I)b < len; ++b) out[b] = in[(long long)STEP * b];\n\
  }\n\
}\n\
extern \"C\" __global__ void cuprum_copy_rows(const T* __restrict__ src, T* __restrict__ dst, I n, I len, I slots, Meta m) {\n\
  CUPRUM_LOOP(I, i, n) {\n\
    const I row = i / slots; const I j0 = (i - row * slots) * VEC;\n\
    long long o0, o1; cuprum_row_at(row, m, o0, o1);\n\
    cuprum_row_move(src + o0 + (long long)STEP * (long long)j0, dst + o1 + (long long)j0, j0, len);\n\
  }\n\
}\n\
extern \"C\" __global__ void cuprum_copy_rows_long(const T* __restrict__ src, T* __restrict__ dst, I n, I len, I slots, Meta m) {\n\
  const I per = (I)blockDim.x * ROW_UNROLL;\n\
  const I chunks = (slots + per - 1) / per;\n\
  for (I w = blockIdx.x; w < n; w += gridDim.x) {\n\
    const I row = w / chunks; const I c = w - row * chunks;\n\
    long long o0, o1; cuprum_row_at(row, m, o0, o1);\n\
#pragma unroll\n\
    for (int u = 0; u < ROW_UNROLL; ++u) {\n\
      const I slot = c * per + (I)u * blockDim.x + threadIdx.x;\n\
      if (slot < slots) { const I j0 = slot * VEC;\n\
        cuprum_row_move(src + o0 + (long long)STEP * (long long)j0, dst + o1 + (long long)j0, j0, len); }\n\
    }\n\
  }\n\
}\n"
);

/// The replicated copy (`KernelKey::CopyReplicas`): the source's own dimensions (`ND`, the
/// last read forward) are walked as the row copy walks them, a thread per slot of `VEC`
/// elements, and each thread stores its slot at every offset of the broadcast dimensions
/// (`NB` of them, an odometer over their destination strides). The source is read once
/// where the row copy would read it once per copy: `tile` of (1000, 10000) float32 3 × 3
/// on an H200, 130 µs with a thread per destination slot, 113 µs with a thread per source
/// slot.
const COPY_REPLICAS: &str = concat!(
    "struct Meta { long long shape[ND]; long long s0[ND]; long long s1[ND]; long long rshape[NB]; long long rs1[NB]; };\n\
struct __align__(16) Vec { T v[VEC]; };\n",
    row_at!(),
    "\
extern \"C\" __global__ void cuprum_copy_replicas(const T* __restrict__ src, T* __restrict__ dst, I n, I len, I slots, long long copies, Meta m) {\n\
  CUPRUM_LOOP(I, i, n) {\n\
    const I row = i / slots; const I j0 = (i - row * slots) * VEC;\n\
    long long o0, o1; cuprum_row_at(row, m, o0, o1);\n\
    const T* in = src + o0 + (long long)j0; T* out = dst + o1 + (long long)j0;\n\
    const bool full = j0 + VEC <= len;\n\
    Vec w;\n\
    if (full && ((unsigned long long)in % sizeof(Vec)) == 0) { w = *(const Vec*)in; }\n\
    else {\n\
#pragma unroll\n\
      for (int b = 0; b < VEC; ++b) if (j0 + (I)b < len) w.v[b] = in[b]; }\n\
    long long q[NB] = {}; long long off = 0;\n\
    for (long long c = 0; c < copies; ++c) {\n\
      T* o = out + off;\n\
      if (full && ((unsigned long long)o % sizeof(Vec)) == 0) { *(Vec*)o = w; }\n\
      else {\n\
#pragma unroll\n\
        for (int b = 0; b < VEC; ++b) if (j0 + (I)b < len) o[b] = w.v[b]; }\n\
#pragma unroll\n\
      for (int e = NB - 1; e >= 0; --e) {\n\
        if (++q[e] < m.rshape[e]) { off += m.rs1[e]; break; }\n\
        off -= (q[e] - 1) * m.rs1[e]; q[e] = 0; }\n\
    }\n\
  }\n\
}\n"
);

/// Copies a replicated copy may write per source element (more: the row copy, whose
/// threads split the copies between them).
pub(crate) const MAX_REPLICAS: usize = 64;

/// Source slots from which a replicated copy has enough threads to fill a GPU (fewer: the
/// row copy).
const MIN_REPLICA_SLOTS: usize = 1 << 16;

/// Slots from which a row is copied by chunks of a block (`cuprum_copy_rows_long`).
const LONG_ROW_SLOTS: usize = 512;

/// Slots a block's chunk of a long row holds (256 threads × `ROW_UNROLL`).
const LONG_ROW_CHUNK: usize = 256 * 4;

/// Elements a thread of the row copy moves: 16 bytes' worth (one for 16-byte elements).
fn row_vec(item: usize) -> usize {
    (16 / item).max(1)
}

/// Generates the CUDA C++ source of one specialisation.
pub(crate) fn source(key: KernelKey) -> Result<String> {
    let mut s = String::from(PRELUDE);
    match key {
        KernelKey::Fill { item, nd, wide } | KernelKey::Copy { item, nd, wide } => {
            let copy = matches!(key, KernelKey::Copy { .. });
            let _ = writeln!(
                s,
                "typedef {} T;\ntypedef {} I;\n#define ND {nd}",
                bits_type(item),
                idx(wide)
            );
            s.push_str(
                "struct Meta { long long shape[ND]; long long s0[ND]; long long s1[ND]; };\n",
            );
            if copy {
                s.push_str("extern \"C\" __global__ void cuprum_copy(const T* __restrict__ src, T* __restrict__ dst, I n, Meta m) {\n");
            } else {
                s.push_str("extern \"C\" __global__ void cuprum_fill(T* __restrict__ dst, T value, I n, Meta m) {\n");
            }
            s.push_str(
                "  CUPRUM_LOOP(I, i, n) {\n\
                 \x20   long long o0 = 0, o1 = 0;\n\
                 \x20   if (ND == 1) { o0 = (long long)i * m.s0[0]; o1 = (long long)i * m.s1[0]; }\n\
                 \x20   else { I rem = i;\n\
                 #pragma unroll\n\
                 \x20     for (int d = ND - 1; d >= 0; --d) { I sh = (I)m.shape[d]; I k = rem % sh; rem /= sh;\n\
                 \x20       o0 += (long long)k * m.s0[d]; o1 += (long long)k * m.s1[d]; } }\n",
            );
            if copy {
                s.push_str("    dst[o1] = src[o0];\n  }\n}\n");
            } else {
                s.push_str("    (void)o1; dst[o0] = value;\n  }\n}\n");
            }
        }
        KernelKey::CopyRows {
            item,
            nd,
            wide,
            step,
            ..
        } => {
            let _ = writeln!(
                s,
                "typedef {} T;\ntypedef {} I;\n#define ND {nd}\n#define VEC {}\n#define STEP {step}",
                bits_type(item),
                idx(wide),
                row_vec(item),
            );
            s.push_str(COPY_ROWS);
        }
        KernelKey::CopyReplicas { item, nd, nb, wide } => {
            let _ = writeln!(
                s,
                "typedef {} T;\ntypedef {} I;\n#define ND {nd}\n#define NB {nb}\n#define VEC {}",
                bits_type(item),
                idx(wide),
                row_vec(item),
            );
            s.push_str(COPY_REPLICAS);
        }
        KernelKey::Arange(dt) | KernelKey::Linspace(dt) => {
            let (ty, conv) = store_conv(dt)?;
            let _ = writeln!(s, "typedef {ty} T;");
            s.push_str(conv);
            if let KernelKey::Arange(_) = key {
                if dt.is_integer() {
                    let acc = if dt == DType::U64 {
                        "unsigned long long"
                    } else {
                        "long long"
                    };
                    let _ = writeln!(
                        s,
                        "extern \"C\" __global__ void cuprum_arange(T* out, unsigned long long n, double fstart, double fstep, long long istart, long long istep) {{\n\
                         \x20 CUPRUM_LOOP(unsigned long long, i, n)\n\
                         \x20   out[i] = (T)(({acc})istart + ({acc})i * ({acc})istep);\n}}"
                    );
                } else {
                    s.push_str(
                        "extern \"C\" __global__ void cuprum_arange(T* out, unsigned long long n, double fstart, double fstep, long long istart, long long istep) {\n\
                         \x20 CUPRUM_LOOP(unsigned long long, i, n)\n\
                         \x20   out[i] = to_t(fstart + (double)i * fstep);\n}\n",
                    );
                }
            } else {
                let round = if dt.is_integer() { "floor" } else { "" };
                let _ = writeln!(
                    s,
                    "extern \"C\" __global__ void cuprum_linspace(T* out, unsigned long long n, double start, double step, double stop, int endpoint) {{\n\
                     \x20 CUPRUM_LOOP(unsigned long long, i, n) {{\n\
                     \x20   double v = (endpoint && n > 1 && i == n - 1) ? stop : start + (double)i * step;\n\
                     \x20   out[i] = to_t({round}(v));\n  }}\n}}"
                );
            }
        }
        KernelKey::Uniform(dt) => {
            let (ty, next) = match dt {
                DType::F32 => ("float", "nextafterf"),
                DType::F64 => ("double", "nextafter"),
                _ => bail!(Unsupported, "uniform random numbers of {dt}"),
            };
            let _ = writeln!(
                s,
                "typedef {ty} T;\nextern \"C\" __global__ void cuprum_uniform(T* x, unsigned long long n, T low, T high) {{\n\
                 \x20 const T top = {next}(high, low);\n\
                 \x20 CUPRUM_LOOP(unsigned long long, i, n) {{\n\
                 \x20   T v = high - (high - low) * x[i];\n\
                 \x20   x[i] = v >= high ? top : (v < low ? low : v);\n  }}\n}}"
            );
        }
        KernelKey::RandInt(dt) => {
            if !(dt.is_integer() || dt == DType::Bool) {
                bail!(Unsupported, "random integers of {dt}");
            }
            let _ = writeln!(
                s,
                "typedef {} T;\nextern \"C\" __global__ void cuprum_randint(T* out, unsigned long long n, const unsigned long long* __restrict__ bits, unsigned long long low, unsigned long long range) {{\n\
                 \x20 CUPRUM_LOOP(unsigned long long, i, n) {{\n\
                 \x20   const unsigned long long b = bits[i];\n\
                 \x20   out[i] = (T)(low + (range == 0ull ? b : __umul64hi(b, range)));\n  }}\n}}",
                dt.c_type()
            );
        }
        KernelKey::CupyUniform(dt) => {
            let ty = match dt {
                DType::F32 => "float",
                DType::F64 => "double",
                _ => bail!(Unsupported, "uniform random numbers of {dt}"),
            };
            let _ = writeln!(
                s,
                "typedef {ty} T;\nextern \"C\" __global__ void cuprum_cupy_uniform(T* x, unsigned long long n, T low, T high) {{\n\
                 \x20 CUPRUM_LOOP(unsigned long long, i, n) {{\n\
                 \x20   T v = x[i];\n\
                 \x20   v = (v == (T)1) ? (T)0 : v;\n\
                 \x20   x[i] = T(low) + v * T(high - low);\n  }}\n}}"
            );
        }
        KernelKey::CountAbove { wide } => {
            let _ = writeln!(
                s,
                "typedef {} U;\nextern \"C\" __global__ void cuprum_count_above(const U* __restrict__ s, unsigned long long n, U limit, unsigned long long* count) {{\n\
                 \x20 unsigned long long c = 0;\n\
                 \x20 CUPRUM_LOOP(unsigned long long, i, n) {{ c += s[i] > limit; }}\n\
                 \x20 if (c) atomicAdd(count, c);\n}}",
                idx(wide)
            );
        }
        KernelKey::CupyRandInt { dtype, wide } => {
            if !(dtype.is_integer() || dtype == DType::Bool) {
                bail!(Unsupported, "random integers of {dtype}");
            }
            let _ = writeln!(
                s,
                "typedef {} T;\ntypedef {} U;\nextern \"C\" __global__ void cuprum_cupy_randint(T* out, unsigned long long n, const U* __restrict__ s, U m, unsigned long long low) {{\n\
                 \x20 CUPRUM_LOOP(unsigned long long, i, n) {{\n\
                 \x20   U v = s[i];\n\
                 \x20   if (m != 0) v %= m;\n\
                 \x20   out[i] = (T)(low + (unsigned long long)v);\n  }}\n}}",
                dtype.c_type(),
                idx(wide)
            );
        }
        KernelKey::Empty { params: false } => {
            s.push_str("extern \"C\" __global__ void cuprum_empty() {}\n")
        }
        KernelKey::Empty { params: true } => s.push_str(
            "extern \"C\" __global__ void cuprum_empty_params(const float*, float*, float, int) {}\n",
        ),
    }
    Ok(s)
}

/// The storage type and a `to_t(double)` conversion for dtypes arange/linspace produce.
fn store_conv(dt: DType) -> Result<(&'static str, &'static str)> {
    const PLAIN: &str = "__device__ __forceinline__ T to_t(double v) { return (T)v; }\n";
    Ok(match dt {
        DType::Bool => (
            "bool",
            "__device__ __forceinline__ T to_t(double v) { return v != 0.0; }\n",
        ),
        DType::F16 => (
            "unsigned short",
            "#ifdef __CUPRUM_HOST__\n\
             __device__ __forceinline__ T to_t(double v) { return cuprum_host::f64_to_f16_bits(v); }\n\
             #else\n\
             __device__ __forceinline__ T to_t(double v) { unsigned short r;\n\
             \x20 asm(\"cvt.rn.f16.f64 %0, %1;\" : \"=h\"(r) : \"d\"(v)); return r; }\n\
             #endif\n",
        ),
        DType::BF16 => (
            "unsigned short",
            "__device__ __forceinline__ T to_t(double v) { float f = (float)v; unsigned int u = __float_as_uint(f);\n\
             \x20 if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);\n\
             \x20 u += 0x7fffu + ((u >> 16) & 1u); return (unsigned short)(u >> 16); }\n",
        ),
        DType::C64 | DType::C128 => bail!(Unsupported, "arange/linspace do not support {dt}"),
        other => (other.c_type(), PLAIN),
    })
}

/// The parameters of `key`'s kernel, as its source declares them.
fn schema(key: KernelKey) -> ArgSchema {
    use ArgSlot::{Index, Pointer, Scalar as Value};
    let n64 = Index(IndexWidth::I64);
    let meta = |nd: usize| ArgSlot::Words {
        count: 3 * nd as u32,
        width: IndexWidth::I64,
    };
    let slots: Vec<ArgSlot> = match key {
        // (T* dst, T value, I n, Meta m)
        KernelKey::Fill { item, nd, wide } => vec![
            Pointer,
            ArgSlot::Bits { bytes: item as u8 },
            Index(IndexWidth::of(wide)),
            meta(nd),
        ],
        // (const T* src, T* dst, I n, Meta m)
        KernelKey::Copy { nd, wide, .. } => {
            vec![Pointer, Pointer, Index(IndexWidth::of(wide)), meta(nd)]
        }
        // (const T* src, T* dst, I n, I len, I slots, Meta m)
        KernelKey::CopyRows { nd, wide, .. } => {
            let i = Index(IndexWidth::of(wide));
            vec![Pointer, Pointer, i, i, i, meta(nd)]
        }
        // (const T* src, T* dst, I n, I len, I slots, long long copies, Meta m)
        KernelKey::CopyReplicas { nd, nb, wide, .. } => {
            let i = Index(IndexWidth::of(wide));
            let words = ArgSlot::Words {
                count: (3 * nd + 2 * nb) as u32,
                width: IndexWidth::I64,
            };
            vec![Pointer, Pointer, i, i, i, n64, words]
        }
        // (T* out, n, double fstart, double fstep, long long istart, long long istep)
        KernelKey::Arange(_) => vec![
            Pointer,
            n64,
            Value(DType::F64),
            Value(DType::F64),
            Value(DType::I64),
            Value(DType::I64),
        ],
        // (T* out, n, double start, double step, double stop, int endpoint)
        KernelKey::Linspace(_) => vec![
            Pointer,
            n64,
            Value(DType::F64),
            Value(DType::F64),
            Value(DType::F64),
            Value(DType::I32),
        ],
        // (T* x, n, T low, T high)
        KernelKey::Uniform(dt) => vec![Pointer, n64, Value(dt), Value(dt)],
        // (T* out, n, const unsigned long long* bits, low, range)
        KernelKey::RandInt(_) => vec![Pointer, n64, Pointer, Value(DType::U64), Value(DType::U64)],
        // (T* x, n, T low, T high)
        KernelKey::CupyUniform(dt) => vec![Pointer, n64, Value(dt), Value(dt)],
        // (const U* s, n, U limit, unsigned long long* count)
        KernelKey::CountAbove { wide } => vec![Pointer, n64, Value(sample_dtype(wide)), Pointer],
        // (T* out, n, const U* s, U m, unsigned long long low)
        KernelKey::CupyRandInt { wide, .. } => vec![
            Pointer,
            n64,
            Pointer,
            Value(sample_dtype(wide)),
            Value(DType::U64),
        ],
        KernelKey::Empty { params: false } => vec![],
        KernelKey::Empty { params: true } => {
            vec![Pointer, Pointer, Value(DType::F32), Value(DType::I32)]
        }
    };
    let mut schema = ArgSchema::default();
    for s in slots {
        schema.push(s);
    }
    schema
}

/// The dtype of random samples: uint32, or uint64 when `wide`.
fn sample_dtype(wide: bool) -> DType {
    if wide { DType::U64 } else { DType::U32 }
}

/// The entry point of `key`'s kernel.
fn entry(key: KernelKey) -> &'static str {
    match key {
        KernelKey::Fill { .. } => "cuprum_fill",
        KernelKey::Copy { .. } => "cuprum_copy",
        KernelKey::CopyRows { long: false, .. } => "cuprum_copy_rows",
        KernelKey::CopyRows { long: true, .. } => "cuprum_copy_rows_long",
        KernelKey::CopyReplicas { .. } => "cuprum_copy_replicas",
        KernelKey::Arange(_) => "cuprum_arange",
        KernelKey::Linspace(_) => "cuprum_linspace",
        KernelKey::Uniform(_) => "cuprum_uniform",
        KernelKey::RandInt(_) => "cuprum_randint",
        KernelKey::CupyUniform(_) => "cuprum_cupy_uniform",
        KernelKey::CountAbove { .. } => "cuprum_count_above",
        KernelKey::CupyRandInt { .. } => "cuprum_cupy_randint",
        KernelKey::Empty { params: false } => "cuprum_empty",
        KernelKey::Empty { params: true } => "cuprum_empty_params",
    }
}

/// `key`'s kernel: its source, entry point and argument schema.
pub(crate) fn generate(key: KernelKey) -> Result<GeneratedKernel> {
    Ok(GeneratedKernel {
        name: entry(key).to_owned(),
        source: source(key)?,
        schema: schema(key),
        spans: Vec::new(),
        dependent: false,
    })
}

fn table() -> &'static KernelTable<(usize, KernelKey)> {
    static T: OnceLock<KernelTable<(usize, KernelKey)>> = OnceLock::new();
    T.get_or_init(KernelTable::new)
}

/// The compiled kernel for `key` on `device` (compiled on first use).
pub(crate) fn function(device: Device, key: KernelKey) -> Result<Arc<CompiledKernel>> {
    table().get_or_compile(&(device.ordinal(), key), device, || {
        let opts = CompileOptions::new().program_name("cuprum_array_kernels.cu");
        Ok((generate(key)?, opts))
    })
}

/// A grid-stride launch shape for `n` items: 256-thread blocks, at most 32 blocks per SM.
pub(crate) fn grid_for(device: Device, n: usize) -> LaunchConfig {
    let mut cfg = LaunchConfig::linear(n, 256);
    let cap = device.sm_count().max(1) * 32;
    cfg.grid.0 = cfg.grid.0.min(cap);
    cfg
}

/// Per-dimension shape and strides as the kernels' `Meta` struct holds them.
fn meta<'m>(
    shape: &'m [usize],
    s0: &'m [isize],
    s1: &'m [isize],
) -> impl Iterator<Item = i64> + 'm {
    let extents = shape.iter().map(|&d| d as i64);
    extents.chain(s0.iter().chain(s1).map(|&s| s as i64))
}

fn merged(shape: &[usize], s0: &[isize], s1: &[isize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let (ms, mst) = merge_dims_of_views(shape, &[s0, s1]);
    if ms.is_empty() {
        return (vec![1], vec![0], vec![0]);
    }
    (ms.to_vec(), mst[0].to_vec(), mst[1].to_vec())
}

/// Writes `bits` (one element's bytes) into every element of the view `dst`.
pub(crate) fn fill(dst: &Array, bits: &[u8], stream: &Stream) -> Result<()> {
    let n = dst.size();
    if n == 0 {
        return Ok(());
    }
    let (shape, s0, s1) = merged(&dst.shape, &dst.strides, &dst.strides);
    let wide = n > i32::MAX as usize;
    let key = KernelKey::Fill {
        item: dst.itemsize(),
        nd: shape.len(),
        wide,
    };
    let f = function(stream.device(), key)?;
    let mut args = f.packer();
    args.pointer(dst.ptr_on(stream))?;
    args.bits(bits)?;
    args.index(n)?;
    args.words(meta(&shape, &s0, &s1))?;
    // SAFETY: every offset the kernel computes lies inside `dst`'s view, which keeps its
    // buffer alive until the stream-ordered free after this launch.
    unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream) }
}

/// Copies the view `src` into the view `dst` (same shape and dtype): by rows
/// ([`copy_rows`]) when the innermost merged dimension is contiguous in `dst` and read
/// forward, backward or broadcast from `src` in rows of at least a vector, else one element
/// a thread with the strides of every dimension.
pub(crate) fn copy(src: &Array, dst: &Array, stream: &Stream) -> Result<()> {
    let n = dst.size();
    if n == 0 {
        return Ok(());
    }
    let (shape, s0, s1) = merged(&dst.shape, &src.strides, &dst.strides);
    let wide = n > i32::MAX as usize;
    let last = shape.len() - 1;
    let item = dst.itemsize();
    if let Some(copies) = replicas(&shape, &s0, &s1, item) {
        return copy_replicas(src, dst, (&shape, &s0, &s1), copies, stream);
    }
    if s1[last] == 1 && (-1..=1).contains(&s0[last]) && shape[last] >= row_vec(item) {
        return copy_rows(src, dst, (&shape, &s0, &s1), s0[last] as i8, stream);
    }
    let key = KernelKey::Copy {
        item: dst.itemsize(),
        nd: shape.len(),
        wide,
    };
    let f = function(stream.device(), key)?;
    let mut args = f.packer();
    args.pointer(src.ptr_on(stream))?;
    args.pointer(dst.ptr_on(stream))?;
    args.index(n)?;
    args.words(meta(&shape, &s0, &s1))?;
    // SAFETY: both views have `n` elements at the offsets the strides give, inside their
    // live buffers.
    unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream) }
}

/// The number of copies when a copy over the merged `shape` (source strides `s0`,
/// destination strides `s1`) is a replicated one: the source broadcast along some
/// dimensions (at most [`MAX_REPLICAS`] copies), its last dimension read forward into a
/// contiguous destination row of at least a vector, and enough source slots to fill a GPU.
fn replicas(shape: &[usize], s0: &[isize], s1: &[isize], item: usize) -> Option<usize> {
    let last = shape.len() - 1;
    let vec = row_vec(item);
    if s0[last] != 1 || s1[last] != 1 || shape[last] < vec {
        return None;
    }
    let copies: usize = (0..last)
        .filter(|&d| s0[d] == 0)
        .map(|d| shape[d])
        .product();
    let sources = shape.iter().product::<usize>() / copies.max(1);
    let slots = sources / shape[last] * shape[last].div_ceil(vec);
    (copies > 1 && copies <= MAX_REPLICAS && slots >= MIN_REPLICA_SLOTS).then_some(copies)
}

/// A row copy's row: its length (the merged shape's last dimension) and the vectors of
/// `item`-byte elements it takes (its slots).
fn row_slots(shape: &[usize], item: usize) -> (usize, usize) {
    let len = shape[shape.len() - 1];
    (len, len.div_ceil(row_vec(item)))
}

/// The arguments both row kernels ([`copy_rows`], [`copy_replicas`]) begin with: the source
/// and destination pointers, the work items, the row's length and its slots.
fn row_args<'k>(
    f: &'k CompiledKernel,
    (src, dst): (&Array, &Array),
    stream: &Stream,
    (work, len, slots): (usize, usize, usize),
) -> Result<Packer<'k>> {
    let mut args = f.packer();
    args.pointer(src.ptr_on(stream))?;
    args.pointer(dst.ptr_on(stream))?;
    args.index(work)?;
    args.index(len)?;
    args.index(slots)?;
    Ok(args)
}

/// The replicated copy of `src` into `dst` over their merged `dims` ([`replicas`] said
/// yes, `copies` copies): a thread per source slot.
fn copy_replicas(
    src: &Array,
    dst: &Array,
    dims: (&[usize], &[isize], &[isize]),
    copies: usize,
    stream: &Stream,
) -> Result<()> {
    let (shape, s0, s1) = dims;
    let item = dst.itemsize();
    let (len, slots) = row_slots(shape, item);
    let (own, bcast): (Vec<usize>, Vec<usize>) = (0..shape.len()).partition(|&d| s0[d] != 0);
    let pick = |v: &[isize], ds: &[usize]| ds.iter().map(|&d| v[d] as i64).collect::<Vec<_>>();
    let extents = |ds: &[usize]| ds.iter().map(|&d| shape[d] as i64).collect::<Vec<_>>();
    let work = shape.iter().product::<usize>() / copies / len * slots;
    let key = KernelKey::CopyReplicas {
        item,
        nd: own.len(),
        nb: bcast.len(),
        wide: dst.size() > i32::MAX as usize,
    };
    let f = function(stream.device(), key)?;
    let mut args = row_args(&f, (src, dst), stream, (work, len, slots))?;
    args.index(copies)?;
    let words = [
        extents(&own),
        pick(s0, &own),
        pick(s1, &own),
        extents(&bcast),
        pick(s1, &bcast),
    ];
    args.words(words.into_iter().flatten())?;
    // SAFETY: each thread reads elements `j < len` of one row of `src` and writes them at
    // every combination of the broadcast dimensions' indices (each below its extent), at
    // the offsets the strides give: inside both live buffers.
    unsafe { f.launch(&mut args, &LaunchConfig::linear(work, 256), stream) }
}

/// The row copy of `src` into `dst` over their merged `dims` (shape, source and destination
/// strides; the last dimension contiguous in `dst`, read with `step` from `src`).
fn copy_rows(
    src: &Array,
    dst: &Array,
    dims: (&[usize], &[isize], &[isize]),
    step: i8,
    stream: &Stream,
) -> Result<()> {
    let (shape, s0, s1) = dims;
    let item = dst.itemsize();
    let (len, slots) = row_slots(shape, item);
    let rows = dst.size() / len;
    let long = slots >= LONG_ROW_SLOTS;
    // long rows: a work item per block and chunk; short rows: a thread per slot
    let (work, threads) = if long {
        let w = rows * slots.div_ceil(LONG_ROW_CHUNK);
        (w, w * 256)
    } else {
        (rows * slots, rows * slots)
    };
    let key = KernelKey::CopyRows {
        item,
        nd: shape.len(),
        wide: dst.size() > i32::MAX as usize,
        step,
        long,
    };
    let f = function(stream.device(), key)?;
    let mut args = row_args(&f, (src, dst), stream, (work, len, slots))?;
    args.words(meta(shape, s0, s1))?;
    // SAFETY: each thread touches elements `j < len` of rows of each view, at the offsets
    // the strides give: inside both live buffers.
    unsafe { f.launch(&mut args, &LaunchConfig::linear(threads, 256), stream) }
}

/// Runs a 1-D kernel over the contiguous `out` with extra by-value arguments (in the
/// order and dtypes of `key`'s schema, which the packer checks).
pub(crate) fn launch_1d(
    out: &Array,
    key: KernelKey,
    extra: &[Scalar],
    stream: &Stream,
) -> Result<()> {
    let n = out.size();
    if n == 0 {
        return Ok(());
    }
    let f = function(stream.device(), key)?;
    let mut args = f.packer();
    args.pointer(out.ptr_on(stream))?;
    args.index(n)?;
    for &e in extra {
        args.scalar(e)?;
    }
    // SAFETY: `out` is contiguous with `n` elements, the only memory the kernel touches.
    unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream) }
}

/// Maps 64 random bits per element (`bits`: at least two uint32 words per element of
/// `out`, contiguous) onto `[low, low + range)` in the contiguous bool or integer `out`
/// (`range` 0: all 64 bits; `low` is the low bound's two's-complement bits).
pub(crate) fn rand_int(
    out: &Array,
    bits: &Array,
    low: u64,
    range: u64,
    stream: &Stream,
) -> Result<()> {
    let n = out.size();
    if n == 0 {
        return Ok(());
    }
    if !out.is_c_contiguous() || !bits.is_c_contiguous() || bits.nbytes() < 8 * n {
        bail!(
            Launch,
            "internal error: random integers need a contiguous output and 8 bytes of \
             contiguous random bits per element ({n} elements, {} bytes)",
            bits.nbytes()
        );
    }
    let f = function(stream.device(), KernelKey::RandInt(out.dtype()))?;
    let mut args = f.packer();
    args.pointer(out.ptr_on(stream))?;
    args.index(n)?;
    args.pointer(bits.ptr_on(stream))?;
    args.scalar(Scalar::U64(low))?;
    args.scalar(Scalar::U64(range))?;
    // SAFETY: `out` is contiguous with `n` elements and `bits` holds at least `n` 8-byte
    // words (checked above): the only memory the kernel touches.
    unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream) }
}

/// How many of the `n` uint32 (`wide`: uint64) samples at `samples` (a contiguous array of
/// at least `n` of them) exceed `limit` (a blocking count: the caller needs it on the host).
pub(crate) fn count_above(
    samples: &Array,
    n: usize,
    wide: bool,
    limit: u64,
    stream: &Stream,
) -> Result<u64> {
    let item = if wide { 8 } else { 4 };
    if !samples.is_c_contiguous() || samples.nbytes() < item * n {
        bail!(
            Launch,
            "internal error: {n} samples of {item} bytes need a contiguous array of as many \
             bytes, got {} bytes",
            samples.nbytes()
        );
    }
    let count = Array::empty_on(&[1], DType::U64, stream)?;
    fill(&count, &[0; 8], stream)?;
    if n > 0 {
        let f = function(stream.device(), KernelKey::CountAbove { wide })?;
        let mut args = f.packer();
        args.pointer(samples.ptr_on(stream))?;
        args.index(n)?;
        args.scalar(sample_scalar(wide, limit))?;
        args.pointer(count.ptr_on(stream))?;
        // SAFETY: `samples` holds `n` contiguous samples (checked above) and `count` one
        // uint64: the only memory the kernel touches.
        unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream)? };
    }
    Ok(count.to_vec::<u64>()?.first().copied().unwrap_or(0))
}

fn sample_scalar(wide: bool, v: u64) -> Scalar {
    if wide {
        Scalar::U64(v)
    } else {
        Scalar::U32(v as u32)
    }
}

/// `out = low + samples % m` (CuPy's legacy `randint` after its rejection step; `m` 0: no
/// modulo), over the contiguous `out` and `out.size()` contiguous uint32 (`wide`: uint64)
/// samples.
pub(crate) fn cupy_rand_int(
    out: &Array,
    samples: &Array,
    wide: bool,
    m: u64,
    low: u64,
    stream: &Stream,
) -> Result<()> {
    let n = out.size();
    if n == 0 {
        return Ok(());
    }
    let item = if wide { 8 } else { 4 };
    if !out.is_c_contiguous() || !samples.is_c_contiguous() || samples.nbytes() < item * n {
        bail!(
            Launch,
            "internal error: random integers need a contiguous output and {item} bytes of \
             contiguous samples per element ({n} elements, {} bytes)",
            samples.nbytes()
        );
    }
    let key = KernelKey::CupyRandInt {
        dtype: out.dtype(),
        wide,
    };
    let f = function(stream.device(), key)?;
    let mut args = f.packer();
    args.pointer(out.ptr_on(stream))?;
    args.index(n)?;
    args.pointer(samples.ptr_on(stream))?;
    args.scalar(sample_scalar(wide, m))?;
    args.scalar(Scalar::U64(low))?;
    // SAFETY: `out` is contiguous with `n` elements and `samples` holds `n` samples
    // (checked above): the only memory the kernel touches.
    unsafe { f.launch(&mut args, &grid_for(stream.device(), n), stream) }
}

/// Launches the empty kernel once (for measuring the launch floor); `params`: the one
/// that takes `axpy`'s four parameters (two null pointers, `2.0f` and `4`, all unused), so
/// a benchmark can tell the driver's cost of passing them from what a library adds.
pub(crate) fn launch_empty(stream: &Stream, params: bool) -> Result<()> {
    let f = function(stream.device(), KernelKey::Empty { params })?;
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = f.packer();
    if params {
        args.pointer(0)?;
        args.pointer(0)?;
        args.scalar(Scalar::F32(2.0))?;
        args.scalar(Scalar::I32(4))?;
    }
    // SAFETY: both empty kernels touch no memory (the pointers passed are never read).
    unsafe { f.launch(&mut args, &cfg, stream) }
}

/// Every specialisation's source, for NVRTC compile checks without a GPU.
pub fn all_sources() -> Vec<(String, String)> {
    all_kernels()
        .into_iter()
        .map(|(n, k)| (n, k.source))
        .collect()
}

/// Every specialisation: its label and kernel.
pub(crate) fn all_kernels() -> Vec<(String, GeneratedKernel)> {
    let mut keys = vec![
        KernelKey::Empty { params: false },
        KernelKey::Empty { params: true },
    ];
    for item in [1, 2, 4, 8, 16] {
        for nd in 1..=4 {
            for wide in [false, true] {
                keys.push(KernelKey::Fill { item, nd, wide });
                keys.push(KernelKey::Copy { item, nd, wide });
                for step in [1, 0, -1].into_iter().filter(|_| nd % 3 == 1) {
                    for long in [false, true] {
                        keys.push(KernelKey::CopyRows {
                            item,
                            nd,
                            wide,
                            step,
                            long,
                        });
                    }
                }
            }
        }
    }
    // the replicated copy: one or two broadcast dimensions around one to three own ones
    for item in [1, 2, 4, 8, 16] {
        for (nd, nb, wide) in [(1, 1, false), (2, 2, true), (3, 1, false)] {
            keys.push(KernelKey::CopyReplicas { item, nd, nb, wide });
        }
    }
    for &dt in DType::ALL {
        if !dt.is_complex() {
            keys.push(KernelKey::Arange(dt));
            keys.push(KernelKey::Linspace(dt));
        }
    }
    for dt in [DType::F32, DType::F64] {
        keys.push(KernelKey::Uniform(dt));
        keys.push(KernelKey::CupyUniform(dt));
    }
    for wide in [false, true] {
        keys.push(KernelKey::CountAbove { wide });
    }
    for &dt in DType::ALL {
        if dt.is_integer() || dt == DType::Bool {
            keys.push(KernelKey::RandInt(dt));
            for wide in [false, true] {
                keys.push(KernelKey::CupyRandInt { dtype: dt, wide });
            }
        }
    }
    keys.into_iter()
        .filter_map(|k| generate(k).ok().map(|g| (format!("{k:?}"), g)))
        .collect()
}

/// A generated kernel launched with a configuration of the caller's choosing, for the tests
/// of the one launch check (`cuprum::internal::launch_generated`): thread `t` of the grid's
/// first row writes `blockDim.x` to element `t` of a new float32 array of
/// `grid.0 * block.0` elements (and to the dynamic shared memory it was given). Generated
/// kernels choose valid configurations themselves; this is how the check is seen to apply
/// to them too.
pub fn launch_probe(config: &LaunchConfig) -> Result<Array> {
    static PROBE: std::sync::OnceLock<KernelTable<()>> = std::sync::OnceLock::new();
    let device = Device::current()?;
    let kernel = PROBE.get_or_init(KernelTable::new).get_or_compile(&(), device, || {
        let mut schema = ArgSchema::default();
        schema.push(ArgSlot::Pointer);
        schema.push(ArgSlot::Index(IndexWidth::I32));
        schema.push(ArgSlot::Index(IndexWidth::I32));
        let source = r#"extern "C" __global__ void cuprum_launch_probe(float* out, unsigned int n,
                                                    unsigned int shared_floats) {
    extern __shared__ float cuprum_probe_shared[];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)blockDim.x;
    if (threadIdx.x < shared_floats) cuprum_probe_shared[threadIdx.x] = v;
    if (i < n) out[i] = v;
}
"#;
        let k = GeneratedKernel {
            name: "cuprum_launch_probe".to_string(),
            source: source.to_string(),
            schema,
            spans: Vec::new(),
            dependent: false,
        };
        Ok((k, CompileOptions::new().program_name("launch_probe.cu")))
    })?;
    let n = config.grid.0 as usize * config.block.0 as usize;
    let out = Array::zeros(&[n], DType::F32)?;
    let stream = Stream::for_device(device)?;
    let mut p = kernel.packer();
    p.pointer(out.ptr_on(&stream))?;
    p.index(n)?;
    p.index(config.shared_mem_bytes as usize / 4)?;
    // SAFETY: the kernel writes element `i < n` of `out` only (`n` elements, on this
    // device, ordered on `stream` by `ptr_on`), and its dynamic shared memory below the
    // float count the launch gives it.
    unsafe { kernel.launch(&mut p, config, &stream)? };
    Ok(out)
}
