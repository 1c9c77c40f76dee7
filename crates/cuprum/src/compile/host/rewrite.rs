//! The source rewriter of the host device: what C++ cannot express through the shim's
//! macros is done here, on tokens (comments, string and character literals, raw strings
//! and line continuations are understood), before the system compiler sees the source.
//!
//! - **Refusal.** Constructs that cannot run on the CPU are refused before compiling, with
//!   the line: inline PTX (`asm`), texture and surface references (`texture<…>`,
//!   `surface<…>`) and layered, cubemap and gather fetches (texture and surface *objects*
//!   with `tex1Dfetch`, `tex1D`/`2D`/`3D`, their `Lod`/`Grad` forms and `surf1D`/`2D`/`3D`
//!   reads and writes are the prelude's `texture.h`), tensor-core (`wmma`) code, dynamic
//!   parallelism (`<<<`), thread-block clusters, asynchronous copies, and headers that have
//!   no host stand-in (`cuda/…`, `cub/…`, `thrust/…`, `curand_kernel.h`, `mma.h`).
//!   Regions under `#ifdef __CUPRUM_HOST__`'s other branch (`#ifndef __CUPRUM_HOST__`,
//!   `#if !defined(__CUPRUM_HOST__)`, their `#else`) are not scanned, so a kernel can keep
//!   its GPU-only path beside a host one.
//! - **`extern __shared__`.** Inside a function, `extern __shared__ T name[];` becomes
//!   `T* const name = (T*)` the block's dynamic shared memory; at namespace scope the
//!   declaration goes and every later use of `name` is that expression (all such arrays
//!   alias one area, as in CUDA).
//! - **Kernel entries.** Every `__global__` function is found (its name, its namespace,
//!   whether it is a template, whether it has C linkage); `extern "C"` kernels are renamed
//!   (`__cuprum_k_<name>`) so that a kernel named like a C library function (`exp`,
//!   `round`, `index`) cannot clash with it. `__device__`/`__constant__` variables at
//!   namespace scope are listed for `get_global`.
//!
//! Edits never add or remove a line, so the compiler's line numbers are the user's.

use crate::error::{Error, ErrorKind, Result};

/// A token of the source: its kind and byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    /// A whole preprocessor line (with its continuations).
    Directive,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Tok,
    start: usize,
    end: usize,
    line: usize,
}

