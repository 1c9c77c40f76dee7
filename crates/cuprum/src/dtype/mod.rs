//! The dtype table: every element type cuprum knows, its NumPy name, its Rust type and its C
//! type in generated kernels. This is the one place these facts live: the macro
//! `dtype_table!` passes the table to the macros that generate `DType` with its names,
//! sizes and C types, the `Element` impls, and `Scalar` (`scalar.rs`).
//!
//! **A floor of its own**, importing only `error`: the array layer (arrays of these
//! dtypes) and the kernel ABI below it (argument schemas of record types and scalars) both
//! build on it, and the array layer re-exports it (`cuprum::DType`, `cuprum::Scalar`).

mod half_round;
mod scalar;
mod table;

pub(crate) use half_round::f16_from_f64;

pub use scalar::Scalar;
pub use table::{DType, DTypeKind, Element, RecordType};
pub(crate) use table::{RecordInfo, as_bytes, vec_filled, vec_from_bytes};
