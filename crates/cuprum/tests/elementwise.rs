//! Integration tests of ElementwiseKernel: every dtype through one generic kernel, random
//! views (transposed, sliced with steps, broadcast) against a host model of strided memory,
//! each layout class (contiguous with and without wide loads, rows, tiled transposes, flat),
//! scalars, in-place and multi-output calls, outputs the operation reads or writes only in
//! part, raw parameters and the loop index `i`, CuPy's validation errors, per-kernel caching,
//! and calls over more than 2^31 bytes and elements.
//!
//! Every GPU result is compared with a reference computed on the host from random non-zero
//! inputs made by `common::Rng`. GPU tests begin with `require_gpu!()`: without a GPU they
//! print a SKIPPED line and return (`CUPRUM_REQUIRE_GPU=1` makes that a failure). The tests
//! of errors found before any GPU work (construction, argument count, block size) need no
//! GPU and run everywhere.

mod common;

use common::views::{Model, c_order, make_view, out_recipe, own_shape, view_recipe};
use common::{
    Rng, assert_compile_error_in, assert_err, assert_type_mismatch, dev, gpu_proptest_runner, nz,
    rand_f64,
};
use cuprum::kernel::{IntoOperand, ParamType};
use cuprum::{Array, DType, Element, ElementwiseKernel, ErrorKind, Stream, s};
use half::{bf16, f16};
use num_complex::Complex;
use proptest::prelude::*;

// =========================================================================================
// Host-side helpers
// =========================================================================================

fn rand_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| nz(rng, -10.0, 10.0) as f32).collect()
}

/// `vals` (C order over `shape`) broadcast to `loop_shape`, in C order.
fn broadcast_host<T: Copy>(vals: &[T], shape: &[usize], loop_shape: &[usize]) -> Vec<T> {
    let m = Model::contiguous(shape);
    c_order(loop_shape)
        .iter()
        .map(|idx| vals[m.pos(idx)])
        .collect()
}

/// The first position where `got` and `want` differ, with both values (a length mismatch
/// reports position `usize::MAX` and the two lengths).
fn first_diff(got: &[f64], want: &[f64]) -> Option<(usize, f64, f64)> {
    if got.len() != want.len() {
        return Some((usize::MAX, got.len() as f64, want.len() as f64));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| (i, got[i], want[i]))
}

/// The generic `z = x * 2 + y` of the layout tests, with and without dimension merging.
fn axpy_kernels() -> [ElementwiseKernel; 2] {
    let op = "z = x * 2 + y";
    [
        ElementwiseKernel::new("T x, T y", "T z", op, "axpy").unwrap(),
        ElementwiseKernel::new("T x, T y", "T z", op, "axpy")
            .unwrap()
            .reduce_dims(false),
    ]
}

// =========================================================================================
// Construction and validation before any GPU work (run everywhere)
// =========================================================================================

#[test]
fn construction_errors_match_cupy() {
    let e = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "1k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "Invalid kernel name: \"1k\"");
    for bad in ["bad-name", "", "k\n", "a b", "k()"] {
        let e = ElementwiseKernel::new("T x", "T y", "y = x", bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}");
        assert_eq!(e.to_string(), format!("Invalid kernel name: \"{bad}\""));
    }
    // fewer than two tokens in an item (a trailing comma too)
    let e = ElementwiseKernel::new("float32 x,", "float32 y", "y = x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "Syntax error: ");
    let e = ElementwiseKernel::new("float32 x", "y", "y = x", "k").unwrap_err();
    assert_eq!(e.to_string(), "Syntax error: y");
    // modifiers other than raw and _non_const
    let e = ElementwiseKernel::new("float32 x", "foo T y", "y = x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "Unknown keyword \"foo\"");
    let e = ElementwiseKernel::new("const T x", "T y", "y = x", "k").unwrap_err();
    assert_eq!(e.to_string(), "Unknown keyword \"const\"");
    // unknown dtype names
    let e = ElementwiseKernel::new("float32 x", "floaty y", "y = x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .starts_with("data type 'floaty' not understood"),
        "{e}"
    );
    let e = ElementwiseKernel::new("int128 x", "T y", "y = x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.to_string().contains("'int128'"), "{e}");
    // `i` is the loop index, in inputs and outputs
    for (ins, outs) in [
        ("float32 i", "float32 y"),
        ("T x", "T i"),
        ("T x, raw T i", "T y"),
    ] {
        let e = ElementwiseKernel::new(ins, outs, "y = x", "k").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.to_string(), "Can not use 'i' as a parameter name");
    }
    // cuprum's stricter checks: reserved `_` names and duplicates
    let e = ElementwiseKernel::new("T _x", "T y", "y = _x", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let e = ElementwiseKernel::new("T x, T x", "T y", "y = x", "k").unwrap_err();
    assert!(
        e.to_string().contains("more than once in the inputs"),
        "{e}"
    );
    let e = ElementwiseKernel::new("T x", "T y, T y", "y = x", "k").unwrap_err();
    assert!(
        e.to_string().contains("more than once in the outputs"),
        "{e}"
    );
    // a name in both lists is one read-write parameter; with two types it is an error
    let k = ElementwiseKernel::new("T x", "T x", "x = x", "k").unwrap();
    assert_eq!((k.nin(), k.nout(), k.params().len()), (1, 1, 2));
    let e = ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float64 x",
        "x = x * alpha + 1",
        "k",
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .contains("'x' is declared float32 among the inputs and float64 among the outputs"),
        "{e}"
    );
}

#[test]
fn construction_parses_parameters_and_defers_compilation() {
    let k = ElementwiseKernel::new(
        "T x, raw U r, float64 s, _non_const int8 w",
        "T y, raw complex64 c",
        "this is not C++ at all",
        "lazy",
    )
    .unwrap();
    assert_eq!(k.name(), "lazy");
    assert_eq!((k.nin(), k.nout()), (4, 2));
    let p = k.params();
    assert_eq!(p.len(), 6);
    assert_eq!(
        p.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        vec!["x", "r", "s", "w", "y", "c"]
    );
    assert_eq!(p[0].ty, ParamType::Placeholder('T'));
    assert_eq!(p[1].ty, ParamType::Placeholder('U'));
    assert!(p[1].raw && p[1].is_const);
    assert_eq!(p[2].ty, ParamType::Concrete(DType::F64));
    assert!(!p[3].is_const && !p[3].raw);
    assert_eq!(p[3].ty, ParamType::Concrete(DType::I8));
    assert!(!p[4].is_const && !p[4].raw);
    assert!(p[5].raw && !p[5].is_const);
    assert_eq!(p[5].ty, ParamType::Concrete(DType::C64));
    // one-letter types are placeholders, even letters that are NumPy type codes
    let k = ElementwiseKernel::new("f x, d y", "i z", "z = x + y", "codes").unwrap();
    assert_eq!(k.params()[0].ty, ParamType::Placeholder('f'));
    assert_eq!(k.params()[2].ty, ParamType::Placeholder('i'));
    // full dtype names only (C names and NumPy aliases read two ways), and no outputs at all
    let k = ElementwiseKernel::new("float64 x, float32 y, bool b", "", "", "names").unwrap();
    assert_eq!(k.params()[0].ty, ParamType::Concrete(DType::F64));
    assert_eq!(k.params()[1].ty, ParamType::Concrete(DType::F32));
    assert_eq!(k.params()[2].ty, ParamType::Concrete(DType::Bool));
    assert_eq!(k.nout(), 0);
    for (ty, want) in [
        ("float", "write float32 or float64"),
        ("int", "write int32 or int64"),
        ("uint", "write uint32 or uint64"),
        ("f4", "write float32"),
        ("double", "write float64"),
    ] {
        let e = ElementwiseKernel::new(&format!("{ty} x"), "float32 y", "y = x", "k").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DType, "{ty}");
        assert!(e.to_string().contains(want), "{ty}: {e}");
        assert!(e.to_string().contains("accepted: bool, int8"), "{ty}: {e}");
        let e = cuprum::ReductionKernel::new(
            "float32 x",
            &format!("{ty} y"),
            "x",
            "a + b",
            "y = a",
            Some("0"),
            "r",
        )
        .unwrap_err();
        assert!(e.to_string().contains(want), "{ty}: {e}");
    }
    // the builders keep the definition
    let k = ElementwiseKernel::new("T x", "T y", "y = x", "built")
        .unwrap()
        .preamble("// nothing")
        .loop_prep("int a = 0;")
        .after_loop("(void)a;")
        .option("-DX=1")
        .options(cuprum::CompileOptions::new().option("-DY=2"))
        .reduce_dims(false);
    assert_eq!((k.name(), k.nin(), k.nout()), ("built", 1, 1));
}

#[test]
fn argument_count_is_checked_before_any_gpu_work() {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add3").unwrap();
    for (args, given) in [
        (vec![1.0f32], 1usize),
        (vec![1.0f32, 2.0, 3.0, 4.0], 4),
        (vec![], 0),
    ] {
        let ops: Vec<cuprum::kernel::Operand<'_>> = args.iter().map(|a| a.operand()).collect();
        let e = k.call(ops).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            e.to_string(),
            format!(
                "Wrong number of arguments for 'add3'. It must be either 2 or 3 (with outputs), but given {given}."
            )
        );
    }
    let e = k.call((1.0f32,)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'add3'. It must be either 2 or 3 (with outputs), but given 1."
    );
    let e = k.run((1.0f32, 2.0f32, 3.0f32, 4.0f32)).unwrap_err();
    assert!(e.to_string().ends_with("but given 4."), "{e}");
    let e = k.size(4).call_all(()).unwrap_err();
    assert!(e.to_string().ends_with("but given 0."), "{e}");
    // a kernel with no outputs: either 1 or 1
    let k = ElementwiseKernel::new("_non_const T x", "", "x = 0", "zero_in_place").unwrap();
    let e = k.run(()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'zero_in_place'. It must be either 1 or 1 (with outputs), but given 0."
    );
    // call() needs an output to return
    let e = k.call((1.0f32,)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("has no outputs"), "{e}");
}

#[test]
fn block_size_is_checked_before_any_gpu_work() {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add_bs").unwrap();
    let e = k.block_size(0).call((1.0f32, 2.0f32)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.to_string(), "block_size must be greater than zero");
    let e = k.size(3).block_size(0).run((1.0f32, 2.0f32)).unwrap_err();
    assert_eq!(e.to_string(), "block_size must be greater than zero");
    let e = k.block_size(2048).call((1.0f32, 2.0f32)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("1024"), "{e}");
}

// =========================================================================================
// Every dtype through a generic kernel
// =========================================================================================

/// An element type with a host reference for `z = x + y` as the generated C++ computes it.
trait AddElem: Element + PartialEq {
    /// A random non-zero value (small enough for signed types that `a + b` cannot overflow).
    fn random(rng: &mut Rng) -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn matches(got: Self, want: Self) -> bool {
        got == want
    }
}

