//! The host device's random generator: cuprum's own Philox4x32-10 (the counter-based
//! algorithm cuRAND's Philox generator uses). Uniform values lie in `(0, 1]` (24 random
//! bits for float32, 53 for float64), normal values come from Box–Muller pairs: the same
//! distributions as cuRAND's, not the same numbers. A seed gives the same numbers on every
//! run.

use crate::error::Result;
use crate::runtime::backend::{Fill, RawStream, RngBackend};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A key from the seed and a counter of the 128-bit blocks used so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostRng {
    key: [u32; 2],
    blocks: u64,
}

/// One Philox4x32-10 block: four random words for counter `c` and key `k`.
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
const CHUNK: usize = 1 << 16;

impl HostRng {
    pub(crate) fn new(seed: u64) -> HostRng {
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

    /// Writes `len` values of `fill` at `p`, spread over the host device's workers.
    ///
    /// # Safety
    /// `p` must address `len` writable elements of the fill's type (float32, float64 or
    /// uint32; `len` even for normal values) that nothing else accesses during the call.
    pub(crate) unsafe fn fill(&mut self, p: u64, len: usize, fill: Fill) {
        if let Fill::BitsU32 = fill {
            // SAFETY: the caller's promise.
            let out = unsafe { std::slice::from_raw_parts_mut(p as usize as *mut u32, len) };
            self.words(self.blocks, out);
            self.blocks += len.div_ceil(4) as u64;
            return;
        }
        let wide = matches!(fill, Fill::UniformF64 | Fill::NormalF64(..));
        let normal = match fill {
            Fill::NormalF32(m, s) => Some((f64::from(m), f64::from(s))),
            Fill::NormalF64(m, s) => Some((m, s)),
            _ => None,
        };
        // Words per element: 1 for float32, 2 for float64 (53 random bits).
        let per = if wide { 2 } else { 1 };
        let chunks = len.div_ceil(CHUNK);
        let next = AtomicUsize::new(0);
        let this = *self;
        let addr = p as usize;
        super::launch::on_workers(&|| {
            let mut words = vec![0u32; CHUNK * 2];
            loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    return;
                }
                let lo = c * CHUNK;
                let n = (len - lo).min(CHUNK);
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
                    match normal {
                        None => unit(i),
                        Some((m, s)) => {
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
                            let f = v as f32;
                            // a float32 uniform stays in (0, 1]
                            *(addr as *mut f32).add(lo + i) = if normal.is_none() {
                                f.max(f32::MIN_POSITIVE)
                            } else {
                                f
                            };
                        }
                    }
                }
            }
        });
        self.blocks += (len * per).div_ceil(4) as u64;
    }
}

impl RngBackend for HostRng {
    fn reseed(&mut self, seed: u64) -> Result<()> {
        *self = HostRng::new(seed);
        Ok(())
    }

    unsafe fn fill(&mut self, ptr: u64, len: usize, fill: Fill, _stream: RawStream) -> Result<()> {
        // SAFETY: the caller guarantees `len` elements of the fill's type at `ptr`, in host
        // memory (the host device's), that nothing else uses until the stream reaches the
        // fill; host launches and copies finish before their call returns.
        unsafe { HostRng::fill(self, ptr, len, fill) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_known_answer() {
        // Random123's known-answer test for Philox4x32-10: counter and key all zero.
        assert_eq!(
            philox([0; 4], [0; 2]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
    }

    #[test]
    fn a_seed_repeats_and_a_fill_continues_the_sequence() {
        let mut a = HostRng::new(7);
        let mut b = HostRng::new(7);
        let (mut x, mut y) = (vec![0u32; 10], vec![0u32; 10]);
        // SAFETY: both vectors hold 10 u32 that nothing else touches.
        unsafe {
            a.fill(x.as_mut_ptr() as u64, 10, Fill::BitsU32);
            b.fill(y.as_mut_ptr() as u64, 10, Fill::BitsU32);
        }
        assert_eq!(x, y);
        let mut z = vec![0u32; 10];
        // SAFETY: as above.
        unsafe { a.fill(z.as_mut_ptr() as u64, 10, Fill::BitsU32) };
        assert_ne!(x, z);
    }
}
