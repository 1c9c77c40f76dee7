//! Integration tests of the matrix products (`ops::matmul`, `ops::dot`, `Array::matmul`,
//! `Array::dot`) through cuBLAS, against NumPy's semantics: 2-D products of many shapes,
//! transposed and sliced views (passed with cuBLAS' transpose flag or a leading dimension)
//! and views that need a copy, 1-D operands, stacks of matrices with broadcast batch axes,
//! empty dimensions, float64, float32/float64 promotion, every error with its kind and
//! message, other streams and threads, and the seed's naive RawKernel matrix multiply.
//!
//! Every product is compared with a float64 triple loop on the host over random inputs
//! (`common::Rng`); the tolerance scales with `Σ|a||b|` of each output element. GPU tests
//! begin with `require_gpu!()`: without a GPU they print a SKIPPED line and return
//! (`CUPRUM_REQUIRE_GPU=1` makes that a failure).

mod common;

use common::Rng;
use cuprum::ops::Tolerance;
use cuprum::{Array, DType, ErrorKind, RawKernel, Stream, ops, s};

// =========================================================================================
// Host reference
// =========================================================================================

/// Random values in [-1, 1) representable in `dtype`, uploaded as an array of `shape`.
fn rand_array(rng: &mut Rng, shape: &[usize], dtype: DType) -> Array {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n).map(|_| rng.f64(-1.0, 1.0)).collect();
    match dtype {
        DType::F32 => {
            let v: Vec<f32> = vals.iter().map(|&x| x as f32).collect();
            Array::from_slice(&v, shape).unwrap()
        }
        DType::F64 => Array::from_slice(&vals, shape).unwrap(),
        other => panic!("rand_array: {other}"),
    }
}

/// The array's values in C order, as f64.
fn host(a: &Array) -> Vec<f64> {
    match a.dtype() {
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::F64 => a.to_vec::<f64>().unwrap(),
        other => panic!("host: {other}"),
    }
}

fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// NumPy's matmul on the host in f64: (result shape, values, Σ|a||b| per element).
fn host_matmul(
    av: &[f64],
    ash: &[usize],
    bv: &[f64],
    bsh: &[usize],
) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let a2: Vec<usize> = if ash.len() == 1 {
        vec![1, ash[0]]
    } else {
        ash.to_vec()
    };
    let b2: Vec<usize> = if bsh.len() == 1 {
        vec![bsh[0], 1]
    } else {
        bsh.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (kb, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    assert_eq!(k, kb, "host_matmul: core mismatch");
    let (ab, bb) = (&a2[..a2.len() - 2], &b2[..b2.len() - 2]);
    let nd = ab.len().max(bb.len());
    let pad = |s: &[usize]| -> Vec<usize> {
        let mut v = vec![1; nd - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(ab), pad(bb));
    let batch: Vec<usize> = (0..nd)
        .map(|i| {
            assert!(pa[i] == pb[i] || pa[i] == 1 || pb[i] == 1);
            pa[i].max(pb[i])
        })
        .collect();
    let (sa, sb) = (c_strides(&pa), c_strides(&pb));
    let nbatch: usize = batch.iter().product();
    let mut vals = Vec::with_capacity(nbatch * m * n);
    let mut mags = Vec::with_capacity(nbatch * m * n);
    for bi in 0..nbatch {
        // Unravel bi over `batch`, then index a's and b's batches (extent 1 broadcasts).
        let mut rem = bi;
        let (mut oa, mut ob) = (0, 0);
        for d in (0..nd).rev() {
            let i = rem % batch[d];
            rem /= batch[d];
            if pa[d] != 1 {
                oa += i * sa[d];
            }
            if pb[d] != 1 {
                ob += i * sb[d];
            }
        }
        let (a0, b0) = (oa * m * k, ob * k * n);
        for i in 0..m {
            for j in 0..n {
                let (mut acc, mut mag) = (0.0, 0.0);
                for p in 0..k {
                    let x = av[a0 + i * k + p] * bv[b0 + p * n + j];
                    acc += x;
                    mag += x.abs();
                }
                vals.push(acc);
                mags.push(mag);
            }
        }
    }
    let mut shape = batch;
    if ash.len() > 1 {
        shape.push(m);
    }
    if bsh.len() > 1 {
        shape.push(n);
    }
    (shape, vals, mags)
}

/// Checks `got` against the host product of `a` and `b` (dtype, shape and values).
fn check(got: &Array, a: &Array, b: &Array) {
    let want_dtype = if a.dtype() == DType::F64 || b.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    assert_eq!(got.dtype(), want_dtype, "{:?} @ {:?}", a.shape(), b.shape());
    let (shape, want, mags) = host_matmul(&host(a), a.shape(), &host(b), b.shape());
    assert_eq!(
        got.shape(),
        shape.as_slice(),
        "{:?} @ {:?}",
        a.shape(),
        b.shape()
    );
    assert!(got.is_c_contiguous());
    let tol = if want_dtype == DType::F32 {
        1e-5
    } else {
        1e-13
    };
    let g = host(got);
    assert_eq!(g.len(), want.len());
    for (i, ((&x, &w), &mag)) in g.iter().zip(&want).zip(&mags).enumerate() {
        assert!(
            (x - w).abs() <= tol * mag + 1e-30,
            "{:?} @ {:?} ({want_dtype}): element {i}: got {x}, want {w} (Σ|ab| = {mag})",
            a.shape(),
            b.shape()
        );
    }
}

fn mm(a: &Array, b: &Array) -> Array {
    let c = ops::matmul(a, b)
        .unwrap_or_else(|e| panic!("matmul {:?} @ {:?}: {e}", a.shape(), b.shape()));
    check(&c, a, b);
    c
}

const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (7, 3, 5),
    (64, 128, 32),
    (513, 257, 129),
    (1, 300, 1),
    (2, 1, 3),
];

// =========================================================================================
// 2-D products
// =========================================================================================

#[test]
fn matrices_float32() {
    require_gpu!();
    let mut rng = Rng::new(1);
    for &(m, k, n) in SHAPES {
        let a = rand_array(&mut rng, &[m, k], DType::F32);
        let b = rand_array(&mut rng, &[k, n], DType::F32);
        mm(&a, &b);
    }
}

#[test]
fn matrices_float64() {
    require_gpu!();
    let mut rng = Rng::new(2);
    for &(m, k, n) in SHAPES {
        let a = rand_array(&mut rng, &[m, k], DType::F64);
        let b = rand_array(&mut rng, &[k, n], DType::F64);
        mm(&a, &b);
    }
}

#[test]
fn method_forms_and_repeat_calls() {
    require_gpu!();
    let mut rng = Rng::new(3);
    let a = rand_array(&mut rng, &[9, 4], DType::F32);
    let b = rand_array(&mut rng, &[4, 6], DType::F32);
    let first = a.matmul(&b).unwrap();
    check(&first, &a, &b);
    for _ in 0..5 {
        let again = a.matmul(&b).unwrap();
        assert_eq!(host(&again), host(&first), "same inputs, same result");
    }
    check(&a.dot(&b).unwrap(), &a, &b);
    // The documented small example.
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let b = Array::from_slice(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], &[3, 2]).unwrap();
    let c = ops::matmul(&a, &b).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), vec![4.0, 5.0, 10.0, 11.0]);
    let g = ops::matmul(&a, &a.t()).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![14.0, 32.0, 32.0, 77.0]);
}

#[test]
fn transposed_views() {
    require_gpu!();
    let mut rng = Rng::new(4);
    for dtype in [DType::F32, DType::F64] {
        // the largest past cuBLAS's tiles with odd edges; on the host device smaller (its
        // GEMM and the test's reference take the same path at a sixtieth of the work)
        let large = common::gpu_or_host((513, 257, 129), (131, 67, 35));
        for &(m, k, n) in &[(7, 3, 5), (64, 128, 32), large] {
            // Stored transposed: (k, m) and (n, k) C-contiguous, used through `.t()`.
            let at = rand_array(&mut rng, &[k, m], dtype);
            let bt = rand_array(&mut rng, &[n, k], dtype);
            let a = rand_array(&mut rng, &[m, k], dtype);
            let b = rand_array(&mut rng, &[k, n], dtype);
            mm(&at.t(), &b);
            mm(&a, &bt.t());
            mm(&at.t(), &bt.t());
            // Gram matrices of one operand with its own transpose.
            mm(&a, &a.t());
            mm(&a.t(), &a);
        }
    }
}

