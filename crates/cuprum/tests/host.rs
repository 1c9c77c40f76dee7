//! The host device: kernels compiled by the system C++ compiler and run on the CPU.
mod common;

use cuprum::{Array, DType, Device, ErrorKind, RawKernel, RawModule};

fn host() -> Device {
    common::setup();
    Device::host()
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
