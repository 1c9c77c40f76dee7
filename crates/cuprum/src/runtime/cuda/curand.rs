//! cuRAND, loaded at run time (probed first: a missing library is `ErrorKind::Random`,
//! never a panic): the CUDA backend's generators (Philox, or cuRAND's default XORWOW for
//! CuPy's legacy `RandomState`), each bound to one device.

use super::CudaDevice;
use crate::error::{Error, ErrorKind, Result, bail};
use crate::runtime::backend::{Fill, RawStream, RngAlgorithm, RngBackend};
use crate::runtime::fault::sticky;
use cudarc::curand::{result as cr, sys};
use cudarc::driver::CudaContext;
use std::sync::{Arc, OnceLock};

/// A cuRAND host-API generator on one GPU.
pub(crate) struct Curand {
    raw: sys::curandGenerator_t,
    ordinal: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: a cuRAND generator may be used from any thread as long as calls are not
// concurrent; every method takes `&mut self`.
unsafe impl Send for Curand {}

impl Drop for Curand {
    fn drop(&mut self) {
        if self.bind().is_ok() {
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

impl Curand {
    /// A generator of `algorithm` on `device` (whose context is current) with `seed`, at
    /// offset 0.
    pub(crate) fn new(device: &CudaDevice, seed: u64, algorithm: RngAlgorithm) -> Result<Curand> {
        curand_present()?;
        let kind = match algorithm {
            RngAlgorithm::Philox => sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
            RngAlgorithm::CurandDefault => sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT,
        };
        let raw =
            cr::create_generator_kind(kind).map_err(|e| curand_err(e, "curandCreateGenerator"))?;
        let mut g = Curand {
            raw,
            ordinal: device.ordinal(),
            ctx: device.ctx.clone(),
        };
        g.reseed_only(seed)?;
        Ok(g)
    }

    fn bind(&self) -> Result<()> {
        sticky::check(self.ordinal)?;
        super::driver::bind(&self.ctx)
            .map_err(|e| super::driver::to_error(e, "cuCtxSetCurrent", Some(self.ordinal)))
    }

    fn reseed_only(&mut self, seed: u64) -> Result<()> {
        // SAFETY: the generator is live.
        unsafe { cr::set_seed(self.raw, seed) }.map_err(|e| curand_err(e, "curandSetSeed"))
    }
}

impl RngBackend for Curand {
    fn reseed(&mut self, seed: u64) -> Result<()> {
        self.reseed_only(seed)?;
        // SAFETY: the generator is live.
        unsafe { cr::set_offset(self.raw, 0) }.map_err(|e| curand_err(e, "curandSetOffset"))
    }

    unsafe fn fill(&mut self, ptr: u64, len: usize, fill: Fill, stream: RawStream) -> Result<()> {
        self.bind()?;
        // SAFETY: generator and stream are live and on the same device.
        unsafe { cr::set_stream(self.raw, stream.0 as sys::cudaStream_t) }
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
