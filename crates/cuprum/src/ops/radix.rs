//! The radix sort engine behind `sort`, `argsort`, `sort_by_key`, `unique` and the order
//! statistics (stable): an LSD radix sort with 8-bit digits on order-preserving keys, one
//! "onesweep" kernel per digit, in the tile shape its caller chose (`sort_tuned.rs`).
//!
//! Keys: the element's bits transformed so that unsigned order is NumPy's order — signed
//! integers flip the sign bit, floats flip the sign bit (positive) or every bit
//! (negative), every NaN becomes one canonical key above +inf (NaNs last, in input order
//! for `argsort`), and for `argsort` -0.0 becomes +0.0 (equal keys keep their order).
//!
//! Passes: one histogram kernel reads the input once and counts the digits of every pass;
//! a tiny kernel turns the counts into bucket offsets. Then one kernel per digit: a block
//! takes the next tile (atomic ticket), ranks its keys within each warp (8 ballots find the
//! lanes with the same digit; the highest of them adds their count to the warp's counter of
//! the digit in shared memory and shuffles the old value to them, and each adds the peers
//! below it: lanes in position order, so the pass is stable; this replaced a read, a write
//! and two warp barriers per key, H100 float64 sort of 1e8 10559 → 8890 µs, argsort of
//! float32 4699 → 4286, float32 sort 3074 → 3013), publishes its per-digit counts and
//! looks back over the predecessors' (one 32-bit status word per tile and digit: 2 flag
//! bits + a 30-bit count) for each digit's global offset, reorders the tile in shared
//! memory by digit and writes it out in runs. `argsort` carries 32-bit positions and
//! writes int64 on the last pass. Bytes per pass: keys (and positions) read once and
//! written once; the first pass reads the input and the last writes the result.
//!
//! Constant digits: the offsets kernel also marks each pass whose digit is the same for
//! every key (one bucket holds them all: the stable pass is the identity). Keys of a known
//! range are common — int64 keys below 2^16 leave six of eight passes so — and CUB's sort
//! runs them all. A marked pass between the first and the last does nothing when it pairs
//! with a marked neighbour (the buffers alternate, so after two skipped passes the keys lie
//! where the next pass reads them), and otherwise copies its tile in place (no ranking, no
//! look-back, at the copy's speed); a marked first or last pass copies too, as it also
//! transforms the keys. The pass kernels read the marks themselves, so the host never
//! waits for the histogram and the sort stays capturable in a CUDA graph. H100, one run
//! (2026-12-06, `sort100M_i64_below_1e4`: 10^8 int64 below 10^4, two ranking passes,
//! four skipped, two copies): 3427 µs against CuPy's 6267 and PyTorch's 10877; predicted
//! from the 8-byte passes' time (about 900 µs each) and two copies of 1.6 GB at the copy's
//! speed: 3350. The random keys of the other sort rows mark no pass and ran as before
//! (float32 2948 µs, 0.92 of CuPy's time).
//!
//! Rows of an n-d array sorted along the last axis are *segments*: after the key passes,
//! the positions (carried along) are sorted stably by their row, one pass per 8 bits of
//! the row number. Sizes up to 2^30 - 1 elements.
//!
//! Complex numbers sort as NumPy sorts them: lexicographically by real part, then
//! imaginary part, with the NaN-holding values last in four classes — `R + Rj` (no NaN),
//! `R + nanj` (by real part), `nan + Rj` (by imaginary part), `nan + nanj` (all equal) — and
//! -0.0 equal to 0.0 in either part. The key is one unsigned word of twice the part's width
//! (64 bits for complex64, 128 for complex128: a two-word struct whose digits the passes
//! pick by shift): the high half is the real part's float key and the low half the
//! imaginary part's, and the three NaN classes put a marker above every float key into the
//! high half (`~2`, `~1`, `~0`) and the one part that still orders them into the low half.
//! One key keeps the sort a single LSD radix sort (8 or 16 passes of one kernel each,
//! stable) instead of two argsorts with a gather between them (two full sorts of 64-bit
//! positions plus a gather and a compose per pass pair): the cheaper and simpler choice.
//! The key is not invertible (NaN payloads, -0.0), so complex `sort` is the stable
//! `argsort` followed by a gather of the values, which keeps every element exactly as it
//! was (NumPy prints the same values). 16-byte keys use 4 items per thread (shared
//! memory of a tile stays under 48 KiB).

use super::programs::{PRELUDE, Program, program, ptr_at, zeroed_scratch};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::kernel::DevicePtr;
use crate::runtime::Device;
use std::fmt::Write;
use std::sync::Arc;

/// What one radix sort produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SortMode {
    /// Sorted values of a 1-D array.
    Sort,
    /// Stable sorting permutation of a 1-D array (int64).
    ArgSort,
    /// Sorted values of each row of length `len`.
    SegSort,
    /// Stable sorting permutation of each row (int64 positions within the row).
    SegArgSort,
    /// Sorted keys of a 1-D array and, carried with them, 4-byte values (`sort_by_key`).
    ByKey,
}

impl SortMode {
    /// Every mode (the compile checks build each one's program).
    pub(crate) const ALL: [SortMode; 5] = [
        SortMode::Sort,
        SortMode::ArgSort,
        SortMode::SegSort,
        SortMode::SegArgSort,
        SortMode::ByKey,
    ];

    fn code(self) -> u8 {
        match self {
            SortMode::Sort => 0,
            SortMode::ArgSort => 1,
            SortMode::SegSort => 2,
            SortMode::SegArgSort => 3,
            SortMode::ByKey => 4,
        }
    }
    fn stable(self) -> bool {
        matches!(self, SortMode::ArgSort | SortMode::SegArgSort)
    }
    pub(crate) fn segmented(self) -> bool {
        matches!(self, SortMode::SegSort | SortMode::SegArgSort)
    }
}

/// Largest number of elements one sort takes (30-bit counts in the status words).
pub(crate) const MAX_SORT: usize = (1 << 30) - 1;
/// Row passes the histogram kernel makes room for (rows < 2^30 need at most 4).
const MAX_ROW_PASSES: usize = 4;

