//! `cumsum` and `cumprod`: inclusive scans over any axis with NumPy's result dtypes.
//!
//! The contiguous case (the last axis, or the flattened array) is one single-pass kernel
//! with decoupled look-back: a block takes the next tile (an atomic ticket, so tiles
//! start in order), loads it once with coalesced vector loads (each lane holds `VEC`
//! consecutive elements of a 32-lane row), scans it (per lane, then warp shuffles, then
//! across the block's warps), publishes the tile's aggregate, and one warp looks back over
//! the predecessors' published aggregates / inclusive prefixes, 32 tiles at a time, until
//! it meets an inclusive prefix; then every element is written once. Rows of an n-d array
//! are *segments* of the same scan (the operator carries a "segment starts here" flag), so
//! short and long rows take the same kernel. A tile's status keeps a flag word (written
//! with release after the value, read with acquire) apart from the value, so any
//! accumulator type works; a 4-byte accumulator (float) packs status and value into one
//! 64-bit word instead, so each look-back step is one load (the float `cumsum` of 1e8
//! elements on an H100: 483 µs with two dependent loads a step, 455 with one). A lane
//! waiting for a predecessor's status backs off (`__nanosleep`, 8 ns doubling to 256):
//! spinning loads slow the tiles being waited for (455 → 442 µs). Bytes: the input read
//! once, the output written once, plus a few bytes of status per tile (8192 elements for
//! float accumulators, 2048 otherwise: see `items_per_thread`).
//!
//! Other axes, with at least 32 contiguous columns (`inner`): one pass with the same
//! look-back along the axis, by tiles of 32 columns × 128 positions (64 for 8- and 16-byte
//! accumulators): a warp reads 32 adjacent columns at each position (coalesced, no
//! transpose), each thread keeps its positions' loads in flight, and one lane per column
//! looks back over the tiles above. Tiles take tickets in axis-major order, so a tile's
//! predecessors have always started. Fewer contiguous columns: a column kernel (one thread
//! per column walks the axis) when there are enough columns to fill the GPU, else the axis
//! is moved last with a copy, scanned as rows, and moved back.
//!
//! **The seam.** The engine (`SCAN_BODY`) reads only names its program's header defines:
//! the element type `Tin` and how it is loaded (`CUPRUM_SCAN_IN`, `load_raw`, `load_raw1`),
//! the accumulator `A` with `load_a`, `ident` and `CUPRUM_OP`, the result `Tout` with
//! `out_of`, and `EXCL` (exclusive: each position gets the prefix before it). `cumsum` and
//! `cumprod` define them for one input (`ONE_INPUT`); `ScanKernel` (`kernel/scan.rs`) for
//! its inputs, map, operator, identity and post-map, so both run the same kernels, and
//! [`scan_into`] / [`Engine`] launch either.
//!
//! Floating-point sums combine in an order that depends on which predecessors had
//! published when a tile looked back, so the last bits of a float `cumsum` may differ
//! between runs (as with CUB); integer scans are exact (wrapping like NumPy).

use super::programs::{
    PRELUDE, Program, aligned, blocks_for, fits_u32, program, ptr_at, vec_width, zeroed_scratch,
};
use crate::array::{Array, DType, DTypeKind};
use crate::error::Result;
use crate::kernel::KernelArg;
use crate::shape::normalize_axis;
use std::fmt::Write;
use std::sync::Arc;

/// Which scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ScanOp {
    /// `cumsum`
    Sum,
    /// `cumprod`
    Prod,
}

impl ScanOp {
    fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "sum",
            ScanOp::Prod => "prod",
        }
    }
}

/// NumPy's result dtype of `cumsum` / `cumprod` (bool and small integers widen to the
/// 64-bit platform integer; float16/bfloat16 keep their dtype).
pub(crate) fn scan_dtype(d: DType) -> DType {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt => DType::I64,
        DTypeKind::UnsignedInt => DType::U64,
        _ => d,
    }
}

/// The C type the scan accumulates in: integers in unsigned 64-bit (wrapping, as NumPy's
/// int64 does, without signed-overflow UB), the 16-bit floats in float.
fn acc_type(d: DType) -> &'static str {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => "float",
        DType::F64 => "double",
        DType::C64 => "complex<float>",
        DType::C128 => "complex<double>",
        _ => "unsigned long long",
    }
}

fn acc_size(d: DType) -> usize {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => 4,
        DType::C128 => 16,
        _ => 8,
    }
}

/// Items per thread of the tile scans: 32 for 4-byte accumulators, 8 otherwise (a tile is
/// 256 × that). A tile's inclusive prefix is known only after the look-back has reached
/// one published before it, so fewer, larger tiles shorten that chain; past 32 the
/// registers cut occupancy. Measured on an H100 (float32, 2026-11-27), 1e8 elements /
/// rows of (10000, 10000): 16 → 442 / 555 µs, 32 → 394 / 452, 40 → 374 / 518, 64 → 367 /
/// 742.
fn items_per_thread(d: DType) -> usize {
    ipt_for(acc_size(d))
}

