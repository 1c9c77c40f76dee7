//! Device enums in kernels (`#[derive(DeviceType)]` on `#[repr(u8)]` enums): variant values
//! (`Act::Relu`, `Shape::Circle { r }`, `Shape::Pair(a, b)`), variant patterns in `match`,
//! and `if let` / `while let` (a `match` with a `_` arm: the `else` branch, or `break`).
//!
//! The translator cannot see the enum: a path `Type::Variant` is a variant when `Type` is
//! a device type the function already names (a parameter's, a `let`'s or a slice's type, or
//! `Self` in an `impl` block); the C++ tests `s.tag == Type::tag_Variant` and reads
//! `s.Variant.field` (tuple fields `f0`, `f1` …), whose types come through `decltype`.
//!
//! The value matched may be any expression: a local, a field (`r.mode`, `r.a.mode`), an
//! element (`modes[i]`, `rs[i].mode`), a method's or a device function's result. Where the
//! translator does not know its type (rustc does: a field's or a call's type is named in
//! C++ by `decltype`), the variant patterns name it, as they do for rustc: the scrutinee
//! takes the enum of the first pattern `Enum::Variant` (`Enum` an UpperCamelCase type
//! name, or `Self`), and the enum becomes a type the function names (rustc checks that it
//! is a device type). A variant written without its enum (`Scale(k)` after `use Mode::*`,
//! or a bare UpperCamelCase `Add`) on such a value is an error that says to name the enum
//! or bind the value to a typed local first (`let m: Mode = r.mode;`).
//!
//! A bare identifier pattern that starts with an upper-case letter (`Add`, `A`) on a value
//! of a known device type is refused with the name to write (`Mode::Add`): rustc reads it
//! as the variant when one is in scope (`use Mode::*` outside the function), where the
//! translator would read a new binding that matches every value. The macro sees neither the
//! `use` nor the enum's variants (the derive expands apart from the function, which the
//! translator reads alone), so the case of the first letter decides; a `use` inside the
//! function is refused as every item is.

use super::*;

impl Lower {
    /// `(type, variant)` when `path` is `Type::Variant` of a device type named here.
    pub(super) fn variant_of(&self, path: &syn::Path) -> Option<(String, String)> {
        let n = path.segments.len();
        if n < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let ty = path.segments[n - 2].ident.to_string();
        let variant = path.segments[n - 1].ident.to_string();
        if ty == "Self" && n == 2 {
            let p = self.self_ty.as_ref()?;
            let name = p.segments.last()?.ident.to_string();
            return Some((name, variant));
        }
        self.types
            .iter()
            .any(|p| p.segments.last().is_some_and(|s| s.ident == ty))
            .then_some((ty, variant))
    }

    /// Types a scrutinee the translator does not know (a field, an element's field, a
    /// method's or a device function's result) by the enum its variant patterns `pats` (a
    /// `match`'s arms, or one pattern) name, as rustc does. `shown` is the matched
    /// expression (for the error), `None` for a nested pattern (a variant's field).
    pub(super) fn type_scrutinee(
        &mut self,
        pats: &[&syn::Pat],
        scrut: &Ty,
        shown: Option<&syn::Expr>,
    ) -> Result<()> {
        if !matches!(
            self.infer.var_kind(scrut),
            Some(VarKind::Any | VarKind::Opaque(_) | VarKind::Field(..))
        ) {
            return Ok(());
        }
        for p in pats {
            if let Some(t) = self.pattern_enum(p)? {
                self.infer.unify(scrut, &t);
                return Ok(());
            }
        }
        if let Some((ident, bare)) = pats.iter().find_map(|p| unnamed_variant(p)) {
            let v = ident.to_string();
            let v = v.strip_prefix("r#").unwrap_or(&v);
            let what = match shown {
                Some(e) => format!("`{}`", compact(e)),
                None => "this value".to_string(),
            };
            let bind = match shown {
                Some(e) => format!("`let m: Enum = {};`", compact(e)),
                None => "`let m: Enum = …;`".to_string(),
            };
            let binding = if bare {
                " (a binding's name starts with a lowercase letter)"
            } else {
                ""
            };
            return Err(err(
                ident,
                format!(
                    "the translator cannot tell which enum `{v}` is a variant of: the pattern does not name it and the type of {what} is not known here (the translator sees only the kernel); name the enum in the pattern (`Enum::{v}`), or bind it first: {bind} and match on `m`{binding}"
                ),
            ));
        }
        Ok(())
    }

