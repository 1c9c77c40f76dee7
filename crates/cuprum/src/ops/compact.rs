//! Stream compaction: the selected elements of a contiguous array in order (boolean-mask
//! reads), or the positions of the non-zero elements (`nonzero`), in one pass.
//!
//! A block takes the next *run* of tiles (an atomic ticket; how many, and the blocks per SM
//! or the prefetch distance, are tuned per device: [`COMPACT_VALUES`], [`COMPACT_NONZERO`]). It first loads the flags of the whole run once
//! with coalesced vector loads, keeps them in shared memory (a byte each) and counts them
//! per warp with ballots; it asks for the first tile's values, publishes the run's count
//! and looks back over the predecessors' counts (one 64-bit status word per run: 2 flag
//! bits + the count) for its output offset. Then, tile by tile, it ranks the selected
//! elements from the kept flags (a lane's rank is the number of selected elements before it
//! in its 32-lane row plus the rows before), stages them in shared memory and writes them
//! out as one contiguous, coalesced run. The last run writes the total, the one number the
//! host reads.
//!
//! Why runs: with one tile per look-back (the design before, a tile's flags and values in
//! registers), `ncu` on an H100 showed half of the cycles stalled at the barrier behind the
//! look-back and the float32 `compress` of 1e8 by a half-true mask took 366–377 µs (62 % of
//! the copy). A run's look-back needs only its flags, read first, while its values are
//! already on their way; and a run waits once for four tiles' worth of work.

use super::programs::{
    PRELUDE, Program, aligned, bits_type, fits_u32, program, program_options, ptr_at, read_u64,
    vec_width, zeroed_scratch,
};
use super::tune_inputs::{half_mask, keys};
use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::kernel::ByValue;
use crate::runtime::Device;
use crate::tune::{self, Family, Params, Runner, with_choice};
use std::fmt::Write;
use std::sync::Arc;

/// Most dimensions whose coordinates one compaction pass writes.
pub(crate) const MAX_ND: usize = 8;

/// The value compaction's tuned shape: the tiles a block takes at once (its run) and the
/// blocks per SM its registers are held to (`__launch_bounds__`); the first candidate is
/// the H100's hand-picked one. Measured on an H100 (2026-11-27, one run
/// each, `compress100M_f32_half`, µs), (tiles, blocks): (4, 6) 301–314, (4, 5) 317–324,
/// (3, 6) 323, (5, 5) 325, (3, 7) 325–327, (6, 4) 316–332, (2, 8) 333, (4, 4) 347, (2, 9)
/// 362, (1, 5) 443 (one tile per run without the prefetch below; 373 with it). Held to 6
/// blocks the run's flags (16 KiB) and the stage (16 KiB) leave room for no more. Asking
/// L2 for the next tile's values as a tile starts: (4, 6) 314 → 301; but an L2 prefetch of
/// whole runs ahead (what the tiles of one look-back each gained from), 16 runs: 324 → 398.
/// Loading the next tile's values into registers ahead: slower at every shape (370 for (4,
/// 6): spills); issuing them once the tile is staged, before it is written: 302 → 302.
///
/// The miss against the issue's 85 %: `ncu` (H100, 2026-11-27, the kernel of (4, 6)):
/// DRAM throughput 74.8 % of peak, 40 registers, 6 blocks per SM (registers and shared
/// memory both allow 6), achieved occupancy 73 %; a warp issues every 22.4 cycles and 36 %
/// of that is waiting for global loads (long scoreboard): a block's tiles run one after
/// another, each waiting for its values, and six blocks do not keep enough bytes in flight.
/// The next step is loads that do not occupy the warps: the candidates with a third value
/// (ring tiles) copy the run's values asynchronously (`cp.async`) into a ring of that many
/// tiles of shared memory (16 KiB each), the first ones before the flags are read, so a
/// tile's values arrive while the tiles before it are ranked and written; the ring costs
/// blocks per SM (16 KiB of flags, 16 KiB of stage and the ring a block). Measured by
/// `cuprum tune` on an H100 (2026-12-05, the family's problem, µs): the ring candidates
/// 150–189 against 118–129 for the others ((3, 6) 118.1, the first 119.2): the ring's
/// shared memory costs more blocks per SM than its loads in flight give back.
///
/// A third value with bit 4 set ([`BALLOT_FLAGS`]; the ring's tiles in the low four bits)
/// keeps the run's flags as the warps' ballot words: 2 KiB a run of four tiles instead of
/// 16 KiB, and the second pass over a tile reads a word a row instead of a byte a lane
/// followed by a ballot, so a tile's ranking issues fewer instructions and the ring costs
/// fewer blocks per SM. Measured by `cuprum tune` on an H100 (2026-12-06, µs): (4, 6, 16)
/// 120.0 against 119.8 for (4, 6, 0), (6, 6, 16) 121.8 — the ranking is not what the tiles
/// wait for — so the values keep bytes (`nonzero`'s flags gained: [`COMPACT_NONZERO`]).
///
/// A third value with bit 5 set ([`WIDE_FLAGS`]) loads the run's byte flags with one load
/// of a lane's whole part of each tile (16 bytes for 4-byte values), every load of the run
/// issued before the first is used, where the first pass otherwise loads `VEC` bytes a row
/// and ballots on them before the next row's load (16 loads of 4 bytes a lane for a run of
/// four float32 tiles): the expectation is that the flags' phase, which the look-back waits
/// for, then costs about one memory latency rather than several. For 4- and 8-byte
/// values only: with 1- and 16-byte values the kernel spills under the 40 registers of 6
/// blocks per SM (NVRTC, sm_90: 32 and 24 bytes). Measured by `cuprum tune` on an H100
/// (2026-12-07): (4, 6, 32) 108.8 µs against 120.1 for (4, 6, 0), and
/// `compress100M_f32_half` 271.1 µs (86.9 % of the copy, from 77–81 %), so it is the H100's
/// built-in choice; the H200 keeps (4, 6, 0) until tuned there.
pub(crate) static COMPACT_VALUES: Family = Family {
    name: "compact.values",
    about: "selecting values under a mask (compress, x[mask]): a run is that many tiles",
    params: [
        "run tiles",
        "blocks/SM",
        "ring tiles | 16: ballot flags | 32: wide flag loads",
    ],
    candidates: &[
        [4, 6, 0],
        [4, 5, 0],
        [3, 6, 0],
        [5, 5, 0],
        [3, 7, 0],
        [6, 4, 0],
        [2, 8, 0],
        [4, 4, 0],
        [4, 3, 2],
        [4, 4, 2],
        [2, 4, 2],
        [3, 4, 3],
        [4, 2, 4],
        [6, 3, 2],
        [4, 6, 16],
        [4, 7, 16],
        [6, 6, 16],
        [8, 5, 16],
        [4, 4, 18],
        [6, 4, 18],
        [4, 6, 32],
        [4, 5, 32],
        [3, 6, 32],
        [3, 7, 32],
        [2, 8, 32],
        [5, 5, 32],
    ],
    built_in: &[("H100", [4, 6, 32]), ("H200", [4, 6, 0])],
    problem: values_problem,
    programs: |p| {
        let key = values_key(4, false, p);
        vec![(values_source_with(4, false, p), program_options(&key))]
    },
};

