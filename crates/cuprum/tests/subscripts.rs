//! NumPy's full subscripts ([`Array::index`], [`Array::index_put`]) and `ufunc.at`
//! ([`ops::at`]) against host loops: several index arrays (adjacent, apart, broadcasting),
//! ints beside arrays, masks inside subscripts, `...` and new axes, negative indices,
//! strided and transposed arrays, every item size of the scatter, repeated indices
//! (applied once each by `at`), and every error with NumPy's message. GPU tests begin with
//! `require_gpu!()` (the host device stands in without a GPU).

mod common;

use common::assert_err;
use cuprum::ops::{self, AtOp, Index};
use cuprum::{Array, DType, ErrorKind, SliceArg};
use num_complex::Complex64;

fn arange(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    Array::from_slice(&(0..n as i64).collect::<Vec<_>>(), shape).unwrap()
}

fn ints(v: &[i64]) -> Index {
    Index::Array(Array::from_slice(v, &[v.len()]).unwrap())
}

fn ints2(v: &[i64], shape: &[usize]) -> Index {
    Index::Array(Array::from_slice(v, shape).unwrap())
}

fn all() -> Index {
    Index::Basic(SliceArg::from(..))
}

fn at(i: isize) -> Index {
    Index::Basic(SliceArg::Index(i))
}

/// Element `(i, j, k)` of the arange of shape (2, 3, 4).
fn e(i: i64, j: i64, k: i64) -> i64 {
    (i * 3 + j) * 4 + k
}

#[test]
fn two_arrays_apart_put_their_broadcast_axes_first() {
    require_gpu!();
    let a = arange(&[2, 3, 4]);
    // a[[1, 0], :, [3, 0]]
    let r = a.index(&[ints(&[1, 0]), all(), ints(&[3, 0])]).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    let want: Vec<i64> = [(1, 3), (0, 0)]
        .iter()
        .flat_map(|&(i, k)| (0..3).map(move |j| e(i, j, k)))
        .collect();
    assert_eq!(r.to_vec::<i64>().unwrap(), want);
    // a[0, :, [0, 2]]: the int counts as an index array, apart from the other
    let r = a.index(&[at(0), all(), ints(&[0, 2])]).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![0, 4, 8, 2, 6, 10]);
    // a[:, [0, 1], ..., [0, 1]]: `...` parts the arrays though it stands for no axis
    let r = a
        .index(&[all(), ints(&[0, 1]), Index::Ellipsis, ints(&[0, 1])])
        .unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(
        r.to_vec::<i64>().unwrap(),
        vec![e(0, 0, 0), e(1, 0, 0), e(0, 1, 1), e(1, 1, 1)]
    );
}

#[test]
fn adjacent_arrays_broadcast_in_place() {
    require_gpu!();
    let a = arange(&[2, 3, 4]);
    // a[:, [[2], [0]], [1, 3, -1]]: B = (2, 3) replaces axes 1 and 2
    let r = a
        .index(&[all(), ints2(&[2, 0], &[2, 1]), ints(&[1, 3, -1])])
        .unwrap();
    assert_eq!(r.shape(), &[2, 2, 3]);
    let mut want = Vec::new();
    for i in 0..2 {
        for j in [2, 0] {
            for k in [1, 3, 3] {
                want.push(e(i, j, k));
            }
        }
    }
    assert_eq!(r.to_vec::<i64>().unwrap(), want);
    // a[1, [0, 2], 1:3]: the int and the array are adjacent
    let r = a
        .index(&[at(1), ints(&[0, 2]), Index::Basic(SliceArg::from(1..3))])
        .unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(
        r.to_vec::<i64>().unwrap(),
        vec![e(1, 0, 1), e(1, 0, 2), e(1, 2, 1), e(1, 2, 2)]
    );
    // a[None, [1], [2]]: a new axis before the arrays
    let r = a
        .index(&[Index::Basic(SliceArg::NewAxis), ints(&[1]), ints(&[2])])
        .unwrap();
    assert_eq!(r.shape(), &[1, 1, 4]);
    assert_eq!(
        r.to_vec::<i64>().unwrap(),
        (0..4).map(|k| e(1, 2, k)).collect::<Vec<_>>()
    );
}