/// Splits `src` into tokens, skipping comments and whitespace.
fn tokenize(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1usize);
    let mut at_line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            at_line_start = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            line += 1;
            i += 2;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                // a line comment continues over a backslash-newline
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    line += 1;
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        let start = i;
        let start_line = line;
        if c == b'#' && at_line_start {
            // a directive: up to the end of the line, over continuations and comments
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    line += 1;
                    i += 2;
                    continue;
                }
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    i += 2;
                    while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                        if b[i] == b'\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    i = (i + 2).min(b.len());
                    continue;
                }
                if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    break;
                }
                i += 1;
            }
            out.push(Token {
                kind: Tok::Directive,
                start,
                end: i,
                line: start_line,
            });
            continue;
        }
        at_line_start = false;
        // raw string literal: R"delim( ... )delim" (with an optional prefix)
        if let Some(q) = raw_string_quote(b, i) {
            let open = match b[q + 1..].iter().position(|&x| x == b'(') {
                Some(p) => q + 1 + p,
                None => b.len(),
            };
            let delim = &b[q + 1..open.min(b.len())];
            let mut j = open + 1;
            while j < b.len() {
                if b[j] == b')'
                    && b[j + 1..].starts_with(delim)
                    && b.get(j + 1 + delim.len()) == Some(&b'"')
                {
                    j += delim.len() + 2;
                    break;
                }
                if b[j] == b'\n' {
                    line += 1;
                }
                j += 1;
            }
            i = j.min(b.len());
            out.push(Token {
                kind: Tok::Str,
                start,
                end: i,
                line: start_line,
            });
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            out.push(Token {
                kind: if c == b'"' { Tok::Str } else { Tok::Char },
                start,
                end: i,
                line: start_line,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            // an encoding prefix glued to a string (u8"..", L'x')
            if i < b.len()
                && (b[i] == b'"' || b[i] == b'\'')
                && matches!(&src[start..i], "u8" | "u" | "U" | "L")
            {
                continue_string(b, &mut i);
                out.push(Token {
                    kind: Tok::Str,
                    start,
                    end: i,
                    line: start_line,
                });
                continue;
            }
            out.push(Token {
                kind: Tok::Ident,
                start,
                end: i,
                line: start_line,
            });
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() {
                let x = b[i];
                let exponent_sign =
                    (x == b'+' || x == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if x.is_ascii_alphanumeric()
                    || x == b'.'
                    || x == b'_'
                    || x == b'\''
                    || exponent_sign
                {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token {
                kind: Tok::Number,
                start,
                end: i,
                line: start_line,
            });
            continue;
        }
        let len = if b[i..].starts_with(b"<<<") || b[i..].starts_with(b">>>") {
            3
        } else if b[i..].starts_with(b"::") || b[i..].starts_with(b"->") {
            2
        } else {
            1
        };
        i += len;
        out.push(Token {
            kind: Tok::Punct,
            start,
            end: i,
            line: start_line,
        });
    }
    out
}

/// The index of the opening quote of a raw string literal starting at `i`, if one does.
fn raw_string_quote(b: &[u8], i: usize) -> Option<usize> {
    for p in ["R\"", "u8R\"", "uR\"", "UR\"", "LR\""] {
        if b[i..].starts_with(p.as_bytes())
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            return Some(i + p.len() - 1);
        }
    }
    None
}

fn continue_string(b: &[u8], i: &mut usize) {
    let q = b[*i];
    *i += 1;
    while *i < b.len() && b[*i] != q && b[*i] != b'\n' {
        if b[*i] == b'\\' {
            *i += 1;
        }
        *i += 1;
    }
    *i = (*i + 1).min(b.len());
}

/// A `__global__` function found in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KernelDecl {
    /// The name a user asks for (`vector_add`; `ns::k` inside a namespace).
    pub name: String,
    /// The C++ expression of the function after the rewrite (`__cuprum_k_vector_add`).
    pub expr: String,
    /// A function template (reachable only through a name expression).
    pub template: bool,
}

/// A `__device__`/`__constant__` variable at namespace scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GlobalDecl {
    pub name: String,
    pub expr: String,
}

/// The rewritten source and what it declares.
#[derive(Debug, Clone)]
pub(crate) struct Rewritten {
    pub source: String,
    pub kernels: Vec<KernelDecl>,
    pub globals: Vec<GlobalDecl>,
}

/// Which branch of a conditional the host compile takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Branch {
    Taken,
    Skipped,
    Unknown,
}

/// `+1`: the condition holds on the host device, `-1`: it does not, `0`: unknown.
fn host_condition(directive: &str, cond: &str) -> i32 {
    let c: String = cond.chars().filter(|c| !c.is_whitespace()).collect();
    let host = match directive {
        "ifdef" => c == "__CUPRUM_HOST__",
        "ifndef" => {
            if c == "__CUPRUM_HOST__" {
                return -1;
            }
            false
        }
        _ => matches!(
            c.as_str(),
            "__CUPRUM_HOST__" | "defined(__CUPRUM_HOST__)" | "defined__CUPRUM_HOST__"
        ),
    };
    if host {
        return 1;
    }
    if matches!(directive, "if" | "elif")
        && matches!(
            c.as_str(),
            "!defined(__CUPRUM_HOST__)" | "!__CUPRUM_HOST__" | "!defined__CUPRUM_HOST__"
        )
    {
        return -1;
    }
    0
}

/// Splits a directive into its name and the rest (`#  if  x` → `("if", "x")`).
fn directive_parts(text: &str) -> (String, String) {
    let t = text.trim_start_matches('#').trim_start();
    let name: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let rest = t[name.len()..].replace("\\\n", " ");
    // drop a trailing comment
    let rest = match rest.find("//") {
        Some(p) => rest[..p].to_string(),
        None => rest,
    };
    (name, rest.trim().to_string())
}

