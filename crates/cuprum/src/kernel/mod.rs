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
//! - [`ScanKernel`]: a map and an associative operator as a prefix scan (inclusive or
//!   exclusive, along an axis), on the scan engine (`codegen/scan.rs` its kernels,
//!   `scan_engine.rs` their launches; `ops`' `cumsum` and `cumprod` run the same) with the
//!   user's definitions (`scan.rs`). The engine's programs, like the array routines', are
//!   `program.rs`'s [`RawModule`]s compiled on first use.
//! - [`RawKernel`] and [`RawModule`]: the user's CUDA C++, compiled through the cache, with
//!   arguments ([`KernelArg`], [`KernelArgs`]) checked against the driver's parameter info
//!   and launched through `runtime`.
//! - [`jit`]: kernels written in Rust with `#[cuprum::kernel]` (the macro translates them
//!   to CUDA C++ at compile time; here their program, instantiation and [`JitConfig`]
//!   launch).
//!
//! The built-in operations (`ops`) and fusion (`fuse`) are Elementwise- and
//! ReductionKernels made by the crate.
//!
//! Only the generated kinds (Elementwise-, ReductionKernel, and the array layer's own
//! kernels) cross the kernel ABI boundary (`kernel_abi`: schema, packer, one launch path).
//! RawKernel, RawModule and Rust kernels load their modules through `compile` and launch
//! through `runtime` directly: their arguments are the user's, checked against the
//! driver's parameter info (or, for Rust kernels, against the signature the macro wrote).
//! Every kind passes the runtime's one launch check.
//!
//! **Several GPUs: a call runs where its arrays live.** A call given arrays runs on its
//! first array's device, on `Stream::for_device` of it (the current stream when it belongs
//! to that device, else that device's default stream); every other array of the call must
//! be on that device, else `ErrorKind::DeviceMismatch` naming both devices (expected and
//! given). A stream given to a kernel call decides the device instead. This holds for
//! Elementwise- and ReductionKernel calls (`call::on_stream`, and with them every op,
//! fuse, copies, `fill`, the `*_like` constructors and the routines, which run inside
//! `ops::programs::on_device_of` when they build on the current stream), for RawKernel and
//! RawModule (the first array argument's device: `KernelArg::device`,
//! `KernelArgs::devices`) and for `#[cuprum::kernel]` launches (the `JitConfig`'s stream,
//! else the device of the first array argument). Compiled specialisations are kept per
//! device (the `KernelTable` key holds the device ordinal; raw and Rust kernels load per
//! device). Creation functions without an array use the current device (`Device::with`),
//! or `Array::zeros_on_device` / `Array::from_slice_on_device`.

mod args;
mod call;
mod call_memo;
pub(crate) use call::Outputs;
pub(crate) mod codegen;
mod elementwise;
pub mod jit;
mod operand;
mod params;
pub(crate) mod program;
mod raw;
mod reduction;
mod samples;
mod scan;
pub(crate) mod scan_engine;
mod scratch;
mod spec;
pub(crate) mod tuned;

pub use crate::array::register_record;
pub use crate::runtime::KernelAttributes;
pub use args::{ArgKind, ArgValue, ByValue, DevicePtr, KernelArg, KernelArgs, Strided, record_arg};
pub use elementwise::{ElementwiseCall, ElementwiseKernel};
pub use jit::JitConfig;
pub use operand::{IntoOperand, Operand, Operands, RecordArg};
pub use params::{Param, ParamList, ParamType, parse_params};
pub use raw::{Backend, Dim3, Launch, RawKernel, RawModule};
pub use reduction::{Axes, Keepdims, ReductionBuilder, ReductionCall, ReductionKernel};
#[doc(hidden)]
pub use samples::reduction_sample_sources;
#[doc(hidden)]
pub use samples::sample_sources as elementwise_sample_sources;
#[doc(hidden)]
pub use samples::{check_sample_schemas, check_sample_schemas_where};
#[doc(hidden)]
pub use samples::{elementwise_source_for_fuzzing, reduction_source_for_fuzzing};
pub use scan::{ScanBuilder, ScanCall, ScanKernel};
