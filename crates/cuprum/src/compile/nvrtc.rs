//! Loading NVRTC (from where [`discovery`](super::discovery) finds it), and one compile of
//! a program to cubin or PTX.
//!
//! NVRTC is cuprum's own binding: loaded with libloading from the file discovery found
//! (strictly that one; the loader path only when discovery found none), with
//! `libnvrtc-builtins` from the same folder loaded first so that NVRTC finds it where the
//! system loader would not (a pip wheel, a toolkit off the loader path). A compile produces
//! a **cubin** for the device's `sm_XX`; for a device newer than every architecture NVRTC
//! knows, PTX for the newest one it knows (the driver compiles it at load); an explicit
//! `-arch=` option (`sm_90a`, `compute_90`) wins. In-memory headers and name expressions
//! are supported: the lowered names travel with the image into the cache entry and the
//! loaded `Module`, so `function("scale<float, 4>")` finds its kernel. A failed load is not
//! remembered, so a program that calls `cuprum::setup()` afterwards finds the new
//! installation.

use super::discovery::{self, Origin};
use crate::error::{Error, Result, bail, err};
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

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
    found_by: Origin,
    location: Option<discovery::Found>,
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

/// One compile's inputs, as [`Nvrtc::compile`] takes them.
#[derive(Clone, Copy)]
pub(crate) struct Input<'a> {
    pub source: &'a str,
    pub name: &'a str,
    pub options: &'a [String],
    pub headers: &'a [(&'a str, &'a str)],
    pub name_expressions: &'a [String],
}

/// How long the NVRTC calls of one compile took: program creation (with the in-memory
/// headers), `nvrtcCompileProgram` (front end, NVVM, PTX → cubin), and reading the log,
/// the image and the lowered names back, then destroying the program.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Steps {
    /// `nvrtcCreateProgram` (and the strings' conversion before it).
    pub create: Duration,
    /// `nvrtcCompileProgram`.
    pub compile: Duration,
    /// Reading the log, image and lowered names; destroying the program.
    pub fetch: Duration,
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

/// Loads NVRTC once per process and returns it, or an error listing every place searched
/// and how to get it (`cuprum setup`, [`cuprum::setup()`](crate::setup), pip, the toolkit).
/// A failure is not remembered: after [`setup()`](crate::setup) a later call finds the new
/// installation.
///
/// ```
/// # cuprum::compile::set_cache_dir(None); // doc tests leave the user's cache alone
/// match cuprum::compile::nvrtc() {
///     Ok(n) => println!("NVRTC {}.{} from {} ({})", n.version().0, n.version().1, n.path(), n.found_by()),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn nvrtc() -> Result<&'static Nvrtc> {
    static NVRTC: OnceLock<Nvrtc> = OnceLock::new();
    static LOADING: Mutex<()> = Mutex::new(());
    if let Some(n) = NVRTC.get() {
        return Ok(n);
    }
    let _one_at_a_time = LOADING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(n) = NVRTC.get() {
        return Ok(n);
    }
    let n = find()?;
    Ok(NVRTC.get_or_init(|| n))
}

/// A string that changes whenever the NVRTC that would be loaded changes (its file, size
/// and modification time, and those of its builtins), computed without loading NVRTC, so a
/// disk-cache hit never pays NVRTC's ~10 ms load.
pub(crate) fn identity() -> String {
    let s = discovery::nvrtc_search();
    s.identity(|| {
        nvrtc()
            .ok()
            .map(|n| format!("{}:{}.{}", n.path(), n.version.0, n.version.1))
    })
    .to_string()
}

/// Loads the library the search found (strictly that one: a file that exists but does not
/// load is an error naming it), else the plain names through the system's loader path.
fn find() -> Result<Nvrtc> {
    let s = discovery::nvrtc_search();
    if let Some((path, origin)) = &s.found {
        return open(path, origin.clone())
            .map(|mut n| {
                n.location = discovery::nvrtc_found();
                n
            })
            .map_err(|e| {
                err!(
                    NvrtcNotFound,
                    "NVRTC at {} ({origin}) does not load: {e}. {}",
                    path.display(),
                    fixes()
                )
            });
    }
    if s.explicit {
        bail!(
            NvrtcNotFound,
            "CUPRUM_NVRTC does not name an NVRTC library: {}",
            s.tried.join("; ")
        );
    }
    let mut why = Vec::new();
    for name in discovery::NVRTC_NAMES {
        match open(Path::new(name), Origin::LoaderPath) {
            Ok(n) => return Ok(n),
            Err(e) => why.push(format!("{name}: {e}")),
        }
    }
    bail!(
        NvrtcNotFound,
        "NVRTC (the CUDA {} runtime compiler) not found. Looked in: {}. {}",
        discovery::CUDA_MAJOR,
        s.tried.join("; "),
        fixes()
    )
}

/// How to get NVRTC, for error messages.
pub(crate) fn fixes() -> String {
    let data = discovery::data_dir().map_or_else(
        || "cuprum's data folder".to_string(),
        |d| {
            d.join(format!("cuda-{}", discovery::CUDA_MAJOR))
                .display()
                .to_string()
        },
    );
    format!(
        "To fix: run `cuprum setup` (in a program: `cuprum::setup()`), which installs NVRTC \
         and the CUDA headers with pip into {data}; or `{} -m pip install \"nvidia-cuda-nvrtc==13.0.*\"`; \
         or install the CUDA {} toolkit (and set CUDA_HOME); or set CUPRUM_NVRTC to the library",
        discovery::python_name(),
        discovery::CUDA_MAJOR
    )
}

