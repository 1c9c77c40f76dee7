//! `match` and its patterns.
//!
//! The scrutinee is computed once into a temporary; the arms become an `if` / `else if`
//! chain over it in C++ (or a `?:` chain when every arm is a plain value), the last arm
//! being the final `else`: rustc checks exhaustiveness on the twin, so when every earlier
//! arm failed, the last one matches. Patterns are integer and bool patterns (literals,
//! named constants, ranges, `|`, `_`, bindings and `x @ p`) with guards, and the variants
//! of device enums (`enums`; there an identifier that starts with an upper-case letter is
//! refused: rustc may read it as a variant brought in by a `use` the macro cannot see).
//! The alternatives of `|` may bind a name from different places (`emit::matches`). The
//! scrutinee is any expression; one whose type the translator does not know (a field, a
//! call's result) is typed by its variant patterns before the arms are lowered
//! (`Lower::type_scrutinee`).

use super::*;

impl Lower {
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Result<Expr> {
        if let Some(a) = m.attrs.first() {
            return Err(err(a, "attributes on `match` are not supported in kernels"));
        }
        let scrut = self.expr(&m.expr)?;
        let pats: Vec<&syn::Pat> = m.arms.iter().map(arm_pat).collect();
        self.type_scrutinee(&pats, &scrut.ty, Some(&m.expr))?;
        let tmp = self.declare("cj_match", scrut.ty.clone());
        let ty = self.infer.fresh(VarKind::Any);
        let mut arms = Vec::new();
        for arm in &m.arms {
            self.scopes.push(Vec::new());
            let r = self.arm(arm, &scrut.ty, &ty);
            self.scopes.pop();
            arms.push(r?);
        }
        if arms.is_empty() {
            return Err(err(
                m,
                "an empty `match` is not supported in kernels (it matches nothing)",
            ));
        }
        Ok(self.expr_of(
            ExprKind::Match {
                scrut: Box::new(scrut),
                tmp,
                arms,
            },
            ty,
        ))
    }

    fn arm(&mut self, arm: &syn::Arm, scrut: &Ty, ty: &Ty) -> Result<Arm> {
        if let Some(a) = arm.attrs.first() {
            return Err(err(
                a,
                "attributes on `match` arms are not supported in kernels",
            ));
        }
        let pat = arm_pat(arm);
        let guard = match &arm.pat {
            syn::Pat::Guard(g) => Some(&*g.guard),
            _ => None,
        };
        let pat = self.pattern(pat, scrut)?;
        let guard = match guard {
            Some(g) => {
                if let syn::Expr::Let(l) = g {
                    return Err(err(l, "`if let` guards are not supported in kernels"));
                }
                let g = self.expr(g)?;
                self.infer.unify(&g.ty, &Ty::Prim(Prim::Bool));
                Some(g)
            }
            None => None,
        };
        let body = self.expr(&arm.body)?;
        self.infer.unify(&body.ty, ty);
        Ok(Arm { pat, guard, body })
    }

