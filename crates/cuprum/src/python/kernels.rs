//! The kernel classes as Python sees them, with CuPy's signatures: `ElementwiseKernel`,
//! `ReductionKernel`, `RawKernel`, `RawModule` — each a thin face over the Rust kernel of
//! the same name (the grammar, the dtype rules, the checks and the errors are the Rust
//! kernel's).
//!
//! Arguments: device arrays (`cuprum.ndarray`, or anything with `__dlpack__`: PyTorch,
//! CuPy, JAX, imported without a copy on the caller's stream, `call.rs`), Python and NumPy
//! scalars typed as CuPy types them (`convert.rs`). A NumPy array is host memory: on a GPU
//! it is refused as CuPy refuses it (`TypeError: Unsupported type <class 'numpy.ndarray'>`),
//! on the host device it is the device's own memory.
//!
//! A call whose arguments are all `cuprum.ndarray`s on one device, without keywords, binds
//! them in place ([`own_operands`]: borrowed, no `Call`, on that device's current stream as
//! `Call` would choose it): the common call from Python pays no import or stream logic.
//!
//! `RawKernel` arguments follow CuPy's typing where it is sound and cuprum's checks where
//! CuPy would pass garbage: a Python `int` takes the width of its parameter (4 or 8 bytes,
//! range-checked), a `float` is a double (into a 4-byte parameter it is an error naming
//! `numpy.float32(x)`, not a misread value), NumPy scalars pass their bytes, `None` a null
//! pointer, arrays their data address (a non-contiguous view is refused, as in Rust), a
//! `cuprum.cuda.MemoryPointer` its address. Both classes pickle (`pickling.rs`).

use super::array::PyArray;
use super::call::Call;
use super::convert;
use super::errors::type_name;
use super::memory::MemoryPointer;
use super::pickling::Recipe;
use crate::array::{Array, DType, Scalar};
use crate::error::err;
use crate::kernel::{
    ArgKind, ArgValue, Axes, Dim3, ElementwiseKernel, IntoOperand, KernelArg, KernelArgs, Operand,
    Outputs, RawKernel, RawModule, ReductionKernel,
};
use crate::runtime::Stream;
use pyo3::Borrowed;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use smallvec::SmallVec;

/// One argument of a generated kernel's call, owned.
pub(crate) enum Arg {
    Array(Array),
    Scalar(Scalar),
    Texture(crate::texture::TextureObject),
}

impl IntoOperand for Arg {
    fn operand(&self) -> Operand<'_> {
        match self {
            Arg::Array(a) => Operand::Array(a),
            Arg::Scalar(s) => Operand::Scalar(*s),
            Arg::Texture(t) => Operand::Texture(t),
        }
    }
}

/// The arguments of one call from Python, imported on the call's device and stream.
pub(crate) fn bind_args(call: &Call, args: &[Bound<'_, PyAny>]) -> PyResult<Vec<Arg>> {
    args.iter().map(|a| bind_arg(call, a)).collect()
}

fn bind_arg(call: &Call, obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    // cuprum's own arrays first (the common case): one type check, no scalar probing.
    if obj.is_exact_instance_of::<PyArray>() {
        return Ok(Arg::Array(call.array(obj)?));
    }
    if let Some(s) = convert::scalar(obj)? {
        return Ok(Arg::Scalar(s));
    }
    if let Ok(t) = obj.cast::<super::texture::PyTextureObject>() {
        return Ok(Arg::Texture(t.get().object.clone()));
    }
    if convert::is_numpy_array(obj)? && !call.device().addresses_host_memory() {
        return Err(PyTypeError::new_err(format!(
            "Unsupported type {} (host memory: move it to the GPU with cuprum.asarray first)",
            class_repr(obj)
        )));
    }
    Ok(Arg::Array(call.array(obj)?))
}

/// The operands of a generated kernel's call: cuprum's own arrays borrowed from their
/// Python objects (no copy of the view), every other argument bound as [`bind_args`] binds
/// it and kept in `held`.
pub(crate) fn operands_of<'a>(
    call: &Call,
    args: &'a [Bound<'_, PyAny>],
    held: &'a mut SmallVec<[Arg; 4]>,
) -> PyResult<SmallVec<[Operand<'a>; 8]>> {
    for a in args {
        if !a.is_exact_instance_of::<PyArray>() {
            held.push(bind_arg(call, a)?);
        }
    }
    let held: &'a SmallVec<[Arg; 4]> = held;
    let mut rest = held.iter();
    let mut ops = SmallVec::new();
    for a in args {
        match call.own(a)? {
            Some(array) => ops.push(Operand::Array(array)),
            None => match rest.next() {
                Some(arg) => ops.push(arg.operand()),
                None => return Err(err!(InvalidArgument, "an argument was not bound").into()),
            },
        }
    }
    Ok(ops)
}

/// The arguments of a call given as `cuprum.ndarray`s alone, all on one device, as
/// operands that borrow their arrays (no `Call`: an array's device and that device's
/// current stream are what `Call` would choose for it). `None` when any argument is
/// something else or the devices differ: the general path binds them, with its errors.
pub(crate) fn own_operands<'a>(
    items: &'a [Borrowed<'_, '_, PyAny>],
) -> Option<SmallVec<[Operand<'a>; 8]>> {
    let mut ops = SmallVec::new();
    own_arrays(items.iter().copied(), &mut ops).then_some(ops)
}

