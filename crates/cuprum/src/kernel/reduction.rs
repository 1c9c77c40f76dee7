//! [`ReductionKernel`]: map, reduce and post-map expressions in CUDA C++, reducing
//! broadcast arrays over any axes with the whole GPU (CuPy's `cupy.ReductionKernel`).

use super::call::{
    Specs, bind, check_args, launch_stream, push_args, resolve_dtypes, sample_slots,
};
use super::codegen::elementwise::Slot;
use super::codegen::reduction::{BLOCK, PARTIAL_BYTES, ReduceShape, ReductionSource, generate};
use super::operand::{Operand, Operands};
use super::params::{Param, ParamType, TypeMap, check_kernel_name, check_reserved, parse_params};
use super::scratch::scratch;
use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::{Result, bail};
use crate::runtime::{ArgPack, Function, LaunchConfig, Stream, launch};
use crate::shape::{
    Shape, Strides, broadcast_shapes, broadcast_strides, format_shape, merge_dims_of_views,
    normalize_axis,
};
use smallvec::SmallVec;

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
/// ```no_run
/// use cuprum::{Array, ReductionKernel};
/// let ssq = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "sum_of_squares")?;
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
/// assert_eq!(ssq.call((&x,))?.to_vec::<f32>()?, vec![55.0]);
/// let m = x.reshape(&[1, 5])?;
/// assert_eq!(ssq.axis(1).call((&m,))?.to_vec::<f32>()?, vec![55.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct ReductionKernel {
    name: String,
    params: Vec<Param>,
    nin: usize,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: Option<String>,
    reduce_type: Option<String>,
    preamble: String,
    options: CompileOptions,
    reduce_dims: bool,
    specs: Specs<SpecKey>,
}

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReductionKernel")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("map_expr", &self.map_expr)
            .field("reduce_expr", &self.reduce_expr)
            .field("post_map_expr", &self.post_map_expr)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SpecKey {
    device: usize,
    dtypes: SmallVec<[DType; 8]>,
    slots: SmallVec<[Slot; 8]>,
    shape: ReduceShape,
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
        let mut params = parse_params(in_params, true)?;
        let nin = params.len();
        params.extend(parse_params(out_params, false)?);
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
            name,
            params,
            nin,
            map_expr: map_expr.into(),
            reduce_expr: reduce_expr.into(),
            post_map_expr: post_map_expr.into(),
            identity: identity.map(str::to_owned),
            reduce_type: None,
            preamble: String::new(),
            options: CompileOptions::new(),
            reduce_dims: true,
            specs: Specs::new(),
        })
    }

    fn reset(mut self) -> Self {
        self.specs.clear();
        self
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
        self.reset()
    }

    /// Code placed before the kernel.
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let k = ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", Some("0"), "ssq")?
    ///     .preamble("template <typename T> __device__ T sq(T v) { return v * v; }");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn preamble(mut self, code: impl Into<String>) -> Self {
        self.preamble = code.into();
        self.reset()
    }

    /// Adds one NVRTC flag.
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let k = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "s")?.option("-lineinfo");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn option(mut self, flag: impl Into<String>) -> Self {
        self.options = self.options.option(flag);
        self.reset()
    }

    /// Replaces the compile options.
    ///
    /// ```
    /// use cuprum::{CompileOptions, ReductionKernel};
    /// let k = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "s")?
    ///     .options(CompileOptions::new());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn options(mut self, options: CompileOptions) -> Self {
        self.options = options;
        self.reset()
    }

    /// Whether dimensions are merged before launch (default true). Only changes the
    /// generated code, never the result.
    ///
    /// ```
    /// use cuprum::ReductionKernel;
    /// let k = ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "s")?.reduce_dims(false);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reduce_dims(mut self, on: bool) -> Self {
        self.reduce_dims = on;
        self.reset()
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of inputs.
    pub fn nin(&self) -> usize {
        self.nin
    }

    /// Number of outputs.
    pub fn nout(&self) -> usize {
        self.params.len() - self.nin
    }

    /// Reduces over every axis and returns the first output.
    ///
    /// ```no_run
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
    /// ```no_run
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
    /// ```no_run
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
        let p = &self.params[self.nin];
        match p.ty {
            ParamType::Placeholder(c) => c.to_string(),
            ParamType::Concrete(d) => d.c_type().to_owned(),
        }
    }

    /// The source of one specialisation.
    pub(crate) fn source_for(
        &self,
        dtypes: &[DType],
        slots: &[Slot],
        shape: ReduceShape,
    ) -> (String, Vec<crate::compile::SourceSpan>) {
        let mut tm = TypeMap::default();
        for (p, &d) in self.params.iter().zip(dtypes) {
            if let ParamType::Placeholder(c) = p.ty
                && tm.get(c).is_none()
            {
                tm.0.push((c, d));
            }
        }
        let w = generate(&ReductionSource {
            name: &self.name,
            params: &self.params,
            nin: self.nin,
            dtypes,
            slots,
            typedefs: &tm.typedefs(),
            preamble: &self.preamble,
            map_expr: &self.map_expr,
            reduce_expr: &self.reduce_expr,
            post_map_expr: &self.post_map_expr,
            identity: self.identity.as_deref(),
            reduce_type: &self.reduce_type_str(),
            shape,
        });
        (w.src, w.spans)
    }

    /// The CUDA source for parameter dtypes (one per parameter) as a full reduction of
    /// contiguous 1-D non-raw arrays (`scalars` marks by-value parameters): for
    /// inspection and compile checks without a GPU.
    ///
    /// ```
    /// use cuprum::{DType, ReductionKernel};
    /// let k = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "ssq")?;
    /// let src = k.generated_source(&[DType::F32; 2], &[false, false])?;
    /// assert!(src.contains("#define REDUCE(a, b)"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn generated_source(&self, dtypes: &[DType], scalars: &[bool]) -> Result<String> {
        let slots = sample_slots(&self.name, &self.params, dtypes, scalars)?;
        let shape = ReduceShape {
            outer: false,
            tx: 256,
            ty: 1,
            ndo: 0,
            ndr: 1,
            wide: false,
            unit: true,
            vec: 1,
        };
        Ok(self.source_for(dtypes, &slots, shape).0)
    }

    /// The parsed parameters, inputs first.
    pub(crate) fn params_for_samples(&self) -> Vec<Param> {
        self.params.clone()
    }

    fn function(&self, key: &SpecKey, stream: &Stream) -> Result<Function> {
        self.specs
            .get_or_compile(key, stream.device(), &self.name, &self.options, || {
                Ok(self.source_for(&key.dtypes, &key.slots, key.shape))
            })
    }
}

