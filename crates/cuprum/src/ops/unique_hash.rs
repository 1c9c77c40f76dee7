//! `unique` of a large integer array by a hash table in global memory: the distinct values
//! are collected in one pass over the input, and only they are sorted.
//!
//! The sort path (`ops/unique.rs`) sorts every element, four or eight radix passes over the
//! whole input, to keep one element per run. When the distinct values are few, a table of
//! them fits the L2 cache: one read of the input inserts each element into an
//! open-addressing table (its bits hashed multiplicatively, linear probing, a slot claimed
//! by `atomicCAS`; the input's first element marks an empty slot and is never inserted, as
//! in `isin`'s table), the table's occupied slots are compacted (warp-aggregated appends,
//! in any order), and the few values are sorted. Bytes: the input read once, plus the
//! table's traffic, which the L2 cache serves (16 MiB at most).
//!
//! The table has room for [`limit`] values (half its slots, so probes stay short). The
//! inserting kernel counts the values it adds; past the limit it raises a flag and every
//! block stops, and `unique` sorts instead. With many distinct values the limit is reached
//! early (after about `limit` elements of a shuffled input), so the attempt costs a small
//! part of one pass; its worst case, a distinct count just above the limit, one pass.
//!
//! Which inputs: 4- and 8-byte integers (their equality is their bits' equality) of at
//! least [`HASH_MIN`] elements; floating-point values (-0.0 and 0.0, NaNs), smaller
//! integers and small inputs sort. One device → host read (the count and the flag), as
//! the sort path's compaction has one.

use super::programs::{
    PRELUDE, Program, bits_type, filling_grid, on_device_of, program, zeroed_scratch,
};
use super::sort::sort;
use crate::array::{Array, DType};
use crate::error::Result;
use std::fmt::Write;
use std::sync::Arc;

/// Elements below which `unique` sorts (the table's fill and the extra read cost more than
/// the sort saves).
pub(crate) const HASH_MIN: usize = 1 << 20;
/// Bytes of the table at most (it must stay in L2 with room for the streaming input).
const TABLE_BYTES: usize = 16 << 20;
/// Elements each thread of the inserting kernel loads at once.
const LOCKSTEP: usize = 4;

/// Whether the hash path takes `a` (its dtype and size; the distinct count is found out).
pub(crate) fn applies(a: &Array) -> bool {
    matches!(a.dtype(), DType::I32 | DType::U32 | DType::I64 | DType::U64) && a.size() >= HASH_MIN
}

/// The table's slots as a power of two for `n` elements of `item` bytes: twice `n`
/// (every value fits), at most [`TABLE_BYTES`].
fn table_bits(n: usize, item: usize) -> u32 {
    let most = (TABLE_BYTES / item).trailing_zeros();
    let want = n.saturating_mul(2).next_power_of_two().trailing_zeros();
    want.min(most)
}

/// Values the table takes before the hash path gives up: half its slots.
fn limit(bits: u32) -> u64 {
    1u64 << (bits - 1)
}

fn hash_program(d: DType) -> Arc<Program> {
    program(&format!("unique_hash|{}", d.itemsize()), || {
        hash_source(d.itemsize())
    })
}

/// The program for elements of `item` bytes (4 or 8): fill, insert, gather.
pub(crate) fn hash_source(item: usize) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(
        s,
        "typedef {w} W;\nconstexpr int BLOCK = 256;\nconstexpr int U = {LOCKSTEP};",
        w = bits_type(item)
    );
    s.push_str(HASH_BODY);
    s
}