/// [`items_per_thread`] of an accumulator of `acc` bytes.
pub(crate) fn ipt_for(acc: usize) -> usize {
    if acc <= 4 { 32 } else { 8 }
}

/// Blocks per SM the tile scan's registers are held to (`__launch_bounds__`). `ncu` on an
/// H100 (float32 `cumsum` of 1e8): 75 registers, 3 blocks per SM, warps stalled at the
/// barrier behind the look-back 58 % of the time. Measured in one run (1e8 / rows of
/// (10000, 10000)): unbounded 394 / 543 µs, held to 3 blocks 394 / 449, to 4 422 / 461, to
/// 5 399 / 589.
fn scan_min_blocks(d: DType) -> usize {
    min_blocks_for(acc_size(d))
}

/// [`scan_min_blocks`] of an accumulator of `acc` bytes.
pub(crate) fn min_blocks_for(acc: usize) -> usize {
    if acc <= 4 { 3 } else { 1 }
}

/// Positions per thread of the axis kernel: 16 for 4-byte accumulators, 8 otherwise (a
/// tile is 32 columns × 8 × that; measured on an H100 for float32 (10000, 10000) axis 0:
/// 8 → 369 µs, 12 → 338, 16 → 324, 24 → 345, 32 → 368).
fn axis_items_per_thread(d: DType) -> usize {
    axipt_for(acc_size(d))
}

/// [`axis_items_per_thread`] of an accumulator of `acc` bytes.
pub(crate) fn axipt_for(acc: usize) -> usize {
    if acc <= 4 { 16 } else { 8 }
}

/// The scan program of input dtype `d`, result dtype `out`, operator `op` and index width.
fn scan_program(d: DType, out: DType, op: ScanOp, wide: bool) -> Arc<Program> {
    let key = format!(
        "scan|{}|{}|{}|{}",
        d.name(),
        out.name(),
        op.name(),
        u8::from(wide)
    );
    program(&key, || scan_source_to(d, out, op, wide))
}

/// The CUDA source of one scan program with NumPy's result dtype.
pub(crate) fn scan_source(d: DType, op: ScanOp, wide: bool) -> String {
    scan_source_to(d, scan_dtype(d), op, wide)
}

/// The CUDA source of one scan program: `cuprum_scan_{v,1}` (contiguous, vector or
/// scalar loads), `cuprum_scan_seg_{v,1}` (rows as segments) and `cuprum_scan_cols`. The
/// input converts to the result dtype `out` (NumPy's `dtype=`) before it accumulates in
/// `out`'s accumulator.
pub(crate) fn scan_source_to(d: DType, out: DType, op: ScanOp, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let ident = match op {
        ScanOp::Sum => "0",
        ScanOp::Prod => "1",
    };
    let opx = match op {
        ScanOp::Sum => "((a) + (b))",
        ScanOp::Prod => "((a) * (b))",
    };
    let _ = write!(
        s,
        "typedef {tin} Tin;\ntypedef {acc} A;\ntypedef {tout} Tout;\ntypedef {idx} I;\n\
         #define CUPRUM_OP(a, b) {opx}\n\
         __device__ __forceinline__ A load_a(const Tin& x) {{ return {load}; }}\n\
         __device__ __forceinline__ A ident() {{ return A({ident}); }}\n\
         constexpr int VECN = {vec};\nconstexpr int IPT = {ipt};\nconstexpr int AXIPT = {axipt};\n\
         constexpr int SCAN_MINB = {minb};\n",
        tin = d.c_type(),
        acc = acc_type(out),
        tout = out.c_type(),
        load = if out == scan_dtype(d) {
            "cuprum::cast<A>(x)".to_owned()
        } else {
            format!("cuprum::cast<A>(cuprum::cast<{}>(x))", out.c_type())
        },
        idx = if wide {
            "unsigned long long"
        } else {
            "unsigned int"
        },
        vec = vec_width(d.itemsize()),
        ipt = items_per_thread(out),
        axipt = axis_items_per_thread(out),
        minb = scan_min_blocks(out),
    );
    s.push_str(ONE_INPUT);
    s.push_str(SCAN_BODY);
    s
}

/// How the engine reads and writes elements when there is one input `x` of `Tin` and the
/// result is `A` converted to `Tout`, inclusive (`cumsum`, `cumprod`). A `ScanKernel`
/// defines the same names for another input list, map, result conversion and mode.
const ONE_INPUT: &str = r#"
#define CUPRUM_SCAN_IN const Tin* __restrict__ x
#define CUPRUM_SCAN_ARGS x
template <int VEC> __device__ __forceinline__ void load_raw(CUPRUM_SCAN_IN, I i0, I n, Tin* raw) {
  if (VEC > 1 && i0 + VEC <= n) {
    rt::load_vec<Tin, VEC>(x + i0, raw);
  } else {
#pragma unroll
    for (int b = 0; b < VEC; ++b) raw[b] = (i0 + b < n) ? x[i0 + b] : Tin();
  } }
