//! The scan engine's CUDA C++: one template of every scan kernel (`BODY`), written against
//! a few names a program's header defines, so that the built-in scans (`ops/scan.rs`:
//! `cumsum`, `cumprod`) and [`ScanKernel`](crate::ScanKernel) (`kernel/scan.rs`) run the
//! same kernels, tuned in one place. `kernel/scan_engine.rs` launches them.
//!
//! **The kernels.** The contiguous case (the last axis, or the flattened array) is one
//! single-pass kernel with decoupled look-back (`cuprum_scan_{v,1}`: vector or scalar
//! loads): a block takes the next tile (an atomic ticket, so tiles start in order), loads
//! it once with coalesced vector loads (each lane holds `VEC` consecutive elements of a
//! 32-lane row), scans it (per lane, then warp shuffles, then across the block's warps),
//! publishes the tile's aggregate, and one warp looks back over the predecessors'
//! published aggregates / inclusive prefixes, 32 tiles at a time, until it meets an
//! inclusive prefix; then every element is written once. As a tile starts it asks L2 for
//! the input of the tile `SCAN_PF` after it, so the reads go on while
//! blocks wait for their look-back (the shapes: [`ScanShape`], tuned per device). Rows of an n-d array
//! are *segments* of the same scan (`cuprum_scan_seg_{v,1}`: the operator carries a "segment
//! starts here" flag) when they are short or few; many rows of some length take a block
//! each instead (`cuprum_scan_rows_{v,1}`: the block walks its row chunk by chunk with a
//! running carry, no look-back, so nothing waits on another block: [`rows_kernel`] says
//! when; on an H100 the rows of a float32 (10000, 10000) array went from 470 µs, 57 % of
//! the copy, as segments to 288, 93 %). Other axes with at
//! least 32 contiguous columns: `cuprum_scan_axis`, tiles of 32 columns × `8 · AXIPT`
//! positions (a warp reads 32 adjacent columns at each position: coalesced, no transpose;
//! each thread keeps its positions' loads in flight; tiles take tickets in axis-major
//! order so a tile's predecessors have always started; one lane per column looks back
//! over the tiles above, one packed status a step: the float32 `cumsum` of (10000, 10000)
//! along axis 0 on an H200 went from 261.5 µs, 72.3 % of the copy, with an acquired flag
//! and then its value a step, to 231.7, 81.8 %). Fewer columns: `cuprum_scan_cols`, one
//! thread per column.
//!
//! **The persistent kernel** (`cuprum_scan_pv`, when the tuned shape has stages: the 1-D
//! scans of one array): the tile scan's work, but as many blocks as the GPU holds, each
//! taking tile after tile by ticket while the next tiles' input is copied asynchronously
//! (`cp.async`) into a ring of shared-memory stages, so a block keeps loads in flight while
//! it scans, looks back and writes — the one-tile kernel has none then (with the look-back
//! removed it still reached only 82 % of the copy on an H200). Each lane copies exactly
//! the elements it later reads, so the stages need no barrier of their own.
//!
//! **One look-back.** Every look-back reads and writes tile statuses through one of three
//! stores with the same `publish` / `wait`: `StatusPacked` for a 4-byte accumulator
//! (status and value in one 64-bit word, so each look-back step is one load: the float
//! `cumsum` of 1e8 elements on an H100 took 483 µs with two dependent loads a step, 455
//! with one), `StatusPacked16` for an 8-byte one on a GPU (status and value in one aligned
//! 16-byte pair, one 128-bit access each: the float64 `cumsum` of 1e8 on an H200 went from
//! 627 to 484 µs), and `StatusSplit` for any other (a status word released after the value
//! is written, so any accumulator type works; the host device uses it for 8-byte ones too).
//! A packed word carries its value, so it is read and written relaxed — an acquire load
//! invalidates the SM's L1 and a release store fences (float32 on the H200: 262 → 247 µs). The tile scan's warp-wide window
//! (`lookback_in`) and the axis kernel's per-column walk use them. A waiting lane backs
//! off (`__nanosleep`, 8 ns doubling to 256): spinning loads slow the tiles being waited
//! for (455 → 442 µs).
//!
//! **The seam.** `BODY` reads only names its program's header defines: the element type
//! `Tin` and how it is loaded (`CUPRUM_SCAN_IN`, `CUPRUM_SCAN_ARGS`, `load_raw`,
//! `load_raw1`: [`ONE_INPUT`] for one array, [`input_access`] for a `ScanKernel`'s
//! inputs), the accumulator `A` with `load_a`, `ident` and `CUPRUM_OP`, the result `Tout`
//! with `out_of`, the shape constants and `EXCL` (exclusive: each position gets the
//! prefix before it) — all but the input access written by [`defs`] from [`ScanDefs`]
//! (whose [`ScanShape`] the device's tuning chose: `kernel/tuned.rs`).

use crate::array::DType;
use crate::kernel::program::vec_width;
use std::fmt::Write;

