//! Order statistics by radix **select**: the keys at a few ranks of a 1-D array without
//! sorting it (the median and quantiles of one row, `ops/quantile.rs`).
//!
//! Keys are the sort's (`ops/sort.rs`: unsigned order is NumPy's order, every NaN one key
//! above +inf). The select looks at 8-bit digits from the most significant: each pass
//! counts, for every wanted rank, the digit of the keys that share the rank's prefix so
//! far; the last block to finish (an atomic ticket) scans those counts, appends the digit
//! holding the rank to its prefix and makes the rank relative to that digit's keys. After
//! `itemsize` passes each prefix is the whole key at its rank.
//!
//! Bytes: the first two passes read the input (the second also keeps the keys under any
//! rank's prefix, usually a 256th of them, in a candidate buffer); the later passes read
//! only the candidates. A median of 1e8 float32 thus reads about 0.8 GB where the sort moved
//! about 6.4 GB. Ranks sharing a prefix share one count (the two middle ranks of an even
//! median nearly always do); at most [`MAX_RANKS`] ranks per call. A run of equal keys
//! costs no more than random ones: a warp whose lanes all add to one count adds once.
//!
//! The ranks come from device memory (an int64 array: the caller may compute them on the
//! device, as the quantiles' virtual indices are), and so does everything between passes:
//! no host synchronisation. Also reported: whether any key is the NaN key (a float row
//! holding a NaN has a NaN median).

use super::programs::{PRELUDE, Program, program, ptr_at, zeroed_scratch};
use super::sort::{key_code, nan_key};
use crate::array::{Array, DType, DTypeKind};
use crate::error::{Result, bail};
use crate::kernel::DevicePtr;
use crate::runtime::Device;
use std::fmt::Write;
use std::sync::Arc;

/// The most ranks one select finds.
pub(crate) const MAX_RANKS: usize = 8;

/// Words of the state: the prefix, the remaining rank and the sharing slot of each rank,
/// then the candidates' count, the NaN flag and the blocks done (the `ST_*` of the body).
const STATE_WORDS: usize = 3 * MAX_RANKS + 3;

/// Whether the select takes dtype `d` (real numbers and bools: the sort's scalar keys).
pub(crate) fn selectable(d: DType) -> bool {
    matches!(
        d.kind(),
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt | DTypeKind::Float
    )
}

fn select_program(d: DType) -> Result<Arc<Program>> {
    let src = select_source(d)?;
    Ok(program(&format!("select|{}", d.name()), || src))
}

/// The CUDA source of the select over dtype `d`.
pub(crate) fn select_source(d: DType) -> Result<String> {
    if !selectable(d) {
        bail!(
            DType,
            "a radix select takes real numbers or bools, given {d}"
        );
    }
    let (k, code) = key_code(d, false)?;
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "typedef {k} K;\nconstexpr bool HAS_NAN = {};\nconstexpr K NAN_KEY = (K){};\n\
         constexpr int RMAX = {MAX_RANKS};\n{code}",
        nan_key(d).is_some(),
        nan_key(d).unwrap_or("0"),
    );
    s.push_str(SELECT_BODY);
    Ok(s)
}

const SELECT_BODY: &str = r#"
constexpr int BLOCK = 256, IT = 8, TILE = BLOCK * IT, KB = 8 * (int)sizeof(K);
// State words: prefix, remaining rank and the slot whose counts it shares, per rank; then
// the candidates kept, the NaN flag, the blocks done with this pass.
constexpr int ST_PRE = 0, ST_K = RMAX, ST_GRP = 2 * RMAX, ST_CNT = 3 * RMAX, ST_NAN = ST_CNT + 1,
              ST_DONE = ST_CNT + 2;
typedef unsigned long long U;

// Whether key `kk` has prefix `pre` above the digit at `shift` (always, in the first pass).
__device__ __forceinline__ bool under(K kk, U pre, int shift) {
  return shift + 8 >= KB || (U)(kk >> (shift + 8)) == (pre >> (shift + 8));
}

