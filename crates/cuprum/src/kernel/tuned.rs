//! The kernel families tuned per device (`crate::tune` chooses, measures and stores): the
//! scan engine's shapes, one family per kernel and accumulator size. Each family's first
//! candidate is the shape hand-picked on an H100 (the measurements are in each family's
//! doc); the built-in choices are what `cuprum tune` measured on the GPUs listed: the
//! winner where it beat the first candidate by more than 2 %, else the first candidate
//! (closer than run-to-run noise). H200, one run, µs of each family's problem, winner /
//! first candidate: tile.4 102.9 / 102.9, tile.8 123.8 / 123.8, seg.4 130.1 (24, 4) /
//! 134.9, seg.8 145.1 (8, 4) / 166.0, rows.4 75.4 (8, 4) / 75.9, rows.8 80.8 / 80.8,
//! axis.4 100.7 / 100.7, axis.8 85.4 (16) / 96.1. H100, `cuprum tune` of every family again
//! (2026-12-06, one run): each built-in choice won or was within 2 % of the winner except
//! tile.4 (prefetch 128: 112.4 against 116.8 µs) and tile.8 ((12, 4): 119.1 against
//! 124.7); the whole bench with those stored choices ran `cumsum` of 1e8 float32 / float64
//! in 299.8 / 597.8 µs, the run before with the built-in ones 296.9 / 594.4 — the families'
//! problems' margins are run-to-run noise at full size, so the built-in choices stay.
//!
//! A family's problem runs a float sum on the scan engine (which `cumsum` and every
//! `ScanKernel` share) with its candidate pinned and the class's other families pinned to
//! their first candidates, so one family is measured at a time and measuring never nests.
//!
//! Every candidate is a valid shape for every dtype: items per thread are multiples of 4
//! (the widest vector load of a scan's input), so any candidate may be chosen. The tests
//! (`tests/tuning.rs`) run each candidate of each family against a CPU reference.
//!
//! 16-byte accumulators (complex128, a `ScanKernel`'s own types) keep one shape: tiles of
//! 8 items, rows of 4, 8 axis positions, registers unbounded.

use super::codegen::prelude::PRELUDE;
use super::codegen::scan::{self, ScanDefs, ScanShape};
use super::program::Program;
use super::scan_engine::{Engine, scan_into};
use crate::array::{Array, DType};
use crate::compile::CompileOptions;
use crate::error::Result;
use crate::runtime::Device;
use crate::tune::{self, Family, Params, Runner, with_choice};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A tile family's third value below this is the stage count of the persistent kernel
/// (`cuprum_scan_pv`: a ring of shared-memory stages filled by asynchronous copies, as many
/// blocks as the GPU holds, each scanning tile after tile), at or above it the L2 prefetch
/// distance of the one-tile-a-block kernel (a distance below 8 tiles would prefetch
/// nothing the resident tiles do not already read).
pub(crate) const STAGED_BELOW: u32 = 8;