/// `nonzero`'s tuned shape: the tiles a block takes at once and the L2 prefetch distance in
/// runs (its flags only); the first candidate is the H100's hand-picked one. Measured as above (`nonzero100M_half`, µs), (tiles, distance): (2, 16)
/// 319, (2, 32) 319–321, (1, 64) 329–332 (one tile per look-back, as before), (2, 0) 350,
/// (4, 0) 352–366, (3, 0) 368–377, (1, 0) 384–393. Positions are written as 8-byte
/// coordinates, so the write, not the look-back, is the larger part here.
///
/// The run's flags as ballot words (third value 16, [`BALLOT_FLAGS`]), H100 (2026-12-06,
/// `cuprum tune --family compact`, µs of the family's problem): (2, 32, 16) 85.8, (4, 16,
/// 16) 89.2, (4, 32, 16) 90.0, against 95.1 for (2, 32, 0) and 96.4 for (2, 16, 0); in the
/// same run `nonzero100M_half` 312.9 → 284.8 µs and `argwhere100M_half_2d` 452.5 → 427.7.
/// For the values the same words gained nothing ([`COMPACT_VALUES`]: 120.0 against 119.8
/// µs): their tiles wait for the values' loads, not for the ranking. The H200 takes the
/// H100's choice until an H200 measures the family.
pub(crate) static COMPACT_NONZERO: Family = Family {
    name: "compact.nonzero",
    about: "positions of the non-zero elements (nonzero, argwhere): a run is that many tiles",
    params: ["run tiles", "prefetch runs", "16: ballot flags"],
    candidates: &[
        [2, 32, 0],
        [2, 16, 0],
        [1, 64, 0],
        [2, 0, 0],
        [3, 32, 0],
        [4, 16, 0],
        [3, 16, 0],
        [2, 32, 16],
        [4, 32, 16],
        [4, 16, 16],
    ],
    built_in: &[("H100", [2, 32, 16]), ("H200", [2, 32, 16])],
    problem: nonzero_problem,
    programs: |p| {
        let key = indices_key(DType::Bool, false, false, p);
        vec![(
            indices_source_with(DType::Bool, false, false, p),
            program_options(&key),
        )]
    },
};

// Measured on an H200 (`cuprum tune --family compact`, 2026-12-04, µs of each problem of
// 2^25 elements, winner / first candidate, margin over the runner-up): compact.values 103.9
// / 103.9 (1.4 %), compact.nonzero 81.8 (2, 16) / 82.5 (0.9 %): within noise, so the H200
// keeps the H100's shapes. What holds `compress` of 1e8 float32 at 68 % of the copy there
// is the loads each warp waits for (see `COMPACT_VALUES`), not the run's length.

/// Elements of a family's problem (a 1-D mask of about half true).
const PROBLEM_N: usize = 1 << 25;

