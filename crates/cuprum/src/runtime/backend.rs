//! The backend seam: what a device does, one trait per concern, each implemented once by
//! each backend —
//! - [`MemoryBackend`]: allocation, copies and fills, pinned and registered host memory,
//!   foreign pointers, peers;
//! - [`StreamBackend`]: streams, events, CUDA graphs;
//! - [`DeviceBackend`]: the device's kind, binding and synchronising it, loading modules, its
//!   libraries (random numbers, GEMM, FFT) and fault record, with the two above as supertraits so
//!   that one `&dyn DeviceBackend` reaches all three;
//! - [`ModuleBackend`]: the kernels of one loaded module (lookup, attributes, launch);
//! - [`TextureBackend`]: CUDA arrays, texture and surface objects (a supertrait of
//!   [`DeviceBackend`] too).
//!
//! A backend keeps each concern in a file of its own (`memory.rs`, `streams.rs` beside its
//! `mod.rs` and `module.rs`).
//!
//! Two backends exist, as sibling folders: `runtime/cuda/` (a GPU through the CUDA driver;
//! every raw driver call sits in `cuda/driver.rs`) and `runtime/host/` (the CPU as a device:
//! kernels compiled by the system C++ compiler, run on a pool of worker threads). The public
//! types ([`Device`](super::Device), [`Stream`](super::Stream), [`Event`](super::Event),
//! [`Module`](super::Module), [`Function`](super::Function), `Buffer`) hold a backend and
//! dispatch to it once per call; nothing above the runtime sees which backend runs.
//!
//! Handles cross the seam as plain numbers ([`RawStream`], [`RawEvent`], [`KernelId`]):
//! each backend gives them their meaning (a `CUstream` pointer, a host ordering token …).
//!
//! What a backend need not do, the generic layer does once for both: the freed-block cache
//! and the pool policy (`pool.rs`), the cross-stream rules of buffers (`memory.rs`), the
//! launch check (`launch.rs`), staging copies between devices that cannot reach each other,
//! and ordering work between a synchronous device (the host: work has finished when its
//! call returns, [`DeviceBackend::is_synchronous`]) and an asynchronous one.

use super::texture::{ArraySpec, RawArray, RawResource, TextureDesc};
use crate::error::Result;
use smallvec::SmallVec;
use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

// The handles below are made only inside the runtime (their fields are private to it):
// by a backend's `create_*`, `default_stream` or `kernel`, owned by the public type that
// holds them (`Stream`'s owner, `Event`, `Module`) and destroyed only by that owner's drop.
// So a handle a backend receives is always one of its own, alive.

/// A stream as its backend knows it (a `CUstream` on a GPU, an ordering token on the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RawStream(pub(in crate::runtime) usize);

/// An event as its backend knows it (a `CUevent` on a GPU, a slot of the host device's
/// event table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawEvent(pub(in crate::runtime) usize);

/// One kernel of a loaded module, as its module backend knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KernelId(pub(in crate::runtime) usize);

/// A captured, instantiated graph as its backend knows it (a `CUgraph` and its
/// `CUgraphExec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawGraph(pub(in crate::runtime) usize, pub(in crate::runtime) usize);

/// What rewriting a graph's addresses did (see `DeviceBackend::rebind_graph`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Rebound {
    /// Address words rewritten (kernel argument words, copy and memset addresses).
    pub(crate) rewritten: usize,
    /// Address words, after the rewrite, still inside the watched range.
    pub(crate) still_in_watch: usize,
}

/// What a device reports about itself when it is opened.
#[derive(Debug, Clone)]
pub(crate) struct DeviceProps {
    pub(crate) name: String,
    pub(crate) cc: (u32, u32),
    pub(crate) sm_count: u32,
    pub(crate) total_memory: usize,
    pub(crate) max_threads_per_block: u32,
    pub(crate) max_threads_per_sm: u32,
    pub(crate) max_shared_per_block: usize,
    pub(crate) max_shared_per_block_optin: usize,
    pub(crate) max_grid: [u32; 3],
    pub(crate) max_block: [u32; 3],
    pub(crate) l2_cache_bytes: usize,
    /// As `nvidia-smi -L` prints it: `GPU-…` or, for a MIG instance, `MIG-…`; the host
    /// device: `host`.
    pub(crate) uuid: String,
}

