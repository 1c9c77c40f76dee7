//! The demo's cases: every example of the seed documents, ported from `examples/*.rs`
//! (same kernels, same data, same checks), each returning a one-line result and timing
//! its main call. The raw kernels and the elementwise prime-factor operation are the
//! files in `examples/kernels/`, shared with the examples and `cuprum bench`.

use super::fused;
use super::masked;
#[path = "jit_cases.rs"]
mod jit_cases;

use super::reference::{self as host, close, kahan};
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::{
    Array, DType, ElementwiseKernel, Endpoint, RawKernel, RawModule, ReductionKernel, ops, random,
};
use std::time::Duration;

type R<T> = cuprum::Result<T>;

const VECTOR_ADD_F64_CU: &str = include_str!("../../../../examples/kernels/vector_add_f64.cu");
const MATRIX_MULTIPLY_CU: &str = include_str!("../../../../examples/kernels/matrix_multiply.cu");
const ACTIVATIONS_CU: &str = include_str!("../../../../examples/kernels/activations.cu");
const OPTIMIZED_REDUCTION_CU: &str =
    include_str!("../../../../examples/kernels/optimized_reduction.cu");
const PRIME_FACTOR_SUM_CU: &str = include_str!("../../../../examples/kernels/prime_factor_sum.cu");
const PRIME_FACTOR_SUM_OP: &str =
    include_str!("../../../../examples/kernels/prime_factor_sum_elementwise.op");

/// The section a case is listed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Elementwise,
    Reduction,
    Raw,
    PrimeFactorSum,
    Fusion,
    Rust,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Elementwise => "ElementwiseKernel",
            Group::Reduction => "ReductionKernel",
            Group::Raw => "RawKernel / RawModule",
            Group::PrimeFactorSum => "prime-factor sum of 2..=1,000,000 (seed 003)",
            Group::Fusion => "cuprum::fuse (array math in one pass)",
            Group::Rust => "kernels written in Rust (#[cuprum::kernel])",
        }
    }
}

/// What one case found.
pub struct Outcome {
    /// One line: the result, and what was off when it did not match.
    pub result: String,
    /// Whether every check passed.
    pub ok: bool,
    /// Median GPU time of the timed call, seconds.
    pub gpu_seconds: f64,
}

/// A CUDA program the demo compiles: a generated ElementwiseKernel / ReductionKernel
/// source, or a `.cu` file of `examples/kernels`.
pub struct Program {
    /// NVRTC's program name (`custom_add.cu`, `activations.cu`).
    pub name: String,
    pub source: String,
    /// Template instantiations to compile (kernels written in Rust).
    pub name_expressions: Vec<String>,
}

impl Program {
    fn elementwise(k: &ElementwiseKernel, dtypes: &[DType], scalars: &[bool]) -> R<Program> {
        Ok(Program {
            name: format!("{}.cu", k.name()),
            source: k.generated_source(dtypes, scalars)?,
            name_expressions: Vec::new(),
        })
    }

    fn reduction(k: &ReductionKernel, dtypes: &[DType], scalars: &[bool]) -> R<Program> {
        Ok(Program {
            name: format!("{}.cu", k.name()),
            source: k.generated_source(dtypes, scalars)?,
            name_expressions: Vec::new(),
        })
    }

    fn raw(file: &str, source: &str) -> Program {
        Program {
            name: file.to_owned(),
            source: source.to_owned(),
            name_expressions: Vec::new(),
        }
    }

    /// A kernel written in Rust: its whole program, with the instantiation `args` when
    /// it is generic.
    fn jit(def: &cuprum::kernel::jit::KernelDef, args: &[&str]) -> Program {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Program {
            name: format!("{}.cu", def.name()),
            source: def.program().to_owned(),
            name_expressions: if def.is_generic() {
                vec![def.instance_name(&args)]
            } else {
                Vec::new()
            },
        }
    }
}

/// One seed example.
pub struct Case {
    pub name: &'static str,
    pub group: Group,
    /// The programs it compiles (as called: the dtypes and scalars of the demo's calls).
    pub programs: fn() -> R<Vec<Program>>,
    /// Runs it on the GPU: checks against the reference, then times the main call.
    pub run: fn() -> R<Outcome>,
}

