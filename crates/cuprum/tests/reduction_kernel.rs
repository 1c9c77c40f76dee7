//! Integration tests of ReductionKernel: CuPy's examples (sum of squares, l2 norm, weighted
//! mean, mean squared error), property tests over random views (transposed, stepped,
//! reversed, broadcast), random axes and keepdims against a host reduction, each launch
//! strategy explicitly (full reductions split over many blocks, long and short groups with
//! the reduced axes contiguous or strided, several reduced axes), determinism, every dtype,
//! the semantics of identities, empty reductions and empty outputs, outputs given by the
//! caller, several outputs, `_J` / `_i` / `_in_ind` / `_out_ind`, raw, scalar and
//! `_non_const` parameters, struct accumulators (weighted mean, argmax), 0-d inputs, CuPy's
//! validation errors, compile errors, streams and threads, and reductions over more than
//! 2^31 bytes and elements.
//!
//! Every GPU result is compared with a host reduction in f64 of random non-zero inputs:
//! exactly for integers and max/min, and for floating-point sums within a bound on the
//! rounding error of any summation order (the GPU adds in another order than the host,
//! whose reference is a compensated sum). GPU tests begin with `require_gpu!()`: without a
//! GPU they print a SKIPPED line and return (`CUPRUM_REQUIRE_GPU=1` makes that a failure).
//! The tests of errors found before any GPU work (construction, argument count) and of the
//! generated source need no GPU and run everywhere.

mod common;
// The examples' seed kernels (`l2norm`), defined once.
#[path = "../../../examples/seeds/mod.rs"]
mod seeds;

use common::views::{c_order, make_view, out_recipe, own_shape, view_recipe};
use common::{
    Rng, assert_compile_error_in, assert_err, assert_type_mismatch, dev, gpu_proptest_runner, nz,
    picked_axes, rand_f64,
};
use cuprum::kernel::{Axes, IntoOperand, Operand, ReductionCall};
use cuprum::{
    Array, CompileOptions, DType, Element, ElementwiseKernel, ErrorKind, ReductionKernel, Scalar,
    Stream, s,
};
use half::{bf16, f16};
use num_complex::Complex;
use proptest::prelude::*;

// =========================================================================================
// Host-side helpers
// =========================================================================================

/// A compensated (Neumaier) sum: the host reference, accurate to about one rounding.
fn nsum(vals: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for v in vals {
        let t = s + v;
        if s.abs() >= v.abs() {
            c += (s - t) + v;
        } else {
            c += (v - t) + s;
        }
        s = t;
    }
    s + c
}

/// Which axes of an `nd`-dimensional input an `axis` argument reduces (`None`: all).
fn reduced_mask(nd: usize, axes: Option<&[isize]>) -> Vec<bool> {
    match axes {
        None => vec![true; nd],
        Some(a) => {
            let mut m = vec![false; nd];
            for &ax in a {
                let k = if ax < 0 { ax + nd as isize } else { ax };
                m[k as usize] = true;
            }
            m
        }
    }
}

/// The output shape of a reduction of `shape` over the `reduced` axes.
fn out_shape(shape: &[usize], reduced: &[bool], keepdims: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(reduced)
        .filter_map(|(&d, &r)| match (r, keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// The mapped values of every output's reduction group: outputs in C order over the kept
/// axes, each group in `_J` order (C order over the reduced axes). `f` gets each loop index
/// in C order.
fn groups(shape: &[usize], reduced: &[bool], mut f: impl FnMut(&[usize]) -> f64) -> Vec<Vec<f64>> {
    let nd = shape.len();
    let mut ost = vec![0usize; nd];
    let mut o = 1usize;
    for d in (0..nd).rev() {
        if !reduced[d] {
            ost[d] = o;
            o *= shape[d];
        }
    }
    let mut g = vec![Vec::new(); o];
    if shape.contains(&0) {
        return g;
    }
    let mut idx = vec![0usize; nd];
    loop {
        let lin: usize = idx.iter().zip(&ost).map(|(i, s)| i * s).sum();
        g[lin].push(f(&idx));
        let mut d = nd;
        loop {
            if d == 0 {
                return g;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Groups of the C-order values `vals` of an array of `shape`.
fn groups_of(shape: &[usize], reduced: &[bool], vals: &[f64]) -> Vec<Vec<f64>> {
    assert_eq!(vals.len(), shape.iter().product::<usize>());
    let mut n = 0;
    groups(shape, reduced, |_| {
        n += 1;
        vals[n - 1]
    })
}

fn map_groups(g: &[Vec<f64>], f: impl Fn(f64) -> f64) -> Vec<Vec<f64>> {
    g.iter()
        .map(|v| v.iter().map(|&a| f(a)).collect())
        .collect()
}

/// The first output whose sum is off by more than `rel` times the sum of its terms'
/// magnitudes (a bound on the rounding of any summation order of short enough chains).
fn sum_mismatch(got: &[f64], groups: &[Vec<f64>], rel: f64) -> Option<String> {
    if got.len() != groups.len() {
        return Some(format!("{} outputs, expected {}", got.len(), groups.len()));
    }
    for (i, (g, vals)) in got.iter().zip(groups).enumerate() {
        let want = nsum(vals.iter().copied());
        let scale: f64 = vals.iter().map(|v| v.abs()).sum();
        let ok = (g - want).abs() <= rel * scale;
        if !ok {
            return Some(format!(
                "output {i}: got {g}, want {want} (sum of |terms| {scale}, {} terms)",
                vals.len()
            ));
        }
    }
    None
}

/// The first output whose maximum differs from the host's (exact).
fn max_mismatch(got: &[f64], groups: &[Vec<f64>]) -> Option<String> {
    if got.len() != groups.len() {
        return Some(format!("{} outputs, expected {}", got.len(), groups.len()));
    }
    for (i, (g, vals)) in got.iter().zip(groups).enumerate() {
        let want = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if *g != want {
            return Some(format!(
                "output {i}: got {g}, want {want} ({} terms)",
                vals.len()
            ));
        }
    }
    None
}

// =========================================================================================
// Kernels shared by the tests
// =========================================================================================

/// A plain sum: `x` of `ins` summed from 0 into `y` of `outs`.
fn sum_kernel(ins: &str, outs: &str, name: &str) -> ReductionKernel {
    ReductionKernel::new(ins, outs, "x", "a + b", "y = a", Some("0"), name).unwrap()
}

/// CuPy's `sum_of_squares`.
fn ssq_kernel(name: &str) -> ReductionKernel {
    ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), name).unwrap()
}

/// CuPy's `sum_of_squares`, with and without dimension merging.
fn ssq_kernels(name: &str) -> [ReductionKernel; 2] {
    [ssq_kernel(name), ssq_kernel(name).reduce_dims(false)]
}

/// The dot product `z` of `x` and `y`.
fn dot_kernel(name: &str) -> ReductionKernel {
    ReductionKernel::new(
        "T x, T y",
        "T z",
        "x * y",
        "a + b",
        "z = a",
        Some("0"),
        name,
    )
    .unwrap()
}

/// Maximum without an identity, with and without dimension merging.
fn max_kernels(name: &str) -> [ReductionKernel; 2] {
    let k =
        || ReductionKernel::new("T x", "T y", "x", "a > b ? a : b", "y = a", None, name).unwrap();
    [k(), k().reduce_dims(false)]
}

/// Checks reductions along each axis of the (r, c) array `x`: `row_k` over axis 1 against
/// `rows`, `col_k` over axis 0 and over axis 1 of the transpose against `cols`.
#[track_caller]
fn assert_rows_and_cols<T: Element + PartialEq + std::fmt::Debug>(
    row_k: &ReductionKernel,
    col_k: &ReductionKernel,
    x: &Array,
    rows: &[T],
    cols: &[T],
) {
    assert_eq!(
        row_k.axis(1).call((x,)).unwrap().to_vec::<T>().unwrap(),
        rows
    );
    assert_eq!(
        col_k.axis(0).call((x,)).unwrap().to_vec::<T>().unwrap(),
        cols
    );
    assert_eq!(
        col_k
            .axis(1)
            .call((&x.t(),))
            .unwrap()
            .to_vec::<T>()
            .unwrap(),
        cols
    );
}

/// The sum of the positive half-precision values `h` by `half_sum` (in their own type,
/// accumulated in float: within their rounding `ulp` of the exact sum) and by
/// `half_to_f32` (into float32).
#[track_caller]
fn check_half_sum<T: Element + Into<f64>>(
    half_sum: &ReductionKernel,
    half_to_f32: &ReductionKernel,
    h: &[T],
    ulp: f64,
    what: &str,
) {
    let n = h.len();
    let want = nsum(h.iter().map(|&v| v.into()));
    let x = dev(h, &[n]);
    let got = half_sum.call((&x,)).unwrap();
    assert_eq!(got.dtype(), T::DTYPE);
    let got: f64 = got.to_vec::<T>().unwrap()[0].into();
    assert!(
        (got - want).abs() <= want * (ulp + 2e-5),
        "{what} n={n}: {got} vs {want}"
    );
    let got = half_to_f32.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0] as f64;
    assert!(
        (got - want).abs() <= want * 2e-5,
        "{what} -> f32 n={n}: {got} vs {want}"
    );
}

/// A call of `k` over `axes` (all when `None`).
fn over<'k>(k: &'k ReductionKernel, axes: Option<&[isize]>, keepdims: bool) -> ReductionCall<'k> {
    let c = k.keepdims(keepdims);
    match axes {
        Some(a) => c.axis(a),
        None => c,
    }
}

/// Fills a new float array on the GPU with a hash of the element index mapped to
/// `[lo, hi)` (fast for big arrays; the host reads the values back for its reference).
fn hash_fill(shape: &[usize], dtype: DType, lo: f64, hi: f64, seed: u64) -> Array {
    let fill = ElementwiseKernel::new(
        "float64 lo, float64 hi, uint64 seed",
        "T x",
        "unsigned long long h = ((unsigned long long)i + seed * 0x632BE59BD9B4E019ull) * 0x9E3779B97F4A7C15ull; \
         h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29; \
         const double u = (double)(h >> 11) * (1.0 / 9007199254740992.0); \
         x = (T)(lo + (hi - lo) * u)",
        "hash_fill",
    )
    .unwrap();
    let x = Array::empty(shape, dtype).unwrap();
    fill.run((lo, hi, seed, &x)).unwrap();
    x
}

/// Sum of squares and max of a float64 view over `axes` (both kernels of each, with and
/// without keepdims) against the host, from the view's C-order values.
fn check_view(
    ssq: &[ReductionKernel; 2],
    mx: &[ReductionKernel; 2],
    what: &str,
    x: &Array,
    axes: Option<&[isize]>,
) {
    let vals = x.to_vec::<f64>().unwrap();
    let shape = x.shape().to_vec();
    let red = reduced_mask(shape.len(), axes);
    let g = groups_of(&shape, &red, &vals);
    let sq = map_groups(&g, |v| v * v);
    let r: usize = shape
        .iter()
        .zip(&red)
        .filter(|(_, r)| **r)
        .map(|(d, _)| d)
        .product();
    for (which, (s, m)) in ssq.iter().zip(mx).enumerate() {
        let ctx = format!(
            "{what}: shape {shape:?} strides {:?} axes {axes:?} reduce_dims={}",
            x.strides(),
            which == 0
        );
        for keepdims in [false, true] {
            let y = over(s, axes, keepdims).call((x,)).unwrap();
            assert_eq!(
                y.shape(),
                &out_shape(&shape, &red, keepdims)[..],
                "{ctx} keepdims={keepdims}"
            );
            assert_eq!(y.dtype(), DType::F64);
            if let Some(d) = sum_mismatch(&y.to_vec::<f64>().unwrap(), &sq, 1e-12) {
                panic!("{ctx} keepdims={keepdims}: sum of squares: {d}");
            }
        }
        if r > 0 {
            let y = over(m, axes, false).call((x,)).unwrap();
            if let Some(d) = max_mismatch(&y.to_vec::<f64>().unwrap(), &g) {
                panic!("{ctx}: max: {d}");
            }
        }
    }
}

// =========================================================================================
// Construction and validation before any GPU work (run everywhere)
// =========================================================================================

#[test]
fn construction_errors_match_cupy() {
    let new = |ins: &str, outs: &str, name: &str| {
        ReductionKernel::new(ins, outs, "x", "a + b", "y = a", Some("0"), name)
    };
    for bad in ["bad name", "1k", "", "k-1", "k()", "k\n"] {
        let e = new("T x", "T y", bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}");
        assert_eq!(e.to_string(), format!("Invalid kernel name: \"{bad}\""));
    }
    // fewer than two tokens in an item (a trailing comma too)
    let e = new("float32 x,", "float32 y", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "Syntax error: ");
    let e = new("float32 x", "y", "k").unwrap_err();
    assert_eq!(e.to_string(), "Syntax error: y");
    // modifiers other than raw and _non_const
    let e = new("float32 x", "foo T y", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "Unknown keyword \"foo\"");
    let e = new("const T x", "T y", "k").unwrap_err();
    assert_eq!(e.to_string(), "Unknown keyword \"const\"");
    // unknown dtype names
    let e = new("floaty x", "T y", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .starts_with("data type 'floaty' not understood"),
        "{e}"
    );
    let e = new("T x", "int128 y", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.to_string().contains("'int128'"), "{e}");
    let reserved = |ins: &str, outs: &str, name: &str| {
        let e = new(ins, outs, "k").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{ins} -> {outs}");
        assert!(
            e.to_string()
                .starts_with(&format!("Can not use '{name}' as a parameter name")),
            "{e}"
        );
    };
    // names starting with `_` are the generated code's
    for (ins, outs, name) in [
        ("T _x", "T y", "_x"),
        ("T x", "T _y", "_y"),
        ("T x, raw T _w", "T y", "_w"),
        ("T x, float64 _J", "T y", "_J"),
        ("T _i", "T y", "_i"),
    ] {
        reserved(ins, outs, name);
    }
    // `a` and `b` are the reduce_expr's and post_map_expr's
    for (ins, outs, name) in [
        ("T a", "T y", "a"),
        ("T x", "T b", "b"),
        ("T x, T b", "T y", "b"),
        ("T x, raw T a", "T y", "a"),
    ] {
        reserved(ins, outs, name);
    }
    // a name used twice in one list
    let e = new("T x, T x", "T y", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("more than once"), "{e}");
    // a name in both lists: read-write makes no sense for a reduction (the output has the
    // reduced shape), so it is refused with the reason
    let e = new("T x", "T x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "ReductionKernel 'k': 'x' is both an input and an output; a reduction's output has the \
         reduced shape, so it cannot be the input array written in place (ElementwiseKernel \
         allows this): give the output another name"
    );
    // no outputs
    let e = new("T x", "", "no_out").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("needs at least one output parameter"),
        "{e}"
    );
    // `i` is allowed here (ElementwiseKernel forbids it)
    let k = new("T i", "T y", "i_ok").unwrap();
    assert_eq!((k.name(), k.nin(), k.nout()), ("i_ok", 1, 1));
    // expressions are not checked before the first call
    let k = ReductionKernel::new(
        "T x, raw U w, float64 s, _non_const int8 q",
        "T y, int64 n",
        "not C++ at all",
        "neither",
        "nor this",
        None,
        "lazy_red",
    )
    .unwrap();
    assert_eq!((k.name(), k.nin(), k.nout()), ("lazy_red", 4, 2));
    // the builders keep the definition
    let k = k
        .reduce_type("double")
        .preamble("// nothing")
        .option("-DX=1")
        .options(CompileOptions::new().option("-DY=2"))
        .reduce_dims(false);
    assert_eq!((k.name(), k.nin(), k.nout()), ("lazy_red", 4, 2));
}

#[test]
fn argument_count_is_checked_before_any_gpu_work() {
    let k = sum_kernel("T x", "T y", "sum_k");
    let e = k.call((1.0f32, 2.0f32, 3.0f32)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'sum_k'. It must be either 1 or 2 (with outputs), but given 3."
    );
    let e = k.call(()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'sum_k'. It must be either 1 or 2 (with outputs), but given 0."
    );
    let e = k.call_all((1.0f32, 2.0f32, 3.0f32)).unwrap_err();
    assert!(e.to_string().ends_with("but given 3."), "{e}");
    let e = k
        .axis(0)
        .keepdims(true)
        .call((1.0f32, 2.0f32, 3.0f32))
        .unwrap_err();
    assert!(e.to_string().ends_with("but given 3."), "{e}");
    let vals = [1.0f64, 2.0, 3.0, 4.0];
    let ops: Vec<Operand<'_>> = vals.iter().map(|a| a.operand()).collect();
    let e = k.keepdims(false).call_all(ops).unwrap_err();
    assert!(e.to_string().ends_with("but given 4."), "{e}");
    let k2 = ReductionKernel::new(
        "T x, T w",
        "T s, int64 n",
        "x * w",
        "a + b",
        "s = a; n = 0",
        Some("0"),
        "two_two",
    )
    .unwrap();
    let e = k2.call((1.0f64, 2.0f64, 3.0f64)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'two_two'. It must be either 2 or 4 (with outputs), but given 3."
    );
    let e = k2.call((1.0f64,)).unwrap_err();
    assert!(e.to_string().ends_with("but given 1."), "{e}");
}

/// Only kernels launched split over blocks carry the second stage (partials, ticket,
/// final combine); `generated_source` is the unsplit kind, and both compile.
#[test]
fn only_split_specialisations_carry_the_second_stage() {
    let k = seeds::reduction::l2norm_kernel().unwrap();
    let plain = k
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    // Sample strategies alternate: even ones split (32-bit), odd ones not (64-bit).
    let split =
        cuprum::internal::reduction_source_for_fuzzing(&k, &[DType::F32; 2], &[false; 2], 0)
            .unwrap();
    let unsplit =
        cuprum::internal::reduction_source_for_fuzzing(&k, &[DType::F32; 2], &[false; 2], 1)
            .unwrap();
    for (src, has) in [(&plain, false), (&split, true), (&unsplit, false)] {
        for piece in ["atomicAdd(&_counters", "_partials[", "__threadfence()"] {
            assert_eq!(src.contains(piece), has, "{piece:?} in:\n{src}");
        }
        // the parameters stay the same (the launch passes null scratch when unsplit)
        assert!(
            src.contains("_type_reduce* _partials, unsigned int* _counters)"),
            "{src}"
        );
        assert!(src.contains("POST_MAP(_s);"), "{src}");
    }
    if cuprum::compile::nvrtc().is_ok() {
        for src in [&plain, &split, &unsplit] {
            cuprum::compile::compile_for_arch(src, &cuprum::CompileOptions::new(), 90).unwrap();
        }
    }
}

#[test]
fn generated_source_holds_the_users_code() {
    let k = seeds::reduction::l2norm_kernel()
        .unwrap()
        .preamble("// my preamble 42");
    let src = k
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    for piece in [
        "#define REDUCE(a, b) (a + b)",
        "x * x",
        "y = sqrt(a)",
        "// my preamble 42",
        "typedef T _type_reduce;",
        "l2norm(",
        "_type_reduce(0)",
    ] {
        assert!(src.contains(piece), "{piece:?} missing from:\n{src}");
    }
    // the accumulator type: given, or the first output's C type
    let src = k
        .reduce_type("double")
        .generated_source(&[DType::F32; 2], &[false, false])
        .unwrap();
    assert!(src.contains("typedef double _type_reduce;"), "{src}");
    let k = ReductionKernel::new(
        "float32 x",
        "float64 y",
        "x",
        "a + b",
        "y = a",
        None,
        "conc",
    )
    .unwrap();
    let src = k
        .generated_source(&[DType::F32, DType::F64], &[false, false])
        .unwrap();
    assert!(src.contains("typedef double _type_reduce;"), "{src}");
    // without an identity the accumulator starts value-initialised
    assert!(src.contains("_type_reduce()"), "{src}");
    // one dtype and one scalar flag per parameter
    let e = k.generated_source(&[DType::F32], &[false]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

// =========================================================================================
// CuPy's examples
// =========================================================================================

#[test]
fn seed_examples() {
    require_gpu!();
    let ssq = ssq_kernel("sum_of_squares");
    // sum of squares of 1..5 = 55, in several dtypes
    let x = dev(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5]);
    let y = ssq.call((&x,)).unwrap();
    assert_eq!((y.shape(), y.dtype()), (&[] as &[usize], DType::F32));
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![55.0]);
    let y = ssq.axis(1).call((&x.reshape(&[1, 5]).unwrap(),)).unwrap();
    assert_eq!(y.shape(), &[1]);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![55.0]);
    let y = ssq.axis(0).call((&x.reshape(&[5, 1]).unwrap(),)).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![55.0]);
    let y = ssq.keepdims(true).call((&x,)).unwrap();
    assert_eq!(y.shape(), &[1]);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![55.0]);
    let y = ssq
        .call((&dev(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5]),))
        .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![55.0]);
    let y = ssq.call((&dev(&[1i32, 2, 3, 4, 5], &[5]),)).unwrap();
    assert_eq!(
        (y.dtype(), y.to_vec::<i32>().unwrap()),
        (DType::I32, vec![55])
    );
    let y = ssq.call((&dev(&[1i64, -2, 3, -4, 5], &[5]),)).unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), vec![55]);

    let mut rng = Rng::new(1);
    // l2 norm (CuPy's documentation example)
    let l2 = ReductionKernel::new(
        "float64 x",
        "float64 y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "l2norm",
    )
    .unwrap();
    let (r, c) = (7usize, 1003usize);
    let h = rand_f64(&mut rng, r * c);
    let m = dev(&h, &[r, c]);
    let y = l2.call((&m,)).unwrap();
    let want = nsum(h.iter().map(|v| v * v)).sqrt();
    let got = y.to_vec::<f64>().unwrap()[0];
    assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    let y = l2.axis(1).call((&m,)).unwrap();
    assert_eq!(y.shape(), &[r]);
    let got = y.to_vec::<f64>().unwrap();
    for i in 0..r {
        let want = nsum(h[i * c..(i + 1) * c].iter().map(|v| v * v)).sqrt();
        assert!(
            (got[i] - want).abs() <= 1e-12 * want,
            "row {i}: {} vs {want}",
            got[i]
        );
    }
    let y = l2.axis(-2).call((&m,)).unwrap();
    let got = y.to_vec::<f64>().unwrap();
    for j in 0..c {
        let want = nsum((0..r).map(|i| h[i * c + j] * h[i * c + j])).sqrt();
        assert!(
            (got[j] - want).abs() <= 1e-12 * want,
            "column {j}: {} vs {want}",
            got[j]
        );
    }

    // weighted mean: a struct accumulator from the preamble (sum of x*w and of w)
    let wmean = ReductionKernel::new(
        "T x, T w",
        "T y",
        "WSum(x * w, w)",
        "a + b",
        "y = a.xw / a.w",
        Some("0.0, 0.0"),
        "weighted_mean",
    )
    .unwrap()
    .reduce_type("WSum")
    .preamble(
        "struct WSum {\n\
           double xw, w;\n\
           __device__ WSum() : xw(0), w(0) {}\n\
           __device__ WSum(double xw_, double w_) : xw(xw_), w(w_) {}\n\
         };\n\
         __device__ __forceinline__ WSum operator+(const WSum& p, const WSum& q) {\n\
           return WSum(p.xw + q.xw, p.w + q.w);\n\
         }",
    );
    let (r, c) = (13usize, 7777usize);
    let hx = rand_f64(&mut rng, r * c);
    let hw: Vec<f64> = (0..r * c).map(|_| rng.f64(0.5, 2.0)).collect();
    let (gx, gw) = (dev(&hx, &[r, c]), dev(&hw, &[r, c]));
    let check_wmean = |got: f64, idx: &mut dyn Iterator<Item = usize>, what: &str| {
        let ids: Vec<usize> = idx.collect();
        let sxw = nsum(ids.iter().map(|&k| hx[k] * hw[k]));
        let sw = nsum(ids.iter().map(|&k| hw[k]));
        let scale: f64 = ids.iter().map(|&k| (hx[k] * hw[k]).abs()).sum::<f64>() / sw;
        assert!(
            (got - sxw / sw).abs() <= 1e-12 * scale,
            "{what}: {got} vs {}",
            sxw / sw
        );
    };
    let y = wmean.call((&gx, &gw)).unwrap();
    check_wmean(y.to_vec::<f64>().unwrap()[0], &mut (0..r * c), "full");
    let y = wmean.axis(1).call((&gx, &gw)).unwrap();
    let got = y.to_vec::<f64>().unwrap();
    assert_eq!(got.len(), r);
    for (i, &g) in got.iter().enumerate() {
        check_wmean(g, &mut (i * c..(i + 1) * c), &format!("row {i}"));
    }
    // the weights broadcast along the rows
    let wrow = dev(&hw[..c], &[c]);
    let y = wmean.axis(0).call((&gx, &wrow)).unwrap();
    let got = y.to_vec::<f64>().unwrap();
    assert_eq!(got.len(), c);
    for j in [0, 1, 2, c / 2, c - 1] {
        let sxw = nsum((0..r).map(|i| hx[i * c + j] * hw[j]));
        let want = sxw / (r as f64 * hw[j]);
        let scale = (0..r).map(|i| hx[i * c + j].abs()).sum::<f64>() / r as f64;
        assert!(
            (got[j] - want).abs() <= 1e-12 * scale,
            "column {j}: {} vs {want}",
            got[j]
        );
    }

    // mean squared error over 1e7 float64: `_in_ind.size()` is the element count
    let mse = ReductionKernel::new(
        "T x, T y",
        "T z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a / _in_ind.size()",
        Some("0"),
        "mse",
    )
    .unwrap();
    // the seed's 1e7; on the host device 1e6 (the same split reduction: `common::gpu_or_host`)
    let n = common::gpu_or_host(10_000_000usize, 1_000_000);
    let (a, b) = (
        hash_fill(&[n], DType::F64, -2.0, 2.0, 1),
        hash_fill(&[n], DType::F64, -2.0, 2.0, 2),
    );
    let (ha, hb) = (a.to_vec::<f64>().unwrap(), b.to_vec::<f64>().unwrap());
    assert!(ha.iter().zip(&hb).all(|(x, y)| *x != 0.0 && x != y));
    let sq: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| (x - y) * (x - y)).collect();
    let want = nsum(sq.iter().copied()) / n as f64;
    let got = mse.call((&a, &b)).unwrap().to_vec::<f64>().unwrap()[0];
    assert!((got - want).abs() <= 1e-12 * want, "mse: {got} vs {want}");
    // ... and the same again, bit for bit
    let again = mse.call((&a, &b)).unwrap().to_vec::<f64>().unwrap()[0];
    assert_eq!(got.to_bits(), again.to_bits());
    // with an axis the group size is `_in_ind.size() / _out_ind.size()`
    let mse_axis = ReductionKernel::new(
        "T x, T y",
        "T z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a / (_in_ind.size() / _out_ind.size())",
        Some("0"),
        "mse_axis",
    )
    .unwrap();
    for (shape, ax) in [([10usize, n / 10], 1isize), ([n / 10_000, 10_000], 0)] {
        let (a2, b2) = (
            a.reshape(&[shape[0] as isize, shape[1] as isize]).unwrap(),
            b.reshape(&[shape[0] as isize, shape[1] as isize]).unwrap(),
        );
        let got = mse_axis
            .axis(ax)
            .call((&a2, &b2))
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let red = reduced_mask(2, Some(&[ax]));
        let g = groups_of(&shape, &red, &sq);
        assert_eq!(got.len(), g.len());
        for (i, v) in g.iter().enumerate() {
            let want = nsum(v.iter().copied()) / v.len() as f64;
            assert!(
                (got[i] - want).abs() <= 1e-12 * want,
                "mse {shape:?} axis {ax} output {i}: {} vs {want}",
                got[i]
            );
        }
        // the whole-array kernel divides by the element count instead
        let all = mse
            .axis(ax)
            .call((&a2, &b2))
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let want0 = nsum(g[0].iter().copied()) / n as f64;
        assert!((all[0] - want0).abs() <= 1e-12 * want0);
    }
}

