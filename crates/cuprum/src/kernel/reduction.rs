//! [`ReductionKernel`]: map, reduce and post-map expressions in CUDA C++, reducing
//! broadcast arrays over any axes with the whole GPU (CuPy's `cupy.ReductionKernel`).
//!
//! A call is seen as (outputs × reduction): the input axes split into output axes and
//! reduced axes, each group merged separately (`_i` is the C-order output index, `_J` the
//! C-order position in the reduction). The kernel shapes (inner, outer, split over grid-y
//! blocks) are `codegen/reduction.rs`'s. There are no floating-point atomics: partials
//! combine in an order fixed by the launch shape, so results are deterministic for a given
//! shape. Without an identity, validity flags travel with the values, so idle lanes never
//! feed a made-up value into `reduce_expr`. Every output is returned ([`call_all`]), unlike
//! CuPy. A name in both parameter lists is refused: an output has the reduced shape, so it
//! cannot be the input written in place (ElementwiseKernel's read-write parameter). The
//! builder ([`ReductionKernel::builder`]) names the parts CuPy passes as seven positional
//! strings.
//!
//! **A call** ([`ReductionCall`], its `invoke_into`) takes the steps of `call.rs` with its own
//! plan in between:
//!
//! 1. `bind` (`call.rs`);
//! 2. `on_stream` (`call.rs`);
//! 3. `input_shape` (the broadcast of `array_shapes`), `resolve_dtypes`, `reduced_axes`,
//!    `output_shape`;
//! 4. `prepare_outputs` (`call.rs`);
//! 5. `slots_and_strides`, `geometry` (the merged kept and reduced dimensions) and
//!    `strategy` (the inner or outer kernel shape, its threads per output, and into how
//!    many grid-y blocks each reduction splits: a split needs scratch);
//! 6. `specialisation`: the `KernelTable` entry for (device, dtypes, slots, strategy —
//!    split or not among it: only split kernels carry the partials' combine), its source
//!    from `codegen/reduction.rs`, compiled on first use;
//! 7. `prepare_launch` (the launch configuration and the trailing words: sizes,
//!    `table_words`), then `fire`: `pack_operands`, the words, the split's scratch
//!    (`scratch.rs`), the launch.
//!
//! A call with the fingerprint of an earlier successful one (`call_memo.rs`: dtypes,
//! shapes, strides, alignments, axes, keepdims) replays its plan: the outputs, then `fire`.
//!
//! [`call_all`]: ReductionKernel::call_all

use super::call::{
    Bound, OutputRule, Outputs, Signature, array_shapes, bind, on_stream, operand_at,
    pack_operands, prepare_outputs, resolve_dtypes, sample_slots, specialisation, table_words,
};
use super::call_memo::{CallMemo, OutputPlan, replay_operand, replay_outputs};
use super::codegen::entry::Slot;
use super::codegen::reduction::{BLOCK, PARTIAL_BYTES, ReduceStrategy, ReductionSource, generate};
use super::operand::{Operand, Operands};
use super::params::{
    Param, ParamList, ParamType, TypeMap, check_kernel_name, check_reserved, parse_params,
};
use super::scratch::scratch;
use super::spec::{BuilderParts, KernelSpec, builder_part_methods, kernel_spec_methods};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::kernel_abi::{CompiledKernel, GeneratedKernel, KernelTable};
use crate::runtime::{LaunchConfig, Stream};
use crate::shape::{
    Shape, Strides, broadcast_shapes, broadcast_strides, merge_dims_of_views, normalize_axis,
};
use smallvec::SmallVec;
use std::sync::Arc;

/// Reduction axes: one axis (`0`, `-1`), several (`&[0, 2]`, `[0, 1]`, `vec![..]`).
/// Negative axes count from the end; no axes given means all of them.
///
/// ```
/// use cuprum::kernel::Axes;
/// assert_eq!(Axes::from(-1).0.as_slice(), &[-1]);
/// assert_eq!(Axes::from(&[0, 2][..]).0.as_slice(), &[0, 2]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axes(pub SmallVec<[isize; 4]>);

impl From<isize> for Axes {
    fn from(a: isize) -> Axes {
        Axes(SmallVec::from_elem(a, 1))
    }
}
impl From<i32> for Axes {
    fn from(a: i32) -> Axes {
        Axes(SmallVec::from_elem(a as isize, 1))
    }
}
impl From<usize> for Axes {
    fn from(a: usize) -> Axes {
        Axes(SmallVec::from_elem(a as isize, 1))
    }
}
impl From<&[isize]> for Axes {
    fn from(a: &[isize]) -> Axes {
        Axes(SmallVec::from_slice(a))
    }
}
impl<const N: usize> From<[isize; N]> for Axes {
    fn from(a: [isize; N]) -> Axes {
        Axes(SmallVec::from_slice(&a))
    }
}
impl<const N: usize> From<&[isize; N]> for Axes {
    fn from(a: &[isize; N]) -> Axes {
        Axes(SmallVec::from_slice(a))
    }
}
impl From<Vec<isize>> for Axes {
    fn from(a: Vec<isize>) -> Axes {
        Axes(SmallVec::from_vec(a))
    }
}

/// Whether a reduction over some axes keeps them, with extent 1 (NumPy's `keepdims`), so
/// that the result broadcasts against the input.
///
/// ```
/// use cuprum::ops::Keepdims;
/// assert!(Keepdims::Yes.keeps());
/// assert!(!Keepdims::default().keeps());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Keepdims {
    /// Reduced axes are dropped (NumPy's default).
    #[default]
    No,
    /// Reduced axes stay, with extent 1.
    Yes,
}

impl Keepdims {
    /// `true` for [`Keepdims::Yes`].
    pub fn keeps(self) -> bool {
        self == Keepdims::Yes
    }
}

