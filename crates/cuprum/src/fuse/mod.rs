//! Kernel fusion: array math written with the operations of [`ops`](crate::ops), run as
//! one pass over memory (CuPy's `cupy.fuse`, without its limits).
//!
//! [`fuse`](fuse()) takes a name and a closure over traced values ([`Var`]), one per
//! argument (`|[a, b]| ...`), and returns a [`Fused`] function called like the kernels
//! (`mse.call((&y_true, &y_pred))?`). Inside the closure every operation of `ops` is
//! available — operators with Rust scalars on either side, comparisons, math functions,
//! [`where_`], `clip`, `astype`, powers — with NumPy's promotion (Rust scalars weak) and
//! broadcasting, reductions (`sum`, `mean`, `prod`, `max`, `min`, `var`, `std`, `all`,
//! `any`, each with an `_axis` form taking axes and keepdims) followed by more element-wise
//! work on the reduced values, and scans (`cumsum`, `cumprod`, along an axis or over the
//! flattened value). Return one value, a tuple or an array of values.
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{Array, DType, random};
//! let mse = cuprum::fuse("mse", |[y_true, y_pred]| {
//!     let d = y_pred - y_true;
//!     (d * d).mean()
//! });
//! let y_true = random::uniform(0.0, 100.0, &[10_000_000], DType::F64)?;
//! let y_pred = random::uniform(0.0, 100.0, &[10_000_000], DType::F64)?;
//! let m = mse.call((&y_true, &y_pred))?;          // one ReductionKernel, one pass
//! println!("{}", m.to_vec::<f64>()?[0]);
//!
//! let stats = cuprum::fuse("stats", |[x]| (x.mean(), x.std(), x.abs().max()));
//! let out: Vec<Array> = stats.call_all((&y_true,))?;      // one pass for all three
//! let (mean, std, absmax) = (&out[0], &out[1], &out[2]);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! **How it runs.** The closure is traced once per input signature (each argument's dtype
//! and number of dimensions, or scalar dtype) into a small program, planned and lowered to
//! cuprum's own [`ElementwiseKernel`](crate::ElementwiseKernel)s,
//! [`ReductionKernel`](crate::ReductionKernel)s and [`ScanKernel`](crate::ScanKernel)s, so a
//! fused call has their layout classes (vector loads, broadcast rows, transposed tiles),
//! their multi-block reductions and the one-pass scan engine: element-wise producers of a
//! reduction or a scan run in its loads, the work after a reduction in its final stage,
//! and reductions over the same elements share one pass. What one kernel cannot do —
//! a reduced value used again on the elements it came from, as in a softmax — becomes a
//! short plan of kernels, never a wrong result; [`Fused::explain`] prints the plan, its
//! CUDA sources, the bytes each kernel moves and why it was cut where it was.
//!
//! **What is compiled.** Only structure: the traced operations, dtypes and numbers of
//! dimensions. Shapes are not in any key (a new shape reuses the kernels, whose layout
//! specialisations are cached as usual), and scalars — arguments of the call and Rust
//! literals of the closure alike, and the element count a `mean` divides by — are kernel
//! parameters, never source text: changing them never recompiles. A repeat call is one
//! hash lookup, a shape check and the launches.
//!
//! **Errors.** A dtype error, an axis out of range or an unsupported operation is found
//! while tracing; a broadcast error or an empty `max` while checking the shapes of a call.
//! Either way the call returns a [`cuprum::Error`](crate::Error) that names the fused
//! function and the line of the closure where the operation was written
//! (`fused `mse` at src/main.rs:14:17 (subtract): ...`); nothing panics. Scalars passed as
//! arguments are range-checked against the dtype they take (`300` for a `uint8` operation
//! is an error, as in `ops`).
//!
//! **Differences from `ops`.** Results equal `ops` for integers and booleans; floats may
//! differ in the last bits (values stay in registers and NVRTC contracts `a * b + c` into
//! fused multiply-adds). Rust's `if` cannot look at a traced value (it is not a `bool`):
//! use [`where_`]. Reducing a value computed from scalars only is refused.
//!
//! **Adding an operation.** Element-wise operations come from the one table in
//! `ops/ufunc.rs` (see its module docs): a new ufunc is a row there, its `ops` function,
//! and one line in `unary_methods!` / `binary_methods!` of `fuse/var.rs`.
//!
//! Layout of this module: `var.rs` (the traced API), `trace.rs` (tracing and NumPy's rules
//! per node), `ir.rs` (the program), `plan.rs` (program → kernels), `lower.rs` (kernels →
//! Elementwise/Reduction/ScanKernels), `run.rs` (shape pass and launches), `explain.rs`.
//!
//! **Design choices.** Fusion traces, plans and lowers to the kernels above; it never
//! launches anything of its own. The closure takes an array of [`Var`]s (`|[a, b]|`): the
//! array pattern lets Rust infer the closure's types for any arity on stable Rust, where
//! `|a, b|` cannot be inferred through an arity-generic bound once the body calls a method.
//! Nodes are hash-consed while tracing (a common subexpression is computed once), and every
//! node records the user's `Location` (`#[track_caller]` through operators and methods).
//! `mean`'s count is the kernel's own `_in_ind.size() / _out_ind.size()`. The lowered plan
//! (kernel objects, parameter sources, literal values) is kept per signature in the
//! [`Fused`], for at most 64 signatures (a closure whose signatures keep changing
//! retraces). User lines are not written into the generated source, which would make the
//! source — hence the compile cache — depend on line numbers: `explain` lists them beside
//! each value instead. The plan is cut by the arrays a value reads (shape-free), not by
//! concrete shapes, so two reductions over different arguments of equal shape are two
//! kernels. Bindings (the Python package's `cuprum.fuse`) trace a function of their own
//! language through the crate-internal `fuse_dynamic` (any arity) and `dynamic` (the
//! tracer's entries, one node per call) — the same tracer, planner and kernels.
//!
//! **A first call's time.** What a new fused function's first call does, read from the
//! code (2026-11-27): `lowered` traces, plans and lowers (0.2 ms on a process's first fused
//! function, 0.04 ms after, on the 2-core build machine), then each kernel of the plan —
//! one for an element-wise chain — takes an ElementwiseKernel's or ReductionKernel's own
//! first call: one specialisation, one pass through the module memo, the kernel cache (key,
//! disk miss, NVRTC, the entry's write) and the module load, then allocation from the pool
//! and the launch. There is no synchronisation, no second compile per kernel and no other
//! memo on the way. Measured on the H100 machine (2026-11-27, `bench-child fuse-cold-parts`
//! and `cuprum compile --profile --repeat`): the compile is the first call — trace, plan
//! and source 0.1 ms, load 0.15 ms, the same function's first call without NVRTC 0.1 ms,
//! from the disk entry 0.13 ms — and a new kernel's NVRTC compile there takes 45–65 ms
//! (front end 12, NVVM 24, ptxas 22 ms for the 4-wide variant a contiguous float32 call
//! compiles). Figures of 9–20 ms for the same source were NVRTC's own cache serving
//! sources that differed only in a comment (compile/program.rs, `--no-cache`); the lean
//! headers (same file) cut the front end's share. The `fuse_compile_cold` row times the
//! median of seven new fused functions per process after one, as the other cold rows do; `cuprum bench-child fuse-cold-parts DIR` splits
//! one process's first calls: the whole first call and its NVRTC count, the same
//! function's first call with the module already in the process's memo (everything but
//! NVRTC and the load), then again after `clear_memo` (the disk entry and the load
//! besides), the load of the
//! kernel alone, a new array, and an ElementwiseKernel's first call for comparison.
//!
//! **Scans.** A scan node (`x.cumsum(axis)`) is a ScanKernel whose map computes the scan's
//! operand from the arrays it reads, accumulating, wrapping and converting as
//! `ops::cumsum` does (`ops/scan.rs` gives the accumulator, operator and identity). Its
//! result is always written, and the work after it (`+ 1.0` in `(x * 2.0).cumsum(None) +
//! 1.0`) is a following element-wise kernel that reads it back: a ScanKernel's post-map
//! sees only the accumulated value, not the kernel's other parameters, so an epilogue with
//! a scalar (every literal is a parameter, never source text) cannot run in it without
//! giving the engine's output conversion the inputs — a change to the tuned kernels. A
//! user's own `ScanKernel` cannot be called inside a trace (a traced value is not an
//! array); call it on the fused function's result instead.
//!
//! Not (yet) there: the work after a scan in the scan's pass (see above), outputs written
//! by the map of a reduction (`(y, y.sum())` is two passes), a row-persistent softmax,
//! given output arrays (`call_into`), a literal base with a traced exponent (`lit **
//! var`), `strict()` and `unfused()`.