// =========================================================================================
// Random views, axes and keepdims against a host reduction (property tests)
// =========================================================================================

// The random views and their host model are `common::views`.

/// Shapes of 1 to 4 dimensions, extents mostly 1..9, some big ones, rarely 0.
fn red_shape() -> impl Strategy<Value = Vec<usize>> {
    let extent = prop_oneof![
        1 => Just(0usize),
        14 => 1usize..10,
        4 => prop::sample::select(vec![31usize, 32, 33, 64, 100, 257, 1000, 4099, 20_011]),
    ];
    prop::collection::vec(extent, 1..=4).prop_map(|mut s| {
        while s.iter().product::<usize>() > 40_000 {
            let big = (0..s.len()).max_by_key(|&i| s[i]).unwrap_or(0);
            s[big] /= 2;
        }
        s
    })
}

/// Which axes to reduce (mapped onto the actual number of dimensions), which of them are
/// written negative, and the order they are listed in; `None` is "no axis argument".
#[derive(Debug, Clone)]
struct AxesRecipe {
    pick: Vec<bool>,
    neg: Vec<bool>,
    seed: u64,
}

fn axes_recipe() -> impl Strategy<Value = Option<AxesRecipe>> {
    prop::option::weighted(
        0.8,
        (
            prop::collection::vec(prop::bool::weighted(0.6), 4),
            prop::collection::vec(any::<bool>(), 4),
            any::<u64>(),
        )
            .prop_map(|(pick, neg, seed)| AxesRecipe { pick, neg, seed }),
    )
}

fn axes_for(r: &Option<AxesRecipe>, nd: usize) -> Option<Vec<isize>> {
    r.as_ref().map(|r| {
        let mut v = picked_axes(nd, &r.pick, &r.neg);
        let mut prng = Rng::new(r.seed);
        for i in (1..v.len()).rev() {
            let j = prng.usize(0, i + 1);
            v.swap(i, j);
        }
        v
    })
}

/// What a reduction of `shape` over `red` must give: an empty output, an error (no
/// identity and nothing to reduce), or these groups.
fn expect_empty(shape: &[usize], red: &[bool]) -> (bool, bool) {
    let o: usize = shape
        .iter()
        .zip(red)
        .filter(|(_, r)| !**r)
        .map(|(d, _)| d)
        .product();
    let r: usize = shape
        .iter()
        .zip(red)
        .filter(|(_, r)| **r)
        .map(|(d, _)| d)
        .product();
    (o == 0, r == 0)
}

