//! Rust kernels compiled during `cargo build` and embedded in the binary, so that the
//! program needs no runtime compiler at all (`cuprum::build`).
//!
//! **How.** The program's `build.rs` sees the same `#[cuprum::kernel]` items as the program
//! (a kernels file included with `#[path = "src/kernels.rs"] mod kernels;`, or a kernels
//! crate as a build-dependency), names the instances it launches with
//! [`kernel_instance!`](crate::kernel_instance) (`kernels::scale<f32>`), and
//! [`KernelBuild::run`] compiles each one's program (`k::program()`, with the compile
//! options its launch uses) into a kernel bundle in `OUT_DIR` with the bundle builder
//! (cubins per architecture plus PTX of the newest). The program registers it with
//! [`include_bundle!`](crate::include_bundle) before the first launch; a launch then finds
//! its instance in the bundle (the lookup of `compile/modules.rs`) and NVRTC is never even
//! looked for.
//!
//! **Same key as at run time.** An instance is recorded exactly as its launch compiles it:
//! the assembled program and `KernelDef::compile_options` (program name, name expression,
//! check mode). The program text holds no file names or line numbers, so the build
//! script's copy of a kernel and the program's are the same kernel. The check mode is the
//! program's: a build script reads `CARGO_CFG_DEBUG_ASSERTIONS` (a debug build launches the
//! checked variant), or [`KernelBuild::checked`] says it (for launches that set
//! `JitConfig::checked`).
//!
//! **Optional.** Without NVRTC at build time, the build writes an empty bundle and a
//! `cargo:warning`; the program then compiles its kernels at run time as always. A kernel
//! that fails to compile fails the build, naming it. The architectures come from
//! [`KernelBuild::archs`], else `CUPRUM_BUILD_ARCHS`, else `sm_80,sm_90` (plus PTX of
//! `compute_90`, which the driver compiles for later GPUs).

use super::def::KernelDef;
use crate::compile::bundle::{self, KernelRecord};
use crate::error::{Error, ErrorKind, Result, bail};
use std::path::{Path, PathBuf};

/// The file [`KernelBuild::run`] writes in `OUT_DIR` and
/// [`include_bundle!`](crate::include_bundle) embeds.
pub const BUNDLE_FILE: &str = "kernels.cuprum-bundle";
/// The environment variable a build reads its architectures from when
/// [`KernelBuild::archs`] is not called (`sm_80,sm_90,sm_100`).
pub const ARCHS_VAR: &str = "CUPRUM_BUILD_ARCHS";
/// The architectures built when nothing else says: cubins for these, PTX of the newest.
pub const DEFAULT_ARCHS: &str = "sm_80,sm_90";

/// One instance of a `#[cuprum::kernel]` to compile at build time: the kernel and, for a
/// generic one, its type and const arguments as C++ text. Made by
/// [`kernel_instance!`](crate::kernel_instance).
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::kernel]
/// fn scale<T: Float, const N: u32>(x: &mut [T], s: T) {
///     for i in grid_stride(x.len()) {
///         x[i] *= s;
///     }
/// }
///
/// fn main() {
///     let k = cuprum::kernel_instance!(scale<f32, 4>);
///     assert_eq!(k.name(), "scale<float, 4>");
/// }
/// ```
#[derive(Debug, Clone)]
pub struct KernelInstance {
    def: &'static KernelDef,
    args: Vec<String>,
}

impl KernelInstance {
    /// The instance of `def` with C++ template arguments `args` (empty for a kernel that is
    /// not generic). [`kernel_instance!`](crate::kernel_instance) writes this call.
    pub fn new(def: &'static KernelDef, args: Vec<String>) -> KernelInstance {
        KernelInstance { def, args }
    }

    /// The instance's C++ name: `scale<float, 4>`, or the kernel's name.
    pub fn name(&self) -> String {
        if self.def.is_generic() {
            self.def.instance_name(&self.args)
        } else {
            self.def.name().to_string()
        }
    }

