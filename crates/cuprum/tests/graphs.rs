//! CUDA Graphs: capture of every kind of cuprum call on a stream (ElementwiseKernel,
//! ReductionKernel, RawKernel, RawModule, fuse, `#[cuprum::kernel]`, ops, device copies),
//! replay with new inputs copied into the captured arrays, arrays made inside a capture,
//! temporaries, and the calls a capture refuses (each a typed error naming the call, the
//! stream usable afterwards). The host device has no graphs: there the test checks the
//! `Unsupported` error.

mod common;

use common::expect_err;
use cuprum::gpu::*;
use cuprum::{
    Array, DType, ElementwiseKernel, ErrorKind, PinnedBuffer, RawKernel, ReductionKernel, Stream,
    fuse, ops,
};

fn on_gpu() -> bool {
    cuprum::Device::current().is_ok_and(|d| !d.is_host())
}

#[test]
fn the_host_device_says_unsupported() {
    require_gpu!();
    if on_gpu() {
        return;
    }
    let s = Stream::new().unwrap();
    let e = expect_err(s.capture(|| Ok(())), ErrorKind::Unsupported);
    assert!(e.to_string().contains("CUDA graphs need a GPU"), "{e}");
    // the stream is usable afterwards
    let a = s.with(|| Array::ones(&[4], DType::F32)).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0; 4]);
}

#[cuprum::kernel]
fn scale_add(x: &[f32], y: &mut [f32], a: f32, n: u32) {
    let i = block_dim().x * block_idx().x + thread_idx().x;
    if i < n {
        y[i] = a * x[i] + y[i];
    }
}

#[test]
fn every_kind_of_call_replays() {
    require_cuda!();
    let n = 10_001usize;
    let s = Stream::new().unwrap();
    let host: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25 + 1.0).collect();
    let x = Array::from_slice(&host, &[n]).unwrap();
    let ew = ElementwiseKernel::new("T x", "T y", "y = x * 2 + 1", "g_twice1").unwrap();
    let red =
        ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "g_ssq").unwrap();
    let raw = RawKernel::new(
        r#"extern "C" __global__ void g_neg(const float* x, float* y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = -x[i];
        }"#,
        "g_neg",
    );
    let fused = fuse("g_hypot1", |[x]| (x * x + 1.0f32).sqrt());
    let (graph, (a, b, c, d, e, f)) = s
        .capture(|| {
            let a = ew.call((&x,))?; // 2x + 1
            let b = red.call((&a,))?; // Σ (2x + 1)²
            let c = Array::empty(&[n], DType::F32)?;
            raw.launch((n as u32).div_ceil(256), 256, (&x, &c, n as i32))?; // -x
            let d = fused.call((&x,))?; // sqrt(x² + 1)
            let e = ops::add(&a, &c)?; // x + 1
            let mut f = e.copy()?; // a device copy
            scale_add::launch(
                ((n as u32).div_ceil(128), 128),
                &x,
                &mut f,
                3.0f32,
                n as u32,
            )?; // 4x + 1
            Ok((a, b, c, d, e, f))
        })
        .unwrap();
    assert!(graph.node_count() >= 7, "{graph:?}");
    for round in 0..3 {
        let h: Vec<f32> = host.iter().map(|v| v + round as f32).collect();
        // The upload goes on the graph's stream: on another stream nothing would order the
        // graph's reads after it (only a buffer's first use on a stream is ordered), and
        // the H200 run once replayed the graph on round 0's values.
        s.with(|| x.copy_from_slice(&h)).unwrap();
        graph.launch(&s).unwrap();
        s.synchronize().unwrap();
        let a_h = a.to_vec::<f32>().unwrap();
        for i in [0, 1, n / 2, n - 1] {
            assert_eq!(a_h[i], h[i] * 2.0 + 1.0, "round {round}");
        }
        let want: f64 = h.iter().map(|&v| ((v * 2.0 + 1.0) as f64).powi(2)).sum();
        let got = b.to_vec::<f32>().unwrap()[0] as f64;
        assert!(
            (got - want).abs() <= 1e-4 * want,
            "round {round}: {got} vs {want}"
        );
        assert_eq!(c.to_vec::<f32>().unwrap()[n - 1], -h[n - 1]);
        let d_h = d.to_vec::<f32>().unwrap();
        assert!((d_h[7] - (h[7] * h[7] + 1.0).sqrt()).abs() < 1e-5);
        assert_eq!(e.to_vec::<f32>().unwrap()[3], h[3] + 1.0);
        assert_eq!(f.to_vec::<f32>().unwrap()[5], h[5] * 4.0 + 1.0);
    }
    // the graph outlives the arrays the program dropped: it keeps their memory
    drop((a, b, c, d, e));
    graph.launch(&s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap()[5], (host[5] + 2.0) * 4.0 + 1.0);
}

