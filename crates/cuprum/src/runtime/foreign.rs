//! Memory another library owns (an imported DLPack tensor, a raw pointer with an owner):
//! when cuprum gives it back.
//!
//! A foreign buffer (`Buffer::foreign`, `memory.rs`) is never freed by cuprum and never
//! enters the freed-block cache: when its last view is dropped, its own stream is first
//! ordered after every other stream that used it (as for any buffer), and then its *owner*
//! (a boxed value: for DLPack the tensor whose drop calls the exporter's deleter) is
//! dropped once the work queued on the own stream so far has run. The exporter may then
//! reuse the memory at once, on any stream, so the owner must not go earlier.
//!
//! **Without blocking.** On a synchronous device (the host) the work has run when its call
//! returned: the owner is dropped at once; so it is on a GPU whose own stream has nothing
//! left to run (`cuStreamQuery`). Otherwise an event (one of a few kept spare:
//! creating one is a driver call) is recorded on the own stream; when it has already
//! completed (a non-blocking query) the owner is dropped at once, else it waits in a
//! process-wide list. That list is looked at ([`collect`], never blocking) whenever another
//! foreign buffer is released, a DLPack tensor is imported or exported, or the user asks
//! (`cuprum::dlpack::release_finished`); not at synchronisations, since the stream and
//! device files sit below this one. Owners still waiting at process exit go with the
//! process. So a dropped import never costs a host synchronisation, and an exporter's
//! deleter runs exactly once, on a thread that calls cuprum (a Python exporter's deleter
//! takes the GIL itself).
//!
//! **In stream order** ([`Release::InStreamOrder`]). An owner whose allocator hands memory
//! out again only in the order of the buffer's own stream needs no event: the owner goes as
//! soon as cuprum's work is *queued* there, since whatever reuses the memory is queued
//! after it on the same stream. So are PyTorch's and CuPy's caching allocators when cuprum
//! runs on the framework's current stream (the Python layer's calls, `python/call.rs`):
//! that is the contract the frameworks' own kernels rely on (memory used on another stream
//! than its allocation stream needs `record_stream` there too). Other users' streams are
//! still ordered before the own stream first, as for every buffer. This saves an event
//! record and query per imported argument of a Python call (about 1 µs each).
//! Where the own stream may not be the allocation stream (a Python call under a
//! framework's side stream), the caller also holds the arrays until its work has run
//! ([`keep_until_done`]: one event for a whole call's arrays).

use super::event::Event;
use super::stream::Stream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What keeps foreign memory alive; dropped once cuprum no longer uses the memory.
pub(crate) type ForeignOwner = Box<dyn std::any::Any + Send + Sync>;

/// Owners waiting for their event (the own stream's work at the release).
struct Pending {
    event: Event,
    /// Dropped (its deleter runs) with the entry.
    owner: ForeignOwner,
}

static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());
/// Completed events kept for the next releases (creating one is a driver call).
static SPARE: Mutex<Vec<Event>> = Mutex::new(Vec::new());
const MAX_SPARE: usize = 64;
/// The list's length, read without the lock on the hot paths that [`collect`].
static PENDING_LEN: AtomicUsize = AtomicUsize::new(0);
/// Owners taken off the list by a [`collect`] whose drop (the deleter) has not returned yet.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// When an imported buffer's owner may go (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Release {
    /// Once the work queued on the buffer's own stream has run (any owner).
    #[default]
    AfterWork,
    /// Once that work is queued: the owner's allocator reuses memory in that stream's order.
    InStreamOrder,
}

/// What cuprum assumes of foreign memory it is handed (`Buffer::foreign`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Terms {
    /// Ask the driver whether the device can address the memory (`check_foreign`): off
    /// only for producers whose word on the device is known to hold (PyTorch, CuPy).
    pub(crate) check_address: bool,
    pub(crate) release: Release,
}

impl Default for Terms {
    fn default() -> Terms {
        Terms {
            check_address: true,
            release: Release::AfterWork,
        }
    }
}

