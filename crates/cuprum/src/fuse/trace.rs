//! Tracing: the user's closure runs once per input signature with [`Var`]s, and every
//! operation on them adds a node to the innermost tracer of this thread (a stack, so a
//! fused call made while tracing another works). NumPy's rules are applied here, node by
//! node, from the table `ops` uses (`ops/ufunc.rs`, `ops/promote.rs`, `ops/reduction.rs`):
//! promotion with weak Rust scalars, each row's loop, explicit conversions, the small
//! powers, the constant comparisons, reductions' result dtypes and axes.
//!
//! Operators cannot return `Result`: the first failure is stored with the user's line and
//! every later operation returns a poisoned [`Var`]; the call returns the error.

use super::ir::{Kind, Node, NodeId, Program, Slot};
use super::operand::{Loc, POISON, Var, VarArg};
use crate::array::{DType, Scalar};
use crate::error::{Error, Result, bail, err};
use crate::ops::ReduceOpts;
use crate::ops::clip::{check_unbounded, scalar_beyond_range};
use crate::ops::promote::{promote_types, result_type_of};
use crate::ops::reduction::{AccOpts, Accum, ROp};
use crate::ops::scan::{ScanOp, scan_dtype};
use crate::ops::ufunc::{Op, SmallPower, out_of_range_comparison};
use crate::shape::normalize_axis;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};

/// What one argument of a call is, as far as tracing cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ArgSig {
    pub(crate) dtype: DType,
    /// Dimensions of an array argument; [`ArgSig::SCALAR`] for a scalar.
    pub(crate) ndim: u8,
}

impl ArgSig {
    /// The `ndim` of a scalar argument.
    pub(crate) const SCALAR: u8 = u8::MAX;

    pub(crate) fn is_scalar(&self) -> bool {
        self.ndim == Self::SCALAR
    }
}

static NEXT_TRACE: AtomicU32 = AtomicU32::new(1);

thread_local! {
    static STACK: RefCell<Vec<Tracer>> = const { RefCell::new(Vec::new()) };
}

type CseKey = (Kind, SmallVec<[NodeId; 3]>, DType, bool);

/// One trace in progress.
struct Tracer {
    id: u32,
    name: String,
    nodes: Vec<Node>,
    cse: FxHashMap<CseKey, NodeId>,
    slots: Vec<Slot>,
    error: Option<Error>,
    /// Operations recorded so far.
    clock: u32,
    /// The time of the last operation given each node as an operand.
    used_at: FxHashMap<NodeId, u32>,
}

/// Pops this thread's innermost tracer when dropped (also when the closure panics).
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = STACK.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                s.pop();
            }
        });
    }
}

/// Runs `f` on fresh [`Var`]s for arguments of `sig` and returns what it computed.
/// `name` and `at` (the `fuse` call) go into messages.
pub(crate) fn trace(
    name: &str,
    at: Loc,
    sig: &[ArgSig],
    f: &dyn Fn(&[Var]) -> SmallVec<[Var; 4]>,
) -> Result<Program> {
    let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
    let mut t = Tracer {
        id,
        name: name.to_owned(),
        nodes: Vec::new(),
        cse: FxHashMap::default(),
        slots: Vec::new(),
        error: None,
        clock: 0,
        used_at: FxHashMap::default(),
    };
    let mut vars: SmallVec<[Var; 8]> = SmallVec::new();
    for (i, s) in sig.iter().enumerate() {
        let node = if s.is_scalar() {
            t.slots.push(Slot::Arg(i as u16));
            let slot = (t.slots.len() - 1) as u16;
            t.add(Kind::Scalar(slot), &[], s.dtype, 0, true, at)
        } else {
            t.add(Kind::Input(i as u16), &[], s.dtype, s.ndim, false, at)
        };
        vars.push(Var { trace: id, node });
    }
    STACK.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => {
            s.push(t);
            Ok(())
        }
        Err(_) => Err(err!(
            Unsupported,
            "fused `{name}`: cannot start tracing while this thread's tracer is busy"
        )),
    })?;
    let guard = Guard;
    let outs = f(&vars);
    // Returned normally: take the tracer off the stack here instead of in the guard.
    std::mem::forget(guard);
    let t = STACK
        .with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
        .ok_or_else(|| err!(Unsupported, "fused `{name}`: the tracer went missing"))?;
    if let Some(e) = t.error {
        return Err(e);
    }
    if outs.is_empty() {
        bail!(
            InvalidArgument,
            "fused `{name}` (at {at}) returns no values: return a Var, a tuple or an array of Vars"
        );
    }
    let mut outputs = SmallVec::new();
    for (k, v) in outs.iter().enumerate() {
        if v.trace != id || v.node == POISON || v.node as usize >= t.nodes.len() {
            bail!(
                InvalidArgument,
                "fused `{name}` (at {at}): returned value {k} was not traced by this call (a Var kept from another trace?)"
            );
        }
        outputs.push(v.node);
    }
    Ok(Program {
        nodes: t.nodes,
        outputs,
        slots: t.slots,
    }
    .pruned())
}

