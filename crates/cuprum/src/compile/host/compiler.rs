//! The system C++ compiler of the host device: where it is, what it is (its identity is
//! part of every cache key), and the flags a compile passes.

use crate::compile::CompileOptions;
use crate::error::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// GCC or Clang.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompilerKind {
    /// GNU g++ (9 or newer).
    Gcc,
    /// LLVM clang++ (10 or newer), Apple clang included.
    Clang,
}

/// The C++ compiler the host device uses.
///
/// ```
/// match cuprum::compile::host_compiler() {
///     Ok(c) => println!("{} ({})", c.path().display(), c.version_line()),
///     Err(e) => println!("no host compiler: {e}"),
/// }
/// ```
#[derive(Debug, Clone)]
pub struct HostCompiler {
    path: PathBuf,
    kind: CompilerKind,
    version: (u32, u32),
    version_line: String,
    target: String,
    /// What the cache key holds of it: the resolved path, size and modification time of
    /// the binary, its version line and target.
    identity: String,
    /// How it was found (`CUPRUM_HOST_CXX`, `CXX`, `PATH`).
    found_by: &'static str,
}

impl HostCompiler {
    /// The compiler's executable (as found; links are resolved for the identity only).
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// GCC or Clang.
    pub fn kind(&self) -> CompilerKind {
        self.kind
    }
    /// `(major, minor)` of its version.
    pub fn version(&self) -> (u32, u32) {
        self.version
    }
    /// The first line of `--version`.
    pub fn version_line(&self) -> &str {
        &self.version_line
    }
    /// Its target triple (`-dumpmachine`).
    pub fn target(&self) -> &str {
        &self.target
    }
    /// How it was found: `CUPRUM_HOST_CXX`, `CXX` or `PATH`.
    pub fn found_by(&self) -> &str {
        self.found_by
    }
    pub(crate) fn identity(&self) -> &str {
        &self.identity
    }
}

/// The compiler the host device uses: `CUPRUM_HOST_CXX`, else `CXX`, else the first of
/// `c++`, `g++`, `clang++` on `PATH`. Found once per process (a failure is not kept, so a
/// compiler installed later is found).
pub fn host_compiler() -> Result<&'static HostCompiler> {
    static C: OnceLock<HostCompiler> = OnceLock::new();
    if let Some(c) = C.get() {
        return Ok(c);
    }
    let c = discover()?;
    Ok(C.get_or_init(|| c))
}

const INSTALL: &str = "install a C++ compiler (Debian/Ubuntu: `apt install g++`; Fedora: `dnf \
                       install gcc-c++`; Arch: `pacman -S gcc`; macOS: `xcode-select --install`), \
                       or point CUPRUM_HOST_CXX (or CXX) at g++ 9+ or clang++ 10+";

fn discover() -> Result<HostCompiler> {
    let mut tried = Vec::new();
    for var in ["CUPRUM_HOST_CXX", "CXX"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let v = PathBuf::from(v);
            let found = if v.components().count() > 1 {
                Some(v.clone())
            } else {
                which(&v)
            };
            return match found {
                Some(p) => inspect(&p, var),
                None => Err(Error::new(
                    ErrorKind::NoHostCompiler,
                    format!("{var}={} names no executable; {INSTALL}", v.display()),
                )),
            };
        }
        tried.push(format!("{var} (not set)"));
    }
    for name in ["c++", "g++", "clang++"] {
        if let Some(p) = which(Path::new(name)) {
            return inspect(&p, "PATH");
        }
        tried.push(format!("`{name}` on PATH"));
    }
    Err(Error::new(
        ErrorKind::NoHostCompiler,
        format!(
            "no C++ compiler for the host device (tried {}); {INSTALL}",
            tried.join(", ")
        ),
    ))
}

