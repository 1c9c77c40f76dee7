//! `searchsorted` (NumPy's, with `side` and `sorter`) and `isin`: a binary search per value
//! in a sorted 1-D array.
//!
//! One program per dtype holds every entry point. A first tiny kernel copies up to 1024
//! evenly spaced *samples* of the sorted array; each block of the search kernel stages
//! them in shared memory (one coalesced read), so the first ~10 levels of every search are
//! shared-memory reads and only the last `log2(n / 1024)` levels are dependent global
//! loads. A thread searches `U` values at once in lockstep, so that `U` independent loads
//! are in flight per level. Bytes: the values read once and the result written once, plus
//! `log2(n / 1024)` sectors of the sorted array per value (the upper levels cached).
//!
//! Many values (2^20 or more) in a sorted array larger than the L2 cache (2^22 elements or
//! more) are searched in sorted order: sorted with their positions (`sort_by_key`), each
//! warp's searches then walk nearly one path, whose loads the caches serve, and the
//! insertion points are put back by position. Random values each walked their own path,
//! ~`log2(n / 1024)` dependent loads from memory.
//!
//! Order: NumPy's sort order — NaNs after +inf (a NaN value lands after every number),
//! -0.0 equal to 0.0; complex numbers lexicographically with NumPy's NaN rules.
//!
//! `isin(element, test)`: `x` is in the set when an element of the set equals it (`==`: a
//! NaN is never in it, 0.0 matches -0.0). A small set (its hash table within
//! [`HASH_BYTES`]) becomes, in every block, an open-addressing hash table in shared memory
//! (the element's bits, -0.0 as 0.0; linear probing at a load of at most a quarter; the
//! set's first element marks an empty slot, so an element equal to it is found at once and
//! it is never inserted): about 1.3 shared reads per element where a binary search took
//! ~10 dependent reads and divergent branches (the search ran at 14 % of the copy
//! bandwidth, issue-bound). The table takes only its own size of dynamic shared memory,
//! and the grid is the blocks the device holds at once with it (a grid-stride grid of 8
//! blocks an SM, when only 6 of 32 KiB fit, ran a second, thin wave alone: 55 % of the
//! copy on an H200). A larger set is sorted once ([`sort`](super::sort)) and each
//! element's left insertion point found and compared.

use super::indexing::{IndexMode, take_with};
use super::programs::{PRELUDE, Program, filling_grid, on_device_of, program};
use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::kernel::Dim3;
use crate::shape::format_shape;
use std::fmt::Write;
use std::sync::Arc;

/// Which insertion point [`searchsorted`] returns among equal elements (NumPy's `side`).
///
/// ```
/// use cuprum::ops::Side;
/// assert_eq!(Side::default(), Side::Left);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Side {
    /// The first suitable index: `a[i-1] < v <= a[i]`.
    #[default]
    Left,
    /// The last suitable index: `a[i-1] <= v < a[i]`.
    Right,
}

/// Samples of the sorted array staged per block.
const SAMPLES: usize = 1024;
/// Values a thread searches in lockstep.
const LOCKSTEP: usize = 4;
/// Values from which [`searchsorted`] searches in sorted order, in a sorted array of at
/// least [`BATCH_SORTED`] elements (past what the L2 cache holds).
const BATCH_VALUES: usize = 1 << 20;
/// See [`BATCH_VALUES`].
const BATCH_SORTED: usize = 1 << 22;
/// Shared memory of `isin`'s hash table per block (the `TAB` of the program).
const HASH_BYTES: usize = 32 * 1024;

/// `lt(a, b)`: NumPy's sort order for `d` (NaNs last).
pub(crate) fn less_code(d: DType) -> &'static str {
    if d.is_complex() {
        // NumPy's CFLOAT_LT (npysort): lexicographic, NaNs last in each part.
        "__device__ __forceinline__ bool lt(const T& a, const T& b) {\n\
         \x20 if (a.re < b.re) return a.im == a.im || b.im != b.im;\n\
         \x20 if (a.re > b.re) return b.im != b.im && a.im == a.im;\n\
         \x20 if (a.re == b.re || (a.re != a.re && b.re != b.re)) return a.im < b.im || (b.im != b.im && a.im == a.im);\n\
         \x20 return b.re != b.re;\n}\n"
    } else if d.is_float() {
        "__device__ __forceinline__ bool lt(const T& a, const T& b) { return a < b || (b != b && a == a); }\n"
    } else {
        "__device__ __forceinline__ bool lt(const T& a, const T& b) { return a < b; }\n"
    }
}

