//! The scan engine's launches: [`scan_into`] runs one scan program (its CUDA C++ from
//! `codegen/scan.rs`, its definitions from `ops/scan.rs` for `cumsum` / `cumprod` or from
//! `scan.rs` for a [`ScanKernel`](crate::ScanKernel)) over an axis or the flattened array.
//!
//! Which kernel: the last axis, or the flattened array, is the single-pass tile scan (rows
//! as segments when there are several; a 1-D scan of one aligned array runs the persistent
//! staged kernel instead when the device's shape has stages and they fit its shared
//! memory), or, for many rows that are not short, the rows
//! kernel, a block per row (`codegen::scan::rows_kernel`); another axis with at least 32
//! contiguous columns (`inner`) the coalesced axis scan, one pass with the same look-back
//! along the axis; fewer columns the column kernel (one thread per column walks the axis)
//! when there are enough columns to fill the GPU ([`MIN_COLUMNS`]) or the axis is short,
//! else the axis is moved last with a copy, scanned as rows, and moved back. Bytes: the
//! input read once, the output written once, plus a few bytes of status per tile (a tile:
//! 256 × the items per thread of the device's [`ScanShape`], e.g. 8192 elements for 4-byte
//! accumulators on an H100; none for the rows kernel). Non-contiguous inputs are copied once; an output that is not C-contiguous is written through a
//! temporary.
//!
//! Floating-point sums combine in an order that depends on which predecessors had
//! published when a tile looked back, so the last bits of a float scan may differ between
//! runs (as with CUB); integer scans are exact.

use super::KernelArg;
use super::codegen::scan::{ScanShape, rows_kernel};
use super::program::{Program, aligned, blocks_for, fits_u32, ptr_at, zeroed_scratch};
use crate::array::{Array, DType, Scalar};
use crate::error::Result;
use crate::shape::normalize_axis;
use std::sync::Arc;

/// Columns below which a non-last axis is moved last instead of scanned per column.
const MIN_COLUMNS: usize = 16384;

/// One scan program and the sizes its launches need: the seam through which the
/// built-in scans and `ScanKernel` share the engine. `acc` is the accumulator's size in
/// bytes (an upper bound when the program asserts one: the `acc_bytes` its [`ScanDefs`]
/// were written with, which pick the tiles), `vec` its `VECN`; `values` the by-value
/// inputs the program's entries take after the arrays (`CUPRUM_SCAN_IN`).
///
/// [`ScanDefs`]: super::codegen::scan::ScanDefs
pub(crate) struct Engine {
    pub prog: Arc<Program>,
    pub acc: usize,
    pub vec: usize,
    pub values: Vec<Scalar>,
    /// The shapes the program was written with (the device's tuning).
    pub shape: ScanShape,
    /// Whether the program has the persistent staged 1-D kernel (`cuprum_scan_pv`: one
    /// array input, `codegen::scan::ONE_INPUT`), which runs when `shape.stages` > 0.
    pub staged: bool,
}

/// Scans `inputs` (arrays of one shape, given to the program's entries in order) over
/// `axis` (`None`: flattened) into a new array of `out_dt`, or into `out` (checked by the
/// caller: `out_dt`, and the result's shape). `engine(wide)` gives the program of each
/// index width. Empty inputs launch nothing.
pub(crate) fn scan_into(
    inputs: &[Array],
    out_dt: DType,
    axis: Option<isize>,
    out: Option<&Array>,
    engine: &dyn Fn(bool) -> Engine,
) -> Result<Array> {
    let Some(first) = inputs.first() else {
        return Err(crate::error::err!(InvalidArgument, "a scan needs an input"));
    };
    let ax = axis.map(|a| normalize_axis(a, first.ndim())).transpose()?;
    let shape: Vec<usize> = match ax {
        None => vec![first.size()],
        Some(_) => first.shape().to_vec(),
    };
    // Written in place when `out` is contiguous, else through a temporary.
    let direct = out.filter(|o| o.is_c_contiguous()).cloned();
    let res = match &direct {
        Some(o) => o.clone(),
        None => Array::empty(&shape, out_dt)?,
    };
    if first.size() > 0 {
        run_axis(inputs, &res, ax, engine)?;
    }
    match out {
        Some(o) if direct.is_none() => {
            o.assign(&res)?;
            Ok(o.clone())
        }
        _ => Ok(res),
    }
}