#[test]
fn sliced_and_copied_views() {
    require_gpu!();
    let mut rng = Rng::new(5);
    for dtype in [DType::F32, DType::F64] {
        let big = rand_array(&mut rng, &[40, 50], dtype);
        let b = rand_array(&mut rng, &[20, 30], dtype);
        // A block of a larger matrix: leading dimension 50, no copy.
        mm(
            &big.slice(&s![3..23, 5..25]).unwrap(),
            &b.slice(&s![.., 0..7]).unwrap(),
        );
        // Columns of a transposed matrix: column-major with leading dimension 50.
        mm(&big.t().slice(&s![0..10, 0..20]).unwrap(), &b);
        // Steps in both axes and reversed rows: copied first.
        mm(
            &big.slice(&s![..;2, ..;2]).unwrap(),
            &big.t().slice(&s![..;2, ..;3]).unwrap(),
        );
        mm(&big.slice(&s![..;-1, ..]).unwrap(), &big.t());
        // A broadcast row as a matrix (stride 0): copied.
        let row = rand_array(&mut rng, &[20], dtype);
        mm(&row.broadcast_to(&[6, 20]).unwrap(), &b);
        // The inputs are untouched.
        let before = host(&big);
        mm(&big, &big.t());
        assert_eq!(host(&big), before);
    }
}

// =========================================================================================
// 1-D operands, stacks, empty dimensions, promotion
// =========================================================================================

#[test]
fn vectors() {
    require_gpu!();
    let mut rng = Rng::new(6);
    for dtype in [DType::F32, DType::F64] {
        let v = rand_array(&mut rng, &[37], dtype);
        let w = rand_array(&mut rng, &[37], dtype);
        let a = rand_array(&mut rng, &[37, 11], dtype);
        let c = rand_array(&mut rng, &[13, 37], dtype);
        assert_eq!(mm(&v, &a).shape(), &[11]);
        assert_eq!(mm(&c, &v).shape(), &[13]);
        let inner = mm(&v, &w);
        assert_eq!(inner.shape(), &[] as &[usize]);
        assert_eq!(inner.ndim(), 0);
        // Strided and reversed vectors.
        let long = rand_array(&mut rng, &[74], dtype);
        let stepped = long.slice(&s![..;2]).unwrap();
        mm(&stepped, &a);
        mm(&c, &stepped);
        mm(&stepped, &long.slice(&s![1..;2]).unwrap());
        mm(&long.slice(&s![..;-2]).unwrap(), &a);
        // A column of a matrix (stride 11) as a vector.
        mm(&c, &a.slice(&s![.., 3]).unwrap());
        // dot of vectors is their inner product; dot of 2-D/1-D is matmul.
        let d = ops::dot(&v, &w).unwrap();
        check(&d, &v, &w);
        check(&ops::dot(&c, &v).unwrap(), &c, &v);
        check(&ops::dot(&v, &a).unwrap(), &v, &a);
        check(&ops::dot(&c, &a).unwrap(), &c, &a);
        // Length 1.
        let one = rand_array(&mut rng, &[1], dtype);
        mm(&one, &one);
    }
    let x = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3]).unwrap();
    let y = Array::from_slice(&[4.0f64, 5.0, 6.0], &[3]).unwrap();
    assert_eq!(
        ops::dot(&x, &y).unwrap().to_vec::<f64>().unwrap(),
        vec![32.0]
    );
}

