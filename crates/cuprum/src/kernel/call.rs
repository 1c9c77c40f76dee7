//! The steps every call of a generated kernel (ElementwiseKernel, ReductionKernel) takes,
//! each written once. A kind adds only its own plan (the elementwise layout, the reduction
//! strategy) and the packing of its own trailing parameters. In call order:
//!
//! 1. [`bind`]: the call's arguments to the parameters (CuPy's count check, read-write
//!    parameters);
//! 2. [`on_stream`]: the call's stream, with every array on its device;
//! 3. [`array_shapes`]: the shapes the kind broadcasts into its loop or input shape; then
//!    [`resolve_dtypes`] (placeholders by exact match);
//! 4. [`prepare_outputs`]: given outputs checked against the output shape, the others
//!    allocated on the stream;
//! 5. the kind's plan, its specialisation key, and [`specialisation`]: the compiled kernel
//!    from the kernel's table (generated and compiled on first use);
//! 6. [`pack_operands`]: the user's parameters into the kernel's packer (the kind then
//!    packs its own: loop size, [`table_words`] of shapes and strides, scratch);
//! 7. the launch, with the kind's launch configuration.

use super::codegen::entry::Slot;
use super::operand::Operand;
use super::params::{Param, ParamType, TypeMap};
use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::{Result, bail, err};
use crate::kernel_abi::{CompiledKernel, GeneratedKernel, KernelTable, Packer};
use crate::runtime::{Device, Stream};
use crate::shape::format_shape;
use smallvec::SmallVec;
use std::hash::Hash;
use std::sync::Arc;

/// What a generated kernel's calls are checked against: its name and the parameters of
/// its generated code, inputs first.
#[derive(Debug, Clone)]
pub(crate) struct Signature {
    pub name: String,
    pub params: Vec<Param>,
    /// How many of `params` are inputs.
    pub nin: usize,
}

impl Signature {
    /// Number of outputs.
    pub fn nout(&self) -> usize {
        self.params.len() - self.nin
    }
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

/// Whether two arrays are the same view (the same elements in the same order).
fn same_view(a: &Array, b: &Array) -> bool {
    a.data_ptr() == b.data_ptr()
        && a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
        && a.device() == b.device()
}

/// Step 1: binds a call's arguments (CuPy's first checks, before any GPU work): the
/// inputs, or the inputs and every output; outputs are arrays. `input_at` maps each
/// argument of the inputs to its parameter (`None`: in order): a read-write parameter's
/// argument is the output's array, and its repeat among the outputs must be that same
/// array.
pub(crate) fn bind<'a>(
    sig: &Signature,
    input_at: Option<&[usize]>,
    args: &[Operand<'a>],
) -> Result<Bound<'a>> {
    let (name, nin, nout) = (&sig.name, sig.nin, sig.nout());
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
            other => bail!(
                InvalidArgument,
                "parameter '{}' of '{name}' is read-write (in both lists): it needs an array, \
                 written in place, but was given a {}",
                sig.params[at].name,
                other.describe()
            ),
        }
    }
    for (j, arg) in args.iter().skip(args_in).enumerate() {
        bind_output(sig, &mut outputs[j], j, arg)?;
    }
    Ok(Bound { inputs, outputs })
}

/// Binds the argument given for output `j`: an array, the read-write input's own array
/// when the parameter is read-write.
fn bind_output<'a>(
    sig: &Signature,
    slot: &mut Option<&'a Array>,
    j: usize,
    arg: &Operand<'a>,
) -> Result<()> {
    let (name, p) = (&sig.name, &sig.params[sig.nin + j]);
    let arr = match arg {
        Operand::Array(arr) => *arr,
        other => bail!(
            InvalidArgument,
            "Output arguments type must be cuprum::Array: output '{}' of '{name}' was given a {}",
            p.name,
            other.describe()
        ),
    };
    match *slot {
        Some(first) if !same_view(first, arr) => bail!(
            InvalidArgument,
            "parameter '{}' of '{name}' is read-write (in both lists): its output argument \
             must be the array given as its input (it is written in place); got {} for the \
             input and {} for the output",
            p.name,
            Operand::Array(first).describe(),
            Operand::Array(arr).describe()
        ),
        _ => *slot = Some(arr),
    }
    Ok(())
}

