//! [`benchmark`]: time a GPU workload like `cupyx.profiler.benchmark`; [`profile`]: the
//! range of a program an attached profiler records (`cupyx.profiler.profile`).
//!
//! Each repeat records a start event on the current stream, calls the function (the host
//! time of that call is the CPU time), records an end event and waits for it (the time
//! between the events is the GPU time). Repeats are serialised.

use crate::error::{Result, bail};
use crate::runtime::{Device, Event, Stream};
use std::fmt;
use std::time::{Duration, Instant};

/// How [`benchmark`] repeats the workload.
///
/// ```
/// use cuprum::profiler::BenchmarkOptions;
/// let o = BenchmarkOptions::new().n_repeat(20).n_warmup(3);
/// assert_eq!((o.n_repeat, o.n_warmup), (20, 3));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkOptions {
    /// Timed repeats (CuPy's default 10000).
    pub n_repeat: usize,
    /// Untimed calls before timing (default 10).
    pub n_warmup: usize,
    /// Stop after this much total time (at least one repeat always runs).
    pub max_duration: Option<Duration>,
}

impl Default for BenchmarkOptions {
    fn default() -> Self {
        BenchmarkOptions {
            n_repeat: 10_000,
            n_warmup: 10,
            max_duration: None,
        }
    }
}

impl BenchmarkOptions {
    /// CuPy's defaults: 10000 repeats, 10 warm-up calls, no time limit.
    ///
    /// ```
    /// let o = cuprum::profiler::BenchmarkOptions::new();
    /// assert_eq!((o.n_repeat, o.n_warmup), (10_000, 10));
    /// ```
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of timed repeats.
    ///
    /// ```
    /// let o = cuprum::profiler::BenchmarkOptions::new().n_repeat(100);
    /// assert_eq!(o.n_repeat, 100);
    /// ```
    pub fn n_repeat(mut self, n: usize) -> Self {
        self.n_repeat = n;
        self
    }
    /// Sets the number of warm-up calls.
    ///
    /// ```
    /// let o = cuprum::profiler::BenchmarkOptions::new().n_warmup(3);
    /// assert_eq!(o.n_warmup, 3);
    /// ```
    pub fn n_warmup(mut self, n: usize) -> Self {
        self.n_warmup = n;
        self
    }
    /// Sets the time limit.
    ///
    /// ```
    /// use std::time::Duration;
    /// let o = cuprum::profiler::BenchmarkOptions::new().max_duration(Duration::from_secs(2));
    /// assert_eq!(o.max_duration, Some(Duration::from_secs(2)));
    /// ```
    pub fn max_duration(mut self, d: Duration) -> Self {
        self.max_duration = Some(d);
        self
    }
}

/// Per-repeat host and GPU times of one benchmark, in seconds.
///
/// ```
/// use cuprum::profiler::PerfCaseResult;
/// let r = PerfCaseResult { name: "k".into(), cpu_times: vec![1e-6, 3e-6], gpu_times: vec![2e-6, 2e-6], device: 0 };
/// assert_eq!(r.cpu().mean, 2e-6);
/// assert_eq!(r.gpu().median, 2e-6);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PerfCaseResult {
    /// The name given to [`benchmark`].
    pub name: String,
    /// Host time of each call (launch cost; no final synchronisation).
    pub cpu_times: Vec<f64>,
    /// GPU time between the events around each call.
    pub gpu_times: Vec<f64>,
    /// The device the GPU times were taken on ([`HOST_ORDINAL`](crate::runtime::HOST_ORDINAL)
    /// for the host device, whose "GPU" times are wall times of the synchronous work).
    pub device: usize,
}

/// Summary statistics of a series of times (seconds).
///
/// ```
/// use cuprum::profiler::PerfCaseResult;
/// let r = PerfCaseResult { name: "k".into(), cpu_times: vec![1.0, 2.0, 6.0], gpu_times: vec![], device: 0 };
/// let s = r.cpu();
/// assert_eq!((s.min, s.median, s.max, s.mean), (1.0, 2.0, 6.0, 3.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// mean
    pub mean: f64,
    /// population standard deviation (ddof = 0, as CuPy)
    pub std: f64,
    /// minimum
    pub min: f64,
    /// maximum
    pub max: f64,
    /// median
    pub median: f64,
}

