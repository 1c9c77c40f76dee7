//! Finding and loading NVRTC, and one compile of a program to cubin or PTX.
//!
//! Search order (the first that loads wins; `cuprum info` reports which):
//! 1. `CUPRUM_NVRTC` — a path to the library file or to the folder holding it (if set and it
//!    does not load, that is an error: an explicit choice never falls back silently);
//! 2. `CUDA_HOME`, then `CUDA_PATH` (`lib64/` and `lib/`);
//! 3. `/usr/local/cuda` (`lib64/`);
//! 4. the pip wheel layout `nvidia/cu13/lib` in the active Python's site-packages
//!    (`nvidia-cuda-nvrtc==13.*`; the Python is `$CUPRUM_PYTHON`, else `python3`);
//! 5. the plain library names, through the system's loader path.

use crate::error::{Error, Result, bail, err};
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

type Prog = *mut c_void;
type Res = c_int;

/// The NVRTC entry points cuprum uses.
struct Api {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Res,
    num_archs: unsafe extern "C" fn(*mut c_int) -> Res,
    archs: unsafe extern "C" fn(*mut c_int) -> Res,
    error_string: unsafe extern "C" fn(Res) -> *const c_char,
    create: unsafe extern "C" fn(
        *mut Prog,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Res,
    destroy: unsafe extern "C" fn(*mut Prog) -> Res,
    compile: unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> Res,
    log_size: unsafe extern "C" fn(Prog, *mut usize) -> Res,
    log: unsafe extern "C" fn(Prog, *mut c_char) -> Res,
    cubin_size: unsafe extern "C" fn(Prog, *mut usize) -> Res,
    cubin: unsafe extern "C" fn(Prog, *mut c_char) -> Res,
    ptx_size: unsafe extern "C" fn(Prog, *mut usize) -> Res,
    ptx: unsafe extern "C" fn(Prog, *mut c_char) -> Res,
    add_name: unsafe extern "C" fn(Prog, *const c_char) -> Res,
    lowered: unsafe extern "C" fn(Prog, *const c_char, *mut *const c_char) -> Res,
}

/// A loaded NVRTC: where it came from, its version and the architectures it can target.
pub struct Nvrtc {
    api: Api,
    _lib: Library,
    _builtins: Option<Library>,
    path: String,
    found_by: &'static str,
    version: (i32, i32),
    archs: Vec<i32>,
}

impl std::fmt::Debug for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvrtc")
            .field("path", &self.path)
            .field("found_by", &self.found_by)
            .field("version", &self.version)
            .finish()
    }
}

/// What one compile produced.
#[derive(Debug, Clone)]
pub struct CompiledImage {
    /// The cubin (ELF) or the PTX text.
    pub image: Vec<u8>,
    /// True for a cubin, false for PTX.
    pub is_cubin: bool,
    /// `(name expression, lowered name)` for every name expression given.
    pub lowered_names: Vec<(String, String)>,
    /// NVRTC's log (warnings; empty when there were none).
    pub log: String,
}

/// Loads NVRTC once per process and returns it, or an error listing every place searched.
///
/// ```
/// # cuprum::compile::set_cache_dir(None); // doc tests leave the user's cache alone
/// match cuprum::compile::nvrtc() {
///     Ok(n) => println!("NVRTC {}.{} from {} ({})", n.version().0, n.version().1, n.path(), n.found_by()),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn nvrtc() -> Result<&'static Nvrtc> {
    static NVRTC: OnceLock<Result<Nvrtc>> = OnceLock::new();
    NVRTC.get_or_init(find).as_ref().map_err(Clone::clone)
}

const LIB_NAMES: [&str; 2] = ["libnvrtc.so.13", "libnvrtc.so"];

fn candidates_in(dir: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    LIB_NAMES.iter().map(move |n| dir.join(n))
}