/// 1-D scans, 4-byte accumulators.
///
/// A tile's inclusive prefix is known only after the look-back has reached one published
/// before it, so fewer, larger tiles shorten that chain, while more resident blocks keep
/// more loads in flight behind the waits (`ncu`, H100, float32 `cumsum` of 1e8 before the
/// prefetch: 75 registers, 3 blocks per SM, warps stalled at the barrier behind the
/// look-back 58 % of the time). With the L2 prefetch the balance moved; measured in two
/// runs on an H100 (30 repeats, medians), float32 1e8 elements / rows of (10000, 10000) as
/// segments, (items, blocks): (32, 3) 363 / 444 µs, (32, 4) 334–340 / 450–460, (28, 4) 355
/// / 431, (36, 4) 347 / 492, (40, 4) 340 / 582, (24, 4) 352 / 424, (20, 5) 358 / 438, (16,
/// 5) 387 / 414, (16, 6) 367 / 429, (32, 5) 357 / 611, (40, 2) 386 / 474.
///
/// The prefetch: as a tile starts it asks L2 for the input of the tile `prefetch` after it,
/// so the reads of later tiles stay in flight while blocks wait at the look-back barrier;
/// about a sixth of the tiles resident at once (3–4 blocks on each of 132 SMs), so the
/// data arrives shortly before its tile starts and 2 MiB of L2 hold it. H100, distance 0 /
/// 32 / 64 / 128 / 192 / 256: `cumsum` of 1e8 float32 398 / 360 / 356 / 362 / 364 / 384
/// µs; the rows of a (10000, 10000) `cumsum` as segments 452 / 433 / 441 / 455 / 475 /
/// 494; at 512 and 1024 every row was slower than none (the tiles leave L2 before their
/// turn).
///
/// Why the 1-D scans stay below 85 % of the copy (`ncu`, H100, `cuprum_scan_v`): float32:
/// DRAM throughput 73 % of peak, 64 registers, 4 blocks per SM (the registers' limit),
/// achieved occupancy 48 %; a warp issues every 36.5 cycles, 65 % of which it waits at a
/// block barrier; a ScanKernel's running maximum: DRAM 70 %, 61 % at the barrier. A tile's
/// warps wait for its look-back warp and for the slowest warp's loads, and cannot start the
/// next tile's loads meanwhile; bigger tiles and more blocks trade one against the other.
/// What CUB does to reach 88 % is a warp-specialised persistent scan (loads by TMA into a
/// ring of shared-memory stages, a look-back warp running ahead of the scanning warps).
///
/// H200, 2026-12-04 (float32 `cumsum` of 1e8, outside the library, one run): the packed
/// word read and written relaxed instead of acquire / release, 262 → 247 µs at (32, 4)
/// (76.6 % of the copy; (24, 5) and (28, 4) the same); with the look-back removed, 229:
/// loading a tile, scanning it and writing it in turn, a block has nothing in flight while
/// it scans and looks back. The candidates with a third value below [`STAGED_BELOW`] run
/// the persistent kernel instead, whose next tiles' loads are in flight meanwhile (items,
/// blocks, stages; shared memory 1 KiB × items × stages a block). Measured by `cuprum tune`
/// on an H100 (2026-12-05, the family's problem): 467–811 µs against 110 for the tile
/// kernel's candidates (float64: 601–875 against 114) — its blocks wait on one another's
/// look-back tile after tile with nothing else to run, so it loses; the candidates stay so
/// that another GPU may measure them.
pub(crate) static SCAN_TILE_4: Family = Family {
    name: "scan.tile.4",
    about: "1-D scans, 4-byte accumulators (float32 cumsum): a tile is 256 x items",
    params: ["items", "blocks/SM", "prefetch|stages"],
    candidates: &[
        [32, 4, 64],
        [24, 4, 64],
        [28, 4, 64],
        [40, 4, 64],
        [32, 3, 64],
        [24, 5, 64],
        [16, 6, 64],
        [32, 4, 32],
        [32, 4, 128],
        [32, 4, 256],
        [16, 4, 2],
        [16, 4, 3],
        [16, 6, 2],
        [24, 3, 2],
        [32, 3, 2],
        [8, 8, 3],
    ],
    built_in: &[("H100", [32, 4, 64]), ("H200", [32, 4, 64])],
    problem: || problem(DType::F32, &[1 << 25], None, &SCAN_TILE_4, &SCAN_4),
    programs: |p| programs(DType::F32, &SCAN_TILE_4, &SCAN_4, p),
};