/// Identifiers that name something the host device cannot run, and what it is.
fn unsupported_ident(id: &str) -> Option<&'static str> {
    Some(match id {
        "asm" | "__asm__" | "__asm" => "inline PTX assembly (`asm`)",
        // (tex1Dfetch, tex1D/2D/3D and their Lod and Grad forms are the prelude's texture.h)
        "tex1DLayered"
        | "tex2DLayered"
        | "tex1DLayeredLod"
        | "tex2DLayeredLod"
        | "tex1DLayeredGrad"
        | "tex2DLayeredGrad"
        | "texCubemap"
        | "texCubemapLayered"
        | "texCubemapLod"
        | "texCubemapLayeredLod"
        | "texCubemapGrad"
        | "texCubemapLayeredGrad"
        | "tex2Dgather"
        | "tex2D_sparse"
        | "tex3D_sparse" => "layered, cubemap and gather texture fetches",
        // (surf1D/2D/3D read and write are the prelude's texture.h)
        "surf1DLayeredread"
        | "surf1DLayeredwrite"
        | "surf2DLayeredread"
        | "surf2DLayeredwrite"
        | "surfCubemapread"
        | "surfCubemapwrite"
        | "surfCubemapLayeredread"
        | "surfCubemapLayeredwrite" => "layered and cubemap surface accesses",
        "wmma"
        | "mma_sync"
        | "load_matrix_sync"
        | "store_matrix_sync"
        | "fill_fragment"
        | "__hmma_m16n16k16_mma_f32f32" => "tensor-core matrix operations (`wmma`)",
        "__cluster_dims__" | "this_cluster" | "cluster_group" => "thread-block clusters",
        "memcpy_async"
        | "__pipeline_memcpy_async"
        | "__pipeline_commit"
        | "__pipeline_wait_prior" => "asynchronous copies (`memcpy_async`, `cp.async`)",
        _ => return None,
    })
}

/// Headers without a host stand-in, and what they are.
fn unsupported_header(name: &str) -> Option<&'static str> {
    let n = name.trim();
    if n.starts_with("cuda/") || n.starts_with("cuda\\") {
        return Some("libcu++ headers (`cuda/...`)");
    }
    if n.starts_with("cub/") {
        return Some("CUB headers (`cub/...`)");
    }
    if n.starts_with("thrust/") {
        return Some("Thrust headers (`thrust/...`)");
    }
    Some(match n {
        "curand_kernel.h" | "curand.h" | "curand_philox4x32_x.h" => {
            "cuRAND's device API (`curand_kernel.h`)"
        }
        "mma.h" => "tensor-core matrix operations (`mma.h`)",
        "cuda_pipeline.h"
        | "cuda_pipeline_primitives.h"
        | "cuda_awbarrier.h"
        | "cuda_awbarrier_primitives.h" => "asynchronous copies and barriers (`cuda_pipeline.h`)",
        "cuda_fp8.h" | "cuda_fp6.h" | "cuda_fp4.h" => "8-bit and smaller floating-point types",
        "cooperative_groups/memcpy_async.h" | "cooperative_groups/scan.h" => {
            "this cooperative groups header"
        }
        _ => return None,
    })
}

fn refuse(program: &str, line: usize, what: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "{program}:{line}: {what} cannot run on the host device; run this kernel on a GPU, or \
             give it a host version under `#ifdef __CUPRUM_HOST__` (`#else` keeps the GPU code)"
        ),
    )
}

/// What an opening brace opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// A namespace or an `extern "C" { }` block (with whether it has C linkage).
    Namespace { c_linkage: bool },
    /// A class, struct, union or enum body.
    Class,
    /// A function body, block or initializer.
    Other,
}