/// The shapes of a program's kernels (the tuned families of `kernel/tuned.rs`: their
/// candidates, the measurements behind the hand-picked ones, and how a device chooses):
/// items per thread and blocks per SM (`__launch_bounds__`' second argument) of the tile
/// scan (`ipt`, `minb`: a tile is 256 × `ipt`), of rows as segments (`sipt`, `sminb`) and
/// of the rows kernel (`ript`, `rminb`: a chunk is 256 × `ript`), the tiles prefetched
/// into L2 ahead (`pf`), the shared-memory stages of the persistent 1-D scan (`stages`: 0
/// runs the one-tile-a-block kernel), the axis kernel's positions per thread (`axipt`), and
/// whether the tile scan keeps a thread's raw inputs rather than their prefixes while it
/// looks back (`raw`: for inputs narrower than the accumulator, half the registers of an
/// int32 → int64 tile; the prefixes are formed again as the results are written), and
/// whether the vector loads take the accumulator's width rather than the input's
/// (`acc_vec`: an int32 → int64 lane then loads 8 bytes and stores its results as one
/// 16-byte vector, where 16-byte loads leave it two 16-byte stores 32 bytes apart, each
/// writing half of every sector it touches: [`ScanShape::vec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ScanShape {
    pub ipt: u32,
    pub minb: u32,
    pub pf: u32,
    pub stages: u32,
    pub raw: bool,
    pub acc_vec: bool,
    pub sipt: u32,
    pub sminb: u32,
    pub ript: u32,
    pub rminb: u32,
    pub axipt: u32,
}

impl ScanShape {
    /// Elements per vector load (`VECN`) of a scan of `input`-byte elements into an
    /// `acc`-byte accumulator: 16 bytes of input, or of accumulator under `acc_vec`.
    pub(crate) fn vec(&self, input: usize, acc: usize) -> usize {
        let v = vec_width(input);
        if self.acc_vec {
            v.min(vec_width(acc))
        } else {
            v
        }
    }
}

/// Whether `rows` rows of `len` elements are scanned a block per row (the rows kernel,
/// `ript` items per thread) rather than as the segments of one tile scan: when there are
/// enough rows to give most SMs one (128) and a row fills at least 3/8 of a chunk.
///
/// Measured in one run on an H100 (2026-11-27, float32, rows kernel against the segmented
/// tile scan, µs): (10000, 10000) 288 / 470, (1000, 100000) 303 / 458, (100000, 1000) 278 /
/// 456, (600, 1500) 9.1 / 15.1, (200, 500000) 390 / 452 — but (300000, 300) 581 / 415 (a
/// row fills 15 % of a chunk), (1000000, 100) 1961 / 464, (50, 2000000) 1020 / 456 (50
/// blocks cannot fill 132 SMs).
pub(crate) fn rows_kernel(rows: usize, len: usize, ript: u32) -> bool {
    rows >= 128 && 8 * len >= 3 * 256 * ript as usize
}

/// The C++ of the names [`BODY`] reads besides the input access: see the module doc.
/// Expressions are C++ text: `op` of `a` and `b`, `load` of `x` (a `const Tin&`), `out`
/// of `a` (a `const A&`).
#[derive(Debug, Clone)]
pub(crate) struct ScanDefs<'a> {
    /// The element type as loaded (`Tin`).
    pub tin: &'a str,
    /// The accumulator type (`A`).
    pub acc: &'a str,
    /// The result's element type (`Tout`).
    pub tout: &'a str,
    /// 64-bit indices (`I`), else 32-bit.
    pub wide: bool,
    /// The operator (`CUPRUM_OP(a, b)`).
    pub op: &'a str,
    /// One element's accumulator (`load_a`).
    pub load: &'a str,
    /// The identity (`ident`).
    pub ident: &'a str,
    /// The result of an accumulated value (`out_of`).
    pub out: &'a str,
    /// Exclusive (`EXCL`).
    pub exclusive: bool,
    /// Elements per vector load (`VECN`).
    pub vec: usize,
    /// The accumulator's size in bytes (its upper bound when `assert_acc`).
    pub acc_bytes: usize,
    /// Whether the program asserts `sizeof(A) <= acc_bytes` (a type only the compiler
    /// knows the size of).
    pub assert_acc: bool,
    /// The kernels' shapes.
    pub shape: ScanShape,
}

/// The header [`BODY`] reads (after the prelude and before the input access).
pub(crate) fn defs(d: &ScanDefs<'_>) -> String {
    let mut s = String::new();
    let bool_in = d.tin == "bool";
    let idx = if d.wide {
        "unsigned long long"
    } else {
        "unsigned int"
    };
    let _ = write!(
        s,
        "typedef {tin} Tin;\ntypedef {acc} A;\ntypedef {tout} Tout;\ntypedef {idx} I;\n\
         #define CUPRUM_OP(a, b) {op}\n\
         __device__ __forceinline__ A load_a(const Tin& {xin}) {{ {canon}return {load}; }}\n\
         __device__ __forceinline__ A ident() {{ return {ident}; }}\n\
         __device__ __forceinline__ Tout out_of(const A& a) {{ return {out}; }}\n",
        tin = d.tin,
        acc = d.acc,
        tout = d.tout,
        op = d.op,
        load = d.load,
        // a bool input is the value of its byte (indexer.cuh's `as_bool`)
        xin = if bool_in { "_x" } else { "x" },
        canon = if bool_in {
            "const bool x = cuprum::as_bool(_x); "
        } else {
            ""
        },
        ident = d.ident,
        out = d.out,
    );
    if d.assert_acc {
        let _ = writeln!(
            s,
            "static_assert(sizeof(A) <= {b}, \"the scan type is larger than {b} bytes\");",
            b = d.acc_bytes
        );
    }
    let _ = write!(
        s,
        "constexpr int VECN = {vec};\nconstexpr int IPT = {ipt};\nconstexpr int SEG_IPT = {sipt};\n\
         constexpr int AXIPT = {axipt};\nconstexpr int SCAN_MINB = {minb};\nconstexpr int SEG_MINB = {sminb};\n\
         constexpr bool EXCL = {excl};\nconstexpr unsigned SCAN_PF = {pf};\n\
         constexpr int ROW_IPT = {ript};\nconstexpr int ROW_MINB = {rminb};\n\
         constexpr int SCAN_STAGES = {stages};\nconstexpr bool SCAN_RAW = {raw};\n",
        vec = d.vec,
        ipt = d.shape.ipt,
        sipt = d.shape.sipt,
        axipt = d.shape.axipt,
        minb = d.shape.minb,
        sminb = d.shape.sminb,
        excl = d.exclusive,
        pf = d.shape.pf,
        ript = d.shape.ript,
        rminb = d.shape.rminb,
        stages = d.shape.stages,
        raw = d.shape.raw,
    );
    s
}

