//! The persistent kernel cache: an in-process memo of compiled images and a disk cache of
//! checksummed entries, keyed by a blake3 hash of everything that decides the output.
//!
//! Key = blake3 of: the cache format version, the NVRTC identity (library file, size, mtime
//! — any version or build change changes it), the target architecture, the source, every
//! compile option (flags, include paths, C++ standard, program name), the in-memory headers
//! and a digest of the bundled cuprum headers (hashed once per process), the name
//! expressions, and — only for a source that includes a CUDA header — the CUDA include
//! folders with their identity files (size and modification time; a reinstall changes
//! them). Compiler output is never part of the key.
//!
//! The NVRTC identity is taken without loading NVRTC: loading it costs about 10 ms, which
//! would dwarf a disk hit, so the key uses the library file discovery would load (path,
//! size, mtime, and its builtins'), found with `stat` calls only. Any version or build
//! change changes the file, hence the key.
//!
//! Entry file `<dir>/<2 hex>/<64 hex>.cubin`: magic, format version
//! ([`CACHE_FORMAT_VERSION`]), checksum, payload (cubin/PTX flag, lowered names, NVRTC log —
//! which holds ptxas' report when it was asked for —, image; nothing may follow it). The
//! checksum is blake3 of the payload keyed with the entry's own cache key, so an entry moved
//! or linked to another key's name is rejected. Writes go to a temp file (0600) in the same
//! folder and are renamed into place (atomic; racing processes at worst write the same
//! bytes twice). A short, corrupted or foreign entry is a miss: the kernel is compiled
//! again and the entry rewritten.
//!
//! Hygiene: every folder level the cache creates is owner-only (0700, set explicitly
//! whatever the umask; existing parents are left alone), and an entry is read only when it
//! is a regular file (not a link) owned by the user running the process: it is opened with
//! `O_NOFOLLOW | O_NONBLOCK` and checked on the open file (no link, no FIFO, nothing swapped
//! in between the check and the read). A cache folder shared with others therefore cannot
//! make this process load their code: anything else counts as a damaged entry (a miss,
//! compiled again, and rewritten as the user's own). A cache folder that cannot be created
//! or written turns the cache into memory-only with one warning on stderr.
//!
//! The folder: [`set_cache_dir`] (process-wide, safe with threads running, effective at
//! once; for tests and tools, before or after the first compile), else `CUPRUM_CACHE_DIR` /
//! `CUPRUM_CACHE_IN_MEMORY`, else the platform cache dir. `cargo test` never writes to the
//! user's cache: every test binary points it at a temporary folder of its own (the test
//! harness), and documentation examples that compile use memory or a folder of their own.
//!
//! Environment: `CUPRUM_CACHE_DIR` (default: the platform cache dir, `~/.cache/cuprum`),
//! `CUPRUM_CACHE_IN_MEMORY=1` (no disk at all), `CUPRUM_CACHE_SAVE_SOURCE=1` (write the
//! `.cu` beside each new entry), `CUPRUM_DUMP_SOURCE_ON_ERROR=1` (print the numbered source
//! of a failed compile to stderr), `CUPRUM_LOG_COMPILES=1` (one stderr line per NVRTC
//! compile: the kernel, its time and the source's size; a value other than
//! 1/0/true/false leaves it off). Booleans accept 1/0/true/false only.

use super::env::env_bool;
use super::nvrtc::{CompiledImage, identity};
use super::options::CompileOptions;
use crate::error::{Error, ErrorKind, Result};
use rustc_hash::FxHashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Bumped whenever the entry layout or the key recipe changes (2: the checksum is keyed
/// with the entry's cache key).
pub const CACHE_FORMAT_VERSION: u32 = 2;
const MAGIC: &[u8; 8] = b"CUPRUMK\0";

/// Counters of one cache in this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from memory.
    pub memo_hits: u64,
    /// Lookups answered from a disk entry.
    pub disk_hits: u64,
    /// Lookups that had to compile.
    pub misses: u64,
    /// Entries written to disk.
    pub disk_writes: u64,
    /// Disk entries found unreadable, corrupted, or not trusted (a link, or a file another
    /// user owns): treated as misses.
    pub corrupt_entries: u64,
}

