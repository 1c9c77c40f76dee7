//! The C ABI between the host runner and a compiled host module: mirrors
//! `include/cuprum/host/abi.h` field for field (change both together and bump
//! [`ABI_VERSION`], which is part of every cache key).

use std::ffi::{c_char, c_void};

/// `CUPRUM_HOST_ABI`.
pub(crate) const ABI_VERSION: u32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub(crate) fn of(d: (u32, u32, u32)) -> Dim3 {
        Dim3 {
            x: d.0,
            y: d.1,
            z: d.2,
        }
    }

    /// The 3-D index of linear index `i` in a box of these dimensions (x fastest).
    pub(crate) fn unravel(self, i: u64) -> Dim3 {
        let (x, y) = (u64::from(self.x.max(1)), u64::from(self.y.max(1)));
        Dim3 {
            x: (i % x) as u32,
            y: ((i / x) % y) as u32,
            z: (i / (x * y)) as u32,
        }
    }
}

pub(crate) const OP_NONE: u32 = 0;
pub(crate) const OP_SYNC: u32 = 1;
pub(crate) const OP_WARP: u32 = 2;
pub(crate) const OP_GRID_SYNC: u32 = 3;
pub(crate) const OP_EXIT: u32 = 4;
#[allow(dead_code)] // the C++ side writes it; anything unknown is a fault
pub(crate) const OP_FAULT: u32 = 5;
pub(crate) const OP_YIELD: u32 = 6;

#[allow(dead_code)] // a plain barrier returns 0
pub(crate) const SYNC_PLAIN: u32 = 0;
pub(crate) const SYNC_COUNT: u32 = 1;
pub(crate) const SYNC_AND: u32 = 2;
pub(crate) const SYNC_OR: u32 = 3;

pub(crate) const WARP_SHFL: u32 = 0;
pub(crate) const WARP_SHFL_UP: u32 = 1;
pub(crate) const WARP_SHFL_DOWN: u32 = 2;
pub(crate) const WARP_SHFL_XOR: u32 = 3;
pub(crate) const WARP_BALLOT: u32 = 4;
pub(crate) const WARP_ANY: u32 = 5;
pub(crate) const WARP_ALL: u32 = 6;
pub(crate) const WARP_SYNC: u32 = 7;
pub(crate) const WARP_MATCH_ANY: u32 = 8;
pub(crate) const WARP_MATCH_ALL: u32 = 9;
pub(crate) const WARP_REDUCE_ADD: u32 = 10;
pub(crate) const WARP_REDUCE_MIN: u32 = 11;
pub(crate) const WARP_REDUCE_MAX: u32 = 12;
pub(crate) const WARP_REDUCE_MIN_S: u32 = 13;
pub(crate) const WARP_REDUCE_MAX_S: u32 = 14;
pub(crate) const WARP_REDUCE_AND: u32 = 15;
pub(crate) const WARP_REDUCE_OR: u32 = 16;
pub(crate) const WARP_REDUCE_XOR: u32 = 17;
pub(crate) const WARP_ACTIVEMASK: u32 = 18;

/// One per thread of the running block.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub op: u32,
    pub kind: u32,
    pub mask: u32,
    pub width: u32,
    pub arg: i32,
    pub line: u32,
    pub file: *const c_char,
    pub value: u64,
    pub result: u64,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            op: OP_NONE,
            kind: 0,
            mask: 0,
            width: 0,
            arg: 0,
            line: 0,
            file: std::ptr::null(),
            value: 0,
            result: 0,
        }
    }
}

pub(crate) const FAULT_ASSERT: u32 = 1;
pub(crate) const FAULT_TRAP: u32 = 2;
pub(crate) const FAULT_DIVIDE: u32 = 3;
pub(crate) const FAULT_MESSAGE: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fault {
    pub kind: u32,
    pub line: u32,
    pub file: *const c_char,
    pub func: *const c_char,
    pub expr: *const c_char,
}

/// The running block (one per worker thread, reused).
#[repr(C)]
pub(crate) struct Block {
    pub thread_idx: Dim3,
    pub block_idx: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    pub tid: u32,
    pub nthreads: u32,
    pub promoted: i32,
    pub cooperative: u32,
    pub dyn_smem: *mut u8,
    pub dyn_smem_bytes: u64,
    pub slots: *mut Slot,
    pub yield_fn: unsafe extern "C" fn(*mut Block),
    pub yielder: *const c_void,
    pub fault: Fault,
}

pub(crate) type RunFn = unsafe extern "C" fn(*mut Block, *const *mut c_void, u32, u32);

#[repr(C)]
pub(crate) struct Kernel {
    pub name: *const c_char,
    pub run: RunFn,
    pub nparams: u32,
    pub pad: u32,
    pub sizes: *const u32,
    pub aligns: *const u32,
}

#[repr(C)]
pub(crate) struct Global {
    pub name: *const c_char,
    pub addr: *mut c_void,
    pub bytes: u64,
}

#[repr(C)]
pub(crate) struct ModuleTable {
    pub abi: u32,
    pub nkernels: u32,
    pub nglobals: u32,
    pub flags: u32,
    pub kernels: *const Kernel,
    pub globals: *const Global,
}

/// The name of the function every host module exports.
pub(crate) const ENTRY: &[u8] = b"cuprum_host_module_table\0";

/// A C string from the module as text (`""` for null).
///
/// # Safety
/// `p` is null or points to a NUL-terminated string that lives as long as the module.
pub(crate) unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: forwarded from the caller.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_header() {
        // The offsets the C++ side sees on LP64 (checked against the header by the host
        // tests, which compile `offsetof` probes).
        assert_eq!(std::mem::size_of::<Slot>(), 48);
        assert_eq!(std::mem::size_of::<Fault>(), 32);
        assert_eq!(std::mem::offset_of!(Block, tid), 48);
        assert_eq!(std::mem::offset_of!(Block, dyn_smem), 64);
        assert_eq!(std::mem::offset_of!(Block, fault), 104);
        assert_eq!(std::mem::size_of::<Kernel>(), 40);
        assert_eq!(std::mem::size_of::<ModuleTable>(), 32);
    }

    #[test]
    fn unravel_is_x_fastest() {
        let d = Dim3 { x: 4, y: 3, z: 2 };
        assert_eq!(d.unravel(0), Dim3 { x: 0, y: 0, z: 0 });
        assert_eq!(d.unravel(5), Dim3 { x: 1, y: 1, z: 0 });
        assert_eq!(d.unravel(23), Dim3 { x: 3, y: 2, z: 1 });
    }
}
