//! Per-device tuning (`cuprum::tuning`): every candidate of every tuned family (the scans',
//! the sorts', the compactions') runs against a CPU reference — a wrong candidate fails
//! here, not on a user's GPU — and the choosing rules (`CUPRUM_TUNE`, pinned choices, the
//! host device, reports). The candidates of one
//! accumulator size share a program, so each program pins one candidate of each family
//! (the i-th, cycling) and runs the four scans those families shape: flattened (tiles), rows
//! as segments, rows a block each, and a leading axis; each at sizes of several tiles with
//! a remainder. Float32 sums of small integers and int32 → int64 sums are exact, so results
//! compare exactly. GPU tests begin with `require_gpu!()` (the host device stands in where
//! there is no GPU).

mod common;

use common::Rng;
use common::routines_model::lanes;
use cuprum::tuning::{self, Family, Source};
use cuprum::{Array, DType, Device, ops, s};

/// The families whose name ends with `.{acc}`.
fn class(acc: &str) -> Vec<&'static Family> {
    tuning::families()
        .iter()
        .copied()
        .filter(|f| f.name.ends_with(&format!(".{acc}")))
        .collect()
}

/// Runs `f` with each family of `fams` pinned to its `i`-th candidate (cycling).
fn pin_all<R>(fams: &[&'static Family], i: usize, f: &mut dyn FnMut() -> R) -> R {
    match fams.split_first() {
        None => f(),
        Some((first, rest)) => {
            let c = first.candidates[i % first.candidates.len()];
            tuning::with_choice(first.name, c, || pin_all(rest, i, f))
        }
    }
}

/// The inclusive sums of `v` (C order, `shape`) along `axis` (`None`: flattened), lane by
/// lane (`routines_model::lanes`).
fn host_cumsum(v: &[i64], shape: &[usize], axis: Option<usize>) -> Vec<i64> {
    let (shape, axis) = match axis {
        None => (vec![v.len()], 0),
        Some(a) => (shape.to_vec(), a),
    };
    let mut out = vec![0; v.len()];
    for lane in lanes(&shape, axis) {
        let mut acc = 0i64;
        for p in lane {
            acc += v[p];
            out[p] = acc;
        }
    }
    out
}

/// The four scans each candidate shapes: flattened, segments, rows kernel, leading axis.
const CASES: [(&[usize], Option<isize>); 4] = [
    (&[3 * 10240 + 17], None),
    (&[300, 70], Some(1)),
    (&[130, 2500], Some(1)),
    (&[300, 40], Some(0)),
];

/// Every candidate of the families of `acc`-byte accumulators, through `cumsum` of
/// `dtype` (values in `lo..hi`), against the host's sums.
fn every_candidate(acc: &str, dtype: DType, lo: f64, hi: f64) {
    let fams = class(acc);
    let most = fams.iter().map(|f| f.candidates.len()).max().unwrap();
    let mut rng = Rng::new(41);
    let inputs: Vec<(Vec<i64>, Array)> = CASES
        .iter()
        .map(|(shape, _)| {
            let n: usize = shape.iter().product();
            let v: Vec<i64> = (0..n).map(|_| rng.f64(lo, hi).floor() as i64).collect();
            let a = match dtype {
                DType::F32 => {
                    let f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
                    Array::from_slice(&f, shape).unwrap()
                }
                _ => {
                    let f: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                    Array::from_slice(&f, shape).unwrap()
                }
            };
            (v, a)
        })
        .collect();
    for i in 0..most {
        pin_all(&fams, i, &mut || {
            for ((shape, axis), (v, a)) in CASES.iter().zip(&inputs) {
                let want = host_cumsum(v, shape, axis.map(|x| x as usize));
                let got = ops::cumsum(a, *axis).unwrap();
                let got: Vec<i64> = match dtype {
                    DType::F32 => got
                        .to_vec::<f32>()
                        .unwrap()
                        .iter()
                        .map(|&x| x as i64)
                        .collect(),
                    _ => got.to_vec::<i64>().unwrap(),
                };
                let bad = got.iter().zip(&want).position(|(g, w)| g != w);
                assert!(
                    bad.is_none(),
                    "{dtype} {shape:?} axis {axis:?}, candidates #{i} of {:?}: first difference \
                     at {bad:?}",
                    fams.iter().map(|f| f.name).collect::<Vec<_>>()
                );
            }
        });
    }
}

/// The persistent kernel's candidates (a third value below 8) through `ScanKernel`s of one
/// array, whose stage copies are asynchronous too: a float32 running maximum (4-byte
/// accumulator) and a float64 running sum of small integers (8-byte, exact), each at sizes
/// of several tiles with a remainder and with inputs that start off the vector alignment.
#[test]
fn the_persistent_candidates_run_scan_kernels_of_one_array() {
    require_gpu!();
    let mut rng = Rng::new(43);
    let max = cuprum::ScanKernel::new("T x", "T y", "x", "a > b ? a : b", "-CUDART_INF_F", "pmax")
        .unwrap();
    let sum = cuprum::ScanKernel::new("float64 x", "float64 y", "x", "a + b", "0", "psum").unwrap();
    for (family, kernel) in [("scan.tile.4", &max), ("scan.tile.8", &sum)] {
        let fam = tuning::families()
            .iter()
            .find(|f| f.name == family)
            .unwrap();
        let staged: Vec<_> = fam.candidates.iter().filter(|c| c[2] < 8).collect();
        assert!(staged.len() >= 4, "{family}");
        for &&c in &staged {
            for n in [1usize, 4 * 10240 + 13, 70_001] {
                let v: Vec<f64> = (0..n + 1).map(|_| rng.f64(-50.0, 50.0).floor()).collect();
                let (got, want): (Vec<f64>, Vec<f64>) = tuning::with_choice(family, c, || {
                    // Aligned, then one element in (off the vector alignment).
                    let mut all = Vec::new();
                    for off in [0usize, 1] {
                        let part = &v[off..off + n];
                        let (a, want) = if family == "scan.tile.4" {
                            let f: Vec<f32> = part.iter().map(|&x| x as f32).collect();
                            let a = Array::from_slice(&f, &[n]).unwrap();
                            let mut m = f64::NEG_INFINITY;
                            let w: Vec<f64> = part
                                .iter()
                                .map(|&x| {
                                    m = m.max(x);
                                    m
                                })
                                .collect();
                            (a, w)
                        } else {
                            let a = Array::from_slice(part, &[n]).unwrap();
                            let mut t = 0.0;
                            let w: Vec<f64> = part
                                .iter()
                                .map(|&x| {
                                    t += x;
                                    t
                                })
                                .collect();
                            (a, w)
                        };
                        let a = if off == 1 {
                            let wide = Array::empty(&[n + 1], a.dtype()).unwrap();
                            let view = wide.slice(&cuprum::s![1..]).unwrap();
                            view.assign(&a).unwrap();
                            view
                        } else {
                            a
                        };
                        let y = kernel.call((&a,)).unwrap();
                        let y: Vec<f64> = match y.dtype() {
                            DType::F32 => y
                                .to_vec::<f32>()
                                .unwrap()
                                .iter()
                                .map(|&x| x as f64)
                                .collect(),
                            _ => y.to_vec::<f64>().unwrap(),
                        };
                        all.push((y, want));
                    }
                    all.into_iter()
                        .fold((Vec::new(), Vec::new()), |(mut g, mut w), (y, x)| {
                            g.extend(y);
                            w.extend(x);
                            (g, w)
                        })
                });
                assert_eq!(got, want, "{family} {c:?} n={n}");
            }
        }
    }
}

#[test]
fn every_candidate_of_the_4_byte_scans_sums_exactly() {
    require_gpu!();
    every_candidate("4", DType::F32, 0.0, 4.0);
}

#[test]
fn every_candidate_of_the_8_byte_scans_sums_exactly() {
    require_gpu!();
    every_candidate("8", DType::I32, -50.0, 50.0);
}

/// The narrow-input tiles (`scan.tile.8n`: inputs of 4 bytes or less into 8-byte
/// accumulators, some candidates keeping raw inputs through the look-back): each candidate
/// through `cumsum` and `cumprod` of int32, int8 and bool, flattened, at sizes of one
/// element, one tile and several tiles with a remainder, and from an input off the vector
/// alignment, against the host's (wrapping) sums and products; and the rows of 2-d int32
/// arrays (as segments and a block each), which run the candidate's vector width.
#[test]
fn every_candidate_of_the_narrow_scans_matches_the_host() {
    require_gpu!();
    let fam = tuning::families()
        .iter()
        .find(|f| f.name == "scan.tile.8n")
        .unwrap();
    assert!(fam.candidates.iter().any(|c| c[2] == 1));
    let mut rng = Rng::new(47);
    let sizes = [1usize, 255, 3 * 10240 + 17, 70_001];
    let cases: Vec<(Vec<i64>, Vec<Array>)> = sizes
        .iter()
        .map(|&n| {
            let v: Vec<i64> = (0..n + 1)
                .map(|_| rng.f64(-3.0, 4.0).floor() as i64)
                .collect();
            let i32s: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            let i8s: Vec<i8> = v.iter().map(|&x| x as i8).collect();
            let bools: Vec<bool> = v.iter().map(|&x| x > 0).collect();
            let arrays = vec![
                Array::from_slice(&i32s[..n], &[n]).unwrap(),
                Array::from_slice(&i32s, &[n + 1])
                    .unwrap()
                    .slice(&s![1..])
                    .unwrap(),
                Array::from_slice(&i8s[..n], &[n]).unwrap(),
                Array::from_slice(&bools[..n], &[n]).unwrap(),
            ];
            (v, arrays)
        })
        .collect();
    let host = |v: &[i64], prod: bool| -> Vec<i64> {
        let mut acc: i64 = if prod { 1 } else { 0 };
        v.iter()
            .map(|&x| {
                acc = if prod { acc.wrapping_mul(x) } else { acc + x };
                acc
            })
            .collect()
    };
    // (values, the int32 array, its axis)
    let rows: Vec<_> = CASES[1..3]
        .iter()
        .map(|&(shape, axis)| {
            let n: usize = shape.iter().product();
            let v: Vec<i64> = (0..n).map(|_| rng.f64(-9.0, 9.0).floor() as i64).collect();
            let i32s: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            (v, Array::from_slice(&i32s, shape).unwrap(), axis)
        })
        .collect();
    for &c in fam.candidates {
        tuning::with_choice(fam.name, c, || {
            for (v, a, axis) in &rows {
                let shape = a.shape();
                let got = ops::cumsum(a, *axis).unwrap().to_vec::<i64>().unwrap();
                let want = host_cumsum(v, shape, axis.map(|x| x as usize));
                let bad = got.iter().zip(&want).position(|(g, w)| g != w);
                assert!(
                    bad.is_none(),
                    "{c:?} {shape:?}: first difference at {bad:?}"
                );
            }
            for (v, arrays) in &cases {
                let n = arrays[0].size();
                let wants = [&v[..n], &v[1..], &v[..n]];
                for (k, a) in arrays.iter().enumerate() {
                    let vals: Vec<i64> = match k {
                        3 => v[..n].iter().map(|&x| i64::from(x > 0)).collect(),
                        _ => wants[k].to_vec(),
                    };
                    for prod in [false, true] {
                        let got = if prod {
                            ops::cumprod(a, None).unwrap()
                        } else {
                            ops::cumsum(a, None).unwrap()
                        };
                        assert_eq!(got.dtype(), DType::I64);
                        let got = got.to_vec::<i64>().unwrap();
                        let want = host(&vals, prod);
                        let bad = got.iter().zip(&want).position(|(g, w)| g != w);
                        assert!(
                            bad.is_none(),
                            "{c:?} n={n} input #{k} prod={prod}: first difference at {bad:?}"
                        );
                    }
                }
            }
        });
    }
}

#[test]
fn a_pinned_choice_outside_the_candidates_is_an_error() {
    require_gpu!();
    // A radix pass of 100 threads would leave digits without an owner: it never runs.
    let v: Vec<f32> = (0..100).map(|i| ((i * 37) % 100) as f32).collect();
    let a = Array::from_slice(&v, &[100]).unwrap();
    let err = tuning::with_choice("sort.keys4", [16, 4, 100], || ops::sort(&a, None)).unwrap_err();
    assert_eq!(err.kind(), cuprum::ErrorKind::InvalidArgument);
    let msg = err.to_string();
    assert!(
        msg.contains("sort.keys4")
            && msg.contains("given [16, 4, 100]")
            && msg.contains("[20, 3, 384]"),
        "{msg}"
    );
    // A candidate pinned the same way sorts.
    let got = tuning::with_choice("sort.keys4", [16, 4, 256], || ops::sort(&a, None)).unwrap();
    let want: Vec<f32> = (0..100).map(|i| i as f32).collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
}

#[test]
fn a_pinned_choice_is_reported_and_unpinned_after() {
    let d = Device::host();
    let pinned = tuning::with_choice("scan.rows.4", [4, 12, 0], || tuning::report(d).unwrap());
    let rows = pinned.iter().find(|c| c.family == "scan.rows.4").unwrap();
    assert_eq!((rows.params, rows.source), ([4, 12, 0], Source::Pinned));
    let after = tuning::report(d).unwrap();
    let rows = after.iter().find(|c| c.family == "scan.rows.4").unwrap();
    assert_eq!((rows.params, rows.source), ([8, 6, 0], Source::First));
    // A shape outside the family's candidates is not reported as the choice: the report
    // fails as a kernel built under that pin would.
    let err = tuning::with_choice("scan.rows.4", [4, 13, 0], || tuning::report(d)).unwrap_err();
    assert_eq!(err.kind(), cuprum::ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("given [4, 13, 0]"), "{err}");
}

#[test]
fn the_host_device_measures_nothing() {
    let r = tuning::tune(Device::host(), Some("scan.tile")).unwrap();
    assert_eq!(r.len(), 3);
    for c in r {
        assert_eq!(c.source, Source::First);
        assert!(c.times_us.is_empty() && c.margin.is_none());
    }
}

#[test]
fn a_gpu_reports_a_choice_for_every_family() {
    if !common::gpu() || common::not_on_host("only a GPU's candidates are timed") {
        return;
    }
    let d = Device::current().unwrap();
    let r = tuning::report(d).unwrap();
    assert_eq!(r.len(), tuning::families().len());
    for c in &r {
        let f = tuning::families()
            .iter()
            .find(|f| f.name == c.family)
            .unwrap();
        assert!(f.candidates.contains(&c.params), "{c:?}");
    }
    // Measuring one family picks its fastest candidate, with every time reported.
    let m = tuning::tune(d, Some("scan.axis.4")).unwrap();
    assert_eq!(m.len(), 1);
    let best = m[0]
        .times_us
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert_eq!(m[0].params, best.0);
    assert_eq!(m[0].source, Source::Measured);
    assert!(m[0].margin.is_some_and(|x| x >= 0.0));
}

/// Runs `check` with each candidate of the family `name` pinned in turn.
fn each_candidate(name: &str, check: &mut dyn FnMut(&str)) {
    let fam = tuning::families()
        .iter()
        .copied()
        .find(|f| f.name == name)
        .unwrap();
    for &c in fam.candidates {
        tuning::with_choice(fam.name, c, || check(&format!("{name} {c:?}")));
    }
}

/// Small integers as floats (many equal keys, so a stable order is tested), a few NaNs
/// and signed zeros; longer than three of the largest tiles (256 x 32) and not a multiple
/// of any.
fn sort_keys(rng: &mut Rng) -> Vec<f64> {
    (0..3 * 256 * 32 + 17)
        .map(|i| match i % 997 {
            5 => f64::NAN,
            6 => -0.0,
            _ => rng.f64(-60.0, 60.0).floor(),
        })
        .collect()
}

/// NumPy's order (NaNs last; -0.0 equal to 0.0), stable.
fn host_argsort(v: &[f64]) -> Vec<i64> {
    let mut idx: Vec<i64> = (0..v.len() as i64).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (v[a as usize], v[b as usize]);
        match (x.is_nan(), y.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => x.partial_cmp(&y).unwrap(),
        }
    });
    idx
}

