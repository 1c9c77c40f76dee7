//! Seed 000's execution model, run for real: which block and thread handle which element,
//! one thread per element (`simulate_thread_indexing`) and through a grid-stride loop
//! (`simulate_grid_stride`). Each kernel prints its lines with `printf` as the seed's
//! simulation prints them, and records the block and thread of every element in arrays
//! that are checked, exactly, against the simulation written here on the host. The order
//! of the printed lines is the GPU's (or the host device's worker threads'): it may differ
//! between devices and runs, so the checks read the recorded arrays, never the printed
//! order. A module of `seeds` (mod.rs).

use super::check::{Checked, list};
use cuprum::DType::I32;
use cuprum::{Array, RawKernel};

type R<T> = cuprum::Result<T>;

/// One thread per element: `thread_indexing(block_of, thread_of, n, verbose)`.
pub const THREAD_INDEXING_CU: &str = include_str!("../kernels/thread_indexing.cu");
/// The grid-stride loop: `grid_stride_square(data, result, block_of, thread_of, n, verbose)`.
pub const GRID_STRIDE_CU: &str = include_str!("../kernels/grid_stride_square.cu");

/// The seed's `simulate_thread_indexing(10, threads_per_block=4)`.
pub const INDEXING_N: usize = 10;
pub const INDEXING_BLOCK: u32 = 4;
/// The seed's `simulate_grid_stride(data, num_threads=4)`: 4 threads, as 2 blocks of 2 (so
/// the stride, `blockDim.x * gridDim.x`, spans blocks).
pub const GRID_STRIDE_DATA: [i32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
pub const GRID_STRIDE_BLOCKS: u32 = 2;
pub const GRID_STRIDE_THREADS: u32 = 2;

/// Whether a run prints the seed's lines (the checked call) or stays quiet (timed calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    Print,
    Quiet,
}

impl Lines {
    fn flag(self) -> i32 {
        i32::from(self == Lines::Print)
    }
}

/// Who handled one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handled {
    pub index: usize,
    pub block: u32,
    pub thread: u32,
}

/// The seed's `simulate_thread_indexing(n, threads_per_block)` on the host: the number of
/// blocks and, in the seed's order, who handles each element.
pub fn simulate_thread_indexing(n: usize, threads_per_block: u32) -> (u32, Vec<Handled>) {
    let tpb = threads_per_block as usize;
    let blocks = n.div_ceil(tpb);
    let mut out = Vec::new();
    for block in 0..blocks {
        for thread in 0..tpb {
            let index = block * tpb + thread;
            if index < n {
                out.push(Handled {
                    index,
                    block: block as u32,
                    thread: thread as u32,
                });
            }
        }
    }
    (blocks as u32, out)
}

/// The seed's `simulate_grid_stride(data, num_threads)` on the host: the squares and, in
/// the seed's order, `(global thread id, index)` of every step.
pub fn simulate_grid_stride(data: &[i32], num_threads: usize) -> (Vec<i32>, Vec<(usize, usize)>) {
    let mut result = vec![0; data.len()];
    let mut steps = Vec::new();
    for tid in 0..num_threads {
        let mut idx = tid;
        while idx < data.len() {
            result[idx] = data[idx] * data[idx];
            steps.push((tid, idx));
            idx += num_threads;
        }
    }
    (result, steps)
}

/// Hands what the kernels' `printf` wrote to the process's standard output now. A GPU's
/// printf lines reach the C library's `stdout` at the synchronisation after the launch, the
/// host device's as the kernel runs; either way they may wait in the C library's buffer
/// (a pipe or a file is fully buffered), behind which Rust's own lines would overtake them.
pub fn flush_kernel_output() {
    unsafe extern "C" {
        fn fflush(stream: *mut std::ffi::c_void) -> std::ffi::c_int;
    }
    // SAFETY: fflush(NULL) flushes every open C output stream; it takes no pointer to
    // read or write.
    unsafe {
        fflush(std::ptr::null_mut());
    }
}

/// Elements whose recorded `(block, thread)` differ from `want`: their indices.
fn mismatches(want: &[Handled], block_of: &[i32], thread_of: &[i32]) -> Vec<usize> {
    want.iter()
        .filter(|h| {
            block_of.get(h.index) != Some(&(h.block as i32))
                || thread_of.get(h.index) != Some(&(h.thread as i32))
        })
        .map(|h| h.index)
        .collect()
}