const HASH_BODY: &str = r#"
__device__ __forceinline__ unsigned long long uslot(W k, int bits) {
  return ((unsigned long long)k * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}
// state[0]: values inserted, state[1]: the table is full (give up), state[2]: the gather's cursor.
__device__ __forceinline__ void give_up(unsigned long long* state) { atomicExch(&state[1], 1ull); }

// Inserts k (not `empty`) probing from slot s, where w was read. A slot only ever goes
// from `empty` to a value, so a stale `empty` read is corrected by the compare-and-swap.
__device__ __forceinline__ void uinsert(W* tab, unsigned long long mask, W empty, W k,
    unsigned long long s, W w, unsigned long long* state, unsigned long long limit) {
  for (unsigned long long probes = 0; probes <= mask; ++probes) {
    if (w == k) return;
    if (w == empty) {
      const W old = atomicCAS(&tab[s], empty, k);
      if (old == empty) {
        if (atomicAdd(&state[0], 1ull) >= limit) give_up(state);
        return;
      }
      if (old == k) return;
    }
    s = (s + 1) & mask;
    w = tab[s];
  }
  give_up(state);
}

// Every slot of the table (2^bits of them) set to the input's first element (`empty`).
extern "C" __global__ void __launch_bounds__(256) cuprum_unique_fill(const W* __restrict__ a,
    W* __restrict__ tab, long long slots) {
  const W empty = a[0];
  for (long long j = (long long)blockIdx.x * BLOCK + threadIdx.x; j < slots; j += (long long)gridDim.x * BLOCK)
    tab[j] = empty;
}

extern "C" __global__ void __launch_bounds__(256) cuprum_unique_insert(const W* __restrict__ a,
    long long n, W* tab, int bits, unsigned long long* state, unsigned long long limit) {
  const W empty = a[0];
  const unsigned long long mask = (1ull << bits) - 1ull;
  const long long stride = (long long)gridDim.x * BLOCK * U;
  for (long long q0 = (long long)blockIdx.x * BLOCK * U + threadIdx.x; q0 < n; q0 += stride) {
    if (*(volatile unsigned long long*)&state[1]) return;
    W k[U];
    W w[U];
    unsigned long long s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long q = q0 + (long long)u * BLOCK;
      k[u] = q < n ? __ldcs(a + q) : empty;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      s[u] = uslot(k[u], bits);
      w[u] = k[u] == empty ? empty : tab[s[u]];
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k[u] != empty && w[u] != k[u]) uinsert(tab, mask, empty, k[u], s[u], w[u], state, limit);
  }
}

// The occupied slots appended to out (in any order), then `empty` at out[m].
extern "C" __global__ void __launch_bounds__(256) cuprum_unique_gather(const W* __restrict__ a,
    const W* __restrict__ tab, long long slots, W* __restrict__ out, unsigned long long* state,
    long long m) {
  const W empty = a[0];
  const unsigned lane = threadIdx.x & 31u;
  const long long stride = (long long)gridDim.x * BLOCK;
  for (long long j0 = (long long)blockIdx.x * BLOCK + (threadIdx.x & ~31u); j0 < slots; j0 += stride) {
    const long long j = j0 + lane;
    const W w = j < slots ? tab[j] : empty;
    const bool keep = w != empty;
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (ballot == 0u) continue;
    const int leader = __ffs(ballot) - 1;
    unsigned base = 0;
    if ((int)lane == leader) base = (unsigned)atomicAdd(&state[2], (unsigned long long)__popc(ballot));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (keep) out[base + __popc(ballot & ((1u << lane) - 1u))] = w;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) out[m] = empty;
}
"#;

/// The sorted unique values of the 1-D contiguous `a` (see [`applies`]) through the hash
/// table, or `None` when its distinct values outnumber the table's limit (sort instead).
pub(crate) fn hashed_unique(a: &Array) -> Result<Option<Array>> {
    on_device_of(a, || {
        let (n, d) = (a.size(), a.dtype());
        let bits = table_bits(n, d.itemsize());
        let slots = 1usize << bits;
        let prog = hash_program(d);
        let tab = Array::empty(&[slots], d)?;
        let state = zeroed_scratch(3 * 8)?;
        prog.launch(
            "cuprum_unique_fill",
            filling_grid(slots, 256)?,
            256,
            (a, &tab, slots as i64),
        )?;
        prog.launch(
            "cuprum_unique_insert",
            filling_grid(n.div_ceil(LOCKSTEP), 256)?,
            256,
            (a, n as i64, &tab, bits as i32, &state, limit(bits)),
        )?;
        let st = state.to_vec::<u64>()?;
        if st.get(1).is_none_or(|&full| full != 0) {
            return Ok(None);
        }
        let m = st[0] as usize;
        let out = Array::empty(&[m + 1], d)?;
        prog.launch(
            "cuprum_unique_gather",
            filling_grid(slots, 256)?,
            256,
            (a, &tab, slots as i64, &out, &state, m as i64),
        )?;
        sort(&out, None).map(Some)
    })
}

/// The hash programs' sources (NVRTC compile checks).
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    [4, 8]
        .iter()
        .map(|&i| (format!("unique_hash {i}"), hash_source(i)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_twice_the_input_up_to_16_mib() {
        assert_eq!(table_bits(1 << 20, 4), 21);
        assert_eq!(table_bits((1 << 20) + 1, 4), 22);
        assert_eq!(table_bits(100_000_000, 4), 22);
        assert_eq!(table_bits(100_000_000, 8), 21);
        assert_eq!(limit(22), 1 << 21);
    }

    #[test]
    fn every_entry_point_is_in_the_source() {
        for item in [4, 8] {
            let s = hash_source(item);
            for k in [
                "cuprum_unique_fill",
                "cuprum_unique_insert",
                "cuprum_unique_gather",
            ] {
                assert!(s.contains(k), "{k} missing for {item}-byte elements");
            }
        }
    }
}
