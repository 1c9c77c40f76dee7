//! The column pass of a two-axis single-precision transform: cuprum's own kernel for the
//! complex transform over the leading axis of C-ordered complex64 matrices, in place, used
//! where the tuned choice ([`FFT_COLUMNS`]) prefers it to cuFFT's two-axis plan.
//!
//! A two-axis transform (`fft2`, `rfft2`, `irfft2`, the last two axes of `fftn` / `rfftn`)
//! of a C-ordered `(rows, cols)` matrix is separable: a batched 1-d cuFFT plan over the
//! rows (contiguous), and the columns. cuFFT's two-axis plan transforms the columns in
//! place in the C-ordered result with reads of 8 bytes a row; PyTorch's column pass writes
//! a column-major result instead (see `fft.rs`). This kernel keeps the C order and still
//! reads and writes whole 128-byte row segments: a *thread-block cluster* (Hopper's, up to
//! 8 blocks sharing their shared memory) takes 16 adjacent columns, and its `P` blocks
//! split the rows. For columns of `N = P·L` values, block `b` of the cluster loads the rows
//! `b + P·m` (`m < L`) of its 16 columns, transforms these `L` values of each column in its
//! shared memory (decimation in time: the sub-sequence of every `P`-th value), and then
//! the cluster combines the `P` partial transforms with one radix-`P` step: block `b`
//! computes the outputs `k' + L·k2` for its `L / P` values of `k'`, reading the partial
//! transforms' values at `k'` from every block's shared memory (`ld.shared::cluster`)
//! after a cluster barrier, and writes them back in place (every load of the cluster is
//! done by then; other clusters own other columns).
//!
//! Inside a block: `L` threads, 16 a row of 16 columns (a half-warp reads one 128-byte row
//! segment, and every shared-memory access of a half-warp touches 16 consecutive
//! `float2`, all 32 banks once), each holding 16 values. The `L`-point transform is a
//! Stockham FFT of radix 16 and one last radix of 2, 4 or 8 for the remaining bits: a pass
//! of radix `r` does `16 / r` butterflies a thread, the twiddles `exp(∓2πi·j/N)` from a
//! constant table of the program (`N` values computed in double precision on the host and
//! rounded once; read through the read-only cache, so no block spends its start building
//! one and a CUDA graph captures nothing that could be freed), and writes its outputs in
//! the Stockham order, so that the last pass leaves the natural order. Shared memory: the
//! block's values (`128·L` bytes).
//!
//! Where it is used: complex64 columns of a power-of-two length `N` from 512 to 8192 that
//! split into `P = N / L` of 2 to 8 blocks (`L` from 256 to 1024 threads; [`FFT_COLUMNS`]
//! chooses `P`, moved into these bounds for each `N`; 0 keeps cuFFT's plan), on a GPU with
//! thread-block clusters (compute capability 9.0 or later); everything else, and the host
//! device, run the plan. This file also holds [`plan_into`], the one place a backend plan
//! runs over arrays (for `fft.rs`'s groups and for this family's problem, which times the
//! rows' plan with the pass against the two-axis plan without going through `fft.rs`).
//!
//! Measured (H100, 2026-12-06, one run; the generated kernels through CuPy beside cuFFT in
//! the same process, then the library): the pass alone over the columns of 4096 × 2049
//! complex64 took 101.9 µs with `L` = 512 (clusters of 8, two blocks per SM, 64
//! registers) and 114.1 with `L` = 1024 (clusters of 4, one block per SM); over 2048 ×
//! 1025 28.2 (`L` = 1024), 31.2 (256) and 36.5 (512), where CuPy's two-axis plan spends
//! about 35 on its columns; over 8192 × 4097 413.7 (`L` = 1024), about what cuFFT's plan
//! spends. `cuprum tune` of the family (`rfft2` of 4096² float32): cuFFT's two-axis plan
//! 154.5 µs, 8 blocks 137.4 (chosen, built in for the H100); the whole bench's
//! `rfft2_4Kx4K_f32` 137.2–139.9 µs against CuPy's 170.4–205.7 and PyTorch's 133.1–134.8
//! (whose column-major result saves it about 25 µs: `fft.rs`). With the twiddles in the
//! program's constant table (H100, 2026-12-07, one run): `cuprum tune` 132.5 µs for 8
//! blocks against the two-axis plan's 155.1 (margin 7.0 %); the bench's `rfft2_4Kx4K_f32`
//! 130.8 µs, CuPy 168.6, PyTorch 133.9. The largest error against a
//! float64 transform of random normal values, over every generated length and share and
//! both directions, was 1.8e-7 of the largest magnitude (cuFFT's own 2.1–2.7e-7 on the
//! same inputs).
//!
//! Why the pass is not at the copy's speed (it moves 134 MB: 45 µs at the copy's rate):
//! `ncu` of it on an H100 (2026-12-06, `L` = 512, 4096 × 2049) — 94.5 µs, DRAM 36 % busy
//! (1.21 TB/s), issue slots 38 % busy, 45.7 % of the SM's warps resident (two blocks:
//! registers and shared memory allow no more), 1.5 warps eligible a scheduler and an
//! instruction every 16.9 cycles a warp, L2 hit rate 65 % (neighbouring clusters share the
//! sectors of rows that are 8 bytes off them). Neither memory nor the SMs are busy: the
//! pass is latency-bound — a block loads, runs three shared-memory passes between
//! barriers, waits at two cluster barriers and reads the other blocks' values, and two
//! blocks an SM hide little of it. The first version built an `8·N`-byte twiddle table in
//! every block's shared memory; reading it from global memory instead measured 93.3 → 88.8
//! µs (`L` = 1024: 104.8 → 100.0) in the same run, hence the program's constant table.
//! Tried and not taken: three blocks an SM at `L` = 512 (40 registers, spilling) 139.4.

