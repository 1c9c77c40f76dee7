//! Lowering: each planned kernel becomes cuprum's own [`ElementwiseKernel`],
//! [`ReductionKernel`] or [`ScanKernel`] with generated strings, built once per trace. Names in the
//! generated code: `in{i}` for argument `i`, `r{n}` for a reduced value an earlier kernel
//! wrote or a view with new axes of one or of an argument (`x[None, :]`), `p{n}` for a
//! scalar parameter, `v{n}` for a computed value, `out{j}` for outputs.
//! The expressions come from the ufunc table (`ops/ufunc.rs`), the reductions' pieces
//! from `ops/reduction.rs` and the scans' (accumulator dtype, operator, identity) from
//! `ops/scan.rs`; no dtype rule is written here. A scan's map is a preamble function of
//! its operands (as a reduction's is) returning the accumulator `cumsum` uses, so a fused
//! `cumsum` accumulates, wraps and converts exactly as `ops::cumsum`.

use super::ir::{Kind, NodeId, Program, Slot};
use super::plan::{KernelPlan, Plan, PlanKind, accum_of};
use crate::array::{DType, Scalar};
use crate::compile::CompileOptions;
use crate::error::{Result, err};
use crate::kernel::{Axes, ElementwiseKernel, ReductionKernel, ScanKernel};
use crate::ops::reduction::Accum;
use crate::ops::scan::acc_dtype;
use crate::ops::ufunc::{Loop, cast_expr};
use smallvec::SmallVec;
use std::fmt::Write;

/// A built kernel.
#[derive(Debug)]
pub(crate) enum Built {
    Elementwise(ElementwiseKernel),
    Reduction(ReductionKernel),
    Scan(ScanKernel),
}

/// What one input parameter of a lowered kernel takes at call time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Array argument `i` of the call.
    Arg(u16),
    /// The array an earlier kernel wrote for this node.
    Temp(NodeId),
    /// The view of this expansion node ([`Kind::Expand`]): its argument's or earlier
    /// result's array with new axes of extent 1.
    View(NodeId),
    /// The scalar parameter of this node.
    Scalar(NodeId),
}

/// One kernel, ready to call.
#[derive(Debug)]
pub(crate) struct LoweredKernel {
    pub(crate) built: Built,
    pub(crate) inputs: SmallVec<[Source; 8]>,
    pub(crate) outputs: SmallVec<[NodeId; 4]>,
    /// A reduction's axes (`None`: every axis); a scan's one axis (`None`: flattened).
    pub(crate) axes: Option<Axes>,
    pub(crate) keepdims: bool,
}

/// Shapes of every node of a program.
pub(crate) type Shapes = SmallVec<[crate::shape::Shape; 16]>;

/// A call's argument shapes (a scalar's: empty) and the node shapes they give (`run.rs`).
pub(crate) type ShapesMemo = (SmallVec<[crate::shape::Shape; 4]>, std::sync::Arc<Shapes>);

/// A traced program with its plan and kernels: what a repeat call with the same input
/// signature reuses.
#[derive(Debug)]
pub(crate) struct Lowered {
    pub(crate) program: Program,
    pub(crate) plan: Plan,
    pub(crate) kernels: Vec<LoweredKernel>,
    /// The values of the literal scalar parameters, converted to their nodes' dtypes.
    pub(crate) literals: SmallVec<[(NodeId, Scalar); 4]>,
    /// The node shapes of the last call, under its arguments' shapes (`run.rs`): a repeat
    /// call with arrays of the same shapes reuses them.
    pub(crate) last_shapes: std::sync::Mutex<Option<ShapesMemo>>,
    /// One element-wise kernel that returns the program's values ([`is_direct`]): a
    /// repeat call replays it with its inputs alone.
    pub(crate) direct: bool,
}

/// Builds the kernels of `plan` (named `cuprum_fuse_{name}_{k}`).
/// `options` (when given) replace the kernels' compile options.
pub(crate) fn lower(
    name: &str,
    program: Program,
    plan: Plan,
    options: Option<&CompileOptions>,
) -> Result<Lowered> {
    let mut kernels = Vec::with_capacity(plan.kernels.len());
    for (k, kp) in plan.kernels.iter().enumerate() {
        let kname = format!("cuprum_fuse_{name}_{k}");
        let mut lk = lower_kernel(&program, kp, &kname)?;
        if let Some(o) = options {
            lk.built = match lk.built {
                Built::Elementwise(k) => Built::Elementwise(k.options(o.clone())),
                Built::Reduction(k) => Built::Reduction(k.options(o.clone())),
                Built::Scan(k) => Built::Scan(k.options(o.clone())),
            };
        }
        kernels.push(lk);
    }
    let mut literals = SmallVec::new();
    for (k, node) in program.nodes.iter().enumerate() {
        if let Kind::Scalar(s) = node.kind
            && let Slot::Literal(v) = program.slots[s as usize]
        {
            let v = v
                .cast(node.dtype)
                .map_err(|e| err!(DType, "fused `{name}` at {}: {e}", node.loc))?;
            literals.push((k as NodeId, v));
        }
    }
    let direct = is_direct(&program, &kernels);
    Ok(Lowered {
        program,
        plan,
        kernels,
        literals,
        last_shapes: std::sync::Mutex::new(None),
        direct,
    })
}

