//! Copies between ordinary (pageable) host memory and a GPU at the link's speed.
//!
//! A pageable copy left to the driver runs at a fraction of the link: the driver stages it
//! through a small pinned buffer of its own on the calling thread, and a fresh destination
//! takes its first-touch page faults (the kernel zeroing each page) on that thread too.
//! Large copies here go through the device's **staging lanes** instead: [`lane_count`]
//! lanes, each a thread of one small process-wide pool, a stream of the device and two
//! pinned chunks of [`chunk`] bytes. The copy is cut into pieces (a chunk each, or less
//! for a download that whole chunks would spread over few lanes: `Job::split`) dealt to
//! the lanes in turn; each lane moves one piece between ordinary memory and one of its
//! pinned chunks (a `memcpy`, page faults included) while the copy engine moves its other
//! piece over the link. So the link stays busy and the CPU side runs on every lane at once.
//!
//! **Ordering.** The lanes' streams first wait for the work queued so far on the caller's
//! stream (an event), so a download sees what kernels wrote and an upload does not
//! overwrite memory that queued work still reads. A download returns once every byte has
//! arrived. An upload returns once the source has been read; the caller's stream then
//! waits for each lane's last copy, so later work on it (a kernel, a free) sees the data. A
//! pinned chunk is written again only after the copy that used it has finished (its event).
//!
//! **A fresh destination is bounded by the host's memory, not the link.** A new vector's
//! pages are zeroed by the kernel at first touch, then written again by the lanes' `memcpy`,
//! while the DMA writes the pinned chunks: four passes over host memory for one over the
//! link. Measured on an H100 host (16 cores, 2026-11-27, 1 GiB): first touch alone takes
//! 22 ms on 16 threads with transparent huge pages (49 ms without; 16 threads is the
//! plateau), a `memset` of existing memory 17–19 ms, the DMA into pinned memory 19.5 ms; so
//! a fresh download cannot beat ≈ 40 ms (≈ 27 GB/s) this way, and reaches 49 ms. Pinning
//! the fresh vector instead to DMA into it directly costs more (`cuMemHostRegister` of 1
//! GiB already touched: 26–34 ms, plus 20 ms to unregister; untouched: 190 ms). Programs
//! that download repeatedly reuse a destination (`copy_to_slice`: the link's speed) or a
//! `PinnedBuffer`.
//!
//! **Bounded memory.** `lane_count() × 2 × chunk()` bytes of pinned memory per device (at
//! most 64 MiB), allocated at the first large copy and freed by [`Staging::release`]
//! (`Device::release_pool_memory`, and when memory runs out). One large copy at a time uses
//! a device's lanes (another waits for the lock); copies below [`STAGED_MIN`] go through the
//! driver directly, where the staging would cost more than it saves.

use super::driver::{self, CUevent, CUstream, DResult};
use std::sync::{Mutex, OnceLock};

/// Bytes of one pinned chunk (two per lane): 2 MiB, or `CUPRUM_STAGING_CHUNK_MIB` (1 to
/// 64) MiB.
fn chunk() -> usize {
    static C: OnceLock<usize> = OnceLock::new();
    *C.get_or_init(|| {
        std::env::var("CUPRUM_STAGING_CHUNK_MIB")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .map_or(2, |m| m.clamp(1, 64))
            << 20
    })
}

/// Copies of fewer bytes go through the driver directly.
pub(super) const STAGED_MIN: usize = 4 << 20;

/// Lanes per device: the machine's hardware threads, 2 to 16, or `CUPRUM_STAGING_LANES`
/// (1 to 32). Measured on an H100 host with 16 cores: a fresh destination's page faults
/// scale with the threads taking them (16 lanes: 24 GB/s into a fresh 1 GiB vector, 8: 17),
/// while a copy into existing memory saturates the link from about 8 lanes.
fn lane_count() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        match std::env::var("CUPRUM_STAGING_LANES")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
        {
            Some(n) => n.clamp(1, 32),
            None => std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .clamp(2, 16),
        }
    })
}

