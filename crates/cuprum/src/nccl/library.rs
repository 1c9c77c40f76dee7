//! Loading NCCL (`libnccl.so.2`) at run time with libloading, like NVRTC: never at link
//! time, and never through cudarc's bindings, whose loader panics on a missing library.
//! Where it is looked for: the path in `CUPRUM_NCCL` when set (only that one), else the
//! loader's search (`LD_LIBRARY_PATH`, the system folders), else the pip wheel
//! `nvidia-nccl-cu13` (`nvidia/nccl/lib/libnccl.so.2`) in the site-packages of the
//! configured Python, else the CUDA toolkit folders. The outcome is computed once per
//! process; a missing library is an [`ErrorKind::Nccl`](crate::ErrorKind) error naming
//! every place tried.
//!
//! Before the library is loaded, `NCCL_NVLS_ENABLE=0` (NVLink multicast off) and
//! `NCCL_P2P_DIRECT_DISABLE=1` (no direct access to another GPU's pool memory) are put in
//! the process environment, each unless the variable is already set.

use crate::error::{Result, err};
use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

/// `ncclUniqueId`: 128 opaque bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct RawUniqueId {
    pub(crate) internal: [c_char; 128],
}

pub(crate) type RawComm = *mut c_void;
type Res = c_int;

/// The NCCL entry points cuprum calls.
pub(crate) struct Nccl {
    _lib: Library,
    /// Where it was loaded from.
    pub(crate) origin: String,
    pub(crate) get_version: unsafe extern "C" fn(*mut c_int) -> Res,
    pub(crate) get_unique_id: unsafe extern "C" fn(*mut RawUniqueId) -> Res,
    pub(crate) comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, RawUniqueId, c_int) -> Res,
    pub(crate) comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> Res,
    pub(crate) comm_destroy: unsafe extern "C" fn(RawComm) -> Res,
    pub(crate) comm_abort: unsafe extern "C" fn(RawComm) -> Res,
    pub(crate) comm_get_async_error: unsafe extern "C" fn(RawComm, *mut Res) -> Res,
    pub(crate) get_error_string: unsafe extern "C" fn(Res) -> *const c_char,
    pub(crate) group_start: unsafe extern "C" fn() -> Res,
    pub(crate) group_end: unsafe extern "C" fn() -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) all_gather:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, RawComm, *mut c_void) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) send:
        unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, *mut c_void) -> Res,
    #[allow(clippy::type_complexity)]
    pub(crate) recv:
        unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, *mut c_void) -> Res,
}

// SAFETY: the struct holds a loaded library and plain function pointers into it; NCCL's
// entry points may be called from any thread.
unsafe impl Send for Nccl {}
// SAFETY: as above; nothing in it is mutated after loading.
unsafe impl Sync for Nccl {}

/// NCCL, loaded once per process.
pub(crate) fn nccl() -> Result<&'static Nccl> {
    static LOADED: OnceLock<Result<Nccl>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref().map_err(Clone::clone)
}

impl Nccl {
    /// `Ok(())` for `ncclSuccess`, else an `Nccl` error naming the call and NCCL's text.
    pub(crate) fn check(&self, r: Res, call: &str) -> Result<()> {
        if r == 0 {
            return Ok(());
        }
        Err(err!(
            Nccl,
            "{call} failed: {} (ncclResult_t {r})",
            self.text(r)
        ))
    }

    /// NCCL's text for a result code.
    pub(crate) fn text(&self, r: Res) -> String {
        // SAFETY: ncclGetErrorString returns a pointer to a static NUL-terminated string
        // for every result code.
        unsafe {
            let p = (self.get_error_string)(r);
            if p.is_null() {
                String::from("unknown error")
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }
    }
}

/// NCCL's environment defaults that cuprum needs, each set only when the user has not set
/// the variable: `NCCL_NVLS_ENABLE=0` keeps NVLink multicast off, and
/// `NCCL_P2P_DIRECT_DISABLE=1` keeps NCCL from reading and writing the user buffers of
/// another GPU of the same process directly: cuprum's arrays come from each device's
/// stream-ordered memory pool, whose memory other GPUs cannot access (cuprum does not
/// grant pool access), so NCCL goes through its own peer buffers instead.
fn nccl_env() {
    for (var, value) in [("NCCL_NVLS_ENABLE", "0"), ("NCCL_P2P_DIRECT_DISABLE", "1")] {
        if std::env::var_os(var).is_none() {
            // SAFETY: `set_var` races only with C code reading the environment on another
            // thread at the same moment. It runs once, before NCCL is loaded (NCCL reads its
            // variables during its own initialisation, later), and Rust's own readers take
            // the standard library's environment lock. Programs that read the environment
            // from C on other threads at this point should set these variables themselves.
            unsafe { std::env::set_var(var, value) };
        }
    }
}

/// The places tried, in order (without the `CUPRUM_NCCL` override).
fn candidates() -> Vec<String> {
    let mut c = vec!["libnccl.so.2".to_string(), "libnccl.so".to_string()];
    let python = crate::compile::python_name();
    let sites = crate::compile::python_sites(&python);
    for dir in sites.dirs {
        c.push(lib_in_site(dir));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            c.push(
                PathBuf::from(root)
                    .join("lib64/libnccl.so.2")
                    .display()
                    .to_string(),
            );
        }
    }
    c.push("/usr/local/cuda/lib64/libnccl.so.2".to_string());
    c
}

