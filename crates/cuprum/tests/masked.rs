//! Writing through boolean masks (NumPy's `x[m] = v`, `x[m] op= v`) against a host model:
//! scalar values, values that broadcast to every selected element or row, values with one
//! entry (or row) per selected element, masks over all axes or the leading ones, 0-d and
//! empty arrays, all-false and all-true masks, views as arrays, masks and values, masks and
//! values that share memory with the array, NumPy's `same_kind` rule and every error; a
//! property test over random shapes, masks, values, operations and views. GPU tests begin
//! with `require_gpu!()`.

mod common;
// The examples' host reference of the prime-factor sum, defined once.
#[path = "../../../examples/seeds/mod.rs"]
mod seeds;

use common::numpy_model::V::{self, B, F, I};
use common::numpy_model::{
    cast_v, close_v, dev, eps, host, int_floor_div, int_rem, small_vals, view_of, wrap,
};
use common::views::unravel;
use common::{Rng, assert_err, expect_err, gpu_proptest_runner};
use cuprum::kernel::IntoOperand;
use cuprum::ops::{self, Masked};
use cuprum::{Array, DType, DTypeKind, ErrorKind, Scalar, SliceArg};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// =========================================================================================
// The model
// =========================================================================================

#[derive(Debug, Clone, Copy, PartialEq)]
enum M {
    Set,
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Fmod,
    Pow,
    Max,
    Min,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl M {
    fn call(self, sel: Masked<'_>, v: impl IntoOperand) -> cuprum::Result<()> {
        match self {
            M::Set => sel.set(v),
            M::Add => sel.add(v),
            M::Sub => sel.subtract(v),
            M::Mul => sel.multiply(v),
            M::Div => sel.divide(v),
            M::FloorDiv => sel.floor_divide(v),
            M::Rem => sel.remainder(v),
            M::Fmod => sel.fmod(v),
            M::Pow => sel.power(v),
            M::Max => sel.maximum(v),
            M::Min => sel.minimum(v),
            M::And => sel.bitwise_and(v),
            M::Or => sel.bitwise_or(v),
            M::Xor => sel.bitwise_xor(v),
            M::Shl => sel.left_shift(v),
            M::Shr => sel.right_shift(v),
        }
    }

    fn name(self) -> &'static str {
        match self {
            M::Set => "set",
            M::Add => "add",
            M::Sub => "subtract",
            M::Mul => "multiply",
            M::Div => "divide",
            M::FloorDiv => "floor_divide",
            M::Rem => "remainder",
            M::Fmod => "fmod",
            M::Pow => "power",
            M::Max => "maximum",
            M::Min => "minimum",
            M::And => "bitwise_and",
            M::Or => "bitwise_or",
            M::Xor => "bitwise_xor",
            M::Shl => "left_shift",
            M::Shr => "right_shift",
        }
    }
}

/// (compute, result) dtypes of `op` on operands promoted to `c` (NumPy), `None` if refused.
fn types(op: M, c: DType) -> Option<(DType, DType)> {
    let k = c.kind();
    let int_like = matches!(
        k,
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt
    );
    let i8 = Some((DType::I8, DType::I8));
    match op {
        M::Set => Some((c, c)),
        M::Add | M::Mul => Some((c, c)),
        M::Sub if k == DTypeKind::Bool => None,
        M::Sub => Some((c, c)),
        M::Div if int_like => Some((DType::F64, DType::F64)),
        M::Div => Some((c, c)),
        M::FloorDiv | M::Rem | M::Fmod if k == DTypeKind::Complex => None,
        M::FloorDiv | M::Rem | M::Fmod | M::Pow if k == DTypeKind::Bool => i8,
        M::FloorDiv | M::Rem | M::Fmod | M::Pow => Some((c, c)),
        M::Max | M::Min if k == DTypeKind::Complex => None,
        M::Max | M::Min => Some((c, c)),
        M::And | M::Or | M::Xor if !int_like => None,
        M::And | M::Or | M::Xor => Some((c, c)),
        M::Shl | M::Shr if !int_like => None,
        M::Shl | M::Shr if k == DTypeKind::Bool => i8,
        M::Shl | M::Shr => Some((c, c)),
    }
}

