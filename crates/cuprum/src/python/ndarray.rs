//! `cuprum.ndarray`'s methods (the class is `array.rs`'s [`PyArray`]): the DLPack protocol
//! (see `array.rs`), CuPy's attributes and conversions, and the operators, indexing and
//! reductions, which `operations.rs` carries out.

use super::array::{
    PyArray, derived, device_label, device_object, no_modulo, shape_arg, view_as, wrap,
};
use super::memory::{self, MemoryPointer};
use super::operations as ops;
use super::{augmented, capsule, convert, routines};
use crate::dlpack::{ConsumerStream, ExportOptions};
use crate::ops::ufunc::Op;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyTuple};

#[pymethods]
impl PyArray {
    /// CuPy's constructor, `ndarray(shape, dtype=float, memptr=None, strides=None,
    /// order='C')`: new uninitialised memory, or a view of the memory `memptr` (a
    /// `cuprum.cuda.MemoryPointer`) points at (`memory.rs`).
    #[new]
    #[pyo3(signature = (shape, dtype=None, memptr=None, strides=None, order="C"))]
    fn new(
        shape: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        memptr: Option<&Bound<'_, PyAny>>,
        strides: Option<&Bound<'_, PyAny>>,
        order: &str,
    ) -> PyResult<Self> {
        Ok(PyArray::from(memory::construct(
            shape, dtype, memptr, strides, order,
        )?))
    }

