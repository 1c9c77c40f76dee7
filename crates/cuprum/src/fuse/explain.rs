//! `explain`: a fused function's plan for given argument shapes, in words — the traced
//! values with the user's lines, the kernels, what each computes and the bytes it moves,
//! why the plan was cut where it was, and each kernel's CUDA source.

use super::ir::{Kind, NodeId, Program, Slot, kind_name};
use super::lower::{Built, Lowered, LoweredKernel, Shapes, Source, param_dtypes};
use super::plan::{KernelPlan, PlanKind};
use crate::array::DType;
use crate::error::Result;
use crate::shape::format_shape;
use std::fmt::{self, Write};

/// One argument of a fused call, described without data (for
/// [`Fused::explain_for`](crate::fuse::Fused::explain_for)).
///
/// ```
/// use cuprum::{DType, fuse::ArgSpec};
/// let x = ArgSpec::array(DType::F32, &[1024, 3]);
/// let s = ArgSpec::scalar(DType::F64);
/// assert_ne!(x, s);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSpec {
    /// An array of this dtype and shape.
    Array(DType, Vec<usize>),
    /// A Rust scalar of this dtype.
    Scalar(DType),
}

impl ArgSpec {
    /// An array argument.
    ///
    /// ```
    /// use cuprum::{DType, fuse::ArgSpec};
    /// assert_eq!(ArgSpec::array(DType::F64, &[2]), ArgSpec::Array(DType::F64, vec![2]));
    /// ```
    pub fn array(dtype: DType, shape: &[usize]) -> ArgSpec {
        ArgSpec::Array(dtype, shape.to_vec())
    }

    /// A scalar argument.
    ///
    /// ```
    /// use cuprum::{DType, fuse::ArgSpec};
    /// assert_eq!(ArgSpec::scalar(DType::I32), ArgSpec::Scalar(DType::I32));
    /// ```
    pub fn scalar(dtype: DType) -> ArgSpec {
        ArgSpec::Scalar(dtype)
    }
}

/// Which kernel type a fused kernel is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// An [`ElementwiseKernel`](crate::ElementwiseKernel).
    Elementwise,
    /// A [`ReductionKernel`](crate::ReductionKernel).
    Reduction,
    /// A [`ScanKernel`](crate::ScanKernel) (`cumsum`, `cumprod`).
    Scan,
}

/// One kernel of an [`Explain`].
#[derive(Debug, Clone)]
pub struct ExplainedKernel {
    /// The kernel's name (`cuprum_fuse_{name}_{k}`, as profilers show it).
    pub name: String,
    /// Elementwise or reduction.
    pub kind: KernelKind,
    /// Bytes of the arrays it reads (each element once).
    pub bytes_read: u64,
    /// Bytes of the arrays it writes.
    pub bytes_written: u64,
    /// Why this kernel exists, and why the plan was cut before it.
    pub why: String,
    /// Its CUDA source for contiguous operands (other layouts differ in indexing only).
    pub source: String,
}

/// A fused function's plan for some argument shapes ([`Fused::explain`](crate::fuse::Fused::explain)).
/// `Display` prints the summary, then every kernel's source.
///
/// ```
/// use cuprum::{DType, fuse::{ArgSpec, fuse}};
/// let f = fuse("mse", |[a, b]| { let d = a - b; (d * d).mean() });
/// let e = f.explain_for(&vec![ArgSpec::array(DType::F64, &[1000]); 2])?;
/// assert_eq!(e.kernels().len(), 1);
/// assert_eq!(e.bytes(), 16_008);
/// println!("{e}");
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Explain {
    summary: String,
    kernels: Vec<ExplainedKernel>,
    outputs: Vec<(DType, Vec<usize>)>,
}

impl Explain {
    /// The plan in words, without the sources.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The kernels, in launch order.
    pub fn kernels(&self) -> &[ExplainedKernel] {
        &self.kernels
    }

