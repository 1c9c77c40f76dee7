//! The kernels several files of the bench share: the examples' `.cu` files of the RawKernel
//! workloads (CuPy's side reads the same, cupy.rs) and the sum-of-squares ReductionKernel
//! (the `ssq*` workloads and the reduction compile cases).

use cuprum::ReductionKernel;

pub const ADD_SRC: &str = include_str!("../../../../examples/kernels/vector_add_f32.cu");
pub const PRIME_SRC: &str = include_str!("../../../../examples/kernels/prime_factor_sum.cu");
pub const MATMUL_SRC: &str = include_str!("../../../../examples/kernels/matrix_multiply.cu");
pub const SMEM_SRC: &str = include_str!("../../../../examples/kernels/optimized_reduction.cu");

/// The seeds' `sum_of_squares` / `l2_norm_sq` ReductionKernel.
pub fn sum_of_squares() -> cuprum::Result<ReductionKernel> {
    ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = a",
        Some("0"),
        "sum_of_squares",
    )
}
