// Seed 002 ("RawModule with Multiple Kernels"): relu/sigmoid and a vector add in one module.
extern "C" {
__device__ float activation_relu(float x) { return fmaxf(0.0f, x); }
__device__ float activation_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void apply_activation(const float* input, float* output, int size, int activation_type) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        float x = input[idx];
        if (activation_type == 0) output[idx] = activation_relu(x);
        else if (activation_type == 1) output[idx] = activation_sigmoid(x);
    }
}

__global__ void vector_add(const float* a, const float* b, float* c, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) c[idx] = a[idx] + b[idx];
}
}