/// Runs `f` on the innermost tracer with the operands' nodes and returns the resulting
/// [`Var`], or a poisoned one (the first failure is recorded with `loc` and `what`).
fn record(
    args: &[VarArg],
    loc: Loc,
    what: &dyn Fn() -> String,
    f: impl FnOnce(&mut Tracer, &[NodeId]) -> Result<NodeId>,
) -> Var {
    STACK.with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else {
            return Var::DETACHED;
        };
        let Some(t) = s.last_mut() else {
            return Var::DETACHED;
        };
        let poison = Var {
            trace: t.id,
            node: POISON,
        };
        let mut ids: SmallVec<[NodeId; 3]> = SmallVec::new();
        t.clock += 1;
        for a in args {
            match *a {
                VarArg::Var(v) if v.trace != t.id || v.node as usize >= t.nodes.len() => {
                    if v.node != POISON || v.trace != t.id {
                        t.fail(
                            loc,
                            &what(),
                            err!(
                                InvalidArgument,
                                "a value that is not part of this trace was used (a Var kept from another fused function or an earlier call)"
                            ),
                        );
                    }
                    return poison;
                }
                VarArg::Var(v) => {
                    ids.push(v.node);
                    t.used_at.insert(v.node, t.clock);
                }
                VarArg::Literal(x) => ids.push(t.literal(x, loc)),
            }
        }
        if t.error.is_some() {
            return poison;
        }
        match f(t, &ids) {
            Ok(node) => Var { trace: t.id, node },
            Err(e) => {
                t.fail(loc, &what(), e);
                poison
            }
        }
    })
}

/// `op` applied to `args` (a row of the ufunc table), NumPy's promotion included.
pub(crate) fn ufunc(op: Op, args: &[VarArg], loc: Loc) -> Var {
    record(args, loc, &|| op.name().to_owned(), |t, ids| {
        t.ufunc(op, ids, loc)
    })
}

/// `base ** exponent`: a literal exponent 2, 3 or 0.5 becomes multiplications or a square
/// root, as in `ops`.
pub(crate) fn power(base: VarArg, exponent: VarArg, loc: Loc) -> Var {
    record(&[base, exponent], loc, &|| "power".to_owned(), |t, ids| {
        t.power(ids[0], ids[1], loc)
    })
}

/// `x.clip(lo, hi)`, a missing bound `None` (NumPy's `_clip`, as `ops::clip`): an integer
/// value's Rust integer bound beyond its dtype is dropped; one bound is `maximum` or
/// `minimum`; none is the value itself (refused for bools).
pub(crate) fn clip(x: Var, lo: Option<VarArg>, hi: Option<VarArg>, loc: Loc) -> Var {
    let mut args: SmallVec<[VarArg; 3]> = SmallVec::new();
    args.push(VarArg::Var(x));
    args.extend(lo);
    args.extend(hi);
    let has_lo = lo.is_some();
    record(&args, loc, &|| "clip".to_owned(), |t, ids| {
        let lo = has_lo.then(|| ids[1]);
        let hi = (ids.len() > 1 + usize::from(has_lo)).then(|| ids[ids.len() - 1]);
        t.clip(ids[0], lo, hi, loc)
    })
}

