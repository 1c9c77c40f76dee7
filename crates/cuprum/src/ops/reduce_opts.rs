//! NumPy's reduction keywords: one options builder, [`ReduceOpts`], shared by every
//! reduction (`sum_with`, `var_with`, `nanmax_with`, `cumsum_with`, … and the `Array`
//! methods of the same names; `fuse`'s `Var::sum_with` … take it too).
//!
//! Why a builder rather than more parameters: NumPy's reductions take up to five keywords
//! (`axis`, `keepdims`, `dtype`, `ddof`, `out`) and most calls give one or two; a builder
//! keeps each call as short as NumPy's and the existing `sum(&a)` / `sum_axis(&a, axis,
//! Keepdims)` unchanged. Keywords NumPy's function does not take are typed errors saying
//! so (`max() got an unexpected keyword argument 'dtype'`), as in NumPy.
//!
//! The semantics are NumPy's (2.x): `dtype=` sets the accumulator and result dtype and
//! casts the input to it (any numeric dtype: NumPy's reductions cast with the `unsafe`
//! rule, so `sum(float64, dtype=int32)` truncates each element); `out=` must have the
//! result's shape (a `Shape` error otherwise, NumPy's wording) and takes the result cast
//! to its dtype (argmax/argmin: a dtype int64 casts to safely, NumPy's rule). `ddof` is
//! finite (a NaN or infinite one is an `InvalidArgument` error); `var` divides by
//! `max(n - ddof, 0)`, so `ddof >= n` gives inf (or NaN when every value is equal), with
//! no error, as NumPy. How each option enters the kernels: `ops/reduction.rs`.
//!
//! Deliberate refusals where NumPy's answer is an artefact of its two-pass algorithm:
//! `var`/`std` with an integer `dtype=` (NumPy truncates the intermediate mean and squares)
//! and complex `var`/`std` with a real `dtype=` (NumPy keeps only the real part of the
//! mean) are `Unsupported` errors.

use super::reduction::{AccOpts, ROp, reduce_into};
use super::scan::{ScanOp, scan_with};
use crate::array::{Array, DType};
use crate::error::{Result, bail};
use crate::kernel::Axes;
use crate::shape::normalize_axis;

/// NumPy's keywords of a reduction: `axis`, `keepdims`, `dtype`, `ddof`, `out`. Start from
/// [`ReduceOpts::new`] (every axis, no options) and set what the call needs.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops, ops::ReduceOpts};
/// let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// // NumPy: x.var(axis=1, ddof=1, dtype=np.float64)
/// let v = ops::var_with(&x, ReduceOpts::new().axis(1).ddof(1.0).dtype(DType::F64))?;
/// assert_eq!((v.dtype(), v.to_vec::<f64>()?), (DType::F64, vec![1.0, 1.0]));
/// // NumPy: np.sum(x, axis=0, keepdims=True, out=o)
/// let o = Array::zeros(&[1, 3], DType::F32)?;
/// ops::sum_with(&x, ReduceOpts::new().axis(0).keepdims(true).out(&o))?;
/// assert_eq!(o.to_vec::<f32>()?, vec![5.0, 7.0, 9.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReduceOpts<'o> {
    axis: Option<Axes>,
    keepdims: bool,
    dtype: Option<DType>,
    ddof: Option<f64>,
    out: Option<&'o Array>,
}

