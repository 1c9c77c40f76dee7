//! Source of one ElementwiseKernel specialisation (dtypes × layout × index width).
//!
//! Inside the loop every non-raw array parameter is a reference named after the parameter
//! (`const` for inputs), scalars are by-value parameters, raw arrays are `CArray`s the
//! operation indexes itself, `i` is the C-order loop index and `_ind.size()` the loop size.

use super::entry::{EntryParams, Slot, ctype, int_struct};
use super::layout::{Layout, LayoutClass, TILE, TILE_ROWS};
use super::writer::SourceWriter;
use crate::array::DType;
use crate::kernel::params::Param;
use crate::kernel_abi::{ArgSlot, DEPENDENT_WAIT, GeneratedKernel, IndexWidth};
use std::fmt::Write;

/// Everything one specialisation's source depends on.
pub(crate) struct ElementwiseSource<'a> {
    pub name: &'a str,
    pub params: &'a [Param],
    pub dtypes: &'a [DType],
    pub slots: &'a [Slot],
    pub typedefs: &'a str,
    pub layout: Layout,
    pub operation: &'a str,
    pub preamble: &'a str,
    pub loop_prep: &'a str,
    pub after_loop: &'a str,
    /// Per parameter: staged copies must be loaded before the operation (outputs it reads).
    pub preload: &'a [bool],
    /// Threads per block the launch uses (for `__launch_bounds__`).
    pub block: u32,
}

impl ElementwiseSource<'_> {
    fn arrays(&self) -> impl Iterator<Item = (usize, usize, &Param, String)> + '_ {
        self.params
            .iter()
            .enumerate()
            .filter_map(move |(k, p)| match self.slots[k] {
                Slot::Array { idx } => Some((k, idx, p, ctype(p, self.dtypes[k]))),
                _ => None,
            })
    }

    fn tiled(&self, idx: usize) -> bool {
        self.layout.class == LayoutClass::Tiled && idx < 32 && self.layout.tiled & (1 << idx) != 0
    }

    /// `const T& x = <expr>;` for every array, `expr` built per array; a bool input is
    /// the value of its byte (`const bool x = cuprum::as_bool(<expr>);`: any non-zero byte
    /// is true, as NumPy reads it).
    fn refs(&self, s: &mut String, indent: &str, expr: impl Fn(usize, usize, &Param) -> String) {
        for (k, idx, p, ty) in self.arrays() {
            let (name, e) = (&p.name, expr(k, idx, p));
            let _ = match (p.is_const, self.dtypes[k] == DType::Bool) {
                (true, true) => writeln!(s, "{indent}const bool {name} = cuprum::as_bool({e});"),
                (true, false) => writeln!(s, "{indent}const {ty}& {name} = {e};"),
                (false, _) => writeln!(s, "{indent}{ty}& {name} = {e};"),
            };
        }
    }
}

/// Generates the kernel: its source (with the spans of user text) and its parameters —
/// the user's, then the loop size `_n` in the index width, then (unless the layout is
/// contiguous) `cuprum_meta`: the merged loop extents and each array's strides.
pub(crate) fn generate(e: &ElementwiseSource<'_>) -> GeneratedKernel {
    let l = e.layout;
    let nd = l.nd as usize;
    let na = e
        .slots
        .iter()
        .filter(|s| matches!(s, Slot::Array { .. }))
        .count();
    let mut w = SourceWriter::prologue(l.wide, e.typedefs, e.preamble);
    let mut sig = EntryParams::user(e.params, e.dtypes, e.slots);
    sig.push(
        "const cuprum_idx_t _n",
        ArgSlot::Index(IndexWidth::of(l.wide)),
    );
    if l.class != LayoutClass::Contiguous {
        let (def, slot) = int_struct(
            "cuprum_meta",
            &[
                ("cuprum_idx_t", "shape", &[nd]),
                ("cuprum_off_t", "st", &[na.max(1), nd]),
            ],
            l.wide,
        );
        w.push(&def);
        w.push("\n");
        sig.push("const cuprum_meta _m", slot);
    }
    let _ = write!(
        w.src,
        "extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{\n  const cuprum::LoopSize _ind __attribute__((unused)){{(long long)_n}};\n",
        e.block,
        e.name,
        sig.list()
    );
    w.push(DEPENDENT_WAIT);
    w.user("loop_prep", e.loop_prep);
    let op = |w: &mut SourceWriter, indent: &str| {
        w.push(&format!("{indent}{{\n"));
        w.user(
            "operation",
            &format!("{indent}  {};", e.operation.trim_end()),
        );
        w.push(&format!("{indent}}}\n"));
    };
    match l.class {
        LayoutClass::Contiguous => contiguous(e, &mut w, &op),
        LayoutClass::Rows => rows(e, &mut w, &op, nd),
        LayoutClass::Flat => flat(e, &mut w, &op, nd),
        LayoutClass::Tiled => tiled(e, &mut w, &op, nd),
    }
    w.user("after_loop", e.after_loop);
    w.push("}\n");
    GeneratedKernel {
        name: e.name.to_owned(),
        source: w.src,
        schema: sig.into_schema(),
        spans: w.spans,
        dependent: true,
    }
}