/// Every case, in the order the demo runs them.
pub fn all() -> Vec<Case> {
    use Group::*;
    fn case(
        name: &'static str,
        group: Group,
        programs: fn() -> R<Vec<Program>>,
        run: fn() -> R<Outcome>,
    ) -> Case {
        Case {
            name,
            group,
            programs,
            run,
        }
    }
    vec![
        case("custom_add", Elementwise, custom_add_programs, custom_add),
        case(
            "relu_transform",
            Elementwise,
            relu_transform_programs,
            relu_transform,
        ),
        case(
            "clipped_relu",
            Elementwise,
            clipped_relu_programs,
            clipped_relu,
        ),
        case(
            "inplace_transform",
            Elementwise,
            inplace_programs,
            inplace_transform,
        ),
        case("trig_functions", Elementwise, trig_programs, trig_functions),
        case(
            "abs_squared",
            Elementwise,
            abs_squared_programs,
            abs_squared,
        ),
        case(
            "sum_of_squares",
            Reduction,
            sum_of_squares_programs,
            sum_of_squares,
        ),
        case(
            "sum_of_squares axis=1",
            Reduction,
            no_new_programs,
            sum_of_squares_axis,
        ),
        case(
            "weighted_mean",
            Reduction,
            weighted_mean_programs,
            weighted_mean,
        ),
        case("l2_norm", Reduction, l2_norm_programs, l2_norm),
        case("mse", Reduction, mse_programs, mse),
        case("vector_add", Raw, vector_add_programs, vector_add),
        case(
            "matrix_multiply",
            Raw,
            matrix_multiply_programs,
            matrix_multiply,
        ),
        case(
            "activation_module",
            Raw,
            activation_programs,
            activation_module,
        ),
        case(
            "shared_memory_reduction",
            Raw,
            smem_programs,
            shared_memory_reduction,
        ),
        case(
            "prime_factor_sum",
            PrimeFactorSum,
            prime_raw_programs,
            prime_factor_sum_raw,
        ),
        case(
            "prime_factor_sum_elementwise",
            PrimeFactorSum,
            prime_elementwise_programs,
            prime_factor_sum_elementwise,
        ),
        case(
            "prime_factor_sum_masked",
            PrimeFactorSum,
            masked::prime_programs,
            masked::prime_factor_sum,
        ),
        case("fuse_mse", Fusion, fused::mse_programs, fused::mse),
        case(
            "fuse_l2_norm",
            Fusion,
            fused::l2_norm_programs,
            fused::l2_norm,
        ),
        case(
            "fuse_clipped_relu",
            Fusion,
            fused::clipped_relu_programs,
            fused::clipped_relu,
        ),
        case(
            "fuse_softmax",
            Fusion,
            fused::softmax_programs,
            fused::softmax,
        ),
        case(
            "jit_vector_add",
            Rust,
            jit_cases::vector_add_programs,
            jit_cases::vector_add,
        ),
        case(
            "jit_matrix_multiply",
            Rust,
            jit_cases::matrix_multiply_programs,
            jit_cases::matrix_multiply,
        ),
        case(
            "jit_activations",
            Rust,
            jit_cases::activation_programs,
            jit_cases::activations,
        ),
        case(
            "jit_shared_memory_reduction",
            Rust,
            jit_cases::smem_programs,
            jit_cases::shared_memory_reduction,
        ),
        case(
            "jit_prime_factor_sum",
            Rust,
            jit_cases::prime_programs,
            jit_cases::prime_factor_sum,
        ),
    ]
}

/// Median GPU time of `f` after the check: a warm-up call, then up to 20 timed calls
/// (at most about 0.3 s).
pub(super) fn gpu_time(f: impl FnMut() -> R<()>) -> R<f64> {
    let opts = BenchmarkOptions::new()
        .n_warmup(1)
        .n_repeat(20)
        .max_duration(Duration::from_millis(300));
    Ok(benchmark("demo", f, &opts)?.gpu().median)
}

/// `[a, b, c]` with each value's shortest form (`11`, `5.5`).
fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `"; N of TOTAL off WHAT"` when N > 0, else nothing.
fn off(n: usize, total: usize, what: &str) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("; {n} of {total} off {what}")
    }
}

fn no_new_programs() -> R<Vec<Program>> {
    Ok(Vec::new())
}

use DType::{C128, F32, F64, I64};

// ---- ElementwiseKernel (seeds 000, 001, 002) -------------------------------------------

fn custom_add_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )
}

fn add_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y",
        "add_kernel",
    )
}

fn custom_add_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::elementwise(&custom_add_kernel()?, &[F32; 3], &[false; 3])?,
        Program::elementwise(&add_kernel()?, &[F32; 3], &[false; 3])?,
    ])
}

/// Seed 002 "Basic ElementwiseKernel" (and seed 000's `add_kernel`): exact values.
fn custom_add() -> R<Outcome> {
    let (custom_add, add) = (custom_add_kernel()?, add_kernel()?);
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let b10 = Array::from_slice(&[10.0f32, 20.0, 30.0, 40.0], &[4])?;
    let z = custom_add.call((&a, &b))?.to_vec::<f32>()?;
    let sum = add.call((&a, &b10))?.to_vec::<f32>()?;
    let ok = z == [11.0, 14.0, 17.0, 20.0] && sum == [11.0, 22.0, 33.0, 44.0];
    let mut result = list(&z);
    if sum != [11.0, 22.0, 33.0, 44.0] {
        result += &format!("; add_kernel {}", list(&sum));
    }
    let t = gpu_time(|| custom_add.call((&a, &b)).map(drop))?;
    Ok(Outcome {
        result,
        ok,
        gpu_seconds: t,
    })
}

