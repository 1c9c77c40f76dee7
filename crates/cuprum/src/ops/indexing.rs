//! Gathers and scatters by index arrays: `take`, `put`, `scatter_add` (NumPy's
//! `add.at`, CuPy's `cupyx.scatter_add`), and the index-producing routines `nonzero`,
//! `flatnonzero`, `where_nonzero` (NumPy's one-argument `where`) and `compress`.
//!
//! Out-of-range indices: [`IndexMode::Raise`] (NumPy's default) checks on the device: the
//! kernel skips a bad index and records it in an error flag, a slot of host memory mapped
//! into the device's address space (`runtime/flags.rs`) that the host zeroes before the
//! launch and reads after synchronising the stream: one synchronisation, and no
//! allocation, memset or copy (those cost about 8 µs of GPU time per call on an H200).
//! Refused inside a graph capture, before anything is launched: the host could not read
//! the flag.
//! [`IndexMode::Wrap`] and [`IndexMode::Clip`] need no check and no synchronisation.
//!
//! A random gather's time is its scattered 32-byte sectors (`take` of 10^7 float32 from
//! 10^8 runs level with CuPy's elementwise twin, both at the sectors' rate). Measured and
//! not taken (H100, 2026-12-06, outside the library, µs): the L2 fetch granularity
//! (`cudaLimitMaxL2FetchGranularity`, a context-wide hint, 64 bytes by default) at 32 left
//! the gather at 352.1 (352.2 at 64), a random scatter at 749.1 (749.0) and slowed binary
//! searches of 10^7 needles in 10^8 keys 2414 → 2606; at 128 the gather took 473.2.

use super::compact::{MAX_ND, nonzero_coords};
use super::programs::{PRELUDE, Program, bits_type, blocks_for, fits_u32, program};
use crate::array::{Array, DType, Scalar};
use crate::error::{Result, bail, err};
use crate::kernel::{ByValue, DevicePtr, ElementwiseKernel, IntoOperand, Operand};
use crate::runtime::{ErrorFlag, Stream};
use crate::shape::{Shape, format_shape, merge_dims_of_views, normalize_axis};
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// What `take` and `put` do with an index outside `[-n, n)` (NumPy's `mode`). Negative
/// indices in `[-n, -1]` count from the end in `Raise` and `Wrap` modes.
///
/// ```
/// use cuprum::ops::IndexMode;
/// assert_eq!(IndexMode::default(), IndexMode::Raise);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexMode {
    /// An error naming the first bad index found (checked on the device; costs one
    /// synchronisation).
    #[default]
    Raise,
    /// Indices wrap around (Python's `%`).
    Wrap,
    /// Indices are clipped into `[0, n - 1]` (negative ones become 0, as in NumPy).
    Clip,
}

impl IndexMode {
    fn code(self) -> i32 {
        match self {
            IndexMode::Raise => 0,
            IndexMode::Wrap => 1,
            IndexMode::Clip => 2,
        }
    }
}

pub(super) fn idx_type(wide: bool) -> &'static str {
    if wide {
        "unsigned long long"
    } else {
        "unsigned int"
    }
}

/// Index arithmetic shared by the gather and scatter programs.
pub(super) const INDEX_FIX: &str = r#"
struct Meta { long long shape[8]; long long stride[8]; };
// Records the bad index `orig` in the error flag (err[0] = 1, err[1] = an index): host
// memory the device writes through, where every access crosses the bus and atomics on one
// word queue one after another (about a microsecond each on an H200: 10^7 bad indices took
// 11 s when each did its own). So one lane of the lanes here at once reports, and only
// while the flag still reads clear (reads of one word go out in parallel).
__device__ __forceinline__ void report_bad_index(unsigned long long* err, long long orig) {
  const unsigned lanes = __activemask();
  if ((int)(threadIdx.x & 31u) != __ffs(lanes) - 1) return;
  if (*(volatile unsigned long long*)err != 0ull) return;
  if (atomicCAS(err, 0ull, 1ull) == 0ull) err[1] = (unsigned long long)orig;
}
// Applies `mode` (0 raise, 1 wrap, 2 clip) to index k of an axis of extent len > 0; in
// raise mode a bad index is recorded (`report_bad_index`) and skipped.
__device__ __forceinline__ bool fix_index(long long& k, long long len, int mode, unsigned long long* err) {
  if (mode == 1) { k %= len; if (k < 0) k += len; return true; }
  if (mode == 2) { k = k < 0 ? 0 : (k >= len ? len - 1 : k); return true; }
  const long long orig = k;
  if (k < 0) k += len;
  if (k < 0 || k >= len) {
    report_bad_index(err, orig);
    return false;
  }
  return true;
}
template <int ND> __device__ __forceinline__ long long offset_of(long long k, const Meta& m) {
  long long off = 0;
#pragma unroll
  for (int d = ND - 1; d > 0; --d) { off += (k % m.shape[d]) * m.stride[d]; k /= m.shape[d]; }
  return off + k * m.stride[0];
}
"#;

