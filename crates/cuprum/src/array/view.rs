//! Views without copies: reshape, transpose, permute, slicing, broadcast, squeeze,
//! expand_dims.

use super::device_array::Array;
use super::shape::{
    MAX_NDIM, Shape, SliceArg, Strides, broadcast_strides, format_shape, infer_shape, nbytes_of,
    nocopy_reshape, normalize_axis, resolve_range,
};
use crate::dtype::DType;
use crate::error::{Result, bail};

impl Array {
    /// A view with a new shape (one extent may be `-1`, inferred). Fails when the layout
    /// cannot be viewed that way without a copy: use [`reshape_copy`](Array::reshape_copy).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let a = Array::arange(0.0, 6.0, 1.0, DType::F32)?;
    /// let b = a.reshape(&[2, -1])?;
    /// assert_eq!(b.shape(), &[2, 3]);
    /// assert!(b.shares_memory(&a));
    /// let err = b.t().reshape(&[6]).unwrap_err();          // the transpose needs a copy
    /// assert_eq!(err.kind(), ErrorKind::Shape);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reshape(&self, shape: &[isize]) -> Result<Array> {
        let new = infer_shape(self.size(), shape)?;
        match nocopy_reshape(&self.shape, &self.strides, &new)? {
            Some(strides) => Ok(self.view(new, strides, self.offset)),
            None => bail!(
                Shape,
                "cannot reshape the array of shape {} and strides {:?} into {} without a copy; \
                 use reshape_copy",
                format_shape(&self.shape),
                self.strides.as_slice(),
                format_shape(&new)
            ),
        }
    }

    /// Reshapes, copying only when a view is impossible (NumPy's `reshape`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::arange(0.0, 6.0, 1.0, DType::I64)?.reshape(&[2, 3])?;
    /// let flat = a.t().reshape_copy(&[-1])?;
    /// assert_eq!(flat.to_vec::<i64>()?, vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn reshape_copy(&self, shape: &[isize]) -> Result<Array> {
        let new = infer_shape(self.size(), shape)?;
        match nocopy_reshape(&self.shape, &self.strides, &new)? {
            Some(strides) => Ok(self.view(new, strides, self.offset)),
            None => {
                let c = self.copy()?;
                let strides = super::shape::c_strides(&new)?;
                Ok(c.view(new, strides, 0))
            }
        }
    }

    /// A 1-D view when possible, else a 1-D copy.
    pub fn ravel(&self) -> Result<Array> {
        self.reshape_copy(&[-1])
    }

    /// Reverses the axes (a view).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[2, 3, 4], DType::F32)?;
    /// assert_eq!(a.transpose().shape(), &[4, 3, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn transpose(&self) -> Array {
        let shape: Shape = self.shape.iter().rev().copied().collect();
        let strides: Strides = self.strides.iter().rev().copied().collect();
        self.view(shape, strides, self.offset)
    }

    /// Shorthand for [`transpose`](Array::transpose).
    pub fn t(&self) -> Array {
        self.transpose()
    }

    /// Reorders the axes: axis `i` of the result is axis `axes[i]` of `self` (negative
    /// numbers count from the end).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[2, 3, 4], DType::F32)?;
    /// assert_eq!(a.permute(&[1, -1, 0])?.shape(), &[3, 4, 2]);
    /// assert!(a.permute(&[0, 0, 1]).is_err());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn permute(&self, axes: &[isize]) -> Result<Array> {
        if axes.len() != self.ndim() {
            bail!(
                Shape,
                "axes {axes:?} don't match an array of {} dimensions",
                self.ndim()
            );
        }
        let mut seen = vec![false; self.ndim()];
        let mut shape = Shape::new();
        let mut strides = Strides::new();
        for &a in axes {
            let ax = normalize_axis(a, self.ndim())?;
            if std::mem::replace(&mut seen[ax], true) {
                bail!(Shape, "repeated axis {a} in permutation {axes:?}");
            }
            shape.push(self.shape[ax]);
            strides.push(self.strides[ax]);
        }
        Ok(self.view(shape, strides, self.offset))
    }

    /// Swaps two axes (a view).
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array> {
        let (a, b) = (
            normalize_axis(a, self.ndim())?,
            normalize_axis(b, self.ndim())?,
        );
        let mut perm: Vec<isize> = (0..self.ndim() as isize).collect();
        perm.swap(a, b);
        self.permute(&perm)
    }

    /// NumPy-style basic slicing: one [`SliceArg`] per leading axis (missing trailing axes
    /// are taken whole); indices drop their axis, ranges may step backwards, `NewAxis`
    /// inserts an axis. Always a view.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, s, SliceArg};
    /// let a = Array::arange(0.0, 12.0, 1.0, DType::I32)?.reshape(&[3, 4])?;
    /// let b = a.slice(&s![..;-1, 1..;2])?;       // a[::-1, 1::2]
    /// assert_eq!(b.to_vec::<i32>()?, vec![9, 11, 5, 7, 1, 3]);
    /// let row = a.slice(&s![-1])?;               // a[-1]
    /// assert_eq!(row.to_vec::<i32>()?, vec![8, 9, 10, 11]);
    /// assert!(a.slice(&s![3]).is_err());         // out of range
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn slice(&self, args: &[SliceArg]) -> Result<Array> {
        let consumed = args
            .iter()
            .filter(|a| !matches!(a, SliceArg::NewAxis | SliceArg::Invalid(_)))
            .count();
        if consumed > self.ndim() {
            bail!(
                Shape,
                "too many indices for array: array is {}-dimensional, but {consumed} were indexed",
                self.ndim()
            );
        }
        let new_axes = args.len() - consumed;
        if self.ndim() + new_axes > MAX_NDIM {
            bail!(
                Shape,
                "an array may have at most {MAX_NDIM} dimensions: slicing {} dimensions with \
                 {new_axes} new axes makes {}",
                self.ndim(),
                self.ndim() + new_axes
            );
        }
        let mut offset = self.offset as isize;
        let mut shape = Shape::new();
        let mut strides = Strides::new();
        let mut ax = 0usize;
        for a in args {
            match *a {
                SliceArg::Invalid(why) => bail!(InvalidArgument, "invalid slice: {why}"),
                SliceArg::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceArg::Index(i) => {
                    let len = self.shape[ax] as isize;
                    let j = if i < 0 { i + len } else { i };
                    if j < 0 || j >= len {
                        bail!(
                            Shape,
                            "index {i} is out of bounds for axis {ax} with size {len}"
                        );
                    }
                    offset += j * self.strides[ax];
                    ax += 1;
                }
                SliceArg::Range { start, end, step } => {
                    let (first, count) = resolve_range(self.shape[ax], start, end, step)?;
                    if count > 0 {
                        offset += first * self.strides[ax];
                    }
                    shape.push(count);
                    strides.push(step_stride(self.strides[ax], step, count, self.itemsize()));
                    ax += 1;
                }
            }
        }
        for k in ax..self.ndim() {
            shape.push(self.shape[k]);
            strides.push(self.strides[k]);
        }
        // An empty result keeps the base offset valid.
        let offset = if shape.contains(&0) {
            self.offset
        } else {
            offset as usize
        };
        Ok(self.view(shape, strides, offset))
    }

    /// A read-only-by-convention view of `self` broadcast to `shape` (stride 0 along the
    /// repeated axes). Writing through a broadcast view writes the shared element.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let row = Array::arange(0.0, 3.0, 1.0, DType::F32)?;
    /// let m = row.broadcast_to(&[2, 3])?;
    /// assert_eq!(m.strides(), &[0, 1]);
    /// assert_eq!(m.to_vec::<f32>()?, vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
    /// assert!(row.broadcast_to(&[2, 4]).is_err());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        nbytes_of(shape, self.itemsize())?;
        let strides = broadcast_strides(&self.shape, &self.strides, shape)?;
        Ok(self.view(Shape::from_slice(shape), strides, self.offset))
    }

    /// Removes axes of extent 1: all of them (`None`) or the given one.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[1, 3, 1], DType::F32)?;
    /// assert_eq!(a.squeeze(None)?.shape(), &[3]);
    /// assert_eq!(a.squeeze(Some(-1))?.shape(), &[1, 3]);
    /// assert!(a.squeeze(Some(1)).is_err());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn squeeze(&self, axis: Option<isize>) -> Result<Array> {
        let drop: Vec<usize> = match axis {
            None => (0..self.ndim()).filter(|&i| self.shape[i] == 1).collect(),
            Some(a) => {
                let ax = normalize_axis(a, self.ndim())?;
                if self.shape[ax] != 1 {
                    bail!(
                        Shape,
                        "cannot select an axis to squeeze out which has size not equal to one \
                         (axis {a} has size {})",
                        self.shape[ax]
                    );
                }
                vec![ax]
            }
        };
        let shape: Shape = (0..self.ndim())
            .filter(|i| !drop.contains(i))
            .map(|i| self.shape[i])
            .collect();
        let strides: Strides = (0..self.ndim())
            .filter(|i| !drop.contains(i))
            .map(|i| self.strides[i])
            .collect();
        Ok(self.view(shape, strides, self.offset))
    }

    /// Inserts an axis of extent 1 at `axis` (which may be `ndim`, or negative).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::zeros(&[3], DType::F32)?;
    /// assert_eq!(a.expand_dims(0)?.shape(), &[1, 3]);
    /// assert_eq!(a.expand_dims(-1)?.shape(), &[3, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: isize) -> Result<Array> {
        let ax = normalize_axis(axis, self.ndim() + 1)?;
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.insert(ax, 1);
        strides.insert(ax, 0);
        super::shape::size_of(&shape)?;
        Ok(self.view(shape, strides, self.offset))
    }
}