/// `op(x, y)` in compute dtype `t` (both already converted to `t`).
fn apply(op: M, x: V, y: V, t: DType) -> V {
    let bits = 8 * t.itemsize() as i128;
    match (x, y) {
        (B(p), B(q)) => B(match op {
            M::Add | M::Max | M::Or => p || q,
            M::Mul | M::Min | M::And => p && q,
            M::Xor => p != q,
            _ => panic!("{op:?} on bools"),
        }),
        (I(p), I(q)) => I(wrap(
            match op {
                M::Add => p + q,
                M::Sub => p - q,
                M::Mul => p * q,
                M::FloorDiv => int_floor_div(p, q),
                M::Rem => int_rem(p, q),
                M::Fmod if q == 0 => 0,
                M::Fmod => p % q,
                M::Pow => (0..q).fold(1i128, |acc, _| wrap(acc * p, t)),
                M::Max => p.max(q),
                M::Min => p.min(q),
                M::And => p & q,
                M::Or => p | q,
                M::Xor => p ^ q,
                M::Shl if q < 0 || q >= bits => 0,
                M::Shl => p.wrapping_shl(q as u32),
                M::Shr if q < 0 || q >= bits => {
                    if p < 0 {
                        -1
                    } else {
                        0
                    }
                }
                M::Shr => p >> q,
                _ => panic!("{op:?} on integers"),
            },
            t,
        )),
        (F(p), F(q)) => F(common::numpy_model::round_float(
            match op {
                M::Add => p + q,
                M::Sub => p - q,
                M::Mul => p * q,
                M::Div => p / q,
                M::FloorDiv => {
                    let m = p % q;
                    let mut d = (p - m) / q;
                    if m != 0.0 && ((q < 0.0) != (m < 0.0)) {
                        d -= 1.0;
                    }
                    if d != 0.0 {
                        let mut f = d.floor();
                        if d - f > 0.5 {
                            f += 1.0;
                        }
                        f
                    } else {
                        0f64.copysign(p / q)
                    }
                }
                M::Rem => {
                    let r = p % q;
                    if r != 0.0 && ((r < 0.0) != (q < 0.0)) {
                        r + q
                    } else if r == 0.0 {
                        0f64.copysign(q)
                    } else {
                        r
                    }
                }
                M::Fmod => p % q,
                M::Pow => p.powf(q),
                M::Max => p.max(q),
                M::Min => p.min(q),
                _ => panic!("{op:?} on floats"),
            },
            t,
        )),
        _ => panic!("{op:?} on {x:?} and {y:?}"),
    }
}

/// How a value is given.
#[derive(Debug, Clone)]
enum Val {
    /// A Rust scalar (weak) of this dtype.
    Scalar(V, DType),
    /// An array of this shape and dtype with these values (C order).
    Array(Vec<V>, Vec<usize>, DType),
}

impl Val {
    fn dtype(&self) -> DType {
        match self {
            Val::Scalar(_, d) | Val::Array(_, _, d) => *d,
        }
    }
}

/// The element of `vals` (shape `vs`, right-aligned) that broadcasts to index `idx` of a
/// larger shape.
fn bcast_at(vals: &[V], vs: &[usize], idx: &[usize]) -> V {
    let off = idx.len() - vs.len();
    let mut flat = 0usize;
    for (k, &e) in vs.iter().enumerate() {
        let i = if e == 1 { 0 } else { idx[off + k] };
        flat = flat * e + i;
    }
    vals[flat]
}

/// NumPy's `x[mask] op= value` on host values: `x` of shape `xs` and dtype `xd`, `mask`
/// over its leading `mask_shape` axes. `Err` with the reason where NumPy refuses.
fn model(
    op: M,
    x: &[V],
    xs: &[usize],
    xd: DType,
    mask: &[bool],
    mask_nd: usize,
    val: &Val,
) -> Result<Vec<V>, &'static str> {
    let vd = val.dtype();
    let (t, out) = if op == M::Set {
        (xd, xd)
    } else {
        let c = match val {
            Val::Scalar(..) => ops::result_type_of(&[xd], &[vd]).unwrap(),
            Val::Array(..) => ops::promote_types(xd, vd),
        };
        let Some(l) = types(op, c) else {
            return Err("refused dtype");
        };
        if !ops::can_cast_same_kind(l.1, xd) {
            return Err("same_kind");
        }
        l
    };
    let trail = &xs[mask_nd..];
    let tsize: usize = trail.iter().product();
    let count = mask.iter().filter(|&&b| b).count();
    let mut target = vec![count];
    target.extend_from_slice(trail);
    if let Val::Array(_, vs, _) = val {
        // The value must broadcast to (count,) + trailing.
        if vs.len() > target.len() {
            return Err("shape");
        }
        let off = target.len() - vs.len();
        for (k, &e) in vs.iter().enumerate() {
            if e != 1 && e != target[off + k] {
                return Err("shape");
            }
        }
    }
    let mut y = x.to_vec();
    let mut rank = 0usize;
    for (row, &sel) in mask.iter().enumerate() {
        if !sel {
            continue;
        }
        for j in 0..tsize {
            let mut idx = vec![rank];
            idx.extend(unravel(j, trail));
            let v = match val {
                Val::Scalar(v, _) => *v,
                Val::Array(vals, vs, _) => bcast_at(vals, vs, &idx),
            };
            let at = row * tsize + j;
            y[at] = if op == M::Set {
                cast_v(v, xd)
            } else {
                cast_v(apply(op, cast_v(x[at], t), cast_v(v, t), t), out)
            };
            // `same_kind` may narrow (float64 into float32): the array's dtype.
            y[at] = cast_v(y[at], xd);
        }
        rank += 1;
    }
    Ok(y)
}