fn search_program(d: DType) -> Arc<Program> {
    program(&format!("search|{}", d.name()), || search_source(d))
}

/// The search program of dtype `d`: samples, searchsorted (left, right), isin (plain,
/// inverted).
pub(crate) fn search_source(d: DType) -> String {
    let mut s = String::from(PRELUDE);
    let (w, negzero) = match (d.itemsize(), d.is_float()) {
        (8, true) => ("unsigned long long", "0x8000000000000000ull"),
        (8, false) => ("unsigned long long", "0"),
        (4, true) => ("unsigned int", "0x80000000u"),
        (2, true) => ("unsigned int", "0x8000u"),
        _ => ("unsigned int", "0"),
    };
    let _ = write!(
        s,
        "typedef {t} T;\nconstexpr int S = {SAMPLES};\nconstexpr int U = {LOCKSTEP};\n{lt}\
         typedef {w} W;\nconstexpr bool FLT = {flt};\nconstexpr W NEGZERO = {negzero};\n\
         constexpr int TAB = {HASH_BYTES} / (int)sizeof(W);\n",
        t = d.c_type(),
        lt = less_code(d),
        flt = d.is_float(),
    );
    s.push_str(SEARCH_BODY);
    if !d.is_complex() {
        s.push_str(HASH_BODY);
    }
    s
}

