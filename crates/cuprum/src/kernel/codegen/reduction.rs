//! Source of one ReductionKernel specialisation.
//!
//! The input is seen as (outputs × reduction): output `_i` reduces elements `_J = 0..R`.
//! A block of 256 threads is `tx × ty`; each output gets `lanes` threads that stride
//! through its reduction (4 loads in flight per thread), then combine — through shared
//! memory while partners are a warp or more apart, then with warp shuffles.
//! - **Inner** (reduced axes contiguous, full reductions): `lanes = tx` threads per output
//!   walk adjacent elements (16-byte loads when the rows are aligned), `ty` outputs per
//!   block.
//! - **Outer** (outputs contiguous, reduced axes strided): `tx` adjacent outputs per block
//!   (coalesced reads across a row), `lanes = ty` threads split each reduction.
//!
//! When the outputs alone cannot fill the GPU, each reduction is split over `splits` blocks
//! (grid y): every block writes its partial, and the last block to finish (an atomic ticket
//! per output block, its counter kept zeroed in the device's scratch, `scratch.rs`)
//! combines the partials in split order and applies `post_map`. No floating-point atomics:
//! the combination order depends only on the launch shape, so results are deterministic.
//!
//! **Inner splits interleave on a GPU** ([`ReduceStrategy::interleave`]): split `y` of
//! `splits` takes the stripes of `lanes` elements (or wide loads) `y`, `y + splits`, `y +
//! 2 splits`, …, so the blocks of one wave sweep the same region of memory together,
//! rather than each walking a contiguous chunk of its own. Measured on an H100 (2026-12-07,
//! a standalone sum of 1e8 float64 in this kernel's shape, medians of 40): contiguous
//! chunks 262.0–269.0 µs over 528, 1056 or 2112 blocks and two to eight 16-byte loads in
//! flight (0.98–1.00 of CUB's `DeviceReduce::Sum`, 262.7 µs), interleaved stripes
//! 257.8–261.5 µs (1.00–1.02 of CUB). The host device keeps contiguous chunks (a CPU
//! thread walks its block's memory in order), and so do the outer shapes (columns), whose
//! splits were not measured this way.
//!
//! **Split or not is part of the specialisation** ([`ReduceStrategy::split`]): the
//! partials, the ticket and the second combine are generated only into kernels launched
//! with more than one split. They used to sit in every kernel behind a run-time
//! `if (_m.splits > 1)`, and NVVM and ptxas paid for them in every compile: on the 2-core
//! build machine (thread CPU time, medians of 9, `sm_90`) the bench's sum-of-squares
//! compiles in 42–46 ms without them against 54–56 ms with them (≈ −3 ms on the H100);
//! a split kernel costs what every kernel cost before. The trade: a kernel called both on
//! small reductions (one block per output) and large ones (split) compiles twice, once per
//! kind, each on first use; the code and the combination order of each kind are unchanged,
//! so results are bit-identical to before. Measured on `cuprum demo` (31 examples on the
//! host device, the kernel list recorded): 68 kernels compiled, 17 of them reductions, and
//! no extra compile: each kernel launched both split and unsplit there already differed in
//! another strategy field (a long contiguous reduction also takes 4-wide loads), so it
//! compiled twice before as well. Measured and not taken: one combine shared by
//! both stages in a loop (−2.6 ms only), 2× instead of 4× unrolling (−3.4 ms, but fewer
//! loads in flight, not traded without a GPU measurement), and including only
//! `indexer.cuh` + `reduce.cuh` instead of `all.cuh` (−5 ms, but user expressions may use
//! any of cuprum's helpers).

use super::entry::{EntryParams, Slot, ctype, int_struct};
use super::writer::SourceWriter;
use crate::array::DType;
use crate::kernel::params::Param;
use crate::kernel_abi::{ArgSlot, DEPENDENT_WAIT, GeneratedKernel};
use std::fmt::Write;

/// Threads per block of every reduction kernel.
pub(crate) const BLOCK: usize = 256;
/// Bytes reserved per partial result (`_type_reduce` must fit).
pub(crate) const PARTIAL_BYTES: usize = 64;

