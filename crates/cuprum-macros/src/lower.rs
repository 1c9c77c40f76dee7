//! syn's AST → the typed IR. Anything outside the subset is an error at the user's span
//! that names what is not supported; types come from the unification table.

mod calls;
mod consts;
mod loops;

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
    witnesses: Vec<Option<Ty>>,
    ret: Ty,
    cooperative: bool,
    unsafe_depth: usize,
}

fn err(span: impl Spanned, msg: impl std::fmt::Display) -> Error {
    Error::new(span.span(), msg)
}

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
            witnesses: Vec::new(),
            ret: Ty::Unit,
            cooperative: false,
            unsafe_depth: 0,
        }
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

    // ---- types ----------------------------------------------------------------------------

    /// A type in a `let`, a cast, a turbofish or a signature.
    pub fn ty(&self, t: &syn::Type) -> Result<Ty> {
        match t {
            syn::Type::Group(g) => self.ty(&g.elem),
            syn::Type::Paren(p) => self.ty(&p.elem),
            syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let seg = &p.path.segments[0];
                let name = seg.ident.to_string();
                if !seg.arguments.is_none() {
                    return Err(err(
                        t,
                        format!(
                            "the type `{}` is not supported in kernels",
                            quote::quote!(#t)
                        ),
                    ));
                }
                if let Some(p) = Prim::from_name(&name) {
                    return Ok(Ty::Prim(p));
                }
                if self.type_params.contains(&name) {
                    return Ok(Ty::Generic(name));
                }
                Err(err(
                    t,
                    format!(
                        "the type `{name}` is not supported in kernels (supported: bool, i8–i64, isize, u8–u64, usize, f16, bf16, f32, f64, type parameters, and [T; N] arrays of them)"
                    ),
                ))
            }
            syn::Type::Path(_) => match prim_of(t) {
                Some(p) => Ok(Ty::Prim(p)),
                None => Err(err(
                    t,
                    format!(
                        "the type `{}` is not supported in kernels",
                        quote::quote!(#t)
                    ),
                )),
            },
            syn::Type::Array(a) => {
                let elem = self.ty(&a.elem)?;
                if !matches!(elem, Ty::Prim(_) | Ty::Generic(_)) {
                    return Err(err(
                        &a.elem,
                        "array elements must be numbers or bool (no nested arrays)",
                    ));
                }
                Ok(Ty::Array(Box::new(elem), self.len(&a.len)?))
            }
            syn::Type::Reference(_) | syn::Type::Slice(_) => Err(err(
                t,
                "references and slices can only be parameters (`&[T]`, `&mut [T]`)",
            )),
            syn::Type::Tuple(tt) if tt.elems.is_empty() => Ok(Ty::Unit),
            _ => Err(err(
                t,
                format!(
                    "the type `{}` is not supported in kernels",
                    quote::quote!(#t)
                ),
            )),
        }
    }

    /// An array length or a const generic argument: a literal or a const parameter.
    fn len(&self, e: &syn::Expr) -> Result<Len> {
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

    // ---- signature ------------------------------------------------------------------------

    /// Reads generics and parameters, declaring the parameters.
    pub fn signature(&mut self, sig: &syn::Signature) -> Result<(Vec<Param>, Vec<String>)> {
        let mut errors: Vec<Error> = Vec::new();
        let what = if self.kernel {
            "kernel"
        } else {
            "device function"
        };
        if let Some(c) = &sig.constness {
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
                syn::FnArg::Receiver(r) => {
                    errors.push(err(r, format!("a {what} cannot take `self`")))
                }
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
                if !matches!(elem, Ty::Prim(_) | Ty::Generic(_)) {
                    return Err(err(&r.elem, "slice elements must be numbers or bool"));
                }
                Ty::Slice {
                    elem: Box::new(elem),
                    mutable: r.mutability.is_some(),
                }
            }
            t => {
                let ty = self.ty(t).map_err(|_| {
                    err(t, format!(
                        "`{}` cannot be a parameter; use `&[T]`, `&mut [T]` or a scalar (bool, i8–i64, u8–u64, usize, f16, bf16, f32, f64, or a type parameter)",
                        quote::quote!(#t)
                    ))
                })?;
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
        Ok(Param { var, ty })
    }

    // ---- blocks and statements ------------------------------------------------------------

    pub fn body(&mut self, block: &syn::Block) -> Result<Block> {
        let ret = self.ret.clone();
        let b = self.block(block)?;
        if let Some(t) = &b.tail {
            self.infer.unify(&t.ty, &ret);
        }
        Ok(b)
    }

    fn block(&mut self, block: &syn::Block) -> Result<Block> {
        self.scopes.push(Vec::new());
        let r = self.block_inner(block);
        self.scopes.pop();
        r
    }

    fn block_inner(&mut self, block: &syn::Block) -> Result<Block> {
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut errors: Vec<Error> = Vec::new();
        let n = block.stmts.len();
        for (i, s) in block.stmts.iter().enumerate() {
            let r = match s {
                syn::Stmt::Local(l) => match self.local(l) {
                    Ok(s) => {
                        stmts.push(s);
                        Ok(())
                    }
                    Err(e) => {
                        // Keep the names bound so that later uses do not add errors.
                        self.declare_pattern(&l.pat);
                        Err(e)
                    }
                },
                syn::Stmt::Item(it) => Err(err(
                    it,
                    "items (fn, struct, use, const …) inside a kernel body are not supported; define them outside",
                )),
                syn::Stmt::Macro(m) => match self.assert_macro(&m.mac) {
                    Ok(x) => {
                        stmts.push(Stmt::Expr(x));
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
                syn::Stmt::Expr(e, semi) => match self.expr(e) {
                    Ok(x) => {
                        if semi.is_none() && i + 1 == n && !is_statement_like(e) {
                            tail = Some(Box::new(x));
                        } else if semi.is_none() && i + 1 == n {
                            // `if`/loops/blocks at the end: a value when not unit.
                            let t = self.infer.shallow(&x.ty);
                            if matches!(t, Ty::Unit)
                                || self.infer.var_kind(&t) == Some(VarKind::Any)
                            {
                                stmts.push(Stmt::Expr(x));
                            } else {
                                tail = Some(Box::new(x));
                            }
                        } else {
                            stmts.push(Stmt::Expr(x));
                        }
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
        if let Some(e) = errors.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            return Err(e);
        }
        let diverges = matches!(
            stmts.last(),
            Some(Stmt::Expr(Expr {
                kind: ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue { .. },
                ..
            }))
        );
        let ty = match &tail {
            Some(t) => t.ty.clone(),
            None if diverges => self.infer.fresh(VarKind::Any),
            None => Ty::Unit,
        };
        Ok(Block { stmts, tail, ty })
    }

    fn local(&mut self, l: &syn::Local) -> Result<Stmt> {
        let id = self.witnesses.len();
        self.witnesses.push(None);
        if let Some(a) = l.attrs.first() {
            return Err(err(a, "attributes on `let` are not supported in kernels"));
        }
        let (pat, annot) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(self.ty(&pt.ty)?)),
            p => (p, None),
        };
        let name = match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some(self.check_ident(&pi.ident)?)
            }
            syn::Pat::Wild(_) => None,
            p => {
                return Err(err(
                    p,
                    "only `let name = …;` and `let _ = …;` are supported (no tuple or struct patterns)",
                ));
            }
        };
        let init = match &l.init {
            Some(li) => {
                if let Some((e, _)) = &li.diverge {
                    return Err(err(e, "`let … else` is not supported in kernels"));
                }
                Some(&*li.expr)
            }
            None => None,
        };
        // Shared memory declarations.
        if let Some(init) = init
            && let Some((which, call)) = shared_call(init)
        {
            let Some(name) = name else {
                return Err(err(init, "shared memory must be bound to a name"));
            };
            return self.shared_decl(&name, which, call);
        }
        let init = match init {
            Some(e) => {
                let x = self.expr(e)?;
                if let Some(a) = &annot {
                    self.infer.unify(&x.ty, a);
                }
                Some(x)
            }
            None => None,
        };
        let ty = match (&annot, &init) {
            (Some(a), _) => a.clone(),
            (None, Some(x)) => x.ty.clone(),
            (None, None) => {
                return Err(err(
                    l,
                    "a `let` without a value needs a type: `let x: f32;`",
                ));
            }
        };
        if let Ty::Shared(..) | Ty::DynShared(_) = self.infer.shallow(&ty) {
            return Err(err(
                l,
                "shared memory cannot be copied or moved into another variable",
            ));
        }
        if let Ty::Slice { .. } = self.infer.shallow(&ty) {
            return Err(err(
                l,
                "slices cannot be bound to new variables; use the parameter by name",
            ));
        }
        match name {
            Some(n) => {
                let var = self.declare(&n, ty.clone());
                self.witnesses[id] = Some(ty);
                Ok(Stmt::Let { var, init })
            }
            None => match init {
                Some(x) => Ok(Stmt::Expr(x)),
                None => Err(err(l, "`let _;` declares nothing")),
            },
        }
    }

    fn declare_pattern(&mut self, p: &syn::Pat) {
        match p {
            syn::Pat::Ident(pi) => {
                let name = pi.ident.to_string();
                let t = self.infer.fresh(VarKind::Any);
                self.declare(&name, t);
            }
            syn::Pat::Type(pt) => self.declare_pattern(&pt.pat),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::Slice(t) => t.elems.iter().for_each(|e| self.declare_pattern(e)),
            syn::Pat::Paren(p) => self.declare_pattern(&p.pat),
            syn::Pat::Reference(r) => self.declare_pattern(&r.pat),
            _ => {}
        }
    }

    fn shared_decl(&mut self, name: &str, which: &str, call: &syn::ExprCall) -> Result<Stmt> {
        let seg = match &*call.func {
            syn::Expr::Path(p) => p.path.segments.last().cloned(),
            _ => None,
        };
        let args = match seg.as_ref().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a.args.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        if !call.args.is_empty() {
            return Err(err(&call.args, format!("`{which}` takes no arguments")));
        }
        let elem_arg = |a: Option<&&syn::GenericArgument>| -> Result<Ty> {
            match a {
                Some(syn::GenericArgument::Type(t)) => {
                    let t = self.ty(t)?;
                    if matches!(t, Ty::Prim(_) | Ty::Generic(_)) {
                        Ok(t)
                    } else {
                        Err(err(call, "shared memory holds numbers or bool"))
                    }
                }
                _ => Err(err(
                    call,
                    format!(
                        "write the element type: `{which}::<f32{}>()`",
                        if which == "shared_array" { ", 256" } else { "" }
                    ),
                )),
            }
        };
        if which == "shared_array" {
            if args.len() != 2 {
                return Err(err(
                    call,
                    "write `shared_array::<T, N>()` (element type and a constant length)",
                ));
            }
            let elem = elem_arg(args.first())?;
            let len = match args[1] {
                syn::GenericArgument::Const(e) => self.len(e)?,
                syn::GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
                    let n = p.path.segments[0].ident.to_string();
                    if self.const_params.iter().any(|c| c.0 == n) {
                        Len::Param(n)
                    } else {
                        return Err(err(p, format!("`{n}` is not a const generic parameter")));
                    }
                }
                other => {
                    return Err(err(
                        other,
                        "the length must be a literal or a const generic parameter",
                    ));
                }
            };
            let var = self.declare(name, Ty::Shared(Box::new(elem.clone()), len.clone()));
            Ok(Stmt::Shared { var, elem, len })
        } else {
            if args.len() != 1 {
                return Err(err(call, "write `dynamic_shared::<T>()`"));
            }
            let elem = elem_arg(args.first())?;
            let var = self.declare(name, Ty::DynShared(Box::new(elem.clone())));
            Ok(Stmt::DynShared { var, elem })
        }
    }

    // ---- expressions ------------------------------------------------------------------------

    pub fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
        let mut x = self.expr_inner(e)?;
        x.span = e.span();
        Ok(x)
    }

    fn expr_inner(&mut self, e: &syn::Expr) -> Result<Expr> {
        use syn::Expr as E;
        match e {
            E::Lit(l) => self.lit(&l.lit),
            E::Path(p) => self.path_expr(p),
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Binary(b) => self.binary(b),
            E::Unary(u) => self.unary(u),
            E::Assign(a) => {
                let lhs = self.place(&a.left)?;
                let rhs = self.expr(&a.right)?;
                self.infer.unify(&lhs.ty, &rhs.ty);
                Ok(self.expr_of(ExprKind::Assign(Box::new(lhs), Box::new(rhs)), Ty::Unit))
            }
            E::Cast(c) => self.cast(c),
            E::If(i) => self.if_expr(i),
            E::Block(b) => {
                if let Some(l) = &b.label {
                    return Err(err(l, "labelled blocks are not supported in kernels"));
                }
                let blk = self.block(&b.block)?;
                let ty = blk.ty.clone();
                Ok(self.expr_of(ExprKind::Block(blk), ty))
            }
            E::Unsafe(u) => {
                self.unsafe_depth += 1;
                let blk = self.block(&u.block);
                self.unsafe_depth -= 1;
                let blk = blk?;
                let ty = blk.ty.clone();
                Ok(self.expr_of(ExprKind::Block(blk), ty))
            }
            E::While(w) => {
                if let E::Let(l) = &*w.cond {
                    return Err(err(l, "`while let` is not supported in kernels"));
                }
                let cond = self.expr(&w.cond)?;
                self.infer.unify(&cond.ty, &Ty::Prim(Prim::Bool));
                let id = self.push_loop(w.label.as_ref());
                let body = self.block(&w.body);
                self.loop_stack.pop();
                Ok(self.expr_of(
                    ExprKind::While {
                        id,
                        cond: Box::new(cond),
                        body: body?,
                    },
                    Ty::Unit,
                ))
            }
            E::Loop(l) => {
                let id = self.push_loop(l.label.as_ref());
                let body = self.block(&l.body);
                self.loop_stack.pop();
                Ok(self.expr_of(ExprKind::Loop { id, body: body? }, Ty::Unit))
            }
            E::ForLoop(f) => self.for_loop(f),
            E::Break(b) => {
                if let Some(v) = &b.expr {
                    return Err(err(v, "`break` with a value is not supported in kernels"));
                }
                let (id, goto) = self.loop_target(b, b.label.as_ref())?;
                if goto {
                    self.loops[id].break_label = true;
                }
                Ok(self.expr_of(ExprKind::Break { id, goto }, Ty::Unit))
            }
            E::Continue(c) => {
                let (id, goto) = self.loop_target(c, c.label.as_ref())?;
                let goto = goto || self.loops[id].cont_label;
                if goto {
                    self.loops[id].cont_label = true;
                }
                Ok(self.expr_of(ExprKind::Continue { id, goto }, Ty::Unit))
            }
            E::Return(r) => {
                let v = match &r.expr {
                    Some(v) if self.kernel => {
                        return Err(err(
                            v,
                            "a kernel cannot return a value; write results into a `&mut [T]` parameter",
                        ));
                    }
                    Some(v) => {
                        let x = self.expr(v)?;
                        let ret = self.ret.clone();
                        self.infer.unify(&x.ty, &ret);
                        Some(Box::new(x))
                    }
                    None => None,
                };
                let ty = self.infer.fresh(VarKind::Any);
                Ok(self.expr_of(ExprKind::Return(v), ty))
            }
            E::Index(i) => self.index(i),
            E::Field(f) => {
                let base = self.expr(&f.base)?;
                let member = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(u) => {
                        return Err(err(u, "tuple fields are not supported in kernels"));
                    }
                };
                match (self.infer.shallow(&base.ty), member.as_str()) {
                    (Ty::UInt3, "x" | "y" | "z") => {
                        let c = member.chars().next().unwrap_or('x');
                        Ok(self.expr_of(ExprKind::Field(Box::new(base), c), Ty::Prim(Prim::U32)))
                    }
                    _ => Err(err(
                        &f.member,
                        format!(
                            "field `.{member}` is not supported (only `.x`, `.y`, `.z` of thread_idx(), block_idx(), block_dim(), grid_dim())"
                        ),
                    )),
                }
            }
            E::Call(c) => self.call(c),
            E::MethodCall(m) => self.method_call(m),
            E::Array(a) => {
                let elem = self.infer.fresh(VarKind::Any);
                let mut xs = Vec::new();
                for el in &a.elems {
                    let x = self.expr(el)?;
                    self.infer.unify(&x.ty, &elem);
                    xs.push(x);
                }
                if xs.is_empty() {
                    return Err(err(a, "empty arrays are not supported"));
                }
                let n = xs.len() as u64;
                Ok(self.expr_of(
                    ExprKind::ArrayLit(xs),
                    Ty::Array(Box::new(elem), Len::Lit(n)),
                ))
            }
            E::Repeat(r) => {
                let v = self.expr(&r.expr)?;
                let len = self.len(&r.len)?;
                let ty = Ty::Array(Box::new(v.ty.clone()), len);
                Ok(self.expr_of(ExprKind::ArrayRepeat(Box::new(v)), ty))
            }
            E::Macro(m) => self.assert_macro(&m.mac),
            E::Match(m) => Err(err(
                m.match_token,
                "`match` is not supported in kernels; use `if`/`else if`",
            )),
            E::Closure(c) => Err(err(
                c,
                "closures are not supported in kernels; use a `#[cuprum::device]` function",
            )),
            E::Reference(r) => Err(err(
                r,
                "references (`&x`) are not supported in kernels; pass slices by name",
            )),
            E::RawAddr(r) => Err(err(r, "raw pointers are not supported in kernels")),
            E::Tuple(t) => Err(err(t, "tuples are not supported in kernels")),
            E::Struct(s) => Err(err(s, "struct literals are not supported in kernels")),
            E::Range(r) => Err(err(
                r,
                "ranges are only supported as the iterator of a `for` loop",
            )),
            E::Try(t) => Err(err(t, "the `?` operator is not supported in kernels")),
            E::Let(l) => Err(err(
                l,
                "`if let` / `let` conditions are not supported in kernels",
            )),
            E::Async(a) => Err(err(a, "`async` is not supported in kernels")),
            E::Await(a) => Err(err(a, "`.await` is not supported in kernels")),
            E::Const(c) => Err(err(c, "`const` blocks are not supported in kernels")),
            other => Err(err(
                other,
                format!("`{}` is not supported in kernels", short(other)),
            )),
        }
    }

    fn lit(&mut self, l: &syn::Lit) -> Result<Expr> {
        match l {
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let p = Prim::from_name(suffix).unwrap_or(Prim::F64);
                    return Ok(self.expr_of(
                        ExprKind::Lit(LitVal::Float(i.base10_digits().to_string())),
                        Ty::Prim(p),
                    ));
                }
                let v: u128 = i
                    .base10_parse()
                    .map_err(|_| err(i, "integer literal out of range"))?;
                let ty = if suffix.is_empty() {
                    self.infer.fresh(VarKind::Int)
                } else {
                    match Prim::from_name(suffix) {
                        Some(p) if p.is_int() => Ty::Prim(p),
                        _ => {
                            return Err(err(
                                i,
                                format!(
                                    "the literal suffix `{suffix}` is not supported in kernels"
                                ),
                            ));
                        }
                    }
                };
                Ok(self.expr_of(ExprKind::Lit(LitVal::Int(v)), ty))
            }
            syn::Lit::Float(f) => {
                let suffix = f.suffix();
                let ty = match suffix {
                    "" => self.infer.fresh(VarKind::Float),
                    "f32" => Ty::Prim(Prim::F32),
                    "f64" => Ty::Prim(Prim::F64),
                    s => {
                        return Err(err(
                            f,
                            format!("the literal suffix `{s}` is not supported in kernels"),
                        ));
                    }
                };
                Ok(self.expr_of(
                    ExprKind::Lit(LitVal::Float(f.base10_digits().to_string())),
                    ty,
                ))
            }
            syn::Lit::Bool(b) => {
                Ok(self.expr_of(ExprKind::Lit(LitVal::Bool(b.value)), Ty::Prim(Prim::Bool)))
            }
            other => Err(err(
                other,
                "only number and bool literals are supported in kernels (no strings or chars)",
            )),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Result<Expr> {
        if p.qself.is_some() {
            return Err(err(
                p,
                "qualified paths (`<T as Trait>::…`) are not supported in kernels",
            ));
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(err(p, "generic arguments are not supported here"));
        }
        if segs.len() == 1 {
            let name = &segs[0];
            if let Some(id) = self.lookup(name) {
                let ty = self.vars[id].ty.clone();
                return Ok(self.expr_of(ExprKind::Var(id), ty));
            }
            if let Some((_, p)) = self.const_params.iter().find(|c| &c.0 == name) {
                let p = *p;
                return Ok(self.expr_of(ExprKind::ConstParam(name.clone()), Ty::Prim(p)));
            }
        }
        if let Some((text, ty)) = consts::constant(&segs) {
            return Ok(self.expr_of(ExprKind::CppConst(text), ty));
        }
        let shown = segs.join("::");
        Err(err(
            p,
            format!(
                "`{shown}` is not a variable, parameter or const generic of this function; kernels see only those (a module-level `const` or `static` is not visible: make it a const generic parameter or a literal)"
            ),
        ))
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Result<Expr> {
        use syn::BinOp as B;
        let (op, assign) = match b.op {
            B::Add(_) => (BinOp::Add, false),
            B::Sub(_) => (BinOp::Sub, false),
            B::Mul(_) => (BinOp::Mul, false),
            B::Div(_) => (BinOp::Div, false),
            B::Rem(_) => (BinOp::Rem, false),
            B::And(_) => (BinOp::And, false),
            B::Or(_) => (BinOp::Or, false),
            B::BitXor(_) => (BinOp::BitXor, false),
            B::BitAnd(_) => (BinOp::BitAnd, false),
            B::BitOr(_) => (BinOp::BitOr, false),
            B::Shl(_) => (BinOp::Shl, false),
            B::Shr(_) => (BinOp::Shr, false),
            B::Eq(_) => (BinOp::Eq, false),
            B::Lt(_) => (BinOp::Lt, false),
            B::Le(_) => (BinOp::Le, false),
            B::Ne(_) => (BinOp::Ne, false),
            B::Ge(_) => (BinOp::Ge, false),
            B::Gt(_) => (BinOp::Gt, false),
            B::AddAssign(_) => (BinOp::Add, true),
            B::SubAssign(_) => (BinOp::Sub, true),
            B::MulAssign(_) => (BinOp::Mul, true),
            B::DivAssign(_) => (BinOp::Div, true),
            B::RemAssign(_) => (BinOp::Rem, true),
            B::BitXorAssign(_) => (BinOp::BitXor, true),
            B::BitAndAssign(_) => (BinOp::BitAnd, true),
            B::BitOrAssign(_) => (BinOp::BitOr, true),
            B::ShlAssign(_) => (BinOp::Shl, true),
            B::ShrAssign(_) => (BinOp::Shr, true),
            ref other => return Err(err(other, "this operator is not supported in kernels")),
        };
        let site = self.site(b.span());
        if assign {
            let lhs = self.place(&b.left)?;
            let rhs = self.expr(&b.right)?;
            if !op.is_shift() {
                self.infer.unify(&lhs.ty, &rhs.ty);
            }
            return Ok(self.expr_of(
                ExprKind::OpAssign(op, Box::new(lhs), Box::new(rhs), site),
                Ty::Unit,
            ));
        }
        let l = self.expr(&b.left)?;
        let r = self.expr(&b.right)?;
        let ty = match op {
            BinOp::And | BinOp::Or => {
                self.infer.unify(&l.ty, &Ty::Prim(Prim::Bool));
                self.infer.unify(&r.ty, &Ty::Prim(Prim::Bool));
                Ty::Prim(Prim::Bool)
            }
            op if op.is_cmp() => {
                self.infer.unify(&l.ty, &r.ty);
                Ty::Prim(Prim::Bool)
            }
            op if op.is_shift() => l.ty.clone(),
            _ => {
                self.infer.unify(&l.ty, &r.ty);
                l.ty.clone()
            }
        };
        Ok(self.expr_of(ExprKind::Binary(op, Box::new(l), Box::new(r), site), ty))
    }

    /// The target of an assignment: a variable, an element, or `*x.get_unchecked_mut(i)`.
    fn place(&mut self, e: &syn::Expr) -> Result<Expr> {
        match e {
            syn::Expr::Paren(p) => self.place(&p.expr),
            syn::Expr::Path(_) | syn::Expr::Index(_) => {
                let x = self.expr(e)?;
                match &x.kind {
                    ExprKind::Var(id)
                        if matches!(
                            self.infer.shallow(&self.vars[*id].ty),
                            Ty::Slice { .. } | Ty::Shared(..) | Ty::DynShared(_)
                        ) =>
                    {
                        Err(err(
                            e,
                            "a slice or shared array cannot be assigned as a whole; assign its elements",
                        ))
                    }
                    ExprKind::Var(_) | ExprKind::Index { .. } => Ok(x),
                    _ => Err(err(e, "this cannot be assigned to")),
                }
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.expr(e),
            _ => Err(err(
                e,
                "only variables, elements (`x[i]`) and `*x.get_unchecked_mut(i)` can be assigned to in kernels",
            )),
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Result<Expr> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let x = self.expr(&u.expr)?;
                let ty = x.ty.clone();
                Ok(self.expr_of(ExprKind::Unary(UnOp::Neg, Box::new(x)), ty))
            }
            syn::UnOp::Not(_) => {
                let x = self.expr(&u.expr)?;
                let ty = x.ty.clone();
                Ok(self.expr_of(ExprKind::Unary(UnOp::Not, Box::new(x)), ty))
            }
            syn::UnOp::Deref(_) => {
                let inner = strip_parens(&u.expr);
                if let syn::Expr::MethodCall(m) = inner {
                    let name = m.method.to_string();
                    if name == "get_unchecked" || name == "get_unchecked_mut" {
                        if self.unsafe_depth == 0 {
                            // rustc says so too; keep the translator's message in step.
                            return Err(err(
                                m,
                                format!(
                                    "`{name}` is unsafe: call it inside an `unsafe {{ }}` block"
                                ),
                            ));
                        }
                        let base = self.slice_var(&m.receiver)?;
                        if m.args.len() != 1 {
                            return Err(err(m, format!("`{name}` takes one index")));
                        }
                        let index = self.expr(&m.args[0])?;
                        let elem = self.elem_of(base, &m.receiver)?;
                        if let Ty::Array(..) = self.infer.shallow(&self.vars[base].ty) {
                            self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
                        }
                        return Ok(self.expr_of(
                            ExprKind::Index {
                                base,
                                index: Box::new(index),
                                site: None,
                            },
                            elem,
                        ));
                    }
                }
                Err(err(
                    u,
                    "`*` is only supported as `*x.get_unchecked(i)` / `*x.get_unchecked_mut(i)` (no pointers or references in kernels)",
                ))
            }
            ref other => Err(err(other, "this operator is not supported in kernels")),
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Result<Expr> {
        let target = match self.ty(&c.ty)? {
            Ty::Prim(p) => p,
            _ => {
                return Err(err(
                    &c.ty,
                    "`as` converts between number types and bool only",
                ));
            }
        };
        if matches!(target, Prim::F16 | Prim::Bf16) {
            return Err(err(
                &c.ty,
                "`as` cannot produce f16/bf16 (they are not Rust primitives); use `f16::from_f32(x)`",
            ));
        }
        let x = self.expr(&c.expr)?;
        // rustc's cast hint: a literal operand (not a variable) takes the target type.
        let lit = match &x.kind {
            ExprKind::Lit(_) => true,
            ExprKind::Unary(UnOp::Neg, inner) => matches!(inner.kind, ExprKind::Lit(_)),
            _ => false,
        };
        if lit {
            match self.infer.var_kind(&x.ty) {
                Some(VarKind::Int) if target.is_int() => self.infer.unify(&x.ty, &Ty::Prim(target)),
                Some(VarKind::Float) if target.is_float() => {
                    self.infer.unify(&x.ty, &Ty::Prim(target))
                }
                _ => {}
            }
        }
        Ok(self.expr_of(ExprKind::Cast(Box::new(x), target), Ty::Prim(target)))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Result<Expr> {
        if let syn::Expr::Let(l) = &*i.cond {
            return Err(err(l, "`if let` is not supported in kernels"));
        }
        let cond = self.expr(&i.cond)?;
        self.infer.unify(&cond.ty, &Ty::Prim(Prim::Bool));
        let then = self.block(&i.then_branch)?;
        let (els, ty) = match &i.else_branch {
            Some((_, e)) => {
                let x = self.expr(e)?;
                self.infer.unify(&then.ty, &x.ty);
                (Some(Box::new(x)), then.ty.clone())
            }
            None => (None, Ty::Unit),
        };
        Ok(self.expr_of(ExprKind::If(Box::new(cond), then, els), ty))
    }

    /// The variable a slice-like receiver names.
    fn slice_var(&self, e: &syn::Expr) -> Result<usize> {
        let e = strip_parens(e);
        if let syn::Expr::Path(p) = e
            && let Some(ident) = p.path.get_ident()
            && let Some(id) = self.lookup(&ident.to_string())
        {
            match self.infer.shallow(&self.vars[id].ty) {
                Ty::Slice { .. } | Ty::Shared(..) | Ty::DynShared(_) | Ty::Array(..) => {
                    return Ok(id);
                }
                _ => {}
            }
        }
        if let syn::Expr::Path(p) = e
            && let Some(ident) = p.path.get_ident()
            && let Some(id) = self.lookup(&ident.to_string())
            && matches!(self.infer.shallow(&self.vars[id].ty), Ty::Var(_))
        {
            return Err(err(
                e,
                format!(
                    "the translator does not know the type of `{ident}` here (a device function's result?): annotate it, e.g. `let {ident}: [f32; 2] = …;`"
                ),
            ));
        }
        Err(err(
            e,
            "indexing works on slice parameters, shared memory and local arrays, by name",
        ))
    }

    fn elem_of(&self, var: usize, at: impl Spanned) -> Result<Ty> {
        match self.infer.shallow(&self.vars[var].ty) {
            Ty::Slice { elem, .. }
            | Ty::Shared(elem, _)
            | Ty::DynShared(elem)
            | Ty::Array(elem, _) => Ok(*elem),
            _ => Err(err(at, "this cannot be indexed")),
        }
    }

    fn index(&mut self, i: &syn::ExprIndex) -> Result<Expr> {
        let sub = |e: &syn::Expr| match strip_parens(e) {
            syn::Expr::Range(r) => Some(err(
                r,
                "sub-slices (`x[a..b]`) are not supported in kernels; index the parameter with an offset",
            )),
            _ => None,
        };
        if let Some(e) = sub(&i.index) {
            return Err(e);
        }
        if let syn::Expr::Index(inner) = strip_parens(&i.expr)
            && let Some(e) = sub(&inner.index)
        {
            return Err(e);
        }
        let base = self.slice_var(&i.expr)?;
        let index = self.expr(&i.index)?;
        if let Ty::Array(..) = self.infer.shallow(&self.vars[base].ty) {
            self.infer.unify(&index.ty, &Ty::Prim(Prim::Usize));
        }
        let elem = self.elem_of(base, i)?;
        let site = self.site(i.span());
        Ok(self.expr_of(
            ExprKind::Index {
                base,
                index: Box::new(index),
                site: Some(site),
            },
            elem,
        ))
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
            witnesses,
        }
    }
}

/// `shared_array::<T, N>()` / `dynamic_shared::<T>()` as a `let` value.
fn shared_call(e: &syn::Expr) -> Option<(&'static str, &syn::ExprCall)> {
    let syn::Expr::Call(c) = strip_parens(e) else {
        return None;
    };
    match calls::builtin_name(&c.func)?.as_str() {
        "shared_array" => Some(("shared_array", c)),
        "dynamic_shared" => Some(("dynamic_shared", c)),
        _ => None,
    }
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

/// Expressions that are statements when they end a block without a semicolon.
fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::If(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Block(_)
            | syn::Expr::Unsafe(_)
    )
}

impl Lower {
    /// `assert!(cond)` / `assert!(cond, "message")` (and `debug_assert!`, checked builds
    /// only); any other macro is an error. A false condition faults like an index out of
    /// bounds ("assertion failed" at the macro's line): one check that can stand for many,
    /// e.g. before `get_unchecked` accesses whose indices it bounds.
    fn assert_macro(&mut self, m: &syn::Macro) -> Result<Expr> {
        let name = m
            .path
            .segments
            .last()
            .map_or_else(String::new, |s| s.ident.to_string());
        if m.path.segments.len() != 1 || !(name == "assert" || name == "debug_assert") {
            return Err(macro_error(m));
        }
        let args = m
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
            .map_err(|e| err(m, format!("`{name}!`: {e}")))?;
        let mut it = args.iter();
        let Some(cond) = it.next() else {
            return Err(err(m, format!("`{name}!` needs a condition")));
        };
        match (it.next(), it.next()) {
            (None, _) => {}
            (
                Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(_),
                    ..
                })),
                None,
            ) => {}
            _ => {
                return Err(err(
                    m,
                    format!(
                        "kernels cannot format: write `{name}!(condition)` or `{name}!(condition, \"message\")`"
                    ),
                ));
            }
        }
        let c = self.expr(cond)?;
        self.infer.unify(&c.ty, &Ty::Prim(Prim::Bool));
        let site = self.site(m.span());
        Ok(self.expr_of(
            ExprKind::Assert {
                cond: Box::new(c),
                site,
                debug: name == "debug_assert",
            },
            Ty::Unit,
        ))
    }
}

fn macro_error(m: &syn::Macro) -> Error {
    let name = m
        .path
        .segments
        .last()
        .map_or_else(String::new, |s| s.ident.to_string());
    err(
        m,
        format!(
            "macros are not supported in kernels (`{name}!`), except `assert!` and `debug_assert!`; kernels cannot print, panic or format"
        ),
    )
}

/// A short name for an unsupported expression kind.
fn short(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Yield(_) => "yield",
        syn::Expr::TryBlock(_) => "try blocks",
        syn::Expr::Infer(_) => "`_` expressions",
        syn::Expr::Verbatim(_) => "this expression",
        _ => "this expression",
    }
}
