//! One call of a lowered program: the shape pass (concrete shapes of every value, with the
//! user's line in broadcast and empty-reduction errors), then each kernel with its arrays,
//! temporaries and scalar parameters, in the plan's order (a kernel after those whose
//! results it reads). Reduction and scan kernels allocate their results; element-wise
//! kernels are given theirs.

use super::ir::{Kind, NodeId, Program, Slot};
use super::lower::{Built, Lowered, Shapes, Source};
use crate::array::{Array, Scalar};
use crate::error::{Error, Result, bail, err};
use crate::kernel::Outputs;
use crate::kernel::{IntoOperand, Operand};
use crate::ops::reduction::ROp;
use crate::shape::{Shape, broadcast_shapes};
use smallvec::SmallVec;

/// `e` prefixed with the fused function and the line of node `node`.
fn at_node(name: &str, p: &Program, node: NodeId, e: Error) -> Error {
    let n = p.node(node);
    let what = super::ir::kind_name(&n.kind);
    Error::new(
        e.kind(),
        format!("fused `{name}` at {} ({what}): {e}", n.loc),
    )
}

/// The shape of every node for arguments of shapes `arg_shape(i)` (scalars: `None`).
pub(crate) fn shapes<'a>(
    name: &str,
    p: &Program,
    arg_shape: impl Fn(u16) -> Option<&'a [usize]>,
) -> Result<Shapes> {
    let mut out: Shapes = SmallVec::with_capacity(p.nodes.len());
    for (k, n) in p.nodes.iter().enumerate() {
        let s: Shape = match n.kind {
            Kind::Input(i) => match arg_shape(i) {
                Some(s) => Shape::from_slice(s),
                None => bail!(
                    InvalidArgument,
                    "fused `{name}`: argument {i} must be an array"
                ),
            },
            Kind::Scalar(_) => Shape::new(),
            Kind::Ufunc(..) | Kind::Cast | Kind::Const(_) => match n.args.len() {
                0 => Shape::new(),
                1 => out[n.args[0] as usize].clone(),
                // Operands of one shape, scalars aside (the common case): that shape.
                _ if let Some(s) = same_shape(n.args.iter().map(|&a| &out[a as usize])) => s,
                _ => {
                    let refs: SmallVec<[&[usize]; 3]> =
                        n.args.iter().map(|&a| out[a as usize].as_slice()).collect();
                    broadcast_shapes(&refs).map_err(|e| at_node(name, p, k as NodeId, e))?
                }
            },
            Kind::Expand(new) => expanded(&out[n.args[0] as usize], new, n.ndim),
            Kind::Scan(_, axis) => {
                let a = &out[n.args[0] as usize];
                match axis {
                    Some(_) => a.clone(),
                    None => Shape::from_slice(&[a.iter().product()]),
                }
            }
            Kind::Reduce(op, mask, keepdims, _) => {
                let a = &out[n.args[0] as usize];
                let (mut o, mut r) = (Shape::new(), 1usize);
                for (d, &e) in a.iter().enumerate() {
                    if mask & (1u64 << d) != 0 {
                        r *= e;
                        if keepdims {
                            o.push(1);
                        }
                    } else {
                        o.push(e);
                    }
                }
                let osize: usize = o.iter().product();
                if r == 0
                    && osize > 0
                    && matches!(op, ROp::Max | ROp::Min | ROp::NanMax | ROp::NanMin)
                {
                    return Err(at_node(
                        name,
                        p,
                        k as NodeId,
                        err!(
                            InvalidArgument,
                            "zero-size array to reduction operation {} which has no identity",
                            op.name()
                        ),
                    ));
                }
                o
            }
        };
        out.push(s);
    }
    Ok(out)
}

/// `shape` with extents 1 inserted where `new` has bits, `ndim` extents in all.
pub(crate) fn expanded(shape: &[usize], new: u64, ndim: u8) -> Shape {
    let mut old = shape.iter();
    (0..u32::from(ndim))
        .map(|k| match new & (1u64 << k) {
            0 => old.next().copied().unwrap_or(1),
            _ => 1,
        })
        .collect()
}

/// The shape of operands whose shapes are all one shape or `()` (a scalar's, which
/// broadcasts to any): that shape without a broadcast; `None` when they differ otherwise.
fn same_shape<'a>(shapes: impl Iterator<Item = &'a Shape>) -> Option<Shape> {
    let mut first: Option<&Shape> = None;
    for s in shapes.filter(|s| !s.is_empty()) {
        match first {
            None => first = Some(s),
            Some(f) if f == s => {}
            Some(_) => return None,
        }
    }
    Some(first.cloned().unwrap_or_default())
}

/// A compile error of a generated kernel is cuprum's bug: the message says so.
fn generated(name: &str, e: Error) -> Error {
    if e.kind() == crate::ErrorKind::Compile {
        Error::new(
            e.kind(),
            format!(
                "fused `{name}`: a generated kernel does not compile, which is a bug in cuprum (please report it with this message): {e}"
            ),
        )
    } else {
        e
    }
}

