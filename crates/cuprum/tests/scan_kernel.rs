//! Integration tests of ScanKernel: running maxima, sums and products against a host scan
//! of random non-zero inputs (inclusive and exclusive; flattened, the last axis, the
//! leading axis with many and few columns, a middle axis; 0-d, empty and 1-element
//! inputs; transposed, stepped and broadcast views; sizes past one tile of the engine),
//! several dtypes, several inputs in the map, a preamble struct (a segmented sum, with an
//! 8-byte and a 4-byte pair), scalar inputs, the accumulator as a dtype name, the post-map, outputs given
//! (contiguous, strided, in place), the builder, every construction and call error, and
//! compile errors pointing at the map, scan expression, identity and post-map. GPU tests
//! begin with `require_gpu!()` (the host device stands in where there is no GPU); the
//! 1e8-element case skips on the host device.

mod common;

use common::{Rng, assert_compile_error_in, assert_err, assert_type_mismatch, dev, nz};
use cuprum::{Array, DType, ErrorKind, ScanKernel, ops, s};

fn running_max() -> ScanKernel {
    ScanKernel::new(
        "T x",
        "T y",
        "x",
        "a > b ? a : b",
        "-CUDART_INF_F",
        "running_max",
    )
    .unwrap()
}

fn sum() -> ScanKernel {
    ScanKernel::new("T x", "T y", "x", "a + b", "0", "my_cumsum").unwrap()
}

/// The host scan of `v` (C order, `shape`) along `axis` (`None`: flattened) with `op`,
/// `id` and `exclusive`.
fn host_scan(
    v: &[f64],
    shape: &[usize],
    axis: Option<usize>,
    op: fn(f64, f64) -> f64,
    id: f64,
    exclusive: bool,
) -> Vec<f64> {
    let (outer, len, inner) = match axis {
        None => (1, v.len(), 1),
        Some(ax) => (
            shape[..ax].iter().product(),
            shape[ax],
            shape[ax + 1..].iter().product(),
        ),
    };
    let mut out = vec![0.0; v.len()];
    for o in 0..outer {
        for r in 0..inner {
            let mut acc = id;
            for k in 0..len {
                let i = (o * len + k) * inner + r;
                if exclusive {
                    out[i] = acc;
                }
                acc = op(acc, v[i]);
                if !exclusive {
                    out[i] = acc;
                }
            }
        }
    }
    out
}

fn max(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Random non-zero integers in [-50, 50] as f64 (exact in every float dtype used).
fn ints(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| nz(rng, -50.0, 50.0).round()).collect()
}

