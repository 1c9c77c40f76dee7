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

/// The stream a call runs on: the given one; else, on the device of the call's first
/// array, the current stream when it belongs to that device or the device's default
/// stream; the current stream when the call has no array.
pub(crate) fn launch_stream(s: &Option<Stream>, args: &Bound<'_>) -> Result<Stream> {
    if let Some(s) = s {
        return Ok(s.clone());
    }
    match args.given().find_map(|(_, a)| match a {
        Operand::Array(arr) => Some(arr.device()),
        _ => None,
    }) {
        Some(device) => Stream::for_device(device),
        None => Stream::current(),
    }
}

/// CuPy's first check (before any GPU work): the inputs, or the inputs and every output.
fn check_count(name: &str, nin: usize, nargs: usize, given: usize) -> Result<()> {
    if given != nin && given != nargs {
        bail!(
            InvalidArgument,
            "Wrong number of arguments for '{name}'. It must be either {nin} or {nargs} (with outputs), but given {given}."
        );
    }
    Ok(())
}

/// A call's arguments bound to a kernel's parameters: one operand per input parameter
/// and, per output parameter, the array given for it (if any).
#[derive(Debug)]
pub(crate) struct Bound<'a> {
    /// One per input parameter.
    pub inputs: SmallVec<[Operand<'a>; 8]>,
    /// One per output parameter.
    pub outputs: SmallVec<[Option<&'a Array>; 4]>,
}

impl<'a> Bound<'a> {
    /// Every operand given, with its parameter's index (inputs first).
    pub fn given(&self) -> impl Iterator<Item = (usize, Operand<'a>)> + '_ {
        let nin = self.inputs.len();
        self.inputs.iter().copied().enumerate().chain(
            self.outputs
                .iter()
                .enumerate()
                .filter_map(move |(j, a)| a.map(|a| (nin + j, Operand::Array(a)))),
        )
    }
}

/// Whether two arrays are the same view (the same elements in the same order).
fn same_view(a: &Array, b: &Array) -> bool {
    a.data_ptr() == b.data_ptr()
        && a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
        && a.device() == b.device()
}

/// Binds a call's arguments (CuPy's first checks, before any GPU work): the inputs, or
/// the inputs and every output; outputs are arrays. `input_at` maps each argument of the
/// inputs to its parameter (`None`: in order): a read-write parameter's argument is the
/// output's array, and its repeat among the outputs must be that same array.
pub(crate) fn bind<'a>(
    name: &str,
    params: &[Param],
    nin: usize,
    input_at: Option<&[usize]>,
    args: &[Operand<'a>],
) -> Result<Bound<'a>> {
    let nout = params.len() - nin;
    let args_in = input_at.map_or(nin, <[usize]>::len);
    check_count(name, args_in, args_in + nout, args.len())?;
    let mut inputs: SmallVec<[Operand<'a>; 8]> = SmallVec::new();
    let mut outputs: SmallVec<[Option<&'a Array>; 4]> = SmallVec::from_elem(None, nout);
    for (a, arg) in args.iter().take(args_in).enumerate() {
        let at = input_at.map_or(a, |m| m[a]);
        if at < nin {
            inputs.push(*arg);
            continue;
        }
        match arg {
            Operand::Array(arr) => outputs[at - nin] = Some(*arr),
            Operand::Scalar(s) => bail!(
                InvalidArgument,
                "parameter '{}' of '{name}' is read-write (in both lists): it needs an array, \
                 written in place, but was given a {} scalar",
                params[at].name,
                s.dtype().rust_name()
            ),
        }
    }
    for (j, arg) in args.iter().skip(args_in).enumerate() {
        let p = &params[nin + j];
        let arr = match arg {
            Operand::Array(arr) => *arr,
            Operand::Scalar(s) => bail!(
                InvalidArgument,
                "Output arguments type must be cuprum::Array: output '{}' of '{name}' was given a {} scalar",
                p.name,
                s.dtype().rust_name()
            ),
        };
        match outputs[j] {
            Some(first) if !same_view(first, arr) => bail!(
                InvalidArgument,
                "parameter '{}' of '{name}' is read-write (in both lists): its output argument \
                 must be the array given as its input (it is written in place); got {} for the \
                 input and {} for the output",
                p.name,
                Operand::Array(first).describe(),
                Operand::Array(arr).describe()
            ),
            _ => outputs[j] = Some(arr),
        }
    }
    Ok(Bound { inputs, outputs })
}

/// The device check of a call's arrays: they all live on the launch stream's device.
pub(crate) fn check_args(
    name: &str,
    params: &[Param],
    args: &Bound<'_>,
    device: Device,
) -> Result<()> {
    for (k, a) in args.given() {
        if let Operand::Array(arr) = a
            && arr.device() != device
        {
            bail!(
                DeviceMismatch,
                "'{name}': expected argument '{}' on device {} ({}), the device of the call, \
                 given an array on device {} ({}); move it with `to_device` first",
                params[k].name,
                device.ordinal(),
                device.name(),
                arr.device().ordinal(),
                arr.device().name()
            );
        }
    }
    Ok(())
}

/// Every parameter's dtype: placeholders bound by exact match, given outputs first, then
/// inputs; scalars decide nothing.
pub(crate) fn resolve_dtypes(params: &[Param], args: &Bound<'_>) -> Result<SmallVec<[DType; 8]>> {
    let mut tm = TypeMap::default();
    let nin = args.inputs.len();
    for (j, a) in args.outputs.iter().enumerate() {
        if let Some(a) = a {
            tm.bind(&params[nin + j], a.dtype())?;
        }
    }
    for (p, a) in params.iter().zip(&args.inputs) {
        if let Operand::Array(arr) = a {
            tm.bind(p, arr.dtype())?;
        }
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

/// A kernel's compiled specialisations, per device (a module is loaded into one device's
/// context): a repeat call is one lookup.
pub(crate) struct Specs<K>(Mutex<FxHashMap<(usize, K), Function>>);

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
        let at = (device.ordinal(), key.clone());
        if let Some(f) = self.0.lock().unwrap_or_else(|p| p.into_inner()).get(&at) {
            return Ok(f.clone());
        }
        let (src, spans) = source()?;
        let opts = options.clone().program_name(format!("{name}.cu"));
        let module = compile_on(device, &src, &opts).map_err(|e| e.with_spans(&spans))?;
        let f = module.function(name)?;
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(at, f.clone());
        Ok(f)
    }
}