/// The kernel strategy a reduction specialisation is generated for: which threads share an
/// output (inner or outer), the block's shape, the merged dimensions, the index width and
/// the wide loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ReduceStrategy {
    /// Outputs contiguous (threads own adjacent outputs) rather than reduced axes.
    pub outer: bool,
    /// Threads along x.
    pub tx: u16,
    /// Threads along y (`tx * ty == 256`).
    pub ty: u16,
    /// Output dimensions after merging.
    pub ndo: u8,
    /// Reduced dimensions after merging.
    pub ndr: u8,
    /// 64-bit indexing.
    pub wide: bool,
    /// One reduced dimension with unit stride in every input (no stride multiply).
    pub unit: bool,
    /// Elements per wide load along a unit-stride reduction (1: plain loads).
    pub vec: u8,
    /// Launched with more than one split per reduction: the kernel has the partials, the
    /// ticket and the final combine (see the module docs).
    pub split: bool,
    /// The splits of each reduction interleave (split `y` takes the `lanes`-wide stripes
    /// `y`, `y + splits`, …) instead of each taking one contiguous chunk (see the module
    /// docs): inner split reductions on a GPU.
    pub interleave: bool,
}

impl ReduceStrategy {
    /// Threads that share one output.
    pub(crate) fn lanes(&self) -> usize {
        if self.outer {
            self.ty as usize
        } else {
            self.tx as usize
        }
    }
    /// Distance in thread index between neighbouring lanes of one output.
    fn step(&self) -> usize {
        if self.outer { self.tx as usize } else { 1 }
    }
    /// Outputs per block.
    pub(crate) fn outputs_per_block(&self) -> usize {
        BLOCK / self.lanes()
    }
}

/// Everything one reduction specialisation's source depends on.
pub(crate) struct ReductionSource<'a> {
    pub name: &'a str,
    pub params: &'a [Param],
    pub nin: usize,
    pub dtypes: &'a [DType],
    pub slots: &'a [Slot],
    pub typedefs: &'a str,
    pub preamble: &'a str,
    pub map_expr: &'a str,
    pub reduce_expr: &'a str,
    pub post_map_expr: &'a str,
    pub identity: Option<&'a str>,
    pub reduce_type: &'a str,
    pub strategy: ReduceStrategy,
}

/// One array parameter of the kernel: (parameter index, array number, parameter, C type).
type ArrayParam<'a> = (usize, usize, &'a Param, String);

/// What the parts of one reduction kernel's source share.
struct Parts<'e, 'a> {
    e: &'e ReductionSource<'a>,
    arrays: Vec<ArrayParam<'a>>,
    /// Inputs among `arrays`.
    ni: usize,
    /// No identity: validity flags travel with the values.
    flag: bool,
    /// The accumulator's start value.
    identity: String,
}

/// Generates the kernel: its source (with the spans of user text) and its parameters.
pub(crate) fn generate(e: &ReductionSource<'_>) -> GeneratedKernel {
    let arrays: Vec<ArrayParam<'_>> = e
        .params
        .iter()
        .enumerate()
        .filter_map(|(k, p)| match e.slots[k] {
            Slot::Array { idx } => Some((k, idx, p, ctype(p, e.dtypes[k]))),
            _ => None,
        })
        .collect();
    let ni = arrays.iter().filter(|a| a.0 < e.nin).count();
    let identity = match e.identity {
        Some(v) => format!("_type_reduce({v})"),
        None => "_type_reduce()".to_owned(),
    };
    let g = Parts {
        e,
        ni,
        arrays,
        flag: e.identity.is_none(),
        identity,
    };
    let mut w = SourceWriter::prologue(e.strategy.wide, e.typedefs, e.preamble);
    g.user_macros(&mut w);
    let sig = signature(e, &mut w, g.arrays.len(), g.ni);
    g.head(&mut w, &sig);
    g.output_offsets(&mut w);
    g.reduce_chunk(&mut w);
    block_combine(&mut w.src, e.strategy, g.flag);
    if e.strategy.split {
        g.combine_splits(&mut w);
    }
    g.post_map(&mut w);
    GeneratedKernel {
        name: e.name.to_owned(),
        source: w.src,
        schema: sig.into_schema(),
        spans: w.spans,
        dependent: true,
    }
}