#[test]
fn temporaries_and_a_dropped_graph_leave_memory_right() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4]).unwrap();
    let (g, y) = s
        .capture(|| {
            let mut t = ops::multiply(&x, 3.0f64)?; // temporaries dropped inside
            for _ in 0..5 {
                t = ops::add(&t, 1.0f64)?;
            }
            ops::sum(&t)
        })
        .unwrap();
    for _ in 0..4 {
        g.launch(&s).unwrap();
    }
    s.synchronize().unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![50.0]);
    drop(g);
    // the memory the graph kept went back; new work is unaffected
    let z = s.with(|| ops::multiply(&x, 2.0f64)).unwrap();
    assert_eq!(z.to_vec::<f64>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![50.0]);
}

#[test]
fn illegal_calls_in_a_capture_are_errors_and_the_stream_stays_usable() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let idx = Array::from_slice(&[1i64, 0], &[2]).unwrap();
    type Case<'a> = (&'a str, Box<dyn Fn() -> cuprum::Result<()> + 'a>);
    let cases: Vec<Case> = vec![
        (
            "an index check of take",
            Box::new(|| ops::take(&x, &idx, None).map(drop)),
        ),
        (
            "an index check of take, put or scatter_add",
            Box::new(|| ops::scatter_add(&x, &idx, 1.0f32)),
        ),
        (
            "a copy to host memory",
            Box::new(|| x.to_vec::<f32>().map(drop)),
        ),
        (
            "a copy from host memory",
            Box::new(|| Array::from_slice(&[1i32], &[1]).map(drop)),
        ),
        (
            "a copy to host memory",
            Box::new(|| ops::sum(&x)?.to_vec::<f32>().map(drop)),
        ),
        (
            "Stream::synchronize",
            Box::new(|| Stream::current()?.synchronize()),
        ),
        (
            "Device::synchronize",
            Box::new(|| cuprum::Device::current()?.synchronize()),
        ),
        (
            "copy_to_host_async",
            Box::new(|| {
                x.copy_to_host_async(PinnedBuffer::<f32>::zeroed(2)?, &Stream::current()?)
                    .map(drop)
            }),
        ),
        (
            "Stream::capture inside another capture",
            Box::new(|| Stream::new()?.capture(|| Ok(())).map(drop)),
        ),
    ];
    for (what, f) in cases {
        let e = s
            .capture(|| ops::add(&x, 1.0f32).and_then(|_| f()))
            .unwrap_err();
        assert!(e.to_string().contains(what), "{what}: {e}");
        // the stream works normally afterwards
        let y = s.with(|| ops::add(&x, 1.0f32)).unwrap();
        s.synchronize().unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0, 3.0], "after {what}");
    }
    let d = cuprum::Device::current().unwrap();
    let e = expect_err(
        d.default_stream().capture(|| Ok(())),
        ErrorKind::InvalidArgument,
    );
    assert!(e.to_string().contains("default stream"), "{e}");
}

#[test]
fn a_panic_inside_a_capture_ends_it() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let x = Array::ones(&[8], DType::F32).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = s.capture(|| -> cuprum::Result<()> {
            ops::add(&x, 1.0f32)?;
            panic!("inside the capture");
        });
    }));
    assert!(r.is_err());
    let y = s.with(|| ops::add(&x, 1.0f32)).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0; 8]);
    // and a new capture works
    let (g, z) = s.capture(|| ops::multiply(&x, 5.0f32)).unwrap();
    g.launch(&s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(z.to_vec::<f32>().unwrap(), vec![5.0; 8]);
}