/// A user-defined reduction: `map_expr` maps each element of the (broadcast) inputs,
/// `reduce_expr` combines two mapped values `a` and `b` (associative and commutative),
/// `post_map_expr` writes the outputs from the reduced value `a`.
///
/// Like CuPy's, plus: every shape uses the whole GPU (long reductions are split over many
/// blocks and combined in a fixed order, so results are deterministic), and all outputs are
/// returned by [`call_all`](ReductionKernel::call_all) (CuPy returns only the first).
/// Inside the expressions: input names (values), raw parameters, `_J` (position in the
/// reduction), `_i` (output index), `_in_ind.size()`, `_out_ind.size()`, `_type_reduce`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ReductionKernel};
/// let ssq = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "sum_of_squares")?;
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// assert_eq!(ssq.call((&x,))?.to_vec::<f32>()?, vec![55.0]);
/// let m = x.reshape(&[1, 5])?;
/// assert_eq!(ssq.axis(1).call((&m,))?.to_vec::<f32>()?, vec![55.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct ReductionKernel {
    /// The signature (the name and the parameters, inputs first), preamble, compile
    /// options and `reduce_dims`.
    spec: KernelSpec,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: Option<String>,
    reduce_type: Option<String>,
    specs: KernelTable<SpecKey>,
    /// The plans of recent calls (`call_memo.rs`).
    memo: CallMemo<Replay>,
}

/// What a call with an earlier call's fingerprint reuses (`call_memo.rs`).
#[derive(Debug)]
struct Replay {
    /// Per parameter.
    dtypes: SmallVec<[DType; 8]>,
    /// The fresh outputs, of the output shape.
    outputs: OutputPlan,
    /// None when there are no outputs to compute (no launch).
    launch: Option<Prepared>,
}

/// A planned reduction launch.
#[derive(Debug)]
struct Prepared {
    f: Arc<CompiledKernel>,
    config: LaunchConfig,
    /// Sizes, then the output and reduction tables.
    words: Vec<i64>,
    /// The split's scratch: partial bytes and counters (`scratch.rs`).
    scratch: Option<(usize, usize)>,
}

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReductionKernel")
            .field("name", &self.spec.sig.name)
            .field("params", &self.spec.sig.params)
            .field("map_expr", &self.map_expr)
            .field("reduce_expr", &self.reduce_expr)
            .field("post_map_expr", &self.post_map_expr)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// What one compiled specialisation depends on besides the kernel's own strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SpecKey {
    device: usize,
    dtypes: SmallVec<[DType; 8]>,
    slots: SmallVec<[Slot; 8]>,
    strategy: ReduceStrategy,
}

