//! Overlapping transfers with compute: a chunked pipeline on three streams. While chunk
//! k+1 is uploaded (stream `up`), chunk k is computed (`y = 2x + 1`, stream `comp`) and chunk
//! k−1 downloaded (stream `down`); events order each chunk's stages and keep a device slot
//! from being overwritten while it is still read (three slots in turn). A copy's own event
//! ([`HostCopy::event`]) orders what follows it: no second event is recorded after a copy. Host memory is
//! pinned ([`PinnedBuffer`]), so the copies are asynchronous and run at the link's speed;
//! each copy owns its buffer until it has finished ([`HostCopy`]).
//!
//! Prints the pipeline's time beside each stage run alone: overlapped, the whole takes
//! little more than its slowest stage. Every output value is checked exactly. 1 GiB each
//! way on a GPU (`CUPRUM_PIPELINE_MIB` to change it), 64 MiB on the host device.

use cuprum::{Array, DType, Device, ElementwiseKernel, Event, HostCopy, PinnedBuffer, Stream};
use std::time::Instant;

const CHUNK: usize = 16 << 20; // float32 elements: 64 MiB

struct Pipeline {
    input: Vec<PinnedBuffer<f32>>,
    output: Vec<PinnedBuffer<f32>>,
    slots: Vec<(Array, Array)>,
    kernel: ElementwiseKernel,
    streams: [Stream; 3],
}

impl Pipeline {
    fn new(chunks: usize, chunk: usize) -> cuprum::Result<Pipeline> {
        let mut input = Vec::new();
        let mut output = Vec::new();
        for c in 0..chunks {
            let data: Vec<f32> = (0..chunk)
                .map(|i| ((c * chunk + i) % 4099) as f32)
                .collect();
            input.push(PinnedBuffer::from_slice(&data)?);
            output.push(PinnedBuffer::zeroed(chunk)?);
        }
        let mut slots = Vec::new();
        for _ in 0..3 {
            slots.push((
                Array::empty(&[chunk], DType::F32)?,
                Array::empty(&[chunk], DType::F32)?,
            ));
        }
        Ok(Pipeline {
            input,
            output,
            slots,
            kernel: ElementwiseKernel::new(
                "float32 x",
                "float32 y",
                "y = x * 2 + 1",
                "twice_plus_one",
            )?,
            streams: [Stream::new()?, Stream::new()?, Stream::new()?],
        })
    }

    /// Runs the stages `stages` selects (upload, compute, download) over every chunk.
    fn run(&mut self, stages: [bool; 3]) -> cuprum::Result<()> {
        let chunks = self.input.len();
        let [up, comp, down] = &self.streams;
        let mut computed = Vec::new();
        let mut uploads: Vec<HostCopy<f32>> = Vec::new();
        let mut downloads: Vec<HostCopy<f32>> = Vec::new();
        for step in 0..chunks + 2 {
            if step < chunks && stages[0] {
                if step >= 3 && stages[1] {
                    up.wait_event(&computed[step - 3])?; // slot free: its compute is done
                }
                let buf = std::mem::replace(&mut self.input[step], PinnedBuffer::zeroed(0)?);
                uploads.push(self.slots[step % 3].0.copy_from_host_async(buf, up)?);
            }
            if (1..=chunks).contains(&step) && stages[1] {
                let k = step - 1;
                if stages[0] {
                    comp.wait_event(uploads[k].event())?;
                }
                if k >= 3 && stages[2] {
                    comp.wait_event(downloads[k - 3].event())?; // output slot read out
                }
                let (x, y) = &self.slots[k % 3];
                comp.with(|| self.kernel.run((x, y)))?;
                let done = Event::new()?;
                done.record(comp)?;
                computed.push(done);
            }
            if step >= 2 && stages[2] {
                let k = step - 2;
                if stages[1] {
                    down.wait_event(&computed[k])?;
                }
                let buf = std::mem::replace(&mut self.output[k], PinnedBuffer::zeroed(0)?);
                downloads.push(self.slots[k % 3].1.copy_to_host_async(buf, down)?);
            }
        }
        for (k, c) in uploads.into_iter().enumerate() {
            self.input[k] = c.wait()?;
        }
        for (k, c) in downloads.into_iter().enumerate() {
            self.output[k] = c.wait()?;
        }
        comp.synchronize()
    }
}

fn ms(f: impl FnOnce() -> cuprum::Result<()>) -> cuprum::Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

fn main() -> cuprum::Result<()> {
    let host = Device::current()?.is_host();
    let mib: usize = std::env::var("CUPRUM_PIPELINE_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if host { 64 } else { 1024 });
    let chunk = if host { CHUNK / 16 } else { CHUNK };
    let chunks = (mib << 20) / 4 / chunk;
    let mut p = Pipeline::new(chunks.max(1), chunk)?;
    p.run([true; 3])?; // warm-up: compiles the kernel, touches every buffer
    let whole = ms(|| p.run([true; 3]))?;
    let alone = [
        ms(|| p.run([true, false, false]))?,
        ms(|| p.run([false, true, false]))?,
        ms(|| p.run([false, false, true]))?,
    ];
    p.run([true; 3])?;
    let mut bad = 0usize;
    for (c, out) in p.output.iter().enumerate() {
        for (i, &y) in out.iter().enumerate() {
            let x = ((c * chunk + i) % 4099) as f32;
            bad += usize::from(y != x * 2.0 + 1.0);
        }
    }
    let slowest = alone.iter().cloned().fold(0.0, f64::max);
    println!(
        "overlap_pipeline: {} MiB each way in {} chunks: pipeline {whole:.1} ms; alone: upload {:.1}, compute {:.1}, download {:.1} ms (pipeline / slowest = {:.2}); {bad} wrong values: {}",
        (chunks * chunk * 4) >> 20,
        p.input.len(),
        alone[0],
        alone[1],
        alone[2],
        whole / slowest,
        if bad == 0 { "OK" } else { "FAILED" }
    );
    if bad != 0 {
        std::process::exit(1);
    }
    Ok(())
}