#[test]
fn random_views_axes_and_keepdims_match_a_host_reduction() {
    require_gpu!();
    let ssq = ssq_kernels("prop_ssq");
    let mx = max_kernels("prop_max");
    let dot = |rd: bool| dot_kernel("prop_dot").reduce_dims(rd);
    let dots = [dot(true), dot(false)];
    let dmax = |rd: bool| {
        ReductionKernel::new(
            "T x, T y",
            "T z",
            "x - y",
            "a > b ? a : b",
            "z = a",
            None,
            "prop_diff_max",
        )
        .unwrap()
        .reduce_dims(rd)
    };
    let dmaxs = [dmax(true), dmax(false)];
    let strategy = (
        red_shape(),
        view_recipe(),
        view_recipe(),
        prop::option::weighted(0.3, out_recipe()),
        axes_recipe(),
        any::<bool>(),
        any::<u64>(),
    );
    let mut runner = gpu_proptest_runner(24);
    let result = runner.run(&strategy, |(shape, rx, ry, ro, ax, keepdims, seed)| {
        let mut rng = Rng::new(seed);
        let xv = make_view(&rx, &own_shape(&shape, &rx), &shape, &mut rng);
        let yv = make_view(&ry, &own_shape(&shape, &ry), &shape, &mut rng);

        // One input: sum of squares and max over x's own shape.
        let lx = xv.view.shape().to_vec();
        let axes = axes_for(&ax, lx.len());
        let red = reduced_mask(lx.len(), axes.as_deref());
        let oshape = out_shape(&lx, &red, keepdims);
        let (empty_out, empty_red) = expect_empty(&lx, &red);
        let g = groups(&lx, &red, |idx| xv.base[xv.model.pos(idx)]);
        let sq = map_groups(&g, |v| v * v);
        for which in 0..2 {
            let ctx = format!(
                "reduce_dims={} x={:?}/{:?} axes={axes:?} keepdims={keepdims}",
                which == 0,
                lx,
                xv.view.strides()
            );
            let y = over(&ssq[which], axes.as_deref(), keepdims)
                .call((&xv.view,))
                .unwrap();
            prop_assert_eq!(y.shape(), &oshape[..], "{}", ctx);
            let d = sum_mismatch(&y.to_vec::<f64>().unwrap(), &sq, 1e-12);
            prop_assert!(d.is_none(), "{}: sum of squares: {:?}", ctx, d);
            let r = over(&mx[which], axes.as_deref(), keepdims).call((&xv.view,));
            if empty_red && !empty_out {
                let e = r.unwrap_err();
                prop_assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}: {}", ctx, e);
                prop_assert_eq!(
                    e.to_string(),
                    "zero-size array to reduction operation prop_max which has no identity"
                );
            } else {
                let y = r.unwrap();
                prop_assert_eq!(y.shape(), &oshape[..], "{}", ctx);
                let d = max_mismatch(&y.to_vec::<f64>().unwrap(), &g);
                prop_assert!(d.is_none(), "{}: max: {:?}", ctx, d);
            }
        }

        // Two inputs broadcast together: sum of x * y (into a given output view when the
        // case has one) and max of x - y.
        let l = cuprum::shape::broadcast_shapes(&[xv.view.shape(), yv.view.shape()])
            .unwrap()
            .to_vec();
        let axes = axes_for(&ax, l.len());
        let red = reduced_mask(l.len(), axes.as_deref());
        let oshape = out_shape(&l, &red, keepdims);
        let (empty_out, empty_red) = expect_empty(&l, &red);
        let gxy = groups(&l, &red, |idx| {
            xv.base[xv.model.pos(idx)] * yv.base[yv.model.pos(idx)]
        });
        let gdiff = groups(&l, &red, |idx| {
            xv.base[xv.model.pos(idx)] - yv.base[yv.model.pos(idx)]
        });
        for which in 0..2 {
            let ctx = format!(
                "reduce_dims={} loop={l:?} x={:?}/{:?} y={:?}/{:?} axes={axes:?} keepdims={keepdims}",
                which == 0,
                xv.view.shape(),
                xv.view.strides(),
                yv.view.shape(),
                yv.view.strides()
            );
            let call = over(&dots[which], axes.as_deref(), keepdims);
            match &ro {
                None => {
                    let z = call.call((&xv.view, &yv.view)).unwrap();
                    prop_assert_eq!(z.shape(), &oshape[..], "{}", ctx);
                    let d = sum_mismatch(&z.to_vec::<f64>().unwrap(), &gxy, 1e-12);
                    prop_assert!(d.is_none(), "{}: sum of x*y: {:?}", ctx, d);
                }
                Some(ro) => {
                    // a fresh output view for each kernel, so that each must write it all
                    let ov = make_view(ro, &oshape, &oshape, &mut rng);
                    let z = call.call((&xv.view, &yv.view, &ov.view)).unwrap();
                    prop_assert!(z.shares_memory(&ov.view) && z.data_ptr() == ov.view.data_ptr());
                    let ctx = format!("{ctx} out={:?}/{:?}", ov.view.shape(), ov.view.strides());
                    let got = ov.view.to_vec::<f64>().unwrap();
                    let d = sum_mismatch(&got, &gxy, 1e-12);
                    prop_assert!(d.is_none(), "{}: sum of x*y into the output: {:?}", ctx, d);
                    // every base element outside the output view is untouched
                    let mut expect = ov.base.clone();
                    for (lin, idx) in c_order(&oshape).into_iter().enumerate() {
                        expect[ov.model.pos(&idx)] = got[lin];
                    }
                    let base_now = ov.base_dev.to_vec::<f64>().unwrap();
                    let bad = base_now.iter().zip(&expect).position(|(a, b)| a != b);
                    prop_assert!(bad.is_none(), "{}: output base changed at {:?}", ctx, bad);
                }
            }
            let r = over(&dmaxs[which], axes.as_deref(), keepdims).call((&xv.view, &yv.view));
            if empty_red && !empty_out {
                prop_assert_eq!(r.unwrap_err().kind(), ErrorKind::InvalidArgument, "{}", ctx);
            } else {
                let z = r.unwrap();
                prop_assert_eq!(z.shape(), &oshape[..], "{}", ctx);
                let d = max_mismatch(&z.to_vec::<f64>().unwrap(), &gdiff);
                prop_assert!(d.is_none(), "{}: max of x-y: {:?}", ctx, d);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// =========================================================================================
// Each strategy and shape class explicitly
// =========================================================================================

#[test]
fn full_reductions_of_every_size() {
    require_gpu!();
    let ssq = ssq_kernels("full_ssq");
    let mx = max_kernels("full_max");
    let mut rng = Rng::new(3);
    for n in [
        1usize,
        2,
        31,
        32,
        33,
        255,
        256,
        257,
        1000,
        1023,
        1024,
        1025,
        8191,
        8192,
        8193,
        65_537,
        // split over the whole GPU; on the host device (two "SMs") split at a quarter
        common::gpu_or_host(1_000_003, 250_007),
    ] {
        let h = rand_f64(&mut rng, n);
        let x = dev(&h, &[n]);
        check_view(&ssq, &mx, &format!("n={n}"), &x, None);
        check_view(&ssq, &mx, &format!("n={n} axis 0"), &x, Some(&[0]));
        if n >= 1000 {
            // strided: reversed, every third element, a 2-d contiguous shape
            check_view(
                &ssq,
                &mx,
                &format!("n={n}[::-1]"),
                &x.slice(&s![..;-1]).unwrap(),
                None,
            );
            check_view(
                &ssq,
                &mx,
                &format!("n={n}[1::3]"),
                &x.slice(&s![1..;3]).unwrap(),
                None,
            );
        }
    }
    let h = rand_f64(&mut rng, 1000 * 999);
    let x = dev(&h, &[1000, 999]);
    check_view(&ssq, &mx, "(1000, 999)", &x, None);
    check_view(&ssq, &mx, "(1000, 999).T", &x.t(), None);
    check_view(
        &ssq,
        &mx,
        "(1000, 999)[::2, ::-3]",
        &x.slice(&s![..;2, ..;-3]).unwrap(),
        None,
    );
    check_view(&ssq, &mx, "(1000, 999) axes (0, 1)", &x, Some(&[1, 0]));
}

#[test]
fn full_reduction_of_1e8_float32_is_split_and_deterministic() {
    require_gpu!();
    skip_on_host!(
        "1e8 elements (400 MB) take tens of seconds on a CPU; split reductions are tested on smaller sizes"
    );
    let n = 100_000_000usize;
    let x = hash_fill(&[n], DType::F32, 0.5, 1.5, 5);
    let h = x.to_vec::<f32>().unwrap();
    // the kernel squares in float, then accumulates
    let sq = nsum(h.iter().map(|&v| (v * v) as f64));
    let mx = h.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum = nsum(h.iter().map(|&v| v as f64));
    drop(h);
    let [ssq, ssq_nd] = ssq_kernels("ssq_1e8");
    for (k, what) in [(&ssq, "reduce_dims"), (&ssq_nd, "no reduce_dims")] {
        let got = k.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0];
        assert!(
            (got as f64 - sq).abs() <= 1e-4 * sq,
            "{what}: float accumulator {got} vs {sq}"
        );
        // the same call again gives the same bits (fixed combination order)
        let again = k.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0];
        assert_eq!(got.to_bits(), again.to_bits(), "{what}: not deterministic");
    }
    // a double accumulator: only the final rounding to float32 remains
    let ssq_d = ssq_kernel("ssq_1e8_d").reduce_type("double");
    let got = ssq_d.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0] as f64;
    assert!(
        (got - sq).abs() <= sq * (2f64.powi(-24) + 1e-12),
        "double accumulator {got} vs {sq}"
    );
    // float64 output of float32 input
    let sum64 = sum_kernel("float32 x", "float64 y", "sum_f32_f64");
    let got = sum64.call((&x,)).unwrap().to_vec::<f64>().unwrap()[0];
    assert!((got - sum).abs() <= 1e-12 * sum, "{got} vs {sum}");
    let got2 = sum64.call((&x,)).unwrap().to_vec::<f64>().unwrap()[0];
    assert_eq!(got.to_bits(), got2.to_bits());
    // max without identity over the split reduction
    let [m, m_nd] = max_kernels("max_1e8");
    assert_eq!(m.call((&x,)).unwrap().to_vec::<f32>().unwrap(), vec![mx]);
    assert_eq!(m_nd.call((&x,)).unwrap().to_vec::<f32>().unwrap(), vec![mx]);
    // a reversed view (strided reads) gives the same max and a close sum
    let xr = x.slice(&s![..;-1]).unwrap();
    assert_eq!(m.call((&xr,)).unwrap().to_vec::<f32>().unwrap(), vec![mx]);
    let got = sum64.call((&xr,)).unwrap().to_vec::<f64>().unwrap()[0];
    assert!((got - sum).abs() <= 1e-12 * sum, "reversed: {got} vs {sum}");
}

#[test]
fn square_8192_over_each_axis() {
    require_gpu!();
    skip_on_host!("an 8192 x 8192 array (256 MB) reduced three ways takes minutes on a CPU");
    let n = 8192usize;
    let x = hash_fill(&[n, n], DType::F32, 0.5, 1.5, 9);
    let h = x.to_vec::<f32>().unwrap();
    let mut rows = vec![0.0f64; n];
    let mut cols = vec![0.0f64; n];
    for i in 0..n {
        let row = &h[i * n..(i + 1) * n];
        let mut acc = 0.0f64;
        for (j, &v) in row.iter().enumerate() {
            let q = (v * v) as f64;
            acc += q;
            cols[j] += q;
        }
        rows[i] = acc;
    }
    drop(h);
    let [ssq, ssq_nd] = ssq_kernels("ssq_8192");
    let ssq_d = ssq_kernel("ssq_8192_d").reduce_type("double");
    let check = |what: &str, got: &[f32], want: &[f64], rel: f64| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            // all terms are positive: the sum is the sum of |terms|
            assert!(
                (g as f64 - w).abs() <= rel * w,
                "{what} output {i}: {g} vs {w}"
            );
        }
    };
    // host sums in plain f64 over 8192 positive terms are good to ~1e-12
    for (ax, want) in [(1isize, &rows), (0, &cols)] {
        for (k, what) in [(&ssq, "reduce_dims"), (&ssq_nd, "no reduce_dims")] {
            let y = k.axis(ax).call((&x,)).unwrap();
            assert_eq!(y.shape(), &[n]);
            check(
                &format!("{what} axis {ax}"),
                &y.to_vec::<f32>().unwrap(),
                want,
                1e-4,
            );
        }
        let y = ssq_d.axis(ax).call((&x,)).unwrap();
        check(
            &format!("double accumulator axis {ax}"),
            &y.to_vec::<f32>().unwrap(),
            want,
            2f64.powi(-24) + 1e-11,
        );
        // the transpose swaps the roles: strided reduction for axis 1, contiguous for 0
        let y = ssq_d.axis(1 - ax).call((&x.t(),)).unwrap();
        check(
            &format!("double accumulator, transposed, axis {}", 1 - ax),
            &y.to_vec::<f32>().unwrap(),
            want,
            2f64.powi(-24) + 1e-11,
        );
        // keepdims: (8192, 1) or (1, 8192)
        let y = ssq.axis(ax).keepdims(true).call((&x,)).unwrap();
        let want_shape = if ax == 1 { [n, 1] } else { [1, n] };
        assert_eq!(y.shape(), &want_shape);
        check("keepdims", &y.to_vec::<f32>().unwrap(), want, 1e-4);
    }
}

#[test]
fn small_groups_and_few_long_groups() {
    require_gpu!();
    let ssq = ssq_kernels("groups_ssq");
    let mx = max_kernels("groups_max");
    let mut rng = Rng::new(4);
    // on the host device a tenth of each size (its two "SMs" fill with far fewer blocks):
    // the same strategies, splits and strides (see `common::gpu_or_host`)
    let long = common::gpu_or_host(1_000_000usize, 100_000);
    // many groups of 4
    let h = rand_f64(&mut rng, 4 * long);
    let x = dev(&h, &[long, 4]);
    check_view(&ssq, &mx, &format!("({long}, 4)"), &x, Some(&[1]));
    check_view(&ssq, &mx, &format!("({long}, 4)"), &x, Some(&[0]));
    // few long groups, contiguous and strided
    let x = dev(&h, &[4, long]);
    check_view(&ssq, &mx, &format!("(4, {long})"), &x, Some(&[0]));
    check_view(&ssq, &mx, &format!("(4, {long})"), &x, Some(&[1]));
    let xt = dev(&h, &[long, 4]).t();
    check_view(&ssq, &mx, &format!("({long}, 4).T"), &xt, Some(&[0]));
    check_view(&ssq, &mx, &format!("({long}, 4).T"), &xt, Some(&[1]));
    check_view(
        &ssq,
        &mx,
        &format!("(4, {long})[::-1, ::2]"),
        &x.slice(&s![..;-1, ..;2]).unwrap(),
        Some(&[1]),
    );
    // several reduced axes that do not merge
    let h = rand_f64(&mut rng, 15 * long / 10);
    let x = dev(&h, &[3, 5, long / 10]);
    for axes in [
        &[0isize, 2][..],
        &[2, 0],
        &[-3, -1],
        &[1],
        &[0, 1],
        &[1, 2],
        &[2],
        &[0],
    ] {
        check_view(&ssq, &mx, "(3, 5, 1e5)", &x, Some(axes));
    }
    let xp = x.permute(&[2, 0, 1]).unwrap();
    check_view(
        &ssq,
        &mx,
        "(3, 5, 1e5) permuted (2, 0, 1)",
        &xp,
        Some(&[0, 2]),
    );
    check_view(&ssq, &mx, "(3, 5, 1e5) permuted (2, 0, 1)", &xp, Some(&[1]));
}

#[test]
fn every_inner_and_outer_boundary() {
    require_gpu!();
    let ssq = ssq_kernels("bound_ssq");
    let mx = max_kernels("bound_max");
    let mut rng = Rng::new(6);
    // The inputs drawn in the shapes' order, as one loop would.
    let shapes = [
        (1usize, 1usize),
        (1, 1000),
        (1000, 1),
        (3, 31),
        (31, 3),
        (32, 32),
        (33, 33),
        (7, 255),
        (255, 7),
        (2, 256),
        (256, 2),
        (5, 257),
        (257, 5),
        (100, 300),
        (300, 100),
        (2, 100_003),
        (100_003, 2),
        (17, 8193),
        (8193, 17),
        (64, 64),
    ]
    .map(|(r, c)| (r, c, rand_f64(&mut rng, r * c)));
    let shapes: Vec<_> = shapes.into_iter().enumerate().collect();
    // Each shape picks its own launch configuration (a kernel of its own on the host
    // device): the shapes on every core there, and of each shape's six layout and axis
    // cases the diagonal cells (`common::sweep_cell`; the GPU runs every one).
    common::each_on_every_core(&shapes, |(i, (r, c, h))| {
        let (r, c) = (*r, *c);
        let x = dev(h, &[r, c]);
        let xt = dev(h, &[c, r]).t();
        let mut j = 0;
        for (v, what) in [(&x, "contiguous"), (&xt, "transposed")] {
            let what = format!("({r}, {c}) {what}");
            for axes in [Some(&[0][..]), Some(&[1][..]), None] {
                if common::sweep_cell(*i, j) {
                    check_view(&ssq, &mx, &what, v, axes);
                }
                j += 1;
            }
        }
    });
    // 4-d: every non-empty subset of axes, on a contiguous and a permuted stepped view
    let h = rand_f64(&mut rng, 6 * 7 * 8 * 9);
    let x = dev(&h, &[6, 7, 8, 9]);
    let xv = x
        .slice(&s![..;-2, 1.., ..;3, ..])
        .unwrap()
        .permute(&[3, 1, 0, 2])
        .unwrap();
    for mask in 1u32..16 {
        let axes: Vec<isize> = (0..4).filter(|k| mask & (1 << k) != 0).collect();
        for (j, (v, what)) in [(&x, "(6, 7, 8, 9)"), (&xv, "(6, 7, 8, 9) view")]
            .into_iter()
            .enumerate()
        {
            if common::sweep_one_of(mask as usize, j, 2) {
                check_view(&ssq, &mx, what, v, Some(&axes));
            }
        }
    }
    // broadcast input (stride 0): every row the same
    let hrow = rand_f64(&mut rng, 333);
    let b = dev(&hrow, &[333]).broadcast_to(&[50, 333]).unwrap();
    check_view(&ssq, &mx, "broadcast row", &b, Some(&[0]));
    check_view(&ssq, &mx, "broadcast row", &b, Some(&[1]));
    check_view(&ssq, &mx, "broadcast row", &b, None);
}

