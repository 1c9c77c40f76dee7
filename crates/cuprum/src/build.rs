//! Rust kernels compiled during `cargo build` and embedded in the binary, so that it needs
//! no runtime compiler: in `build.rs`, [`KernelBuild`] with
//! [`kernel_instance!`](crate::kernel_instance); in the program,
//! [`include_bundle!`](crate::include_bundle). The face of `kernel/jit/prebuilt.rs`, whose
//! docs hold the design; the user guide's Deploying chapter (docs/guide) and `examples/prebuilt/`
//! show it in use.

pub use crate::kernel::jit::{
    ARCHS_VAR, BUNDLE_FILE, BuiltBundle, DEFAULT_ARCHS, KernelBuild, KernelInstance,
};
