//! What a boolean index is: [`Masked`], an array and a bool mask borrowed together
//! (NumPy's `a[mask]` as a handle), with NumPy's rules for the mask's dtype and shape.
//! Reading and writing through it are its methods in `masked.rs` and `masked_update.rs`.

use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::shape::format_shape;

/// The elements of an array where a bool mask is true: NumPy's `a[mask]`, made with
/// [`Array::masked`]. The mask has the array's shape, or the shape of its leading axes
/// (then whole trailing sub-arrays are selected).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let x = Array::from_slice(&[0.2f32, 0.7, 0.9, 0.1], &[4])?;
/// let m = ops::greater(&x, 0.5)?;
/// let sel = x.masked(&m).get()?;                  // x[x > 0.5]
/// assert_eq!(sel.to_vec::<f32>()?, vec![0.7, 0.9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Masked<'a> {
    pub(super) array: &'a Array,
    pub(super) mask: &'a Array,
}

impl Array {
    /// A boolean-mask selection of this array (NumPy's `a[mask]`): read it with
    /// [`Masked::get`]. Nothing runs until then.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let m = Array::from_slice(&[true, false, true, false, false, true], &[2, 3])?;
    /// assert_eq!(a.masked(&m).get()?.to_vec::<i32>()?, vec![1, 3, 6]);
    /// let rows = Array::from_slice(&[false, true], &[2])?;
    /// assert_eq!(a.masked(&rows).get()?.shape(), &[1, 3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn masked<'a>(&'a self, mask: &'a Array) -> Masked<'a> {
        Masked { array: self, mask }
    }
}

impl<'a> Masked<'a> {
    /// The array being indexed.
    pub fn array(&self) -> &'a Array {
        self.array
    }

    /// The mask.
    pub fn mask(&self) -> &'a Array {
        self.mask
    }

    /// Checks NumPy's rules for a boolean index: a bool mask whose shape is the array's
    /// shape or the shape of its leading axes.
    pub fn check(&self) -> Result<()> {
        let (a, m) = (self.array, self.mask);
        if m.dtype() != DType::Bool {
            bail!(
                DType,
                "a mask must be a bool array, got {} (use ops::not_equal(&m, 0) for a non-zero test)",
                m.dtype()
            );
        }
        if m.ndim() > a.ndim() {
            bail!(
                Shape,
                "too many indices for array: array is {}-dimensional, but {} were indexed",
                a.ndim(),
                m.ndim()
            );
        }
        for (k, (&am, &mm)) in a.shape().iter().zip(m.shape()).enumerate() {
            if am != mm {
                bail!(
                    Shape,
                    "boolean index did not match indexed array along axis {k}; size of axis is \
                     {am} but size of corresponding boolean axis is {mm} (array {}, mask {})",
                    format_shape(a.shape()),
                    format_shape(m.shape())
                );
            }
        }
        Ok(())
    }
}
