//! CUDA Graphs against eager launches: a chain of 20 small ElementwiseKernel calls (4096
//! float32, each `x = x * 0.5 + 1` in place) launched one by one, and the same chain
//! captured once into a graph and replayed with one launch. Both run on a stream of their
//! own (a capture needs one), made current for the timing.
//!
//! The replay is level with CuPy's (0.99, 0.90 and 1.00 of CuPy's time in three H100 runs
//! of 2026-12-06: launch latency, run-to-run noise of a few µs). Timed the other way (CuPy's
//! `benchmark`, one H100 run), 20 raw kernels of every launch shape took 23.4–28.4 µs (one
//! float4 per thread in 4 blocks of 256, cuprum's shape, 24.5; one float per thread in
//! 16 blocks of 256, 24.4; CuPy's ElementwiseKernel 23.8–25.2), and an event recorded
//! after each replay, which `Graph::launch` adds to know when its runs end, cost nothing
//! (23.46 against 23.42 µs): no launch shape or bookkeeping is left to gain.

use super::timed::{R, Timed};
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::{Array, DType, ElementwiseKernel, Stream};

const N: usize = 4096;
const CALLS: usize = 20;

fn chain() -> R<(ElementwiseKernel, Array, Stream)> {
    let k = ElementwiseKernel::new("", "float32 x", "x = x * 0.5f + 1.0f", "chain_step")?;
    let s = Stream::new()?;
    let x = s.with(|| Array::ones(&[N], DType::F32))?;
    s.with(|| k.run((&x,)))?; // compiled outside the timing
    Ok((k, x, s))
}

pub fn eager_chain20(o: &BenchmarkOptions) -> R<Timed> {
    let (k, x, s) = chain()?;
    let r = s.with(|| {
        benchmark(
            "eager_chain20_4K",
            || {
                for _ in 0..CALLS {
                    k.run((&x,))?;
                }
                Ok(())
            },
            o,
        )
    })?;
    Ok((r, 0))
}

pub fn graph_chain20(o: &BenchmarkOptions) -> R<Timed> {
    let (k, x, s) = chain()?;
    let (g, ()) = s.capture(|| {
        for _ in 0..CALLS {
            k.run((&x,))?;
        }
        Ok(())
    })?;
    let r = s.with(|| benchmark("graph_chain20_4K", || g.launch(&s), o))?;
    Ok((r, 0))
}
