//! `#[cuprum::kernel]` and `#[cuprum::device]`: Rust functions translated to CUDA C++ at
//! compile time. Use them through `cuprum` (`cuprum::kernel`, `cuprum::device`); the
//! device API they translate is `cuprum::gpu`, the launch machinery `cuprum::kernel::jit`.
//!
//! The expansion of `#[cuprum::kernel] fn k(…) { … }`:
//! - a hidden *twin* `fn __cuprum_twin_k` with the same body, its slice parameters typed
//!   `cuprum::gpu::Slice<T>`: rustc type-checks the body there (type errors are rustc's, at
//!   the user's spans), and a witness after each `let` makes rustc confirm the type the
//!   translator chose for its C++ declaration;
//! - a module `k` with `SOURCE` (the `__global__` function's C++), `program()` and the typed
//!   `launch(config, args…)`.
//!
//! `#[cuprum::device] fn f(…)` stays an ordinary Rust function (slice parameters typed
//! `cuprum::gpu::Slice<T>`) and gains a hidden module `f` with its C++ for the kernels that
//! call it. Anything outside the accepted subset is a `compile_error!` at its span naming
//! what is not supported; the translator never panics on user input (a panic, a bug, would
//! be caught and reported as an internal error at the function).
//!
//! How it translates: `lower/` turns syn's AST into a typed IR (`ir.rs`), `emit/`
//! prints the IR as CUDA C++, `rust_out.rs` writes the twin, the witnesses and the launcher
//! module. The C++ is printed once, at compile time: no IR exists at run time, and the
//! source is a constant (`k::SOURCE`). rustc is the type checker; the macro infers types
//! only where the C++ needs them (declarations and literals, `ty.rs`). Each witness
//! (`gpu::__witness::<T>(&x)`) is placed where the binding's uses end, so that it checks
//! rustc's inference instead of steering it: the C++ cannot silently differ from the Rust.
//!
//! Tests: the translator's unit tests are `tests.rs` (`cargo test -p cuprum-macros`); the
//! expansion is tested end to end in `cuprum`'s tests (`jit_snapshots.rs`, `jit_ui.rs`,
//! `jit_nvrtc.rs`, `jit.rs`, `jit_faults.rs`).

mod derive;
mod derive_enum;
mod emit;
mod ir;
mod lower;
mod methods;
mod rust_out;
mod ty;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

/// Translates a Rust `fn` into a CUDA kernel with a typed launcher (see `cuprum::kernel`).
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    entry(true, attr.into(), item.into()).into()
}

/// Makes a Rust `fn` callable from kernels as a `__device__` function; it stays an
/// ordinary Rust function (see `cuprum::device`). On an `impl` block of a device type, its
/// methods become callable from kernels (`p.energy()`).
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    entry(false, attr.into(), item.into()).into()
}

/// Makes a `#[repr(C)]` struct usable in kernels and as an array element (see
/// `cuprum::DeviceType`).
#[proc_macro_derive(DeviceType)]
pub fn device_type(item: TokenStream) -> TokenStream {
    let d: syn::DeriveInput = match syn::parse2(item.into()) {
        Ok(d) => d,
        Err(e) => return e.to_compile_error().into(),
    };
    match &d.data {
        syn::Data::Enum(e) => derive_enum::device_type(&d, e).into(),
        _ => derive::device_type(&d).into(),
    }
}

fn entry(kernel: bool, attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| expand(kernel, attr, item)));
    r.unwrap_or_else(|_| {
        rust_out::internal_error(
            "internal error in cuprum's kernel translator (a bug: please report it with this function)",
        )
    })
}

/// The expansion, as tokens (errors included).
pub(crate) fn expand(kernel: bool, attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let what = if kernel { "kernel" } else { "device" };
    if !attr.is_empty() {
        let e = syn::Error::new_spanned(&attr, format!("#[cuprum::{what}] takes no arguments"));
        let e = e.to_compile_error();
        return quote!(#e #item);
    }
    if !kernel && let Ok(c) = syn::parse2::<syn::ItemConst>(item.clone()) {
        return device_const(&c);
    }
    let f: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) if !kernel && syn::parse2::<syn::ItemImpl>(item.clone()).is_ok() => {
            return match syn::parse2::<syn::ItemImpl>(item) {
                Ok(i) => methods::expand_impl(&i),
                Err(e) => e.to_compile_error(),
            };
        }
        Err(_) => {
            let msg = if kernel {
                "#[cuprum::kernel] applies to a `fn` item"
            } else {
                "#[cuprum::device] applies to a `fn` or `const` item"
            };
            return syn::Error::new_spanned(&item, msg).to_compile_error();
        }
    };
    match translate(kernel, &f) {
        Ok(t) => t.rust,
        Err((errors, fallback)) => {
            let e = rust_out::errors(errors);
            quote!(#e #fallback)
        }
    }
}