    /// The record of this instance as its launch compiles it (`checked`: the check mode).
    /// A generic kernel without arguments, arguments for a kernel that is not generic, and
    /// a program that cannot be assembled are errors naming the kernel.
    ///
    /// ```
    /// use cuprum::gpu::*;
    ///
    /// #[cuprum::kernel]
    /// fn fill(x: &mut [i32]) {
    ///     for i in grid_stride(x.len()) {
    ///         x[i] = 7;
    ///     }
    /// }
    ///
    /// fn main() -> cuprum::Result<()> {
    ///     let r = cuprum::kernel_instance!(fill).record(false)?;
    ///     assert_eq!(r.source(), fill::program());
    ///     assert_eq!(r.name(), "fill");
    ///     let e = cuprum::build::KernelInstance::new(&fill::__CUPRUM_KERNEL, vec!["float".into()])
    ///         .record(false)
    ///         .unwrap_err();
    ///     assert!(e.to_string().contains("not generic"), "{e}");
    ///     Ok(())
    /// }
    /// ```
    pub fn record(&self, checked: bool) -> Result<KernelRecord> {
        let name = self.def.name();
        if let Some(c) = self.def.conflict() {
            bail!(Compile, "kernel `{name}`: {c}");
        }
        match (self.def.is_generic(), self.args.is_empty()) {
            (true, true) => bail!(
                InvalidArgument,
                "kernel `{name}` is generic: name the instance to build, e.g. \
                 `kernel_instance!(path::to::{name}<f32>)` (got no arguments)"
            ),
            (false, false) => bail!(
                InvalidArgument,
                "kernel `{name}` is not generic, but instance arguments <{}> were given: \
                 expected `kernel_instance!(path::to::{name})`",
                self.args.join(", ")
            ),
            _ => {}
        }
        let instance = self.def.is_generic().then(|| self.name());
        let opts = self.def.compile_options(instance.as_deref(), checked);
        Ok(KernelRecord::new(self.def.program(), &opts))
    }
}

/// What [`KernelBuild::write`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltBundle {
    /// The bundle file.
    pub path: PathBuf,
    /// How many kernel instances it holds.
    pub kernels: usize,
    /// How many images (instances × targets) it holds.
    pub images: usize,
    /// Why the instances were not compiled (NVRTC not found), when they were not: the file
    /// then holds an empty bundle and the program compiles its kernels at run time.
    pub skipped: Option<String>,
}

/// Rust kernels compiled into a bundle at build time: in `build.rs`, name the instances the
/// program launches, then [`run`](Self::run); in the program,
/// [`include_bundle!`](crate::include_bundle).
///
/// ```no_run
/// // build.rs, with cuprum in [build-dependencies]. The kernels are usually the program's
/// // own file, included with `#[path = "src/kernels.rs"] mod kernels;`.
/// mod kernels {
///     use cuprum::gpu::*;
///
///     #[cuprum::kernel]
///     pub fn scale<T: Float>(x: &mut [T], s: T) {
///         for i in grid_stride(x.len()) {
///             x[i] *= s;
///         }
///     }
/// }
///
/// fn main() -> cuprum::Result<()> {
///     cuprum::build::KernelBuild::new()
///         .kernel(cuprum::kernel_instance!(kernels::scale<f32>))
///         .kernel(cuprum::kernel_instance!(kernels::scale<f64>))
///         .run()?; // OUT_DIR/kernels.cuprum-bundle
///     Ok(())
/// }
/// ```
#[derive(Debug, Clone, Default)]
pub struct KernelBuild {
    kernels: Vec<KernelInstance>,
    archs: Option<String>,
    checked: Option<bool>,
}

impl KernelBuild {
    /// No kernels yet; architectures and check mode from the environment (see
    /// [`archs`](Self::archs), [`checked`](Self::checked)).
    pub fn new() -> KernelBuild {
        KernelBuild::default()
    }

    /// Adds an instance to compile.
    pub fn kernel(mut self, k: KernelInstance) -> KernelBuild {
        self.kernels.push(k);
        self
    }

