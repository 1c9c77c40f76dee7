//! The runtime layer: driver loading, devices, streams, events, memory, modules and launch.
//! Everything above it goes through these types; cudarc stays inside this layer.

mod blas;
mod device;
mod driver;
mod event;
pub(crate) mod fault;
mod launch;
mod memory;
mod module;
mod stream;

pub use blas::cublas_version;
pub use device::Device;
pub use driver::{DriverInfo, MIN_DRIVER_VERSION, driver_info};
pub use event::Event;
pub use launch::LaunchConfig;
pub use module::{Function, Module};
pub use stream::{Stream, StreamGuard};

pub(crate) use blas::{BlasFloat, Gemm, GemmInput, gemm};
pub(crate) use launch::{ArgPack, launch, launch_kind};
pub(crate) use memory::{Buffer, copy_dtod, copy_dtoh, copy_htod, zero_device};
