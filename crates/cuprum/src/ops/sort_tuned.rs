//! The radix sort's tuned families (`crate::tune` chooses, measures and stores): the pass
//! kernels' tile — items per thread, the blocks per SM their registers are held to and
//! threads per block (256 or 384: a thread per digit, and more) — one family per key width
//! (4 bytes or less, 8 bytes) and per whether 4-byte values (positions, `sort_by_key`'s
//! values) travel with the keys. 16-byte keys keep one shape.
//!
//! Each family's first candidate is the shape hand-picked on an H100 (the measurements are
//! in `radix.rs`'s `Tiling`); the other candidates are its neighbours there. Every
//! candidate fits the 48 KiB of static shared memory a pass takes (the tile's keys and
//! values, a warp's digit counters each and the look-back's tables, about 2 KiB): at 256
//! threads 4-byte keys alone up to 32 items, with values up to 18, 8-byte keys alone up to
//! 18, with values up to 12; at 384 threads 4-byte keys alone up to 22 items, with values
//! up to 11, 8-byte keys alone up to 11, with values up to 7. Items need not divide
//! anything (a thread's keys are strided by the block), so any candidate may be chosen;
//! `tests/tuning.rs` sorts with each against a CPU reference.
//!
//! A family's problem sorts (or argsorts) 2^23 scattered keys of its width with the candidate
//! pinned (about a quarter of a millisecond on an H200), on the sort's own path.
//!
//! Measured on an H200 (`cuprum tune --family sort`, 2026-12-04, 256 threads only, µs of
//! each problem, winner / first candidate, margin over the runner-up): keys4 340.2 / 340.2
//! (2.5 %), keys4.values 428.2 / 428.2 (1.4 %), keys8 753.4 / 753.4 (0.3 %), keys8.values
//! 948.6 (12, 2) / 948.8 (0.0 %). 384 threads (2026-12-06, the whole sort of 10^8 on both
//! GPUs, `radix.rs`) took keys4 and keys8 forward by 4–7 % and 2–4 % and lost for
//! `argsort`.
//!
//! After the ranking's instructions were cut (`radix.rs`, 2026-12-06), on an H100: `cuprum
//! tune --family sort` (µs of each problem, winner / first candidate, margin) keys4 (20, 4,
//! 384) 289.3 / 290.0 (0.2 %), keys4.values (10, 3, 384) 406.0 / 418.7 (1.9 %), keys8 (12,
//! 3, 256) 630.8 / 643.6 (0.5 %), keys8.values (12, 2, 256) 882.3 / 883.8 (0.2 %). The
//! whole sort of 10^8 in the bench, one run with the built-in choices and one with those
//! stored (CuPy's time in the same run): float32 2528 / 2511 (CuPy 2743 / 2675), uint32
//! 2558 / 2486 (2651 / 2589), float64 at (16, 2, 256) 6790 against (12, 3, 256) 7155
//! (7080 / 6955), float32 `argsort` at (16, 4, 256) 3986 against (10, 3, 384) 4069. The
//! problems' margins are within noise or, for 8-byte keys, point the wrong way at full
//! size (a 2^23-key problem has 16 times fewer tiles to look back over), so the built-in
//! choices are the full-size ones: keys8 moved from (10, 2, 384), which the new ranking's
//! 64 registers left at two blocks of 384 threads an SM (7980 µs), to (16, 2, 256). The
//! H200 takes the same shapes (not measured since: no H200 was lent).

use super::programs::program_options;
use super::radix::{SortMode, Tiling, WIDE_TILING, program_key, run, sort_source_with};
use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::Result;
use crate::runtime::Device;
use crate::tune::{Family, Params, Runner, with_choice};

/// Keys of up to 4 bytes sorted alone (`sort` of float32, int32, …).
pub(crate) static SORT_KEYS4: Family = Family {
    name: "sort.keys4",
    about: "radix sort passes, keys of up to 4 bytes (float32 sort): a tile is threads x items",
    params: ["items", "blocks/SM", "threads"],
    candidates: &[
        [20, 3, 384],
        [16, 4, 256],
        [18, 3, 384],
        [22, 3, 384],
        [20, 4, 384],
        [16, 5, 256],
        [20, 4, 256],
        [24, 3, 256],
        [32, 2, 256],
    ],
    built_in: &[("H100", [20, 3, 384]), ("H200", [20, 3, 384])],
    problem: || problem(DType::F32, SortMode::Sort, &SORT_KEYS4),
    programs: |p| programs(DType::F32, SortMode::Sort, p),
};

/// Keys of up to 4 bytes with 4-byte values (`argsort`, `sort_by_key`, rows).
pub(crate) static SORT_KEYS4_VALUES: Family = Family {
    name: "sort.keys4.values",
    about: "radix sort passes, keys of up to 4 bytes carrying 4-byte values (float32 argsort)",
    params: ["items", "blocks/SM", "threads"],
    candidates: &[
        [16, 4, 256],
        [16, 3, 256],
        [12, 4, 256],
        [10, 3, 384],
        [16, 5, 256],
        [12, 5, 256],
        [18, 3, 256],
        [8, 6, 256],
    ],
    built_in: &[("H100", [16, 4, 256]), ("H200", [16, 4, 256])],
    problem: || problem(DType::F32, SortMode::ArgSort, &SORT_KEYS4_VALUES),
    programs: |p| programs(DType::F32, SortMode::ArgSort, p),
};