    /// The legacy DLPack capsule of this array (CuPy's `toDlpack`: `__dlpack__()` with no
    /// stream, for consumers that take a bare capsule, such as `cuprum.from_dlpack`).
    #[allow(non_snake_case)]
    fn toDlpack<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        self.__dlpack__(py, None, None, None, None)
    }

    /// The DLPack capsule of this array (see the module docs).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i64)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let own = self.array.dlpack_device();
        if let Some((kind, id)) = dl_device
            && (kind, id) != (own.0, i64::from(own.1))
        {
            return Err(PyBufferError::new_err(format!(
                "cuprum.ndarray on DLPack device ({}, {}) cannot be exported to device \
                 ({kind}, {id}): cuprum exports only on the array's own device",
                own.0, own.1
            )));
        }
        let consumer_stream = if self.array.device().completes_on_return() {
            None
        } else {
            // The array API: `None` is the legacy default stream for CUDA. 0, which the
            // array API disallows, is what older PyTorch passed for its default stream:
            // taken as the legacy default stream with a warning, as CuPy does.
            let stream = match stream {
                Some(0) => {
                    let msg = c"Stream 0 passed to __dlpack__ is ambiguous (the array API \
                                disallows it); it is taken as the legacy default stream (1)";
                    let class = py.get_type::<pyo3::exceptions::PyUserWarning>();
                    PyErr::warn(py, &class, msg, 1)?;
                    1
                }
                s => s.unwrap_or(1),
            };
            // SAFETY: the array API's contract: a consumer passes a live stream of the
            // array's device (as CuPy and PyTorch trust it).
            unsafe { ConsumerStream::from_python_int(stream) }?
        };
        let opts = ExportOptions {
            consumer_stream,
            ..Default::default()
        };
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        if copy == Some(true) {
            let fresh = self
                .array
                .device()
                .default_stream()
                .with(|| self.array.copy())?;
            return capsule::export(py, &fresh, &opts, versioned);
        }
        capsule::export(py, &self.array, &opts, versioned)
    }

    /// `(device type, device id)`: `(2, n)` for CUDA device n, `(1, 0)` for the host device.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.array.dlpack_device()
    }

    /// The shape, as a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array.shape())
    }

    /// `a.shape = …`: NumPy's in-place reshape is not supported (a cuprum array's shape is
    /// fixed); the error names `reshape`, which gives a view of the same memory.
    #[setter]
    fn set_shape(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(pyo3::exceptions::PyAttributeError::new_err(format!(
            "the shape of a cuprum.ndarray cannot be set in place (to {}): write \
             `a = a.reshape(...)`, a view of the same memory where the strides allow",
            value.repr().map(|r| r.to_string()).unwrap_or_default()
        )))
    }

    /// The dtype: a `numpy.dtype` (its name where NumPy is not installed).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match convert::numpy_dtype(py, self.array.dtype()) {
            Ok(d) => Ok(d),
            Err(_) => Ok(pyo3::types::PyString::new(py, self.array.dtype().name()).into_any()),
        }
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.array.ndim()
    }

    /// Number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.array.size()
    }

    /// Bytes per element.
    #[getter]
    fn itemsize(&self) -> usize {
        self.array.itemsize()
    }

    /// Bytes of the elements.
    #[getter]
    fn nbytes(&self) -> usize {
        self.array.nbytes()
    }

    /// The strides in bytes, as NumPy's.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array.byte_strides())
    }

    /// The array's device as a `cuprum.cuda.Device` (CuPy's `x.device`; id 0 on the host
    /// device). An extension module used without the `cuprum` package (whose
    /// `cuprum.cuda` defines `Device`) gives the device's label instead: `"cuda:0"`, `"host"`.
    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        device_object(py, &self.array)
    }

    /// The CUDA Array Interface (v3) of an array on a GPU, as CuPy's (Numba, PyTorch's
    /// `as_tensor` … take it without a copy); absent on the host device.
    #[getter(__cuda_array_interface__)]
    fn cuda_array_interface<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        super::interface::export(slf.as_any(), &slf.get().array)
    }

    /// The data address of element `[0, …, 0]` (CuPy's `x.data.ptr`).
    #[getter]
    fn data_ptr(&self) -> u64 {
        self.array.data_ptr()
    }

    /// The memory the array starts at (CuPy's `x.data`, a `cuprum.cuda.MemoryPointer` that
    /// keeps it alive: `x.data.ptr` is the address of element `[0, …, 0]`, the view's
    /// offset included).
    #[getter]
    fn data(&self) -> MemoryPointer {
        MemoryPointer::of(&self.array)
    }

    /// Whether the array may be written.
    #[getter]
    fn writeable(&self) -> bool {
        self.array.is_writeable()
    }

    /// Whether the array is C-contiguous.
    #[getter]
    fn is_c_contiguous(&self) -> bool {
        self.array.is_c_contiguous()
    }

    /// NumPy's `flags` (`c_contiguous`, `f_contiguous`, `owndata`, `writeable`; also by
    /// key: `a.flags['C_CONTIGUOUS']`).
    #[getter]
    fn flags(&self) -> PyFlags {
        PyFlags {
            c_contiguous: self.array.is_c_contiguous(),
            f_contiguous: self.array.t().is_c_contiguous(),
            owndata: self.base.is_none(),
            writeable: self.array.is_writeable(),
        }
    }

    /// The array whose memory this one views (NumPy's `base`: the owner of the memory,
    /// for a view of a view too), `None` for an array that owns its memory.
    #[getter]
    fn base(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.base.as_ref().map(|b| b.clone_ref(py))
    }

    /// The transpose (a view).
    #[getter(T)]
    fn transposed(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        derived(py, slf, this.array.t())
    }

    /// The real part: a view for complex dtypes, the array itself for real ones (NumPy's
    /// `a.real is a`).
    #[getter]
    fn real(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        match this.array.complex_part(false) {
            Some(v) => derived(py, slf, v),
            None => Ok(slf.clone().into_any().unbind()),
        }
    }

    /// `a.real = v`: writes the real part (the whole array for real dtypes).
    #[setter]
    fn set_real(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let target = self
            .array
            .complex_part(false)
            .unwrap_or_else(|| self.array.clone());
        ops::assign_all(&target, value)
    }

    /// The imaginary part: a view for complex dtypes, zeros (a new read-only array in NumPy;
    /// a new array here) for real ones.
    #[getter]
    fn imag(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        match this.array.complex_part(true) {
            Some(v) => derived(py, slf, v),
            None => derived(py, slf, crate::ops::imag(&this.array)?),
        }
    }

    /// `a.imag = v`: writes the imaginary part (a `TypeError` for real dtypes, as NumPy).
    #[setter]
    fn set_imag(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        match self.array.complex_part(true) {
            Some(target) => ops::assign_all(&target, value),
            None => Err(PyTypeError::new_err(
                "array does not have imaginary part to set",
            )),
        }
    }

    /// A NumPy array with a copy of the data (CuPy's `get()`).
    #[pyo3(signature = (stream=None, order="C", out=None, blocking=true))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        order: &str,
        out: Option<&Bound<'py, PyAny>>,
        blocking: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = (stream, blocking);
        if !matches!(order, "C" | "F" | "A" | "K") {
            return Err(PyValueError::new_err(format!(
                "order not understood: {order:?} (expected 'C', 'F', 'A' or 'K')"
            )));
        }
        let host = convert::download(py, &self.array)?;
        let np = convert::numpy(py)?;
        match out {
            Some(o) => {
                check_get_out(py, &self.array, o)?;
                o.call_method1("__setitem__", (py.Ellipsis(), host))?;
                Ok(o.clone())
            }
            None if order == "F"
                || (order == "A"
                    && !self.array.is_c_contiguous()
                    && self.array.t().is_c_contiguous()) =>
            {
                np.call_method1("asfortranarray", (host,))
            }
            None => Ok(host),
        }
    }

    /// NumPy's conversion is explicit in cuprum, as in CuPy: `TypeError`.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__(
        &self,
        dtype: Option<&Bound<'_, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let _ = (dtype, copy);
        Err(PyTypeError::new_err(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to \
             construct a NumPy array explicitly.",
        ))
    }

    /// NumPy's ufunc protocol: `np.add(x, 1)`, and a NumPy scalar on the left of an
    /// operator (`np.float32(2) * x`), run cuprum's function of the same name (as CuPy's
    /// `__array_ufunc__` does); other methods (`reduce`, `accumulate`, `outer`, `at` …) run
    /// the cuprum ufunc's method of that name. Names and methods cuprum lacks, and NumPy
    /// arrays among the operands or outputs (CuPy's rule), return `NotImplemented`, so NumPy
    /// raises its own `TypeError`; so do operands of types cuprum does not take (another
    /// library's objects with their own `__array_ufunc__`, which NumPy then asks).
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__(
        &self,
        py: Python<'_>,
        ufunc: &Bound<'_, PyAny>,
        method: &str,
        inputs: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        // NumPy's arrays (not 0-d) among the operands or outputs: NumPy raises its
        // TypeError (CuPy's rule: a NumPy function mixing host and device arrays copies
        // nothing implicitly); a 0-d one is a scalar
        let mut operands: Vec<Bound<'_, PyAny>> = inputs.iter().collect();
        if let Some(out) = kwargs.and_then(|k| k.get_item("out").ok().flatten()) {
            match out.cast::<PyTuple>() {
                Ok(t) => operands.extend(t.iter()),
                Err(_) => operands.push(out),
            }
        }
        // an operand of another library's type: NumPy asks its `__array_ufunc__` next
        for x in &operands {
            if !ops::takes_operand(x)? {
                return Ok(py.NotImplemented());
            }
        }
        let mut zero_d = false;
        for x in &operands {
            if convert::is_numpy_array(x)? {
                if x.getattr(pyo3::intern!(py, "ndim"))?.extract::<usize>()? > 0 {
                    return Ok(py.NotImplemented());
                }
                zero_d = true;
            }
        }
        let name: String = ufunc.getattr(pyo3::intern!(py, "__name__"))?.extract()?;
        let compares = matches!(
            name.as_str(),
            "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
        );
        let inputs = if zero_d && compares {
            // a 0-d NumPy array compared with an array: its value (CuPy's workaround of
            // numpy/numpy#12142, where NumPy calls this with the operands swapped)
            let items = inputs
                .iter()
                .map(|x| match convert::is_numpy_array(&x)? {
                    true => x.call_method0(pyo3::intern!(py, "item")),
                    false => Ok(x),
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?
        } else {
            inputs.clone()
        };
        let Ok(ours) = py.import("cuprum")?.getattr(name.as_str()) else {
            return Ok(py.NotImplemented());
        };
        let f = if method == "__call__" {
            ours
        } else {
            match ours.getattr(method) {
                Ok(m) => m,
                Err(_) => return Ok(py.NotImplemented()),
            }
        };
        Ok(f.call(&inputs, kwargs)?.unbind())
    }

    /// NumPy's function protocol: a NumPy function given a cuprum array (`np.full_like(x,
    /// 1)`, `np.sum(x)`, `np.concatenate([x, y])`) runs cuprum's function of the same name
    /// in the same submodule (`numpy.linalg.norm` → `cuprum.linalg.norm`), as CuPy's
    /// `__array_function__` does. A name cuprum lacks, or arguments of types other than
    /// cuprum's and NumPy's arrays, return `NotImplemented`: NumPy then raises its
    /// `TypeError` naming the function.
    fn __array_function__(
        &self,
        py: Python<'_>,
        func: &Bound<'_, PyAny>,
        types: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        kwargs: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let Some(ours) = same_function(py, func)? else {
            return Ok(py.NotImplemented());
        };
        let numpy_array = py.import("numpy")?.getattr("ndarray")?;
        for t in types.try_iter()? {
            let t = t?;
            let t = t.cast::<pyo3::types::PyType>()?;
            if !(t.is_subclass_of::<PyArray>()? || t.is_subclass(&numpy_array)?) {
                return Ok(py.NotImplemented());
            }
        }
        let args = args.cast::<PyTuple>()?;
        let kwargs = kwargs.cast::<pyo3::types::PyDict>().ok();
        Ok(ours.call(args, kwargs)?.unbind())
    }

    /// The only element as a Python scalar.
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.array.size() != 1 {
            return Err(PyValueError::new_err(
                "can only convert an array of size 1 to a Python scalar",
            ));
        }
        convert::download(py, &self.array)?.call_method0("item")
    }

    /// The elements as nested Python lists.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::download(py, &self.array)?.call_method0("tolist")
    }

    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        self.scalar(py, "float")?.extract()
    }

    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let builtins = py.import("builtins")?;
        builtins.getattr("int")?.call1((self.scalar(py, "int")?,))
    }

    fn __index__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if !matches!(
            self.array.dtype().kind(),
            crate::array::DTypeKind::SignedInt
                | crate::array::DTypeKind::UnsignedInt
                | crate::array::DTypeKind::Bool
        ) {
            return Err(PyTypeError::new_err(
                "only integer scalar arrays can be converted to a scalar index",
            ));
        }
        self.__int__(py)
    }

    fn __complex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let builtins = py.import("builtins")?;
        builtins
            .getattr("complex")?
            .call1((self.scalar(py, "complex")?,))
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        if self.array.size() != 1 {
            return Err(PyValueError::new_err(
                "The truth value of an array with more than one element is ambiguous. Use \
                 a.any() or a.all()",
            ));
        }
        convert::download(py, &self.array)?.is_truthy()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.array
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of unsized object"))
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let me = slf.get();
        if me.array.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d array"));
        }
        let py = slf.py();
        let n = me.array.shape()[0];
        let items: PyResult<Vec<Py<PyAny>>> = (0..n)
            .map(|i| {
                wrap(
                    py,
                    me.array
                        .slice(&[crate::array::SliceArg::Index(i as isize)])?,
                )
            })
            .collect();
        Ok(pyo3::types::PyList::new(py, items?)?
            .into_any()
            .try_iter()?
            .into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        match convert::numpy(py) {
            Ok(_) => Ok(convert::download(py, &self.array)?.repr()?.to_string()),
            Err(_) => Ok(format!(
                "cuprum.ndarray(shape={:?}, dtype={}, device={})",
                self.array.shape(),
                self.array.dtype().name(),
                device_label(&self.array)
            )),
        }
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        match convert::numpy(py) {
            Ok(_) => Ok(convert::download(py, &self.array)?.str()?.to_string()),
            Err(_) => self.__repr__(py),
        }
    }

    fn __format__(&self, py: Python<'_>, spec: &str) -> PyResult<String> {
        let host = convert::download(py, &self.array)?;
        host.call_method1("__format__", (spec,))?.extract()
    }

    // ---- shape and conversion ------------------------------------------------------

    /// A copy in memory `order` (`'C'`, `'F'`, `'A'` or `'K'`, as NumPy's).
    #[pyo3(signature = (order="C"))]
    fn copy(slf: &Bound<'_, Self>, order: &str) -> PyResult<Py<PyAny>> {
        let me = &slf.get().array;
        if matches!(order, "C" | "c") || me.ndim() < 2 {
            return wrap(slf.py(), me.copy()?);
        }
        copy_in_order(slf, order, None)
    }

    /// The array converted to `dtype` (a copy unless `copy=False` and the dtype is the same).
    #[pyo3(signature = (dtype, order=Some("K"), casting=None, subok=None, copy=true))]
    fn astype(
        slf: &Bound<'_, Self>,
        dtype: &Bound<'_, PyAny>,
        order: Option<&str>,
        casting: Option<&str>,
        subok: Option<bool>,
        copy: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = (casting, subok);
        let order = order.unwrap_or("K"); // NumPy's None is 'K'
        let py = slf.py();
        let me = &slf.get().array;
        let d = convert::dtype_of(dtype)?;
        if d == me.dtype() && !copy {
            return Ok(slf.clone().into_any().unbind());
        }
        warn_on_discarded_imag(py, me.dtype(), d)?;
        if !matches!(order, "C" | "c") && me.ndim() > 1 && !me.is_c_contiguous() {
            // NumPy's layouts other than C: the copy follows the source's
            return copy_in_order(slf, order, Some(dtype));
        }
        if d == me.dtype() {
            return wrap(py, me.copy()?);
        }
        wrap(py, me.astype(d)?)
    }

    /// The same data with another shape (a view where the layout allows, else a copy;
    /// NumPy 2's `copy=True` always copies, `copy=False` refuses to).
    #[pyo3(signature = (*shape, order="C", copy=None))]
    fn reshape(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        shape: &Bound<'_, PyTuple>,
        order: &str,
        copy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        let dims = shape_arg(shape)?;
        let copy = match copy.filter(|c| !c.is_none()) {
            Some(c) if c.is_instance_of::<pyo3::types::PyString>() => {
                return Err(PyValueError::new_err(
                    "strings are not allowed for 'copy' keyword. Use True/False/None instead.",
                ));
            }
            Some(c) => Some(c.is_truthy()?),
            None => None,
        };
        let fortran = match order {
            "C" | "c" => false,
            "F" | "f" => true,
            "A" | "a" => !this.array.is_c_contiguous() && this.array.t().is_c_contiguous(),
            "K" | "k" => {
                return Err(PyValueError::new_err(
                    "order 'K' is not permitted for reshaping",
                ));
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "order must be one of 'C', 'F' or 'A' (got {other:?})"
                )));
            }
        };
        let r = if fortran {
            // the reversed shape in C order of the transpose, transposed back
            let reversed: Vec<isize> = dims.iter().rev().copied().collect();
            this.array.t().reshape_copy(&reversed)?.t()
        } else {
            this.array.reshape_copy(&dims)?
        };
        let view = r.shares_memory(&this.array);
        match copy {
            Some(true) if view => derived(py, slf, r.copy()?),
            Some(false) if !view && this.array.size() > 0 => Err(PyValueError::new_err(
                "Unable to avoid creating a copy while reshaping.",
            )),
            _ => derived(py, slf, r),
        }
    }

    /// The elements as a contiguous 1-D array in `order` (`'C'`, `'F'`, `'A'`, or `'K'`:
    /// the order they lie in memory); a view when the memory holds them so, else a copy.
    #[pyo3(signature = (order="C"))]
    fn ravel(slf: &Bound<'_, Self>, py: Python<'_>, order: &str) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        let a = match order {
            "K" | "k" => memory_order(&this.array)?,
            other => in_order(&this.array, other)?,
        };
        let mut r = a.reshape_copy(&[-1])?;
        if !r.is_c_contiguous() {
            r = r.copy()?;
        }
        derived(py, slf, r)
    }

    /// A 1-D copy, the elements in `order` (`'C'`, `'F'`, `'A'`, `'K'`).
    #[pyo3(signature = (order="C"))]
    fn flatten(&self, py: Python<'_>, order: &str) -> PyResult<Py<PyAny>> {
        let a = match order {
            "K" | "k" => memory_order(&self.array)?,
            other => in_order(&self.array, other)?,
        };
        wrap(py, a.copy()?.reshape(&[-1])?)
    }

    /// The axes permuted (reversed by default): a view.
    #[pyo3(signature = (*axes))]
    fn transpose(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        axes: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        if axes.is_empty() || (axes.len() == 1 && axes.get_item(0)?.is_none()) {
            return derived(py, slf, this.array.t());
        }
        let dims = shape_arg(axes)?;
        derived(py, slf, this.array.permute(&dims)?)
    }

    /// Axes of extent 1 removed: all of them, or those of `axis` (an int or a tuple).
    #[pyo3(signature = (axis=None))]
    fn squeeze(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        derived(py, slf, routines::squeeze_of(&this.array, axis)?)
    }

    /// The same bytes seen as another dtype of the same size (NumPy's `view(dtype)`);
    /// `type` (CuPy's array class) may only be `cuprum.ndarray`, which has no subclasses.
    #[pyo3(signature = (dtype=None, r#type=None))]
    fn view(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        dtype: Option<&Bound<'_, PyAny>>,
        r#type: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if let Some(t) = r#type.filter(|t| !t.is_none() && !t.is(py.get_type::<PyArray>())) {
            return Err(PyTypeError::new_err(format!(
                "view: type must be cuprum.ndarray (cuprum has no array subclasses), got {}",
                super::errors::type_name(t)
            )));
        }
        let this = slf.get();
        match dtype.filter(|d| !d.is_none()) {
            None => derived(py, slf, this.array.clone()),
            Some(d) => derived(py, slf, view_as(&this.array, convert::dtype_of(d)?)?),
        }
    }

    /// Writes `value` into every element: a scalar, or a 0-d array (a device array's
    /// value is copied on the device, with no wait).
    fn fill(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = value.py();
        if let Some(s) = convert::scalar(value)? {
            warn_on_discarded_imag(py, s.dtype(), self.array.dtype())?;
            // into a real array NumPy keeps the real part (having warned)
            let to = self.array.dtype();
            let real = !to.is_complex() && to != crate::array::DType::Bool;
            let s = match s {
                crate::Scalar::C64(z) if real => crate::Scalar::F32(z.re),
                crate::Scalar::C128(z) if real => crate::Scalar::F64(z.re),
                s => s,
            };
            return Ok(self.array.fill(s)?);
        }
        match ops::operand(&self.array, value)? {
            Some(super::kernels::Arg::Array(v)) if v.ndim() == 0 => {
                warn_on_discarded_imag(py, v.dtype(), self.array.dtype())?;
                let v = if v.dtype() == self.array.dtype() {
                    v
                } else {
                    v.astype(self.array.dtype())?
                };
                Ok(self.array.assign(&v.broadcast_to(self.array.shape())?)?)
            }
            Some(super::kernels::Arg::Array(v)) => Err(PyValueError::new_err(format!(
                "fill takes a scalar or a 0-d array, got an array of shape {}",
                crate::shape::format_shape(v.shape())
            ))),
            _ => Err(PyTypeError::new_err(format!(
                "fill takes a scalar, got {}",
                super::errors::type_name(value)
            ))),
        }
    }

    /// CuPy's `a.set(arr, stream=None)`: the host NumPy array `arr`, of this array's dtype
    /// and shape, copied into this array (C- or Fortran-contiguous) on `stream` (the
    /// current stream for `None`); `arr` is read before the call returns.
    #[pyo3(signature = (arr, stream=None))]
    fn set(
        slf: &Bound<'_, Self>,
        arr: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        let np = convert::numpy(py)?;
        if !arr.is_instance(&np.getattr("ndarray")?)? {
            return Err(PyTypeError::new_err(format!(
                "Only numpy.ndarray can be set to cuprum.ndarray, got {}",
                super::errors::type_name(arr)
            )));
        }
        let (dtype, given) = (slf.getattr("dtype")?, arr.getattr("dtype")?);
        if !dtype.eq(&given)? {
            return Err(PyTypeError::new_err(format!(
                "{given} array cannot be set to {dtype} array"
            )));
        }
        let (shape, new) = (slf.getattr("shape")?, arr.getattr("shape")?);
        if !shape.eq(&new)? {
            return Err(PyValueError::new_err(format!(
                "Shape mismatch. Old shape: {shape}, new shape: {new}"
            )));
        }
        let me = slf.borrow();
        me.array.check_writeable("ndarray.set")?;
        let host = if me.array.is_c_contiguous() {
            np.call_method1("ascontiguousarray", (arr,))?
        } else if me.array.t().is_c_contiguous() {
            np.call_method1("asfortranarray", (arr,))?
        } else {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "Cannot set to non-contiguous array",
            ));
        };
        let addr = host.getattr("ctypes")?.getattr("data")?;
        MemoryPointer::of(&me.array).copy_from_host_async(&addr, me.array.nbytes(), stream)
    }

    /// `a.tofile(fid, sep='', format='%s')`: the elements written to a file (a path or an
    /// open file), as NumPy's `tofile` of `a.get()`.
    #[pyo3(signature = (fid, sep="", format="%s"))]
    fn tofile(
        &self,
        py: Python<'_>,
        fid: &Bound<'_, PyAny>,
        sep: &str,
        format: &str,
    ) -> PyResult<()> {
        let host = convert::download(py, &self.array)?;
        host.call_method1("tofile", (fid, sep, format)).map(drop)
    }

    /// The bytes of the elements in `order` (NumPy's `tobytes`; `bytes(a)` too).
    #[pyo3(signature = (order="C"))]
    fn tobytes<'py>(&self, py: Python<'py>, order: &str) -> PyResult<Bound<'py, PyAny>> {
        let host = convert::download(py, &in_order(&self.array, order)?)?;
        host.call_method0("tobytes")
    }

    /// `a.dump(file)`: the array pickled into `file` (a path or a file opened for writing
    /// bytes), as NumPy's and CuPy's (`pickle.load` gives a device array back).
    fn dump(slf: &Bound<'_, Self>, file: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let pickle = py.import("pickle")?;
        if file.is_instance_of::<pyo3::types::PyString>()
            || file.hasattr(pyo3::intern!(py, "__fspath__"))?
        {
            let f = py
                .import("builtins")?
                .getattr("open")?
                .call1((file, "wb"))?;
            let r = pickle.call_method1("dump", (slf, &f));
            f.call_method0("close")?;
            return r.map(drop);
        }
        pickle.call_method1("dump", (slf, file)).map(drop)
    }

    /// `a.dumps()`: the array pickled into bytes, as NumPy's and CuPy's.
    fn dumps<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("pickle")?.call_method1("dumps", (slf,))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tobytes(py, "C")
    }

    // ---- indexing --------------------------------------------------------------------

    fn __getitem__(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        match ops::subscript(&this.array, key)? {
            ops::Key::Mask(m) if augmented::augmented_load(py) => {
                augmented::pending(py, &this.array, m, key)
            }
            k => derived(py, slf, ops::get_key(&this.array, k)?),
        }
    }

    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(p) = augmented::as_pending(value) {
            return p
                .get()
                .store(&self.array, key, |t| ops::set_item(&self.array, key, t));
        }
        ops::set_item(&self.array, key, value)
    }

    // ---- operators -------------------------------------------------------------------

    fn __add__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Add, slf, o, false)
    }
    fn __radd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Add, slf, o, true)
    }
    fn __sub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Sub, slf, o, false)
    }
    fn __rsub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Sub, slf, o, true)
    }
    fn __mul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Mul, slf, o, false)
    }
    fn __rmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Mul, slf, o, true)
    }
    fn __truediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Div, slf, o, false)
    }
    fn __rtruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Div, slf, o, true)
    }
    fn __floordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::FloorDiv, slf, o, false)
    }
    fn __rfloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::FloorDiv, slf, o, true)
    }
    fn __mod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Rem, slf, o, false)
    }
    fn __rmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::Rem, slf, o, true)
    }
    fn __pow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        m: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        no_modulo(m)?;
        ops::binary(Op::Pow, slf, o, false)
    }
    fn __rpow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        m: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        no_modulo(m)?;
        ops::binary(Op::Pow, slf, o, true)
    }
    fn __matmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::matmul(slf, o, false)
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::matmul(slf, o, true)
    }
    fn __and__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitAnd, slf, o, false)
    }
    fn __rand__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitAnd, slf, o, true)
    }
    fn __or__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitOr, slf, o, false)
    }
    fn __ror__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitOr, slf, o, true)
    }
    fn __xor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitXor, slf, o, false)
    }
    fn __rxor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::BitXor, slf, o, true)
    }
    fn __lshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::LeftShift, slf, o, false)
    }
    fn __rlshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::LeftShift, slf, o, true)
    }
    fn __rshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::RightShift, slf, o, false)
    }
    fn __rrshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        ops::binary(Op::RightShift, slf, o, true)
    }

    fn __iadd__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::Add, o)
    }
    fn __isub__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::Sub, o)
    }
    fn __imul__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::Mul, o)
    }
    fn __itruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::Div, o)
    }
    fn __ifloordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::FloorDiv, o)
    }
    fn __imod__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::Rem, o)
    }
    fn __ipow__(&self, o: &Bound<'_, PyAny>, m: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        no_modulo(m)?;
        ops::in_place(&self.array, Op::Pow, o)
    }
    fn __iand__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::BitAnd, o)
    }
    fn __ior__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::BitOr, o)
    }
    fn __ixor__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::BitXor, o)
    }
    fn __ilshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::LeftShift, o)
    }
    fn __irshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        ops::in_place(&self.array, Op::RightShift, o)
    }

    fn __richcmp__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let b = match op {
            CompareOp::Lt => Op::Less,
            CompareOp::Le => Op::LessEqual,
            CompareOp::Eq => Op::Equal,
            CompareOp::Ne => Op::NotEqual,
            CompareOp::Gt => Op::Greater,
            CompareOp::Ge => Op::GreaterEqual,
        };
        let me = &slf.get().array;
        let r = ops::binary(b, slf, o, false)?;
        let py = o.py();
        if !(matches!(op, CompareOp::Eq | CompareOp::Ne) && r.is(py.NotImplemented())) {
            return Ok(r);
        }
        // NumPy's for an object that is not array data: the object's own (reflected)
        // comparison where it has one, else every element differs from it
        let ne = matches!(op, CompareOp::Ne);
        // `!=` of an object whose class defines `__eq__` only: Python's inherited `__ne__`
        // would take `not` of an array; NumPy compares element by element, which is the
        // negation of the object's `__eq__` with the array
        let eq = pyo3::intern!(py, "__eq__");
        let ne_name = pyo3::intern!(py, "__ne__");
        let inherited_ne = o
            .get_type()
            .getattr(ne_name)?
            .is(&py.import("builtins")?.getattr("object")?.getattr(ne_name)?);
        if ne && inherited_ne {
            let r = o.call_method1(eq, (slf,))?;
            if !r.is(py.NotImplemented()) {
                return Ok(py
                    .import("cuprum")?
                    .getattr("logical_not")?
                    .call1((r,))?
                    .unbind());
            }
        } else {
            let reflected = o.call_method1(if ne { ne_name } else { eq }, (slf,))?;
            if !reflected.is(py.NotImplemented()) {
                return Ok(reflected.unbind());
            }
        }
        wrap(
            py,
            crate::array::Array::full(me.shape(), ne, crate::array::DType::Bool)?,
        )
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, crate::ops::negative(&self.array)?)
    }

    fn __pos__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, crate::ops::positive(&self.array)?)
    }

    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, crate::ops::abs(&self.array)?)
    }

    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        wrap(py, crate::ops::invert(&self.array)?)
    }

    // ---- reductions and routines -------------------------------------------------------

    /// `a.sum(axis=None, dtype=None, out=None, keepdims=False)` and the other reductions
    /// (`prod`, `mean`, `var`, `std` with `ddof`, `max`, `min`, `argmax`, `argmin`, `all`,
    /// `any`): NumPy's keywords.
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn sum(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "sum", &self.array, axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn prod(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "prod", &self.array, axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn mean(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "mean", &self.array, axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn var(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(
            py,
            "var",
            &self.array,
            axis,
            dtype,
            out,
            keepdims,
            Some(ddof),
        )
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn std(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(
            py,
            "std",
            &self.array,
            axis,
            dtype,
            out,
            keepdims,
            Some(ddof),
        )
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn max(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "max", &self.array, axis, None, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn min(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "min", &self.array, axis, None, out, keepdims, None)
    }
    /// `a.argmax(axis=None, out=None, dtype=None, keepdims=False)`: CuPy's `dtype` is the
    /// integer dtype of the indices (int64 by default).
    #[pyo3(signature = (axis=None, out=None, dtype=None, keepdims=false))]
    fn argmax(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        let r = ops::reduce(py, "argmax", &self.array, axis, None, out, keepdims, None)?;
        index_dtype(py, r, dtype, out)
    }
    /// `a.argmin(axis=None, out=None, dtype=None, keepdims=False)`: CuPy's `dtype` is the
    /// integer dtype of the indices (int64 by default).
    #[pyo3(signature = (axis=None, out=None, dtype=None, keepdims=false))]
    fn argmin(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        let r = ops::reduce(py, "argmin", &self.array, axis, None, out, keepdims, None)?;
        index_dtype(py, r, dtype, out)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn all(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "all", &self.array, axis, None, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn any(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        ops::reduce(py, "any", &self.array, axis, None, out, keepdims, None)
    }

    /// `a.dot(b, out=None)`: `cuprum.dot(a, b, out)` (NumPy's `dot`: for N-D operands the
    /// sum over `a`'s last axis and `b`'s second-to-last, not `matmul`'s stacks).
    #[pyo3(signature = (b, out=None))]
    fn dot(
        slf: &Bound<'_, Self>,
        b: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "dot", (b, out))
    }

    // ---- NumPy's routines as methods (`routines.rs`) -------------------------------------

    /// `a.sort(axis=-1, kind=None, order=None)`: sorts `a` in place (stable; NaNs last).
    #[pyo3(signature = (axis=-1, kind=None, order=None))]
    fn sort(
        &self,
        axis: isize,
        kind: Option<&Bound<'_, PyAny>>,
        order: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = kind;
        no_order(order, "sort")?;
        Ok(self.array.sort(Some(axis))?)
    }

    /// `a.argsort(axis=-1, kind=None, order=None)`: the indices (int64) that sort `a`.
    #[pyo3(signature = (axis=-1, kind=None, order=None))]
    fn argsort(
        &self,
        py: Python<'_>,
        axis: Option<isize>,
        kind: Option<&Bound<'_, PyAny>>,
        order: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = kind;
        no_order(order, "argsort")?;
        wrap(py, crate::ops::argsort(&self.array, axis)?)
    }

    /// `a.cumsum(axis=None, dtype=None, out=None)`.
    #[pyo3(signature = (axis=None, dtype=None, out=None))]
    fn cumsum(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        routines::cumulative(py, &self.array, false, axis, dtype, out)
    }

    /// `a.cumprod(axis=None, dtype=None, out=None)`.
    #[pyo3(signature = (axis=None, dtype=None, out=None))]
    fn cumprod(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        routines::cumulative(py, &self.array, true, axis, dtype, out)
    }

    /// `a.repeat(repeats, axis=None)`: the package's `repeat` (its checks of `repeats`).
    #[pyo3(signature = (repeats, axis=None))]
    fn repeat(
        slf: &Bound<'_, Self>,
        repeats: &Bound<'_, PyAny>,
        axis: Option<isize>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "repeat", (repeats, axis))
    }

    /// `a.take(indices, axis=None, out=None, mode='raise')`.
    #[pyo3(signature = (indices, axis=None, out=None, mode="raise"))]
    fn take(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        axis: Option<isize>,
        out: Option<&Bound<'_, PyAny>>,
        mode: &str,
    ) -> PyResult<Py<PyAny>> {
        routines::take_from(py, &self.array, indices, axis, out, mode)
    }

    /// `a.round(decimals=0, out=None)`: `cuprum.around` of the array.
    #[pyo3(signature = (decimals=0, out=None))]
    fn round(
        slf: &Bound<'_, Self>,
        decimals: i64,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "around", (decimals, out))
    }

    /// `a.conj()`: the complex conjugate; for real dtypes the array itself (as CuPy).
    fn conj(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        Self::conjugate(slf)
    }

    /// `a.conjugate()`: the complex conjugate; for real dtypes the array itself (as CuPy).
    fn conjugate(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        if slf.get().array.dtype().kind() != crate::array::DTypeKind::Complex {
            return Ok(slf.clone().into_any().unbind());
        }
        package_call(slf, "conjugate", ())
    }

    /// `a.clip(min=None, max=None, out=None)`.
    #[pyo3(signature = (min=None, max=None, out=None))]
    fn clip(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "clip", (min, max, out))
    }

    /// `a.ptp(axis=None, out=None, keepdims=False)`: the maximum minus the minimum.
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn ptp(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "ptp", (axis, out, keepdims))
    }

    /// `a.searchsorted(v, side='left', sorter=None)`.
    #[pyo3(signature = (v, side="left", sorter=None))]
    fn searchsorted(
        slf: &Bound<'_, Self>,
        v: &Bound<'_, PyAny>,
        side: &str,
        sorter: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "searchsorted", (v, side, sorter))
    }

    /// Each element's bytes reversed (each part's, for complex numbers): a new array, or
    /// this one, changed in place, with `inplace` (NumPy's `byteswap`).
    #[pyo3(signature = (inplace=false))]
    fn byteswap(slf: &Bound<'_, Self>, inplace: bool) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let f = py
            .import("cuprum._more_functions")?
            .getattr("ndarray_byteswap")?;
        Ok(f.call1((slf, inplace))?.unbind())
    }

    /// `divmod(a, b)`: the floor quotient and the remainder (`cuprum.divmod`).
    fn __divmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        package_call(slf, "divmod", (o,))
    }

    /// `divmod(b, a)`.
    fn __rdivmod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let f = py.import("cuprum")?.getattr("divmod")?;
        Ok(f.call1((o, slf))?.unbind())
    }

    /// `a.flat`: the elements in C order as one flat sequence (`cuprum.flatiter`).
    #[getter]
    fn flat(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        package_call(slf, "flatiter", ())
    }

    /// `a.partition(kth, axis=-1)`: in place, `kth` where a sort puts it (here the axis is
    /// sorted, which satisfies that).
    #[pyo3(signature = (kth, axis=-1, kind="introselect", order=None))]
    fn partition(
        slf: &Bound<'_, Self>,
        kth: &Bound<'_, PyAny>,
        axis: isize,
        kind: &str,
        order: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let r = package_call(slf, "partition", (kth, axis, kind, order))?;
        let r = r.bind(slf.py()).cast::<PyArray>()?.get().array().clone();
        Ok(slf.get().array.assign(&r)?)
    }

    /// `a.argpartition(kth, axis=-1)`: indices that partition `a` around `kth`.
    #[pyo3(signature = (kth, axis=-1, kind="introselect", order=None))]
    fn argpartition(
        slf: &Bound<'_, Self>,
        kth: &Bound<'_, PyAny>,
        axis: Option<isize>,
        kind: &str,
        order: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "argpartition", (kth, axis, kind, order))
    }

    /// `a.choose(choices, out=None, mode='raise')`.
    #[pyo3(signature = (choices, out=None, mode="raise"))]
    fn choose(
        slf: &Bound<'_, Self>,
        choices: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyAny>>,
        mode: &str,
    ) -> PyResult<Py<PyAny>> {
        package_call(slf, "choose", (choices, out, mode))
    }

    /// `a.put(indices, values, mode='raise')`: in place, as the package's `put` (nothing
    /// for empty `values`).
    #[pyo3(signature = (indices, values, mode="raise"))]
    fn put(
        slf: &Bound<'_, Self>,
        indices: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        mode: &str,
    ) -> PyResult<()> {
        package_call(slf, "put", (indices, values, mode)).map(drop)
    }

    /// `a.nonzero()`: one index array per axis.
    fn nonzero(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        routines::nonzero_of(py, &self.array)
    }

    /// `a.diagonal(offset=0, axis1=0, axis2=1)`.
    #[pyo3(signature = (offset=0, axis1=0, axis2=1))]
    fn diagonal(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        offset: isize,
        axis1: isize,
        axis2: isize,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        derived(
            py,
            slf,
            crate::ops::diagonal(&this.array, offset, axis1, axis2)?,
        )
    }

    /// `a.trace(offset=0, axis1=0, axis2=1, dtype=None, out=None)`.
    #[pyo3(signature = (offset=0, axis1=0, axis2=1, dtype=None, out=None))]
    fn trace(
        &self,
        py: Python<'_>,
        offset: isize,
        axis1: isize,
        axis2: isize,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        routines::trace_of(py, &self.array, offset, axis1, axis2, dtype, out)
    }

    /// `a.swapaxes(axis1, axis2)`: a view.
    fn swapaxes(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        axis1: isize,
        axis2: isize,
    ) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        derived(py, slf, this.array.swapaxes(axis1, axis2)?)
    }

    /// The matrix transpose: a view with the last two axes swapped (NumPy 2's `mT`).
    #[getter(mT)]
    fn matrix_t(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let this = slf.get();
        if this.array.ndim() < 2 {
            return Err(PyValueError::new_err(
                "matrix transpose with ndim < 2 is undefined",
            ));
        }
        derived(py, slf, this.array.swapaxes(-2, -1)?)
    }

    /// `a.compress(condition, axis=None, out=None)`.
    #[pyo3(signature = (condition, axis=None, out=None))]
    fn compress(
        &self,
        py: Python<'_>,
        condition: &Bound<'_, PyAny>,
        axis: Option<isize>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        routines::compress_of(py, condition, &self.array, axis, out)
    }
}

