//! A GPU's CUDA arrays, texture and surface objects ([`TextureBackend`] for
//! [`CudaDevice`]): the checked descriptions of `runtime/texture.rs` written into the
//! driver's structures (every field set: no zeroed enums), and the calls in `driver.rs`.
//!
//! The runtime API's element-type read mode is the driver's `CU_TRSF_READ_AS_INTEGER` on
//! integer formats (without it the driver returns normalized floats).

use super::{CudaDevice, driver, stream};
use crate::error::Result;
use crate::runtime::backend::{RawStream, TextureBackend};
use crate::runtime::texture::{
    AddressMode, ArraySpec, ChannelFormat, ChannelKind, FilterMode, RawArray, RawResource,
    ReadMode, TextureDesc,
};
use cudarc::driver::sys;

/// The driver's format of one channel of `f`.
fn array_format(f: &ChannelFormat) -> sys::CUarray_format {
    use sys::CUarray_format as F;
    match (f.kind(), f.channel_bits()) {
        (ChannelKind::Unsigned, 8) => F::CU_AD_FORMAT_UNSIGNED_INT8,
        (ChannelKind::Unsigned, 16) => F::CU_AD_FORMAT_UNSIGNED_INT16,
        (ChannelKind::Unsigned, _) => F::CU_AD_FORMAT_UNSIGNED_INT32,
        (ChannelKind::Signed, 8) => F::CU_AD_FORMAT_SIGNED_INT8,
        (ChannelKind::Signed, 16) => F::CU_AD_FORMAT_SIGNED_INT16,
        (ChannelKind::Signed, _) => F::CU_AD_FORMAT_SIGNED_INT32,
        (ChannelKind::Float, 16) => F::CU_AD_FORMAT_HALF,
        (ChannelKind::Float, _) => F::CU_AD_FORMAT_FLOAT,
    }
}

fn address(m: AddressMode) -> sys::CUaddress_mode {
    use sys::CUaddress_mode as A;
    match m {
        AddressMode::Wrap => A::CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::Clamp => A::CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Mirror => A::CU_TR_ADDRESS_MODE_MIRROR,
        AddressMode::Border => A::CU_TR_ADDRESS_MODE_BORDER,
    }
}

fn filter(m: FilterMode) -> sys::CUfilter_mode {
    match m {
        FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
    }
}

/// The driver's resource description of `r`.
fn resource(r: &RawResource) -> sys::CUDA_RESOURCE_DESC {
    use sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 as Res;
    let (res_type, res) = match *r {
        RawResource::Array { array, .. } => (
            sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY,
            Res {
                array: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 {
                    hArray: array.0 as sys::CUarray,
                },
            },
        ),
        RawResource::Linear { ptr, format, bytes } => (
            sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR,
            Res {
                linear: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
                    devPtr: ptr,
                    format: array_format(&format),
                    numChannels: format.channels(),
                    sizeInBytes: bytes,
                },
            },
        ),
        RawResource::Pitch2D {
            ptr,
            format,
            width,
            height,
            pitch,
        } => (
            sys::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D,
            Res {
                pitch2D: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
                    devPtr: ptr,
                    format: array_format(&format),
                    numChannels: format.channels(),
                    width,
                    height,
                    pitchInBytes: pitch,
                },
            },
        ),
    };
    sys::CUDA_RESOURCE_DESC {
        resType: res_type,
        res,
        flags: 0,
    }
}

/// The channel format a resource reads.
fn format_of(r: &RawResource) -> ChannelFormat {
    match *r {
        RawResource::Array { spec, .. } => spec.format,
        RawResource::Linear { format, .. } | RawResource::Pitch2D { format, .. } => format,
    }
}