/// The lanes' threads (shared by every device), or `None` when none could be started.
fn threads() -> Option<&'static rayon::ThreadPool> {
    static P: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    P.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(lane_count())
            .thread_name(|i| format!("cuprum-staging-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// One lane: a stream, two pinned chunks and the events of their last copies.
struct Lane {
    stream: CUstream,
    chunks: [*mut u8; 2],
    events: [CUevent; 2],
    /// A copy recorded on `events[i]` may still use `chunks[i]`.
    busy: [bool; 2],
}

/// A device's lanes and the event that orders them after the caller's stream.
struct Lanes {
    lanes: Vec<Lane>,
    start: CUevent,
}

// SAFETY: the handles are driver objects usable from any thread, and the chunks are
// process memory; a `Lanes` is only used under its device's lock (each lane by one thread
// at a time).
unsafe impl Send for Lanes {}
// SAFETY: a `Lane` is handed to exactly one pool thread for one copy (`&mut`).
unsafe impl Send for Lane {}

/// The event of a lane's last upload copy, handed from the lane's thread to the caller.
#[derive(Clone, Copy)]
struct LastCopy(CUevent);

// SAFETY: an event handle may be used from any thread.
unsafe impl Send for LastCopy {}

/// A device's staging lanes, made at the first large copy.
pub(super) struct Staging {
    lanes: Mutex<Option<Lanes>>,
}

/// Which way a staged copy goes.
#[derive(Clone, Copy)]
enum Way {
    /// Device → host: `host` is written.
    Down,
    /// Host → device: `host` is read.
    Up,
}

/// One staged copy, shared by the lanes.
#[derive(Clone, Copy)]
struct Job {
    way: Way,
    host: *mut u8,
    device: u64,
    bytes: usize,
    lanes: usize,
    /// Bytes of one piece (at most a pinned chunk; see `Job::pieces`).
    piece: usize,
}

// SAFETY: `host` addresses memory the caller of `Staging::download/upload` lends for the
// whole call (the lanes finish before it returns); lanes touch disjoint chunks of it.
unsafe impl Send for Job {}
// SAFETY: as above (the job is only read).
unsafe impl Sync for Job {}

impl Job {
    /// Splits the copy over `available` lanes: the piece size and the lanes used, at least
    /// four pieces per lane so each lane overlaps its copies. An upload's piece is a pinned
    /// chunk (64 MiB: 8 lanes); smaller pieces for copies of a few dozen MiB (so that every
    /// lane starts its DMA sooner) measured slower on an H100 host (2026-11-27, 64 MiB up:
    /// 512 KiB pieces on 16 lanes 20–28 GB/s, 1 MiB on 8 lanes 24 GB/s, against 2 MiB on 8
    /// lanes before). A download's piece shrinks to 1 MiB where whole chunks would leave
    /// lanes idle, since a fresh destination's page faults scale with the threads taking
    /// them: H100 host (2026-12-07, `d2h_64MiB_pageable`, one run): 2 MiB pieces on 8 lanes
    /// 5092 µs, 1 MiB on 16 lanes 3191–3238 µs, 4 MiB on 4 lanes 6997 µs.
    fn split(&mut self, available: usize) {
        self.piece = match self.way {
            Way::Up => chunk(),
            Way::Down => (self.bytes / (4 * available.max(1))).clamp(1 << 20, chunk()),
        };
        self.lanes = available.min(self.bytes.div_ceil(4 * self.piece)).max(1);
    }

    /// The `(offset, length)` of the pieces lane `l` moves, in order.
    fn chunks(&self, l: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        (l * self.piece..self.bytes)
            .step_by(self.lanes * self.piece)
            .map(|off| (off, self.piece.min(self.bytes - off)))
    }
}

impl Staging {
    pub(super) fn new() -> Staging {
        Staging {
            lanes: Mutex::new(None),
        }
    }

    /// Copies `bytes` at device address `src` into host memory at `dst`, after the work
    /// queued on `stream`; returns once every byte has arrived. `Ok(false)` when the lanes
    /// cannot be used (no pinned memory, no threads): the caller copies another way.
    ///
    /// # Safety
    /// The device's context is current; `src..src + bytes` lies in live device memory that
    /// stays allocated until this returns; `dst..dst + bytes` is host memory nobody else
    /// reads or writes meanwhile.
    pub(super) unsafe fn download(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        stream: CUstream,
        ctx: &cudarc::driver::CudaContext,
    ) -> DResult<bool> {
        let job = Job {
            way: Way::Down,
            host: dst,
            device: src,
            bytes,
            lanes: 0,
            piece: 0,
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.run(job, stream, ctx) }
    }

    /// Copies `bytes` of host memory at `src` to device address `dst`, after the work
    /// queued on `stream`; returns once `src` has been read, with `stream` waiting for the
    /// copies still in flight. `Ok(false)` as for [`download`](Staging::download).
    ///
    /// # Safety
    /// The device's context is current; `dst..dst + bytes` lies in live device memory that
    /// stays allocated until the copy has run in `stream` order; `src..src + bytes` is host
    /// memory nobody writes meanwhile.
    pub(super) unsafe fn upload(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        stream: CUstream,
        ctx: &cudarc::driver::CudaContext,
    ) -> DResult<bool> {
        let job = Job {
            way: Way::Up,
            host: src.cast_mut(),
            device: dst,
            bytes,
            lanes: 0,
            piece: 0,
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.run(job, stream, ctx) }
    }

    /// Frees the pinned chunks, streams and events (after their copies have finished).
    pub(super) fn release(&self) {
        let mut guard = self.lanes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(lanes) = guard.take() {
            free_lanes(lanes);
        }
    }

    /// # Safety
    /// As for `download` / `upload`, by `job.way`.
    unsafe fn run(
        &self,
        mut job: Job,
        stream: CUstream,
        ctx: &cudarc::driver::CudaContext,
    ) -> DResult<bool> {
        let Some(pool) = threads() else {
            return Ok(false);
        };
        let mut guard = self.lanes.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            match make_lanes() {
                Ok(l) => *guard = Some(l),
                Err(e) if driver::is_out_of_memory(&e) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        let Some(lanes) = guard.as_mut() else {
            return Ok(false);
        };
        job.split(lanes.lanes.len());
        // SAFETY: `start` and every stream are live handles of the current context.
        unsafe {
            driver::event_record(lanes.start, stream)?;
            for lane in &lanes.lanes[..job.lanes] {
                driver::stream_wait_event(lane.stream, lanes.start)?;
            }
        }
        let mut results: Vec<Option<DResult<Option<LastCopy>>>> = vec![None; job.lanes];
        pool.scope(|s| {
            let lanes = lanes.lanes[..job.lanes].iter_mut();
            for (l, (lane, slot)) in lanes.zip(results.iter_mut()).enumerate() {
                s.spawn(move |_| {
                    // SAFETY: the caller's guarantees hold for the whole call, and lane `l`
                    // touches only its own chunks of the host range.
                    let r = driver::bind(ctx).and_then(|()| unsafe { lane_copy(lane, &job, l) });
                    *slot = Some(r);
                });
            }
        });
        let mut first_err = None;
        for r in results {
            match r.unwrap_or(Ok(None)) {
                // SAFETY: both handles are live (the event is a lane's, of this context).
                Ok(Some(LastCopy(last))) => {
                    if let Err(e) = unsafe { driver::stream_wait_event(stream, last) } {
                        first_err.get_or_insert(e);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }
}

/// Moves lane `l`'s chunks of `job`; an upload's result is the event of its last copy
/// (still in flight), for the caller's stream to wait on.
///
/// # Safety
/// As for `Staging::download` / `upload`; the lane's stream waits for the caller's work.
unsafe fn lane_copy(lane: &mut Lane, job: &Job, l: usize) -> DResult<Option<LastCopy>> {
    let chunks: Vec<(usize, usize)> = job.chunks(l).collect();
    let r = match job.way {
        // SAFETY: forwarded from the caller.
        Way::Down => unsafe { lane_down(lane, job, &chunks) }.map(|()| None),
        // SAFETY: forwarded from the caller.
        Way::Up => unsafe { lane_up(lane, job, &chunks) },
    };
    if r.is_err() {
        // Whatever is still queued must finish before the chunks are used again or freed.
        // SAFETY: the stream is live.
        let _ = unsafe { driver::stream_synchronize(lane.stream) };
    }
    r
}

/// Waits until chunk `i` of `lane` is free.
///
/// # Safety
/// The lane's handles are live.
unsafe fn wait_free(lane: &mut Lane, i: usize) -> DResult<()> {
    if lane.busy[i] {
        // SAFETY: the event is live and was recorded.
        unsafe { driver::event_synchronize(lane.events[i]) }?;
        lane.busy[i] = false;
    }
    Ok(())
}

/// # Safety
/// As for `Staging::download`.
unsafe fn lane_down(lane: &mut Lane, job: &Job, chunks: &[(usize, usize)]) -> DResult<()> {
    // Queues chunk `k` into pinned chunk `k % 2`.
    let issue = |lane: &mut Lane, k: usize| -> DResult<()> {
        let (off, n) = chunks[k];
        let i = k % 2;
        // SAFETY: the pinned chunk holds `chunk()` ≥ n bytes and is free (waited for); the
        // device range lies inside the caller's source; the handles are live.
        unsafe {
            wait_free(lane, i)?;
            driver::copy_dtoh_raw(lane.chunks[i], job.device + off as u64, n, lane.stream)?;
            driver::event_record(lane.events[i], lane.stream)?;
        }
        lane.busy[i] = true;
        Ok(())
    };
    for k in 0..chunks.len().min(2) {
        issue(lane, k)?;
    }
    for (k, &(off, n)) in chunks.iter().enumerate() {
        let i = k % 2;
        // SAFETY: the lane's handles are live.
        unsafe { wait_free(lane, i) }?;
        // SAFETY: the copy into the pinned chunk has finished; `off + n ≤ bytes` lies in
        // the caller's destination, and no other lane writes this chunk of it.
        unsafe { std::ptr::copy_nonoverlapping(lane.chunks[i], job.host.add(off), n) };
        if k + 2 < chunks.len() {
            issue(lane, k + 2)?;
        }
    }
    Ok(())
}

/// # Safety
/// As for `Staging::upload`.
unsafe fn lane_up(
    lane: &mut Lane,
    job: &Job,
    chunks: &[(usize, usize)],
) -> DResult<Option<LastCopy>> {
    let mut last = None;
    for (k, &(off, n)) in chunks.iter().enumerate() {
        let i = k % 2;
        // SAFETY: the pinned chunk is free once waited for and holds `chunk()` ≥ n bytes; the
        // source chunk lies in the caller's source; the device range in its destination,
        // which stays allocated until the copy has run (the caller's stream waits for it).
        unsafe {
            wait_free(lane, i)?;
            std::ptr::copy_nonoverlapping(job.host.add(off), lane.chunks[i], n);
            driver::copy_htod_raw(job.device + off as u64, lane.chunks[i], n, lane.stream)?;
            driver::event_record(lane.events[i], lane.stream)?;
        }
        lane.busy[i] = true;
        last = Some(LastCopy(lane.events[i]));
    }
    Ok(last)
}

/// The lanes of the current context's device.
fn make_lanes() -> DResult<Lanes> {
    let mut made = Lanes {
        lanes: Vec::new(),
        start: driver::event_create(false)?,
    };
    for _ in 0..lane_count() {
        match make_lane() {
            Ok(l) => made.lanes.push(l),
            Err(e) => {
                free_lanes(made);
                return Err(e);
            }
        }
    }
    Ok(made)
}

fn make_lane() -> DResult<Lane> {
    let mut lane = Lane {
        stream: driver::stream_create()?,
        chunks: [std::ptr::null_mut(); 2],
        events: [std::ptr::null_mut(); 2],
        busy: [false; 2],
    };
    let r = (|| {
        for i in 0..2 {
            lane.events[i] = driver::event_create(false)?;
            lane.chunks[i] = driver::host_alloc(chunk())?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => Ok(lane),
        Err(e) => {
            free_lane(lane);
            Err(e)
        }
    }
}

/// Frees what `make_lanes` made, once every lane's copies have finished.
fn free_lanes(lanes: Lanes) {
    for lane in lanes.lanes {
        free_lane(lane);
    }
    // SAFETY: the event was made by `make_lanes` and is destroyed once.
    let _ = unsafe { driver::event_destroy(lanes.start) };
}

fn free_lane(lane: Lane) {
    // SAFETY: every handle was made by `make_lane` (null ones are skipped) and is destroyed
    // once, after the stream's copies finished (a failed synchronisation means a broken
    // context: the chunks are then leaked rather than freed under a copy).
    unsafe {
        let quiet = driver::stream_synchronize(lane.stream).is_ok();
        for i in 0..2 {
            if !lane.events[i].is_null() {
                let _ = driver::event_destroy(lane.events[i]);
            }
            if quiet && !lane.chunks[i].is_null() {
                let _ = driver::host_free(lane.chunks[i]);
            }
        }
        let _ = driver::stream_destroy(lane.stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(bytes: usize, available: usize) -> Job {
        job_going(Way::Down, bytes, available)
    }

    fn job_going(way: Way, bytes: usize, available: usize) -> Job {
        let mut j = Job {
            way,
            host: std::ptr::null_mut(),
            device: 0,
            bytes,
            lanes: 0,
            piece: 0,
        };
        j.split(available);
        j
    }

    #[test]
    fn pieces_cover_the_copy_once_in_lane_order() {
        for (way, bytes, available) in [
            (Way::Down, 4 << 20, 16),
            (Way::Down, 64 << 20, 16),
            (Way::Down, 1 << 30, 16),
            (Way::Down, (64 << 20) + 5, 3),
            (Way::Down, (24 << 20) + 3, 16),
            (Way::Up, 64 << 20, 16),
            (Way::Up, (64 << 20) + 5, 3),
        ] {
            let j = job_going(way, bytes, available);
            assert!(
                j.piece >= 512 << 10 && j.piece <= chunk(),
                "{bytes}: {}",
                j.piece
            );
            let mut seen: Vec<(usize, usize)> = (0..j.lanes).flat_map(|l| j.chunks(l)).collect();
            seen.sort();
            let mut at = 0;
            for (off, len) in seen {
                assert_eq!(off, at, "{bytes}");
                at += len;
            }
            assert_eq!(at, bytes);
        }
        // A 64 MiB upload: four pinned chunks a lane; a download of 64 MiB: every lane, four
        // 1 MiB pieces each; 1 GiB: every lane, whole chunks (up to 16 MiB).
        let up = job_going(Way::Up, 64 << 20, 16);
        assert_eq!((up.lanes, up.piece), ((64 << 20) / (4 * chunk()), chunk()));
        let down = job(64 << 20, 16);
        assert_eq!((down.lanes, down.piece), (16, 1 << 20));
        let gib = job(1 << 30, 16);
        assert_eq!((gib.lanes, gib.piece), (16, chunk().min(16 << 20)));
        assert_eq!(job(4 << 20, 16).lanes, 1);
        assert_eq!(job(24 << 20, 16).lanes, 6);
    }
}
