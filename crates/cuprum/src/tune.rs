//! Per-device tuning: which of a kernel family's candidate shapes (items per thread, blocks
//! per SM, tiles prefetched ahead, …) a GPU runs. A *family* (`Family`, declared by the
//! kernels it tunes: `kernel/tuned.rs`) lists its candidates and a representative problem
//! that runs one candidate; this module picks one per device, measures when it must, and
//! keeps the winners.
//!
//! **Choosing** (`choose`, once per device and family, then a memo; `CUPRUM_TUNE`):
//! - a choice pinned on this thread by [`with_choice`] wins;
//! - `off`: the built-in choice for the device's model (the GPUs cuprum was measured on:
//!   H100, H200), else the family's first candidate (the hand-picked shape);
//! - `cached` (the default): the choice stored for this device, else one a registered
//!   kernel bundle carries for its model, driver and cuprum version (measured ahead of
//!   time where the bundle was made: `crate::bundle::with_tuning`), else the built-in one
//!   for its model, else the candidates are measured now (at first use on an unmeasured
//!   GPU model) and the winner stored;
//! - `full`: the choice stored for this device, else measured now, models with a bundled
//!   or built-in choice included (`cuprum tune` measures every family ahead of time,
//!   stored or not).
//!
//! Nothing is measured while this thread captures a CUDA graph (the graph gets the choice
//! as it stands; the next use outside a capture measures). The host device always takes
//! the first candidate: its kernels are compiled by g++ and
//! timing them would say nothing about a GPU.
//!
//! **Measuring** (`measure`): the family's problem is set up once (inputs allocated), each
//! candidate runs once to compile and warm up, then `ROUNDS` rounds run every candidate in
//! turn between two events (rounds interleave candidates, so clock and temperature drift
//! reach all of them alike); a candidate's time is its median. The winner is the fastest;
//! its *margin* is how much slower the runner-up was. A candidate that fails (a compile or
//! launch error) is left out and reported; when none ran, the first candidate is used and
//! nothing is stored. Tuning is advice: when the first use of a family cannot measure (the
//! problem's memory cannot be had) or cannot write the file, the call that needed the
//! choice goes on with the choice as it stands (built in, or the first candidate) and a
//! later process tries again; `cuprum tune` reports such errors instead. The problems are
//! sized to take tens of microseconds each on an H100, so the timing itself costs a few
//! milliseconds per family; compiling the candidates (one program each) is the larger part
//! of a first use, and goes to the kernel cache. The candidates' programs (`Family::programs`)
//! compile on every core before the first one runs, so a first use waits about as long as
//! its slowest compile, not the sum of them.
//!
//! **Stored** in the kernel cache's folder (`compile/tuning.rs`: `tune-v1.json`; nothing
//! when the cache is in memory only), keyed by the GPU model, the driver's CUDA version
//! and cuprum's version, so a driver or cuprum update measures again. `cuprum cache export`
//! carries the file and `import` merges it.

use crate::compile::record::KernelRecord;
use crate::compile::tuning as store;
use crate::error::{Result, bail};
use crate::runtime::{Device, Event, Stream, capturing_any, driver_info};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::sync::Mutex;

/// One candidate's values, in the order of its family's `params` (unused trailing values 0).
pub type Params = crate::compile::tuning::Params;

/// What runs a family's problem with one candidate.
pub(crate) type Runner = Box<dyn FnMut(Params) -> Result<()>>;

/// Timed rounds per candidate.
const ROUNDS: usize = 7;

/// A family of kernels tuned together: its candidates and the problem that times them.
pub struct Family {
    /// The family's name, e.g. `scan.tile.4`.
    pub name: &'static str,
    /// What it tunes, one line.
    pub about: &'static str,
    /// The names of the candidates' values (`""` for an unused one).
    pub params: [&'static str; 3],
    /// The candidates; the first is the hand-picked shape (used where nothing is measured).
    pub candidates: &'static [Params],
    /// The built-in choices: a GPU model's name contains the first, the second is its
    /// candidate (measured on that model).
    pub built_in: &'static [(&'static str, Params)],
    /// Sets up the representative problem on the current device and returns what runs it
    /// with one candidate (queued on the current stream).
    pub(crate) problem: fn() -> Result<Runner>,
    /// The programs (source, options) a candidate's run compiles, compiled for every
    /// candidate on all cores before the first one runs.
    pub(crate) programs: fn(Params) -> Vec<(String, crate::compile::CompileOptions)>,
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family").field("name", &self.name).finish()
    }
}