/// The indices `r` of an argmax / argmin in CuPy's `dtype` (unless written into `out`).
fn index_dtype(
    py: Python<'_>,
    r: Py<PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    match dtype.filter(|d| !d.is_none()) {
        Some(d) if out.is_none_or(|o| o.is_none()) => {
            Ok(r.bind(py).call_method1("astype", (d,))?.unbind())
        }
        _ => Ok(r),
    }
}

/// An array's memory layout flags (`ndarray.flags`), as NumPy's and CuPy's.
#[pyclass(name = "flags", module = "cuprum", frozen)]
pub(crate) struct PyFlags {
    #[pyo3(get)]
    c_contiguous: bool,
    #[pyo3(get)]
    f_contiguous: bool,
    #[pyo3(get)]
    owndata: bool,
    #[pyo3(get)]
    writeable: bool,
}

#[pymethods]
impl PyFlags {
    /// Fortran-contiguous and not C-contiguous (NumPy's `fnc`).
    #[getter]
    fn fnc(&self) -> bool {
        self.f_contiguous && !self.c_contiguous
    }

    /// Fortran- or C-contiguous (NumPy's `forc`).
    #[getter]
    fn forc(&self) -> bool {
        self.f_contiguous || self.c_contiguous
    }

    /// Every element aligned for its type: always, in cuprum's memory.
    #[getter]
    fn aligned(&self) -> bool {
        true
    }