/// Which kind of code a device runs, so that the compile layer picks the compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeTarget {
    /// A CUDA GPU: cubin or PTX for this architecture (e.g. `90` for sm_90).
    Cuda(u32),
    /// The host device: a shared object the system C++ compiler built with cuprum's shim.
    Host,
}

/// A kernel attribute (the driver's `CUfunction_attribute`s cuprum reads or sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FuncAttr {
    MaxThreadsPerBlock,
    SharedSizeBytes,
    ConstSizeBytes,
    LocalSizeBytes,
    NumRegs,
    PtxVersion,
    BinaryVersion,
    MaxDynamicSharedSizeBytes,
    PreferredSharedMemoryCarveout,
    CacheModeCa,
}

/// How a launch is ordered against the work before it on its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaunchMode {
    /// After everything before it on the stream.
    Plain,
    /// After everything before it, every block resident at once (for `grid.sync()`).
    Cooperative,
    /// Its blocks may be scheduled while the kernel before it on the stream finishes
    /// (programmatic dependent launch, sm_90 on; elsewhere as `Plain`): only for kernels
    /// whose first statement waits for that kernel's completion and memory
    /// (`kernel_abi::DEPENDENT_WAIT`).
    Dependent,
}

impl LaunchMode {
    /// `Cooperative` when `on`, else `Plain`.
    pub(crate) fn cooperative_if(on: bool) -> LaunchMode {
        if on {
            LaunchMode::Cooperative
        } else {
            LaunchMode::Plain
        }
    }
}

/// How one launch runs: grid and block, dynamic shared memory, stream, and how it is
/// ordered against the stream's work before it ([`LaunchMode`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaunchParams {
    pub(crate) grid: (u32, u32, u32),
    pub(crate) block: (u32, u32, u32),
    pub(crate) shared: u32,
    pub(crate) stream: RawStream,
    pub(crate) mode: LaunchMode,
}

/// The memory a backend's pool holds, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PoolBytes {
    /// Reserved from the system (in use plus kept for reuse).
    pub(crate) reserved: u64,
    /// In use by allocations.
    pub(crate) used: u64,
}

/// Where a device's kernel-fault record lives (see `fault/record.rs`): the record in host
/// memory the device writes to (`host`, seen by the device at `record`), and the claim
/// word in device memory that elects the first fault.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FaultSlots {
    pub(crate) host: *mut u8,
    pub(crate) record: u64,
    pub(crate) claim: u64,
}

// SAFETY: the pointers refer to process-lifetime allocations that are never freed; the
// record is only accessed with volatile and atomic operations.
unsafe impl Send for FaultSlots {}
// SAFETY: as above.
unsafe impl Sync for FaultSlots {}

/// Host memory a device's kernels write through (see
/// [`DeviceBackend::alloc_mapped_forever`]): the host's address and the address kernels
/// use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MappedHost {
    pub(crate) host: *mut u8,
    pub(crate) device: u64,
}

/// What a random fill writes (see [`RngBackend::fill`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fill {
    /// float32 in `(0, 1]`.
    UniformF32,
    /// float64 in `(0, 1]`.
    UniformF64,
    /// float32, normal with this mean and standard deviation.
    NormalF32(f32, f32),
    /// float64, normal with this mean and standard deviation.
    NormalF64(f64, f64),
    /// Raw 32-bit words (uint32), every bit uniform.
    BitsU32,
}

/// Which generator a backend creates (see [`DeviceBackend::rng`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RngAlgorithm {
    /// Philox4x32-10 (cuRAND's, or cuprum's own on the host device).
    Philox,
    /// cuRAND's default generator (XORWOW, `CURAND_RNG_PSEUDO_DEFAULT`) as CuPy's legacy
    /// `RandomState` creates it; the host device has no XORWOW with cuRAND's output order
    /// and gives Philox instead.
    CurandDefault,
}

/// The element type of a GEMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlasFloat {
    F32,
    F64,
}

/// One input of a GEMM, in BLAS' column-major terms.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GemmInput {
    /// Device address of the first matrix.
    pub ptr: u64,
    /// `op(X) = Xᵀ` instead of `X`.
    pub trans: bool,
    /// Leading dimension (column stride, in elements) of the stored matrix.
    pub ld: i32,
    /// Elements from one matrix of the batch to the next (0 repeats the matrix).
    pub stride: i64,
}

