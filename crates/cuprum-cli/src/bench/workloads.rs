//! The workloads of `cuprum bench`, each with its target (as data: this table is the one
//! source of the targets; `cuprum bench --list` prints it as docs/perf-targets.md) and what
//! it runs, timed with `cuprum::profiler::benchmark` (median of the repeats).
//!
//! Workloads: the copy ceiling, host-overhead floors (`launch_floor`, `*_overhead`),
//! allocation, compilation and cache cases (compile_cases.rs), the seed RawKernels (`raw_*`,
//! `prime1M_raw`, matmul, shared-memory reduction) and the ElementwiseKernel cases (`ew_*`,
//! broadcast, transposed, multi-output trig, complex `abs2`, `prime1M_elementwise`) and the
//! ReductionKernel cases (the seed's MSE, and the same with built-ins as `cp.mean((a - b) **
//! 2)`; sums of squares: full, per axis, host overhead), a ScanKernel (running maximum),
//! the array routines (`cumsum`, `sort` of 32- and 64-bit keys and along rows, `argsort`,
//! `unique`, `median`, row `quantile`s, a boolean-mask read, `nonzero`,
//! `concatenate`, `take`, `scatter_add`; `searchsorted`, `isin`, `bincount`, `histogram`,
//! `argwhere`; the shape routines in shape_workloads.rs), the seed's masked prime-factor sum
//! and the masked update, `where` and `//` it needs, and the kernels written in Rust
//! (jit_workloads.rs). scripts/cupy_bench.py times CuPy's
//! equivalents, where there are, under the same names (cupyx.jit for the Rust kernels), and
//! with `--torch` PyTorch's, where one is named there (`cuprum bench --vs-torch`).

use super::compile_cases::{
    compile_cold, compile_cold_jit, compile_cold_reduction, compile_cold_reduction_split,
    compile_disk_hit, compile_disk_hit_lookup, compile_disk_hit_reduction, compile_first,
    compile_memo_hit,
};
use super::jit_workloads::{jit_add4, jit_add100m, jit_smem_reduce, prime1m_jit};
use super::kernels::{ADD_SRC, MATMUL_SRC, PRIME_SRC, SMEM_SRC, sum_of_squares};
use super::shape_workloads::{
    diff100m, flip100m_copy, outer10000, repeat10m_x4, roll100m, tile10m_3x3, trace10000, tril10000,
};
use super::targets::Target::{self, *};
use super::timed::{R, Timed};
use super::type_workloads::{activation_enum, activation_int, nbody_raw, nbody_rust};
use super::{bundle_cases, fuse_cases, graph_cases, host_cases, transfer_cases as tx};
use crate::seeds;
use cuprum::kernel::IntoOperand;
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::{Array, DType, ElementwiseKernel, RawKernel, ReductionKernel, ScanKernel, ops};

/// Times one workload: the result and the bytes one call must move (0: not bandwidth-bound).
pub type RunFn = fn(&BenchmarkOptions) -> R<Timed>;

