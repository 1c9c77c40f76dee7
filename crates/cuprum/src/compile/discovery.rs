//! Where cuprum finds NVRTC and the CUDA headers. One search, used by everything that needs
//! an answer (loading NVRTC, the kernel cache's key, the include folders of a compile,
//! `cuprum info`, `cuprum setup --check`, the not-found errors), so they always agree.
//!
//! Places, in order; for each component the first place that has it wins:
//! 1. an explicit setting: `CUPRUM_NVRTC` (the library file or its folder) for NVRTC,
//!    `CUPRUM_CUDA_INCLUDE` (folders, separated like `PATH`) for the headers. An explicit
//!    setting is the only place looked at for its component;
//! 2. cuprum's data folder, `<data>/cuda-13` (`cuprum setup` fills it; `<data>` is
//!    `$CUPRUM_DATA_DIR`, else the platform data folder + `/cuprum`, `~/.local/share/cuprum`);
//! 3. `$CUDA_HOME`, then `$CUDA_PATH`, then `/usr/local/cuda` (a CUDA toolkit);
//! 4. the pip wheels (`nvidia/cu13/{lib,include}`) in the site-packages of the Python named
//!    by `CUPRUM_PYTHON` (default `python3`);
//! 5. NVRTC only: the system's library search path.
//!
//! Places 1–3 cost a few `stat` calls. Place 4 first derives the interpreter's
//! site-packages from its path (a venv or an ordinary installation, `python.rs`); only when
//! that finds no wheel is the interpreter started and asked (~0.1–0.3 s, once per process).
//! Nothing is remembered on disk (no memo file): every process finds the same answer from
//! the same machine state, and a disk-cache hit in a fresh process stays well under a
//! millisecond when NVRTC is in the data folder or in site-packages found from the path.
//!
//! The answer is computed once per process (`refresh` forgets it after `setup()` installed
//! something). A not-found error lists every place tried, including which Python was asked
//! and what it said.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub use super::python::python_name;
use super::python::{PythonSites, python_sites};

pub use super::wheels::CUDA_MAJOR;
use super::wheels::wheel_base;

/// The NVRTC file names looked for in a folder, in order.
pub(crate) const NVRTC_NAMES: [&str; 2] = ["libnvrtc.so.13", "libnvrtc.so"];

/// Where a component was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// An explicit setting, named by its variable (`CUPRUM_NVRTC`, `CUPRUM_CUDA_INCLUDE`).
    Explicit(&'static str),
    /// cuprum's own data folder (filled by `cuprum setup` / [`setup()`](crate::setup)).
    DataFolder,
    /// A CUDA toolkit, named by how it was found (`CUDA_HOME`, `CUDA_PATH`,
    /// `/usr/local/cuda`).
    Toolkit(&'static str),
    /// A pip wheel in the site-packages of a Python (the interpreter as configured).
    PipWheel {
        /// The interpreter (`python3`, or `$CUPRUM_PYTHON`).
        python: String,
    },
    /// The system's library search path (NVRTC only).
    LoaderPath,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Explicit(var) => write!(f, "set by {var}"),
            Origin::DataFolder => write!(f, "cuprum's data folder"),
            Origin::Toolkit(how) => write!(f, "CUDA toolkit ({how})"),
            Origin::PipWheel { python } => {
                write!(f, "pip wheel in the site-packages of {python}")
            }
            Origin::LoaderPath => write!(f, "the system library path"),
        }
    }
}

/// One redistributable CUDA component cuprum uses, with the pip package that provides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    /// The runtime compiler (`libnvrtc.so.13`, `nvidia-cuda-nvrtc`).
    Nvrtc,
    /// The CUDA runtime headers: `cuda_fp16.h`, `cuda_bf16.h`, `cooperative_groups.h`,
    /// `math_constants.h` ... (`nvidia-cuda-runtime`).
    RuntimeHeaders,
    /// CCCL: `cub/`, `thrust/`, `cuda/std/` (`nvidia-cuda-cccl`).
    Cccl,
    /// The CUDA C runtime support headers `crt/` that the runtime headers include
    /// (`nvidia-cuda-crt`).
    Crt,
}

impl Component {
    /// Every component, in the order `cuprum setup` lists them.
    pub const ALL: [Component; 4] = [
        Component::Nvrtc,
        Component::RuntimeHeaders,
        Component::Cccl,
        Component::Crt,
    ];
    /// The three header components.
    pub const HEADERS: [Component; 3] =
        [Component::RuntimeHeaders, Component::Cccl, Component::Crt];

