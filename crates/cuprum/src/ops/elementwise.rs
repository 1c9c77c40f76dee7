//! The built-in elementwise operations, each an [`ElementwiseKernel`] generated for the
//! operand dtypes (NumPy promotion decides the computation type; the kernel itself is
//! exact-typed like a user's) and kept for the process.

use super::promote::result_type;
use crate::array::{Array, DType, DTypeKind};
use crate::error::{Result, bail};
use crate::kernel::{ElementwiseKernel, IntoOperand, Operand};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::{Arc, Mutex, OnceLock};

/// Every built-in elementwise operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Maximum,
    Minimum,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Neg,
    Abs,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Clip,
    Where,
    Cast,
    /// A comparison whose answer is known without looking at the values (an integer
    /// array against an integer scalar outside its range).
    Constant(bool),
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "subtract",
            Op::Mul => "multiply",
            Op::Div => "divide",
            Op::Rem => "remainder",
            Op::Pow => "power",
            Op::Maximum => "maximum",
            Op::Minimum => "minimum",
            Op::Equal => "equal",
            Op::NotEqual => "not_equal",
            Op::Less => "less",
            Op::LessEqual => "less_equal",
            Op::Greater => "greater",
            Op::GreaterEqual => "greater_equal",
            Op::Neg => "negative",
            Op::Abs => "absolute",
            Op::Sqrt => "sqrt",
            Op::Exp => "exp",
            Op::Log => "log",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Tanh => "tanh",
            Op::Clip => "clip",
            Op::Where => "where",
            Op::Cast => "astype",
            Op::Constant(_) => "compare",
        }
    }

    fn is_comparison(self) -> bool {
        matches!(
            self,
            Op::Equal | Op::NotEqual | Op::Less | Op::LessEqual | Op::Greater | Op::GreaterEqual
        )
    }

    /// The C function name of a floating-point math operation.
    fn math_fn(self) -> Option<&'static str> {
        Some(match self {
            Op::Sqrt => "sqrt",
            Op::Exp => "exp",
            Op::Log => "log",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Tanh => "tanh",
            _ => return None,
        })
    }
}

type KernelTable = Mutex<FxHashMap<(Op, SmallVec<[DType; 4]>), Arc<ElementwiseKernel>>>;

fn table() -> &'static KernelTable {
    static T: OnceLock<KernelTable> = OnceLock::new();
    T.get_or_init(Default::default)
}

const NAMES: [&str; 3] = ["a", "b", "c"];

/// The kernel of `op` for input parameter dtypes `ins` and output `out` (built once).
fn kernel(
    op: Op,
    ins: &[DType],
    out: DType,
    code: impl FnOnce() -> Result<String>,
) -> Result<Arc<ElementwiseKernel>> {
    let mut key: SmallVec<[DType; 4]> = SmallVec::from_slice(ins);
    key.push(out);
    let key = (op, key);
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
        code()?,
        format!("cuprum_{}", op.name()),
    )?);
    table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, k.clone());
    Ok(k)
}

/// `cuprum::cast<CT>(name)`.
fn cast(d: DType, name: &str) -> String {
    format!("cuprum::cast<{}>({name})", d.c_type())
}

fn is_half(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16)
}

/// The loop type NumPy picks for a float function of `d` (first of `e f d F D` that `d`
/// casts to safely; bfloat16 keeps its own type).
fn float_loop(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 => DType::F32,
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => DType::F64,
        other => other,
    }
}

/// `f(x)` of a math function in loop type `t` (x already of type t).
fn math_call(f: &str, t: DType, x: &str) -> String {
    match t {
        DType::F32 => format!("{f}f({x})"),
        DType::F64 => format!("{f}({x})"),
        DType::F16 | DType::BF16 => format!("({})({f}f((float)({x})))", t.c_type()),
        _ => format!("cuprum::{f}({x})"),
    }
}

