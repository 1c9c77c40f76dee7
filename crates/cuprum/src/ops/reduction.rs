//! The built-in reductions, each a [`ReductionKernel`] generated for the input dtype
//! (NumPy's result dtypes) and kept for the process.
//!
//! Each reduction is described once, as an `Accum`: the accumulator type, `map`, `merge`,
//! `identity` and `finalize`. The built-in ReductionKernels and `fuse`'s reductions (several
//! side by side in one accumulator) are both made from it. `var` / `std` merge Welford
//! triples in one pass; `argmax` / `argmin` reduce (value, index) pairs in which the first
//! NaN, then the first index, wins.

use crate::array::{Array, DType, DTypeKind};
use crate::error::{Result, bail};
use crate::kernel::{Axes, ReductionKernel};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Every built-in reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ROp {
    Sum,
    Prod,
    Mean,
    Var,
    Std,
    Max,
    Min,
    ArgMax,
    ArgMin,
    All,
    Any,
    CountNonzero,
}

impl ROp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ROp::Sum => "sum",
            ROp::Prod => "prod",
            ROp::Mean => "mean",
            ROp::Var => "var",
            ROp::Std => "std",
            ROp::Max => "maximum",
            ROp::Min => "minimum",
            ROp::ArgMax => "argmax",
            ROp::ArgMin => "argmin",
            ROp::All => "all",
            ROp::Any => "any",
            ROp::CountNonzero => "count_nonzero",
        }
    }
}

type Table = Mutex<FxHashMap<(ROp, DType), Arc<ReductionKernel>>>;

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(Default::default)
}

/// The accumulator of sums and products: 64-bit for integers (NumPy's sum dtype), float
/// for the 16-bit floats.
fn sum_types(d: DType) -> (DType, DType) {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt => (DType::I64, DType::I64),
        DTypeKind::UnsignedInt => (DType::U64, DType::U64),
        _ if matches!(d, DType::F16 | DType::BF16) => (DType::F32, d),
        _ => (d, d),
    }
}

/// Accumulator and output of mean / var / std (integers average in float64).
fn mean_types(d: DType) -> (DType, DType) {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt => (DType::F64, DType::F64),
        _ if matches!(d, DType::F16 | DType::BF16) => (DType::F32, d),
        _ => (d, d),
    }
}

fn cast(d: DType, what: &str) -> String {
    format!("cuprum::cast<{}>({what})", d.c_type())
}

/// How one reduction accumulates: the pieces the built-in reductions are made of, and
/// fused reductions too (`fuse` puts several side by side in one accumulator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Accum {
    /// Which reduction.
    pub(crate) op: ROp,
    /// The dtype of the values reduced.
    pub(crate) input: DType,
    /// The dtype the accumulator computes in (its C++ type is [`Accum::acc_type`]).
    pub(crate) acc: DType,
    /// The dtype of the result.
    pub(crate) out: DType,
}

impl Accum {
    /// The accumulation of `op` over values of `d`, or NumPy's refusal.
    pub(crate) fn of(op: ROp, d: DType) -> Result<Accum> {
        let complex = d.kind() == DTypeKind::Complex;
        let (acc, out) = match op {
            ROp::Sum | ROp::Prod => sum_types(d),
            ROp::Mean => mean_types(d),
            ROp::Var | ROp::Std => {
                if complex {
                    bail!(Unsupported, "{} of {d} arrays is not supported", op.name());
                }
                mean_types(d)
            }
            ROp::Max | ROp::Min => {
                if complex {
                    bail!(DType, "{} is not supported for {d} arrays", op.name());
                }
                (d, d)
            }
            ROp::ArgMax | ROp::ArgMin => {
                if complex {
                    bail!(DType, "{} is not supported for {d} arrays", op.name());
                }
                let v = match d {
                    DType::F16 | DType::BF16 => DType::F32,
                    other => other,
                };
                (v, DType::I64)
            }
            ROp::All | ROp::Any => (DType::Bool, DType::Bool),
            ROp::CountNonzero => (DType::I64, DType::I64),
        };
        Ok(Accum {
            op,
            input: d,
            acc,
            out,
        })
    }

