//! `#[derive(DeviceType)]`: a `#[repr(C)]` struct with named fields becomes usable in
//! kernels and as an array element (the trait and the design are documented in
//! `cuprum::array::record`).
//!
//! The expansion: a `const` block asserting every field's offset and the size against the
//! C rules (`cuprum::array::c_offset`), `DeviceField` (its C++ member, its declarations, its
//! bytes written field by field, its bool fields checked when read back) and `DeviceType`
//! (the C++ `struct` with `static_assert`s of Rust's `sizeof`, `alignof` and each
//! `offsetof`), and the value as a RawKernel argument (`KernelArg`) and as an
//! ElementwiseKernel/ReductionKernel operand (`IntoOperand`). The trait impls are one
//! template for structs and enums ([`device_impls`]); each expansion fills in its parts.
//! Refused at their spans: generics, enums, unions, tuple and unit structs,
//! a missing `#[repr(C)]` or another `repr`, reference and pointer fields, C++ keywords as
//! names.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The derive's expansion for a struct or union (errors as `compile_error!`s).
pub fn device_type(d: &syn::DeriveInput) -> TokenStream {
    match expand(d) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

pub(crate) fn err(span: impl Spanned, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span.span(), msg)
}

/// A name the generated C++ cannot use (a C++ keyword, or cuprum's `cj_` prefix).
pub(crate) fn reserved(name: &str) -> bool {
    crate::lower::is_reserved(name) || name.starts_with("cj_")
}

/// Checks `#[repr(C)]` and nothing else.
fn check_repr(d: &syn::DeriveInput) -> syn::Result<()> {
    let mut c = false;
    for a in d.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("C") {
                c = true;
                Ok(())
            } else {
                Err(err(
                    &m.path,
                    "only `#[repr(C)]` is supported on a device type (the C++ struct has C's layout): remove the other `repr` options",
                ))
            }
        })?;
    }
    if !c {
        return Err(err(
            &d.ident,
            format!(
                "`#[derive(DeviceType)]` needs `#[repr(C)]` on `{}`: Rust's default layout may reorder fields, the C++ struct cannot",
                d.ident
            ),
        ));
    }
    Ok(())
}

/// Refuses references and pointers (anywhere in a field's type) with a clear message.
pub(crate) fn check_field_type(t: &syn::Type) -> syn::Result<()> {
    match t {
        syn::Type::Reference(_) | syn::Type::Ptr(_) => Err(err(
            t,
            "a device type cannot hold references or pointers (its bytes are copied to the device); use plain values, fixed arrays and other device types",
        )),
        syn::Type::Array(a) => check_field_type(&a.elem),
        syn::Type::Paren(p) => check_field_type(&p.elem),
        syn::Type::Group(g) => check_field_type(&g.elem),
        syn::Type::Slice(_) | syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => Err(err(
            t,
            "a device type's fields must have a fixed size: plain values, fixed arrays and other device types",
        )),
        syn::Type::Tuple(_) => Err(err(
            t,
            "tuples cannot be fields of a device type (their layout is Rust's); use a `#[repr(C)]` struct",
        )),
        _ => Ok(()),
    }
}