/// The persistent kernel's stage copy of one array `SRC` (an expression naming a pointer
/// to elements of `Tin`'s size): the VEC elements at i0 into `dst` in shared memory,
/// asynchronously where the GPU has `cp.async` (`rt::cp_async`; the engine runs that
/// kernel only for aligned arrays), else through `load_raw` (the tail: zeros past n).
macro_rules! stage_copy_of {
    ($src:literal) => {
        concat!(
            r#"
template <int VEC> __device__ __forceinline__ void stage_copy(CUPRUM_SCAN_IN, I i0, I n, Tin* dst) {
  if (i0 + VEC <= n && rt::cp_async<VEC * (int)sizeof(Tin)>(dst, "#,
            $src,
            r#" + i0)) return;
  load_raw<VEC>(CUPRUM_SCAN_ARGS, i0, n, dst);
}
"#
        )
    };
}

/// The input access of one array `x` of `Tin` (`cumsum`, `cumprod`).
pub(crate) const ONE_INPUT: &str = concat!(
    r#"
#define CUPRUM_SCAN_IN const Tin* __restrict__ x
#define CUPRUM_SCAN_ARGS x
template <int VEC> __device__ __forceinline__ void load_full(CUPRUM_SCAN_IN, I i0, Tin* raw) {
  rt::load_vec<Tin, VEC>(x + i0, raw); }
template <int VEC> __device__ __forceinline__ void load_raw(CUPRUM_SCAN_IN, I i0, I n, Tin* raw) {
  if (VEC > 1 && i0 + VEC <= n) {
    load_full<VEC>(CUPRUM_SCAN_ARGS, i0, raw);
  } else {
#pragma unroll
    for (int b = 0; b < VEC; ++b) raw[b] = (i0 + b < n) ? x[i0 + b] : Tin();
  } }
__device__ __forceinline__ Tin load_raw1(CUPRUM_SCAN_IN, I i) { return x[i]; }
__device__ __forceinline__ void prefetch_in(CUPRUM_SCAN_IN, unsigned long long i0, unsigned long long cnt, I n) {
  rt::prefetch_l2(x, i0, cnt, (unsigned long long)n); }"#,
    stage_copy_of!("x")
);

/// The input access for a `ScanKernel`'s `inputs` (name, dtype, by value), whose `Tin` is
/// a struct of one field per input: the kernels' input parameters (`_in0`, `_in1`, …: the
/// arrays, then the values, as the engine passes them), vector loads of each array into the
/// element struct, and one element at an index.
pub(crate) fn input_access(inputs: &[(&str, DType, bool)]) -> String {
    let (arrays, values): (Vec<_>, Vec<_>) = inputs.iter().enumerate().partition(|(_, i)| !i.2);
    let params: Vec<String> = arrays
        .iter()
        .map(|(k, i)| format!("const {}* __restrict__ _in{k}", i.1.c_type()))
        .chain(
            values
                .iter()
                .map(|(k, i)| format!("const {} _in{k}", i.1.c_type())),
        )
        .collect();
    let args: Vec<String> = arrays
        .iter()
        .chain(&values)
        .map(|(k, _)| format!("_in{k}"))
        .collect();
    let mut s = format!(
        "#define CUPRUM_SCAN_IN {}\n#define CUPRUM_SCAN_ARGS {}\n\
         template <int VEC> __device__ __forceinline__ void load_full(CUPRUM_SCAN_IN, I i0, Tin* raw) {{\n",
        params.join(", "),
        args.join(", ")
    );
    for (k, (name, d, _)) in &arrays {
        let c = d.c_type();
        let _ = writeln!(
            s,
            "  {{ {c} v[VEC]; rt::load_vec<{c}, VEC>(_in{k} + i0, v);\n\
             #pragma unroll\n  for (int b = 0; b < VEC; ++b) raw[b].{name} = v[b]; }}"
        );
    }
    let set_values = |s: &mut String| {
        for (k, (name, _, _)) in &values {
            let _ = writeln!(
                s,
                "#pragma unroll\n  for (int b = 0; b < VEC; ++b) raw[b].{name} = _in{k};"
            );
        }
    };
    set_values(&mut s);
    s.push_str(
        "}\ntemplate <int VEC> __device__ __forceinline__ void load_raw(CUPRUM_SCAN_IN, I i0, I n, Tin* raw) {\n\
         \x20 if (VEC > 1 && i0 + VEC <= n) {\n    load_full<VEC>(CUPRUM_SCAN_ARGS, i0, raw);\n",
    );
    s.push_str("  } else {\n#pragma unroll\n    for (int b = 0; b < VEC; ++b) {\n      raw[b] = Tin();\n      if (i0 + b < n) {");
    for (k, (name, _, _)) in &arrays {
        let _ = write!(s, " raw[b].{name} = _in{k}[i0 + b];");
    }
    s.push_str(" }\n    }\n  }\n");
    set_values(&mut s);
    s.push_str("}\n__device__ __forceinline__ Tin load_raw1(CUPRUM_SCAN_IN, I i) {\n  Tin r;");
    for (k, (name, _, _)) in &arrays {
        let _ = write!(s, " r.{name} = _in{k}[i];");
    }
    for (k, (name, _, _)) in &values {
        let _ = write!(s, " r.{name} = _in{k};");
    }
    s.push_str(" return r; }\n");
    // The persistent kernel's stage copy: asynchronous for one array and no values (`Tin`
    // is then a struct of one field, laid out as the array's elements; the engine runs
    // the kernel only then: [`stages_async`]), else synchronous.
    if stages_async(inputs) {
        s.push_str(stage_copy_of!("_in0"));
    } else {
        s.push_str(
            "template <int VEC> __device__ __forceinline__ void stage_copy(CUPRUM_SCAN_IN, I i0, I n, Tin* dst) {\n\
             \x20 load_raw<VEC>(CUPRUM_SCAN_ARGS, i0, n, dst); }\n",
        );
    }
    s.push_str("__device__ __forceinline__ void prefetch_in(CUPRUM_SCAN_IN, unsigned long long i0, unsigned long long cnt, I n) {");
    for (k, _) in &arrays {
        let _ = write!(
            s,
            " rt::prefetch_l2(_in{k}, i0, cnt, (unsigned long long)n);"
        );
    }
    s.push_str(" }\n");
    s
}

/// Whether a `ScanKernel`'s inputs (name, dtype, by value) copy into the persistent
/// kernel's stages asynchronously: one array and nothing by value.
pub(crate) fn stages_async(inputs: &[(&str, DType, bool)]) -> bool {
    inputs.len() == 1 && !inputs[0].2
}

/// The engine: every entry point, written against the names [`defs`] and the input access
/// define.
pub(crate) const BODY: &str = r#"
// A value and whether a segment (row) starts inside the range it covers.
struct P { A v; unsigned h; };
__device__ __forceinline__ P pid() { P r; r.v = ident(); r.h = 0u; return r; }
template <bool SEG> __device__ __forceinline__ P comb(const P& a, const P& b) {
  P r; r.h = SEG ? (a.h | b.h) : 0u;
  if (SEG && b.h) r.v = b.v; else r.v = CUPRUM_OP(a.v, b.v);
  return r; }
// Without segments the flag is always 0: not shuffled, so the compiler drops it.
template <bool SEG> __device__ __forceinline__ P shfl_up_p(const P& p, unsigned d) {
  P r; r.v = rt::shfl_up(p.v, d); r.h = SEG ? __shfl_up_sync(rt::FULL, p.h, d) : 0u; return r; }
template <bool SEG> __device__ __forceinline__ P shfl_down_p(const P& p, unsigned d) {
  P r; r.v = rt::shfl_down(p.v, d); r.h = SEG ? __shfl_down_sync(rt::FULL, p.h, d) : 0u; return r; }
template <bool SEG> __device__ __forceinline__ P shfl_idx_p(const P& p, int src) {
  P r; r.v = rt::shfl_idx(p.v, src); r.h = SEG ? __shfl_sync(rt::FULL, p.h, src) : 0u; return r; }

// Decoupled look-back. A tile's status: bits 0-1 = 1 (its aggregate is published) or 2 (its
// inclusive prefix is), bit 2 = a segment starts in the tile; the value is written before
// the status is released and read after it is acquired. Two stores of statuses:
// `StatusPacked` (a 4-byte accumulator: status in the high half, value in the low half of
// one 64-bit word per tile, so each step of the look-back is one load, not a status load
// followed by a value load) and `StatusSplit` (any accumulator: a status word apart from
// the aggregates and inclusive prefixes). A lane waiting for a predecessor backs off
// (`__nanosleep`, 8 ns doubling to 256): spinning loads slow the tiles being waited for.
__device__ __forceinline__ void backoff(unsigned& ns) { __nanosleep(ns); ns = ns < 256u ? 2u * ns : ns; }
__device__ __forceinline__ unsigned long long packw(unsigned st, A v) {
  unsigned u = 0; memcpy(&u, &v, sizeof(A) < 4 ? sizeof(A) : 4);
  return ((unsigned long long)st << 32) | u; }
__device__ __forceinline__ A unpackv(unsigned long long w) {
  const unsigned u = (unsigned)w; A v = ident(); memcpy(&v, &u, sizeof(A) < 4 ? sizeof(A) : 4); return v; }
// A packed word carries its own value, so it is read and written relaxed: no fence, no
// L1 invalidation (an acquire load's) on the look-back's path.
struct StatusPacked {
  unsigned long long* words;
  __device__ __forceinline__ void publish(unsigned long long t, unsigned st, const A& v) const {
    rt::st_relaxed(&words[t], packw(st, v)); }
  // Waits until tile t has published; returns its status, its value in v.
  __device__ __forceinline__ unsigned wait(unsigned long long t, A& v) const {
    unsigned long long w; unsigned f; unsigned ns = 8;
    while (true) {
      w = rt::ld_relaxed(&words[t]); f = (unsigned)(w >> 32);
      if ((f & 3u) != 0u) break;
      backoff(ns);
    }
    v = unpackv(w); return f; }
};
#ifndef __CUPRUM_HOST__
// An 8-byte accumulator: status and value in one aligned 16-byte pair, written and read
// by one 128-bit access each (relaxed, as `StatusPacked`).
struct StatusPacked16 {
  unsigned long long* words;
  __device__ __forceinline__ void publish(unsigned long long t, unsigned st, const A& v) const {
    unsigned long long u = 0; memcpy(&u, &v, sizeof(A) < 8 ? sizeof(A) : 8);
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
                 :: "l"(words + 2 * t), "l"((unsigned long long)st), "l"(u) : "memory"); }
  __device__ __forceinline__ unsigned wait(unsigned long long t, A& v) const {
    unsigned long long f, u; unsigned ns = 8;
    while (true) {
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(f), "=l"(u) : "l"(words + 2 * t) : "memory");
      if ((f & 3u) != 0u) break;
      backoff(ns);
    }
    v = ident(); memcpy(&v, &u, sizeof(A) < 8 ? sizeof(A) : 8); return (unsigned)f; }
};
#endif
struct StatusSplit {
  unsigned* flags; A* aggs; A* incs;
  __device__ __forceinline__ void publish(unsigned long long t, unsigned st, const A& v) const {
    if ((st & 3u) == 2u) incs[t] = v; else aggs[t] = v;
    rt::st_release(&flags[t], st); }
  // Waits until tile t has published; returns its status (the value is then in incs[t]
  // or aggs[t]).
  __device__ __forceinline__ unsigned wait_status(unsigned long long t) const {
    unsigned f; unsigned ns = 8;
    while (((f = rt::ld_acquire(&flags[t])) & 3u) == 0u) backoff(ns);
    return f; }
  __device__ __forceinline__ unsigned wait(unsigned long long t, A& v) const {
    const unsigned f = wait_status(t);
    v = ((f & 3u) == 2u) ? incs[t] : aggs[t]; return f; }
};

