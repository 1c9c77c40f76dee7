//! One block of a host launch: its threads run as plain calls, one after the other, until
//! one of them reaches a barrier or a warp operation; then the block is *promoted*: that
//! thread stays suspended where it is, every later thread gets a fiber of its own, and a
//! round-robin scheduler runs the fibers until each waits or ends, then releases what can
//! be released (a barrier when every live thread waits at it, a warp operation when the
//! live lanes of its mask wait at warp operations, a grid sync with the other blocks).
//!
//! Every block — promoted or not — starts on a fiber (a corosensei coroutine on a stack of
//! the worker's pool), so that a fault can leave it at any point: an `assert`, a trap or a
//! signal (see [`trap`](super::trap)) abandons the block's fibers without unwinding them,
//! and the launch reports the error. The C++ side hands control back through
//! `block.yield`, having written what it waits for into its slot (`abi::Slot`).

use super::abi::{self, Block, Dim3, RunFn, Slot};
use super::trap::{self, Trap};
use super::warp;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::{Condvar, Mutex};

type Fiber = Coroutine<(), (), Option<Trap>, DefaultStack>;

/// Bytes of each fiber's stack (`CUPRUM_HOST_STACK`, in KiB; default 256 KiB), with a
/// guard page below it.
fn stack_bytes() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("CUPRUM_HOST_STACK")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&k| k >= 16)
            .map_or(256 << 10, |k| k << 10)
    })
}

/// What every block of one launch shares.
pub(crate) struct LaunchShape {
    pub run: RunFn,
    pub args: *const *mut c_void,
    pub grid: Dim3,
    pub block: Dim3,
    pub dyn_smem: usize,
    /// Set for cooperative launches: the barrier of `grid.sync()`.
    pub grid_barrier: Option<GridBarrier>,
}

// SAFETY: the argument pointers point to the launch's packed arguments, which outlive the
// launch and are only read; `run` is a plain function of a loaded module.
unsafe impl Sync for LaunchShape {}
// SAFETY: as above.
unsafe impl Send for LaunchShape {}

impl LaunchShape {
    pub(crate) fn threads(&self) -> u32 {
        self.block.x * self.block.y * self.block.z
    }
}

/// Why a block failed.
#[derive(Debug, Clone)]
pub(crate) enum BlockFault {
    /// The kernel's own report (`assert`, `__trap`, a division by zero it checked).
    Kernel {
        thread: Dim3,
        kind: u32,
        line: u32,
        file: String,
        func: String,
        expr: String,
    },
    /// A signal (SIGFPE, SIGSEGV, SIGBUS, SIGILL) in the kernel's code.
    Signal { thread: Dim3, trap: Trap },
    /// Threads of the block wait at different `__syncthreads()` calls.
    Divergent { sites: Vec<(String, Vec<Dim3>)> },
    /// Every live thread waits, and nothing can release any of them.
    Deadlock { waits: Vec<(String, Vec<Dim3>)> },
    /// `grid.sync()` in a launch that is not cooperative.
    GridSyncNotCooperative { thread: Dim3 },
    /// No memory for a fiber stack.
    Stack(String),
}

/// The barrier of a cooperative launch's `grid.sync()`: blocks that finished leave it, so
/// they do not hold the others back.
pub(crate) struct GridBarrier {
    state: Mutex<(usize, usize, u64)>, // (blocks still running, blocks waiting, generation)
    cv: Condvar,
}

impl GridBarrier {
    pub(crate) fn new(blocks: usize) -> GridBarrier {
        GridBarrier {
            state: Mutex::new((blocks, 0, 0)),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, usize, u64)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until every running block waits here.
    fn wait(&self) {
        let mut s = self.lock();
        s.1 += 1;
        if s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
            return;
        }
        let generation = s.2;
        while s.2 == generation {
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A block finished (or failed): the others no longer wait for it.
    pub(crate) fn leave(&self) {
        let mut s = self.lock();
        s.0 = s.0.saturating_sub(1);
        if s.1 > 0 && s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
        }
    }
}

/// Dynamic shared memory is 128-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Line([u8; 128]);

/// What a worker thread keeps between blocks and launches.
struct Worker {
    stacks: Vec<DefaultStack>,
    slots: Vec<Slot>,
    smem: Vec<Line>,
    block: Box<Block>,
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// Hands control from the running thread back to the runner (called by the C++ side).
unsafe extern "C" fn yield_now(b: *mut Block) {
    // SAFETY: the runner sets `yielder` to the yielder of the fiber it resumes, and only a
    // running fiber calls this.
    let y = unsafe { &*((*b).yielder as *const Yielder<(), ()>) };
    y.suspend(());
}

impl Worker {
    fn new() -> Worker {
        Worker {
            stacks: Vec::new(),
            slots: Vec::new(),
            smem: Vec::new(),
            block: Box::new(Block {
                thread_idx: Dim3::default(),
                block_idx: Dim3::default(),
                block_dim: Dim3::default(),
                grid_dim: Dim3::default(),
                tid: 0,
                nthreads: 0,
                promoted: 0,
                cooperative: 0,
                dyn_smem: std::ptr::null_mut(),
                dyn_smem_bytes: 0,
                slots: std::ptr::null_mut(),
                yield_fn: yield_now,
                yielder: std::ptr::null(),
                fault: abi::Fault {
                    kind: 0,
                    line: 0,
                    file: std::ptr::null(),
                    func: std::ptr::null(),
                    expr: std::ptr::null(),
                },
            }),
        }
    }