/// How a workload runs.
#[derive(Clone, Copy)]
pub enum Impl {
    Run(RunFn),
    /// Listed (the targets name it) but not implemented; the text says why.
    #[allow(dead_code)]
    Missing(&'static str),
}

/// One bench name: what it times, how, and its target.
pub struct Workload {
    pub name: &'static str,
    pub what: &'static str,
    pub imp: Impl,
    pub target: Target,
    /// Runs on the host device (the CPU; host_cases.rs) wherever `cuprum bench` runs; the
    /// others need a GPU.
    pub on_host: bool,
}

const fn w(name: &'static str, what: &'static str, run: RunFn, target: Target) -> Workload {
    Workload {
        name,
        what,
        imp: Impl::Run(run),
        target,
        on_host: false,
    }
}

/// A workload of the host device.
const fn host(name: &'static str, what: &'static str, run: RunFn, target: Target) -> Workload {
    Workload {
        on_host: true,
        ..w(name, what, run, target)
    }
}

/// The copy ceiling; always measured, first.
pub const COPY: &str = "copy_1GiB_f32";
/// The host-time floor of the `HostOverFloor` targets; measured whenever one needs it.
pub const FLOOR: &str = "launch_floor";

/// Every workload, in the order of the output.
pub const WORKLOADS: &[Workload] = &[
    w(
        COPY,
        "device-to-device copy of 2^28 float32 (the ceiling)",
        copy_1gib,
        Info("the ceiling"),
    ),
    w(
        FLOOR,
        "bare cuLaunchKernel of an empty kernel (host time is the floor)",
        launch_floor,
        Info("the floor"),
    ),
    w(
        "alloc_empty_1M_f32",
        "Array::empty of 1e6 float32 from the pool, dropped",
        alloc_empty,
        Info("no target"),
    ),
    w(
        "dlpack_roundtrip_host_us",
        "Array::to_dlpack + into_raw_versioned, then from_raw_versioned + Array::from_dlpack \
         of 4 float32 (zero-copy), dropped",
        dlpack_roundtrip,
        HostUs(1.0),
    ),
    w(
        "dlpack_import_foreign_host_us",
        "Array::from_dlpack of a producer's (not cuprum's) versioned tensor of 4 float32, \
         dropped: the foreign buffer, its pointer check and its stream-ordered release",
        dlpack_import_foreign,
        HostUs(4.0),
    ),
    w(
        "compile_cold_elementwise",
        "compile + load of a new ElementwiseKernel's generated source (float32 `z = x + y * 2`), NVRTC already loaded",
        compile_cold,
        HostMs(8.0),
    ),
    w(
        "compile_cold_reduction",
        "compile + load of a new sum-of-squares ReductionKernel source, one block per output (short or per-row reductions), NVRTC loaded",
        compile_cold_reduction,
        HostMs(12.0),
    ),
    w(
        "compile_cold_reduction_split",
        "the same kernel split over blocks with 4-wide loads (what a long full reduction compiles), NVRTC loaded",
        compile_cold_reduction_split,
        Info(
            "the split twin of compile_cold_reduction: a kernel called on both kinds of sizes compiles both",
        ),
    ),
    w(
        "compile_first_in_process",
        "first compile of a fresh process, NVRTC load included",
        compile_first,
        HostMs(25.0),
    ),
    w(
        "compile_disk_hit",
        "first call of a fresh process with the kernel on disk",
        compile_disk_hit,
        HostMs(0.12),
    ),
    w(
        "compile_disk_hit_lookup",
        "the same, cache lookup only (read + checksum + decode, no driver load)",
        compile_disk_hit_lookup,
        Info("part of compile_disk_hit"),
    ),
    w(
        "compile_disk_hit_reduction",
        "first call of a fresh process with the ReductionKernel source on disk",
        compile_disk_hit_reduction,
        HostMs(0.5),
    ),
    w(
        "bundle_load_64_kernels",
        "fresh process: load a bundle of every seed example's kernels (built for this GPU) and \
         look each up as a program does (no NVRTC)",
        bundle_cases::bundle_load,
        HostMs(10.0),
    ),
    w(
        "demo_cold_start",
        "the whole `cuprum demo` in a fresh process from an empty kernel cache (NVRTC compiles)",
        bundle_cases::demo_cold,
        Info("compare with demo_cold_start_bundle"),
    ),
    w(
        "demo_cold_start_bundle",
        "the same from a bundle of the demo's kernels: zero NVRTC compiles",
        bundle_cases::demo_cold_bundle,
        Info("compare with demo_cold_start"),
    ),
    w(
        "compile_memo_hit",
        "compile_with_cache repeat + function lookup + launch",
        compile_memo_hit,
        HostOverFloor(1.0),
    ),
    w(
        "raw_add4_overhead",
        "RawKernel vector_add launch, 4 float32 (host time)",
        raw_add4,
        HostOverFloor(0.3),
    ),
    w(
        "raw_add100M_f32",
        "RawKernel vector_add, 1e8 float32",
        raw_add100m,
        All(&[PctOfCopy(90.0), VsCupy(1.0, None)]),
    ),
    w(
        "prime1M_raw",
        "seed prime-factor-sum RawKernel, n = 1e6",
        prime1m_raw,
        VsCupy(1.02, None),
    ),
    w(
        "ew_add100M_f32",
        "ElementwiseKernel z = x + y * 2, 1e8 float32, output allocated per call",
        ew_add100m,
        PctOfCopy(90.0),
    ),
    w(
        "ew_add100M_f32_out",
        "ElementwiseKernel z = x + y * 2, 1e8 float32, output given",
        ew_add100m_out,
        PctOfCopy(90.0),
    ),
    w(
        "ew_add_bcast_10000x10000_f32",
        "ElementwiseKernel T z = x + y, (10000,10000) + (10000,), output given",
        ew_add_bcast,
        PctOfCopy(80.0),
    ),
    w(
        "ew_add_transposed_10000x10000_f32",
        "ElementwiseKernel T z = x + y on A.T + A, 10000x10000, output given",
        ew_add_transposed,
        PctOfCopy(70.0),
    ),
    w(
        "trig10M_multi_output",
        "ElementwiseKernel sin, cos, tan outputs of 1e7 float32, allocated (call_all)",
        trig10m,
        PctOfCopy(85.0),
    ),
    w(
        "abs2_10M_kernel",
        "seed abs_squared ElementwiseKernel, complex128 -> float64, 1e7, output allocated",
        abs2_10m,
        PctOfCopy(90.0),
    ),
    w(
        "prime1M_elementwise",
        "seed prime-factor-sum as an ElementwiseKernel over i, n = 1e6, output given",
        prime1m_elementwise,
        VsCupy(1.02, Some("prime1M_raw")),
    ),
    w(
        "prime1M_jit",
        "seed prime-factor-sum written in Rust (#[cuprum::kernel]), n = 1e6",
        prime1m_jit,
        VsOurs(1.03, "prime1M_raw"),
    ),
    w(
        "ew_add4_f32_out_overhead",
        "ElementwiseKernel z = x + y * 2, 4 float32, output given (host time)",
        ew_add4_out,
        HostOverFloor(0.6),
    ),
    w(
        "ew_add4_f32_alloc_overhead",
        "ElementwiseKernel z = x + y * 2, 4 float32, output allocated (host time)",
        ew_add4_alloc,
        HostOverFloor(1.2),
    ),
    w(
        "jit_add100M_f32",
        "vector_add_wide written in Rust (#[cuprum::kernel], 16-byte load4/store4), 1e8 float32",
        jit_add100m,
        PctOfCopy(90.0),
    ),
    w(
        "jit_add4_overhead",
        "vector_add written in Rust, 4 float32 (host time)",
        jit_add4,
        HostOverFloor(0.5),
    ),
    w(
        "jit_smem_reduce1M",
        "seed shared-memory block reduction written in Rust, 1e6 float32",
        jit_smem_reduce,
        VsOurs(1.02, "smem_reduce1M_raw"),
    ),
    w(
        "nbody_step_1M_particles",
        "n-body step over 1M Particle records × 64 bodies, written in Rust (#[derive(DeviceType)] structs, field access, a #[device] method; CuPy: the raw twin over a structured NumPy dtype)",
        nbody_rust,
        All(&[VsOurs(1.03, "nbody_step_1M_raw"), VsCupy(1.03, None)]),
    ),
    w(
        "nbody_step_1M_raw",
        "the n-body step's raw CUDA twin over the same records (CuPy: the same RawKernel over arrays of a structured NumPy dtype)",
        nbody_raw,
        VsCupy(1.02, None),
    ),
    w(
        "jit_match_activation100M_f32",
        "the seed's activation selected by match on an enum (#[derive(DeviceType)] #[repr(u8)]), sigmoid, 1e8 float32",
        activation_enum,
        VsOurs(1.03, "jit_switch_activation100M_f32"),
    ),
    w(
        "jit_switch_activation100M_f32",
        "the seed's activation selected by an integer (apply_activation), sigmoid, 1e8 float32",
        activation_int,
        Info("the integer-selected twin of jit_match_activation100M_f32"),
    ),
    w(
        "compile_cold_jit",
        "first launch of a new kernel written in Rust: compile + load (apply_activation with its device functions), NVRTC loaded",
        compile_cold_jit,
        HostMs(12.0),
    ),
    w(
        "matmul_naive_1024x1024x512",
        "seed naive matmul RawKernel",
        matmul_naive,
        VsCupy(1.02, None),
    ),
    w(
        "smem_reduce1M_raw",
        "seed shared-memory block reduction, 1e6 float32",
        smem_reduce,
        VsCupy(1.02, None),
    ),
    w(
        "mse100M_f64_ReductionKernel",
        "seed MSE ReductionKernel, two float64 inputs of 1e8, output allocated",
        mse100m,
        PctOfCopy(85.0),
    ),
    w(
        "mse100M_f64_cp_mean",
        "built-ins ops::mean((x - y) ** 2), two float64 inputs of 1e8 (CuPy: cp.mean)",
        mse100m_mean,
        All(&[VsCupy(1.0, None), BeatenBy("mse100M_f64_ReductionKernel")]),
    ),
    w(
        "mse100M_f64_fuse",
        "fuse: mean((a - b) ** 2) of two float64 inputs of 1e8 (CuPy: cupy.fuse of sum((a - b) ** 2) / n)",
        fuse_cases::mse100m_fuse,
        VsOurs(1.05, "mse100M_f64_ReductionKernel"),
    ),
    w(
        "fuse_chain10_100M_f32",
        "fuse: (v * 1.0001 + 0.5) five times, 1e8 float32 in and out (CuPy: cupy.fuse)",
        fuse_cases::chain10_fused,
        PctOfCopy(90.0),
    ),
    w(
        "fuse_chain10_100M_f32_unfused",
        "the same ten operations through ops, ten kernels (CuPy: the same, unfused)",
        fuse_cases::chain10_unfused,
        Info("the unfused chain, for comparison"),
    ),
    w(
        "fuse_overhead",
        "fuse: repeat call of the fused MSE on 4 float64 pairs (host time)",
        fuse_cases::overhead,
        HostOverFloor(2.0),
    ),
    w(
        "fuse_compile_cold",
        "fuse: first call of a new fused function, NVRTC loaded, empty cache (fresh processes: median of 7 new functions after one)",
        fuse_cases::compile_cold,
        HostMs(20.0),
    ),
    w(
        "mse10M_f64_ReductionKernel",
        "seed MSE ReductionKernel, two float64 inputs of 1e7, output allocated",
        mse10m,
        PctOfCopy(70.0),
    ),
    w(
        "ssq100M_f32_ReductionKernel",
        "ReductionKernel sum of squares, 1e8 float32",
        ssq100m,
        PctOfCopy(85.0),
    ),
    w(
        "ssq1M_f32_ReductionKernel",
        "ReductionKernel sum of squares, 1e6 float32",
        ssq1m,
        GpuUs(8.0),
    ),
    w(
        "ssq_8192x8192_axis1",
        "ReductionKernel sum of squares of (8192, 8192) float32 over the contiguous axis 1",
        ssq_axis1,
        PctOfCopy(85.0),
    ),
    w(
        "ssq_8192x8192_axis0",
        "ReductionKernel sum of squares of (8192, 8192) float32 over the strided axis 0",
        ssq_axis0,
        PctOfCopy(80.0),
    ),
    w(
        "ssq4_ReductionKernel_overhead",
        "ReductionKernel sum of squares, 4 float32, output allocated (host time)",
        ssq4,
        HostOverFloor(1.5),
    ),
    // Host transfers: ordinary Rust memory judged against the pinned copy (the link).
    w(
        "h2d_1GiB_pinned",
        "1 GiB float32 host → device from a PinnedBuffer (copy_from_host_async + wait)",
        tx::h2d_1gib_pinned,
        Info("the link"),
    ),
    w(
        "d2h_1GiB_pinned",
        "1 GiB float32 device → host into a PinnedBuffer (copy_to_host_async + wait)",
        tx::d2h_1gib_pinned,
        Info("the link"),
    ),
    w(
        "h2d_1GiB_pageable",
        "Array::from_slice of 1 GiB float32 from a Vec (staged through pinned lanes)",
        tx::h2d_1gib_pageable,
        BwOfOurs(80.0, "h2d_1GiB_pinned", 1.0),
    ),
    w(
        "d2h_1GiB_pageable",
        "to_vec of 1 GiB float32 into a fresh Vec (first-touch page faults included)",
        tx::d2h_1gib_pageable,
        BwOfOurs(80.0, "d2h_1GiB_pinned", 1.0),
    ),
    w(
        "d2h_1GiB_into",
        "copy_to_slice of 1 GiB float32 into an existing Vec",
        tx::d2h_1gib_into,
        BwOfOurs(80.0, "d2h_1GiB_pinned", 1.0),
    ),
    w(
        "h2d_64MiB_pageable",
        "Array::from_slice of 64 MiB float32 from a Vec",
        tx::h2d_64mib_pageable,
        BwOfOurs(80.0, "h2d_1GiB_pinned", 1.0 / 16.0),
    ),
    w(
        "d2h_64MiB_pageable",
        "to_vec of 64 MiB float32 into a fresh Vec",
        tx::d2h_64mib_pageable,
        BwOfOurs(80.0, "d2h_1GiB_pinned", 1.0 / 16.0),
    ),
    w(
        "pipeline_4GiB_slowest_stage",
        "the slowest of upload / compute / download of 4 GiB in 16 MiB chunks, each alone",
        tx::pipeline_slowest_stage,
        Info("the bound"),
    ),
    w(
        "pipeline_4GiB_3streams",
        "upload chunk k+1, y = 2x + 1 on chunk k, download chunk k-1 on 3 streams, 4 GiB each way in 16 MiB chunks",
        tx::pipeline_4gib,
        VsOurs(1.15, "pipeline_4GiB_slowest_stage"),
    ),
    // CUDA Graphs: 20 small kernels, eager and replayed from one capture.
    w(
        "eager_chain20_4K",
        "20 ElementwiseKernel calls on 4096 float32 (x = 0.5x + 1 in place), one launch each",
        graph_cases::eager_chain20,
        Info("the eager twin"),
    ),
    w(
        "graph_chain20_4K",
        "the same 20 calls captured once (Stream::capture), replayed with Graph::launch",
        graph_cases::graph_chain20,
        All(&[GpuUs(26.0), HostMs(0.005)]),
    ),
    // Array routines (issue 16): scans, sorts, masks and gathers, joins; issue 25 raised the
    // targets of the 1-D scan (85 % of copy), the 32-bit sort (0.8 × CuPy) and compaction
    // (85 % of the bytes it must move).
    w(
        "cumsum100M_f32",
        "ops::cumsum of 1e8 float32 (one-pass decoupled look-back scan)",
        cumsum100m,
        PctOfCopy(85.0),
    ),
    w(
        "cumsum100M_f64",
        "ops::cumsum of 1e8 float64 (the scan of 8-byte accumulators)",
        cumsum100m_f64,
        PctOfCopy(85.0),
    ),
    w(
        "cumsum100M_i32",
        "ops::cumsum of 1e8 int32 in [0, 1000) into int64 (NumPy's result dtype; 4 bytes \
         read and 8 written per element)",
        cumsum100m_i32,
        PctOfCopy(85.0),
    ),
    w(
        "cumsum_10Kx10K_f32_axis1",
        "ops::cumsum of a (10000, 10000) float32 array along its rows (a block per row)",
        cumsum2d_axis1,
        PctOfCopy(85.0),
    ),
    w(
        "cumsum_10Kx10K_f64_axis1",
        "ops::cumsum of a (10000, 10000) float64 array along its rows (a block per row)",
        cumsum2d_f64_axis1,
        PctOfCopy(85.0),
    ),
    w(
        "cumsum_10Kx10K_f32_axis0",
        "ops::cumsum of a (10000, 10000) float32 array down its columns (32-column tiles, \
         look-back along the axis)",
        cumsum2d_axis0,
        PctOfCopy(80.0),
    ),
    w(
        "sort100M_f32",
        "ops::sort of 1e8 random float32 (onesweep radix sort, 4 passes)",
        sort100m,
        VsCupy(0.8, None),
    ),
    w(
        "argsort10M_f32",
        "ops::argsort (stable) of 1e7 random float32",
        argsort10m,
        VsCupy(1.0, None),
    ),
    // Issue 25: sorting of every key width, key-value and row sorts, unique, ScanKernel.
    w(
        "sort100M_u32",
        "ops::sort of 1e8 random uint32 (radix sort, 32-bit keys)",
        sort100m_u32,
        VsCupy(0.8, None),
    ),
    w(
        "sort100M_f64",
        "ops::sort of 1e8 random float64 (radix sort, 64-bit keys)",
        sort100m_f64,
        VsCupy(0.85, None),
    ),
    w(
        "sort100M_i64_below_1e4",
        "ops::sort of 1e8 random int64 in [0, 10^4) (NumPy's default integers; six of the eight \
         digit passes constant)",
        sort100m_i64_small,
        VsCupy(0.6, None),
    ),
    w(
        "argsort100M_f32",
        "ops::argsort (stable) of 1e8 random float32 (key-value radix sort)",
        argsort100m,
        VsCupy(0.85, None),
    ),
    w(
        "sort_rows_10000x10000_f32",
        "ops::sort of each row of a (10000, 10000) random float32 array (axis -1; PyTorch's \
         torch.sort is the twin to beat: --vs-torch)",
        sort_rows10k,
        VsCupy(1.0, None),
    ),
    w(
        "sort_rows_1Mx32_f32",
        "ops::sort of each row of a (1000000, 32) random float32 array (many short rows: the \
         shared-memory row sort; PyTorch twin: --vs-torch)",
        sort_rows1m_x32,
        VsCupy(1.0, None),
    ),
    w(
        "unique100M_i32_1M_distinct",
        "ops::unique of 1e8 random int32 in [0, 1e6) (a hash table of the distinct values, \
         then a sort of them; PyTorch twin: --vs-torch)",
        unique100m,
        All(&[VsCupy(1.0, None), VsTorch(1.0)]),
    ),
    w(
        "scan_kernel_running_max100M_f32",
        "ScanKernel running maximum (a > b ? a : b) of 1e8 float32: cumsum's engine with \
         another operator (CuPy has no scan kernel; its twin is cupy.maximum.accumulate)",
        scan_kernel_max100m,
        All(&[VsOurs(1.05, "cumsum100M_f32"), PctOfCopy(80.0)]),
    ),
    w(
        "sort_by_key100M_u32_u32",
        "ops::sort_by_key of 1e8 random uint32 keys carrying uint32 values (values ride in \
         the radix passes; CuPy: argsort, then both gathered)",
        sort_by_key100m,
        VsCupy(0.85, None),
    ),
    w(
        "median100M_f32",
        "ops::median of 1e8 random float32 (radix select of the middle pair)",
        median100m,
        VsCupy(0.5, None),
    ),
    w(
        "quantile_rows_10000x10000_f32",
        "ops::quantile of each row of a 10000 x 10000 float32 array, q = [0.1, 0.5, 0.9] \
         (segmented radix sort, then a gather of two neighbours per q)",
        quantile_rows10k,
        VsCupy(1.0, None),
    ),
    w(
        "compress100M_f32_half",
        "x.masked(&m).get() (x[m]), 1e8 float32, m = x > 0.5 given (half true)",
        compress100m,
        PctOfCopy(85.0),
    ),
    w(
        "nonzero100M_half",
        "ops::nonzero of a 1e8 bool mask, half true",
        nonzero100m,
        VsCupy(1.0, None),
    ),
    w(
        "concatenate2x100M_f32",
        "ops::concatenate of two 1e8 float32 arrays along axis 0",
        concatenate2x100m,
        PctOfCopy(90.0),
    ),
    w(
        "take10M_of_100M_f32",
        "ops::take of 1e7 random int64 indices from 1e8 float32 (bounds checked)",
        take10m,
        VsCupy(1.0, None),
    ),
    w(
        "fft16M_c64",
        "ops::fft::fft of 2^24 random complex64 (one cuFFT plan, cached)",
        fft16m,
        VsCupy(1.0, None),
    ),
    w(
        "rfft2_4Kx4K_f32",
        "ops::fft::rfft2 of a (4096, 4096) random float32 array (the tuned choice: cuFFT's 1-d R2C plan over the rows and cuprum's column pass, or one 2-d R2C plan)",
        rfft2_4k,
        VsCupy(1.0, None),
    ),
    w(
        "scatter_add10M_into_1M_f32",
        "ops::scatter_add of 1e7 float32 at random int64 indices into 1e6 (add.at)",
        scatter_add10m,
        VsCupy(1.0, None),
    ),
    w(
        "index2d_10M_of_10000x10000_f32",
        "a[rows, cols]: Array::index with two arrays of 1e7 random int64 indices into a 10000 x \
         10000 float32 array (folded into one position, then a gather)",
        index2d10m,
        VsCupy(1.0, None),
    ),
    w(
        "index1d_10M_of_100M_f32",
        "a[idx]: Array::index with one array of 1e7 random int64 indices into 1e8 float32 (the \
         indices read as they are, no fold pass)",
        index1d10m,
        VsCupy(1.0, None),
    ),
    w(
        "index_put_rows_1000_of_100000x1000_f32",
        "a[rows] = v: Array::index_put of 1000 random rows (int64) of a 100000 x 1000 float32 \
         array from a (1000, 1000) float32 array",
        index_put_rows,
        VsCupy(1.0, None),
    ),
    w(
        "maximum_at10M_into_1M_f32",
        "maximum.at: ops::at (AtOp::Maximum) of 1e7 float32 at random int64 indices into 1e6 \
         (a compare-and-swap loop per value)",
        maximum_at10m,
        VsCupy(1.0, None),
    ),
    // Searches and counts: a binary search per value, shared-memory bins, compaction.
    w(
        "searchsorted10M_in_100M_f32",
        "ops::searchsorted of 1e7 random float32 in 1e8 sorted float32 (side left; the values \
         sorted with their positions, searched, put back)",
        searchsorted10m,
        VsCupy(0.8, None),
    ),
    w(
        "isin100M_i32_in_1000",
        "ops::isin of 1e8 int32 in [0, 2000) against 1000 random int32 (a hash table of the set in shared memory)",
        isin100m,
        PctOfCopy(70.0),
    ),
    w(
        "bincount100M_i32",
        "ops::bincount of 1e8 int32 in [0, 1000) (a max pass, shared-memory bins)",
        bincount100m,
        PctOfCopy(80.0),
    ),
    w(
        "histogram100M_f32_1000bins",
        "ops::histogram of 1e8 random float32, 1000 equal bins over the data's range",
        histogram100m,
        PctOfCopy(75.0),
    ),
    w(
        "argwhere100M_half_2d",
        "ops::argwhere of a (10000, 10000) bool mask, half true (int64 (N, 2))",
        argwhere100m,
        VsCupy(1.0, None),
    ),
    // Shape routines: differences, rearranging, matrices (shape_workloads.rs).
    w(
        "diff100M_f32",
        "ops::diff of 1e8 float32 (a[1:] - a[:-1], output allocated)",
        diff100m,
        All(&[PctOfCopy(85.0), VsCupy(1.0, None)]),
    ),
    w(
        "flip100M_f32_copy",
        "ops::flip (a view) of 1e8 float32, copied (a reversed read)",
        flip100m_copy,
        All(&[PctOfCopy(85.0), VsCupy(1.0, None)]),
    ),
    w(
        "roll100M_f32",
        "ops::roll of 1e8 float32 by 12345 (flattened)",
        roll100m,
        All(&[PctOfCopy(90.0), VsCupy(1.0, None)]),
    ),
    w(
        "repeat10M_f32_x4",
        "ops::repeat of 1e7 float32, each 4 times (flattened)",
        repeat10m_x4,
        All(&[PctOfCopy(85.0), VsCupy(1.0, None)]),
    ),
    w(
        "tile10M_f32_3x3",
        "ops::tile of a 1000 x 10000 float32 matrix 3 x 3 times",
        tile10m_3x3,
        All(&[PctOfCopy(85.0), VsCupy(1.0, None)]),
    ),
    w(
        "tril_10000x10000_f32",
        "ops::tril of a 10000 x 10000 float32 matrix (output allocated)",
        tril10000,
        All(&[PctOfCopy(85.0), VsCupy(1.0, None)]),
    ),
    w(
        "trace10000x10000_f32",
        "ops::trace of a 10000 x 10000 float32 matrix (a strided diagonal view summed)",
        trace10000,
        VsCupy(1.0, None),
    ),
    w(
        "outer10000_f32",
        "ops::outer of two 1e4 float32 vectors (1e8 products written)",
        outer10000,
        All(&[PctOfCopy(80.0), VsCupy(1.0, None)]),
    ),
    w(
        "prime1M_masked",
        "seed 003's Option 1 line for line (boolean masks, in-place updates through them: \
         examples/masked/prime_factor_sum.rs), n = 1e6",
        prime1m_masked,
        VsCupy(0.5, None),
    ),
    w(
        "mask_inplace_add100M_f32",
        "x.masked(&m).add(1) (x[m] += 1), 1e8 float32, m = x > 0.5 given (half true)",
        mask_inplace_add100m,
        PctOfCopy(70.0),
    ),
    w(
        "where100M_f32",
        "ops::where_(&m, &x, &y), 1e8 float32, m = x > 0.5 given, output allocated",
        where100m,
        PctOfCopy(90.0),
    ),
    w(
        super::multi_gpu::ALLREDUCE,
        "NCCL all-reduce (sum, in place) of 2^28 float32 on every GPU; GB/s is the bus \
         bandwidth, algbw × 2(n−1)/n (n/a with one GPU)",
        super::multi_gpu::allreduce_1gib,
        Info("bus bandwidth, reported"),
    ),
    w(
        super::multi_gpu::ALLGATHER,
        "NCCL all-gather into 2^28 float32 on every GPU (each sends 1/n); GB/s is the bus \
         bandwidth, algbw × (n−1)/n (n/a with one GPU)",
        super::multi_gpu::allgather_1gib,
        Info("bus bandwidth, reported"),
    ),
    w(
        super::multi_gpu::REDUCE_SCATTER,
        "NCCL reduce-scatter (sum) of 2^28 float32 on every GPU (each receives 1/n); GB/s is \
         the bus bandwidth, algbw × (n−1)/n (n/a with one GPU)",
        super::multi_gpu::reduce_scatter_1gib,
        Info("bus bandwidth, reported"),
    ),
    w(
        super::multi_gpu::BROADCAST,
        "NCCL broadcast of 2^28 float32 from GPU 0 to every GPU; GB/s is the bus bandwidth \
         (= algbw) (n/a with one GPU)",
        super::multi_gpu::broadcast_1gib,
        Info("bus bandwidth, reported"),
    ),
    w(
        super::multi_gpu::MSE_MULTI,
        "data-parallel MSE of 4e8 float64 pairs: one ReductionKernel per GPU on its shard, \
         NCCL all-reduce of the partial results; timed on 1..N GPUs (n/a with one GPU)",
        super::multi_gpu::mse_multi_gpu,
        Scaling(90.0),
    ),
    w(
        "floor_divide100M_i64",
        "ops::floor_divide(&a, 7) (a // 7), a = arange(1e8) int64, output allocated",
        floor_divide100m,
        PctOfCopy(90.0),
    ),
    // The host device (issue 17): kernels on the CPU beside plain Rust doing the same work.
    host(
        "host_ew_add10M_f32",
        "host device: seed custom_add ElementwiseKernel z = x + y * 2, 1e7 float32, output \
         given; twin: the same loop split over every core (std::thread::scope)",
        host_cases::ew_add10m,
        VsTwin(50.0),
    ),
    host(
        "host_prime1M_raw",
        "host device: seed 003's prime-factor-sum RawKernel, n = 1e6, 256 threads a block; \
         twin: the same trial division through rayon",
        host_cases::prime1m,
        VsTwin(50.0),
    ),
    host(
        "host_compile_cold_elementwise",
        "host device: first call of a new generated ElementwiseKernel (g++ at the default -O \
         level, precompiled shim warm)",
        host_cases::compile_cold,
        HostMs(1000.0),
    ),
    host(
        "host_compile_disk_hit",
        "host device: first call of a fresh ElementwiseKernel in a fresh process, its module \
         in the disk cache (read, checksum, dlopen, launch)",
        host_cases::disk_hit,
        HostMs(1.0),
    ),
];

/// The workload named `name`.
pub fn find(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.name == name)
}

