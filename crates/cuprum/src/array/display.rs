//! How arrays print: NumPy's `str(array)` for `Display` (`[  2   3   4 ...  287  77  42]`)
//! and a NumPy-style repr with the shape, dtype, strides and device for `Debug`.
//!
//! The formatting is a pure function of host values ([`format_array`], [`format_scalar`])
//! following NumPy's rules: arrays of more than 1000 elements are summarised to their first
//! and last 3 items per axis, lines wrap at 75 characters, every element of an array is
//! padded to one width, floats use the shortest digits that identify the value in its own
//! type (at most 8 after the point) and switch to scientific notation when the magnitudes
//! need it; bool, integer and complex formats are NumPy's per dtype. Only the printing
//! (`Display`, `Debug`) touches the GPU: it copies the elements that show (one slice per
//! corner of a summarised array) to the host. The formatter is unit-tested against NumPy
//! 2.4's own output (`tests/fixtures/display_numpy_cases.rs`).

use super::device_array::Array;
use super::shape::{SliceArg, format_shape};
use crate::dtype::Scalar;
use crate::dtype::{DType, f16_from_f64, vec_from_bytes};
use crate::error::{Result, bail};
use crate::runtime::{Stream, as_uninit, copy_dtoh};
use half::{bf16, f16};
use std::fmt;

/// Arrays with more elements than this are summarised (NumPy's `threshold`).
pub(crate) const THRESHOLD: usize = 1000;
/// Items kept at each end of a summarised axis (NumPy's `edgeitems`).
pub(crate) const EDGE_ITEMS: usize = 3;
/// Characters per line (NumPy's `linewidth`).
const LINE_WIDTH: usize = 75;
/// Digits after the point a float keeps at most (NumPy's `precision`).
const PRECISION: usize = 8;

/// The shape whose values [`format_array`] takes for an array of `shape`: each axis longer
/// than `2 * EDGE_ITEMS` keeps its first and last `EDGE_ITEMS` when the array has more than
/// [`THRESHOLD`] elements; otherwise the shape itself.
pub(crate) fn shown_shape(shape: &[usize]) -> Vec<usize> {
    let summarise = shape.iter().product::<usize>() > THRESHOLD;
    shape
        .iter()
        .map(|&n| {
            if summarise && n > 2 * EDGE_ITEMS {
                2 * EDGE_ITEMS
            } else {
                n
            }
        })
        .collect()
}

/// NumPy's `str(array)` of an array of `shape` and `dtype` whose shown elements (C order
/// over [`shown_shape`]) are `values`. A 0-d array gives its element as an array element
/// (`1.` for 1.0; see [`format_scalar`] for NumPy's `str` of a 0-d array), an empty one `[]`.
///
/// `separator` goes between elements (`" "` for `str`, `", "` for a repr) and `indent` is
/// the width of what precedes the opening bracket on the first line (`"array("`: 6).
pub(crate) fn format_array(
    values: &[Scalar],
    dtype: DType,
    shape: &[usize],
    separator: &str,
    indent: usize,
) -> String {
    if shape.contains(&0) {
        return "[]".to_owned();
    }
    let shown = shown_shape(shape);
    let summary = shown.as_slice() != shape;
    let fmt = ElementFormat::new(values, dtype, shape.is_empty());
    if shape.is_empty() {
        return values.first().map(|v| fmt.format(*v)).unwrap_or_default();
    }
    let mut p = Printer {
        values,
        shown: &shown,
        full: shape,
        fmt: &fmt,
        separator,
        summary,
    };
    let prefix = " ".repeat(1 + indent);
    p.recurse(0, 0, &prefix, LINE_WIDTH)
}

/// NumPy's `str` of one value (of a 0-d array): `1.0`, `1e-05`, `True`, `(1+2j)`.
pub(crate) fn format_scalar(v: Scalar) -> String {
    match Value::of(v) {
        Value::Bool(b) => if b { "True" } else { "False" }.to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => scalar_float(x, v.dtype()),
        Value::Complex(re, im) => {
            let part = |x: f64| scalar_float(x, v.dtype()).trim_end_matches(".0").to_owned();
            let im_s = part(im);
            if re == 0.0 && !re.is_sign_negative() {
                format!("{im_s}j")
            } else {
                let sign = if im_s.starts_with('-') { "" } else { "+" };
                format!("({}{sign}{im_s}j)", part(re))
            }
        }
    }
}