/// The launches of [`scan_into`] for a non-empty scan into the contiguous `out`.
fn run_axis(
    inputs: &[Array],
    out: &Array,
    ax: Option<usize>,
    engine: &dyn Fn(bool) -> Engine,
) -> Result<()> {
    let first = &inputs[0];
    let n = first.size();
    let e = engine(!fits_u32(n));
    let contiguous = |f: &dyn Fn(&Array) -> Result<Array>| -> Result<Vec<Array>> {
        inputs.iter().map(f).collect()
    };
    let Some(ax) = ax else {
        let flat = contiguous(&|a| a.reshape_copy(&[-1])?.to_contiguous())?;
        return tile_scan(&e, &flat, out, n);
    };
    let len = first.shape()[ax];
    let outer: usize = first.shape()[..ax].iter().product();
    let inner: usize = first.shape()[ax + 1..].iter().product();
    if inner == 1 {
        tile_scan(&e, &contiguous(&Array::to_contiguous)?, out, len)
    } else if inner >= 32 {
        axis_scan(
            &e,
            &contiguous(&Array::to_contiguous)?,
            out,
            outer,
            len,
            inner,
        )
    } else if outer * inner >= MIN_COLUMNS || len <= 64 {
        column_scan(
            &e,
            &contiguous(&Array::to_contiguous)?,
            out,
            outer,
            len,
            inner,
        )
    } else {
        let last = first.ndim() as isize - 1;
        let moved = contiguous(&|a| a.swapaxes(ax as isize, last)?.copy())?;
        let scanned = Array::empty(moved[0].shape(), out.dtype())?;
        tile_scan(&e, &moved, &scanned, len)?;
        out.assign(&scanned.swapaxes(ax as isize, last)?)
    }
}

/// The launch arguments: the inputs (arrays, then `e`'s values), the output, then `rest`.
fn args(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    rest: Vec<Box<dyn KernelArg>>,
) -> Vec<Box<dyn KernelArg>> {
    let mut v: Vec<Box<dyn KernelArg>> = inputs
        .iter()
        .map(|a| Box::new(a.clone()) as Box<dyn KernelArg>)
        .collect();
    v.extend(e.values.iter().map(|s| Box::new(*s) as Box<dyn KernelArg>));
    v.push(Box::new(out.clone()));
    v.extend(rest);
    v
}

/// An index argument of the program's width (`I`).
fn idx(wide: bool, v: usize) -> Box<dyn KernelArg> {
    if wide {
        Box::new(v as u64)
    } else {
        Box::new(v as u32)
    }
}

/// The decoupled look-back's scratch for `cells` tiles (tile-column cells for the axis
/// scan): `status_bytes` of zeroed status words with the tile counter after them, and each
/// cell's aggregate and inclusive prefix (`acc` bytes each). Dropped after the launch:
/// freed in stream order.
struct Lookback {
    status: Array,
    values: Array,
    status_bytes: usize,
    cells: usize,
    acc: usize,
}

impl Lookback {
    fn new(status_bytes: usize, cells: usize, acc: usize) -> Result<Lookback> {
        Ok(Lookback {
            status: zeroed_scratch(status_bytes + 4)?,
            values: Array::empty(&[2 * cells * acc], DType::U8)?,
            status_bytes,
            cells,
            acc,
        })
    }

    /// The kernel's look-back arguments: flags, aggregates, inclusive prefixes, counter.
    fn args(&self) -> [Box<dyn KernelArg>; 4] {
        [
            Box::new(ptr_at(&self.status, 0)),
            Box::new(ptr_at(&self.values, 0)),
            Box::new(ptr_at(&self.values, self.cells * self.acc)),
            Box::new(ptr_at(&self.status, self.status_bytes)),
        ]
    }
}

/// The grid of `tiles` blocks, or the error naming the scan ("of" / "over an axis of").
fn grid_of(tiles: usize, what: &str, n: usize) -> Result<u32> {
    u32::try_from(tiles).map_err(|_| {
        crate::error::err!(
            Unsupported,
            "cumulative scan {what} {n} elements: too many tiles"
        )
    })
}

/// Scans the contiguous `inputs` into the contiguous `out` in segments of `len` elements.
fn tile_scan(e: &Engine, inputs: &[Array], out: &Array, len: usize) -> Result<()> {
    let n = out.size();
    let wide = !fits_u32(n);
    let mut all: Vec<&Array> = inputs.iter().collect();
    all.push(out);
    let vector = e.vec > 1 && aligned(&all, e.vec);
    let seg = len < n;
    if seg && rows_kernel(n / len, len, e.shape.ript) {
        return rows_scan(e, inputs, out, len, vector && len.is_multiple_of(e.vec));
    }
    if !seg && vector && e.staged && e.shape.stages > 0 && staged_scan(e, &inputs[0], out)? {
        return Ok(());
    }
    let name = match (seg, vector) {
        (false, true) => "cuprum_scan_v",
        (false, false) => "cuprum_scan_1",
        (true, true) => "cuprum_scan_seg_v",
        (true, false) => "cuprum_scan_seg_1",
    };
    let tile = 256 * if seg { e.shape.sipt } else { e.shape.ipt } as usize;
    let tiles = n.div_ceil(tile);
    // A 4-byte accumulator packs each tile's status and value into one 64-bit word (8
    // bytes a tile), an 8-byte one into a 16-byte pair; the others keep a 4-byte status
    // apart from their values. 16 bytes a tile covers each, so a program whose accumulator
    // size only it knows (a ScanKernel's own type) is covered.
    let status_bytes = 16 * tiles;
    let lb = Lookback::new(status_bytes, tiles, e.acc)?;
    let grid = grid_of(tiles, "of", n)?;
    let mut rest: Vec<Box<dyn KernelArg>> = vec![idx(wide, n), idx(wide, len)];
    rest.extend(lb.args());
    e.prog.launch(name, grid, 256, args(e, inputs, out, rest))
}

