//! Random arrays through cuRAND (Philox generator): floats (float32 and float64), integers
//! and permutations.
//!
//! On the host device the generator is cuprum's own Philox4x32-10 (the same counter-based
//! algorithm; uniform values in `(0, 1]` from 24 or 53 random bits, normal values by
//! Box–Muller): the same distributions as cuRAND's, but not the same numbers. A seed gives
//! the same numbers on every run of the host device.
//!
//! ```no_run
//! use cuprum::{random, DType};
//! random::seed(42)?;
//! let u = random::uniform(-1.0, 1.0, &[1000], DType::F32)?;   // [-1, 1)
//! let n = random::normal(0.0, 2.0, &[10, 10], DType::F64)?;
//! let r = random::random(&[5], DType::F64)?;                  // [0, 1)
//! let z = random::standard_normal(&[3], DType::F32)?;         // the seeds' randn
//! let k = random::randint(0, 10, &[4], DType::I64)?;          // [0, 10)
//! let p = random::permutation(5)?;                            // 0..5 shuffled (int64)
//! # Ok::<(), cuprum::Error>(())
//! ```

pub use crate::ops::permutation::{permutation, permutation_of};

use super::device_array::Array;
use super::dtype::DType;
use super::kernels::{self, KernelKey};
use crate::error::{Error, ErrorKind, Result, bail};
use crate::runtime::{Device, Stream};
use cudarc::curand::{result as cr, sys};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A cuRAND generator bound to one device.
///
/// ```no_run
/// use cuprum::{random::Generator, DType};
/// let mut g = Generator::new(7)?;
/// let a = g.normal(0.0, 1.0, &[4], DType::F32)?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Generator {
    raw: sys::curandGenerator_t,
    device: Device,
    /// The host device's generator (then `raw` is null).
    host: Option<HostRng>,
}

// SAFETY: a cuRAND generator may be used from any thread as long as calls are not
// concurrent; Generator methods take `&mut self` and the shared default generators live
// behind a Mutex.
unsafe impl Send for Generator {}

impl Drop for Generator {
    fn drop(&mut self) {
        if self.host.is_none() && self.device.bind().is_ok() {
            // SAFETY: the generator was created in `new` and is destroyed once.
            let _ = unsafe { cr::destroy_generator(self.raw) };
        }
    }
}

fn curand_err(e: cr::CurandError, what: &str) -> Error {
    Error::new(ErrorKind::Random, format!("{what} failed: {e:?}"))
}

fn curand_present() -> Result<()> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library; calls no cuRAND function.
    if *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() }) {
        Ok(())
    } else {
        bail!(
            Random,
            "cuRAND (libcurand.so.10) could not be loaded; install the CUDA toolkit or `pip install nvidia-curand`"
        )
    }
}

impl Generator {
    /// A Philox generator on the current device with `seed`.
    pub fn new(seed: u64) -> Result<Generator> {
        let device = Device::current()?;
        if device.is_host() {
            return Ok(Generator {
                raw: std::ptr::null_mut(),
                device,
                host: Some(HostRng::new(seed)),
            });
        }
        curand_present()?;
        device.bind()?;
        let raw = cr::create_generator_kind(sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10)
            .map_err(|e| curand_err(e, "curandCreateGenerator"))?;
        let g = Generator {
            raw,
            device,
            host: None,
        };
        // SAFETY: the generator is live.
        unsafe { cr::set_seed(g.raw, seed) }.map_err(|e| curand_err(e, "curandSetSeed"))?;
        Ok(g)
    }

    /// Reseeds the generator.
    pub fn seed(&mut self, seed: u64) -> Result<()> {
        if let Some(h) = &mut self.host {
            *h = HostRng::new(seed);
            return Ok(());
        }
        // SAFETY: the generator is live.
        unsafe { cr::set_seed(self.raw, seed) }.map_err(|e| curand_err(e, "curandSetSeed"))?;
        // SAFETY: as above; restart the sequence.
        unsafe { cr::set_offset(self.raw, 0) }.map_err(|e| curand_err(e, "curandSetOffset"))
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
        kernels::launch_1d(
            &out,
            KernelKey::RandInt(dtype),
            &[
                &bits.ptr_on(&stream).to_ne_bytes(),
                &(low as i64 as u64).to_ne_bytes(),
                &range.to_ne_bytes(),
            ],
            &stream,
        )?;
        Ok(out)
    }