/// NumPy's `str` of a float scalar: positional from 1e-4 up to a bound that depends on the
/// type (1e16 for float64, 1e6 for float32, 1e3 for float16, 1e2 for bfloat16: `1.0`,
/// `0.1`), else scientific (`1e-05`, `1.5e+16`).
fn scalar_float(x: f64, ty: DType) -> String {
    let upper = match ty {
        DType::F16 => 1e3,
        DType::BF16 => 1e2,
        DType::F32 | DType::C64 => 1e6,
        _ => 1e16,
    };
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    let a = x.abs();
    let d = shortest(x, ty);
    let sign = if d.negative { "-" } else { "" };
    if a == 0.0 || (1e-4..upper).contains(&a) {
        let (int, frac) = digits_positional(&d);
        let frac = if frac.is_empty() {
            "0".to_owned()
        } else {
            frac
        };
        format!("{sign}{int}.{frac}")
    } else {
        let (m, e) = (d.digits.as_str(), d.exp);
        let mant = if m.len() > 1 {
            format!("{}.{}", &m[..1], &m[1..])
        } else {
            m.to_owned()
        };
        format!(
            "{sign}{mant}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    }
}

/// An element widened to its kind.
#[derive(Debug, Clone, Copy)]
enum Value {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

impl Value {
    fn of(v: Scalar) -> Value {
        match v {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::I8(x) => Value::Int(x.into()),
            Scalar::I16(x) => Value::Int(x.into()),
            Scalar::I32(x) => Value::Int(x.into()),
            Scalar::I64(x) => Value::Int(x.into()),
            Scalar::U8(x) => Value::Int(x.into()),
            Scalar::U16(x) => Value::Int(x.into()),
            Scalar::U32(x) => Value::Int(x.into()),
            Scalar::U64(x) => Value::Int(x.into()),
            Scalar::F16(x) => Value::Float(x.to_f64()),
            Scalar::BF16(x) => Value::Float(x.to_f64()),
            Scalar::F32(x) => Value::Float(x.into()),
            Scalar::F64(x) => Value::Float(x),
            Scalar::C64(c) => Value::Complex(c.re.into(), c.im.into()),
            Scalar::C128(c) => Value::Complex(c.re, c.im),
        }
    }
}

/// The shortest decimal digits that identify a finite float in its own type: the value is
/// `±d.ddd × 10^exp` with `digits = "dddd"` (no trailing zeros but a lone `0`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Digits {
    negative: bool,
    digits: String,
    exp: i32,
}

/// Parses Rust's `{:e}` output (`-1.25e-3`) into digits.
fn parse_sci(s: &str) -> Digits {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    Digits {
        negative,
        digits,
        exp: e.parse().unwrap_or(0),
    }
}

/// The shortest digits of `x` (a value of `ty`, widened exactly to f64) that read back as
/// the same value of `ty`.
fn shortest(x: f64, ty: DType) -> Digits {
    match ty {
        DType::F32 | DType::C64 => parse_sci(&format!("{:e}", x as f32)),
        DType::F16 | DType::BF16 => {
            let same = |s: &str| {
                let back: f64 = s.parse().unwrap_or(f64::NAN);
                if ty == DType::F16 {
                    f16_from_f64(back).to_bits() == f16_from_f64(x).to_bits()
                } else {
                    bf16::from_f64(back).to_bits() == bf16::from_f64(x).to_bits()
                }
            };
            (0..17)
                .map(|p| format!("{x:.p$e}"))
                .find(|s| same(s))
                .map_or_else(|| parse_sci(&format!("{x:e}")), |s| parse_sci(&s))
        }
        _ => parse_sci(&format!("{x:e}")),
    }
}

/// Integer and fraction digits of `d` written positionally (`("12", "25")` for 12.25).
fn digits_positional(d: &Digits) -> (String, String) {
    let ds = d.digits.as_bytes();
    if d.exp >= 0 {
        let e = d.exp as usize;
        let mut int = String::new();
        for k in 0..=e {
            int.push(ds.get(k).map_or('0', |&c| c as char));
        }
        let frac = if ds.len() > e + 1 {
            String::from_utf8_lossy(&ds[e + 1..]).into_owned()
        } else {
            String::new()
        };
        (int, frac)
    } else {
        let zeros = "0".repeat((-d.exp - 1) as usize);
        let frac = format!("{zeros}{}", d.digits);
        let frac = if frac.chars().all(|c| c == '0') {
            String::new()
        } else {
            frac
        };
        ("0".to_owned(), frac)
    }
}

/// Positional digits of a finite float: the shortest that identify it, at most
/// [`PRECISION`] after the point (then correctly rounded), trailing zeros trimmed.
/// Returns (integer part with its sign, fraction digits).
fn positional(x: f64, ty: DType, plus: bool) -> (String, String) {
    let d = shortest(x, ty);
    let sign = sign_of(d.negative, plus);
    let (int, frac) = if (d.digits.len() as i64 - 1 - i64::from(d.exp)) > PRECISION as i64 {
        let s = format!("{:.*}", PRECISION, x.abs());
        let (i, f) = s.split_once('.').unwrap_or((&s, ""));
        (i.to_owned(), f.trim_end_matches('0').to_owned())
    } else {
        digits_positional(&d)
    };
    (format!("{sign}{int}"), frac)
}

/// Scientific digits of a finite float: the shortest that identify it, at most
/// [`PRECISION`] after the point. Returns (leading digit with its sign, fraction digits,
/// exponent).
fn scientific(x: f64, ty: DType, plus: bool) -> (String, String, i32) {
    let mut d = shortest(x, ty);
    if d.digits.len() > PRECISION + 1 {
        let neg = d.negative;
        d = parse_sci(&format!("{:.*e}", PRECISION, x.abs()));
        d.negative = neg;
    }
    let sign = sign_of(d.negative, plus);
    (
        format!("{sign}{}", &d.digits[..1]),
        d.digits[1..].to_owned(),
        d.exp,
    )
}

fn sign_of(negative: bool, plus: bool) -> &'static str {
    match (negative, plus) {
        (true, _) => "-",
        (false, true) => "+",
        (false, false) => "",
    }
}

/// `x` rounded to the float type of `ty` (NumPy compares an array's values with Python
/// floats in the array's type).
fn in_type(x: f64, ty: DType) -> f64 {
    match ty {
        DType::F16 => f16_from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        DType::F32 | DType::C64 => f64::from(x as f32),
        _ => x,
    }
}

/// The magnitude from which floats of `ty` print in scientific notation: NumPy's
/// `10 ** min(8, finfo(ty).precision)` (decimal digits the type holds: 3 for float16, 2 for
/// bfloat16, 6 for float32, 15 for float64).
fn exp_cutoff(ty: DType) -> f64 {
    let digits = match ty {
        DType::F16 => 3,
        DType::BF16 => 2,
        DType::F32 | DType::C64 => 6,
        _ => 15,
    };
    10f64.powi(digits.min(8))
}

/// NumPy's `FloatingFormat` in its default mode (`maxprec`, precision 8, no suppression):
/// one width for every element of an array.
#[derive(Debug, Clone)]
struct FloatFormat {
    ty: DType,
    plus: bool,
    exp: bool,
    pad_left: usize,
    pad_right: usize,
    /// Fraction digits of every mantissa in scientific notation.
    precision: usize,
    /// Exponent digits in scientific notation (at least 2).
    exp_size: usize,
}

impl FloatFormat {
    fn new(vals: &[f64], ty: DType, plus: bool) -> FloatFormat {
        let finite: Vec<f64> = vals.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero: Vec<f64> = finite
            .iter()
            .filter(|v| **v != 0.0)
            .map(|v| v.abs())
            .collect();
        let exp = match (
            nonzero.iter().copied().reduce(f64::max),
            nonzero.iter().copied().reduce(f64::min),
        ) {
            // compared in the array's own type, as NumPy does
            (Some(max), Some(min)) => {
                max >= in_type(exp_cutoff(ty), ty)
                    || min < in_type(1e-4, ty)
                    || in_type(max / min, ty) > 1000.0
            }
            _ => false,
        };
        let mut f = FloatFormat {
            ty,
            plus,
            exp,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_size: 2,
        };
        if !finite.is_empty() {
            if exp {
                for &v in &finite {
                    let (int, frac, e) = scientific(v, ty, plus);
                    f.pad_left = f.pad_left.max(int.len());
                    f.precision = f.precision.max(frac.len());
                    f.exp_size = f.exp_size.max(e.unsigned_abs().to_string().len());
                }
                f.pad_right = f.exp_size + 2 + f.precision;
            } else {
                for &v in &finite {
                    let (int, frac) = positional(v, ty, plus);
                    f.pad_left = f.pad_left.max(int.len());
                    f.pad_right = f.pad_right.max(frac.len());
                }
            }
        }
        if finite.len() != vals.len() {
            let neg_inf = plus || vals.iter().any(|v| v.is_infinite() && *v < 0.0);
            let offset = f.pad_right + 1;
            let need = (3 + usize::from(neg_inf)).saturating_sub(offset);
            f.pad_left = f.pad_left.max(need);
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let ret = if x.is_nan() {
                format!("{}nan", if self.plus { "+" } else { "" })
            } else {
                format!("{}inf", sign_of(x < 0.0, self.plus))
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{ret:>width$}");
        }
        if self.exp {
            // Every mantissa gets `precision` digits after the point: the value's own digits
            // (correctly rounded), as NumPy's `min_digits` gives them.
            let d = parse_sci(&format!("{:.*e}", self.precision, x.abs()));
            let int = format!(
                "{}{}",
                sign_of(x.is_sign_negative(), self.plus),
                &d.digits[..1]
            );
            let frac = &d.digits[1..];
            let esign = if d.exp < 0 { '-' } else { '+' };
            format!(
                "{int:>pl$}.{frac:0<pr$}e{esign}{:0>es$}",
                d.exp.unsigned_abs(),
                pl = self.pad_left,
                pr = self.precision,
                es = self.exp_size
            )
        } else {
            let (int, frac) = positional(x, self.ty, self.plus);
            format!(
                "{int:>pl$}.{frac:<pr$}",
                pl = self.pad_left,
                pr = self.pad_right
            )
        }
    }
}

/// How every element of one array is written.
#[derive(Debug, Clone)]
enum ElementFormat {
    /// `True` / `False` (`True` padded to `False`'s width inside arrays).
    Bool {
        zero_d: bool,
    },
    /// Right-aligned to the widest.
    Int {
        width: usize,
    },
    Float(FloatFormat),
    /// Real part, then the imaginary part with its sign and a `j`.
    Complex(FloatFormat, FloatFormat),
}

impl ElementFormat {
    fn new(values: &[Scalar], dtype: DType, zero_d: bool) -> ElementFormat {
        let vals: Vec<Value> = values.iter().map(|v| Value::of(*v)).collect();
        match dtype.kind() {
            crate::dtype::DTypeKind::Bool => ElementFormat::Bool { zero_d },
            crate::dtype::DTypeKind::SignedInt | crate::dtype::DTypeKind::UnsignedInt => {
                let width = vals
                    .iter()
                    .map(|v| match v {
                        Value::Int(i) => i.to_string().len(),
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0);
                ElementFormat::Int { width }
            }
            crate::dtype::DTypeKind::Float => {
                let xs: Vec<f64> = vals
                    .iter()
                    .map(|v| match v {
                        Value::Float(x) => *x,
                        _ => 0.0,
                    })
                    .collect();
                ElementFormat::Float(FloatFormat::new(&xs, dtype, false))
            }
            // Never reached: `host_values` refuses records.
            crate::dtype::DTypeKind::Record => ElementFormat::Bool { zero_d },
            crate::dtype::DTypeKind::Complex => {
                let (re, im): (Vec<f64>, Vec<f64>) = vals
                    .iter()
                    .map(|v| match v {
                        Value::Complex(r, i) => (*r, *i),
                        _ => (0.0, 0.0),
                    })
                    .unzip();
                ElementFormat::Complex(
                    FloatFormat::new(&re, dtype, false),
                    FloatFormat::new(&im, dtype, true),
                )
            }
        }
    }

    fn format(&self, v: Scalar) -> String {
        match (self, Value::of(v)) {
            (ElementFormat::Bool { zero_d }, Value::Bool(b)) => match (b, zero_d) {
                (true, true) => "True".to_owned(),
                (true, false) => " True".to_owned(),
                (false, _) => "False".to_owned(),
            },
            (ElementFormat::Int { width }, Value::Int(i)) => format!("{i:>width$}"),
            (ElementFormat::Float(f), Value::Float(x)) => f.format(x),
            (ElementFormat::Complex(r, i), Value::Complex(re, im)) => {
                let i = i.format(im);
                let end = i.trim_end().len();
                format!("{}{}j{}", r.format(re), &i[..end], &i[end..])
            }
            (_, other) => format!("{other:?}"),
        }
    }
}

/// NumPy's `_formatArray`: nested brackets, rows wrapped at the line width, `...` where a
/// summarised axis skips items.
struct Printer<'a> {
    values: &'a [Scalar],
    shown: &'a [usize],
    full: &'a [usize],
    fmt: &'a ElementFormat,
    separator: &'a str,
    summary: bool,
}

impl Printer<'_> {
    /// The sub-array at axis `axis` starting at flat offset `base` (in `values`).
    fn recurse(&mut self, axis: usize, base: usize, hanging: &str, width: usize) -> String {
        let nd = self.shown.len();
        if axis == nd {
            return self
                .values
                .get(base)
                .map_or_else(String::new, |v| self.fmt.format(*v));
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let len = self.full[axis];
        let show_summary = self.summary && 2 * EDGE_ITEMS < len;
        let (leading, trailing) = if show_summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, len)
        };
        let stride: usize = self.shown[axis + 1..].iter().product();
        let shown_len = self.shown[axis];
        // position `k` from the start, or `-k` from the end, in the shown values
        let at = |from_end: bool, k: usize| {
            if from_end {
                base + (shown_len - k) * stride
            } else {
                base + k * stride
            }
        };
        let mut s = String::new();
        if axis + 1 == nd {
            let elem_width = width.saturating_sub(self.separator.trim_end().len().max(1));
            let mut line = hanging.to_owned();
            for k in 0..leading {
                let word = self.recurse(axis + 1, at(false, k), &next_hanging, next_width);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push_str(self.separator);
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push_str(self.separator);
            }
            for k in (2..=trailing).rev() {
                let word = self.recurse(axis + 1, at(true, k), &next_hanging, next_width);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push_str(self.separator);
            }
            let word = self.recurse(axis + 1, at(true, 1), &next_hanging, next_width);
            extend_line(&mut s, &mut line, &word, elem_width, hanging);
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.separator.trim_end(),
                "\n".repeat(nd - axis - 1)
            );
            for k in 0..leading {
                let nested = self.recurse(axis + 1, at(false, k), &next_hanging, next_width);
                s.push_str(hanging);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(hanging);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for k in (2..=trailing).rev() {
                let nested = self.recurse(axis + 1, at(true, k), &next_hanging, next_width);
                s.push_str(hanging);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            let nested = self.recurse(axis + 1, at(true, 1), &next_hanging, next_width);
            s.push_str(hanging);
            s.push_str(&nested);
        }
        format!("[{}]", &s[hanging.len().min(s.len())..])
    }
}

/// NumPy's `_extendLine`: wraps before `word` when the line would pass `width` (unless
/// the line holds nothing but its indent).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_owned();
    }
    line.push_str(word);
}