/// `b.t` per element (`0.0 0.1 …`).
fn pairs(block_of: &[i32], thread_of: &[i32]) -> String {
    let v: Vec<String> = block_of
        .iter()
        .zip(thread_of)
        .map(|(b, t)| format!("{b}.{t}"))
        .collect();
    v.join(" ")
}

/// `"; elements [i, j] off the simulation"` when some are, else nothing.
fn off_simulation(bad: &[usize]) -> String {
    if bad.is_empty() {
        String::new()
    } else {
        format!("; elements {} off the simulation", list(bad))
    }
}

/// `-1` for every element: an element no thread handled stays visibly unhandled.
fn unhandled(n: usize) -> R<Array> {
    Array::from_slice(&vec![-1i32; n], &[n])
}

/// `simulate_thread_indexing(10, threads_per_block=4)` as a RawKernel: 3 blocks × 4
/// threads over 10 elements (the last block's last two threads idle). Prints the seed's
/// `Grid: …` line, then each thread's line with [`Lines::Print`]; checks each element's
/// block and thread against the simulation. Timed: the quiet launch.
pub fn thread_indexing(lines: Lines) -> R<Checked> {
    let k = RawKernel::new(THREAD_INDEXING_CU, "thread_indexing");
    let (n, tpb) = (INDEXING_N, INDEXING_BLOCK);
    let (blocks, want) = simulate_thread_indexing(n, tpb);
    let (block_of, thread_of) = (unhandled(n)?, unhandled(n)?);
    if lines == Lines::Print {
        println!("Grid: {blocks} blocks x {tpb} threads");
        println!();
    }
    k.launch(blocks, tpb, (&block_of, &thread_of, n as i32, lines.flag()))?;
    let (b, t) = (block_of.to_vec::<i32>()?, thread_of.to_vec::<i32>()?);
    flush_kernel_output();
    let bad = mismatches(&want, &b, &t);
    Ok(Checked {
        result: format!("b.t per element: {}{}", pairs(&b, &t), off_simulation(&bad)),
        ok: bad.is_empty() && want.len() == n,
        timed: Box::new(move || k.launch(blocks, tpb, (&block_of, &thread_of, n as i32, 0i32))),
    })
}

/// `simulate_grid_stride([1..10], num_threads=4)` as a RawKernel: 2 blocks × 2 threads
/// square 10 int32, each thread striding by 4. Prints the seed's `Data size: …` line, each
/// step's line with [`Lines::Print`], then `Squared: […]`; checks the squares and each
/// element's block and thread against the simulation. Timed: the quiet launch.
pub fn grid_stride(lines: Lines) -> R<Checked> {
    let k = RawKernel::new(GRID_STRIDE_CU, "grid_stride_square");
    let data = GRID_STRIDE_DATA;
    let n = data.len();
    let (blocks, tpb) = (GRID_STRIDE_BLOCKS, GRID_STRIDE_THREADS);
    let threads = (blocks * tpb) as usize;
    let (squares, steps) = simulate_grid_stride(&data, threads);
    let want: Vec<Handled> = steps
        .iter()
        .map(|&(tid, index)| Handled {
            index,
            block: (tid / tpb as usize) as u32,
            thread: (tid % tpb as usize) as u32,
        })
        .collect();
    let d = Array::from_slice(&data, &[n])?;
    let result = Array::zeros(&[n], I32)?;
    let (block_of, thread_of) = (unhandled(n)?, unhandled(n)?);
    if lines == Lines::Print {
        println!("Data size: {n}, Threads: {threads}");
    }
    let args = |verbose: i32| (&d, &result, &block_of, &thread_of, n as i32, verbose);
    k.launch(blocks, tpb, args(lines.flag()))?;
    let got = result.to_vec::<i32>()?;
    let (b, t) = (block_of.to_vec::<i32>()?, thread_of.to_vec::<i32>()?);
    flush_kernel_output();
    if lines == Lines::Print {
        println!("Squared: {}", list(&got));
    }
    let bad = mismatches(&want, &b, &t);
    let ok = got == squares && bad.is_empty() && want.len() == n;
    let tids: Vec<String> = b
        .iter()
        .zip(&t)
        .map(|(b, t)| (b * tpb as i32 + t).to_string())
        .collect();
    let result_line = format!(
        "tid per element {}, squares {}{}",
        tids.join(" "),
        if got == squares { "exact" } else { "WRONG" },
        off_simulation(&bad)
    );
    Ok(Checked {
        result: result_line,
        ok,
        timed: Box::new(move || {
            k.launch(
                blocks,
                tpb,
                (&d, &result, &block_of, &thread_of, n as i32, 0i32),
            )
        }),
    })
}