#[derive(Default)]
struct Counters {
    memo_hits: AtomicU64,
    disk_hits: AtomicU64,
    misses: AtomicU64,
    disk_writes: AtomicU64,
    corrupt: AtomicU64,
}

/// What a lookup found, for [`KernelCache::count`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Count {
    MemoHit,
    DiskHit,
    Miss,
    DiskWrite,
    Corrupt,
}

/// One entry on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    /// The entry file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
}

type Slot = Arc<OnceLock<Result<Arc<CompiledImage>>>>;

/// A two-level kernel cache (memory, then disk). [`KernelCache::global`] is the one every
/// compile goes through; separate instances (own folder, or memory-only) are for tools and
/// tests.
///
/// ```
/// use cuprum::compile::{CompileOptions, KernelCache};
/// let dir = std::env::temp_dir().join(format!("cuprum-doc-cache-{}", std::process::id()));
/// let cache = KernelCache::new(Some(dir.clone()));
/// # cuprum::compile::set_cache_dir(None); // doc tests leave the user's cache alone
/// if cuprum::compile::nvrtc().is_ok() {
///     let src = r#"extern "C" __global__ void k(int* x) { x[0] = 1; }"#;
///     cache.compile(src, &CompileOptions::default(), 90)?;       // compiles, writes an entry
///     let again = KernelCache::new(Some(dir.clone()));          // like a new process
///     again.compile(src, &CompileOptions::default(), 90)?;       // read from disk
///     assert_eq!(again.stats().disk_hits, 1);
/// }
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct KernelCache {
    dir: Mutex<Option<PathBuf>>,
    save_source: bool,
    dump_on_error: bool,
    images: Mutex<FxHashMap<[u8; 32], Slot>>,
    counters: Counters,
    warned: AtomicBool,
}

impl std::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KernelCache({:?})", self.dir())
    }
}

impl KernelCache {
    /// A cache in `dir` (`None`: memory only). Nothing is created until the first write.
    pub fn new(dir: Option<PathBuf>) -> KernelCache {
        KernelCache {
            dir: Mutex::new(dir),
            save_source: false,
            dump_on_error: false,
            images: Mutex::new(FxHashMap::default()),
            counters: Counters::default(),
            warned: AtomicBool::new(false),
        }
    }

    /// Also write each new entry's source as `<entry>.cu` (`CUPRUM_CACHE_SAVE_SOURCE`).
    pub fn with_save_source(mut self, on: bool) -> Self {
        self.save_source = on;
        self
    }

    /// Print the numbered source of failed compiles (`CUPRUM_DUMP_SOURCE_ON_ERROR`).
    pub fn with_dump_on_error(mut self, on: bool) -> Self {
        self.dump_on_error = on;
        self
    }