/// The first executable named `name` on `PATH`.
fn which(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn run(path: &Path, arg: &str) -> Result<String> {
    let out = crate::compile::process::output(
        std::process::Command::new(path)
            .arg(arg)
            .stdin(std::process::Stdio::null()),
    )
    .map_err(|e| {
        Error::new(
            ErrorKind::NoHostCompiler,
            format!(
                "cannot run the host compiler {} ({e}); {INSTALL}",
                path.display()
            ),
        )
    })?;
    if !out.status.success() {
        return Err(Error::new(
            ErrorKind::NoHostCompiler,
            format!(
                "`{} {arg}` failed ({}): {}; {INSTALL}",
                path.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The first `major.minor` in a version line.
fn parse_version(line: &str) -> Option<(u32, u32)> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| w.contains('.'))
        .find_map(|w| {
            let mut it = w.split('.');
            let major = it.next()?.parse().ok()?;
            let minor = it.next()?.parse().ok()?;
            Some((major, minor))
        })
}

/// The resolved path of the compiler and `size:mtime` of that file: what says that the
/// compiler changed (an upgrade replaces the binary).
fn stamp_of(path: &Path) -> (PathBuf, String) {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let stamp = std::fs::metadata(&resolved)
        .map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{mtime}", m.len())
        })
        .unwrap_or_default();
    (resolved, stamp)
}

/// Where the answers of `--version` and `-dumpmachine` are kept for a compiler of this
/// resolved path and stamp: `<host cache>/compiler-<hash>` (`None` without a cache folder).
/// Running the two probes costs a few milliseconds per process, which would dominate a
/// disk hit of a compiled kernel in a fresh process.
fn probe_memo_path(resolved: &Path, stamp: &str) -> Option<PathBuf> {
    let dir = super::folders::entries_dir()?;
    let mut h = blake3::Hasher::new();
    h.update(resolved.as_os_str().as_encoded_bytes());
    h.update(b"|");
    h.update(stamp.as_bytes());
    Some(dir.join(format!("compiler-{}", &h.finalize().to_hex()[..32])))
}

/// The kept `(version text, target)` of a compiler, read only from a file of this user in
/// a folder only this user can write.
fn read_probe_memo(path: &Path) -> Option<(String, String)> {
    use crate::compile::cache::{Read, read_trusted_file};
    if !super::folders::private_dir(path.parent()?) {
        return None;
    }
    let Read::Bytes((_, bytes)) = read_trusted_file(path) else {
        return None;
    };
    let text = String::from_utf8(bytes).ok()?;
    let (target, version) = text.split_once('\n')?;
    (!target.is_empty() && !version.is_empty()).then(|| (version.to_string(), target.to_string()))
}

/// `--version`'s and `-dumpmachine`'s answers: from the memo of this compiler binary when
/// there is one, else by running it (and kept for the next process).
fn probe(path: &Path, resolved: &Path, stamp: &str) -> Result<(String, String)> {
    probe_with_memo(path, probe_memo_path(resolved, stamp))
}

fn probe_with_memo(path: &Path, memo: Option<PathBuf>) -> Result<(String, String)> {
    if let Some(kept) = memo.as_deref().and_then(read_probe_memo) {
        return Ok(kept);
    }
    let version = run(path, "--version")?;
    let target = run(path, "-dumpmachine")?.trim().to_string();
    if let Some(m) = memo
        && !target.contains('\n')
    {
        // Best effort: a folder that cannot be written only costs the probes next time.
        let _ = crate::compile::cache::write_atomic(&m, format!("{target}\n{version}").as_bytes());
    }
    Ok((version, target))
}

fn inspect(path: &Path, found_by: &'static str) -> Result<HostCompiler> {
    let (resolved, stamp) = stamp_of(path);
    let (text, target) = probe(path, &resolved, &stamp)?;
    let version_line = text.lines().next().unwrap_or_default().trim().to_string();
    let kind = if text.contains("clang") {
        CompilerKind::Clang
    } else {
        CompilerKind::Gcc
    };
    let version = parse_version(&version_line).unwrap_or((0, 0));
    let min = match kind {
        CompilerKind::Gcc => 9,
        CompilerKind::Clang => 10,
    };
    if version.0 < min {
        return Err(Error::new(
            ErrorKind::NoHostCompiler,
            format!(
                "the host compiler {} is `{version_line}`; the host device needs C++17 from \
                 g++ 9+ or clang++ 10+; {INSTALL}",
                path.display()
            ),
        ));
    }
    Ok(HostCompiler {
        identity: format!("{}|{stamp}|{version_line}|{target}", resolved.display()),
        path: path.to_path_buf(),
        kind,
        version,
        version_line,
        target,
        found_by,
    })
}

/// NVRTC options that mean nothing on the CPU: accepted (and still part of the cache key)
/// but not passed on.
fn ignored(flag: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "-arch",
        "--gpu-architecture",
        "-lineinfo",
        "--generate-line-info",
        "-G",
        "--device-debug",
        "-maxrregcount",
        "--maxrregcount",
        "-ftz",
        "--ftz",
        "-prec-div",
        "--prec-div",
        "-prec-sqrt",
        "--prec-sqrt",
        "-fmad",
        "--fmad",
        "--extra-device-vectorization",
        "-extra-device-vectorization",
        "-rdc",
        "--relocatable-device-code",
        "-dc",
        "-dw",
        "--device-c",
        "--device-w",
        "-default-device",
        "--restrict",
        "-restrict",
        "-Xptxas",
        "--ptxas-options",
        "-dlto",
        "--dlink-time-opt",
        "-diag-suppress",
        "--diag-suppress",
        "-diag-error",
        "--diag-error",
        "-diag-warn",
        "--diag-warn",
        "--Wno-deprecated-gpu-targets",
        "-Wno-deprecated-gpu-targets",
        "--disable-warnings",
        "-err-no",
        "--display-error-number",
        "-no-display-error-number",
        "--no-display-error-number",
        "-minimal",
        "--minimal",
        "-split-compile",
        "--split-compile",
        "--fdevice-time-trace",
        "-fdevice-time-trace",
        "-O",
        "--dopt",
        "-dopt",
        "--builtin-move-forward",
        "--builtin-initializer-list",
        "-time",
        "--time",
    ];
    PREFIXES.iter().any(|p| {
        flag == *p
            || flag.strip_prefix(p).is_some_and(|r| {
                r.starts_with('=') || (*p == "-O" && r.chars().all(|c| c.is_ascii_digit()))
            })
    })
}

/// The host compiler's flags for the user's NVRTC options: `-D`/`-U`/`-I` pass through,
/// `--use_fast_math` relaxes floating point contraction and reciprocals, `-std` sets the
/// standard, GPU-only options are accepted and ignored; anything else is an error naming
/// what is supported.
pub(crate) fn map_options(opts: &CompileOptions) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut it = opts.options.iter().peekable();
    while let Some(f) = it.next() {
        let f = f.trim();
        if f.is_empty() {
            continue;
        }
        if let Some(rest) = f
            .strip_prefix("-D")
            .or_else(|| f.strip_prefix("--define-macro="))
        {
            if rest.is_empty() {
                match it.next() {
                    Some(v) => out.push(format!("-D{v}")),
                    None => return Err(option_error(f)),
                }
            } else {
                out.push(format!("-D{rest}"));
            }
        } else if let Some(rest) = f
            .strip_prefix("-U")
            .or_else(|| f.strip_prefix("--undefine-macro="))
        {
            out.push(format!("-U{rest}"));
        } else if let Some(rest) = f
            .strip_prefix("-I")
            .or_else(|| f.strip_prefix("--include-path="))
        {
            out.push(format!("-I{rest}"));
        } else if matches!(f, "--use_fast_math" | "-use_fast_math" | "--use-fast-math") {
            out.extend([
                "-ffp-contract=fast".to_string(),
                "-freciprocal-math".to_string(),
            ]);
        } else if f.starts_with("-std=") || f.starts_with("--std=") {
            // the standard comes from CompileOptions::std (NVRTC's own flag is ignored)
        } else if matches!(f, "-w" | "--disable-warnings") {
            out.push("-w".to_string());
        } else if ignored(f) {
        } else {
            return Err(option_error(f));
        }
    }
    Ok(out)
}

