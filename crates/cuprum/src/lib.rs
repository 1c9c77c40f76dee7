//! # cuprum — CuPy's user-defined CUDA kernels, in Rust
//!
//! GPU n-d arrays ([`Array`]: NumPy's dtypes, views without copies, NumPy's printing) and the
//! kernels CuPy lets you write, compiled at run time with NVRTC and cached on disk:
//! [`ElementwiseKernel`] (a per-element operation over broadcast arrays, generated for each
//! memory layout), [`ReductionKernel`] (map, reduce, post-map over any axes, with a builder of
//! named parts), [`ScanKernel`] (a map and any associative operator as a prefix scan, inclusive
//! or exclusive, on `cumsum`'s one-pass engine; CuPy has none), [`RawKernel`] / [`RawModule`]
//! (your own CUDA C++ with checked arguments), and
//! kernels written in Rust ([`macro@kernel`], with the device API in [`gpu`]), translated to
//! CUDA C++ at compile time. On top of them: NumPy-style operations and routines ([`ops`]:
//! ufuncs, reductions, masks, scans, sorting, linear algebra through cuBLAS), array math fused
//! into few kernels ([`fuse`](mod@fuse)), several GPUs (per-device arrays and caches, NCCL
//! collectives in [`nccl`]) and CuPy's benchmark ([`profiler`]). CUDA is loaded when first
//! used: everything builds, and every error is typed, on a machine without a GPU.
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{Array, DType, ElementwiseKernel, Endpoint, s};
//! let x = Array::linspace(0.0, 1.0, 5, Endpoint::Included, DType::F32)?;      // on the GPU
//! let y = Array::ones(&[5], DType::F32)?;
//! let add = ElementwiseKernel::new("T x, T y", "T z", "z = x + y * 2", "custom_add")?;
//! let z = add.call((&x, &y))?;                                   // compiled once, cached
//! let w = ((&z * 0.5)? - &x)?;                                   // built-in operations
//! let m = Array::arange(0.0, 12.0, 1.0, DType::F64)?.reshape(&[3, 4])?;
//! let v = m.t().slice(&s![1..;2, ..;-1])?;                      // views, no copies
//! println!("{:?} {:?}", w.to_vec::<f32>()?, v.to_vec::<f64>()?);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! Layers, bottom up (see ARCHITECTURE.md): [`runtime`] (driver, devices, streams, memory,
//! modules, launch, cuBLAS, cuRAND) → [`compile`] (NVRTC, include paths, cache) → the array
//! layer ([`Array`], [`DType`], [`shape`], [`random`]) → [`kernel`](mod@kernel) (user kernels;
//! every kernel cuprum generates itself, theirs and the array layer's, crosses one boundary:
//! the source with its argument schema, compiled, packed and launched in one place) → [`ops`]
//! and [`fuse`](mod@fuse) (built on Elementwise- and ReductionKernels) → [`nccl`] (collectives
//! over several GPUs) → [`profiler`]. [`guide`] maps every CuPy call of the seed documents to
//! cuprum.
//!
//! Conventions: every fallible call returns [`Result`] with the one [`Error`] type, and the
//! API names its choices instead of taking bare booleans —
//! [`Endpoint`] (linspace), [`Keepdims`](ops::Keepdims) (every `_axis` reduction, in
//! `ops`, the methods and `fuse`), [`ParamList`](kernel::ParamList)
//! ([`parse_params`](kernel::parse_params)), [`Tolerance`](ops::Tolerance) (`isclose`,
//! `allclose_with`); [`ReductionKernel::builder`] names the parts CuPy passes as seven
//! positional strings.

#![deny(missing_docs)]

mod array;
pub mod build;
pub mod compile;
pub mod dist;
mod dtype;
mod error;
pub mod fuse;
pub mod gpu;
pub mod kernel;
mod kernel_abi;
mod memo;
pub mod nccl;
pub mod ops;

/// Every CuPy call of the seed documents and of CuPy's kernel reference, mapped to
/// cuprum, with the intentional differences (a chapter of the user guide,
/// docs/guide/src/for-cupy-users.md; its examples are compiled as doc tests).
#[doc = include_str!("../../../docs/guide/src/for-cupy-users.md")]
pub mod guide {}
pub mod profiler;
#[cfg(feature = "python")]
pub mod python;
pub mod random;
pub mod runtime;
mod tune;

/// Per-device tuning: the kernels' shapes (items per thread, blocks per SM, …) chosen on
/// each GPU among measured candidates, kept in the kernel cache's folder. `CUPRUM_TUNE`
/// (`off`, `cached`, `full`) says when to measure; `cuprum tune` measures ahead of time and
/// `cuprum tune --report` shows each choice and its margin. How a choice is made: the
/// module docs of `tune/` (`cargo doc --document-private-items`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Device, tuning};
/// for c in tuning::report(Device::current()?)? {
///     println!("{:<12} {:?} ({:?})", c.family, c.params, c.source);
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub mod tuning {
    pub use crate::kernel::tuned::{families, report, tune};
    pub use crate::tune::{Choice, Family, Params, Source, TuneMode, forget, mode, with_choice};
}