/// 1-D scans, 8-byte accumulators (float64, every integer scan into 64 bits, complex64).
/// One run on an H100 with the segment flag compiled out of 1-D scans, float64 / int32 →
/// int64 of 1e8, (items, blocks): (8, 1) 980 / 1091 µs, (12, 3) 848 / 847, (16, 1) 858 /
/// 865, (16, 2) 860 / 866, (16, 3) 749 / 738, (20, 2) 806 / 774, (24, 2) 769 / 725, (32, 1)
/// 861 / 820 (PyTorch in the same kind of run: 738 / 1176). `ncu`: float64 DRAM 63 %, 80
/// registers, 3 blocks, 65 % at the barrier; int32 → int64 DRAM 47 % with an L2 hit rate of
/// 78 % (the 4-byte input is read as 16-byte vectors into 8-byte accumulators).
///
/// H200, 2026-12-04, a kernel outside the library in one run (the tile scan of float64 /
/// int32 → int64 `cumsum`s of 1e8, µs): the statuses as a flag beside the values, (16, 3)
/// 627 / 648 — the same time for both, whose bytes differ by a quarter: the look-back's two
/// dependent loads a step (flag, then value) set the pace; 522 / 418 with the look-back
/// removed. Packed into one 16-byte pair read relaxed (`StatusPacked16`) and every row's
/// loads issued before any is used: (16, 3) 484 / 485, (24, 2) 475 / –, (24, 3) – / 435,
/// (32, 2) 487 / 469, (20, 2) 498 / –, (12, 4) 491 / –, (8, 6) 555 / 503. The third value
/// below [`STAGED_BELOW`]: the persistent kernel's stages, as in [`SCAN_TILE_4`] (not yet
/// measured).
pub(crate) static SCAN_TILE_8: Family = Family {
    name: "scan.tile.8",
    about: "1-D scans, 8-byte accumulators (float64, integers into 64 bits)",
    params: ["items", "blocks/SM", "prefetch|stages"],
    candidates: &[
        [16, 3, 64],
        [12, 3, 64],
        [20, 2, 64],
        [24, 2, 64],
        [12, 4, 64],
        [16, 2, 64],
        [16, 3, 32],
        [16, 3, 128],
        [8, 4, 2],
        [12, 3, 2],
        [16, 3, 2],
        [8, 6, 3],
    ],
    built_in: &[("H100", [16, 3, 64]), ("H200", [24, 2, 64])],
    problem: || problem(DType::F64, &[1 << 24], None, &SCAN_TILE_8, &SCAN_8),
    programs: |p| programs(DType::F64, &SCAN_TILE_8, &SCAN_8, p),
};

/// 1-D scans of inputs of 4 bytes or less into 8-byte accumulators (`cumsum` of int32,
/// int16, int8, bool into int64): the tile scan's shape, and (third value, bit 0) whether a
/// thread keeps its raw inputs instead of its 8-byte prefixes while the tile looks back
/// (`ScanShape::raw`), half the registers those take. `ncu` on an H100 (int32 → int64 of
/// 1e8 at (16, 3)): 78 registers, 36 % occupancy, DRAM 63 % and the SM 21 % busy — latency
/// bound with a third of the warps resident that a float32 tile has. The first candidates
/// are what the 8-byte tile family runs on the H100 and the H200 (the prefetch distance 64
/// throughout). H100 (2026-12-06, `cuprum tune` on 2^24 int32): raw inputs at (16, 4)
/// 110.6 µs against 111.6 for (16, 3) without them; the whole `cumsum100M_i32` row in one
/// run 564.5 → 539.3 µs (70.9 → 74.2 % of copy), still below the 85 %.
///
/// The third value's bit 1 takes vectors of the accumulator's width (`ScanShape::acc_vec`):
/// a lane's 16-byte loads of int32 leave it two 16-byte stores of int64 32 bytes apart,
/// each writing half of every sector it touches; with 8-byte loads each store is one
/// coalesced 16-byte vector. H100 (2026-12-06, `cuprum tune` on 2^24 int32, µs): (20, 3,
/// 3) 91.3, (16, 4, 3) 91.5, (32, 2, 3) 97.2, (16, 3, 2) 97.4, (24, 3, 3) 100.0, (16, 5,
/// 3) 119.6, against 112.4 for (16, 4, 1) and 113.2 for the first; the whole
/// `cumsum100M_i32` row in one run 551.0 → 462.4 µs (72.9 → 86.1 % of the copy; `ncu`:
/// DRAM 79.7 % busy, 80 registers, 3 blocks an SM).
/// The H200 takes the H100's choice until an H200 measures the family (the stores' halves
/// are the same on both).
pub(crate) static SCAN_TILE_8N: Family = Family {
    name: "scan.tile.8n",
    about: "1-D scans of inputs of 4 bytes or less into 8-byte accumulators (int32 cumsum)",
    params: ["items", "blocks/SM", "raw | acc vec"],
    candidates: &[
        [16, 3, 0],
        [24, 2, 0],
        [16, 3, 1],
        [16, 4, 1],
        [24, 3, 1],
        [24, 2, 1],
        [32, 2, 1],
        [32, 3, 1],
        [20, 3, 1],
        [12, 4, 1],
        [16, 5, 1],
        [8, 6, 1],
        [16, 4, 3],
        [16, 3, 2],
        [24, 3, 3],
        [32, 2, 3],
        [16, 5, 3],
        [20, 3, 3],
    ],
    built_in: &[("H100", [20, 3, 3]), ("H200", [20, 3, 3])],
    problem: || problem(DType::I32, &[1 << 24], None, &SCAN_TILE_8N, &SCAN_8N),
    programs: |p| programs(DType::I32, &SCAN_TILE_8N, &SCAN_8N, p),
};

