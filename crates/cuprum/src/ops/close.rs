//! `isclose` (an ElementwiseKernel) and `allclose` (a ReductionKernel over the same
//! predicate): NumPy's `|x - y| <= atol + rtol * |y|`.

use crate::array::{Array, DType, DTypeKind};
use crate::error::Result;
use crate::kernel::{ElementwiseKernel, IntoOperand, Operand, ReductionKernel};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The tolerances of [`isclose`](crate::ops::isclose) and
/// [`allclose_with`](crate::ops::allclose_with): `a` is close to `b` when
/// `|a - b| <= atol + rtol * |b|`; two NaNs are close only with `equal_nan`. The default is
/// NumPy's: `rtol = 1e-5`, `atol = 1e-8`, NaNs never close.
///
/// ```
/// use cuprum::ops::Tolerance;
/// let t = Tolerance::new(1e-12, 0.0).nan_equal();
/// assert_eq!((t.rtol, t.atol, t.equal_nan), (1e-12, 0.0, true));
/// assert_eq!(Tolerance::default(), Tolerance::new(1e-5, 1e-8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance (times `|b|`).
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Whether two NaNs are close.
    pub equal_nan: bool,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::new(1e-5, 1e-8)
    }
}

impl Tolerance {
    /// `rtol` and `atol`, NaNs never close.
    pub fn new(rtol: f64, atol: f64) -> Tolerance {
        Tolerance {
            rtol,
            atol,
            equal_nan: false,
        }
    }

    /// The same tolerances, with two NaNs close to each other.
    pub fn nan_equal(self) -> Tolerance {
        Tolerance {
            equal_nan: true,
            ..self
        }
    }
}

/// The C++ type `isclose` compares in (NumPy compares in the promoted type; double keeps
/// every real dtype exact enough, complex<double> every complex one).
fn close_type(a: DType, b: DType) -> &'static str {
    if a.kind() == DTypeKind::Complex || b.kind() == DTypeKind::Complex {
        "complex<double>"
    } else {
        "double"
    }
}

/// `cuprum_isclose(x, y, rtol, atol, equal_nan)`: NumPy's
/// `|x - y| <= atol + rtol * |y|` for finite `y`, equal values (infinities included)
/// close, NaNs close only with `equal_nan`.
pub(crate) fn isclose_preamble(ct: &str) -> String {
    let (abs, nan, finite) = if ct.starts_with("complex") {
        (
            "cuprum::abs",
            "(x.re != x.re || x.im != x.im) && (y.re != y.re || y.im != y.im)",
            "isfinite(y.re) && isfinite(y.im)",
        )
    } else {
        ("fabs", "x != x && y != y", "isfinite(y)")
    };
    format!(
        "__device__ __forceinline__ bool cuprum_isclose({ct} x, {ct} y, double rtol, double atol, bool equal_nan) {{\n\
         \x20 return x == y || ({finite} && {abs}(x - y) <= atol + rtol * {abs}(y)) || (equal_nan && {nan});\n}}\n"
    )
}

/// The isclose call of a kernel with inputs `x`, `y` and scalars `rtol`, `atol`, `equal_nan`.
pub(crate) fn isclose_call(a: DType, b: DType) -> String {
    let ct = close_type(a, b);
    format!("cuprum_isclose(cuprum::cast<{ct}>(x), cuprum::cast<{ct}>(y), rtol, atol, equal_nan)")
}

/// The parameters of isclose / allclose kernels.
pub(crate) fn isclose_params(a: DType, b: DType) -> String {
    format!(
        "{} x, {} y, float64 rtol, float64 atol, bool equal_nan",
        a.name(),
        b.name()
    )
}

type CloseTable<K> = Mutex<FxHashMap<(DType, DType), Arc<K>>>;

/// `all(isclose(a, b))` as one reduction over the broadcast operands.
pub(crate) fn all_close(
    a: &Array,
    b: &Array,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<bool> {
    static T: OnceLock<CloseTable<ReductionKernel>> = OnceLock::new();
    let t = T.get_or_init(Default::default);
    let key = (a.dtype(), b.dtype());
    let cached = t
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .cloned();
    let k = match cached {
        Some(k) => k,
        None => {
            let k = Arc::new(
                ReductionKernel::new(
                    &isclose_params(a.dtype(), b.dtype()),
                    "bool out",
                    isclose_call(a.dtype(), b.dtype()),
                    "a && b",
                    "out = a",
                    Some("true"),
                    "cuprum_allclose",
                )?
                .reduce_type("bool")
                .preamble(isclose_preamble(close_type(a.dtype(), b.dtype()))),
            );
            t.lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key, k.clone());
            k
        }
    };
    let r = k.call((a, b, rtol, atol, equal_nan))?;
    Ok(r.to_vec::<bool>()?.first().copied().unwrap_or(true))
}

