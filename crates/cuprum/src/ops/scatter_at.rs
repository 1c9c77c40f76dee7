//! NumPy's `ufunc.at` for the ufuncs with an atomic form ([`AtOp`], [`at`]): `a[key] op=
//! values` where a repeated index applies every one of its values (`np.add.at(a, i, 1)`
//! counts, where `a[i] += 1` adds once).
//!
//! The subscript is planned as for an assignment (`subscript.rs`: the view it reaches and
//! positions in the view's C order, shaped as the selection); one kernel then applies the
//! operation at each position with an atomic read-modify-write: the hardware's `atomicAdd`
//! where one exists for the dtype, else a compare-and-swap loop on the 4- or 8-byte word
//! (on the enclosing 32-bit word for 1- and 2-byte types). Values are cast to the array's
//! dtype first (CuPy's rule for `ufunc.at`). Floats combine in an unspecified order.

use super::indexing::{ErrFlag, INDEX_FIX, IndexMode, idx_type, target_meta};
use super::programs::{PRELUDE, Program, blocks_for, fits_u32, program};
use super::subscript::{Index, scatter_with};
use crate::array::{Array, DType, DTypeKind};
use crate::error::{Result, bail, err};
use crate::kernel::{ByValue, DevicePtr, IntoOperand, Operand};
use crate::shape::format_shape;
use std::fmt::Write;
use std::sync::Arc;

/// The dimensions the kernels address directly (more are copied first).
const MAX_ND: usize = 8;

/// The operation of [`at`]: the ufuncs CuPy's `ufunc.at` supports.
///
/// ```
/// use cuprum::ops::AtOp;
/// assert_eq!(AtOp::Maximum.name(), "maximum");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtOp {
    /// `a[i] += v` (bool: logical or)
    Add,
    /// `a[i] -= v`
    Subtract,
    /// `a[i] = max(a[i], v)` (NaN wins, as in NumPy's `maximum`)
    Maximum,
    /// `a[i] = min(a[i], v)` (NaN wins)
    Minimum,
    /// `a[i] &= v`
    BitwiseAnd,
    /// `a[i] |= v`
    BitwiseOr,
    /// `a[i] ^= v`
    BitwiseXor,
}

impl AtOp {
    /// Every operation.
    pub const ALL: [AtOp; 7] = [
        AtOp::Add,
        AtOp::Subtract,
        AtOp::Maximum,
        AtOp::Minimum,
        AtOp::BitwiseAnd,
        AtOp::BitwiseOr,
        AtOp::BitwiseXor,
    ];

    /// NumPy's name of the ufunc.
    pub fn name(self) -> &'static str {
        match self {
            AtOp::Add => "add",
            AtOp::Subtract => "subtract",
            AtOp::Maximum => "maximum",
            AtOp::Minimum => "minimum",
            AtOp::BitwiseAnd => "bitwise_and",
            AtOp::BitwiseOr => "bitwise_or",
            AtOp::BitwiseXor => "bitwise_xor",
        }
    }

    /// The ufunc NumPy calls `name`, if it has an `at` here.
    pub fn from_name(name: &str) -> Option<AtOp> {
        AtOp::ALL.into_iter().find(|o| o.name() == name)
    }

    /// `combine(cur, x)` in C++ for dtype `d` (the new value of an element).
    fn combine(self, d: DType) -> &'static str {
        let float = matches!(d.kind(), DTypeKind::Float);
        match (self, d) {
            (AtOp::Add, DType::Bool) => "(cur || x)",
            (AtOp::Add, _) => "(T)(cur + x)",
            (AtOp::Subtract, _) => "(T)(cur - x)",
            (AtOp::Maximum, _) if float => "((cur != cur || cur >= x) ? cur : x)",
            (AtOp::Minimum, _) if float => "((cur != cur || cur <= x) ? cur : x)",
            (AtOp::Maximum, _) => "(cur >= x ? cur : x)",
            (AtOp::Minimum, _) => "(cur <= x ? cur : x)",
            (AtOp::BitwiseAnd, _) => "(T)(cur & x)",
            (AtOp::BitwiseOr, _) => "(T)(cur | x)",
            (AtOp::BitwiseXor, _) => "(T)(cur ^ x)",
        }
    }

    /// The atomic update `*p = combine(*p, x)` for dtype `d`.
    fn body(self, d: DType) -> &'static str {
        match (self, d) {
            (AtOp::Add, DType::F32 | DType::F64 | DType::I32 | DType::U32 | DType::U64) => {
                "atomicAdd(p, x);"
            }
            (AtOp::Add, DType::I64) => "atomicAdd((unsigned long long*)p, (unsigned long long)x);",
            (AtOp::Add, DType::C64 | DType::C128) => {
                "atomicAdd(&p->re, x.re); atomicAdd(&p->im, x.im);"
            }
            (AtOp::Subtract, DType::C64 | DType::C128) => {
                "atomicAdd(&p->re, -x.re); atomicAdd(&p->im, -x.im);"
            }
            _ => match d.itemsize() {
                4 => "atomic_cas_word<unsigned int>(p, x);",
                8 => "atomic_cas_word<unsigned long long>(p, x);",
                _ => "atomic_cas_small(p, x);",
            },
        }
    }

    /// Whether the operation is defined for dtype `d` (NumPy's ufunc loops).
    fn check(self, d: DType) -> Result<()> {
        let ok = match self {
            AtOp::Add => true,
            AtOp::Subtract => d != DType::Bool,
            AtOp::Maximum | AtOp::Minimum => d.kind() != DTypeKind::Complex,
            AtOp::BitwiseAnd | AtOp::BitwiseOr | AtOp::BitwiseXor => {
                d.is_integer() || d == DType::Bool
            }
        };
        if !ok {
            bail!(
                DType,
                "{}.at: the ufunc '{}' does not support arrays of {d}",
                self.name(),
                self.name()
            );
        }
        Ok(())
    }
}