    /// The cache configured from the environment (once per process). A malformed variable
    /// is an error naming it, returned by every compile.
    pub fn global() -> Result<&'static KernelCache> {
        static G: OnceLock<Result<KernelCache>> = OnceLock::new();
        G.get_or_init(|| {
            let in_memory = env_bool("CUPRUM_CACHE_IN_MEMORY", false)?;
            let save = env_bool("CUPRUM_CACHE_SAVE_SOURCE", false)?;
            let dump = env_bool("CUPRUM_DUMP_SOURCE_ON_ERROR", false)?;
            let dir = match dir_override() {
                Some(d) => d,
                None if in_memory => None,
                None => Some(default_dir()),
            };
            Ok(KernelCache::new(dir)
                .with_save_source(save)
                .with_dump_on_error(dump))
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// The folder in use (`None` when memory-only, configured so or degraded).
    pub fn dir(&self) -> Option<PathBuf> {
        self.dir.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_dir(&self, dir: Option<PathBuf>) {
        *self.dir.lock().unwrap_or_else(|p| p.into_inner()) = dir;
    }

    /// This process's counters.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            memo_hits: c.memo_hits.load(Ordering::Relaxed),
            disk_hits: c.disk_hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            disk_writes: c.disk_writes.load(Ordering::Relaxed),
            corrupt_entries: c.corrupt.load(Ordering::Relaxed),
        }
    }

    /// Counts a lookup of the host device's compile, which keeps its own memo and entries
    /// (see `compile/host`).
    pub(crate) fn count(&self, what: Count) {
        let c = &self.counters;
        match what {
            Count::MemoHit => &c.memo_hits,
            Count::DiskHit => &c.disk_hits,
            Count::Miss => &c.misses,
            Count::DiskWrite => &c.disk_writes,
            Count::Corrupt => &c.corrupt,
        }
        .fetch_add(1, Ordering::Relaxed);
    }

    /// Forgets the in-memory images (the disk stays).
    pub fn clear_memo(&self) {
        self.images
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The cache key of a compile (hex of it names the entry file).
    pub fn key(source: &str, opts: &CompileOptions, arch: u32) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        field(&mut h, "format", &CACHE_FORMAT_VERSION.to_le_bytes());
        field(&mut h, "nvrtc", identity().as_bytes());
        field(&mut h, "arch", &arch.to_le_bytes());
        kernel_fields(&mut h, source, opts);
        if let Some(id) = super::program::cuda_headers_identity(source, opts) {
            field(&mut h, "cuda-headers", id.as_bytes());
        }
        *h.finalize().as_bytes()
    }

    /// Compiles `source` for `arch` (e.g. 90), or returns the image compiled before — from
    /// memory, else from disk. Concurrent first calls with the same key compile once.
    pub fn compile(
        &self,
        source: &str,
        opts: &CompileOptions,
        arch: u32,
    ) -> Result<Arc<CompiledImage>> {
        let key = KernelCache::key(source, opts, arch);
        let slot = {
            let mut map = self.images.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(key).or_default().clone()
        };
        let mut fresh = false;
        let r = slot
            .get_or_init(|| {
                fresh = true;
                self.load_or_compile(&key, source, opts, arch).map(Arc::new)
            })
            .clone();
        if !fresh {
            self.counters.memo_hits.fetch_add(1, Ordering::Relaxed);
        }
        if r.is_err() && fresh {
            // Do not keep failures: a later call (say, after fixing an include) retries.
            self.images
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&key);
        }
        r
    }

