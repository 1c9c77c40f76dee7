//! Scans inside `cuprum::fuse` (`Var::cumsum`, `Var::cumprod`): plans (a ScanKernel whose
//! map is the element-wise work before the scan, the work after it a following kernel,
//! reductions and scans launched in dependency order), NumPy's result dtypes, errors at
//! the user's line, NVRTC compiles of the generated scan kernels for every dtype — and on
//! the GPU (the host device where there is none): fused results against the same
//! expressions through `ops` (unfused) and against a host model, on random non-zero inputs
//! of float32, float64 and int32 (bool, uint8, float16 too), odd sizes, 0-d, empty and
//! 1-element arrays, views, axis `None`, the last axis and axis 0 (each of the engine's
//! kernels: the tile scan, rows as segments, the axis scan, the column scan, the moved
//! axis), scalar arguments, and scans mixed with reductions.

mod common;

use common::Rng;
use common::numpy_model::V::{self, F, I};
use common::numpy_model::{close_v, host, magnitude, rand_signed, view_of, wrap};
use cuprum::compile::compile_for_arch;
use cuprum::fuse::{ArgSpec, Fused, KernelKind, fuse};
use cuprum::ops::Keepdims;
use cuprum::{Array, DType, DTypeKind, ErrorKind, ops};

fn arr(d: DType, shape: &[usize]) -> ArgSpec {
    ArgSpec::array(d, shape)
}

fn kinds(f: &Fused, args: &[ArgSpec]) -> Vec<KernelKind> {
    f.explain_for(args)
        .unwrap()
        .kernels()
        .iter()
        .map(|k| k.kind)
        .collect()
}

/// The brief's example: `(x * 2).cumsum(axis) + 1`, with literals of `d`'s kind (so an
/// integer input stays integer).
fn doubled_cumsum_plus_one(d: DType, axis: Option<isize>) -> Fused {
    if d.kind() == DTypeKind::Float {
        fuse("dcp1", move |[x]| (x * 2.0).cumsum(axis) + 1.0)
    } else {
        fuse("dcp1", move |[x]| (x * 2).cumsum(axis) + 1)
    }
}

// =========================================================================================
// 1. Plans, dtypes and errors (no GPU)
// =========================================================================================

#[test]
fn the_prologue_is_the_scans_map_and_the_epilogue_a_following_kernel() {
    let f = fuse("dcp1", |[x]| (x * 2.0).cumsum(None) + 1.0);
    let args = [arr(DType::F32, &[1000])];
    assert_eq!(
        kinds(&f, &args),
        [KernelKind::Scan, KernelKind::Elementwise]
    );
    let e = f.explain_for(&args).unwrap();
    let text = e.to_string();
    assert!(
        text.contains("kernel 0: ScanKernel cuprum_fuse_dcp1_0"),
        "{text}"
    );
    assert!(text.contains("map %2; scans %3"), "{text}");
    assert!(text.contains("%3 = cumsum(%2)"), "{text}");
    assert!(
        text.contains("one pass: the element-wise producers run in the scan's loads"),
        "{text}"
    );
    assert!(text.contains("cut after the scan"), "{text}");
    // The scan reads x once and writes its result once; the epilogue reads it back.
    assert_eq!(e.kernels()[0].bytes_read, 4000);
    assert_eq!(e.kernels()[0].bytes_written, 4000);
    let src = &e.kernels()[0].source;
    assert!(
        src.contains("cuprum_fuse_dcp1_0_map(") && src.contains("cuprum_scan_v"),
        "{src}"
    );
    assert_eq!(e.outputs(), &[(DType::F32, vec![1000])]);
}

#[test]
fn a_scan_of_an_argument_as_it_is_is_one_kernel() {
    let f = fuse("plain", |[x]| x.cumsum(Some(0)));
    let args = [arr(DType::I32, &[7, 5])];
    assert_eq!(kinds(&f, &args), [KernelKind::Scan]);
    let e = f.explain_for(&args).unwrap();
    assert!(e.to_string().contains("%1 = cumsum(%0, axis 0)"), "{e}");
    assert!(
        e.kernels()[0]
            .why
            .starts_with("one pass: a scan of the arrays as they are"),
        "{}",
        e.kernels()[0].why
    );
    assert_eq!(e.outputs(), &[(DType::I64, vec![7, 5])]);
}