fn relu_transform_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y, float32 alpha",
        "float32 z",
        "float temp = x * alpha + y;\n\
         z = temp > 0 ? temp : 0;  // ReLU activation",
        "relu_transform",
    )
}

fn relu_transform_programs() -> R<Vec<Program>> {
    Ok(vec![Program::elementwise(
        &relu_transform_kernel()?,
        &[F32; 4],
        &[false, false, true, false],
    )?])
}

/// Seed 002 "More complex elementwise operation": the seed's arrays, then 1e6 normal pairs,
/// exactly (`x * 0.5` is exact, so a fused multiply-add rounds as the host does).
fn relu_transform() -> R<Outcome> {
    let k = relu_transform_kernel()?;
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let b = Array::from_slice(&[5.0f32, 6.0, 7.0, 8.0], &[4])?;
    let small = k.call((&a, &b, 0.5f32))?.to_vec::<f32>()?;
    let n = 1_000_000usize;
    let x = random::normal(0.0, 1.0, &[n], F32)?;
    let y = random::normal(0.0, 1.0, &[n], F32)?;
    let z = k.call((&x, &y, 0.5f32))?;
    let (hx, hy, hz) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?, z.to_vec::<f32>()?);
    let bad = (0..n)
        .filter(|&i| hz[i] != (hx[i] * 0.5 + hy[i]).max(0.0))
        .count();
    let t = gpu_time(|| k.call((&x, &y, 0.5f32)).map(drop))?;
    Ok(Outcome {
        result: format!("{}; 1e6 random{}", list(&small), off(bad, n, "the host")),
        ok: small == [5.5, 7.0, 8.5, 10.0] && bad == 0,
        gpu_seconds: t,
    })
}

fn clipped_relu_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float64 x, float64 cap",
        "float64 y",
        "y = min(max(x, 0.0), cap)",
        "clipped_relu",
    )
}

fn clipped_relu_programs() -> R<Vec<Program>> {
    Ok(vec![Program::elementwise(
        &clipped_relu_kernel()?,
        &[F64; 3],
        &[false, true, false],
    )?])
}

/// Elements where `y` differs from `min(max(x, 0), cap(i))`.
fn clip_mismatches(x: &Array, y: &Array, cap: impl Fn(usize) -> f64) -> R<usize> {
    let (hx, hy) = (x.to_vec::<f64>()?, y.to_vec::<f64>()?);
    Ok((0..hx.len())
        .filter(|&i| hy[i] != hx[i].max(0.0).min(cap(i)))
        .count())
}

/// Seed 001 "Definition: ElementwiseKernel": 1e7 with the scalar cap 6, then (1000, 1000)
/// with the scalar cap and with a broadcast (1000,) array of caps; exact.
fn clipped_relu() -> R<Outcome> {
    let k = clipped_relu_kernel()?;
    let x = random::normal(0.0, 1.0, &[10_000_000], F64)?;
    let y = k.call((&x, 6.0))?;
    let bad_1d = clip_mismatches(&x, &y, |_| 6.0)?;
    let side = 1000usize;
    let x2 = random::normal(0.0, 1.0, &[side, side], F64)?;
    let y2 = k.call((&x2, 6.0))?;
    let bad_2d = clip_mismatches(&x2, &y2, |_| 6.0)?;
    let caps = Array::linspace(0.5, 3.0, side, Endpoint::Included, F64)?;
    let y3 = k.call((&x2, &caps))?;
    let hcaps = caps.to_vec::<f64>()?;
    let bad_rows = clip_mismatches(&x2, &y3, |i| hcaps[i % side])?;
    let shapes_ok = y2.shape() == [side, side] && y3.shape() == [side, side];
    let bad = bad_1d + bad_2d + bad_rows;
    let t = gpu_time(|| k.call((&x, 6.0)).map(drop))?;
    Ok(Outcome {
        result: format!(
            "1e7 cap 6, 1000² cap 6 and row caps{}{}",
            off(bad, 12_000_000, "the host"),
            if shapes_ok { "" } else { "; wrong shapes" }
        ),
        ok: bad == 0 && shapes_ok,
        gpu_seconds: t,
    })
}

/// The seed's strings verbatim: `x` in both lists is one read-write parameter.
fn inplace_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x",
        "x = x * alpha + 1",
        "inplace_transform",
    )
}

fn inplace_programs() -> R<Vec<Program>> {
    Ok(vec![Program::elementwise(
        &inplace_kernel()?,
        &[F32; 3],
        &[false, true, false],
    )?])
}