fn gather_program(item: usize, index: DType, wide: bool) -> Arc<Program> {
    let key = format!("gather|{item}|{}|{}", index.name(), u8::from(wide));
    program(&key, || gather_source(item, index, wide))
}

/// `take` (flat and general) and `put` (per target ndim) for `item`-byte elements and
/// `index` (int32 or int64) indices.
pub(crate) fn gather_source(item: usize, index: DType, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(
        s,
        "typedef {} T;\ntypedef {} J;\ntypedef {} I;",
        bits_type(item),
        index.c_type(),
        idx_type(wide)
    );
    s.push_str(INDEX_FIX);
    s.push_str(
        r#"
// out[q] = a[idx[q]] (one axis, nothing before or after it). A thread takes FLAT_U
// positions a grid stride apart per step (coalesced index loads and stores), their gathers
// in flight together.
constexpr int FLAT_U = 4;
extern "C" __global__ void __launch_bounds__(256) cuprum_take_flat(const T* __restrict__ a, const J* __restrict__ idx,
    T* __restrict__ out, I total, long long len, int mode, unsigned long long* __restrict__ err) {
  const I stride = (I)gridDim.x * blockDim.x;
  for (I q0 = (I)blockIdx.x * blockDim.x + threadIdx.x; q0 < total; q0 += (I)FLAT_U * stride) {
    long long k[FLAT_U];
    bool ok[FLAT_U];
#pragma unroll
    for (int u = 0; u < FLAT_U; ++u) {
      const I q = q0 + (I)u * stride;
      ok[u] = q < total;
      k[u] = ok[u] ? (long long)idx[q] : 0;
    }
    T v[FLAT_U];
#pragma unroll
    for (int u = 0; u < FLAT_U; ++u) {
      ok[u] = ok[u] && fix_index(k[u], len, mode, err);
      if (ok[u]) v[u] = a[k[u]];
    }
#pragma unroll
    for (int u = 0; u < FLAT_U; ++u) if (ok[u]) out[q0 + (I)u * stride] = v[u];
  }
}
// out[o, j, r] = a[o, idx[j], r] for a contiguous (outer, len, inner) a.
extern "C" __global__ void __launch_bounds__(256) cuprum_take(const T* __restrict__ a, const J* __restrict__ idx,
    T* __restrict__ out, I total, I nidx, I inner, long long len, int mode, unsigned long long* __restrict__ err) {
  for (I q = (I)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (I)gridDim.x * blockDim.x) {
    const I t = q / inner, r = q - t * inner;
    const I o = t / nidx, j = t - o * nidx;
    long long k = (long long)idx[j];
    if (fix_index(k, len, mode, err)) out[q] = a[((long long)o * len + k) * (long long)inner + (long long)r];
  }
}
// `cuprum_take` from a strided view (shape (outer, len, inner) in C order, its dims merged
// into the `nd` of `am`): the source's C index becomes an offset by division, so a view
// (a transpose, a slice with steps, a broadcast of zero strides) is read where it lies
// instead of being copied whole first.
__device__ __forceinline__ long long offset_rt(long long k, const Meta& m, int nd) {
  long long off = 0;
  for (int d = nd - 1; d > 0; --d) { off += (k % m.shape[d]) * m.stride[d]; k /= m.shape[d]; }
  return off + k * m.stride[0];
}
extern "C" __global__ void __launch_bounds__(256) cuprum_take_strided(const T* a, const J* __restrict__ idx,
    T* __restrict__ out, I total, I nidx, I inner, long long len, int mode, unsigned long long* __restrict__ err,
    int nd, Meta am) {
  for (I q = (I)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (I)gridDim.x * blockDim.x) {
    const I t = q / inner, r = q - t * inner;
    const I o = t / nidx, j = t - o * nidx;
    long long k = (long long)idx[j];
    if (fix_index(k, len, mode, err))
      out[q] = a[offset_rt(((long long)o * len + k) * (long long)inner + (long long)r, am, nd)];
  }
}
// a.flat[idx[j]] = v[j % nv] with a an ND-dimensional strided view of `size` elements.
template <int ND>
__device__ __forceinline__ void put_nd(T* a, const J* __restrict__ idx, const T* __restrict__ v, I m, I nv,
    long long size, int mode, unsigned long long* __restrict__ err, const Meta& meta) {
  for (I j = (I)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (I)gridDim.x * blockDim.x) {
    long long k = (long long)idx[j];
    if (fix_index(k, size, mode, err)) a[offset_of<ND>(k, meta)] = v[nv == 1 ? 0 : j % nv];
  }
}
"#,
    );
    for nd in 1..=MAX_ND {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__(256) cuprum_put{nd}(T* a, const J* __restrict__ idx, const T* __restrict__ v,\n\
             \x20   unsigned long long m, unsigned long long nv, long long size, int mode, unsigned long long* __restrict__ err, Meta meta) {{\n\
             \x20 put_nd<{nd}>(a, idx, v, (I)m, (I)nv, size, mode, err, meta); }}"
        );
    }
    s
}

fn scatter_program(d: DType, index: DType, wide: bool) -> Arc<Program> {
    let key = format!(
        "scatter_add|{}|{}|{}",
        d.name(),
        index.name(),
        u8::from(wide)
    );
    program(&key, || scatter_source(d, index, wide))
}