    /// The pip package that provides it.
    pub fn pip_package(self) -> &'static str {
        match self {
            Component::Nvrtc => "nvidia-cuda-nvrtc",
            Component::RuntimeHeaders => "nvidia-cuda-runtime",
            Component::Cccl => "nvidia-cuda-cccl",
            Component::Crt => "nvidia-cuda-crt",
        }
    }

    /// A short name: `nvrtc`, `runtime headers`, `cccl headers`, `crt headers`.
    pub fn name(self) -> &'static str {
        match self {
            Component::Nvrtc => "nvrtc",
            Component::RuntimeHeaders => "runtime headers",
            Component::Cccl => "cccl headers",
            Component::Crt => "crt headers",
        }
    }

    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            Component::Nvrtc => "NVRTC (the runtime compiler)",
            Component::RuntimeHeaders => {
                "CUDA runtime headers (cuda_fp16.h, cooperative_groups.h, math_constants.h ...)"
            }
            Component::Cccl => "CCCL headers (cub/, thrust/, cuda/std/)",
            Component::Crt => "CUDA crt/ headers (included by the runtime headers)",
        }
    }

    /// The file, relative to an include folder, whose presence marks the component
    /// (NVRTC: `None`, it is a library).
    fn marker(self) -> Option<&'static str> {
        match self {
            Component::Nvrtc => None,
            Component::RuntimeHeaders => Some("cuda_fp16.h"),
            Component::Cccl => Some("cub/version.cuh"),
            Component::Crt => Some("crt/host_defines.h"),
        }
    }

    /// The wheel's `*.dist-info` folder prefix (`nvidia_cuda_nvrtc-`).
    fn dist_info_prefix(self) -> String {
        format!("{}-", self.pip_package().replace('-', "_"))
    }
}

/// The layout of a place that may hold components.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Layout {
    /// A toolkit root: `lib64/` or `lib/`, `include/` (and `include/cccl/`).
    Toolkit,
    /// A folder holding pip wheels (site-packages, or `pip install --target`):
    /// `nvidia/cu13/lib`, `nvidia/cu13/include` (and `include/cccl`), `*.dist-info`.
    Wheels,
}

/// A place to look, with how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Root {
    path: PathBuf,
    layout: Layout,
    origin: Origin,
}

impl Root {
    fn lib_dirs(&self) -> Vec<PathBuf> {
        match self.layout {
            Layout::Toolkit => vec![self.path.join("lib64"), self.path.join("lib")],
            Layout::Wheels => vec![wheel_base(&self.path).join("lib")],
        }
    }

    fn include_dir(&self) -> PathBuf {
        match self.layout {
            Layout::Toolkit => self.path.join("include"),
            Layout::Wheels => wheel_base(&self.path).join("include"),
        }
    }

    /// The include folder holding `component` here, if any (CCCL: `include/cccl`, as in
    /// CUDA 13 toolkits and wheels, else `include/` as in CUDA 12 toolkits).
    fn header_dir(&self, component: Component) -> Option<PathBuf> {
        let marker = component.marker()?;
        let inc = self.include_dir();
        let dirs = if component == Component::Cccl {
            vec![inc.join("cccl"), inc]
        } else {
            vec![inc]
        };
        dirs.into_iter().find(|d| d.join(marker).is_file())
    }
}

/// A component that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Which component.
    pub component: Component,
    /// The library file (NVRTC) or the include folder (headers).
    pub path: PathBuf,
    /// How it was found.
    pub origin: Origin,
    /// The place it was found in (a toolkit root, a site-packages folder, the data folder).
    pub root: PathBuf,
    wheels: bool,
}

impl Found {
    /// Its version: the wheel's version for a pip wheel or cuprum's data folder (from its
    /// `*.dist-info` folder name), else the toolkit's `CUDA_VERSION` from `cuda.h` (CCCL:
    /// `CCCL_VERSION`). `None` when neither says.
    pub fn version(&self) -> Option<String> {
        if self.wheels {
            return wheel_version(&self.root, self.component);
        }
        match self.component {
            Component::Cccl => cccl_version(&self.path),
            Component::Nvrtc => {
                let inc = self.path.parent()?.parent()?.join("include");
                cuda_h_version(&inc)
            }
            _ => cuda_h_version(&self.path),
        }
    }
}

/// `13.0.88` from `<site>/nvidia_cuda_nvrtc-13.0.88.dist-info`.
fn wheel_version(site: &Path, component: Component) -> Option<String> {
    let prefix = component.dist_info_prefix();
    std::fs::read_dir(site).ok()?.flatten().find_map(|e| {
        let name = e.file_name().into_string().ok()?;
        let v = name.strip_prefix(&prefix)?.strip_suffix(".dist-info")?;
        Some(v.to_string())
    })
}

/// The version of `component`'s wheel in a wheel folder (site-packages, or cuprum's data
/// folder), from its `*.dist-info` folder name.
pub(crate) fn wheel_version_in(site: &Path, component: Component) -> Option<String> {
    wheel_version(site, component)
}

/// True when a wheel folder (`pip install --target` layout) has `component`.
pub(crate) fn wheel_folder_has(site: &Path, component: Component) -> bool {
    let r = Root {
        path: site.to_path_buf(),
        layout: Layout::Wheels,
        origin: Origin::DataFolder,
    };
    match component {
        Component::Nvrtc => r
            .lib_dirs()
            .iter()
            .any(|d| d.join(NVRTC_NAMES[0]).is_file()),
        c => r.header_dir(c).is_some(),
    }
}