macro_rules! signed_elem {
    ($($t:ty => $lim:expr),*) => {$(
        impl AddElem for $t {
            fn random(rng: &mut Rng) -> Self {
                loop {
                    let v = rng.f64(-$lim, $lim) as $t;
                    if v != 0 {
                        return v;
                    }
                }
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
        }
    )*};
}
signed_elem!(i8 => 60.0, i16 => 16000.0, i32 => 1.0e9, i64 => 4.0e18);

macro_rules! unsigned_elem {
    ($($t:ty),*) => {$(
        impl AddElem for $t {
            fn random(rng: &mut Rng) -> Self {
                (rng.next_u64() as $t).max(1)
            }
            // C promotes to int (8/16 bit) or wraps (32/64 bit); either way modulo 2^bits
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
        }
    )*};
}
unsigned_elem!(u8, u16, u32, u64);

impl AddElem for bool {
    fn random(rng: &mut Rng) -> Self {
        rng.next_u64() & 1 == 1
    }
    // bool + bool is an int; converting it back to bool is `!= 0`
    fn add(a: Self, b: Self) -> Self {
        a || b
    }
}

impl AddElem for f16 {
    fn random(rng: &mut Rng) -> Self {
        f16::from_f64(nz(rng, -100.0, 100.0))
    }
    fn add(a: Self, b: Self) -> Self {
        f16::from_f32(a.to_f32() + b.to_f32())
    }
    fn matches(got: Self, want: Self) -> bool {
        (got.to_f32() - want.to_f32()).abs() <= want.to_f32().abs() * 2f32.powi(-10) + 1e-6
    }
}

impl AddElem for bf16 {
    fn random(rng: &mut Rng) -> Self {
        bf16::from_f64(nz(rng, -100.0, 100.0))
    }
    fn add(a: Self, b: Self) -> Self {
        bf16::from_f32(a.to_f32() + b.to_f32())
    }
    fn matches(got: Self, want: Self) -> bool {
        (got.to_f32() - want.to_f32()).abs() <= want.to_f32().abs() * 2f32.powi(-7) + 1e-6
    }
}

impl AddElem for f32 {
    fn random(rng: &mut Rng) -> Self {
        nz(rng, -1e3, 1e3) as f32
    }
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
}

impl AddElem for f64 {
    fn random(rng: &mut Rng) -> Self {
        nz(rng, -1e6, 1e6)
    }
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
}

impl AddElem for Complex<f32> {
    fn random(rng: &mut Rng) -> Self {
        Complex::new(nz(rng, -1e3, 1e3) as f32, nz(rng, -1e3, 1e3) as f32)
    }
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
}

impl AddElem for Complex<f64> {
    fn random(rng: &mut Rng) -> Self {
        Complex::new(nz(rng, -1e6, 1e6), nz(rng, -1e6, 1e6))
    }
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
}

fn check_add<T: AddElem>(k: &ElementwiseKernel, rng: &mut Rng) {
    let name = T::DTYPE.name();
    let check = |what: &str, got: &[T], hx: &[T], hy: &[T]| {
        assert_eq!(got.len(), hx.len(), "{name} {what}");
        for i in 0..got.len() {
            let want = T::add(hx[i], hy[i]);
            assert!(
                T::matches(got[i], want),
                "{name} {what} i={i}: {:?} + {:?} gave {:?}, expected {want:?}",
                hx[i],
                hy[i],
                got[i]
            );
        }
    };
    // sizes that are not multiples of the block nor of any vector width
    for n in [1usize, 7, 1000, 100_003] {
        let hx: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let hy: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
        let (x, y) = (dev(&hx, &[n]), dev(&hy, &[n]));
        let z = k.call((&x, &y)).unwrap();
        assert_eq!((z.dtype(), z.shape()), (T::DTYPE, &[n][..]));
        check(&format!("n={n}"), &z.to_vec::<T>().unwrap(), &hx, &hy);
        // into a given output, which is what comes back
        let out = Array::empty(&[n], T::DTYPE).unwrap();
        let r = k.call((&x, &y, &out)).unwrap();
        assert!(r.shares_memory(&out) && r.data_ptr() == out.data_ptr());
        check(
            &format!("n={n} given output"),
            &out.to_vec::<T>().unwrap(),
            &hx,
            &hy,
        );
        // an n-d contiguous shape merges into the same flat loop
        if n == 1000 {
            let (x3, y3) = (
                x.reshape(&[10, 4, 25]).unwrap(),
                y.reshape(&[10, 4, 25]).unwrap(),
            );
            let z3 = k.call((&x3, &y3)).unwrap();
            assert_eq!(z3.shape(), &[10, 4, 25]);
            check("(10, 4, 25)", &z3.to_vec::<T>().unwrap(), &hx, &hy);
        }
    }
    // 0-d arrays, alone and broadcast against a 1-d one
    let (a, b) = (T::random(rng), T::random(rng));
    let (xa, yb) = (Array::scalar(a).unwrap(), Array::scalar(b).unwrap());
    let z = k.call((&xa, &yb)).unwrap();
    assert_eq!(z.shape(), &[] as &[usize], "{name} 0-d");
    check("0-d", &z.to_vec::<T>().unwrap(), &[a], &[b]);
    let hx: Vec<T> = (0..37).map(|_| T::random(rng)).collect();
    let z = k.call((&dev(&hx, &[37]), &yb)).unwrap();
    assert_eq!(z.shape(), &[37]);
    check("(37,) + 0-d", &z.to_vec::<T>().unwrap(), &hx, &[b; 37]);
    let z = k.call((&xa, &dev(&hx, &[37]))).unwrap();
    check("0-d + (37,)", &z.to_vec::<T>().unwrap(), &[a; 37], &hx);
    // empty arrays: an empty result of the broadcast shape
    for shape in [&[0usize][..], &[3, 0], &[0, 4, 2]] {
        let x = Array::zeros(shape, T::DTYPE).unwrap();
        let z = k.call((&x, &x)).unwrap();
        assert_eq!((z.shape(), z.dtype(), z.size()), (shape, T::DTYPE, 0));
        assert!(z.to_vec::<T>().unwrap().is_empty());
    }
    let e = Array::zeros(&[4, 0], T::DTYPE).unwrap();
    let one = Array::scalar(a).unwrap().reshape(&[1, 1]).unwrap();
    let z = k.call((&e, &one)).unwrap();
    assert_eq!(z.shape(), &[4, 0]);
}

/// Runs `$check::<T>($k, $rng)` for each element type a dtype sweep takes: every one on a
/// GPU, the representatives on the host device (`common::sweeps_dtype`).
macro_rules! each_swept_type {
    ($check:ident, $k:expr, $rng:expr) => {
        each_swept_type!(@ $check, $k, $rng; bool, i8, i16, i32, i64, u8, u16, u32, u64, f16,
            bf16, f32, f64, Complex<f32>, Complex<f64>)
    };
    (@ $check:ident, $k:expr, $rng:expr; $($t:ty),*) => {$(
        if common::sweeps_dtype(<$t as Element>::DTYPE) {
            $check::<$t>($k, $rng);
        }
    )*};
}

#[test]
fn every_dtype_through_a_generic_kernel() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "generic_add").unwrap();
    let mut rng = Rng::new(11);
    // Each dtype the sweeps take (the representatives on the host device).
    each_swept_type!(check_add, &k, &mut rng);
}

/// `a[s:] + a[:-s]` (a stencil's shifted views of one buffer) into a fresh output and
/// into an output view starting `o` elements in, for every shift of a 16-byte vector: the
/// wide loop moves the aligned arrays in vectors and the shifted ones element by element.
fn check_shifted_add<T: AddElem>(k: &ElementwiseKernel, rng: &mut Rng) {
    let name = T::DTYPE.name();
    for n in [5usize, 9, 1000, 40_003] {
        let h: Vec<T> = (0..n + 16).map(|_| T::random(rng)).collect();
        let a = dev(&h, &[n + 16]);
        for (s, o) in [(1usize, 0usize), (2, 1), (3, 0), (5, 3), (8, 0)] {
            let x = a.slice(&s![s as isize..(s + n) as isize]).unwrap();
            let y = a.slice(&s![0..n as isize]).unwrap();
            let ob = Array::zeros(&[n + o], T::DTYPE).unwrap();
            let out = ob.slice(&s![o as isize..]).unwrap();
            let z = k.call((&x, &y)).unwrap().to_vec::<T>().unwrap();
            k.call((&x, &y, &out)).unwrap();
            let zo = out.to_vec::<T>().unwrap();
            for i in 0..n {
                let want = T::add(h[s + i], h[i]);
                assert!(
                    T::matches(z[i], want) && T::matches(zo[i], want),
                    "{name} n={n} shift {s} output at {o} i={i}: {:?} and {:?}, expected {want:?}",
                    z[i],
                    zo[i]
                );
            }
        }
    }
}

#[test]
fn shifted_views_of_every_dtype() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "shifted_add").unwrap();
    let mut rng = Rng::new(12);
    each_swept_type!(check_shifted_add, &k, &mut rng);
}

#[test]
fn per_dtype_kernels_with_concrete_types() {
    require_gpu!();
    let mut rng = Rng::new(12);
    let n = 10_001;
    // bool logic
    let k = ElementwiseKernel::new("bool a, bool b", "bool c", "c = a != b", "xor_k").unwrap();
    let (ha, hb): (Vec<bool>, Vec<bool>) = (0..n)
        .map(|_| (bool::random(&mut rng), bool::random(&mut rng)))
        .unzip();
    let c = k.call((&dev(&ha, &[n]), &dev(&hb, &[n]))).unwrap();
    let want: Vec<bool> = ha.iter().zip(&hb).map(|(a, b)| a != b).collect();
    assert_eq!(c.to_vec::<bool>().unwrap(), want);
    // mixed concrete types: int16 and float32 in, float64 out
    let k = ElementwiseKernel::new(
        "int16 a, float32 b",
        "float64 c",
        "c = (double)a * b",
        "mixed_k",
    )
    .unwrap();
    let ha: Vec<i16> = (0..n).map(|_| i16::random(&mut rng)).collect();
    let hb = rand_f32(&mut rng, n);
    let c = k.call((&dev(&ha, &[n]), &dev(&hb, &[n]))).unwrap();
    assert_eq!(c.dtype(), DType::F64);
    let got = c.to_vec::<f64>().unwrap();
    for i in 0..n {
        assert_eq!(got[i], ha[i] as f64 * hb[i] as f64, "i={i}");
    }
    // half precision computed through float, then rounded once
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * y - x", "half_k").unwrap();
    let hx: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(nz(&mut rng, -8.0, 8.0)))
        .collect();
    let hy: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(nz(&mut rng, -8.0, 8.0)))
        .collect();
    let z = k.call((&dev(&hx, &[n]), &dev(&hy, &[n]))).unwrap();
    let got = z.to_vec::<f16>().unwrap();
    for i in 0..n {
        // x * y rounds to half first, then the subtraction
        let xy = f16::from_f32(hx[i].to_f32() * hy[i].to_f32());
        let want = xy.to_f32() - hx[i].to_f32();
        let g = got[i].to_f32();
        assert!(
            (g - want).abs() <= want.abs() * 2f32.powi(-10) + 2f32.powi(-14),
            "i={i}: {g} vs {want}"
        );
    }
    // complex multiplication
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * y", "cmul").unwrap();
    let hx: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(nz(&mut rng, -3.0, 3.0), nz(&mut rng, -3.0, 3.0)))
        .collect();
    let hy: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(nz(&mut rng, -3.0, 3.0), nz(&mut rng, -3.0, 3.0)))
        .collect();
    let z = k.call((&dev(&hx, &[n]), &dev(&hy, &[n]))).unwrap();
    let got = z.to_vec::<Complex<f64>>().unwrap();
    for i in 0..n {
        let want = hx[i] * hy[i];
        assert!(
            (got[i] - want).norm() <= 1e-12 * want.norm().max(1.0),
            "i={i}: {} vs {want}",
            got[i]
        );
    }
}

#[test]
fn empty_calls_neither_compile_nor_launch() {
    require_gpu!();
    // The operation does not compile: an empty loop must return before compiling.
    let k = ElementwiseKernel::new("T x", "T y", "y = x + ; not C++", "never_built").unwrap();
    let x = Array::zeros(&[0, 5], DType::F32).unwrap();
    let y = k.call((&x,)).unwrap();
    assert_eq!((y.shape(), y.dtype()), (&[0, 5][..], DType::F32));
    let out = Array::zeros(&[0, 5], DType::F32).unwrap();
    assert!(k.call((&x, &out)).unwrap().shares_memory(&out));
    let raw = ElementwiseKernel::new("raw T x", "raw T y", "y[i] = x[i] +", "never_raw").unwrap();
    let y = raw
        .size(0)
        .call((&Array::ones(&[3], DType::F64).unwrap(),))
        .unwrap();
    assert_eq!(y.shape(), &[0]);
    // ... whereas a non-empty call reports the compile error
    let x = Array::zeros(&[2], DType::F32).unwrap();
    assert_err(k.call((&x,)), ErrorKind::Compile, "operation");
}

// =========================================================================================
// Random views against a host model (property tests)
// =========================================================================================

// The random views and their host model are `common::views`.

fn loop_shape() -> impl Strategy<Value = Vec<usize>> {
    let extent = prop_oneof![
        1 => Just(0usize),
        12 => 1usize..7,
        4 => prop::sample::select(vec![16usize, 31, 33, 40, 64, 100]),
    ];
    prop::collection::vec(extent, 0..=4).prop_map(|mut s| {
        while s.iter().product::<usize>() > 40_000 {
            let big = (0..s.len()).max_by_key(|&i| s[i]).unwrap_or(0);
            s[big] /= 2;
        }
        s
    })
}