/// A pass kernel's tile: items per thread, the blocks per SM its registers are held to
/// (`__launch_bounds__`' second argument) and threads per block. `sort_tuned.rs` chooses
/// one per GPU among candidates measured there; the shapes below were hand-picked on an
/// H100 and are the tuned families' first candidates.
///
/// The passes are latency-bound: `ncu` on an H100 showed 4 blocks of 8 warps per SM (64
/// registers), half the warps the SM holds, and the ALU pipe 70 % busy. Measured in one
/// run on an H100 (`sort100M_f32`, the whole sort) with the ranking of the time: 16 items at
/// 1 block per SM's worth of registers 3927 µs, 16 items held to 5 blocks (48 registers, a
/// few spilled) 3036 µs, 20 items held to 4 blocks 3580, 20 held to 3 3956;
/// `argsort10M_f32` (keys and positions): 688 µs unbounded, 634 held to 4 blocks, 564 held
/// to 3. Fewer items (12) lost in every nvcc-built twin (more look-back per key).
///
/// Re-measured with the leader's `atomicAdd` ranking (H100, 2026-11-27, one run each, the
/// whole sort of 1e8, µs): float32 / uint32 keys (items, blocks) (16, 4) 2927 / 2919, (16,
/// 5) 3040 / 3039, (20, 5) 3189, (20, 4) 3374, (24, 3) 3906, (20, 3) 3970, (24, 2) 5098;
/// float32 `argsort` (4-byte keys and positions) (16, 4) 4172, (16, 3) 4292, (12, 4) 4534,
/// (12, 3) 4554 (20 items do not fit 48 KiB of shared memory with values); float64 `sort`
/// (16, 2) 7439, (16, 3) 7457, (16, 1) 7480, (12, 2) 7617, (8, 1) 8890 (10559 with the
/// ballot ranking); float64 `argsort` (12, 1) 10847, (12, 2) 10885, (8, 1) 12574, (8, 2)
/// 12596. 16-byte keys keep 4 items (not re-measured).
///
/// Measured and not taken (H100, 2026-11-27, one run each, the whole sort of 1e8):
/// `__match_any_sync` for a lane's peers instead of the 8 ballots, float32 3036 → 3633 µs,
/// uint32 3056 → 4030, float64 9587 → 10789 (argsort and `sort_by_key` unchanged): the
/// hardware's match is slower than the ballots on Hopper. An L2 prefetch of the tile 32 /
/// 64 / 128 ahead (what the scans gained 15 % from): float32 3072 → 3012 / 3018 / 3026,
/// argsort 4733 → 4484 / 4580 / 5028, `sort_by_key` 4726 → 4977 / 5048 / 5499: within
/// noise or worse; the passes are bound by the ranking, not the reads.
///
/// The block size as a parameter (2026-12-06, one run each on an H100 and an H200, the whole
/// sort of 10^8 random keys, µs, CuPy 14.2's `sort` in the same run): float32 (items,
/// blocks, threads) (16, 4, 256) 3034 (H100) / 2987 (H200), (20, 3, 384) 2827 / 2880,
/// (22, 3, 384) 2852 / 2833, (18, 3, 384) 2879, (16, 3, 384) 3029, (20, 4, 384) 2833 (40
/// registers, spills), (24, 3, 320) 2965, (16, 3, 448) 2973, (14, 2, 512) 2960, (12, 2,
/// 512) 3160 — CuPy 2677 / 2728; float64 (16, 2, 256) 7567 / 7281, (10, 2, 384) 7441 /
/// 7122, (10, 3, 384) 7536, (12, 2, 320) 7725, (8, 2, 448) 9213 — CuPy 6965 / 6759; float32
/// `argsort` (16, 4, 256) 3775 (H200), (10, 3, 384) 4005, (12, 4, 256) 4070, (12, 3, 320)
/// 4102, (8, 3, 384) 4342 — CuPy 4570–4662. A tile of 7680 keys has fewer tiles to look back
/// over and longer runs per digit to write than one of 4096, and 56 registers let 36 warps
/// run per SM instead of 32.
///
/// Why the 1-D sorts of random keys stayed behind CuPy (three whole bench runs on H100s
/// after the above: CuPy's time 0.94 of ours for float32, 0.91–0.93 for uint32, 0.96 for
/// float64; after the next paragraph's change, two whole runs on an H100: 1.06–1.08,
/// 1.03, 1.01): CuPy's sort is CUB's onesweep, the same design — `ncu` of it on an H100
/// (float32, 10^8): 384 threads × 18 items, 56 registers, occupancy 56 %, 610 µs a pass and
/// 290 M warp instructions (93 per key), against 650 µs for ours at (20, 3, 384); at
/// (16, 4, 256) (2026-11-27) a float32 pass ran at 76 % of the SMs' compute throughput and
/// 30 % of DRAM's, occupancy 49 %, a warp issuing every 11.6 cycles, a float64 pass at 63 %
/// / 49 %. Ablations of ours (H100, µs a pass, wrong results, positions clamped into
/// range): the look-back's waits skipped 655 → 646, the scatter replaced by coalesced
/// writes 716 → 695 — the ranking (8 ballots, the leader's atomic, the shuffle) is the
/// time. Measured and not taken (H100, 2026-12-06, the whole sort against (20, 3, 384) in
/// the same run; a pass's µs at (16, 4, 256)): the ballots written in PTX (`R2P` + predicated
/// NOT, 40 % fewer instructions a pass) 2918 → 2976 µs (likely: the one write of every
/// predicate serialises the tile's keys), with the leader's atomic in PTX too 2840 → 3435
/// (the loads no longer hoisted); the peers from a per-warp shared mask (`atomicOr` of each
/// lane's bit, CUB's other ranking, at (16, 3, 384)) 2849 → 2749 on random keys but
/// 2784 → 2950 on keys of 8 distinct values (the lanes of one digit contend); a non-stable
/// first pass (a shared `atomicAdd` per key, legal for a plain sort's first digit)
/// 719 → 801 µs (the atomic's returned value is on the path of every key); the leader's
/// load and store instead of its `atomicAdd` 671 → 685; the next pass's status words zeroed
/// by the passes instead of a memset (−15 µs of memset, +10 µs a pass); 8 histogram copies
/// instead of 4 (170 → 188 µs).
///
/// Fewer instructions a key (2026-12-06, H100, `ncu` of a float32 pass at (20, 3, 384)
/// against CUB's onesweep pass in CuPy's sort of the same keys): ours executed 432.5 M
/// warp instructions a pass to CUB's 291 M, at about the same occupancy (55 %) and a
/// warp issuing every 13.7 cycles to CUB's 15.7 — both latency-bound, ours with 49 % more
/// to issue. The SASS showed seven instructions a digit bit in the ranking: nvcc derived
/// the ballot's predicate and the select's mask separately from `(d >> b) & 1`. Written as
/// one mask `(int)(d << (31 - b)) >> 31` (all ones where the bit is set: the ballot's
/// predicate is `m != 0`, and `peers &= ~(ballot ^ m)` needs no select), five; the leader
/// the highest peer (`31 - __clz`, no bit reversal); and for 4-byte keys alone the tile's
/// digit starts added into the warps' counters before the keys are placed (`FOLD`: one
/// shared read a key less). Measured outside the library, the whole sort of 10^8 random
/// keys in one run against CuPy's in the same run, µs: float32 at (20, 3, 384) 2839 → 2602
/// (the mask) → 2561 (the leader) → 2518 (the fold), CuPy 2666 (2668 in a second run:
/// (20, 3, 384) 2514–2522, (20, 4, 384) 2488, (18, 3, 384) 2541, (22, 3, 384) 2559, (16,
/// 4, 384) 2544, (16, 4, 256) 2706). Float64 (CuPy 6931): (10, 2, 384) 7195 before, 7980
/// after — the mask took the kernel from 56 to 64 registers, and 3 blocks of 384 threads
/// no longer fit an SM — but (16, 2, 256) 6835 and (10, 3, 384) 7105; with the fold (72
/// to 80 registers) each 8-byte shape measured lost 8–37 %, so 8-byte keys keep
/// `s_tstart`. A second run (CuPy 2723 / 5130 / 7046): float32 `argsort` at (16, 4, 256)
/// 4223 before, 4031–4084 with the mask and the leader, 4118 with the fold too (so keys
/// with values keep `s_tstart` as well), (10, 3, 384) 4120, (12, 4, 256) 4454; float64
/// at (16, 2, 256) 6916–6932, (12, 4, 256) 7186, (14, 3, 256) 7265, (18, 2, 256) 7752,
/// (10, 3, 384) 7197; the histogram kernel with two loads in flight a thread 168 → 163 µs
/// (float32) and 338 → 317 (float64), within the sorts' noise (not taken). Taken: the mask
/// and the leader for every key, the fold for 4-byte keys alone; the families' candidates
/// were measured again (`sort_tuned.rs`).
///
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Tiling {
    pub(crate) items: usize,
    pub(crate) min_blocks: usize,
    /// Threads of a pass block: 256 or more (a thread per digit), a multiple of 32.
    pub(crate) threads: usize,
}

