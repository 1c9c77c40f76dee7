//! Random arrays on one device: the per-device generators (cuRAND's Philox on a GPU,
//! cuprum's own on the host device) and the fills behind `cuprum::random` (see
//! `src/random.rs` for the user's view).
//!
//! Decision: CuPy's legacy numbers come from a second mode of the same [`Generator`]
//! ([`Generator::cupy_compatible`]), not a second type: the same fills, with cuRAND's default
//! generator (XORWOW) and CuPy's post-processing and draw counts (`1 → 0` for `random`,
//! `low + x * (high - low)` for `uniform`, f32-rounded `loc`/`scale` passed to cuRAND, an
//! odd normal count rounded up, `randint` by rejection from 32-bit words, redrawing
//! `max(2 × rejects, 1024)` at a time). Only cuRAND's output order makes the numbers
//! CuPy's, so the host device runs the same steps on its Philox: CuPy's rules, its own
//! numbers.

use super::device_array::Array;
use super::kernels::{self, KernelKey};
use crate::dtype::DType;
use crate::dtype::Scalar;
use crate::error::{Result, bail};
use crate::runtime::{Device, Fill, Rng, RngAlgorithm, Stream};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A cuRAND generator bound to one device.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{random::Generator, DType};
/// let mut g = Generator::new(7)?;
/// let a = g.normal(0.0, 1.0, &[4], DType::F32)?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Generator {
    rng: Rng,
    cupy: bool,
}

impl Generator {
    /// A Philox generator on the current device with `seed`.
    pub fn new(seed: u64) -> Result<Generator> {
        let rng = Rng::new(Device::current()?, seed, RngAlgorithm::Philox)?;
        Ok(Generator { rng, cupy: false })
    }

