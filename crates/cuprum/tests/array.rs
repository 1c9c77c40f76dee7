//! Integration tests of the array layer: creation, views, transfers and strided copies,
//! random numbers, the runtime pieces arrays rely on (devices, streams, events, memory),
//! the profiler, and arrays larger than 2 GiB.
//!
//! Every GPU result is compared with a reference computed on the host, from random inputs
//! made by `common::Rng`. GPU tests begin with `require_gpu!()`: without a GPU they print a
//! SKIPPED line and return (`CUPRUM_REQUIRE_GPU=1` makes that a failure). The tests of the
//! "validation before any GPU work" section need no GPU and run everywhere.

mod common;

use common::views::{c_strides, unravel};
use common::{Rng, expect_err};
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::random::{self, Generator};
use cuprum::{
    Array, DType, Device, Element, Endpoint, ErrorKind, Event, Scalar, SliceArg, Stream, s,
};
use half::{bf16, f16};
use num_complex::Complex;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

// =========================================================================================
// Host-side helpers
// =========================================================================================

/// An element type with host-side values to build references from.
trait TestElem: Element + PartialEq + Into<Scalar> {
    fn zero() -> Self;
    fn one() -> Self;
    /// `v` converted the way NumPy assigns a small integer (`v != 0` for bool).
    fn from_i32(v: i32) -> Self;
    /// A random value (over the whole range for integers, moderate magnitudes for floats).
    fn random(rng: &mut Rng) -> Self;
}

macro_rules! impl_test_elem_int {
    ($($t:ty),*) => {$(
        impl TestElem for $t {
            fn zero() -> Self { 0 }
            fn one() -> Self { 1 }
            fn from_i32(v: i32) -> Self { v as $t }
            fn random(rng: &mut Rng) -> Self { rng.next_u64() as $t }
        }
    )*};
}
impl_test_elem_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl TestElem for bool {
    fn zero() -> Self {
        false
    }
    fn one() -> Self {
        true
    }
    fn from_i32(v: i32) -> Self {
        v != 0
    }
    fn random(rng: &mut Rng) -> Self {
        rng.next_u64() & 1 == 1
    }
}

macro_rules! impl_test_elem_float {
    ($($t:ty => $from:expr),*) => {$(
        impl TestElem for $t {
            fn zero() -> Self { $from(0.0) }
            fn one() -> Self { $from(1.0) }
            fn from_i32(v: i32) -> Self { $from(f64::from(v)) }
            fn random(rng: &mut Rng) -> Self { $from(rng.f64(-100.0, 100.0)) }
        }
    )*};
}
impl_test_elem_float!(
    f16 => f16::from_f64,
    bf16 => bf16::from_f64,
    f32 => |v: f64| v as f32,
    f64 => |v: f64| v
);

macro_rules! impl_test_elem_complex {
    ($($t:ty),*) => {$(
        impl TestElem for Complex<$t> {
            fn zero() -> Self { Complex::new(0.0, 0.0) }
            fn one() -> Self { Complex::new(1.0, 0.0) }
            fn from_i32(v: i32) -> Self { Complex::new(v as $t, 0.0) }
            fn random(rng: &mut Rng) -> Self {
                Complex::new(rng.f64(-100.0, 100.0) as $t, rng.f64(-100.0, 100.0) as $t)
            }
        }
    )*};
}
impl_test_elem_complex!(f32, f64);

/// `n` random values of `T`; asserts that they are not all zero.
fn random_vec<T: TestElem>(rng: &mut Rng, n: usize) -> Vec<T> {
    let v: Vec<T> = (0..n).map(|_| T::random(rng)).collect();
    assert!(
        n == 0 || v.iter().any(|x| *x != T::zero()),
        "random input all zero"
    );
    v
}

fn random_f64(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.f64(lo, hi)).collect()
}

fn random_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.f64(-10.0, 10.0) as f32).collect()
}

fn random_i32(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| rng.next_u64() as i32).collect()
}

/// Asserts element-wise `|got - want| <= atol + rtol * |want|`.
#[track_caller]
fn assert_close(got: &[f64], want: &[f64], rtol: f64, atol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let tol = atol + rtol * w.abs();
        assert!(
            (g - w).abs() <= tol,
            "{what}: element {i}: got {g}, want {w} (tolerance {tol})"
        );
    }
}

fn widen<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

/// Sample mean and (population) standard deviation.
fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Calls `$f::<T>($args)` for every dtype's Rust type that dtype sweeps take
/// ([`common::dtypes`]: the representatives on the host device), in `DType::ALL` order,
/// and gives back what the calls return (the checkers return `T::DTYPE`, so callers can
/// assert that each dtype of the sweep was covered).
macro_rules! for_each_dtype {
    ($f:ident ( $($arg:expr),* )) => {{
        let mut seen: Vec<DType> = Vec::new();
        macro_rules! one {
            ($t:ty) => {
                if common::sweeps_dtype(<$t as Element>::DTYPE) {
                    seen.push($f::<$t>($($arg),*));
                }
            };
        }
        one!(bool);
        one!(i8);
        one!(i16);
        one!(i32);
        one!(i64);
        one!(u8);
        one!(u16);
        one!(u32);
        one!(u64);
        one!(f16);
        one!(bf16);
        one!(f32);
        one!(f64);
        one!(Complex<f32>);
        one!(Complex<f64>);
        seen
    }};
}

// -----------------------------------------------------------------------------------------
// A host model of views, written independently of the library (with `c_strides` and
// `unravel` of `common::views`)
// -----------------------------------------------------------------------------------------

/// The positions Python's `range(len)[start:stop:step]` selects (CPython's
/// `slice.indices` rules).
fn py_range(len: usize, start: Option<isize>, stop: Option<isize>, step: isize) -> Vec<usize> {
    assert_ne!(step, 0, "host model: zero step");
    let n = len as isize;
    let (lower, upper) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let norm = |v: Option<isize>, default: isize| match v {
        None => default,
        Some(v) if v < 0 => (v + n).max(lower),
        Some(v) => v.min(upper),
    };
    let mut i = norm(start, if step < 0 { upper } else { lower });
    let stop = norm(stop, if step < 0 { lower } else { upper });
    let mut out = Vec::new();
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    out
}

/// A view on the host: its shape and, for each of its elements in C order, the C-order
/// position of that element in the base array.
#[derive(Clone, Debug)]
struct HostView {
    shape: Vec<usize>,
    idx: Vec<usize>,
}

impl HostView {
    /// The whole base array of `shape`.
    fn new(shape: &[usize]) -> HostView {
        let n = shape.iter().product();
        HostView {
            shape: shape.to_vec(),
            idx: (0..n).collect(),
        }
    }

    /// The view's values, taken from the base array's data.
    fn gather<T: Copy>(&self, base: &[T]) -> Vec<T> {
        self.idx.iter().map(|&i| base[i]).collect()
    }

    /// A view of this view given, per new element, its C-order position in this view.
    fn compose(&self, shape: Vec<usize>, local: impl Iterator<Item = usize>) -> HostView {
        HostView {
            shape,
            idx: local.map(|k| self.idx[k]).collect(),
        }
    }

    /// NumPy basic slicing.
    fn slice(&self, args: &[SliceArg]) -> HostView {
        enum Ax {
            Fixed(usize, usize),
            Sel(usize, Vec<usize>),
            New,
        }
        let nd = self.shape.len();
        let mut axes = Vec::new();
        let mut ax = 0;
        for a in args {
            match *a {
                SliceArg::NewAxis => axes.push(Ax::New),
                SliceArg::Index(i) => {
                    let len = self.shape[ax] as isize;
                    let j = if i < 0 { i + len } else { i };
                    assert!((0..len).contains(&j), "host model: index {i} out of range");
                    axes.push(Ax::Fixed(ax, j as usize));
                    ax += 1;
                }
                SliceArg::Range { start, end, step } => {
                    axes.push(Ax::Sel(ax, py_range(self.shape[ax], start, end, step)));
                    ax += 1;
                }
                SliceArg::Invalid(why) => panic!("host model: invalid slice ({why})"),
            }
        }
        assert!(ax <= nd, "host model: too many indices");
        for k in ax..nd {
            axes.push(Ax::Sel(k, (0..self.shape[k]).collect()));
        }
        let st = c_strides(&self.shape);
        let out_shape: Vec<usize> = axes
            .iter()
            .filter_map(|a| match a {
                Ax::Fixed(..) => None,
                Ax::Sel(_, v) => Some(v.len()),
                Ax::New => Some(1),
            })
            .collect();
        let n: usize = out_shape.iter().product();
        let local = (0..n).map(|flat| {
            let mi = unravel(flat, &out_shape);
            let (mut pos, mut o) = (0, 0);
            for a in &axes {
                match a {
                    Ax::Fixed(k, j) => pos += j * st[*k],
                    Ax::Sel(k, v) => {
                        pos += v[mi[o]] * st[*k];
                        o += 1;
                    }
                    Ax::New => o += 1,
                }
            }
            pos
        });
        let local: Vec<usize> = local.collect();
        self.compose(out_shape, local.into_iter())
    }

    /// Axis `i` of the result is axis `perm[i]` of this view.
    fn permute(&self, perm: &[usize]) -> HostView {
        let st = c_strides(&self.shape);
        let out_shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let n: usize = out_shape.iter().product();
        let local: Vec<usize> = (0..n)
            .map(|flat| {
                let mi = unravel(flat, &out_shape);
                mi.iter().zip(perm).map(|(&j, &p)| j * st[p]).sum()
            })
            .collect();
        self.compose(out_shape, local.into_iter())
    }

    fn transpose(&self) -> HostView {
        let perm: Vec<usize> = (0..self.shape.len()).rev().collect();
        self.permute(&perm)
    }

    /// NumPy broadcasting to `target`.
    fn broadcast(&self, target: &[usize]) -> HostView {
        let st = c_strides(&self.shape);
        let off = target.len() - self.shape.len();
        let n: usize = target.iter().product();
        let local: Vec<usize> = (0..n)
            .map(|flat| {
                let mi = unravel(flat, target);
                (0..self.shape.len())
                    .map(|k| {
                        if self.shape[k] == 1 {
                            0
                        } else {
                            mi[k + off] * st[k]
                        }
                    })
                    .sum()
            })
            .collect();
        self.compose(target.to_vec(), local.into_iter())
    }

    /// The same elements in the same order under another shape.
    fn reshape(&self, shape: &[usize]) -> HostView {
        assert_eq!(shape.iter().product::<usize>(), self.idx.len());
        HostView {
            shape: shape.to_vec(),
            idx: self.idx.clone(),
        }
    }
}

/// Checks a GPU view against its host model: the shape, then the values in C order.
#[track_caller]
fn check_view<T: TestElem>(view: &Array, model: &HostView, base: &[T], what: &str) {
    assert_eq!(view.shape(), model.shape.as_slice(), "{what}: shape");
    assert_eq!(view.dtype(), T::DTYPE, "{what}: dtype");
    assert_eq!(
        view.to_vec::<T>().unwrap(),
        model.gather(base),
        "{what}: values"
    );
}

/// Tests that seed or draw from the default random generator hold this lock: tests run in
/// parallel threads, and reseeding in one would change what another draws.
static DEFAULT_GENERATOR: Mutex<()> = Mutex::new(());

fn default_generator_lock() -> MutexGuard<'static, ()> {
    DEFAULT_GENERATOR.lock().unwrap_or_else(|p| p.into_inner())
}

// =========================================================================================
// Validation before any GPU work (these run without a GPU)
// =========================================================================================

#[test]
fn full_with_an_out_of_range_value_is_a_dtype_error() {
    let err = expect_err(Array::full(&[2], 300i32, DType::I8), ErrorKind::DType);
    assert!(err.to_string().contains("300"), "{err}");
    expect_err(Array::full(&[2], -1i32, DType::U8), ErrorKind::DType);
    expect_err(Array::full(&[2], 70_000i64, DType::U16), ErrorKind::DType);
    expect_err(Array::full(&[2], u64::MAX, DType::I64), ErrorKind::DType);
    expect_err(Array::full(&[2], f64::NAN, DType::I32), ErrorKind::DType);
    expect_err(
        Array::full(&[2], f32::INFINITY, DType::U64),
        ErrorKind::DType,
    );
    let err = expect_err(
        Array::full(&[2], Complex::new(1.0f64, 2.0), DType::F32),
        ErrorKind::DType,
    );
    assert!(err.to_string().contains("imaginary"), "{err}");
}

#[test]
fn from_slice_with_a_wrong_length_is_a_shape_error() {
    let err = expect_err(
        Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[2, 3]),
        ErrorKind::Shape,
    );
    let msg = err.to_string();
    assert!(
        msg.contains("6 elements") && msg.contains("5 elements"),
        "{msg}"
    );
    assert!(msg.contains("(2, 3)"), "{msg}");
    let err = expect_err(Array::from_vec(vec![1u8; 7], &[]), ErrorKind::Shape);
    assert!(err.to_string().contains('7'), "{err}");
    expect_err(Array::from_slice::<i32>(&[], &[1]), ErrorKind::Shape);
    // more dimensions than NumPy allows
    expect_err(Array::from_slice(&[1.0f64], &[1; 65]), ErrorKind::Shape);
}

#[test]
fn huge_shapes_are_shape_errors_before_any_gpu_work() {
    let shapes: [&[usize]; 6] = [
        &[usize::MAX, usize::MAX],
        &[usize::MAX, 2],
        &[1 << 62, 4],
        &[0, usize::MAX],
        &[2, 0, isize::MAX as usize],
        &[1; 65],
    ];
    for shape in shapes {
        for d in [DType::U8, DType::F32, DType::C128] {
            let what = format!("{shape:?} {d}");
            let e = expect_err(Array::empty(shape, d), ErrorKind::Shape);
            let m = e.to_string();
            assert!(
                m.contains("is too large")
                    || m.contains(
                        "maximum supported dimension for an ndarray is currently 64, found 65"
                    ),
                "{what}: {m}"
            );
            expect_err(Array::zeros(shape, d), ErrorKind::Shape);
            expect_err(Array::ones(shape, d), ErrorKind::Shape);
            expect_err(Array::full(shape, 1u8, d), ErrorKind::Shape);
        }
        expect_err(Array::from_slice(&[1.0f32], shape), ErrorKind::Shape);
    }
    // the size fits but its bytes do not
    let e = expect_err(Array::zeros(&[1 << 61], DType::F64), ErrorKind::Shape);
    assert_eq!(
        e.to_string(),
        "an array of shape (2305843009213693952,) with 8-byte elements is too large: its \
         size times the item size must be at most 9223372036854775807 bytes"
    );
    assert!(Array::zeros(&[1 << 61], DType::U8).is_err());
    // lengths computed from the arguments
    let e = expect_err(Array::arange(0.0, 1e300, 1.0, DType::F64), ErrorKind::Shape);
    assert!(e.to_string().contains("too large"), "{e}");
    expect_err(
        Array::linspace(0.0, 1.0, usize::MAX, Endpoint::Included, DType::F32),
        ErrorKind::Shape,
    );
}