    /// One pattern against a value of type `scrut`.
    pub(super) fn pattern(&mut self, p: &syn::Pat, scrut: &Ty) -> Result<Pat> {
        self.type_scrutinee(&[p], scrut, None)?;
        if let Ty::User(tn) = self.infer.shallow(scrut)
            && let Some(pat) = self.user_pattern(p, scrut, &tn)?
        {
            return Ok(pat);
        }
        match p {
            syn::Pat::Wild(_) => Ok(Pat::Wild),
            syn::Pat::Paren(p) => self.pattern(&p.pat, scrut),
            // An UPPER_CASE name is a constant (as rustc reads it when one is in scope).
            syn::Pat::Ident(pi)
                if pi.subpat.is_none()
                    && pi.mutability.is_none()
                    && pi.by_ref.is_none()
                    && consts::const_name(&pi.ident.to_string()) =>
            {
                let path = syn::Path::from(pi.ident.clone());
                let x = self.expr(&syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path,
                }))?;
                self.infer.unify(&x.ty, scrut);
                Ok(Pat::Value(x))
            }
            syn::Pat::Ident(pi) => {
                if pi.by_ref.is_some() {
                    return Err(err(pi, "`ref` bindings are not supported in kernels"));
                }
                let name = self.check_ident(&pi.ident)?;
                let sub = match &pi.subpat {
                    Some((_, s)) => Some(Box::new(self.pattern(s, scrut)?)),
                    None => None,
                };
                // The alternatives of an or-pattern bind the same names: one variable.
                let here = self
                    .scopes
                    .last()
                    .and_then(|s| s.iter().find(|(n, _)| *n == name).map(|(_, id)| *id));
                let var = match here {
                    Some(id) => id,
                    None => self.declare(&name, scrut.clone()),
                };
                Ok(Pat::Bind { var, sub })
            }
            syn::Pat::Lit(l) => {
                let x = self.pattern_lit(&l.lit)?;
                self.infer.unify(&x.ty, scrut);
                Ok(Pat::Value(x))
            }
            syn::Pat::Path(p) => {
                let x = self.expr(&syn::Expr::Path(p.clone()))?;
                self.infer.unify(&x.ty, scrut);
                Ok(Pat::Value(x))
            }
            syn::Pat::Range(r) => {
                let mut bound = |e: &Option<Box<syn::Expr>>| -> Result<Option<Expr>> {
                    match e.as_deref() {
                        None => Ok(None),
                        Some(syn::Expr::Lit(l)) => {
                            let x = self.pattern_lit(&l.lit)?;
                            self.infer.unify(&x.ty, scrut);
                            Ok(Some(x))
                        }
                        Some(e) => {
                            let x = self.expr(e)?;
                            self.infer.unify(&x.ty, scrut);
                            Ok(Some(x))
                        }
                    }
                };
                let lo = bound(&r.start)?;
                let hi = bound(&r.end)?;
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Ok(Pat::Range { lo, hi, inclusive })
            }
            syn::Pat::Or(o) => {
                if let Some(a) = o.attrs.first() {
                    return Err(err(
                        a,
                        "attributes on patterns are not supported in kernels",
                    ));
                }
                let mut alts = Vec::new();
                for c in &o.cases {
                    alts.push(self.pattern(c, scrut)?);
                }
                Ok(Pat::Or(alts))
            }
            syn::Pat::Tuple(t) => Err(err(
                t,
                "tuple patterns are not supported in `match` in kernels (destructure with `let (a, b) = …;`)",
            )),
            syn::Pat::TupleStruct(t) => Err(err(
                t,
                "this pattern is not supported in kernels (`match` takes integer and bool patterns: literals, constants, ranges, `|`, `_`, bindings)",
            )),
            syn::Pat::Struct(s) => Err(err(
                s,
                "struct patterns are not supported in kernels (`match` takes integer and bool patterns)",
            )),
            syn::Pat::Reference(r) => Err(err(
                r,
                "reference patterns (`&x`) are not supported in kernels",
            )),
            syn::Pat::Slice(s) => Err(err(s, "slice patterns are not supported in kernels")),
            other => Err(err(
                other,
                "this pattern is not supported in kernels (`match` takes integer and bool patterns: literals, constants, ranges, `|`, `_`, bindings)",
            )),
        }
    }

    /// A literal of a pattern (syn folds a leading `-` into the literal).
    fn pattern_lit(&mut self, l: &syn::Lit) -> Result<Expr> {
        match l {
            syn::Lit::Int(i) if i.base10_digits().starts_with('-') => {
                let digits = &i.base10_digits()[1..];
                let v: u128 = digits
                    .parse()
                    .map_err(|_| err(i, "integer literal out of range"))?;
                let suffix = i.suffix();
                let ty = match Prim::from_name(suffix) {
                    Some(p) if p.is_int() => Ty::Prim(p),
                    _ => self.infer.fresh(VarKind::Int),
                };
                let lit = self.expr_of(ExprKind::Lit(LitVal::Int(v)), ty.clone());
                Ok(self.expr_of(ExprKind::Unary(UnOp::Neg, Box::new(lit)), ty))
            }
            syn::Lit::Float(f) if f.base10_digits().starts_with('-') => Err(err(
                f,
                "float patterns are not supported in kernels; compare with `if`",
            )),
            syn::Lit::Float(f) => Err(err(
                f,
                "float patterns are not supported in kernels; compare with `if`",
            )),
            l => self.lit(l),
        }
    }
}

/// An arm's pattern without its guard (syn keeps the guard in the pattern: `pat if guard`).
fn arm_pat(arm: &syn::Arm) -> &syn::Pat {
    match &arm.pat {
        syn::Pat::Guard(g) => &g.pat,
        p => p,
    }
}