/// How `CUPRUM_TUNE` asks cuprum to choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuneMode {
    /// Built-in choices only; nothing is read, measured or stored.
    Off,
    /// Stored, else carried by a registered bundle, else built-in, else measured at first
    /// use (the default).
    Cached,
    /// Stored, else measured at first use.
    Full,
}

/// `CUPRUM_TUNE` (`off`, `cached`, `full`; unset or empty: `cached`).
///
/// ```
/// use cuprum::tuning::{TuneMode, mode};
/// if std::env::var_os("CUPRUM_TUNE").is_none() {
///     assert_eq!(mode()?, TuneMode::Cached);
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn mode() -> Result<TuneMode> {
    let v = std::env::var("CUPRUM_TUNE").unwrap_or_default();
    Ok(match v.trim() {
        "" | "cached" => TuneMode::Cached,
        "off" => TuneMode::Off,
        "full" => TuneMode::Full,
        other => bail!(
            InvalidArgument,
            "CUPRUM_TUNE must be off, cached or full, got {other:?}"
        ),
    })
}

/// Where a choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// Pinned on this thread by [`with_choice`].
    Pinned,
    /// Measured in this process.
    Measured,
    /// Measured before, read from the tuning file.
    Stored,
    /// Measured ahead of time on this GPU model, carried by a registered kernel bundle
    /// ([`bundle::with_tuning`](crate::bundle::with_tuning)).
    Bundled,
    /// Built in for the device's model.
    BuiltIn,
    /// The family's first candidate (the host device, `CUPRUM_TUNE=off` on an unmeasured
    /// model, or a measurement that could not run).
    First,
}

/// One family's choice on one device, as `choose` made it or a report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The family's name.
    pub family: &'static str,
    /// The chosen candidate.
    pub params: Params,
    /// Where it came from.
    pub source: Source,
    /// How much slower the runner-up was (0.05: 5 %), when measured.
    pub margin: Option<f64>,
    /// Each candidate's median time in µs, when measured (failed candidates left out).
    pub times_us: Vec<(Params, f64)>,
    /// Candidates that failed to compile or run, with the error.
    pub failed: Vec<(Params, String)>,
}

impl Choice {
    fn plain(family: &Family, params: Params, source: Source) -> Choice {
        Choice {
            family: family.name,
            params,
            source,
            margin: None,
            times_us: Vec::new(),
            failed: Vec::new(),
        }
    }
}

/// The choices made in this process, by device and family.
static MEMO: Mutex<Option<FxHashMap<(&'static str, &'static str), Params>>> = Mutex::new(None);

/// Held while a choice is made (read from the file, or measured).
static CHOOSING: Mutex<()> = Mutex::new(());

thread_local! {
    /// Choices pinned by [`with_choice`] on this thread.
    static PINNED: RefCell<Vec<(String, Params)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `family`'s choice pinned to `params` on this thread (for every device):
/// what tests use to run each candidate, and a way to try one by hand. `params` must be one
/// of the family's candidates ([`Family::candidates`], listed by `cuprum tune --report`):
/// a kernel of the family built under any other fails with an error of kind
/// `InvalidArgument`. Kernels built under a pinned choice are kept apart from the others (a
/// program per shape).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops, tuning};
/// let a = Array::from_slice(&(1..=5000).map(|x| x as f32).collect::<Vec<_>>(), &[5000])?;
/// let c = tuning::with_choice("scan.tile.4", [16, 6, 64], || ops::cumsum(&a, None))?;
/// assert_eq!(c.to_vec::<f32>()?[4999], 12502500.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn with_choice<R>(family: &str, params: Params, f: impl FnOnce() -> R) -> R {
    PINNED.with(|p| p.borrow_mut().push((family.to_owned(), params)));
    struct Unpin;
    impl Drop for Unpin {
        fn drop(&mut self) {
            PINNED.with(|p| p.borrow_mut().pop());
        }
    }
    let _unpin = Unpin;
    f()
}