/// `C = op(A) · op(B)` for `batch` column-major matrices: `op(A)` is `m × k`, `op(B)` is
/// `k × n`, `C` is `m × n` with leading dimension `ldc`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gemm {
    pub float: BlasFloat,
    pub m: i32,
    pub n: i32,
    pub k: i32,
    pub a: GemmInput,
    pub b: GemmInput,
    pub c: u64,
    pub ldc: i32,
    pub stride_c: i64,
    pub batch: i32,
}

/// The transform an [`FftPlan`] describes (cuFFT's plan types, without the precision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum FftKind {
    /// Complex to complex, forward or inverse.
    C2C,
    /// Real to complex (forward): the last axis of length `n` gives `n / 2 + 1` values.
    R2C,
    /// Complex to real (inverse): the last axis of `n / 2 + 1` values gives `n` reals.
    C2R,
}

/// A batch of unnormalised discrete Fourier transforms over the trailing 1 to 3 axes of
/// C-contiguous data: `batch` transforms of `dims` (the real-space lengths) one after the
/// other, complex values as interleaved (real, imaginary) pairs of the precision.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct FftPlan {
    pub kind: FftKind,
    /// float64 parts (complex128) instead of float32 (complex64).
    pub double: bool,
    /// The transform's lengths in real space, 1 to 3 of them, each ≥ 1.
    pub dims: SmallVec<[usize; 3]>,
    /// Transforms in the batch (≥ 1).
    pub batch: usize,
}

impl FftPlan {
    /// Elements (real or complex) of one transform's input and of its output.
    pub(crate) fn elements(&self) -> (usize, usize) {
        let full: usize = self.dims.iter().product();
        let last = self.dims.last().copied().unwrap_or(1);
        let half = full / last.max(1) * (last / 2 + 1);
        match self.kind {
            FftKind::C2C => (full, full),
            FftKind::R2C => (full, half),
            FftKind::C2R => (half, full),
        }
    }
}

/// A random generator of one backend (cuRAND's on a GPU, cuprum's own Philox on the host).
pub(crate) trait RngBackend: Send {
    /// Reseeds and restarts the sequence.
    fn reseed(&mut self, seed: u64) -> Result<()>;

    /// Writes `len` values of `fill` at `ptr`, queued on `stream`.
    ///
    /// # Safety
    /// `ptr` must address `len` elements of the fill's type (float32, float64 or uint32)
    /// in live memory of the generator's device that stays allocated until the generation
    /// has run in `stream` order; for a normal fill `len` must be even.
    unsafe fn fill(&mut self, ptr: u64, len: usize, fill: Fill, stream: RawStream) -> Result<()>;
}

/// What one device's memory does: allocation from its pool, copies within it and to and
/// from the host, pinned and registered host memory, foreign pointers, and devices that
/// reach each other's memory. Methods that take a [`RawStream`] queue work on that stream;
/// addresses are this device's.
pub(crate) trait MemoryBackend {
    /// A block of `bytes` (> 0), stream-ordered on `stream`; `Ok(None)` when the device is
    /// out of memory (the generic layer then releases what it keeps and retries).
    fn alloc(&self, bytes: usize, stream: RawStream) -> Result<Option<u64>>;

    /// Frees a block `alloc` returned for `bytes`, after the work queued on `stream` so far.
    /// False when it could not be freed (the block is then leaked).
    ///
    /// # Safety
    /// `ptr` came from `alloc(bytes, _)` of this backend and nothing holds it any more.
    unsafe fn free(&self, ptr: u64, bytes: usize, stream: RawStream) -> bool;

    /// What the memory pool holds.
    fn pool_bytes(&self) -> Result<PoolBytes>;

    /// Returns pool memory beyond `keep` bytes to the system (nothing where there is no pool).
    fn trim_pool(&self, keep: usize) -> Result<()>;

    /// Sets the bytes the pool keeps across synchronisations (nothing where there is no pool).
    fn set_release_threshold(&self, bytes: usize) -> Result<()>;

