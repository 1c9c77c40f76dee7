//! The built-in elementwise operations, each an [`ElementwiseKernel`] generated for the
//! operand dtypes (NumPy promotion decides the computation type; the kernel itself is
//! exact-typed like a user's) and kept for the process. What each operation computes is
//! the table of `ufunc.rs` (shared with `fuse`); this file turns a row into a kernel
//! `out = <expression>;` and calls it.

use super::promote::result_type;
use super::ufunc::{Loop, SmallPower, cast_expr, out_of_range_comparison};
use crate::array::{Array, DType};
use crate::error::Result;
use crate::kernel::{ElementwiseKernel, IntoOperand, Operand};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use super::ufunc::Op;

/// What a built-in kernel computes (with its parameter dtypes, the key of the kernel table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum What {
    /// A row of the table.
    Ufunc(Op),
    /// `x ** 2`, `x ** 3`, `x ** 0.5` without `pow`.
    Power(SmallPower),
    /// `astype`.
    Cast,
    /// A comparison whose answer is known without looking at the values (an integer
    /// array against an integer scalar outside its range).
    Constant(bool),
}

impl What {
    fn name(self) -> &'static str {
        match self {
            What::Ufunc(op) => op.name(),
            What::Power(_) => "power",
            What::Cast => "astype",
            What::Constant(_) => "compare",
        }
    }
}

type KernelTable = Mutex<FxHashMap<(What, SmallVec<[DType; 4]>), Arc<ElementwiseKernel>>>;

fn table() -> &'static KernelTable {
    static T: OnceLock<KernelTable> = OnceLock::new();
    T.get_or_init(Default::default)
}

const NAMES: [&str; 3] = ["a", "b", "c"];

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
    let key = (what, key);
    if let Some(k) = table().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(k.clone());
    }
    let params: Vec<String> = ins
        .iter()
        .zip(NAMES)
        .map(|(d, n)| format!("{} {n}", d.name()))
        .collect();
    let k = Arc::new(ElementwiseKernel::new(
        &params.join(", "),
        &format!("{} out", out.name()),
        format!("out = {};", value()),
        format!("cuprum_{}", what.name()),
    )?);
    table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, k.clone());
    Ok(k)
}

/// Parameter `name` of dtype `from` as an expression of dtype `to`.
fn converted(name: &str, from: DType, to: DType) -> String {
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
fn param_dtype(o: &Operand<'_>, c: DType) -> DType {
    match o {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(_) => c,
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

pub(crate) fn binary(op: Op, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    let c = result_type(&[a, b])?;
    if let Some(answer) = constant_comparison(op, &a, &b, c) {
        let own = |o: &Operand<'_>| match o {
            Operand::Array(x) => x.dtype(),
            Operand::Scalar(s) => s.dtype(),
        };
        let ins = [own(&a), own(&b)];
        let k = kernel(What::Constant(answer), &ins, DType::Bool, || {
            answer.to_string()
        })?;
        return k.call(vec![a, b]);
    }
    if op == Op::Pow
        && let (Operand::Array(x), Operand::Scalar(e)) = (a, b)
        && let Some(p) = SmallPower::of(&e)
    {
        return small_power(p, x, c);
    }
    let l = op.types(c)?;
    // A scalar converts to the type the operation computes in when that is wider than the
    // arrays' (true division of integers computes in float64: `u8_array / 300` is fine).
    let sc = if l.compute.kind() > c.kind() {
        l.compute
    } else {
        c
    };
    let ins = [param_dtype(&a, sc), param_dtype(&b, sc)];
    let k = kernel(What::Ufunc(op), &ins, l.out, || ufunc_value(op, &ins, l))?;
    k.call(vec![a, b])
}

/// `x ** p` for a small exponent: one kernel of `x` alone (multiplications or a square
/// root; the exponent is in the code, not a parameter).
fn small_power(p: SmallPower, x: &Array, c: DType) -> Result<Array> {
    let l = p.types(c)?;
    let d = x.dtype();
    let k = kernel(What::Power(p), &[d], l.out, || {
        p.expr(&converted("a", d, l.compute), l)
    })?;
    k.call((x,))
}

pub(crate) fn unary(op: Op, a: &Array) -> Result<Array> {
    let d = a.dtype();
    let l = op.types(d)?;
    let k = kernel(What::Ufunc(op), &[d], l.out, || ufunc_value(op, &[d], l))?;
    k.call((a,))
}

pub(crate) fn astype(a: &Array, dtype: DType) -> Result<Array> {
    let k = kernel(What::Cast, &[a.dtype()], dtype, || cast_expr(dtype, "a"))?;
    k.call((a,))
}

pub(crate) fn clip(a: Operand<'_>, lo: Operand<'_>, hi: Operand<'_>) -> Result<Array> {
    let c = result_type(&[a, lo, hi])?;
    let l = Op::Clip.types(c)?;
    let ins = [param_dtype(&a, c), param_dtype(&lo, c), param_dtype(&hi, c)];
    let k = kernel(What::Ufunc(Op::Clip), &ins, l.out, || {
        ufunc_value(Op::Clip, &ins, l)
    })?;
    k.call(vec![a, lo, hi])
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
    let cd = match cond {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(s) => s.dtype(),
    };
    let ins = [cd, param_dtype(&x, c), param_dtype(&y, c)];
    let k = kernel(What::Ufunc(Op::Where), &ins, l.out, || {
        ufunc_value(Op::Where, &ins, l)
    })?;
    k.call(vec![cond, x, y])
}

/// Sources of every built-in operation for every dtype (and every astype pair, and the
/// small powers), for NVRTC compile checks without a GPU.
pub fn sample_sources() -> Result<Vec<(String, String)>> {
    use crate::kernel::codegen::elementwise::Slot;
    use crate::kernel::codegen::layout::{Layout, LayoutClass};
    let layout = Layout {
        class: LayoutClass::Contiguous,
        nd: 1,
        wide: false,
        vec: 1,
        tiled: 0,
        row_bcast: 0,
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
    Ok(out)
}

/// Converts both operands for a binary operation entry point.
pub(crate) fn binary_of(op: Op, a: &dyn IntoOperand, b: &dyn IntoOperand) -> Result<Array> {
    binary(op, a.operand(), b.operand())
}