/// Scalar `x` as a strong 0-d value (a NumPy scalar in Python: it promotes as an array
/// of its dtype does, where a literal is weak).
#[cfg(feature = "python")]
pub(crate) fn strong_literal(x: Scalar, loc: Loc) -> Var {
    record(
        &[VarArg::Literal(x)],
        loc,
        &|| "astype".to_owned(),
        |t, ids| Ok(t.add(Kind::Cast, &[ids[0]], x.dtype(), 0, false, loc)),
    )
}

/// The dtype and number of dimensions of `v` in this thread's innermost trace, and whether
/// it is computed from scalars only (a Python scalar's value, not an array's); or why `v`
/// cannot be used: that trace's first failure, no trace running, a value of another trace.
#[cfg(feature = "python")]
pub(crate) fn node_info(v: Var) -> Result<(DType, u8, bool)> {
    STACK.with(|s| {
        let s = s
            .try_borrow()
            .map_err(|_| err!(Unsupported, "the tracer is busy"))?;
        let Some(t) = s.last() else {
            bail!(
                InvalidArgument,
                "a traced value was used outside its fused function (kept from an earlier call?)"
            );
        };
        if let Some(e) = &t.error {
            return Err(e.clone());
        }
        match t.nodes.get(v.node as usize) {
            Some(n) if v.trace == t.id => Ok((n.dtype, n.ndim, t.scalars_only(v.node))),
            _ => bail!(
                InvalidArgument,
                "fused `{}`: a value that is not part of this trace was used (kept from another fused function or an earlier call)",
                t.name
            ),
        }
    })
}

/// The number of operations this thread's innermost trace has recorded (0 with none
/// running): the time of an operation, for [`last_use`].
#[cfg(feature = "python")]
pub(crate) fn clock() -> u32 {
    STACK.with(|s| {
        s.try_borrow()
            .ok()
            .and_then(|s| s.last().map(|t| t.clock))
            .unwrap_or(0)
    })
}

/// The time ([`clock`]) of the last operation of this thread's innermost trace that was
/// given `v` itself as an operand (`None`: none was; `u32::MAX` when that cannot be told:
/// a value of another trace, no trace running). A value computed from `v` earlier keeps
/// what it read then; only an operation given `v` reads it again.
#[cfg(feature = "python")]
pub(crate) fn last_use(v: Var) -> Option<u32> {
    STACK.with(|s| {
        let Ok(s) = s.try_borrow() else {
            return Some(u32::MAX);
        };
        match s.last() {
            Some(t) if t.id == v.trace => t.used_at.get(&v.node).copied(),
            _ => Some(u32::MAX),
        }
    })
}

/// `x` with new axes of extent 1 where `new` has bits (bit `k`: axis `k` of the result, of
/// `ndim` axes), `x`'s axes in order elsewhere: `x[None, :, None]`, a view in NumPy.
#[cfg(feature = "python")]
pub(crate) fn expand_dims(x: Var, new: u64, ndim: u8, loc: Loc) -> Var {
    record(
        &[VarArg::Var(x)],
        loc,
        &|| "expand_dims".to_owned(),
        |t, ids| t.expand(ids[0], new, ndim),
    )
}

/// `x` with a new axis of extent 1 at `axis` (NumPy's `expand_dims`: `-(ndim + 1)..=ndim`).
pub(crate) fn expand_axis(x: Var, axis: isize, loc: Loc) -> Var {
    record(
        &[VarArg::Var(x)],
        loc,
        &|| "expand_dims".to_owned(),
        |t, ids| {
            let nd = t.node(ids[0]).ndim;
            let ax = crate::shape::normalize_axis(axis, usize::from(nd) + 1)?;
            t.expand(ids[0], 1u64 << ax, nd + 1)
        },
    )
}

