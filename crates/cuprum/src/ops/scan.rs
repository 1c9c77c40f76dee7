//! `cumsum` and `cumprod`: inclusive scans over any axis with NumPy's result dtypes
//! (`dtype=` too), on the kernel layer's scan engine: this file says what a scan of a
//! dtype is — the accumulator (integers in unsigned 64-bit, wrapping like NumPy's int64
//! without signed-overflow UB; float16 and bfloat16 in float), the operator, the identity,
//! the conversions — as the engine's definitions (`kernel/codegen/scan.rs`: `ScanDefs`,
//! the kernels, their tuning and why), and runs the program of each dtype through
//! `kernel/scan_engine.rs` (which kernel for which axis, the launches). `ScanKernel`
//! (`kernel/scan.rs`) runs the same kernels with a user's definitions.
//!
//! Floating-point sums combine in an order that depends on which predecessors had
//! published when a tile looked back, so the last bits of a float `cumsum` may differ
//! between runs (as with CUB); integer scans are exact (wrapping like NumPy).

use super::programs::{PRELUDE, Program, program};
use crate::array::{Array, DType, DTypeKind};
use crate::error::Result;
use crate::kernel::codegen::scan::{self, ScanDefs, ScanShape};
use crate::kernel::scan_engine::{Engine, scan_into};
use crate::kernel::tuned::{first_scan_shape, scan_shape};
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

    /// The function's name (`cumsum`, `cumprod`).
    pub(crate) fn user_name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
        }
    }

    /// The operator as a C++ expression of `a` and `b`, and its identity.
    pub(crate) fn expr_and_identity(self) -> (&'static str, &'static str) {
        match self {
            ScanOp::Sum => ("((a) + (b))", "0"),
            ScanOp::Prod => ("((a) * (b))", "1"),
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

/// The dtype a scan into `d` accumulates in: integers (and bool) in unsigned 64-bit
/// (wrapping, as NumPy's int64 does, without signed-overflow UB), the 16-bit floats in
/// float32, the other floats and complex numbers in their own dtype.
pub(crate) fn acc_dtype(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => DType::F32,
        DType::F64 | DType::C64 | DType::C128 => d,
        _ => DType::U64,
    }
}

/// The C type of [`acc_dtype`].
fn acc_type(d: DType) -> &'static str {
    acc_dtype(d).c_type()
}

/// The size in bytes of [`acc_dtype`].
fn acc_size(d: DType) -> usize {
    acc_dtype(d).itemsize()
}

/// The scan program of input dtype `d`, result dtype `out`, operator `op` and index width.
fn scan_program(d: DType, out: DType, op: ScanOp, wide: bool, shape: ScanShape) -> Arc<Program> {
    let key = format!(
        "scan|{}|{}|{}|{}|{shape:?}",
        d.name(),
        out.name(),
        op.name(),
        u8::from(wide)
    );
    program(&key, || scan_source_shaped(d, out, op, wide, shape))
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
    scan_source_shaped(
        d,
        out,
        op,
        wide,
        first_scan_shape(acc_size(out), d.itemsize()),
    )
}

/// [`scan_source_to`] with the kernels' `shape`.
fn scan_source_shaped(d: DType, out: DType, op: ScanOp, wide: bool, shape: ScanShape) -> String {
    let (opx, ident) = op.expr_and_identity();
    let ident = format!("A({ident})");
    let load = if out == scan_dtype(d) {
        "cuprum::cast<A>(x)".to_owned()
    } else {
        format!("cuprum::cast<A>(cuprum::cast<{}>(x))", out.c_type())
    };
    let mut s = String::from(PRELUDE);
    s.push_str(&scan::defs(&ScanDefs {
        tin: d.c_type(),
        acc: acc_type(out),
        tout: out.c_type(),
        wide,
        op: opx,
        load: &load,
        ident: &ident,
        out: "cuprum::cast<Tout>(a)",
        exclusive: false,
        vec: shape.vec(d.itemsize(), acc_size(out)),
        acc_bytes: acc_size(out),
        assert_acc: false,
        shape,
    }));
    s.push_str(scan::ONE_INPUT);
    s.push_str(scan::BODY);
    s
}

/// Inclusive cumulative sum over `axis` (`None`: of the flattened array, a 1-D result).
/// NumPy's result dtypes: bool and signed integers give int64, unsigned integers uint64,
/// floats and complex numbers keep their dtype (float16 and bfloat16 add in float32).
/// One pass over the data for the last axis or the flattened array (see the module docs);
/// the last bits of a float result may vary between runs.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[2u8, 3, 4], &[3])?;
    /// assert_eq!(a.cumprod(None)?.to_vec::<u64>()?, vec![2, 6, 24]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cumprod(&self, axis: Option<isize>) -> Result<Array> {
        cumprod(self, axis)
    }
}

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
    let shape = scan_shape(a.device(), acc_size(out_dt), d.itemsize())?;
    let engine = |wide: bool| Engine {
        prog: scan_program(d, out_dt, op, wide, shape),
        acc: acc_size(out_dt),
        vec: shape.vec(d.itemsize(), acc_size(out_dt)),
        values: Vec::new(),
        shape,
        staged: true,
    };
    scan_into(std::slice::from_ref(a), out_dt, axis, None, &engine)
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
    // The persistent staged kernel (two stages) over each size of stage copy: 16-byte
    // (float32, float64, int32 into int64, complex64), 8-byte (float16), 4-byte (uint8, bool).
    for d in [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::C64,
        DType::F16,
        DType::U8,
        DType::Bool,
    ] {
        let out = scan_dtype(d);
        let mut shape = first_scan_shape(acc_size(out), d.itemsize());
        shape.stages = 2;
        shape.pf = 0;
        v.push((
            format!("scan {} sum staged", d.name()),
            scan_source_shaped(d, out, ScanOp::Sum, false, shape),
        ));
    }
    // Raw inputs kept through the look-back (narrow inputs into 8-byte accumulators).
    for (d, op) in [
        (DType::I32, ScanOp::Sum),
        (DType::Bool, ScanOp::Sum),
        (DType::I16, ScanOp::Prod),
    ] {
        let out = scan_dtype(d);
        let mut shape = first_scan_shape(acc_size(out), d.itemsize());
        shape.raw = true;
        v.push((
            format!("scan {} {} raw", d.name(), op.name()),
            scan_source_shaped(d, out, op, false, shape),
        ));
        // and vectors of the accumulator's width
        shape.acc_vec = true;
        v.push((
            format!("scan {} {} raw acc-vec", d.name(), op.name()),
            scan_source_shaped(d, out, op, false, shape),
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
            let s = first_scan_shape(acc_size(d), d.itemsize());
            for ipt in [s.ipt, s.sipt, s.ript] {
                assert_eq!(ipt as usize % s.vec(d.itemsize(), acc_size(d)), 0, "{d}");
            }
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
            "(cuprum_scan_rows_v,",
            "(cuprum_scan_rows_1,",
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