/// Rows as segments of one tile scan (short or few rows), 4-byte accumulators: rows pay a
/// modulo and a flag per element and lose more to spills, so they take smaller tiles than
/// 1-D scans (the H100 measurements: [`SCAN_TILE_4`]).
pub(crate) static SCAN_SEG_4: Family = Family {
    name: "scan.seg.4",
    about: "rows as segments, 4-byte accumulators",
    params: ["items", "blocks/SM", ""],
    candidates: &[
        [16, 5, 0],
        [16, 6, 0],
        [20, 5, 0],
        [24, 4, 0],
        [12, 6, 0],
        [8, 8, 0],
    ],
    // H100: `cuprum tune` (2026-12-05): 116.3 µs against 125.8 for the first candidate
    built_in: &[("H100", [24, 4, 0]), ("H200", [24, 4, 0])],
    problem: || problem(DType::F32, &[1 << 17, 256], Some(1), &SCAN_SEG_4, &SCAN_4),
    programs: |p| programs(DType::F32, &SCAN_SEG_4, &SCAN_4, p),
};

/// Rows as segments, 8-byte accumulators (hand-picked: 8 items, unbounded; not measured
/// before tuning).
pub(crate) static SCAN_SEG_8: Family = Family {
    name: "scan.seg.8",
    about: "rows as segments, 8-byte accumulators",
    params: ["items", "blocks/SM", ""],
    candidates: &[
        [8, 1, 0],
        [8, 3, 0],
        [8, 4, 0],
        [12, 3, 0],
        [16, 2, 0],
        [4, 6, 0],
    ],
    // H100: `cuprum tune` (2.5 % ahead of the runner-up; 129 µs against 146 for the first)
    built_in: &[("H100", [12, 3, 0]), ("H200", [8, 4, 0])],
    problem: || problem(DType::F64, &[1 << 16, 256], Some(1), &SCAN_SEG_8, &SCAN_8),
    programs: |p| programs(DType::F64, &SCAN_SEG_8, &SCAN_8, p),
};

/// The rows kernel (a block per row, chunk after chunk with a running carry), 4-byte
/// accumulators: the SM's other blocks are what keeps memory busy. One run on an H100
/// (`cumsum` along the rows of (10000, 10000), 15 repeats, medians), (items, blocks): (8,
/// 6) 286 µs, (8, 8) 289, (8, 10) 288, (4, 12) 290, (4, 8) 292, (16, 4) 333. An L2 prefetch
/// of the chunk 1, 2 or 4 ahead made the rows slower: 322, 352 and 312 µs against 291.
/// With the kernels of 2026-12-05 `cuprum tune` on an H100 chose (16, 4): 96.7 µs against
/// 100.6 for (8, 6) on the family's problem, and the bench's float32 (10000, 10000) rows
/// 279 µs against 282 (two runs each).
pub(crate) static SCAN_ROWS_4: Family = Family {
    name: "scan.rows.4",
    about: "the rows kernel (a block per row), 4-byte accumulators",
    params: ["items", "blocks/SM", ""],
    candidates: &[
        [8, 6, 0],
        [8, 8, 0],
        [4, 12, 0],
        [8, 4, 0],
        [12, 5, 0],
        [16, 4, 0],
    ],
    built_in: &[("H100", [16, 4, 0]), ("H200", [8, 6, 0])],
    problem: || problem(DType::F32, &[4096, 8192], Some(1), &SCAN_ROWS_4, &SCAN_4),
    programs: |p| programs(DType::F32, &SCAN_ROWS_4, &SCAN_4, p),
};