mod explain;
mod ir;
mod lower;
mod operand;
mod plan;
mod run;
mod trace;
mod var;

pub use explain::{ArgSpec, Explain, ExplainedKernel, KernelKind};
pub use operand::{IntoVar, Var, VarArg, VarBound};
pub use var::where_;

/// The tracer's entries for bindings that trace a function of another language
/// (`python/fuse.rs`): each records one node at `loc` and returns its [`Var`] (poisoned on
/// failure, as operators do); `node_info` says what a `Var` is, or why it is unusable.
#[cfg(feature = "python")]
pub(crate) mod dynamic {
    pub(crate) use super::trace::{
        astype, clip, clock, expand_dims, last_use, node_info, power, reduce_with, scan,
        strong_literal, ufunc,
    };
}

use crate::array::Array;
use crate::compile::CompileOptions;
use crate::error::{Result, bail};
use crate::kernel::{Operand, Operands, Outputs};
pub(crate) use lower::Lowered;
use operand::Loc;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::panic::Location;
use std::sync::{Arc, Mutex};
use trace::ArgSig;

/// What a fused closure returns: one [`Var`], a tuple of up to 8, an array or a `Vec`.
///
/// ```
/// use cuprum::{DType, fuse::{ArgSpec, fuse}};
/// let f = fuse("two", |[x]| (x + 1.0, x.sum()));
/// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[4])])?;
/// assert_eq!(e.outputs().len(), 2);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub trait FuseOutput {
    /// The returned values in order.
    #[doc(hidden)]
    fn into_vars(self) -> Vec<Var>;
}

