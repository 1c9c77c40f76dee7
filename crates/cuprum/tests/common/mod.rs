//! Shared helpers of the integration tests: the test harness's part ([`harness`]: a
//! temporary kernel cache for the binary, GPU and NVRTC detection with visible skips,
//! `CUPRUM_REQUIRE_GPU=1` / `CUPRUM_REQUIRE_NVRTC=1` to turn a skip into a failure); random
//! inputs, device arrays and error checks; the runner of the GPU property tests; a host
//! model of strided views ([`views`]) and of NumPy's values and dtypes ([`numpy_model`]).
//! Each test binary uses only some of them.
//!
//! Where the tests are: each integration test file says what it covers in its own docs.
//! Besides them, `cargo test` runs the library's unit and property tests, none of which
//! needs a GPU: shape math with adversarial inputs (`array/shape.rs`), the dtype table and
//! scalars, the kernel cache's entry format and hygiene (`compile/cache.rs`), discovery
//! over fake folder trees (`compile/discovery.rs`, `compile/python.rs`) and the setup with
//! fake `python`s (`compile/setup.rs`: version choice, failed, interrupted and incomplete
//! installs, a read-only folder). Tests that share kernels with the examples take them
//! from the examples' own files through `#[path]` (`examples/seeds/`,
//! `examples/kernels/rust_kernels.rs`, `examples/fused/functions.rs`), so both run the same
//! code.
#![allow(dead_code)]

pub mod harness;
pub mod numpy_model;
pub mod routines_model;
pub mod views;

#[allow(unused_imports)]
pub use harness::{
    HOST_CELL_STRIDE, HOST_DTYPES, Need, child_env, cuda, dtypes, each_on_every_core, gpu,
    gpu_or_host, has_gpu, host_device, not_on_host, nvrtc, nvrtc_dtypes, on_every_core, on_host,
    setup, shared_test_cache_dir, skip, sweep_cell, sweep_image_ok, sweep_one_of, sweep_options,
    sweeps_dtype,
};

use cuprum::{Array, Element, ErrorKind};
use proptest::test_runner::{Config as ProptestConfig, TestRunner};

/// Runs the rest of the test on the GPU, or on the host device where there is none (see
/// [`harness::gpu`]); skips (visibly) only without a GPU and without a host compiler.
#[macro_export]
macro_rules! require_gpu {
    () => {
        if !$crate::common::gpu() {
            return;
        }
    };
}

/// Skips the rest of the test without a real CUDA GPU (the test needs the driver itself,
/// not only kernels: the host device cannot stand in).
#[macro_export]
macro_rules! require_cuda {
    () => {
        if !$crate::common::cuda() {
            return;
        }
    };
}

/// Skips the rest of the test (visibly, with the reason) when it runs on the host device:
/// `skip_on_host!("2 GiB arrays")`.
#[macro_export]
macro_rules! skip_on_host {
    ($why:expr) => {
        if $crate::common::not_on_host($why) {
            return;
        }
    };
}

/// Skips the rest of the test when NVRTC is missing.
#[macro_export]
macro_rules! require_nvrtc {
    () => {
        if !$crate::common::nvrtc() {
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

/// A fair coin.
pub fn coin(rng: &mut Rng) -> bool {
    rng.next_u64() & 1 == 1
}

/// `x` with a random sign.
pub fn signed(rng: &mut Rng, x: f64) -> f64 {
    if coin(rng) { x } else { -x }
}

/// A random value in `[lo, hi)` away from zero.
pub fn nz(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    loop {
        let v = rng.f64(lo, hi);
        if v.abs() > 1e-3 {
            return v;
        }
    }
}

/// `n` random values in `[-10, 10)` away from zero.
pub fn rand_f64(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| nz(rng, -10.0, 10.0)).collect()
}

/// A device array of `shape` holding `data` (C order).
pub fn dev<T: Element>(data: &[T], shape: &[usize]) -> Array {
    Array::from_slice(data, shape).unwrap()
}

/// Unwraps the error of `r`, checks its kind and that its message contains `text`, and
/// returns the message.
pub fn assert_err<T: std::fmt::Debug>(r: cuprum::Result<T>, kind: ErrorKind, text: &str) -> String {
    let e = r.unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), kind, "{m}");
    assert!(m.contains(text), "expected {text:?} in the message: {m}");
    m
}

/// Unwraps the error of `r` and checks its kind.
#[track_caller]
pub fn expect_err<T>(r: cuprum::Result<T>, kind: ErrorKind) -> cuprum::Error {
    match r {
        Ok(_) => panic!("expected a {kind:?} error, got Ok"),
        Err(e) => {
            assert_eq!(e.kind(), kind, "unexpected error kind: {e}");
            e
        }
    }
}

/// Checks that `r` failed with CuPy's dtype error "Type is mismatched. {detail}…".
pub fn assert_type_mismatch<T: std::fmt::Debug>(r: cuprum::Result<T>, detail: &str) {
    let m = assert_err(r, ErrorKind::DType, "Type is mismatched.");
    assert!(
        m.starts_with(&format!("Type is mismatched. {detail}")),
        "{m}"
    );
}

/// Checks that `r` failed to compile with `text` in the message, and that the message
/// points at the user's `part` of the kernel ("this line comes from your {part}").
pub fn assert_compile_error_in<T: std::fmt::Debug>(r: cuprum::Result<T>, text: &str, part: &str) {
    let m = assert_err(r, ErrorKind::Compile, text);
    assert!(
        m.contains(&format!("this line comes from your {part}")),
        "{m}"
    );
}

/// The axes `k < nd` that `pick` selects, each written negative (`k - nd`) where
/// `negative[k]`.
pub fn picked_axes(nd: usize, pick: &[bool], negative: &[bool]) -> Vec<isize> {
    (0..nd)
        .filter(|&k| pick[k])
        .map(|k| {
            if negative[k] {
                k as isize - nd as isize
            } else {
                k as isize
            }
        })
        .collect()
}

/// The runner of a GPU property test: few cases, since each one compiles and launches
/// kernels (`default_cases` unless `PROPTEST_CASES` says otherwise), a bounded shrink,
/// and no failure files. On the host device a quarter of the cases (at least 4): each new
/// kernel is a C++ compile there, and CI has two cores.
pub fn gpu_proptest_runner(default_cases: u32) -> TestRunner {
    let default_cases = if on_host() {
        (default_cases / 4).max(4)
    } else {
        default_cases
    };
    TestRunner::new(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default_cases),
        max_shrink_iters: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })
}
