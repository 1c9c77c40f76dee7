//! A kernel's attributes from its backend (on a GPU `cuFuncGetAttribute` /
//! `cuFuncSetAttribute`), typed: the kernel layer reads and sets them through these
//! methods, never through a driver enum.

use super::backend::FuncAttr as FA;
use super::module::Function;
use crate::error::Result;

/// What a compiled kernel uses and allows, from the driver (`cuFuncGetAttribute`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelAttributes {
    /// Largest block this kernel can launch with.
    pub max_threads_per_block: i32,
    /// Static shared memory per block (bytes).
    pub shared_size_bytes: i32,
    /// Constant memory (bytes).
    pub const_size_bytes: i32,
    /// Local memory per thread (bytes).
    pub local_size_bytes: i32,
    /// Registers per thread.
    pub num_regs: i32,
    /// PTX version the kernel was compiled for (e.g. 90).
    pub ptx_version: i32,
    /// Binary (SASS) version (e.g. 90).
    pub binary_version: i32,
    /// Current limit of dynamic shared memory per block (bytes).
    pub max_dynamic_shared_size_bytes: i32,
    /// Preferred shared-memory carveout (percent of L1, -1 = no preference).
    pub preferred_shared_memory_carveout: i32,
    /// 1 when the kernel was compiled with `-Xptxas -dlcm=ca` (global loads cached in L1),
    /// else 0 (always 0 on the host device).
    pub cache_mode_ca: i32,
}

impl Function {
    /// Every attribute the driver reports for this kernel.
    pub fn attributes(&self) -> Result<KernelAttributes> {
        Ok(KernelAttributes {
            max_threads_per_block: self.attribute(FA::MaxThreadsPerBlock)?,
            shared_size_bytes: self.attribute(FA::SharedSizeBytes)?,
            const_size_bytes: self.attribute(FA::ConstSizeBytes)?,
            local_size_bytes: self.attribute(FA::LocalSizeBytes)?,
            num_regs: self.attribute(FA::NumRegs)?,
            ptx_version: self.attribute(FA::PtxVersion)?,
            binary_version: self.attribute(FA::BinaryVersion)?,
            max_dynamic_shared_size_bytes: self.attribute(FA::MaxDynamicSharedSizeBytes)?,
            preferred_shared_memory_carveout: self.attribute(FA::PreferredSharedMemoryCarveout)?,
            cache_mode_ca: self.attribute(FA::CacheModeCa)?,
        })
    }

    /// Static shared memory per block, in bytes.
    pub(crate) fn static_shared_bytes(&self) -> Result<usize> {
        Ok(self.attribute(FA::SharedSizeBytes)?.max(0) as usize)
    }

    /// Sets the limit of dynamic shared memory per block (the driver checks it against the
    /// device's opt-in limit).
    pub(crate) fn set_max_dynamic_shared_bytes(&self, bytes: usize) -> Result<()> {
        let bytes = i32::try_from(bytes).unwrap_or(i32::MAX);
        self.set_attribute(FA::MaxDynamicSharedSizeBytes, bytes)
    }

    /// Sets the preferred shared-memory carveout (percent, or -1 for no preference).
    pub(crate) fn set_preferred_carveout(&self, percent: i32) -> Result<()> {
        self.set_attribute(FA::PreferredSharedMemoryCarveout, percent)
    }
}
