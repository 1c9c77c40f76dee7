//! Compiling CUDA C++ for the host device: the same source, compiled by the system C++
//! compiler ([`compiler`]) with cuprum's shim headers (`include/cuprum/host/`: CUDA's
//! qualifiers, types, built-ins, barriers, warp operations, atomics, math, and stand-ins for
//! `cuda_fp16.h`, `cuda_bf16.h`, `cooperative_groups.h`, `math_constants.h`,
//! `cuda_runtime.h` … so NVRTC-style includes resolve), after the [`rewrite`] (refusals,
//! `extern __shared__`, kernel entries), into a shared object loaded with `dlopen`.
//!
//! **Cache.** Shared objects are kept like cubins, in the same [`KernelCache`] folder (its
//! counters count them too), as their own entry kind: `<cache>/host/<2 hex>/<64 hex>.so`,
//! keyed by blake3 of the host format version, the launcher ABI, the compiler's identity
//! (resolved path, size, mtime, version, target), every flag, the shim headers, the
//! rewritten source with its entries and the in-memory headers. An entry is the shared
//! object followed by a trailer (the compiler's log, a checksum keyed with the entry's key,
//! the format and a magic); loading one runs native code, so it is opened without following
//! links, checked to be a regular file owned by the user in a folder only the user can
//! write, read and checksummed, and only then loaded. A damaged, foreign or linked entry
//! is a miss: compiled again and
//! replaced. New entries are written to a temporary file in the same folder and renamed
//! (a process that has the old one mapped keeps it: no shared object is ever rewritten in
//! place). `CUPRUM_HOST_CACHE_DIR` puts host entries elsewhere (the test harness keeps them
//! across test binaries).
//!
//! **Compile time.** The shim is precompiled once per compiler and flags (a GCC PCH under
//! `<cache>/host/pch-…`, used when it is valid and ignored otherwise; it leaves out
//! libstdc++'s C++17 special functions, which were two thirds of its load time), once alone
//! and once with cuprum's own headers for the kernels cuprum generates, which start by
//! including them (a fifth of such a compile was parsing them); a kernel is
//! linked against the C libraries only, and again with the C++ runtime when that link finds
//! an undefined symbol ([`LEAN_LINK`]); at most one compiler process per core runs at a time.
//! A small kernel compiles in about 60 ms on one core (it was 110).

pub(crate) mod compiler;
mod folders;
pub(crate) mod rewrite;

pub use compiler::{CompilerKind, HostCompiler, host_compiler};
use folders::{entries_dir, private_dir, scratch_dir};
pub use folders::{set_host_cache_dir, set_host_opt_level};

use super::cache::{Read, read_trusted_file, write_atomic};
use super::headers::BUNDLED;
use super::{CompileFailure, CompileOptions, KernelCache};
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::HostLibrary;
use rustc_hash::FxHashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Bumped when the host entry layout or its key recipe changes.
const HOST_FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"CUPRUMSO";

macro_rules! shim {
    ($($name:literal => $path:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../../include/cuprum/host/", $path)))),*]
    };
}

/// `(include name, text)` of the shim headers (besides the bundled `cuprum/*.cuh`).
pub const SHIM_HEADERS: &[(&str, &str)] = shim![
    "cuprum/host/prelude.h" => "prelude.h",
    "cuprum/host/prelude_kernels.h" => "prelude_kernels.h",
    "cuprum/host/abi.h" => "abi.h",
    "cuprum/host/runtime.h" => "runtime.h",
    "cuprum/host/math.h" => "math.h",
    "cuprum/host/texture.h" => "texture.h",
    "cuprum/host/half_bits.h" => "half_bits.h",
    "cuprum/host/float16_type.h" => "float16_type.h",
    "assert.h" => "cuda/assert.h",
    "cuda_fp16.h" => "cuda/cuda_fp16.h",
    "cuda_bf16.h" => "cuda/cuda_bf16.h",
    "cooperative_groups.h" => "cuda/cooperative_groups.h",
    "cooperative_groups/reduce.h" => "cuda/cooperative_groups/reduce.h",
    "math_constants.h" => "cuda/math_constants.h",
    "cuda_runtime.h" => "cuda/cuda_runtime.h",
    "cuda_runtime_api.h" => "cuda/cuda_runtime_api.h",
    "cuda.h" => "cuda/cuda.h",
    "device_launch_parameters.h" => "cuda/device_launch_parameters.h",
    "vector_types.h" => "cuda/vector_types.h",
    "vector_functions.h" => "cuda/vector_functions.h",
    "device_functions.h" => "cuda/device_functions.h",
    "math_functions.h" => "cuda/math_functions.h",
    "builtin_types.h" => "cuda/builtin_types.h",
    "device_types.h" => "cuda/device_types.h",
    "driver_types.h" => "cuda/driver_types.h",
    "sm_20_atomic_functions.h" => "cuda/sm_20_atomic_functions.h",
    "sm_32_intrinsics.h" => "cuda/sm_32_intrinsics.h",
    "sm_60_atomic_functions.h" => "cuda/sm_60_atomic_functions.h",
    "crt/math_functions.h" => "cuda/crt/math_functions.h",
];

/// Every header a host compile can see: the shim and the bundled headers.
fn all_headers() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    SHIM_HEADERS.iter().chain(BUNDLED.iter())
}

