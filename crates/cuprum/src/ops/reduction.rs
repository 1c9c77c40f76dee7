//! The built-in reductions, each a [`ReductionKernel`] generated for the input dtype
//! (NumPy's result dtypes) and kept for the process.
//!
//! Each reduction is described once, as an `Accum`: the accumulator type, `map`, `merge`,
//! `identity` and `finalize`. The built-in ReductionKernels and `fuse`'s reductions (several
//! side by side in one accumulator) are both made from it. `var` / `std` merge Welford
//! triples in one pass; `argmax` / `argmin` reduce (value, index) pairs in which the first
//! NaN, then the first index, wins.
//!
//! The options of NumPy's reductions are part of the `Accum` ([`AccOpts`]): `dtype=` sets
//! the accumulator and result dtype, `ddof` enters `var`/`std`'s finalize, and an `out=`
//! array's dtype becomes the kernel's output dtype (the finalize casts into it, so `out=`
//! costs no extra pass). Complex `var`/`std` accumulate two real Welford triples (the real
//! and imaginary parts): NumPy's variance of complex data, `mean(|x - mean(x)|^2)`, is their
//! sum. The `nan*` reductions are their own `ROp`s (NaN-skipping maps and merges); on
//! integer and bool input they are the plain reductions. Kernels are kept per `Accum`, so
//! per (operation, input dtype, options).

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
    NanSum,
    NanMean,
    NanMax,
    NanMin,
    NanArgMax,
    NanArgMin,
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
            ROp::NanSum => "nansum",
            ROp::NanMean => "nanmean",
            ROp::NanMax => "fmax",
            ROp::NanMin => "fmin",
            ROp::NanArgMax => "nanargmax",
            ROp::NanArgMin => "nanargmin",
        }
    }

    /// NumPy's name of the function (`max`, `nanmax`; [`ROp::name`] is the ufunc's).
    pub(crate) fn user_name(self) -> &'static str {
        match self {
            ROp::Max => "max",
            ROp::Min => "min",
            ROp::NanMax => "nanmax",
            ROp::NanMin => "nanmin",
            other => other.name(),
        }
    }

    /// The plain reduction a `nan*` reduction is on input without NaN (integers, bool).
    pub(crate) fn without_nan(self) -> ROp {
        match self {
            ROp::NanSum => ROp::Sum,
            ROp::NanMean => ROp::Mean,
            ROp::NanMax => ROp::Max,
            ROp::NanMin => ROp::Min,
            ROp::NanArgMax => ROp::ArgMax,
            ROp::NanArgMin => ROp::ArgMin,
            other => other,
        }
    }

    /// Whether NumPy's function takes `dtype=` (sum, prod, mean, var, std, nansum, nanmean).
    pub(crate) fn takes_dtype(self) -> bool {
        matches!(
            self,
            ROp::Sum | ROp::Prod | ROp::Mean | ROp::Var | ROp::Std | ROp::NanSum | ROp::NanMean
        )
    }
}

/// The options an accumulation depends on (part of a kernel's cache key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct AccOpts {
    /// NumPy's `dtype=`: the accumulator and result dtype.
    pub(crate) dtype: Option<DType>,
    /// `var`/`std`'s delta degrees of freedom, as the bits of an `f64` (finite; `0` is 0.0).
    pub(crate) ddof_bits: u64,
    /// The dtype of an `out=` array: the result is cast into it.
    pub(crate) out: Option<DType>,
}

impl AccOpts {
    /// `ddof` as a number.
    pub(crate) fn ddof(&self) -> f64 {
        f64::from_bits(self.ddof_bits)
    }
}

type Table = Mutex<FxHashMap<Accum, Arc<ReductionKernel>>>;

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

/// The accumulator of an explicit `dtype=` `d`: `d` itself, float32 for the 16-bit floats.
fn acc_of(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        other => other,
    }
}

/// The real dtype of a complex one's parts (float32 for complex64).
fn real_of(d: DType) -> DType {
    match d {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        other => other,
    }
}