    /// The architectures (`sm_80,sm_90,sm_100`): a cubin for each, PTX of the newest.
    /// Default: `CUPRUM_BUILD_ARCHS`, else `sm_80,sm_90`.
    pub fn archs(mut self, list: &str) -> KernelBuild {
        self.archs = Some(list.to_string());
        self
    }

    /// Builds the checked variant (`-DCUPRUM_JIT_CHECKED=1`) or not. Default: as the
    /// program launches it without `JitConfig::checked`: checked when the program is built
    /// with debug assertions (in a build script, `CARGO_CFG_DEBUG_ASSERTIONS`).
    pub fn checked(mut self, on: bool) -> KernelBuild {
        self.checked = Some(on);
        self
    }

    fn checked_mode(&self) -> bool {
        self.checked.unwrap_or_else(|| {
            if std::env::var_os("CARGO_CFG_TARGET_ARCH").is_some() {
                std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some()
            } else {
                cfg!(debug_assertions)
            }
        })
    }

    fn targets(&self) -> Result<Vec<u32>> {
        let list = match &self.archs {
            Some(l) => l.clone(),
            None => std::env::var(ARCHS_VAR)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_ARCHS.to_string()),
        };
        bundle::parse_targets(&list)
    }

    /// The records of every instance, as their launches compile them.
    ///
    /// ```
    /// use cuprum::gpu::*;
    ///
    /// #[cuprum::kernel]
    /// fn scale<T: Float>(x: &mut [T], s: T) {
    ///     for i in grid_stride(x.len()) {
    ///         x[i] *= s;
    ///     }
    /// }
    ///
    /// fn main() -> cuprum::Result<()> {
    ///     let b = cuprum::build::KernelBuild::new()
    ///         .kernel(cuprum::kernel_instance!(scale<f32>))
    ///         .kernel(cuprum::kernel_instance!(scale<f64>))
    ///         .checked(true);
    ///     let names: Vec<String> = b.records()?.iter().map(|r| r.name().to_string()).collect();
    ///     assert_eq!(names, ["scale<float>", "scale<double>"]);
    ///     Ok(())
    /// }
    /// ```
    pub fn records(&self) -> Result<Vec<KernelRecord>> {
        let checked = self.checked_mode();
        self.kernels.iter().map(|k| k.record(checked)).collect()
    }

    /// Compiles every instance for the architectures and writes the bundle to `path`.
    /// Without NVRTC the file holds an empty bundle and [`BuiltBundle::skipped`] says why;
    /// a kernel that fails to compile is an error naming it.
    ///
    /// ```
    /// use cuprum::gpu::*;
    ///
    /// #[cuprum::kernel]
    /// fn fill(x: &mut [i32]) {
    ///     for i in grid_stride(x.len()) {
    ///         x[i] = 7;
    ///     }
    /// }
    ///
    /// fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let dir = tempfile::tempdir()?;
    ///     let built = cuprum::build::KernelBuild::new()
    ///         .kernel(cuprum::kernel_instance!(fill))
    ///         .archs("sm_90")
    ///         .write(&dir.path().join("k.cuprum-bundle"))?;
    ///     if built.skipped.is_none() {
    ///         assert_eq!((built.kernels, built.images), (1, 2)); // sm_90, compute_90
    ///     }
    ///     Ok(())
    /// }
    /// ```
    pub fn write(&self, path: &Path) -> Result<BuiltBundle> {
        let records = self.records()?;
        let archs = self.targets()?;
        let skipped = if records.is_empty() {
            None
        } else {
            crate::compile::nvrtc().err().map(|e| e.to_string())
        };
        let bytes = match skipped {
            Some(_) => bundle::build(&[], &archs, &|_| {})?,
            None => bundle::build(&records, &archs, &|_| {})?,
        };
        let b = bundle::Bundle::from_bytes(&bytes, &path.display().to_string())?;
        std::fs::write(path, &bytes).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot write the kernel bundle {}: {e}", path.display()),
            )
            .with_source(e)
        })?;
        Ok(BuiltBundle {
            path: path.to_path_buf(),
            kernels: b.kernels(),
            images: b.images(),
            skipped,
        })
    }

    /// For `build.rs`: [`write`](Self::write)s `OUT_DIR/kernels.cuprum-bundle` (what
    /// [`include_bundle!`](crate::include_bundle) embeds), tells cargo to rerun when
    /// `CUPRUM_BUILD_ARCHS` or `CUPRUM_NVRTC` change, and prints a `cargo:warning` when
    /// NVRTC is missing (the kernels then compile at run time). Outside a build script
    /// (no `OUT_DIR`) it is an error.
    pub fn run(&self) -> Result<BuiltBundle> {
        let Some(out) = std::env::var_os("OUT_DIR") else {
            bail!(
                InvalidArgument,
                "KernelBuild::run is for build scripts: OUT_DIR is not set (expected cargo \
                 to run it from build.rs; elsewhere use KernelBuild::write(path))"
            );
        };
        println!("cargo:rerun-if-env-changed={ARCHS_VAR}");
        println!("cargo:rerun-if-env-changed=CUPRUM_NVRTC");
        let built = self.write(&PathBuf::from(out).join(BUNDLE_FILE))?;
        if let Some(why) = &built.skipped {
            let why = why.lines().next().unwrap_or_default();
            println!(
                "cargo:warning=cuprum: {} Rust kernel instance(s) not compiled at build time \
                 ({why}); the program compiles them with NVRTC at run time",
                self.kernels.len()
            );
        }
        Ok(built)
    }
}

