//! The kernel layer: user kernels from CUDA C++ strings. [`RawKernel`] and [`RawModule`]
//! with checked arguments; [`ElementwiseKernel`] with CuPy's parameter grammar, generated
//! per layout and cached.

mod args;
mod call;
pub(crate) mod codegen;
mod elementwise;
pub mod jit;
mod operand;
mod params;
mod raw;
mod reduction;
mod samples;
mod scratch;

pub use crate::runtime::KernelAttributes;
pub use args::{ArgKind, ArgValue, ByValue, DevicePtr, KernelArg, KernelArgs, Strided};
pub use elementwise::{ElementwiseCall, ElementwiseKernel};
pub use jit::JitConfig;
pub use operand::{IntoOperand, Operand, Operands};
pub use params::{Param, ParamList, ParamType, parse_params};
pub use raw::{Backend, Dim3, Launch, RawKernel, RawModule};
pub use reduction::{Axes, Keepdims, ReductionBuilder, ReductionCall, ReductionKernel};
#[doc(hidden)]
pub use samples::check_sample_schemas;
#[doc(hidden)]
pub use samples::reduction_sample_sources;
#[doc(hidden)]
pub use samples::sample_sources as elementwise_sample_sources;
#[doc(hidden)]
pub use samples::{elementwise_source_for_fuzzing, reduction_source_for_fuzzing};