/// Runs `op` through the mask and compares with the model (values within 8 ulps for
/// floats; a refused call must leave `x` unchanged).
#[track_caller]
fn check(op: M, x: &Array, xv: &[V], m: &Array, mv: &[bool], val: &Val, what: &str) {
    let xd = x.dtype();
    let want = model(op, xv, x.shape(), xd, mv, m.ndim(), val);
    let r = match val {
        Val::Scalar(v, d) => op.call(x.masked(m), scalar(*v, *d)),
        Val::Array(vals, vs, d) => op.call(x.masked(m), dev(vals, vs, *d)),
    };
    match want {
        Ok(want) => {
            r.unwrap_or_else(|e| panic!("{what}: {op:?} failed: {e}"));
            let got = host(x);
            for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let tol = 8.0 * eps(xd) * common::numpy_model::magnitude(w).max(1.0);
                assert!(
                    close_v(g, w, tol),
                    "{what}: {op:?} element {k}: got {g:?}, want {w:?}"
                );
            }
        }
        Err(why) => {
            let kind = if why == "shape" {
                ErrorKind::Shape
            } else {
                ErrorKind::DType
            };
            let e = expect_err(r, kind);
            assert_eq!(
                host(x),
                xv,
                "{what}: {op:?} refused ({e}) but changed the array"
            );
        }
    }
}

fn scalar(v: V, d: DType) -> Scalar {
    common::numpy_model::scalar_of(v, d)
}

fn rand_mask(rng: &mut Rng, n: usize, density: f64) -> Vec<bool> {
    (0..n).map(|_| rng.f64(0.0, 1.0) < density).collect()
}

fn mask_dev(mv: &[bool], shape: &[usize]) -> Array {
    Array::from_slice(mv, shape).unwrap()
}

// =========================================================================================
// Assignment
// =========================================================================================

#[test]
fn set_a_scalar_with_random_all_false_and_all_true_masks() {
    require_gpu!();
    let mut rng = Rng::new(30);
    for d in [
        DType::F32,
        DType::I64,
        DType::U8,
        DType::Bool,
        DType::F16,
        DType::C128,
    ] {
        for density in [0.0, 0.4, 1.0] {
            let n = 1000;
            let xv = small_vals(&mut rng, d, n);
            let x = dev(&xv, &[n], d);
            let mv = rand_mask(&mut rng, n, density);
            let m = mask_dev(&mv, &[n]);
            let v = cast_v(I(7), d);
            check(
                M::Set,
                &x,
                &xv,
                &m,
                &mv,
                &Val::Scalar(v, d),
                &format!("{d} {density}"),
            );
        }
    }
    // A Rust scalar converts with NumPy's checks.
    let x = dev(&[I(1), I(2)], &[2], DType::U8);
    let m = mask_dev(&[true, false], &[2]);
    assert_err(x.masked(&m).set(300i32), ErrorKind::DType, "300");
    let f = dev(&[I(1), I(2)], &[2], DType::I32);
    expect_err(f.masked(&m).set(f64::NAN), ErrorKind::DType);
    f.masked(&m).set(2.9f64).unwrap(); // truncates, as NumPy's assignment
    assert_eq!(host(&f), vec![I(2), I(2)]);
    let b = dev(&[B(false), B(false)], &[2], DType::Bool);
    b.masked(&m).set(5i32).unwrap();
    assert_eq!(host(&b), vec![B(true), B(false)]);
}