/// One configured call of a [`ReductionKernel`] (axes, keepdims, stream).
///
/// ```no_run
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

/// Layout of one call after merging.
struct Geometry {
    oshape: Shape,
    ost: SmallVec<[Strides; 8]>,
    rshape: Shape,
    rst: SmallVec<[Strides; 8]>,
    o: usize,
    r: usize,
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

    fn invoke(&self, args: &[Operand<'_>]) -> Result<SmallVec<[Array; 4]>> {
        let k = self.kernel;
        let nin = k.nin;
        let args = bind(&k.name, &k.params, nin, None, args)?;
        let stream = launch_stream(&self.stream, &args)?;
        let device = stream.device();
        check_args(&k.name, &k.params, &args, device)?;
        let shapes: SmallVec<[&[usize]; 8]> = args
            .inputs
            .iter()
            .zip(&k.params)
            .filter_map(|(a, p)| match a {
                Operand::Array(arr) if !p.raw => Some(arr.shape()),
                _ => None,
            })
            .collect();
        if shapes.is_empty() {
            bail!(
                InvalidArgument,
                "'{}' got no non-raw input array: the reduction's shape is undecided",
                k.name
            );
        }
        let in_shape = broadcast_shapes(&shapes)?;
        let dtypes = resolve_dtypes(&k.params, &args)?;
        // Axes.
        let nd = in_shape.len();
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
        let out_shape: Shape = if self.keepdims {
            in_shape
                .iter()
                .zip(&reduced)
                .map(|(&d, &r)| if r { 1 } else { d })
                .collect()
        } else {
            in_shape
                .iter()
                .zip(&reduced)
                .filter(|(_, r)| !**r)
                .map(|(&d, _)| d)
                .collect()
        };
        // Outputs.
        let mut outs: SmallVec<[Array; 4]> = SmallVec::new();
        for j in 0..k.nout() {
            let p = &k.params[nin + j];
            match args.outputs[j] {
                Some(a) => {
                    if !p.raw && a.shape() != out_shape.as_slice() {
                        bail!(
                            Shape,
                            "Out shape is mismatched: output '{}' has shape {}, the reduction gives {}",
                            p.name,
                            format_shape(a.shape()),
                            format_shape(&out_shape)
                        );
                    }
                    outs.push(a.clone());
                }
                None => {
                    if p.raw {
                        bail!(
                            InvalidArgument,
                            "Output array size is Undecided (raw output '{}' of '{}' is not given)",
                            p.name,
                            k.name
                        );
                    }
                    outs.push(Array::empty_on(&out_shape, dtypes[nin + j], &stream)?);
                }
            }
        }
        let o_size: usize = out_shape.iter().product();
        if o_size == 0 {
            return Ok(outs);
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
                k.name
            );
        }
        // Slots and strides.
        let operand = |kk: usize| -> Operand<'_> {
            if kk < nin {
                args.inputs[kk]
            } else {
                Operand::Array(&outs[kk - nin])
            }
        };
        let mut slots: SmallVec<[Slot; 8]> = SmallVec::new();
        let mut in_strides: SmallVec<[Strides; 8]> = SmallVec::new();
        let mut out_strides: SmallVec<[Strides; 8]> = SmallVec::new();
        for (kk, p) in k.params.iter().enumerate() {
            match operand(kk) {
                Operand::Array(a) if p.raw => slots.push(Slot::Raw { nd: a.ndim() }),
                Operand::Array(a) => {
                    slots.push(Slot::Array {
                        idx: in_strides.len() + out_strides.len(),
                    });
                    if kk < nin {
                        in_strides.push(broadcast_strides(a.shape(), a.strides(), &in_shape)?);
                    } else {
                        // Strides over the output axes only (keepdims' extent-1 axes dropped).
                        let st: Strides = if self.keepdims {
                            a.strides()
                                .iter()
                                .zip(&reduced)
                                .filter(|(_, r)| !**r)
                                .map(|(s, _)| *s)
                                .collect()
                        } else {
                            Strides::from_slice(a.strides())
                        };
                        out_strides.push(st);
                    }
                }
                Operand::Scalar(_) => slots.push(Slot::Scalar),
            }
        }
        let geo = geometry(
            &in_shape,
            &reduced,
            &in_strides,
            &out_strides,
            k.reduce_dims,
            o_size,
            r_size,
        );
        let sm = device.sm_count().max(1) as usize;
        let inputs: SmallVec<[(u64, usize); 8]> = k
            .params
            .iter()
            .take(nin)
            .zip(&args.inputs)
            .filter_map(|(p, a)| match a {
                Operand::Array(x) if !p.raw => Some((x.data_ptr(), x.itemsize())),
                _ => None,
            })
            .collect();
        let staged = k.params[..nin].iter().all(|p| p.is_const);
        let (shape, splits, chunk) = choose_shape(&geo, sm, &inputs, staged);
        let key = SpecKey {
            device: device.ordinal(),
            dtypes,
            slots,
            shape,
        };
        let f = k.function(&key, &stream)?;
        let out_blocks = geo.o.div_ceil(shape.outputs_per_block());
        let scr = if splits > 1 {
            Some(scratch(
                geo.o * splits * PARTIAL_BYTES,
                out_blocks,
                &stream,
            )?)
        } else {
            None
        };
        // Arguments.
        let mut pack = ArgPack::new();
        push_args(&mut pack, &k.name, &k.params, &key.dtypes, &stream, operand)?;
        push_meta(&mut pack, &geo, chunk, splits, shape.wide);
        let (pp, cp) = match &scr {
            Some(s) => (s.partials.ptr_on(&stream), s.counters.ptr_on(&stream)),
            None => (0u64, 0u64),
        };
        pack.push(pp);
        pack.push(cp);
        let cfg = LaunchConfig {
            grid: (out_blocks.min(i32::MAX as usize) as u32, splits as u32, 1),
            block: (shape.tx as u32, shape.ty as u32, 1),
            shared_mem_bytes: 0,
        };
        if out_blocks > i32::MAX as usize {
            bail!(
                Unsupported,
                "reduction with {} outputs needs more than 2^31 blocks",
                geo.o
            );
        }
        // SAFETY: the argument list follows the parameter list, slots and shape the kernel
        // was generated from (pointers / CArrays / scalars of the resolved dtypes, the meta
        // struct in the index width, the partials and counters); offsets stay inside the
        // operands' views (broadcast strides over the input shape, output strides over the
        // output shape); scratch holds `o * splits` partials of at most PARTIAL_BYTES and
        // `out_blocks` zeroed counters, kept alive (with the operands) past the
        // stream-ordered frees after this launch.
        unsafe { launch(&f, &cfg, &stream, &mut pack)? };
        drop(scr);
        Ok(outs)
    }
}