#[test]
fn masks_inside_subscripts_and_strided_arrays() {
    require_gpu!();
    let a = arange(&[2, 3, 4]);
    let m = Array::from_slice(&[true, false, true, true, false, false], &[2, 3]).unwrap();
    // a[m, [1]]: the mask's two axes are two index arrays
    let r = a.index(&[Index::Array(m), ints(&[1])]).unwrap();
    assert_eq!(
        r.to_vec::<i64>().unwrap(),
        vec![e(0, 0, 1), e(0, 2, 1), e(1, 0, 1)]
    );
    // a 0-d mask adds an axis of one element (true) or none
    let t = Array::from_slice(&[true], &[]).unwrap();
    assert_eq!(a.index(&[Index::Array(t)]).unwrap().shape(), &[1, 2, 3, 4]);
    let f = Array::from_slice(&[false], &[]).unwrap();
    assert_eq!(
        a.index(&[Index::Array(f), at(1)]).unwrap().shape(),
        &[0, 3, 4]
    );
    // a transposed, stepped view
    let v = a.t().slice(&cuprum::s![..;-1]).unwrap(); // shape (4, 3, 2), axis 0 reversed
    let r = v.index(&[ints(&[0, 3]), all(), ints(&[1, 0])]).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    let want: Vec<i64> = [(3, 1), (0, 0)]
        .iter()
        .flat_map(|&(k, i)| (0..3).map(move |j| e(i, j, k)))
        .collect();
    assert_eq!(r.to_vec::<i64>().unwrap(), want);
}

#[test]
fn writing_through_index_arrays() {
    require_gpu!();
    // the diagonal of a transposed view, a scalar
    let a = Array::zeros(&[3, 3], DType::F32).unwrap();
    let d = ints(&[0, 1, 2]);
    a.t().index_put(&[d.clone(), d], 1.0f32).unwrap();
    assert_eq!(
        a.to_vec::<f32>().unwrap(),
        vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    );
    // rows of a 3-d array from values that broadcast, with a cast
    let b = Array::zeros(&[2, 3, 4], DType::I16).unwrap();
    let v = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4]).unwrap();
    b.index_put(&[all(), ints(&[2, 0])], &v).unwrap();
    let got = b.to_vec::<i16>().unwrap();
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                let want = if j == 1 { 0 } else { k as i16 + 1 };
                assert_eq!(got[(i * 3 + j) * 4 + k], want);
            }
        }
    }
    // every item size of the scatter
    let c = Array::zeros(&[2, 2], DType::C128).unwrap();
    c.index_put(&[ints(&[1]), ints(&[0])], Complex64::new(2.0, -1.0))
        .unwrap();
    assert_eq!(
        c.to_vec::<Complex64>().unwrap()[2],
        Complex64::new(2.0, -1.0)
    );
    for dt in [DType::I8, DType::F16, DType::F64, DType::Bool] {
        let x = Array::zeros(&[5], dt).unwrap();
        x.index_put(&[ints(&[4, -5])], 1i32).unwrap();
        let ones = x.astype(DType::I64).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(ones, vec![1, 0, 0, 0, 1], "{dt}");
    }
}