    /// The dtype and shape of each returned value.
    pub fn outputs(&self) -> &[(DType, Vec<usize>)] {
        &self.outputs
    }

    /// Bytes all kernels move (read and written).
    pub fn bytes(&self) -> u64 {
        self.kernels
            .iter()
            .map(|k| k.bytes_read + k.bytes_written)
            .sum()
    }
}

impl fmt::Display for Explain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary)?;
        for (k, kern) in self.kernels.iter().enumerate() {
            writeln!(
                f,
                "---- kernel {k} source ({}, contiguous operands) ----",
                kern.name
            )?;
            f.write_str(&kern.source)?;
        }
        Ok(())
    }
}

fn nbytes(shape: &[usize], d: DType) -> u64 {
    shape.iter().product::<usize>() as u64 * d.itemsize() as u64
}

/// How node `k` is listed.
fn describe(p: &Program, k: NodeId) -> String {
    let n = p.node(k);
    let args: Vec<String> = n.args.iter().map(|a| format!("%{a}")).collect();
    match n.kind {
        Kind::Input(i) => format!("argument {i}"),
        Kind::Scalar(s) => match p.slots[s as usize] {
            Slot::Arg(i) => format!("scalar argument {i}"),
            Slot::Literal(v) => format!("literal {v:?}"),
        },
        Kind::Const(b) => format!("constant {b} (shape of {})", args.join(", ")),
        Kind::Reduce(_, mask, keepdims, _) => {
            let nd = p.node(n.args[0]).ndim as u32;
            let full = (0..nd).all(|b| mask & (1u64 << b) != 0);
            let mut s = format!("{}({}", kind_name(&n.kind), args.join(", "));
            if !full {
                let axes: Vec<String> = (0..nd)
                    .filter(|&b| mask & (1u64 << b) != 0)
                    .map(|b| b.to_string())
                    .collect();
                let _ = write!(s, ", axis ({})", axes.join(", "));
            }
            if keepdims {
                s.push_str(", keepdims");
            }
            s.push(')');
            s
        }
        Kind::Expand(new) => {
            let axes: Vec<String> = (0..u32::from(n.ndim))
                .filter(|&b| new & (1u64 << b) != 0)
                .map(|b| b.to_string())
                .collect();
            format!(
                "expand_dims({}, new axes ({}))",
                args.join(", "),
                axes.join(", ")
            )
        }
        Kind::Scan(_, Some(a)) => {
            format!("{}({}, axis {a})", kind_name(&n.kind), args.join(", "))
        }
        _ => format!("{}({})", kind_name(&n.kind), args.join(", ")),
    }
}

