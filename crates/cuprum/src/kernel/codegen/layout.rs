//! How an elementwise loop walks memory. Every call is classified from its operands'
//! strides (after broadcasting and dimension merging) into one of four kernel shapes:
//!
//! - **Contiguous**: every array is C-contiguous over the loop → a 1-D loop with no index
//!   arithmetic, each thread moving `vec` elements with one wide load per array when every
//!   pointer is aligned to the vector width;
//! - **Tiled**: some array walks the last two loop axes transposed (unit stride on the
//!   second-to-last axis) → 32×32 tiles staged through shared memory so both sides of the
//!   transpose read and write whole cache lines; the other inputs are read into registers
//!   before the tiles' barrier, so that every load of a tile is in flight at once;
//! - **Rows**: anything else with a long last axis (broadcast rows, slices, reversed axes)
//!   → a 2-D launch over (rows, columns); each thread unravels its row once and walks the
//!   columns with one multiply per array, no per-element division. When every array's
//!   last axis has unit stride (or stride 0: a value broadcast along the row) and rows
//!   stay aligned, each thread moves `vec` columns with wide loads;
//! - **Flat**: a short last axis → one unravel (32-bit division when it fits) per element.
//!
//! Index width: 32-bit (`unsigned int` loop index, `int` offsets) when the loop size and
//! every array's element span fit in `i32`, else 64-bit.

use crate::shape::{Shape, Strides, merge_dims_of_views};
use smallvec::SmallVec;

/// Tile edge of the transposing kernel.
pub(crate) const TILE: usize = 32;
/// Rows of threads per tile (each thread handles `TILE / TILE_ROWS` elements). Measured on
/// an H200 with a transposed add of (10000, 10000) float32: 4 rows 295 µs, 8 rows 308,
/// 16 rows 365 (the untiled operand loaded before the barrier in each).
pub(crate) const TILE_ROWS: usize = 4;
/// Shared memory the tiled kernel may use (bytes, of the 48 KiB static limit).
const TILE_SMEM_LIMIT: usize = 40 * 1024;

/// The kernel shape of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutClass {
    /// Every array C-contiguous: flat loop, wide loads.
    Contiguous,
    /// Transposed operands through shared-memory tiles.
    Tiled,
    /// A 2-D launch over rows and columns.
    Rows,
    /// One unravel per element.
    Flat,
}

/// Everything about the layout that changes the generated code (part of the kernel's
/// specialisation key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The kernel shape.
    pub class: LayoutClass,
    /// Loop dimensions after merging (1 for Contiguous).
    pub nd: u8,
    /// 64-bit indexing.
    pub wide: bool,
    /// Elements per thread step with wide loads (Contiguous and Rows; 1 otherwise).
    pub vec: u8,
    /// Bit k set: non-raw array k goes through shared-memory tiles (Tiled only).
    pub tiled: u32,
    /// Bit k set: non-raw array k has stride 0 along the rows (Rows with `vec > 1` only).
    pub row_bcast: u32,
    /// Bit k set: non-raw array k starts off the vector (Contiguous with `vec > 1` only):
    /// the wide loop reads and writes it one element at a time, the others in vectors.
    pub unaligned: u32,
}

/// One non-raw array as the planner sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArrayLayout<'a> {
    /// Element strides broadcast to the loop shape.
    pub strides: &'a [isize],
    /// Device address of the first element.
    pub ptr: u64,
    /// Bytes per element.
    pub itemsize: usize,
    /// Whether the array may be staged through registers or shared memory (false for
    /// inputs the operation may write, or operations that take addresses).
    pub staged: bool,
}

/// A call's layout plus the merged shape and strides its kernel receives.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub layout: Layout,
    pub n: usize,
    pub shape: Shape,
    pub strides: SmallVec<[Strides; 4]>,
}

