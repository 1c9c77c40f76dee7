//! A dead peer must not hang the others forever: each local rank's NCCL communicator is
//! guarded, and one watchdog thread per process looks at every guarded communicator every
//! 50 ms. It asks NCCL for an asynchronous error (`ncclCommGetAsyncError`: a peer's
//! connection closed, a remote error) and looks at the oldest unfinished collective (an
//! event recorded after each one on its stream, queried, never waited on); on an error, or
//! when that collective has run longer than the timeout, it calls `ncclCommAbort`, which
//! makes NCCL's kernels on the GPU give up, and keeps a
//! [`CommAborted`](crate::ErrorKind::CommAborted) error naming the collective and the rank.
//! Every later call on the communicator (each collective,
//! [`synchronize`](super::Communicator::synchronize)) returns that error.
//!
//! The normal path stays stream-ordered: a collective records one event and returns; only
//! `synchronize` (and dropping the communicator) waits, by polling: yielding for the first
//! 20 ms, then naps of at most 100 µs (`NAP_MAX`). The nap's ceiling is what a timed loop
//! of collectives sees: naps growing to 2 ms overshot the end of a 26–34 ms trial of ten
//! 1 GiB collectives by up to 2 ms, which read as 3–4 % less bus bandwidth than PyTorch's
//! (whose synchronize spins) on 4 × H100 on the same NCCL; a thread that wakes every 100 µs
//! costs a few percent of one core. The timeout is
//! `CUPRUM_NCCL_TIMEOUT` seconds (default 600, like PyTorch's) or
//! [`set_timeout`](super::Communicator::set_timeout).
//!
//! Calls into NCCL and the abort take the rank's lock, so the watchdog never aborts a
//! communicator while a call on it is running (NCCL communicators are used by one thread
//! at a time); enqueuing a collective returns at once, so the lock is short. The limit of
//! this choice: a call that blocks on the host inside NCCL (the first collective of a kind
//! makes NCCL's connections, which needs every peer) is not aborted by the watchdog; a dead
//! peer there fails the call through NCCL's own socket errors and retries. Communicators in
//! NCCL's non-blocking mode (`ncclCommInitRankConfig`, `blocking = 0`) would lift it.

use super::library::{RawComm, nccl};
use crate::error::{Error, Result, err};
use crate::runtime::{Device, Event};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

/// NCCL's `ncclInProgress`.
const IN_PROGRESS: i32 = 7;
/// How long `wait` polls without sleeping.
const SPIN: Duration = Duration::from_millis(20);
/// The first and the longest nap of `wait` after [`SPIN`]: a finished collective is seen
/// within about this much (plus the sleep's own slack).
const NAP_FIRST: Duration = Duration::from_micros(20);
const NAP_MAX: Duration = Duration::from_micros(100);
/// How often the watchdog looks.
const PERIOD: Duration = Duration::from_millis(50);

/// One local rank's communicator under the watchdog.
pub(crate) struct Guarded {
    pub(crate) rank: usize,
    pub(crate) size: usize,
    pub(crate) device: Device,
    timeout_ms: AtomicU64,
    state: Mutex<State>,
}

pub(crate) struct State {
    pub(crate) comm: RawComm,
    aborted: Option<Error>,
    closed: bool,
    pending: VecDeque<Pending>,
}

struct Pending {
    what: String,
    event: Event,
    since: Instant,
}

// SAFETY: the raw communicator is only used under the mutex (one thread at a time), which
// is how NCCL allows a communicator to be used from several threads.
unsafe impl Send for State {}

/// The default timeout: `CUPRUM_NCCL_TIMEOUT` seconds, else 600 s.
fn default_timeout() -> Duration {
    std::env::var("CUPRUM_NCCL_TIMEOUT")
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(600))
}

impl Guarded {
    /// Puts a freshly initialised communicator under the watchdog.
    pub(crate) fn new(comm: RawComm, rank: usize, size: usize, device: Device) -> Arc<Guarded> {
        let g = Arc::new(Guarded {
            rank,
            size,
            device,
            timeout_ms: AtomicU64::new(default_timeout().as_millis() as u64),
            state: Mutex::new(State {
                comm,
                aborted: None,
                closed: false,
                pending: VecDeque::new(),
            }),
        });
        watch(&g);
        g
    }

    pub(crate) fn set_timeout(&self, t: Duration) {
        self.timeout_ms
            .store(t.as_millis().max(1) as u64, Ordering::Relaxed);
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    /// The rank's lock, for a call into NCCL: the aborted error when it was aborted.
    /// `what` names the call about to be made (for the error when the look aborts).
    pub(crate) fn enter(&self, what: &str) -> Result<MutexGuard<'_, State>> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.look(&mut st, what);
        match &st.aborted {
            // A later call names itself before the abort's own account.
            Some(e) if !e.to_string().starts_with(what) => Err(err!(CommAborted, "{what}: {e}")),
            Some(e) => Err(e.clone()),
            None => Ok(st),
        }
    }

    /// Records that `what` was queued on `stream` (under the lock of `enter`).
    pub(crate) fn queued(
        &self,
        st: &mut State,
        what: &str,
        stream: &crate::runtime::Stream,
    ) -> Result<()> {
        let event = Event::marker_on(self.device)?;
        event.record(stream)?;
        st.pending.push_back(Pending {
            what: what.to_string(),
            event,
            since: Instant::now(),
        });
        Ok(())
    }