impl FuseOutput for Var {
    fn into_vars(self) -> Vec<Var> {
        vec![self]
    }
}

impl<const N: usize> FuseOutput for [Var; N] {
    fn into_vars(self) -> Vec<Var> {
        self.to_vec()
    }
}

impl FuseOutput for Vec<Var> {
    fn into_vars(self) -> Vec<Var> {
        self
    }
}

/// `Var`, whatever the identifier (for the tuple impls).
macro_rules! var_of {
    ($x:ident) => {
        Var
    };
}

macro_rules! tuple_outputs {
    ($($name:ident)+) => {
        impl FuseOutput for ($(var_of!($name),)+) {
            fn into_vars(self) -> Vec<Var> {
                let ($($name,)+) = self;
                vec![$($name),+]
            }
        }
    };
}

tuple_outputs!(a);
tuple_outputs!(a b);
tuple_outputs!(a b c);
tuple_outputs!(a b c d);
tuple_outputs!(a b c d e);
tuple_outputs!(a b c d e f);
tuple_outputs!(a b c d e f g);
tuple_outputs!(a b c d e f g h);

/// The traced closure, with its arity fixed.
type TraceFn = dyn Fn(&[Var]) -> SmallVec<[Var; 4]> + Send + Sync;

/// Input signatures traced at most (a closure whose signatures keep changing retraces).
const MAX_SIGNATURES: usize = 64;