/// Classifies a call. `loop_shape` must have no zero extent.
pub(crate) fn plan(loop_shape: &[usize], arrays: &[ArrayLayout<'_>], reduce_dims: bool) -> Plan {
    let n: usize = loop_shape.iter().product();
    let (shape, strides): (Shape, SmallVec<[Strides; 4]>) = if reduce_dims {
        let all: SmallVec<[&[isize]; 8]> = arrays.iter().map(|a| a.strides).collect();
        let (s, st) = merge_dims_of_views(loop_shape, &all);
        (s, st.into_iter().collect())
    } else {
        (
            Shape::from_slice(loop_shape),
            arrays
                .iter()
                .map(|a| Strides::from_slice(a.strides))
                .collect(),
        )
    };
    let nd = shape.len();
    let span = |st: &Strides| -> usize {
        st.iter()
            .zip(shape.iter())
            .map(|(s, d)| s.unsigned_abs() * (d - 1))
            .sum()
    };
    let wide = n > i32::MAX as usize || strides.iter().any(|st| span(st) > i32::MAX as usize);
    let contiguous = nd == 0 || (nd == 1 && strides.iter().all(|s| s[0] == 1));
    if contiguous {
        return contiguous_plan(n, arrays);
    }
    let mut plan = Plan {
        layout: Layout {
            class: LayoutClass::Contiguous,
            nd: nd as u8,
            wide,
            vec: 1,
            tiled: 0,
            row_bcast: 0,
            unaligned: 0,
        },
        n,
        shape,
        strides,
    };
    if let Some(mask) = tiles(&plan, arrays) {
        plan.layout.class = LayoutClass::Tiled;
        plan.layout.tiled = mask;
    } else if nd == 1 || plan.shape[nd - 1] >= 32 {
        plan.layout.class = LayoutClass::Rows;
        row_loads(&mut plan, arrays);
    } else {
        plan.layout.class = LayoutClass::Flat;
    }
    plan
}

/// The arrays to stage through shared-memory tiles (a bit each): the staged ones that walk
/// the last two axes transposed, when the tiles are worth it (both axes at least half a
/// tile) and fit in shared memory.
fn tiles(p: &Plan, arrays: &[ArrayLayout<'_>]) -> Option<u32> {
    let nd = p.shape.len();
    if nd < 2 {
        return None;
    }
    let (r, c) = (p.shape[nd - 2], p.shape[nd - 1]);
    let mut mask = 0u32;
    let mut smem = 0usize;
    for (k, (a, st)) in arrays.iter().zip(p.strides.iter()).enumerate() {
        let transposed = st[nd - 2] == 1 && st[nd - 1].unsigned_abs() > 1;
        if a.staged && transposed && k < 32 {
            mask |= 1 << k;
            smem += TILE * (TILE + 1) * a.itemsize;
        }
    }
    (mask != 0 && r >= TILE / 2 && c >= TILE / 2 && smem <= TILE_SMEM_LIMIT).then_some(mask)
}

/// Wide loads along the rows of a Rows plan: the widest vector that divides the row
/// length, where every array is staged and either broadcast along the row (stride 0) or
/// unit-stride with aligned row starts; broadcast arrays are marked.
fn row_loads(p: &mut Plan, arrays: &[ArrayLayout<'_>]) {
    let nd = p.shape.len();
    let c = p.shape[nd - 1];
    let strides = &p.strides;
    let mut vec = widest_vec(arrays);
    let fits = |v: usize| {
        c.is_multiple_of(v)
            && arrays.iter().zip(strides.iter()).all(|(a, st)| {
                let inner = st[nd - 1];
                a.staged
                    && (inner == 0
                        || (inner == 1
                            && a.ptr % (v * a.itemsize) as u64 == 0
                            && st[..nd - 1].iter().all(|s| s % v as isize == 0)))
            })
    };
    while vec > 1 && !fits(vec) {
        vec /= 2;
    }
    if vec > 1 {
        p.layout.vec = vec as u8;
        for (k, st) in strides.iter().enumerate().take(32) {
            if st[nd - 1] == 0 {
                p.layout.row_bcast |= 1 << k;
            }
        }
    }
}

/// Elements per wide load: 16 bytes of the widest element type, at most 8.
fn widest_vec(arrays: &[ArrayLayout<'_>]) -> usize {
    let max_item = arrays.iter().map(|a| a.itemsize).max().unwrap_or(16);
    (16 / max_item.max(1)).clamp(1, 8)
}

/// The plan when every array is C-contiguous over the loop (no strides needed): the widest
/// vector every array is aligned to; or, when some views start off the vector (`x[1:]`,
/// a stencil's shifted slices) but another array is aligned to the widest one, that
/// vector with the others marked [`unaligned`](Layout::unaligned) (moved one element at a
/// time inside the wide loop, from the cache lines their neighbours' loads bring in).
pub(crate) fn contiguous_plan(n: usize, arrays: &[ArrayLayout<'_>]) -> Plan {
    let widest = widest_vec(arrays);
    let aligned =
        |a: &ArrayLayout<'_>, v: usize| a.staged && a.ptr.is_multiple_of((v * a.itemsize) as u64);
    let mut vec = widest;
    while vec > 1 && !arrays.iter().all(|a| aligned(a, vec)) {
        vec /= 2;
    }
    let mut unaligned = 0u32;
    if vec < widest
        && arrays.len() <= 32
        && arrays.iter().all(|a| a.staged)
        && arrays.iter().any(|a| aligned(a, widest))
    {
        vec = widest;
        for (k, a) in arrays.iter().enumerate() {
            if !aligned(a, widest) {
                unaligned |= 1 << k;
            }
        }
    }
    if n < 2 * vec {
        vec = 1;
        unaligned = 0;
    }
    Plan {
        layout: Layout {
            class: LayoutClass::Contiguous,
            nd: 1,
            wide: n > i32::MAX as usize,
            vec: vec as u8,
            tiled: 0,
            row_bcast: 0,
            unaligned,
        },
        n,
        shape: Shape::from_elem(n, 1),
        strides: arrays.iter().map(|_| Strides::from_elem(1, 1)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(strides: &[isize], ptr: u64, itemsize: usize) -> ArrayLayout<'_> {
        ArrayLayout {
            strides,
            ptr,
            itemsize,
            staged: true,
        }
    }

    #[test]
    fn contiguous_vectorises_when_aligned() {
        let s = [12, 4, 1];
        let p = plan(&[10, 3, 4], &[arr(&s, 256, 4), arr(&s, 512, 4)], true);
        assert_eq!(p.layout.class, LayoutClass::Contiguous);
        assert_eq!((p.layout.vec, p.n, p.layout.wide), (4, 120, false));
        // a pointer 4 bytes off 16-byte alignment: the other array still moves vectors,
        // the shifted one element by element
        let p = plan(&[10, 3, 4], &[arr(&s, 260, 4), arr(&s, 512, 4)], true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (4, 0b01));
        // `a[1:] - a[:-1]` into a fresh array
        let a = [arr(&[1], 1028, 4), arr(&[1], 1024, 4), arr(&[1], 4096, 4)];
        let p = plan(&[99], &a, true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (4, 0b001));
        // no array aligned to the widest vector: the widest all share, none marked
        let p = plan(&[120], &[arr(&[1], 8, 4), arr(&[1], 24, 4)], true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (2, 0));
        let p = plan(&[120], &[arr(&[1], 4, 4)], true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (1, 0));
        // an array the operation may write while reading it: no wide loop
        let mut w = arr(&[1], 4, 4);
        w.staged = false;
        let p = plan(&[120], &[w, arr(&[1], 0, 4)], true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (1, 0));
        // too short for two vectors: nothing marked
        let p = plan(&[7], &[arr(&[1], 4, 4), arr(&[1], 0, 4)], true);
        assert_eq!((p.layout.vec, p.layout.unaligned), (1, 0));
        // mixed item sizes: the widest decides
        let p = plan(&[120], &[arr(&[1], 0, 16), arr(&[1], 0, 8)], true);
        assert_eq!(p.layout.vec, 1);
        let p = plan(&[120], &[arr(&[1], 0, 8), arr(&[1], 0, 1)], true);
        assert_eq!(p.layout.vec, 2);
        // 0-d loop
        let p = plan(&[], &[arr(&[], 0, 4)], true);
        assert_eq!((p.layout.class, p.n), (LayoutClass::Contiguous, 1));
    }

    #[test]
    fn broadcast_rows_and_transposes() {
        // (1000, 1000) + (1000,) -> rows
        let p = plan(
            &[1000, 1000],
            &[
                arr(&[1000, 1], 0, 4),
                arr(&[0, 1], 0, 4),
                arr(&[1000, 1], 0, 4),
            ],
            true,
        );
        assert_eq!((p.layout.class, p.layout.nd), (LayoutClass::Rows, 2));
        assert_eq!((p.layout.vec, p.layout.row_bcast), (4, 0));
        // a column vector broadcast along rows: stride 0 on the last axis
        let p = plan(
            &[1000, 1000],
            &[
                arr(&[1000, 1], 0, 4),
                arr(&[1, 0], 0, 4),
                arr(&[1000, 1], 0, 4),
            ],
            true,
        );
        assert_eq!((p.layout.vec, p.layout.row_bcast), (4, 2));
        // odd row length: no wide loads
        let p = plan(
            &[1000, 999],
            &[arr(&[999, 1], 0, 4), arr(&[0, 1], 0, 4)],
            true,
        );
        assert_eq!(p.layout.vec, 1);
        // A.T + A -> tiled, only A.T staged
        let p = plan(
            &[1000, 1000],
            &[
                arr(&[1, 1000], 0, 4),
                arr(&[1000, 1], 0, 4),
                arr(&[1000, 1], 0, 4),
            ],
            true,
        );
        assert_eq!((p.layout.class, p.layout.tiled), (LayoutClass::Tiled, 1));
        // short last axis -> flat
        let p = plan(
            &[1000, 3],
            &[arr(&[1, 1000], 0, 4), arr(&[3, 1], 0, 4)],
            true,
        );
        assert_eq!(p.layout.class, LayoutClass::Flat);
        // reversed 1-d -> rows with one row
        let p = plan(&[50], &[arr(&[-1], 0, 4), arr(&[1], 0, 4)], true);
        assert_eq!((p.layout.class, p.layout.nd), (LayoutClass::Rows, 1));
    }

    #[test]
    fn wide_when_spans_exceed_i32() {
        let p = plan(&[3_000_000_000], &[arr(&[1], 0, 1)], true);
        assert!(p.layout.wide);
        let p = plan(&[2, 10], &[arr(&[2_000_000_000, 1], 0, 1)], true);
        assert!(!p.layout.wide);
        let p = plan(&[3, 10], &[arr(&[2_000_000_000, 1], 0, 1)], true);
        assert!(p.layout.wide);
    }
}
