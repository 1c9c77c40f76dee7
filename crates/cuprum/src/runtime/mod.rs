//! The runtime layer: devices, streams, events, memory, modules and launch, over one seam
//! per backend (`backend.rs`): `cuda/` (a GPU through the CUDA driver; cudarc stays inside
//! it) and `host/` (the CPU as a device). Everything above the runtime goes through the
//! types re-exported here and never sees which backend runs.
//!
//! Every foreign call a device makes stays here, below that seam: the CUDA driver (each raw
//! call in `cuda/driver.rs`), cuBLAS (`cuda/blas.rs`), cuRAND (`cuda/curand.rs`; `rng.rs`'s
//! `Philox::fill` gives uniform, normal and raw-bit fills on either backend) and kernel
//! attributes (typed methods, `attributes.rs`, never a driver enum above the runtime). The
//! two other foreign libraries each have one home of their own, loaded at run time the same
//! way: NVRTC (`compile/nvrtc.rs`) and NCCL (`nccl/library.rs` loads it, `nccl/mod.rs` calls
//! its table).
//!
//! **The device kind is asked of the device, here.** Above the runtime no code tests
//! whether a device is the host: it asks [`Device`] for the property it needs —
//! `code_target` (which compiler), `completes_on_return` (no stream ordering for shared
//! memory), `addresses_host_memory` (NumPy's data is device memory), `dlpack_device`,
//! `framework_name`, `timer_label`, `id`, `count_in_use` — and the answers are written once,
//! in `device.rs` and `registry.rs`.
//!
//! The
//! helpers that take raw device addresses (`copy_dtod`, `copy_peer`, `copy_htod`,
//! `copy_dtoh`, `zero_device` in `memory.rs`) are `unsafe fn`s whose `# Safety` sections
//! say what the caller guarantees.

mod attributes;
pub(crate) mod backend;
mod blas;
mod capture;
mod capture_state;
pub(crate) mod cuda;
mod device;
mod event;
pub(crate) mod fault;
mod fft;
mod flags;
mod foreign;
pub(crate) mod host;
mod launch;
mod memory;
mod module;
mod pinned;
mod pool;
mod registry;
mod rng;
mod stream;
pub(crate) mod texture;

pub use attributes::KernelAttributes;
pub use backend::CodeTarget;
pub use blas::cublas_version;
pub use capture::{Capture, Graph};
pub use cuda::driver::{DriverInfo, MIN_DRIVER_VERSION, driver_info};
pub(crate) use device::timer_label;
pub use device::{Device, HOST_ORDINAL};
pub use event::Event;
pub use fft::{
    clear_fft_plan_cache, cufft_version, fft_plan_cache_len, fft_plan_cache_limit,
    set_fft_plan_cache_limit,
};
// What the compile layer's host compiler hands the runtime: a loaded kernel library, and
// the shim's ABI version (part of every host cache key).
pub(crate) use host::abi::ABI_VERSION as HOST_ABI_VERSION;
pub(crate) use host::library::HostLibrary;
pub use launch::{LaunchConfig, MAX_GRID_X, Occupancy};
pub use module::{Function, Module};
pub use stream::{Stream, StreamGuard};

pub(crate) use backend::{
    BlasFloat, FftKind, FftPlan, Fill, Gemm, GemmInput, LaunchMode, RngAlgorithm,
};
pub(crate) use blas::gemm;
pub(crate) use capture::{capturing_any, is_capturing, keep_buffer, refuse_in_capture};
pub(crate) use cuda::image::param_sizes;
pub(crate) use fft::fft;
pub(crate) use flags::ErrorFlag;
#[cfg(feature = "python")]
pub(crate) use foreign::Release as ForeignRelease;
#[cfg(feature = "python")]
pub(crate) use foreign::keep_until_done;
#[doc(hidden)]
pub use foreign::pending as pending_foreign;
pub use foreign::running as running_foreign;
pub(crate) use foreign::{ForeignOwner, Terms as ForeignTerms, collect as collect_foreign};
pub(crate) use launch::{ArgPack, launch};
pub(crate) use memory::{
    Buffer, as_uninit, copy_dtod, copy_dtoh, copy_htod, copy_peer, on_release, zero_device,
};
pub(crate) use pinned::PinnedBytes;
pub(crate) use rng::Rng;
