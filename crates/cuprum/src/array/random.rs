//! Random arrays on one device: the per-device generators (cuRAND's Philox on a GPU,
//! cuprum's own on the host device) and the fills behind `cuprum::random` (see
//! `src/random.rs` for the user's view).

use super::device_array::Array;
use super::dtype::DType;
use super::kernels::{self, KernelKey};
use super::scalar::Scalar;
use crate::error::{Result, bail};
use crate::runtime::{Device, Fill, Philox, Stream};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A cuRAND generator bound to one device.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::{random::Generator, DType};
/// let mut g = Generator::new(7)?;
/// let a = g.normal(0.0, 1.0, &[4], DType::F32)?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Generator {
    philox: Philox,
}

impl Generator {
    /// A Philox generator on the current device with `seed`.
    pub fn new(seed: u64) -> Result<Generator> {
        let philox = Philox::new(Device::current()?, seed)?;
        Ok(Generator { philox })
    }

    /// Reseeds the generator.
    pub fn seed(&mut self, seed: u64) -> Result<()> {
        self.philox.reseed(seed)
    }

    /// Uniform values in `[low, high)` (all `low` when `low == high`).
    pub fn uniform(&mut self, low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        if !(low.is_finite() && high.is_finite()) {
            bail!(
                InvalidArgument,
                "uniform bounds must be finite, got [{low}, {high})"
            );
        }
        if low > high {
            bail!(
                InvalidArgument,
                "uniform needs low <= high, got [{low}, {high})"
            );
        }
        let (a, _) = self.generate(shape, dtype, Dist::Uniform)?;
        // cuRAND gives (0, 1]; high - (high - low) * u, clamped, lies in [low, high).
        to_interval(&a, low, high)?;
        Ok(a)
    }

    /// Normal values with mean `loc` and standard deviation `scale` (≥ 0).
    pub fn normal(&mut self, loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        if scale.is_nan() || scale < 0.0 || !scale.is_finite() || !loc.is_finite() {
            bail!(
                InvalidArgument,
                "normal needs a finite loc and scale >= 0, got loc={loc}, scale={scale}"
            );
        }
        Ok(self.generate(shape, dtype, Dist::Normal(loc, scale))?.0)
    }

    /// Uniform values in `[0, 1)`.
    pub fn random(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.uniform(0.0, 1.0, shape, dtype)
    }

    /// Normal values with mean 0 and standard deviation 1 (NumPy's `standard_normal`, the
    /// seeds' `randn`), float32 or float64.
    pub fn standard_normal(&mut self, shape: &[usize], dtype: DType) -> Result<Array> {
        self.normal(0.0, 1.0, shape, dtype)
    }

    /// Integers uniform in `[low, high)` of a bool or integer `dtype` (NumPy's `randint`):
    /// 64 random bits per element mapped onto the range by a multiply-high, so each value's
    /// probability is `1 / (high - low)` to within a relative `(high - low) / 2^64`.
    /// Errors (as NumPy's): `low >= high`, and bounds outside the dtype (`high` may be its
    /// largest value + 1).
    pub fn randint(
        &mut self,
        low: impl Into<i128>,
        high: impl Into<i128>,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        let (low, high) = (low.into(), high.into());
        let (lo_ok, hi_ok) = match int_range(dtype) {
            Some((min, max)) => (low >= min, high <= max + 1),
            None => bail!(
                DType,
                "Unsupported dtype {dtype} for randint (bool or an integer dtype)"
            ),
        };
        if !lo_ok {
            bail!(
                InvalidArgument,
                "low is out of bounds for {dtype} (low = {low})"
            );
        }
        if !hi_ok {
            bail!(
                InvalidArgument,
                "high is out of bounds for {dtype} (high = {high})"
            );
        }
        if low >= high {
            bail!(
                InvalidArgument,
                "low >= high ({low} >= {high}): the range is empty"
            );
        }
        let n = super::shape::size_of(shape)?;
        let stream = Stream::current()?;
        let out = Array::empty_on(shape, dtype, &stream)?;
        if n == 0 {
            return Ok(out);
        }
        let bits = self.bits(2 * n)?;
        // 2^64 (the whole range of a 64-bit dtype) is passed as 0.
        let range = (high - low) as u128;
        let range = if range >> 64 != 0 { 0u64 } else { range as u64 };
        kernels::rand_int(&out, &bits, low as i64 as u64, range, &stream)?;
        Ok(out)
    }

    /// `words` random 32-bit words (cuRAND's raw output) as a uint32 array.
    fn bits(&mut self, words: usize) -> Result<Array> {
        let stream = self.stream()?;
        let out = Array::empty_on(&[words], DType::U32, &stream)?;
        if words > 0 {
            // SAFETY: `out` is a new contiguous uint32 array of `words` elements on this
            // stream, which is on the generator's device.
            unsafe {
                self.philox
                    .fill(out.ptr_on(&stream), words, Fill::BitsU32, &stream)?
            };
        }
        Ok(out)
    }

    /// The current stream, which must be on the generator's device.
    fn stream(&self) -> Result<Stream> {
        let stream = Stream::current()?;
        let device = self.philox.device();
        if stream.device() != device {
            bail!(
                InvalidArgument,
                "the generator belongs to {device}, the current stream to {}",
                stream.device()
            );
        }
        Ok(stream)
    }