/// The rows kernel, 8-byte accumulators. H100, float64 (10000, 10000): (4, 12) 584, (4, 6)
/// 585, (4, 8) 588, (8, 4) 633, (8, 6) 690, (8, 3) 699, (16, 2) 846, (8, 8) 905. With the
/// kernels of 2026-12-05 `cuprum tune` on an H100 chose (8, 4): 96.9 µs against 102.0 for
/// (4, 8), and the bench's float64 (10000, 10000) rows 557 µs against 569 (two runs each).
pub(crate) static SCAN_ROWS_8: Family = Family {
    name: "scan.rows.8",
    about: "the rows kernel (a block per row), 8-byte accumulators",
    params: ["items", "blocks/SM", ""],
    candidates: &[[4, 8, 0], [4, 12, 0], [4, 6, 0], [8, 4, 0], [8, 3, 0]],
    built_in: &[("H100", [8, 4, 0]), ("H200", [4, 8, 0])],
    problem: || problem(DType::F64, &[4096, 4096], Some(1), &SCAN_ROWS_8, &SCAN_8),
    programs: |p| programs(DType::F64, &SCAN_ROWS_8, &SCAN_8, p),
};

/// The axis kernel (32 columns × 8 · positions a tile), 4-byte accumulators. H100, float32
/// (10000, 10000) axis 0, positions per thread: 8 → 369 µs, 12 → 338, 16 → 324, 24 → 345,
/// 32 → 368.
pub(crate) static SCAN_AXIS_4: Family = Family {
    name: "scan.axis.4",
    about: "scans along a leading axis (32 columns a tile), 4-byte accumulators",
    params: ["positions", "", ""],
    candidates: &[[16, 0, 0], [12, 0, 0], [8, 0, 0], [24, 0, 0], [32, 0, 0]],
    built_in: &[("H100", [16, 0, 0]), ("H200", [16, 0, 0])],
    problem: || problem(DType::F32, &[4096, 8192], Some(0), &SCAN_AXIS_4, &SCAN_4),
    programs: |p| programs(DType::F32, &SCAN_AXIS_4, &SCAN_4, p),
};

/// The axis kernel, 8-byte accumulators (hand-picked: 8 positions).
pub(crate) static SCAN_AXIS_8: Family = Family {
    name: "scan.axis.8",
    about: "scans along a leading axis (32 columns a tile), 8-byte accumulators",
    params: ["positions", "", ""],
    candidates: &[[8, 0, 0], [4, 0, 0], [12, 0, 0], [16, 0, 0]],
    // H100: `cuprum tune` (2.1 % ahead of the runner-up)
    built_in: &[("H100", [16, 0, 0]), ("H200", [16, 0, 0])],
    problem: || problem(DType::F64, &[4096, 4096], Some(0), &SCAN_AXIS_8, &SCAN_8),
    programs: |p| programs(DType::F64, &SCAN_AXIS_8, &SCAN_8, p),
};

/// One accumulator size's families: tile, segments, rows, axis.
type Class = [&'static Family; 4];

static SCAN_4: Class = [&SCAN_TILE_4, &SCAN_SEG_4, &SCAN_ROWS_4, &SCAN_AXIS_4];
static SCAN_8: Class = [&SCAN_TILE_8, &SCAN_SEG_8, &SCAN_ROWS_8, &SCAN_AXIS_8];
/// Narrow inputs into 8-byte accumulators: their own tile family, the 8-byte others.
static SCAN_8N: Class = [&SCAN_TILE_8N, &SCAN_SEG_8, &SCAN_ROWS_8, &SCAN_AXIS_8];

/// The scan engine's families, in the order `cuprum tune` measures them
/// (`crate::tuning` lists every tuned family).
pub(crate) static FAMILIES: [&Family; 9] = [
    &SCAN_TILE_4,
    &SCAN_TILE_8,
    &SCAN_TILE_8N,
    &SCAN_SEG_4,
    &SCAN_SEG_8,
    &SCAN_ROWS_4,
    &SCAN_ROWS_8,
    &SCAN_AXIS_4,
    &SCAN_AXIS_8,
];

/// The families of an accumulator of `acc` bytes (none past 8) over inputs of `input`
/// bytes.
fn class_of(acc: usize, input: usize) -> Option<&'static Class> {
    match acc {
        0..=4 => Some(&SCAN_4),
        5..=8 if input <= 4 => Some(&SCAN_8N),
        5..=8 => Some(&SCAN_8),
        _ => None,
    }
}

