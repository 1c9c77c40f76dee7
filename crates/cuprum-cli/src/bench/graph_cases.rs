//! CUDA Graphs against eager launches: a chain of 20 small ElementwiseKernel calls (4096
//! float32, each `x = x * 0.5 + 1` in place) launched one by one, and the same chain
//! captured once into a graph and replayed with one launch. Both run on a stream of their
//! own (a capture needs one), made current for the timing.

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