#[test]
fn split_reductions_are_deterministic() {
    require_gpu!();
    let mut rng = Rng::new(8);
    let sum = sum_kernel("T x", "T y", "det_sum");
    let h: Vec<f32> = (0..3_000_017)
        .map(|_| nz(&mut rng, -10.0, 10.0) as f32)
        .collect();
    let x = dev(&h, &[3_000_017]);
    let bits = |a: &Array| -> Vec<u32> {
        a.to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    };
    let first = bits(&sum.call((&x,)).unwrap());
    for _ in 0..5 {
        assert_eq!(bits(&sum.call((&x,)).unwrap()), first);
    }
    let m = x
        .slice(&s![..3_000_000])
        .unwrap()
        .reshape(&[4, 750_000])
        .unwrap();
    let first = bits(&sum.axis(1).call((&m,)).unwrap());
    let first0 = bits(&sum.axis(0).call((&m.t(),)).unwrap());
    assert_eq!(first, first0, "the same reduction through the transpose");
    for _ in 0..5 {
        assert_eq!(bits(&sum.axis(1).call((&m,)).unwrap()), first);
    }
}

/// Every split visits each reduced element exactly once, whichever way the splits share a
/// reduction (contiguous chunks, or the interleaved stripes of a GPU's inner splits): the
/// count of visits and the sum of `_J` over each output are exact integers.
#[test]
fn split_reductions_visit_every_element_once() {
    require_gpu!();
    let count = ReductionKernel::new(
        "T x",
        "int64 y",
        "1 + (long long)(x - x)",
        "a + b",
        "y = a",
        Some("0"),
        "visit_count",
    )
    .unwrap();
    let sum_j = ReductionKernel::new(
        "T x",
        "int64 y",
        "(long long)_J + (long long)(x - x)",
        "a + b",
        "y = a",
        Some("0"),
        "visit_sum_j",
    )
    .unwrap();
    let mut rng = Rng::new(11);
    let n = common::gpu_or_host(2_000_003, 250_007);
    let x = dev(&rand_f64(&mut rng, n), &[n]);
    let rows = dev(&rand_f64(&mut rng, 3 * 400_001), &[3, 400_001]);
    let cube = dev(&rand_f64(&mut rng, 4 * 501 * 999), &[4, 501, 999]);
    let cases: [(&str, Array, Option<&[isize]>); 6] = [
        ("1-d", x.clone(), None),
        // one element in: the rows no longer start on a wide load's boundary
        ("1-d [1:]", x.slice(&s![1..]).unwrap(), None),
        ("1-d [::-1]", x.slice(&s![..;-1]).unwrap(), None),
        ("rows axis 1", rows.clone(), Some(&[1])),
        ("rows.T axis 0", rows.t(), Some(&[0])),
        ("cube axes (1, 2)", cube, Some(&[1, 2])),
    ];
    for (what, v, axes) in cases {
        let r: i64 = match axes {
            None => v.shape().iter().product::<usize>() as i64,
            Some(a) => a.iter().map(|&k| v.shape()[k as usize] as i64).product(),
        };
        for (k, want) in [(&count, r), (&sum_j, r * (r - 1) / 2)] {
            let got = over(k, axes, false)
                .call((&v,))
                .unwrap()
                .to_vec::<i64>()
                .unwrap();
            assert!(!got.is_empty(), "{what}");
            for (o, g) in got.iter().enumerate() {
                assert_eq!(*g, want, "{what}: output {o} of {}", k.name());
            }
        }
    }
}

// =========================================================================================
// Dtypes
// =========================================================================================

#[test]
fn sums_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(10);
    let to_i64 = sum_kernel("T x", "int64 y", "sum_to_i64");
    let same = sum_kernel("T x", "T y", "sum_same");
    let sizes = [1usize, 33, 1000, 100_003];
    // Each macro call is one dtype of the sweep; the host device runs the representatives.
    macro_rules! ints {
        ($t:ty, $make:expr, $wrap:expr) => {
            if common::sweeps_dtype(<$t as Element>::DTYPE) {
                let make = $make;
                let wrap = $wrap;
                for &n in &sizes {
                    let h: Vec<$t> = (0..n).map(|_| make(&mut rng)).collect();
                    let x = dev(&h, &[n]);
                    let what = format!("{} n={n}", stringify!($t));
                    // exactly, into int64
                    let y = to_i64.call((&x,)).unwrap();
                    assert_eq!(
                        (y.dtype(), y.shape()),
                        (DType::I64, &[] as &[usize]),
                        "{what}"
                    );
                    let want: i128 = h.iter().map(|&v| v as i128).sum();
                    assert_eq!(y.to_vec::<i64>().unwrap(), vec![want as i64], "{what}");
                    // in the type itself (modulo 2^bits where the values are that large)
                    let y = same.call((&x,)).unwrap();
                    assert_eq!(y.dtype(), <$t as Element>::DTYPE);
                    let want = h.iter().fold(0 as $t, |a, &b| wrap(a, b));
                    assert_eq!(y.to_vec::<$t>().unwrap(), vec![want], "{what} same type");
                }
                // a partial reduction over each axis
                let (r, c) = (37usize, 1001usize);
                let h: Vec<$t> = (0..r * c).map(|_| make(&mut rng)).collect();
                let x = dev(&h, &[r, c]);
                let rows: Vec<i64> = (0..r)
                    .map(|i| {
                        h[i * c..(i + 1) * c]
                            .iter()
                            .map(|&v| v as i128)
                            .sum::<i128>() as i64
                    })
                    .collect();
                let cols: Vec<i64> = (0..c)
                    .map(|j| (0..r).map(|i| h[i * c + j] as i128).sum::<i128>() as i64)
                    .collect();
                assert_rows_and_cols(&to_i64, &to_i64, &x, &rows, &cols);
            }
        };
    }
    // 8/16-bit: full range, the C++ `a + b` is an int converted back (wraps)
    ints!(i8, |r: &mut Rng| r.next_u64() as i8, |a: i8, b: i8| a
        .wrapping_add(b));
    ints!(i16, |r: &mut Rng| r.next_u64() as i16, |a: i16, b: i16| a
        .wrapping_add(b));
    ints!(u8, |r: &mut Rng| r.next_u64() as u8, |a: u8, b: u8| a
        .wrapping_add(b));
    ints!(u16, |r: &mut Rng| r.next_u64() as u16, |a: u16, b: u16| a
        .wrapping_add(b));
    // unsigned 32/64-bit wrap by definition; keep the int64 sum in range for u64
    ints!(u32, |r: &mut Rng| r.next_u64() as u32, |a: u32, b: u32| a
        .wrapping_add(b));
    ints!(u64, |r: &mut Rng| r.next_u64() >> 24, |a: u64, b: u64| a
        .wrapping_add(b));
    // signed 32/64-bit: no overflow (it would be undefined in C++)
    ints!(
        i32,
        |r: &mut Rng| r.usize(0, 20_001) as i32 - 10_000,
        |a: i32, b: i32| a + b
    );
    ints!(
        i64,
        |r: &mut Rng| (r.next_u64() >> 24) as i64 - (1i64 << 39),
        |a: i64, b: i64| a + b
    );

    // bool: counted into int64, summed in bool (any), and all / any reductions
    let count = ReductionKernel::new(
        "bool x",
        "int64 y",
        "x ? 1 : 0",
        "a + b",
        "y = a",
        Some("0"),
        "count_true",
    )
    .unwrap();
    let any = ReductionKernel::new(
        "bool x",
        "bool y",
        "x",
        "a || b",
        "y = a",
        Some("false"),
        "any_k",
    )
    .unwrap();
    let all = ReductionKernel::new(
        "bool x",
        "bool y",
        "x",
        "a && b",
        "y = a",
        Some("true"),
        "all_k",
    )
    .unwrap();
    for &n in &sizes {
        for p in [0.0, 0.001, 0.5, 0.999, 1.0] {
            let h: Vec<bool> = (0..n).map(|_| rng.f64(0.0, 1.0) < p).collect();
            let x = dev(&h, &[n]);
            let t = h.iter().filter(|&&b| b).count() as i64;
            let what = format!("bool n={n} p={p}");
            assert_eq!(
                count.call((&x,)).unwrap().to_vec::<i64>().unwrap(),
                vec![t],
                "{what}"
            );
            assert_eq!(
                same.call((&x,)).unwrap().to_vec::<bool>().unwrap(),
                vec![t > 0],
                "{what}"
            );
            assert_eq!(
                any.call((&x,)).unwrap().to_vec::<bool>().unwrap(),
                vec![t > 0],
                "{what}"
            );
            assert_eq!(
                all.call((&x,)).unwrap().to_vec::<bool>().unwrap(),
                vec![t == n as i64],
                "{what}"
            );
            assert_eq!(
                to_i64.call((&x,)).unwrap().to_vec::<i64>().unwrap(),
                vec![t],
                "{what}"
            );
        }
    }
    let h: Vec<bool> = (0..37 * 101).map(|_| rng.f64(0.0, 1.0) < 0.3).collect();
    let x = dev(&h, &[37, 101]);
    let rows: Vec<i64> = h
        .chunks(101)
        .map(|r| r.iter().filter(|&&b| b).count() as i64)
        .collect();
    assert_eq!(
        count.axis(1).call((&x,)).unwrap().to_vec::<i64>().unwrap(),
        rows
    );
    let rows_all: Vec<bool> = h.chunks(101).map(|r| r.iter().all(|&b| b)).collect();
    assert_eq!(
        all.axis(1).call((&x,)).unwrap().to_vec::<bool>().unwrap(),
        rows_all
    );

    // float32 / float64
    for &n in &sizes {
        let h: Vec<f32> = (0..n).map(|_| nz(&mut rng, -100.0, 100.0) as f32).collect();
        let g = vec![h.iter().map(|&v| v as f64).collect::<Vec<f64>>()];
        let got = same
            .call((&dev(&h, &[n]),))
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        let got: Vec<f64> = got.iter().map(|&v| v as f64).collect();
        // the result itself is rounded to float32 (relative to the sum's magnitude)
        let d = sum_mismatch(&got, &g, 1e-4);
        assert!(d.is_none(), "f32 n={n}: {d:?}");
        let h: Vec<f64> = (0..n).map(|_| nz(&mut rng, -1e6, 1e6)).collect();
        let got = same
            .call((&dev(&h, &[n]),))
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let d = sum_mismatch(&got, &[h], 1e-12);
        assert!(d.is_none(), "f64 n={n}: {d:?}");
    }

    // float16 / bfloat16, accumulated in float
    let half_sum = sum_kernel("T x", "T y", "half_sum").reduce_type("float");
    let half_to_f32 = sum_kernel("T x", "float32 y", "half_to_f32");
    // positive values: no cancellation, and the f16 sum stays below 65504
    for n in [1usize, 33, 1000, 20_000] {
        let hf: Vec<f16> = (0..n).map(|_| f16::from_f64(rng.f64(0.5, 2.0))).collect();
        check_half_sum(&half_sum, &half_to_f32, &hf, 2f64.powi(-11), "f16");
        let hb: Vec<bf16> = (0..n).map(|_| bf16::from_f64(rng.f64(0.5, 2.0))).collect();
        check_half_sum(&half_sum, &half_to_f32, &hb, 2f64.powi(-8), "bf16");
    }

    // complex64 / complex128
    for &n in &sizes {
        let h: Vec<Complex<f32>> = (0..n)
            .map(|_| {
                Complex::new(
                    nz(&mut rng, -10.0, 10.0) as f32,
                    nz(&mut rng, -10.0, 10.0) as f32,
                )
            })
            .collect();
        let got = same.call((&dev(&h, &[n]),)).unwrap();
        assert_eq!(got.dtype(), DType::C64);
        let got = got.to_vec::<Complex<f32>>().unwrap()[0];
        let re = vec![h.iter().map(|v| v.re as f64).collect::<Vec<f64>>()];
        let im = vec![h.iter().map(|v| v.im as f64).collect::<Vec<f64>>()];
        assert!(
            sum_mismatch(&[got.re as f64], &re, 1e-4).is_none(),
            "c64 n={n} re: {got}"
        );
        assert!(
            sum_mismatch(&[got.im as f64], &im, 1e-4).is_none(),
            "c64 n={n} im: {got}"
        );
        let h: Vec<Complex<f64>> = (0..n)
            .map(|_| Complex::new(nz(&mut rng, -1e3, 1e3), nz(&mut rng, -1e3, 1e3)))
            .collect();
        let got = same.call((&dev(&h, &[n]),)).unwrap();
        assert_eq!(got.dtype(), DType::C128);
        let got = got.to_vec::<Complex<f64>>().unwrap()[0];
        let re = vec![h.iter().map(|v| v.re).collect::<Vec<f64>>()];
        let im = vec![h.iter().map(|v| v.im).collect::<Vec<f64>>()];
        assert!(
            sum_mismatch(&[got.re], &re, 1e-12).is_none(),
            "c128 n={n} re: {got}"
        );
        assert!(
            sum_mismatch(&[got.im], &im, 1e-12).is_none(),
            "c128 n={n} im: {got}"
        );
    }
    // complex128 over an axis
    let (r, c) = (9usize, 5003usize);
    let h: Vec<Complex<f64>> = (0..r * c)
        .map(|_| Complex::new(nz(&mut rng, -1e3, 1e3), nz(&mut rng, -1e3, 1e3)))
        .collect();
    let got = same
        .axis(1)
        .call((&dev(&h, &[r, c]),))
        .unwrap()
        .to_vec::<Complex<f64>>()
        .unwrap();
    for i in 0..r {
        let row = &h[i * c..(i + 1) * c];
        let re = vec![row.iter().map(|v| v.re).collect::<Vec<f64>>()];
        let im = vec![row.iter().map(|v| v.im).collect::<Vec<f64>>()];
        assert!(sum_mismatch(&[got[i].re], &re, 1e-12).is_none(), "row {i}");
        assert!(sum_mismatch(&[got[i].im], &im, 1e-12).is_none(), "row {i}");
    }
}

