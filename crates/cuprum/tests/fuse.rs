//! `cuprum::fuse`: tracing, planning and lowering on the host — plans (exact text for a few
//! expressions), NumPy's dtypes with weak Rust scalars, the cache (shapes and scalar values
//! never retrace), errors carrying the user's `file:line:col`, NVRTC compiles of the kernels
//! generated for the examples and for random expressions — and on the GPU: fused results
//! against the same expressions through `ops` (random expression trees over random shapes,
//! views and dtypes; exact for integers and bools, within a tolerance for floats), random
//! reductions with axes and keepdims, several outputs, scalar arguments, empty arrays, the
//! examples' functions against host references.
//!
//! GPU tests begin with `require_gpu!()`: without a GPU they print a SKIPPED line and return
//! (`CUPRUM_REQUIRE_GPU=1` makes that a failure). NVRTC tests begin with `require_nvrtc!()`.

mod common;

#[path = "../../../examples/fused/functions.rs"]
mod functions;

use common::numpy_model::V::{self, B, F, I};
use common::numpy_model::{as_c, close_v, host, int_range, magnitude, rand_signed, view_of};
use common::{Rng, coin, gpu_proptest_runner};
use cuprum::compile::{CompileOptions, compile_for_arch};
use cuprum::fuse::{ArgSpec, Fused, KernelKind, Var, fuse, where_};
use cuprum::ops::{Keepdims, ReduceOpts};
use cuprum::{Array, DType, DTypeKind, ErrorKind, ops};
use proptest::prelude::*;
use std::sync::Mutex;

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

/// Compiles every kernel of `f` for `args` with NVRTC for sm_90.
fn compiles(f: &Fused, args: &[ArgSpec]) {
    let e = f.explain_for(args).unwrap();
    for k in e.kernels() {
        compile_for_arch(&k.source, &CompileOptions::default(), 90)
            .unwrap_or_else(|err| panic!("{} does not compile: {err}\n{}", k.name, k.source));
    }
}

// =========================================================================================
// 1. Plans (no GPU)
// =========================================================================================

#[test]
fn mse_is_one_reduction_with_its_producers_in_the_loads() {
    let f = functions::mse();
    let args = vec![arr(DType::F64, &[100_000_000]); 2];
    let e = f.explain_for(&args).unwrap();
    assert_eq!(kinds(&f, &args), [KernelKind::Reduction]);
    // 1.6 GB read, 8 bytes written: the bandwidth floor of the MSE.
    assert_eq!(e.bytes(), 1_600_000_008);
    assert_eq!(e.outputs(), &[(DType::F64, vec![])]);
    let src = &e.kernels()[0].source;
    assert!(src.contains("(in0 - in1)"), "{src}");
    assert!(src.contains("(v2 * v2)"), "{src}");
    assert!(!src.contains("pow"), "{src}");
    // The count is the kernel's own (`_in_ind.size() / _out_ind.size()`), never a constant.
    assert!(src.contains("_in_ind.size() / _out_ind.size()"), "{src}");
    assert!(!src.contains("100000000"), "{src}");
}

#[test]
fn the_mse_plan_reads_as_expected() {
    let line = line!() + 1;
    let f = fuse("mse", |[a, b]| (a - b).pow(2).mean());
    let e = f
        .explain_for(&[arr(DType::F64, &[1000]), arr(DType::F64, &[1000])])
        .unwrap();
    let at = |col: u32| format!("{}:{line}:{col}", file!());
    let want = format!(
        "fused `mse` for (float64 (1000,), float64 (1000,)): 1 kernel, 16008 B moved\n\
         \x20 %0 = argument 0                     float64 (1000,)\n\
         \x20 %1 = argument 1                     float64 (1000,)\n\
         \x20 %2 = subtract(%0, %1)               float64 (1000,)        at {}\n\
         \x20 %3 = multiply(%2, %2)               float64 (1000,)        at {}\n\
         \x20 %4 = mean(%3)                       float64 ()             at {}\n\
         \x20 returns %4\n\
         kernel 0: ReductionKernel cuprum_fuse_mse_0\n\
         \x20 moves 16008 B: reads %0 (8000 B), %1 (8000 B); writes %4 (8 B)\n\
         \x20 map %2 %3; reduces %4; epilogue -\n\
         \x20 why: one pass: the element-wise producers run in the reduction's loads\n",
        at(34),
        at(42),
        at(49)
    );
    assert_eq!(e.summary(), want);
    assert!(e.to_string().starts_with(&want));
    assert!(
        e.to_string()
            .contains("---- kernel 0 source (cuprum_fuse_mse_0, contiguous operands) ----")
    );
}

#[test]
fn the_softmax_plan_reads_as_expected() {
    let line = line!() + 2;
    #[rustfmt::skip]
    let f = fuse("softmax", |[x]| { let e = (x - x.max_axis(-1, Keepdims::Yes)).exp(); e / e.sum_axis(-1, Keepdims::Yes) });
    let e = f.explain_for(&[arr(DType::F32, &[4, 1000])]).unwrap();
    let at = |col: u32| format!("{}:{line}:{col}", file!());
    let want = format!(
        "fused `softmax` for (float32 (4, 1000)): 3 kernels, 64080 B moved\n\
         \x20 %0 = argument 0                     float32 (4, 1000)\n\
         \x20 %1 = max(%0, axis (1), keepdims)    float32 (4, 1)         at {}\n\
         \x20 %2 = subtract(%0, %1)               float32 (4, 1000)      at {}\n\
         \x20 %3 = exp(%2)                        float32 (4, 1000)      at {}\n\
         \x20 %4 = sum(%3, axis (1), keepdims)    float32 (4, 1)         at {}\n\
         \x20 %5 = divide(%3, %4)                 float32 (4, 1000)      at {}\n\
         \x20 returns %5\n\
         kernel 0: ReductionKernel cuprum_fuse_softmax_0\n\
         \x20 moves 16016 B: reads %0 (16000 B); writes %1 (16 B)\n\
         \x20 map -; reduces %1; epilogue -\n\
         \x20 why: one pass: a reduction of the arrays as they are\n\
         kernel 1: ReductionKernel cuprum_fuse_softmax_1\n\
         \x20 moves 16032 B: reads %0 (16000 B), %1 (16 B); writes %4 (16 B)\n\
         \x20 map %2 %3; reduces %4; epilogue -\n\
         \x20 why: one pass: the element-wise producers run in the reduction's loads; cut before it: it reads %1 (reduced values used again on the elements they were reduced from), which the earlier kernel must finish first\n\
         kernel 2: ElementwiseKernel cuprum_fuse_softmax_2\n\
         \x20 moves 32032 B: reads %0 (16000 B), %1 (16 B), %4 (16 B); writes %5 (16000 B)\n\
         \x20 computes %2 %3 %5\n\
         \x20 why: cut after the reductions: combines reduced values with the elements they were reduced from (or with other kernels' results), which needs them complete\n",
        at(52),
        at(45),
        at(81),
        at(94),
        at(88)
    );
    assert_eq!(e.summary(), want);
}

#[test]
fn softmax_is_a_plan_of_three_kernels_cut_at_the_reduced_values() {
    let f = functions::softmax_rows();
    let args = [arr(DType::F32, &[4096, 4096])];
    assert_eq!(
        kinds(&f, &args),
        [
            KernelKind::Reduction,
            KernelKind::Reduction,
            KernelKind::Elementwise
        ]
    );
    let e = f.explain_for(&args).unwrap();
    let n = 4096u64 * 4096 * 4;
    // x is read three times and the result written once; the row maxima are written once
    // and read twice, the row sums written once and read once.
    assert_eq!(e.bytes(), 4 * n + 5 * 4096 * 4);
    let k = e.kernels();
    assert!(k[1].why.contains("cut before it"), "{}", k[1].why);
    assert!(
        k[2].why.starts_with("cut after the reductions"),
        "{}",
        k[2].why
    );
    let s = e.summary();
    assert!(s.contains("max(%0, axis (1), keepdims)"), "{s}");
    assert!(s.contains("sum(%3, axis (1), keepdims)"), "{s}");
    assert_eq!(e.outputs(), &[(DType::F32, vec![4096, 4096])]);
}

#[test]
fn sibling_reductions_share_one_pass_and_the_epilogue_runs_in_it() {
    let f = fuse("stats", |[x]| {
        (
            x.mean(),
            x.std(),
            x.abs().max(),
            (x * x).sum().sqrt(),
            x.min() * 2.0,
        )
    });
    let args = [arr(DType::F32, &[1 << 20])];
    assert_eq!(kinds(&f, &args), [KernelKind::Reduction]);
    let e = f.explain_for(&args).unwrap();
    assert_eq!(e.bytes(), (4 << 20) + 20);
    assert!(e.kernels()[0].why.contains("one pass for 5 reductions"));
    assert!(e.kernels()[0].why.contains("epilogue in its final stage"));
    assert!(
        e.kernels()[0]
            .source
            .contains("struct cuprum_fuse_stats_0_acc")
    );
    // Different axes: a kernel each.
    let g = fuse("two_axes", |[x]| {
        (x.sum_axis(0, Keepdims::No), x.sum_axis(1, Keepdims::No))
    });
    assert_eq!(
        kinds(&g, &[arr(DType::F32, &[3, 4])]),
        [KernelKind::Reduction, KernelKind::Reduction]
    );
}