// Run by the pass's last block: for rank r (warp r), the digit whose keys hold it, from
// the counts of its slot; then the counts cleared, the slots regrouped by prefix, and after
// the last pass the keys' values written (`out[nr]`: the NaN when one was seen).
__device__ void pick(U* st, U* hist, const long long* ranks, K* out, int nr, int shift, int last) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (warp < nr) {
    const int g = (int)st[ST_GRP + warp];
    const U k = shift + 8 >= KB ? (U)ranks[warp] : st[ST_K + warp];
    U c[8], sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) { c[j] = rt::ld_relaxed(&hist[g * 256 + 8 * lane + j]); sum += c[j]; }
    U incl = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { const U y = rt::shfl_up(incl, o); if (lane >= o) incl += y; }
    U e = incl - sum;
    if (k >= e && k < incl) {
      int digit = 8 * lane + 7;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (k < e + c[j]) { digit = 8 * lane + j; break; }
        e += c[j];
      }
      st[ST_PRE + warp] |= (U)digit << shift;
      st[ST_K + warp] = k - e;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nr * 256; i += BLOCK) hist[i] = 0;
  if (threadIdx.x == 0) {
    for (int r = 0; r < nr; ++r) {
      int g = r;
      for (int q = 0; q < r; ++q) if (st[ST_PRE + q] == st[ST_PRE + r]) { g = q; break; }
      st[ST_GRP + r] = (U)g;
    }
    st[ST_DONE] = 0;
    if (last) {
      for (int r = 0; r < nr; ++r) out[r] = from_key((K)st[ST_PRE + r]);
      out[nr] = HAS_NAN && rt::ld_relaxed(&st[ST_NAN]) != 0 ? from_key(NAN_KEY) : out[0];
    }
  }
}

// One pass over the digit at `shift`. MODE 0: the keys of the input; 1: the same, keeping
// the keys under any rank's prefix in `cand`; 2: the candidates kept.
template <int MODE>
__device__ void select_pass(const K* __restrict__ x, K* __restrict__ cand, U n, U* st, U* hist,
                            const long long* __restrict__ ranks, K* __restrict__ out, int nr,
                            int shift, int last) {
  __shared__ unsigned s_h[RMAX][256];
  __shared__ U s_pre[RMAX];
  __shared__ int s_slot[RMAX];
  __shared__ int s_nl, s_nan, s_last;
  if (threadIdx.x == 0) {
    int nl = 0;
    for (int r = 0; r < nr; ++r)
      if ((int)st[ST_GRP + r] == r) { s_slot[nl] = r; s_pre[nl] = st[ST_PRE + r]; ++nl; }
    s_nl = nl;
    s_nan = 0;
  }
  for (int i = threadIdx.x; i < RMAX * 256; i += BLOCK) s_h[i >> 8][i & 255] = 0u;
  __syncthreads();
  const int nl = s_nl, lane = threadIdx.x & 31;
  const U cnt = MODE == 2 ? st[ST_CNT] : n;
  const K* src = MODE == 2 ? cand : x;
  bool nan = false;
  for (U base = (U)blockIdx.x * TILE; base < cnt; base += (U)gridDim.x * TILE) {
    K v[IT];
#pragma unroll
    for (int j = 0; j < IT; ++j) {
      const U i = base + (U)(j * BLOCK) + threadIdx.x;
      v[j] = i < cnt ? src[i] : (K)0;
    }
#pragma unroll
    for (int j = 0; j < IT; ++j) {
      const bool valid = base + (U)(j * BLOCK) + threadIdx.x < cnt;
      const K kk = MODE == 2 ? v[j] : to_key(v[j]);
      if (HAS_NAN && MODE != 2 && valid && kk == NAN_KEY) nan = true;
      const unsigned d = (unsigned)(kk >> shift) & 255u;
      const unsigned d0 = __shfl_sync(rt::FULL, d, 0);
      bool any = false;
      for (int l = 0; l < nl; ++l) {
        const bool m = valid && under(kk, s_pre[l], shift);
        any = any || m;
        if (__all_sync(rt::FULL, m && d == d0)) {
          if (lane == 0) atomicAdd(&s_h[l][d0], 32u);
        } else if (m) {
          atomicAdd(&s_h[l][d], 1u);
        }
      }
      if (MODE == 1) {
        const unsigned take = __ballot_sync(rt::FULL, any);
        if (take != 0u) {
          const int lead = __ffs(take) - 1;
          U at = 0;
          if (lane == lead) at = atomicAdd(&st[ST_CNT], (U)__popc(take));
          at = rt::shfl_idx(at, lead);
          if (any) cand[at + (U)__popc(take & rt::lanemask_lt())] = kk;
        }
      }
    }
  }
  if (nan) s_nan = 1;
  __syncthreads();
  for (int i = threadIdx.x; i < nl * 256; i += BLOCK) {
    const unsigned c = s_h[i >> 8][i & 255];
    if (c != 0u) atomicAdd(&hist[s_slot[i >> 8] * 256 + (i & 255)], (U)c);
  }
  if (threadIdx.x == 0 && s_nan) atomicOr(&st[ST_NAN], 1ull);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(&st[ST_DONE], 1ull) == (U)gridDim.x - 1;
  __syncthreads();
  if (s_last) {
    __threadfence();
    pick(st, hist, ranks, out, nr, shift, last);
  }
}