impl ReductionKernel {
    /// Defines a reduction. `identity` is the C++ value every reduction starts from
    /// (`Some("0")`): it must be neutral for `reduce_expr`, since every thread (and every
    /// split of a long reduction) starts from it, as in CuPy. Without one an empty
    /// reduction is an error (and no made-up start value is ever combined). Checks the parameter
    /// lists and the name now (same errors as [`ElementwiseKernel`](crate::ElementwiseKernel);
    /// `i` is allowed here); compiles on first call.
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let e = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", None, "bad name").unwrap_err();
    /// assert_eq!(e.to_string(), "Invalid kernel name: \"bad name\"");
    /// ```
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: impl Into<String>,
        reduce_expr: impl Into<String>,
        post_map_expr: impl Into<String>,
        identity: Option<&str>,
        name: impl Into<String>,
    ) -> Result<ReductionKernel> {
        let name = name.into();
        check_kernel_name(&name)?;
        let mut params = parse_params(in_params, ParamList::Inputs)?;
        let nin = params.len();
        params.extend(parse_params(out_params, ParamList::Outputs)?);
        if let Some(p) = params[nin..]
            .iter()
            .find(|q| params[..nin].iter().any(|p| p.name == q.name))
        {
            bail!(
                InvalidArgument,
                "ReductionKernel '{name}': '{}' is both an input and an output; a reduction's \
                 output has the reduced shape, so it cannot be the input array written in place \
                 (ElementwiseKernel allows this): give the output another name",
                p.name
            );
        }
        check_reserved(
            &params,
            &["a", "b"],
            ": reduce_expr and post_map_expr use a and b",
        )?;
        if params.len() == nin {
            bail!(
                InvalidArgument,
                "ReductionKernel '{name}' needs at least one output parameter"
            );
        }
        Ok(ReductionKernel {
            spec: KernelSpec::new(Signature { name, params, nin }),
            map_expr: map_expr.into(),
            reduce_expr: reduce_expr.into(),
            post_map_expr: post_map_expr.into(),
            identity: identity.map(str::to_owned),
            reduce_type: None,
            specs: KernelTable::new(),
            memo: CallMemo::default(),
        })
    }

    /// A reduction defined by its named parts instead of CuPy's seven positional strings
    /// (easy to misorder: the seed's own `sum_of_squares` put its identity and name in the
    /// post-map and identity positions). The same checks as [`new`](Self::new).
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let ssq = ReductionKernel::builder("sum_of_squares")
    ///     .inputs("float32 x")
    ///     .outputs("float32 out")
    ///     .map("x * x")
    ///     .reduce("a + b")
    ///     .post_map("out = a")
    ///     .identity("0")
    ///     .build()?;
    /// assert_eq!((ssq.name(), ssq.nin(), ssq.nout()), ("sum_of_squares", 1, 1));
    /// let e = ReductionKernel::builder("k").inputs("T x").outputs("T y").map("x").build().unwrap_err();
    /// assert!(e.to_string().contains("needs its reduce expression"), "{e}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn builder(name: impl Into<String>) -> ReductionBuilder {
        ReductionBuilder {
            parts: BuilderParts::new(name.into()),
            reduce: None,
        }
    }

    /// After the definition changed: forgets every compiled specialisation.
    fn refresh(&mut self) {
        self.specs.clear();
        self.memo.clear();
    }

    /// The C++ type of the accumulator `_type_reduce` (default: the first output's type).
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let k = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "sum_d")?
    ///     .reduce_type("double");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reduce_type(mut self, ty: impl Into<String>) -> Self {
        self.reduce_type = Some(ty.into());
        self.refresh();
        self
    }

    /// Number of inputs.
    pub fn nin(&self) -> usize {
        self.spec.sig.nin
    }

    /// Reduces over every axis and returns the first output.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ReductionKernel};
    /// let sum = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "my_sum")?;
    /// let x = Array::from_slice(&[1i64, 2, 3], &[3])?;
    /// assert_eq!(sum.call((&x,))?.to_vec::<i64>()?, vec![6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        self.config().call(args)
    }

    /// Reduces over every axis and returns every output.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ReductionKernel};
    /// let k = ReductionKernel::new("T x", "T s, int64 n", "x", "a + b", "s = a; n = _in_ind.size()", Some("0"), "sum_n")?;
    /// let out = k.call_all((&Array::ones(&[4], cuprum::DType::F64)?,))?;
    /// assert_eq!(out[1].to_vec::<i64>()?, vec![4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call_all(&self, args: impl Operands) -> Result<Vec<Array>> {
        self.config().call_all(args)
    }

    /// A call reducing over `axis` only.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, DType, ReductionKernel};
    /// let sum = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "my_sum")?;
    /// let m = Array::ones(&[2, 3], DType::F32)?;
    /// assert_eq!(sum.axis(0).call((&m,))?.to_vec::<f32>()?, vec![2.0; 3]);
    /// assert_eq!(sum.axis([0, 1]).keepdims(true).call((&m,))?.shape(), &[1, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn axis(&self, axis: impl Into<Axes>) -> ReductionCall<'_> {
        self.config().axis(axis)
    }

    /// A call keeping reduced axes as extent 1.
    pub fn keepdims(&self, on: bool) -> ReductionCall<'_> {
        self.config().keepdims(on)
    }

    /// A call on a given stream (outputs are allocated on it).
    /// Arrays of other streams may be passed: cuprum orders their first use and their free
    /// with this stream ([Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn stream(&self, stream: &Stream) -> ReductionCall<'_> {
        self.config().stream(stream)
    }

    fn config(&self) -> ReductionCall<'_> {
        ReductionCall {
            kernel: self,
            axis: None,
            keepdims: false,
            stream: None,
        }
    }

    /// The C++ accumulator type.
    fn reduce_type_str(&self) -> String {
        if let Some(t) = &self.reduce_type {
            return t.clone();
        }
        let p = &self.spec.sig.params[self.spec.sig.nin];
        match p.ty {
            ParamType::Placeholder(c) => c.to_string(),
            ParamType::Concrete(d) => d.c_type().to_owned(),
        }
    }

    /// The kernel of one specialisation.
    pub(crate) fn source_for(
        &self,
        dtypes: &[DType],
        slots: &[Slot],
        strategy: ReduceStrategy,
    ) -> GeneratedKernel {
        let mut tm = TypeMap::default();
        for (p, &d) in self.spec.sig.params.iter().zip(dtypes) {
            if let ParamType::Placeholder(c) = p.ty
                && tm.get(c).is_none()
            {
                tm.0.push((c, d));
            }
        }
        generate(&ReductionSource {
            name: &self.spec.sig.name,
            params: &self.spec.sig.params,
            nin: self.spec.sig.nin,
            dtypes,
            slots,
            typedefs: &format!(
                "{}{}",
                super::params::record_declarations(dtypes),
                tm.typedefs()
            ),
            preamble: &self.spec.preamble,
            map_expr: &self.map_expr,
            reduce_expr: &self.reduce_expr,
            post_map_expr: &self.post_map_expr,
            identity: self.identity.as_deref(),
            reduce_type: &self.reduce_type_str(),
            strategy,
        })
    }

    /// The CUDA source for parameter dtypes (one per parameter) as a full reduction of
    /// contiguous 1-D non-raw arrays (`scalars` marks by-value parameters) that one block
    /// reduces: for inspection and compile checks without a GPU. A long reduction is split
    /// over blocks, whose kernel adds the partials' combine (a specialisation of its own).
    ///
    /// ```
    /// use cuprum::{DType, ReductionKernel};
    /// let k = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "ssq")?;
    /// let src = k.generated_source(&[DType::F32; 2], &[false, false])?;
    /// assert!(src.contains("#define REDUCE(a, b)"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn generated_source(&self, dtypes: &[DType], scalars: &[bool]) -> Result<String> {
        let slots = sample_slots(&self.spec.sig.name, &self.spec.sig.params, dtypes, scalars)?;
        let strategy = ReduceStrategy {
            outer: false,
            tx: 256,
            ty: 1,
            ndo: 0,
            ndr: 1,
            wide: false,
            unit: true,
            vec: 1,
            split: false,
            interleave: false,
        };
        Ok(self.source_for(dtypes, &slots, strategy).source)
    }

    /// The parsed parameters, inputs first.
    pub(crate) fn params_for_samples(&self) -> Vec<Param> {
        self.spec.sig.params.clone()
    }

    /// The compiled kernel of a call's specialisation (generated and compiled on first use).
    fn specialisation(&self, key: &SpecKey, stream: &Stream) -> Result<Arc<CompiledKernel>> {
        specialisation(
            &self.specs,
            key,
            stream,
            &self.spec.sig.name,
            &self.spec.options,
            || Ok(self.source_for(&key.dtypes, &key.slots, key.strategy)),
        )
    }

    /// The kernel strategy of a call and its splits (see [`choose_strategy`]), from the
    /// non-raw inputs' addresses (wide loads need aligned rows).
    fn strategy(
        &self,
        geo: &Geometry,
        args: &Bound<'_>,
        sm_count: u32,
        host: bool,
    ) -> (ReduceStrategy, usize, usize) {
        let sig = &self.spec.sig;
        let inputs: SmallVec<[(u64, usize); 8]> = sig.params[..sig.nin]
            .iter()
            .zip(&args.inputs)
            .filter_map(|(p, a)| match a {
                Operand::Array(x) if !p.raw => Some((x.data_ptr(), x.itemsize())),
                _ => None,
            })
            .collect();
        let staged = sig.params[..sig.nin].iter().all(|p| p.is_const);
        choose_strategy(geo, sm_count.max(1) as usize, &inputs, staged, host)
    }
}