#[test]
fn random_views_match_a_host_model() {
    require_gpu!();
    let kernels = axpy_kernels();
    let strategy = (
        loop_shape(),
        view_recipe(),
        view_recipe(),
        prop::option::weighted(0.35, out_recipe()),
        any::<u64>(),
    );
    let mut runner = gpu_proptest_runner(24);
    let result = runner.run(&strategy, |(shape, rx, ry, ro, seed)| {
        let mut rng = Rng::new(seed);
        let xv = make_view(&rx, &own_shape(&shape, &rx), &shape, &mut rng);
        let yv = make_view(&ry, &own_shape(&shape, &ry), &shape, &mut rng);
        // The loop shape: the output's when one is given, else the broadcast of the inputs
        // (which may be smaller than `shape`: a 0 extent every input has as 1 is 1).
        let eff: Vec<usize> = if ro.is_some() {
            shape.clone()
        } else {
            cuprum::shape::broadcast_shapes(&[xv.view.shape(), yv.view.shape()])
                .unwrap()
                .to_vec()
        };
        let idxs = c_order(&eff);
        let want: Vec<f64> = idxs
            .iter()
            .map(|idx| xv.base[xv.model.pos(idx)] * 2.0 + yv.base[yv.model.pos(idx)])
            .collect();
        for (which, k) in kernels.iter().enumerate() {
            let ctx = format!(
                "reduce_dims={} shape={eff:?} x={:?}/{:?} y={:?}/{:?}",
                which == 0,
                xv.view.shape(),
                xv.view.strides(),
                yv.view.shape(),
                yv.view.strides()
            );
            match &ro {
                None => {
                    let z = k.call((&xv.view, &yv.view)).unwrap();
                    prop_assert_eq!(z.shape(), &eff[..], "{}", ctx);
                    let d = first_diff(&z.to_vec::<f64>().unwrap(), &want);
                    prop_assert!(
                        d.is_none(),
                        "{}: first difference (index, got, want) {:?}",
                        ctx,
                        d
                    );
                }
                Some(ro) => {
                    let ov = make_view(ro, &shape, &shape, &mut rng);
                    let z = k.call((&xv.view, &yv.view, &ov.view)).unwrap();
                    prop_assert!(z.shares_memory(&ov.view));
                    let ctx = format!("{ctx} out={:?}/{:?}", ov.view.shape(), ov.view.strides());
                    let d = first_diff(&ov.view.to_vec::<f64>().unwrap(), &want);
                    prop_assert!(
                        d.is_none(),
                        "{}: first difference (index, got, want) {:?}",
                        ctx,
                        d
                    );
                    // every base element outside the output view is untouched
                    let mut expect = ov.base.clone();
                    for (idx, w) in idxs.iter().zip(&want) {
                        expect[ov.model.pos(idx)] = *w;
                    }
                    let d = first_diff(&ov.base_dev.to_vec::<f64>().unwrap(), &expect);
                    prop_assert!(
                        d.is_none(),
                        "{}: output base, first difference (position, got, want) {:?}",
                        ctx,
                        d
                    );
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// =========================================================================================
// Each layout class explicitly
// =========================================================================================

/// Runs `z = x * 2 + y` (both kernels) on views and compares with the host, from the views'
/// C-order values broadcast to the loop shape; with `out`, writes into it.
fn check_axpy(
    kernels: &[ElementwiseKernel; 2],
    what: &str,
    x: &Array,
    y: &Array,
    out: Option<&Array>,
) {
    let loop_shape = cuprum::shape::broadcast_shapes(&[x.shape(), y.shape()])
        .unwrap()
        .to_vec();
    let hx = broadcast_host(&x.to_vec::<f64>().unwrap(), x.shape(), &loop_shape);
    let hy = broadcast_host(&y.to_vec::<f64>().unwrap(), y.shape(), &loop_shape);
    let want: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| a * 2.0 + b).collect();
    for (which, k) in kernels.iter().enumerate() {
        let got = match out {
            None => {
                let z = k.call((x, y)).unwrap();
                assert_eq!(z.shape(), &loop_shape[..], "{what}");
                z.to_vec::<f64>().unwrap()
            }
            Some(o) => {
                o.fill(f64::NAN).unwrap();
                let z = k.call((x, y, o)).unwrap();
                assert!(z.shares_memory(o), "{what}");
                o.to_vec::<f64>().unwrap()
            }
        };
        assert_eq!(got.len(), want.len(), "{what}");
        for i in 0..want.len() {
            assert_eq!(
                got[i],
                want[i],
                "{what} (reduce_dims={}) at {i} of shape {loop_shape:?}",
                which == 0
            );
        }
    }
}

#[test]
fn contiguous_layouts_with_and_without_wide_loads() {
    require_gpu!();
    let ks = axpy_kernels();
    let mut rng = Rng::new(21);
    // aligned large arrays: vectorised loads with a scalar tail
    for n in [1_000_003usize, 64, 65, 3] {
        let x = dev(&rand_f64(&mut rng, n), &[n]);
        let y = dev(&rand_f64(&mut rng, n), &[n]);
        check_axpy(&ks, &format!("contiguous n={n}"), &x, &y, None);
    }
    // n-d contiguous merges into one axis
    let x = dev(&rand_f64(&mut rng, 3 * 5 * 7 * 11), &[3, 5, 7, 11]);
    let y = dev(&rand_f64(&mut rng, 3 * 5 * 7 * 11), &[3, 5, 7, 11]);
    check_axpy(&ks, "contiguous (3,5,7,11)", &x, &y, None);
    // unaligned: contiguous slices starting one and two elements in
    let n = 100_003usize;
    let xb = dev(&rand_f64(&mut rng, n + 2), &[n + 2]);
    let yb = dev(&rand_f64(&mut rng, n + 2), &[n + 2]);
    let y = dev(&rand_f64(&mut rng, n), &[n]);
    let x1 = xb.slice(&s![1..(n + 1) as isize]).unwrap();
    assert!(x1.is_c_contiguous() && x1.size() == n);
    check_axpy(&ks, "x at offset 1", &x1, &y, None);
    check_axpy(
        &ks,
        "both at offset 1",
        &x1,
        &yb.slice(&s![1..(n + 1) as isize]).unwrap(),
        None,
    );
    check_axpy(
        &ks,
        "offsets 2 and 0",
        &xb.slice(&s![2..]).unwrap(),
        &y,
        None,
    );
    // an unaligned given output
    let ob = Array::zeros(&[n + 1], DType::F64).unwrap();
    check_axpy(
        &ks,
        "output at offset 1",
        &y,
        &y,
        Some(&ob.slice(&s![1..]).unwrap()),
    );
    // float32 at every misalignment of a 16-byte vector
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * 2 + y", "axpy32").unwrap();
    let hb = rand_f32(&mut rng, n + 4);
    let base = dev(&hb, &[n + 4]);
    let hy = rand_f32(&mut rng, n);
    let y32 = dev(&hy, &[n]);
    for off in 0..4usize {
        let x = base.slice(&s![off as isize..(off + n) as isize]).unwrap();
        let z = k.call((&x, &y32)).unwrap().to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(z[i], hb[off + i] * 2.0 + hy[i], "offset {off} i={i}");
        }
    }
}

#[test]
fn rows_layouts_broadcast_and_strided() {
    require_gpu!();
    let ks = axpy_kernels();
    let mut rng = Rng::new(22);
    let m = dev(&rand_f64(&mut rng, 300 * 257), &[300, 257]);
    // matrix + row vector, row vector + matrix, matrix + column
    let row = dev(&rand_f64(&mut rng, 257), &[257]);
    check_axpy(&ks, "(300,257) + (257,)", &m, &row, None);
    check_axpy(&ks, "(257,) + (300,257)", &row, &m, None);
    let col = dev(&rand_f64(&mut rng, 300), &[300, 1]);
    check_axpy(&ks, "(300,257) + (300,1)", &m, &col, None);
    check_axpy(
        &ks,
        "(300,1) + (1, 257)",
        &col,
        &row.reshape(&[1, 257]).unwrap(),
        None,
    );
    // explicit stride-0 views
    check_axpy(
        &ks,
        "broadcast_to",
        &row.broadcast_to(&[300, 257]).unwrap(),
        &m,
        None,
    );
    // reversed and stepped axes
    check_axpy(
        &ks,
        "m[::-1, ::-1] + m",
        &m.slice(&s![..;-1, ..;-1]).unwrap(),
        &m,
        None,
    );
    let wide = dev(&rand_f64(&mut rng, 300 * 514), &[300, 514]);
    check_axpy(
        &ks,
        "wide[:, ::2] + m",
        &wide.slice(&s![.., ..;2]).unwrap(),
        &m,
        None,
    );
    check_axpy(
        &ks,
        "wide[::-1, 1::2] + row",
        &wide.slice(&s![..;-1, 1..;2]).unwrap(),
        &row,
        None,
    );
    // 1-d reversed
    let v = dev(&rand_f64(&mut rng, 10_007), &[10_007]);
    check_axpy(&ks, "v[::-1] + v", &v.slice(&s![..;-1]).unwrap(), &v, None);
    // 3-d with a broadcast middle axis
    let a = dev(&rand_f64(&mut rng, 4 * 50), &[4, 1, 50]);
    let b = dev(&rand_f64(&mut rng, 4 * 6 * 50), &[4, 6, 50]);
    check_axpy(&ks, "(4,1,50) + (4,6,50)", &a, &b, None);
    // more rows than one grid column of blocks covers (grid.y is capped)
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * 2 + y", "axpy_rows").unwrap();
    let rows = 100_000usize;
    let hm = rand_f32(&mut rng, rows * 32);
    let hr = rand_f32(&mut rng, 32);
    let z = k
        .block_size(32)
        .call((&dev(&hm, &[rows, 32]), &dev(&hr, &[32])))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for (i, got) in z.iter().enumerate() {
        assert_eq!(
            *got,
            hm[i] * 2.0 + hr[i % 32],
            "row {} col {}",
            i / 32,
            i % 32
        );
    }
}

#[test]
fn tiled_layouts_for_transposed_operands() {
    require_gpu!();
    let ks = axpy_kernels();
    let mut rng = Rng::new(23);
    // A.t() + B for a non-square A
    let a = dev(&rand_f64(&mut rng, 70 * 100), &[70, 100]);
    let b = dev(&rand_f64(&mut rng, 100 * 70), &[100, 70]);
    check_axpy(&ks, "A.t() + B", &a.t(), &b, None);
    check_axpy(&ks, "B + A.t()", &b, &a.t(), None);
    check_axpy(&ks, "A.t() + A.t()", &a.t(), &a.t(), None);
    // square A.t() + A, sizes not multiples of the tile
    let sq = dev(&rand_f64(&mut rng, 97 * 97), &[97, 97]);
    check_axpy(&ks, "S.t() + S", &sq.t(), &sq, None);
    // batched transposes through permute
    let base = dev(&rand_f64(&mut rng, 3 * 48 * 64), &[3, 48, 64]);
    let c = dev(&rand_f64(&mut rng, 3 * 64 * 48), &[3, 64, 48]);
    check_axpy(
        &ks,
        "(3,48,64).permute(0,2,1) + C",
        &base.permute(&[0, 2, 1]).unwrap(),
        &c,
        None,
    );
    let base4 = dev(&rand_f64(&mut rng, 2 * 3 * 33 * 40), &[2, 3, 33, 40]);
    let c4 = dev(&rand_f64(&mut rng, 2 * 3 * 40 * 33), &[2, 3, 40, 33]);
    check_axpy(
        &ks,
        "4-d batched transpose",
        &base4.permute(&[0, 1, 3, 2]).unwrap(),
        &c4,
        None,
    );
    // a transposed input against a broadcast row
    let row = dev(&rand_f64(&mut rng, 70), &[70]);
    check_axpy(&ks, "A.t() + row", &a.t(), &row, None);
    // an output given as a transposed view: written through the tiles
    let o = Array::zeros(&[70, 100], DType::F64).unwrap();
    check_axpy(&ks, "B + B -> O.t()", &b, &b, Some(&o.t()));
    check_axpy(&ks, "A.t() + B -> O.t()", &a.t(), &b, Some(&o.t()));
    let o3 = Array::zeros(&[3, 48, 64], DType::F64).unwrap();
    check_axpy(
        &ks,
        "C + C -> O3.permute(0,2,1)",
        &c,
        &c,
        Some(&o3.permute(&[0, 2, 1]).unwrap()),
    );
    // complex128: three transposed operands need more shared memory than the tiles may
    // use, so some go direct; the result is the same
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + x + y", "caxpy").unwrap();
    let n = 64 * 80;
    let hx: Vec<Complex<f64>> = (0..n).map(|_| Complex::<f64>::random(&mut rng)).collect();
    let hy: Vec<Complex<f64>> = (0..n).map(|_| Complex::<f64>::random(&mut rng)).collect();
    let (x, y) = (dev(&hx, &[64, 80]), dev(&hy, &[64, 80]));
    let o = Array::zeros(&[64, 80], DType::C128).unwrap();
    k.call((&x.t(), &y.t(), &o.t())).unwrap();
    let got = o.to_vec::<Complex<f64>>().unwrap();
    for i in 0..n {
        assert_eq!(got[i], hx[i] + hx[i] + hy[i], "complex tiles at {i}");
    }
    // float16 tiles
    let hx: Vec<f16> = (0..n).map(|_| f16::random(&mut rng)).collect();
    let hy: Vec<f16> = (0..n).map(|_| f16::random(&mut rng)).collect();
    let z = k
        .call((&dev(&hx, &[64, 80]).t(), &dev(&hy, &[80, 64])))
        .unwrap()
        .to_vec::<f16>()
        .unwrap();
    for r in 0..80 {
        for c in 0..64 {
            let xv = hx[c * 80 + r];
            let want = f16::add(f16::add(xv, xv), hy[r * 64 + c]);
            assert!(
                f16::matches(z[r * 64 + c], want),
                "half tiles at ({r}, {c})"
            );
        }
    }
}

#[test]
fn flat_layouts_for_short_last_axes() {
    require_gpu!();
    let ks = axpy_kernels();
    let mut rng = Rng::new(24);
    let b = dev(&rand_f64(&mut rng, 3 * 1000), &[3, 1000]);
    let c = dev(&rand_f64(&mut rng, 1000 * 3), &[1000, 3]);
    check_axpy(&ks, "(3,1000).t() + (1000,3)", &b.t(), &c, None);
    check_axpy(
        &ks,
        "(3,1000).t() + (3,)",
        &b.t(),
        &dev(&rand_f64(&mut rng, 3), &[3]),
        None,
    );
    let p = dev(&rand_f64(&mut rng, 3 * 2 * 500), &[3, 2, 500]);
    let q = dev(&rand_f64(&mut rng, 500 * 2 * 3), &[500, 2, 3]);
    check_axpy(
        &ks,
        "(3,2,500).permute(2,1,0) + q",
        &p.permute(&[2, 1, 0]).unwrap(),
        &q,
        None,
    );
    check_axpy(
        &ks,
        "c[::-1, ::-1] + c",
        &c.slice(&s![..;-1, ..;-1]).unwrap(),
        &c,
        None,
    );
    let o = Array::zeros(&[3, 1000], DType::F64).unwrap();
    check_axpy(&ks, "c + c -> O.t()", &c, &c, Some(&o.t()));
}

#[test]
fn block_sizes_do_not_change_results() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * 2 + y", "axpy_blocks").unwrap();
    let mut rng = Rng::new(25);
    let (r, c) = (130usize, 257usize);
    let hx = rand_f32(&mut rng, r * c);
    let hy = rand_f32(&mut rng, r * c);
    let hrow = rand_f32(&mut rng, c);
    let x = dev(&hx, &[r, c]);
    let y = dev(&hy, &[r, c]);
    let xt = dev(&hx, &[c, r]);
    let row = dev(&hrow, &[c]);
    for block in [1u32, 32, 100, 128, 1000, 1024] {
        let kb = k.block_size(block);
        let z = kb.call((&x, &y)).unwrap().to_vec::<f32>().unwrap();
        let zr = kb.call((&x, &row)).unwrap().to_vec::<f32>().unwrap();
        let zt = kb.call((&xt.t(), &y)).unwrap().to_vec::<f32>().unwrap();
        for i in 0..r * c {
            let (ri, ci) = (i / c, i % c);
            assert_eq!(z[i], hx[i] * 2.0 + hy[i], "block {block} contiguous {i}");
            assert_eq!(zr[i], hx[i] * 2.0 + hrow[ci], "block {block} rows {i}");
            assert_eq!(
                zt[i],
                hx[ci * r + ri] * 2.0 + hy[i],
                "block {block} tiled {i}"
            );
        }
    }
}

#[test]
fn many_operands_in_mixed_layouts() {
    require_gpu!();
    let mut rng = Rng::new(26);
    let nine = || {
        ElementwiseKernel::new(
            "T a, T b, T c, T d, T e, T f, T g, T h, T w",
            "T z",
            "z = a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * w",
            "nine",
        )
        .unwrap()
    };
    let (k, k_flat) = (nine(), nine().reduce_dims(false));
    let (r, c) = (96usize, 80usize);
    let vals: Vec<Vec<f64>> = (0..9)
        .map(|_| (0..r * c).map(|_| rng.usize(1, 64) as f64).collect())
        .collect();
    // contiguous, transposed (five of them: more tiles than the shared memory allows),
    // reversed, a broadcast row and a broadcast column
    let contiguous = |v: &[f64]| dev(v, &[r, c]);
    let transposed = |v: &[f64]| dev(v, &[c, r]).t();
    let ops: Vec<Array> = vec![
        contiguous(&vals[0]),
        transposed(&vals[1]),
        transposed(&vals[2]),
        dev(&vals[3], &[r, c]).slice(&s![..;-1, ..;-1]).unwrap(),
        transposed(&vals[4]),
        dev(&vals[5][..c], &[c]),
        transposed(&vals[6]),
        dev(&vals[7][..r], &[r, 1]),
        transposed(&vals[8]),
    ];
    let host: Vec<Vec<f64>> = ops
        .iter()
        .map(|a| broadcast_host(&a.to_vec::<f64>().unwrap(), a.shape(), &[r, c]))
        .collect();
    let want: Vec<f64> = (0..r * c)
        .map(|i| (0..9).map(|j| (j + 1) as f64 * host[j][i]).sum())
        .collect();
    for kk in [&k, &k_flat] {
        let z = kk
            .call((
                &ops[0], &ops[1], &ops[2], &ops[3], &ops[4], &ops[5], &ops[6], &ops[7], &ops[8],
            ))
            .unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), want);
        let o = Array::zeros(&[c, r], DType::F64).unwrap();
        kk.call((
            &ops[0],
            &ops[1],
            &ops[2],
            &ops[3],
            &ops[4],
            &ops[5],
            &ops[6],
            &ops[7],
            &ops[8],
            &o.t(),
        ))
        .unwrap();
        assert_eq!(o.t().to_vec::<f64>().unwrap(), want);
    }
    // several dtypes through the tiles at once
    let mix = ElementwiseKernel::new(
        "T x, U w",
        "float64 z",
        "z = (double)x * 3 + (double)w",
        "mixed_tiles",
    )
    .unwrap();
    let hx = rand_f32(&mut rng, r * c);
    let hw: Vec<i16> = (0..r * c).map(|_| i16::random(&mut rng)).collect();
    let zb = Array::zeros(&[c, r], DType::F64).unwrap();
    mix.call((&dev(&hx, &[c, r]).t(), &dev(&hw, &[c, r]).t(), &zb.t()))
        .unwrap();
    let got = zb.to_vec::<f64>().unwrap();
    assert!((0..r * c).all(|i| got[i] == hx[i] as f64 * 3.0 + hw[i] as f64));
    let z = mix
        .call((&dev(&hx, &[c, r]).t(), &dev(&hw, &[r, c])))
        .unwrap();
    let got = z.to_vec::<f64>().unwrap();
    for i in 0..r * c {
        let (ri, ci) = (i / c, i % c);
        assert_eq!(got[i], hx[ci * r + ri] as f64 * 3.0 + hw[i] as f64, "{i}");
    }
    // complex128 with the largest block
    let cx = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + x", "cmuladd").unwrap();
    let n = 50_001;
    let hx: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(nz(&mut rng, -2.0, 2.0), nz(&mut rng, -2.0, 2.0)))
        .collect();
    let hy: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(nz(&mut rng, -2.0, 2.0), nz(&mut rng, -2.0, 2.0)))
        .collect();
    let (x, y) = (dev(&hx, &[n]), dev(&hy, &[n]));
    for block in [1024u32, 1, 96] {
        let got = cx
            .block_size(block)
            .call((&x, &y))
            .unwrap()
            .to_vec::<Complex<f64>>()
            .unwrap();
        for i in 0..n {
            let want = hx[i] * hy[i] + hx[i];
            assert!(
                (got[i] - want).norm() <= 1e-12 * want.norm().max(1.0),
                "block {block} i={i}"
            );
        }
        let got = cx
            .block_size(block)
            .call((&x.slice(&s![..;-1]).unwrap(), &y))
            .unwrap()
            .to_vec::<Complex<f64>>()
            .unwrap();
        for i in 0..n {
            let want = hx[n - 1 - i] * hy[i] + hx[n - 1 - i];
            assert!(
                (got[i] - want).norm() <= 1e-12 * want.norm().max(1.0),
                "block {block} reversed i={i}"
            );
        }
    }
}

