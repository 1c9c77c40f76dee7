//! Calls: built-ins of `cuprum::gpu`, `#[cuprum::device]` functions, associated functions
//! of number types (`f16::from_f32`, `T::zero()`), number methods and atomics.

use super::*;

impl Lower {
    fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<Expr>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Result<Expr> {
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

    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Result<Expr> {
        let name = m.method.to_string();
        if m.turbofish.is_some() {
            return Err(err(
                m,
                format!("`.{name}::<…>()` is not supported in kernels"),
            ));
        }
        match name.as_str() {
            "len" | "is_empty" if m.args.is_empty() => {
                let base = self.slice_var(&m.receiver)?;
                if name == "len" {
                    Ok(self.expr_of(ExprKind::Len(base), Ty::Prim(Prim::Usize)))
                } else {
                    let len = self.expr_of(ExprKind::Len(base), Ty::Prim(Prim::Usize));
                    let zero = self.expr_of(ExprKind::Lit(LitVal::Int(0)), Ty::Prim(Prim::Usize));
                    Ok(self.expr_of(
                        ExprKind::Binary(BinOp::Eq, Box::new(len), Box::new(zero), 0),
                        Ty::Prim(Prim::Bool),
                    ))
                }
            }
            "get_unchecked" | "get_unchecked_mut" => {
                Err(err(m, format!("use `*x.{name}(i)` inside `unsafe {{ }}`")))
            }
            "rev" | "step_by" => Err(err(
                m,
                format!("`.{name}()` is only supported in the iterator of a `for` loop"),
            )),
            n if n.starts_with("atomic_") => self.atomic(m, n),
            "load4" | "store4" => self.chunk4(m, &name),
            _ => {
                let recv = self.expr(&m.receiver)?;
                if matches!(
                    self.infer.shallow(&recv.ty),
                    Ty::Slice { .. }
                        | Ty::Shared(..)
                        | Ty::DynShared(_)
                        | Ty::Array(..)
                        | Ty::UInt3
                ) {
                    return Err(err(
                        &m.method,
                        format!("method `.{name}()` is not supported on this in kernels"),
                    ));
                }
                let args = self.args(&m.args)?;
                self.number_method(&name, recv, args, m)
            }
        }
    }

    /// A number method: `cj::name(recv, args…)` with Rust's signature for the types.
    fn number_method(
        &mut self,
        name: &str,
        recv: Expr,
        args: Vec<Expr>,
        at: impl Spanned,
    ) -> Result<Expr> {
        use MethodSig::*;
        let Some((helper, sig, nargs)) = method_sig(name) else {
            return Err(err(
                at,
                format!("the method `{name}` is not supported in kernels"),
            ));
        };
        if args.len() != nargs {
            return Err(err(at, format!("`{name}` takes {nargs} argument(s)")));
        }
        let rt = recv.ty.clone();
        let result = match sig {
            Same => {
                for a in &args {
                    self.infer.unify(&a.ty, &rt);
                }
                rt
            }
            SameArgI32 => {
                for a in &args {
                    self.infer.unify(&a.ty, &Ty::Prim(Prim::I32));
                }
                rt
            }
            SameArgU32 => {
                for a in &args {
                    self.infer.unify(&a.ty, &Ty::Prim(Prim::U32));
                }
                rt
            }
            Bool => Ty::Prim(Prim::Bool),
            U32 => Ty::Prim(Prim::U32),
            ToF32 => Ty::Prim(Prim::F32),
            ToF64 => Ty::Prim(Prim::F64),
        };
        if matches!(sig, ToF32 | ToF64) {
            return Ok(self.expr_of(ExprKind::Convert(Box::new(recv)), result));
        }
        let mut all = vec![recv];
        all.extend(args);
        Ok(self.expr_of(ExprKind::Method(helper, all), result))
    }

    fn atomic(&mut self, m: &syn::ExprMethodCall, name: &str) -> Result<Expr> {
        let op: &'static str = match name {
            "atomic_add" => "atomic_add",
            "atomic_sub" => "atomic_sub",
            "atomic_min" => "atomic_min",
            "atomic_max" => "atomic_max",
            "atomic_exch" => "atomic_exch",
            "atomic_cas" => "atomic_cas",
            "atomic_and" => "atomic_and",
            "atomic_or" => "atomic_or",
            "atomic_xor" => "atomic_xor",
            _ => {
                return Err(err(
                    &m.method,
                    format!(
                        "`{name}` is not an atomic of cuprum::gpu (add, sub, min, max, exch, cas, and, or, xor)"
                    ),
                ));
            }
        };
        let base = self.slice_var(&m.receiver)?;
        if let Ty::Array(..) = self.infer.shallow(&self.vars[base].ty) {
            return Err(err(
                &m.receiver,
                "atomics work on `&mut [T]` parameters and shared memory",
            ));
        }
        let want = if op == "atomic_cas" { 3 } else { 2 };
        if m.args.len() != want {
            return Err(err(
                m,
                format!(
                    "`{name}` takes {} arguments",
                    if want == 3 {
                        "an index, the expected value and the new value: 3"
                    } else {
                        "an index and a value: 2"
                    }
                ),
            ));
        }
        let elem = self.elem_of(base, m)?;
        let index = self.expr(&m.args[0])?;
        let mut args = Vec::new();
        for a in m.args.iter().skip(1) {
            let x = self.expr(a)?;
            self.infer.unify(&x.ty, &elem);
            args.push(x);
        }
        let site = self.site(m.span());
        Ok(self.expr_of(
            ExprKind::Atomic {
                op,
                base,
                index: Box::new(index),
                site,
                args,
            },
            elem,
        ))
    }