/// Every workload and its target as the Markdown table of docs/perf-targets.md.
pub fn targets_markdown() -> String {
    let mut s = String::from(
        "# Performance targets\n\n\
         The workloads of `cuprum bench` and their targets, as `cuprum bench --list` prints \
         them\n(the one source is `crates/cuprum-cli/src/bench/workloads.rs`; a test checks \
         that this\nfile matches it). Bandwidth targets are a % of the device-to-device copy \
         bandwidth measured\nin the same run; host targets add to the launch floor measured \
         in the same run.\n\n\
         | bench name | what | cuprum target |\n|---|---|---|\n",
    );
    for w in WORKLOADS {
        let target = match w.imp {
            Impl::Run(_) => w.target.to_string(),
            Impl::Missing(why) => format!("{}; {why}", w.target),
        };
        s.push_str(&format!("| `{}` | {} | {target} |\n", w.name, w.what));
    }
    s.truncate(s.trim_end().len());
    s
}

/// Bytes the copy moves: 2^28 float32 read and written.
pub const COPY_BYTES: u64 = 2 * 4 * (1 << 28);

fn copy_1gib(o: &BenchmarkOptions) -> R<Timed> {
    let n = 1usize << 28;
    let src = Array::ones(&[n], DType::F32)?;
    let dst = Array::empty(&[n], DType::F32)?;
    let r = benchmark("copy_1GiB_f32", || dst.assign(&src), o)?;
    Ok((r, COPY_BYTES))
}

