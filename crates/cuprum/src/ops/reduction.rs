//! The built-in reductions, each a [`ReductionKernel`] generated for the input dtype
//! (NumPy's result dtypes) and kept for the process.

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
    let x = format!("{} x", d.name());
    let complex = d.kind() == DTypeKind::Complex;
    Ok(match op {
        ROp::Sum | ROp::Prod => {
            let (acc, out) = sum_types(d);
            let (red, id) = if op == ROp::Sum {
                ("a + b", "0")
            } else {
                ("a * b", "1")
            };
            (
                x,
                format!("{} y", out.name()),
                cast(acc, "x"),
                red.into(),
                format!("y = {}", cast(out, "a")),
                Some(id.into()),
                Some(acc.c_type().into()),
            )
        }
        ROp::Mean => {
            let (acc, out) = mean_types(d);
            (
                x,
                format!("{} y", out.name()),
                cast(acc, "x"),
                "a + b".into(),
                format!(
                    "y = {}",
                    cast(
                        out,
                        &format!("a / ({})(_in_ind.size() / _out_ind.size())", acc.c_type())
                    )
                ),
                Some("0".into()),
                Some(acc.c_type().into()),
            )
        }
        ROp::Var | ROp::Std => {
            if complex {
                bail!(Unsupported, "{} of {d} arrays is not supported", op.name());
            }
            let (acc, out) = mean_types(d);
            let a = acc.c_type();
            let value = if op == ROp::Var {
                "a.m2 / a.n"
            } else {
                "sqrt(a.m2 / a.n)"
            };
            (
                x,
                format!("{} y", out.name()),
                format!("cuprum::Welford<{a}>({})", cast(acc, "x")),
                "cuprum::welford_merge(a, b)".into(),
                format!("y = {}", cast(out, value)),
                Some(format!("cuprum::Welford<{a}>()")),
                Some(format!("cuprum::Welford<{a}>")),
            )
        }
        ROp::Max | ROp::Min => {
            if complex {
                bail!(DType, "{} is not supported for {d} arrays", op.name());
            }
            let cmp = if op == ROp::Max { ">" } else { "<" };
            (
                x,
                format!("{} y", d.name()),
                "x".into(),
                format!("(a {cmp} b || a != a) ? a : b"),
                "y = a".into(),
                None,
                None,
            )
        }
        ROp::ArgMax | ROp::ArgMin => {
            if complex {
                bail!(DType, "{} is not supported for {d} arrays", op.name());
            }
            let v = match d {
                DType::F16 | DType::BF16 => DType::F32,
                other => other,
            };
            let ty = format!("cuprum::ArgBest<{}>", v.c_type());
            (
                x,
                "int64 y".into(),
                format!("{ty}({}, _J)", cast(v, "x")),
                format!("cuprum::{}_merge(a, b)", op.name()),
                "y = a.j".into(),
                None,
                Some(ty),
            )
        }
        ROp::All | ROp::Any => (
            x,
            "bool y".into(),
            cast(DType::Bool, "x"),
            if op == ROp::All { "a && b" } else { "a || b" }.into(),
            "y = a".into(),
            Some(if op == ROp::All { "true" } else { "false" }.into()),
            Some("bool".into()),
        ),
        ROp::CountNonzero => (
            x,
            "int64 y".into(),
            format!("{} ? 1LL : 0LL", cast(DType::Bool, "x")),
            "a + b".into(),
            "y = a".into(),
            Some("0".into()),
            Some("long long".into()),
        ),
    })
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
pub fn sample_sources() -> Result<Vec<(String, String)>> {
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
    out.extend(super::close::sample_sources()?);
    Ok(out)
}