/// Drops `owner` once `release` allows after the work queued on `stream` so far (see the
/// module docs).
pub(crate) fn release_after(stream: &Stream, owner: ForeignOwner, release: Release) {
    collect();
    let device = stream.device();
    if release == Release::InStreamOrder
        || device.is_synchronous()
        || stream.is_done().unwrap_or(false)
    {
        // Reuse is ordered after the queued work, or nothing queued is left (always so on
        // the host): the owner may go now — also when this release runs inside another
        // one's (an import of an export), where an event recorded just now could still
        // read as pending.
        drop(owner);
        return;
    }
    let event = match spare_event(device).and_then(|e| e.record(stream).map(|()| e)) {
        Ok(e) => e,
        Err(_) => {
            // No event (a broken context): wait on the host; if even that fails the memory
            // may still be in use, and is kept rather than given back.
            if stream.synchronize().is_ok() {
                drop(owner);
            } else {
                std::mem::forget(owner);
            }
            return;
        }
    };
    if event.is_complete().unwrap_or(false) {
        drop(owner);
        keep_spare(event);
        return;
    }
    let mut list = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    list.push(Pending { event, owner });
    PENDING_LEN.store(list.len(), Ordering::Release);
}

/// Keeps `owner` until the work queued on `stream` so far has run (one event for all that
/// `owner` holds; at once where nothing is left to run): for memory whose owner reuses it
/// in another stream's order than `stream`'s (see [`Release`]).
#[cfg(feature = "python")]
pub(crate) fn keep_until_done(stream: &Stream, owner: ForeignOwner) {
    release_after(stream, owner, Release::AfterWork);
}

/// Drops the owners whose work has completed (never blocks; nothing to do is one atomic
/// load). An owner whose event reports an error (a broken context) is kept for ever.
///
/// Owners are taken off the list under its lock and dropped outside it, so when two
/// threads collect at once, the one that finds the list empty may return while the other
/// still runs the deleters it took ([`running`] counts them). Waiting for them here
/// could deadlock: a Python exporter's deleter takes the GIL, which the waiting thread
/// may hold.
pub(crate) fn collect() {
    if PENDING_LEN.load(Ordering::Acquire) == 0 {
        return;
    }
    let done: Vec<Pending> = {
        let mut list = PENDING.lock().unwrap_or_else(|p| p.into_inner());
        let (done, waiting): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut *list)
            .into_iter()
            .partition(|p| p.event.is_complete().unwrap_or(false));
        *list = waiting;
        PENDING_LEN.store(list.len(), Ordering::Release);
        RUNNING.fetch_add(done.len(), Ordering::AcqRel);
        done
    };
    // Deleters run outside the lock (one may release another foreign buffer). A deleter
    // that panics still leaves the count right: `left` gives back what did not run.
    let mut left = Running(done.len());
    for p in done {
        drop(p.owner);
        left.0 -= 1;
        RUNNING.fetch_sub(1, Ordering::AcqRel);
        keep_spare(p.event);
    }
}

/// The owners of one [`collect`] not dropped yet, taken off [`RUNNING`] when it ends.
struct Running(usize);

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// An event of `device`: a spare one, else a new one.
fn spare_event(device: super::device::Device) -> crate::error::Result<Event> {
    let mut spare = SPARE.lock().unwrap_or_else(|p| p.into_inner());
    match spare.iter().rposition(|e| e.device() == device) {
        Some(i) => Ok(spare.swap_remove(i)),
        None => {
            drop(spare);
            Event::new_on(device)
        }
    }
}

/// Keeps a completed event for later releases (a few per process).
fn keep_spare(event: Event) {
    let mut spare = SPARE.lock().unwrap_or_else(|p| p.into_inner());
    if spare.len() < MAX_SPARE {
        spare.push(event);
    }
}

/// Owners still waiting for their stream's work (`cuprum::internal`, for tests).
pub fn pending() -> usize {
    PENDING_LEN.load(Ordering::Acquire)
}

/// Owners another `collect` has taken off the list and is dropping now (`cuprum::internal`,
/// for tests that count deleters while other threads collect).
pub fn running() -> usize {
    RUNNING.load(Ordering::Acquire)
}
