//! Closures that do not escape: `let f = |x: f32| x * s;` then calls `f(a)`.
//!
//! A closure becomes a C++ lambda declared where the Rust one is (`auto f = [&](float x)
//! -> float { … };`), so a call is an ordinary C++ expression that the compiler inlines
//! at the call site (the lambda's body is visible, a lambda's call operator is inline).
//! Captures are as in Rust: a `move` closure copies what it uses when it is created
//! (`[=]`, by value), any other closure uses the variables themselves (`[&]`) — the same
//! values, since the borrow checker lets nothing else change a variable a live closure
//! borrows, and what an `FnMut` closure assigns is seen outside, as in Rust. Names in the
//! body resolve where the closure is written (later shadowing does not change them);
//! `return` returns from the closure. A closure can only be bound by `let` and called:
//! passing, storing or returning it is an error at its span.

use super::*;

impl Lower {
    /// `let name = |params| body;`
    pub(super) fn closure_decl(&mut self, name: &str, c: &syn::ExprClosure) -> Result<Stmt> {
        if let Some(a) = &c.asyncness {
            return Err(err(a, "`async` closures are not supported in kernels"));
        }
        if let Some(l) = &c.lifetimes {
            return Err(err(
                l,
                "closures with `for<…>` are not supported in kernels",
            ));
        }
        let by_value = c.capture.is_some();
        let ret = match &c.output {
            syn::ReturnType::Default => self.infer.fresh(VarKind::Any),
            syn::ReturnType::Type(_, t) => self.ty(t)?,
        };
        self.scopes.push(Vec::new());
        let r = self.closure_body(c, &ret);
        self.scopes.pop();
        let (params, body) = r?;
        let ptys = params.iter().map(|p| self.vars[*p].ty.clone()).collect();
        let var = self.declare(name, Ty::Closure(ptys, Box::new(ret.clone())));
        Ok(Stmt::Closure {
            var,
            params,
            body,
            ret,
            by_value,
        })
    }

    fn closure_body(&mut self, c: &syn::ExprClosure, ret: &Ty) -> Result<(Vec<usize>, Expr)> {
        let mut params = Vec::new();
        for p in &c.inputs {
            let (pat, ty) = match p {
                syn::Pat::Type(pt) => (&*pt.pat, self.ty(&pt.ty)?),
                p => (p, self.infer.fresh(VarKind::Any)),
            };
            let name = match pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    self.check_ident(&pi.ident)?
                }
                syn::Pat::Wild(_) => "cj_unused".to_string(),
                other => {
                    return Err(err(
                        other,
                        "closure parameters must be names (no patterns) in kernels",
                    ));
                }
            };
            if matches!(ty, Ty::Slice { .. } | Ty::Closure(..)) {
                return Err(err(
                    p,
                    "closure parameters must be values (numbers, bool, tuples, arrays)",
                ));
            }
            params.push(self.declare(&name, ty));
        }
        // The body: its own `return` target, no enclosing loop, no witnesses (the twin's
        // witnesses skip closure bodies).
        let saved_ret = std::mem::replace(&mut self.ret, ret.clone());
        let saved_loops = std::mem::take(&mut self.loop_stack);
        let witnesses = self.witnesses.len();
        self.closure_depth += 1;
        let body = self.expr(&c.body);
        self.closure_depth -= 1;
        self.witnesses.truncate(witnesses);
        self.loop_stack = saved_loops;
        self.ret = saved_ret;
        let body = body?;
        self.infer.unify(&body.ty, ret);
        Ok((params, body))
    }

    /// `f(args…)` of a closure variable.
    pub(super) fn closure_call(&mut self, var: usize, c: &syn::ExprCall) -> Result<Expr> {
        let Ty::Closure(ptys, ret) = self.infer.shallow(&self.vars[var].ty) else {
            return Err(err(c, "internal: not a closure"));
        };
        if c.args.len() != ptys.len() {
            // rustc reports it too.
            return Err(err(
                c,
                format!("this closure takes {} arguments", ptys.len()),
            ));
        }
        let args = self.args(&c.args)?;
        for (a, t) in args.iter().zip(&ptys) {
            self.infer.unify(&a.ty, t);
        }
        Ok(self.expr_of(ExprKind::ClosureCall { var, args }, *ret))
    }
}