fn is_int(d: DType) -> bool {
    matches!(
        d.kind(),
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt
    )
}

fn cast(d: DType, what: &str) -> String {
    format!("cuprum::cast<{}>({what})", d.c_type())
}

/// How one reduction accumulates: the pieces the built-in reductions are made of, and
/// fused reductions too (`fuse` puts several side by side in one accumulator).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Accum {
    /// Which reduction.
    pub(crate) op: ROp,
    /// The dtype of the values reduced.
    pub(crate) input: DType,
    /// The dtype the accumulator computes in (its C++ type is [`Accum::acc_type`]).
    pub(crate) acc: DType,
    /// The dtype of the result.
    pub(crate) out: DType,
    /// `var`/`std`'s delta degrees of freedom (bits of an `f64`; 0 for the others).
    pub(crate) ddof_bits: u64,
}

impl Accum {
    /// The accumulation of `op` over values of `d`, or NumPy's refusal.
    pub(crate) fn of(op: ROp, d: DType) -> Result<Accum> {
        Accum::with(op, d, AccOpts::default())
    }

    /// The accumulation of `op` over values of `d` with NumPy's options (`dtype=`, `ddof`,
    /// the dtype of `out=`), or NumPy's refusal. `nan*` operations on integer or bool
    /// input are the plain ones.
    pub(crate) fn with(op: ROp, d: DType, opts: AccOpts) -> Result<Accum> {
        let op = if is_int(d) { op.without_nan() } else { op };
        let complex = d.kind() == DTypeKind::Complex;
        if let Some(t) = opts.dtype
            && !op.takes_dtype()
        {
            bail!(
                InvalidArgument,
                "{}() got an unexpected keyword argument 'dtype' (given {t})",
                op.user_name()
            );
        }
        if opts.ddof_bits != 0 && !matches!(op, ROp::Var | ROp::Std) {
            bail!(
                InvalidArgument,
                "{}() got an unexpected keyword argument 'ddof' (given {})",
                op.user_name(),
                opts.ddof()
            );
        }
        let (acc, mut out) = match op {
            ROp::Sum | ROp::Prod | ROp::NanSum => match opts.dtype {
                Some(t) => (acc_of(t), t),
                None => sum_types(d),
            },
            ROp::Mean | ROp::NanMean => match opts.dtype {
                Some(t) => (acc_of(t), t),
                None => mean_types(d),
            },
            ROp::Var | ROp::Std => match opts.dtype {
                Some(t) if is_int(t) => bail!(
                    Unsupported,
                    "{} with dtype={t}: NumPy truncates its two-pass intermediates to {t}; \
                     cuprum computes var/std in one floating-point pass: give a float or \
                     complex dtype (or none)",
                    op.name()
                ),
                Some(t) if complex && t.kind() != DTypeKind::Complex => bail!(
                    Unsupported,
                    "{} of {d} values with dtype={t}: NumPy keeps only the real part of the \
                     mean (a ComplexWarning); give a complex dtype (or none)",
                    op.name()
                ),
                Some(t) => (acc_of(real_of(t)), t),
                None if complex => (real_of(d), real_of(d)),
                None => mean_types(d),
            },
            ROp::Max | ROp::Min => (d, d),
            ROp::NanMax | ROp::NanMin => (d, d),
            ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin => {
                let v = match d {
                    DType::F16 | DType::BF16 => DType::F32,
                    other => other,
                };
                (v, DType::I64)
            }
            ROp::All | ROp::Any => (DType::Bool, DType::Bool),
            ROp::CountNonzero => (DType::I64, DType::I64),
        };
        // nanargmax/nanargmin write -1 for an all-NaN slice, then the caller checks.
        if let Some(o) = opts.out
            && !matches!(op, ROp::NanArgMax | ROp::NanArgMin)
        {
            out = o;
        }
        Ok(Accum {
            op,
            input: d,
            acc,
            out,
            ddof_bits: opts.ddof_bits,
        })
    }

