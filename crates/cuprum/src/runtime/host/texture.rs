//! The host device's CUDA arrays, texture and surface objects ([`TextureBackend`] for
//! [`HostDevice`]). A CUDA array is a packed block of host memory (rows of `width` texels,
//! zeroed when made); a texture or surface object's handle is the address of a
//! [`HostTexture`] or [`HostSurface`], the structures the host prelude's fetch functions
//! (`include/cuprum/host/texture.h`: `tex1D`, `tex2D`, `tex3D`, `tex1Dfetch`, `surf*read`,
//! `surf*write`) read. Their layout is part of the shim's ABI (`abi.h`, `abi.rs`).

use super::HostDevice;
use crate::error::{Result, err};
use crate::runtime::backend::{MemoryBackend, RawStream, TextureBackend};
use crate::runtime::texture::{ArraySpec, ChannelFormat, RawArray, RawResource, TextureDesc};

/// `cuprum_host_texture` of `abi.h`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostTexture {
    data: u64,
    width: u64,
    height: u64,
    depth: u64,
    row_pitch: u64,
    slice_pitch: u64,
    kind: u32,
    channels: u32,
    bits: u32,
    dims: u32,
    linear: u32,
    address: [u32; 3],
    filter: u32,
    read_mode: u32,
    normalized: u32,
    srgb: u32,
    border: [f32; 4],
}

/// `cuprum_host_surface` of `abi.h`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostSurface {
    data: u64,
    width: u64,
    height: u64,
    depth: u64,
    row_pitch: u64,
    slice_pitch: u64,
    texel_bytes: u32,
    dims: u32,
}

/// Where a resource's texels are: data, extents (1 where absent), pitches, dimensions,
/// format and whether it is linear memory.
struct Layout {
    data: u64,
    extent: [u64; 3],
    row_pitch: u64,
    slice_pitch: u64,
    dims: u32,
    format: ChannelFormat,
    linear: bool,
}

fn layout(r: &RawResource) -> Layout {
    match *r {
        RawResource::Array { array, spec } => {
            let (h, d) = spec.rows_slices();
            let row = spec.row_bytes() as u64;
            Layout {
                data: array.0,
                extent: [spec.width as u64, h as u64, d as u64],
                row_pitch: row,
                slice_pitch: row * h as u64,
                dims: spec.ndim() as u32,
                format: spec.format,
                linear: false,
            }
        }
        RawResource::Linear { ptr, format, bytes } => {
            let n = (bytes / format.texel_bytes()) as u64;
            Layout {
                data: ptr,
                extent: [n, 1, 1],
                row_pitch: bytes as u64,
                slice_pitch: bytes as u64,
                dims: 1,
                format,
                linear: true,
            }
        }
        RawResource::Pitch2D {
            ptr,
            format,
            width,
            height,
            pitch,
        } => Layout {
            data: ptr,
            extent: [width as u64, height as u64, 1],
            row_pitch: pitch as u64,
            slice_pitch: (pitch * height) as u64,
            dims: 2,
            format,
            linear: false,
        },
    }
}

impl TextureBackend for HostDevice {
    fn create_array(&self, spec: &ArraySpec) -> Result<RawArray> {
        let bytes = spec.bytes();
        let p = self.alloc_block(bytes).ok_or_else(|| {
            err!(
                OutOfMemory,
                "out of host memory for a CUDA array of {bytes} bytes"
            )
        })?;
        // SAFETY: a fresh block of `bytes` bytes.
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
        Ok(RawArray(p))
    }

    unsafe fn destroy_array(&self, array: RawArray, spec: &ArraySpec) {
        self.free_block(array.0, spec.bytes());
    }

    unsafe fn copy_array(
        &self,
        array: RawArray,
        spec: &ArraySpec,
        linear: u64,
        into_array: bool,
        s: RawStream,
    ) -> Result<()> {
        let (dst, src) = if into_array {
            (array.0, linear)
        } else {
            (linear, array.0)
        };
        // SAFETY: both are live blocks of `spec.bytes()` bytes (the caller's contract; the
        // array is packed like the linear memory).
        unsafe { self.copy_dtod(dst, src, spec.bytes(), s) }
    }

    unsafe fn create_texture(&self, r: &RawResource, d: &TextureDesc) -> Result<u64> {
        let l = layout(r);
        let t = HostTexture {
            data: l.data,
            width: l.extent[0],
            height: l.extent[1],
            depth: l.extent[2],
            row_pitch: l.row_pitch,
            slice_pitch: l.slice_pitch,
            kind: l.format.kind().code(),
            channels: l.format.channels(),
            bits: l.format.channel_bits(),
            dims: l.dims,
            linear: l.linear as u32,
            address: d.address.map(|a| a.code()),
            filter: d.filter.code(),
            read_mode: d.read.code(),
            normalized: d.normalized_coords as u32,
            srgb: d.srgb as u32,
            border: d.border_color,
        };
        Ok(Box::into_raw(Box::new(t)) as u64)
    }

    unsafe fn destroy_texture(&self, handle: u64) {
        // SAFETY: `handle` came from `Box::into_raw` in `create_texture` and is destroyed
        // once (the caller's contract).
        drop(unsafe { Box::from_raw(handle as *mut HostTexture) });
    }

    unsafe fn create_surface(&self, r: &RawResource) -> Result<u64> {
        let l = layout(r);
        let s = HostSurface {
            data: l.data,
            width: l.extent[0],
            height: l.extent[1],
            depth: l.extent[2],
            row_pitch: l.row_pitch,
            slice_pitch: l.slice_pitch,
            texel_bytes: l.format.texel_bytes() as u32,
            dims: l.dims,
        };
        Ok(Box::into_raw(Box::new(s)) as u64)
    }

    unsafe fn destroy_surface(&self, handle: u64) {
        // SAFETY: `handle` came from `Box::into_raw` in `create_surface` and is destroyed
        // once (the caller's contract).
        drop(unsafe { Box::from_raw(handle as *mut HostSurface) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structures_have_the_c_layout_of_abi_h() {
        // Eight-byte fields first, then 4-byte ones: no padding anywhere.
        assert_eq!(std::mem::size_of::<HostTexture>(), 6 * 8 + 12 * 4 + 16);
        assert_eq!(std::mem::offset_of!(HostTexture, address), 6 * 8 + 5 * 4);
        assert_eq!(std::mem::offset_of!(HostTexture, border), 6 * 8 + 12 * 4);
        assert_eq!(std::mem::size_of::<HostSurface>(), 6 * 8 + 2 * 4);
    }
}