/// `13.0` from `#define CUDA_VERSION 13000` in `<include>/cuda.h`.
fn cuda_h_version(include: &Path) -> Option<String> {
    let v = define_value(&include.join("cuda.h"), "CUDA_VERSION")?;
    Some(format!("{}.{}", v / 1000, (v % 1000) / 10))
}

/// `3.0.1` from `CCCL_VERSION 3000001` (major × 1e6 + minor × 1e3 + patch).
fn cccl_version(cccl: &Path) -> Option<String> {
    let file = cccl.join("cuda/std/__cccl/version.h");
    let v = define_value(&file, "CCCL_VERSION")?;
    Some(format!(
        "CCCL {}.{}.{}",
        v / 1_000_000,
        (v / 1000) % 1000,
        v % 1000
    ))
}

fn define_value(file: &Path, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("#define")?.trim_start();
        let rest = rest.strip_prefix(name)?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The inputs of a search: every setting and fixed place, read once from the environment
/// (or made up by tests).
#[derive(Debug, Clone)]
pub(crate) struct Places {
    nvrtc_override: Option<PathBuf>,
    include_override: Option<Vec<PathBuf>>,
    data: Option<PathBuf>,
    toolkits: Vec<(&'static str, PathBuf)>,
    python: String,
}

impl Places {
    /// The places of this process's environment.
    pub(crate) fn from_env() -> Places {
        let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
        let mut toolkits = Vec::new();
        for name in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(v) = var(name) {
                toolkits.push((name, v.into()));
            }
        }
        toolkits.push(("/usr/local/cuda", PathBuf::from("/usr/local/cuda")));
        Places {
            nvrtc_override: var("CUPRUM_NVRTC").map(PathBuf::from),
            include_override: var("CUPRUM_CUDA_INCLUDE").map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            }),
            data: data_dir().map(|d| d.join(format!("cuda-{CUDA_MAJOR}"))),
            toolkits,
            python: python_name(),
        }
    }

    /// The places that cost only `stat` calls, in order.
    fn cheap_roots(&self) -> Vec<Root> {
        let mut v = Vec::new();
        if let Some(d) = &self.data {
            v.push(Root {
                path: d.clone(),
                layout: Layout::Wheels,
                origin: Origin::DataFolder,
            });
        }
        for (how, p) in &self.toolkits {
            v.push(Root {
                path: p.clone(),
                layout: Layout::Toolkit,
                origin: Origin::Toolkit(how),
            });
        }
        v
    }

    fn pip_roots(&self, sites: &PythonSites) -> Vec<Root> {
        sites
            .dirs
            .iter()
            .map(|d| Root {
                path: d.clone(),
                layout: Layout::Wheels,
                origin: Origin::PipWheel {
                    python: self.python.clone(),
                },
            })
            .collect()
    }
}

/// `$CUPRUM_DATA_DIR`, else the platform data folder + `cuprum` (`~/.local/share/cuprum`
/// on Linux); `None` when there is no home folder to put it in.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUPRUM_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    dirs::data_dir().map(|d| d.join("cuprum"))
}

/// The outcome of looking for NVRTC.
#[derive(Debug, Clone)]
pub(crate) struct NvrtcSearch {
    /// The library file to load (the first that exists), with its origin.
    pub found: Option<(PathBuf, Origin)>,
    /// The candidates of an explicit `CUPRUM_NVRTC` (all tried when loading).
    pub explicit: bool,
    /// Every place looked at, for messages.
    pub tried: Vec<String>,
    /// The Python asked, when it was.
    pub python: Option<(String, PythonSites)>,
    identity: OnceLock<String>,
}

/// The outcome of looking for the CUDA headers.
#[derive(Debug, Clone)]
pub(crate) struct HeaderSearch {
    /// Each header component that was found.
    pub found: Vec<Found>,
    /// Every place looked at, for messages.
    pub tried: Vec<String>,
    /// The include folders to pass (`-I`), in search order.
    pub include_dirs: Vec<PathBuf>,
    /// Changes whenever the headers that would be used change (folders and identity files).
    pub identity: String,
}

#[cfg(test)]
impl HeaderSearch {
    /// The components that were not found.
    pub fn missing(&self) -> Vec<Component> {
        Component::HEADERS
            .into_iter()
            .filter(|c| !self.found.iter().any(|f| f.component == *c))
            .collect()
    }
}

fn describe_root(r: &Root) -> String {
    match &r.origin {
        Origin::DataFolder => format!("cuprum's data folder {}", r.path.display()),
        Origin::Toolkit(how) if *how == "/usr/local/cuda" => "/usr/local/cuda".into(),
        Origin::Toolkit(how) => format!("{how}={}", r.path.display()),
        Origin::PipWheel { .. } => format!("{}", wheel_base(&r.path).display()),
        o => format!("{} ({o})", r.path.display()),
    }
}