impl<'o> ReduceOpts<'o> {
    /// No options: every axis, reduced axes dropped, NumPy's default dtypes, `ddof` 0.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(ops::sum_with(&x, ReduceOpts::new())?.to_vec::<i64>()?, vec![6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The axes to reduce (one, several, negative ones counting from the end); every axis
    /// when not set. `cumsum`/`cumprod` take one axis (not set: the flattened array).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::ones(&[2, 3, 4], DType::F32)?;
    /// assert_eq!(ops::sum_with(&x, ReduceOpts::new().axis([0, -1]))?.shape(), &[3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn axis(mut self, axis: impl Into<Axes>) -> Self {
        self.axis = Some(axis.into());
        self
    }

    /// Whether reduced axes stay, with extent 1 (NumPy's `keepdims`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::ones(&[2, 3], DType::F32)?;
    /// assert_eq!(ops::max_with(&x, ReduceOpts::new().axis(1).keepdims(true))?.shape(), &[2, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn keepdims(mut self, on: bool) -> Self {
        self.keepdims = on;
        self
    }

    /// NumPy's `dtype=`: the dtype the reduction accumulates in and returns (the input is
    /// cast to it). Taken by `sum`, `prod`, `mean`, `var`, `std`, `nansum`, `nanmean`,
    /// `cumsum`, `cumprod`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1i32, 2], &[2])?;
    /// let m = ops::mean_with(&x, ReduceOpts::new().dtype(DType::F32))?;
    /// assert_eq!((m.dtype(), m.to_vec::<f32>()?), (DType::F32, vec![1.5]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    /// `var`/`std`'s delta degrees of freedom: the divisor is `n - ddof` (`1.0`: the
    /// sample variance). Finite; `ddof >= n` gives inf or NaN, as NumPy.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
    /// let s = ops::var_with(&x, ReduceOpts::new().ddof(1.0))?;
    /// assert!((s.to_vec::<f64>()?[0] - 5.0 / 3.0).abs() < 1e-12);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn ddof(mut self, ddof: f64) -> Self {
        self.ddof = Some(ddof);
        self
    }

    /// NumPy's `out=`: the array the result is written to (the result's shape; its dtype
    /// takes the result cast to it). The call returns a view of it.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.5f64, 2.5, 4.0], &[3])?;
    /// let o = Array::zeros(&[], DType::I32)?;
    /// ops::sum_with(&x, ReduceOpts::new().out(&o))?;
    /// assert_eq!(o.to_vec::<i32>()?, vec![8]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn out<'p>(self, out: &'p Array) -> ReduceOpts<'p>
    where
        'o: 'p,
    {
        ReduceOpts {
            axis: self.axis,
            keepdims: self.keepdims,
            dtype: self.dtype,
            ddof: self.ddof,
            out: Some(out),
        }
    }

    /// The options an accumulation depends on, checked against what `op` takes (NumPy's
    /// "unexpected keyword argument", a finite `ddof`).
    pub(crate) fn acc_opts(&self, op: ROp) -> Result<AccOpts> {
        let name = op.user_name();
        if let Some(t) = self.dtype
            && !op.takes_dtype()
        {
            bail!(
                InvalidArgument,
                "{name}() got an unexpected keyword argument 'dtype' (given {t})"
            );
        }
        let mut ddof_bits = 0;
        if let Some(d) = self.ddof {
            if !matches!(op, ROp::Var | ROp::Std) {
                bail!(
                    InvalidArgument,
                    "{name}() got an unexpected keyword argument 'ddof' (given {d})"
                );
            }
            if !d.is_finite() {
                bail!(
                    InvalidArgument,
                    "{name}: ddof must be a finite number, got {d}"
                );
            }
            // `+ 0.0` makes -0.0 the 0.0 of no ddof.
            ddof_bits = (d + 0.0).to_bits();
        }
        Ok(AccOpts {
            dtype: self.dtype,
            ddof_bits,
            out: self.out.map(Array::dtype),
        })
    }

    /// The axes and keepdims, for `fuse`.
    pub(crate) fn axes(&self) -> (Option<&Axes>, bool) {
        (self.axis.as_ref(), self.keepdims)
    }

    /// Whether `out=` is set.
    pub(crate) fn has_out(&self) -> bool {
        self.out.is_some()
    }
}

/// The ufunc NumPy's messages name for a reduction's `out=`.
fn ufunc_name(op: ROp) -> &'static str {
    match op {
        ROp::Sum | ROp::Mean | ROp::Var | ROp::Std | ROp::NanSum | ROp::NanMean => "add",
        ROp::Prod => "multiply",
        ROp::All => "logical_and",
        ROp::Any => "logical_or",
        other => other.name(),
    }
}