/// Whether `kernels` is one element-wise kernel whose outputs are the program's values,
/// each once, in order: a call of the program is then a call of that kernel on the
/// arguments and scalar parameters (`run.rs`).
fn is_direct(program: &Program, kernels: &[LoweredKernel]) -> bool {
    let [k] = kernels else {
        return false;
    };
    let unique = program
        .outputs
        .iter()
        .enumerate()
        .all(|(i, o)| !program.outputs[..i].contains(o));
    matches!(k.built, Built::Elementwise(_))
        && k.outputs == program.outputs
        && unique
        && k.inputs
            .iter()
            .all(|s| matches!(s, Source::Arg(_) | Source::Scalar(_)))
}

/// The parameter name of array operand `n`.
fn array_name(p: &Program, n: NodeId) -> String {
    match p.node(n).kind {
        Kind::Input(i) => format!("in{i}"),
        _ => format!("r{n}"),
    }
}

/// How node `n` is written inside a kernel that has `arrays` as array operands.
fn value_name(p: &Program, arrays: &[NodeId], n: NodeId) -> String {
    let node = p.node(n);
    match node.kind {
        _ if arrays.contains(&n) => array_name(p, n),
        Kind::Scalar(_) => format!("p{n}"),
        Kind::Const(b) => b.to_string(),
        _ => format!("v{n}"),
    }
}

/// `const T v{n} = <expression>;` for each node of `body`.
fn statements(p: &Program, arrays: &[NodeId], body: &[NodeId], indent: &str) -> String {
    let mut s = String::new();
    for &n in body {
        let node = p.node(n);
        let args: SmallVec<[String; 3]> = node
            .args
            .iter()
            .map(|&a| value_name(p, arrays, a))
            .collect();
        let value = match node.kind {
            Kind::Ufunc(op, compute) => {
                let refs: SmallVec<[&str; 3]> = args.iter().map(String::as_str).collect();
                op.expr(
                    &refs,
                    Loop {
                        compute,
                        out: node.dtype,
                    },
                )
            }
            Kind::Cast => cast_expr(node.dtype, &args[0]),
            Kind::Const(b) => b.to_string(),
            // Leaves are never in a body.
            Kind::Input(_)
            | Kind::Scalar(_)
            | Kind::Reduce(..)
            | Kind::Scan(..)
            | Kind::Expand(_) => continue,
        };
        let _ = writeln!(s, "{indent}const {} v{n} = {value};", node.dtype.c_type());
    }
    s
}

/// Input and output parameter lists, and where each input comes from.
fn params(p: &Program, kp: &KernelPlan) -> (String, String, SmallVec<[Source; 8]>) {
    let mut ins = Vec::new();
    let mut sources = SmallVec::new();
    for &a in &kp.arrays {
        let node = p.node(a);
        ins.push(format!("{} {}", node.dtype.name(), array_name(p, a)));
        sources.push(match node.kind {
            Kind::Input(i) => Source::Arg(i),
            Kind::Expand(_) => Source::View(a),
            _ => Source::Temp(a),
        });
    }
    for &s in &kp.scalars {
        ins.push(format!("{} p{s}", p.node(s).dtype.name()));
        sources.push(Source::Scalar(s));
    }
    let outs: Vec<String> = kp
        .outputs
        .iter()
        .enumerate()
        .map(|(j, &o)| format!("{} out{j}", p.node(o).dtype.name()))
        .collect();
    (ins.join(", "), outs.join(", "), sources)
}

