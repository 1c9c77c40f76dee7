//! Textures and surfaces (`cuprum::texture`): CUDA arrays, the texture objects that sample
//! them (or linear and pitched device memory) and the surface objects that read and write
//! them, as CuPy's `cupy.cuda.texture` offers them. A kernel gets an object's 64-bit
//! handle: an [`ElementwiseKernel`](crate::ElementwiseKernel) operand
//! ([`Operand::Texture`](crate::kernel::Operand::Texture), its parameter's type placeholder
//! bound to `cudaTextureObject_t`), or a raw kernel argument (`u64`).
//!
//! **Lifetimes.** A texture object keeps what it reads alive (a clone of its
//! [`Resource`]); a surface object keeps its CUDA array. Kernels that use a handle are not
//! tracked per stream, so dropping the last clone of an object or a CUDA array first waits
//! for the whole device and only then destroys it (a Rust kernel's recorded fault is left
//! for the next `synchronize`); if that wait cannot be made (a broken context, or inside a
//! graph capture, whose graph may use the object when launched) the object is leaked
//! rather than freed under work that may use it.
//!
//! **Copies.** A CUDA array is filled from and read back into a C-contiguous [`Array`] of
//! the format's channel dtype, shaped `(width × channels,)`, `(height, width × channels)`
//! or `(depth, height, width × channels)` as CuPy shapes it, queued on the array's stream
//! for the device.
//!
//! On the host device a CUDA array is packed host memory and a handle the address of a
//! structure the host prelude's `tex1D`/`tex2D`/`tex3D`/`tex1Dfetch` and `surf*read`/
//! `surf*write` read, with CUDA's addressing, filtering (8-bit fixed-point weights) and
//! read modes.

use super::Array;
use crate::error::{Result, bail};
use crate::runtime::texture::{ArraySpec, RawArray, RawResource};
use crate::runtime::{Device, Stream};
use std::mem::ManuallyDrop;
use std::sync::Arc;

pub use crate::runtime::texture::{
    AddressMode, ChannelFormat, ChannelKind, FilterMode, ReadMode, TextureDesc,
};

/// Texture limits of the GPUs cuprum targets (compute capability 9.0: `maxTexture1D`,
/// `maxTexture2D`, `maxTexture3D`), checked on every device so that the host device
/// refuses what a GPU would.
const MAX_1D: usize = 131_072;
const MAX_2D: [usize; 2] = [131_072, 65_536];
const MAX_3D: usize = 16_384;
/// The alignment CUDA asks of linear and pitched texture memory (`textureAlignment`) and of
/// a pitch (`texturePitchAlignment`): 512 and 32 bytes on every GPU cuprum runs on; checked
/// on every device, with the host device's answer the GPU's.
pub const TEXTURE_ALIGNMENT: usize = 512;
/// See [`TEXTURE_ALIGNMENT`].
pub const TEXTURE_PITCH_ALIGNMENT: usize = 32;

struct ArrayInner {
    device: Device,
    raw: RawArray,
    spec: ArraySpec,
}

impl Drop for ArrayInner {
    fn drop(&mut self) {
        if self.device.wait_idle().is_ok() {
            // SAFETY: the array came from this device's `create_array(spec)`; every object
            // over it holds this inner, so none is left, and the device has finished all
            // work queued so far (which is all work that could use it).
            unsafe { self.device.backend().destroy_array(self.raw, &self.spec) };
        }
    }
}

/// A CUDA array: 1-, 2- or 3-D texels laid out for texture fetches (CuPy's `CUDAarray`).
/// Clones share the array.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, texture::{ChannelFormat, ChannelKind, CudaArray}};
/// let f = ChannelFormat::new([32, 0, 0, 0], ChannelKind::Float)?;
/// let arr = CudaArray::new(f, [4, 3, 0])?; // width 4, height 3
/// let data = Array::arange(0.0, 12.0, 1.0, cuprum::DType::F32)?.reshape(&[3, 4])?;
/// arr.copy_from(&data)?;
/// let back = Array::zeros(&[3, 4], cuprum::DType::F32)?;
/// arr.copy_to(&back)?;
/// assert_eq!(back.to_vec::<f32>()?, data.to_vec::<f32>()?);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct CudaArray {
    inner: Arc<ArrayInner>,
}

