//! Rewriting the device addresses of a captured graph for later launches
//! (`Graph::rebind`): which words of a node are addresses, and how they change.
//!
//! **Which words.** A kernel node's arguments are read with their layout
//! (`cuFuncGetParamInfo`: offset and size of each parameter); every 8-byte word at an
//! 8-byte-aligned offset of an argument is an address candidate — a pointer argument, or a
//! pointer field of a struct argument (cuprum's array arguments hold their data pointer
//! first, then shape and strides). A word is rewritten only when its value lies inside the
//! byte range being replaced: such a value is an address of that memory (the ranges are
//! live allocations of the graph's own arrays; shapes, strides and scalars are not near the
//! device's address range). Copy nodes' device source and destination and memset nodes'
//! destination are addresses by type. Event, empty and other nodes hold no addresses.
//!
//! **Where.** Each changed node is set in the graph (so a later rebinding reads the current
//! addresses) and in its executable form (`cuGraphExec*SetParams`: later launches use the
//! new values; a run already queued keeps the old ones).

use super::driver::{self, CUgraph, CUgraphExec, DResult};
use crate::runtime::backend::Rebound;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::ops::Range;

/// An address move: `from` becomes `to + (a - from.start)`; `watch` is counted after it.
pub(super) struct Move<'a> {
    pub(super) from: Range<u64>,
    pub(super) to: u64,
    pub(super) watch: Range<u64>,
    /// Parameter layouts of the kernels cuprum launched during the capture, by handle.
    pub(super) layouts: &'a crate::runtime::capture_state::Layouts,
}

impl Move<'_> {
    /// `a` moved (`None`: not inside `from`).
    fn apply(&self, a: u64) -> Option<u64> {
        self.from
            .contains(&a)
            .then(|| self.to + (a - self.from.start))
    }

    /// Moves the word `a` in place, counting it in `r`.
    fn word(&self, a: &mut u64, r: &mut Rebound) {
        if let Some(b) = self.apply(*a) {
            *a = b;
            r.rewritten += 1;
        }
        if self.watch.contains(a) {
            r.still_in_watch += 1;
        }
    }
}

/// Applies `m` to every node of `graph` and its instantiation `exec`.
///
/// # Safety
/// Both handles are live and of the current context; no other thread uses them meanwhile.
pub(super) unsafe fn rebind(graph: CUgraph, exec: CUgraphExec, m: &Move) -> DResult<Rebound> {
    let mut r = Rebound::default();
    // SAFETY: forwarded from the caller.
    for node in unsafe { driver::graph_nodes(graph) }? {
        use sys::CUgraphNodeType::*;
        // SAFETY: `node` is one of the live graph's nodes; each call matches its type.
        match unsafe { driver::graph_node_type(node) }? {
            CU_GRAPH_NODE_TYPE_KERNEL => unsafe { kernel(exec, node, m, &mut r) }?,
            CU_GRAPH_NODE_TYPE_MEMCPY => unsafe { memcpy(exec, node, m, &mut r) }?,
            CU_GRAPH_NODE_TYPE_MEMSET => unsafe { memset(exec, node, m, &mut r) }?,
            _ => {}
        }
    }
    Ok(r)
}