/// The arrays (returned values and temporaries) made so far in one call.
type Made = SmallVec<[(NodeId, Array); 8]>;

/// Where value `n` is in `made`.
fn position(made: &Made, n: NodeId) -> Result<usize> {
    made.iter()
        .position(|(k, _)| *k == n)
        .ok_or_else(|| err!(Unsupported, "fused plan: value %{n} was not computed"))
}

fn find(made: &Made, n: NodeId) -> Result<&Array> {
    Ok(&made[position(made, n)?].1)
}

impl Lowered {
    /// The value of scalar parameter `n` for this call.
    fn scalar(&self, name: &str, n: NodeId, args: &[Operand<'_>]) -> Result<Scalar> {
        if let Some((_, v)) = self.literals.iter().find(|(k, _)| *k == n) {
            return Ok(*v);
        }
        let node = self.program.node(n);
        let Kind::Scalar(slot) = node.kind else {
            bail!(Unsupported, "fused plan: %{n} is not a scalar");
        };
        let i = match self.program.slots[slot as usize] {
            Slot::Arg(i) => i,
            Slot::Literal(v) => return v.cast(node.dtype),
        };
        match args.get(i as usize) {
            Some(Operand::Scalar(s)) => s.cast(node.dtype).map_err(|e| {
                err!(
                    DType,
                    "fused `{name}`: scalar argument {i} as {} (at {}): {e}",
                    node.dtype,
                    node.loc
                )
            }),
            _ => bail!(
                InvalidArgument,
                "fused `{name}`: argument {i} must be a scalar"
            ),
        }
    }

    /// The array of expansion node `n` ([`Kind::Expand`]) for this call: a view of the
    /// argument or earlier result it expands, with its new axes of extent 1.
    fn view(&self, name: &str, n: NodeId, args: &[Operand<'_>], made: &Made) -> Result<Array> {
        let node = self.program.node(n);
        let Kind::Expand(new) = node.kind else {
            bail!(Unsupported, "fused plan: %{n} is not a view");
        };
        let base = node.args[0];
        let mut a = match self.program.node(base).kind {
            Kind::Input(i) => match args.get(usize::from(i)) {
                Some(Operand::Array(a)) => (*a).clone(),
                _ => bail!(
                    InvalidArgument,
                    "fused `{name}`: argument {i} must be an array"
                ),
            },
            _ => find(made, base)?.clone(),
        };
        for k in (0..u32::from(node.ndim)).filter(|k| new & (1u64 << k) != 0) {
            a = a.expand_dims(k as isize)?;
        }
        Ok(a)
    }

    /// A call of a direct program ([`Lowered::direct`]) with an earlier call's fingerprint:
    /// its outputs after the launch. `None` for any other call, which then takes the
    /// general path (with its errors: an argument that does not fit also gives `None`).
    fn run_direct(
        &self,
        name: &str,
        args: &[Operand<'_>],
        stream: &crate::runtime::Stream,
    ) -> Result<Option<Outputs>> {
        let Some(lk) = self.kernels.first().filter(|_| self.direct) else {
            return Ok(None);
        };
        let Built::Elementwise(k) = &lk.built else {
            return Ok(None);
        };
        let mut ops: SmallVec<[Operand<'_>; 8]> = SmallVec::new();
        for src in &lk.inputs {
            ops.push(match *src {
                Source::Arg(i) => match args.get(usize::from(i)) {
                    Some(a @ Operand::Array(_)) => *a,
                    _ => return Ok(None),
                },
                Source::Scalar(n) => match self.scalar(name, n, args) {
                    Ok(s) => Operand::Scalar(s),
                    Err(_) => return Ok(None),
                },
                Source::Temp(_) | Source::View(_) => return Ok(None),
            });
        }
        k.replay_fresh(&ops, stream).map_err(|e| generated(name, e))
    }

    /// The shape of every node for `args`: the last call's when its arguments had the same
    /// shapes (the common repeat call), else computed ([`shapes`]) and remembered.
    fn shapes_for(&self, name: &str, args: &[Operand<'_>]) -> Result<std::sync::Arc<Shapes>> {
        fn shape_of<'s>(a: &Operand<'s>) -> &'s [usize] {
            match a {
                Operand::Array(a) => a.shape(),
                _ => &[],
            }
        }
        let mut last = self.last_shapes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((given, shapes)) = last.as_ref()
            && given.len() == args.len()
            && given
                .iter()
                .zip(args)
                .all(|(g, a)| g.as_slice() == shape_of(a))
        {
            return Ok(shapes.clone());
        }
        let computed = std::sync::Arc::new(shapes(name, &self.program, |i| {
            match args.get(i as usize) {
                Some(Operand::Array(a)) => Some(a.shape()),
                _ => None,
            }
        })?);
        let given = args
            .iter()
            .map(|a| Shape::from_slice(shape_of(a)))
            .collect();
        *last = Some((given, computed.clone()));
        Ok(computed)
    }

    /// Runs every kernel on `args` (checked against the signature this was traced for) and
    /// returns the closure's values.
    pub(crate) fn run(&self, name: &str, args: &[Operand<'_>]) -> Result<Outputs> {
        let p = &self.program;
        // Intermediate arrays live on the device of the arguments (the kernels check that
        // every argument is there).
        let stream = match args.iter().find_map(|a| match a {
            Operand::Array(a) => Some(a.device()),
            _ => None,
        }) {
            Some(d) => crate::runtime::Stream::for_device(d)?,
            None => crate::runtime::Stream::current()?,
        };
        // A direct program (`lower.rs`) called as an earlier call was: that call's kernel
        // launch, its outputs allocated as they were then.
        if let Some(outs) = self.run_direct(name, args, &stream)? {
            return Ok(outs);
        }
        let shapes = self.shapes_for(name, args)?;
        let mut made: Made = SmallVec::new();
        for lk in &self.kernels {
            let mut scalars: SmallVec<[Scalar; 8]> = SmallVec::new();
            for src in &lk.inputs {
                if let Source::Scalar(n) = *src {
                    scalars.push(self.scalar(name, n, args)?);
                }
            }
            let given: Outputs = match lk.built {
                Built::Elementwise(_) => lk
                    .outputs
                    .iter()
                    .map(|&o| Array::empty_on(&shapes[o as usize], p.node(o).dtype, &stream))
                    .collect::<Result<_>>()?,
                Built::Reduction(_) | Built::Scan(_) => SmallVec::new(),
            };
            // Views with new axes (`x[None, :]`) of arguments and of earlier results.
            let mut views: SmallVec<[Array; 2]> = SmallVec::new();
            for src in &lk.inputs {
                if let Source::View(n) = *src {
                    views.push(self.view(name, n, args, &made)?);
                }
            }
            let reduced: Option<Outputs> = {
                let mut ops: SmallVec<[&dyn IntoOperand; 12]> = SmallVec::new();
                let (mut si, mut vi) = (0, 0);
                for src in &lk.inputs {
                    match *src {
                        Source::Arg(i) => match args.get(i as usize) {
                            Some(Operand::Array(a)) => ops.push(*a),
                            _ => bail!(
                                InvalidArgument,
                                "fused `{name}`: argument {i} must be an array"
                            ),
                        },
                        Source::Temp(n) => ops.push(find(&made, n)?),
                        Source::View(_) => {
                            ops.push(&views[vi]);
                            vi += 1;
                        }
                        Source::Scalar(_) => {
                            ops.push(&scalars[si]);
                            si += 1;
                        }
                    }
                }
                match &lk.built {
                    Built::Elementwise(k) => {
                        for o in &given {
                            ops.push(o);
                        }
                        // The kernel's parameters are the values' concrete dtypes, its
                        // outputs given: the exact path (the general one otherwise).
                        let exact: SmallVec<[Operand<'_>; 12]> =
                            ops.iter().map(|o| o.operand()).collect();
                        k.run_exact(&exact, &stream, self.direct)
                            .map_err(|e| generated(name, e))?;
                        None
                    }
                    Built::Reduction(k) => {
                        let call = match &lk.axes {
                            Some(ax) => k.axis(ax.clone()),
                            None => k.keepdims(lk.keepdims),
                        };
                        let ops: SmallVec<[Operand<'_>; 12]> =
                            ops.iter().map(|o| o.operand()).collect();
                        let mut outs = crate::kernel::Outputs::new();
                        call.keepdims(lk.keepdims)
                            .outputs(&ops, &mut outs)
                            .map_err(|e| generated(name, e))?;
                        Some(outs)
                    }
                    Built::Scan(k) => {
                        let axis = lk.axes.as_ref().and_then(|a| a.0.first().copied());
                        let scanned = k
                            .axis(axis)
                            .call(&ops[..])
                            .map_err(|e| generated(name, e))?;
                        Some(SmallVec::from_elem(scanned, 1))
                    }
                }
            };
            let results = reduced.unwrap_or(given);
            for (&o, a) in lk.outputs.iter().zip(results) {
                made.push((o, a));
            }
        }
        // The values move out of `made`; one returned twice (`return y, y`) is cloned.
        let mut outs = SmallVec::with_capacity(p.outputs.len());
        for (k, &o) in p.outputs.iter().enumerate() {
            let at = position(&made, o)?;
            outs.push(if p.outputs[k + 1..].contains(&o) {
                made[at].1.clone()
            } else {
                made.swap_remove(at).1
            });
        }
        Ok(outs)
    }
}