/// The cache key: each argument's dtype and number of dimensions (or scalar dtype).
type Key = SmallVec<[ArgSig; 8]>;

/// A fused function: array math traced once per input signature and run as cuprum
/// kernels ([`fuse`](fuse()) makes one; the module docs say how it works).
///
/// `Send + Sync`: share it between threads, keep it in a `static` (`LazyLock`).
pub struct Fused {
    name: String,
    arity: usize,
    at: Loc,
    f: Box<TraceFn>,
    options: Option<CompileOptions>,
    cache: Mutex<FxHashMap<Key, Arc<Lowered>>>,
}

impl std::fmt::Debug for Fused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fused")
            .field("name", &self.name)
            .field("arity", &self.arity)
            .field("at", &format_args!("{}", self.at))
            .finish_non_exhaustive()
    }
}

/// Makes a fused function from a closure over one traced value per argument
/// (`|[a, b]| ...`: the closure takes an array of [`Var`]s, whose length is the number of
/// arguments). `name` names its kernels (`cuprum_fuse_{name}_{k}` in profilers; characters
/// other than letters, digits and `_` become `_`). Nothing is traced or compiled yet: the
/// first call with each input signature does that. The closure is `'static` (`move` the
/// values it captures); what it captures is read when it is traced, and passed to the
/// kernels as parameters.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, fuse};
/// let relu6_scaled = fuse("relu6_scaled", |[x, s]| x.clip(0.0, 6.0) * s);
/// let x = Array::from_slice(&[-1.0f32, 3.0, 9.0], &[3])?;
/// let y = relu6_scaled.call((&x, 0.5f32))?;      // the scalar is a kernel parameter
/// assert_eq!(y.to_vec::<f32>()?, vec![0.0, 1.5, 3.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[track_caller]
pub fn fuse<const N: usize, R, F>(name: &str, f: F) -> Fused
where
    F: Fn([Var; N]) -> R + Send + Sync + 'static,
    R: FuseOutput,
{
    let g = move |vars: &[Var]| -> SmallVec<[Var; 4]> {
        match <[Var; N]>::try_from(vars) {
            Ok(a) => f(a).into_vars().into_iter().collect(),
            Err(_) => SmallVec::new(),
        }
    };
    Fused {
        name: sanitize(name),
        arity: N,
        at: Location::caller(),
        f: Box::new(g),
        options: None,
        cache: Mutex::new(FxHashMap::default()),
    }
}

/// A fused function over a closure of any arity, for bindings (`python/fuse.rs`): `f`
/// gets `arity` values and returns the results, or none when it failed (the binding keeps
/// why); `at` stands for the user's line in messages.
#[cfg(feature = "python")]
pub(crate) fn fuse_dynamic(
    name: &str,
    arity: usize,
    at: Loc,
    f: impl Fn(&[Var]) -> SmallVec<[Var; 4]> + Send + Sync + 'static,
) -> Fused {
    Fused {
        name: sanitize(name),
        arity,
        at,
        f: Box::new(f),
        options: None,
        cache: Mutex::new(FxHashMap::default()),
    }
}

/// Letters, digits and `_` kept; anything else becomes `_`.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() { "fused".to_owned() } else { s }
}

impl Fused {
    /// The name (as its kernels carry it).
    ///
    /// ```
    /// let f = cuprum::fuse("my norm", |[x]| x.sum());
    /// assert_eq!(f.name(), "my_norm");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of arguments (the closure's).
    ///
    /// ```
    /// let f = cuprum::fuse("axpy", |[a, x, y]| a * x + y);
    /// assert_eq!(f.arity(), 3);
    /// ```
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// Adds one NVRTC flag to every kernel of this function (`"-fmad=false"` keeps `a * b + c`
    /// from being contracted into a fused multiply-add, so element-wise float results equal
    /// `ops`' bit for bit; `"-use_fast_math"` ...). Forgets what was traced so far.
    ///
    /// ```
    /// let f = cuprum::fuse("exact", |[a, b, c]| a * b + c).option("-fmad=false");
    /// assert_eq!(f.arity(), 3);
    /// ```
    pub fn option(mut self, flag: impl Into<String>) -> Fused {
        self.options = Some(self.options.take().unwrap_or_default().option(flag));
        self.cache
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        self
    }

