//! Recording the kernels a program compiles (`CUPRUM_BUNDLE_RECORD=path`), and the list
//! file that `cuprum bundle build` and [`precompile`](crate::precompile) read.
//!
//! Every compile passes through `compile/modules.rs`, which hands each (source, options)
//! here before it looks anywhere else: generated elementwise, reduction, fused and ops
//! kernels, raw modules with their name expressions and options, and `#[cuprum::kernel]`
//! instances alike. A kernel is written once per process (a set of the lines written).
//!
//! The list is JSON lines: one [`KernelRecord`] per line, holding everything needed to
//! compile it again without the program (source, options, include paths, in-memory headers,
//! name expressions, C++ standard, program name) plus what recorded it (`target`: `cuda` or
//! `host`, and the architecture). Lines are appended with `O_APPEND`, one `write` per whole
//! line under an exclusive `flock`, so concurrent processes recording into one file never
//! interleave; duplicates are removed when the list is read.
//!
//! The file is opened at the **first compile** of the process (a library has no process
//! start of its own): a path that cannot be opened for appending (a read-only folder, a
//! missing folder) makes that first compile, and every later one, fail with an `Io` error
//! naming the variable and the path, before any kernel runs. `cuprum bundle record` opens
//! the file itself before it starts the program, so there the error comes before the
//! program runs at all.

use super::options::CompileOptions;
use crate::error::{Error, ErrorKind, Result};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The environment variable naming the list file to append to.
pub const RECORD_VAR: &str = "CUPRUM_BUNDLE_RECORD";

/// One recorded kernel: everything needed to compile it again without the program.
///
/// ```
/// use cuprum::bundle::KernelRecord;
/// use cuprum::CompileOptions;
/// let r = KernelRecord::new(r#"extern "C" __global__ void twice(float* x) { x[0] *= 2; }"#,
///                           &CompileOptions::new());
/// assert_eq!(r.name(), "twice");
/// let line = r.to_line()?;
/// assert_eq!(KernelRecord::from_line(&line)?, r);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KernelRecord {
    /// The kernel's name(s) for messages: its name expressions, else its `__global__`
    /// functions, else the program name.
    name: String,
    /// What recorded it: `cuda` (a GPU) or `host` (the host device).
    target: String,
    /// The architecture it was recorded on (`90` for sm_90; 0 on the host device).
    arch: u32,
    source: String,
    options: Vec<String>,
    include_paths: Vec<PathBuf>,
    name_expressions: Vec<String>,
    std: String,
    headers: Vec<(String, String)>,
    program_name: String,
}

impl KernelRecord {
    /// The record of compiling `source` with `opts` (target `cuda`, architecture 0: not
    /// recorded on a device).
    pub fn new(source: &str, opts: &CompileOptions) -> KernelRecord {
        KernelRecord {
            name: kernel_name(source, opts),
            target: "cuda".into(),
            arch: 0,
            source: source.to_owned(),
            options: opts.options.clone(),
            include_paths: opts.include_paths.clone(),
            name_expressions: opts.name_expressions.clone(),
            std: opts.std.clone(),
            headers: opts.headers.clone(),
            program_name: opts.program_name.clone(),
        }
    }

    fn on(mut self, target: &str, arch: u32) -> KernelRecord {
        self.target = target.into();
        self.arch = arch;
        self
    }

    /// The kernel's name for messages (name expressions, else `__global__` functions).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The CUDA C++ source.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// `cuda` or `host`: the kind of device that compiled it when recorded.
    pub fn target(&self) -> &str {
        &self.target
    }
    /// The compile options, as given to the compile that was recorded.
    pub fn options(&self) -> CompileOptions {
        CompileOptions {
            options: self.options.clone(),
            include_paths: self.include_paths.clone(),
            name_expressions: self.name_expressions.clone(),
            std: self.std.clone(),
            headers: self.headers.clone(),
            program_name: self.program_name.clone(),
        }
    }

