//! The CUDA C++ that generated kernels are made of. Pure string building: no GPU, no
//! NVRTC; the callers compile what it returns. [`entry`] writes parameter lists with their
//! argument schema, [`writer`] the source around the user's strings, [`analysis`] reads the
//! operation string, [`layout`] classifies a call; [`elementwise`] and [`reduction`] write
//! one specialisation each. [`scan`] is the scan engine's template (its programs are raw
//! modules, after [`prelude`], the CUDA prelude they share with `ops`' routines).

pub(crate) mod analysis;
pub(crate) mod elementwise;
pub(crate) mod entry;
pub(crate) mod layout;
pub(crate) mod prelude;
pub(crate) mod reduction;
pub(crate) mod scan;
pub(crate) mod writer;

pub(crate) use analysis::{OpAnalysis, analyse};
