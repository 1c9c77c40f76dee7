//! [`setup()`]: installs NVIDIA's redistributable CUDA components that cuprum uses — NVRTC
//! and the CUDA headers, as the pip wheels `nvidia-cuda-nvrtc`, `nvidia-cuda-runtime`,
//! `nvidia-cuda-cccl` and `nvidia-cuda-crt` — into cuprum's data folder, with pip (pip's own
//! index configuration decides where they come from). Discovery looks there before any
//! other place but the explicit settings.
//!
//! One pip call installs all four (`python -m pip install --target <tmp> …`, with
//! [`wheel_requirements`]: the newest CUDA 13.x the driver supports, 13.0 without a
//! driver), with pip's output shown as it runs. The install goes into a temporary folder
//! beside the target and is renamed into place only when pip succeeded and every component
//! is there: a failed or interrupted install leaves nothing half-installed.
//!
//! The library never downloads by itself: only [`setup()`] does, when called. The CLI's
//! `demo`, `compile` and `bench` call it when NVRTC (or a header `compile` needs) is
//! missing, unless `CUPRUM_NO_AUTO_SETUP=1` ([`auto_setup_allowed`]).

use super::discovery::{self, CUDA_MAJOR, Component};
use crate::error::{Error, ErrorKind, Result, err};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pip requirements `cuprum setup` installs for a driver's CUDA version
/// (`(major, minor)`, `None` without a driver): the newest CUDA 13 release the driver
/// supports (a driver runs code of its own minor version and older), so NVRTC never emits
/// PTX newer than the driver can load; 13.0, the version cuprum is built for, without a
/// driver or with one older than CUDA 13; the newest 13.x with a newer major version.
///
/// ```
/// let r = cuprum::compile::wheel_requirements(Some((13, 2)));
/// assert_eq!(r[0], "nvidia-cuda-nvrtc>=13.0,<13.3");
/// assert_eq!(cuprum::compile::wheel_requirements(None)[3], "nvidia-cuda-crt==13.0.*");
/// ```
pub fn wheel_requirements(driver: Option<(u32, u32)>) -> Vec<String> {
    let spec = version_spec(driver);
    Component::ALL
        .iter()
        .map(|c| format!("{}{spec}", c.pip_package()))
        .collect()
}

fn version_spec(driver: Option<(u32, u32)>) -> String {
    match driver {
        Some((major, minor)) if major == CUDA_MAJOR && minor > 0 => {
            format!(">={CUDA_MAJOR}.0,<{CUDA_MAJOR}.{}", minor + 1)
        }
        Some((major, _)) if major > CUDA_MAJOR => {
            format!(">={CUDA_MAJOR}.0,<{}", CUDA_MAJOR + 1)
        }
        _ => format!("=={CUDA_MAJOR}.0.*"),
    }
}

/// The driver's CUDA version, when there is a driver cuprum can use.
fn driver_version() -> Option<(u32, u32)> {
    let d = crate::runtime::driver_info().ok()?;
    Some((
        u32::try_from(d.major()).ok()?,
        u32::try_from(d.minor()).ok()?,
    ))
}

/// What [`Setup::run`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupReport {
    /// The folder holding the components (`<data>/cuda-13`).
    pub dir: PathBuf,
    /// True when pip ran; false when every component was there already.
    pub installed: bool,
    /// The pip requirements (installed, or that would have been).
    pub requirements: Vec<String>,
    /// Each component's wheel version in the folder.
    pub versions: Vec<(Component, Option<String>)>,
}

/// An installation of the CUDA components into cuprum's data folder, configured from the
/// environment by [`Setup::new`]: the folder `<data>/cuda-13` (`<data>` is
/// `$CUPRUM_DATA_DIR`, else `~/.local/share/cuprum`), the Python `$CUPRUM_PYTHON` (else
/// `python3`), and the versions for this machine's driver ([`wheel_requirements`]).
///
/// ```no_run
/// use cuprum::compile::Setup;
/// let s = Setup::new();
/// println!("would install {:?} into {:?}; missing there: {:?}", s.requirements(), s.target(), s.missing());
/// let report = s.run()?;          // downloads with pip (progress on the terminal)
/// assert!(report.dir.ends_with("cuda-13"));
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Setup {
    dir: Option<PathBuf>,
    python: String,
    driver: Option<(u32, u32)>,
    quiet: bool,
    force: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup::new()
    }
}