/// The pip wheel folders (`<site-packages>/nvidia/cu13/lib`) that exist. Asking Python costs
/// ~100 ms, so the answer is remembered in the cache folder (`nvrtc-pip-location`) and
/// reused while the folder it names still exists — read, like a cache entry, only from a
/// file the current user owns (it decides which library is loaded).
fn pip_lib_dirs() -> Vec<PathBuf> {
    let memo = super::cache::configured_dir().map(|d| d.join("nvrtc-pip-location"));
    if let Some(super::cache::Read::Bytes(bytes)) = memo.as_deref().map(super::cache::read_trusted)
    {
        let dirs: Vec<PathBuf> = String::from_utf8_lossy(&bytes)
            .lines()
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
            .collect();
        if !dirs.is_empty() {
            return dirs;
        }
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in python_site_dirs() {
        let lib = d.join("nvidia").join("cu13").join("lib");
        if lib.is_dir() && !dirs.contains(&lib) {
            dirs.push(lib);
        }
    }
    // Remembered only where the cache may write (never when memory-only), atomically, in
    // a folder created owner-only.
    if let Some(memo) = memo.filter(|_| !dirs.is_empty()) {
        let text: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        let _ = super::cache::write_atomic(&memo, text.join("\n").as_bytes());
    }
    dirs
}

fn python_site_dirs() -> Vec<PathBuf> {
    let python = std::env::var("CUPRUM_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = "import site, sysconfig\n\
                  dirs = [sysconfig.get_paths().get('purelib'), sysconfig.get_paths().get('platlib')]\n\
                  try:\n    dirs += site.getsitepackages()\nexcept Exception:\n    pass\n\
                  try:\n    dirs.append(site.getusersitepackages())\nexcept Exception:\n    pass\n\
                  print('\\n'.join(d for d in dirs if d))";
    match std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// Where NVRTC may be, in search order: `(path or bare name, how it was found)`.
/// An explicit `CUPRUM_NVRTC` gives only its own candidates.
fn candidates() -> (Vec<(PathBuf, &'static str)>, bool) {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("CUPRUM_NVRTC") {
        let p = PathBuf::from(p);
        if p.is_dir() {
            out.extend(candidates_in(&p).map(|f| (f, "CUPRUM_NVRTC")));
        } else {
            out.push((p, "CUPRUM_NVRTC"));
        }
        return (out, true);
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            let root = PathBuf::from(root);
            for sub in ["lib64", "lib"] {
                let found_by = if var == "CUDA_HOME" {
                    "CUDA_HOME"
                } else {
                    "CUDA_PATH"
                };
                out.extend(candidates_in(&root.join(sub)).map(|f| (f, found_by)));
            }
        }
    }
    out.extend(candidates_in(Path::new("/usr/local/cuda/lib64")).map(|f| (f, "/usr/local/cuda")));
    let fixed = out.iter().any(|(p, _)| p.exists());
    if !fixed {
        out.extend(pip_lib_dirs().into_iter().flat_map(|dir| {
            candidates_in(&dir)
                .map(|f| (f, "pip wheel (nvidia-cuda-nvrtc)"))
                .collect::<Vec<_>>()
        }));
    }
    for name in LIB_NAMES {
        out.push((PathBuf::from(name), "system library path"));
    }
    (out, false)
}

/// A string that changes whenever the NVRTC that would be loaded changes (its file, size
/// and modification time, and those of its builtins), computed without loading NVRTC, so a
/// disk-cache hit never pays NVRTC's ~10 ms load. Cached for the process.
pub(crate) fn identity() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let (cands, _) = candidates();
        let stat = |p: &Path| {
            std::fs::metadata(p).ok().map(|m| {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}:{}:{mtime}", p.display(), m.len())
            })
        };
        for (p, _) in &cands {
            if p.is_absolute()
                && let Some(s) = stat(p)
            {
                // The resolved file name carries the full version
                // (libnvrtc.so.13 -> libnvrtc.so.13.0.88), which names the builtins
                // (libnvrtc-builtins.so.13.0): two stats, no folder scan. Only a file without
                // a minor version in its name (the pip wheel's) needs a look at its folder.
                let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                let version = real
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.split(".so.").nth(1))
                    .map(|v| v.split('.').take(2).collect::<Vec<_>>())
                    .filter(|v| v.len() == 2)
                    .map(|v| v.join("."));
                let dir = real.parent().map(Path::to_path_buf).unwrap_or_default();
                let builtins = match version {
                    Some(v) => {
                        stat(&dir.join(format!("libnvrtc-builtins.so.{v}"))).unwrap_or_default()
                    }
                    None => std::fs::read_dir(&dir)
                        .map(|rd| {
                            let mut v: Vec<String> = rd
                                .filter_map(|e| e.ok().map(|e| e.path()))
                                .filter(|q| {
                                    q.file_name()
                                        .and_then(|n| n.to_str())
                                        .is_some_and(|n| n.starts_with("libnvrtc-builtins.so."))
                                })
                                .filter_map(|q| stat(&q))
                                .collect();
                            v.sort();
                            v.join(",")
                        })
                        .unwrap_or_default(),
                };
                let s = format!("{s};{}", real.display());
                return format!("{s};{builtins}");
            }
        }
        // Only reachable through the loader path: ask the loaded library its version.
        match nvrtc() {
            Ok(n) => format!("{}:{}.{}", n.path(), n.version.0, n.version.1),
            Err(_) => "nvrtc-missing".into(),
        }
    })
}