// (Entries made by a macro, like the sort's: the host device's rewrite lists every
// `__global__` it reads.)
#define CUPRUM_SELECT_ENTRY(NAME, MODE) \
extern "C" __global__ void __launch_bounds__(256) NAME(const K* __restrict__ x, K* __restrict__ cand, \
    U n, U* st, U* hist, const long long* __restrict__ ranks, K* __restrict__ out, int nr, int shift, \
    int last) { select_pass<MODE>(x, cand, n, st, hist, ranks, out, nr, shift, last); }
CUPRUM_SELECT_ENTRY(cuprum_select_input, 0)
CUPRUM_SELECT_ENTRY(cuprum_select_compact, 1)
CUPRUM_SELECT_ENTRY(cuprum_select_cand, 2)
"#;

/// The values of the contiguous 1-D `x` at the `ranks.size()` ranks of `ranks` (int64, each
/// below `x.size()`, at most [`MAX_RANKS`]) in sorted order (NaNs last), as an array of
/// `x`'s dtype with one more element: `x`'s NaN when it holds one, else the first value.
pub(crate) fn select(x: &Array, ranks: &Array) -> Result<Array> {
    let (n, nr, d) = (x.size(), ranks.size(), x.dtype());
    if !(1..=MAX_RANKS).contains(&nr) || ranks.dtype() != DType::I64 || n == 0 {
        bail!(
            InvalidArgument,
            "select: 1 to {MAX_RANKS} int64 ranks of a non-empty array, given {nr} {} ranks \
             of {n} elements",
            ranks.dtype()
        );
    }
    let prog = select_program(d)?;
    let passes = d.itemsize();
    let out = Array::empty(&[nr + 1], d)?;
    // state words | counts [MAX_RANKS][256] (u64)
    let scratch = zeroed_scratch(8 * (STATE_WORDS + MAX_RANKS * 256))?;
    let (st, hist) = (ptr_at(&scratch, 0), ptr_at(&scratch, 8 * STATE_WORDS));
    let cand = Array::empty(&[if passes > 2 { n } else { 0 }], d)?;
    let sms = Device::current()?.sm_count().max(1) as usize;
    let grid = n.div_ceil(256 * 8).clamp(1, sms * 8) as u32;
    for p in 0..passes {
        let name = match p {
            0 => "cuprum_select_input",
            1 if passes > 2 => "cuprum_select_compact",
            1 => "cuprum_select_input",
            _ => "cuprum_select_cand",
        };
        let shift = 8 * (passes - 1 - p) as i32;
        prog.launch(
            name,
            grid,
            256,
            (
                x,
                DevicePtr(cand.data_ptr()),
                n as u64,
                st,
                hist,
                ranks,
                DevicePtr(out.data_ptr()),
                nr as i32,
                shift,
                i32::from(p + 1 == passes),
            ),
        )?;
    }
    Ok(out)
}

/// The select's source for every dtype it takes, for compile checks.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    DType::ALL
        .iter()
        .filter(|&&d| selectable(d))
        .filter_map(|&d| Some((format!("select {}", d.name()), select_source(d).ok()?)))
        .collect()
}