    /// `words` random 32-bit words (cuRAND's raw output) as a uint32 array.
    pub(crate) fn bits(&mut self, words: usize) -> Result<Array> {
        let stream = self.stream()?;
        let out = Array::empty_on(&[words], DType::U32, &stream)?;
        if words > 0
            && let Some(h) = &mut self.host
        {
            let p = out.ptr_on(&stream);
            // SAFETY: `p` addresses `words` uint32 elements of a live host buffer that no one
            // else uses yet.
            unsafe { h.fill_words(p, words) };
        } else if words > 0 {
            self.device.bind()?;
            // SAFETY: generator and stream are live and on the same device.
            unsafe { cr::set_stream(self.raw, stream.raw().cast()) }
                .map_err(|e| curand_err(e, "curandSetStream"))?;
            let p = out.ptr_on(&stream);
            // SAFETY: `p` addresses `words` uint32 elements of a live buffer.
            unsafe { cr::generate::uniform_u32(self.raw, p as *mut u32, words) }
                .map_err(|e| curand_err(e, "curandGenerate"))?;
        }
        Ok(out)
    }

    /// The current stream, which must be on the generator's device.
    fn stream(&self) -> Result<Stream> {
        let stream = Stream::current()?;
        if stream.device() != self.device {
            bail!(
                InvalidArgument,
                "the generator belongs to device {}, the current stream to device {}",
                self.device.ordinal(),
                stream.device().ordinal()
            );
        }
        Ok(stream)
    }

