//! [`Rng`]: the random generator random arrays use, bound to one device — cuRAND's
//! Philox4x32-10 (or its default XORWOW, for CuPy's legacy numbers) on a GPU, cuprum's own
//! Philox on the host device (the same distributions, not the same numbers).

use super::backend::{Fill, RngAlgorithm, RngBackend};
use super::device::Device;
use super::stream::Stream;
use crate::error::Result;

/// A random generator on one device.
pub(crate) struct Rng {
    device: Device,
    inner: Box<dyn RngBackend>,
}

impl Rng {
    /// A generator of `algorithm` on `device` with `seed`.
    pub(crate) fn new(device: Device, seed: u64, algorithm: RngAlgorithm) -> Result<Rng> {
        device.check_fault()?;
        let inner = device.backend().rng(seed, algorithm)?;
        Ok(Rng { device, inner })
    }

    /// The device the generator belongs to.
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// Reseeds the generator and restarts its sequence.
    pub(crate) fn reseed(&mut self, seed: u64) -> Result<()> {
        self.inner.reseed(seed)
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
        self.device.check_fault()?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.fill(ptr, len, fill, stream.raw()) }
    }
}