/// The one shape of 16-byte accumulators.
const WIDE: ScanShape = ScanShape {
    ipt: 8,
    minb: 1,
    pf: 64,
    stages: 0,
    raw: false,
    acc_vec: false,
    sipt: 8,
    sminb: 1,
    ript: 4,
    rminb: 4,
    axipt: 8,
};

/// The prefetch distance of the narrow-input tile family ([`SCAN_TILE_8N`]), whose third
/// value says whether raw inputs are kept and the vectors take the accumulator's width.
const NARROW_PF: u32 = 64;

fn shape_of(class: &Class, c: [Params; 4]) -> ScanShape {
    let [t, s, r, a] = c;
    // A tile family's third value: the L2 prefetch distance of the one-tile-a-block
    // kernel, or (below `STAGED_BELOW`) the stages of the persistent kernel; for narrow
    // inputs whether raw inputs are kept (bit 0) and the vectors the accumulator's
    // width (bit 1).
    let narrow = std::ptr::eq(class, &SCAN_8N);
    let (pf, stages, raw, acc_vec) = if narrow {
        (NARROW_PF, 0, t[2] & 1 != 0, t[2] & 2 != 0)
    } else if t[2] < STAGED_BELOW {
        (0, t[2], false, false)
    } else {
        (t[2], 0, false, false)
    };
    ScanShape {
        ipt: t[0],
        minb: t[1],
        pf,
        stages,
        raw,
        acc_vec,
        sipt: s[0],
        sminb: s[1],
        ript: r[0],
        rminb: r[1],
        axipt: a[0],
    }
}

/// The scan shape `device` runs for an accumulator of `acc` bytes over inputs of `input`
/// bytes (a `ScanKernel`'s: `acc`; chosen per family by `crate::tune`; the first use on an
/// unmeasured GPU model may measure).
pub(crate) fn scan_shape(device: Device, acc: usize, input: usize) -> Result<ScanShape> {
    let Some(class) = class_of(acc, input) else {
        return Ok(WIDE);
    };
    let mut c = [[0; 3]; 4];
    for (p, f) in c.iter_mut().zip(class) {
        *p = tune::choose(device, f)?;
    }
    Ok(shape_of(class, c))
}

/// The hand-picked scan shape (each family's first candidate), for sources written
/// without a device (the NVRTC checks, inspection).
pub(crate) fn first_scan_shape(acc: usize, input: usize) -> ScanShape {
    match class_of(acc, input) {
        Some(class) => shape_of(class, class.map(|f| f.candidates[0])),
        None => WIDE,
    }
}

/// Runs `f` with `target` pinned to `params` and `class`'s other families to their first
/// candidates.
fn pinned<R>(class: &Class, target: &Family, params: Params, f: impl FnOnce() -> R) -> R {
    let pins: Vec<(&str, Params)> = class
        .iter()
        .map(|fam| {
            if fam.name == target.name {
                (fam.name, params)
            } else {
                (fam.name, fam.candidates[0])
            }
        })
        .collect();
    let run = pins
        .iter()
        .fold(Box::new(f) as Box<dyn FnOnce() -> R>, |inner, &(n, p)| {
            Box::new(move || with_choice(n, p, inner))
        });
    run()
}

/// The scan shape a candidate `p` of `target` runs: `p` for `target`, the first candidate
/// for the other families of its class (what [`pinned`] sets while it runs).
fn pinned_shape(class: &Class, target: &Family, p: Params) -> ScanShape {
    shape_of(
        class,
        class.map(|f| {
            if f.name == target.name {
                p
            } else {
                f.candidates[0]
            }
        }),
    )
}

/// The program of a scan family's problem for `shape`: its source and options.
fn program(dtype: DType, shape: ScanShape) -> (String, CompileOptions) {
    let opts = CompileOptions::new().program_name("cuprum_tune_scan.cu");
    (sum_source(dtype, shape), opts)
}

