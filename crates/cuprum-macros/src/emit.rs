//! The typed IR → CUDA C++ text.
//!
//! The output reads like hand-written CUDA: C++ operators wherever they already mean what
//! Rust means (floats, unsigned 32/64-bit integers, comparisons), and the prelude's `cj::`
//! helpers (cuprum/jit.cuh) where they do not: signed and 8/16-bit integer arithmetic wraps
//! as in a Rust release build, shifts mask their amount, float → int casts saturate,
//! `%` of floats is `fmod`, and every slice, shared-memory and array index goes through
//! `cj::ix`, one compare that records a fault and ends the thread on a miss. Same
//! instructions, no undefined behaviour: signed and 8/16-bit `+ - *` wrap through unsigned.
//! A division by a nonzero integer literal is C++'s own (no fault is possible).
//!
//! Checked variant: debug builds of the calling crate launch the program compiled with
//! `-DCUPRUM_JIT_CHECKED` (division by zero, `MIN / -1` and shift overflow fault, as
//! Rust's debug build panics); release builds do not check divisions, so the seed's hot
//! loop is instruction for instruction the RawKernel's (tests/jit_nvrtc.rs checks the
//! PTX). The prelude is function templates, so NVRTC analyses only what a kernel uses.

use crate::ir::*;
use crate::ty::{Infer, Prim, Ty, cpp_type};
use proc_macro2::Span;
use std::fmt::Write as _;

/// A C++ literal of integer type `p` with value `v`.
pub fn int_lit(p: Prim, v: i128) -> String {
    match p {
        Prim::I32 if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Prim::I32 => v.to_string(),
        Prim::I64 | Prim::Isize if v == i64::MIN as i128 => "(-9223372036854775807LL - 1LL)".into(),
        Prim::I64 | Prim::Isize => format!("{v}LL"),
        Prim::U32 => format!("{v}u"),
        Prim::U64 | Prim::Usize => format!("{v}ull"),
        Prim::I8 | Prim::I16 | Prim::U8 | Prim::U16 => format!("(({}){v})", p.cpp()),
        Prim::Bool => (v != 0).to_string(),
        _ => format!("(({}){v})", p.cpp()),
    }
}

/// A C++ float literal from Rust's decimal digits.
fn float_text(digits: &str) -> String {
    if digits.contains(['.', 'e', 'E']) {
        digits.to_string()
    } else {
        format!("{digits}.0")
    }
}

/// Where the value of an expression goes when it needs statements to compute.
#[derive(Clone)]
enum Dest {
    Assign(String),
    Return,
    Discard,
}

pub struct Emitter<'a> {
    f: &'a Func,
    infer: &'a Infer,
    out: String,
    indent: usize,
    pub errors: Vec<syn::Error>,
}

impl<'a> Emitter<'a> {
    pub fn new(f: &'a Func, infer: &'a Infer) -> Self {
        Emitter {
            f,
            infer,
            out: String::new(),
            indent: 0,
            errors: Vec::new(),
        }
    }

    fn ty(&self, t: &Ty) -> Ty {
        self.infer.resolve(t)
    }

