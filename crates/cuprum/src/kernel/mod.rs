//! The kernel layer: user kernels from CUDA C++ strings. So far [`RawKernel`] and
//! [`RawModule`] with checked arguments; `ElementwiseKernel` and `ReductionKernel` build on
//! the same argument and launch machinery.

mod args;
mod raw;

pub use args::{ArgKind, ArgValue, ByValue, DevicePtr, KernelArg, KernelArgs, Strided};
pub use raw::{Backend, Dim3, KernelAttributes, Launch, RawKernel, RawModule};