impl Parts<'_, '_> {
    /// The user's expressions as macros and the accumulator type (at most `PARTIAL_BYTES`).
    fn user_macros(&self, w: &mut SourceWriter) {
        let e = self.e;
        w.user_line("reduce_expr", "#define REDUCE(a, b) (", e.reduce_expr, ")");
        w.user_line(
            "post_map_expr",
            "#define POST_MAP(a) do { ",
            e.post_map_expr.trim().trim_end_matches(';'),
            "; } while (0)",
        );
        w.user_line("reduce_type", "typedef ", e.reduce_type, " _type_reduce;");
        let _ = writeln!(
            w.src,
            "static_assert(sizeof(_type_reduce) <= {PARTIAL_BYTES}, \"_type_reduce is larger than {PARTIAL_BYTES} bytes\");"
        );
    }

    /// The entry point's first lines: the loop sizes, the shared combine buffers, this
    /// thread's output `_io` and lane, the accumulator.
    fn head(&self, w: &mut SourceWriter, sig: &EntryParams) {
        let sh = self.e.strategy;
        let (out_of, lane_of) = if sh.outer {
            (
                format!("(cuprum_idx_t)blockIdx.x * {} + threadIdx.x", sh.tx),
                "threadIdx.y",
            )
        } else {
            (
                format!("(cuprum_idx_t)blockIdx.x * {} + threadIdx.y", sh.ty),
                "threadIdx.x",
            )
        };
        let _ = write!(
            w.src,
            "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {}({}) {{\n{DEPENDENT_WAIT}\
             \x20 const cuprum::LoopSize _in_ind __attribute__((unused)){{(long long)_m.O * (long long)_m.R}}, _out_ind __attribute__((unused)){{(long long)_m.O}};\n\
             \x20 __shared__ __align__(16) unsigned char _sh_raw[{BLOCK} * sizeof(_type_reduce)];\n\
             \x20 _type_reduce* _sh = reinterpret_cast<_type_reduce*>(_sh_raw);\n",
            self.e.name,
            sig.list()
        );
        if self.flag {
            let _ = writeln!(w.src, "  __shared__ bool _shv[{BLOCK}];");
        }
        let _ = write!(
            w.src,
            "  const unsigned _t = threadIdx.y * {tx} + threadIdx.x, _lane = {lane_of};\n\
             \x20 const cuprum_idx_t _io = {out_of};\n\
             \x20 const long long _i __attribute__((unused)) = (long long)_io;\n\
             \x20 _type_reduce _s = {identity};\n\
             \x20 bool _v __attribute__((unused)) = false;\n",
            tx = sh.tx,
            identity = self.identity
        );
    }

    /// Every array's offset of this thread's output (`_oo<a>`), and the part `_r0.._r1`
    /// of the reduction this block's split covers.
    fn output_offsets(&self, w: &mut SourceWriter) {
        let (na, ndo) = (self.arrays.len(), self.e.strategy.ndo as usize);
        let decl: Vec<String> = (0..na).map(|a| format!("_oo{a} = 0")).collect();
        let mut s = String::new();
        if na > 0 {
            let _ = writeln!(s, "  cuprum_off_t {};", decl.join(", "));
        }
        s.push_str("  if (_io < _m.O) {\n");
        if ndo > 0 && na > 0 {
            let _ = write!(
                s,
                "    {{\n      cuprum_idx_t _q = _io;\n      #pragma unroll\n      for (int _d = {} ; _d >= 0; --_d) {{\n        cuprum_idx_t _k = _q;\n        if (_d > 0) {{ const cuprum_idx_t _n = _q / _m.oshape[_d]; _k = _q - _n * _m.oshape[_d]; _q = _n; }}\n",
                ndo - 1
            );
            for a in 0..na {
                let _ = writeln!(s, "        _oo{a} += (cuprum_off_t)_k * _m.ost[{a}][_d];");
            }
            s.push_str("      }\n    }\n");
        }
        let lanes = self.e.strategy.lanes();
        if self.e.strategy.interleave {
            let _ = write!(
                s,
                "    const cuprum_idx_t _r0 = 0, _r1 = _m.R;\n\
                 \x20   const cuprum_idx_t _f = (cuprum_idx_t)blockIdx.y * {lanes} + _lane, _S = _m.splits * {lanes};\n"
            );
        } else {
            let _ = write!(
                s,
                "    const cuprum_idx_t _r0 = (cuprum_idx_t)blockIdx.y * _m.chunk;\n\
                 \x20   const cuprum_idx_t _r1 = _r0 + _m.chunk < _m.R ? _r0 + _m.chunk : _m.R;\n\
                 \x20   const cuprum_idx_t _f = _lane, _S = {lanes};\n"
            );
        }
        w.push(&s);
    }

