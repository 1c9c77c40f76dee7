//! The shape routines against host models with NumPy's semantics (in this file): `diff`
//! (orders, axes, bool, `prepend`/`append`), `flip` (views), `roll` (shifts past the length,
//! negative, several axes, flattened), `repeat` (one count, one per element, flattened),
//! `tile`, `tril`/`triu` (stacks, offsets, 1-d), `diagonal`/`trace` (result dtypes) and
//! `outer` (promotion). Random inputs of every dtype in scope, views (reversed, strided,
//! transposed), 0-d, empty and one-element inputs, sizes that are not multiples of a block,
//! and every error with its message. The `model_*` tests check the host models against
//! NumPy's outputs written out, and run without a GPU. The NVRTC compile of these routines'
//! kernels for every dtype is in tests/nvrtc.rs (`CUPRUM_ROUTINE_FILTER=cuprum_tri` /
//! `cuprum_repeat_each`).

mod common;

use common::numpy_model::V::{self, B, C, F, I};
use common::numpy_model::{close_v, dev, eps, host, round_float, small_vals, view_of, wrap};
use common::{Rng, assert_err};
use cuprum::ops::{self, Repeats};
use cuprum::{Array, DType, DTypeKind, ErrorKind};

// ---------------------------------------------------------------- host models

