//! [`ElementwiseKernel`]: a per-element operation written in CUDA C++, applied over
//! broadcast arrays (CuPy's `cupy.ElementwiseKernel`).
//!
//! **Construction** parses the parameter lists once (CuPy's grammar and errors, `params.rs`;
//! cuprum also refuses `_`-prefixed names, a name twice in one list, and C or NumPy
//! shorthand types that read two ways) and analyses the operation once
//! (`codegen/analysis.rs`: which outputs it reads, whether it takes addresses or leaves
//! the loop early). A name in both lists with one type is one read-write parameter: the
//! generated code has it once, as an output the operation reads (so staged copies load it
//! first), and `call::bind` takes its array from the inputs (a repeated output must be the
//! same array).
//!
//! **A call** ([`ElementwiseCall`], its `invoke_into`) takes the steps of `call.rs` with its own
//! plan in between:
//!
//! 1. `bind` the arguments to the parameters;
//! 2. `on_stream`: the call's stream, every array on its device;
//! 3. `loop_shape`: the broadcast of the arrays' shapes (`array_shapes`: inputs and given
//!    outputs), or the given size when every array is raw;
//! 4. `resolve_dtypes` (placeholders by exact match, outputs first, scalars never);
//! 5. `prepare_outputs`: given outputs checked, the others allocated;
//! 6. `plan`: each parameter's slot and the layout class (`codegen/layout.rs`:
//!    Contiguous, Rows, Tiled or Flat; 64-bit indexing only when the loop or an array's
//!    element span exceeds `i32`);
//! 7. `specialisation`: the kernel's `KernelTable` entry for (device, dtypes, slots,
//!    layout, block), generated (`codegen/elementwise.rs`) and compiled on first use;
//! 8. `pack_operands`, then the loop size and, unless contiguous, `table_words`;
//! 9. the launch with `launch_config` (grid and block of the plan).
//!
//! A repeat call with the fingerprint of an earlier one (`call_memo.rs`: dtypes, shapes,
//! strides, alignments, options) skips steps 1–7 and 9's configuration: it allocates the
//! outputs, packs and launches (`replay`). Any other repeat call is a hash lookup, the
//! packing and one launch. Staged copies (registers,
//! shared-memory tiles) are used only when safe: outputs the operation may read are loaded
//! first, and an operation that takes an address or leaves the loop (`return`, `break`)
//! gets direct references. Compile errors name the line of the user's operation.

use super::call::{
    Bound, OutputRule, Outputs, Signature, array_shapes, bind, on_stream, operand_at,
    pack_operands, prepare_outputs, resolve_dtypes, sample_slots, specialisation, table_words,
};
use super::call_memo::{CallMemo, Fingerprint, OutputPlan, replay_operand, replay_outputs};
use super::codegen::elementwise::{ElementwiseSource, generate};
use super::codegen::entry::Slot;
use super::codegen::layout::{
    ArrayLayout, Layout, LayoutClass, Plan, TILE, TILE_ROWS, contiguous_plan, plan,
};
use super::codegen::{OpAnalysis, analyse};
use super::operand::{Operand, Operands};
use super::params::{
    Param, ParamList, ParamType, TypeMap, check_kernel_name, check_reserved, merge_lists,
    parse_params,
};
use super::spec::{KernelSpec, kernel_spec_methods};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::kernel_abi::{CompiledKernel, GeneratedKernel, KernelTable};
use crate::runtime::{Device, LaunchConfig, Stream};
use crate::shape::{Shape, Strides, broadcast_shapes, broadcast_strides};
use smallvec::SmallVec;
use std::sync::Arc;

/// Threads per block unless the call says otherwise.
const DEFAULT_BLOCK: u32 = 256;

/// A user-defined elementwise kernel: CUDA C++ `operation` applied to every element of
/// broadcast input arrays, writing output arrays.
///
/// Parameters use CuPy's grammar (`"float32 x, T y, raw T z"`): concrete dtypes by NumPy
/// name, one-letter type placeholders bound by the arrays passed (exact match, no
/// promotion), `raw` for arrays the operation indexes itself (`z[i]`), `_non_const` for
/// inputs the operation writes. A name in both lists with the same type is one read-write
/// parameter, written in place (the seed's `"float32 x, float32 alpha"`, `"float32 x"`,
/// `"x = x * alpha + 1"`: see [`call`](ElementwiseKernel::call)). Scalars keep their Rust
/// type and are converted to their parameter's type with range checks; a parameter of a
/// registered device type ([`register_record`](crate::kernel::register_record)) takes an
/// array of records or one value of the type. Inside `operation`: each non-raw parameter by name,
/// `i` (the C-order loop index), `_ind.size()` (the loop size).
///
/// The kernel compiles on first use per (dtypes, layout, index width) and is cached: a
/// repeat call is a hash lookup and one launch. Contiguous operands get a flat loop with
/// vector loads, broadcast and strided ones a row-wise 2-D launch, transposed ones
/// shared-memory tiles.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ElementwiseKernel};
/// let add = ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")?;
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
/// let y = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
/// let z = add.call((&x, &y))?;
/// assert_eq!(z.to_vec::<f32>()?, vec![11.0, 14.0, 17.0, 20.0]);
/// add.call((&x, &y, &z))?;                       // output given: written in place
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct ElementwiseKernel {
    /// The signature (the name and the generated code's parameters: inputs that are not
    /// read-write, then outputs), preamble, compile options and `reduce_dims`.
    spec: KernelSpec,
    /// The parameters as declared (a read-write one in both lists).
    declared: Vec<Param>,
    /// Per declared input: its index in `spec.sig.params`.
    input_at: SmallVec<[usize; 8]>,
    /// Whether calls bind arguments to parameters one to one (no read-write parameter):
    /// only those are memoised (`call_memo.rs`). Fixed by the parameter lists.
    plain: bool,
    operation: String,
    loop_prep: String,
    after_loop: String,
    analysis: OpAnalysis,
    specs: KernelTable<SpecKey>,
    /// The plans of recent calls (`call_memo.rs`).
    memo: CallMemo<Replay>,
}

