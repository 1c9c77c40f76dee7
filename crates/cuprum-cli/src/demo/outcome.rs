//! What one demo case found (`Outcome`), and how its main call is timed and the time shown
//! (the same for every case).

use cuprum::profiler::{BenchmarkOptions, benchmark};
use std::time::Duration;

type R<T> = cuprum::Result<T>;

/// What one case found.
pub struct Outcome {
    /// One line: the result, and what was off when it did not match.
    pub result: String,
    /// Whether every check passed.
    pub ok: bool,
    /// Median GPU time of the timed call, seconds.
    pub gpu_seconds: f64,
}

/// Median GPU time of `f` after the check: a warm-up call, then up to 20 timed calls
/// (at most about 0.3 s).
pub fn gpu_time(f: impl FnMut() -> R<()>) -> R<f64> {
    let opts = BenchmarkOptions::new()
        .n_warmup(1)
        .n_repeat(20)
        .max_duration(Duration::from_millis(300));
    Ok(benchmark("demo", f, &opts)?.gpu().median)
}

/// `12.3 µs`, `1.23 ms`.
pub fn fmt_time(seconds: f64) -> String {
    if seconds < 1e-3 {
        format!("{:.1} µs", seconds * 1e6)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}