// The look-back of tile `tile` by one warp over the statuses in `st`: publishes the tile's
// aggregate `tot`, reads the predecessors' statuses 32 tiles at a time (lane k the k-th
// before the window's start) until one holds an inclusive prefix (or, SEG, a segment start),
// combines the window, publishes the tile's inclusive prefix; returns the exclusive prefix.
template <bool SEG, typename S>
__device__ P lookback_in(const S& st, unsigned tile, P tot, int lane) {
  if (tile == 0) {
    if (lane == 0) st.publish(0, 2u | (tot.h ? 4u : 0u), tot.v);
    return pid();
  }
  if (lane == 0) st.publish(tile, 1u | (tot.h ? 4u : 0u), tot.v);
  P run = pid();
  long long t = (long long)tile - 1 - lane;
  while (true) {
    unsigned f = 2u;
    P e = pid();
    if (t >= 0) {
      f = st.wait((unsigned long long)t, e.v);
      e.h = SEG ? (f >> 2) & 1u : 0u;
    }
    const bool term = ((f & 3u) == 2u) || (SEG && e.h);
    const unsigned tm = __ballot_sync(rt::FULL, term);
    const int first = tm ? __ffs(tm) - 1 : 32;
    if (lane > first) e = pid();
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const P o = shfl_down_p<SEG>(e, d);
      if (lane + d < 32) e = comb<SEG>(o, e);
    }
    run = comb<SEG>(shfl_idx_p<SEG>(e, 0), run);
    if (tm) break;
    t -= 32;
  }
  if (lane == 0) {
    const P inc = comb<SEG>(run, tot);
    st.publish(tile, 2u | (inc.h ? 4u : 0u), inc.v);
  }
  return run;
}