    /// The record as one JSON line (no trailing newline).
    pub fn to_line(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::new(ErrorKind::InvalidArgument, format!("kernel record: {e}")))
    }

    /// Parses one JSON line written by [`to_line`](Self::to_line).
    pub fn from_line(line: &str) -> Result<KernelRecord> {
        serde_json::from_str(line).map_err(|e| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("not a kernel record (expected one JSON object per line): {e}"),
            )
        })
    }
}

/// Reads a kernel list (JSON lines), dropping duplicates (the first of each kernel is
/// kept, in order). Blank lines are skipped; a malformed line is an error naming its
/// number.
///
/// ```
/// use cuprum::bundle::{KernelRecord, read_list};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("kernels.list");
/// let r = KernelRecord::new(r#"extern "C" __global__ void k() {}"#, &cuprum::CompileOptions::new());
/// std::fs::write(&path, format!("{0}\n{0}\n", r.to_line()?))?;
/// assert_eq!(read_list(&path)?, vec![r]);
/// std::fs::write(&path, "{not json\n")?;
/// assert!(read_list(&path).unwrap_err().to_string().contains("line 1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_list(path: &Path) -> Result<Vec<KernelRecord>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::new(
            ErrorKind::Io,
            format!("cannot read kernel list {}: {e}", path.display()),
        )
        .with_source(e)
    })?;
    parse_list(&text)
        .map_err(|e| Error::new(e.kind(), format!("kernel list {}: {e}", path.display())))
}

/// [`read_list`] on text.
pub(crate) fn parse_list(text: &str) -> Result<Vec<KernelRecord>> {
    let mut out: Vec<KernelRecord> = Vec::new();
    let mut seen: FxHashSet<(String, String)> = FxHashSet::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = KernelRecord::from_line(line)
            .map_err(|e| Error::new(ErrorKind::InvalidArgument, format!("line {}: {e}", i + 1)))?;
        let k = (r.source.clone(), format!("{:?}", r.options()));
        if seen.insert(k) {
            out.push(r);
        }
    }
    Ok(out)
}

/// The name shown for a kernel: its name expressions, else the names of its `__global__`
/// functions, else the program name.
pub(crate) fn kernel_name(source: &str, opts: &CompileOptions) -> String {
    if !opts.name_expressions.is_empty() {
        return opts.name_expressions.join(", ");
    }
    let names = global_functions(source);
    if names.is_empty() {
        opts.program_name.clone()
    } else {
        names.join(", ")
    }
}

/// The names of the `__global__` functions of `source` (a scan, not a parse: the
/// identifier before the first `(` after each `__global__`, skipping
/// `__launch_bounds__(...)`).
fn global_functions(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("__global__") {
        rest = &rest[at + "__global__".len()..];
        let mut tail = rest;
        while let Some(open) = tail.find('(') {
            let ident = last_identifier(&tail[..open]);
            if ident == "__launch_bounds__" {
                match tail[open..].find(')') {
                    Some(close) => tail = &tail[open + close + 1..],
                    None => break,
                }
                continue;
            }
            if !ident.is_empty() && !out.contains(&ident) {
                out.push(ident);
            }
            break;
        }
    }
    out
}

/// The identifier `text` ends with (after trailing blanks), or "".
fn last_identifier(text: &str) -> String {
    let head = text.trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(head.len(), |(i, _)| i);
    head[start..].to_string()
}

/// The open list file of this process.
struct Recorder {
    path: PathBuf,
    file: Mutex<File>,
    written: Mutex<FxHashSet<[u8; 32]>>,
}

/// The recorder named by `CUPRUM_BUNDLE_RECORD`, opened at the first call; `None` when
/// the variable is unset or empty.
fn recorder() -> Result<Option<&'static Recorder>> {
    static R: OnceLock<Result<Option<Recorder>>> = OnceLock::new();
    R.get_or_init(|| {
        let Some(path) = std::env::var_os(RECORD_VAR).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let path = PathBuf::from(path);
        let file = open_list(&path)
            .map_err(|e| Error::new(e.kind(), format!("{RECORD_VAR}={}: {e}", path.display())))?;
        Ok(Some(Recorder {
            path,
            file: Mutex::new(file),
            written: Mutex::default(),
        }))
    })
    .as_ref()
    .map(Option::as_ref)
    .map_err(Clone::clone)
}