fn find() -> Result<Nvrtc> {
    let (cands, explicit) = candidates();
    let mut tried: Vec<String> = Vec::new();
    for (path, found_by) in &cands {
        if path.is_absolute() && !path.exists() {
            tried.push(format!("{} (missing)", path.display()));
            continue;
        }
        match open(path, found_by) {
            Ok(n) => return Ok(n),
            Err(e) => tried.push(format!("{} ({e})", path.display())),
        }
    }
    if explicit {
        bail!(
            NvrtcNotFound,
            "CUPRUM_NVRTC does not name a loadable NVRTC library; tried: {}",
            tried.join("; ")
        );
    }
    bail!(
        NvrtcNotFound,
        "NVRTC (CUDA 13 runtime compiler) not found. Install it with \
         `pip install nvidia-cuda-nvrtc==13.0.*`, install the CUDA toolkit, or set CUPRUM_NVRTC \
         to the library. Tried: {}",
        tried.join("; ")
    )
}

/// NVRTC loads `libnvrtc-builtins.so.<major>.<minor>` by name at its first compile. When
/// NVRTC comes from a folder the loader does not search (a pip wheel, a toolkit not on
/// `LD_LIBRARY_PATH`), load the builtins from that folder first: the loader then finds the
/// already loaded library by its soname.
fn preload_builtins(nvrtc_path: &Path) -> Option<Library> {
    let dir = nvrtc_path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so.") && !n.contains(".alt."))
        })
        .collect();
    found.sort();
    // SAFETY: the builtins library only registers data for NVRTC; loading it runs no code
    // with side effects on this process.
    found
        .iter()
        .rev()
        .find_map(|p| unsafe { Library::new(p) }.ok())
}

fn open(path: &Path, found_by: &'static str) -> Result<Nvrtc> {
    let builtins = preload_builtins(path);
    // SAFETY: loading NVRTC runs its (side-effect free) initialisers; we only resolve
    // symbols with the signatures NVRTC 13 documents.
    let lib = unsafe { Library::new(path) }.map_err(|e| err!(NvrtcNotFound, "{e}"))?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol has the C signature declared in `Api` (NVRTC 13 headers).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| err!(NvrtcNotFound, "missing symbol {}: {e}", $name))?
        };
    }
    let api = Api {
        version: sym!("nvrtcVersion"),
        num_archs: sym!("nvrtcGetNumSupportedArchs"),
        archs: sym!("nvrtcGetSupportedArchs"),
        error_string: sym!("nvrtcGetErrorString"),
        create: sym!("nvrtcCreateProgram"),
        destroy: sym!("nvrtcDestroyProgram"),
        compile: sym!("nvrtcCompileProgram"),
        log_size: sym!("nvrtcGetProgramLogSize"),
        log: sym!("nvrtcGetProgramLog"),
        cubin_size: sym!("nvrtcGetCUBINSize"),
        cubin: sym!("nvrtcGetCUBIN"),
        ptx_size: sym!("nvrtcGetPTXSize"),
        ptx: sym!("nvrtcGetPTX"),
        add_name: sym!("nvrtcAddNameExpression"),
        lowered: sym!("nvrtcGetLoweredName"),
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out pointers.
    unsafe { (api.version)(&mut major, &mut minor) };
    if major < 12 {
        bail!(
            NvrtcNotFound,
            "NVRTC {major}.{minor} is too old (need 12 or newer)"
        );
    }
    let mut n = 0;
    // SAFETY: valid out pointer; then a buffer of exactly `n` ints.
    unsafe { (api.num_archs)(&mut n) };
    let mut archs = vec![0; n.max(0) as usize];
    if n > 0 {
        // SAFETY: `archs` has room for `n` entries.
        unsafe { (api.archs)(archs.as_mut_ptr()) };
    }
    let shown = if path.is_absolute() {
        path.display().to_string()
    } else {
        format!("{} (system library path)", path.display())
    };
    Ok(Nvrtc {
        api,
        _lib: lib,
        _builtins: builtins,
        path: shown,
        found_by,
        version: (major, minor),
        archs,
    })
}

