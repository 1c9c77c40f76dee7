//! Method calls: number methods (`x.sqrt()`, `a.max(b)`, with their prelude helper and
//! signature), atomics, `len`/`is_empty` and `load4`/`store4` on slices.

use super::*;

impl Lower {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Result<Expr> {
        let name = m.method.to_string();
        if m.turbofish.is_some() {
            return Err(err(
                m,
                format!("`.{name}::<…>()` is not supported in kernels"),
            ));
        }
        match name.as_str() {
            // On a field (`p.c.len()`) the translator knows no type: the error below.
            "len" | "is_empty" if m.args.is_empty() && !is_named_field(&m.receiver) => {
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
            "load4" | "store4" => self.chunk4(m, &name),
            _ => {
                let recv = self.expr(&m.receiver)?;
                if let Ty::User(tn) = self.infer.shallow(&recv.ty) {
                    return self.device_method(m, &name, &tn, recv);
                }
                if let ExprKind::Member(_, f) = &recv.kind
                    && method_sig(&name).is_none()
                {
                    return Err(field_method(&m.method, &name, f));
                }
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

    /// `p.energy()` on a device type: its `#[cuprum::device]` method, the C++ function
    /// `cj_dev::cj_m_Type_method(p, args…)`, whose result type C++ names by `decltype`.
    fn device_method(
        &mut self,
        m: &syn::ExprMethodCall,
        name: &str,
        type_name: &str,
        recv: Expr,
    ) -> Result<Expr> {
        let Some(path) = self
            .types
            .iter()
            .find(|p| p.segments.last().is_some_and(|s| s.ident == type_name))
            .cloned()
        else {
            return Err(err(
                m,
                format!("the type of this receiver (`{type_name}`) is not known here"),
            ));
        };
        let mut args = vec![recv];
        args.extend(self.args(&m.args)?);
        for a in &args {
            if matches!(
                self.infer.shallow(&a.ty),
                Ty::Shared(..) | Ty::DynShared(_) | Ty::UInt3
            ) {
                return Err(err(
                    m,
                    "shared memory and index triples cannot be passed to device functions",
                ));
            }
        }
        let mut dep = path.clone();
        dep.segments
            .push(syn::PathSegment::from(quote::format_ident!(
                "__CUPRUM_DEVICE_FN_{}",
                name
            )));
        let key = quote::quote!(#dep).to_string();
        if !self
            .deps
            .iter()
            .any(|d| quote::quote!(#d).to_string() == key)
        {
            self.deps.push(dep);
        }
        let callee = format!("cj_dev::{}", method_cpp_name(type_name, name));
        let arg_tys = args.iter().map(|a| a.ty.clone()).collect();
        let ty = self.infer.opaque_call(callee.clone(), arg_tys);
        Ok(self.expr_of(
            ExprKind::Call {
                callee,
                targs: Vec::new(),
                args,
            },
            ty,
        ))
    }

    /// A number method: `cj::name(recv, args…)` with Rust's signature for the types.
    pub(super) fn number_method(
        &mut self,
        name: &str,
        recv: Expr,
        args: Vec<Expr>,
        at: impl Spanned,
    ) -> Result<Expr> {
        use MethodSig::*;
        let Some((helper, sig, nargs)) = method_sig(name) else {
            if let ExprKind::Member(_, f) = &recv.kind {
                return Err(field_method(at, name, f));
            }
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

    /// `x.load4(k)` (an array of four elements) and `x.store4(k, v)` on a slice parameter.
    fn chunk4(&mut self, m: &syn::ExprMethodCall, name: &str) -> Result<Expr> {
        let base = self.slice_var(&m.receiver)?;
        if !matches!(self.infer.shallow(&self.vars[base].ty), Ty::Slice { .. }) {
            return Err(err(
                &m.receiver,
                format!("`{name}` works on slice parameters (`&[T]`, `&mut [T]`)"),
            ));
        }
        let store = name == "store4";
        let want = if store { 2 } else { 1 };
        if m.args.len() != want {
            return Err(err(
                m,
                if store {
                    "`store4` takes a chunk index and an array of four elements: 2 arguments"
                } else {
                    "`load4` takes a chunk index: 1 argument"
                },
            ));
        }
        let elem = self.elem_of(base, m)?;
        let four = Ty::Array(Box::new(elem), Len::Lit(4));
        let index = self.expr(&m.args[0])?;
        let mut args = Vec::new();
        if store {
            let v = self.expr(&m.args[1])?;
            self.infer.unify(&v.ty, &four);
            args.push(v);
        }
        let site = self.site(m.span());
        let (op, ty) = if store {
            ("store4", Ty::Unit)
        } else {
            ("load4", four)
        };
        Ok(self.expr_of(
            ExprKind::Chunk4 {
                op,
                base,
                index: Box::new(index),
                site,
                args,
            },
            ty,
        ))
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

/// The error of a method called on the field `.f`, whose type the translator does not know.
fn field_method(at: impl Spanned, name: &str, f: &str) -> syn::Error {
    err(
        at,
        format!(
            "`.{name}()` on the field `.{f}` is not supported: the translator sees only the kernel, \
             so it does not know the field's type (a device type with `#[cuprum::device]` methods, \
             or a fixed array); copy the field into a local first: `let v: Vec3 = p.{f}; v.{name}(…)` \
             (the type named) for a device type's method, `let c = p.{f}; c.len()` for an array's length"
        ),
    )
}

/// Whether `e` is a named field (`p.vel`, `ps[i].c`), whose type the translator does not know.
fn is_named_field(e: &syn::Expr) -> bool {
    matches!(strip_parens(e), syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)))
}