    /// The C++ type of the accumulator (`_type_reduce`).
    pub(crate) fn acc_type(&self) -> String {
        let a = self.acc.c_type();
        match self.op {
            ROp::Var | ROp::Std => format!("cuprum::Welford<{a}>"),
            ROp::ArgMax | ROp::ArgMin => format!("cuprum::ArgBest<{a}>"),
            ROp::CountNonzero => "long long".into(),
            _ => a.into(),
        }
    }

    /// One value `x` (of the input dtype) as an accumulator.
    pub(crate) fn map(&self, x: &str) -> String {
        match self.op {
            ROp::Sum | ROp::Prod | ROp::Mean => cast(self.acc, x),
            ROp::Var | ROp::Std => format!("{}({})", self.acc_type(), cast(self.acc, x)),
            ROp::Max | ROp::Min => x.into(),
            ROp::ArgMax | ROp::ArgMin => format!("{}({}, _J)", self.acc_type(), cast(self.acc, x)),
            ROp::All | ROp::Any => cast(DType::Bool, x),
            ROp::CountNonzero => format!("{} ? 1LL : 0LL", cast(DType::Bool, x)),
        }
    }

    /// Two accumulators `a` and `b` combined.
    pub(crate) fn merge(&self, a: &str, b: &str) -> String {
        match self.op {
            ROp::Sum | ROp::Mean | ROp::CountNonzero => format!("{a} + {b}"),
            ROp::Prod => format!("{a} * {b}"),
            ROp::Var | ROp::Std => format!("cuprum::welford_merge({a}, {b})"),
            ROp::Max => format!("({a} > {b} || {a} != {a}) ? {a} : {b}"),
            ROp::Min => format!("({a} < {b} || {a} != {a}) ? {a} : {b}"),
            ROp::ArgMax | ROp::ArgMin => format!("cuprum::{}_merge({a}, {b})", self.op.name()),
            ROp::All => format!("{a} && {b}"),
            ROp::Any => format!("{a} || {b}"),
        }
    }

    /// The accumulator every reduction starts from; `None` where NumPy has no identity
    /// (max, min, argmax, argmin: an empty reduction is an error).
    pub(crate) fn identity(&self) -> Option<String> {
        Some(match self.op {
            ROp::Sum | ROp::Mean | ROp::CountNonzero => "0".into(),
            ROp::Prod => "1".into(),
            ROp::Var | ROp::Std => format!("{}()", self.acc_type()),
            ROp::All => "true".into(),
            ROp::Any => "false".into(),
            ROp::Max | ROp::Min | ROp::ArgMax | ROp::ArgMin => return None,
        })
    }

    /// A start value for reductions without an identity that is neutral for every
    /// non-empty reduction: the lowest value for max, the highest for min (the caller
    /// refuses empty reductions). `None` for argmax / argmin.
    pub(crate) fn neutral_start(&self) -> Option<String> {
        if let Some(id) = self.identity() {
            return Some(id);
        }
        let d = self.acc;
        let lowest = self.op == ROp::Max;
        let ct = d.c_type();
        Some(match d.kind() {
            DTypeKind::Bool => (if lowest { "false" } else { "true" }).into(),
            DTypeKind::Float => {
                let inf = "__int_as_float(0x7f800000)";
                let inf = match d {
                    DType::F64 => "__longlong_as_double(0x7ff0000000000000LL)",
                    _ => inf,
                };
                let sign = if lowest { "-" } else { "" };
                format!("({ct})({sign}{inf})")
            }
            DTypeKind::SignedInt => {
                let max = (1i128 << (d.itemsize() * 8 - 1)) - 1;
                if lowest {
                    // -max - 1: the most negative value without an out-of-range literal.
                    format!("({ct})(-{max}LL - 1)")
                } else {
                    format!("({ct})({max}LL)")
                }
            }
            DTypeKind::UnsignedInt => {
                if lowest {
                    format!("({ct})0")
                } else {
                    let max = (1u128 << (d.itemsize() * 8)) - 1;
                    format!("({ct})({max}ULL)")
                }
            }
            DTypeKind::Complex => return None,
        })
    }

