//! The host-transfer workloads: 1 GiB (and 64 MiB) each way between the GPU and ordinary
//! Rust memory (`from_slice`, `to_vec` into a fresh vector, `copy_to_slice` into an existing
//! one), the same through pinned memory (the link's speed, which the ordinary-memory rows
//! are judged against), and the chunked three-stream pipeline (upload, compute, download
//! overlapped) beside its slowest stage alone. A transfer call is synchronous, so its GPU
//! time (events around the call on the current stream) is its wall time.

use super::timed::{R, Timed};
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::{Array, DType, ElementwiseKernel, Event, HostCopy, PinnedBuffer, Stream};

const GIB: usize = 1 << 30;
const MIB64: usize = 64 << 20;

/// Random-looking float32 host data of `bytes` bytes (never zeros).
fn host_data(bytes: usize) -> Vec<f32> {
    (0..bytes / 4).map(|i| (i % 1013) as f32 + 0.5).collect()
}

fn h2d_pageable(o: &BenchmarkOptions, name: &str, bytes: usize) -> R<Timed> {
    let v = host_data(bytes);
    let r = benchmark(name, || Array::from_slice(&v, &[v.len()]).map(drop), o)?;
    Ok((r, bytes as u64))
}

fn d2h_pageable(o: &BenchmarkOptions, name: &str, bytes: usize) -> R<Timed> {
    let a = Array::from_slice(&host_data(bytes), &[bytes / 4])?;
    let r = benchmark(name, || a.to_vec::<f32>().map(drop), o)?;
    Ok((r, bytes as u64))
}

pub fn h2d_1gib_pageable(o: &BenchmarkOptions) -> R<Timed> {
    h2d_pageable(o, "h2d_1GiB_pageable", GIB)
}

pub fn d2h_1gib_pageable(o: &BenchmarkOptions) -> R<Timed> {
    d2h_pageable(o, "d2h_1GiB_pageable", GIB)
}

pub fn h2d_64mib_pageable(o: &BenchmarkOptions) -> R<Timed> {
    h2d_pageable(o, "h2d_64MiB_pageable", MIB64)
}

pub fn d2h_64mib_pageable(o: &BenchmarkOptions) -> R<Timed> {
    d2h_pageable(o, "d2h_64MiB_pageable", MIB64)
}

pub fn d2h_1gib_into(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::from_slice(&host_data(GIB), &[GIB / 4])?;
    let mut out = vec![0f32; GIB / 4];
    let r = benchmark("d2h_1GiB_into", || a.copy_to_slice(&mut out), o)?;
    Ok((r, GIB as u64))
}

pub fn h2d_1gib_pinned(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::empty(&[GIB / 4], DType::F32)?;
    let s = Stream::current()?;
    let mut buf = PinnedBuffer::from_slice(&host_data(GIB))?;
    let r = benchmark(
        "h2d_1GiB_pinned",
        || {
            let b = std::mem::replace(&mut buf, PinnedBuffer::zeroed(0)?);
            buf = a.copy_from_host_async(b, &s)?.wait()?;
            Ok(())
        },
        o,
    )?;
    Ok((r, GIB as u64))
}

pub fn d2h_1gib_pinned(o: &BenchmarkOptions) -> R<Timed> {
    let a = Array::from_slice(&host_data(GIB), &[GIB / 4])?;
    let s = Stream::current()?;
    let mut buf = PinnedBuffer::<f32>::zeroed(GIB / 4)?;
    let r = benchmark(
        "d2h_1GiB_pinned",
        || {
            let b = std::mem::replace(&mut buf, PinnedBuffer::zeroed(0)?);
            buf = a.copy_to_host_async(b, &s)?.wait()?;
            Ok(())
        },
        o,
    )?;
    Ok((r, GIB as u64))
}

/// The pipeline's data: 4 GiB of float32 in 256 chunks of 16 MiB, each way, pinned (small
/// chunks keep the unoverlapped first upload and last download short).
struct Pipeline {
    input: Vec<PinnedBuffer<f32>>,
    output: Vec<PinnedBuffer<f32>>,
    /// Three device slots (in, out) reused in turn.
    slots: Vec<(Array, Array)>,
    kernel: ElementwiseKernel,
    streams: [Stream; 3],
}

const CHUNKS: usize = 256;
const CHUNK: usize = (16 << 20) / 4;