/// The value compaction's problem: float32 values under a mask.
fn values_problem() -> Result<Runner> {
    let m = half_mask(PROBLEM_N)?;
    let x = keys(PROBLEM_N, DType::F32)?;
    let y = Array::empty(&[PROBLEM_N], DType::F32)?;
    Ok(Box::new(move |p: Params| {
        with_choice(COMPACT_VALUES.name, p, || {
            select_values(&m, &x, &y).map(drop)
        })
    }))
}

/// `nonzero`'s problem: the positions of a 1-D mask.
fn nonzero_problem() -> Result<Runner> {
    let m = half_mask(PROBLEM_N)?;
    let out = [Array::empty(&[PROBLEM_N], DType::I64)?];
    Ok(Box::new(move |p: Params| {
        with_choice(COMPACT_NONZERO.name, p, || {
            nonzero_coords(&m, &[PROBLEM_N], &out)
        })
    }))
}

/// The tiles of the values' ring in a [`COMPACT_VALUES`] shape (its third value's low
/// four bits).
fn ring_tiles(p: Params) -> u32 {
    p[2] & 15
}

/// Whether a shape keeps the run's flags as the warps' ballot words rather than a byte an
/// element (the third value's bit 4, [`BALLOT_FLAGS`]).
fn ballot_flags(p: Params) -> bool {
    p[2] & BALLOT_FLAGS != 0
}

/// The third value's bit that keeps a run's flags as ballot words: a warp's row of 32
/// flags is the one word its first pass's ballot gave, stored by lane 0 (shared memory a
/// run: 1/8 of the bytes), and the second pass reads it back (a broadcast) instead of a
/// byte a lane and a second ballot.
const BALLOT_FLAGS: u32 = 16;

/// Whether a shape loads a run's flags a lane's whole part at a time (the third value's bit
/// 5, [`WIDE_FLAGS`]; byte flags only).
fn wide_flags(p: Params) -> bool {
    p[2] & WIDE_FLAGS != 0 && !ballot_flags(p)
}

/// The third value's bit that loads the flags of a run with one wide load a lane and tile
/// (16 bytes for 4-byte values), all of the run's in flight at once, instead of a load of
/// `VEC` bytes a row, each followed by its ballots.
const WIDE_FLAGS: u32 = 32;

/// Items per thread: a tile stages 16 KiB.
fn items_per_thread(stage_item: usize) -> usize {
    match stage_item {
        0..=4 => 16,
        8 => 8,
        _ => 4,
    }
}

fn idx_type(wide: bool) -> &'static str {
    if wide {
        "unsigned long long"
    } else {
        "unsigned int"
    }
}

/// The name of the program selecting elements of `item` bytes in shape `p`.
fn values_key(item: usize, wide: bool, p: Params) -> String {
    format!(
        "compact_values|{item}|{}|{}x{}x{}",
        u8::from(wide),
        p[0],
        p[1],
        p[2]
    )
}

/// The program selecting elements of `item` bytes under a bool mask, in shape `p`.
fn values_program(item: usize, wide: bool, p: Params) -> Arc<Program> {
    program(&values_key(item, wide, p), || {
        values_source_with(item, wide, p)
    })
}

/// The name of the program writing the coordinates of `d`'s non-zero elements in shape `p`.
fn indices_key(d: DType, wide: bool, interleaved: bool, p: Params) -> String {
    format!(
        "compact_indices|{}|{}{}|{}x{}x{}",
        d.name(),
        u8::from(wide),
        if interleaved { "|il" } else { "" },
        p[0],
        p[1],
        p[2]
    )
}

/// The program writing the coordinates of the non-zero elements of dtype `d` (one array
/// per dimension, or `interleaved` in one `(N, ND)` array), in shape `p`.
fn indices_program(d: DType, wide: bool, interleaved: bool, p: Params) -> Arc<Program> {
    program(&indices_key(d, wide, interleaved, p), || {
        indices_source_with(d, wide, interleaved, p)
    })
}

/// The value compaction's source in the hand-picked shape (compile checks).
pub(crate) fn values_source(item: usize, wide: bool) -> String {
    values_source_with(item, wide, COMPACT_VALUES.candidates[0])
}

/// The value compaction's source in shape `p` (run tiles, blocks per SM).
fn values_source_with(item: usize, wide: bool, p: Params) -> String {
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "typedef unsigned char Tm;\ntypedef {t} T;\ntypedef {t} S;\ntypedef {i} I;\n\
         #define CUPRUM_VALUES 1\nconstexpr int VECN = {v};\nconstexpr int IPT = {ipt};\nconstexpr int CMINB = {minb};\nconstexpr unsigned CPF = 0;\nconstexpr int SUB = {sub};\nconstexpr bool NEXT_PF = true;\n\
         constexpr int CSTAGES = {stages};\nconstexpr bool CBITS = {bits};\nconstexpr bool WFL = {wfl};\n",
        sub = p[0],
        stages = ring_tiles(p),
        bits = ballot_flags(p),
        wfl = wide_flags(p) && matches!(item, 4 | 8),
        t = bits_type(item),
        minb = p[1],
        i = idx_type(wide),
        v = vec_width(item),
        ipt = items_per_thread(item),
    );
    s.push_str(COMPACT_BODY);
    s.push_str(
        "extern \"C\" __global__ void __launch_bounds__(256, CMINB) cuprum_compact_v(const Tm* __restrict__ m, const T* __restrict__ x, T* __restrict__ y, I n,\n\
         \x20   unsigned long long* __restrict__ status, unsigned* __restrict__ counter, unsigned long long* __restrict__ total) {\n\
         \x20 compact_tile<VECN, 0, S>(m, x, y, n, status, counter, total, Meta()); }\n\
         extern \"C\" __global__ void __launch_bounds__(256) cuprum_compact_1(const Tm* __restrict__ m, const T* __restrict__ x, T* __restrict__ y, I n,\n\
         \x20   unsigned long long* __restrict__ status, unsigned* __restrict__ counter, unsigned long long* __restrict__ total) {\n\
         \x20 compact_tile<1, 0, S>(m, x, y, n, status, counter, total, Meta()); }\n",
    );
    s
}

