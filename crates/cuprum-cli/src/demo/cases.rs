//! The demo's cases: every example of the seed documents, each returning a one-line result
//! and timing its main call. The kernels, data and checks are the examples' own
//! (`examples/seeds/`, included in `main.rs`): here, each case's name, section, the
//! programs it compiles (for the compile-only table) and how it is timed.

use super::outcome::{Outcome, fmt_time, gpu_time};
use super::program::Program;
use super::{fused, jit_cases, masked};
use crate::seeds::check::Checked;
use crate::seeds::{elementwise, indexing, prime, raw, reduction};
use crate::seeds_jit as jit;
use cuprum::{Array, DType, ops};

type R<T> = cuprum::Result<T>;

/// The section a case is listed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Indexing,
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
            Group::Indexing => {
                "which thread handles which element (seed 000, printf from the kernel)"
            }
            Group::Elementwise => "ElementwiseKernel",
            Group::Reduction => "ReductionKernel",
            Group::Raw => "RawKernel / RawModule",
            Group::PrimeFactorSum => "prime-factor sum of 2..=1,000,000 (seed 003)",
            Group::Fusion => "cuprum::fuse (array math in one pass)",
            Group::Rust => "kernels written in Rust (#[cuprum::kernel])",
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
    /// Whether its checked run prints lines of its own (its kernel's `printf`): the demo
    /// then prints the case's row after them instead of around them.
    pub prints: bool,
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
            prints: false,
        }
    }
    let printing = |c: Case| Case { prints: true, ..c };
    vec![
        printing(case("thread_indexing", Indexing, indexing_programs, || {
            measured(indexing::thread_indexing(indexing::Lines::Print))
        })),
        printing(case("grid_stride", Indexing, grid_stride_programs, || {
            measured(indexing::grid_stride(indexing::Lines::Print))
        })),
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
        case("vector_add", Raw, vector_add_programs, || {
            measured(raw::vector_add())
        }),
        case("matrix_multiply", Raw, matrix_multiply_programs, || {
            measured(raw::matrix_multiply(cublas_or_host))
        }),
        case("activation_module", Raw, activation_programs, || {
            measured(raw::activation_module())
        }),
        case("shared_memory_reduction", Raw, smem_programs, || {
            measured(raw::shared_memory_reduction())
        }),
        case(
            "prime_factor_sum",
            PrimeFactorSum,
            prime_raw_programs,
            || measured(prime::raw()),
        ),
        case(
            "prime_factor_sum_elementwise",
            PrimeFactorSum,
            prime_elementwise_programs,
            || measured(prime::elementwise()),
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
            || measured(jit::vector_add()),
        ),
        case(
            "jit_matrix_multiply",
            Rust,
            jit_cases::matrix_multiply_programs,
            || measured(jit::matrix_multiply(cublas_or_host)),
        ),
        case(
            "jit_activations",
            Rust,
            jit_cases::activation_programs,
            || measured(jit::activations()),
        ),
        case(
            "jit_shared_memory_reduction",
            Rust,
            jit_cases::smem_programs,
            || measured(jit::shared_memory_reduction()),
        ),
        case(
            "jit_prime_factor_sum",
            Rust,
            jit_cases::prime_programs,
            || measured(jit::prime_factor_sum()),
        ),
        case(
            "jit_activations_enum",
            Rust,
            jit_cases::activations_enum_programs,
            || measured(crate::seeds_types::activations_enum()),
        ),
        case("nbody_step", Rust, jit_cases::nbody_programs, || {
            measured(crate::seeds_types::nbody())
        }),
    ]
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

// ---- RawKernel / RawModule (seeds 000, 001, 002), prime-factor sum (seed 003) -----------

fn indexing_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "thread_indexing.cu",
        indexing::THREAD_INDEXING_CU,
    )])
}

fn grid_stride_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "grid_stride_square.cu",
        indexing::GRID_STRIDE_CU,
    )])
}

fn vector_add_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "vector_add_f64.cu",
        raw::VECTOR_ADD_F64_CU,
    )])
}

fn matrix_multiply_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "matrix_multiply.cu",
        raw::MATRIX_MULTIPLY_CU,
    )])
}

/// The matrix-multiply seeds' reference: `ops::matmul` (full float32, its time in the
/// result; cuBLAS on a GPU, the host device's GEMM on the CPU, named as such), or a
/// double-precision host product where cuBLAS cannot be loaded (and the result says so).
pub(super) fn cublas_or_host(a: &Array, b: &Array) -> R<(Vec<f64>, String)> {
    match ops::matmul(a, b) {
        Ok(r) => {
            let time = gpu_time(|| ops::matmul(a, b).map(drop))?;
            let v = r.to_vec::<f32>()?.into_iter().map(f64::from).collect();
            // cuBLAS answers its version on a GPU; the host device multiplies without it.
            let by = match cuprum::runtime::cublas_version() {
                Ok(_) => "cuBLAS",
                Err(_) => "host GEMM",
            };
            Ok((v, format!("{by} ({})", fmt_time(time))))
        }
        Err(e) if e.kind() == cuprum::ErrorKind::Blas => {
            let (v, _) = raw::host_reference(a, b)?;
            Ok((v, "host (no cuBLAS)".to_owned()))
        }
        Err(e) => Err(e),
    }
}

fn activation_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw("activations.cu", raw::ACTIVATIONS_CU)])
}

fn smem_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "optimized_reduction.cu",
        raw::OPTIMIZED_REDUCTION_CU,
    )])
}

fn prime_raw_programs() -> R<Vec<Program>> {
    Ok(vec![Program::raw(
        "prime_factor_sum.cu",
        prime::PRIME_FACTOR_SUM_CU,
    )])
}

fn prime_elementwise_programs() -> R<Vec<Program>> {
    let k = prime::elementwise_kernel()?;
    Ok(vec![Program::elementwise(&k, &[I64], &[false])?])
}