/// `#[cuprum::device] const NAME: T = value;`: the item stays, and its C++ is the device
/// function `NAME()` returning the translated value (see `lower/consts.rs`).
fn device_const(c: &syn::ItemConst) -> TokenStream2 {
    let (ident, ty, expr, vis) = (&c.ident, &c.ty, &c.expr, &c.vis);
    if !c.generics.params.is_empty() {
        let e = syn::Error::new_spanned(&c.generics, "a device constant cannot be generic");
        let e = e.to_compile_error();
        return quote!(#e #c);
    }
    let attrs = c.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    let f: syn::ItemFn = syn::parse_quote_spanned! {ident.span()=>
        #(#attrs)*
        #vis fn #ident() -> #ty { #expr }
    };
    match translate_item(false, &f, false) {
        Ok(t) => {
            let items = t.rust;
            quote!(#c #items)
        }
        Err((errors, _)) => {
            let e = rust_out::errors(errors);
            quote!(#e #c)
        }
    }
}

/// A successful translation: the C++ and the Rust items.
pub(crate) struct Translated {
    #[allow(dead_code)]
    pub source: String,
    pub rust: TokenStream2,
}

/// Translates `f`; on errors returns them with what still helps rustc (the twin or host
/// function, and for kernels a launcher) so that the user sees few follow-on errors.
pub(crate) fn translate(
    kernel: bool,
    f: &syn::ItemFn,
) -> Result<Translated, (syn::Error, TokenStream2)> {
    translate_item(kernel, f, true)
}

/// [`translate`]; `host_fn: false` leaves out a device function's host function (a
/// device constant keeps its own `const` item instead).
fn translate_item(
    kernel: bool,
    f: &syn::ItemFn,
    host_fn: bool,
) -> Result<Translated, (syn::Error, TokenStream2)> {
    let mut lower = lower::Lower::new(kernel);
    let (params, order) = match lower.signature(&f.sig) {
        Ok(x) => x,
        Err(e) => return Err((e, TokenStream2::new())),
    };
    let name = f.sig.ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
    let fallback = |f: &syn::ItemFn| -> TokenStream2 {
        if kernel {
            rust_out::kernel_items(rust_out::KernelParts {
                f,
                source: "",
                sites: &[],
                deps: &[],
                types: &[],
                cooperative: false,
                witnesses: None,
            })
        } else {
            rust_out::device_items(rust_out::DeviceParts {
                f,
                source: "",
                prototype: "",
                sites: &[],
                deps: &[],
                types: &[],
                cooperative: false,
                witnesses: None,
                host_fn,
            })
        }
    };
    if name.starts_with("cj_") {
        let e = syn::Error::new_spanned(
            &f.sig.ident,
            "names starting with `cj_` are reserved by cuprum's kernel translator; rename the function",
        );
        return Err((e, TokenStream2::new()));
    }
    let body = match lower.body(&f.block) {
        Ok(b) => b,
        Err(e) => return Err((e, fallback(f))),
    };
    let lowered = lower.finish(name, params, order, body);
    let (source, prototype, errs) = emit::Emitter::new(&lowered.func, &lowered.infer).function();
    if let Some(e) = errs.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err((e, fallback(f)));
    }
    let rust = if kernel {
        rust_out::kernel_items(rust_out::KernelParts {
            f,
            source: &source,
            sites: &lowered.func.sites,
            deps: &lowered.deps,
            types: &lowered.types,
            cooperative: lowered.func.cooperative,
            witnesses: Some(&lowered.witnesses),
        })
    } else {
        rust_out::device_items(rust_out::DeviceParts {
            f,
            source: &source,
            prototype: &prototype,
            sites: &lowered.func.sites,
            deps: &lowered.deps,
            types: &lowered.types,
            cooperative: lowered.func.cooperative,
            witnesses: Some(&lowered.witnesses),
            host_fn,
        })
    };
    Ok(Translated { source, rust })
}

#[cfg(test)]
mod tests;