impl std::fmt::Debug for CudaArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.inner.spec;
        write!(
            f,
            "CudaArray({:?}, width {}, height {}, depth {}, on {})",
            s.format, s.width, s.height, s.depth, self.inner.device
        )
    }
}

impl CudaArray {
    /// A CUDA array of `[width, height, depth]` texels on the current device (`height`
    /// and `depth` 0 for fewer dimensions, as CUDA counts them). Surfaces cannot use it:
    /// see [`for_surfaces`](CudaArray::for_surfaces).
    pub fn new(format: ChannelFormat, extent: [usize; 3]) -> Result<CudaArray> {
        CudaArray::on(Device::current()?, format, extent, false)
    }

    /// As [`new`](CudaArray::new), also usable by surface objects
    /// (`cudaArraySurfaceLoadStore`).
    pub fn for_surfaces(format: ChannelFormat, extent: [usize; 3]) -> Result<CudaArray> {
        CudaArray::on(Device::current()?, format, extent, true)
    }

    /// A CUDA array on `device`; `surface`: usable by surface objects too.
    pub fn on(
        device: Device,
        format: ChannelFormat,
        extent: [usize; 3],
        surface: bool,
    ) -> Result<CudaArray> {
        let [width, height, depth] = extent;
        check_extent(extent)?;
        let spec = ArraySpec {
            format,
            width,
            height,
            depth,
            surface,
        };
        device.check_fault()?;
        let raw = device.backend().create_array(&spec)?;
        Ok(CudaArray {
            inner: Arc::new(ArrayInner { device, raw, spec }),
        })
    }

    /// The texel format.
    pub fn format(&self) -> ChannelFormat {
        self.inner.spec.format
    }
    /// `[width, height, depth]` in texels (0 for absent dimensions).
    pub fn extent(&self) -> [usize; 3] {
        let s = &self.inner.spec;
        [s.width, s.height, s.depth]
    }
    /// Number of dimensions (1 to 3).
    pub fn ndim(&self) -> usize {
        self.inner.spec.ndim()
    }
    /// Whether surface objects may use it.
    pub fn is_surface_capable(&self) -> bool {
        self.inner.spec.surface
    }
    /// The device it lives on.
    pub fn device(&self) -> Device {
        self.inner.device
    }

    /// The shape of the arrays it copies from and to: `(width × channels,)`,
    /// `(height, width × channels)` or `(depth, height, width × channels)`.
    pub fn host_shape(&self) -> Vec<usize> {
        let s = &self.inner.spec;
        let w = s.width * s.format.channels() as usize;
        match s.ndim() {
            1 => vec![w],
            2 => vec![s.height, w],
            _ => vec![s.depth, s.height, w],
        }
    }

    /// Fills the CUDA array from `src` (see the module docs for its dtype and shape),
    /// queued on the device's current stream.
    pub fn copy_from(&self, src: &Array) -> Result<()> {
        self.copy(src, true, &Stream::for_device(self.inner.device)?)
    }

    /// [`copy_from`](CudaArray::copy_from) queued on `stream` (of the array's device).
    pub fn copy_from_on(&self, src: &Array, stream: &Stream) -> Result<()> {
        self.copy(src, true, stream)
    }

    /// Copies the CUDA array into `dst` (see the module docs for its dtype and shape),
    /// queued on the device's current stream.
    pub fn copy_to(&self, dst: &Array) -> Result<()> {
        self.copy_to_on(dst, &Stream::for_device(self.inner.device)?)
    }

    /// [`copy_to`](CudaArray::copy_to) queued on `stream` (of the array's device).
    pub fn copy_to_on(&self, dst: &Array, stream: &Stream) -> Result<()> {
        dst.check_writeable("CudaArray::copy_to")?;
        self.copy(dst, false, stream)
    }

