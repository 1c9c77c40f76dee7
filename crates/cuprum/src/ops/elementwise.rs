//! The built-in elementwise operations, each an [`ElementwiseKernel`] generated for the
//! operand dtypes (NumPy promotion decides the computation type; the kernel itself is
//! exact-typed like a user's) and kept for the process. What each operation computes is
//! the table of `ufunc.rs` (shared with `fuse`); this file turns a row into a kernel
//! `out = <expression>;` and calls it. A repeat call finds its kernel by (operation,
//! parameter dtypes).
//!
//! **Results into given arrays** (every ufunc's `_into(…, out)`, NumPy's `out=`): the
//! operands broadcast to `out`'s shape; the row's result converts to `out`'s dtype under
//! NumPy's `same_kind` rule, checked before any launch (the conversion is a `cuprum::cast`
//! around the row's expression, so it is a kernel of its own key); a broadcast view is
//! refused as an output; an operand that overlaps `out` without being the same view is
//! copied first (the same view is read and written element by element by one thread, so
//! `a op= b` needs no copy). The in-place methods and operators are built on these
//! (`inplace.rs`).
//!
//! Small powers: `x ** 2`, `** 3` and `** 0.5` (a scalar exponent) are one or two
//! multiplications or a square root instead of `pow`, as NumPy's `**` does; `fuse` traces
//! them the same way.

use super::promote::{can_cast_same_kind, result_type};
use super::ufunc::{Loop, SmallPower, cast_expr, out_of_range_comparison};
use crate::array::{Array, DType, DTypeKind};
use crate::error::{Result, bail};
use crate::kernel::{ElementwiseKernel, IntoOperand, Operand};
use crate::shape::{broadcast_shapes, format_shape};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use super::ufunc::Op;

/// What a built-in kernel computes (with its parameter dtypes, the key of the kernel table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum What {
    /// A row of the table.
    Ufunc(Op),
    /// `x ** 2`, `x ** 3`, `x ** 0.5` without `pow`.
    Power(SmallPower),
    /// `astype`.
    Cast,
    /// A comparison whose answer is known without looking at the values (an integer
    /// array against an integer scalar outside its range).
    Constant(bool),
    /// `a[mask] = v` (`None`) or `a[mask] op= v` through a bool mask (`masked.rs`); `ranked`:
    /// `v` holds one value (or row) per selected element, found by its rank.
    Masked { op: Option<Op>, ranked: bool },
}

impl What {
    fn name(self) -> &'static str {
        match self {
            What::Ufunc(op) => op.name(),
            What::Power(_) => "power",
            What::Cast => "astype",
            What::Constant(_) => "compare",
            What::Masked { .. } => "masked",
        }
    }
}

type KernelTable = Mutex<FxHashMap<(What, SmallVec<[DType; 4]>), Arc<ElementwiseKernel>>>;

fn table() -> &'static KernelTable {
    static T: OnceLock<KernelTable> = OnceLock::new();
    T.get_or_init(Default::default)
}

const NAMES: [&str; 3] = ["a", "b", "c"];

/// The kernel of `what` for parameter dtypes `key`, built by `build` the first time and
/// kept for the process.
pub(crate) fn cached_kernel(
    what: What,
    key: &[DType],
    build: impl FnOnce() -> Result<ElementwiseKernel>,
) -> Result<Arc<ElementwiseKernel>> {
    let key = (what, SmallVec::from_slice(key));
    if let Some(k) = table().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(k.clone());
    }
    let k = Arc::new(build()?);
    table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, k.clone());
    Ok(k)
}

/// The kernel of `what` for input parameter dtypes `ins` and output `out` (built once);
/// `value` is the expression assigned to `out`.
fn kernel(
    what: What,
    ins: &[DType],
    out: DType,
    value: impl FnOnce() -> String,
) -> Result<Arc<ElementwiseKernel>> {
    let mut key: SmallVec<[DType; 4]> = SmallVec::from_slice(ins);
    key.push(out);
    cached_kernel(what, &key, || {
        let params: Vec<String> = ins
            .iter()
            .zip(NAMES)
            .map(|(d, n)| format!("{} {n}", d.name()))
            .collect();
        ElementwiseKernel::new(
            &params.join(", "),
            &format!("{} out", out.name()),
            format!("out = {};", value()),
            format!("cuprum_{}", what.name()),
        )
    })
}