/// `isin` against a small set: a hash table of the set's words in shared memory per block
/// (the module docs).
const HASH_BODY: &str = r#"
// The table's word of x: its bits, -0.0 as 0.0.
__device__ __forceinline__ W hkey(const T& x) {
  W k = 0;
  memcpy(&k, &x, sizeof(T));
  return (FLT && k == NEGZERO) ? (W)0 : k;
}
__device__ __forceinline__ unsigned hslot(W k, int bits) {
  return (unsigned)(((unsigned long long)k * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}
// MODE 0: isin, 1: not isin; t: the set (nt >= 1 elements), 2^bits slots (at most TAB) in
// the block's dynamic shared memory.
template <int MODE>
__device__ __forceinline__ void isin_hash(const T* __restrict__ t, long long nt, const T* __restrict__ v,
    bool* __restrict__ out, long long m, int bits) {
  extern __shared__ __align__(16) unsigned char s_dyn[];
  W* s_tab = reinterpret_cast<W*>(s_dyn);
  const unsigned mask = (1u << bits) - 1u;
  const W empty = hkey(t[0]);
  for (unsigned j = threadIdx.x; j <= mask; j += BLOCK) s_tab[j] = empty;
  __syncthreads();
  for (long long j = 1 + threadIdx.x; j < nt; j += BLOCK) {
    const T x = t[j];
    const W k = hkey(x);
    if ((FLT && x != x) || k == empty) continue;
    for (unsigned s = hslot(k, bits);; s = (s + 1) & mask) {
      const W old = atomicCAS(&s_tab[s], empty, k);
      if (old == empty || old == k) break;
    }
  }
  __syncthreads();
  const long long stride = (long long)gridDim.x * BLOCK * U;
  for (long long q0 = (long long)blockIdx.x * BLOCK * U + threadIdx.x; q0 < m; q0 += stride) {
    T x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long q = q0 + (long long)u * BLOCK;
      if (q < m) x[u] = v[q];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long q = q0 + (long long)u * BLOCK;
      if (q >= m) continue;
      const W k = hkey(x[u]);
      bool found = k == empty, nan = FLT && x[u] != x[u];
      for (unsigned s = hslot(k, bits); !found && !nan; s = (s + 1) & mask) {
        const W w = s_tab[s];
        if (w == empty) break;
        found = w == k;
      }
      out[q] = (found && !nan) != (MODE == 1);
    }
  }
}
#define CUPRUM_ISIN_HASH_ENTRY(NAME, MODE) \
extern "C" __global__ void __launch_bounds__(256) NAME(const T* __restrict__ t, long long nt, \
    const T* __restrict__ v, bool* __restrict__ out, long long m, int bits) { \
  isin_hash<MODE>(t, nt, v, out, m, bits); }
CUPRUM_ISIN_HASH_ENTRY(cuprum_isin_hash, 0)
CUPRUM_ISIN_HASH_ENTRY(cuprum_isin_hash_invert, 1)
"#;

/// The slots (as a power of two) of `isin`'s hash table for a set of `n` elements of `d`:
/// `None` when the table would outgrow [`HASH_BYTES`] (the sorted set is searched).
fn hash_bits(n: usize, d: DType) -> Option<u32> {
    let slots = n.checked_mul(4)?.next_power_of_two().max(64);
    (slots * hash_word(d) <= HASH_BYTES).then(|| slots.trailing_zeros())
}

/// Bytes of one slot of `isin`'s hash table for `d`.
fn hash_word(d: DType) -> usize {
    if d.itemsize() > 4 { 8 } else { 4 }
}

const SEARCH_BODY: &str = r#"
constexpr int BLOCK = 256;
// samples[j] = a[j * step] for j < ns.
extern "C" __global__ void __launch_bounds__(256) cuprum_search_samples(const T* __restrict__ a, long long step,
    long long ns, T* __restrict__ samples) {
  for (long long j = (long long)blockIdx.x * BLOCK + threadIdx.x; j < ns; j += (long long)gridDim.x * BLOCK)
    samples[j] = a[j * step];
}
// Whether element x of the sorted array comes before the insertion point of v.
template <bool RIGHT> __device__ __forceinline__ bool before(const T& x, const T& v) {
  return RIGHT ? !lt(v, x) : lt(x, v);
}
// MODE 0: left insertion points, 1: right ones (int64); 2: isin, 3: not isin (bool).
template <int MODE>
__device__ __forceinline__ void search(const T* __restrict__ a, long long n, const T* __restrict__ samples,
    long long step, int ns, const T* __restrict__ v, void* __restrict__ out, long long m) {
  constexpr bool RIGHT = MODE == 1;
  __shared__ __align__(16) unsigned char s_raw[S * sizeof(T)];
  T* s_samp = reinterpret_cast<T*>(s_raw);
  for (int j = threadIdx.x; j < ns; j += BLOCK) s_samp[j] = samples[j];
  __syncthreads();
  const long long stride = (long long)gridDim.x * BLOCK * U;
  for (long long q0 = (long long)blockIdx.x * BLOCK * U + threadIdx.x; q0 < m; q0 += stride) {
    T x[U];
    long long lo[U], len[U];
    bool ok[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long q = q0 + (long long)u * BLOCK;
      ok[u] = q < m;
      if (ok[u]) x[u] = v[q];
      // the upper levels: among the samples (shared memory)
      int c = 0, l = ok[u] ? ns : 0;
      while (l > 0) {
        const int h = l >> 1;
        if (before<RIGHT>(s_samp[c + h], x[u])) { c += h + 1; l -= h + 1; } else { l = h; }
      }
      lo[u] = c == 0 ? 0 : (long long)(c - 1) * step + 1;
      const long long hi = c == ns ? n : (long long)c * step;
      len[u] = ok[u] ? hi - lo[u] : 0;
    }
    // the lower levels: U searches in lockstep, their loads in flight together
    bool more = true;
    while (more) {
      T y[U];
      long long h[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        h[u] = len[u] >> 1;
        if (len[u] > 0) y[u] = a[lo[u] + h[u]];
      }
      more = false;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (len[u] > 0) {
          if (before<RIGHT>(y[u], x[u])) { lo[u] += h[u] + 1; len[u] -= h[u] + 1; } else { len[u] = h[u]; }
          more = more || len[u] > 0;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (!ok[u]) continue;
      const long long q = q0 + (long long)u * BLOCK;
      if (MODE < 2) {
        ((long long*)out)[q] = lo[u];
      } else {
        const bool found = lo[u] < n && a[lo[u]] == x[u];
        ((bool*)out)[q] = found != (MODE == 3);
      }
    }
  }
}
#define CUPRUM_SEARCH_ENTRY(NAME, MODE) \
extern "C" __global__ void __launch_bounds__(256) NAME(const T* __restrict__ a, long long n, \
    const T* __restrict__ samples, long long step, int ns, const T* __restrict__ v, void* __restrict__ out, long long m) { \
  search<MODE>(a, n, samples, step, ns, v, out, m); }
CUPRUM_SEARCH_ENTRY(cuprum_searchsorted_left, 0)
CUPRUM_SEARCH_ENTRY(cuprum_searchsorted_right, 1)
CUPRUM_SEARCH_ENTRY(cuprum_isin, 2)
CUPRUM_SEARCH_ENTRY(cuprum_isin_invert, 3)
"#;

/// The step between samples and their number for a sorted array of `n` elements.
fn sampling(n: usize) -> (usize, usize) {
    let step = n.div_ceil(SAMPLES).max(1);
    (step, n.div_ceil(step))
}

/// Searches every element of the contiguous `v` in the contiguous sorted 1-D `a` (both of
/// the same dtype) with kernel `name`, writing `out` (`v`'s size).
fn run_search(a: &Array, v: &Array, out: &Array, name: &'static str) -> Result<()> {
    let (n, m) = (a.size(), v.size());
    if m == 0 {
        return Ok(());
    }
    let prog = search_program(a.dtype());
    let (step, ns) = sampling(n);
    let samples = Array::empty(&[ns.max(1)], a.dtype())?;
    if ns > 0 {
        prog.launch(
            "cuprum_search_samples",
            filling_grid(ns, 256)?,
            256,
            (a, step as i64, ns as i64, &samples),
        )?;
    }
    prog.launch(
        name,
        filling_grid(m, 256 * LOCKSTEP)?,
        256,
        (
            a,
            n as i64,
            &samples,
            step as i64,
            ns as i32,
            v,
            out,
            m as i64,
        ),
    )
}

/// `x` as a contiguous array of `d`.
fn contiguous_as(x: &Array, d: DType) -> Result<Array> {
    if x.dtype() == DType::Bool && d == DType::Bool {
        // bools as 0 and 1 whatever their bytes: the search and hash kernels compare bytes
        return super::not_equal(x, false);
    }
    if x.dtype() == d {
        x.to_contiguous()
    } else {
        x.astype(d)?.to_contiguous()
    }
}

/// The indices where the elements of `v` would be inserted into the sorted 1-D `a` to keep
/// it sorted (NumPy's `searchsorted`; int64, `v`'s shape, 0-d for a 0-d `v`). `a` and `v`
/// compare in their promoted dtype, in NumPy's sort order (NaNs last). `a` must be sorted
/// (not checked: the result is then unspecified, as in NumPy).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::{self, Side}};
/// let a = Array::from_slice(&[1.0f32, 2.0, 2.0, 3.0], &[4])?;
/// let v = Array::from_slice(&[2.0f32, 0.5, 9.0], &[3])?;
/// assert_eq!(ops::searchsorted(&a, &v, Side::Left)?.to_vec::<i64>()?, vec![1, 0, 4]);
/// assert_eq!(ops::searchsorted(&a, &v, Side::Right)?.to_vec::<i64>()?, vec![3, 0, 4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn searchsorted(a: &Array, v: &Array, side: Side) -> Result<Array> {
    searchsorted_with(a, v, side, None)
}

/// [`searchsorted`] with NumPy's `sorter`: integer indices that sort `a` (as from
/// [`argsort`](super::argsort)); `a` itself need not be sorted. The sorter has `a`'s
/// length; an index outside `[-n, n)` is an error.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::{self, Side}};
/// let a = Array::from_slice(&[30i32, 10, 20], &[3])?;
/// let order = ops::argsort(&a, Some(0))?;
/// let v = Array::from_slice(&[25i32], &[])?;
/// let i = ops::searchsorted_with(&a, &v, Side::Left, Some(&order))?;
/// assert_eq!((i.shape(), i.to_vec::<i64>()?), (&[][..], vec![2]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn searchsorted_with(
    a: &Array,
    v: &Array,
    side: Side,
    sorter: Option<&Array>,
) -> Result<Array> {
    if super::programs::is_elsewhere(a)? {
        return on_device_of(a, || searchsorted_with(a, v, side, sorter));
    }
    check_1d(a, "searchsorted: a")?;
    let d = super::promote_types(a.dtype(), v.dtype());
    let sorted = match sorter {
        None => a.clone(),
        Some(s) => {
            if s.ndim() != 1 || s.size() != a.size() {
                bail!(
                    Shape,
                    "sorter.size must equal a.size: a has {} elements, the sorter has shape {}",
                    a.size(),
                    format_shape(s.shape())
                );
            }
            if !s.dtype().is_integer() {
                bail!(
                    DType,
                    "searchsorted: the sorter must hold integers, got an array of {}",
                    s.dtype()
                );
            }
            take_with(a, s, None, IndexMode::Raise).map_err(|e| {
                if e.kind() == crate::ErrorKind::Shape {
                    err!(Shape, "Sorter index out of range. ({e})")
                } else {
                    e
                }
            })?
        }
    };
    let out = Array::empty(v.shape(), DType::I64)?;
    if v.size() == 0 {
        return Ok(out);
    }
    if a.size() == 0 {
        out.fill(0i64)?;
        return Ok(out);
    }
    let (a_c, v_c) = (contiguous_as(&sorted, d)?, contiguous_as(v, d)?);
    let name = match side {
        Side::Left => "cuprum_searchsorted_left",
        Side::Right => "cuprum_searchsorted_right",
    };
    let m = v_c.size();
    if m >= BATCH_VALUES && a_c.size() >= BATCH_SORTED && m <= super::radix::MAX_SORT {
        // In sorted order (the module docs): the values sorted with their positions, searched,
        // the insertion points put back where their values were.
        let pos = Array::arange_int(0, m as i128, 1, DType::U32)?;
        let (sv, sp) = super::sort_by_key(&v_c.reshape(&[-1])?, &pos)?;
        let found = Array::empty(&[m], DType::I64)?;
        run_search(&a_c, &sv, &found, name)?;
        super::put_with(&out.reshape(&[-1])?, &sp, &found, IndexMode::Clip)?;
        return Ok(out);
    }
    run_search(&a_c, &v_c, &out, name)?;
    Ok(out)
}