#[doc(hidden)]
pub use array::record::{c_offset as __c_offset, c_size as __c_size};
pub use array::{
    Array, DType, DTypeKind, Declarations, DeviceField, DeviceType, Element, Endpoint, HostCopy,
    PinnedBuffer, RecordType, Scalar, SliceArg, shape,
};
/// `#[derive(cuprum::DeviceType)]`: a `#[repr(C)]` struct usable in kernels, as a kernel
/// parameter, a slice element, a RawKernel argument and an array element (see the trait
/// [`DeviceType`](trait@DeviceType)).
pub use cuprum_macros::DeviceType;

/// Generated code: a field type must be a [`DeviceField`] (the error points at the field).
#[doc(hidden)]
pub fn __assert_device_field<T: DeviceField>() {}
pub use compile::bundle;
pub use compile::{CompileOptions, clear_memo, compile_with_cache, precompile, setup};
/// `#[cuprum::kernel]`: a Rust function translated to a CUDA kernel at compile time, with
/// a typed launcher. rustc type-checks the body; the C++ is generated by the macro and
/// compiled by NVRTC (through the kernel cache) on the first launch.
///
/// ```
/// use cuprum::gpu::*;
/// use cuprum::{Array, DType};
///
/// #[cuprum::kernel]
/// pub fn prime_factor_sum(a: &mut [i64], n: i32) {
///     let idx = (block_dim().x * block_idx().x + thread_idx().x) as i32;
///     if idx >= n {
///         return;
///     }
///     let mut num = idx as i64 + 2; // 2 is an i64, as in Rust
///     let mut total: i64 = 0;
///     let mut i: i64 = 2;
///     while i * i <= num {
///         while num % i == 0 {     // truncating %, as in Rust (not Python's floor)
///             num /= i;
///             total += i;
///         }
///         i += 1;
///     }
///     if num > 1 {
///         total += num;
///     }
///     a[idx] = total;             // bounds-checked: a miss is an error at the next sync
/// }
///
/// fn main() -> cuprum::Result<()> {
/// #     if !cuprum_doctest::device()? {
/// #         return Ok(());
/// #     }
///     let n = 1_000_000usize;
///     let mut a = Array::empty(&[n - 1], DType::I64)?;
///     let blocks = ((n - 1) as u32).div_ceil(256);
///     prime_factor_sum::launch((blocks, 256), &mut a, (n - 1) as i32)?;
///     assert_eq!(&a.to_vec::<i64>()?[n - 4..], [287, 77, 42]);
///     println!("{}", prime_factor_sum::SOURCE); // the generated CUDA C++
///     Ok(())
/// }
/// ```
///
/// # What it generates
/// A module named after the function (the function itself is not kept):
/// `launch(config, args…) -> Result<()>` (`config`: a `(grid, block)` tuple or a
/// [`JitConfig`](kernel::JitConfig) with shared memory, stream, checks), `SOURCE` (the
/// `__global__` function) and `program()` (what NVRTC compiles: the prelude
/// `cuprum/jit.cuh`, every `#[device]` function it calls, the kernel). `cuprum jit-source`
/// prints the examples' programs. Kernels must be module-level items (not inside a
/// function body).
///
/// # Parameters
/// `&[T]` (read-only) and `&mut [T]` slices, passed as `&Array` / `&mut Array` of that
/// dtype (checked at launch, C-contiguous, on the launching device; a `&mut` argument is
/// an exclusive borrow, and no argument may overlap a `&mut` one, views included); scalars
/// of type bool, i8–i64, isize, u8–u64, usize, f16, bf16, f32, f64 or a type parameter,
/// passed as that Rust type. rustc checks the count, types and mutability at the call.
/// Generic kernels (`fn k<T: Num, const N: usize>`) are C++ templates, instantiated per
/// type on first launch; `T` comes from scalar arguments or a turbofish
/// (`k::launch::<f32, 256>(…)`).
///
/// # The language
/// `let` / `let mut` (with or without a type), arithmetic, bit, comparison and logical
/// operators, compound assignment, `if`/`else` (also as a value), `while`, `loop`, `for`
/// over `a..b`, `a..=b`, `.rev()`, `.step_by(s)`, [`grid_stride(n)`](gpu::grid_stride)
/// and [`block_stride(n)`](gpu::block_stride), `break`/`continue` (with labels),
/// `return`, `match` on integers and bool (literals, constants, ranges, `|`, `_`,
/// bindings, `x @ p`, guards; as a statement or a value), tuples (literals, `t.0`,
/// `let (a, (b, _)) = …`, tuple results of device functions; up to 8 values, not as
/// kernel parameters), module-level constants marked `#[cuprum::device]`
/// (`#[cuprum::device] const SCALE: f32 = 2.5;`, named as `SCALE` or `path::SCALE`, also
/// in patterns) and `#[cuprum::device] const fn`s, closures bound by `let` and called
/// (C++ lambdas, inlined; `move` ones capture by value, others use the variables as
/// Rust's borrows do), `for x in s.iter()`, `for (i, x) in s.iter().enumerate()` and
/// `for x in s.iter_mut()` over slices, local and shared arrays, `as` casts, number methods (`abs`, `min`, `max`, `sqrt`, `exp`, `ln`, `sin`,
/// `mul_add`, `powi`, `powf`, `clamp`, `count_ones`, `wrapping_add`, … — see
/// [`gpu::Float`] and [`gpu::Int`]), local arrays (`[0.0f32; 4]`, `[a, b, c]`), blocks,
/// `unsafe { *x.get_unchecked(i) }`, `assert!(cond)` and `debug_assert!(cond)` (an
/// optional message string, no formatting), wide accesses of four elements
/// ([`x.load4(k)`](gpu::Slice::load4), [`x.store4(k, v)`](gpu::Slice::store4)), calls of
/// [`#[cuprum::device]`](device) functions and of the built-ins of [`gpu`] (indices,
/// barriers, shared memory, atomics, warp shuffles and votes, `grid_sync`). Anything else
/// (closures passed or stored, references, structs, strings, other macros, other
/// iterators, `static` items) is a compile error at its span that names it.
///
/// # Semantics: Rust's, not C's or Python's
/// `/` and `%` truncate (`-7 / 2 == -3`, `-7 % 2 == -1`; `%` of floats is `fmod`); literals
/// take the type rustc gives them (`num % 2` with `num: i64` is a 64-bit operation; an
/// unconstrained integer literal is `i32`, a float literal `f64`); no implicit widening;
/// integer `+ - *`, negation and shifts wrap as in a Rust release build (shift amounts are
/// masked); float → integer casts saturate and map NaN to 0. Float arithmetic is IEEE with
/// NVRTC's default contraction of `a * b + c` into one fused multiply-add (results may
/// differ from the host in the last bit). In debug builds of the calling crate the kernel
/// also checks, as Rust's debug builds do, division by zero, `MIN / -1` and shift
/// overflow ([`JitConfig::checked`](kernel::JitConfig::checked) chooses explicitly); in
/// release builds a division by zero gives an unspecified value, as in CUDA C++.
///
/// # Checks and faults
/// Every index of a slice, shared array or local array is checked against its length (one
/// compare). A miss records the kernel, the Rust file and line, the block and the thread,
/// skips the access and ends that thread; the next synchronisation
/// ([`Stream::synchronize`], [`Device::synchronize`], a blocking copy such as
/// [`Array::to_vec`]) returns an [`ErrorKind::KernelFault`] error, and the context stays
/// usable. `unsafe { *x.get_unchecked(i) }` skips the check; one `assert!` can bound the
/// indices of many such accesses (a false condition is the same kind of fault, "assertion
/// failed"; `debug_assert!` only in checked builds). A thread that stopped is not
/// waited for at `sync_threads()`; if a whole block never reaches `grid_sync()`, the other
/// blocks fault after about ten seconds of waiting instead of hanging the process.
///
/// # Type errors
/// The body is also compiled as Rust (a hidden twin whose slices are
/// [`gpu::Slice`]s), so type errors are rustc's at your tokens. Where the translator needs a
/// type rustc infers (for a C++ declaration), it writes down its choice and rustc checks it:
/// a disagreement is a compile error at the `let` that says to annotate it.
pub use cuprum_macros::kernel;