__device__ __forceinline__ Tin load_raw1(CUPRUM_SCAN_IN, I i) { return x[i]; }
__device__ __forceinline__ Tout out_of(const A& a) { return cuprum::cast<Tout>(a); }
constexpr bool EXCL = false;
"#;

/// The engine: every entry point, written against the names a program's header defines
/// (see `scan_source_to` and [`ONE_INPUT`]; `ScanKernel` defines them for its own inputs,
/// map, operator and result).
pub(crate) const SCAN_BODY: &str = r#"
// A value and whether a segment (row) starts inside the range it covers.
struct P { A v; unsigned h; };
__device__ __forceinline__ P pid() { P r; r.v = ident(); r.h = 0u; return r; }
template <bool SEG> __device__ __forceinline__ P comb(const P& a, const P& b) {
  P r; r.h = a.h | b.h;
  if (SEG && b.h) r.v = b.v; else r.v = CUPRUM_OP(a.v, b.v);
  return r; }
__device__ __forceinline__ P shfl_up_p(const P& p, unsigned d) {
  P r; r.v = rt::shfl_up(p.v, d); r.h = __shfl_up_sync(rt::FULL, p.h, d); return r; }
__device__ __forceinline__ P shfl_down_p(const P& p, unsigned d) {
  P r; r.v = rt::shfl_down(p.v, d); r.h = __shfl_down_sync(rt::FULL, p.h, d); return r; }
__device__ __forceinline__ P shfl_idx_p(const P& p, int src) {
  P r; r.v = rt::shfl_idx(p.v, src); r.h = __shfl_sync(rt::FULL, p.h, src); return r; }

// Decoupled look-back by one warp. Status word per tile: bits 0-1 = 1 (aggregate) or
// 2 (inclusive prefix), bit 2 = a segment starts in the tile; values in aggs / incs,
// written before the status word is released.
// The same look-back for a 4-byte accumulator: status and value share one 64-bit word per
// tile (status in the high half), so each step of the look-back is one load, not a status
// load followed by a value load.
__device__ __forceinline__ unsigned long long packw(unsigned st, A v) {
  unsigned u = 0; memcpy(&u, &v, sizeof(A) < 4 ? sizeof(A) : 4);
  return ((unsigned long long)st << 32) | u; }
__device__ __forceinline__ A unpackv(unsigned long long w) {
  const unsigned u = (unsigned)w; A v = ident(); memcpy(&v, &u, sizeof(A) < 4 ? sizeof(A) : 4); return v; }
template <bool SEG>
__device__ P lookback_packed(unsigned tile, P tot, unsigned long long* words, int lane) {
  if (tile == 0) {
    if (lane == 0) rt::st_release(&words[0], packw(2u | (tot.h ? 4u : 0u), tot.v));
    return pid();
  }
  if (lane == 0) rt::st_release(&words[tile], packw(1u | (tot.h ? 4u : 0u), tot.v));
  P run = pid();
  long long t = (long long)tile - 1 - lane;
  while (true) {
    unsigned f = 2u;
    P e = pid();
    if (t >= 0) {
      unsigned long long w;
      unsigned ns = 8;
      while (true) {
        w = rt::ld_acquire(&words[t]); f = (unsigned)(w >> 32);
        if ((f & 3u) != 0u) break;
        __nanosleep(ns); ns = ns < 256u ? 2u * ns : ns;  // backs off: spinning loads slow the tiles ahead
      }
      e.v = unpackv(w);
      e.h = (f >> 2) & 1u;
    }
    const bool term = ((f & 3u) == 2u) || (SEG && e.h);
    const unsigned tm = __ballot_sync(rt::FULL, term);
    const int first = tm ? __ffs(tm) - 1 : 32;
    if (lane > first) e = pid();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const P o = shfl_down_p(e, d);
      if (lane + d < 32) e = comb<SEG>(o, e);
    }
    run = comb<SEG>(shfl_idx_p(e, 0), run);
    if (tm) break;
    t -= 32;
  }
  if (lane == 0) {
    const P inc = comb<SEG>(run, tot);
    rt::st_release(&words[tile], packw(2u | (inc.h ? 4u : 0u), inc.v));
  }
  return run;
}