#[test]
fn arange_and_linspace_reject_bad_arguments() {
    let e = expect_err(
        Array::arange(0.0, 5.0, 0.0, DType::F32),
        ErrorKind::InvalidArgument,
    );
    assert!(e.to_string().contains("step"), "{e}");
    expect_err(
        Array::arange(0.0, 5.0, f64::NAN, DType::F32),
        ErrorKind::InvalidArgument,
    );
    expect_err(
        Array::arange(0.0, f64::INFINITY, 1.0, DType::F64),
        ErrorKind::InvalidArgument,
    );
    // integer dtypes need integral start and step, and values that fit
    expect_err(Array::arange(0.0, 5.0, 0.5, DType::I32), ErrorKind::DType);
    expect_err(Array::arange(0.5, 5.0, 1.0, DType::I64), ErrorKind::DType);
    expect_err(
        Array::arange(250.0, 260.0, 1.0, DType::U8),
        ErrorKind::DType,
    );
    expect_err(Array::arange(-1.0, 3.0, 1.0, DType::U32), ErrorKind::DType);
    // bool holds at most two distinct values
    expect_err(Array::arange(0.0, 3.0, 1.0, DType::Bool), ErrorKind::DType);
    expect_err(
        Array::linspace(f64::NAN, 1.0, 5, Endpoint::Included, DType::F32),
        ErrorKind::InvalidArgument,
    );
    expect_err(
        Array::linspace(0.0, f64::NEG_INFINITY, 5, Endpoint::Excluded, DType::F64),
        ErrorKind::InvalidArgument,
    );
}

#[test]
fn benchmark_needs_at_least_one_repeat() {
    let mut calls = 0;
    let err = expect_err(
        benchmark(
            "nothing",
            || {
                calls += 1;
                Ok(())
            },
            &BenchmarkOptions::new().n_repeat(0),
        ),
        ErrorKind::InvalidArgument,
    );
    assert!(err.to_string().contains("n_repeat"), "{err}");
    assert_eq!(
        calls, 0,
        "the workload must not run when the options are invalid"
    );
}

#[test]
fn perf_case_display_pads_the_name_to_20_characters() {
    let r = PerfCaseResult {
        name: "k".into(),
        cpu_times: vec![1e-6, 3e-6],
        gpu_times: vec![2e-6, 4e-6],
        device: 1,
    };
    let text = r.to_string();
    assert!(
        text.starts_with(&format!("k{}:", " ".repeat(19))),
        "{text:?}"
    );
    assert!(text.contains("CPU:") && text.contains("GPU-1:"), "{text}");
    assert!(
        text.contains("2.000 us") && text.contains("3.000 us"),
        "{text}"
    );
    assert!(!r.to_str(false).contains("GPU"), "{}", r.to_str(false));
    // longer names are not cut
    let long = PerfCaseResult {
        name: "a_benchmark_name_longer_than_twenty".into(),
        ..r
    };
    assert!(
        long.to_string()
            .starts_with("a_benchmark_name_longer_than_twenty:"),
        "{long}"
    );
}

// =========================================================================================
// Creation
// =========================================================================================

#[test]
fn empty_reports_shape_dtype_and_nbytes() {
    require_gpu!();
    let a = Array::empty(&[3, 5, 7], DType::F64).unwrap();
    assert_eq!(a.shape(), &[3, 5, 7]);
    assert_eq!(a.dtype(), DType::F64);
    assert_eq!(
        (a.ndim(), a.size(), a.itemsize(), a.nbytes()),
        (3, 105, 8, 840)
    );
    assert_eq!(a.strides(), &[35, 7, 1]);
    assert_eq!(a.byte_strides(), vec![280, 56, 8]);
    assert!(a.is_c_contiguous());
    assert_eq!(a.device(), Device::current().unwrap());
    assert_ne!(a.data_ptr(), 0);
    for &d in DType::ALL {
        let e = Array::empty(&[4, 6], d).unwrap();
        assert_eq!((e.dtype(), e.shape()), (d, &[4usize, 6][..]), "{d}");
        assert_eq!(e.nbytes(), 24 * d.itemsize(), "{d}");
        assert_eq!(
            e.byte_strides(),
            vec![6 * d.itemsize() as isize, d.itemsize() as isize]
        );
        // 0-d and empty shapes
        let z = Array::empty(&[], d).unwrap();
        assert_eq!(
            (z.ndim(), z.size(), z.nbytes()),
            (0, 1, d.itemsize()),
            "{d}"
        );
        let n = Array::empty(&[3, 0], d).unwrap();
        assert_eq!((n.size(), n.nbytes()), (0, 0), "{d}");
    }
    // sizes that overflow are shape errors, not allocation attempts
    expect_err(Array::empty(&[usize::MAX, 2], DType::U8), ErrorKind::Shape);
    expect_err(Array::empty(&[1usize << 61], DType::F64), ErrorKind::Shape);
}

fn check_zeros_ones_full<T: TestElem>(rng: &mut Rng) -> DType {
    let d = T::DTYPE;
    let shape = [7usize, 13];
    let n = 91;
    let z = Array::zeros(&shape, d).unwrap();
    assert_eq!((z.dtype(), z.shape()), (d, &shape[..]), "zeros {d}");
    assert_eq!(z.to_vec::<T>().unwrap(), vec![T::zero(); n], "zeros {d}");
    let o = Array::ones(&shape, d).unwrap();
    assert_eq!(o.to_vec::<T>().unwrap(), vec![T::one(); n], "ones {d}");
    // a random non-zero value of the dtype itself
    let v = loop {
        let v = T::random(rng);
        if v != T::zero() {
            break v;
        }
    };
    let f = Array::full(&shape, v, d).unwrap();
    assert_eq!(f.to_vec::<T>().unwrap(), vec![v; n], "full {d} {v:?}");
    let sv: Scalar = v.into();
    assert_eq!(sv.dtype(), d);
    let f = Array::full(&shape, sv, d).unwrap();
    assert_eq!(
        f.to_vec::<T>().unwrap(),
        vec![v; n],
        "full {d} Scalar({v:?})"
    );
    // a value of another dtype, converted
    let f7 = Array::full(&shape, 7i32, d).unwrap();
    assert_eq!(
        f7.to_vec::<T>().unwrap(),
        vec![T::from_i32(7); n],
        "full {d} 7i32"
    );
    // refilling an existing array
    f7.fill(T::zero()).unwrap();
    assert_eq!(f7.to_vec::<T>().unwrap(), vec![T::zero(); n], "fill {d}");
    d
}

#[test]
fn zeros_ones_full_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(1);
    let seen = for_each_dtype!(check_zeros_ones_full(&mut rng));
    assert_eq!(seen, common::dtypes(DType::ALL));
}

#[test]
fn like_constructors_follow_shape_and_dtype() {
    require_gpu!();
    let mut rng = Rng::new(2);
    let data: Vec<i16> = random_vec(&mut rng, 60);
    let base = Array::from_slice(&data, &[3, 4, 5]).unwrap();
    let view = base.permute(&[2, 0, 1]).unwrap(); // a non-contiguous (5, 3, 4) view
    let e = Array::empty_like(&view).unwrap();
    assert_eq!((e.shape(), e.dtype()), (&[5usize, 3, 4][..], DType::I16));
    assert!(e.is_c_contiguous() && !e.shares_memory(&base));
    assert_eq!(
        Array::zeros_like(&view).unwrap().to_vec::<i16>().unwrap(),
        vec![0; 60]
    );
    assert_eq!(
        Array::ones_like(&view).unwrap().to_vec::<i16>().unwrap(),
        vec![1; 60]
    );
    let f = Array::full_like(&view, -7i32).unwrap();
    assert_eq!((f.shape(), f.dtype()), (&[5usize, 3, 4][..], DType::I16));
    assert_eq!(f.to_vec::<i16>().unwrap(), vec![-7; 60]);
    // the source is untouched
    assert_eq!(base.to_vec::<i16>().unwrap(), data);
    // conversion errors follow the target dtype
    let u8s = Array::zeros(&[4], DType::U8).unwrap();
    expect_err(Array::full_like(&u8s, 300i32), ErrorKind::DType);
    expect_err(u8s.fill(-1i32), ErrorKind::DType);
    assert_eq!(
        Array::full_like(&u8s, 2.9f64)
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        vec![2; 4],
        "floats truncate toward zero"
    );
}

/// NumPy's integer `arange`, computed on the host.
fn arange_ref(start: i64, stop: i64, step: i64) -> Vec<i64> {
    let mut v = Vec::new();
    let mut x = start;
    while (step > 0 && x < stop) || (step < 0 && x > stop) {
        v.push(x);
        x += step;
    }
    v
}

#[test]
fn arange_integers() {
    require_gpu!();
    let a = Array::arange(0.0, 10.0, 1.0, DType::I32).unwrap();
    assert_eq!(a.shape(), &[10]);
    assert_eq!(a.to_vec::<i32>().unwrap(), (0..10).collect::<Vec<i32>>());
    for (start, stop, step) in [(-7, 20, 3), (10, -5, -3), (-1000, 1000, 7), (5, 6, 10)] {
        let want = arange_ref(start, stop, step);
        let got = Array::arange(start as f64, stop as f64, step as f64, DType::I64).unwrap();
        assert_eq!(
            got.to_vec::<i64>().unwrap(),
            want,
            "arange({start}, {stop}, {step})"
        );
        let got = Array::arange(start as f64, stop as f64, step as f64, DType::I16).unwrap();
        let want16: Vec<i16> = want.iter().map(|&x| x as i16).collect();
        assert_eq!(
            got.to_vec::<i16>().unwrap(),
            want16,
            "int16 arange({start}, {stop}, {step})"
        );
    }
    let u = Array::arange(0.0, 256.0, 1.0, DType::U8).unwrap();
    assert_eq!(u.to_vec::<u8>().unwrap(), (0..=255).collect::<Vec<u8>>());
    let i8s = Array::arange(-128.0, 128.0, 5.0, DType::I8).unwrap();
    let want: Vec<i8> = arange_ref(-128, 128, 5).iter().map(|&x| x as i8).collect();
    assert_eq!(i8s.to_vec::<i8>().unwrap(), want);
    let big = Array::arange(4e9, 4e9 + 10.0, 3.0, DType::U32).unwrap();
    assert_eq!(
        big.to_vec::<u32>().unwrap(),
        vec![4_000_000_000, 4_000_000_003, 4_000_000_006, 4_000_000_009]
    );
    let start = (1u64 << 40) as f64;
    let big = Array::arange(start, start + 5.0, 1.0, DType::U64).unwrap();
    let want: Vec<u64> = (0..5).map(|i| (1u64 << 40) + i).collect();
    assert_eq!(big.to_vec::<u64>().unwrap(), want);
    // bool: at most two values
    let b = Array::arange(0.0, 2.0, 1.0, DType::Bool).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), vec![false, true]);
    // empty results
    for (start, stop, step) in [(5.0, 0.0, 1.0), (0.0, 5.0, -1.0), (3.0, 3.0, 1.0)] {
        let e = Array::arange(start, stop, step, DType::I32).unwrap();
        assert_eq!(e.shape(), &[0], "arange({start}, {stop}, {step})");
        assert!(e.to_vec::<i32>().unwrap().is_empty());
    }
}

#[test]
fn arange_floats() {
    require_gpu!();
    let a = Array::arange(0.0, 1.0, 0.1, DType::F64).unwrap();
    assert_eq!(a.shape(), &[10]);
    let want: Vec<f64> = (0..10).map(|i| f64::from(i) * 0.1).collect();
    assert_close(
        &a.to_vec::<f64>().unwrap(),
        &want,
        1e-15,
        1e-15,
        "arange(0, 1, 0.1)",
    );
    let a = Array::arange(0.0, 1.0, 0.1, DType::F32).unwrap();
    assert_close(
        &widen(&a.to_vec::<f32>().unwrap()),
        &want,
        1e-7,
        1e-7,
        "f32",
    );
    // negative steps
    let r = Array::arange(1.0, 0.0, -0.25, DType::F32).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.0, 0.75, 0.5, 0.25]);
    let r = Array::arange(2.5, -3.0, -0.5, DType::F64).unwrap();
    let want: Vec<f64> = (0..11).map(|i| 2.5 - 0.5 * f64::from(i)).collect();
    assert_eq!(r.to_vec::<f64>().unwrap(), want);
    // a non-terminating step: ceil((stop - start) / step) elements
    let r = Array::arange(-1.0, 2.0, 0.3, DType::F64).unwrap();
    let want: Vec<f64> = (0..10).map(|i| -1.0 + 0.3 * f64::from(i)).collect();
    assert_close(
        &r.to_vec::<f64>().unwrap(),
        &want,
        1e-14,
        1e-14,
        "arange(-1, 2, 0.3)",
    );
    // empty
    let e = Array::arange(1.0, 0.0, 0.5, DType::F32).unwrap();
    assert_eq!(e.shape(), &[0]);
    assert!(e.to_vec::<f32>().unwrap().is_empty());
}

#[test]
fn arange_half_precision() {
    require_gpu!();
    // exactly representable values must come out exactly
    let want: Vec<f64> = (0..16).map(|i| -4.0 + 0.5 * f64::from(i)).collect();
    let h = Array::arange(-4.0, 4.0, 0.5, DType::F16).unwrap();
    let wh: Vec<f16> = want.iter().map(|&x| f16::from_f64(x)).collect();
    assert_eq!(h.to_vec::<f16>().unwrap(), wh);
    let b = Array::arange(-4.0, 4.0, 0.5, DType::BF16).unwrap();
    let wb: Vec<bf16> = want.iter().map(|&x| bf16::from_f64(x)).collect();
    assert_eq!(b.to_vec::<bf16>().unwrap(), wb);
    // rounded values within the format's precision
    let want: Vec<f64> = (0..20).map(|i| 100.0 + 0.7 * f64::from(i)).collect();
    let h = Array::arange(100.0, 114.0, 0.7, DType::F16).unwrap();
    assert_close(&widen(&h.to_vec::<f16>().unwrap()), &want, 1e-3, 0.0, "f16");
    let b = Array::arange(100.0, 114.0, 0.7, DType::BF16).unwrap();
    assert_close(
        &widen(&b.to_vec::<bf16>().unwrap()),
        &want,
        4e-3,
        0.0,
        "bf16",
    );
}