#[test]
fn max_and_min_without_identity_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(12);
    let mx =
        ReductionKernel::new("T x", "T y", "x", "a > b ? a : b", "y = a", None, "max_any").unwrap();
    let mn =
        ReductionKernel::new("T x", "T y", "x", "a < b ? a : b", "y = a", None, "min_any").unwrap();
    let sizes = [1usize, 31, 32, 33, 1000, 100_003];
    // Each macro call is one dtype of the sweep; the host device runs the representatives.
    macro_rules! extremes {
        ($t:ty, $make:expr) => {
            if common::sweeps_dtype(<$t as Element>::DTYPE) {
                let make = $make;
                for &n in &sizes {
                    let h: Vec<$t> = (0..n).map(|_| make(&mut rng)).collect();
                    let x = dev(&h, &[n]);
                    let what = format!("{} n={n}", stringify!($t));
                    let want_max = h
                        .iter()
                        .copied()
                        .fold(h[0], |a, b| if b > a { b } else { a });
                    let want_min = h
                        .iter()
                        .copied()
                        .fold(h[0], |a, b| if b < a { b } else { a });
                    assert_eq!(
                        mx.call((&x,)).unwrap().to_vec::<$t>().unwrap(),
                        vec![want_max],
                        "{what} max"
                    );
                    assert_eq!(
                        mn.call((&x,)).unwrap().to_vec::<$t>().unwrap(),
                        vec![want_min],
                        "{what} min"
                    );
                }
                let (r, c) = (37usize, 1001usize);
                let h: Vec<$t> = (0..r * c).map(|_| make(&mut rng)).collect();
                let x = dev(&h, &[r, c]);
                let pick = |v: &mut dyn Iterator<Item = $t>, biggest: bool| {
                    let first = v.next().unwrap();
                    v.fold(first, |a, b| {
                        let better = if biggest { b > a } else { b < a };
                        if better { b } else { a }
                    })
                };
                let rows_max: Vec<$t> = (0..r)
                    .map(|i| pick(&mut h[i * c..(i + 1) * c].iter().copied(), true))
                    .collect();
                let cols_min: Vec<$t> = (0..c)
                    .map(|j| pick(&mut (0..r).map(|i| h[i * c + j]), false))
                    .collect();
                assert_rows_and_cols(&mx, &mn, &x, &rows_max, &cols_min);
            }
        };
    }
    // all negative: a wrong zero start would win the max
    extremes!(i8, |r: &mut Rng| -(r.usize(1, 128) as i8));
    extremes!(i16, |r: &mut Rng| -(r.usize(1, 30_000) as i16));
    extremes!(i32, |r: &mut Rng| -(r.usize(1, 2_000_000_000) as i32));
    extremes!(i64, |r: &mut Rng| -((r.next_u64() >> 2) as i64) - 1);
    // unsigned, far from zero: a wrong zero start would win the min
    extremes!(u8, |r: &mut Rng| r.usize(100, 256) as u8);
    extremes!(u16, |r: &mut Rng| r.usize(1000, 65_536) as u16);
    extremes!(u32, |r: &mut Rng| (r.next_u64() as u32) | 0x100);
    extremes!(u64, |r: &mut Rng| r.next_u64() | 0x100);
    extremes!(f32, |r: &mut Rng| nz(r, -1e6, -1.0) as f32);
    extremes!(f64, |r: &mut Rng| nz(r, -1e6, -1.0));
    extremes!(f64, |r: &mut Rng| nz(r, 1.0, 1e6));
    // half types compare through float
    for n in [1usize, 33, 10_001] {
        let h: Vec<f16> = (0..n)
            .map(|_| f16::from_f64(-rng.f64(1.0, 1000.0)))
            .collect();
        let want = h
            .iter()
            .map(|v| v.to_f32())
            .fold(f32::NEG_INFINITY, f32::max);
        let got = mx.call((&dev(&h, &[n]),)).unwrap().to_vec::<f16>().unwrap()[0];
        assert_eq!(got.to_f32(), want, "f16 n={n}");
        let h: Vec<bf16> = (0..n)
            .map(|_| bf16::from_f64(rng.f64(1.0, 1000.0)))
            .collect();
        let want = h.iter().map(|v| v.to_f32()).fold(f32::INFINITY, f32::min);
        let got = mn
            .call((&dev(&h, &[n]),))
            .unwrap()
            .to_vec::<bf16>()
            .unwrap()[0];
        assert_eq!(got.to_f32(), want, "bf16 n={n}");
    }
    // CUDA's own max / min functions as the reduce_expr
    let cmax =
        ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "cuda_max").unwrap();
    let cmin =
        ReductionKernel::new("T x", "T y", "x", "min(a, b)", "y = a", None, "cuda_min").unwrap();
    let h: Vec<f64> = (0..100_003).map(|_| nz(&mut rng, -1e6, -1.0)).collect();
    let want = h.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(
        cmax.call((&dev(&h, &[100_003]),))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![want]
    );
    let h: Vec<i32> = (0..100_003)
        .map(|_| rng.usize(5, 1_000_000) as i32)
        .collect();
    let want = *h.iter().min().unwrap();
    assert_eq!(
        cmin.call((&dev(&h, &[100_003]),))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![want]
    );
}

/// CuPy's generated kernels see CUDA's math constants without an include: a max with
/// identity `-CUDART_INF_F` (and a min with `CUDART_INF_F`, and the double versions) for
/// every float dtype, on all-negative, all-positive and mixed data, full and along each
/// axis, plus empty reductions that give the infinite identity itself.
#[test]
fn max_and_min_with_infinite_identities_for_every_float_dtype() {
    require_gpu!();
    let mut rng = Rng::new(1313);
    let kernels = |id_max: &str, id_min: &str| {
        (
            ReductionKernel::new(
                "T x",
                "T y",
                "x",
                "a > b ? a : b",
                "y = a",
                Some(id_max),
                "max_inf",
            )
            .unwrap(),
            ReductionKernel::new(
                "T x",
                "T y",
                "x",
                "a < b ? a : b",
                "y = a",
                Some(id_min),
                "min_inf",
            )
            .unwrap(),
        )
    };
    let pairs = [
        kernels("-CUDART_INF_F", "CUDART_INF_F"),
        kernels("-CUDART_INF", "CUDART_INF"),
    ];
    // Host values (exact in every dtype used: rounded to it first) and their device array.
    fn make(d: DType, vals: &[f64], shape: &[usize]) -> (Vec<f64>, Array) {
        macro_rules! go {
            ($t:ty, $from:expr, $to:expr) => {{
                let h: Vec<$t> = vals.iter().map(|&v| $from(v)).collect();
                (h.iter().map(|&v| $to(v)).collect(), dev(&h, shape))
            }};
        }
        match d {
            DType::F16 => go!(f16, f16::from_f64, f16::to_f64),
            DType::BF16 => go!(bf16, bf16::from_f64, bf16::to_f64),
            DType::F32 => go!(f32, |v: f64| v as f32, f64::from),
            DType::F64 => go!(f64, |v: f64| v, |v: f64| v),
            _ => unreachable!(),
        }
    }
    fn back(a: &Array) -> Vec<f64> {
        match a.dtype() {
            DType::F16 => a
                .to_vec::<f16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::BF16 => a
                .to_vec::<bf16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::F32 => a
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|&v| f64::from(v))
                .collect(),
            DType::F64 => a.to_vec::<f64>().unwrap(),
            d => unreachable!("{d}"),
        }
    }
    let fold = |v: &mut dyn Iterator<Item = f64>, max: bool| {
        v.fold(
            if max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
            |a, b| {
                if max { a.max(b) } else { a.min(b) }
            },
        )
    };
    for (i, d) in [DType::F16, DType::BF16, DType::F32, DType::F64]
        .into_iter()
        .enumerate()
    {
        if !common::sweeps_dtype(d) {
            continue;
        }
        for (p, (mx, mn)) in pairs.iter().enumerate() {
            // on the host device each dtype with one identity pair: float16 and float32
            // with the double one, float64 with the float one
            if !common::sweep_one_of(i + 1, p, 2) {
                continue;
            }
            for (what, lo, hi) in [
                ("all negative", -1000.0, -0.5),
                ("all positive", 0.5, 1000.0),
                ("mixed", -1000.0, 1000.0),
            ] {
                let label = format!("{d} identity pair {p}, {what}");
                for n in [1usize, 31, 33, 1000, 100_003] {
                    let vals: Vec<f64> = (0..n).map(|_| nz(&mut rng, lo, hi)).collect();
                    let (h, x) = make(d, &vals, &[n]);
                    let got = back(&mx.call((&x,)).unwrap());
                    assert_eq!(
                        got,
                        vec![fold(&mut h.iter().copied(), true)],
                        "{label} n={n} max"
                    );
                    let got = back(&mn.call((&x,)).unwrap());
                    assert_eq!(
                        got,
                        vec![fold(&mut h.iter().copied(), false)],
                        "{label} n={n} min"
                    );
                }
                let (r, c) = (37usize, 1001usize);
                let vals: Vec<f64> = (0..r * c).map(|_| nz(&mut rng, lo, hi)).collect();
                let (h, x) = make(d, &vals, &[r, c]);
                let rows_max: Vec<f64> = (0..r)
                    .map(|i| fold(&mut h[i * c..(i + 1) * c].iter().copied(), true))
                    .collect();
                let cols_min: Vec<f64> = (0..c)
                    .map(|j| fold(&mut (0..r).map(|i| h[i * c + j]), false))
                    .collect();
                assert_eq!(
                    back(&mx.axis(1).call((&x,)).unwrap()),
                    rows_max,
                    "{label} rows max"
                );
                assert_eq!(
                    back(&mn.axis(0).call((&x,)).unwrap()),
                    cols_min,
                    "{label} cols min"
                );
                assert_eq!(
                    back(&mn.axis(1).call((&x.t(),)).unwrap()),
                    cols_min,
                    "{label} transposed min"
                );
            }
            // empty reductions give the identity: -inf and +inf
            let e = Array::zeros(&[3, 0], d).unwrap();
            assert_eq!(
                back(&mx.axis(1).call((&e,)).unwrap()),
                vec![f64::NEG_INFINITY; 3],
                "{d} empty max"
            );
            assert_eq!(
                back(&mn.axis(1).call((&e,)).unwrap()),
                vec![f64::INFINITY; 3],
                "{d} empty min"
            );
        }
    }
    // the other constants in an operation: PI, INF and NaN of both precisions
    let k = ElementwiseKernel::new(
        "T x",
        "T y",
        "y = x > 1 ? (T)CUDART_PI : (x < -1 ? (T)-CUDART_INF : (x == 0 ? (T)CUDART_NAN_F : (T)CUDART_PI_F))",
        "constants_op",
    )
    .unwrap();
    let y = k
        .call((&dev(&[2.0f64, -2.0, 0.0, 0.5], &[4]),))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(y[0], std::f64::consts::PI);
    assert_eq!(y[1], f64::NEG_INFINITY);
    assert!(y[2].is_nan());
    assert_eq!(y[3], f64::from(std::f32::consts::PI));
}

// =========================================================================================
// Semantics
// =========================================================================================

#[test]
fn empty_reductions_with_and_without_identity() {
    require_gpu!();
    let [ssq, ssq_nd] = ssq_kernels("empty_ssq");
    let [mx, mx_nd] = max_kernels("empty_max");
    for k in [&ssq, &ssq_nd] {
        let x = Array::zeros(&[3, 0], DType::F64).unwrap();
        let y = k.axis(1).call((&x,)).unwrap();
        assert_eq!((y.shape(), y.dtype()), (&[3usize][..], DType::F64));
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.0; 3]);
        let y = k.axis(1).keepdims(true).call((&x,)).unwrap();
        assert_eq!(y.shape(), &[3, 1]);
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.0; 3]);
        let y = k
            .axis(0)
            .call((&Array::zeros(&[0, 4], DType::F32).unwrap(),))
            .unwrap();
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 4]);
        // a full reduction of nothing
        let y = k.call((&Array::zeros(&[0], DType::I32).unwrap(),)).unwrap();
        assert_eq!(
            (y.shape(), y.to_vec::<i32>().unwrap()),
            (&[] as &[usize], vec![0])
        );
        let y = k
            .keepdims(true)
            .call((&Array::zeros(&[2, 0, 3], DType::F64).unwrap(),))
            .unwrap();
        assert_eq!(y.shape(), &[1, 1, 1]);
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.0]);
        // an empty reduced axis next to a non-empty one
        let y = k
            .axis([0, 2])
            .call((&Array::zeros(&[2, 5, 0], DType::F64).unwrap(),))
            .unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.0; 5]);
    }
    // post_map applied to the identity, for every output
    let k = ReductionKernel::new(
        "T x",
        "T s, int64 n",
        "x",
        "a + b",
        "s = a * 2 + 1; n = 42",
        Some("5"),
        "post_identity",
    )
    .unwrap();
    let outs = k
        .axis(1)
        .call_all((&Array::zeros(&[3, 0], DType::F64).unwrap(),))
        .unwrap();
    assert_eq!(outs.len(), 2);
    assert_eq!(outs[0].to_vec::<f64>().unwrap(), vec![11.0; 3]);
    assert_eq!(outs[1].to_vec::<i64>().unwrap(), vec![42; 3]);
    // no identity: an error naming the kernel
    for k in [&mx, &mx_nd] {
        let cases: [(&[usize], Option<&[isize]>); 5] = [
            (&[3, 0], Some(&[1])),
            (&[0], None),
            (&[0], Some(&[0])),
            (&[2, 0, 3], Some(&[0, 1])),
            (&[4, 0], None),
        ];
        for (shape, axes) in cases {
            let x = Array::zeros(shape, DType::F64).unwrap();
            let e = over(k, axes, false).call((&x,)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument);
            assert_eq!(
                e.to_string(),
                "zero-size array to reduction operation empty_max which has no identity",
                "{shape:?} {axes:?}"
            );
        }
    }
}

#[test]
fn empty_outputs_return_without_compiling_or_launching() {
    require_gpu!();
    // The expressions do not compile: an empty output must return before compiling.
    let never = ReductionKernel::new(
        "T x",
        "T y",
        "x +* not C++",
        "a +",
        "y = ",
        Some("0"),
        "never_red",
    )
    .unwrap();
    let never_noid = ReductionKernel::new(
        "T x",
        "T y",
        "x +* not C++",
        "a +",
        "y = ",
        None,
        "never_red2",
    )
    .unwrap();
    let x = Array::zeros(&[0, 5], DType::F32).unwrap();
    for k in [&never, &never_noid] {
        let y = k.axis(1).call((&x,)).unwrap();
        assert_eq!((y.shape(), y.dtype()), (&[0usize][..], DType::F32));
        let y = k.axis(1).keepdims(true).call((&x,)).unwrap();
        assert_eq!(y.shape(), &[0, 1]);
        let y = k.axis(Vec::<isize>::new()).call((&x,)).unwrap();
        assert_eq!(y.shape(), &[0, 5]);
        let out = Array::zeros(&[0], DType::F32).unwrap();
        let y = k.axis(-1).call((&x, &out)).unwrap();
        assert!(y.shares_memory(&out));
        let outs = k.axis(1).call_all((&x,)).unwrap();
        assert_eq!(outs.len(), 1);
    }
    // ... whereas an empty reduction with a non-empty output launches (post_map(identity))
    assert_eq!(
        never.axis(0).call((&x,)).unwrap_err().kind(),
        ErrorKind::Compile
    );
    assert_eq!(
        never
            .call((&Array::ones(&[3], DType::F32).unwrap(),))
            .unwrap_err()
            .kind(),
        ErrorKind::Compile
    );
}

