//! The descriptions behind texture and surface objects, as the CUDA runtime names them
//! (`cudaChannelFormatDesc`, `cudaTextureDesc`), checked once here so that both backends
//! get only shapes the driver accepts: a channel format of 1, 2 or 4 equal channels of 8,
//! 16 or 32 bits (float: 16 or 32), an array of 1 to 3 dimensions within the device's
//! limits, and linear filtering only where the fetch returns floats.
//!
//! The objects themselves (CUDA arrays, texture and surface objects) live in the array
//! layer (`array/texture.rs`), which owns the memory they read; each backend turns these
//! descriptions into its own handles (`cuda/texture.rs`: the driver's `cuArray3DCreate`,
//! `cuTexObjectCreate`, `cuSurfObjectCreate`; `host/texture.rs`: the structures the host
//! prelude's `tex1D`/`surf2Dwrite`… read).

use crate::dtype::DType;
use crate::error::{Result, err};

/// How a channel's bits are read (`cudaChannelFormatKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    /// Signed integers (`cudaChannelFormatKindSigned`, 0).
    Signed,
    /// Unsigned integers (`cudaChannelFormatKindUnsigned`, 1).
    Unsigned,
    /// IEEE floats: 16 (half) or 32 bits (`cudaChannelFormatKindFloat`, 2).
    Float,
}

impl ChannelKind {
    /// The CUDA runtime's number for the kind.
    pub fn code(self) -> u32 {
        match self {
            ChannelKind::Signed => 0,
            ChannelKind::Unsigned => 1,
            ChannelKind::Float => 2,
        }
    }

    /// The kind of CUDA runtime number `code` (0, 1, 2).
    pub fn from_code(code: i64) -> Result<ChannelKind> {
        match code {
            0 => Ok(ChannelKind::Signed),
            1 => Ok(ChannelKind::Unsigned),
            2 => Ok(ChannelKind::Float),
            _ => Err(err!(
                InvalidArgument,
                "channel format kind: expected 0 (signed), 1 (unsigned) or 2 (float), got {code}"
            )),
        }
    }
}

/// The layout of one texel (`cudaChannelFormatDesc`): up to four channels of equal width.
///
/// ```
/// use cuprum::texture::{ChannelFormat, ChannelKind};
/// let f = ChannelFormat::new([32, 0, 0, 0], ChannelKind::Float)?;
/// assert_eq!((f.channels(), f.texel_bytes()), (1, 4));
/// assert_eq!(f.dtype(), cuprum::DType::F32);
/// assert!(ChannelFormat::new([8, 8, 8, 0], ChannelKind::Unsigned).is_err()); // 3 channels
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChannelFormat {
    bits: [u32; 4],
    kind: ChannelKind,
}

impl ChannelFormat {
    /// A format of channel widths `x, y, z, w` in bits (the used channels first, the rest
    /// 0) read as `kind`.
    pub fn new(bits: [u32; 4], kind: ChannelKind) -> Result<ChannelFormat> {
        let channels = bits.iter().take_while(|b| **b != 0).count();
        let bad = |why: &str| {
            err!(
                InvalidArgument,
                "channel format {bits:?} ({kind:?}): {why}; expected 1, 2 or 4 channels of \
                 equal width, 8, 16 or 32 bits each (float: 16 or 32)"
            )
        };
        if bits[channels..].iter().any(|b| *b != 0) {
            return Err(bad("a channel of zero bits before a used one"));
        }
        if channels == 0 {
            return Err(bad("no channel"));
        }
        if channels == 3 {
            return Err(bad("CUDA arrays and textures have no 3-channel texels"));
        }
        if bits[..channels].iter().any(|b| *b != bits[0]) {
            return Err(bad("channels of different widths"));
        }
        let width_ok = match kind {
            ChannelKind::Float => matches!(bits[0], 16 | 32),
            _ => matches!(bits[0], 8 | 16 | 32),
        };
        if !width_ok {
            return Err(bad("an unsupported channel width"));
        }
        Ok(ChannelFormat { bits, kind })
    }