    fn copy(&self, a: &Array, into_array: bool, stream: &Stream) -> Result<()> {
        let (what, spec) = (
            if into_array { "copy_from" } else { "copy_to" },
            &self.inner.spec,
        );
        let want = self.host_shape();
        if a.dtype() != spec.format.dtype() {
            bail!(
                DType,
                "CudaArray::{what}: expected a {} array (the channel format's), given {}",
                spec.format.dtype().name(),
                a.dtype().name()
            );
        }
        if a.shape() != want.as_slice() {
            bail!(
                Shape,
                "CudaArray::{what}: expected shape {} (the CUDA array's), given {}",
                crate::shape::format_shape(&want),
                crate::shape::format_shape(a.shape())
            );
        }
        if !a.is_c_contiguous() {
            bail!(
                InvalidArgument,
                "CudaArray::{what}: expected a C-contiguous array, given strides {:?}",
                a.byte_strides()
            );
        }
        if a.device() != self.inner.device || stream.device() != self.inner.device {
            bail!(
                DeviceMismatch,
                "CudaArray::{what}: the CUDA array is on {}, the array on {}, the stream on {}",
                self.inner.device,
                a.device(),
                stream.device()
            );
        }
        stream.device().check_fault()?;
        let linear = a.ptr_on(stream);
        // SAFETY: the array is live (held by `self`) and of `spec`; `a` is a C-contiguous
        // array of `spec.bytes()` bytes (its dtype and shape checked above), taken on
        // `stream` so that its buffer outlives the copy.
        unsafe {
            self.inner.device.backend().copy_array(
                self.inner.raw,
                spec,
                linear,
                into_array,
                stream.raw(),
            )
        }
    }

    fn raw_resource(&self) -> RawResource {
        RawResource::Array {
            array: self.inner.raw,
            spec: self.inner.spec,
        }
    }
}

fn check_extent([w, h, d]: [usize; 3]) -> Result<()> {
    let bad = |why: &str| -> Result<()> {
        bail!(
            InvalidArgument,
            "CUDA array extent [width {w}, height {h}, depth {d}]: {why}"
        )
    };
    if w == 0 {
        return bad("the width must be at least 1");
    }
    if d != 0 && h == 0 {
        return bad("a 3-D array needs a height of at least 1");
    }
    if d != 0 && (w > MAX_3D || h > MAX_3D || d > MAX_3D) {
        return bad(&format!("3-D arrays are at most {MAX_3D} texels a side"));
    }
    if d == 0 && h != 0 && (w > MAX_2D[0] || h > MAX_2D[1]) {
        return bad(&format!(
            "2-D arrays are at most {} × {} texels",
            MAX_2D[0], MAX_2D[1]
        ));
    }
    if h == 0 && w > MAX_1D {
        return bad(&format!("1-D arrays are at most {MAX_1D} texels"));
    }
    Ok(())
}

/// What a texture object reads (`cudaResourceDesc`): a CUDA array, linear device memory
/// (read with `tex1Dfetch`), or a pitched 2-D region of device memory.
#[derive(Clone, Debug)]
pub enum Resource {
    /// A CUDA array (`cudaResourceTypeArray`).
    Array(CudaArray),
    /// The first `bytes` bytes of a C-contiguous array as texels of `format`
    /// (`cudaResourceTypeLinear`); the array starts at a multiple of
    /// [`TEXTURE_ALIGNMENT`].
    Linear {
        /// The memory.
        array: Array,
        /// Its texels.
        format: ChannelFormat,
        /// Bytes read (a multiple of the texel size, at most the array's).
        bytes: usize,
    },
    /// `height` rows of `width` texels, `pitch` bytes apart (a multiple of
    /// [`TEXTURE_PITCH_ALIGNMENT`]), of a C-contiguous array that starts at a multiple of
    /// [`TEXTURE_ALIGNMENT`] (`cudaResourceTypePitch2D`).
    Pitch2D {
        /// The memory.
        array: Array,
        /// Its texels.
        format: ChannelFormat,
        /// Texels per row.
        width: usize,
        /// Rows.
        height: usize,
        /// Bytes from one row to the next.
        pitch: usize,
    },
}

impl Resource {
    fn device(&self) -> Device {
        match self {
            Resource::Array(a) => a.device(),
            Resource::Linear { array, .. } | Resource::Pitch2D { array, .. } => array.device(),
        }
    }