type OpFn<'f> = dyn Fn(&mut SourceWriter, &str) + 'f;

fn contiguous(e: &ElementwiseSource<'_>, w: &mut SourceWriter, op: &OpFn<'_>) {
    let v = e.layout.vec as usize;
    let _ = write!(
        w.src,
        "  const cuprum_idx_t _step = (cuprum_idx_t)blockDim.x * gridDim.x * {v};\n  #pragma unroll 1\n  \
         for (cuprum_idx_t _b = ((cuprum_idx_t)blockIdx.x * blockDim.x + threadIdx.x) * {v}; _b < _n; _b += _step) {{\n"
    );
    let direct = |w: &mut SourceWriter, indent: &str, j: &str| {
        let mut s =
            format!("{indent}const long long i __attribute__((unused)) = (long long){j};\n");
        e.refs(&mut s, indent, |_, _, p| format!("_raw_{}[{j}]", p.name));
        w.push(&s);
        op(w, indent);
    };
    if v == 1 {
        direct(w, "    ", "_b");
        w.push("  }\n");
        return;
    }
    // Arrays that start off the vector are read and written element by element in the
    // wide loop; the others move whole vectors.
    let unaligned = |idx: usize| idx < 32 && e.layout.unaligned & (1 << idx) != 0;
    let mut s = format!("    if (_b + {v} <= _n) {{\n");
    for (k, idx, p, ty) in e.arrays() {
        if unaligned(idx) {
            continue;
        }
        let load = p.is_const || e.preload[k];
        let _ = write!(s, "      cuprum::Vec<{ty}, {v}> _v_{}", p.name);
        if load {
            let _ = write!(
                s,
                " = *reinterpret_cast<const cuprum::Vec<{ty}, {v}>*>(_raw_{} + _b)",
                p.name
            );
        }
        s.push_str(";\n");
    }
    let _ = write!(
        s,
        "      #pragma unroll\n      for (int _k = 0; _k < {v}; ++_k) {{\n        const long long i __attribute__((unused)) = (long long)(_b + _k);\n"
    );
    e.refs(&mut s, "        ", |_, idx, p| {
        if unaligned(idx) {
            format!("_raw_{}[_b + _k]", p.name)
        } else {
            format!("_v_{}.v[_k]", p.name)
        }
    });
    w.push(&s);
    op(w, "        ");
    let mut s = String::from("      }\n");
    for (_, idx, p, ty) in e.arrays() {
        if !p.is_const && !unaligned(idx) {
            let _ = writeln!(
                s,
                "      *reinterpret_cast<cuprum::Vec<{ty}, {v}>*>(_raw_{n} + _b) = _v_{n};",
                n = p.name
            );
        }
    }
    s.push_str("    } else {\n      for (cuprum_idx_t _j = _b; _j < _n; ++_j) {\n");
    w.push(&s);
    direct(w, "        ", "_j");
    w.push("      }\n    }\n  }\n");
}

/// Declares `_o<idx>` offsets and unravels `var` over axes `hi` down to 0.
fn unravel(e: &ElementwiseSource<'_>, s: &mut String, indent: &str, var: &str, hi: isize) {
    let na = e.arrays().count();
    let decl: Vec<String> = (0..na).map(|a| format!("_o{a} = 0")).collect();
    let _ = writeln!(s, "{indent}cuprum_off_t {};", decl.join(", "));
    if hi < 0 {
        return;
    }
    let _ = write!(
        s,
        "{indent}{{\n{indent}  cuprum_idx_t _t = {var};\n{indent}  #pragma unroll\n{indent}  for (int _d = {hi}; _d >= 0; --_d) {{\n\
         {indent}    cuprum_idx_t _k = _t;\n\
         {indent}    if (_d > 0) {{ const cuprum_idx_t _q = _t / _m.shape[_d]; _k = _t - _q * _m.shape[_d]; _t = _q; }}\n"
    );
    for a in 0..na {
        let _ = writeln!(s, "{indent}    _o{a} += (cuprum_off_t)_k * _m.st[{a}][_d];");
    }
    let _ = write!(s, "{indent}  }}\n{indent}}}\n");
}