    /// Copies `bytes` between two addresses of this device (they may overlap on a
    /// synchronous device: a memmove).
    ///
    /// # Safety
    /// Both ranges lie in live memory of this device that stays allocated until the copy
    /// has run in `stream` order; every byte written is a valid value of what is stored.
    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize, stream: RawStream) -> Result<()>;

    /// Sets `bytes` bytes at `dst` to zero.
    ///
    /// # Safety
    /// As for `copy_dtod`, for `dst..dst + bytes`.
    unsafe fn zero(&self, dst: u64, bytes: usize, stream: RawStream) -> Result<()>;

    /// Copies host bytes to `dst`, ordered on `stream`; returns once `src` has been read
    /// (the caller may change or free it).
    ///
    /// # Safety
    /// As for `copy_dtod`, for `dst..dst + src.len()`.
    unsafe fn copy_htod(&self, dst: u64, src: &[u8], stream: RawStream) -> Result<()>;

    /// Copies `bytes` device bytes at `src` into host memory at `dst`, after the work
    /// queued on `stream`; returns once every byte has been written (also on error, `dst`
    /// is no longer written once this returns).
    ///
    /// # Safety
    /// `src..src + bytes` lies in live memory of this device, allocated until this
    /// returns; `dst..dst + bytes` is host memory nobody else reads or writes meanwhile
    /// (it may be uninitialised).
    unsafe fn copy_dtoh(
        &self,
        dst: *mut u8,
        bytes: usize,
        src: u64,
        stream: RawStream,
    ) -> Result<()>;

    /// Frees what the backend keeps for host copies (the CUDA backend's pinned staging
    /// lanes), after the copies that use it.
    fn release_staging(&self) {}

    /// `bytes` (> 0) of page-locked host memory, uninitialised, that copies of every device
    /// of this kind reach at the link's speed (ordinary memory on a synchronous device);
    /// `Ok(None)` when the system has not that much memory to lock.
    fn alloc_pinned(&self, bytes: usize) -> Result<Option<*mut u8>>;

    /// Frees memory `alloc_pinned(bytes)` returned.
    ///
    /// # Safety
    /// `ptr` came from `alloc_pinned(bytes)` of this backend, no copy uses it any more, and
    /// it is freed once.
    unsafe fn free_pinned(&self, ptr: *mut u8, bytes: usize);

    /// Page-locks `bytes` (> 0) of memory the program owns (nothing on a synchronous device).
    ///
    /// # Safety
    /// `ptr..ptr + bytes` is one live allocation that stays allocated until
    /// `unregister_host`.
    unsafe fn register_host(&self, ptr: *mut u8, bytes: usize) -> Result<()>;

    /// Undoes `register_host`.
    ///
    /// # Safety
    /// `ptr` was registered by this backend and no copy uses it any more.
    unsafe fn unregister_host(&self, ptr: *mut u8);

    /// Queues a copy of `bytes` host bytes at `src` to `dst` on `stream` and returns at
    /// once (for page-locked memory; pageable memory is read before returning).
    ///
    /// # Safety
    /// `dst..dst + bytes` lies in live memory of this device and `src..src + bytes` in host
    /// memory, both allocated and `src` unchanged until the copy has run in `stream` order.
    unsafe fn copy_htod_async(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        stream: RawStream,
    ) -> Result<()>;

    /// Queues a copy of `bytes` device bytes at `src` into host memory at `dst` on `stream`
    /// and returns at once (for page-locked memory).
    ///
    /// # Safety
    /// As for `copy_htod_async`; nobody else reads or writes `dst..dst + bytes` until the
    /// copy has run in `stream` order.
    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        stream: RawStream,
    ) -> Result<()>;

    /// Checks that kernels and copies of this device can address `ptr`, the start of
    /// memory another library allocated and hands to cuprum (an imported DLPack tensor, a
    /// raw pointer with an owner): a GPU asks the driver (device memory of another GPU or
    /// an address the driver does not know is an error naming both); the host device
    /// addresses every host pointer.
    fn check_foreign(&self, ptr: u64) -> Result<()>;

    /// Writes `src` to `dst` synchronously (a module's global, a fault claim word) while no
    /// kernel of this device uses those bytes.
    ///
    /// # Safety
    /// `dst..dst + src.len()` lies in live memory of this device.
    unsafe fn write_sync(&self, dst: u64, src: &[u8]) -> Result<()>;

    /// Whether kernels and copies here can read and write `peer`'s memory directly.
    fn can_access_peer(&self, peer: &dyn DeviceBackend) -> Result<bool>;

    /// Enables access to `peer`'s memory (once per pair; already enabled is success).
    fn enable_peer_access(&self, peer: &dyn DeviceBackend) -> Result<()>;

    /// Copies `bytes` from `src` (memory of `peer`) to `dst` (memory of this device)
    /// directly; `Ok(false)` when this backend cannot (the generic layer then stages
    /// through the host).
    ///
    /// # Safety
    /// Both ranges lie in live memory of their devices, allocated until the copy has run
    /// in `stream` order; every byte written is a valid value of what is stored at `dst`.
    unsafe fn copy_from_peer(
        &self,
        dst: u64,
        src: u64,
        peer: &dyn DeviceBackend,
        bytes: usize,
        stream: RawStream,
    ) -> Result<bool>;
}