template <bool SEG>
__device__ P lookback(unsigned tile, P tot, unsigned* flags, A* aggs, A* incs, int lane) {
  if constexpr (sizeof(A) == 4) {
    // `flags` holds one 64-bit word per tile here (see `tile_scan`).
    return lookback_packed<SEG>(tile, tot, reinterpret_cast<unsigned long long*>(flags), lane);
  }
  if (tile == 0) {
    if (lane == 0) { incs[0] = tot.v; rt::st_release(&flags[0], 2u | (tot.h ? 4u : 0u)); }
    return pid();
  }
  if (lane == 0) { aggs[tile] = tot.v; rt::st_release(&flags[tile], 1u | (tot.h ? 4u : 0u)); }
  P run = pid();
  long long t = (long long)tile - 1 - lane;
  while (true) {
    unsigned f = 2u;
    P e = pid();
    if (t >= 0) {
      unsigned ns = 8;
      while (((f = rt::ld_acquire(&flags[t])) & 3u) == 0u) { __nanosleep(ns); ns = ns < 256u ? 2u * ns : ns; }
      e.v = ((f & 3u) == 2u) ? incs[t] : aggs[t];
      e.h = (f >> 2) & 1u;
    }
    const bool term = ((f & 3u) == 2u) || (SEG && e.h);
    const unsigned tm = __ballot_sync(rt::FULL, term);
    const int first = tm ? __ffs(tm) - 1 : 32;
    if (lane > first) e = pid();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const P o = shfl_down_p(e, d);
      if (lane + d < 32) e = comb<SEG>(o, e);
    }
    run = comb<SEG>(shfl_idx_p(e, 0), run);
    if (tm) break;
    t -= 32;
  }
  if (lane == 0) {
    const P inc = comb<SEG>(run, tot);
    incs[tile] = inc.v;
    rt::st_release(&flags[tile], 2u | (inc.h ? 4u : 0u));
  }
  return run;
}

template <bool SEG, int VEC>
__device__ __forceinline__ void scan_tile(CUPRUM_SCAN_IN, Tout* __restrict__ y, I n, I len,
    unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs, unsigned* __restrict__ counter) {
  constexpr int ROWS = IPT / VEC;
  constexpr int WSEG = 32 * IPT;
  constexpr int TILE = 8 * WSEG;
  __shared__ unsigned s_tile;
  __shared__ P s_warp[8];
  __shared__ P s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const I wbase = (I)tile * (I)TILE + (I)(warp * WSEG);
  P s[ROWS][VEC];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    Tin raw[VEC];
    load_raw<VEC>(CUPRUM_SCAN_ARGS, i0, n, raw);
    I m = 0;
    if (SEG) m = i0 % len;
#pragma unroll
    for (int b = 0; b < VEC; ++b) {
      const bool ok = i0 + b < n;
      P e; e.v = ok ? load_a(raw[b]) : ident(); e.h = 0u;
      if (SEG) { e.h = (ok && m == 0) ? 1u : 0u; m = (m + 1 == len) ? 0 : m + 1; }
      s[r][b] = (b == 0) ? e : comb<SEG>(s[r][b - 1], e);
    }
  }
  P lex[ROWS], rtot[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    P c = s[r][VEC - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const P o = shfl_up_p(c, d);
      if (lane >= d) c = comb<SEG>(o, c);
    }
    const P e = shfl_up_p(c, 1);
    lex[r] = lane == 0 ? pid() : e;
    rtot[r] = shfl_idx_p(c, 31);
  }
  P rp[ROWS];
  rp[0] = pid();
#pragma unroll
  for (int r = 1; r < ROWS; ++r) rp[r] = comb<SEG>(rp[r - 1], rtot[r - 1]);
  if (lane == 0) s_warp[warp] = comb<SEG>(rp[ROWS - 1], rtot[ROWS - 1]);
  __syncthreads();
  P wex = pid();
  for (int w = 0; w < warp; ++w) wex = comb<SEG>(wex, s_warp[w]);
  if (warp == 0) {
    P tot = pid();
#pragma unroll
    for (int w = 0; w < 8; ++w) tot = comb<SEG>(tot, s_warp[w]);
    const P ex = lookback<SEG>(tile, tot, flags, aggs, incs, lane);
    if (lane == 0) s_excl = ex;
  }
  __syncthreads();
  const P tex = comb<SEG>(s_excl, wex);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    const P pre = comb<SEG>(comb<SEG>(tex, rp[r]), lex[r]);
    Tout o[VEC];
    if constexpr (EXCL) {
      // exclusive: the prefix before each element (the identity where a segment starts)
      I m = 0;
      if (SEG) m = i0 % len;
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        const P e = b == 0 ? pre : comb<SEG>(pre, s[r][b - 1]);
        o[b] = out_of((SEG && m == 0) ? ident() : e.v);
        if (SEG) m = (m + 1 == len) ? 0 : m + 1;
      }
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) o[b] = out_of(comb<SEG>(pre, s[r][b]).v);
    }
    if (VEC > 1 && i0 + VEC <= n) {
      rt::store_vec<Tout, VEC>(y + i0, o);
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) if (i0 + b < n) y[i0 + b] = o[b];
    }
  }
}