kernel_spec_methods!(
    ReductionKernel,
    new: r#"ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "my_sum")?"#,
    name: "my_sum",
    with_sq: r#"ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", Some("0"), "ssq")?"#,
);

/// A [`ReductionKernel`] by named parts: see [`ReductionKernel::builder`]. Inputs,
/// outputs, map, reduce and post-map are needed; the identity is optional (without one an
/// empty reduction is an error, as with `new(…, None, …)`).
#[derive(Debug, Clone, Default)]
pub struct ReductionBuilder {
    parts: BuilderParts,
    reduce: Option<String>,
}

builder_part_methods!(
    ReductionBuilder,
    outputs: "The output parameters (CuPy's `out_params`).",
    map: "The value each element contributes (`map_expr`, e.g. `\"x * x\"`).",
    post_map: "What writes the outputs from the reduced value `a` (`post_map_expr`, e.g. `\"y = a\"`).",
    identity: "The C++ value every reduction starts from (neutral for `reduce`, e.g. `\"0\"`).",
);

impl ReductionBuilder {
    /// How two values `a` and `b` combine (`reduce_expr`, e.g. `"a + b"`).
    pub fn reduce(mut self, expr: impl Into<String>) -> Self {
        self.reduce = Some(expr.into());
        self
    }

    /// The kernel, or an error naming the first missing part (then the errors of
    /// [`ReductionKernel::new`]).
    pub fn build(mut self) -> Result<ReductionKernel> {
        const KIND: &str = "ReductionKernel";
        let p = &mut self.parts;
        let (inputs, outputs, map) = p.required(KIND, "output parameters")?;
        let reduce = p.need(KIND, self.reduce, "reduce expression", "reduce(\"a + b\")")?;
        let post_map = p.post_map.take();
        let post_map = p.need(KIND, post_map, "post-map expression", "post_map(\"y = a\")")?;
        ReductionKernel::new(
            &inputs,
            &outputs,
            map,
            reduce,
            post_map,
            p.identity.as_deref(),
            std::mem::take(&mut p.name),
        )
    }
}

/// One configured call of a [`ReductionKernel`] (axes, keepdims, stream).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, DType, ReductionKernel};
/// let sum = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "my_sum")?;
/// let m = Array::ones(&[2, 3, 4], DType::F64)?;
/// let s = sum.axis([-1, 0]).keepdims(true).call((&m,))?;
/// assert_eq!(s.shape(), &[1, 3, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReductionCall<'k> {
    kernel: &'k ReductionKernel,
    axis: Option<Axes>,
    keepdims: bool,
    stream: Option<Stream>,
}

