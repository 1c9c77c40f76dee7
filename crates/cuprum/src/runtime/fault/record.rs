//! Kernel faults: the record a kernel written in Rust (`#[cuprum::kernel]`) fills when a
//! bounds check (or, in debug builds, a division or shift check) fails, and the check every
//! synchronisation makes ([`Stream::synchronize`](crate::runtime::Stream::synchronize),
//! [`Device::synchronize`](crate::runtime::Device::synchronize), blocking copies).
//!
//! Per device: one [`FaultRecord`] in mapped pinned host memory (the faulting thread writes
//! it over the bus, so reading it after a synchronisation costs one host load) and a claim
//! word in device memory (an `atomicCAS` there elects the first fault; later ones are
//! dropped until this one is reported). The faulting thread skips the access and exits: no
//! memory is corrupted and the context stays usable. Each loaded program registers how to
//! describe its fault sites and gets a tag the record carries.
//!
//! On the device side (`cuprum/jit.cuh`) every index goes through `cj::ix`, one compare; a
//! miss writes the program tag, the site, the operands, block and thread, and ends the
//! thread with PTX `exit` — not a trap, which would break the context. Until a Rust kernel
//! is loaded the synchronisation check is one atomic load (`ARMED`); after that, one host
//! load of the record. The error is worded like Rust's panic: the kernel, the Rust
//! `file:line:col` of the site (from the table its program registered), the block and the
//! thread.

use crate::error::{Error, ErrorKind, Result, bail};
use crate::runtime::backend::{DeviceBackend, FaultSlots};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, RwLock};

/// The record's layout (mirrors `cj::FaultRec` in include/cuprum/jit.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct FaultRecord {
    flag: u32,
    tag: u32,
    site: u32,
    kind: u32,
    a: i64,
    b: i64,
    block: [u32; 3],
    thread: [u32; 3],
}

/// The module global `cj_fault_ctx` (mirrors `cj::FaultCtx`).
#[repr(C)]
#[derive(Clone, Copy)]
struct FaultCtx {
    rec: u64,
    claim: u64,
    tag: u32,
    pad: u32,
}

/// What a fault record says, for a program's describer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultInfo {
    /// `(function index << 16) | site index` in the program.
    pub site: u32,
    /// 0/1: index out of bounds (signed / unsigned index `a`, length `b`); 2: division by
    /// zero; 3: remainder by zero; 4: division overflow; 5: remainder overflow; 6: shift
    /// overflow (amount `a`, width `b`); 7: `grid_sync()` waited too long (`a` blocks).
    pub kind: u32,
    /// First operand (the index, the dividend, the shift amount).
    pub a: i64,
    /// Second operand (the length, the divisor, the width).
    pub b: i64,
    /// The faulting thread's block.
    pub block: [u32; 3],
    /// The faulting thread's thread index.
    pub thread: [u32; 3],
}

type Describe = Box<dyn Fn(&FaultInfo) -> String + Send + Sync>;

/// The layout of the record a backend allocates (see [`FaultSlots`]).
pub(crate) const RECORD_BYTES: usize = std::mem::size_of::<FaultRecord>();

/// A device's record and claim word (allocated once per device by its backend).
struct DeviceFaults {
    ordinal: usize,
    slots: FaultSlots,
}

static ARMED: AtomicBool = AtomicBool::new(false);
static DEVICES: Mutex<Vec<DeviceFaults>> = Mutex::new(Vec::new());
static DESCRIBERS: RwLock<Vec<Describe>> = RwLock::new(Vec::new());

fn find(ordinal: usize) -> Option<FaultSlots> {
    let d = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
    d.iter().find(|f| f.ordinal == ordinal).map(|f| f.slots)
}

/// The device's record and claim word, allocated by its backend on first use (kept for the
/// process; the backend zeroes both).
fn device_faults(ordinal: usize, backend: &dyn DeviceBackend) -> Result<FaultSlots> {
    let mut d = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(f) = d.iter().find(|f| f.ordinal == ordinal) {
        return Ok(f.slots);
    }
    let slots = backend.alloc_fault_slots()?;
    d.push(DeviceFaults { ordinal, slots });
    ARMED.store(true, Ordering::Release);
    Ok(slots)
}

/// Registers how faults of one program are described; returns the program's tag.
pub(crate) fn register(describe: Describe) -> u32 {
    let mut d = DESCRIBERS.write().unwrap_or_else(|p| p.into_inner());
    d.push(describe);
    d.len() as u32
}

