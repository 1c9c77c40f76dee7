//! Expressions: pure C++ values with their precedence, operators (C++'s own where they
//! mean Rust's, the prelude's `cj::` helpers where not), casts, literals and built-ins.

use super::*;

/// A C++ float literal from Rust's decimal digits.
fn float_text(digits: &str) -> String {
    if digits.contains(['.', 'e', 'E']) {
        digits.to_string()
    } else {
        format!("{digits}.0")
    }
}

impl Emitter<'_> {
    /// Whether `e` is a C++ expression (no statements needed).
    pub(super) fn pure(&self, e: &Expr) -> bool {
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
            | ExprKind::Member(a, _)
            | ExprKind::Convert(a) => self.pure(a),
            ExprKind::MemberIndex { field, index, .. } => self.pure(field) && self.pure(index),
            ExprKind::VariantLit { fields, .. } => fields.iter().all(|(_, x)| self.pure(x)),
            ExprKind::StructLit { fields, base, .. } => {
                fields.iter().all(|(_, x)| self.pure(x))
                    && base.as_ref().is_none_or(|b| self.pure(b))
            }
            ExprKind::Index { index, .. } => self.pure(index),
            ExprKind::Builtin(_, xs) | ExprKind::Method(_, xs) | ExprKind::ArrayLit(xs) => {
                xs.iter().all(|x| self.pure(x))
            }
            ExprKind::Call { args, .. } | ExprKind::ClosureCall { args, .. } => {
                args.iter().all(|x| self.pure(x))
            }
            ExprKind::Atomic { index, args, .. } | ExprKind::Chunk4 { index, args, .. } => {
                self.pure(index) && args.iter().all(|x| self.pure(x))
            }
            ExprKind::ArrayRepeat(x) | ExprKind::TupleField(x, _) => self.pure(x),
            ExprKind::Tuple(xs) => xs.iter().all(|x| self.pure(x)),
            ExprKind::If(c, t, Some(e)) => self.pure(c) && self.pure_block(t) && self.pure(e),
            ExprKind::Block(b) => self.pure_block(b),
            ExprKind::Match { scrut, arms, .. } => self.match_pure(scrut, arms),
            _ => false,
        }
    }

    fn pure_block(&self, b: &Block) -> bool {
        b.stmts.is_empty() && b.tail.as_ref().is_some_and(|t| self.pure(t))
    }

    /// The C++ of an operand: pure, or an error at its span.
    pub(super) fn operand_value(&mut self, e: &Expr) -> String {
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
    pub(super) fn sub(&mut self, e: &Expr, min: u8) -> String {
        if !self.pure(e) {
            return self.operand_value(e);
        }
        let (v, p) = self.value_p(e);
        if p < min { format!("({v})") } else { v }
    }

    pub(super) fn value(&mut self, e: &Expr) -> String {
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
            ExprKind::Match { scrut, arms, .. } => self.match_value(scrut, arms),
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
            ExprKind::Member(..) | ExprKind::MemberIndex { .. } => {
                format!("cj::cp({})", self.place(e))
            }
            ExprKind::VariantLit {
                cpp,
                variant,
                fields,
            } => {
                let mut body = format!("{cpp} cj_s{{}};");
                if fields.is_empty() {
                    body.push_str(&format!(" cj_s.tag = {cpp}::tag_{variant};"));
                } else {
                    body.push_str(&format!(" cj_s.{variant}.tag = {cpp}::tag_{variant};"));
                }
                for (n, x) in fields {
                    let v = self.operand_value(x);
                    body.push_str(&format!(" cj::set(cj_s.{variant}.{n}, {v});"));
                }
                format!("([&]() {{ {body} return cj_s; }}())")
            }
            ExprKind::StructLit { cpp, fields, base } => {
                // A lambda keeps Rust's order of evaluation (written order) and takes
                // fields in any order; `cj::set` copies a `cj::Arr` into an array member.
                let init = match base {
                    Some(b) => self.operand_value(b),
                    None => format!("{cpp}{{}}"),
                };
                let mut body = format!("{cpp} cj_s = {init};");
                for (n, x) in fields {
                    let v = self.operand_value(x);
                    body.push_str(&format!(" cj::set(cj_s.{n}, {v});"));
                }
                format!("([&]() {{ {body} return cj_s; }}())")
            }
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
                // A device type's method binds its receiver to a reference when it takes
                // `&mut self`: a receiver that is no place (`Vec3 { … }.scale(2.0)`) becomes
                // an lvalue living to the end of the statement, as Rust's temporary does.
                let method = callee.starts_with("cj_dev::cj_m_");
                for (k, x) in args.iter().enumerate() {
                    match (&x.kind, self.ty(&x.ty)) {
                        (kind, _)
                            if method
                                && k == 0
                                && !matches!(kind, ExprKind::Var(_) | ExprKind::Index { .. }) =>
                        {
                            let v = self.operand_value(x);
                            a.push(format!("cj::lv({v})"));
                        }
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
            ExprKind::ClosureCall { var, args } => {
                let a: Vec<String> = args.iter().map(|x| self.operand_value(x)).collect();
                format!("{}({})", self.var(*var), a.join(", "))
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
            ExprKind::Tuple(xs) => {
                let t = self.cty(&e.ty);
                let a: Vec<String> = xs.iter().map(|x| self.operand_value(x)).collect();
                format!("{t}{{{}}}", a.join(", "))
            }
            ExprKind::TupleField(x, i) => {
                let v = self.sub(x, 16);
                format!("{v}.f{i}")
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
    /// A field (`p.c`, `p.c[k]`, `p.a.b`) as the place it names: what an assignment writes
    /// and a read copies. A read wraps it in `cj::cp`, which copies a C++ array member
    /// (`float c[3]`, not copyable) into the `cj::Arr` a Rust `[f32; 3]` is, and is the
    /// identity for every other type.
    pub(super) fn place(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Member(x, m) => {
                let v = match &x.kind {
                    ExprKind::Member(..) | ExprKind::MemberIndex { .. } => self.place(x),
                    _ => self.sub(x, 16),
                };
                format!("{v}.{m}")
            }
            ExprKind::MemberIndex { field, index, site } => {
                let f = self.place(field);
                let i = self.operand_value(index);
                format!("{f}[cj::ix({i}, cj::extent_of({f}), CJ_SITE({site}))]")
            }
            _ => self.value(e),
        }
    }

    pub(super) fn len(&self, id: usize) -> String {
        let name = self.var(id);
        match self.ty(&self.f.vars[id].ty) {
            Ty::Shared(_, l) | Ty::Array(_, l) => l.cpp(),
            // A copy of a device type's array field (`let c = p.c;`): a `cj::Arr`.
            Ty::Opaque(_) => format!("cj::extent_of({name})"),
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
pub(super) fn nonzero_lit(r: &Expr) -> bool {
    matches!(&r.kind, ExprKind::Lit(LitVal::Int(n)) if *n != 0)
}

/// A shift whose amount is a literal below the width (C++'s own shift is then Rust's).
pub(super) fn small_shift(r: &Expr, bits: u32) -> bool {
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