/// The elements of `a` that print (all of them, or the corners of a summarised array), in
/// C order over [`shown_shape`], copied to the host.
fn shown_values(a: &Array) -> Result<Vec<Scalar>> {
    let shape = a.shape();
    let shown = shown_shape(shape);
    if shown.as_slice() == shape {
        return host_values(a);
    }
    let cut: Vec<usize> = (0..shape.len()).filter(|&d| shown[d] != shape[d]).collect();
    let mut out: Vec<Scalar> = vec![Scalar::Bool(false); shown.iter().product()];
    for corner in 0..(1usize << cut.len()) {
        let trailing = |d: usize| {
            cut.iter()
                .position(|&c| c == d)
                .is_some_and(|k| corner & (1 << k) != 0)
        };
        let args: Vec<SliceArg> = (0..shape.len())
            .map(|d| {
                let (start, end) = if shown[d] == shape[d] {
                    (None, None)
                } else if trailing(d) {
                    (Some(-(EDGE_ITEMS as isize)), None)
                } else {
                    (None, Some(EDGE_ITEMS as isize))
                };
                SliceArg::Range {
                    start,
                    end,
                    step: 1,
                }
            })
            .collect();
        let part = a.slice(&args)?;
        let vals = host_values(&part)?;
        let pshape = part.shape();
        for (flat, v) in vals.into_iter().enumerate() {
            // the element's place among the shown values
            let (mut rest, mut pos, mut mul) = (flat, 0usize, 1usize);
            for d in (0..shape.len()).rev() {
                let i = rest % pshape[d];
                rest /= pshape[d];
                let i = if shown[d] != shape[d] && trailing(d) {
                    i + EDGE_ITEMS
                } else {
                    i
                };
                pos += i * mul;
                mul *= shown[d];
            }
            out[pos] = v;
        }
    }
    Ok(out)
}