/// What one device's streams do: the default stream and created ones, the events that
/// order and time them, and CUDA graphs captured from them.
pub(crate) trait StreamBackend {
    /// The device's default stream (lives as long as the process).
    fn default_stream(&self) -> RawStream;

    /// A new stream.
    fn create_stream(&self) -> Result<RawStream>;

    /// Destroys a stream `create_stream` made (queued work still finishes).
    fn destroy_stream(&self, stream: RawStream);

    /// Waits on the host for the work queued on `stream`.
    fn synchronize_stream(&self, stream: RawStream) -> Result<()>;

    /// Whether the work queued on `stream` has all finished (never blocks).
    fn stream_done(&self, stream: RawStream) -> Result<bool>;

    /// Makes later work on `stream` wait for the work queued so far on `other` (a stream of
    /// `peer`, an asynchronous device of this backend's kind).
    fn stream_wait_stream(
        &self,
        stream: RawStream,
        peer: &dyn DeviceBackend,
        other: RawStream,
    ) -> Result<()>;

    /// A new event (with timing).
    fn create_event(&self) -> Result<RawEvent>;

    /// A marker event without timing (cheaper to record: for ordering and waiting only).
    fn create_marker_event(&self) -> Result<RawEvent> {
        self.create_event()
    }

    /// Destroys an event `create_event` made.
    fn destroy_event(&self, event: RawEvent);

    /// Records `event` at the current end of `stream`.
    fn record_event(&self, event: RawEvent, stream: RawStream) -> Result<()>;

    /// Makes later work on `stream` wait for `event` (an event of this device).
    fn stream_wait_event(&self, stream: RawStream, event: RawEvent) -> Result<()>;

    /// Waits for the work before the event's recorded point.
    fn synchronize_event(&self, event: RawEvent) -> Result<()>;

    /// Whether the work before the event's recorded point has finished (never blocks).
    fn event_complete(&self, event: RawEvent) -> Result<bool>;

    /// Milliseconds between two recorded events of this device (waits for `end`).
    fn elapsed_ms(&self, start: RawEvent, end: RawEvent) -> Result<f32>;

    /// Starts capturing the work queued on `stream` into a graph.
    fn begin_capture(&self, stream: RawStream) -> Result<()>;

    /// Ends the capture of `stream` and instantiates the graph: its handle and node count
    /// (an error when the capture was invalidated; the stream is not capturing afterwards).
    fn end_capture(&self, stream: RawStream) -> Result<(RawGraph, usize)>;

    /// Queues one run of a graph on `stream`.
    ///
    /// # Safety
    /// `graph` came from this backend's `end_capture` and is not destroyed; the memory its
    /// work uses stays allocated until the run has finished in `stream` order.
    unsafe fn launch_graph(&self, graph: RawGraph, stream: RawStream) -> Result<()>;

    /// Destroys a graph (runs already queued still finish).
    ///
    /// # Safety
    /// `graph` came from this backend's `end_capture` and is destroyed once.
    unsafe fn destroy_graph(&self, graph: RawGraph);

    /// Rewrites, for the graph's later launches, every device address inside `from` that its
    /// work uses to the same offset from `to`, and counts the addresses left inside `watch`.
    ///
    /// # Safety
    /// `graph` came from this backend's `end_capture`, is not destroyed, and no other thread
    /// uses it meanwhile; `to..to + from.len()` is memory of this device that stays
    /// allocated while the graph can run.
    unsafe fn rebind_graph(
        &self,
        graph: RawGraph,
        from: std::ops::Range<u64>,
        to: u64,
        watch: std::ops::Range<u64>,
        layouts: &super::capture_state::Layouts,
    ) -> Result<Rebound>;
}