    /// The format whose single channel is one element of `dtype`, `channels` times.
    ///
    /// ```
    /// use cuprum::{DType, texture::{ChannelFormat, ChannelKind}};
    /// let f = ChannelFormat::of(DType::U8, 4)?;
    /// assert_eq!(f, ChannelFormat::new([8, 8, 8, 8], ChannelKind::Unsigned)?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn of(dtype: DType, channels: u32) -> Result<ChannelFormat> {
        let kind = match dtype {
            DType::I8 | DType::I16 | DType::I32 => ChannelKind::Signed,
            DType::U8 | DType::U16 | DType::U32 => ChannelKind::Unsigned,
            DType::F16 | DType::F32 => ChannelKind::Float,
            _ => {
                return Err(err!(
                    DType,
                    "texture channels: expected int8/16/32, uint8/16/32, float16 or float32, \
                     got {}",
                    dtype.name()
                ));
            }
        };
        let b = 8 * dtype.itemsize() as u32;
        let bits = match channels {
            1 => [b, 0, 0, 0],
            2 => [b, b, 0, 0],
            4 => [b, b, b, b],
            n => {
                return Err(err!(
                    InvalidArgument,
                    "texture channels: expected 1, 2 or 4, got {n}"
                ));
            }
        };
        ChannelFormat::new(bits, kind)
    }

    /// Channel widths in bits, `[x, y, z, w]`.
    pub fn bits(&self) -> [u32; 4] {
        self.bits
    }
    /// How the channels are read.
    pub fn kind(&self) -> ChannelKind {
        self.kind
    }
    /// Number of channels (1, 2 or 4).
    pub fn channels(&self) -> u32 {
        self.bits.iter().take_while(|b| **b != 0).count() as u32
    }
    /// Bits of one channel.
    pub fn channel_bits(&self) -> u32 {
        self.bits[0]
    }
    /// Bytes of one texel.
    pub fn texel_bytes(&self) -> usize {
        (self.channels() * self.channel_bits() / 8) as usize
    }
    /// The dtype of one channel (arrays copied to and from a CUDA array have it).
    pub fn dtype(&self) -> DType {
        match (self.kind, self.channel_bits()) {
            (ChannelKind::Signed, 8) => DType::I8,
            (ChannelKind::Signed, 16) => DType::I16,
            (ChannelKind::Signed, _) => DType::I32,
            (ChannelKind::Unsigned, 8) => DType::U8,
            (ChannelKind::Unsigned, 16) => DType::U16,
            (ChannelKind::Unsigned, _) => DType::U32,
            (ChannelKind::Float, 16) => DType::F16,
            (ChannelKind::Float, _) => DType::F32,
        }
    }
    /// Whether a fetch returns integers in element-type read mode (linear filtering needs
    /// floats).
    pub(crate) fn is_integer(&self) -> bool {
        self.kind != ChannelKind::Float
    }
}

/// What a coordinate outside the texture reads (`cudaTextureAddressMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// Repeats the texture (normalized coordinates only; otherwise it clamps), 0.
    Wrap,
    /// The nearest edge texel, 1.
    #[default]
    Clamp,
    /// Repeats the texture mirrored (normalized coordinates only; otherwise it clamps), 2.
    Mirror,
    /// The border colour, 3.
    Border,
}

/// How a fetch between texels is answered (`cudaTextureFilterMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FilterMode {
    /// The texel the coordinate falls in, 0.
    #[default]
    Point,
    /// Linear interpolation of the neighbouring texels (float results only), 1.
    Linear,
}

/// What an integer texture returns (`cudaTextureReadMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReadMode {
    /// The stored value, 0.
    #[default]
    ElementType,
    /// 8- and 16-bit integers as floats in [0, 1] (unsigned) or [-1, 1] (signed), 1.
    NormalizedFloat,
}

macro_rules! codes {
    ($t:ident, $what:literal, $($v:ident = $n:literal),+) => {
        impl $t {
            /// The CUDA runtime's number for the mode.
            pub fn code(self) -> u32 {
                match self { $($t::$v => $n),+ }
            }
            /// The mode of CUDA runtime number `code`.
            pub fn from_code(code: i64) -> Result<$t> {
                match code {
                    $($n => Ok($t::$v),)+
                    _ => Err(err!(InvalidArgument, "{}: unknown value {code}", $what)),
                }
            }
        }
    };
}
codes!(
    AddressMode,
    "texture address mode",
    Wrap = 0,
    Clamp = 1,
    Mirror = 2,
    Border = 3
);
codes!(FilterMode, "texture filter mode", Point = 0, Linear = 1);
codes!(
    ReadMode,
    "texture read mode",
    ElementType = 0,
    NormalizedFloat = 1
);