/// The float16 nearest to a finite `x` (ties to the even one), by exact comparison with
/// the neighbours of the `half` crate's conversion (which may round twice, through f32;
/// a neighbour's bits are the next float16 of the same sign, or NaN past zero or the
/// largest); at least 65520 in magnitude is infinity.
fn nearest_f16(x: f64) -> u16 {
    if x.abs() >= 65520.0 {
        return if x > 0.0 { 0x7c00 } else { 0xfc00 };
    }
    let guess = f16::from_f64(x).to_bits();
    let mut best = guess;
    for b in [guess.wrapping_sub(1), guess.wrapping_add(1)] {
        let (c, d) = (f16::from_bits(b), f16::from_bits(best));
        if !c.is_finite() {
            continue;
        }
        let (dc, dd) = ((c.to_f64() - x).abs(), (d.to_f64() - x).abs());
        if dc < dd || (dc == dd && b & 1 == 0) {
            best = b;
        }
    }
    best
}

/// Doubles round to float16 once, as NumPy's casts do: values a hair off the midpoint of
/// two float16 numbers (which float32 rounds onto the midpoint, so that a cast through
/// float would round the tie to even instead), exact midpoints, subnormals, the overflow
/// edge and the special values — by `astype` and by a kernel storing a double into a
/// float16 output.
#[test]
fn float64_rounds_to_float16_once() {
    require_gpu!();
    let mut rng = Rng::new(16);
    let mut vals = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        65504.0,
        65519.999,
        65520.0,
        -65520.0,
        2f64.powi(-25),
        2f64.powi(-25) * (1.0 + 2f64.powi(-40)),
        2f64.powi(-26),
        1e-300,
    ];
    for _ in 0..2000 {
        // a float16 number (normal or subnormal) and the midpoint to the next one up
        let bits = (rng.next_u64() % 0x7bff) as u16;
        let (lo, hi) = (f16::from_bits(bits), f16::from_bits(bits + 1));
        let mid = (lo.to_f64() + hi.to_f64()) / 2.0;
        let nudge = mid * 2f64.powi(-30);
        let sign = if rng.next_u64().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
        vals.extend([mid, mid + nudge, mid - nudge].map(|v| sign * v));
    }
    let want: Vec<u16> = vals.iter().map(|&v| nearest_f16(v)).collect();
    let bits = |a: &Array| -> Vec<u16> {
        let v = a.to_vec::<f16>().unwrap();
        v.iter().map(|h| h.to_bits()).collect()
    };
    let x = Array::from_slice(&vals, &[vals.len()]).unwrap();
    assert_eq!(bits(&x.astype(DType::F16).unwrap()), want, "astype");
    let k = cuprum::ElementwiseKernel::new("float64 x", "float16 y", "y = x", "to_half").unwrap();
    let y = k.call((&x,)).unwrap();
    assert_eq!(bits(&y), want, "ElementwiseKernel");
    // a Python-float scalar made float16 on the host (`full`) rounds once as well
    for (&v, &w) in vals.iter().zip(&want).take(300) {
        let f = Array::full(&[1], v, DType::F16).unwrap();
        assert_eq!(bits(&f), [w], "full({v:e})");
    }
    let nan = Array::from_slice(&[f64::NAN], &[1]).unwrap();
    assert!(nan.astype(DType::F16).unwrap().to_vec::<f16>().unwrap()[0].is_nan());
}
/// NumPy's `linspace` on the host (before any integer flooring).
fn linspace_ref(start: f64, stop: f64, num: usize, endpoint: Endpoint) -> Vec<f64> {
    let endpoint = endpoint == Endpoint::Included;
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let mut v: Vec<f64> = if div > 0 {
        let step = (stop - start) / div as f64;
        (0..num).map(|i| start + i as f64 * step).collect()
    } else {
        vec![start; num]
    };
    if endpoint && num > 1 {
        v[num - 1] = stop;
    }
    v
}

#[test]
fn linspace_endpoint_true_and_false() {
    require_gpu!();
    let x = Array::linspace(0.0, 1.0, 5, Endpoint::Included, DType::F64).unwrap();
    assert_eq!(x.to_vec::<f64>().unwrap(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    let x = Array::linspace(0.0, 1.0, 4, Endpoint::Excluded, DType::F32).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![0.0, 0.25, 0.5, 0.75]);
    let mut rng = Rng::new(3);
    for _ in 0..10 {
        let (a, b) = (rng.f64(-50.0, 50.0), rng.f64(-50.0, 50.0));
        let num = rng.usize(2, 3000);
        for endpoint in [Endpoint::Included, Endpoint::Excluded] {
            let want = linspace_ref(a, b, num, endpoint);
            let got = Array::linspace(a, b, num, endpoint, DType::F64).unwrap();
            assert_eq!(got.shape(), &[num]);
            let got = got.to_vec::<f64>().unwrap();
            let what = format!("linspace({a}, {b}, {num}, {endpoint:?})");
            assert_close(&got, &want, 1e-13, 1e-12, &what);
            assert_eq!(got[0], a, "{what}: first");
            if endpoint == Endpoint::Included {
                assert_eq!(got[num - 1], b, "{what}: the endpoint is exact");
            }
            let got32 = Array::linspace(a, b, num, endpoint, DType::F32).unwrap();
            let got32 = widen(&got32.to_vec::<f32>().unwrap());
            assert_close(&got32, &want, 1e-6, 1e-5, &format!("f32 {what}"));
        }
    }
    // decreasing
    let x = Array::linspace(5.0, -5.0, 11, Endpoint::Included, DType::F64).unwrap();
    let want: Vec<f64> = (0..11).map(|i| 5.0 - f64::from(i)).collect();
    assert_close(&x.to_vec::<f64>().unwrap(), &want, 0.0, 1e-14, "decreasing");
}

#[test]
fn linspace_with_zero_elements() {
    require_gpu!();
    for endpoint in [Endpoint::Included, Endpoint::Excluded] {
        let x = Array::linspace(0.0, 1.0, 0, endpoint, DType::F32).unwrap();
        assert_eq!(x.shape(), &[0]);
        assert!(x.to_vec::<f32>().unwrap().is_empty());
    }
}

#[test]
fn linspace_with_one_element_is_start() {
    require_gpu!();
    // NumPy: linspace(2, 10, 1) == [2.0] with or without the endpoint.
    for endpoint in [Endpoint::Included, Endpoint::Excluded] {
        let x = Array::linspace(2.0, 10.0, 1, endpoint, DType::F64).unwrap();
        assert_eq!(x.shape(), &[1]);
        assert_eq!(
            x.to_vec::<f64>().unwrap(),
            vec![2.0],
            "linspace(2, 10, 1, {endpoint:?}) must be [start] like NumPy"
        );
    }
}

#[test]
fn linspace_integer_dtypes_round_down() {
    require_gpu!();
    let x = Array::linspace(-5.0, 5.0, 4, Endpoint::Included, DType::I32).unwrap();
    assert_eq!(
        x.to_vec::<i32>().unwrap(),
        vec![-5, -2, 1, 5],
        "floor, not truncation"
    );
    let x = Array::linspace(0.0, 10.0, 4, Endpoint::Included, DType::I64).unwrap();
    assert_eq!(x.to_vec::<i64>().unwrap(), vec![0, 3, 6, 10]);
    let x = Array::linspace(0.0, 10.0, 3, Endpoint::Excluded, DType::I16).unwrap();
    assert_eq!(x.to_vec::<i16>().unwrap(), vec![0, 3, 6]);
    let x = Array::linspace(0.0, 255.0, 6, Endpoint::Included, DType::U8).unwrap();
    assert_eq!(x.to_vec::<u8>().unwrap(), vec![0, 51, 102, 153, 204, 255]);
    // random ranges against the host reference
    let mut rng = Rng::new(4);
    for _ in 0..10 {
        let (a, b) = (rng.f64(-1000.0, 1000.0), rng.f64(-1000.0, 1000.0));
        let num = rng.usize(2, 500);
        let want: Vec<i64> = linspace_ref(a, b, num, Endpoint::Included)
            .iter()
            .map(|v| v.floor() as i64)
            .collect();
        let got = Array::linspace(a, b, num, Endpoint::Included, DType::I64).unwrap();
        let got = got.to_vec::<i64>().unwrap();
        // values within rounding of an integer may land either side of it
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1,
                "linspace({a}, {b}, {num}) [{i}]: {g} vs {w}"
            );
        }
        assert_eq!(got[0], a.floor() as i64);
        assert_eq!(got[num - 1], b.floor() as i64);
    }
}

fn check_round_trip<T: TestElem>(rng: &mut Rng) -> DType {
    let d = T::DTYPE;
    let data: Vec<T> = random_vec(rng, 51);
    let a = Array::from_slice(&data, &[17, 3]).unwrap();
    assert_eq!((a.dtype(), a.shape()), (d, &[17usize, 3][..]), "{d}");
    assert_eq!(a.to_vec::<T>().unwrap(), data, "{d} round trip");
    let b = Array::from_vec(data.clone(), &[3, 1, 17]).unwrap();
    assert_eq!(b.to_vec::<T>().unwrap(), data, "{d} from_vec");
    assert!(!a.shares_memory(&b));
    // overwriting in place
    let new: Vec<T> = random_vec(rng, 51);
    a.copy_from_slice(&new).unwrap();
    assert_eq!(a.to_vec::<T>().unwrap(), new, "{d} copy_from_slice");
    assert_eq!(
        b.to_vec::<T>().unwrap(),
        data,
        "{d}: other arrays untouched"
    );
    // downloading as the wrong Rust type
    let wrong = if d == DType::U8 {
        a.to_vec::<i8>().map(drop)
    } else {
        a.to_vec::<u8>().map(drop)
    };
    let err = expect_err(wrong, ErrorKind::DType);
    assert!(err.to_string().contains(d.name()), "{err}");
    d
}

#[test]
fn from_slice_to_vec_round_trip_for_every_dtype() {
    require_gpu!();
    let mut rng = Rng::new(5);
    let seen = for_each_dtype!(check_round_trip(&mut rng));
    assert_eq!(seen, common::dtypes(DType::ALL));
}

#[test]
fn scalar_arrays_are_zero_dimensional() {
    require_gpu!();
    let a = Array::scalar(2.5f64).unwrap();
    assert_eq!(
        (a.ndim(), a.shape(), a.size(), a.nbytes()),
        (0, &[][..], 1, 8)
    );
    assert!(a.strides().is_empty() && a.is_c_contiguous());
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![2.5]);
    let z = Complex::new(1.5f32, -2.0);
    assert_eq!(
        Array::scalar(z).unwrap().to_vec::<Complex<f32>>().unwrap(),
        vec![z]
    );
    assert_eq!(
        Array::scalar(true).unwrap().to_vec::<bool>().unwrap(),
        vec![true]
    );
    assert_eq!(
        Array::scalar(-7i8).unwrap().to_vec::<i8>().unwrap(),
        vec![-7]
    );
    // views and copies of a 0-d array
    let c = a.copy().unwrap();
    assert_eq!((c.ndim(), c.to_vec::<f64>().unwrap()), (0, vec![2.5]));
    assert!(!c.shares_memory(&a));
    assert_eq!(a.t().shape(), &[] as &[usize]);
    let b = a.broadcast_to(&[2, 3]).unwrap();
    assert_eq!(
        (b.shape(), b.strides()),
        (&[2usize, 3][..], &[0isize, 0][..])
    );
    assert_eq!(b.to_vec::<f64>().unwrap(), vec![2.5; 6]);
    let r = a.reshape(&[1, 1, 1]).unwrap();
    assert_eq!(
        (r.shape(), r.to_vec::<f64>().unwrap()),
        (&[1usize, 1, 1][..], vec![2.5])
    );
    assert_eq!(a.expand_dims(0).unwrap().shape(), &[1]);
    assert_eq!(a.slice(&[]).unwrap().to_vec::<f64>().unwrap(), vec![2.5]);
    expect_err(a.slice(&s![0]), ErrorKind::Shape);
    // writing into it
    a.fill(-1.25f64).unwrap();
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![-1.25]);
    a.copy_from_slice(&[4.0f64]).unwrap();
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![4.0]);
}

#[test]
fn empty_and_single_element_arrays() {
    require_gpu!();
    let e = Array::zeros(&[0], DType::F32).unwrap();
    assert_eq!((e.shape(), e.size(), e.nbytes()), (&[0usize][..], 0, 0));
    assert!(e.to_vec::<f32>().unwrap().is_empty());
    let e = Array::ones(&[3, 0], DType::C128).unwrap();
    assert_eq!((e.size(), e.ndim()), (0, 2));
    assert!(e.to_vec::<Complex<f64>>().unwrap().is_empty());
    assert_eq!(e.t().shape(), &[0, 3]);
    assert_eq!(e.slice(&s![1]).unwrap().shape(), &[0]);
    assert_eq!(e.slice(&s![.., ..;-1]).unwrap().shape(), &[3, 0]);
    assert_eq!(e.reshape(&[0, 7]).unwrap().shape(), &[0, 7]);
    let c = e.t().copy().unwrap();
    assert_eq!(c.shape(), &[0, 3]);
    assert!(c.to_vec::<Complex<f64>>().unwrap().is_empty());
    e.fill(Complex::new(1.0f64, 1.0)).unwrap();
    e.copy_from_slice::<Complex<f64>>(&[]).unwrap();
    let u = Array::from_slice::<u16>(&[], &[0, 4]).unwrap();
    assert_eq!(u.shape(), &[0, 4]);
    assert!(u.to_vec::<u16>().unwrap().is_empty());
    // empty slices of non-empty arrays
    let a = Array::arange(0.0, 12.0, 1.0, DType::I32)
        .unwrap()
        .reshape(&[3, 4])
        .unwrap();
    let v = a.slice(&s![2..2]).unwrap();
    assert_eq!(v.shape(), &[0, 4]);
    assert!(v.to_vec::<i32>().unwrap().is_empty());
    v.fill(99i32).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), (0..12).collect::<Vec<i32>>());

    // one element, in several shapes
    let mut rng = Rng::new(6);
    let x = rng.f64(-5.0, 5.0);
    for shape in [&[1usize][..], &[1, 1], &[1, 1, 1]] {
        let a = Array::from_slice(&[x], shape).unwrap();
        assert_eq!((a.shape(), a.size()), (shape, 1));
        assert_eq!(a.to_vec::<f64>().unwrap(), vec![x]);
        assert_eq!(a.t().copy().unwrap().to_vec::<f64>().unwrap(), vec![x]);
        assert_eq!(a.squeeze(None).unwrap().ndim(), 0);
        let b = a.broadcast_to(&[2, 1, 3]).unwrap();
        assert_eq!(b.to_vec::<f64>().unwrap(), vec![x; 6]);
    }
    assert_eq!(
        Array::ones(&[1], DType::U64)
            .unwrap()
            .to_vec::<u64>()
            .unwrap(),
        vec![1]
    );
    let f = Array::full(&[1, 1], -3i32, DType::I8).unwrap();
    assert_eq!(f.to_vec::<i8>().unwrap(), vec![-3]);
}

