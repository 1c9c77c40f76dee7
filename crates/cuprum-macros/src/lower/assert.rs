//! `assert!` and `debug_assert!`, the only macros a kernel may use; any other macro is an
//! error that says so.

use super::*;

impl Lower {
    /// `assert!(cond)` / `assert!(cond, "message")` (and `debug_assert!`, checked builds
    /// only); any other macro is an error. A false condition faults like an index out of
    /// bounds ("assertion failed" at the macro's line): one check that can stand for many,
    /// e.g. before `get_unchecked` accesses whose indices it bounds.
    pub(super) fn assert_macro(&mut self, m: &syn::Macro) -> Result<Expr> {
        let name = m
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        if m.path.segments.len() != 1 || !(name == "assert" || name == "debug_assert") {
            return Err(macro_error(m));
        }
        let args = m
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
            .map_err(|e| err(m, format!("`{name}!`: {e}")))?;
        let mut it = args.iter();
        let Some(cond) = it.next() else {
            return Err(err(m, format!("`{name}!` needs a condition")));
        };
        match (it.next(), it.next()) {
            (None, _) => {}
            (
                Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(_),
                    ..
                })),
                None,
            ) => {}
            _ => {
                return Err(err(
                    m,
                    format!(
                        "kernels cannot format: write `{name}!(condition)` or `{name}!(condition, \"message\")`"
                    ),
                ));
            }
        }
        let c = self.expr(cond)?;
        self.infer.unify(&c.ty, &Ty::Prim(Prim::Bool));
        let site = self.site(m.span());
        Ok(self.expr_of(
            ExprKind::Assert {
                cond: Box::new(c),
                site,
                debug: name == "debug_assert",
            },
            Ty::Unit,
        ))
    }
}

fn macro_error(m: &syn::Macro) -> Error {
    let name = m
        .path
        .segments
        .last()
        .map_or_else(String::new, |s| s.ident.to_string());
    err(
        m,
        format!(
            "macros are not supported in kernels (`{name}!`), except `assert!` and `debug_assert!`; kernels cannot print, panic or format"
        ),
    )
}
