//! Faults of kernels written in Rust, in a test binary of their own: a fault is reported at
//! the next synchronisation of the process, whichever test makes it, so these tests run
//! one at a time (a lock) and no other test shares their process.
//!
//! An index out of bounds (in a kernel and in a device function) and, in the checked
//! variant, a division by zero become `ErrorKind::KernelFault` errors naming the kernel,
//! the Rust file and line, the block and the thread; the faulting thread wrote nothing,
//! memory next to the view is untouched, the rest of the launch ran, and the context
//! stays usable.

mod common;
mod jit_kernels;

#[allow(dead_code)]
#[path = "../../../examples/kernels/rust_kernels.rs"]
mod kernels;

use cuprum::gpu::Scalar;
use cuprum::kernel::JitConfig;
use cuprum::{Array, DType, Element, ErrorKind, s};
use jit_kernels as jk;
use std::sync::Mutex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn dev<T: Element>(v: &[T]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

fn zeros<T: Scalar>(n: usize) -> Array {
    Array::zeros(&[n], T::DTYPE).unwrap()
}

#[test]
fn out_of_bounds_write_is_a_typed_error_and_the_context_survives() {
    require_gpu!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let big = Array::full(&[200], -1i32, DType::I32).unwrap();
    let mut out = big.slice(&s![0..100]).unwrap();
    jk::shifted_write::launch((1, 128), &mut out, 5).unwrap();
    let e = out.to_vec::<i32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault, "{e}");
    let m = e.to_string();
    for part in [
        "kernel `shifted_write` panicked at ",
        "jit_kernels/mod.rs:",
        "index out of bounds: the len is 100 but the index is 10",
        "(block (0, 0, 0), thread (9",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    // Reported once; the faulting threads wrote nothing, the others everything.
    let v = big.to_vec::<i32>().unwrap();
    assert!(
        v[100..].iter().all(|&x| x == -1),
        "memory past the view was written"
    );
    assert_eq!(&v[..5], [-1; 5]);
    assert!((5..100).all(|i| v[i] == i as i32 - 5));
    // The context still works.
    let mut c = zeros::<f32>(4);
    kernels::vector_add::launch::<f32>((1, 32), &dev(&[1.0f32; 4]), &dev(&[2.0f32; 4]), &mut c, 4)
        .unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), [3.0; 4]);
    cuprum::Stream::current().unwrap().synchronize().unwrap();
}

#[test]
fn out_of_bounds_read_in_a_device_function() {
    require_gpu!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let x = dev(&[1.0f32; 64]);
    let mut y = zeros::<f32>(64);
    jk::read_before::launch((1, 64), &x, &mut y).unwrap();
    let e = cuprum::Stream::current()
        .unwrap()
        .synchronize()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault);
    let m = e.to_string();
    for part in [
        "kernel `read_before` panicked at ",
        "(in device function `read_at`)",
        "the len is 64 but the index is -1",
        "thread (0, 0, 0)",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    assert_eq!(y.to_vec::<f32>().unwrap()[1..], [1.0; 63]);
}

#[test]
fn division_by_zero_faults_in_checked_builds() {
    require_gpu!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut x = dev(&[10i32; 32]);
    jk::divide_by::launch(JitConfig::new(1, 32).checked(true), &mut x, 0).unwrap();
    let e = cuprum::Device::current()
        .unwrap()
        .synchronize()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault);
    assert!(e.to_string().contains("attempt to divide by zero"), "{e}");
    assert_eq!(x.to_vec::<i32>().unwrap(), [10; 32]); // the faulting threads wrote nothing
    jk::divide_by::launch(JitConfig::new(1, 32).checked(true), &mut x, 5).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [2; 32]);
    jk::divide_by::launch(JitConfig::new(1, 32).checked(false), &mut x, 2).unwrap();
    assert_eq!(x.to_vec::<i32>().unwrap(), [1; 32]);
}

/// A block that never reaches `grid_sync()` does not hang the process: after about ten
/// seconds the waiting blocks fault (this test takes that long).
#[test]
fn a_grid_barrier_missing_a_block_becomes_a_fault() {
    require_gpu!();
    skip_on_host!(
        "the host device's grid barrier lets a block that returned go, so nothing hangs and \
         there is no fault to provoke"
    );
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut out = zeros::<i32>(64);
    jk::early_return_grid_sync::launch((2, 32), &mut out).unwrap();
    let e = cuprum::Stream::current()
        .unwrap()
        .synchronize()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault);
    let m = e.to_string();
    assert!(
        m.contains("kernel `early_return_grid_sync` panicked at "),
        "{m}"
    );
    assert!(
        m.contains("grid_sync() waited about ten seconds for the other blocks of the 2 blocks"),
        "{m}"
    );
    assert!(m.contains("block (1, 0, 0)"), "{m}");
    let mut c = zeros::<f32>(4);
    kernels::vector_add::launch::<f32>((1, 32), &dev(&[1.0f32; 4]), &dev(&[2.0f32; 4]), &mut c, 4)
        .unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), [3.0; 4]);
}

/// `load4` checks its chunk index against `len / 4`: chunks past the shorter input fault
/// (nothing is read or written for them), the others are added.
#[test]
fn a_wide_load_past_the_end_is_a_typed_error() {
    require_gpu!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let a = dev(&[1.0f32; 8]);
    let b = dev(&[2.0f32; 16]);
    let mut c = Array::full(&[16], -1.0f32, DType::F32).unwrap();
    kernels::vector_add_wide::launch::<f32>((1, 32), &a, &b, &mut c).unwrap();
    let e = c.to_vec::<f32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault, "{e}");
    let m = e.to_string();
    for part in [
        "kernel `vector_add_wide` panicked at ",
        "rust_kernels.rs:",
        "index out of bounds: the len is 2 but the index is ",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    let v = c.to_vec::<f32>().unwrap();
    assert_eq!(&v[..8], [3.0; 8]);
    assert_eq!(&v[8..], [-1.0; 8]);
}

/// The shared-memory reduction asserts once that the launch's dynamic shared memory holds
/// a block (its tree then indexes unchecked): too little is a fault at the `assert!`, not
/// a read out of bounds.
#[test]
fn too_little_shared_memory_fails_the_reductions_assert() {
    require_gpu!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let x = dev(&[1.0f32; 1000]);
    let mut out = zeros::<f32>(4);
    let cfg = JitConfig::new(4, 256).shared_mem(512);
    kernels::optimized_reduction::launch(cfg, &x, &mut out, 1000).unwrap();
    let e = out.to_vec::<f32>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KernelFault, "{e}");
    let m = e.to_string();
    for part in [
        "kernel `optimized_reduction` panicked at ",
        "rust_kernels.rs:",
        "assertion failed",
    ] {
        assert!(m.contains(part), "{part:?} not in: {m}");
    }
    assert_eq!(out.to_vec::<f32>().unwrap(), [0.0; 4]);
    let cfg = JitConfig::new(4, 256).shared_mem(1024);
    kernels::optimized_reduction::launch(cfg, &x, &mut out, 1000).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [256.0, 256.0, 256.0, 232.0]);
}