/// `x.astype(dtype)`.
pub(crate) fn astype(x: Var, dtype: DType, loc: Loc) -> Var {
    record(&[VarArg::Var(x)], loc, &|| "astype".to_owned(), |t, ids| {
        let n = t.node(ids[0]);
        if n.dtype == dtype && !n.weak {
            return Ok(ids[0]);
        }
        let nd = n.ndim;
        Ok(t.add(Kind::Cast, &[ids[0]], dtype, nd, false, loc))
    })
}

/// A reduction of `x` over `axes` (every axis when `None`).
pub(crate) fn reduce(op: ROp, x: Var, axes: Option<&[isize]>, keepdims: bool, loc: Loc) -> Var {
    let what = || super::ir::reduce_name(op).to_owned();
    record(&[VarArg::Var(x)], loc, &what, |t, ids| {
        t.reduce(op, ids[0], axes, keepdims, AccOpts::default(), loc)
    })
}

/// A reduction of `x` with NumPy's keywords (`axis`, `keepdims`, `dtype`, `ddof`; a fused
/// kernel writes new arrays, so `out=` is an error).
pub(crate) fn reduce_with(op: ROp, x: Var, opts: &ReduceOpts<'_>, loc: Loc) -> Var {
    let what = || super::ir::reduce_name(op).to_owned();
    record(&[VarArg::Var(x)], loc, &what, |t, ids| {
        if opts.has_out() {
            bail!(
                InvalidArgument,
                "out= is not supported inside fuse (a fused kernel writes new arrays)"
            );
        }
        let acc = opts.acc_opts(op)?;
        let (axes, keepdims) = opts.axes();
        t.reduce(op, ids[0], axes.map(|a| a.0.as_slice()), keepdims, acc, loc)
    })
}

/// An inclusive scan of `x` along `axis` (`None`: the flattened value, a 1-D result).
pub(crate) fn scan(op: ScanOp, x: Var, axis: Option<isize>, loc: Loc) -> Var {
    record(
        &[VarArg::Var(x)],
        loc,
        &|| op.user_name().to_owned(),
        |t, ids| t.scan(op, ids[0], axis, loc),
    )
}