/// Sorted values compared as NumPy prints them (every NaN equal, -0.0 equal to 0.0).
fn same_sorted(got: &[f64], want: &[f64]) -> Option<usize> {
    got.iter()
        .zip(want)
        .position(|(g, w)| !(g == w || (g.is_nan() && w.is_nan())))
}

#[test]
fn every_candidate_of_the_sorts_orders_as_numpy() {
    require_gpu!();
    let mut rng = Rng::new(7);
    let v = sort_keys(&mut rng);
    let order = host_argsort(&v);
    let want: Vec<f64> = order.iter().map(|&i| v[i as usize]).collect();
    let f32s: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    let ints: Vec<i64> = v
        .iter()
        .map(|&x| if x.is_nan() { 99 } else { x as i64 })
        .collect();
    let int_order = host_argsort(&ints.iter().map(|&x| x as f64).collect::<Vec<_>>());
    let a32 = Array::from_slice(&f32s, &[v.len()]).unwrap();
    let a64 = Array::from_slice(&v, &[v.len()]).unwrap();
    let i16s: Vec<i16> = ints.iter().map(|&x| x as i16).collect();
    let a16 = Array::from_slice(&i16s, &[v.len()]).unwrap();
    let a_i64 = Array::from_slice(&ints, &[v.len()]).unwrap();
    let i32s: Vec<i32> = ints.iter().map(|&x| x as i32).collect();
    let a_i32 = Array::from_slice(&i32s, &[v.len()]).unwrap();
    each_candidate("sort.keys4", &mut |what| {
        let got: Vec<f64> = ops::sort(&a32, None)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&x| f64::from(x))
            .collect();
        assert_eq!(same_sorted(&got, &want), None, "{what}: float32");
        let got = ops::sort(&a16, None).unwrap().to_vec::<i16>().unwrap();
        let w: Vec<i16> = int_order.iter().map(|&i| i16s[i as usize]).collect();
        assert_eq!(got, w, "{what}: int16");
    });
    each_candidate("sort.keys4.values", &mut |what| {
        let got = ops::argsort(&a32, None).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(got, order, "{what}: float32 argsort");
        let vals = Array::from_slice(&(0..v.len() as u32).collect::<Vec<_>>(), &[v.len()]).unwrap();
        let (_, by) = ops::sort_by_key(&a_i32, &vals).unwrap();
        let by: Vec<i64> = by
            .to_vec::<u32>()
            .unwrap()
            .iter()
            .map(|&x| i64::from(x))
            .collect();
        assert_eq!(by, int_order, "{what}: sort_by_key");
    });
    each_candidate("sort.keys8", &mut |what| {
        let got = ops::sort(&a64, None).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(same_sorted(&got, &want), None, "{what}: float64");
        let got = ops::sort(&a_i64, None).unwrap().to_vec::<i64>().unwrap();
        let w: Vec<i64> = int_order.iter().map(|&i| ints[i as usize]).collect();
        assert_eq!(got, w, "{what}: int64");
    });
    each_candidate("sort.keys8.values", &mut |what| {
        let got = ops::argsort(&a64, None).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(got, order, "{what}: float64 argsort");
        let got = ops::argsort(&a_i64, None).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(got, int_order, "{what}: int64 argsort");
    });
}

