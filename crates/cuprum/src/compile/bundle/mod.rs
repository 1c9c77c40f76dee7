//! Kernel bundles: every kernel a program compiles, compiled ahead of time for a list of
//! GPU architectures, so that a machine with only the NVIDIA driver runs the program (no
//! NVRTC, no CUDA headers, no Python).
//!
//! The workflow: record the kernels a program compiles (`CUPRUM_BUNDLE_RECORD=kernels.list`
//! or `cuprum bundle record -o kernels.list -- ./my_program args`, see `compile/record.rs`),
//! build them without a GPU (`cuprum bundle build kernels.list --arch sm_80,sm_90 -o
//! app.cuprum-bundle`: a cubin per architecture plus PTX of the newest, which the driver
//! compiles on later GPUs; `build.rs`), and load the bundle in the program ([`load`], or
//! [`register`] with `include_bytes!`). The file format is in `format.rs`.
//!
//! A bundle may also carry per-device tuning choices ([`with_tuning`], `cuprum bundle build
//! --tuning`): a tuning file's choices, measured ahead of time on the GPU models the program
//! will meet. `crate::tune` takes a registered bundle's choice for the device's key (model,
//! driver CUDA version, cuprum version) after one measured on the machine itself and before
//! the built-in ones, so a deployed program measures nothing at first use.
//!
//! Lookup order for a GPU kernel (`compile/modules.rs`): the process's module memo, then
//! the registered bundles (first registered first), then the disk cache, then NVRTC. In a
//! bundle, the image for a device of architecture `sm_XY` is the cubin for `sm_XY`, else a
//! cubin for `sm_XZ` with `Z < Y` (same major: binary compatible), else the PTX of the
//! newest architecture at or below `sm_XY` (the driver compiles it at load). A kernel
//! compiled with an explicit `-arch=` option is looked up under that target only. The key
//! is the kernel cache's without the NVRTC identity, the CUDA headers' identity and the
//! architecture (`cache::kernel_id`): it is computed without touching the file system, so a
//! bundle hit never looks for NVRTC, let alone loads it.
//!
//! A kernel missing from every bundle compiles with NVRTC when NVRTC is here; else the
//! compile fails with an [`ErrorKind::Bundle`] error naming the
//! kernel and how to add it (record, then build). A kernel the bundle holds only for other
//! architectures is the same error, listing the targets it holds.
//!
//! A kernel is whatever the program compiled: record with the build that ships (a debug
//! build's `#[cuprum::kernel]` instances are the checked variant, `-DCUPRUM_JIT_CHECKED=1`;
//! a release build's are not), and rebuild the bundle when cuprum's bundled headers change
//! (their text is part of the key).
//!
//! The host device does not use bundles: its kernels are shared objects built by the
//! system's C++ compiler (`compile/host/`), cached on disk as before.

mod build;
pub(crate) mod format;

pub use super::record::{KernelRecord, RECORD_VAR, open_list, read_list};
pub use build::{build, parse_targets};
pub use format::BUNDLE_FORMAT_VERSION;

use super::nvrtc::CompiledImage;
use super::options::CompileOptions;
use super::tuning;
use crate::error::{Error, ErrorKind, Result};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// One image of a kernel in a loaded bundle.
struct Image {
    target: String,
    image: Arc<CompiledImage>,
}

/// A kernel bundle, read and checked.
///
/// ```
/// // a bundle with no kernels (`cuprum bundle build` writes real ones)
/// let bytes = cuprum::bundle::build(&[], &cuprum::bundle::parse_targets("sm_90")?, &|_| {})?;
/// let b = cuprum::bundle::Bundle::from_bytes(&bytes, "empty")?;
/// assert_eq!(b.kernels(), 0);
/// assert_eq!(b.targets(), ["sm_90", "compute_90"]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Bundle {
    origin: String,
    made_by: String,
    targets: Vec<String>,
    kernels: FxHashMap<[u8; 32], (String, Vec<Image>)>,
    images: usize,
    /// The tuning choices it carries (see [`with_tuning`]).
    tuning: tuning::Store,
}

impl std::fmt::Debug for Bundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bundle")
            .field("origin", &self.origin)
            .field("made_by", &self.made_by)
            .field("targets", &self.targets)
            .field("kernels", &self.kernels.len())
            .field("images", &self.images)
            .finish()
    }
}

