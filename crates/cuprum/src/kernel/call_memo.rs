//! [`CallMemo`]: a generated kernel's last few call plans, each under the fingerprint of
//! the call it was made for, so that a repeated call launches without planning again.
//!
//! Decision — **a call whose fingerprint was seen replays that call's plan.** Every step of
//! `call.rs` before the packing (binding, the stream's device, the loop or input shape,
//! the dtypes, the output shapes, the kind's layout or strategy, the compiled kernel from
//! its table, the launch configuration, the shape and stride tables) is a function of:
//! - per operand, in the order given: an array's dtype, shape, element strides, device,
//!   read-only flag and the alignment of its data address (up to 256 bytes: vector widths
//!   and staging depend on it); a scalar's dtype;
//! - the call's options (a loop size, a block size, axes, keepdims), as integers;
//! - the device of the call's stream.
//!
//! That tuple is the fingerprint. A call with the fingerprint of an earlier *successful*
//! call skips those steps: it allocates the outputs, packs what varies from call to call
//! (addresses and scalar values, each scalar cast and range-checked as always) and
//! launches with the remembered configuration, through the same launch function (its
//! fault and limit checks run every time). Every check the skipped steps make depends only
//! on the fingerprint, so a replay never skips a check that would have failed; a failed
//! call stores nothing. Record operands (a device type's value) and kernels with
//! read-write parameters (a same-view check between two operands) are never memoised.
//!
//! Decision — **a plan holds its fresh outputs ready to allocate** ([`OutputPlan`]): their
//! shape, its C strides and each output's bytes, computed (and checked) once when the plan
//! is made, so a replay allocates each output and wraps it without recomputing sizes or
//! strides. The arrays are still new each call (fresh memory from the pool).
//!
//! Decision — **outputs are written in place.** [`CallMemo::call`] and the kinds' replays
//! take the list of outputs (`&mut Outputs`) and fill it, and Python's faces hand it to
//! the result the same way: an array is over a hundred bytes, and a list returned by value
//! was copied at every step (about 200 instructions a call).
//!
//! The memo keeps [`MEMO_ENTRIES`] plans, the newest first; a kernel called with a few
//! argument signatures in turn keeps them all. Measured (callgrind, an `ElementwiseKernel`
//! of two float32 inputs on the host device): the planning it skips was about 3,300
//! instructions of the 6,700 a call spent before its launch. With the outputs planned and
//! written in place and the packing done in place, a replayed call from Python spends about
//! 2,800 instructions outside the backend's launch (it was 4,300).

use super::operand::Operand;
use crate::array::DType;
use crate::error::Result;
use crate::runtime::{Device, Stream};
use smallvec::SmallVec;
use std::sync::{Arc, Mutex};

/// How many plans a kernel remembers.
pub(crate) const MEMO_ENTRIES: usize = 4;

/// One operand as its plan sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OperandPrint {
    Array {
        dtype: DType,
        device: Device,
        shape: crate::shape::Shape,
        strides: crate::shape::Strides,
        /// log2 of the data address's alignment, at most 8.
        align: u8,
        read_only: bool,
    },
    Scalar(DType),
}

/// `a == b` for the few extents or strides of an array, element by element (a slice
/// comparison calls `memcmp`, dearer than the loop at these lengths).
fn same<T: Copy + Eq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// log2 of the alignment of `ptr`, at most 8 (256 bytes).
fn align_of(ptr: u64) -> u8 {
    ptr.trailing_zeros().min(8) as u8
}

impl OperandPrint {
    fn of(op: &Operand<'_>) -> Option<OperandPrint> {
        match op {
            Operand::Array(a) => Some(OperandPrint::Array {
                dtype: a.dtype(),
                device: a.device(),
                shape: a.shape().into(),
                strides: a.strides().into(),
                align: align_of(a.data_ptr()),
                read_only: a.read_only,
            }),
            Operand::Scalar(s) => Some(OperandPrint::Scalar(s.dtype())),
            Operand::Record(_) | Operand::Texture(_) => None,
        }
    }

