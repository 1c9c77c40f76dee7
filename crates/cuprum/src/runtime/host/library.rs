//! A kernel module compiled for the host device: a shared object loaded with `dlopen` (and
//! never unloaded: its code may be running on a worker, and its thread-local shared memory
//! lives as long as the threads), and the kernel table it exports.

use super::abi::{self, ModuleTable};
use crate::error::{Result, bail, err};
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// One kernel of a host module.
pub(crate) struct HostKernel {
    pub name: String,
    pub run: abi::RunFn,
    /// `(offset, size)` of each parameter in CUDA's parameter layout.
    pub params: Vec<(usize, usize)>,
    /// The largest parameter alignment.
    pub max_align: usize,
    /// The dynamic shared memory a launch may ask for (raised with the attribute).
    pub max_dynamic_shared: AtomicUsize,
    /// The preferred carveout (kept for the attribute; it changes nothing on the host).
    pub carveout: AtomicI32,
}

/// A loaded host module.
pub(crate) struct HostLibrary {
    pub kernels: Vec<HostKernel>,
    /// `(name, address, bytes)` of each `__device__` / `__constant__` variable.
    pub globals: Vec<(String, u64, usize)>,
    /// `(name expression, kernel name)` pairs the module answers to.
    pub lowered: Vec<(String, String)>,
}

impl std::fmt::Debug for HostLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
        write!(f, "HostLibrary({names:?})")
    }
}

/// CUDA's parameter layout: each parameter at the next multiple of its alignment.
fn layout(sizes: &[u32], aligns: &[u32]) -> Vec<(usize, usize)> {
    let mut off = 0usize;
    sizes
        .iter()
        .zip(aligns)
        .map(|(&s, &a)| {
            let a = (a as usize).max(1);
            off = off.div_ceil(a) * a;
            let p = (off, s as usize);
            off += s as usize;
            p
        })
        .collect()
}

impl HostLibrary {
    /// Loads the shared object at `path` (a `/proc/self/fd/N` path of a file the caller
    /// opened and verified, or the file itself) and reads its kernel table.
    ///
    /// # Safety
    /// Loading a shared object runs its initialisers: `path` must be a module cuprum
    /// compiled (its checksum verified), so that its code is the user's kernels and the
    /// shim.
    pub(crate) unsafe fn load(path: &Path) -> Result<HostLibrary> {
        use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
        // SAFETY: forwarded from the caller.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| {
            err!(
                Io,
                "cannot load the host kernel module {}: {e} (is the cache folder on a file \
                 system mounted noexec? set CUPRUM_CACHE_DIR to another folder)",
                path.display()
            )
        })?;
        // SAFETY: every host module exports this function with this signature (the shim
        // defines it); it only returns a pointer to static data.
        let table: &'static ModuleTable = unsafe {
            let f = lib
                .get::<unsafe extern "C" fn() -> *const ModuleTable>(abi::ENTRY)
                .map_err(|e| err!(Io, "{} is not a cuprum host module: {e}", path.display()))?;
            let t = f();
            if t.is_null() {
                bail!(Io, "{} returned no kernel table", path.display());
            }
            &*t
        };
        // The module stays loaded for the process: kernels of it may run on any worker.
        std::mem::forget(lib);
        if table.abi != abi::ABI_VERSION {
            bail!(
                Io,
                "host module {} has ABI {}, this cuprum expects {}",
                path.display(),
                table.abi,
                abi::ABI_VERSION
            );
        }
        let mut kernels = Vec::with_capacity(table.nkernels as usize);
        for i in 0..table.nkernels as usize {
            // SAFETY: the table holds `nkernels` entries whose arrays hold `nparams`
            // values, all static data of the loaded module.
            let k = unsafe { &*table.kernels.add(i) };
            let n = k.nparams as usize;
            let (sizes, aligns) = if n == 0 {
                (&[][..], &[][..])
            } else {
                // SAFETY: as above.
                unsafe {
                    (
                        std::slice::from_raw_parts(k.sizes, n),
                        std::slice::from_raw_parts(k.aligns, n),
                    )
                }
            };
            kernels.push(HostKernel {
                // SAFETY: a static C string of the module.
                name: unsafe { abi::text(k.name) },
                run: k.run,
                params: layout(sizes, aligns),
                max_align: aligns.iter().copied().max().unwrap_or(1) as usize,
                max_dynamic_shared: AtomicUsize::new(super::DEFAULT_DYNAMIC_SHARED),
                carveout: AtomicI32::new(-1),
            });
        }
        let mut globals = Vec::with_capacity(table.nglobals as usize);
        for i in 0..table.nglobals as usize {
            // SAFETY: the table holds `nglobals` entries of static data.
            let g = unsafe { &*table.globals.add(i) };
            // SAFETY: a static C string of the module.
            let name = unsafe { abi::text(g.name) };
            globals.push((name, g.addr as u64, g.bytes as usize));
        }
        Ok(HostLibrary {
            kernels,
            globals,
            lowered: Vec::new(),
        })
    }

    /// The kernel named `name` (or whose name expression it is).
    pub(crate) fn kernel_index(&self, name: &str) -> Option<usize> {
        let name = self
            .lowered
            .iter()
            .find(|(e, _)| e == name)
            .map_or(name, |(_, l)| l.as_str());
        self.kernels.iter().position(|k| k.name == name)
    }

    /// Address and size of the `__device__`/`__constant__` variable `name`.
    pub(crate) fn global_var(&self, name: &str) -> Option<(u64, usize)> {
        self.globals
            .iter()
            .find(|g| g.0 == name)
            .map(|g| (g.1, g.2))
    }
}

impl HostKernel {
    pub(crate) fn max_dynamic_shared(&self) -> usize {
        self.max_dynamic_shared.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parameters_are_laid_out_as_cuda_does() {
        // (char, double, int, float4-like 16-byte struct)
        assert_eq!(
            super::layout(&[1, 8, 4, 16], &[1, 8, 4, 16]),
            vec![(0, 1), (8, 8), (16, 4), (32, 16)]
        );
        assert!(super::layout(&[], &[]).is_empty());
    }
}
