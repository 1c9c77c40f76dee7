//! Stream compaction: the selected elements of a contiguous array in order (boolean-mask
//! reads), or the positions of the non-zero elements (`nonzero`), in one pass.
//!
//! A block takes the next tile (atomic ticket), loads its flags (and values) once with
//! coalesced vector loads, ranks the selected elements within each warp with ballots (a
//! lane's rank is the number of selected elements before it in its 32-lane row plus the
//! rows before), publishes the tile's count and looks back over the predecessors' counts
//! (one 64-bit status word per tile: 2 flag bits + the count) for its output offset,
//! stages the selected elements in shared memory and writes them out as one contiguous,
//! coalesced run. The last tile writes the total, the one number the host reads.

use super::programs::{
    PRELUDE, Program, aligned, bits_type, fits_u32, program, ptr_at, read_u64, vec_width,
    zeroed_scratch,
};
use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::kernel::{ByValue, DevicePtr};
use std::fmt::Write;
use std::sync::Arc;

/// Most dimensions whose coordinates one compaction pass writes.
pub(crate) const MAX_ND: usize = 8;

/// Items per thread when selecting values: a tile stages 16 KiB.
fn items_per_thread(stage_item: usize) -> usize {
    match stage_item {
        0..=4 => 16,
        8 => 8,
        _ => 4,
    }
}

/// Items per thread when writing indices: the next tile's mask elements wait in
/// registers, at most 64 bytes a thread.
fn index_items_per_thread(mask_item: usize) -> usize {
    (64 / mask_item.max(1)).clamp(4, 16)
}

fn idx_type(wide: bool) -> &'static str {
    if wide {
        "unsigned long long"
    } else {
        "unsigned int"
    }
}

/// The program selecting elements of `item` bytes under a bool mask.
fn values_program(item: usize, wide: bool) -> Arc<Program> {
    let key = format!("compact_values|{item}|{}", u8::from(wide));
    program(&key, || values_source(item, wide))
}

/// The program writing the coordinates of the non-zero elements of dtype `d`.
fn indices_program(d: DType, wide: bool) -> Arc<Program> {
    let key = format!("compact_indices|{}|{}", d.name(), u8::from(wide));
    program(&key, || indices_source(d, wide))
}

pub(crate) fn values_source(item: usize, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "typedef unsigned char Tm;\ntypedef {t} T;\ntypedef {t} S;\ntypedef {i} I;\n\
         #define CUPRUM_VALUES 1\nconstexpr int VECN = {v};\nconstexpr int IPT = {ipt};\n",
        t = bits_type(item),
        i = idx_type(wide),
        v = vec_width(item),
        ipt = items_per_thread(item),
    );
    s.push_str(COMPACT_BODY);
    // vector loads: 4 blocks a multiprocessor (64 registers) without spills
    for (name, vec, bounds) in [
        ("cuprum_compact_v", "VECN", "256, 4"),
        ("cuprum_compact_1", "1", "256"),
    ] {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__({bounds}) {name}(const Tm* __restrict__ m, const T* __restrict__ x, T* __restrict__ y, I n,\n\
             \x20   unsigned long long* __restrict__ status, unsigned* __restrict__ counter, unsigned long long* __restrict__ total, unsigned ntiles) {{\n\
             \x20 compact_tiles<{vec}, 0, S>(m, x, y, n, status, counter, total, ntiles, Meta()); }}"
        );
    }
    s
}

pub(crate) fn indices_source(d: DType, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "typedef {m} Tm;\ntypedef unsigned char T;\ntypedef unsigned S;\ntypedef {i} I;\n\
         #define CUPRUM_VALUES 0\nconstexpr int VECN = {v};\nconstexpr int IPT = {ipt};\n",
        m = d.c_type(),
        i = idx_type(wide),
        v = vec_width(d.itemsize()),
        ipt = index_items_per_thread(d.itemsize()),
    );
    s.push_str(COMPACT_BODY);
    for nd in 1..=MAX_ND {
        for (suffix, vec, bounds) in [("v", "VECN", "256, 4"), ("1", "1", "256")] {
            let _ = writeln!(
                s,
                "extern \"C\" __global__ void __launch_bounds__({bounds}) cuprum_nonzero{nd}_{suffix}(const Tm* __restrict__ m, I n,\n\
                 \x20   unsigned long long* __restrict__ status, unsigned* __restrict__ counter, unsigned long long* __restrict__ total,\n\
                 \x20   unsigned ntiles, Meta meta) {{\n\
                 \x20 compact_tiles<{vec}, {nd}, S>(m, nullptr, nullptr, n, status, counter, total, ntiles, meta); }}"
            );
        }
    }
    s
}