/// Seed 002 "In-place operation kernel": the same array as input and output stays in its
/// buffer and becomes exactly `2x + 1`.
fn inplace_transform() -> R<Outcome> {
    let k = inplace_kernel()?;
    let n = 1_000_000usize;
    let data = random::random(&[n], F32)?;
    let before = data.to_vec::<f32>()?;
    let ptr = data.data_ptr();
    let out = k.call((&data, 2.0f32, &data))?;
    let same = data.data_ptr() == ptr && out.data_ptr() == ptr && out.shares_memory(&data);
    let after = data.to_vec::<f32>()?;
    let bad = before
        .iter()
        .zip(&after)
        .filter(|&(&b, &a)| a != b * 2.0 + 1.0)
        .count();
    let t = gpu_time(|| k.call((&data, 2.0f32, &data)).map(drop))?;
    Ok(Outcome {
        result: format!(
            "1e6 x → 2x + 1, {}{}",
            if same {
                "same buffer"
            } else {
                "NOT the same buffer"
            },
            off(bad, n, "2x + 1")
        ),
        ok: same && bad == 0,
        gpu_seconds: t,
    })
}

fn trig_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x",
        "float32 sin_x, float32 cos_x, float32 tan_x",
        "sin_x = sinf(x);\ncos_x = cosf(x);\ntan_x = tanf(x);",
        "trig_functions",
    )
}

fn trig_programs() -> R<Vec<Program>> {
    Ok(vec![Program::elementwise(
        &trig_kernel()?,
        &[F32; 4],
        &[false; 4],
    )?])
}

/// Seed 002 "Kernel with multiple outputs": three outputs on 1000 angles; sin² + cos² ≈ 1,
/// sin and cos against the host, tan ≈ sin / cos where |cos| > 1e-3.
fn trig_functions() -> R<Outcome> {
    let k = trig_kernel()?;
    let angles = Array::linspace(
        0.0,
        2.0 * std::f64::consts::PI,
        1000,
        Endpoint::Included,
        F32,
    )?;
    let outs = k.call_all((&angles,))?;
    let [s, c, t] = [&outs[0], &outs[1], &outs[2]].map(|a| a.to_vec::<f32>());
    let (s, c, t, x) = (s?, c?, t?, angles.to_vec::<f32>()?);
    let near = |a: f64, b: f64, rtol: f64, atol: f64| (a - b).abs() <= atol + rtol * b.abs();
    let (mut identity_bad, mut host_bad, mut tan_bad) = (0, 0, 0);
    for i in 0..x.len() {
        let (si, ci, ti, xd) = (s[i] as f64, c[i] as f64, t[i] as f64, x[i] as f64);
        identity_bad += !near(si * si + ci * ci, 1.0, 1e-5, 1e-8) as usize;
        host_bad += !(near(si, xd.sin(), 0.0, 1e-6) && near(ci, xd.cos(), 0.0, 1e-6)) as usize;
        if ci.abs() > 1e-3 {
            tan_bad += !(near(ti, si / ci, 1e-5, 0.0) && near(ti, xd.tan(), 1e-5, 1e-6)) as usize;
        }
    }
    let time = gpu_time(|| k.call_all((&angles,)).map(drop))?;
    Ok(Outcome {
        result: format!(
            "3 outputs, sin² + cos² ≈ 1 on 1000 angles{}{}{}",
            off(identity_bad, 1000, "1"),
            off(host_bad, 1000, "host sin/cos"),
            off(tan_bad, 1000, "sin/cos")
        ),
        ok: identity_bad == 0 && host_bad == 0 && tan_bad == 0,
        gpu_seconds: time,
    })
}

fn abs2_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "complex128 z",
        "float64 mag2",
        "mag2 = z.real() * z.real() + z.imag() * z.imag()",
        "abs_squared",
    )
}

fn make_complex_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float64 re, float64 im",
        "complex128 z",
        "z = complex<double>(re, im)",
        "make_complex",
    )
}

fn abs_squared_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::elementwise(&abs2_kernel()?, &[C128, F64], &[false; 2])?,
        Program::elementwise(&make_complex_kernel()?, &[F64, F64, C128], &[false; 3])?,
    ])
}

/// Seed 001 "Custom Kernel: Fast Complex Magnitude": 1e7 `randn + 1j * randn`, allclose
/// (rtol 1e-12) with the built-in `abs(z)**2` and with the host's `re² + im²`.
fn abs_squared() -> R<Outcome> {
    let (k, make) = (abs2_kernel()?, make_complex_kernel()?);
    let n = 10_000_000usize;
    let re = random::normal(0.0, 1.0, &[n], F64)?;
    let im = random::normal(0.0, 1.0, &[n], F64)?;
    let z = make.call((&re, &im))?;
    let custom = k.call((&z,))?.to_vec::<f64>()?;
    let m = ops::abs(&z)?;
    let standard = (&m * &m)?.to_vec::<f64>()?;
    drop(m);
    let (hre, him) = (re.to_vec::<f64>()?, im.to_vec::<f64>()?);
    let vs_standard = (0..n)
        .filter(|&i| !close(custom[i], standard[i], 1e-12))
        .count();
    let vs_host = (0..n)
        .filter(|&i| !close(custom[i], hre[i] * hre[i] + him[i] * him[i], 1e-12))
        .count();
    let t = gpu_time(|| k.call((&z,)).map(drop))?;
    Ok(Outcome {
        result: format!(
            "1e7 complex128, allclose(abs(z)**2){}{}",
            off(vs_standard, n, "abs(z)**2"),
            off(vs_host, n, "the host")
        ),
        ok: vs_standard == 0 && vs_host == 0,
        gpu_seconds: t,
    })
}