/// What one device does: its kind, binding and synchronising it, loading modules (whose
/// kernels launch through [`ModuleBackend`]), its libraries (random numbers, GEMM) and its
/// fault record; memory and streams through the two supertraits.
pub(crate) trait DeviceBackend:
    MemoryBackend + StreamBackend + TextureBackend + Send + Sync + Any
{
    /// The backend as `Any`, so that a backend can recognise a peer of its own kind.
    fn as_any(&self) -> &dyn Any;

    /// The kind of code the device runs.
    fn code_target(&self) -> CodeTarget;

    /// Work has finished when the call that queued it returns (streams only order work).
    fn is_synchronous(&self) -> bool;

    /// Makes the device usable on the calling thread (a CUDA context made current).
    fn bind(&self) -> Result<()>;

    /// Waits for all work on every stream of the device.
    fn synchronize(&self) -> Result<()>;

    /// Free and total memory in bytes.
    fn memory_info(&self) -> Result<(usize, usize)>;

    /// Loads a compiled image (cubin, fatbin or PTX) with its `(name expression, lowered
    /// name)` pairs.
    fn load_image(
        &self,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<Arc<dyn ModuleBackend>>;

    /// Links a relocatable image (compiled with `-dc` / `-rdc=true`) with the static device
    /// libraries at `libraries` into a loadable one.
    fn link_relocatable(&self, image: &[u8], libraries: &[std::path::PathBuf]) -> Result<Vec<u8>>;

    /// A generator of `algorithm` with `seed`.
    fn rng(&self, seed: u64, algorithm: RngAlgorithm) -> Result<Box<dyn RngBackend>>;

    /// Queues the GEMM `g` on `stream`.
    ///
    /// # Safety
    /// For every `i < g.batch`: `g.a.ptr + i * g.a.stride` (in elements) addresses a matrix
    /// of the dimensions and leading dimension `g.a` describes, likewise for `b`, and
    /// `g.c + i * g.stride_c` an `m × n` matrix with leading dimension `ldc`, all in live
    /// memory of this device holding elements of `g.float`, the output overlapping neither
    /// the inputs nor another output matrix, allocated until `stream` has run the work.
    unsafe fn gemm(&self, g: &Gemm, stream: RawStream) -> Result<()>;

    /// The version of the BLAS library GPUs use (cuBLAS, e.g. `130001`); an error where
    /// the backend uses none.
    fn blas_version(&self) -> Result<i32>;

    /// Queues the transforms `plan` describes on `stream`: `forward` is the sign of the
    /// exponent (-1 forward, +1 inverse; R2C is always forward, C2R always inverse), nothing
    /// is scaled.
    ///
    /// # Safety
    /// `input` and `output` address `plan.batch` times [`FftPlan::elements`] elements (of
    /// the input's and the output's type) in live memory of this device that stays
    /// allocated until `stream` has run the work; they are the same address (in place, C2C
    /// only) or do not overlap. A C2R transform may overwrite its input.
    unsafe fn fft(
        &self,
        plan: &FftPlan,
        input: u64,
        output: u64,
        forward: bool,
        stream: RawStream,
    ) -> Result<()>;

    /// The version of the FFT library GPUs use (cuFFT, e.g. `12000`); an error where the
    /// backend uses none.
    fn fft_version(&self) -> Result<i32>;

    /// Allocates the device's kernel-fault record (once per device: `fault/record.rs` keeps it
    /// for the process).
    fn alloc_fault_slots(&self) -> Result<FaultSlots>;

    /// Clears the claim word of the fault record (no kernel of the device runs meanwhile
    /// that could fault: it is called after a synchronisation).
    fn reset_fault_claim(&self, slots: &FaultSlots) -> Result<()>;

    /// `bytes` of zeroed host memory that the device's kernels read and write at
    /// `MappedHost::device` and the host at `MappedHost::host`, never freed (the error flags
    /// of `flags.rs`): on a GPU page-locked and mapped into its address space (usable from
    /// every context), on the host device ordinary memory. Aligned to 64 bytes at least.
    fn alloc_mapped_forever(&self, bytes: usize) -> Result<MappedHost>;

    /// Starts (`true`) or stops profile collection by an attached profiler (Nsight
    /// Systems' `--capture-range=cudaProfilerApi`, Nsight Compute's
    /// `--profile-from-start off`); nothing without one, and nothing on the host device.
    fn profiler(&self, _collect: bool) -> Result<()> {
        Ok(())
    }
}

/// CUDA arrays, texture objects and surface objects (`texture.rs` checks every description
/// before it gets here).
pub(crate) trait TextureBackend {
    /// A new CUDA array of `spec` (its contents undefined).
    fn create_array(&self, spec: &ArraySpec) -> Result<RawArray>;

    /// Frees a CUDA array.
    ///
    /// # Safety
    /// `array` came from this backend's `create_array(spec)` and no queued work, texture
    /// or surface object uses it any more.
    unsafe fn destroy_array(&self, array: RawArray, spec: &ArraySpec);

    /// Copies the whole array from (`into_array`) or to packed linear memory at `linear`
    /// (`spec.bytes()` bytes, rows of `spec.row_bytes()`), queued on `stream`.
    ///
    /// # Safety
    /// `array` is live and of `spec`; `linear..linear + spec.bytes()` lies in live memory of
    /// this device that stays allocated until the copy has run in `stream` order.
    unsafe fn copy_array(
        &self,
        array: RawArray,
        spec: &ArraySpec,
        linear: u64,
        into_array: bool,
        stream: RawStream,
    ) -> Result<()>;

    /// A texture object over `resource` sampled as `desc` says: its 64-bit handle.
    ///
    /// # Safety
    /// The memory `resource` names is live and stays so until the object is destroyed.
    unsafe fn create_texture(&self, resource: &RawResource, desc: &TextureDesc) -> Result<u64>;

    /// Destroys a texture object.
    ///
    /// # Safety
    /// `handle` came from this backend's `create_texture` and no queued work uses it.
    unsafe fn destroy_texture(&self, handle: u64);

    /// A surface object over the CUDA array of `resource` (made with `spec.surface`).
    ///
    /// # Safety
    /// As for [`create_texture`](TextureBackend::create_texture).
    unsafe fn create_surface(&self, resource: &RawResource) -> Result<u64>;

    /// Destroys a surface object.
    ///
    /// # Safety
    /// `handle` came from this backend's `create_surface` and no queued work uses it.
    unsafe fn destroy_surface(&self, handle: u64);
}

/// The kernels of one loaded module.
pub(crate) trait ModuleBackend: Send + Sync {
    /// The kernel named `name`: an `extern "C"` name, a mangled name, or a name
    /// expression given at compile time. `Ok(None)` when the module has none.
    fn kernel(&self, name: &str) -> Result<Option<KernelId>>;

    /// Address and size of a `__device__`/`__constant__` symbol; `Ok(None)` when absent.
    fn global(&self, name: &str) -> Result<Option<(u64, usize)>>;

    /// The kernel's parameters as `(offset, size)` in bytes.
    fn param_info(&self, k: KernelId) -> Result<Vec<(usize, usize)>>;

    /// The parameter count the image gives without asking the driver, if known.
    fn image_param_count(&self, k: KernelId) -> Option<usize>;

    /// A kernel attribute.
    fn attribute(&self, k: KernelId, attr: FuncAttr) -> Result<i32>;

    /// Sets a kernel attribute (dynamic shared memory limit, carveout).
    fn set_attribute(&self, k: KernelId, attr: FuncAttr, value: i32) -> Result<()>;

    /// Blocks of `block` threads with `shared` bytes of dynamic shared memory that one
    /// multiprocessor (a host worker) holds at once.
    fn max_active_blocks_per_sm(&self, k: KernelId, block: u32, shared: usize) -> Result<u32>;

    /// Launches kernel `k` as `p` says, with one pointer per parameter in `args`.
    ///
    /// # Safety
    /// `args` holds one pointer per kernel parameter, each to a value of the parameter's
    /// size, alive for the call; pointers inside those values address memory valid for
    /// what the kernel does until it finishes; the configuration passed the launch check.
    unsafe fn launch(&self, k: KernelId, p: &LaunchParams, args: *mut *mut c_void) -> Result<()>;
}