    fn generate(&mut self, shape: &[usize], dtype: DType, dist: Dist) -> Result<(Array, ())> {
        if !matches!(dtype, DType::F32 | DType::F64) {
            bail!(DType, "cuRAND generates float32 or float64, not {dtype}");
        }
        let n = super::shape::size_of(shape)?;
        let stream = self.stream()?;
        // Normal generation needs an even count: allocate one spare element.
        let len = if matches!(dist, Dist::Normal(..)) {
            n + (n & 1)
        } else {
            n
        };
        let base = Array::empty_on(&[len], dtype, &stream)?;
        if n > 0 {
            let fill = match (dtype, dist) {
                (DType::F32, Dist::Uniform) => Fill::UniformF32,
                (_, Dist::Uniform) => Fill::UniformF64,
                (DType::F32, Dist::Normal(m, s)) => Fill::NormalF32(m as f32, s as f32),
                (_, Dist::Normal(m, s)) => Fill::NormalF64(m, s),
            };
            // SAFETY: `base` is a new contiguous array of `len` elements of `dtype` (float32
            // or float64, as the fill) on this stream, `len` even for a normal fill.
            unsafe { self.philox.fill(base.ptr_on(&stream), len, fill, &stream)? };
        }
        let flat = if len == n {
            base
        } else {
            base.slice(&[(0..n as isize).into()])?
        };
        let shaped: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        Ok((flat.reshape(&shaped)?, ()))
    }
}

#[derive(Clone, Copy)]
enum Dist {
    Uniform,
    Normal(f64, f64),
}

fn to_interval(a: &Array, low: f64, high: f64) -> Result<()> {
    let stream = Stream::current()?;
    let key = KernelKey::Uniform(a.dtype());
    match a.dtype() {
        DType::F32 => {
            let (l, h) = (low as f32, high as f32);
            if l > h {
                bail!(
                    InvalidArgument,
                    "uniform bounds [{low}, {high}) are out of order in float32"
                );
            }
            kernels::launch_1d(a, key, &[Scalar::F32(l), Scalar::F32(h)], &stream)
        }
        _ => kernels::launch_1d(a, key, &[Scalar::F64(low), Scalar::F64(high)], &stream),
    }
}

fn defaults() -> &'static Mutex<HashMap<usize, Generator>> {
    static D: OnceLock<Mutex<HashMap<usize, Generator>>> = OnceLock::new();
    D.get_or_init(Default::default)
}

fn with_default<R>(f: impl FnOnce(&mut Generator) -> Result<R>) -> Result<R> {
    let device = Device::current()?;
    let mut map = defaults().lock().unwrap_or_else(|p| p.into_inner());
    let g = match map.entry(device.ordinal()) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x5eed);
            e.insert(Generator::new(seed)?)
        }
    };
    f(g)
}

/// Seeds the current device's default generator (like `cupy.random.seed`).
pub fn seed(seed: u64) -> Result<()> {
    let device = Device::current()?;
    let g = Generator::new(seed)?;
    defaults()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(device.ordinal(), g);
    Ok(())
}

/// Uniform values in `[0, 1)` from the default generator.
pub fn random(shape: &[usize], dtype: DType) -> Result<Array> {
    with_default(|g| g.random(shape, dtype))
}

/// Uniform values in `[low, high)` from the default generator.
pub fn uniform(low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_default(|g| g.uniform(low, high, shape, dtype))
}

/// Normal values from the default generator.
pub fn normal(loc: f64, scale: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    with_default(|g| g.normal(loc, scale, shape, dtype))
}

/// Standard normal values (mean 0, standard deviation 1; NumPy's `standard_normal`, the
/// seeds' `randn`) from the default generator, float32 or float64.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::{random, DType};
/// let z = random::standard_normal(&[1000], DType::F64)?;
/// assert_eq!(z.shape(), &[1000]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn standard_normal(shape: &[usize], dtype: DType) -> Result<Array> {
    with_default(|g| g.standard_normal(shape, dtype))
}

/// Integers uniform in `[low, high)` from the default generator ([`Generator::randint`]).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::{random, DType};
/// let dice = random::randint(1, 7, &[10], DType::U8)?;
/// assert!(dice.to_vec::<u8>()?.iter().all(|&d| (1..7).contains(&d)));
/// assert!(random::randint(5, 5, &[1], DType::I32).is_err());   // empty range
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn randint(
    low: impl Into<i128>,
    high: impl Into<i128>,
    shape: &[usize],
    dtype: DType,
) -> Result<Array> {
    let (low, high) = (low.into(), high.into());
    with_default(|g| g.randint(low, high, shape, dtype))
}

/// The inclusive value range of a bool or integer dtype.
fn int_range(d: DType) -> Option<(i128, i128)> {
    if d == DType::Bool {
        return Some((0, 1));
    }
    if !d.is_integer() {
        return None;
    }
    let bits = 8 * d.itemsize() as u32;
    Some(if d.kind() == super::dtype::DTypeKind::SignedInt {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    })
}