#[test]
fn stacks_of_matrices() {
    require_gpu!();
    let mut rng = Rng::new(7);
    for dtype in [DType::F32, DType::F64] {
        let r = |rng: &mut Rng, sh: &[usize]| rand_array(rng, sh, dtype);
        // Same batch.
        mm(&r(&mut rng, &[3, 4, 5]), &r(&mut rng, &[3, 5, 2]));
        // A matrix against a stack (stride 0 along the batch), both ways.
        mm(&r(&mut rng, &[4, 5]), &r(&mut rng, &[6, 5, 3]));
        mm(&r(&mut rng, &[6, 4, 5]), &r(&mut rng, &[5, 3]));
        // Broadcast batch axes that do not merge: an outer loop of batched calls.
        let c = mm(&r(&mut rng, &[2, 1, 4, 5]), &r(&mut rng, &[3, 5, 6]));
        assert_eq!(c.shape(), &[2, 3, 4, 6]);
        mm(
            &r(&mut rng, &[2, 1, 3, 4, 5]),
            &r(&mut rng, &[1, 2, 1, 5, 2]),
        );
        // Vectors with stacks.
        assert_eq!(
            mm(&r(&mut rng, &[5]), &r(&mut rng, &[2, 5, 3])).shape(),
            &[2, 3]
        );
        assert_eq!(
            mm(&r(&mut rng, &[2, 4, 5]), &r(&mut rng, &[5])).shape(),
            &[2, 4]
        );
        // Transposed matrices inside a stack, a reversed batch axis (copied), a stack
        // view with a step along the batch.
        let st = r(&mut rng, &[3, 5, 4]);
        mm(&st.swapaxes(-1, -2).unwrap(), &r(&mut rng, &[3, 5, 2]));
        let rev = r(&mut rng, &[3, 4, 5]).slice(&s![..;-1]).unwrap();
        mm(&rev, &r(&mut rng, &[3, 5, 2]));
        let stepped = r(&mut rng, &[6, 4, 5]).slice(&s![..;2]).unwrap();
        mm(&stepped, &r(&mut rng, &[3, 5, 2]));
        // Larger batched product.
        mm(&r(&mut rng, &[8, 65, 33]), &r(&mut rng, &[8, 33, 17]));
    }
}

#[test]
fn empty_dimensions() {
    require_gpu!();
    let mut rng = Rng::new(8);
    for dtype in [DType::F32, DType::F64] {
        // k == 0: zeros of (m, n).
        let a = Array::empty(&[3, 0], dtype).unwrap();
        let b = Array::empty(&[0, 4], dtype).unwrap();
        let c = ops::matmul(&a, &b).unwrap();
        assert_eq!((c.shape(), c.dtype()), (&[3, 4][..], dtype));
        assert_eq!(host(&c), vec![0.0; 12]);
        // Vectors of length 0: a 0-d zero.
        let e = Array::empty(&[0], dtype).unwrap();
        let z = ops::matmul(&e, &e).unwrap();
        assert_eq!((z.shape(), host(&z)), (&[][..], vec![0.0]));
        assert_eq!(host(&ops::dot(&e, &e).unwrap()), vec![0.0]);
        // m == 0 or n == 0: empty results.
        let a = rand_array(&mut rng, &[0, 3], dtype);
        let b = rand_array(&mut rng, &[3, 5], dtype);
        assert_eq!(ops::matmul(&a, &b).unwrap().shape(), &[0, 5]);
        let b0 = rand_array(&mut rng, &[3, 0], dtype);
        let a3 = rand_array(&mut rng, &[4, 3], dtype);
        assert_eq!(ops::matmul(&a3, &b0).unwrap().shape(), &[4, 0]);
        // An empty batch.
        let sa = Array::empty(&[0, 2, 3], dtype).unwrap();
        assert_eq!(ops::matmul(&sa, &b).unwrap().shape(), &[0, 2, 5]);
        // k == 0 in a stack.
        let ka = Array::empty(&[2, 3, 0], dtype).unwrap();
        let kb = Array::empty(&[0, 4], dtype).unwrap();
        let kz = ops::matmul(&ka, &kb).unwrap();
        assert_eq!(kz.shape(), &[2, 3, 4]);
        assert_eq!(host(&kz), vec![0.0; 24]);
    }
}

#[test]
fn mixed_float32_float64_promotes_to_float64() {
    require_gpu!();
    let mut rng = Rng::new(9);
    let a = rand_array(&mut rng, &[33, 17], DType::F32);
    let b = rand_array(&mut rng, &[17, 9], DType::F64);
    let c = mm(&a, &b);
    assert_eq!(c.dtype(), DType::F64);
    let c = mm(&b.t(), &a.t());
    assert_eq!(c.dtype(), DType::F64);
    let v = rand_array(&mut rng, &[17], DType::F32);
    let d = ops::dot(&b.t(), &v).unwrap();
    assert_eq!(d.dtype(), DType::F64);
    check(&d, &b.t(), &v);
    // The float32 operand is converted exactly: the result equals the float64 product.
    let a64 = a.astype(DType::F64).unwrap();
    assert_eq!(
        host(&ops::matmul(&a, &b).unwrap()),
        host(&ops::matmul(&a64, &b).unwrap())
    );
}

// =========================================================================================
// Errors
// =========================================================================================