fn lower_kernel(p: &Program, kp: &KernelPlan, kname: &str) -> Result<LoweredKernel> {
    let (ins, outs, sources) = params(p, kp);
    match &kp.kind {
        PlanKind::Scan { scan } => lower_scan(p, kp, *scan, (ins, outs, sources), kname),
        PlanKind::Elementwise => {
            let mut op = statements(p, &kp.arrays, &kp.body, "");
            for (j, &o) in kp.outputs.iter().enumerate() {
                let _ = writeln!(op, "out{j} = {};", value_name(p, &kp.arrays, o));
            }
            let op = op.trim_end().trim_end_matches(';');
            let k = ElementwiseKernel::new(&ins, &outs, op, kname)?;
            Ok(LoweredKernel {
                built: Built::Elementwise(k),
                inputs: sources,
                outputs: kp.outputs.clone(),
                axes: None,
                keepdims: false,
            })
        }
        PlanKind::Reduction {
            reduces,
            mask,
            keepdims,
            ndim,
        } => {
            let accs: Vec<Accum> = reduces.iter().filter_map(|&r| accum_of(p, r)).collect();
            if accs.len() != reduces.len() {
                return Err(err!(
                    Unsupported,
                    "fused kernel {kname}: a reduction has no accumulator"
                ));
            }
            let red = reduction_strings(p, kp, reduces, &accs, kname)?;
            let k = ReductionKernel::new(
                &ins,
                &outs,
                red.map,
                red.reduce,
                red.post_map,
                red.identity.as_deref(),
                kname,
            )?
            .reduce_type(red.acc_type)
            .preamble(red.preamble);
            let full = (0..*ndim as u32).all(|b| mask & (1u64 << b) != 0);
            let axes = (!full).then(|| {
                Axes(
                    (0..*ndim as u32)
                        .filter(|&b| mask & (1u64 << b) != 0)
                        .map(|b| b as isize)
                        .collect(),
                )
            });
            Ok(LoweredKernel {
                built: Built::Reduction(k),
                inputs: sources,
                outputs: kp.outputs.clone(),
                axes,
                keepdims: *keepdims,
            })
        }
    }
}

/// The ScanKernel of scan node `sc`: its map is `{kname}_map` of the kernel's operands,
/// computing the scan's operand and converting it to the accumulator.
fn lower_scan(
    p: &Program,
    kp: &KernelPlan,
    sc: NodeId,
    (ins, outs, sources): (String, String, SmallVec<[Source; 8]>),
    kname: &str,
) -> Result<LoweredKernel> {
    let node = p.node(sc);
    let Kind::Scan(op, axis) = node.kind else {
        return Err(err!(
            Unsupported,
            "fused kernel {kname}: %{sc} is not a scan"
        ));
    };
    let acc = acc_dtype(node.dtype);
    let (args, call) = map_params(p, kp);
    let mut pre = format!(
        "__device__ __forceinline__ {} {kname}_map({}) {{\n",
        acc.c_type(),
        args.join(", ")
    );
    pre.push_str(&statements(p, &kp.arrays, &kp.body, "  "));
    let operand = value_name(p, &kp.arrays, node.args[0]);
    let _ = writeln!(
        pre,
        "  return cuprum::cast<{}>({operand});\n}}",
        acc.c_type()
    );
    let (expr, identity) = op.expr_and_identity();
    let k = ScanKernel::new(
        &ins,
        &outs,
        format!("{kname}_map({})", call.join(", ")),
        expr,
        identity,
        kname,
    )?
    .preamble(pre)
    .scan_type(acc.name())
    .post_map(format!("out0 = cuprum::cast<{}>(a)", node.dtype.c_type()));
    Ok(LoweredKernel {
        built: Built::Scan(k),
        inputs: sources,
        outputs: kp.outputs.clone(),
        axes: axis.map(|a| Axes(SmallVec::from_elem(a as isize, 1))),
        keepdims: false,
    })
}

/// A map function's parameters (`const T in0`, …, `const T p3`) and the arguments that
/// call it, for the arrays and scalars of `kp`.
fn map_params(p: &Program, kp: &KernelPlan) -> (Vec<String>, Vec<String>) {
    let mut args: Vec<String> = Vec::new();
    let mut call: Vec<String> = Vec::new();
    for &a in &kp.arrays {
        let nm = array_name(p, a);
        args.push(format!("const {} {nm}", p.node(a).dtype.c_type()));
        call.push(nm);
    }
    for &s in &kp.scalars {
        args.push(format!("const {} p{s}", p.node(s).dtype.c_type()));
        call.push(format!("p{s}"));
    }
    (args, call)
}

/// The strings of a ReductionKernel.
struct ReductionStrings {
    preamble: String,
    map: String,
    reduce: String,
    post_map: String,
    identity: Option<String>,
    acc_type: String,
}

