"""Seed 000_2a868a1965e00d88.txt ("CUDA Python Custom Kernels"), section "Raw CUDA Kernels".

The seed shows this program commented out, next to a NumPy simulation of thread indexing (the
simulation is not reproduced here). A RawKernel `vector_add` (float32, bounds-checked with
`if (tid < n)`) adds two random float32 vectors of n = 1000 elements; launched with
4 blocks x 256 threads.

Prints nothing (the seed never looks at `c`); only the exit status says anything.
"""

import cupy as cp

raw_kernel = cp.RawKernel(
    r"""
extern "C" __global__
void vector_add(const float* a, const float* b, float* c, int n) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n) {
        c[tid] = a[tid] + b[tid];
    }
}
""",
    "vector_add",
)

n = 1000
a = cp.random.randn(n, dtype=cp.float32)
b = cp.random.randn(n, dtype=cp.float32)
c = cp.empty(n, dtype=cp.float32)

threads_per_block = 256
blocks = (n + threads_per_block - 1) // threads_per_block
raw_kernel((blocks,), (threads_per_block,), (a, b, c, n))
