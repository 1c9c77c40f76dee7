//! `#[cuprum::device]` on an `impl` block of a device type: each method (`self` or
//! `&self`, by copy in C++; `&mut self`, a C++ reference `Type& self`) becomes the
//! `__device__` function `cj_dev::cj_m_Type_method`, and the block stays ordinary Rust.
//! A call passes its receiver as the place it names (a variable, a slice element), or, for
//! a temporary, through `cj::lv`, an lvalue living to the end of the statement as Rust's
//! temporary does; the kernel cannot see whether the method takes `&mut self`, so every
//! receiver is passed so, and `decltype` names results with lvalue arguments. Each method's definition is an associated const of
//! the type (`Type::__CUPRUM_DEVICE_FN_method`): a kernel calling `p.method()` names it
//! through the type's path, as it names a device function through the function's.

use crate::{emit, lower, rust_out};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

fn err(span: impl syn::spanned::Spanned, msg: &str) -> syn::Error {
    syn::Error::new(span.span(), msg)
}

/// The expansion of `#[cuprum::device] impl Type { … }`.
pub fn expand_impl(i: &syn::ItemImpl) -> TokenStream {
    match expand(i) {
        Ok(t) => t,
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #i)
        }
    }
}

fn expand(i: &syn::ItemImpl) -> syn::Result<TokenStream> {
    if let Some((t, _)) = &i.trait_ {
        return Err(err(
            t,
            "#[cuprum::device] applies to inherent `impl` blocks of device types, not trait impls",
        ));
    }
    if !i.generics.params.is_empty() {
        return Err(err(
            &i.generics,
            "a device type's `impl` block cannot be generic",
        ));
    }
    let path = match &*i.self_ty {
        syn::Type::Path(p)
            if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            p.path.clone()
        }
        t => {
            return Err(err(
                t,
                "#[cuprum::device] applies to `impl` blocks of device types (`impl Particle { … }`)",
            ));
        }
    };
    let type_name = path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let mut block = i.clone();
    let mut defs = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for item in block.items.iter_mut() {
        let syn::ImplItem::Fn(m) = item else {
            let e = err(
                &*item,
                "only methods are supported in a #[cuprum::device] `impl` block",
            );
            match &mut errors {
                Some(a) => a.combine(e),
                None => errors = Some(e),
            }
            continue;
        };
        match method(m, &path, &type_name) {
            Ok(def) => defs.push(def),
            Err(e) => match &mut errors {
                Some(a) => a.combine(e),
                None => errors = Some(e),
            },
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let ty = &i.self_ty;
    Ok(quote! {
        #block

        impl #ty {
            #(#defs)*
        }
    })
}

/// Translates one method; rewrites it in place (slice parameters, witnesses) and returns
/// its definition const.
fn method(m: &mut syn::ImplItemFn, path: &syn::Path, type_name: &str) -> syn::Result<TokenStream> {
    let f = syn::ItemFn {
        attrs: m.attrs.clone(),
        vis: m.vis.clone(),
        modifiers: m.modifiers.clone(),
        sig: m.sig.clone(),
        block: Box::new(m.block.clone()),
    };
    let mut l = lower::Lower::for_method(path.clone());
    let (params, order) = l.signature(&f.sig)?;
    let body = l.body(&f.block)?;
    let method_name = f.sig.ident.to_string();
    let cpp = lower::method_cpp_name(type_name, &method_name);
    let lowered = l.finish(cpp, params, order, body);
    let (source, prototype, errs) = emit::Emitter::new(&lowered.func, &lowered.infer).function();
    if let Some(e) = errs.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err(e);
    }
    rust_out::rewrite_param_types(&mut m.sig);
    m.attrs
        .push(syn::parse_quote!(#[allow(clippy::all, unreachable_code)]));
    rust_out::insert_witnesses(&mut m.block, &lowered.witnesses);
    let konst = format_ident!(
        "__CUPRUM_DEVICE_FN_{}",
        method_name.trim_start_matches("r#")
    );
    let shown = format!("{type_name}::{}", method_name.trim_start_matches("r#"));
    let deps = lowered.deps.iter().map(|d| {
        let p = rust_out::dep_path_here(d);
        quote!(&#p)
    });
    let types = rust_out::types_tokens_here(&lowered.types);
    let sites = lowered.func.sites.iter().map(|(l, c)| quote!((#l, #c)));
    let cooperative = lowered.func.cooperative;
    Ok(quote! {
        #[doc(hidden)]
        pub const #konst: ::cuprum::kernel::jit::DeviceFnDef = ::cuprum::kernel::jit::DeviceFnDef::new(
            #shown,
            #source,
            #prototype,
            ::core::file!(),
            &[#(#sites),*],
            &[#(#deps),*],
            #types,
            #cooperative,
        );
    })
}