    /// A flag by NumPy's key (`'C_CONTIGUOUS'`, `'C'`, `'F_CONTIGUOUS'`, `'F'`,
    /// `'OWNDATA'`, `'O'`, `'WRITEABLE'`, `'W'`, `'ALIGNED'`, `'A'`, `'FNC'`, `'FORC'`).
    fn __getitem__(&self, key: &str) -> PyResult<bool> {
        match key {
            "C_CONTIGUOUS" | "C" | "CONTIGUOUS" => Ok(self.c_contiguous),
            "F_CONTIGUOUS" | "F" | "FORTRAN" => Ok(self.f_contiguous),
            "OWNDATA" | "O" => Ok(self.owndata),
            "WRITEABLE" | "W" => Ok(self.writeable),
            "ALIGNED" | "A" => Ok(self.aligned()),
            "FNC" => Ok(self.fnc()),
            "FORC" => Ok(self.forc()),
            _ => Err(pyo3::exceptions::PyKeyError::new_err(key.to_owned())),
        }
    }

    fn __repr__(&self) -> String {
        let t = |b: bool| if b { "True" } else { "False" };
        format!(
            "  C_CONTIGUOUS : {}\n  F_CONTIGUOUS : {}\n  OWNDATA : {}\n  WRITEABLE : {}",
            t(self.c_contiguous),
            t(self.f_contiguous),
            t(self.owndata),
            t(self.writeable)
        )
    }
}

