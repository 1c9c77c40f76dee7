//! Error flags that a kernel raises and the host reads after one synchronisation (the
//! index checks of `IndexMode::Raise` in `ops/indexing.rs`): slots of host memory that the
//! device writes through, so that a checked call costs its stream's synchronisation and
//! two host loads — no allocation, no memset, no device → host copy.
//!
//! - **Slots.** A slot is [`SLOT_WORDS`] `u64`s, the kernels' protocol: `[set, value]`
//!   (an `atomicCAS` from 0 to 1 on the first word elects the one thread that writes the
//!   second). Each slot has a 64-byte line of its own, carved from chunks of
//!   [`CHUNK_BYTES`] that the device's backend allocates with `alloc_mapped_forever`: on a
//!   GPU page-locked host memory mapped into its address space (`cuMemHostAlloc` with
//!   `DEVICEMAP | PORTABLE`), on the host device ordinary memory (its kernels address host
//!   memory directly). Chunks are never freed: no slot can dangle under a kernel still
//!   running, and the memory held is bounded by the most flags in use at once.
//! - **Ownership.** Each device has a free list of slots (one process-wide `Mutex`, held for
//!   one pop or push, or while a chunk is allocated). An [`ErrorFlag`] pops a slot and is
//!   its only owner until it pushes it back: a slot in use by one call (one thread, one
//!   stream) is never handed to another meanwhile.
//! - **One call.** [`ErrorFlag::acquire`] zeroes the slot from the host (volatile writes,
//!   then a fence: they are stored before the launch that follows); the kernel, launched
//!   on the same stream, gets [`ErrorFlag::device_ptr`]; [`ErrorFlag::wait`] synchronises
//!   that stream, reads the slot with volatile reads, pushes it back, and then reports a
//!   Rust kernel's fault, as every synchronisation does.
//! - **Graph capture is refused at acquire**, before anything is launched: a captured
//!   kernel would write the slot at every replay, long after the slot went back to the
//!   list, and nothing would read it (the read needs the kernel to have run).
//! - **Every path gives the slot back, unless the device may still write it.** A flag
//!   dropped without `wait` (the launch failed, or an error or a panic came between
//!   acquire and wait) synchronises its stream first. When that synchronisation, or
//!   `wait`'s, fails, the slot is retired, never reused: a kernel that may still be queued
//!   would otherwise write into another call's flag. That costs one 64-byte line per
//!   failed synchronisation (in practice, a broken context).
//! - **Visibility.** Host writes made before a launch are seen by the kernel, and the
//!   kernel's writes to mapped memory are visible to the host once the synchronisation of
//!   its stream has returned (on the host device, once the launch call has). The kernels'
//!   `atomicCAS` on mapped memory is atomic among the launch's own threads (CUDA: not
//!   towards the host or other devices), which is all the protocol needs: neither touches
//!   the slot while the kernel runs.

use super::capture::refuse_in_capture;
use super::stream::Stream;
use crate::error::Result;
use std::sync::atomic::{Ordering, fence};
use std::sync::{Mutex, MutexGuard};

/// The `u64`s of a slot that kernels write: `[set, value]`.
pub(crate) const SLOT_WORDS: usize = 2;

/// Bytes between slots (a cache line each).
const SLOT_STRIDE: usize = 64;

/// Bytes of one chunk of slots (a page: what `cuMemHostAlloc` rounds up to anyway).
const CHUNK_BYTES: usize = 4096;

const _: () = assert!(SLOT_WORDS * 8 <= SLOT_STRIDE && CHUNK_BYTES.is_multiple_of(SLOT_STRIDE));

/// One slot: its host address and the address the device's kernels use.
#[derive(Clone, Copy)]
struct Slot {
    host: *mut u64,
    device: u64,
}

// SAFETY: a slot addresses a line of a chunk that is never freed, so the pointer is valid
// on every thread; who may touch it is decided by the free list (one owner at a time).
unsafe impl Send for Slot {}

/// The free slots of one device.
struct DeviceSlots {
    ordinal: usize,
    free: Vec<Slot>,
}

static FREE: Mutex<Vec<DeviceSlots>> = Mutex::new(Vec::new());

fn free_lists() -> MutexGuard<'static, Vec<DeviceSlots>> {
    FREE.lock().unwrap_or_else(|p| p.into_inner())
}