/// 8-byte keys sorted alone (`sort` of float64, int64, complex64).
pub(crate) static SORT_KEYS8: Family = Family {
    name: "sort.keys8",
    about: "radix sort passes, 8-byte keys (float64 sort)",
    params: ["items", "blocks/SM", "threads"],
    candidates: &[
        [16, 2, 256],
        [10, 2, 384],
        [16, 3, 256],
        [10, 3, 384],
        [12, 2, 256],
        [12, 3, 256],
        [14, 2, 256],
        [18, 2, 256],
        [8, 4, 256],
    ],
    built_in: &[("H100", [16, 2, 256]), ("H200", [16, 2, 256])],
    problem: || problem(DType::F64, SortMode::Sort, &SORT_KEYS8),
    programs: |p| programs(DType::F64, SortMode::Sort, p),
};

/// 8-byte keys with 4-byte values.
pub(crate) static SORT_KEYS8_VALUES: Family = Family {
    name: "sort.keys8.values",
    about: "radix sort passes, 8-byte keys carrying 4-byte values (float64 argsort)",
    params: ["items", "blocks/SM", "threads"],
    candidates: &[
        [12, 1, 256],
        [12, 2, 256],
        [8, 1, 256],
        [8, 2, 256],
        [6, 2, 384],
        [10, 2, 256],
    ],
    built_in: &[("H100", [12, 1, 256]), ("H200", [12, 1, 256])],
    problem: || problem(DType::F64, SortMode::ArgSort, &SORT_KEYS8_VALUES),
    programs: |p| programs(DType::F64, SortMode::ArgSort, p),
};

/// The sort's families, in the order `cuprum tune` measures them.
pub(crate) static FAMILIES: [&Family; 4] = [
    &SORT_KEYS4,
    &SORT_KEYS4_VALUES,
    &SORT_KEYS8,
    &SORT_KEYS8_VALUES,
];

/// The tiling of the passes over `key_bytes`-byte keys (`values`: carrying 4-byte values)
/// on `device`: its family's choice (`crate::tune`; the first use on an unmeasured GPU
/// model may measure), one shape for 16-byte keys.
pub(crate) fn tiling(device: Device, key_bytes: usize, values: bool) -> Result<Tiling> {
    match family(key_bytes, values) {
        Some(f) => crate::tune::choose(device, f).map(Tiling::of),
        None => Ok(WIDE_TILING),
    }
}

/// The hand-picked tiling of `key_bytes`-byte keys (the families' first candidates), for
/// sources written without a device (the NVRTC checks, inspection).
pub(crate) fn first_tiling(key_bytes: usize, values: bool) -> Tiling {
    family(key_bytes, values).map_or(WIDE_TILING, |f| Tiling::of(f.candidates[0]))
}

/// The family that shapes the passes over `key_bytes`-byte keys (`values`: carrying
/// values); `None` for 16-byte keys (one shape).
pub(crate) fn family(key_bytes: usize, values: bool) -> Option<&'static Family> {
    match (key_bytes, values) {
        (0..=4, false) => Some(&SORT_KEYS4),
        (0..=4, true) => Some(&SORT_KEYS4_VALUES),
        (5..=8, false) => Some(&SORT_KEYS8),
        (5..=8, true) => Some(&SORT_KEYS8_VALUES),
        _ => None,
    }
}

/// Keys a family's problem sorts.
const PROBLEM_N: usize = 1 << 23;

/// The program candidate `p` compiles (the sort's program of the problem's dtype and mode
/// with that tiling, as the sort names it), for the measurement to compile every candidate
/// on all cores before the first one runs.
fn programs(d: DType, mode: SortMode, p: Params) -> Vec<(String, CompileOptions)> {
    let t = Tiling::of(p);
    let Ok(source) = sort_source_with(d, mode, t) else {
        return Vec::new();
    };
    vec![(source, program_options(&program_key(d, mode, t)))]
}

/// A family's problem: `PROBLEM_N` scattered keys of `d` (`tune_inputs.rs`), sorted (or argsorted) by the
/// radix sort with the candidate pinned.
fn problem(d: DType, mode: SortMode, family: &'static Family) -> Result<Runner> {
    let x = super::tune_inputs::keys(PROBLEM_N, d)?;
    let out = match mode {
        SortMode::Sort => Array::empty(&[PROBLEM_N], d)?,
        _ => Array::empty(&[PROBLEM_N], DType::I64)?,
    };
    Ok(Box::new(move |p: Params| {
        with_choice(family.name, p, || {
            run(&x, mode, PROBLEM_N, &out, None, Tiling::of(p))
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_candidates_are_the_hand_picked_tiles() {
        assert_eq!(first_tiling(16, true), WIDE_TILING);
        assert_eq!(
            first_tiling(4, false),
            Tiling {
                items: 20,
                min_blocks: 3,
                threads: 384
            }
        );
        assert_eq!(first_tiling(8, true).items, 12);
        assert!(family(16, false).is_none());
    }
}
