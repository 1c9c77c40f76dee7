//! `sort_by_key`: keys sorted, values carried along (thrust's and CUB's key-value sort).
//!
//! Values of 4 bytes (int32, uint32, float32) ride in the radix sort's carried word, the
//! one that holds positions for `argsort`: each pass reads and writes keys and values once,
//! nothing else (no index array, no gather). Other value widths and complex keys take the
//! stable `argsort` and gather both arrays by it.

use super::indexing::{IndexMode, take_with};
use super::radix::{MAX_SORT, SortMode};
use super::sort::{argsort, radix_with};
use crate::array::{Array, DTypeKind};
use crate::error::{Result, bail};

/// Sorts `keys` and returns them with `values` in the same order: `(sorted keys, values)`,
/// both 1-D, the keys' and the values' dtypes. Stable: values of equal keys keep their
/// order. Both arrays are taken in flattened order and must hold as many elements. Keys of
/// every sortable dtype in NumPy's order (NaNs last, as one canonical NaN; for float keys
/// -0.0 sorts before 0.0 here, where `argsort` treats them as equal); values of any dtype.
///
/// # Errors
/// `Shape` when the two arrays hold different numbers of elements;
/// `DeviceMismatch` when they live on different devices; `Unsupported` past 2^30 - 1
/// elements.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let keys = Array::from_slice(&[3u32, 1, 2, 1], &[4])?;
/// let vals = Array::from_slice(&[30.0f32, 10.0, 20.0, 11.0], &[4])?;
/// let (k, v) = ops::sort_by_key(&keys, &vals)?;
/// assert_eq!(k.to_vec::<u32>()?, vec![1, 1, 2, 3]);
/// assert_eq!(v.to_vec::<f32>()?, vec![10.0, 11.0, 20.0, 30.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn sort_by_key(keys: &Array, values: &Array) -> Result<(Array, Array)> {
    if let Some(r) = crate::ops::programs::elsewhere_then(keys, || sort_by_key(keys, values)) {
        return r;
    }
    if keys.size() != values.size() {
        bail!(
            Shape,
            "sort_by_key: keys {:?} hold {} elements and values {:?} {}: expected as many \
             values as keys",
            keys.shape(),
            keys.size(),
            values.shape(),
            values.size()
        );
    }
    if keys.device() != values.device() {
        bail!(
            DeviceMismatch,
            "sort_by_key: keys on {:?}, values on {:?}: expected one device",
            keys.device(),
            values.device()
        );
    }
    let n = keys.size();
    if n > MAX_SORT {
        bail!(
            Unsupported,
            "sort_by_key of {n} elements: at most {MAX_SORT} (2^30 - 1) per call"
        );
    }
    let k = keys.reshape_copy(&[-1])?.to_contiguous()?;
    let v = values.reshape_copy(&[-1])?.to_contiguous()?;
    if values.dtype().itemsize() != 4 || keys.dtype().kind() == DTypeKind::Complex {
        let perm = argsort(&k, Some(0))?;
        return Ok((
            take_with(&k, &perm, None, IndexMode::Clip)?,
            take_with(&v, &perm, None, IndexMode::Clip)?,
        ));
    }
    let out_k = Array::empty(&[n], keys.dtype())?;
    let out_v = Array::empty(&[n], values.dtype())?;
    if n > 0 {
        radix_with(&k, SortMode::ByKey, n, &out_k, Some((&v, &out_v)))?;
    }
    Ok((out_k, out_v))
}