/// Loop (computation) and output dtypes of a binary operation with promoted type `c`.
fn binary_types(op: Op, c: DType) -> Result<(DType, DType)> {
    let kind = c.kind();
    Ok(match op {
        _ if op.is_comparison() => (c, DType::Bool),
        Op::Sub if kind == DTypeKind::Bool => bail!(
            DType,
            "boolean subtract, the `-` operator, is not supported (as in NumPy): use a logical kernel or cast to an integer type first"
        ),
        Op::Div
            if matches!(
                kind,
                DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt
            ) =>
        {
            (DType::F64, DType::F64)
        }
        Op::Rem if kind == DTypeKind::Complex => {
            bail!(DType, "remainder is not defined for {c} operands")
        }
        Op::Rem | Op::Pow if kind == DTypeKind::Bool => (DType::I8, DType::I8),
        Op::Maximum | Op::Minimum | Op::Clip if kind == DTypeKind::Complex => {
            bail!(DType, "{} is not supported for {c} operands", op.name())
        }
        _ => (c, c),
    })
}

/// The operation text of a binary operation computed in `t`.
fn binary_code(op: Op, t: DType, out: DType) -> String {
    let ct = t.c_type();
    let (a, b) = (cast(t, "a"), cast(t, "b"));
    let kind = t.kind();
    let complex = kind == DTypeKind::Complex;
    let lex = |strict: &str, tie: &str| {
        format!(
            "{ct} _x = {a}, _y = {b}; out = (_x.re {strict} _y.re || (_x.re == _y.re && _x.im {tie} _y.im));"
        )
    };
    match op {
        Op::Add if kind == DTypeKind::Bool => format!("out = {a} || {b};"),
        Op::Mul if kind == DTypeKind::Bool => format!("out = {a} && {b};"),
        Op::Add => format!("out = {a} + {b};"),
        Op::Sub => format!("out = {a} - {b};"),
        Op::Mul => format!("out = {a} * {b};"),
        Op::Div => format!("out = {a} / {b};"),
        Op::Rem => match kind {
            DTypeKind::SignedInt => format!(
                "{ct} _x = {a}, _y = {b}; if (_y == 0 || _y == ({ct})-1) out = 0; else {{ {ct} _r = _x % _y; if (_r != 0 && ((_r < 0) != (_y < 0))) _r += _y; out = _r; }}"
            ),
            DTypeKind::UnsignedInt => {
                format!("{ct} _x = {a}, _y = {b}; out = _y == 0 ? ({ct})0 : ({ct})(_x % _y);")
            }
            _ => {
                let ft = if is_half(t) { "float" } else { ct };
                format!(
                    "{ft} _x = ({ft}){a}, _y = ({ft}){b}; {ft} _r = fmod(_x, _y); if (_r != 0 && ((_r < 0) != (_y < 0))) _r += _y; else if (_r == 0) _r = copysign(({ft})0, _y); out = ({out})_r;",
                    out = out.c_type()
                )
            }
        },
        Op::Pow => match kind {
            DTypeKind::SignedInt => format!(
                "{ct} _b = {a}, _e = {b}, _r = 1; if (_e < 0) {{ _r = _b == 1 ? 1 : (_b == ({ct})-1 ? ((_e & 1) ? ({ct})-1 : 1) : 0); }} else {{ while (_e) {{ if (_e & 1) _r *= _b; _b *= _b; _e >>= 1; }} }} out = _r;"
            ),
            DTypeKind::UnsignedInt => format!(
                "{ct} _b = {a}, _e = {b}, _r = 1; while (_e) {{ if (_e & 1) _r *= _b; _b *= _b; _e >>= 1; }} out = _r;"
            ),
            DTypeKind::Complex => format!("out = cuprum::pow({a}, {b});"),
            _ if t == DType::F64 => format!("out = pow({a}, {b});"),
            _ if t == DType::F32 => format!("out = powf({a}, {b});"),
            _ => format!("out = ({ct})powf((float){a}, (float){b});"),
        },
        Op::Maximum => format!("{ct} _x = {a}, _y = {b}; out = (_x > _y || _x != _x) ? _x : _y;"),
        Op::Minimum => format!("{ct} _x = {a}, _y = {b}; out = (_x < _y || _x != _x) ? _x : _y;"),
        Op::Equal => format!("out = {a} == {b};"),
        Op::NotEqual => format!("out = {a} != {b};"),
        Op::Less if complex => lex("<", "<"),
        Op::LessEqual if complex => lex("<", "<="),
        Op::Greater if complex => lex(">", ">"),
        Op::GreaterEqual if complex => lex(">", ">="),
        Op::Less => format!("out = {a} < {b};"),
        Op::LessEqual => format!("out = {a} <= {b};"),
        Op::Greater => format!("out = {a} > {b};"),
        Op::GreaterEqual => format!("out = {a} >= {b};"),
        _ => String::new(),
    }
}

