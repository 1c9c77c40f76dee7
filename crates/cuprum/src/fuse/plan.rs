//! The planner: which kernels a traced program becomes. Shape-free, done once per trace.
//!
//! Rules, in order:
//! 1. Every reduction becomes part of a ReductionKernel whose map computes the reduction's
//!    operand from the arrays it reads (its producers are fused into the loads).
//!    Reductions at the same depth over the same arrays, axes and keepdims share one
//!    kernel (one pass, an accumulator struct of up to 64 bytes).
//! 2. A returned value computed only from one kernel's reduced values and scalars is that
//!    kernel's epilogue: computed in its post-map (the final stage, after the last split).
//! 3. A reduced value used on its input's elements (softmax's `x - x.max(..)`) or by
//!    another reduction is written to a temporary array by its kernel, and the later
//!    kernels read it (broadcast): that is where a plan is cut.
//! 4. Every scan (`cumsum`, `cumprod`) becomes a ScanKernel whose map computes the scan's
//!    operand from the arrays it reads (its producers are fused into the scan's loads, as
//!    a reduction's are). Its result is always written: every use of it (element-wise
//!    work after it, a reduction or another scan of it) is a later kernel reading that
//!    array — a scan's value at one position depends on every position before it, so
//!    nothing after it can run in the same pass over the elements.
//! 5. A value given new axes (`v[None, :]`, [`Kind::Expand`]) is that of the arrays it
//!    reads with those axes (the tracer moves the expansion down to them), so each such
//!    array leaf is read through a view: of the argument, or of what the reduction or scan
//!    kernel wrote (which is then written, as in rule 3, and read by a later kernel).
//! 6. The other returned values are computed by ElementwiseKernels, one per set of arrays
//!    read (one loop shape per kernel). Element-wise intermediates are never written: each
//!    kernel recomputes what it needs from the arrays it reads.
//!
//! Launch order: reduction and scan kernels by depth (the reductions and scans on the
//! longest path to an argument), then the element-wise kernels: every kernel runs after
//! the kernels whose results it reads.

use super::ir::{Kind, NodeId, Program};
use crate::kernel::codegen::reduction::PARTIAL_BYTES;
use crate::ops::reduction::{Accum, ROp};
use smallvec::SmallVec;

/// Sorted, de-duplicated node ids.
type Set = SmallVec<[NodeId; 4]>;

/// What kind of kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlanKind {
    /// An ElementwiseKernel.
    Elementwise,
    /// A ReductionKernel of these reductions (same operand domain, axes and keepdims).
    Reduction {
        reduces: SmallVec<[NodeId; 4]>,
        /// Reduced axes of the operand (bit `k`: axis `k`).
        mask: u64,
        keepdims: bool,
        /// Dimensions of the operand.
        ndim: u8,
    },
    /// A ScanKernel computing scan node `scan` (its operand is the map).
    Scan { scan: NodeId },
}

/// One kernel of a plan.
#[derive(Debug, Clone)]
pub(crate) struct KernelPlan {
    pub(crate) kind: PlanKind,
    /// Array operands (arguments and earlier kernels' results), in node order.
    pub(crate) arrays: Set,
    /// Scalar parameters (scalar nodes), in node order.
    pub(crate) scalars: Set,
    /// Nodes computed per element (for a reduction: its map), in node order.
    pub(crate) body: Vec<NodeId>,
    /// Nodes computed in a reduction's post-map, in node order.
    pub(crate) epilogue: Vec<NodeId>,
    /// Nodes written to arrays: returned values, and reduced values later kernels read.
    pub(crate) outputs: SmallVec<[NodeId; 4]>,
    /// Why the kernel exists and where the plan was cut before it.
    pub(crate) why: String,
}

/// The kernels of a program, in launch order.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) kernels: Vec<KernelPlan>,
}

