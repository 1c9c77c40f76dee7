//! Device enums in kernels (`#[derive(DeviceType)]` on `#[repr(u8)]` enums): variant values
//! (`Act::Relu`, `Shape::Circle { r }`, `Shape::Pair(a, b)`), variant patterns in `match`,
//! and `if let` / `while let` (a `match` with a `_` arm: the `else` branch, or `break`).
//!
//! The translator cannot see the enum: a path `Type::Variant` is a variant when `Type` is
//! a device type the function already names (a parameter's, a `let`'s or a slice's type, or
//! `Self` in an `impl` block); the C++ tests `s.tag == Type::tag_Variant` and reads
//! `s.Variant.field` (tuple fields `f0`, `f1` …), whose types come through `decltype`.

use super::*;

impl Lower {
    /// `(type, variant)` when `path` is `Type::Variant` of a device type named here.
    pub(super) fn variant_of(&self, path: &syn::Path) -> Option<(String, String)> {
        let n = path.segments.len();
        if n < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let ty = path.segments[n - 2].ident.to_string();
        let variant = path.segments[n - 1].ident.to_string();
        if ty == "Self" && n == 2 {
            let p = self.self_ty.as_ref()?;
            let name = p.segments.last()?.ident.to_string();
            return Some((name, variant));
        }
        self.types
            .iter()
            .any(|p| p.segments.last().is_some_and(|s| s.ident == ty))
            .then_some((ty, variant))
    }

    /// A variant's value with its fields (named, or `f0`, `f1` … of a tuple variant).
    pub(super) fn variant_lit(
        &mut self,
        ty: String,
        variant: String,
        fields: Vec<(String, Expr)>,
    ) -> Expr {
        let t = Ty::User(ty.clone());
        let mut out = Vec::new();
        for (f, x) in fields {
            let ft = self.infer.opaque_field(t.clone(), format!("{variant}.{f}"));
            self.infer.unify(&x.ty, &ft);
            out.push((f, x));
        }
        self.expr_of(
            ExprKind::VariantLit {
                cpp: ty,
                variant,
                fields: out,
            },
            t,
        )
    }

    /// A pattern against a device type's value: variants, bindings, `_`, `|`.
    pub(super) fn user_pattern(
        &mut self,
        p: &syn::Pat,
        scrut: &Ty,
        tn: &str,
    ) -> Result<Option<Pat>> {
        let variant = |me: &Self, path: &syn::Path| -> Result<String> {
            match me.variant_of(path) {
                Some((t, v)) if t == tn => Ok(v),
                _ => Err(err(
                    path,
                    format!("expected a variant of `{tn}` (`{tn}::Variant`)"),
                )),
            }
        };
        Ok(Some(match p {
            syn::Pat::Path(pp) => Pat::Variant {
                ty: tn.to_string(),
                variant: variant(self, &pp.path)?,
                fields: Vec::new(),
            },
            syn::Pat::TupleStruct(ts) => {
                let v = variant(self, &ts.path)?;
                let mut fields = Vec::new();
                for (k, e) in ts.elems.iter().enumerate() {
                    if let syn::Pat::Rest(_) = e {
                        break;
                    }
                    let name = format!("f{k}");
                    let ft = self
                        .infer
                        .opaque_field(scrut.clone(), format!("{v}.{name}"));
                    let sub = self.pattern(e, &ft)?;
                    fields.push((name, sub));
                }
                Pat::Variant {
                    ty: tn.to_string(),
                    variant: v,
                    fields,
                }
            }
            syn::Pat::Struct(s) => {
                let v = variant(self, &s.path)?;
                let mut fields = Vec::new();
                for fp in &s.fields {
                    let name = match &fp.member {
                        syn::Member::Named(n) => n.to_string(),
                        syn::Member::Unnamed(u) => format!("f{}", u.index),
                    };
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                    let ft = self
                        .infer
                        .opaque_field(scrut.clone(), format!("{v}.{name}"));
                    let sub = self.pattern(&fp.pat, &ft)?;
                    fields.push((name, sub));
                }
                Pat::Variant {
                    ty: tn.to_string(),
                    variant: v,
                    fields,
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `if let P = e { a } else { b }`: `match e { P => a, _ => b }`.
    pub(super) fn if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Result<Expr> {
        let scrut = self.expr(&l.expr)?;
        let tmp = self.declare("cj_match", scrut.ty.clone());
        self.scopes.push(Vec::new());
        let r = (|| -> Result<(Pat, Block)> {
            let pat = self.pattern(&l.pat, &scrut.ty)?;
            let then = self.block(&i.then_branch)?;
            Ok((pat, then))
        })();
        self.scopes.pop();
        let (pat, then) = r?;
        let ty = then.ty.clone();
        let els = match &i.else_branch {
            Some((_, e)) => {
                let x = self.expr(e)?;
                self.infer.unify(&ty, &x.ty);
                x
            }
            None => {
                self.infer.unify(&ty, &Ty::Unit);
                self.expr_of(
                    ExprKind::Block(Block {
                        stmts: Vec::new(),
                        tail: None,
                        ty: Ty::Unit,
                    }),
                    Ty::Unit,
                )
            }
        };
        let then_ty = then.ty.clone();
        let arms = vec![
            Arm {
                pat,
                guard: None,
                body: self.expr_of(ExprKind::Block(then), then_ty),
            },
            Arm {
                pat: Pat::Wild,
                guard: None,
                body: els,
            },
        ];
        Ok(self.expr_of(
            ExprKind::Match {
                scrut: Box::new(scrut),
                tmp,
                arms,
            },
            ty,
        ))
    }

    /// `while let P = e { body }`: `loop { match e { P => body, _ => break } }`.
    pub(super) fn while_let(&mut self, w: &syn::ExprWhile, l: &syn::ExprLet) -> Result<Expr> {
        let id = self.push_loop(w.label.as_ref());
        let r = (|| -> Result<Expr> {
            let scrut = self.expr(&l.expr)?;
            let tmp = self.declare("cj_match", scrut.ty.clone());
            self.scopes.push(Vec::new());
            let arm = (|| -> Result<Arm> {
                let pat = self.pattern(&l.pat, &scrut.ty)?;
                let body = self.block(&w.body)?;
                let bt = body.ty.clone();
                Ok(Arm {
                    pat,
                    guard: None,
                    body: self.expr_of(ExprKind::Block(body), bt),
                })
            })();
            self.scopes.pop();
            let stop = self.expr_of(ExprKind::Break { id, goto: false }, Ty::Unit);
            let arms = vec![
                arm?,
                Arm {
                    pat: Pat::Wild,
                    guard: None,
                    body: stop,
                },
            ];
            Ok(self.expr_of(
                ExprKind::Match {
                    scrut: Box::new(scrut),
                    tmp,
                    arms,
                },
                Ty::Unit,
            ))
        })();
        self.loop_stack.pop();
        let m = r?;
        Ok(self.expr_of(
            ExprKind::Loop {
                id,
                body: Block {
                    stmts: vec![Stmt::Expr(m)],
                    tail: None,
                    ty: Ty::Unit,
                },
            },
            Ty::Unit,
        ))
    }
}