/// Splits the input strides into output and reduction parts and merges each.
fn geometry(
    in_shape: &[usize],
    reduced: &[bool],
    in_strides: &[Strides],
    out_strides: &[Strides],
    merge: bool,
    o: usize,
    r: usize,
) -> Geometry {
    // Full reduction of C-contiguous inputs: one reduced axis of unit stride, no merging.
    if merge
        && r > 0
        && reduced.iter().all(|&x| x)
        && in_strides
            .iter()
            .all(|s| crate::shape::is_c_contiguous_view(in_shape, s))
    {
        return Geometry {
            oshape: Shape::new(),
            ost: in_strides
                .iter()
                .chain(out_strides)
                .map(|_| Strides::new())
                .collect(),
            rshape: Shape::from_elem(r, 1),
            rst: in_strides
                .iter()
                .map(|_| Strides::from_elem(1, 1))
                .collect(),
            o,
            r,
        };
    }
    let pick = |want: bool, xs: &[usize]| -> Shape {
        xs.iter()
            .zip(reduced)
            .filter(|(_, r)| **r == want)
            .map(|(d, _)| *d)
            .collect()
    };
    let pick_s = |want: bool, xs: &[isize]| -> Strides {
        xs.iter()
            .zip(reduced)
            .filter(|(_, r)| **r == want)
            .map(|(d, _)| *d)
            .collect()
    };
    let oshape0 = pick(false, in_shape);
    let rshape0 = pick(true, in_shape);
    let mut ost0: SmallVec<[Strides; 8]> = in_strides.iter().map(|s| pick_s(false, s)).collect();
    ost0.extend(out_strides.iter().cloned());
    let rst0: SmallVec<[Strides; 8]> = in_strides.iter().map(|s| pick_s(true, s)).collect();
    let (oshape, ost, rshape, rst) = if merge {
        let orefs: SmallVec<[&[isize]; 8]> = ost0.iter().map(|s| s.as_slice()).collect();
        let rrefs: SmallVec<[&[isize]; 8]> = rst0.iter().map(|s| s.as_slice()).collect();
        let (os, ost) = merge_dims_of_views(&oshape0, &orefs);
        let (rs, rst) = if r == 0 {
            (
                Shape::from_elem(0, 1),
                rst0.iter().map(|_| Strides::from_elem(0, 1)).collect(),
            )
        } else {
            let (rs, rst) = merge_dims_of_views(&rshape0, &rrefs);
            (rs, rst.into_iter().collect())
        };
        (os, ost.into_iter().collect(), rs, rst)
    } else {
        (oshape0, ost0, rshape0, rst0)
    };
    Geometry {
        oshape,
        ost,
        rshape,
        rst,
        o,
        r,
    }
}