#define CUPRUM_SCAN_ENTRY(NAME, SEG, VEC) \
extern "C" __global__ void __launch_bounds__(256, SCAN_MINB) NAME(CUPRUM_SCAN_IN, Tout* __restrict__ y, I n, I len, \
    unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs, unsigned* __restrict__ counter) { \
  scan_tile<SEG, VEC>(CUPRUM_SCAN_ARGS, y, n, len, flags, aggs, incs, counter); }
CUPRUM_SCAN_ENTRY(cuprum_scan_v, false, VECN)
CUPRUM_SCAN_ENTRY(cuprum_scan_1, false, 1)
CUPRUM_SCAN_ENTRY(cuprum_scan_seg_v, true, VECN)
CUPRUM_SCAN_ENTRY(cuprum_scan_seg_1, true, 1)

// An axis that is not the last (x viewed as (outer, len, inner), columns c = (o, r)): a tile
// is 32 adjacent columns × AXR consecutive positions along the axis. Thread (cx, gy) holds
// AXIPT positions of column cx, so a warp reads 32 adjacent elements per position (coalesced)
// and every thread keeps AXIPT loads in flight. Tiles take tickets in axis-major order, so
// every tile's predecessors along the axis have started; warp 0 then looks back per column
// (one lane per column) over the predecessors' aggregates / inclusive prefixes.
constexpr int AXG = 8;
constexpr int AXR = AXG * AXIPT;
extern "C" __global__ void __launch_bounds__(256) cuprum_scan_axis(CUPRUM_SCAN_IN, Tout* __restrict__ y,
    I outer, I len, I inner, unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs,
    unsigned* __restrict__ counter) {
  __shared__ unsigned s_tile;
  __shared__ A s_tot[AXG][32];
  __shared__ A s_excl[32];
  const int cx = threadIdx.x & 31, gy = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned long long cols = (unsigned long long)outer * inner;
  const unsigned long long ncb = (cols + 31) / 32;
  const unsigned long long at = s_tile / ncb, cb = s_tile % ncb;
  const unsigned long long c = cb * 32 + cx;
  const bool live = c < cols;
  const I o = live ? (I)(c / inner) : 0, r = live ? (I)(c % inner) : 0;
  const I k0 = (I)(at * AXR) + (I)(gy * AXIPT);
  const I base = o * len * inner + r;
  Tin raw[AXIPT];
#pragma unroll
  for (int j = 0; j < AXIPT; ++j) {
    const I k = k0 + j;
    raw[j] = (live && k < len) ? load_raw1(CUPRUM_SCAN_ARGS, base + k * inner) : Tin();
  }
  A v[AXIPT];
#pragma unroll
  for (int j = 0; j < AXIPT; ++j) {
    const A e = (live && k0 + j < len) ? load_a(raw[j]) : ident();
    v[j] = j == 0 ? e : CUPRUM_OP(v[j - 1], e);
  }
  s_tot[gy][cx] = v[AXIPT - 1];
  __syncthreads();
  if (gy == 0) {
    A agg = ident();
#pragma unroll
    for (int g = 0; g < AXG; ++g) agg = CUPRUM_OP(agg, s_tot[g][cx]);
    A run = ident();
    if (live) {
      const unsigned long long me = at * cols + c;
      if (at == 0) {
        incs[me] = agg; rt::st_release(&flags[me], 2u);
      } else {
        aggs[me] = agg; rt::st_release(&flags[me], 1u);
        unsigned long long t = me - cols;
        while (true) {
          unsigned f;
          unsigned ns = 8;
          while ((f = rt::ld_acquire(&flags[t])) == 0u) { __nanosleep(ns); ns = ns < 256u ? 2u * ns : ns; }
          if (f == 2u) { run = CUPRUM_OP(incs[t], run); break; }
          run = CUPRUM_OP(aggs[t], run);
          t -= cols;
        }
        incs[me] = CUPRUM_OP(run, agg); rt::st_release(&flags[me], 2u);
      }
    }
    s_excl[cx] = run;
  }
  __syncthreads();
  if (!live) return;
  A pre = s_excl[cx];
  for (int g = 0; g < gy; ++g) pre = CUPRUM_OP(pre, s_tot[g][cx]);
#pragma unroll
  for (int j = 0; j < AXIPT; ++j) {
    const I k = k0 + j;
    if (k < len) y[base + k * inner] = out_of(EXCL ? (j == 0 ? pre : CUPRUM_OP(pre, v[j - 1])) : CUPRUM_OP(pre, v[j]));
  }
}

// One thread per column (outer, inner) walks the scanned axis; adjacent threads read
// adjacent columns.
extern "C" __global__ void __launch_bounds__(256) cuprum_scan_cols(CUPRUM_SCAN_IN, Tout* __restrict__ y,
    I outer, I len, I inner) {
  const I cols = outer * inner;
  for (I c = (I)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += (I)gridDim.x * blockDim.x) {
    const I o = c / inner, r = c - o * inner;
    I p = o * len * inner + r;
    A acc = ident();
    for (I k = 0; k < len; ++k, p += inner) {
      const A e = load_a(load_raw1(CUPRUM_SCAN_ARGS, p));
      if (EXCL) y[p] = out_of(acc);
      acc = CUPRUM_OP(acc, e);
      if (!EXCL) y[p] = out_of(acc);
    }
  }
}
"#;

