//! Scratch memory of split reductions: partial results, and ticket counters that must be
//! zero before a launch (the last block of each output block sets its counter back to zero,
//! so a launch leaves them as it found them).
//!
//! A device's default stream keeps one scratch pair for the process, grown when a launch
//! needs more (kernels on one stream run one after another, so they can share it). Other
//! streams get fresh scratch per launch, with the counters zeroed on that stream. The kept
//! pair is given back when memory runs short or on `Device::release_pool_memory`.

use crate::error::Result;
use crate::runtime::{Buffer, Device, Stream, on_release, zero_device};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock, TryLockError};

/// The scratch of one launch (kept alive until the stream-ordered frees after it).
pub(crate) struct Scratch {
    pub partials: Arc<Buffer>,
    pub counters: Arc<Buffer>,
}

type Kept = Mutex<FxHashMap<usize, (Arc<Buffer>, usize, Arc<Buffer>, usize)>>;

fn kept() -> &'static Kept {
    static K: OnceLock<Kept> = OnceLock::new();
    K.get_or_init(Default::default)
}

/// Drops the scratch kept for `device` (its blocks go back in stream order). Skipped when
/// the table is locked: that is `scratch` itself running out of memory while it allocates.
fn release(device: Device) {
    let mut map = match kept().try_lock() {
        Ok(m) => m,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    let old = map.remove(&device.ordinal());
    drop(map);
    drop(old);
}

fn zeroed(bytes: usize, stream: &Stream) -> Result<Arc<Buffer>> {
    let b = Buffer::alloc(bytes, stream)?;
    // SAFETY: `b` was just allocated on `stream` with `bytes` bytes and is kept alive by
    // the caller past every use.
    unsafe { zero_device(b.ptr_on(stream), bytes, stream)? };
    Ok(Arc::new(b))
}

/// Scratch with room for `partial_bytes` of partials and `counters` zeroed `u32`s.
pub(crate) fn scratch(partial_bytes: usize, counters: usize, stream: &Stream) -> Result<Scratch> {
    let counter_bytes = counters * 4;
    if !stream.is_device_default() {
        return Ok(Scratch {
            partials: Arc::new(Buffer::alloc(partial_bytes, stream)?),
            counters: zeroed(counter_bytes, stream)?,
        });
    }
    let mut map = kept().lock().unwrap_or_else(|p| p.into_inner());
    let key = stream.device().ordinal();
    let grow = |have: usize, want: usize| want.max(have * 2).max(4096);
    let entry = match map.get_mut(&key) {
        Some(e) => e,
        None => {
            on_release(release);
            let pb = grow(0, partial_bytes);
            let cb = grow(0, counter_bytes);
            map.insert(
                key,
                (
                    Arc::new(Buffer::alloc(pb, stream)?),
                    pb,
                    zeroed(cb, stream)?,
                    cb,
                ),
            );
            map.get_mut(&key)
                .ok_or_else(|| crate::error::err!(InvalidArgument, "scratch entry vanished"))?
        }
    };
    if entry.1 < partial_bytes {
        let pb = grow(entry.1, partial_bytes);
        entry.0 = Arc::new(Buffer::alloc(pb, stream)?);
        entry.1 = pb;
    }
    if entry.3 < counter_bytes {
        let cb = grow(entry.3, counter_bytes);
        entry.2 = zeroed(cb, stream)?;
        entry.3 = cb;
    }
    Ok(Scratch {
        partials: entry.0.clone(),
        counters: entry.2.clone(),
    })
}