fn rows(e: &ElementwiseSource<'_>, w: &mut SourceWriter, op: &OpFn<'_>, nd: usize) {
    let v = e.layout.vec as usize;
    let mut s = format!(
        "  const cuprum_idx_t _C = _m.shape[{l}];\n  cuprum_idx_t _R = 1;\n  #pragma unroll\n  for (int _d = 0; _d < {l}; ++_d) _R *= _m.shape[_d];\n  #pragma unroll 1\n  \
         for (cuprum_idx_t _r = (cuprum_idx_t)blockIdx.y * blockDim.y + threadIdx.y; _r < _R; _r += (cuprum_idx_t)blockDim.y * gridDim.y) {{\n",
        l = nd - 1
    );
    unravel(e, &mut s, "    ", "_r", nd as isize - 2);
    let _ = write!(
        s,
        "    #pragma unroll 1\n    for (cuprum_idx_t _c = ((cuprum_idx_t)blockIdx.x * blockDim.x + threadIdx.x) * {v}; _c < _C; _c += (cuprum_idx_t)blockDim.x * gridDim.x * {v}) {{\n"
    );
    if v > 1 {
        return wide_row(e, w, op, s);
    }
    s.push_str("      const long long i __attribute__((unused)) = (long long)_r * _C + _c;\n");
    e.refs(&mut s, "      ", |_, idx, p| {
        format!(
            "_raw_{}[_o{idx} + (cuprum_off_t)_c * _m.st[{idx}][{}]]",
            p.name,
            nd - 1
        )
    });
    w.push(&s);
    op(w, "      ");
    w.push("    }\n  }\n");
}

/// The body of a Rows loop step with wide loads along the row (`s`: the source so far);
/// arrays broadcast along it load one value.
fn wide_row(e: &ElementwiseSource<'_>, w: &mut SourceWriter, op: &OpFn<'_>, mut s: String) {
    let v = e.layout.vec as usize;
    let bcast = |idx: usize| idx < 32 && e.layout.row_bcast & (1 << idx) != 0;
    for (k, idx, p, ty) in e.arrays() {
        if bcast(idx) {
            continue;
        }
        let _ = write!(s, "      cuprum::Vec<{ty}, {v}> _v_{}", p.name);
        if p.is_const || e.preload[k] {
            let _ = write!(
                s,
                " = *reinterpret_cast<const cuprum::Vec<{ty}, {v}>*>(_raw_{} + _o{idx} + _c)",
                p.name
            );
        }
        s.push_str(";\n");
    }
    let _ = write!(
        s,
        "      #pragma unroll\n      for (int _k = 0; _k < {v}; ++_k) {{\n        const long long i __attribute__((unused)) = (long long)_r * _C + _c + _k;\n"
    );
    e.refs(&mut s, "        ", |_, idx, p| {
        if bcast(idx) {
            format!("_raw_{}[_o{idx}]", p.name)
        } else {
            format!("_v_{}.v[_k]", p.name)
        }
    });
    w.push(&s);
    op(w, "        ");
    let mut s = String::from("      }\n");
    for (_, idx, p, ty) in e.arrays() {
        if !p.is_const && !bcast(idx) {
            let _ = writeln!(
                s,
                "      *reinterpret_cast<cuprum::Vec<{ty}, {v}>*>(_raw_{n} + _o{idx} + _c) = _v_{n};",
                n = p.name
            );
        }
    }
    s.push_str("    }\n  }\n");
    w.push(&s);
}

fn flat(e: &ElementwiseSource<'_>, w: &mut SourceWriter, op: &OpFn<'_>, nd: usize) {
    let mut s = String::from(
        "  #pragma unroll 1\n  for (cuprum_idx_t _j = (cuprum_idx_t)blockIdx.x * blockDim.x + threadIdx.x; _j < _n; _j += (cuprum_idx_t)blockDim.x * gridDim.x) {\n    const long long i __attribute__((unused)) = (long long)_j;\n",
    );
    unravel(e, &mut s, "    ", "_j", nd as isize - 1);
    e.refs(&mut s, "    ", |_, idx, p| {
        format!("_raw_{}[_o{idx}]", p.name)
    });
    w.push(&s);
    op(w, "    ");
    w.push("  }\n");
}