template <bool SEG>
__device__ P lookback(unsigned tile, P tot, unsigned* flags, A* aggs, A* incs, int lane) {
  if constexpr (sizeof(A) == 4) {
    // `flags` holds one 64-bit word per tile here (16 bytes a tile: see `scan_engine.rs`).
    return lookback_in<SEG>(StatusPacked{reinterpret_cast<unsigned long long*>(flags)}, tile, tot, lane);
#ifndef __CUPRUM_HOST__
  } else if constexpr (sizeof(A) == 8) {
    return lookback_in<SEG>(StatusPacked16{reinterpret_cast<unsigned long long*>(flags)}, tile, tot, lane);
#endif
  } else {
    return lookback_in<SEG>(StatusSplit{flags, aggs, incs}, tile, tot, lane);
  }
}

// The pieces of a tile (or a row's chunk) of 8 warps × WSEG elements from `wbase` (the
// warp's first): each lane holds ROWS rows of VEC consecutive elements of a 32-lane row.
// Loads each lane's elements (zeros past `n`; `tile_load`: and scans them, SEG: `m` the
// position in its segment of `len`). Every row's loads are issued before any is used (a
// warp whose rows are all inside takes them unchecked), so they are in flight together.
template <int VEC, int ROWS>
__device__ __forceinline__ void tile_raws(CUPRUM_SCAN_IN, I wbase, I n, int lane, Tin (&raws)[ROWS][VEC]) {
  if (VEC > 1 && wbase + (I)(ROWS * 32 * VEC) <= n) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) load_full<VEC>(CUPRUM_SCAN_ARGS, wbase + (I)(r * 32 * VEC + lane * VEC), raws[r]);
  } else {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) load_raw<VEC>(CUPRUM_SCAN_ARGS, wbase + (I)(r * 32 * VEC + lane * VEC), n, raws[r]);
  }
}
template <bool SEG, int VEC, int ROWS>
__device__ __forceinline__ void tile_load(CUPRUM_SCAN_IN, I wbase, I n, I len, int lane, P (&s)[ROWS][VEC]) {
  Tin raws[ROWS][VEC];
  tile_raws<VEC, ROWS>(CUPRUM_SCAN_ARGS, wbase, n, lane, raws);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    const Tin* raw = raws[r];
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
}