    fn matches(&self, op: &Operand<'_>) -> bool {
        match (self, op) {
            (
                OperandPrint::Array {
                    dtype,
                    device,
                    shape,
                    strides,
                    align,
                    read_only,
                },
                Operand::Array(a),
            ) => {
                *dtype == a.dtype()
                    && *device == a.device()
                    && same(shape, a.shape())
                    && same(strides, a.strides())
                    && *align == align_of(a.data_ptr())
                    && *read_only == a.read_only
            }
            (OperandPrint::Scalar(d), Operand::Scalar(s)) => *d == s.dtype(),
            _ => false,
        }
    }
}

/// A call's fingerprint (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    device: Device,
    options: SmallVec<[i64; 6]>,
    operands: SmallVec<[OperandPrint; 4]>,
}

impl Fingerprint {
    /// The fingerprint of a call, or `None` for one that is never memoised (a record
    /// operand).
    pub(crate) fn of(device: Device, options: &[i64], ops: &[Operand<'_>]) -> Option<Fingerprint> {
        Some(Fingerprint {
            device,
            options: options.into(),
            operands: ops.iter().map(OperandPrint::of).collect::<Option<_>>()?,
        })
    }

    fn matches(&self, device: Device, options: &[i64], ops: &[Operand<'_>]) -> bool {
        self.device == device
            && same(&self.options, options)
            && self.operands.len() == ops.len()
            && self.operands.iter().zip(ops).all(|(p, o)| p.matches(o))
    }
}

/// A kernel's remembered plans (`P`: the kind's plan), newest first.
#[derive(Debug)]
pub(crate) struct CallMemo<P>(Mutex<Entries<P>>);

/// The remembered plans, newest first.
type Entries<P> = SmallVec<[(Fingerprint, Arc<P>); MEMO_ENTRIES]>;

impl<P> Default for CallMemo<P> {
    fn default() -> Self {
        CallMemo(Mutex::new(SmallVec::new()))
    }
}

impl<P> CallMemo<P> {
    /// The plan of an earlier call with this fingerprint.
    pub(crate) fn find(
        &self,
        device: Device,
        options: &[i64],
        ops: &[Operand<'_>],
    ) -> Option<Arc<P>> {
        let entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .iter()
            .find(|(f, _)| f.matches(device, options, ops))
            .map(|(_, p)| p.clone())
    }

    /// A call through the memo: `replay` of the plan remembered for this call's fingerprint
    /// (its stream as `call_stream` chooses it), else `plan`, which runs the call the whole
    /// way and returns the plan to remember. Both write the call's outputs into `out` (in
    /// place: a list of arrays is a few hundred bytes, not moved from call to call).
    pub(crate) fn call<O>(
        &self,
        stream: &Option<Stream>,
        options: &[i64],
        args: &[Operand<'_>],
        out: &mut O,
        replay: impl FnOnce(&P, &Stream, &mut O) -> Result<()>,
        plan: impl FnOnce(&mut O) -> Result<P>,
    ) -> Result<()> {
        let Some(stream) = call_stream(stream, args)? else {
            return plan(out).map(drop);
        };
        if let Some(r) = self.find(stream.device(), options, args) {
            return replay(&r, &stream, out);
        }
        let p = plan(out)?;
        if let Some(f) = Fingerprint::of(stream.device(), options, args) {
            self.remember(f, p);
        }
        Ok(())
    }

    /// Forgets every plan (the kernel's code or options changed).
    pub(crate) fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Remembers `plan` for calls with `fingerprint` (the oldest plan goes when full).
    pub(crate) fn remember(&self, fingerprint: Fingerprint, plan: P) {
        self.remember_shared(fingerprint, Arc::new(plan));
    }

    /// [`CallMemo::remember`] of a plan that other fingerprints may hold too.
    pub(crate) fn remember_shared(&self, fingerprint: Fingerprint, plan: Arc<P>) {
        let mut entries = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if entries.iter().any(|(f, _)| *f == fingerprint) {
            return;
        }
        if entries.len() == MEMO_ENTRIES {
            entries.pop();
        }
        entries.insert(0, (fingerprint, plan));
    }
}

/// The fresh outputs of a replayed call, planned once with the plan: their one shape, its
/// C strides, and per output parameter its dtype and bytes — a replay allocates them
/// without recomputing the sizes or the strides.
#[derive(Debug)]
pub(crate) struct OutputPlan {
    shape: crate::shape::Shape,
    strides: crate::shape::Strides,
    /// The shape and strides as whole inline buffers, when they fit one (a copy of fixed
    /// size, no copy of a run-time length).
    inline: Option<([usize; 6], [isize; 6])>,
    /// Per output parameter: its dtype and bytes (`None` when the shape is refused: the
    /// allocation then reports it, as [`Array::empty_on`](crate::array::Array::empty_on)).
    outs: SmallVec<[(DType, Option<usize>); 2]>,
}

impl OutputPlan {
    /// The plan of outputs of `shape`, one per dtype in `dtypes` (the output parameters').
    pub(crate) fn new(shape: crate::shape::Shape, dtypes: &[DType]) -> OutputPlan {
        let strides = crate::shape::c_strides(&shape).unwrap_or_default();
        let outs = dtypes
            .iter()
            .map(|&d| (d, crate::shape::nbytes_of(&shape, d.itemsize()).ok()))
            .collect();
        let mut inline = None;
        if shape.len() <= 6 && strides.len() == shape.len() {
            let (mut e, mut st) = ([0usize; 6], [0isize; 6]);
            e[..shape.len()].copy_from_slice(&shape);
            st[..shape.len()].copy_from_slice(&strides);
            inline = Some((e, st));
        }
        OutputPlan {
            shape,
            strides,
            inline,
            outs,
        }
    }

    /// The outputs' shape and C strides, as an array holds them.
    #[inline]
    fn shape_and_strides(&self) -> (crate::shape::Shape, crate::shape::Strides) {
        match self.inline {
            Some((e, st)) => {
                let n = self.shape.len();
                (
                    SmallVec::from_buf_and_len(e, n),
                    SmallVec::from_buf_and_len(st, n),
                )
            }
            None => (
                SmallVec::from_slice(&self.shape),
                SmallVec::from_slice(&self.strides),
            ),
        }
    }

    /// Output `j`, allocated on `stream` and pushed onto `outs` (built in place: an array
    /// is over a hundred bytes).
    fn push(&self, j: usize, stream: &Stream, outs: &mut crate::kernel::Outputs) -> Result<()> {
        use crate::array::Array;
        match self.outs.get(j) {
            Some(&(dtype, Some(bytes))) => {
                let buf = crate::runtime::Buffer::alloc(bytes, stream)?;
                let (shape, strides) = self.shape_and_strides();
                outs.push(Array::planned(buf, dtype, shape, strides));
            }
            Some(&(dtype, None)) => outs.push(Array::empty_on(&self.shape, dtype, stream)?),
            None => {
                return Err(crate::error::err!(
                    Launch,
                    "internal error: a replayed call has no plan for output {j}"
                ));
            }
        }
        Ok(())
    }
}

/// The outputs of a replayed call whose arguments bind one to one (`nin` inputs, then the
/// given outputs), pushed onto `outs`: each given output, the others allocated as `plan`
/// says.
#[inline]
pub(crate) fn replay_outputs(
    args: &[Operand<'_>],
    (nin, nout): (usize, usize),
    plan: &OutputPlan,
    stream: &Stream,
    outs: &mut crate::kernel::Outputs,
) -> Result<()> {
    for j in 0..nout {
        match args.get(nin + j) {
            Some(Operand::Array(a)) => outs.push((*a).clone()),
            _ => plan.push(j, stream, outs)?,
        }
    }
    Ok(())
}

/// Parameter `k` of a replayed call with `nin` inputs: its argument, or its output.
pub(crate) fn replay_operand<'a>(
    args: &[Operand<'a>],
    outs: &'a [crate::array::Array],
    nin: usize,
    k: usize,
) -> Operand<'a> {
    match args.get(k) {
        Some(&o) => o,
        None => Operand::Array(&outs[k - nin]),
    }
}

/// A call's stream, as `call.rs` chooses it (`launch_stream`) for a call whose arguments
/// bind one to one: the given stream, else the first array operand's device's. `None` for
/// a call with neither (scalars only): such a call is not memoised, so that its errors
/// (an argument count, an undecided size) come before any device is touched.
fn call_stream(stream: &Option<Stream>, ops: &[Operand<'_>]) -> Result<Option<Stream>> {
    if let Some(s) = stream {
        return Ok(Some(s.clone()));
    }
    let first = ops.iter().find_map(|o| match o {
        Operand::Array(a) => Some(a.device()),
        _ => None,
    });
    first.map(Stream::for_device).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Array, Scalar};

    #[test]
    fn fingerprints_tell_apart_what_plans_depend_on() {
        let stream = Stream::for_device(Device::host()).unwrap();
        let arr = |shape: &[usize], d: DType| Array::empty_on(shape, d, &stream).unwrap();
        let (x, y) = (arr(&[2, 3], DType::F32), arr(&[2, 3], DType::F32));
        let host = Device::host();
        let ops = [Operand::Array(&x), Operand::Scalar(Scalar::F64(2.0))];
        let f = Fingerprint::of(host, &[-1, 7], &ops).unwrap();
        // Another array of the same dtype, shape, strides and alignment; another value.
        assert!(f.matches(
            host,
            &[-1, 7],
            &[Operand::Array(&y), Operand::Scalar(Scalar::F64(-5.0))]
        ));
        // Options, scalar dtype, count, shape, strides, dtype, read-only, alignment.
        assert!(!f.matches(host, &[-1, 8], &ops));
        assert!(!f.matches(
            host,
            &[-1, 7],
            &[Operand::Array(&x), Operand::Scalar(Scalar::F32(2.0))]
        ));
        assert!(!f.matches(host, &[-1, 7], &ops[..1]));
        let t = x.transpose();
        let r = x.reshape(&[3, 2]).unwrap();
        let w = arr(&[2, 3], DType::F64);
        let mut ro = x.clone();
        ro.read_only = true;
        let flat = x.reshape(&[6]).unwrap();
        let off = flat.slice(&crate::s![1..]).unwrap();
        for other in [&t, &r, &w, &ro] {
            let o = [Operand::Array(other), ops[1]];
            assert!(!f.matches(host, &[-1, 7], &o));
        }
        // The same dtype, shape and strides four bytes further on: another alignment.
        let head = flat.slice(&crate::s![..5]).unwrap();
        let f5 = Fingerprint::of(host, &[], &[Operand::Array(&head)]).unwrap();
        assert!(!f5.matches(host, &[], &[Operand::Array(&off)]));
    }

    #[test]
    fn the_memo_keeps_the_newest_plans() {
        let memo: CallMemo<u32> = CallMemo::default();
        let host = Device::host();
        let print = |k: i64| Fingerprint::of(host, &[k], &[]).unwrap();
        for k in 0..6 {
            memo.remember(print(k), k as u32);
        }
        assert_eq!(memo.find(host, &[5], &[]).as_deref(), Some(&5));
        assert_eq!(memo.find(host, &[2], &[]).as_deref(), Some(&2));
        assert_eq!(memo.find(host, &[1], &[]), None, "the oldest went");
        memo.remember(print(5), 99);
        assert_eq!(memo.find(host, &[5], &[]).as_deref(), Some(&5), "kept once");
    }
}