/// Every element of `a` in C order, as host scalars.
fn host_values(a: &Array) -> Result<Vec<Scalar>> {
    let stream = Stream::for_device(a.device())?;
    let c = a.to_contiguous()?;
    let mut bytes = vec![0u8; c.nbytes()];
    // SAFETY: `c` is contiguous with `nbytes()` bytes, alive until the copy returns.
    unsafe { copy_dtoh(as_uninit(&mut bytes), c.ptr_on(&stream), &stream)? };
    macro_rules! conv {
        ($t:ty) => {
            vec_from_bytes::<$t>(&bytes)
                .into_iter()
                .map(Scalar::from)
                .collect()
        };
    }
    Ok(match a.dtype() {
        DType::Bool => conv!(bool),
        DType::I8 => conv!(i8),
        DType::I16 => conv!(i16),
        DType::I32 => conv!(i32),
        DType::I64 => conv!(i64),
        DType::U8 => conv!(u8),
        DType::U16 => conv!(u16),
        DType::U32 => conv!(u32),
        DType::U64 => conv!(u64),
        DType::F16 => conv!(f16),
        DType::BF16 => conv!(bf16),
        DType::F32 => conv!(f32),
        DType::F64 => conv!(f64),
        DType::C64 => conv!(num_complex::Complex<f32>),
        DType::C128 => conv!(num_complex::Complex<f64>),
        DType::Record(r) => bail!(
            DType,
            "an array of records ({}) has no NumPy text form; read it with `to_records`",
            r.name()
        ),
    })
}

