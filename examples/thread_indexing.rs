//! Seed: "Raw CUDA Kernels" — `simulate_thread_indexing(10, threads_per_block=4)` run for
//! real: a RawKernel over 3 blocks × 4 threads prints `Block b, Thread t -> Global ID g ->
//! data[g]` for each of 10 elements, and records each element's block and thread, checked
//! exactly against the seed's simulation. Runs on a GPU, or on the host device (the CPU)
//! without one. The printed lines come in the order the threads ran, which may differ
//! between devices and runs (the seed's simulation prints block by block); the check reads
//! the recorded arrays, not the printed order.
//! The kernel, the simulation and the check are in `seeds/` (`indexing.rs`), shared with
//! `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

use seeds::indexing::{Lines, thread_indexing};

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("thread_indexing", || thread_indexing(Lines::Print))
}