fn launch_floor(o: &BenchmarkOptions) -> R<Timed> {
    Ok((cuprum::profiler::launch_floor(o)?, 0))
}

fn alloc_empty(o: &BenchmarkOptions) -> R<Timed> {
    let r = benchmark(
        "alloc_empty_1M_f32",
        || Array::empty(&[1_000_000], DType::F32).map(drop),
        o,
    )?;
    Ok((r, 0))
}

fn dlpack_roundtrip(o: &BenchmarkOptions) -> R<Timed> {
    use cuprum::dlpack::{DlpackTensor, ExportOptions};
    let a = Array::zeros(&[4], DType::F32)?;
    let opts = ExportOptions::default();
    let r = benchmark(
        "dlpack_roundtrip_host_us",
        || {
            let p = a.to_dlpack(&opts)?.into_raw_versioned()?;
            // SAFETY: `p` came from `into_raw_versioned` just now and is consumed once.
            let t = unsafe { DlpackTensor::from_raw_versioned(p) }?;
            Array::from_dlpack(t).map(drop)
        },
        o,
    )?;
    Ok((r, 0))
}

fn dlpack_import_foreign(o: &BenchmarkOptions) -> R<Timed> {
    use cuprum::dlpack::{DlpackTensor, ExportOptions};
    let a = Array::zeros(&[4], DType::F32)?;
    let r = benchmark(
        "dlpack_import_foreign_host_us",
        || {
            // A legacy tensor wrapped in a versioned one: not cuprum's own export, so the
            // import takes the foreign path (what a PyTorch or CuPy tensor takes).
            let p = a.to_dlpack(&ExportOptions::default())?.into_raw_legacy()?;
            // SAFETY: `p` came from `into_raw_legacy` just now and is consumed once.
            let legacy = unsafe { DlpackTensor::from_raw_legacy(p) }?;
            let p = legacy.into_raw_versioned()?;
            // SAFETY: as above.
            let t = unsafe { DlpackTensor::from_raw_versioned(p) }?;
            Array::from_dlpack(t).map(drop)
        },
        o,
    )?;
    Ok((r, 0))
}