fn f64s(a: &Array) -> Vec<f64> {
    a.astype(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

#[test]
fn running_max_over_every_axis_and_mode() {
    require_gpu!();
    let mut rng = Rng::new(7);
    let k = running_max();
    for shape in [
        vec![1usize],
        vec![5],
        vec![8192 * 3 + 17],
        vec![3, 1000],
        vec![300, 40],
        vec![70, 5],
        vec![4, 6, 33],
        vec![300, 1100], // rows a block each (the rows kernel)
    ] {
        let n: usize = shape.iter().product();
        let v = ints(&mut rng, n);
        let x = dev(&v.iter().map(|&f| f as f32).collect::<Vec<_>>(), &shape);
        let mut axes: Vec<Option<isize>> = vec![None];
        axes.extend((0..shape.len() as isize).map(Some));
        axes.push(Some(-1));
        for axis in axes {
            for excl in [false, true] {
                let got = k.axis(axis).exclusive(excl).call((&x,)).unwrap();
                let ax = axis.map(|a| a.rem_euclid(shape.len() as isize) as usize);
                let want = host_scan(&v, &shape, ax, max, f64::NEG_INFINITY, excl);
                let want_shape = if axis.is_none() {
                    vec![n]
                } else {
                    shape.clone()
                };
                assert_eq!(got.shape(), want_shape.as_slice());
                assert_eq!(f64s(&got), want, "{shape:?} axis {axis:?} exclusive {excl}");
            }
        }
    }
}

#[test]
fn sum_matches_cumsum_and_wraps_like_the_dtype() {
    require_gpu!();
    let mut rng = Rng::new(11);
    let k = sum();
    let n = 8192 * 2 + 5;
    let v = ints(&mut rng, n);
    let x = dev(&v.iter().map(|&f| f as i32).collect::<Vec<_>>(), &[n]);
    let got = k.call((&x,)).unwrap().to_vec::<i32>().unwrap();
    let want: Vec<i32> = ops::cumsum(&x, None)
        .unwrap()
        .to_vec::<i64>()
        .unwrap()
        .iter()
        .map(|&w| w as i32)
        .collect();
    assert_eq!(got, want);
    // uint8 wraps at 256, as the output's type does
    let b = dev(&[200u8, 100, 50], &[3]);
    assert_eq!(
        k.call((&b,)).unwrap().to_vec::<u8>().unwrap(),
        vec![200, 44, 94]
    );
    // float64 sums of integers are exact in any order
    let xf = dev(&v, &[n]);
    let gf = k
        .exclusive(true)
        .call((&xf,))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(gf, host_scan(&v, &[n], None, add, 0.0, true));
}

#[test]
fn several_dtypes() {
    require_gpu!();
    let mut rng = Rng::new(3);
    let k = sum();
    // 0 is neutral for the maximum of these positive values in every dtype (an infinite
    // identity would not convert to the integers)
    let m = ScanKernel::new("T x", "T y", "x", "a > b ? a : b", "0", "running_max0").unwrap();
    for d in common::dtypes(&[
        DType::I8,
        DType::I64,
        DType::U8,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ]) {
        let n = 1000;
        // small non-negative values: no wrapping, exact in 16-bit floats
        let v: Vec<f64> = (0..n).map(|_| nz(&mut rng, 1.0, 3.0).round()).collect();
        let x = Array::from_slice(&v, &[n]).unwrap().astype(d).unwrap();
        let small = x.slice(&s![..40]).unwrap();
        let got = k.call((&small,)).unwrap();
        assert_eq!(got.dtype(), d);
        assert_eq!(
            f64s(&got),
            host_scan(&v[..40], &[40], None, add, 0.0, false),
            "{d}"
        );
        let got = m.call((&x,)).unwrap();
        assert_eq!(
            f64s(&got),
            host_scan(&v, &[n], None, max, 0.0, false),
            "{d}"
        );
    }
}

#[test]
fn views_empty_zero_d_and_broadcast() {
    require_gpu!();
    let mut rng = Rng::new(5);
    let k = sum();
    let v = ints(&mut rng, 60);
    let x = dev(&v, &[6, 10]);
    // transposed: the scan of the view's C order
    let t = x.transpose();
    let tv: Vec<f64> = (0..60).map(|i| v[(i % 6) * 10 + i / 6]).collect();
    assert_eq!(
        f64s(&k.axis(Some(1)).call((&t,)).unwrap()),
        host_scan(&tv, &[10, 6], Some(1), add, 0.0, false)
    );
    // stepped, reversed
    let st = x.slice(&s![.., ..;-3]).unwrap();
    let sv: Vec<f64> = (0..6)
        .flat_map(|r| [9, 6, 3, 0].map(|c| v[r * 10 + c]))
        .collect();
    assert_eq!(
        f64s(&k.axis(Some(0)).call((&st,)).unwrap()),
        host_scan(&sv, &[6, 4], Some(0), add, 0.0, false)
    );
    // empty and 0-d
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    assert_eq!(k.axis(Some(1)).call((&e,)).unwrap().shape(), &[0, 3]);
    assert_eq!(k.call((&e,)).unwrap().shape(), &[0]);
    let z = Array::from_slice(&[4.5f64], &[]).unwrap();
    assert_eq!(k.call((&z,)).unwrap().to_vec::<f64>().unwrap(), vec![4.5]);
    assert_err(
        k.axis(Some(0)).call((&z,)),
        ErrorKind::Shape,
        "axis 0 is out of bounds",
    );
    // two inputs broadcast together
    let w = ScanKernel::new("T x, T w", "T y", "x * w", "a + b", "0", "weighted").unwrap();
    let row = dev(&[1.0f64, 2.0, 3.0], &[3]);
    let col = dev(&[1.0f64, 10.0], &[2, 1]);
    let got = w.axis(Some(1)).call((&row, &col)).unwrap();
    assert_eq!(got.shape(), &[2, 3]);
    assert_eq!(
        got.to_vec::<f64>().unwrap(),
        vec![1.0, 3.0, 6.0, 10.0, 30.0, 60.0]
    );
}

#[test]
fn scalar_inputs_are_passed_by_value() {
    require_gpu!();
    let mut rng = Rng::new(17);
    let n = 8192 + 300;
    let v = ints(&mut rng, n);
    let x = dev(&v.iter().map(|&f| f as f32).collect::<Vec<_>>(), &[n]);
    // a running count of the elements above a threshold, the threshold a scalar
    let k = ScanKernel::new(
        "float32 x, float32 t",
        "int64 y",
        "x > t ? 1 : 0",
        "a + b",
        "0",
        "count_above",
    )
    .unwrap();
    for (t, axis) in [(0.0f32, None), (17.0, Some(0))] {
        let got = k.axis(axis).call((&x, t)).unwrap().to_vec::<i64>().unwrap();
        let mut c = 0i64;
        let want: Vec<i64> = v
            .iter()
            .map(|&a| {
                c += i64::from(a > f64::from(t));
                c
            })
            .collect();
        assert_eq!(got, want, "t = {t}");
    }
    // a scalar between two arrays (the engine passes the arrays first)
    let w = ScanKernel::new(
        "T x, T s, T z",
        "T y",
        "x * s + z",
        "a + b",
        "0",
        "axpy_scan",
    )
    .unwrap();
    let z = dev(&[1.0f64, 2.0, 3.0], &[3]);
    let xx = dev(&[1.0f64, 1.0, 1.0], &[3]);
    assert_eq!(
        w.call((&xx, 2.0f64, &z)).unwrap().to_vec::<f64>().unwrap(),
        vec![3.0, 7.0, 12.0]
    );
}

#[test]
fn inputs_of_different_dtypes_and_a_dtype_accumulator() {
    require_gpu!();
    let mut rng = Rng::new(9);
    let n = 8192 + 77;
    let v = ints(&mut rng, n);
    let m: Vec<bool> = (0..n).map(|i| (i * 7) % 3 == 0).collect();
    // a masked count-and-sum into float64 from float32 and bool inputs
    let k = ScanKernel::new(
        "float32 x, bool m",
        "float64 y",
        "m ? x : 0",
        "a + b",
        "0",
        "masked_cumsum",
    )
    .unwrap()
    .scan_type("float64");
    let x = dev(&v.iter().map(|&f| f as f32).collect::<Vec<_>>(), &[n]);
    let mm = dev(&m, &[n]);
    let got = k.call((&x, &mm)).unwrap().to_vec::<f64>().unwrap();
    let masked: Vec<f64> = v
        .iter()
        .zip(&m)
        .map(|(&a, &b)| if b { a } else { 0.0 })
        .collect();
    assert_eq!(got, host_scan(&masked, &[n], None, add, 0.0, false));
}

#[test]
fn segmented_sum_through_a_preamble_struct() {
    require_gpu!();
    let mut rng = Rng::new(13);
    // an 8-byte pair, and a 4-byte one (the engine's packed look-back path)
    for (name, pre) in [
        ("seg8", "struct P { float v; int f; };"),
        ("seg4", "struct P { short v; short f; };"),
    ] {
        let k = ScanKernel::builder(name)
            .inputs("T x, bool f")
            .outputs("T y")
            .preamble(pre)
            .scan_type("P")
            .map("P{(decltype(P::v))x, (decltype(P::f))f}")
            .scan("b.f ? b : P{(decltype(P::v))(a.v + b.v), a.f}")
            .identity("P{0, 0}")
            .post_map("y = a.v")
            .build()
            .unwrap();
        let n = 8192 * 2 + 33;
        let v: Vec<i32> = (0..n)
            .map(|_| nz(&mut rng, 1.0, 4.0).round() as i32)
            .collect();
        let f: Vec<bool> = (0..n).map(|i| i % 97 == 0 || i % 1000 == 3).collect();
        let x = dev(&v, &[n]);
        let fl = dev(&f, &[n]);
        let got = k.call((&x, &fl)).unwrap().to_vec::<i32>().unwrap();
        let mut acc = 0i32;
        let want: Vec<i32> = v
            .iter()
            .zip(&f)
            .map(|(&a, &s)| {
                acc = if s { a } else { acc + a };
                acc
            })
            .collect();
        // short values wrap at 2^15: keep segments short enough (at most 1000 × 3)
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn outputs_given_strided_and_in_place() {
    require_gpu!();
    let k = ScanKernel::new("T x", "T y", "x", "a * b", "1", "my_cumprod").unwrap();
    let x = dev(&[1i64, 2, 3, 4, 5, 6], &[2, 3]);
    let out = Array::zeros(&[2, 3], DType::I64).unwrap();
    let r = k.axis(Some(1)).call((&x, &out)).unwrap();
    assert_eq!(out.to_vec::<i64>().unwrap(), vec![1, 2, 6, 4, 20, 120]);
    assert_eq!(r.to_vec::<i64>().unwrap(), vec![1, 2, 6, 4, 20, 120]);
    // a strided output: every other column of a wider array
    let wide = Array::zeros(&[2, 6], DType::I64).unwrap();
    let view = wide.slice(&s![.., ..;2]).unwrap();
    k.axis(Some(0)).call((&x, &view)).unwrap();
    assert_eq!(
        wide.to_vec::<i64>().unwrap(),
        vec![1, 0, 2, 0, 3, 0, 4, 0, 10, 0, 18, 0]
    );
    // in place
    let y = dev(&[2i64, 3, 4], &[3]);
    k.call((&y, &y)).unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), vec![2, 6, 24]);
    // a given output of the wrong shape or dtype
    let bad = Array::zeros(&[6], DType::I64).unwrap();
    assert_err(
        k.axis(Some(1)).call((&x, &bad)),
        ErrorKind::Shape,
        "Out shape is mismatched",
    );
    let f = Array::zeros(&[6], DType::F32).unwrap();
    assert_type_mismatch(k.call((&x, &f)), "x int64 float32");
}

#[test]
fn construction_errors_name_the_bad_part() {
    let new = |i: &str, o: &str, m: &str, sc: &str, id: &str, n: &str| {
        ScanKernel::new(i, o, m, sc, id, n)
    };
    assert_err(
        new("T x", "T y", "x", "a + b", "0", "bad name"),
        ErrorKind::InvalidArgument,
        "Invalid kernel name",
    );
    assert_err(
        new("T x,", "T y", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "",
    );
    assert_err(
        new("float x", "T y", "x", "a + b", "0", "k"),
        ErrorKind::DType,
        "write float32 or float64",
    );
    assert_err(
        new("", "T y", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "at least one input parameter",
    );
    assert_err(
        new("T x", "T y, T z", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "one output parameter",
    );
    assert_err(
        new("T x", "", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "one output parameter",
    );
    assert_err(
        new("raw T x", "T y", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "cannot be raw",
    );
    assert_err(
        new("T x", "T x", "x", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "both an input and the output",
    );
    assert_err(
        new("T a", "T y", "a", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "Can not use 'a'",
    );
    assert_err(
        new("T x", "T y", " ", "a + b", "0", "k"),
        ErrorKind::InvalidArgument,
        "needs a map expression",
    );
    assert_err(
        new("T x", "T y", "x", "", "0", "k"),
        ErrorKind::InvalidArgument,
        "needs a scan expression",
    );
    assert_err(
        new("T x", "T y", "x", "a + b", "", "k"),
        ErrorKind::InvalidArgument,
        "needs an identity",
    );
    for (b, what) in [
        (ScanKernel::builder("k"), "input parameters"),
        (ScanKernel::builder("k").inputs("T x"), "output parameter"),
        (
            ScanKernel::builder("k").inputs("T x").outputs("T y"),
            "map expression",
        ),
        (
            ScanKernel::builder("k")
                .inputs("T x")
                .outputs("T y")
                .map("x"),
            "scan expression",
        ),
        (
            ScanKernel::builder("k")
                .inputs("T x")
                .outputs("T y")
                .map("x")
                .scan("a + b"),
            "identity",
        ),
    ] {
        assert_err(
            b.build(),
            ErrorKind::InvalidArgument,
            &format!("needs its {what}"),
        );
    }
    let k = sum();
    assert_eq!((k.name(), k.nin(), k.nout()), ("my_cumsum", 1, 1));
    let src = k.generated_source(&[DType::F32, DType::F32], true).unwrap();
    assert!(src.contains("constexpr bool EXCL = true;"), "{src}");
    assert_err(
        k.generated_source(&[DType::F32], false),
        ErrorKind::InvalidArgument,
        "has 2 parameters",
    );
    assert_type_mismatch(k.generated_source(&[DType::F32, DType::F64], false), "y");
}

#[test]
fn call_errors() {
    require_gpu!();
    let k = sum();
    let x = dev(&[1.0f32, 2.0], &[2]);
    assert_err(
        k.call(()),
        ErrorKind::InvalidArgument,
        "Wrong number of arguments for 'my_cumsum'",
    );
    assert_err(
        k.call((&x, &x, &x)),
        ErrorKind::InvalidArgument,
        "Wrong number of arguments",
    );
    // a placeholder only a scalar would decide, then a concrete type: no array at all
    assert_err(
        k.call((1.0f32,)),
        ErrorKind::DType,
        "placeholder T of parameter 'x' is not determined",
    );
    let c = ScanKernel::new("float32 x", "float32 y", "x", "a + b", "0", "all_scalar").unwrap();
    assert_err(
        c.call((1.0f32,)),
        ErrorKind::InvalidArgument,
        "every input was given a scalar",
    );
    let u = ScanKernel::new("T x, U t", "T y", "x * t", "a + b", "0", "scaled").unwrap();
    assert_err(
        u.call((&x, 2.0f32)),
        ErrorKind::DType,
        "placeholder U of parameter 't' is not determined",
    );
    let i8t = ScanKernel::new("T x, int8 t", "T y", "x * t", "a + b", "0", "scaled8").unwrap();
    assert_err(
        i8t.call((&x, 1000i64)),
        ErrorKind::DType,
        "argument 't' of 'scaled8'",
    );
    assert_err(
        k.axis(Some(1)).call((&x,)),
        ErrorKind::Shape,
        "axis 1 is out of bounds",
    );
    let w = ScanKernel::new("T x, T w", "T y", "x * w", "a + b", "0", "weighted").unwrap();
    let d = dev(&[1.0f64, 2.0], &[2]);
    assert_type_mismatch(w.call((&x, &d)), "w");
    let three = dev(&[1.0f32, 2.0, 3.0], &[3]);
    assert_err(w.call((&x, &three)), ErrorKind::Shape, "");
}

#[test]
fn compile_errors_point_at_the_part() {
    require_gpu!();
    let x = dev(&[1.0f32, 2.0], &[2]);
    let k = ScanKernel::new(
        "T x",
        "T y",
        "x + undefined_in_map",
        "a + b",
        "0",
        "bad_map",
    )
    .unwrap();
    assert_compile_error_in(k.call((&x,)), "undefined_in_map", "map_expr");
    let k = ScanKernel::new("T x", "T y", "x", "a + undefined_in_scan", "0", "bad_scan").unwrap();
    assert_compile_error_in(k.call((&x,)), "undefined_in_scan", "scan_expr");
    let k = ScanKernel::new(
        "T x",
        "T y",
        "x",
        "a + b",
        "undefined_identity",
        "bad_ident",
    )
    .unwrap();
    assert_compile_error_in(k.call((&x,)), "undefined_identity", "identity");
    let k = sum().post_map("y = undefined_post");
    assert_compile_error_in(k.call((&x,)), "undefined_post", "post_map_expr");
    let k = sum().scan_type("NoSuchType");
    assert_compile_error_in(k.call((&x,)), "NoSuchType", "scan_type");
}

#[test]
fn hundred_million_running_max_and_sum_match_cumsum() {
    require_gpu!();
    skip_on_host!("1e8 elements");
    let n = 100_000_000usize;
    let x = Array::arange(0.0, n as f64, 1.0, DType::I32).unwrap();
    let k = ScanKernel::new("T x", "T y", "x", "a > b ? a : b", "0", "running_max_i").unwrap();
    let got = k.call((&x,)).unwrap();
    let tail = got.slice(&s![-3isize..]).unwrap().to_vec::<i32>().unwrap();
    let n32 = n as i32;
    assert_eq!(tail, vec![n32 - 3, n32 - 2, n32 - 1]);
    let i = Array::ones(&[n], DType::I32).unwrap();
    let c = sum().call((&i,)).unwrap();
    assert_eq!(
        c.slice(&s![-2isize..]).unwrap().to_vec::<i32>().unwrap(),
        vec![n32 - 1, n32]
    );
    let m = k
        .axis(Some(0))
        .call((&x.reshape(&[10_000, 10_000]).unwrap(),))
        .unwrap();
    assert_eq!(
        m.slice(&s![-1, ..3]).unwrap().to_vec::<i32>().unwrap(),
        vec![n32 - 10_000, n32 - 9_999, n32 - 9_998]
    );
}

/// Every form compiles for sm_90 without a warning about generated code: each operator
/// kind over several dtypes, inclusive and exclusive (in turn without a GPU), several inputs of different sizes, a
/// preamble struct of 4 and 8 bytes, a dtype-named accumulator.
#[test]
fn every_form_compiles_for_sm90() {
    require_nvrtc!();
    use cuprum::compile::compile_for_arch;
    let seg = |name: &str, pre: &str| {
        ScanKernel::new(
            "T x, bool f",
            "T y",
            "P{(decltype(P::v))x, f}",
            "b.f ? b : P{(decltype(P::v))(a.v + b.v), a.f}",
            "P{0, 0}",
            name,
        )
        .unwrap()
        .preamble(pre)
        .scan_type("P")
        .post_map("y = a.v")
    };
    let cases: Vec<(ScanKernel, Vec<DType>)> = vec![
        (running_max(), vec![DType::F32; 2]),
        (running_max(), vec![DType::F16; 2]),
        (sum(), vec![DType::I8; 2]),
        (sum(), vec![DType::C128; 2]),
        (sum(), vec![DType::BF16; 2]),
        (
            ScanKernel::new(
                "float32 x, bool m, T w",
                "float64 y",
                "m ? x * w : 0",
                "a + b",
                "0",
                "mixed",
            )
            .unwrap()
            .scan_type("float64"),
            vec![DType::F32, DType::Bool, DType::I64, DType::F64],
        ),
        (
            seg("seg8", "struct P { float v; bool f; };"),
            vec![DType::F32, DType::Bool, DType::F32],
        ),
        (
            seg("seg4", "struct P { short v; short f; };"),
            vec![DType::I16, DType::Bool, DType::I16],
        ),
    ];
    // Both forms of each case where a GPU is; without one (CI's two cores), each case in
    // one form, inclusive and exclusive in turn. The programs compile on every core.
    let every_form = common::has_gpu();
    let jobs: Vec<(&ScanKernel, &Vec<DType>, bool)> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, (k, dtypes))| {
            [false, true]
                .into_iter()
                .filter(move |&excl| every_form || usize::from(excl) == i % 2)
                .map(move |excl| (k, dtypes, excl))
        })
        .collect();
    common::on_every_core(&jobs, |&(k, dtypes, excl)| {
        let src = k.generated_source(dtypes, excl).unwrap();
        let opts = common::sweep_options().program_name(format!("{}.cu", k.name()));
        let img = compile_for_arch(&src, &opts, 90)
            .unwrap_or_else(|e| panic!("{} {dtypes:?} exclusive {excl}: {e}", k.name()));
        assert!(common::sweep_image_ok(&img), "{}", k.name());
        assert!(
            !img.log.contains("warning"),
            "{} {dtypes:?}: NVRTC warns:\n{}",
            k.name(),
            img.log
        );
    });
}

/// The same engine: a ScanKernel of `a + b` over float32 compiles to a module of the size
/// of `cumsum`'s float32 program (same entry points, same tiles; only names differ), the
/// compile-time side of "a + b at the speed of cumsum".
#[test]
fn sum_kernel_compiles_to_cumsums_module() {
    require_nvrtc!();
    use cuprum::compile::{CompileOptions, compile_for_arch};
    let ours = sum().generated_source(&[DType::F32; 2], false).unwrap();
    let (_, cumsum) = cuprum::internal::routine_sample_sources()
        .unwrap()
        .into_iter()
        .find(|(name, _)| name == "scan float32 sum")
        .unwrap();
    let size = |src: &str, name: &str| {
        let opts = CompileOptions::default().program_name(format!("{name}.cu"));
        compile_for_arch(src, &opts, 90).unwrap().image.len() as f64
    };
    let (a, b) = (size(&ours, "my_cumsum"), size(&cumsum, "cumsum"));
    assert!(
        (a / b - 1.0).abs() < 0.03,
        "ScanKernel {a} bytes, cumsum {b} bytes"
    );
}
