//! `#[derive(DeviceType)]` on enums: `#[repr(u8)]` (or another integer) enums, field-less or
//! carrying data. Rust lays such an enum out as a union of `#[repr(C)]` structs, each the
//! tag followed by the variant's fields (RFC 2195); the C++ declaration is exactly that:
//!
//! ```text
//! struct Shape_Circle { unsigned char tag; float r; };
//! struct Shape {
//!     enum : unsigned char { tag_Circle = 0, tag_Square = 1 };
//!     union { unsigned char tag; Shape_Circle Circle; Shape_Square Square; };
//! };
//! ```
//!
//! Kernels test `s.tag == Shape::tag_Circle` and read `s.Circle.r` (tuple variants' fields
//! are `f0`, `f1` …). Discriminants must be integer literals (or implicit); bytes read back
//! are checked: the tag must be a variant's and each field valid. Size and alignment are
//! `static_assert`ed in C++, and a Rust const assertion checks the size against the C rules.

use crate::derive::{ImplParts, check_field_type, device_impls, err, reserved};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

const INT_REPRS: &[(&str, &str)] = &[
    ("u8", "unsigned char"),
    ("i8", "signed char"),
    ("u16", "unsigned short"),
    ("i16", "short"),
    ("u32", "unsigned int"),
    ("i32", "int"),
    ("u64", "unsigned long long"),
    ("i64", "long long"),
];

/// The integer `repr` (`#[repr(u8)]`), its C++ type.
fn int_repr(d: &syn::DeriveInput) -> syn::Result<(syn::Ident, &'static str)> {
    let mut found = None;
    for a in d.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        a.parse_nested_meta(|m| {
            match INT_REPRS.iter().find(|(r, _)| m.path.is_ident(r)) {
                Some((_, c)) if found.is_none() => {
                    if let Some(id) = m.path.get_ident() {
                        found = Some((id.clone(), *c));
                    }
                    Ok(())
                }
                _ => Err(err(
                    &m.path,
                    "a device enum takes one integer `repr` alone (`#[repr(u8)]`, `#[repr(i32)]` …): it fixes the tag's type",
                )),
            }
        })?;
    }
    found.ok_or_else(|| {
        err(
            &d.ident,
            format!(
                "`#[derive(DeviceType)]` on the enum `{}` needs an integer `repr` (`#[repr(u8)]`, `#[repr(i32)]` …): it fixes the tag's type and the layout",
                d.ident
            ),
        )
    })
}

/// An explicit discriminant: an integer literal, maybe negated.
fn discriminant(e: &syn::Expr) -> syn::Result<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i
            .base10_parse::<i128>()
            .map_err(|_| err(i, "discriminant out of range")),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => Ok(-discriminant(&u.expr)?),
        syn::Expr::Paren(p) => discriminant(&p.expr),
        e => Err(err(
            e,
            "a device enum's discriminants must be integer literals",
        )),
    }
}

struct Variant {
    ident: syn::Ident,
    name: String,
    value: i128,
    /// (Rust binding, C++ field name, type)
    fields: Vec<(syn::Ident, String, syn::Type)>,
    named: Option<bool>,
}