impl Tracer {
    fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The node (made now, or the equal one made before).
    fn add(
        &mut self,
        kind: Kind,
        args: &[NodeId],
        dtype: DType,
        ndim: u8,
        weak: bool,
        loc: Loc,
    ) -> NodeId {
        let key: CseKey = (kind, SmallVec::from_slice(args), dtype, weak);
        if let Some(&id) = self.cse.get(&key) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            kind,
            args: key.1.clone(),
            dtype,
            ndim,
            weak,
            loc,
        });
        self.cse.insert(key, id);
        id
    }

    /// Records the first failure: "fused `name` at file:line:col (what): message".
    fn fail(&mut self, loc: Loc, what: &str, e: Error) {
        if self.error.is_none() {
            let prefix = format!("fused `{}` at {loc} ({what})", self.name);
            self.error = Some(Error::new(e.kind(), format!("{prefix}: {e}")));
        }
    }

    /// The node of a Rust scalar (one slot per distinct value).
    fn literal(&mut self, x: Scalar, loc: Loc) -> NodeId {
        let bytes = x.to_bytes();
        let slot = self.slots.iter().position(|s| match s {
            Slot::Literal(v) => v.dtype() == x.dtype() && v.to_bytes() == bytes,
            Slot::Arg(_) => false,
        });
        let slot = match slot {
            Some(s) => s,
            None => {
                self.slots.push(Slot::Literal(x));
                self.slots.len() - 1
            }
        } as u16;
        self.add(Kind::Scalar(slot), &[], x.dtype(), 0, true, loc)
    }

    /// NumPy's dtype for an operation on `ids`: arrays strong, Rust scalars weak; only
    /// scalars: their own promotion.
    fn promote(&self, ids: &[NodeId]) -> Result<DType> {
        self.promote_as(ids, |d| d)
    }

    /// [`promote`](Self::promote) with each strong operand's dtype replaced by its smallest
    /// safe float (the loop choice of functions with float loops only).
    fn promote_floats(&self, ids: &[NodeId]) -> Result<DType> {
        self.promote_as(ids, crate::ops::ufunc::float_loop)
    }

    /// [`promote`](Self::promote) of the strong operands' dtypes mapped by `strong_as`.
    fn promote_as(&self, ids: &[NodeId], strong_as: fn(DType) -> DType) -> Result<DType> {
        let mut strong: SmallVec<[DType; 4]> = SmallVec::new();
        let mut weak: SmallVec<[DType; 4]> = SmallVec::new();
        for &id in ids {
            let n = self.node(id);
            if n.weak {
                weak.push(n.dtype);
            } else {
                strong.push(strong_as(n.dtype));
            }
        }
        if strong.is_empty() {
            return Ok(weak
                .iter()
                .copied()
                .reduce(promote_types)
                .unwrap_or(DType::Bool));
        }
        result_type_of(&strong, &weak)
    }

    /// `id` as a value of `to`: a weak scalar parameter converts on the host (with NumPy's
    /// range check: a literal now, an argument at each call), anything else in the kernel.
    fn convert(&mut self, id: NodeId, to: DType, loc: Loc) -> Result<NodeId> {
        let n = self.node(id);
        if n.dtype == to {
            return Ok(id);
        }
        let (kind, nd, weak) = (n.kind, n.ndim, n.weak);
        if let Kind::Scalar(slot) = kind
            && weak
        {
            if let Slot::Literal(v) = self.slots[slot as usize] {
                v.cast(to)?;
            }
            return Ok(self.add(Kind::Scalar(slot), &[], to, 0, true, loc));
        }
        Ok(self.add(Kind::Cast, &[id], to, nd, weak, loc))
    }

    /// Whether `id` is computed from scalars only: weak, or a strong 0-d value (an
    /// `astype` of scalars) that reads no array.
    fn scalars_only(&self, id: NodeId) -> bool {
        let n = self.node(id);
        if n.weak || n.ndim > 0 {
            return n.weak;
        }
        let mut reads = vec![false; id as usize + 1];
        for (k, node) in self.nodes.iter().enumerate().take(id as usize + 1) {
            reads[k] =
                matches!(node.kind, Kind::Input(_)) || node.args.iter().any(|&a| reads[a as usize]);
        }
        !reads[id as usize]
    }

    /// Node `id` with new axes where `new` has bits (of `ndim` axes in all). Element-wise
    /// work commutes with adding axes, so the expansion moves down to the array leaves it
    /// reads (arguments, reductions, scans: [`Kind::Expand`] of those is a view at call
    /// time) and the element-wise nodes are made again over the expanded leaves. An
    /// operand with fewer axes than its node is right-aligned in it: it takes the new axes
    /// from its first one on (those before are broadcast anyway); a 0-d operand none,
    /// unless the node is 0-d and the operand comes from arrays.
    fn expand(&mut self, id: NodeId, new: u64, ndim: u8) -> Result<NodeId> {
        let node = self.node(id).clone();
        let n = u32::from(node.ndim);
        if ndim as usize > crate::shape::MAX_NDIM
            || n + new.count_ones() != u32::from(ndim)
            || (ndim < 64 && new >> ndim != 0)
        {
            bail!(
                InvalidArgument,
                "cannot add axes {new:#b} to a value of {n} dimensions ({ndim} in all)"
            );
        }
        if new == 0 {
            return Ok(id);
        }
        // Where each of the node's axes goes in the result.
        let pos: SmallVec<[u32; 8]> = (0..u32::from(ndim))
            .filter(|k| new & (1u64 << k) == 0)
            .collect();
        match node.kind {
            Kind::Input(_) | Kind::Reduce(..) | Kind::Scan(..) => Ok(self.add(
                Kind::Expand(new),
                &[id],
                node.dtype,
                ndim,
                node.weak,
                node.loc,
            )),
            Kind::Expand(old) => {
                let base = node.args[0];
                let moved = (0..n)
                    .filter(|k| old & (1u64 << k) != 0)
                    .fold(new, |m, k| m | (1u64 << pos[k as usize]));
                Ok(self.add(
                    Kind::Expand(moved),
                    &[base],
                    node.dtype,
                    ndim,
                    node.weak,
                    node.loc,
                ))
            }
            Kind::Scalar(_) => bail!(
                Unsupported,
                "a scalar's value cannot take new axes inside a fused function"
            ),
            Kind::Ufunc(..) | Kind::Cast | Kind::Const(_) => {
                let mut args: SmallVec<[NodeId; 3]> = SmallVec::new();
                for &a in &node.args {
                    let m = u32::from(self.node(a).ndim);
                    let arrays = !self.scalars_only(a);
                    let (sub, subdim) = if m == n && (m > 0 || arrays) {
                        (new, ndim)
                    } else if m == 0 {
                        (0, 0)
                    } else {
                        let start = pos[(n - m) as usize];
                        (new >> start, ndim - start as u8)
                    };
                    args.push(match sub {
                        0 => a,
                        _ => self.expand(a, sub, subdim)?,
                    });
                }
                let nd = args.iter().map(|&a| self.node(a).ndim).max().unwrap_or(0);
                if nd != ndim {
                    bail!(
                        Unsupported,
                        "a value computed from scalars only cannot take new axes inside a \
                         fused function"
                    );
                }
                Ok(self.add(node.kind, &args, node.dtype, ndim, node.weak, node.loc))
            }
        }
    }

    fn shape_of(&self, ids: &[NodeId]) -> (u8, bool) {
        let nd = ids.iter().map(|&i| self.node(i).ndim).max().unwrap_or(0);
        let weak = ids.iter().all(|&i| self.node(i).weak);
        (nd, weak)
    }

    /// The literal value of `id`, when it is a Rust scalar of the closure.
    fn literal_value(&self, id: NodeId) -> Option<Scalar> {
        let n = self.node(id);
        match (n.kind, n.weak) {
            (Kind::Scalar(s), true) => match self.slots[s as usize] {
                Slot::Literal(v) if v.dtype() == n.dtype => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    fn ufunc(&mut self, op: Op, ids: &[NodeId], loc: Loc) -> Result<NodeId> {
        let row = op.row();
        if ids.len() != row.arity {
            bail!(
                InvalidArgument,
                "{} takes {} operands, got {}",
                op.name(),
                row.arity,
                ids.len()
            );
        }
        let vals = if row.condition { &ids[1..] } else { ids };
        let c = match op {
            // float loops only: each strong operand as its smallest safe float first
            // (`ops::elementwise`'s rule, NumPy's loop choice)
            Op::Arctan2 | Op::Hypot | Op::Nextafter => self.promote_floats(vals)?,
            _ => self.promote(vals)?,
        };
        let (nd, weak) = self.shape_of(ids);
        if op.is_comparison() {
            let (a, b) = (ids[0], ids[1]);
            let answer = match (self.literal_value(a), self.literal_value(b)) {
                (None, Some(s)) if !self.node(a).weak => {
                    out_of_range_comparison(op, &s, false, c).map(|r| (r, a))
                }
                (Some(s), None) if !self.node(b).weak => {
                    out_of_range_comparison(op, &s, true, c).map(|r| (r, b))
                }
                _ => None,
            };
            // The array stays an operand: it gives the result its shape.
            if let Some((answer, array)) = answer {
                return Ok(self.add(Kind::Const(answer), &[array], DType::Bool, nd, weak, loc));
            }
        }
        let l = op.types(c)?;
        let mut conv: SmallVec<[NodeId; 3]> = SmallVec::new();
        for (k, &id) in ids.iter().enumerate() {
            let to = if k == 0 && row.condition {
                DType::Bool
            } else {
                l.compute
            };
            conv.push(self.convert(id, to, loc)?);
        }
        Ok(self.add(Kind::Ufunc(op, l.compute), &conv, l.out, nd, weak, loc))
    }

    fn clip(
        &mut self,
        x: NodeId,
        lo: Option<NodeId>,
        hi: Option<NodeId>,
        loc: Loc,
    ) -> Result<NodeId> {
        let n = self.node(x);
        let (d, strong) = (n.dtype, !n.weak);
        let beyond = |t: &Tracer, b: NodeId, low: bool| {
            strong
                && t.literal_value(b)
                    .is_some_and(|s| scalar_beyond_range(&s, d, low))
        };
        let lo = lo.filter(|&b| !beyond(self, b, true));
        let hi = hi.filter(|&b| !beyond(self, b, false));
        let given: SmallVec<[NodeId; 3]> = [Some(x), lo, hi].into_iter().flatten().collect();
        let c = self.promote(&given)?;
        Op::Clip.types(c)?;
        match (lo, hi) {
            (Some(l), Some(h)) => self.ufunc(Op::Clip, &[x, l, h], loc),
            (Some(l), None) => self.ufunc(Op::Maximum, &[x, l], loc),
            (None, Some(h)) => self.ufunc(Op::Minimum, &[x, h], loc),
            (None, None) => {
                check_unbounded(c)?;
                Ok(x)
            }
        }
    }

    fn power(&mut self, base: NodeId, exponent: NodeId, loc: Loc) -> Result<NodeId> {
        let small = match self.literal_value(exponent) {
            Some(e) if !self.node(base).weak => SmallPower::of(&e),
            _ => None,
        };
        let Some(p) = small else {
            return self.ufunc(Op::Pow, &[base, exponent], loc);
        };
        let c = self.promote(&[base, exponent])?;
        let l = p.types(c)?;
        let x = self.convert(base, l.compute, loc)?;
        let nd = self.node(base).ndim;
        let mul = Kind::Ufunc(Op::Mul, l.compute);
        Ok(match p {
            SmallPower::Square => self.add(mul, &[x, x], l.out, nd, false, loc),
            SmallPower::Cube => {
                let sq = self.add(mul, &[x, x], l.out, nd, false, loc);
                self.add(mul, &[sq, x], l.out, nd, false, loc)
            }
            SmallPower::Sqrt => self.add(
                Kind::Ufunc(Op::Sqrt, l.compute),
                &[x],
                l.out,
                nd,
                false,
                loc,
            ),
        })
    }

    fn reduce(
        &mut self,
        op: ROp,
        x: NodeId,
        axes: Option<&[isize]>,
        keepdims: bool,
        opts: AccOpts,
        loc: Loc,
    ) -> Result<NodeId> {
        if self.scalars_only(x) {
            bail!(
                Unsupported,
                "{} reduces arrays, and this value is computed from scalars only",
                super::ir::reduce_name(op)
            );
        }
        let n = self.node(x);
        let (nd, dtype) = (n.ndim as usize, n.dtype);
        let mut mask = 0u64;
        match axes {
            None => {
                for k in 0..nd {
                    mask |= 1 << k;
                }
            }
            Some(list) => {
                for &ax in list {
                    let a = normalize_axis(ax, nd)?;
                    if mask & (1 << a) != 0 {
                        bail!(Shape, "duplicate value in 'axis' ({list:?})");
                    }
                    mask |= 1 << a;
                }
            }
        }
        let acc = Accum::with(op, dtype, opts)?;
        let out_nd = if keepdims {
            nd
        } else {
            nd - mask.count_ones() as usize
        };
        Ok(self.add(
            Kind::Reduce(op, mask, keepdims, opts),
            &[x],
            acc.out,
            out_nd as u8,
            false,
            loc,
        ))
    }

    fn scan(&mut self, op: ScanOp, x: NodeId, axis: Option<isize>, loc: Loc) -> Result<NodeId> {
        if self.scalars_only(x) {
            bail!(
                Unsupported,
                "{} scans arrays, and this value is computed from scalars only",
                op.user_name()
            );
        }
        let n = self.node(x);
        let (nd, dtype) = (n.ndim as usize, n.dtype);
        let (ax, out_nd) = match axis {
            None => (None, 1),
            Some(a) => (Some(normalize_axis(a, nd)? as u8), nd as u8),
        };
        Ok(self.add(
            Kind::Scan(op, ax),
            &[x],
            scan_dtype(dtype),
            out_nd,
            false,
            loc,
        ))
    }
}