    /// The device enum a pattern names through a variant path (`Mode::Add`,
    /// `Mode::Scale(k)`, `shapes::Mode::Pt { .. }`, `Self::Add`; also inside `|`, `( )`
    /// and `x @ p`), registered as a type of the function.
    fn pattern_enum(&mut self, p: &syn::Pat) -> Result<Option<Ty>> {
        let path = match p {
            syn::Pat::Paren(q) => return self.pattern_enum(&q.pat),
            syn::Pat::Ident(pi) => match &pi.subpat {
                Some((_, s)) => return self.pattern_enum(s),
                None => return Ok(None),
            },
            syn::Pat::Or(o) => {
                for c in &o.cases {
                    if let Some(t) = self.pattern_enum(c)? {
                        return Ok(Some(t));
                    }
                }
                return Ok(None);
            }
            syn::Pat::Path(pp) if pp.qself.is_none() => &pp.path,
            syn::Pat::TupleStruct(ts) if ts.qself.is_none() => &ts.path,
            syn::Pat::Struct(s) if s.qself.is_none() => &s.path,
            _ => return Ok(None),
        };
        let n = path.segments.len();
        if n < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Ok(None);
        }
        let ty = path.segments[n - 2].ident.to_string();
        let ty = ty.strip_prefix("r#").unwrap_or(&ty);
        if ty == "Self" {
            return match (n, self.self_ty.clone()) {
                (2, Some(p)) => self.user_type(&p).map(Some),
                _ => Ok(None),
            };
        }
        // A type's name (a module's is lower case: `consts::LIMIT` is a constant).
        if !ty.starts_with(|c: char| c.is_ascii_uppercase())
            || self.type_params.iter().any(|t| t == ty)
        {
            return Ok(None);
        }
        let enum_path = syn::Path {
            leading_colon: path.leading_colon,
            segments: path.segments.iter().take(n - 1).cloned().collect(),
        };
        self.user_type(&enum_path).map(Some)
    }

    /// A variant's value with its fields (named, or `f0`, `f1` … of a tuple variant).
    pub(super) fn variant_lit(
        &mut self,
        ty: String,
        variant: String,
        fields: Vec<(String, Expr)>,
    ) -> Expr {
        let t = Ty::User(ty.clone());
        let mut out = Vec::new();
        for (f, x) in fields {
            let ft = self.infer.opaque_field(t.clone(), format!("{variant}.{f}"));
            self.infer.unify(&x.ty, &ft);
            out.push((f, x));
        }
        self.expr_of(
            ExprKind::VariantLit {
                cpp: ty,
                variant,
                fields: out,
            },
            t,
        )
    }

    /// A pattern against a device type's value: variants, bindings, `_`, `|`.
    pub(super) fn user_pattern(
        &mut self,
        p: &syn::Pat,
        scrut: &Ty,
        tn: &str,
    ) -> Result<Option<Pat>> {
        let variant = |me: &Self, path: &syn::Path| -> Result<String> {
            match me.variant_of(path) {
                Some((t, v)) if t == tn => Ok(v),
                _ => Err(err(
                    path,
                    format!("expected a variant of `{tn}` (`{tn}::Variant`)"),
                )),
            }
        };
        Ok(Some(match p {
            syn::Pat::Ident(pi) if variant_like(&pi.ident) => {
                let v = pi.ident.to_string();
                let v = v.strip_prefix("r#").unwrap_or(&v);
                return Err(err(
                    &pi.ident,
                    format!(
                        "`{v}` in a pattern on a `{tn}` is the variant `{tn}::{v}` to rustc (after `use {tn}::*`), but the translator sees only the function, not its `use`s, and would bind the value to a new variable `{v}` that matches every value: write `{tn}::{v}` (a binding's name starts with a lowercase letter)"
                    ),
                ));
            }
            syn::Pat::Path(pp) => Pat::Variant {
                ty: tn.to_string(),
                variant: variant(self, &pp.path)?,
                fields: Vec::new(),
            },
            syn::Pat::TupleStruct(ts) => {
                let v = variant(self, &ts.path)?;
                let mut fields = Vec::new();
                for (k, e) in ts.elems.iter().enumerate() {
                    if let syn::Pat::Rest(_) = e {
                        break;
                    }
                    let name = format!("f{k}");
                    let ft = self
                        .infer
                        .opaque_field(scrut.clone(), format!("{v}.{name}"));
                    let sub = self.pattern(e, &ft)?;
                    fields.push((name, sub));
                }
                Pat::Variant {
                    ty: tn.to_string(),
                    variant: v,
                    fields,
                }
            }
            syn::Pat::Struct(s) => {
                let v = variant(self, &s.path)?;
                let mut fields = Vec::new();
                for fp in &s.fields {
                    let name = match &fp.member {
                        syn::Member::Named(n) => n.to_string(),
                        syn::Member::Unnamed(u) => format!("f{}", u.index),
                    };
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                    let ft = self
                        .infer
                        .opaque_field(scrut.clone(), format!("{v}.{name}"));
                    let sub = self.pattern(&fp.pat, &ft)?;
                    fields.push((name, sub));
                }
                Pat::Variant {
                    ty: tn.to_string(),
                    variant: v,
                    fields,
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `if let P = e { a } else { b }`: `match e { P => a, _ => b }`.
    pub(super) fn if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Result<Expr> {
        let scrut = self.expr(&l.expr)?;
        self.type_scrutinee(&[&l.pat], &scrut.ty, Some(&l.expr))?;
        let tmp = self.declare("cj_match", scrut.ty.clone());
        self.scopes.push(Vec::new());
        let r = (|| -> Result<(Pat, Block)> {
            let pat = self.pattern(&l.pat, &scrut.ty)?;
            let then = self.block(&i.then_branch)?;
            Ok((pat, then))
        })();
        self.scopes.pop();
        let (pat, then) = r?;
        let ty = then.ty.clone();
        let els = match &i.else_branch {
            Some((_, e)) => {
                let x = self.expr(e)?;
                self.infer.unify(&ty, &x.ty);
                x
            }
            None => {
                self.infer.unify(&ty, &Ty::Unit);
                self.expr_of(
                    ExprKind::Block(Block {
                        stmts: Vec::new(),
                        tail: None,
                        ty: Ty::Unit,
                    }),
                    Ty::Unit,
                )
            }
        };
        let then_ty = then.ty.clone();
        let arms = vec![
            Arm {
                pat,
                guard: None,
                body: self.expr_of(ExprKind::Block(then), then_ty),
            },
            Arm {
                pat: Pat::Wild,
                guard: None,
                body: els,
            },
        ];
        Ok(self.expr_of(
            ExprKind::Match {
                scrut: Box::new(scrut),
                tmp,
                arms,
            },
            ty,
        ))
    }

    /// `while let P = e { body }`: `loop { match e { P => body, _ => break } }`.
    pub(super) fn while_let(&mut self, w: &syn::ExprWhile, l: &syn::ExprLet) -> Result<Expr> {
        let id = self.push_loop(w.label.as_ref());
        let r = (|| -> Result<Expr> {
            let scrut = self.expr(&l.expr)?;
            self.type_scrutinee(&[&l.pat], &scrut.ty, Some(&l.expr))?;
            let tmp = self.declare("cj_match", scrut.ty.clone());
            self.scopes.push(Vec::new());
            let arm = (|| -> Result<Arm> {
                let pat = self.pattern(&l.pat, &scrut.ty)?;
                let body = self.block(&w.body)?;
                let bt = body.ty.clone();
                Ok(Arm {
                    pat,
                    guard: None,
                    body: self.expr_of(ExprKind::Block(body), bt),
                })
            })();
            self.scopes.pop();
            let stop = self.expr_of(ExprKind::Break { id, goto: false }, Ty::Unit);
            let arms = vec![
                arm?,
                Arm {
                    pat: Pat::Wild,
                    guard: None,
                    body: stop,
                },
            ];
            Ok(self.expr_of(
                ExprKind::Match {
                    scrut: Box::new(scrut),
                    tmp,
                    arms,
                },
                Ty::Unit,
            ))
        })();
        self.loop_stack.pop();
        let m = r?;
        Ok(self.expr_of(
            ExprKind::Loop {
                id,
                body: Block {
                    stmts: vec![Stmt::Expr(m)],
                    tail: None,
                    ty: Ty::Unit,
                },
            },
            Ty::Unit,
        ))
    }
}

/// Whether an identifier pattern names what rustc would read as a variant (or a constant)
/// when one is in scope: it starts with an upper-case letter (`Add`, `A`). A binding's name
/// is snake_case; which variants an enum has, the macro cannot see (its derive expands
/// apart from the function).
fn variant_like(ident: &syn::Ident) -> bool {
    let s = ident.to_string();
    s.strip_prefix("r#")
        .unwrap_or(&s)
        .starts_with(|c: char| c.is_ascii_uppercase())
}

/// The name of a variant pattern written without its enum (`Scale(k)`, `Pt { x, .. }`, or a
/// bare UpperCamelCase `Add`: `true`; an UPPER_CASE name is a constant), also inside `|`,
/// `( )` and `x @ p`.
fn unnamed_variant(p: &syn::Pat) -> Option<(&syn::Ident, bool)> {
    match p {
        syn::Pat::Paren(q) => unnamed_variant(&q.pat),
        syn::Pat::Ident(pi) => match &pi.subpat {
            Some((_, s)) => unnamed_variant(s),
            None => (variant_like(&pi.ident) && !consts::const_name(&pi.ident.to_string()))
                .then_some((&pi.ident, true)),
        },
        syn::Pat::Or(o) => o.cases.iter().find_map(unnamed_variant),
        syn::Pat::TupleStruct(ts) if ts.path.segments.len() == 1 => {
            Some((&ts.path.segments[0].ident, false))
        }
        syn::Pat::Struct(s) if s.path.segments.len() == 1 => {
            Some((&s.path.segments[0].ident, false))
        }
        _ => None,
    }
}

/// An expression as the user wrote it, roughly (`r.mode`, `rs[i].mode()`), for messages.
fn compact(e: &syn::Expr) -> String {
    let mut s = quote::quote!(#e).to_string();
    for (from, to) in [
        (" . ", "."),
        (" :: ", "::"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
    ] {
        s = s.replace(from, to);
    }
    s
}
