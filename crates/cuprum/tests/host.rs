//! The host device: kernels compiled by the system C++ compiler and run on the CPU.
//! Barriers (multi-step shared-memory algorithms, data-dependent trip counts,
//! `__syncthreads_count/_and/_or`), odd block sizes, 2-D/3-D indexing and dynamic shared
//! memory, each on `Device::host()` against a reference computed here. Warp operations,
//! atomics and faults have files of their own (`host_warps.rs`, `host_atomics.rs`,
//! `host_faults.rs`).
mod common;

use common::Rng;
use cuprum::{Array, DType, Device, ErrorKind, RawKernel, RawModule};

fn host() -> Device {
    common::host_device()
}

#[test]
fn vector_add_runs_on_the_host() {
    let h = host();
    h.with(|| {
        let k = RawKernel::new(
            r#"extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"#,
            "vector_add",
        );
        let n = 10_000usize;
        let av: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let bv: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let a = Array::from_slice(&av, &[n]).unwrap();
        let b = Array::from_slice(&bv, &[n]).unwrap();
        let c = Array::empty(&[n], DType::F32).unwrap();
        k.launch((n as u32).div_ceil(256), 256, (&a, &b, &c, n as i32)).unwrap();
        let got = c.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got[i], av[i] + bv[i]);
        }
        let e = k.launch(1, 256, (&a, &b, &c, n as i64)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Launch, "{e}");
    });
}

/// Kernels link against the C libraries only; one that needs the C++ runtime (device-side
/// `new`/`delete`: libstdc++'s operator new) is linked again with it and runs.
#[test]
fn a_kernel_that_needs_the_cpp_runtime_links_and_runs() {
    let h = host();
    h.with(|| {
        let k = RawKernel::new(
            r#"extern "C" __global__ void squares(long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long* scratch = new long long[3];
    scratch[0] = i; scratch[1] = (long long)i * i; scratch[2] = scratch[0] + scratch[1];
    out[i] = scratch[2];
    delete[] scratch;
}"#,
            "squares",
        );
        let n = 1000usize;
        let out = Array::empty(&[n], DType::I64).unwrap();
        k.launch((n as u32).div_ceil(128), 128, (&out, n as i32))
            .unwrap();
        let got = out.to_vec::<i64>().unwrap();
        for (i, v) in got.iter().enumerate() {
            let i = i as i64;
            assert_eq!(*v, i + i * i);
        }
    });
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let h = host();
    h.with(|| {
        let m = RawModule::new(
            r#"
extern "C" __global__ void block_sum(const int* x, int* out, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}"#,
        );
        let k = m.get_function("block_sum").unwrap();
        let n = 5000usize;
        let xv: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1000 - 500).collect();
        let x = Array::from_slice(&xv, &[n]).unwrap();
        let blocks = n.div_ceil(256);
        let out = Array::zeros(&[blocks], DType::I32).unwrap();
        k.launch(blocks as u32, 256, (&x, &out, n as i32)).unwrap();
        let got = out.to_vec::<i32>().unwrap();
        for b in 0..blocks {
            let want: i32 = xv[b * 256..((b + 1) * 256).min(n)].iter().sum();
            assert_eq!(got[b], want, "block {b}");
        }
    });
}