/// `nonzero`'s source in the hand-picked shape (compile checks).
pub(crate) fn indices_source(d: DType, wide: bool, interleaved: bool) -> String {
    indices_source_with(d, wide, interleaved, COMPACT_NONZERO.candidates[0])
}

/// `nonzero`'s source in shape `p` (run tiles, prefetch distance in runs).
fn indices_source_with(d: DType, wide: bool, interleaved: bool, p: Params) -> String {
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "typedef {m} Tm;\ntypedef unsigned char T;\ntypedef unsigned S;\ntypedef {i} I;\n\
         #define CUPRUM_VALUES 0\nconstexpr int VECN = {v};\nconstexpr int IPT = 16;\nconstexpr unsigned CPF = {pf};\nconstexpr int SUB = {sub};\nconstexpr bool NEXT_PF = false;\n\
         constexpr int CSTAGES = 0;\nconstexpr bool CBITS = {bits};\nconstexpr bool WFL = false;\n",
        bits = ballot_flags(p),
        pf = p[1],
        sub = p[0],
        m = d.c_type(),
        i = idx_type(wide),
        v = vec_width(d.itemsize()),
    );
    s.push_str(COMPACT_BODY);
    for nd in 1..=MAX_ND {
        for (suffix, vec) in [("v", "VECN"), ("1", "1")] {
            let _ = writeln!(
                s,
                "extern \"C\" __global__ void __launch_bounds__(256) cuprum_nonzero{nd}_{suffix}(const Tm* __restrict__ m, I n,\n\
                 \x20   unsigned long long* __restrict__ status, unsigned* __restrict__ counter, unsigned long long* __restrict__ total, Meta meta) {{\n\
                 \x20 compact_tile<{vec}, {nd}, S, {il}>(m, nullptr, nullptr, n, status, counter, total, meta); }}",
                il = interleaved,
            );
        }
    }
    s
}

const COMPACT_BODY: &str = r#"
// Shape and coordinate outputs of `nonzero` (unused when selecting values).
struct Meta { long long shape[8]; long long* out[8]; };
constexpr unsigned long long AGG = 1ull << 62, INC = 2ull << 62, CNT = (1ull << 62) - 1;

// Decoupled look-back over tile counts by one warp; returns the count before `tile`.
__device__ unsigned long long lookback_count(unsigned tile, unsigned long long tot,
    unsigned long long* status, int lane) {
  if (tile == 0) {
    if (lane == 0) rt::st_relaxed(&status[0], INC | tot);
    return 0ull;
  }
  if (lane == 0) rt::st_relaxed(&status[tile], AGG | tot);
  unsigned long long run = 0ull;
  long long t = (long long)tile - 1 - lane;
  while (true) {
    unsigned long long s = INC;
    if (t >= 0) { do { s = rt::ld_relaxed(&status[t]); } while ((s >> 62) == 0ull); }
    const unsigned tm = __ballot_sync(rt::FULL, (s >> 62) == 2ull);
    const int first = tm ? __ffs(tm) - 1 : 32;
    unsigned long long c = lane <= first ? (s & CNT) : 0ull;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(rt::FULL, c, d);
    run += __shfl_sync(rt::FULL, c, 0);
    if (tm) break;
    t -= 32;
  }
  if (lane == 0) rt::st_relaxed(&status[tile], INC | (run + tot));
  return run;
}

// The flags of VEC consecutive elements from i0 (0 past n).
template <int VEC>
__device__ __forceinline__ void load_flags(const Tm* __restrict__ m, I i0, I n, bool (&f)[VEC]) {
  if (VEC > 1 && i0 + VEC <= n) {
    Tm mm[VEC];
    rt::load_vec<Tm, VEC>(m + i0, mm);
#pragma unroll
    for (int b = 0; b < VEC; ++b) f[b] = cuprum::cast<bool>(mm[b]);
  } else {
#pragma unroll
    for (int b = 0; b < VEC; ++b) f[b] = i0 + b < n && cuprum::cast<bool>(m[i0 + b]);
  }
}