/// [`own_operands`] of a call's argument tuple, read in place (no list of its items), into
/// `ops` (empty; a list of operands is a few hundred bytes, not moved): false when they
/// are not all `cuprum.ndarray`s of one device.
fn own_tuple_operands<'a>(
    args: &'a Bound<'_, PyTuple>,
    ops: &mut SmallVec<[Operand<'a>; 8]>,
) -> bool {
    own_arrays(args.iter_borrowed(), ops)
}

/// Pushes the arrays of `items` onto `ops` as operands; false when one is not a
/// `cuprum.ndarray` or they are on several devices (see [`own_operands`]).
fn own_arrays<'a>(
    items: impl Iterator<Item = Borrowed<'a, 'a, PyAny>>,
    ops: &mut SmallVec<[Operand<'a>; 8]>,
) -> bool {
    let mut device = None;
    // The class's type object, looked up once (not once per argument).
    let mut class = None;
    for a in items {
        let ty =
            *class.get_or_insert_with(|| <PyArray as pyo3::PyTypeInfo>::type_object_raw(a.py()));
        if a.get_type_ptr() != ty {
            return false;
        }
        // SAFETY: `a` is exactly a `cuprum.ndarray` (checked just above), whose Python
        // objects are `PyArray`s.
        let array = &unsafe { a.cast_unchecked::<PyArray>() }.get().array;
        let d = array.device();
        if *device.get_or_insert(d) != d {
            return false;
        }
        ops.push(Operand::Array(array));
    }
    true
}

/// `<class 'numpy.ndarray'>`, as Python prints a type.
fn class_repr(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| type_name(obj))
}

/// A `Call` over the array arguments (cuprum's current stream when there is none): not
/// scalars, `None`, memory pointers, texture or surface objects.
pub(super) fn call_for(args: &[Bound<'_, PyAny>]) -> PyResult<Call> {
    let mut arrays: SmallVec<[&Bound<'_, PyAny>; 8]> = SmallVec::new();
    for a in args {
        if a.is_exact_instance_of::<PyArray>()
            || (!a.is_none()
                && !convert::is_scalar(a)?
                && !a.is_instance_of::<MemoryPointer>()
                && super::texture::handle_of(a).is_none())
        {
            arrays.push(a);
        }
    }
    Call::new(&arrays)
}

/// The stream a call names (`stream=`): an object with `ptr` (cuprum's or CuPy's stream),
/// or an integer handle; `None` keeps the call's stream.
pub(crate) fn stream_arg(obj: Option<&Bound<'_, PyAny>>, call: &Call) -> PyResult<Option<Stream>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if let Some(s) = super::cuda::stream_of(obj) {
        return Ok(Some(s));
    }
    let handle: usize = match obj.getattr(pyo3::intern!(obj.py(), "ptr")) {
        Ok(p) => p.extract()?,
        Err(_) => obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "stream must be a cuprum.cuda.Stream (or an object with `ptr`), got {}",
                type_name(obj)
            ))
        })?,
    };
    Ok(Some(super::stream::borrow(call.device(), handle)?))
}

/// The arrays a kernel returned, as CuPy returns them: one array, or a tuple.
/// `out` is taken in place (emptied): a list of arrays is a few hundred bytes.
fn results(py: Python<'_>, out: &mut Outputs, tuple: bool) -> PyResult<Py<PyAny>> {
    if out.len() == 1 && !tuple {
        // `pop` moves the one array out once (an iterator would move the list first).
        return match out.pop() {
            Some(a) => super::array::wrap(py, a),
            None => Err(err!(Launch, "no result").into()),
        };
    }
    let items: PyResult<Vec<Bound<'_, PyAny>>> = out
        .drain(..)
        .map(|a| super::array::wrap(py, a).map(|o| o.into_bound(py)))
        .collect();
    Ok(PyTuple::new(py, items?)?.into_any().unbind())
}

/// Compile options as strings (`options=('-O3', '--use_fast_math')`).
fn options(opts: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if opts.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(s) = opts.extract::<String>() {
        return Ok(vec![s]);
    }
    opts.try_iter()?
        .map(|o| o.and_then(|o| o.extract()))
        .collect()
}

/// CuPy's `ElementwiseKernel(in_params, out_params, operation, name='kernel', ...)`.
#[pyclass(name = "ElementwiseKernel", module = "cuprum", frozen)]
pub struct PyElementwiseKernel {
    kernel: ElementwiseKernel,
    name: String,
    no_return: bool,
    return_tuple: bool,
}

