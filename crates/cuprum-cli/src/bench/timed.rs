//! What the bench's functions return: the result type of the bench (`R`), and a workload's
//! timings with the bytes one call must move (`Timed`).

use cuprum::profiler::PerfCaseResult;

pub type R<T> = Result<T, Box<dyn std::error::Error>>;

/// A workload's timings and the bytes one call must move (0: not bandwidth-bound).
pub type Timed = (PerfCaseResult, u64);