#[test]
fn every_candidate_of_the_compactions_selects_as_numpy() {
    require_gpu!();
    let mut rng = Rng::new(11);
    // Longer than three of the longest runs (8 tiles of 4096) and not a multiple of any.
    let n = 3 * 8 * 4096 + 18;
    let flags: Vec<bool> = (0..n).map(|_| rng.f64(0.0, 1.0) < 0.4).collect();
    let vals: Vec<f64> = (0..n).map(|_| rng.f64(-1e3, 1e3).floor()).collect();
    let m = Array::from_slice(&flags, &[n]).unwrap();
    let want_pos: Vec<i64> = (0..n as i64).filter(|&i| flags[i as usize]).collect();
    let want_vals: Vec<f64> = want_pos.iter().map(|&i| vals[i as usize]).collect();
    let f32s: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
    let u8s: Vec<u8> = vals.iter().map(|&v| v as i64 as u8).collect();
    let x32 = Array::from_slice(&f32s, &[n]).unwrap();
    let x64 = Array::from_slice(&vals, &[n]).unwrap();
    let x8 = Array::from_slice(&u8s, &[n]).unwrap();
    // `x[mask]` (`masked(..).get()`) runs the values' kernel; `ops::compress` does not (it
    // gathers at `nonzero`'s positions).
    let select = |m: &Array, x: &Array| x.masked(m).get().unwrap();
    each_candidate("compact.values", &mut |what| {
        let got = select(&m, &x32).to_vec::<f32>().unwrap();
        let w: Vec<f32> = want_vals.iter().map(|&v| v as f32).collect();
        assert_eq!(got, w, "{what}: float32");
        let got = select(&m, &x64).to_vec::<f64>().unwrap();
        assert_eq!(got, want_vals, "{what}: float64");
        let got = select(&m, &x8).to_vec::<u8>().unwrap();
        let w: Vec<u8> = want_pos.iter().map(|&i| u8s[i as usize]).collect();
        assert_eq!(got, w, "{what}: uint8");
        // Off the vector alignment (the scalar kernel; its ring copies 4 bytes at a time),
        // and 16 elements in (aligned, the runs shifted against the allocation).
        for k in [1isize, 16] {
            let (mk, xk) = (m.slice(&s![k..]).unwrap(), x32.slice(&s![k..]).unwrap());
            let got = select(&mk, &xk).to_vec::<f32>().unwrap();
            let w: Vec<f32> = (k as usize..n)
                .filter(|&i| flags[i])
                .map(|i| vals[i] as f32)
                .collect();
            assert_eq!(got, w, "{what}: float32 from element {k}");
        }
    });
    let m2 = m.reshape(&[(n / 7) as isize, 7]).unwrap(); // n is a multiple of 7
    each_candidate("compact.nonzero", &mut |what| {
        let got = ops::nonzero(&m).unwrap();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), want_pos, "{what}: 1-D");
        let got = ops::nonzero(&m2).unwrap();
        let rows: Vec<i64> = want_pos.iter().map(|&p| p / 7).collect();
        let cols: Vec<i64> = want_pos.iter().map(|&p| p % 7).collect();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), rows, "{what}: 2-D rows");
        assert_eq!(got[1].to_vec::<i64>().unwrap(), cols, "{what}: 2-D columns");
    });
}

