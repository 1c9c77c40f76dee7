//! `cuprum.cuda.texture` as CuPy spells it: `ChannelFormatDescriptor`, `CUDAarray`,
//! `ResourceDescriptor`, `TextureDescriptor`, `TextureObject`, `SurfaceObject` — faces
//! over `cuprum::texture` (the checks and messages are the Rust ones). A `TextureObject` is
//! an ElementwiseKernel operand (its parameter's placeholder bound to
//! `cudaTextureObject_t`); both objects are RawKernel arguments (their 64-bit handle).
//!
//! `CUDAarray.copy_from` / `copy_to` take cuprum arrays, other frameworks' device arrays
//! and NumPy arrays (host data goes through a device array of the same shape), on the
//! given `stream` (a `cuprum.cuda.Stream`) or the current one.

use super::array::PyArray;
use super::convert;
use crate::array::Array;
use crate::runtime::Stream;
use crate::texture::{
    AddressMode, ChannelFormat, ChannelKind, CudaArray, FilterMode, ReadMode, Resource,
    SurfaceObject, TextureDesc, TextureObject,
};
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `cudaResourceType` numbers.
const RES_ARRAY: i64 = 0;
const RES_MIPMAPPED: i64 = 1;
const RES_LINEAR: i64 = 2;
const RES_PITCH2D: i64 = 3;
/// `cudaArraySurfaceLoadStore`.
const ARRAY_SURFACE_LOAD_STORE: u32 = 2;

/// `cudaChannelFormatDesc`: channel widths `x, y, z, w` in bits and the kind `f`.
#[pyclass(
    name = "ChannelFormatDescriptor",
    module = "cuprum.cuda.texture",
    frozen
)]
pub(crate) struct PyChannelFormat {
    #[pyo3(get)]
    x: i64,
    #[pyo3(get)]
    y: i64,
    #[pyo3(get)]
    z: i64,
    #[pyo3(get)]
    w: i64,
    #[pyo3(get)]
    f: i64,
}

impl PyChannelFormat {
    /// The checked format (an error for a layout no CUDA array or texture has).
    fn format(&self) -> PyResult<ChannelFormat> {
        let bits = [self.x, self.y, self.z, self.w].map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        Ok(ChannelFormat::new(bits, ChannelKind::from_code(self.f)?)?)
    }
}

#[pymethods]
impl PyChannelFormat {
    #[new]
    fn new(x: i64, y: i64, z: i64, w: i64, f: i64) -> PyChannelFormat {
        PyChannelFormat { x, y, z, w, f }
    }

    /// `{'x': …, 'y': …, 'z': …, 'w': …, 'f': …}`.
    fn get_channel_format<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in [
            ("x", self.x),
            ("y", self.y),
            ("z", self.z),
            ("w", self.w),
            ("f", self.f),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "ChannelFormatDescriptor(x={}, y={}, z={}, w={}, f={})",
            self.x, self.y, self.z, self.w, self.f
        )
    }
}

/// A CUDA array (`CUDAarray(desc, width, height=0, depth=0, flags=0)`).
#[pyclass(name = "CUDAarray", module = "cuprum.cuda.texture", frozen)]
pub(crate) struct PyCudaArray {
    array: CudaArray,
    #[pyo3(get)]
    desc: Py<PyChannelFormat>,
    #[pyo3(get)]
    flags: u32,
}

#[pymethods]
impl PyCudaArray {
    #[new]
    #[pyo3(signature = (desc, width, height = 0, depth = 0, flags = 0))]
    fn new(
        desc: Bound<'_, PyChannelFormat>,
        width: usize,
        height: usize,
        depth: usize,
        flags: u32,
    ) -> PyResult<PyCudaArray> {
        let format = desc.get().format()?;
        let device = crate::runtime::Device::current()?;
        let surface = flags & ARRAY_SURFACE_LOAD_STORE != 0;
        let array = CudaArray::on(device, format, [width, height, depth], surface)?;
        Ok(PyCudaArray {
            array,
            desc: desc.unbind(),
            flags,
        })
    }

    #[getter]
    fn width(&self) -> usize {
        self.array.extent()[0]
    }
    #[getter]
    fn height(&self) -> usize {
        self.array.extent()[1]
    }
    #[getter]
    fn depth(&self) -> usize {
        self.array.extent()[2]
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.array.ndim()
    }