/// Inclusive cumulative sum over `axis` (`None`: of the flattened array, a 1-D result).
/// NumPy's result dtypes: bool and signed integers give int64, unsigned integers uint64,
/// floats and complex numbers keep their dtype (float16 and bfloat16 add in float32).
/// One pass over the data for the last axis or the flattened array (see the module docs);
/// the last bits of a float result may vary between runs.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let c = ops::cumsum(&a, None)?;
/// assert_eq!((c.dtype(), c.to_vec::<i64>()?), (DType::I64, vec![1, 3, 6, 10, 15, 21]));
/// assert_eq!(ops::cumsum(&a, Some(1))?.to_vec::<i64>()?, vec![1, 3, 6, 4, 9, 15]);
/// assert_eq!(ops::cumsum(&a, Some(0))?.to_vec::<i64>()?, vec![1, 2, 3, 5, 7, 9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cumsum(a: &Array, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || cumsum(a, axis)) {
        return r;
    }
    scan(ScanOp::Sum, a, axis)
}

/// Inclusive cumulative product over `axis` (`None`: flattened), with `cumsum`'s dtypes.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
/// assert_eq!(ops::cumprod(&a, Some(0))?.to_vec::<f32>()?, vec![1.0, 2.0, 6.0, 24.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cumprod(a: &Array, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || cumprod(a, axis)) {
        return r;
    }
    scan(ScanOp::Prod, a, axis)
}

impl Array {
    /// [`ops::cumsum`](crate::ops::cumsum) of this array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[true, false, true], &[3])?;
    /// assert_eq!(a.cumsum(None)?.to_vec::<i64>()?, vec![1, 1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cumsum(&self, axis: Option<isize>) -> Result<Array> {
        cumsum(self, axis)
    }

    /// [`ops::cumprod`](crate::ops::cumprod) of this array.
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[2u8, 3, 4], &[3])?;
    /// assert_eq!(a.cumprod(None)?.to_vec::<u64>()?, vec![2, 6, 24]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        cumprod(self, axis)
    }
}

/// Columns below which a non-last axis is moved last instead of scanned per column.
const MIN_COLUMNS: usize = 16384;

/// `cumsum` / `cumprod` of `a` over `axis` (`None`: the flattened array).
pub(crate) fn scan(op: ScanOp, a: &Array, axis: Option<isize>) -> Result<Array> {
    scan_with(op, a, axis, None)
}

/// `cumsum` / `cumprod` of `a` over `axis` (`None`: the flattened array), accumulating in
/// and returning `dtype` (NumPy's `dtype=`; `None`: NumPy's result dtype).
pub(crate) fn scan_with(
    op: ScanOp,
    a: &Array,
    axis: Option<isize>,
    dtype: Option<DType>,
) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || scan_with(op, a, axis, dtype)) {
        return r;
    }
    let out_dt = dtype.unwrap_or_else(|| scan_dtype(a.dtype()));
    let d = a.dtype();
    let engine = |wide: bool| Engine {
        prog: scan_program(d, out_dt, op, wide),
        acc: acc_size(out_dt),
        ipt: items_per_thread(out_dt),
        axipt: axis_items_per_thread(out_dt),
        vec: vec_width(d.itemsize()),
        values: Vec::new(),
    };
    scan_into(std::slice::from_ref(a), out_dt, axis, None, &engine)
}

/// One scan program and the sizes its launches need: the seam through which the
/// built-in scans and `ScanKernel` share the engine. `acc` is the accumulator's size in
/// bytes (an upper bound when the program asserts one); `ipt` and `axipt` the items per
/// thread the program was written with (`IPT`, `AXIPT`), `vec` its `VECN`; `values` the
/// by-value inputs the program's entries take after the arrays (`CUPRUM_SCAN_IN`).
pub(crate) struct Engine {
    pub prog: Arc<Program>,
    pub acc: usize,
    pub ipt: usize,
    pub axipt: usize,
    pub vec: usize,
    pub values: Vec<crate::array::Scalar>,
}

