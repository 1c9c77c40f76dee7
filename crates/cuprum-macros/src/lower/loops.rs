//! Loops: `while`, `loop`, `for` over ranges and strided ranges, and the targets of
//! `break` / `continue`.

use super::*;

impl Lower {
    pub(super) fn push_loop(&mut self, label: Option<&syn::Label>) -> usize {
        self.loops.push(LoopInfo::default());
        let id = self.loops.len() - 1;
        self.loop_stack.push(LoopCtx {
            id,
            label: label.map(|l| l.name.ident.to_string()),
        });
        id
    }

    /// The loop a `break`/`continue` targets and whether C++ needs a `goto` for it.
    pub(super) fn loop_target(
        &self,
        at: impl Spanned,
        label: Option<&syn::Lifetime>,
    ) -> Result<(usize, bool)> {
        let Some(inner) = self.loop_stack.last() else {
            return Err(err(at, "`break`/`continue` outside a loop"));
        };
        match label {
            None => Ok((inner.id, false)),
            Some(l) => {
                let name = l.ident.to_string();
                match self
                    .loop_stack
                    .iter()
                    .rev()
                    .find(|c| c.label.as_deref() == Some(name.as_str()))
                {
                    Some(c) => Ok((c.id, c.id != inner.id)),
                    None => Err(err(l, format!("no loop labelled `'{name}` around this"))),
                }
            }
        }
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<Expr> {
        if let Some(r) = self.for_elems(f) {
            return r;
        }
        let name = match &*f.pat {
            syn::Pat::Ident(pi) if pi.mutability.is_some() => {
                return Err(err(
                    pi,
                    "`for mut i` is not supported in kernels; copy the value into a `let mut` inside the loop",
                ));
            }
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some(self.check_ident(&pi.ident)?)
            }
            syn::Pat::Wild(_) => None,
            p => return Err(err(p, "the loop variable must be a name")),
        };
        let (kind, parts) = self.for_iter(&f.expr)?;
        let var_ty = parts[0].ty.clone();
        let id = self.push_loop(f.label.as_ref());
        if let ForKind::Range {
            inclusive: true, ..
        } = kind
        {
            self.loops[id].cont_label = true;
        }
        self.scopes.push(Vec::new());
        let var = self.declare(name.as_deref().unwrap_or("cj_unused"), var_ty);
        let body = self.block(&f.body);
        self.scopes.pop();
        self.loop_stack.pop();
        Ok(self.expr_of(
            ExprKind::For {
                id,
                var,
                kind,
                parts,
                body: body?,
            },
            Ty::Unit,
        ))
    }

    /// A `for` loop's iterator: `a..b`, `a..=b`, `(…).rev()`, `(…).step_by(s)`,
    /// `grid_stride(n)`, `block_stride(n)`.
    fn for_iter(&mut self, e: &syn::Expr) -> Result<(ForKind, Vec<Expr>)> {
        let e = strip_parens(e);
        match e {
            syn::Expr::Range(r) => {
                let (Some(a), Some(b)) = (&r.start, &r.end) else {
                    return Err(err(r, "a `for` range needs both ends (`a..b` or `a..=b`)"));
                };
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                self.infer.unify(&a.ty, &b.ty);
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Ok((
                    ForKind::Range {
                        inclusive,
                        rev: false,
                    },
                    vec![a, b],
                ))
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let (kind, parts) = self.for_iter(&m.receiver)?;
                match kind {
                    ForKind::Range {
                        inclusive,
                        rev: false,
                    } if parts.len() == 2 => Ok((
                        ForKind::Range {
                            inclusive,
                            rev: true,
                        },
                        parts,
                    )),
                    _ => Err(err(
                        m,
                        "`.rev()` is supported directly on a range (`(a..b).rev()`)",
                    )),
                }
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let (kind, mut parts) = self.for_iter(&m.receiver)?;
                match kind {
                    ForKind::Range {
                        inclusive: false,
                        rev: false,
                    } if parts.len() == 2 => {
                        let s = self.expr(&m.args[0])?;
                        self.infer.unify(&s.ty, &Ty::Prim(Prim::Usize));
                        parts.push(s);
                        Ok((kind, parts))
                    }
                    _ => Err(err(
                        m,
                        "`.step_by(s)` is supported on a plain range (`(a..b).step_by(s)`)",
                    )),
                }
            }
            syn::Expr::Call(c) => {
                let name = calls::builtin_name(&c.func);
                match name.as_deref() {
                    Some(n @ ("grid_stride" | "block_stride")) => {
                        if c.args.len() != 1 {
                            return Err(err(c, format!("`{n}(n)` takes the number of items")));
                        }
                        let n_expr = self.expr(&c.args[0])?;
                        let t = self.infer.shallow(&n_expr.ty);
                        if let Some(VarKind::Int) = self.infer.var_kind(&t) {
                            self.infer.unify(&n_expr.ty, &Ty::Prim(Prim::I32));
                        }
                        Ok((
                            ForKind::Stride {
                                block: n == "block_stride",
                            },
                            vec![n_expr],
                        ))
                    }
                    _ => Err(err(
                        e,
                        "`for` loops go over a range (`a..b`, `a..=b`, `.rev()`, `.step_by(s)`), `grid_stride(n)`, `block_stride(n)`, or `s.iter()` / `s.iter_mut()` (with `.enumerate()`)",
                    )),
                }
            }
            _ => Err(err(
                e,
                "`for` loops go over a range (`a..b`, `a..=b`, `.rev()`, `.step_by(s)`), `grid_stride(n)`, `block_stride(n)`, or `s.iter()` / `s.iter_mut()` (with `.enumerate()`)",
            )),
        }
    }
}
