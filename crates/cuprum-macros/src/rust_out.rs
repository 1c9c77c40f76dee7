//! The Rust the attributes expand to: the host twin rustc type-checks (kernels) or the
//! host function (device functions), the `let` witnesses, the launcher module and the
//! definitions the runtime assembles programs from.

use crate::ty::{Len, Prim, Ty};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// `&[T]` → `&::cuprum::gpu::Slice<T>`, `&mut [T]` → `&mut ::cuprum::gpu::Slice<T>`.
pub fn rewrite_param_types(sig: &mut syn::Signature) {
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = input
            && let syn::Type::Reference(r) = &mut *pt.ty
            && let syn::Type::Slice(s) = &*r.elem
        {
            let elem = &s.elem;
            let span = s.bracket_token.span.join();
            *r.elem = syn::Type::Verbatim(quote_spanned!(span=> ::cuprum::gpu::Slice<#elem>));
        }
    }
}

/// The Rust type of a witness (what the translator knows exactly), as tokens.
fn rust_type_tokens(t: &Ty) -> Option<TokenStream> {
    match t {
        Ty::Prim(Prim::F16) => Some(quote!(::cuprum::gpu::f16)),
        Ty::Prim(Prim::Bf16) => Some(quote!(::cuprum::gpu::bf16)),
        Ty::Prim(p) => {
            let id = proc_macro2::Ident::new(p.rust(), Span::call_site());
            Some(quote!(#id))
        }
        Ty::Generic(n) => {
            let id = proc_macro2::Ident::new(n, Span::call_site());
            Some(quote!(#id))
        }
        Ty::Array(e, Len::Lit(n)) => {
            let e = rust_type_tokens(e)?;
            let n = proc_macro2::Literal::u64_unsuffixed(*n);
            Some(quote!([#e; #n]))
        }
        Ty::Tuple(ts) => {
            let ts = ts
                .iter()
                .map(rust_type_tokens)
                .collect::<Option<Vec<_>>>()?;
            Some(quote!((#(#ts,)*)))
        }
        _ => None,
    }
}

/// Inserts `::cuprum::gpu::__witness::<T>(&x);` after every `let x` the translator typed.
pub fn insert_witnesses(block: &mut syn::Block, witnesses: &[Option<Ty>]) {
    let mut w = Witness { witnesses, next: 0 };
    w.block(block);
}

struct Witness<'a> {
    witnesses: &'a [Option<Ty>],
    next: usize,
}

impl Witness<'_> {
    /// Each witness goes where its binding's uses are over, so that it checks rustc's
    /// inference instead of steering it: before a `let` that shadows the name, else at the
    /// end of the block (the block's value is kept in a temporary first).
    fn block(&mut self, b: &mut syn::Block) {
        let stmts = std::mem::take(&mut b.stmts);
        let n = stmts.len();
        let mut pending: Vec<(syn::Ident, syn::Stmt)> = Vec::new();
        let mut tail = None;
        for (k, mut s) in stmts.into_iter().enumerate() {
            match &mut s {
                syn::Stmt::Local(l) => {
                    let id = self.next;
                    self.next += 1;
                    if let Some(init) = &mut l.init {
                        self.expr(&mut init.expr);
                    }
                    let ident = match &l.pat {
                        syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                        syn::Pat::Type(pt) => match &*pt.pat {
                            syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(ident) = &ident {
                        // The shadowed binding's uses are over (but for this initialiser).
                        let (done, keep): (Vec<_>, Vec<_>) =
                            pending.drain(..).partition(|(i, _)| i == ident);
                        pending = keep;
                        b.stmts.extend(done.into_iter().map(|(_, w)| w));
                    }
                    if let (Some(ident), Some(Some(t))) = (ident, self.witnesses.get(id))
                        && let Some(ty) = rust_type_tokens(t)
                    {
                        let span = ident.span();
                        let w = syn::Stmt::Expr(
                            syn::Expr::Verbatim(
                                quote_spanned!(span=> ::cuprum::gpu::__witness::<#ty>(&#ident)),
                            ),
                            Some(syn::Token![;](span)),
                        );
                        pending.push((ident, w));
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    self.expr(e);
                    if semi.is_none() && k + 1 == n {
                        tail = Some(s);
                        continue;
                    }
                }
                _ => {}
            }
            b.stmts.push(s);
        }
        if pending.is_empty() {
            b.stmts.extend(tail);
            return;
        }
        match tail {
            Some(syn::Stmt::Expr(e, _)) => {
                let span = proc_macro2::Span::call_site();
                b.stmts.push(syn::Stmt::Expr(
                    syn::Expr::Verbatim(quote_spanned!(span=> let __cj_value = #e)),
                    Some(syn::Token![;](span)),
                ));
                b.stmts.extend(pending.into_iter().map(|(_, w)| w));
                b.stmts.push(syn::Stmt::Expr(
                    syn::Expr::Verbatim(quote_spanned!(span=> __cj_value)),
                    None,
                ));
            }
            _ => b.stmts.extend(pending.into_iter().map(|(_, w)| w)),
        }
    }

    fn expr(&mut self, e: &mut syn::Expr) {
        use syn::Expr as E;
        match e {
            E::Binary(b) => {
                self.expr(&mut b.left);
                self.expr(&mut b.right);
            }
            E::Assign(a) => {
                self.expr(&mut a.left);
                self.expr(&mut a.right);
            }
            E::Unary(u) => self.expr(&mut u.expr),
            E::Paren(p) => self.expr(&mut p.expr),
            E::Group(g) => self.expr(&mut g.expr),
            E::Cast(c) => self.expr(&mut c.expr),
            E::If(i) => {
                self.expr(&mut i.cond);
                self.block(&mut i.then_branch);
                if let Some((_, e)) = &mut i.else_branch {
                    self.expr(e);
                }
            }
            E::Block(b) => self.block(&mut b.block),
            E::Unsafe(u) => self.block(&mut u.block),
            E::While(w) => {
                self.expr(&mut w.cond);
                self.block(&mut w.body);
            }
            E::Loop(l) => self.block(&mut l.body),
            E::ForLoop(f) => {
                self.expr(&mut f.expr);
                self.block(&mut f.body);
            }
            E::Range(r) => {
                if let Some(s) = &mut r.start {
                    self.expr(s);
                }
                if let Some(s) = &mut r.end {
                    self.expr(s);
                }
            }
            E::Index(i) => {
                self.expr(&mut i.expr);
                self.expr(&mut i.index);
            }
            E::Field(f) => self.expr(&mut f.base),
            E::Call(c) => {
                for a in c.args.iter_mut() {
                    self.expr(a);
                }
            }
            E::MethodCall(m) => {
                self.expr(&mut m.receiver);
                for a in m.args.iter_mut() {
                    self.expr(a);
                }
            }
            E::Array(a) => {
                for x in a.elems.iter_mut() {
                    self.expr(x);
                }
            }
            E::Repeat(r) => self.expr(&mut r.expr),
            E::Tuple(t) => {
                for x in t.elems.iter_mut() {
                    self.expr(x);
                }
            }
            E::Match(m) => {
                self.expr(&mut m.expr);
                for a in m.arms.iter_mut() {
                    if let syn::Pat::Guard(g) = &mut a.pat {
                        self.expr(&mut g.guard);
                    }
                    self.expr(&mut a.body);
                }
            }
            E::Return(r) => {
                if let Some(x) = &mut r.expr {
                    self.expr(x);
                }
            }
            _ => {}
        }
    }
}

/// The path of a dependency's definition, seen from inside the generated module (one level
/// below the user's scope): `foo` → `foo::__CUPRUM_DEVICE_FN` (through `use super::*`),
/// `self::foo` → `super::foo::…`, `super::foo` → `super::super::foo::…`.
pub fn dep_path(p: &syn::Path) -> TokenStream {
    let mut segs: Vec<TokenStream> = Vec::new();
    let mut iter = p.segments.iter().peekable();
    if let Some(first) = iter.peek()
        && p.leading_colon.is_none()
    {
        if first.ident == "self" {
            iter.next();
            segs.push(quote!(super));
        } else if first.ident == "super" {
            segs.push(quote!(super));
        }
    }
    for s in iter {
        let id = &s.ident;
        segs.push(quote!(#id));
    }
    let lead = p.leading_colon.map(|_| quote!(::));
    // A method's definition is an associated const of its type (`Particle::__CUPRUM_DEVICE_FN_energy`).
    if p.segments
        .last()
        .is_some_and(|s| s.ident.to_string().starts_with("__CUPRUM_DEVICE_FN"))
    {
        return quote!(#lead #(#segs)::*);
    }
    quote!(#lead #(#segs)::* :: __CUPRUM_DEVICE_FN)
}

/// A dependency's definition seen from the user's own scope (a method's definition const
/// lives in an `impl` block there, not in a generated module).
pub fn dep_path_here(p: &syn::Path) -> TokenStream {
    let last = p
        .segments
        .last()
        .is_some_and(|s| s.ident.to_string().starts_with("__CUPRUM_DEVICE_FN"));
    if last {
        quote!(#p)
    } else {
        quote!(#p :: __CUPRUM_DEVICE_FN)
    }
}

/// `types_tokens` for code in the user's own scope.
pub fn types_tokens_here(types: &[syn::Path]) -> TokenStream {
    type_uses(types, |p| quote!(#p))
}

/// A device type's path seen from inside the generated module (as `dep_path`).
fn type_path(p: &syn::Path) -> TokenStream {
    let mut segs: Vec<TokenStream> = Vec::new();
    let mut iter = p.segments.iter().peekable();
    if let Some(first) = iter.peek()
        && p.leading_colon.is_none()
    {
        if first.ident == "self" {
            iter.next();
            segs.push(quote!(super));
        } else if first.ident == "super" {
            segs.push(quote!(super));
        }
    }
    for s in iter {
        let id = &s.ident;
        segs.push(quote!(#id));
    }
    let lead = p.leading_colon.map(|_| quote!(::));
    quote!(#lead #(#segs)::*)
}

/// `&[TypeUse::new(…), …]`: the device types a function names, for its program.
fn types_tokens(types: &[syn::Path]) -> TokenStream {
    type_uses(types, type_path)
}

fn type_uses(types: &[syn::Path], at: impl Fn(&syn::Path) -> TokenStream) -> TokenStream {
    let items = types.iter().map(|p| {
        let written = p
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let written = written.trim_start_matches("r#").to_string();
        let t = at(p);
        quote! {
            ::cuprum::kernel::jit::TypeUse::new(
                #written,
                <#t as ::cuprum::DeviceType>::CPP_NAME,
                <#t as ::cuprum::DeviceField>::declare,
            )
        }
    });
    quote!(&[#(#items),*])
}

fn sites_tokens(sites: &[(u32, u32)]) -> TokenStream {
    let items = sites.iter().map(|(l, c)| quote!((#l, #c)));
    quote!(&[#(#items),*])
}

/// Splits doc attributes (they go to the generated module) from the others.
fn split_docs(attrs: &[syn::Attribute]) -> (Vec<&syn::Attribute>, Vec<&syn::Attribute>) {
    attrs.iter().partition(|a| a.path().is_ident("doc"))
}

/// The `cfg` / `cfg_attr` attributes: every generated item keeps them.
fn cfgs(attrs: &[syn::Attribute]) -> Vec<&syn::Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        .collect()
}

pub struct KernelParts<'a> {
    pub f: &'a syn::ItemFn,
    pub source: &'a str,
    pub sites: &'a [(u32, u32)],
    pub deps: &'a [syn::Path],
    pub types: &'a [syn::Path],
    pub cooperative: bool,
    pub witnesses: Option<&'a [Option<Ty>]>,
}

/// Everything `#[cuprum::kernel]` expands to.
pub fn kernel_items(k: KernelParts<'_>) -> TokenStream {
    let f = k.f;
    let name = &f.sig.ident;
    let name_str = name.to_string();
    let vis = &f.vis;
    let (docs, other_attrs) = split_docs(&f.attrs);

    // The twin rustc type-checks (none when the translation failed: its errors would
    // repeat the translator's).
    let twin = k.witnesses.map(|w| {
        let mut twin = f.clone();
        twin.attrs = other_attrs.iter().copied().cloned().collect();
        twin.vis = syn::Visibility::Inherited;
        twin.sig.ident = format_ident!("__cuprum_twin_{}", name);
        rewrite_param_types(&mut twin.sig);
        insert_witnesses(&mut twin.block, w);
        quote! {
            #[allow(dead_code, unreachable_code, clippy::all)]
            #[doc(hidden)]
            #twin
        }
    });

    // The launcher.
    let generics = &f.sig.generics;
    let type_params: Vec<&syn::Ident> = generics.type_params().map(|t| &t.ident).collect();
    let const_params: Vec<&syn::Ident> = generics.const_params().map(|c| &c.ident).collect();
    let gen_params = generics.params.iter();
    let mut where_preds: Vec<TokenStream> = generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter().map(|p| quote!(#p)))
        .collect();
    for t in &type_params {
        where_preds.push(quote!(#t: ::cuprum::gpu::Scalar));
    }
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let id = &pi.ident;
        let id_str = id.to_string();
        match &*pt.ty {
            syn::Type::Reference(r) => {
                let syn::Type::Slice(s) = &*r.elem else {
                    continue;
                };
                let elem = &s.elem;
                if r.mutability.is_some() {
                    params.push(quote!(#id: &mut ::cuprum::Array));
                    pushes.push(quote!(__cj.slice_mut::<#elem>(#id_str, #id)?;));
                } else {
                    params.push(quote!(#id: &::cuprum::Array));
                    pushes.push(quote!(__cj.slice::<#elem>(#id_str, #id)?;));
                }
            }
            t => {
                params.push(quote!(#id: #t));
                pushes.push(quote!(__cj.scalar(#id);));
            }
        }
    }
    let mut keys = Vec::new();
    let mut names = Vec::new();
    for g in &generics.params {
        match g {
            syn::GenericParam::Type(t) => {
                let id = &t.ident;
                keys.push(quote!(<#id as ::cuprum::gpu::Scalar>::KEY));
                names.push(quote!(::std::string::ToString::to_string(<#id as ::cuprum::gpu::Scalar>::CUDA_NAME)));
            }
            syn::GenericParam::Const(c) => {
                let id = &c.ident;
                keys.push(quote!((#id as u64)));
                names.push(quote!(::std::string::ToString::to_string(&#id)));
            }
            syn::GenericParam::Lifetime(_) => {}
        }
    }
    let generic = !type_params.is_empty() || !const_params.is_empty();
    let deps = k.deps.iter().map(|d| {
        let p = dep_path(d);
        quote!(&#p)
    });
    let sites = sites_tokens(k.sites);
    let types = types_tokens(k.types);
    let source = k.source;
    let cooperative = k.cooperative;
    let sig_text = signature_text(f);
    let launch_doc = format!(
        "Launches the kernel `{name_str}` on the configuration's stream (the current one by default).\n\n\
         Arguments: {sig_text}. A `&[T]` parameter takes a `&cuprum::Array` of that dtype (a \
         record dtype for a device type), a `&mut [T]` parameter a `&mut cuprum::Array`; each must be C-contiguous and on the \
         launching device, and no `&mut` argument may share memory with another argument. \
         The first launch (per device{}) compiles the program through the kernel cache.",
        if generic { " and instantiation" } else { "" }
    );
    let mod_doc = if docs.is_empty() {
        let d = format!(
            "The `#[cuprum::kernel]` `{name_str}`: [`launch`](self::launch) runs it, [`SOURCE`](self::SOURCE) is its CUDA C++."
        );
        quote!(#[doc = #d])
    } else {
        quote!(#(#docs)*)
    };
    let cfg = cfgs(&f.attrs);
    quote! {
        #twin

        #mod_doc
        #(#cfg)*
        #vis mod #name {
            #[allow(unused_imports)]
            use super::*;

            /// The kernel's CUDA C++ (its `__global__` function), generated at compile time
            /// from the Rust body; [`program`](self::program) is everything NVRTC compiles.
            pub const SOURCE: &str = #source;

            #[doc(hidden)]
            pub static __CUPRUM_KERNEL: ::cuprum::kernel::jit::KernelDef = ::cuprum::kernel::jit::KernelDef::new(
                #name_str,
                SOURCE,
                ::core::file!(),
                #sites,
                &[#(#deps),*],
                #types,
                #generic,
                #cooperative,
            );

            /// The whole program NVRTC compiles for this kernel: cuprum's prelude, the device
            /// functions it calls, and [`SOURCE`](self::SOURCE).
            pub fn program() -> &'static str {
                __CUPRUM_KERNEL.program()
            }

            #[doc = #launch_doc]
            #[allow(
                clippy::too_many_arguments,
                clippy::needless_lifetimes,
                clippy::multiple_bound_locations
            )]
            pub fn launch<'cj, #(#gen_params),*>(
                __cj_config: impl ::core::convert::Into<::cuprum::kernel::JitConfig<'cj>>,
                #(#params),*
            ) -> ::cuprum::Result<()>
            where #(#where_preds,)*
            {
                let mut __cj = ::cuprum::kernel::jit::Launcher::new(&__CUPRUM_KERNEL, __cj_config.into())?;
                #(#pushes)*
                __cj.launch(::core::cfg!(debug_assertions), &[#(#keys),*], &|| ::std::vec![#(#names),*])
            }
        }
    }
}

/// `(out: &mut [i64], n: i32)` as text, for the launcher's docs.
fn signature_text(f: &syn::ItemFn) -> String {
    let parts: Vec<String> = f
        .sig
        .inputs
        .iter()
        .map(|i| {
            quote!(#i)
                .to_string()
                .replace(" : ", ": ")
                .replace("& mut ", "&mut ")
                .replace("& [", "&[")
                .replace(" [", "[")
        })
        .collect();
    format!("`({})`", parts.join(", "))
}

pub struct DeviceParts<'a> {
    pub f: &'a syn::ItemFn,
    pub source: &'a str,
    pub prototype: &'a str,
    pub sites: &'a [(u32, u32)],
    pub deps: &'a [syn::Path],
    pub types: &'a [syn::Path],
    pub cooperative: bool,
    pub witnesses: Option<&'a [Option<Ty>]>,
    /// Keep the host function (a device constant keeps its `const` item instead).
    pub host_fn: bool,
}

/// Everything `#[cuprum::device]` expands to: the host function and its definition.
pub fn device_items(d: DeviceParts<'_>) -> TokenStream {
    let f = d.f;
    let name = &f.sig.ident;
    let name_str = name.to_string();
    let vis = &f.vis;
    let mut host = f.clone();
    // Clippy's suggestions (iterators, slices patterns) assume all of Rust; a device
    // function is kept to the kernel subset, which the translator checks.
    host.attrs.push(syn::parse_quote!(#[allow(clippy::all)]));
    rewrite_param_types(&mut host.sig);
    match d.witnesses {
        Some(w) => {
            host.attrs
                .push(syn::parse_quote!(#[allow(unreachable_code)]));
            insert_witnesses(&mut host.block, w);
        }
        None => {
            // The translation failed: keep the function callable, without repeating the
            // translator's errors as rustc's.
            host.attrs
                .push(syn::parse_quote!(#[allow(unused_variables, unreachable_code)]));
            *host.block = syn::parse_quote!({ ::core::unreachable!() });
        }
    }
    let deps = d.deps.iter().map(|p| {
        let p = dep_path(p);
        quote!(&#p)
    });
    let sites = sites_tokens(d.sites);
    let types = types_tokens(d.types);
    let (source, prototype, cooperative) = (d.source, d.prototype, d.cooperative);
    let doc = format!("The CUDA C++ of the `#[cuprum::device]` function `{name_str}`.");
    let cfg = cfgs(&f.attrs);
    let host = d.host_fn.then_some(host);
    quote! {
        #host

        #[doc(hidden)]
        #[allow(non_snake_case)]
        #(#cfg)*
        #vis mod #name {
            #[allow(unused_imports)]
            use super::*;

            #[doc = #doc]
            pub const SOURCE: &str = #source;

            #[doc(hidden)]
            pub static __CUPRUM_DEVICE_FN: ::cuprum::kernel::jit::DeviceFnDef = ::cuprum::kernel::jit::DeviceFnDef::new(
                #name_str,
                SOURCE,
                #prototype,
                ::core::file!(),
                #sites,
                &[#(#deps),*],
                #types,
                #cooperative,
            );
        }
    }
}

/// A `compile_error!` for each error, at its span.
pub fn errors(e: syn::Error) -> TokenStream {
    e.to_compile_error()
}

/// A bare `compile_error!` at the call site.
pub fn internal_error(msg: &str) -> TokenStream {
    quote_spanned!(Span::call_site()=> ::core::compile_error!(#msg);)
}