#[test]
fn set_values_per_selected_element_or_broadcast() {
    require_gpu!();
    let xv: Vec<V> = (0..6).map(|i| F(i as f64)).collect();
    let x = dev(&xv, &[6], DType::F64);
    let mv = [true, false, true, true, false, false];
    let m = mask_dev(&mv, &[6]);
    // one value per selected element (x[m] = v), in C order
    let v = Array::from_slice(&[10.0f64, 20.0, 30.0], &[3]).unwrap();
    x.masked(&m).set(&v).unwrap();
    assert_eq!(host(&x), [10.0, 1.0, 20.0, 30.0, 4.0, 5.0].map(F).to_vec());
    // a value of another dtype converts like NumPy's assignment
    let iv = Array::from_slice(&[-1i32, -2, -3], &[3]).unwrap();
    x.masked(&m).set(&iv).unwrap();
    assert_eq!(host(&x), [-1.0, 1.0, -2.0, -3.0, 4.0, 5.0].map(F).to_vec());
    // one element broadcasts: shape (1,) and a 0-d array
    x.masked(&m)
        .set(Array::from_slice(&[9.0f64], &[1]).unwrap())
        .unwrap();
    x.masked(&m).set(Array::scalar(8.0f32).unwrap()).unwrap();
    assert_eq!(host(&x), [8.0, 1.0, 8.0, 8.0, 4.0, 5.0].map(F).to_vec());
    // the wrong count: NumPy's message; nothing changes
    let two = Array::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
    assert_err(
        x.masked(&m).set(&two),
        ErrorKind::Shape,
        "NumPy boolean array indexing assignment cannot assign 2 input values to the 3 output values where the mask is true",
    );
    let m2 = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    assert_err(
        x.masked(&m).set(&m2),
        ErrorKind::Shape,
        "shape mismatch: value array of shape (2, 3) could not be broadcast to indexing result of shape (3,)",
    );
    assert_eq!(host(&x), [8.0, 1.0, 8.0, 8.0, 4.0, 5.0].map(F).to_vec());
    // all-false mask with an empty value; all-true mask with every value
    let none = mask_dev(&[false; 6], &[6]);
    x.masked(&none)
        .set(Array::zeros(&[0], DType::F64).unwrap())
        .unwrap();
    let all = mask_dev(&[true; 6], &[6]);
    let six = Array::from_slice(&[6.0f64, 5.0, 4.0, 3.0, 2.0, 1.0], &[6]).unwrap();
    x.masked(&all).set(&six).unwrap();
    assert_eq!(host(&x), [6.0, 5.0, 4.0, 3.0, 2.0, 1.0].map(F).to_vec());
}

#[test]
fn masks_over_leading_axes_select_rows() {
    require_gpu!();
    let mut rng = Rng::new(31);
    // x (4, 3), a mask over the rows
    let xv = small_vals(&mut rng, DType::I32, 12);
    let mv = vec![true, false, true, true];
    let cases: Vec<Val> = vec![
        Val::Scalar(I(5), DType::I32),
        Val::Array(vec![I(1), I(2), I(3)], vec![3], DType::I32), // a row for every row
        Val::Array(vec![I(1), I(2), I(3)], vec![1, 3], DType::I32), // the same, (1, 3)
        Val::Array(vec![I(7), I(8), I(9)], vec![3, 1], DType::I32), // one per selected row
        Val::Array((0..9).map(I).collect(), vec![3, 3], DType::I32), // a row per selected row
        Val::Array(vec![I(4)], vec![1], DType::I64),
        Val::Array(vec![I(1), I(2)], vec![2], DType::I32), // no
        Val::Array((0..12).map(I).collect(), vec![4, 3], DType::I32), // no: 4 rows, 3 selected
    ];
    for op in [M::Set, M::Add, M::Mul] {
        for (k, val) in cases.iter().enumerate() {
            let x = dev(&xv, &[4, 3], DType::I32);
            let m = mask_dev(&mv, &[4]);
            check(op, &x, &xv, &m, &mv, val, &format!("rows case {k}"));
        }
    }
    // The messages of the refused shapes.
    let x = dev(&xv, &[4, 3], DType::I32);
    let m = mask_dev(&mv, &[4]);
    assert_err(
        x.masked(&m).set(Array::zeros(&[4, 3], DType::I32).unwrap()),
        ErrorKind::Shape,
        "shape mismatch: value array of shape (4, 3) could not be broadcast to indexing result of shape (3, 3)",
    );
    assert_err(
        x.masked(&m).add(Array::zeros(&[2], DType::I32).unwrap()),
        ErrorKind::Shape,
        "value array of shape (2,) could not be broadcast to indexing result of shape (3, 3)",
    );
    // x (2, 3, 4) with a (2, 3) mask: rows of 4
    let xv = small_vals(&mut rng, DType::F32, 24);
    let mv = rand_mask(&mut rng, 6, 0.5);
    let x = dev(&xv, &[2, 3, 4], DType::F32);
    let m = mask_dev(&mv, &[2, 3]);
    let count = mv.iter().filter(|&&b| b).count();
    let rows: Vec<V> = (0..count * 4).map(|i| F(i as f64)).collect();
    check(
        M::Set,
        &x,
        &xv,
        &m,
        &mv,
        &Val::Array(rows, vec![count, 4], DType::F32),
        "3-d",
    );
    // a 0-d mask selects the whole array (NumPy's x[True]) or nothing
    let x = dev(&[I(1), I(2)], &[2], DType::I16);
    x.masked(&Array::scalar(true).unwrap()).add(10i16).unwrap();
    assert_eq!(host(&x), vec![I(11), I(12)]);
    x.masked(&Array::scalar(false).unwrap()).set(0i16).unwrap();
    assert_eq!(host(&x), vec![I(11), I(12)]);
    x.masked(&Array::scalar(true).unwrap())
        .set(Array::from_slice(&[5i16, 6], &[1, 2]).unwrap())
        .unwrap();
    assert_eq!(host(&x), vec![I(5), I(6)]);
}

