//! [`ScanKernel`]: user-defined scans (prefix sums of any associative operator) in the
//! style of ElementwiseKernel and ReductionKernel. CuPy has none; `cuda.compute`'s
//! `inclusive_scan` / `exclusive_scan` in Python have the idea.
//!
//! **One engine.** A ScanKernel's programs are the built-in scan's programs (the kernel
//! layer's scan engine: `codegen/scan.rs` writes the one-pass decoupled look-back tile
//! scan, rows as segments, the coalesced axis scan, the column scan; `scan_engine.rs`
//! launches them) with other definitions of the names the engine reads: the input list,
//! the element type `Tin` (here a struct of one value per input), the map into the
//! accumulator `A`, the operator, the identity, the result conversion and the mode
//! (inclusive or exclusive). Nothing of the engine is copied, so a ScanKernel of `a + b`
//! over float32 is `cumsum`'s kernel with a different map (same tiles, same look-back,
//! same bytes moved), and every tuning of the engine applies to both.
//!
//! **Names.** The user's code (placeholder typedefs, preamble, the map, operator,
//! identity and post-map as functions) is placed in a namespace of its own
//! (`cuprum_user`), so a preamble may define `P`, `A` or `I` without meeting the engine's
//! names; a preamble therefore cannot `#include` (cuprum's headers are already there).
//!
//! **Accumulator size.** The engine's tile size depends on the accumulator's size: a
//! dtype (the output's, or `scan_type` given as a dtype name) has a known size; a C++ type
//! of the preamble does not, so its programs use the tiles of an 8-byte accumulator and
//! assert `sizeof(A) <= 32` (its look-back scratch is sized for that).
//!
//! **Calls.** Array inputs are broadcast together (non-contiguous ones are copied once, as
//! `cumsum` does); a scalar input is passed by value (converted to its parameter's dtype)
//! and every element sees it; at least one input must be an array. `axis(None)` (the default) scans the flattened array
//! into a 1-D result (NumPy's `cumsum` without an axis); an output given (`out=`) is
//! written in place when it is C-contiguous, else through a temporary.

use super::call::{Bound, OutputRule, Signature, array_shapes, bind, on_stream, prepare_outputs};
use super::codegen::prelude::PRELUDE;
use super::codegen::scan::{self as engine_src, ScanDefs, ScanShape, input_access};
use super::codegen::writer::SourceWriter;
use super::operand::{Operand, Operands};
use super::params::{
    ParamList, ParamType, TypeMap, check_kernel_name, check_reserved, parse_params,
};
use super::program::{Program, fits_u32, vec_width};
use super::scan_engine::{Engine, scan_into};
use super::spec::{BuilderParts, KernelSpec, builder_part_methods, kernel_spec_methods};
use super::tuned::{first_scan_shape, scan_shape};
use crate::array::{Array, DType, Scalar};
use crate::compile::SourceSpan;
use crate::error::{Result, bail, err};
use crate::runtime::Stream;
use crate::shape::broadcast_shapes;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

/// The largest accumulator of a C++ scan type whose size only the compiler knows.
const MAX_ACC: usize = 32;

/// A user-defined scan: `map_expr` maps each element of the (broadcast) inputs to the
/// accumulator type, `scan_expr` combines two accumulated values `a` (the earlier) and
/// `b` (the later) and must be associative (not necessarily commutative), `identity` is
/// neutral for it. The result at each position is the combination of every mapped
/// element up to it (inclusive) or before it ([`exclusive`](ScanCall::exclusive)), along
/// an axis or over the flattened array.
///
/// The accumulator is the output's type unless [`scan_type`](Self::scan_type) says
/// otherwise (a dtype name, or a C++ type of the preamble: a (value, flag) pair makes a
/// segmented scan). [`post_map`](Self::post_map) writes the output from `a` (default
/// `y = a`, with the output's name).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ScanKernel};
/// let running_max = ScanKernel::new("T x", "T y", "x", "a > b ? a : b", "-CUDART_INF_F", "running_max")?;
/// let x = Array::from_slice(&[1.0f32, 3.0, 2.0, 5.0, 4.0], &[5])?;
/// assert_eq!(running_max.call((&x,))?.to_vec::<f32>()?, vec![1.0, 3.0, 3.0, 5.0, 5.0]);
/// let sum = ScanKernel::new("T x", "T y", "x", "a + b", "0", "my_cumsum")?;
/// assert_eq!(sum.exclusive(true).call((&x,))?.to_vec::<f32>()?, vec![0.0, 1.0, 4.0, 6.0, 11.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct ScanKernel {
    /// The signature (the name and the parameters, inputs first), preamble and compile
    /// options.
    spec: KernelSpec,
    map_expr: String,
    scan_expr: String,
    identity: String,
    post_map_expr: Option<String>,
    scan_type: Option<String>,
    programs: Mutex<FxHashMap<ProgramKey, Compiled>>,
}

