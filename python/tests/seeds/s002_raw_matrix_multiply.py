"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / Advanced RawKernel".

A naive float32 RawKernel `matrix_multiply` (one thread per C element, 2-D grid of 16x16
blocks) on unseeded uniform [0, 1) matrices A (1024x512) and B (512x1024); the result is
compared with `cp.dot(A, B)` by `cp.allclose`. Python ints M, N, K go to `int` parameters.

Prints one line: `Results match: True`.
"""

import cupy as cp

# Define complex CUDA kernel
matrix_multiply_kernel = cp.RawKernel(
    r"""
extern "C" __global__
void matrix_multiply(const float* A, const float* B, float* C,
                     int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}
""",
    "matrix_multiply",
)

# Create test matrices
M, N, K = 1024, 1024, 512
A = cp.random.random((M, K), dtype=cp.float32)
B = cp.random.random((K, N), dtype=cp.float32)
C = cp.zeros((M, N), dtype=cp.float32)

# Configure kernel launch
block_size = (16, 16)
grid_size = (
    (N + block_size[0] - 1) // block_size[0],
    (M + block_size[1] - 1) // block_size[1],
)

# Execute kernel
matrix_multiply_kernel(
    grid_size,
    block_size,
    (A, B, C, M, N, K),  # Kernel arguments
)

# Verify result
expected = cp.dot(A, B)
print(f"Results match: {cp.allclose(C, expected)}")
