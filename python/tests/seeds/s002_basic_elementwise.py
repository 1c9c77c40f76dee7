"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Basic ElementwiseKernel".

Two ElementwiseKernels on float32: `custom_add` (`z = x + y * 2`) on two 4-element arrays, and a
multi-statement `relu_transform` (a local `float temp`, a ternary ReLU) called with the Python
scalar alpha 0.5 (its result is computed but not printed).

Prints one line: `[11. 14. 17. 20.]` (the seed's comment writes it `[11, 14, 17, 20]`).
"""

import cupy as cp

# Define custom elementwise operation
add_kernel = cp.ElementwiseKernel(
    "float32 x, float32 y",  # Input parameters
    "float32 z",  # Output parameter
    "z = x + y * 2",  # Operation
    "custom_add",  # Kernel name
)

# Create input arrays
a = cp.array([1, 2, 3, 4], dtype=cp.float32)
b = cp.array([5, 6, 7, 8], dtype=cp.float32)

# Execute kernel
result = add_kernel(a, b)
print(result)  # [11, 14, 17, 20]

# More complex elementwise operation
complex_kernel = cp.ElementwiseKernel(
    "float32 x, float32 y, float32 alpha",
    "float32 z",
    """
    float temp = x * alpha + y;
    z = temp > 0 ? temp : 0;  // ReLU activation
    """,
    "relu_transform",
)

result = complex_kernel(a, b, 0.5)