/// blake3 of every header's name and text (hex, 16 digits name the include folder).
fn headers_hash() -> &'static str {
    static H: OnceLock<String> = OnceLock::new();
    H.get_or_init(|| {
        let mut h = blake3::Hasher::new();
        for (n, t) in all_headers() {
            h.update(&(n.len() as u64).to_le_bytes());
            h.update(n.as_bytes());
            h.update(&(t.len() as u64).to_le_bytes());
            h.update(t.as_bytes());
        }
        h.finalize().to_hex().to_string()
    })
}

fn io(what: &str, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("host compile: {what}: {e}"))
}

/// Writes every header into `<base>/include-<hash>` once (a fresh folder renamed into
/// place); returns the folder.
fn include_root(base: &Path) -> Result<PathBuf> {
    let root = base.join(format!("include-{}", &headers_hash()[..16]));
    if private_dir(&root) && root.join("cuprum/host/prelude.h").is_file() {
        return Ok(root);
    }
    super::cache::create_private_dir(base).map_err(|e| io("cannot create the cache folder", e))?;
    if !private_dir(base) {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "host compile: {} is not a private folder of this user (owned by someone else, \
                 or writable by group or others); set CUPRUM_CACHE_DIR to another folder",
                base.display()
            ),
        ));
    }
    let tmp = tempfile::Builder::new()
        .prefix(".include-")
        .tempdir_in(base)
        .map_err(|e| io("cannot make a temporary folder", e))?;
    for (name, text) in all_headers() {
        let p = tmp.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("cannot write the shim headers", e))?;
        }
        std::fs::write(&p, text).map_err(|e| io("cannot write the shim headers", e))?;
    }
    let tmp = tmp.keep();
    if std::fs::rename(&tmp, &root).is_err() {
        // Another process (or thread) put it there first.
        let _ = std::fs::remove_dir_all(&tmp);
        if !private_dir(&root) {
            return Err(Error::new(
                ErrorKind::Io,
                format!(
                    "host compile: {} is not a private folder of this user",
                    root.display()
                ),
            ));
        }
    }
    Ok(root)
}

/// At most one compiler process per core at a time (tests compile from many threads).
struct Slots {
    free: Mutex<usize>,
    cv: Condvar,
}

struct SlotGuard(&'static Slots);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.0.cv.notify_one();
    }
}

fn compile_slot() -> SlotGuard {
    static S: OnceLock<Slots> = OnceLock::new();
    let s = S.get_or_init(|| Slots {
        free: Mutex::new(std::thread::available_parallelism().map_or(2, |n| n.get())),
        cv: Condvar::new(),
    });
    let mut free = s.free.lock().unwrap_or_else(|p| p.into_inner());
    while *free == 0 {
        free = s.cv.wait(free).unwrap_or_else(|p| p.into_inner());
    }
    *free -= 1;
    SlotGuard(s)
}

