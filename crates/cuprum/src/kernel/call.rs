//! What every call of a generated kernel (ElementwiseKernel, ReductionKernel) does the same
//! way: the argument checks, exact type resolution, argument packing, and the kernel's
//! table of compiled specialisations.

use super::codegen::elementwise::Slot;
use super::operand::Operand;
use super::params::{Param, TypeMap};
use crate::array::{Array, DType};
use crate::compile::{CompileOptions, SourceSpan, compile_on};
use crate::error::{Result, bail, err};
use crate::runtime::{ArgPack, Device, Function, Stream};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::hash::Hash;
use std::sync::Mutex;

/// The given stream, or the calling thread's current one.
pub(crate) fn stream_or_current(s: &Option<Stream>) -> Result<Stream> {
    match s {
        Some(s) => Ok(s.clone()),
        None => Stream::current(),
    }
}

/// CuPy's first check (before any GPU work): the inputs, or the inputs and every output.
pub(crate) fn check_count(name: &str, nin: usize, nargs: usize, given: usize) -> Result<()> {
    if given != nin && given != nargs {
        bail!(
            InvalidArgument,
            "Wrong number of arguments for '{name}'. It must be either {nin} or {nargs} (with outputs), but given {given}."
        );
    }
    Ok(())
}

/// CuPy's checks of a call's arguments after [`check_count`]: outputs are arrays, arrays
/// live on the stream's device.
pub(crate) fn check_args(
    name: &str,
    params: &[Param],
    nin: usize,
    args: &[Operand<'_>],
    device: Device,
) -> Result<()> {
    for (k, (a, p)) in args.iter().zip(params).enumerate() {
        match a {
            Operand::Scalar(s) if k >= nin => bail!(
                InvalidArgument,
                "Output arguments type must be cuprum::Array: output '{}' of '{name}' was given a {} scalar",
                p.name,
                s.dtype().rust_name()
            ),
            Operand::Array(arr) if arr.device() != device => bail!(
                InvalidArgument,
                "The device where the array resides ({}) is different from the current device ({}) (argument '{}' of '{name}')",
                arr.device().ordinal(),
                device.ordinal(),
                p.name
            ),
            _ => {}
        }
    }
    Ok(())
}

/// Every parameter's dtype: placeholders bound by exact match, given outputs first, then
/// inputs; scalars decide nothing.
pub(crate) fn resolve_dtypes(
    params: &[Param],
    nin: usize,
    args: &[Operand<'_>],
) -> Result<SmallVec<[DType; 8]>> {
    let mut tm = TypeMap::default();
    let arrays = |range: std::ops::Range<usize>| {
        args.iter()
            .zip(params)
            .enumerate()
            .filter(move |(k, _)| range.contains(k))
            .filter_map(|(_, (a, p))| match a {
                Operand::Array(arr) => Some((p, arr.dtype())),
                Operand::Scalar(_) => None,
            })
    };
    for (p, d) in arrays(nin..params.len()).chain(arrays(0..nin)) {
        tm.bind(p, d)?;
    }
    params.iter().map(|p| tm.resolve(p)).collect()
}

/// Packs the user's parameters: raw arrays as `CArray`s, broadcast arrays as pointers,
/// scalars converted to their parameter's dtype (NumPy's assignment rules). Array
/// addresses are taken for `stream` (see `Array::ptr_on`).
pub(crate) fn push_args<'a>(
    pack: &mut ArgPack,
    name: &str,
    params: &[Param],
    dtypes: &[DType],
    stream: &Stream,
    operand: impl Fn(usize) -> Operand<'a>,
) -> Result<()> {
    for (k, p) in params.iter().enumerate() {
        match operand(k) {
            Operand::Array(a) if p.raw => push_carray(pack, a, stream),
            Operand::Array(a) => pack.push(a.ptr_on(stream)),
            Operand::Scalar(s) => {
                let v = s
                    .cast(dtypes[k])
                    .map_err(|e| err!(DType, "argument '{}' of '{name}': {e}", p.name))?;
                let (bytes, len) = v.to_bytes();
                pack.push_bytes(&bytes[..len]);
            }
        }
    }
    Ok(())
}

/// `CArray<T, ND>`: data pointer, then `max(ND, 1)` extents and element strides as i64.
fn push_carray(pack: &mut ArgPack, a: &Array, stream: &Stream) {
    let nd = a.ndim().max(1);
    let mut b: SmallVec<[u8; 64]> = SmallVec::new();
    b.extend_from_slice(&a.ptr_on(stream).to_ne_bytes());
    for d in 0..nd {
        let v = a.shape().get(d).copied().unwrap_or(1) as i64;
        b.extend_from_slice(&v.to_ne_bytes());
    }
    for d in 0..nd {
        let v = a.strides().get(d).copied().unwrap_or(0) as i64;
        b.extend_from_slice(&v.to_ne_bytes());
    }
    pack.push_bytes(&b);
}

/// Slots of a sample specialisation (for `generated_source`): arrays numbered in order,
/// raw arrays 1-D, the marked parameters scalars. Checks the lengths first.
pub(crate) fn sample_slots(
    name: &str,
    params: &[Param],
    dtypes: &[DType],
    scalars: &[bool],
) -> Result<SmallVec<[Slot; 8]>> {
    if dtypes.len() != params.len() || scalars.len() != params.len() {
        bail!(
            InvalidArgument,
            "'{name}' has {} parameters; got {} dtypes and {} scalar flags",
            params.len(),
            dtypes.len(),
            scalars.len()
        );
    }
    let mut idx = 0;
    Ok(params
        .iter()
        .zip(scalars)
        .map(|(p, &scalar)| match (scalar, p.raw) {
            (true, _) => Slot::Scalar,
            (false, true) => Slot::Raw { nd: 1 },
            (false, false) => {
                idx += 1;
                Slot::Array { idx: idx - 1 }
            }
        })
        .collect())
}

/// A kernel's compiled specialisations: a repeat call is one lookup.
pub(crate) struct Specs<K>(Mutex<FxHashMap<K, Function>>);

impl<K: Hash + Eq + Clone> Specs<K> {
    pub(crate) fn new() -> Self {
        Specs(Mutex::new(FxHashMap::default()))
    }

    /// Forgets every specialisation (after the kernel's definition changed).
    pub(crate) fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// The function for `key`, compiled from `source()` (the source and its user spans)
    /// on first use; compile errors point at the user's text.
    pub(crate) fn get_or_compile(
        &self,
        key: &K,
        device: Device,
        name: &str,
        options: &CompileOptions,
        source: impl FnOnce() -> Result<(String, Vec<SourceSpan>)>,
    ) -> Result<Function> {
        if let Some(f) = self.0.lock().unwrap_or_else(|p| p.into_inner()).get(key) {
            return Ok(f.clone());
        }
        let (src, spans) = source()?;
        let opts = options.clone().program_name(format!("{name}.cu"));
        let module = compile_on(device, &src, &opts).map_err(|e| e.with_spans(&spans))?;
        let f = module.function(name)?;
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.clone(), f.clone());
        Ok(f)
    }
}