pub use array::dlpack;
/// `#[cuprum::device]`: a Rust function kernels can call (a `__device__` function in the
/// generated C++) that stays an ordinary Rust function, callable and testable on the host.
///
/// Same language as [`#[cuprum::kernel]`](macro@kernel), plus a return value; slice parameters
/// become [`gpu::Slice`] on the host (`Slice::new(&v)`). Generic device functions are C++
/// templates. Device functions may call each other (recursion included); two different
/// device functions of one name cannot be used by the same kernel. A `const fn` may be a
/// device function too.
///
/// On a `const` item (UPPER_CASE name) it makes the constant visible to kernels, which
/// name it like any constant; its value is translated like a function body (literals,
/// operators, other device constants, device function calls):
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::device]
/// pub const fn cube(x: i32) -> i32 {
///     x * x * x
/// }
///
/// #[cuprum::device]
/// pub const LIMIT: i32 = cube(3) + 15;
///
/// #[cuprum::kernel]
/// pub fn clamp_to_limit(x: &mut [i32]) {
///     for i in grid_stride(x.len()) {
///         x[i] = match x[i] {
///             v @ ..=LIMIT => v,
///             _ => LIMIT,
///         };
///     }
/// }
///
/// fn main() -> cuprum::Result<()> {
/// #     if !cuprum_doctest::device()? {
/// #         return Ok(());
/// #     }
///     let mut x = cuprum::Array::from_slice(&[5i32, 42, 43, 1000], &[4])?;
///     clamp_to_limit::launch((1, 32), &mut x)?;
///     assert_eq!(x.to_vec::<i32>()?, [5, 42, 42, 42]);
///     Ok(())
/// }
/// ```
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::device]
/// pub fn sigmoid(x: f32) -> f32 {
///     1.0 / (1.0 + (-x).exp())
/// }
///
/// #[cuprum::kernel]
/// pub fn apply_sigmoid(x: &[f32], y: &mut [f32]) {
///     for i in grid_stride(y.len()) {
///         y[i] = sigmoid(x[i]);
///     }
/// }
///
/// fn main() -> cuprum::Result<()> {
/// #     if !cuprum_doctest::device()? {
/// #         return Ok(());
/// #     }
///     assert_eq!(sigmoid(0.0), 0.5); // on the host
///     let x = cuprum::Array::from_slice(&[0.0f32, 100.0], &[2])?;
///     let mut y = cuprum::Array::empty(&[2], cuprum::DType::F32)?;
///     apply_sigmoid::launch((1, 32), &x, &mut y)?;
///     assert_eq!(y.to_vec::<f32>()?, [0.5, 1.0]);
///     Ok(())
/// }
/// ```
pub use cuprum_macros::device;
pub use error::{Error, ErrorKind, Result};
pub use fuse::{Fused, fuse};
pub use kernel::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel, ScanKernel};
pub use memo::Memo;
pub use runtime::{Capture, Device, Event, Graph, Stream};