/// NumPy's errors for an array that must be 1-D (`what` names it; histogram's inputs too).
pub(super) fn check_1d(a: &Array, what: &str) -> Result<()> {
    match a.ndim() {
        1 => Ok(()),
        0 => bail!(
            Shape,
            "{what} must be 1-D: object of too small depth for desired array (got a 0-d array)"
        ),
        _ => bail!(
            Shape,
            "{what} must be 1-D: object too deep for desired array (got shape {})",
            format_shape(a.shape())
        ),
    }
}

/// Whether each element of `element` is in `test_elements` (NumPy's `isin`: bool, of
/// `element`'s shape; the test set is flattened). Elements compare with `==` in the
/// promoted dtype: NaN is in no set, 0.0 and -0.0 match. The test set is sorted once,
/// then each element is a binary search. Complex inputs are not supported (the sort does
/// not order them).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let e = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
/// let t = Array::from_slice(&[4i64, 1, 9], &[3])?;
/// assert_eq!(ops::isin(&e, &t)?.to_vec::<bool>()?, vec![true, false, false, true]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn isin(element: &Array, test_elements: &Array) -> Result<Array> {
    isin_with(element, test_elements, false)
}

/// [`isin`] with NumPy's `invert`: `invert = true` gives `!isin(element, test_elements)`
/// in the same pass.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let e = Array::from_slice(&[0.5f64, f64::NAN, 2.0], &[3])?;
/// let t = Array::from_slice(&[2.0f32, f32::NAN], &[2])?;
/// assert_eq!(ops::isin_with(&e, &t, true)?.to_vec::<bool>()?, vec![true, true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn isin_with(element: &Array, test_elements: &Array, invert: bool) -> Result<Array> {
    if super::programs::is_elsewhere(element)? {
        return on_device_of(element, || isin_with(element, test_elements, invert));
    }
    let d = super::promote_types(element.dtype(), test_elements.dtype());
    if d.is_complex() {
        bail!(
            Unsupported,
            "isin of {} and {} (promoted to {d}) is not supported: the test set is sorted, and \
             complex numbers are not",
            element.dtype(),
            test_elements.dtype()
        );
    }
    let out = Array::empty(element.shape(), DType::Bool)?;
    if element.size() == 0 {
        return Ok(out);
    }
    if test_elements.size() == 0 {
        out.fill(invert)?;
        return Ok(out);
    }
    let test = contiguous_as(&test_elements.reshape_copy(&[-1])?, d)?;
    let e = contiguous_as(element, d)?;
    if let Some(bits) = hash_bits(test.size(), d) {
        let name = if invert {
            "cuprum_isin_hash_invert"
        } else {
            "cuprum_isin_hash"
        };
        let (nt, m) = (test.size() as i64, e.size() as i64);
        let table = hash_word(d) << bits;
        let k = search_program(d).kernel(name)?;
        // One wave: as many blocks as the device holds at once with this table (a grid
        // past that leaves a second, thin wave to finish alone).
        let resident = k.occupancy(256, table as u32)?.resident_blocks();
        let grid = e
            .size()
            .div_ceil(256 * LOCKSTEP)
            .clamp(1, resident.max(1) as usize);
        k.configure(Dim3(grid as u32, 1, 1), Dim3(256, 1, 1))
            .shared_mem(table)
            .launch((&test, nt, &e, &out, m, bits as i32))?;
        return Ok(out);
    }
    let sorted = super::sort(&test, None)?;
    let name = if invert {
        "cuprum_isin_invert"
    } else {
        "cuprum_isin"
    };
    run_search(&sorted, &e, &out, name)?;
    Ok(out)
}