/// The atomic `*p += x` of dtype `d` (bool: logical or; 1- and 2-byte types through a
/// compare-and-swap of the 32-bit word that holds them).
fn atomic_add_body(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::F64 | DType::I32 | DType::U32 | DType::U64 => "atomicAdd(p, x);",
        DType::I64 => "atomicAdd((unsigned long long*)p, (unsigned long long)x);",
        DType::C64 | DType::C128 => "atomicAdd(&p->re, x.re); atomicAdd(&p->im, x.im);",
        _ => "atomic_add_small(p, x);",
    }
}

/// `scatter_add` for dtype `d` with `index` (int32 or int64) indices.
pub(crate) fn scatter_source(d: DType, index: DType, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(
        s,
        "typedef {} T;\ntypedef {} J;\ntypedef {} I;",
        d.c_type(),
        index.c_type(),
        idx_type(wide)
    );
    s.push_str(INDEX_FIX);
    let small_add = if d == DType::Bool {
        "(cur || x)"
    } else {
        "(T)(cur + x)"
    };
    let _ = write!(
        s,
        r#"
// *p += x for 1- and 2-byte types: compare-and-swap on the aligned 32-bit word.
template <typename U> __device__ __forceinline__ void atomic_add_small(U* p, U x) {{
  unsigned* w = (unsigned*)((unsigned long long)p & ~3ull);
  const unsigned shift = (unsigned)((unsigned long long)p & 3ull) * 8u;
  const unsigned mask = sizeof(U) == 1 ? 0xffu : 0xffffu;
  unsigned old = *w, assumed;
  do {{
    assumed = old;
    const unsigned bits = (assumed >> shift) & mask;
    U cur; memcpy(&cur, &bits, sizeof(U));
    const U nv = {small_add};
    unsigned nb = 0u; memcpy(&nb, &nv, sizeof(U));
    old = atomicCAS(w, assumed, (assumed & ~(mask << shift)) | ((nb & mask) << shift));
  }} while (old != assumed);
}}
__device__ __forceinline__ void atomic_add(T* p, T x) {{ {body} }}
// a[idx[j] * s0] += v[j * vs0] (one index per element of the sum): a thread takes FLAT_U
// indices a grid stride apart per step, their atomic adds (no result: reductions) issued
// together.
constexpr int FLAT_U = 4;
extern "C" __global__ void __launch_bounds__(256) cuprum_scatter_add_flat(T* a, const J* __restrict__ idx,
    const T* __restrict__ v, I total, long long len0, long long s0, long long vs0, unsigned long long* __restrict__ err) {{
  const I stride = (I)gridDim.x * blockDim.x;
  for (I j0 = (I)blockIdx.x * blockDim.x + threadIdx.x; j0 < total; j0 += (I)FLAT_U * stride) {{
    long long k[FLAT_U];
    T x[FLAT_U];
    bool ok[FLAT_U];
#pragma unroll
    for (int u = 0; u < FLAT_U; ++u) {{
      const I j = j0 + (I)u * stride;
      ok[u] = j < total;
      k[u] = ok[u] ? (long long)idx[j] : 0;
      if (ok[u]) x[u] = v[(long long)j * vs0];
    }}
#pragma unroll
    for (int u = 0; u < FLAT_U; ++u)
      if (ok[u] && fix_index(k[u], len0, 0, err)) atomic_add(a + k[u] * s0, x[u]);
  }}
}}
// a[idx[j], r] += v[j * vs0 + r * vs1] for q = j * inner + r; the trailing axes of a
// (r) are an ND-dimensional strided view.
template <int ND>
__device__ __forceinline__ void scatter_nd(T* a, const J* __restrict__ idx, const T* __restrict__ v, I total, I inner,
    long long len0, long long s0, long long vs0, long long vs1, unsigned long long* __restrict__ err, const Meta& rest) {{
  for (I q = (I)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (I)gridDim.x * blockDim.x) {{
    const I j = inner == 1 ? q : q / inner;
    const I r = q - j * inner;
    long long k = (long long)idx[j];
    if (fix_index(k, len0, 0, err))
      atomic_add(a + k * s0 + offset_of<ND>((long long)r, rest), v[(long long)j * vs0 + (long long)r * vs1]);
  }}
}}
"#,
        body = atomic_add_body(d)
    );
    for nd in 1..=MAX_ND {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__(256) cuprum_scatter_add{nd}(T* a, const J* __restrict__ idx, const T* __restrict__ v, I total, I inner,\n\
             \x20   long long len0, long long s0, long long vs0, long long vs1, unsigned long long* __restrict__ err, Meta rest) {{\n\
             \x20 scatter_nd<{nd}>(a, idx, v, total, inner, len0, s0, vs0, vs1, err, rest); }}"
        );
    }
    s
}

fn put_name(nd: usize) -> &'static str {
    const N: [&str; MAX_ND] = [
        "cuprum_put1",
        "cuprum_put2",
        "cuprum_put3",
        "cuprum_put4",
        "cuprum_put5",
        "cuprum_put6",
        "cuprum_put7",
        "cuprum_put8",
    ];
    N[nd.clamp(1, MAX_ND) - 1]
}