// ---- ReductionKernel (seeds 001, 002, 003) ---------------------------------------------

fn sum_of_squares_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float32 x",
        "float32 out",
        "x * x",
        "a + b",
        "out = a",
        Some("0"),
        "sum_of_squares",
    )
}

fn sum_of_squares_programs() -> R<Vec<Program>> {
    Ok(vec![Program::reduction(
        &sum_of_squares_kernel()?,
        &[F32; 2],
        &[false; 2],
    )?])
}

/// Seed 002 "Custom ReductionKernel": float32 [1, 2, 3, 4, 5] → exactly 55, a 0-d array.
fn sum_of_squares() -> R<Outcome> {
    let k = sum_of_squares_kernel()?;
    let data = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?;
    let r = k.call((&data,))?;
    let v = r.to_vec::<f32>()?;
    let t = gpu_time(|| k.call((&data,)).map(drop))?;
    Ok(Outcome {
        result: format!("{} (shape {:?})", list(&v), r.shape()),
        ok: r.shape().is_empty() && v == [55.0],
        gpu_seconds: t,
    })
}

/// The same with `axis=1` on the (1, 5) reshape: [55] of shape (1,).
fn sum_of_squares_axis() -> R<Outcome> {
    let k = sum_of_squares_kernel()?;
    let data = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5])?.reshape(&[1, -1])?;
    let r = k.axis(1).call((&data,))?;
    let v = r.to_vec::<f32>()?;
    let t = gpu_time(|| k.axis(1).call((&data,)).map(drop))?;
    Ok(Outcome {
        result: format!("{} (shape {:?}) from (1, 5)", list(&v), r.shape()),
        ok: r.shape() == [1] && v == [55.0],
        gpu_seconds: t,
    })
}

fn weighted_sum_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float32 x, float32 w",
        "float32 out",
        "x * w",
        "a + b",
        "out = a",
        Some("0"),
        "weighted_sum",
    )
}

/// Both sums in one `float2` accumulator, two outputs.
fn weighted_sums_kernel() -> R<ReductionKernel> {
    Ok(ReductionKernel::new(
        "float32 x, float32 w",
        "float32 weighted_sum, float32 total_weight",
        "make_float2(x * w, w)",
        "make_float2(a.x + b.x, a.y + b.y)",
        "weighted_sum = a.x; total_weight = a.y",
        Some("make_float2(0, 0)"),
        "weighted_sums",
    )?
    .reduce_type("float2"))
}

fn weighted_mean_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::reduction(&weighted_sum_kernel()?, &[F32; 3], &[false; 3])?,
        Program::reduction(&weighted_sums_kernel()?, &[F32; 4], &[false; 4])?,
    ])
}

/// Host weighted mean in double precision.
fn host_weighted_mean(x: &[f32], w: &[f32]) -> f64 {
    let s: f64 = x.iter().zip(w).map(|(&x, &w)| x as f64 * w as f64).sum();
    s / w.iter().map(|&w| w as f64).sum::<f64>()
}