#[test]
fn reduction_kernel_sums_on_the_host() {
    let h = host();
    h.with(|| {
        let k = cuprum::ReductionKernel::new(
            "T x",
            "T y",
            "x * x",
            "a + b",
            "y = a",
            Some("0"),
            "host_sum",
        )
        .unwrap();
        for n in [1usize, 31, 32, 33, 100, 1000, 8191, 100003] {
            let xv: Vec<f64> = (0..n as i64).map(|i| (i % 7 - 2) as f64).collect();
            let x = Array::from_slice(&xv, &[n]).unwrap();
            let got = k.call((&x,)).unwrap().to_vec::<f64>().unwrap();
            let want: f64 = xv.iter().map(|v| v * v).sum();
            if got[0] != want {
                let src = k
                    .generated_source(&[DType::F64; 2], &[false, false])
                    .unwrap();
                panic!("n={n}: {} vs {want}\n{src}", got[0]);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// barriers

/// Every barrier kernel of this file, in one module (compiled once).
const BARRIERS: &str = r#"
// Tree sum of each block's part, for any block size: the upper part folds onto the lower.
extern "C" __global__ void tree_sum(const long long* x, long long* out, int n) {
    __shared__ long long s[1024];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < (unsigned)n ? x[i] : 0;
    __syncthreads();
    for (unsigned active = blockDim.x; active > 1;) {
        unsigned half = (active + 1) / 2;
        if (t < active - half) s[t] += s[t + half];
        __syncthreads();
        active = half;
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Inclusive scan of each block's part (Hillis-Steele, double-buffered).
extern "C" __global__ void block_scan(const int* x, int* y, int n) {
    __shared__ int buf[2][1024];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    int cur = 0;
    buf[0][t] = i < (unsigned)n ? x[i] : 0;
    __syncthreads();
    for (unsigned d = 1; d < blockDim.x; d <<= 1) {
        int v = buf[cur][t];
        if (t >= d) v += buf[cur][t - d];
        buf[1 - cur][t] = v;
        cur = 1 - cur;
        __syncthreads();
    }
    if (i < (unsigned)n) y[i] = buf[cur][t];
}

// Block b runs rounds[b] rounds of a ring update: a trip count read from memory, the same
// for every thread of a block, different between blocks.
extern "C" __global__ void ring_rounds(const int* rounds, const int* x, int* y) {
    __shared__ int s[1024];
    unsigned t = threadIdx.x, n = blockDim.x;
    unsigned i = blockIdx.x * n + t;
    s[t] = x[i];
    __syncthreads();
    for (int r = 0; r < rounds[blockIdx.x]; ++r) {
        int v = (3 * s[t] + s[(t + 1) % n] + r) % 10007;
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    y[i] = s[t];
}

// Thread i has work[i] steps; the block loops while any of its threads has work left
// (__syncthreads_or decides, so the trip count is the block's largest).
extern "C" __global__ void until_done(const int* work, int* acc, int* iters) {
    __shared__ int s[1024];
    unsigned t = threadIdx.x, n = blockDim.x;
    unsigned i = blockIdx.x * n + t;
    int left = work[i];
    int total = 0, k = 0;
    s[t] = 0;
    while (__syncthreads_or(left > 0)) {
        if (left > 0) {
            --left;
            s[t] += 1 + k;
        }
        __syncthreads();
        total += s[(t + 1) % n];
        ++k;
        __syncthreads();
    }
    acc[i] = total;
    iters[i] = k;
}

extern "C" __global__ void block_votes(const int* x, int* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    int r0 = __syncthreads_count(v > 0);
    int r1 = __syncthreads_and(v > 0);
    int r2 = __syncthreads_or(v > 0);
    int r3 = __syncthreads_count(v % 3 == 0);
    int r4 = __syncthreads_and(v != 0);
    int r5 = __syncthreads_or(v > 1000000);
    int* o = out + i * 6;
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4; o[5] = r5;
}

// Every built-in index, written before, between and after barriers.
extern "C" __global__ void where_am_i(unsigned* out) {
    unsigned b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned* o = out + (b * nt + t) * 13;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    __syncthreads();
    o[3] = blockIdx.x; o[4] = blockIdx.y; o[5] = blockIdx.z;
    o[6] = blockDim.x; o[7] = blockDim.y; o[8] = blockDim.z;
    __syncthreads();
    o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;
    o[12] = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

// Tiled transpose of a rows x cols matrix: 2-D blocks of 16 x 16, a 2-D grid.
#define TILE 16
extern "C" __global__ void transpose(const float* a, float* b, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = a[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) b[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
"#;

fn barriers() -> &'static RawModule {
    static M: std::sync::OnceLock<RawModule> = std::sync::OnceLock::new();
    M.get_or_init(|| RawModule::new(BARRIERS))
}

/// Odd block sizes: one thread, one more than a warp, not a power of two, the maximum.
const BLOCKS: [usize; 4] = [1, 33, 100, 1024];

/// `n` random non-zero values in `[-lim, lim]`.
fn nonzero_i32(rng: &mut Rng, n: usize, lim: i32) -> Vec<i32> {
    (0..n)
        .map(|_| {
            let v = rng.usize(1, lim as usize + 1) as i32;
            if common::coin(rng) { v } else { -v }
        })
        .collect()
}

#[test]
fn tree_reduction_and_block_scan_for_odd_block_sizes() {
    host().with(|| {
        let m = barriers();
        let (sum, scan) = (
            m.get_function("tree_sum").unwrap(),
            m.get_function("block_scan").unwrap(),
        );
        let mut rng = Rng::new(17);
        for &bs in &BLOCKS {
            // a last block that is only partly filled
            let n = bs * 5 + bs / 2 + 1;
            let blocks = n.div_ceil(bs);
            let xv: Vec<i64> = (0..n)
                .map(|_| rng.next_u64() as i64 >> 24)
                .map(|v| if v == 0 { 1 } else { v })
                .collect();
            let x = Array::from_slice(&xv, &[n]).unwrap();
            let out = Array::zeros(&[blocks], DType::I64).unwrap();
            sum.launch(blocks as u32, bs as u32, (&x, &out, n as i32))
                .unwrap();
            let got = out.to_vec::<i64>().unwrap();
            for (b, g) in got.iter().enumerate() {
                let want: i64 = xv[b * bs..((b + 1) * bs).min(n)].iter().sum();
                assert_eq!(*g, want, "tree_sum: block {b} of {bs} threads");
            }

            let yv = nonzero_i32(&mut rng, n, 1000);
            let y = Array::from_slice(&yv, &[n]).unwrap();
            let out = Array::zeros(&[n], DType::I32).unwrap();
            scan.launch(blocks as u32, bs as u32, (&y, &out, n as i32))
                .unwrap();
            let got = out.to_vec::<i32>().unwrap();
            for b in 0..blocks {
                let mut acc = 0;
                for i in b * bs..((b + 1) * bs).min(n) {
                    acc += yv[i];
                    assert_eq!(got[i], acc, "block_scan: element {i}, blocks of {bs}");
                }
            }
        }
    });
}

#[test]
fn barriers_in_loops_with_data_dependent_trip_counts() {
    host().with(|| {
        let m = barriers();
        let (ring, until) = (
            m.get_function("ring_rounds").unwrap(),
            m.get_function("until_done").unwrap(),
        );
        let mut rng = Rng::new(29);
        for &bs in &BLOCKS {
            let blocks = 6;
            let n = blocks * bs;
            let rounds: Vec<i32> = (0..blocks).map(|_| rng.usize(0, 9) as i32).collect();
            let xv: Vec<i32> = (0..n).map(|_| rng.usize(1, 10007) as i32).collect();
            let y = Array::zeros(&[n], DType::I32).unwrap();
            ring.launch(
                blocks as u32,
                bs as u32,
                (
                    &common::dev(&rounds, &[blocks]),
                    &common::dev(&xv, &[n]),
                    &y,
                ),
            )
            .unwrap();
            let got = y.to_vec::<i32>().unwrap();
            for b in 0..blocks {
                let mut s = xv[b * bs..(b + 1) * bs].to_vec();
                for r in 0..rounds[b] {
                    s = (0..bs)
                        .map(|t| (3 * s[t] + s[(t + 1) % bs] + r) % 10007)
                        .collect();
                }
                assert_eq!(
                    &got[b * bs..(b + 1) * bs],
                    &s[..],
                    "ring_rounds: block {b} ({} rounds) of {bs} threads",
                    rounds[b]
                );
            }

            let work: Vec<i32> = (0..n).map(|_| rng.usize(0, 12) as i32).collect();
            let acc = Array::zeros(&[n], DType::I32).unwrap();
            let iters = Array::zeros(&[n], DType::I32).unwrap();
            until
                .launch(
                    blocks as u32,
                    bs as u32,
                    (&common::dev(&work, &[n]), &acc, &iters),
                )
                .unwrap();
            let (acc, iters) = (acc.to_vec::<i32>().unwrap(), iters.to_vec::<i32>().unwrap());
            for b in 0..blocks {
                let w = &work[b * bs..(b + 1) * bs];
                let k_max = *w.iter().max().unwrap();
                // s after round k of thread u: 1 + 2 + ... over its first min(k + 1, w[u]) steps
                let s = |u: usize, k: i32| -> i32 { (1..=(k + 1).min(w[u])).sum() };
                for t in 0..bs {
                    let i = b * bs + t;
                    assert_eq!(iters[i], k_max, "until_done: iterations of thread {i}");
                    let want: i32 = (0..k_max).map(|k| s((t + 1) % bs, k)).sum();
                    assert_eq!(acc[i], want, "until_done: thread {i}, blocks of {bs}");
                }
            }
        }
    });
}

#[test]
fn syncthreads_count_and_or_per_block() {
    host().with(|| {
        let k = barriers().get_function("block_votes").unwrap();
        let mut rng = Rng::new(41);
        for &bs in &BLOCKS {
            let blocks = 7;
            let n = blocks * bs;
            // blocks of all-positive, all-negative and mixed values
            let mut xv = nonzero_i32(&mut rng, n, 1000);
            for b in 0..blocks {
                for v in &mut xv[b * bs..(b + 1) * bs] {
                    match b % 3 {
                        0 => *v = v.abs(),
                        1 => *v = -v.abs(),
                        _ => {}
                    }
                }
            }
            let out = Array::zeros(&[n * 6], DType::I32).unwrap();
            k.launch(blocks as u32, bs as u32, (&common::dev(&xv, &[n]), &out))
                .unwrap();
            let got = out.to_vec::<i32>().unwrap();
            for b in 0..blocks {
                let part = &xv[b * bs..(b + 1) * bs];
                let pos = part.iter().filter(|v| **v > 0).count() as i32;
                let by3 = part.iter().filter(|v| **v % 3 == 0).count() as i32;
                let want = [
                    pos,
                    i32::from(pos == bs as i32),
                    i32::from(pos > 0),
                    by3,
                    1,
                    0,
                ];
                for t in 0..bs {
                    let i = b * bs + t;
                    assert_eq!(
                        &got[i * 6..i * 6 + 6],
                        &want,
                        "block {b} thread {t} of {bs}: count(>0), and(>0), or(>0), \
                         count(%3), and(!=0), or(>1e6)"
                    );
                }
            }
        }
    });
}

#[test]
fn two_and_three_dimensional_blocks_and_grids_index_every_thread() {
    host().with(|| {
        let k = barriers().get_function("where_am_i").unwrap();
        type Xyz = (u32, u32, u32);
        let shapes: [(Xyz, Xyz); 5] = [
            ((3, 2, 2), (4, 3, 5)),
            ((2, 3, 1), (7, 1, 3)),
            ((1, 1, 3), (1, 1, 1)),
            ((1, 4, 1), (33, 2, 1)),
            // more than the launches run inline: blocks spread over the worker pool
            ((5, 4, 3), (8, 8, 2)),
        ];
        for (grid, block) in shapes {
            let nb = (grid.0 * grid.1 * grid.2) as usize;
            let nt = (block.0 * block.1 * block.2) as usize;
            let out = Array::zeros(&[nb * nt * 13], DType::U32).unwrap();
            k.launch(grid, block, (&out,)).unwrap();
            let got = out.to_vec::<u32>().unwrap();
            for b in 0..nb {
                let b = b as u32;
                let bi = (b % grid.0, (b / grid.0) % grid.1, b / (grid.0 * grid.1));
                for t in 0..nt {
                    let t = t as u32;
                    let ti = (
                        t % block.0,
                        (t / block.0) % block.1,
                        t / (block.0 * block.1),
                    );
                    let want = [
                        ti.0, ti.1, ti.2, bi.0, bi.1, bi.2, block.0, block.1, block.2, grid.0,
                        grid.1, grid.2, t,
                    ];
                    let at = ((b as usize) * nt + t as usize) * 13;
                    assert_eq!(
                        &got[at..at + 13],
                        &want,
                        "grid {grid:?} block {block:?}: block {bi:?} thread {ti:?}"
                    );
                }
            }
        }
    });
}

#[test]
fn tiled_transpose_with_two_dimensional_blocks() {
    host().with(|| {
        let k = barriers().get_function("transpose").unwrap();
        let mut rng = Rng::new(53);
        for (rows, cols) in [(37usize, 53usize), (16, 16), (1, 70), (33, 1)] {
            let av: Vec<f32> = (0..rows * cols)
                .map(|_| common::nz(&mut rng, -10.0, 10.0) as f32)
                .collect();
            let b = Array::zeros(&[cols * rows], DType::F32).unwrap();
            let grid = (cols.div_ceil(16) as u32, rows.div_ceil(16) as u32);
            k.launch(
                grid,
                (16u32, 16u32),
                (
                    &common::dev(&av, &[rows * cols]),
                    &b,
                    rows as i32,
                    cols as i32,
                ),
            )
            .unwrap();
            let got = b.to_vec::<f32>().unwrap();
            for r in 0..rows {
                for c in 0..cols {
                    assert_eq!(
                        got[c * rows + r],
                        av[r * cols + c],
                        "{rows}x{cols}: ({r}, {c})"
                    );
                }
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// dynamic shared memory

const DYNAMIC: &str = r#"
extern __shared__ unsigned char pool[];

// Reverses each block's m doubles through dynamic shared memory, adding a value from a
// static shared array beside it.
extern "C" __global__ void dyn_reverse_f64(const double* x, double* y, int m) {
    extern __shared__ double sd[];
    __shared__ int tag[4];
    const double* xb = x + (size_t)blockIdx.x * m;
    double* yb = y + (size_t)blockIdx.x * m;
    if (threadIdx.x == 0)
        for (int j = 0; j < 4; ++j) tag[j] = 10 * (blockIdx.x + 1) + j;
    for (int k = threadIdx.x; k < m; k += blockDim.x) sd[k] = xb[k];
    __syncthreads();
    for (int k = threadIdx.x; k < m; k += blockDim.x) yb[k] = sd[m - 1 - k] + tag[k % 4];
}

// Two extern arrays of different types name the same memory.
extern "C" __global__ void dyn_alias(const int* x, float* y, int* same) {
    extern __shared__ int si[];
    extern __shared__ float sf[];
    unsigned t = threadIdx.x;
    si[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    y[blockIdx.x * blockDim.x + t] = sf[blockDim.x - 1 - t];
    if (t == 0) same[blockIdx.x] = (void*)si == (void*)sf;
}

// The namespace-scope pool, carved into nf floats, then nc bytes; a static short array too.
extern "C" __global__ void dyn_carve(const float* a, const unsigned char* c, float* out, int nf, int nc) {
    __shared__ short scale[2];
    float* f = reinterpret_cast<float*>(pool);
    unsigned char* bytes = pool + nf * sizeof(float);
    if (threadIdx.x == 0) { scale[0] = -3; scale[1] = (short)(blockIdx.x + 2); }
    for (int k = threadIdx.x; k < nf; k += blockDim.x) f[k] = a[blockIdx.x * nf + k];
    for (int k = threadIdx.x; k < nc; k += blockDim.x) bytes[k] = c[blockIdx.x * nc + k];
    __syncthreads();
    for (int k = threadIdx.x; k < nf; k += blockDim.x)
        out[blockIdx.x * nf + k] = f[nf - 1 - k] * bytes[k % nc] + scale[k % 2];
}
"#;

fn dynamic() -> &'static RawModule {
    static M: std::sync::OnceLock<RawModule> = std::sync::OnceLock::new();
    M.get_or_init(|| RawModule::new(DYNAMIC))
}

#[test]
fn dynamic_shared_memory_of_several_sizes_beside_static_shared_memory() {
    host().with(|| {
        let k = dynamic().get_function("dyn_reverse_f64").unwrap();
        let mut rng = Rng::new(61);
        let blocks = 5usize;
        // up to the default limit of 48 KiB (6144 doubles), and 100 KiB after raising it
        for (m, bs) in [
            (1usize, 1u32),
            (33, 64),
            (1000, 256),
            (6144, 128),
            (12800, 1024),
        ] {
            let bytes = m * 8;
            let xv = common::rand_f64(&mut rng, blocks * m);
            let x = common::dev(&xv, &[blocks * m]);
            let y = Array::zeros(&[blocks * m], DType::F64).unwrap();
            // above 48 KiB the launch opts in by itself, as on a GPU
            k.configure(blocks as u32, bs)
                .shared_mem(bytes)
                .launch((&x, &y, m as i32))
                .unwrap();
            let got = y.to_vec::<f64>().unwrap();
            for b in 0..blocks {
                for j in 0..m {
                    let want = xv[b * m + m - 1 - j] + (10 * (b + 1) + j % 4) as f64;
                    assert_eq!(got[b * m + j], want, "m {m}: block {b} element {j}");
                }
            }
        }
    });
}

#[test]
fn extern_shared_arrays_alias_and_carve_one_pool() {
    host().with(|| {
        let m = dynamic();
        let (alias, carve) = (
            m.get_function("dyn_alias").unwrap(),
            m.get_function("dyn_carve").unwrap(),
        );
        let mut rng = Rng::new(67);
        for bs in [1usize, 40, 256] {
            let blocks = 3;
            let n = blocks * bs;
            let xv: Vec<i32> = (0..n)
                .map(|_| (common::nz(&mut rng, -100.0, 100.0) as f32).to_bits() as i32)
                .collect();
            let y = Array::zeros(&[n], DType::F32).unwrap();
            let same = Array::zeros(&[blocks], DType::I32).unwrap();
            alias
                .configure(blocks as u32, bs as u32)
                .shared_mem(bs * 4)
                .launch((&common::dev(&xv, &[n]), &y, &same))
                .unwrap();
            let got = y.to_vec::<f32>().unwrap();
            assert_eq!(same.to_vec::<i32>().unwrap(), vec![1; blocks]);
            for b in 0..blocks {
                for t in 0..bs {
                    let want = f32::from_bits(xv[b * bs + bs - 1 - t] as u32);
                    assert_eq!(got[b * bs + t], want, "block {b} thread {t} of {bs}");
                }
            }
        }
        for (nf, nc, bs) in [(1usize, 1usize, 1u32), (100, 7, 32), (3000, 517, 256)] {
            let blocks = 4;
            let av: Vec<f32> = (0..blocks * nf)
                .map(|_| common::nz(&mut rng, -4.0, 4.0) as f32)
                .collect();
            let cv: Vec<u8> = (0..blocks * nc).map(|_| rng.usize(1, 256) as u8).collect();
            let out = Array::zeros(&[blocks * nf], DType::F32).unwrap();
            carve
                .configure(blocks as u32, bs)
                .shared_mem(nf * 4 + nc)
                .launch((
                    &common::dev(&av, &[blocks * nf]),
                    &common::dev(&cv, &[blocks * nc]),
                    &out,
                    nf as i32,
                    nc as i32,
                ))
                .unwrap();
            let got = out.to_vec::<f32>().unwrap();
            for b in 0..blocks {
                for k in 0..nf {
                    let scale = if k % 2 == 0 { -3.0 } else { (b + 2) as f32 };
                    let want = av[b * nf + nf - 1 - k] * f32::from(cv[b * nc + k % nc]) + scale;
                    assert_eq!(
                        got[b * nf + k],
                        want,
                        "nf {nf} nc {nc}: block {b} float {k}"
                    );
                }
            }
        }
    });
}