    fn cty(&self, t: &Ty) -> String {
        cpp_type(&self.ty(t))
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn error(&mut self, span: Span, msg: &str) {
        self.errors.push(syn::Error::new(span, msg));
    }

    fn var(&self, id: usize) -> &str {
        &self.f.vars[id].cpp
    }

    // ---- the function ---------------------------------------------------------------------

    fn template_header(&self) -> Option<String> {
        if self.f.generic_order.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .f
            .generic_order
            .iter()
            .map(|g| match self.f.const_params.iter().find(|c| &c.0 == g) {
                Some((n, p)) => format!("{} {n}", p.cpp()),
                None => format!("typename {g}"),
            })
            .collect();
        Some(format!("template <{}>", parts.join(", ")))
    }

    fn param_list(&self) -> String {
        let mut v = Vec::new();
        for p in &self.f.params {
            let name = self.var(p.var);
            match self.ty(&p.ty) {
                Ty::Slice { elem, mutable } => {
                    let c = if mutable { "" } else { "const " };
                    v.push(format!("{c}{}* __restrict__ {name}", cpp_type(&elem)));
                    v.push(format!("const unsigned long long cj_len_{name}"));
                }
                t => v.push(format!("{} {name}", cpp_type(&t))),
            }
        }
        v.join(", ")
    }

    /// The kernel's `__global__` function or the device function's definition.
    pub fn function(mut self) -> (String, String, Vec<syn::Error>) {
        let f = self.f;
        let tmpl = self.template_header();
        let params = self.param_list();
        let mut proto = String::new();
        if f.kernel {
            match &tmpl {
                Some(t) => {
                    self.line(t);
                    self.line(&format!("__global__ void {}({params}) {{", f.name));
                }
                None => self.line(&format!(
                    "extern \"C\" __global__ void {}({params}) {{",
                    f.name
                )),
            }
        } else {
            let ret = self.cty(&f.ret);
            let head = format!("__device__ inline {ret} {}({params})", f.name);
            let t = tmpl.map(|t| format!("{t} ")).unwrap_or_default();
            let _ = write!(proto, "namespace cj_dev {{ {t}{head}; }}");
            self.line("namespace cj_dev {");
            if !t.is_empty() {
                self.line(t.trim_end());
            }
            self.line(&format!("{head} {{"));
        }
        self.indent += 1;
        if f.kernel && f.cooperative {
            self.line("cj::grid_sync_init();");
        }
        let dest = if f.kernel {
            Dest::Discard
        } else {
            Dest::Return
        };
        self.block_body(&f.body, dest);
        self.indent -= 1;
        self.line("}");
        if !f.kernel {
            self.line("}  // namespace cj_dev");
        }
        (self.out, proto, self.errors)
    }

    // ---- statements -----------------------------------------------------------------------

    /// A block's statements, its tail going to `dest`.
    fn block_body(&mut self, b: &Block, dest: Dest) {
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            match dest {
                Dest::Discard => self.stmt_expr(t),
                d => self.into(t, d),
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { var, init } => {
                let t = self.ty(&self.f.vars[*var].ty);
                let name = self.var(*var).to_string();
                if matches!(t, Ty::Unit) {
                    if let Some(x) = init {
                        self.stmt_expr(x);
                    }
                    return;
                }
                let ct = cpp_type(&t);
                match init {
                    None => self.line(&format!("{ct} {name};")),
                    Some(x) if self.pure(x) => {
                        let v = self.value(x);
                        self.line(&format!("{ct} {name} = {v};"));
                    }
                    Some(x) => {
                        self.line(&format!("{ct} {name};"));
                        self.into(x, Dest::Assign(name));
                    }
                }
            }
            Stmt::Shared { var, elem, len } => {
                let e = self.cty(elem);
                let name = self.var(*var).to_string();
                self.line(&format!("__shared__ {e} {name}[{}];", len.plain()));
            }
            Stmt::DynShared { var, elem } => {
                let e = self.cty(elem);
                let name = self.var(*var).to_string();
                self.line(&format!(
                    "{e}* {name} = reinterpret_cast<{e}*>(cj_dyn_smem);"
                ));
                self.line(&format!(
                    "const unsigned long long cj_len_{name} = cj::dyn_smem_bytes() / sizeof({e});"
                ));
            }
            Stmt::Expr(e) => self.stmt_expr(e),
        }
    }

    /// An expression in statement position.
    fn stmt_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If(..) => self.if_stmt(e, &Dest::Discard),
            ExprKind::Block(b) => {
                self.line("{");
                self.indent += 1;
                self.block_body(b, Dest::Discard);
                self.indent -= 1;
                self.line("}");
            }
            ExprKind::While { id, cond, body } => {
                let c = self.operand_value(cond);
                self.line(&format!("while ({c}) {{"));
                self.loop_body(*id, body, None);
                self.loop_end(*id);
            }
            ExprKind::Loop { id, body } => {
                self.line("for (;;) {");
                self.loop_body(*id, body, None);
                self.loop_end(*id);
            }
            ExprKind::For {
                id,
                var,
                kind,
                parts,
                body,
            } => self.for_loop(*id, *var, *kind, parts, body),
            ExprKind::Break { id, goto } => {
                if *goto {
                    self.line(&format!("goto cj_brk_{id};"));
                } else {
                    self.line("break;");
                }
            }
            ExprKind::Continue { id, goto } => {
                if *goto {
                    self.line(&format!("goto cj_cont_{id};"));
                } else {
                    self.line("continue;");
                }
            }
            ExprKind::Assert { cond, site, debug } => {
                let c = self.operand_value(cond);
                if *debug {
                    self.line("#ifdef CUPRUM_JIT_CHECKED");
                }
                self.line(&format!(
                    "if (!({c})) CJ_FAIL(CJ_SITE({site}), cj::K_ASSERT, 0, 0);"
                ));
                if *debug {
                    self.line("#endif");
                }
            }
            ExprKind::Return(None) => self.line("return;"),
            ExprKind::Return(Some(v)) => self.into(v, Dest::Return),
            ExprKind::Assign(place, v) => {
                let p = self.value(place);
                if self.pure(v) {
                    let x = self.value(v);
                    self.line(&format!("{p} = {x};"));
                } else {
                    self.into(v, Dest::Assign(p));
                }
            }
            ExprKind::OpAssign(op, place, v, site) => {
                let x = self.operand_value(v);
                let p = self.value(place);
                let t = self.ty(&place.ty);
                let line = self.op_assign(*op, &p, &x, &t, *site, v);
                self.line(&line);
            }
            _ => {
                let v = self.operand_value(e);
                self.line(&format!("{v};"));
            }
        }
    }

    fn op_assign(&self, op: BinOp, p: &str, x: &str, t: &Ty, site: usize, rhs: &Expr) -> String {
        let plain = match t {
            Ty::Prim(pr) if pr.native_float() || matches!(pr, Prim::F16 | Prim::Bf16) => {
                matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
            }
            Ty::Prim(pr) if pr.plain_wrapping() => match op {
                BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::BitAnd
                | BinOp::BitOr
                | BinOp::BitXor => true,
                BinOp::Shl | BinOp::Shr => small_shift(rhs, pr.bits()),
                BinOp::Div | BinOp::Rem => nonzero_lit(rhs),
                _ => false,
            },
            Ty::Prim(pr) if pr.is_int() && pr.bits() >= 32 => match op {
                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => true,
                BinOp::Shr => small_shift(rhs, pr.bits()),
                BinOp::Div | BinOp::Rem => nonzero_lit(rhs),
                _ => false,
            },
            Ty::Prim(pr) if pr.is_int() || *pr == Prim::Bool => {
                matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
            }
            _ => false,
        };
        if plain {
            return format!("{p} {}= {x};", op.cpp());
        }
        match op {
            BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr => {
                format!("cj::{}_to({p}, {x}, CJ_SITE({site}));", op.helper())
            }
            _ => format!("cj::{}_to({p}, {x});", op.helper()),
        }
    }

    /// Statements that compute `e` and send its value to `dest`.
    fn into(&mut self, e: &Expr, dest: Dest) {
        match &e.kind {
            ExprKind::If(..) if !self.pure(e) => self.if_stmt(e, &dest),
            ExprKind::Block(b) if !self.pure(e) => {
                self.line("{");
                self.indent += 1;
                self.block_body(b, dest);
                self.indent -= 1;
                self.line("}");
            }
            ExprKind::Return(_)
            | ExprKind::Break { .. }
            | ExprKind::Continue { .. }
            | ExprKind::While { .. }
            | ExprKind::Loop { .. }
            | ExprKind::For { .. }
            | ExprKind::Assign(..)
            | ExprKind::OpAssign(..) => self.stmt_expr(e),
            _ => {
                let v = self.value(e);
                match dest {
                    Dest::Assign(p) => self.line(&format!("{p} = {v};")),
                    Dest::Return if matches!(self.ty(&e.ty), Ty::Unit) => {
                        self.line(&format!("{v};"));
                        self.line("return;");
                    }
                    Dest::Return => self.line(&format!("return {v};")),
                    Dest::Discard => self.line(&format!("{v};")),
                }
            }
        }
    }

    fn if_stmt(&mut self, e: &Expr, dest: &Dest) {
        let mut cur = e;
        let mut prefix = "";
        while let ExprKind::If(c, then, els) = &cur.kind {
            let cv = self.operand_value(c);
            self.line(&format!("{prefix}if ({cv}) {{"));
            self.indent += 1;
            self.block_body(then, dest.clone());
            self.indent -= 1;
            match els.as_deref() {
                None => {
                    self.line("}");
                    return;
                }
                Some(x) if matches!(x.kind, ExprKind::If(..)) => {
                    cur = x;
                    prefix = "} else ";
                }
                Some(x) => {
                    self.line("} else {");
                    self.indent += 1;
                    match &x.kind {
                        ExprKind::Block(b) => self.block_body(b, dest.clone()),
                        _ => self.into(x, dest.clone()),
                    }
                    self.indent -= 1;
                    self.line("}");
                    return;
                }
            }
        }
    }

    /// A loop's body (with the `continue` label when one is needed), then `extra` lines.
    fn loop_body(&mut self, id: usize, body: &Block, extra: Option<&str>) {
        let info = self.f.loops[id].clone();
        self.indent += 1;
        if info.cont_label {
            self.line("{");
            self.indent += 1;
            self.block_body(body, Dest::Discard);
            self.indent -= 1;
            self.line("}");
            self.line(&format!("cj_cont_{id}: ;"));
        } else {
            self.block_body(body, Dest::Discard);
        }
        if let Some(x) = extra {
            self.line(x);
        }
        self.indent -= 1;
        self.line("}");
    }

    fn loop_end(&mut self, id: usize) {
        if self.f.loops[id].break_label {
            self.line(&format!("cj_brk_{id}: ;"));
        }
    }

    fn for_loop(&mut self, id: usize, var: usize, kind: ForKind, parts: &[Expr], body: &Block) {
        let t = self.cty(&self.f.vars[var].ty);
        let i = self.var(var).to_string();
        match kind {
            ForKind::Range { inclusive, rev } => {
                let a = self.operand_value(&parts[0]);
                let b = self.operand_value(&parts[1]);
                match (inclusive, rev) {
                    (false, false) => {
                        let end = format!("cj_end_{id}");
                        let step = match parts.get(2) {
                            Some(s) => {
                                let s = self.operand_value(s);
                                format!("{i} = cj::step_next({i}, {s}, {end})")
                            }
                            None => format!("++{i}"),
                        };
                        self.line(&format!(
                            "for ({t} {i} = {a}, {end} = {b}; {i} < {end}; {step}) {{"
                        ));
                        self.loop_body(id, body, None);
                    }
                    (true, false) => {
                        let end = format!("cj_end_{id}");
                        self.line(&format!(
                            "for ({t} {i} = {a}, {end} = {b}; {i} <= {end}; ++{i}) {{"
                        ));
                        let x = format!("if ({i} == {end}) break;");
                        self.loop_body(id, body, Some(&x));
                    }
                    (false, true) => {
                        let (k, start) = (format!("cj_k_{id}"), format!("cj_start_{id}"));
                        self.line(&format!(
                            "for ({t} {k} = {b}, {start} = {a}; {k} > {start}; ) {{"
                        ));
                        self.indent += 1;
                        self.line(&format!("--{k};"));
                        self.line(&format!("const {t} {i} = {k};"));
                        self.indent -= 1;
                        self.loop_body(id, body, None);
                    }
                    (true, true) => {
                        let start = format!("cj_start_{id}");
                        self.line(&format!(
                            "for ({t} {i} = {b}, {start} = {a}; {i} >= {start}; --{i}) {{"
                        ));
                        let x = format!("if ({i} == {start}) break;");
                        self.loop_body(id, body, Some(&x));
                    }
                }
            }
            ForKind::Stride { block } => {
                let n = self.operand_value(&parts[0]);
                let nn = format!("cj_n_{id}");
                let (start, step) = if block {
                    (
                        "(unsigned long long)threadIdx.x",
                        "(unsigned long long)blockDim.x",
                    )
                } else {
                    (
                        "(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x",
                        "(unsigned long long)blockDim.x * gridDim.x",
                    )
                };
                self.line("{");
                self.indent += 1;
                self.line(&format!("const {t} {nn} = {n};"));
                self.line(&format!(
                    "for ({t} {i} = cj::stride_first({nn}, {start}); {i} < {nn}; {i} = cj::stride_next({i}, {step}, {nn})) {{"
                ));
                self.loop_body(id, body, None);
                self.indent -= 1;
                self.line("}");
            }
        }
        self.loop_end(id);
    }

    // ---- expressions ----------------------------------------------------------------------

    /// Whether `e` is a C++ expression (no statements needed).
    fn pure(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::ConstParam(_)
            | ExprKind::CppConst(_)
            | ExprKind::Len(_)
            | ExprKind::GenericConst(_) => true,
            ExprKind::Binary(_, a, b, _) => self.pure(a) && self.pure(b),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a, _)
            | ExprKind::Field(a, _)
            | ExprKind::Convert(a) => self.pure(a),
            ExprKind::Index { index, .. } => self.pure(index),
            ExprKind::Builtin(_, xs) | ExprKind::Method(_, xs) | ExprKind::ArrayLit(xs) => {
                xs.iter().all(|x| self.pure(x))
            }
            ExprKind::Call { args, .. } => args.iter().all(|x| self.pure(x)),
            ExprKind::Atomic { index, args, .. } | ExprKind::Chunk4 { index, args, .. } => {
                self.pure(index) && args.iter().all(|x| self.pure(x))
            }
            ExprKind::ArrayRepeat(x) => self.pure(x),
            ExprKind::If(c, t, Some(e)) => self.pure(c) && self.pure_block(t) && self.pure(e),
            ExprKind::Block(b) => self.pure_block(b),
            _ => false,
        }
    }

    fn pure_block(&self, b: &Block) -> bool {
        b.stmts.is_empty() && b.tail.as_ref().is_some_and(|t| self.pure(t))
    }

    /// The C++ of an operand: pure, or an error at its span.
    fn operand_value(&mut self, e: &Expr) -> String {
        if !self.pure(e) {
            self.error(
                e.span,
                "this expression needs statements to compute (a block with statements, a loop, an assignment or an `if` without `else`); \
                 in a kernel it can only be a statement, a `let` value, an assigned value or a returned value",
            );
            return "0".into();
        }
        self.value(e)
    }

    /// An operand of a C++ operator of precedence `min`, parenthesised when it binds less
    /// tightly (C++'s precedences, not Rust's: `a & b == c` differs between the two).
    fn sub(&mut self, e: &Expr, min: u8) -> String {
        if !self.pure(e) {
            return self.operand_value(e);
        }
        let (v, p) = self.value_p(e);
        if p < min { format!("({v})") } else { v }
    }

    fn value(&mut self, e: &Expr) -> String {
        self.value_p(e).0
    }

    /// The C++ of a pure expression and its precedence (16: atomic, 15: prefix operators
    /// and casts, 13 `* / %`, 12 `+ -`, 11 shifts, 10 relational, 9 equality, 8 `&`, 7 `^`,
    /// 6 `|`, 5 `&&`, 4 `||`, 3 `?:`).
    fn value_p(&mut self, e: &Expr) -> (String, u8) {
        match &e.kind {
            ExprKind::Binary(op, l, r, site) => self.binary(*op, l, r, *site),
            ExprKind::Unary(op, x) => self.unary(*op, x, &e.ty),
            ExprKind::Cast(x, to) => self.cast(x, *to),
            ExprKind::If(c, t, Some(els)) => {
                let c = self.sub(c, 4);
                let a = match &t.tail {
                    Some(x) => self.sub(x, 4),
                    None => "0".into(),
                };
                let b = self.sub(els, 3);
                (format!("{c} ? {a} : {b}"), 3)
            }
            ExprKind::Block(b) => match &b.tail {
                Some(t) => self.value_p(t),
                None => ("(void)0".into(), 16),
            },
            ExprKind::Lit(_) | ExprKind::CppConst(_) => {
                let v = self.atom(e);
                let p = if v.starts_with('-') { 15 } else { 16 };
                (v, p)
            }
            _ => (self.atom(e), 16),
        }
    }

    fn atom(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(v) => self.lit(v, &e.ty, false),
            ExprKind::Var(id) => self.var(*id).to_string(),
            ExprKind::ConstParam(n) => n.clone(),
            ExprKind::CppConst(t) => t.clone(),
            ExprKind::Index { base, index, site } => {
                let i = self.operand_value(index);
                let name = self.var(*base).to_string();
                match site {
                    Some(s) => {
                        let len = self.len(*base);
                        format!("{name}[cj::ix({i}, {len}, CJ_SITE({s}))]")
                    }
                    None => format!("{name}[{i}]"),
                }
            }
            ExprKind::Len(id) => self.len(*id),
            ExprKind::Field(x, c) => match &x.kind {
                ExprKind::Builtin(b, args) if args.is_empty() => {
                    format!("{}.{c}", builtin_var(*b))
                }
                _ => {
                    let v = self.sub(x, 16);
                    format!("{v}.{c}")
                }
            },
            ExprKind::Builtin(b, args) => {
                let a: Vec<String> = args.iter().map(|x| self.operand_value(x)).collect();
                builtin(*b, &a)
            }
            ExprKind::Call {
                callee,
                targs,
                args,
            } => {
                let mut a = Vec::new();
                for x in args {
                    match (&x.kind, self.ty(&x.ty)) {
                        (ExprKind::Var(id), Ty::Slice { .. }) => {
                            let n = self.var(*id).to_string();
                            a.push(n.clone());
                            a.push(format!("cj_len_{n}"));
                        }
                        _ => a.push(self.operand_value(x)),
                    }
                }
                let t = if targs.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", targs.join(", "))
                };
                format!("{callee}{t}({})", a.join(", "))
            }
            ExprKind::Method(name, args) => {
                let a: Vec<String> = args.iter().map(|x| self.operand_value(x)).collect();
                format!("cj::{name}({})", a.join(", "))
            }
            ExprKind::Convert(x) => {
                let t = self.cty(&e.ty);
                let v = self.operand_value(x);
                format!("cj::cvt<{t}>({v})")
            }
            ExprKind::GenericConst(v) => {
                let t = self.cty(&e.ty);
                format!("cj::cvt<{t}>({v})")
            }
            ExprKind::Atomic {
                op,
                base,
                index,
                site,
                args,
            } => {
                let i = self.operand_value(index);
                let name = self.var(*base).to_string();
                let len = self.len(*base);
                let mut a = vec![format!("&{name}[cj::ix({i}, {len}, CJ_SITE({site}))]")];
                for x in args {
                    a.push(self.operand_value(x));
                }
                format!("cj::{op}({})", a.join(", "))
            }
            ExprKind::Chunk4 {
                op,
                base,
                index,
                site,
                args,
            } => {
                let i = self.operand_value(index);
                let name = self.var(*base).to_string();
                let len = self.len(*base);
                let mut a = vec![name, len, i, format!("CJ_SITE({site})")];
                for x in args {
                    a.push(self.operand_value(x));
                }
                format!("cj::{op}({})", a.join(", "))
            }
            ExprKind::ArrayLit(xs) => {
                let t = self.cty(&e.ty);
                let a: Vec<String> = xs.iter().map(|x| self.operand_value(x)).collect();
                format!("{t}{{{{{}}}}}", a.join(", "))
            }
            ExprKind::ArrayRepeat(x) => {
                let t = self.cty(&e.ty);
                let v = self.operand_value(x);
                format!("{t}::fill({v})")
            }
            _ => {
                self.error(
                    e.span,
                    "this expression cannot be used as a value in a kernel",
                );
                "0".into()
            }
        }
    }

    /// The C++ length of a slice, shared array or local array variable.
    fn len(&self, id: usize) -> String {
        let name = self.var(id);
        match self.ty(&self.f.vars[id].ty) {
            Ty::Shared(_, l) | Ty::Array(_, l) => l.cpp(),
            _ => format!("cj_len_{name}"),
        }
    }

    fn lit(&self, v: &LitVal, ty: &Ty, neg: bool) -> String {
        let t = self.ty(ty);
        match v {
            LitVal::Bool(b) => b.to_string(),
            LitVal::Int(n) => {
                let n = *n as i128;
                let n = if neg { -n } else { n };
                match t {
                    Ty::Prim(p) if p.is_int() => int_lit(p, n),
                    t => format!("(({}){n})", cpp_type(&t)),
                }
            }
            LitVal::Float(d) => {
                let d = float_text(d);
                let d = if neg { format!("-{d}") } else { d };
                match t {
                    Ty::Prim(Prim::F32) => format!("{d}f"),
                    Ty::Prim(Prim::F64) => d,
                    Ty::Prim(p @ (Prim::F16 | Prim::Bf16)) => format!("{}({d}f)", p.cpp()),
                    t => format!("(({}){d})", cpp_type(&t)),
                }
            }
        }
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, site: usize) -> (String, u8) {
        let lt = self.ty(&l.ty);
        let p = lt.prim();
        let o = op.cpp();
        let prec = match op {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
            BinOp::Add | BinOp::Sub => 12,
            BinOp::Shl | BinOp::Shr => 11,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 10,
            BinOp::Eq | BinOp::Ne => 9,
            BinOp::BitAnd => 8,
            BinOp::BitXor => 7,
            BinOp::BitOr => 6,
            BinOp::And => 5,
            BinOp::Or => 4,
        };
        let infix = |me: &mut Self| {
            let a = me.sub(l, prec);
            let b = me.sub(r, prec + 1);
            (format!("{a} {o} {b}"), prec)
        };
        let call = |me: &mut Self, with_site: bool| {
            let a = me.operand_value(l);
            let b = me.operand_value(r);
            let s = if with_site {
                format!(", CJ_SITE({site})")
            } else {
                String::new()
            };
            (format!("cj::{}({a}, {b}{s})", op.helper()), 16)
        };
        match op {
            BinOp::And | BinOp::Or => infix(self),
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => infix(self),
            BinOp::Add | BinOp::Sub | BinOp::Mul => match p {
                Some(p)
                    if p.native_float()
                        || p.plain_wrapping()
                        || matches!(p, Prim::F16 | Prim::Bf16) =>
                {
                    infix(self)
                }
                _ => call(self, false),
            },
            BinOp::Div | BinOp::Rem => match p {
                Some(p) if p.is_float() && op == BinOp::Div => infix(self),
                // A nonzero literal divisor: no fault possible, C's `/ %` are Rust's.
                Some(p) if p.is_int() && p.bits() >= 32 && nonzero_lit(r) => infix(self),
                _ => call(self, true),
            },
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => match p {
                Some(Prim::Bool) => {
                    let (v, _) = infix(self);
                    (format!("(bool)({v})"), 15)
                }
                Some(p) if p.bits() < 32 => {
                    let (v, _) = infix(self);
                    (format!("({})({v})", p.cpp()), 15)
                }
                Some(_) => infix(self),
                None => call(self, false),
            },
            BinOp::Shl | BinOp::Shr => match p {
                Some(p) if p.plain_wrapping() && small_shift(r, p.bits()) => infix(self),
                Some(p)
                    if op == BinOp::Shr
                        && p.is_int()
                        && p.bits() >= 32
                        && small_shift(r, p.bits()) =>
                {
                    infix(self)
                }
                _ => call(self, true),
            },
        }
    }

    fn unary(&mut self, op: UnOp, x: &Expr, ty: &Ty) -> (String, u8) {
        let t = self.ty(ty);
        match op {
            UnOp::Neg => {
                if let ExprKind::Lit(v) = &x.kind {
                    return (self.lit(v, &x.ty, true), 15);
                }
                match t.prim() {
                    Some(p) if p.is_float() => {
                        let v = self.sub(x, 15);
                        (format!("-{v}"), 15)
                    }
                    _ => {
                        let v = self.operand_value(x);
                        (format!("cj::neg({v})"), 16)
                    }
                }
            }
            UnOp::Not => match t.prim() {
                Some(Prim::Bool) => {
                    let v = self.sub(x, 15);
                    (format!("!{v}"), 15)
                }
                Some(p) if p.bits() >= 32 && p.is_int() => {
                    let v = self.sub(x, 15);
                    (format!("~{v}"), 15)
                }
                _ => {
                    let v = self.operand_value(x);
                    (format!("cj::bnot({v})"), 16)
                }
            },
        }
    }

    fn cast(&mut self, x: &Expr, to: Prim) -> (String, u8) {
        let from = self.ty(&x.ty);
        match from.prim() {
            Some(f) if f == to => self.value_p(x),
            Some(f) if f.native_float() && to.is_int() => {
                let v = self.operand_value(x);
                (format!("cj::f2i<{}>({v})", to.cpp()), 16)
            }
            Some(f) if f.is_float() && to.is_int() => {
                let v = self.operand_value(x);
                (format!("cj::f2i<{}>((float){v})", to.cpp()), 16)
            }
            Some(_) => {
                let v = self.sub(x, 15);
                (format!("({}){v}", to.cpp()), 15)
            }
            None => {
                let v = self.operand_value(x);
                (format!("cj::as<{}>({v})", to.cpp()), 16)
            }
        }
    }
}

