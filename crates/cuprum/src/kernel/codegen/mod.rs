//! The CUDA C++ that generated kernels are made of. Pure string building: no GPU, no
//! NVRTC; the callers compile what it returns. [`entry`] writes parameter lists with their
//! argument schema, [`writer`] the source around the user's strings, [`analysis`] reads the
//! operation string, [`layout`] classifies a call; [`elementwise`] and [`reduction`] write
//! one specialisation each. [`scan`] is the scan engine's template (its programs are raw
//! modules, after [`prelude`], the CUDA prelude they share with `ops`' routines).
//!
//! **Bools are read by their byte.** Every bool input of a generated kernel (an element-wise
//! reference, a reduction's element, a scan's `load_a` and a ScanKernel's `_map`) and every
//! cast from bool goes through `cuprum::as_bool` (`indexer.cuh`): a bool array viewed from
//! other bytes holds values other than 0 and 1, which NumPy reads as true and C++ leaves
//! undefined; reading the byte makes counts and compactions of such arrays agree.

pub(crate) mod analysis;
pub(crate) mod elementwise;
pub(crate) mod entry;
pub(crate) mod layout;
pub(crate) mod prelude;
pub(crate) mod reduction;
pub(crate) mod scan;
pub(crate) mod writer;

pub(crate) use analysis::{OpAnalysis, analyse};