#[test]
fn outputs_given_by_the_caller() {
    require_gpu!();
    let mut rng = Rng::new(14);
    let [ssq, ssq_nd] = ssq_kernels("given_ssq");
    let (r, c) = (6usize, 7usize);
    let h = rand_f64(&mut rng, r * c);
    let x = dev(&h, &[r, c]);
    let rows: Vec<f64> = (0..r)
        .map(|i| nsum(h[i * c..(i + 1) * c].iter().map(|v| v * v)))
        .collect();
    let close = |got: &[f64], want: &[f64], what: &str| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{what} [{i}]: {g} vs {w}"
            );
        }
    };
    for k in [&ssq, &ssq_nd] {
        // contiguous: written in place and returned
        let out = Array::zeros(&[r], DType::F64).unwrap();
        let y = k.axis(1).call((&x, &out)).unwrap();
        assert!(y.shares_memory(&out) && y.data_ptr() == out.data_ptr());
        close(&out.to_vec::<f64>().unwrap(), &rows, "contiguous");
        // every other element of a buffer: the rest keeps its values
        let base = Array::full(&[2 * r], -1.0f64, DType::F64).unwrap();
        let out = base.slice(&s![1..;2]).unwrap();
        k.axis(1).call((&x, &out)).unwrap();
        let b = base.to_vec::<f64>().unwrap();
        for i in 0..r {
            assert_eq!(b[2 * i], -1.0, "untouched [{}]", 2 * i);
        }
        close(
            &b.iter().skip(1).step_by(2).copied().collect::<Vec<_>>(),
            &rows,
            "stepped",
        );
        // reversed
        let base = Array::zeros(&[r], DType::F64).unwrap();
        k.axis(-1)
            .call((&x, &base.slice(&s![..;-1]).unwrap()))
            .unwrap();
        let mut rev = rows.clone();
        rev.reverse();
        close(&base.to_vec::<f64>().unwrap(), &rev, "reversed");
        // keepdims: an (r, 1) column cut out of a wider matrix
        let base = Array::full(&[r, 3], 7.0f64, DType::F64).unwrap();
        let col = base.slice(&s![.., 1..2]).unwrap();
        assert_eq!(col.shape(), &[r, 1]);
        k.axis(1).keepdims(true).call((&x, &col)).unwrap();
        let b = base.to_vec::<f64>().unwrap();
        for i in 0..r {
            assert_eq!((b[3 * i], b[3 * i + 2]), (7.0, 7.0));
        }
        close(
            &b.iter().skip(1).step_by(3).copied().collect::<Vec<_>>(),
            &rows,
            "keepdims column",
        );
    }
    // a transposed 2-d output of a 3-d reduction over the middle axis
    let (a, m, b) = (4usize, 5usize, 6usize);
    let h3 = rand_f64(&mut rng, a * m * b);
    let x3 = dev(&h3, &[a, m, b]);
    let want: Vec<f64> = (0..a * b)
        .map(|ij| {
            let (i, j) = (ij / b, ij % b);
            nsum((0..m).map(|k| h3[(i * m + k) * b + j].powi(2)))
        })
        .collect();
    for k in [&ssq, &ssq_nd] {
        let base = Array::zeros(&[b, a], DType::F64).unwrap();
        let out = base.t();
        assert_eq!(out.shape(), &[a, b]);
        let y = k.axis(1).call((&x3, &out)).unwrap();
        assert!(y.shares_memory(&base));
        close(&out.to_vec::<f64>().unwrap(), &want, "transposed output");
        let bt: Vec<f64> = base.to_vec::<f64>().unwrap();
        for i in 0..a {
            for j in 0..b {
                let (g, w) = (bt[j * a + i], want[i * b + j]);
                assert!((g - w).abs() <= 1e-12 * w, "base ({j}, {i})");
            }
        }
    }
    // several outputs given: all written, all returned by call_all
    let k = ReductionKernel::new(
        "T x",
        "T s, int64 n",
        "x",
        "a + b",
        "s = a; n = _in_ind.size() / _out_ind.size()",
        Some("0"),
        "given_two",
    )
    .unwrap();
    let (s_out, n_out) = (
        Array::zeros(&[r], DType::F64).unwrap(),
        Array::zeros(&[r], DType::I64).unwrap(),
    );
    let outs = k.axis(1).call_all((&x, &s_out, &n_out)).unwrap();
    assert_eq!(outs.len(), 2);
    assert!(outs[0].shares_memory(&s_out) && outs[1].shares_memory(&n_out));
    assert_eq!(n_out.to_vec::<i64>().unwrap(), vec![c as i64; r]);
    let sums: Vec<f64> = (0..r)
        .map(|i| nsum(h[i * c..(i + 1) * c].iter().copied()))
        .collect();
    let got = s_out.to_vec::<f64>().unwrap();
    for i in 0..r {
        let scale: f64 = h[i * c..(i + 1) * c].iter().map(|v| v.abs()).sum();
        assert!((got[i] - sums[i]).abs() <= 1e-12 * scale);
    }
    // call with given outputs returns the first
    let y = k.axis(1).call((&x, &s_out, &n_out)).unwrap();
    assert!(y.shares_memory(&s_out));
    // an output's dtype decides a placeholder no input decides
    let k = sum_kernel("T x", "U y", "out_decides");
    let y32 = Array::zeros(&[r], DType::F32).unwrap();
    k.axis(1).call((&x, &y32)).unwrap();
    let got = y32.to_vec::<f32>().unwrap();
    for i in 0..r {
        let scale: f64 = h[i * c..(i + 1) * c].iter().map(|v| v.abs()).sum();
        assert!(
            (got[i] as f64 - sums[i]).abs() <= 1e-6 * scale,
            "U=float32 [{i}]"
        );
    }
}

#[test]
fn several_outputs_are_all_returned() {
    require_gpu!();
    let mut rng = Rng::new(16);
    let k = ReductionKernel::new(
        "T x",
        "T s, int64 n, float64 mean",
        "x",
        "a + b",
        "s = a; n = _in_ind.size() / _out_ind.size(); mean = (double)a / n",
        Some("0"),
        "sum_count_mean",
    )
    .unwrap();
    let (r, c) = (11usize, 3001usize);
    let h: Vec<f32> = (0..r * c)
        .map(|_| nz(&mut rng, -10.0, 10.0) as f32)
        .collect();
    let x = dev(&h, &[r, c]);
    for keepdims in [false, true] {
        let outs = k.axis(1).keepdims(keepdims).call_all((&x,)).unwrap();
        assert_eq!(outs.len(), 3);
        let shape: &[usize] = if keepdims { &[r, 1] } else { &[r] };
        assert_eq!(
            outs.iter()
                .map(|o| (o.shape().to_vec(), o.dtype()))
                .collect::<Vec<_>>(),
            vec![
                (shape.to_vec(), DType::F32),
                (shape.to_vec(), DType::I64),
                (shape.to_vec(), DType::F64)
            ]
        );
        assert_eq!(outs[1].to_vec::<i64>().unwrap(), vec![c as i64; r]);
        let (s, mean) = (
            outs[0].to_vec::<f32>().unwrap(),
            outs[2].to_vec::<f64>().unwrap(),
        );
        for i in 0..r {
            let row = &h[i * c..(i + 1) * c];
            let want = nsum(row.iter().map(|&v| v as f64));
            let scale: f64 = row.iter().map(|v| v.abs() as f64).sum();
            assert!((s[i] as f64 - want).abs() <= 1e-4 * scale, "sum [{i}]");
            assert!(
                (mean[i] - want / c as f64).abs() <= 1e-4 * scale / c as f64,
                "mean [{i}]"
            );
        }
        // call returns the first output only
        let y = k.axis(1).keepdims(keepdims).call((&x,)).unwrap();
        assert_eq!((y.shape(), y.dtype()), (shape, DType::F32));
    }
    // full reduction
    let outs = k.call_all((&x,)).unwrap();
    assert_eq!(outs[1].to_vec::<i64>().unwrap(), vec![(r * c) as i64]);
}

#[test]
fn reduction_and_output_indices() {
    require_gpu!();
    // `_J`: the position in the group. Its max is the group size - 1, its sum n(n-1)/2.
    let jmax = ReductionKernel::new(
        "T x",
        "int64 j",
        "_J",
        "a > b ? a : b",
        "j = a",
        None,
        "j_max",
    )
    .unwrap();
    let jsum =
        ReductionKernel::new("T x", "int64 j", "_J", "a + b", "j = a", Some("0"), "j_sum").unwrap();
    // `_i`: the output's C-order index, in map_expr and post_map_expr
    let iout = ReductionKernel::new(
        "T x",
        "int64 y",
        "_i",
        "a > b ? a : b",
        "y = a * 1000 + _i",
        None,
        "i_out",
    )
    .unwrap();
    // `_in_ind.size()` and `_out_ind.size()`
    let sizes = ReductionKernel::new(
        "T x",
        "int64 n, int64 m",
        "0",
        "a + b",
        "n = _in_ind.size(); m = _out_ind.size()",
        Some("0"),
        "ind_sizes",
    )
    .unwrap();
    // `_J` is the C-order position over the reduced axes, whatever the memory layout:
    // x holds the expected `_J` of each element, and the kernel counts mismatches.
    let jcheck = ReductionKernel::new(
        "T x",
        "int64 bad",
        "x == (T)_J ? 0 : 1",
        "a + b",
        "bad = a",
        Some("0"),
        "j_check",
    )
    .unwrap();
    let cases: Vec<(Vec<usize>, Vec<isize>)> = vec![
        (vec![10], vec![0]),
        (vec![3, 4, 5], vec![0, 2]),
        (vec![3, 4, 5], vec![1, 2]),
        (vec![3, 4, 5], vec![0, 1]),
        (vec![3, 4, 5], vec![1]),
        (vec![3, 4, 5], vec![0, 1, 2]),
        (vec![6, 2, 3, 5], vec![0, 3]),
        (vec![4, 100_000], vec![1]),
        (vec![100_000, 4], vec![0]),
        (vec![2, 300, 700], vec![1, 2]),
        (vec![7, 31], vec![0]),
    ];
    for (shape, axes) in &cases {
        let nd = shape.len();
        let red = reduced_mask(nd, Some(axes));
        let o: usize = shape
            .iter()
            .zip(&red)
            .filter(|(_, r)| !**r)
            .map(|(d, _)| d)
            .product();
        let rn: usize = shape
            .iter()
            .zip(&red)
            .filter(|(_, r)| **r)
            .map(|(d, _)| d)
            .product();
        let n = o * rn;
        let what = format!("{shape:?} axes {axes:?}");
        // the expected `_J` of every element, in C order
        let mut jv = Vec::with_capacity(n);
        let g = groups(shape, &red, |idx| {
            let mut j = 0usize;
            for d in 0..nd {
                if red[d] {
                    j = j * shape[d] + idx[d];
                }
            }
            jv.push(j as f64);
            j as f64
        });
        for grp in &g {
            assert!(grp.iter().enumerate().all(|(k, &j)| k as f64 == j));
        }
        let x = dev(&jv, shape);
        let ax: &[isize] = axes;
        assert_eq!(
            jcheck
                .axis(ax)
                .call((&x,))
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            vec![0; o],
            "{what}: _J order"
        );
        // the same values seen through a reversed and permuted copy of the layout
        let perm: Vec<isize> = (0..nd as isize).rev().collect();
        let xt = x
            .permute(&perm)
            .unwrap()
            .copy()
            .unwrap()
            .permute(&perm)
            .unwrap();
        assert_eq!(xt.shape(), &shape[..]);
        assert_eq!(
            jcheck
                .axis(ax)
                .call((&xt,))
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            vec![0; o],
            "{what}: _J order, F-ordered input"
        );
        assert_eq!(
            jmax.axis(ax).call((&x,)).unwrap().to_vec::<i64>().unwrap(),
            vec![rn as i64 - 1; o],
            "{what}: max _J"
        );
        assert_eq!(
            jsum.axis(ax).call((&x,)).unwrap().to_vec::<i64>().unwrap(),
            vec![(rn * (rn - 1) / 2) as i64; o],
            "{what}: sum _J"
        );
        assert_eq!(
            iout.axis(ax).call((&x,)).unwrap().to_vec::<i64>().unwrap(),
            (0..o as i64).map(|i| i * 1001).collect::<Vec<_>>(),
            "{what}: _i"
        );
        let outs = sizes.axis(ax).call_all((&x,)).unwrap();
        assert_eq!(
            outs[0].to_vec::<i64>().unwrap(),
            vec![n as i64; o],
            "{what}"
        );
        assert_eq!(
            outs[1].to_vec::<i64>().unwrap(),
            vec![o as i64; o],
            "{what}"
        );
    }
    // a full reduction: one output, `_i` = 0
    let x = Array::ones(&[1_000_003], DType::F32).unwrap();
    assert_eq!(
        jmax.call((&x,)).unwrap().to_vec::<i64>().unwrap(),
        vec![1_000_002]
    );
    assert_eq!(iout.call((&x,)).unwrap().to_vec::<i64>().unwrap(), vec![0]);
    let outs = sizes.call_all((&x,)).unwrap();
    assert_eq!(outs[0].to_vec::<i64>().unwrap(), vec![1_000_003]);
    assert_eq!(outs[1].to_vec::<i64>().unwrap(), vec![1]);
    // keepdims does not change `_i` (C order over the kept axes)
    let x = Array::ones(&[3, 4, 5], DType::F32).unwrap();
    assert_eq!(
        iout.axis(1)
            .keepdims(true)
            .call((&x,))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        (0..15).map(|i| i * 1001).collect::<Vec<_>>()
    );
}

#[test]
fn raw_and_scalar_parameters() {
    require_gpu!();
    let mut rng = Rng::new(18);
    // raw weights indexed by the position in the reduction
    let wsum = ReductionKernel::new(
        "T x, raw T w",
        "T y",
        "x * w[_J]",
        "a + b",
        "y = a",
        Some("0"),
        "raw_wsum",
    )
    .unwrap();
    let (r, c) = (9usize, 1000usize);
    let hx = rand_f64(&mut rng, r * c);
    let hw = rand_f64(&mut rng, c);
    let (x, w) = (dev(&hx, &[r, c]), dev(&hw, &[c]));
    let y = wsum.axis(1).call((&x, &w)).unwrap();
    let g: Vec<Vec<f64>> = (0..r)
        .map(|i| (0..c).map(|j| hx[i * c + j] * hw[j]).collect())
        .collect();
    let d = sum_mismatch(&y.to_vec::<f64>().unwrap(), &g, 1e-12);
    assert!(d.is_none(), "axis 1: {d:?}");
    // the same through a transposed input reduced over axis 0
    let xt = dev(&hx, &[r, c]).t();
    let y = wsum.axis(0).call((&xt, &w)).unwrap();
    let d = sum_mismatch(&y.to_vec::<f64>().unwrap(), &g, 1e-12);
    assert!(d.is_none(), "transposed axis 0: {d:?}");
    // full reduction of a vector: a dot product
    let y = wsum.call((&dev(&hx[..c], &[c]), &w)).unwrap();
    let d = sum_mismatch(&y.to_vec::<f64>().unwrap(), &g[..1], 1e-12);
    assert!(d.is_none(), "dot: {d:?}");
    // two reduced axes: `_J` runs in C order over both; a 2-d raw array is indexed linearly
    let (a, b, cc) = (3usize, 4usize, 5usize);
    let h3 = rand_f64(&mut rng, a * b * cc);
    let hw2 = rand_f64(&mut rng, b * cc);
    let y = wsum
        .axis([1, 2])
        .call((&dev(&h3, &[a, b, cc]), &dev(&hw2, &[b, cc])))
        .unwrap();
    let g: Vec<Vec<f64>> = (0..a)
        .map(|i| (0..b * cc).map(|j| h3[i * b * cc + j] * hw2[j]).collect())
        .collect();
    let d = sum_mismatch(&y.to_vec::<f64>().unwrap(), &g, 1e-12);
    assert!(d.is_none(), "axes (1, 2): {d:?}");
    // the raw array's dtype takes part in the placeholder: float32 weights do not fit T
    assert_err(
        wsum.axis(1).call((&x, &dev(&[1.0f32; 1000], &[1000]))),
        ErrorKind::DType,
        "Type is mismatched.",
    );

    // scalars: converted to their parameter types
    let scaled = ReductionKernel::new(
        "T x, float64 s",
        "T y",
        "x * s",
        "a + b",
        "y = a",
        Some("0"),
        "scaled",
    )
    .unwrap();
    let hx = rand_f64(&mut rng, 10_001);
    let x = dev(&hx, &[10_001]);
    for (s, sv) in [
        (Scalar::from(2.5f64), 2.5f64),
        (Scalar::from(3i32), 3.0),
        (Scalar::from(0.5f32), 0.5),
    ] {
        let y = scaled
            .call(vec![Operand::Array(&x), Operand::Scalar(s)])
            .unwrap();
        let d = sum_mismatch(
            &y.to_vec::<f64>().unwrap(),
            &[hx.iter().map(|v| v * sv).collect()],
            1e-12,
        );
        assert!(d.is_none(), "s={sv}: {d:?}");
    }
    // a scalar typed by the placeholder, on integers
    let offset = ReductionKernel::new(
        "T x, T s",
        "T y",
        "x + s",
        "a + b",
        "y = a",
        Some("0"),
        "offset",
    )
    .unwrap();
    let hi: Vec<i32> = (0..1000).map(|v| v - 500).collect();
    let y = offset.call((&dev(&hi, &[1000]), 7i32)).unwrap();
    assert_eq!(
        y.to_vec::<i32>().unwrap(),
        vec![hi.iter().sum::<i32>() + 7000]
    );
    // out of range for the parameter type
    let k8 = ReductionKernel::new(
        "T x, int8 s",
        "T y",
        "x + s",
        "a + b",
        "y = a",
        Some("0"),
        "int8_s",
    )
    .unwrap();
    let m = assert_err(
        k8.call((&dev(&hi, &[1000]), 300i64)),
        ErrorKind::DType,
        "'s'",
    );
    assert!(m.contains("int8_s"), "{m}");
    // a placeholder only a scalar has is not decided
    let ku = ReductionKernel::new(
        "T x, U s",
        "T y",
        "x * s",
        "a + b",
        "y = a",
        Some("0"),
        "undecided",
    )
    .unwrap();
    assert_err(ku.call((&x, 2.0f64)), ErrorKind::DType, "placeholder U");
    // `i` is an ordinary parameter name here
    let ki = ReductionKernel::new(
        "T i",
        "T y",
        "i * 2",
        "a + b",
        "y = a",
        Some("0"),
        "i_param",
    )
    .unwrap();
    assert_eq!(
        ki.call((&dev(&hi, &[1000]),))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![hi.iter().sum::<i32>() * 2]
    );
}

