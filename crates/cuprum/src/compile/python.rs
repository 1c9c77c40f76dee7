//! The site-packages folders of a Python, where pip wheels of CUDA live: derived from the
//! interpreter's path as Python would (a venv, an ordinary installation, Debian's
//! `dist-packages`, the version a pyenv shim selects) when that finds a wheel (no process
//! started: a disk-cache hit stays well under a millisecond), else by asking the
//! interpreter (once per process).

use super::wheels::wheel_base;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The Python cuprum asks for its site-packages and runs pip with: `$CUPRUM_PYTHON`, else
/// `python3`.
pub fn python_name() -> String {
    std::env::var_os("CUPRUM_PYTHON")
        .filter(|v| !v.is_empty())
        .map_or_else(|| "python3".into(), |v| v.to_string_lossy().into_owned())
}

/// The site-packages folders of a Python and how they were learned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PythonSites {
    /// The folders, in the order Python searches them.
    pub dirs: Vec<PathBuf>,
    /// True when the interpreter was started and asked; false when derived from its path.
    pub asked: bool,
    /// Why the interpreter could not be asked (not found, failed).
    pub problem: Option<String>,
}

/// The site-packages of `python`: derived from its path when that finds a pip wheel of
/// CUDA, else by asking the interpreter. Remembered for the process.
pub(crate) fn python_sites(python: &str) -> PythonSites {
    static MEMO: Mutex<Vec<(String, PythonSites)>> = Mutex::new(Vec::new());
    let mut memo = MEMO.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, s)) = memo.iter().find(|(p, _)| p == python) {
        return s.clone();
    }
    // PYTHONNOUSERSITE turns the user site off; PYTHONUSERBASE moves it (ask Python then).
    let user_home =
        env_home().filter(|_| std::env::var_os("PYTHONNOUSERSITE").is_none_or(|v| v.is_empty()));
    let derived = match std::env::var_os("PYTHONUSERBASE") {
        Some(_) => None,
        None => derived_sites(python, user_home.as_deref()),
    };
    let s = match derived {
        Some(dirs) if dirs.iter().any(|d| wheel_base(d).is_dir()) => PythonSites {
            dirs,
            asked: false,
            problem: None,
        },
        _ => ask_python(python),
    };
    memo.push((python.to_string(), s.clone()));
    s
}

