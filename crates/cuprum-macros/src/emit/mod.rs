//! The typed IR → CUDA C++ text.
//!
//! The output reads like hand-written CUDA: C++ operators wherever they already mean what
//! Rust means (floats, unsigned 32/64-bit integers, comparisons), and the prelude's `cj::`
//! helpers (cuprum/jit.cuh) where they do not: signed and 8/16-bit integer arithmetic wraps
//! as in a Rust release build, shifts mask their amount, float → int casts saturate,
//! `%` of floats is `fmod`, and every slice, shared-memory and array index goes through
//! `cj::ix`, one compare that records a fault and ends the thread on a miss. Same
//! instructions, no undefined behaviour: signed and 8/16-bit `+ - *` wrap through unsigned.
//! A division by a nonzero integer literal is C++'s own (no fault is possible).
//!
//! Checked variant: debug builds of the calling crate launch the program compiled with
//! `-DCUPRUM_JIT_CHECKED` (division by zero, `MIN / -1` and shift overflow fault, as
//! Rust's debug build panics); release builds do not check divisions, so the seed's hot
//! loop is instruction for instruction the RawKernel's (tests/jit_nvrtc.rs checks the
//! PTX). The prelude is function templates, so NVRTC analyses only what a kernel uses.
//!
//! This file holds the `Emitter` with its line and name helpers and the function's head
//! (template header, parameters); statements, blocks and loops are in `stmt`, expressions
//! (operators, casts, literals, built-ins) in `expr`, `match` in `matches`.

mod expr;
mod matches;
mod stmt;

use crate::ir::*;
use crate::ty::{Infer, Prim, Ty, cpp_type};
use proc_macro2::Span;
use std::fmt::Write as _;

/// A C++ literal of integer type `p` with value `v`.
pub fn int_lit(p: Prim, v: i128) -> String {
    match p {
        Prim::I32 if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Prim::I32 => v.to_string(),
        Prim::I64 | Prim::Isize if v == i64::MIN as i128 => "(-9223372036854775807LL - 1LL)".into(),
        Prim::I64 | Prim::Isize => format!("{v}LL"),
        Prim::U32 => format!("{v}u"),
        Prim::U64 | Prim::Usize => format!("{v}ull"),
        Prim::I8 | Prim::I16 | Prim::U8 | Prim::U16 => format!("(({}){v})", p.cpp()),
        Prim::Bool => (v != 0).to_string(),
        _ => format!("(({}){v})", p.cpp()),
    }
}

/// Where the value of an expression goes when it needs statements to compute.
#[derive(Clone)]
enum Dest {
    Assign(String),
    /// A field place (`cj::set`: an array field takes a `cj::Arr` element by element).
    Set(String),
    Return,
    Discard,
}

pub struct Emitter<'a> {
    f: &'a Func,
    infer: &'a Infer,
    out: String,
    indent: usize,
    pub errors: Vec<syn::Error>,
}

impl<'a> Emitter<'a> {
    pub fn new(f: &'a Func, infer: &'a Infer) -> Self {
        Emitter {
            f,
            infer,
            out: String::new(),
            indent: 0,
            errors: Vec::new(),
        }
    }

    fn ty(&self, t: &Ty) -> Ty {
        self.infer.resolve(t)
    }

    fn cty(&self, t: &Ty) -> String {
        cpp_type(&self.ty(t))
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn error(&mut self, span: Span, msg: &str) {
        self.errors.push(syn::Error::new(span, msg));
    }

    fn var(&self, id: usize) -> &str {
        &self.f.vars[id].cpp
    }

    // ---- the function ---------------------------------------------------------------------

    fn template_header(&self) -> Option<String> {
        if self.f.generic_order.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .f
            .generic_order
            .iter()
            .map(|g| match self.f.const_params.iter().find(|c| &c.0 == g) {
                Some((n, p)) => format!("{} {n}", p.cpp()),
                None => format!("typename {g}"),
            })
            .collect();
        Some(format!("template <{}>", parts.join(", ")))
    }

    fn param_list(&self) -> String {
        let mut v = Vec::new();
        for p in &self.f.params {
            let name = self.var(p.var);
            match self.ty(&p.ty) {
                Ty::Slice { elem, mutable } => {
                    let c = if mutable { "" } else { "const " };
                    v.push(format!("{c}{}* __restrict__ {name}", cpp_type(&elem)));
                    v.push(format!("const unsigned long long cj_len_{name}"));
                }
                t if p.by_ref => v.push(format!("{}& {name}", cpp_type(&t))),
                t => v.push(format!("{} {name}", cpp_type(&t))),
            }
        }
        v.join(", ")
    }

    /// The kernel's `__global__` function or the device function's definition.
    pub fn function(mut self) -> (String, String, Vec<syn::Error>) {
        let f = self.f;
        let tmpl = self.template_header();
        let params = self.param_list();
        let mut proto = String::new();
        if f.kernel {
            match &tmpl {
                Some(t) => {
                    self.line(t);
                    self.line(&format!("__global__ void {}({params}) {{", f.name));
                }
                None => self.line(&format!(
                    "extern \"C\" __global__ void {}({params}) {{",
                    f.name
                )),
            }
        } else {
            let ret = self.cty(&f.ret);
            let head = format!("__device__ inline {ret} {}({params})", f.name);
            let t = tmpl.map(|t| format!("{t} ")).unwrap_or_default();
            let _ = write!(proto, "namespace cj_dev {{ {t}{head}; }}");
            self.line("namespace cj_dev {");
            if !t.is_empty() {
                self.line(t.trim_end());
            }
            self.line(&format!("{head} {{"));
        }
        self.indent += 1;
        if f.kernel && f.cooperative {
            self.line("cj::grid_sync_init();");
        }
        let dest = if f.kernel {
            Dest::Discard
        } else {
            Dest::Return
        };
        self.block_body(&f.body, dest);
        self.indent -= 1;
        self.line("}");
        if !f.kernel {
            self.line("}  // namespace cj_dev");
        }
        (self.out, proto, self.errors)
    }
}