/// cuprum's function for NumPy function `func`: the attribute of `func.__name__` in the
/// cuprum submodule that matches `func.__module__` (`numpy.fft` → `cuprum.fft`); `None`
/// where there is none, or where it is NumPy's own function re-exported.
fn same_function<'py>(
    py: Python<'py>,
    func: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let module: String = match func.getattr(pyo3::intern!(py, "__module__"))?.extract() {
        Ok(m) => m,
        Err(_) => return Ok(None),
    };
    let name: String = match func.getattr(pyo3::intern!(py, "__name__"))?.extract() {
        Ok(n) => n,
        Err(_) => return Ok(None),
    };
    let mut owner = py.import("cuprum")?.into_any();
    for part in module.split('.').skip(1) {
        match owner.getattr(part) {
            Ok(m) => owner = m,
            Err(_) => return Ok(None),
        }
    }
    match owner.getattr(name.as_str()) {
        Ok(f) if !f.is(func) => Ok(Some(f)),
        _ => Ok(None),
    }
}

/// A copy of `slf` (cast to `dtype`) in NumPy's memory `order`, by the package's
/// `copy_in_order` (a permuted C-contiguous copy, one pass).
fn copy_in_order(
    slf: &Bound<'_, PyArray>,
    order: &str,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let f = py.import("cuprum._creation")?.getattr("copy_in_order")?;
    Ok(f.call1((slf, order, dtype))?.unbind())
}