#[test]
fn zero_dimensional_and_empty_arrays() {
    require_gpu!();
    let x = Array::scalar(3.5f64).unwrap();
    let t = Array::scalar(true).unwrap();
    x.masked(&t).multiply(2.0).unwrap();
    assert_eq!(host(&x), vec![F(7.0)]);
    x.masked(&t)
        .set(Array::from_slice(&[1.0f64], &[1]).unwrap())
        .unwrap();
    assert_eq!(host(&x), vec![F(1.0)]);
    let e = Array::zeros(&[0, 3], DType::I64).unwrap();
    let em = Array::zeros(&[0], DType::Bool).unwrap();
    e.masked(&em).add(1i64).unwrap();
    e.masked(&em)
        .set(Array::zeros(&[0, 3], DType::I64).unwrap())
        .unwrap();
    assert_eq!(e.shape(), &[0, 3]);
}

// =========================================================================================
// Updates
// =========================================================================================

#[test]
fn every_update_operation_for_integer_float_and_bool_arrays() {
    require_gpu!();
    let mut rng = Rng::new(32);
    let ops_list = [
        M::Add,
        M::Sub,
        M::Mul,
        M::Div,
        M::FloorDiv,
        M::Rem,
        M::Fmod,
        M::Pow,
        M::Max,
        M::Min,
        M::And,
        M::Or,
        M::Xor,
        M::Shl,
        M::Shr,
    ];
    for d in [
        DType::I64,
        DType::I8,
        DType::U16,
        DType::F32,
        DType::F64,
        DType::Bool,
    ] {
        let n = 333;
        let xv = small_vals(&mut rng, d, n);
        let mv = rand_mask(&mut rng, n, 0.5);
        for op in ops_list {
            // a weak scalar of the array's kind (exponents small and positive)
            let s = match d.kind() {
                DTypeKind::Bool => Val::Scalar(B(true), DType::Bool),
                DTypeKind::Float => Val::Scalar(F(2.5), DType::F64),
                _ if op == M::Pow => Val::Scalar(I(3), DType::I64),
                _ => Val::Scalar(I(3), DType::I32),
            };
            let x = dev(&xv, &[n], d);
            let m = mask_dev(&mv, &[n]);
            check(op, &x, &xv, &m, &mv, &s, &format!("{d} scalar"));
            // one value per selected element, of the array's dtype
            let count = mv.iter().filter(|&&b| b).count();
            let vv: Vec<V> = if op == M::Pow && d.kind() != DTypeKind::Float {
                (0..count).map(|i| cast_v(I((i % 4) as i128), d)).collect()
            } else {
                small_vals(&mut rng, d, count)
            };
            let x = dev(&xv, &[n], d);
            check(
                op,
                &x,
                &xv,
                &m,
                &mv,
                &Val::Array(vv, vec![count], d),
                &format!("{d} ranked"),
            );
        }
    }
}