fn scatter_name(nd: usize) -> &'static str {
    const N: [&str; MAX_ND] = [
        "cuprum_scatter_add1",
        "cuprum_scatter_add2",
        "cuprum_scatter_add3",
        "cuprum_scatter_add4",
        "cuprum_scatter_add5",
        "cuprum_scatter_add6",
        "cuprum_scatter_add7",
        "cuprum_scatter_add8",
    ];
    N[nd.clamp(1, MAX_ND) - 1]
}

/// Indices as a contiguous int32 or int64 array (other integer dtypes and bool are
/// converted; uint64 and non-integers are NumPy's casting errors).
fn index_array(indices: &Array, what: &str) -> Result<Array> {
    match indices.dtype() {
        DType::I32 | DType::I64 => indices.to_contiguous(),
        DType::U64 => bail!(
            DType,
            "{what}: cannot cast array data from dtype('uint64') to dtype('int64') according to \
             the rule 'safe' (pass int64 indices)"
        ),
        d if d.is_integer() || d == DType::Bool => indices.astype(DType::I64),
        d => bail!(
            DType,
            "{what}: indices must be integers (or bool), got an array of {d}"
        ),
    }
}

/// Positions a gather or scatter thread takes per step in the flat kernels.
const FLAT_U: usize = 4;

/// The error flag of a launch: in raise mode a slot of mapped host memory (`[set, first
/// bad index]`, `runtime/flags.rs`), zeroed from the host before the launch and read after
/// the current stream is synchronised (the stream the kernels go to: the ops run with
/// their array's stream current); no flag (a null pointer the kernel never writes through)
/// in the other modes.
pub(super) struct ErrFlag(Option<ErrorFlag>);

impl ErrFlag {
    pub(super) fn new(mode: IndexMode) -> Result<ErrFlag> {
        Ok(ErrFlag(if mode == IndexMode::Raise {
            Some(ErrorFlag::acquire(
                &Stream::current()?,
                "an index check of take, put or scatter_add (mode raise: the host reads its \
                 result; the modes wrap and clip need none)",
            )?)
        } else {
            None
        }))
    }

    pub(super) fn ptr(&self) -> DevicePtr {
        DevicePtr(self.0.as_ref().map_or(0, ErrorFlag::device_ptr))
    }

    /// An error naming the first bad index when the kernel set the flag (NumPy's
    /// IndexError text).
    pub(super) fn check(self, axis: usize, len: usize) -> Result<()> {
        let Some(flag) = self.0 else {
            return Ok(());
        };
        let [set, bad] = flag.wait()?;
        if set != 0 {
            let bad = bad as i64;
            bail!(
                Shape,
                "index {bad} is out of bounds for axis {axis} with size {len}"
            );
        }
        Ok(())
    }
}

/// Shape and strides of `a` merged for the scatter kernels (a 0-d view is one element).
pub(super) fn target_meta(shape: &[usize], strides: &[isize]) -> (Shape, [i64; 16]) {
    let (ms, mst) = merge_dims_of_views(shape, &[strides]);
    let mut meta = [0i64; 16];
    if ms.is_empty() {
        meta[0] = 1;
        return (smallvec::smallvec![1], meta);
    }
    for k in 0..ms.len().min(MAX_ND) {
        meta[k] = ms[k] as i64;
        meta[8 + k] = mst[0][k] as i64;
    }
    (ms, meta)
}

/// Elements of `a` at `indices` along `axis` (`None`: of the flattened array), NumPy's
/// `take` with out-of-range indices an error ([`IndexMode::Raise`]). The result's shape is
/// `a.shape[..axis] + indices.shape + a.shape[axis + 1..]`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[10i32, 20, 30, 40], &[2, 2])?;
/// let i = Array::from_slice(&[1i64, 0, -1], &[3])?;
/// assert_eq!(ops::take(&a, &i, None)?.to_vec::<i32>()?, vec![20, 10, 40]);
/// assert_eq!(ops::take(&a, &i, Some(1))?.shape(), &[2, 3]);
/// let bad = Array::from_slice(&[4i64], &[1])?;
/// assert!(ops::take(&a, &bad, None).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    take_with(a, indices, axis, IndexMode::Raise)
}

