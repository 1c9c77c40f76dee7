//! Loading a CUDA math library (cuBLAS, cuFFT) at run time without cudarc's panics.
//!
//! The names cudarc tries (`libcublas.so`, …, `libcublas.so.13`, `.12`, …) are opened with
//! libloading first, in cudarc's order, and every symbol cuprum calls is looked up there;
//! only then does cudarc (which panics on a missing library or symbol) get to load it. When
//! the loader finds none of them, the toolkit folders (`$CUDA_HOME`, `$CUDA_PATH`,
//! `/usr/local/cuda`) are tried by full path: once `libcublas.so.13` is loaded from there,
//! cudarc's load by name finds it by its soname. Each library's outcome is computed once
//! per process by its module; a missing library is an error of the library's kind naming
//! what was tried.

use crate::error::{Error, ErrorKind, Result};
use libloading::Library;
use std::path::{Path, PathBuf};

/// One library: how to find it and what cuprum needs from it.
pub(crate) struct LibSpec {
    /// cudarc's stem (`"cublas"`, `"cufft"`).
    pub stem: &'static str,
    /// Its name for people (`"cuBLAS"`).
    pub name: &'static str,
    /// The error kind of its failures.
    pub kind: ErrorKind,
    /// Every symbol cuprum calls.
    pub symbols: &'static [&'static str],
    /// The sonames' major versions cuprum works with, newest first (`["13", "12"]`).
    pub majors: &'static [&'static str],
    /// Libraries of the same folder to load first (`"cublasLt"`), by stem.
    pub companions: &'static [&'static str],
    /// The pip package that ships it.
    pub pip: &'static str,
    /// cudarc's own check that it now finds the library by name.
    pub present: unsafe fn() -> bool,
}

/// The libraries that stay loaded for the process (cudarc's own load finds them again).
pub(crate) struct Loaded {
    _libs: Vec<Library>,
}

fn check_symbols(spec: &LibSpec, lib: &Library, what: &str) -> Result<()> {
    for sym in spec.symbols {
        // SAFETY: only looks the symbol up; it is not called or cast to a function here.
        let found = unsafe { lib.get::<*const ()>(sym.as_bytes()) }.is_ok();
        if !found {
            return Err(Error::new(
                spec.kind,
                format!(
                    "{} library {what} has no symbol {sym}; cuprum needs {} {}",
                    spec.name,
                    spec.name,
                    spec.majors.join(" or ")
                ),
            ));
        }
    }
    Ok(())
}

/// Loads `spec`'s library (see the module docs).
pub(crate) fn load(spec: &LibSpec) -> Result<Loaded> {
    let mut names: Vec<String> = cudarc::get_lib_name_candidates(spec.stem);
    names.dedup();
    // 1. By name, through the loader, in exactly the order cudarc will use.
    for name in &names {
        // SAFETY: loading the library runs its initialisers, which only set up library
        // state; none of its functions is called here.
        if let Ok(lib) = unsafe { Library::new(name) } {
            check_symbols(spec, &lib, name)?;
            return Ok(Loaded { _libs: vec![lib] });
        }
    }
    // 2. From a toolkit folder the loader does not search.
    let dirs = toolkit_dirs();
    for dir in &dirs {
        for major in spec.majors {
            let path = dir.join(format!("lib{}.so.{major}", spec.stem));
            if !path.is_file() {
                continue;
            }
            if let Some(loaded) = preload(spec, dir, &path, major)? {
                return Ok(loaded);
            }
        }
    }
    let prefix = format!("lib{}.so", spec.stem);
    let tried: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| n.starts_with(&prefix) || n.ends_with(".dll"))
        .collect();
    let folders: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(Error::new(
        spec.kind,
        format!(
            "{} could not be loaded: tried {} on the loader path{}{}; install the CUDA \
             toolkit's {} (or `pip install {}` and add its lib folder to LD_LIBRARY_PATH)",
            spec.name,
            tried.join(", "),
            if folders.is_empty() {
                ""
            } else {
                " and the folders "
            },
            folders.join(", "),
            spec.name,
            spec.pip,
        ),
    ))
}

/// Loads the companions and the library from `dir` by full path; `None` when cudarc would
/// still not find the library by name afterwards.
fn preload(spec: &LibSpec, dir: &Path, path: &Path, major: &str) -> Result<Option<Loaded>> {
    let mut libs = Vec::new();
    for companion in spec.companions {
        let c = dir.join(format!("lib{companion}.so.{major}"));
        if c.is_file() {
            // SAFETY: as in `load`: initialisers only; the library needs its companion
            // loaded first when the folder is not on the loader path.
            if let Ok(l) = unsafe { Library::new(&c) } {
                libs.push(l);
            }
        }
    }
    // SAFETY: as above.
    let Ok(lib) = (unsafe { Library::new(path) }) else {
        return Ok(None);
    };
    check_symbols(spec, &lib, &path.display().to_string())?;
    libs.push(lib);
    // SAFETY: only tries to dlopen cudarc's candidate names (the soname now matches the
    // library loaded above); calls no function of the library.
    if unsafe { (spec.present)() } {
        Ok(Some(Loaded { _libs: libs }))
    } else {
        Ok(None)
    }
}

fn toolkit_dirs() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut dirs = Vec::new();
    for root in roots {
        for sub in ["lib64", "lib", "targets/x86_64-linux/lib"] {
            let d = root.join(sub);
            if d.is_dir() && !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}
