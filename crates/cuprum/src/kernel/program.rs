//! [`Program`]: a generated CUDA C++ module compiled on first use (a [`RawModule`]), its
//! kernels taken by name and launched with arguments checked at launch — what the scan
//! engine (`scan_engine.rs`) and the array routines of `ops` (through `ops/programs.rs`,
//! which keeps their table of programs by key) are made of — and the launch helpers such
//! programs share: block and grid sizes, the index width, vector widths and alignment,
//! scratch that must start zeroed.

use super::{DevicePtr, Dim3, KernelArgs, RawKernel, RawModule};
use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::Result;
use crate::runtime::{Stream, zero_device};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// One compiled-on-first-use module and the kernels taken from it.
pub(crate) struct Program {
    module: RawModule,
    kernels: Mutex<FxHashMap<&'static str, Arc<RawKernel>>>,
}

impl Program {
    /// A program of `source` compiled with `options` on first use (kept by its owner, not
    /// in the routines' table: a `ScanKernel`'s programs live with the kernel).
    pub(crate) fn new(source: String, options: CompileOptions) -> Program {
        Program {
            module: RawModule::new(source).options(options),
            kernels: Mutex::default(),
        }
    }

    /// The kernel `name` (an `extern "C"` function of the program), compiled and loaded on
    /// the current device on first use.
    pub(crate) fn kernel(&self, name: &'static str) -> Result<Arc<RawKernel>> {
        if let Some(k) = self
            .kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
        {
            return Ok(k.clone());
        }
        let k = Arc::new(self.module.get_function(name)?);
        self.kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name, k.clone());
        Ok(k)
    }

    /// Launches kernel `name` with `grid` blocks of `block` threads on the current stream.
    pub(crate) fn launch(
        &self,
        name: &'static str,
        grid: u32,
        block: u32,
        args: impl KernelArgs,
    ) -> Result<()> {
        self.kernel(name)?
            .launch(Dim3(grid.max(1), 1, 1), Dim3(block, 1, 1), args)
    }
}

/// Threads per block of every routine kernel.
pub(crate) const BLOCK: u32 = 256;

/// Blocks for a grid-stride loop over `n` items: one item per thread, at most 2^24 blocks.
pub(crate) fn blocks_for(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize).clamp(1, 1 << 24) as u32
}

/// Whether 32-bit indexing covers `n` items (with room for one tile past the end).
pub(crate) fn fits_u32(n: usize) -> bool {
    n < (1usize << 31)
}

/// Scratch of `bytes` bytes, zeroed on the current stream (look-back status words, tile
/// counters, histograms, error flags).
pub(crate) fn zeroed_scratch(bytes: usize) -> Result<Array> {
    let a = Array::empty(&[bytes.div_ceil(8).max(1)], DType::U64)?;
    let stream = Stream::current()?;
    // SAFETY: `a` was just allocated on this stream with `nbytes()` bytes and lives past
    // the memset (stream-ordered free).
    unsafe { zero_device(a.ptr_on(&stream), a.nbytes(), &stream)? };
    Ok(a)
}

/// Device address `byte_offset` bytes into `a` (for carving one scratch buffer into parts).
pub(crate) fn ptr_at(a: &Array, byte_offset: usize) -> DevicePtr {
    DevicePtr(a.data_ptr() + byte_offset as u64)
}

/// Elements per vector access of a `item`-byte type (16 bytes at most, 4 elements at most).
pub(crate) fn vec_width(item: usize) -> usize {
    (16 / item).clamp(1, 4)
}

/// Whether every pointer is aligned for `vec`-element accesses of its item size.
pub(crate) fn aligned(arrays: &[&Array], vec: usize) -> bool {
    arrays
        .iter()
        .all(|a| a.data_ptr().is_multiple_of((a.itemsize() * vec) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_widths_stay_within_16_bytes() {
        assert_eq!(vec_width(1), 4);
        assert_eq!(vec_width(2), 4);
        assert_eq!(vec_width(4), 4);
        assert_eq!(vec_width(8), 2);
        assert_eq!(vec_width(16), 1);
        for item in [1, 2, 4, 8, 16] {
            assert!(vec_width(item) * item <= 16);
        }
    }

    #[test]
    fn launch_shapes() {
        assert_eq!(blocks_for(0), 1);
        assert_eq!(blocks_for(256), 1);
        assert_eq!(blocks_for(257), 2);
        assert!(fits_u32(1 << 30));
        assert!(!fits_u32(1 << 31));
    }
}