#[test]
fn non_const_inputs_are_writable_in_map_expr() {
    require_gpu!();
    let k = ReductionKernel::new(
        "_non_const T x",
        "T y",
        "(x = x * 2)",
        "a + b",
        "y = a",
        Some("0"),
        "double_in_place",
    )
    .unwrap();
    let h: Vec<i64> = (1..=10_000).map(|v| v * 3 - 7000).collect();
    let x = dev(&h, &[10_000]);
    let y = k.call((&x,)).unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), vec![2 * h.iter().sum::<i64>()]);
    assert_eq!(
        x.to_vec::<i64>().unwrap(),
        h.iter().map(|v| v * 2).collect::<Vec<_>>()
    );
    // over an axis of a transposed view: every element is visited once
    let m = x.reshape(&[100, 100]).unwrap();
    let y = k.axis(0).call((&m.t(),)).unwrap();
    let want: Vec<i64> = (0..100)
        .map(|i| (0..100).map(|j| h[i * 100 + j] * 4).sum())
        .collect();
    assert_eq!(y.to_vec::<i64>().unwrap(), want);
    assert_eq!(
        x.to_vec::<i64>().unwrap(),
        h.iter().map(|v| v * 4).collect::<Vec<_>>()
    );
}

#[test]
fn argmax_with_a_struct_accumulator() {
    require_gpu!();
    let argmax = ReductionKernel::new(
        "T x",
        "int64 y",
        "ArgMax(x, _J)",
        "arg_max(a, b)",
        "y = a.i",
        None,
        "argmax",
    )
    .unwrap()
    .reduce_type("ArgMax")
    .preamble(
        "struct ArgMax {\n\
               double v; long long i;\n\
               __device__ ArgMax() : v(0), i(0) {}\n\
               __device__ ArgMax(double v_, long long i_) : v(v_), i(i_) {}\n\
             };\n\
             // larger value; on ties the smaller index (commutative and associative)\n\
             __device__ __forceinline__ ArgMax arg_max(const ArgMax& p, const ArgMax& q) {\n\
               return (q.v > p.v || (q.v == p.v && q.i < p.i)) ? q : p;\n\
             }",
    );
    let first_max = |v: &[f64]| -> i64 {
        let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        v.iter().position(|&a| a == m).unwrap() as i64
    };
    let argmax_of = |x: &Array| -> Vec<i64> { argmax.call((x,)).unwrap().to_vec::<i64>().unwrap() };
    let mut rng = Rng::new(20);
    // few distinct values: many ties, all negative
    for n in [1usize, 2, 33, 1000, 1_000_003] {
        let h: Vec<f64> = (0..n).map(|_| -(rng.usize(1, 30) as f64)).collect();
        let got = argmax_of(&dev(&h, &[n]));
        assert_eq!(got, vec![first_max(&h)], "n={n}");
        let hf: Vec<f32> = h.iter().map(|&v| v as f32).collect();
        let got = argmax_of(&dev(&hf, &[n]));
        assert_eq!(got, vec![first_max(&h)], "float32 n={n}");
    }
    // the maximum at the very end, and everything equal
    let mut h = vec![-5.0f64; 100_000];
    h[99_999] = -1.0;
    assert_eq!(argmax_of(&dev(&h, &[100_000])), vec![99_999]);
    let h = vec![-3.0f64; 100_000];
    assert_eq!(argmax_of(&dev(&h, &[100_000])), vec![0]);
    // along each axis (inner and outer strategies)
    let (r, c) = (37usize, 5000usize);
    let h: Vec<f64> = (0..r * c)
        .map(|_| rng.usize(0, 50) as f64 - 100.0)
        .collect();
    let x = dev(&h, &[r, c]);
    let rows: Vec<i64> = (0..r).map(|i| first_max(&h[i * c..(i + 1) * c])).collect();
    let cols: Vec<i64> = (0..c)
        .map(|j| first_max(&(0..r).map(|i| h[i * c + j]).collect::<Vec<_>>()))
        .collect();
    assert_rows_and_cols(&argmax, &argmax, &x, &rows, &cols);
    assert_eq!(
        argmax
            .reduce_dims(false)
            .axis(0)
            .call((&x,))
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        cols
    );
}

#[test]
fn zero_d_inputs() {
    require_gpu!();
    let [ssq, ssq_nd] = ssq_kernels("zero_d_ssq");
    let [mx, _] = max_kernels("zero_d_max");
    let x = Array::scalar(-3.5f64).unwrap();
    for k in [&ssq, &ssq_nd] {
        let y = k.call((&x,)).unwrap();
        assert_eq!(y.shape(), &[] as &[usize]);
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![12.25]);
        let y = k.keepdims(true).call((&x,)).unwrap();
        assert_eq!(y.shape(), &[] as &[usize]);
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![12.25]);
        let y = k.axis(Vec::<isize>::new()).call((&x,)).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![12.25]);
        let e = k.axis(0).call((&x,)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        assert_eq!(
            e.to_string(),
            "axis 0 is out of bounds for array of dimension 0"
        );
    }
    assert_eq!(mx.call((&x,)).unwrap().to_vec::<f64>().unwrap(), vec![-3.5]);
    assert_eq!(
        mx.call((&Array::scalar(7i16).unwrap(),))
            .unwrap()
            .to_vec::<i16>()
            .unwrap(),
        vec![7]
    );
    // a 0-d input broadcast against a vector
    let dot = dot_kernel("zero_d_dot");
    let v = dev(&[1.0f64, 2.0, 3.0], &[3]);
    assert_eq!(
        dot.call((&Array::scalar(2.0f64).unwrap(), &v))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![12.0]
    );
}

#[test]
#[allow(clippy::needless_borrows_for_generic_args)] // `&[isize; N]` is one of the forms
fn axis_forms_and_reducing_no_axis() {
    require_gpu!();
    let [ssq, _] = ssq_kernels("axis_forms");
    let mut rng = Rng::new(22);
    let h = rand_f64(&mut rng, 3 * 4 * 5);
    let x = dev(&h, &[3, 4, 5]);
    let want = ssq
        .axis([0isize, 2])
        .call((&x,))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(want.len(), 4);
    for (what, y) in [
        ("&[isize]", ssq.axis(&[0isize, 2][..]).call((&x,))),
        ("[isize; 2] reversed", ssq.axis([2isize, 0]).call((&x,))),
        ("&[isize; 2]", ssq.axis(&[-1isize, 0]).call((&x,))),
        ("Vec", ssq.axis(vec![-3isize, -1]).call((&x,))),
        ("Axes", ssq.axis(Axes::from(vec![0isize, 2])).call((&x,))),
    ] {
        assert_eq!(y.unwrap().to_vec::<f64>().unwrap(), want, "{what}");
    }
    let one = ssq
        .axis(1isize)
        .call((&x,))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(
        ssq.axis(1i32).call((&x,)).unwrap().to_vec::<f64>().unwrap(),
        one
    );
    assert_eq!(
        ssq.axis(1usize)
            .call((&x,))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        one
    );
    assert_eq!(
        ssq.axis(-2).call((&x,)).unwrap().to_vec::<f64>().unwrap(),
        one
    );
    // the last setter wins
    assert_eq!(
        ssq.axis(0)
            .axis(1)
            .call((&x,))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        one
    );
    // every axis listed = no axis argument
    let all = ssq.call((&x,)).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(
        ssq.axis([0isize, 1, 2])
            .call((&x,))
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        all
    );
    // no axis at all: map and post_map per element
    let y = ssq.axis(Vec::<isize>::new()).call((&x,)).unwrap();
    assert_eq!(y.shape(), &[3, 4, 5]);
    assert_eq!(
        y.to_vec::<f64>().unwrap(),
        h.iter().map(|v| v * v).collect::<Vec<_>>()
    );
    let [mx, _] = max_kernels("axis_forms_max");
    let y = mx.axis(Vec::<isize>::new()).call((&x.t(),)).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), x.t().to_vec::<f64>().unwrap());
}

#[test]
fn preamble_options_and_reduce_type() {
    require_gpu!();
    let h: Vec<f32> = (1..=1000).map(|v| v as f32 * 0.25).collect();
    let x = dev(&h, &[1000]);
    let want: f32 = h.iter().sum::<f32>(); // exact: multiples of 1/4 below 2^22
    // a macro from the options
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x * SCALE",
        "a + b",
        "y = a",
        Some("0"),
        "scaled_opt",
    )
    .unwrap()
    .option("-DSCALE=3");
    assert_eq!(
        k.call((&x,)).unwrap().to_vec::<f32>().unwrap(),
        vec![want * 3.0]
    );
    let k = k.options(CompileOptions::new().option("-DSCALE=5"));
    assert_eq!(
        k.call((&x,)).unwrap().to_vec::<f32>().unwrap(),
        vec![want * 5.0]
    );
    // a helper from the preamble
    let k = ReductionKernel::new("T x", "T y", "sq(x)", "a + b", "y = a", Some("0"), "pre_sq")
        .unwrap()
        .preamble("template <typename V> __device__ V sq(V v) { return v * v; }");
    let got = k.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0] as f64;
    let want_sq = nsum(h.iter().map(|&v| (v * v) as f64));
    assert!((got - want_sq).abs() <= 1e-6 * want_sq);
    // `_type_reduce`: the first output's type unless given
    let size_of = |rt: Option<&str>| {
        let k = ReductionKernel::new(
            "T x",
            "T y",
            "x",
            "a + b",
            "y = (T)sizeof(_type_reduce)",
            Some("0"),
            "rt_size",
        )
        .unwrap();
        let k = match rt {
            Some(t) => k.reduce_type(t),
            None => k,
        };
        k.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0]
    };
    assert_eq!(size_of(None), 4.0);
    assert_eq!(size_of(Some("double")), 8.0);
    assert_eq!(size_of(Some("T")), 4.0);
    // a double accumulator for float data: only the final rounding remains
    let mut rng = Rng::new(24);
    let hr: Vec<f32> = (0..1_000_003).map(|_| rng.f64(0.5, 1.5) as f32).collect();
    let want = nsum(hr.iter().map(|&v| v as f64));
    let k = sum_kernel("T x", "T y", "sum_f32_dacc").reduce_type("double");
    let got = k
        .call((&dev(&hr, &[1_000_003]),))
        .unwrap()
        .to_vec::<f32>()
        .unwrap()[0] as f64;
    assert!(
        (got - want).abs() <= want * (2f64.powi(-24) + 1e-12),
        "{got} vs {want}"
    );
    // the accumulator must fit the partials' slots (64 bytes)
    let big = ReductionKernel::new("T x", "T y", "Big()", "a", "y = 0", Some(""), "too_big")
        .unwrap()
        .reduce_type("Big")
        .preamble("struct Big { double v[9]; __device__ Big() {} };");
    assert_err(big.call((&x,)), ErrorKind::Compile, "64 bytes");
}

#[test]
fn calls_on_a_given_stream() {
    require_gpu!();
    let [ssq, _] = ssq_kernels("stream_ssq");
    let mut rng = Rng::new(26);
    let (r, c) = (4usize, 300_007usize);
    let h = rand_f64(&mut rng, r * c);
    let x = dev(&h, &[r, c]);
    Stream::current().unwrap().synchronize().unwrap();
    let st = Stream::new().unwrap();
    let sq = map_groups(std::slice::from_ref(&h), |v| v * v);
    let rows = groups_of(&[r, c], &[false, true], &h);
    let rows_sq = map_groups(&rows, |v| v * v);
    // several split reductions queued on the stream before anything is read
    let full = ssq.stream(&st).call((&x,)).unwrap();
    let ax1 = ssq.axis(1).stream(&st).call((&x,)).unwrap();
    let ax1k = ssq.stream(&st).axis(-1).keepdims(true).call((&x,)).unwrap();
    let ax0 = ssq.stream(&st).axis(0).call((&x,)).unwrap();
    st.synchronize().unwrap();
    assert!(sum_mismatch(&full.to_vec::<f64>().unwrap(), &sq, 1e-12).is_none());
    assert!(sum_mismatch(&ax1.to_vec::<f64>().unwrap(), &rows_sq, 1e-12).is_none());
    assert_eq!(ax1k.shape(), &[r, 1]);
    assert!(sum_mismatch(&ax1k.to_vec::<f64>().unwrap(), &rows_sq, 1e-12).is_none());
    let cols = map_groups(&groups_of(&[r, c], &[true, false], &h), |v| v * v);
    assert!(sum_mismatch(&ax0.to_vec::<f64>().unwrap(), &cols, 1e-12).is_none());
    // the same bits as on the default stream
    let again = ssq.call((&x,)).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(
        again[0].to_bits(),
        full.to_vec::<f64>().unwrap()[0].to_bits()
    );
    // a stream made current is the default for later calls
    let _guard = st.make_current();
    let y = ssq.axis(1).call((&x,)).unwrap();
    st.synchronize().unwrap();
    assert!(sum_mismatch(&y.to_vec::<f64>().unwrap(), &rows_sq, 1e-12).is_none());
}

#[test]
fn concurrent_calls_from_threads() {
    require_gpu!();
    let sum = sum_kernel("T x", "T y", "sum_threads");
    std::thread::scope(|sc| {
        for t in 0..4u64 {
            let sum = &sum;
            sc.spawn(move || {
                let mut rng = Rng::new(80 + t);
                let own = Stream::new().unwrap();
                for round in 0..6 {
                    let (r, c) = (rng.usize(1, 5), 1000 + rng.usize(0, 200_000));
                    let h = rand_f64(&mut rng, r * c);
                    let x = dev(&h, &[r, c]);
                    let ctx = format!("thread {t} round {round} ({r}, {c})");
                    let (full, rows) = if round % 2 == 0 {
                        (
                            sum.call((&x,)).unwrap().to_vec::<f64>().unwrap(),
                            sum.axis(1).call((&x,)).unwrap().to_vec::<f64>().unwrap(),
                        )
                    } else {
                        Stream::current().unwrap().synchronize().unwrap();
                        let f = sum.stream(&own).call((&x,)).unwrap();
                        let rw = sum.stream(&own).axis(1).call((&x,)).unwrap();
                        own.synchronize().unwrap();
                        (f.to_vec::<f64>().unwrap(), rw.to_vec::<f64>().unwrap())
                    };
                    let d = sum_mismatch(&full, std::slice::from_ref(&h), 1e-12);
                    assert!(d.is_none(), "{ctx} full: {d:?}");
                    let d = sum_mismatch(&rows, &groups_of(&[r, c], &[false, true], &h), 1e-12);
                    assert!(d.is_none(), "{ctx} rows: {d:?}");
                }
            });
        }
    });
}