fn describe_python(python: &str, s: &PythonSites) -> String {
    match (&s.problem, s.asked) {
        (Some(p), _) => format!("the site-packages of {python} ({p})"),
        (None, true) => format!(
            "the site-packages of {python} (asked it: {})",
            join_paths(&s.dirs)
        ),
        (None, false) => format!(
            "the site-packages of {python} (from its path: {})",
            join_paths(&s.dirs)
        ),
    }
}

fn join_paths(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return "none".into();
    }
    dirs.iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Looks for NVRTC in `places`; `sites` is asked for a Python's site-packages only when no
/// cheaper place has it.
pub(crate) fn search_nvrtc(places: &Places, sites: &dyn Fn(&str) -> PythonSites) -> NvrtcSearch {
    let mut s = NvrtcSearch {
        found: None,
        explicit: false,
        tried: Vec::new(),
        python: None,
        identity: OnceLock::new(),
    };
    if let Some(p) = &places.nvrtc_override {
        s.explicit = true;
        let files: Vec<PathBuf> = if p.is_dir() {
            NVRTC_NAMES.iter().map(|n| p.join(n)).collect()
        } else {
            vec![p.clone()]
        };
        s.found = files
            .iter()
            .find(|f| f.exists())
            .map(|f| (f.clone(), Origin::Explicit("CUPRUM_NVRTC")));
        s.tried.push(format!(
            "CUPRUM_NVRTC={} ({})",
            p.display(),
            exists_word(&files)
        ));
        return s;
    }
    let in_root = |r: &Root| {
        r.lib_dirs()
            .iter()
            .flat_map(|d| NVRTC_NAMES.iter().map(move |n| d.join(n)))
            .find(|f| f.exists())
    };
    for r in places.cheap_roots() {
        if let Some(f) = in_root(&r) {
            s.found = Some((f, r.origin.clone()));
            return s;
        }
        s.tried
            .push(format!("{} (no {})", describe_root(&r), NVRTC_NAMES[0]));
    }
    let py = sites(&places.python);
    s.tried.push(describe_python(&places.python, &py));
    for r in places.pip_roots(&py) {
        if let Some(f) = in_root(&r) {
            s.found = Some((f, r.origin.clone()));
            break;
        }
    }
    s.python = Some((places.python.clone(), py));
    if s.found.is_none() {
        s.tried.push(format!(
            "the system library path ({})",
            NVRTC_NAMES.join(", ")
        ));
    }
    s
}

fn exists_word(files: &[PathBuf]) -> &'static str {
    if files.iter().any(|f| f.exists()) {
        "exists"
    } else {
        "missing"
    }
}

/// Looks for the three header components in `places` (each in the first place that has
/// it); `sites` is asked only when a cheaper place lacks one.
pub(crate) fn search_headers(places: &Places, sites: &dyn Fn(&str) -> PythonSites) -> HeaderSearch {
    let mut found: Vec<Found> = Vec::new();
    let mut tried = Vec::new();
    let mut include_dirs: Vec<PathBuf> = Vec::new();
    if let Some(dirs) = &places.include_override {
        for d in dirs {
            include_dirs.push(d.clone());
            let cccl = d.join("cccl");
            if cccl.is_dir() {
                include_dirs.push(cccl);
            }
        }
        for c in Component::HEADERS {
            let marker = c.marker().unwrap_or_default();
            if let Some(d) = include_dirs.iter().find(|d| d.join(marker).is_file()) {
                found.push(Found {
                    component: c,
                    path: d.clone(),
                    origin: Origin::Explicit("CUPRUM_CUDA_INCLUDE"),
                    root: d.clone(),
                    wheels: false,
                });
            }
        }
        tried.push(format!("CUPRUM_CUDA_INCLUDE={}", join_paths(dirs)));
    } else {
        let look = |roots: Vec<Root>, found: &mut Vec<Found>, tried: &mut Vec<String>| {
            for r in roots {
                let mut any = false;
                for c in Component::HEADERS {
                    if found.iter().any(|f| f.component == c) {
                        continue;
                    }
                    if let Some(d) = r.header_dir(c) {
                        any = true;
                        found.push(Found {
                            component: c,
                            path: d,
                            origin: r.origin.clone(),
                            root: r.path.clone(),
                            wheels: r.layout == Layout::Wheels,
                        });
                    }
                }
                if !any && found.len() < Component::HEADERS.len() {
                    tried.push(format!("{} (no headers)", describe_root(&r)));
                }
            }
        };
        look(places.cheap_roots(), &mut found, &mut tried);
        if found.len() < Component::HEADERS.len() {
            let py = sites(&places.python);
            tried.push(describe_python(&places.python, &py));
            look(places.pip_roots(&py), &mut found, &mut tried);
        }
        // Search order: runtime headers, crt, then CCCL (as a toolkit's nvcc orders them).
        for c in [Component::RuntimeHeaders, Component::Crt, Component::Cccl] {
            if let Some(f) = found.iter().find(|f| f.component == c)
                && !include_dirs.contains(&f.path)
            {
                include_dirs.push(f.path.clone());
            }
        }
    }
    found.sort_by_key(|f| Component::HEADERS.iter().position(|c| *c == f.component));
    let identity = header_identity(&include_dirs, &found);
    HeaderSearch {
        found,
        tried,
        include_dirs,
        identity,
    }
}