#[test]
fn at_applies_every_repeated_index() {
    require_gpu!();
    let counts = Array::zeros(&[3, 2], DType::I8).unwrap();
    ops::at(&counts, &[ints(&[2, 2, 0, 2]), all()], AtOp::Add, 1i8).unwrap();
    assert_eq!(counts.to_vec::<i8>().unwrap(), vec![1, 1, 0, 0, 3, 3]);
    ops::at(&counts, &[ints(&[2, 2]), at(0)], AtOp::Subtract, 1i8).unwrap();
    assert_eq!(counts.to_vec::<i8>().unwrap(), vec![1, 1, 0, 0, 1, 3]);
    let best = Array::from_slice(&[0.0f32, f32::NAN, 1.0], &[3]).unwrap();
    let v = Array::from_slice(&[5.0f32, 2.0, -1.0, 7.0], &[4]).unwrap();
    ops::at(&best, &[ints(&[0, 1, 2, 0])], AtOp::Maximum, &v).unwrap();
    let got = best.to_vec::<f32>().unwrap();
    assert_eq!(got[0], 7.0);
    assert!(got[1].is_nan());
    assert_eq!(got[2], 1.0);
    let low = Array::from_slice(&[3u16, 3, 3], &[3]).unwrap();
    ops::at(&low, &[ints(&[1, 1])], AtOp::Minimum, 1u16).unwrap();
    assert_eq!(low.to_vec::<u16>().unwrap(), vec![3, 1, 3]);
    let bits = Array::from_slice(&[0b1100i64, 0, 0], &[3]).unwrap();
    ops::at(&bits, &[ints(&[0, 0])], AtOp::BitwiseXor, 0b0110i64).unwrap();
    ops::at(&bits, &[ints(&[1, 2])], AtOp::BitwiseOr, 5i64).unwrap();
    ops::at(&bits, &[ints(&[2])], AtOp::BitwiseAnd, 4i64).unwrap();
    assert_eq!(bits.to_vec::<i64>().unwrap(), vec![0b1100, 5, 4]);
    let z = Array::zeros(&[2], DType::C128).unwrap();
    ops::at(&z, &[ints(&[1, 1, 1])], AtOp::Add, Complex64::new(1.0, 2.0)).unwrap();
    assert_eq!(
        z.to_vec::<Complex64>().unwrap()[1],
        Complex64::new(3.0, 6.0)
    );
    // basic subscripts too (each element once)
    let w = Array::zeros(&[2, 2], DType::F64).unwrap();
    ops::at(&w, &[at(1)], AtOp::Add, 2.5f64).unwrap();
    assert_eq!(w.to_vec::<f64>().unwrap(), vec![0.0, 0.0, 2.5, 2.5]);
}

#[test]
fn errors_say_what_numpy_says() {
    require_gpu!();
    let a = arange(&[2, 3, 4]);
    assert_err(
        a.index(&[ints(&[0, 9]), all()]),
        ErrorKind::Shape,
        "index 9 is out of bounds for axis 0 with size 2",
    );
    assert_err(
        a.index(&[at(0), ints(&[1]), ints(&[-7])]),
        ErrorKind::Shape,
        "index -7 is out of bounds for axis 2 with size 4",
    );
    assert_err(
        a.index(&[at(5), ints(&[0])]),
        ErrorKind::Shape,
        "index 5 is out of bounds for axis 0 with size 2",
    );
    assert_err(
        a.index(&[ints(&[0, 1]), ints(&[0, 1, 2])]),
        ErrorKind::Shape,
        "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)",
    );
    assert_err(
        a.index(&[Index::Ellipsis, Index::Ellipsis]),
        ErrorKind::Shape,
        "an index can only have a single ellipsis",
    );
    assert_err(
        a.index(&[at(0), at(0), at(0), ints(&[0])]),
        ErrorKind::Shape,
        "too many indices for array: array is 3-dimensional, but 4 were indexed",
    );
    let f = Array::from_slice(&[0.5f32], &[1]).unwrap();
    assert_err(
        a.index(&[Index::Array(f)]),
        ErrorKind::Shape,
        "arrays used as indices must be of integer (or boolean) type",
    );
    let m = Array::from_slice(&[true, false, true], &[3]).unwrap();
    assert_err(
        a.index(&[Index::Array(m)]),
        ErrorKind::Shape,
        "boolean index did not match indexed array along axis 0; size of axis is 2",
    );
    let v = Array::zeros(&[3], DType::I64).unwrap();
    assert_err(
        a.index_put(&[ints(&[0, 1]), ints(&[1, 2])], &v),
        ErrorKind::Shape,
        "value array of shape (3,) could not be broadcast to indexing result of shape (2, 4)",
    );
    assert_err(
        a.index_put(&[ints(&[0]), ints(&[3])], 1i64),
        ErrorKind::Shape,
        "index 3 is out of bounds for axis 1 with size 3",
    );
    let empty = Array::zeros(&[0, 2], DType::F32).unwrap();
    assert_err(
        empty.index(&[ints(&[0])]),
        ErrorKind::Shape,
        "index 0 is out of bounds for axis 0 with size 0",
    );
    let fl = Array::zeros(&[2], DType::F32).unwrap();
    assert_err(
        ops::at(&fl, &[ints(&[0])], AtOp::BitwiseAnd, 1.0f32),
        ErrorKind::DType,
        "bitwise_and.at: the ufunc 'bitwise_and' does not support arrays of float32",
    );
    assert_err(
        ops::at(&fl, &[ints(&[2])], AtOp::Add, 1.0f32),
        ErrorKind::Shape,
        "index 2 is out of bounds for axis 0 with size 2",
    );
}

