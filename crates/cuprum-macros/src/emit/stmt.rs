//! Statements: `let`, shared memory declarations, assignments, blocks, `if` chains and
//! loops, with the statements that send a value to a variable or a `return`.

use super::expr::{nonzero_lit, small_shift};
use super::*;

impl Emitter<'_> {
    /// A block's statements, its tail going to `dest`.
    pub(super) fn block_body(&mut self, b: &Block, dest: Dest) {
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
            Stmt::Closure {
                var,
                params,
                body,
                ret,
                by_value,
            } => self.closure(*var, params, body, ret, *by_value),
            Stmt::Expr(e) => self.stmt_expr(e),
        }
    }

    /// A closure as a C++ lambda (see `lower/closures.rs`); one never called (its
    /// parameter types unknown) is left out.
    fn closure(&mut self, var: usize, params: &[usize], body: &Expr, ret: &Ty, by_value: bool) {
        let mut ps = Vec::new();
        for p in params {
            let t = self.ty(&self.f.vars[*p].ty);
            if matches!(t, Ty::Unit) {
                return;
            }
            ps.push(format!("{} {}", cpp_type(&t), self.var(*p)));
        }
        let name = self.var(var).to_string();
        let r = self.cty(ret);
        let cap = if by_value { "[=]" } else { "[&]" };
        let m = if by_value { " mutable" } else { "" };
        self.line(&format!(
            "auto {name} = {cap}({}){m} -> {r} {{",
            ps.join(", ")
        ));
        self.indent += 1;
        match &body.kind {
            ExprKind::Block(b) => self.block_body(b, Dest::Return),
            _ => self.into(body, Dest::Return),
        }
        self.indent -= 1;
        self.line("};");
    }

    /// An expression in statement position.
    fn stmt_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::If(..) => self.if_stmt(e, &Dest::Discard),
            ExprKind::Match { scrut, tmp, arms } => {
                self.match_stmt(scrut, *tmp, arms, &Dest::Discard)
            }
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
            ExprKind::ForElems {
                id,
                base,
                var,
                index,
                counter,
                mutable,
                body,
            } => {
                let k = self.var(*counter).to_string();
                let len = self.len(*base);
                let name = self.var(*base).to_string();
                self.line(&format!(
                    "for (unsigned long long {k} = 0; {k} < {len}; ++{k}) {{"
                ));
                self.indent += 1;
                let t = self.cty(&self.f.vars[*var].ty);
                let x = self.var(*var).to_string();
                if *mutable {
                    self.line(&format!("{t}& {x} = {name}[{k}];"));
                } else {
                    self.line(&format!("const {t} {x} = {name}[{k}];"));
                }
                if let Some(i) = index {
                    let i = self.var(*i).to_string();
                    self.line(&format!("const unsigned long long {i} = {k};"));
                }
                self.indent -= 1;
                self.loop_body(*id, body, None);
                self.loop_end(*id);
            }
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
                let p = self.place(place);
                if self.pure(v) {
                    let x = self.value(v);
                    if matches!(
                        place.kind,
                        ExprKind::Member(..) | ExprKind::MemberIndex { .. }
                    ) {
                        // `cj::set`: a whole array field takes a `cj::Arr` element by element.
                        self.line(&format!("cj::set({p}, {x});"));
                    } else {
                        self.line(&format!("{p} = {x};"));
                    }
                } else {
                    let field = matches!(
                        place.kind,
                        ExprKind::Member(..) | ExprKind::MemberIndex { .. }
                    );
                    self.into(v, if field { Dest::Set(p) } else { Dest::Assign(p) });
                }
            }
            ExprKind::OpAssign(op, place, v, site) => {
                let x = self.operand_value(v);
                let p = self.place(place);
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
    pub(super) fn into(&mut self, e: &Expr, dest: Dest) {
        match &e.kind {
            ExprKind::If(..) if !self.pure(e) => self.if_stmt(e, &dest),
            ExprKind::Match { scrut, tmp, arms } if !self.pure(e) => {
                self.match_stmt(scrut, *tmp, arms, &dest)
            }
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
            | ExprKind::ForElems { .. }
            | ExprKind::Assign(..)
            | ExprKind::OpAssign(..) => self.stmt_expr(e),
            _ => {
                let v = self.value(e);
                match dest {
                    Dest::Assign(p) => self.line(&format!("{p} = {v};")),
                    Dest::Set(p) => self.line(&format!("cj::set({p}, {v});")),
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
}