fn union(a: &Set, b: &Set) -> Set {
    let mut out: Set = a.iter().chain(b.iter()).copied().collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The array leaves of each node (arguments and reductions it reads without passing
/// through a reduction) and its depth (reductions on the longest path to an argument).
fn leaves_and_depths(p: &Program) -> (Vec<Set>, Vec<u32>) {
    let n = p.nodes.len();
    let mut leaves: Vec<Set> = Vec::with_capacity(n);
    let mut depth = vec![0u32; n];
    for (k, node) in p.nodes.iter().enumerate() {
        let (l, d) = match node.kind {
            Kind::Input(_) => (SmallVec::from_elem(k as NodeId, 1), 0),
            Kind::Scalar(_) => (Set::new(), 0),
            Kind::Reduce(..) | Kind::Scan(..) => (
                SmallVec::from_elem(k as NodeId, 1),
                depth[node.args[0] as usize] + 1,
            ),
            // A view of its operand (an argument or a result): read after that is made.
            Kind::Expand(_) => (
                SmallVec::from_elem(k as NodeId, 1),
                depth[node.args[0] as usize],
            ),
            Kind::Ufunc(..) | Kind::Cast | Kind::Const(_) => {
                let mut l = Set::new();
                let mut d = 0;
                for &a in &node.args {
                    l = union(&l, &leaves[a as usize]);
                    d = d.max(depth[a as usize]);
                }
                (l, d)
            }
        };
        leaves.push(l);
        depth[k] = d;
    }
    (leaves, depth)
}

/// (size, alignment) in bytes of one reduction's accumulator.
fn acc_layout(a: &Accum) -> (usize, usize) {
    let item = a.acc.itemsize();
    let complex = a.input.kind() == crate::array::DTypeKind::Complex;
    match a.op {
        // Complex var / std: two triples of the parts' dtype.
        ROp::Var | ROp::Std if complex => (6 * item, item),
        ROp::Var | ROp::Std => (3 * item, item),
        // nanmean: the sum and an int64 count.
        ROp::NanMean => (item.div_ceil(8) * 8 + 8, 8),
        _ => (item, item),
    }
}

/// Bytes of a struct of these accumulators (C layout).
pub(crate) fn struct_bytes(accs: &[Accum]) -> usize {
    let (mut off, mut align) = (0usize, 1usize);
    for a in accs {
        let (s, al) = acc_layout(a);
        off = off.div_ceil(al) * al + s;
        align = align.max(al);
    }
    off.div_ceil(align) * align
}

/// The accumulator of reduction node `r`.
pub(crate) fn accum_of(p: &Program, r: NodeId) -> Option<Accum> {
    let node = p.node(r);
    match node.kind {
        Kind::Reduce(op, _, _, opts) => Accum::with(op, p.node(node.args[0]).dtype, opts).ok(),
        _ => None,
    }
}

/// Nodes reachable from `roots` without passing a node `stop` says to stop at: the body
/// (not stopped) and the leaves reached (stopped), each in node order.
fn cone(p: &Program, roots: &[NodeId], stop: impl Fn(NodeId) -> bool) -> (Vec<NodeId>, Set) {
    let mut seen = vec![false; p.nodes.len()];
    let mut todo: Vec<NodeId> = roots.to_vec();
    let (mut body, mut leaves) = (Vec::new(), Set::new());
    while let Some(k) = todo.pop() {
        if std::mem::replace(&mut seen[k as usize], true) {
            continue;
        }
        if stop(k) {
            leaves.push(k);
        } else {
            body.push(k);
            todo.extend(p.node(k).args.iter().copied());
        }
    }
    body.sort_unstable();
    leaves.sort_unstable();
    (body, leaves)
}

fn is_leaf(p: &Program, k: NodeId) -> bool {
    matches!(
        p.node(k).kind,
        Kind::Input(_) | Kind::Scalar(_) | Kind::Reduce(..) | Kind::Scan(..) | Kind::Expand(_)
    )
}

/// The node whose array leaf `k` reads: the operand of a view, else `k`.
fn viewed(p: &Program, k: NodeId) -> NodeId {
    match p.node(k).kind {
        Kind::Expand(_) => p.node(k).args[0],
        _ => k,
    }
}

/// A node another kernel computes and writes (a reduction or a scan).
fn is_computed(p: &Program, k: NodeId) -> bool {
    matches!(p.node(k).kind, Kind::Reduce(..) | Kind::Scan(..))
}

/// The scalar nodes of `leaves`.
fn scalars_of(p: &Program, leaves: &Set) -> Set {
    leaves
        .iter()
        .copied()
        .filter(|&k| matches!(p.node(k).kind, Kind::Scalar(_)))
        .collect()
}

/// One group of reductions sharing a kernel.
struct Group {
    reduces: SmallVec<[NodeId; 4]>,
    arrays: Set,
    mask: u64,
    keepdims: bool,
    depth: u32,
    split_for_size: bool,
}

/// Plans `p`.
pub(crate) fn plan(p: &Program) -> Plan {
    let (leaves, depth) = leaves_and_depths(p);
    // 1. Reductions, grouped.
    let mut reduces: Vec<NodeId> = (0..p.nodes.len() as NodeId)
        .filter(|&k| matches!(p.node(k).kind, Kind::Reduce(..)))
        .collect();
    reduces.sort_by_key(|&r| (depth[r as usize], r));
    let mut groups: Vec<Group> = Vec::new();
    for &r in &reduces {
        let Kind::Reduce(_, mask, keepdims, _) = p.node(r).kind else {
            continue;
        };
        let arrays = leaves[p.node(r).args[0] as usize].clone();
        let d = depth[r as usize];
        let acc = accum_of(p, r);
        let fits = |g: &Group| -> bool {
            let mut accs: Vec<Accum> = g.reduces.iter().filter_map(|&x| accum_of(p, x)).collect();
            accs.extend(acc.clone());
            struct_bytes(&accs) <= PARTIAL_BYTES
        };
        let same = |g: &Group| {
            g.depth == d && g.arrays == arrays && g.mask == mask && g.keepdims == keepdims
        };
        match groups.iter_mut().position(|g| same(g) && fits(g)) {
            Some(i) => groups[i].reduces.push(r),
            None => {
                let split_for_size = groups.iter().any(&same);
                groups.push(Group {
                    reduces: SmallVec::from_elem(r, 1),
                    arrays,
                    mask,
                    keepdims,
                    depth: d,
                    split_for_size,
                })
            }
        }
    }
    let group_of = |r: NodeId| groups.iter().position(|g| g.reduces.contains(&r));
    // 2. Where each returned value is computed.
    let mut epilogues: Vec<Vec<NodeId>> = vec![Vec::new(); groups.len()];
    let mut ew: Vec<(Set, SmallVec<[NodeId; 4]>)> = Vec::new();
    for &o in &p.outputs {
        if is_computed(p, o) {
            continue;
        }
        let l = &leaves[o as usize];
        let all_in_one = l
            .first()
            .and_then(|&f| group_of(f))
            .filter(|&g| l.iter().all(|&x| groups[g].reduces.contains(&x)));
        match all_in_one {
            Some(g) if !is_leaf(p, o) => {
                if !epilogues[g].contains(&o) {
                    epilogues[g].push(o);
                }
            }
            _ => match ew.iter_mut().find(|(s, _)| s == l) {
                Some((_, outs)) => {
                    if !outs.contains(&o) {
                        outs.push(o);
                    }
                }
                None => ew.push((l.clone(), SmallVec::from_elem(o, 1))),
            },
        }
    }
    let scans: Vec<NodeId> = (0..p.nodes.len() as NodeId)
        .filter(|&k| matches!(p.node(k).kind, Kind::Scan(..)))
        .collect();
    // Reduced values read by other kernels, themselves or through a view.
    let reads = |set: &Set, r: NodeId| {
        set.iter().any(|&x| {
            x == r || (matches!(p.node(x).kind, Kind::Expand(_)) && p.node(x).args[0] == r)
        })
    };
    let read_later = |r: NodeId| {
        groups.iter().any(|g| reads(&g.arrays, r))
            || ew.iter().any(|(s, _)| reads(s, r))
            || scans
                .iter()
                .any(|&s| reads(&leaves[p.node(s).args[0] as usize], r))
    };
    // (depth, kernel) of the reductions and scans, launched by depth.
    let mut kernels: Vec<(u32, KernelPlan)> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let roots: Vec<NodeId> = g.reduces.iter().map(|&r| p.node(r).args[0]).collect();
        let (body, ls) = cone(p, &roots, |k| is_leaf(p, k));
        let mut scalars: Set = ls
            .iter()
            .copied()
            .filter(|&k| matches!(p.node(k).kind, Kind::Scalar(_)))
            .collect();
        let mut outputs: SmallVec<[NodeId; 4]> = g
            .reduces
            .iter()
            .copied()
            .filter(|&r| p.outputs.contains(&r) || read_later(r))
            .collect();
        let (epilogue, els) = cone(p, &epilogues[gi], |k| {
            matches!(p.node(k).kind, Kind::Reduce(..) | Kind::Scalar(_))
        });
        scalars = union(
            &scalars,
            &els.iter()
                .copied()
                .filter(|&k| matches!(p.node(k).kind, Kind::Scalar(_)))
                .collect(),
        );
        outputs.extend(epilogues[gi].iter().copied());
        let why = reduction_why(p, &groups, gi, !body.is_empty(), !epilogues[gi].is_empty());
        kernels.push((
            g.depth,
            KernelPlan {
                kind: PlanKind::Reduction {
                    reduces: g.reduces.clone(),
                    mask: g.mask,
                    keepdims: g.keepdims,
                    ndim: p.node(roots[0]).ndim,
                },
                arrays: g.arrays.clone(),
                scalars,
                body,
                epilogue,
                outputs,
                why,
            },
        ));
    }
    for &sc in &scans {
        let operand = p.node(sc).args[0];
        let (body, ls) = cone(p, &[operand], |k| is_leaf(p, k));
        let arrays = leaves[operand as usize].clone();
        let why = scan_why(p, &arrays, !body.is_empty());
        kernels.push((
            depth[sc as usize],
            KernelPlan {
                kind: PlanKind::Scan { scan: sc },
                arrays,
                scalars: scalars_of(p, &ls),
                body,
                epilogue: Vec::new(),
                outputs: SmallVec::from_elem(sc, 1),
                why,
            },
        ));
    }
    kernels.sort_by_key(|(d, _)| *d);
    let mut kernels: Vec<KernelPlan> = kernels.into_iter().map(|(_, k)| k).collect();
    let n_red = kernels.len();
    for (set, outs) in &ew {
        let (body, ls) = cone(p, outs, |k| is_leaf(p, k));
        let scalars: Set = ls
            .iter()
            .copied()
            .filter(|&k| matches!(p.node(k).kind, Kind::Scalar(_)))
            .collect();
        let reads_reduced = set
            .iter()
            .any(|&k| matches!(p.node(viewed(p, k)).kind, Kind::Reduce(..)));
        let reads_scanned = set
            .iter()
            .any(|&k| matches!(p.node(viewed(p, k)).kind, Kind::Scan(..)));
        let why = if n_red == 0 && ew.len() == 1 {
            "one pass: every operation in one element-wise kernel".to_owned()
        } else if reads_scanned {
            "cut after the scan: uses scanned values, each of which needs every element before it"
                .to_owned()
        } else if reads_reduced {
            "cut after the reductions: combines reduced values with the elements they were reduced from (or with other kernels' results), which needs them complete".to_owned()
        } else if n_red > 0 {
            "a pass of its own for values of the elements' shape: a reduction or scan kernel writes its reduced or scanned values only".to_owned()
        } else {
            "a separate element-wise pass: these values read other arrays than the other kernels (one kernel has one loop shape)".to_owned()
        };
        kernels.push(KernelPlan {
            kind: PlanKind::Elementwise,
            arrays: set.clone(),
            scalars,
            body,
            epilogue: Vec::new(),
            outputs: outs.clone(),
            why,
        });
    }
    Plan { kernels }
}

/// Why a scan reading `arrays` is a kernel of its own and what it fuses.
fn scan_why(p: &Program, arrays: &Set, producers: bool) -> String {
    let mut why = if producers {
        "one pass: the element-wise producers run in the scan's loads".to_owned()
    } else {
        "one pass: a scan of the arrays as they are".to_owned()
    };
    let temps: Vec<String> = arrays
        .iter()
        .filter(|&&k| is_computed(p, viewed(p, k)))
        .map(|&k| format!("%{}", viewed(p, k)))
        .collect();
    if !temps.is_empty() {
        why.push_str(&format!(
            "; cut before it: it reads {}, which the earlier kernel must finish first",
            temps.join(", ")
        ));
    }
    why
}

/// Why reduction group `gi` is a kernel of its own and what it fuses.
fn reduction_why(
    p: &Program,
    groups: &[Group],
    gi: usize,
    producers: bool,
    epilogue: bool,
) -> String {
    let g = &groups[gi];
    let n = g.reduces.len();
    let mut why = if n == 1 && !producers {
        "one pass: a reduction of the arrays as they are".to_owned()
    } else if n == 1 {
        "one pass: the element-wise producers run in the reduction's loads".to_owned()
    } else {
        format!(
            "one pass for {n} reductions over the same elements (one accumulator struct); their producers run in the loads"
        )
    };
    if epilogue {
        why.push_str(", the epilogue in its final stage");
    }
    let temps: Vec<String> = g
        .arrays
        .iter()
        .map(|&k| viewed(p, k))
        .filter(|&k| matches!(p.node(k).kind, Kind::Reduce(..)))
        .map(|k| format!("%{k}"))
        .collect();
    if !temps.is_empty() {
        why.push_str(&format!(
            "; cut before it: it reads {} (reduced values used again on the elements they were reduced from), which the earlier kernel must finish first",
            temps.join(", ")
        ));
    } else if let Some(k) = g
        .arrays
        .iter()
        .map(|&k| viewed(p, k))
        .find(|&k| matches!(p.node(k).kind, Kind::Scan(..)))
    {
        why.push_str(&format!(
            "; cut before it: it reads %{k} (scanned values), which the scan kernel must finish first"
        ));
    } else if g.split_for_size {
        why.push_str(&format!(
            "; separate from the other reductions of these elements: one accumulator struct holds at most {PARTIAL_BYTES} bytes"
        ));
    } else if gi > 0 {
        why.push_str("; separate from the reductions before it: it reduces other arrays or other axes (one reduction kernel reads one broadcast domain)");
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_layout_follows_c() {
        let d = |op, dt| Accum::of(op, dt).unwrap();
        use crate::array::DType::*;
        assert_eq!(struct_bytes(&[d(ROp::Sum, F64)]), 8);
        assert_eq!(struct_bytes(&[d(ROp::All, F32), d(ROp::Sum, F64)]), 16);
        assert_eq!(struct_bytes(&[d(ROp::Var, F64), d(ROp::Max, F32)]), 32);
        assert_eq!(struct_bytes(&[d(ROp::Var, F64), d(ROp::Var, F64)]), 48);
        assert_eq!(struct_bytes(&[d(ROp::Sum, C128), d(ROp::Any, Bool)]), 32);
    }
}