/// Folders plus the size and modification time of each component's marker file and of its
/// folder: a reinstall or an upgrade rewrites them. No header is read.
fn header_identity(include_dirs: &[PathBuf], found: &[Found]) -> String {
    let mut s = String::new();
    for d in include_dirs {
        s.push_str(&format!("dir {};", stat_id(d)));
    }
    for c in Component::HEADERS {
        match (found.iter().find(|f| f.component == c), c.marker()) {
            (Some(f), Some(m)) => s.push_str(&format!("{c:?} {};", stat_id(&f.path.join(m)))),
            _ => s.push_str(&format!("{c:?} missing;")),
        }
    }
    s
}

/// `path:size:mtime-ns` (or `path:missing`).
pub(crate) fn stat_id(p: &Path) -> String {
    match std::fs::metadata(p) {
        Ok(m) => {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{}:{mtime}", p.display(), m.len())
        }
        Err(_) => format!("{}:missing", p.display()),
    }
}

impl NvrtcSearch {
    /// A string that changes whenever the NVRTC that would be loaded changes (its file,
    /// size and modification time, and its builtins'), without loading it; `load` gives the
    /// loaded library's `path:version` when only the loader path can find it.
    pub(crate) fn identity(&self, load: impl FnOnce() -> Option<String>) -> &str {
        self.identity.get_or_init(|| match &self.found {
            Some((p, _)) => library_identity(p),
            None => load().unwrap_or_else(|| "nvrtc-missing".into()),
        })
    }
}

/// The library's stat identity plus its builtins'. The resolved file name carries the full
/// version (`libnvrtc.so.13 -> libnvrtc.so.13.0.88`), which names the builtins
/// (`libnvrtc-builtins.so.13.0`); a file without a minor version in its name (the pip
/// wheel's) needs a look at its folder. Only the file's own links are followed (one
/// `readlink` for a plain file), not every folder of the path as `canonicalize` would: the
/// identity is on every fresh process's first cache lookup.
fn library_identity(p: &Path) -> String {
    let real = resolve_file_links(p);
    let dir = real.parent().map(Path::to_path_buf).unwrap_or_default();
    let version = real
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split(".so.").nth(1))
        .map(|v| v.split('.').take(2).collect::<Vec<_>>())
        .filter(|v| v.len() == 2)
        .map(|v| v.join("."));
    let builtins = match version {
        Some(v) => stat_id(&dir.join(format!("libnvrtc-builtins.so.{v}"))),
        None => {
            let mut v: Vec<String> = builtins_in(&dir).iter().map(|q| stat_id(q)).collect();
            v.sort();
            v.join(",")
        }
    };
    format!("{};{};{builtins}", stat_id(p), real.display())
}

/// `p` with its last component's symbolic links followed (a relative target is taken
/// from the link's folder; at most 16 links), its folders left as they are.
fn resolve_file_links(p: &Path) -> PathBuf {
    let mut real = p.to_path_buf();
    for _ in 0..16 {
        match std::fs::read_link(&real) {
            Ok(target) if target.is_absolute() => real = target,
            Ok(target) => {
                real = real
                    .parent()
                    .map_or_else(|| target.clone(), |d| d.join(&target))
            }
            Err(_) => break,
        }
    }
    real
}

/// The `libnvrtc-builtins.so.*` files of a folder (not the `.alt.` variants).
pub(crate) fn builtins_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc-builtins.so.") && !n.contains(".alt."))
        })
        .collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------
// The process's answers.

struct Memo {
    nvrtc: Option<Arc<NvrtcSearch>>,
    headers: Option<Arc<HeaderSearch>>,
}

fn memo() -> &'static Mutex<Memo> {
    static M: Mutex<Memo> = Mutex::new(Memo {
        nvrtc: None,
        headers: None,
    });
    &M
}

/// Where NVRTC is, for this process (searched once; [`refresh`] searches again).
pub(crate) fn nvrtc_search() -> Arc<NvrtcSearch> {
    let mut m = memo().lock().unwrap_or_else(|p| p.into_inner());
    m.nvrtc
        .get_or_insert_with(|| Arc::new(search_nvrtc(&Places::from_env(), &python_sites)))
        .clone()
}

/// Where the CUDA headers are, for this process (searched once; [`refresh`] searches
/// again).
pub(crate) fn header_search() -> Arc<HeaderSearch> {
    let mut m = memo().lock().unwrap_or_else(|p| p.into_inner());
    m.headers
        .get_or_insert_with(|| Arc::new(search_headers(&Places::from_env(), &python_sites)))
        .clone()
}

/// Forgets this process's answers (after `cuprum setup` installed something): the next
/// question searches again.
pub(crate) fn refresh() {
    let mut m = memo().lock().unwrap_or_else(|p| p.into_inner());
    m.nvrtc = None;
    m.headers = None;
}