/// Runs the compiler; `Err(log)` when it fails.
fn run_compiler(
    c: &HostCompiler,
    args: &[String],
    cwd: &Path,
) -> Result<std::result::Result<String, String>> {
    let _slot = compile_slot();
    let out = crate::compile::process::output(
        std::process::Command::new(c.path())
            .args(args)
            .current_dir(cwd)
            .stdin(std::process::Stdio::null()),
    )
    .map_err(|e| {
        Error::new(
            ErrorKind::NoHostCompiler,
            format!("cannot run the host compiler {}: {e}", c.path().display()),
        )
    })?;
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    Ok(if out.status.success() {
        Ok(log)
    } else {
        Err(log)
    })
}

/// The preludes precompiled (a compile includes one): the shim alone, and the shim with
/// cuprum's headers for the kernels cuprum generates ([`GENERATED_PREFIX`]).
const PRELUDES: [&str; 2] = ["cuprum/host/prelude.h", "cuprum/host/prelude_kernels.h"];

/// How every kernel cuprum generates starts (after the translation unit's `#line`): a
/// source that starts so is compiled with `prelude_kernels.h`, which includes the same
/// headers first (precompiled), so that the source's own includes are no-ops.
const GENERATED_PREFIX: &str = "#include <cuprum/all.cuh>\n#include <cuprum/math_constants.cuh>\n";

/// The prelude a translation unit is compiled with (one of [`PRELUDES`]).
fn prelude_for(tu: &str) -> &'static str {
    let body = tu.split_once('\n').map_or("", |(_, rest)| rest);
    if body.starts_with(GENERATED_PREFIX) {
        PRELUDES[1]
    } else {
        PRELUDES[0]
    }
}