impl Tiling {
    /// The tiling of a tuned family's parameters `[items, blocks per SM, threads]`.
    pub(crate) fn of(p: crate::tune::Params) -> Tiling {
        Tiling {
            items: p[0] as usize,
            min_blocks: p[1] as usize,
            threads: p[2] as usize,
        }
    }
}

/// 16-byte keys (complex128): 4 items (a tile's shared memory stays under 48 KiB), one
/// block's worth of registers.
pub(crate) const WIDE_TILING: Tiling = Tiling {
    items: 4,
    min_blocks: 1,
    threads: 256,
};

/// The one key every NaN of float dtype `d` becomes (above every other key): `None` for
/// dtypes without NaN.
pub(crate) fn nan_key(d: DType) -> Option<&'static str> {
    match d {
        DType::F16 => Some("0xfe00u"),
        DType::BF16 => Some("0xffc0u"),
        DType::F32 => Some("0xffc00000u"),
        DType::F64 => Some("0xfff8000000000000ull"),
        _ => None,
    }
}

/// The key's unsigned type and its transforms `to_key(raw)` / `from_key(key)` for `d`
/// (`stable`: -0.0 sorts as +0.0).
pub(crate) fn key_code(d: DType, stable: bool) -> Result<(&'static str, String)> {
    let (k, sign, nan): (&str, &str, Option<(&str, &str)>) = match d {
        DType::Record(r) => crate::error::bail!(
            DType,
            "sorting needs numbers, given an array of records ({})",
            r.name()
        ),
        DType::Bool => {
            return Ok((
                "unsigned char",
                "__device__ __forceinline__ K to_key(K x) { return x != 0 ? 1 : 0; }\n\
                 __device__ __forceinline__ K from_key(K k) { return k; }\n"
                    .into(),
            ));
        }
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => {
            return Ok((
                super::programs::bits_type(d.itemsize()),
                "__device__ __forceinline__ K to_key(K x) { return x; }\n\
                 __device__ __forceinline__ K from_key(K k) { return k; }\n"
                    .into(),
            ));
        }
        DType::I8 => ("unsigned char", "0x80u", None),
        DType::I16 => ("unsigned short", "0x8000u", None),
        DType::I32 => ("unsigned int", "0x80000000u", None),
        DType::I64 => ("unsigned long long", "0x8000000000000000ull", None),
        DType::F16 => ("unsigned short", "0x8000u", Some(("0x7c00u", "0x03ffu"))),
        DType::BF16 => ("unsigned short", "0x8000u", Some(("0x7f80u", "0x007fu"))),
        DType::F32 => (
            "unsigned int",
            "0x80000000u",
            Some(("0x7f800000u", "0x007fffffu")),
        ),
        DType::F64 => (
            "unsigned long long",
            "0x8000000000000000ull",
            Some(("0x7ff0000000000000ull", "0x000fffffffffffffull")),
        ),
        DType::C64 | DType::C128 => return complex_key_code(d, stable),
    };
    let code = match nan.zip(nan_key(d)) {
        None => format!(
            "__device__ __forceinline__ K to_key(K x) {{ return (K)(x ^ {sign}); }}\n\
             __device__ __forceinline__ K from_key(K k) {{ return (K)(k ^ {sign}); }}\n"
        ),
        Some(((exp, man), canon)) => {
            let zero = if stable {
                format!("  if (x == (K){sign}) x = 0;\n")
            } else {
                String::new()
            };
            format!(
                "__device__ __forceinline__ K to_key(K x) {{\n\
                 \x20 if ((x & {exp}) == {exp} && (x & {man}) != 0) return (K){canon};\n{zero}\
                 \x20 return (x & {sign}) ? (K)(~x) : (K)(x | {sign});\n}}\n\
                 __device__ __forceinline__ K from_key(K k) {{ return (k & {sign}) ? (K)(k & ~(K){sign}) : (K)(~k); }}\n"
            )
        }
    };
    Ok((k, code))
}