#[test]
fn accumulators_over_64_bytes_split_the_pass() {
    // Two Welford triples and three sums of float64: 72 bytes.
    let h = fuse("big", |[x]| (x.var(), x.std(), x.mean(), x.sum(), x.prod()));
    let e = h.explain_for(&[arr(DType::F64, &[10])]).unwrap();
    assert_eq!(e.kernels().len(), 2);
    assert!(
        e.kernels()[1].why.contains("at most 64 bytes"),
        "{}",
        e.kernels()[1].why
    );
}

#[test]
fn a_chain_is_one_elementwise_kernel_with_its_scalars_as_parameters() {
    let chain = |a: f64, b: f64| {
        fuse("chain10", move |[x]| {
            let mut v = x;
            for _ in 0..5 {
                v = v * a + b;
            }
            v
        })
    };
    let args = [arr(DType::F32, &[100_000_000])];
    let e1 = chain(1.0001, 0.5).explain_for(&args).unwrap();
    let e2 = chain(2.5, -7.25).explain_for(&args).unwrap();
    assert_eq!(e1.kernels().len(), 1);
    assert_eq!(e1.kernels()[0].kind, KernelKind::Elementwise);
    assert_eq!(e1.bytes(), 800_000_000);
    // Values never enter the source: other scalars, the same kernel.
    assert_eq!(e1.kernels()[0].source, e2.kernels()[0].source);
    assert!(!e1.kernels()[0].source.contains("1.0001"));
    // Weak scalars: float32 stays float32.
    assert_eq!(e1.outputs()[0].0, DType::F32);
    assert!(e1.kernels()[0].source.contains("const float p1"));
}

#[test]
fn weak_scalars_and_promotion_follow_ops() {
    let out = |f: &Fused, args: &[ArgSpec]| f.explain_for(args).unwrap().outputs()[0].0;
    let f = fuse("f", |[x]| x * 2.0);
    assert_eq!(out(&f, &[arr(DType::F16, &[2])]), DType::F16);
    assert_eq!(out(&f, &[arr(DType::I32, &[2])]), DType::F64);
    let g = fuse("g", |[x, y]| x + y);
    assert_eq!(
        out(&g, &[arr(DType::I8, &[2]), arr(DType::U8, &[2])]),
        DType::I16
    );
    assert_eq!(
        out(&g, &[arr(DType::F32, &[2]), ArgSpec::scalar(DType::F64)]),
        DType::F32
    );
    assert_eq!(
        out(&g, &[arr(DType::I64, &[2]), arr(DType::U64, &[2])]),
        DType::F64
    );
    let h = fuse("h", |[x]| (x / 2, x.mean(), x.sum(), x.less(1), x.sqrt()));
    let e = h.explain_for(&[arr(DType::I16, &[3])]).unwrap();
    let d: Vec<DType> = e.outputs().iter().map(|o| o.0).collect();
    assert_eq!(
        d,
        [DType::F64, DType::F64, DType::I64, DType::Bool, DType::F32]
    );
    let b = fuse("b", |[x]| (x + x, x * 1, x.pow(2)));
    let e = b.explain_for(&[arr(DType::Bool, &[3])]).unwrap();
    let d: Vec<DType> = e.outputs().iter().map(|o| o.0).collect();
    assert_eq!(d, [DType::Bool, DType::I64, DType::I64]);
    // `where` of two scalars: their own promotion (as `ops::where_`).
    let w = fuse("w", |[c]| where_(c, 1i32, 2.5f32));
    assert_eq!(out(&w, &[arr(DType::Bool, &[2])]), DType::F64);
    let w = fuse("w", |[c]| where_(c, 1i16, 2.5f32));
    assert_eq!(out(&w, &[arr(DType::Bool, &[2])]), DType::F32);
}

#[test]
fn small_powers_become_multiplications_or_a_square_root() {
    let f = fuse("p", |[x]| (x.pow(2), x.pow(3.0), x.pow(0.5), x.pow(2.5)));
    let e = f.explain_for(&[arr(DType::F32, &[4])]).unwrap();
    let s = e.summary();
    assert!(s.contains("multiply(%0, %0)"), "{s}");
    assert!(s.contains("multiply(%1, %0)"), "{s}");
    assert!(s.contains("sqrt(%0)"), "{s}");
    assert!(s.contains("power(%0, %"), "{s}");
    let g = fuse("q", |[x]| x.pow(2));
    let e = g.explain_for(&[arr(DType::I32, &[4])]).unwrap();
    assert_eq!(e.outputs()[0].0, DType::I32);
    assert!(!e.kernels()[0].source.contains("power_signed"));
}

#[test]
fn new_shapes_and_scalar_values_reuse_the_trace() {
    let f = fuse("axpy", |[a, x, y]| a * x + y);
    for n in [1usize, 7, 1000, 1 << 20] {
        f.explain_for(&[
            ArgSpec::scalar(DType::F32),
            arr(DType::F32, &[n]),
            arr(DType::F32, &[n]),
        ])
        .unwrap();
    }
    assert_eq!(f.traces(), 1);
    f.explain_for(&[
        ArgSpec::scalar(DType::F32),
        arr(DType::F32, &[3, 3]),
        arr(DType::F32, &[3]),
    ])
    .unwrap();
    assert_eq!(
        f.traces(),
        2,
        "a new number of dimensions is a new signature"
    );
    f.explain_for(&[
        ArgSpec::scalar(DType::F64),
        arr(DType::F32, &[3]),
        arr(DType::F32, &[3]),
    ])
    .unwrap();
    assert_eq!(f.traces(), 3, "a new scalar dtype is a new signature");
}

#[test]
fn common_subexpressions_are_computed_once() {
    let f = fuse("cse", |[x, y]| {
        let d = x - y;
        let e = x - y;
        (d * e).sum() + (x - y).sum()
    });
    let e = f
        .explain_for(&[arr(DType::F64, &[5]), arr(DType::F64, &[5])])
        .unwrap();
    assert_eq!(
        e.summary().matches("subtract(").count(),
        1,
        "{}",
        e.summary()
    );
}

#[test]
fn broadcasting_shapes_follow_numpy() {
    let f = fuse("b", |[x, y]| {
        (
            x + y,
            (x * y).sum_axis(-1, Keepdims::Yes),
            x.sum_axis([0, 1], Keepdims::No),
        )
    });
    let e = f
        .explain_for(&[arr(DType::F32, &[4, 1, 3]), arr(DType::F32, &[5, 1])])
        .unwrap();
    assert_eq!(
        e.outputs(),
        &[
            (DType::F32, vec![4, 5, 3]),
            (DType::F32, vec![4, 5, 1]),
            (DType::F32, vec![3])
        ]
    );
}

#[test]
fn names_are_sanitised_into_kernel_names() {
    let f = fuse("my fused-fn", |[x]| x + 1);
    assert_eq!(f.name(), "my_fused_fn");
    let e = f.explain_for(&[arr(DType::F32, &[2])]).unwrap();
    assert_eq!(e.kernels()[0].name, "cuprum_fuse_my_fused_fn_0");
}

#[test]
fn fused_functions_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Fused>();
    check::<Var>();
    static F: std::sync::LazyLock<Fused> = std::sync::LazyLock::new(|| fuse("st", |[x]| x * 2));
    assert_eq!(F.arity(), 1);
}

// =========================================================================================
// 2. Errors, with the user's line (no GPU)
// =========================================================================================

/// The error of `f` for `args`, checked for its kind and for `file:line` of this file.
fn err_at(f: &Fused, args: &[ArgSpec], kind: ErrorKind, line: u32) -> String {
    let e = f.explain_for(args).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.kind(), kind, "{m}");
    let at = format!("{}:{line}:", file!());
    assert!(m.contains(&at), "expected {at} in: {m}");
    m
}

#[test]
fn dtype_errors_point_at_the_users_line() {
    let line = line!() + 1;
    let f = fuse("neg_bool", |[x]| {
        let y = x.less(1.0);
        -y
    });
    let m = err_at(&f, &[arr(DType::F32, &[3])], ErrorKind::DType, line + 2);
    assert!(
        m.starts_with(&format!(
            "fused `neg_bool` at {}:{}:9 (negative): boolean negative",
            file!(),
            line + 2
        )),
        "{m}"
    );
    let line = line!() + 1;
    let g = fuse("sub_bool", |[a, b]| a - b);
    let m = err_at(
        &g,
        &[arr(DType::Bool, &[3]), arr(DType::Bool, &[3])],
        ErrorKind::DType,
        line,
    );
    assert!(m.contains("(subtract): boolean subtract"), "{m}");
    let line = line!() + 1;
    let h = fuse("cclip", |[z]| z.clip(0.0, 1.0));
    let m = err_at(&h, &[arr(DType::C64, &[3])], ErrorKind::DType, line);
    assert!(
        m.ends_with("clip is not supported for complex64 operands"),
        "{m}"
    );
    // Later operations do not hide the first failure.
    let line = line!() + 1;
    let k = fuse("first", |[x]| ((x - x).exp() + x).sum());
    let m = err_at(&k, &[arr(DType::Bool, &[3])], ErrorKind::DType, line);
    assert!(m.contains("(subtract)"), "{m}");
}

#[test]
fn a_literal_out_of_range_is_a_dtype_error_at_its_line() {
    let line = line!() + 1;
    let f = fuse("u8_plus", |[x]| x + 300);
    let m = err_at(&f, &[arr(DType::U8, &[3])], ErrorKind::DType, line);
    assert!(m.contains("300"), "{m}");
    // A comparison with an out-of-range integer is a constant, as in `ops`.
    let g = fuse("u8_less", |[x]| x.less(300));
    let e = g.explain_for(&[arr(DType::U8, &[3])]).unwrap();
    assert!(e.summary().contains("constant true"), "{}", e.summary());
}