impl Stats {
    /// Statistics of `v` (all zero for an empty series).
    ///
    /// ```
    /// let s = cuprum::profiler::Stats::of(&[1.0, 2.0, 3.0, 10.0]);
    /// assert_eq!((s.mean, s.min, s.max, s.median), (4.0, 1.0, 10.0, 2.5));
    /// ```
    pub fn of(v: &[f64]) -> Stats {
        if v.is_empty() {
            return Stats {
                mean: 0.0,
                std: 0.0,
                min: 0.0,
                max: 0.0,
                median: 0.0,
            };
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let median = if s.len() % 2 == 1 {
            s[s.len() / 2]
        } else {
            (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
        };
        Stats {
            mean,
            std,
            min: s[0],
            max: s[s.len() - 1],
            median,
        }
    }
}

impl PerfCaseResult {
    /// Statistics of the host times.
    ///
    /// ```
    /// # use cuprum::profiler::PerfCaseResult;
    /// let r = PerfCaseResult { name: "k".into(), cpu_times: vec![4e-6], gpu_times: vec![9e-6], device: 0 };
    /// assert_eq!(r.cpu().median, 4e-6);
    /// ```
    pub fn cpu(&self) -> Stats {
        Stats::of(&self.cpu_times)
    }
    /// Statistics of the GPU times.
    ///
    /// ```
    /// # use cuprum::profiler::PerfCaseResult;
    /// let r = PerfCaseResult { name: "k".into(), cpu_times: vec![4e-6], gpu_times: vec![9e-6], device: 0 };
    /// assert_eq!(r.gpu().median, 9e-6);
    /// ```
    pub fn gpu(&self) -> Stats {
        Stats::of(&self.gpu_times)
    }

    /// CuPy's text form; `show_gpu = false` leaves out the GPU column.
    ///
    /// ```
    /// use cuprum::profiler::PerfCaseResult;
    /// let r = PerfCaseResult { name: "add".into(), cpu_times: vec![5e-6, 6e-6],
    ///                          gpu_times: vec![7e-6, 9e-6], device: 0 };
    /// assert_eq!(r.to_str(true),
    ///   "add                 :    CPU:     5.500 us   +/-  0.500 (min:     5.000 / max:     6.000) us     GPU-0:     8.000 us   +/-  1.000 (min:     7.000 / max:     9.000) us");
    /// ```
    pub fn to_str(&self, show_gpu: bool) -> String {
        let item = |label: String, v: &[f64]| {
            let s = Stats::of(v);
            let mut t = format!("    {label}: {:9.3} us", s.mean * 1e6);
            if v.len() > 1 {
                t.push_str(&format!(
                    "   +/- {:6.3} (min: {:9.3} / max: {:9.3}) us",
                    s.std * 1e6,
                    s.min * 1e6,
                    s.max * 1e6
                ));
            }
            t
        };
        let mut items = vec![item("CPU".into(), &self.cpu_times)];
        if show_gpu {
            items.push(item(
                crate::runtime::timer_label(self.device),
                &self.gpu_times,
            ));
        }
        format!("{:<20}:{}", self.name, items.join(" "))
    }
}

impl fmt::Display for PerfCaseResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_str(true))
    }
}