/// `a`'s axes permuted into the order its elements lie in memory (NumPy's `'K'`, as its
/// iterator orders them): a stable insertion sort, innermost axis first, by decreasing
/// stride magnitude, in which a broadcast or length-1 axis (stride 0) never decides, so it
/// keeps its place (negative strides by size, not flipped, as NumPy's `ravel` keeps them).
fn memory_order(a: &crate::array::Array) -> PyResult<crate::array::Array> {
    let key = |i: usize| {
        if a.shape()[i] == 1 {
            0
        } else {
            a.strides[i].unsigned_abs()
        }
    };
    // innermost first, as NumPy's iterator keeps its axes
    let mut perm: Vec<usize> = (0..a.ndim()).rev().collect();
    for i0 in 1..perm.len() {
        let s0 = key(perm[i0]);
        let mut pos = i0;
        for i1 in (0..i0).rev() {
            let s1 = key(perm[i1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s1 > s0 {
                pos = i1;
            } else {
                break;
            }
        }
        if pos != i0 {
            let axis = perm.remove(i0);
            perm.insert(pos, axis);
        }
    }
    perm.reverse();
    if perm.iter().enumerate().all(|(k, &i)| k == i) {
        return Ok(a.clone());
    }
    let axes: Vec<isize> = perm.into_iter().map(|i| i as isize).collect();
    Ok(a.permute(&axes)?)
}

/// The view whose C order is NumPy's `order` of `a`: the array itself for `'C'`, its
/// transpose for `'F'` (and for `'A'`/`'K'` when `a` is Fortran- but not C-contiguous).
fn in_order(a: &crate::array::Array, order: &str) -> PyResult<crate::array::Array> {
    let fortran = match order {
        "C" | "c" => false,
        "F" | "f" => true,
        "A" | "a" | "K" | "k" => !a.is_c_contiguous() && a.t().is_c_contiguous(),
        other => {
            return Err(PyValueError::new_err(format!(
                "order must be one of 'C', 'F', 'A', or 'K' (got {other:?})"
            )));
        }
    };
    Ok(if fortran { a.t() } else { a.clone() })
}

/// CuPy's checks of `get(out=)`: a NumPy array of the same dtype and shape, contiguous in
/// C or Fortran order.
fn check_get_out(py: Python<'_>, a: &crate::array::Array, out: &Bound<'_, PyAny>) -> PyResult<()> {
    if !convert::is_numpy_array(out)? {
        return Err(PyTypeError::new_err(
            "Only numpy.ndarray can be obtained from cuprum.ndarray",
        ));
    }
    let dtype = convert::dtype_of(&out.getattr(pyo3::intern!(py, "dtype"))?)?;
    if dtype != a.dtype() {
        return Err(PyTypeError::new_err(format!(
            "{dtype} array cannot be obtained from {} array",
            a.dtype()
        )));
    }
    let shape: Vec<usize> = out.getattr(pyo3::intern!(py, "shape"))?.extract()?;
    if shape != a.shape() {
        return Err(PyValueError::new_err(format!(
            "Shape mismatch. Expected shape: {}, actual shape: {}",
            crate::shape::format_shape(a.shape()),
            crate::shape::format_shape(&shape)
        )));
    }
    let flags = out.getattr(pyo3::intern!(py, "flags"))?;
    let c: bool = flags
        .getattr(pyo3::intern!(py, "c_contiguous"))?
        .extract()?;
    let f: bool = flags
        .getattr(pyo3::intern!(py, "f_contiguous"))?
        .extract()?;
    if !c && !f {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "Cannot set to non-contiguous array",
        ));
    }
    Ok(())
}

