//! Places: indexing of slice parameters, shared memory and local arrays (`x[i]`), and what
//! an assignment may write to.

use super::*;

impl Lower {
    /// The target of an assignment: a variable, an element, or `*x.get_unchecked_mut(i)`.
    pub(super) fn place(&mut self, e: &syn::Expr) -> Result<Expr> {
        match e {
            syn::Expr::Paren(p) => self.place(&p.expr),
            syn::Expr::Path(_) | syn::Expr::Index(_) => {
                let x = self.expr(e)?;
                match &x.kind {
                    ExprKind::Var(id)
                        if matches!(
                            self.infer.shallow(&self.vars[*id].ty),
                            Ty::Slice { .. } | Ty::Shared(..) | Ty::DynShared(_)
                        ) =>
                    {
                        Err(err(
                            e,
                            "a slice or shared array cannot be assigned as a whole; assign its elements",
                        ))
                    }
                    ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::MemberIndex { .. } => {
                        Ok(x)
                    }
                    _ => Err(err(e, "this cannot be assigned to")),
                }
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.expr(e),
            syn::Expr::Field(f) if matches!(f.member, syn::Member::Unnamed(_)) => {
                let x = self.expr(e)?;
                let mut inner = &x;
                while let ExprKind::TupleField(b, _) = &inner.kind {
                    inner = b;
                }
                match inner.kind {
                    ExprKind::Var(_) => Ok(x),
                    _ => Err(err(e, "only fields of tuple variables can be assigned to")),
                }
            }
            syn::Expr::Field(f) => {
                let x = self.expr(e)?;
                match &x.kind {
                    ExprKind::Member(..) => {
                        // The base must itself be a place (`p.x = …`, `out[i].x = …`).
                        fn is_place(e: &syn::Expr) -> bool {
                            match strip_parens(e) {
                                syn::Expr::Path(_) | syn::Expr::Index(_) => true,
                                syn::Expr::Field(f) => is_place(&f.base),
                                _ => false,
                            }
                        }
                        if !is_place(&f.base) {
                            return Err(err(
                                &f.base,
                                "only fields of variables and elements can be assigned to",
                            ));
                        }
                        Ok(x)
                    }
                    _ => Err(err(e, "this field cannot be assigned to")),
                }
            }
            _ => Err(err(
                e,
                "only variables, elements (`x[i]`), tuple fields (`t.0`), fields of device types (`p.x`) and `*x.get_unchecked_mut(i)` can be assigned to in kernels",
            )),
        }
    }

    /// Indexing an element that is itself a fixed array (`m[1][0]`, `p.m[1][0]`,
    /// `ps[i].m[j][k]`): the inner element is a place, indexed in C++ with a bounds check
    /// against its own extent (`cj::extent_of`), read through `cj::cp` and written through
    /// `cj::set` as a field's element is. Its type: the element of a local array type, or,
    /// for an array whose type only C++ knows (a field's), `decltype` of the `cj::Arr`'s
    /// element.
    fn nested_index(&mut self, i: &syn::ExprIndex) -> Result<Expr> {
        let inner = self.expr(&i.expr)?;
        let index = self.expr(&i.index)?;
        self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
        let ty = match self.infer.shallow(&inner.ty) {
            Ty::Array(elem, _) => *elem,
            Ty::Var(_) => self.infer.opaque_field(inner.ty.clone(), "v[0]".into()),
            _ => {
                return Err(err(
                    &i.expr,
                    "this element is not a fixed array: only arrays of arrays are indexed twice",
                ));
            }
        };
        let site = self.site(i.span());
        Ok(self.expr_of(
            ExprKind::MemberIndex {
                field: Box::new(inner),
                index: Box::new(index),
                site,
            },
            ty,
        ))
    }

    /// The variable a slice-like receiver names.
    pub(super) fn slice_var(&self, e: &syn::Expr) -> Result<usize> {
        let e = strip_parens(e);
        if let syn::Expr::Path(p) = e
            && let Some(ident) = p.path.get_ident()
            && let Some(id) = self.lookup(&ident.to_string())
        {
            match self.infer.shallow(&self.vars[id].ty) {
                Ty::Slice { .. } | Ty::Shared(..) | Ty::DynShared(_) | Ty::Array(..) => {
                    return Ok(id);
                }
                _ => {}
            }
            if self.opaque_array(id) {
                return Ok(id);
            }
        }
        if let syn::Expr::Path(p) = e
            && let Some(ident) = p.path.get_ident()
            && let Some(id) = self.lookup(&ident.to_string())
            && matches!(self.infer.shallow(&self.vars[id].ty), Ty::Var(_))
        {
            return Err(err(
                e,
                format!(
                    "the translator does not know the type of `{ident}` here (a device function's result?): annotate it, e.g. `let {ident}: [f32; 2] = …;`"
                ),
            ));
        }
        Err(err(
            e,
            "indexing works on slice parameters, shared memory and local arrays, by name",
        ))
    }

    /// A local holding a copy of a device type's field (`let c = p.c;`): rustc knows its
    /// type, the translator names it by `decltype`; indexed, it is a fixed array (`cj::Arr`).
    fn opaque_array(&self, var: usize) -> bool {
        matches!(
            self.infer.var_kind(&self.vars[var].ty),
            Some(VarKind::Opaque(id)) if self.infer.opaque[id].field.is_some()
        )
    }

    pub(super) fn elem_of(&mut self, var: usize, at: impl Spanned) -> Result<Ty> {
        if self.opaque_array(var) {
            let t = self.vars[var].ty.clone();
            return Ok(self.infer.opaque_field(t, "v[0]".into()));
        }
        match self.infer.shallow(&self.vars[var].ty) {
            Ty::Slice { elem, .. }
            | Ty::Shared(elem, _)
            | Ty::DynShared(elem)
            | Ty::Array(elem, _) => Ok(*elem),
            _ => Err(err(at, "this cannot be indexed")),
        }
    }

    pub(super) fn index(&mut self, i: &syn::ExprIndex) -> Result<Expr> {
        let sub = |e: &syn::Expr| match strip_parens(e) {
            syn::Expr::Range(r) => Some(err(
                r,
                "sub-slices (`x[a..b]`) are not supported in kernels; index the parameter with an offset",
            )),
            _ => None,
        };
        if let Some(e) = sub(&i.index) {
            return Err(e);
        }
        if let syn::Expr::Index(inner) = strip_parens(&i.expr)
            && let Some(e) = sub(&inner.index)
        {
            return Err(e);
        }
        if let syn::Expr::Field(_) = strip_parens(&i.expr) {
            let field = self.expr(&i.expr)?;
            if let ExprKind::Member(b, name) = &field.kind {
                let bt = b.ty.clone();
                let name = format!("{name}[0]");
                let index = self.expr(&i.index)?;
                self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
                let ty = self.infer.opaque_field(bt, name);
                let site = self.site(i.span());
                return Ok(self.expr_of(
                    ExprKind::MemberIndex {
                        field: Box::new(field),
                        index: Box::new(index),
                        site,
                    },
                    ty,
                ));
            }
        }
        if let syn::Expr::Index(_) = strip_parens(&i.expr) {
            return self.nested_index(i);
        }
        let base = self.slice_var(&i.expr)?;
        let index = self.expr(&i.index)?;
        if matches!(self.infer.shallow(&self.vars[base].ty), Ty::Array(..))
            || self.opaque_array(base)
        {
            self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
        }
        let elem = self.elem_of(base, i)?;
        let site = self.site(i.span());
        Ok(self.expr_of(
            ExprKind::Index {
                base,
                index: Box::new(index),
                site: Some(site),
            },
            elem,
        ))
    }
}