/// Times `f` on the current stream (CuPy's `cupyx.profiler.benchmark`). Arrays `f` uses
/// may belong to other streams ([Arrays and streams](crate::Stream#arrays-and-streams)).
/// Work on another GPU is timed from that GPU: run the benchmark inside its
/// [`Device::with`](crate::Device::with).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{profiler::{benchmark, BenchmarkOptions}, Array, DType};
/// let a = Array::ones(&[1 << 20], DType::F32)?;
/// let r = benchmark("copy", || a.copy().map(|_| ()), &BenchmarkOptions::new().n_repeat(20))?;
/// println!("{r}");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn benchmark(
    name: &str,
    mut f: impl FnMut() -> Result<()>,
    opts: &BenchmarkOptions,
) -> Result<PerfCaseResult> {
    if opts.n_repeat == 0 {
        bail!(InvalidArgument, "benchmark needs n_repeat >= 1, got 0");
    }
    let stream = Stream::current()?;
    let (start, end) = (Event::new()?, Event::new()?);
    for _ in 0..opts.n_warmup {
        f()?;
    }
    start.record(&stream)?;
    start.synchronize()?;
    let mut cpu_times = Vec::with_capacity(opts.n_repeat);
    let mut gpu_times = Vec::with_capacity(opts.n_repeat);
    let mut total = Duration::ZERO;
    for _ in 0..opts.n_repeat {
        start.record(&stream)?;
        let t1 = Instant::now();
        f()?;
        let t2 = Instant::now();
        end.record(&stream)?;
        end.synchronize()?;
        cpu_times.push((t2 - t1).as_secs_f64());
        gpu_times.push(start.elapsed_ms(&end)? as f64 * 1e-3);
        total += t1.elapsed();
        if opts.max_duration.is_some_and(|m| total > m) {
            break;
        }
    }
    Ok(PerfCaseResult {
        name: name.to_owned(),
        cpu_times,
        gpu_times,
        device: stream.device().ordinal(),
    })
}

/// The launch floor: [`benchmark`] of a kernel that takes no arguments and does nothing,
/// launched with one thread on the current stream (named `launch_floor`). Its CPU time is
/// the cost of one launch through cuprum (a table lookup and `cuLaunchKernel`), the least
/// any kernel call costs; its GPU time is the device's time for an empty kernel.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::profiler::{BenchmarkOptions, launch_floor};
/// let r = launch_floor(&BenchmarkOptions::new().n_repeat(1000))?;
/// println!("one launch costs {:.2} µs on the host", r.cpu().median * 1e6);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn launch_floor(opts: &BenchmarkOptions) -> Result<PerfCaseResult> {
    let s = Stream::current()?;
    benchmark(
        "launch_floor",
        || crate::array::kernels::launch_empty(&s, false),
        opts,
    )
}

/// The part of a program an attached profiler records, from [`profile`] until the range is
/// stopped or dropped.
#[derive(Debug)]
#[must_use = "collection stops when the range is dropped"]
pub struct ProfileRange {
    device: Device,
    open: bool,
}

/// Starts profile collection on the current device (`cuProfilerStart`) until the returned
/// range ends, as `cupyx.profiler.profile()`: a profiler told to record only such ranges
/// (Nsight Systems' `nsys profile --capture-range=cudaProfilerApi`, Nsight Compute's
/// `ncu --profile-from-start off`) records the work in between. Without a profiler, and
/// on the host device, nothing happens.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// let a = cuprum::Array::ones(&[1 << 20], cuprum::DType::F32)?;
/// let range = cuprum::profiler::profile()?;
/// let b = cuprum::ops::add(&a, &a)?; // recorded
/// range.stop()?;
/// assert_eq!(b.to_vec::<f32>()?[0], 2.0);
/// # Ok::<(), cuprum::Error>(())
/// ```
///
/// # Errors
/// The device's errors (a device without a working driver, a sticky kernel fault).
pub fn profile() -> Result<ProfileRange> {
    let device = Device::current()?;
    device.bind()?;
    device.backend().profiler(true)?;
    Ok(ProfileRange { device, open: true })
}

impl ProfileRange {
    /// Stops collection (`cuProfilerStop`), reporting the driver's error, which dropping
    /// the range cannot.
    ///
    /// # Errors
    /// The device's errors, as [`profile`].
    pub fn stop(mut self) -> Result<()> {
        self.open = false;
        self.device.bind()?;
        self.device.backend().profiler(false)
    }
}

impl Drop for ProfileRange {
    fn drop(&mut self) {
        if self.open && self.device.bind().is_ok() {
            // A failure here is the device's (a sticky fault), and the next call on the
            // device reports it; a drop cannot.
            let _ = self.device.backend().profiler(false);
        }
    }
}
