//! The fused functions of the `fuse_*` examples, shared with `cuprum demo` and the NVRTC
//! compile checks (included with `#[path]`, not an example itself).
#![allow(dead_code)]

use cuprum::fuse::{ArgSpec, Fused};
use cuprum::ops::Keepdims;
use cuprum::{DType, fuse};

/// Seed 003's MSE, `mean((y_true - y_pred) ** 2)`, fused: one ReductionKernel whose map is
/// `d * d` (the power is a multiplication) and whose post-map divides by the count.
pub fn mse() -> Fused {
    fuse("mse", |[y_true, y_pred]| (y_true - y_pred).pow(2).mean())
}

/// The L2 norm of everything, `sqrt(sum(x * x))`: one reduction with the square root in
/// its final stage.
pub fn l2_norm() -> Fused {
    fuse("l2_norm", |[x]| (x * x).sum().sqrt())
}

/// The L2 norm of each row (the last axis).
pub fn l2_norm_rows() -> Fused {
    fuse("l2_norm_rows", |[x]| {
        (x * x).sum_axis(-1, Keepdims::No).sqrt()
    })
}

/// Seed 001's `clipped_relu` (`min(max(x, 0), cap)`) followed by a scale, in one pass; `cap`
/// and `scale` are scalar arguments (kernel parameters).
pub fn clipped_relu_scale() -> Fused {
    fuse("clipped_relu_scale", |[x, cap, scale]| {
        x.clip(0.0, cap) * scale
    })
}

/// Softmax over rows, `exp(x - max) / sum(exp(x - max))` along the last axis: a plan of
/// three kernels (the row maximum, the row sum of the exponentials, the quotient), since a
/// reduced value is used again on the row's elements.
pub fn softmax_rows() -> Fused {
    fuse("softmax_rows", |[x]| {
        let e = (x - x.max_axis(-1, Keepdims::Yes)).exp();
        e / e.sum_axis(-1, Keepdims::Yes)
    })
}

/// Every example's function with the argument types its example calls it with (for the
/// NVRTC checks and the demo without a GPU).
pub fn all_with_args() -> Vec<(Fused, Vec<ArgSpec>)> {
    vec![
        (mse(), vec![ArgSpec::array(DType::F64, &[10_000_000]); 2]),
        (l2_norm(), vec![ArgSpec::array(DType::F64, &[10_000_000])]),
        (l2_norm_rows(), vec![ArgSpec::array(DType::F32, &[2, 5])]),
        (
            clipped_relu_scale(),
            vec![
                ArgSpec::array(DType::F32, &[1000, 1000]),
                ArgSpec::scalar(DType::F32),
                ArgSpec::scalar(DType::F32),
            ],
        ),
        (
            softmax_rows(),
            vec![ArgSpec::array(DType::F32, &[1000, 1000])],
        ),
    ]
}