#[test]
fn a_graph_launches_on_another_stream_of_its_device() {
    require_cuda!();
    let (s1, s2) = (Stream::new().unwrap(), Stream::new().unwrap());
    let x = Array::arange(0.0, 100.0, 1.0, DType::F32).unwrap();
    let (g, y) = s1.capture(|| ops::multiply(&x, &x)).unwrap();
    g.launch(&s2).unwrap();
    s2.synchronize().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap()[9], 81.0);
    let e = expect_err(
        g.launch(&Stream::new_on(cuprum::Device::host()).unwrap()),
        ErrorKind::InvalidArgument,
    );
    assert!(e.to_string().contains("the graph was captured on"), "{e}");
}

/// `n` values, distinct per `seed`, none zero.
fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32 * 2_654_435_761).wrapping_add(seed * 97) % 1000) as f32 * 0.5 + 1.0)
        .collect()
}

#[test]
fn rebinding_swaps_inputs_and_outputs_of_every_node_kind() {
    require_cuda!();
    let n = 5_003usize;
    let s = Stream::new().unwrap();
    let ew = ElementwiseKernel::new("T x", "T y", "y = 3 * x - 1", "rb_three").unwrap();
    let raw = RawKernel::new(
        r#"extern "C" __global__ void rb_neg(const float* x, float* y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = -x[i];
        }"#,
        "rb_neg",
    );
    let x = Array::from_slice(&values(n, 1), &[n]).unwrap();
    let (mut g, (a, c, total, copied)) = s
        .capture(|| {
            let a = ew.call((&x,))?; // 3x - 1
            let c = Array::empty(&[n], DType::F32)?;
            raw.launch((n as u32).div_ceil(256), 256, (&x, &c, n as i32))?; // -x
            let total = ops::sum(&x)?; // a reduction
            let copied = x.copy()?; // a device copy node
            Ok((a, c, total, copied))
        })
        .unwrap();
    // A ring of three input sets and output sets, each launched in turn without recapture.
    let inputs: Vec<Array> = (0..3)
        .map(|k| Array::from_slice(&values(n, 10 + k), &[n]).unwrap())
        .collect();
    let outputs: Vec<[Array; 4]> = (0..3)
        .map(|_| {
            [
                Array::empty_like(&a).unwrap(),
                Array::empty_like(&c).unwrap(),
                Array::empty_like(&total).unwrap(),
                Array::empty_like(&copied).unwrap(),
            ]
        })
        .collect();
    let (mut cur_x, mut cur_out) = (
        x.clone(),
        [a.clone(), c.clone(), total.clone(), copied.clone()],
    );
    for round in 0..6 {
        let k = round % 3;
        assert!(g.rebind(&cur_x, &inputs[k]).unwrap() >= 4, "round {round}");
        for (old, new) in cur_out.iter().zip(&outputs[k]) {
            assert!(g.rebind(old, new).unwrap() >= 1, "round {round}");
        }
        cur_x = inputs[k].clone();
        cur_out = outputs[k].clone();
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        let h = values(n, 10 + k as u32);
        let [oa, oc, ot, ocp] = &outputs[k];
        let got_a = oa.to_vec::<f32>().unwrap();
        let got_c = oc.to_vec::<f32>().unwrap();
        for i in [0, 1, n / 3, n - 1] {
            assert_eq!(got_a[i], 3.0 * h[i] - 1.0, "round {round} at {i}");
            assert_eq!(got_c[i], -h[i], "round {round} at {i}");
        }
        let want: f64 = h.iter().map(|&v| v as f64).sum();
        let got = ot.to_vec::<f32>().unwrap()[0] as f64;
        assert!(
            (got - want).abs() <= 1e-5 * want,
            "round {round}: {got} vs {want}"
        );
        assert_eq!(ocp.to_vec::<f32>().unwrap(), h, "round {round}");
    }
    // Back to the captured arrays: the graph writes them again.
    g.rebind(&cur_x, &x).unwrap();
    for (old, new) in cur_out.iter().zip([&a, &c, &total, &copied]) {
        g.rebind(old, new).unwrap();
    }
    g.launch(&s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(copied.to_vec::<f32>().unwrap(), values(n, 1));
    assert_eq!(a.to_vec::<f32>().unwrap()[9], 3.0 * values(n, 1)[9] - 1.0);
}