    fn load_or_compile(
        &self,
        key: &[u8; 32],
        source: &str,
        opts: &CompileOptions,
        arch: u32,
    ) -> Result<CompiledImage> {
        let path = self.dir().map(|d| entry_path(&d, key));
        if let Some(p) = &path {
            // A missing file is simply not there yet; an unreadable, untrusted or damaged
            // one is a miss too.
            match read_trusted(p) {
                Read::Missing => {}
                Read::Untrusted => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                }
                Read::Bytes(bytes) => match decode(&bytes, key) {
                    Some(img) => {
                        self.counters.disk_hits.fetch_add(1, Ordering::Relaxed);
                        return Ok(img);
                    }
                    None => {
                        self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    }
                },
            }
        }
        self.counters.misses.fetch_add(1, Ordering::Relaxed);
        // Counted when NVRTC is there to run (loading it is memoised; a failed search is
        // the compile's own error just below).
        if super::nvrtc::nvrtc().is_ok() {
            NVRTC_COMPILES.fetch_add(1, Ordering::Relaxed);
        }
        let started = std::time::Instant::now();
        let img = match super::program::compile_uncached(source, opts, arch) {
            Ok(img) => {
                if log_compiles() {
                    eprintln!(
                        "cuprum: compiled {} for sm_{arch} in {:.1} ms ({} bytes of source)",
                        first_kernel_name(source).unwrap_or("a program"),
                        started.elapsed().as_secs_f64() * 1e3,
                        source.len()
                    );
                }
                img
            }
            Err(e) => {
                if let Some(f) = e.compile_failure().filter(|_| self.dump_on_error) {
                    eprintln!("{}", f.dump());
                }
                return Err(e);
            }
        };
        if let Some(p) = path {
            if let Err(e) = self.write_entry(&p, key, &img, source) {
                self.degrade(&e);
            } else {
                self.counters.disk_writes.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(img)
    }

    fn write_entry(
        &self,
        path: &Path,
        key: &[u8; 32],
        img: &CompiledImage,
        source: &str,
    ) -> std::io::Result<()> {
        write_atomic(path, &encode(img, key))?;
        if self.save_source {
            write_atomic(&path.with_extension("cu"), source.as_bytes())?;
        }
        Ok(())
    }

    fn degrade(&self, e: &std::io::Error) {
        let mut dir = self.dir.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = dir.take()
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "cuprum: warning: kernel cache folder {} is not writable ({e}); \
                     caching kernels in memory only for this process",
                d.display()
            );
        }
    }

    /// Every entry file on disk (empty when memory-only).
    pub fn entries(&self) -> Result<Vec<CacheEntry>> {
        let Some(dir) = self.dir() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let Ok(shards) = std::fs::read_dir(&dir) else {
            return Ok(out);
        };
        let host = std::fs::read_dir(dir.join("host")).into_iter().flatten();
        for shard in shards.flatten().chain(host.flatten()) {
            if !shard.path().is_dir() || shard.file_name().len() != 2 {
                continue;
            }
            for f in std::fs::read_dir(shard.path()).map_err(io_err)?.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "cubin" || e == "so") {
                    let bytes = f.metadata().map(|m| m.len()).unwrap_or(0);
                    out.push(CacheEntry { path: p, bytes });
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Deletes every entry (and saved source) on disk and the in-memory images; returns
    /// the number of entries removed.
    pub fn clear(&self) -> Result<usize> {
        self.clear_memo();
        let entries = self.entries()?;
        for e in &entries {
            std::fs::remove_file(&e.path).map_err(io_err)?;
            let _ = std::fs::remove_file(e.path.with_extension("cu"));
        }
        Ok(entries.len())
    }
}

/// One tagged, length-prefixed field of a key (so `["-a", "b"]` differs from `["-ab"]`).
fn field(h: &mut blake3::Hasher, tag: &str, bytes: &[u8]) {
    h.update(tag.as_bytes());
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The fields of a key that describe the kernel itself, shared by the cache key and the
/// bundle key: the source, every compile option (C++ standard, program name, flags,
/// include paths), the in-memory headers, the bundled cuprum headers (a digest of their
/// names and texts), and the name expressions.
fn kernel_fields(h: &mut blake3::Hasher, source: &str, opts: &CompileOptions) {
    field(h, "source", source.as_bytes());
    field(h, "std", opts.std.as_bytes());
    field(h, "name", opts.program_name.as_bytes());
    for o in &opts.options {
        field(h, "opt", o.as_bytes());
    }
    for p in &opts.include_paths {
        field(h, "inc", p.to_string_lossy().as_bytes());
    }
    for (n, t) in &opts.headers {
        field(h, "hname", n.as_bytes());
        field(h, "htext", t.as_bytes());
    }
    field(h, "bundled", super::headers::bundled_digest());
    for e in &opts.name_expressions {
        field(h, "nexpr", e.as_bytes());
    }
}

/// The bundle key of a kernel: the cache key without the NVRTC identity, the CUDA
/// headers' identity (both of this machine) and the architecture (a bundle keeps one
/// image per target under this key). Computed with no file system access at all, so a
/// bundle hit never looks for NVRTC.
pub(crate) fn kernel_id(source: &str, opts: &CompileOptions) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    field(&mut h, "bundle-kernel", &1u32.to_le_bytes());
    kernel_fields(&mut h, source, opts);
    *h.finalize().as_bytes()
}

/// How many NVRTC compiles this process ran through the kernel cache (every compile a
/// program makes at run time does); a program running from a bundle keeps it at zero.
pub fn nvrtc_compiles() -> u64 {
    NVRTC_COMPILES.load(Ordering::Relaxed)
}

static NVRTC_COMPILES: AtomicU64 = AtomicU64::new(0);

/// `CUPRUM_LOG_COMPILES` (read once).
fn log_compiles() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_bool("CUPRUM_LOG_COMPILES", false).unwrap_or(false))
}