const COMPACT_BODY: &str = r#"
// Shape and coordinate outputs of `nonzero` (unused when selecting values).
struct Meta { long long shape[8]; long long* out[8]; };
constexpr int WARPS = 8, WSEG = 32 * IPT, TILE = WARPS * WSEG;
// Look-back status, one 64-bit word per tile written with one relaxed store: bits 62-63 the
// state (1: the tile's count, 2: the count of it and every tile before), bits 0-61 the count.
constexpr unsigned long long AGG = 1ull << 62, INC = 2ull << 62, CNT = (1ull << 62) - 1;
// Tiles per lane per look-back round: every warp of the block reads 32 * LBJ predecessors.
constexpr int LBJ = 2;
constexpr long long ROUND = (long long)WARPS * 32 * LBJ;

// One warp's part of a look-back round: the predecessors at distances [1, 32 * LBJ] from
// `near + 1` (lane l holds distances l * LBJ + j + 1). Polls until every one nearer than the
// nearest inclusive count is published; returns their sum in every lane and whether an
// inclusive count was found (a tile before the first counts as an inclusive 0).
__device__ __forceinline__ unsigned long long window(const unsigned long long* st, long long near, int lane, bool& found) {
  unsigned long long w[LBJ];
  int jt, first;
  unsigned tm;
  while (true) {
#pragma unroll
    for (int j = 0; j < LBJ; ++j) {
      const long long u = near - (long long)(lane * LBJ + j);
      w[j] = u < 0 ? INC : rt::ld_relaxed(&st[u]);
    }
    jt = LBJ;
#pragma unroll
    for (int j = LBJ - 1; j >= 0; --j) if ((w[j] >> 62) == 2ull) jt = j;
    bool wait_all = false, wait_before = false;
#pragma unroll
    for (int j = 0; j < LBJ; ++j) if ((w[j] >> 62) == 0ull) { wait_all = true; if (j < jt) wait_before = true; }
    tm = __ballot_sync(rt::FULL, jt < LBJ);
    first = tm ? __ffs(tm) - 1 : 32;
    const bool wait = (lane < first && wait_all) || (lane == first && wait_before);
    if (__ballot_sync(rt::FULL, wait) == 0u) break;
    rt::backoff();
  }
  unsigned long long c = 0ull;
#pragma unroll
  for (int j = 0; j < LBJ; ++j)
    if (lane < first || (lane == first && j <= jt)) c += w[j] & CNT;
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) c += __shfl_xor_sync(rt::FULL, c, d);
  found = tm != 0u;
  return c;
}

// Decoupled look-back by the whole block: publishes the tile's count `tot`, sums the
// predecessors' published counts (WARPS * 32 * LBJ per round) back to the nearest inclusive
// one, publishes the tile's inclusive count and returns the count before the tile (in every
// thread). Contains at least one barrier.
__device__ unsigned long long lookback_count(unsigned tile, unsigned long long tot, unsigned long long* st,
    unsigned long long* s_lb, unsigned* s_lbt) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned long long run = 0ull;
  if (tile == 0) {
    if (threadIdx.x == 0) rt::st_relaxed(&st[0], INC | tot);
    __syncthreads();
    return run;
  }
  if (threadIdx.x == 0) rt::st_relaxed(&st[tile], AGG | tot);
  long long near = (long long)tile - 1;
  while (true) {
    bool found;
    const unsigned long long c = window(st, near - (long long)warp * 32 * LBJ, lane, found);
    if (lane == 0) { s_lb[warp] = c; s_lbt[warp] = found ? 1u : 0u; }
    __syncthreads();
    int wt = WARPS;
#pragma unroll
    for (int w = WARPS - 1; w >= 0; --w) if (s_lbt[w]) wt = w;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) if (w <= wt) run += s_lb[w];
    __syncthreads();
    if (wt < WARPS) break;
    near -= ROUND;
  }
  if (threadIdx.x == 0) rt::st_relaxed(&st[tile], INC | (run + tot));
  return run;
}

template <int VEC, bool VALUES>
__device__ __forceinline__ void load_tile(const Tm* __restrict__ m, const T* __restrict__ x, I n, unsigned tile,
    int warp, int lane, Tm (&mr)[IPT / VEC][VEC], T (&xr)[VALUES ? IPT / VEC : 1][VALUES ? VEC : 1]) {
  const I wbase = (I)tile * (I)TILE + (I)(warp * WSEG);
#pragma unroll
  for (int r = 0; r < IPT / VEC; ++r) {
    const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
    if (VEC > 1 && i0 + VEC <= n) {
      rt::load_vec<Tm, VEC>(m + i0, mr[r]);
      if constexpr (VALUES) rt::load_vec<T, VEC>(x + i0, xr[r]);
    } else {
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        const bool ok = i0 + b < n;
        mr[r][b] = ok ? m[i0 + b] : Tm();
        if constexpr (VALUES) { if (ok) xr[r][b] = x[i0 + b]; }
      }
    }
  }
}

