//! Sticky faults. When a kernel faults (an illegal address, an illegal instruction, a
//! misaligned address, a device-side assert, a hardware stack error …) the CUDA context of
//! its device is unusable for the rest of the process: every later driver call on it fails.
//! The first driver call that reports such an error records it here, and from then on every
//! cuprum call that needs the device fails with [`ErrorKind::KernelFault`] naming the
//! original fault (one atomic load while there is none), instead of a confusing error from
//! whichever call comes next. The check sits in `Device::check_fault` (and `Device::bind`),
//! which allocations, copies and launches call first; the error says the context is
//! unusable and the process must restart to use the GPU again. Nothing aborts the process:
//! drops skip the driver calls of a faulted device (`memory.rs`).

use crate::error::{Error, ErrorKind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

struct Fault {
    /// The device whose context faulted; `None` when it could not be told (then every
    /// device counts as faulted).
    device: Option<usize>,
    /// What the driver reported, e.g. `cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS: …`.
    what: String,
}

static ANY: AtomicBool = AtomicBool::new(false);
static FAULTS: Mutex<Vec<Fault>> = Mutex::new(Vec::new());

fn faults() -> std::sync::MutexGuard<'static, Vec<Fault>> {
    FAULTS.lock().unwrap_or_else(|p| p.into_inner())
}

const RESTART: &str = "the CUDA context of the device is unusable for the rest of this \
                       process (every later call on it fails with this error); restart the \
                       process to use the GPU again";

fn device_name(device: Option<usize>) -> String {
    device.map_or_else(
        || "the current device".to_string(),
        |d| format!("device {d}"),
    )
}

/// Records a sticky fault on `device` (the device whose context is current, when known)
/// that the driver reported as `what`, and returns its error.
pub(crate) fn record(device: Option<usize>, what: String) -> Error {
    let message = format!(
        "{what}: a kernel faulted on {}; {RESTART}",
        device_name(device)
    );
    let mut f = faults();
    if !f.iter().any(|x| x.device == device) {
        f.push(Fault { device, what });
        ANY.store(true, Ordering::Release);
    }
    Error::new(ErrorKind::KernelFault, message)
}

/// The error of an earlier fault on device `ordinal`, if there was one.
#[inline]
pub(crate) fn check(ordinal: usize) -> crate::Result<()> {
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    check_slow(ordinal)
}

#[cold]
fn check_slow(ordinal: usize) -> crate::Result<()> {
    let f = faults();
    match f.iter().find(|x| x.device.is_none_or(|d| d == ordinal)) {
        None => Ok(()),
        Some(x) => Err(Error::new(
            ErrorKind::KernelFault,
            format!(
                "device {ordinal} is unusable: a kernel faulted earlier ({}); {RESTART}",
                x.what
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test owns the process-wide record (recording is permanent): a fault on a device
    // ordinal no machine has, so no other test sees it.
    #[test]
    fn a_recorded_fault_is_reported_by_every_later_check() {
        let dev = 4093;
        assert!(check(dev).is_ok());
        let e = record(
            Some(dev),
            "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".into(),
        );
        assert_eq!(e.kind(), ErrorKind::KernelFault);
        let m = e.to_string();
        assert!(
            m.contains("CUDA_ERROR_ILLEGAL_ADDRESS") && m.contains("device 4093"),
            "{m}"
        );
        assert!(
            m.contains("unusable") && m.contains("restart the process"),
            "{m}"
        );
        for _ in 0..2 {
            let later = check(dev).unwrap_err();
            assert_eq!(later.kind(), ErrorKind::KernelFault);
            let m = later.to_string();
            assert!(m.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{m}");
            assert!(m.contains("device 4093 is unusable"), "{m}");
        }
        assert!(check(4094).is_ok(), "other devices stay usable");
    }
}