impl ReductionCall<'_> {
    /// Reduces over these axes (default: all).
    pub fn axis(mut self, axis: impl Into<Axes>) -> Self {
        self.axis = Some(axis.into());
        self
    }

    /// Keeps reduced axes with extent 1.
    pub fn keepdims(mut self, on: bool) -> Self {
        self.keepdims = on;
        self
    }

    /// Sets the stream (outputs are allocated on it).
    /// Arrays of other streams may be passed: cuprum orders their first use and their free
    /// with this stream ([Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn stream(mut self, stream: &Stream) -> Self {
        self.stream = Some(stream.clone());
        self
    }

    /// Runs and returns the first output.
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        let ops = args.operands();
        let mut outs = self.invoke(&ops)?;
        Ok(outs.swap_remove(0))
    }

    /// Runs and returns every output.
    pub fn call_all(&self, args: impl Operands) -> Result<Vec<Array>> {
        let ops = args.operands();
        Ok(self.invoke(&ops)?.into_vec())
    }

    /// Runs and writes every output into `outs` (empty), kept inline (no list allocated:
    /// Python's calls, fusion's kernels).
    #[cfg_attr(not(feature = "python"), allow(dead_code))]
    pub(crate) fn outputs(&self, ops: &[Operand<'_>], outs: &mut Outputs) -> Result<()> {
        self.invoke_into(ops, outs)
    }

    /// [`ReductionCall::invoke_into`] of a new list.
    fn invoke(&self, args: &[Operand<'_>]) -> Result<Outputs> {
        let mut outs = Outputs::new();
        self.invoke_into(args, &mut outs)?;
        Ok(outs)
    }

    /// The call, its outputs written into `outs` (empty): a replay of an earlier call's
    /// plan when the fingerprint matches (`call_memo.rs`), else the steps of
    /// `kernel/call.rs` around the reduction's geometry and strategy (remembered when they
    /// succeed).
    fn invoke_into(&self, args: &[Operand<'_>], outs: &mut Outputs) -> Result<()> {
        self.kernel.memo.call(
            &self.stream,
            &self.options(),
            args,
            outs,
            |r, stream, outs| self.replay(r, args, stream, outs),
            |outs| {
                let (o, p) = self.plan_and_run(args)?;
                *outs = o;
                Ok(p)
            },
        )
    }

    /// The call's options as its fingerprint holds them (`call_memo.rs`).
    fn options(&self) -> SmallVec<[i64; 6]> {
        let mut o: SmallVec<[i64; 6]> = SmallVec::new();
        o.push(i64::from(self.keepdims));
        match &self.axis {
            None => o.push(-1),
            Some(axes) => {
                o.push(axes.0.len() as i64);
                o.extend(axes.0.iter().map(|&a| a as i64));
            }
        }
        o
    }

    /// A call with a remembered plan: outputs (into `outs`, empty), then the launch.
    #[inline]
    fn replay(
        &self,
        r: &Replay,
        args: &[Operand<'_>],
        stream: &Stream,
        outs: &mut Outputs,
    ) -> Result<()> {
        let sig = &self.kernel.spec.sig;
        let counts = (sig.nin, sig.nout());
        replay_outputs(args, counts, &r.outputs, stream, outs)?;
        if let Some(p) = &r.launch {
            let outs: &Outputs = outs;
            let operand = |kk: usize| replay_operand(args, outs, counts.0, kk);
            fire(p, &r.dtypes, sig, stream, operand)?;
        }
        Ok(())
    }

    /// The steps of `kernel/call.rs` around the reduction's geometry and strategy; the
    /// outputs and what a repeat of this call can reuse.
    fn plan_and_run(&self, args: &[Operand<'_>]) -> Result<(Outputs, Replay)> {
        let k = self.kernel;
        let sig = &k.spec.sig;
        let args = bind(sig, None, args)?;
        let stream = on_stream(sig, &args, &self.stream)?;
        let in_shape = self.input_shape(&args)?;
        let dtypes = resolve_dtypes(sig, &args)?;
        let reduced = self.reduced_axes(in_shape.len())?;
        let out_shape = self.output_shape(&in_shape, &reduced);
        let rule = OutputRule {
            shape_is: "the reduction gives",
            raw_allocated: false,
            raw_undecided: "",
        };
        let outs = prepare_outputs(sig, &args, &dtypes, &out_shape, &stream, &rule)?;
        let o_size: usize = out_shape.iter().product();
        let mut replay = Replay {
            outputs: OutputPlan::new(out_shape, dtypes.get(sig.nin..).unwrap_or(&[])),
            dtypes: dtypes.clone(),
            launch: None,
        };
        if o_size == 0 {
            return Ok((outs, replay));
        }
        let r_size: usize = in_shape
            .iter()
            .zip(&reduced)
            .filter(|(_, r)| **r)
            .map(|(&d, _)| d)
            .product();
        if r_size == 0 && k.identity.is_none() {
            bail!(
                InvalidArgument,
                "zero-size array to reduction operation {} which has no identity",
                sig.name
            );
        }
        let operand = |kk: usize| operand_at(&args, &outs, kk);
        let (slots, in_strides, out_strides) =
            self.slots_and_strides(&in_shape, &reduced, &operand)?;
        let strides = CallStrides {
            in_shape: &in_shape,
            reduced: &reduced,
            inputs: &in_strides,
            outputs: &out_strides,
        };
        let geo = geometry(&strides, k.spec.reduce_dims, o_size, r_size);
        let device = stream.device();
        let (strategy, splits, chunk) =
            k.strategy(&geo, &args, device.sm_count(), device.is_host());
        let key = SpecKey {
            device: stream.device().ordinal(),
            dtypes,
            slots,
            strategy,
        };
        let f = k.specialisation(&key, &stream)?;
        let plan = ReducePlan { geo, splits, chunk };
        let prepared = prepare_launch(f, &key, &plan)?;
        fire(&prepared, &key.dtypes, sig, &stream, operand)?;
        replay.launch = Some(prepared);
        Ok((outs, replay))
    }

    fn input_shape(&self, args: &Bound<'_>) -> Result<Shape> {
        let sig = &self.kernel.spec.sig;
        let shapes = array_shapes(sig, args, false);
        if shapes.is_empty() {
            bail!(
                InvalidArgument,
                "'{}' got no non-raw input array: the reduction's shape is undecided",
                sig.name
            );
        }
        broadcast_shapes(&shapes)
    }

    /// Per input axis: whether it is reduced (every axis without `axis`).
    fn reduced_axes(&self, nd: usize) -> Result<SmallVec<[bool; 8]>> {
        let mut reduced: SmallVec<[bool; 8]> = SmallVec::from_elem(self.axis.is_none(), nd);
        if let Some(axes) = &self.axis {
            for &ax in &axes.0 {
                let a = normalize_axis(ax, nd)?;
                if reduced[a] {
                    bail!(Shape, "duplicate value in 'axis' ({:?})", axes.0.as_slice());
                }
                reduced[a] = true;
            }
        }
        Ok(reduced)
    }

    /// The outputs' shape: the kept axes (reduced ones as extent 1 with `keepdims`).
    fn output_shape(&self, in_shape: &[usize], reduced: &[bool]) -> Shape {
        let axes = in_shape.iter().zip(reduced);
        if self.keepdims {
            axes.map(|(&d, &r)| if r { 1 } else { d }).collect()
        } else {
            axes.filter(|(_, r)| !**r).map(|(&d, _)| d).collect()
        }
    }

    /// Each parameter's slot, the inputs' strides broadcast to the input shape and the
    /// outputs' strides over the output axes (keepdims' extent-1 axes dropped).
    fn slots_and_strides<'b>(
        &self,
        in_shape: &[usize],
        reduced: &[bool],
        operand: &dyn Fn(usize) -> Operand<'b>,
    ) -> Result<(SmallVec<[Slot; 8]>, StridesOf, StridesOf)> {
        let sig = &self.kernel.spec.sig;
        let mut slots: SmallVec<[Slot; 8]> = SmallVec::new();
        let mut in_strides: SmallVec<[Strides; 8]> = SmallVec::new();
        let mut out_strides: SmallVec<[Strides; 8]> = SmallVec::new();
        for (kk, p) in sig.params.iter().enumerate() {
            match operand(kk) {
                Operand::Array(a) if p.raw => slots.push(Slot::Raw { nd: a.ndim() }),
                Operand::Array(a) => {
                    slots.push(Slot::Array {
                        idx: in_strides.len() + out_strides.len(),
                    });
                    if kk < sig.nin {
                        in_strides.push(broadcast_strides(a.shape(), a.strides(), in_shape)?);
                    } else if self.keepdims {
                        let kept = a.strides().iter().zip(reduced).filter(|(_, r)| !**r);
                        out_strides.push(kept.map(|(s, _)| *s).collect());
                    } else {
                        out_strides.push(Strides::from_slice(a.strides()));
                    }
                }
                Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => {
                    slots.push(Slot::Scalar)
                }
            }
        }
        Ok((slots, in_strides, out_strides))
    }
}

/// A reduction's launch: one block of `BLOCK` threads per group of outputs, `splits`
/// along y; the trailing words (sizes, the output and reduction tables) and the split's
/// scratch sizes.
fn prepare_launch(f: Arc<CompiledKernel>, key: &SpecKey, plan: &ReducePlan) -> Result<Prepared> {
    let (geo, splits, chunk) = (&plan.geo, plan.splits, plan.chunk);
    let out_blocks = geo.o.div_ceil(key.strategy.outputs_per_block());
    if out_blocks > i32::MAX as usize {
        bail!(
            Unsupported,
            "reduction with {} outputs needs more than 2^31 blocks",
            geo.o
        );
    }
    let [o, r] = [geo.o, geo.r].map(|v| v as i64);
    let counts = [o, r, chunk as i64, splits as i64];
    let tables = table_words(&geo.oshape, &geo.ost).chain(table_words(&geo.rshape, &geo.rst));
    Ok(Prepared {
        f,
        config: LaunchConfig {
            grid: (out_blocks as u32, splits as u32, 1),
            block: (key.strategy.tx as u32, key.strategy.ty as u32, 1),
            shared_mem_bytes: 0,
        },
        words: counts.into_iter().chain(tables).collect(),
        scratch: (splits > 1).then_some((geo.o * splits * PARTIAL_BYTES, out_blocks)),
    })
}

/// Packs a reduction's arguments (the user's, `cuprum_rmeta`, the split's scratch) and
/// launches it.
fn fire<'b>(
    p: &Prepared,
    dtypes: &[DType],
    sig: &Signature,
    stream: &Stream,
    operand: impl Fn(usize) -> Operand<'b>,
) -> Result<()> {
    let scr = match p.scratch {
        Some((partials, counters)) => Some(scratch(partials, counters, stream)?),
        None => None,
    };
    let mut packer = p.f.packer();
    pack_operands(&mut packer, sig, dtypes, stream, operand)?;
    packer.words(p.words.iter().copied())?;
    let (pp, cp) = match &scr {
        Some(s) => (s.partials.ptr_on(stream), s.counters.ptr_on(stream)),
        None => (0u64, 0u64),
    };
    packer.pointer(pp)?;
    packer.pointer(cp)?;
    // SAFETY: the arguments were packed for the slots and strategy the kernel was
    // generated from (a replay's fingerprint fixes them: `call_memo.rs`); offsets stay
    // inside the operands' views (broadcast strides over the input shape, output strides
    // over the output shape); scratch holds `o * splits` partials of at most PARTIAL_BYTES
    // and `out_blocks` zeroed counters, kept alive (with the operands) past the
    // stream-ordered frees after this launch.
    unsafe { p.f.launch(&mut packer, &p.config, stream)? };
    drop(scr);
    Ok(())
}

/// Strides of each array of a call.
type StridesOf = SmallVec<[Strides; 8]>;

/// A call's reduction after merging: the output and reduction extents, each array's
/// strides over them, the output count and the reduction length.
struct Geometry {
    oshape: Shape,
    ost: SmallVec<[Strides; 8]>,
    rshape: Shape,
    rst: SmallVec<[Strides; 8]>,
    o: usize,
    r: usize,
}

/// The strides of one call before merging: the inputs' over the input axes, the
/// outputs' over the output axes.
struct CallStrides<'s> {
    in_shape: &'s [usize],
    reduced: &'s [bool],
    inputs: &'s [Strides],
    outputs: &'s [Strides],
}

/// A call's plan: its geometry, the kernel strategy, and how each reduction is split.
struct ReducePlan {
    geo: Geometry,
    splits: usize,
    chunk: usize,
}

/// Splits the input strides into output and reduction parts and merges each (`merge`:
/// the kernel's `reduce_dims`).
fn geometry(c: &CallStrides<'_>, merge: bool, o: usize, r: usize) -> Geometry {
    if merge
        && r > 0
        && let Some(g) = full_contiguous(c, o, r)
    {
        return g;
    }
    let pick = |want: bool, xs: &[usize]| -> Shape {
        let kept = xs.iter().zip(c.reduced).filter(|(_, r)| **r == want);
        kept.map(|(d, _)| *d).collect()
    };
    let pick_s = |want: bool, xs: &[isize]| -> Strides {
        let kept = xs.iter().zip(c.reduced).filter(|(_, r)| **r == want);
        kept.map(|(d, _)| *d).collect()
    };
    let oshape0 = pick(false, c.in_shape);
    let rshape0 = pick(true, c.in_shape);
    let mut ost0: SmallVec<[Strides; 8]> = c.inputs.iter().map(|s| pick_s(false, s)).collect();
    ost0.extend(c.outputs.iter().cloned());
    let rst0: SmallVec<[Strides; 8]> = c.inputs.iter().map(|s| pick_s(true, s)).collect();
    if !merge {
        return Geometry {
            oshape: oshape0,
            ost: ost0,
            rshape: rshape0,
            rst: rst0,
            o,
            r,
        };
    }
    let orefs: SmallVec<[&[isize]; 8]> = ost0.iter().map(|s| s.as_slice()).collect();
    let (oshape, ost) = merge_dims_of_views(&oshape0, &orefs);
    let (rshape, rst) = if r == 0 {
        (
            Shape::from_elem(0, 1),
            rst0.iter().map(|_| Strides::from_elem(0, 1)).collect(),
        )
    } else {
        let rrefs: SmallVec<[&[isize]; 8]> = rst0.iter().map(|s| s.as_slice()).collect();
        let (rs, rst) = merge_dims_of_views(&rshape0, &rrefs);
        (rs, rst.into_iter().collect())
    };
    Geometry {
        oshape,
        ost: ost.into_iter().collect(),
        rshape,
        rst,
        o,
        r,
    }
}

/// A full reduction of C-contiguous inputs: one reduced axis of unit stride, no merging.
fn full_contiguous(c: &CallStrides<'_>, o: usize, r: usize) -> Option<Geometry> {
    let full = c.reduced.iter().all(|&x| x)
        && c.inputs
            .iter()
            .all(|s| crate::shape::is_c_contiguous_view(c.in_shape, s));
    full.then(|| Geometry {
        oshape: Shape::new(),
        ost: c
            .inputs
            .iter()
            .chain(c.outputs)
            .map(|_| Strides::new())
            .collect(),
        rshape: Shape::from_elem(r, 1),
        rst: c.inputs.iter().map(|_| Strides::from_elem(1, 1)).collect(),
        o,
        r,
    })
}

/// Outputs from which the host device gives each output a thread of its own.
const HOST_OUTER_MIN: usize = 2048;

/// Picks the kernel strategy, the splits per reduction and the chunk each split reduces.
/// `inputs` are the non-raw inputs' addresses and item sizes; `staged` is false when an
/// input may be written (then no wide loads).
///
/// On the host device (`host`) a thread per output walks its whole reduction whenever
/// there are outputs enough to fill the CPU's threads ([`HOST_OUTER_MIN`]) and the
/// reduction is a row or a short column: lanes sharing one would combine through emulated
/// warp shuffles and barriers, each a switch between the block's threads. Two cores,
/// float32 sums: 2^22 rows of 64 took 41.9 s that way and 0.36 s a thread per row, 2^18
/// rows of 1024 19.7 → 0.13 s, 2^22 columns of 64 4.6 → 0.5 s; columns of 1024 and more
/// keep the GPU's lanes (a thread per column of 1024: 0.61 → 1.02 s).
fn choose_strategy(
    g: &Geometry,
    sm: usize,
    inputs: &[(u64, usize)],
    staged: bool,
    host: bool,
) -> (ReduceStrategy, usize, usize) {
    let (ndo, ndr) = (g.oshape.len(), g.rshape.len());
    let (outer, tx) = match lanes_along(g) {
        // (long columns keep the lanes along their outputs: their walks share cache lines)
        (lanes_outer, _)
            if host && ndo > 0 && g.o >= HOST_OUTER_MIN && (!lanes_outer || g.r <= 256) =>
        {
            (true, 256)
        }
        lanes => lanes,
    };
    let unit = ndr == 1 && g.rst.iter().all(|s| s[0] == 1);
    // Wide loads along a unit-stride reduction when every input row start is aligned.
    let vec = if !outer && unit && staged && !inputs.is_empty() {
        wide_load(g, tx, inputs)
    } else {
        1
    };
    let strategy = ReduceStrategy {
        outer,
        tx: tx as u16,
        ty: (BLOCK / tx) as u16,
        ndo: ndo as u8,
        ndr: ndr as u8,
        wide: needs_64_bit(g),
        unit,
        vec: vec as u8,
        split: false,
        interleave: false,
    };
    let (splits, chunk) = split(g, &strategy, sm, vec);
    let strategy = ReduceStrategy {
        split: splits > 1,
        interleave: splits > 1 && !outer && !host,
        ..strategy
    };
    (strategy, splits, chunk)
}

/// Whether the reduction needs 64-bit indexing: more than `i32::MAX` elements, or an
/// array's span over the output or reduction axes beyond half of it.
fn needs_64_bit(g: &Geometry) -> bool {
    let span = |st: &Strides, sh: &Shape| -> usize {
        st.iter()
            .zip(sh.iter())
            .map(|(s, d)| s.unsigned_abs() * d.saturating_sub(1))
            .sum()
    };
    g.o.saturating_mul(g.r.max(1)) > i32::MAX as usize
        || g.ost
            .iter()
            .any(|s| span(s, &g.oshape) > i32::MAX as usize / 2)
        || g.rst
            .iter()
            .any(|s| span(s, &g.rshape) > i32::MAX as usize / 2)
}

/// Outer (threads along adjacent outputs) or inner (threads along the reduction), and the
/// threads along x.
fn lanes_along(g: &Geometry) -> (bool, usize) {
    let (ndo, ndr) = (g.oshape.len(), g.rshape.len());
    let last_unit = |st: &SmallVec<[Strides; 8]>| {
        st.first().and_then(|s| s.last()).map(|s| s.unsigned_abs()) == Some(1)
    };
    let outputs_contiguous = ndo > 0 && last_unit(&g.ost);
    let reduction_contiguous = ndr > 0 && last_unit(&g.rst);
    if ndo > 0 && g.r < 32 {
        (true, 256)
    } else if outputs_contiguous && !reduction_contiguous {
        (true, g.o.next_power_of_two().clamp(1, 32))
    } else {
        let p = if g.r >= 256 {
            256
        } else {
            (g.r.max(1).next_power_of_two() / 2).max(32)
        };
        (false, p.clamp(32, 256))
    }
}

/// Elements per wide load of an inner, unit-stride reduction: 16 bytes of the widest
/// input, halved until every input's rows start aligned; 1 for short reductions.
fn wide_load(g: &Geometry, tx: usize, inputs: &[(u64, usize)]) -> usize {
    let mut vec = (16 / inputs.iter().map(|i| i.1).max().unwrap_or(16)).clamp(1, 8);
    let aligned = |v: usize| {
        inputs.iter().zip(g.ost.iter()).all(|(&(ptr, item), ost)| {
            ptr % (v * item) as u64 == 0 && ost.iter().all(|s| s % v as isize == 0)
        })
    };
    while vec > 1 && !aligned(vec) {
        vec /= 2;
    }
    if g.r < 4 * vec * tx { 1 } else { vec }
}

/// Splits per reduction (grid y) so that the blocks fill the GPU (`sm` multiprocessors),
/// each split at least one unrolled step of loads per thread, and the chunk each reduces
/// (starting on a wide-load boundary).
///
/// The blocks fill whole waves (`sm` × 8 resident blocks) as nearly as the splits allow:
/// of the two split counts around one wave, the one whose last wave is fuller. Rounding up
/// alone left 8192 column sums of a (8192, 8192) float32 array in 5 splits, 1280 blocks for
/// 1056 places: a fifth of a wave ran alone (`ncu`, H100: 77 % of DRAM; the H200 bench
/// row 76.6 % of the copy).
fn split(g: &Geometry, strategy: &ReduceStrategy, sm: usize, vec: usize) -> (usize, usize) {
    let out_blocks = g.o.div_ceil(strategy.outputs_per_block()).max(1);
    let want_blocks = sm * (2048 / BLOCK);
    let by_fill = fullest_waves(out_blocks, want_blocks);
    let per_thread = if vec > 1 { 2 * vec } else { 8 };
    let by_work = g.r.div_ceil(strategy.lanes() * per_thread).max(1);
    let mut splits = by_fill.min(by_work).clamp(1, 65535);
    let mut chunk = g.r;
    if splits > 1 {
        chunk = g.r.div_ceil(splits).div_ceil(vec) * vec;
        splits = g.r.div_ceil(chunk);
    }
    if splits <= 1 {
        splits = 1;
        chunk = g.r;
    }
    (splits, chunk)
}

/// Of the split counts just below and just above `wave / out_blocks`, the one whose blocks
/// fill their last wave of `wave` blocks best (the larger on a tie).
fn fullest_waves(out_blocks: usize, wave: usize) -> usize {
    let (lo, hi) = ((wave / out_blocks).max(1), wave.div_ceil(out_blocks).max(1));
    let fill = |s: usize| {
        let blocks = out_blocks * s;
        blocks as f64 / (blocks.div_ceil(wave) * wave) as f64
    };
    if fill(lo) > fill(hi) { lo } else { hi }
}

#[cfg(test)]
mod tests {
    use super::{Geometry, choose_strategy, fullest_waves};
    use smallvec::smallvec;

    /// One contiguous input of `o` outputs by `r` reduced elements: rows (`rows`: the
    /// reduction innermost) or columns.
    fn geometry(o: usize, r: usize, rows: bool) -> Geometry {
        let (os, rs) = if rows {
            (r as isize, 1)
        } else {
            (1, o as isize)
        };
        Geometry {
            oshape: smallvec![o],
            ost: smallvec![smallvec![os], smallvec![1]],
            rshape: smallvec![r],
            rst: smallvec![smallvec![rs]],
            o,
            r,
        }
    }

    #[test]
    fn the_host_device_gives_each_output_a_thread_where_lanes_would_switch() {
        let pick = |o, r, rows, host| {
            let (s, _, _) = choose_strategy(&geometry(o, r, rows), 2, &[], false, host);
            (s.outer, s.tx)
        };
        // many rows: lanes along each row on a GPU, a thread per row on the host
        assert_eq!(pick(1 << 22, 64, true, false), (false, 32));
        assert_eq!(pick(1 << 22, 64, true, true), (true, 256));
        assert_eq!(pick(1 << 18, 1024, true, true), (true, 256));
        // short columns: one thread each on the host; long ones keep the GPU's lanes
        assert_eq!(pick(1 << 22, 64, false, true), (true, 256));
        assert_eq!(
            pick(1 << 18, 1024, false, true),
            pick(1 << 18, 1024, false, false)
        );
        // few outputs: the lanes share each reduction on the host too
        assert_eq!(
            pick(16, 1 << 20, true, true),
            pick(16, 1 << 20, true, false)
        );
    }

    #[test]
    fn inner_splits_interleave_on_a_gpu_only() {
        let pick = |o, r, rows, host| {
            let (s, splits, _) = choose_strategy(&geometry(o, r, rows), 132, &[], false, host);
            (s.outer, splits > 1, s.interleave)
        };
        // one long row: split over the GPU, in stripes; the host walks chunks
        assert_eq!(pick(1, 1 << 24, true, false), (false, true, true));
        assert!(!pick(1, 1 << 24, true, true).2);
        // long columns are split in chunks; rows that fill the GPU alone are not split
        assert_eq!(pick(64, 1 << 20, false, false), (true, true, false));
        assert_eq!(pick(1 << 20, 64, true, false), (false, false, false));
    }

    /// Partials of a reduction without an identity carry no validity flag, so every split
    /// must get at least one element: with stripes, the last split's first stripe starts
    /// inside the reduction (wide loads and plain elements, 1 to 132 SMs).
    #[test]
    fn every_interleaved_split_has_a_stripe() {
        let mut seen = [false; 3];
        for sm in [1, 2, 16, 132] {
            for r in (1..2000).chain((1..60).map(|k| 4099 * k * k)) {
                for inputs in [&[][..], &[(0u64, 4usize)][..], &[(0u64, 8usize)][..]] {
                    let (s, splits, _) =
                        choose_strategy(&geometry(1, r, true), sm, inputs, true, false);
                    if s.interleave {
                        // the last split's first wide load (or element) lies in the rows'
                        // whole loads, before the tail
                        let v = usize::from(s.vec);
                        assert!(
                            (splits - 1) * s.lanes() < r / v,
                            "r={r} sm={sm} splits={splits} vec={v}"
                        );
                        seen[v.trailing_zeros() as usize] = true;
                    }
                }
            }
        }
        assert_eq!(seen, [true; 3], "plain, 2-wide and 4-wide loads all split");
    }

    #[test]
    fn splits_fill_their_last_wave() {
        // 256 output blocks, 132 SMs × 8: 4 splits fill 97 % of one wave, 5 leave a fifth alone
        assert_eq!(fullest_waves(256, 1056), 4);
        assert_eq!(fullest_waves(300, 1056), 3);
        // one output: a block for each place of the wave
        assert_eq!(fullest_waves(1, 1056), 1056);
        // a tie keeps the larger count; more output blocks than places: no split
        assert_eq!(fullest_waves(600, 1056), 2);
        assert_eq!(fullest_waves(2000, 1056), 1);
    }
}
