//! A kernel's attributes from the driver (`cuFuncGetAttribute` / `cuFuncSetAttribute`),
//! typed: the kernel layer reads and sets them through these methods, never through the
//! driver's enum.

use super::module::Function;
use crate::error::Result;
use cudarc::driver::sys::CUfunction_attribute as FA;

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
}

impl Function {
    /// Every attribute the driver reports for this kernel.
    pub fn attributes(&self) -> Result<KernelAttributes> {
        Ok(KernelAttributes {
            max_threads_per_block: self.attribute(FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            shared_size_bytes: self.attribute(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            const_size_bytes: self.attribute(FA::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
            local_size_bytes: self.attribute(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            num_regs: self.attribute(FA::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            ptx_version: self.attribute(FA::CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            binary_version: self.attribute(FA::CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
            max_dynamic_shared_size_bytes: self
                .attribute(FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
            preferred_shared_memory_carveout: self
                .attribute(FA::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?,
        })
    }

    /// Static shared memory per block, in bytes.
    pub(crate) fn static_shared_bytes(&self) -> Result<usize> {
        Ok(self
            .attribute(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?
            .max(0) as usize)
    }

    /// The current limit of dynamic shared memory per block, in bytes.
    pub(crate) fn max_dynamic_shared_bytes(&self) -> Result<usize> {
        let v = self.attribute(FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?;
        Ok(v.max(0) as usize)
    }

    /// Sets the limit of dynamic shared memory per block (the driver checks it against the
    /// device's opt-in limit).
    pub(crate) fn set_max_dynamic_shared_bytes(&self, bytes: usize) -> Result<()> {
        let bytes = i32::try_from(bytes).unwrap_or(i32::MAX);
        self.set_attribute(FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
    }

    /// Sets the preferred shared-memory carveout (percent, or -1 for no preference).
    pub(crate) fn set_preferred_carveout(&self, percent: i32) -> Result<()> {
        self.set_attribute(
            FA::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            percent,
        )
    }
}