/// Seed 002 "Custom ReductionKernel" (`weighted_mean`): the seed's two passes (the
/// `weighted_sum` kernel, `sum(w)`, the quotient) and one pass with a `float2`
/// accumulator, on [1, 2, 3, 4] with weights [0.1, 0.2, 0.3, 0.4] (3.0) and on 1e6 random
/// values. Timed: the two passes on 1e6.
fn weighted_mean() -> R<Outcome> {
    let (weighted_sum, sums) = (weighted_sum_kernel()?, weighted_sums_kernel()?);
    let two_pass_array = |x: &Array, w: &Array| -> R<Array> {
        ops::divide(&weighted_sum.call((x, w))?, &ops::sum(w)?)
    };
    let two_pass = |x: &Array, w: &Array| -> R<f32> { Ok(two_pass_array(x, w)?.to_vec()?[0]) };
    let one_pass = |x: &Array, w: &Array| -> R<f32> {
        let outs = sums.call_all((x, w))?;
        Ok(outs[0].to_vec::<f32>()?[0] / outs[1].to_vec::<f32>()?[0])
    };
    let (hv, hw) = ([1.0f32, 2.0, 3.0, 4.0], [0.1f32, 0.2, 0.3, 0.4]);
    let (values, weights) = (Array::from_slice(&hv, &[4])?, Array::from_slice(&hw, &[4])?);
    let seed_ref = host_weighted_mean(&hv, &hw);
    let (seed_two, seed_one) = (two_pass(&values, &weights)?, one_pass(&values, &weights)?);
    let n = 1_000_000usize;
    let x = random::uniform(0.0, 10.0, &[n], F32)?;
    let w = random::uniform(0.5, 1.5, &[n], F32)?;
    let big_ref = host_weighted_mean(&x.to_vec::<f32>()?, &w.to_vec::<f32>()?);
    let (big_two, big_one) = (two_pass(&x, &w)?, one_pass(&x, &w)?);
    // float32 sums: a few roundings on the seed's arrays, a tree of 1e6 terms otherwise.
    let ok = [
        (seed_two, seed_ref, 1e-6),
        (seed_one, seed_ref, 1e-6),
        (big_two, big_ref, 1e-5),
        (big_one, big_ref, 1e-5),
    ]
    .iter()
    .all(|&(v, r, tol)| close(v as f64, r, tol));
    let t = gpu_time(|| two_pass_array(&x, &w).map(drop))?;
    Ok(Outcome {
        result: format!(
            "{seed_two} (one pass {seed_one}); 1e6 random {big_two:.5} (host {big_ref:.5})"
        ),
        ok,
        gpu_seconds: t,
    })
}

fn l2_norm_sq_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "float64 x",
        "float64 y",
        "x * x",
        "a + b",
        "y = a",
        Some("0"),
        "l2_norm_sq",
    )
}

fn l2norm_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "l2norm",
    )
}

fn l2_norm_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::reduction(&l2_norm_sq_kernel()?, &[F64; 2], &[false; 2])?,
        Program::reduction(&l2norm_kernel()?, &[F64; 2], &[false; 2])?,
    ])
}

/// Seed 001 "Definition: ReductionKernel": `l2_norm_sq` on 1e7 normal float64 then
/// `sqrt` on the GPU, and the one-kernel `y = sqrt(a)` on the same array and per row of a
/// (2, 5) float32 `arange`; compensated host sums (rtol 1e-12, 1e-6 for float32). Timed:
/// the seed's `l2_norm_sq` + `sqrt` on 1e7.
fn l2_norm() -> R<Outcome> {
    let (sq_kernel, norm_kernel) = (l2_norm_sq_kernel()?, l2norm_kernel()?);
    let x = random::normal(0.0, 1.0, &[10_000_000], F64)?;
    let seed_norm = || -> R<Array> { ops::sqrt(&sq_kernel.call((&x,))?) };
    let norm = seed_norm()?.to_vec::<f64>()?[0];
    let norm_one = norm_kernel.call((&x,))?.to_vec::<f64>()?[0];
    let host_norm = kahan(x.to_vec::<f64>()?.iter().map(|v| v * v)).sqrt();
    let m = Array::arange(0.0, 10.0, 1.0, F32)?.reshape(&[2, 5])?;
    let rows = norm_kernel.axis(1).call((&m,))?;
    let got_rows = rows.to_vec::<f32>()?;
    let host_rows = [30.0f64.sqrt(), 255.0f64.sqrt()];
    let rows_ok = rows.shape() == [2]
        && got_rows
            .iter()
            .zip(&host_rows)
            .all(|(&g, &h)| close(g as f64, h, 1e-6));
    let ok = close(norm, host_norm, 1e-12) && close(norm_one, host_norm, 1e-12) && rows_ok;
    let t = gpu_time(|| seed_norm().map(drop))?;
    Ok(Outcome {
        result: format!(
            "‖1e7 randn‖ = {norm:.4}; rows [{:.4}, {:.4}]",
            got_rows[0], got_rows[1]
        ),
        ok,
        gpu_seconds: t,
    })
}

fn mse_kernel() -> R<ReductionKernel> {
    ReductionKernel::new(
        "T y_pred, T y_true",
        "T mse_out",
        "(y_pred - y_true) * (y_pred - y_true)",
        "a + b",
        "mse_out = a / _in_ind.size()",
        Some("0"),
        "mse_kernel",
    )
}

fn mse_programs() -> R<Vec<Program>> {
    Ok(vec![Program::reduction(
        &mse_kernel()?,
        &[F64; 3],
        &[false; 3],
    )?])
}

