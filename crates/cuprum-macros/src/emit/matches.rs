//! `match`: an `if` / `else if` chain over the scrutinee computed once (bindings declared
//! before the chain, so that guards see them), or a `?:` chain when the scrutinee is a
//! variable or constant and every arm is a plain value without bindings. The last arm that
//! can be reached is the final `else` (rustc checked exhaustiveness).
//!
//! A binding takes its value from its place in the scrutinee (`s`, `s.Variant.field`).
//! When an or-pattern's alternatives bind one name from different places
//! (`A(k) | B { hi: k, .. }`), the arm's test assigns the bindings alternative by
//! alternative (`(k = s.A.f0, true)`), so that they hold the matching alternative's values,
//! and tests the guard after each matching alternative, as rustc does; the final `else`
//! assigns them in a statement of its own.

use super::*;

impl Emitter<'_> {
    /// Whether the `match` is a C++ expression (a `?:` chain).
    pub(super) fn match_pure(&self, scrut: &Expr, arms: &[Arm]) -> bool {
        let simple = matches!(
            scrut.kind,
            ExprKind::Var(_) | ExprKind::ConstParam(_) | ExprKind::CppConst(_) | ExprKind::Lit(_)
        );
        simple
            && arms.iter().all(|a| {
                let mut b = Vec::new();
                a.pat.bindings(&mut b);
                b.is_empty() && a.guard.as_ref().is_none_or(|g| self.pure(g)) && self.pure(&a.body)
            })
    }

    /// The arms that can run: up to and including the first one that matches everything.
    fn reachable(arms: &[Arm]) -> &[Arm] {
        let end = arms
            .iter()
            .position(|a| a.guard.is_none() && matches_all(&a.pat))
            .map_or(arms.len(), |k| k + 1);
        &arms[..end]
    }

    /// The `?:` chain of a pure `match`.
    pub(super) fn match_value(&mut self, scrut: &Expr, arms: &[Arm]) -> (String, u8) {
        let s = self.value(scrut);
        let arms = Self::reachable(arms);
        let mut out = String::new();
        for (k, a) in arms.iter().enumerate() {
            if k + 1 == arms.len() {
                let v = self.sub(&a.body, 3);
                out.push_str(&v);
                break;
            }
            let c = self.arm_cond(a, &s).unwrap_or_else(|| "true".into());
            let v = self.sub(&a.body, 4);
            let _ = write!(out, "{c} ? {v} : ");
        }
        (out, 3)
    }

    /// The statements of a `match` whose value goes to `dest`.
    pub(super) fn match_stmt(&mut self, scrut: &Expr, tmp: usize, arms: &[Arm], dest: &Dest) {
        let arms = Self::reachable(arms);
        let mut binds = Vec::new();
        for a in arms {
            a.pat.bindings(&mut binds);
        }
        binds.dedup();
        let direct = matches!(
            scrut.kind,
            ExprKind::Var(_) | ExprKind::ConstParam(_) | ExprKind::CppConst(_)
        );
        let scoped = !direct || !binds.is_empty();
        if scoped {
            self.line("{");
            self.indent += 1;
        }
        let s = if direct {
            self.value(scrut)
        } else {
            let t = self.cty(&scrut.ty);
            let name = self.var(tmp).to_string();
            if self.pure(scrut) {
                let v = self.value(scrut);
                self.line(&format!("const {t} {name} = {v};"));
            } else {
                self.line(&format!("{t} {name};"));
                self.into(scrut, Dest::Assign(name.clone()));
            }
            name
        };
        let mut sources = Vec::new();
        for a in arms {
            a.pat.binding_sources(&s, &mut sources);
        }
        // Each binding once, from its first place; one an or-pattern binds from several
        // places is assigned again by the alternative that matched (`bind_cond`).
        let mut declared = Vec::new();
        for (v, from) in sources {
            if declared.contains(&v) {
                continue;
            }
            declared.push(v);
            let t = self.cty(&self.f.vars[v].ty);
            let name = self.var(v).to_string();
            self.line(&format!("{t} {name} = {from};"));
        }
        for (k, a) in arms.iter().enumerate() {
            let last = k + 1 == arms.len();
            let pick = a.pat.binds_by_alternative();
            match (k, last) {
                (0, true) => self.line("{"),
                (_, true) => self.line("} else {"),
                _ => {
                    let c = if pick {
                        let g = a.guard.as_ref().map(|g| self.sub(g, 5));
                        self.bind_cond(&[(&a.pat, s.clone())], g.as_deref())
                    } else {
                        self.arm_cond(a, &s).unwrap_or_else(|| "true".into())
                    };
                    let prefix = if k == 0 { "" } else { "} else " };
                    self.line(&format!("{prefix}if ({c}) {{"));
                }
            }
            self.indent += 1;
            if last && pick {
                // The arm that matches when no other did: only its bindings to assign.
                let c = self.bind_cond(&[(&a.pat, s.clone())], None);
                self.line(&format!("(void)({c});"));
            }
            match &a.body.kind {
                ExprKind::Block(b) => self.block_body(b, dest.clone()),
                _ => self.into(&a.body, dest.clone()),
            }
            self.indent -= 1;
        }
        self.line("}");
        if scoped {
            self.indent -= 1;
            self.line("}");
        }
    }

    /// The condition of an arm (pattern and guard), `None` when it always matches.
    fn arm_cond(&mut self, a: &Arm, s: &str) -> Option<String> {
        let p = self.pat_cond(&a.pat, s);
        let g = a.guard.as_ref().map(|g| self.sub(g, 5));
        match (p, g) {
            (Some(p), Some(g)) => Some(format!("{p} && {g}")),
            (p, g) => p.or(g),
        }
    }

    /// The test of patterns against C++ places (`items`, in order) that also assigns their
    /// bindings as it goes, then `then` (a guard; precedence 5 or tighter), for an arm whose
    /// or-pattern binds a name from different places (`A(k) | B { hi: k, .. }`): each
    /// alternative is tried in turn with the rest of the test after it (the later fields,
    /// the guard), so the bindings are those of the alternative that matched and a guard is
    /// tested with each matching alternative's, as rustc does. Precedence 5 or tighter.
    fn bind_cond(&mut self, items: &[(&Pat, String)], then: Option<&str>) -> String {
        let Some(((p, s), rest)) = items.split_first() else {
            return then.unwrap_or("true").to_string();
        };
        let and = |c: String, r: String| {
            if r == "true" {
                c
            } else {
                format!("{c} && {r}")
            }
        };
        match p {
            Pat::Wild => self.bind_cond(rest, then),
            Pat::Bind { var, sub } => {
                let mut next: Vec<(&Pat, String)> = Vec::new();
                if let Some(q) = sub {
                    next.push((&**q, s.clone()));
                }
                next.extend(rest.iter().cloned());
                let r = self.bind_cond(&next, then);
                format!("({} = {s}, {r})", self.var(*var))
            }
            Pat::Value(_) | Pat::Range { .. } => {
                let r = self.bind_cond(rest, then);
                match self.pat_cond(p, s) {
                    Some(c) => and(c, r),
                    None => r,
                }
            }
            Pat::Variant {
                ty,
                variant,
                fields,
            } => {
                let mut next: Vec<(&Pat, String)> = fields
                    .iter()
                    .map(|(f, q)| (q, format!("{s}.{variant}.{f}")))
                    .collect();
                next.extend(rest.iter().cloned());
                let r = self.bind_cond(&next, then);
                and(format!("{s}.tag == {ty}::tag_{variant}"), r)
            }
            Pat::Or(alts) => {
                let mut cs = Vec::new();
                for a in alts {
                    let mut next = vec![(a, s.clone())];
                    next.extend(rest.iter().cloned());
                    let c = self.bind_cond(&next, then);
                    cs.push(if c.contains("&&") {
                        format!("({c})")
                    } else {
                        c
                    });
                }
                format!("({})", cs.join(" || "))
            }
        }
    }

    /// The test of a pattern against the scrutinee `s` (precedence 5 or tighter), `None`
    /// when it matches every value.
    fn pat_cond(&mut self, p: &Pat, s: &str) -> Option<String> {
        match p {
            Pat::Wild => None,
            Pat::Bind { sub, .. } => sub.as_ref().and_then(|q| self.pat_cond(q, s)),
            Pat::Value(x) => {
                let v = self.sub(x, 10);
                Some(format!("{s} == {v}"))
            }
            Pat::Range { lo, hi, inclusive } => {
                let mut parts = Vec::new();
                if let Some(l) = lo {
                    let v = self.sub(l, 11);
                    parts.push(format!("{s} >= {v}"));
                }
                if let Some(h) = hi {
                    let v = self.sub(h, 11);
                    let op = if *inclusive { "<=" } else { "<" };
                    parts.push(format!("{s} {op} {v}"));
                }
                (!parts.is_empty()).then(|| parts.join(" && "))
            }
            Pat::Variant {
                ty,
                variant,
                fields,
            } => {
                let mut parts = vec![format!("{s}.tag == {ty}::tag_{variant}")];
                for (f, p) in fields {
                    if let Some(c) = self.pat_cond(p, &format!("{s}.{variant}.{f}")) {
                        parts.push(format!("({c})"));
                    }
                }
                Some(parts.join(" && "))
            }
            Pat::Or(alts) => {
                let mut cs = Vec::new();
                for a in alts {
                    let c = self.pat_cond(a, s)?;
                    cs.push(if c.contains("&&") {
                        format!("({c})")
                    } else {
                        c
                    });
                }
                Some(format!("({})", cs.join(" || ")))
            }
        }
    }
}

/// Whether a pattern matches every value (`_`, a binding, `x @ _`, an or with one such).
fn matches_all(p: &Pat) -> bool {
    match p {
        Pat::Wild => true,
        Pat::Bind { sub, .. } => sub.as_deref().is_none_or(matches_all),
        Pat::Or(alts) => alts.iter().any(matches_all),
        Pat::Range { lo, hi, .. } => lo.is_none() && hi.is_none(),
        Pat::Value(_) | Pat::Variant { .. } => false,
    }
}