/// [`take`] with NumPy's `mode` (`Raise`, `Wrap` or `Clip`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops::{self, IndexMode}};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
/// let i = Array::from_slice(&[5i32, -4], &[2])?;
/// assert_eq!(ops::take_with(&a, &i, None, IndexMode::Wrap)?.to_vec::<f32>()?, vec![3.0, 3.0]);
/// assert_eq!(ops::take_with(&a, &i, None, IndexMode::Clip)?.to_vec::<f32>()?, vec![3.0, 1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn take_with(
    a: &Array,
    indices: &Array,
    axis: Option<isize>,
    mode: IndexMode,
) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || take_with(a, indices, axis, mode)) {
        return r;
    }
    let idx = index_array(indices, "take")?;
    // `a` as (outer, len, inner) in C order (no axis: the flattened array, as it lies)
    let (ax, src) = match axis {
        None => (0, a.clone()),
        // NumPy takes from a 0-d array along an axis as from one of one element
        Some(x) if a.ndim() == 0 => (normalize_axis(x, 1)?, a.reshape(&[1])?),
        Some(x) => (normalize_axis(x, a.ndim())?, a.clone()),
    };
    let (shape, g) = match axis {
        None => (Shape::from_slice(idx.shape()), Gather::flat(a.size(), &idx)),
        Some(_) => {
            let s = src.shape();
            let mut shape = Shape::from_slice(&s[..ax]);
            shape.extend_from_slice(idx.shape());
            shape.extend_from_slice(&s[ax + 1..]);
            let g = Gather {
                outer: s[..ax].iter().product(),
                len: s[ax],
                inner: s[ax + 1..].iter().product(),
                m: idx.size(),
            };
            (shape, g)
        }
    };
    if g.len == 0 && idx.size() > 0 {
        bail!(Shape, "cannot do a non-empty take from an empty axes.");
    }
    let out = Array::empty(&shape, a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let flag = ErrFlag::new(mode)?;
    g.run(&src, &idx, &out, mode, &flag)?;
    flag.check(ax, g.len)?;
    Ok(out)
}

/// A gather's sizes: the source as (outer, len, inner) in C order, `m` indices.
struct Gather {
    outer: usize,
    len: usize,
    inner: usize,
    m: usize,
}

impl Gather {
    fn flat(len: usize, idx: &Array) -> Gather {
        Gather {
            outer: 1,
            len,
            inner: 1,
            m: idx.size(),
        }
    }

    /// `out` gathered from `src`: by `cuprum_take_flat` or `cuprum_take` from a
    /// C-contiguous source, by `cuprum_take_strided` from a view where it lies (no copy of
    /// it first), or from a contiguous copy of a view whose dims do not merge into
    /// [`MAX_ND`].
    fn run(
        &self,
        src: &Array,
        idx: &Array,
        out: &Array,
        mode: IndexMode,
        flag: &ErrFlag,
    ) -> Result<()> {
        let (ms, meta) = target_meta(src.shape(), src.strides());
        let strided = !src.is_c_contiguous() && ms.len() <= MAX_ND;
        let copy;
        let src = if strided || src.is_c_contiguous() {
            src
        } else {
            copy = src.to_contiguous()?;
            &copy
        };
        let total = out.size();
        let wide = !fits_u32(total.max(src.size()));
        let prog = gather_program(src.itemsize(), idx.dtype(), wide);
        let (len, code, err) = (self.len as i64, mode.code(), flag.ptr());
        // the sizes in the program's index width
        macro_rules! launch {
            ($t:ty) => {{
                let (t, m, i) = (total as $t, self.m as $t, self.inner as $t);
                if strided {
                    let (base, nd) = (DevicePtr(src.data_ptr()), ms.len() as i32);
                    let args = (base, idx, out, t, m, i, len, code, err, nd, ByValue(meta));
                    prog.launch("cuprum_take_strided", blocks_for(total), 256, args)
                } else if self.outer == 1 && self.inner == 1 {
                    let grid = blocks_for(total.div_ceil(FLAT_U));
                    prog.launch(
                        "cuprum_take_flat",
                        grid,
                        256,
                        (src, idx, out, t, len, code, err),
                    )
                } else {
                    let args = (src, idx, out, t, m, i, len, code, err);
                    prog.launch("cuprum_take", blocks_for(total), 256, args)
                }
            }};
        }
        if wide { launch!(u64) } else { launch!(u32) }
    }
}

/// The values of an operand as a flat contiguous array of `dtype` (a scalar becomes one
/// element).
fn values_of(values: Operand<'_>, dtype: DType) -> Result<Array> {
    match values {
        Operand::Scalar(s) => Array::full(&[1], s.cast(dtype)?, dtype),
        Operand::Record(_) | Operand::Texture(_) => Err(values.not_numeric("put")),
        Operand::Array(v) => {
            let v = if v.dtype() == dtype {
                v.clone()
            } else {
                v.astype(dtype)?
            };
            v.reshape_copy(&[-1])?.to_contiguous()
        }
    }
}

/// Writes `values` into `a` (in place) at the flat C-order positions `indices`: NumPy's
/// `put` (values are repeated when shorter; out-of-range indices are an error). With
/// duplicate indices one of the values wins (which one is unspecified, as in CuPy).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::zeros(&[2, 3], DType::F32)?;
/// let i = Array::from_slice(&[0i64, 4, -1], &[3])?;
/// ops::put(&a, &i, 7.0f32)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![7.0, 0.0, 0.0, 0.0, 7.0, 7.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn put(a: &Array, indices: &Array, values: impl IntoOperand) -> Result<()> {
    put_with(a, indices, values, IndexMode::Raise)
}