/// `str(a)` as NumPy writes it, or the error that kept the values from the host.
fn render_str(a: &Array) -> Result<String> {
    if a.size() == 0 {
        return Ok("[]".to_owned());
    }
    let vals = shown_values(a)?;
    if a.ndim() == 0 {
        return Ok(vals.first().map(|v| format_scalar(*v)).unwrap_or_default());
    }
    Ok(format_array(&vals, a.dtype(), a.shape(), " ", 0))
}

/// NumPy's `str(array)`: the values, summarised for large arrays
/// (`[  2   3   4 ...  287  77  42]`), nested brackets for n-d arrays, a 0-d array as its
/// value, `[]` when empty. Printing copies the elements that show to the host (it waits
/// for the work queued on the current stream); an error doing so prints as
/// `<error: ...>`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, Endpoint};
/// let a = Array::linspace(0.0, 1.0, 3, Endpoint::Included, DType::F32)?;
/// assert_eq!(a.to_string(), "[0.  0.5 1. ]");
/// let b = Array::from_slice(&[true, false], &[2])?;
/// assert_eq!(format!("{b}"), "[ True False]");
/// let big = Array::arange(0.0, 10_000.0, 1.0, DType::I64)?;
/// assert_eq!(big.to_string(), "[   0    1    2 ... 9997 9998 9999]");
/// # Ok::<(), cuprum::Error>(())
/// ```
impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match render_str(self) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<error: {e}>"),
        }
    }
}