    /// The result (of the output dtype) from the accumulator `a`; the mean divides by the
    /// number of reduced elements, `_in_ind.size() / _out_ind.size()` in the kernel.
    pub(crate) fn finalize(&self, a: &str) -> String {
        match self.op {
            ROp::Sum | ROp::Prod => cast(self.out, a),
            ROp::Mean => cast(
                self.out,
                &format!(
                    "{a} / ({})(_in_ind.size() / _out_ind.size())",
                    self.acc.c_type()
                ),
            ),
            ROp::Var => cast(self.out, &format!("{a}.m2 / {a}.n")),
            ROp::Std => cast(self.out, &format!("sqrt({a}.m2 / {a}.n)")),
            ROp::ArgMax | ROp::ArgMin => format!("{a}.j"),
            ROp::Max | ROp::Min | ROp::All | ROp::Any | ROp::CountNonzero => a.into(),
        }
    }
}

/// (in params, out params, map, reduce, post_map, identity, reduce_type) of `op` on `d`.
type Def = (
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

fn definition(op: ROp, d: DType) -> Result<Def> {
    let acc = Accum::of(op, d)?;
    let reduce_type = match op {
        ROp::Max | ROp::Min => None,
        _ => Some(acc.acc_type()),
    };
    Ok((
        format!("{} x", d.name()),
        format!("{} y", acc.out.name()),
        acc.map("x"),
        acc.merge("a", "b"),
        format!("y = {}", acc.finalize("a")),
        acc.identity(),
        reduce_type,
    ))
}

fn kernel(op: ROp, d: DType) -> Result<Arc<ReductionKernel>> {
    if let Some(k) = table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(op, d))
    {
        return Ok(k.clone());
    }
    let (ins, outs, map, red, post, id, rt) = definition(op, d)?;
    let mut k = ReductionKernel::new(
        &ins,
        &outs,
        map,
        red,
        post,
        id.as_deref(),
        format!("cuprum_{}", op.name()),
    )?;
    if let Some(rt) = rt {
        k = k.reduce_type(rt);
    }
    let k = Arc::new(k);
    table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert((op, d), k.clone());
    Ok(k)
}

/// Runs `op` over `axis` (all axes when `None`).
pub(crate) fn reduce(op: ROp, a: &Array, axis: Option<Axes>, keepdims: bool) -> Result<Array> {
    if matches!(op, ROp::ArgMax | ROp::ArgMin)
        && let Some(ax) = &axis
        && ax.0.len() != 1
    {
        bail!(
            InvalidArgument,
            "{} takes one axis or none, got {:?}",
            op.name(),
            ax.0.as_slice()
        );
    }
    let k = kernel(op, a.dtype())?;
    let r = match axis {
        Some(ax) => k.axis(ax).keepdims(keepdims).call((a,)),
        None => k.keepdims(keepdims).call((a,)),
    };
    r.map_err(|e| {
        if e.to_string()
            .starts_with("zero-size array to reduction operation")
        {
            crate::error::err!(
                InvalidArgument,
                "zero-size array to reduction operation {} which has no identity",
                op.name()
            )
        } else {
            e
        }
    })
}

/// Sources of every built-in reduction for every dtype it accepts, for NVRTC compile
/// checks without a GPU.
pub(crate) fn sample_sources() -> Result<Vec<(String, String)>> {
    use crate::kernel::ParamType;
    let ops = [
        ROp::Sum,
        ROp::Prod,
        ROp::Mean,
        ROp::Var,
        ROp::Std,
        ROp::Max,
        ROp::Min,
        ROp::ArgMax,
        ROp::ArgMin,
        ROp::All,
        ROp::Any,
        ROp::CountNonzero,
    ];
    let mut out = Vec::new();
    for op in ops {
        for &d in DType::ALL {
            if definition(op, d).is_err() {
                continue;
            }
            let k = kernel(op, d)?;
            let dtypes: Vec<DType> = k
                .params_for_samples()
                .iter()
                .map(|p| match p.ty {
                    ParamType::Concrete(t) => t,
                    ParamType::Placeholder(_) => d,
                })
                .collect();
            let scalars = vec![false; dtypes.len()];
            out.push((
                format!("{} {d}", op.name()),
                k.generated_source(&dtypes, &scalars)?,
            ));
        }
    }
    Ok(out)
}