use super::programs::program;
use super::tune_inputs::keys;
use crate::array::{Array, DType};
use crate::error::{Result, bail, err};
use crate::runtime::Device;
use crate::runtime::{FftKind, FftPlan, Stream};
use crate::tune::{self, Family, Params, Runner};
use smallvec::SmallVec;
use std::fmt::Write;

/// Columns a cluster takes (16 complex64: one 128-byte segment of a row).
const COLUMNS: usize = 16;
/// Shortest and longest column the kernel transforms.
const MIN_LEN: usize = 512;
const MAX_LEN: usize = 8192;
/// The most blocks a cluster may have everywhere (larger ones are opt-in).
const MAX_CLUSTER: usize = 8;

/// The column pass's tuned choice: the blocks of a cluster (`P`; 0: cuFFT's two-axis plan
/// instead of this kernel).
pub(crate) static FFT_COLUMNS: Family = Family {
    name: "fft.columns",
    about: "the column pass of a two-axis complex64 FFT: blocks a cluster (0: cuFFT's plan)",
    params: ["blocks/cluster", "", ""],
    candidates: &[[0, 0, 0], [8, 0, 0], [4, 0, 0]],
    built_in: &[("H100", [8, 0, 0])],
    problem: columns_problem,
    programs: |p| {
        let Some(l) = local_len(p[0] as usize, PROBLEM_ROWS) else {
            return Vec::new();
        };
        [true, false]
            .iter()
            .map(|&fwd| {
                let key = key(PROBLEM_ROWS, l, fwd);
                (
                    source(PROBLEM_ROWS, l, fwd),
                    super::programs::program_options(&key),
                )
            })
            .collect()
    },
};

/// The family's problem: `rfft2` of a 4096 × 4096 float32 matrix (the rows' 1-d plan and
/// the column pass, or cuFFT's two-axis plan).
const PROBLEM_ROWS: usize = 4096;

fn columns_problem() -> Result<Runner> {
    let rows = PROBLEM_ROWS;
    let cols = rows / 2 + 1;
    let x = keys(rows * rows, DType::F32)?;
    let stream = Stream::for_device(x.device())?;
    let out = Array::empty_on(&[rows, cols], DType::C64, &stream)?;
    Ok(Box::new(move |p: Params| {
        let (kind, double) = (FftKind::R2C, false);
        match local_len(p[0] as usize, rows) {
            // cuFFT's two-axis plan.
            None => plan_into(
                &stream,
                kind,
                double,
                SmallVec::from_slice(&[rows, rows]),
                1,
                &x,
                &out,
                true,
            ),
            Some(l) => rows_then_columns(&stream, kind, [1, rows, rows], &x, &out, l, true),
        }
    }))
}

