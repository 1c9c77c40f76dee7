// Seed 000 ("Grid-Stride Loops", simulate_grid_stride): a fixed number of threads squares
// any number of elements, each starting at its global id and striding by the total thread
// count. Each element records which block and thread handled it and, when `verbose`, the
// thread prints it as the seed does (lines of different threads may come out in any order).
extern "C" __global__
void grid_stride_square(const int* data, int* result, int* block_of, int* thread_of, int n,
                        int verbose) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int idx = tid; idx < n; idx += stride) {
        int v = data[idx];
        result[idx] = v * v;
        block_of[idx] = blockIdx.x;
        thread_of[idx] = threadIdx.x;
        if (verbose) {
            printf("  Thread %d: data[%d] = %d -> %d\n", tid, idx, v, v * v);
        }
    }
}