#[pymethods]
impl PyElementwiseKernel {
    #[new]
    #[pyo3(signature = (in_params, out_params, operation, name="kernel", reduce_dims=true,
        preamble="", no_return=false, return_tuple=false, *, loop_prep="", after_loop="",
        options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
        reduce_dims: bool,
        preamble: &str,
        no_return: bool,
        return_tuple: bool,
        loop_prep: &str,
        after_loop: &str,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut k = ElementwiseKernel::new(in_params, out_params, operation, name)?
            .reduce_dims(reduce_dims)
            .preamble(preamble)
            .loop_prep(loop_prep)
            .after_loop(after_loop);
        if let Some(o) = options {
            for flag in self::options(o)? {
                k = k.option(flag);
            }
        }
        Ok(PyElementwiseKernel {
            kernel: k,
            name: name.to_owned(),
            no_return,
            return_tuple,
        })
    }

    /// `k(*args, size=None, block_size=None, stream=None)`: inputs, then optionally the
    /// outputs; returns the output (a tuple for several), or None with `no_return`.
    #[pyo3(signature = (*args, size=None, block_size=None, stream=None))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        size: Option<i64>,
        block_size: Option<u32>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let (nin, nout) = (self.kernel.nin(), self.kernel.nout());
        if size.is_none() && block_size.is_none() && stream.is_none() {
            let given = args.len();
            let mut ops = SmallVec::new();
            if (given == nin || given == nin + nout) && own_tuple_operands(args, &mut ops) {
                let mut out = Outputs::new();
                self.kernel.outputs(&ops, &mut out)?;
                if self.no_return {
                    return Ok(py.None());
                }
                return results(py, &mut out, self.return_tuple);
            }
        }
        let args: SmallVec<[Bound<'_, PyAny>; 8]> = args.iter().collect();
        if args.len() != nin && args.len() != nin + nout {
            return Err(PyTypeError::new_err(format!(
                "Wrong number of arguments for '{}'. It must be either {nin} or {} (with \
                 outputs), but given {}.",
                self.name,
                nin + nout,
                args.len()
            )));
        }
        let call = call_for(&args)?;
        let mut held = SmallVec::new();
        let operands = operands_of(&call, &args, &mut held)?;
        let stream = stream_arg(stream, &call)?;
        let mut c = self.kernel.stream(stream.as_ref().unwrap_or(call.stream()));
        if let Some(n) = size.filter(|&n| n >= 0) {
            c = c.size(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(b) = block_size {
            c = c.block_size(b);
        }
        let mut out = Outputs::new();
        c.outputs(&operands, &mut out)?;
        if self.no_return {
            return Ok(py.None());
        }
        results(py, &mut out, self.return_tuple)
    }

    /// The kernel's name.
    #[getter]
    fn __name__(&self) -> &str {
        &self.name
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    #[getter]
    fn nin(&self) -> usize {
        self.kernel.nin()
    }

    #[getter]
    fn nout(&self) -> usize {
        self.kernel.nout()
    }

    #[getter]
    fn nargs(&self) -> usize {
        self.kernel.nin() + self.kernel.nout()
    }

    fn __repr__(&self) -> String {
        format!("<ElementwiseKernel '{}'>", self.name)
    }
}

/// CuPy's `ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr,
/// identity, name='reduce_kernel', ...)`.
#[pyclass(name = "ReductionKernel", module = "cuprum", frozen)]
pub struct PyReductionKernel {
    kernel: ReductionKernel,
    name: String,
}

#[pymethods]
impl PyReductionKernel {
    #[new]
    #[pyo3(signature = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
        name="reduce_kernel", reduce_type=None, reduce_dims=true, preamble="", options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: Option<&Bound<'_, PyAny>>,
        name: &str,
        reduce_type: Option<&str>,
        reduce_dims: bool,
        preamble: &str,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let identity = match identity.filter(|i| !i.is_none()) {
            Some(i) => Some(i.str()?.to_string()),
            None => None,
        };
        let mut k = ReductionKernel::new(
            in_params,
            out_params,
            map_expr,
            reduce_expr,
            post_map_expr,
            identity.as_deref(),
            name,
        )?
        .reduce_dims(reduce_dims)
        .preamble(preamble);
        if let Some(t) = reduce_type {
            k = k.reduce_type(t);
        }
        if let Some(o) = options {
            for flag in self::options(o)? {
                k = k.option(flag);
            }
        }
        Ok(PyReductionKernel {
            kernel: k,
            name: name.to_owned(),
        })
    }

    /// `k(*args, out=None, axis=None, keepdims=False, stream=None)`.
    #[pyo3(signature = (*args, out=None, axis=None, keepdims=false, stream=None))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        out: Option<&Bound<'_, PyAny>>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let (nin, nout) = (self.kernel.nin(), self.kernel.nout());
        let given_out = out.filter(|o| !o.is_none());
        if given_out.is_none() && axis.is_none_or(|a| a.is_none()) && stream.is_none() {
            let given = args.len();
            let mut ops = SmallVec::new();
            if (given == nin || given == nin + nout) && own_tuple_operands(args, &mut ops) {
                let mut out = Outputs::new();
                self.kernel.keepdims(keepdims).outputs(&ops, &mut out)?;
                return results(py, &mut out, false);
            }
        }
        let mut args: SmallVec<[Bound<'_, PyAny>; 8]> = args.iter().collect();
        let fits = match given_out {
            Some(_) => args.len() == nin,
            None => args.len() == nin || args.len() == nin + nout,
        };
        if !fits {
            return Err(PyTypeError::new_err(format!(
                "Wrong number of arguments for {}",
                self.name
            )));
        }
        if let Some(o) = given_out {
            args.push(o.clone());
        }
        let call = call_for(&args)?;
        let mut held = SmallVec::new();
        let operands = operands_of(&call, &args, &mut held)?;
        let stream = stream_arg(stream, &call)?;
        let mut c = self
            .kernel
            .stream(stream.as_ref().unwrap_or(call.stream()))
            .keepdims(keepdims);
        if let Some(a) = axis.filter(|a| !a.is_none()) {
            c = c.axis(axes(a)?);
        }
        let mut out = Outputs::new();
        c.outputs(&operands, &mut out)?;
        results(py, &mut out, false)
    }

    #[getter]
    fn __name__(&self) -> &str {
        &self.name
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!("<ReductionKernel '{}'>", self.name)
    }
}

/// cuprum's `ScanKernel(in_params, out_params, map_expr, scan_expr, identity,
/// name='scan_kernel', post_map_expr='', scan_type=None, preamble='', options=())` (CuPy
/// has none; it follows `ReductionKernel`'s form), called as
/// `k(*args, out=None, axis=None, exclusive=False, stream=None)`.
#[pyclass(name = "ScanKernel", module = "cuprum", frozen)]
pub struct PyScanKernel {
    kernel: crate::ScanKernel,
    name: String,
}

#[pymethods]
impl PyScanKernel {
    #[new]
    #[pyo3(signature = (in_params, out_params, map_expr, scan_expr, identity,
        name="scan_kernel", post_map_expr="", scan_type=None, preamble="", options=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        scan_expr: &str,
        identity: &Bound<'_, PyAny>,
        name: &str,
        post_map_expr: &str,
        scan_type: Option<&str>,
        preamble: &str,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let identity = identity.str()?.to_string();
        let mut k =
            crate::ScanKernel::new(in_params, out_params, map_expr, scan_expr, identity, name)?
                .preamble(preamble);
        if !post_map_expr.is_empty() {
            k = k.post_map(post_map_expr);
        }
        if let Some(t) = scan_type {
            k = k.scan_type(t);
        }
        if let Some(o) = options {
            for flag in self::options(o)? {
                k = k.option(flag);
            }
        }
        Ok(PyScanKernel {
            kernel: k,
            name: name.to_owned(),
        })
    }

    /// `k(*args, out=None, axis=None, exclusive=False, stream=None)`: the inputs (and
    /// optionally the output); `axis=None` scans the flattened array.
    #[pyo3(signature = (*args, out=None, axis=None, exclusive=false, stream=None))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        out: Option<&Bound<'_, PyAny>>,
        axis: Option<isize>,
        exclusive: bool,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let mut args: Vec<Bound<'_, PyAny>> = args.iter().collect();
        let nin = self.kernel.nin();
        let given_out = out.filter(|o| !o.is_none());
        let fits = match given_out {
            Some(_) => args.len() == nin,
            None => args.len() == nin || args.len() == nin + 1,
        };
        if !fits {
            return Err(PyTypeError::new_err(format!(
                "Wrong number of arguments for {}",
                self.name
            )));
        }
        if let Some(o) = given_out {
            args.push(o.clone());
        }
        let call = call_for(&args)?;
        let bound = bind_args(&call, &args)?;
        let operands: Vec<Operand<'_>> = bound.iter().map(Arg::operand).collect();
        let stream = match stream_arg(stream, &call)? {
            Some(s) => s,
            None => call.stream().clone(),
        };
        let c = self.kernel.stream(&stream).axis(axis).exclusive(exclusive);
        results(py, &mut smallvec::smallvec![c.call(operands)?], false)
    }

    #[getter]
    fn __name__(&self) -> &str {
        &self.name
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!("<ScanKernel '{}'>", self.name)
    }
}

