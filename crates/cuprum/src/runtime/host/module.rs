//! The host device's [`ModuleBackend`]: the kernels of a loaded [`HostLibrary`] — lookup
//! (refusing parameters aligned to more than the 16 bytes a launch passes), the attributes
//! that mean something on the CPU, occupancy in blocks per worker, and launch.

use super::library::{HostKernel, HostLibrary};
use crate::error::{Result, bail, err};
use crate::runtime::backend::{FuncAttr, KernelId, LaunchMode, LaunchParams, ModuleBackend};
use std::ffi::c_void;
use std::sync::atomic::Ordering;

impl HostLibrary {
    fn at(&self, k: KernelId) -> Result<&HostKernel> {
        self.kernels
            .get(k.0)
            .ok_or_else(|| err!(InvalidArgument, "no kernel {} in the host module", k.0))
    }
}

impl ModuleBackend for HostLibrary {
    fn kernel(&self, name: &str) -> Result<Option<KernelId>> {
        let Some(i) = self.kernel_index(name) else {
            return Ok(None);
        };
        let k = &self.kernels[i];
        if k.max_align > 16 {
            bail!(
                Unsupported,
                "kernel '{}' has a parameter aligned to {} bytes; the host device passes \
                 parameters aligned to at most 16",
                name,
                k.max_align
            );
        }
        Ok(Some(KernelId(i)))
    }

    fn global(&self, name: &str) -> Result<Option<(u64, usize)>> {
        Ok(self.global_var(name))
    }

    fn param_info(&self, k: KernelId) -> Result<Vec<(usize, usize)>> {
        Ok(self.at(k)?.params.clone())
    }

    fn image_param_count(&self, k: KernelId) -> Option<usize> {
        self.kernels.get(k.0).map(|x| x.params.len())
    }

    fn attribute(&self, k: KernelId, attr: FuncAttr) -> Result<i32> {
        let k = self.at(k)?;
        Ok(match attr {
            FuncAttr::MaxThreadsPerBlock => 1024,
            FuncAttr::MaxDynamicSharedSizeBytes => k.max_dynamic_shared() as i32,
            FuncAttr::PreferredSharedMemoryCarveout => k.carveout.load(Ordering::Relaxed),
            // Static shared memory, registers, local memory and the PTX/SASS versions have
            // no meaning for host code.
            _ => 0,
        })
    }

    fn set_attribute(&self, k: KernelId, attr: FuncAttr, value: i32) -> Result<()> {
        let k = self.at(k)?;
        match attr {
            FuncAttr::MaxDynamicSharedSizeBytes => {
                let v = usize::try_from(value).unwrap_or(usize::MAX);
                if v > super::MAX_DYNAMIC_SHARED {
                    bail!(
                        Launch,
                        "{value} bytes of dynamic shared memory: the host device allows at \
                         most {}",
                        super::MAX_DYNAMIC_SHARED
                    );
                }
                k.max_dynamic_shared.store(v, Ordering::Relaxed);
            }
            FuncAttr::PreferredSharedMemoryCarveout => {
                k.carveout.store(value, Ordering::Relaxed);
            }
            _ => {}
        }
        Ok(())
    }

    fn max_active_blocks_per_sm(&self, k: KernelId, block: u32, shared: usize) -> Result<u32> {
        let k = self.at(k)?;
        let fits = (1..=1024).contains(&block) && shared <= k.max_dynamic_shared();
        Ok(if fits { super::BLOCKS_PER_WORKER } else { 0 })
    }

    unsafe fn launch(&self, k: KernelId, p: &LaunchParams, args: *mut *mut c_void) -> Result<()> {
        let k = self.at(k)?;
        // Work on one stream never overlaps (as on a GPU): kernels that share a stream's
        // scratch, such as split reductions on the default stream, rely on it.
        let _in_order = super::stream_lock(p.stream);
        // SAFETY: forwarded from the caller: the argument list matches the kernel's
        // parameters (each value in a 16-byte aligned cell, alive for the call) and
        // pointers address live host memory of the host device.
        unsafe {
            super::launch::launch(
                k,
                p.grid,
                p.block,
                p.shared as usize,
                args.cast_const(),
                p.mode == LaunchMode::Cooperative,
            )
        }
    }
}