/// [`put`] with NumPy's `mode`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::{self, IndexMode}};
/// let a = Array::zeros(&[3], DType::I32)?;
/// let i = Array::from_slice(&[7i32], &[1])?;
/// ops::put_with(&a, &i, 5i32, IndexMode::Clip)?;
/// assert_eq!(a.to_vec::<i32>()?, vec![0, 0, 5]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn put_with(
    a: &Array,
    indices: &Array,
    values: impl IntoOperand,
    mode: IndexMode,
) -> Result<()> {
    a.check_writeable("put")?;
    if crate::ops::programs::is_elsewhere(a)? {
        return crate::ops::programs::on_device_of(a, move || put_with(a, indices, values, mode));
    }
    let idx = index_array(indices, "put")?;
    let m = idx.size();
    if m == 0 {
        return Ok(());
    }
    if a.size() == 0 {
        bail!(Shape, "cannot replace elements of an empty array");
    }
    let v = values_of(values.operand(), a.dtype())?;
    if v.size() == 0 {
        bail!(
            Shape,
            "put: {m} indices but no values to put (values must not be empty)"
        );
    }
    let (ms, meta) = target_meta(a.shape(), a.strides());
    if ms.len() > MAX_ND {
        let c = a.copy()?;
        put_with(&c, &idx, &v, mode)?;
        return a.assign(&c);
    }
    let size = a.size();
    let wide = !fits_u32(m.max(size));
    let prog = gather_program(a.itemsize(), idx.dtype(), wide);
    let flag = ErrFlag::new(mode)?;
    let err = flag.ptr();
    let target = DevicePtr(a.data_ptr());
    let name = put_name(ms.len());
    let args = (
        target,
        &idx,
        &v,
        m as u64,
        v.size() as u64,
        size as i64,
        mode.code(),
        err,
        ByValue(meta),
    );
    prog.launch(name, blocks_for(m), 256, args)?;
    flag.check(0, size)
}

/// `a[indices] += values` with repeated indices accumulating (NumPy's `add.at`, CuPy's
/// `cupyx.scatter_add`), in place, with atomic adds: `indices` select along the first axis,
/// `values` broadcast to `indices.shape + a.shape[1..]`. Values must cast to `a`'s dtype
/// under NumPy's `same_kind` rule; out-of-range indices are an error (one synchronisation).
/// Float sums over repeated indices add in an unspecified order.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::zeros(&[3], DType::F32)?;
/// let i = Array::from_slice(&[0i64, 2, 0, 0], &[4])?;
/// ops::scatter_add(&a, &i, 1.0f32)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![3.0, 0.0, 1.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn scatter_add(a: &Array, indices: &Array, values: impl IntoOperand) -> Result<()> {
    a.check_writeable("scatter_add")?;
    if crate::ops::programs::is_elsewhere(a)? {
        return crate::ops::programs::on_device_of(a, move || scatter_add(a, indices, values));
    }
    if a.ndim() == 0 {
        bail!(
            Shape,
            "scatter_add: too many indices for array: array is 0-dimensional, but 1 were indexed"
        );
    }
    let idx = index_array(indices, "scatter_add")?;
    let dt = a.dtype();
    let mut full: Shape = Shape::from_slice(idx.shape());
    full.extend_from_slice(&a.shape()[1..]);
    let m = idx.size();
    let inner: usize = a.shape()[1..].iter().product();
    let v = match values.operand() {
        o @ (Operand::Record(_) | Operand::Texture(_)) => return Err(o.not_numeric("scatter_add")),
        Operand::Scalar(s) => {
            if !super::can_cast_same_kind(s.dtype(), dt) {
                bail!(
                    DType,
                    "scatter_add: cannot cast a {} value to the array's {dt} (rule 'same_kind')",
                    s.dtype()
                );
            }
            let one = Array::full(&[1], Scalar::cast(&s, dt)?, dt)?;
            one.reshape(&[1, 1])?.broadcast_to(&[m, inner])?
        }
        Operand::Array(v) => {
            if !super::can_cast_same_kind(v.dtype(), dt) {
                bail!(
                    DType,
                    "scatter_add: cannot cast values of {} to the array's {dt} (rule 'same_kind')",
                    v.dtype()
                );
            }
            let v = if v.dtype() == dt {
                v.clone()
            } else {
                v.astype(dt)?
            };
            v.broadcast_to(&full)
                .map_err(|_| {
                    err!(
                        Shape,
                        "scatter_add: values of shape {} do not broadcast to {}",
                        format_shape(v.shape()),
                        format_shape(&full)
                    )
                })?
                .reshape_copy(&[m as isize, inner as isize])?
        }
    };
    let total = m * inner;
    if total == 0 {
        return Ok(());
    }
    let len0 = a.shape()[0];
    if len0 == 0 {
        bail!(Shape, "index {} is out of bounds for axis 0 with size 0", 0);
    }
    let (ms, rest) = target_meta(&a.shape()[1..], &a.strides()[1..]);
    if ms.len() > MAX_ND {
        let c = a.copy()?;
        scatter_add(
            &c,
            &idx,
            &v.reshape_copy(&full.iter().map(|&d| d as isize).collect::<Vec<_>>())?,
        )?;
        return a.assign(&c);
    }
    let wide = !fits_u32(total.max(a.size()));
    let prog = scatter_program(dt, idx.dtype(), wide);
    let flag = ErrFlag::new(IndexMode::Raise)?;
    let err = flag.ptr();
    let (vs0, vs1) = (v.strides()[0] as i64, v.strides()[1] as i64);
    let (target, vals) = (DevicePtr(a.data_ptr()), DevicePtr(v.data_ptr()));
    let s0 = a.strides()[0] as i64;
    if inner == 1 {
        // one element a row: the flat kernel (the trailing axes, if any, have extent 1)
        let grid = blocks_for(total.div_ceil(FLAT_U));
        if wide {
            let args = (target, &idx, vals, total as u64, len0 as i64, s0, vs0, err);
            prog.launch("cuprum_scatter_add_flat", grid, 256, args)?;
        } else {
            let args = (target, &idx, vals, total as u32, len0 as i64, s0, vs0, err);
            prog.launch("cuprum_scatter_add_flat", grid, 256, args)?;
        }
        return flag.check(0, len0);
    }
    let name = scatter_name(ms.len());
    let grid = blocks_for(total);
    if wide {
        let args = (
            target,
            &idx,
            vals,
            total as u64,
            inner as u64,
            len0 as i64,
            s0,
            vs0,
            vs1,
            err,
            ByValue(rest),
        );
        prog.launch(name, grid, 256, args)?;
    } else {
        let args = (
            target,
            &idx,
            vals,
            total as u32,
            inner as u32,
            len0 as i64,
            s0,
            vs0,
            vs1,
            err,
            ByValue(rest),
        );
        prog.launch(name, grid, 256, args)?;
    }
    flag.check(0, len0)
}