    /// A generator that draws CuPy's numbers: on a GPU, `cupy.random.RandomState(seed)`'s
    /// (cuRAND's default XORWOW generator, the same calls in the same order), so a CuPy
    /// program seeded with `seed` gets the same values bit for bit from
    /// [`random`](Generator::random), [`uniform`](Generator::uniform),
    /// [`normal`](Generator::normal), [`standard_normal`](Generator::standard_normal) and
    /// [`randint`](Generator::randint) called in the same order. CuPy's rules replace
    /// NumPy's where they differ: `uniform` takes any bounds (`low > high` included), and
    /// `normal` passes `loc` and `scale` to cuRAND rounded to float32, as CuPy does. On the
    /// host device the same rules run on cuprum's Philox (not CuPy's numbers).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{random::Generator, DType};
    /// let mut g = Generator::cupy_compatible(0)?;
    /// let a = g.random(&[5], DType::F64)?;      // cupy.random.seed(0); cupy.random.rand(5)
    /// g.seed(0)?;
    /// assert_eq!(g.random(&[5], DType::F64)?.to_vec::<f64>()?, a.to_vec::<f64>()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cupy_compatible(seed: u64) -> Result<Generator> {
        let rng = Rng::new(Device::current()?, seed, RngAlgorithm::CurandDefault)?;
        Ok(Generator { rng, cupy: true })
    }

    /// Reseeds the generator and restarts its sequence.
    pub fn seed(&mut self, seed: u64) -> Result<()> {
        self.rng.reseed(seed)
    }

    /// Uniform values in `[low, high)` (all `low` when `low == high`).
    pub fn uniform(&mut self, low: f64, high: f64, shape: &[usize], dtype: DType) -> Result<Array> {
        if self.cupy {
            return self.cupy_uniform(low, high, shape, dtype);
        }
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
        let (loc, scale) = if self.cupy {
            // CuPy's binding declares cuRAND's mean and stddev as C floats.
            ((loc as f32) as f64, (scale as f32) as f64)
        } else {
            (loc, scale)
        };
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
        if self.cupy {
            self.cupy_randint(&out, low, (high - 1 - low) as u128, &stream)?;
            return Ok(out);
        }
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
                self.rng
                    .fill(out.ptr_on(&stream), words, Fill::BitsU32, &stream)?
            };
        }
        Ok(out)
    }

    /// The current stream, which must be on the generator's device.
    fn stream(&self) -> Result<Stream> {
        let stream = Stream::current()?;
        let device = self.rng.device();
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
            unsafe { self.rng.fill(base.ptr_on(&stream), len, fill, &stream)? };
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

/// CuPy's legacy steps (see the module docs).
impl Generator {
    /// `random_sample` (cuRAND's `(0, 1]`, `1 → 0`) then `T(low) + x * T(high - low)`.
    fn cupy_uniform(
        &mut self,
        low: f64,
        high: f64,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        let (a, _) = self.generate(shape, dtype, Dist::Uniform)?;
        let stream = Stream::current()?;
        let key = KernelKey::CupyUniform(dtype);
        let bounds = match dtype {
            DType::F32 => [Scalar::F32(low as f32), Scalar::F32(high as f32)],
            _ => [Scalar::F64(low), Scalar::F64(high)],
        };
        kernels::launch_1d(&a, key, &bounds, &stream)?;
        Ok(a)
    }

    /// CuPy's `_interval(mx)` into `out`, plus `low`: `out.size()` samples uniform in
    /// `[0, mx]` (uint32 words, or uint64 from two words when `mx` needs them), values above
    /// the largest multiple of `mx + 1` redrawn, then `low + sample % (mx + 1)`.
    fn cupy_randint(&mut self, out: &Array, low: i128, mx: u128, stream: &Stream) -> Result<()> {
        let n = out.size();
        let low_bits = low as i64 as u64;
        if mx == 0 || n == 0 {
            // CuPy draws nothing when the range holds one value.
            let value = match u64::try_from(low) {
                Ok(v) => Scalar::U64(v),
                Err(_) => Scalar::I64(low as i64),
            };
            let (bytes, len) = value.cast(out.dtype())?.to_bytes();
            return kernels::fill(out, &bytes[..len], stream);
        }
        let wide = mx > u32::MAX as u128;
        let top: u128 = if wide { 1 << 64 } else { 1 << 32 };
        let m = mx + 1; // ≤ 2^64
        let limit = (top - 1 - (top % m)) as u64;
        let words = if wide { 2 * n } else { n };
        let mut samples = self.bits(words)?;
        if !m.is_power_of_two() {
            let rejects = kernels::count_above(&samples, n, wide, limit, stream)?;
            if rejects > 0 {
                samples = self.cupy_redraw(&samples, n, wide, limit, rejects)?;
            }
        }
        // m = 2^64 wraps to 0: no modulo.
        kernels::cupy_rand_int(out, &samples, wide, m as u64, low_bits, stream)
    }

    /// CuPy's rejection loop, on the host (rare: a sample is rejected with probability
    /// below `(mx + 1) / 2^32`): the rejected samples, in index order, take the accepted
    /// values of fresh draws of `max(2 × rejects, 1024)` samples, until none is left.
    fn cupy_redraw(
        &mut self,
        samples: &Array,
        n: usize,
        wide: bool,
        limit: u64,
        rejects: u64,
    ) -> Result<Array> {
        let mut values = samples_on_host(samples, wide)?;
        let mut bad: Vec<usize> = Vec::with_capacity(rejects as usize);
        bad.extend((0..n).filter(|&i| values[i] > limit));
        while !bad.is_empty() {
            let count = (2 * bad.len()).max(1024);
            let fresh = self.bits(if wide { 2 * count } else { count })?;
            let fresh = samples_on_host(&fresh, wide)?;
            let ok = fresh.into_iter().filter(|&v| v <= limit);
            let mut filled = 0;
            for (slot, v) in bad.iter().zip(ok) {
                values[*slot] = v;
                filled += 1;
            }
            bad.drain(..filled);
        }
        let words: Vec<u32> = if wide {
            values
                .iter()
                .flat_map(|&v| [v as u32, (v >> 32) as u32])
                .collect()
        } else {
            values.iter().map(|&v| v as u32).collect()
        };
        let len = words.len();
        Array::from_vec(words, &[len])
    }
}

/// uint32 words as samples: each word, or (`wide`) pairs of words, low word first.
fn samples_on_host(words: &Array, wide: bool) -> Result<Vec<u64>> {
    let w = words.to_vec::<u32>()?;
    Ok(if wide {
        w.chunks_exact(2)
            .map(|p| p[0] as u64 | (p[1] as u64) << 32)
            .collect()
    } else {
        w.into_iter().map(u64::from).collect()
    })
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
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
    Some(if d.kind() == crate::dtype::DTypeKind::SignedInt {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    })
}
