//! The kernel layer: the kernels a user writes.
//!
//! - [`ElementwiseKernel`] and [`ReductionKernel`]: CuPy's parameter grammar
//!   ([`parse_params`]), operand binding and broadcasting ([`Operand`]), one CUDA C++
//!   source generated per layout class and dtype combination (`codegen`: layout
//!   classification, the elementwise and reduction templates and their launch strategies),
//!   which crosses the crate's generated-kernel boundary (source with its argument schema →
//!   compiled per device → packed → launched) and is kept per specialisation. A call runs
//!   the named steps of `call.rs` (loop shape, outputs, operand binding, specialisation,
//!   launch); both are defined by one `KernelSpec` (`spec.rs`: signature, preamble,
//!   compile options, `reduce_dims`, and the builder methods over them, written once);
//!   each kind keeps only its own strings, plan and packing ([`ElementwiseCall`],
//!   [`ReductionCall`], with [`Axes`] and [`Keepdims`] for reductions, split reductions'
//!   scratch in `scratch.rs`).
//! - [`RawKernel`] and [`RawModule`]: the user's CUDA C++, compiled through the cache, with
//!   arguments ([`KernelArg`], [`KernelArgs`]) checked against the driver's parameter info
//!   and launched through `runtime`.
//! - [`jit`]: kernels written in Rust with `#[cuprum::kernel]` (the macro translates them
//!   to CUDA C++ at compile time; here their program, instantiation and [`JitConfig`]
//!   launch).
//!
//! The built-in operations (`ops`) and fusion (`fuse`) are Elementwise- and
//! ReductionKernels made by the crate.

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
mod spec;

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