/// The block's share `L` of a column of `rows` values under the choice of `blocks` a
/// cluster (0: none): `rows / blocks`, moved within the 256 to 1024 threads a block has and
/// the 2 to 8 blocks a cluster may have (both hold for every length taken); `None` where
/// the kernel does not take the column.
fn local_len(blocks: usize, rows: usize) -> Option<usize> {
    if blocks == 0 || !rows.is_power_of_two() || !(MIN_LEN..=MAX_LEN).contains(&rows) {
        return None;
    }
    Some(
        (rows / blocks)
            .clamp(256, 1024)
            .clamp(rows / MAX_CLUSTER, rows / 2),
    )
}

/// The block's share of a column of `rows` values on `device` for this kernel, or `None`
/// where cuFFT's plan transforms the columns (the choice, the length, or a GPU without
/// thread-block clusters).
pub(crate) fn columns_per_block(device: Device, rows: usize) -> Result<Option<usize>> {
    if device.is_host() || device.compute_capability().0 < 9 {
        return Ok(None);
    }
    let chosen = tune::choose(device, &FFT_COLUMNS)?[0] as usize;
    Ok(local_len(chosen, rows))
}

/// Transforms, in place, the columns of each of `batch` C-ordered `(rows, cols)` complex64
/// matrices in `x` (contiguous, `batch * rows * cols` values) with blocks of `l` values a
/// column (from [`columns_per_block`]), forward (`exp(-2πi…)`) or not; unnormalised.
/// Queued on the current stream. Anything else (another dtype or layout, a size that is
/// not `batch * rows * cols`, a share the kernel does not take) is an `InvalidArgument`
/// error, so that the kernel only ever touches `x`'s own values.
pub(crate) fn transform_columns(
    x: &Array,
    batch: usize,
    rows: usize,
    cols: usize,
    l: usize,
    forward: bool,
) -> Result<()> {
    if x.dtype() != DType::C64
        || !x.is_c_contiguous()
        || x.size() != batch * rows * cols
        || local_len(rows / l, rows) != Some(l)
    {
        bail!(
            InvalidArgument,
            "the FFT column pass takes C-contiguous complex64 matrices of {rows} rows split \
             into 2 to 8 shares: got {} values of {} for {batch} x {rows} x {cols}, shares of {l}",
            x.size(),
            x.dtype()
        );
    }
    let groups = cols.div_ceil(COLUMNS);
    let clusters = batch * groups;
    if clusters == 0 {
        return Ok(());
    }
    let blocks = clusters * (rows / l);
    let k = key(rows, l, forward);
    let prog = program(&k, || source(rows, l, forward));
    let kernel = prog.kernel("cuprum_fft_columns")?;
    // A grid's x extent is at most 2^31 - 1 blocks.
    let grid = u32::try_from(blocks)
        .ok()
        .filter(|&g| g <= i32::MAX as u32)
        .ok_or_else(|| {
            err!(
                InvalidArgument,
                "an FFT over {batch} matrices of {cols} columns needs {blocks} blocks: at most {}",
                i32::MAX
            )
        })?;
    kernel
        .configure(grid, l as u32)
        .shared_mem(shared_bytes(l))
        .launch((x, cols as i64, (rows * cols) as i64, groups as i64))
}