fn at_program(d: DType, op: AtOp, wide: bool) -> Arc<Program> {
    let key = format!("at|{}|{}|{}", d.name(), op.name(), u8::from(wide));
    program(&key, || at_source(d, op, wide))
}

/// The `ufunc.at` kernels for dtype `d` and operation `op`, one per target rank.
pub(crate) fn at_source(d: DType, op: AtOp, wide: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(
        s,
        "typedef {} T;\ntypedef long long J;\ntypedef {} I;",
        d.c_type(),
        idx_type(wide)
    );
    s.push_str(INDEX_FIX);
    let _ = write!(
        s,
        r#"
__device__ __forceinline__ T combine(T cur, T x) {{ return {combine}; }}
// *p = combine(*p, x) with a compare-and-swap of the whole W-sized element.
template <typename W> __device__ __forceinline__ void atomic_cas_word(T* p, T x) {{
  W* w = (W*)p;
  W old = *w, assumed;
  do {{
    assumed = old;
    T cur; memcpy(&cur, &assumed, sizeof(T));
    const T nv = combine(cur, x);
    W nb; memcpy(&nb, &nv, sizeof(T));
    if (nb == assumed) break;
    old = atomicCAS(w, assumed, nb);
  }} while (old != assumed);
}}
// The same for 1- and 2-byte types, on the aligned 32-bit word that holds the element.
__device__ __forceinline__ void atomic_cas_small(T* p, T x) {{
  unsigned* w = (unsigned*)((unsigned long long)p & ~3ull);
  const unsigned shift = (unsigned)((unsigned long long)p & 3ull) * 8u;
  const unsigned mask = sizeof(T) == 1 ? 0xffu : 0xffffu;
  unsigned old = *w, assumed;
  do {{
    assumed = old;
    const unsigned bits = (assumed >> shift) & mask;
    T cur; memcpy(&cur, &bits, sizeof(T));
    const T nv = combine(cur, x);
    unsigned nb = 0u; memcpy(&nb, &nv, sizeof(T));
    const unsigned next = (assumed & ~(mask << shift)) | ((nb & mask) << shift);
    if (next == assumed) break;
    old = atomicCAS(w, assumed, next);
  }} while (old != assumed);
}}
__device__ __forceinline__ void atomic_apply(T* p, T x) {{ {body} }}
// a.flat[idx[j]] = combine(a.flat[idx[j]], v[j]) for an ND-dimensional strided view of
// `size` elements (v has one value, or one per index).
template <int ND>
__device__ __forceinline__ void at_nd(T* a, const J* __restrict__ idx, const T* __restrict__ v, I m, I nv,
    long long size, unsigned long long* __restrict__ err, const Meta& meta) {{
  for (I j = (I)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (I)gridDim.x * blockDim.x) {{
    long long k = (long long)idx[j];
    if (fix_index(k, size, 0, err)) atomic_apply(a + offset_of<ND>(k, meta), v[nv == 1 ? 0 : j]);
  }}
}}
"#,
        combine = op.combine(d),
        body = op.body(d)
    );
    for nd in 1..=MAX_ND {
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__(256) cuprum_at{nd}(T* a, const J* __restrict__ idx, const T* __restrict__ v,\n\
             \x20   unsigned long long m, unsigned long long nv, long long size, unsigned long long* __restrict__ err, Meta meta) {{\n\
             \x20 at_nd<{nd}>(a, idx, v, (I)m, (I)nv, size, err, meta); }}"
        );
    }
    s
}