/// What a call with an earlier call's fingerprint reuses (`call_memo.rs`).
#[derive(Debug)]
struct Replay {
    /// Per generated parameter.
    dtypes: SmallVec<[DType; 8]>,
    /// The fresh outputs, of the loop shape.
    outputs: OutputPlan,
    /// None for an empty loop (outputs only, no launch).
    launch: Option<Prepared>,
}

/// A planned launch: the compiled kernel, its configuration and its trailing words.
#[derive(Debug)]
struct Prepared {
    f: Arc<CompiledKernel>,
    config: LaunchConfig,
    n: usize,
    /// The shape and stride table, unless the layout is contiguous.
    table: Option<Vec<i64>>,
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElementwiseKernel")
            .field("name", &self.spec.sig.name)
            .field("params", &self.declared)
            .field("operation", &self.operation)
            .finish_non_exhaustive()
    }
}

/// Dtypes and scalar flags, one per generated parameter.
type PerParam = (SmallVec<[DType; 8]>, SmallVec<[bool; 8]>);

/// What one compiled specialisation depends on besides the kernel's own strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SpecKey {
    device: usize,
    dtypes: SmallVec<[DType; 8]>,
    /// How each parameter is passed (array, raw array of some ndim, scalar): the same
    /// parameter may be an array in one call and a scalar in the next.
    slots: SmallVec<[Slot; 8]>,
    layout: Layout,
    block: u32,
}