    /// Fills the CUDA array from `in_arr`: shape `(width × channels,)`, `(height, width ×
    /// channels)` or `(depth, height, width × channels)`, the channel dtype (a strided view
    /// is copied into C order first).
    #[pyo3(signature = (in_arr, stream = None))]
    fn copy_from(
        &self,
        in_arr: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let stream = stream_of(stream, &self.array)?;
        let src = if in_arr.is_exact_instance_of::<PyArray>() {
            super::call::device_array(in_arr, None)?
        } else {
            self.check_host(in_arr)?;
            super::call::device_array(in_arr, Some(self.array.format().dtype()))?
        };
        // a strided view is copied into C order first (CuPy takes views too)
        let src = if src.is_c_contiguous() {
            src
        } else {
            src.to_contiguous()?
        };
        self.array.copy_from_on(&src, &stream).map_err(mismatch)
    }

    /// Copies the CUDA array into `out_arr` (a device or NumPy array of the shape and dtype
    /// `copy_from` takes).
    #[pyo3(signature = (out_arr, stream = None))]
    fn copy_to(
        &self,
        out_arr: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = out_arr.py();
        let stream = stream_of(stream, &self.array)?;
        // NumPy: through a device array and `numpy.copyto` (on the host device too, where
        // `device_array` would copy it).
        if !convert::is_numpy_array(out_arr)? {
            let dst = super::call::device_array(out_arr, None)?;
            return self.array.copy_to_on(&dst, &stream).map_err(mismatch);
        }
        self.check_host(out_arr)?;
        let tmp = Array::empty_on(
            &self.array.host_shape(),
            self.array.format().dtype(),
            &stream,
        )?;
        self.array.copy_to_on(&tmp, &stream)?;
        let data = convert::download(py, &tmp)?;
        convert::numpy(py)?.call_method1("copyto", (out_arr, data))?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        let [w, h, d] = self.array.extent();
        format!(
            "<CUDAarray width={w} height={h} depth={d} flags={}>",
            self.flags
        )
    }
}

impl PyCudaArray {
    /// A NumPy array's shape and dtype against the CUDA array's (the device path checks
    /// its own): the same messages as `cuprum::texture`.
    fn check_host(&self, a: &Bound<'_, PyAny>) -> PyResult<()> {
        if !convert::is_numpy_array(a)? {
            return Ok(());
        }
        let shape: Vec<usize> = a.getattr("shape")?.extract()?;
        let dtype = convert::dtype_of(&a.getattr("dtype")?)?;
        let want = self.array.host_shape();
        let fdt = self.array.format().dtype();
        if dtype != fdt {
            return Err(PyValueError::new_err(format!(
                "CudaArray copy: expected a {} array (the channel format's), given {}",
                fdt.name(),
                dtype.name()
            )));
        }
        if shape != want {
            return Err(PyValueError::new_err(format!(
                "CudaArray copy: expected shape {} (the CUDA array's), given {}",
                crate::shape::format_shape(&want),
                crate::shape::format_shape(&shape)
            )));
        }
        Ok(())
    }
}

/// A copy's error: a dtype mismatch is a `ValueError` as CuPy raises it (a shape mismatch
/// is one already: `ShapeError`).
fn mismatch(e: crate::Error) -> PyErr {
    if e.kind() == crate::ErrorKind::DType {
        return PyValueError::new_err(e.to_string());
    }
    e.into()
}

fn stream_of(stream: Option<&Bound<'_, PyAny>>, array: &CudaArray) -> PyResult<Stream> {
    match stream.filter(|s| !s.is_none()) {
        Some(_) => super::cuda::stream_or_current(stream),
        None => Ok(Stream::for_device(array.device())?),
    }
}

/// `cudaResourceDesc` (`ResourceDescriptor(restype, cuArr=None, arr=None, chDesc=None,
/// sizeInBytes=0, width=0, height=0, pitchInBytes=0)`).
#[pyclass(name = "ResourceDescriptor", module = "cuprum.cuda.texture", frozen)]
pub(crate) struct PyResourceDesc {
    resource: Resource,
    #[pyo3(get)]
    restype: i64,
    #[pyo3(get, name = "cuArr")]
    cu_arr: Option<Py<PyCudaArray>>,
    #[pyo3(get)]
    arr: Option<Py<PyAny>>,
    #[pyo3(get, name = "chDesc")]
    ch_desc: Option<Py<PyChannelFormat>>,
    #[pyo3(get, name = "sizeInBytes")]
    size_in_bytes: usize,
    #[pyo3(get)]
    width: usize,
    #[pyo3(get)]
    height: usize,
    #[pyo3(get, name = "pitchInBytes")]
    pitch_in_bytes: usize,
}