/// The values as in NumPy's repr, then the shape, dtype, element strides and device:
/// `array([0. , 0.5, 1. ], shape=(3,), dtype=float32, strides=(1,), device=0)`
/// (`device=host` on the host device).
/// Like `Display`, it copies the values that show to the host; if that fails they print as
/// `<error: ...>` and the rest still shows.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, Endpoint};
/// let a = Array::linspace(0.0, 1.0, 3, Endpoint::Included, DType::F32)?;
/// assert_eq!(
///     format!("{a:?}"),
///     format!("array([0. , 0.5, 1. ], shape=(3,), dtype=float32, strides=(1,), device={})",
///             a.device().label())
/// );
/// # Ok::<(), cuprum::Error>(())
/// ```
impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = if self.size() == 0 {
            Ok("[]".to_owned())
        } else {
            shown_values(self).map(|v| format_array(&v, self.dtype(), self.shape(), ", ", 6))
        };
        let values = values.unwrap_or_else(|e| format!("<error: {e}>"));
        let strides: Vec<String> = self.strides().iter().map(|s| s.to_string()).collect();
        let strides = if strides.len() == 1 {
            format!("({},)", strides[0])
        } else {
            format!("({})", strides.join(", "))
        };
        let device = self.buf.stream().device().label();
        write!(
            f,
            "array({values}, shape={}, dtype={}, strides={strides}, device={device})",
            format_shape(self.shape()),
            self.dtype(),
        )
    }
}