// =========================================================================================
// Errors that need a device
// =========================================================================================

#[test]
fn call_errors_match_cupy() {
    require_gpu!();
    let f32a = |shape: &[usize]| Array::ones(shape, DType::F32).unwrap();
    let [ssq, _] = ssq_kernels("err_ssq");
    let x = f32a(&[3, 4]);
    // axis out of range
    for ax in [2isize, -3, 7] {
        let e = ssq.axis(ax).call((&x,)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        assert_eq!(
            e.to_string(),
            format!("axis {ax} is out of bounds for array of dimension 2")
        );
    }
    let e = ssq.axis([0isize, 2]).call((&x,)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "axis 2 is out of bounds for array of dimension 2"
    );
    // duplicate axes, also written differently
    for axes in [vec![0isize, 0], vec![1, -1], vec![-2, 1, 0]] {
        let m = assert_err(
            ssq.axis(axes.clone()).call((&x,)),
            ErrorKind::Shape,
            "duplicate value in 'axis'",
        );
        assert!(m.starts_with("duplicate value in 'axis'"), "{axes:?}: {m}");
    }
    // output shape mismatch (keepdims or not)
    for (bad, keepdims) in [
        (&[4usize][..], false),
        (&[3, 1][..], false),
        (&[1, 3][..], false),
        (&[][..], false),
        (&[3][..], true),
        (&[1, 3][..], true),
    ] {
        let m = assert_err(
            ssq.axis(1).keepdims(keepdims).call((&x, &f32a(bad))),
            ErrorKind::Shape,
            "Out shape is mismatched",
        );
        assert!(m.starts_with("Out shape is mismatched"), "{bad:?}: {m}");
    }
    assert_err(
        ssq.call((&x, &f32a(&[1]))),
        ErrorKind::Shape,
        "Out shape is mismatched",
    );
    // an output does not broadcast: a full reduction's output is 0-d
    ssq.call((&x, &Array::zeros(&[], DType::F32).unwrap()))
        .unwrap();
    // a scalar where an output goes
    let m = assert_err(
        ssq.call((&x, 1.0f32)),
        ErrorKind::InvalidArgument,
        "Output arguments type must be",
    );
    assert!(m.contains("'y'"), "{m}");
    // dtype mismatch against a concrete type
    let concrete = sum_kernel("float32 x", "float32 y", "f32_sum");
    let x64 = Array::ones(&[3, 4], DType::F64).unwrap();
    assert_type_mismatch(concrete.call((&x64,)), "x float64 float32");
    assert_type_mismatch(
        concrete
            .axis(1)
            .call((&x, &Array::zeros(&[3], DType::F64).unwrap())),
        "y float64 float32",
    );
    // a placeholder bound by one array and contradicted by another
    let dot = dot_kernel("err_dot");
    assert_type_mismatch(dot.call((&x, &x64)), "y float64 float32 T");
    // outputs bind first: the input is the one that mismatches
    assert_type_mismatch(
        ssq.axis(1)
            .call((&x, &Array::zeros(&[3], DType::F64).unwrap())),
        "x float32 float64 T",
    );
    // unbroadcastable inputs
    let e = dot.call((&f32a(&[2]), &f32a(&[3]))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "operands could not be broadcast together with shapes (2,) (3,)"
    );
    let e = dot.axis(0).call((&f32a(&[2, 3]), &f32a(&[2]))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "operands could not be broadcast together with shapes (2, 3) (2,)"
    );
    // broadcasting inputs is fine; the output is not broadcast to
    let z = dot.axis(0).call((&f32a(&[5, 3]), &f32a(&[3]))).unwrap();
    assert_eq!(z.to_vec::<f32>().unwrap(), vec![5.0; 3]);
    // empty without identity
    let [mx, _] = max_kernels("err_max");
    let e = mx.axis(1).call((&f32a(&[3, 0]),)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "zero-size array to reduction operation err_max which has no identity"
    );
    // no non-raw input array
    let rawonly = ReductionKernel::new(
        "raw T w",
        "T y",
        "w[_J]",
        "a + b",
        "y = a",
        Some("0"),
        "raw_only",
    )
    .unwrap();
    assert_err(rawonly.call((&x,)), ErrorKind::InvalidArgument, "undecided");
    let scalar_only = ReductionKernel::new(
        "T s",
        "T y",
        "s",
        "a + b",
        "y = a",
        Some("0"),
        "scalar_only",
    )
    .unwrap();
    assert_err(
        scalar_only.call((1.0f32,)),
        ErrorKind::InvalidArgument,
        "undecided",
    );
    // a raw output must be given
    let raw_out = ReductionKernel::new(
        "T x",
        "raw T y",
        "x",
        "a + b",
        "y[_i] = a",
        Some("0"),
        "raw_out",
    )
    .unwrap();
    let m = assert_err(
        raw_out.call((&x,)),
        ErrorKind::InvalidArgument,
        "Output array size is Undecided",
    );
    assert!(m.starts_with("Output array size is Undecided"), "{m}");
    // ... and when given it is indexed by the user
    let y = Array::zeros(&[3], DType::F32).unwrap();
    raw_out.axis(1).call((&x, &y)).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![4.0; 3]);
    // the output placeholder no array decides
    let undecided = sum_kernel("T x", "U y", "undecided_out");
    assert_err(undecided.call((&x,)), ErrorKind::DType, "placeholder U");
}

#[test]
fn compile_errors_point_at_the_users_code() {
    require_gpu!();
    let x = Array::ones(&[8], DType::F32).unwrap();
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x + undefined_thing_42",
        "a + b",
        "y = a",
        Some("0"),
        "bad_map",
    )
    .unwrap();
    let e = k.call((&x,)).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), ErrorKind::Compile, "{m}");
    assert!(m.contains("undefined_thing_42"), "{m}");
    assert!(m.contains("this line comes from your map_expr"), "{m}");
    assert!(
        e.compile_log()
            .is_some_and(|l| l.contains("undefined_thing_42"))
    );
    // the error stays an error on the next call, with an axis too
    assert_eq!(k.call((&x,)).unwrap_err().kind(), ErrorKind::Compile);
    assert_eq!(
        k.axis(1)
            .call((&x.reshape(&[2, 4]).unwrap(),))
            .unwrap_err()
            .kind(),
        ErrorKind::Compile
    );
    // reduce_expr and post_map_expr (macros: the compiler may place the error where they
    // are used, so only the identifier is checked)
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x",
        "a + undefined_in_reduce",
        "y = a",
        Some("0"),
        "bad_reduce",
    )
    .unwrap();
    assert_err(k.call((&x,)), ErrorKind::Compile, "undefined_in_reduce");
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x",
        "a + b",
        "y = a + undefined_in_post",
        Some("0"),
        "bad_post",
    )
    .unwrap();
    assert_err(k.call((&x,)), ErrorKind::Compile, "undefined_in_post");
    // an unknown reduce_type
    let k = sum_kernel("T x", "T y", "bad_rt").reduce_type("no_such_type_77");
    assert_compile_error_in(k.call((&x,)), "no_such_type_77", "reduce_type");
    // a broken preamble is reported as the preamble
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "helper(x)",
        "a + b",
        "y = a",
        Some("0"),
        "bad_preamble",
    )
    .unwrap()
    .preamble("__device__ float helper(float v) { return v + not_declared_in_preamble; }");
    assert_compile_error_in(k.call((&x,)), "not_declared_in_preamble", "preamble");
    // an expression that does not type-check for one dtype only
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x % (T)3",
        "a + b",
        "y = a",
        Some("0"),
        "modulo_sum",
    )
    .unwrap();
    let hi: Vec<i32> = (1..=9).collect();
    assert_eq!(
        k.call((&dev(&hi, &[9]),)).unwrap().to_vec::<i32>().unwrap(),
        vec![hi.iter().map(|v| v % 3).sum::<i32>()]
    );
    assert_err(
        k.call((&Array::ones(&[4], DType::C64).unwrap(),)),
        ErrorKind::Compile,
        "map_expr",
    );
}

// =========================================================================================
// Beyond 2^31 bytes and elements
// =========================================================================================

#[test]
fn reductions_over_2_gib() {
    require_gpu!();
    skip_on_host!("2 GiB arrays and 2^31 elements per call take minutes on a CPU");
    {
        // float32: 2.4 GB (byte offsets past 2^31, element counts below)
        let n = 600_000_000usize;
        let m = 1_000_003usize;
        let fill = ElementwiseKernel::new(
            "",
            "float32 x",
            "x = (float)(i % 1000003)",
            "pattern_f32_red",
        )
        .unwrap();
        let x = Array::empty(&[n], DType::F32).unwrap();
        fill.run((&x,)).unwrap();
        // sum of j % m over j < k, exact in f64 (integers below 2^53)
        let s_of = |k: usize| -> f64 {
            let (q, r) = (k / m, k % m);
            (q as f64) * ((m * (m - 1) / 2) as f64) + ((r * r.saturating_sub(1)) / 2) as f64
        };
        let total = s_of(n);
        // an exact double accumulator
        let sum_d = sum_kernel("float32 x", "float64 y", "sum_big_d");
        assert_eq!(
            sum_d.call((&x,)).unwrap().to_vec::<f64>().unwrap(),
            vec![total]
        );
        // a float accumulator: rounding only
        let sum_f = sum_kernel("T x", "T y", "sum_big_f");
        let got = sum_f.call((&x,)).unwrap().to_vec::<f32>().unwrap()[0] as f64;
        assert!((got - total).abs() <= 1e-3 * total, "{got} vs {total}");
        // reversed (negative stride over 2.4 GB)
        assert_eq!(
            sum_d
                .call((&x.slice(&s![..;-1]).unwrap(),))
                .unwrap()
                .to_vec::<f64>()
                .unwrap(),
            vec![total]
        );
        // rows of a (600, 1e6) matrix, and its columns (strided by 4 MB)
        let (r, c) = (600usize, 1_000_000usize);
        let xm = x.reshape(&[r as isize, c as isize]).unwrap();
        let rows = sum_d.axis(1).call((&xm,)).unwrap().to_vec::<f64>().unwrap();
        for (i, &g) in rows.iter().enumerate() {
            assert_eq!(g, s_of((i + 1) * c) - s_of(i * c), "row {i}");
        }
        let cols = sum_d.axis(0).call((&xm,)).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(cols.len(), c);
        for j in [0usize, 1, 2, 3, 999, 4_002, 500_000, 999_998, 999_999] {
            let want: f64 = (0..r).map(|i| ((i * c + j) % m) as f64).sum();
            assert_eq!(cols[j], want, "column {j}");
        }
        assert_eq!(nsum(cols.iter().copied()), total);
        // max without identity, and the last `_J`
        let [mx, _] = max_kernels("max_big_f32");
        assert_eq!(
            mx.call((&x,)).unwrap().to_vec::<f32>().unwrap(),
            vec![(m - 1) as f32]
        );
    }
    {
        // uint8: 2^31 + 1352 elements (64-bit indexing), summed exactly into int64
        let (r, c) = (1000usize, 2_147_485usize);
        let n = r * c;
        assert!(n > 1 << 31 && n - (1 << 31) == 1352);
        let fill = ElementwiseKernel::new(
            "",
            "uint8 x",
            "x = (unsigned char)((i * 7 + 3) & 255)",
            "pattern_u8_red",
        )
        .unwrap();
        let pat = |j: usize| ((j * 7 + 3) & 255) as i64;
        // sum of pat(j) for j < k: every 256 consecutive j cover 0..=255 once
        let s_of =
            |k: usize| -> i64 { (k / 256) as i64 * 32_640 + (0..k % 256).map(pat).sum::<i64>() };
        let x = Array::empty(&[n], DType::U8).unwrap();
        fill.run((&x,)).unwrap();
        let sum = sum_kernel("T x", "int64 y", "sum_big_u8");
        let total = s_of(n);
        assert_eq!(
            sum.call((&x,)).unwrap().to_vec::<i64>().unwrap(),
            vec![total]
        );
        let sum_nd = sum_kernel("T x", "int64 y", "sum_big_u8").reduce_dims(false);
        assert_eq!(
            sum_nd.call((&x,)).unwrap().to_vec::<i64>().unwrap(),
            vec![total]
        );
        assert_eq!(
            sum.call((&x.slice(&s![..;-1]).unwrap(),))
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            vec![total],
            "reversed"
        );
        // `_J` and `_in_ind.size()` past 2^31
        let jn = ReductionKernel::new(
            "T x",
            "int64 j, int64 n",
            "_J",
            "a > b ? a : b",
            "j = a; n = _in_ind.size()",
            None,
            "j_big",
        )
        .unwrap();
        let outs = jn.call_all((&x,)).unwrap();
        assert_eq!(outs[0].to_vec::<i64>().unwrap(), vec![n as i64 - 1]);
        assert_eq!(outs[1].to_vec::<i64>().unwrap(), vec![n as i64]);
        let [mx, _] = max_kernels("max_big_u8");
        assert_eq!(mx.call((&x,)).unwrap().to_vec::<u8>().unwrap(), vec![255]);
        // rows and columns of the (1000, 2147485) matrix
        let xm = x.reshape(&[r as isize, c as isize]).unwrap();
        let rows = sum.axis(1).call((&xm,)).unwrap().to_vec::<i64>().unwrap();
        for (i, &g) in rows.iter().enumerate() {
            assert_eq!(g, s_of((i + 1) * c) - s_of(i * c), "row {i}");
        }
        let cols = sum.axis(0).call((&xm,)).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(cols.len(), c);
        for j in [0usize, 1, 2, 255, 256, 1_000_000, c - 2, c - 1] {
            let want: i64 = (0..r).map(|i| pat(i * c + j)).sum();
            assert_eq!(cols[j], want, "column {j}");
        }
        assert_eq!(cols.iter().sum::<i64>(), total);
        // the transposed matrix: rows become columns
        let rows_t = sum
            .axis(0)
            .call((&xm.t(),))
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        assert_eq!(rows_t, rows);
    }
}

/// Repeat calls replay the plan of an earlier call with the same fingerprint
/// (`kernel/call_memo.rs`): new values each time; axes, keepdims, a strided view and a long
/// reduction split over blocks (scratch) each plan apart, and the same calls again replay.
#[test]
fn repeat_calls_replay_only_what_they_match() {
    require_gpu!();
    let mut rng = Rng::new(0x3e31);
    let k =
        ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "memo_sum").unwrap();
    let (r, c) = (37usize, 1 << 12);
    for round in 0..2 {
        let v: Vec<i64> = (0..r * c)
            .map(|_| rng.usize(0, 1000) as i64 - 500)
            .collect();
        let m = Array::from_slice(&v, &[r, c]).unwrap();
        let rows: Vec<i64> = (0..r).map(|i| v[i * c..(i + 1) * c].iter().sum()).collect();
        let cols: Vec<i64> = (0..c).map(|j| (0..r).map(|i| v[i * c + j]).sum()).collect();
        let all: i64 = v.iter().sum();
        assert_eq!(
            k.axis(1).call((&m,)).unwrap().to_vec::<i64>().unwrap(),
            rows,
            "{round}"
        );
        assert_eq!(
            k.axis(0).call((&m,)).unwrap().to_vec::<i64>().unwrap(),
            cols
        );
        let kept = k.axis(0).keepdims(true).call((&m,)).unwrap();
        assert_eq!(kept.shape(), &[1, c]);
        assert_eq!(k.call((&m,)).unwrap().to_vec::<i64>().unwrap(), [all]);
        let odd = m.slice(&s![.., 1..;2]).unwrap();
        let want: Vec<i64> = (0..r)
            .map(|i| (0..c / 2).map(|j| v[i * c + 2 * j + 1]).sum())
            .collect();
        assert_eq!(
            k.axis(1).call((&odd,)).unwrap().to_vec::<i64>().unwrap(),
            want
        );
        let out = Array::zeros(&[r], DType::I64).unwrap();
        k.axis(1).call((&m, &out)).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), rows);
    }
}