/// A free slot of `stream`'s device (a fresh chunk allocated when there is none).
fn pop_slot(stream: &Stream) -> Result<Slot> {
    let device = stream.device();
    let ordinal = device.ordinal();
    let mut lists = free_lists();
    let i = match lists.iter().position(|d| d.ordinal == ordinal) {
        Some(i) => i,
        None => {
            lists.push(DeviceSlots {
                ordinal,
                free: Vec::new(),
            });
            lists.len() - 1
        }
    };
    let free = &mut lists[i].free;
    if let Some(slot) = free.pop() {
        return Ok(slot);
    }
    let chunk = device.backend().alloc_mapped_forever(CHUNK_BYTES)?;
    let slot_at = |k: usize| Slot {
        host: chunk.host.wrapping_add(k * SLOT_STRIDE).cast::<u64>(),
        device: chunk.device + (k * SLOT_STRIDE) as u64,
    };
    free.extend((1..CHUNK_BYTES / SLOT_STRIDE).rev().map(slot_at));
    Ok(slot_at(0))
}

/// Gives `slot` back to the free list of device `ordinal`.
fn push_slot(ordinal: usize, slot: Slot) {
    let mut lists = free_lists();
    if let Some(d) = lists.iter_mut().find(|d| d.ordinal == ordinal) {
        d.free.push(slot);
    }
}

/// What became of a flag's slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Handed to a kernel that may not have run yet.
    Pending,
    /// Read after its stream was synchronised: free to go back.
    Read,
    /// The device may still write it: never reused.
    Retired,
}

/// One error flag: a zeroed slot of mapped host memory for the kernels of one call on one
/// stream, read after that stream is synchronised, given back when dropped (see the module
/// docs).
pub(crate) struct ErrorFlag {
    slot: Slot,
    stream: Stream,
    state: State,
}

impl ErrorFlag {
    /// A zeroed flag for kernels launched on `stream`; an error naming `what` while
    /// `stream` is being captured into a graph.
    pub(crate) fn acquire(stream: &Stream, what: &str) -> Result<ErrorFlag> {
        refuse_in_capture(what, stream)?;
        let slot = pop_slot(stream)?;
        for w in 0..SLOT_WORDS {
            // SAFETY: the slot is `SLOT_WORDS` aligned `u64`s (64-byte aligned lines) of a
            // chunk that is never freed, popped from the free list, so this flag owns it
            // alone; no kernel writes it any more: its last owner synchronised the stream of
            // its kernel before giving it back.
            unsafe { slot.host.add(w).write_volatile(0) };
        }
        fence(Ordering::SeqCst);
        Ok(ErrorFlag {
            slot,
            stream: stream.clone(),
            state: State::Pending,
        })
    }

    /// The address the kernels write the flag at.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.slot.device
    }

    /// Waits for the work queued on the flag's stream, then reads the flag (`[set,
    /// value]`) and gives its slot back. A fault a Rust kernel recorded meanwhile is
    /// reported here, as after any synchronisation.
    pub(crate) fn wait(mut self) -> Result<[u64; SLOT_WORDS]> {
        if let Err(e) = self.synchronize() {
            self.state = State::Retired;
            return Err(e);
        }
        fence(Ordering::SeqCst);
        let mut v = [0u64; SLOT_WORDS];
        for (w, x) in v.iter_mut().enumerate() {
            // SAFETY: as in `acquire`, the slot is this flag's alone; the stream of the
            // kernels given its address has been synchronised, so none of them still writes
            // it.
            *x = unsafe { self.slot.host.add(w).read_volatile() };
        }
        self.state = State::Read;
        let device = self.stream.device();
        drop(self);
        device.check_kernel_faults()?;
        Ok(v)
    }

    /// Waits for the work queued on the flag's stream (without reporting a Rust kernel's
    /// fault: the caller does, or leaves it to the next synchronisation).
    fn synchronize(&self) -> Result<()> {
        refuse_in_capture("reading an error flag", &self.stream)?;
        let device = self.stream.device();
        device.bind()?;
        device.backend().synchronize_stream(self.stream.raw())
    }
}

impl Drop for ErrorFlag {
    fn drop(&mut self) {
        let give_back = match self.state {
            State::Read => true,
            State::Retired => false,
            State::Pending => self.synchronize().is_ok(),
        };
        if give_back {
            push_slot(self.stream.device().ordinal(), self.slot);
        }
    }
}