/// The key of a complex dtype (see the module docs): the real part's float key in the
/// high half, the imaginary part's in the low half, the NaN classes marked above every
/// float key. Only for the stable modes: complex `sort` gathers by the `argsort`.
fn complex_key_code(d: DType, stable: bool) -> Result<(&'static str, String)> {
    if !stable {
        bail!(
            Unsupported,
            "the radix sort of {d} values runs only as an argsort (complex sort gathers by it)"
        );
    }
    // (part's unsigned type, sign bit, exponent mask, mantissa mask)
    let (p, sign, exp, man) = match d {
        DType::C64 => ("unsigned int", "0x80000000u", "0x7f800000u", "0x007fffffu"),
        _ => (
            "unsigned long long",
            "0x8000000000000000ull",
            "0x7ff0000000000000ull",
            "0x000fffffffffffffull",
        ),
    };
    let part = format!(
        "typedef {p} P;\n\
         __device__ __forceinline__ bool cx_nan(P x) {{ return (x & {exp}) == {exp} && (x & {man}) != 0; }}\n\
         __device__ __forceinline__ P cx_key(P x) {{\n\
         \x20 if (x == (P){sign}) x = 0;\n\
         \x20 return (x & {sign}) ? (P)(~x) : (P)(x | {sign});\n}}\n\
         // The (high, low) halves of the key: the class marker or the real key, then the\n\
         // part that orders within the class.\n\
         __device__ __forceinline__ void cx_halves(P re, P im, P& hi, P& lo) {{\n\
         \x20 const bool nr = cx_nan(re), ni = cx_nan(im);\n\
         \x20 hi = nr ? (ni ? (P)~(P)0 : (P)~(P)1) : (ni ? (P)~(P)2 : cx_key(re));\n\
         \x20 lo = nr ? (ni ? (P)0 : cx_key(im)) : (ni ? cx_key(re) : cx_key(im));\n}}\n"
    );
    let (k, key) = if d == DType::C64 {
        (
            "unsigned long long",
            "__device__ __forceinline__ K to_key(K x) {\n\
             \x20 P hi, lo;\n\
             \x20 cx_halves((P)x, (P)(x >> 32), hi, lo);\n\
             \x20 return ((K)hi << 32) | (K)lo;\n}\n",
        )
    } else {
        (
            "cuprum_key128",
            "__device__ __forceinline__ unsigned kdigit(K k, int s) {\n\
             \x20 return (unsigned)(s < 64 ? (k.lo >> s) : (k.hi >> (s - 64))) & 255u;\n}\n\
             __device__ __forceinline__ K to_key(K x) {\n\
             \x20 K k;\n\
             \x20 cx_halves(x.lo, x.hi, k.hi, k.lo);\n\
             \x20 return k;\n}\n",
        )
    };
    Ok((
        k,
        format!("{part}{key}__device__ __forceinline__ K from_key(K k) {{ return k; }}\n"),
    ))
}

fn sort_program(d: DType, mode: SortMode, t: Tiling) -> Result<Arc<Program>> {
    let src = sort_source_with(d, mode, t)?;
    Ok(program(&program_key(d, mode, t), || src))
}

/// The name of the sort program of `d` in `mode` with tiling `t` (one program each).
pub(crate) fn program_key(d: DType, mode: SortMode, t: Tiling) -> String {
    format!(
        "sort|{}|{}|{}x{}x{}",
        d.name(),
        mode.code(),
        t.items,
        t.min_blocks,
        t.threads
    )
}

/// The CUDA source of the radix sort of dtype `d` in `mode` with the passes' tiling `t`.
pub(crate) fn sort_source_with(d: DType, mode: SortMode, t: Tiling) -> Result<String> {
    let (k, code) = key_code(d, mode.stable())?;
    let mut s = String::from(PRELUDE);
    let _ = write!(
        s,
        "struct cuprum_key128 {{ unsigned long long lo, hi; }};\ntypedef {k} K;\ntypedef unsigned int I;\nconstexpr int MODE = {mode};\nconstexpr int IT = {it};\nconstexpr int MINB = {minb};\nconstexpr int PBLOCK = {threads};\n\
         constexpr int KP = {kp};\nconstexpr int RPMAX = {rp};\n#define CUPRUM_SORT_SEG {seg}\n#define CUPRUM_SORT_SMALL {small}\n{code}",
        mode = mode.code(),
        it = t.items,
        minb = t.min_blocks,
        threads = t.threads,
        kp = d.itemsize(),
        rp = if mode.segmented() { MAX_ROW_PASSES } else { 0 },
        seg = u8::from(mode.segmented()),
        small = u8::from(mode.segmented() && d.itemsize() <= 8),
    );
    s.push_str(SORT_BODY);
    Ok(s)
}

const SORT_BODY: &str = r#"
// The histogram, offsets and small-row kernels run 256 threads; a pass runs PBLOCK.
constexpr int BLOCK = 256, WARPS = 8, PWARPS = PBLOCK / 32, TILE = PBLOCK * IT, WSEG = 32 * IT;
constexpr bool VALS = MODE != 0;
// FOLD: the tile's digit starts are added into the warps' counters before the keys are
// placed (one shared read less per key); measured faster for 4-byte keys alone, while
// 8-byte keys took more registers and lost occupancy (see `Tiling`).
constexpr bool FOLD = KP <= 4 && !VALS;
constexpr unsigned AGG = 1u << 30, INC = 2u << 30, CNT = (1u << 30) - 1u;

// Digit `s / 8` of an integer key (128-bit keys bring their own overload).
template <typename T> __device__ __forceinline__ unsigned kdigit(T k, int s) { return (unsigned)(k >> s) & 255u; }