/// A single-precision two-axis transform of `kind` over each of `batch` C-ordered
/// `(rows, n)` matrices (`n` the last axis' real-space length) as the backend's 1-d plan
/// over the rows and the column pass with shares of `l` (from [`columns_per_block`]), from
/// `y` into `out` on `stream`. Forward and C2C: the rows into `out`, then the columns in
/// place there (the C-ordered result); C2R: the columns in place in `y` (a copy of the
/// caller's, which a C2R plan overwrites anyway), then the rows into `out`. Arrays the
/// plan or the pass would not take are an `InvalidArgument` error from them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows_then_columns(
    stream: &Stream,
    kind: FftKind,
    [batch, rows, n]: [usize; 3],
    y: &Array,
    out: &Array,
    l: usize,
    forward: bool,
) -> Result<()> {
    // The complex matrices' width: the half spectrum's, or the whole row of a C2C one.
    let cols = match kind {
        FftKind::C2C => n,
        FftKind::R2C | FftKind::C2R => n / 2 + 1,
    };
    let by_rows = || {
        let dims = SmallVec::from_slice(&[n]);
        plan_into(stream, kind, false, dims, batch * rows, y, out, forward)
    };
    if kind == FftKind::C2R {
        stream.with(|| transform_columns(y, batch, rows, cols, l, false))?;
        by_rows()
    } else {
        by_rows()?;
        stream.with(|| transform_columns(out, batch, rows, cols, l, forward))
    }
}

/// Runs one backend plan of `kind` over `dims` (the trailing axes), `batch` times, from `y`
/// into `out` on `stream`. A C2R plan may overwrite `y`'s values: callers pass a copy of
/// their own. Arrays of another dtype, size or layout than the plan's, or of one buffer,
/// are an `InvalidArgument` error.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan_into(
    stream: &Stream,
    kind: FftKind,
    double: bool,
    dims: SmallVec<[usize; 3]>,
    batch: usize,
    y: &Array,
    out: &Array,
    forward: bool,
) -> Result<()> {
    let plan = FftPlan {
        kind,
        double,
        dims,
        batch,
    };
    let (ins, outs) = plan.elements();
    let (real, complex) = if double {
        (DType::F64, DType::C128)
    } else {
        (DType::F32, DType::C64)
    };
    let (in_dtype, out_dtype) = match kind {
        FftKind::C2C => (complex, complex),
        FftKind::R2C => (real, complex),
        FftKind::C2R => (complex, real),
    };
    // The plan reads and writes exactly these: anything else is refused here.
    if y.dtype() != in_dtype
        || out.dtype() != out_dtype
        || y.size() != batch * ins
        || out.size() != batch * outs
        || !y.is_c_contiguous()
        || !out.is_c_contiguous()
        || y.shares_memory(out)
    {
        bail!(
            InvalidArgument,
            "an FFT plan of {batch} x {ins} {in_dtype} -> {outs} {out_dtype} values takes two \
             C-contiguous arrays of their own buffers: got {} {} values (C-contiguous: {}) and \
             {} {} values (C-contiguous: {}), one buffer: {}",
            y.size(),
            y.dtype(),
            y.is_c_contiguous(),
            out.size(),
            out.dtype(),
            out.is_c_contiguous(),
            y.shares_memory(out)
        );
    }
    // SAFETY: `y` and `out` are C-contiguous arrays of distinct buffers, with exactly
    // `plan.batch * plan.elements().0` values of the input's type and
    // `plan.batch * plan.elements().1` of the output's (all checked above), so the plan
    // reads and writes only their own bytes (a C2R plan may overwrite `y`'s values, which
    // the doc above states). Both stay alive until this function returns and their frees
    // are ordered after the work on `stream`, the stream both were made or last used on.
    unsafe { crate::runtime::fft(stream, &plan, y.ptr_on(stream), out.ptr_on(stream), forward) }
}

/// Dynamic shared memory of a block: its values (16 columns of `l`, 8 bytes each).
fn shared_bytes(l: usize) -> usize {
    8 * l * COLUMNS
}

fn key(rows: usize, l: usize, forward: bool) -> String {
    format!(
        "fft_columns|{rows}|{l}|{}",
        if forward { "fwd" } else { "inv" }
    )
}

/// The radices of the passes over `l` values (a power of two from 256): 16s, then one
/// smaller radix for the remaining bits.
fn radices(l: usize) -> Vec<usize> {
    let bits = l.trailing_zeros() as usize;
    let mut r = vec![16; bits / 4];
    if !bits.is_multiple_of(4) {
        r.push(1 << (bits % 4));
    }
    r
}