#[pymethods]
impl PyResourceDesc {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (restype, cuArr = None, arr = None, chDesc = None, sizeInBytes = 0, width = 0, height = 0, pitchInBytes = 0))]
    fn new(
        restype: i64,
        #[allow(non_snake_case)] cuArr: Option<Bound<'_, PyCudaArray>>,
        arr: Option<Bound<'_, PyAny>>,
        #[allow(non_snake_case)] chDesc: Option<Bound<'_, PyChannelFormat>>,
        #[allow(non_snake_case)] sizeInBytes: usize,
        width: usize,
        height: usize,
        #[allow(non_snake_case)] pitchInBytes: usize,
    ) -> PyResult<PyResourceDesc> {
        let memory = |what: &str| -> PyResult<(Array, ChannelFormat)> {
            let (Some(a), Some(c)) = (&arr, &chDesc) else {
                return Err(PyValueError::new_err(format!(
                    "ResourceDescriptor: a {what} resource needs arr (a device array) and \
                     chDesc (a ChannelFormatDescriptor)"
                )));
            };
            Ok((super::call::device_array(a, None)?, c.get().format()?))
        };
        let resource = match restype {
            RES_ARRAY => match &cuArr {
                Some(c) => Resource::Array(c.get().array.clone()),
                None => {
                    return Err(PyValueError::new_err(
                        "ResourceDescriptor: an array resource (cudaResourceTypeArray) needs \
                         cuArr (a CUDAarray)",
                    ));
                }
            },
            RES_MIPMAPPED => {
                return Err(PyNotImplementedError::new_err(
                    "ResourceDescriptor: mipmapped arrays (cudaResourceTypeMipmappedArray) \
                     are not supported",
                ));
            }
            RES_LINEAR => {
                let (array, format) = memory("linear")?;
                Resource::Linear {
                    array,
                    format,
                    bytes: sizeInBytes,
                }
            }
            RES_PITCH2D => {
                let (array, format) = memory("pitch-2D")?;
                Resource::Pitch2D {
                    array,
                    format,
                    width,
                    height,
                    pitch: pitchInBytes,
                }
            }
            n => {
                return Err(PyValueError::new_err(format!(
                    "ResourceDescriptor: restype must be 0 (array), 2 (linear) or 3 \
                     (pitch-2D), got {n}"
                )));
            }
        };
        Ok(PyResourceDesc {
            resource,
            restype,
            cu_arr: cuArr.map(Bound::unbind),
            arr: arr.map(Bound::unbind),
            ch_desc: chDesc.map(Bound::unbind),
            size_in_bytes: sizeInBytes,
            width,
            height,
            pitch_in_bytes: pitchInBytes,
        })
    }

    /// The description as a dict (`resType` and the fields of its kind).
    fn get_resource_desc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("resType", self.restype)?;
        match &self.resource {
            Resource::Array(_) => {
                d.set_item("array", self.cu_arr.as_ref().map(|a| a.clone_ref(py)))?
            }
            Resource::Linear { .. } => {
                d.set_item("devPtr", self.arr.as_ref().map(|a| a.clone_ref(py)))?;
                d.set_item("desc", self.ch_desc.as_ref().map(|c| c.clone_ref(py)))?;
                d.set_item("sizeInBytes", self.size_in_bytes)?;
            }
            Resource::Pitch2D { .. } => {
                d.set_item("devPtr", self.arr.as_ref().map(|a| a.clone_ref(py)))?;
                d.set_item("desc", self.ch_desc.as_ref().map(|c| c.clone_ref(py)))?;
                d.set_item("width", self.width)?;
                d.set_item("height", self.height)?;
                d.set_item("pitchInBytes", self.pitch_in_bytes)?;
            }
        }
        Ok(d)
    }
}

/// `cudaTextureDesc` (`TextureDescriptor(addressModes=None, filterMode=0, readMode=0,
/// sRGB=None, borderColors=None, normalizedCoords=None, maxAnisotropy=None)`).
#[pyclass(name = "TextureDescriptor", module = "cuprum.cuda.texture", frozen)]
pub(crate) struct PyTextureDesc {
    desc: TextureDesc,
}

#[pymethods]
impl PyTextureDesc {
    #[new]
    #[allow(non_snake_case)]
    #[pyo3(signature = (addressModes = None, filterMode = 0, readMode = 0, sRGB = None, borderColors = None, normalizedCoords = None, maxAnisotropy = None))]
    fn new(
        addressModes: Option<Vec<i64>>,
        filterMode: i64,
        readMode: i64,
        sRGB: Option<&Bound<'_, PyAny>>,
        borderColors: Option<Vec<f32>>,
        normalizedCoords: Option<&Bound<'_, PyAny>>,
        maxAnisotropy: Option<u32>,
    ) -> PyResult<PyTextureDesc> {
        let mut desc = TextureDesc {
            address: [AddressMode::Wrap; 3],
            filter: FilterMode::from_code(filterMode)?,
            read: ReadMode::from_code(readMode)?,
            // CUDA's int fields: any truthy value (CuPy passes ints or bools)
            normalized_coords: truthy(normalizedCoords)?,
            srgb: truthy(sRGB)?,
            border_color: [0.0; 4],
            max_anisotropy: maxAnisotropy.unwrap_or(0),
        };
        if let Some(modes) = addressModes {
            if modes.len() > 3 {
                return Err(PyValueError::new_err(format!(
                    "TextureDescriptor: at most 3 address modes, given {}",
                    modes.len()
                )));
            }
            for (slot, m) in desc.address.iter_mut().zip(modes) {
                *slot = AddressMode::from_code(m)?;
            }
        }
        if let Some(colors) = borderColors {
            if colors.len() > 4 {
                return Err(PyValueError::new_err(format!(
                    "TextureDescriptor: at most 4 border colours, given {}",
                    colors.len()
                )));
            }
            desc.border_color[..colors.len()].copy_from_slice(&colors);
        }
        Ok(PyTextureDesc { desc })
    }