// Digit counts of every pass: KP key passes, then `rp` passes over the row number i / len.
// Every key adds one to a shared counter per pass, spread over HC copies (warp w counts in
// copy w % HC: four copies cut the shared atomics' collisions enough that the kernel runs
// at the loads' speed, 370 -> 170 µs for 1e8 float32 on an H100; wide keys and row passes
// keep fewer copies inside 32 KiB), and an aligned input is read 16 bytes at a time.
// Per-thread run-length counting measured slower on random keys.
constexpr int HC = KP + RPMAX <= 4 ? 4 : (KP + RPMAX <= 8 ? 2 : 1);
__device__ __forceinline__ void hist_key(unsigned (*s_h)[256], const K kk, I i, unsigned len, int rp) {
#pragma unroll
  for (int p = 0; p < KP; ++p) atomicAdd(&s_h[p][kdigit(kk, 8 * p)], 1u);
  if (RPMAX > 0) {
    const unsigned row = i / len;
#pragma unroll
    for (int p = KP; p < KP + RPMAX; ++p)
      if (p - KP < rp) atomicAdd(&s_h[p][(row >> (8 * (p - KP))) & 255u], 1u);
  }
}
extern "C" __global__ void __launch_bounds__(256) cuprum_radix_hist(const K* __restrict__ keys, I n, unsigned len,
    unsigned* __restrict__ hist, int rp) {
  constexpr int P = KP + RPMAX;
  constexpr int VK = sizeof(K) < 16 ? 16 / sizeof(K) : 1;
  __shared__ unsigned s_h[HC][P][256];
  for (int k = threadIdx.x; k < HC * P * 256; k += BLOCK) (&s_h[0][0][0])[k] = 0u;
  __syncthreads();
  unsigned (*mine)[256] = s_h[(threadIdx.x >> 5) % HC];
  const I stride = (I)gridDim.x * BLOCK;
  I i0 = 0;
  if ((reinterpret_cast<size_t>(keys) & 15) == 0) {
    const I nv = n / VK;
    for (I j = (I)blockIdx.x * BLOCK + threadIdx.x; j < nv; j += stride) {
      K a[VK];
      rt::load_vec<K, VK>(keys + (size_t)j * VK, a);
#pragma unroll
      for (int q = 0; q < VK; ++q) hist_key(mine, to_key(a[q]), j * VK + q, len, rp);
    }
    i0 = nv * VK;
  }
  for (I i = i0 + (I)blockIdx.x * BLOCK + threadIdx.x; i < n; i += stride) hist_key(mine, to_key(keys[i]), i, len, rp);
  __syncthreads();
  for (int k = threadIdx.x; k < P * 256; k += BLOCK) {
    unsigned c = 0u;
#pragma unroll
    for (int q = 0; q < HC; ++q) c += (&s_h[q][0][0])[k];
    if (c) atomicAdd(&hist[k], c);
  }
}

// Digit counts -> each pass's bucket offsets (one block per pass), and whether one digit
// holds every key (`trivial`, zeroed before: the stable pass is then the identity).
extern "C" __global__ void __launch_bounds__(256) cuprum_radix_offsets(unsigned* __restrict__ hist,
    unsigned* __restrict__ trivial) {
  __shared__ unsigned s_wsum[WARPS];
  unsigned* h = hist + blockIdx.x * 256;
  unsigned total;
  const unsigned v = h[threadIdx.x];
  h[threadIdx.x] = rt::block_exclusive<WARPS>(v, s_wsum, total);
  if (total > 0u && v == total) trivial[blockIdx.x] = 1u;
}

// What pass `p` of `np` does: 0 ranks and scatters its tile; 1 copies it in place of the
// pass (one digit holds every key); 2 nothing. Trivial passes between the first and the
// last are skipped two at a time (the keys then stay in the buffer the pass after the pair
// reads, as the buffers alternate); one left over, or a trivial first or last pass (which
// also transform the keys), copies.
__device__ __forceinline__ int pass_action(const unsigned* __restrict__ trivial, int p, int np) {
  if (!trivial[p]) return 0;
  if (p == 0 || p == np - 1) return 1;
  int a = p;
  while (a > 1 && trivial[a - 1]) --a;
  if ((p - a) & 1) return 2;
  return (p + 1 < np - 1 && trivial[p + 1]) ? 2 : 1;
}

// Writes key `kk` (and value `vv`) to position `g` of the pass's output: the next pass's
// buffers, or on the last pass the result (sorted values, int64 positions, or both).
template <bool LAST>
__device__ __forceinline__ void put(K* __restrict__ kout, void* __restrict__ vout, unsigned g, K kk, unsigned vv, unsigned len) {
  if (!LAST) {
    kout[g] = kk;
    if (VALS) ((unsigned*)vout)[g] = vv;
  } else if (MODE == 0 || MODE == 2) {
    kout[g] = from_key(kk);
  } else if (MODE == 4) {
    kout[g] = from_key(kk);
    ((unsigned*)vout)[g] = vv;
  } else if (MODE == 1) {
    ((long long*)vout)[g] = (long long)vv;
  } else {
    ((long long*)vout)[g] = (long long)(vv % len);
  }
}

// A trivial pass's tile, block `blockIdx.x`'s: every key keeps its place.
template <bool FIRST, bool LAST>
__device__ __forceinline__ void copy_tile(const K* __restrict__ kin, K* __restrict__ kout,
    const unsigned* __restrict__ vin, void* __restrict__ vout, I n, unsigned len) {
  const I tbase = (I)blockIdx.x * TILE;
#pragma unroll
  for (int k = 0; k < IT; ++k) {
    const I i = tbase + (I)(k * PBLOCK + threadIdx.x);
    if (i < n) {
      const K kk = FIRST ? to_key(kin[i]) : kin[i];
      const unsigned vv = VALS ? ((FIRST && MODE != 4) ? (unsigned)i : vin[i]) : 0u;
      put<LAST>(kout, vout, (unsigned)i, kk, vv, len);
    }
  }
}

template <bool ROWDIG>
__device__ __forceinline__ unsigned digit(K key, unsigned val, unsigned len, int shift) {
  return ROWDIG ? ((val / len) >> shift) & 255u : kdigit(key, shift);
}