#[test]
fn odd_sizes_are_processed_completely() {
    require_gpu!();
    let mut rng = Rng::new(7);
    for n in [1usize, 255, 256, 257, 65_537, 1_000_003] {
        let a = Array::full(&[n], 1.5f32, DType::F32).unwrap();
        assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.5; n], "full f32 n={n}");
        let b = Array::ones(&[n], DType::U8).unwrap();
        assert_eq!(b.to_vec::<u8>().unwrap(), vec![1; n], "ones u8 n={n}");
        let r = Array::arange(0.0, n as f64, 1.0, DType::F64).unwrap();
        let want: Vec<f64> = (0..n).map(|i| i as f64).collect();
        assert_eq!(r.to_vec::<f64>().unwrap(), want, "arange n={n}");
        // a reversed copy goes through the strided copy kernel
        let rev = r.slice(&s![..;-1]).unwrap().copy().unwrap();
        let want_rev: Vec<f64> = want.iter().rev().copied().collect();
        assert_eq!(rev.to_vec::<f64>().unwrap(), want_rev, "reversed n={n}");
    }
    let n = 1_000_003;
    let z = Complex::new(0.5f64, -3.0);
    let c = Array::full(&[n], z, DType::C128).unwrap();
    assert_eq!(c.to_vec::<Complex<f64>>().unwrap(), vec![z; n]);
    let data = random_f32(&mut rng, n);
    let a = Array::from_slice(&data, &[n]).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), data);
    // every third element, through a strided fill
    a.slice(&s![1..;3]).unwrap().fill(0.0f32).unwrap();
    let want: Vec<f32> = data
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 3 == 1 { 0.0 } else { x })
        .collect();
    assert_eq!(a.to_vec::<f32>().unwrap(), want);
}

// =========================================================================================
// Views
// =========================================================================================

#[test]
fn reshape_makes_views_or_reports_that_a_copy_is_needed() {
    require_gpu!();
    let mut rng = Rng::new(10);
    let data = random_f32(&mut rng, 24);
    let a = Array::from_slice(&data, &[24]).unwrap();
    let b = a.reshape(&[2, -1, 4]).unwrap();
    assert_eq!(
        (b.shape(), b.strides()),
        (&[2usize, 3, 4][..], &[12isize, 4, 1][..])
    );
    assert!(b.shares_memory(&a));
    assert_eq!(b.to_vec::<f32>().unwrap(), data);
    assert_eq!(b.reshape(&[-1, 6]).unwrap().shape(), &[4, 6]);
    assert_eq!(a.reshape(&[24, 1, 1]).unwrap().shape(), &[24, 1, 1]);
    // impossible shapes
    expect_err(a.reshape(&[5, -1]), ErrorKind::Shape);
    expect_err(a.reshape(&[-1, -1]), ErrorKind::Shape);
    expect_err(a.reshape(&[7]), ErrorKind::Shape);
    expect_err(a.reshape(&[-2, 12]), ErrorKind::Shape);
    // a transposed layout cannot be flattened without a copy
    let t = b.reshape(&[4, 6]).unwrap().t(); // (6, 4), strides (1, 6)
    let err = expect_err(t.reshape(&[24]), ErrorKind::Shape);
    assert!(err.to_string().contains("reshape_copy"), "{err}");
    let model = HostView::new(&[4, 6]).transpose();
    let flat = t.reshape_copy(&[-1]).unwrap();
    assert_eq!(flat.shape(), &[24]);
    assert!(!flat.shares_memory(&a) && flat.is_c_contiguous());
    assert_eq!(flat.to_vec::<f32>().unwrap(), model.gather(&data));
    let r = t.reshape_copy(&[3, 8]).unwrap();
    check_view(&r, &model.reshape(&[3, 8]), &data, "reshape_copy (3, 8)");
    assert_eq!(
        t.ravel().unwrap().to_vec::<f32>().unwrap(),
        model.gather(&data)
    );
    // possible reshapes stay views, also of strided layouts
    assert!(a.ravel().unwrap().shares_memory(&a));
    assert!(a.reshape_copy(&[6, 4]).unwrap().shares_memory(&a));
    let m = HostView::new(&[4, 6]);
    let cols = a.reshape(&[4, 6]).unwrap().slice(&s![.., ..;2]).unwrap(); // (4, 3), strides (6, 2)
    let split = cols.reshape(&[2, 2, 3]).unwrap();
    assert!(split.shares_memory(&a));
    let split_model = m.slice(&s![.., ..;2]).reshape(&[2, 2, 3]);
    check_view(&split, &split_model, &data, "split rows of a column slice");
    // a view with rows padded (stride 8 for 3 elements) needs a copy to flatten
    let padded = Array::from_slice(&data, &[3, 8])
        .unwrap()
        .slice(&s![.., ..;3])
        .unwrap();
    expect_err(padded.reshape(&[-1]), ErrorKind::Shape);
    let padded_model = HostView::new(&[3, 8]).slice(&s![.., ..;3]);
    check_view(
        &padded.reshape_copy(&[-1]).unwrap(),
        &padded_model.reshape(&[9]),
        &data,
        "reshape_copy of padded rows",
    );
}

#[test]
fn transpose_permute_and_swapaxes_match_host_indexing() {
    require_gpu!();
    let mut rng = Rng::new(11);
    let shape = [3usize, 4, 5];
    let data = random_i32(&mut rng, 60);
    let a = Array::from_slice(&data, &shape).unwrap();
    let m = HostView::new(&shape);

    let t = a.t();
    assert_eq!(
        (t.shape(), t.strides()),
        (&[5usize, 4, 3][..], &[1isize, 5, 20][..])
    );
    assert!(!t.is_c_contiguous() && t.shares_memory(&a));
    check_view(&t, &m.transpose(), &data, "t()");
    check_view(&a.transpose(), &m.transpose(), &data, "transpose()");
    // the transpose of the transpose is the original
    check_view(&t.t(), &m, &data, "t().t()");
    assert!(t.t().is_c_contiguous());

    let cases: [(&[isize], [usize; 3]); 6] = [
        (&[0, 1, 2], [0, 1, 2]),
        (&[1, -1, 0], [1, 2, 0]),
        (&[2, 0, 1], [2, 0, 1]),
        (&[-1, -2, -3], [2, 1, 0]),
        (&[0, 2, 1], [0, 2, 1]),
        (&[1, 0, 2], [1, 0, 2]),
    ];
    for (axes, perm) in cases {
        let p = a.permute(axes).unwrap();
        check_view(&p, &m.permute(&perm), &data, &format!("permute({axes:?})"));
    }
    check_view(
        &a.swapaxes(0, -1).unwrap(),
        &m.permute(&[2, 1, 0]),
        &data,
        "swapaxes(0, -1)",
    );
    check_view(
        &a.swapaxes(0, 1).unwrap(),
        &m.permute(&[1, 0, 2]),
        &data,
        "swapaxes(0, 1)",
    );
    check_view(
        &a.swapaxes(2, 1).unwrap(),
        &m.permute(&[0, 2, 1]),
        &data,
        "swapaxes(2, 1)",
    );
    check_view(&a.swapaxes(1, 1).unwrap(), &m, &data, "swapaxes(1, 1)");
    // views of views
    let pp = a.permute(&[2, 0, 1]).unwrap().swapaxes(0, 1).unwrap();
    check_view(
        &pp,
        &m.permute(&[2, 0, 1]).permute(&[1, 0, 2]),
        &data,
        "permute then swap",
    );
    // errors
    expect_err(a.permute(&[0, 1]), ErrorKind::Shape);
    expect_err(a.permute(&[0, 0, 1]), ErrorKind::Shape);
    expect_err(a.permute(&[0, 1, 3]), ErrorKind::Shape);
    expect_err(a.swapaxes(0, 3), ErrorKind::Shape);
    expect_err(a.swapaxes(-4, 0), ErrorKind::Shape);
}

#[test]
fn slicing_matches_python_semantics() {
    require_gpu!();
    let mut rng = Rng::new(12);
    let range = |start: Option<isize>, end: Option<isize>, step: isize| SliceArg::Range {
        start,
        end,
        step,
    };
    // 2-d
    let data2: Vec<i64> = random_vec(&mut rng, 30);
    let a = Array::from_slice(&data2, &[5, 6]).unwrap();
    let m = HostView::new(&[5, 6]);
    let cases2: Vec<Vec<SliceArg>> = vec![
        s![..;-1, 1..;2].to_vec(),
        s![-1].to_vec(),
        s![1..3, ..;-2].to_vec(),
        s![.., -1].to_vec(),
        s![-2.., ..;4].to_vec(),
        s![..;2].to_vec(),
        s![-100..100;3, 2..=4].to_vec(),
        s![1..;7, ..;-5].to_vec(),
        s![..;-5, ..;-5].to_vec(),
        s![2, 3].to_vec(),
        s![3..3].to_vec(),
        s![.., 4..;-1].to_vec(),
        s![..-1, -3..-1].to_vec(),
        vec![range(Some(4), Some(0), -2), range(None, Some(-7), -1)],
        vec![
            range(Some(-1), Some(-100), -3),
            range(Some(10), Some(2), -2),
        ],
        vec![range(Some(1), Some(4), -1)],
    ];
    for args in &cases2 {
        let v = a.slice(args).unwrap();
        assert!(v.shares_memory(&a));
        check_view(&v, &m.slice(args), &data2, &format!("(5, 6)[{args:?}]"));
    }
    let v = a.slice(&s![..;-1, 1..;2]).unwrap();
    assert_eq!(v.strides(), &[-6, 2]);
    // 3-d
    let data3: Vec<i64> = random_vec(&mut rng, 120);
    let b = Array::from_slice(&data3, &[4, 5, 6]).unwrap();
    let m3 = HostView::new(&[4, 5, 6]);
    let cases3: Vec<Vec<SliceArg>> = vec![
        s![1, ..;-1, 2..;3].to_vec(),
        s![.., SliceArg::NewAxis, -1, ..;-4].to_vec(),
        vec![
            range(None, None, 2),
            range(Some(1), Some(-1), 1),
            range(None, None, -1),
        ],
        s![-1, -2].to_vec(),
        s![1..3].to_vec(),
        s![..;-3, .., 5].to_vec(),
        vec![
            range(None, None, -1),
            range(Some(4), Some(0), -1),
            range(Some(-2), None, -2),
        ],
    ];
    for args in &cases3 {
        check_view(
            &b.slice(args).unwrap(),
            &m3.slice(args),
            &data3,
            &format!("(4, 5, 6)[{args:?}]"),
        );
    }
    // slices of slices of transposes
    let v1 = b.slice(&s![..;-1, 1..]).unwrap();
    let m1 = m3.slice(&s![..;-1, 1..]);
    let v2 = v1.slice(&s![1..;2, ..;-2]).unwrap();
    let m2 = m1.slice(&s![1..;2, ..;-2]);
    check_view(&v2, &m2, &data3, "slice of slice");
    let v3 = v2.t().slice(&s![1.., -1]).unwrap();
    let mv3 = m2.transpose().slice(&s![1.., -1]);
    check_view(&v3, &mv3, &data3, "slice of transposed slice");
    assert!(v3.shares_memory(&b));
}

#[test]
fn slicing_errors() {
    require_gpu!();
    let a = Array::zeros(&[5, 6], DType::F32).unwrap();
    let e = expect_err(a.slice(&s![5]), ErrorKind::Shape);
    assert!(e.to_string().contains("out of bounds"), "{e}");
    expect_err(a.slice(&s![-6]), ErrorKind::Shape);
    expect_err(a.slice(&s![0, 6]), ErrorKind::Shape);
    expect_err(a.slice(&s![.., -7]), ErrorKind::Shape);
    let e = expect_err(a.slice(&s![0, 0, 0]), ErrorKind::Shape);
    assert!(e.to_string().contains("too many indices"), "{e}");
    expect_err(a.slice(&s![.., .., SliceArg::NewAxis, 1]), ErrorKind::Shape);
    let e = expect_err(a.slice(&s![..;0]), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("zero"), "{e}");
    expect_err(a.slice(&s![.., 1..4;0]), ErrorKind::InvalidArgument);
    // an index given a step is reported (SliceArg::step documents this)
    expect_err(a.slice(&s![1;1]), ErrorKind::InvalidArgument);
}

#[test]
fn an_index_with_a_step_is_rejected() {
    require_gpu!();
    // `SliceArg::step` documents: "On an index or a new axis the step is recorded as an
    // invalid range so that slicing reports it." That must hold for any step, not only 1.
    let a = Array::zeros(&[5, 6], DType::F32).unwrap();
    for step in [2, -1, 3] {
        let r = a.slice(&s![1;step]);
        assert!(
            r.is_err(),
            "s![1;{step}] gave a view of shape {:?} instead of an error",
            r.map(|v| v.shape().to_vec()).ok()
        );
    }
    expect_err(
        a.slice(&s![SliceArg::NewAxis;2]),
        ErrorKind::InvalidArgument,
    );
}

#[test]
fn new_axis_inserts_unit_axes() {
    require_gpu!();
    let mut rng = Rng::new(13);
    let data = random_i32(&mut rng, 12);
    let a = Array::from_slice(&data, &[3, 4]).unwrap();
    let m = HostView::new(&[3, 4]);
    let cases: Vec<(Vec<SliceArg>, Vec<usize>)> = vec![
        (s![SliceArg::NewAxis, .., 1].to_vec(), vec![1, 3]),
        (s![.., SliceArg::NewAxis].to_vec(), vec![3, 1, 4]),
        (
            s![SliceArg::NewAxis, SliceArg::NewAxis].to_vec(),
            vec![1, 1, 3, 4],
        ),
        (s![.., .., SliceArg::NewAxis].to_vec(), vec![3, 4, 1]),
        (s![-1, SliceArg::NewAxis, ..;-1].to_vec(), vec![1, 4]),
        (vec![SliceArg::NewAxis], vec![1, 3, 4]),
    ];
    for (args, shape) in &cases {
        let v = a.slice(args).unwrap();
        assert_eq!(v.shape(), shape.as_slice(), "{args:?}");
        check_view(&v, &m.slice(args), &data, &format!("{args:?}"));
    }
    let v = a.slice(&s![SliceArg::NewAxis, ..]).unwrap();
    assert_eq!(v.strides()[1..], [4, 1]);
    assert!(v.is_c_contiguous() && v.shares_memory(&a));
    // a new axis broadcasts
    let b = a
        .slice(&s![.., SliceArg::NewAxis, ..])
        .unwrap()
        .broadcast_to(&[3, 2, 4])
        .unwrap();
    let mb = m
        .slice(&s![.., SliceArg::NewAxis, ..])
        .broadcast(&[3, 2, 4]);
    check_view(&b, &mb, &data, "new axis broadcast");
}