/// The name of the first `__global__` function of `source` (past `__launch_bounds__(…)`),
/// for the compile log.
fn first_kernel_name(source: &str) -> Option<&str> {
    let rest = source.split("__global__").nth(1)?.trim_start();
    let rest = rest.strip_prefix("void")?.trim_start();
    let rest = match rest.strip_prefix("__launch_bounds__") {
        Some(r) => r.split_once(')')?.1.trim_start(),
        None => rest,
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

fn io_err(e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("kernel cache: {e}")).with_source(e)
}

/// The folder set by [`set_cache_dir`]: `Some(None)` for memory-only.
static DIR_OVERRIDE: Mutex<Option<Option<PathBuf>>> = Mutex::new(None);

fn dir_override() -> Option<Option<PathBuf>> {
    DIR_OVERRIDE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

/// Points the process-wide kernel cache ([`KernelCache::global`]) at `dir` (`None`: memory
/// only), over `CUPRUM_CACHE_DIR` and `CUPRUM_CACHE_IN_MEMORY`. It takes effect at once,
/// also when the cache is already in use; call it before the first compile so that nothing
/// is written to the previous folder. Test harnesses and tools use it to keep the user's
/// cache untouched (unlike `std::env::set_var`, it is safe with threads running).
///
/// ```
/// use cuprum::compile::{KernelCache, set_cache_dir};
/// let dir = std::env::temp_dir().join(format!("cuprum-doc-set-dir-{}", std::process::id()));
/// set_cache_dir(Some(dir.clone()));
/// assert_eq!(KernelCache::global()?.dir(), Some(dir.clone()));
/// set_cache_dir(None);
/// assert_eq!(KernelCache::global()?.dir(), None);
/// # let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn set_cache_dir(dir: Option<PathBuf>) {
    *DIR_OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) = Some(dir.clone());
    if let Ok(g) = KernelCache::global() {
        g.set_dir(dir);
    }
}

/// `$CUPRUM_CACHE_DIR`, else `<platform cache dir>/cuprum` (`~/.cache/cuprum` on Linux).
/// [`set_cache_dir`] overrides both for this process.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CUPRUM_CACHE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    dirs::cache_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("cuprum")
}

fn entry_path(dir: &Path, key: &[u8; 32]) -> PathBuf {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    dir.join(&hex[..2]).join(format!("{hex}.cubin"))
}

/// Writes `bytes` to `path` through a temp file in the same (owner-only) folder and a rename.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Creates `dir` and its missing parents, each owner-only (0700, whatever the umask);
/// folders that already exist are left as they are.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        missing.push(d);
        cur = d.parent();
    }
    for d in missing.into_iter().rev() {
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        match b.create(d) {
            Ok(()) => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))?;
                }
            }
            // Another process made it first: theirs (ours too, if the same user).
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// What reading a cache file found.
pub(crate) enum Read<T = Vec<u8>> {
    /// No such file (or not readable).
    Missing,
    /// A link, not a regular file, or a file another user owns: never read.
    Untrusted,
    /// The bytes of a regular file the current user owns.
    Bytes(T),
}

/// Reads `path` when it is a regular file owned by the user running this process (not
/// following a link: checked on the opened file itself, so nothing can be swapped in
/// between the check and the read).
pub(crate) fn read_trusted(path: &Path) -> Read {
    match read_trusted_file(path) {
        Read::Missing => Read::Missing,
        Read::Untrusted => Read::Untrusted,
        Read::Bytes((_, b)) => Read::Bytes(b),
    }
}

/// [`read_trusted`], keeping the open file (a host module is loaded through it, so that
/// what was checked is what is loaded).
pub(crate) fn read_trusted_file(path: &Path) -> Read<(std::fs::File, Vec<u8>)> {
    use std::io::Read as _;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut f = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        // ELOOP: the path is a symbolic link.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Read::Untrusted,
        Err(_) => return Read::Missing,
    };
    let Ok(meta) = f.metadata() else {
        return Read::Missing;
    };
    if !trusted(&meta, current_uid()) {
        return Read::Untrusted;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    match f.read_to_end(&mut bytes) {
        Ok(_) => Read::Bytes((f, bytes)),
        Err(_) => Read::Missing,
    }
}

/// Whether a cache file with this metadata may be read by the user `uid`: a regular file
/// that `uid` owns.
#[cfg(unix)]
fn trusted(meta: &std::fs::Metadata, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    owner_trusted(meta.is_file(), meta.uid(), uid)
}
#[cfg(not(unix))]
fn trusted(meta: &std::fs::Metadata, _uid: u32) -> bool {
    meta.is_file()
}