// The values of a lane's ROWS rows of VEC elements from the warp's first, wbase.
template <int VEC, int ROWS>
__device__ __forceinline__ void load_values(const T* __restrict__ x, I wbase, I n, int lane, T (&v)[ROWS][VEC]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    if (VEC > 1 && i0 + VEC <= n) {
      rt::load_vec<T, VEC>(x + i0, v[r]);
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) if (i0 + b < n) v[r][b] = x[i0 + b];
    }
  }
}

// The ring of CSTAGES tiles of values (CSTAGES > 0): the lane's values of the warp's part
// of a tile, copied asynchronously into `slot` (its own elements only, so a slot needs no
// barrier: the lane waits for its own copies, and refills a slot after reading it), and
// read back into registers.
template <int VEC, int ROWS>
__device__ __forceinline__ void ring_fill(const T* __restrict__ x, I wbase, I n, int lane, T* slot) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int o = r * 32 * VEC + lane * VEC;
    const I i0 = wbase + (I)o;
    if (i0 + VEC <= n && rt::cp_async<VEC * (int)sizeof(T)>(slot + o, x + i0)) continue;
#pragma unroll
    for (int b = 0; b < VEC; ++b) if (i0 + b < n) slot[o + b] = x[i0 + b];
  }
  rt::cp_async_commit();
}
template <int VEC, int ROWS>
__device__ __forceinline__ void ring_read(const T* slot, int lane, T (&v)[ROWS][VEC]) {
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int o = r * 32 * VEC + lane * VEC;
    if constexpr (VEC * sizeof(T) == 16 || VEC * sizeof(T) == 8 || VEC * sizeof(T) == 4) {
      rt::load_vec<T, VEC>(slot + o, v[r]);
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) v[r][b] = slot[o + b];
    }
  }
}

// ND = 0: select the values x[i] where m[i] != 0 into y; ND > 0: write the ND coordinates
// of every i where m[i] != 0 into meta.out (IL: interleaved, row k of meta.out[0] holding
// the ND coordinates of the k-th, as argwhere's (N, ND) result).
//
// A block takes a run of SUB tiles (a ticket): it reads all their flags first, counting
// them per warp and keeping them in shared memory, asks for the first tile's values, and
// looks back once for the whole run's output offset; then, tile by tile (asking L2 for the
// next tile's values when NEXT_PF), it ranks the selected elements from the kept flags,
// stages them and writes them out contiguously. CPF: L2 prefetch distance in runs.
// CSTAGES > 0 (values): the run's values go through a ring of CSTAGES tiles of dynamic
// shared memory instead, the first ones asked for before the flags are read, each next one
// as a slot is read (`ring_fill`): a tile's values are in flight while the tiles before it
// are ranked and written, not only from the start of its own turn.
template <int VEC, int ND, typename SS, bool IL = false>
__device__ __forceinline__ void compact_tile(const Tm* __restrict__ m, const T* __restrict__ x, T* __restrict__ y,
    I n, unsigned long long* __restrict__ status, unsigned* __restrict__ counter,
    unsigned long long* __restrict__ total, const Meta& meta) {
  constexpr int ROWS = IPT / VEC;
  constexpr int WSEG = 32 * IPT;
  constexpr int TILE = 8 * WSEG;
  constexpr int STILE = SUB * TILE;
  constexpr bool VALUES = ND == 0;
  __shared__ unsigned s_tile;
  __shared__ unsigned s_wcnt[SUB][8];
  __shared__ unsigned long long s_excl;
  __shared__ __align__(16) unsigned char s_f[CBITS ? 1 : STILE];
  // CBITS: the warps' ballot words of the run's flags, [tile][warp][row][b].
  __shared__ unsigned s_b[CBITS ? SUB * 8 * ROWS * VEC : 1];
  __shared__ SS s_stage[TILE];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const I sbase = (I)tile * (I)STILE;
  constexpr bool RING = VALUES && CSTAGES > 0;
  constexpr int NST = CSTAGES > 0 ? CSTAGES : 1;
  extern __shared__ __align__(16) unsigned char cuprum_compact_ring[];
  T* const ring = reinterpret_cast<T*>(cuprum_compact_ring);
  if constexpr (RING) {
#pragma unroll
    for (int k = 0; k < NST; ++k) {
      if (k < SUB) ring_fill<VEC, ROWS>(x, sbase + (I)(k * TILE + warp * WSEG), n, lane, ring + (k * 8 + warp) * WSEG);
      else rt::cp_async_commit();
    }
  }
  if (CPF > 0) {
    const unsigned long long pf = (unsigned long long)(tile + CPF) * STILE;
    rt::prefetch_l2(m, pf, STILE, (unsigned long long)n);
    if (VALUES) rt::prefetch_l2(x, pf, STILE, (unsigned long long)n);
  }
  const unsigned lt = rt::lanemask_lt();
  // (The block below is compiled for every mask type, 2-byte floats included, and runs
  // for byte flags only.)
  // WFL (byte flags, a 16-byte aligned mask): a lane loads the IPT flags of its part of the
  // warp's segment of each tile of the run at once, IPT / 4 words a tile, every load of the
  // run in flight together; stores them as 0/1 bytes and sums the warp's count.
  bool wide = false;
  if constexpr (WFL && !CBITS && sizeof(Tm) == 1) wide = (((unsigned long long)m) & 15ull) == 0ull;
  if (wide) {
    constexpr int NW = IPT / 4;
    unsigned fw[SUB][NW];
#pragma unroll
    for (int st = 0; st < SUB; ++st) {
      const I i0 = sbase + (I)(st * TILE + warp * WSEG + lane * IPT);
      if (i0 + IPT <= n) {
        rt::load_vec<unsigned, NW>(reinterpret_cast<const unsigned*>(m + i0), fw[st]);
      } else {
#pragma unroll
        for (int w = 0; w < NW; ++w) {
          unsigned b4 = 0;
#pragma unroll
          for (int b = 0; b < 4; ++b) if (i0 + (I)(w * 4 + b) < n && cuprum::cast<bool>(m[i0 + w * 4 + b])) b4 |= 1u << (8 * b);
          fw[st][w] = b4;
        }
      }
    }
#pragma unroll
    for (int st = 0; st < SUB; ++st) {
      unsigned c = 0;
#pragma unroll
      for (int w = 0; w < NW; ++w) {
        // Each byte's bits folded into its lowest: 0 or 1 a byte.
        unsigned t = fw[st][w] | (fw[st][w] >> 4);
        t |= t >> 2;
        t |= t >> 1;
        fw[st][w] = t & 0x01010101u;
        c += __popc(fw[st][w]);
      }
      rt::store_vec<unsigned, NW>(reinterpret_cast<unsigned*>(s_f + st * TILE + warp * WSEG + lane * IPT), fw[st]);
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) c += __shfl_xor_sync(rt::FULL, c, d);
      if (lane == 0) s_wcnt[st][warp] = c;
    }
  } else {
#pragma unroll
  for (int st = 0; st < SUB; ++st) {
    unsigned wcount = 0;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int loc = st * TILE + warp * WSEG + r * 32 * VEC + lane * VEC;
      bool f[VEC];
      load_flags<VEC>(m, sbase + (I)loc, n, f);
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        const unsigned bb = __ballot_sync(rt::FULL, f[b]);
        if (CBITS) {
          if (lane == 0) s_b[((st * 8 + warp) * ROWS + r) * VEC + b] = bb;
        } else {
          s_f[loc + b] = f[b] ? 1 : 0;
        }
        wcount += __popc(bb);
      }
    }
    if (lane == 0) s_wcnt[st][warp] = wcount;
  }
  }
  T v[VALUES ? ROWS : 1][VALUES ? VEC : 1];
  if constexpr (VALUES && !RING) load_values<VEC, ROWS>(x, sbase + (I)(warp * WSEG), n, lane, v);
  __syncthreads();
  if (warp == 0) {
    unsigned stot = 0;
#pragma unroll
    for (int st = 0; st < SUB; ++st)
#pragma unroll
      for (int w = 0; w < 8; ++w) stot += s_wcnt[st][w];
    const unsigned long long ex = lookback_count(tile, stot, status, lane);
    if (lane == 0) {
      s_excl = ex;
      if (tile == gridDim.x - 1) *total = ex + stot;
    }
  }
  __syncthreads();
  unsigned long long ex = s_excl;
