//! The traced program: the values a fused closure computed (nodes, in the order they were
//! made, so operands come before their users), the values it returned, and its scalar
//! parameters. Shape-free: every node knows its dtype and number of dimensions; concrete
//! shapes are worked out per call (the shape pass of `run.rs`).

use crate::array::{DType, Scalar};
use crate::ops::reduction::{AccOpts, ROp};
use crate::ops::scan::ScanOp;
use crate::ops::ufunc::Op;
use smallvec::SmallVec;
use std::panic::Location;

/// Index of a node in [`Program::nodes`].
pub(crate) type NodeId = u32;

/// What a node computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Array argument `i` of the call.
    Input(u16),
    /// Scalar slot `s` (an argument or a literal of the closure), converted on the host to
    /// the node's dtype: a by-value kernel parameter, never part of the source.
    Scalar(u16),
    /// A bool known while tracing (an integer compared with a scalar outside its range).
    Const(bool),
    /// A row of the ufunc table, computing in the given dtype.
    Ufunc(Op, DType),
    /// NumPy's `astype` to the node's dtype.
    Cast,
    /// A reduction over the axes whose bits are set (bit `k`: axis `k` of the operand),
    /// keeping reduced axes as extent 1 when the flag is set, with NumPy's options
    /// (`dtype=`, `ddof`).
    Reduce(ROp, u64, bool, AccOpts),
    /// An inclusive scan (`cumsum`, `cumprod`) along an axis of the operand, or over the
    /// flattened operand (`None`: a 1-D result), with NumPy's result dtype.
    Scan(ScanOp, Option<u8>),
    /// A view of an array leaf (an argument, a reduction or a scan) with new axes of
    /// extent 1 where the bits are set (bit `k`: axis `k` of the result), the operand's
    /// axes in order elsewhere (`x[None, :]`). The tracer pushes an expansion of a computed
    /// value down to its leaves, so the operand is always one of those.
    Expand(u64),
}

/// One traced value.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) args: SmallVec<[NodeId; 3]>,
    pub(crate) dtype: DType,
    pub(crate) ndim: u8,
    /// A Rust scalar, or computed from Rust scalars only: promotes by kind only (NumPy's
    /// weak Python scalars).
    pub(crate) weak: bool,
    /// The user's line that made it.
    pub(crate) loc: &'static Location<'static>,
}

/// Where a scalar parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Slot {
    /// Scalar argument `i` of the call.
    Arg(u16),
    /// A Rust scalar the closure used (its value is fixed for the trace).
    Literal(Scalar),
}

/// A traced closure.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub(crate) nodes: Vec<Node>,
    pub(crate) outputs: SmallVec<[NodeId; 4]>,
    pub(crate) slots: Vec<Slot>,
}

impl Program {
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// Keeps only the nodes the outputs need, renumbered in the same order.
    pub(crate) fn pruned(mut self) -> Program {
        let n = self.nodes.len();
        let mut live = vec![false; n];
        for &o in &self.outputs {
            live[o as usize] = true;
        }
        for k in (0..n).rev() {
            if live[k] {
                for &a in &self.nodes[k].args {
                    live[a as usize] = true;
                }
            }
        }
        let mut new_id = vec![NodeId::MAX; n];
        let mut nodes = Vec::with_capacity(n);
        for (k, node) in self.nodes.drain(..).enumerate() {
            if live[k] {
                new_id[k] = nodes.len() as NodeId;
                let mut node = node;
                for a in node.args.iter_mut() {
                    *a = new_id[*a as usize];
                }
                nodes.push(node);
            }
        }
        for o in self.outputs.iter_mut() {
            *o = new_id[*o as usize];
        }
        self.nodes = nodes;
        self
    }
}

/// Names of what a node computes, for plans and messages.
pub(crate) fn kind_name(k: &Kind) -> String {
    match k {
        Kind::Input(i) => format!("argument {i}"),
        Kind::Scalar(s) => format!("scalar {s}"),
        Kind::Const(b) => format!("constant {b}"),
        Kind::Ufunc(op, _) => op.name().to_owned(),
        Kind::Cast => "astype".to_owned(),
        Kind::Reduce(op, ..) => reduce_name(*op).to_owned(),
        Kind::Scan(op, _) => op.user_name().to_owned(),
        Kind::Expand(_) => "expand_dims".to_owned(),
    }
}

/// The user-facing name of a reduction (`max`, not ops' kernel name `maximum`).
pub(crate) fn reduce_name(op: ROp) -> &'static str {
    op.user_name()
}
