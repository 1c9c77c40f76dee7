//! Tuples: literals `(a, b)`, fields `t.0`, `let (a, (b, _)) = …;` (one temporary, then a
//! `let` per name), tuple types in signatures and annotations. In C++ a tuple is the
//! prelude's aggregate `cj::TupN<…>` (fields `f0` …): see cuprum/jit.cuh for why not
//! `cuda::std::tuple`. The unit value `()` is an empty block.

use super::*;
use crate::ty::MAX_TUPLE;

impl Lower {
    pub(super) fn tuple_lit(&mut self, t: &syn::ExprTuple) -> Result<Expr> {
        if t.elems.is_empty() {
            let blk = Block {
                stmts: Vec::new(),
                tail: None,
                ty: Ty::Unit,
            };
            return Ok(self.expr_of(ExprKind::Block(blk), Ty::Unit));
        }
        if t.elems.len() > MAX_TUPLE {
            return Err(err(
                t,
                format!("tuples of more than {MAX_TUPLE} values are not supported in kernels"),
            ));
        }
        let mut xs = Vec::new();
        for e in &t.elems {
            let x = self.expr(e)?;
            if matches!(
                self.infer.shallow(&x.ty),
                Ty::Slice { .. } | Ty::Shared(..) | Ty::DynShared(_) | Ty::Closure(..) | Ty::UInt3
            ) {
                return Err(err(
                    e,
                    "a tuple holds values (numbers, bool, arrays, tuples), not slices, shared memory, index triples or closures",
                ));
            }
            xs.push(x);
        }
        let ty = Ty::Tuple(xs.iter().map(|x| x.ty.clone()).collect());
        Ok(self.expr_of(ExprKind::Tuple(xs), ty))
    }

    /// `base.0`: a tuple's field.
    pub(super) fn tuple_field(&mut self, base: Expr, index: &syn::Index) -> Result<Expr> {
        let i = index.index as usize;
        let number = matches!(
            self.infer.var_kind(&base.ty),
            Some(VarKind::Int | VarKind::Float)
        );
        match self.infer.shallow(&base.ty) {
            _ if number => Err(err(
                index,
                format!(
                    "`.{i}` needs a tuple (fields of other values are not supported in kernels)"
                ),
            )),
            Ty::Tuple(ts) if i >= ts.len() => Err(err(
                index,
                format!("a tuple of {} values has no field `.{i}`", ts.len()),
            )),
            Ty::Tuple(_) | Ty::Var(_) | Ty::Opaque(_) => {
                let ty = self.infer.field(&base.ty, i);
                Ok(self.expr_of(ExprKind::TupleField(Box::new(base), i), ty))
            }
            _ => Err(err(
                index,
                format!(
                    "`.{i}` needs a tuple (fields of other values are not supported in kernels)"
                ),
            )),
        }
    }

    /// `let (a, (b, _)) = init;`: the value into a temporary, then a `let` per name.
    pub(super) fn let_tuple(
        &mut self,
        pat: &syn::PatTuple,
        annot: Option<Ty>,
        init: Option<&syn::Expr>,
    ) -> Result<Vec<Stmt>> {
        let Some(init) = init else {
            return Err(err(pat, "a tuple pattern needs a value: `let (a, b) = …;`"));
        };
        let x = self.expr(init)?;
        if let Some(a) = &annot {
            self.infer.unify(&x.ty, a);
        }
        let ty = x.ty.clone();
        let tmp = self.declare("cj_tup", ty.clone());
        let mut out = vec![Stmt::Let {
            var: tmp,
            init: Some(x),
        }];
        let base = self.expr_of(ExprKind::Var(tmp), ty);
        self.destructure(pat, base, &mut out)?;
        Ok(out)
    }

    fn destructure(&mut self, pat: &syn::PatTuple, base: Expr, out: &mut Vec<Stmt>) -> Result<()> {
        if pat.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
            return Err(err(
                pat,
                "`..` in tuple patterns is not supported in kernels; name or `_` each value",
            ));
        }
        if let Ty::Tuple(ts) = self.infer.shallow(&base.ty)
            && ts.len() != pat.elems.len()
        {
            // rustc reports the mismatch.
            return Err(err(pat, format!("this tuple has {} values", ts.len())));
        }
        for (i, p) in pat.elems.iter().enumerate() {
            let ExprKind::Var(b) = base.kind else {
                return Err(err(pat, "internal: tuple base"));
            };
            let bx = self.expr_of(ExprKind::Var(b), base.ty.clone());
            let field_ty = self.infer.field(&base.ty, i);
            let field = self.expr_of(ExprKind::TupleField(Box::new(bx), i), field_ty.clone());
            match p {
                syn::Pat::Wild(_) => {}
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let name = self.check_ident(&pi.ident)?;
                    let var = self.declare(&name, field_ty);
                    out.push(Stmt::Let {
                        var,
                        init: Some(field),
                    });
                }
                syn::Pat::Tuple(inner) => {
                    let tmp = self.declare("cj_tup", field_ty.clone());
                    out.push(Stmt::Let {
                        var: tmp,
                        init: Some(field),
                    });
                    let base = self.expr_of(ExprKind::Var(tmp), field_ty);
                    self.destructure(inner, base, out)?;
                }
                syn::Pat::Paren(pp) => {
                    return Err(err(pp, "write the pattern without parentheses"));
                }
                other => {
                    return Err(err(
                        other,
                        "only names, `_` and nested tuples are supported in a tuple pattern",
                    ));
                }
            }
        }
        Ok(())
    }
}