    /// Checks the memory a linear or pitched resource names and gives the backend's view.
    fn raw(&self, stream: &Stream) -> Result<RawResource> {
        Ok(match self {
            Resource::Array(a) => a.raw_resource(),
            Resource::Linear {
                array,
                format,
                bytes,
            } => {
                contiguous(array)?;
                let t = format.texel_bytes();
                if *bytes == 0 || bytes % t != 0 || *bytes > array.nbytes() {
                    bail!(
                        InvalidArgument,
                        "linear texture resource: expected a size in bytes that is a positive \
                         multiple of the texel ({t} bytes) and at most the array's {} bytes, \
                         given {bytes}",
                        array.nbytes()
                    );
                }
                aligned(array, "linear")?;
                RawResource::Linear {
                    ptr: array.ptr_on(stream),
                    format: *format,
                    bytes: *bytes,
                }
            }
            Resource::Pitch2D {
                array,
                format,
                width,
                height,
                pitch,
            } => {
                contiguous(array)?;
                let row = width * format.texel_bytes();
                let need = pitch
                    .checked_mul(height.saturating_sub(1))
                    .and_then(|b| b.checked_add(row));
                if *width == 0 || *height == 0 || row > *pitch || need > Some(array.nbytes()) {
                    bail!(
                        InvalidArgument,
                        "pitch-2D texture resource: expected width and height ≥ 1, a pitch of \
                         at least a row ({row} bytes) and rows within the array's {} bytes; \
                         given width {width}, height {height}, pitch {pitch}",
                        array.nbytes()
                    );
                }
                aligned(array, "pitch-2D")?;
                if pitch % TEXTURE_PITCH_ALIGNMENT != 0 {
                    bail!(
                        InvalidArgument,
                        "pitch-2D texture resource: expected a pitch that is a multiple of \
                         {TEXTURE_PITCH_ALIGNMENT} bytes (CUDA's texture pitch alignment), \
                         given {pitch}"
                    );
                }
                RawResource::Pitch2D {
                    ptr: array.ptr_on(stream),
                    format: *format,
                    width: *width,
                    height: *height,
                    pitch: *pitch,
                }
            }
        })
    }

    fn format(&self) -> ChannelFormat {
        match self {
            Resource::Array(a) => a.format(),
            Resource::Linear { format, .. } | Resource::Pitch2D { format, .. } => *format,
        }
    }
}

/// The memory of a linear or pitched resource starts at a multiple of
/// [`TEXTURE_ALIGNMENT`] (a view of a larger array can be made to).
fn aligned(a: &Array, what: &str) -> Result<()> {
    let off = a.data_ptr() % TEXTURE_ALIGNMENT as u64;
    if off != 0 {
        bail!(
            InvalidArgument,
            "{what} texture resource: expected memory that starts at a multiple of \
             {TEXTURE_ALIGNMENT} bytes (CUDA's texture alignment), given an address {off} bytes \
             past one (take a view of a larger array that starts aligned)"
        );
    }
    Ok(())
}

fn contiguous(a: &Array) -> Result<()> {
    if !a.is_c_contiguous() {
        bail!(
            InvalidArgument,
            "texture resource: expected a C-contiguous array, given strides {:?}",
            a.byte_strides()
        );
    }
    Ok(())
}

struct ObjectInner {
    device: Device,
    handle: u64,
    surface: bool,
    /// What the object reads, kept alive with it (and leaked with it: see the drop).
    resource: ManuallyDrop<Resource>,
}

impl Drop for ObjectInner {
    fn drop(&mut self) {
        if self.device.wait_idle().is_err() {
            // Work that may sample the object has not run (or cannot be waited for): the
            // object and what it reads are leaked, never freed under it.
            return;
        }
        let b = self.device.backend();
        // SAFETY: the handle came from this device's `create_texture`/`create_surface` and
        // is destroyed once, here, after the device has run every kernel that could use it.
        unsafe {
            if self.surface {
                b.destroy_surface(self.handle)
            } else {
                b.destroy_texture(self.handle)
            }
        }
        // SAFETY: dropped once, here; the field is not used after.
        unsafe { ManuallyDrop::drop(&mut self.resource) };
    }
}

/// A texture object (`cudaTextureObject_t`): a resource sampled as a [`TextureDesc`] says.
/// Clones share the object.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ElementwiseKernel};
/// use cuprum::texture::{ChannelFormat, CudaArray, Resource, TextureDesc, TextureObject};
/// let arr = CudaArray::new(ChannelFormat::of(DType::F32, 1)?, [5, 0, 0])?;
/// arr.copy_from(&Array::from_slice(&[1f32, 2., 3., 4., 5.], &[5])?)?;
/// let tex = TextureObject::new(&Resource::Array(arr), &TextureDesc::default())?;
/// let k = ElementwiseKernel::new("T x, U t", "T y", "y = x + tex1D<T>(t, float(i))", "add_tex")?;
/// let x = Array::from_slice(&[10f32, 20., 30., 40., 50.], &[5])?;
/// let y = k.call((&x, &tex))?; // the texture object is an operand
/// assert_eq!(y.to_vec::<f32>()?, vec![11.0, 22.0, 33.0, 44.0, 55.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct TextureObject {
    inner: Arc<ObjectInner>,
    desc: TextureDesc,
}