fn reduction_strings(
    p: &Program,
    kp: &KernelPlan,
    reduces: &[NodeId],
    accs: &[Accum],
    kname: &str,
) -> Result<ReductionStrings> {
    let single = accs.len() == 1;
    let acc_type = if single {
        accs[0].acc_type()
    } else {
        format!("{kname}_acc")
    };
    let mut pre = String::new();
    if !single {
        let _ = writeln!(pre, "struct {acc_type} {{");
        for (j, a) in accs.iter().enumerate() {
            let _ = writeln!(pre, "  {} f{j};", a.acc_type());
        }
        pre.push_str("};\n");
        let _ = writeln!(
            pre,
            "__device__ __forceinline__ {acc_type} {kname}_start() {{\n  {acc_type} r;"
        );
        for (j, a) in accs.iter().enumerate() {
            let start = a.neutral_start().ok_or_else(|| {
                err!(
                    Unsupported,
                    "fused kernel {kname}: {} cannot share an accumulator",
                    a.op.name()
                )
            })?;
            let _ = writeln!(pre, "  r.f{j} = {start};");
        }
        pre.push_str("  return r;\n}\n");
        let _ = writeln!(
            pre,
            "__device__ __forceinline__ {acc_type} {kname}_merge(const {acc_type}& a, const {acc_type}& b) {{\n  {acc_type} r;"
        );
        for (j, a) in accs.iter().enumerate() {
            let _ = writeln!(
                pre,
                "  r.f{j} = {};",
                a.merge(&format!("a.f{j}"), &format!("b.f{j}"))
            );
        }
        pre.push_str("  return r;\n}\n");
    }
    // The map: a function of the element's operands.
    let (args, call) = map_params(p, kp);
    let _ = writeln!(
        pre,
        "__device__ __forceinline__ {acc_type} {kname}_map({}) {{",
        args.join(", ")
    );
    pre.push_str(&statements(p, &kp.arrays, &kp.body, "  "));
    let operand = |r: NodeId| value_name(p, &kp.arrays, p.node(r).args[0]);
    if single {
        let _ = writeln!(pre, "  return {};", accs[0].map(&operand(reduces[0])));
    } else {
        let _ = writeln!(pre, "  {acc_type} r;");
        for (j, (a, &r)) in accs.iter().zip(reduces).enumerate() {
            let _ = writeln!(pre, "  r.f{j} = {};", a.map(&operand(r)));
        }
        pre.push_str("  return r;\n");
    }
    pre.push_str("}\n");
    // The post-map: each reduced value, the epilogue, the outputs.
    let mut post = String::new();
    for (j, (a, &r)) in accs.iter().zip(reduces).enumerate() {
        let field = if single {
            "a".to_owned()
        } else {
            format!("a.f{j}")
        };
        let _ = write!(
            post,
            "const {} v{r} = {}; ",
            p.node(r).dtype.c_type(),
            a.finalize(&field)
        );
    }
    // In the epilogue a reduced value is the local above, not an array.
    let none: [NodeId; 0] = [];
    post.push_str(&statements(p, &none, &kp.epilogue, "").replace('\n', " "));
    for (j, &o) in kp.outputs.iter().enumerate() {
        let _ = write!(post, "out{j} = {}; ", value_name(p, &none, o));
    }
    let (reduce, identity) = if single {
        (accs[0].merge("a", "b"), accs[0].identity())
    } else {
        (
            format!("{kname}_merge(a, b)"),
            Some(format!("{kname}_start()")),
        )
    };
    Ok(ReductionStrings {
        preamble: pre,
        map: format!("{kname}_map({})", call.join(", ")),
        reduce,
        post_map: post.trim_end().to_owned(),
        identity,
        acc_type,
    })
}

/// The dtype of every kernel parameter (inputs, then outputs) and which are scalars: for
/// the sample sources `explain` shows.
pub(crate) fn param_dtypes(p: &Program, lk: &LoweredKernel) -> (Vec<DType>, Vec<bool>) {
    let mut dtypes = Vec::new();
    let mut scalars = Vec::new();
    for s in &lk.inputs {
        let n = match *s {
            Source::Temp(n) | Source::View(n) | Source::Scalar(n) => n,
            Source::Arg(i) => p
                .nodes
                .iter()
                .position(|x| x.kind == Kind::Input(i))
                .map_or(0, |k| k as NodeId),
        };
        dtypes.push(p.node(n).dtype);
        scalars.push(matches!(s, Source::Scalar(_)));
    }
    for &o in &lk.outputs {
        dtypes.push(p.node(o).dtype);
        scalars.push(false);
    }
    (dtypes, scalars)
}