fn raw_add(o: &BenchmarkOptions, name: &str, n: usize) -> R<Timed> {
    let k = RawKernel::new(ADD_SRC, "vector_add");
    let a = cuprum::random::random(&[n], DType::F32)?;
    let b = cuprum::random::random(&[n], DType::F32)?;
    let c = Array::empty(&[n], DType::F32)?;
    let blocks = (n as u32).div_ceil(256);
    let r = benchmark(name, || k.launch(blocks, 256, (&a, &b, &c, n as i32)), o)?;
    Ok((r, 12 * n as u64))
}

fn raw_add4(o: &BenchmarkOptions) -> R<Timed> {
    let (r, _) = raw_add(o, "raw_add4_overhead", 4)?;
    Ok((r, 0))
}

fn raw_add100m(o: &BenchmarkOptions) -> R<Timed> {
    raw_add(o, "raw_add100M_f32", 100_000_000)
}

fn prime1m_raw(o: &BenchmarkOptions) -> R<Timed> {
    let k = RawKernel::new(PRIME_SRC, "primeFactorizationSum");
    let n = 1_000_000usize;
    let a = Array::empty(&[n - 1], DType::I64)?;
    let blocks = ((n - 1) as u32).div_ceil(256);
    let r = benchmark(
        "prime1M_raw",
        || k.launch(blocks, 256, (&a, (n - 1) as i32)),
        o,
    )?;
    Ok((r, 0))
}

fn matmul_naive(o: &BenchmarkOptions) -> R<Timed> {
    let k = RawKernel::new(MATMUL_SRC, "matrix_multiply");
    let (m, n, kk) = (1024usize, 1024usize, 512usize);
    let a = cuprum::random::random(&[m, kk], DType::F32)?;
    let b = cuprum::random::random(&[kk, n], DType::F32)?;
    let c = Array::zeros(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    let r = benchmark(
        "matmul_naive_1024x1024x512",
        || k.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, kk as i32)),
        o,
    )?;
    Ok((r, 0))
}