#[test]
fn broadcast_errors_point_at_the_users_line() {
    let line = line!() + 1;
    let f = fuse("bad_bcast", |[x, y]| (x * 2.0) + y);
    let m = err_at(
        &f,
        &[arr(DType::F32, &[3, 4]), arr(DType::F32, &[5])],
        ErrorKind::Shape,
        line,
    );
    assert_eq!(
        m,
        format!(
            "fused `bad_bcast` at {}:{line}:40 (add): operands could not be broadcast together with shapes (3, 4) (5,)",
            file!()
        )
    );
}

#[test]
fn axis_errors_point_at_the_users_line() {
    let line = line!() + 1;
    let f = fuse("bad_axis", |[x]| x.sum_axis(2, Keepdims::No));
    let m = err_at(&f, &[arr(DType::F32, &[3, 4])], ErrorKind::Shape, line);
    assert!(
        m.ends_with("axis 2 is out of bounds for array of dimension 2"),
        "{m}"
    );
    let line = line!() + 1;
    let g = fuse("dup_axis", |[x]| x.mean_axis([0, -2], Keepdims::No));
    let m = err_at(&g, &[arr(DType::F32, &[3, 4])], ErrorKind::Shape, line);
    assert!(m.contains("duplicate value in 'axis'"), "{m}");
}

#[test]
fn unsupported_reductions_point_at_the_users_line() {
    fn real() -> ReduceOpts<'static> {
        ReduceOpts::new().dtype(DType::F64)
    }
    let line = line!() + 1;
    let f = fuse("cvar", |[z]| z.var_with(real()));
    let m = err_at(&f, &[arr(DType::C128, &[3])], ErrorKind::Unsupported, line);
    assert!(
        m.contains("var of complex128 values with dtype=float64"),
        "{m}"
    );
    let line = line!() + 1;
    let g = fuse("scalar_sum", |[x, s]| x + (s * 2.0).sum());
    let m = err_at(
        &g,
        &[arr(DType::F32, &[3]), ArgSpec::scalar(DType::F64)],
        ErrorKind::Unsupported,
        line,
    );
    assert!(m.contains("(sum)"), "{m}");
}

#[test]
fn an_empty_max_is_an_error_at_its_line_and_an_empty_sum_is_not() {
    let line = line!() + 1;
    let f = fuse("empty_max", |[x]| (x + 1.0).max());
    let m = err_at(
        &f,
        &[arr(DType::F32, &[0])],
        ErrorKind::InvalidArgument,
        line,
    );
    assert!(
        m.ends_with("zero-size array to reduction operation maximum which has no identity"),
        "{m}"
    );
    // Over an axis with outputs of size 0 there is nothing to reduce: no error.
    let g = fuse("empty_rows", |[x]| x.max_axis(1, Keepdims::No));
    let e = g.explain_for(&[arr(DType::F32, &[0, 3])]).unwrap();
    assert_eq!(e.outputs()[0].1, vec![0]);
    let h = fuse("empty_sum", |[x]| (x.sum(), x.mean()));
    assert!(h.explain_for(&[arr(DType::F32, &[0])]).is_ok());
}

#[test]
fn wrong_argument_counts_are_errors() {
    let f = fuse("two", |[a, b]| a + b);
    let e = f.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("fused `two` (at crates/cuprum/tests/fuse.rs:"),
        "{e}"
    );
    assert!(
        e.to_string()
            .ends_with("takes 2 arguments (one per traced value of its closure), got 1"),
        "{e}"
    );
    let g = fuse("none", |[_x]| Vec::<Var>::new());
    let e = g.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert!(e.to_string().contains("returns no values"), "{e}");
}

#[test]
fn reducing_a_value_of_scalars_only_is_refused_even_made_strong() {
    // `astype` makes a scalar's value strong (0-d, as an array would be): it still reads no
    // array, so a reduction of it is refused at the user's line, as for a weak one.
    let line = line!() + 1;
    let f = fuse("strong", |[x, s]| (x + 1.0, s.astype(DType::F64).sum()));
    let m = err_at(
        &f,
        &[arr(DType::F32, &[3]), ArgSpec::scalar(DType::F64)],
        ErrorKind::Unsupported,
        line,
    );
    assert!(
        m.ends_with("sum reduces arrays, and this value is computed from scalars only"),
        "{m}"
    );
    // A 0-d array argument made strong is an array: its reduction is fine.
    let g = fuse("zero_d", |[x]| x.astype(DType::F64).sum());
    g.explain_for(&[arr(DType::F32, &[])]).unwrap();
}

#[test]
fn a_var_from_another_trace_is_an_error_not_a_panic() {
    static KEPT: Mutex<Option<Var>> = Mutex::new(None);
    let f = fuse("keeper", |[x]| {
        *KEPT.lock().unwrap() = Some(x);
        x + 1
    });
    f.explain_for(&[arr(DType::F32, &[3])]).unwrap();
    let line = line!() + 1;
    let g = fuse("user", |[y]| y + KEPT.lock().unwrap().unwrap());
    let m = err_at(
        &g,
        &[arr(DType::F32, &[3])],
        ErrorKind::InvalidArgument,
        line,
    );
    assert!(m.contains("not part of this trace"), "{m}");
    let h = fuse("returns_foreign", |[_y]| KEPT.lock().unwrap().unwrap());
    let e = h.explain_for(&[arr(DType::F32, &[3])]).unwrap_err();
    assert!(e.to_string().contains("was not traced by this call"), "{e}");
    // A Var used outside any trace records nothing and does not panic.
    let v = KEPT.lock().unwrap().unwrap();
    let _ = (v + 1.0).sqrt().sum();
}

#[test]
fn a_panicking_closure_leaves_the_tracer_stack_clean() {
    let f = fuse("panics", |[x]| -> Var {
        if x == x {
            panic!("user panic");
        }
        x
    });
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        f.explain_for(&[arr(DType::F32, &[3])])
    }));
    assert!(r.is_err());
    // The next trace on this thread works.
    let g = fuse("after", |[x]| x + 1);
    assert!(g.explain_for(&[arr(DType::F32, &[3])]).is_ok());
}

// =========================================================================================
// 3. NVRTC: the examples' kernels and random expressions compile (no GPU)
// =========================================================================================

#[test]
fn the_examples_kernels_compile_for_sm90() {
    require_nvrtc!();
    let all = functions::all_with_args();
    assert_eq!(all.len(), 5);
    for (f, args) in &all {
        compiles(f, args);
    }
}

#[test]
fn kernels_of_every_kind_compile_for_sm90() {
    require_nvrtc!();
    let cases: Vec<(Fused, Vec<ArgSpec>)> = vec![
        (
            fuse("stats", |[x]| {
                (
                    x.mean(),
                    x.std(),
                    x.abs().max(),
                    x.min(),
                    x.prod(),
                    x.all(),
                    x.any(),
                    x.var_axis(0, Keepdims::No),
                )
            }),
            vec![arr(DType::F16, &[4, 100])],
        ),
        (
            fuse("ints", |[x, y]| {
                (
                    (x % y).max_axis(-1, Keepdims::Yes),
                    x.pow(y),
                    (x / 3).sum(),
                    x.pow(3).min(),
                    -x,
                    x.abs(),
                )
            }),
            vec![arr(DType::I8, &[4, 5]), arr(DType::U16, &[5])],
        ),
        (
            fuse("cplx", |[z, w]| {
                (
                    (z * w).sum(),
                    z.less_equal(w),
                    (z / w).exp().mean(),
                    z.abs().max(),
                    z.pow(0.5),
                )
            }),
            vec![arr(DType::C64, &[7]), arr(DType::C128, &[7])],
        ),
        (
            fuse("mixed", |[c, x, s]| {
                where_(c, x.clip(-1.0, s), s).astype(DType::BF16).tanh()
            }),
            vec![
                arr(DType::U8, &[3, 1]),
                arr(DType::F32, &[3, 4]),
                ArgSpec::scalar(DType::F64),
            ],
        ),
        (
            fuse("center", |[x]| {
                let m = x.mean_axis(0, Keepdims::Yes);
                let d = x - m;
                (d / (d * d).mean_axis(0, Keepdims::Yes).sqrt(), m)
            }),
            vec![arr(DType::F64, &[100, 3])],
        ),
        (
            fuse("scalars_only", |[s]| (s * 2.0 + 1.0, s.less(3))),
            vec![ArgSpec::scalar(DType::I32)],
        ),
    ];
    for (f, args) in &cases {
        compiles(f, args);
    }
}

/// A random expression tree over the arguments: what both `ops` and `fuse` evaluate.
#[derive(Debug, Clone)]
enum E {
    Arg(usize),
    Un(Un, Box<E>),
    /// `op(lhs, rhs)`; a literal on either side.
    Bin(Bin, Box<E>, Operand),
    BinL(Bin, Lit, Box<E>),
    Where(Box<E>, Operand, Operand),
    Clip(Box<E>, Lit, Lit),
    Pow(Box<E>, Lit),
    Cast(DType, Box<E>),
}

#[derive(Debug, Clone)]
enum Operand {
    E(Box<E>),
    L(Lit),
}

#[derive(Debug, Clone, Copy)]
enum Lit {
    I(i32),
    F(f64),
    B(bool),
}