fn lib_in_site(site: PathBuf) -> String {
    site.join("nvidia/nccl/lib/libnccl.so.2")
        .display()
        .to_string()
}

fn load() -> Result<Nccl> {
    nccl_env();
    if let Some(path) = std::env::var_os("CUPRUM_NCCL") {
        let path = PathBuf::from(path).display().to_string();
        return open(&path).map_err(|why| {
            err!(
                Nccl,
                "NCCL could not be loaded from CUPRUM_NCCL={path}: {why}; point CUPRUM_NCCL at \
                 libnccl.so.2 or unset it to search the usual places"
            )
        });
    }
    let tried = candidates();
    let mut reasons = Vec::new();
    for c in &tried {
        // Full paths that do not exist are skipped quietly (the list says they were tried).
        if c.starts_with('/') && !std::path::Path::new(c).is_file() {
            continue;
        }
        match open(c) {
            Ok(n) => return Ok(n),
            Err(why) => reasons.push(format!("{c}: {why}")),
        }
    }
    Err(err!(
        Nccl,
        "NCCL could not be loaded: tried {}{}; install it (`pip install nvidia-nccl-cu13`, or \
         the system package libnccl2) or set CUPRUM_NCCL to the path of libnccl.so.2",
        tried.join(", "),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join("; "))
        }
    ))
}

/// The function pointer `name` of `lib`.
///
/// # Safety
/// `T` must be the symbol's exact function pointer type, and the pointer must not outlive
/// `lib`.
unsafe fn symbol<T: Copy>(lib: &Library, name: &str) -> std::result::Result<T, String> {
    let mut z = name.as_bytes().to_vec();
    z.push(0);
    // SAFETY: guaranteed by the caller.
    let s = unsafe { lib.get::<T>(z.as_slice()) }.map_err(|e| format!("no symbol {name}: {e}"))?;
    Ok(*s)
}

fn open(path: &str) -> std::result::Result<Nccl, String> {
    // SAFETY: loading NCCL runs its initialisers, which only set up library state; no NCCL
    // function is called here.
    let lib = unsafe { Library::new(path) }.map_err(|e| e.to_string())?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol is declared in nccl.h with exactly the signature of the
            // field it is stored in (checked against NCCL 2.x's header); the library stays
            // loaded as long as the function pointer (both live in `Nccl`).
            unsafe { symbol(&lib, $name) }?
        };
    }
    Ok(Nccl {
        origin: path.to_string(),
        get_version: sym!("ncclGetVersion"),
        get_unique_id: sym!("ncclGetUniqueId"),
        comm_init_rank: sym!("ncclCommInitRank"),
        comm_init_all: sym!("ncclCommInitAll"),
        comm_destroy: sym!("ncclCommDestroy"),
        comm_abort: sym!("ncclCommAbort"),
        comm_get_async_error: sym!("ncclCommGetAsyncError"),
        send: sym!("ncclSend"),
        recv: sym!("ncclRecv"),
        get_error_string: sym!("ncclGetErrorString"),
        group_start: sym!("ncclGroupStart"),
        group_end: sym!("ncclGroupEnd"),
        all_reduce: sym!("ncclAllReduce"),
        broadcast: sym!("ncclBroadcast"),
        reduce: sym!("ncclReduce"),
        all_gather: sym!("ncclAllGather"),
        reduce_scatter: sym!("ncclReduceScatter"),
        _lib: lib,
    })
}