/// Views (transposed, reversed, stepped, broadcast) are gathered from where they lie: the
/// results match the same subscripts of a contiguous copy, in every mode of `take`, and a
/// broadcast view far larger than memory is indexed without being materialised.
#[test]
fn views_are_read_where_they_lie() {
    require_gpu!();
    let a = arange(&[4, 5, 6]);
    let views = [
        a.t(),
        a.slice(&cuprum::s![..;-1, 1..;2, ..;3]).unwrap(),
        a.permute(&[1, 0, 2])
            .unwrap()
            .slice(&cuprum::s![.., ..;-1])
            .unwrap(),
        a.slice(&cuprum::s![.., 2..3, ..])
            .unwrap()
            .broadcast_to(&[4, 7, 6])
            .unwrap(),
    ];
    for v in &views {
        let c = v.copy().unwrap();
        let (n0, n1, n2) = (
            v.shape()[0] as i64,
            v.shape()[1] as i64,
            v.shape()[2] as i64,
        );
        let keys = [
            vec![ints(&[n0 - 1, 0, -1]), ints(&[0, n1 - 1, 1 % n1])],
            vec![all(), ints(&[n1 - 1, 0]), ints(&[-1, 0])],
            vec![ints(&[1 % n0, 0]), all(), ints(&[n2 - 1, 0])],
            vec![ints2(&[0, n0 - 1], &[2, 1]), at(-1), ints(&[0, -1, 1 % n2])],
            vec![all(), ints(&[-1, 0, 0])],
        ];
        for key in &keys {
            let got = v.index(key).unwrap();
            let want = c.index(key).unwrap();
            assert_eq!(got.shape(), want.shape(), "{:?}", v.strides());
            assert_eq!(got.to_vec::<i64>().unwrap(), want.to_vec::<i64>().unwrap());
        }
        let idx = Array::from_slice(&[3i64, -2, 9, 0, -11], &[5]).unwrap();
        for mode in [ops::IndexMode::Wrap, ops::IndexMode::Clip] {
            for axis in [None, Some(0), Some(1), Some(-1)] {
                let got = ops::take_with(v, &idx, axis, mode).unwrap();
                let want = ops::take_with(&c, &idx, axis, mode).unwrap();
                assert_eq!(got.shape(), want.shape());
                assert_eq!(got.to_vec::<i64>().unwrap(), want.to_vec::<i64>().unwrap());
            }
        }
        let ok = Array::from_slice(&[n2 - 1, -1, 0], &[3]).unwrap();
        let got = ops::take(v, &ok, Some(2)).unwrap();
        assert_eq!(
            got.to_vec::<i64>().unwrap(),
            ops::take(&c, &ok, Some(2))
                .unwrap()
                .to_vec::<i64>()
                .unwrap()
        );
        let bad = Array::from_slice(&[0i64, 9], &[2]).unwrap();
        assert_err(
            ops::take(v, &bad, Some(1)),
            ErrorKind::Shape,
            &format!("index 9 is out of bounds for axis 1 with size {n1}"),
        );
    }
    // (2, 2^32) int32 of zero stride along the columns: 32 GiB if it were copied
    let col = Array::from_slice(&[5i32, 6], &[2, 1]).unwrap();
    let huge = col.broadcast_to(&[2, 1 << 32]).unwrap();
    let r = huge
        .index(&[ints(&[1, 0]), ints(&[(1 << 32) - 1, 7])])
        .unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![6, 5]);
    let r = huge.index(&[ints(&[-1]), at(-1)]).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![6]);
    assert_err(
        huge.index(&[ints(&[1]), ints(&[1 << 32])]),
        ErrorKind::Shape,
        "index 4294967296 is out of bounds for axis 1 with size 4294967296",
    );
    let flat = Array::from_slice(&[(2i64 << 32) - 1, 3], &[2]).unwrap();
    assert_eq!(
        ops::take(&huge, &flat, None)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![6, 5]
    );
}