/// The shape of `op`'s result over `axes` of `shape`.
fn result_shape(shape: &[usize], axes: Option<&Axes>, keepdims: bool) -> Result<Vec<usize>> {
    let nd = shape.len();
    let mut reduced = vec![axes.is_none(); nd];
    if let Some(ax) = axes {
        for &a in &ax.0 {
            let k = normalize_axis(a, nd)?;
            if reduced[k] {
                bail!(Shape, "duplicate value in 'axis' ({:?})", ax.0.as_slice());
            }
            reduced[k] = true;
        }
    }
    Ok(shape
        .iter()
        .zip(&reduced)
        .filter_map(|(&e, &r)| match (r, keepdims) {
            (false, _) => Some(e),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

fn shape_text(s: &[usize]) -> String {
    match s {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Checks `out=` against the result of `op` (NumPy's messages).
fn check_out(op: ROp, a: &Array, opts: &ReduceOpts<'_>, out: &Array) -> Result<()> {
    let name = op.user_name();
    if op == ROp::CountNonzero {
        bail!(
            InvalidArgument,
            "count_nonzero() got an unexpected keyword argument 'out'"
        );
    }
    let want = result_shape(a.shape(), opts.axis.as_ref(), opts.keepdims)?;
    let arg = matches!(
        op,
        ROp::ArgMax | ROp::ArgMin | ROp::NanArgMax | ROp::NanArgMin
    );
    if arg {
        if out.shape() != want.as_slice() {
            bail!(
                Shape,
                "output array does not match result of np.{name}: expected shape {}, got {}",
                shape_text(&want),
                shape_text(out.shape())
            );
        }
        if !super::can_cast_safe(out.dtype(), DType::I64) {
            bail!(
                DType,
                "{name}: Cannot cast scalar from dtype('{}') to dtype('int64') according to \
                 the rule 'safe' (out= must hold int64 indices)",
                out.dtype()
            );
        }
        return Ok(());
    }
    if out.ndim() != want.len() {
        let keep = if opts.keepdims {
            " (must match the operand's when keepdims=True)"
        } else {
            ""
        };
        bail!(
            Shape,
            "output parameter for reduction operation {} has the wrong number of dimensions: \
             Found {} but expected {}{keep}",
            ufunc_name(op),
            out.ndim(),
            want.len()
        );
    }
    if out.shape() != want.as_slice() {
        bail!(
            Shape,
            "output parameter for reduction operation {} has the wrong shape: expected {}, got {}",
            ufunc_name(op),
            shape_text(&want),
            shape_text(out.shape())
        );
    }
    Ok(())
}

/// Runs reduction `op` with the options.
pub(crate) fn reduce_opts(op: ROp, a: &Array, opts: &ReduceOpts<'_>) -> Result<Array> {
    let acc = opts.acc_opts(op)?;
    if let Some(o) = opts.out {
        check_out(op, a, opts, o)?;
    }
    reduce_into(op, a, opts.axis.clone(), opts.keepdims, acc, opts.out)
}

/// Runs scan `op` with the options (one axis or none; `dtype`, `out`).
fn scan_opts(op: ScanOp, a: &Array, opts: &ReduceOpts<'_>) -> Result<Array> {
    let name = match op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    if opts.keepdims {
        bail!(
            InvalidArgument,
            "{name}() got an unexpected keyword argument 'keepdims'"
        );
    }
    if let Some(d) = opts.ddof {
        bail!(
            InvalidArgument,
            "{name}() got an unexpected keyword argument 'ddof' (given {d})"
        );
    }
    let axis = match &opts.axis {
        None => None,
        Some(ax) if ax.0.len() == 1 => Some(ax.0[0]),
        Some(ax) => bail!(
            InvalidArgument,
            "{name} takes one axis or none, got {:?}",
            ax.0.as_slice()
        ),
    };
    if let Some(o) = opts.out {
        let want = match axis {
            None => vec![a.size()],
            Some(k) => {
                normalize_axis(k, a.ndim())?;
                a.shape().to_vec()
            }
        };
        if o.shape() != want.as_slice() {
            bail!(
                Shape,
                "{name}: provided out is the wrong size for the accumulation: expected shape \
                 {}, got {}",
                shape_text(&want),
                shape_text(o.shape())
            );
        }
    }
    let r = scan_with(op, a, axis, opts.dtype)?;
    match opts.out {
        Some(o) => {
            let r = if r.dtype() == o.dtype() {
                r
            } else {
                r.astype(o.dtype())?
            };
            o.assign(&r)?;
            Ok(o.clone())
        }
        None => Ok(r),
    }
}

macro_rules! with_functions {
    ($($(#[$doc:meta])* $name:ident, $method:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array, opts: ReduceOpts<'_>) -> Result<Array> {
            reduce_opts(ROp::$op, a, &opts)
        }

        impl Array {
            #[doc = concat!("[`ops::", stringify!($name), "`](crate::ops::", stringify!($name), ") of this array.")]
            ///
            /// ```
            /// # if !cuprum_doctest::device()? { return Ok(()); }
            /// # use cuprum::{Array, DType, ops::ReduceOpts};
            /// let a = Array::ones(&[2, 3], DType::F64)?;
            #[doc = concat!("let r = a.", stringify!($method), "(ReduceOpts::new().axis(-1).keepdims(true))?;")]
            /// assert_eq!(r.shape(), &[2, 1]);
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn $method(&self, opts: ReduceOpts<'_>) -> Result<Array> {
                $name(self, opts)
            }
        }
    )*};
}

with_functions! {
    /// [`sum`](crate::ops::sum) with NumPy's keywords ([`ReduceOpts`]: `axis`, `keepdims`,
    /// `dtype`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[0.5f32, 0.25, 0.25], &[3])?;
    /// let s = ops::sum_with(&x, ReduceOpts::new().dtype(DType::F64))?; // accumulate in float64
    /// assert_eq!((s.dtype(), s.to_vec::<f64>()?), (DType::F64, vec![1.0]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sum_with, sum_with => Sum;
    /// [`prod`](crate::ops::prod) with NumPy's keywords (`axis`, `keepdims`, `dtype`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[2u8, 3, 4], &[3])?;
    /// let p = ops::prod_with(&x, ReduceOpts::new().dtype(DType::U16))?;
    /// assert_eq!(p.to_vec::<u16>()?, vec![24]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    prod_with, prod_with => Prod;
    /// [`mean`](crate::ops::mean) with NumPy's keywords (`axis`, `keepdims`, `dtype`, `out`);
    /// an integer `dtype=` truncates the mean, as NumPy.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1i64, 2, 3, 4], &[2, 2])?;
    /// let m = ops::mean_with(&x, ReduceOpts::new().axis(0).dtype(DType::F32))?;
    /// assert_eq!(m.to_vec::<f32>()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    mean_with, mean_with => Mean;
    /// [`var`](crate::ops::var) with NumPy's keywords (`axis`, `keepdims`, `dtype`, `ddof`,
    /// `out`). Complex input gives a real variance, `mean(|x - mean(x)|^2)`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[2.0f64, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], &[8])?;
    /// assert_eq!(ops::var_with(&x, ReduceOpts::new().ddof(1.0))?.to_vec::<f64>()?, vec![32.0 / 7.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    var_with, var_with => Var;
    /// [`std`](crate::ops::std) with NumPy's keywords (`axis`, `keepdims`, `dtype`, `ddof`,
    /// `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f64, 3.0], &[2])?;
    /// assert_eq!(ops::std_with(&x, ReduceOpts::new().ddof(1.0))?.to_vec::<f64>()?, vec![2f64.sqrt()]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    std_with, std_with => Std;
    /// [`max`](crate::ops::max) with NumPy's keywords (`axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.5f64, -2.0, 4.5], &[3])?;
    /// let o = Array::zeros(&[], DType::I32)?;
    /// assert_eq!(ops::max_with(&x, ReduceOpts::new().out(&o))?.to_vec::<i32>()?, vec![4]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    max_with, max_with => Max;
    /// [`min`](crate::ops::min) with NumPy's keywords (`axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1i8, -2, 4, 0], &[2, 2])?;
    /// assert_eq!(ops::min_with(&x, ReduceOpts::new().axis(1))?.to_vec::<i8>()?, vec![-2, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    min_with, min_with => Min;
    /// [`argmax`](crate::ops::argmax) with NumPy's keywords (one `axis`, `keepdims`, `out` of
    /// a dtype int64 casts to safely).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f32, 9.0, 7.0, 2.0], &[2, 2])?;
    /// assert_eq!(ops::argmax_with(&x, ReduceOpts::new().axis(0))?.to_vec::<i64>()?, vec![1, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    argmax_with, argmax_with => ArgMax;
    /// [`argmin`](crate::ops::argmin) with NumPy's keywords (one `axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f32, 9.0, 7.0, 2.0], &[2, 2])?;
    /// assert_eq!(ops::argmin_with(&x, ReduceOpts::new().axis(1))?.to_vec::<i64>()?, vec![0, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    argmin_with, argmin_with => ArgMin;
    /// [`all`](crate::ops::all) with NumPy's keywords (`axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1u8, 0, 2, 3], &[2, 2])?;
    /// assert_eq!(ops::all_with(&x, ReduceOpts::new().axis(1))?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    all_with, all_with => All;
    /// [`any`](crate::ops::any) with NumPy's keywords (`axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[0u8, 0, 2, 0], &[2, 2])?;
    /// assert_eq!(ops::any_with(&x, ReduceOpts::new().axis(1))?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    any_with, any_with => Any;
    /// [`count_nonzero`](crate::ops::count_nonzero) with NumPy's keywords (`axis`,
    /// `keepdims`; NumPy's `count_nonzero` takes no `out` or `dtype`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[0u8, 1, 2, 0], &[2, 2])?;
    /// assert_eq!(ops::count_nonzero_with(&x, ReduceOpts::new().axis(0))?.to_vec::<i64>()?, vec![1, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    count_nonzero_with, count_nonzero_with => CountNonzero;
    /// Sum ignoring NaNs (NumPy's `nansum`; an all-NaN or empty slice sums to 0; integer
    /// input: [`sum`](crate::ops::sum)), with NumPy's keywords (`axis`, `keepdims`,
    /// `dtype`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f64, f64::NAN, 3.0, f64::NAN], &[2, 2])?;
    /// assert_eq!(ops::nansum_with(&x, ReduceOpts::new().axis(0))?.to_vec::<f64>()?, vec![4.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nansum_with, nansum_with => NanSum;
    /// Mean ignoring NaNs (NumPy's `nanmean`: NaN for an all-NaN or empty slice), with
    /// NumPy's keywords (`axis`, `keepdims`, `dtype`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f32, f32::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(ops::nanmean_with(&x, ReduceOpts::new().axis(1))?.to_vec::<f32>()?, vec![1.0, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmean_with, nanmean_with => NanMean;
    /// Largest element ignoring NaNs (NumPy's `nanmax`: NaN for an all-NaN slice, an error
    /// for an empty one), with NumPy's keywords (`axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f64, f64::NAN, f64::NAN, f64::NAN], &[2, 2])?;
    /// let m = ops::nanmax_with(&x, ReduceOpts::new().axis(1))?.to_vec::<f64>()?;
    /// assert_eq!(m[0], 1.0);
    /// assert!(m[1].is_nan());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmax_with, nanmax_with => NanMax;
    /// Smallest element ignoring NaNs (NumPy's `nanmin`), with NumPy's keywords (`axis`,
    /// `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[1.0f64, f64::NAN, -2.0, 5.0], &[2, 2])?;
    /// assert_eq!(ops::nanmin_with(&x, ReduceOpts::new().axis(0))?.to_vec::<f64>()?, vec![-2.0, 5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanmin_with, nanmin_with => NanMin;
    /// Index of the largest element ignoring NaNs (NumPy's `nanargmax`; an all-NaN slice is
    /// an `InvalidArgument` error, "All-NaN slice encountered"), with NumPy's keywords (one
    /// `axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[f32::NAN, 1.0, 7.0, f32::NAN], &[2, 2])?;
    /// assert_eq!(ops::nanargmax_with(&x, ReduceOpts::new().axis(1))?.to_vec::<i64>()?, vec![1, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanargmax_with, nanargmax_with => NanArgMax;
    /// Index of the smallest element ignoring NaNs (NumPy's `nanargmin`), with NumPy's
    /// keywords (one `axis`, `keepdims`, `out`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, ops, ops::ReduceOpts};
    /// let x = Array::from_slice(&[f32::NAN, 1.0, 7.0, 2.0], &[2, 2])?;
    /// assert_eq!(ops::nanargmin_with(&x, ReduceOpts::new().axis(0))?.to_vec::<i64>()?, vec![1, 0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    nanargmin_with, nanargmin_with => NanArgMin;
}

/// [`cumsum`](crate::ops::cumsum) with NumPy's keywords: one `axis` (not set: the flattened
/// array), `dtype` (the accumulator and result dtype, the input cast to it), `out` (the
/// result's shape; the result cast to its dtype).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops, ops::ReduceOpts};
/// let x = Array::from_slice(&[100i8, 100, 100], &[3])?;
/// let c = ops::cumsum_with(&x, ReduceOpts::new().dtype(DType::I16))?;
/// assert_eq!((c.dtype(), c.to_vec::<i16>()?), (DType::I16, vec![100, 200, 300]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cumsum_with(a: &Array, opts: ReduceOpts<'_>) -> Result<Array> {
    scan_opts(ScanOp::Sum, a, &opts)
}

/// [`cumprod`](crate::ops::cumprod) with NumPy's keywords (one `axis`, `dtype`, `out`).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops, ops::ReduceOpts};
/// let x = Array::from_slice(&[1.5f64, 2.0, 4.0], &[3])?;
/// let o = Array::zeros(&[3], DType::I32)?;
/// ops::cumprod_with(&x, ReduceOpts::new().out(&o))?;
/// assert_eq!(o.to_vec::<i32>()?, vec![1, 3, 12]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn cumprod_with(a: &Array, opts: ReduceOpts<'_>) -> Result<Array> {
    scan_opts(ScanOp::Prod, a, &opts)
}

impl Array {
    /// [`ops::cumsum_with`](crate::ops::cumsum_with) of this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops::ReduceOpts};
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
    /// let c = a.cumsum_with(ReduceOpts::new().axis(1).dtype(DType::F32))?;
    /// assert_eq!(c.to_vec::<f32>()?, vec![1.0, 3.0, 3.0, 7.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cumsum_with(&self, opts: ReduceOpts<'_>) -> Result<Array> {
        cumsum_with(self, opts)
    }

    /// [`ops::cumprod_with`](crate::ops::cumprod_with) of this array.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ops::ReduceOpts};
    /// let a = Array::from_slice(&[2u8, 3, 4], &[3])?;
    /// assert_eq!(a.cumprod_with(ReduceOpts::new().dtype(DType::U8))?.to_vec::<u8>()?, vec![2, 6, 24]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cumprod_with(&self, opts: ReduceOpts<'_>) -> Result<Array> {
        cumprod_with(self, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_shapes_follow_numpy() {
        let s = [2, 3, 4];
        assert_eq!(result_shape(&s, None, false).unwrap(), Vec::<usize>::new());
        assert_eq!(result_shape(&s, None, true).unwrap(), vec![1, 1, 1]);
        let ax = Axes::from([0, -1]);
        assert_eq!(result_shape(&s, Some(&ax), false).unwrap(), vec![3]);
        assert_eq!(result_shape(&s, Some(&ax), true).unwrap(), vec![1, 3, 1]);
        assert!(result_shape(&s, Some(&Axes::from([0, -3])), false).is_err());
        assert!(result_shape(&s, Some(&Axes::from(3)), false).is_err());
        assert_eq!(shape_text(&[2]), "(2,)");
        assert_eq!(shape_text(&[]), "()");
        assert_eq!(shape_text(&[2, 1]), "(2, 1)");
    }

    #[test]
    fn options_a_reduction_does_not_take_are_refused() {
        let o = ReduceOpts::new().dtype(DType::F64);
        let e = o.acc_opts(ROp::Max).unwrap_err();
        assert!(
            e.to_string()
                .contains("max() got an unexpected keyword argument 'dtype'")
        );
        let e = ReduceOpts::new().ddof(1.0).acc_opts(ROp::Sum).unwrap_err();
        assert!(
            e.to_string()
                .contains("sum() got an unexpected keyword argument 'ddof'")
        );
        let e = ReduceOpts::new()
            .ddof(f64::NAN)
            .acc_opts(ROp::Var)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("ddof must be a finite number, got NaN")
        );
        assert_eq!(
            ReduceOpts::new()
                .ddof(-0.0)
                .acc_opts(ROp::Std)
                .unwrap()
                .ddof_bits,
            0
        );
    }
}
