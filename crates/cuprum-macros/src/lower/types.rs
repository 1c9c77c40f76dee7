//! Types as the source writes them (signatures, `let` annotations, casts, turbofishes)
//! and array lengths: a literal or a const generic parameter.

use super::*;

/// The primitive a `syn::Type` names, if it is one.
pub fn prim_of(ty: &syn::Type) -> Option<Prim> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last()?;
            if !seg.arguments.is_none() {
                return None;
            }
            let name = seg.ident.to_string();
            // `f16`, `half::f16`, `cuprum::gpu::f16`, `i32`, `core::primitive::i32`.
            Prim::from_name(&name)
        }
        syn::Type::Group(g) => prim_of(&g.elem),
        syn::Type::Paren(p) => prim_of(&p.elem),
        _ => None,
    }
}

impl Lower {
    /// A type in a `let`, a cast, a turbofish or a signature.
    pub fn ty(&mut self, t: &syn::Type) -> Result<Ty> {
        match t {
            syn::Type::Group(g) => self.ty(&g.elem),
            syn::Type::Paren(p) => self.ty(&p.elem),
            syn::Type::Path(p) if p.qself.is_none() => {
                if let Some(pr) = prim_of(t) {
                    return Ok(Ty::Prim(pr));
                }
                if let Some(id) = p.path.get_ident() {
                    let name = id.to_string();
                    if self.type_params.contains(&name) {
                        return Ok(Ty::Generic(name));
                    }
                }
                self.user_type(&p.path)
            }
            syn::Type::Array(a) => {
                let elem = self.ty(&a.elem)?;
                if !matches!(elem, Ty::Prim(_) | Ty::Generic(_) | Ty::User(_)) {
                    return Err(err(
                        &a.elem,
                        "array elements must be numbers, bool or device types (no nested arrays)",
                    ));
                }
                Ok(Ty::Array(Box::new(elem), self.len(&a.len)?))
            }
            syn::Type::Reference(_) | syn::Type::Slice(_) => Err(err(
                t,
                "references and slices can only be parameters (`&[T]`, `&mut [T]`)",
            )),
            syn::Type::Tuple(tt) if tt.elems.is_empty() => Ok(Ty::Unit),
            syn::Type::Tuple(tt) if tt.elems.len() <= crate::ty::MAX_TUPLE => {
                let mut ts = Vec::new();
                for e in &tt.elems {
                    ts.push(self.ty(e)?);
                }
                Ok(Ty::Tuple(ts))
            }
            _ => Err(err(
                t,
                format!(
                    "the type `{}` is not supported in kernels",
                    quote::quote!(#t)
                ),
            )),
        }
    }

    /// A device type named by `path` (`Particle`, `shapes::Particle`): its C++ name is the
    /// last segment; the kernel's program gets its declaration through the path.
    pub(super) fn user_type(&mut self, path: &syn::Path) -> Result<Ty> {
        if path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(err(
                path,
                format!(
                    "the type `{}` is not supported in kernels (generic types cannot be device types)",
                    quote::quote!(#path)
                ),
            ));
        }
        let last = path
            .segments
            .last()
            .ok_or_else(|| err(path, "empty type path"))?;
        let name = last.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
        if name == "Self" && path.segments.len() == 1 {
            return match self.self_ty.clone() {
                Some(p) => self.user_type(&p),
                None => Err(err(
                    path,
                    "`Self` is only supported in `impl` blocks of device types",
                )),
            };
        }
        if is_reserved(&name) || name.starts_with("cj_") {
            return Err(err(
                path,
                format!(
                    "the type `{name}` cannot be named in kernels (a C++ keyword or a name cuprum's generated C++ uses)"
                ),
            ));
        }
        let key = quote::quote!(#path).to_string();
        if !self
            .types
            .iter()
            .any(|t| quote::quote!(#t).to_string() == key)
        {
            self.types.push(path.clone());
        }
        Ok(Ty::User(name))
    }

    /// An array length or a const generic argument: a literal or a const parameter.
    pub(super) fn len(&self, e: &syn::Expr) -> Result<Len> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i
                .base10_parse::<u64>()
                .map(Len::Lit)
                .map_err(|_| err(i, "array length out of range")),
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.segments[0].ident.to_string();
                if self.const_params.iter().any(|c| c.0 == name) {
                    Ok(Len::Param(name))
                } else {
                    Err(err(
                        e,
                        format!(
                            "`{name}` is not a const generic parameter; a length must be a literal or a const generic of the kernel"
                        ),
                    ))
                }
            }
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.len(inner),
                _ => Err(err(
                    e,
                    "a length must be a literal or a const generic parameter",
                )),
            },
            _ => Err(err(
                e,
                "a length must be a literal or a const generic parameter",
            )),
        }
    }
}