fn ids(list: &[NodeId]) -> String {
    if list.is_empty() {
        return "-".to_owned();
    }
    list.iter()
        .map(|k| format!("%{k}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The explanation of `low` for argument descriptions `args` and node shapes `shapes`.
pub(crate) fn explain(
    name: &str,
    low: &Lowered,
    args: &[ArgSpec],
    shapes: &Shapes,
) -> Result<Explain> {
    let p = &low.program;
    let mut kernels = Vec::new();
    let mut body = String::new();
    for (k, (lk, kp)) in low.kernels.iter().zip(&low.plan.kernels).enumerate() {
        let ek = explain_kernel(p, lk, kp, shapes, args)?;
        let kind = match ek.kind {
            KernelKind::Elementwise => "ElementwiseKernel".to_owned(),
            KernelKind::Reduction => "ReductionKernel".to_owned(),
            KernelKind::Scan => "ScanKernel".to_owned(),
        };
        let _ = writeln!(body, "kernel {k}: {kind} {}", ek.name);
        let reads: Vec<String> = kp
            .arrays
            .iter()
            .map(|&a| format!("%{a} ({} B)", nbytes(&shapes[a as usize], p.node(a).dtype)))
            .collect();
        let writes: Vec<String> = kp
            .outputs
            .iter()
            .map(|&o| format!("%{o} ({} B)", nbytes(&shapes[o as usize], p.node(o).dtype)))
            .collect();
        let _ = writeln!(
            body,
            "  moves {} B: reads {}; writes {}",
            ek.bytes_read + ek.bytes_written,
            if reads.is_empty() {
                "nothing".to_owned()
            } else {
                reads.join(", ")
            },
            writes.join(", ")
        );
        match &kp.kind {
            PlanKind::Elementwise => {
                let _ = writeln!(body, "  computes {}", ids(&kp.body));
            }
            PlanKind::Scan { scan } => {
                let _ = writeln!(body, "  map {}; scans %{scan}", ids(&kp.body));
            }
            PlanKind::Reduction { reduces, .. } => {
                let _ = writeln!(
                    body,
                    "  map {}; reduces {}; epilogue {}",
                    ids(&kp.body),
                    ids(reduces),
                    ids(&kp.epilogue)
                );
            }
        }
        let _ = writeln!(body, "  why: {}", ek.why);
        kernels.push(ek);
    }
    let total: u64 = kernels.iter().map(|k| k.bytes_read + k.bytes_written).sum();
    let arg_text: Vec<String> = args
        .iter()
        .map(|a| match a {
            ArgSpec::Array(d, s) => format!("{d} {}", format_shape(s)),
            ArgSpec::Scalar(d) => format!("{} scalar", d.rust_name()),
        })
        .collect();
    let mut s = format!(
        "fused `{name}` for ({}): {} kernel{}, {total} B moved\n",
        arg_text.join(", "),
        kernels.len(),
        if kernels.len() == 1 { "" } else { "s" }
    );
    for (k, n) in p.nodes.iter().enumerate() {
        let line = format!(
            "  %{k} = {:<30} {} {}",
            describe(p, k as NodeId),
            n.dtype,
            format_shape(&shapes[k])
        );
        match n.kind {
            Kind::Input(_) => {
                let _ = writeln!(s, "{line}");
            }
            _ => {
                let _ = writeln!(s, "{line:<60} at {}", n.loc);
            }
        }
    }
    let _ = writeln!(s, "  returns {}", ids(&p.outputs));
    s.push_str(&body);
    let outputs = p
        .outputs
        .iter()
        .map(|&o| (p.node(o).dtype, shapes[o as usize].to_vec()))
        .collect();
    Ok(Explain {
        summary: s,
        kernels,
        outputs,
    })
}

fn explain_kernel(
    p: &Program,
    lk: &LoweredKernel,
    kp: &KernelPlan,
    shapes: &Shapes,
    _args: &[ArgSpec],
) -> Result<ExplainedKernel> {
    let read: u64 = lk
        .inputs
        .iter()
        .filter_map(|s| match *s {
            Source::Arg(i) => p.nodes.iter().position(|n| n.kind == Kind::Input(i)),
            Source::Temp(n) | Source::View(n) => Some(n as usize),
            Source::Scalar(_) => None,
        })
        .map(|k| nbytes(&shapes[k], p.nodes[k].dtype))
        .sum();
    let written: u64 = kp
        .outputs
        .iter()
        .map(|&o| nbytes(&shapes[o as usize], p.node(o).dtype))
        .sum();
    let (dtypes, scalars) = param_dtypes(p, lk);
    let (name, kind, source) = match &lk.built {
        Built::Elementwise(k) => (
            k.name().to_owned(),
            KernelKind::Elementwise,
            k.generated_source(&dtypes, &scalars)?,
        ),
        Built::Reduction(k) => (
            k.name().to_owned(),
            KernelKind::Reduction,
            k.generated_source(&dtypes, &scalars)?,
        ),
        Built::Scan(k) => (
            k.name().to_owned(),
            KernelKind::Scan,
            k.source_for(&dtypes, &scalars, false)?,
        ),
    };
    Ok(ExplainedKernel {
        name,
        kind,
        bytes_read: read,
        bytes_written: written,
        why: kp.why.clone(),
        source,
    })
}