/// A compiled-on-first-use program and the lines of it that came from the user.
type Compiled = (Arc<Program>, Arc<Vec<SourceSpan>>);

/// What one program depends on besides the kernel's own strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ProgramKey {
    dtypes: SmallVec<[DType; 8]>,
    /// Per input: passed by value (a scalar argument).
    scalars: SmallVec<[bool; 8]>,
    wide: bool,
    exclusive: bool,
    /// The kernels' shapes (the device's tuning).
    shape: ScanShape,
}

impl std::fmt::Debug for ScanKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanKernel")
            .field("name", &self.spec.sig.name)
            .field("params", &self.spec.sig.params)
            .field("map_expr", &self.map_expr)
            .field("scan_expr", &self.scan_expr)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl ScanKernel {
    /// Defines a scan. Checks the parameter lists (the grammar of
    /// [`ElementwiseKernel`](crate::ElementwiseKernel); one output, no `raw` parameters,
    /// `a` and `b` reserved), the expressions and identity (not empty) and the name now;
    /// compiles on first call, where a compile error points at the part it came from.
    ///
    /// ```
    /// use cuprum::ScanKernel;
    /// let e = ScanKernel::new("T x", "T y", "x", "a + b", "", "s").unwrap_err();
    /// assert!(e.to_string().contains("needs an identity"), "{e}");
    /// let e = ScanKernel::new("T x", "T y, T z", "x", "a + b", "0", "s").unwrap_err();
    /// assert!(e.to_string().contains("one output parameter"), "{e}");
    /// ```
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: impl Into<String>,
        scan_expr: impl Into<String>,
        identity: impl Into<String>,
        name: impl Into<String>,
    ) -> Result<ScanKernel> {
        let name = name.into();
        check_kernel_name(&name)?;
        let mut params = parse_params(in_params, ParamList::Inputs)?;
        let nin = params.len();
        params.extend(parse_params(out_params, ParamList::Outputs)?);
        if nin == 0 {
            bail!(
                InvalidArgument,
                "ScanKernel '{name}' needs at least one input parameter (in_params is empty)"
            );
        }
        if params.len() != nin + 1 {
            bail!(
                InvalidArgument,
                "ScanKernel '{name}' has {} output parameters ({out_params:?}); a scan writes \
                 one output parameter",
                params.len() - nin
            );
        }
        if let Some(p) = params.iter().find(|p| p.raw) {
            bail!(
                InvalidArgument,
                "ScanKernel '{name}': parameter '{}' is raw; a scan reads and writes every \
                 element in order, so its parameters cannot be raw",
                p.name
            );
        }
        if params[..nin].iter().any(|p| p.name == params[nin].name) {
            bail!(
                InvalidArgument,
                "ScanKernel '{name}': '{}' is both an input and the output; give the output \
                 another name (pass the same array as input and output to scan in place)",
                params[nin].name
            );
        }
        check_reserved(&params, &["a", "b"], ": scan_expr and post_map use a and b")?;
        let (map_expr, scan_expr, identity) = (map_expr.into(), scan_expr.into(), identity.into());
        for (part, text, example) in [
            ("map expression", &map_expr, "\"x\""),
            ("scan expression", &scan_expr, "\"a + b\""),
        ] {
            if text.trim().is_empty() {
                bail!(
                    InvalidArgument,
                    "ScanKernel '{name}' needs a {part} (e.g. {example}); given an empty string"
                );
            }
        }
        if identity.trim().is_empty() {
            bail!(
                InvalidArgument,
                "ScanKernel '{name}' needs an identity: the value the scan starts from, neutral \
                 for the scan expression (\"0\" for a + b, \"-CUDART_INF_F\" for a running \
                 maximum); given an empty string"
            );
        }
        Ok(ScanKernel {
            spec: KernelSpec::new(Signature { name, params, nin }),
            map_expr,
            scan_expr,
            identity,
            post_map_expr: None,
            scan_type: None,
            programs: Mutex::default(),
        })
    }

    /// A scan defined by its named parts instead of positional strings; the same checks
    /// as [`new`](Self::new), after an error naming the first missing part.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ScanKernel};
    /// let k = ScanKernel::builder("weighted_cumsum")
    ///     .inputs("T x, T w")
    ///     .outputs("T y")
    ///     .map("x * w")
    ///     .scan("a + b")
    ///     .identity("0")
    ///     .build()?;
    /// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let w = Array::from_slice(&[2.0f64, 0.5, 1.0], &[3])?;
    /// assert_eq!(k.call((&x, &w))?.to_vec::<f64>()?, vec![2.0, 3.0, 6.0]);
    /// let e = ScanKernel::builder("k").inputs("T x").outputs("T y").map("x").build().unwrap_err();
    /// assert!(e.to_string().contains("needs its scan expression"), "{e}");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn builder(name: impl Into<String>) -> ScanBuilder {
        ScanBuilder {
            parts: BuilderParts::new(name.into()),
            ..ScanBuilder::default()
        }
    }

    /// After the definition changed: forgets every compiled program.
    fn refresh(&mut self) {
        self.programs
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The accumulator type: a dtype name (`"float64"`) or a C++ type (a preamble's
    /// struct). Default: the output's type.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ScanKernel};
    /// // A segmented sum: (value, starts-a-segment) pairs, restarting at each flag.
    /// let seg = ScanKernel::new("T x, bool f", "T y", "Seg{x, f}",
    ///         "b.f ? b : Seg{a.v + b.v, a.f}", "Seg{0, false}", "segmented_sum")?
    ///     .preamble("struct Seg { float v; bool f; };")
    ///     .scan_type("Seg")
    ///     .post_map("y = a.v");
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
    /// let f = Array::from_slice(&[true, false, true, false, false], &[5])?;
    /// assert_eq!(seg.call((&x, &f))?.to_vec::<f32>()?, vec![1.0, 3.0, 3.0, 7.0, 12.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn scan_type(mut self, ty: impl Into<String>) -> Self {
        self.scan_type = Some(ty.into());
        self.refresh();
        self
    }

    /// What writes the output from the accumulated value `a` (default: `"y = a"` with the
    /// output's name; the accumulator converts to the output's type).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ScanKernel};
    /// let k = ScanKernel::new("T x", "T y", "x", "a + b", "0", "doubled_cumsum")?.post_map("y = 2 * a");
    /// let x = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(k.call((&x,))?.to_vec::<i32>()?, vec![2, 6, 12]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn post_map(mut self, expr: impl Into<String>) -> Self {
        self.post_map_expr = Some(expr.into());
        self.refresh();
        self
    }

    /// Number of inputs.
    pub fn nin(&self) -> usize {
        self.spec.sig.nin
    }

    /// Scans the flattened inputs (inclusive) and returns the 1-D result. Arguments: the
    /// inputs, then optionally the output (written in place: `out=`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ScanKernel};
    /// let prod = ScanKernel::new("T x", "T y", "x", "a * b", "1", "my_cumprod")?;
    /// let x = Array::from_slice(&[1i64, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(prod.call((&x,))?.to_vec::<i64>()?, vec![1, 2, 6, 24]);
    /// let out = Array::zeros(&[4], DType::I64)?;
    /// prod.call((&x, &out))?;
    /// assert_eq!(out.to_vec::<i64>()?, vec![1, 2, 6, 24]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        self.config().call(args)
    }

    /// A call scanning along `axis` (`None`: the flattened array; negative axes count from
    /// the end).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ScanKernel};
    /// let sum = ScanKernel::new("T x", "T y", "x", "a + b", "0", "my_cumsum")?;
    /// let m = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(sum.axis(Some(1)).call((&m,))?.to_vec::<i32>()?, vec![1, 3, 6, 4, 9, 15]);
    /// assert_eq!(sum.axis(Some(0)).call((&m,))?.to_vec::<i32>()?, vec![1, 2, 3, 5, 7, 9]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn axis(&self, axis: Option<isize>) -> ScanCall<'_> {
        self.config().axis(axis)
    }

    /// A call of the exclusive scan (each position gets the combination of the elements
    /// before it; the first gets the identity).
    pub fn exclusive(&self, on: bool) -> ScanCall<'_> {
        self.config().exclusive(on)
    }

    /// A call on a given stream (the output is allocated on it).
    pub fn stream(&self, stream: &Stream) -> ScanCall<'_> {
        self.config().stream(stream)
    }

    fn config(&self) -> ScanCall<'_> {
        ScanCall {
            kernel: self,
            axis: None,
            exclusive: false,
            stream: None,
        }
    }

    /// The program of one specialisation, with its user spans.
    fn program(&self, key: &ProgramKey) -> Compiled {
        let mut t = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = t.get(key) {
            return c.clone();
        }
        let (source, spans) = self.source(key);
        let opts = self
            .spec
            .options
            .clone()
            .program_name(format!("{}.cu", self.spec.sig.name));
        let c = (Arc::new(Program::new(source, opts)), Arc::new(spans));
        t.insert(key.clone(), c.clone());
        c
    }

    /// The accumulator's C++ type and its size when known.
    fn acc_type(&self, out: DType) -> (String, Option<usize>) {
        match &self.scan_type {
            None => (out.c_type().to_owned(), Some(out.itemsize())),
            // a dtype's full name only: `float` is C++'s float here, never NumPy's float64
            Some(t) => match DType::ALL.iter().find(|d| d.name() == t.trim()) {
                Some(d) => (d.c_type().to_owned(), Some(d.itemsize())),
                None => (t.clone(), None),
            },
        }
    }

    /// The engine's sizes for a specialisation (see the module doc): the accumulator's
    /// size (or bound) and the elements per vector load.
    fn sizes(&self, dtypes: &[DType]) -> (usize, usize) {
        let out = dtypes[self.spec.sig.nin];
        let known = self.acc_type(out).1;
        let acc = known.unwrap_or(MAX_ACC);
        let vec = dtypes
            .iter()
            .map(|d| vec_width(d.itemsize()))
            .min()
            .unwrap_or(1);
        (acc, vec)
    }

    /// The CUDA source of one specialisation and the spans of the user's text in it.
    fn source(&self, key: &ProgramKey) -> (String, Vec<SourceSpan>) {
        let sig = &self.spec.sig;
        let (ins, outp) = (&sig.params[..sig.nin], &sig.params[sig.nin]);
        let out_d = key.dtypes[sig.nin];
        let mut tm = TypeMap::default();
        for (p, &d) in sig.params.iter().zip(&key.dtypes) {
            if let ParamType::Placeholder(c) = p.ty
                && tm.get(c).is_none()
            {
                tm.0.push((c, d));
            }
        }
        let (acc, known) = self.acc_type(out_d);
        let (acc_bytes, vec) = self.sizes(&key.dtypes);
        let mut w = SourceWriter::default();
        w.push(PRELUDE);
        // what every generated kernel's code sees (`SourceWriter::prologue`): cuprum's
        // helpers and CUDA's math constants (`CUDART_INF_F` ...)
        w.push("#include <cuprum/all.cuh>\n#include <cuprum/math_constants.cuh>\n");
        w.push("namespace cuprum_user {\n");
        w.push(&tm.typedefs());
        w.user("preamble", &self.spec.preamble);
        if self.scan_type.is_some() && known.is_none() {
            w.user_line("scan_type", "typedef ", &acc, " _scan_t;");
        } else {
            let _ = writeln!(w.src, "typedef {acc} _scan_t;");
        }
        w.push("struct _raw {");
        for (p, d) in ins.iter().zip(&key.dtypes) {
            let _ = write!(w.src, " {} {};", d.c_type(), p.name);
        }
        w.push(" };\n__device__ __forceinline__ _scan_t _map(const _raw& _r) {\n");
        for (p, d) in ins.iter().zip(&key.dtypes) {
            let n = &p.name;
            let _ = match d {
                // a bool input is the value of its byte (indexer.cuh's `as_bool`)
                DType::Bool => writeln!(w.src, "  const bool {n} = cuprum::as_bool(_r.{n});"),
                d => writeln!(w.src, "  const {} {n} = _r.{n};", d.c_type()),
            };
        }
        w.push("  return static_cast<_scan_t>(\n");
        w.user("map_expr", self.map_expr.trim());
        w.push("  ); }\n__device__ __forceinline__ _scan_t _op(const _scan_t& a, const _scan_t& b) {\n  return (\n");
        w.user("scan_expr", self.scan_expr.trim());
        w.push("  ); }\n__device__ __forceinline__ _scan_t _ident() {\n  return _scan_t(\n");
        w.user("identity", self.identity.trim());
        let out_c = out_d.c_type();
        let _ = write!(
            w.src,
            "  ); }}\n__device__ __forceinline__ {out_c} _post(const _scan_t& a) {{\n  {out_c} {};\n",
            outp.name
        );
        let default_post = format!("{} = a", outp.name);
        let post = self.post_map_expr.as_deref().unwrap_or(&default_post);
        w.user_line(
            "post_map_expr",
            "  ",
            post.trim().trim_end_matches(';'),
            ";",
        );
        let _ = writeln!(
            w.src,
            "  return {}; }}\n}}  // namespace cuprum_user",
            outp.name
        );
        w.push(&engine_src::defs(&ScanDefs {
            tin: "cuprum_user::_raw",
            acc: "cuprum_user::_scan_t",
            tout: out_c,
            wide: key.wide,
            op: "(cuprum_user::_op((a), (b)))",
            load: "cuprum_user::_map(x)",
            ident: "cuprum_user::_ident()",
            out: "cuprum_user::_post(a)",
            exclusive: key.exclusive,
            vec,
            acc_bytes,
            assert_acc: true,
            shape: key.shape,
        }));
        let inputs: Vec<(&str, DType, bool)> = ins
            .iter()
            .zip(&key.dtypes)
            .zip(&key.scalars)
            .map(|((p, &d), &s)| (p.name.as_str(), d, s))
            .collect();
        w.push(&input_access(&inputs));
        w.push(engine_src::BODY);
        (w.src, w.spans)
    }

    /// The CUDA source of the specialisation for parameter dtypes (one per parameter,
    /// inputs first), for inspection and compile checks without a GPU.
    ///
    /// ```
    /// use cuprum::{DType, ScanKernel};
    /// let k = ScanKernel::new("T x", "T y", "x", "a > b ? a : b", "-CUDART_INF_F", "running_max")?;
    /// let src = k.generated_source(&[DType::F32; 2], false)?;
    /// assert!(src.contains("cuprum_scan_v") && src.contains("a > b ? a : b"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn generated_source(&self, dtypes: &[DType], exclusive: bool) -> Result<String> {
        self.source_for(dtypes, &[], exclusive)
    }

    /// [`generated_source`](Self::generated_source) with the inputs marked in `scalars`
    /// (one flag per input; missing flags are arrays) passed by value, as a call with
    /// scalar arguments compiles it (`fuse`'s `explain`).
    pub(crate) fn source_for(
        &self,
        dtypes: &[DType],
        scalars: &[bool],
        exclusive: bool,
    ) -> Result<String> {
        let sig = &self.spec.sig;
        if dtypes.len() != sig.params.len() {
            bail!(
                InvalidArgument,
                "'{}' has {} parameters; got {} dtypes",
                sig.name,
                sig.params.len(),
                dtypes.len()
            );
        }
        let mut tm = TypeMap::default();
        for (p, &d) in sig.params.iter().zip(dtypes) {
            tm.bind(p, d)?;
        }
        let key = ProgramKey {
            dtypes: dtypes.iter().copied().collect(),
            scalars: (0..sig.nin)
                .map(|k| scalars.get(k).copied().unwrap_or(false))
                .collect(),
            wide: false,
            exclusive,
            // a `ScanKernel` keeps the shapes of its accumulator's size for any inputs
            shape: {
                let acc = self.sizes(dtypes).0;
                first_scan_shape(acc, acc)
            },
        };
        Ok(self.source(&key).0)
    }
}

