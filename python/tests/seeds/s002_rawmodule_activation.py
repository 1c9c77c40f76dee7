"""Seed 002_d61efab219bd65e0.txt ("Custom Kernels", an API reference page),
section "Usage Examples / RawModule with Multiple Kernels".

A RawModule (`code=` keyword) with two `__device__` helpers and two `__global__` kernels inside
one `extern "C" { ... }` block; `get_function` fetches `apply_activation` and `vector_add` (the
latter is never launched). `apply_activation` runs on [-2, -1, 0, 1, 2] (float32) with
activation_type 0 (ReLU) and then 1 (sigmoid), writing into the same output array. Python ints
(`data.size`, 0, 1) go to `int` parameters.

Prints two lines: `ReLU: [0. 0. 0. 1. 2.]` and `Sigmoid: [...]` with the five float32 sigmoid
values (about 0.1192, 0.2689, 0.5, 0.7311, 0.8808) as NumPy prints them; deterministic.
"""

import cupy as cp

# Define module with multiple related kernels
cuda_module_code = r"""
extern "C" {

__device__ float activation_relu(float x) {
    return fmaxf(0.0f, x);
}

__device__ float activation_sigmoid(float x) {
    return 1.0f / (1.0f + expf(-x));
}

__global__ void apply_activation(const float* input, float* output,
                                int size, int activation_type) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        float x = input[idx];
        if (activation_type == 0) {
            output[idx] = activation_relu(x);
        } else if (activation_type == 1) {
            output[idx] = activation_sigmoid(x);
        }
    }
}

__global__ void vector_add(const float* a, const float* b,
                          float* c, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        c[idx] = a[idx] + b[idx];
    }
}

}
"""

# Load module
module = cp.RawModule(code=cuda_module_code)

# Get kernel functions
activation_kernel = module.get_function("apply_activation")
add_kernel = module.get_function("vector_add")

# Test activation kernel
data = cp.array([-2, -1, 0, 1, 2], dtype=cp.float32)
output = cp.zeros_like(data)

block_size = 256
grid_size = (len(data) + block_size - 1) // block_size

# Apply ReLU (activation_type=0)
activation_kernel((grid_size,), (block_size,), (data, output, data.size, 0))
print(f"ReLU: {output}")  # [0, 0, 0, 1, 2]

# Apply Sigmoid (activation_type=1)
activation_kernel((grid_size,), (block_size,), (data, output, data.size, 1))
print(f"Sigmoid: {output}")