/// The kernel turning flat C-order positions into one coordinate (for arrays of more than
/// eight dimensions).
fn unravel_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "int64 f, int64 s, int64 d",
            "int64 y",
            "y = (f / s) % d",
            "cuprum_unravel",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Indices of the non-zero elements, one int64 array per dimension, in C order (NumPy's
/// `nonzero`; an error for a 0-d array, as in NumPy 2). Counts first (one reduction and
/// one device → host read), then writes every coordinate in one pass.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[0.0f32, 1.5, 0.0, -2.0], &[2, 2])?;
/// let ij = ops::nonzero(&a)?;
/// assert_eq!(ij[0].to_vec::<i64>()?, vec![0, 1]);
/// assert_eq!(ij[1].to_vec::<i64>()?, vec![1, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nonzero(a: &Array) -> Result<Vec<Array>> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || nonzero(a)) {
        return r;
    }
    if a.ndim() == 0 {
        bail!(
            Shape,
            "Calling nonzero on 0d arrays is not allowed. Use atleast_1d(scalar).nonzero() instead."
        );
    }
    let count = super::count_nonzero(a)?.to_vec::<i64>()?;
    let count = count.first().copied().unwrap_or(0).max(0) as usize;
    let nd = a.ndim();
    let x = a.to_contiguous()?;
    if nd <= MAX_ND {
        let outs = (0..nd)
            .map(|_| Array::empty(&[count], DType::I64))
            .collect::<Result<Vec<_>>>()?;
        if count > 0 {
            nonzero_coords(&x, a.shape(), &outs)?;
        }
        return Ok(outs);
    }
    let flat = Array::empty(&[count], DType::I64)?;
    if count > 0 {
        nonzero_coords(&x, &[a.size()], std::slice::from_ref(&flat))?;
    }
    let k = unravel_kernel()?;
    let strides = crate::shape::c_strides_of_valid(a.shape());
    (0..nd)
        .map(|d| k.call((&flat, strides[d] as i64, a.shape()[d] as i64)))
        .collect()
}

/// Indices of the non-zero elements of the flattened array (NumPy's `flatnonzero`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[0i32, 3, 0, 4], &[2, 2])?;
/// assert_eq!(ops::flatnonzero(&a)?.to_vec::<i64>()?, vec![1, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn flatnonzero(a: &Array) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || flatnonzero(a)) {
        return r;
    }
    let flat = a.reshape_copy(&[-1])?;
    nonzero(&flat)?
        .pop()
        .ok_or_else(|| err!(InvalidArgument, "flatnonzero: no index array"))
}

/// NumPy's one-argument `where(cond)`: the same as [`nonzero`].
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let c = Array::from_slice(&[false, true, true], &[3])?;
/// assert_eq!(ops::where_nonzero(&c)?[0].to_vec::<i64>()?, vec![1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[doc(alias = "where")]
pub fn where_nonzero(cond: &Array) -> Result<Vec<Array>> {
    if let Some(r) = crate::ops::programs::elsewhere_then(cond, || where_nonzero(cond)) {
        return r;
    }
    nonzero(cond)
}