    /// Whether the accumulator holds a complex value's two parts (complex var / std).
    fn parts(&self) -> bool {
        matches!(self.op, ROp::Var | ROp::Std) && self.input.kind() == DTypeKind::Complex
    }

    /// The complex dtype whose parts the accumulator holds (complex var / std).
    fn complex_acc(&self) -> DType {
        if self.acc == DType::F32 {
            DType::C64
        } else {
            DType::C128
        }
    }

    /// `ddof` as a C++ literal.
    fn ddof_literal(&self) -> String {
        format!("{:?}", f64::from_bits(self.ddof_bits))
    }

    /// The C++ type of the accumulator (`_type_reduce`).
    pub(crate) fn acc_type(&self) -> String {
        let a = self.acc.c_type();
        match self.op {
            ROp::Var | ROp::Std if self.parts() => format!("cuprum::Welford2<{a}>"),
            ROp::Var | ROp::Std => format!("cuprum::Welford<{a}>"),
            ROp::NanMean => format!("cuprum::SumCount<{a}>"),
            ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin => {
                format!("cuprum::ArgBest<{a}>")
            }
            ROp::CountNonzero => "long long".into(),
            _ => a.into(),
        }
    }

    /// One value `x` (of the input dtype) as an accumulator.
    pub(crate) fn map(&self, x: &str) -> String {
        match self.op {
            ROp::Sum | ROp::Prod | ROp::Mean => cast(self.acc, x),
            ROp::NanSum => format!(
                "(({x}) != ({x})) ? ({})(0) : {}",
                self.acc.c_type(),
                cast(self.acc, x)
            ),
            ROp::NanMean => format!(
                "(({x}) != ({x})) ? {t}() : {t}({})",
                cast(self.acc, x),
                t = self.acc_type()
            ),
            ROp::Var | ROp::Std if self.parts() => {
                format!("{}({})", self.acc_type(), cast(self.complex_acc(), x))
            }
            ROp::Var | ROp::Std => format!("{}({})", self.acc_type(), cast(self.acc, x)),
            ROp::Max | ROp::Min | ROp::NanMax | ROp::NanMin => x.into(),
            ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin => {
                format!("{}({}, _J)", self.acc_type(), cast(self.acc, x))
            }
            ROp::All | ROp::Any => cast(DType::Bool, x),
            ROp::CountNonzero => format!("{} ? 1LL : 0LL", cast(DType::Bool, x)),
        }
    }

    /// Two accumulators `a` and `b` combined.
    pub(crate) fn merge(&self, a: &str, b: &str) -> String {
        match self.op {
            ROp::Sum | ROp::Mean | ROp::CountNonzero | ROp::NanSum => format!("{a} + {b}"),
            ROp::Prod => format!("{a} * {b}"),
            ROp::Var | ROp::Std => format!("cuprum::welford_merge({a}, {b})"),
            ROp::NanMean => format!("cuprum::sum_count_merge({a}, {b})"),
            // Complex: NumPy's lexicographic order, NaN in either part propagating.
            ROp::Max if self.acc.kind() == DTypeKind::Complex => {
                format!("cuprum::maximum({a}, {b})")
            }
            ROp::Min if self.acc.kind() == DTypeKind::Complex => {
                format!("cuprum::minimum({a}, {b})")
            }
            ROp::Max => format!("({a} > {b} || {a} != {a}) ? {a} : {b}"),
            ROp::Min => format!("({a} < {b} || {a} != {a}) ? {a} : {b}"),
            // NaN loses: the other value wins (both NaN: NaN).
            ROp::NanMax => format!("(cuprum::order_greater({a}, {b}) || {b} != {b}) ? {a} : {b}"),
            ROp::NanMin => format!("(cuprum::order_less({a}, {b}) || {b} != {b}) ? {a} : {b}"),
            ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin => {
                format!("cuprum::{}_merge({a}, {b})", self.op.name())
            }
            ROp::All => format!("{a} && {b}"),
            ROp::Any => format!("{a} || {b}"),
        }
    }

