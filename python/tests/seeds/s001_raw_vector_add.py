"""Seed 001_057da2a9865e7777.txt ("Custom CUDA Kernels in CuPy"),
section "Definition: RawKernel - Full CUDA C Kernels".

A RawKernel `vector_add` on double (bounds-checked with `if (tid < n)`) adds two unseeded
standard-normal float64 vectors of n = 1,000,000 elements; launched with 3907 blocks x 256
threads; `n` is passed as a Python int to an `int` parameter.

Prints nothing (the seed never looks at `c`); only the exit status says anything.
"""

import cupy as cp

kernel_code = r"""
extern "C" __global__
void vector_add(const double* a, const double* b,
double* c, int n) {
int tid = blockIdx.x * blockDim.x + threadIdx.x;
if (tid < n) {
c[tid] = a[tid] + b[tid];
}
}
"""
vector_add = cp.RawKernel(kernel_code, "vector_add")
n = 1_000_000
a = cp.random.randn(n)
b = cp.random.randn(n)
c = cp.empty(n)
threads_per_block = 256
blocks = (n + threads_per_block - 1) // threads_per_block
vector_add((blocks,), (threads_per_block,), (a, b, c, n))