/// Scans the contiguous, aligned `input` into `out` with the persistent kernel
/// (`cuprum_scan_pv`): as many blocks as the device holds at once with the kernel's stages
/// of shared memory (`stages` × a tile of the input's elements), at most one a tile. False
/// (nothing launched) where a block's stages do not fit the device's shared memory: the
/// one-tile-a-block kernel runs instead.
fn staged_scan(e: &Engine, input: &Array, out: &Array) -> Result<bool> {
    let n = out.size();
    let wide = !fits_u32(n);
    let tile = 256 * e.shape.ipt as usize;
    let tiles = n.div_ceil(tile);
    let smem = e.shape.stages as usize * tile * input.itemsize();
    let k = e.prog.kernel("cuprum_scan_pv")?;
    let Ok(smem32) = u32::try_from(smem) else {
        return Ok(false);
    };
    let resident = match k.occupancy(256, smem32) {
        Ok(o) if o.resident_blocks() > 0 => o.resident_blocks(),
        _ => return Ok(false),
    };
    let grid = grid_of(tiles.min(resident as usize), "of", n)?;
    let lb = Lookback::new(16 * tiles, tiles, e.acc)?;
    let mut rest: Vec<Box<dyn KernelArg>> = vec![idx(wide, n), idx(wide, n)];
    rest.extend(lb.args());
    k.configure(grid, 256u32).shared_mem(smem).launch(args(
        e,
        std::slice::from_ref(input),
        out,
        rest,
    ))?;
    Ok(true)
}

/// Scans the contiguous `inputs` into the contiguous `out` row by row (rows of `len`), a
/// block per row (`cuprum_scan_rows_{v,1}`: `vector` when every row starts aligned).
fn rows_scan(e: &Engine, inputs: &[Array], out: &Array, len: usize, vector: bool) -> Result<()> {
    let n = out.size();
    let wide = !fits_u32(n);
    let rows = n / len;
    let grid = grid_of(rows.min(1 << 30), "of", n)?;
    let name = if vector {
        "cuprum_scan_rows_v"
    } else {
        "cuprum_scan_rows_1"
    };
    let rest: Vec<Box<dyn KernelArg>> = vec![idx(wide, rows), idx(wide, len)];
    e.prog.launch(name, grid, 256, args(e, inputs, out, rest))
}

/// Scans the axis of extent `len` of the contiguous `(outer, len, inner)` `inputs` by
/// tiles of 32 columns × `8 · AXIPT` positions with a look-back along the axis
/// (`cuprum_scan_axis`): the input read once, the output written once, plus 16 bytes of
/// status and two accumulators per column and tile.
fn axis_scan(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<()> {
    let n = out.size();
    let wide = !fits_u32(n);
    let cols = outer * inner;
    let tiles = cols.div_ceil(32) * len.div_ceil(8 * e.shape.axipt as usize);
    let cells = tiles.div_ceil(cols.div_ceil(32)) * cols;
    // 16 bytes a cell: a packed word (4-byte accumulators), a packed pair (8-byte ones) or
    // a status apart from the values (any other).
    let lb = Lookback::new(16 * cells, cells, e.acc)?;
    let grid = grid_of(tiles, "over an axis of", n)?;
    let mut rest: Vec<Box<dyn KernelArg>> =
        vec![idx(wide, outer), idx(wide, len), idx(wide, inner)];
    rest.extend(lb.args());
    e.prog
        .launch("cuprum_scan_axis", grid, 256, args(e, inputs, out, rest))
}

/// Scans the axis of extent `len` of the contiguous `(outer, len, inner)` `inputs`, one
/// thread per column.
fn column_scan(
    e: &Engine,
    inputs: &[Array],
    out: &Array,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<()> {
    let wide = !fits_u32(out.size());
    let grid = blocks_for(outer * inner);
    let rest = vec![idx(wide, outer), idx(wide, len), idx(wide, inner)];
    e.prog
        .launch("cuprum_scan_cols", grid, 256, args(e, inputs, out, rest))
}