    fn stack(&mut self) -> Result<DefaultStack, BlockFault> {
        match self.stacks.pop() {
            Some(s) => Ok(s),
            None => DefaultStack::new(stack_bytes())
                .map_err(|e| BlockFault::Stack(format!("cannot map a fiber stack: {e}"))),
        }
    }

    /// A fiber that runs threads `[first, last)` of the block set up in `self.block`.
    fn fiber(
        &mut self,
        run: RunFn,
        args: *const *mut c_void,
        first: u32,
        last: u32,
    ) -> Result<Fiber, BlockFault> {
        let stack = self.stack()?;
        let b: *mut Block = &mut *self.block;
        Ok(Coroutine::with_stack(
            stack,
            move |y: &Yielder<(), ()>, ()| {
                // SAFETY: `b` is the worker's block record, alive while the worker runs this
                // block; the fiber runs on the worker's thread only.
                unsafe {
                    (*b).yielder = (y as *const Yielder<(), ()>).cast();
                    run(b, args, first, last);
                }
                None
            },
        ))
    }

    /// Gives a finished or abandoned fiber's stack back to the pool.
    fn recycle(&mut self, mut f: Fiber) {
        if !f.done() {
            // SAFETY: the fiber is suspended in `yield_now` (or never started); its stack
            // holds C++ frames of an abandoned kernel thread and Rust frames without
            // destructors (the closure above captures plain pointers): nothing needs to
            // run, so it is marked finished without unwinding.
            unsafe { f.force_reset() };
        }
        self.stacks.push(f.into_stack());
    }
}

/// Resumes `f`, with the trap handler armed for its stack.
fn resume(f: &mut Fiber) -> CoroutineResult<(), Option<Trap>> {
    let _armed = trap::Armed::new(f.trap_handler());
    f.resume(())
}

/// Runs block `index` (linear, x fastest) of a launch on the calling thread.
pub(crate) fn run_block(shape: &LaunchShape, index: u64) -> Result<(), BlockFault> {
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let w = w.get_or_insert_with(Worker::new);
        let r = run_block_on(w, shape, index);
        if let Some(g) = &shape.grid_barrier {
            g.leave();
        }
        r
    })
}