fn pinned(family: &str) -> Option<Params> {
    PINNED.with(|p| {
        p.borrow()
            .iter()
            .rev()
            .find(|(f, _)| f == family)
            .map(|x| x.1)
    })
}

/// The key a device's choices are stored under: model, driver CUDA version, cuprum version.
fn device_key(device: Device) -> String {
    let cuda = driver_info()
        .map(|d| format!("{}.{}", d.major(), d.minor()))
        .unwrap_or_else(|_| "?".into());
    format!(
        "{} | CUDA {cuda} | cuprum {}",
        device.name(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The built-in choice for `device`'s model, if the family has one.
fn built_in(device: Device, family: &Family) -> Option<Params> {
    family
        .built_in
        .iter()
        .find(|(model, _)| device.name().contains(model))
        .map(|x| x.1)
}

/// `family`'s candidate for `device` (see the module doc), measured at first use when the
/// mode asks for it. Called by the kernels a family tunes as they build their programs.
pub(crate) fn choose(device: Device, family: &'static Family) -> Result<Params> {
    if let Some(p) = pinned_candidate(family)? {
        return Ok(p);
    }
    let first = family.candidates[0];
    if !device.is_tunable() {
        return Ok(first);
    }
    let key = (device.uuid(), family.name);
    if let Some(p) = memo(key) {
        return Ok(p);
    }
    // One chooser at a time: a second thread waits for the first's measurement (and its
    // kernels do not share the GPU with the candidates being timed). Measuring never comes
    // back here unpinned, so this cannot deadlock.
    let _one = CHOOSING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = memo(key) {
        return Ok(p);
    }
    let c = current(device, family)?;
    if capturing_any() {
        // Timing would put the candidates' launches and events into the user's graph: the
        // graph gets the choice as it stands, and the next use outside a capture measures.
        return Ok(c.params);
    }
    let params = match (mode()?, c.source) {
        (TuneMode::Off, _)
        | (_, Source::Stored)
        | (TuneMode::Cached, Source::BuiltIn | Source::Bundled) => c.params,
        // Tuning is advice: a measurement that cannot run, or a file that cannot be
        // written, leaves this process with the choice as it stands (see the module doc).
        _ => measure_with(device, family, false)
            .map(|m| m.params)
            .unwrap_or(c.params),
    };
    remember(key, params);
    Ok(params)
}

fn memo(key: (&'static str, &'static str)) -> Option<Params> {
    MEMO.lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(FxHashMap::default)
        .get(&key)
        .copied()
}

fn remember(key: (&'static str, &'static str), params: Params) {
    MEMO.lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(FxHashMap::default)
        .insert(key, params);
}

/// The shape pinned for `family` on this thread ([`with_choice`]), which must be one of
/// its candidates: only those are tested, and a shape outside them may not even be sound
/// (a radix pass of fewer than 256 threads leaves digits without an owner).
fn pinned_candidate(family: &'static Family) -> Result<Option<Params>> {
    match pinned(family.name) {
        Some(p) if !family.candidates.contains(&p) => bail!(
            InvalidArgument,
            "the choice pinned for tuned family {}: expected one of its candidates {:?}, \
             given {p:?}",
            family.name,
            family.candidates
        ),
        p => Ok(p),
    }
}

/// `family`'s choice on `device` without measuring: stored (unless `CUPRUM_TUNE=off`),
/// else built in, else the first candidate.
pub(crate) fn current(device: Device, family: &'static Family) -> Result<Choice> {
    if let Some(p) = pinned_candidate(family)? {
        return Ok(Choice::plain(family, p, Source::Pinned));
    }
    if !device.is_tunable() {
        return Ok(Choice::plain(family, family.candidates[0], Source::First));
    }
    if mode()? != TuneMode::Off {
        let key = device_key(device);
        let stored = store::load()
            .get(&key, family.name)
            .map(|s| (s, Source::Stored));
        let found = stored.or_else(|| {
            crate::bundle::bundled_choice(&key, family.name).map(|s| (s, Source::Bundled))
        });
        if let Some((s, source)) = found
            && family.candidates.contains(&s.params)
        {
            return Ok(Choice {
                family: family.name,
                params: s.params,
                source,
                margin: s.margin,
                times_us: s.times_us,
                failed: Vec::new(),
            });
        }
    }
    Ok(match built_in(device, family) {
        Some(p) => Choice::plain(family, p, Source::BuiltIn),
        None => Choice::plain(family, family.candidates[0], Source::First),
    })
}

/// Measures every candidate of `family` on `device` (see the module doc), stores the
/// winner (unless `CUPRUM_TUNE=off`) and makes it this process's choice.
pub(crate) fn measure(device: Device, family: &'static Family) -> Result<Choice> {
    measure_with(device, family, true)
}

/// [`measure`]; a tuning file that cannot be written is an error only when `strict`.
fn measure_with(device: Device, family: &'static Family, strict: bool) -> Result<Choice> {
    if !device.is_tunable() {
        return Ok(Choice::plain(family, family.candidates[0], Source::First));
    }
    let (times, failed) = device.with(|| time_candidates(family))?;
    let mut ranked = times.clone();
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let Some(&(best, t0)) = ranked.first() else {
        let mut c = Choice::plain(family, family.candidates[0], Source::First);
        c.failed = failed;
        return Ok(c);
    };
    let margin = ranked.get(1).map(|r| r.1 / t0 - 1.0);
    if mode()? != TuneMode::Off
        && let Err(e) = store::save(&device_key(device), family.name, best, margin, &times)
        && strict
    {
        return Err(e);
    }
    remember((device.uuid(), family.name), best);
    Ok(Choice {
        family: family.name,
        params: best,
        source: Source::Measured,
        margin,
        times_us: times,
        failed,
    })
}

type Timed = (Vec<(Params, f64)>, Vec<(Params, String)>);

/// Each candidate's median time over `ROUNDS` interleaved rounds, on the current device.
fn time_candidates(family: &Family) -> Result<Timed> {
    let mut run = (family.problem)()?;
    precompile_candidates(family);
    let stream = Stream::current()?;
    let (start, end) = (Event::new()?, Event::new()?);
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for &c in family.candidates {
        match run(c).and_then(|()| stream.synchronize()) {
            Ok(()) => ok.push((c, Vec::with_capacity(ROUNDS))),
            Err(e) => failed.push((c, e.to_string())),
        }
    }
    for _ in 0..ROUNDS {
        for (c, t) in ok.iter_mut() {
            start.record(&stream)?;
            run(*c)?;
            end.record(&stream)?;
            end.synchronize()?;
            t.push(f64::from(start.elapsed_ms(&end)?) * 1e3);
        }
    }
    let times = ok
        .into_iter()
        .map(|(c, mut t)| {
            t.sort_by(f64::total_cmp);
            (c, t[t.len() / 2])
        })
        .collect();
    Ok((times, failed))
}

/// Compiles every candidate's programs on all cores into the kernel cache, where each
/// candidate's first run then finds them: a first use waits about as long as the slowest
/// compile rather than all of them in turn. A failure is left for that run to report.
fn precompile_candidates(family: &Family) {
    let records: Vec<KernelRecord> = family
        .candidates
        .iter()
        .flat_map(|&c| (family.programs)(c))
        .map(|(source, opts)| KernelRecord::new(&source, &opts))
        .collect();
    let _ = crate::compile::precompile(&[&records]);
}

/// Forgets this process's choices (the next use chooses again: reads the file, or
/// measures); `cuprum tune` calls it before measuring.
pub fn forget() {
    *MEMO.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_choices_nest_and_unwind() {
        assert_eq!(pinned("x.y"), None);
        with_choice("x.y", [1, 2, 3], || {
            assert_eq!(pinned("x.y"), Some([1, 2, 3]));
            with_choice("x.y", [4, 5, 6], || {
                assert_eq!(pinned("x.y"), Some([4, 5, 6]))
            });
            assert_eq!(pinned("x.y"), Some([1, 2, 3]));
            assert_eq!(pinned("other"), None);
        });
        assert_eq!(pinned("x.y"), None);
    }
}