#[test]
fn updates_follow_numpys_same_kind_rule() {
    require_gpu!();
    let x = dev(&[I(1), I(2), I(3)], &[3], DType::I32);
    let m = mask_dev(&[true, false, true], &[3]);
    assert_err(
        x.masked(&m).add(0.5),
        ErrorKind::DType,
        "cannot cast ufunc 'add' output from float64 to int32 with casting rule 'same_kind'",
    );
    assert_err(
        x.masked(&m).divide(2i32),
        ErrorKind::DType,
        "cannot cast ufunc 'divide' output from float64 to int32",
    );
    let u = dev(&[I(1), I(2), I(3)], &[3], DType::U8);
    assert_err(
        u.masked(&m)
            .add(Array::from_slice(&[1i16, 2], &[2]).unwrap()),
        ErrorKind::DType,
        "from int16 to uint8",
    );
    assert_err(
        u.masked(&m).bitwise_and(1.0),
        ErrorKind::DType,
        "bitwise_and is only defined for integer and bool operands",
    );
    let b = dev(&[B(true), B(false), B(true)], &[3], DType::Bool);
    assert_err(
        b.masked(&m).subtract(true),
        ErrorKind::DType,
        "boolean subtract",
    );
    assert_eq!(host(&x), vec![I(1), I(2), I(3)]);
    // float32 updated by float64 values: same kind, narrowed
    let f = dev(&[F(1.0), F(2.0), F(3.0)], &[3], DType::F32);
    f.masked(&m)
        .add(Array::from_slice(&[0.5f64, 0.25], &[2]).unwrap())
        .unwrap();
    assert_eq!(host(&f), vec![F(1.5), F(2.0), F(3.25)]);
    // int8 updated by uint8 values: int16 result narrowed to int8 (same kind)
    let i8x = dev(&[I(100), I(0), I(-100)], &[3], DType::I8);
    i8x.masked(&m)
        .add(Array::from_slice(&[100u8, 50], &[2]).unwrap())
        .unwrap();
    assert_eq!(host(&i8x), vec![I(-56), I(0), I(-50)]);
}

#[test]
fn mask_errors_follow_numpy() {
    require_gpu!();
    let x = Array::zeros(&[2, 3], DType::F32).unwrap();
    let not_bool = Array::ones(&[2, 3], DType::U8).unwrap();
    assert_err(
        x.masked(&not_bool).set(1.0),
        ErrorKind::DType,
        "a mask must be a bool array, got uint8",
    );
    let wrong = Array::zeros(&[2, 2], DType::Bool).unwrap();
    assert_err(
        x.masked(&wrong).add(1.0),
        ErrorKind::Shape,
        "boolean index did not match indexed array along axis 1; size of axis is 3 but size of corresponding boolean axis is 2",
    );
    let deep = Array::zeros(&[2, 3, 1], DType::Bool).unwrap();
    assert_err(
        x.masked(&deep).set(1.0),
        ErrorKind::Shape,
        "too many indices for array: array is 2-dimensional, but 3 were indexed",
    );
    let bview = Array::zeros(&[3], DType::F32)
        .unwrap()
        .broadcast_to(&[2, 3])
        .unwrap();
    let m = Array::ones(&[2, 3], DType::Bool).unwrap();
    assert_err(
        bview.masked(&m).set(1.0),
        ErrorKind::InvalidArgument,
        "assignment destination is read-only",
    );
}

// =========================================================================================
// Views and shared memory
// =========================================================================================

#[test]
fn views_as_arrays_masks_and_values() {
    require_gpu!();
    let mut rng = Rng::new(33);
    let (r, c) = (5usize, 8usize);
    let xv = small_vals(&mut rng, DType::F64, r * c);
    let mv = rand_mask(&mut rng, r * c, 0.5);
    // x: a transposed view holding xv in C order; m: a reversed view holding mv
    let x = dev(&xv, &[r, c], DType::F64)
        .t()
        .to_contiguous()
        .unwrap()
        .t();
    let mut rev_mv: Vec<bool> = Vec::new();
    for row in 0..r {
        let mut line: Vec<bool> = mv[row * c..(row + 1) * c].to_vec();
        line.reverse();
        rev_mv.extend(line);
    }
    let m = mask_dev(&rev_mv, &[r, c])
        .slice(&[SliceArg::from(..), SliceArg::from(..).step(-1)])
        .unwrap();
    assert_eq!(host(&m), mv.iter().map(|&b| B(b)).collect::<Vec<_>>());
    check(
        M::Add,
        &x,
        &xv,
        &m,
        &mv,
        &Val::Scalar(F(1.5), DType::F64),
        "transposed x",
    );
    // a stepped view as the array: only its elements change
    let base = dev(
        &small_vals(&mut rng, DType::F64, 2 * r * c),
        &[r, 2 * c],
        DType::F64,
    );
    let before = host(&base);
    let xs = base
        .slice(&[SliceArg::from(..), SliceArg::from(..).step(2)])
        .unwrap();
    let xsv = host(&xs);
    let count = mv.iter().filter(|&&b| b).count();
    let vals: Vec<V> = (0..count).map(|i| F(i as f64 + 0.5)).collect();
    check(
        M::Set,
        &xs,
        &xsv,
        &m,
        &mv,
        &Val::Array(vals, vec![count], DType::F64),
        "stepped x",
    );
    let after = host(&base);
    for k in 0..r * 2 * c {
        if k % 2 == 1 {
            assert_eq!(after[k], before[k], "untouched element {k} changed");
        }
    }
}