#[test]
fn a_scalar_in_the_map_is_a_by_value_parameter() {
    let f = fuse("scaled", |[x, s]| (x * s).cumsum(None));
    let e = f
        .explain_for(&[arr(DType::F32, &[10]), ArgSpec::scalar(DType::F32)])
        .unwrap();
    let src = &e.kernels()[0].source;
    assert!(src.contains("const float _in1"), "{src}");
    assert!(!src.contains("const float* __restrict__ _in1"), "{src}");
    assert!(src.contains("const float* __restrict__ _in0"), "{src}");
}

#[test]
fn result_dtypes_and_shapes_follow_numpy() {
    let cases = [
        (DType::Bool, DType::I64),
        (DType::I8, DType::I64),
        (DType::I32, DType::I64),
        (DType::U8, DType::U64),
        (DType::U32, DType::U64),
        (DType::F16, DType::F16),
        (DType::BF16, DType::BF16),
        (DType::F32, DType::F32),
        (DType::F64, DType::F64),
        (DType::C64, DType::C64),
    ];
    for (d, want) in cases {
        let f = fuse("dt", |[x]| (x.cumsum(None), x.cumprod(Some(-1))));
        let e = f.explain_for(&[arr(d, &[2, 3, 4])]).unwrap();
        assert_eq!(e.outputs()[0], (want, vec![24]), "{d}");
        assert_eq!(e.outputs()[1], (want, vec![2, 3, 4]), "{d}");
    }
    // 0-d: flattened gives one element; empty stays empty.
    let f = fuse("zd", |[x]| x.cumsum(None));
    assert_eq!(
        f.explain_for(&[arr(DType::F64, &[])]).unwrap().outputs()[0],
        (DType::F64, vec![1])
    );
    assert_eq!(
        f.explain_for(&[arr(DType::F64, &[3, 0])])
            .unwrap()
            .outputs()[0],
        (DType::F64, vec![0])
    );
}

#[test]
fn kernels_launch_in_dependency_order() {
    // A reduction of a scan: the scan first.
    let f = fuse("red_of_scan", |[x]| {
        x.cumsum(Some(-1)).max_axis(-1, Keepdims::No)
    });
    let args = [arr(DType::F32, &[4, 100])];
    assert_eq!(kinds(&f, &args), [KernelKind::Scan, KernelKind::Reduction]);
    let e = f.explain_for(&args).unwrap();
    assert!(e.kernels()[1].why.contains("(scanned values)"), "{e}");
    // A scan of a reduced value used on the elements: the reduction first.
    let g = fuse("scan_of_centred", |[x]| (x - x.mean()).cumsum(None));
    assert_eq!(kinds(&g, &args), [KernelKind::Reduction, KernelKind::Scan]);
    let e = g.explain_for(&args).unwrap();
    assert!(
        e.kernels()[1].why.contains("cut before it: it reads %1"),
        "{e}"
    );
    // A scan of a scan, then element-wise work on both.
    let h = fuse("scan_of_scan", |[x]| {
        let a = x.cumsum(Some(0));
        let b = a.cumprod(Some(1));
        b - a
    });
    assert_eq!(
        kinds(&h, &args),
        [KernelKind::Scan, KernelKind::Scan, KernelKind::Elementwise]
    );
    // A scan and a reduction of the same elements: independent, both at depth one.
    let k = fuse("both", |[x]| (x.cumsum(None), x.sum()));
    let mut ks = kinds(&k, &args);
    ks.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(ks, [KernelKind::Reduction, KernelKind::Scan]);
}

#[test]
fn identical_scans_are_computed_once() {
    let f = fuse("cse", |[x]| x.cumsum(None) * x.cumsum(None));
    assert_eq!(
        kinds(&f, &[arr(DType::F32, &[10])]),
        [KernelKind::Scan, KernelKind::Elementwise]
    );
}

