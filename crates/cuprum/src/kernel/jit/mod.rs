//! Kernels written in Rust: the runtime side of `#[cuprum::kernel]` and
//! `#[cuprum::device]` (the attributes are re-exported at the crate root; the device API is
//! [`crate::gpu`]).
//!
//! At compile time the attribute translates the function to CUDA C++ (`k::SOURCE`) and
//! writes a typed launcher (`k::launch(config, args…)`). Here: the definitions it leaves
//! ([`KernelDef`], [`DeviceFnDef`]), the assembled program (`k::program()`), the instance
//! cache (one compile per device, instantiation and check mode, through the kernel cache),
//! the launch configuration ([`JitConfig`]) and the launch itself; `prebuilt.rs`: instances
//! compiled by a build script into an embedded bundle ([`KernelBuild`], `cuprum::build`).
//!
//! **`grid_sync()`** (kernel bodies only) makes the kernel's launches cooperative (the
//! launch check refuses a grid larger than the device runs at once) and uses the barrier
//! word of the driver's per-launch cooperative workspace, so no toolkit header is needed.
//! One surviving thread per block arrives for it (a faulted thread has exited), and a wait
//! of about ten seconds (SM clock) becomes a fault instead of a hang (a block that returned
//! before the barrier). On the host device the runner keeps the barrier.

mod def;
mod launch;
mod prebuilt;

pub use def::{DeviceFnDef, KernelDef, TypeUse};
pub use launch::{JitConfig, Launcher};
pub use prebuilt::{
    ARCHS_VAR, BUNDLE_FILE, BuiltBundle, DEFAULT_ARCHS, KernelBuild, KernelInstance,
};