#[test]
fn broadcast_to_repeats_values_with_zero_strides() {
    require_gpu!();
    let mut rng = Rng::new(14);
    let data = random_f64(&mut rng, 12, -1.0, 1.0);
    let a = Array::from_slice(&data, &[3, 4]).unwrap();
    let m = HostView::new(&[3, 4]);
    // a row repeated
    let row = a.slice(&s![1]).unwrap();
    let b = row.broadcast_to(&[5, 4]).unwrap();
    assert_eq!(
        (b.shape(), b.strides()),
        (&[5usize, 4][..], &[0isize, 1][..])
    );
    assert!(b.shares_memory(&a) && !b.is_c_contiguous());
    let want: Vec<f64> = (0..5).flat_map(|_| data[4..8].to_vec()).collect();
    assert_eq!(b.to_vec::<f64>().unwrap(), want);
    // a column repeated
    let col = a.slice(&s![.., 2..3]).unwrap(); // (3, 1)
    let c = col.broadcast_to(&[2, 3, 6]).unwrap();
    assert_eq!(c.strides(), &[0, 4, 0]);
    check_view(
        &c,
        &m.slice(&s![.., 2..3]).broadcast(&[2, 3, 6]),
        &data,
        "column",
    );
    // broadcasting a transposed, reversed view
    let t = a.t().slice(&s![..;-1]).unwrap(); // (4, 3)
    let mt = m.transpose().slice(&s![..;-1]);
    check_view(
        &t.broadcast_to(&[2, 4, 3]).unwrap(),
        &mt.broadcast(&[2, 4, 3]),
        &data,
        "t",
    );
    // the same shape is the identity
    check_view(&a.broadcast_to(&[3, 4]).unwrap(), &m, &data, "identity");
    // a copy of a broadcast view is an ordinary array
    let cc = b.copy().unwrap();
    assert_eq!(cc.strides(), &[4, 1]);
    assert_eq!(cc.to_vec::<f64>().unwrap(), want);
    // bad targets
    expect_err(a.broadcast_to(&[3, 5]), ErrorKind::Shape);
    expect_err(a.broadcast_to(&[4]), ErrorKind::Shape);
    expect_err(a.broadcast_to(&[2, 4, 4]), ErrorKind::Shape);
    expect_err(row.broadcast_to(&[usize::MAX, 4]), ErrorKind::Shape);
}

/// One view request of the adversarial sweep below.
#[derive(Debug, Clone)]
enum ViewOp {
    Reshape(Vec<isize>),
    Slice(Vec<SliceArg>),
    BroadcastTo(Vec<usize>),
    Permute(Vec<isize>),
    Swap(isize, isize),
    Squeeze(Option<isize>),
    ExpandDims(isize),
    Transpose,
}

fn apply_view(a: &Array, op: &ViewOp) -> cuprum::Result<Array> {
    match op {
        ViewOp::Reshape(s) => a.reshape(s),
        ViewOp::Slice(s) => a.slice(s),
        ViewOp::BroadcastTo(s) => a.broadcast_to(s),
        ViewOp::Permute(p) => a.permute(p),
        ViewOp::Swap(x, y) => a.swapaxes(*x, *y),
        ViewOp::Squeeze(x) => a.squeeze(*x),
        ViewOp::ExpandDims(x) => a.expand_dims(*x),
        ViewOp::Transpose => Ok(a.t()),
    }
}

fn view_op() -> impl proptest::strategy::Strategy<Value = ViewOp> {
    use proptest::prelude::*;
    let pos = || {
        prop_oneof![
            6 => -6isize..7,
            1 => Just(isize::MIN),
            1 => Just(isize::MAX),
            1 => any::<isize>(),
        ]
    };
    let step = prop_oneof![
        6 => prop_oneof![-4isize..0, 1isize..5],
        1 => Just(0isize),
        1 => Just(isize::MIN),
        1 => Just(isize::MAX),
    ];
    let extent = prop_oneof![
        6 => 0usize..5,
        1 => Just(usize::MAX),
        1 => Just(1usize << 40),
        1 => any::<usize>(),
    ];
    let arg = prop_oneof![
        pos().prop_map(SliceArg::Index),
        (
            proptest::option::of(pos()),
            proptest::option::of(pos()),
            step
        )
            .prop_map(|(start, end, step)| SliceArg::Range { start, end, step }),
        Just(SliceArg::NewAxis),
    ];
    prop_oneof![
        proptest::collection::vec(prop_oneof![-2isize..7, Just(-1isize), any::<isize>()], 0..5)
            .prop_map(ViewOp::Reshape),
        proptest::collection::vec(arg, 0..5).prop_map(ViewOp::Slice),
        proptest::collection::vec(extent, 0..5).prop_map(ViewOp::BroadcastTo),
        proptest::collection::vec(pos(), 0..5).prop_map(ViewOp::Permute),
        (pos(), pos()).prop_map(|(x, y)| ViewOp::Swap(x, y)),
        proptest::option::of(pos()).prop_map(ViewOp::Squeeze),
        pos().prop_map(ViewOp::ExpandDims),
        Just(ViewOp::Transpose),
    ]
}