/// Parameter `name` of dtype `from` as an expression of dtype `to`.
pub(crate) fn converted(name: &str, from: DType, to: DType) -> String {
    if from == to {
        name.to_owned()
    } else {
        cast_expr(to, name)
    }
}

/// The expression of `op` over parameters `a, b, c` of dtypes `ins` in loop `l` (the
/// condition of `where` converted to bool, every other operand to the compute type).
fn ufunc_value(op: Op, ins: &[DType], l: Loop) -> String {
    let operands: SmallVec<[String; 3]> = ins
        .iter()
        .zip(NAMES)
        .enumerate()
        .map(|(k, (&d, name))| {
            let to = if k == 0 && op.row().condition {
                DType::Bool
            } else {
                l.compute
            };
            converted(name, d, to)
        })
        .collect();
    let refs: SmallVec<[&str; 3]> = operands.iter().map(String::as_str).collect();
    op.expr(&refs, l)
}

/// Parameter dtype of an operand: an array's own, a scalar's the operation's type `c`
/// (the kernel converts it with NumPy's weak-scalar range check).
pub(crate) fn param_dtype(o: &Operand<'_>, c: DType) -> DType {
    match o {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => c,
    }
}

/// An integer scalar compared with an integer array it does not fit: the answer.
fn constant_comparison(op: Op, a: &Operand<'_>, b: &Operand<'_>, c: DType) -> Option<bool> {
    match (a, b) {
        (Operand::Array(_), Operand::Scalar(s)) => out_of_range_comparison(op, s, false, c),
        (Operand::Scalar(s), Operand::Array(_)) => out_of_range_comparison(op, s, true, c),
        _ => None,
    }
}

/// The dtype a binary operation passes a scalar as: the dtype the operands promote to,
/// or the compute dtype where that is wider (true division of integers computes in
/// float64: `u8_array / 300` is fine).
pub(crate) fn scalar_param(l: Loop, c: DType) -> DType {
    if l.compute.kind() > c.kind() {
        l.compute
    } else {
        c
    }
}

// ---- results into given arrays (NumPy's `out=`) -----------------------------------------

/// Byte range `[lo, hi)` a view covers (empty views cover nothing).
fn extent(a: &Array) -> (u64, u64) {
    let isz = a.itemsize() as i128;
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&n, &st) in a.shape().iter().zip(a.strides()) {
        let span = (n as i128 - 1) * st as i128 * isz;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    let base = a.data_ptr() as i128;
    ((base + lo) as u64, (base + hi + isz) as u64)
}

/// Whether two views may touch the same bytes (same buffer, intersecting byte ranges).
pub(crate) fn overlaps(a: &Array, b: &Array) -> bool {
    if a.size() == 0 || b.size() == 0 || !a.shares_memory(b) {
        return false;
    }
    let ((a0, a1), (b0, b1)) = (extent(a), extent(b));
    a0 < b1 && b0 < a1
}

/// Whether two arrays are the same view: element `i` of one is element `i` of the other.
pub(crate) fn same_view(a: &Array, b: &Array) -> bool {
    a.data_ptr() == b.data_ptr()
        && a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
        && a.shares_memory(b)
}