fn operand_dtype(o: &Operand<'_>) -> DType {
    o.dtype()
}

/// Elementwise `isclose` of the broadcast operands, as a bool array.
pub(crate) fn close_mask(
    a: &dyn IntoOperand,
    b: &dyn IntoOperand,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Array> {
    static T: OnceLock<CloseTable<ElementwiseKernel>> = OnceLock::new();
    // A scalar beside a floating-point array takes the array's type first (weak, as in
    // NumPy 2: `isclose(f32_array, 0.1)` compares with 0.1 rounded to float32).
    let weak = |s: Operand<'_>, other: &Operand<'_>| -> Operand<'static> {
        match (s, other) {
            (Operand::Scalar(v), Operand::Array(x))
                if matches!(x.dtype().kind(), DTypeKind::Float | DTypeKind::Complex) =>
            {
                Operand::Scalar(v.cast(x.dtype()).unwrap_or(v))
            }
            (Operand::Scalar(v), _) => Operand::Scalar(v),
            _ => Operand::Scalar(false.into()),
        }
    };
    let (a, b) = (a.operand(), b.operand());
    let a = if matches!(a, Operand::Scalar(_)) {
        weak(a, &b)
    } else {
        a
    };
    let b = if matches!(b, Operand::Scalar(_)) {
        weak(b, &a)
    } else {
        b
    };
    let key = (operand_dtype(&a), operand_dtype(&b));
    let t = T.get_or_init(Default::default);
    let cached = t
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .cloned();
    let k = match cached {
        Some(k) => k,
        None => {
            let k = Arc::new(
                ElementwiseKernel::new(
                    &isclose_params(key.0, key.1),
                    "bool out",
                    format!("out = {}", isclose_call(key.0, key.1)),
                    "cuprum_isclose_kernel",
                )?
                .preamble(isclose_preamble(close_type(key.0, key.1))),
            );
            t.lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key, k.clone());
            k
        }
    };
    k.call(vec![
        a,
        b,
        Operand::Scalar(rtol.into()),
        Operand::Scalar(atol.into()),
        Operand::Scalar(equal_nan.into()),
    ])
}

/// Sources of the allclose and isclose kernels for a few dtype pairs (compile checks).
pub(crate) fn sample_sources() -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (a, b) in [
        (DType::F32, DType::F32),
        (DType::F16, DType::F64),
        (DType::I32, DType::F32),
        (DType::C128, DType::F64),
        (DType::Bool, DType::Bool),
    ] {
        let dtypes = [a, b, DType::F64, DType::F64, DType::Bool, DType::Bool];
        let scalars = [false, false, true, true, true, false];
        let r = ReductionKernel::new(
            &isclose_params(a, b),
            "bool out",
            isclose_call(a, b),
            "a && b",
            "out = a",
            Some("true"),
            "cuprum_allclose",
        )?
        .reduce_type("bool")
        .preamble(isclose_preamble(close_type(a, b)));
        out.push((
            format!("allclose {a} {b}"),
            r.generated_source(&dtypes, &scalars)?,
        ));
        let e = ElementwiseKernel::new(
            &isclose_params(a, b),
            "bool out",
            format!("out = {}", isclose_call(a, b)),
            "cuprum_isclose_kernel",
        )?
        .preamble(isclose_preamble(close_type(a, b)));
        out.push((
            format!("isclose {a} {b}"),
            e.generated_source(&dtypes, &scalars)?,
        ));
    }
    Ok(out)
}

/// Elementwise `|a - b| <= atol + rtol * |b|` as a bool array (NumPy's `isclose`); equal
/// infinities are close; NaNs are close to each other only with
/// [`nan_equal`](Tolerance::nan_equal).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// let c = ops::isclose(&a, 1.0 + 1e-9, Tolerance::new(1e-5, 1e-8))?;
/// assert_eq!(c.to_vec::<bool>()?, vec![true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn isclose(a: impl IntoOperand, b: impl IntoOperand, tol: Tolerance) -> Result<Array> {
    close_mask(&a, &b, tol.rtol, tol.atol, tol.equal_nan)
}

/// Whether every pair is close with NumPy's defaults (`rtol = 1e-5`, `atol = 1e-8`, NaNs
/// never close), in one reduction over the broadcast arrays.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// let b = Array::from_slice(&[1.0f32, 2.000001], &[2])?;
/// assert!(ops::allclose(&a, &b)?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose(a: &Array, b: &Array) -> Result<bool> {
    allclose_with(a, b, Tolerance::default())
}

/// [`allclose`] with explicit tolerances and NaN handling.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[f64::NAN, 1.0], &[2])?;
/// assert!(ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0).nan_equal())?);
/// assert!(!ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0))?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose_with(a: &Array, b: &Array, tol: Tolerance) -> Result<bool> {
    all_close(a, b, tol.rtol, tol.atol, tol.equal_nan)
}