impl Array {
    /// [`ops::searchsorted`](crate::ops::searchsorted) of `v` in this sorted 1-D array
    /// (NumPy's `a.searchsorted(v, side)`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops::Side};
    /// let a = Array::from_slice(&[1u8, 3, 5], &[3])?;
    /// let v = Array::from_slice(&[3u8, 4], &[2])?;
    /// assert_eq!(a.searchsorted(&v, Side::Right)?.to_vec::<i64>()?, vec![2, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn searchsorted(&self, v: &Array, side: Side) -> Result<Array> {
        searchsorted(self, v, side)
    }
}

/// Every search program's source (NVRTC compile checks): every dtype.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    DType::ALL
        .iter()
        .map(|&d| (format!("search {}", d.name()), search_source(d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cover_the_array() {
        assert_eq!(sampling(0), (1, 0));
        assert_eq!(sampling(5), (1, 5));
        assert_eq!(sampling(SAMPLES), (1, SAMPLES));
        let (step, ns) = sampling(SAMPLES + 1);
        assert_eq!((step, ns), (2, SAMPLES / 2 + 1));
        for n in [1usize, 1000, 1025, 100_000_000] {
            let (step, ns) = sampling(n);
            assert!(
                ns <= SAMPLES && (ns - 1) * step < n && ns * step >= n,
                "{n}"
            );
        }
    }

    #[test]
    fn hash_tables_fit_their_shared_memory() {
        assert_eq!(hash_bits(1, DType::I32), Some(6));
        assert_eq!(hash_bits(1000, DType::I32), Some(12));
        assert_eq!(hash_bits(2048, DType::F32), Some(13));
        assert_eq!(hash_bits(2049, DType::F32), None);
        assert_eq!(hash_bits(1024, DType::F64), Some(12));
        assert_eq!(hash_bits(1025, DType::I64), None);
        assert_eq!(hash_bits(2048, DType::U8), Some(13));
    }

    #[test]
    fn every_entry_point_is_in_the_source() {
        let s = search_source(DType::C64);
        for name in [
            "cuprum_search_samples(",
            "cuprum_searchsorted_left,",
            "cuprum_searchsorted_right,",
            "cuprum_isin,",
            "cuprum_isin_invert,",
        ] {
            assert!(s.contains(name), "{name}");
        }
        assert!(
            !s.contains("cuprum_isin_hash"),
            "no hash table of complex numbers"
        );
        let h = search_source(DType::F16);
        assert!(h.contains("b != b"));
        for name in ["cuprum_isin_hash,", "cuprum_isin_hash_invert,"] {
            assert!(h.contains(name), "{name}");
        }
    }
}