#[test]
fn rebinding_views_and_dropped_arrays() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let base = Array::from_slice(&values(40, 3), &[40]).unwrap();
    let view = base.slice(&cuprum::s![1..;2]).unwrap(); // 20 elements, stride 2
    let (mut g, y) = s.capture(|| ops::multiply(&view, 2.0f32)).unwrap();
    let other = Array::from_slice(&values(41, 4), &[41]).unwrap();
    let view2 = other.slice(&cuprum::s![1..;2]).unwrap();
    g.rebind(&view, &view2).unwrap();
    drop((base, view, other)); // the graph keeps view2's buffer alive
    let h = values(41, 4);
    for _ in 0..3 {
        g.launch(&s).unwrap();
    }
    s.synchronize().unwrap();
    let want: Vec<f32> = (0..20).map(|i| h[1 + 2 * i] * 2.0).collect();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);
    drop(view2);
    g.launch(&s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);
}

#[test]
fn rebinding_refuses_other_layouts_devices_and_unused_arrays() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let x = Array::from_slice(&values(8, 5), &[8]).unwrap();
    let (mut g, y) = s.capture(|| ops::add(&x, 1.0f32)).unwrap();
    let e = expect_err(
        g.rebind(&x, &Array::ones(&[8], DType::F64).unwrap()),
        ErrorKind::DType,
    );
    assert!(e.to_string().contains("dtype float32, got float64"), "{e}");
    let e = expect_err(
        g.rebind(&x, &Array::ones(&[2, 4], DType::F32).unwrap()),
        ErrorKind::Shape,
    );
    assert!(e.to_string().contains("shape [8]"), "{e}");
    let strided = Array::ones(&[16], DType::F32).unwrap();
    let strided = strided.slice(&cuprum::s![..;2]).unwrap();
    let e = expect_err(g.rebind(&x, &strided), ErrorKind::Shape);
    assert!(e.to_string().contains("strides [2]"), "{e}");
    let unused = Array::ones(&[8], DType::F32).unwrap();
    let e = expect_err(g.rebind(&unused, &x), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("does not use"), "{e}");
    let empty = Array::empty(&[0], DType::F32).unwrap();
    let e = expect_err(g.rebind(&empty, &empty), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("empty array"), "{e}");
    let h = common::host_device()
        .with(|| Array::from_slice(&[1.0f32; 8], &[8]))
        .unwrap();
    let e = expect_err(g.rebind(&x, &h), ErrorKind::DeviceMismatch);
    assert!(e.to_string().contains("graph runs on"), "{e}");
    // after the refusals the graph still runs as captured
    g.launch(&s).unwrap();
    s.synchronize().unwrap();
    let want: Vec<f32> = values(8, 5).iter().map(|v| v + 1.0).collect();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);
}

#[test]
fn a_chain_of_launches_is_one_node_each() {
    require_cuda!();
    let s = Stream::new().unwrap();
    let k = ElementwiseKernel::new("", "float32 x", "x = x * 0.5f + 1.0f", "g_chain").unwrap();
    let x = s.with(|| Array::ones(&[4096], DType::F32)).unwrap();
    s.with(|| k.run((&x,))).unwrap(); // compiled before the capture
    let (g, ()) = s
        .capture(|| {
            for _ in 0..20 {
                k.run((&x,))?;
            }
            Ok(())
        })
        .unwrap();
    // Nothing but the kernels: no copies, memsets or cross-stream waits.
    assert_eq!(g.node_count(), 20, "{g:?}");
    g.launch(&s).unwrap();
    s.synchronize().unwrap();
    // x ← x/2 + 1, 21 times from 1: 2 - 2^-21
    let want = 2.0f32 - 0.5f32.powi(21);
    assert!(
        x.to_vec::<f32>()
            .unwrap()
            .iter()
            .all(|&v| (v - want).abs() < 1e-6)
    );
}

/// One step of the dependent chain on the host: what `chain_step` computes for element `i`.
fn chain_step_host(x: u32, k: u32, i: usize) -> u32 {
    x.wrapping_mul(2_654_435_761)
        .wrapping_add(k)
        .wrapping_add(i as u32)
}

