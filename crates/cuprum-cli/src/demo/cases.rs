//! The demo's cases: every example of the seed documents, ported from `examples/*.rs`
//! (same kernels, same data, same checks), each returning a one-line result and timing
//! its main call. The raw kernels and the elementwise prime-factor operation are the
//! files in `examples/kernels/`, shared with the examples and `cuprum bench`.

use super::fused;
use super::masked;
#[path = "jit_cases.rs"]
mod jit_cases;

use super::check::{Checked, close, kahan, list, off};
use super::reference as host;
use super::{elementwise, reduction};
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::{Array, DType, ElementwiseKernel, RawKernel, RawModule, ReductionKernel, ops, random};
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
        case("custom_add", Elementwise, custom_add_programs, || {
            measured(elementwise::custom_add())
        }),
        case(
            "relu_transform",
            Elementwise,
            relu_transform_programs,
            || measured(elementwise::relu_transform()),
        ),
        case("clipped_relu", Elementwise, clipped_relu_programs, || {
            measured(elementwise::clipped_relu())
        }),
        case("inplace_transform", Elementwise, inplace_programs, || {
            measured(elementwise::inplace_transform())
        }),
        case("trig_functions", Elementwise, trig_programs, || {
            measured(elementwise::trig_functions())
        }),
        case("abs_squared", Elementwise, abs_squared_programs, || {
            measured(elementwise::abs_squared())
        }),
        case("sum_of_squares", Reduction, sum_of_squares_programs, || {
            measured(reduction::sum_of_squares())
        }),
        case("sum_of_squares axis=1", Reduction, no_new_programs, || {
            measured(reduction::sum_of_squares_axis())
        }),
        case("weighted_mean", Reduction, weighted_mean_programs, || {
            measured(reduction::weighted_mean())
        }),
        case("l2_norm", Reduction, l2_norm_programs, || {
            measured(reduction::l2_norm())
        }),
        case(
            "mse",
            Reduction,
            mse_programs,
            || measured(reduction::mse()),
        ),
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

fn no_new_programs() -> R<Vec<Program>> {
    Ok(Vec::new())
}

use DType::{C128, F32, F64, I64};

// ---- ElementwiseKernel (seeds 000, 001, 002) and ReductionKernel (001, 002, 003) --------
// The kernels, data and checks are the examples' (`examples/seeds/`); here, what each case
// compiles.

/// Times a seed's main call once it is checked.
fn measured(checked: R<Checked>) -> R<Outcome> {
    let mut c = checked?;
    let gpu_seconds = gpu_time(&mut c.timed)?;
    Ok(Outcome {
        result: c.result,
        ok: c.ok,
        gpu_seconds,
    })
}

fn custom_add_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::elementwise(&elementwise::custom_add_kernel()?, &[F32; 3], &[false; 3])?,
        Program::elementwise(&elementwise::add_kernel()?, &[F32; 3], &[false; 3])?,
    ])
}

fn relu_transform_programs() -> R<Vec<Program>> {
    let k = elementwise::relu_transform_kernel()?;
    Ok(vec![Program::elementwise(
        &k,
        &[F32; 4],
        &[false, false, true, false],
    )?])
}

fn clipped_relu_programs() -> R<Vec<Program>> {
    let k = elementwise::clipped_relu_kernel()?;
    Ok(vec![Program::elementwise(
        &k,
        &[F64; 3],
        &[false, true, false],
    )?])
}

fn inplace_programs() -> R<Vec<Program>> {
    let k = elementwise::inplace_kernel()?;
    Ok(vec![Program::elementwise(
        &k,
        &[F32; 3],
        &[false, true, false],
    )?])
}

fn trig_programs() -> R<Vec<Program>> {
    let k = elementwise::trig_kernel()?;
    Ok(vec![Program::elementwise(&k, &[F32; 4], &[false; 4])?])
}

fn abs_squared_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::elementwise(&elementwise::abs2_kernel()?, &[C128, F64], &[false; 2])?,
        Program::elementwise(
            &elementwise::make_complex_kernel()?,
            &[F64, F64, C128],
            &[false; 3],
        )?,
    ])
}

fn sum_of_squares_programs() -> R<Vec<Program>> {
    let k = reduction::sum_of_squares_kernel()?;
    Ok(vec![Program::reduction(&k, &[F32; 2], &[false; 2])?])
}

fn weighted_mean_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::reduction(&reduction::weighted_sum_kernel()?, &[F32; 3], &[false; 3])?,
        Program::reduction(&reduction::weighted_sums_kernel()?, &[F32; 4], &[false; 4])?,
    ])
}

fn l2_norm_programs() -> R<Vec<Program>> {
    Ok(vec![
        Program::reduction(&reduction::l2_norm_sq_kernel()?, &[F64; 2], &[false; 2])?,
        Program::reduction(&reduction::l2norm_kernel()?, &[F64; 2], &[false; 2])?,
    ])
}

fn mse_programs() -> R<Vec<Program>> {
    let k = reduction::mse_kernel()?;
    Ok(vec![Program::reduction(&k, &[F64; 3], &[false; 3])?])
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