/// The programs candidate `p` of `target` compiles (one: its problem's scan program), for
/// the measurement to compile every candidate on all cores before the first one runs.
fn programs(
    dtype: DType,
    target: &'static Family,
    class: &'static Class,
    p: Params,
) -> Vec<(String, CompileOptions)> {
    vec![program(dtype, pinned_shape(class, target, p))]
}

/// What a family's problem sums `dtype` into: itself (a float), or int64 (an integer,
/// as `cumsum` does).
fn sum_dtype(dtype: DType) -> DType {
    if dtype.is_integer() {
        DType::I64
    } else {
        dtype
    }
}

/// A family's problem: the sum of `shape` elements of `dtype` (into [`sum_dtype`]) along
/// `axis`, on the scan engine as `cumsum` runs it, one program per shape.
fn problem(
    dtype: DType,
    shape: &'static [usize],
    axis: Option<isize>,
    target: &'static Family,
    class: &'static Class,
) -> Result<Runner> {
    let x = Array::ones(shape, dtype)?;
    let out = sum_dtype(dtype);
    let acc = out.itemsize();
    let mut programs: FxHashMap<ScanShape, Arc<Program>> = FxHashMap::default();
    Ok(Box::new(move |p: Params| {
        pinned(class, target, p, || {
            let shape = scan_shape(x.device(), acc, dtype.itemsize())?;
            let prog = programs
                .entry(shape)
                .or_insert_with(|| {
                    let (source, opts) = program(dtype, shape);
                    Arc::new(Program::new(source, opts))
                })
                .clone();
            let engine = |_wide: bool| Engine {
                prog: prog.clone(),
                acc,
                vec: shape.vec(dtype.itemsize(), acc),
                values: Vec::new(),
                shape,
                staged: true,
            };
            scan_into(std::slice::from_ref(&x), out, axis, None, &engine).map(drop)
        })
    }))
}