// =========================================================================================
// Scalars
// =========================================================================================

#[test]
fn scalars_are_converted_to_their_parameter_types() {
    require_gpu!();
    let mut rng = Rng::new(31);
    let n = 10_007;
    // relu6 with the cap as a scalar of the placeholder type
    let relu = ElementwiseKernel::new(
        "T x, T cap",
        "T y",
        "y = min(max(x, (T)0), cap)",
        "clipped_relu",
    )
    .unwrap();
    let hx = rand_f64(&mut rng, n);
    let x = dev(&hx, &[n]);
    let got = relu.call((&x, 6.0f64)).unwrap().to_vec::<f64>().unwrap();
    for i in 0..n {
        assert_eq!(got[i], hx[i].clamp(0.0, 6.0), "i={i}");
    }
    // the scalar's Rust type does not decide T: 3i32 and 2.5f32 become float64
    let got = relu.call((&x, 3i32)).unwrap().to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[i].clamp(0.0, 3.0)));
    let got = relu.call((&x, 2.5f32)).unwrap().to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[i].clamp(0.0, 2.5)));
    // the same kernel on float32 arrays: the scalar follows
    let hx32 = rand_f32(&mut rng, n);
    let got = relu
        .call((&dev(&hx32, &[n]), 6.0f64))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!((0..n).all(|i| got[i] == hx32[i].clamp(0.0, 6.0)));
    // half-precision and complex arrays: the scalar becomes a float16 / bfloat16 / complex
    let hh: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(nz(&mut rng, -10.0, 10.0)))
        .collect();
    let got = relu
        .call((&dev(&hh, &[n]), 6.0f64))
        .unwrap()
        .to_vec::<f16>()
        .unwrap();
    assert!((0..n).all(|i| got[i].to_f32() == hh[i].to_f32().clamp(0.0, 6.0)));
    let hb: Vec<bf16> = (0..n)
        .map(|_| bf16::from_f64(nz(&mut rng, -10.0, 10.0)))
        .collect();
    let got = relu
        .call((&dev(&hb, &[n]), 2.5f32))
        .unwrap()
        .to_vec::<bf16>()
        .unwrap();
    assert!((0..n).all(|i| got[i].to_f32() == hb[i].to_f32().clamp(0.0, 2.5)));
    let addk = ElementwiseKernel::new("T x, T s", "T y", "y = x + s", "add_scalar").unwrap();
    let hc: Vec<Complex<f64>> = (0..n).map(|_| Complex::<f64>::random(&mut rng)).collect();
    let got = addk
        .call((&dev(&hc, &[n]), 2.0f64))
        .unwrap()
        .to_vec::<Complex<f64>>()
        .unwrap();
    assert!((0..n).all(|i| got[i] == hc[i] + 2.0));
    let hbool: Vec<bool> = (0..n).map(|_| bool::random(&mut rng)).collect();
    let got = addk
        .call((&dev(&hbool, &[n]), true))
        .unwrap()
        .to_vec::<bool>()
        .unwrap();
    assert!(got.iter().all(|&b| b));
    let hu8: Vec<u8> = (0..n).map(|_| u8::random(&mut rng)).collect();
    let got = addk
        .call((&dev(&hu8, &[n]), 255i64))
        .unwrap()
        .to_vec::<u8>()
        .unwrap();
    assert!((0..n).all(|i| got[i] == hu8[i].wrapping_add(255)));
    assert_err(
        addk.call((&dev(&hu8, &[n]), 256i64)),
        ErrorKind::DType,
        "256",
    );
    assert_err(addk.call((&dev(&hu8, &[n]), -1i32)), ErrorKind::DType, "-1");
    // a concrete scalar parameter: float32 given an int32
    let scale = ElementwiseKernel::new("T x, float32 s", "T y", "y = x * s", "scale_k").unwrap();
    let x32 = dev(&hx32, &[n]);
    let got = scale.call((&x32, 2i32)).unwrap().to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hx32[i] * 2.0));
    let got = scale
        .call((&x32, -0.5f64))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!((0..n).all(|i| got[i] == hx32[i] * -0.5));
    // the dyn-array form of the argument list
    let args: [&dyn IntoOperand; 2] = [&x32, &4u8];
    let got = scale.call(args).unwrap().to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hx32[i] * 4.0));
    // integer and bool scalars
    let add = ElementwiseKernel::new(
        "T x, int8 d, bool neg",
        "T y",
        "y = neg ? x - d : x + d",
        "shift",
    )
    .unwrap();
    let hi: Vec<i32> = (0..n).map(|_| i32::random(&mut rng) / 4).collect();
    let xi = dev(&hi, &[n]);
    let got = add
        .call((&xi, -100i64, false))
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    assert!((0..n).all(|i| got[i] == hi[i] - 100));
    let got = add.call((&xi, 7u8, true)).unwrap().to_vec::<i32>().unwrap();
    assert!((0..n).all(|i| got[i] == hi[i] - 7));
    // a scalar that does not fit its parameter type
    let i8k = ElementwiseKernel::new("T x, int8 s", "T y", "y = x + s", "add_i8").unwrap();
    let m = assert_err(i8k.call((&xi, 300i32)), ErrorKind::DType, "300");
    assert!(m.contains("int8"), "{m}");
    assert_err(i8k.call((&xi, -129i64)), ErrorKind::DType, "-129");
    assert_err(i8k.call((&xi, f64::NAN)), ErrorKind::DType, "int8");
    // ... and the same values where they fit
    let got = i8k.call((&xi, 127i32)).unwrap().to_vec::<i32>().unwrap();
    assert!((0..n).all(|i| got[i] == hi[i] + 127));
    // complex scalars into complex parameters
    let cscale = ElementwiseKernel::new("T x, T s", "T y", "y = x * s", "cscale").unwrap();
    let hc: Vec<Complex<f32>> = (0..n)
        .map(|_| Complex::<f32>::random(&mut rng) * 1e-3)
        .collect();
    let s = Complex::new(0.5f32, -2.0);
    let got = cscale
        .call((&dev(&hc, &[n]), s))
        .unwrap()
        .to_vec::<Complex<f32>>()
        .unwrap();
    for i in 0..n {
        assert!(
            (got[i] - hc[i] * s).norm() <= 1e-5 * (hc[i] * s).norm().max(1e-3),
            "i={i}"
        );
    }
}

#[test]
fn same_parameter_as_scalar_then_as_array_needs_its_own_kernel() {
    require_gpu!();
    // `y` is a by-value scalar in the first call and an array in the second, with the same
    // dtypes and the same layout: the second call must not reuse the first call's kernel
    // (which takes `const double y`, so the array's address would be read as a double).
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "scalar_or_array").unwrap();
    let mut rng = Rng::new(32);
    let n = 1000;
    let (hx, hy) = (rand_f64(&mut rng, n), rand_f64(&mut rng, n));
    let x = dev(&hx, &[n]);
    let z = k.call((&x, 0.5f64)).unwrap().to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| z[i] == hx[i] + 0.5));
    let z = k
        .call((&x, &dev(&hy, &[n])))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for i in 0..n {
        assert_eq!(z[i], hx[i] + hy[i], "array y after a scalar y, i={i}");
    }
}

// =========================================================================================
// In place, _non_const, outputs read or written in part, several outputs
// =========================================================================================

#[test]
fn output_identical_to_an_input_works_in_place() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x", "T y", "y = x * 2", "twice").unwrap();
    let mut rng = Rng::new(41);
    // contiguous (vectorised)
    let n = 100_003;
    let hx = rand_f32(&mut rng, n);
    let x = dev(&hx, &[n]);
    let r = k.call((&x, &x)).unwrap();
    assert!(r.shares_memory(&x));
    let got = x.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[i] * 2.0));
    // a transposed view in place (tiled: staged in and out)
    let hb = rand_f64(&mut rng, 70 * 100);
    let b = dev(&hb, &[70, 100]);
    let bt = b.t();
    k.call((&bt, &bt)).unwrap();
    let got = b.to_vec::<f64>().unwrap();
    assert!((0..hb.len()).all(|i| got[i] == hb[i] * 2.0));
    // a reversed, stepped view: only its elements change
    let v = b.slice(&s![..;-1, ..;3]).unwrap();
    k.run((&v, &v)).unwrap();
    let got2 = b.to_vec::<f64>().unwrap();
    for i in 0..hb.len() {
        let want = if (i % 100) % 3 == 0 {
            hb[i] * 4.0
        } else {
            hb[i] * 2.0
        };
        assert_eq!(got2[i], want, "i={i}");
    }
    // a kernel with no inputs writes its only output in place
    let k0 = ElementwiseKernel::new("", "T x", "x = x * 2", "twice_inplace").unwrap();
    let hi: Vec<i32> = (0..1000).map(|_| i32::random(&mut rng) / 4).collect();
    let xi = dev(&hi, &[10, 100]);
    k0.run((&xi,)).unwrap();
    assert_eq!(
        xi.to_vec::<i32>().unwrap(),
        hi.iter().map(|v| v * 2).collect::<Vec<_>>()
    );
    k0.run((&xi.t(),)).unwrap();
    assert_eq!(
        xi.to_vec::<i32>().unwrap(),
        hi.iter().map(|v| v * 4).collect::<Vec<_>>()
    );
}

/// Seed 002's in-place kernel, with the seed's exact strings.
fn seed_inplace_kernel() -> ElementwiseKernel {
    ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x",
        "x = x * alpha + 1",
        "inplace_transform",
    )
    .unwrap()
}

/// `x * a + 1` in float32 as the GPU may compute it: one rounding (a fused multiply-add)
/// or two.
fn axp1_matches(got: f32, x: f32, a: f32) -> bool {
    got == x.mul_add(a, 1.0) || got == x * a + 1.0
}

#[test]
fn read_write_parameters_are_checked_before_any_gpu_work() {
    let k = seed_inplace_kernel();
    assert_eq!((k.nin(), k.nout()), (2, 1));
    // x is written in place: it needs an array
    let e = k.call((1.0f32, 2.0f32)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        e.to_string(),
        "parameter 'x' of 'inplace_transform' is read-write (in both lists): it needs an array, \
         written in place, but was given a f32 scalar"
    );
    // the count is CuPy's: the inputs, or the inputs and the outputs
    let e = k.call((1.0f32,)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Wrong number of arguments for 'inplace_transform'. It must be either 2 or 3 (with outputs), but given 1."
    );
    // with the output repeated, the input is checked first
    let e = k.call((1.0f32, 2.0f32, 3.0f32)).unwrap_err();
    assert!(e.to_string().contains("is read-write"), "{e}");
}

