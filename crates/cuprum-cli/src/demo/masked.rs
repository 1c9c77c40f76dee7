//! The demo's boolean-mask case: seed 003's "Option 1: reformulate entirely" with masks and
//! in-place updates through them. The function is the example's
//! (examples/masked/prime_factor_sum.rs, shared through `#[path]` in main.rs), checked against the host
//! for every value and timed as a whole (404 masked steps, no synchronisation inside).

use super::outcome::{Outcome, gpu_time};
use super::program::Program;
use crate::masked_seed as seed;
use crate::seeds::prime;

type R<T> = cuprum::Result<T>;

/// The element-wise kernels the function runs (int64): `nums % p`, `== 0`,
/// `totals[mask] += p`, `nums[mask] //= p`, and the last line's `nums > 1` and
/// `totals[mask] += nums[mask]` (one value per selected element).
const KERNELS: [&str; 6] = [
    "remainder int64",
    "equal int64",
    "masked add int64 ranked=false",
    "masked floor_divide int64",
    "greater int64",
    "masked add int64 ranked=true",
];

pub fn prime_programs() -> R<Vec<Program>> {
    let all = cuprum::internal::ops_sample_sources()?;
    Ok(KERNELS
        .iter()
        .filter_map(|k| all.iter().find(|(name, _)| name == k))
        .map(|(name, source)| Program {
            name: format!("{}.cu", name.replace([' ', '='], "_")),
            source: source.clone(),
            name_expressions: Vec::new(),
        })
        .collect())
}

/// `primeFactorizationSum(1_000_000)` with masks: the seed's `[2 3 4 ... 287 77 42]`,
/// every value against the host.
pub fn prime_factor_sum() -> R<Outcome> {
    let n = 1_000_000usize;
    let v = seed::prime_factorization_sum(n)?.to_vec::<i64>()?;
    let t = gpu_time(|| seed::prime_factorization_sum(n).map(drop))?;
    Ok(prime_outcome(&v, t))
}

/// The seed's result line `[2 3 4 ... 287 77 42]`, against the host for every value.
fn prime_outcome(v: &[i64], gpu_seconds: f64) -> Outcome {
    let (result, ok) = prime::summary(v);
    Outcome {
        result,
        ok,
        gpu_seconds,
    }
}