#pragma unroll 1
  for (int st = 0; st < SUB; ++st) {
    if constexpr (RING) {
      // The oldest of the lane's NST groups in flight is this tile's.
      rt::cp_async_wait<NST - 1>();
      T* const slot = ring + ((st % NST) * 8 + warp) * WSEG;
      ring_read<VEC, ROWS>(slot, lane, v);
      if (st + NST < SUB) ring_fill<VEC, ROWS>(x, sbase + (I)((st + NST) * TILE + warp * WSEG), n, lane, slot);
      else rt::cp_async_commit();
    } else if constexpr (VALUES) {
      if (st > 0) load_values<VEC, ROWS>(x, sbase + (I)(st * TILE + warp * WSEG), n, lane, v);
      if (NEXT_PF && st + 1 < SUB) rt::prefetch_l2(x, (unsigned long long)(sbase + (I)((st + 1) * TILE)), TILE, (unsigned long long)n);
    }
    // The lane's flags of this tile, read once from the kept bytes (or ballot words).
    bool f[ROWS][VEC];
    unsigned wcount = 0, rowbase[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int loc = st * TILE + warp * WSEG + r * 32 * VEC + lane * VEC;
      unsigned before = 0, rowtot = 0;
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        unsigned bb;
        if (CBITS) {
          bb = s_b[((st * 8 + warp) * ROWS + r) * VEC + b];
          f[r][b] = (bb >> lane) & 1u;
        } else {
          f[r][b] = s_f[loc + b] != 0;
          bb = __ballot_sync(rt::FULL, f[r][b]);
        }
        before += __popc(bb & lt);
        rowtot += __popc(bb);
      }
      rowbase[r] = wcount + before;
      wcount += rowtot;
    }
    unsigned wex = 0, ttot = 0;