fn smem_reduce(o: &BenchmarkOptions) -> R<Timed> {
    let k = RawKernel::new(SMEM_SRC, "optimized_reduction");
    let n = 1_000_000usize;
    let data = cuprum::random::random(&[n], DType::F32)?;
    let grid = (n as u32).div_ceil(256);
    let out = Array::zeros(&[grid as usize], DType::F32)?;
    let r = benchmark(
        "smem_reduce1M_raw",
        || {
            k.configure(grid, 256)
                .shared_mem(1024)
                .launch((&data, &out, n as i32))
        },
        o,
    )?;
    Ok((r, 4 * n as u64))
}

/// Inputs for the ElementwiseKernel and ReductionKernel workloads: uniform in [0.5, 1.5), so
/// never zero.
fn rand(shape: &[usize], dtype: DType) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.5, 1.5, shape, dtype)
}

/// Times `call`, after one call outside the timing (which compiles the specialisation).
fn warm_bench(
    o: &BenchmarkOptions,
    name: &str,
    mut call: impl FnMut() -> cuprum::Result<()>,
) -> R<PerfCaseResult> {
    call()?;
    Ok(benchmark(name, call, o)?)
}

/// Arrays as the operands of a kernel call.
fn operands<'a>(args: &[&'a Array]) -> Vec<&'a dyn IntoOperand> {
    args.iter().map(|&a| a as &dyn IntoOperand).collect()
}

/// Times `k` on `args`: its inputs, then every output (written in place) or none (each
/// call allocates them).
fn ew_time(
    o: &BenchmarkOptions,
    name: &str,
    k: &ElementwiseKernel,
    args: &[&Array],
) -> R<PerfCaseResult> {
    let ops = operands(args);
    let ops = ops.as_slice();
    warm_bench(o, name, || {
        if k.nout() == 1 {
            k.call(ops).map(drop)
        } else {
            k.call_all(ops).map(drop)
        }
    })
}

/// The seed's `custom_add` (`z = x + y * 2`) on `n` float32, output given or allocated.
fn ew_add(o: &BenchmarkOptions, name: &str, n: usize, out: bool) -> R<PerfCaseResult> {
    let k = seeds::elementwise::custom_add_kernel()?;
    let (x, y) = (rand(&[n], DType::F32)?, rand(&[n], DType::F32)?);
    let z = Array::empty(&[n], DType::F32)?;
    let args: &[&Array] = if out { &[&x, &y, &z] } else { &[&x, &y] };
    ew_time(o, name, &k, args)
}

const EW_N: usize = 100_000_000;

fn ew_add100m(o: &BenchmarkOptions) -> R<Timed> {
    Ok((ew_add(o, "ew_add100M_f32", EW_N, false)?, 12 * EW_N as u64))
}

fn ew_add100m_out(o: &BenchmarkOptions) -> R<Timed> {
    Ok((
        ew_add(o, "ew_add100M_f32_out", EW_N, true)?,
        12 * EW_N as u64,
    ))
}

fn ew_add4_out(o: &BenchmarkOptions) -> R<Timed> {
    Ok((ew_add(o, "ew_add4_f32_out_overhead", 4, true)?, 0))
}

fn ew_add4_alloc(o: &BenchmarkOptions) -> R<Timed> {
    Ok((ew_add(o, "ew_add4_f32_alloc_overhead", 4, false)?, 0))
}

const SIDE: usize = 10_000;

/// The generic `T z = x + y` into a preallocated output of `x`'s shape (`y` broadcasts).
fn generic_add_into(o: &BenchmarkOptions, name: &str, x: &Array, y: &Array) -> R<PerfCaseResult> {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "generic_add")?;
    let z = Array::empty(x.shape(), x.dtype())?;
    ew_time(o, name, &k, &[x, y, &z])
}

fn ew_add_bcast(o: &BenchmarkOptions) -> R<Timed> {
    let m = rand(&[SIDE, SIDE], DType::F32)?;
    let v = rand(&[SIDE], DType::F32)?;
    let r = generic_add_into(o, "ew_add_bcast_10000x10000_f32", &m, &v)?;
    Ok((r, 2 * 4 * (SIDE * SIDE) as u64))
}

fn ew_add_transposed(o: &BenchmarkOptions) -> R<Timed> {
    let a = rand(&[SIDE, SIDE], DType::F32)?;
    let r = generic_add_into(o, "ew_add_transposed_10000x10000_f32", &a.t(), &a)?;
    Ok((r, 3 * 4 * (SIDE * SIDE) as u64))
}

const SMALL_N: usize = 10_000_000;

fn trig10m(o: &BenchmarkOptions) -> R<Timed> {
    let k = ElementwiseKernel::new(
        "T x",
        "T s, T c, T t",
        "s = sin(x); c = cos(x); t = tan(x)",
        "trig",
    )?;
    let x = rand(&[SMALL_N], DType::F32)?;
    let r = ew_time(o, "trig10M_multi_output", &k, &[&x])?;
    Ok((r, 4 * 4 * SMALL_N as u64))
}

fn abs2_10m(o: &BenchmarkOptions) -> R<Timed> {
    // The seed's input: randn + 1j * randn.
    let (re, im) = (
        cuprum::random::normal(0.0, 1.0, &[SMALL_N], DType::F64)?,
        cuprum::random::normal(0.0, 1.0, &[SMALL_N], DType::F64)?,
    );
    let z = seeds::elementwise::make_complex_kernel()?.call((&re, &im))?;
    drop((re, im));
    let k = seeds::elementwise::abs2_kernel()?;
    let r = ew_time(o, "abs2_10M_kernel", &k, &[&z])?;
    Ok((r, (16 + 8) * SMALL_N as u64))
}

fn prime1m_elementwise(o: &BenchmarkOptions) -> R<Timed> {
    let k = seeds::prime::elementwise_kernel()?;
    let a = Array::empty(&[seeds::prime::LEN], DType::I64)?;
    Ok((ew_time(o, "prime1M_elementwise", &k, &[&a])?, 0))
}

/// Times the reduction `k` of `args` over `axis` (every axis when `None`); each call
/// allocates its output.
fn red_time(
    o: &BenchmarkOptions,
    name: &str,
    k: &ReductionKernel,
    axis: Option<isize>,
    args: &[&Array],
) -> R<PerfCaseResult> {
    let ops = operands(args);
    let ops = ops.as_slice();
    warm_bench(o, name, || {
        match axis {
            Some(a) => k.axis(a).call(ops),
            None => k.call(ops),
        }
        .map(drop)
    })
}

/// The seed's `mse_kernel` (`_in_ind.size()` is the number of reduced elements).
fn mse(o: &BenchmarkOptions, name: &str, n: usize) -> R<Timed> {
    let k = seeds::reduction::mse_kernel()?;
    let [x, y] = mse_inputs(n)?;
    Ok((red_time(o, name, &k, None, &[&x, &y])?, 2 * 8 * n as u64))
}

/// The two float64 inputs of the MSE workloads.
fn mse_inputs(n: usize) -> cuprum::Result<[Array; 2]> {
    Ok([rand(&[n], DType::F64)?, rand(&[n], DType::F64)?])
}

fn mse100m(o: &BenchmarkOptions) -> R<Timed> {
    mse(o, "mse100M_f64_ReductionKernel", EW_N)
}

/// The MSE with built-ins (a temporary per step), as `cp.mean((a - b) ** 2)`. Bytes: what
/// the three steps must move — the subtraction reads two inputs and writes a temporary,
/// the square reads and writes one, the mean reads one — six arrays of 8 × 1e8 bytes (so
/// the row's % of the copy is the three kernels' speed; CuPy runs the same three).
fn mse100m_mean(o: &BenchmarkOptions) -> R<Timed> {
    let [x, y] = mse_inputs(EW_N)?;
    let r = warm_bench(o, "mse100M_f64_cp_mean", || {
        ops::mean(&ops::power(&(&x - &y)?, 2i32)?).map(drop)
    })?;
    Ok((r, 6 * 8 * EW_N as u64))
}