/// The folder holding the precompiled preludes for these flags (GCC only), built once; `None`
/// when it cannot be built (compiles then read the headers as text).
fn pch_dir(c: &HostCompiler, base: &Path, root: &Path, flags: &[String]) -> Option<PathBuf> {
    if c.kind() != CompilerKind::Gcc
        || crate::compile::env::env_bool("CUPRUM_HOST_PCH", true).ok() == Some(false)
    {
        return None;
    }
    let mut h = blake3::Hasher::new();
    h.update(c.identity().as_bytes());
    for f in flags {
        h.update(f.as_bytes());
        h.update(b"\0");
    }
    h.update(headers_hash().as_bytes());
    let dir = base.join(format!("pch-{}", &h.finalize().to_hex()[..16]));
    let gch = |p: &str| dir.join(format!("{p}.gch"));
    let built_here = || private_dir(&dir) && PRELUDES.iter().all(|p| gch(p).is_file());
    static BUILT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.contains(&dir) {
        return Some(dir);
    }
    if !built_here() {
        let tmp = tempfile::Builder::new()
            .prefix(".pch-")
            .tempdir_in(base)
            .ok()?;
        std::fs::create_dir_all(tmp.path().join("cuprum/host")).ok()?;
        for p in PRELUDES {
            let mut args = flags.to_vec();
            args.extend([
                format!("-I{}", root.display()),
                "-x".into(),
                "c++-header".into(),
                root.join(p).display().to_string(),
                "-o".into(),
                tmp.path().join(format!("{p}.gch")).display().to_string(),
            ]);
            match run_compiler(c, &args, tmp.path()) {
                Ok(Ok(_)) => {}
                _ => return None,
            }
        }
        let tmp = tmp.keep();
        if std::fs::rename(&tmp, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        if !built_here() {
            return None;
        }
    }
    built.push(dir.clone());
    Some(dir)
}

/// The translation unit: the rewritten source (on the user's line numbers) and the entry
/// table of its kernels, name expressions and globals.
fn translation_unit(source: &str, opts: &CompileOptions) -> Result<String> {
    let r = rewrite::rewrite(source, &opts.program_name)?;
    let mut tu = format!(
        "#line 1 \"{}\"\n",
        opts.program_name.replace(['"', '\\'], "_")
    );
    tu.push_str(&r.source);
    if !tu.ends_with('\n') {
        tu.push('\n');
    }
    tu.push_str("#line 1 \"<cuprum host entries>\"\n");
    let mut entries: Vec<(String, String)> = r
        .kernels
        .iter()
        .filter(|k| !k.template)
        .map(|k| (k.name.clone(), format!("&{}", k.expr)))
        .collect();
    // kernels of macro invocations, under the same preprocessor conditions as the invocation
    let mut guarded: Vec<(String, Vec<String>)> = Vec::new();
    for (name, conds) in macro_kernels(source) {
        if !entries.iter().any(|(n, _)| *n == name) && !guarded.iter().any(|(n, _)| *n == name) {
            guarded.push((name, conds));
        }
    }
    for e in &opts.name_expressions {
        let expr = match r.kernels.iter().find(|k| k.name == *e) {
            Some(k) => format!("&{}", k.expr),
            None => format!("&{e}"),
        };
        if !entries.iter().any(|(n, _)| n == e) {
            entries.push((e.clone(), expr));
        }
    }
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    tu.push_str("static const cuprum_host_kernel __cuprum_kernels[] = {\n");
    for (name, expr) in &entries {
        tu.push_str(&format!("  cuprum_host::entry<{expr}>({}),\n", quote(name)));
    }
    for (name, conds) in &guarded {
        for c in conds {
            tu.push_str(c);
            tu.push('\n');
        }
        tu.push_str(&format!(
            "  cuprum_host::entry<&{name}>({}),\n",
            quote(name)
        ));
        for c in conds {
            if c.trim_start().starts_with("#if") {
                tu.push_str("#endif\n");
            }
        }
    }
    tu.push_str("  cuprum_host_kernel{nullptr, nullptr, 0u, 0u, nullptr, nullptr}};\n");
    tu.push_str("static const cuprum_host_global __cuprum_globals[] = {\n");
    for g in &r.globals {
        tu.push_str(&format!(
            "  cuprum_host_global{{{}, (void*)&{}, sizeof({})}},\n",
            quote(&g.name),
            g.expr,
            g.expr
        ));
    }
    for (header, name) in HEADER_GLOBALS {
        if source.contains(header) && !r.globals.iter().any(|g| g.name == *name) {
            tu.push_str(&format!(
                "  cuprum_host_global{{{}, (void*)&{name}, sizeof({name})}},\n",
                quote(name)
            ));
        }
    }
    tu.push_str("  cuprum_host_global{nullptr, nullptr, 0ull}};\n");
    tu.push_str(&format!(
        "CUPRUM_HOST_EXPORT const cuprum_host_module* cuprum_host_module_table(void) {{\n  \
         static const cuprum_host_module m = {{CUPRUM_HOST_ABI, \
         (unsigned)(sizeof(__cuprum_kernels) / sizeof(__cuprum_kernels[0]) - 1), {}u, 0u, \
         __cuprum_kernels, __cuprum_globals}};\n  \
         return &m;\n}}\n",
        r.globals.len()
            + HEADER_GLOBALS
                .iter()
                .filter(|(h, n)| source.contains(h) && !r.globals.iter().any(|g| g.name == *n))
                .count()
    ));
    Ok(tu)
}

/// Globals that cuprum's bundled headers declare (the source's own are found by the
/// rewrite): the header's include text and the variable, which the host reads by name.
const HEADER_GLOBALS: &[(&str, &str)] = &[("cuprum/jit.cuh", "cj_fault_ctx")];

/// `extern "C"` kernels that a function-like macro defines: a `#define M(A, ...)` whose
/// body holds `__global__ void A(`, invoked as `M(name, ...)` at the start of a line,
/// gives the kernel `name` (the rewrite sees only the macro's text, not its expansions),
/// with the preprocessor conditionals around the invocation (`#if`… lines, `#else`/`#elif`
/// lines seen so far in each), to repeat around its entry.
fn macro_kernels(source: &str) -> Vec<(String, Vec<String>)> {
    // the source with line continuations joined, so a macro is one line
    let joined = source.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut macros: Vec<(String, usize)> = Vec::new();
    for line in joined.lines() {
        let Some(def) = line.trim_start().strip_prefix("#define") else {
            continue;
        };
        let def = def.trim_start();
        let Some(open) = def.find('(') else { continue };
        let name = &def[..open];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(close) = def[open..].find(')') else {
            continue;
        };
        let params: Vec<&str> = def[open + 1..open + close]
            .split(',')
            .map(str::trim)
            .collect();
        let body = &def[open + close + 1..];
        let Some(at) = body.find("__global__") else {
            continue;
        };
        // the function's name: a parameter followed by `(` between `void` and the body
        // (attributes such as `__launch_bounds__(256)` may come first)
        let Some((_, head)) = body[at..].split_once("void") else {
            continue;
        };
        let head = head.split('{').next().unwrap_or_default();
        let named = params.iter().position(|p| {
            !p.is_empty()
                && head.match_indices(*p).any(|(i, _)| {
                    let before = head[..i].chars().next_back();
                    let after = head[i + p.len()..].trim_start();
                    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                        && after.starts_with('(')
                })
        });
        if body[..at].contains("extern \"C\"")
            && let Some(k) = named
        {
            macros.push((name.to_string(), k));
        }
    }
    let mut out = Vec::new();
    let mut conds: Vec<Vec<String>> = Vec::new();
    for line in joined.lines() {
        let line = line.trim_start();
        let directive = line.strip_prefix('#').map(|d| {
            d.trim_start()
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or_default()
        });
        match directive {
            Some("if" | "ifdef" | "ifndef") => conds.push(vec![line.to_string()]),
            Some("else" | "elif") => {
                if let Some(top) = conds.last_mut() {
                    top.push(line.to_string());
                }
            }
            Some("endif") => {
                conds.pop();
            }
            _ => {}
        }
        for (m, k) in &macros {
            let Some(args) = line
                .strip_prefix(m.as_str())
                .and_then(|r| r.trim_start().strip_prefix('('))
            else {
                continue;
            };
            if let Some(arg) = args.split([',', ')']).nth(*k).map(str::trim)
                && !arg.is_empty()
                && arg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                out.push((arg.to_string(), conds.concat()));
            }
        }
    }
    out
}

