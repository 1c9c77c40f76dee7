//! Boolean-mask selection: `a.masked(&mask)` is NumPy's `a[mask]` as a handle; `get()`
//! reads the selected elements into a new array.
//!
//! The handle only borrows the array and the mask (nothing runs until an operation is
//! called), so operations that write through the mask belong on it too: an assignment or
//! an in-place update (`a[mask] = v`, `a[mask] += v`) is one element-wise kernel over
//! `(a, mask)` that writes where the mask is set, needs no count and no host round trip,
//! and can be added here as methods of [`Masked`] (`set`, `add_assign`, …) next to `get`.

use super::compact::select_values;
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::shape::format_shape;

/// The elements of an array where a bool mask is true: NumPy's `a[mask]`, made with
/// [`Array::masked`]. The mask has the array's shape, or the shape of its leading axes
/// (then whole trailing sub-arrays are selected).
///
/// ```no_run
/// use cuprum::{Array, ops};
/// let x = Array::from_slice(&[0.2f32, 0.7, 0.9, 0.1], &[4])?;
/// let m = ops::greater(&x, 0.5)?;
/// let sel = x.masked(&m).get()?;                  // x[x > 0.5]
/// assert_eq!(sel.to_vec::<f32>()?, vec![0.7, 0.9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Masked<'a> {
    array: &'a Array,
    mask: &'a Array,
}

impl Array {
    /// A boolean-mask selection of this array (NumPy's `a[mask]`): read it with
    /// [`Masked::get`]. Nothing runs until then.
    ///
    /// ```no_run
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

    /// The selected elements as a new array of shape `(count,) + a.shape[mask.ndim..]`, in
    /// C order. One pass reads the mask and the array once and writes the result (one
    /// device → host read of the count at the end); the result is then a view of an
    /// array of the input's size, copied into one of its own size when most of it would
    /// be unused.
    ///
    /// ```no_run
    /// use cuprum::{Array, DType};
    /// let a = Array::arange(0.0, 5.0, 1.0, DType::F64)?;
    /// let none = Array::zeros(&[5], DType::Bool)?;
    /// assert_eq!(a.masked(&none).get()?.shape(), &[0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get(&self) -> Result<Array> {
        self.check()?;
        let (a, m) = (self.array, self.mask);
        if m.ndim() < a.ndim() {
            return self.get_rows();
        }
        let n = a.size();
        let out = Array::empty(&[n], a.dtype())?;
        if n == 0 {
            return Ok(out);
        }
        let count = select_values(&m.to_contiguous()?, &a.to_contiguous()?, &out)?;
        let part = out.slice(&[(0..count as isize).into()])?;
        if count < n / 8 && n * a.itemsize() > 1 << 20 {
            part.copy()
        } else {
            Ok(part)
        }
    }

    /// `get` for a mask over the leading axes: the row positions, then a gather of rows.
    fn get_rows(&self) -> Result<Array> {
        let (a, m) = (self.array, self.mask);
        let lead = m.ndim();
        let rows: usize = a.shape()[..lead].iter().product();
        let mut shape: Vec<isize> = vec![rows as isize];
        shape.extend(a.shape()[lead..].iter().map(|&d| d as isize));
        let by_rows = a.reshape_copy(&shape)?;
        let picked = super::flatnonzero(m)?;
        super::take_with(&by_rows, &picked, Some(0), super::IndexMode::Clip)
    }
}