/// One index array and no other indexed axis (`a[:, idx]`, `a[idx] = v`) reaches the
/// gather and the scatter without a fold pass: random values and indices (negative ones
/// among them, a strided and a 2-d index array, int64 and int32) against a host loop along
/// each axis, and the out-of-range errors of both directions.
#[test]
fn one_index_array_along_each_axis() {
    require_gpu!();
    let shape = [7usize, 5, 6];
    let n: usize = shape.iter().product();
    let mut seed = 0x9e37_79b9_u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as i64
    };
    let host: Vec<f32> = (0..n)
        .map(|_| (next() % 2000) as f32 / 7.0 - 100.0)
        .collect();
    let a = Array::from_slice(&host, &shape).unwrap();
    let at3 = |i: usize, j: usize, k: usize| host[(i * shape[1] + j) * shape[2] + k];
    for axis in 0..3 {
        let len = shape[axis] as i64;
        // 12 indices in [-len, len), every other one negative; as int64 (the direct path,
        // contiguous and strided) and int32 (through the fold)
        let raw: Vec<i64> = (0..24).map(|_| next() % (2 * len) - len).collect();
        let full = Array::from_slice(&raw, &[24]).unwrap();
        let strided = full.slice(&cuprum::s![1..;2]).unwrap();
        let picked: Vec<i64> = raw.iter().skip(1).step_by(2).copied().collect();
        let fix = |k: i64| (if k < 0 { k + len } else { k }) as usize;
        for idx in [
            strided.clone(),
            strided.to_contiguous().unwrap(),
            strided.astype(DType::I32).unwrap(),
            strided.to_contiguous().unwrap().reshape(&[3, 4]).unwrap(),
        ] {
            let mut key = vec![all(); axis];
            key.push(Index::Array(idx.clone()));
            let got = a.index(&key).unwrap();
            let mut want_shape: Vec<usize> = shape[..axis].to_vec();
            want_shape.extend_from_slice(idx.shape());
            want_shape.extend_from_slice(&shape[axis + 1..]);
            assert_eq!(got.shape(), want_shape.as_slice(), "axis {axis}");
            let got = got.to_vec::<f32>().unwrap();
            let mut want = Vec::new();
            let outer: usize = shape[..axis].iter().product();
            let inner: usize = shape[axis + 1..].iter().product();
            for o in 0..outer {
                for &k in &picked {
                    for r in 0..inner {
                        // (o, k, r) in the (outer, len, inner) view of the array
                        let flat = (o * shape[axis] + fix(k)) * inner + r;
                        let (i, rest) =
                            (flat / (shape[1] * shape[2]), flat % (shape[1] * shape[2]));
                        want.push(at3(i, rest / shape[2], rest % shape[2]));
                    }
                }
            }
            assert_eq!(got, want, "axis {axis}, index dtype {}", idx.dtype());
        }
        // a[..., idx] = v with distinct indices (each position written once): the rest of the
        // array keeps its values
        let distinct: Vec<i64> = (0..len).rev().step_by(2).map(|k| k - len).collect();
        let b = Array::from_slice(&host, &shape).unwrap();
        let mut key = vec![all(); axis];
        key.push(ints(&distinct));
        let mut vshape = shape.to_vec();
        vshape[axis] = distinct.len();
        let vn: usize = vshape.iter().product();
        let vals: Vec<f32> = (0..vn).map(|_| (next() % 1000) as f32 + 0.5).collect();
        b.index_put(&key, Array::from_slice(&vals, &vshape).unwrap())
            .unwrap();
        let got = b.to_vec::<f32>().unwrap();
        let mut want = host.clone();
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        for o in 0..outer {
            for (j, &k) in distinct.iter().enumerate() {
                for r in 0..inner {
                    want[(o * shape[axis] + fix(k)) * inner + r] =
                        vals[(o * distinct.len() + j) * inner + r];
                }
            }
        }
        assert_eq!(got, want, "put along axis {axis}");
        // out of range, either sign, either direction
        for bad in [len, -len - 1] {
            let mut key = vec![all(); axis];
            key.push(ints(&[0, bad]));
            let msg = format!("index {bad} is out of bounds for axis {axis} with size {len}");
            assert_err(a.index(&key), ErrorKind::Shape, &msg);
            assert_err(b.index_put(&key, 1.0f32), ErrorKind::Shape, &msg);
        }
    }
}