/// Scans `inputs` (arrays of one shape, given to the program's entries in order) over
/// `axis` (`None`: flattened) into a new array of `out_dt`, or into `out` (checked by the
/// caller: `out_dt`, and the result's shape). `engine(wide)` gives the program of each
/// index width. Empty inputs launch nothing.
pub(crate) fn scan_into(
    inputs: &[Array],
    out_dt: DType,
    axis: Option<isize>,
    out: Option<&Array>,
    engine: &dyn Fn(bool) -> Engine,
) -> Result<Array> {
    let Some(first) = inputs.first() else {
        return Err(crate::error::err!(InvalidArgument, "a scan needs an input"));
    };
    let ax = axis.map(|a| normalize_axis(a, first.ndim())).transpose()?;
    let shape: Vec<usize> = match ax {
        None => vec![first.size()],
        Some(_) => first.shape().to_vec(),
    };
    // Written in place when `out` is contiguous, else through a temporary.
    let direct = out.filter(|o| o.is_c_contiguous()).cloned();
    let res = match &direct {
        Some(o) => o.clone(),
        None => Array::empty(&shape, out_dt)?,
    };
    if first.size() > 0 {
        run_axis(inputs, &res, ax, engine)?;
    }
    match out {
        Some(o) if direct.is_none() => {
            o.assign(&res)?;
            Ok(o.clone())
        }
        _ => Ok(res),
    }
}

/// The launches of [`scan_into`] for a non-empty scan into the contiguous `out`.
fn run_axis(
    inputs: &[Array],
    out: &Array,
    ax: Option<usize>,
    engine: &dyn Fn(bool) -> Engine,
) -> Result<()> {
    let first = &inputs[0];
    let n = first.size();
    let e = engine(!fits_u32(n));
    let contiguous = |f: &dyn Fn(&Array) -> Result<Array>| -> Result<Vec<Array>> {
        inputs.iter().map(f).collect()
    };
    let Some(ax) = ax else {
        let flat = contiguous(&|a| a.reshape_copy(&[-1])?.to_contiguous())?;
        return tile_scan(&e, &flat, out, n);
    };
    let len = first.shape()[ax];
    let outer: usize = first.shape()[..ax].iter().product();
    let inner: usize = first.shape()[ax + 1..].iter().product();
    if inner == 1 {
        tile_scan(&e, &contiguous(&Array::to_contiguous)?, out, len)
    } else if inner >= 32 {
        axis_scan(
            &e,
            &contiguous(&Array::to_contiguous)?,
            out,
            outer,
            len,
            inner,
        )
    } else if outer * inner >= MIN_COLUMNS || len <= 64 {
        column_scan(
            &e,
            &contiguous(&Array::to_contiguous)?,
            out,
            outer,
            len,
            inner,
        )
    } else {
        let last = first.ndim() as isize - 1;
        let moved = contiguous(&|a| a.swapaxes(ax as isize, last)?.copy())?;
        let scanned = Array::empty(moved[0].shape(), out.dtype())?;
        tile_scan(&e, &moved, &scanned, len)?;
        out.assign(&scanned.swapaxes(ax as isize, last)?)
    }
}

/// The launch arguments: the inputs (arrays, then `e`'s values), the output, then `rest`.
fn args(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    rest: Vec<Box<dyn KernelArg>>,
) -> Vec<Box<dyn KernelArg>> {
    let mut v: Vec<Box<dyn KernelArg>> = inputs
        .iter()
        .map(|a| Box::new(a.clone()) as Box<dyn KernelArg>)
        .collect();
    v.extend(e.values.iter().map(|s| Box::new(*s) as Box<dyn KernelArg>));
    v.push(Box::new(out.clone()));
    v.extend(rest);
    v
}

/// An index argument of the program's width (`I`).
fn idx(wide: bool, v: usize) -> Box<dyn KernelArg> {
    if wide {
        Box::new(v as u64)
    } else {
        Box::new(v as u32)
    }
}

/// Scans the contiguous `inputs` into the contiguous `out` in segments of `len` elements.
fn tile_scan(e: &Engine, inputs: &[Array], out: &Array, len: usize) -> Result<()> {
    let n = out.size();
    let wide = !fits_u32(n);
    let mut all: Vec<&Array> = inputs.iter().collect();
    all.push(out);
    let vector = e.vec > 1 && aligned(&all, e.vec);
    let seg = len < n;
    let name = match (seg, vector) {
        (false, true) => "cuprum_scan_v",
        (false, false) => "cuprum_scan_1",
        (true, true) => "cuprum_scan_seg_v",
        (true, false) => "cuprum_scan_seg_1",
    };
    let tile = 256 * e.ipt;
    let tiles = n.div_ceil(tile);
    // A 4-byte accumulator packs each tile's status and value into one 64-bit word (8
    // bytes a tile); the others keep a 4-byte status apart from their values. 8 bytes a
    // tile either way, so a program whose accumulator size only it knows (a ScanKernel's
    // own type) is covered.
    let status_bytes = 8 * tiles;
    let status = zeroed_scratch(status_bytes + 4)?;
    let values = Array::empty(&[2 * tiles * e.acc], DType::U8)?;
    let (flags, counter) = (ptr_at(&status, 0), ptr_at(&status, status_bytes));
    let (aggs, incs) = (ptr_at(&values, 0), ptr_at(&values, tiles * e.acc));
    let grid = u32::try_from(tiles).map_err(|_| {
        crate::error::err!(
            Unsupported,
            "cumulative scan of {n} elements: too many tiles"
        )
    })?;
    let rest: Vec<Box<dyn KernelArg>> = vec![
        idx(wide, n),
        idx(wide, len),
        Box::new(flags),
        Box::new(aggs),
        Box::new(incs),
        Box::new(counter),
    ];
    e.prog.launch(name, grid, 256, args(e, inputs, out, rest))
}

