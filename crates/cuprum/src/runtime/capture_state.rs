//! The calling thread's graph capture in progress, as the layers below the graph API see
//! it (memory, streams, launches): which stream is being captured, what the graph must keep
//! alive, and the blocks freed meanwhile. It imports nothing of the runtime, so every file
//! can ask it; `capture.rs` (the public `Stream::capture` and `Graph`) starts and ends it.
//! See `capture.rs` for what a capture does with all this.

use crate::error::{Result, bail};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::Arc;

/// Something the graph keeps alive (a buffer, a kernel's function and so its module).
pub(crate) type KeptThing = Arc<dyn Any + Send + Sync>;

/// What a capture in progress has gathered for its graph.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) kept: Vec<KeptThing>,
    /// Addresses of `kept`'s entries (each is kept once).
    seen: HashSet<usize>,
    /// Blocks freed on the captured stream: `(address, bytes)`, freed when the graph goes.
    pub(crate) frees: Vec<(u64, usize)>,
    /// The stream allocations are made on during the capture (a `Stream`).
    pub(crate) side: Option<KeptThing>,
    /// Each launched kernel's parameters `(offset, size)`, by its backend handle (for
    /// rewriting the graph's arguments later without asking the driver past the last one).
    pub(crate) layouts: Layouts,
}

/// Kernels' parameter layouts by backend handle.
pub(crate) type Layouts = std::collections::HashMap<usize, Vec<(usize, usize)>>;

impl State {
    /// Keeps `thing` too (once); whether it was new.
    pub(crate) fn hold(&mut self, thing: KeptThing) -> bool {
        let at = Arc::as_ptr(&thing).cast::<()>() as usize;
        let new = self.seen.insert(at);
        if new {
            self.kept.push(thing);
        }
        new
    }

    /// Stops keeping the thing at address `at` (an `Arc`'s pointer): it, if it was kept.
    pub(crate) fn unhold(&mut self, at: usize) -> Option<KeptThing> {
        if !self.seen.remove(&at) {
            return None;
        }
        let i = self
            .kept
            .iter()
            .position(|t| Arc::as_ptr(t).cast::<()>() as usize == at)?;
        Some(self.kept.swap_remove(i))
    }
}

thread_local! {
    /// The raw handle of the stream this thread is capturing (0: none).
    static RAW: Cell<usize> = const { Cell::new(0) };
    /// The ordinal of its device.
    static ORDINAL: Cell<Option<usize>> = const { Cell::new(None) };
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Starts this thread's capture of the stream `raw` of device `ordinal`.
pub(crate) fn begin(raw: usize, ordinal: usize) {
    RAW.with(|c| c.set(raw));
    ORDINAL.with(|c| c.set(Some(ordinal)));
}

/// Ends this thread's capture: what it gathered.
pub(crate) fn end() -> State {
    RAW.with(|c| c.set(0));
    ORDINAL.with(|c| c.set(None));
    STATE.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// Whether this thread is capturing any stream.
pub(crate) fn active() -> bool {
    RAW.with(Cell::get) != 0
}

/// Whether this thread is capturing the stream `raw`.
#[inline]
pub(crate) fn is_capturing(raw: usize) -> bool {
    let c = RAW.with(Cell::get);
    c != 0 && c == raw
}

/// Whether this thread is capturing a stream of device `ordinal`.
pub(crate) fn is_capturing_on(ordinal: usize) -> bool {
    ORDINAL.with(Cell::get) == Some(ordinal)
}

/// Keeps `thing` alive for the graph being captured (once, however often it is passed).
pub(crate) fn keep(thing: KeptThing) {
    STATE.with(|s| {
        s.borrow_mut().hold(thing);
    });
}

/// Records the parameter layout of the kernel with backend handle `handle` (once).
pub(crate) fn keep_layout(handle: usize, layout: impl FnOnce() -> Option<Vec<(usize, usize)>>) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if !s.layouts.contains_key(&handle)
            && let Some(l) = layout()
        {
            s.layouts.insert(handle, l);
        }
    });
}

/// Records a block freed on the stream `raw`: when it is being captured, the block is freed
/// with the graph (true); otherwise the caller frees it now (false).
pub(crate) fn defer_free(raw: usize, ptr: u64, bytes: usize) -> bool {
    if !is_capturing(raw) {
        return false;
    }
    STATE.with(|s| s.borrow_mut().frees.push((ptr, bytes)));
    true
}

/// The capture's side stream, made by `make` the first time.
pub(crate) fn side<T: Any + Send + Sync + Clone>(make: impl FnOnce() -> Result<T>) -> Result<T> {
    if let Some(t) = STATE.with(|s| s.borrow().side.clone())
        && let Some(t) = t.downcast_ref::<T>()
    {
        return Ok(t.clone());
    }
    let t = make()?;
    STATE.with(|s| s.borrow_mut().side = Some(Arc::new(t.clone())));
    Ok(t)
}

/// The error for `what`, which cannot be part of a graph, when the stream `raw` (shown as
/// `stream`) is being captured.
pub(crate) fn refuse(what: &str, raw: usize, stream: &dyn std::fmt::Debug) -> Result<()> {
    if is_capturing(raw) {
        bail!(
            InvalidArgument,
            "{what} inside a graph capture of {stream:?}: captured work does not run until \
             Graph::launch (do it before the capture or after a launch)"
        );
    }
    Ok(())
}