/// Points a loaded module's `cj_fault_ctx` global (at `ptr`, `size` bytes, on the device
/// of `ordinal` that `backend` runs) at the device's record, with `tag`.
pub(crate) fn install(
    ordinal: usize,
    backend: &dyn DeviceBackend,
    (ptr, size): (u64, usize),
    tag: u32,
) -> Result<()> {
    let f = device_faults(ordinal, backend)?;
    if size != std::mem::size_of::<FaultCtx>() {
        bail!(
            Unsupported,
            "the module's cj_fault_ctx is {size} bytes, cuprum expects {}",
            std::mem::size_of::<FaultCtx>()
        );
    }
    let ctx = FaultCtx {
        rec: f.record,
        claim: f.claim,
        tag,
        pad: 0,
    };
    // SAFETY: `ptr` is the module global of `size` bytes (checked above), and no kernel of
    // the module runs while it is installed (it was just loaded). `FaultCtx` is plain data
    // without padding, so its bytes are initialised.
    let bytes = unsafe { std::slice::from_raw_parts((&ctx as *const FaultCtx).cast::<u8>(), size) };
    // SAFETY: as above.
    unsafe { backend.write_sync(ptr, bytes) }
}

/// After a successful synchronisation: the first kernel fault recorded on the device of
/// `ordinal` since the last check, as an [`ErrorKind::KernelFault`] error (the record is
/// then cleared).
#[inline]
pub(crate) fn check(ordinal: usize, backend: &dyn DeviceBackend) -> Result<()> {
    if !ARMED.load(Ordering::Acquire) {
        return Ok(());
    }
    check_armed(ordinal, backend)
}

#[cold]
fn check_armed(ordinal: usize, backend: &dyn DeviceBackend) -> Result<()> {
    let Some(f) = find(ordinal) else {
        return Ok(());
    };
    let host = f.host.cast::<FaultRecord>();
    // SAFETY: `host` is a live, aligned allocation of the record; the device writes `flag`
    // with a plain store after the other fields and a system fence.
    let flag = unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*host).flag)) };
    if flag.load(Ordering::Acquire) == 0 || flag.swap(0, Ordering::AcqRel) == 0 {
        return Ok(());
    }
    // SAFETY: as above; the fields were written before the flag (one fault at a time: the
    // claim word stays set until it is reset below).
    let r = unsafe { std::ptr::read_volatile(host) };
    backend.reset_fault_claim(&f)?;
    let info = FaultInfo {
        site: r.site,
        kind: r.kind,
        a: r.a,
        b: r.b,
        block: r.block,
        thread: r.thread,
    };
    let d = DESCRIBERS.read().unwrap_or_else(|p| p.into_inner());
    let what = match (r.tag as usize).checked_sub(1).and_then(|i| d.get(i)) {
        Some(describe) => describe(&info),
        None => format!("a kernel faulted: {}", kind_text(&info)),
    };
    Err(Error::new(
        ErrorKind::KernelFault,
        format!(
            "{what} (block ({}, {}, {}), thread ({}, {}, {})); the faulting thread stopped \
             before the access, the rest of the launch ran and the context is still usable",
            r.block[0], r.block[1], r.block[2], r.thread[0], r.thread[1], r.thread[2]
        ),
    ))
}

/// What a fault kind means, worded like Rust's panic.
pub(crate) fn kind_text(f: &FaultInfo) -> String {
    match f.kind {
        0 => format!(
            "index out of bounds: the len is {} but the index is {}",
            f.b as u64, f.a
        ),
        1 => format!(
            "index out of bounds: the len is {} but the index is {}",
            f.b as u64, f.a as u64
        ),
        2 => "attempt to divide by zero".to_string(),
        3 => "attempt to calculate the remainder with a divisor of zero".to_string(),
        4 => format!("attempt to divide with overflow ({} / {})", f.a, f.b),
        5 => format!(
            "attempt to calculate the remainder with overflow ({} % {})",
            f.a, f.b
        ),
        6 => format!(
            "attempt to shift with overflow (by {} bits, the width is {})",
            f.a, f.b
        ),
        7 => format!(
            "grid_sync() waited about ten seconds for the other blocks of the {} (every thread of \
             every block must reach it; did one return early or fault?)",
            if f.a == 1 {
                "1 block".to_string()
            } else {
                format!("{} blocks", f.a)
            }
        ),
        8 => "assertion failed".to_string(),
        k => format!("unknown fault kind {k}"),
    }
}