fn run_block_on(w: &mut Worker, shape: &LaunchShape, index: u64) -> Result<(), BlockFault> {
    let n = shape.threads();
    if w.slots.len() < n as usize {
        w.slots.resize(n as usize, Slot::default());
    }
    let lines = shape.dyn_smem.div_ceil(128);
    if w.smem.len() < lines {
        w.smem.resize(lines, Line([0; 128]));
    }
    {
        let b = &mut *w.block;
        b.block_idx = shape.grid.unravel(index);
        b.block_dim = shape.block;
        b.grid_dim = shape.grid;
        b.thread_idx = Dim3::default();
        b.tid = 0;
        b.nthreads = n;
        b.promoted = 0;
        b.cooperative = u32::from(shape.grid_barrier.is_some());
        b.dyn_smem = w.smem.as_mut_ptr().cast();
        b.dyn_smem_bytes = shape.dyn_smem as u64;
        b.slots = w.slots.as_mut_ptr();
    }
    let mut f0 = w.fiber(shape.run, shape.args, 0, n)?;
    match resume(&mut f0) {
        CoroutineResult::Return(None) => {
            w.recycle(f0);
            Ok(())
        }
        CoroutineResult::Return(Some(trap)) => {
            let thread = w.block.thread_idx;
            w.recycle(f0);
            Err(BlockFault::Signal { thread, trap })
        }
        CoroutineResult::Yield(()) => {
            let t = w.block.tid;
            w.block.promoted = 1;
            let mut s = Scheduler::new(n, t, f0, w.block.yielder);
            let r = s.run(w, shape);
            s.release(w);
            r
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    NotStarted,
    Ready,
    Waiting,
    Exited,
}

/// A promoted block: one fiber per thread from the first that waited on.
struct Scheduler {
    state: Vec<State>,
    fibers: Vec<Option<Fiber>>,
    yielders: Vec<*const c_void>,
}

impl Scheduler {
    fn new(n: u32, t: u32, f0: Fiber, yielder: *const c_void) -> Scheduler {
        let n = n as usize;
        let t = t as usize;
        let mut state = vec![State::NotStarted; n];
        state[..t].fill(State::Exited);
        state[t] = State::Waiting;
        let mut fibers: Vec<Option<Fiber>> = (0..n).map(|_| None).collect();
        fibers[t] = Some(f0);
        let mut yielders = vec![std::ptr::null(); n];
        yielders[t] = yielder;
        Scheduler {
            state,
            fibers,
            yielders,
        }
    }

    /// Gives every fiber's stack back to the worker.
    fn release(&mut self, w: &mut Worker) {
        for f in self.fibers.iter_mut().filter_map(Option::take) {
            w.recycle(f);
        }
    }

    fn thread_of(&self, w: &Worker, i: usize) -> Dim3 {
        w.block.block_dim.unravel(i as u64)
    }

    /// Classifies what thread `i` does after it handed control back.
    fn after_yield(
        &mut self,
        w: &mut Worker,
        i: usize,
        shape: &LaunchShape,
    ) -> Result<(), BlockFault> {
        let slot = w.slots[i];
        self.state[i] = match slot.op {
            abi::OP_SYNC | abi::OP_WARP => State::Waiting,
            abi::OP_GRID_SYNC if shape.grid_barrier.is_some() => State::Waiting,
            abi::OP_GRID_SYNC => {
                return Err(BlockFault::GridSyncNotCooperative {
                    thread: self.thread_of(w, i),
                });
            }
            abi::OP_EXIT => State::Exited,
            abi::OP_YIELD => State::Ready,
            _ => {
                let f = w.block.fault;
                // SAFETY: the C++ side fills the strings with literals of the module (or
                // null), which stays loaded for the process.
                return Err(unsafe {
                    BlockFault::Kernel {
                        thread: self.thread_of(w, i),
                        kind: f.kind,
                        line: f.line,
                        file: abi::text(f.file),
                        func: abi::text(f.func),
                        expr: abi::text(f.expr),
                    }
                });
            }
        };
        Ok(())
    }

    fn run(&mut self, w: &mut Worker, shape: &LaunchShape) -> Result<(), BlockFault> {
        let n = self.state.len();
        self.after_yield(
            w,
            self.state
                .iter()
                .position(|s| *s == State::Waiting)
                .unwrap_or(0),
            shape,
        )?;
        loop {
            // Run every thread that can run until it waits or ends.
            for i in 0..n {
                let fresh = match self.state[i] {
                    State::NotStarted => true,
                    State::Ready => false,
                    _ => continue,
                };
                if fresh {
                    let f = w.fiber(shape.run, shape.args, i as u32, i as u32 + 1)?;
                    self.fibers[i] = Some(f);
                } else {
                    w.block.yielder = self.yielders[i];
                }
                let Some(f) = self.fibers[i].as_mut() else {
                    continue;
                };
                match resume(f) {
                    CoroutineResult::Return(None) => {
                        self.state[i] = State::Exited;
                        if let Some(f) = self.fibers[i].take() {
                            w.recycle(f);
                        }
                    }
                    CoroutineResult::Return(Some(trap)) => {
                        return Err(BlockFault::Signal {
                            thread: self.thread_of(w, i),
                            trap,
                        });
                    }
                    CoroutineResult::Yield(()) => {
                        self.yielders[i] = w.block.yielder;
                        self.after_yield(w, i, shape)?;
                    }
                }
            }
            if self.state.contains(&State::Ready) {
                continue;
            }
            if self.release_warps(w) {
                continue;
            }
            let live: Vec<usize> = (0..n).filter(|&i| self.state[i] != State::Exited).collect();
            if live.is_empty() {
                return Ok(());
            }
            let all = |op| live.iter().all(|&i| w.slots[i].op == op);
            if all(abi::OP_SYNC) {
                self.release_barrier(w, &live)?;
            } else if all(abi::OP_GRID_SYNC) {
                if let Some(g) = &shape.grid_barrier {
                    g.wait();
                }
                for &i in &live {
                    w.slots[i].result = 0;
                    self.state[i] = State::Ready;
                }
            } else {
                return Err(BlockFault::Deadlock {
                    waits: self.waiters(w, &live),
                });
            }
        }
    }

    /// Completes every warp operation that can complete; true if any did.
    fn release_warps(&mut self, w: &mut Worker) -> bool {
        let n = self.state.len();
        let mut any = false;
        for base in (0..n).step_by(32) {
            let end = (base + 32).min(n);
            let mut lanes = warp::Lanes::default();
            for i in base..end {
                let bit = 1u32 << (i - base);
                if self.state[i] != State::Exited {
                    lanes.live |= bit;
                }
                if self.state[i] == State::Waiting {
                    lanes.blocked |= bit;
                    if w.slots[i].op == abi::OP_WARP {
                        lanes.at_warp |= bit;
                    }
                }
            }
            if lanes.at_warp == 0 {
                continue;
            }
            let slots = &w.slots[base..end];
            let mut results = [None::<u64>; 32];
            // A ballot or reduction gives every lane with the same members one answer.
            let mut last: Option<(u32, u32, u64)> = None;
            // Readiness depends on the kind and the mask only (`__activemask` aside).
            let mut last_ready: Option<(u32, u32, bool)> = None;
            for (l, s) in slots.iter().enumerate() {
                if lanes.at_warp & (1 << l) == 0 {
                    continue;
                }
                let ready = match last_ready {
                    Some((k, m, r)) if k == s.kind && m == s.mask && k != abi::WARP_ACTIVEMASK => r,
                    _ => warp::ready(slots, l, &lanes),
                };
                last_ready = Some((s.kind, s.mask, ready));
                if ready {
                    let shared = warp::shared_result(s.kind);
                    let m = if shared {
                        warp::operation_lanes(slots, l, &lanes)
                    } else {
                        0
                    };
                    let r = match last {
                        Some((k, lm, r)) if shared && k == s.kind && lm == m => r,
                        _ => warp::result(slots, l, &lanes),
                    };
                    if shared {
                        last = Some((s.kind, m, r));
                    }
                    results[l] = Some(r);
                }
            }
            for (l, r) in results.iter().enumerate().take(end - base) {
                if let Some(r) = r {
                    w.slots[base + l].result = *r;
                    self.state[base + l] = State::Ready;
                    any = true;
                }
            }
        }
        any
    }

    /// Releases a `__syncthreads()` every live thread waits at (the same one).
    fn release_barrier(&mut self, w: &mut Worker, live: &[usize]) -> Result<(), BlockFault> {
        let first = w.slots[live[0]];
        let same_site = |s: &Slot| {
            s.line == first.line && s.kind == first.kind && same_file(s.file, first.file)
        };
        if !live.iter().all(|&i| same_site(&w.slots[i])) {
            return Err(BlockFault::Divergent {
                sites: self.waiters(w, live),
            });
        }
        let count = live.iter().filter(|&&i| w.slots[i].value != 0).count() as u64;
        let result = match first.kind {
            abi::SYNC_COUNT => count,
            abi::SYNC_AND => u64::from(count == live.len() as u64),
            abi::SYNC_OR => u64::from(count > 0),
            _ => 0,
        };
        for &i in live {
            w.slots[i].result = result;
            self.state[i] = State::Ready;
        }
        Ok(())
    }

    /// The waiting threads grouped by what they wait at (`__syncthreads() at k.cu:12`).
    fn waiters(&self, w: &Worker, live: &[usize]) -> Vec<(String, Vec<Dim3>)> {
        let mut out: Vec<(String, Vec<Dim3>)> = Vec::new();
        for &i in live {
            let s = &w.slots[i];
            // SAFETY: file names are literals of the loaded module (or null).
            let file = unsafe { abi::text(s.file) };
            let what = match s.op {
                abi::OP_SYNC => match s.kind {
                    abi::SYNC_COUNT => "__syncthreads_count()",
                    abi::SYNC_AND => "__syncthreads_and()",
                    abi::SYNC_OR => "__syncthreads_or()",
                    _ => "__syncthreads()",
                }
                .to_string(),
                abi::OP_WARP => format!("{}(mask 0x{:08x})", warp::name(s.kind), s.mask),
                abi::OP_GRID_SYNC => "grid.sync()".to_string(),
                _ => "?".to_string(),
            };
            let key = if s.line > 0 {
                format!("{what} at {file}:{}", s.line)
            } else {
                what
            };
            let t = self.thread_of(w, i);
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(t),
                None => out.push((key, vec![t])),
            }
        }
        out
    }
}

fn same_file(a: *const std::ffi::c_char, b: *const std::ffi::c_char) -> bool {
    // SAFETY: file names are literals of the loaded module (or null).
    std::ptr::eq(a, b) || unsafe { abi::text(a) == abi::text(b) }
}

/// `(3, 0, 0)`, or `(3, 0, 0), (4, 0, 0) and 12 more` for lists.
pub(crate) fn threads_text(v: &[Dim3]) -> String {
    let one = |d: &Dim3| format!("({}, {}, {})", d.x, d.y, d.z);
    let shown: Vec<String> = v.iter().take(4).map(one).collect();
    if v.len() > 4 {
        format!("{} and {} more", shown.join(", "), v.len() - 4)
    } else {
        shown.join(", ")
    }
}
