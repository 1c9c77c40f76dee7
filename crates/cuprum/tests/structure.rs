//! The shape of the code, checked: no import circles between source files of any crate of
//! the workspace, no file of `cuprum` imports a layer above its own (the order of
//! ARCHITECTURE.md's layer diagram), the ground floor (`error.rs`) imports nothing of its
//! crate, and every path ARCHITECTURE.md names exists.
//!
//! An import is a `use` of a path of the crate (`crate::…`, `super::…`, `self::…`, or a
//! child module's name) or an inline path in code (`crate::compile::CompileFailure`). A
//! path leads to the file that defines its item, following re-exports (`pub use x::Y` in a
//! folder's `mod.rs` leads on to `x.rs`); a path to a module, or to a name no file is seen
//! to define, leads to that module's file. So a `mod.rs` that only declares and re-exports
//! is a face, not a room: a file may import a sibling's item through it. Comments, string
//! literals and `#[cfg(test)] mod tests` blocks are not read.
//!
//! These checks read the source tree at run time: a binary moved away from its checkout
//! (the GPU suite's copy) skips them, saying so.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// Whether the source tree this binary was built from is here to read; when it is not, the
/// running test is skipped with the reason (`SKIPPED <test>: …`).
fn tree_is_here() -> bool {
    let map = workspace().join("ARCHITECTURE.md");
    if map.is_file() {
        return true;
    }
    common::skip(
        common::Need::Other,
        &format!(
            "the source tree is absent ({} not found): these checks read the checkout",
            map.display()
        ),
    );
    false
}

/// `path` relative to the workspace, with `/` separators.
fn rel(path: &Path) -> String {
    let root = workspace().canonicalize().unwrap();
    let p = path.canonicalize().unwrap();
    p.strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// One source file of a crate: its module path (`["runtime", "cuda", "driver"]`) and file.
struct Unit {
    module: Vec<String>,
    file: PathBuf,
}

/// Every `.rs` file under `src` with its module path (a `mod.rs`, `lib.rs` or `main.rs` is
/// its folder's module).
fn units(src: &Path) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let r = p.strip_prefix(src).unwrap();
                let mut module: Vec<String> = r
                    .parent()
                    .map(|d| {
                        d.components()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                let is_root = module.is_empty() && (stem == "lib" || stem == "main");
                if stem != "mod" && !is_root {
                    module.push(stem);
                }
                out.push(Unit { module, file: p });
            }
        }
    }
    out
}

