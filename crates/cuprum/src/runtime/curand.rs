//! cuRAND, loaded at run time (probed first: a missing library is `ErrorKind::Random`,
//! never a panic): a Philox generator bound to one device, and the fills the array layer's
//! random arrays use. On the host device the generator is cuprum's own Philox4x32-10
//! (`host::rng`): the same distributions, not the same numbers.

use super::device::Device;
use super::host::rng::HostRng;
use super::stream::Stream;
use crate::error::{Error, ErrorKind, Result, bail};
use cudarc::curand::{result as cr, sys};
use std::sync::OnceLock;

/// What [`Philox::fill`] writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fill {
    /// float32 in `(0, 1]`.
    UniformF32,
    /// float64 in `(0, 1]`.
    UniformF64,
    /// float32, normal with this mean and standard deviation.
    NormalF32(f32, f32),
    /// float64, normal with this mean and standard deviation.
    NormalF64(f64, f64),
    /// Raw 32-bit words (uint32), every bit uniform.
    BitsU32,
}

/// A Philox generator on one device: cuRAND's on a GPU, cuprum's own on the host device.
pub(crate) struct Philox {
    /// The cuRAND generator; null on the host device.
    raw: sys::curandGenerator_t,
    device: Device,
    /// The host device's generator (then `raw` is null).
    host: Option<HostRng>,
}

// SAFETY: a cuRAND generator may be used from any thread as long as calls are not
// concurrent; every method takes `&mut self`.
unsafe impl Send for Philox {}

impl Drop for Philox {
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

impl Philox {
    /// A generator on `device` with `seed`.
    pub(crate) fn new(device: Device, seed: u64) -> Result<Philox> {
        if device.is_host() {
            return Ok(Philox {
                raw: std::ptr::null_mut(),
                device,
                host: Some(HostRng::new(seed)),
            });
        }
        curand_present()?;
        device.bind()?;
        let raw = cr::create_generator_kind(sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10)
            .map_err(|e| curand_err(e, "curandCreateGenerator"))?;
        let g = Philox {
            raw,
            device,
            host: None,
        };
        // SAFETY: the generator is live.
        unsafe { cr::set_seed(g.raw, seed) }.map_err(|e| curand_err(e, "curandSetSeed"))?;
        Ok(g)
    }

    /// The device the generator belongs to.
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// Reseeds the generator and restarts its sequence.
    pub(crate) fn reseed(&mut self, seed: u64) -> Result<()> {
        if let Some(h) = &mut self.host {
            *h = HostRng::new(seed);
            return Ok(());
        }
        // SAFETY: the generator is live.
        unsafe { cr::set_seed(self.raw, seed) }.map_err(|e| curand_err(e, "curandSetSeed"))?;
        // SAFETY: as above.
        unsafe { cr::set_offset(self.raw, 0) }.map_err(|e| curand_err(e, "curandSetOffset"))
    }

    /// Writes `len` values of `fill` at `ptr` on `stream` (which must be on the generator's
    /// device).
    ///
    /// # Safety
    /// `ptr` must address `len` elements of the fill's type (float32, float64 or uint32) in a live
    /// device allocation of the generator's device that stays allocated until the
    /// generation has run in `stream` order (an address taken with `ptr_on(stream)`); for
    /// a normal fill `len` must be even (cuRAND's requirement).
    pub(crate) unsafe fn fill(
        &mut self,
        ptr: u64,
        len: usize,
        fill: Fill,
        stream: &Stream,
    ) -> Result<()> {
        if let Some(h) = &mut self.host {
            // SAFETY: the caller guarantees `len` elements of the fill's type at `ptr`, in
            // host memory (the host device's), that nothing else uses until the stream
            // reaches the fill; host launches and copies finish before their call returns.
            unsafe { h.fill(ptr, len, fill) };
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: generator and stream are live and on the same device.
        unsafe { cr::set_stream(self.raw, stream.raw().cast()) }
            .map_err(|e| curand_err(e, "curandSetStream"))?;
        // SAFETY: the caller guarantees `len` elements of the fill's type at `ptr`.
        let r = unsafe {
            match fill {
                Fill::UniformF32 => cr::generate::uniform_f32(self.raw, ptr as *mut f32, len),
                Fill::UniformF64 => cr::generate::uniform_f64(self.raw, ptr as *mut f64, len),
                Fill::NormalF32(m, s) => {
                    cr::generate::normal_f32(self.raw, ptr as *mut f32, len, m, s)
                }
                Fill::NormalF64(m, s) => {
                    cr::generate::normal_f64(self.raw, ptr as *mut f64, len, m, s)
                }
                Fill::BitsU32 => cr::generate::uniform_u32(self.raw, ptr as *mut u32, len),
            }
        };
        r.map_err(|e| curand_err(e, "curandGenerate"))
    }
}