    /// How many input signatures have been traced and lowered so far (each is one entry
    /// of this function's cache; new shapes of a known signature add none).
    ///
    /// ```
    /// use cuprum::{DType, fuse::ArgSpec};
    /// let f = cuprum::fuse("twice", |[x]| x * 2);
    /// f.explain_for(&[ArgSpec::array(DType::F32, &[8])])?;
    /// f.explain_for(&[ArgSpec::array(DType::F32, &[9])])?;
    /// f.explain_for(&[ArgSpec::array(DType::I32, &[9])])?;
    /// assert_eq!(f.traces(), 2);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn traces(&self) -> usize {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Runs on `args` — the arrays and scalars, one per closure argument, as kernels take
    /// them (`(&x, &y, 0.5f32)`) — and returns the first value the closure returns.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, fuse};
    /// let norm = fuse("l2", |[x]| (x * x).sum().sqrt());
    /// let x = Array::from_slice(&[3.0f64, 4.0], &[2])?;
    /// assert_eq!(norm.call((&x,))?.to_vec::<f64>()?, vec![5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        let ops = args.operands();
        let outs = self.invoke(&ops)?;
        match outs.into_iter().next() {
            Some(a) => Ok(a),
            None => bail!(InvalidArgument, "fused `{}` returned nothing", self.name),
        }
    }

    /// Runs on `args` and returns every value the closure returns, in order.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, fuse};
    /// let f = fuse("minmax", |[x]| (x.min(), x.max()));
    /// let x = Array::from_slice(&[3i32, -4, 9], &[3])?;
    /// let out = f.call_all((&x,))?;
    /// assert_eq!((out[0].to_vec::<i32>()?, out[1].to_vec::<i32>()?), (vec![-4], vec![9]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call_all(&self, args: impl Operands) -> Result<Vec<Array>> {
        let ops = args.operands();
        Ok(self.invoke(&ops)?.into_vec())
    }

    /// The plan for these arguments (their dtypes and shapes; nothing runs): see
    /// [`Explain`].
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, fuse, ops::Keepdims};
    /// let softmax = fuse("softmax", |[x]| {
    ///     let e = (x - x.max_axis(-1, Keepdims::Yes)).exp();
    ///     e / e.sum_axis(-1, Keepdims::Yes)
    /// });
    /// let x = Array::ones(&[4, 1000], DType::F32)?;
    /// println!("{}", softmax.explain((&x,))?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn explain(&self, args: impl Operands) -> Result<Explain> {
        let specs: Vec<ArgSpec> = args
            .operands()
            .iter()
            .map(|o| match o {
                Operand::Array(a) => Ok(ArgSpec::array(a.dtype(), a.shape())),
                Operand::Scalar(s) => Ok(ArgSpec::scalar(s.dtype())),
                Operand::Record(_) | Operand::Texture(_) => {
                    Err(o.not_numeric(&format!("fused `{}`", self.name)))
                }
            })
            .collect::<Result<_>>()?;
        self.explain_for(&specs)
    }

    /// The plan for arguments described by dtype and shape (no GPU needed).
    ///
    /// ```
    /// use cuprum::{DType, fuse::{ArgSpec, KernelKind}, ops::Keepdims};
    /// let softmax = cuprum::fuse("softmax", |[x]| {
    ///     let e = (x - x.max_axis(-1, Keepdims::Yes)).exp();
    ///     e / e.sum_axis(-1, Keepdims::Yes)
    /// });
    /// let e = softmax.explain_for(&[ArgSpec::array(DType::F32, &[4, 1000])])?;
    /// let kinds: Vec<KernelKind> = e.kernels().iter().map(|k| k.kind).collect();
    /// assert_eq!(kinds, [KernelKind::Reduction, KernelKind::Reduction, KernelKind::Elementwise]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn explain_for(&self, args: &[ArgSpec]) -> Result<Explain> {
        let key = self.key(args.iter().map(|a| match a {
            ArgSpec::Array(d, s) => ArgSig {
                dtype: *d,
                ndim: s.len().min(ArgSig::SCALAR as usize - 1) as u8,
            },
            ArgSpec::Scalar(d) => ArgSig {
                dtype: *d,
                ndim: ArgSig::SCALAR,
            },
        }))?;
        let low = self.lowered(&key)?;
        let shapes = run::shapes(&self.name, &low.program, |i| match args.get(i as usize) {
            Some(ArgSpec::Array(_, s)) => Some(s.as_slice()),
            _ => None,
        })?;
        explain::explain(&self.name, &low, args, &shapes)
    }

    /// The signature of a call, checked against the arity.
    fn key(&self, sigs: impl ExactSizeIterator<Item = ArgSig>) -> Result<Key> {
        if sigs.len() != self.arity {
            bail!(
                InvalidArgument,
                "fused `{}` (at {}) takes {} argument{} (one per traced value of its closure), got {}",
                self.name,
                self.at,
                self.arity,
                if self.arity == 1 { "" } else { "s" },
                sigs.len()
            );
        }
        Ok(sigs.collect())
    }

    /// Runs on `ops` and returns every value the closure returns.
    pub(crate) fn invoke(&self, ops: &[Operand<'_>]) -> Result<Outputs> {
        if let Some(o) = ops.iter().find(|o| matches!(o, Operand::Record(_))) {
            return Err(o.not_numeric(&format!("fused `{}`", self.name)));
        }
        let low = self.lowered(&self.key_of(ops)?)?;
        low.run(&self.name, ops)
    }

    /// The program of a signature traced before, for a call on `ops` (run it with
    /// [`Fused::run_traced`]); `None` for any other signature, and for operands
    /// [`Fused::invoke`] would refuse.
    #[cfg(feature = "python")]
    pub(crate) fn traced(&self, ops: &[Operand<'_>]) -> Option<Arc<Lowered>> {
        if ops.iter().any(|o| matches!(o, Operand::Record(_))) {
            return None;
        }
        let key = self.key_of(ops).ok()?;
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned()
    }

    /// [`Fused::invoke`] of the program [`Fused::traced`] gave for operands of the same
    /// signature as `ops`.
    #[cfg(feature = "python")]
    pub(crate) fn run_traced(&self, program: &Lowered, ops: &[Operand<'_>]) -> Result<Outputs> {
        program.run(&self.name, ops)
    }

    /// The signature of a call on `ops`.
    fn key_of(&self, ops: &[Operand<'_>]) -> Result<Key> {
        self.key(ops.iter().map(|o| match o {
            Operand::Array(a) => ArgSig {
                dtype: a.dtype(),
                ndim: a.ndim() as u8,
            },
            Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => ArgSig {
                dtype: o.dtype(),
                ndim: ArgSig::SCALAR,
            },
        }))
    }

    /// The lowered program of a signature: cached, or traced, planned and built now.
    fn lowered(&self, key: &Key) -> Result<Arc<Lowered>> {
        if let Some(l) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
        {
            return Ok(l.clone());
        }
        let program = trace::trace(&self.name, self.at, key, &*self.f)?;
        let plan = plan::plan(&program);
        let low = Arc::new(lower::lower(
            &self.name,
            program,
            plan,
            self.options.as_ref(),
        )?);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= MAX_SIGNATURES {
            cache.clear();
        }
        Ok(cache.entry(key.clone()).or_insert(low).clone())
    }
}