fn mse10m(o: &BenchmarkOptions) -> R<Timed> {
    mse(o, "mse10M_f64_ReductionKernel", SMALL_N)
}

/// Sum of squares of float32 `shape` over `axis`; bytes: the input read once.
fn ssq(o: &BenchmarkOptions, name: &str, shape: &[usize], axis: Option<isize>) -> R<Timed> {
    let k = sum_of_squares()?;
    let x = rand(shape, DType::F32)?;
    let r = red_time(o, name, &k, axis, &[&x])?;
    Ok((r, 4 * shape.iter().product::<usize>() as u64))
}

fn ssq100m(o: &BenchmarkOptions) -> R<Timed> {
    ssq(o, "ssq100M_f32_ReductionKernel", &[EW_N], None)
}

fn ssq1m(o: &BenchmarkOptions) -> R<Timed> {
    ssq(o, "ssq1M_f32_ReductionKernel", &[1_000_000], None)
}

const SSQ_SIDE: usize = 8192;

fn ssq_axis1(o: &BenchmarkOptions) -> R<Timed> {
    ssq(o, "ssq_8192x8192_axis1", &[SSQ_SIDE, SSQ_SIDE], Some(1))
}

fn ssq_axis0(o: &BenchmarkOptions) -> R<Timed> {
    ssq(o, "ssq_8192x8192_axis0", &[SSQ_SIDE, SSQ_SIDE], Some(0))
}

fn ssq4(o: &BenchmarkOptions) -> R<Timed> {
    let (r, _) = ssq(o, "ssq4_ReductionKernel_overhead", &[4], None)?;
    Ok((r, 0))
}

// ---------------------------------------------------------------- array routines

/// Uniform float32 in [0, 1) (the masks take half of it).
fn unit(n: usize) -> cuprum::Result<Array> {
    cuprum::random::random(&[n], DType::F32)
}

/// `n` random int64 indices in `[0, len)`.
fn random_indices(n: usize, len: usize) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.0, len as f64, &[n], DType::F64)?.astype(DType::I64)
}

fn cumsum100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[EW_N], DType::F32)?;
    let r = warm_bench(o, "cumsum100M_f32", || ops::cumsum(&x, None).map(drop))?;
    Ok((r, 8 * EW_N as u64))
}

fn cumsum100m_f64(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[EW_N], DType::F64)?;
    let r = warm_bench(o, "cumsum100M_f64", || ops::cumsum(&x, None).map(drop))?;
    Ok((r, 16 * EW_N as u64))
}

fn cumsum100m_i32(o: &BenchmarkOptions) -> R<Timed> {
    let x = random_i32(EW_N, 1000)?;
    let r = warm_bench(o, "cumsum100M_i32", || ops::cumsum(&x, None).map(drop))?;
    Ok((r, 12 * EW_N as u64))
}

/// `cumsum` of a (10000, 10000) float32 array over `axis`.
fn cumsum2d(o: &BenchmarkOptions, name: &str, axis: isize) -> R<Timed> {
    let x = rand(&[10_000, 10_000], DType::F32)?;
    let r = warm_bench(o, name, || ops::cumsum(&x, Some(axis)).map(drop))?;
    Ok((r, 8 * 100_000_000))
}

fn cumsum2d_axis1(o: &BenchmarkOptions) -> R<Timed> {
    cumsum2d(o, "cumsum_10Kx10K_f32_axis1", 1)
}

fn cumsum2d_f64_axis1(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::random(&[10_000, 10_000], DType::F64)?;
    let r = warm_bench(o, "cumsum_10Kx10K_f64_axis1", || {
        ops::cumsum(&x, Some(1)).map(drop)
    })?;
    Ok((r, 16 * 100_000_000))
}

fn cumsum2d_axis0(o: &BenchmarkOptions) -> R<Timed> {
    cumsum2d(o, "cumsum_10Kx10K_f32_axis0", 0)
}

fn sort100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let r = warm_bench(o, "sort100M_f32", || ops::sort(&x, None).map(drop))?;
    Ok((r, 0))
}

fn argsort10m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(SMALL_N)?;
    let r = warm_bench(o, "argsort10M_f32", || ops::argsort(&x, None).map(drop))?;
    Ok((r, 0))
}

fn sort_by_key100m(o: &BenchmarkOptions) -> R<Timed> {
    let k = cuprum::random::randint(0, u32::MAX as i64, &[EW_N], DType::U32)?;
    let v = cuprum::random::randint(0, u32::MAX as i64, &[EW_N], DType::U32)?;
    let r = warm_bench(o, "sort_by_key100M_u32_u32", || {
        ops::sort_by_key(&k, &v).map(drop)
    })?;
    Ok((r, 0))
}

fn sort100m_u32(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::randint(0, 1i64 << 32, &[EW_N], DType::U32)?;
    let r = warm_bench(o, "sort100M_u32", || ops::sort(&x, None).map(drop))?;
    Ok((r, 0))
}

fn sort100m_i64_small(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::randint(0, 10_000, &[EW_N], DType::I64)?;
    let r = warm_bench(o, "sort100M_i64_below_1e4", || {
        ops::sort(&x, None).map(drop)
    })?;
    Ok((r, 0))
}

fn sort100m_f64(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::random(&[EW_N], DType::F64)?;
    let r = warm_bench(o, "sort100M_f64", || ops::sort(&x, None).map(drop))?;
    Ok((r, 0))
}

fn argsort100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let r = warm_bench(o, "argsort100M_f32", || ops::argsort(&x, None).map(drop))?;
    Ok((r, 0))
}

/// `sort` along the last axis of a random float32 array of `shape`.
fn sort_rows(o: &BenchmarkOptions, name: &str, shape: &[usize]) -> R<Timed> {
    let x = cuprum::random::random(shape, DType::F32)?;
    let r = warm_bench(o, name, || ops::sort(&x, Some(-1)).map(drop))?;
    Ok((r, 0))
}

fn sort_rows10k(o: &BenchmarkOptions) -> R<Timed> {
    sort_rows(o, "sort_rows_10000x10000_f32", &[10_000, 10_000])
}

fn sort_rows1m_x32(o: &BenchmarkOptions) -> R<Timed> {
    sort_rows(o, "sort_rows_1Mx32_f32", &[1_000_000, 32])
}

fn unique100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::randint(0, 1_000_000, &[EW_N], DType::I32)?;
    let r = warm_bench(o, "unique100M_i32_1M_distinct", || {
        ops::unique(&x).map(drop)
    })?;
    Ok((r, 0))
}

fn scan_kernel_max100m(o: &BenchmarkOptions) -> R<Timed> {
    let k = ScanKernel::new(
        "T x",
        "T y",
        "x",
        "a > b ? a : b",
        "-CUDART_INF_F",
        "running_max",
    )?;
    let x = rand(&[EW_N], DType::F32)?;
    let r = warm_bench(o, "scan_kernel_running_max100M_f32", || {
        k.call((&x,)).map(drop)
    })?;
    // the input read once, the output written once (as cumsum100M_f32)
    Ok((r, 8 * EW_N as u64))
}

fn median100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let r = warm_bench(o, "median100M_f32", || {
        ops::median(&x, None, ops::Keepdims::No).map(drop)
    })?;
    // the input read once (the select reads it twice: ops/select.rs)
    Ok((r, 4 * EW_N as u64))
}

/// Rows and columns of the `quantile_rows_*` workload.
const QUANTILE_SIDE: usize = 10_000;