#[test]
fn seed_inplace_kernel_runs_verbatim() {
    require_gpu!();
    let k = seed_inplace_kernel();
    let mut rng = Rng::new(2002);
    // the seed: 1e6 random float32, `inplace_kernel(data, 2.0, data)`
    let n = 1_000_000;
    let h: Vec<f32> = (0..n).map(|_| rng.f64(0.001, 1.0) as f32).collect();
    let data = dev(&h, &[n]);
    let ptr = data.data_ptr();
    let out = k.call((&data, 2.0f32, &data)).unwrap();
    assert_eq!(data.data_ptr(), ptr, "same memory location");
    assert_eq!(out.data_ptr(), ptr);
    assert!(out.shares_memory(&data));
    assert_eq!(out.shape(), &[n]);
    let once: Vec<f32> = h.iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(data.to_vec::<f32>().unwrap(), once);
    // without the repeated output: in place again, the same array returned
    let out = k.call((&data, 2.0f32)).unwrap();
    assert_eq!(out.data_ptr(), ptr);
    let twice: Vec<f32> = once.iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(data.to_vec::<f32>().unwrap(), twice);
    // run() and call_all() too
    k.run((&data, 2.0f32, &data)).unwrap();
    let all = k.call_all((&data, 2.0f32)).unwrap();
    assert_eq!(all.len(), 1);
    assert!(all[0].shares_memory(&data));
    let four: Vec<f32> = twice.iter().map(|v| (v * 2.0 + 1.0) * 2.0 + 1.0).collect();
    assert_eq!(data.to_vec::<f32>().unwrap(), four);
}

#[test]
fn read_write_parameters_work_in_place_for_odd_shapes_and_views() {
    require_gpu!();
    let k = seed_inplace_kernel();
    let mut rng = Rng::new(2003);
    // sizes around the vector width and the block, aligned and one element off alignment
    for n in [1usize, 3, 4, 5, 255, 257, 1000, 100_003] {
        for offset in [0usize, 1] {
            let h = rand_f32(&mut rng, n + offset);
            let base = dev(&h, &[n + offset]);
            let x = base.slice(&s![offset as isize..]).unwrap();
            let a = rng.f64(0.5, 3.0) as f32;
            let r = if n % 2 == 0 {
                k.call((&x, a)).unwrap()
            } else {
                k.call((&x, a, &x)).unwrap()
            };
            assert!(r.shares_memory(&base));
            let got = base.to_vec::<f32>().unwrap();
            for i in 0..n + offset {
                if i < offset {
                    assert_eq!(
                        got[i], h[i],
                        "n={n} offset={offset}: element {i} outside the view changed"
                    );
                } else {
                    assert!(
                        axp1_matches(got[i], h[i], a),
                        "n={n} offset={offset} i={i}: {} from {}",
                        got[i],
                        h[i]
                    );
                }
            }
        }
    }
    // 0-d and empty arrays
    let x0 = dev(&[1.5f32], &[]);
    let r = k.call((&x0, 2.0f32)).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(x0.to_vec::<f32>().unwrap(), vec![4.0]);
    let e = Array::zeros(&[0], DType::F32).unwrap();
    let r = k.call((&e, 2.0f32, &e)).unwrap();
    assert_eq!(r.shape(), &[0]);
    // a transposed view, with alpha an array broadcast along the rows (rows layout)
    let hb = rand_f32(&mut rng, 70 * 100);
    let b = dev(&hb, &[70, 100]);
    let ha = rand_f32(&mut rng, 70);
    let alpha = dev(&ha, &[70]);
    k.call((&b.t(), &alpha)).unwrap();
    let got = b.to_vec::<f32>().unwrap();
    for (r, &ar) in ha.iter().enumerate() {
        for c in 0..100 {
            let i = r * 100 + c;
            assert!(axp1_matches(got[i], hb[i], ar), "transposed ({r}, {c})");
        }
    }
    // a reversed, stepped view: only its elements change
    let hb = b.to_vec::<f32>().unwrap();
    let v = b.slice(&s![..;-1, ..;3]).unwrap();
    k.run((&v, 0.5f32, &v)).unwrap();
    let got = b.to_vec::<f32>().unwrap();
    for i in 0..hb.len() {
        if (i % 100) % 3 == 0 {
            assert!(axp1_matches(got[i], hb[i], 0.5), "stepped i={i}");
        } else {
            assert_eq!(got[i], hb[i], "outside the stepped view, i={i}");
        }
    }
    // x contiguous, alpha transposed: tiles staged through shared memory load x first
    let hx = rand_f32(&mut rng, 64 * 96);
    let x = dev(&hx, &[64, 96]);
    let ha = rand_f32(&mut rng, 96 * 64);
    let at = dev(&ha, &[96, 64]);
    k.call((&x, &at.t(), &x)).unwrap();
    let got = x.to_vec::<f32>().unwrap();
    for r in 0..64 {
        for c in 0..96 {
            let i = r * 96 + c;
            assert!(
                axp1_matches(got[i], hx[i], ha[c * 64 + r]),
                "tiled ({r}, {c})"
            );
        }
    }
}

#[test]
fn read_write_parameters_for_every_dtype() {
    require_gpu!();
    use common::numpy_model as nm;
    // x is read (into z) and written (from y) in one pass
    let k = ElementwiseKernel::new("T x, T y", "T x, T z", "z = x; x = y", "swap_rw").unwrap();
    let mut rng = Rng::new(2004);
    for d in common::dtypes(DType::ALL) {
        for shape in [vec![1000usize], vec![33, 17]] {
            let n: usize = shape.iter().product();
            let hx: Vec<nm::V> = (0..n)
                .map(|_| nm::rand_signed(&mut rng, d, 1.0, 100.0))
                .collect();
            let hy: Vec<nm::V> = (0..n)
                .map(|_| nm::rand_signed(&mut rng, d, 1.0, 100.0))
                .collect();
            let hx: Vec<nm::V> = hx.into_iter().map(|v| nm::cast_v(v, d)).collect();
            let hy: Vec<nm::V> = hy.into_iter().map(|v| nm::cast_v(v, d)).collect();
            let x = nm::dev(&hx, &shape, d);
            let y = nm::dev(&hy, &shape, d);
            let outs = k.call_all((&x, &y)).unwrap();
            assert_eq!(outs.len(), 2, "{d}");
            assert!(outs[0].shares_memory(&x), "{d}");
            assert_eq!(nm::host(&outs[1]), hx, "{d} {shape:?}: z holds the old x");
            assert_eq!(nm::host(&x), hy, "{d} {shape:?}: x holds y");
            // and with every output given
            let z = Array::empty(&shape, d).unwrap();
            k.run((&x, &y, &x, &z)).unwrap();
            assert_eq!(nm::host(&z), hy, "{d}: z holds x (= y)");
        }
    }
}

#[test]
fn read_write_parameter_errors() {
    require_gpu!();
    let k = seed_inplace_kernel();
    let data = Array::ones(&[8], DType::F32).unwrap();
    let other = Array::ones(&[8], DType::F32).unwrap();
    // the repeated output must be the input's array
    let m = assert_err(
        k.call((&data, 2.0f32, &other)),
        ErrorKind::InvalidArgument,
        "parameter 'x' of 'inplace_transform' is read-write (in both lists): its output argument must be the array given as its input",
    );
    assert!(m.contains("float32 array of shape (8,)"), "{m}");
    // a different view of the same memory is a different array
    let rev = data.slice(&s![..;-1]).unwrap();
    assert_err(
        k.call((&data, 2.0f32, &rev)),
        ErrorKind::InvalidArgument,
        "must be the array given as its input",
    );
    // the dtype is checked as an output's
    let d64 = Array::ones(&[8], DType::F64).unwrap();
    assert_type_mismatch(k.call((&d64, 2.0f32)), "x float64 float32");
    // written in place, so it cannot be broadcast to a larger loop
    let alpha = Array::ones(&[2, 8], DType::F32).unwrap();
    assert_err(
        k.call((&data, &alpha)),
        ErrorKind::Shape,
        "Out shape is mismatched: output 'x' has shape (8,), the loop shape is (2, 8)",
    );
    // nothing was written by the failed calls
    assert_eq!(data.to_vec::<f32>().unwrap(), vec![1.0; 8]);
}

#[test]
fn non_const_inputs_are_written_by_the_operation() {
    require_gpu!();
    let k = ElementwiseKernel::new(
        "_non_const T x",
        "T y",
        "y = x; x = x * 3",
        "take_and_triple",
    )
    .unwrap();
    let mut rng = Rng::new(42);
    for (what, shape, transpose) in [
        ("contiguous", vec![100_003usize], false),
        ("transposed", vec![70, 100], true),
        ("small", vec![5], false),
    ] {
        let n: usize = shape.iter().product();
        let hx = rand_f64(&mut rng, n);
        let x = dev(&hx, &shape);
        let xv = if transpose { x.t() } else { x.clone() };
        let y = k.call((&xv,)).unwrap();
        // y is the old x (in the view's C order), x is tripled
        let want_y: Vec<f64> = if transpose {
            let (r, c) = (shape[0], shape[1]);
            (0..n).map(|i| hx[(i % r) * c + i / r]).collect()
        } else {
            hx.clone()
        };
        assert_eq!(y.to_vec::<f64>().unwrap(), want_y, "{what} y");
        let got_x = x.to_vec::<f64>().unwrap();
        assert!((0..n).all(|i| got_x[i] == hx[i] * 3.0), "{what} x");
    }
    // an accumulator with no outputs: run() only
    let acc =
        ElementwiseKernel::new("_non_const T acc, T x", "", "acc += x", "accumulate_in").unwrap();
    let n = 50_001;
    let (ha, hx) = (rand_f32(&mut rng, n), rand_f32(&mut rng, n));
    let a = dev(&ha, &[n]);
    let x = dev(&hx, &[n]);
    acc.run((&a, &x)).unwrap();
    acc.run((&a, &x)).unwrap();
    let got = a.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == ha[i] + hx[i] + hx[i]));
    assert!(acc.call_all((&a, &x)).unwrap().is_empty());
    // a broadcast row accumulated into each row of a matrix
    let m = Array::zeros(&[40, 300], DType::F32).unwrap();
    let row = dev(&hx[..300], &[300]);
    acc.run((&m, &row)).unwrap();
    let got = m.to_vec::<f32>().unwrap();
    assert!((0..40 * 300).all(|i| got[i] == hx[i % 300]));
}

#[test]
fn operations_that_read_their_output() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x", "T z", "z += x", "accumulate").unwrap();
    let mut rng = Rng::new(43);
    // contiguous, vectorised (the output must be loaded before it is stored)
    let n = 100_003;
    let (hx, hz) = (rand_f32(&mut rng, n), rand_f32(&mut rng, n));
    let z = dev(&hz, &[n]);
    let r = k.call((&dev(&hx, &[n]), &z)).unwrap();
    assert!(r.shares_memory(&z));
    let got = z.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hz[i] + hx[i]));
    // a transposed output (staged through tiles, loaded first)
    let (hx, hz) = (rand_f64(&mut rng, 70 * 100), rand_f64(&mut rng, 70 * 100));
    let zb = dev(&hz, &[70, 100]);
    k.call((&dev(&hx, &[100, 70]), &zb.t())).unwrap();
    let got = zb.to_vec::<f64>().unwrap();
    for r in 0..70 {
        for c in 0..100 {
            assert_eq!(
                got[r * 100 + c],
                hz[r * 100 + c] + hx[c * 70 + r],
                "({r}, {c})"
            );
        }
    }
    // a broadcast input (rows) and a short last axis (flat)
    let z2 = dev(&hz, &[70, 100]);
    k.call((&dev(&hx[..100], &[100]), &z2)).unwrap();
    let got = z2.to_vec::<f64>().unwrap();
    assert!((0..7000).all(|i| got[i] == hz[i] + hx[i % 100]));
    let z3 = dev(&hz[..3000], &[1000, 3]);
    k.call((&dev(&hx[..3000], &[3, 1000]).t(), &z3)).unwrap();
    let got = z3.to_vec::<f64>().unwrap();
    for i in 0..3000 {
        let (r, c) = (i / 3, i % 3);
        assert_eq!(got[i], hz[i] + hx[c * 1000 + r], "flat {i}");
    }
    // z = z * x + 1, output also on the right-hand side
    let k2 = ElementwiseKernel::new("T x", "T z", "z = z * x + (T)1", "fma_out").unwrap();
    let hz: Vec<f64> = (0..n).map(|_| nz(&mut rng, -4.0, 4.0)).collect();
    let hx: Vec<f64> = (0..n).map(|_| 2f64.powi(rng.usize(0, 6) as i32)).collect();
    let z = dev(&hz, &[n]);
    k2.call((&dev(&hx, &[n]), &z)).unwrap();
    let got = z.to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| got[i] == hz[i] * hx[i] + 1.0));
}