/// The driver's texture description of `d` over a resource of `format`.
fn texture(d: &TextureDesc, format: &ChannelFormat) -> sys::CUDA_TEXTURE_DESC {
    let mut flags = 0;
    if d.read == ReadMode::ElementType && format.is_integer() {
        flags |= sys::CU_TRSF_READ_AS_INTEGER;
    }
    if d.normalized_coords {
        flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
    }
    if d.srgb {
        flags |= sys::CU_TRSF_SRGB;
    }
    sys::CUDA_TEXTURE_DESC {
        addressMode: d.address.map(address),
        filterMode: filter(d.filter),
        flags,
        maxAnisotropy: d.max_anisotropy,
        mipmapFilterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: 0.0,
        maxMipmapLevelClamp: 0.0,
        borderColor: d.border_color,
        reserved: [0; 12],
    }
}

impl TextureBackend for CudaDevice {
    fn create_array(&self, spec: &ArraySpec) -> Result<RawArray> {
        self.bind_ctx()?;
        let desc = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: spec.width,
            Height: spec.height,
            Depth: spec.depth,
            Format: array_format(&spec.format),
            NumChannels: spec.format.channels(),
            Flags: if spec.surface {
                sys::CUDA_ARRAY3D_SURFACE_LDST
            } else {
                0
            },
        };
        let a = self.check(driver::array_create(&desc), "cuArray3DCreate")?;
        Ok(RawArray(a as u64))
    }

    unsafe fn destroy_array(&self, array: RawArray, _spec: &ArraySpec) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the caller's contract: a live array of this device nothing uses.
            let _ = unsafe { driver::array_destroy(array.0 as sys::CUarray) };
        }
    }

    unsafe fn copy_array(
        &self,
        array: RawArray,
        spec: &ArraySpec,
        linear: u64,
        into_array: bool,
        s: RawStream,
    ) -> Result<()> {
        self.bind_ctx()?;
        let (rows, slices) = spec.rows_slices();
        let row = spec.row_bytes();
        let arr = array.0 as sys::CUarray;
        let none = std::ptr::null_mut();
        let (src_type, src_device, src_array, dst_type, dst_device, dst_array) = if into_array {
            let (d, a) = (
                sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
                sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
            );
            (d, linear, none, a, 0, arr)
        } else {
            let (a, d) = (
                sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
                sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
            );
            (a, 0, arr, d, linear, none)
        };
        let copy = sys::CUDA_MEMCPY3D {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: src_type,
            srcHost: std::ptr::null(),
            srcDevice: src_device,
            srcArray: src_array,
            reserved0: std::ptr::null_mut(),
            srcPitch: row,
            srcHeight: rows,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: dst_type,
            dstHost: std::ptr::null_mut(),
            dstDevice: dst_device,
            dstArray: dst_array,
            reserved1: std::ptr::null_mut(),
            dstPitch: row,
            dstHeight: rows,
            WidthInBytes: row,
            Height: rows,
            Depth: slices,
        };
        // SAFETY: the caller guarantees the array and the linear range (`spec.bytes()` =
        // row × rows × slices bytes, the extent copied), live until the copy has run.
        self.check(
            unsafe { driver::copy_3d(&copy, stream(s)) },
            "cuMemcpy3DAsync",
        )
    }

    unsafe fn create_texture(&self, r: &RawResource, d: &TextureDesc) -> Result<u64> {
        self.bind_ctx()?;
        let (res, tex) = (resource(r), texture(d, &format_of(r)));
        // SAFETY: the caller keeps the resource's memory alive while the object lives.
        self.check(
            unsafe { driver::texture_create(&res, &tex) },
            "cuTexObjectCreate",
        )
    }

    unsafe fn destroy_texture(&self, handle: u64) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the caller's contract: a live object of this device nothing uses.
            let _ = unsafe { driver::texture_destroy(handle) };
        }
    }

    unsafe fn create_surface(&self, r: &RawResource) -> Result<u64> {
        self.bind_ctx()?;
        let res = resource(r);
        // SAFETY: the caller keeps the array alive while the object lives.
        self.check(
            unsafe { driver::surface_create(&res) },
            "cuSurfObjectCreate",
        )
    }

    unsafe fn destroy_surface(&self, handle: u64) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the caller's contract: a live object of this device nothing uses.
            let _ = unsafe { driver::surface_destroy(handle) };
        }
    }
}