fn option_error(f: &str) -> Error {
    Error::new(
        ErrorKind::InvalidArgument,
        format!(
            "compile option `{f}` has no meaning on the host device: it passes -D/-U/-I, \
             --use_fast_math and -std, and ignores GPU-only options (-arch, -lineinfo, -G, \
             -ftz, -prec-div, -prec-sqrt, -fmad, -maxrregcount, -Xptxas, -O ...)"
        ),
    )
}

/// The flags of every host compile (besides the user's and the include folders).
pub(crate) fn base_flags(c: &HostCompiler, std: &str) -> Vec<String> {
    let mut f: Vec<String> = [
        "-fPIC",
        "-fvisibility=hidden",
        "-fno-strict-aliasing",
        "-fwrapv",
        "-fno-math-errno",
        "-fno-exceptions",
        "-pthread",
        "-g0",
        "-Wno-unknown-pragmas",
        "-Wno-attributes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    f.insert(0, format!("-O{}", super::folders::opt_level()));
    f.insert(0, format!("-std={std}"));
    if c.target.starts_with("x86_64") {
        f.push("-mtls-dialect=gnu2".to_string());
    }
    if crate::compile::env::env_bool("CUPRUM_HOST_NATIVE", false).unwrap_or(false) {
        f.push("-march=native".to_string());
    }
    if c.kind == CompilerKind::Clang {
        f.push("-Wno-unused-command-line-argument".to_string());
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_the_first_line() {
        assert_eq!(
            parse_version("g++ (Debian 12.2.0-14+deb12u1) 12.2.0"),
            Some((12, 2))
        );
        assert_eq!(
            parse_version("Ubuntu clang version 18.1.3 (1ubuntu1)"),
            Some((18, 1))
        );
        assert_eq!(
            parse_version("Apple clang version 15.0.0 (clang-1500.3.9.4)"),
            Some((15, 0))
        );
        assert_eq!(parse_version("no numbers"), None);
    }

    /// The probes' answers are kept per compiler binary: a second process reads them instead
    /// of running the compiler twice (milliseconds that would dominate a disk hit); a memo
    /// outside a private folder, or damaged, is not read.
    #[test]
    fn probe_answers_are_kept_in_a_private_memo() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let runs = dir.path().join("runs");
        let cxx = dir.path().join("fake-c++");
        std::fs::write(
            &cxx,
            format!(
                "#!/bin/sh\necho x >> {}\ncase $1 in --version) echo 'g++ (Fake) 12.2.0'; \
                 echo 'Copyright';; -dumpmachine) echo x86_64-fake-linux;; esac\n",
                runs.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&cxx, std::fs::Permissions::from_mode(0o700)).unwrap();
        let memo = dir.path().join("memo").join("compiler-test");
        let count = || std::fs::read_to_string(&runs).map_or(0, |t| t.lines().count());
        let want = (
            "g++ (Fake) 12.2.0\nCopyright\n".to_string(),
            "x86_64-fake-linux".to_string(),
        );
        assert_eq!(probe_with_memo(&cxx, Some(memo.clone())).unwrap(), want);
        assert_eq!(count(), 2);
        assert_eq!(probe_with_memo(&cxx, Some(memo.clone())).unwrap(), want);
        assert_eq!(count(), 2, "the second probe reads the memo");
        std::fs::write(&memo, "damaged").unwrap();
        assert_eq!(probe_with_memo(&cxx, Some(memo.clone())).unwrap(), want);
        assert_eq!(count(), 4, "a damaged memo is probed again");
        let open = memo.parent().unwrap();
        std::fs::set_permissions(open, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(probe_with_memo(&cxx, Some(memo.clone())).unwrap(), want);
        assert_eq!(
            count(),
            6,
            "a memo in a folder others can write is not read"
        );
    }

    #[test]
    fn options_map_or_are_refused() {
        let o = CompileOptions::new()
            .option("-DN=4")
            .option("-UX")
            .option("-arch=sm_90")
            .option("-lineinfo")
            .option("--use_fast_math")
            .option("-ftz=true")
            .option("-Xptxas=-v")
            .option("-O3")
            .option("-fmad=false")
            .option("-I/opt/x");
        assert_eq!(
            map_options(&o).unwrap(),
            [
                "-DN=4",
                "-UX",
                "-ffp-contract=fast",
                "-freciprocal-math",
                "-I/opt/x"
            ]
        );
        let e = map_options(&CompileOptions::new().option("--some-new-flag")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("`--some-new-flag`"), "{e}");
        assert!(ignored("-G"));
        assert!(!ignored("-Gx"));
    }
}