/// The program's twiddle table: `exp(∓2πi·j/rows)` for `j < rows` (the forward sign
/// `-`), each computed in double precision and rounded once to float, as a constant array
/// of the program (read through the read-only cache: no block builds its own, and nothing
/// outlives the program, CUDA graph captures included).
fn twiddle_table(rows: usize, forward: bool) -> String {
    let sign = if forward { -1.0 } else { 1.0 };
    let mut s = format!("__device__ const float2 fft_tw[{rows}] = {{");
    for j in 0..rows {
        let turn = std::f64::consts::TAU * j as f64 / rows as f64;
        let (sn, cs) = turn.sin_cos();
        let _ = write!(s, "{{{:?}f,{:?}f}},", cs as f32, (sign * sn) as f32);
    }
    s.push_str("};");
    s
}

/// The kernel's CUDA C++ for columns of `rows` values, `l` of them a block.
pub(crate) fn source(rows: usize, l: usize, forward: bool) -> String {
    let p = rows / l;
    let sign = if forward { -1 } else { 1 };
    let mut s = String::new();
    let _ = write!(
        s,
        "#define FFT_P {p}\n#define FFT_L {l}\n#define FFT_N {rows}\n#define FFT_SIGN {sign}\n{HELPERS}\n{table}\n\
         extern \"C\" __global__ void __cluster_dims__(FFT_P, 1, 1) __launch_bounds__(FFT_L, {min_blocks})\n\
         cuprum_fft_columns(float2* x, long long width, long long mat, long long groups) {{\n\
         {PROLOGUE}",
        min_blocks = 1024 / l,
        table = twiddle_table(rows, forward),
    );
    let mut ns = 1;
    for (i, r) in radices(l).into_iter().enumerate() {
        let _ = writeln!(
            s,
            "  fft_pass<{r}, {ns}, {first}>(g, gstep, ok, S, tw, c, tl);",
            first = i == 0
        );
        ns *= r;
    }
    s.push_str(EPILOGUE);
    s
}

/// The kernel's start: the block's place.
const PROLOGUE: &str = r#"  extern __shared__ float2 fft_sm[];
  const float2* tw = fft_tw;
  float2* S = fft_sm;
  const int tid = threadIdx.x, c = tid & 15, tl = tid >> 4;
  const unsigned rank = fft_cluster_rank();
  const long long cluster = blockIdx.x / FFT_P;
  const long long m = cluster / groups;
  const long long col = (cluster % groups) * 16 + c;
  const bool ok = col < width;
  float2* base = x + m * mat + (ok ? col : 0);
  const float2* g = base + rank * width;
  const long long gstep = FFT_P * width;
"#;

/// The kernel's end: the cluster's radix-`P` step over the blocks' partial transforms.
const EPILOGUE: &str = r#"  fft_cluster_sync();
  constexpr int KP = FFT_L / FFT_P, TPC = FFT_L / 16;
#pragma unroll
  for (int r = 0; r < 16 / FFT_P; r++) {
    const int kp = rank * KP + tl + TPC * r;
    float2 v[FFT_P];
#pragma unroll
    for (int j = 0; j < FFT_P; j++) v[j] = fft_ld_rank(&S[kp * 16 + c], j);
#pragma unroll
    for (int j = 1; j < FFT_P; j++) v[j] = fft_mul(v[j], __ldg(&tw[(j * kp) & (FFT_N - 1)]));
    fft_dft<FFT_P>(v);
    if (ok) {
#pragma unroll
      for (int k2 = 0; k2 < FFT_P; k2++) base[(long long)(kp + FFT_L * k2) * width] = v[k2];
    }
  }
  // No block leaves while another may still read its shared memory.
  fft_cluster_sync();
}
"#;