impl Setup {
    /// The installation this machine would get (see the type's documentation).
    pub fn new() -> Setup {
        Setup {
            dir: discovery::data_dir().map(|d| d.join(format!("cuda-{CUDA_MAJOR}"))),
            python: discovery::python_name(),
            driver: driver_version(),
            quiet: false,
            force: false,
        }
    }

    /// Installs into `dir` instead (the components land directly in it).
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Runs pip with this Python (a name on `PATH` or a path).
    pub fn python(mut self, python: impl Into<String>) -> Self {
        self.python = python.into();
        self
    }

    /// Picks the versions for this driver CUDA version (`None`: no driver).
    pub fn driver(mut self, version: Option<(u32, u32)>) -> Self {
        self.driver = version;
        self
    }

    /// Silences the announcement and pip's output (errors still carry pip's last lines).
    pub fn quiet(mut self, on: bool) -> Self {
        self.quiet = on;
        self
    }

    /// Installs again even when every component is there.
    pub fn force(mut self, on: bool) -> Self {
        self.force = on;
        self
    }

    /// The target folder (`None` without a home folder and without `CUPRUM_DATA_DIR`).
    pub fn target(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The pip requirements it installs.
    pub fn requirements(&self) -> Vec<String> {
        wheel_requirements(self.driver)
    }

    /// The Python it runs pip with.
    pub fn python_name(&self) -> &str {
        &self.python
    }

    /// The components the target folder lacks (all of them when there is no folder).
    pub fn missing(&self) -> Vec<Component> {
        match &self.dir {
            Some(d) => missing_in(d),
            None => Component::ALL.to_vec(),
        }
    }

    /// Installs the components with pip unless the folder has them all (or with
    /// [`force`](Setup::force)); then cuprum finds them there.
    ///
    /// Errors: no data folder, or one that cannot be written ([`ErrorKind::Io`]); no
    /// Python, no pip, no network, or pip failing ([`ErrorKind::NvrtcNotFound`], with the
    /// other ways to get NVRTC). Either way nothing is left half-installed.
    pub fn run(&self) -> Result<SetupReport> {
        let dir = self.dir.clone().ok_or_else(|| {
            err!(
                Io,
                "cuprum has no data folder to install NVRTC into: there is no home folder; \
                 set CUPRUM_DATA_DIR to a writable folder"
            )
        })?;
        let requirements = self.requirements();
        if !self.force && missing_in(&dir).is_empty() {
            return Ok(report(dir, false, requirements));
        }
        self.check_pip()?;
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let name = dir
            .file_name()
            .map_or_else(|| "cuda".into(), |n| n.to_string_lossy().into_owned());
        std::fs::create_dir_all(&parent).map_err(|e| not_writable(&parent, &e))?;
        remove_stale(&parent, &name);
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{name}.partial-"))
            .tempdir_in(&parent)
            .map_err(|e| not_writable(&parent, &e))?;
        if !self.quiet {
            eprintln!(
                "cuprum: installing NVRTC and the CUDA headers ({}; about 100 MB to download, \
                 250 MB on disk) with `{} -m pip` into {}",
                requirements.join(" "),
                self.python,
                dir.display()
            );
        }
        self.pip_install(staging.path(), &requirements)?;
        let lacking = missing_in(staging.path());
        if !lacking.is_empty() {
            return Err(err!(
                NvrtcNotFound,
                "pip finished, but the installation lacks {}; nothing was installed. {}",
                describe(&lacking),
                other_ways(&self.python)
            ));
        }
        put_in_place(staging, &dir)?;
        discovery::refresh();
        let r = report(dir, true, requirements);
        if !self.quiet {
            eprintln!("cuprum: installed into {}", r.dir.display());
        }
        Ok(r)
    }

    /// `python -m pip --version`: is there a Python, and does it have pip?
    fn check_pip(&self) -> Result<()> {
        let out = super::process::spawn(
            Command::new(&self.python)
                .args(["-m", "pip", "--version"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .and_then(|c| c.wait_with_output());
        match out {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(err!(
                NvrtcNotFound,
                "cuprum setup downloads NVRTC and the CUDA headers with Python's pip, but \
                 `{}` was not found. Install Python 3 with pip (Debian/Ubuntu: `sudo apt \
                 install python3-pip`), or set CUPRUM_PYTHON to a Python that has pip. {}",
                self.python,
                other_ways(&self.python)
            )),
            Err(e) => Err(err!(
                NvrtcNotFound,
                "cuprum setup could not start `{}` ({e}). {}",
                self.python,
                other_ways(&self.python)
            )),
            Ok(o) if !o.status.success() => Err(err!(
                NvrtcNotFound,
                "cuprum setup downloads NVRTC and the CUDA headers with pip, but `{py} -m pip` \
                 does not work ({}). Install pip (Debian/Ubuntu: `sudo apt install \
                 python3-pip`; otherwise `{py} -m ensurepip --upgrade`), or set CUPRUM_PYTHON \
                 to a Python that has pip. {}",
                last_line(&String::from_utf8_lossy(&o.stderr)),
                other_ways(&self.python),
                py = self.python
            )),
            Ok(_) => Ok(()),
        }
    }

    /// Runs pip into `target`, its output streamed to the terminal (unless quiet); its
    /// last lines of errors are kept for the message.
    fn pip_install(&self, target: &Path, requirements: &[String]) -> Result<()> {
        let mut cmd = Command::new(&self.python);
        cmd.args(["-m", "pip", "install", "--target"])
            .arg(target)
            .args([
                "--no-input",
                "--disable-pip-version-check",
                "--only-binary=:all:",
                "--retries",
                "2",
            ])
            .args(requirements)
            // `--target` cannot be combined with a configured `user = true`.
            .env("PIP_USER", "0")
            .env("PIP_REQUIRE_VIRTUALENV", "0")
            .stdin(Stdio::null())
            .stdout(if self.quiet {
                Stdio::null()
            } else {
                Stdio::inherit()
            })
            .stderr(Stdio::piped());
        let mut child = super::process::spawn(&mut cmd).map_err(|e| {
            err!(
                NvrtcNotFound,
                "cuprum setup could not start `{}` ({e}). {}",
                self.python,
                other_ways(&self.python)
            )
        })?;
        let mut tail: Vec<String> = Vec::new();
        if let Some(stderr) = child.stderr.take() {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(|l| l.ok())
            {
                if !self.quiet {
                    eprintln!("{line}");
                }
                tail.push(line);
                if tail.len() > 40 {
                    tail.remove(0);
                }
            }
        }
        let status = child
            .wait()
            .map_err(|e| err!(NvrtcNotFound, "cuprum setup: waiting for pip failed: {e}"))?;
        if status.success() {
            return Ok(());
        }
        let text = tail.join("\n");
        let why = match status.code() {
            None => "pip was interrupted".to_string(),
            Some(c) => format!("pip failed (exit status {c})"),
        };
        if no_network(&text) {
            return Err(err!(
                NvrtcNotFound,
                "cuprum setup could not download NVRTC and the CUDA headers: no network \
                 access ({why}: {}); nothing was installed. {}",
                last_line(&text),
                other_ways(&self.python)
            ));
        }
        Err(err!(
            NvrtcNotFound,
            "cuprum setup could not install NVRTC and the CUDA headers: {why}; nothing was \
             installed. pip said:\n{}\n{}",
            tail.iter()
                .rev()
                .take(8)
                .rev()
                .cloned()
                .collect::<Vec<_>>()
                .join("\n"),
            other_ways(&self.python)
        ))
    }
}

/// Whether tools may run the [`setup`] by themselves when NVRTC or the CUDA headers are
/// missing (the CLI's `demo`, `compile` and `bench` do): yes unless `CUPRUM_NO_AUTO_SETUP`
/// is `1` or `true`. Another value than 1, 0, true or false (or empty) is an error naming
/// the variable. The library itself never downloads.
///
/// ```
/// assert!(cuprum::compile::auto_setup_allowed().is_ok());
/// ```
pub fn auto_setup_allowed() -> Result<bool> {
    Ok(!super::env::env_bool("CUPRUM_NO_AUTO_SETUP", false)?)
}
/// Installs what is missing into cuprum's data folder, like `cuprum setup`: see [`Setup`]
/// for the folder, the versions and the errors. Does nothing when everything is there.
/// cuprum never downloads by itself; a program calls this (for example after
/// [`nvrtc()`](crate::compile::nvrtc) failed with [`ErrorKind::NvrtcNotFound`]), and the
/// next compile finds the installation.
///
/// ```no_run
/// if cuprum::compile::nvrtc().is_err() {
///     let r = cuprum::setup()?;     // pip output on the terminal
///     println!("NVRTC and the CUDA headers are in {}", r.dir.display());
/// }
/// assert!(cuprum::compile::nvrtc().is_ok());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn setup() -> Result<SetupReport> {
    Setup::new().run()
}

fn report(dir: PathBuf, installed: bool, requirements: Vec<String>) -> SetupReport {
    let versions = Component::ALL
        .iter()
        .map(|c| (*c, discovery::wheel_version_in(&dir, *c)))
        .collect();
    SetupReport {
        dir,
        installed,
        requirements,
        versions,
    }
}

/// The components a wheel folder (`pip install --target` layout) lacks.
fn missing_in(dir: &Path) -> Vec<Component> {
    Component::ALL
        .into_iter()
        .filter(|c| !discovery::wheel_folder_has(dir, *c))
        .collect()
}

fn describe(components: &[Component]) -> String {
    components
        .iter()
        .map(|c| format!("{} ({})", c.describe(), c.pip_package()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renames the complete staging folder to `dir`. An older `dir` is moved aside first and
/// removed after; when another process installed `dir` meanwhile, its copy is kept.
fn put_in_place(staging: tempfile::TempDir, dir: &Path) -> Result<()> {
    let staged = staging.keep();
    let fail = |e: std::io::Error, staged: &Path| {
        let _ = std::fs::remove_dir_all(staged);
        Error::new(
            ErrorKind::Io,
            format!(
                "cuprum setup could not move the installation into {}: {e}",
                dir.display()
            ),
        )
        .with_source(e)
    };
    if dir.exists() {
        let aside = dir.with_file_name(format!(
            ".{}.old-{}",
            dir.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            std::process::id()
        ));
        std::fs::rename(dir, &aside).map_err(|e| fail(e, &staged))?;
        if let Err(e) = std::fs::rename(&staged, dir) {
            let _ = std::fs::rename(&aside, dir);
            return Err(fail(e, &staged));
        }
        let _ = std::fs::remove_dir_all(&aside);
        return Ok(());
    }
    match std::fs::rename(&staged, dir) {
        Ok(()) => Ok(()),
        Err(_) if missing_in(dir).is_empty() => {
            let _ = std::fs::remove_dir_all(&staged);
            Ok(())
        }
        Err(e) => Err(fail(e, &staged)),
    }
}

/// Removes staging folders of earlier installs that were killed (older than an hour, so a
/// concurrent install keeps its own).
fn remove_stale(parent: &Path, name: &str) {
    let Ok(rd) = std::fs::read_dir(parent) else {
        return;
    };
    let prefixes = [format!(".{name}.partial-"), format!(".{name}.old-")];
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 3600);
        if old && prefixes.iter().any(|p| n.starts_with(p.as_str())) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn not_writable(dir: &Path, e: &std::io::Error) -> Error {
    Error::new(
        ErrorKind::Io,
        format!(
            "cuprum's data folder {} is not writable ({e}): set CUPRUM_DATA_DIR to a \
             writable folder, or get NVRTC and the CUDA headers another way (install the \
             CUDA {CUDA_MAJOR} toolkit and set CUDA_HOME, or pip install the wheels into a \
             Python's site-packages)",
            dir.display()
        ),
    )
    .with_source(std::io::Error::new(e.kind(), e.to_string()))
}

/// The other ways to get the components, for errors.
fn other_ways(python: &str) -> String {
    format!(
        "Other ways: install the CUDA {CUDA_MAJOR} toolkit (and set CUDA_HOME); or \
         `{python} -m pip install {}` (on a machine without network access, from wheels \
         downloaded elsewhere: `--no-index --find-links <folder>`); or set CUPRUM_NVRTC to \
         the library and CUPRUM_CUDA_INCLUDE to the include folders",
        wheel_requirements(None)
            .iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

fn no_network(pip_output: &str) -> bool {
    [
        "Failed to establish a new connection",
        "NewConnectionError",
        "Temporary failure in name resolution",
        "Name or service not known",
        "Network is unreachable",
        "ConnectTimeoutError",
        "ProxyError",
        "No route to host",
    ]
    .iter()
    .any(|p| pip_output.contains(p))
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_string()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn versions_follow_the_driver() {
        let spec = |d| wheel_requirements(d)[0].clone();
        assert_eq!(spec(None), "nvidia-cuda-nvrtc==13.0.*");
        assert_eq!(spec(Some((13, 0))), "nvidia-cuda-nvrtc==13.0.*");
        assert_eq!(spec(Some((13, 2))), "nvidia-cuda-nvrtc>=13.0,<13.3");
        assert_eq!(spec(Some((14, 1))), "nvidia-cuda-nvrtc>=13.0,<14");
        assert_eq!(spec(Some((12, 8))), "nvidia-cuda-nvrtc==13.0.*");
        let all = wheel_requirements(Some((13, 1)));
        assert_eq!(
            all,
            [
                "nvidia-cuda-nvrtc>=13.0,<13.2",
                "nvidia-cuda-runtime>=13.0,<13.2",
                "nvidia-cuda-cccl>=13.0,<13.2",
                "nvidia-cuda-crt>=13.0,<13.2"
            ]
        );
    }

    /// A fake `python` that answers `-m pip --version` and runs `body` for
    /// `-m pip install --target $T ...` (with `$T` set, and `$@` the requirements).
    fn fake_python(dir: &Path, body: &str) -> String {
        let p = dir.join("fake-python");
        let script = format!(
            "#!/bin/sh\nif [ \"$3\" = \"--version\" ]; then echo 'pip 24.0'; exit 0; fi\n\
             T=''\nwhile [ $# -gt 0 ]; do if [ \"$1\" = \"--target\" ]; then T=\"$2\"; fi; shift; done\n\
             {body}\n"
        );
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.display().to_string()
    }

    const PARTIAL: &str =
        "mkdir -p \"$T/nvidia/cu13/lib\" && echo x > \"$T/nvidia/cu13/lib/libnvrtc.so.13\"";
    const COMPLETE: &str = "mkdir -p \"$T/nvidia/cu13/lib\" \"$T/nvidia/cu13/include/cccl/cub\" \
        \"$T/nvidia/cu13/include/crt\" \"$T/nvidia_cuda_nvrtc-13.0.88.dist-info\" && \
        echo x > \"$T/nvidia/cu13/lib/libnvrtc.so.13\" && echo x > \"$T/nvidia/cu13/include/cuda_fp16.h\" && \
        echo x > \"$T/nvidia/cu13/include/cccl/cub/version.cuh\" && echo x > \"$T/nvidia/cu13/include/crt/host_defines.h\"";

    fn setup_in(tmp: &Path, body: &str) -> Setup {
        Setup::new()
            .dir(tmp.join("data/cuda-13"))
            .python(fake_python(tmp, body))
            .driver(None)
            .quiet(true)
    }

    /// Nothing but the (possibly empty) parent folder is left.
    fn assert_nothing_left(tmp: &Path) {
        let data = tmp.join("data");
        assert!(!data.join("cuda-13").exists());
        let left: Vec<_> = std::fs::read_dir(&data)
            .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn a_complete_install_lands_in_place_once() {
        let t = tempfile::tempdir().unwrap();
        let s = setup_in(t.path(), COMPLETE);
        assert_eq!(s.missing(), Component::ALL.to_vec());
        let r = s.run().unwrap();
        assert!(r.installed);
        assert_eq!(r.dir, t.path().join("data/cuda-13"));
        assert!(s.missing().is_empty());
        assert_eq!(r.versions[0], (Component::Nvrtc, Some("13.0.88".into())));
        // Already there: pip is not run again (this python would fail).
        let again = setup_in(t.path(), "exit 3").run().unwrap();
        assert!(!again.installed);
        // Forced: installed again, the old copy replaced, no leftovers beside it.
        let forced = setup_in(t.path(), COMPLETE).force(true).run().unwrap();
        assert!(forced.installed);
        let names: Vec<_> = std::fs::read_dir(t.path().join("data"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["cuda-13"]);
    }

    #[test]
    fn a_failed_install_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let body = format!(
            "{PARTIAL}\necho 'ERROR: No matching distribution found for nvidia-cuda-crt==13.0.*' >&2\nexit 1"
        );
        let e = setup_in(t.path(), &body).run().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NvrtcNotFound);
        let m = e.to_string();
        assert!(m.contains("pip failed (exit status 1)"), "{m}");
        assert!(m.contains("No matching distribution found"), "{m}");
        assert!(m.contains("nothing was installed"), "{m}");
        assert!(m.contains("Other ways: install the CUDA 13 toolkit"), "{m}");
        assert_nothing_left(t.path());
    }

    #[test]
    fn an_interrupted_install_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let body = format!("{PARTIAL}\nkill -9 $$");
        let e = setup_in(t.path(), &body).run().unwrap_err();
        assert!(e.to_string().contains("pip was interrupted"), "{e}");
        assert_nothing_left(t.path());
    }

    #[test]
    fn an_incomplete_install_is_not_kept() {
        let t = tempfile::tempdir().unwrap();
        let e = setup_in(t.path(), PARTIAL).run().unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("pip finished, but the installation lacks"),
            "{m}"
        );
        assert!(m.contains("nvidia-cuda-cccl"), "{m}");
        assert!(!m.contains("(nvidia-cuda-nvrtc)"), "{m}");
        assert_nothing_left(t.path());
    }

    #[test]
    fn no_network_is_said_with_the_other_ways() {
        let t = tempfile::tempdir().unwrap();
        let body = "echo \"WARNING: Retrying (Retry(total=1)) after connection broken by 'NewConnectionError(... Failed to establish a new connection: [Errno -3] Temporary failure in name resolution)'\" >&2\n\
                    echo 'ERROR: Could not find a version that satisfies the requirement nvidia-cuda-nvrtc==13.0.*' >&2\nexit 1";
        let e = setup_in(t.path(), body).run().unwrap_err();
        let m = e.to_string();
        assert!(m.contains("no network access"), "{m}");
        assert!(m.contains("CUDA 13 toolkit"), "{m}");
        assert!(m.contains("--no-index --find-links"), "{m}");
        assert!(m.contains("\"nvidia-cuda-cccl==13.0.*\""), "{m}");
        assert_nothing_left(t.path());
    }

    #[test]
    fn without_python_or_pip_the_error_says_what_to_install() {
        let t = tempfile::tempdir().unwrap();
        let e = Setup::new()
            .dir(t.path().join("data/cuda-13"))
            .python("/nonexistent/python3")
            .quiet(true)
            .run()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NvrtcNotFound);
        let m = e.to_string();
        assert!(m.contains("`/nonexistent/python3` was not found"), "{m}");
        assert!(m.contains("Install Python 3 with pip"), "{m}");
        assert!(m.contains("CUPRUM_PYTHON"), "{m}");
        let nopip = t.path().join("nopip");
        std::fs::write(
            &nopip,
            "#!/bin/sh\necho 'No module named pip' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&nopip, std::fs::Permissions::from_mode(0o755)).unwrap();
        let e = Setup::new()
            .dir(t.path().join("data/cuda-13"))
            .python(nopip.display().to_string())
            .quiet(true)
            .run()
            .unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("-m pip` does not work (No module named pip)"),
            "{m}"
        );
        assert!(m.contains("ensurepip"), "{m}");
        assert!(!t.path().join("data").exists());
    }

    /// A folder cuprum cannot write: a read-only folder (when this test does not run as
    /// root, which ignores permissions), else a place no one may create folders in.
    fn unwritable(t: &Path) -> Option<PathBuf> {
        let ro = t.join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::create_dir(ro.join("probe")).is_err() {
            return Some(ro.join("data"));
        }
        let _ = std::fs::remove_dir(ro.join("probe"));
        let sys = PathBuf::from(format!("/sys/cuprum-test-{}", std::process::id()));
        std::fs::create_dir(&sys).is_err().then(|| sys.join("data"))
    }

    #[test]
    fn a_read_only_data_folder_gives_a_clear_error() {
        let t = tempfile::tempdir().unwrap();
        let Some(data) = unwritable(t.path()) else {
            eprintln!("SKIPPED a_read_only_data_folder_gives_a_clear_error: no unwritable folder");
            return;
        };
        let e = Setup::new()
            .dir(data.join("cuda-13"))
            .python(fake_python(t.path(), COMPLETE))
            .quiet(true)
            .run()
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
        let m = e.to_string();
        assert!(
            m.starts_with(&format!(
                "cuprum's data folder {} is not writable (",
                data.display()
            )),
            "{m}"
        );
        assert!(
            m.contains("set CUPRUM_DATA_DIR to a writable folder"),
            "{m}"
        );
        let io = std::error::Error::source(&e).expect("the I/O error underneath");
        assert!(m.contains(&io.to_string()), "{m} / {io}");
        assert!(!data.exists());
    }
}