kernel_spec_methods!(
    ScanKernel,
    new: r#"ScanKernel::new("T x", "T y", "x", "a + b", "0", "my_cumsum")?"#,
    name: "my_cumsum",
    with_sq: r#"ScanKernel::new("T x", "T y", "sq(x)", "a + b", "0", "cum_sq")?"#,
);

/// A [`ScanKernel`] by named parts: see [`ScanKernel::builder`]. Inputs, outputs, map,
/// scan and identity are needed; the preamble, scan type and post-map are optional.
#[derive(Debug, Clone, Default)]
pub struct ScanBuilder {
    parts: BuilderParts,
    scan: Option<String>,
    preamble: Option<String>,
    scan_type: Option<String>,
}

builder_part_methods!(
    ScanBuilder,
    outputs: "The output parameter (`\"T y\"`).",
    map: "The value each element contributes (e.g. `\"x * w\"`).",
    post_map: "What writes the output from `a` ([`ScanKernel::post_map`]).",
    identity: "The C++ value the scan starts from (neutral for `scan`, e.g. `\"0\"`).",
);

impl ScanBuilder {
    /// How the accumulated `a` and the next `b` combine (associative, e.g. `"a + b"`).
    pub fn scan(mut self, expr: impl Into<String>) -> Self {
        self.scan = Some(expr.into());
        self
    }