/// A [`KernelInstance`](crate::build::KernelInstance) of a `#[cuprum::kernel]`, named by
/// its path and, for a generic kernel, its arguments as in Rust: types (`f32`, or a
/// parenthesised path such as `(cuprum::gpu::f16)`) and consts (a literal, or `{EXPR}`).
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::kernel]
/// fn tile<T: Num, const B: u32>(x: &mut [T]) {
///     for i in grid_stride(x.len()) {
///         x[i] = x[i] + x[i];
///     }
/// }
///
/// const WIDE: u32 = 512;
///
/// fn main() {
///     assert_eq!(cuprum::kernel_instance!(tile<i64, 256>).name(), "tile<long long, 256>");
///     assert_eq!(cuprum::kernel_instance!(tile<(cuprum::gpu::f16), {WIDE}>).name(), "tile<float16, 512>");
/// }
/// ```
#[macro_export]
macro_rules! kernel_instance {
    ($($seg:ident)::+ < $($arg:tt),+ $(,)? >) => {
        $crate::kernel::jit::KernelInstance::new(
            &$($seg)::+::__CUPRUM_KERNEL,
            ::std::vec![$($crate::__kernel_instance_arg!($arg)),+],
        )
    };
    ($($seg:ident)::+) => {
        $crate::kernel::jit::KernelInstance::new(&$($seg)::+::__CUPRUM_KERNEL, ::std::vec::Vec::new())
    };
}

/// One argument of [`kernel_instance!`](crate::kernel_instance) as C++ text.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_instance_arg {
    ($lit:literal) => {
        ::std::string::ToString::to_string(&$lit)
    };
    ({ $e:expr }) => {
        ::std::string::ToString::to_string(&$e)
    };
    ($t:ty) => {
        ::std::string::ToString::to_string(<$t as $crate::gpu::Scalar>::CUDA_NAME)
    };
}

/// Registers the bundle the build script wrote with
/// [`KernelBuild::run`](crate::build::KernelBuild::run) (`OUT_DIR/kernels.cuprum-bundle`,
/// embedded with `include_bytes!`): call it before the first launch. Evaluates to
/// `cuprum::Result<Arc<Bundle>>`, as [`bundle::register`](crate::bundle::register).
///
/// ```ignore
/// fn main() -> cuprum::Result<()> {
///     cuprum::include_bundle!()?;
///     // … launches find their instances in the bundle: no NVRTC
///     Ok(())
/// }
/// ```
#[macro_export]
macro_rules! include_bundle {
    () => {
        $crate::compile::bundle::register(::core::include_bytes!(::core::concat!(
            ::core::env!("OUT_DIR"),
            "/kernels.cuprum-bundle"
        )))
    };
}