#pragma unroll
    for (int w = 0; w < 8; ++w) { const unsigned c = s_wcnt[st][w]; if (w < warp) wex += c; ttot += c; }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int loc = st * TILE + warp * WSEG + r * 32 * VEC + lane * VEC;
      unsigned pos = wex + rowbase[r];
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        if (f[r][b]) {
          if constexpr (VALUES) s_stage[pos] = v[r][b];
          else s_stage[pos] = (unsigned)(loc + b);
          ++pos;
        }
      }
    }
    __syncthreads();
    for (unsigned q = threadIdx.x; q < ttot; q += 256) {
      if constexpr (VALUES) {
        y[ex + q] = s_stage[q];
      } else {
        I rem = sbase + (I)s_stage[q];
#pragma unroll
        for (int d = ND - 1; d > 0; --d) {
          const I sh = (I)meta.shape[d];
          const I c = rem % sh;
          rem /= sh;
          if (IL) meta.out[0][(ex + q) * ND + d] = (long long)c;
          else meta.out[d][ex + q] = (long long)c;
        }
        if (IL) meta.out[0][(ex + q) * ND] = (long long)rem;
        else meta.out[0][ex + q] = (long long)rem;
      }
    }
    ex += ttot;
    __syncthreads();
  }
}
"#;

/// Tiles and launch pieces shared by both modes.
struct Tiles {
    tiles: usize,
    status: Array,
    total: Array,
}

fn tiles_for(n: usize, tile: usize) -> Result<Tiles> {
    let tiles = n.div_ceil(tile).max(1);
    if u32::try_from(tiles).is_err() {
        bail!(Unsupported, "compaction of {n} elements: too many tiles");
    }
    Ok(Tiles {
        tiles,
        status: zeroed_scratch(8 * tiles + 8)?,
        total: Array::empty(&[1], DType::U64)?,
    })
}

/// Copies `x[i]` for every `m[i] != 0` (both contiguous, same size; `m` bool) into the
/// front of `y` (capacity `x.size()`), in order, and returns how many (one device → host
/// read).
pub(crate) fn select_values(m: &Array, x: &Array, y: &Array) -> Result<usize> {
    let n = x.size();
    if n == 0 {
        return Ok(0);
    }
    let item = x.itemsize();
    let wide = !fits_u32(n);
    let p = tune::choose(Device::current()?, &COMPACT_VALUES)?;
    let prog = values_program(item, wide, p);
    let vec = vec_width(item);
    let name = if vec > 1 && aligned(&[x, y], vec) && m.data_ptr().is_multiple_of(vec as u64) {
        "cuprum_compact_v"
    } else {
        "cuprum_compact_1"
    };
    let tile = 256 * items_per_thread(item);
    let t = tiles_for(n, p[0] as usize * tile)?;
    let (status, counter) = (ptr_at(&t.status, 0), ptr_at(&t.status, 8 * t.tiles));
    let grid = t.tiles as u32;
    // The ring of values (a third value > 0): that many tiles of dynamic shared memory.
    let k = prog.kernel(name)?;
    let launch = k
        .configure(grid, 256u32)
        .shared_mem(ring_tiles(p) as usize * tile * item);
    if wide {
        launch.launch((m, x, y, n as u64, status, counter, &t.total))?;
    } else {
        launch.launch((m, x, y, n as u32, status, counter, &t.total))?;
    }
    let count = read_u64(&t.total)?;
    usize::try_from(count).map_err(|_| err!(InvalidArgument, "selected count {count} overflows"))
}

/// Writes the coordinates (in `shape`, C order) of the non-zero elements of the contiguous
/// `m` into `outs` (one int64 array per dimension, each with room for all of them).
pub(crate) fn nonzero_coords(m: &Array, shape: &[usize], outs: &[Array]) -> Result<()> {
    let ptrs: Vec<u64> = outs.iter().map(Array::data_ptr).collect();
    let empty = outs.first().is_none_or(|o| o.size() == 0);
    coords(m, shape, &ptrs, empty, false)
}

/// Writes the coordinates (in `shape`, C order, at most [`MAX_ND`] dimensions) of the
/// non-zero elements of the contiguous `m` into the rows of `out` (int64, `(count,
/// shape.len())`): NumPy's `argwhere`.
pub(crate) fn argwhere_coords(m: &Array, shape: &[usize], out: &Array) -> Result<()> {
    let ptrs = vec![out.data_ptr(); shape.len()];
    coords(m, shape, &ptrs, out.size() == 0, true)
}

