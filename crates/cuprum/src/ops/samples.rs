//! Every built-in operation's kernel sources, for NVRTC compile checks on machines without
//! a GPU (tests/nvrtc.rs): the ufunc table for every dtype, the reductions, and the array
//! routines. Each module writes its own specialisations; this file gathers them.

use super::{
    close, compact, elementwise, fft_columns, histogram, indexing, masked_update, matrix, quantile,
    rearrange, reduction, scan, scatter_at, search, select, sort, subscript, unique, unique_hash,
};
use crate::error::Result;

/// Sources of every built-in elementwise operation for every dtype (and every astype pair,
/// the small powers, and the masked updates).
pub fn elementwise_sample_sources() -> Result<Vec<(String, String)>> {
    let mut out = elementwise::sample_sources()?;
    out.extend(masked_update::sample_sources()?);
    Ok(out)
}

/// Sources of every built-in reduction for every dtype it accepts (and `allclose`).
pub fn reduction_sample_sources() -> Result<Vec<(String, String)>> {
    let mut out = reduction::sample_sources()?;
    out.extend(close::sample_sources()?);
    Ok(out)
}

/// Every routine kernel's source (scans, compaction, sorts, gathers and scatters, for every
/// dtype).
pub fn routine_sample_sources() -> Result<Vec<(String, String)>> {
    let mut v = scan::sample_sources();
    v.extend(compact::sample_sources());
    v.extend(indexing::sample_sources());
    v.extend(scatter_at::sample_sources());
    v.extend(subscript::sample_sources());
    v.extend(sort::sample_sources());
    v.extend(select::sample_sources());
    v.extend(search::sample_sources());
    v.extend(unique_hash::sample_sources());
    v.extend(histogram::sample_sources());
    v.extend(fft_columns::sample_sources());
    v.extend(indexing::elementwise_sources()?);
    v.extend(unique::elementwise_sources()?);
    v.extend(matrix::elementwise_sources()?);
    v.extend(rearrange::elementwise_sources()?);
    v.extend(sort::elementwise_sources()?);
    v.extend(quantile::elementwise_sources()?);
    Ok(v)
}
