"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Memory-Efficient Patterns".

As the seed gives it. The "in-place" ElementwiseKernel declares `float32 x` both as an input and
as the output parameter, and is called as `inplace_kernel(data, 2.0, data)`; then a
three-output kernel `trig_functions` (sinf/cosf/tanf) runs on `cp.linspace(0, 2 * cp.pi, 1000,
dtype=cp.float32)` and the outputs are checked with sin^2 + cos^2 == 1.

Expected behaviour: the generated kernel has two parameters named `_raw_x` (and two locals `x`),
so the first call fails to compile (a CompileException: duplicate parameter name); the program
prints nothing and exits non-zero. See s002_memory_efficient_fixed.py for the minimally fixed
version, which prints `Same memory location: True` and `Identity check: True`.
"""

import cupy as cp

# In-place operation kernel
inplace_kernel = cp.ElementwiseKernel(
    "float32 x, float32 alpha",
    "float32 x",  # Same array for input and output
    "x = x * alpha + 1",
    "inplace_transform",
)

# Create data
data = cp.random.random(1000000, dtype=cp.float32)
original_ptr = data.data.ptr

# Apply in-place transformation
inplace_kernel(data, 2.0, data)  # Modify data in-place

# Verify same memory location
print(f"Same memory location: {data.data.ptr == original_ptr}")

# Kernel with multiple outputs
multi_output_kernel = cp.ElementwiseKernel(
    "float32 x",
    "float32 sin_x, float32 cos_x, float32 tan_x",
    """
    sin_x = sinf(x);
    cos_x = cosf(x);
    tan_x = tanf(x);
    """,
    "trig_functions",
)

# Compute multiple trigonometric functions simultaneously
angles = cp.linspace(0, 2 * cp.pi, 1000, dtype=cp.float32)
sin_vals, cos_vals, tan_vals = multi_output_kernel(angles)

print(f"Identity check: {cp.allclose(sin_vals**2 + cos_vals**2, 1.0)}")
