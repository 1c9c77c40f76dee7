//! The function as a whole: its signature (generics, parameters, return type), the entry
//! of its body, and the finished `Lowered`.

use super::types::prim_of;
use super::*;

impl Lower {
    /// Reads generics and parameters, declaring the parameters.
    pub fn signature(&mut self, sig: &syn::Signature) -> Result<(Vec<Param>, Vec<String>)> {
        let mut errors: Vec<Error> = Vec::new();
        let what = if self.kernel {
            "kernel"
        } else {
            "device function"
        };
        if let Some(c) = &sig.constness
            && self.kernel
        {
            errors.push(err(c, format!("a {what} cannot be `const`")));
        }
        if let Some(a) = &sig.asyncness {
            errors.push(err(a, format!("a {what} cannot be `async`")));
        }
        if let syn::Safety::Unsafe(u) = &sig.safety {
            errors.push(err(
                u,
                format!("a {what} cannot be `unsafe fn`; use `unsafe {{ }}` blocks inside it"),
            ));
        }
        if let Some(a) = &sig.abi {
            errors.push(err(a, format!("a {what} cannot have an `extern` ABI")));
        }
        if let Some(v) = &sig.variadic {
            errors.push(err(v, format!("a {what} cannot be variadic")));
        }
        let mut order = Vec::new();
        for gp in &sig.generics.params {
            match gp {
                syn::GenericParam::Type(t) => {
                    let name = self.check_ident(&t.ident)?;
                    if t.default.is_some() {
                        errors.push(err(t, "type parameter defaults are not supported"));
                    }
                    self.type_params.push(name.clone());
                    order.push(name);
                }
                syn::GenericParam::Const(c) => {
                    let name = self.check_ident(&c.ident)?;
                    match prim_of(&c.ty) {
                        Some(p) if p.is_int() || p == Prim::Bool => {
                            self.const_params.push((name.clone(), p));
                            order.push(name);
                        }
                        _ => errors.push(err(&c.ty, "a const generic parameter of a kernel must be an integer or bool")),
                    }
                }
                syn::GenericParam::Lifetime(l) => errors.push(err(
                    l,
                    format!("lifetime parameters are not supported on a {what}; write `&[T]` / `&mut [T]` without lifetimes"),
                )),
            }
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => match self.receiver(r) {
                    Ok(p) => params.push(p),
                    Err(e) => errors.push(e),
                },
                syn::FnArg::Typed(pt) => match self.param(pt) {
                    Ok(p) => params.push(p),
                    Err(e) => errors.push(e),
                },
            }
        }
        self.ret = match &sig.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) if self.kernel => {
                errors.push(err(
                    t,
                    "a kernel cannot return a value; write results into a `&mut [T]` parameter",
                ));
                Ty::Unit
            }
            syn::ReturnType::Type(_, t) => match self.ty(t) {
                Ok(t) => t,
                Err(e) => {
                    errors.push(e);
                    Ty::Unit
                }
            },
        };
        match errors.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            Some(e) => Err(e),
            None => Ok((params, order)),
        }
    }

    /// `self` / `&self` of a method of a device type: the value (C++ passes it by copy);
    /// `&mut self`: a C++ reference, so the method's writes reach the caller's place.
    fn receiver(&mut self, r: &syn::Receiver) -> Result<Param> {
        let Some(path) = self.self_ty.clone() else {
            return Err(err(
                r,
                "a device function cannot take `self` (methods go in an `impl` block of a device type with #[cuprum::device])",
            ));
        };
        let by_ref = match &r.kind {
            syn::ReceiverKind::Value | syn::ReceiverKind::Reference(_, _, None) => false,
            syn::ReceiverKind::Reference(_, _, Some(_)) => true,
            _ => {
                return Err(err(
                    r,
                    "this receiver is not supported in device methods; take `self`, `&self` or `&mut self`",
                ));
            }
        };
        let ty = self.user_type(&path)?;
        let var = self.declare("self", ty.clone());
        Ok(Param { var, ty, by_ref })
    }

    fn param(&mut self, pt: &syn::PatType) -> Result<Param> {
        let ident = match &*pt.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => &pi.ident,
            p => return Err(err(p, "parameters must be plain names (no patterns)")),
        };
        let name = self.check_ident(ident)?;
        let ty = match &*pt.ty {
            syn::Type::Reference(r) => {
                if let Some(l) = &r.lifetime {
                    return Err(err(
                        l,
                        "write slice parameters without lifetimes (`&[T]`, `&mut [T]`)",
                    ));
                }
                let elem = match &*r.elem {
                    syn::Type::Slice(s) => self.ty(&s.elem)?,
                    other => {
                        return Err(err(
                            other,
                            format!(
                                "`&{}` cannot be a parameter; use `&[T]`, `&mut [T]` or a scalar",
                                quote::quote!(#other)
                            ),
                        ));
                    }
                };
                if !matches!(elem, Ty::Prim(_) | Ty::Generic(_) | Ty::User(_)) {
                    return Err(err(
                        &r.elem,
                        "slice elements must be numbers, bool or device types",
                    ));
                }
                Ty::Slice {
                    elem: Box::new(elem),
                    mutable: r.mutability.is_some(),
                }
            }
            t => {
                let ty = self.ty(t).map_err(|_| {
                    err(t, format!(
                        "`{}` cannot be a parameter; use `&[T]`, `&mut [T]`, a scalar (bool, i8–i64, u8–u64, usize, f16, bf16, f32, f64, or a type parameter) or a device type",
                        quote::quote!(#t)
                    ))
                })?;
                if self.kernel && matches!(ty, Ty::Tuple(_)) {
                    return Err(err(
                        t,
                        "a kernel cannot take a tuple; pass its values as separate parameters",
                    ));
                }
                if self.kernel && matches!(ty, Ty::Array(..)) {
                    return Err(err(
                        t,
                        "a kernel cannot take an array by value; pass a slice (`&[T]`)",
                    ));
                }
                ty
            }
        };
        let var = self.declare(&name, ty.clone());
        Ok(Param {
            var,
            ty,
            by_ref: false,
        })
    }

    pub fn body(&mut self, block: &syn::Block) -> Result<Block> {
        let ret = self.ret.clone();
        let b = self.block(block)?;
        if let Some(t) = &b.tail {
            self.infer.unify(&t.ty, &ret);
        }
        Ok(b)
    }

    pub fn finish(
        self,
        name: String,
        params: Vec<Param>,
        generic_order: Vec<String>,
        body: Block,
    ) -> Lowered {
        let witnesses = self
            .witnesses
            .iter()
            .map(|w| w.as_ref().map(|t| self.infer.resolve(t)))
            .collect();
        Lowered {
            func: Func {
                name,
                kernel: self.kernel,
                const_params: self.const_params,
                generic_order,
                params,
                ret: self.ret,
                body,
                vars: self.vars,
                loops: self.loops,
                sites: self.sites,
                cooperative: self.cooperative,
            },
            infer: self.infer,
            deps: self.deps,
            types: self.types,
            witnesses,
        }
    }
}