fn env_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// The interpreter's file: `python` itself when it has a `/`, else the first match on
/// `PATH`.
fn find_on_path(python: &str) -> Option<PathBuf> {
    if python.contains('/') {
        return Some(PathBuf::from(python)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(python))
        .find(|p| p.is_file())
}

/// Python's own site-packages rules for the two common layouts, by path only: a venv
/// without system site-packages (`<venv>/lib/pythonX.Y/site-packages`), or an ordinary
/// installation (user site first, then `<prefix>/lib/pythonX.Y/site-packages`, and
/// Debian's `dist-packages` for `/usr`); a pyenv shim stands for the interpreter pyenv
/// would run. `None` (ask the interpreter) for anything else: another wrapper script, an
/// interpreter whose real file name has no version, a venv that includes the system
/// site-packages. `user_home`: the home folder whose user site counts (`None`: no user
/// site).
pub(crate) fn derived_sites(python: &str, user_home: Option<&Path>) -> Option<Vec<PathBuf>> {
    let mut exe = find_on_path(python)?;
    if is_script(&exe) {
        let selected = std::env::var("PYENV_VERSION").ok();
        exe = pyenv_target(&exe, &std::env::current_dir().ok()?, selected)?;
        if is_script(&exe) {
            return None;
        }
    }
    let real = std::fs::canonicalize(&exe).ok()?;
    let name = real.file_name()?.to_str()?;
    let ver = name.strip_prefix("python")?;
    let mut parts = ver.split('.');
    let (maj, min) = (parts.next()?, parts.next()?);
    if maj != "3" || min.parse::<u32>().is_err() || parts.next().is_some() {
        return None;
    }
    let pyver = format!("python3.{min}");
    let bin = exe.parent()?;
    for venv in [bin.to_path_buf(), bin.parent()?.to_path_buf()] {
        let cfg = venv.join("pyvenv.cfg");
        if let Ok(text) = std::fs::read_to_string(&cfg) {
            let system = text.lines().any(|l| {
                let l = l.replace(' ', "").to_ascii_lowercase();
                l == "include-system-site-packages=true"
            });
            if system {
                return None;
            }
            return Some(vec![venv.join("lib").join(&pyver).join("site-packages")]);
        }
    }
    let prefix = real.parent()?.parent()?;
    let mut dirs = Vec::new();
    if let Some(h) = user_home {
        dirs.push(h.join(".local/lib").join(&pyver).join("site-packages"));
    }
    if prefix == Path::new("/usr") {
        dirs.push(PathBuf::from(format!(
            "/usr/local/lib/{pyver}/dist-packages"
        )));
        dirs.push(PathBuf::from("/usr/lib/python3/dist-packages"));
        dirs.push(PathBuf::from(format!("/usr/lib/{pyver}/dist-packages")));
    }
    dirs.push(prefix.join("lib").join(&pyver).join("site-packages"));
    Some(dirs)
}

fn is_script(exe: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(exe)
        .and_then(|mut f| f.read_exact(&mut head))
        .map_or(true, |()| &head == b"#!")
}

/// The interpreter a pyenv shim (`<root>/shims/<name>`) runs, found as pyenv finds it:
/// the versions in `selected` (`PYENV_VERSION`), else in the nearest `.python-version` from
/// `cwd` up,
/// else in `<root>/version`; the first with `<root>/versions/<v>/bin/<name>`. `None` for
/// anything else, or pyenv's `system` (then the interpreter is asked).
pub(crate) fn pyenv_target(exe: &Path, cwd: &Path, selected: Option<String>) -> Option<PathBuf> {
    let shims = exe.parent()?;
    if shims.file_name()? != "shims" {
        return None;
    }
    let root = shims.parent()?;
    if !root.join("versions").is_dir() {
        return None;
    }
    let versions = selected
        .filter(|v| !v.trim().is_empty())
        .or_else(|| {
            cwd.ancestors()
                .find_map(|d| std::fs::read_to_string(d.join(".python-version")).ok())
        })
        .or_else(|| std::fs::read_to_string(root.join("version")).ok())?;
    let name = exe.file_name()?;
    for v in versions
        .split(|c: char| c == ':' || c.is_whitespace())
        .filter(|v| !v.is_empty() && !v.starts_with('#'))
    {
        if v == "system" {
            return None;
        }
        let candidate = root.join("versions").join(v).join("bin").join(name);
        if candidate.is_file() {
            return Some(candidate);
        }
    }
    None
}

/// Starts `python` and asks it for its site-packages (user site first, as it searches
/// them).
fn ask_python(python: &str) -> PythonSites {
    let script = "import site, sysconfig\n\
                  dirs = []\n\
                  try:\n    dirs.append(site.getusersitepackages() if site.ENABLE_USER_SITE else '')\nexcept Exception:\n    pass\n\
                  try:\n    dirs += site.getsitepackages()\nexcept Exception:\n    pass\n\
                  dirs += [sysconfig.get_paths().get('purelib'), sysconfig.get_paths().get('platlib')]\n\
                  print('\\n'.join(d for d in dirs if d))";
    match super::process::output(
        std::process::Command::new(python)
            .arg("-c")
            .arg(script)
            .stdin(std::process::Stdio::null()),
    ) {
        Ok(out) if out.status.success() => {
            let mut dirs: Vec<PathBuf> = Vec::new();
            for l in String::from_utf8_lossy(&out.stdout).lines() {
                let d = PathBuf::from(l.trim());
                if !l.trim().is_empty() && !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
            PythonSites {
                dirs,
                asked: true,
                problem: None,
            }
        }
        Ok(out) => PythonSites {
            dirs: Vec::new(),
            asked: true,
            problem: Some(format!(
                "it failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        },
        Err(e) => PythonSites {
            dirs: Vec::new(),
            asked: true,
            problem: Some(if e.kind() == std::io::ErrorKind::NotFound {
                "not found".into()
            } else {
                format!("could not start it: {e}")
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn site_packages_from_the_interpreter_path() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        // An ordinary installation: <prefix>/bin/python3 -> python3.12.
        let prefix = t.path().join("prefix");
        touch(&prefix.join("bin/python3.12"));
        std::fs::write(prefix.join("bin/python3.12"), b"\x7fELF").unwrap();
        symlink("python3.12", prefix.join("bin/python3")).unwrap();
        let home_dir = t.path().join("home");
        let home = Some(home_dir.as_path());
        let exe = prefix.join("bin/python3");
        let dirs = derived_sites(exe.to_str().unwrap(), home).unwrap();
        assert_eq!(
            dirs,
            vec![
                t.path().join("home/.local/lib/python3.12/site-packages"),
                prefix.join("lib/python3.12/site-packages")
            ]
        );
        // A venv: its own site-packages only.
        let venv = t.path().join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            "include-system-site-packages = false\n",
        )
        .unwrap();
        symlink(prefix.join("bin/python3.12"), venv.join("bin/python")).unwrap();
        let dirs = derived_sites(venv.join("bin/python").to_str().unwrap(), home).unwrap();
        assert_eq!(dirs, vec![venv.join("lib/python3.12/site-packages")]);
        // Another wrapper script: ask the interpreter.
        let shim = t.path().join("wrapper/python3");
        touch(&shim);
        std::fs::write(&shim, "#!/bin/sh\nexec python3 \"$@\"\n").unwrap();
        assert_eq!(derived_sites(shim.to_str().unwrap(), home), None);
        // No such interpreter.
        assert_eq!(derived_sites("/nonexistent/python3", home), None);
    }

    #[cfg(unix)]
    #[test]
    fn pyenv_shims_stand_for_the_selected_version() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("pyenv");
        let shim = root.join("shims/python3");
        touch(&shim);
        std::fs::write(
            &shim,
            "#!/usr/bin/env bash\nexec pyenv exec \"$0\" \"$@\"\n",
        )
        .unwrap();
        let bin = root.join("versions/3.12.1/bin/python3");
        touch(&bin);
        let work = t.path().join("project/src");
        std::fs::create_dir_all(&work).unwrap();
        // No version file anywhere: pyenv would fail; ask the interpreter.
        assert_eq!(pyenv_target(&shim, &work, None), None);
        // The global version file.
        std::fs::write(root.join("version"), "3.12.1\n").unwrap();
        assert_eq!(pyenv_target(&shim, &work, None), Some(bin.clone()));
        // A project's .python-version wins; its first installed version is taken.
        std::fs::write(t.path().join("project/.python-version"), "3.9.0\n3.12.1\n").unwrap();
        assert_eq!(pyenv_target(&shim, &work, None), Some(bin.clone()));
        std::fs::write(t.path().join("project/.python-version"), "system\n").unwrap();
        assert_eq!(pyenv_target(&shim, &work, None), None);
        // PYENV_VERSION wins over the files.
        assert_eq!(
            pyenv_target(&shim, &work, Some("3.12.1".into())),
            Some(bin.clone())
        );
        // Not a shim.
        assert_eq!(pyenv_target(&bin, &work, None), None);
    }
}
