"""Seed 000_2a868a1965e00d88.txt ("CUDA Python Custom Kernels"),
section "Writing a CUDA Kernel with CuPy".

The seed shows this program commented out, next to a NumPy simulation of it (the simulation is
not reproduced here). An ElementwiseKernel `add_kernel` (float32 x, float32 y -> float32 z,
`z = x + y`) is applied to two 4-element float32 arrays.

Prints one line: `[11. 22. 33. 44.]` (the seed's comment writes it `[11, 22, 33, 44]`).
"""

import cupy as cp

# Element-wise kernel: each thread processes one element
add_kernel = cp.ElementwiseKernel(
    "float32 x, float32 y",  # input types
    "float32 z",  # output type
    "z = x + y",  # operation
    "add_kernel",  # kernel name
)

a = cp.array([1, 2, 3, 4], dtype=cp.float32)
b = cp.array([10, 20, 30, 40], dtype=cp.float32)
c = add_kernel(a, b)
print(c)  # [11, 22, 33, 44]