/// `axis=` as cuprum's axes: an int or a tuple of ints.
pub(crate) fn axes(obj: &Bound<'_, PyAny>) -> PyResult<Axes> {
    if let Ok(a) = obj.extract::<isize>() {
        return Ok(Axes(SmallVec::from_slice(&[a])));
    }
    let v: Vec<isize> = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "axis must be an int or a tuple of ints, got {}",
            type_name(obj)
        ))
    })?;
    Ok(Axes(SmallVec::from_vec(v)))
}

/// CuPy's `RawKernel(code, name, options=(), backend='nvrtc', ...)`.
#[pyclass(name = "RawKernel", module = "cuprum", frozen)]
pub struct PyRawKernel {
    pub(crate) kernel: RawKernel,
    pub(crate) code: String,
    /// What makes it again (pickling).
    pub(crate) recipe: Recipe,
}

#[pymethods]
impl PyRawKernel {
    #[new]
    #[pyo3(signature = (code, name, options=None, backend="nvrtc", *,
        translate_cucomplex=false, enable_cooperative_groups=false, jitify=None))]
    fn new(
        code: &str,
        name: &str,
        options: Option<&Bound<'_, PyAny>>,
        backend: &str,
        translate_cucomplex: bool,
        enable_cooperative_groups: bool,
        jitify: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        jitify_arg(jitify)?;
        let translated = translate_cucomplex.then(|| super::cucomplex::translate(code));
        let source = translated.as_deref().unwrap_or(code);
        let mut k = RawKernel::new(source, name)
            .backend(backend_of(backend)?)
            .cooperative(enable_cooperative_groups);
        let flags = match options {
            Some(o) => self::options(o)?,
            None => Vec::new(),
        };
        for flag in &flags {
            k = k.option(flag.clone());
        }
        Ok(PyRawKernel {
            kernel: k,
            code: code.to_owned(),
            recipe: Recipe::Kernel {
                code: source.to_owned(),
                name: name.to_owned(),
                options: flags,
                backend: backend.to_owned(),
                cooperative: enable_cooperative_groups,
            },
        })
    }

    /// Pickling: `RawKernel(...)` again from its arguments (a kernel of a module: the
    /// module's `get_function(name)`).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        slf.get().recipe.reduce(slf.py(), &slf.get_type())
    }

    /// Whether the kernel was made with `enable_cooperative_groups=True`.
    #[getter]
    fn enable_cooperative_groups(&self) -> bool {
        self.recipe.cooperative()
    }

    /// The compile options given.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.recipe.options(py)
    }

    /// `k(grid, block, args, *, shared_mem=0, stream=None)`: `grid` and `block` are tuples
    /// of up to three ints (each at least 1).
    #[pyo3(signature = (grid, block, args, *, shared_mem=0, stream=None))]
    fn __call__(
        &self,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        shared_mem: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        launch_raw(&self.kernel, grid, block, args, shared_mem, stream)
    }

    #[getter]
    fn __name__(&self) -> &str {
        self.kernel.name()
    }

    #[getter]
    fn name(&self) -> &str {
        self.kernel.name()
    }

    #[getter]
    fn code(&self) -> &str {
        &self.code
    }

    /// The kernel's attributes (compiled for the current device first), CuPy's keys.
    #[getter]
    fn attributes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = self.kernel.attributes()?;
        let d = PyDict::new(py);
        d.set_item("max_threads_per_block", a.max_threads_per_block)?;
        d.set_item("shared_size_bytes", a.shared_size_bytes)?;
        d.set_item("const_size_bytes", a.const_size_bytes)?;
        d.set_item("local_size_bytes", a.local_size_bytes)?;
        d.set_item("num_regs", a.num_regs)?;
        d.set_item("ptx_version", a.ptx_version)?;
        d.set_item("binary_version", a.binary_version)?;
        d.set_item(
            "max_dynamic_shared_size_bytes",
            a.max_dynamic_shared_size_bytes,
        )?;
        d.set_item(
            "preferred_shared_memory_carveout",
            a.preferred_shared_memory_carveout,
        )?;
        d.set_item("cache_mode_ca", a.cache_mode_ca)?;
        Ok(d)
    }

    #[getter]
    fn max_threads_per_block(&self) -> PyResult<i32> {
        Ok(self.kernel.attributes()?.max_threads_per_block)
    }

    #[getter]
    fn num_regs(&self) -> PyResult<i32> {
        Ok(self.kernel.attributes()?.num_regs)
    }

    #[getter]
    fn shared_size_bytes(&self) -> PyResult<i32> {
        Ok(self.kernel.attributes()?.shared_size_bytes)
    }

    #[getter]
    fn local_size_bytes(&self) -> PyResult<i32> {
        Ok(self.kernel.attributes()?.local_size_bytes)
    }

    #[getter]
    fn max_dynamic_shared_size_bytes(&self) -> PyResult<i32> {
        Ok(self.kernel.attributes()?.max_dynamic_shared_size_bytes)
    }

    #[setter]
    fn set_max_dynamic_shared_size_bytes(&self, bytes: usize) -> PyResult<()> {
        Ok(self.kernel.set_max_dynamic_shared_memory(bytes)?)
    }

    /// Compiles the kernel for the current device now (it compiles on first use anyway).
    /// `log_stream` (CuPy's: anything with `write`) gets the compiler's log (NVRTC's
    /// warnings); a failed compile's log is in the exception.
    #[pyo3(signature = (log_stream=None))]
    fn compile(&self, log_stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        match log_stream.filter(|l| !l.is_none()) {
            None => Ok(self.kernel.compile()?),
            Some(stream) => write_log(stream, &self.kernel.compile_log()?),
        }
    }

    fn __repr__(&self) -> String {
        format!("<RawKernel '{}'>", self.kernel.name())
    }
}