/// Picks the kernel shape and the number of splits per reduction.
/// Picks the kernel shape, the splits per reduction and the chunk each split reduces.
/// `inputs` are the non-raw inputs' addresses and item sizes; `staged` is false when an
/// input may be written (then no wide loads).
fn choose_shape(
    g: &Geometry,
    sm: usize,
    inputs: &[(u64, usize)],
    staged: bool,
) -> (ReduceShape, usize, usize) {
    let (ndo, ndr) = (g.oshape.len(), g.rshape.len());
    let span = |st: &Strides, sh: &Shape| -> usize {
        st.iter()
            .zip(sh.iter())
            .map(|(s, d)| s.unsigned_abs() * d.saturating_sub(1))
            .sum()
    };
    let wide = g.o.saturating_mul(g.r.max(1)) > i32::MAX as usize
        || g.ost
            .iter()
            .any(|s| span(s, &g.oshape) > i32::MAX as usize / 2)
        || g.rst
            .iter()
            .any(|s| span(s, &g.rshape) > i32::MAX as usize / 2);
    let first_out = g
        .ost
        .first()
        .and_then(|s| s.last())
        .map(|s| s.unsigned_abs());
    let first_red = g
        .rst
        .first()
        .and_then(|s| s.last())
        .map(|s| s.unsigned_abs());
    let outputs_contiguous = ndo > 0 && first_out == Some(1);
    let reduction_contiguous = ndr > 0 && first_red == Some(1);
    let (outer, tx) = if ndo > 0 && g.r < 32 {
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
    };
    let ty = BLOCK / tx;
    let unit = ndr == 1 && g.rst.iter().all(|s| s[0] == 1);
    // Wide loads along a unit-stride reduction when every input row start is aligned.
    let mut vec = if !outer && unit && staged && !inputs.is_empty() {
        (16 / inputs.iter().map(|i| i.1).max().unwrap_or(16)).clamp(1, 8)
    } else {
        1
    };
    let aligned = |v: usize| {
        inputs.iter().zip(g.ost.iter()).all(|(&(ptr, item), ost)| {
            ptr % (v * item) as u64 == 0 && ost.iter().all(|s| s % v as isize == 0)
        })
    };
    while vec > 1 && !aligned(vec) {
        vec /= 2;
    }
    if g.r < 4 * vec * tx {
        vec = 1;
    }
    let shape = ReduceShape {
        outer,
        tx: tx as u16,
        ty: ty as u16,
        ndo: ndo as u8,
        ndr: ndr as u8,
        wide,
        unit,
        vec: vec as u8,
    };
    let lanes = shape.lanes();
    let out_blocks = g.o.div_ceil(shape.outputs_per_block()).max(1);
    let want_blocks = sm * (2048 / BLOCK);
    let by_fill = want_blocks.div_ceil(out_blocks);
    // At least one unrolled step of loads per thread and split.
    let per_thread = if vec > 1 { 2 * vec } else { 8 };
    let by_work = g.r.div_ceil(lanes * per_thread).max(1);
    let mut splits = by_fill.min(by_work).clamp(1, 65535);
    let mut chunk = g.r;
    if splits > 1 {
        // Chunks start on a wide-load boundary.
        chunk = g.r.div_ceil(splits).div_ceil(vec) * vec;
        splits = g.r.div_ceil(chunk);
    }
    if splits <= 1 {
        splits = 1;
        chunk = g.r;
    }
    (shape, splits, chunk)
}