/// One compile's inputs, computed once.
struct Job<'a> {
    compiler: &'static HostCompiler,
    flags: Vec<String>,
    user_flags: Vec<String>,
    tu: String,
    opts: &'a CompileOptions,
}

impl Job<'_> {
    fn key(&self) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        let mut field = |tag: &str, bytes: &[u8]| {
            h.update(tag.as_bytes());
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field("host-format", &HOST_FORMAT.to_le_bytes());
        field("abi", &crate::runtime::HOST_ABI_VERSION.to_le_bytes());
        field("compiler", self.compiler.identity().as_bytes());
        for f in self.flags.iter().chain(&self.user_flags) {
            field("flag", f.as_bytes());
        }
        for o in &self.opts.options {
            field("opt", o.as_bytes());
        }
        for p in &self.opts.include_paths {
            field("inc", p.to_string_lossy().as_bytes());
        }
        for (n, t) in &self.opts.headers {
            field("hname", n.as_bytes());
            field("htext", t.as_bytes());
        }
        field("headers", headers_hash().as_bytes());
        field("tu", self.tu.as_bytes());
        *h.finalize().as_bytes()
    }
}

type Slot = Arc<OnceLock<Result<Arc<HostLibrary>>>>;

fn memo() -> &'static Mutex<FxHashMap<[u8; 32], Slot>> {
    static M: OnceLock<Mutex<FxHashMap<[u8; 32], Slot>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// Forgets the loaded host modules of this process (the disk stays; the shared objects
/// stay mapped: kernels of them may still be referenced).
pub(crate) fn clear_memo() {
    memo().lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// Compiles `source` for the host device (or finds it in memory or on disk) and loads it.
pub(crate) fn compile(source: &str, opts: &CompileOptions) -> Result<Arc<HostLibrary>> {
    let tu = translation_unit(source, opts)?;
    let compiler = host_compiler()?;
    let user_flags = compiler::map_options(opts)?;
    let job = Job {
        compiler,
        flags: compiler::base_flags(compiler, &opts.std),
        user_flags,
        tu,
        opts,
    };
    let key = job.key();
    let slot = {
        let mut m = memo().lock().unwrap_or_else(|p| p.into_inner());
        m.entry(key).or_default().clone()
    };
    let cache = KernelCache::global()?;
    let mut fresh = false;
    let r = slot
        .get_or_init(|| {
            fresh = true;
            load_or_compile(&job, &key, cache).map(Arc::new)
        })
        .clone();
    if !fresh {
        cache.count(super::cache::Count::MemoHit);
    }
    if r.is_err() && fresh {
        memo()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key);
    }
    r
}