fn coords(m: &Array, shape: &[usize], outs: &[u64], empty: bool, interleaved: bool) -> Result<()> {
    let n = m.size();
    let nd = shape.len();
    if n == 0 || empty {
        return Ok(());
    }
    if nd == 0 || nd > MAX_ND || outs.len() != nd {
        bail!(
            InvalidArgument,
            "nonzero_coords: {nd} dimensions and {} outputs (1 to {MAX_ND} expected)",
            outs.len()
        );
    }
    let wide = !fits_u32(n);
    let p = tune::choose(Device::current()?, &COMPACT_NONZERO)?;
    let prog = indices_program(m.dtype(), wide, interleaved, p);
    let vec = vec_width(m.itemsize());
    let vector = vec > 1 && aligned(&[m], vec);
    let mut meta = [0u64; 16];
    for (k, &d) in shape.iter().enumerate() {
        meta[k] = d as u64;
        meta[8 + k] = outs[k];
    }
    let name = nonzero_kernel_name(nd, vector);
    let t = tiles_for(n, p[0] as usize * 256 * 16)?;
    let (status, counter) = (ptr_at(&t.status, 0), ptr_at(&t.status, 8 * t.tiles));
    let grid = t.tiles as u32;
    if wide {
        prog.launch(
            name,
            grid,
            256,
            (m, n as u64, status, counter, &t.total, ByValue(meta)),
        )
    } else {
        prog.launch(
            name,
            grid,
            256,
            (m, n as u32, status, counter, &t.total, ByValue(meta)),
        )
    }
}

fn nonzero_kernel_name(nd: usize, vector: bool) -> &'static str {
    const V: [&str; MAX_ND] = [
        "cuprum_nonzero1_v",
        "cuprum_nonzero2_v",
        "cuprum_nonzero3_v",
        "cuprum_nonzero4_v",
        "cuprum_nonzero5_v",
        "cuprum_nonzero6_v",
        "cuprum_nonzero7_v",
        "cuprum_nonzero8_v",
    ];
    const S: [&str; MAX_ND] = [
        "cuprum_nonzero1_1",
        "cuprum_nonzero2_1",
        "cuprum_nonzero3_1",
        "cuprum_nonzero4_1",
        "cuprum_nonzero5_1",
        "cuprum_nonzero6_1",
        "cuprum_nonzero7_1",
        "cuprum_nonzero8_1",
    ];
    let k = nd.clamp(1, MAX_ND) - 1;
    if vector { V[k] } else { S[k] }
}

/// Every compaction program's source (NVRTC compile checks).
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for item in [1, 2, 4, 8, 16] {
        v.push((
            format!("compact values {item}B"),
            values_source(item, false),
        ));
    }
    v.push(("compact values 4B wide".into(), values_source(4, true)));
    // The ring of values (two tiles), over each size of asynchronous copy and the others.
    for item in [1, 2, 4, 8, 16] {
        v.push((
            format!("compact values {item}B staged"),
            values_source_with(item, false, [4, 3, 2]),
        ));
    }
    for &d in DType::ALL {
        v.push((
            format!("nonzero {}", d.name()),
            indices_source(d, false, false),
        ));
    }
    v.push((
        "nonzero bool wide".into(),
        indices_source(DType::Bool, true, false),
    ));
    v.push((
        "argwhere bool".into(),
        indices_source(DType::Bool, false, true),
    ));
    // The run's flags as ballot words (bit 4 of the third value), with and without a ring.
    v.push((
        "compact values 4B ballot flags".into(),
        values_source_with(4, false, [4, 6, BALLOT_FLAGS]),
    ));
    v.push((
        "compact values 8B ballot flags staged".into(),
        values_source_with(8, false, [4, 4, BALLOT_FLAGS | 2]),
    ));
    v.push((
        "nonzero float32 ballot flags".into(),
        indices_source_with(DType::F32, false, false, [2, 32, BALLOT_FLAGS]),
    ));
    // The run's flags in one wide load a lane and tile (bit 5): 16 and 8 bytes a lane.
    for item in [4, 8] {
        v.push((
            format!("compact values {item}B wide flag loads"),
            values_source_with(item, false, [4, 6, WIDE_FLAGS]),
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes of shared memory a run's kept flags take in shape `p` (`tile` elements a tile).
    fn flag_bytes(p: Params, tile: usize) -> usize {
        let run = p[0] as usize * tile;
        if ballot_flags(p) { run / 8 } else { run }
    }

    #[test]
    fn tiles_stage_16_kib() {
        for item in [1usize, 2, 4, 8, 16] {
            let ipt = items_per_thread(item);
            assert!(256 * ipt * item <= 16384, "{item}");
            assert_eq!(ipt % vec_width(item), 0);
        }
    }

    #[test]
    fn every_candidate_fits_static_shared_memory() {
        for p in COMPACT_VALUES.candidates {
            for item in [1usize, 2, 4, 8, 16] {
                let tile = 256 * items_per_thread(item);
                assert!(
                    flag_bytes(*p, tile) + tile * item <= 40 * 1024,
                    "{item} {p:?}"
                );
            }
        }
        for p in COMPACT_NONZERO.candidates {
            assert!(flag_bytes(*p, 4096) + 4096 * 4 <= 40 * 1024, "{p:?}");
        }
    }

    #[test]
    fn kernel_names() {
        assert_eq!(nonzero_kernel_name(1, true), "cuprum_nonzero1_v");
        assert_eq!(nonzero_kernel_name(8, false), "cuprum_nonzero8_1");
        let s = indices_source(DType::F32, false, false);
        assert!(indices_source(DType::F32, false, true).contains("S, true>"));
        for nd in 1..=MAX_ND {
            assert!(s.contains(nonzero_kernel_name(nd, true)));
            assert!(s.contains(nonzero_kernel_name(nd, false)));
        }
    }
}