impl ElementwiseKernel {
    /// Defines a kernel. Parameter lists and the name are checked now (CuPy's errors:
    /// `Syntax error`, `Unknown keyword`, unknown dtype, `Invalid kernel name`, a parameter
    /// named `i`; cuprum also rejects names starting with `_`, a name used twice in one
    /// list, and C or NumPy shorthand types such as `float`, `int` or `f4`). A name in both
    /// lists with the same type is one read-write parameter; with different types it is an
    /// error naming both. The CUDA code compiles on first call.
    ///
    /// ```
    /// use cuprum::{ElementwiseKernel, ErrorKind};
    /// let e = ElementwiseKernel::new("T x", "T i", "i = x", "k").unwrap_err();
    /// assert_eq!(e.to_string(), "Can not use 'i' as a parameter name");
    /// let e = ElementwiseKernel::new("T x", "T y", "y = x", "bad-name").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    /// // the seed's in-place kernel: `x` is one read-write parameter
    /// let k = ElementwiseKernel::new("float32 x, float32 alpha", "float32 x", "x = x * alpha + 1", "inplace_transform")?;
    /// assert_eq!((k.nin(), k.nout()), (2, 1));
    /// let e = ElementwiseKernel::new("float32 x", "float64 x", "x = x", "k").unwrap_err();
    /// assert!(e.to_string().contains("declared float32 among the inputs and float64 among the outputs"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new(
        in_params: &str,
        out_params: &str,
        operation: impl Into<String>,
        name: impl Into<String>,
    ) -> Result<ElementwiseKernel> {
        let name = name.into();
        check_kernel_name(&name)?;
        let m = merge_lists(
            parse_params(in_params, ParamList::Inputs)?,
            parse_params(out_params, ParamList::Outputs)?,
        )?;
        check_reserved(&m.params, &["i"], "")?;
        let operation = operation.into();
        let mut k = ElementwiseKernel {
            spec: KernelSpec::new(Signature {
                name,
                params: m.params,
                nin: m.nin,
            }),
            declared: m.declared,
            plain: m.input_at.iter().enumerate().all(|(a, &at)| a == at),
            input_at: m.input_at,
            operation,
            loop_prep: String::new(),
            after_loop: String::new(),
            analysis: OpAnalysis::default(),
            specs: KernelTable::new(),
            memo: CallMemo::default(),
        };
        k.refresh();
        Ok(k)
    }

    /// After the definition changed: analyses the operation again and forgets every
    /// compiled specialisation.
    fn refresh(&mut self) {
        let params = &self.spec.sig.params;
        let outs: Vec<&str> = params[self.spec.sig.nin..]
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let arrays: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        self.analysis = analyse(&self.operation, &outs, &arrays);
        self.specs.clear();
        self.memo.clear();
    }

    /// Code run once per thread before the loop.
    ///
    /// ```
    /// use cuprum::ElementwiseKernel;
    /// let k = ElementwiseKernel::new("T x", "T y", "y = x * s", "scale")?
    ///     .loop_prep("const float s = 2.0f;");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn loop_prep(mut self, code: impl Into<String>) -> Self {
        self.loop_prep = code.into();
        self.refresh();
        self
    }

    /// Code run once per thread after the loop.
    ///
    /// ```
    /// use cuprum::ElementwiseKernel;
    /// let k = ElementwiseKernel::new("T x", "T y", "y = x", "copy_k")?.after_loop("/* done */");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn after_loop(mut self, code: impl Into<String>) -> Self {
        self.after_loop = code.into();
        self.refresh();
        self
    }

    /// The parsed parameters as declared: the inputs, then the outputs (a read-write
    /// parameter is in both, not `const`).
    ///
    /// ```
    /// # use cuprum::ElementwiseKernel;
    /// let k = ElementwiseKernel::new("T x, float32 s", "T y", "y = x * s", "scale")?;
    /// assert_eq!(k.params().len(), 3);
    /// assert_eq!((k.nin(), k.nout()), (2, 1));
    /// let k = ElementwiseKernel::new("T x, float32 s", "T x", "x = x * s", "scale_inplace")?;
    /// assert_eq!(k.params().len(), 3);
    /// assert!(!k.params()[0].is_const);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn params(&self) -> &[Param] {
        &self.declared
    }

    /// Number of inputs (the arguments of a call without outputs).
    pub fn nin(&self) -> usize {
        self.input_at.len()
    }

    /// Runs the kernel and returns its first output. `args` holds the inputs, optionally
    /// followed by every output (then written in place): CuPy's `kernel(*args)`.
    ///
    /// A read-write parameter (a name in both lists) takes its array among the inputs; the
    /// call may repeat it as the output (it must be the same array) or leave the outputs
    /// out. Either way the array is written in place and returned.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ElementwiseKernel};
    /// let relu = ElementwiseKernel::new("T x, T cap", "T y", "y = min(max(x, (T)0), cap)", "relu6")?;
    /// let x = Array::from_slice(&[-1.0f32, 3.0, 9.0], &[3])?;
    /// assert_eq!(relu.call((&x, 6.0f32))?.to_vec::<f32>()?, vec![0.0, 3.0, 6.0]);
    /// // in place: seed 002's kernel, called as in CuPy or without the repeated output
    /// let inplace = ElementwiseKernel::new("float32 x, float32 alpha", "float32 x", "x = x * alpha + 1", "inplace_transform")?;
    /// let data = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let out = inplace.call((&data, 2.0f32, &data))?;
    /// assert!(out.shares_memory(&data));
    /// inplace.call((&data, 2.0f32))?;
    /// assert_eq!(data.to_vec::<f32>()?, vec![7.0, 11.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        self.config().call(args)
    }

    /// Runs the kernel and returns every output (CuPy's `return_tuple=True`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ElementwiseKernel};
    /// let sc = ElementwiseKernel::new("T x", "T s, T c", "s = sin(x); c = cos(x)", "sin_cos")?;
    /// let x = Array::from_slice(&[0.0f64, 1.0], &[2])?;
    /// let out = sc.call_all((&x,))?;
    /// assert_eq!(out.len(), 2);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call_all(&self, args: impl Operands) -> Result<Vec<Array>> {
        self.config().call_all(args)
    }

    /// Runs the kernel for its effect only (CuPy's `no_return=True`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ElementwiseKernel};
    /// let twice = ElementwiseKernel::new("", "T x", "x = x * 2", "twice_inplace")?;
    /// let x = Array::from_slice(&[1i32, 2], &[2])?;
    /// twice.run((&x,))?;
    /// assert_eq!(x.to_vec::<i32>()?, vec![2, 4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn run(&self, args: impl Operands) -> Result<()> {
        self.config().run(args)
    }

    /// A call with an explicit loop size (only when every array parameter is `raw`:
    /// CuPy's `size=`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ElementwiseKernel};
    /// let rev = ElementwiseKernel::new("raw T x", "raw T y", "y[i] = x[_ind.size() - 1 - i]", "rev")?;
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let y = rev.size(3).call((&x,))?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![3.0, 2.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn size(&self, n: usize) -> ElementwiseCall<'_> {
        self.config().size(n)
    }

    /// A call with a given number of threads per block (default 256).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ElementwiseKernel};
    /// let k = ElementwiseKernel::new("T x", "T y", "y = x", "copy_k")?;
    /// let y = k.block_size(128).call((&Array::ones(&[10], cuprum::DType::F32)?,))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn block_size(&self, threads: u32) -> ElementwiseCall<'_> {
        self.config().block_size(threads)
    }

    /// A call on a given stream (default: the current stream); outputs are allocated on
    /// it. Arrays of other streams may be passed: cuprum orders their first use and their
    /// free with this stream ([Arrays and streams](crate::Stream#arrays-and-streams)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// # use cuprum::{Array, ElementwiseKernel, Stream};
    /// let k = ElementwiseKernel::new("T x", "T y", "y = x", "copy_k")?;
    /// let s = Stream::new()?;
    /// let y = k.stream(&s).call((&Array::ones(&[10], cuprum::DType::F32)?,))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn stream(&self, stream: &Stream) -> ElementwiseCall<'_> {
        self.config().stream(stream)
    }

    /// Runs on `ops` (no size, block size or stream given) and writes every output into
    /// `outs` (empty), kept inline: Python's calls on cuprum's own arrays.
    #[cfg(feature = "python")]
    #[inline]
    pub(crate) fn outputs(&self, ops: &[Operand<'_>], outs: &mut Outputs) -> Result<()> {
        self.config().invoke_into(ops, outs)
    }

    fn config(&self) -> ElementwiseCall<'_> {
        ElementwiseCall {
            kernel: self,
            size: None,
            block: None,
            stream: None,
        }
    }

    /// The CUDA source generated for parameter dtypes `dtypes` (one per parameter, inputs
    /// first) in the contiguous layout, with every array parameter non-raw or 1-D raw and
    /// every other parameter a scalar as `scalars` marks it. For inspection (CuPy's
    /// `cached_code`) and for compile checks without a GPU.
    ///
    /// ```
    /// use cuprum::{DType, ElementwiseKernel};
    /// let k = ElementwiseKernel::new("T x, T s", "T y", "y = x * s", "scale")?;
    /// let src = k.generated_source(&[DType::F32; 3], &[false, true, false])?;
    /// assert!(src.contains("typedef float T;"));
    /// assert!(src.contains("const T s"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn generated_source(&self, dtypes: &[DType], scalars: &[bool]) -> Result<String> {
        let (dtypes, scalars) = self.effective(dtypes, scalars)?;
        let dtypes = &dtypes[..];
        let slots = sample_slots(&self.spec.sig.name, &self.spec.sig.params, dtypes, &scalars)?;
        let layout = Layout {
            class: LayoutClass::Contiguous,
            nd: 1,
            wide: false,
            vec: 1,
            tiled: 0,
            row_bcast: 0,
            unaligned: 0,
        };
        Ok(self
            .source_for(dtypes, &slots, layout, DEFAULT_BLOCK)?
            .source)
    }

    /// Per-declared-parameter values (inputs, then outputs) as per generated parameter;
    /// a read-write parameter's two entries must agree and be an array.
    fn effective(&self, dtypes: &[DType], scalars: &[bool]) -> Result<PerParam> {
        let n = self.declared.len();
        if dtypes.len() != n || scalars.len() != n {
            bail!(
                InvalidArgument,
                "'{}' has {n} parameters (inputs, then outputs); got {} dtypes and {} scalar flags",
                self.spec.sig.name,
                dtypes.len(),
                scalars.len()
            );
        }
        let args_in = self.input_at.len();
        let mut d: SmallVec<[DType; 8]> = SmallVec::new();
        let mut s: SmallVec<[bool; 8]> = SmallVec::new();
        for (a, &at) in self.input_at.iter().enumerate() {
            if at < self.spec.sig.nin {
                d.push(dtypes[a]);
                s.push(scalars[a]);
            }
        }
        d.extend_from_slice(&dtypes[args_in..]);
        s.extend_from_slice(&scalars[args_in..]);
        for (a, &at) in self.input_at.iter().enumerate() {
            if at >= self.spec.sig.nin && (dtypes[a] != d[at] || scalars[a] || s[at]) {
                bail!(
                    InvalidArgument,
                    "parameter '{}' of '{}' is read-write: its input and output entries must be \
                     the same dtype and both arrays",
                    self.spec.sig.params[at].name,
                    self.spec.sig.name
                );
            }
        }
        Ok((d, s))
    }

    /// The kernel of one specialisation (for calls, inspection and compile checks).
    pub(crate) fn source_for(
        &self,
        dtypes: &[DType],
        slots: &[Slot],
        layout: Layout,
        block: u32,
    ) -> Result<GeneratedKernel> {
        let (params, nin) = (&self.spec.sig.params, self.spec.sig.nin);
        let mut tm = TypeMap::default();
        for (p, &d) in params.iter().zip(dtypes) {
            if let super::params::ParamType::Placeholder(c) = p.ty
                && tm.get(c).is_none()
            {
                tm.0.push((c, d));
            }
        }
        let preload: SmallVec<[bool; 8]> = (0..params.len())
            .map(|k| k >= nin && self.analysis.reads[k - nin])
            .collect();
        Ok(generate(&ElementwiseSource {
            name: &self.spec.sig.name,
            params,
            dtypes,
            slots,
            typedefs: &format!(
                "{}{}",
                super::params::record_declarations(dtypes),
                tm.typedefs()
            ),
            layout,
            operation: &self.operation,
            preamble: &self.spec.preamble,
            loop_prep: &self.loop_prep,
            after_loop: &self.after_loop,
            preload: &preload,
            block,
        }))
    }

    /// The compiled kernel of a call's specialisation (generated and compiled on first use).
    fn specialisation(&self, key: &SpecKey, stream: &Stream) -> Result<Arc<CompiledKernel>> {
        specialisation(
            &self.specs,
            key,
            stream,
            &self.spec.sig.name,
            &self.spec.options,
            || self.source_for(&key.dtypes, &key.slots, key.layout, key.block),
        )
    }

    /// The layout plan of a call: each parameter's slot, and the classified loop over the
    /// broadcast operands (merged dimensions, index width, wide loads).
    fn plan<'b>(
        &self,
        loop_shape: &[usize],
        operand: &dyn Fn(usize) -> Operand<'b>,
    ) -> Result<(SmallVec<[Slot; 8]>, Plan)> {
        let (params, nin) = (&self.spec.sig.params, self.spec.sig.nin);
        // Every broadcast operand C-contiguous with the loop's shape: no strides needed.
        let fast = self.spec.reduce_dims
            && params.iter().enumerate().all(|(kk, p)| match operand(kk) {
                Operand::Array(a) if !p.raw => a.shape() == loop_shape && a.is_c_contiguous(),
                _ => true,
            });
        let mut slots: SmallVec<[Slot; 8]> = SmallVec::new();
        let mut bstrides: SmallVec<[Strides; 8]> = SmallVec::new();
        let mut ptrs: SmallVec<[(u64, usize, bool); 8]> = SmallVec::new();
        for (kk, p) in params.iter().enumerate() {
            match operand(kk) {
                Operand::Array(a) if p.raw => slots.push(Slot::Raw { nd: a.ndim() }),
                Operand::Array(a) => {
                    slots.push(Slot::Array {
                        idx: bstrides.len(),
                    });
                    bstrides.push(if fast {
                        Strides::new()
                    } else {
                        broadcast_strides(a.shape(), a.strides(), loop_shape)?
                    });
                    // `_non_const` inputs may be written by the operation: never staged.
                    let staged = !self.analysis.direct && (p.is_const || kk >= nin);
                    ptrs.push((a.data_ptr(), a.itemsize(), staged));
                }
                Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => {
                    slots.push(Slot::Scalar)
                }
            }
        }
        let lays: SmallVec<[ArrayLayout<'_>; 8]> = bstrides
            .iter()
            .zip(ptrs.iter())
            .map(|(st, &(ptr, itemsize, staged))| ArrayLayout {
                strides: st,
                ptr,
                itemsize,
                staged,
            })
            .collect();
        let n: usize = loop_shape.iter().product();
        let plan = if fast {
            contiguous_plan(n, &lays)
        } else {
            plan(loop_shape, &lays, self.spec.reduce_dims)
        };
        Ok((slots, plan))
    }
}