    /// Code placed before the scan (types, helper functions).
    pub fn preamble(mut self, code: impl Into<String>) -> Self {
        self.preamble = Some(code.into());
        self
    }

    /// The accumulator type ([`ScanKernel::scan_type`]).
    pub fn scan_type(mut self, ty: impl Into<String>) -> Self {
        self.scan_type = Some(ty.into());
        self
    }

    /// The kernel, or an error naming the first missing part (then the errors of
    /// [`ScanKernel::new`]).
    pub fn build(mut self) -> Result<ScanKernel> {
        const KIND: &str = "ScanKernel";
        let p = &mut self.parts;
        let (inputs, outputs, map) = p.required(KIND, "output parameter")?;
        let scan = p.need(KIND, self.scan, "scan expression", "scan(\"a + b\")")?;
        let identity = p.identity.take();
        let identity = p.need(KIND, identity, "identity", "identity(\"0\")")?;
        let name = std::mem::take(&mut p.name);
        let mut k = ScanKernel::new(&inputs, &outputs, map, scan, identity, name)?;
        if let Some(c) = self.preamble {
            k = k.preamble(c);
        }
        if let Some(t) = self.scan_type {
            k = k.scan_type(t);
        }
        if let Some(m) = p.post_map.take() {
            k = k.post_map(m);
        }
        Ok(k)
    }
}