// One stable counting pass over the digit at `shift` (of the key, or of the row number of
// the carried position when ROWDIG).
template <bool FIRST, bool LAST, bool ROWDIG>
__device__ __forceinline__ void radix_pass(const K* __restrict__ kin, K* __restrict__ kout,
    const unsigned* __restrict__ vin, void* __restrict__ vout, I n, unsigned len,
    const unsigned* __restrict__ bins, unsigned* __restrict__ status, unsigned* __restrict__ counter, int shift,
    const unsigned* __restrict__ trivial, int pass, int npass) {
  const int act = pass_action(trivial, pass, npass);
  if (act == 2) return;
  if (act == 1) {
    copy_tile<FIRST, LAST>(kin, kout, vin, vout, n, len);
    return;
  }
  __shared__ unsigned s_tile;
  __shared__ unsigned s_hist[PWARPS][256];
  __shared__ unsigned s_tstart[256];
  __shared__ int s_gbase[256];
  __shared__ unsigned s_wsum[PWARPS];
  __shared__ K s_keys[TILE];
  __shared__ unsigned s_vals[VALS ? TILE : 1];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) s_tile = atomicAdd(counter, 1u);
  for (int k = tid; k < PWARPS * 256; k += PBLOCK) (&s_hist[0][0])[k] = 0u;
  __syncthreads();
  const unsigned tile = s_tile;
  const I tbase = (I)tile * TILE;
  const I wbase = tbase + (I)(warp * WSEG);
  const unsigned lt = rt::lanemask_lt();
  // A whole tile: every lane holds a key (no ballot for which do).
  const bool full = tbase + (I)TILE <= n;
  K key[IT];
  unsigned val[IT], rank[IT];
#pragma unroll
  for (int k = 0; k < IT; ++k) {
    const I i = wbase + (I)(k * 32 + lane);
    const bool ok = i < n;
    K kk = K();
    unsigned vv = 0u;
    if (ok) {
      kk = kin[i];
      if (VALS) vv = (FIRST && MODE != 4) ? (unsigned)i : vin[i];
    }
    // The first pass's transform outside the load's branch (on every lane: a lane without
    // a key ranks nothing): inside it, the 8-byte keys' transform kept the compiler from
    // issuing a tile's loads together (H200, float64 at 10 items x 384 threads: first
    // pass 1038 -> 830 µs).
    if (FIRST) kk = to_key(kk);
    key[k] = kk;
    val[k] = vv;
    const unsigned d = digit<ROWDIG>(kk, vv, len, shift);
    unsigned peers = full ? rt::FULL : __ballot_sync(rt::FULL, ok);
    // Bit b of the digit as a mask of all ones or none (the sign of the digit shifted to
    // the top): the ballot's predicate and the select in one value.
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      const unsigned m = (unsigned)((int)(d << (31 - b)) >> 31);
      const unsigned bb = __ballot_sync(rt::FULL, m != 0u);
      peers &= ~(bb ^ m);
    }
    const unsigned cnt = __popc(peers), pre = __popc(peers & lt);
    // The highest lane of the peers takes their places from the warp's counter and hands
    // the base to them (a lane without a key ranks nothing: its base is any lane's, and
    // with no peers at all `leader` is -1, which the shuffle reads as lane 31).
    const int leader = 31 - __clz(peers);
    unsigned base = 0u;
    if (ok && lane == leader) base = atomicAdd(&s_hist[warp][d], cnt);
    base = __shfl_sync(rt::FULL, base, leader);
    rank[k] = base + pre;
  }
  __syncthreads();
  // Thread `dg` < 256 owns digit dg's counts, offsets and look-back (threads past 256
  // only scan zeros).
  const bool owner = tid < 256;
  const unsigned dg = owner ? tid : 255u;
  unsigned run = 0u;
  if (owner) {
    if (FOLD) {
#pragma unroll
      for (int w = 0; w < PWARPS; ++w) run += s_hist[w][dg];
    } else {
#pragma unroll
      for (int w = 0; w < PWARPS; ++w) { const unsigned c = s_hist[w][dg]; s_hist[w][dg] = run; run += c; }
    }
    rt::st_relaxed(&status[tile * 256u + dg], (tile == 0 ? INC : AGG) | run);
  }
  const unsigned tcount = run;
  unsigned total;
  const unsigned tstart = rt::block_exclusive<PWARPS>(tcount, s_wsum, total);
  if (owner) {
    if (FOLD) {
      unsigned at = tstart;
#pragma unroll
      for (int w = 0; w < PWARPS; ++w) { const unsigned c = s_hist[w][dg]; s_hist[w][dg] = at; at += c; }
    } else {
      s_tstart[dg] = tstart;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < IT; ++k) {
    const I i = wbase + (I)(k * 32 + lane);
    if (i < n) {
      const unsigned d = digit<ROWDIG>(key[k], val[k], len, shift);
      const unsigned pos = (FOLD ? 0u : s_tstart[d]) + s_hist[warp][d] + rank[k];
      s_keys[pos] = key[k];
      if (VALS) s_vals[pos] = val[k];
    }
  }
  unsigned excl = 0u;
  if (tile > 0 && owner) {
    unsigned t = tile - 1;
    while (true) {
      unsigned st;
      do { st = rt::ld_relaxed(&status[t * 256u + dg]); } while ((st >> 30) == 0u);
      excl += st & CNT;
      if ((st >> 30) == 2u || t == 0) break;
      --t;
    }
    rt::st_relaxed(&status[tile * 256u + dg], INC | (excl + tcount));
  }
  if (owner) s_gbase[dg] = (int)(bins[dg] + excl) - (int)tstart;
  __syncthreads();
  const unsigned tn = (n - tbase) < (I)TILE ? (unsigned)(n - tbase) : (unsigned)TILE;
#pragma unroll
  for (int k = 0; k < IT; ++k) {
    const unsigned p = tid + k * PBLOCK;
    if (p < tn) {
      const K kk = s_keys[p];
      const unsigned vv = VALS ? s_vals[p] : 0u;
      const unsigned g = (unsigned)(s_gbase[digit<ROWDIG>(kk, vv, len, shift)] + (int)p);
      put<LAST>(kout, vout, g, kk, vv, len);
    }
  }
}

#define CUPRUM_RADIX_ENTRY(NAME, FIRST, LAST, ROWDIG) \
extern "C" __global__ void __launch_bounds__(PBLOCK, MINB) NAME(const K* __restrict__ kin, K* __restrict__ kout, \
    const unsigned* __restrict__ vin, void* __restrict__ vout, I n, unsigned len, const unsigned* __restrict__ bins, \
    unsigned* __restrict__ status, unsigned* __restrict__ counter, int shift, const unsigned* __restrict__ trivial, \
    int pass, int npass) { \
  radix_pass<FIRST, LAST, ROWDIG>(kin, kout, vin, vout, n, len, bins, status, counter, shift, trivial, pass, npass); }
