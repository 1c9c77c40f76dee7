//! Random arrays through cuRAND (Philox generator): floats (float32 and float64), integers
//! and permutations.
//!
//! On the host device the generator is cuprum's own Philox4x32-10 (the same counter-based
//! algorithm; uniform values in `(0, 1]` from 24 or 53 random bits, normal values by
//! Box–Muller): the same distributions as cuRAND's, but not the same numbers. A seed gives
//! the same numbers on every run of the host device.
//!
//! ```
//! # if !cuprum_doctest::device()? { return Ok(()); }
//! use cuprum::{random, DType};
//! random::seed(42)?;
//! let u = random::uniform(-1.0, 1.0, &[1000], DType::F32)?;   // [-1, 1)
//! let n = random::normal(0.0, 2.0, &[10, 10], DType::F64)?;
//! let r = random::random(&[5], DType::F64)?;                  // [0, 1)
//! let z = random::standard_normal(&[3], DType::F32)?;         // the seeds' randn
//! let k = random::randint(0, 10, &[4], DType::I64)?;          // [0, 10)
//! let p = random::permutation(5)?;                            // 0..5 shuffled (int64)
//! # Ok::<(), cuprum::Error>(())
//! ```

pub use crate::array::random::*;
pub use crate::ops::permutation::{permutation, permutation_of};