#[derive(Debug, Clone, Copy)]
enum Un {
    Neg,
    Pos,
    Abs,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Floor,
    Rint,
    Sign,
    Square,
    Log1p,
    Arctan,
    IsNan,
    LogicalNot,
    Invert,
    Real,
    Angle,
    AngleDeg,
}

#[derive(Debug, Clone, Copy)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Max,
    Min,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    FloorDiv,
    Fmod,
    Hypot,
    Arctan2,
    LogicalAnd,
    BitAnd,
    Shl,
}

/// A reduction at the end: kind, axes (`None`: all), keepdims, and an epilogue.
#[derive(Debug, Clone)]
struct Red {
    kind: RedKind,
    axes: Option<Vec<isize>>,
    keepdims: bool,
    /// Multiply the reduced value by 2 afterwards.
    twice: bool,
}

/// The reduction's keepdims as the API spells it.
fn keep(keepdims: bool) -> Keepdims {
    if keepdims {
        Keepdims::Yes
    } else {
        Keepdims::No
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RedKind {
    Sum,
    Prod,
    Mean,
    Max,
    Min,
    Var,
    Std,
    All,
    Any,
}

/// Operations with a literal on the left (all but `power` and the asymmetric methods).
const LEFT_BINS: [Bin; 17] = [
    Bin::Add,
    Bin::Sub,
    Bin::Mul,
    Bin::Div,
    Bin::Rem,
    Bin::Max,
    Bin::Min,
    Bin::Eq,
    Bin::Ne,
    Bin::Lt,
    Bin::Le,
    Bin::Gt,
    Bin::Ge,
    Bin::Hypot,
    Bin::LogicalAnd,
    Bin::BitAnd,
    Bin::Shl,
];

fn lit() -> impl Strategy<Value = Lit> {
    prop_oneof![
        3 => (-3i32..8).prop_map(Lit::I),
        3 => prop::sample::select(vec![0.5f64, -1.25, 2.0, 3.0, 0.75, 1.5]).prop_map(Lit::F),
        1 => any::<bool>().prop_map(Lit::B),
    ]
}

fn expr(nargs: usize) -> impl Strategy<Value = E> {
    let leaf = (0..nargs).prop_map(E::Arg);
    leaf.prop_recursive(3, 12, 3, |inner| {
        let un = prop::sample::select(vec![
            Un::Neg,
            Un::Pos,
            Un::Abs,
            Un::Sqrt,
            Un::Exp,
            Un::Log,
            Un::Sin,
            Un::Cos,
            Un::Tan,
            Un::Tanh,
            Un::Floor,
            Un::Rint,
            Un::Sign,
            Un::Square,
            Un::Log1p,
            Un::Arctan,
            Un::IsNan,
            Un::LogicalNot,
            Un::Invert,
            Un::Real,
            Un::Angle,
            Un::AngleDeg,
        ]);
        let bin = prop::sample::select(vec![
            Bin::Add,
            Bin::Sub,
            Bin::Mul,
            Bin::Div,
            Bin::Rem,
            Bin::Pow,
            Bin::Max,
            Bin::Min,
            Bin::Eq,
            Bin::Ne,
            Bin::Lt,
            Bin::Le,
            Bin::Gt,
            Bin::Ge,
            Bin::FloorDiv,
            Bin::Fmod,
            Bin::Hypot,
            Bin::Arctan2,
            Bin::LogicalAnd,
            Bin::BitAnd,
            Bin::Shl,
        ]);
        let operand = prop_oneof![
            inner.clone().prop_map(|e| Operand::E(Box::new(e))),
            lit().prop_map(Operand::L),
        ];
        let dtype = prop::sample::select(vec![
            DType::Bool,
            DType::I8,
            DType::I32,
            DType::U16,
            DType::F16,
            DType::F32,
            DType::F64,
        ]);
        prop_oneof![
            3 => (un, inner.clone()).prop_map(|(u, e)| E::Un(u, Box::new(e))),
            5 => (bin.clone(), inner.clone(), operand.clone())
                .prop_map(|(b, e, o)| E::Bin(b, Box::new(e), o)),
            1 => (prop::sample::select(LEFT_BINS.to_vec()), lit(), inner.clone())
                .prop_map(|(b, l, e)| E::BinL(b, l, Box::new(e))),
            1 => (inner.clone(), operand.clone(), operand)
                .prop_map(|(c, x, y)| E::Where(Box::new(c), x, y)),
            1 => (inner.clone(), lit(), lit()).prop_map(|(e, a, b)| E::Clip(Box::new(e), a, b)),
            1 => (inner.clone(), prop::sample::select(vec![Lit::I(2), Lit::I(3), Lit::F(0.5), Lit::F(2.0), Lit::I(-1)]))
                .prop_map(|(e, l)| E::Pow(Box::new(e), l)),
            1 => (dtype, inner).prop_map(|(d, e)| E::Cast(d, Box::new(e))),
        ]
    })
}

fn red() -> impl Strategy<Value = Option<Red>> {
    let kind = prop::sample::select(vec![
        RedKind::Sum,
        RedKind::Prod,
        RedKind::Mean,
        RedKind::Max,
        RedKind::Min,
        RedKind::Var,
        RedKind::Std,
        RedKind::All,
        RedKind::Any,
    ]);
    prop_oneof![
        2 => Just(None),
        3 => (kind, prop::option::of(prop::collection::vec(any::<bool>(), 3)), any::<bool>(), any::<bool>())
            .prop_map(|(kind, pick, keepdims, twice)| Some(Red {
                kind,
                // Axes are picked among the result's later (we know its ndim only then).
                axes: pick.map(|p| p.iter().enumerate().filter(|(_, b)| **b).map(|(k, _)| k as isize).collect()),
                keepdims,
                twice,
            })),
    ]
}

impl Lit {
    fn scalar(self) -> cuprum::Scalar {
        match self {
            Lit::I(i) => i.into(),
            Lit::F(f) => f.into(),
            Lit::B(b) => b.into(),
        }
    }
}

macro_rules! lit_dispatch {
    ($l:expr, $v:ident => $body:expr) => {
        match $l {
            Lit::I($v) => $body,
            Lit::F($v) => $body,
            Lit::B($v) => $body,
        }
    };
}

// ---- the tree through `ops` ----

fn un_ops(u: Un, a: &Array) -> cuprum::Result<Array> {
    match u {
        Un::Neg => ops::negative(a),
        Un::Pos => ops::positive(a),
        Un::Abs => ops::abs(a),
        Un::Sqrt => ops::sqrt(a),
        Un::Exp => ops::exp(a),
        Un::Log => ops::log(a),
        Un::Sin => ops::sin(a),
        Un::Cos => ops::cos(a),
        Un::Tan => ops::tan(a),
        Un::Tanh => ops::tanh(a),
        Un::Floor => ops::floor(a),
        Un::Rint => ops::rint(a),
        Un::Sign => ops::sign(a),
        Un::Square => ops::square(a),
        Un::Log1p => ops::log1p(a),
        Un::Arctan => ops::arctan(a),
        Un::IsNan => ops::isnan(a),
        Un::LogicalNot => ops::logical_not(a),
        Un::Invert => ops::invert(a),
        Un::Real => ops::real(a),
        Un::Angle => ops::angle(a),
        Un::AngleDeg => ops::angle_deg(a),
    }
}

fn bin_ops(
    b: Bin,
    x: impl cuprum::kernel::IntoOperand,
    y: impl cuprum::kernel::IntoOperand,
) -> cuprum::Result<Array> {
    match b {
        Bin::Add => ops::add(x, y),
        Bin::Sub => ops::subtract(x, y),
        Bin::Mul => ops::multiply(x, y),
        Bin::Div => ops::divide(x, y),
        Bin::Rem => ops::remainder(x, y),
        Bin::Pow => ops::power(x, y),
        Bin::Max => ops::maximum(x, y),
        Bin::Min => ops::minimum(x, y),
        Bin::Eq => ops::equal(x, y),
        Bin::Ne => ops::not_equal(x, y),
        Bin::Lt => ops::less(x, y),
        Bin::Le => ops::less_equal(x, y),
        Bin::Gt => ops::greater(x, y),
        Bin::Ge => ops::greater_equal(x, y),
        Bin::FloorDiv => ops::floor_divide(x, y),
        Bin::Fmod => ops::fmod(x, y),
        Bin::Hypot => ops::hypot(x, y),
        Bin::Arctan2 => ops::arctan2(x, y),
        Bin::LogicalAnd => ops::logical_and(x, y),
        Bin::BitAnd => ops::bitwise_and(x, y),
        Bin::Shl => ops::left_shift(x, y),
    }
}

fn eval_ops(e: &E, args: &[Array]) -> cuprum::Result<Array> {
    Ok(match e {
        E::Arg(i) => args[*i].clone(),
        E::Un(u, a) => un_ops(*u, &eval_ops(a, args)?)?,
        E::Bin(b, a, Operand::E(c)) => bin_ops(*b, &eval_ops(a, args)?, &eval_ops(c, args)?)?,
        E::Bin(b, a, Operand::L(l)) => bin_ops(*b, &eval_ops(a, args)?, l.scalar())?,
        E::BinL(b, l, a) => bin_ops(*b, l.scalar(), &eval_ops(a, args)?)?,
        E::Where(c, x, y) => {
            let c = eval_ops(c, args)?;
            match (x, y) {
                (Operand::E(x), Operand::E(y)) => {
                    ops::where_(&c, &eval_ops(x, args)?, &eval_ops(y, args)?)?
                }
                (Operand::E(x), Operand::L(l)) => ops::where_(&c, &eval_ops(x, args)?, l.scalar())?,
                (Operand::L(l), Operand::E(y)) => ops::where_(&c, l.scalar(), &eval_ops(y, args)?)?,
                (Operand::L(p), Operand::L(q)) => ops::where_(&c, p.scalar(), q.scalar())?,
            }
        }
        E::Clip(a, lo, hi) => ops::clip(&eval_ops(a, args)?, lo.scalar(), hi.scalar())?,
        E::Pow(a, l) => ops::power(&eval_ops(a, args)?, l.scalar())?,
        E::Cast(d, a) => eval_ops(a, args)?.astype(*d)?,
    })
}

fn axes_for(r: &Red, ndim: usize) -> Option<Vec<isize>> {
    r.axes
        .as_ref()
        .map(|a| {
            a.iter()
                .copied()
                .filter(|&k| (k as usize) < ndim)
                .collect::<Vec<_>>()
        })
        .filter(|a| !a.is_empty())
}

fn red_ops(r: &Red, a: &Array) -> cuprum::Result<Array> {
    let out = match axes_for(r, a.ndim()) {
        None => {
            let full = match r.kind {
                RedKind::Sum => ops::sum(a),
                RedKind::Prod => ops::prod(a),
                RedKind::Mean => ops::mean(a),
                RedKind::Max => ops::max(a),
                RedKind::Min => ops::min(a),
                RedKind::Var => ops::var(a),
                RedKind::Std => ops::std(a),
                RedKind::All => ops::all(a),
                RedKind::Any => ops::any(a),
            }?;
            if r.keepdims {
                full.reshape(&vec![1isize; a.ndim()])?
            } else {
                full
            }
        }
        Some(ax) => {
            let (ax, k) = (ax.as_slice(), keep(r.keepdims));
            match r.kind {
                RedKind::Sum => ops::sum_axis(a, ax, k),
                RedKind::Prod => ops::prod_axis(a, ax, k),
                RedKind::Mean => ops::mean_axis(a, ax, k),
                RedKind::Max => ops::max_axis(a, ax, k),
                RedKind::Min => ops::min_axis(a, ax, k),
                RedKind::Var => ops::var_axis(a, ax, k),
                RedKind::Std => ops::std_axis(a, ax, k),
                RedKind::All => ops::all_axis(a, ax, k),
                RedKind::Any => ops::any_axis(a, ax, k),
            }?
        }
    };
    if r.twice {
        ops::multiply(&out, 2i32)
    } else {
        Ok(out)
    }
}

// ---- the same tree traced ----

fn un_fuse(u: Un, a: Var) -> Var {
    match u {
        Un::Neg => -a,
        Un::Pos => a.positive(),
        Un::Abs => a.abs(),
        Un::Sqrt => a.sqrt(),
        Un::Exp => a.exp(),
        Un::Log => a.log(),
        Un::Sin => a.sin(),
        Un::Cos => a.cos(),
        Un::Tan => a.tan(),
        Un::Tanh => a.tanh(),
        Un::Floor => a.floor(),
        Un::Rint => a.rint(),
        Un::Sign => a.sign(),
        Un::Square => a.square(),
        Un::Log1p => a.log1p(),
        Un::Arctan => a.arctan(),
        Un::IsNan => a.isnan(),
        Un::LogicalNot => a.logical_not(),
        Un::Invert => !a,
        Un::Real => a.real(),
        Un::Angle => a.angle(),
        Un::AngleDeg => a.angle_deg(),
    }
}

fn bin_fuse(b: Bin, x: Var, y: impl cuprum::fuse::IntoVar) -> Var {
    match b {
        Bin::Add => x + y,
        Bin::Sub => x - y,
        Bin::Mul => x * y,
        Bin::Div => x / y,
        Bin::Rem => x % y,
        Bin::Pow => x.pow(y),
        Bin::Max => x.maximum(y),
        Bin::Min => x.minimum(y),
        Bin::Eq => x.equal(y),
        Bin::Ne => x.not_equal(y),
        Bin::Lt => x.less(y),
        Bin::Le => x.less_equal(y),
        Bin::Gt => x.greater(y),
        Bin::Ge => x.greater_equal(y),
        Bin::FloorDiv => x.floor_divide(y),
        Bin::Fmod => x.fmod(y),
        Bin::Hypot => x.hypot(y),
        Bin::Arctan2 => x.arctan2(y),
        Bin::LogicalAnd => x.logical_and(y),
        Bin::BitAnd => x & y,
        Bin::Shl => x << y,
    }
}

/// `l op x` with the literal on the left (operators, or methods swapped with care).
fn bin_fuse_left(b: Bin, l: Lit, x: Var) -> Var {
    lit_dispatch!(l, v => match b {
        Bin::Add => v + x,
        Bin::Sub => v - x,
        Bin::Mul => v * x,
        Bin::Div => v / x,
        Bin::Rem => v % x,
        // Methods have the Var first: flip what is symmetric, mirror the comparisons.
        Bin::Max => x.maximum(v),
        Bin::Min => x.minimum(v),
        Bin::Eq => x.equal(v),
        Bin::Ne => x.not_equal(v),
        Bin::Lt => x.greater(v),
        Bin::Le => x.greater_equal(v),
        Bin::Gt => x.less(v),
        Bin::Ge => x.less_equal(v),
        Bin::Hypot => x.hypot(v),
        Bin::LogicalAnd => x.logical_and(v),
        Bin::BitAnd => v & x,
        Bin::Shl => v << x,
        // Never generated: not in `LEFT_BINS`.
        Bin::FloorDiv | Bin::Fmod | Bin::Arctan2 => x,
        // Never generated: `BinL` picks from `LEFT_BINS` (a Var has no `lit.pow(var)`).
        Bin::Pow => x,
    })
}

fn eval_fuse(e: &E, args: &[Var]) -> Var {
    match e {
        E::Arg(i) => args[*i],
        E::Un(u, a) => un_fuse(*u, eval_fuse(a, args)),
        E::Bin(b, a, Operand::E(c)) => bin_fuse(*b, eval_fuse(a, args), eval_fuse(c, args)),
        E::Bin(b, a, Operand::L(l)) => {
            let x = eval_fuse(a, args);
            lit_dispatch!(*l, v => bin_fuse(*b, x, v))
        }
        E::BinL(b, l, a) => bin_fuse_left(*b, *l, eval_fuse(a, args)),
        E::Where(c, x, y) => {
            let c = eval_fuse(c, args);
            match (x, y) {
                (Operand::E(x), Operand::E(y)) => where_(c, eval_fuse(x, args), eval_fuse(y, args)),
                (Operand::E(x), Operand::L(l)) => {
                    let x = eval_fuse(x, args);
                    lit_dispatch!(*l, v => where_(c, x, v))
                }
                (Operand::L(l), Operand::E(y)) => {
                    let y = eval_fuse(y, args);
                    lit_dispatch!(*l, v => where_(c, v, y))
                }
                (Operand::L(p), Operand::L(q)) => {
                    lit_dispatch!(*p, a => lit_dispatch!(*q, b => where_(c, a, b)))
                }
            }
        }
        E::Clip(a, lo, hi) => {
            let x = eval_fuse(a, args);
            lit_dispatch!(*lo, p => lit_dispatch!(*hi, q => x.clip(p, q)))
        }
        E::Pow(a, l) => {
            let x = eval_fuse(a, args);
            lit_dispatch!(*l, v => x.pow(v))
        }
        E::Cast(d, a) => eval_fuse(a, args).astype(*d),
    }
}

fn red_fuse(r: &Red, x: Var, ndim: usize) -> Var {
    let v = match axes_for(r, ndim) {
        None => {
            if r.keepdims {
                let all: Vec<isize> = (0..ndim as isize).collect();
                red_fuse_axis(r.kind, x, all, Keepdims::Yes)
            } else {
                match r.kind {
                    RedKind::Sum => x.sum(),
                    RedKind::Prod => x.prod(),
                    RedKind::Mean => x.mean(),
                    RedKind::Max => x.max(),
                    RedKind::Min => x.min(),
                    RedKind::Var => x.var(),
                    RedKind::Std => x.std(),
                    RedKind::All => x.all(),
                    RedKind::Any => x.any(),
                }
            }
        }
        Some(ax) => red_fuse_axis(r.kind, x, ax, keep(r.keepdims)),
    };
    if r.twice { v * 2i32 } else { v }
}

fn red_fuse_axis(k: RedKind, x: Var, ax: Vec<isize>, keep: Keepdims) -> Var {
    match k {
        RedKind::Sum => x.sum_axis(ax, keep),
        RedKind::Prod => x.prod_axis(ax, keep),
        RedKind::Mean => x.mean_axis(ax, keep),
        RedKind::Max => x.max_axis(ax, keep),
        RedKind::Min => x.min_axis(ax, keep),
        RedKind::Var => x.var_axis(ax, keep),
        RedKind::Std => x.std_axis(ax, keep),
        RedKind::All => x.all_axis(ax, keep),
        RedKind::Any => x.any_axis(ax, keep),
    }
}

/// Arguments: dtypes from this list.
const ARG_DTYPES: [DType; 7] = [
    DType::Bool,
    DType::I8,
    DType::I32,
    DType::U8,
    DType::F16,
    DType::F32,
    DType::F64,
];

/// A random full shape (0 to 3 dimensions) and, per argument, its own shape (a suffix of
/// the full shape with some extents 1), dtype and view kind.
#[derive(Debug, Clone)]
struct ArgsCase {
    full: Vec<usize>,
    args: Vec<(Vec<usize>, DType, ViewKind)>,
    seed: u64,
}

#[derive(Debug, Clone, Copy)]
enum ViewKind {
    Contiguous,
    Reversed,
    Stepped,
    Transposed,
}

fn args_case(nargs: usize) -> impl Strategy<Value = ArgsCase> {
    let full = prop::collection::vec(prop::sample::select(vec![1usize, 2, 3, 5, 8, 33]), 0..=3);
    let one = (
        0usize..3,
        prop::collection::vec(prop::bool::weighted(0.25), 3),
        prop::sample::select(ARG_DTYPES.to_vec()),
        prop::sample::select(vec![
            ViewKind::Contiguous,
            ViewKind::Contiguous,
            ViewKind::Reversed,
            ViewKind::Stepped,
            ViewKind::Transposed,
        ]),
    );
    (full, prop::collection::vec(one, nargs), any::<u64>()).prop_map(|(full, specs, seed)| {
        let args = specs
            .into_iter()
            .map(|(drop, ones, d, view)| {
                let drop = drop.min(full.len());
                let own: Vec<usize> = full[drop..]
                    .iter()
                    .enumerate()
                    .map(|(k, &e)| if ones[k] { 1 } else { e })
                    .collect();
                (own, d, view)
            })
            .collect();
        ArgsCase { full, args, seed }
    })
}

/// A random non-zero value of `d` (integers small enough that products stay readable).
fn rand_val(rng: &mut Rng, d: DType) -> V {
    match d.kind() {
        DTypeKind::Bool => B(coin(rng)),
        DTypeKind::SignedInt | DTypeKind::UnsignedInt => {
            let (lo, hi) = int_range(d);
            let (lo, hi) = (lo.max(-100), hi.min(100));
            let v = lo + (rng.next_u64() % (hi - lo + 1) as u64) as i128;
            I(if v == 0 { 1 } else { v })
        }
        DTypeKind::Record => unreachable!("the record dtype is not numeric"),
        DTypeKind::Float | DTypeKind::Complex => rand_signed(rng, d, 0.25, 4.0),
    }
}

/// A device array of `shape` and dtype `d` with random values, built as the view kind says
/// (a reversed or stepped slice of a larger base, or the transpose of a base), and its
/// values in C order.
fn make_arg(rng: &mut Rng, shape: &[usize], d: DType, view: ViewKind) -> (Array, Vec<V>) {
    let n: usize = shape.iter().product();
    let vals: Vec<V> = (0..n).map(|_| rand_val(rng, d)).collect();
    let kind = match view {
        ViewKind::Contiguous => 0,
        ViewKind::Reversed => 1,
        ViewKind::Stepped => 2,
        ViewKind::Transposed => 3,
    };
    let a = view_of(&vals, shape, d, kind);
    assert_eq!(a.shape(), shape);
    (a, vals)
}

/// Relative tolerance of dtype `d` (0 for exact dtypes).
fn rel_tol(d: DType) -> f64 {
    match d {
        DType::F16 | DType::BF16 => 2e-2,
        DType::F32 | DType::C64 => 1e-4,
        DType::F64 | DType::C128 => 1e-9,
        _ => 0.0,
    }
}

/// Compares a fused result with `ops`' for the same expression: same dtype and shape, the
/// same values (within `rel_tol × (1 + |want| + scale)` for floats).
fn same_result(got: &Array, want: &Array, scale: f64, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.dtype(), want.dtype(), "{}", what);
    prop_assert_eq!(got.shape(), want.shape(), "{}", what);
    let (g, w) = (host(got), host(want));
    let tol = rel_tol(want.dtype());
    for (k, (&gv, &wv)) in g.iter().zip(&w).enumerate() {
        let t = tol * (1.0 + magnitude(wv) + scale);
        prop_assert!(
            close_v(gv, wv, t),
            "{}: element {} is {:?}, ops gives {:?} (tolerance {})",
            what,
            k,
            gv,
            wv,
            t
        );
    }
    Ok(())
}

/// A bound of the magnitudes a reduction of `pre` adds up (for its tolerance).
fn reduction_scale(kind: RedKind, pre: &Array) -> f64 {
    let v = host(pre);
    let abs: Vec<f64> = v
        .iter()
        .map(|&x| {
            let (re, im) = as_c(match x {
                B(b) => F(f64::from(u8::from(b))),
                I(i) => F(i as f64),
                other => other,
            });
            re.hypot(im)
        })
        .filter(|m| m.is_finite())
        .collect();
    match kind {
        RedKind::Sum | RedKind::Mean => abs.iter().sum(),
        RedKind::Var | RedKind::Std => abs.iter().map(|m| m * m).sum::<f64>() + 1.0,
        _ => 0.0,
    }
}

#[test]
fn random_expressions_trace_lower_and_compile() {
    require_nvrtc!();
    let strategy = (1usize..=3).prop_flat_map(|n| (expr(n), args_case(n), red()));
    let mut runner = gpu_proptest_runner(24);
    let result = runner.run(&strategy, |(e, case, r)| {
        let tree = e.clone();
        let rr = r.clone();
        let full_nd = case.full.len();
        let f = fuse("random", move |vars: [Var; 3]| {
            let v = eval_fuse(&tree, &vars);
            match &rr {
                Some(r) => red_fuse(r, v, full_nd),
                None => v,
            }
        });
        // Three argument slots; unused ones are float32 scalars.
        let mut args: Vec<ArgSpec> = case
            .args
            .iter()
            .map(|(s, d, _)| ArgSpec::array(*d, s))
            .collect();
        while args.len() < 3 {
            args.push(ArgSpec::scalar(DType::F32));
        }
        match f.explain_for(&args) {
            Ok(ex) => {
                for k in ex.kernels() {
                    if let Err(err) = compile_for_arch(&k.source, &CompileOptions::default(), 90) {
                        return Err(TestCaseError::fail(format!(
                            "{} does not compile for {e:?}: {err}\n{}",
                            k.name, k.source
                        )));
                    }
                }
            }
            Err(err) => {
                let m = err.to_string();
                prop_assert!(
                    m.starts_with("fused `random` at ") && m.contains("fuse.rs:"),
                    "an error without the user's line: {}",
                    m
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// =========================================================================================
// 4. GPU: fused against `ops`
// =========================================================================================

#[test]
fn random_expressions_match_ops() {
    require_gpu!();
    let strategy = (1usize..=3).prop_flat_map(|n| (expr(n), args_case(n), red()));
    let mut runner = gpu_proptest_runner(48);
    let result = runner.run(&strategy, |(e, case, r)| {
        let mut rng = Rng::new(case.seed);
        let arrays: Vec<Array> = case
            .args
            .iter()
            .map(|(s, d, v)| make_arg(&mut rng, s, *d, *v).0)
            .collect();
        let n = arrays.len();
        let want_pre = eval_ops(&e, &arrays);
        // Long products over- or underflow at points that depend on the order: sum instead.
        let r = r.map(|mut r| {
            if let (RedKind::Prod, Ok(pre)) = (r.kind, &want_pre) {
                let count: usize = match axes_for(&r, pre.ndim()) {
                    None => pre.size(),
                    Some(ax) => ax.iter().map(|&k| pre.shape()[k as usize]).product(),
                };
                if count > 12 {
                    r.kind = RedKind::Sum;
                }
            }
            r
        });
        let want = match (&want_pre, &r) {
            (Ok(a), Some(r)) => red_ops(r, a),
            (Ok(a), None) => Ok(a.clone()),
            (Err(err), _) => Err(err.clone()),
        };
        let tree = e.clone();
        let rr = r.clone();
        let nd = want_pre.as_ref().map_or(0, |a| a.ndim());
        // `-fmad=false`: element-wise float results equal `ops`' (no contraction).
        let f = fuse("random", move |vars: [Var; 3]| {
            let v = eval_fuse(&tree, &vars[..n.max(1)]);
            match &rr {
                Some(r) => red_fuse(r, v, nd),
                None => v,
            }
        })
        .option("-fmad=false");
        let mut ops_args: Vec<cuprum::kernel::Operand<'_>> =
            arrays.iter().map(cuprum::kernel::Operand::Array).collect();
        while ops_args.len() < 3 {
            ops_args.push(cuprum::kernel::Operand::Scalar(0.0f32.into()));
        }
        let got = f.call(ops_args.clone());
        let what = format!("{e:?} reduced by {r:?} over {case:?}");
        match (got, want) {
            (Ok(g), Ok(w)) => {
                let scale = match (&r, &want_pre) {
                    (Some(r), Ok(pre)) => reduction_scale(r.kind, pre),
                    _ => 0.0,
                };
                same_result(&g, &w, scale, &what)?;
                // A repeat call reuses the trace.
                let again = f
                    .call(ops_args)
                    .map_err(|e| TestCaseError::fail(format!("{what}: repeat call: {e}")))?;
                // Bit for bit (Debug keeps NaN == NaN and tells -0.0 from 0.0).
                prop_assert_eq!(
                    format!("{:?}", host(&again)),
                    format!("{:?}", host(&g)),
                    "{}",
                    what
                );
                prop_assert_eq!(f.traces(), 1, "{}", what);
            }
            (Err(ge), Err(we)) => {
                prop_assert_eq!(ge.kind(), we.kind(), "{}: fused {} / ops {}", what, ge, we);
            }
            (Ok(g), Err(we)) => {
                return Err(TestCaseError::fail(format!(
                    "{what}: ops fails ({we}) but fused gives {:?} of {:?}",
                    g.dtype(),
                    g.shape()
                )));
            }
            (Err(ge), Ok(_)) => {
                return Err(TestCaseError::fail(format!(
                    "{what}: fused fails ({ge}) but ops does not"
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn reductions_over_random_axes_with_keepdims_match_ops() {
    require_gpu!();
    let strategy = (
        prop::collection::vec(prop::sample::select(vec![1usize, 2, 3, 7, 64, 300]), 1..=4)
            .prop_filter("at most 2e5 elements", |s| {
                s.iter().product::<usize>() <= 200_000
            }),
        prop::collection::vec(any::<bool>(), 4),
        any::<bool>(),
        prop::sample::select(vec![DType::F32, DType::F64, DType::I32, DType::F16]),
        any::<u64>(),
    );
    let mut runner = gpu_proptest_runner(24);
    let result = runner.run(&strategy, |(shape, pick, keepdims, d, seed)| {
        let keep = keep(keepdims);
        let mut rng = Rng::new(seed);
        let (x, _) = make_arg(&mut rng, &shape, d, ViewKind::Transposed);
        let (y, _) = make_arg(&mut rng, &shape[shape.len() - 1..], d, ViewKind::Contiguous);
        let axes: Vec<isize> = (0..shape.len())
            .filter(|&k| pick[k])
            .map(|k| {
                k as isize
                    - if coin(&mut rng) {
                        shape.len() as isize
                    } else {
                        0
                    }
            })
            .collect();
        let ax = axes.clone();
        // Siblings over one domain (one pass), each with an epilogue.
        let f = fuse("axes", move |[x, y]| {
            let p = x * y - 1;
            (
                p.sum_axis(ax.clone(), keep),
                p.max_axis(ax.clone(), keep) * 2,
                p.mean_axis(ax.clone(), keep).sqrt(),
                p.var_axis(ax.clone(), keep),
            )
        })
        .option("-fmad=false");
        let got = f
            .call_all((&x, &y))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let p = ops::subtract(ops::multiply(&x, &y).unwrap(), 1i32).unwrap();
        let a = axes.as_slice();
        let want = [
            ops::sum_axis(&p, a, keep).unwrap(),
            ops::multiply(ops::max_axis(&p, a, keep).unwrap(), 2i32).unwrap(),
            ops::sqrt(&ops::mean_axis(&p, a, keep).unwrap()).unwrap(),
            ops::var_axis(&p, a, keep).unwrap(),
        ];
        let kinds = [RedKind::Sum, RedKind::Max, RedKind::Mean, RedKind::Var];
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let what = format!("output {k} over {shape:?} axes {axes:?} {keep:?} {d}");
            same_result(g, w, reduction_scale(kinds[k], &p), &what)?;
        }
        let kernels = f.explain((&x, &y)).unwrap().kernels().len();
        prop_assert_eq!(kernels, 1, "siblings share one pass");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn several_outputs_of_different_kinds() {
    require_gpu!();
    let mut rng = Rng::new(11);
    let (x, _) = make_arg(&mut rng, &[37, 19], DType::F32, ViewKind::Stepped);
    let (y, _) = make_arg(&mut rng, &[19], DType::F32, ViewKind::Reversed);
    let f = fuse("many", |[x, y]| {
        let s = x + y;
        (
            s,
            (x * y).sum_axis(0, Keepdims::No),
            x.max(),
            s.mean() / 3.0,
            x.less(y),
        )
    });
    let out = f.call_all((&x, &y)).unwrap();
    assert_eq!(out.len(), 5);
    let want = [
        ops::add(&x, &y).unwrap(),
        ops::sum_axis(&ops::multiply(&x, &y).unwrap(), 0, Keepdims::No).unwrap(),
        ops::max(&x).unwrap(),
        ops::divide(ops::mean(&ops::add(&x, &y).unwrap()).unwrap(), 3.0).unwrap(),
        ops::less(&x, &y).unwrap(),
    ];
    for (k, (g, w)) in out.iter().zip(&want).enumerate() {
        same_result(g, w, 100.0, &format!("output {k}")).unwrap();
    }
    // `call` returns the first.
    let first = f.call((&x, &y)).unwrap();
    assert_eq!(host(&first), host(&out[0]));
}

#[test]
fn repeat_calls_replay_the_kernel_with_fresh_outputs() {
    require_gpu!();
    // One element-wise kernel that returns the values (a direct program): a call with the
    // fingerprint of an earlier one replays its launch and allocates new outputs
    // (`fuse/run.rs`). Each call must read its own arrays and scalar, and write new arrays.
    let f = fuse("direct", |[x, y, s]| (x * s + y, x - y));
    let mut rng = Rng::new(5);
    let views = [ViewKind::Contiguous, ViewKind::Stepped, ViewKind::Reversed];
    let shapes: [&[usize]; 5] = [&[1025], &[4, 33], &[1025], &[0], &[]];
    let mut last: Option<Array> = None;
    for (k, shape) in shapes.iter().enumerate() {
        for round in 0..3 {
            let view = views[(k + round) % views.len()];
            let (x, _) = make_arg(&mut rng, shape, DType::F32, ViewKind::Contiguous);
            let (y, _) = make_arg(&mut rng, shape, DType::F32, view);
            let s = round as f64 - 1.5;
            let out = f.call_all((&x, &y, s)).unwrap();
            let what = format!("{shape:?} round {round} {view:?}");
            let want = ops::add(ops::multiply(&x, s).unwrap(), &y).unwrap();
            same_result(&out[0], &want, 10.0, &what).unwrap();
            same_result(&out[1], &ops::subtract(&x, &y).unwrap(), 10.0, &what).unwrap();
            if let Some(prev) = &last
                && prev.size() > 0
            {
                assert_ne!(prev.data_ptr(), out[0].data_ptr(), "{what}: a new output");
            }
            last = Some(out[0].clone());
        }
    }
    // Broadcasting, and one array given twice.
    let (col, _) = make_arg(&mut rng, &[5, 1], DType::F32, ViewKind::Contiguous);
    let (row, _) = make_arg(&mut rng, &[7], DType::F32, ViewKind::Stepped);
    for _ in 0..2 {
        let out = f.call_all((&col, &row, 2.0)).unwrap();
        let want = ops::add(ops::multiply(&col, 2.0).unwrap(), &row).unwrap();
        same_result(&out[0], &want, 10.0, "broadcast").unwrap();
        let twice = f.call_all((&row, &row, 0.5)).unwrap();
        let want = ops::add(ops::multiply(&row, 0.5).unwrap(), &row).unwrap();
        same_result(&twice[0], &want, 10.0, "twice").unwrap();
        assert_eq!(host(&twice[1]), vec![F(0.0); 7]);
    }
    assert_eq!(
        f.traces(),
        4,
        "one trace per signature: numbers of dimensions (1, 1), (2, 2), (0, 0), (2, 1)"
    );
}

#[test]
fn scalar_arguments_are_parameters_with_ops_range_checks() {
    require_gpu!();
    let x = Array::from_slice(&[1u8, 2, 250], &[3]).unwrap();
    let f = fuse("plus", |[x, s]| x + s);
    for s in [1i64, 3, 5] {
        let y = f.call((&x, s)).unwrap();
        assert_eq!(y.dtype(), DType::U8);
        assert_eq!(
            y.to_vec::<u8>().unwrap(),
            vec![
                1u8.wrapping_add(s as u8),
                2 + s as u8,
                250u8.wrapping_add(s as u8)
            ]
        );
    }
    assert_eq!(f.traces(), 1, "scalar values never retrace");
    let e = f.call((&x, 300i64)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.to_string().contains("scalar argument 1"), "{e}");
    assert!(e.to_string().contains("300"), "{e}");
    // A float scalar argument with an integer array promotes, as in ops.
    let g = fuse("half", |[x, s]| x * s);
    let y = g.call((&x, 0.5f64)).unwrap();
    assert_eq!(y.dtype(), DType::F64);
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.5, 1.0, 125.0]);
}

#[test]
fn empty_and_zero_dimensional_arrays() {
    require_gpu!();
    let e = Array::zeros(&[0, 3], DType::F32).unwrap();
    let f = fuse("e", |[x]| {
        (
            x + 1.0,
            x.sum(),
            x.sum_axis(0, Keepdims::No),
            x.mean_axis(1, Keepdims::Yes),
        )
    });
    let out = f.call_all((&e,)).unwrap();
    assert_eq!(out[0].shape(), &[0, 3]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![0.0]);
    assert_eq!(out[2].to_vec::<f32>().unwrap(), vec![0.0; 3]);
    assert_eq!(out[3].shape(), &[0, 1]);
    let m = fuse("m", |[x]| x.max());
    let err = m.call((&e,)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("fuse.rs:"), "{err}");
    let z = Array::scalar(4.0f64).unwrap();
    let g = fuse("z", |[x]| (x.sqrt(), x.sum(), x.std()));
    let out = g.call_all((&z,)).unwrap();
    assert_eq!(out[0].to_vec::<f64>().unwrap(), vec![2.0]);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), vec![4.0]);
    assert_eq!(out[2].to_vec::<f64>().unwrap(), vec![0.0]);
    let one = Array::from_slice(&[3i32], &[1]).unwrap();
    let h = fuse("one", |[x]| (x * x).sum());
    assert_eq!(h.call((&one,)).unwrap().to_vec::<i64>().unwrap(), vec![9]);
}

#[test]
fn scalar_only_values_are_zero_dimensional_outputs() {
    require_gpu!();
    let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let f = fuse("s", |[x, s]| (x * s, s * 2.0 + 1.0, s.less(3)));
    let out = f.call_all((&x, 5i32)).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![5.0, 10.0]);
    assert_eq!(out[1].ndim(), 0);
    assert_eq!(out[1].to_vec::<f64>().unwrap(), vec![11.0]);
    assert_eq!(out[2].to_vec::<bool>().unwrap(), vec![false]);
}

#[test]
fn the_examples_match_their_host_references() {
    require_gpu!();
    let mut rng = Rng::new(3);
    // MSE: fused equals the seed's ReductionKernel, which equals the host.
    let n = 100_003usize;
    let t: Vec<f64> = (0..n).map(|_| rng.f64(0.0, 100.0)).collect();
    let p: Vec<f64> = t.iter().map(|v| v + rng.f64(-5.0, 5.0)).collect();
    let (ta, pa) = (
        Array::from_slice(&t, &[n]).unwrap(),
        Array::from_slice(&p, &[n]).unwrap(),
    );
    let mse = functions::mse()
        .call((&ta, &pa))
        .unwrap()
        .to_vec::<f64>()
        .unwrap()[0];
    let host_mse: f64 = t
        .iter()
        .zip(&p)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        / n as f64;
    assert!(
        (mse - host_mse).abs() <= 1e-10 * host_mse,
        "{mse} vs {host_mse}"
    );
    // L2 norms.
    let m = Array::arange(0.0, 10.0, 1.0, DType::F32)
        .unwrap()
        .reshape(&[2, 5])
        .unwrap();
    let rows = functions::l2_norm_rows()
        .call((&m,))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!((rows[0] as f64 - 30f64.sqrt()).abs() < 1e-5);
    assert!((rows[1] as f64 - 255f64.sqrt()).abs() < 1e-5);
    let all = functions::l2_norm()
        .call((&m,))
        .unwrap()
        .to_vec::<f32>()
        .unwrap()[0];
    assert!((all as f64 - 285f64.sqrt()).abs() < 1e-5);
    // Clipped ReLU and scale, exact.
    let xs: Vec<f32> = (0..1000).map(|_| rng.f64(-10.0, 10.0) as f32).collect();
    let x = Array::from_slice(&xs, &[10, 100]).unwrap();
    let y = functions::clipped_relu_scale()
        .call((&x, 6.0f32, 0.5f32))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for (g, v) in y.iter().zip(&xs) {
        assert_eq!(*g, v.clamp(0.0, 6.0) * 0.5);
    }
    // Softmax over rows.
    let (r, c) = (7usize, 129usize);
    let vs: Vec<f32> = (0..r * c).map(|_| rng.f64(-6.0, 6.0) as f32).collect();
    let x = Array::from_slice(&vs, &[r, c]).unwrap();
    let s = functions::softmax_rows()
        .call((&x,))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for i in 0..r {
        let row = &vs[i * c..(i + 1) * c];
        let mx = row.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - mx).exp()).collect();
        let sum: f64 = e.iter().sum();
        for j in 0..c {
            let w = e[j] / sum;
            assert!(
                (s[i * c + j] as f64 - w).abs() <= 1e-5 * w + 1e-9,
                "({i}, {j})"
            );
        }
    }
}

/// The unfused path: `power` by 2, 3 and 0.5 is a multiplication or a square root, so it
/// equals those operations exactly.
#[test]
fn unfused_small_powers_equal_multiplications_and_sqrt() {
    require_gpu!();
    let mut rng = Rng::new(21);
    let xs: Vec<f64> = (0..10_001).map(|_| rng.f64(-50.0, 50.0)).collect();
    let x = Array::from_slice(&xs, &[10_001]).unwrap();
    let h = |a: &Array| a.to_vec::<f64>().unwrap();
    let sq = ops::multiply(&x, &x).unwrap();
    assert_eq!(h(&ops::power(&x, 2i32).unwrap()), h(&sq));
    assert_eq!(h(&ops::power(&x, 2.0).unwrap()), h(&sq));
    assert_eq!(
        h(&x.pow(3i64).unwrap()),
        h(&ops::multiply(&sq, &x).unwrap())
    );
    let pos = ops::abs(&x).unwrap();
    assert_eq!(
        h(&ops::power(&pos, 0.5).unwrap()),
        h(&ops::sqrt(&pos).unwrap())
    );
    let i = Array::from_slice(&[-3i32, 7, 46341], &[3]).unwrap();
    assert_eq!(
        ops::power(&i, 2i32).unwrap().to_vec::<i32>().unwrap(),
        vec![9, 49, 46341i32.wrapping_mul(46341)]
    );
    let f = Array::from_slice(&[1.5f32, -2.0], &[2]).unwrap();
    let r = ops::power(&f, 3i32).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (DType::F32, vec![3.375, -8.0])
    );
    // The MSE idiom: three kernels, the same value as the fused one.
    let y = Array::from_slice(&xs.iter().rev().copied().collect::<Vec<_>>(), &[10_001]).unwrap();
    let unfused = ops::mean(&ops::power((&x - &y).unwrap(), 2i32).unwrap()).unwrap();
    let fused = functions::mse().call((&x, &y)).unwrap();
    let (u, v) = (h(&unfused)[0], h(&fused)[0]);
    assert!((u - v).abs() <= 1e-12 * u, "{u} vs {v}");
}

#[test]
fn fused_complex_values_match_ops() {
    require_gpu!();
    let mut rng = Rng::new(5);
    let zs: Vec<num_complex::Complex<f64>> = (0..64)
        .map(|_| num_complex::Complex::new(rng.f64(-2.0, 2.0), rng.f64(-2.0, 2.0)))
        .collect();
    let z = Array::from_slice(&zs, &[8, 8]).unwrap();
    let f = fuse("cplx", |[z]| {
        ((z * z + 1.0).exp(), z.abs().sum(), z.less(z.pow(2)))
    });
    let out = f.call_all((&z,)).unwrap();
    let want = [
        ops::exp(&ops::add(ops::multiply(&z, &z).unwrap(), 1.0).unwrap()).unwrap(),
        ops::sum(&ops::abs(&z).unwrap()).unwrap(),
        ops::less(&z, ops::power(&z, 2i32).unwrap()).unwrap(),
    ];
    for (k, (g, w)) in out.iter().zip(&want).enumerate() {
        same_result(g, w, 100.0, &format!("output {k}")).unwrap();
    }
}

#[test]
fn new_axes_of_computed_values_plan_as_views() {
    // `v.expand_dims(k)` of a computed value: the axis moves down to the arrays `v` reads;
    // a reduced value is written by its kernel and read through a view by the next.
    let center = fuse("center", |[x]| {
        x - x.sum_axis(1, Keepdims::No).expand_dims(1)
    });
    let e = center.explain_for(&[arr(DType::F32, &[4, 3])]).unwrap();
    assert_eq!(e.outputs()[0], (DType::F32, vec![4, 3]));
    assert_eq!(
        e.kernels().iter().map(|k| k.kind).collect::<Vec<_>>(),
        [KernelKind::Reduction, KernelKind::Elementwise]
    );
    let lead = fuse("lead", |[x, y]| {
        ((x + y) * 2.0).expand_dims(0).expand_dims(-1)
    });
    let e = lead
        .explain_for(&[arr(DType::F64, &[2, 3]), arr(DType::F64, &[3])])
        .unwrap();
    assert_eq!(e.outputs()[0], (DType::F64, vec![1, 2, 3, 1]));
    assert_eq!(e.kernels().len(), 1);
    let bad = fuse("bad", |[x]| (x * 2.0).expand_dims(3));
    let err = bad.explain_for(&[arr(DType::F32, &[2, 3])]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Shape, "{err}");
    assert!(err.to_string().contains("expand_dims"), "{err}");
}

#[test]
fn new_axes_of_computed_values_match_ops() {
    require_gpu!();
    let mut rng = Rng::new(23);
    for view in [ViewKind::Contiguous, ViewKind::Stepped, ViewKind::Reversed] {
        let (x, _) = make_arg(&mut rng, &[37, 19], DType::F32, view);
        let (y, _) = make_arg(&mut rng, &[19], DType::F32, view);
        let f = fuse("axes", |[x, y]| {
            (
                x - x.sum_axis(1, Keepdims::No).expand_dims(1),
                (x * 2.0).expand_dims(0),
                (x + y).expand_dims(-1).sum_axis(1, Keepdims::No),
                x.cumsum(Some(1)).expand_dims(0) * 2.0,
                x.max().expand_dims(0) + y,
            )
        });
        let out = f.call_all((&x, &y)).unwrap();
        let ex = |a: Array, k: isize| a.expand_dims(k).unwrap();
        let want = [
            ops::subtract(&x, ex(ops::sum_axis(&x, 1, Keepdims::No).unwrap(), 1)).unwrap(),
            ex(ops::multiply(&x, 2.0f32).unwrap(), 0),
            ops::sum_axis(&ex(ops::add(&x, &y).unwrap(), -1), 1, Keepdims::No).unwrap(),
            ops::multiply(ex(ops::cumsum(&x, Some(1)).unwrap(), 0), 2.0f32).unwrap(),
            ops::add(ex(ops::max(&x).unwrap(), 0), &y).unwrap(),
        ];
        for (k, (g, w)) in out.iter().zip(&want).enumerate() {
            same_result(g, w, 100.0, &format!("output {k} of a {view:?} view")).unwrap();
        }
    }
}