#[test]
fn conditional_writes_keep_untouched_elements() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x", "T y", "if (x > 0) y = x;", "relu_into").unwrap();
    let mut rng = Rng::new(44);
    let check = |what: &str, got: &[f64], hx: &[f64], hy: &[f64]| {
        for i in 0..got.len() {
            let want = if hx[i] > 0.0 { hx[i] } else { hy[i] };
            assert_eq!(got[i], want, "{what} at {i}");
        }
    };
    // contiguous and vectorised, odd size
    let n = 100_003;
    let (hx, hy) = (rand_f64(&mut rng, n), rand_f64(&mut rng, n));
    let y = dev(&hy, &[n]);
    k.call((&dev(&hx, &[n]), &y)).unwrap();
    check("contiguous", &y.to_vec::<f64>().unwrap(), &hx, &hy);
    // float32 (4 per vector) and int32
    let (hx32, hy32) = (rand_f32(&mut rng, n), rand_f32(&mut rng, n));
    let y32 = dev(&hy32, &[n]);
    k.call((&dev(&hx32, &[n]), &y32)).unwrap();
    let got = y32.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == if hx32[i] > 0.0 { hx32[i] } else { hy32[i] }));
    let hxi: Vec<i32> = (0..n).map(|_| i32::random(&mut rng)).collect();
    let hyi: Vec<i32> = (0..n).map(|_| i32::random(&mut rng)).collect();
    let yi = dev(&hyi, &[n]);
    k.call((&dev(&hxi, &[n]), &yi)).unwrap();
    let got = yi.to_vec::<i32>().unwrap();
    assert!((0..n).all(|i| got[i] == if hxi[i] > 0 { hxi[i] } else { hyi[i] }));
    // a transposed input (tiled, the output direct)
    let (r, c) = (100usize, 70usize);
    let (hb, hy) = (rand_f64(&mut rng, r * c), rand_f64(&mut rng, r * c));
    let xt = dev(&hb, &[c, r]).t();
    let y = dev(&hy, &[r, c]);
    k.call((&xt, &y)).unwrap();
    check(
        "x transposed",
        &y.to_vec::<f64>().unwrap(),
        &xt.to_vec::<f64>().unwrap(),
        &hy,
    );
    // a transposed output (staged through tiles: must be loaded, not clobbered)
    let yb = dev(&hy, &[c, r]);
    let x = dev(&hb, &[r, c]);
    k.call((&x, &yb.t())).unwrap();
    let hyt = dev(&hy, &[c, r]).t().to_vec::<f64>().unwrap();
    check("y transposed", &yb.t().to_vec::<f64>().unwrap(), &hb, &hyt);
    // broadcast row (rows) and short last axis (flat)
    let y = dev(&hy, &[r, c]);
    let row = dev(&hb[..c], &[c]);
    k.call((&row, &y)).unwrap();
    check(
        "row broadcast",
        &y.to_vec::<f64>().unwrap(),
        &broadcast_host(&hb[..c], &[c], &[r, c]),
        &hy,
    );
    let y = dev(&hy[..3000], &[1000, 3]);
    let xf = dev(&hb[..3000], &[3, 1000]).t();
    k.call((&xf, &y)).unwrap();
    check(
        "flat",
        &y.to_vec::<f64>().unwrap(),
        &xf.to_vec::<f64>().unwrap(),
        &hy[..3000],
    );
}

#[test]
fn several_outputs() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x", "T s, T c", "s = sin(x); c = cos(x)", "sin_cos").unwrap();
    let mut rng = Rng::new(45);
    let n = 100_003;
    let hx = rand_f64(&mut rng, n);
    let x = dev(&hx, &[n]);
    let out = k.call_all((&x,)).unwrap();
    assert_eq!(out.len(), 2);
    let (s, c) = (
        out[0].to_vec::<f64>().unwrap(),
        out[1].to_vec::<f64>().unwrap(),
    );
    for i in 0..n {
        assert!((s[i] - hx[i].sin()).abs() <= 1e-13, "sin at {i}");
        assert!((c[i] - hx[i].cos()).abs() <= 1e-13, "cos at {i}");
        assert!(
            (s[i] * s[i] + c[i] * c[i] - 1.0).abs() <= 1e-13,
            "sin^2+cos^2 at {i}"
        );
    }
    // call() returns the first output
    let first = k.call((&x,)).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(first, s);
    // given outputs (one a transposed view) come back
    let hm = rand_f32(&mut rng, 64 * 48);
    let m = dev(&hm, &[64, 48]);
    let so = Array::zeros(&[64, 48], DType::F32).unwrap();
    let cb = Array::zeros(&[48, 64], DType::F32).unwrap();
    let out = k.call_all((&m, &so, &cb.t())).unwrap();
    assert!(out[0].shares_memory(&so) && out[1].shares_memory(&cb));
    let (s, c) = (so.to_vec::<f32>().unwrap(), cb.t().to_vec::<f32>().unwrap());
    for i in 0..hm.len() {
        assert!((s[i] - hm[i].sin()).abs() <= 1e-6, "f32 sin at {i}");
        assert!((c[i] - hm[i].cos()).abs() <= 1e-6, "f32 cos at {i}");
        assert!(
            (s[i] * s[i] + c[i] * c[i] - 1.0).abs() <= 1e-5,
            "f32 identity at {i}"
        );
    }
    // outputs of different dtypes
    let k = ElementwiseKernel::new(
        "T x",
        "int64 q, T r, bool neg",
        "q = (long long)floor(x); r = x - q; neg = x < 0",
        "split",
    )
    .unwrap();
    let out = k.call_all((&x,)).unwrap();
    assert_eq!(
        out.iter().map(|a| a.dtype()).collect::<Vec<_>>(),
        vec![DType::I64, DType::F64, DType::Bool]
    );
    let (q, r, neg) = (
        out[0].to_vec::<i64>().unwrap(),
        out[1].to_vec::<f64>().unwrap(),
        out[2].to_vec::<bool>().unwrap(),
    );
    for i in 0..n {
        assert_eq!(q[i], hx[i].floor() as i64, "q at {i}");
        assert_eq!(r[i], hx[i] - hx[i].floor(), "r at {i}");
        assert_eq!(neg[i], hx[i] < 0.0, "neg at {i}");
    }
}

// =========================================================================================
// Raw parameters and the loop index
// =========================================================================================

#[test]
fn raw_parameters_index_their_own_shape() {
    require_gpu!();
    let mut rng = Rng::new(51);
    let n = 10_007;
    let hx = rand_f64(&mut rng, n);
    let x = dev(&hx, &[n]);
    // reverse with the loop size from a given (non-raw) output
    let rev =
        ElementwiseKernel::new("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "reverse").unwrap();
    let y = Array::zeros(&[n], DType::F64).unwrap();
    rev.call((&x, &y)).unwrap();
    let got = y.to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[n - 1 - i]));
    // raw in, raw out, explicit size
    let rev2 = ElementwiseKernel::new(
        "raw T x",
        "raw T y",
        "y[i] = x[_ind.size() - 1 - i]",
        "reverse_raw",
    )
    .unwrap();
    let y = rev2.size(n).call((&x,)).unwrap();
    assert_eq!(y.shape(), &[n]);
    let got = y.to_vec::<f64>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[n - 1 - i]));
    // a size smaller than the array: a strided gather
    let gather =
        ElementwiseKernel::new("raw T x", "raw T y", "y[i] = x[2 * i + 1]", "odd").unwrap();
    let y = gather.size(n / 2).call((&x,)).unwrap();
    let got = y.to_vec::<f64>().unwrap();
    assert_eq!(got.len(), n / 2);
    assert!((0..n / 2).all(|i| got[i] == hx[2 * i + 1]));
    // a given raw output of another shape, size from the call
    let yb = Array::zeros(&[5, n], DType::F64).unwrap();
    gather.size(n / 2).call((&x, &yb)).unwrap();
    let got = yb.to_vec::<f64>().unwrap();
    assert!((0..n / 2).all(|i| got[i] == hx[2 * i + 1]));
    assert!(got[n / 2..].iter().all(|&v| v == 0.0));
    // raw input, size given, a non-raw output allocated with the loop shape (size,)
    let rev3 =
        ElementwiseKernel::new("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "reverse3").unwrap();
    let y = rev3.size(100).call((&x,)).unwrap();
    assert_eq!(y.shape(), &[100]);
    let got = y.to_vec::<f64>().unwrap();
    assert!((0..100).all(|i| got[i] == hx[99 - i]));
    // raw n-d views: x[i] is the C-order element of the view (transposed, reversed)
    let (r, c) = (37usize, 53usize);
    let hm = rand_f64(&mut rng, r * c);
    let m = dev(&hm, &[r, c]);
    let plus = ElementwiseKernel::new("raw T x, T z", "T y", "y = x[i] + z", "raw_plus").unwrap();
    let hz = rand_f64(&mut rng, r * c);
    let z = dev(&hz, &[r * c]);
    for (what, v) in [
        ("transposed", m.t()),
        ("reversed", m.slice(&s![..;-1, ..;-1]).unwrap()),
        (
            "3-d",
            m.reshape(&[1, r as isize, c as isize])
                .unwrap()
                .permute(&[2, 0, 1])
                .unwrap(),
        ),
    ] {
        let hv = v.to_vec::<f64>().unwrap();
        let got = plus.call((&v, &z)).unwrap().to_vec::<f64>().unwrap();
        assert!((0..r * c).all(|i| got[i] == hv[i] + hz[i]), "{what}");
    }
    // a 0-d raw array is its one element for every i
    let got = plus
        .call((&Array::scalar(1.5f64).unwrap(), &z))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert!((0..r * c).all(|i| got[i] == 1.5 + hz[i]));
    // shape() and strides() of raw arrays (strides in elements)
    let dims = ElementwiseKernel::new(
        "raw T x",
        "raw int64 d",
        "d[i] = i < 2 ? x.shape()[i] : x.strides()[i - 2]",
        "raw_dims",
    )
    .unwrap();
    let d = dims
        .size(4)
        .call((&m.t(),))
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    assert_eq!(d, vec![c as i64, r as i64, 1, c as i64]);
}

#[test]
fn raw_outputs_with_atomics() {
    require_gpu!();
    let mut rng = Rng::new(52);
    let n = 200_001;
    let bins = 17usize;
    let hx: Vec<i32> = (0..n).map(|_| rng.usize(0, bins) as i32).collect();
    let hist = ElementwiseKernel::new("int32 x", "raw int32 h", "atomicAdd(&h[x], 1)", "histogram")
        .unwrap();
    let h = Array::zeros(&[bins], DType::I32).unwrap();
    hist.run((&dev(&hx, &[n]), &h)).unwrap();
    let mut want = vec![0i32; bins];
    for &v in &hx {
        want[v as usize] += 1;
    }
    assert_eq!(h.to_vec::<i32>().unwrap(), want);
    // through a transposed input (every element still counted once)
    let h2 = Array::zeros(&[bins], DType::I32).unwrap();
    let m = dev(&hx[..400 * 500], &[400, 500]);
    hist.run((&m.t(), &h2)).unwrap();
    let mut want = vec![0i32; bins];
    for &v in &hx[..400 * 500] {
        want[v as usize] += 1;
    }
    assert_eq!(h2.to_vec::<i32>().unwrap(), want);
}

#[test]
fn loop_index_is_c_order_over_the_broadcast_shape() {
    require_gpu!();
    let idx = ElementwiseKernel::new("T x", "int64 y", "y = i", "index_of").unwrap();
    let iota = |n: usize| (0..n as i64).collect::<Vec<_>>();
    let mut rng = Rng::new(53);
    let shapes: [&[usize]; 6] = [&[], &[1], &[1000], &[2, 3, 4], &[130, 257], &[3, 64, 48]];
    for shape in shapes {
        let n: usize = shape.iter().product();
        let x = dev(&rand_f32(&mut rng, n), shape);
        let y = idx.call((&x,)).unwrap();
        assert_eq!(y.shape(), shape);
        assert_eq!(y.to_vec::<i64>().unwrap(), iota(n), "{shape:?}");
    }
    // transposed, reversed and short-axis inputs: i is still the output's C order
    let m = dev(&rand_f32(&mut rng, 70 * 100), &[70, 100]);
    let b3 = dev(&rand_f32(&mut rng, 3 * 48 * 64), &[3, 48, 64]);
    for v in [
        b3.permute(&[0, 2, 1]).unwrap(),
        b3.slice(&s![..;-1, ..;-1]).unwrap(),
        m.t(),
        m.slice(&s![..;-1, ..;2]).unwrap(),
        m.reshape(&[3500, 2]).unwrap().t(),
        m.reshape(&[2, 3500]).unwrap().t(),
    ] {
        let y = idx.call((&v,)).unwrap();
        assert_eq!(y.shape(), v.shape());
        assert_eq!(
            y.to_vec::<i64>().unwrap(),
            iota(v.size()),
            "{:?}/{:?}",
            v.shape(),
            v.strides()
        );
    }
    // broadcast inputs
    let idx2 = ElementwiseKernel::new("T x, T w", "int64 y", "y = i", "index_of2").unwrap();
    let a = dev(&rand_f32(&mut rng, 4), &[4, 1]);
    let b = dev(&rand_f32(&mut rng, 3), &[3]);
    let y = idx2.call((&a, &b)).unwrap();
    assert_eq!(y.shape(), &[4, 3]);
    assert_eq!(y.to_vec::<i64>().unwrap(), iota(12));
    let y = idx2
        .call((&b, &a.broadcast_to(&[2, 4, 3]).unwrap()))
        .unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), iota(24));
    // a given transposed output: y (in its own C order) is 0..n
    let ob = Array::zeros(&[100, 70], DType::I64).unwrap();
    idx.call((&m, &ob.t())).unwrap();
    assert_eq!(ob.t().to_vec::<i64>().unwrap(), iota(7000));
    // the same with dimension merging off
    let idx_nr = ElementwiseKernel::new("T x", "int64 y", "y = i", "index_of")
        .unwrap()
        .reduce_dims(false);
    let y = idx_nr.call((&m.t(),)).unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), iota(7000));
    let x4 = dev(&rand_f32(&mut rng, 2 * 3 * 4 * 5), &[2, 3, 4, 5]);
    let y = idx_nr.call((&x4,)).unwrap();
    assert_eq!(y.to_vec::<i64>().unwrap(), iota(120));
    // with only raw arrays and a size, i counts 0..size
    let fill = ElementwiseKernel::new("", "raw int64 y", "y[i] = i", "iota_raw").unwrap();
    assert_eq!(
        fill.size(1234).call(()).unwrap().to_vec::<i64>().unwrap(),
        iota(1234)
    );
    // and with an output that decides the loop shape alone
    let fill2 = ElementwiseKernel::new("", "T y", "y = (T)(i * 3)", "iota3").unwrap();
    let y = Array::zeros(&[50, 40], DType::F32).unwrap();
    fill2.run((&y.t(),)).unwrap();
    let got = y.t().to_vec::<f32>().unwrap();
    assert!((0..2000).all(|i| got[i] == (i * 3) as f32));
}