impl Array {
    /// The real (`imag == false`) or imaginary part of a complex array as a view of the
    /// same memory (NumPy's `a.real` / `a.imag`: writes through it change the array);
    /// `None` for other dtypes.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// use num_complex::Complex32;
    /// let z = Array::from_slice(&[Complex32::new(1.0, 2.0), Complex32::new(3.0, 4.0)], &[2])?;
    /// let im = z.complex_part(true).unwrap();
    /// assert_eq!(im.to_vec::<f32>()?, vec![2.0, 4.0]);
    /// im.fill(0.5f32)?;
    /// assert_eq!(z.to_vec::<Complex32>()?[1], Complex32::new(3.0, 0.5));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn complex_part(&self, imag: bool) -> Option<Array> {
        let part = match self.dtype {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            _ => return None,
        };
        let strides = self.strides.iter().map(|&s| s * 2).collect();
        let mut v = self.view(
            self.shape.clone(),
            strides,
            self.offset * 2 + usize::from(imag),
        );
        v.dtype = part;
        Some(v)
    }
}

/// The stride of a sliced axis: `stride × step` (NumPy's). With 2 or more positions that
/// product steps between two elements of the buffer, so it fits; with 0 or 1 the stride is
/// never followed and `step` may be huge: the axis' own stride is kept when the product (in
/// bytes) would not fit `isize`.
fn step_stride(stride: isize, step: isize, count: usize, itemsize: usize) -> isize {
    match stride.checked_mul(step) {
        Some(s) if count > 1 || s.checked_mul(itemsize as isize).is_some() => s,
        _ => stride,
    }
}