/// The values of a complex64 or float32 array as (re, im) pairs in float64.
fn complex_values(a: &Array) -> Vec<(f64, f64)> {
    match a.dtype() {
        DType::C64 => a
            .to_vec::<num_complex::Complex32>()
            .unwrap()
            .into_iter()
            .map(|c| (c.re.into(), c.im.into()))
            .collect(),
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|x| (x.into(), 0.0))
            .collect(),
        other => panic!("complex_values: {other}"),
    }
}

/// `got` against `want` (the host device's rustfft), within single precision's error of a
/// transform of `points` values (relative to the largest magnitude).
fn assert_transform_close(got: &Array, want: &Array, points: usize, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (complex_values(got), complex_values(want));
    let scale = w.iter().map(|c| c.0.hypot(c.1)).fold(1.0, f64::max);
    let tol = 2e-6 * scale * (points as f64).log2();
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        let d = (x.0 - y.0).hypot(x.1 - y.1);
        assert!(
            d <= tol,
            "{what}: element {i}: got {x:?}, want {y:?} (tolerance {tol:e})"
        );
    }
}

#[test]
fn every_candidate_of_the_fft_column_pass_transforms_as_numpy() {
    use cuprum::ops::fft::{self, Norm};
    require_gpu!();
    let mut rng = Rng::new(17);
    // Column lengths the pass takes (512 to 8192: clusters of 2 to 8 blocks of each share)
    // and one it does not; widths below, at and off the 16 columns of a cluster; a batch.
    let shapes: [&[usize]; 7] = [
        &[512, 33],
        &[1024, 16],
        &[2048, 17],
        &[4096, 40],
        &[8192, 5],
        &[3, 2048, 20],
        &[1000, 18],
    ];
    let host = Device::host();
    for shape in shapes {
        let n: usize = shape.iter().product();
        let points: usize = shape[shape.len() - 2..].iter().product();
        let re: Vec<f32> = (0..n).map(|_| rng.f64(-1.0, 1.0) as f32).collect();
        let z: Vec<num_complex::Complex32> = (0..n)
            .map(|_| {
                num_complex::Complex32::new(rng.f64(-1.0, 1.0) as f32, rng.f64(-1.0, 1.0) as f32)
            })
            .collect();
        let x = Array::from_slice(&re, shape).unwrap();
        let c = Array::from_slice(&z, shape).unwrap();
        let (xh, ch) = (x.to_device(host).unwrap(), c.to_device(host).unwrap());
        let axes = [-2isize, -1];
        let want_f = fft::fft2(&ch, None, &axes, Norm::Backward).unwrap();
        let want_i = fft::ifft2(&ch, None, &axes, Norm::Backward).unwrap();
        let want_r = fft::rfft2(&xh, None, &axes, Norm::Backward).unwrap();
        // A spectrum with the symmetry of a real signal's (a C2R plan reads only that).
        let half = want_r.to_device(c.device()).unwrap();
        let want_ir = fft::irfft2(&want_r, None, &axes, Norm::Ortho).unwrap();
        each_candidate("fft.columns", &mut |what| {
            let what = format!("{what} {shape:?}");
            let got = fft::fft2(&c, None, &axes, Norm::Backward).unwrap();
            assert_transform_close(&got, &want_f, points, &format!("{what}: fft2"));
            let got = fft::ifft2(&c, None, &axes, Norm::Backward).unwrap();
            assert_transform_close(&got, &want_i, points, &format!("{what}: ifft2"));
            let got = fft::rfft2(&x, None, &axes, Norm::Backward).unwrap();
            assert_transform_close(&got, &want_r, points, &format!("{what}: rfft2"));
            let got = fft::irfft2(&half, None, &axes, Norm::Ortho).unwrap();
            assert_transform_close(&got, &want_ir, points, &format!("{what}: irfft2"));
        });
    }
}
