"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Memory-Efficient Patterns" -- MINIMALLY FIXED VARIANT.

Not the seed's program verbatim (that one is s002_memory_efficient.py, which fails to compile):
the in-place kernel's output parameter is renamed from `x` to `y` (marked `# fixed:`) so the
parameter names are distinct; passing `data` as both the input `x` and the output `y` still
updates it in place, which is what the seed means. Everything else is as the seed has it.

`inplace_transform` (`y = x * alpha + 1`, alpha = 2.0) on 1,000,000 unseeded uniform float32
values, written back into the same array; then a three-output kernel `trig_functions`
(sinf/cosf/tanf) on `cp.linspace(0, 2 * cp.pi, 1000, dtype=cp.float32)`, returned as a tuple,
checked with sin^2 + cos^2 == 1 by `cp.allclose`.

Prints two lines: `Same memory location: True` and `Identity check: True`.
"""

import cupy as cp

# In-place operation kernel
inplace_kernel = cp.ElementwiseKernel(
    "float32 x, float32 alpha",
    "float32 y",  # fixed: the seed reuses the name `x` here (duplicate parameter name)
    "y = x * alpha + 1",  # fixed: assigns to the renamed output
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