impl ElementwiseKernel {
    /// The last steps of a call, after its checks: the plan of the operands' layouts over
    /// `loop_shape` (no zero extent), the specialisation for them and `dtypes`, its
    /// arguments, the launch on `stream`. `operand(k)` is parameter `k`'s operand, every
    /// output given.
    fn launch<'b>(
        &self,
        dtypes: SmallVec<[DType; 8]>,
        loop_shape: &[usize],
        block: u32,
        stream: &Stream,
        operand: &dyn Fn(usize) -> Operand<'b>,
    ) -> Result<Prepared> {
        let (slots, plan) = self.plan(loop_shape, operand)?;
        let block = if plan.layout.class == LayoutClass::Tiled {
            (TILE * TILE_ROWS) as u32
        } else {
            block
        };
        let key = SpecKey {
            device: stream.device().ordinal(),
            dtypes,
            slots,
            layout: plan.layout,
            block,
        };
        let prepared = Prepared {
            f: self.specialisation(&key, stream)?,
            config: launch_config(&plan, block),
            n: plan.n,
            table: (plan.layout.class != LayoutClass::Contiguous)
                .then(|| table_words(&plan.shape, &plan.strides).collect()),
        };
        self.fire(&prepared, &key.dtypes, stream, operand)?;
        Ok(prepared)
    }

    /// Packs the operands for a planned launch and launches it.
    fn fire<'b>(
        &self,
        p: &Prepared,
        dtypes: &[DType],
        stream: &Stream,
        operand: impl Fn(usize) -> Operand<'b>,
    ) -> Result<()> {
        let mut packer = p.f.packer();
        pack_operands(&mut packer, &self.spec.sig, dtypes, stream, operand)?;
        packer.index(p.n)?;
        if let Some(table) = &p.table {
            packer.words(table.iter().copied())?;
        }
        // SAFETY: the arguments were packed for the slots and layout the kernel was
        // generated from (a replay's fingerprint fixes them: `call_memo.rs`); every offset
        // the kernel computes stays inside an operand's view (broadcast strides over the
        // loop shape, raw arrays indexed by the user's code as in CuPy), and the views keep
        // their buffers alive until the stream-ordered frees after this launch.
        unsafe { p.f.launch(&mut packer, &p.config, stream) }
    }

    /// Whether calls bind arguments to parameters one to one (no read-write parameter):
    /// only those are memoised (`call_memo.rs`).
    fn plain(&self) -> bool {
        self.plain
    }

    /// Runs on `ops` when they are exactly what the kernel declares — every parameter in
    /// order (no read-write one), inputs then outputs, none raw, each of its parameter's
    /// concrete dtype, the outputs given, writeable and of one shape that every input
    /// broadcasts to, every array on `stream`'s device — as fusion calls its generated
    /// kernels: the binding and dtype resolution of a general call reduce to that one
    /// check, and a repeat replays the plan (`call_memo.rs`). Any other call takes the
    /// general path ([`ElementwiseKernel::run`] on `stream`), with its errors.
    ///
    /// `fresh`: the outputs were allocated for this call (C order, from the pool), as a
    /// replay allocates them. The plan is then remembered under the inputs' fingerprint
    /// instead, and a repeat with inputs only ([`ElementwiseKernel::replay_fresh`])
    /// allocates its outputs and launches, without the caller's shape pass and allocations.
    pub(crate) fn run_exact(
        &self,
        ops: &[Operand<'_>],
        stream: &Stream,
        fresh: bool,
    ) -> Result<()> {
        let call = self.config().stream(stream);
        let Some(loop_shape) = self.exact_loop_shape(ops, stream.device()) else {
            return call.invoke(ops).map(|_| ());
        };
        let options = call.options();
        let device = stream.device();
        let inputs = &ops[..self.spec.sig.nin.min(ops.len())];
        let remember_inputs = |r: &Arc<Replay>| {
            if let Some(f) = Fingerprint::of(device, &options, inputs).filter(|_| fresh) {
                self.memo.remember_shared(f, r.clone());
            }
        };
        if let Some(r) = self.memo.find(device, &options, ops) {
            call.replay(&r, ops, stream)?;
            remember_inputs(&r);
            return Ok(());
        }
        let dtypes: SmallVec<[DType; 8]> = ops.iter().map(|o| o.dtype()).collect();
        let mut replay = Replay {
            outputs: OutputPlan::new(
                loop_shape.into(),
                dtypes.get(self.spec.sig.nin..).unwrap_or(&[]),
            ),
            dtypes: dtypes.clone(),
            launch: None,
        };
        if loop_shape.iter().product::<usize>() != 0 {
            let operand = |k: usize| ops[k];
            replay.launch =
                Some(self.launch(dtypes, loop_shape, DEFAULT_BLOCK, stream, &operand)?);
        }
        let replay = Arc::new(replay);
        // A call with fresh outputs is repeated through `replay_fresh` only: its plan takes
        // one of the memo's entries, not two.
        if fresh {
            remember_inputs(&replay);
        } else if let Some(f) = Fingerprint::of(device, &options, ops) {
            self.memo.remember_shared(f, replay);
        }
        Ok(())
    }

    /// A repeat of a [`ElementwiseKernel::run_exact`] call with fresh outputs, given its
    /// inputs only: the outputs, allocated as that call's were, after the launch; `None`
    /// when no such call with these inputs' fingerprint is remembered.
    pub(crate) fn replay_fresh(
        &self,
        inputs: &[Operand<'_>],
        stream: &Stream,
    ) -> Result<Option<Outputs>> {
        if inputs.len() != self.spec.sig.nin {
            return Ok(None);
        }
        let call = self.config().stream(stream);
        match self.memo.find(stream.device(), &call.options(), inputs) {
            Some(r) => call.replay(&r, inputs, stream).map(Some),
            None => Ok(None),
        }
    }

    /// The loop shape of a call [`ElementwiseKernel::run_exact`] can run on its exact path
    /// (the outputs' one shape), `None` for any other call.
    fn exact_loop_shape<'a>(&self, ops: &'a [Operand<'_>], device: Device) -> Option<&'a [usize]> {
        let sig = &self.spec.sig;
        let nin = sig.nin;
        let Some(Operand::Array(first_out)) = ops.get(nin) else {
            return None;
        };
        let shape = first_out.shape();
        let exact = ops.len() == sig.params.len()
            && self.plain
            && sig.params.iter().zip(ops).enumerate().all(|(k, (p, o))| {
                !p.raw
                    && p.ty == ParamType::Concrete(o.dtype())
                    && match o {
                        Operand::Array(a) if k < nin => {
                            a.device() == device && crate::shape::broadcasts_to(a.shape(), shape)
                        }
                        Operand::Array(a) => {
                            a.device() == device && a.shape() == shape && !a.read_only
                        }
                        Operand::Scalar(_) => k < nin,
                        Operand::Record(_) | Operand::Texture(_) => false,
                    }
            });
        exact.then_some(shape)
    }
}

kernel_spec_methods!(
    ElementwiseKernel,
    new: r#"ElementwiseKernel::new("T x", "T y", "y = x", "copy_k")?"#,
    name: "copy_k",
    with_sq: r#"ElementwiseKernel::new("T x", "T y", "y = sq(x)", "sq_k")?"#,
);

/// One configured call of an [`ElementwiseKernel`] (loop size, block size, stream).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ElementwiseKernel, Stream};
/// let k = ElementwiseKernel::new("raw T x", "raw T y", "y[i] = x[i] + 1", "inc")?;
/// let x = Array::from_slice(&[1i64, 2, 3], &[3])?;
/// let s = Stream::new()?;
/// let y = k.size(3).block_size(64).stream(&s).call((&x,))?;
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ElementwiseCall<'k> {
    kernel: &'k ElementwiseKernel,
    size: Option<usize>,
    block: Option<u32>,
    stream: Option<Stream>,
}

impl ElementwiseCall<'_> {
    /// Sets the loop size (all array parameters must be `raw`).
    pub fn size(mut self, n: usize) -> Self {
        self.size = Some(n);
        self
    }

    /// Sets the threads per block (1..=1024).
    pub fn block_size(mut self, threads: u32) -> Self {
        self.block = Some(threads);
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
        let k = self.kernel;
        if k.nout() == 0 {
            bail!(
                InvalidArgument,
                "kernel '{}' has no outputs: use run() instead of call()",
                k.spec.sig.name
            );
        }
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
    #[inline]
    pub(crate) fn outputs(&self, ops: &[Operand<'_>], outs: &mut Outputs) -> Result<()> {
        self.invoke_into(ops, outs)
    }

    /// Runs for the effect only.
    pub fn run(&self, args: impl Operands) -> Result<()> {
        let ops = args.operands();
        self.invoke(&ops).map(|_| ())
    }

    /// [`ElementwiseCall::invoke_into`] of a new list.
    fn invoke(&self, args: &[Operand<'_>]) -> Result<Outputs> {
        let mut outs = Outputs::new();
        self.invoke_into(args, &mut outs)?;
        Ok(outs)
    }

    /// The call, its outputs written into `outs` (empty): a replay of an earlier call's
    /// plan when the fingerprint matches (`call_memo.rs`), else the steps of
    /// `kernel/call.rs` around the elementwise plan (remembered when they succeed).
    fn invoke_into(&self, args: &[Operand<'_>], outs: &mut Outputs) -> Result<()> {
        let k = self.kernel;
        let plan = |outs: &mut Outputs| {
            let (o, p) = self.plan_and_run(args)?;
            *outs = o;
            Ok(p)
        };
        if !k.plain() {
            return plan(outs).map(drop);
        }
        k.memo.call(
            &self.stream,
            &self.options(),
            args,
            outs,
            |r, stream, outs| self.replay_into(r, args, stream, outs),
            plan,
        )
    }

    /// The call's options as its fingerprint holds them (`call_memo.rs`).
    fn options(&self) -> [i64; 3] {
        [
            i64::from(self.size.is_some()),
            // The bit pattern: one to one over usize.
            self.size.unwrap_or(0) as i64,
            self.block.map_or(-1, i64::from),
        ]
    }

    /// A call with a remembered plan: outputs, packing, launch.
    fn replay(&self, r: &Replay, args: &[Operand<'_>], stream: &Stream) -> Result<Outputs> {
        let mut outs = Outputs::new();
        self.replay_into(r, args, stream, &mut outs)?;
        Ok(outs)
    }

    /// [`ElementwiseCall::replay`] into `outs` (empty).
    #[inline]
    fn replay_into(
        &self,
        r: &Replay,
        args: &[Operand<'_>],
        stream: &Stream,
        outs: &mut Outputs,
    ) -> Result<()> {
        let k = self.kernel;
        let counts = (k.spec.sig.nin, k.spec.sig.nout());
        replay_outputs(args, counts, &r.outputs, stream, outs)?;
        if let Some(p) = &r.launch {
            let outs: &Outputs = outs;
            let operand = |kk: usize| replay_operand(args, outs, counts.0, kk);
            k.fire(p, &r.dtypes, stream, operand)?;
        }
        Ok(())
    }

    /// The steps of `kernel/call.rs` around the elementwise plan; the outputs and what a
    /// repeat of this call can reuse.
    fn plan_and_run(&self, args: &[Operand<'_>]) -> Result<(Outputs, Replay)> {
        let k = self.kernel;
        let sig = &k.spec.sig;
        let args = bind(sig, Some(&k.input_at), args)?;
        let block = self.block_size_or_default()?;
        let stream = on_stream(sig, &args, &self.stream)?;
        let loop_shape = self.loop_shape(&args)?;
        let dtypes = resolve_dtypes(sig, &args)?;
        let rule = OutputRule {
            shape_is: "the loop shape is",
            raw_allocated: self.size.is_some(),
            raw_undecided: " and no size is set",
        };
        let outs = prepare_outputs(sig, &args, &dtypes, &loop_shape, &stream, &rule)?;
        if loop_shape.iter().product::<usize>() == 0 {
            let outputs = OutputPlan::new(loop_shape, dtypes.get(sig.nin..).unwrap_or(&[]));
            return Ok((
                outs,
                Replay {
                    dtypes,
                    outputs,
                    launch: None,
                },
            ));
        }
        let operand = |kk: usize| operand_at(&args, &outs, kk);
        let launch = Some(k.launch(dtypes.clone(), &loop_shape, block, &stream, &operand)?);
        let outputs = OutputPlan::new(loop_shape, dtypes.get(sig.nin..).unwrap_or(&[]));
        Ok((
            outs,
            Replay {
                dtypes,
                outputs,
                launch,
            },
        ))
    }

    /// The threads per block: the default, or the call's (1..=1024).
    fn block_size_or_default(&self) -> Result<u32> {
        Ok(match self.block {
            None => DEFAULT_BLOCK,
            Some(0) => bail!(InvalidArgument, "block_size must be greater than zero"),
            Some(b) if b > 1024 => bail!(
                InvalidArgument,
                "block_size must be at most 1024 (threads per block), got {b}"
            ),
            Some(b) => b,
        })
    }

    /// The loop shape: the given size (every array raw), or the broadcast shape of the
    /// non-raw arrays, inputs and given outputs.
    fn loop_shape(&self, args: &Bound<'_>) -> Result<Shape> {
        let sig = &self.kernel.spec.sig;
        let shapes = array_shapes(sig, args, true);
        match self.size {
            Some(_) if !shapes.is_empty() => bail!(
                InvalidArgument,
                "Specified 'size' can be used only if all of the arrays are 'raw' (kernel '{}' got non-raw array arguments)",
                sig.name
            ),
            Some(n) => Ok(Shape::from_elem(n, 1)),
            None if shapes.is_empty() => bail!(
                InvalidArgument,
                "Loop size is undecided. (kernel '{}' has no non-raw array argument: give a size)",
                sig.name
            ),
            None => broadcast_shapes(&shapes),
        }
    }
}

/// The grid and block of a plan's launch.
fn launch_config(plan: &Plan, block: u32) -> LaunchConfig {
    let b = block as usize;
    let cap = |x: usize, m: usize| x.clamp(1, m) as u32;
    let (grid, blk) = match plan.layout.class {
        LayoutClass::Contiguous => {
            let threads = plan.n.div_ceil(plan.layout.vec as usize);
            ((cap(threads.div_ceil(b), i32::MAX as usize), 1), (block, 1))
        }
        LayoutClass::Flat => ((cap(plan.n.div_ceil(b), i32::MAX as usize), 1), (block, 1)),
        LayoutClass::Rows => {
            let c = plan
                .shape
                .last()
                .copied()
                .unwrap_or(1)
                .div_ceil(plan.layout.vec as usize);
            let rows = plan.n / plan.shape.last().copied().unwrap_or(1).max(1);
            let bx = b.min(c.div_ceil(32) * 32).max(1);
            let by = (b / bx).max(1);
            (
                (
                    cap(c.div_ceil(bx), i32::MAX as usize),
                    cap(rows.div_ceil(by), 65535),
                ),
                (bx as u32, by as u32),
            )
        }
        LayoutClass::Tiled => {
            let nd = plan.shape.len();
            let (r, c) = (plan.shape[nd - 2], plan.shape[nd - 1]);
            let batches: usize = plan.shape[..nd - 2].iter().product();
            let tiles = batches * r.div_ceil(TILE) * c.div_ceil(TILE);
            (
                (cap(tiles, i32::MAX as usize), 1),
                (TILE as u32, TILE_ROWS as u32),
            )
        }
    };
    LaunchConfig {
        grid: (grid.0, grid.1, 1),
        block: (blk.0, blk.1, 1),
        shared_mem_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fusion's exact path takes only calls whose operands are what the kernel declares;
    /// any other call goes the general way (with its checks and errors).
    #[test]
    fn the_exact_path_takes_only_exact_calls() {
        let stream = Stream::for_device(Device::host()).unwrap();
        let host = Device::host();
        let arr = |shape: &[usize], d: DType| Array::empty_on(shape, d, &stream).unwrap();
        let k =
            ElementwiseKernel::new("float32 a, float64 s", "float32 o", "o = a * s", "ex").unwrap();
        let (x, out) = (arr(&[2, 3], DType::F32), arr(&[2, 3], DType::F32));
        let s = crate::array::Scalar::F64(2.0);
        let ok = [Operand::Array(&x), Operand::Scalar(s), Operand::Array(&out)];
        assert_eq!(k.exact_loop_shape(&ok, host), Some(&[2usize, 3][..]));
        // A broadcast input is exact: the loop is the output's shape.
        let row = arr(&[3], DType::F32);
        let bcast = [
            Operand::Array(&row),
            Operand::Scalar(s),
            Operand::Array(&out),
        ];
        assert_eq!(k.exact_loop_shape(&bcast, host), Some(&[2usize, 3][..]));
        // A scalar of another dtype, an output missing or of another shape, a read-only
        // output, an input of another dtype: the general path.
        let s32 = crate::array::Scalar::F32(2.0);
        let small = arr(&[3], DType::F32);
        let mut ro = arr(&[2, 3], DType::F32);
        ro.read_only = true;
        let wide = arr(&[2, 3], DType::F64);
        for ops in [
            vec![
                Operand::Array(&x),
                Operand::Scalar(s32),
                Operand::Array(&out),
            ],
            vec![Operand::Array(&x), Operand::Scalar(s)],
            vec![
                Operand::Array(&x),
                Operand::Scalar(s),
                Operand::Array(&small),
            ],
            vec![Operand::Array(&x), Operand::Scalar(s), Operand::Array(&ro)],
            vec![
                Operand::Array(&wide),
                Operand::Scalar(s),
                Operand::Array(&out),
            ],
        ] {
            assert_eq!(k.exact_loop_shape(&ops, host), None, "{}", ops.len());
        }
        // A placeholder type or a raw parameter: never exact.
        let t = ElementwiseKernel::new("T a", "T o", "o = a", "ex_t").unwrap();
        assert_eq!(
            t.exact_loop_shape(&[Operand::Array(&x), Operand::Array(&out)], host),
            None
        );
        let r = ElementwiseKernel::new("raw float32 a", "float32 o", "o = a[i]", "ex_r").unwrap();
        assert_eq!(
            r.exact_loop_shape(&[Operand::Array(&x), Operand::Array(&out)], host),
            None
        );
    }

    #[test]
    fn construction_errors() {
        let e = ElementwiseKernel::new("float32 x,", "float32 y", "y = x", "k").unwrap_err();
        assert_eq!(e.to_string(), "Syntax error: ");
        let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "1k").unwrap_err();
        assert_eq!(e.to_string(), "Invalid kernel name: \"1k\"");
        let e = ElementwiseKernel::new("float32 x", "foo T y", "y = x", "k").unwrap_err();
        assert_eq!(e.to_string(), "Unknown keyword \"foo\"");
        let e = ElementwiseKernel::new("float32 x", "floaty y", "y = x", "k").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("data type 'floaty' not understood"),
            "{e}"
        );
        let e = ElementwiseKernel::new("float32 i", "float32 y", "y = i", "k").unwrap_err();
        assert_eq!(e.to_string(), "Can not use 'i' as a parameter name");
        let k = ElementwiseKernel::new("T x, raw U r, float64 s", "T y, T w", "y = x; w = y", "k")
            .unwrap();
        assert_eq!((k.nin(), k.nout()), (3, 2));
        assert_eq!(k.analysis.reads, vec![true, false]);
    }

    fn inplace_kernel() -> ElementwiseKernel {
        ElementwiseKernel::new(
            "float32 x, float32 alpha",
            "float32 x",
            "x = x * alpha + 1",
            "inplace_transform",
        )
        .unwrap()
    }

    #[test]
    fn a_read_write_parameter_is_an_output_loaded_before_the_operation() {
        let k = inplace_kernel();
        assert_eq!(
            (k.nin(), k.nout(), k.spec.sig.nin, k.input_at.as_slice()),
            (2, 1, 1, &[1usize, 0][..])
        );
        assert_eq!(k.analysis.reads, vec![true]);
        // staged copies (vector registers, shared-memory tiles) load x first, then store it
        let l = Layout {
            class: LayoutClass::Contiguous,
            nd: 1,
            wide: false,
            vec: 4,
            tiled: 0,
            row_bcast: 0,
            unaligned: 0,
        };
        let slots = [Slot::Scalar, Slot::Array { idx: 0 }];
        let g = k.source_for(&[DType::F32; 2], &slots, l, 256).unwrap();
        let src = &g.source;
        assert!(
            src.contains("inplace_transform(const float alpha, float* _raw_x,"),
            "{src}"
        );
        assert!(
            src.contains("cuprum::Vec<float, 4> _v_x = *reinterpret_cast<const cuprum::Vec<float, 4>*>(_raw_x + _b);"),
            "{src}"
        );
        assert!(
            src.contains("*reinterpret_cast<cuprum::Vec<float, 4>*>(_raw_x + _b) = _v_x;"),
            "{src}"
        );
        // the schema is the signature: alpha by value, x's address, the 32-bit loop size
        assert_eq!(
            g.schema.to_string(),
            "a float32 scalar, a pointer, a 4-byte index"
        );
        let l = Layout {
            class: LayoutClass::Tiled,
            nd: 2,
            tiled: 3,
            vec: 1,
            ..l
        };
        let slots = [Slot::Array { idx: 0 }, Slot::Array { idx: 1 }];
        let g = k.source_for(&[DType::F32; 2], &slots, l, 256).unwrap();
        assert!(
            g.source.contains("_s_x[_k][threadIdx.x] = _raw_x["),
            "{}",
            g.source
        );
        assert!(
            g.source.contains("] = _s_x[_k][threadIdx.x];"),
            "{}",
            g.source
        );
        assert_eq!(
            g.schema.to_string(),
            "a pointer, a pointer, a 4-byte index, 6 integers of 4 bytes"
        );
    }

    #[test]
    fn generated_source_takes_the_declared_parameters() {
        let k = inplace_kernel();
        // one entry per declared parameter (inputs, then outputs)
        let src = k
            .generated_source(&[DType::F32; 3], &[false, true, false])
            .unwrap();
        assert!(src.contains("float& x = _raw_x[_b];"), "{src}");
        let e = k
            .generated_source(&[DType::F32; 2], &[false, true])
            .unwrap_err();
        assert!(e.to_string().contains("has 3 parameters"), "{e}");
        let e = k
            .generated_source(&[DType::F32, DType::F32, DType::F64], &[false, true, false])
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("'x' of 'inplace_transform' is read-write"),
            "{e}"
        );
    }
}