/// The CUDA include folders cuprum passes to NVRTC when a source includes a CUDA header
/// (`cuda_fp16.h`, `cooperative_groups.h`, `cub/...`), in search order, and where each
/// header component was found. Empty when none were found.
///
/// ```
/// for f in cuprum::compile::cuda_headers() {
///     println!("{:?} in {} ({}, {:?})", f.component, f.path.display(), f.origin, f.version());
/// }
/// ```
pub fn cuda_headers() -> Vec<Found> {
    header_search().found.clone()
}

/// What is where: NVRTC and each header component, found or not, and every place looked
/// at. Searches afresh (no process memo), for `cuprum setup --check` and `cuprum info`.
#[derive(Debug, Clone)]
pub struct Report {
    /// NVRTC's library file, when a place has it (the loader path is not searched here).
    pub nvrtc: Option<Found>,
    /// Every header component found.
    pub headers: Vec<Found>,
    /// The include folders a compile would pass.
    pub include_dirs: Vec<PathBuf>,
    /// Every place looked at without finding something.
    pub tried: Vec<String>,
    /// cuprum's data folder for the CUDA components (`<data>/cuda-13`).
    pub data_folder: Option<PathBuf>,
}

impl Report {
    /// The components no place has (NVRTC may still load through the system's loader
    /// path, which this report does not search).
    pub fn missing(&self) -> Vec<Component> {
        let mut v = Vec::new();
        if self.nvrtc.is_none() {
            v.push(Component::Nvrtc);
        }
        for c in Component::HEADERS {
            if !self.headers.iter().any(|f| f.component == c) {
                v.push(c);
            }
        }
        v
    }
}

/// Searches every place now (the same search cuprum's compiles use) and reports.
///
/// ```
/// let r = cuprum::compile::locate();
/// for c in r.missing() {
///     println!("missing: {} (pip package {})", c.describe(), c.pip_package());
/// }
/// ```
pub fn locate() -> Report {
    let places = Places::from_env();
    let n = search_nvrtc(&places, &python_sites);
    let h = search_headers(&places, &python_sites);
    let nvrtc = n.found.as_ref().map(|(p, o)| Found {
        component: Component::Nvrtc,
        path: p.clone(),
        origin: o.clone(),
        root: nvrtc_root(p, o),
        wheels: matches!(o, Origin::DataFolder | Origin::PipWheel { .. }),
    });
    let mut tried = n.tried.clone();
    for t in h.tried {
        if !tried.contains(&t) {
            tried.push(t);
        }
    }
    Report {
        nvrtc,
        headers: h.found,
        include_dirs: h.include_dirs,
        tried,
        data_folder: places.data,
    }
}

/// The place a library file was found in: the site folder for wheels
/// (`<site>/nvidia/cu13/lib/libnvrtc.so.13`), else its folder's parent.
fn nvrtc_root(p: &Path, o: &Origin) -> PathBuf {
    let up = |n: usize| {
        let mut q = p.to_path_buf();
        for _ in 0..n {
            q = q.parent().map(Path::to_path_buf).unwrap_or_default();
        }
        q
    };
    match o {
        Origin::DataFolder | Origin::PipWheel { .. } => up(4),
        _ => up(2),
    }
}

/// A [`Found`] for the NVRTC that [`nvrtc()`](super::nvrtc) loads, with its origin.
pub(crate) fn nvrtc_found() -> Option<Found> {
    let s = nvrtc_search();
    let (p, o) = s.found.clone()?;
    Some(Found {
        component: Component::Nvrtc,
        root: nvrtc_root(&p, &o),
        wheels: matches!(o, Origin::DataFolder | Origin::PipWheel { .. }),
        path: p,
        origin: o,
    })
}