impl std::fmt::Debug for TextureObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TextureObject({:#x}, {:?})",
            self.inner.handle, self.desc
        )
    }
}

impl TextureObject {
    /// A texture object over `resource`, on its device.
    pub fn new(resource: &Resource, desc: &TextureDesc) -> Result<TextureObject> {
        desc.check(&resource.format())?;
        let device = resource.device();
        device.check_fault()?;
        let stream = Stream::for_device(device)?;
        let raw = resource.raw(&stream)?;
        // SAFETY: the resource's memory is held by the object (`resource`) until it is
        // destroyed.
        let handle = unsafe { device.backend().create_texture(&raw, desc)? };
        Ok(TextureObject {
            inner: Arc::new(ObjectInner {
                device,
                handle,
                surface: false,
                resource: ManuallyDrop::new(resource.clone()),
            }),
            desc: *desc,
        })
    }

    /// The 64-bit handle kernels get (`cudaTextureObject_t`; CuPy's `ptr`).
    pub fn handle(&self) -> u64 {
        self.inner.handle
    }
    /// How it samples.
    pub fn desc(&self) -> &TextureDesc {
        &self.desc
    }
    /// What it reads.
    pub fn resource(&self) -> &Resource {
        &self.inner.resource
    }
    /// The device it lives on.
    pub fn device(&self) -> Device {
        self.inner.device
    }
}

/// A surface object (`cudaSurfaceObject_t`): reads and writes of a CUDA array made
/// [`for_surfaces`](CudaArray::for_surfaces), by byte offset along x (`surf2Dwrite(v, s,
/// x * sizeof(v), y)`). Clones share the object.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, RawKernel, texture::{ChannelFormat, CudaArray, SurfaceObject}};
/// let arr = CudaArray::for_surfaces(ChannelFormat::of(DType::I32, 1)?, [8, 0, 0])?;
/// let surf = SurfaceObject::new(&arr)?;
/// let k = RawKernel::new(
///     r#"extern "C" __global__ void fill(cudaSurfaceObject_t s) {
///         surf1Dwrite(int(threadIdx.x * 3), s, threadIdx.x * 4);
///     }"#,
///     "fill",
/// );
/// k.launch(1u32, 8u32, (&surf,))?;
/// let out = Array::zeros(&[8], DType::I32)?;
/// arr.copy_to(&out)?;
/// assert_eq!(out.to_vec::<i32>()?, (0..8).map(|i| i * 3).collect::<Vec<_>>());
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct SurfaceObject {
    inner: Arc<ObjectInner>,
    array: CudaArray,
}

impl std::fmt::Debug for SurfaceObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SurfaceObject({:#x})", self.inner.handle)
    }
}

impl SurfaceObject {
    /// A surface object over `array`, which must have been made for surfaces.
    pub fn new(array: &CudaArray) -> Result<SurfaceObject> {
        if !array.is_surface_capable() {
            bail!(
                InvalidArgument,
                "SurfaceObject: expected a CUDA array made for surfaces \
                 (CudaArray::for_surfaces, CuPy's flag cudaArraySurfaceLoadStore), given {array:?}"
            );
        }
        let device = array.device();
        device.check_fault()?;
        let raw = array.raw_resource();
        // SAFETY: the array is held by the object until it is destroyed.
        let handle = unsafe { device.backend().create_surface(&raw)? };
        Ok(SurfaceObject {
            inner: Arc::new(ObjectInner {
                device,
                handle,
                surface: true,
                resource: ManuallyDrop::new(Resource::Array(array.clone())),
            }),
            array: array.clone(),
        })
    }

    /// The 64-bit handle kernels get (`cudaSurfaceObject_t`; CuPy's `ptr`).
    pub fn handle(&self) -> u64 {
        self.inner.handle
    }
    /// The CUDA array it reads and writes.
    pub fn array(&self) -> &CudaArray {
        &self.array
    }
}