/// A kernel node: every aligned 8-byte word of every argument.
///
/// # Safety
/// As [`rebind`], `node` a kernel node of that graph.
unsafe fn kernel(
    exec: CUgraphExec,
    node: sys::CUgraphNode,
    m: &Move,
    r: &mut Rebound,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    let mut p = unsafe { driver::kernel_node_params(node) }?;
    if p.kernelParams.is_null() {
        // No arguments (or packed ones, which cuprum never queues): nothing to move.
        return Ok(());
    }
    // cuprum's own kernels: the layout read at capture; others (a library's kernels): asked
    // of the driver until it reports the index past the last parameter (an API error that
    // compute-sanitizer lists, hence the layouts kept at capture).
    let layout = match m.layouts.get(&(p.func as usize)) {
        Some(l) => l.clone(),
        // SAFETY: the node's function or kernel handle is live while the graph is.
        None => unsafe { driver::kernel_param_layout(p.func, p.kern) }?,
    };
    let before = r.rewritten;
    let mut values: Vec<Vec<u8>> = Vec::with_capacity(layout.len());
    for (i, &(offset, size)) in layout.iter().enumerate() {
        // SAFETY: the driver's `kernelParams` holds one pointer per parameter, each to
        // `size` readable bytes of the node's storage (valid until its parameters change).
        let mut v = unsafe {
            let at = *p.kernelParams.add(i) as *const u8;
            std::slice::from_raw_parts(at, size).to_vec()
        };
        for k in (0..size.saturating_sub(7)).filter(|k| (offset + k) % 8 == 0) {
            let mut w = [0u8; 8];
            w.copy_from_slice(&v[k..k + 8]);
            let mut a = u64::from_ne_bytes(w);
            m.word(&mut a, r);
            v[k..k + 8].copy_from_slice(&a.to_ne_bytes());
        }
        values.push(v);
    }
    if r.rewritten == before {
        return Ok(());
    }
    let mut ptrs: Vec<*mut c_void> = values
        .iter_mut()
        .map(|v| v.as_mut_ptr().cast::<c_void>())
        .collect();
    p.kernelParams = ptrs.as_mut_ptr();
    p.extra = std::ptr::null_mut();
    // SAFETY: same function, same layout; `ptrs` and `values` outlive the call, which copies
    // the values.
    unsafe { driver::set_kernel_node_params(exec, node, &p) }
}

/// Whether a copy's side of this memory type is addressed by a device pointer.
fn device_side(t: sys::CUmemorytype) -> bool {
    matches!(
        t,
        sys::CUmemorytype::CU_MEMORYTYPE_DEVICE | sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED
    )
}

/// A copy node: its device source and destination.
///
/// # Safety
/// As [`rebind`], `node` a memcpy node of that graph.
unsafe fn memcpy(
    exec: CUgraphExec,
    node: sys::CUgraphNode,
    m: &Move,
    r: &mut Rebound,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    let mut p = unsafe { driver::memcpy_node_params(node) }?;
    let before = r.rewritten;
    if device_side(p.srcMemoryType) {
        m.word(&mut p.srcDevice, r);
    }
    if device_side(p.dstMemoryType) {
        m.word(&mut p.dstDevice, r);
    }
    if r.rewritten == before {
        return Ok(());
    }
    // SAFETY: the same copy between memory of the same context, new addresses of the same
    // extent (the caller's ranges have one length).
    unsafe { driver::set_memcpy_node_params(exec, node, &p) }
}

/// A memset node: its destination.
///
/// # Safety
/// As [`rebind`], `node` a memset node of that graph.
unsafe fn memset(
    exec: CUgraphExec,
    node: sys::CUgraphNode,
    m: &Move,
    r: &mut Rebound,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    let mut p = unsafe { driver::memset_node_params(node) }?;
    let before = r.rewritten;
    m.word(&mut p.dst, r);
    if r.rewritten == before {
        return Ok(());
    }
    // SAFETY: as for copies.
    unsafe { driver::set_memset_node_params(exec, node, &p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_only_addresses_inside_the_range_and_counts_the_watch() {
        let layouts = Default::default();
        let m = Move {
            from: 0x7000_0000_1000..0x7000_0000_2000,
            to: 0x7000_0010_0000,
            watch: 0x7000_0000_0000..0x7000_0000_4000,
            layouts: &layouts,
        };
        let mut r = Rebound::default();
        let mut a = 0x7000_0000_1008u64;
        m.word(&mut a, &mut r);
        assert_eq!(a, 0x7000_0010_0008);
        let mut b = 0x7000_0000_2000u64; // one past the end: not moved, still watched
        m.word(&mut b, &mut r);
        assert_eq!(b, 0x7000_0000_2000);
        let mut c = 4096u64; // a shape or a stride
        m.word(&mut c, &mut r);
        assert_eq!(c, 4096);
        assert_eq!((r.rewritten, r.still_in_watch), (1, 1));
    }
}
