//! Calls by path: built-ins of `cuprum::gpu`, `#[cuprum::device]` functions, and
//! associated functions of number types (`f16::from_f32`, `T::zero()`, `f32::max(a, b)`).

use super::*;

impl Lower {
    pub(super) fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<Expr>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Result<Expr> {
        if let syn::Expr::Closure(f) = strip_parens(&c.func) {
            return Err(err(
                f,
                "a closure must be bound by `let f = |x| …;` and called (`f(x)`) in kernels",
            ));
        }
        let syn::Expr::Path(fp) = strip_parens(&c.func) else {
            return Err(err(
                &c.func,
                "only calls of built-ins and `#[cuprum::device]` functions by name are supported",
            ));
        };
        if fp.qself.is_some() {
            return Err(err(
                fp,
                "qualified paths (`<T as Trait>::f`) are not supported in kernels",
            ));
        }
        let segs: Vec<String> = fp
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let [name] = segs.as_slice()
            && let Some(id) = self.lookup(name)
            && matches!(self.vars[id].ty, Ty::Closure(..))
        {
            return self.closure_call(id, c);
        }
        if let Some((t, v)) = self.variant_of(&fp.path) {
            let mut fields = Vec::new();
            for (k, a) in c.args.iter().enumerate() {
                fields.push((format!("f{k}"), self.expr(a)?));
            }
            return Ok(self.variant_lit(t, v, fields));
        }
        if let Some(name) = builtin_name(&c.func) {
            return self.builtin(&name, c);
        }
        // `f32::max(a, b)`, `f16::from_f32(x)`, `T::zero()`.
        if segs.len() == 2 {
            let (ty_name, f) = (&segs[0], &segs[1]);
            let recv_ty = if let Some(p) = Prim::from_name(ty_name) {
                Some(Ty::Prim(p))
            } else if self.type_params.contains(ty_name) {
                Some(Ty::Generic(ty_name.clone()))
            } else {
                None
            };
            if let Some(t) = recv_ty {
                return self.assoc_call(t, f, c);
            }
        }
        // A device function.
        let last = fp
            .path
            .segments
            .last()
            .ok_or_else(|| err(fp, "empty path"))?;
        let mut targs = Vec::new();
        if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
            for g in &a.args {
                targs.push(match g {
                    syn::GenericArgument::Type(t) => {
                        match self.ty(t) {
                            Ok(t) => crate::ty::cpp_type(&t),
                            Err(_) => match t {
                                // A const parameter written as a path: `f::<N>(…)`.
                                syn::Type::Path(p) if p.path.get_ident().is_some() => {
                                    let n = p.path.segments[0].ident.to_string();
                                    if self.const_params.iter().any(|c| c.0 == n) {
                                        n
                                    } else {
                                        return Err(err(
                                            t,
                                            format!("`{n}` is not a type or const parameter here"),
                                        ));
                                    }
                                }
                                _ => {
                                    return Err(err(
                                        t,
                                        "this generic argument is not supported in kernels",
                                    ));
                                }
                            },
                        }
                    }
                    syn::GenericArgument::Const(e) => match self.len(e)? {
                        Len::Lit(n) => n.to_string(),
                        Len::Param(p) => p,
                    },
                    other => {
                        return Err(err(
                            other,
                            "this generic argument is not supported in kernels",
                        ));
                    }
                });
            }
        } else if !last.arguments.is_none() {
            return Err(err(last, "this call form is not supported in kernels"));
        }
        if fp
            .path
            .segments
            .iter()
            .rev()
            .skip(1)
            .any(|s| !s.arguments.is_none())
        {
            return Err(err(
                fp,
                "generic arguments are only supported on the function name",
            ));
        }
        let args = self.args(&c.args)?;
        for a in &args {
            if matches!(
                self.infer.shallow(&a.ty),
                Ty::Shared(..) | Ty::DynShared(_) | Ty::UInt3
            ) {
                return Err(err(
                    c,
                    "shared memory and index triples cannot be passed to device functions",
                ));
            }
        }
        let mut dep = fp.path.clone();
        for s in dep.segments.iter_mut() {
            s.arguments = syn::PathArguments::None;
        }
        if !self
            .deps
            .iter()
            .any(|d| quote::quote!(#d).to_string() == quote::quote!(#dep).to_string())
        {
            self.deps.push(dep);
        }
        let callee = format!(
            "cj_dev::{}",
            last.ident.to_string().trim_start_matches("r#")
        );
        let callee_t = if targs.is_empty() {
            callee.clone()
        } else {
            format!("{callee}<{}>", targs.join(", "))
        };
        let arg_tys = args.iter().map(|a| a.ty.clone()).collect();
        let ty = self.infer.opaque_call(callee_t, arg_tys);
        Ok(self.expr_of(
            ExprKind::Call {
                callee,
                targs,
                args,
            },
            ty,
        ))
    }

    /// `f32::max(a, b)` (a method in function form), `f16::from_f32(x)`, `T::zero()`.
    fn assoc_call(&mut self, t: Ty, f: &str, c: &syn::ExprCall) -> Result<Expr> {
        match f {
            "from_f32" | "from_f64" | "from_i32" | "from_u32" | "from_i64" | "from_u64" => {
                if c.args.len() != 1 {
                    return Err(err(c, format!("`{f}` takes one value")));
                }
                let x = self.expr(&c.args[0])?;
                let src = Prim::from_name(&f[5..]).unwrap_or(Prim::F32);
                self.infer.unify(&x.ty, &Ty::Prim(src));
                let allowed = match &t {
                    Ty::Prim(p) => {
                        matches!(p, Prim::F16 | Prim::Bf16) && matches!(f, "from_f32" | "from_f64")
                    }
                    _ => true,
                };
                if !allowed {
                    return Err(err(
                        c,
                        format!(
                            "`{f}` is supported on f16, bf16 and type parameters; use `as` between primitives"
                        ),
                    ));
                }
                Ok(self.expr_of(ExprKind::Convert(Box::new(x)), t))
            }
            "zero" | "one" if c.args.is_empty() => {
                let v = if f == "one" { 1 } else { 0 };
                Ok(self.expr_of(ExprKind::GenericConst(v), t))
            }
            _ => {
                // A method in function form: the first argument is the receiver.
                let mut args = self.args(&c.args)?;
                if args.is_empty() {
                    return Err(err(c, format!("`{f}` is not supported in kernels")));
                }
                self.infer.unify(&args[0].ty, &t);
                let recv = args.remove(0);
                self.number_method(f, recv, args, c)
            }
        }
    }

    fn builtin(&mut self, name: &str, c: &syn::ExprCall) -> Result<Expr> {
        use Builtin as B;
        let u32t = Ty::Prim(Prim::U32);
        let boolt = Ty::Prim(Prim::Bool);
        let (b, params, ret): (Builtin, Vec<Option<Ty>>, Ty) = match name {
            "thread_idx" => (B::ThreadIdx, vec![], Ty::UInt3),
            "block_idx" => (B::BlockIdx, vec![], Ty::UInt3),
            "block_dim" => (B::BlockDim, vec![], Ty::UInt3),
            "grid_dim" => (B::GridDim, vec![], Ty::UInt3),
            "global_index" => (B::GlobalIndex, vec![], Ty::Prim(Prim::Usize)),
            "global_size" => (B::GlobalSize, vec![], Ty::Prim(Prim::Usize)),
            "lane_id" => (B::LaneId, vec![], u32t.clone()),
            "active_mask" => (B::ActiveMask, vec![], u32t.clone()),
            "clock64" => (B::Clock64, vec![], Ty::Prim(Prim::U64)),
            "sync_threads" => (B::SyncThreads, vec![], Ty::Unit),
            "sync_threads_count" => (
                B::SyncThreadsCount,
                vec![Some(boolt.clone())],
                Ty::Prim(Prim::I32),
            ),
            "sync_threads_and" => (B::SyncThreadsAnd, vec![Some(boolt.clone())], boolt.clone()),
            "sync_threads_or" => (B::SyncThreadsOr, vec![Some(boolt.clone())], boolt.clone()),
            "sync_warp" => (B::SyncWarp, vec![Some(u32t.clone())], Ty::Unit),
            "grid_sync" => {
                if !self.kernel {
                    return Err(err(
                        c,
                        "`grid_sync()` can only be called in a kernel body (the kernel is then launched cooperatively), not in a device function",
                    ));
                }
                self.cooperative = true;
                if !c.args.is_empty() {
                    return Err(err(c, "`grid_sync` takes no arguments"));
                }
                let site = self.site(c.span());
                let lit = self.expr_of(
                    ExprKind::Lit(LitVal::Int(site as u128)),
                    Ty::Prim(Prim::U32),
                );
                return Ok(self.expr_of(ExprKind::Builtin(B::GridSync, vec![lit]), Ty::Unit));
            }
            "thread_fence" => (B::ThreadFence, vec![], Ty::Unit),
            "thread_fence_block" => (B::ThreadFenceBlock, vec![], Ty::Unit),
            "thread_fence_system" => (B::ThreadFenceSystem, vec![], Ty::Unit),
            "shfl_sync" | "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" => {
                let b = match name {
                    "shfl_sync" => B::ShflSync,
                    "shfl_up_sync" => B::ShflUpSync,
                    "shfl_down_sync" => B::ShflDownSync,
                    _ => B::ShflXorSync,
                };
                let v = self.infer.fresh(VarKind::Any);
                (
                    b,
                    vec![Some(u32t.clone()), Some(v.clone()), Some(u32t.clone())],
                    v,
                )
            }
            "ballot_sync" => (
                B::BallotSync,
                vec![Some(u32t.clone()), Some(boolt.clone())],
                u32t.clone(),
            ),
            "all_sync" => (
                B::AllSync,
                vec![Some(u32t.clone()), Some(boolt.clone())],
                boolt.clone(),
            ),
            "any_sync" => (
                B::AnySync,
                vec![Some(u32t.clone()), Some(boolt.clone())],
                boolt.clone(),
            ),
            "shared_array" | "dynamic_shared" => {
                return Err(err(
                    c,
                    format!(
                        "`{name}` must be the value of a `let`: `let mut s = {name}::<f32{}>();`",
                        if name == "shared_array" { ", 256" } else { "" }
                    ),
                ));
            }
            "grid_stride" | "block_stride" => {
                return Err(err(
                    c,
                    format!("`{name}(n)` is only supported as the iterator of a `for` loop"),
                ));
            }
            _ => return Err(err(c, format!("`{name}` is not a device built-in"))),
        };
        if c.args.len() != params.len() {
            return Err(err(
                c,
                format!("`{name}` takes {} argument(s)", params.len()),
            ));
        }
        let mut args = Vec::new();
        for (a, p) in c.args.iter().zip(&params) {
            let x = self.expr(a)?;
            if let Some(p) = p {
                self.infer.unify(&x.ty, p);
            }
            args.push(x);
        }
        Ok(self.expr_of(ExprKind::Builtin(b, args), ret))
    }
}

/// The last segment of a call's path when it names a `cuprum::gpu` built-in: a plain name,
/// `gpu::name` or `cuprum::gpu::name`.
pub(super) fn builtin_name(f: &syn::Expr) -> Option<String> {
    let syn::Expr::Path(p) = strip_parens(f) else {
        return None;
    };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let ok_prefix = match segs.len() {
        1 => true,
        2 => segs[0] == "gpu",
        3 => segs[0] == "cuprum" && segs[1] == "gpu",
        _ => false,
    };
    let name = segs.last()?.clone();
    const NAMES: &[&str] = &[
        "thread_idx",
        "block_idx",
        "block_dim",
        "grid_dim",
        "global_index",
        "global_size",
        "lane_id",
        "active_mask",
        "clock64",
        "sync_threads",
        "sync_threads_count",
        "sync_threads_and",
        "sync_threads_or",
        "sync_warp",
        "grid_sync",
        "thread_fence",
        "thread_fence_block",
        "thread_fence_system",
        "shfl_sync",
        "shfl_up_sync",
        "shfl_down_sync",
        "shfl_xor_sync",
        "ballot_sync",
        "all_sync",
        "any_sync",
        "shared_array",
        "dynamic_shared",
        "grid_stride",
        "block_stride",
    ];
    (ok_prefix && NAMES.contains(&name.as_str())).then_some(name)
}