/// Rewrites `src` (the user's program `program`) for the host compiler.
pub(crate) fn rewrite(src: &str, program: &str) -> Result<Rewritten> {
    let toks = tokenize(src);
    let text = |t: &Token| &src[t.start..t.end];
    // Preprocessor conditionals: which tokens the host compile never sees.
    let mut skipped = vec![false; toks.len()];
    let mut stack: Vec<Branch> = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let off = stack.contains(&Branch::Skipped);
        if t.kind == Tok::Directive {
            let (name, rest) = directive_parts(text(t));
            match name.as_str() {
                "if" | "ifdef" | "ifndef" => stack.push(match host_condition(&name, &rest) {
                    1 => Branch::Taken,
                    -1 => Branch::Skipped,
                    _ => Branch::Unknown,
                }),
                "elif" => {
                    if let Some(top) = stack.last_mut() {
                        *top = match (*top, host_condition("elif", &rest)) {
                            (Branch::Taken, _) => Branch::Skipped,
                            (Branch::Skipped, 1) => Branch::Taken,
                            (Branch::Skipped, -1) => Branch::Skipped,
                            _ => Branch::Unknown,
                        };
                    }
                }
                "else" => {
                    if let Some(top) = stack.last_mut() {
                        *top = match *top {
                            Branch::Taken => Branch::Skipped,
                            Branch::Skipped => Branch::Taken,
                            Branch::Unknown => Branch::Unknown,
                        };
                    }
                }
                "endif" => {
                    stack.pop();
                }
                "include" if !off => {
                    let inner = rest
                        .trim_start_matches(['<', '"'])
                        .trim_end_matches(['>', '"']);
                    if let Some(what) = unsupported_header(inner) {
                        return Err(refuse(
                            program,
                            t.line,
                            &format!("`#include <{inner}>`: {what}"),
                        ));
                    }
                }
                _ => {}
            }
            skipped[k] = true;
            continue;
        }
        skipped[k] = off;
    }
    // The tokens the compile sees, without directives.
    let live: Vec<Token> = toks
        .iter()
        .zip(&skipped)
        .filter(|(_, s)| !**s)
        .map(|(t, _)| *t)
        .collect();
    for (k, t) in live.iter().enumerate() {
        match t.kind {
            Tok::Ident => {
                if let Some(what) = unsupported_ident(text(t)) {
                    return Err(refuse(program, t.line, what));
                }
                if matches!(text(t), "texture" | "surface")
                    && live.get(k + 1).is_some_and(|n| text(n) == "<")
                {
                    return Err(refuse(program, t.line, "texture and surface references"));
                }
            }
            Tok::Punct if text(t) == "<<<" => {
                return Err(refuse(
                    program,
                    t.line,
                    "a kernel launch from device code (`<<<`, dynamic parallelism)",
                ));
            }
            _ => {}
        }
    }
    Scanner {
        src,
        toks: &live,
        out: Vec::new(),
        kernels: Vec::new(),
        globals: Vec::new(),
        dyn_smem: Vec::new(),
    }
    .run()
}

struct Scanner<'a> {
    src: &'a str,
    toks: &'a [Token],
    /// Edits: (start, end, replacement).
    out: Vec<(usize, usize, String)>,
    kernels: Vec<KernelDecl>,
    globals: Vec<GlobalDecl>,
    /// Namespace-scope `extern __shared__` names and their replacement.
    dyn_smem: Vec<(String, String)>,
}