impl Pipeline {
    fn new() -> R<Pipeline> {
        let data = host_data(CHUNK * 4);
        let mut input = Vec::new();
        let mut output = Vec::new();
        for _ in 0..CHUNKS {
            input.push(PinnedBuffer::from_slice(&data)?);
            output.push(PinnedBuffer::<f32>::zeroed(CHUNK)?);
        }
        let mut slots = Vec::new();
        for _ in 0..3 {
            slots.push((
                Array::empty(&[CHUNK], DType::F32)?,
                Array::empty(&[CHUNK], DType::F32)?,
            ));
        }
        let kernel =
            ElementwiseKernel::new("float32 x", "float32 y", "y = x * 2.0f + 1.0f", "pipe")?;
        Ok(Pipeline {
            input,
            output,
            slots,
            kernel,
            streams: [Stream::new()?, Stream::new()?, Stream::new()?],
        })
    }

    /// Upload chunk k+1, compute chunk k and download chunk k−1 at once, each stage on its
    /// own stream, ordered by events (a copy's own event, [`cuprum::HostCopy::event`], as
    /// CuPy's twin records one event a copy: two more after each copy took the pipeline
    /// from 89.8 to 92.2 ms on an H100);
    /// `stages` picks which stages run (all three: the pipeline; one: that stage alone).
    fn run(&mut self, stages: [bool; 3]) -> cuprum::Result<()> {
        let [up, comp, down] = &self.streams;
        let mut uploads: Vec<HostCopy<f32>> = Vec::new();
        let mut computed: Vec<Event> = Vec::new();
        let mut downloads: Vec<HostCopy<f32>> = Vec::new();
        for step in 0..CHUNKS + 2 {
            if step < CHUNKS && stages[0] {
                let (d_in, _) = &self.slots[step % 3];
                if step >= 3 && stages[1] {
                    // The slot's last reader (compute of chunk step − 3) must be done.
                    up.wait_event(&computed[step - 3])?;
                }
                let b = std::mem::replace(&mut self.input[step], PinnedBuffer::zeroed(0)?);
                uploads.push(d_in.copy_from_host_async(b, up)?);
            }
            if (1..=CHUNKS).contains(&step) && stages[1] {
                let k = step - 1;
                let (d_in, d_out) = &self.slots[k % 3];
                if stages[0] {
                    comp.wait_event(uploads[k].event())?;
                }
                if k >= 3 && stages[2] {
                    // The output slot's last reader (download of chunk k − 3) must be done.
                    comp.wait_event(downloads[k - 3].event())?;
                }
                comp.with(|| self.kernel.run((d_in, d_out)))?;
                let e = Event::new()?;
                e.record(comp)?;
                computed.push(e);
            }
            if step >= 2 && stages[2] {
                let k = step - 2;
                let (_, d_out) = &self.slots[k % 3];
                if stages[1] {
                    down.wait_event(&computed[k])?;
                }
                let b = std::mem::replace(&mut self.output[k], PinnedBuffer::zeroed(0)?);
                downloads.push(d_out.copy_to_host_async(b, down)?);
            }
        }
        for (k, copy) in uploads.into_iter().enumerate() {
            self.input[k] = copy.wait()?;
        }
        for (k, copy) in downloads.into_iter().enumerate() {
            self.output[k] = copy.wait()?;
        }
        comp.synchronize()
    }
}

/// Bytes over the link in the pipeline: 4 GiB up and 4 GiB down.
const PIPE_BYTES: u64 = 2 * (CHUNKS * CHUNK * 4) as u64;

pub fn pipeline_4gib(o: &BenchmarkOptions) -> R<Timed> {
    let mut p = Pipeline::new()?;
    let o = short(o);
    let r = benchmark("pipeline_4GiB_3streams", || p.run([true; 3]), &o)?;
    Ok((r, PIPE_BYTES))
}

/// The slowest of the pipeline's three stages run alone (upload only, compute only,
/// download only), the bound the overlapped pipeline is judged against.
pub fn pipeline_slowest_stage(o: &BenchmarkOptions) -> R<Timed> {
    let mut p = Pipeline::new()?;
    let o = short(o);
    let mut slowest = None;
    for (i, stage) in ["upload", "compute", "download"].iter().enumerate() {
        let mut only = [false; 3];
        only[i] = true;
        let name = format!("pipeline_4GiB_{stage}_alone");
        let r = benchmark(&name, || p.run(only), &o)?;
        if slowest
            .as_ref()
            .is_none_or(|s: &cuprum::profiler::PerfCaseResult| r.gpu().median > s.gpu().median)
        {
            slowest = Some(r);
        }
    }
    let r = slowest.ok_or("no stage ran")?;
    Ok((r, 0))
}

/// Few repeats for the 4 GiB cases (each takes ~0.1 s).
fn short(o: &BenchmarkOptions) -> BenchmarkOptions {
    let mut s = o.clone();
    s.n_repeat = s.n_repeat.min(10);
    s.n_warmup = s.n_warmup.min(1);
    s
}