fn tiled(e: &ElementwiseSource<'_>, w: &mut SourceWriter, op: &OpFn<'_>, nd: usize) {
    let (t, tr) = (TILE, TILE_ROWS);
    let (rd, cd) = (nd - 2, nd - 1);
    let mut s = String::new();
    for (_, idx, p, ty) in e.arrays() {
        if e.tiled(idx) {
            let _ = writeln!(s, "  __shared__ {ty} _s_{}[{t}][{}];", p.name, t + 1);
        }
    }
    let _ = write!(
        s,
        "  const cuprum_idx_t _C = _m.shape[{cd}], _R = _m.shape[{rd}];\n  cuprum_idx_t _B = 1;\n  #pragma unroll\n  for (int _d = 0; _d < {rd}; ++_d) _B *= _m.shape[_d];\n  \
         const cuprum_idx_t _tc = (_C + {t1}) / {t}, _tr = (_R + {t1}) / {t};\n  const cuprum_idx_t _tiles = _B * _tr * _tc;\n  #pragma unroll 1\n  \
         for (cuprum_idx_t _tile = blockIdx.x; _tile < _tiles; _tile += gridDim.x) {{\n    \
         const cuprum_idx_t _c0 = (_tile % _tc) * {t}, _rest = _tile / _tc;\n    const cuprum_idx_t _r0 = (_rest % _tr) * {t}, _bi = _rest / _tr;\n",
        t1 = t - 1
    );
    unravel(e, &mut s, "    ", "_bi", nd as isize - 3);
    let at = |idx: usize, r: &str, c: &str| {
        format!(
            "_o{idx} + (cuprum_off_t)({r}) * _m.st[{idx}][{rd}] + (cuprum_off_t)({c}) * _m.st[{idx}][{cd}]"
        )
    };
    // The untiled inputs go to registers first, so that their loads are in flight together
    // with the tiles' (not after the barrier): a transposed add 394 -> 308 µs on an H200.
    let direct = |idx: usize, p: &Param| !e.tiled(idx) && p.is_const;
    let per = t / tr;
    let mut pre = String::new();
    for (_, idx, p, ty) in e.arrays() {
        if direct(idx, p) {
            let _ = writeln!(s, "    {ty} _p_{}[{per}];", p.name);
            let _ = writeln!(
                pre,
                "        _p_{}[_u] = _raw_{}[{}];",
                p.name,
                p.name,
                at(idx, "_r", "_c")
            );
        }
    }
    let by_rows = |body: &str| {
        format!(
            "    #pragma unroll\n    for (int _u = 0; _u < {per}; ++_u) {{\n      const int _k = threadIdx.y + _u * {tr};\n      \
             const cuprum_idx_t _r = _r0 + _k, _c = _c0 + threadIdx.x;\n      if (_r < _R && _c < _C) {{\n{body}"
        )
    };
    if !pre.is_empty() {
        s.push_str(&by_rows(&pre));
        s.push_str("      }\n    }\n");
    }
    // Stage tiled inputs (and outputs the operation reads): coalesced along the row axis.
    let loads = tile_moves(e, &at, true);
    if !loads.is_empty() {
        s.push_str(&along_rows(&loads));
        s.push_str("    __syncthreads();\n");
    }
    s.push_str(&by_rows(
        "        const long long i __attribute__((unused)) = ((long long)_bi * _R + _r) * _C + _c;\n",
    ));
    e.refs(&mut s, "        ", |_, idx, p| {
        if e.tiled(idx) {
            format!("_s_{}[threadIdx.x][_k]", p.name)
        } else if direct(idx, p) {
            format!("_p_{}[_u]", p.name)
        } else {
            format!("_raw_{}[{}]", p.name, at(idx, "_r", "_c"))
        }
    });
    w.push(&s);
    op(w, "        ");
    let mut s = String::from("      }\n    }\n");
    let stores = tile_moves(e, &at, false);
    if !stores.is_empty() {
        s.push_str("    __syncthreads();\n");
        s.push_str(&along_rows(&stores));
    }
    s.push_str("    __syncthreads();\n  }\n");
    w.push(&s);
}

/// The copies between the tiled arrays and their tiles, one line each: loads of the
/// arrays the operation reads (`load`), or stores of the arrays it writes.
fn tile_moves(
    e: &ElementwiseSource<'_>,
    at: &dyn Fn(usize, &str, &str) -> String,
    load: bool,
) -> String {
    let mut s = String::new();
    for (k, idx, p, _) in e.arrays() {
        let (moves, n, elem) = (e.tiled(idx), &p.name, at(idx, "_r", "_c"));
        if load && moves && (p.is_const || e.preload[k]) {
            let _ = writeln!(s, "        _s_{n}[_k][threadIdx.x] = _raw_{n}[{elem}];");
        } else if !load && moves && !p.is_const {
            let _ = writeln!(s, "        _raw_{n}[{elem}] = _s_{n}[_k][threadIdx.x];");
        }
    }
    s
}

/// `body` run over the tile with threads along its row axis (coalesced for transposed
/// arrays).
fn along_rows(body: &str) -> String {
    let (t, tr) = (TILE, TILE_ROWS);
    format!(
        "    for (int _k = threadIdx.y; _k < {t}; _k += {tr}) {{\n      const cuprum_idx_t _r = _r0 + threadIdx.x, _c = _c0 + _k;\n      if (_r < _R && _c < _C) {{\n{body}      }}\n    }}\n"
    )
}