/// Seed 003 "mse_reduc.py": 1e7 `y_true` uniform in [0, 100), `y_pred` with normal noise of
/// scale 5 (MSE ≈ 25), rtol 1e-12 against a compensated host sum.
fn mse() -> R<Outcome> {
    let k = mse_kernel()?;
    let n = 10_000_000usize;
    let y_true = random::uniform(0.0, 100.0, &[n], F64)?;
    let noise = random::normal(0.0, 5.0, &[n], F64)?;
    let y_pred = (&y_true + &noise)?;
    drop(noise);
    let mse = k.call((&y_true, &y_pred))?.to_vec::<f64>()?[0];
    let (ht, hp) = (y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?);
    let host = kahan(ht.iter().zip(&hp).map(|(t, p)| (p - t) * (p - t))) / n as f64;
    let t = gpu_time(|| k.call((&y_true, &y_pred)).map(drop))?;
    Ok(Outcome {
        result: format!("MSE of 1e7 = {mse:.6} (host {host:.6})"),
        ok: close(mse, host, 1e-12),
        gpu_seconds: t,
    })
}

// ---- RawKernel / RawModule (seeds 000, 001, 002) ---------------------------------------

fn vector_add_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw("vector_add_f64.cu", VECTOR_ADD_F64_CU)])
}

/// Seed 001 "RawKernel — Full CUDA C Kernels": 1e6 float64, exact.
fn vector_add() -> R<Outcome> {
    let k = RawKernel::new(VECTOR_ADD_F64_CU, "vector_add");
    let n = 1_000_000usize;
    let a = random::normal(0.0, 1.0, &[n], F64)?;
    let b = random::normal(0.0, 1.0, &[n], F64)?;
    let c = Array::empty(&[n], F64)?;
    let blocks = (n as u32).div_ceil(256);
    k.launch(blocks, 256, (&a, &b, &c, n as i32))?;
    let (ha, hb, hc) = (a.to_vec::<f64>()?, b.to_vec::<f64>()?, c.to_vec::<f64>()?);
    let bad = (0..n).filter(|&i| hc[i] != ha[i] + hb[i]).count();
    let t = gpu_time(|| k.launch(blocks, 256, (&a, &b, &c, n as i32)))?;
    Ok(Outcome {
        result: format!(
            "1e6 float64, c[0] = {:.6}{}",
            hc[0],
            off(bad, n, "the host")
        ),
        ok: bad == 0,
        gpu_seconds: t,
    })
}

fn matrix_multiply_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw("matrix_multiply.cu", MATRIX_MULTIPLY_CU)])
}

/// Seed 002 "matrix_multiply_kernel": naive 1024×1024×512 float32 with 16×16 blocks,
/// checked against cuBLAS (`ops::matmul`, full float32): the largest difference relative
/// to max(|C|, 1) stays below 1e-4. Where cuBLAS cannot be loaded, against a
/// double-precision host product instead (and the result says so).
fn matrix_multiply() -> R<Outcome> {
    let k = RawKernel::new(MATRIX_MULTIPLY_CU, "matrix_multiply");
    let (m, n, kk) = (1024usize, 1024usize, 512usize);
    let a = random::random(&[m, kk], F32)?;
    let b = random::random(&[kk, n], F32)?;
    let c = Array::zeros(&[m, n], F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    let launch = || k.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, kk as i32));
    launch()?;
    let hc = c.to_vec::<f32>()?;
    let (reference, against): (Vec<f64>, String) = match ops::matmul(&a, &b) {
        Ok(r) => {
            let cublas = gpu_time(|| ops::matmul(&a, &b).map(drop))?;
            let v = r.to_vec::<f32>()?.into_iter().map(f64::from).collect();
            (v, format!("cuBLAS ({})", super::fmt_time(cublas)))
        }
        Err(e) if e.kind() == cuprum::ErrorKind::Blas => (
            host::matmul(&a.to_vec::<f32>()?, &b.to_vec::<f32>()?, m, n, kk),
            "host (no cuBLAS)".to_owned(),
        ),
        Err(e) => return Err(e),
    };
    let worst = hc
        .iter()
        .zip(&reference)
        .map(|(&g, &r)| (g as f64 - r).abs() / r.abs().max(1.0))
        .fold(0.0f64, f64::max);
    let t = gpu_time(launch)?;
    Ok(Outcome {
        result: format!("C[0,0] = {:.3}, diff {worst:.0e} vs {against}", hc[0]),
        ok: worst < 1e-4 && reference.len() == hc.len(),
        gpu_seconds: t,
    })
}

fn activation_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw("activations.cu", ACTIVATIONS_CU)])
}