/// One configured call of a [`ScanKernel`] (axis, inclusive or exclusive, stream).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ScanKernel};
/// let sum = ScanKernel::new("T x", "T y", "x", "a + b", "0", "my_cumsum")?;
/// let m = Array::ones(&[2, 3], DType::F32)?;
/// let c = sum.axis(Some(-1)).exclusive(true).call((&m,))?;
/// assert_eq!(c.to_vec::<f32>()?, vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ScanCall<'k> {
    kernel: &'k ScanKernel,
    axis: Option<isize>,
    exclusive: bool,
    stream: Option<Stream>,
}

impl ScanCall<'_> {
    /// Scans along `axis` (`None`: the flattened array).
    pub fn axis(mut self, axis: Option<isize>) -> Self {
        self.axis = axis;
        self
    }

    /// Exclusive (`true`) or inclusive (`false`, the default) scan.
    pub fn exclusive(mut self, on: bool) -> Self {
        self.exclusive = on;
        self
    }

    /// Runs on `stream` (the output is allocated on it).
    pub fn stream(mut self, stream: &Stream) -> Self {
        self.stream = Some(stream.clone());
        self
    }

    /// Runs the scan: the inputs, then optionally the output.
    pub fn call(&self, args: impl Operands) -> Result<Array> {
        let ops = args.operands();
        let k = self.kernel;
        let sig = &k.spec.sig;
        let bound = bind(sig, None, &ops)?;
        let stream = on_stream(sig, &bound, &self.stream)?;
        let shape = broadcast_shapes(&array_shapes(sig, &bound, false))?;
        let dtypes = super::call::resolve_dtypes(sig, &bound)?;
        let inputs = split_inputs(sig, &bound, &dtypes)?;
        stream.with(|| self.run(&bound, &inputs, &shape, &dtypes, &stream))
    }

    /// The call on its stream (current): the output, the program, the engine.
    fn run(
        &self,
        bound: &Bound<'_>,
        inputs: &Inputs<'_>,
        shape: &[usize],
        dtypes: &[DType],
        stream: &Stream,
    ) -> Result<Array> {
        let k = self.kernel;
        let sig = &k.spec.sig;
        let ax = self
            .axis
            .map(|a| crate::shape::normalize_axis(a, shape.len()))
            .transpose()?;
        let n: usize = shape.iter().product();
        let out_shape = match ax {
            None => vec![n],
            Some(_) => shape.to_vec(),
        };
        let rule = OutputRule {
            shape_is: "the scan gives",
            raw_allocated: false,
            raw_undecided: "",
        };
        let outs = prepare_outputs(sig, bound, dtypes, &out_shape, stream, &rule)?;
        let arrays: Vec<Array> = inputs
            .arrays
            .iter()
            .map(|a| a.broadcast_to(shape))
            .collect::<Result<_>>()?;
        let (acc, vec) = k.sizes(dtypes);
        let key = ProgramKey {
            dtypes: dtypes.iter().copied().collect(),
            scalars: inputs.scalar.clone(),
            wide: !fits_u32(n),
            exclusive: self.exclusive,
            shape: scan_shape(stream.device(), acc, acc)?,
        };
        let (prog, spans) = k.program(&key);
        let engine = |_wide: bool| Engine {
            prog: prog.clone(),
            acc,
            vec,
            values: inputs.values.clone(),
            shape: key.shape,
            // One array input: its stage copies are asynchronous (`stages_async`).
            staged: key.scalars.len() == 1 && !key.scalars[0],
        };
        scan_into(&arrays, dtypes[sig.nin], self.axis, Some(&outs[0]), &engine)
            .map_err(|e| e.with_spans(&spans))
    }
}