/// Opens (creating) a list file for appending: an `Io` error naming the path when it
/// cannot be (a read-only or missing folder).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// cuprum::bundle::open_list(&dir.path().join("kernels.list"))?;
/// let e = cuprum::bundle::open_list(&dir.path().join("no/such/folder/kernels.list")).unwrap_err();
/// assert_eq!(e.kind(), cuprum::ErrorKind::Io);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_list(path: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!(
                    "cannot record kernels into {}: {e} (expected a file in a writable folder)",
                    path.display()
                ),
            )
            .with_source(e)
        })
}

/// Appends the record of a compile of `source` with `opts` to the list named by
/// `CUPRUM_BUNDLE_RECORD` (once per process per kernel); nothing when the variable is
/// unset. `arch` is the device's architecture (`None` on the host device).
pub(crate) fn record(source: &str, opts: &CompileOptions, arch: Option<u32>) -> Result<()> {
    let Some(rec) = recorder()? else {
        return Ok(());
    };
    let r = match arch {
        Some(a) => KernelRecord::new(source, opts).on("cuda", a),
        None => KernelRecord::new(source, opts).on("host", 0),
    };
    let id = super::cache::kernel_id(source, opts);
    if !rec
        .written
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id)
    {
        return Ok(());
    }
    let mut line = r.to_line()?;
    line.push('\n');
    let file = rec.file.lock().unwrap_or_else(|p| p.into_inner());
    append_line(&file, line.as_bytes()).map_err(|e| {
        Error::new(
            ErrorKind::Io,
            format!("{RECORD_VAR}: cannot append to {}: {e}", rec.path.display()),
        )
        .with_source(e)
    })
}

/// Records a kernel as a compile would (for tests of concurrent recording; not a stable
/// API): nothing when `CUPRUM_BUNDLE_RECORD` is unset.
pub fn record_kernel(source: &str, opts: &CompileOptions) -> Result<()> {
    record(source, opts, Some(0))
}

/// One whole line in one `write` (the file is `O_APPEND`), under an exclusive `flock`
/// so that other processes' lines never interleave with it.
fn append_line(mut file: &File, line: &[u8]) -> std::io::Result<()> {
    let _lock = FileLock::exclusive(file);
    file.write_all(line)?;
    file.flush()
}

/// An exclusive advisory lock on a file, released on drop (best effort: a file system
/// without `flock` still gets `O_APPEND`'s whole writes).
struct FileLock<'a>(&'a File);

impl<'a> FileLock<'a> {
    fn exclusive(f: &'a File) -> FileLock<'a> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: the descriptor is open for the lifetime of `f`, which outlives the lock.
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        }
        FileLock(f)
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: as in `exclusive`: the descriptor is still open.
            unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_function_names() {
        assert_eq!(
            global_functions(
                "extern \"C\" __global__ void a(int x) {}\n\
                 template <typename T> __global__ void __launch_bounds__(256, 2) b(T* x) {}\n\
                 __global__ void a(int) ;"
            ),
            vec!["a", "b"]
        );
        assert!(global_functions("__device__ int f(int x);").is_empty());
        assert!(global_functions("__global__").is_empty());
    }

    #[test]
    fn names_prefer_name_expressions() {
        let o = CompileOptions::new().name_expression("k<float>");
        assert_eq!(kernel_name("__global__ void k() {}", &o), "k<float>");
        assert_eq!(kernel_name("int x;", &CompileOptions::new()), "kernel.cu");
    }

    #[test]
    fn lists_drop_duplicates_and_name_bad_lines() {
        let a = KernelRecord::new("__global__ void a() {}", &CompileOptions::new());
        let b = KernelRecord::new(
            "__global__ void a() {}",
            &CompileOptions::new().option("-O3"),
        );
        let text = format!(
            "{}\n\n{}\n{}\n",
            a.to_line().unwrap(),
            b.to_line().unwrap(),
            a.clone().on("host", 0).to_line().unwrap()
        );
        assert_eq!(parse_list(&text).unwrap(), vec![a.clone(), b]);
        let e = parse_list(&format!("{}\n[1]\n", a.to_line().unwrap())).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