#[test]
fn masks_and_values_that_share_the_arrays_memory() {
    require_gpu!();
    // x[x] = False: the mask is the array itself
    let bv: Vec<bool> = (0..50).map(|i| i % 3 == 0).collect();
    let x = mask_dev(&bv, &[50]);
    x.masked(&x).set(false).unwrap();
    assert_eq!(host(&x), vec![B(false); 50]);
    // x[x[::-1]] = False: the mask is a reversed view of the array (read before any write)
    let x = mask_dev(&bv, &[50]);
    let rev = x.slice(&[SliceArg::from(..).step(-1)]).unwrap();
    x.masked(&rev).set(false).unwrap();
    let want: Vec<V> = (0..50).map(|i| B(bv[i] && !bv[49 - i])).collect();
    assert_eq!(host(&x), want);
    // m2[rows] = m2[0]: the value is a row of the array itself
    let vals: Vec<V> = (0..12).map(|i| I(i * 10)).collect();
    let m2 = dev(&vals, &[4, 3], DType::I64);
    let first = m2.slice(&[0isize.into()]).unwrap();
    let rows = mask_dev(&[false, true, false, true], &[4]);
    m2.masked(&rows).add(&first).unwrap();
    let got = host(&m2);
    for rr in 0..4 {
        for cc in 0..3 {
            let base = (rr * 3 + cc) as i128 * 10;
            let want = if rr % 2 == 1 {
                base + cc as i128 * 10
            } else {
                base
            };
            assert_eq!(got[rr * 3 + cc], I(want), "({rr}, {cc})");
        }
    }
    // x[m] = x[m][::-1]-like: a ranked value from the array's own selection
    let xv: Vec<V> = (0..10).map(|i| F(i as f64)).collect();
    let x = dev(&xv, &[10], DType::F32);
    let m = mask_dev(
        &[
            true, true, false, false, true, false, false, true, false, false,
        ],
        &[10],
    );
    let sel = x.masked(&m).get().unwrap();
    let rsel = sel.slice(&[SliceArg::from(..).step(-1)]).unwrap();
    x.masked(&m).set(&rsel).unwrap();
    assert_eq!(
        host(&x),
        [7.0, 4.0, 2.0, 3.0, 1.0, 5.0, 6.0, 0.0, 8.0, 9.0]
            .map(F)
            .to_vec()
    );
}

#[test]
fn inplace_operators_through_a_mask() {
    require_gpu!();
    let totals = Array::zeros(&[6], DType::I64).unwrap();
    let nums = Array::from_slice(&[2i64, 3, 4, 5, 6, 8], &[6]).unwrap();
    let even = ops::equal(ops::remainder(&nums, 2i64).unwrap(), 0i64).unwrap();
    totals
        .masked(&even)
        .inplace(|t| {
            *t += 2i64;
            *t <<= 1i64;
        })
        .unwrap();
    assert_eq!(host(&totals), [4, 0, 4, 0, 4, 4].map(I).to_vec());
    nums.masked(&even).floor_divide(2i64).unwrap();
    assert_eq!(host(&nums), [1, 3, 2, 5, 3, 4].map(I).to_vec());
    let r = totals.masked(&even).inplace(|t| {
        *t /= 2i64; // true division: float64 into int64 is refused
        *t += 1i64; // skipped
    });
    assert_err(r, ErrorKind::DType, "from float64 to int64");
    assert_eq!(host(&totals), [4, 0, 4, 0, 4, 4].map(I).to_vec());
}

/// Seed 003's step: `mask = nums % p == 0; totals[mask] += p; nums[mask] //= p`, then
/// `totals[nums > 1] += nums[nums > 1]`, against the host for 2..=10_000.
#[test]
fn the_seed_prime_factor_loop_matches_the_host() {
    require_gpu!();
    let n = 10_000i64;
    let nums = Array::arange(2.0, (n + 1) as f64, 1.0, DType::I64).unwrap();
    let totals = Array::zeros(&[(n - 1) as usize], DType::I64).unwrap();
    for p in [
        2i64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83,
        89, 97,
    ] {
        let mut power = p;
        let mut max_iter = 0;
        while power <= n {
            max_iter += 1;
            power *= p;
        }
        for _ in 0..max_iter {
            let mask = (&nums % p).unwrap().equal(0i64).unwrap();
            totals.masked(&mask).add(p).unwrap();
            nums.masked(&mask).floor_divide(p).unwrap();
        }
    }
    let mask = nums.greater(1i64).unwrap();
    totals
        .masked(&mask)
        .add(nums.masked(&mask).get().unwrap())
        .unwrap();
    let got = totals.to_vec::<i64>().unwrap();
    for (i, &g) in got.iter().enumerate() {
        let want = seeds::prime::prime_factor_sum(i as i64 + 2);
        assert_eq!(g, want, "prime-factor sum of {}", i + 2);
    }
}