/// CuPy's `jitify=`: `True` is refused (cuprum compiles with NVRTC directly), `False`
/// given explicitly warns as CuPy 14 warns (Jitify is deprecated), `None` is nothing.
pub(super) fn jitify_arg(jitify: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(j) = jitify.filter(|j| !j.is_none()) else {
        return Ok(());
    };
    if j.is_truthy()? {
        return Err(err!(
            Unsupported,
            "jitify=True is not supported (cuprum uses NVRTC directly)"
        )
        .into());
    }
    let py = j.py();
    let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
    PyErr::warn(
        py,
        &category,
        c"The jitify argument is deprecated (CuPy 14): Avoid passing jitify=False (cuprum \
          never uses Jitify)",
        1,
    )
}

/// Writes a compile's log to CuPy's `log_stream` (an object with `write`).
fn write_log(stream: &Bound<'_, PyAny>, log: &str) -> PyResult<()> {
    stream.call_method1(pyo3::intern!(stream.py(), "write"), (log,))?;
    Ok(())
}

fn backend_of(name: &str) -> PyResult<crate::kernel::Backend> {
    match name {
        "nvrtc" => Ok(crate::kernel::Backend::Nvrtc),
        "nvcc" => Ok(crate::kernel::Backend::Nvcc),
        other => Err(PyValueError::new_err(format!(
            "Invalid backend {other}: expected 'nvrtc' or 'nvcc'"
        ))),
    }
}

/// A grid or block: a tuple of 1 to 3 ints, each taken as `max(1, d)` (CuPy's padding).
pub(super) fn dim3(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Dim3> {
    let t = obj.cast::<PyTuple>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a tuple of up to 3 ints, got {}",
            type_name(obj)
        ))
    })?;
    if t.is_empty() || t.len() > 3 {
        return Err(PyValueError::new_err(format!(
            "{what} must have 1 to 3 dimensions, got {}",
            t.len()
        )));
    }
    let mut d = [1u32; 3];
    for (i, v) in t.iter_borrowed().enumerate() {
        let n: i64 = v.extract()?;
        d[i] = u32::try_from(n.max(1)).map_err(|_| {
            PyValueError::new_err(format!("{what}[{i}] = {n} is too large (at most 2^32 - 1)"))
        })?;
    }
    Ok(Dim3(d[0], d[1], d[2]))
}

