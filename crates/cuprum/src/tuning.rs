//! Per-device tuning: the kernels' shapes (items per thread, blocks per SM, …) chosen on
//! each GPU among measured candidates, kept in the kernel cache's folder. `CUPRUM_TUNE`
//! (`off`, `cached`, `full`) says when to measure; `cuprum tune` measures ahead of time and
//! `cuprum tune --report` shows each choice and its margin. How a choice is made: the
//! module docs of `tune/` (`cargo doc --document-private-items`).
//!
//! The families are declared beside the kernels they shape (the scan engine's in
//! `kernel/tuned.rs`, the radix sort's in `ops/sort_tuned.rs`, the compactions' in
//! `ops/compact.rs`, the two-axis FFT's column pass in `ops/fft_columns.rs`); this module
//! lists them all.
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{Device, tuning};
//! for c in tuning::report(Device::current()?)? {
//!     println!("{:<12} {:?} ({:?})", c.family, c.params, c.source);
//! }
//! # Ok::<(), cuprum::Error>(())
//! ```

pub use crate::tune::{Choice, Family, Params, Source, TuneMode, forget, mode, with_choice};

use crate::error::Result;
use crate::kernel::tuned as scan;
use crate::ops::compact;
use crate::ops::fft_columns;
use crate::ops::sort_tuned as sort;
use crate::runtime::Device;

/// The name of the file holding the stored choices in a kernel cache's folder: what
/// `cuprum bundle build --tuning` takes, so that a bundle replays the choices the
/// recording process made (a family measured at first use may otherwise pick another
/// candidate, whose kernel the bundle does not hold).
///
/// ```
/// assert!(cuprum::tuning::FILE.ends_with(".json"));
/// ```
pub const FILE: &str = crate::compile::tuning::STORE_FILE;

/// Every tuned family, in the order `cuprum tune` measures them.
static FAMILIES: [&Family; 15] = [
    scan::FAMILIES[0],
    scan::FAMILIES[1],
    scan::FAMILIES[2],
    scan::FAMILIES[3],
    scan::FAMILIES[4],
    scan::FAMILIES[5],
    scan::FAMILIES[6],
    scan::FAMILIES[7],
    sort::FAMILIES[0],
    sort::FAMILIES[1],
    sort::FAMILIES[2],
    sort::FAMILIES[3],
    &compact::COMPACT_VALUES,
    &compact::COMPACT_NONZERO,
    &fft_columns::FFT_COLUMNS,
];

/// Every tuned family: name, what it tunes, its candidates and built-in choices.
///
/// ```
/// let names: Vec<&str> = cuprum::tuning::families().iter().map(|f| f.name).collect();
/// assert!(names.contains(&"scan.tile.4") && names.contains(&"sort.keys4"));
/// ```
pub fn families() -> &'static [&'static Family] {
    &FAMILIES
}

/// Each family's choice on `device` as things stand, without measuring: pinned, stored,
/// built in, or the first candidate.
///
/// ```
/// use cuprum::{Device, tuning::{Source, report}};
/// let r = report(Device::host())?;
/// assert!(r.iter().all(|c| c.source == Source::First));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn report(device: Device) -> Result<Vec<Choice>> {
    FAMILIES
        .iter()
        .map(|f| crate::tune::current(device, f))
        .collect()
}

/// Measures every family whose name contains `filter` (`None`: all) on `device` and
/// stores the winners (unless `CUPRUM_TUNE=off`): what `cuprum tune` runs. The host device
/// measures nothing and reports its first candidates.
///
/// ```no_run
/// use cuprum::{Device, tuning};
/// for c in tuning::tune(Device::get(0)?, Some("scan.tile"))? {
///     println!("{} {:?} margin {:?}", c.family, c.params, c.margin);
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn tune(device: Device, filter: Option<&str>) -> Result<Vec<Choice>> {
    FAMILIES
        .iter()
        .filter(|f| filter.is_none_or(|p| f.name.contains(p)))
        .map(|f| crate::tune::measure(device, f))
        .collect()
}