/// A chain of 24 steps over 4·2^20 + 77 elements (a new array each step, so the pool hands
/// a step the memory two steps back freed while the kernels before it may still run), a
/// sum reduced to one element every 6 steps and folded into the next step through a 0-d
/// broadcast, a plain RawKernel and a device copy in between: each kernel reads what the
/// one before it wrote, so a dependent launch that read before its predecessor finished
/// would show here.
fn dependent_chain(x0: &Array) -> cuprum::Result<(Array, Vec<Array>)> {
    let step = ElementwiseKernel::new(
        "uint32 x, uint32 k",
        "uint32 y",
        "y = x * 2654435761u + k + (unsigned)i",
        "g_chain_step",
    )?;
    let fold = ElementwiseKernel::new(
        "uint32 x, uint64 s",
        "uint32 y",
        "y = x ^ (unsigned)s",
        "g_chain_fold",
    )?;
    let sum = ReductionKernel::new(
        "uint32 x",
        "uint64 y",
        "x",
        "a + b",
        "y = a",
        Some("0"),
        "g_chain_sum",
    )?;
    let rev = RawKernel::new(
        r#"extern "C" __global__ void g_chain_rev(const unsigned* x, unsigned* y, long long n) {
            long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = x[n - 1 - i] + 1u;
        }"#,
        "g_chain_rev",
    );
    let n = x0.size();
    let mut x = x0.copy()?;
    let mut sums = Vec::new();
    for k in 0..24u32 {
        x = step.call((&x, k))?;
        if k % 6 == 5 {
            let s = sum.call((&x,))?;
            x = fold.call((&x, &s))?;
            sums.push(s);
        }
        if k == 11 {
            let y = Array::empty(&[n], DType::U32)?;
            rev.launch((n as u32).div_ceil(256), 256, (&x, &y, n as i64))?;
            x = y.copy()?;
        }
    }
    Ok((x, sums))
}

/// [`dependent_chain`] on the host.
fn dependent_chain_host(x0: &[u32]) -> (Vec<u32>, Vec<u64>) {
    let n = x0.len();
    let mut x = x0.to_vec();
    let mut sums = Vec::new();
    for k in 0..24u32 {
        for (i, v) in x.iter_mut().enumerate() {
            *v = chain_step_host(*v, k, i);
        }
        if k % 6 == 5 {
            let s: u64 = x.iter().map(|&v| u64::from(v)).sum();
            x.iter_mut().for_each(|v| *v ^= s as u32);
            sums.push(s);
        }
        if k == 11 {
            x = (0..n).map(|i| x[n - 1 - i].wrapping_add(1)).collect();
        }
    }
    (x, sums)
}

#[test]
fn dependent_kernel_chains_read_what_the_kernel_before_wrote() {
    require_gpu!();
    let n = (4 << 20) + 77;
    let host: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995)
        .collect();
    let (want, want_sums) = dependent_chain_host(&host);
    let x0 = Array::from_slice(&host, &[n]).unwrap();
    let check = |x: &Array, sums: &[Array], what: &str| {
        let got = x.to_vec::<u32>().unwrap();
        let bad = (0..n).filter(|&i| got[i] != want[i]).count();
        assert_eq!(
            bad,
            0,
            "{what}: {bad} of {n} elements differ (first at {:?})",
            (0..n).find(|&i| got[i] != want[i])
        );
        let s: Vec<u64> = sums.iter().map(|s| s.to_vec::<u64>().unwrap()[0]).collect();
        assert_eq!(s, want_sums, "{what}: the sums");
    };
    // Eagerly, on the current stream and on a stream of its own, twice each (the second
    // time every kernel is compiled and the pool's blocks are warm).
    for round in 0..2 {
        let (x, sums) = dependent_chain(&x0).unwrap();
        check(&x, &sums, &format!("eager, round {round}"));
        let s = Stream::new().unwrap();
        let (x, sums) = s.with(|| dependent_chain(&x0)).unwrap();
        s.synchronize().unwrap();
        check(&x, &sums, &format!("eager on a new stream, round {round}"));
    }
    if !on_gpu() {
        return;
    }
    // Captured into a graph and replayed.
    let s = Stream::new().unwrap();
    let x0 = s.with(|| Array::from_slice(&host, &[n])).unwrap();
    let (g, (x, sums)) = s.capture(|| dependent_chain(&x0)).unwrap();
    for round in 0..3 {
        g.launch(&s).unwrap();
        s.synchronize().unwrap();
        check(&x, &sums, &format!("graph, round {round}"));
    }
}