/// The butterflies (natural-order DFTs of 2, 4, 8 and 16 values), the cluster's
/// primitives and one Stockham pass.
const HELPERS: &str = r#"
__device__ __forceinline__ float2 fft_add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 fft_sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 fft_mul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// FFT_SIGN * i * a
__device__ __forceinline__ float2 fft_rot(float2 a) { return make_float2(-FFT_SIGN * a.y, FFT_SIGN * a.x); }
// exp(FFT_SIGN * 2 pi i j / 16) for 0 <= j < 16.
__device__ __forceinline__ float2 fft_w16(int j) {
  const float c1 = 0.92387953251128674f, s1 = 0.38268343236508977f, h = 0.70710678118654752f;
  const float cs[16] = {1.f, c1, h, s1, 0.f, -s1, -h, -c1, -1.f, -c1, -h, -s1, 0.f, s1, h, c1};
  const float sn[16] = {0.f, s1, h, c1, 1.f, c1, h, s1, 0.f, -s1, -h, -c1, -1.f, -c1, -h, -s1};
  return make_float2(cs[j], FFT_SIGN * sn[j]);
}
__device__ __forceinline__ void fft_b4(float2& a0, float2& a1, float2& a2, float2& a3) {
  const float2 s02 = fft_add(a0, a2), d02 = fft_sub(a0, a2), s13 = fft_add(a1, a3), d13 = fft_sub(a1, a3);
  const float2 r = fft_rot(d13);
  a0 = fft_add(s02, s13);
  a2 = fft_sub(s02, s13);
  a1 = fft_add(d02, r);
  a3 = fft_sub(d02, r);
}
// 8 = 2 x 4: n = n1 + 2 n2, k = k2 + 4 k1.
__device__ __forceinline__ void fft_dft8(float2* a) {
#pragma unroll
  for (int n1 = 0; n1 < 2; n1++) fft_b4(a[n1], a[n1 + 2], a[n1 + 4], a[n1 + 6]);
#pragma unroll
  for (int k2 = 1; k2 < 4; k2++) a[1 + 2 * k2] = fft_mul(a[1 + 2 * k2], fft_w16(2 * k2));
  float2 b[8];
#pragma unroll
  for (int k2 = 0; k2 < 4; k2++) {
    b[k2] = fft_add(a[2 * k2], a[2 * k2 + 1]);
    b[k2 + 4] = fft_sub(a[2 * k2], a[2 * k2 + 1]);
  }
#pragma unroll
  for (int i = 0; i < 8; i++) a[i] = b[i];
}
// 16 = 4 x 4: n = n1 + 4 n2, k = k2 + 4 k1.
__device__ __forceinline__ void fft_dft16(float2* a) {
#pragma unroll
  for (int n1 = 0; n1 < 4; n1++) fft_b4(a[n1], a[n1 + 4], a[n1 + 8], a[n1 + 12]);
#pragma unroll
  for (int n1 = 1; n1 < 4; n1++)
#pragma unroll
    for (int k2 = 1; k2 < 4; k2++) a[n1 + 4 * k2] = fft_mul(a[n1 + 4 * k2], fft_w16(n1 * k2));
#pragma unroll
  for (int k2 = 0; k2 < 4; k2++) fft_b4(a[4 * k2], a[4 * k2 + 1], a[4 * k2 + 2], a[4 * k2 + 3]);
  float2 b[16];
#pragma unroll
  for (int i = 0; i < 16; i++) b[i] = a[i];
#pragma unroll
  for (int k2 = 0; k2 < 4; k2++)
#pragma unroll
    for (int k1 = 0; k1 < 4; k1++) a[k2 + 4 * k1] = b[4 * k2 + k1];
}
template <int R> __device__ __forceinline__ void fft_dft(float2* a) {
  if constexpr (R == 2) {
    const float2 a0 = a[0];
    a[0] = fft_add(a0, a[1]);
    a[1] = fft_sub(a0, a[1]);
  } else if constexpr (R == 4) {
    fft_b4(a[0], a[1], a[2], a[3]);
  } else if constexpr (R == 8) {
    fft_dft8(a);
  } else {
    fft_dft16(a);
  }
}
__device__ __forceinline__ unsigned fft_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Every block of the cluster arrives; shared-memory writes before it are seen after it.
__device__ __forceinline__ void fft_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The value at `p` (a shared address of this block) in the shared memory of block `rank`.
__device__ __forceinline__ float2 fft_ld_rank(const float2* p, unsigned rank) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p), ra;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(a), "r"(rank));
  float2 v;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(ra) : "memory");
  return v;
}
// One Stockham pass of radix R over sub-transforms of Ns values (FFT_L a column): reads
// the block's rows from global memory (FIRST) or S, writes S. Every thread holds 16 values.
template <int R, int Ns, bool FIRST>
__device__ __forceinline__ void fft_pass(const float2* g, long long gstep, bool ok, float2* S,
                                         const float2* tw, int c, int tl) {
  constexpr int TPC = FFT_L / 16, NB = (FFT_L / R) / TPC;
  float2 v[NB][R];
#pragma unroll
  for (int b = 0; b < NB; b++) {
    const int j = tl + TPC * b;
#pragma unroll
    for (int q = 0; q < R; q++) {
      const int e = j + q * (FFT_L / R);
      if constexpr (FIRST) v[b][q] = ok ? g[e * gstep] : make_float2(0.f, 0.f);
      else v[b][q] = S[e * 16 + c];
    }
  }
  // Every read of S is done before any of this pass's writes.
  if constexpr (!FIRST) __syncthreads();
#pragma unroll
  for (int b = 0; b < NB; b++) {
    const int j = tl + TPC * b, k = j % Ns;
    if constexpr (Ns > 1) {
#pragma unroll
      for (int q = 1; q < R; q++) v[b][q] = fft_mul(v[b][q], __ldg(&tw[((q * k) * (FFT_N / (Ns * R))) & (FFT_N - 1)]));
    }
    fft_dft<R>(v[b]);
    const int d = (j / Ns) * Ns * R + k;
#pragma unroll
    for (int q = 0; q < R; q++) S[(d + q * Ns) * 16 + c] = v[b][q];
  }
  __syncthreads();
}
"#;

