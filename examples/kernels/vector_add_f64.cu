// Seed 001 ("RawKernel — Full CUDA C Kernels"): the float64 vector add.
extern "C" __global__
void vector_add(const double* a, const double* b, double* c, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        c[tid] = a[tid] + b[tid];
    }
}