fn entry_path(dir: &Path, key: &[u8; 32]) -> PathBuf {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    dir.join(&hex[..2]).join(format!("{hex}.so"))
}

/// The trailer after the shared object: log, its length, checksum, format, magic.
fn trailer(so: &[u8], log: &str, key: &[u8; 32]) -> Vec<u8> {
    let mut t = log.as_bytes().to_vec();
    t.extend_from_slice(&(log.len() as u64).to_le_bytes());
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(so);
    h.update(&t);
    t.extend_from_slice(h.finalize().as_bytes());
    t.extend_from_slice(&HOST_FORMAT.to_le_bytes());
    t.extend_from_slice(MAGIC);
    t
}

/// Whether `bytes` is an intact entry written under `key`.
pub(crate) fn verify(bytes: &[u8], key: &[u8; 32]) -> bool {
    let n = bytes.len();
    if n < 8 + 4 + 32 + 8 || &bytes[n - 8..] != MAGIC {
        return false;
    }
    let mut ver = [0u8; 4];
    ver.copy_from_slice(&bytes[n - 12..n - 8]);
    if u32::from_le_bytes(ver) != HOST_FORMAT {
        return false;
    }
    let mut h = blake3::Hasher::new_keyed(key);
    h.update(&bytes[..n - 44]);
    h.finalize().as_bytes() == &bytes[n - 44..n - 12]
}

/// Loads a verified entry. The file was read through `file` (not a link, owned by the
/// user) and checksummed; its folder is private to the user (checked here), so nobody else
/// can swap it before the loader opens it by name. (Loading through `/proc/self/fd/N`
/// would avoid even that step, but the loader reuses an earlier object of the same name,
/// and descriptor numbers are reused.) The loader is given a name used once (a hard link
/// beside the entry, removed once loaded): an entry rewritten after an earlier load of the
/// same key (a damaged entry compiled again) is then really loaded, not the earlier object
/// found by name.
fn load_open(_file: &std::fs::File, path: &Path) -> Result<HostLibrary> {
    let dir = path.parent().unwrap_or(Path::new("."));
    if !private_dir(dir) {
        return Err(Error::new(
            ErrorKind::Io,
            format!(
                "host compile: {} is not a private folder of this user; a kernel module is \
                 native code and is not loaded from it (set CUPRUM_CACHE_DIR to another folder)",
                dir.display()
            ),
        ));
    }
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let once = dir.join(format!(".load-{}-{n}.so", std::process::id()));
    let linked = std::fs::hard_link(path, &once).is_ok();
    let name = if linked { once.as_path() } else { path };
    // SAFETY: the bytes of `path` (and of its link `once`, the same file) were checksummed
    // under this compile's key (they are what cuprum's compile of this source wrote) and
    // only this user can replace them.
    let lib = unsafe { HostLibrary::load(name) };
    if linked {
        let _ = std::fs::remove_file(&once);
    }
    lib
}

fn load_or_compile(job: &Job<'_>, key: &[u8; 32], cache: &KernelCache) -> Result<HostLibrary> {
    use super::cache::Count;
    let dir = entries_dir();
    if let Some(d) = &dir {
        let p = entry_path(d, key);
        match read_trusted_file(&p) {
            Read::Missing => {}
            Read::Untrusted => cache.count(Count::Corrupt),
            Read::Bytes((file, bytes)) => {
                if verify(&bytes, key) {
                    cache.count(Count::DiskHit);
                    return load_open(&file, &p);
                }
                cache.count(Count::Corrupt);
            }
        }
    }
    cache.count(Count::Miss);
    let base = match &dir {
        Some(d) if super::cache::create_private_dir(d).is_ok() && private_dir(d) => d.clone(),
        _ => scratch_dir(),
    };
    let (so, log, work) = build(job, &base)?;
    let bytes = {
        let mut b = so;
        b.extend_from_slice(&trailer(&b, &log, key));
        b
    };
    // Into the cache (temp file + rename), then load through the file just written.
    if let Some(d) = &dir {
        let p = entry_path(d, key);
        if write_atomic(&p, &bytes).is_ok() {
            cache.count(Count::DiskWrite);
            if let Read::Bytes((file, read)) = read_trusted_file(&p)
                && verify(&read, key)
            {
                return load_open(&file, &p);
            }
        }
    }
    // Memory-only (or an unwritable folder): load from the private work folder.
    let p = work.path().join("module.so");
    let mut f = std::fs::File::create(&p).map_err(|e| io("cannot write the module", e))?;
    f.write_all(&bytes)
        .map_err(|e| io("cannot write the module", e))?;
    drop(f);
    let file = std::fs::File::open(&p).map_err(|e| io("cannot open the module", e))?;
    load_open(&file, &p)
}