#[test]
fn scan_errors_point_at_the_users_line() {
    let line = line!() + 1;
    let f = fuse("bad_axis", |[x]| x.cumsum(Some(2)));
    let e = f.explain_for(&[arr(DType::F32, &[3, 4])]).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), ErrorKind::Shape, "{m}");
    assert!(m.contains(&format!("{}:{line}:", file!())), "{m}");
    assert!(m.contains("(cumsum)"), "{m}");
    assert!(
        m.ends_with("axis 2 is out of bounds for array of dimension 2"),
        "{m}"
    );
    // 0-d with an axis: NumPy's error too.
    let g = fuse("zd_axis", |[x]| x.cumprod(Some(0)));
    let e = g.explain_for(&[arr(DType::F32, &[])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape, "{e}");
    assert!(e.to_string().contains("(cumprod)"), "{e}");
    // A scan of scalars only.
    let line = line!() + 1;
    let h = fuse("scalars", |[s]| (s * 2.0).cumsum(None));
    let e = h.explain_for(&[ArgSpec::scalar(DType::F32)]).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{m}");
    assert!(m.contains(&format!("{}:{line}:", file!())), "{m}");
    assert!(
        m.ends_with("cumsum scans arrays, and this value is computed from scalars only"),
        "{m}"
    );
}

#[test]
fn scan_kernels_compile_for_sm90_for_every_dtype() {
    require_nvrtc!();
    // without a GPU (CI), the representative dtypes (`common::nvrtc_dtypes`), compiled to PTX
    // (`common::sweep_options`); a thread per dtype (NVRTC's compiles are independent)
    let dtypes = common::nvrtc_dtypes(&[
        DType::Bool,
        DType::I8,
        DType::I32,
        DType::U8,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ]);
    let opts = common::sweep_options();
    std::thread::scope(|sc| {
        for &d in &dtypes {
            let opts = &opts;
            sc.spawn(move || {
                let f = fuse("every", |[x, y, s]| {
                    ((x * y).cumsum(Some(-1)), (x + y * s).cumprod(None))
                });
                let e = f
                    .explain_for(&[arr(d, &[3, 40]), arr(d, &[40]), ArgSpec::scalar(d)])
                    .unwrap_or_else(|e| panic!("{d}: {e}"));
                for k in e.kernels() {
                    let img = compile_for_arch(&k.source, opts, 90).unwrap_or_else(|err| {
                        panic!("{d}: {} does not compile: {err}\n{}", k.name, k.source)
                    });
                    assert!(common::sweep_image_ok(&img), "{d}: {}", k.name);
                }
            });
        }
    });
}

// =========================================================================================
// 2. Results (GPU, or the host device)
// =========================================================================================

/// Random non-zero values of `d` (integers within ±100).
fn rand_vals(rng: &mut Rng, d: DType, n: usize) -> Vec<V> {
    (0..n)
        .map(|_| match d.kind() {
            DTypeKind::SignedInt | DTypeKind::UnsignedInt | DTypeKind::Bool => {
                let v = (rng.next_u64() % 199) as i128 - 99;
                I(if v == 0 { 1 } else { v })
            }
            _ => rand_signed(rng, d, 0.25, 4.0),
        })
        .collect()
}

/// Relative tolerance of dtype `d` (0: exact).
fn rel_tol(d: DType) -> f64 {
    match d {
        DType::F16 | DType::BF16 => 2e-2,
        DType::F32 | DType::C64 => 2e-5,
        DType::F64 | DType::C128 => 1e-12,
        _ => 0.0,
    }
}

/// `got` equals `want` (dtype, shape, values within `rel_tol × (1 + scale)`, `scale` the
/// largest magnitude a partial result can reach).
fn same(got: &Array, want: &Array, scale: f64, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}");
    assert_eq!(got.shape(), want.shape(), "{what}");
    let tol = rel_tol(want.dtype()) * (1.0 + scale);
    for (k, (g, w)) in host(got).into_iter().zip(host(want)).enumerate() {
        assert!(
            close_v(g, w, tol),
            "{what}: element {k} is {g:?}, want {w:?} (tolerance {tol})"
        );
    }
}

