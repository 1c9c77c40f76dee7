//! The table of the array routines' programs (scans, compaction, radix sort, gathers and
//! scatters): one [`Program`] (a `RawModule` compiled through the kernel cache on first
//! use, `kernel/program.rs`) per specialisation, its CUDA C++ generated from a key and
//! kept for the process; each kernel a `RawKernel` (arguments checked against the compiled
//! parameter list at launch).
//!
//! Also what several routines share: the CUDA prelude (`kernel/codegen/prelude.rs`),
//! launch shapes and zeroed scratch (`kernel/program.rs`, named again here), the device of
//! a routine's arrays, and the one device → host read of a result size.
//!
//! A specialisation is keyed by dtype or item size, index width and mode. The scan, the
//! compaction and each radix-sort pass are single-pass kernels with **decoupled
//! look-back**: a block takes its tile from an atomic ticket (so every predecessor has
//! started), publishes the tile's aggregate, then looks back at its predecessors' status
//! words until it meets an inclusive prefix (each routine's status word is described in
//! its file). Loads are warp-striped vectors (each lane holds `VEC` consecutive elements of
//! a 32-lane row), so ranks come from ballots and shuffles without shared-memory
//! transposes. Scratch that must start zeroed is one memset per call.
//!
//! Synchronisation: a result that needs its size (a mask read, `nonzero`) costs one
//! device → host read of that size, and `IndexMode::Raise` one synchronisation before
//! reading an error flag in mapped host memory (`runtime/flags.rs`); nothing else
//! synchronises. Determinism: a float `cumsum` combines in an order that
//! depends on timing (the last bits may vary between runs); integer scans, sorts,
//! compactions and gathers are exact and deterministic; `scatter_add` uses atomics (a CAS
//! on the enclosing 32-bit word for 1- and 2-byte types).
//!
//! Routines built on the current stream run inside [`on_device_of`] their first array, so
//! that they run on the device where it lives.

use crate::array::Array;
use crate::compile::CompileOptions;
use crate::error::{Result, err};
use crate::runtime::Stream;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

// What the routines share with the scan engine, kept in the kernel layer (the programs,
// their launch helpers and their CUDA prelude); named here so that the routines import
// what they build on from one place.
pub(crate) use crate::kernel::codegen::prelude::PRELUDE;
pub(crate) use crate::kernel::program::{
    Program, aligned, blocks_for, fits_u32, ptr_at, vec_width, zeroed_scratch,
};

type Table = Mutex<FxHashMap<String, Arc<Program>>>;

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(Default::default)
}

/// The program for `key`, its source made by `source` the first time the key is seen.
pub(crate) fn program(key: &str, source: impl FnOnce() -> String) -> Arc<Program> {
    let mut t = table().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = t.get(key) {
        return p.clone();
    }
    let p = Arc::new(Program::new(source(), program_options(key)));
    t.insert(key.to_owned(), p.clone());
    p
}

/// The compile options of the program named `key` (its file name for NVRTC's messages).
pub(crate) fn program_options(key: &str) -> CompileOptions {
    CompileOptions::new().program_name(format!("cuprum_{}.cu", key.replace(['|', ' '], "_")))
}

/// Runs `f` with `a`'s device current (and, when the current stream belongs to another
/// device, that device's default stream as the current stream), so that the ops built on
/// the current stream (programs, scratch, temporaries) run where `a` lives.
pub(crate) fn on_device_of<R>(a: &Array, f: impl FnOnce() -> Result<R>) -> Result<R> {
    match elsewhere(a, f) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(f)) => f(),
        Err(e) => Err(e),
    }
}

/// For an op built on the current stream, called with `a` on another device than the
/// current stream's: `Some(f())` run with `a`'s device and stream current (`f` calls the
/// op again, which then finds its device current); `None` when `a`'s device is current.
/// The op's first lines: `if let Some(r) = elsewhere_then(a, || op(a, …)) { return r; }`.
pub(crate) fn elsewhere_then<R>(a: &Array, f: impl FnOnce() -> Result<R>) -> Option<Result<R>> {
    match elsewhere(a, f) {
        Ok(Ok(r)) => Some(Ok(r)),
        Ok(Err(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

/// Whether `a`'s device differs from the current stream's (the op must then run inside
/// [`on_device_of`]).
pub(crate) fn is_elsewhere(a: &Array) -> Result<bool> {
    Ok(Stream::for_device(a.device())? != Stream::current()?)
}

/// `Ok(Ok(f()))` run on `a`'s device when the current stream is another device's,
/// `Ok(Err(f))` (not run) when it is `a`'s device's.
#[allow(clippy::type_complexity)]
fn elsewhere<R, F: FnOnce() -> Result<R>>(a: &Array, f: F) -> Result<std::result::Result<R, F>> {
    let stream = Stream::for_device(a.device())?;
    if Stream::current()? == stream {
        return Ok(Err(f));
    }
    stream.with(f).map(Ok)
}

/// Reads one `u64` the device wrote (a result size): the routines' one device → host read.
pub(crate) fn read_u64(a: &Array) -> Result<u64> {
    let v = a.slice(&[crate::array::SliceArg::Range {
        start: Some(0),
        end: Some(1),
        step: 1,
    }])?;
    v.to_vec::<u64>()?
        .first()
        .copied()
        .ok_or_else(|| err!(InvalidArgument, "empty result-size buffer"))
}

/// Blocks of a grid-stride launch over `work` items, `per_block` to a block: enough to
/// fill the current device (eight blocks per multiprocessor), no more.
pub(crate) fn filling_grid(work: usize, per_block: usize) -> Result<u32> {
    let sms = crate::runtime::Device::current()?.sm_count().max(1) as usize;
    Ok(work.div_ceil(per_block.max(1)).clamp(1, sms * 8) as u32)
}

/// The unsigned type that moves one element of `item` bytes as bits.
pub(crate) fn bits_type(item: usize) -> &'static str {
    match item {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "cuprum_u128",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_types() {
        assert_eq!(bits_type(4), "unsigned int");
        assert_eq!(bits_type(16), "cuprum_u128");
    }
}
