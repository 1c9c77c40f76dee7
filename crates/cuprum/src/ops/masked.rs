//! Boolean-mask selection: `a.masked(&mask)` is NumPy's `a[mask]` as a handle; `get()`
//! reads the selected elements into a new array.
//!
//! The handle only borrows the array and the mask (nothing runs until an operation is
//! called), so the operations that write through the mask are its methods too: an
//! assignment or an in-place update (`a[mask] = v` is `set`, `a[mask] += v` is `add`, …)
//! is one element-wise kernel over `(a, mask)` that writes where the mask is set
//! (`masked_update.rs`); a scalar value, or one that broadcasts to every selected element,
//! needs no count and no host round trip.

use super::compact::select_values;
use super::mask::Masked;
use super::masked_update::update;
use super::ufunc::Op;
use crate::array::Array;
use crate::error::Result;
use crate::kernel::IntoOperand;

impl<'a> Masked<'a> {
    /// The selected elements as a new array of shape `(count,) + a.shape[mask.ndim..]`, in
    /// C order. One pass reads the mask and the array once and writes the result (one
    /// device → host read of the count at the end); the result is then a view of an
    /// array of the input's size, copied into one of its own size when most of it would
    /// be unused.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType};
    /// let a = Array::arange(0.0, 5.0, 1.0, DType::F64)?;
    /// let none = Array::zeros(&[5], DType::Bool)?;
    /// assert_eq!(a.masked(&none).get()?.shape(), &[0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get(&self) -> Result<Array> {
        self.check()?;
        crate::array::check_same_device("masked get", self.array.device(), self.mask.device())?;
        if crate::runtime::Stream::for_device(self.array.device())?
            != crate::runtime::Stream::current()?
        {
            return crate::ops::programs::on_device_of(self.array, || self.get());
        }
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

impl Masked<'_> {
    /// NumPy's `a[mask] = value`: writes `value` into every selected element, in place. The
    /// value is a Rust scalar (converted with [`Scalar::cast`](crate::Scalar::cast)'s checks:
    /// 300 into uint8 is an error), an array that broadcasts to every selected element (or
    /// row, for a mask over leading axes), or an array of one value (or row) per selected
    /// element in C order (NumPy's `a[m] = b[m]`; then one device → host read of the count
    /// checks its length). Array values convert like NumPy's assignment (`astype`). A
    /// scalar or broadcast value needs no count: one kernel, no synchronisation.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops};
    /// let x = Array::from_slice(&[1.0f32, -2.0, 3.0, -4.0], &[4])?;
    /// let neg = ops::less(&x, 0.0)?;
    /// x.masked(&neg).set(0.0)?;                              // x[x < 0] = 0
    /// assert_eq!(x.to_vec::<f32>()?, vec![1.0, 0.0, 3.0, 0.0]);
    /// let m = Array::from_slice(&[true, false, true, false], &[4])?;
    /// x.masked(&m).set(&Array::from_slice(&[10.0f32, 30.0], &[2])?)?;
    /// assert_eq!(x.to_vec::<f32>()?, vec![10.0, 0.0, 30.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn set(&self, value: impl IntoOperand) -> Result<()> {
        update(self, None, value.operand())
    }
}

macro_rules! masked_updates {
    ($($name:ident => $op:ident, $numpy:literal, $ex:literal, $arg:literal, $want:literal;)*) => {
        impl Masked<'_> {$(
            #[doc = concat!("NumPy's `", $numpy, "`: the selected elements updated in place by [`ops::", stringify!($name), "`](crate::ops::", stringify!($name), "()) with \
                `value`, the others untouched. One kernel over the array and the mask (no count, no \
                host round trip) for a scalar or broadcast value; a value of one entry per selected \
                element is matched by rank as in [`set`](Masked::set). The result must cast to the \
                array's dtype under NumPy's `same_kind` rule (an int32 array updated with 0.5 is an \
                error).")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// use cuprum::Array;
            #[doc = concat!("let x = Array::from_slice(&", $ex, ", &[4])?;")]
            /// let m = Array::from_slice(&[true, false, true, true], &[4])?;
            #[doc = concat!("x.masked(&m).", stringify!($name), "(", $arg, ")?;")]
            #[doc = concat!("assert_eq!(x.to_vec::<i64>()?, vec!", $want, ");")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $name(&self, value: impl IntoOperand) -> Result<()> {
                update(self, Some(Op::$op), value.operand())
            }
        )*}
    };
}

masked_updates! {
    add => Add, "a[mask] += value", "[1i64, 2, 3, 4]", "10i64", "[11, 2, 13, 14]";
    subtract => Sub, "a[mask] -= value", "[1i64, 2, 3, 4]", "1i64", "[0, 2, 2, 3]";
    multiply => Mul, "a[mask] *= value", "[1i64, 2, 3, 4]", "3i64", "[3, 2, 9, 12]";
    floor_divide => FloorDiv, "a[mask] //= value", "[7i64, 2, -7, 9]", "2i64", "[3, 2, -4, 4]";
    remainder => Rem, "a[mask] %= value", "[7i64, 2, -7, 9]", "4i64", "[3, 2, 1, 1]";
    fmod => Fmod, "np.fmod(a[mask], value, out=...)", "[7i64, 2, -7, 9]", "4i64", "[3, 2, -3, 1]";
    power => Pow, "a[mask] **= value", "[1i64, 2, 3, 4]", "2i64", "[1, 2, 9, 16]";
    maximum => Maximum, "a[mask] = maximum(a[mask], value)", "[1i64, 2, 3, 4]", "3i64", "[3, 2, 3, 4]";
    minimum => Minimum, "a[mask] = minimum(a[mask], value)", "[1i64, 2, 3, 4]", "3i64", "[1, 2, 3, 3]";
    bitwise_and => BitAnd, "a[mask] &= value", "[1i64, 2, 3, 4]", "6i64", "[0, 2, 2, 4]";
    bitwise_or => BitOr, "a[mask] |= value", "[1i64, 2, 3, 4]", "8i64", "[9, 2, 11, 12]";
    bitwise_xor => BitXor, "a[mask] ^= value", "[1i64, 2, 3, 4]", "1i64", "[0, 2, 2, 5]";
    left_shift => LeftShift, "a[mask] <<= value", "[1i64, 2, 3, 4]", "2i64", "[4, 2, 12, 16]";
    right_shift => RightShift, "a[mask] >>= value", "[1i64, 2, 3, 4]", "1i64", "[0, 2, 1, 2]";
}

impl Masked<'_> {
    /// NumPy's `a[mask] /= value`: true division in place ([`ops::divide`](crate::ops::divide())),
    /// so only float and complex arrays can take it (`same_kind`: float64 into an integer
    /// array is an error, as in NumPy).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
    /// let m = Array::from_slice(&[true, false, true], &[3])?;
    /// x.masked(&m).divide(2.0)?;
    /// assert_eq!(x.to_vec::<f64>()?, vec![0.5, 2.0, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn divide(&self, value: impl IntoOperand) -> Result<()> {
        update(self, Some(Op::Div), value.operand())
    }

    /// `a[mask] op= value` for any binary ufunc `op` (the bindings' augmented stores).
    #[cfg(feature = "python")]
    pub(crate) fn update_with(&self, op: Op, value: impl IntoOperand) -> Result<()> {
        update(self, Some(op), value.operand())
    }
}
