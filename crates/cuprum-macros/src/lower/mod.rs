//! syn's AST → the typed IR. Anything outside the subset is an error at the user's span
//! that names what is not supported; types come from the unification table.
//!
//! This file holds the `Lower` context: its variables, scopes, C++ names and fault sites.
//! The function's signature and body entry are in `item`, written types in `types`,
//! statements in `stmt`, expressions in `expr` (indexing and assignment targets in `place`,
//! `assert!` in `assert`), calls by path in `calls`, method calls in `methods`, loops in
//! `loops` (element loops in `iters`), `match` and patterns in `matches`, tuples in `tuples`, closures in
//! `closures`, named constants in `consts`.

mod assert;
mod calls;
mod closures;
mod consts;
mod enums;
mod expr;
mod item;
mod iters;
mod loops;
mod matches;
mod methods;
mod place;
mod stmt;
mod tuples;
mod types;

use crate::ir::*;
use crate::ty::{Infer, Len, Prim, Ty, VarKind};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Result};

/// What the macro learned about one function besides its IR.
pub struct Lowered {
    pub func: Func,
    pub infer: Infer,
    /// The device functions it calls (their Rust paths, generic arguments removed).
    pub deps: Vec<syn::Path>,
    /// The device types it names (their Rust paths as written).
    pub types: Vec<syn::Path>,
    /// Per `let` (pre-order), the type the translator inferred for it, when it knows the
    /// Rust spelling: the twin checks each against rustc's.
    pub witnesses: Vec<Option<Ty>>,
}

/// `(line, column)` of a span (1-based), or `(0, 0)` outside a macro expansion.
pub fn line_col(span: Span) -> (u32, u32) {
    if proc_macro::is_available() {
        let s = span.unwrap();
        (s.line() as u32, s.column() as u32)
    } else {
        (0, 0)
    }
}

/// C++ words (and CUDA names the generated code uses unqualified) a Rust identifier may
/// not keep.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extern",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "short",
    "signed",
    "sizeof",
    "static_assert",
    "static_cast",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "xor",
    "xor_eq",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "float16",
    "bfloat16",
    "cuprum",
    "cj",
    "cj_dev",
    "uint3",
    "dim3",
    "main",
    "NULL",
    "assert",
    "printf",
    "malloc",
    "free",
];

/// The C++ name of the method `method` of the device type `ty`.
pub fn method_cpp_name(ty: &str, method: &str) -> String {
    format!("cj_m_{ty}_{}", method.trim_start_matches("r#"))
}

/// Whether `name` cannot be a C++ name in generated code (a C++ keyword or a name the
/// generated C++ uses).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

struct LoopCtx {
    id: usize,
    label: Option<String>,
}

pub struct Lower {
    kernel: bool,
    infer: Infer,
    vars: Vec<Var>,
    scopes: Vec<Vec<(String, usize)>>,
    used: Vec<String>,
    type_params: Vec<String>,
    const_params: Vec<(String, Prim)>,
    loops: Vec<LoopInfo>,
    loop_stack: Vec<LoopCtx>,
    sites: Vec<(u32, u32)>,
    deps: Vec<syn::Path>,
    /// The device types it names (their Rust paths).
    types: Vec<syn::Path>,
    /// In an `impl` block of a device type: that type's path (`Self`, the receiver).
    self_ty: Option<syn::Path>,
    witnesses: Vec<Option<Ty>>,
    ret: Ty,
    cooperative: bool,
    unsafe_depth: usize,
    /// Inside a closure's body (its `return` is the closure's).
    closure_depth: usize,
    /// Loop variables that are references in Rust (`for x in s.iter()`): `*x` is `x`.
    refs: Vec<usize>,
}

fn err(span: impl Spanned, msg: impl std::fmt::Display) -> Error {
    Error::new(span.span(), msg)
}

impl Lower {
    pub fn new(kernel: bool) -> Lower {
        Lower {
            kernel,
            infer: Infer::default(),
            vars: Vec::new(),
            scopes: vec![Vec::new()],
            used: Vec::new(),
            type_params: Vec::new(),
            const_params: Vec::new(),
            loops: Vec::new(),
            loop_stack: Vec::new(),
            sites: Vec::new(),
            deps: Vec::new(),
            types: Vec::new(),
            self_ty: None,
            witnesses: Vec::new(),
            ret: Ty::Unit,
            cooperative: false,
            unsafe_depth: 0,
            closure_depth: 0,
            refs: Vec::new(),
        }
    }

    /// A translator for a method of the device type `ty` (`Self` and `self` mean it).
    pub fn for_method(ty: syn::Path) -> Lower {
        let mut l = Lower::new(false);
        l.self_ty = Some(ty);
        l
    }

    // ---- names and scopes -----------------------------------------------------------------

    fn check_ident(&self, ident: &syn::Ident) -> Result<String> {
        let name = ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
        if name.starts_with("cj_") {
            return Err(err(
                ident,
                format!(
                    "`{name}`: names starting with `cj_` are reserved by cuprum's kernel translator; rename it"
                ),
            ));
        }
        Ok(name)
    }

    /// A new binding's C++ name: the Rust name when free, else a `cj_`-prefixed one.
    fn cpp_name(&mut self, rust: &str) -> String {
        let reserved = RESERVED.contains(&rust)
            || rust.starts_with('_') && rust.len() > 1 && {
                let c = rust.as_bytes()[1];
                c == b'_' || c.is_ascii_uppercase()
            }
            || rust.contains("__");
        let mut name = if reserved {
            format!("cj_kw_{rust}")
        } else {
            rust.to_string()
        };
        let mut k = 1;
        while self.used.contains(&name)
            || self.type_params.contains(&name)
            || self.const_params.iter().any(|c| c.0 == name)
        {
            name = format!("cj_v{k}_{rust}");
            k += 1;
        }
        self.used.push(name.clone());
        name
    }

    fn declare(&mut self, rust: &str, ty: Ty) -> usize {
        let cpp = self.cpp_name(rust);
        self.vars.push(Var { cpp, ty });
        let id = self.vars.len() - 1;
        if let Some(s) = self.scopes.last_mut() {
            s.push((rust.to_string(), id));
        }
        id
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }

    fn site(&mut self, span: Span) -> usize {
        self.sites.push(line_col(span));
        self.sites.len() - 1
    }

    fn expr_of(&self, kind: ExprKind, ty: Ty) -> Expr {
        Expr {
            kind,
            ty,
            span: Span::call_site(),
        }
    }
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}