#[test]
fn errors_have_kinds_and_numpy_messages() {
    require_gpu!();
    let f = |sh: &[usize]| Array::zeros(sh, DType::F32).unwrap();

    // Core dimension mismatch: NumPy's message.
    let e = ops::matmul(&f(&[2, 4]), &f(&[3, 5])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature \
         (n?,k),(k,m?)->(n?,m?) (size 3 is different from 4)"
    );
    let e = ops::matmul(&f(&[4]), &f(&[3])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(
        e.to_string().contains("(size 3 is different from 4)"),
        "{e}"
    );
    let e = f(&[2, 4]).matmul(&f(&[5])).unwrap_err();
    assert!(
        e.to_string().contains("(size 5 is different from 4)"),
        "{e}"
    );

    // 0-d operands.
    let e = ops::matmul(&f(&[]), &f(&[3])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with \
         signature (n?,k),(k,m?)->(n?,m?) requires 1)"
    );
    let e = ops::matmul(&f(&[3]), &f(&[])).unwrap_err();
    assert!(e.to_string().contains("Input operand 1"), "{e}");

    // Batch axes that do not broadcast.
    let e = ops::matmul(&f(&[2, 3, 4]), &f(&[3, 4, 5])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.to_string().contains("(2, 3, 4) and (3, 4, 5)"), "{e}");

    // other dtypes: the composed product, in NumPy's result dtype
    let ai = Array::from_slice(&[1i32, -2, 3, 4, 5, -6], &[2, 3]).unwrap();
    let bi = Array::from_slice(&[7i32, 8, 9, 10, -11, 12], &[3, 2]).unwrap();
    let c = ops::matmul(&ai, &bi).unwrap();
    assert_eq!(c.dtype(), DType::I32);
    assert_eq!(c.to_vec::<i32>().unwrap(), vec![-44, 24, 139, 10]);
    let v = Array::from_slice(&[1i64, 0, 2], &[3]).unwrap();
    let cv = ops::matmul(&ai.astype(DType::I64).unwrap(), &v).unwrap();
    assert_eq!(
        (cv.shape(), cv.to_vec::<i64>().unwrap()),
        (&[2][..], vec![7, -8])
    );
    assert_eq!(ops::dot(&v, &v).unwrap().to_vec::<i64>().unwrap(), vec![5]);
    let t = Array::from_slice(&[true, false, false, false], &[2, 2]).unwrap();
    let u = Array::from_slice(&[false, true, true, false], &[2, 2]).unwrap();
    let tb = ops::matmul(&t, &u).unwrap();
    assert_eq!(tb.dtype(), DType::Bool);
    assert_eq!(
        tb.to_vec::<bool>().unwrap(),
        vec![false, true, false, false]
    );
    let z = Array::from_slice(
        &[
            num_complex::Complex32::new(1.0, 1.0),
            num_complex::Complex32::new(0.0, 2.0),
        ],
        &[1, 2],
    )
    .unwrap();
    let zz = ops::matmul(&z, &z.t()).unwrap();
    assert_eq!(zz.dtype(), DType::C64);
    assert_eq!(
        zz.to_vec::<num_complex::Complex32>().unwrap(),
        vec![num_complex::Complex32::new(-4.0, 2.0)]
    );
    // stacks broadcast; an int with a float32 promotes to float64 (cuBLAS)
    let stack = ops::matmul(
        &Array::ones(&[4, 1, 2, 3], DType::I16).unwrap(),
        &bi.astype(DType::I16).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (stack.shape(), stack.dtype()),
        (&[4, 1, 2, 2][..], DType::I16)
    );
    assert_eq!(stack.to_vec::<i16>().unwrap()[..2], [5, 30]);
    let mixed = ops::matmul(&ai, &f(&[3, 2])).unwrap();
    assert_eq!(mixed.dtype(), DType::F64);

    // dot: NumPy's "not aligned", 0-d and N-d operands unsupported.
    let e = ops::dot(&f(&[2, 3]), &f(&[4, 5])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)"
    );
    let e = ops::dot(&f(&[3]), &f(&[4])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)"
    );
    for (x, y) in [
        (f(&[]), f(&[3])),
        (f(&[3]), f(&[])),
        (f(&[2, 2, 2]), f(&[2, 2])),
        (f(&[2, 2]), f(&[2, 2, 2])),
    ] {
        let e = ops::dot(&x, &y).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("ops::matmul"), "{e}");
    }
}

