"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Custom ReductionKernel" -- MINIMALLY FIXED VARIANT.

Not the seed's program verbatim (that one is s002_custom_reduction.py, which fails to compile):
each ReductionKernel gets the post-map expression `out = a` that the seed leaves out (marked
`# fixed:`), so "0" is the identity and the last string the kernel name, as the seed's comments
intend. Everything else is as the seed has it.

`sum_of_squares` over [1, 2, 3, 4, 5] (full reduction -> 0-d array, then axis=1 on a (1, 5)
view), and `weighted_sum` of two float32 inputs divided by `cp.sum(weights)`.

Prints three lines: `55.0`, `[55.]`, `Weighted mean: <float32 value, 3.0 up to rounding>`
(deterministic; the data are fixed).
"""

import cupy as cp

# Define custom reduction operation (sum of squares)
sum_of_squares = cp.ReductionKernel(
    "float32 x",  # Input parameter
    "float32 out",  # Output parameter
    "x * x",  # Map expression (square each element)
    "a + b",  # Reduce expression (sum)
    "out = a",  # fixed: post-map expression, missing in the seed
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
    "out = a",  # fixed: post-map expression, missing in the seed
    "0",
    "weighted_sum",
)

values = cp.array([1, 2, 3, 4], dtype=cp.float32)
weights = cp.array([0.1, 0.2, 0.3, 0.4], dtype=cp.float32)
weighted_sum = weighted_mean(values, weights)
total_weight = cp.sum(weights)
mean = weighted_sum / total_weight
print(f"Weighted mean: {mean}")