/// How a kernel is first linked: against the C libraries only, every symbol resolved at link
/// time. libstdc++'s symbol tables cost a fifth of a small kernel's compile and almost no
/// kernel uses it; one that does (a device-side `new`, a guarded static) fails this link with
/// an undefined reference and is linked again with the compiler's default libraries.
const LEAN_LINK: &[&str] = &[
    "-nodefaultlibs",
    "-Wl,--no-undefined",
    "-lm",
    "-lc",
    "-lgcc",
];

/// Compiles the job in a private work folder under `base`; returns the shared object, the
/// compiler's log and the folder (removed when dropped).
fn build(job: &Job<'_>, base: &Path) -> Result<(Vec<u8>, String, tempfile::TempDir)> {
    super::cache::create_private_dir(base).map_err(|e| io("cannot create the cache folder", e))?;
    let root = include_root(base)?;
    let work = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(base)
        .map_err(|e| io("cannot make a work folder", e))?;
    let name = sanitize_name(&job.opts.program_name);
    std::fs::write(work.path().join(&name), &job.tu)
        .map_err(|e| io("cannot write the source", e))?;
    let hdr = work.path().join("headers");
    for (n, t) in &job.opts.headers {
        let rel = Path::new(n);
        if rel.is_absolute()
            || rel
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("in-memory header name {n:?} must be a relative path without `..`"),
            ));
        }
        let p = hdr.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io("cannot write a header", e))?;
        }
        std::fs::write(&p, t).map_err(|e| io("cannot write a header", e))?;
    }
    let pch = pch_dir(job.compiler, base, &root, &job.flags);
    let mut args = job.flags.clone();
    args.push("-shared".into());
    if !job.opts.headers.is_empty() {
        args.push(format!("-I{}", hdr.display()));
    }
    if let Some(p) = &pch {
        args.push(format!("-I{}", p.display()));
    }
    args.push(format!("-I{}", root.display()));
    for p in &job.opts.include_paths {
        args.push(format!("-I{}", p.display()));
    }
    args.extend(job.user_flags.iter().cloned());
    args.extend([
        "-include".into(),
        prelude_for(&job.tu).into(),
        "-x".into(),
        "c++".into(),
        name.clone(),
        "-o".into(),
        "module.so".into(),
    ]);
    let mut outcome = Err(String::new());
    let mut used = args.clone();
    for lean in [cfg!(target_os = "linux"), false] {
        used = args.clone();
        if lean {
            used.extend(LEAN_LINK.iter().map(|s| s.to_string()));
        }
        outcome = run_compiler(job.compiler, &used, work.path())?;
        match &outcome {
            Err(log) if lean && log.contains("undefined reference") => {}
            _ => break,
        }
    }
    match outcome {
        Ok(log) => {
            let so = std::fs::read(work.path().join("module.so"))
                .map_err(|e| io("no module was written", e))?;
            std::fs::remove_file(work.path().join("module.so")).ok();
            Ok((so, log, work))
        }
        Err(log) => Err(Error::compile(CompileFailure {
            name,
            options: used,
            log: tidy_log(&log, work.path(), &root),
            source: job.tu.clone(),
            spans: Vec::new(),
            compiler: format!("the host compiler ({})", job.compiler.version_line()),
        })),
    }
}

/// The log with the work and header folders left out of paths.
fn tidy_log(log: &str, work: &Path, root: &Path) -> String {
    log.replace(&format!("{}/", work.display()), "")
        .replace(&format!("{}/", root.display()), "")
}