/// `cuprum_rmeta`: O, R, chunk, splits, then the output and reduction extents and strides.
fn push_meta(pack: &mut ArgPack, g: &Geometry, chunk: usize, splits: usize, wide: bool) {
    let mut b: SmallVec<[u8; 512]> = SmallVec::new();
    let mut put = |v: i64| {
        if wide {
            b.extend_from_slice(&v.to_ne_bytes());
        } else {
            b.extend_from_slice(&(v as i32).to_ne_bytes());
        }
    };
    for v in [g.o, g.r, chunk, splits] {
        put(v as i64);
    }
    let (ndo, ndr) = (g.oshape.len().max(1), g.rshape.len().max(1));
    for d in 0..ndo {
        put(g.oshape.get(d).copied().unwrap_or(1) as i64);
    }
    for a in 0..g.ost.len().max(1) {
        for d in 0..ndo {
            put(g.ost.get(a).and_then(|s| s.get(d)).copied().unwrap_or(0) as i64);
        }
    }
    for d in 0..ndr {
        put(g.rshape.get(d).copied().unwrap_or(1) as i64);
    }
    for a in 0..g.rst.len().max(1) {
        for d in 0..ndr {
            put(g.rst.get(a).and_then(|s| s.get(d)).copied().unwrap_or(0) as i64);
        }
    }
    pack.push_bytes(&b);
}