/// Copies of the operands that overlap `out` without being `out` itself (NumPy computes
/// as if inputs and outputs never overlapped; an operand that is exactly `out` is read and
/// written by the same thread, element by element, so it needs no copy).
pub(crate) fn dealiased(
    operands: &[Operand<'_>],
    out: &Array,
) -> Result<SmallVec<[Option<Array>; 4]>> {
    operands
        .iter()
        .map(|o| match o {
            Operand::Array(x) if overlaps(x, out) && !same_view(x, out) => x.copy().map(Some),
            _ => Ok(None),
        })
        .collect()
}

/// An error unless `out` can be written element by element: no axis of extent > 1 with
/// stride 0 (a broadcast view would be written many times).
pub(crate) fn check_writable(out: &Array, operation: &str) -> Result<()> {
    out.check_writeable(operation)?;
    for (k, (&n, &st)) in out.shape().iter().zip(out.strides()).enumerate() {
        if n > 1 && st == 0 {
            bail!(
                InvalidArgument,
                "assignment destination is read-only: the output is a broadcast view (axis {k} \
                 of extent {n} has stride 0); copy it first"
            );
        }
    }
    Ok(())
}

/// NumPy's checks of an output given to `name` whose natural result dtype is `natural`:
/// `same_kind` casting, a writable view, the operands' broadcast shape equal to its shape.
fn check_out(name: &str, natural: DType, operands: &[Operand<'_>], out: &Array) -> Result<()> {
    check_same_kind(name, natural, out.dtype())?;
    check_writable(out, &format!("{name} (out=)"))?;
    let mut shapes: SmallVec<[&[usize]; 4]> = operands
        .iter()
        .filter_map(|o| match o {
            Operand::Array(a) => Some(a.shape()),
            Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => None,
        })
        .collect();
    let inputs = broadcast_shapes(&shapes)?;
    shapes.push(out.shape());
    let all = broadcast_shapes(&shapes).unwrap_or(inputs);
    if all.as_slice() != out.shape() {
        bail!(
            Shape,
            "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
            format_shape(out.shape()),
            format_shape(&all)
        );
    }
    Ok(())
}

/// NumPy's `same_kind` rule for a result of dtype `from` written into `to`.
pub(crate) fn check_same_kind(name: &str, from: DType, to: DType) -> Result<()> {
    if !can_cast_same_kind(from, to) {
        bail!(
            DType,
            "cannot cast ufunc '{name}' output from {from} to {to} with casting rule 'same_kind' \
             (an in-place or `out` result keeps its kind: bool < unsigned < signed integer < \
             float < complex)"
        );
    }
    Ok(())
}

/// Runs the kernel of `what` (inputs of dtypes `ins`, natural result dtype `natural`, the
/// result's expression `value`) on `operands`: into a new array, or into `out` (converted
/// to its dtype, NumPy's checks first).
pub(super) fn launch(
    what: What,
    name: &str,
    ins: &[DType],
    natural: DType,
    value: impl FnOnce() -> String,
    operands: &[Operand<'_>],
    out: Option<&Array>,
) -> Result<Array> {
    let Some(out) = out else {
        let k = kernel(what, ins, natural, value)?;
        return k.call(operands);
    };
    check_out(name, natural, operands, out)?;
    let to = out.dtype();
    let k = kernel(what, ins, to, || {
        if natural == to {
            value()
        } else {
            cast_expr(to, &value())
        }
    })?;
    let copies = dealiased(operands, out)?;
    let mut args: Vec<Operand<'_>> = operands
        .iter()
        .zip(&copies)
        .map(|(o, c)| match c {
            Some(c) => Operand::Array(c),
            None => *o,
        })
        .collect();
    args.push(Operand::Array(out));
    k.run(args)?;
    Ok(out.clone())
}

pub(crate) fn binary(op: Op, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    binary_to(op, a, b, None)
}

/// `op(a, b)` into a new array, or into `out`.
pub(crate) fn binary_to(
    op: Op,
    a: Operand<'_>,
    b: Operand<'_>,
    out: Option<&Array>,
) -> Result<Array> {
    let c = match op {
        Op::Arctan2 | Op::Hypot | Op::Nextafter => float_loop_type(&[a, b])?,
        _ => result_type(&[a, b])?,
    };
    if let Some(answer) = constant_comparison(op, &a, &b, c) {
        let own = |o: &Operand<'_>| o.dtype();
        let ins = [own(&a), own(&b)];
        return launch(
            What::Constant(answer),
            op.name(),
            &ins,
            DType::Bool,
            || answer.to_string(),
            &[a, b],
            out,
        );
    }
    if op == Op::Pow
        && let (Operand::Array(x), Operand::Scalar(e)) = (a, b)
        && let Some(p) = SmallPower::of(&e)
    {
        let l = p.types(c)?;
        let d = x.dtype();
        return launch(
            What::Power(p),
            op.name(),
            &[d],
            l.out,
            || p.expr(&converted("a", d, l.compute), l),
            &[a],
            out,
        );
    }
    let l = op.types(c)?;
    let sc = scalar_param(l, c);
    let ins = [param_dtype(&a, sc), param_dtype(&b, sc)];
    launch(
        What::Ufunc(op),
        op.name(),
        &ins,
        l.out,
        || ufunc_value(op, &ins, l),
        &[a, b],
        out,
    )
}

/// The dtype NumPy computes a function that has floating-point loops only in (arctan2,
/// hypot, nextafter): the first loop (float16, float32, float64) every operand casts to
/// safely, so each array operand counts as its own smallest safe float before promotion
/// (`arctan2(int8, uint8)` is float16, where the operands themselves promote to int16).
fn float_loop_type(operands: &[Operand<'_>]) -> Result<DType> {
    let mut arrays = SmallVec::<[DType; 2]>::new();
    let mut scalars = SmallVec::<[DType; 2]>::new();
    for o in operands {
        match o {
            Operand::Array(x) => {
                super::promote::numeric("this operation", x.dtype())?;
                arrays.push(super::ufunc::float_loop(x.dtype()))
            }
            Operand::Scalar(v) => scalars.push(v.dtype()),
            _ => return result_type(operands),
        }
    }
    super::promote::result_type_of(&arrays, &scalars)
}

pub(crate) fn unary(op: Op, a: &Array) -> Result<Array> {
    unary_to(op, a, None)
}

/// `op(a)` into a new array, or into `out`.
pub(crate) fn unary_to(op: Op, a: &Array, out: Option<&Array>) -> Result<Array> {
    let d = a.dtype();
    super::promote::numeric(op.name(), d)?;
    let l = op.types(d)?;
    launch(
        What::Ufunc(op),
        op.name(),
        &[d],
        l.out,
        || ufunc_value(op, &[d], l),
        &[Operand::Array(a)],
        out,
    )
}

pub(crate) fn astype(a: &Array, dtype: DType) -> Result<Array> {
    super::promote::numeric("astype", a.dtype())?;
    super::promote::numeric("astype", dtype)?;
    let k = kernel(What::Cast, &[a.dtype()], dtype, || cast_expr(dtype, "a"))?;
    k.call((a,))
}

/// `clip(a, lo, hi)` into a new array, or into `out`.
pub(crate) fn clip_to(
    a: Operand<'_>,
    lo: Operand<'_>,
    hi: Operand<'_>,
    out: Option<&Array>,
) -> Result<Array> {
    let c = result_type(&[a, lo, hi])?;
    let l = Op::Clip.types(c)?;
    let ins = [param_dtype(&a, c), param_dtype(&lo, c), param_dtype(&hi, c)];
    launch(
        What::Ufunc(Op::Clip),
        Op::Clip.name(),
        &ins,
        l.out,
        || ufunc_value(Op::Clip, &ins, l),
        &[a, lo, hi],
        out,
    )
}

pub(crate) fn where_(cond: Operand<'_>, x: Operand<'_>, y: Operand<'_>) -> Result<Array> {
    let c = match (x, y) {
        // Two scalars: their own dtypes decide (the condition gives the shape).
        (Operand::Scalar(p), Operand::Scalar(q)) => {
            super::promote::promote_types(p.dtype(), q.dtype())
        }
        _ => result_type(&[x, y])?,
    };
    let l = Op::Where.types(c)?;
    let cd = cond.dtype();
    let ins = [cd, param_dtype(&x, c), param_dtype(&y, c)];
    let k = kernel(What::Ufunc(Op::Where), &ins, l.out, || {
        ufunc_value(Op::Where, &ins, l)
    })?;
    k.call(vec![cond, x, y])
}

/// Sources of every built-in operation for every dtype (and every astype pair, and the
/// small powers), for NVRTC compile checks without a GPU.
pub(crate) fn sample_sources() -> Result<Vec<(String, String)>> {
    use crate::kernel::codegen::entry::Slot;
    use crate::kernel::codegen::layout::{Layout, LayoutClass};
    let layout = Layout {
        class: LayoutClass::Contiguous,
        nd: 1,
        wide: false,
        vec: 1,
        tiled: 0,
        row_bcast: 0,
        unaligned: 0,
    };
    let mut out = Vec::new();
    let mut push = |what: String, k: &ElementwiseKernel, dtypes: &[DType]| -> Result<()> {
        let slots: Vec<Slot> = (0..dtypes.len()).map(|idx| Slot::Array { idx }).collect();
        out.push((what, k.source_for(dtypes, &slots, layout, 256)?.source));
        Ok(())
    };
    for &d in DType::ALL {
        for &op in Op::ALL {
            let Ok(l) = op.types(d) else {
                continue;
            };
            let ins: SmallVec<[DType; 3]> = SmallVec::from_elem(d, op.row().arity);
            let k = kernel(What::Ufunc(op), &ins, l.out, || ufunc_value(op, &ins, l))?;
            let mut dtypes = ins.to_vec();
            dtypes.push(l.out);
            push(format!("{} {d}", op.name()), &k, &dtypes)?;
        }
        for p in [SmallPower::Square, SmallPower::Cube, SmallPower::Sqrt] {
            let Ok(l) = p.types(d) else {
                continue;
            };
            let k = kernel(What::Power(p), &[d], l.out, || {
                p.expr(&converted("a", d, l.compute), l)
            })?;
            push(format!("power {p:?} {d}"), &k, &[d, l.out])?;
        }
        for &to in DType::ALL {
            let k = kernel(What::Cast, &[d], to, || cast_expr(to, "a"))?;
            push(format!("astype {d} -> {to}"), &k, &[d, to])?;
        }
    }
    // Mixed operand dtypes convert to the loop type.
    for (op, a, b) in [
        (Op::Add, DType::I8, DType::F32),
        (Op::Div, DType::I32, DType::I64),
        (Op::Where, DType::U8, DType::F16),
    ] {
        let c = super::promote::promote_types(a, b);
        let l = op.types(c)?;
        let ins: SmallVec<[DType; 3]> = if op == Op::Where {
            [a, b, c].into_iter().collect()
        } else {
            [a, b].into_iter().collect()
        };
        let k = kernel(What::Ufunc(op), &ins, l.out, || ufunc_value(op, &ins, l))?;
        let mut dtypes = ins.to_vec();
        dtypes.push(l.out);
        push(format!("{} {a} {b}", op.name()), &k, &dtypes)?;
    }
    // Results converted into an output of another dtype of their kind (`_into`, in place).
    for &op in Op::ALL {
        for d in [DType::I32, DType::U16, DType::F64, DType::C128] {
            let Ok(l) = op.types(d) else {
                continue;
            };
            let to = match l.out.kind() {
                DTypeKind::Bool => continue,
                DTypeKind::SignedInt => DType::I8,
                DTypeKind::UnsignedInt => DType::U8,
                DTypeKind::Float => DType::F16,
                DTypeKind::Complex => DType::C64,
                DTypeKind::Record => continue,
            };
            if to == l.out {
                continue;
            }
            let ins: SmallVec<[DType; 3]> = SmallVec::from_elem(d, op.row().arity);
            let k = kernel(What::Ufunc(op), &ins, to, || {
                cast_expr(to, &ufunc_value(op, &ins, l))
            })?;
            let mut dtypes = ins.to_vec();
            dtypes.push(to);
            push(format!("{} {d} into {to}", op.name()), &k, &dtypes)?;
        }
    }
    Ok(out)
}

/// Converts both operands for a binary operation entry point.
pub(crate) fn binary_of(op: Op, a: &dyn IntoOperand, b: &dyn IntoOperand) -> Result<Array> {
    binary(op, a.operand(), b.operand())
}

/// [`binary_of`] into `out`.
pub(crate) fn binary_into(
    op: Op,
    a: &dyn IntoOperand,
    b: &dyn IntoOperand,
    out: &Array,
) -> Result<()> {
    binary_to(op, a.operand(), b.operand(), Some(out)).map(drop)
}