/// A nonzero integer literal (a divisor that can neither be zero nor -1).
fn nonzero_lit(r: &Expr) -> bool {
    matches!(&r.kind, ExprKind::Lit(LitVal::Int(n)) if *n != 0)
}

/// A shift whose amount is a literal below the width (C++'s own shift is then Rust's).
fn small_shift(r: &Expr, bits: u32) -> bool {
    matches!(&r.kind, ExprKind::Lit(LitVal::Int(n)) if *n < bits as u128)
}

fn builtin_var(b: Builtin) -> &'static str {
    match b {
        Builtin::ThreadIdx => "threadIdx",
        Builtin::BlockIdx => "blockIdx",
        Builtin::BlockDim => "blockDim",
        Builtin::GridDim => "gridDim",
        _ => "",
    }
}

fn builtin(b: Builtin, a: &[String]) -> String {
    use Builtin as B;
    let arg = |i: usize| a.get(i).cloned().unwrap_or_default();
    match b {
        B::ThreadIdx => "threadIdx".into(),
        B::BlockIdx => "blockIdx".into(),
        B::BlockDim => "cj::u3(blockDim)".into(),
        B::GridDim => "cj::u3(gridDim)".into(),
        B::GlobalIndex => "cj::global_index()".into(),
        B::GlobalSize => "cj::global_size()".into(),
        B::LaneId => "cj::lane_id()".into(),
        B::ActiveMask => "__activemask()".into(),
        B::Clock64 => "(unsigned long long)clock64()".into(),
        B::SyncThreads => "__syncthreads()".into(),
        B::SyncThreadsCount => format!("__syncthreads_count({})", arg(0)),
        B::SyncThreadsAnd => format!("(__syncthreads_and({}) != 0)", arg(0)),
        B::SyncThreadsOr => format!("(__syncthreads_or({}) != 0)", arg(0)),
        B::SyncWarp => format!("__syncwarp({})", arg(0)),
        B::GridSync => format!("cj::grid_sync(CJ_SITE({}))", arg(0)),
        B::ThreadFence => "__threadfence()".into(),
        B::ThreadFenceBlock => "__threadfence_block()".into(),
        B::ThreadFenceSystem => "__threadfence_system()".into(),
        B::ShflSync => format!("cj::shfl_sync({}, {}, {})", arg(0), arg(1), arg(2)),
        B::ShflUpSync => format!("cj::shfl_up_sync({}, {}, {})", arg(0), arg(1), arg(2)),
        B::ShflDownSync => format!("cj::shfl_down_sync({}, {}, {})", arg(0), arg(1), arg(2)),
        B::ShflXorSync => format!("cj::shfl_xor_sync({}, {}, {})", arg(0), arg(1), arg(2)),
        B::BallotSync => format!("__ballot_sync({}, {})", arg(0), arg(1)),
        B::AllSync => format!("(__all_sync({}, {}) != 0)", arg(0), arg(1)),
        B::AnySync => format!("(__any_sync({}, {}) != 0)", arg(0), arg(1)),
    }
}