// The warp's prefixes from each lane's total of each row (`last`): `lex[r]` before the
// lane in row r, `rp[r]` of the rows before r; returns the warp's total.
template <bool SEG, int ROWS>
__device__ __forceinline__ P warp_prefixes_of(const P (&last)[ROWS], int lane, P (&lex)[ROWS], P (&rp)[ROWS]) {
  P rtot[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    P c = last[r];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const P o = shfl_up_p<SEG>(c, d);
      if (lane >= d) c = comb<SEG>(o, c);
    }
    const P e = shfl_up_p<SEG>(c, 1);
    lex[r] = lane == 0 ? pid() : e;
    rtot[r] = shfl_idx_p<SEG>(c, 31);
  }
  rp[0] = pid();
#pragma unroll
  for (int r = 1; r < ROWS; ++r) rp[r] = comb<SEG>(rp[r - 1], rtot[r - 1]);
  return comb<SEG>(rp[ROWS - 1], rtot[ROWS - 1]);
}
// The same from each lane's inclusive prefixes of its rows (`s`).
template <bool SEG, int VEC, int ROWS>
__device__ __forceinline__ P warp_prefixes(const P (&s)[ROWS][VEC], int lane, P (&lex)[ROWS], P (&rp)[ROWS]) {
  P last[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) last[r] = s[r][VEC - 1];
  return warp_prefixes_of<SEG, ROWS>(last, lane, lex, rp);
}

// A lane's VEC results from i0: one vector store where all are inside, else one by one.
template <int VEC>
__device__ __forceinline__ void store_row(Tout* __restrict__ y, I i0, I n, const Tout (&o)[VEC]) {
  if (VEC > 1 && i0 + VEC <= n) {
    rt::store_vec<Tout, VEC>(y + i0, o);
  } else {
#pragma unroll
    for (int b = 0; b < VEC; ++b) if (i0 + b < n) y[i0 + b] = o[b];
  }
}

// Writes each element's result, given `tex`, the prefix before the warp's first element.
template <bool SEG, int VEC, int ROWS>
__device__ __forceinline__ void tile_store(Tout* __restrict__ y, I wbase, I n, I len, int lane, const P& tex,
    const P (&s)[ROWS][VEC], const P (&lex)[ROWS], const P (&rp)[ROWS]) {
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
    store_row<VEC>(y, i0, n, o);
  }
}

// `tile_store` from the lanes' raw inputs (`SCAN_RAW`: inclusive, no segments): each
// element's prefix formed again on the way out.
template <int VEC, int ROWS>
__device__ __forceinline__ void tile_store_raw(Tout* __restrict__ y, I wbase, I n, int lane, const P& tex,
    const Tin (&raws)[ROWS][VEC], const P (&lex)[ROWS], const P (&rp)[ROWS]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    A run = comb<false>(comb<false>(tex, rp[r]), lex[r]).v;
    Tout o[VEC];
#pragma unroll
    for (int b = 0; b < VEC; ++b) {
      run = CUPRUM_OP(run, i0 + b < n ? load_a(raws[r][b]) : ident());
      o[b] = out_of(run);
    }
    store_row<VEC>(y, i0, n, o);
  }
}

template <bool SEG, int VEC>
__device__ __forceinline__ void scan_tile(CUPRUM_SCAN_IN, Tout* __restrict__ y, I n, I len,
    unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs, unsigned* __restrict__ counter) {
  constexpr int TIPT = SEG ? SEG_IPT : IPT;
  constexpr int ROWS = TIPT / VEC;
  constexpr int WSEG = 32 * TIPT;
  constexpr int TILE = 8 * WSEG;
  __shared__ unsigned s_tile;
  __shared__ P s_warp[8];
  __shared__ P s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  if (SCAN_PF > 0) prefetch_in(CUPRUM_SCAN_ARGS, (unsigned long long)(tile + SCAN_PF) * TILE, TILE, n);
  const I wbase = (I)tile * (I)TILE + (I)(warp * WSEG);
  // A thread keeps its raw inputs (`SCAN_RAW`: narrower than the accumulator; inclusive
  // scans without segments, `cumsum` and `cumprod`) or its prefixes while the tile looks back.
  constexpr bool RAW = SCAN_RAW && !SEG && !EXCL && sizeof(Tin) < sizeof(A);
  P s[RAW ? 1 : ROWS][VEC];
  Tin raws[RAW ? ROWS : 1][VEC];
  P lex[ROWS], rp[ROWS];
  P wtot;
  if constexpr (RAW) {
    tile_raws<VEC, ROWS>(CUPRUM_SCAN_ARGS, wbase, n, lane, raws);
    P last[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
      A t = ident();
#pragma unroll
      for (int b = 0; b < VEC; ++b) t = CUPRUM_OP(t, i0 + b < n ? load_a(raws[r][b]) : ident());
      last[r].v = t; last[r].h = 0u;
    }
    wtot = warp_prefixes_of<false, ROWS>(last, lane, lex, rp);
  } else {
    tile_load<SEG, VEC, ROWS>(CUPRUM_SCAN_ARGS, wbase, n, len, lane, s);
    wtot = warp_prefixes<SEG, VEC, ROWS>(s, lane, lex, rp);
  }
  if (lane == 0) s_warp[warp] = wtot;
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
  if constexpr (RAW) {
    tile_store_raw<VEC, ROWS>(y, wbase, n, lane, comb<SEG>(s_excl, wex), raws, lex, rp);
  } else {
    tile_store<SEG, VEC, ROWS>(y, wbase, n, len, lane, comb<SEG>(s_excl, wex), s, lex, rp);
  }
}

