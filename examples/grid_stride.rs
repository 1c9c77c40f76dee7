//! Seed: "Grid-Stride Loops" — `simulate_grid_stride([1..10], num_threads=4)` run for real:
//! a RawKernel of 4 threads (2 blocks × 2) squares 10 int32, each thread starting at its
//! global id and striding by the total thread count; every step prints `Thread tid: data[i]
//! = v -> v*v`, then the host prints `Squared: [...]`. The squares and each element's block
//! and thread are checked exactly against the seed's simulation. Runs on a GPU, or on the
//! host device (the CPU) without one. The printed lines come in the order the threads ran,
//! which may differ between devices and runs (the seed's simulation prints thread by
//! thread); the check reads the recorded arrays, not the printed order.
//! The kernel, the simulation and the check are in `seeds/` (`indexing.rs`), shared with
//! `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

use seeds::indexing::{Lines, grid_stride};

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("grid_stride", || grid_stride(Lines::Print))
}