fn expand(d: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let name = &d.ident;
    let cpp_name = name.to_string();
    let cpp_name = cpp_name.strip_prefix("r#").unwrap_or(&cpp_name).to_string();
    if !d.generics.params.is_empty() {
        return Err(err(
            &d.generics,
            "a device type cannot be generic (its C++ struct is one declaration); write a struct per element type",
        ));
    }
    let fields = match &d.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(f) => &f.named,
            syn::Fields::Unnamed(f) => {
                return Err(err(
                    f,
                    "tuple structs cannot derive DeviceType: name the fields (C++ members need names)",
                ));
            }
            syn::Fields::Unit => {
                return Err(err(
                    name,
                    "a unit struct cannot derive DeviceType: a device type needs at least one field",
                ));
            }
        },
        syn::Data::Enum(e) => return Err(err(e.enum_token, "enums are expanded by derive_enum")),
        syn::Data::Union(u) => {
            return Err(err(
                u.union_token,
                "unions cannot derive DeviceType (which field is valid is unknown); use a `#[repr(C)]` struct",
            ));
        }
    };
    check_repr(d)?;
    if reserved(&cpp_name) {
        return Err(err(
            name,
            format!(
                "`{cpp_name}` is a C++ keyword or a name cuprum's generated C++ uses; rename the type"
            ),
        ));
    }
    if fields.is_empty() {
        return Err(err(
            name,
            "a device type needs at least one field (an empty C++ struct has size 1, Rust's 0)",
        ));
    }
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(a) => a.combine(e),
        None => errors = Some(e),
    };
    let mut idents = Vec::new();
    let mut names = Vec::new();
    let mut tys = Vec::new();
    for f in fields {
        let Some(id) = &f.ident else { continue };
        let n = id.to_string();
        let n = n.strip_prefix("r#").unwrap_or(&n).to_string();
        if reserved(&n) {
            push(err(
                id,
                format!(
                    "the field name `{n}` is a C++ keyword or a name cuprum's generated C++ uses; rename it"
                ),
            ));
        }
        if let Err(e) = check_field_type(&f.ty) {
            push(e);
        }
        idents.push(id.clone());
        names.push(n);
        tys.push(f.ty.clone());
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let k = 0..idents.len();
    let layout_asserts = idents.iter().zip(k).map(|(id, i)| {
        let msg = format!(
            "the field `{id}` of `{cpp_name}` is not where C puts it: a device type needs C's layout"
        );
        quote! {
            ::core::assert!(
                ::core::mem::offset_of!(#name, #id) == ::cuprum::__c_offset(__CJ_FIELDS, #i),
                #msg
            );
        }
    });
    let size_msg = format!("`{cpp_name}` does not have C's size: a device type needs C's layout");
    let bounds = tys
        .iter()
        .map(|t| quote_spanned!(t.span()=> ::cuprum::__assert_device_field::<#t>();));
    let writes = idents.iter().zip(&tys).map(|(id, t)| {
        quote! {
            <#t as ::cuprum::DeviceField>::write_bytes(
                &self.#id,
                &mut __cj_out[::core::mem::offset_of!(#name, #id)..][..::core::mem::size_of::<#t>()],
            );
        }
    });
    let checks = idents.iter().zip(&tys).map(|(id, t)| {
        quote! {
            <#t as ::cuprum::DeviceField>::valid_bytes(
                &__cj_bytes[::core::mem::offset_of!(#name, #id)..][..::core::mem::size_of::<#t>()],
            )
        }
    });
    let declares = tys
        .iter()
        .map(|t| quote!(<#t as ::cuprum::DeviceField>::declare(__cj_decls);));
    let members = tys.iter().zip(&names).map(|(t, n)| {
        quote! {
            __cj_s.push_str("    ");
            __cj_s.push_str(&<#t as ::cuprum::DeviceField>::cpp_member(#n));
            __cj_s.push_str(";\n");
        }
    });
    let offset_lines = idents.iter().zip(&names).map(|(id, n)| {
        let fmt = format!(
            "static_assert(offsetof({cpp_name}, {n}) == {{}}, \"device type {cpp_name}: field {n} differs from Rust's offset\");\n"
        );
        quote! {
            __cj_s.push_str(&::std::format!(#fmt, ::core::mem::offset_of!(#name, #id)));
        }
    });
    let head = format!("struct {cpp_name} {{\n");
    let size_fmt = format!(
        "static_assert(sizeof({cpp_name}) == {{}} && alignof({cpp_name}) == {{}}, \"device type {cpp_name}: size or alignment differs from Rust's\");\n"
    );
    let fields_ident = format_ident!("__CJ_FIELDS");
    let impls = device_impls(ImplParts {
        name,
        cpp_name: &cpp_name,
        declares: quote!(#(#declares)*),
        write: quote!(#(#writes)*),
        valid: quote!(true #(&& #checks)*),
        declaration: quote! {
            let mut __cj_s = ::std::string::String::from(#head);
            #(#members)*
            __cj_s.push_str("};\n");
            __cj_s.push_str(&::std::format!(
                #size_fmt,
                ::core::mem::size_of::<#name>(),
                ::core::mem::align_of::<#name>()
            ));
            // NVRTC has no `offsetof`: there sizeof and alignof are checked, the host
            // compiler (and nvcc with <cstddef>) checks every offset too.
            __cj_s.push_str("#ifdef offsetof\n");
            #(#offset_lines)*
            __cj_s.push_str("#endif\n");
            __cj_s
        },
    });
    Ok(quote! {
        const _: () = {
            const #fields_ident: &[(usize, usize)] = &[
                #((::core::mem::size_of::<#tys>(), ::core::mem::align_of::<#tys>())),*
            ];
            #(#layout_asserts)*
            ::core::assert!(
                ::core::mem::size_of::<#name>() == ::cuprum::__c_size(#fields_ident),
                #size_msg
            );
        };

        const _: fn() = || {
            #(#bounds)*
        };

        #impls
    })
}

/// What differs between the trait impls of a struct's and an enum's expansion; the rest is
/// [`device_impls`]'s one template.
pub(crate) struct ImplParts<'a> {
    /// The Rust type.
    pub name: &'a syn::Ident,
    /// Its C++ name.
    pub cpp_name: &'a str,
    /// Statements adding the field types' declarations to `__cj_decls`.
    pub declares: TokenStream,
    /// The body of `write_bytes(&self, __cj_out: &mut [u8])`.
    pub write: TokenStream,
    /// The body of `valid_bytes(__cj_bytes: &[u8]) -> bool`.
    pub valid: TokenStream,
    /// The body of `declaration() -> String`.
    pub declaration: TokenStream,
}

/// The trait impls every device type gets: `DeviceField`, `DeviceType`, and its value as a
/// RawKernel argument (`KernelArg`) and as an ElementwiseKernel/ReductionKernel operand
/// (`IntoOperand`, a record scalar).
pub(crate) fn device_impls(p: ImplParts<'_>) -> TokenStream {
    let ImplParts {
        name,
        cpp_name,
        declares,
        write,
        valid,
        declaration,
    } = p;
    quote! {
        // SAFETY: the caller's expansion checked the layout (Rust const assertions against
        // C's rules for the repr) and declares the same members in C++ with static_asserts
        // of Rust's size and alignment; `write` writes every field at its offset (an enum:
        // every byte), `valid` accepts only valid bit patterns of every field (and tag).
        unsafe impl ::cuprum::DeviceField for #name {
            fn cpp_member(__cj_name: &str) -> ::std::string::String {
                ::std::format!("{} {}", #cpp_name, __cj_name)
            }
            fn declare(__cj_decls: &mut ::cuprum::Declarations) {
                #declares
                __cj_decls.add::<Self>();
            }
            #[allow(unused_variables)]
            fn write_bytes(&self, __cj_out: &mut [u8]) {
                #write
            }
            fn valid_bytes(__cj_bytes: &[u8]) -> bool {
                #valid
            }
            fn element_dtype() -> ::core::option::Option<::cuprum::DType> {
                ::core::option::Option::Some(::cuprum::DType::Record(
                    <Self as ::cuprum::DeviceType>::record(),
                ))
            }
        }

        impl ::cuprum::kernel::KernelArg for #name {
            fn to_arg(&self) -> ::cuprum::kernel::ArgValue {
                ::cuprum::kernel::record_arg(self)
            }
        }

        impl ::cuprum::kernel::IntoOperand for #name {
            fn operand(&self) -> ::cuprum::kernel::Operand<'_> {
                ::cuprum::kernel::Operand::Record(::cuprum::kernel::RecordArg::of(self))
            }
        }

        // SAFETY: as above: the declaration is this type's, checked by static_asserts.
        unsafe impl ::cuprum::DeviceType for #name {
            const CPP_NAME: &'static str = #cpp_name;
            fn declaration() -> ::std::string::String {
                #declaration
            }
        }
    }
}
