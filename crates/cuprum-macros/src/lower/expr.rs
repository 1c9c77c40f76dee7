//! Expressions: literals, paths, operators, casts, `if`, blocks, `while`/`loop`,
//! `break`/`continue`/`return`, the `.x`/`.y`/`.z` fields, array literals, and the errors
//! that name unsupported syntax.

use super::*;

impl Lower {
    pub fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
        let mut x = self.expr_inner(e)?;
        x.span = e.span();
        Ok(x)
    }

    fn expr_inner(&mut self, e: &syn::Expr) -> Result<Expr> {
        use syn::Expr as E;
        match e {
            E::Lit(l) => self.lit(&l.lit),
            E::Path(p) => self.path_expr(p),
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Binary(b) => self.binary(b),
            E::Unary(u) => self.unary(u),
            E::Assign(a) => {
                let lhs = self.place(&a.left)?;
                let rhs = self.expr(&a.right)?;
                self.infer.unify(&lhs.ty, &rhs.ty);
                Ok(self.expr_of(ExprKind::Assign(Box::new(lhs), Box::new(rhs)), Ty::Unit))
            }
            E::Cast(c) => self.cast(c),
            E::If(i) => self.if_expr(i),
            E::Block(b) => {
                if let Some(l) = &b.label {
                    return Err(err(l, "labelled blocks are not supported in kernels"));
                }
                let blk = self.block(&b.block)?;
                let ty = blk.ty.clone();
                Ok(self.expr_of(ExprKind::Block(blk), ty))
            }
            E::Unsafe(u) => {
                self.unsafe_depth += 1;
                let blk = self.block(&u.block);
                self.unsafe_depth -= 1;
                let blk = blk?;
                let ty = blk.ty.clone();
                Ok(self.expr_of(ExprKind::Block(blk), ty))
            }
            E::While(w) => {
                if let E::Let(l) = &*w.cond {
                    return self.while_let(w, l);
                }
                let cond = self.expr(&w.cond)?;
                self.infer.unify(&cond.ty, &Ty::Prim(Prim::Bool));
                let id = self.push_loop(w.label.as_ref());
                let body = self.block(&w.body);
                self.loop_stack.pop();
                Ok(self.expr_of(
                    ExprKind::While {
                        id,
                        cond: Box::new(cond),
                        body: body?,
                    },
                    Ty::Unit,
                ))
            }
            E::Loop(l) => {
                let id = self.push_loop(l.label.as_ref());
                let body = self.block(&l.body);
                self.loop_stack.pop();
                Ok(self.expr_of(ExprKind::Loop { id, body: body? }, Ty::Unit))
            }
            E::ForLoop(f) => self.for_loop(f),
            E::Break(b) => {
                if let Some(v) = &b.expr {
                    return Err(err(v, "`break` with a value is not supported in kernels"));
                }
                let (id, goto) = self.loop_target(b, b.label.as_ref())?;
                if goto {
                    self.loops[id].break_label = true;
                }
                Ok(self.expr_of(ExprKind::Break { id, goto }, Ty::Unit))
            }
            E::Continue(c) => {
                let (id, goto) = self.loop_target(c, c.label.as_ref())?;
                let goto = goto || self.loops[id].cont_label;
                if goto {
                    self.loops[id].cont_label = true;
                }
                Ok(self.expr_of(ExprKind::Continue { id, goto }, Ty::Unit))
            }
            E::Return(r) => {
                let v = match &r.expr {
                    Some(v) if self.kernel && self.closure_depth == 0 => {
                        return Err(err(
                            v,
                            "a kernel cannot return a value; write results into a `&mut [T]` parameter",
                        ));
                    }
                    Some(v) => {
                        let x = self.expr(v)?;
                        let ret = self.ret.clone();
                        self.infer.unify(&x.ty, &ret);
                        Some(Box::new(x))
                    }
                    None => None,
                };
                let ty = self.infer.fresh(VarKind::Any);
                Ok(self.expr_of(ExprKind::Return(v), ty))
            }
            E::Index(i) => self.index(i),
            E::Field(f) => {
                let base = self.expr(&f.base)?;
                let member = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(u) => return self.tuple_field(base, u),
                };
                match (self.infer.shallow(&base.ty), member.as_str()) {
                    (Ty::UInt3, "x" | "y" | "z") => {
                        let c = member.chars().next().unwrap_or('x');
                        Ok(self.expr_of(ExprKind::Field(Box::new(base), c), Ty::Prim(Prim::U32)))
                    }
                    (t @ Ty::User(_), _) => self.member(base, t, member, &f.member),
                    (t @ Ty::Var(_), _)
                        if matches!(self.infer.var_kind(&t), Some(VarKind::Opaque(_))) =>
                    {
                        self.member(base, t, member, &f.member)
                    }
                    _ => Err(err(
                        &f.member,
                        format!(
                            "field `.{member}` is not supported (only `.x`, `.y`, `.z` of thread_idx(), block_idx(), block_dim(), grid_dim())"
                        ),
                    )),
                }
            }
            E::Call(c) => self.call(c),
            E::MethodCall(m) => self.method_call(m),
            E::Array(a) => {
                let elem = self.infer.fresh(VarKind::Any);
                let mut xs = Vec::new();
                for el in &a.elems {
                    let x = self.expr(el)?;
                    self.infer.unify(&x.ty, &elem);
                    xs.push(x);
                }
                if xs.is_empty() {
                    return Err(err(a, "empty arrays are not supported"));
                }
                let n = xs.len() as u64;
                Ok(self.expr_of(
                    ExprKind::ArrayLit(xs),
                    Ty::Array(Box::new(elem), Len::Lit(n)),
                ))
            }
            E::Repeat(r) => {
                let v = self.expr(&r.expr)?;
                let len = self.len(&r.len)?;
                let ty = Ty::Array(Box::new(v.ty.clone()), len);
                Ok(self.expr_of(ExprKind::ArrayRepeat(Box::new(v)), ty))
            }
            E::Macro(m) => self.assert_macro(&m.mac),
            E::Match(m) => self.match_expr(m),
            E::Closure(c) => Err(err(
                c,
                "a closure must be bound by `let f = |x| …;` and called (`f(x)`) in kernels; it cannot be passed or stored",
            )),
            E::Reference(r) => Err(err(
                r,
                "references (`&x`) are not supported in kernels; pass slices by name",
            )),
            E::RawAddr(r) => Err(err(r, "raw pointers are not supported in kernels")),
            E::Tuple(t) => self.tuple_lit(t),
            E::Struct(s) => self.struct_lit(s),
            E::Range(r) => Err(err(
                r,
                "ranges are only supported as the iterator of a `for` loop",
            )),
            E::Try(t) => Err(err(t, "the `?` operator is not supported in kernels")),
            E::Let(l) => Err(err(
                l,
                "`if let` / `let` conditions are not supported in kernels",
            )),
            E::Async(a) => Err(err(a, "`async` is not supported in kernels")),
            E::Await(a) => Err(err(a, "`.await` is not supported in kernels")),
            E::Const(c) => Err(err(c, "`const` blocks are not supported in kernels")),
            other => Err(err(
                other,
                format!("`{}` is not supported in kernels", short(other)),
            )),
        }
    }

    /// `base.member` of a device type (or of a field of one): its type is the field's,
    /// named in C++ through `decltype`.
    fn member(&mut self, base: Expr, t: Ty, member: String, at: &syn::Member) -> Result<Expr> {
        if crate::lower::is_reserved(&member) || member.starts_with("cj_") {
            return Err(err(
                at,
                format!("the field `{member}` cannot be used in kernels (a C++ keyword)"),
            ));
        }
        let ty = self.infer.opaque_field(t, member.clone());
        Ok(self.expr_of(ExprKind::Member(Box::new(base), member), ty))
    }

    /// `Particle { pos: p, mass: 1.0, ..base }`.
    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Result<Expr> {
        if s.qself.is_some() {
            return Err(err(
                s,
                "qualified paths are not supported in struct literals",
            ));
        }
        if let Some((t, v)) = self.variant_of(&s.path) {
            if let Some(r) = &s.rest {
                return Err(err(r, "`..base` is not supported in enum variant values"));
            }
            let mut fields = Vec::new();
            for fv in &s.fields {
                let name = match &fv.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(u) => format!("f{}", u.index),
                };
                let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                fields.push((name, self.expr(&fv.expr)?));
            }
            return Ok(self.variant_lit(t, v, fields));
        }
        let ty = self.user_type(&s.path)?;
        let cpp = crate::ty::cpp_type(&ty);
        let mut fields = Vec::new();
        for fv in &s.fields {
            let name = match &fv.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(u) => {
                    return Err(err(u, "tuple structs are not supported in kernels"));
                }
            };
            let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
            let x = self.expr(&fv.expr)?;
            let ft = self.infer.opaque_field(ty.clone(), name.clone());
            self.infer.unify(&x.ty, &ft);
            fields.push((name, x));
        }
        let base = match &s.rest {
            Some(r) => {
                let b = self.expr(r)?;
                self.infer.unify(&b.ty, &ty);
                Some(Box::new(b))
            }
            None => None,
        };
        Ok(self.expr_of(ExprKind::StructLit { cpp, fields, base }, ty))
    }

    pub(super) fn lit(&mut self, l: &syn::Lit) -> Result<Expr> {
        match l {
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let p = Prim::from_name(suffix).unwrap_or(Prim::F64);
                    return Ok(self.expr_of(
                        ExprKind::Lit(LitVal::Float(i.base10_digits().to_string())),
                        Ty::Prim(p),
                    ));
                }
                let v: u128 = i
                    .base10_parse()
                    .map_err(|_| err(i, "integer literal out of range"))?;
                let ty = if suffix.is_empty() {
                    self.infer.fresh(VarKind::Int)
                } else {
                    match Prim::from_name(suffix) {
                        Some(p) if p.is_int() => Ty::Prim(p),
                        _ => {
                            return Err(err(
                                i,
                                format!(
                                    "the literal suffix `{suffix}` is not supported in kernels"
                                ),
                            ));
                        }
                    }
                };
                Ok(self.expr_of(ExprKind::Lit(LitVal::Int(v)), ty))
            }
            syn::Lit::Float(f) => {
                let suffix = f.suffix();
                let ty = match suffix {
                    "" => self.infer.fresh(VarKind::Float),
                    "f32" => Ty::Prim(Prim::F32),
                    "f64" => Ty::Prim(Prim::F64),
                    s => {
                        return Err(err(
                            f,
                            format!("the literal suffix `{s}` is not supported in kernels"),
                        ));
                    }
                };
                Ok(self.expr_of(
                    ExprKind::Lit(LitVal::Float(f.base10_digits().to_string())),
                    ty,
                ))
            }
            syn::Lit::Bool(b) => {
                Ok(self.expr_of(ExprKind::Lit(LitVal::Bool(b.value)), Ty::Prim(Prim::Bool)))
            }
            syn::Lit::Byte(b) => Ok(self.expr_of(
                ExprKind::Lit(LitVal::Int(b.value() as u128)),
                Ty::Prim(Prim::U8),
            )),
            other => Err(err(
                other,
                "only number, byte (`b'a'`) and bool literals are supported in kernels (no strings or chars)",
            )),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Result<Expr> {
        if p.qself.is_some() {
            return Err(err(
                p,
                "qualified paths (`<T as Trait>::…`) are not supported in kernels",
            ));
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(err(p, "generic arguments are not supported here"));
        }
        if segs.len() == 1 {
            let name = &segs[0];
            if let Some(id) = self.lookup(name) {
                let ty = self.vars[id].ty.clone();
                if let Ty::Closure(..) = ty {
                    return Err(err(
                        p,
                        format!(
                            "the closure `{name}` can only be called (`{name}(…)`) in kernels; it cannot be passed, stored or returned"
                        ),
                    ));
                }
                return Ok(self.expr_of(ExprKind::Var(id), ty));
            }
            if let Some((_, p)) = self.const_params.iter().find(|c| &c.0 == name) {
                let p = *p;
                return Ok(self.expr_of(ExprKind::ConstParam(name.clone()), Ty::Prim(p)));
            }
        }
        if let Some((t, v)) = self.variant_of(&p.path) {
            return Ok(self.variant_lit(t, v, Vec::new()));
        }
        if let Some((text, ty)) = consts::constant(&segs) {
            return Ok(self.expr_of(ExprKind::CppConst(text), ty));
        }
        if self.device_const_path(&segs) {
            return Ok(self.device_const(&p.path));
        }
        let shown = segs.join("::");
        Err(err(
            p,
            format!(
                "`{shown}` is not a variable, parameter or const generic of this function, nor a module-level constant (an UPPER_CASE `const` item marked `#[cuprum::device]`)"
            ),
        ))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Result<Expr> {
        use syn::BinOp as B;
        let (op, assign) = match b.op {
            B::Add(_) => (BinOp::Add, false),
            B::Sub(_) => (BinOp::Sub, false),
            B::Mul(_) => (BinOp::Mul, false),
            B::Div(_) => (BinOp::Div, false),
            B::Rem(_) => (BinOp::Rem, false),
            B::And(_) => (BinOp::And, false),
            B::Or(_) => (BinOp::Or, false),
            B::BitXor(_) => (BinOp::BitXor, false),
            B::BitAnd(_) => (BinOp::BitAnd, false),
            B::BitOr(_) => (BinOp::BitOr, false),
            B::Shl(_) => (BinOp::Shl, false),
            B::Shr(_) => (BinOp::Shr, false),
            B::Eq(_) => (BinOp::Eq, false),
            B::Lt(_) => (BinOp::Lt, false),
            B::Le(_) => (BinOp::Le, false),
            B::Ne(_) => (BinOp::Ne, false),
            B::Ge(_) => (BinOp::Ge, false),
            B::Gt(_) => (BinOp::Gt, false),
            B::AddAssign(_) => (BinOp::Add, true),
            B::SubAssign(_) => (BinOp::Sub, true),
            B::MulAssign(_) => (BinOp::Mul, true),
            B::DivAssign(_) => (BinOp::Div, true),
            B::RemAssign(_) => (BinOp::Rem, true),
            B::BitXorAssign(_) => (BinOp::BitXor, true),
            B::BitAndAssign(_) => (BinOp::BitAnd, true),
            B::BitOrAssign(_) => (BinOp::BitOr, true),
            B::ShlAssign(_) => (BinOp::Shl, true),
            B::ShrAssign(_) => (BinOp::Shr, true),
            ref other => return Err(err(other, "this operator is not supported in kernels")),
        };
        let site = self.site(b.span());
        if assign {
            let lhs = self.place(&b.left)?;
            let rhs = self.expr(&b.right)?;
            if !op.is_shift() {
                self.infer.unify(&lhs.ty, &rhs.ty);
            }
            return Ok(self.expr_of(
                ExprKind::OpAssign(op, Box::new(lhs), Box::new(rhs), site),
                Ty::Unit,
            ));
        }
        let l = self.expr(&b.left)?;
        let r = self.expr(&b.right)?;
        let ty = match op {
            BinOp::And | BinOp::Or => {
                self.infer.unify(&l.ty, &Ty::Prim(Prim::Bool));
                self.infer.unify(&r.ty, &Ty::Prim(Prim::Bool));
                Ty::Prim(Prim::Bool)
            }
            op if op.is_cmp() => {
                self.infer.unify(&l.ty, &r.ty);
                Ty::Prim(Prim::Bool)
            }
            op if op.is_shift() => l.ty.clone(),
            _ => {
                self.infer.unify(&l.ty, &r.ty);
                l.ty.clone()
            }
        };
        Ok(self.expr_of(ExprKind::Binary(op, Box::new(l), Box::new(r), site), ty))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Result<Expr> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let x = self.expr(&u.expr)?;
                let ty = x.ty.clone();
                Ok(self.expr_of(ExprKind::Unary(UnOp::Neg, Box::new(x)), ty))
            }
            syn::UnOp::Not(_) => {
                let x = self.expr(&u.expr)?;
                let ty = x.ty.clone();
                Ok(self.expr_of(ExprKind::Unary(UnOp::Not, Box::new(x)), ty))
            }
            syn::UnOp::Deref(_) => {
                let inner = strip_parens(&u.expr);
                if let syn::Expr::Path(p) = inner
                    && let Some(ident) = p.path.get_ident()
                    && let Some(id) = self.lookup(&ident.to_string())
                    && self.refs.contains(&id)
                {
                    let ty = self.vars[id].ty.clone();
                    return Ok(self.expr_of(ExprKind::Var(id), ty));
                }
                if let syn::Expr::MethodCall(m) = inner {
                    let name = m.method.to_string();
                    if name == "get_unchecked" || name == "get_unchecked_mut" {
                        if self.unsafe_depth == 0 {
                            // rustc says so too; keep the translator's message in step.
                            return Err(err(
                                m,
                                format!(
                                    "`{name}` is unsafe: call it inside an `unsafe {{ }}` block"
                                ),
                            ));
                        }
                        let base = self.slice_var(&m.receiver)?;
                        if m.args.len() != 1 {
                            return Err(err(m, format!("`{name}` takes one index")));
                        }
                        let index = self.expr(&m.args[0])?;
                        let elem = self.elem_of(base, &m.receiver)?;
                        if let Ty::Array(..) = self.infer.shallow(&self.vars[base].ty) {
                            self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
                        }
                        return Ok(self.expr_of(
                            ExprKind::Index {
                                base,
                                index: Box::new(index),
                                site: None,
                            },
                            elem,
                        ));
                    }
                }
                Err(err(
                    u,
                    "`*` is only supported as `*x.get_unchecked(i)` / `*x.get_unchecked_mut(i)` and on the variable of `for x in s.iter()` (no pointers or references in kernels)",
                ))
            }
            ref other => Err(err(other, "this operator is not supported in kernels")),
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Result<Expr> {
        let target = match self.ty(&c.ty)? {
            Ty::Prim(p) => p,
            _ => {
                return Err(err(
                    &c.ty,
                    "`as` converts between number types and bool only",
                ));
            }
        };
        if matches!(target, Prim::F16 | Prim::Bf16) {
            return Err(err(
                &c.ty,
                "`as` cannot produce f16/bf16 (they are not Rust primitives); use `f16::from_f32(x)`",
            ));
        }
        let x = self.expr(&c.expr)?;
        // rustc's cast hint: a literal operand (not a variable) takes the target type.
        let lit = match &x.kind {
            ExprKind::Lit(_) => true,
            ExprKind::Unary(UnOp::Neg, inner) => matches!(inner.kind, ExprKind::Lit(_)),
            _ => false,
        };
        if lit {
            match self.infer.var_kind(&x.ty) {
                Some(VarKind::Int) if target.is_int() => self.infer.unify(&x.ty, &Ty::Prim(target)),
                Some(VarKind::Float) if target.is_float() => {
                    self.infer.unify(&x.ty, &Ty::Prim(target))
                }
                _ => {}
            }
        }
        Ok(self.expr_of(ExprKind::Cast(Box::new(x), target), Ty::Prim(target)))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Result<Expr> {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.if_let(i, l);
        }
        let cond = self.expr(&i.cond)?;
        self.infer.unify(&cond.ty, &Ty::Prim(Prim::Bool));
        let then = self.block(&i.then_branch)?;
        let (els, ty) = match &i.else_branch {
            Some((_, e)) => {
                let x = self.expr(e)?;
                self.infer.unify(&then.ty, &x.ty);
                (Some(Box::new(x)), then.ty.clone())
            }
            None => (None, Ty::Unit),
        };
        Ok(self.expr_of(ExprKind::If(Box::new(cond), then, els), ty))
    }
}

/// A short name for an unsupported expression kind.
fn short(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Yield(_) => "yield",
        syn::Expr::TryBlock(_) => "try blocks",
        syn::Expr::Infer(_) => "`_` expressions",
        syn::Expr::Verbatim(_) => "this expression",
        _ => "this expression",
    }
}