/// The slices of `a` along `axis` (`None`: elements of the flattened array) where the 1-D
/// `condition` is non-zero (NumPy's `compress`). A condition shorter than the axis selects
/// among its first entries only; a longer one is an error if it selects past the end.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[3, 2])?;
/// let c = Array::from_slice(&[false, true, true], &[3])?;
/// assert_eq!(ops::compress(&c, &a, Some(0))?.to_vec::<i32>()?, vec![3, 4, 5, 6]);
/// assert_eq!(ops::compress(&c, &a, None)?.to_vec::<i32>()?, vec![2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compress(condition: &Array, a: &Array, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || compress(condition, a, axis)) {
        return r;
    }
    if condition.ndim() != 1 {
        bail!(
            Shape,
            "condition must be a 1-d array, got one of shape {}",
            format_shape(condition.shape())
        );
    }
    let (src, ax) = match axis {
        None => (a.reshape_copy(&[-1])?, 0),
        Some(x) => (a.clone(), normalize_axis(x, a.ndim())?),
    };
    let idx = nonzero(condition)?
        .pop()
        .ok_or_else(|| err!(InvalidArgument, "compress: no index array"))?;
    let mode = if condition.size() > src.shape()[ax] {
        IndexMode::Raise
    } else {
        IndexMode::Clip
    };
    take_with(&src, &idx, Some(ax as isize), mode)
}

impl Array {
    /// [`ops::take`](crate::ops::take) from this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[5u8, 6, 7], &[3])?;
    /// let i = Array::from_slice(&[2i32, 2], &[2])?;
    /// assert_eq!(a.take(&i, None)?.to_vec::<u8>()?, vec![7, 7]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn take(&self, indices: &Array, axis: Option<isize>) -> Result<Array> {
        take(self, indices, axis)
    }

    /// [`ops::put`](crate::ops::put) into this array (in place, as NumPy's `a.put`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[3], DType::I64)?;
    /// a.put(&Array::from_slice(&[1i64], &[1])?, 9i64)?;
    /// assert_eq!(a.to_vec::<i64>()?, vec![0, 9, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn put(&self, indices: &Array, values: impl IntoOperand) -> Result<()> {
        put(self, indices, values)
    }

    /// [`ops::nonzero`](crate::ops::nonzero) of this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[0u8, 2, 2], &[3])?;
    /// assert_eq!(a.nonzero()?[0].to_vec::<i64>()?, vec![1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        nonzero(self)
    }

    /// [`ops::compress`](crate::ops::compress) of this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let c = Array::from_slice(&[true, false, true], &[3])?;
    /// assert_eq!(a.compress(&c, None)?.to_vec::<f64>()?, vec![1.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn compress(&self, condition: &Array, axis: Option<isize>) -> Result<Array> {
        compress(condition, self, axis)
    }
}

/// Every gather / scatter program's source (NVRTC compile checks).
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for item in [1, 2, 4, 8, 16] {
        for index in [DType::I32, DType::I64] {
            v.push((
                format!("gather {item}B {}", index.name()),
                gather_source(item, index, false),
            ));
        }
    }
    v.push((
        "gather 4B int64 wide".into(),
        gather_source(4, DType::I64, true),
    ));
    for &d in DType::ALL {
        for index in [DType::I32, DType::I64] {
            v.push((
                format!("scatter_add {} {}", d.name(), index.name()),
                scatter_source(d, index, false),
            ));
        }
    }
    v.push((
        "scatter_add float32 int64 wide".into(),
        scatter_source(DType::F32, DType::I64, true),
    ));
    v
}

/// The element-wise kernels of this file, for compile checks.
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let k = unravel_kernel()?;
    Ok(vec![(
        "cuprum_unravel".into(),
        k.generated_source(
            &[DType::I64, DType::I64, DType::I64, DType::I64],
            &[false, true, true, false],
        )?,
    )])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_kind_follows_numpy() {
        use crate::ops::can_cast_same_kind as same_kind;
        assert!(same_kind(DType::F64, DType::F32));
        assert!(same_kind(DType::I64, DType::I8));
        assert!(same_kind(DType::U64, DType::I8));
        assert!(!same_kind(DType::I8, DType::U64));
        assert!(!same_kind(DType::F32, DType::I64));
        assert!(!same_kind(DType::C64, DType::F64));
        assert!(same_kind(DType::Bool, DType::F16));
    }

    #[test]
    fn targets_merge_to_few_dimensions() {
        let (ms, meta) = target_meta(&[2, 3, 4], &[12, 4, 1]);
        assert_eq!(ms.as_slice(), &[24]);
        assert_eq!((meta[0], meta[8]), (24, 1));
        let (ms, meta) = target_meta(&[3, 4], &[1, 3]);
        assert_eq!(ms.as_slice(), &[3, 4]);
        assert_eq!(&meta[8..10], &[1, 3]);
        let (ms, meta) = target_meta(&[], &[]);
        assert_eq!(ms.as_slice(), &[1]);
        assert_eq!(meta[0], 1);
    }

    #[test]
    fn kernel_names_exist_in_the_sources() {
        let g = gather_source(4, DType::I64, false);
        let s = scatter_source(DType::F16, DType::I32, false);
        for nd in 1..=MAX_ND {
            assert!(g.contains(put_name(nd)));
            assert!(s.contains(scatter_name(nd)));
        }
        assert!(g.contains("cuprum_take_flat(") && g.contains("cuprum_take("));
        assert_eq!(IndexMode::Clip.code(), 2);
    }
}