impl Bundle {
    /// Reads and checks a bundle's bytes (magic, format version, checksum, every length);
    /// `origin` names it in messages. Does not register it (see [`register`]).
    pub fn from_bytes(bytes: &[u8], origin: &str) -> Result<Bundle> {
        let c = format::decode(bytes, origin)?;
        let tuning = if c.tuning.is_empty() {
            tuning::Store::default()
        } else {
            tuning::parse(&c.tuning).map_err(|e| {
                Error::new(
                    ErrorKind::Bundle,
                    format!("kernel bundle {origin}: its tuning choices: {e}"),
                )
            })?
        };
        let mut kernels: FxHashMap<[u8; 32], (String, Vec<Image>)> = FxHashMap::default();
        let images = c.entries.len();
        for e in c.entries {
            let k = kernels.entry(e.id).or_insert_with(|| (e.name, Vec::new()));
            k.1.push(Image {
                target: e.target,
                image: Arc::new(e.image),
            });
        }
        Ok(Bundle {
            origin: origin.to_owned(),
            made_by: c.made_by,
            targets: c.targets,
            kernels,
            images,
            tuning,
        })
    }

    /// Reads and checks a bundle file, without registering it.
    pub fn read(path: impl AsRef<Path>) -> Result<Bundle> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot read kernel bundle {}: {e}", path.display()),
            )
            .with_source(e)
        })?;
        Bundle::from_bytes(&bytes, &path.display().to_string())
    }

    /// Where it came from (a path, or the name given to [`register`]).
    pub fn origin(&self) -> &str {
        &self.origin
    }
    /// Who built it: the cuprum and NVRTC versions.
    pub fn made_by(&self) -> &str {
        &self.made_by
    }
    /// The targets it was built for (`sm_80`, `sm_90`, …, and `compute_XX` for the PTX).
    pub fn targets(&self) -> &[String] {
        &self.targets
    }
    /// How many distinct kernels it holds.
    pub fn kernels(&self) -> usize {
        self.kernels.len()
    }
    /// How many images (kernels × targets) it holds.
    pub fn images(&self) -> usize {
        self.images
    }
    /// How many tuning choices it carries (a family's choice for one GPU model, driver and
    /// cuprum version each; see [`with_tuning`]).
    pub fn tuning_choices(&self) -> usize {
        self.tuning.choices()
    }
    /// The names of its kernels, sorted.
    pub fn kernel_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.kernels.values().map(|k| k.0.clone()).collect();
        v.sort();
        v
    }

    /// The image this bundle gives a device of architecture `arch` (e.g. 90) for `source`
    /// compiled with `opts`, as a program's lookup would find it; `None` when it has none.
    ///
    /// ```
    /// use cuprum::bundle::{Bundle, KernelRecord, build};
    /// if cuprum::compile::nvrtc().is_ok() {
    ///     let src = r#"extern "C" __global__ void k(int* x) { x[0] = 7; }"#;
    ///     let opts = cuprum::CompileOptions::new();
    ///     let b = Bundle::from_bytes(&build(&[KernelRecord::new(src, &opts)], &[80], &|_| {})?, "doc")?;
    ///     assert!(b.image_for(src, &opts, 86).is_some_and(|i| i.is_cubin)); // sm_80's cubin
    ///     assert!(b.image_for(src, &opts, 120).is_some_and(|i| !i.is_cubin)); // compute_80
    ///     assert!(b.image_for(src, &opts, 75).is_none());
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn image_for(
        &self,
        source: &str,
        opts: &CompileOptions,
        arch: u32,
    ) -> Option<Arc<CompiledImage>> {
        let id = super::cache::kernel_id(source, opts);
        self.find(&id, arch, opts.explicit_arch())?.ok()
    }

    /// The image for a device of architecture `arch`, or the targets held when there is
    /// none for it; `None` when the kernel is not in this bundle.
    fn find(
        &self,
        id: &[u8; 32],
        arch: u32,
        explicit: Option<&str>,
    ) -> Option<std::result::Result<Arc<CompiledImage>, Vec<String>>> {
        let (_, images) = self.kernels.get(id)?;
        let pick = match explicit {
            Some(t) => images.iter().find(|i| i.target == t),
            None => choose(images, arch),
        };
        Some(match pick {
            Some(i) => Ok(i.image.clone()),
            None => Err(images.iter().map(|i| i.target.clone()).collect()),
        })
    }
}

