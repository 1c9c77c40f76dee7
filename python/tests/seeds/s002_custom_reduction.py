"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Custom ReductionKernel".

As the seed gives it. Both ReductionKernels (`sum_of_squares`, `weighted_sum`) are constructed
with only SIX positional arguments, so with the real signature
`ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name=...)`
the string "0" becomes the post-map expression and the intended kernel name becomes the identity
(pasted into the generated code as `_type_reduce(sum_of_squares)`).

Expected behaviour: the first call, `sum_of_squares(data)`, fails to compile (a
CompileException: identifier "sum_of_squares" is undefined), so the program prints nothing and
exits non-zero. The seed's comments claim `55.0`, `[55.]` and a weighted mean; see
s002_custom_reduction_fixed.py for the minimally fixed version that prints them.
"""

import cupy as cp

# Define custom reduction operation (sum of squares)
sum_of_squares = cp.ReductionKernel(
    "float32 x",  # Input parameter
    "float32 out",  # Output parameter
    "x * x",  # Map expression (square each element)
    "a + b",  # Reduce expression (sum)
    "0",  # Identity value
    "sum_of_squares",  # Kernel name
)

# Test the kernel
data = cp.array([1, 2, 3, 4, 5], dtype=cp.float32)
result = sum_of_squares(data)
print(result)  # 55.0 (1² + 2² + 3² + 4² + 5²)

# Custom reduction with axis support
axis_result = sum_of_squares(data.reshape(1, -1), axis=1)
print(axis_result)  # [55.]

# More complex reduction: weighted mean
weighted_mean = cp.ReductionKernel(
    "float32 x, float32 w",
    "float32 out",
    "x * w",  # Multiply value by weight
    "a + b",  # Sum weighted values
    "0",
    "weighted_sum",
)

values = cp.array([1, 2, 3, 4], dtype=cp.float32)
weights = cp.array([0.1, 0.2, 0.3, 0.4], dtype=cp.float32)
weighted_sum = weighted_mean(values, weights)
total_weight = cp.sum(weights)
mean = weighted_sum / total_weight
print(f"Weighted mean: {mean}")