/// The source without comments and without the contents of string and char literals.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == 'r' && (b.get(i + 1) == Some(&'"') || b.get(i + 1) == Some(&'#')) {
            // raw string r"…" or r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') && (i == 0 || !b[i - 1].is_alphanumeric()) {
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
                continue;
            }
        }
        if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
            continue;
        }
        if c == '\''
            && i + 2 < b.len()
            && (b[i + 2] == '\'' || (b[i + 1] == '\\' && b.get(i + 3) == Some(&'\'')))
        {
            // a char literal, not a lifetime
            i += if b[i + 1] == '\\' { 4 } else { 3 };
            out.push_str("' '");
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The paths a `use` tree names: `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (the
/// caller has removed `as` renames).
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    fn go(prefix: &str, t: &str, out: &mut Vec<String>) {
        if let Some(open) = t.find('{') {
            let head = &t[..open];
            let body = &t[open + 1..t.len().saturating_sub(1)];
            let mut depth = 0;
            let mut start = 0;
            let bytes = body.as_bytes();
            for (i, &ch) in bytes.iter().enumerate() {
                match ch {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    b',' if depth == 0 => {
                        go(&format!("{prefix}{head}"), &body[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if start < body.len() {
                go(&format!("{prefix}{head}"), &body[start..], out);
            }
        } else if !t.is_empty() {
            out.push(format!("{prefix}{t}"));
        }
    }
    let mut out = Vec::new();
    go("", &tree, &mut out);
    out
}

/// One file's code, read once: what it defines and what its `use` statements and inline
/// paths name.
struct FileCode {
    /// Names the file defines (fn, struct, enum, trait, type, const, static, macro, mod).
    defines: BTreeSet<String>,
    /// Every identifier of its code (names a macro defines are only seen here).
    words: BTreeSet<String>,
    /// `(name it is known by, path, inline module it is written in)` for each path a `use`
    /// statement names (inline modules: `mod sealed { use super::*; }` reads `super` from
    /// inside `sealed`).
    uses: Vec<(String, String, Vec<String>)>,
    /// `(path, inline module)` of each `crate::…`/`super::…` path written in code.
    inline: Vec<(String, Vec<String>)>,
}

/// Inline modules of a file: `(body start, body end, name, is a test module)`.
fn inline_modules(code: &str) -> Vec<(usize, usize, String, bool)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("mod ") {
        let at = from + p;
        from = at + 4;
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = at + 4 + rest.find('{').unwrap_or(0);
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, ch) in code[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let head = &code[..at];
        let is_test = head.trim_end().ends_with("#[cfg(test)]") || name == "tests";
        out.push((open, end, name, is_test));
    }
    out
}

/// The inline module chain at `pos`, or `None` inside a test module.
fn module_at(mods: &[(usize, usize, String, bool)], pos: usize) -> Option<Vec<String>> {
    let mut chain: Vec<&(usize, usize, String, bool)> =
        mods.iter().filter(|m| m.0 < pos && pos < m.1).collect();
    chain.sort_by_key(|m| m.0);
    if chain.iter().any(|m| m.3) {
        return None;
    }
    Some(chain.iter().map(|m| m.2.clone()).collect())
}

fn read_code(file: &Path) -> FileCode {
    let code = code_only(&std::fs::read_to_string(file).unwrap());
    let mods = inline_modules(&code);
    let mut defines = BTreeSet::new();
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    for w in words.windows(2) {
        if matches!(
            w[0],
            "fn" | "struct"
                | "enum"
                | "trait"
                | "type"
                | "const"
                | "static"
                | "mod"
                | "union"
                | "macro_rules!"
        ) {
            defines.insert(w[1].trim_end_matches('!').to_string());
        }
    }
    let mut uses = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("use ") {
        let at = from + p;
        let before_ok = at == 0 || {
            let c = code.as_bytes()[at - 1];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        let after = &code[at + 4..];
        let Some(end) = after.find(';') else { break };
        from = at + 4 + end;
        let stmt = &after[..end];
        let Some(inner) = module_at(&mods, at) else {
            continue;
        };
        if !before_ok || stmt.contains('(') || stmt.contains('=') {
            continue;
        }
        // `a::b as c`: the path, known here as `c`
        let mut renamed = Vec::new();
        let plain: String = stmt
            .split(',')
            .map(|part| match part.find(" as ") {
                Some(i) => {
                    let tail = &part[i + 4..];
                    let alias: String = tail
                        .chars()
                        .filter(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let close = tail.chars().filter(|&c| c == '}').count();
                    let orig: String = part[..i].chars().filter(|c| !c.is_whitespace()).collect();
                    renamed.push((orig, alias));
                    format!("{}{}", &part[..i], "}".repeat(close))
                }
                None => part.to_string(),
            })
            .collect::<Vec<_>>()
            .join(",");
        for path in expand_use(&plain) {
            let last = path.rsplit("::").next().unwrap_or("").to_string();
            let known = renamed
                .iter()
                .find(|(orig, _)| orig.ends_with(&last))
                .map(|(_, a)| a.clone())
                .unwrap_or(last);
            uses.push((known, path, inner.clone()));
        }
    }
    let mut inline = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(p) = code[from..].find(start) {
            let at = from + p;
            let before_ok = at == 0 || {
                let c = code.as_bytes()[at - 1];
                !(c.is_ascii_alphanumeric() || c == b'_' || c == b':')
            };
            let tail = &code[at..];
            let len = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            from = at + len.max(1);
            // `use a::{…}` is read with the use statements: skip its `a::` here; a
            // visibility (`pub(in crate::runtime)`) names a module, it imports nothing
            let path = &tail[..len];
            let before_ok = before_ok && !code[..at].trim_end().ends_with("(in");
            if let (true, false, Some(inner)) =
                (before_ok, path.ends_with("::"), module_at(&mods, at))
            {
                inline.push((path.to_string(), inner));
            }
        }
    }
    let words = words.iter().map(|w| w.to_string()).collect();
    FileCode {
        defines,
        words,
        uses,
        inline,
    }
}

/// The crate's files and how a path names them.
struct Crate {
    modules: BTreeSet<Vec<String>>,
    files: BTreeMap<Vec<String>, FileCode>,
}

impl Crate {
    /// The files `path` (as written in module `here`) names: the file that defines its last
    /// item, following re-exports (`pub use x::Y`); the module file itself when the path
    /// ends at a module, at `*`, or at a name no file is seen to define.
    fn resolve(&self, here: &[String], path: &str, depth: usize) -> Option<Vec<String>> {
        let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let &first = segs.first()?;
        let (mut m, rest): (Vec<String>, &[&str]) = match first {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (here.to_vec(), &segs[1..]),
            "super" => {
                let mut b = here.to_vec();
                let mut k = 0;
                while segs.get(k) == Some(&"super") {
                    b.pop();
                    k += 1;
                }
                (b, &segs[k..])
            }
            s => {
                let mut child = here.to_vec();
                child.push(s.to_string());
                if !self.modules.contains(&child) {
                    return None;
                }
                (child, &segs[1..])
            }
        };
        let mut i = 0;
        while i < rest.len() {
            let mut next = m.clone();
            next.push(rest[i].to_string());
            if self.modules.contains(&next) {
                m = next;
                i += 1;
            } else {
                break;
            }
        }
        // the item named after the module part, if any
        let Some(&item) = rest.get(i) else {
            return Some(m);
        };
        if item == "*" || depth > 8 {
            return Some(m);
        }
        let fc = self.files.get(&m)?;
        if fc.defines.contains(item) {
            return Some(m);
        }
        for (known, p, inner) in &fc.uses {
            let from: Vec<String> = m.iter().chain(inner).cloned().collect();
            if known == item
                && let Some(t) = self.resolve(&from, p, depth + 1)
            {
                return Some(t);
            }
        }
        // a glob re-export (`pub use x::*`) of a module that has the item
        for (known, p, inner) in &fc.uses {
            if known != "*" {
                continue;
            }
            let from: Vec<String> = m.iter().chain(inner).cloned().collect();
            let via = format!("{}::{item}", p.trim_end_matches("::*"));
            if let Some(t) = self.resolve(&from, &via, depth + 1)
                && self
                    .files
                    .get(&t)
                    .is_some_and(|f| f.defines.contains(item) || f.words.contains(item))
            {
                return Some(t);
            }
        }
        Some(m)
    }

    /// The module paths one file's code names.
    fn imports(&self, here: &[String]) -> BTreeSet<Vec<String>> {
        let fc = &self.files[here];
        let mut out = BTreeSet::new();
        let paths = fc
            .uses
            .iter()
            .map(|(_, p, inner)| (p, inner))
            .chain(fc.inline.iter().map(|(p, inner)| (p, inner)));
        let debug = std::env::var("STRUCTURE_DEBUG").ok();
        for (p, inner) in paths {
            // an inline module is a module of its own: `super` there is this file
            let from: Vec<String> = here.iter().chain(inner).cloned().collect();
            if let Some(t) = self.resolve(&from, p, 0) {
                if debug.as_deref() == Some(&here.join("::")) {
                    eprintln!("{p} (in {inner:?}) -> {t:?}");
                }
                out.insert(t);
            }
        }
        out.remove(here);
        out
    }
}

/// The import graph of one crate's `src`: file → files it imports.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let units = units(src);
    let modules: BTreeSet<Vec<String>> = units.iter().map(|u| u.module.clone()).collect();
    let file_of: BTreeMap<Vec<String>, String> = units
        .iter()
        .map(|u| (u.module.clone(), rel(&u.file)))
        .collect();
    let files = units
        .iter()
        .map(|u| (u.module.clone(), read_code(&u.file)))
        .collect();
    let krate = Crate { modules, files };
    units
        .iter()
        .map(|u| {
            let to = krate
                .imports(&u.module)
                .iter()
                .filter_map(|m| file_of.get(m).cloned())
                .collect();
            (rel(&u.file), to)
        })
        .collect()
}

/// The strongly connected components with more than one file (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.g.contains_key(w) {
                    continue;
                }
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on.remove(w);
                    comp.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

fn crate_sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    if !tree_is_here() {
        return;
    }
    let mut found = Vec::new();
    for src in crate_sources() {
        let g = graph(&src);
        for c in circles(&g) {
            let ties: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    g[a].iter()
                        .filter(|b| c.contains(b))
                        .map(move |b| format!("  {a} -> {b}"))
                })
                .collect();
            found.push(format!(
                "a circle of {} files:\n{}",
                c.len(),
                ties.join("\n")
            ));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The layers of ARCHITECTURE.md's diagram, bottom first: the top-level modules of `src`
/// each line names (a line's first column, `fuse · nccl · dist`, before two spaces; other
/// crates and indented notes are not modules of `src`).
fn layers(src: &Path) -> Vec<Vec<String>> {
    let map = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let block = map
        .split("## Layers")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("ARCHITECTURE.md has a `## Layers` section with a diagram in a code block");
    let is_module = |m: &str| src.join(format!("{m}.rs")).is_file() || src.join(m).is_dir();
    let mut v: Vec<Vec<String>> = block
        .lines()
        .filter(|l| l.starts_with(' ') && !l.starts_with("  "))
        .map(|l| {
            let names = l.trim_start().split("  ").next().unwrap_or("");
            names
                .split(" · ")
                .map(str::trim)
                .filter(|m| is_module(m))
                .map(String::from)
                .collect::<Vec<String>>()
        })
        .filter(|line| !line.is_empty())
        .collect();
    v.reverse();
    v
}