/// The host model of `(x * 2).cumsum(axis) + 1` over C-order values of `shape`, in f64
/// for floats and wrapping int64 for integers.
fn model(vals: &[V], shape: &[usize], axis: Option<usize>, int: bool) -> Vec<V> {
    let (outer, len, inner) = match axis {
        None => (1, vals.len(), 1),
        Some(a) => (
            shape[..a].iter().product(),
            shape[a],
            shape[a + 1..].iter().product(),
        ),
    };
    let mut out = vec![F(0.0); vals.len()];
    for o in 0..outer {
        for r in 0..inner {
            let (mut fi, mut ii) = (0.0f64, 0i128);
            for k in 0..len {
                let p = (o * len + k) * inner + r;
                out[p] = match vals[p] {
                    I(v) if int => {
                        ii = wrap(ii + 2 * v, DType::I64);
                        I(wrap(ii + 1, DType::I64))
                    }
                    F(v) => {
                        fi += 2.0 * v;
                        F(fi + 1.0)
                    }
                    other => panic!("no model for {other:?}"),
                };
            }
        }
    }
    out
}

/// The largest partial sum of magnitudes `2|x|` (the tolerance's scale).
fn scale_of(vals: &[V]) -> f64 {
    2.0 * vals.iter().map(|&v| magnitude(v)).sum::<f64>() + 1.0
}

/// The shapes and axes that reach each kernel of the engine: flattened (0-d, empty, one
/// element, odd sizes), the last axis (one row, rows as segments), axis 0 with ≥ 32
/// contiguous columns (the axis scan), with few columns and a short axis (the column
/// scan), with few columns and a long axis (moved last).
fn cases() -> Vec<(Vec<usize>, Option<isize>)> {
    vec![
        (vec![], None),
        (vec![0], None),
        (vec![3, 0], Some(-1)),
        (vec![0, 3], Some(0)),
        (vec![1], None),
        (vec![1], Some(0)),
        (vec![1001], None),
        (vec![8193], Some(-1)),
        (vec![7, 33], None),
        (vec![7, 33], Some(-1)),
        (vec![5, 3, 37], Some(-1)),
        (vec![5, 3, 37], Some(0)),
        (vec![300, 45], Some(0)),
        (vec![40, 3], Some(0)),
        (vec![100, 5], Some(0)),
        (vec![3, 100, 5], Some(1)),
    ]
}