    /// The accumulator every reduction starts from; `None` where NumPy has no identity
    /// (max, min, argmax, argmin: an empty reduction is an error).
    pub(crate) fn identity(&self) -> Option<String> {
        Some(match self.op {
            ROp::Sum | ROp::Mean | ROp::CountNonzero | ROp::NanSum => "0".into(),
            ROp::Prod => "1".into(),
            ROp::Var | ROp::Std | ROp::NanMean => format!("{}()", self.acc_type()),
            ROp::All => "true".into(),
            ROp::Any => "false".into(),
            ROp::Max
            | ROp::Min
            | ROp::ArgMax
            | ROp::ArgMin
            | ROp::NanMax
            | ROp::NanMin
            | ROp::NanArgMax
            | ROp::NanArgMin => return None,
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
        if matches!(
            self.op,
            ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin
        ) {
            return None;
        }
        let lowest = matches!(self.op, ROp::Max | ROp::NanMax);
        let ct = d.c_type();
        Some(match d.kind() {
            DTypeKind::Bool => (if lowest { "false" } else { "true" }).into(),
            // NaN: every value wins over it, and an all-NaN reduction stays NaN.
            DTypeKind::Float if matches!(self.op, ROp::NanMax | ROp::NanMin) => {
                let nan = match d {
                    DType::F64 => "__longlong_as_double(0x7ff8000000000000LL)",
                    _ => "__int_as_float(0x7fc00000)",
                };
                format!("({ct})({nan})")
            }
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
            // Both parts infinite: every value orders at or past it (max; min: below).
            DTypeKind::Complex if matches!(self.op, ROp::Max | ROp::Min) => {
                let part = if d == DType::C128 {
                    "__longlong_as_double(0x7ff0000000000000LL)"
                } else {
                    "__int_as_float(0x7f800000)"
                };
                let sign = if lowest { "-" } else { "" };
                format!("{ct}({sign}{part}, {sign}{part})")
            }
            // NaN in both parts: every value wins over it, and an all-NaN reduction stays NaN.
            DTypeKind::Complex if matches!(self.op, ROp::NanMax | ROp::NanMin) => {
                let part = if d == DType::C128 {
                    "__longlong_as_double(0x7ff8000000000000LL)"
                } else {
                    "__int_as_float(0x7fc00000)"
                };
                format!("{ct}({part}, {part})")
            }
            DTypeKind::Complex | DTypeKind::Record => return None,
        })
    }

    /// The result (of the output dtype) from the accumulator `a`; the mean divides by the
    /// number of reduced elements, `_in_ind.size() / _out_ind.size()` in the kernel.
    pub(crate) fn finalize(&self, a: &str) -> String {
        let count = "(_in_ind.size() / _out_ind.size())";
        match self.op {
            ROp::Sum | ROp::Prod | ROp::NanSum => cast(self.out, a),
            // Integer accumulators (an integer dtype=) divide in float64, as NumPy's
            // true_divide, then truncate into the result.
            ROp::Mean if is_int(self.acc) => cast(
                self.out,
                &format!("{} / (double){count}", cast(DType::F64, a)),
            ),
            ROp::Mean => cast(self.out, &format!("{a} / ({}){count}", self.acc.c_type())),
            ROp::NanMean if is_int(self.acc) => cast(
                self.out,
                &format!("{} / (double)({a}.n)", cast(DType::F64, &format!("{a}.s"))),
            ),
            ROp::NanMean => cast(
                self.out,
                &format!("{a}.s / {}", cast(self.acc, &format!("{a}.n"))),
            ),
            ROp::Var => cast(
                self.out,
                &format!("cuprum::welford_var({a}, {})", self.ddof_literal()),
            ),
            ROp::Std => cast(
                self.out,
                &format!("sqrt(cuprum::welford_var({a}, {}))", self.ddof_literal()),
            ),
            ROp::ArgMax | ROp::ArgMin => cast(self.out, &format!("{a}.j")),
            ROp::NanArgMax | ROp::NanArgMin => format!("({a}.v != {a}.v) ? -1LL : {a}.j"),
            ROp::Max | ROp::Min | ROp::NanMax | ROp::NanMin | ROp::All | ROp::Any => {
                cast(self.out, a)
            }
            ROp::CountNonzero => a.into(),
        }
    }
}

/// (in params, out params, map, reduce, post_map, identity, reduce_type) of an accumulation.
type Def = (
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

fn definition(acc: &Accum) -> Def {
    let reduce_type = match acc.op {
        ROp::Max | ROp::Min | ROp::NanMax | ROp::NanMin => None,
        _ => Some(acc.acc_type()),
    };
    (
        format!("{} x", acc.input.name()),
        format!("{} y", acc.out.name()),
        acc.map("x"),
        acc.merge("a", "b"),
        format!("y = {}", acc.finalize("a")),
        acc.identity(),
        reduce_type,
    )
}

/// The ReductionKernel of an accumulation (made once per process).
fn kernel(acc: &Accum) -> Result<Arc<ReductionKernel>> {
    if let Some(k) = table().lock().unwrap_or_else(|p| p.into_inner()).get(acc) {
        return Ok(k.clone());
    }
    let (ins, outs, map, red, post, id, rt) = definition(acc);
    let mut k = ReductionKernel::new(
        &ins,
        &outs,
        map,
        red,
        post,
        id.as_deref(),
        format!("cuprum_{}", acc.op.name()),
    )?;
    if let Some(rt) = rt {
        k = k.reduce_type(rt);
    }
    let k = Arc::new(k);
    table()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(acc.clone(), k.clone());
    Ok(k)
}

/// Runs `op` over `axis` (all axes when `None`).
pub(crate) fn reduce(op: ROp, a: &Array, axis: Option<Axes>, keepdims: bool) -> Result<Array> {
    reduce_into(op, a, axis, keepdims, AccOpts::default(), None)
}

/// Runs `op` over `axis` (all axes when `None`) with NumPy's options; the result is
/// written into `out` when given (its shape checked by the caller, its dtype in `opts`).
pub(crate) fn reduce_into(
    op: ROp,
    a: &Array,
    axis: Option<Axes>,
    keepdims: bool,
    opts: AccOpts,
    out: Option<&Array>,
) -> Result<Array> {
    super::promote::numeric("a reduction", a.dtype())?;
    if matches!(
        op,
        ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin
    ) && let Some(ax) = &axis
        && ax.0.len() != 1
    {
        bail!(
            InvalidArgument,
            "{} takes one axis or none, got {:?}",
            op.user_name(),
            ax.0.as_slice()
        );
    }
    let acc = Accum::with(op, a.dtype(), opts)?;
    let k = kernel(&acc)?;
    let direct = out.filter(|o| o.dtype() == acc.out);
    let call = match axis {
        Some(ax) => k.axis(ax).keepdims(keepdims),
        None => k.keepdims(keepdims),
    };
    let r = match direct {
        Some(o) => call.call((a, o)),
        None => call.call((a,)),
    };
    let r = r.map_err(|e| {
        if e.to_string()
            .starts_with("zero-size array to reduction operation")
        {
            crate::error::err!(
                InvalidArgument,
                "zero-size array to reduction operation {} which has no identity",
                acc.op.name()
            )
        } else {
            e
        }
    })?;
    if matches!(acc.op, ROp::NanArgMax | ROp::NanArgMin) && r.size() > 0 {
        let lowest = reduce(ROp::Min, &r, None, false)?.to_vec::<i64>()?;
        if lowest.first().is_some_and(|&j| j < 0) {
            bail!(InvalidArgument, "All-NaN slice encountered");
        }
    }
    match out {
        Some(o) if direct.is_none() => {
            o.assign(&r.astype(o.dtype())?)?;
            Ok(o.clone())
        }
        _ => Ok(r),
    }
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
        ROp::NanSum,
        ROp::NanMean,
        ROp::NanMax,
        ROp::NanMin,
        ROp::NanArgMax,
        ROp::NanArgMin,
    ];
    let mut accs = Vec::new();
    for op in ops {
        for &d in DType::ALL {
            // nan* of integers are the plain reductions, sampled above.
            if let Ok(acc) = Accum::of(op, d)
                && acc.op == op
            {
                accs.push(acc);
            }
        }
    }
    // The options: ddof, dtype= (wider, narrower, integer), out= of another dtype.
    let ddof1 = AccOpts {
        ddof_bits: 1f64.to_bits(),
        ..AccOpts::default()
    };
    let with = |dtype, out| AccOpts {
        dtype,
        out,
        ..AccOpts::default()
    };
    for (op, d, o) in [
        (ROp::Var, DType::F32, ddof1),
        (ROp::Std, DType::C64, ddof1),
        (ROp::Sum, DType::F32, with(Some(DType::F64), None)),
        (ROp::Sum, DType::F64, with(Some(DType::I32), None)),
        (ROp::Sum, DType::C128, with(Some(DType::F64), None)),
        (ROp::Prod, DType::I64, with(Some(DType::Bool), None)),
        (ROp::Mean, DType::I32, with(Some(DType::I32), None)),
        (ROp::Mean, DType::U8, with(Some(DType::F16), None)),
        (ROp::Var, DType::I16, with(Some(DType::C64), None)),
        (ROp::NanMean, DType::F64, with(Some(DType::I8), None)),
        (ROp::Sum, DType::F64, with(None, Some(DType::I32))),
        (ROp::Var, DType::F64, with(None, Some(DType::C128))),
        (ROp::ArgMax, DType::F32, with(None, Some(DType::U8))),
        (ROp::Max, DType::F64, with(None, Some(DType::BF16))),
    ] {
        accs.push(Accum::with(op, d, o)?);
    }
    let mut out = Vec::new();
    for acc in accs {
        let (op, d) = (acc.op, acc.input);
        let k = kernel(&acc)?;
        let dtypes: Vec<DType> = k
            .params_for_samples()
            .iter()
            .map(|p| match p.ty {
                ParamType::Concrete(t) => t,
                ParamType::Placeholder(_) => d,
            })
            .collect();
        let scalars = vec![false; dtypes.len()];
        let opts = if acc == Accum::of(op, d)? {
            String::new()
        } else {
            format!(
                " (acc {}, ddof {}) -> {}",
                acc.acc,
                acc.ddof_literal(),
                acc.out
            )
        };
        out.push((
            format!("{} {d}{opts}", op.name()),
            k.generated_source(&dtypes, &scalars)?,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    fn opts(dtype: Option<DType>, ddof: f64, out: Option<DType>) -> AccOpts {
        AccOpts {
            dtype,
            ddof_bits: ddof.to_bits(),
            out,
        }
    }

    #[test]
    fn options_give_numpys_accumulator_and_result_dtypes() {
        // (op, input, dtype=, out=) -> (op, accumulator, result)
        let cases = [
            (ROp::Sum, F32, Some(F64), None, (ROp::Sum, F64, F64)),
            (ROp::Sum, F64, Some(I32), None, (ROp::Sum, I32, I32)),
            (ROp::Sum, I32, Some(F16), None, (ROp::Sum, F32, F16)),
            (ROp::Prod, I8, None, Some(F32), (ROp::Prod, I64, F32)),
            (ROp::Mean, I32, Some(I32), None, (ROp::Mean, I32, I32)),
            (ROp::Var, C64, None, None, (ROp::Var, F32, F32)),
            (ROp::Std, C128, Some(C64), None, (ROp::Std, F32, C64)),
            (ROp::Var, I16, Some(F32), Some(C128), (ROp::Var, F32, C128)),
            (ROp::NanSum, I8, None, None, (ROp::Sum, I64, I64)),
            (ROp::NanMean, U8, None, None, (ROp::Mean, F64, F64)),
            (ROp::NanMax, BF16, None, None, (ROp::NanMax, BF16, BF16)),
            (
                ROp::NanArgMax,
                F16,
                None,
                Some(U8),
                (ROp::NanArgMax, F32, I64),
            ),
            (ROp::ArgMin, F64, None, Some(I32), (ROp::ArgMin, F64, I32)),
        ];
        for (op, d, dtype, out, want) in cases {
            let a = Accum::with(op, d, opts(dtype, 0.0, out)).unwrap();
            assert_eq!((a.op, a.acc, a.out), want, "{op:?} {d} {dtype:?} {out:?}");
        }
    }

    #[test]
    fn refusals_name_what_was_given() {
        let e = |op, d, o| Accum::with(op, d, o).unwrap_err().to_string();
        assert!(
            e(ROp::Max, F32, opts(Some(F64), 0.0, None))
                .contains("max() got an unexpected keyword argument 'dtype' (given float64)")
        );
        assert!(
            e(ROp::Sum, F32, opts(None, 1.0, None))
                .contains("sum() got an unexpected keyword argument 'ddof'")
        );
        assert!(e(ROp::Var, F32, opts(Some(I32), 0.0, None)).contains("var with dtype=int32"));
        assert!(
            e(ROp::Std, C64, opts(Some(F32), 0.0, None))
                .contains("std of complex64 values with dtype=float32")
        );
    }

    #[test]
    fn complex_nanmax_and_argmax_order_lexicographically() {
        let m = Accum::with(ROp::NanMax, C64, AccOpts::default()).unwrap();
        assert_eq!((m.acc, m.out), (C64, C64));
        assert_eq!(
            m.merge("a", "b"),
            "(cuprum::order_greater(a, b) || b != b) ? a : b"
        );
        assert_eq!(
            m.neutral_start().unwrap(),
            "complex<float>(__int_as_float(0x7fc00000), __int_as_float(0x7fc00000))"
        );
        let a = Accum::with(ROp::ArgMin, C128, AccOpts::default()).unwrap();
        assert_eq!((a.acc, a.out), (C128, I64));
        assert_eq!(a.acc_type(), "cuprum::ArgBest<complex<double>>");
    }

    #[test]
    fn complex_max_and_min_order_as_numpy() {
        let m = Accum::with(ROp::Max, C128, AccOpts::default()).unwrap();
        assert_eq!((m.acc, m.out), (C128, C128));
        assert_eq!(m.merge("a", "b"), "cuprum::maximum(a, b)");
        let start = m.neutral_start().unwrap();
        assert!(
            start.starts_with("complex<double>(-__longlong_as_double"),
            "{start}"
        );
        let n = Accum::with(ROp::Min, C64, AccOpts::default()).unwrap();
        assert_eq!(n.merge("a", "b"), "cuprum::minimum(a, b)");
        assert!(
            n.neutral_start()
                .unwrap()
                .starts_with("complex<float>(__int_as_float")
        );
    }

    #[test]
    fn ddof_enters_the_finalize_as_a_literal() {
        let a = Accum::with(ROp::Var, F64, opts(None, 1.5, None)).unwrap();
        assert!(
            a.finalize("a").contains("welford_var(a, 1.5)"),
            "{}",
            a.finalize("a")
        );
        let c = Accum::with(ROp::Std, C128, opts(None, 1.0, None)).unwrap();
        assert_eq!(c.acc_type(), "cuprum::Welford2<double>");
        assert!(
            c.map("x").contains("cuprum::cast<complex<double>>(x)"),
            "{}",
            c.map("x")
        );
        // nanmax starts from NaN in fused accumulators, so an all-NaN slice stays NaN
        let m = Accum::of(ROp::NanMax, F32).unwrap();
        assert!(m.neutral_start().unwrap().contains("0x7fc00000"));
        assert_ne!(
            Accum::with(ROp::Var, F64, opts(None, 1.0, None)).unwrap(),
            Accum::of(ROp::Var, F64).unwrap()
        );
    }
}