impl<'a> Scanner<'a> {
    fn text(&self, k: usize) -> &'a str {
        self.toks.get(k).map_or("", |t| &self.src[t.start..t.end])
    }

    /// The index of the token closing the group opened at `k` (`(`, `[`, `{`, `<` not
    /// tracked), or the last token.
    fn close_of(&self, k: usize) -> usize {
        let (open, close) = match self.text(k) {
            "(" => ("(", ")"),
            "[" => ("[", "]"),
            "{" => ("{", "}"),
            _ => return k,
        };
        let mut depth = 0i32;
        for j in k..self.toks.len() {
            let t = self.text(j);
            if t == open {
                depth += 1;
            } else if t == close {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
        }
        self.toks.len().saturating_sub(1)
    }

    fn run(mut self) -> Result<Rewritten> {
        let mut scopes: Vec<(Scope, Option<String>)> = Vec::new();
        // Index of the first token of the current statement (after `;`, `{` or `}`).
        let mut stmt = 0usize;
        let n = self.toks.len();
        let mut k = 0usize;
        while k < n {
            let t = self.text(k);
            match t {
                ";" => {
                    stmt = k + 1;
                }
                "{" => {
                    let scope = self.scope_of(stmt, k);
                    let name = if matches!(scope, Scope::Namespace { .. }) {
                        let p = (stmt..k).find(|&j| self.text(j) == "namespace");
                        p.and_then(|p| {
                            let id = self.text(p + 1);
                            (p + 1 < k && self.toks[p + 1].kind == Tok::Ident)
                                .then(|| id.to_string())
                        })
                    } else {
                        None
                    };
                    scopes.push((scope, name));
                    stmt = k + 1;
                }
                "}" => {
                    scopes.pop();
                    stmt = k + 1;
                }
                "__global__" => {
                    self.kernel(k, stmt, &scopes);
                }
                "__device__" | "__constant__" | "__managed__" => {
                    if scopes
                        .iter()
                        .all(|(s, _)| matches!(s, Scope::Namespace { .. }))
                    {
                        self.global(k, stmt, &scopes);
                    }
                }
                "extern"
                    if self.text(k + 1) == "__shared__"
                        || (self.text(k + 1) != "\"C\"" && self.is_extern_shared(k)) =>
                {
                    let at_namespace = scopes
                        .iter()
                        .all(|(s, _)| matches!(s, Scope::Namespace { .. }));
                    if let Some(end) = self.extern_shared(k, at_namespace) {
                        stmt = end + 1;
                        k = end + 1;
                        continue;
                    }
                }
                _ => {
                    if self.toks[k].kind == Tok::Ident && !self.dyn_smem.is_empty() {
                        self.substitute(k);
                    }
                }
            }
            k += 1;
        }
        let mut source = String::with_capacity(self.src.len() + 256);
        let mut at = 0usize;
        self.out.sort_by_key(|e| e.0);
        for (s, e, r) in &self.out {
            if *s < at {
                continue;
            }
            source.push_str(&self.src[at..*s]);
            source.push_str(r);
            // keep the line count: the replaced text's newlines stay
            source.extend(self.src[*s..*e].chars().filter(|&c| c == '\n'));
            at = *e;
        }
        source.push_str(&self.src[at..]);
        Ok(Rewritten {
            source,
            kernels: self.kernels,
            globals: self.globals,
        })
    }

    /// `extern ... __shared__ ...;`: true when `__shared__` comes before the `;`.
    fn is_extern_shared(&self, k: usize) -> bool {
        for j in k + 1..self.toks.len() {
            match self.text(j) {
                ";" | "{" | "}" | "(" => return false,
                "__shared__" => return true,
                _ => {}
            }
        }
        false
    }

    /// What the brace at `k` opens, from the tokens of its statement.
    fn scope_of(&self, stmt: usize, k: usize) -> Scope {
        let words: Vec<&str> = (stmt..k).map(|j| self.text(j)).collect();
        if words.contains(&"namespace") {
            return Scope::Namespace { c_linkage: false };
        }
        if words == ["extern", "\"C\""] || words == ["extern", "\"C++\""] {
            return Scope::Namespace {
                c_linkage: words[1] == "\"C\"",
            };
        }
        let has_paren = words.contains(&"(");
        if !has_paren
            && words
                .iter()
                .any(|w| matches!(*w, "struct" | "class" | "union" | "enum"))
            && !words.contains(&"=")
        {
            return Scope::Class;
        }
        Scope::Other
    }

    /// The namespace path of the current position (`a::b::`).
    fn namespace_prefix(scopes: &[(Scope, Option<String>)]) -> String {
        scopes
            .iter()
            .filter_map(|(_, n)| n.as_ref())
            .fold(String::new(), |mut a, n| {
                a.push_str(n);
                a.push_str("::");
                a
            })
    }

    /// A `__global__` declaration: records the kernel and renames C-linkage ones.
    fn kernel(&mut self, k: usize, stmt: usize, scopes: &[(Scope, Option<String>)]) {
        if !scopes
            .iter()
            .all(|(s, _)| matches!(s, Scope::Namespace { .. }))
        {
            return;
        }
        let template = (stmt..k).any(|j| self.text(j) == "template");
        let c_linkage = (stmt..k)
            .any(|j| self.text(j) == "\"C\"" && self.text(j.wrapping_sub(1)) == "extern")
            || scopes
                .iter()
                .any(|(s, _)| matches!(s, Scope::Namespace { c_linkage: true }));
        // the name: the identifier before the first `(` that is not an attribute's
        let mut j = k + 1;
        let mut name_at = None;
        while j < self.toks.len() {
            let t = self.text(j);
            if matches!(t, ";" | "{" | "}") {
                break;
            }
            if t == "(" {
                let prev = self.text(j - 1);
                if matches!(
                    prev,
                    "__launch_bounds__"
                        | "__attribute__"
                        | "__align__"
                        | "alignas"
                        | "__declspec"
                        | "decltype"
                        | "__maxnreg__"
                ) {
                    j = self.close_of(j) + 1;
                    continue;
                }
                if self.toks[j - 1].kind == Tok::Ident {
                    name_at = Some(j - 1);
                }
                break;
            }
            j += 1;
        }
        let Some(at) = name_at else {
            return;
        };
        let name = self.text(at).to_string();
        let prefix = Self::namespace_prefix(scopes);
        let expr = if c_linkage && !template {
            let renamed = format!("__cuprum_k_{name}");
            self.out
                .push((self.toks[at].start, self.toks[at].end, renamed.clone()));
            format!("{prefix}{renamed}")
        } else {
            format!("{prefix}{name}")
        };
        let full = format!("{prefix}{name}");
        if !self.kernels.iter().any(|d| d.name == full) {
            self.kernels.push(KernelDecl {
                name: full,
                expr,
                template,
            });
        }
    }

    /// A `__device__`/`__constant__` declaration at namespace scope: records a variable.
    fn global(&mut self, k: usize, stmt: usize, scopes: &[(Scope, Option<String>)]) {
        if (stmt..k).any(|j| matches!(self.text(j), "template" | "extern" | "typedef" | "using")) {
            return;
        }
        // the declarator ends at the first `=`, `;`, `[`, `{` or `,`; a `(` first means a
        // function (unless it belongs to an attribute)
        // (a `,` inside template arguments, `Arr<float, 2>`, is no declarator's end)
        let mut j = k + 1;
        let mut angle = 0usize;
        while j < self.toks.len() {
            let t = self.text(j);
            match t {
                "<" => angle += 1,
                ">" => angle = angle.saturating_sub(1),
                ">>" => angle = angle.saturating_sub(2),
                "," if angle > 0 => {}
                "(" => {
                    let prev = self.text(j - 1);
                    if matches!(
                        prev,
                        "__align__"
                            | "__attribute__"
                            | "alignas"
                            | "__launch_bounds__"
                            | "decltype"
                    ) {
                        j = self.close_of(j) + 1;
                        continue;
                    }
                    return;
                }
                "=" | ";" | "[" | "{" | "," => break,
                "__global__" | "__shared__" | "operator" => return,
                _ => {}
            }
            j += 1;
        }
        if j >= self.toks.len() || j == 0 || self.toks[j - 1].kind != Tok::Ident {
            return;
        }
        let name = self.text(j - 1).to_string();
        if matches!(
            name.as_str(),
            "__device__" | "__constant__" | "__managed__" | "const" | "volatile"
        ) {
            return;
        }
        let prefix = Self::namespace_prefix(scopes);
        self.globals.push(GlobalDecl {
            name: format!("{prefix}{name}"),
            expr: format!("{prefix}{name}"),
        });
    }

    /// `extern __shared__ T name[...];` at token `k`: rewrites it; returns the index of
    /// its `;`.
    fn extern_shared(&mut self, k: usize, at_namespace: bool) -> Option<usize> {
        let end = (k..self.toks.len()).find(|&j| self.text(j) == ";")?;
        // the declarator: `name [ ]` then more brackets
        let open = (k..end).find(|&j| self.text(j) == "[")?;
        if open == 0 || self.toks[open - 1].kind != Tok::Ident {
            return None;
        }
        let name_at = open - 1;
        let close = self.close_of(open);
        if close != open + 1 {
            return None; // `extern __shared__ T x[16];` is not dynamic: leave it to the shim
        }
        // the type: everything between `extern` and the name but the qualifiers
        let mut ty = String::new();
        let mut j = k + 1;
        while j < name_at {
            let t = self.text(j);
            if matches!(t, "__align__" | "__attribute__" | "alignas") {
                j = self.close_of(j + 1) + 1;
                continue;
            }
            if !matches!(t, "__shared__" | "static" | "__device__") {
                if !ty.is_empty() {
                    ty.push(' ');
                }
                ty.push_str(t);
            }
            j += 1;
        }
        let rest: String = (close + 1..end)
            .map(|j| self.text(j))
            .collect::<Vec<_>>()
            .join("");
        let name = self.text(name_at).to_string();
        let (decl_ty, ptr_ty) = if rest.is_empty() {
            (format!("{ty}* const {name}"), format!("{ty}*"))
        } else {
            (
                format!("{ty} (*const {name}){rest}"),
                format!("{ty}(*){rest}"),
            )
        };
        let value = format!("reinterpret_cast<{ptr_ty}>(__cuprum_dynamic_smem())");
        let (s, e) = (self.toks[k].start, self.toks[end].end);
        if at_namespace {
            self.out.push((s, e, String::new()));
            self.dyn_smem.push((name, format!("({value})")));
        } else {
            self.out.push((s, e, format!("{decl_ty} = {value};")));
        }
        Some(end)
    }

    /// A use of a namespace-scope `extern __shared__` name.
    fn substitute(&mut self, k: usize) {
        let t = self.text(k);
        let Some((_, value)) = self.dyn_smem.iter().find(|(n, _)| n == t) else {
            return;
        };
        let prev = if k > 0 { self.text(k - 1) } else { "" };
        if matches!(prev, "." | "->" | "::") {
            return;
        }
        self.out
            .push((self.toks[k].start, self.toks[k].end, value.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> Rewritten {
        rewrite(s, "k.cu").unwrap()
    }

    #[test]
    fn kernels_are_found_and_c_names_renamed() {
        let r = rw(r#"
extern "C" __global__ void vector_add(const float* a, float* c, int n) { c[0] = a[0]; }
template <typename T, int N> __global__ void scale(T* x, int n) {}
__global__ void __launch_bounds__(256, 2) plain(int* x) {}
namespace ns { extern "C" { __global__ void exp(float* x) {} } }
__device__ float helper(float x) { return x; }
"#);
        let names: Vec<(&str, &str, bool)> = r
            .kernels
            .iter()
            .map(|k| (k.name.as_str(), k.expr.as_str(), k.template))
            .collect();
        assert_eq!(
            names,
            vec![
                ("vector_add", "__cuprum_k_vector_add", false),
                ("scale", "scale", true),
                ("plain", "plain", false),
                ("ns::exp", "ns::__cuprum_k_exp", false),
            ]
        );
        assert!(
            r.source
                .contains("void __cuprum_k_vector_add(const float* a")
        );
        assert!(
            r.source
                .contains("__global__ void __cuprum_k_exp(float* x)")
        );
        assert!(r.globals.is_empty());
        assert_eq!(r.source.lines().count(), 6);
    }

    #[test]
    fn globals_are_listed() {
        let r = rw(
            "__constant__ float coeffs[4];\n__device__ int counter = 0;\n__device__ __align__(16) double d;\n__device__ int f(int x) { return x; }\nstruct S { __device__ int g() const; };\nnamespace q { __device__ unsigned n; }\n__device__ Arr<float, 2> pair(const float* v) { return {}; }\n__device__ Map<int, Arr<float, 2>> m;\n",
        );
        let g: Vec<&str> = r.globals.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(g, ["coeffs", "counter", "d", "q::n", "m"]);
    }

    #[test]
    fn extern_shared_becomes_a_pointer() {
        let r = rw(
            "extern \"C\" __global__ void k(float* x) {\n  extern __shared__ __align__(16) float s[];\n  extern __shared__ float2 t[][4];\n  s[threadIdx.x] = x[0];\n}\n",
        );
        assert!(
            r.source
                .contains("float* const s = reinterpret_cast<float*>(__cuprum_dynamic_smem());"),
            "{}",
            r.source
        );
        assert!(
            r.source.contains(
                "float2 (*const t)[4] = reinterpret_cast<float2(*)[4]>(__cuprum_dynamic_smem());"
            ),
            "{}",
            r.source
        );
        assert_eq!(r.source.lines().count(), 5);
        // at namespace scope: every later use
        let r = rw(
            "extern __shared__ unsigned char smem[];\n__global__ void k() { smem[0] = 1; float* f = (float*)smem; a.smem = 0; }\n",
        );
        assert!(!r.source.contains("extern"), "{}", r.source);
        assert!(
            r.source
                .contains("(reinterpret_cast<unsigned char*>(__cuprum_dynamic_smem()))[0] = 1"),
            "{}",
            r.source
        );
        assert!(r.source.contains("a.smem = 0"), "{}", r.source);
        assert_eq!(r.source.lines().count(), 2);
    }

    #[test]
    fn unsupported_constructs_are_refused_with_their_line() {
        let e = rewrite("__global__ void k(int* x) {\n  int l;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n}\n", "raw.cu").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert!(
            e.to_string().starts_with("raw.cu:3: inline PTX assembly"),
            "{e}"
        );
        for (src, what, line) in [
            ("texture<float, 1> t;\n", "texture", 1),
            (
                "__global__ void k(float* o) {\n  surface<void, 2> s;\n}",
                "texture and surface references",
                2,
            ),
            (
                "\n__global__ void k(cudaTextureObject_t t, float* o) { o[0] = tex2DLayered<float>(t, 0, 0, 1); }",
                "layered, cubemap and gather texture fetches",
                2,
            ),
            (
                "__global__ void k(cudaTextureObject_t t, float4* o) {\n  o[0] = texCubemap<float4>(t, 0, 0, 1);\n}",
                "cubemap",
                2,
            ),
            (
                "__global__ void k(cudaTextureObject_t t, float4* o) {\n\n  o[0] = tex2Dgather<float4>(t, 0, 0, 1);\n}",
                "gather",
                3,
            ),
            (
                "__global__ void k(cudaSurfaceObject_t s) {\n  surf2DLayeredwrite(1.0f, s, 0, 0, 0);\n}",
                "layered and cubemap surface accesses",
                2,
            ),
            ("#include <mma.h>\n", "mma.h", 1),
            ("#include <cub/cub.cuh>\n", "CUB", 1),
            (
                "__global__ void k() {\n\n  child<<<1, 1>>>();\n}",
                "dynamic parallelism",
                3,
            ),
            (
                "using namespace nvcuda;\nwmma::fragment<int> f;\n",
                "wmma",
                2,
            ),
        ] {
            let e = rewrite(src, "k.cu").unwrap_err();
            assert!(
                e.to_string().contains(what) && e.to_string().starts_with(&format!("k.cu:{line}:")),
                "{src}: {e}"
            );
        }
        // comments, strings and the GPU branch of a host conditional are not code
        rw(
            "// asm(\"x\");\n/* wmma */ const char* s = \"asm(tex2D)\";\n#ifndef __CUPRUM_HOST__\nasm(\"exit;\");\n#else\nint y;\n#endif\n#if defined(__CUPRUM_HOST__)\nint z;\n#else\nasm(\"trap;\");\n#endif\n",
        );
        // raw strings too
        rw("const char* r = R\"x(asm( \"y\" ))x\";\n");
    }

    #[test]
    fn texture_and_surface_objects_are_let_through() {
        let src = "__global__ void k(cudaTextureObject_t t, cudaSurfaceObject_t s, float* o) {\n\
                   o[0] = tex1Dfetch<float>(t, 0) + tex1D<float>(t, 0.5f) + tex2D<float>(t, 0.5f, 0.5f);\n\
                   o[1] = tex3D<float>(t, 0.5f, 0.5f, 0.5f) + tex2DLod<float>(t, 0.5f, 0.5f, 0.0f);\n\
                   float4 g; tex3DGrad(&g, t, 0.f, 0.f, 0.f, make_float4(0, 0, 0, 0), make_float4(0, 0, 0, 0));\n\
                   surf2Dwrite(surf2Dread<float>(s, 0, 0, cudaBoundaryModeZero), s, 4, 0);\n\
                   surf1Dwrite(1.0f, s, 0); surf3Dwrite(surf3Dread<float>(s, 0, 0, 0), s, 0, 0, 0);\n\
                   }\n";
        let r = rw(src);
        assert_eq!(r.source, src);
        assert_eq!(r.kernels.len(), 1);
    }
}
