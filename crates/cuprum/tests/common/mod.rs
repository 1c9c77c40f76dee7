//! Shared helpers of the integration tests: GPU detection with a reported skip, and
//! `CUPRUM_REQUIRE_GPU=1` / `CUPRUM_REQUIRE_NVRTC=1` to turn a skip into a failure.
#![allow(dead_code)]

use std::sync::Mutex;

fn required(var: &str) -> bool {
    matches!(std::env::var(var).as_deref(), Ok("1") | Ok("true"))
}

/// The GPU tests run only when a device is present. Returns `false` (after printing why)
/// when there is none; panics instead when `CUPRUM_REQUIRE_GPU=1`.
pub fn gpu(test: &str) -> bool {
    match cuprum::Device::get(0) {
        Ok(_) => true,
        Err(e) => {
            if required("CUPRUM_REQUIRE_GPU") {
                panic!("CUPRUM_REQUIRE_GPU=1 but no GPU: {e}");
            }
            eprintln!("SKIPPED {test}: no GPU ({e})");
            record_skip();
            false
        }
    }
}

/// The same for tests that need only NVRTC (`CUPRUM_REQUIRE_NVRTC=1` makes a skip fail).
pub fn nvrtc(test: &str) -> bool {
    match cuprum::compile::nvrtc() {
        Ok(_) => true,
        Err(e) => {
            if required("CUPRUM_REQUIRE_NVRTC") {
                panic!("CUPRUM_REQUIRE_NVRTC=1 but NVRTC is missing: {e}");
            }
            eprintln!("SKIPPED {test}: no NVRTC ({e})");
            record_skip();
            false
        }
    }
}

static SKIPS: Mutex<usize> = Mutex::new(0);
fn record_skip() {
    *SKIPS.lock().unwrap_or_else(|p| p.into_inner()) += 1;
}

/// Skips the rest of the test when there is no GPU.
#[macro_export]
macro_rules! require_gpu {
    () => {
        if !$crate::common::gpu(module_path!()) {
            return;
        }
    };
}

/// Skips the rest of the test when NVRTC is missing.
#[macro_export]
macro_rules! require_nvrtc {
    () => {
        if !$crate::common::nvrtc(module_path!()) {
            return;
        }
    };
}

/// A small deterministic generator (xorshift64*) for random test inputs.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn usize(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() as usize) % (hi - lo)
    }
}