    /// The lane's share of `_r0.._r1`, from `_f` in steps of `_S` (a stripe of `lanes`
    /// elements, or wide loads, at a time): wide loads two steps in flight, or four plain
    /// elements in flight, then the tail one element at a time.
    fn reduce_chunk(&self, w: &mut SourceWriter) {
        let (e, arrays, flag) = (self.e, &self.arrays, self.flag);
        let sh = e.strategy;
        let (ndr, v) = (sh.ndr as usize, sh.vec as usize);
        let direct = |a: usize, p: &Param| {
            let roff = match (ndr, sh.unit) {
                (0, _) => String::new(),
                (1, true) => " + (cuprum_off_t)_rr".to_owned(),
                (1, false) => format!(" + (cuprum_off_t)_rr * _m.rst[{a}][0]"),
                _ => format!(" + _ro{a}"),
            };
            format!("_raw_{}[_oo{a}{roff}]", p.name)
        };
        let tail_start = if v > 1 {
            let _ = write!(
                w.src,
                "    const cuprum_idx_t _nv = (_r1 - _r0) / {v};\n    cuprum_idx_t _q = _f;\n    #pragma unroll 1\n    for (; _q + _S < _nv; _q += 2 * _S) {{\n"
            );
            for base in [format!("_r0 + _q * {v}"), format!("_r0 + (_q + _S) * {v}")] {
                vec_block(e, w, arrays, &base, flag);
            }
            w.push("    }\n    if (_q < _nv) {\n");
            vec_block(e, w, arrays, &format!("_r0 + _q * {v}"), flag);
            w.push("    }\n");
            format!("_r0 + _nv * {v} + _f")
        } else {
            w.push(
                "    cuprum_idx_t _r = _r0 + _f;\n    #pragma unroll 1\n    for (; _r + 3 * _S < _r1; _r += 4 * _S) {\n",
            );
            for r in ["_r", "_r + _S", "_r + 2 * _S", "_r + 3 * _S"] {
                element(e, w, arrays, self.ni, r, flag, &direct);
            }
            w.push("    }\n");
            "_r".to_owned()
        };
        let _ = writeln!(
            w.src,
            "    #pragma unroll 1\n    for (cuprum_idx_t _rt = {tail_start}; _rt < _r1; _rt += _S) {{"
        );
        element(e, w, arrays, self.ni, "_rt", flag, &direct);
        w.push("    }\n  }\n");
    }

    /// Split reductions (only in `split` kernels): every block publishes its partial; the
    /// last block of its output block (an atomic ticket) combines the partials in split
    /// order.
    fn combine_splits(&self, w: &mut SourceWriter) {
        let lanes = self.e.strategy.lanes();
        let _ = write!(
            w.src,
            "  if (_m.splits > 1) {{\n\
             \x20   if ({LEADER} && _io < _m.O) _partials[(unsigned long long)_io * _m.splits + blockIdx.y] = _s;\n\
             \x20   __threadfence();\n\
             \x20   __syncthreads();\n\
             \x20   __shared__ unsigned int _ticket;\n\
             \x20   if (_t == 0) _ticket = atomicAdd(&_counters[blockIdx.x], 1u);\n\
             \x20   __syncthreads();\n\
             \x20   if (_ticket != (unsigned int)(_m.splits - 1)) return;\n\
             \x20   if (_t == 0) _counters[blockIdx.x] = 0u;\n\
             \x20   _s = {identity};\n\
             \x20   _v = false;\n\
             \x20   if (_io < _m.O) {{\n\
             \x20     #pragma unroll 1\n\
             \x20     for (cuprum_idx_t _p = _lane; _p < _m.splits; _p += {lanes}) {{\n\
             \x20       const _type_reduce _a = _partials[(unsigned long long)_io * _m.splits + _p];\n",
            identity = self.identity
        );
        w.push(&combine_into("        ", "_a", "true", self.flag));
        w.push("      }\n    }\n");
        block_combine(&mut w.src, self.e.strategy, self.flag);
        w.push("  }\n");
    }