/// Adversarial view requests (huge extents and steps, out-of-range indices and axes, bad
/// permutations) on a real array: never a panic; an error is a shape or argument error; a
/// view stays inside its buffer and reads exactly the elements its strides describe.
#[test]
fn adversarial_view_requests_never_panic_and_stay_inside_the_buffer() {
    require_gpu!();
    let n = 24usize;
    let data: Vec<i32> = (0..n as i32).map(|v| v * 7 - 50).collect();
    let base = Array::from_slice(&data, &[2, 3, 4]).unwrap();
    let mut runner = common::gpu_proptest_runner(256);
    runner
        .run(&proptest::collection::vec(view_op(), 1..5), |ops| {
            let mut a = base.clone();
            for op in &ops {
                match apply_view(&a, op) {
                    Ok(v) => a = v,
                    Err(e) => {
                        proptest::prop_assert!(
                            matches!(e.kind(), ErrorKind::Shape | ErrorKind::InvalidArgument),
                            "{op:?}: {e}"
                        );
                    }
                }
                // Every element of the view lies inside the 24-element buffer.
                let offset = (a.data_ptr() - base.data_ptr()) as i128 / 4;
                let size = a.shape().iter().map(|&d| d as u128).product::<u128>();
                proptest::prop_assert_eq!(a.size() as u128, size);
                if size > 0 {
                    let (mut lo, mut hi) = (offset, offset);
                    for (&d, &st) in a.shape().iter().zip(a.strides()) {
                        let span = (d as i128 - 1) * st as i128;
                        lo += span.min(0);
                        hi += span.max(0);
                    }
                    proptest::prop_assert!(
                        lo >= 0 && hi < n as i128,
                        "{ops:?}: elements {lo}..={hi} of a {n}-element buffer"
                    );
                    let _ = a.byte_strides();
                    let _ = a.nbytes();
                }
            }
            if a.size() <= 4096 {
                let offset = (a.data_ptr() - base.data_ptr()) as isize / 4;
                let want: Vec<i32> = (0..a.size())
                    .map(|flat| {
                        let idx = unravel(flat, a.shape());
                        let off: isize = idx
                            .iter()
                            .zip(a.strides())
                            .map(|(&i, &st)| i as isize * st)
                            .sum();
                        data[(offset + off) as usize]
                    })
                    .collect();
                proptest::prop_assert_eq!(a.to_vec::<i32>().unwrap(), want, "{:?}", ops);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn squeeze_and_expand_dims() {
    require_gpu!();
    let mut rng = Rng::new(15);
    let data = random_f32(&mut rng, 12);
    let a = Array::from_slice(&data, &[1, 3, 1, 4]).unwrap();
    let cases: [(Option<isize>, &[usize]); 4] = [
        (None, &[3, 4]),
        (Some(0), &[3, 1, 4]),
        (Some(-2), &[1, 3, 4]),
        (Some(2), &[1, 3, 4]),
    ];
    for (axis, shape) in cases {
        let v = a.squeeze(axis).unwrap();
        assert_eq!(v.shape(), shape, "squeeze({axis:?})");
        assert!(v.shares_memory(&a));
        assert_eq!(v.to_vec::<f32>().unwrap(), data, "squeeze({axis:?})");
    }
    expect_err(a.squeeze(Some(1)), ErrorKind::Shape);
    expect_err(a.squeeze(Some(4)), ErrorKind::Shape);
    let b = a.squeeze(None).unwrap();
    let cases: [(isize, &[usize]); 5] = [
        (0, &[1, 3, 4]),
        (1, &[3, 1, 4]),
        (2, &[3, 4, 1]),
        (-1, &[3, 4, 1]),
        (-3, &[1, 3, 4]),
    ];
    for (axis, shape) in cases {
        let v = b.expand_dims(axis).unwrap();
        assert_eq!(v.shape(), shape, "expand_dims({axis})");
        assert_eq!(v.to_vec::<f32>().unwrap(), data, "expand_dims({axis})");
    }
    expect_err(b.expand_dims(3), ErrorKind::Shape);
    expect_err(b.expand_dims(-4), ErrorKind::Shape);
    // on a transposed view the values follow the view's order
    let t = b.t().expand_dims(1).unwrap(); // (4, 1, 3)
    let mt = HostView::new(&[3, 4]).transpose().reshape(&[4, 1, 3]);
    check_view(&t, &mt, &data, "expand_dims of a transpose");
    check_view(
        &t.squeeze(None).unwrap(),
        &HostView::new(&[3, 4]).transpose(),
        &data,
        "squeeze",
    );
}

#[test]
fn fill_through_a_strided_view_writes_only_its_elements() {
    require_gpu!();
    let mut rng = Rng::new(16);
    let shape = [6usize, 7];
    let data = random_f64(&mut rng, 42, -100.0, 100.0);
    let m = HostView::new(&shape);
    let cases: Vec<(Vec<SliceArg>, bool)> = vec![
        (s![1..;2, ..;-3].to_vec(), false),
        (s![.., 3].to_vec(), false),
        (s![-2, 1..6;2].to_vec(), false),
        (s![2, 3].to_vec(), false),
        (s![1..4, 2..5].to_vec(), false),
        (s![..;2, ..;3].to_vec(), true), // through the transpose
    ];
    for (args, transposed) in cases {
        let a = Array::from_slice(&data, &shape).unwrap();
        let (view, model) = if transposed {
            (a.t().slice(&args).unwrap(), m.transpose().slice(&args))
        } else {
            (a.slice(&args).unwrap(), m.slice(&args))
        };
        view.fill(-1.5f64).unwrap();
        let mut want = data.clone();
        for &p in &model.idx {
            want[p] = -1.5;
        }
        assert_eq!(
            a.to_vec::<f64>().unwrap(),
            want,
            "fill {args:?} transposed={transposed}"
        );
        assert_eq!(view.to_vec::<f64>().unwrap(), vec![-1.5; model.idx.len()]);
    }
    // a converted value, on a reversed 3-d view
    let data3 = random_i32(&mut rng, 60);
    let b = Array::from_slice(&data3, &[3, 4, 5]).unwrap();
    b.slice(&s![..;-1, 1, ..;2]).unwrap().fill(7.9f32).unwrap();
    let mut want = data3.clone();
    for &p in &HostView::new(&[3, 4, 5]).slice(&s![..;-1, 1, ..;2]).idx {
        want[p] = 7;
    }
    assert_eq!(b.to_vec::<i32>().unwrap(), want);
    // writing through a broadcast view writes the shared elements
    let row = Array::from_slice(&data[..4], &[4]).unwrap();
    row.broadcast_to(&[3, 4]).unwrap().fill(5.0f64).unwrap();
    assert_eq!(row.to_vec::<f64>().unwrap(), vec![5.0; 4]);
}

#[test]
fn copy_from_slice_into_a_strided_view() {
    require_gpu!();
    let mut rng = Rng::new(17);
    let shape = [5usize, 8];
    let data = random_i32(&mut rng, 40);
    let m = HostView::new(&shape);
    let cases: Vec<Vec<SliceArg>> = vec![
        s![..;-2, 1..7;3].to_vec(),
        s![.., 0].to_vec(),
        s![2].to_vec(), // contiguous: the direct upload path
        s![1..4, ..;-1].to_vec(),
        s![SliceArg::NewAxis, 3, 2..].to_vec(),
    ];
    for args in &cases {
        let a = Array::from_slice(&data, &shape).unwrap();
        let view = a.slice(args).unwrap();
        let model = m.slice(args);
        let vals = random_i32(&mut rng, model.idx.len());
        view.copy_from_slice(&vals).unwrap();
        let mut want = data.clone();
        for (&p, &v) in model.idx.iter().zip(&vals) {
            want[p] = v;
        }
        assert_eq!(
            a.to_vec::<i32>().unwrap(),
            want,
            "copy_from_slice into {args:?}"
        );
        assert_eq!(view.to_vec::<i32>().unwrap(), vals);
    }
    // into a transposed view
    let a = Array::from_slice(&data, &shape).unwrap();
    let vals = random_i32(&mut rng, 40);
    a.t().copy_from_slice(&vals).unwrap();
    let mut want = data.clone();
    for (&p, &v) in m.transpose().idx.iter().zip(&vals) {
        want[p] = v;
    }
    assert_eq!(a.to_vec::<i32>().unwrap(), want);
    // errors
    let view = a.slice(&s![.., 1..;2]).unwrap();
    let e = expect_err(view.copy_from_slice(&[1i32; 19]), ErrorKind::Shape);
    assert!(
        e.to_string().contains("20") && e.to_string().contains("19"),
        "{e}"
    );
    expect_err(view.copy_from_slice(&[1u32; 20]), ErrorKind::DType);
    assert_eq!(
        a.to_vec::<i32>().unwrap(),
        want,
        "failed copies change nothing"
    );
}

#[test]
fn assign_from_transposed_and_strided_views() {
    require_gpu!();
    let mut rng = Rng::new(18);
    let data = random_f32(&mut rng, 20);
    let a = Array::from_slice(&data, &[4, 5]).unwrap();
    let m = HostView::new(&[4, 5]);
    let b = Array::zeros(&[5, 4], DType::F32).unwrap();
    b.assign(&a.t()).unwrap();
    assert_eq!(b.to_vec::<f32>().unwrap(), m.transpose().gather(&data));
    assert!(!b.shares_memory(&a));
    // strided destination and strided source
    let dst_data = random_f32(&mut rng, 48);
    let dst = Array::from_slice(&dst_data, &[6, 8]).unwrap();
    let dst_args = s![1..;2, ..;-2];
    let dst_view = dst.slice(&dst_args).unwrap(); // (3, 4)
    // a.t()[::-1, 1:4].T[:, 1:], a (3, 4) view with negative and non-unit strides
    let src_args = s![..;-1, 1..4];
    let src4 = a
        .t()
        .slice(&src_args)
        .unwrap()
        .t()
        .slice(&s![.., 1..])
        .unwrap();
    let src4_model = m
        .transpose()
        .slice(&src_args)
        .transpose()
        .slice(&s![.., 1..]);
    assert_eq!(src4.shape(), &[3, 4]);
    dst_view.assign(&src4).unwrap();
    let mut want = dst_data.clone();
    let dst_model = HostView::new(&[6, 8]).slice(&dst_args);
    for (&p, v) in dst_model.idx.iter().zip(src4_model.gather(&data)) {
        want[p] = v;
    }
    assert_eq!(dst.to_vec::<f32>().unwrap(), want);
    // contiguous to contiguous (device-to-device copy)
    let c = Array::zeros(&[4, 5], DType::F32).unwrap();
    c.assign(&a).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), data);
    // from a broadcast view
    let row = a.slice(&s![2]).unwrap();
    c.assign(&row.broadcast_to(&[4, 5]).unwrap()).unwrap();
    let want: Vec<f32> = (0..4).flat_map(|_| data[10..15].to_vec()).collect();
    assert_eq!(c.to_vec::<f32>().unwrap(), want);
    // errors
    expect_err(b.assign(&a), ErrorKind::Shape);
    expect_err(
        c.assign(&Array::zeros(&[4, 5], DType::F64).unwrap()),
        ErrorKind::DType,
    );
    assert_eq!(
        c.to_vec::<f32>().unwrap(),
        want,
        "failed assigns change nothing"
    );
}

#[test]
fn copy_and_to_contiguous_of_every_kind_of_view() {
    require_gpu!();
    let mut rng = Rng::new(19);
    let shape = [3usize, 4, 5, 6];
    let data = random_f32(&mut rng, 360);
    let a = Array::from_slice(&data, &shape).unwrap();
    let m = HostView::new(&shape);
    let views: Vec<(&str, Array, HostView)> = vec![
        ("transposed", a.t(), m.transpose()),
        (
            "permuted",
            a.permute(&[2, 0, 3, 1]).unwrap(),
            m.permute(&[2, 0, 3, 1]),
        ),
        (
            "negative strides",
            a.slice(&s![..;-1, .., ..;-2, ..;-1]).unwrap(),
            m.slice(&s![..;-1, .., ..;-2, ..;-1]),
        ),
        (
            "sliced 4-d",
            a.slice(&s![1.., ..;2, 1..4, ..;-3]).unwrap(),
            m.slice(&s![1.., ..;2, 1..4, ..;-3]),
        ),
        (
            "broadcast",
            a.slice(&s![0, 1, .., 2..3])
                .unwrap()
                .broadcast_to(&[2, 5, 4])
                .unwrap(),
            m.slice(&s![0, 1, .., 2..3]).broadcast(&[2, 5, 4]),
        ),
        (
            "new axis",
            a.slice(&s![.., SliceArg::NewAxis, 1, ..;-1]).unwrap(),
            m.slice(&s![.., SliceArg::NewAxis, 1, ..;-1]),
        ),
        (
            "transposed slice",
            a.slice(&s![1..3, 2]).unwrap().t(),
            m.slice(&s![1..3, 2]).transpose(),
        ),
        (
            "0-d",
            a.slice(&s![1, 2, 3, 4]).unwrap(),
            m.slice(&s![1, 2, 3, 4]),
        ),
        (
            "contiguous block",
            a.slice(&s![1]).unwrap(),
            m.slice(&s![1]),
        ),
    ];
    let mut copies = Vec::new();
    for (what, v, model) in &views {
        let want = model.gather(&data);
        let c = v.copy().unwrap();
        assert!(!c.shares_memory(&a), "{what}: copy() makes new memory");
        assert!(c.is_c_contiguous(), "{what}");
        assert_eq!((c.shape(), c.dtype()), (v.shape(), DType::F32), "{what}");
        assert_eq!(c.to_vec::<f32>().unwrap(), want, "{what}: copy");
        assert_eq!(v.to_vec::<f32>().unwrap(), want, "{what}: to_vec");
        let k = v.to_contiguous().unwrap();
        assert!(k.is_c_contiguous(), "{what}");
        assert_eq!(
            k.shares_memory(&a),
            v.is_c_contiguous(),
            "{what}: to_contiguous copies exactly when needed"
        );
        assert_eq!(k.to_vec::<f32>().unwrap(), want, "{what}: to_contiguous");
        copies.push((what, c, want));
    }
    assert!(views[8].1.is_c_contiguous() && !views[0].1.is_c_contiguous());
    // the copies are independent of the base
    a.fill(0.0f32).unwrap();
    for (what, c, want) in copies {
        assert_eq!(
            c.to_vec::<f32>().unwrap(),
            want,
            "{what}: copy changed with its source"
        );
    }
}

#[test]
fn high_rank_views_copy_correctly() {
    require_gpu!();
    let mut rng = Rng::new(20);
    let shape = [2usize, 3, 2, 3, 2, 3];
    let data: Vec<i16> = random_vec(&mut rng, 216);
    let a = Array::from_slice(&data, &shape).unwrap();
    let m = HostView::new(&shape);
    check_view(&a.t(), &m.transpose(), &data, "6-d transpose");
    let perm = [0usize, 2, 4, 1, 3, 5];
    let axes: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
    check_view(
        &a.permute(&axes).unwrap(),
        &m.permute(&perm),
        &data,
        "6-d permute",
    );
    let args = s![.., ..;-1, .., ..;2, .., ..;-1];
    check_view(
        &a.slice(&args).unwrap(),
        &m.slice(&args),
        &data,
        "6-d slice",
    );
    let r = a.slice(&args).unwrap().t().copy().unwrap();
    check_view(
        &r,
        &m.slice(&args).transpose(),
        &data,
        "6-d slice transposed copy",
    );
    // 8 dimensions, all of extent 2
    let data8: Vec<u16> = random_vec(&mut rng, 256);
    let b = Array::from_slice(&data8, &[2; 8]).unwrap();
    let perm8 = [7usize, 0, 6, 1, 5, 2, 4, 3];
    let axes8: Vec<isize> = perm8.iter().map(|&p| p as isize).collect();
    let m8 = HostView::new(&[2; 8]);
    check_view(
        &b.permute(&axes8).unwrap(),
        &m8.permute(&perm8),
        &data8,
        "8-d permute",
    );
}

#[test]
fn shares_memory_semantics() {
    require_gpu!();
    let a = Array::zeros(&[4, 6], DType::F32).unwrap();
    let b = Array::zeros(&[4, 6], DType::F32).unwrap();
    assert!(!a.shares_memory(&b) && !b.shares_memory(&a));
    let views = [
        a.clone(),
        a.t(),
        a.slice(&s![1..;2, ..;-1]).unwrap(),
        a.reshape(&[2, 12]).unwrap(),
        a.slice(&s![0]).unwrap().broadcast_to(&[3, 6]).unwrap(),
        a.expand_dims(0).unwrap().squeeze(None).unwrap(),
        a.slice(&s![2..2]).unwrap(),
        a.to_contiguous().unwrap(),
        a.reshape_copy(&[-1]).unwrap(),
    ];
    for (i, v) in views.iter().enumerate() {
        assert!(v.shares_memory(&a) && a.shares_memory(v), "view {i}");
        assert!(!v.shares_memory(&b), "view {i}");
        assert!(
            v.shares_memory(&views[1]),
            "views of one array share with each other ({i})"
        );
    }
    assert!(!a.copy().unwrap().shares_memory(&a));
    assert!(!a.t().to_contiguous().unwrap().shares_memory(&a));
    assert!(!a.t().reshape_copy(&[-1]).unwrap().shares_memory(&a));
    assert!(!Array::zeros_like(&a).unwrap().shares_memory(&a));
    // writes through one view are seen through the others
    a.slice(&s![.., 1]).unwrap().fill(3.0f32).unwrap();
    assert_eq!(
        a.t().slice(&s![1]).unwrap().to_vec::<f32>().unwrap(),
        vec![3.0; 4]
    );
    assert_eq!(
        views[3].slice(&s![.., 1]).unwrap().to_vec::<f32>().unwrap(),
        vec![3.0; 2]
    );
    assert_eq!(b.to_vec::<f32>().unwrap(), vec![0.0; 24]);
}

#[test]
fn data_ptr_follows_slice_offsets() {
    require_gpu!();
    let a = Array::zeros(&[4, 5], DType::F32).unwrap();
    let base = a.data_ptr();
    assert_ne!(base, 0);
    let row = 5 * 4u64;
    let at = |args: &[SliceArg]| a.slice(args).unwrap().data_ptr();
    assert_eq!(at(&s![1]), base + row, "a[1]");
    assert_eq!(at(&s![3]), base + 3 * row, "a[3]");
    assert_eq!(at(&s![2..]), base + 2 * row, "a[2:]");
    assert_eq!(at(&s![.., 2]), base + 8, "a[:, 2]");
    assert_eq!(at(&s![-1, -1]), base + 19 * 4, "a[-1, -1]");
    assert_eq!(
        at(&s![..;-1]),
        base + 3 * row,
        "a[::-1] starts at the last row"
    );
    assert_eq!(at(&s![..;-1, ..;-1]), base + 19 * 4, "a[::-1, ::-1]");
    assert_eq!(at(&s![1..;2, 3..;-2]), base + row + 12, "a[1::2, 3::-2]");
    assert_eq!(a.t().data_ptr(), base);
    // offsets accumulate through views of views
    let v = a.slice(&s![1..]).unwrap().slice(&s![1..]).unwrap();
    assert_eq!(
        v.slice(&s![.., 1..]).unwrap().data_ptr(),
        base + 2 * row + 4
    );
    assert_eq!(
        v.t().slice(&s![-1]).unwrap().data_ptr(),
        base + 2 * row + 16
    );
    // byte strides of views
    assert_eq!(
        a.slice(&s![..;2, ..;-1]).unwrap().byte_strides(),
        vec![40, -4]
    );
    assert_eq!(a.t().byte_strides(), vec![4, 20]);
    // other item sizes
    let b = Array::zeros(&[3, 4, 5], DType::F64).unwrap();
    assert_eq!(
        b.slice(&s![1, 2]).unwrap().data_ptr(),
        b.data_ptr() + (20 + 10) * 8
    );
    let c = Array::zeros(&[2, 3], DType::C128).unwrap();
    assert_eq!(c.slice(&s![1]).unwrap().data_ptr(), c.data_ptr() + 3 * 16);
    assert_eq!(c.slice(&s![.., 2]).unwrap().byte_strides(), vec![48]);
    let d = Array::zeros(&[7, 3], DType::U8).unwrap();
    assert_eq!(d.slice(&s![-1, 2]).unwrap().data_ptr(), d.data_ptr() + 20);
}

// -----------------------------------------------------------------------------------------
// Strided copies for every item size
// -----------------------------------------------------------------------------------------

fn check_strided_download<T: TestElem>(rng: &mut Rng) -> DType {
    let d = T::DTYPE;
    let (r, c) = (37usize, 29usize);
    let data: Vec<T> = random_vec(rng, r * c);
    let a = Array::from_slice(&data, &[r, c]).unwrap();
    let m = HostView::new(&[r, c]);
    check_view(&a.t(), &m.transpose(), &data, &format!("{d}: transposed"));
    let args = s![..;-3, 1..;2];
    check_view(
        &a.slice(&args).unwrap(),
        &m.slice(&args),
        &data,
        &format!("{d}: slice"),
    );
    // a strided destination
    let dst = Array::zeros(&[c, r], d).unwrap();
    dst.t().assign(&a).unwrap();
    check_view(
        &dst,
        &m.transpose(),
        &data,
        &format!("{d}: assign into a transpose"),
    );
    // 3-d
    let data3: Vec<T> = random_vec(rng, 210);
    let b = Array::from_slice(&data3, &[5, 6, 7]).unwrap();
    let m3 = HostView::new(&[5, 6, 7]);
    let p = b.permute(&[2, 0, 1]).unwrap();
    check_view(
        &p,
        &m3.permute(&[2, 0, 1]),
        &data3,
        &format!("{d}: 3-d permute"),
    );
    let args = s![1..;2, ..;-1, ..;3];
    check_view(
        &b.slice(&args).unwrap(),
        &m3.slice(&args),
        &data3,
        &format!("{d}: 3-d"),
    );
    d
}

#[test]
fn strided_downloads_for_every_item_size() {
    require_gpu!();
    let mut rng = Rng::new(21);
    let seen = for_each_dtype!(check_strided_download(&mut rng));
    assert_eq!(seen, common::dtypes(DType::ALL));
    // every item size is covered: 1, 2, 4, 8 and 16 bytes
    let mut sizes: Vec<usize> = seen.iter().map(|d| d.itemsize()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    assert_eq!(sizes, vec![1, 2, 4, 8, 16]);
}

// =========================================================================================
// Printing (Display like NumPy's str, Debug with shape, dtype and strides)
// =========================================================================================

#[test]
fn arrays_print_like_numpy() {
    require_gpu!();
    let dev = if Device::current().unwrap().is_host() {
        "host"
    } else {
        "0"
    };
    // small arrays of several dtypes (expected strings printed by NumPy 2.4)
    let a = Array::linspace(0.0, 1.0, 3, Endpoint::Included, DType::F32).unwrap();
    assert_eq!(a.to_string(), "[0.  0.5 1. ]");
    assert_eq!(
        format!("{a:?}"),
        format!("array([0. , 0.5, 1. ], shape=(3,), dtype=float32, strides=(1,), device={dev})")
    );
    let b = Array::from_slice(&[true, false], &[2]).unwrap();
    assert_eq!(b.to_string(), "[ True False]");
    let c = Array::from_slice(&[Complex::new(1.0f64, 2.0), Complex::new(3.0, -4.5)], &[2]).unwrap();
    assert_eq!(c.to_string(), "[1.+2.j  3.-4.5j]");
    let m = Array::arange(0.0, 6.0, 1.0, DType::I16)
        .unwrap()
        .reshape(&[2, 3])
        .unwrap();
    assert_eq!(m.to_string(), "[[0 1 2]\n [3 4 5]]");
    assert_eq!(
        format!("{m:?}"),
        format!(
            "array([[0, 1, 2],\n       [3, 4, 5]], shape=(2, 3), dtype=int16, strides=(3, 1), device={dev})"
        )
    );
    // a transposed view prints its own order
    assert_eq!(m.t().to_string(), "[[0 3]\n [1 4]\n [2 5]]");
    assert!(format!("{:?}", m.t()).ends_with(&format!(
        "shape=(3, 2), dtype=int16, strides=(1, 3), device={dev})"
    )));
    // 0-d: the scalar; empty: []
    let z = Array::scalar(1.5f32).unwrap();
    assert_eq!(z.to_string(), "1.5");
    assert_eq!(
        format!("{z:?}"),
        format!("array(1.5, shape=(), dtype=float32, strides=(), device={dev})")
    );
    assert_eq!(Array::scalar(7i64).unwrap().to_string(), "7");
    assert_eq!(Array::scalar(true).unwrap().to_string(), "True");
    let e = Array::zeros(&[0, 3], DType::F64).unwrap();
    assert_eq!(e.to_string(), "[]");
    assert!(format!("{e:?}").starts_with("array([], shape=(0, 3), dtype=float64"));
    // half types
    let h = Array::from_slice(&[f16::from_f64(0.1), f16::from_f64(-2.5)], &[2]).unwrap();
    assert_eq!(h.to_string(), "[ 0.1 -2.5]");
    let h = Array::from_slice(&[bf16::from_f64(1.0), bf16::from_f64(0.1)], &[2]).unwrap();
    assert_eq!(h.to_string(), "[1.  0.1]");
}

#[test]
fn large_arrays_print_summarised_like_numpy() {
    require_gpu!();
    // the seed's `[2 3 4 ... 287 77 42]` (seed 003) comes from a summarised int64 array
    let big = Array::arange(0.0, 10_000.0, 1.0, DType::I64).unwrap();
    assert_eq!(big.to_string(), "[   0    1    2 ... 9997 9998 9999]");
    let mut ends = vec![2i64, 3, 4];
    ends.extend(std::iter::repeat_n(0, 999_993));
    ends.extend([287, 77, 42]);
    let seed = Array::from_slice(&ends, &[999_999]).unwrap();
    assert_eq!(seed.to_string(), "[  2   3   4 ... 287  77  42]");
    assert!(
        format!("{seed:?}")
            .starts_with("array([  2,   3,   4, ..., 287,  77,  42], shape=(999999,)")
    );
    // 2-D: the corners of both axes (NumPy 2.4's output for (i * 7919) % 1000 - 500)
    let h: Vec<i32> = (0..10_000)
        .map(|i| ((i as f64 * 7919.0) % 1000.0 - 500.0) as i32)
        .collect();
    let a = Array::from_slice(&h, &[100, 100]).unwrap();
    let want = "[[-500  419  338 ... -357 -438  481]\n [ 400  319  238 ... -457  462  381]\n \
                [ 300  219  138 ...  443  362  281]\n ...\n [-200 -281 -362 ...  -57 -138 -219]\n \
                [-300 -381 -462 ... -157 -238 -319]\n [-400 -481  438 ... -257 -338 -419]]";
    assert_eq!(a.to_string(), want);
    // non-contiguous views print the same as their copies
    for v in [
        a.t(),
        a.slice(&s![..;-1, 3..]).unwrap(),
        a.slice(&s![1..;2, ..;-3]).unwrap(),
        a.reshape(&[10, 10, 100])
            .unwrap()
            .slice(&s![.., ..;2, 5..])
            .unwrap(),
    ] {
        let c = v.copy().unwrap();
        assert_eq!(v.to_string(), c.to_string(), "{:?}", v.shape());
        assert!(v.size() > 1000 && v.to_string().contains("..."), "{}", v);
    }
    // floats in scientific notation, summarised (NumPy 2.4's output for i * 1e5 + 0.5)
    let h: Vec<f32> = (0..2000).map(|i| (i as f64 * 1e5 + 0.5) as f32).collect();
    let f = Array::from_slice(&h, &[2000]).unwrap();
    assert_eq!(
        f.to_string(),
        "[5.000000e-01 1.000005e+05 2.000005e+05 ... 1.997000e+08 1.998000e+08\n 1.999000e+08]"
    );
}

// =========================================================================================
// Random numbers
// =========================================================================================

#[test]
fn random_is_in_the_unit_interval() {
    require_gpu!();
    let _lock = default_generator_lock();
    random::seed(100).unwrap();
    let n = 1_000_000;
    let r = random::random(&[n], DType::F64).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[n][..], DType::F64));
    let v = r.to_vec::<f64>().unwrap();
    let outside = v.iter().filter(|x| !(0.0..1.0).contains(*x)).count();
    assert_eq!(outside, 0, "float64 values outside [0, 1)");
    let (mean, std) = mean_std(&v);
    assert!((mean - 0.5).abs() < 0.003, "mean {mean}");
    assert!((std - (1.0f64 / 12.0).sqrt()).abs() < 0.003, "std {std}");
    let (lo, hi) = v
        .iter()
        .fold((1.0f64, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
    assert!(lo < 1e-4 && hi > 1.0 - 1e-4, "range [{lo}, {hi}]");
    let r = random::random(&[n], DType::F32).unwrap();
    let v = widen(&r.to_vec::<f32>().unwrap());
    assert_eq!(
        v.iter().filter(|x| !(0.0..1.0).contains(*x)).count(),
        0,
        "float32"
    );
    assert!((mean_std(&v).0 - 0.5).abs() < 0.003);
    // the shape is honoured
    let r = random::random(&[3, 5, 7], DType::F32).unwrap();
    assert_eq!(r.shape(), &[3, 5, 7]);
    assert!(r.is_c_contiguous());
}

#[test]
fn random_float32_never_returns_one() {
    require_gpu!();
    // cuRAND's float32 uniforms lie in (0, 1]; values below 2^-25 (about one in 3.4e7)
    // turn into exactly 1.0 when mapped with 1 - u in float32. 2^27 samples make that
    // visible if the mapping allows it (four expected); on the host device, the same
    // mapping of its own generator's values, 2^26 (two expected: a CI core's 2 s saved).
    let n = common::gpu_or_host(1usize << 27, 1 << 26);
    let mut g = Generator::new(2024).unwrap();
    let v = g.random(&[n], DType::F32).unwrap().to_vec::<f32>().unwrap();
    let bad: Vec<(usize, f32)> = v
        .iter()
        .enumerate()
        .filter(|(_, x)| !(0.0..1.0).contains(*x))
        .map(|(i, &x)| (i, x))
        .take(5)
        .collect();
    assert!(
        bad.is_empty(),
        "random() float32 values outside [0, 1): {bad:?}"
    );
}

#[test]
fn uniform_respects_bounds_and_mean() {
    require_gpu!();
    let _lock = default_generator_lock();
    random::seed(101).unwrap();
    let n = 1_000_000;
    for dtype in [DType::F64, DType::F32] {
        let u = random::uniform(-2.0, 3.0, &[n], dtype).unwrap();
        assert_eq!((u.shape(), u.dtype()), (&[n][..], dtype));
        let v = if dtype == DType::F64 {
            u.to_vec::<f64>().unwrap()
        } else {
            widen(&u.to_vec::<f32>().unwrap())
        };
        let outside = v.iter().filter(|x| !(-2.0..3.0).contains(*x)).count();
        assert_eq!(outside, 0, "{dtype}: values outside [-2, 3)");
        let (mean, std) = mean_std(&v);
        assert!((mean - 0.5).abs() < 0.01, "{dtype}: mean {mean}");
        assert!(
            (std - 5.0 / 12.0f64.sqrt()).abs() < 0.01,
            "{dtype}: std {std}"
        );
        let (lo, hi) = v
            .iter()
            .fold((3.0f64, -2.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        assert!(lo < -1.99 && hi > 2.99, "{dtype}: range [{lo}, {hi}]");
    }
    // a degenerate interval
    let u = random::uniform(4.0, 4.0, &[100], DType::F64).unwrap();
    assert_eq!(u.to_vec::<f64>().unwrap(), vec![4.0; 100]);
    expect_err(
        random::uniform(f64::NAN, 1.0, &[4], DType::F32),
        ErrorKind::InvalidArgument,
    );
}

#[test]
fn normal_has_the_requested_mean_and_std() {
    require_gpu!();
    let _lock = default_generator_lock();
    random::seed(102).unwrap();
    let n = 1_000_000;
    for dtype in [DType::F64, DType::F32] {
        let x = random::normal(3.0, 2.0, &[n], dtype).unwrap();
        assert_eq!((x.shape(), x.dtype()), (&[n][..], dtype));
        let v = if dtype == DType::F64 {
            x.to_vec::<f64>().unwrap()
        } else {
            widen(&x.to_vec::<f32>().unwrap())
        };
        assert!(v.iter().all(|x| x.is_finite()), "{dtype}");
        let (mean, std) = mean_std(&v);
        // standard errors: 2e-3 for the mean, 1.4e-3 for the std
        assert!((mean - 3.0).abs() < 0.012, "{dtype}: mean {mean}");
        assert!((std - 2.0).abs() < 0.01, "{dtype}: std {std}");
        let within_1sd = v.iter().filter(|x| (1.0..5.0).contains(*x)).count() as f64 / n as f64;
        assert!(
            (within_1sd - 0.6827).abs() < 0.005,
            "{dtype}: {within_1sd} within 1 sd"
        );
    }
    let x = random::normal(-1.0, 0.0, &[10], DType::F64).unwrap();
    assert_eq!(x.to_vec::<f64>().unwrap(), vec![-1.0; 10], "scale 0");
    expect_err(
        random::normal(0.0, -1.0, &[4], DType::F64),
        ErrorKind::InvalidArgument,
    );
}

#[test]
fn normal_handles_odd_counts() {
    require_gpu!();
    // cuRAND makes normals in pairs; odd counts must still give exactly what was asked
    let odd = Generator::new(5)
        .unwrap()
        .normal(0.0, 1.0, &[7], DType::F32)
        .unwrap();
    assert_eq!((odd.shape(), odd.size()), (&[7usize][..], 7));
    assert!(odd.is_c_contiguous());
    let even = Generator::new(5)
        .unwrap()
        .normal(0.0, 1.0, &[8], DType::F32)
        .unwrap();
    let (o, e) = (odd.to_vec::<f32>().unwrap(), even.to_vec::<f32>().unwrap());
    assert_eq!(
        o[..],
        e[..7],
        "the 7 values are the first 7 of the same stream"
    );
    assert!(o.iter().all(|x| x.is_finite()));
    assert!(o.windows(2).any(|w| w[0] != w[1]), "{o:?}");
    let mut g = Generator::new(6).unwrap();
    let m = g.normal(1.0, 0.5, &[3, 5], DType::F64).unwrap();
    assert_eq!(
        (m.shape(), m.strides()),
        (&[3usize, 5][..], &[5isize, 1][..])
    );
    let v = m.to_vec::<f64>().unwrap();
    assert_eq!(v.len(), 15);
    assert!(
        v.iter().all(|x| x.is_finite() && (-3.0..5.0).contains(x)),
        "{v:?}"
    );
    // a 0-d and an empty request
    let s0 = g.normal(0.0, 1.0, &[], DType::F64).unwrap();
    assert_eq!((s0.ndim(), s0.to_vec::<f64>().unwrap().len()), (0, 1));
    let e0 = g.normal(0.0, 1.0, &[0, 3], DType::F32).unwrap();
    assert_eq!(e0.shape(), &[0, 3]);
    assert!(e0.to_vec::<f32>().unwrap().is_empty());
    let one = g.normal(0.0, 1.0, &[1], DType::F32).unwrap();
    assert_eq!(one.shape(), &[1]);
    // the generator continues after odd requests: later draws are new numbers
    let later = g.normal(1.0, 0.5, &[3, 5], DType::F64).unwrap();
    assert_ne!(later.to_vec::<f64>().unwrap(), v);
}

#[test]
fn seed_makes_draws_reproducible() {
    require_gpu!();
    let _lock = default_generator_lock();
    random::seed(1234).unwrap();
    let a = random::random(&[1000], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let b = random::random(&[1000], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_ne!(a, b, "consecutive draws differ");
    random::seed(1234).unwrap();
    let c = random::random(&[1000], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(a, c, "the same seed gives the same values");
    let n1 = random::normal(0.0, 1.0, &[33], DType::F32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    random::seed(1234).unwrap();
    let _ = random::random(&[1000], DType::F64).unwrap();
    let n2 = random::normal(0.0, 1.0, &[33], DType::F32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(n1, n2, "the whole sequence repeats");
    random::seed(4321).unwrap();
    let d = random::random(&[1000], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_ne!(a, d, "another seed gives other values");
    // explicit generators
    let x = Generator::new(9)
        .unwrap()
        .uniform(0.0, 1.0, &[100], DType::F32)
        .unwrap();
    let mut g = Generator::new(9).unwrap();
    let y = g.uniform(0.0, 1.0, &[100], DType::F32).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), y.to_vec::<f32>().unwrap());
    let z = g.uniform(0.0, 1.0, &[100], DType::F32).unwrap();
    assert_ne!(y.to_vec::<f32>().unwrap(), z.to_vec::<f32>().unwrap());
    g.seed(9).unwrap();
    let w = g.uniform(0.0, 1.0, &[100], DType::F32).unwrap();
    assert_eq!(
        x.to_vec::<f32>().unwrap(),
        w.to_vec::<f32>().unwrap(),
        "reseeding restarts"
    );
}

#[test]
fn random_rejects_non_float_dtypes() {
    require_gpu!();
    let _lock = default_generator_lock();
    for d in [
        DType::I32,
        DType::U8,
        DType::Bool,
        DType::F16,
        DType::BF16,
        DType::C64,
    ] {
        let e = expect_err(random::random(&[4], d), ErrorKind::DType);
        assert!(e.to_string().contains(d.name()), "{e}");
        expect_err(random::uniform(0.0, 1.0, &[4], d), ErrorKind::DType);
        expect_err(random::normal(0.0, 1.0, &[4], d), ErrorKind::DType);
    }
    let mut g = Generator::new(1).unwrap();
    expect_err(g.normal(0.0, 1.0, &[3], DType::I64), ErrorKind::DType);
    expect_err(g.random(&[3], DType::C128), ErrorKind::DType);
}

// =========================================================================================
// Runtime: devices, streams, events, memory
// =========================================================================================

#[test]
fn device_properties_are_sane() {
    require_gpu!();
    let cur = Device::current().unwrap();
    if cur.is_host() {
        let h = Device::host();
        assert_eq!(cur, h);
        assert_eq!(h.ordinal(), cuprum::runtime::HOST_ORDINAL);
        assert!(h.name().starts_with("CPU: "), "{}", h.name());
        assert_eq!((h.compute_capability(), h.arch()), ((0, 0), 0));
        assert!(h.sm_count() >= 1 && h.total_memory() >= 1 << 28);
        assert_eq!(
            (h.max_threads_per_block(), h.max_block_dim()),
            (1024, [1024, 1024, 64])
        );
        assert_eq!(h.max_shared_memory_per_block(), 48 << 10);
        assert!(h.max_shared_memory_per_block_optin() > 48 << 10);
        assert_eq!(format!("{h:?}"), format!("Device(host: {})", h.name()));
        assert_eq!(h.to_string(), format!("the host device ({})", h.name()));
        return;
    }
    assert!(Device::count().unwrap() >= 1);
    let d = Device::get(0).unwrap();
    assert_eq!(d.ordinal(), 0);
    assert!(!d.name().trim().is_empty());
    let cc = d.compute_capability();
    assert!(cc >= (7, 0), "compute capability {cc:?}");
    assert_eq!(d.arch(), cc.0 * 10 + cc.1);
    assert!(d.sm_count() > 0);
    assert!(d.total_memory() >= 1 << 30, "{} bytes", d.total_memory());
    assert!(d.max_threads_per_block() >= 512);
    assert!(d.max_block_dim()[0] >= 512);
    assert!(d.max_grid_dim()[0] >= 65_535);
    assert!(d.max_shared_memory_per_block() >= 16 * 1024);
    assert!(d.max_shared_memory_per_block_optin() >= d.max_shared_memory_per_block());
    assert!(d.l2_cache_bytes() > 0);
    assert_eq!(Device::current().unwrap(), d);
    assert_eq!(Device::get(0).unwrap(), d, "a later get is the same device");
    assert!(format!("{d:?}").contains(d.name()));
}

#[test]
fn a_missing_device_is_no_device() {
    require_cuda!();
    let e = expect_err(Device::get(999), ErrorKind::NoDevice);
    assert!(e.to_string().contains("999"), "{e}");
    let n = Device::count().unwrap();
    expect_err(Device::get(n), ErrorKind::NoDevice);
}

#[test]
fn stream_with_makes_it_current_and_runs_work_on_it() {
    require_gpu!();
    let dev = Device::current().unwrap();
    assert_eq!(Stream::current().unwrap(), dev.default_stream());
    let stream = Stream::new().unwrap();
    assert_ne!(stream, dev.default_stream());
    assert_eq!(stream.device(), dev);
    assert!(!stream.as_raw().is_null());
    let mut rng = Rng::new(30);
    let shape = [1000usize, 300];
    let data = random_f32(&mut rng, 300_000);
    let (a, t) = stream.with(|| {
        assert_eq!(Stream::current().unwrap(), stream);
        let a = Array::from_slice(&data, &shape).unwrap();
        let t = a.t().copy().unwrap(); // a kernel queued on `stream`
        a.slice(&s![.., ..;2]).unwrap().fill(-1.0f32).unwrap();
        (a, t)
    });
    assert_eq!(
        Stream::current().unwrap(),
        dev.default_stream(),
        "restored after with"
    );
    stream.synchronize().unwrap();
    let m = HostView::new(&shape);
    assert_eq!(t.to_vec::<f32>().unwrap(), m.transpose().gather(&data));
    let mut want = data.clone();
    for &p in &m.slice(&s![.., ..;2]).idx {
        want[p] = -1.0;
    }
    assert_eq!(a.to_vec::<f32>().unwrap(), want);
    // reading on the stream itself needs no extra synchronisation
    let back = stream.with(|| a.slice(&s![-1]).unwrap().to_vec::<f32>().unwrap());
    assert_eq!(back, want[want.len() - 300..]);
    // the guard form
    {
        let _g = stream.make_current();
        assert_eq!(Stream::current().unwrap(), stream);
    }
    assert_eq!(Stream::current().unwrap(), dev.default_stream());
}

#[test]
fn an_event_times_a_copy() {
    require_gpu!();
    let stream = Stream::current().unwrap();
    let a = Array::full(&[1 << 24], 2.0f32, DType::F32).unwrap();
    let (start, end) = (Event::new().unwrap(), Event::new().unwrap());
    start.record(&stream).unwrap();
    let b = a.copy().unwrap();
    end.record(&stream).unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(ms > 0.0 && ms < 10_000.0, "{ms} ms");
    assert!(end.is_complete().unwrap());
    assert_eq!(
        b.slice(&s![-2..]).unwrap().to_vec::<f32>().unwrap(),
        vec![2.0; 2]
    );
    // another stream can wait on the event
    let other = Stream::new().unwrap();
    other.wait_event(&end).unwrap();
    other.synchronize().unwrap();
}

#[test]
fn memory_info_is_consistent() {
    require_gpu!();
    let d = Device::current().unwrap();
    let (free, total) = d.memory_info().unwrap();
    assert!(total > 0 && free <= total, "free {free}, total {total}");
    assert!(
        total <= d.total_memory() + (1 << 20),
        "{total} vs {}",
        d.total_memory()
    );
}

#[test]
fn out_of_memory_is_reported_with_sizes() {
    require_gpu!();
    let n = 1usize << 48; // 2^50 bytes of float32
    let e = expect_err(Array::empty(&[n], DType::F32), ErrorKind::OutOfMemory);
    let msg = e.to_string();
    assert!(msg.contains("requested") && msg.contains("free"), "{msg}");
    assert!(msg.contains(&(1u64 << 50).to_string()), "{msg}");
    // the device still works afterwards
    let a = Array::full(&[1000], 3.0f32, DType::F32).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![3.0; 1000]);
}

#[test]
fn allocate_and_free_repeatedly() {
    require_gpu!();
    for i in 0..1000 {
        let a = Array::empty(&[1_000_000], DType::F32).unwrap();
        assert_eq!(a.nbytes(), 4_000_000);
        if i % 250 == 0 {
            a.fill(i as f32).unwrap();
            let tail = a.slice(&s![-2..]).unwrap().to_vec::<f32>().unwrap();
            assert_eq!(tail, vec![i as f32; 2]);
        }
    }
    let a = Array::ones(&[1_000_000], DType::F32).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0; 1_000_000]);
}

// =========================================================================================
// Profiler
// =========================================================================================

#[test]
fn benchmark_of_a_copy() {
    require_gpu!();
    let a = Array::ones(&[1 << 22], DType::F32).unwrap();
    let mut calls = 0;
    let opts = BenchmarkOptions::new().n_repeat(10).n_warmup(2);
    let r = benchmark(
        "copy",
        || {
            calls += 1;
            a.copy().map(drop)
        },
        &opts,
    )
    .unwrap();
    assert_eq!(calls, 12, "2 warm-up calls and 10 timed ones");
    assert_eq!(r.name, "copy");
    assert_eq!((r.cpu_times.len(), r.gpu_times.len()), (10, 10));
    assert!(
        r.cpu_times.iter().all(|&t| t > 0.0 && t < 10.0),
        "{:?}",
        r.cpu_times
    );
    assert!(
        r.gpu_times.iter().all(|&t| t > 0.0 && t < 10.0),
        "{:?}",
        r.gpu_times
    );
    let dev = Device::current().unwrap();
    assert_eq!(r.device, dev.ordinal());
    assert!(r.gpu().min > 0.0 && r.gpu().min <= r.gpu().mean && r.gpu().mean <= r.gpu().max);
    let text = r.to_string();
    assert!(text.starts_with(&format!("{:<20}:", "copy")), "{text:?}");
    assert!(text.starts_with("copy                :"), "{text:?}");
    assert!(
        text.contains(if dev.is_host() { "host:" } else { "GPU-0" }),
        "{text}"
    );
}

#[test]
fn benchmark_stops_at_max_duration() {
    require_gpu!();
    let a = Array::ones(&[1 << 20], DType::F32).unwrap();
    let opts = BenchmarkOptions::new()
        .n_repeat(1000)
        .n_warmup(0)
        .max_duration(Duration::ZERO);
    let r = benchmark("copy", || a.copy().map(drop), &opts).unwrap();
    assert_eq!(
        (r.cpu_times.len(), r.gpu_times.len()),
        (1, 1),
        "one repeat always runs"
    );
    // errors of the workload are passed on
    let e = expect_err(
        benchmark(
            "bad",
            || a.reshape(&[7]).map(drop),
            &BenchmarkOptions::new().n_repeat(2),
        ),
        ErrorKind::Shape,
    );
    assert!(e.to_string().contains("reshape"), "{e}");
}

// =========================================================================================
// Arrays beyond 32-bit sizes
// =========================================================================================

#[test]
fn arrays_over_2_gib_use_64_bit_byte_offsets() {
    require_gpu!();
    let n = (1usize << 31) / 4 + 1000;
    let a = Array::ones(&[n], DType::F32).unwrap();
    assert!(a.nbytes() > 1 << 31);
    let tail = a.slice(&s![-3..]).unwrap();
    assert_eq!(tail.data_ptr(), a.data_ptr() + ((n - 3) * 4) as u64);
    assert_eq!(tail.to_vec::<f32>().unwrap(), vec![1.0; 3]);
    a.fill(2.5f32).unwrap();
    assert_eq!(tail.to_vec::<f32>().unwrap(), vec![2.5; 3]);
    // a strided view whose elements lie 2^30 and 2^31 bytes past its first one
    let step = 1isize << 28;
    let sparse = a.slice(&s![..;step]).unwrap();
    assert_eq!(sparse.shape(), &[3]);
    sparse.fill(-4.0f32).unwrap();
    assert_eq!(sparse.to_vec::<f32>().unwrap(), vec![-4.0; 3]);
    let at = |i: usize| {
        let i = i as isize;
        a.slice(&s![i..i + 1]).unwrap().to_vec::<f32>().unwrap()[0]
    };
    assert_eq!(at(0), -4.0);
    assert_eq!(at(1 << 28), -4.0);
    assert_eq!(at(1 << 29), -4.0);
    assert_eq!(at((1 << 29) - 1), 2.5);
    assert_eq!(at((1 << 29) + 1), 2.5);
    // writes near the end, through a reversed view and a strided one
    let rev_head = a.slice(&s![..;-1]).unwrap().slice(&s![..3]).unwrap();
    rev_head.copy_from_slice(&[9.0f32, 8.0, 7.0]).unwrap();
    assert_eq!(tail.to_vec::<f32>().unwrap(), vec![7.0, 8.0, 9.0]);
    a.slice(&s![-5..;2]).unwrap().fill(6.0f32).unwrap();
    assert_eq!(
        a.slice(&s![-6..]).unwrap().to_vec::<f32>().unwrap(),
        vec![2.5, 6.0, 2.5, 6.0, 8.0, 6.0]
    );
    assert_eq!(rev_head.to_vec::<f32>().unwrap(), vec![6.0, 8.0, 6.0]);
}

#[test]
fn arrays_over_i32_max_elements_use_wide_indexing() {
    require_gpu!();
    let n = (1usize << 31) + 5; // more elements than an i32 can count
    let a = Array::zeros(&[n], DType::U8).unwrap();
    let tail = |x: &Array| x.slice(&s![-4..]).unwrap().to_vec::<u8>().unwrap();
    let head = |x: &Array| x.slice(&s![..4]).unwrap().to_vec::<u8>().unwrap();
    assert_eq!(tail(&a), vec![0; 4]);
    a.fill(7u8).unwrap();
    assert_eq!((head(&a), tail(&a)), (vec![7; 4], vec![7; 4]));
    // mark both ends, then copy the reversed array (a strided copy of > 2^31 elements)
    a.slice(&s![-3..])
        .unwrap()
        .copy_from_slice(&[1u8, 2, 3])
        .unwrap();
    a.slice(&s![..2])
        .unwrap()
        .copy_from_slice(&[4u8, 5])
        .unwrap();
    let r = a.slice(&s![..;-1]).unwrap().copy().unwrap();
    assert!(r.is_c_contiguous() && !r.shares_memory(&a));
    assert_eq!(head(&r), vec![3, 2, 1, 7]);
    assert_eq!(tail(&r), vec![7, 7, 5, 4]);
    let mid = (1isize << 30) + 17;
    assert_eq!(r.slice(&s![mid]).unwrap().to_vec::<u8>().unwrap(), vec![7]);
    // a strided fill reaching 2^31 elements past the start
    let step = 1isize << 30;
    a.slice(&s![..;step]).unwrap().fill(9u8).unwrap();
    let at = |i: isize| a.slice(&s![i]).unwrap().to_vec::<u8>().unwrap()[0];
    assert_eq!((at(0), at(1 << 30), at(1 << 31)), (9, 9, 9));
    assert_eq!((at((1 << 31) - 1), at((1 << 31) + 1)), (7, 7));
}

// =========================================================================================
// Row copies: the innermost dimension contiguous in the destination
// =========================================================================================

/// Copies of views whose innermost dimension is read forward, backward or broadcast (the
/// row copy: a vector of elements a thread), for every item size, with rows that start
/// aligned and not, rows shorter than a vector and rows of many block-sized chunks, and
/// several outer dimensions; each against the elements the view names on the host.
#[test]
fn row_copies_of_every_item_size_and_direction() {
    require_gpu!();
    let mut rng = Rng::new(77);
    for dt in [DType::I8, DType::F16, DType::F32, DType::F64, DType::C128] {
        for cols in [1usize, 3, 16, 17, 64, 130, 8300] {
            // long rows (at least 512 vectors) are copied a block per chunk
            let rows = if cols > 1000 { 5 } else { 37 };
            let n = rows * cols;
            let vals: Vec<f64> = (0..n).map(|_| rng.f64(-100.0, 100.0).round()).collect();
            let host = Array::from_slice(&vals, &[rows, cols])
                .unwrap()
                .astype(dt)
                .unwrap();
            let want_at = |r: usize, c: usize| vals[r * cols + c];
            let check = |v: &Array, f: &dyn Fn(usize, usize) -> f64, what: &str| {
                let got = v.copy().unwrap().astype(DType::F64).unwrap();
                let got = got.to_vec::<f64>().unwrap();
                let (vr, vc) = (v.shape()[0], v.shape()[1]);
                for r in 0..vr {
                    for c in 0..vc {
                        assert_eq!(
                            got[r * vc + c],
                            f(r, c),
                            "{dt} {rows}x{cols} {what} at ({r}, {c})"
                        );
                    }
                }
            };
            check(&host, &want_at, "whole");
            if cols > 1 {
                let tail = host.slice(&s![.., 1..]).unwrap();
                check(&tail, &|r, c| want_at(r, c + 1), "columns 1..");
                let rev = host.slice(&s![.., ..;-1]).unwrap();
                check(&rev, &|r, c| want_at(r, cols - 1 - c), "reversed");
                let rev_tail = host.slice(&s![1.., ..-1;-1]).unwrap();
                check(
                    &rev_tail,
                    &|r, c| want_at(r + 1, cols - 2 - c),
                    "reversed, cut",
                );
            }
            let col = host.slice(&s![.., 0..1]).unwrap();
            let wide = col.broadcast_to(&[rows, cols + 5]).unwrap();
            check(&wide, &|r, _| want_at(r, 0), "broadcast");
            // three dimensions: rows repeated by a broadcast outer axis
            let three = host
                .expand_dims(0)
                .unwrap()
                .broadcast_to(&[3, rows, cols])
                .unwrap();
            let got = three
                .copy()
                .unwrap()
                .astype(DType::F64)
                .unwrap()
                .to_vec::<f64>()
                .unwrap();
            for k in 0..3 {
                assert_eq!(
                    &got[k * n..(k + 1) * n],
                    &vals[..],
                    "{dt} {rows}x{cols} tiled {k}"
                );
            }
        }
    }
}