    /// The description as a dict (CUDA's field names).
    fn get_texture_desc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let t = &self.desc;
        d.set_item("addressMode", t.address.map(|a| a.code()).to_vec())?;
        d.set_item("filterMode", t.filter.code())?;
        d.set_item("readMode", t.read.code())?;
        d.set_item("sRGB", t.srgb as u32)?;
        d.set_item("borderColor", t.border_color.to_vec())?;
        d.set_item("normalizedCoords", t.normalized_coords as u32)?;
        d.set_item("maxAnisotropy", t.max_anisotropy)?;
        Ok(d)
    }
}

/// A texture object (`TextureObject(ResDesc, TexDesc)`; `ptr` is its handle).
#[pyclass(name = "TextureObject", module = "cuprum.cuda.texture", frozen)]
pub(crate) struct PyTextureObject {
    pub(crate) object: TextureObject,
    #[pyo3(get, name = "ResDesc")]
    res_desc: Py<PyResourceDesc>,
    #[pyo3(get, name = "TexDesc")]
    tex_desc: Py<PyTextureDesc>,
}

#[pymethods]
impl PyTextureObject {
    #[new]
    #[allow(non_snake_case)]
    fn new(
        ResDesc: Bound<'_, PyResourceDesc>,
        TexDesc: Bound<'_, PyTextureDesc>,
    ) -> PyResult<PyTextureObject> {
        let object = TextureObject::new(&ResDesc.get().resource, &TexDesc.get().desc)?;
        Ok(PyTextureObject {
            object,
            res_desc: ResDesc.unbind(),
            tex_desc: TexDesc.unbind(),
        })
    }

    /// The 64-bit handle (`cudaTextureObject_t`).
    #[getter]
    fn ptr(&self) -> u64 {
        self.object.handle()
    }
}

/// A surface object (`SurfaceObject(ResDesc)` over a CUDA array made with
/// `cudaArraySurfaceLoadStore`; `ptr` is its handle).
#[pyclass(name = "SurfaceObject", module = "cuprum.cuda.texture", frozen)]
pub(crate) struct PySurfaceObject {
    pub(crate) object: SurfaceObject,
    #[pyo3(get, name = "ResDesc")]
    res_desc: Py<PyResourceDesc>,
}

#[pymethods]
impl PySurfaceObject {
    #[new]
    #[allow(non_snake_case)]
    fn new(ResDesc: Bound<'_, PyResourceDesc>) -> PyResult<PySurfaceObject> {
        let Resource::Array(array) = &ResDesc.get().resource else {
            return Err(PyValueError::new_err(
                "SurfaceObject: expected a ResourceDescriptor of a CUDA array \
                 (cudaResourceTypeArray)",
            ));
        };
        let object = SurfaceObject::new(array)?;
        Ok(PySurfaceObject {
            object,
            res_desc: ResDesc.unbind(),
        })
    }

    /// The 64-bit handle (`cudaSurfaceObject_t`).
    #[getter]
    fn ptr(&self) -> u64 {
        self.object.handle()
    }
}

/// The handle of a texture or surface object, as a raw kernel argument.
pub(crate) fn handle_of(obj: &Bound<'_, PyAny>) -> Option<(u64, &'static str)> {
    if let Ok(t) = obj.cast::<PyTextureObject>() {
        return Some((t.get().object.handle(), "TextureObject"));
    }
    if let Ok(s) = obj.cast::<PySurfaceObject>() {
        return Some((s.get().object.handle(), "SurfaceObject"));
    }
    None
}

/// Adds the texture classes to `m` (the package's `cuprum.cuda.texture` re-exports them).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyChannelFormat>()?;
    m.add_class::<PyCudaArray>()?;
    m.add_class::<PyResourceDesc>()?;
    m.add_class::<PyTextureDesc>()?;
    m.add_class::<PyTextureObject>()?;
    m.add_class::<PySurfaceObject>()
}

/// An optional flag given as a bool or an int (absent: false).
fn truthy(v: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
    v.map_or(Ok(false), |v| v.is_truthy())
}