// ND = 0: select the values x[i] where m[i] != 0 into y; ND > 0: write the ND coordinates
// of every i where m[i] != 0 into meta.out. A persistent block takes tiles in ticket order
// (an atomic counter), the next tile's loads in flight while the current one looks back
// and is written; the last tile writes the total.
template <int VEC, int ND, typename SS>
__device__ __forceinline__ void compact_tiles(const Tm* __restrict__ m, const T* __restrict__ x, T* __restrict__ y,
    I n, unsigned long long* __restrict__ st, unsigned* __restrict__ counter,
    unsigned long long* __restrict__ total, unsigned ntiles, const Meta& meta) {
  constexpr int R = IPT / VEC;
  constexpr bool VALUES = ND == 0;
  static_assert(IPT <= 32, "the flags of a lane fit one word");
  __shared__ unsigned s_first, s_next;
  __shared__ unsigned s_wcnt[WARPS];
  __shared__ unsigned long long s_lb[WARPS];
  __shared__ unsigned s_lbt[WARPS];
  __shared__ SS s_stage[TILE];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_first = atomicAdd(counter, 1u);
  __syncthreads();
  unsigned tile = s_first;
  unsigned ticket = 0u;
  if (threadIdx.x == 0 && tile < ntiles) ticket = atomicAdd(counter, 1u);
  Tm mr[R][VEC];
  T xr[VALUES ? R : 1][VALUES ? VEC : 1];
  if (tile < ntiles) load_tile<VEC, VALUES>(m, x, n, tile, warp, lane, mr, xr);
  const unsigned lt = rt::lanemask_lt();
  while (tile < ntiles) {
    const I wbase = (I)tile * (I)TILE + (I)(warp * WSEG);
    unsigned fb = 0u;  // bit r * VEC + b: element b of row r is selected
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const I i0 = wbase + (I)(r * 32 * VEC + lane * VEC);
#pragma unroll
      for (int b = 0; b < VEC; ++b)
        if (i0 + b < n && cuprum::cast<bool>(mr[r][b])) fb |= 1u << (r * VEC + b);
    }
    unsigned wcount = 0, rowbase[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      unsigned before = 0, rowtot = 0;
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        const unsigned bb = __ballot_sync(rt::FULL, (fb >> (r * VEC + b)) & 1u);
        before += __popc(bb & lt);
        rowtot += __popc(bb);
      }
      rowbase[r] = wcount + before;
      wcount += rowtot;
    }
    if (lane == 0) s_wcnt[warp] = wcount;
    if (threadIdx.x == 0) s_next = ticket;
    __syncthreads();
    const unsigned next = s_next;
    if (threadIdx.x == 0 && next < ntiles) ticket = atomicAdd(counter, 1u);
    unsigned wex = 0, ttot = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) { const unsigned c = s_wcnt[w]; if (w < warp) wex += c; ttot += c; }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      unsigned pos = wex + rowbase[r];
#pragma unroll
      for (int b = 0; b < VEC; ++b) {
        if ((fb >> (r * VEC + b)) & 1u) {
          if constexpr (VALUES) s_stage[pos] = xr[r][b];
          else s_stage[pos] = (unsigned)(warp * WSEG + r * 32 * VEC + lane * VEC + b);
          ++pos;
        }
      }
    }
    if (next < ntiles) load_tile<VEC, VALUES>(m, x, n, next, warp, lane, mr, xr);
    // the look-back's barriers also order the staging before the reads below
    const unsigned long long ex = lookback_count(tile, ttot, st, s_lb, s_lbt);
    if (threadIdx.x == 0 && tile == ntiles - 1) *total = ex + ttot;
    for (unsigned q = threadIdx.x; q < ttot; q += 256) {
      if constexpr (VALUES) {
        y[ex + q] = s_stage[q];
      } else {
        I rem = (I)tile * (I)TILE + (I)s_stage[q];
#pragma unroll
        for (int d = ND - 1; d > 0; --d) {
          const I sh = (I)meta.shape[d];
          const I c = rem % sh;
          rem /= sh;
          meta.out[d][ex + q] = (long long)c;
        }
        meta.out[0][ex + q] = (long long)rem;
      }
    }
    tile = next;
  }
}
"#;