/// Scans the axis of extent `len` of the contiguous `(outer, len, inner)` `inputs` by
/// tiles of 32 columns × `8 · axipt` positions with a look-back along the axis
/// (`cuprum_scan_axis`): the input read once, the output written once, plus 4 bytes of
/// status and two accumulators per column and tile.
fn axis_scan(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<()> {
    let n = out.size();
    let wide = !fits_u32(n);
    let cols = outer * inner;
    let tiles = cols.div_ceil(32) * len.div_ceil(8 * e.axipt);
    let cells = tiles.div_ceil(cols.div_ceil(32)) * cols;
    let status = zeroed_scratch(4 * (cells + 1))?;
    let values = Array::empty(&[2 * cells * e.acc], DType::U8)?;
    let (flags, counter) = (ptr_at(&status, 0), ptr_at(&status, 4 * cells));
    let (aggs, incs) = (ptr_at(&values, 0), ptr_at(&values, cells * e.acc));
    let grid = u32::try_from(tiles).map_err(|_| {
        crate::error::err!(
            Unsupported,
            "cumulative scan over an axis of {n} elements: too many tiles"
        )
    })?;
    let rest: Vec<Box<dyn KernelArg>> = vec![
        idx(wide, outer),
        idx(wide, len),
        idx(wide, inner),
        Box::new(flags),
        Box::new(aggs),
        Box::new(incs),
        Box::new(counter),
    ];
    e.prog
        .launch("cuprum_scan_axis", grid, 256, args(e, inputs, out, rest))
}

/// Scans the axis of extent `len` of the contiguous `(outer, len, inner)` `inputs`, one
/// thread per column.
fn column_scan(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<()> {
    let wide = !fits_u32(out.size());
    let grid = blocks_for(outer * inner);
    let rest = vec![idx(wide, outer), idx(wide, len), idx(wide, inner)];
    e.prog
        .launch("cuprum_scan_cols", grid, 256, args(e, inputs, out, rest))
}

/// Every scan program's source (NVRTC compile checks): each dtype and operator with
/// 32-bit indexing, and a sample with 64-bit indexing.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for &d in DType::ALL {
        for op in [ScanOp::Sum, ScanOp::Prod] {
            v.push((
                format!("scan {} {}", d.name(), op.name()),
                scan_source(d, op, false),
            ));
        }
    }
    for d in [DType::F32, DType::I8, DType::C128] {
        v.push((
            format!("scan {} sum wide", d.name()),
            scan_source(d, ScanOp::Sum, true),
        ));
    }
    // dtype=: narrower, wider, float into integer, complex into real, into bool.
    for (d, out, op) in [
        (DType::I32, DType::I8, ScanOp::Sum),
        (DType::F32, DType::F64, ScanOp::Sum),
        (DType::F64, DType::I32, ScanOp::Prod),
        (DType::C128, DType::F64, ScanOp::Sum),
        (DType::F64, DType::Bool, ScanOp::Sum),
        (DType::U8, DType::F16, ScanOp::Prod),
    ] {
        v.push((
            format!("scan {} {} -> {}", d.name(), op.name(), out.name()),
            scan_source_to(d, out, op, false),
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_dtypes_follow_numpy() {
        assert_eq!(scan_dtype(DType::Bool), DType::I64);
        assert_eq!(scan_dtype(DType::I8), DType::I64);
        assert_eq!(scan_dtype(DType::I32), DType::I64);
        assert_eq!(scan_dtype(DType::U16), DType::U64);
        assert_eq!(scan_dtype(DType::F16), DType::F16);
        assert_eq!(scan_dtype(DType::F32), DType::F32);
        assert_eq!(scan_dtype(DType::C64), DType::C64);
    }

    #[test]
    fn tiles_divide_into_vector_rows() {
        for &d in DType::ALL {
            let ipt = items_per_thread(d);
            assert_eq!(ipt % vec_width(d.itemsize()), 0, "{d}");
            assert!(acc_size(d) <= 16);
        }
    }

    #[test]
    fn source_names_every_entry_point() {
        let s = scan_source(DType::F32, ScanOp::Sum, false);
        for k in [
            "(cuprum_scan_v,",
            "(cuprum_scan_1,",
            "(cuprum_scan_seg_v,",
            "(cuprum_scan_seg_1,",
            "cuprum_scan_cols(",
            "cuprum_scan_axis(",
        ] {
            assert!(s.contains(k), "{k}");
        }
        assert!(s.contains("typedef unsigned int I;"));
        assert!(
            scan_source(DType::F32, ScanOp::Sum, true).contains("typedef unsigned long long I;")
        );
    }
}