/// One raw kernel argument, owned (see the module docs).
pub(super) enum RawArg {
    Array(Array),
    Bytes(SmallVec<[u8; 16]>, &'static str),
}

impl KernelArg for RawArg {
    fn to_arg(&self) -> ArgValue {
        match self {
            RawArg::Array(a) => a.to_arg(),
            RawArg::Bytes(b, name) => ArgValue {
                bytes: b.clone(),
                kind: ArgKind::Value,
                type_name: name,
                view: None,
            },
        }
    }

    fn to_arg_on(&self, stream: &Stream) -> ArgValue {
        match self {
            RawArg::Array(a) => a.to_arg_on(stream),
            RawArg::Bytes(..) => self.to_arg(),
        }
    }

    fn device(&self) -> Option<crate::Device> {
        match self {
            RawArg::Array(a) => Some(a.device()),
            RawArg::Bytes(..) => None,
        }
    }
}

/// A launch's arguments, owned, in order (kept inline for up to eight: no allocation per
/// argument on the launch path).
pub(super) type RawArgs = SmallVec<[RawArg; 8]>;

/// Borrowed: a launch reads the arguments where they were packed (the list, arrays inline,
/// is most of a kilobyte, and moving it into the launch was a copy a call).
impl KernelArgs for &RawArgs {
    fn collect_args(&self, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(KernelArg::to_arg));
    }
    fn collect_args_on(&self, stream: &Stream, out: &mut SmallVec<[ArgValue; 8]>) {
        out.extend(self.iter().map(|a| a.to_arg_on(stream)));
    }
    fn devices(&self) -> Vec<Option<crate::Device>> {
        self.iter().map(KernelArg::device).collect()
    }
}