    /// Drops finished collectives, asks NCCL for an asynchronous error and aborts on one or
    /// on a collective older than the timeout. The error names the oldest unfinished
    /// collective, else `what` (the call being made).
    fn look(&self, st: &mut State, what: &str) {
        if st.closed || st.aborted.is_some() {
            return;
        }
        while let Some(p) = st.pending.front() {
            match p.event.is_complete() {
                Ok(true) => {
                    st.pending.pop_front();
                }
                Ok(false) => break,
                Err(e) => {
                    return self.abort(
                        st,
                        what,
                        format!("its completion could not be queried: {e}"),
                    );
                }
            }
        }
        let Ok(n) = nccl() else { return };
        let mut res = 0;
        // SAFETY: `st.comm` is a live communicator (not closed, not aborted), used under
        // the lock; `res` is a valid out pointer.
        let r = unsafe { (n.comm_get_async_error)(st.comm, &mut res) };
        if r != 0 || (res != 0 && res != IN_PROGRESS) {
            let code = if r != 0 { r } else { res };
            return self.abort(
                st,
                what,
                format!(
                    "NCCL reported an asynchronous error: {} (ncclResult_t {code}); a peer rank \
                     failed or left",
                    n.text(code)
                ),
            );
        }
        let t = self.timeout();
        if let Some(p) = st.pending.front()
            && p.since.elapsed() > t
        {
            let why = format!(
                "it did not finish within {:.1} s (the watchdog's timeout); a peer rank may \
                 have died or stopped calling collectives",
                t.as_secs_f64()
            );
            self.abort(st, what, why);
        }
    }

    /// `ncclCommAbort` and the error every later call returns.
    fn abort(&self, st: &mut State, current: &str, why: String) {
        let what = st
            .pending
            .front()
            .map_or_else(|| current.to_string(), |p| p.what.clone());
        if let Ok(n) = nccl() {
            let _ = self.device.bind();
            // SAFETY: the communicator is live and used by no other thread (the lock is
            // held); it is aborted once: `aborted` is set below and checked by every path.
            let _ = unsafe { (n.comm_abort)(st.comm) };
        }
        st.pending.clear();
        st.aborted = Some(err!(
            CommAborted,
            "{what} on rank {} of {} (device {}): {why}; the communicator was aborted and \
             cannot be used again",
            self.rank,
            self.size,
            self.device.ordinal()
        ));
    }

    /// Waits (polling, never blocking in CUDA, so a hang stays abortable) until every queued
    /// collective has finished;
    /// the aborted error when it was or is aborted meanwhile.
    pub(crate) fn wait(&self) -> Result<()> {
        let start = Instant::now();
        let mut nap = NAP_FIRST;
        loop {
            {
                let mut st = self.enter("synchronize")?;
                if st.pending.is_empty() {
                    return Ok(());
                }
                self.look(&mut st, "synchronize");
                if let Some(e) = &st.aborted {
                    return Err(e.clone());
                }
            }
            // The first 20 ms by yielding (a query costs about a microsecond, so a short
            // collective is seen done within microseconds, as a blocking wait would), then
            // naps growing to 100 µs (see the module's doc).
            if start.elapsed() < SPIN {
                std::thread::yield_now();
            } else {
                std::thread::sleep(nap);
                nap = (nap * 2).min(NAP_MAX);
            }
        }
    }

    /// Waits for the queued work (bounded by the timeout), then destroys the communicator
    /// unless it was aborted.
    pub(crate) fn close(&self) {
        let _ = self.wait();
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.closed {
            return;
        }
        st.closed = true;
        if st.aborted.is_none()
            && let Ok(n) = nccl()
        {
            let _ = self.device.bind();
            // SAFETY: the handle came from ncclCommInit* and is destroyed once, here
            // (`closed` is set); an aborted one was freed by ncclCommAbort.
            let _ = unsafe { (n.comm_destroy)(st.comm) };
        }
    }
}

/// Every guarded communicator of the process, for the watchdog thread.
fn registry() -> &'static Mutex<Vec<Weak<Guarded>>> {
    static REG: OnceLock<Mutex<Vec<Weak<Guarded>>>> = OnceLock::new();
    REG.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("cuprum-nccl-watchdog".into())
            .spawn(patrol);
        // Without the thread, `synchronize` and the collectives still look themselves.
        drop(spawned);
        Mutex::new(Vec::new())
    })
}

fn watch(g: &Arc<Guarded>) {
    let mut reg = registry().lock().unwrap_or_else(|p| p.into_inner());
    reg.retain(|w| w.strong_count() > 0);
    reg.push(Arc::downgrade(g));
}

/// The watchdog thread's loop.
fn patrol() {
    loop {
        std::thread::sleep(PERIOD);
        let alive: Vec<Arc<Guarded>> = {
            let reg = registry().lock().unwrap_or_else(|p| p.into_inner());
            reg.iter().filter_map(Weak::upgrade).collect()
        };
        for g in alive {
            // A communicator busy in a call is looked at next round.
            if let Ok(mut st) = g.state.try_lock() {
                // the device's context current on this thread for the event queries
                let _ = g.device.bind();
                g.look(&mut st, "the idle communicator");
            }
        }
    }
}