/// A call's inputs as the engine takes them: the arrays, then the values, in parameter
/// order within each group; `scalar` marks each parameter passed by value.
struct Inputs<'a> {
    arrays: SmallVec<[&'a Array; 8]>,
    values: Vec<Scalar>,
    scalar: SmallVec<[bool; 8]>,
}

/// Splits the bound inputs into arrays and values (each scalar converted to its
/// parameter's dtype by NumPy's assignment rules); at least one input must be an array.
fn split_inputs<'a>(sig: &Signature, bound: &Bound<'a>, dtypes: &[DType]) -> Result<Inputs<'a>> {
    let mut inputs = Inputs {
        arrays: SmallVec::new(),
        values: Vec::new(),
        scalar: SmallVec::new(),
    };
    for (k, (a, p)) in bound.inputs.iter().zip(&sig.params).enumerate() {
        match a {
            Operand::Array(arr) => inputs.arrays.push(*arr),
            Operand::Scalar(s) => inputs.values.push(
                s.cast(dtypes[k])
                    .map_err(|e| err!(DType, "argument '{}' of '{}': {e}", p.name, sig.name))?,
            ),
            Operand::Record(r) => bail!(
                Unsupported,
                "ScanKernel '{}': argument '{}' is a {} value (a device type); a scan's scalar \
                 inputs are numbers (pass an array of records instead)",
                sig.name,
                p.name,
                r.record().name()
            ),
            Operand::Texture(_) => bail!(
                Unsupported,
                "ScanKernel '{}': argument '{}' is a texture object; only ElementwiseKernel \
                 takes texture objects as operands",
                sig.name,
                p.name
            ),
        }
        inputs.scalar.push(matches!(a, Operand::Scalar(_)));
    }
    if inputs.arrays.is_empty() {
        bail!(
            InvalidArgument,
            "ScanKernel '{}': every input was given a scalar; a scan runs over an array, so \
             pass at least one",
            sig.name
        );
    }
    Ok(inputs)
}