    /// The post-map by each output's leader, with the outputs bound by name.
    fn post_map(&self, w: &mut SourceWriter) {
        let _ = writeln!(w.src, "  if ({LEADER} && _io < _m.O) {{");
        let mut s = String::new();
        for (k, a, p, ty) in &self.arrays {
            if *k >= self.e.nin {
                let _ = writeln!(s, "    {ty}& {} = _raw_{}[_oo{a}];", p.name, p.name);
            }
        }
        w.push(&s);
        w.push("    POST_MAP(_s);\n  }\n}\n");
    }
}

/// The thread that holds an output's combined value.
const LEADER: &str = "_lane == 0";

/// The parameters (after writing the `cuprum_rmeta` struct): the user's, then
/// `cuprum_rmeta` (O, R, chunk, splits, then the merged output extents with every array's
/// output strides and the merged reduction extents with every input's strides, in the
/// index width), then the partials and the ticket counters of split reductions.
fn signature(e: &ReductionSource<'_>, w: &mut SourceWriter, na: usize, ni: usize) -> EntryParams {
    let sh = e.strategy;
    let (o1, r1) = (usize::from(sh.ndo).max(1), usize::from(sh.ndr).max(1));
    let (def, meta) = int_struct(
        "cuprum_rmeta",
        &[
            ("cuprum_idx_t", "O, R, chunk, splits", &[]),
            ("cuprum_idx_t", "oshape", &[o1]),
            ("cuprum_off_t", "ost", &[na.max(1), o1]),
            ("cuprum_idx_t", "rshape", &[r1]),
            ("cuprum_off_t", "rst", &[ni.max(1), r1]),
        ],
        sh.wide,
    );
    w.push(&def);
    w.push("\n");
    let mut sig = EntryParams::user(e.params, e.dtypes, e.slots);
    sig.push("const cuprum_rmeta _m", meta);
    sig.push("_type_reduce* _partials", ArgSlot::Pointer);
    sig.push("unsigned int* _counters", ArgSlot::Pointer);
    sig
}

/// `s = REDUCE(s, a)` honouring the validity flags when there is no identity.
fn combine_into(indent: &str, a: &str, av: &str, flag: bool) -> String {
    if flag {
        format!(
            "{indent}if ({av}) {{ _s = _v ? (_type_reduce)REDUCE(_s, {a}) : {a}; _v = true; }}\n"
        )
    } else {
        format!("{indent}_s = REDUCE(_s, {a});\n")
    }
}

