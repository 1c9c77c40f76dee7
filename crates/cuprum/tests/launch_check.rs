//! The one launch check (`runtime/launch.rs`) seen through every kernel kind: the same bad
//! configurations give the same errors from a generated kernel, a RawKernel and a kernel
//! written in Rust, and dynamic shared memory above 48 KiB opts in at launch for all three.

mod common;

use cuprum::gpu::*;
use cuprum::kernel::{Dim3, JitConfig};
use cuprum::runtime::LaunchConfig;
use cuprum::{Array, DType, Device, ErrorKind, RawKernel, Result};

/// Thread `i` writes `blockDim.x` to `out[i]`, and to the dynamic shared memory it has.
const RAW_PROBE: &str = r#"
extern "C" __global__ void raw_probe(float* out, unsigned int n, unsigned int shared_floats) {
    extern __shared__ float s[];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)blockDim.x;
    if (threadIdx.x < shared_floats) s[threadIdx.x] = v;
    if (i < n) out[i] = v;
}"#;

/// The Rust twin of the probes.
#[cuprum::kernel]
fn rust_probe(out: &mut [f32]) {
    let mut s = dynamic_shared::<f32>();
    let t = thread_idx().x;
    let v = block_dim().x as f32;
    if (t as usize) < s.len() {
        s[t] = v;
    }
    let i = global_index();
    if i < out.len() {
        out[i] = v;
    }
}

/// Launches one kind's probe with `grid` blocks of `block` threads and `smem` bytes of
/// dynamic shared memory; the output has `grid.0 * block.0` elements.
type Probe = fn(Dim3, Dim3, usize) -> Result<Vec<f32>>;

fn generated(grid: Dim3, block: Dim3, smem: usize) -> Result<Vec<f32>> {
    let cfg = LaunchConfig {
        grid: (grid.0, grid.1, grid.2),
        block: (block.0, block.1, block.2),
        shared_mem_bytes: smem as u32,
    };
    cuprum::internal::launch_generated(&cfg)?.to_vec::<f32>()
}

fn raw(grid: Dim3, block: Dim3, smem: usize) -> Result<Vec<f32>> {
    static K: std::sync::OnceLock<RawKernel> = std::sync::OnceLock::new();
    let k = K.get_or_init(|| RawKernel::new(RAW_PROBE, "raw_probe"));
    let n = grid.0 as usize * block.0 as usize;
    let out = Array::zeros(&[n], DType::F32)?;
    k.configure(grid, block)
        .shared_mem(smem)
        .launch((&out, n as u32, (smem / 4) as u32))?;
    out.to_vec::<f32>()
}

fn rust(grid: Dim3, block: Dim3, smem: usize) -> Result<Vec<f32>> {
    let n = grid.0 as usize * block.0 as usize;
    let mut out = Array::zeros(&[n], DType::F32)?;
    rust_probe::launch(JitConfig::new(grid, block).shared_mem(smem), &mut out)?;
    out.to_vec::<f32>()
}

const KINDS: [(&str, Probe); 3] = [("generated", generated), ("raw", raw), ("rust", rust)];

/// `f` fails with a launch error whose message holds every one of `words`.
fn refused(kind: &str, r: Result<Vec<f32>>, words: &[&str]) {
    let e = match r {
        Ok(_) => panic!("{kind}: launched, expected an error with {words:?}"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), ErrorKind::Launch, "{kind}: {e}");
    let m = e.to_string();
    for w in words {
        assert!(m.contains(w), "{kind}: {m:?} lacks {w:?}");
    }
}

#[test]
fn every_kernel_kind_refuses_the_same_configurations() {
    require_gpu!();
    let dev = Device::current().unwrap();
    let optin = dev.max_shared_memory_per_block_optin();
    let zmax = dev.max_grid_dim()[2];
    for (kind, probe) in KINDS {
        refused(
            kind,
            probe(Dim3(0, 1, 1), Dim3(32, 1, 1), 0),
            &["zero dimension", "grid"],
        );
        refused(
            kind,
            probe(Dim3(1, 1, 1), Dim3(32, 0, 1), 0),
            &["zero dimension", "block"],
        );
        refused(
            kind,
            probe(Dim3(1, 1, 1), Dim3(2048, 1, 1), 0),
            &["2048", "1024"],
        );
        refused(
            kind,
            probe(Dim3(1, 1, 1), Dim3(32, 32, 2), 0),
            &["2048 threads", "1024"],
        );
        refused(
            kind,
            probe(Dim3(1, 1, zmax + 1), Dim3(32, 1, 1), 0),
            &[&format!("grid dimension z is {}", zmax + 1)],
        );
        refused(
            kind,
            probe(Dim3(1, 1, 1), Dim3(32, 1, 1), optin + 4),
            &["dynamic shared memory", &format!("at most {optin}")],
        );
    }
}

#[test]
fn every_kernel_kind_opts_in_to_dynamic_shared_memory_above_48k() {
    require_gpu!();
    let optin = Device::current()
        .unwrap()
        .max_shared_memory_per_block_optin();
    // 64 KiB, or as much as the device allows above the default 48 KiB
    let smem = (64usize << 10).min(optin);
    for (kind, probe) in KINDS {
        for (grid, block, shared) in [(3u32, 96u32, 0usize), (2, 256, smem), (5, 33, 4)] {
            let v = probe(Dim3(grid, 1, 1), Dim3(block, 1, 1), shared)
                .unwrap_or_else(|e| panic!("{kind} {grid}x{block} with {shared} B: {e}"));
            assert_eq!(v.len(), (grid * block) as usize, "{kind}");
            assert!(v.iter().all(|&x| x == block as f32), "{kind}: {v:?}");
        }
    }
}

/// Rust kernels that call `grid_sync()` launch cooperatively, as a cooperative RawKernel:
/// a grid larger than the device runs at once is refused by the same check.
#[test]
fn cooperative_grids_must_fit_at_once() {
    require_gpu!();
    let dev = Device::current().unwrap();
    let blocks = dev.sm_count() * 2048;
    let k = RawKernel::new(
        r#"#include <cooperative_groups.h>
        extern "C" __global__ void coop(int* x) { cooperative_groups::this_grid().sync(); x[0] = 1; }"#,
        "coop",
    )
    .cooperative(true);
    let x = Array::zeros(&[1], DType::I32).unwrap();
    let e = k.launch(blocks, 256, (&x,)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    assert!(e.to_string().contains("exceeds the limit"), "{e}");
    let mut y = Array::zeros(&[1], DType::I32).unwrap();
    let e = coop_rust::launch((blocks, 256), &mut y).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch);
    let m = e.to_string();
    assert!(
        m.contains("exceeds the limit") && m.contains("calls grid_sync()"),
        "{m}"
    );
}

#[cuprum::kernel]
fn coop_rust(x: &mut [i32]) {
    grid_sync();
    if global_index() == 0 {
        x[0] = 1;
    }
}
