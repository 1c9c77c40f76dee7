//! Constants a kernel may name: `f32::MAX`, `i64::MIN`, `u32::BITS`,
//! `std::f32::consts::PI`, `WARP_SIZE`, `FULL_MASK`, and module-level constants.
//!
//! Module-level `const` items: the kernel macro sees only its own function, so a constant
//! is made visible the way device functions are: `#[cuprum::device] const SCALE: f32 =
//! 2.5;` keeps the Rust item and adds the C++ of a device function `SCALE()` returning the
//! translated initialiser (which may use literals, operators, other such constants and
//! calls of `#[cuprum::device]` functions, `const fn` ones included). NVRTC folds the
//! call to the value. A kernel names it as `SCALE` (or `path::SCALE`): an UPPER_CASE path
//! that is no local, parameter, const generic or built-in constant is such a constant, a
//! dependency of the kernel like a called device function (a `const` without the
//! attribute is then rustc's error at the name). The alternative, reading the value
//! through Rust when the program is assembled at run time, would accept any `const` but
//! needs a run-time C++ printer per type and gives kernels no compile-time check; the
//! attribute keeps the whole program fixed at compile time, as `k::SOURCE` promises.

use super::*;
use crate::ty::{Prim, Ty};

/// An UPPER_CASE name (`SCALE`, `MAX_ITERS`, `K2`).
pub(super) fn const_name(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl Lower {
    /// Whether `segs` names a module-level `#[cuprum::device]` constant: an UPPER_CASE
    /// last segment after module names (no type, type parameter or `Self`).
    pub(super) fn device_const_path(&self, segs: &[String]) -> bool {
        let Some((last, mods)) = segs.split_last() else {
            return false;
        };
        const_name(last)
            && mods.iter().all(|m| {
                m.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                    && Prim::from_name(m).is_none()
                    && !self.type_params.contains(m)
            })
    }

    /// A module-level constant: the call `cj_dev::NAME()`, a dependency of the function.
    pub(super) fn device_const(&mut self, path: &syn::Path) -> Expr {
        let dep = path.clone();
        if !self
            .deps
            .iter()
            .any(|d| quote::quote!(#d).to_string() == quote::quote!(#dep).to_string())
        {
            self.deps.push(dep);
        }
        let name = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let callee = format!("cj_dev::{}", name.trim_start_matches("r#"));
        let ty = self.infer.opaque_call(callee.clone(), Vec::new());
        self.expr_of(
            ExprKind::Call {
                callee,
                targs: Vec::new(),
                args: Vec::new(),
            },
            ty,
        )
    }
}

/// A constant path (`f32::MAX`, `i64::MIN`, `u32::BITS`, `std::f32::consts::PI`,
/// `WARP_SIZE`, `gpu::FULL_MASK`): its C++ spelling and type.
pub(super) fn constant(segs: &[String]) -> Option<(String, Ty)> {
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