/// One reduction element at index expression `r`: bind the inputs, map, reduce.
fn element(
    e: &ReductionSource<'_>,
    w: &mut SourceWriter,
    arrays: &[ArrayParam<'_>],
    ni: usize,
    r: &str,
    flag: bool,
    value: &dyn Fn(usize, &Param) -> String,
) {
    let ndr = e.strategy.ndr as usize;
    let mut s = format!(
        "      {{\n        const cuprum_idx_t _rr = {r};\n        const long long _J __attribute__((unused)) = (long long)_rr;\n"
    );
    if ni > 0 && ndr > 1 {
        let decl: Vec<String> = (0..ni).map(|a| format!("_ro{a} = 0")).collect();
        let _ = write!(
            s,
            "        cuprum_off_t {};\n        {{\n          cuprum_idx_t _q = _rr;\n          #pragma unroll\n          for (int _d = {}; _d >= 0; --_d) {{\n            cuprum_idx_t _k = _q;\n            if (_d > 0) {{ const cuprum_idx_t _n = _q / _m.rshape[_d]; _k = _q - _n * _m.rshape[_d]; _q = _n; }}\n",
            decl.join(", "),
            ndr - 1
        );
        for a in 0..ni {
            let _ = writeln!(
                s,
                "            _ro{a} += (cuprum_off_t)_k * _m.rst[{a}][_d];"
            );
        }
        s.push_str("          }\n        }\n");
    }
    for (k, a, p, ty) in arrays {
        if *k >= e.nin {
            continue;
        }
        let v = value(*a, p);
        let _ = match (p.is_const, e.dtypes[*k] == DType::Bool) {
            // a bool input is the value of its byte (indexer.cuh's `as_bool`)
            (true, true) => writeln!(s, "        const bool {} = cuprum::as_bool({v});", p.name),
            (true, false) => writeln!(s, "        const {ty} {} = {v};", p.name),
            (false, _) => writeln!(s, "        {ty}& {} = {v};", p.name),
        };
    }
    s.push_str("        const _type_reduce _a = static_cast<_type_reduce>(\n");
    w.push(&s);
    w.user("map_expr", e.map_expr.trim());
    w.push("        );\n");
    w.push(&combine_into("        ", "_a", "true", flag));
    w.push("      }\n");
}

/// `v` adjacent elements from `base`: one wide load per input, then each element.
fn vec_block(
    e: &ReductionSource<'_>,
    w: &mut SourceWriter,
    arrays: &[ArrayParam<'_>],
    base: &str,
    flag: bool,
) {
    let v = e.strategy.vec;
    let mut s = format!("      {{\n        const cuprum_idx_t _vb = {base};\n");
    for (k, a, p, ty) in arrays {
        if *k < e.nin {
            let _ = writeln!(
                s,
                "        const cuprum::Vec<{ty}, {v}> _vx{a} = *reinterpret_cast<const cuprum::Vec<{ty}, {v}>*>(_raw_{} + _oo{a} + _vb);",
                p.name
            );
        }
    }
    let _ = writeln!(
        s,
        "        #pragma unroll\n        for (int _e = 0; _e < {v}; ++_e) {{"
    );
    w.push(&s);
    let ni = arrays.iter().filter(|x| x.0 < e.nin).count();
    element(e, w, arrays, ni, "_vb + _e", flag, &|a, _| {
        format!("_vx{a}.v[_e]")
    });
    w.push("        }\n      }\n");
}

/// Combines the `lanes` values of each output into lane 0: shared memory while partners
/// are at least a warp apart, warp shuffles below that.
fn block_combine(s: &mut String, sh: ReduceStrategy, flag: bool) {
    let (lanes, step) = (sh.lanes(), sh.step());
    s.push_str("  _sh[_t] = _s;\n");
    if flag {
        s.push_str("  _shv[_t] = _v;\n");
    }
    s.push_str("  __syncthreads();\n");
    let mut w = lanes / 2;
    while w >= 1 && w * step >= 32 {
        let d = w * step;
        let _ = writeln!(s, "  if (_lane < {w}) {{");
        if flag {
            let _ = writeln!(
                s,
                "    if (_shv[_t + {d}]) {{ _sh[_t] = _shv[_t] ? (_type_reduce)REDUCE(_sh[_t], _sh[_t + {d}]) : _sh[_t + {d}]; _shv[_t] = true; }}"
            );
        } else {
            let _ = writeln!(s, "    _sh[_t] = REDUCE(_sh[_t], _sh[_t + {d}]);");
        }
        s.push_str("  }\n  __syncthreads();\n");
        w /= 2;
    }
    s.push_str("  _s = _sh[_t];\n");
    if flag {
        s.push_str("  _v = _shv[_t];\n");
    }
    while w >= 1 {
        let d = w * step;
        let _ = write!(
            s,
            "  {{\n    const _type_reduce _o = cuprum::shfl_down(_s, {d});\n"
        );
        if flag {
            let _ = write!(
                s,
                "    const bool _ov = __shfl_down_sync(0xffffffffu, _v, {d});\n    if (_lane < {w} && _ov) {{ _s = _v ? (_type_reduce)REDUCE(_s, _o) : _o; _v = true; }}\n"
            );
        } else {
            let _ = writeln!(s, "    if (_lane < {w}) _s = REDUCE(_s, _o);");
        }
        s.push_str("  }\n");
        w /= 2;
    }
    // Everyone leaves with the shared buffer free for the next use.
    s.push_str("  __syncthreads();\n");
}