/// Parameter dtype of an operand: an array's own, a scalar's the operation's type `c`
/// (the kernel converts it with NumPy's weak-scalar range check).
fn param_dtype(o: &Operand<'_>, c: DType) -> DType {
    match o {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(_) => c,
    }
}

/// An integer scalar compared with an integer array it does not fit: NumPy compares
/// exactly, so the answer is the same for every element.
fn constant_comparison(op: Op, a: &Operand<'_>, b: &Operand<'_>, c: DType) -> Option<bool> {
    if !op.is_comparison() || !matches!(c.kind(), DTypeKind::SignedInt | DTypeKind::UnsignedInt) {
        return None;
    }
    let (scalar, scalar_left) = match (a, b) {
        (Operand::Array(_), Operand::Scalar(s)) => (s, false),
        (Operand::Scalar(s), Operand::Array(_)) => (s, true),
        _ => return None,
    };
    let v = scalar.as_i128()?;
    if scalar.cast(c).is_ok() {
        return None;
    }
    // The scalar is above every value of `c` or below every value.
    let above = v > 0;
    // Answer of `array OP scalar`.
    let (lt, gt) = (above, !above);
    let r = match (op, scalar_left) {
        (Op::Equal, _) => false,
        (Op::NotEqual, _) => true,
        (Op::Less, false)
        | (Op::LessEqual, false)
        | (Op::Greater, true)
        | (Op::GreaterEqual, true) => lt,
        _ => gt,
    };
    Some(r)
}

pub(crate) fn binary(op: Op, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    let c = result_type(&[a, b])?;
    if let Some(answer) = constant_comparison(op, &a, &b, c) {
        let own = |o: &Operand<'_>| match o {
            Operand::Array(x) => x.dtype(),
            Operand::Scalar(s) => s.dtype(),
        };
        let ins = [own(&a), own(&b)];
        let k = kernel(Op::Constant(answer), &ins, DType::Bool, || {
            Ok(format!("out = {answer};"))
        })?;
        return k.call(vec![a, b]);
    }
    let (t, out) = binary_types(op, c)?;
    // A scalar converts to the type the operation computes in when that is wider than the
    // arrays' (true division of integers computes in float64: `u8_array / 300` is fine).
    let sc = if t.kind() > c.kind() { t } else { c };
    let ins = [param_dtype(&a, sc), param_dtype(&b, sc)];
    let k = kernel(op, &ins, out, || Ok(binary_code(op, t, out)))?;
    k.call(vec![a, b])
}

/// Output dtype and operation text of a unary operation on `d`.
fn unary_code(op: Op, d: DType) -> Result<(DType, String)> {
    let kind = d.kind();
    Ok(match op {
        Op::Neg => match kind {
            DTypeKind::Bool => bail!(
                DType,
                "boolean negative, the `-` operator, is not supported (as in NumPy): cast to an integer type first"
            ),
            DTypeKind::UnsignedInt => (d, format!("out = ({})(0 - a);", d.c_type())),
            _ => (d, "out = -a;".to_owned()),
        },
        Op::Abs => match kind {
            DTypeKind::Bool | DTypeKind::UnsignedInt => (d, "out = a;".to_owned()),
            DTypeKind::SignedInt => (d, format!("out = a < 0 ? ({})-a : a;", d.c_type())),
            DTypeKind::Complex => {
                let r = if d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                };
                (r, "out = cuprum::abs(a);".to_owned())
            }
            _ if is_half(d) => (d, format!("out = ({})fabsf((float)a);", d.c_type())),
            _ => (d, "out = fabs(a);".to_owned()),
        },
        _ => {
            let Some(f) = op.math_fn() else {
                bail!(Unsupported, "{} is not a unary operation", op.name());
            };
            let t = float_loop(d);
            (t, format!("out = {};", math_call(f, t, &cast(t, "a"))))
        }
    })
}

fn cast_code(to: DType) -> String {
    format!("out = {};", cast(to, "a"))
}

