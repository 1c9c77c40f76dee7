//! The launch of a `cuprum.jit.rawkernel` kernel already compiled for a signature
//! (`_JitLaunch`): the package's `jit/_kernel.py` translates and compiles per signature of
//! argument types and hands this object the signature's [`Spec`]s and the extents and
//! strides that follow the arguments; a later launch whose arguments match the signature
//! is checked, converted and launched here, in one native call, as the Python path would
//! (a Python float as float32, a complex as complex64, a float16 scalar as float32, a
//! strided array as its first element's address, each extent or element stride as an
//! integer of its parameter's width). Arguments of another signature answer `False` and
//! the Python path takes them (and its errors are the ones a user sees).

use super::array::PyArray;
use super::convert;
use super::kernels::{
    PyRawKernel, RawArg, RawArgs, call_for, dim3, launch_packed, python_value, raw_arg,
};
use crate::array::{Array, DType, Scalar};
use num_complex::Complex;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyTuple};
use smallvec::SmallVec;

/// What one argument of a signature is (`jit/_kernel.py`'s signature entries).
enum Spec {
    /// A `cuprum.ndarray`: dtype, ndim, C-contiguous, 32-bit indexing.
    Array(DType, usize, bool, bool),
    /// A Python int: in int32's range (`true`) or past it.
    Int(bool),
    Float,
    Bool,
    Complex,
    /// A NumPy scalar of this type.
    Numpy(Py<PyAny>, DType),
}

impl Spec {
    fn from_py(t: &Bound<'_, PyTuple>) -> PyResult<Spec> {
        let kind: String = t.get_item(0)?.extract()?;
        Ok(match kind.as_str() {
            "array" => Spec::Array(
                convert::dtype_of(&t.get_item(1)?)?,
                t.get_item(2)?.extract()?,
                t.get_item(3)?.extract()?,
                t.get_item(4)?.extract()?,
            ),
            "int32" => Spec::Int(true),
            "int64" => Spec::Int(false),
            "float" => Spec::Float,
            "bool" => Spec::Bool,
            "complex" => Spec::Complex,
            "numpy" => {
                let ty = t.get_item(1)?;
                let d = convert::dtype_of(&ty)?;
                Spec::Numpy(ty.unbind(), d)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown JIT argument kind {other:?}"
                )));
            }
        })
    }

    fn matches(&self, a: &Bound<'_, PyAny>) -> bool {
        match self {
            Spec::Array(d, nd, contiguous, idx32) => a.cast::<PyArray>().is_ok_and(|p| {
                let x = p.get().array();
                x.dtype() == *d
                    && x.ndim() == *nd
                    && x.is_c_contiguous() == *contiguous
                    && fits_32(x) == *idx32
            }),
            Spec::Int(small) => {
                a.is_exact_instance_of::<PyInt>()
                    && a.extract::<i64>()
                        .is_ok_and(|v| i32::try_from(v).is_ok() == *small)
            }
            Spec::Float => a.is_exact_instance_of::<PyFloat>(),
            Spec::Bool => a.is_exact_instance_of::<PyBool>(),
            Spec::Complex => a.is_exact_instance_of::<PyComplex>(),
            Spec::Numpy(ty, _) => a.get_type().is(ty.bind(a.py())),
        }
    }
}

/// Whether every offset the kernel can form fits in 32 bits (the Python side's rule: the
/// bytes of a contiguous array, the span in bytes of a strided one; cuprum's strides count
/// elements).
fn fits_32(x: &Array) -> bool {
    let span: i128 = if x.is_c_contiguous() {
        x.nbytes() as i128
    } else {
        let item = x.itemsize() as i128;
        item + x
            .shape()
            .iter()
            .zip(x.strides())
            .map(|(&n, &s)| (s as i128).abs() * item * (n as i128 - 1))
            .sum::<i128>()
    };
    span < (1i128 << 31)
}

