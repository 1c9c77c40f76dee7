//! Per-kernel resource usage from ptxas' verbose report (compile with `-Xptxas=-v`).

/// What one kernel uses, as ptxas reported it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// The (possibly mangled) kernel name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block (bytes).
    pub shared_bytes: u64,
    /// Local memory per thread: the stack frame (bytes).
    pub stack_bytes: u64,
    /// Bytes spilled to local memory by stores.
    pub spill_store_bytes: u64,
    /// Bytes reloaded from spills.
    pub spill_load_bytes: u64,
    /// Constant memory in bank 0 (kernel parameters and constants, bytes).
    pub constant_bytes: u64,
}

/// Parses every kernel's "Function properties for NAME" block of a ptxas verbose log: the
/// blocks with a "Used N registers" line. A device function ptxas kept out of line (a
/// `__noinline__` helper, e.g. the Rust kernels' fault path) has a block without one and is
/// left out: it is not a kernel.
///
/// ```
/// let log = "ptxas info    : Function properties for k\n\
///            ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
///            ptxas info    : Used 12 registers, used 0 barriers, 256 bytes smem, 368 bytes cmem[0]\n\
///            ptxas info    : Function properties for _ZN2cj5faultEjjxx\n\
///            ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
/// let r = cuprum::compile::resource_usage(log);
/// assert_eq!(r.len(), 1);
/// assert_eq!(r[0].name, "k");
/// assert_eq!((r[0].registers, r[0].shared_bytes, r[0].stack_bytes, r[0].constant_bytes), (12, 256, 16, 368));
/// ```
pub fn resource_usage(log: &str) -> Vec<KernelResources> {
    // Each block, and whether it had a "Used N registers" line (a kernel's).
    let mut out: Vec<(KernelResources, bool)> = Vec::new();
    for line in log.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            let r = KernelResources {
                name: name.trim().to_string(),
                ..Default::default()
            };
            out.push((r, false));
            continue;
        }
        let Some((cur, used)) = out.last_mut() else {
            continue;
        };
        for part in line.split([',', ':']) {
            let words: Vec<&str> = part.split_whitespace().collect();
            if let Some(j) = words.iter().position(|w| *w == "registers")
                && j >= 1
                && words[0] == "Used"
            {
                cur.registers = words[j - 1].parse().unwrap_or(0);
                *used = true;
            }
            let Some(j) = words.iter().position(|w| *w == "bytes").filter(|&j| j >= 1) else {
                continue;
            };
            let n: u64 = words[j - 1].parse().unwrap_or(0);
            match &words[j + 1..] {
                ["smem", ..] => cur.shared_bytes = n,
                ["stack", "frame", ..] => cur.stack_bytes = n,
                ["spill", "stores", ..] => cur.spill_store_bytes = n,
                ["spill", "loads", ..] => cur.spill_load_bytes = n,
                [c, ..] if c.starts_with("cmem[0]") => cur.constant_bytes = n,
                _ => {}
            }
        }
    }
    out.into_iter()
        .filter_map(|(r, used)| used.then_some(r))
        .collect()
}