/// Seed 002 "RawModule with Multiple Kernels": ReLU and sigmoid of [-2, -1, 0, 1, 2]
/// through `apply_activation`, and the module's `vector_add`.
fn activation_module() -> R<Outcome> {
    let module = RawModule::new(ACTIVATIONS_CU);
    let activation = module.get_function("apply_activation")?;
    let add = module.get_function("vector_add")?;
    let input = [-2.0f32, -1.0, 0.0, 1.0, 2.0];
    let data = Array::from_slice(&input, &[5])?;
    let output = Array::zeros_like(&data)?;
    activation.launch(1, 256, (&data, &output, 5i32, 0i32))?;
    let relu = output.to_vec::<f32>()?;
    activation.launch(1, 256, (&data, &output, 5i32, 1i32))?;
    let sigmoid = output.to_vec::<f32>()?;
    let sum = Array::empty_like(&data)?;
    add.launch(1, 256, (&data, &data, &sum, 5i32))?;
    let twice = sum.to_vec::<f32>()?;
    let sigmoid_ok = sigmoid
        .iter()
        .zip(&input)
        .all(|(s, x)| (s - 1.0 / (1.0 + (-x).exp())).abs() < 1e-6);
    let ok =
        relu == [0.0, 0.0, 0.0, 1.0, 2.0] && sigmoid_ok && twice == [-4.0, -2.0, 0.0, 2.0, 4.0];
    let t = gpu_time(|| activation.launch(1, 256, (&data, &output, 5i32, 1i32)))?;
    Ok(Outcome {
        result: format!(
            "relu {}, sigmoid(2) = {:.4}, add{}",
            list(&relu),
            sigmoid[4],
            if twice == [-4.0, -2.0, 0.0, 2.0, 4.0] {
                String::new()
            } else {
                format!(" {}", list(&twice))
            }
        ),
        ok,
        gpu_seconds: t,
    })
}

fn smem_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "optimized_reduction.cu",
        OPTIMIZED_REDUCTION_CU,
    )])
}

/// Seed 002 "Kernel with shared memory optimization": block sums of 1e6 float32 in
/// dynamic shared memory, added on the host, against the host sum (rtol 1e-5).
fn shared_memory_reduction() -> R<Outcome> {
    let k = RawKernel::new(OPTIMIZED_REDUCTION_CU, "optimized_reduction");
    let n = 1_000_000usize;
    let data = random::random(&[n], F32)?;
    let (block, grid) = (256u32, (n as u32).div_ceil(256));
    let out = Array::zeros(&[grid as usize], F32)?;
    let launch = || {
        k.configure(grid, block)
            .shared_mem(block as usize * 4)
            .launch((&data, &out, n as i32))
    };
    launch()?;
    let gpu = kahan(out.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let host = kahan(data.to_vec::<f32>()?.iter().map(|&v| v as f64));
    let t = gpu_time(launch)?;
    Ok(Outcome {
        result: format!("Σ 1e6 = {gpu:.2} (host {host:.2})"),
        ok: close(gpu, host, 1e-5),
        gpu_seconds: t,
    })
}

// ---- prime-factor sum (seed 003) -------------------------------------------------------

fn prime_elementwise_kernel() -> R<ElementwiseKernel> {
    ElementwiseKernel::new("", "int64 A", PRIME_FACTOR_SUM_OP, "prime_factor_sum")
}

fn prime_raw_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "prime_factor_sum.cu",
        PRIME_FACTOR_SUM_CU,
    )])
}

fn prime_elementwise_programs() -> R<Vec<Program>> {
    Ok(vec![Program::elementwise(
        &prime_elementwise_kernel()?,
        &[I64],
        &[false],
    )?])
}

/// The seed's result line `[2 3 4 ... 287 77 42]`, against the host for every value.
pub(super) fn prime_outcome(v: &[i64], gpu_seconds: f64) -> Outcome {
    let want = host::prime_factor_sums_1m();
    let bad = v.iter().zip(want).filter(|(a, b)| a != b).count() + want.len().abs_diff(v.len());
    let n = v.len();
    Outcome {
        result: format!(
            "[{} {} {} ... {} {} {}]{}",
            v[0],
            v[1],
            v[2],
            v[n - 3],
            v[n - 2],
            v[n - 1],
            off(bad, want.len(), "the host")
        ),
        ok: bad == 0 && v[n - 3..] == [287, 77, 42],
        gpu_seconds,
    }
}

/// Seed 003 "Option 3: raw kernel": `primeFactorizationSum` over 999,999 int64.
fn prime_factor_sum_raw() -> R<Outcome> {
    let k = RawKernel::new(PRIME_FACTOR_SUM_CU, "primeFactorizationSum");
    let n = 1_000_000usize - 1;
    let a = Array::empty(&[n], I64)?;
    let blocks = (n as u32).div_ceil(256);
    let launch = || k.launch(blocks, 256, (&a, n as i32));
    launch()?;
    let v = a.to_vec::<i64>()?;
    Ok(prime_outcome(&v, gpu_time(launch)?))
}

/// Seed 003 "Option 2: easier kernels": the same as an ElementwiseKernel over `i`
/// (`examples/kernels/prime_factor_sum_elementwise.op`).
fn prime_factor_sum_elementwise() -> R<Outcome> {
    let k = prime_elementwise_kernel()?;
    let a = Array::empty(&[1_000_000 - 1], I64)?;
    k.run((&a,))?;
    let v = a.to_vec::<i64>()?;
    Ok(prime_outcome(&v, gpu_time(|| k.run((&a,)))?))
}
