//! Blocks and statements: `let` (and the type witness each one records), shared memory
//! declarations, and whether an expression that ends a block is its value.

use super::*;

impl Lower {
    pub(super) fn block(&mut self, block: &syn::Block) -> Result<Block> {
        self.scopes.push(Vec::new());
        let r = self.block_inner(block);
        self.scopes.pop();
        r
    }

    fn block_inner(&mut self, block: &syn::Block) -> Result<Block> {
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut errors: Vec<Error> = Vec::new();
        let n = block.stmts.len();
        for (i, s) in block.stmts.iter().enumerate() {
            let r = match s {
                syn::Stmt::Local(l) => match self.local(l) {
                    Ok(s) => {
                        stmts.extend(s);
                        Ok(())
                    }
                    Err(e) => {
                        // Keep the names bound so that later uses do not add errors.
                        self.declare_pattern(&l.pat);
                        Err(e)
                    }
                },
                syn::Stmt::Item(it) => Err(err(
                    it,
                    "items (fn, struct, use, const …) inside a kernel body are not supported; define them outside",
                )),
                syn::Stmt::Macro(m) => match self.assert_macro(&m.mac) {
                    Ok(x) => {
                        stmts.push(Stmt::Expr(x));
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
                syn::Stmt::Expr(e, semi) => match self.expr(e) {
                    Ok(x) => {
                        if semi.is_none() && i + 1 == n && !is_statement_like(e) {
                            tail = Some(Box::new(x));
                        } else if semi.is_none() && i + 1 == n {
                            // `if`/loops/blocks at the end: a value when not unit.
                            let t = self.infer.shallow(&x.ty);
                            if matches!(t, Ty::Unit)
                                || self.infer.var_kind(&t) == Some(VarKind::Any)
                            {
                                stmts.push(Stmt::Expr(x));
                            } else {
                                tail = Some(Box::new(x));
                            }
                        } else {
                            stmts.push(Stmt::Expr(x));
                        }
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
        if let Some(e) = errors.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            return Err(e);
        }
        let diverges = matches!(
            stmts.last(),
            Some(Stmt::Expr(Expr {
                kind: ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue { .. },
                ..
            }))
        );
        let ty = match &tail {
            Some(t) => t.ty.clone(),
            None if diverges => self.infer.fresh(VarKind::Any),
            None => Ty::Unit,
        };
        Ok(Block { stmts, tail, ty })
    }

    fn local(&mut self, l: &syn::Local) -> Result<Vec<Stmt>> {
        let (pat, annot) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let syn::Pat::Tuple(t) = pat {
            self.witnesses.push(None);
            let annot = annot.map(|a| self.ty(a)).transpose()?;
            let init = match &l.init {
                Some(li) => {
                    if let Some((e, _)) = &li.diverge {
                        return Err(err(e, "`let … else` is not supported in kernels"));
                    }
                    Some(&*li.expr)
                }
                None => None,
            };
            return self.let_tuple(t, annot, init);
        }
        self.local_one(l).map(|s| vec![s])
    }

    fn local_one(&mut self, l: &syn::Local) -> Result<Stmt> {
        let id = self.witnesses.len();
        self.witnesses.push(None);
        if let Some(a) = l.attrs.first() {
            return Err(err(a, "attributes on `let` are not supported in kernels"));
        }
        let (pat, annot) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(self.ty(&pt.ty)?)),
            p => (p, None),
        };
        let name = match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some(self.check_ident(&pi.ident)?)
            }
            syn::Pat::Wild(_) => None,
            p => {
                return Err(err(
                    p,
                    "only `let name = …;`, `let (a, b) = …;` and `let _ = …;` are supported (no struct or slice patterns)",
                ));
            }
        };
        let init = match &l.init {
            Some(li) => {
                if let Some((e, _)) = &li.diverge {
                    return Err(err(e, "`let … else` is not supported in kernels"));
                }
                Some(&*li.expr)
            }
            None => None,
        };
        // Closures.
        if let Some(syn::Expr::Closure(c)) = init.map(strip_parens) {
            let Some(name) = name else {
                return Err(err(c, "a closure must be bound to a name"));
            };
            if annot.is_some() {
                return Err(err(l, "write a closure's `let` without a type"));
            }
            return self.closure_decl(&name, c);
        }
        // Shared memory declarations.
        if let Some(init) = init
            && let Some((which, call)) = shared_call(init)
        {
            let Some(name) = name else {
                return Err(err(init, "shared memory must be bound to a name"));
            };
            return self.shared_decl(&name, which, call);
        }
        let init = match init {
            Some(e) => {
                let x = self.expr(e)?;
                if let Some(a) = &annot {
                    self.infer.unify(&x.ty, a);
                }
                Some(x)
            }
            None => None,
        };
        let ty = match (&annot, &init) {
            (Some(a), _) => a.clone(),
            (None, Some(x)) => x.ty.clone(),
            (None, None) => {
                return Err(err(
                    l,
                    "a `let` without a value needs a type: `let x: f32;`",
                ));
            }
        };
        if let Ty::Shared(..) | Ty::DynShared(_) = self.infer.shallow(&ty) {
            return Err(err(
                l,
                "shared memory cannot be copied or moved into another variable",
            ));
        }
        if let Ty::Slice { .. } = self.infer.shallow(&ty) {
            return Err(err(
                l,
                "slices cannot be bound to new variables; use the parameter by name",
            ));
        }
        match name {
            Some(n) => {
                let var = self.declare(&n, ty.clone());
                self.witnesses[id] = Some(ty);
                Ok(Stmt::Let { var, init })
            }
            None => match init {
                Some(x) => Ok(Stmt::Expr(x)),
                None => Err(err(l, "`let _;` declares nothing")),
            },
        }
    }

    fn declare_pattern(&mut self, p: &syn::Pat) {
        match p {
            syn::Pat::Ident(pi) => {
                let name = pi.ident.to_string();
                let t = self.infer.fresh(VarKind::Any);
                self.declare(&name, t);
            }
            syn::Pat::Type(pt) => self.declare_pattern(&pt.pat),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::Slice(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::Paren(p) => self.declare_pattern(&p.pat),
            syn::Pat::Reference(r) => self.declare_pattern(&r.pat),
            _ => {}
        }
    }

    fn shared_decl(&mut self, name: &str, which: &str, call: &syn::ExprCall) -> Result<Stmt> {
        let seg = match &*call.func {
            syn::Expr::Path(p) => p.path.segments.last().cloned(),
            _ => None,
        };
        let args = match seg.as_ref().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a.args.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        if !call.args.is_empty() {
            return Err(err(&call.args, format!("`{which}` takes no arguments")));
        }
        let mut elem_arg = |a: Option<&&syn::GenericArgument>| -> Result<Ty> {
            match a {
                Some(syn::GenericArgument::Type(t)) => {
                    let t = self.ty(t)?;
                    if matches!(t, Ty::Prim(_) | Ty::Generic(_)) {
                        Ok(t)
                    } else {
                        Err(err(call, "shared memory holds numbers or bool"))
                    }
                }
                _ => Err(err(
                    call,
                    format!(
                        "write the element type: `{which}::<f32{}>()`",
                        if which == "shared_array" { ", 256" } else { "" }
                    ),
                )),
            }
        };
        if which == "shared_array" {
            if args.len() != 2 {
                return Err(err(
                    call,
                    "write `shared_array::<T, N>()` (element type and a constant length)",
                ));
            }
            let elem = elem_arg(args.first())?;
            let len = match args[1] {
                syn::GenericArgument::Const(e) => self.len(e)?,
                syn::GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
                    let n = p.path.segments[0].ident.to_string();
                    if self.const_params.iter().any(|c| c.0 == n) {
                        Len::Param(n)
                    } else {
                        return Err(err(p, format!("`{n}` is not a const generic parameter")));
                    }
                }
                other => {
                    return Err(err(
                        other,
                        "the length must be a literal or a const generic parameter",
                    ));
                }
            };
            let var = self.declare(name, Ty::Shared(Box::new(elem.clone()), len.clone()));
            Ok(Stmt::Shared { var, elem, len })
        } else {
            if args.len() != 1 {
                return Err(err(call, "write `dynamic_shared::<T>()`"));
            }
            let elem = elem_arg(args.first())?;
            let var = self.declare(name, Ty::DynShared(Box::new(elem.clone())));
            Ok(Stmt::DynShared { var, elem })
        }
    }
}

/// `shared_array::<T, N>()` / `dynamic_shared::<T>()` as a `let` value.
fn shared_call(e: &syn::Expr) -> Option<(&'static str, &syn::ExprCall)> {
    let syn::Expr::Call(c) = strip_parens(e) else {
        return None;
    };
    match calls::builtin_name(&c.func)?.as_str() {
        "shared_array" => Some(("shared_array", c)),
        "dynamic_shared" => Some(("dynamic_shared", c)),
        _ => None,
    }
}

/// Expressions that are statements when they end a block without a semicolon.
fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::If(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Block(_)
            | syn::Expr::Unsafe(_)
            | syn::Expr::Match(_)
    )
}