/// How a texture object samples its resource (`cudaTextureDesc`). The default: clamp on
/// every axis, point filtering, element-type reads, coordinates in texels, border colour
/// 0, no sRGB (CuPy's `TextureDescriptor()` leaves the address modes at wrap, which with
/// coordinates in texels acts as clamp).
///
/// ```
/// use cuprum::texture::{AddressMode, FilterMode, TextureDesc};
/// let d = TextureDesc { filter: FilterMode::Linear, normalized_coords: true, ..TextureDesc::default() };
/// assert_eq!(d.address, [AddressMode::Clamp; 3]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TextureDesc {
    /// Address mode of each dimension (x, y, z).
    pub address: [AddressMode; 3],
    /// Point or linear sampling.
    pub filter: FilterMode,
    /// Element type or normalized float.
    pub read: ReadMode,
    /// Coordinates in [0, 1) instead of texels.
    pub normalized_coords: bool,
    /// sRGB → linear conversion of 8-bit reads.
    pub srgb: bool,
    /// The colour a `Border` address reads.
    pub border_color: [f32; 4],
    /// Anisotropic filtering's limit (1–16; 0 means 1).
    pub max_anisotropy: u32,
}

impl TextureDesc {
    /// Refuses what the driver refuses for `format`: linear filtering of integers read as
    /// integers, normalized reads of 32-bit integers, sRGB of anything but 8-bit integers.
    pub(crate) fn check(&self, format: &ChannelFormat) -> Result<()> {
        let integer_out = format.is_integer() && self.read == ReadMode::ElementType;
        if self.filter == FilterMode::Linear && integer_out {
            return Err(err!(
                InvalidArgument,
                "texture: linear filtering needs float results, but the {:?} format is read as \
                 integers (use ReadMode::NormalizedFloat for 8- and 16-bit integers, or point \
                 filtering)",
                format.kind()
            ));
        }
        if self.read == ReadMode::NormalizedFloat
            && format.is_integer()
            && format.channel_bits() == 32
        {
            return Err(err!(
                InvalidArgument,
                "texture: normalized-float reads need 8- or 16-bit integer channels, got 32 bits"
            ));
        }
        if self.max_anisotropy > 16 {
            return Err(err!(
                InvalidArgument,
                "texture: max anisotropy must be 0 to 16, got {}",
                self.max_anisotropy
            ));
        }
        Ok(())
    }
}

/// A CUDA array's shape as the backends get it: `height`/`depth` 0 where the array has
/// fewer dimensions (CUDA's convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArraySpec {
    pub format: ChannelFormat,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    /// Surfaces may read and write it (`cudaArraySurfaceLoadStore`).
    pub surface: bool,
}

impl ArraySpec {
    /// Number of dimensions (1 to 3).
    pub fn ndim(&self) -> usize {
        if self.depth != 0 {
            3
        } else if self.height != 0 {
            2
        } else {
            1
        }
    }
    /// Bytes of one row.
    pub fn row_bytes(&self) -> usize {
        self.width * self.format.texel_bytes()
    }
    /// Rows and slices, each at least 1.
    pub fn rows_slices(&self) -> (usize, usize) {
        (self.height.max(1), self.depth.max(1))
    }
    /// Bytes of the whole array, packed.
    pub fn bytes(&self) -> usize {
        let (h, d) = self.rows_slices();
        self.row_bytes() * h * d
    }
}

/// A backend's CUDA array handle (`CUarray`; the host device's buffer address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawArray(pub(crate) u64);

/// What a texture or surface object reads, as the backend gets it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RawResource {
    /// A CUDA array.
    Array { array: RawArray, spec: ArraySpec },
    /// Linear device memory: `bytes` bytes of texels at `ptr` (`tex1Dfetch`).
    Linear {
        ptr: u64,
        format: ChannelFormat,
        bytes: usize,
    },
    /// A pitched 2-D region: `height` rows of `width` texels, `pitch` bytes apart.
    Pitch2D {
        ptr: u64,
        format: ChannelFormat,
        width: usize,
        height: usize,
        pitch: usize,
    },
}