/// `clip` computed in `t`: maximum with the low bound, then minimum with the high one,
/// NaN propagating like NumPy's.
fn clip_code(t: DType) -> String {
    let ct = t.c_type();
    format!(
        "{ct} _x = {}, _l = {}, _h = {}; {ct} _r = (_x > _l || _x != _x) ? _x : _l; out = (_r < _h || _r != _r) ? _r : _h;",
        cast(t, "a"),
        cast(t, "b"),
        cast(t, "c")
    )
}

fn where_code(c: DType) -> String {
    format!(
        "out = {} ? {} : {};",
        cast(DType::Bool, "a"),
        cast(c, "b"),
        cast(c, "c")
    )
}

pub(crate) fn unary(op: Op, a: &Array) -> Result<Array> {
    let d = a.dtype();
    let (out, code) = unary_code(op, d)?;
    let k = kernel(op, &[d], out, || Ok(code))?;
    k.call((a,))
}

pub(crate) fn astype(a: &Array, dtype: DType) -> Result<Array> {
    let k = kernel(Op::Cast, &[a.dtype()], dtype, || Ok(cast_code(dtype)))?;
    k.call((a,))
}

pub(crate) fn clip(a: Operand<'_>, lo: Operand<'_>, hi: Operand<'_>) -> Result<Array> {
    let c = result_type(&[a, lo, hi])?;
    let (t, out) = binary_types(Op::Clip, c)?;
    let ins = [param_dtype(&a, c), param_dtype(&lo, c), param_dtype(&hi, c)];
    let k = kernel(Op::Clip, &ins, out, || Ok(clip_code(t)))?;
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
    let cd = match cond {
        Operand::Array(a) => a.dtype(),
        Operand::Scalar(s) => s.dtype(),
    };
    let ins = [cd, param_dtype(&x, c), param_dtype(&y, c)];
    let k = kernel(Op::Where, &ins, c, || Ok(where_code(c)))?;
    k.call(vec![cond, x, y])
}

/// Sources of every built-in operation for every dtype (and every astype pair), for NVRTC
/// compile checks without a GPU.
pub fn sample_sources() -> Result<Vec<(String, String)>> {
    use crate::kernel::codegen::elementwise::Slot;
    use crate::kernel::{Layout, LayoutClass};
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
        let (s, _) = k.source_for(dtypes, &slots, layout, 256)?;
        out.push((what, s));
        Ok(())
    };
    let binaries = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Rem,
        Op::Pow,
        Op::Maximum,
        Op::Minimum,
        Op::Equal,
        Op::NotEqual,
        Op::Less,
        Op::LessEqual,
        Op::Greater,
        Op::GreaterEqual,
    ];
    for &d in DType::ALL {
        for op in binaries {
            let Ok((t, o)) = binary_types(op, d) else {
                continue;
            };
            let k = kernel(op, &[d, d], o, || Ok(binary_code(op, t, o)))?;
            push(format!("{} {d}", op.name()), &k, &[d, d, o])?;
        }
        for op in [
            Op::Neg,
            Op::Abs,
            Op::Sqrt,
            Op::Exp,
            Op::Log,
            Op::Sin,
            Op::Cos,
            Op::Tan,
            Op::Tanh,
        ] {
            let Ok((o, code)) = unary_code(op, d) else {
                continue;
            };
            let k = kernel(op, &[d], o, || Ok(code))?;
            push(format!("{} {d}", op.name()), &k, &[d, o])?;
        }
        for &to in DType::ALL {
            let k = kernel(Op::Cast, &[d], to, || Ok(cast_code(to)))?;
            push(format!("astype {d} -> {to}"), &k, &[d, to])?;
        }
        if d.kind() != DTypeKind::Complex {
            let k = kernel(Op::Clip, &[d, d, d], d, || Ok(clip_code(d)))?;
            push(format!("clip {d}"), &k, &[d, d, d, d])?;
        }
        let k = kernel(Op::Where, &[d, d, d], d, || Ok(where_code(d)))?;
        push(format!("where {d}"), &k, &[d, d, d, d])?;
    }
    Ok(out)
}

/// Converts both operands for a binary operation entry point.
pub(crate) fn binary_of(op: Op, a: &dyn IntoOperand, b: &dyn IntoOperand) -> Result<Array> {
    binary(op, a.operand(), b.operand())
}