/// The stream of a call (see [`on_stream`]).
fn launch_stream(s: &Option<Stream>, args: &Bound<'_>) -> Result<Stream> {
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

/// Step 2: the call's stream, after the device check: every array lives on the stream's
/// device.
///
/// The stream is the given one; else, on the device of the call's first array, the
/// current stream when it belongs to that device or the device's default stream; the
/// current stream when the call has no array.
pub(crate) fn on_stream(
    sig: &Signature,
    args: &Bound<'_>,
    stream: &Option<Stream>,
) -> Result<Stream> {
    let stream = launch_stream(stream, args)?;
    let device = stream.device();
    for (k, a) in args.given() {
        if let Operand::Array(arr) = a
            && arr.device() != device
        {
            bail!(
                DeviceMismatch,
                "'{}': expected argument '{}' on {device}, the device of the call, given an \
                 array on {}; move it with `to_device` first",
                sig.name,
                sig.params[k].name,
                arr.device()
            );
        }
    }
    Ok(stream)
}

/// Step 3: the shapes of the non-raw arrays given: the inputs' and, `with_outputs`, the
/// given outputs' (what the loop or input shape is broadcast from).
pub(crate) fn array_shapes<'a>(
    sig: &Signature,
    args: &Bound<'a>,
    with_outputs: bool,
) -> SmallVec<[&'a [usize]; 8]> {
    args.given()
        .filter(|&(k, _)| with_outputs || k < sig.nin)
        .filter_map(|(k, a)| match a {
            Operand::Array(arr) if !sig.params[k].raw => Some(arr.shape()),
            _ => None,
        })
        .collect()
}

/// Step 3: every parameter's dtype: placeholders bound by exact match, given outputs
/// first, then inputs; scalars decide nothing. Then the scalars are checked against their
/// parameters' dtypes: a device type's value only for a parameter of that device type,
/// a number never for one (before anything is compiled).
pub(crate) fn resolve_dtypes(sig: &Signature, args: &Bound<'_>) -> Result<SmallVec<[DType; 8]>> {
    let params = &sig.params;
    let mut tm = TypeMap::default();
    for (j, a) in args.outputs.iter().enumerate() {
        if let Some(a) = a {
            tm.bind(&params[sig.nin + j], a.dtype())?;
        }
    }
    for (p, a) in params.iter().zip(&args.inputs) {
        match a {
            Operand::Array(arr) => tm.bind(p, arr.dtype())?,
            // `cudaTextureObject_t` is `unsigned long long` (a concrete type is checked by
            // `check_scalar` below).
            Operand::Texture(_) if matches!(p.ty, ParamType::Placeholder(_)) => {
                tm.bind(p, DType::U64)?
            }
            _ => {}
        }
    }
    let dtypes: SmallVec<[DType; 8]> = params
        .iter()
        .map(|p| tm.resolve(p))
        .collect::<Result<_>>()?;
    for ((p, a), &d) in params.iter().zip(&args.inputs).zip(&dtypes) {
        check_scalar(sig, p, *a, d)?;
    }
    Ok(dtypes)
}

/// A scalar operand against its parameter's dtype `d`: a device type's value needs a
/// parameter of its own record dtype, a number a parameter that is not a record.
fn check_scalar(sig: &Signature, p: &Param, a: Operand<'_>, d: DType) -> Result<()> {
    let fits = match a {
        Operand::Array(_) => true,
        Operand::Scalar(_) => !matches!(d, DType::Record(_)),
        Operand::Record(r) => d == DType::Record(r.record()),
        Operand::Texture(_) => matches!(d, DType::U64 | DType::I64),
    };
    if !fits {
        let want = match d {
            DType::Record(_) => format!("a {d} value (a device type)"),
            _ => format!("a {d} scalar or array"),
        };
        bail!(
            DType,
            "argument '{}' of '{}': the parameter is declared {d}, so it takes {want}; given a {}",
            p.name,
            sig.name,
            a.describe()
        );
    }
    Ok(())
}

/// How a kind words its output checks.
pub(crate) struct OutputRule {
    /// Ends the shape mismatch message: `"the loop shape is"`, `"the reduction gives"`.
    pub shape_is: &'static str,
    /// Whether a raw output that is not given may be allocated (with the output shape).
    pub raw_allocated: bool,
    /// Ends the message when it may not: why its size is undecided.
    pub raw_undecided: &'static str,
}

/// The arrays a kernel call returns: one inline (the common case), more on the heap. One
/// array inline keeps the list small to move: each call hands it up through several frames
/// (a list of four inline was ~470 bytes, a `memcpy` at each move).
pub(crate) type Outputs = SmallVec<[Array; 1]>;