#[test]
fn doubled_cumsum_plus_one_matches_ops_and_the_model() {
    require_gpu!();
    let mut rng = Rng::new(25);
    for (i, d) in [DType::F32, DType::F64, DType::I32].into_iter().enumerate() {
        for (c, (shape, axis)) in cases().into_iter().enumerate() {
            let n: usize = shape.iter().product();
            let vals = rand_vals(&mut rng, d, n);
            // Views too: reversed, stepped, transposed (the scan copies them once). On the
            // host device each case and dtype in one of them, in turn.
            for (v, view) in [0usize, 1, 3].into_iter().enumerate() {
                if !common::sweep_cell(c, 3 * i + v) {
                    continue;
                }
                let what = format!("{d} {shape:?} axis {axis:?} view {view}");
                let x = view_of(&vals, &shape, d, view);
                let f = doubled_cumsum_plus_one(d, axis);
                let got = f.call((&x,)).unwrap_or_else(|e| panic!("{what}: {e}"));
                let want = if d == DType::I32 {
                    ops::add(
                        ops::cumsum(&ops::multiply(&x, 2i32).unwrap(), axis).unwrap(),
                        1i32,
                    )
                } else {
                    ops::add(
                        ops::cumsum(&ops::multiply(&x, 2.0).unwrap(), axis).unwrap(),
                        1.0,
                    )
                }
                .unwrap();
                let scale = scale_of(&vals);
                same(&got, &want, scale, &what);
                let ax = axis.map(|a| if a < 0 { shape.len() - 1 } else { a as usize });
                let m = model(&vals, &shape, ax, d == DType::I32);
                let tol = rel_tol(d) * (1.0 + scale);
                for (k, (g, w)) in host(&got).into_iter().zip(m).enumerate() {
                    assert!(
                        close_v(g, w, tol),
                        "{what}: element {k} is {g:?}, model {w:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn cumprod_of_a_broadcast_product_matches_ops() {
    require_gpu!();
    let mut rng = Rng::new(7);
    for (i, d) in [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U8,
        DType::Bool,
        DType::F16,
    ]
    .into_iter()
    .enumerate()
    {
        for (j, (shape, axis)) in [
            (vec![5usize, 7], None),
            (vec![5, 7], Some(-1)),
            (vec![9, 33], Some(0)),
            (vec![9, 3], Some(0)),
        ]
        .into_iter()
        .enumerate()
        {
            let what = format!("{d} {shape:?} axis {axis:?}");
            let n: usize = shape.iter().product();
            let x = view_of(&rand_vals(&mut rng, d, n), &shape, d, 0);
            let row = shape[shape.len() - 1];
            let y = view_of(&rand_vals(&mut rng, d, row), &[row], d, 1);
            if !common::sweep_cell(i, j) {
                continue;
            }
            let f = fuse("prod_xy", move |[x, y]| (x * y).cumprod(axis));
            let got = f.call((&x, &y)).unwrap_or_else(|e| panic!("{what}: {e}"));
            let want = ops::cumprod(&ops::multiply(&x, &y).unwrap(), axis).unwrap();
            // Products grow: compare relative to each value.
            assert_eq!(got.shape(), want.shape(), "{what}");
            assert_eq!(got.dtype(), want.dtype(), "{what}");
            for (k, (g, w)) in host(&got).into_iter().zip(host(&want)).enumerate() {
                let tol = rel_tol(want.dtype()) * 4.0 * (1.0 + magnitude(w));
                assert!(
                    close_v(g, w, tol),
                    "{what}: element {k} is {g:?}, want {w:?}"
                );
            }
        }
    }
}

#[test]
fn scans_with_scalars_reductions_and_several_outputs_match_ops() {
    require_gpu!();
    let mut rng = Rng::new(11);
    let vals = rand_vals(&mut rng, DType::F64, 6 * 41);
    let x = view_of(&vals, &[6, 41], DType::F64, 0);
    let scale = scale_of(&vals);
    // A scalar argument in the map.
    let f = fuse("scaled", |[x, s]| (x * s).cumsum(Some(-1)));
    let got = f.call((&x, 0.5f64)).unwrap();
    let want = ops::cumsum(&ops::multiply(&x, 0.5f64).unwrap(), Some(-1)).unwrap();
    same(&got, &want, scale, "scalar argument");
    // A reduction of a scan, and a scan of a centred value.
    let g = fuse("red_of_scan", |[x]| {
        x.cumsum(Some(-1)).max_axis(-1, Keepdims::No)
    });
    let want = ops::max_axis(&ops::cumsum(&x, Some(-1)).unwrap(), -1, Keepdims::No).unwrap();
    same(&g.call((&x,)).unwrap(), &want, scale, "max of cumsum");
    let h = fuse("centred", |[x]| (x - x.mean()).cumsum(None));
    let centred = ops::subtract(&x, ops::mean(&x).unwrap()).unwrap();
    same(
        &h.call((&x,)).unwrap(),
        &ops::cumsum(&centred, None).unwrap(),
        scale,
        "cumsum of centred",
    );
    // Several outputs: the scan itself, work after it, and a reduction beside it.
    let k = fuse("three", |[x]| {
        let c = x.cumsum(Some(0));
        (c, c * 2.0 - x, x.sum())
    });
    let out = k.call_all((&x,)).unwrap();
    let c = ops::cumsum(&x, Some(0)).unwrap();
    same(&out[0], &c, scale, "cumsum output");
    let twice = ops::subtract(ops::multiply(&c, 2.0).unwrap(), &x).unwrap();
    same(&out[1], &twice, 2.0 * scale, "epilogue output");
    same(&out[2], &ops::sum(&x).unwrap(), scale, "sum beside");
    // A scan of a scan (axis 0, then the last axis).
    let m = fuse("twice", |[x]| x.cumsum(Some(0)).cumsum(Some(-1)));
    let want = ops::cumsum(&ops::cumsum(&x, Some(0)).unwrap(), Some(-1)).unwrap();
    same(
        &m.call((&x,)).unwrap(),
        &want,
        41.0 * scale,
        "cumsum of cumsum",
    );
}