/// The scan program of a sum of `dtype` into [`sum_dtype`] (32-bit indices) with the
/// kernels' `shape`.
fn sum_source(dtype: DType, shape: ScanShape) -> String {
    let (t, out) = (dtype.c_type(), sum_dtype(dtype));
    let mut s = String::from(PRELUDE);
    s.push_str(&scan::defs(&ScanDefs {
        tin: t,
        acc: out.c_type(),
        tout: out.c_type(),
        wide: false,
        op: "((a) + (b))",
        load: "A(x)",
        ident: "A(0)",
        out: "a",
        exclusive: false,
        vec: shape.vec(dtype.itemsize(), out.itemsize()),
        acc_bytes: out.itemsize(),
        assert_acc: false,
        shape,
    }));
    s.push_str(scan::ONE_INPUT);
    s.push_str(scan::BODY);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_fits_every_vector_width() {
        for f in FAMILIES {
            assert!(!f.candidates.is_empty(), "{}", f.name);
            for c in f.candidates {
                if f.params[0] == "items" {
                    assert_eq!(c[0] % 4, 0, "{} {c:?}", f.name);
                }
                assert!(c[0] > 0, "{} {c:?}", f.name);
            }
            for (_, b) in f.built_in {
                assert!(f.candidates.contains(b), "{}: built-in {b:?}", f.name);
            }
            let unique: std::collections::HashSet<_> = f.candidates.iter().collect();
            assert_eq!(unique.len(), f.candidates.len(), "{}", f.name);
        }
    }

    #[test]
    fn the_first_shapes_are_the_hand_picked_ones() {
        let s = first_scan_shape(4, 4);
        assert_eq!((s.ipt, s.minb, s.pf, s.sipt, s.sminb), (32, 4, 64, 16, 5));
        assert_eq!((s.ript, s.rminb, s.axipt), (8, 6, 16));
        let s = first_scan_shape(8, 8);
        assert_eq!((s.ipt, s.minb, s.sipt, s.ript, s.axipt), (16, 3, 8, 4, 8));
        assert_eq!(first_scan_shape(16, 16), WIDE);
        // narrow inputs: the 8-byte shape, raw inputs not kept, until a GPU measures them
        assert_eq!(first_scan_shape(8, 4), first_scan_shape(8, 8));
        assert!(!first_scan_shape(8, 1).raw);
    }

    #[test]
    fn narrow_inputs_keep_raw_inputs_by_the_third_value() {
        let c = |t: Params| shape_of(&SCAN_8N, [t, [8, 1, 0], [4, 8, 0], [8, 0, 0]]);
        assert_eq!(
            (c([16, 4, 1]).raw, c([16, 4, 1]).pf, c([16, 4, 1]).stages),
            (true, 64, 0)
        );
        assert!(!c([16, 3, 0]).raw);
        assert!(SCAN_TILE_8N.candidates.iter().filter(|c| c[2] == 1).count() >= 6);
        // bit 1: vectors of the accumulator's width (int32 into int64: 2 elements, not 4)
        let (v, r) = (c([16, 4, 3]), c([16, 3, 2]));
        assert_eq!(
            (v.raw, v.acc_vec, r.raw, r.acc_vec),
            (true, true, false, true)
        );
        assert_eq!(
            (v.vec(4, 8), c([16, 4, 1]).vec(4, 8), v.vec(1, 8)),
            (2, 4, 2)
        );
        assert!(!first_scan_shape(8, 8).acc_vec && !first_scan_shape(4, 4).acc_vec);
        // the built-in choices are candidates, and keep raw inputs with vectors of the
        // accumulator's width (measured on the H100)
        for (gpu, b) in SCAN_TILE_8N.built_in {
            assert!(SCAN_TILE_8N.candidates.contains(b), "{gpu}");
            assert_eq!(b[2], 3, "{gpu}");
        }
    }

    /// What a candidate's problem compiles (the shape `scan_shape` gives under the pins) is
    /// what `programs` compiles ahead of it, so the ahead-of-time compiles are the ones the
    /// runs then find in the kernel cache.
    #[test]
    fn each_candidates_programs_are_the_ones_its_run_compiles() {
        for (class, dtype) in [
            (&SCAN_4, DType::F32),
            (&SCAN_8, DType::F64),
            (&SCAN_8N, DType::I32),
        ] {
            let (acc, input) = (sum_dtype(dtype).itemsize(), dtype.itemsize());
            // (the narrow class shares the 8-byte class's families but its tiles')
            let own = |t: &&&Family| !std::ptr::eq(class, &SCAN_8N) || t.name == SCAN_TILE_8N.name;
            for target in class.iter().filter(own) {
                for &p in target.candidates {
                    let ran = pinned(class, target, p, || scan_shape(Device::host(), acc, input));
                    assert_eq!(
                        ran.unwrap(),
                        pinned_shape(class, target, p),
                        "{}",
                        target.name
                    );
                    let progs = (target.programs)(p);
                    assert_eq!(progs.len(), 1, "{}", target.name);
                    assert_eq!(
                        progs[0].0,
                        sum_source(dtype, pinned_shape(class, target, p))
                    );
                }
            }
        }
    }

    #[test]
    fn a_third_value_below_8_is_the_persistent_kernels_stages() {
        let c = |t: Params| shape_of(&SCAN_4, [t, [16, 5, 0], [8, 6, 0], [16, 0, 0]]);
        assert_eq!((c([16, 4, 2]).stages, c([16, 4, 2]).pf), (2, 0));
        assert_eq!((c([32, 4, 64]).stages, c([32, 4, 64]).pf), (0, 64));
        for f in [&SCAN_TILE_4, &SCAN_TILE_8] {
            let staged = f.candidates.iter().filter(|c| c[2] < STAGED_BELOW).count();
            assert!(staged >= 4, "{}: {staged} staged candidates", f.name);
            // The hand-picked (first) shape stays the one-tile-a-block kernel.
            assert!(f.candidates[0][2] >= STAGED_BELOW, "{}", f.name);
        }
    }

    #[test]
    fn the_host_device_keeps_the_first_shapes() {
        assert_eq!(
            scan_shape(Device::host(), 4, 4).unwrap(),
            first_scan_shape(4, 4)
        );
        let pinned = with_choice("scan.tile.4", [24, 4, 64], || {
            scan_shape(Device::host(), 4, 4).unwrap()
        });
        assert_eq!(pinned.ipt, 24);
    }
}