/// NumPy's `ComplexWarning` where complex values become `to` (real: the imaginary parts
/// are discarded; to bool, whether a value is non-zero, NumPy is silent).
fn warn_on_discarded_imag(
    py: Python<'_>,
    from: crate::array::DType,
    to: crate::array::DType,
) -> PyResult<()> {
    use crate::array::DTypeKind::{Bool, Complex};
    if from.kind() == Complex && !matches!(to.kind(), Complex | Bool) {
        ops::complex_warning(py)?;
    }
    Ok(())
}

/// The package's function `name` called with the array first and then `rest` (the methods
/// NumPy has for its functions, where the function is the package's Python part).
fn package_call<'py>(
    slf: &Bound<'py, PyArray>,
    name: &str,
    rest: impl pyo3::IntoPyObject<'py, Target = PyTuple, Output = Bound<'py, PyTuple>>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let rest: Bound<'py, PyTuple> = rest.into_pyobject(py).map_err(Into::into)?;
    let mut args = vec![slf.clone().into_any()];
    args.extend(rest.iter());
    let f = py.import("cuprum")?.getattr(name)?;
    Ok(f.call1(PyTuple::new(py, args)?)?.unbind())
}

/// `order=` (sorting by record fields) is not taken.
fn no_order(order: Option<&Bound<'_, PyAny>>, routine: &str) -> PyResult<()> {
    match order.filter(|o| !o.is_none()) {
        None => Ok(()),
        Some(_) => Err(pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "{routine}: order= (sorting by record fields) is not supported"
        ))),
    }
}