CUPRUM_RADIX_ENTRY(cuprum_radix_first, true, false, false)
CUPRUM_RADIX_ENTRY(cuprum_radix_mid, false, false, false)
#if !CUPRUM_SORT_SEG
CUPRUM_RADIX_ENTRY(cuprum_radix_only, true, true, false)
CUPRUM_RADIX_ENTRY(cuprum_radix_last, false, true, false)
#else
CUPRUM_RADIX_ENTRY(cuprum_radix_row_mid, false, false, true)
CUPRUM_RADIX_ENTRY(cuprum_radix_row_last, false, true, true)
#endif

#if CUPRUM_SORT_SMALL
// Rows of at most SROW elements: a block sorts SROW / p rows of p slots (p: the power of two
// at or above the row length) in shared memory with a bitonic network on (key, position)
// pairs, so equal keys keep their order; the sorted values are read back from the input by
// position (every bit kept). Padding slots hold the largest key and positions past the row.
constexpr int SROW = sizeof(K) <= 4 ? 4096 : 2048;
__device__ __forceinline__ void sort_rows_small(const K* __restrict__ x, void* __restrict__ out,
    unsigned rows, unsigned len, unsigned p) {
  __shared__ K s_k[SROW];
  __shared__ unsigned short s_p[SROW];
  const unsigned lg = 31 - __clz(p);
  const size_t row0 = (size_t)blockIdx.x * (SROW >> lg);
  for (unsigned t = threadIdx.x; t < (unsigned)SROW; t += BLOCK) {
    const size_t row = row0 + (t >> lg);
    const unsigned c = t & (p - 1);
    K kk = (K)~(K)0;
    if (row < rows && c < len) kk = to_key(x[row * len + c]);
    s_k[t] = kk;
    s_p[t] = (unsigned short)c;
  }
  __syncthreads();
  for (unsigned k = 2; k <= p; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      for (unsigned t = threadIdx.x; t < (unsigned)SROW; t += BLOCK) {
        const unsigned u = t ^ j;
        if (u > t) {
          const bool asc = k == p || (t & k) == 0;
          const K a = s_k[t], b = s_k[u];
          const unsigned short pa = s_p[t], pb = s_p[u];
          if ((a > b || (a == b && pa > pb)) == asc) { s_k[t] = b; s_k[u] = a; s_p[t] = pb; s_p[u] = pa; }
        }
      }
      __syncthreads();
    }
  }
  for (unsigned t = threadIdx.x; t < (unsigned)SROW; t += BLOCK) {
    const size_t row = row0 + (t >> lg);
    const unsigned c = t & (p - 1);
    if (row < rows && c < len) {
      const size_t at = row * len + c;
      if (MODE == 2) ((K*)out)[at] = x[row * len + s_p[t]];
      else ((long long*)out)[at] = (long long)s_p[t];
    }
  }
}
// (An entry made by a macro, like the passes': the host device's rewrite lists every
// `__global__` it reads, whatever the preprocessor keeps.)
#define CUPRUM_SMALL_ENTRY(NAME) \
extern "C" __global__ void __launch_bounds__(256) NAME(const K* __restrict__ x, void* __restrict__ out, \
    unsigned rows, unsigned len, unsigned p) { sort_rows_small(x, out, rows, len, p); }
CUPRUM_SMALL_ENTRY(cuprum_sort_rows_small)
#endif
"#;

/// Bits needed to write `x`.
fn bits_of(x: usize) -> usize {
    (usize::BITS - x.leading_zeros()) as usize
}

/// The pass plan of a sort: key passes, then row passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub key_passes: usize,
    pub row_passes: usize,
}

pub(crate) fn plan(d: DType, n: usize, len: usize, segmented: bool) -> Plan {
    let rows = n.checked_div(len).unwrap_or(0);
    Plan {
        key_passes: d.itemsize(),
        row_passes: if segmented {
            bits_of(rows.saturating_sub(1)).div_ceil(8).max(1)
        } else {
            0
        },
    }
}

/// The kernel of pass `p` of `passes` (`key_passes` of them over the key).
fn pass_name(p: usize, plan: Plan) -> &'static str {
    let last = p + 1 == plan.key_passes + plan.row_passes;
    match (p == 0, last, p >= plan.key_passes) {
        (true, true, _) => "cuprum_radix_only",
        (true, false, _) => "cuprum_radix_first",
        (false, false, false) => "cuprum_radix_mid",
        (false, true, false) => "cuprum_radix_last",
        (false, false, true) => "cuprum_radix_row_mid",
        (false, true, true) => "cuprum_radix_row_last",
    }
}

