//! Kernels written in Rust: the runtime side of `#[cuprum::kernel]` and
//! `#[cuprum::device]` (the attributes are re-exported at the crate root; the device API is
//! [`crate::gpu`]).
//!
//! At compile time the attribute translates the function to CUDA C++ (`k::SOURCE`) and
//! writes a typed launcher (`k::launch(config, args…)`). Here: the definitions it leaves
//! ([`KernelDef`], [`DeviceFnDef`]), the assembled program (`k::program()`), the instance
//! cache (one compile per device, instantiation and check mode, through the kernel cache),
//! the launch configuration ([`JitConfig`]) and the launch itself.

mod def;
mod launch;

pub use def::{DeviceFnDef, KernelDef};
pub use launch::{JitConfig, Launcher};