struct ProgramGuard<'a> {
    api: &'a Api,
    prog: Prog,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe { (self.api.destroy)(&mut self.prog) };
    }
}

impl Nvrtc {
    /// The library file that was loaded.
    pub fn path(&self) -> &str {
        &self.path
    }
    /// How it was found (`"CUDA_HOME"`, `"/usr/local/cuda"`, `"pip wheel ..."` ...).
    pub fn found_by(&self) -> &'static str {
        self.found_by
    }
    /// NVRTC's `(major, minor)` version.
    pub fn version(&self) -> (i32, i32) {
        self.version
    }
    /// The `sm_XX` numbers this NVRTC can produce cubins for.
    pub fn supported_archs(&self) -> &[i32] {
        &self.archs
    }

    /// The target for a device of architecture `arch` (e.g. 90): `("sm_90", true)` for a
    /// cubin when NVRTC knows the architecture, else PTX for the newest architecture it
    /// knows (`("compute_120", false)`), which the driver compiles at load.
    pub fn target_for(&self, arch: u32) -> (String, bool) {
        let arch = arch as i32;
        if self.archs.is_empty() || self.archs.contains(&arch) {
            return (format!("sm_{arch}"), true);
        }
        let max = self.archs.iter().copied().filter(|&a| a <= arch).max();
        match max {
            Some(m) if arch > *self.archs.iter().max().unwrap_or(&m) => {
                (format!("compute_{m}"), false)
            }
            Some(m) => (format!("sm_{m}"), true),
            None => (format!("sm_{arch}"), true),
        }
    }

    fn err_text(&self, r: Res) -> String {
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any code.
        let p = unsafe { (self.api.error_string)(r) };
        if p.is_null() {
            format!("NVRTC error {r}")
        } else {
            // SAFETY: non-null static C string from NVRTC.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    }

    fn check(&self, r: Res, what: &str) -> Result<()> {
        if r == 0 {
            Ok(())
        } else {
            bail!(Compile, "{what} failed: {}", self.err_text(r))
        }
    }

    /// Compiles `source` (program name `name`) with `options` (which must include the
    /// `-arch=` target), in-memory `headers` (`(include name, text)`), and registers
    /// `name_expressions` whose lowered names are returned. `want_cubin` picks the output.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &[String],
        headers: &[(&str, &str)],
        name_expressions: &[String],
        want_cubin: bool,
    ) -> Result<CompiledImage> {
        let c = |s: &str, what: &str| {
            CString::new(s).map_err(|_| err!(InvalidArgument, "{what} contains a NUL byte"))
        };
        let csrc = c(source, "kernel source")?;
        let cname = c(name, "program name")?;
        let hdr_text: Vec<CString> = headers
            .iter()
            .map(|h| c(h.1, "header"))
            .collect::<Result<_>>()?;
        let hdr_names: Vec<CString> = headers
            .iter()
            .map(|h| c(h.0, "header name"))
            .collect::<Result<_>>()?;
        let hdr_text_p: Vec<*const c_char> = hdr_text.iter().map(|s| s.as_ptr()).collect();
        let hdr_names_p: Vec<*const c_char> = hdr_names.iter().map(|s| s.as_ptr()).collect();
        let copts: Vec<CString> = options
            .iter()
            .map(|o| c(o, "compile option"))
            .collect::<Result<_>>()?;
        let copts_p: Vec<*const c_char> = copts.iter().map(|s| s.as_ptr()).collect();
        let cexprs: Vec<CString> = name_expressions
            .iter()
            .map(|e| c(e, "name expression"))
            .collect::<Result<_>>()?;

        let mut prog: Prog = std::ptr::null_mut();
        // SAFETY: all strings are NUL-terminated and outlive the call; the header arrays
        // have `headers.len()` entries each (or are unused when empty).
        let r = unsafe {
            (self.api.create)(
                &mut prog,
                csrc.as_ptr(),
                cname.as_ptr(),
                headers.len() as c_int,
                if headers.is_empty() {
                    std::ptr::null()
                } else {
                    hdr_text_p.as_ptr()
                },
                if headers.is_empty() {
                    std::ptr::null()
                } else {
                    hdr_names_p.as_ptr()
                },
            )
        };
        self.check(r, "nvrtcCreateProgram")?;
        let guard = ProgramGuard {
            api: &self.api,
            prog,
        };
        for e in &cexprs {
            // SAFETY: the program is live and the expression NUL-terminated.
            let r = unsafe { (self.api.add_name)(guard.prog, e.as_ptr()) };
            self.check(r, "nvrtcAddNameExpression")?;
        }
        // SAFETY: the program is live; `copts_p` holds `options.len()` valid C strings.
        let rc =
            unsafe { (self.api.compile)(guard.prog, copts_p.len() as c_int, copts_p.as_ptr()) };
        let log = self.read(guard.prog, self.api.log_size, self.api.log)?;
        let log = String::from_utf8_lossy(&log)
            .trim_end_matches('\0')
            .to_string();
        if rc != 0 {
            return Err(Error::compile(super::CompileFailure {
                name: name.to_string(),
                options: options.to_vec(),
                log,
                source: source.to_string(),
                spans: Vec::new(),
            }));
        }
        let image = if want_cubin {
            self.read(guard.prog, self.api.cubin_size, self.api.cubin)?
        } else {
            self.read(guard.prog, self.api.ptx_size, self.api.ptx)?
        };
        let mut lowered_names = Vec::with_capacity(cexprs.len());
        for (e, ce) in name_expressions.iter().zip(&cexprs) {
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: the program is live and compiled; NVRTC owns the returned string until
            // the program is destroyed, and we copy it out before that.
            let r = unsafe { (self.api.lowered)(guard.prog, ce.as_ptr(), &mut p) };
            self.check(r, "nvrtcGetLoweredName")?;
            if p.is_null() {
                bail!(Compile, "NVRTC returned no lowered name for '{e}'");
            }
            // SAFETY: non-null C string owned by the live program.
            let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            lowered_names.push((e.clone(), s));
        }
        drop(guard);
        Ok(CompiledImage {
            image,
            is_cubin: want_cubin,
            lowered_names,
            log,
        })
    }

    fn read(
        &self,
        prog: Prog,
        size_fn: unsafe extern "C" fn(Prog, *mut usize) -> Res,
        get_fn: unsafe extern "C" fn(Prog, *mut c_char) -> Res,
    ) -> Result<Vec<u8>> {
        let mut n = 0usize;
        // SAFETY: live program, valid out pointer.
        self.check(unsafe { size_fn(prog, &mut n) }, "nvrtcGet*Size")?;
        let mut buf = vec![0u8; n];
        if n > 0 {
            // SAFETY: the buffer holds exactly the size NVRTC reported.
            self.check(
                unsafe { get_fn(prog, buf.as_mut_ptr().cast()) },
                "nvrtcGet*",
            )?;
        }
        Ok(buf)
    }
}