#[test]
fn preamble_loop_prep_after_loop_and_options() {
    require_gpu!();
    let k = ElementwiseKernel::new(
        "T x",
        "T y, raw uint64 count",
        "y = sq(x) * s * FACTOR; ++visited",
        "with_parts",
    )
    .unwrap()
    .preamble("template <typename U> __device__ U sq(U v) { return v * v; }")
    .loop_prep("const float s = 0.5f; unsigned long long visited = 0;")
    .after_loop("atomicAdd(&count[0], visited);")
    .option("-DFACTOR=3");
    let mut rng = Rng::new(54);
    // each layout class: every element visited exactly once
    let n = 100_003;
    let hx = rand_f32(&mut rng, n);
    let x = dev(&hx, &[n]);
    let xm = dev(&hx[..130 * 257], &[130, 257]);
    let xt = dev(&hx[..70 * 100], &[70, 100]);
    let xf = dev(&hx[..3000], &[3, 1000]);
    for (what, v) in [
        ("contiguous", x.clone()),
        ("unaligned", x.slice(&s![1..]).unwrap()),
        ("rows", xm.slice(&s![..;-1]).unwrap()),
        ("tiled", xt.t()),
        ("flat", xf.t()),
    ] {
        let hv = v.to_vec::<f32>().unwrap();
        let count = Array::zeros(&[1], DType::U64).unwrap();
        let y = Array::empty(v.shape(), DType::F32).unwrap();
        k.call((&v, &y, &count)).unwrap();
        let got = y.to_vec::<f32>().unwrap();
        for i in 0..hv.len() {
            assert_eq!(got[i], hv[i] * hv[i] * 0.5 * 3.0, "{what} at {i}");
        }
        assert_eq!(
            count.to_vec::<u64>().unwrap(),
            vec![hv.len() as u64],
            "{what}"
        );
    }
}

#[test]
fn calls_on_a_given_stream() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * 2 + y", "axpy_stream").unwrap();
    let mut rng = Rng::new(55);
    let n = 100_003;
    let (hx, hy) = (rand_f32(&mut rng, n), rand_f32(&mut rng, n));
    let (x, y) = (dev(&hx, &[n]), dev(&hy, &[n]));
    let st = Stream::new().unwrap();
    let z = k.stream(&st).block_size(64).call((&x, &y)).unwrap();
    st.synchronize().unwrap();
    let got = z.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hx[i] * 2.0 + hy[i]));
    // a stream made current is the default for later calls
    let _guard = st.make_current();
    let z = k.call((&y, &x)).unwrap();
    let got = z.to_vec::<f32>().unwrap();
    assert!((0..n).all(|i| got[i] == hy[i] * 2.0 + hx[i]));
}

// =========================================================================================
// Errors that need a device
// =========================================================================================

#[test]
fn call_errors_match_cupy() {
    require_gpu!();
    let f32a = |shape: &[usize]| Array::ones(shape, DType::F32).unwrap();
    let copy = ElementwiseKernel::new("T x", "T y", "y = x", "copy_k").unwrap();
    let x = f32a(&[3, 4]);
    // size with non-raw arrays
    let m = assert_err(
        copy.size(12).call((&x,)),
        ErrorKind::InvalidArgument,
        "Specified 'size' can be used only if all of the",
    );
    assert!(m.contains("'raw'"), "{m}");
    // loop size undecided: raw-only or scalar-only arguments and no size
    let raw = ElementwiseKernel::new("raw T x", "raw T y", "y[i] = x[i]", "raw_copy").unwrap();
    let m = assert_err(
        raw.call((&x,)),
        ErrorKind::InvalidArgument,
        "Loop size is undecided.",
    );
    assert!(m.starts_with("Loop size is undecided."), "{m}");
    let from_scalar = ElementwiseKernel::new("T a", "T y", "y = a", "fill_k").unwrap();
    assert_err(
        from_scalar.call((1.0f64,)),
        ErrorKind::InvalidArgument,
        "Loop size is undecided.",
    );
    // dtype mismatch against a concrete type
    let concrete = ElementwiseKernel::new("float32 x", "float32 y", "y = x", "f32_copy").unwrap();
    let x64 = Array::ones(&[3, 4], DType::F64).unwrap();
    assert_type_mismatch(concrete.call((&x64,)), "x float64 float32");
    assert_type_mismatch(concrete.call((&x, &x64)), "y float64 float32");
    // placeholder bound by one array, contradicted by another
    let add = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "add_k").unwrap();
    assert_type_mismatch(add.call((&x, &x64)), "y float64 float32 T");
    // outputs bind first: the input is the one that mismatches
    assert_type_mismatch(copy.call((&x, &x64)), "x float32 float64 T");
    // a scalar where an output goes
    let m = assert_err(
        copy.call((&x, 1.0f32)),
        ErrorKind::InvalidArgument,
        "Output arguments type must be",
    );
    assert!(m.contains("'y'"), "{m}");
    // an output whose shape is not the loop shape
    for bad in [&[4usize][..], &[1, 4], &[1, 1, 4], &[3, 1]] {
        let m = assert_err(
            copy.call((&x, &f32a(bad))),
            ErrorKind::Shape,
            "Out shape is mismatched",
        );
        assert!(m.starts_with("Out shape is mismatched"), "{bad:?}: {m}");
    }
    // (4, 3) and (12,) do not even broadcast with (3, 4)
    for bad in [&[4usize, 3][..], &[12]] {
        assert_err(
            copy.call((&x, &f32a(bad))),
            ErrorKind::Shape,
            "could not be broadcast",
        );
    }
    // ... but an output may set a larger loop shape that inputs broadcast to
    let hx: Vec<f32> = (0..12).map(|v| v as f32 + 1.0).collect();
    let out = f32a(&[2, 3, 4]);
    copy.call((&dev(&hx, &[3, 4]), &out)).unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        [hx.clone(), hx.clone()].concat()
    );
    // a raw output with no size
    let raw_out = ElementwiseKernel::new("T x", "raw T y", "y[i] = x", "raw_out").unwrap();
    let m = assert_err(
        raw_out.call((&x,)),
        ErrorKind::InvalidArgument,
        "Output array size is Undecided",
    );
    assert!(m.starts_with("Output array size is Undecided"), "{m}");
    // unbroadcastable shapes
    let e = add.call((&f32a(&[2]), &f32a(&[3]))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "operands could not be broadcast together with shapes (2,) (3,)"
    );
    let e = add.call((&f32a(&[2, 3]), &f32a(&[2]))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "operands could not be broadcast together with shapes (2, 3) (2,)"
    );
    // a placeholder no array decides
    let unresolved = ElementwiseKernel::new("T x, U s", "T y", "y = x * s", "unresolved").unwrap();
    let m = assert_err(
        unresolved.call((&x, 2.0f32)),
        ErrorKind::DType,
        "placeholder U",
    );
    assert!(m.contains("'s'"), "{m}");
    let unresolved_out = ElementwiseKernel::new("T x", "U y", "y = x", "unresolved_out").unwrap();
    assert_err(
        unresolved_out.call((&x,)),
        ErrorKind::DType,
        "placeholder U",
    );
    // with the output given, U is decided
    let y64 = Array::zeros(&[3, 4], DType::F64).unwrap();
    unresolved_out.call((&x, &y64)).unwrap();
    assert_eq!(y64.to_vec::<f64>().unwrap(), vec![1.0; 12]);
}

#[test]
fn compile_errors_point_at_the_users_code() {
    require_gpu!();
    let x = Array::ones(&[8], DType::F32).unwrap();
    let k = ElementwiseKernel::new("T x", "T y", "y = x + undefined_thing_42", "bad_op").unwrap();
    let e = k.call((&x,)).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), ErrorKind::Compile, "{m}");
    assert!(m.contains("undefined_thing_42"), "{m}");
    assert!(m.contains("this line comes from your operation"), "{m}");
    assert!(
        e.compile_log()
            .is_some_and(|l| l.contains("undefined_thing_42"))
    );
    // `{:?}` is as concise as `{}`
    assert_eq!(format!("{e:?}"), format!("{m} (Compile)"));
    // warnings about the user's operation stay in the log; none about cuprum's code
    let k = ElementwiseKernel::new(
        "T x",
        "T y",
        "int user_unused_41 = 0; y = x + undefined_thing_43",
        "warn_op",
    )
    .unwrap();
    let e = k.call((&x,)).unwrap_err();
    let log = e.compile_log().unwrap();
    // (the host compiler warns about unused variables only with -Wall, which cuprum does not
    // pass: its log has the error alone)
    assert!(log.contains("user_unused_41") || common::on_host(), "{log}");
    let raw = &e.compile_failure().unwrap().log;
    let f = e.compile_failure().unwrap();
    for d in f.diagnostics() {
        let in_user_text = f
            .spans
            .iter()
            .any(|s| s.first_line <= d.line && d.line <= s.last_line);
        assert!(
            d.severity.contains("error") || in_user_text || !log.contains(&d.message),
            "a warning about generated code is shown: {d:?}\n{raw}"
        );
    }
    // the error stays an error on the next call
    assert_eq!(k.call((&x,)).unwrap_err().kind(), ErrorKind::Compile);
    // a broken preamble is reported as the preamble
    let k = ElementwiseKernel::new("T x", "T y", "y = helper(x)", "bad_preamble")
        .unwrap()
        .preamble("__device__ float helper(float v) { return v + not_declared_in_preamble; }");
    assert_compile_error_in(k.call((&x,)), "not_declared_in_preamble", "preamble");
    // an operation that does not type-check for one dtype only
    let k = ElementwiseKernel::new("T x", "T y", "y = x % (T)3", "modulo").unwrap();
    let hi: Vec<i32> = (1..=9).collect();
    assert_eq!(
        k.call((&dev(&hi, &[9]),)).unwrap().to_vec::<i32>().unwrap(),
        hi.iter().map(|v| v % 3).collect::<Vec<_>>()
    );
    assert_err(
        k.call((&Array::ones(&[4], DType::C64).unwrap(),)),
        ErrorKind::Compile,
        "operation",
    );
}

// =========================================================================================
// Caching
// =========================================================================================

#[test]
fn repeated_and_interleaved_calls_give_the_same_results() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + x", "cached_k").unwrap();
    let k2 = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + x", "cached_k").unwrap();
    let mut rng = Rng::new(61);
    let n = 30_001;
    let (hx, hy) = (rand_f32(&mut rng, n), rand_f32(&mut rng, n));
    let (hx64, hy64) = (rand_f64(&mut rng, n), rand_f64(&mut rng, n));
    let hxi: Vec<i32> = (0..n).map(|_| rng.usize(1, 1000) as i32).collect();
    let hyi: Vec<i32> = (0..n).map(|_| rng.usize(1, 1000) as i32).collect();
    let (x, y) = (dev(&hx, &[n]), dev(&hy, &[n]));
    let (x64, y64) = (dev(&hx64, &[n]), dev(&hy64, &[n]));
    let (xi, yi) = (dev(&hxi, &[n]), dev(&hyi, &[n]));
    let want32: Vec<f32> = (0..n).map(|i| hx[i].mul_add(hy[i], hx[i])).collect();
    let want32b: Vec<f32> = (0..n).map(|i| hx[i] * hy[i] + hx[i]).collect();
    let close32 = |got: &[f32]| (0..n).all(|i| got[i] == want32[i] || got[i] == want32b[i]);
    let first = k.call((&x, &y)).unwrap().to_vec::<f32>().unwrap();
    assert!(close32(&first));
    for round in 0..3 {
        for kk in [&k, &k2] {
            assert_eq!(
                kk.call((&x, &y)).unwrap().to_vec::<f32>().unwrap(),
                first,
                "round {round}"
            );
            let z = kk.call((&x64, &y64)).unwrap().to_vec::<f64>().unwrap();
            assert!((0..n).all(|i| (z[i] - (hx64[i] * hy64[i] + hx64[i])).abs()
                <= 1e-12 * (hx64[i] * hy64[i] + hx64[i]).abs().max(1.0)));
            let z = kk.call((&xi, &yi)).unwrap().to_vec::<i32>().unwrap();
            assert!((0..n).all(|i| z[i] == hxi[i] * hyi[i] + hxi[i]));
            // the same dtypes in another layout
            let zt = kk
                .call((
                    &x.reshape(&[1, n as isize]).unwrap().t(),
                    &y.reshape(&[n as isize, 1]).unwrap(),
                ))
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            assert_eq!(zt, first, "round {round} (n, 1) views");
        }
    }
    // dimension merging off gives the same results
    let nr = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + x", "cached_k")
        .unwrap()
        .reduce_dims(false);
    let m = dev(&hx[..30_000], &[30, 40, 25]);
    let p = dev(&hy[..30_000], &[30, 40, 25]);
    let a = k.call((&m, &p)).unwrap().to_vec::<f32>().unwrap();
    let b = nr.call((&m, &p)).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(a, b);
    assert_eq!(a, first[..30_000].to_vec());
    let mt = m.permute(&[2, 0, 1]).unwrap();
    let pt = dev(&hy[..30_000], &[25, 30, 40]);
    assert_eq!(
        k.call((&mt, &pt)).unwrap().to_vec::<f32>().unwrap(),
        nr.call((&mt, &pt)).unwrap().to_vec::<f32>().unwrap()
    );
}

#[test]
fn concurrent_calls_from_threads() {
    require_gpu!();
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x * 2 + y", "axpy_threads").unwrap();
    std::thread::scope(|sc| {
        for t in 0..4u64 {
            let k = &k;
            sc.spawn(move || {
                let mut rng = Rng::new(70 + t);
                for round in 0..5 {
                    let n = 1000 + rng.usize(0, 50_000);
                    let (hx, hy) = (rand_f64(&mut rng, n), rand_f64(&mut rng, n));
                    let z = if round % 2 == 0 {
                        k.call((&dev(&hx, &[n]), &dev(&hy, &[n])))
                            .unwrap()
                            .to_vec::<f64>()
                            .unwrap()
                    } else {
                        let z32 = k
                            .call((
                                &dev(&rand_f32(&mut rng, 4), &[4]),
                                &dev(&rand_f32(&mut rng, 4), &[4]),
                            ))
                            .unwrap();
                        assert_eq!(z32.dtype(), DType::F32);
                        k.call((&dev(&hx, &[n]), &dev(&hy, &[n])))
                            .unwrap()
                            .to_vec::<f64>()
                            .unwrap()
                    };
                    assert!(
                        (0..n).all(|i| z[i] == hx[i] * 2.0 + hy[i]),
                        "thread {t} round {round}"
                    );
                }
            });
        }
    });
}