/// A file name for the program (no folders).
fn sanitize_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if n.is_empty() || n.starts_with('.') {
        format!("k{n}")
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_kernels_take_the_prelude_with_cuprums_headers() {
        let generated = format!("#line 1 \"k.cu\"\n{GENERATED_PREFIX}typedef int T;\n");
        assert_eq!(prelude_for(&generated), "cuprum/host/prelude_kernels.h");
        // anything before the includes (a user's macro, another header) keeps the plain one
        for other in [
            "#line 1 \"k.cu\"\n#define N 4\n#include <cuprum/all.cuh>\n",
            "#line 1 \"k.cu\"\n#include <cuprum/all.cuh>\nint x;\n",
            "#line 1 \"k.cu\"\nextern \"C\" __global__ void k() {}\n",
            "",
        ] {
            assert_eq!(prelude_for(other), "cuprum/host/prelude.h", "{other}");
        }
        let shim: Vec<&str> = SHIM_HEADERS.iter().map(|(n, _)| *n).collect();
        assert!(PRELUDES.iter().all(|p| shim.contains(p)));
    }

    #[test]
    fn entries_verify_and_reject_damage() {
        let key = [3u8; 32];
        let so = b"\x7fELF not really".to_vec();
        let mut e = so.clone();
        e.extend_from_slice(&trailer(&so, "warning: x", &key));
        assert!(verify(&e, &key));
        let mut other = key;
        other[0] ^= 1;
        assert!(!verify(&e, &other));
        for n in 0..e.len() {
            assert!(!verify(&e[..n], &key), "truncated to {n}");
        }
        for i in 0..e.len() {
            let mut b = e.clone();
            b[i] ^= 0x20;
            assert!(!verify(&b, &key), "flipped byte {i}");
        }
    }

    #[test]
    fn kernels_defined_by_macros_are_found() {
        let src = "#define ENTRY(NAME, V) \\\nextern \"C\" __global__ void __launch_bounds__(256) NAME(float* x) \\\n  { body<V>(x); }\nENTRY(k_v, 4)\nENTRY(k_1, 1)\n#define OTHER(a) (a + 1)\nint y = OTHER(2);\n";
        let names: Vec<String> = macro_kernels(src).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["k_v", "k_1"]);
        let cond = "#define E(N) extern \"C\" __global__ void N(int* x) {}\n#if !SEG\nE(a)\n#else\nE(b)\n#endif\n";
        let found = macro_kernels(cond);
        assert_eq!(found[0], ("a".to_string(), vec!["#if !SEG".to_string()]));
        assert_eq!(
            found[1],
            (
                "b".to_string(),
                vec!["#if !SEG".to_string(), "#else".to_string()]
            )
        );
        let tu = translation_unit(cond, &CompileOptions::new()).unwrap();
        assert!(
            tu.contains("#if !SEG\n#else\n  cuprum_host::entry<&b>(\"b\"),\n#endif\n"),
            "{tu}"
        );
        let tu = translation_unit(src, &CompileOptions::new()).unwrap();
        assert!(tu.contains("cuprum_host::entry<&k_v>(\"k_v\")"), "{tu}");
        assert!(tu.contains("cuprum_host::entry<&k_1>(\"k_1\")"), "{tu}");
        let jit = "#include <cuprum/jit.cuh>\nextern \"C\" __global__ void k(float* x) {}\n";
        let tu = translation_unit(jit, &CompileOptions::new()).unwrap();
        assert!(tu.contains("(void*)&cj_fault_ctx"), "{tu}");
    }

    #[test]
    fn translation_units_list_kernels_expressions_and_globals() {
        let src = "extern \"C\" __global__ void k(float* x) {}\ntemplate <int N> __global__ void t(int* x) {}\n__constant__ float c[4];\n";
        let tu = translation_unit(
            src,
            &CompileOptions::new()
                .name_expression("t<3>")
                .program_name("m.cu"),
        )
        .unwrap();
        assert!(tu.starts_with("#line 1 \"m.cu\"\n"));
        assert!(
            tu.contains("cuprum_host::entry<&__cuprum_k_k>(\"k\")"),
            "{tu}"
        );
        assert!(tu.contains("cuprum_host::entry<&t<3>>(\"t<3>\")"), "{tu}");
        assert!(
            tu.contains("cuprum_host_global{\"c\", (void*)&c, sizeof(c)}"),
            "{tu}"
        );
        assert!(tu.contains("sizeof(__cuprum_kernels[0]) - 1), 1u"), "{tu}");
    }
}