/// Step 4: the outputs: each given one checked against `shape` (raw ones are not), the
/// others allocated on `stream` with their resolved dtypes.
pub(crate) fn prepare_outputs(
    sig: &Signature,
    args: &Bound<'_>,
    dtypes: &[DType],
    shape: &[usize],
    stream: &Stream,
    rule: &OutputRule,
) -> Result<Outputs> {
    let mut outs: Outputs = SmallVec::new();
    for (j, given) in args.outputs.iter().enumerate() {
        let p = &sig.params[sig.nin + j];
        match given {
            Some(a) => {
                a.check_writeable(format_args!("output '{}' of '{}'", p.name, sig.name))?;
                if !p.raw && a.shape() != shape {
                    bail!(
                        Shape,
                        "Out shape is mismatched: output '{}' has shape {}, {} {}",
                        p.name,
                        format_shape(a.shape()),
                        rule.shape_is,
                        format_shape(shape)
                    );
                }
                outs.push((*a).clone());
            }
            None => {
                if p.raw && !rule.raw_allocated {
                    bail!(
                        InvalidArgument,
                        "Output array size is Undecided (raw output '{}' of '{}' is not given{})",
                        p.name,
                        sig.name,
                        rule.raw_undecided
                    );
                }
                outs.push(Array::empty_on(shape, dtypes[sig.nin + j], stream)?);
            }
        }
    }
    Ok(outs)
}

/// The operand of parameter `k`: the bound input, or the output array.
pub(crate) fn operand_at<'a: 'b, 'b>(args: &Bound<'a>, outs: &'b [Array], k: usize) -> Operand<'b> {
    match args.inputs.get(k) {
        Some(&a) => a,
        None => Operand::Array(&outs[k - args.inputs.len()]),
    }
}

/// Step 5: the kernel of one specialisation from the kernel's table, generated by `make`
/// and compiled on the stream's device on first use (program name `<kernel>.cu`).
pub(crate) fn specialisation<K: Hash + Eq + Clone>(
    table: &KernelTable<K>,
    key: &K,
    stream: &Stream,
    name: &str,
    options: &CompileOptions,
    make: impl FnOnce() -> Result<GeneratedKernel>,
) -> Result<Arc<CompiledKernel>> {
    let device: Device = stream.device();
    table.get_or_compile(key, device, || {
        Ok((make()?, options.clone().program_name(format!("{name}.cu"))))
    })
}

/// Step 6: packs the user's parameters: raw arrays as views (`CArray`s), broadcast arrays
/// as pointers, scalars converted to their parameter's dtype (NumPy's assignment rules),
/// device types' values as their bytes (their record checked in step 3).
/// Array addresses are taken for `stream` (see `Array::ptr_on`).
pub(crate) fn pack_operands<'a>(
    p: &mut Packer<'_>,
    sig: &Signature,
    dtypes: &[DType],
    stream: &Stream,
    operand: impl Fn(usize) -> Operand<'a>,
) -> Result<()> {
    for (k, param) in sig.params.iter().enumerate() {
        match operand(k) {
            Operand::Array(a) if param.raw => p.view(a.ptr_on(stream), a.shape(), a.strides())?,
            Operand::Array(a) => p.pointer(a.ptr_on(stream))?,
            Operand::Scalar(s) => p
                .scalar(s.cast(dtypes[k]).map_err(|e| {
                    err!(DType, "argument '{}' of '{}': {e}", param.name, sig.name)
                })?)?,
            Operand::Record(r) => p.record(dtypes[k], r.record(), |b| r.write(b))?,
            // The handle's bits, for a parameter of a 64-bit integer type (`check_scalar`).
            Operand::Texture(t) => p.scalar(match dtypes[k] {
                DType::I64 => crate::Scalar::I64(t.handle() as i64),
                _ => crate::Scalar::U64(t.handle()),
            })?,
        }
    }
    Ok(())
}

/// The integers of a shape-and-strides table (`cuprum_meta`, `cuprum_rmeta`): `max(nd, 1)`
/// extents (1 past the shape), then `max(rows, 1)` rows of `max(nd, 1)` strides (0 past
/// each row or when there are none).
pub(crate) fn table_words<'t, S: AsRef<[isize]>>(
    shape: &'t [usize],
    strides: &'t [S],
) -> impl Iterator<Item = i64> + 't {
    let nd = shape.len().max(1);
    let rows = strides.len().max(1);
    let extents = (0..nd).map(move |d| shape.get(d).copied().unwrap_or(1) as i64);
    let rows = (0..rows * nd).map(move |i| {
        let row = strides.get(i / nd).map(AsRef::as_ref);
        row.and_then(|r| r.get(i % nd)).copied().unwrap_or(0) as i64
    });
    extents.chain(rows)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_to_one_dimension_and_one_row() {
        let st: [&[isize]; 2] = [&[4, 1], &[0, 1]];
        let w: Vec<i64> = table_words(&[3, 4], &st).collect();
        assert_eq!(w, [3, 4, 4, 1, 0, 1]);
        let none: [&[isize]; 0] = [];
        assert_eq!(table_words(&[5], &none).collect::<Vec<_>>(), [5, 0]);
        let w: Vec<i64> = table_words(&[], &[&[][..] as &[isize]]).collect();
        assert_eq!(w, [1, 0]);
    }
}
