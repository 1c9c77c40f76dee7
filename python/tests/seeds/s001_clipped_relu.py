"""Seed 001_057da2a9865e7777.txt ("Custom CUDA Kernels in CuPy"),
section "Definition: ElementwiseKernel".

An ElementwiseKernel `clipped_relu` (float64 x, float64 cap -> float64 y,
`y = min(max(x, 0.0), cap)`) applied to 10,000,000 unseeded standard-normal float64 values with
the Python scalar cap 6.0.

Prints nothing (the seed never looks at `y`); only the exit status says anything.
"""

import cupy as cp

clipped_relu = cp.ElementwiseKernel(
    "float64 x, float64 cap",  # input params
    "float64 y",  # output param
    "y = min(max(x, 0.0), cap)",  # CUDA C body
    "clipped_relu",  # kernel name
)
x = cp.random.randn(10_000_000)
y = clipped_relu(x, 6.0)  # runs on GPU