/// Every program of this kernel (NVRTC compile checks): each column length and block
/// share the choice may give, both directions.
pub(crate) fn sample_sources() -> Vec<(String, String)> {
    let mut v = Vec::new();
    let mut rows = MIN_LEN;
    while rows <= MAX_LEN {
        let mut shares: Vec<usize> = [2, 4, 8]
            .iter()
            .filter_map(|&p| local_len(p, rows))
            .collect();
        shares.dedup();
        for l in shares {
            for fwd in [true, false] {
                v.push((key(rows, l, fwd), source(rows, l, fwd)));
            }
        }
        rows *= 2;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radices_cover_every_block_share() {
        assert_eq!(radices(1024), vec![16, 16, 4]);
        assert_eq!(radices(512), vec![16, 16, 2]);
        assert_eq!(radices(256), vec![16, 16]);
        for l in [256, 512, 1024] {
            assert_eq!(radices(l).iter().product::<usize>(), l);
            // every thread holds 16 values: whole butterflies of each radix
            assert!(radices(l).iter().all(|r| 16 % r == 0));
        }
    }

    #[test]
    fn a_plan_refuses_arrays_it_would_read_or_write_past() {
        let stream = Stream::for_device(Device::host()).unwrap();
        let dims = || SmallVec::from_slice(&[4usize, 8]);
        // values in [-1, 1) from a small LCG (no zeros, no pattern a transform could hide)
        let mut state = 0x2545_f491_u32;
        let values: Vec<f32> = (0..32)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect();
        let real = Array::from_slice_on_device(Device::host(), &values, &[4, 8]).unwrap();
        let half = Array::empty_on(&[4, 5], DType::C64, &stream).unwrap();
        let wide = Array::empty_on(&[4, 5], DType::C128, &stream).unwrap();
        let run = |y: &Array, out: &Array| {
            plan_into(&stream, FftKind::R2C, false, dims(), 1, y, out, true)
        };
        // the plan's own arrays run, and hold the two-axis transform of the input
        run(&real, &half).unwrap();
        let got: Vec<num_complex::Complex32> = half.to_vec().unwrap();
        for (k, g) in got.iter().enumerate() {
            let (k1, k2) = ((k / 5) as f64, (k % 5) as f64);
            let want = values.iter().enumerate().fold(
                num_complex::Complex64::new(0.0, 0.0),
                |acc, (n, &v)| {
                    let (n1, n2) = ((n / 8) as f64, (n % 8) as f64);
                    let turn = -std::f64::consts::TAU * (k1 * n1 / 4.0 + k2 * n2 / 8.0);
                    acc + num_complex::Complex64::from_polar(v as f64, turn)
                },
            );
            let err = (num_complex::Complex64::new(g.re as f64, g.im as f64) - want).norm();
            assert!(err < 1e-5, "value {k}: got {g}, want {want}");
        }
        // complex128 where the plan writes complex64
        let e = run(&real, &wide).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
        assert!(
            e.to_string().starts_with(
                "an FFT plan of 1 x 32 float32 -> 20 complex64 values takes two C-contiguous \
                 arrays of their own buffers: got 32 float32 values (C-contiguous: true) and 20 \
                 complex128 values"
            ),
            "{e}"
        );
        // a real input for a complex plan
        let e = plan_into(&stream, FftKind::C2C, false, dims(), 1, &real, &half, true);
        assert_eq!(e.unwrap_err().kind(), crate::ErrorKind::InvalidArgument);
        // an output that is not C-contiguous
        let t = Array::empty_on(&[5, 4], DType::C64, &stream).unwrap().t();
        assert!(!t.is_c_contiguous());
        assert_eq!(
            run(&real, &t).unwrap_err().kind(),
            crate::ErrorKind::InvalidArgument
        );
        // one buffer read and written
        let c = Array::empty_on(&[4, 8], DType::C64, &stream).unwrap();
        let e = plan_into(&stream, FftKind::C2C, false, dims(), 1, &c, &c, true).unwrap_err();
        assert!(e.to_string().contains("one buffer: true"), "{e}");
    }

    #[test]
    fn the_twiddle_table_holds_each_root_of_unity_rounded_once() {
        for (rows, forward) in [(512, true), (8192, false)] {
            let t = twiddle_table(rows, forward);
            let body = t
                .strip_prefix(&format!("__device__ const float2 fft_tw[{rows}] = {{"))
                .and_then(|b| b.strip_suffix("};"))
                .unwrap();
            let values: Vec<f32> = body
                .split(['{', '}', ','])
                .filter(|v| !v.is_empty())
                .map(|v| v.strip_suffix('f').unwrap().parse().unwrap())
                .collect();
            assert_eq!(values.len(), 2 * rows);
            let sign = if forward { -1.0 } else { 1.0 };
            for j in [0, 1, rows / 8, rows / 4, rows / 2 + 3, rows - 1] {
                let w = num_complex::Complex64::from_polar(
                    1.0,
                    sign * std::f64::consts::TAU * j as f64 / rows as f64,
                );
                // each value is the float nearest the double-precision root
                assert_eq!(values[2 * j], w.re as f32, "cos, j = {j}");
                assert_eq!(values[2 * j + 1], w.im as f32, "sin, j = {j}");
            }
            assert_eq!(
                (values[2], values[3].signum()),
                (
                    (std::f64::consts::TAU / rows as f64).cos() as f32,
                    sign as f32
                )
            );
        }
    }

    #[test]
    fn block_shares_keep_clusters_of_two_to_eight() {
        assert_eq!(local_len(0, 4096), None);
        assert_eq!(local_len(8, 4096), Some(512));
        assert_eq!(local_len(4, 4096), Some(1024));
        assert_eq!(local_len(8, 2048), Some(256));
        assert_eq!(local_len(4, 2048), Some(512));
        assert_eq!(local_len(8, 8192), Some(1024));
        assert_eq!(local_len(4, 8192), Some(1024));
        assert_eq!(local_len(8, 1024), Some(256));
        assert_eq!(local_len(8, 512), Some(256));
        assert_eq!(local_len(8, 4000), None);
        assert_eq!(local_len(8, 256), None);
        assert_eq!(local_len(8, 16384), None);
        for rows in [512, 1024, 2048, 4096, 8192] {
            for p in [2, 4, 8] {
                let l = local_len(p, rows).unwrap();
                assert!((256..=1024).contains(&l) && (2..=8).contains(&(rows / l)));
            }
        }
    }
}