/// C-order strides (in elements) of `shape`.
fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The position of C-order element `i` of `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut pos = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        pos[d] = i % shape[d];
        i /= shape[d];
    }
    pos
}

fn at(vals: &[V], shape: &[usize], pos: &[usize]) -> V {
    let s = c_strides(shape);
    vals[pos.iter().zip(&s).map(|(p, s)| p * s).sum::<usize>()]
}

/// The array of `shape` whose element at each position is `f(position)`.
fn build(shape: &[usize], f: impl Fn(&[usize]) -> V) -> Vec<V> {
    (0..shape.iter().product::<usize>())
        .map(|i| f(&unravel(i, shape)))
        .collect()
}

fn m_flip(vals: &[V], shape: &[usize], axes: &[usize]) -> Vec<V> {
    build(shape, |p| {
        let q: Vec<usize> = (0..shape.len())
            .map(|d| {
                if axes.contains(&d) {
                    shape[d] - 1 - p[d]
                } else {
                    p[d]
                }
            })
            .collect();
        at(vals, shape, &q)
    })
}

/// `vals` rolled by `shift[d]` along every axis `d`.
fn m_roll(vals: &[V], shape: &[usize], shift: &[i128]) -> Vec<V> {
    build(shape, |p| {
        let q: Vec<usize> = (0..shape.len())
            .map(|d| (p[d] as i128 - shift[d]).rem_euclid(shape[d] as i128) as usize)
            .collect();
        at(vals, shape, &q)
    })
}

/// NumPy's `repeat` along `ax` with one count per element.
fn m_repeat(vals: &[V], shape: &[usize], counts: &[usize], ax: usize) -> (Vec<usize>, Vec<V>) {
    let src: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(k, &c)| std::iter::repeat_n(k, c))
        .collect();
    let mut out = shape.to_vec();
    out[ax] = src.len();
    let v = build(&out, |p| {
        let mut q = p.to_vec();
        q[ax] = src[p[ax]];
        at(vals, shape, &q)
    });
    (out, v)
}

fn m_tile(vals: &[V], shape: &[usize], reps: &[usize]) -> (Vec<usize>, Vec<V>) {
    let nd = shape.len().max(reps.len());
    let mut s = vec![1; nd - shape.len()];
    s.extend_from_slice(shape);
    let mut r = vec![1; nd - reps.len()];
    r.extend_from_slice(reps);
    let out: Vec<usize> = s.iter().zip(&r).map(|(a, b)| a * b).collect();
    let v = build(&out, |p| {
        let q: Vec<usize> = p.iter().zip(&s).map(|(p, s)| p % s).collect();
        at(vals, &s, &q)
    });
    (out, v)
}

fn zero_of(d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(false),
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => I(0),
        DTypeKind::Float => F(0.0),
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Complex => C(0.0, 0.0),
    }
}

/// `tril` (`lower`) or `triu` of a stack of matrices.
fn m_tri(vals: &[V], shape: &[usize], k: i64, lower: bool, d: DType) -> Vec<V> {
    let nd = shape.len();
    build(shape, |p| {
        let diff = p[nd - 1] as i64 - p[nd - 2] as i64;
        if (lower && diff <= k) || (!lower && diff >= k) {
            at(vals, shape, p)
        } else {
            zero_of(d)
        }
    })
}

/// NumPy's `diagonal`: the other axes first, the diagonal last.
fn m_diagonal(
    vals: &[V],
    shape: &[usize],
    offset: i64,
    a1: usize,
    a2: usize,
) -> (Vec<usize>, Vec<V>) {
    let (r0, c0) = (0.max(-offset), 0.max(offset));
    let len = (shape[a1] as i64 - r0).min(shape[a2] as i64 - c0).max(0) as usize;
    let mut out: Vec<usize> = (0..shape.len())
        .filter(|&d| d != a1 && d != a2)
        .map(|d| shape[d])
        .collect();
    out.push(len);
    let v = build(&out, |p| {
        let mut q = vec![0; shape.len()];
        let mut k = 0;
        for (d, qd) in q.iter_mut().enumerate() {
            if d != a1 && d != a2 {
                *qd = p[k];
                k += 1;
            }
        }
        let t = p[out.len() - 1] as i64;
        q[a1] = (r0 + t) as usize;
        q[a2] = (c0 + t) as usize;
        at(vals, shape, &q)
    });
    (out, v)
}

/// `x - y` in dtype `d` (`!=` for bool), with the tolerance of one rounding.
fn sub(x: V, y: V, d: DType) -> (V, f64) {
    match (x, y) {
        (B(a), B(b)) => (B(a != b), 0.0),
        (I(a), I(b)) => (I(wrap(a - b, d)), 0.0),
        (F(a), F(b)) => {
            let r = a - b;
            (F(round_float(r, d)), 2.0 * eps(d) * r.abs())
        }
        (C(a, b), C(c, e)) => {
            let (re, im) = (a - c, b - e);
            (
                C(round_float(re, d), round_float(im, d)),
                2.0 * eps(d) * re.abs().max(im.abs()),
            )
        }
        _ => panic!("mixed kinds {x:?} {y:?}"),
    }
}

/// NumPy's `diff` of order `n` along `ax`, values and tolerances.
fn m_diff(
    vals: &[V],
    shape: &[usize],
    n: usize,
    ax: usize,
    d: DType,
) -> (Vec<usize>, Vec<(V, f64)>) {
    let mut cur: Vec<(V, f64)> = vals.iter().map(|&v| (v, 0.0)).collect();
    let mut sh = shape.to_vec();
    for _ in 0..n {
        if sh[ax] == 0 {
            break;
        }
        let mut out = sh.clone();
        out[ax] -= 1;
        let prev = (cur.clone(), sh.clone());
        cur = (0..out.iter().product::<usize>())
            .map(|i| {
                let p = unravel(i, &out);
                let mut q = p.clone();
                q[ax] += 1;
                let s = c_strides(&prev.1);
                let lin = |p: &[usize]| p.iter().zip(&s).map(|(a, b)| a * b).sum::<usize>();
                let (hi, lo) = (prev.0[lin(&q)], prev.0[lin(&p)]);
                let (v, t) = sub(hi.0, lo.0, d);
                (v, t + hi.1 + lo.1)
            })
            .collect();
        sh = out;
    }
    (sh, cur)
}

fn assert_same(got: &[V], want: &[V], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            close_v(*g, *w, 0.0),
            "{what}: element {k}: got {g:?}, want {w:?}"
        );
    }
}

fn assert_close(got: &[V], want: &[(V, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, (w, tol))) in got.iter().zip(want).enumerate() {
        assert!(
            close_v(*g, *w, *tol),
            "{what}: element {k}: got {g:?}, want {w:?} (tolerance {tol:e})"
        );
    }
}

fn all_dtypes() -> Vec<DType> {
    common::dtypes(DType::ALL)
}

// ---------------------------------------------------------------- models (no GPU)

#[test]
fn model_routines_follow_numpy() {
    let v: Vec<V> = (0..6).map(I).collect();
    // np.flip(np.arange(6).reshape(2, 3), 1)
    assert_eq!(m_flip(&v, &[2, 3], &[1]), [2, 1, 0, 5, 4, 3].map(I));
    // np.roll(np.arange(6).reshape(2, 3), (1, -1), (0, 1))
    assert_eq!(m_roll(&v, &[2, 3], &[1, -1]), [4, 5, 3, 1, 2, 0].map(I));
    // np.repeat(np.arange(6).reshape(2, 3), [2, 0, 1], 1)
    let (s, r) = m_repeat(&v, &[2, 3], &[2, 0, 1], 1);
    assert_eq!((s, r), (vec![2, 3], [0, 0, 2, 3, 3, 5].map(I).to_vec()));
    // np.tile(np.arange(2), (2, 2))
    let (s, t) = m_tile(&v[..2], &[2], &[2, 2]);
    assert_eq!(
        (s, t),
        (vec![2, 4], [0, 1, 0, 1, 0, 1, 0, 1].map(I).to_vec())
    );
    // np.tril(np.arange(6).reshape(2, 3), 1), np.triu(.., -1)
    assert_eq!(
        m_tri(&v, &[2, 3], 1, true, DType::I64),
        [0, 1, 0, 3, 4, 5].map(I)
    );
    assert_eq!(
        m_tri(&v, &[2, 3], 1, false, DType::I64),
        [0, 1, 2, 0, 0, 5].map(I)
    );
    // np.arange(12).reshape(2, 2, 3).diagonal(1, 2, 1) -> [[3], [9]]: rows along axis 2,
    // columns along axis 1, a[.., 1 + t, t].
    let w: Vec<V> = (0..12).map(I).collect();
    let (s, dg) = m_diagonal(&w, &[2, 2, 3], 1, 2, 1);
    assert_eq!((s, dg), (vec![2, 1], vec![I(3), I(9)]));
    let (s, dg) = m_diagonal(&w, &[2, 2, 3], 0, 1, 2);
    assert_eq!((s, dg), (vec![2, 2], [0, 4, 6, 10].map(I).to_vec()));
    // np.diff(np.array([1, 2, 4, 7, 0], np.uint8), 2) -> [1, 1, 246]
    let u = [1, 2, 4, 7, 0].map(I);
    let (s, d) = m_diff(&u, &[5], 2, 0, DType::U8);
    assert_eq!(s, vec![3]);
    assert_eq!(
        d.iter().map(|p| p.0).collect::<Vec<_>>(),
        [1, 1, 246].map(I)
    );
    let (s, d) = m_diff(&[B(true), B(true), B(false)], &[3], 1, 0, DType::Bool);
    assert_eq!((s, d[1].0), (vec![2], B(true)));
}

// ---------------------------------------------------------------- flip

#[test]
fn flip_is_a_view_along_any_axes() {
    require_gpu!();
    let mut rng = Rng::new(1);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [3, 4, 5];
        let vals = small_vals(&mut rng, d, 60);
        let a = view_of(&vals, &shape, d, k);
        for axes in [vec![], vec![0], vec![2], vec![0, 2], vec![0, 1, 2]] {
            let signed: Vec<isize> = axes
                .iter()
                .map(|&x| x as isize - 3 * (k % 2) as isize)
                .collect();
            let f = ops::flip(&a, Some(&signed)).unwrap();
            assert!(f.shares_memory(&a));
            assert_same(
                &host(&f),
                &m_flip(&vals, &shape, &axes),
                &format!("{d} {axes:?}"),
            );
        }
        let all = ops::flip(&a, None).unwrap();
        assert_same(
            &host(&all),
            &m_flip(&vals, &shape, &[0, 1, 2]),
            &format!("{d} all"),
        );
    }
    // 0-d, empty, fliplr / flipud
    let s = Array::scalar(7i32).unwrap();
    assert_eq!(
        ops::flip(&s, None).unwrap().to_vec::<i32>().unwrap(),
        vec![7]
    );
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    assert_eq!(ops::flip(&e, None).unwrap().shape(), &[0, 3]);
    let m = Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!(
        ops::fliplr(&m).unwrap().to_vec::<i32>().unwrap(),
        vec![3, 2, 1, 6, 5, 4]
    );
    assert_eq!(
        ops::flipud(&m).unwrap().to_vec::<i32>().unwrap(),
        vec![4, 5, 6, 1, 2, 3]
    );
}

// ---------------------------------------------------------------- roll

#[test]
fn roll_every_dtype_shift_and_axis() {
    require_gpu!();
    let mut rng = Rng::new(2);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [5, 7];
        let vals = small_vals(&mut rng, d, 35);
        let a = view_of(&vals, &shape, d, k);
        for shift in [0isize, 1, -3, 9, -36] {
            for axis in [0isize, 1, -1] {
                let mut sh = [0i128; 2];
                sh[axis.rem_euclid(2) as usize] = shift as i128;
                let r = ops::roll(&a, shift, Some(axis)).unwrap();
                assert!(!r.shares_memory(&a));
                assert_same(
                    &host(&r),
                    &m_roll(&vals, &shape, &sh),
                    &format!("{d} {shift} {axis}"),
                );
            }
            // flattened
            let r = ops::roll(&a, shift, None).unwrap();
            assert_eq!(r.shape(), &shape);
            assert_same(
                &host(&r),
                &m_roll(&vals, &[35], &[shift as i128]),
                &format!("{d} {shift} flat"),
            );
        }
        // several axes, a repeated one adds up
        let r = ops::roll_axes(&a, &[2, -1], &[0, 1]).unwrap();
        assert_same(
            &host(&r),
            &m_roll(&vals, &shape, &[2, -1]),
            &format!("{d} two axes"),
        );
        let r = ops::roll_axes(&a, &[3], &[1, -1]).unwrap();
        assert_same(
            &host(&r),
            &m_roll(&vals, &shape, &[0, 6]),
            &format!("{d} repeated"),
        );
        let r = ops::roll_axes(&a, &[1, 2], &[0]).unwrap();
        assert_same(
            &host(&r),
            &m_roll(&vals, &shape, &[3, 0]),
            &format!("{d} shifts"),
        );
    }
    // odd sizes: long rows not a multiple of a block, 3-d, 0-d, empty, one element
    let vals = small_vals(&mut rng, DType::F32, 3 * 1037);
    let a = view_of(&vals, &[3, 1037], DType::F32, 2);
    let r = ops::roll_axes(&a, &[-1, 500], &[0, 1]).unwrap();
    assert_same(
        &host(&r),
        &m_roll(&vals, &[3, 1037], &[-1, 500]),
        "long rows",
    );
    let vals = small_vals(&mut rng, DType::I8, 2 * 3 * 4);
    let a = view_of(&vals, &[2, 3, 4], DType::I8, 3);
    let r = ops::roll_axes(&a, &[1, 1, 1], &[0, 1, 2]).unwrap();
    assert_same(&host(&r), &m_roll(&vals, &[2, 3, 4], &[1, 1, 1]), "3-d");
    let s = Array::scalar(5u8).unwrap();
    assert_eq!(
        ops::roll(&s, 3, None).unwrap().to_vec::<u8>().unwrap(),
        vec![5]
    );
    assert_eq!(ops::roll(&s, 3, None).unwrap().shape(), &[] as &[usize]);
    let e = Array::zeros(&[0, 4], DType::F64).unwrap();
    assert_eq!(ops::roll(&e, 3, Some(0)).unwrap().shape(), &[0, 4]);
    assert_eq!(ops::roll(&e, 3, None).unwrap().shape(), &[0, 4]);
    let one = Array::from_slice(&[2.5f32], &[1]).unwrap();
    assert_eq!(
        ops::roll(&one, -7, Some(0))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![2.5]
    );
}

// ---------------------------------------------------------------- repeat

#[test]
fn repeat_one_count_and_one_per_element() {
    require_gpu!();
    let mut rng = Rng::new(3);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [3, 5];
        let vals = small_vals(&mut rng, d, 15);
        let a = view_of(&vals, &shape, d, k);
        // one count, every axis and flattened
        for r in [0usize, 1, 3] {
            for ax in [0usize, 1] {
                let got = ops::repeat(&a, r, Some(ax as isize - 2 * (k % 2) as isize)).unwrap();
                let (ws, wv) = m_repeat(&vals, &shape, &vec![r; shape[ax]], ax);
                assert_eq!(got.shape(), ws.as_slice());
                assert_same(&host(&got), &wv, &format!("{d} x{r} axis {ax}"));
            }
            let got = a.repeat(r, None).unwrap();
            let (ws, wv) = m_repeat(&vals, &[15], &[r; 15], 0);
            assert_eq!(got.shape(), ws.as_slice());
            assert_same(&host(&got), &wv, &format!("{d} x{r} flat"));
        }
        // one count per element (zeros included); a list of one count; equal counts
        let counts: Vec<usize> = (0..5).map(|_| rng.usize(0, 4)).collect();
        let got = ops::repeat(&a, counts.as_slice(), Some(1)).unwrap();
        let (ws, wv) = m_repeat(&vals, &shape, &counts, 1);
        assert_eq!(got.shape(), ws.as_slice());
        assert_same(&host(&got), &wv, &format!("{d} {counts:?}"));
        let got = ops::repeat(&a, [2], Some(0)).unwrap();
        assert_same(
            &host(&got),
            &m_repeat(&vals, &shape, &[2; 3], 0).1,
            &format!("{d} [2]"),
        );
        let got = ops::repeat(&a, [2i64, 2, 2], Some(0)).unwrap();
        assert_same(
            &host(&got),
            &m_repeat(&vals, &shape, &[2; 3], 0).1,
            &format!("{d} [2, 2, 2]"),
        );
    }
    // per-element counts over a middle axis of a transposed 3-d view, long axis
    let vals = small_vals(&mut rng, DType::F32, 4 * 300 * 2);
    let a = view_of(&vals, &[2, 300, 4], DType::F32, 3);
    let counts: Vec<usize> = (0..300).map(|_| rng.usize(0, 3)).collect();
    let got = ops::repeat(&a, counts.clone(), Some(1)).unwrap();
    let (ws, wv) = m_repeat(&vals, &[2, 300, 4], &counts, 1);
    assert_eq!(got.shape(), ws.as_slice());
    assert_same(&host(&got), &wv, "3-d per element");
    let got = ops::repeat(&a, 3, Some(-1)).unwrap();
    assert_same(
        &host(&got),
        &m_repeat(&vals, &[2, 300, 4], &[3; 4], 2).1,
        "3-d last axis",
    );
    // one count over a C-contiguous array: every axis and
    // flattened, sizes not a multiple of a vector
    let vals = small_vals(&mut rng, DType::F32, 3 * 7 * 5);
    let a = dev(&vals, &[3, 7, 5], DType::F32);
    for ax in 0..3usize {
        for r in [1usize, 3, 4] {
            let got = ops::repeat(&a, r, Some(ax as isize)).unwrap();
            let (ws, wv) = m_repeat(&vals, &[3, 7, 5], &vec![r; [3, 7, 5][ax]], ax);
            assert_eq!(got.shape(), ws.as_slice());
            assert_same(&host(&got), &wv, &format!("contiguous x{r} axis {ax}"));
        }
    }
    let vals = small_vals(&mut rng, DType::F64, 1001);
    let a = dev(&vals, &[1001], DType::F64);
    let got = ops::repeat(&a, 4, None).unwrap();
    assert_same(
        &host(&got),
        &m_repeat(&vals, &[1001], &[4; 1001], 0).1,
        "1001 x4",
    );
    // 0-d, empty, counts of an empty axis
    let s = Array::scalar(4i16).unwrap();
    let r = ops::repeat(&s, 3, None).unwrap();
    assert_eq!(
        (r.shape(), r.to_vec::<i16>().unwrap()),
        (&[3usize][..], vec![4, 4, 4])
    );
    let e = Array::zeros(&[2, 0], DType::F32).unwrap();
    assert_eq!(ops::repeat(&e, 5, Some(0)).unwrap().shape(), &[10, 0]);
    assert_eq!(
        ops::repeat(&e, Repeats::Each(vec![]), Some(1))
            .unwrap()
            .shape(),
        &[2, 0]
    );
    assert_eq!(ops::repeat(&e, [4], Some(1)).unwrap().shape(), &[2, 0]);
}

// ---------------------------------------------------------------- tile

#[test]
fn tile_with_fewer_and_more_reps_than_axes() {
    require_gpu!();
    let mut rng = Rng::new(4);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [2, 3];
        let vals = small_vals(&mut rng, d, 6);
        let a = view_of(&vals, &shape, d, k);
        for reps in [
            vec![2],
            vec![1, 1],
            vec![2, 3],
            vec![3, 1, 2],
            vec![0, 2],
            vec![],
        ] {
            let got = ops::tile(&a, &reps).unwrap();
            let (ws, wv) = m_tile(&vals, &shape, &reps);
            assert_eq!(got.shape(), ws.as_slice(), "{d} {reps:?}");
            assert!(!got.shares_memory(&a));
            assert_same(&host(&got), &wv, &format!("{d} {reps:?}"));
        }
    }
    let vals = small_vals(&mut rng, DType::F32, 257);
    let a = view_of(&vals, &[257], DType::F32, 1);
    let got = ops::tile(&a, &[3, 1, 2]).unwrap();
    let (ws, wv) = m_tile(&vals, &[257], &[3, 1, 2]);
    assert_eq!(got.shape(), ws.as_slice());
    assert_same(&host(&got), &wv, "long row");
    // C-contiguous inputs of 2^16 elements and more, 2-d, 3-d and 1-d
    for (d, shape, reps) in [
        (DType::F32, vec![300usize, 300], vec![2usize, 3]),
        (DType::F64, vec![300, 300], vec![3, 1, 2]),
        (DType::U8, vec![40, 50, 40], vec![2, 1, 3]),
        (DType::C128, vec![70_001], vec![2]),
        (DType::I16, vec![256, 257], vec![1, 2]),
    ] {
        let n: usize = shape.iter().product();
        let vals = small_vals(&mut rng, d, n);
        let a = dev(&vals, &shape, d);
        let got = ops::tile(&a, &reps).unwrap();
        let (ws, wv) = m_tile(&vals, &shape, &reps);
        assert_eq!(got.shape(), ws.as_slice(), "{d} {shape:?} {reps:?}");
        assert_same(
            &host(&got),
            &wv,
            &format!("contiguous: {d} {shape:?} {reps:?}"),
        );
    }
    let s = Array::scalar(1.5f64).unwrap();
    let t = ops::tile(&s, &[2, 2]).unwrap();
    assert_eq!(
        (t.shape(), t.to_vec::<f64>().unwrap()),
        (&[2usize, 2][..], vec![1.5; 4])
    );
    assert_eq!(ops::tile(&s, &[]).unwrap().shape(), &[] as &[usize]);
    // more axes than one view can hold (60 + 5 > 64): tiled one axis at a time
    let mut big = vec![1usize; 60];
    big[59] = 2;
    let vals = [I(1), I(2)];
    let a = dev(&vals, &big, DType::U8);
    let mut reps = vec![1usize; 60];
    for r in [0, 7, 30, 58, 59] {
        reps[r] = 2;
    }
    let got = ops::tile(&a, &reps).unwrap();
    let (ws, wv) = m_tile(&vals, &big, &reps);
    assert_eq!(got.shape(), ws.as_slice());
    assert_same(&host(&got), &wv, "60-d");
}

/// Checks `tile` and broadcast copies large enough for the replicated copy (a thread per
/// source slot writing every copy of it) against the source read on the host, for `T` (one
/// item size): rows whose length is and is not a multiple of the vector (so copies start
/// off the vector), a 3-d tile, a strided source, and a broadcast view copied.
fn replicated_copies_of<T: cuprum::Element + PartialEq + std::fmt::Debug>(
    d: DType,
    make: impl Fn(u64) -> T,
) {
    let vec = (16 / d.itemsize()).max(1);
    // enough source slots (2^16) for the replicated copy, and one row fewer than that
    for (rows, cols) in [(64, 1024 * vec), (64, 1024 * vec + 3), (63, 1024 * vec)] {
        let src: Vec<T> = (0..(rows * cols) as u64).map(&make).collect();
        let a = Array::from_slice(&src, &[rows, cols]).unwrap();
        assert_eq!(a.dtype(), d);
        for reps in [[3usize, 3], [1, 2], [5, 1]] {
            let got = ops::tile(&a, &reps).unwrap();
            assert_eq!(got.shape(), &[rows * reps[0], cols * reps[1]]);
            let v = got.to_vec::<T>().unwrap();
            let w = cols * reps[1];
            for (i, x) in v.iter().enumerate() {
                let (r, c) = (i / w % rows, i % w % cols);
                assert_eq!(x, &src[r * cols + c], "{d} {rows}x{cols} {reps:?} at {i}");
            }
        }
        // every other row of the source (a strided view), broadcast to 4 copies and copied
        let half = a
            .slice(&[cuprum::SliceArg::from(..).step(2), (..).into()])
            .unwrap();
        let b = half
            .broadcast_to(&[4, rows.div_ceil(2), cols])
            .unwrap()
            .copy()
            .unwrap();
        let v = b.to_vec::<T>().unwrap();
        let per = rows.div_ceil(2) * cols;
        for (i, x) in v.iter().enumerate() {
            let (r, c) = (i % per / cols * 2, i % cols);
            assert_eq!(x, &src[r * cols + c], "{d} broadcast copy at {i}");
        }
    }
    // a 3-d tile: copies along the first and last axes
    let (p, q, r) = (2, 32, 1024 * vec);
    let src: Vec<T> = (0..(p * q * r) as u64).map(&make).collect();
    let a = Array::from_slice(&src, &[p, q, r]).unwrap();
    let got = ops::tile(&a, &[2, 1, 3]).unwrap();
    assert_eq!(got.shape(), &[2 * p, q, 3 * r]);
    for (i, x) in got.to_vec::<T>().unwrap().iter().enumerate() {
        let (k, rest) = (i / (q * 3 * r) % p, i % (q * 3 * r));
        let (j, c) = (rest / (3 * r), rest % (3 * r) % r);
        assert_eq!(x, &src[(k * q + j) * r + c], "{d} 3-d tile at {i}");
    }
}

#[test]
fn tile_and_broadcast_copies_write_every_copy_of_each_source_slot() {
    require_gpu!();
    replicated_copies_of(DType::U8, |i| (i * 7 + 1) as u8);
    replicated_copies_of(DType::U16, |i| (i * 13 + 5) as u16);
    replicated_copies_of(DType::F32, |i| i as f32 * 0.5 - 3.0);
    replicated_copies_of(DType::I64, |i| (i as i64) * -3 + 11);
    replicated_copies_of(DType::C128, |i| {
        num_complex::Complex64::new(i as f64, -(i as f64) / 2.0)
    });
}

// ---------------------------------------------------------------- tril / triu

#[test]
fn tril_and_triu_of_stacks_offsets_and_views() {
    require_gpu!();
    let mut rng = Rng::new(5);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [2, 4, 5];
        let vals = small_vals(&mut rng, d, 40);
        let a = view_of(&vals, &shape, d, k);
        for off in [-5i64, -1, 0, 2, 6] {
            for lower in [true, false] {
                let got = if lower {
                    ops::tril(&a, off as isize)
                } else {
                    ops::triu(&a, off as isize)
                }
                .unwrap();
                assert_eq!((got.shape(), got.dtype()), (&shape[..], d));
                assert_same(
                    &host(&got),
                    &m_tri(&vals, &shape, off, lower, d),
                    &format!("{d} {off} {lower}"),
                );
            }
        }
    }
    // a 1-d input is every row of a square matrix; tall and wide matrices; odd sizes
    let vals = small_vals(&mut rng, DType::F64, 5);
    let a = dev(&vals, &[5], DType::F64);
    let got = ops::tril(&a, 0).unwrap();
    let square: Vec<V> = (0..25).map(|i| vals[i % 5]).collect();
    assert_eq!(got.shape(), &[5, 5]);
    assert_same(
        &host(&got),
        &m_tri(&square, &[5, 5], 0, true, DType::F64),
        "1-d",
    );
    for shape in [[300usize, 7], [7, 300], [33, 33]] {
        let vals = small_vals(&mut rng, DType::F32, shape[0] * shape[1]);
        let a = view_of(&vals, &shape, DType::F32, 2);
        let got = ops::triu(&a, 3).unwrap();
        assert_same(
            &host(&got),
            &m_tri(&vals, &shape, 3, false, DType::F32),
            &format!("{shape:?}"),
        );
    }
    let e = Array::zeros(&[3, 0, 4], DType::I32).unwrap();
    assert_eq!(ops::tril(&e, 0).unwrap().shape(), &[3, 0, 4]);
    let one = Array::from_slice(&[9i32], &[1, 1]).unwrap();
    assert_eq!(
        ops::triu(&one, 1).unwrap().to_vec::<i32>().unwrap(),
        vec![0]
    );
}

// ---------------------------------------------------------------- diagonal / trace

/// NumPy's `sum` dtype (what `trace` returns).
fn sum_dtype(d: DType) -> DType {
    match d.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt => DType::I64,
        DTypeKind::UnsignedInt => DType::U64,
        _ => d,
    }
}

#[test]
fn diagonal_and_trace_of_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(6);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [3, 4, 5];
        let vals = small_vals(&mut rng, d, 60);
        let a = view_of(&vals, &shape, d, k);
        for (off, a1, a2) in [
            (0i64, 0usize, 1usize),
            (1, 1, 2),
            (-2, 2, 1),
            (3, 0, 2),
            (-4, 1, 2),
            (9, 0, 1),
        ] {
            let dg = ops::diagonal(&a, off as isize, a1 as isize, a2 as isize - 3).unwrap();
            assert!(dg.shares_memory(&a));
            let (ws, wv) = m_diagonal(&vals, &shape, off, a1, a2);
            assert_eq!(dg.shape(), ws.as_slice(), "{d} {off} {a1} {a2}");
            assert_same(&host(&dg), &wv, &format!("{d} diagonal {off} {a1} {a2}"));
            let t = a.trace(off as isize, a1 as isize, a2 as isize).unwrap();
            assert_eq!(t.dtype(), sum_dtype(d), "{d}");
            assert_eq!(t.shape(), &ws[..1]);
            let len = ws[1];
            let want: Vec<(V, f64)> = (0..ws[0])
                .map(|r| {
                    let row = &wv[r * len..(r + 1) * len];
                    match sum_dtype(d).kind() {
                        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
                            let s: i128 = row
                                .iter()
                                .map(|v| match v {
                                    B(b) => i128::from(*b),
                                    I(i) => *i,
                                    _ => unreachable!(),
                                })
                                .sum();
                            (I(wrap(s, sum_dtype(d))), 0.0)
                        }
                        DTypeKind::Float => {
                            let s: f64 = row
                                .iter()
                                .map(|v| if let F(x) = v { *x } else { 0.0 })
                                .sum();
                            (F(s), 8.0 * eps(d) * (1.0 + row.len() as f64) * 10.0)
                        }
                        _ => {
                            let (re, im) = row.iter().fold((0.0, 0.0), |acc, v| match v {
                                C(a, b) => (acc.0 + a, acc.1 + b),
                                _ => acc,
                            });
                            (C(re, im), 8.0 * eps(d) * (1.0 + row.len() as f64) * 10.0)
                        }
                    }
                })
                .collect();
            assert_close(&host(&t), &want, &format!("{d} trace {off} {a1} {a2}"));
        }
    }
    // a matrix gives a 0-d trace; an empty diagonal sums to 0
    let m = Array::from_slice(&[1i8, 2, 3, 4], &[2, 2]).unwrap();
    let t = ops::trace(&m, 0, 0, 1).unwrap();
    assert_eq!(
        (t.shape(), t.to_vec::<i64>().unwrap()),
        (&[] as &[usize], vec![5])
    );
    assert_eq!(
        ops::trace(&m, -5, 0, 1).unwrap().to_vec::<i64>().unwrap(),
        vec![0]
    );
    let big = Array::ones(&[1000, 1000], DType::F32).unwrap();
    assert_eq!(
        ops::trace(&big, 0, 0, 1).unwrap().to_vec::<f32>().unwrap(),
        vec![1000.0]
    );
}

// ---------------------------------------------------------------- outer

#[test]
fn outer_flattens_and_promotes() {
    require_gpu!();
    let mut rng = Rng::new(7);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let (va, vb) = (small_vals(&mut rng, d, 6), small_vals(&mut rng, d, 5));
        let a = view_of(&va, &[2, 3], d, k);
        let b = view_of(&vb, &[5], d, k + 1);
        let o = ops::outer(&a, &b).unwrap();
        assert_eq!((o.shape(), o.dtype()), (&[6usize, 5][..], d));
        let want = ops::multiply(
            a.reshape_copy(&[6, 1]).unwrap(),
            b.reshape(&[1, 5]).unwrap(),
        )
        .unwrap();
        assert_same(&host(&o), &host(&want), &format!("{d}"));
        // spot check against the host for an exact dtype
        if matches!(d.kind(), DTypeKind::SignedInt) {
            let (x, y) = (va[4], vb[3]);
            if let (I(x), I(y)) = (x, y) {
                assert_eq!(host(&o)[4 * 5 + 3], I(wrap(x * y, d)));
            }
        }
    }
    let a = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap();
    let b = Array::from_slice(&[-1i8, 2], &[2]).unwrap();
    let o = ops::outer(&a, &b).unwrap();
    assert_eq!(
        (o.dtype(), o.to_vec::<i16>().unwrap()),
        (DType::I16, vec![-1, 2, -2, 4, -3, 6])
    );
    let t = Array::from_slice(&[true, false], &[2]).unwrap();
    let o = ops::outer(&t, &t).unwrap();
    assert_eq!(
        (o.dtype(), o.to_vec::<bool>().unwrap()),
        (DType::Bool, vec![true, false, false, false])
    );
    let e = Array::zeros(&[0], DType::F32).unwrap();
    assert_eq!(ops::outer(&e, &a).unwrap().shape(), &[0, 3]);
    let s = Array::scalar(2.0f32).unwrap();
    assert_eq!(
        ops::outer(&s, &s).unwrap().to_vec::<f32>().unwrap(),
        vec![4.0]
    );
}

// ---------------------------------------------------------------- diff

#[test]
fn diff_orders_axes_and_dtypes() {
    require_gpu!();
    let mut rng = Rng::new(8);
    for (k, d) in all_dtypes().into_iter().enumerate() {
        let shape = [4, 6];
        let vals = small_vals(&mut rng, d, 24);
        let a = view_of(&vals, &shape, d, k);
        for n in [1usize, 2, 5, 7] {
            for ax in [0usize, 1] {
                let got = ops::diff(&a, n, ax as isize - 2 * (k % 2) as isize).unwrap();
                let (ws, wv) = m_diff(&vals, &shape, n, ax, d);
                assert_eq!(
                    (got.shape(), got.dtype()),
                    (ws.as_slice(), d),
                    "{d} {n} {ax}"
                );
                assert_close(&host(&got), &wv, &format!("{d} n {n} axis {ax}"));
            }
        }
        // n = 0 is `a` itself
        assert!(ops::diff(&a, 0, 0).unwrap().shares_memory(&a));
    }
    // long rows (not a multiple of a block), prepend / append with promotion
    let vals = small_vals(&mut rng, DType::F32, 2 * 1001);
    let a = view_of(&vals, &[2, 1001], DType::F32, 1);
    let (ws, wv) = m_diff(&vals, &[2, 1001], 1, 1, DType::F32);
    let got = ops::diff(&a, 1, -1).unwrap();
    assert_eq!(got.shape(), ws.as_slice());
    assert_close(&host(&got), &wv, "long rows");
    let a = Array::from_slice(&[1i32, 4, 9], &[3]).unwrap();
    let z = Array::scalar(0i32).unwrap();
    let tail = Array::from_slice(&[10.5f64], &[1]).unwrap();
    let got = ops::diff_with(&a, 1, 0, Some(&z), Some(&tail)).unwrap();
    assert_eq!(
        (got.dtype(), got.to_vec::<f64>().unwrap()),
        (DType::F64, vec![1.0, 3.0, 5.0, 1.5])
    );
    let m = Array::from_slice(&[1i64, 2, 3, 4], &[2, 2]).unwrap();
    let got = ops::diff_with(&m, 1, 1, Some(&Array::scalar(1i64).unwrap()), None).unwrap();
    assert_eq!(
        (got.shape(), got.to_vec::<i64>().unwrap()),
        (&[2usize, 2][..], vec![0, 1, 2, 1])
    );
    // bool is `!=`; unsigned wraps; too high an order leaves an empty axis
    let b = Array::from_slice(&[true, true, false, true], &[4]).unwrap();
    let got = ops::diff(&b, 1, 0).unwrap();
    assert_eq!(
        (got.dtype(), got.to_vec::<bool>().unwrap()),
        (DType::Bool, vec![false, true, true])
    );
    let u = Array::from_slice(&[5u8, 3], &[2]).unwrap();
    assert_eq!(
        ops::diff(&u, 1, 0).unwrap().to_vec::<u8>().unwrap(),
        vec![254]
    );
    assert_eq!(ops::diff(&u, 3, 0).unwrap().shape(), &[0]);
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    assert_eq!(ops::diff(&e, 1, 0).unwrap().shape(), &[0, 3]);
    assert_eq!(ops::diff(&e, 1, 1).unwrap().shape(), &[0, 2]);
    let s = Array::scalar(1.0f32).unwrap();
    assert_eq!(ops::diff(&s, 0, 0).unwrap().shape(), &[] as &[usize]);
}

// ---------------------------------------------------------------- errors

#[test]
fn shape_routine_errors() {
    require_gpu!();
    let m = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let s = Array::scalar(1i32).unwrap();
    let v = Array::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    // flip
    assert_err(
        ops::flip(&m, Some(&[2])),
        ErrorKind::Shape,
        "axis 2 is out of bounds for array of dimension 2",
    );
    assert_err(
        ops::flip(&m, Some(&[1, -1])),
        ErrorKind::InvalidArgument,
        "repeated axis",
    );
    assert_err(ops::fliplr(&v), ErrorKind::Shape, "Input must be >= 2-d.");
    assert_err(ops::flipud(&s), ErrorKind::Shape, "Input must be >= 1-d.");
    // roll
    assert_err(
        ops::roll(&m, 1, Some(-3)),
        ErrorKind::Shape,
        "axis -3 is out of bounds",
    );
    assert_err(
        ops::roll(&s, 1, Some(0)),
        ErrorKind::Shape,
        "axis 0 is out of bounds for array of dimension 0",
    );
    assert_err(
        ops::roll_axes(&m, &[1, 2], &[0, 1, 1]),
        ErrorKind::Shape,
        "Mismatch is between arg 0 with shape (2,) and arg 1 with shape (3,)",
    );
    // repeat
    assert_err(
        ops::repeat(&m, -1, None),
        ErrorKind::InvalidArgument,
        "repeats may not contain negative values. (given -1)",
    );
    assert_err(
        ops::repeat(&m, [1, -2, 0], Some(1)),
        ErrorKind::InvalidArgument,
        "repeats may not contain negative values.",
    );
    assert_err(
        ops::repeat(&m, [1, 2], Some(1)),
        ErrorKind::Shape,
        "operands could not be broadcast together with shape (3,) (2,)",
    );
    assert_err(
        ops::repeat(&m, [1, 2], None),
        ErrorKind::Shape,
        "with shape (6,) (2,)",
    );
    assert_err(
        ops::repeat(&m, 2, Some(2)),
        ErrorKind::Shape,
        "axis 2 is out of bounds",
    );
    assert_err(
        ops::repeat(&s, 2, Some(0)),
        ErrorKind::Shape,
        "axis 0 is out of bounds",
    );
    assert_err(
        ops::repeat(&m, usize::MAX, None),
        ErrorKind::Shape,
        "do not fit",
    );
    // tile
    assert_err(
        ops::tile(&m, &[usize::MAX, 2]),
        ErrorKind::Shape,
        "does not fit",
    );
    // tril / triu
    assert_err(
        ops::tril(&s, 0),
        ErrorKind::Shape,
        "tril requires an array of at least one dimension",
    );
    assert_err(ops::triu(&s, 0), ErrorKind::Shape, "triu requires");
    // diagonal / trace
    assert_err(
        ops::diagonal(&v, 0, 0, 1),
        ErrorKind::Shape,
        "diag requires an array of at least two dimensions",
    );
    assert_err(ops::trace(&s, 0, 0, 1), ErrorKind::Shape, "diag requires");
    assert_err(
        ops::trace(&m, 0, 0, 2),
        ErrorKind::Shape,
        "axis2: axis 2 is out of bounds for array of dimension 2",
    );
    assert_err(
        ops::diagonal(&m, 0, -3, 1),
        ErrorKind::Shape,
        "axis1: axis -3 is out of bounds",
    );
    assert_err(
        m.diagonal(0, 1, -1),
        ErrorKind::InvalidArgument,
        "axis1 and axis2 cannot be the same",
    );
    // outer: device mismatch aside, every pair multiplies; diff
    assert_err(
        ops::diff(&s, 1, 0),
        ErrorKind::Shape,
        "diff requires input that is at least one dimensional",
    );
    assert_err(
        ops::diff(&m, 1, 2),
        ErrorKind::Shape,
        "axis 2 is out of bounds",
    );
    let bad = Array::zeros(&[3, 3], DType::F32).unwrap();
    assert_err(
        ops::diff_with(&m, 1, 1, Some(&bad), None),
        ErrorKind::Shape,
        "along dimension 0",
    );
}