/// A compiled `cuprum.jit` kernel for one signature (module docs).
#[pyclass(name = "_JitLaunch", module = "cuprum", frozen)]
pub(crate) struct JitLaunch {
    raw: Py<PyRawKernel>,
    specs: Vec<Spec>,
    /// (argument, index into its extents followed by its element strides)
    picks: Vec<(usize, usize)>,
}

#[pymethods]
impl JitLaunch {
    #[new]
    fn new(
        raw: Py<PyRawKernel>,
        specs: &Bound<'_, PyTuple>,
        picks: Vec<(usize, usize)>,
    ) -> PyResult<Self> {
        let specs = specs
            .iter()
            .map(|s| Spec::from_py(s.cast::<PyTuple>()?))
            .collect::<PyResult<Vec<_>>>()?;
        for &(i, _) in &picks {
            if !matches!(specs.get(i), Some(Spec::Array(..))) {
                return Err(PyValueError::new_err(format!(
                    "JIT extent of argument {i}, which is not an array"
                )));
            }
        }
        Ok(JitLaunch { raw, specs, picks })
    }

    /// Launches when `args` match the signature (`True`); `False` launches nothing.
    #[pyo3(signature = (grid, block, args, shared_mem=0, stream=None))]
    fn __call__(
        &self,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        shared_mem: usize,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let Ok(args) = args.cast::<PyTuple>() else {
            return Ok(false);
        };
        if args.len() != self.specs.len() {
            return Ok(false);
        }
        let items: SmallVec<[Bound<'_, PyAny>; 8]> = args.iter().collect();
        if !items.iter().zip(&self.specs).all(|(a, s)| s.matches(a)) {
            return Ok(false);
        }
        let kernel = &self.raw.get().kernel;
        let (grid, block) = (dim3(grid, "grid")?, dim3(block, "block")?);
        let call = call_for(&items)?;
        let sizes = kernel.param_sizes_on(call.device())?;
        let mut packed = RawArgs::new();
        for (i, (a, spec)) in items.iter().zip(&self.specs).enumerate() {
            packed.push(self.arg(&call, a, spec, sizes.get(i).copied(), i)?);
        }
        for (k, &(i, j)) in self.picks.iter().enumerate() {
            let x = items[i].cast::<PyArray>()?.get().array().clone();
            let nd = x.ndim();
            // Extents, then strides (cuprum's are in elements already).
            let v = if j < nd {
                x.shape()[j] as i64
            } else {
                x.strides()[j - nd] as i64
            };
            let at = items.len() + k;
            let (b, n) = python_value(Scalar::I64(v), sizes.get(at).copied(), at)?;
            packed.push(RawArg::Bytes(b, n));
        }
        launch_packed(kernel, &call, (grid, block), &packed, shared_mem, stream)?;
        Ok(true)
    }
}

impl JitLaunch {
    /// One argument as the Python path converts it.
    fn arg(
        &self,
        call: &super::call::Call,
        a: &Bound<'_, PyAny>,
        spec: &Spec,
        size: Option<usize>,
        i: usize,
    ) -> PyResult<RawArg> {
        let value = |s: Scalar| {
            let (bytes, len) = s.to_bytes();
            RawArg::Bytes(SmallVec::from_slice(&bytes[..len]), s.dtype().name())
        };
        Ok(match spec {
            Spec::Float => value(Scalar::F32(a.extract::<f64>()? as f32)),
            Spec::Complex => {
                let c = a.cast::<PyComplex>()?;
                value(Scalar::C64(Complex::new(c.real() as f32, c.imag() as f32)))
            }
            Spec::Numpy(_, DType::F16) => value(Scalar::F32(a.extract::<f64>()? as f32)),
            Spec::Array(_, _, false, _) => {
                let ptr = a.cast::<PyArray>()?.get().array().data_ptr();
                value(Scalar::U64(ptr))
            }
            _ => raw_arg(call, a, size, i)?,
        })
    }
}