/// Tiles and launch pieces shared by both modes.
struct Tiles {
    tiles: u32,
    status: Array,
    total: Array,
}

impl Tiles {
    fn new(n: usize, tile: usize) -> Result<Tiles> {
        let tiles = n.div_ceil(tile).max(1);
        let Some(t) = u32::try_from(tiles).ok().filter(|&t| t < u32::MAX / 2) else {
            bail!(Unsupported, "compaction of {n} elements: too many tiles");
        };
        Ok(Tiles {
            tiles: t,
            // status words | the tile counter
            status: zeroed_scratch(8 * tiles + 8)?,
            total: Array::empty(&[1], DType::U64)?,
        })
    }

    fn status(&self) -> DevicePtr {
        ptr_at(&self.status, 0)
    }

    fn counter(&self) -> DevicePtr {
        ptr_at(&self.status, 8 * self.tiles as usize)
    }

    /// The persistent grid of kernel `name`: the blocks the GPU runs at once, at most one
    /// per tile.
    fn grid(&self, prog: &Program, name: &'static str) -> Result<u32> {
        Ok(prog.resident_blocks(name)?.min(self.tiles))
    }
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
    let prog = values_program(item, wide);
    let vec = vec_width(item);
    let name = if vec > 1 && aligned(&[x, y], vec) && m.data_ptr().is_multiple_of(vec as u64) {
        "cuprum_compact_v"
    } else {
        "cuprum_compact_1"
    };
    let t = Tiles::new(n, 256 * items_per_thread(item))?;
    let grid = t.grid(&prog, name)?;
    let (status, counter, tiles) = (t.status(), t.counter(), t.tiles);
    if wide {
        prog.launch(
            name,
            grid,
            256,
            (m, x, y, n as u64, status, counter, &t.total, tiles),
        )?;
    } else {
        prog.launch(
            name,
            grid,
            256,
            (m, x, y, n as u32, status, counter, &t.total, tiles),
        )?;
    }
    let count = read_u64(&t.total)?;
    usize::try_from(count).map_err(|_| err!(InvalidArgument, "selected count {count} overflows"))
}

/// Writes the coordinates (in `shape`, C order) of the non-zero elements of the contiguous
/// `m` into `outs` (one int64 array per dimension, each with room for all of them).
pub(crate) fn nonzero_coords(m: &Array, shape: &[usize], outs: &[Array]) -> Result<()> {
    let n = m.size();
    let nd = shape.len();
    if n == 0 || outs.first().is_none_or(|o| o.size() == 0) {
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
    let prog = indices_program(m.dtype(), wide);
    let vec = vec_width(m.itemsize());
    let vector = vec > 1 && aligned(&[m], vec);
    let mut meta = [0u64; 16];
    for (k, &d) in shape.iter().enumerate() {
        meta[k] = d as u64;
        meta[8 + k] = outs[k].data_ptr();
    }
    let name = nonzero_kernel_name(nd, vector);
    let t = Tiles::new(n, 256 * index_items_per_thread(m.itemsize()))?;
    let grid = t.grid(&prog, name)?;
    let (status, counter, tiles) = (t.status(), t.counter(), t.tiles);
    if wide {
        prog.launch(
            name,
            grid,
            256,
            (m, n as u64, status, counter, &t.total, tiles, ByValue(meta)),
        )
    } else {
        prog.launch(
            name,
            grid,
            256,
            (m, n as u32, status, counter, &t.total, tiles, ByValue(meta)),
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
    for &d in DType::ALL {
        v.push((format!("nonzero {}", d.name()), indices_source(d, false)));
    }
    v.push((
        "nonzero bool wide".into(),
        indices_source(DType::Bool, true),
    ));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_stage_16_kib() {
        for item in [1usize, 2, 4, 8, 16] {
            let ipt = items_per_thread(item);
            assert!(256 * ipt * item <= 16384, "{item}");
            assert_eq!(ipt % vec_width(item), 0);
            let ix = index_items_per_thread(item);
            assert!(ix * item <= 64 && ix <= 32, "{item}");
            assert_eq!(ix % vec_width(item), 0);
        }
    }

    #[test]
    fn kernel_names() {
        assert_eq!(nonzero_kernel_name(1, true), "cuprum_nonzero1_v");
        assert_eq!(nonzero_kernel_name(8, false), "cuprum_nonzero8_1");
        let s = indices_source(DType::F32, false);
        for nd in 1..=MAX_ND {
            assert!(s.contains(nonzero_kernel_name(nd, true)));
            assert!(s.contains(nonzero_kernel_name(nd, false)));
        }
    }
}
