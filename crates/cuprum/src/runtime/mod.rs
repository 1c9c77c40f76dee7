//! The runtime layer: driver loading, devices, streams, events, memory, modules and launch.
//! Everything above it goes through these types; cudarc stays inside this layer.

mod attributes;
mod blas;
mod curand;
mod device;
mod driver;
mod event;
mod fault;
pub(crate) mod fault_record;
pub(crate) mod host;
mod image;
mod launch;
mod memory;
mod module;
mod pool;
mod stream;

pub use attributes::KernelAttributes;
pub use blas::cublas_version;
pub use device::{Device, HOST_ORDINAL};
pub use driver::{DriverInfo, MIN_DRIVER_VERSION, driver_info};
pub use event::Event;
pub use launch::{LaunchConfig, MAX_GRID_X, Occupancy};
pub use module::{Function, Module};
pub use stream::{Stream, StreamGuard};

pub(crate) use blas::{BlasFloat, Gemm, GemmInput, gemm};
pub(crate) use curand::{Fill, Philox};
pub(crate) use image::param_sizes;
pub(crate) use launch::{ArgPack, launch, launch_kind};
pub(crate) use memory::{
    Buffer, copy_dtod, copy_dtoh, copy_htod, copy_peer, on_release, zero_device,
};