/// The best image for architecture `arch`: its own cubin, else a cubin of the same major
/// and a lower minor, else the newest PTX at or below it.
fn choose(images: &[Image], arch: u32) -> Option<&Image> {
    let num = |t: &str, prefix: &str| t.strip_prefix(prefix).and_then(|d| d.parse::<u32>().ok());
    let cubin = images
        .iter()
        .filter_map(|i| num(&i.target, "sm_").map(|a| (a, i)))
        .filter(|(a, _)| *a / 10 == arch / 10 && *a <= arch)
        .max_by_key(|(a, _)| *a);
    if let Some((_, i)) = cubin {
        return Some(i);
    }
    images
        .iter()
        .filter_map(|i| num(&i.target, "compute_").map(|a| (a, i)))
        .filter(|(a, _)| *a <= arch)
        .max_by_key(|(a, _)| *a)
        .map(|(_, i)| i)
}

static REGISTRY: RwLock<Vec<Arc<Bundle>>> = RwLock::new(Vec::new());
static ANY: AtomicBool = AtomicBool::new(false);

fn add(b: Bundle) -> Arc<Bundle> {
    let b = Arc::new(b);
    REGISTRY
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .push(b.clone());
    ANY.store(true, Ordering::Release);
    b
}

/// The tuning choice for `family` on the device of key `device_key` that a registered
/// bundle carries (first registered first): what `crate::tune` uses after the choices
/// measured on this machine.
pub(crate) fn bundled_choice(device_key: &str, family: &str) -> Option<tuning::Stored> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    REGISTRY
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find_map(|b| b.tuning.get(device_key, family))
}

/// The bundle `bytes` carrying the tuning choices of the tuning file `tuning` (the
/// `tune-v1.json` of a kernel cache folder where `cuprum tune` ran, on the GPU models the
/// program will meet): a program that registers the bundle runs each tuned kernel family
/// with the choice measured for its GPU model, driver and cuprum version, without
/// measuring at first use. Empty `tuning` removes the choices. `cuprum bundle build
/// --tuning FILE` calls it.
///
/// ```
/// use cuprum::bundle::{Bundle, build, parse_targets, with_tuning};
/// let empty = build(&[], &parse_targets("sm_90")?, &|_| {})?;
/// let choices = br#"{"devices": {"NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0":
///     {"scan.tile.4": {"params": [24, 4, 64], "margin": 0.03, "times_us": []}}}}"#;
/// let b = Bundle::from_bytes(&with_tuning(&empty, choices)?, "doc")?;
/// assert_eq!(b.tuning_choices(), 1);
/// let e = with_tuning(&empty, b"{not json").unwrap_err();
/// assert_eq!(e.kind(), cuprum::ErrorKind::InvalidArgument);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn with_tuning(bytes: &[u8], tuning: &[u8]) -> Result<Vec<u8>> {
    let mut c = format::decode(bytes, "given")?;
    if !tuning.is_empty() {
        tuning::parse(tuning).map_err(|e| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("the tuning choices to bundle: {e}"),
            )
        })?;
    }
    c.tuning = tuning.to_vec();
    format::encode(&c)
}

/// Reads, checks and registers a bundle file: from now on, every GPU kernel this process
/// compiles is looked up in it first (after the module memo; see the module docs for the
/// order). A damaged, truncated, foreign or later-format file is an
/// [`ErrorKind::Bundle`] error and registers nothing.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("app.cuprum-bundle");
/// std::fs::write(&path, b"not a bundle at all, but long enough to hold a header....")?;
/// let e = cuprum::bundle::load(&path).unwrap_err();
/// assert_eq!(e.kind(), cuprum::ErrorKind::Bundle);
/// assert!(e.to_string().contains("not a cuprum kernel bundle"), "{e}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Arc<Bundle>> {
    Bundle::read(path).map(add)
}

/// Checks and registers a bundle embedded in the program:
/// `cuprum::bundle::register(include_bytes!("app.cuprum-bundle"))`. Errors as [`load`].
///
/// ```
/// let e = cuprum::bundle::register(b"CUPRUMB\0").unwrap_err();
/// assert!(e.to_string().contains("truncated"), "{e}");
/// ```
pub fn register(bytes: &'static [u8]) -> Result<Arc<Bundle>> {
    Bundle::from_bytes(bytes, "(embedded)").map(add)
}