// =========================================================================================
// Property test
// =========================================================================================

#[derive(Debug, Clone)]
struct Case {
    shape: Vec<usize>,
    mask_nd: usize,
    density: f64,
    dtype: DType,
    op: M,
    /// 0 scalar, 1 broadcast row, 2 (1,) + row, 3 one per selected element.
    value: u8,
    /// Extents of the broadcast row set to 1.
    ones: Vec<bool>,
    view: usize,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(prop::sample::select(vec![0usize, 1, 2, 3, 5, 7]), 1..=3),
        0usize..3,
        prop::sample::select(vec![0.0f64, 0.3, 0.7, 1.0]),
        prop::sample::select(vec![
            DType::I32,
            DType::I64,
            DType::U8,
            DType::F32,
            DType::F64,
        ]),
        prop::sample::select(vec![
            M::Set,
            M::Add,
            M::Sub,
            M::Mul,
            M::FloorDiv,
            M::Max,
            M::Xor,
        ]),
        0u8..4,
        prop::collection::vec(prop::bool::weighted(0.3), 3),
        0usize..4,
        any::<u64>(),
    )
        .prop_map(
            |(shape, nd, density, dtype, op, value, ones, view, seed)| Case {
                mask_nd: 1 + nd % shape.len(),
                shape,
                density,
                dtype,
                op,
                value,
                ones,
                view,
                seed,
            },
        )
}

#[test]
fn random_masked_updates_match_the_model() {
    require_gpu!();
    let mut runner = gpu_proptest_runner(48);
    let result = runner.run(&case(), |c| {
        let mut rng = Rng::new(c.seed);
        let n: usize = c.shape.iter().product();
        let xv = small_vals(&mut rng, c.dtype, n);
        let x = view_of(&xv, &c.shape, c.dtype, c.view);
        let lead = &c.shape[..c.mask_nd];
        let trail = &c.shape[c.mask_nd..];
        let rows: usize = lead.iter().product();
        let mv = rand_mask(&mut rng, rows, c.density);
        let m = mask_dev(&mv, lead);
        let count = mv.iter().filter(|&&b| b).count();
        // Xor of floats and the like are refused by the model and the library alike.
        let vd = c.dtype;
        let val = match c.value {
            0 => Val::Scalar(
                if c.dtype.kind() == DTypeKind::Float {
                    F(1.5)
                } else {
                    I(3)
                },
                if c.dtype.kind() == DTypeKind::Float {
                    DType::F64
                } else {
                    DType::I32
                },
            ),
            1 | 2 => {
                let mut vs: Vec<usize> = trail
                    .iter()
                    .enumerate()
                    .map(|(k, &e)| if c.ones[k] { 1 } else { e })
                    .collect();
                if c.value == 2 {
                    vs.insert(0, 1);
                }
                let nv: usize = vs.iter().product();
                Val::Array(small_vals(&mut rng, vd, nv), vs, vd)
            }
            _ => {
                let mut vs = vec![count];
                vs.extend_from_slice(trail);
                let nv: usize = vs.iter().product();
                Val::Array(small_vals(&mut rng, vd, nv), vs, vd)
            }
        };
        let what = format!("{} {c:?}", c.op.name());
        let want = model(c.op, &xv, &c.shape, c.dtype, &mv, c.mask_nd, &val);
        let r = match &val {
            Val::Scalar(v, d) => c.op.call(x.masked(&m), scalar(*v, *d)),
            Val::Array(vals, vs, d) => c.op.call(x.masked(&m), dev(vals, vs, *d)),
        };
        match want {
            Ok(want) => {
                if let Err(e) = r {
                    return Err(TestCaseError::fail(format!("{what}: {e}")));
                }
                let got = host(&x);
                for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    let tol = 8.0 * eps(c.dtype) * common::numpy_model::magnitude(w).max(1.0);
                    prop_assert!(
                        close_v(g, w, tol),
                        "{}: element {}: {:?} vs {:?}",
                        what,
                        k,
                        g,
                        w
                    );
                }
            }
            Err(_) => {
                prop_assert!(
                    r.is_err(),
                    "{}: the model refuses, the library did not",
                    what
                );
                prop_assert_eq!(host(&x), xv, "{}: a refused update changed the array", what);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
