//! syn's AST → the typed IR. Anything outside the subset is an error at the user's span
//! that names what is not supported; types come from the unification table.

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
                syn::Stmt::Macro(m) => Err(macro_error(&m.mac)),
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
            E::Macro(m) => Err(macro_error(&m.mac)),
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

    fn push_loop(&mut self, label: Option<&syn::Label>) -> usize {
        self.loops.push(LoopInfo::default());
        let id = self.loops.len() - 1;
        self.loop_stack.push(LoopCtx {
            id,
            label: label.map(|l| l.name.ident.to_string()),
        });
        id
    }

    /// The loop a `break`/`continue` targets and whether C++ needs a `goto` for it.
    fn loop_target(
        &self,
        at: impl Spanned,
        label: Option<&syn::Lifetime>,
    ) -> Result<(usize, bool)> {
        let Some(inner) = self.loop_stack.last() else {
            return Err(err(at, "`break`/`continue` outside a loop"));
        };
        match label {
            None => Ok((inner.id, false)),
            Some(l) => {
                let name = l.ident.to_string();
                match self
                    .loop_stack
                    .iter()
                    .rev()
                    .find(|c| c.label.as_deref() == Some(name.as_str()))
                {
                    Some(c) => Ok((c.id, c.id != inner.id)),
                    None => Err(err(l, format!("no loop labelled `'{name}` around this"))),
                }
            }
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
        if let Some((text, ty)) = constant(&segs) {
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

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<Expr> {
        let name = match &*f.pat {
            syn::Pat::Ident(pi) if pi.mutability.is_some() => {
                return Err(err(
                    pi,
                    "`for mut i` is not supported in kernels; copy the value into a `let mut` inside the loop",
                ));
            }
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                Some(self.check_ident(&pi.ident)?)
            }
            syn::Pat::Wild(_) => None,
            p => return Err(err(p, "the loop variable must be a name")),
        };
        let (kind, parts) = self.for_iter(&f.expr)?;
        let var_ty = parts[0].ty.clone();
        let id = self.push_loop(f.label.as_ref());
        if let ForKind::Range {
            inclusive: true, ..
        } = kind
        {
            self.loops[id].cont_label = true;
        }
        self.scopes.push(Vec::new());
        let var = self.declare(name.as_deref().unwrap_or("cj_unused"), var_ty);
        let body = self.block(&f.body);
        self.scopes.pop();
        self.loop_stack.pop();
        Ok(self.expr_of(
            ExprKind::For {
                id,
                var,
                kind,
                parts,
                body: body?,
            },
            Ty::Unit,
        ))
    }

    /// A `for` loop's iterator: `a..b`, `a..=b`, `(…).rev()`, `(…).step_by(s)`,
    /// `grid_stride(n)`, `block_stride(n)`.
    fn for_iter(&mut self, e: &syn::Expr) -> Result<(ForKind, Vec<Expr>)> {
        let e = strip_parens(e);
        match e {
            syn::Expr::Range(r) => {
                let (Some(a), Some(b)) = (&r.start, &r.end) else {
                    return Err(err(r, "a `for` range needs both ends (`a..b` or `a..=b`)"));
                };
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                self.infer.unify(&a.ty, &b.ty);
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Ok((
                    ForKind::Range {
                        inclusive,
                        rev: false,
                    },
                    vec![a, b],
                ))
            }
            syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let (kind, parts) = self.for_iter(&m.receiver)?;
                match kind {
                    ForKind::Range {
                        inclusive,
                        rev: false,
                    } if parts.len() == 2 => Ok((
                        ForKind::Range {
                            inclusive,
                            rev: true,
                        },
                        parts,
                    )),
                    _ => Err(err(
                        m,
                        "`.rev()` is supported directly on a range (`(a..b).rev()`)",
                    )),
                }
            }
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let (kind, mut parts) = self.for_iter(&m.receiver)?;
                match kind {
                    ForKind::Range {
                        inclusive: false,
                        rev: false,
                    } if parts.len() == 2 => {
                        let s = self.expr(&m.args[0])?;
                        self.infer.unify(&s.ty, &Ty::Prim(Prim::Usize));
                        parts.push(s);
                        Ok((kind, parts))
                    }
                    _ => Err(err(
                        m,
                        "`.step_by(s)` is supported on a plain range (`(a..b).step_by(s)`)",
                    )),
                }
            }
            syn::Expr::Call(c) => {
                let name = builtin_name(&c.func);
                match name.as_deref() {
                    Some(n @ ("grid_stride" | "block_stride")) => {
                        if c.args.len() != 1 {
                            return Err(err(c, format!("`{n}(n)` takes the number of items")));
                        }
                        let n_expr = self.expr(&c.args[0])?;
                        let t = self.infer.shallow(&n_expr.ty);
                        if let Some(VarKind::Int) = self.infer.var_kind(&t) {
                            self.infer.unify(&n_expr.ty, &Ty::Prim(Prim::I32));
                        }
                        Ok((
                            ForKind::Stride {
                                block: n == "block_stride",
                            },
                            vec![n_expr],
                        ))
                    }
                    _ => Err(err(
                        e,
                        "`for` loops go over a range (`a..b`, `a..=b`, `.rev()`, `.step_by(s)`), `grid_stride(n)` or `block_stride(n)`",
                    )),
                }
            }
            _ => Err(err(
                e,
                "`for` loops go over a range (`a..b`, `a..=b`, `.rev()`, `.step_by(s)`), `grid_stride(n)` or `block_stride(n)`",
            )),
        }
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

    fn args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Result<Vec<Expr>> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<Expr> {
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

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Result<Expr> {
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
fn builtin_name(f: &syn::Expr) -> Option<String> {
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

/// `shared_array::<T, N>()` / `dynamic_shared::<T>()` as a `let` value.
fn shared_call(e: &syn::Expr) -> Option<(&'static str, &syn::ExprCall)> {
    let syn::Expr::Call(c) = strip_parens(e) else {
        return None;
    };
    match builtin_name(&c.func)?.as_str() {
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

fn macro_error(m: &syn::Macro) -> Error {
    let name = m
        .path
        .segments
        .last()
        .map_or_else(String::new, |s| s.ident.to_string());
    err(
        m,
        format!(
            "macros are not supported in kernels (`{name}!`); kernels cannot print, panic or format"
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

/// A constant path (`f32::MAX`, `i64::MIN`, `u32::BITS`, `std::f32::consts::PI`,
/// `WARP_SIZE`, `gpu::FULL_MASK`): its C++ spelling and type.
fn constant(segs: &[String]) -> Option<(String, Ty)> {
    let n = segs.len();
    let last = segs.last()?.as_str();
    // cuprum::gpu constants.
    let gpu_prefix = n == 1
        || (n == 2 && segs[0] == "gpu")
        || (n == 3 && segs[0] == "cuprum" && segs[1] == "gpu");
    if gpu_prefix {
        match last {
            "WARP_SIZE" => return Some(("32u".into(), Ty::Prim(Prim::U32))),
            "FULL_MASK" => return Some(("0xffffffffu".into(), Ty::Prim(Prim::U32))),
            _ => {}
        }
    }
    // std::f32::consts::PI / core::f64::consts::E
    if n >= 3 && segs[n - 2] == "consts" && (segs[n - 3] == "f32" || segs[n - 3] == "f64") {
        let f32_ = segs[n - 3] == "f32";
        let v: f64 = match last {
            "PI" => std::f64::consts::PI,
            "TAU" => std::f64::consts::TAU,
            "E" => std::f64::consts::E,
            "FRAC_PI_2" => std::f64::consts::FRAC_PI_2,
            "FRAC_PI_3" => std::f64::consts::FRAC_PI_3,
            "FRAC_PI_4" => std::f64::consts::FRAC_PI_4,
            "FRAC_PI_6" => std::f64::consts::FRAC_PI_6,
            "FRAC_PI_8" => std::f64::consts::FRAC_PI_8,
            "FRAC_1_PI" => std::f64::consts::FRAC_1_PI,
            "FRAC_2_PI" => std::f64::consts::FRAC_2_PI,
            "FRAC_2_SQRT_PI" => std::f64::consts::FRAC_2_SQRT_PI,
            "SQRT_2" => std::f64::consts::SQRT_2,
            "FRAC_1_SQRT_2" => std::f64::consts::FRAC_1_SQRT_2,
            "LN_2" => std::f64::consts::LN_2,
            "LN_10" => std::f64::consts::LN_10,
            "LOG2_E" => std::f64::consts::LOG2_E,
            "LOG10_E" => std::f64::consts::LOG10_E,
            "LOG2_10" => std::f64::consts::LOG2_10,
            "LOG10_2" => std::f64::consts::LOG10_2,
            _ => return None,
        };
        return Some(if f32_ {
            (format!("{:e}f", v as f32), Ty::Prim(Prim::F32))
        } else {
            (format!("{v:e}"), Ty::Prim(Prim::F64))
        });
    }
    if n != 2 {
        return None;
    }
    let p = Prim::from_name(&segs[0])?;
    let t = Ty::Prim(p);
    let text = match (p, last) {
        (Prim::F32, "MAX") => format!("{:e}f", f32::MAX),
        (Prim::F32, "MIN") => format!("{:e}f", f32::MIN),
        (Prim::F32, "MIN_POSITIVE") => format!("{:e}f", f32::MIN_POSITIVE),
        (Prim::F32, "EPSILON") => format!("{:e}f", f32::EPSILON),
        (Prim::F32, "INFINITY") => "__int_as_float(0x7f800000)".into(),
        (Prim::F32, "NEG_INFINITY") => "__int_as_float((int)0xff800000u)".into(),
        (Prim::F32, "NAN") => "__int_as_float(0x7fc00000)".into(),
        (Prim::F64, "MAX") => format!("{:e}", f64::MAX),
        (Prim::F64, "MIN") => format!("{:e}", f64::MIN),
        (Prim::F64, "MIN_POSITIVE") => format!("{:e}", f64::MIN_POSITIVE),
        (Prim::F64, "EPSILON") => format!("{:e}", f64::EPSILON),
        (Prim::F64, "INFINITY") => "__longlong_as_double(0x7ff0000000000000LL)".into(),
        (Prim::F64, "NEG_INFINITY") => {
            "__longlong_as_double((long long)0xfff0000000000000ULL)".into()
        }
        (Prim::F64, "NAN") => "__longlong_as_double(0x7ff8000000000000LL)".into(),
        (p, "BITS") if p.is_int() => return Some((format!("{}u", p.bits()), Ty::Prim(Prim::U32))),
        (p, "MAX") if p.is_int() => crate::emit::int_lit(p, int_max(p) as i128),
        (p, "MIN") if p.is_int() => crate::emit::int_lit(p, int_min(p)),
        _ => return None,
    };
    Some((text, t))
}

fn int_max(p: Prim) -> u128 {
    if p.is_signed() {
        (1u128 << (p.bits() - 1)) - 1
    } else {
        (1u128 << p.bits()) - 1
    }
}

fn int_min(p: Prim) -> i128 {
    if p.is_signed() {
        -(1i128 << (p.bits() - 1))
    } else {
        0
    }
}