    /// `x.load4(k)` (an array of four elements) and `x.store4(k, v)` on a slice parameter.
    fn chunk4(&mut self, m: &syn::ExprMethodCall, name: &str) -> Result<Expr> {
        let base = self.slice_var(&m.receiver)?;
        if !matches!(self.infer.shallow(&self.vars[base].ty), Ty::Slice { .. }) {
            return Err(err(
                &m.receiver,
                format!("`{name}` works on slice parameters (`&[T]`, `&mut [T]`)"),
            ));
        }
        let store = name == "store4";
        let want = if store { 2 } else { 1 };
        if m.args.len() != want {
            return Err(err(
                m,
                if store {
                    "`store4` takes a chunk index and an array of four elements: 2 arguments"
                } else {
                    "`load4` takes a chunk index: 1 argument"
                },
            ));
        }
        let elem = self.elem_of(base, m)?;
        let four = Ty::Array(Box::new(elem), Len::Lit(4));
        let index = self.expr(&m.args[0])?;
        let mut args = Vec::new();
        if store {
            let v = self.expr(&m.args[1])?;
            self.infer.unify(&v.ty, &four);
            args.push(v);
        }
        let site = self.site(m.span());
        let (op, ty) = if store {
            ("store4", Ty::Unit)
        } else {
            ("load4", four)
        };
        Ok(self.expr_of(
            ExprKind::Chunk4 {
                op,
                base,
                index: Box::new(index),
                site,
                args,
            },
            ty,
        ))
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

/// How a number method's types relate.
#[derive(Clone, Copy)]
enum MethodSig {
    /// Arguments and result have the receiver's type.
    Same,
    /// Result: the receiver's type; arguments i32 (`powi`).
    SameArgI32,
    /// Result: the receiver's type; arguments u32 (`pow`, rotations).
    SameArgU32,
    Bool,
    U32,
    ToF32,
    ToF64,
}

/// The prelude helper, signature shape and argument count of a number method.
fn method_sig(name: &str) -> Option<(&'static str, MethodSig, usize)> {
    use MethodSig::*;
    const SAME0: &[&str] = &[
        "abs",
        "sqrt",
        "cbrt",
        "exp",
        "exp2",
        "exp_m1",
        "ln",
        "ln_1p",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "floor",
        "ceil",
        "round",
        "round_ties_even",
        "trunc",
        "fract",
        "signum",
        "recip",
        "to_degrees",
        "to_radians",
        "reverse_bits",
        "swap_bytes",
        "wrapping_neg",
    ];
    const SAME1: &[&str] = &[
        "min",
        "max",
        "powf",
        "hypot",
        "atan2",
        "copysign",
        "log",
        "wrapping_add",
        "wrapping_sub",
        "wrapping_mul",
        "saturating_add",
        "saturating_sub",
        "rem_euclid",
        "div_euclid",
    ];
    const SAME2: &[&str] = &["mul_add", "clamp"];
    const BOOL0: &[&str] = &[
        "is_nan",
        "is_finite",
        "is_infinite",
        "is_sign_negative",
        "is_sign_positive",
        "is_positive",
        "is_negative",
        "is_power_of_two",
    ];
    const U32_0: &[&str] = &[
        "count_ones",
        "count_zeros",
        "leading_zeros",
        "trailing_zeros",
    ];
    let find = |list: &[&'static str]| list.iter().copied().find(|n| *n == name);
    if let Some(n) = find(SAME0) {
        return Some((n, Same, 0));
    }
    if let Some(n) = find(SAME1) {
        return Some((n, Same, 1));
    }
    if let Some(n) = find(SAME2) {
        return Some((n, Same, 2));
    }
    if let Some(n) = find(BOOL0) {
        return Some((n, Bool, 0));
    }
    if let Some(n) = find(U32_0) {
        return Some((n, U32, 0));
    }
    match name {
        "powi" => Some(("powi", SameArgI32, 1)),
        "pow" => Some(("pow", SameArgU32, 1)),
        "rotate_left" => Some(("rotate_left", SameArgU32, 1)),
        "rotate_right" => Some(("rotate_right", SameArgU32, 1)),
        "to_f32" => Some(("to_f32", ToF32, 0)),
        "to_f64" => Some(("to_f64", ToF64, 0)),
        _ => None,
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