    fn generate(&mut self, shape: &[usize], dtype: DType, dist: Dist) -> Result<(Array, ())> {
        if !matches!(dtype, DType::F32 | DType::F64) {
            bail!(DType, "cuRAND generates float32 or float64, not {dtype}");
        }
        let n = super::shape::size_of(shape)?;
        let stream = Stream::current()?;
        if stream.device() != self.device {
            bail!(
                InvalidArgument,
                "the generator belongs to device {}, the current stream to device {}",
                self.device.ordinal(),
                stream.device().ordinal()
            );
        }
        // Normal generation needs an even count: allocate one spare element.
        let len = if matches!(dist, Dist::Normal(..)) {
            n + (n & 1)
        } else {
            n
        };
        let base = Array::empty_on(&[len], dtype, &stream)?;
        if n > 0
            && let Some(h) = &mut self.host
        {
            let p = base.ptr_on(&stream);
            // SAFETY: `p` addresses `len` elements of `dtype` in a live host buffer that no
            // one else uses yet.
            unsafe { h.fill(p, len, dtype, dist) };
        } else if n > 0 {
            self.device.bind()?;
            // SAFETY: generator and stream are live and on the same device.
            unsafe { cr::set_stream(self.raw, stream.raw().cast()) }
                .map_err(|e| curand_err(e, "curandSetStream"))?;
            let p = base.ptr_on(&stream);
            // SAFETY: `p` addresses `len` elements of `dtype` in a live buffer.
            let r = unsafe {
                match (dtype, dist) {
                    (DType::F32, Dist::Uniform) => {
                        cr::generate::uniform_f32(self.raw, p as *mut f32, len)
                    }
                    (_, Dist::Uniform) => cr::generate::uniform_f64(self.raw, p as *mut f64, len),
                    (DType::F32, Dist::Normal(m, s)) => {
                        cr::generate::normal_f32(self.raw, p as *mut f32, len, m as f32, s as f32)
                    }
                    (_, Dist::Normal(m, s)) => {
                        cr::generate::normal_f64(self.raw, p as *mut f64, len, m, s)
                    }
                }
            };
            r.map_err(|e| curand_err(e, "curandGenerate"))?;
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

/// The host device's Philox4x32-10 generator: a key from the seed and a counter of the
/// 128-bit blocks used so far.
#[derive(Debug, Clone, Copy)]
struct HostRng {
    key: [u32; 2],
    blocks: u64,
}

/// One Philox4x32-10 block: four random words for counter `ctr` and `key`.
fn philox(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    for _ in 0..10 {
        let p0 = M0 * u64::from(c[0]);
        let p1 = M1 * u64::from(c[2]);
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    c
}

/// Elements generated per task (a multiple of 4 words).
const HOST_CHUNK: usize = 1 << 16;

impl HostRng {
    fn new(seed: u64) -> HostRng {
        HostRng {
            key: [seed as u32, (seed >> 32) as u32],
            blocks: 0,
        }
    }

    /// The words of blocks `[first, ...)` into `out`.
    fn words(&self, first: u64, out: &mut [u32]) {
        for (b, w) in out.chunks_mut(4).enumerate() {
            let ctr = first + b as u64;
            let r = philox([ctr as u32, (ctr >> 32) as u32, 0, 0], self.key);
            w.copy_from_slice(&r[..w.len()]);
        }
    }

    /// Fills `words` raw random 32-bit words at `p`.
    ///
    /// # Safety
    /// `p` must address `words` writable `u32` that nothing else accesses during the call.
    unsafe fn fill_words(&mut self, p: u64, words: usize) {
        // SAFETY: the caller's promise.
        let out = unsafe { std::slice::from_raw_parts_mut(p as usize as *mut u32, words) };
        self.words(self.blocks, out);
        self.blocks += words.div_ceil(4) as u64;
    }

    /// Fills `len` values of `dtype` at `p`, spread over the host device's workers.
    ///
    /// # Safety
    /// `p` must address `len` writable elements of `dtype` (float32 or float64, `len` even
    /// for normal values) that nothing else accesses during the call.
    unsafe fn fill(&mut self, p: u64, len: usize, dtype: DType, dist: Dist) {
        let wide = dtype == DType::F64;
        // Words per element: 1 for float32, 2 for float64 (53 random bits).
        let per = if wide { 2 } else { 1 };
        let chunks = len.div_ceil(HOST_CHUNK);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let this = *self;
        let addr = p as usize;
        crate::runtime::host::launch::on_workers(&|| {
            let mut words = vec![0u32; HOST_CHUNK * 2];
            loop {
                let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if c >= chunks {
                    return;
                }
                let lo = c * HOST_CHUNK;
                let n = (len - lo).min(HOST_CHUNK);
                let w = &mut words[..n * per];
                this.words(this.blocks + (lo * per / 4) as u64, w);
                let unit = |i: usize| -> f64 {
                    if wide {
                        let bits = (u64::from(w[2 * i]) << 32 | u64::from(w[2 * i + 1])) >> 11;
                        (bits + 1) as f64 * (1.0 / (1u64 << 53) as f64)
                    } else {
                        f64::from((w[i] >> 8) + 1) * (1.0 / (1u32 << 24) as f64)
                    }
                };
                let value = |i: usize| -> f64 {
                    match dist {
                        Dist::Uniform => unit(i),
                        Dist::Normal(m, s) => {
                            // Box–Muller on the pair this element belongs to
                            let j = i & !1;
                            let r = (-2.0 * unit(j).ln()).sqrt();
                            let t = 2.0 * std::f64::consts::PI * unit(j + 1);
                            m + s * if i == j { r * t.cos() } else { r * t.sin() }
                        }
                    }
                };
                for i in 0..n {
                    let v = value(i);
                    // SAFETY: element `lo + i` < `len` of the buffer the caller gave;
                    // chunks are disjoint.
                    unsafe {
                        if wide {
                            *(addr as *mut f64).add(lo + i) = v;
                        } else {
                            // a float32 uniform stays in (0, 1]
                            let f = v as f32;
                            *(addr as *mut f32).add(lo + i) = match dist {
                                Dist::Uniform => f.max(f32::MIN_POSITIVE),
                                Dist::Normal(..) => f,
                            };
                        }
                    }
                }
            }
        });
        self.blocks += (len * per).div_ceil(4) as u64;
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
            kernels::launch_1d(a, key, &[&l.to_ne_bytes(), &h.to_ne_bytes()], &stream)
        }
        _ => kernels::launch_1d(a, key, &[&low.to_ne_bytes(), &high.to_ne_bytes()], &stream),
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
/// ```no_run
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
/// ```no_run
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

#[cfg(test)]
mod tests {
    #[test]
    fn philox_matches_the_known_answer() {
        // Random123's known-answer test for Philox4x32-10: counter and key all zero.
        assert_eq!(
            super::philox([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            super::philox([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
    }
}
