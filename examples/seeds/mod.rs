//! The seed examples, each defined once: its kernel (strings, or a `.cu` file of
//! `examples/kernels/`), its data and its check. Included with `#[path]` as `seeds` by the
//! examples (one seed each), `cuprum demo` (the same result line, then the seed's main call
//! timed) and the tests that use a seed kernel or host reference. The seeds written in Rust
//! are `jit.rs`, included beside this module.
#![allow(dead_code)] // each includer uses part of it

#[path = "check.rs"]
pub mod check;
#[path = "elementwise.rs"]
pub mod elementwise;
#[path = "indexing.rs"]
pub mod indexing;
#[path = "prime.rs"]
pub mod prime;
#[path = "raw.rs"]
pub mod raw;
#[path = "reduction.rs"]
pub mod reduction;