// =========================================================================================
// Beyond 32-bit indexing
// =========================================================================================

#[test]
fn calls_over_2_gib_use_64_bit_indexing() {
    require_gpu!();
    skip_on_host!("4 GiB of arrays and 2^31 elements per call take minutes on a CPU");
    let fill = ElementwiseKernel::new(
        "",
        "uint8 x",
        "x = (unsigned char)((i * 7 + 3) & 255)",
        "pattern_u8",
    )
    .unwrap();
    let inc = ElementwiseKernel::new("T x", "T y", "y = x + 1", "inc").unwrap();
    let pat = |j: usize| ((j * 7 + 3) & 255) as u8;
    let n = (1usize << 31) + 4099;
    let probes: Vec<usize> = (0..8)
        .chain((1 << 31) - 8..(1 << 31) + 8)
        .chain((1 << 30) - 2..(1 << 30) + 2)
        .chain(n - 8..n)
        .collect();
    let at = |a: &Array, j: usize| {
        let j = j as isize;
        a.slice(&s![j..j + 1]).unwrap().to_vec::<u8>().unwrap()[0]
    };
    {
        let x = Array::empty(&[n], DType::U8).unwrap();
        fill.run((&x,)).unwrap();
        for &j in &probes {
            assert_eq!(at(&x, j), pat(j), "pattern at {j}");
        }
        let y = inc.call((&x,)).unwrap();
        assert_eq!(y.shape(), &[n]);
        for &j in &probes {
            assert_eq!(at(&y, j), pat(j).wrapping_add(1), "x + 1 at {j}");
        }
        drop(y);
        // a reversed view: strided (64-bit offsets) rather than flat
        let y = inc.call((&x.slice(&s![..;-1]).unwrap(),)).unwrap();
        for &j in &probes {
            assert_eq!(
                at(&y, j),
                pat(n - 1 - j).wrapping_add(1),
                "reversed x + 1 at {j}"
            );
        }
        drop(y);
        // every other element: 2^30 elements, but a span past 2^31
        let y = inc.call((&x.slice(&s![..;2]).unwrap(),)).unwrap();
        assert_eq!(y.size(), n.div_ceil(2));
        for &j in probes.iter().filter(|&&j| j < n.div_ceil(2)) {
            assert_eq!(at(&y, j), pat(2 * j).wrapping_add(1), "x[::2] + 1 at {j}");
        }
        let last = n.div_ceil(2) - 1;
        assert_eq!(at(&y, last), pat(2 * last).wrapping_add(1));
        drop(y);
        // a transposed view of more than 2^31 elements (tiles with 64-bit offsets)
        let (r, c) = (30_010usize, 71_559usize);
        assert!(r * c > i32::MAX as usize && r * c <= n);
        assert_eq!(71_558 * r + 28_068, 1 << 31);
        let xm = x
            .slice(&s![..(r * c) as isize])
            .unwrap()
            .reshape(&[r as isize, c as isize])
            .unwrap();
        let yt = inc.call((&xm.t(),)).unwrap();
        assert_eq!(yt.shape(), &[c, r]);
        let yt = yt.reshape(&[-1]).unwrap();
        for (a, b) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (c - 1, r - 1),
            (c - 1, 0),
            (0, r - 1),
            (40_000, 30_000),
            (71_000, 29_999),
            // output elements 2^31 - 1 and 2^31
            (71_558, 28_067),
            (71_558, 28_068),
        ] {
            assert_eq!(
                at(&yt, a * r + b),
                pat(b * c + a).wrapping_add(1),
                "transposed at ({a}, {b})"
            );
        }
        drop(yt);
        // in place, with an odd start (no wide loads)
        let tail = x.slice(&s![1..]).unwrap();
        inc.call((&tail, &tail)).unwrap();
        assert_eq!(at(&x, 0), pat(0));
        for &j in probes.iter().filter(|&&j| j > 0) {
            assert_eq!(at(&x, j), pat(j).wrapping_add(1), "in place at {j}");
        }
    }
    {
        // float32: 2.4 GB, byte offsets past 2^31 with 32-bit element counts
        let n = 600_000_000usize;
        let fill =
            ElementwiseKernel::new("", "float32 x", "x = (float)(i % 1000003)", "pattern_f32")
                .unwrap();
        let twice = ElementwiseKernel::new("T x", "T z", "z = x * 2", "twice_big").unwrap();
        let x = Array::empty(&[n], DType::F32).unwrap();
        fill.run((&x,)).unwrap();
        let z = twice.call((&x,)).unwrap();
        let at = |a: &Array, j: usize| {
            let j = j as isize;
            a.slice(&s![j..j + 1]).unwrap().to_vec::<f32>().unwrap()[0]
        };
        let probes: Vec<usize> = (0..4)
            .chain((1 << 29) - 3..(1 << 29) + 3)
            .chain([123_456_789, 599_000_001])
            .chain(n - 4..n)
            .collect();
        for &j in &probes {
            let p = (j % 1_000_003) as f32;
            assert_eq!(at(&x, j), p, "pattern at {j}");
            assert_eq!(at(&z, j), p * 2.0, "x * 2 at {j}");
        }
    }
}

// =========================================================================================
// Memoized kernel factories (CuPy's `@cupy.memoize(for_each_device=True)`)
// =========================================================================================

static SCALE_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static SCALE_KERNELS: cuprum::Memo<DType, ElementwiseKernel> = cuprum::Memo::for_each_device();

/// One `y = x * a` kernel per (dtype, device).
fn memo_scale_kernel(d: DType) -> cuprum::Result<std::sync::Arc<ElementwiseKernel>> {
    SCALE_KERNELS.get_or_try_insert(d, || {
        SCALE_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ElementwiseKernel::new(
            &format!("{d} x, {d} a"),
            &format!("{d} y"),
            "y = x * a",
            "memo_scale",
        )
    })
}

#[test]
fn memoized_kernel_factories_are_kept_per_device() {
    require_gpu!();
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let calls = || SCALE_CALLS.load(Ordering::SeqCst);
    let mut rng = Rng::new(55);
    let run = |k: &ElementwiseKernel, rng: &mut Rng| {
        let h = rand_f32(rng, 1000);
        let x = dev(&h, &[1000]);
        let y = k.call((&x, 3.0f32)).unwrap().to_vec::<f32>().unwrap();
        assert!(h.iter().zip(&y).all(|(a, b)| *b == a * 3.0));
    };
    let k = memo_scale_kernel(DType::F32).unwrap();
    assert_eq!(calls(), 1);
    assert!(Arc::ptr_eq(&k, &memo_scale_kernel(DType::F32).unwrap()));
    assert_eq!(calls(), 1);
    run(&k, &mut rng);
    let k64 = memo_scale_kernel(DType::F64).unwrap();
    assert!(!Arc::ptr_eq(&k, &k64));
    assert_eq!((calls(), SCALE_KERNELS.len()), (2, 2));
    // every other device gets its own kernel, made while it is current
    // the host device is the only one when it stands in for the GPU
    let devices = if common::on_host() {
        1
    } else {
        cuprum::Device::count().unwrap()
    };
    for ord in 1..devices {
        let d = cuprum::Device::get(ord).unwrap();
        let kd = d.with(|| memo_scale_kernel(DType::F32)).unwrap();
        assert!(
            !Arc::ptr_eq(&k, &kd),
            "device {ord} shares device 0's kernel"
        );
        assert!(Arc::ptr_eq(
            &kd,
            &d.with(|| memo_scale_kernel(DType::F32)).unwrap()
        ));
        d.with(|| run(&kd, &mut rng));
    }
    assert_eq!(calls(), 2 + (devices - 1));
    assert_eq!(SCALE_KERNELS.len(), 2 + (devices - 1));
    // clear_memo forgets them; kernels handed out keep working
    cuprum::clear_memo();
    assert!(SCALE_KERNELS.is_empty());
    let again = memo_scale_kernel(DType::F32).unwrap();
    assert!(!Arc::ptr_eq(&k, &again));
    assert_eq!(calls(), 3 + (devices - 1));
    run(&k, &mut rng);
    run(&again, &mut rng);
}

// =========================================================================================
// Repeat calls: the memo of call plans (`kernel/call_memo.rs`)
// =========================================================================================

/// Repeat calls replay the plan of an earlier call with the same fingerprint: each must
/// read its own arrays and scalar and write its own output, and any difference the plan
/// depends on (an offset view's alignment, strides, a broadcast shape, a dtype, the loop
/// size, a read-only output) must plan again — with the general path's checks and errors.
#[test]
fn repeat_calls_replay_only_what_they_match() {
    require_gpu!();
    let mut rng = Rng::new(0x3e30);
    let k =
        ElementwiseKernel::new("T x, T y, float64 s", "T z", "z = x * s + y", "memo_axpy").unwrap();
    let n = 1031usize;
    let ni = n as isize;
    let host = |x: &[f32], y: &[f32], s: f64| -> Vec<f32> {
        x.iter()
            .zip(y)
            .map(|(&a, &b)| (f64::from(a) * s + f64::from(b)) as f32)
            .collect()
    };
    // Contiguous, in turn with an offset view (another alignment), a strided view, a
    // broadcast row and a float64 call; twice each, with new values every time.
    for round in 0..2 {
        let (xv, yv) = (rand_f32(&mut rng, n + 1), rand_f32(&mut rng, n + 1));
        let s = nz(&mut rng, -3.0, 3.0);
        let (x, y) = (dev(&xv, &[n + 1]), dev(&yv, &[n + 1]));
        let z = k.call((&x, &y, s)).unwrap();
        assert_eq!(
            z.to_vec::<f32>().unwrap(),
            host(&xv, &yv, s),
            "round {round}"
        );
        let (xo, yo) = (x.slice(&s![1..]).unwrap(), y.slice(&s![..ni]).unwrap());
        let z = k.call((&xo, &yo, s)).unwrap();
        assert_eq!(z.to_vec::<f32>().unwrap(), host(&xv[1..], &yv[..n], s));
        let (xs, ys) = (x.slice(&s![..;2]).unwrap(), y.slice(&s![1..;2]).unwrap());
        let want: Vec<f32> = host(
            &xv.iter().step_by(2).copied().collect::<Vec<_>>(),
            &yv.iter().skip(1).step_by(2).copied().collect::<Vec<_>>(),
            s,
        );
        assert_eq!(
            k.call((&xs, &ys, s)).unwrap().to_vec::<f32>().unwrap(),
            want
        );
        let m = x.slice(&s![..ni - 1]).unwrap().reshape(&[5, 206]).unwrap();
        let row = y.slice(&s![..206]).unwrap();
        let got = k.call((&m, &row, s)).unwrap();
        let want: Vec<f32> = (0..n - 1)
            .map(|i| (f64::from(xv[i]) * s + f64::from(yv[i % 206])) as f32)
            .collect();
        assert_eq!(got.shape(), &[5, 206]);
        assert_eq!(got.to_vec::<f32>().unwrap(), want);
        let xd: Vec<f64> = xv.iter().map(|&v| f64::from(v)).collect();
        let zd = k
            .call((&dev(&xd, &[n + 1]), &dev(&xd, &[n + 1]), s))
            .unwrap();
        // A GPU may fuse the multiply and the add (one rounding): within an ulp or two.
        for (got, &v) in zd.to_vec::<f64>().unwrap().iter().zip(&xd) {
            let want = v * s + v;
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "{got} {want}"
            );
        }
    }
    // An output given, twice.
    let (x, y) = (
        dev(&[1.0f32, 2.0, 3.0], &[3]),
        dev(&[4.0f32, 5.0, 6.0], &[3]),
    );
    let out = Array::zeros(&[3], DType::F32).unwrap();
    k.call((&x, &y, 2.0, &out)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [6.0, 9.0, 12.0]);
    k.call((&y, &x, 2.0, &out)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [9.0, 12.0, 15.0]);
    // The same call with an output of another shape: planned again, refused.
    let long = Array::zeros(&[4], DType::F32).unwrap();
    assert_err(
        k.call((&x, &y, 2.0, &long)),
        ErrorKind::Shape,
        "could not be broadcast",
    );
    // A scalar's value is packed every call: one out of its parameter's range is refused
    // after the same call with one in range.
    let ki = ElementwiseKernel::new("int32 x, int8 s", "int32 z", "z = x + s", "memo_i8").unwrap();
    let xi = dev(&[1i32, 2, 3], &[3]);
    assert_eq!(
        ki.call((&xi, 5i64)).unwrap().to_vec::<i32>().unwrap(),
        [6, 7, 8]
    );
    assert_eq!(
        ki.call((&xi, -7i64)).unwrap().to_vec::<i32>().unwrap(),
        [-6, -5, -4]
    );
    assert!(ki.call((&xi, 300i64)).is_err());
    // An empty loop, then a full one of the same dtypes.
    let e = Array::zeros(&[0], DType::F32).unwrap();
    assert_eq!(k.call((&e, &e, 1.0)).unwrap().shape(), &[0]);
    assert_eq!(
        k.call((&x, &y, 1.0)).unwrap().to_vec::<f32>().unwrap(),
        [5.0, 7.0, 9.0]
    );
    // A raw-only kernel: the size is part of the fingerprint.
    let kr = ElementwiseKernel::new("raw T x", "raw T z", "z[i] = x[i] * 3", "memo_raw").unwrap();
    for size in [3usize, 2, 3] {
        let z = Array::zeros(&[3], DType::F32).unwrap();
        kr.size(size).call((&x, &z)).unwrap();
        let mut want = vec![3.0f32, 6.0, 9.0];
        want[size..].iter_mut().for_each(|v| *v = 0.0);
        assert_eq!(z.to_vec::<f32>().unwrap(), want, "size {size}");
    }
}