/// The derive's expansion for an enum (errors as `compile_error!`s).
pub fn device_type(d: &syn::DeriveInput, e: &syn::DataEnum) -> TokenStream {
    let cpp_name = d.ident.to_string();
    let cpp_name = cpp_name.strip_prefix("r#").unwrap_or(&cpp_name).to_string();
    if !d.generics.params.is_empty() {
        return err(
            &d.generics,
            "a device type cannot be generic (its C++ struct is one declaration)",
        )
        .to_compile_error();
    }
    match expand(d, e, &cpp_name) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn expand(d: &syn::DeriveInput, e: &syn::DataEnum, cpp_name: &str) -> syn::Result<TokenStream> {
    let name = &d.ident;
    let (repr, tag_cpp) = int_repr(d)?;
    if reserved(cpp_name) {
        return Err(err(
            name,
            format!(
                "`{cpp_name}` is a C++ keyword or a name cuprum's generated C++ uses; rename the type"
            ),
        ));
    }
    if e.variants.is_empty() {
        return Err(err(
            name,
            "an enum without variants cannot be a device type (it has no values)",
        ));
    }
    let mut next: i128 = 0;
    let mut variants = Vec::new();
    for v in &e.variants {
        let value = match &v.discriminant {
            Some((_, x)) => discriminant(x)?,
            None => next,
        };
        next = value + 1;
        let vname = v.ident.to_string();
        if reserved(&vname) || vname == "tag" {
            return Err(err(
                &v.ident,
                format!(
                    "the variant name `{vname}` is a C++ keyword or a name cuprum's generated C++ uses; rename it"
                ),
            ));
        }
        let (fields, named) = match &v.fields {
            syn::Fields::Unit => (Vec::new(), None),
            syn::Fields::Named(f) => {
                let mut out = Vec::new();
                for x in &f.named {
                    check_field_type(&x.ty)?;
                    let Some(id) = x.ident.clone() else { continue };
                    let n = id.to_string();
                    let n = n.strip_prefix("r#").unwrap_or(&n).to_string();
                    if reserved(&n) || n == "tag" {
                        return Err(err(
                            &id,
                            format!(
                                "the field name `{n}` is a C++ keyword or a name cuprum's generated C++ uses (`tag` holds the variant); rename it"
                            ),
                        ));
                    }
                    out.push((id, n, x.ty.clone()));
                }
                (out, Some(true))
            }
            syn::Fields::Unnamed(f) => {
                let mut out = Vec::new();
                for (k, x) in f.unnamed.iter().enumerate() {
                    check_field_type(&x.ty)?;
                    out.push((format_ident!("cj_f{}", k), format!("f{k}"), x.ty.clone()));
                }
                (out, Some(false))
            }
        };
        variants.push(Variant {
            ident: v.ident.clone(),
            name: vname,
            value,
            fields,
            named,
        });
    }
    let tag_size = quote!(::core::mem::size_of::<#repr>());
    let tag_align = quote!(::core::mem::align_of::<#repr>());
    // Per variant: the (size, align) list of its C struct, and each field's offset in it.
    let layouts: Vec<TokenStream> = variants
        .iter()
        .map(|v| {
            let tys = v.fields.iter().map(|f| &f.2);
            quote!(&[(#tag_size, #tag_align), #((::core::mem::size_of::<#tys>(), ::core::mem::align_of::<#tys>())),*])
        })
        .collect();
    let sizes = layouts.iter().map(|l| quote!(::cuprum::__c_size(#l)));
    let size_msg = format!(
        "`{cpp_name}` does not have the layout of a union of C structs: a device enum needs it"
    );
    let bounds = variants
        .iter()
        .flat_map(|v| v.fields.iter().map(|f| &f.2))
        .map(|t| quote!(::cuprum::__assert_device_field::<#t>();));
    let values: Vec<TokenStream> = variants
        .iter()
        .map(|v| {
            let lit = proc_macro2::Literal::i128_unsuffixed(v.value);
            quote!((#lit as #repr))
        })
        .collect();
    let writes = variants
        .iter()
        .zip(&layouts)
        .zip(&values)
        .map(|((v, l), val)| {
            let id = &v.ident;
            let binds: Vec<&syn::Ident> = v.fields.iter().map(|f| &f.0).collect();
            let pat = match v.named {
                None => quote!(#name::#id),
                Some(true) => quote!(#name::#id { #(#binds),* }),
                Some(false) => quote!(#name::#id ( #(#binds),* )),
            };
            let fw = v.fields.iter().enumerate().map(|(k, (b, _, t))| {
            let k = k + 1;
            quote! {
                <#t as ::cuprum::DeviceField>::write_bytes(
                    &#b,
                    &mut __cj_out[::cuprum::__c_offset(#l, #k)..][..::core::mem::size_of::<#t>()],
                );
            }
        });
            quote! {
                #pat => {
                    __cj_out[..#tag_size].copy_from_slice(&#val.to_ne_bytes());
                    #(#fw)*
                }
            }
        });
    let checks = variants
        .iter()
        .zip(&layouts)
        .zip(&values)
        .map(|((v, l), val)| {
            let fc = v.fields.iter().enumerate().map(|(k, (_, _, t))| {
                let k = k + 1;
                quote! {
                    && <#t as ::cuprum::DeviceField>::valid_bytes(
                        &__cj_bytes[::cuprum::__c_offset(#l, #k)..][..::core::mem::size_of::<#t>()],
                    )
                }
            });
            quote! {
                if __cj_tag == #val {
                    return true #(#fc)*;
                }
            }
        });
    let declares = variants
        .iter()
        .flat_map(|v| v.fields.iter().map(|f| &f.2))
        .map(|t| quote!(<#t as ::cuprum::DeviceField>::declare(__cj_decls);));
    // The C++ text: variant structs, then the tagged union.
    let mut decl_parts = Vec::new();
    let mut members = format!("    union {{ {tag_cpp} tag;");
    for v in &variants {
        if v.fields.is_empty() {
            continue;
        }
        let sname = format!("{cpp_name}_{}", v.name);
        let head = format!("struct {sname} {{ {tag_cpp} tag; ");
        let fields = v.fields.iter().map(|(_, n, t)| {
            quote! {
                __cj_s.push_str(&<#t as ::cuprum::DeviceField>::cpp_member(#n));
                __cj_s.push_str("; ");
            }
        });
        decl_parts.push(quote! {
            __cj_s.push_str(#head);
            #(#fields)*
            __cj_s.push_str("};\n");
        });
        members.push_str(&format!(" {sname} {};", v.name));
    }
    members.push_str(" };\n");
    let tags: Vec<String> = variants
        .iter()
        .map(|v| format!("tag_{} = {}", v.name, v.value))
        .collect();
    let body = format!(
        "struct {cpp_name} {{\n    enum : {tag_cpp} {{ {} }};\n{members}}};\n",
        tags.join(", ")
    );
    let size_fmt = format!(
        "static_assert(sizeof({cpp_name}) == {{}} && alignof({cpp_name}) == {{}}, \"device type {cpp_name}: size or alignment differs from Rust's\");\n#ifdef offsetof\n#endif\n"
    );
    let impls = device_impls(ImplParts {
        name,
        cpp_name,
        declares: quote!(#(#declares)*),
        // Every byte zero first (padding and the other variants' bytes), then the tag and
        // the variant's fields at C's offsets.
        write: quote! {
            __cj_out.fill(0);
            match *self {
                #(#writes)*
            }
        },
        valid: quote! {
            let mut __cj_t = [0u8; ::core::mem::size_of::<#repr>()];
            __cj_t.copy_from_slice(&__cj_bytes[..#tag_size]);
            let __cj_tag = #repr::from_ne_bytes(__cj_t);
            #(#checks)*
            false
        },
        declaration: quote! {
            let mut __cj_s = ::std::string::String::new();
            #(#decl_parts)*
            __cj_s.push_str(#body);
            __cj_s.push_str(&::std::format!(
                #size_fmt,
                ::core::mem::size_of::<#name>(),
                ::core::mem::align_of::<#name>()
            ));
            __cj_s
        },
    });
    Ok(quote! {
        const _: () = {
            let mut __cj_size = 0usize;
            #(
                let __cj_v = #sizes;
                if __cj_v > __cj_size { __cj_size = __cj_v; }
            )*
            ::core::assert!(
                ::core::mem::size_of::<#name>() == __cj_size.next_multiple_of(::core::mem::align_of::<#name>()),
                #size_msg
            );
        };

        const _: fn() = || {
            #(#bounds)*
        };

        #impls
    })
}
