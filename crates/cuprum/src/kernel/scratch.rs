//! Scratch memory of split reductions: partial results, and ticket counters that must be
//! zero before a launch (the last block of each output block sets its counter back to zero,
//! so a launch leaves them as it found them).
//!
//! A device's default stream keeps one scratch pair for the process, grown when a launch
//! needs more (kernels on one stream run one after another, so they can share it). Other
//! streams get fresh scratch per launch, with the counters zeroed on that stream.

use crate::error::Result;
use crate::runtime::{Buffer, Stream, zero_device};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

fn zeroed(bytes: usize, stream: &Stream) -> Result<Arc<Buffer>> {
    let b = Buffer::alloc(bytes, stream)?;
    zero_device(b.ptr(), bytes, stream)?;
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