/// The ownership rule alone (unit-tested with foreign owners).
fn owner_trusted(is_file: bool, owner: u32, uid: u32) -> bool {
    is_file && owner == uid
}

#[cfg(unix)]
fn current_uid() -> u32 {
    // SAFETY: geteuid takes no arguments, cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}
#[cfg(not(unix))]
fn current_uid() -> u32 {
    0
}

fn put(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    buf.extend_from_slice(bytes);
}

/// The bytes of the entry of `img` under `key`.
pub fn encode(img: &CompiledImage, key: &[u8; 32]) -> Vec<u8> {
    let mut payload = vec![img.is_cubin as u8];
    payload.extend_from_slice(&(img.lowered_names.len() as u32).to_le_bytes());
    for (e, l) in &img.lowered_names {
        put(&mut payload, e.as_bytes());
        put(&mut payload, l.as_bytes());
    }
    put(&mut payload, img.log.as_bytes());
    put(&mut payload, &img.image);
    let mut out = Vec::with_capacity(payload.len() + 44);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&CACHE_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(blake3::keyed_hash(key, &payload).as_bytes());
    out.extend_from_slice(&payload);
    out
}

/// The image of an entry read under `key`, or `None` for anything short, damaged, of
/// another format or written under another key.
pub fn decode(bytes: &[u8], key: &[u8; 32]) -> Option<CompiledImage> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (ver, rest) = rest.split_at_checked(4)?;
    if u32::from_le_bytes(ver.try_into().ok()?) != CACHE_FORMAT_VERSION {
        return None;
    }
    let (sum, payload) = rest.split_at_checked(32)?;
    if blake3::keyed_hash(key, payload).as_bytes() != sum {
        return None;
    }
    let mut r = payload;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (a, b) = r.split_at_checked(n)?;
        r = b;
        Some(a)
    };
    let is_cubin = match take(1)? {
        [0] => false,
        [1] => true,
        _ => return None,
    };
    let count = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
    let mut chunk = || -> Option<Vec<u8>> {
        let n = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        take(n).map(<[u8]>::to_vec)
    };
    let mut lowered_names = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let e = String::from_utf8(chunk()?).ok()?;
        let l = String::from_utf8(chunk()?).ok()?;
        lowered_names.push((e, l));
    }
    let log = String::from_utf8(chunk()?).ok()?;
    let image = chunk()?;
    // Nothing may follow the image: the entry is exactly what `encode` wrote.
    if !r.is_empty() {
        return None;
    }
    Some(CompiledImage {
        image,
        is_cubin,
        lowered_names,
        log,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_compile_log_names_the_first_kernel() {
        let lb = "extern \"C\" __global__ void __launch_bounds__(256) cuprum_fuse_f_0(const float* x) {}";
        assert_eq!(first_kernel_name(lb), Some("cuprum_fuse_f_0"));
        assert_eq!(
            first_kernel_name("#include <x>\n__global__ void k2(int n) {}"),
            Some("k2")
        );
        assert_eq!(first_kernel_name("__device__ int f() { return 1; }"), None);
    }

    use super::*;

    fn sample() -> CompiledImage {
        CompiledImage {
            image: b"\x7fELF fake cubin".to_vec(),
            is_cubin: true,
            lowered_names: vec![("scale<float, 4>".into(), "_Z5scaleIfLi4EEvPT_".into())],
            log: "ptxas info: ok".into(),
        }
    }

    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn entries_round_trip_and_reject_damage() {
        let img = sample();
        let bytes = encode(&img, &KEY);
        let back = decode(&bytes, &KEY).unwrap();
        assert_eq!(back.image, img.image);
        assert_eq!(back.lowered_names, img.lowered_names);
        assert_eq!(back.log, img.log);
        assert!(back.is_cubin);
        // every truncation is rejected
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], &KEY).is_none(), "truncated to {n}");
        }
        // every single flipped byte is rejected
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x55;
            assert!(decode(&b, &KEY).is_none(), "flipped byte {i}");
        }
    }

    /// Wraps `payload` in a valid header and checksum under `KEY`.
    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&CACHE_FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(blake3::keyed_hash(&KEY, payload).as_bytes());
        b.extend_from_slice(payload);
        b
    }

    /// Found by the `cache_entry` fuzz target: a valid checksum over a payload with bytes
    /// after the image, or a cubin flag other than 0 and 1, decoded (and re-encoded to
    /// other bytes). An entry is exactly what `encode` writes.
    #[test]
    fn fuzz_regression_trailing_bytes_and_odd_flags_are_rejected() {
        let good = encode(&sample(), &KEY);
        let payload = &good[MAGIC.len() + 4 + 32..];
        assert!(decode(&framed(payload), &KEY).is_some());
        let mut trailing = payload.to_vec();
        trailing.extend_from_slice(b"trailing");
        assert!(decode(&framed(&trailing), &KEY).is_none());
        let mut flag = payload.to_vec();
        flag[0] = 2;
        assert!(decode(&framed(&flag), &KEY).is_none());
    }

    #[test]
    fn an_entry_read_under_another_key_is_rejected() {
        let bytes = encode(&sample(), &KEY);
        let mut other = KEY;
        other[31] ^= 1;
        assert!(decode(&bytes, &other).is_none());
    }

    /// The rule with foreign owners (tests/compile_cache.rs plants a file of another user
    /// for real when it runs as root).
    #[test]
    fn only_regular_files_of_the_current_user_are_trusted() {
        assert!(owner_trusted(true, 1000, 1000));
        assert!(!owner_trusted(true, 1001, 1000));
        assert!(!owner_trusted(true, 0, 1000));
        assert!(!owner_trusted(false, 1000, 1000));
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_not_read() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::write(&real, b"mine").unwrap();
        assert!(matches!(read_trusted(&real), Read::Bytes(b) if b == b"mine"));
        assert!(matches!(
            read_trusted(&t.path().join("none")),
            Read::Missing
        ));
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(matches!(read_trusted(&link), Read::Untrusted));
        assert!(matches!(read_trusted(t.path()), Read::Untrusted));
        // a FIFO would block a plain open until a writer came
        let fifo = t.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(read_trusted(&fifo), Read::Untrusted));
    }

    #[cfg(unix)]
    #[test]
    fn every_folder_level_created_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let t = tempfile::tempdir().unwrap();
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let deep = t.path().join("a").join("b").join("c");
        write_atomic(&deep.join("entry"), b"x").unwrap();
        for level in [t.path().join("a"), t.path().join("a/b"), deep.clone()] {
            assert_eq!(mode(&level), 0o700, "{}", level.display());
        }
        // the folder that existed before keeps its mode; the entry is the owner's only
        assert_eq!(mode(t.path()), 0o755);
        assert_eq!(mode(&deep.join("entry")), 0o600);
        // a second write into existing folders changes nothing
        write_atomic(&deep.join("entry2"), b"y").unwrap();
        assert_eq!(mode(&deep), 0o700);
    }

    #[test]
    fn key_changes_with_every_input() {
        // The key looks NVRTC up (stat only), which remembers the pip location in the cache
        // folder: memory-only here, so unit tests write nothing to the user's cache.
        set_cache_dir(None);
        let o = CompileOptions::default();
        let base = KernelCache::key("src", &o, 90);
        assert_eq!(base, KernelCache::key("src", &o, 90));
        assert_ne!(base, KernelCache::key("src ", &o, 90));
        assert_ne!(base, KernelCache::key("src", &o, 80));
        assert_ne!(base, KernelCache::key("src", &o.clone().option("-O3"), 90));
        assert_ne!(base, KernelCache::key("src", &o.clone().std("c++20"), 90));
        assert_ne!(
            base,
            KernelCache::key("src", &o.clone().include_path("/x"), 90)
        );
        assert_ne!(
            base,
            KernelCache::key("src", &o.clone().name_expression("k<int>"), 90)
        );
        assert_ne!(
            base,
            KernelCache::key("src", &o.clone().header("a.h", ""), 90)
        );
        assert_ne!(
            base,
            KernelCache::key("src", &o.clone().program_name("other.cu"), 90)
        );
        // options are fields, not a concatenation: ["-a", "b"] differs from ["-ab"]
        let ab = KernelCache::key("src", &o.clone().option("-a").option("b"), 90);
        assert_ne!(ab, KernelCache::key("src", &o.clone().option("-ab"), 90));
    }
}