fn quantile_rows10k(o: &BenchmarkOptions) -> R<Timed> {
    let x = cuprum::random::random(&[QUANTILE_SIDE, QUANTILE_SIDE], DType::F32)?;
    let q = [0.1, 0.5, 0.9];
    let r = warm_bench(o, "quantile_rows_10000x10000_f32", || {
        ops::quantile(&x, &q, Some(1), ops::Keepdims::No).map(drop)
    })?;
    Ok((r, 4 * (QUANTILE_SIDE * QUANTILE_SIDE) as u64))
}

fn compress100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let m = ops::greater(&x, 0.5f32)?;
    let r = warm_bench(o, "compress100M_f32_half", || x.masked(&m).get().map(drop))?;
    // x and the mask read once, half of x written
    Ok((r, (4 + 1 + 2) * EW_N as u64))
}

fn nonzero100m(o: &BenchmarkOptions) -> R<Timed> {
    let m = ops::greater(&unit(EW_N)?, 0.5f32)?;
    let r = warm_bench(o, "nonzero100M_half", || ops::nonzero(&m).map(drop))?;
    Ok((r, 0))
}

fn concatenate2x100m(o: &BenchmarkOptions) -> R<Timed> {
    let (a, b) = (rand(&[EW_N], DType::F32)?, rand(&[EW_N], DType::F32)?);
    let r = warm_bench(o, "concatenate2x100M_f32", || {
        ops::concatenate(&[&a, &b], Some(0)).map(drop)
    })?;
    Ok((r, 16 * EW_N as u64))
}

fn take10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = rand(&[EW_N], DType::F32)?;
    let idx = random_indices(SMALL_N, EW_N)?;
    let r = warm_bench(o, "take10M_of_100M_f32", || {
        ops::take(&a, &idx, None).map(drop)
    })?;
    Ok((r, 0))
}

fn fft16m(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[1 << 24], DType::F32)?.astype(DType::C64)?;
    let r = warm_bench(o, "fft16M_c64", || {
        ops::fft::fft(&x, None, -1, ops::fft::Norm::Backward).map(drop)
    })?;
    Ok((r, 0))
}

fn rfft2_4k(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(&[4096, 4096], DType::F32)?;
    let r = warm_bench(o, "rfft2_4Kx4K_f32", || {
        ops::fft::rfft2(&x, None, &[-2, -1], ops::fft::Norm::Backward).map(drop)
    })?;
    Ok((r, 0))
}

fn scatter_add10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::zeros(&[1_000_000], DType::F32)?;
    let idx = random_indices(SMALL_N, 1_000_000)?;
    let v = rand(&[SMALL_N], DType::F32)?;
    let r = warm_bench(o, "scatter_add10M_into_1M_f32", || {
        ops::scatter_add(&a, &idx, &v)
    })?;
    Ok((r, 0))
}

fn index2d10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = rand(&[10_000, 10_000], DType::F32)?;
    let rows = ops::Index::Array(random_indices(SMALL_N, 10_000)?);
    let cols = ops::Index::Array(random_indices(SMALL_N, 10_000)?);
    let key = [rows, cols];
    let r = warm_bench(o, "index2d_10M_of_10000x10000_f32", || {
        a.index(&key).map(drop)
    })?;
    Ok((r, 0))
}

fn index1d10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = rand(&[EW_N], DType::F32)?;
    let key = [ops::Index::Array(random_indices(SMALL_N, EW_N)?)];
    let r = warm_bench(o, "index1d_10M_of_100M_f32", || a.index(&key).map(drop))?;
    Ok((r, 0))
}

fn index_put_rows(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::zeros(&[100_000, 1000], DType::F32)?;
    let key = [ops::Index::Array(random_indices(1000, 100_000)?)];
    let v = rand(&[1000, 1000], DType::F32)?;
    let r = warm_bench(o, "index_put_rows_1000_of_100000x1000_f32", || {
        a.index_put(&key, &v)
    })?;
    // the values read, the rows written
    Ok((r, 8 * 1000 * 1000))
}

fn maximum_at10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::zeros(&[1_000_000], DType::F32)?;
    let key = [ops::Index::Array(random_indices(SMALL_N, 1_000_000)?)];
    let v = rand(&[SMALL_N], DType::F32)?;
    let r = warm_bench(o, "maximum_at10M_into_1M_f32", || {
        ops::at(&a, &key, ops::AtOp::Maximum, &v)
    })?;
    Ok((r, 0))
}

/// `n` random int32 in `[0, hi)`.
fn random_i32(n: usize, hi: usize) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.0, hi as f64, &[n], DType::F64)?.astype(DType::I32)
}

fn searchsorted10m(o: &BenchmarkOptions) -> R<Timed> {
    let a = ops::sort(&unit(EW_N)?, None)?;
    let v = unit(SMALL_N)?;
    let r = warm_bench(o, "searchsorted10M_in_100M_f32", || {
        ops::searchsorted(&a, &v, ops::Side::Left).map(drop)
    })?;
    // the values read, the int64 indices written (the searches' loads are latency)
    Ok((r, 12 * SMALL_N as u64))
}

fn isin100m(o: &BenchmarkOptions) -> R<Timed> {
    let e = random_i32(EW_N, 2000)?;
    let t = random_i32(1000, 2000)?;
    let r = warm_bench(o, "isin100M_i32_in_1000", || ops::isin(&e, &t).map(drop))?;
    // the elements read once, the bool result written once
    Ok((r, 5 * EW_N as u64))
}

fn bincount100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = random_i32(EW_N, 1000)?;
    let r = warm_bench(o, "bincount100M_i32", || {
        ops::bincount(&x, None, 0).map(drop)
    })?;
    // x read twice: the largest value (the result's length), then the counts
    Ok((r, 8 * EW_N as u64))
}

fn histogram100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let r = warm_bench(o, "histogram100M_f32_1000bins", || {
        ops::histogram(&x, ops::Bins::Count(1000), None, false).map(drop)
    })?;
    // x read twice: the range (minimum and maximum), then the counts
    Ok((r, 8 * EW_N as u64))
}

fn argwhere100m(o: &BenchmarkOptions) -> R<Timed> {
    let m = ops::greater(&unit(EW_N)?, 0.5f32)?.reshape(&[10_000, 10_000])?;
    let r = warm_bench(o, "argwhere100M_half_2d", || ops::argwhere(&m).map(drop))?;
    // the mask read twice (count, compaction), two int64 coordinates per true element
    Ok((r, (2 + 8) * EW_N as u64))
}

// ------------------------------------------------ masks, in-place updates, ufuncs

use crate::masked_seed as seed_masked;

fn prime1m_masked(o: &BenchmarkOptions) -> R<Timed> {
    let r = warm_bench(o, "prime1M_masked", || {
        seed_masked::prime_factorization_sum(1_000_000).map(drop)
    })?;
    Ok((r, 0))
}

fn mask_inplace_add100m(o: &BenchmarkOptions) -> R<Timed> {
    let x = unit(EW_N)?;
    let m = ops::greater(&x, 0.5f32)?;
    let r = warm_bench(o, "mask_inplace_add100M_f32", || x.masked(&m).add(1i32))?;
    // x and the mask read once, x written (every element: the store is unconditional)
    Ok((r, (4 + 1 + 4) * EW_N as u64))
}

fn where100m(o: &BenchmarkOptions) -> R<Timed> {
    let (x, y) = (unit(EW_N)?, rand(&[EW_N], DType::F32)?);
    let m = ops::greater(&x, 0.5f32)?;
    let r = warm_bench(o, "where100M_f32", || ops::where_(&m, &x, &y).map(drop))?;
    Ok((r, (1 + 4 + 4 + 4) * EW_N as u64))
}

fn floor_divide100m(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::arange(0.0, EW_N as f64, 1.0, DType::I64)?;
    let r = warm_bench(o, "floor_divide100M_i64", || {
        ops::floor_divide(&a, 7i64).map(drop)
    })?;
    Ok((r, 16 * EW_N as u64))
}