/// The CUDA device runtime's static library, `libcudadevrt.a`, which relocatable device
/// code that launches kernels (`-dc`, `-rdc=true`) is linked with: beside the NVRTC found
/// (the pip wheel and the toolkit keep both in one folder), else in the library folders of
/// the places above (1 is NVRTC's only). `None` when none has it.
pub(crate) fn cudadevrt() -> Option<PathBuf> {
    const NAME: &str = "libcudadevrt.a";
    if let Some(p) = nvrtc_found()
        .and_then(|f| f.path.parent().map(|d| d.join(NAME)))
        .filter(|p| p.exists())
    {
        return Some(p);
    }
    Places::from_env()
        .cheap_roots()
        .iter()
        .flat_map(Root::lib_dirs)
        .map(|d| d.join(NAME))
        .find(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }

    /// A wheel folder (`pip install --target` layout) with the given components.
    fn wheels(site: &Path, comps: &[Component]) {
        let base = wheel_base(site);
        for c in comps {
            match c {
                Component::Nvrtc => {
                    touch(&base.join("lib/libnvrtc.so.13"));
                    touch(&base.join("lib/libnvrtc-builtins.so.13.0"));
                }
                Component::RuntimeHeaders => touch(&base.join("include/cuda_fp16.h")),
                Component::Cccl => touch(&base.join("include/cccl/cub/version.cuh")),
                Component::Crt => touch(&base.join("include/crt/host_defines.h")),
            }
            std::fs::create_dir_all(site.join(format!("{}13.0.9.dist-info", c.dist_info_prefix())))
                .unwrap();
        }
    }

    /// The identity follows the library file's links to its versioned name (which names
    /// the builtins) and changes when the builtins change; a pip wheel's unversioned file
    /// takes the builtins of its folder.
    #[test]
    fn library_identity_follows_the_file_link_and_sees_the_builtins() {
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("lib");
        touch(&lib.join("libnvrtc.so.13.0.88"));
        touch(&lib.join("libnvrtc-builtins.so.13.0"));
        touch(&lib.join("libnvrtc-builtins.so.12.9"));
        std::os::unix::fs::symlink("libnvrtc.so.13.0.88", lib.join("libnvrtc.so.13")).unwrap();
        let link = lib.join("libnvrtc.so.13");
        assert_eq!(resolve_file_links(&link), lib.join("libnvrtc.so.13.0.88"));
        let a = library_identity(&link);
        assert!(
            a.contains("libnvrtc.so.13.0.88") && a.contains("builtins.so.13.0:1:"),
            "{a}"
        );
        assert!(!a.contains("12.9"), "{a}");
        std::fs::write(lib.join("libnvrtc-builtins.so.13.0"), b"longer").unwrap();
        let b = library_identity(&link);
        assert_ne!(a, b);
        assert!(b.contains("builtins.so.13.0:6:"), "{b}");
        // a plain file is itself; without a version in its name, the folder's builtins
        let wheel = tmp.path().join("wheel");
        touch(&wheel.join("libnvrtc.so.13"));
        touch(&wheel.join("libnvrtc-builtins.so.13.0"));
        assert_eq!(
            resolve_file_links(&wheel.join("libnvrtc.so.13")),
            wheel.join("libnvrtc.so.13")
        );
        let w = library_identity(&wheel.join("libnvrtc.so.13"));
        assert!(w.contains("libnvrtc-builtins.so.13.0:1:"), "{w}");
        // a dangling link stays as given (its stat says missing)
        std::os::unix::fs::symlink(lib.join("gone"), tmp.path().join("dangling")).unwrap();
        assert_eq!(
            resolve_file_links(&tmp.path().join("dangling")),
            lib.join("gone")
        );
    }

    fn toolkit(root: &Path) {
        touch(&root.join("lib64/libnvrtc.so.13"));
        touch(&root.join("include/cuda_fp16.h"));
        touch(&root.join("include/crt/host_defines.h"));
        touch(&root.join("include/cccl/cub/version.cuh"));
        std::fs::write(root.join("include/cuda.h"), "#define CUDA_VERSION 13010\n").unwrap();
    }

    fn places(tmp: &Path) -> Places {
        Places {
            nvrtc_override: None,
            include_override: None,
            data: Some(tmp.join("data/cuda-13")),
            toolkits: vec![
                ("CUDA_HOME", tmp.join("home-cuda")),
                ("/usr/local/cuda", tmp.join("usr-local-cuda")),
            ],
            python: "python-test".into(),
        }
    }

    fn sites_of(dirs: Vec<PathBuf>) -> impl Fn(&str) -> PythonSites {
        move |_| PythonSites {
            dirs: dirs.clone(),
            asked: true,
            problem: None,
        }
    }

    fn no_python(_: &str) -> PythonSites {
        panic!("Python must not be asked when a cheaper place has the component")
    }

    #[test]
    fn the_data_folder_comes_before_toolkits_and_pip() {
        let t = tempfile::tempdir().unwrap();
        let p = places(t.path());
        toolkit(&t.path().join("home-cuda"));
        toolkit(&t.path().join("usr-local-cuda"));
        wheels(&t.path().join("data/cuda-13"), &Component::ALL);
        let n = search_nvrtc(&p, &no_python);
        let (f, o) = n.found.unwrap();
        assert_eq!(o, Origin::DataFolder);
        assert_eq!(
            f,
            t.path().join("data/cuda-13/nvidia/cu13/lib/libnvrtc.so.13")
        );
        let h = search_headers(&p, &no_python);
        assert!(h.found.iter().all(|f| f.origin == Origin::DataFolder));
        let inc = t.path().join("data/cuda-13/nvidia/cu13/include");
        assert_eq!(h.include_dirs, vec![inc.clone(), inc.join("cccl")]);
        assert_eq!(h.found[0].version().as_deref(), Some("13.0.9"));
    }

    #[test]
    fn toolkits_in_order_then_pip_then_the_loader() {
        let t = tempfile::tempdir().unwrap();
        let p = places(t.path());
        // Only /usr/local/cuda: CUDA_HOME (set, empty) is skipped, Python never asked.
        toolkit(&t.path().join("usr-local-cuda"));
        let n = search_nvrtc(&p, &no_python);
        assert_eq!(n.found.unwrap().1, Origin::Toolkit("/usr/local/cuda"));
        let h = search_headers(&p, &no_python);
        assert_eq!(h.found.len(), 3);
        assert_eq!(h.found[0].version().as_deref(), Some("13.1"));
        // CUDA_HOME wins over /usr/local/cuda.
        toolkit(&t.path().join("home-cuda"));
        let n = search_nvrtc(&p, &no_python);
        assert_eq!(n.found.unwrap().1, Origin::Toolkit("CUDA_HOME"));
        // Nothing cheap: the Python's site-packages, in its order.
        let t2 = tempfile::tempdir().unwrap();
        let p2 = places(t2.path());
        let (a, b) = (t2.path().join("site-a"), t2.path().join("site-b"));
        wheels(&b, &Component::ALL);
        let n = search_nvrtc(&p2, &sites_of(vec![a.clone(), b.clone()]));
        let (f, o) = n.found.unwrap();
        assert_eq!(
            o,
            Origin::PipWheel {
                python: "python-test".into()
            }
        );
        assert!(f.starts_with(&b));
        assert!(
            n.tried
                .iter()
                .any(|s| s.contains("asked it") && s.contains("site-a"))
        );
        // Nothing anywhere: every place is named, and the loader path last.
        let n = search_nvrtc(&p2, &sites_of(vec![a.clone()]));
        assert!(n.found.is_none());
        let all = n.tried.join("\n");
        for part in [
            "cuprum's data folder",
            "CUDA_HOME=",
            "/usr/local/cuda",
            "the site-packages of python-test (asked it:",
            "the system library path",
        ] {
            assert!(all.contains(part), "{part} not in {all}");
        }
    }

    #[test]
    fn each_header_component_from_the_first_place_that_has_it() {
        let t = tempfile::tempdir().unwrap();
        let p = places(t.path());
        // The data folder has only the runtime headers; the pip site the rest.
        wheels(&t.path().join("data/cuda-13"), &[Component::RuntimeHeaders]);
        let site = t.path().join("site");
        wheels(&site, &[Component::Cccl, Component::Crt]);
        let h = search_headers(&p, &sites_of(vec![site.clone()]));
        assert_eq!(h.missing(), vec![]);
        assert_eq!(h.found[0].origin, Origin::DataFolder);
        assert!(matches!(h.found[1].origin, Origin::PipWheel { .. }));
        let data_inc = t.path().join("data/cuda-13/nvidia/cu13/include");
        let site_inc = wheel_base(&site).join("include");
        assert_eq!(
            h.include_dirs,
            vec![data_inc, site_inc.clone(), site_inc.join("cccl")]
        );
        // Without the pip site, two are missing and the identity says so.
        let h2 = search_headers(&p, &sites_of(vec![]));
        assert_eq!(h2.missing(), vec![Component::Cccl, Component::Crt]);
        assert!(h2.identity.contains("Cccl missing"));
        assert_ne!(h.identity, h2.identity);
    }

    #[test]
    fn header_identity_changes_when_a_marker_changes() {
        let t = tempfile::tempdir().unwrap();
        let p = places(t.path());
        wheels(&t.path().join("data/cuda-13"), &Component::ALL);
        let a = search_headers(&p, &no_python).identity;
        assert_eq!(a, search_headers(&p, &no_python).identity);
        let marker = t
            .path()
            .join("data/cuda-13/nvidia/cu13/include/cuda_fp16.h");
        std::fs::write(&marker, b"a longer file than before").unwrap();
        assert_ne!(a, search_headers(&p, &no_python).identity);
    }

    #[test]
    fn explicit_settings_are_the_only_place_looked_at() {
        let t = tempfile::tempdir().unwrap();
        let mut p = places(t.path());
        wheels(&t.path().join("data/cuda-13"), &Component::ALL);
        p.nvrtc_override = Some(t.path().join("nowhere/libnvrtc.so.13"));
        let n = search_nvrtc(&p, &no_python);
        assert!(n.explicit && n.found.is_none());
        assert_eq!(n.tried.len(), 1);
        assert!(n.tried[0].contains("CUPRUM_NVRTC=") && n.tried[0].contains("missing"));
        let inc = t.path().join("my-include");
        touch(&inc.join("cuda_fp16.h"));
        touch(&inc.join("cccl/cub/version.cuh"));
        p.include_override = Some(vec![inc.clone()]);
        let h = search_headers(&p, &no_python);
        assert_eq!(h.include_dirs, vec![inc.clone(), inc.join("cccl")]);
        assert_eq!(h.missing(), vec![Component::Crt]);
        assert_eq!(h.found[0].origin, Origin::Explicit("CUPRUM_CUDA_INCLUDE"));
    }

    #[test]
    fn cuda_12_toolkits_keep_cccl_in_include() {
        let t = tempfile::tempdir().unwrap();
        let p = places(t.path());
        let root = t.path().join("usr-local-cuda");
        touch(&root.join("include/cuda_fp16.h"));
        touch(&root.join("include/crt/host_defines.h"));
        touch(&root.join("include/cub/version.cuh"));
        let h = search_headers(&p, &sites_of(vec![]));
        assert_eq!(h.missing(), vec![]);
        assert_eq!(h.include_dirs, vec![root.join("include")]);
    }
}