/// NVRTC loads `libnvrtc-builtins.so.<major>.<minor>` by name at its first compile. When
/// NVRTC comes from a folder the loader does not search (a pip wheel, a toolkit not on
/// `LD_LIBRARY_PATH`), load the builtins from that folder first: the loader then finds the
/// already loaded library by its soname.
fn preload_builtins(nvrtc_path: &Path) -> Option<Library> {
    let dir = nvrtc_path.parent().filter(|d| !d.as_os_str().is_empty())?;
    // SAFETY: the builtins library only registers data for NVRTC; loading it runs no code
    // with side effects on this process.
    discovery::builtins_in(dir)
        .iter()
        .rev()
        .find_map(|p| unsafe { Library::new(p) }.ok())
}

fn open(path: &Path, found_by: Origin) -> Result<Nvrtc> {
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
        location: None,
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
    /// How it was found: an explicit setting, cuprum's data folder, a toolkit, a pip wheel
    /// (and which Python's), or the loader path.
    pub fn found_by(&self) -> &Origin {
        &self.found_by
    }
    /// Where it was found with the version of its package (the pip wheel's, or the
    /// toolkit's); `None` when it came through the system's loader path.
    pub fn location(&self) -> Option<&discovery::Found> {
        self.location.as_ref()
    }
    /// NVRTC's `(major, minor)` version.
    pub fn version(&self) -> (i32, i32) {
        self.version
    }
    /// The `sm_XX` numbers this NVRTC can produce cubins for.
    pub fn supported_archs(&self) -> &[i32] {
        &self.archs
    }

    /// Every `-arch` target this NVRTC accepts: `sm_XX` (cubin) for each supported
    /// architecture, the arch-specific `sm_XXa` (90 and newer) and family `sm_XXf` (100 and
    /// newer) variants, and `compute_XX` (PTX) for each of them.
    pub fn targets(&self) -> Vec<String> {
        let mut v = Vec::new();
        for kind in ["sm", "compute"] {
            for &a in &self.archs {
                v.push(format!("{kind}_{a}"));
                if a >= 90 {
                    v.push(format!("{kind}_{a}a"));
                }
                if a >= 100 {
                    v.push(format!("{kind}_{a}f"));
                }
            }
        }
        v
    }

    /// Checks a target such as `sm_90`, `sm_90a`, `sm_100f` or `compute_90` and returns its
    /// architecture number (90); an error lists the targets this NVRTC supports.
    ///
    /// ```
    /// if let Ok(n) = cuprum::compile::nvrtc() {
    ///     assert_eq!(n.check_target("sm_90a")?, 90);
    ///     let e = n.check_target("sm_91").unwrap_err();
    ///     assert!(e.to_string().contains("sm_90"), "{e}");
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn check_target(&self, target: &str) -> Result<u32> {
        let t = target.trim();
        let digits = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("compute_"))
            .map(|r| r.trim_end_matches(['a', 'f']));
        match digits.and_then(|d| d.parse::<u32>().ok()) {
            Some(n) if self.targets().iter().any(|x| x == t) => Ok(n),
            _ => {
                let list = |suffix: &str, min: i32| {
                    self.archs
                        .iter()
                        .filter(|&&a| a >= min)
                        .map(|a| format!("sm_{a}{suffix}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                bail!(
                    InvalidArgument,
                    "{target:?} is not a target NVRTC {}.{} supports. Supported: {} (cubins); \
                     {} (arch-specific); {} (family); and compute_ in place of sm_ for PTX",
                    self.version.0,
                    self.version.1,
                    list("", 0),
                    list("a", 90),
                    list("f", 100)
                )
            }
        }
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
        let mut steps = Steps::default();
        let input = Input {
            source,
            name,
            options,
            headers,
            name_expressions,
        };
        self.compile_timed(&input, want_cubin, &mut steps)
    }

    /// [`compile`](Self::compile), recording how long each NVRTC call took in `steps`.
    pub(crate) fn compile_timed(
        &self,
        input: &Input<'_>,
        want_cubin: bool,
        steps: &mut Steps,
    ) -> Result<CompiledImage> {
        let Input {
            source,
            name,
            options,
            headers,
            name_expressions,
        } = *input;
        let start = Instant::now();
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
        steps.create = start.elapsed();
        let guard = ProgramGuard {
            api: &self.api,
            prog,
        };
        for e in &cexprs {
            // SAFETY: the program is live and the expression NUL-terminated.
            let r = unsafe { (self.api.add_name)(guard.prog, e.as_ptr()) };
            self.check(r, "nvrtcAddNameExpression")?;
        }
        let compiling = Instant::now();
        // SAFETY: the program is live; `copts_p` holds `options.len()` valid C strings.
        let rc =
            unsafe { (self.api.compile)(guard.prog, copts_p.len() as c_int, copts_p.as_ptr()) };
        steps.compile = compiling.elapsed();
        let fetching = Instant::now();
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
                compiler: "NVRTC".into(),
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
        steps.fetch = fetching.elapsed();
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