// Rows of `len` elements, a block per row: the block walks its row in chunks of
// 256 · ROW_IPT elements with a running carry (no look-back, no other block waited for).
template <int VEC>
__device__ __forceinline__ void scan_rows(CUPRUM_SCAN_IN, Tout* __restrict__ y, I rows, I len) {
  constexpr int ROWS = ROW_IPT / VEC;
  constexpr int WSEG = 32 * ROW_IPT;
  constexpr int CH = 8 * WSEG;
  __shared__ P s_warp[2][8];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int buf = 0;
  for (I row = (I)blockIdx.x; row < rows; row += (I)gridDim.x) {
    const I base = row * len, end = base + len;
    P carry = pid();
    for (I c0 = 0; c0 < len; c0 += (I)CH, buf ^= 1) {
      const I wbase = base + c0 + (I)(warp * WSEG);
      P s[ROWS][VEC];
      tile_load<false, VEC, ROWS>(CUPRUM_SCAN_ARGS, wbase, end, len, lane, s);
      P lex[ROWS], rp[ROWS];
      const P wtot = warp_prefixes<false, VEC, ROWS>(s, lane, lex, rp);
      if (lane == 0) s_warp[buf][warp] = wtot;
      // One barrier a chunk: the warp totals alternate between two buffers, so a chunk's
      // are not overwritten before every warp has read them.
      __syncthreads();
      P wex = pid(), tot = pid();
#pragma unroll
      for (int w = 0; w < 8; ++w) {
        if (w < warp) wex = comb<false>(wex, s_warp[buf][w]);
        tot = comb<false>(tot, s_warp[buf][w]);
      }
      tile_store<false, VEC, ROWS>(y, wbase, end, len, lane, comb<false>(carry, wex), s, lex, rp);
      carry = comb<false>(carry, tot);
    }
  }
}

#define CUPRUM_SCAN_ENTRY(NAME, SEG, VEC) \
extern "C" __global__ void __launch_bounds__(256, (SEG) ? SEG_MINB : SCAN_MINB) NAME(CUPRUM_SCAN_IN, Tout* __restrict__ y, I n, I len, \
    unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs, unsigned* __restrict__ counter) { \
  scan_tile<SEG, VEC>(CUPRUM_SCAN_ARGS, y, n, len, flags, aggs, incs, counter); }
CUPRUM_SCAN_ENTRY(cuprum_scan_v, false, VECN)
CUPRUM_SCAN_ENTRY(cuprum_scan_1, false, 1)
CUPRUM_SCAN_ENTRY(cuprum_scan_seg_v, true, VECN)
CUPRUM_SCAN_ENTRY(cuprum_scan_seg_1, true, 1)
// The persistent 1-D scan (`SCAN_STAGES` > 0, one array input, whose stage copies are
// asynchronous; the other programs have it too, unlaunched): as many blocks as the GPU
// holds at once, each taking tile after tile by ticket and keeping the input of its next
// SCAN_STAGES - 1 tiles in flight, copied asynchronously into a ring of shared-memory
// stages while the current tile is scanned, looked back and written, so the loads of a
// block never wait behind its look-back. Every lane copies exactly the elements it later
// reads (the tile's layout: a warp's rows of 32 lanes × VEC), so a stage needs no barrier
// of its own: the lane's `cp.async.wait_group` makes its copies visible to it, and it
// refills a slot only after reading it. A block's tickets grow in the order it scans them,
// so the tile with the lowest unfinished ticket always runs and the look-back cannot wait
// forever. Shared memory: SCAN_STAGES × 256 · IPT elements of Tin (dynamic, the launch's).

// Issues the copies of the lane's elements of the warp's part of a tile (from `wbase`).
template <int VEC, int ROWS>
__device__ __forceinline__ void stage_tile(CUPRUM_SCAN_IN, I wbase, I n, int lane, Tin* st) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int o = r * 32 * VEC + lane * VEC;
    stage_copy<VEC>(CUPRUM_SCAN_ARGS, wbase + (I)o, n, st + o);
  }
  rt::cp_async_commit();
}
// The lane's elements of a staged tile, scanned per lane (as `tile_load` does from memory).
template <int VEC, int ROWS>
__device__ __forceinline__ void stage_read(const Tin* st, I wbase, I n, int lane, P (&s)[ROWS][VEC]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int o = r * 32 * VEC + lane * VEC;
    Tin raw[VEC];
    constexpr int RB = VEC * (int)sizeof(Tin);
    if constexpr (RB == 16 || RB == 8 || RB == 4) {
      rt::load_vec<Tin, VEC>(st + o, raw);
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) raw[b] = st[o + b];
    }
    const I i0 = wbase + (I)o;
