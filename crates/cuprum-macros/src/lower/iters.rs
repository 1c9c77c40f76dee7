//! `for` over the elements of a slice parameter, local array or shared array:
//! `for x in s.iter()`, `for (i, x) in s.iter().enumerate()`, `for x in s.iter_mut()`
//! (and `for &x in s.iter()`). In C++ a counted loop over the length, the element bound
//! once per iteration (a copy, or a reference for `iter_mut`): no bounds check, the index
//! is below the length by construction. In Rust the loop variable is a reference; the
//! translator reads `*x` (and `x` where Rust auto-dereferences) as the element.

use super::*;

/// What an element loop's iterator expression is.
struct ElemIter<'a> {
    base: &'a syn::Expr,
    mutable: bool,
    enumerate: bool,
}

/// `s.iter()`, `s.iter_mut()`, either with `.enumerate()`.
fn elem_iter(e: &syn::Expr) -> Option<ElemIter<'_>> {
    let syn::Expr::MethodCall(m) = strip_parens(e) else {
        return None;
    };
    if !m.args.is_empty() {
        return None;
    }
    match m.method.to_string().as_str() {
        "enumerate" => elem_iter(&m.receiver)
            .filter(|i| !i.enumerate)
            .map(|i| ElemIter {
                enumerate: true,
                ..i
            }),
        "iter" | "iter_mut" => Some(ElemIter {
            base: &m.receiver,
            mutable: m.method == "iter_mut",
            enumerate: false,
        }),
        _ => None,
    }
}

impl Lower {
    /// A `for` loop over elements, or `None` when the iterator is something else.
    pub(super) fn for_elems(&mut self, f: &syn::ExprForLoop) -> Option<Result<Expr>> {
        let it = elem_iter(&f.expr)?;
        Some(self.for_elems_inner(f, &it))
    }

    fn for_elems_inner(&mut self, f: &syn::ExprForLoop, it: &ElemIter<'_>) -> Result<Expr> {
        let base = self.slice_var(it.base)?;
        let elem = self.elem_of(base, it.base)?;
        if let Ty::Slice { mutable: false, .. } = self.infer.shallow(&self.vars[base].ty)
            && it.mutable
        {
            return Err(err(it.base, "`iter_mut()` needs a `&mut [T]` parameter"));
        }
        let (index_pat, elem_pat) = match (&*f.pat, it.enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (p, true) => {
                return Err(err(
                    p,
                    "write the loop variables of `.enumerate()` as `(i, x)`",
                ));
            }
            (p, false) => (None, p),
        };
        let index_name = match index_pat {
            Some(p) => Some(self.loop_name(p)?),
            None => None,
        };
        // `x` (a reference in Rust) or `&x` (a copy).
        let (elem_name, by_ref) = match elem_pat {
            syn::Pat::Reference(r) if !it.mutable => (self.loop_name(&r.pat)?, false),
            p => (self.loop_name(p)?, true),
        };
        let id = self.push_loop(f.label.as_ref());
        self.scopes.push(Vec::new());
        let index = index_name.map(|n| self.declare(&n, Ty::Prim(Prim::Usize)));
        let var = self.declare(&elem_name, elem);
        if by_ref {
            self.refs.push(var);
        }
        let counter = self.declare("cj_k", Ty::Prim(Prim::Usize));
        let body = self.block(&f.body);
        self.scopes.pop();
        self.loop_stack.pop();
        Ok(self.expr_of(
            ExprKind::ForElems {
                id,
                base,
                var,
                index,
                counter,
                mutable: it.mutable,
                body: body?,
            },
            Ty::Unit,
        ))
    }

    /// A loop variable: a name or `_`.
    fn loop_name(&self, p: &syn::Pat) -> Result<String> {
        match p {
            syn::Pat::Ident(pi) if pi.mutability.is_some() => Err(err(
                pi,
                "`mut` loop variables are not supported in kernels; copy the value into a `let mut` inside the loop",
            )),
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                self.check_ident(&pi.ident)
            }
            syn::Pat::Wild(_) => Ok("cj_unused".to_string()),
            p => Err(err(p, "the loop variable must be a name")),
        }
    }
}