// NumPy's output for these tests is test data, kept out of `src/`.
#[cfg(test)]
#[path = "../../tests/fixtures/display_numpy_cases.rs"]
mod numpy_cases;

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use num_complex::Complex;

    /// Scalars of dtype `dt` from integers: values of bool and integer dtypes, the bits of
    /// float ones, (real bits, imaginary bits) pairs of complex ones.
    fn scalars(dt: DType, raw: &[i128]) -> Vec<Scalar> {
        match dt {
            DType::C64 => raw
                .chunks(2)
                .map(|c| {
                    Scalar::C64(Complex::new(
                        f32::from_bits(c[0] as u32),
                        f32::from_bits(c[1] as u32),
                    ))
                })
                .collect(),
            DType::C128 => raw
                .chunks(2)
                .map(|c| {
                    Scalar::C128(Complex::new(
                        f64::from_bits(c[0] as u64),
                        f64::from_bits(c[1] as u64),
                    ))
                })
                .collect(),
            _ => raw
                .iter()
                .map(|&v| match dt {
                    DType::Bool => Scalar::Bool(v != 0),
                    DType::I8 => Scalar::I8(v as i8),
                    DType::I16 => Scalar::I16(v as i16),
                    DType::I32 => Scalar::I32(v as i32),
                    DType::I64 => Scalar::I64(v as i64),
                    DType::U8 => Scalar::U8(v as u8),
                    DType::U16 => Scalar::U16(v as u16),
                    DType::U32 => Scalar::U32(v as u32),
                    DType::U64 => Scalar::U64(v as u64),
                    DType::F16 => Scalar::F16(f16::from_bits(v as u16)),
                    DType::BF16 => Scalar::BF16(bf16::from_bits(v as u16)),
                    DType::F32 => Scalar::F32(f32::from_bits(v as u32)),
                    _ => Scalar::F64(f64::from_bits(v as u64)),
                })
                .collect(),
        }
    }

    /// Checks `str(a)` (for a 0-d array: its element), the values of `repr(a)` and, for a
    /// 0-d array, `str(a)` of its scalar.
    #[track_caller]
    pub(super) fn check(
        dt: DType,
        raw: &[i128],
        shape: &[usize],
        want_str: &str,
        want_repr: &str,
        want_scalar: Option<&str>,
    ) {
        let vals = scalars(dt, raw);
        assert_eq!(
            format_array(&vals, dt, shape, " ", 0),
            want_str,
            "{dt} {shape:?} str"
        );
        assert_eq!(
            format_array(&vals, dt, shape, ", ", 6),
            want_repr,
            "{dt} {shape:?} repr"
        );
        if let Some(w) = want_scalar {
            assert_eq!(format_scalar(vals[0]), w, "{dt} scalar");
        }
    }

    /// The shown values of a full C-order array (what `shown_values` copies).
    fn gather<T: Copy>(full: &[T], shape: &[usize]) -> Vec<T> {
        let shown = shown_shape(shape);
        let n: usize = shown.iter().product();
        (0..n)
            .map(|flat| {
                let (mut rest, mut pos, mut mul) = (flat, 0, 1);
                for d in (0..shape.len()).rev() {
                    let i = rest % shown[d];
                    rest /= shown[d];
                    let i = if shown[d] != shape[d] && i >= EDGE_ITEMS {
                        shape[d] - 2 * EDGE_ITEMS + i
                    } else {
                        i
                    };
                    pos += i * mul;
                    mul *= shape[d];
                }
                full[pos]
            })
            .collect()
    }

    /// [`check`] of the array of `shape` whose element at C-order index `i` is `f(i)`.
    #[track_caller]
    pub(super) fn check_formula(
        dt: DType,
        shape: &[usize],
        f: impl Fn(f64) -> Scalar,
        want_str: &str,
        want_repr: Option<&str>,
    ) {
        let n: usize = shape.iter().product();
        let full: Vec<Scalar> = (0..n).map(|i| f(i as f64)).collect();
        let vals = gather(&full, shape);
        assert_eq!(
            format_array(&vals, dt, shape, " ", 0),
            want_str,
            "{dt} {shape:?} str"
        );
        if let Some(w) = want_repr {
            assert_eq!(
                format_array(&vals, dt, shape, ", ", 6),
                w,
                "{dt} {shape:?} repr"
            );
        }
    }

    #[test]
    fn shortest_digits_per_type() {
        assert_eq!(shortest(0.1f32 as f64, DType::F32).digits, "1");
        assert_eq!(
            shortest(0.1f32 as f64, DType::F64).digits,
            "10000000149011612"
        );
        assert_eq!(
            shortest(f16::from_f64(0.1).to_f64(), DType::F16).digits,
            "1"
        );
        assert_eq!(
            shortest(bf16::from_f64(3.140625).to_f64(), DType::BF16).digits,
            "314"
        );
        assert_eq!(
            shortest(-0.0, DType::F64),
            Digits {
                negative: true,
                digits: "0".into(),
                exp: 0
            }
        );
        assert_eq!(
            positional(1.0 / 3.0, DType::F64, false),
            ("0".into(), "33333333".into())
        );
        assert_eq!(
            positional(12.25, DType::F64, true),
            ("+12".into(), "25".into())
        );
        assert_eq!(
            scientific(1.0 / 3.0 * 1e-7, DType::F64, false).1,
            "33333333"
        );
    }

    #[test]
    fn the_seeds_summarised_array() {
        // seed 003: `print(f"Primes sum array: {A}")` for the 999,999 sums of prime factors
        let shown = [2i64, 3, 4, 287, 77, 42].map(Scalar::I64);
        assert_eq!(
            format_array(&shown, DType::I64, &[999_999], " ", 0),
            "[  2   3   4 ... 287  77  42]"
        );
    }

    #[test]
    fn empty_arrays_and_bfloat16() {
        for shape in [&[0usize][..], &[2, 0], &[0, 3, 4]] {
            assert_eq!(format_array(&[], DType::F32, shape, " ", 0), "[]");
        }
        // bfloat16 (not in NumPy): floats with bfloat16's own shortest digits
        let v = [1.0, 0.1, -2.5, 3.140625].map(|x| Scalar::BF16(bf16::from_f64(x)));
        assert_eq!(
            format_array(&v, DType::BF16, &[4], " ", 0),
            "[ 1.    0.1  -2.5   3.14]"
        );
        assert_eq!(format_scalar(Scalar::BF16(bf16::from_f64(0.1))), "0.1");
        let v = [1.0, 0.1].map(|x| Scalar::BF16(bf16::from_f64(x)));
        assert_eq!(format_array(&v, DType::BF16, &[2], " ", 0), "[1.  0.1]");
        let v = [1e-5, 1.0].map(|x| Scalar::BF16(bf16::from_f64(x)));
        assert_eq!(
            format_array(&v, DType::BF16, &[2], " ", 0),
            "[1.e-05 1.e+00]"
        );
    }
}