/// Sorts the contiguous `x` (rows of `len` when the mode is segmented) into `out` — the
/// sorted values (`x`'s dtype) or the int64 permutation — with the passes' tiling `t`, on
/// the current device; for [`SortMode::ByKey`] the 4-byte values carried from `by_key.0`
/// into `by_key.1` (both contiguous, `x.size()` elements).
pub(crate) fn run(
    x: &Array,
    mode: SortMode,
    len: usize,
    out: &Array,
    by_key: Option<(&Array, &Array)>,
    t: Tiling,
) -> Result<()> {
    let n = x.size();
    if n > MAX_SORT {
        bail!(
            Unsupported,
            "sorting {n} elements: at most {MAX_SORT} (2^30 - 1) per call"
        );
    }
    let d = x.dtype();
    let device = Device::current()?;
    let prog = sort_program(d, mode, t)?;
    let plan = plan(d, n, len, mode.segmented());
    let passes = plan.key_passes + plan.row_passes;
    let tile = t.threads * t.items;
    let tiles = n.div_ceil(tile);
    let status_words = tiles * 256;
    // hist [passes][256] | counters [passes] | trivial [passes] | status [passes][tiles][256]
    let scratch = zeroed_scratch(4 * (passes * 256 + 2 * passes + passes * status_words))?;
    let hist_at = |p: usize| ptr_at(&scratch, 4 * p * 256);
    let counter_at = |p: usize| ptr_at(&scratch, 4 * (passes * 256 + p));
    let trivial = ptr_at(&scratch, 4 * (passes * 256 + passes));
    let status_at = |p: usize| ptr_at(&scratch, 4 * (passes * 256 + 2 * passes + p * status_words));
    let sms = device.sm_count().max(1);
    let hist_grid = (n.div_ceil(256) as u32).clamp(1, sms * 8);
    prog.launch(
        "cuprum_radix_hist",
        hist_grid,
        256,
        (x, n as u32, len as u32, hist_at(0), plan.row_passes as i32),
    )?;
    prog.launch(
        "cuprum_radix_offsets",
        passes as u32,
        256,
        (hist_at(0), trivial),
    )?;
    let values = mode != SortMode::Sort;
    let to_values = !matches!(mode, SortMode::Sort | SortMode::SegSort | SortMode::ByKey);
    // Key buffers: sorts alternate between `out` and one temporary so that the last pass
    // lands in `out`; argsorts alternate between two temporaries.
    let tmp = Array::empty(&[n], d)?;
    let second = if to_values {
        Array::empty(&[n], d)?
    } else {
        out.clone()
    };
    let key_buf = |p: usize| -> u64 {
        if to_values {
            [&tmp, &second][p % 2].data_ptr()
        } else if (passes - 1 - p).is_multiple_of(2) {
            out.data_ptr()
        } else {
            tmp.data_ptr()
        }
    };
    let vals = if values {
        [
            Array::empty(&[n], DType::U32)?,
            Array::empty(&[n], DType::U32)?,
        ]
    } else {
        [
            Array::empty(&[0], DType::U32)?,
            Array::empty(&[0], DType::U32)?,
        ]
    };
    let null = DevicePtr(0);
    for p in 0..passes {
        let last = p + 1 == passes;
        let kin = if p == 0 {
            DevicePtr(x.data_ptr())
        } else {
            DevicePtr(key_buf(p - 1))
        };
        let vin = if p == 0 || !values {
            by_key.map_or(null, |(vin, _)| DevicePtr(vin.data_ptr()))
        } else {
            DevicePtr(vals[(p - 1) % 2].data_ptr())
        };
        let (kout, vout) = match (last, to_values) {
            (true, false) => (
                DevicePtr(out.data_ptr()),
                by_key.map_or(null, |(_, vout)| DevicePtr(vout.data_ptr())),
            ),
            (true, true) => (null, DevicePtr(out.data_ptr())),
            (false, _) => (
                DevicePtr(key_buf(p)),
                if values {
                    DevicePtr(vals[p % 2].data_ptr())
                } else {
                    null
                },
            ),
        };
        let shift = if p < plan.key_passes {
            8 * p
        } else {
            8 * (p - plan.key_passes)
        };
        prog.launch(
            pass_name(p, plan),
            tiles as u32,
            t.threads as u32,
            (
                kin,
                kout,
                vin,
                vout,
                n as u32,
                len as u32,
                hist_at(p),
                status_at(p),
                counter_at(p),
                shift as i32,
                trivial,
                p as i32,
                passes as i32,
            ),
        )?;
    }
    Ok(())
}

/// The longest rows the shared-memory row sort takes for dtype `d` (0: none, complex128).
pub(crate) fn small_rows_max(d: DType) -> usize {
    match d.itemsize() {
        0..=4 => 4096,
        5..=8 => 2048,
        _ => 0,
    }
}

/// Sorts (or argsorts) the rows of length `len` of the contiguous `x` in shared memory
/// (`cuprum_sort_rows_small`): one read and one write of each element, where the radix
/// sort of rows would make a pass per byte of the key and of the row number. PyTorch's
/// (10^6, 32) float32 row sort is the measure (see the bench's `sort_rows_1Mx32_f32`).
pub(crate) fn small_rows(
    x: &Array,
    mode: SortMode,
    len: usize,
    out: &Array,
    t: Tiling,
) -> Result<()> {
    let d = x.dtype();
    // (`x` and `out` hold whole rows: `len` divides the size, as for the radix sort)
    let prog = sort_program(d, mode, t)?;
    let rows = x.size() / len;
    let p = len.next_power_of_two();
    let per_block = small_rows_max(d) / p;
    prog.launch(
        "cuprum_sort_rows_small",
        rows.div_ceil(per_block) as u32,
        256,
        (x, out, rows as u32, len as u32, p as u32),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HAND_PICKED: Tiling = Tiling {
        items: 20,
        min_blocks: 3,
        threads: 384,
    };

    #[test]
    fn plans_count_key_and_row_passes() {
        assert_eq!(
            plan(DType::F32, 100, 100, false),
            Plan {
                key_passes: 4,
                row_passes: 0
            }
        );
        assert_eq!(plan(DType::F64, 1000, 10, true).row_passes, 1);
        assert_eq!(plan(DType::I8, 2, 1, true).row_passes, 1);
        assert_eq!(plan(DType::U16, 257 * 3, 3, true).row_passes, 2);
        assert_eq!(plan(DType::U16, 256 * 3, 3, true).row_passes, 1);
        assert_eq!(bits_of(0), 0);
        assert_eq!(bits_of(255), 8);
        assert_eq!(bits_of(256), 9);
    }

    #[test]
    fn pass_kernels_exist_for_every_plan() {
        for mode in SortMode::ALL {
            for d in [DType::Bool, DType::I16, DType::F32, DType::U64] {
                let src = sort_source_with(d, mode, HAND_PICKED).unwrap();
                let len = if mode.segmented() { 10 } else { 1000 };
                let plan = plan(d, 1000, len, mode.segmented());
                for p in 0..plan.key_passes + plan.row_passes {
                    let name = pass_name(p, plan);
                    let present = src.contains(&format!("({name},"));
                    let guarded = match name {
                        "cuprum_radix_only" | "cuprum_radix_last" => !mode.segmented(),
                        "cuprum_radix_row_mid" | "cuprum_radix_row_last" => mode.segmented(),
                        _ => true,
                    };
                    assert!(present && guarded, "{mode:?} {d} pass {p}: {name}");
                }
            }
        }
    }

    #[test]
    fn complex_keys_only_for_argsorts() {
        let e = key_code(DType::C64, false).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
        assert!(sort_source_with(DType::C128, SortMode::Sort, WIDE_TILING).is_err());
        let (k, code) = key_code(DType::C128, true).unwrap();
        assert_eq!(k, "cuprum_key128");
        assert!(code.contains("kdigit"));
        assert_eq!(plan(DType::C128, 100, 100, false).key_passes, 16);
    }
}