/// The bundles registered in this process, first registered first.
///
/// ```
/// assert!(cuprum::bundle::registered().iter().all(|b| b.kernels() > 0 || b.images() == 0));
/// ```
pub fn registered() -> Vec<Arc<Bundle>> {
    REGISTRY.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Forgets every registered bundle (modules already loaded from them stay loaded; see
/// [`clear_memo`](crate::clear_memo)).
///
/// ```
/// cuprum::bundle::unregister_all();
/// assert!(cuprum::bundle::registered().is_empty());
/// ```
pub fn unregister_all() {
    REGISTRY.write().unwrap_or_else(|p| p.into_inner()).clear();
    ANY.store(false, Ordering::Release);
}

/// What the registered bundles say about a kernel.
pub(crate) enum Lookup {
    /// No bundle is registered.
    NoBundles,
    /// The image for this device.
    Hit(Arc<CompiledImage>),
    /// Not in any bundle; or (with targets) only for other architectures.
    Missing(Option<Vec<String>>),
}

/// Looks `source` with `opts` up in the registered bundles for architecture `arch`.
pub(crate) fn lookup(source: &str, opts: &CompileOptions, arch: u32) -> Lookup {
    if !ANY.load(Ordering::Acquire) {
        return Lookup::NoBundles;
    }
    let id = super::cache::kernel_id(source, opts);
    let reg = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    let mut held: Option<Vec<String>> = None;
    for b in reg.iter() {
        match b.find(&id, arch, opts.explicit_arch()) {
            Some(Ok(img)) => return Lookup::Hit(img),
            Some(Err(t)) => held.get_or_insert_with(Vec::new).extend(t),
            None => {}
        }
    }
    Lookup::Missing(held)
}

/// The error for a kernel the bundles cannot give and NVRTC cannot compile (`why`: the
/// NVRTC error).
pub(crate) fn missing(
    source: &str,
    opts: &CompileOptions,
    arch: u32,
    held: Option<Vec<String>>,
    why: &Error,
) -> Error {
    let name = super::record::kernel_name(source, opts);
    let origins: Vec<String> = registered().iter().map(|b| b.origin.clone()).collect();
    let fix = format!(
        "To add it, run the program on a machine with NVRTC under `cuprum bundle record -o \
         kernels.list -- <program> <args>` (or with CUPRUM_BUNDLE_RECORD=kernels.list), then \
         `cuprum bundle build kernels.list --arch sm_{arch} -o <bundle>`"
    );
    let what = match held {
        Some(mut t) => format!(
            "kernel `{name}` is in the kernel bundle only for {} (no cubin for sm_{arch} or \
             its major, no PTX at or below it)",
            {
                t.sort_by_key(|x| (x.starts_with("compute_"), x.len(), x.clone()));
                t.dedup();
                t.join(", ")
            }
        ),
        None => format!(
            "kernel `{name}` is not in the kernel bundles loaded ({})",
            origins.join(", ")
        ),
    };
    Error::new(
        ErrorKind::Bundle,
        format!(
            "{what}, and NVRTC is not here to compile it ({}). {fix}",
            why.kind()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registered bundle's choices are found under their device key and family only.
    #[test]
    fn a_registered_bundles_tuning_choices_are_found_by_device_key() {
        let empty = build(&[], &[90], &|_| {}).unwrap();
        let key = "Unit Test GPU | CUDA 13.0 | cuprum unit-test";
        let json = format!(
            r#"{{"devices": {{"{key}": {{"unit.family": {{"params": [8, 2, 0],
                "margin": 0.1, "times_us": [[[8, 2, 0], 1.5], [[4, 2, 0], 1.65]]}}}}}}}}"#
        );
        let bytes: &'static [u8] = Box::leak(with_tuning(&empty, json.as_bytes()).unwrap().into());
        let b = register(bytes).unwrap();
        assert_eq!(b.tuning_choices(), 1);
        let s = bundled_choice(key, "unit.family").unwrap();
        assert_eq!(
            (s.params, s.margin, s.times_us.len()),
            ([8, 2, 0], Some(0.1), 2)
        );
        assert!(bundled_choice(key, "unit.other").is_none());
        assert!(
            bundled_choice("Other GPU | CUDA 13.0 | cuprum unit-test", "unit.family").is_none()
        );
    }

    /// Choices that do not parse, behind a valid checksum, make the bundle an error.
    #[test]
    fn a_bundle_whose_choices_do_not_parse_is_refused() {
        let bytes = format::encode(&format::Contents {
            made_by: "unit".into(),
            tuning: b"{\"devices\": ".to_vec(),
            ..Default::default()
        })
        .unwrap();
        let e = Bundle::from_bytes(&bytes, "x.bundle").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Bundle);
        assert!(
            e.to_string()
                .starts_with("kernel bundle x.bundle: its tuning choices: not a tuning file"),
            "{e}"
        );
    }
}
