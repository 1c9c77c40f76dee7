"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Performance Optimization Techniques".

A RawKernel `optimized_reduction` (per-block tree sum in dynamic `extern __shared__` memory,
`shared_mem=block_size * 4`) over 1,000,000 unseeded uniform float32 values, launched 100 times
(3907 blocks x 256 threads) and timed with time.time() around the loop plus a null-stream
synchronize; the same for 100 calls of `cp.sum(data)`. Then the per-block partial sums are summed
with `cp.sum` and compared with the built-in sum by `cp.allclose`.

Prints three lines: `Custom kernel time: <s>s`, `Built-in sum time: <s>s` (timings, 4 decimals)
and `Results match: True`.
"""

import time

import cupy as cp

# Kernel with shared memory optimization
optimized_kernel = cp.RawKernel(
    r"""
extern "C" __global__
void optimized_reduction(const float* input, float* output, int size) {
    extern __shared__ float sdata[];

    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // Load data into shared memory
    sdata[tid] = (i < size) ? input[i] : 0;
    __syncthreads();

    // Perform reduction in shared memory
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    // Write result for this block to global memory
    if (tid == 0) output[blockIdx.x] = sdata[0];
}
""",
    "optimized_reduction",
)

# Benchmark against CuPy's built-in sum
data = cp.random.random(1000000, dtype=cp.float32)

# Time custom kernel
block_size = 256
grid_size = (data.size + block_size - 1) // block_size
output = cp.zeros(grid_size, dtype=cp.float32)

start_time = time.time()
for _ in range(100):
    optimized_kernel(
        (grid_size,),
        (block_size,),
        (data, output, data.size),
        shared_mem=block_size * 4,  # 4 bytes per float
    )
cp.cuda.Stream.null.synchronize()
custom_time = time.time() - start_time

# Time built-in sum
start_time = time.time()
for _ in range(100):
    builtin_result = cp.sum(data)
cp.cuda.Stream.null.synchronize()
builtin_time = time.time() - start_time

custom_result = cp.sum(output)
print(f"Custom kernel time: {custom_time:.4f}s")
print(f"Built-in sum time: {builtin_time:.4f}s")
print(f"Results match: {cp.allclose(custom_result, builtin_result)}")