// =========================================================================================
// Streams, threads, the seed kernel
// =========================================================================================

#[test]
fn other_streams_and_threads() {
    require_gpu!();
    let mut rng = Rng::new(10);
    let a = rand_array(&mut rng, &[65, 40], DType::F32);
    let b = rand_array(&mut rng, &[40, 70], DType::F32);
    // The uploads ran on the default stream: finish them before other streams read.
    Stream::current().unwrap().synchronize().unwrap();
    let s = Stream::new().unwrap();
    let c = s.with(|| ops::matmul(&a, &b)).unwrap();
    s.synchronize().unwrap();
    check(&c, &a, &b);
    // Back on the default stream with the same (re-bound) handle.
    check(&ops::matmul(&a, &b).unwrap(), &a, &b);
    std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                sc.spawn(|| {
                    let s = Stream::new().unwrap();
                    let out = s.with(|| ops::matmul(&a, &b)).unwrap();
                    s.synchronize().unwrap();
                    check(&out, &a, &b);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
    // Threads that ended gave their handles back; new ones reuse them.
    for _ in 0..3 {
        std::thread::scope(|sc| {
            sc.spawn(|| check(&ops::matmul(&a, &b).unwrap(), &a, &b))
                .join()
        })
        .unwrap();
    }
    // the host device multiplies without cuBLAS
    if !common::on_host() {
        let v = cuprum::runtime::cublas_version().unwrap();
        assert!(v >= 120_000, "cuBLAS version {v}");
    }
}

/// The seed's matrix multiply (examples/kernels/matrix_multiply.cu, a naive RawKernel)
/// agrees with cuBLAS for 1024×512 · 512×1024.
#[test]
fn seed_raw_kernel_matches_matmul() {
    require_gpu!();
    let mm_kernel = RawKernel::new(
        include_str!("../../../examples/kernels/matrix_multiply.cu"),
        "matrix_multiply",
    );
    // the seed's sizes; on the host device (its naive kernel runs as fibers on a CPU) a
    // quarter of each side, still many 16×16 tiles (`common::gpu_or_host`)
    let (m, n, k) = common::gpu_or_host((1024usize, 1024usize, 512usize), (256, 256, 128));
    let mut rng = Rng::new(11);
    let a = rand_array(&mut rng, &[m, k], DType::F32);
    let b = rand_array(&mut rng, &[k, n], DType::F32);
    let naive = Array::zeros(&[m, n], DType::F32).unwrap();
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    mm_kernel
        .launch(
            grid,
            (16, 16),
            (&a, &b, &naive, m as i32, n as i32, k as i32),
        )
        .unwrap();
    let blas = ops::matmul(&a, &b).unwrap();
    assert_eq!(blas.shape(), &[m, n]);
    let (x, y) = (host(&naive), host(&blas));
    let (ha, hb) = (host(&a), host(&b));
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in (0..n).step_by(7) {
            let (mut r, mut mag) = (0.0, 0.0);
            for p in 0..k {
                let t = ha[i * k + p] * hb[p * n + j];
                r += t;
                mag += t.abs();
            }
            let idx = i * n + j;
            assert!(
                (y[idx] - r).abs() <= 1e-5 * mag,
                "cuBLAS [{i},{j}]: {} vs {r}",
                y[idx]
            );
            worst = worst.max((x[idx] - y[idx]).abs() / mag.max(1e-30));
        }
    }
    assert!(
        worst < 5e-5,
        "naive kernel vs cuBLAS: worst error {worst:e} of Σ|ab|"
    );
    assert!(ops::allclose_with(&naive, &blas, Tolerance::new(1e-4, 1e-3)).unwrap());
}

// =========================================================================================
// Without a GPU
// =========================================================================================

/// Asking for cuBLAS never panics: without a GPU or without the library it is a typed error.
#[test]
fn cublas_probe_never_panics() {
    match cuprum::runtime::cublas_version() {
        Ok(v) => assert!(v >= 120_000, "cuBLAS version {v}"),
        Err(e) => {
            eprintln!("cuBLAS unavailable: {e}");
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Blas
                        | ErrorKind::NoDriver
                        | ErrorKind::NoDevice
                        | ErrorKind::DriverTooOld
                ),
                "{e} ({:?})",
                e.kind()
            )
        }
    }
}