/// Launches `kernel` with Python arguments (shared by RawKernel and RawModule functions):
/// each argument converted, checked against its parameter and packed in one step
/// (`Launch::start`), cuprum's own arrays read in place.
pub(crate) fn launch_raw(
    kernel: &RawKernel,
    grid: &Bound<'_, PyAny>,
    block: &Bound<'_, PyAny>,
    args: &Bound<'_, PyAny>,
    shared_mem: usize,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let (grid, block) = (dim3(grid, "grid")?, dim3(block, "block")?);
    let args = args.cast::<PyTuple>().map_err(|_| {
        PyTypeError::new_err(format!("args must be a tuple, got {}", type_name(args)))
    })?;
    if stream.is_none()
        && let Some(done) = launch_plain(kernel, (grid, block), args, shared_mem)
    {
        return done;
    }
    let args: SmallVec<[Bound<'_, PyAny>; 8]> = args.iter().collect();
    let call = call_for(&args)?;
    let given = stream_arg(stream, &call)?;
    let stream = given.as_ref().unwrap_or(call.stream());
    let mut each = kernel
        .configure(grid, block)
        .shared_mem(shared_mem)
        .start(stream, args.len())?;
    // Imported arrays stay alive until the launch is queued (then their stream-ordered
    // frees wait for it).
    let mut held: SmallVec<[RawArg; 4]> = SmallVec::new();
    for (i, a) in args.iter().enumerate() {
        if let Some(array) = call.own(a)? {
            each.check_device(i, array.device())?;
            each.push_array(array)?;
            continue;
        }
        let arg = raw_arg(&call, a, each.next_size(), i)?;
        if let Some(d) = arg.device() {
            each.check_device(i, d)?;
        }
        each.push(&arg.to_arg_on(stream))?;
        held.push(arg);
    }
    each.launch()?;
    drop(held);
    Ok(())
}

/// The common launch, in one pass over the arguments: no `stream=`, each argument a
/// `cuprum.ndarray` (exactly), a Python int, float or bool, or a NumPy scalar, the arrays
/// on one device (at least one). Launched on the first array's device's current stream,
/// as [`launch_raw`]'s general path does. `None` — nothing launched — hands anything else
/// to that path, which then gives the same results and messages; an error here is one
/// that path raises too (the kernel's, an argument's size).
fn launch_plain(
    kernel: &RawKernel,
    (grid, block): (Dim3, Dim3),
    args: &Bound<'_, PyTuple>,
    shared_mem: usize,
) -> Option<PyResult<()>> {
    let first = args
        .iter_borrowed()
        .find(|a| a.is_exact_instance_of::<PyArray>())?;
    let device = first.cast::<PyArray>().ok()?.get().array.device();
    let stream = match Stream::for_device(device) {
        Ok(s) => s,
        Err(e) => return Some(Err(e.into())),
    };
    let started = kernel
        .configure(grid, block)
        .shared_mem(shared_mem)
        .start(&stream, args.len());
    let mut each = match started {
        Ok(each) => each,
        Err(e) => return Some(Err(e.into())),
    };
    for (i, a) in args.iter_borrowed().enumerate() {
        let pushed = if a.is_exact_instance_of::<PyArray>() {
            let array = &a.cast::<PyArray>().ok()?.get().array;
            if array.device() != device {
                return None;
            }
            each.push_array(array).map_err(PyErr::from)
        } else {
            match plain_scalar(&a, each.next_size(), i) {
                Ok(Some((bytes, name))) => each.push_value(&bytes, name).map_err(PyErr::from),
                Ok(None) => return None,
                Err(e) => Err(e),
            }
        };
        if let Err(e) = pushed {
            return Some(Err(e));
        }
    }
    Some(each.launch().map_err(PyErr::from))
}

/// A scalar argument's bytes and the type name its messages give.
pub(super) type ValueBytes = (SmallVec<[u8; 16]>, &'static str);

/// A Python int, float or bool (exactly those types) or a NumPy scalar as a raw
/// argument's bytes (as [`raw_arg`] packs them); `None` for anything else.
fn plain_scalar(
    obj: &Bound<'_, PyAny>,
    size: Option<usize>,
    i: usize,
) -> PyResult<Option<ValueBytes>> {
    let python = obj.is_exact_instance_of::<pyo3::types::PyInt>()
        || obj.is_exact_instance_of::<pyo3::types::PyFloat>()
        || obj.is_exact_instance_of::<pyo3::types::PyBool>();
    if python && let Some(s) = convert::python_scalar(obj)? {
        return python_value(s, size, i).map(Some);
    }
    Ok(convert::numpy_scalar(obj)?.map(|s| {
        let (bytes, len) = s.to_bytes();
        (SmallVec::from_slice(&bytes[..len]), s.dtype().name())
    }))
}

/// The launch of arguments already packed for `kernel` (`launch_raw`'s, or a `cuprum.jit`
/// signature's native packing): on the stream `stream=` names, else the call's.
pub(super) fn launch_packed(
    kernel: &RawKernel,
    call: &Call,
    (grid, block): (Dim3, Dim3),
    packed: &RawArgs,
    shared_mem: usize,
    stream: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let stream = stream_arg(stream, call)?;
    let mut l = kernel.configure(grid, block).shared_mem(shared_mem);
    if let Some(s) = &stream {
        l = l.stream(s);
    }
    Ok(l.launch(packed)?)
}

pub(super) fn raw_arg(
    call: &Call,
    obj: &Bound<'_, PyAny>,
    size: Option<usize>,
    i: usize,
) -> PyResult<RawArg> {
    // The common case first: a cuprum array is none of the scalars and pointers below.
    if obj.is_instance_of::<PyArray>() {
        return Ok(RawArg::Array(call.array(obj)?));
    }
    if let Ok(p) = obj.cast::<MemoryPointer>() {
        return Ok(RawArg::Array(p.get().tail()));
    }
    if obj.is_none() {
        return Ok(RawArg::Bytes(
            SmallVec::from_slice(&0u64.to_le_bytes()),
            "None (null pointer)",
        ));
    }
    if let Some((handle, name)) = super::texture::handle_of(obj) {
        return Ok(RawArg::Bytes(
            SmallVec::from_slice(&handle.to_le_bytes()),
            name,
        ));
    }
    if let Some(s) = convert::python_scalar(obj)? {
        return python_value(s, size, i).map(|(b, n)| RawArg::Bytes(b, n));
    }
    if let Some(s) = convert::numpy_scalar(obj)? {
        let (bytes, len) = s.to_bytes();
        return Ok(RawArg::Bytes(
            SmallVec::from_slice(&bytes[..len]),
            s.dtype().name(),
        ));
    }
    if convert::is_numpy_array(obj)? && !call.device().addresses_host_memory() {
        return Err(PyTypeError::new_err(format!(
            "argument {i}: Unsupported type {} (host memory: move it to the GPU with \
             cuprum.asarray first)",
            class_repr(obj)
        )));
    }
    Ok(RawArg::Array(call.array(obj)?))
}

/// A Python scalar as a raw kernel argument: an int in its parameter's width, a float as a
/// double, a bool as one byte, a complex as two doubles.
pub(super) fn python_value(s: Scalar, size: Option<usize>, i: usize) -> PyResult<ValueBytes> {
    let (target, name) = match (s, size) {
        (Scalar::I64(_) | Scalar::U64(_), Some(4)) => (DType::I32, "int (as 32 bits)"),
        (Scalar::I64(_) | Scalar::U64(_), Some(2)) => (DType::I16, "int (as 16 bits)"),
        (Scalar::I64(_) | Scalar::U64(_), Some(1)) => (DType::I8, "int (as 8 bits)"),
        (Scalar::I64(_), _) => (DType::I64, "int"),
        (Scalar::U64(_), _) => (DType::U64, "int"),
        (Scalar::F64(_), Some(4)) => {
            return Err(err!(
                Launch,
                "argument {i} is a Python float (8 bytes, a double) but the kernel's \
                 parameter {i} is 4 bytes: pass numpy.float32(x) for a float parameter"
            )
            .into());
        }
        (s, _) => (s.dtype(), s.dtype().name()),
    };
    let v = match (s, target) {
        (Scalar::U64(u), DType::I32 | DType::I16 | DType::I8) => {
            // Unsigned parameters of that width take the value too.
            let unsigned = match target {
                DType::I32 => DType::U32,
                DType::I16 => DType::U16,
                _ => DType::U8,
            };
            Scalar::U64(u).cast(unsigned)
        }
        (s, t) => int_into(s, t),
    }
    .map_err(|_| {
        err!(
            Launch,
            "argument {i}: {} does not fit in the kernel's {}-byte parameter {i}",
            s.to_f64(),
            size.unwrap_or(8)
        )
    })?;
    let (bytes, len) = v.to_bytes();
    Ok((SmallVec::from_slice(&bytes[..len]), name))
}

/// `s` as `t` when the value fits (a negative int also fits an unsigned parameter's bit
/// pattern of that width, as C's conversion).
fn int_into(s: Scalar, t: DType) -> crate::Result<Scalar> {
    match (s, t) {
        (Scalar::I64(v), DType::I32) if v >= i64::from(i32::MIN) && v <= i64::from(u32::MAX) => {
            Ok(Scalar::I32(v as i32))
        }
        (Scalar::I64(v), DType::I16) if v >= i64::from(i16::MIN) && v <= i64::from(u16::MAX) => {
            Ok(Scalar::I16(v as i16))
        }
        (Scalar::I64(v), DType::I8) if v >= i64::from(i8::MIN) && v <= i64::from(u8::MAX) => {
            Ok(Scalar::I8(v as i8))
        }
        (s, t) if s.dtype() == t => Ok(s),
        (s, t) => Err(err!(InvalidArgument, "{s:?} does not fit {t}")),
    }
}

/// CuPy's `RawModule(*, code=None, path=None, options=(), backend='nvrtc',
/// name_expressions=None, ...)`.
#[pyclass(name = "RawModule", module = "cuprum", frozen)]
pub struct PyRawModule {
    module: RawModule,
    code: Option<String>,
    /// What makes it again (pickling).
    recipe: Recipe,
}

#[pymethods]
impl PyRawModule {
    #[new]
    #[pyo3(signature = (*, code=None, path=None, options=None, backend="nvrtc",
        translate_cucomplex=false, enable_cooperative_groups=false, name_expressions=None,
        jitify=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        code: Option<&str>,
        path: Option<std::path::PathBuf>,
        options: Option<&Bound<'_, PyAny>>,
        backend: &str,
        translate_cucomplex: bool,
        enable_cooperative_groups: bool,
        name_expressions: Option<&Bound<'_, PyAny>>,
        jitify: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        jitify_arg(jitify)?;
        if backend == "nvcc" && name_expressions.is_some_and(|n| !n.is_none()) {
            return Err(PyValueError::new_err(
                "name_expressions need backend='nvrtc' (got backend='nvcc': nvcc cannot \
                 instantiate name expressions)",
            ));
        }
        // translate_cucomplex: the translated source (read from `path`), kept for pickling.
        let translated = match (code, &path) {
            _ if !translate_cucomplex => None,
            (Some(c), None) => Some(super::cucomplex::translate(c)),
            (None, Some(p)) => Some(super::cucomplex::translate(
                &std::fs::read_to_string(p).map_err(|e| {
                    err!(
                        InvalidArgument,
                        "RawModule: cannot read {}: {e}",
                        p.display()
                    )
                })?,
            )),
            _ => None,
        };
        let mut m = match (&translated, code, &path) {
            (Some(t), _, _) => RawModule::new(t.clone()),
            (None, Some(c), None) => RawModule::new(c),
            (None, None, Some(p)) => RawModule::from_file(p),
            _ => {
                return Err(PyTypeError::new_err(
                    "One (and only one) of code or path must be given",
                ));
            }
        };
        m = m
            .backend(backend_of(backend)?)
            .cooperative(enable_cooperative_groups);
        let flags = match options {
            Some(o) => self::options(o)?,
            None => Vec::new(),
        };
        for flag in &flags {
            m = m.option(flag.clone());
        }
        let mut names = None;
        if let Some(given) = name_expressions.filter(|n| !n.is_none()) {
            let mut all = Vec::new();
            for n in given.try_iter()? {
                let n = n?.extract::<String>()?;
                m = m.name_expression(n.clone());
                all.push(n);
            }
            names = Some(all);
        }
        Ok(PyRawModule {
            module: m,
            code: code.map(str::to_owned),
            recipe: Recipe::Module {
                code: translated.or_else(|| code.map(str::to_owned)),
                path: if translate_cucomplex { None } else { path },
                options: flags,
                backend: backend.to_owned(),
                cooperative: enable_cooperative_groups,
                name_expressions: names,
            },
        })
    }

    /// Pickling: `RawModule(...)` again from its arguments (`path=` reads the file again).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        slf.get().recipe.reduce(slf.py(), &slf.get_type())
    }

    /// Whether the module was made with `enable_cooperative_groups=True`.
    #[getter]
    fn enable_cooperative_groups(&self) -> bool {
        self.recipe.cooperative()
    }

    /// The compile options given.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.recipe.options(py)
    }

    /// The kernel `name` (compiled now, as CuPy does), a `RawKernel`.
    fn get_function(slf: &Bound<'_, Self>, name: &str) -> PyResult<PyRawKernel> {
        let this = slf.get();
        let kernel = this.module.get_function(name)?;
        kernel.compile()?;
        Ok(PyRawKernel {
            kernel,
            code: this.code.clone().unwrap_or_default(),
            recipe: Recipe::Function {
                module: slf.clone().into_any().unbind(),
                name: name.to_owned(),
                cooperative: this.recipe.cooperative(),
            },
        })
    }

    /// The `__device__`/`__constant__` global `name`: a `cuprum.cuda.MemoryPointer` to its
    /// memory (CuPy's answer; `cuprum.ndarray(shape, dtype, ptr)` views it), or with `dtype`
    /// a 1-D array of that dtype over it.
    #[pyo3(signature = (name, dtype=None))]
    fn get_global<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        dtype: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bytes = self.module.get_global::<u8>(name)?;
        match dtype.filter(|d| !d.is_none()) {
            Some(d) => {
                let a = super::array::view_as(&bytes, convert::dtype_of(d)?)?;
                Ok(super::array::wrap(py, a)?.into_bound(py))
            }
            None => Ok(Bound::new(py, MemoryPointer::of(&bytes))?.into_any()),
        }
    }

    /// Compiles the module for the current device now (`log_stream` as
    /// `RawKernel.compile`).
    #[pyo3(signature = (log_stream=None))]
    fn compile(&self, log_stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        match log_stream.filter(|l| !l.is_none()) {
            None => Ok(self.module.compile()?),
            Some(stream) => write_log(stream, &self.module.compile_log()?),
        }
    }

    #[getter]
    fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }
}