/// The top-level module of a file of `src` (`array` for `…/src/array/view.rs`, `memo` for
/// `…/src/memo.rs`).
fn top_module(file: &str) -> String {
    let rest = file.split("/src/").nth(1).unwrap_or(file);
    let first = rest.split('/').next().unwrap_or(rest);
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_file_imports_a_layer_above_its_own() {
    if !tree_is_here() {
        return;
    }
    let src = workspace().join("crates/cuprum/src");
    let layers = layers(&src);
    let rank: BTreeMap<String, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, line)| line.iter().map(move |m| (m.clone(), i)))
        .collect();
    // Every top-level module has its place, but the crate root and its helper: `lib.rs` (the
    // face) and `build.rs` (the face of `kernel/jit/prebuilt.rs` for build scripts).
    let g = graph(&src);
    let unplaced: BTreeSet<String> = g
        .keys()
        .map(|f| top_module(f))
        .filter(|m| !rank.contains_key(m) && !["lib", "build"].contains(&m.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules ARCHITECTURE.md's layer diagram does not place: {unplaced:?}"
    );
    for (low, high) in [
        ("error", "runtime"),
        ("dtype", "kernel_abi"),
        ("kernel_abi", "array"),
    ] {
        assert!(
            rank[low] < rank[high],
            "the diagram puts {low} at or above {high}"
        );
    }
    let mut found = Vec::new();
    for (a, tos) in &g {
        let Some(&ra) = rank.get(&top_module(a)) else {
            continue;
        };
        for b in tos {
            if let Some(&rb) = rank.get(&top_module(b))
                && rb > ra
            {
                found.push(format!(
                    "  {a} ({}) -> {b} ({})",
                    top_module(a),
                    top_module(b)
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files importing a layer above their own:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_ground_floor_imports_nothing_of_its_crate() {
    if !tree_is_here() {
        return;
    }
    let src = workspace().join("crates/cuprum/src");
    let g = graph(&src);
    let error = rel(&src.join("error.rs"));
    assert_eq!(
        g[&error],
        BTreeSet::new(),
        "error.rs imports {:?}",
        g[&error]
    );
}

#[test]
fn every_path_architecture_md_names_exists() {
    if !tree_is_here() {
        return;
    }
    let root = workspace();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    // A path is read from the repository root, from a crate's `src/`, or from a folder the
    // map named before it (`kernel/` then `codegen/`, then `codegen/layout.rs`).
    let mut bases: Vec<PathBuf> = vec![root.clone(), root.join("crates/cuprum")];
    bases.extend(crate_sources());
    for word in text.split(|c: char| c.is_whitespace() || "`()[],;|".contains(c)) {
        let w = word.trim_end_matches(['.', ':']);
        let looks_like_path = w.contains('/')
            && !w.contains("://")
            && !w.starts_with('-')
            && w.chars()
                .all(|c| c.is_alphanumeric() || "_-./*".contains(c))
            && (w.ends_with(".rs")
                || w.ends_with(".cuh")
                || w.ends_with(".h")
                || w.ends_with(".md")
                || w.ends_with('/'));
        if !looks_like_path || w.contains('*') {
            continue;
        }
        checked += 1;
        // the latest folders first: a name is read in the section it stands in
        match bases.iter().rev().map(|b| b.join(w)).find(|p| p.exists()) {
            Some(p) if p.is_dir() => bases.push(p),
            Some(_) => {}
            None => missing.push(w.to_string()),
        }
    }
    assert!(checked > 10, "ARCHITECTURE.md names only {checked} paths");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// The map names every source file (a folder's `mod.rs` through its folder), so a new file
/// cannot land without a line saying what it holds.
#[test]
fn architecture_md_maps_every_source_file() {
    if !tree_is_here() {
        return;
    }
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let mut unmapped = Vec::new();
    for src in crate_sources() {
        for u in units(&src) {
            let name = u.file.file_name().unwrap().to_string_lossy().into_owned();
            let named = if name == "mod.rs" {
                let folder = u
                    .file
                    .parent()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy();
                text.contains(&format!("{folder}/"))
            } else {
                text.contains(&format!("`{name}`")) || text.contains(&format!("/{name}`"))
            };
            if !named {
                unmapped.push(rel(&u.file));
            }
        }
    }
    unmapped.sort();
    assert!(
        unmapped.is_empty(),
        "ARCHITECTURE.md does not name these files (one line per file, saying what it holds): {unmapped:?}"
    );
}

#[test]
fn architecture_md_is_a_short_map() {
    if !tree_is_here() {
        return;
    }
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "ARCHITECTURE.md has {lines} lines: keep it a map (≤ 250); decisions belong in the //! doc of the module they govern"
    );
}

#[cfg(test)]
mod self_checks {
    use super::*;

    #[test]
    fn use_trees_expand() {
        let mut v = expand_use("super::{a, b::{C, D}, e::F}");
        v.sort();
        assert_eq!(v, ["super::a", "super::b::C", "super::b::D", "super::e::F"]);
    }

    #[test]
    fn comments_and_strings_are_not_code() {
        let c = code_only(
            "let x = \"crate::a\"; // crate::b\nuse crate::c; /* crate::d */ r#\"crate::e\"#",
        );
        assert!(c.contains("crate::c") && !c.contains("crate::a") && !c.contains("crate::b"));
        assert!(!c.contains("crate::d") && !c.contains("crate::e"), "{c}");
    }
}