fn at_name(nd: usize) -> &'static str {
    const N: [&str; MAX_ND] = [
        "cuprum_at1",
        "cuprum_at2",
        "cuprum_at3",
        "cuprum_at4",
        "cuprum_at5",
        "cuprum_at6",
        "cuprum_at7",
        "cuprum_at8",
    ];
    N[nd.clamp(1, MAX_ND) - 1]
}

/// The values as a contiguous array of the selection's shape (one element for a scalar),
/// cast to `dtype`.
fn values_of(values: Operand<'_>, shape: &[usize], dtype: DType, op: AtOp) -> Result<Array> {
    match values {
        Operand::Scalar(s) => Array::full(&[1], s.cast(dtype)?, dtype),
        Operand::Array(v) => {
            let b = v.broadcast_to(shape).map_err(|_| {
                err!(
                    Shape,
                    "{}.at: values of shape {} do not broadcast to the selection's shape {}",
                    op.name(),
                    format_shape(v.shape()),
                    format_shape(shape)
                )
            })?;
            let b = if b.dtype() == dtype {
                b
            } else {
                b.astype(dtype)?
            };
            b.to_contiguous()
        }
        o => Err(o.not_numeric(op.name())),
    }
}

/// NumPy's `ufunc.at(a, key, values)` for the ufuncs of [`AtOp`]: `a[key] = op(a[key],
/// values)` in place, applied once per index even where indices repeat. `key` is any
/// subscript ([`Index`]); `values` (a scalar or an array broadcasting to the selection)
/// are cast to `a`'s dtype. Out-of-range indices are an error.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops::{self, AtOp, Index}};
/// let counts = Array::zeros(&[4], DType::I32)?;
/// let bins = Array::from_slice(&[1i64, 3, 1, 1], &[4])?;
/// ops::at(&counts, &[Index::Array(bins.clone())], AtOp::Add, 1i32)?;
/// assert_eq!(counts.to_vec::<i32>()?, vec![0, 3, 0, 1]);
/// let best = Array::zeros(&[4], DType::F32)?;
/// let v = Array::from_slice(&[0.5f32, 2.0, 1.5, 0.25], &[4])?;
/// ops::at(&best, &[Index::Array(bins)], AtOp::Maximum, &v)?;
/// assert_eq!(best.to_vec::<f32>()?, vec![0.0, 1.5, 0.0, 2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn at(a: &Array, key: &[Index], op: AtOp, values: impl IntoOperand) -> Result<()> {
    a.check_writeable(format!("{}.at", op.name()))?;
    if crate::ops::programs::is_elsewhere(a)? {
        return crate::ops::programs::on_device_of(a, move || at(a, key, op, values));
    }
    op.check(a.dtype())?;
    let values = values.operand();
    scatter_with(a, key, |view, pos| {
        let v = values_of(values, pos.shape(), a.dtype(), op)?;
        if pos.size() == 0 {
            return Ok(());
        }
        if target_meta(view.shape(), view.strides()).0.len() > MAX_ND {
            let c = view.copy()?;
            apply(&c, pos, &v, op)?;
            return view.assign(&c);
        }
        apply(view, pos, &v, op)
    })
}

/// The kernel over `view` at flat C-order positions `pos` with values `v` (one, or one
/// per position).
fn apply(view: &Array, pos: &Array, v: &Array, op: AtOp) -> Result<()> {
    let (ms, meta) = target_meta(view.shape(), view.strides());
    let pos = pos.to_contiguous()?;
    let m = pos.size();
    let size = view.size();
    let wide = !fits_u32(m.max(size));
    let prog = at_program(view.dtype(), op, wide);
    let flag = ErrFlag::new(IndexMode::Raise)?;
    let args = (
        DevicePtr(view.data_ptr()),
        &pos,
        v,
        m as u64,
        v.size() as u64,
        size as i64,
        flag.ptr(),
        ByValue(meta),
    );
    prog.launch(at_name(ms.len()), blocks_for(m), 256, args)?;
    flag.check(0, size)
}

/// Every `ufunc.at` program's source (NVRTC compile checks).
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for &d in DType::ALL {
        for op in AtOp::ALL {
            if op.check(d).is_ok() {
                v.push((
                    format!("{}.at {}", op.name(), d.name()),
                    at_source(d, op, false),
                ));
            }
        }
    }
    v
}