/// The README's Rust examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The user guide's chapters (docs/guide, an mdBook): their Rust examples run as doc tests
/// (on the GPU, else on the host device; see the `cuprum-doctest` crate).
#[cfg(doctest)]
pub mod guide_doctests {
    macro_rules! chapters {
        ($($name:ident = $file:literal;)*) => {$(
            #[doc = include_str!(concat!("../../../docs/guide/src/", $file))]
            pub struct $name;
        )*};
    }
    chapters! {
        Introduction = "introduction.md";
        GettingStartedRust = "getting-started-rust.md";
        Elementwise = "elementwise.md";
        Reduction = "reduction.md";
        Scan = "scan.md";
        Raw = "raw.md";
        Fusion = "fusion.md";
        RustKernels = "rust-kernels.md";
        Arrays = "arrays.md";
        MovingData = "moving-data.md";
        Interop = "interop.md";
        Deploying = "deploying.md";
        MultiGpu = "multi-gpu.md";
        HostDevice = "host-device.md";
        Performance = "performance.md";
        Reliability = "reliability.md";
        Troubleshooting = "troubleshooting.md";
    }
}

/// Helpers for tools and tests (the `cuprum` CLI's benchmarks, NVRTC compile checks, the
/// fuzz targets).
/// Not a stable API.
#[doc(hidden)]
pub mod internal {
    /// A raw kernel `slow_fill(float* x, float value, long long n, long long spin)` that
    /// spins `spin` clock cycles (10^8: about 50 ms on an H200), then writes `value` to
    /// `x[0..n]`: work still writing long after it was queued, for the stream-ordering tests
    /// and `cuprum stress`.
    pub const SLOW_FILL: &str = r#"
extern "C" __global__ void slow_fill(float* x, float value, long long n, long long spin) {
    long long start = clock64();
    while (clock64() - start < spin) { }
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        x[i] = value;
}"#;
    pub use crate::array::kernels::all_sources;
    pub use crate::array::kernels::launch_probe as launch_generated;
    pub use crate::compile::cache::nvrtc_compiles;
    pub use crate::compile::cache::{decode as decode_cache_entry, encode as encode_cache_entry};
    pub use crate::compile::record::record_kernel;
    pub use crate::compile::retries_on_this_thread as compile_retries_on_this_thread;
    pub use crate::kernel::{
        check_sample_schemas, check_sample_schemas_where, elementwise_sample_sources,
        reduction_sample_sources,
    };
    pub use crate::kernel::{elementwise_source_for_fuzzing, reduction_source_for_fuzzing};
    pub use crate::ops::elementwise_sample_sources as ops_sample_sources;
    pub use crate::ops::reduction_sample_sources as ops_reduction_sample_sources;
    pub use crate::ops::routine_sample_sources;
    pub use crate::runtime::pending_foreign as foreign_releases_pending;
}
