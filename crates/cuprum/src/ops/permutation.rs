//! Random permutations (`cuprum::random::permutation`): random 64-bit keys from the
//! default generator, argsorted (the stable radix sort), then a gather. Built here, above
//! the array layer's cuRAND generators, because it needs the sort and the gather.

use crate::array::{Array, DType, random};
use crate::error::{Result, bail};

/// A random permutation of `0..n` as int64 (NumPy's `permutation(n)`): `n` random 64-bit
/// keys from the default generator, argsorted. Every ordering is equally likely up to the
/// chance of two equal keys (about `n^2 / 2^65`: 3e-4 for `n = 1e8`), which keeps their
/// order. No synchronisation.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::random;
/// let p = random::permutation(5)?;
/// let mut v = p.to_vec::<i64>()?;
/// v.sort();
/// assert_eq!(v, vec![0, 1, 2, 3, 4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn permutation(n: usize) -> Result<Array> {
    if n == 0 {
        return Array::empty(&[0], DType::I64);
    }
    let keys = random::randint(0, 1i128 << 64, &[n], DType::U64)?;
    super::argsort(&keys, None)
}

/// A copy of `a` with its first axis randomly permuted (NumPy's `permutation(x)` of an
/// array): [`permutation`] of `a.shape[0]`, then a gather of those rows.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, random};
/// let a = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[3, 2])?;
/// let p = random::permutation_of(&a)?;
/// assert_eq!(p.shape(), &[3, 2]);
/// let mut rows: Vec<Vec<i32>> = p.to_vec::<i32>()?.chunks(2).map(|c| c.to_vec()).collect();
/// rows.sort();
/// assert_eq!(rows, vec![vec![1, 2], vec![3, 4], vec![5, 6]]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn permutation_of(a: &Array) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || permutation_of(a)) {
        return r;
    }
    if a.ndim() == 0 {
        bail!(
            Shape,
            "permutation_of needs an array of at least one dimension (got a 0-d array); \
             use permutation(n) for a permutation of 0..n"
        );
    }
    let p = permutation(a.shape()[0])?;
    super::take_with(a, &p, Some(0), super::IndexMode::Clip)
}
