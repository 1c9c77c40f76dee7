//! Thread indices, barriers, warp operations and loops of kernels written in Rust. Each has
//! a host body so that `#[cuprum::device]` functions run on the CPU: there the "grid" is
//! one thread (indices 0, dimensions 1), barriers do nothing and a warp is one lane.

use super::num::IntIndex;

/// A thread, block or grid coordinate (CUDA's `uint3`): `thread_idx().x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UInt3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

const ZERO: UInt3 = UInt3 { x: 0, y: 0, z: 0 };
const ONE: UInt3 = UInt3 { x: 1, y: 1, z: 1 };

/// The thread's index in its block (`threadIdx`).
pub fn thread_idx() -> UInt3 {
    ZERO
}
/// The block's index in the grid (`blockIdx`).
pub fn block_idx() -> UInt3 {
    ZERO
}
/// Threads per block (`blockDim`).
pub fn block_dim() -> UInt3 {
    ONE
}
/// Blocks per grid (`gridDim`).
pub fn grid_dim() -> UInt3 {
    ONE
}
/// `block_idx().x * block_dim().x + thread_idx().x`, computed in 64 bits.
pub fn global_index() -> usize {
    0
}
/// `block_dim().x * grid_dim().x` (threads in the grid along x), in 64 bits.
pub fn global_size() -> usize {
    1
}
/// The thread's lane in its warp (0..32).
pub fn lane_id() -> u32 {
    0
}
/// Threads per warp.
pub const WARP_SIZE: u32 = 32;
/// Every lane of a warp (`0xffffffff`), the usual mask of the `*_sync` operations.
pub const FULL_MASK: u32 = 0xffff_ffff;
/// The mask of the warp's lanes that are running (`__activemask()`).
pub fn active_mask() -> u32 {
    1
}
/// The SM's cycle counter (`clock64()`).
pub fn clock64() -> u64 {
    0
}

/// Block-wide barrier (`__syncthreads()`): every thread of the block must reach it.
pub fn sync_threads() {}
/// Barrier that also counts the threads whose `pred` is true.
pub fn sync_threads_count(pred: bool) -> i32 {
    pred as i32
}
/// Barrier; true when `pred` is true in every thread.
pub fn sync_threads_and(pred: bool) -> bool {
    pred
}
/// Barrier; true when `pred` is true in some thread.
pub fn sync_threads_or(pred: bool) -> bool {
    pred
}
/// Warp barrier over the lanes of `mask` (`__syncwarp`).
pub fn sync_warp(mask: u32) {
    let _ = mask;
}
/// Grid-wide barrier: every thread of every block must reach it. A kernel that calls it
/// is launched cooperatively (all blocks resident at once; the launcher checks the grid
/// fits). Only in kernel bodies.
pub fn grid_sync() {}
/// Orders this thread's memory accesses for the whole device (`__threadfence()`).
pub fn thread_fence() {}
/// Orders this thread's memory accesses for its block (`__threadfence_block()`).
pub fn thread_fence_block() {}
/// Orders this thread's memory accesses for the device and the host.
pub fn thread_fence_system() {}

/// The value of `v` in lane `src_lane` (`__shfl_sync`).
pub fn shfl_sync<T: super::Scalar>(mask: u32, v: T, src_lane: u32) -> T {
    let _ = (mask, src_lane);
    v
}
/// The value of `v` in lane `lane_id() - delta` (or its own).
pub fn shfl_up_sync<T: super::Scalar>(mask: u32, v: T, delta: u32) -> T {
    let _ = (mask, delta);
    v
}
/// The value of `v` in lane `lane_id() + delta` (or its own).
pub fn shfl_down_sync<T: super::Scalar>(mask: u32, v: T, delta: u32) -> T {
    let _ = (mask, delta);
    v
}
/// The value of `v` in lane `lane_id() ^ lane_mask`.
pub fn shfl_xor_sync<T: super::Scalar>(mask: u32, v: T, lane_mask: u32) -> T {
    let _ = (mask, lane_mask);
    v
}
/// Bit k set when `pred` is true in lane k (`__ballot_sync`).
pub fn ballot_sync(mask: u32, pred: bool) -> u32 {
    mask & (pred as u32)
}
/// Whether `pred` is true in every lane of `mask`.
pub fn all_sync(mask: u32, pred: bool) -> bool {
    let _ = mask;
    pred
}
/// Whether `pred` is true in some lane of `mask`.
pub fn any_sync(mask: u32, pred: bool) -> bool {
    let _ = mask;
    pred
}

/// The indices `i` in `0..n` this thread handles in a grid-stride loop:
/// `for i in grid_stride(n) { … }` starts at `global_index()` and steps by
/// `global_size()`; `i` has `n`'s type (u32/i32 stay 32-bit; usize is 64-bit). On the
/// host: all of `0..n`.
///
/// ```
/// let v: Vec<u32> = cuprum::gpu::grid_stride(4u32).collect();
/// assert_eq!(v, [0, 1, 2, 3]);
/// ```
pub fn grid_stride<I: IntIndex>(n: I) -> Stride<I> {
    Stride {
        next: 0,
        end: n.to_i128().max(0),
        _t: std::marker::PhantomData,
    }
}

/// As [`grid_stride`], within the block: from `thread_idx().x`, by `block_dim().x`.
pub fn block_stride<I: IntIndex>(n: I) -> Stride<I> {
    grid_stride(n)
}

/// The iterator of [`grid_stride`] / [`block_stride`] on the host.
pub struct Stride<I> {
    next: i128,
    end: i128,
    _t: std::marker::PhantomData<I>,
}

impl<I: IntIndex> Iterator for Stride<I> {
    type Item = I;
    fn next(&mut self) -> Option<I> {
        (self.next < self.end).then(|| {
            self.next += 1;
            I::from_i128(self.next - 1)
        })
    }
}

/// Rust's check of a type the kernel translator inferred (see `cuprum::kernel`): a
/// mismatch is a compile error pointing at the `let`.
#[doc(hidden)]
pub const fn __witness<T: ?Sized>(_: &impl __Same<T>) {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "cuprum's kernel translator typed this variable `{T}`, rustc infers `{Self}`",
    label = "annotate the type here, e.g. `let x: {Self} = …`"
)]
pub trait __Same<T: ?Sized> {}
impl<T: ?Sized> __Same<T> for T {}