#pragma unroll
    for (int b = 0; b < VEC; ++b) {
      P e; e.v = (i0 + b < n) ? load_a(raw[b]) : ident(); e.h = 0u;
      s[r][b] = (b == 0) ? e : comb<false>(s[r][b - 1], e);
    }
  }
}
extern "C" __global__ void __launch_bounds__(256, SCAN_MINB) cuprum_scan_pv(CUPRUM_SCAN_IN, Tout* __restrict__ y,
    I n, I len, unsigned* __restrict__ flags, A* __restrict__ aggs, A* __restrict__ incs,
    unsigned* __restrict__ counter) {
  constexpr int S = SCAN_STAGES > 0 ? SCAN_STAGES : 1;
  constexpr int ROWS = IPT / VECN;
  constexpr int WSEG = 32 * IPT;
  constexpr int TILE = 8 * WSEG;
  extern __shared__ __align__(16) unsigned char cuprum_scan_stages[];
  Tin* const stages = reinterpret_cast<Tin*>(cuprum_scan_stages);
  __shared__ unsigned s_tick[S];
  __shared__ P s_warp[8];
  __shared__ P s_excl;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned long long tiles = ((unsigned long long)n + TILE - 1) / TILE;
  if (threadIdx.x == 0) {
    for (int k = 0; k < S; ++k) s_tick[k] = atomicAdd(counter, 1u);
  }
  __syncthreads();
  for (int k = 0; k < S; ++k) {
    const unsigned t = s_tick[k];
    if (t < tiles) {
      stage_tile<VECN, ROWS>(CUPRUM_SCAN_ARGS, (I)t * (I)TILE + (I)(warp * WSEG), n, lane,
                             stages + (k * 8 + warp) * WSEG);
    } else {
      rt::cp_async_commit();
    }
  }
  for (int k = 0;; k = (k + 1 == S) ? 0 : k + 1) {
    const unsigned tile = s_tick[k];
    if (tile >= tiles) break;
    const I wbase = (I)tile * (I)TILE + (I)(warp * WSEG);
    Tin* const st = stages + (k * 8 + warp) * WSEG;
    // The oldest of the lane's S groups in flight is this tile's.
    rt::cp_async_wait<S - 1>();
    P s[ROWS][VECN];
    stage_read<VECN, ROWS>(st, wbase, n, lane, s);
    P lex[ROWS], rp[ROWS];
    const P wtot = warp_prefixes<false, VECN, ROWS>(s, lane, lex, rp);
    if (lane == 0) s_warp[warp] = wtot;
    __syncthreads();
    P wex = pid();
    for (int w = 0; w < warp; ++w) wex = comb<false>(wex, s_warp[w]);
    if (warp == 0) {
      P tot = pid();
#pragma unroll
      for (int w = 0; w < 8; ++w) tot = comb<false>(tot, s_warp[w]);
      const P ex = lookback<false>(tile, tot, flags, aggs, incs, lane);
      if (lane == 0) {
        s_excl = ex;
        s_tick[k] = atomicAdd(counter, 1u);
      }
    }
    __syncthreads();
    // The slot's elements are in registers: refill it with the stage's next tile.
    const unsigned next = s_tick[k];
    if (next < tiles) {
      stage_tile<VECN, ROWS>(CUPRUM_SCAN_ARGS, (I)next * (I)TILE + (I)(warp * WSEG), n, lane, st);
    } else {
      rt::cp_async_commit();
    }
    tile_store<false, VECN, ROWS>(y, wbase, n, len, lane, comb<false>(s_excl, wex), s, lex, rp);
  }
  rt::cp_async_wait<0>();
}

#define CUPRUM_SCAN_ROWS_ENTRY(NAME, VEC) \
extern "C" __global__ void __launch_bounds__(256, ROW_MINB) NAME(CUPRUM_SCAN_IN, Tout* __restrict__ y, I rows, I len) { \
  scan_rows<VEC>(CUPRUM_SCAN_ARGS, y, rows, len); }
CUPRUM_SCAN_ROWS_ENTRY(cuprum_scan_rows_v, VECN)
CUPRUM_SCAN_ROWS_ENTRY(cuprum_scan_rows_1, 1)

// An axis that is not the last (x viewed as (outer, len, inner), columns c = (o, r)): a tile
// is 32 adjacent columns × AXR consecutive positions along the axis. Thread (cx, gy) holds
// AXIPT positions of column cx, so a warp reads 32 adjacent elements per position (coalesced)
// and every thread keeps AXIPT loads in flight. Tiles take tickets in axis-major order, so
// every tile's predecessors along the axis have started; warp 0 then looks back per column
// (one lane per column) over the predecessors' aggregates / inclusive prefixes.
constexpr int AXG = 8;
constexpr int AXR = AXG * AXIPT;
// One lane per column walks back over the tiles above it, one at a time, through a packed
// store (one load a step); publishes the cell's aggregate, then its inclusive prefix, and
// returns the prefix before the cell.
template <typename S>
__device__ A axis_walk(const S& st, unsigned long long me, unsigned long long cols, unsigned long long at, const A& agg) {
  if (at == 0) { st.publish(me, 2u, agg); return ident(); }
  st.publish(me, 1u, agg);
  A run = ident();
  for (unsigned long long t = me - cols;; t -= cols) {
    A v = ident();
    const unsigned f = st.wait(t, v);
    run = CUPRUM_OP(v, run);
    if ((f & 3u) == 2u) break;
  }
  st.publish(me, 2u, CUPRUM_OP(run, agg));
  return run;
}
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
      if constexpr (sizeof(A) == 4) {
        run = axis_walk(StatusPacked{reinterpret_cast<unsigned long long*>(flags)}, me, cols, at, agg);
#ifndef __CUPRUM_HOST__
      } else if constexpr (sizeof(A) == 8) {
        run = axis_walk(StatusPacked16{reinterpret_cast<unsigned long long*>(flags)}, me, cols, at, agg);
#endif
      } else {
        // The statuses of `StatusSplit` (the value loaded in the branch that uses it: a
        // select of the two loads cost the float32 kernel 14 registers).
        const StatusSplit st{flags, aggs, incs};
        if (at == 0) {
          st.publish(me, 2u, agg);
        } else {
          st.publish(me, 1u, agg);
          unsigned long long t = me - cols;
          while (true) {
            const unsigned f = st.wait_status(t);
            if (f == 2u) { run = CUPRUM_OP(incs[t], run); break; }
            run = CUPRUM_OP(aggs[t], run);
            t -= cols;
          }
          st.publish(me, 2u, CUPRUM_OP(run, agg));
        }
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
}"#;
