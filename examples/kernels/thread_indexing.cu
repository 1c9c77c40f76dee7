// Seed 000 ("Raw CUDA Kernels", simulate_thread_indexing): one thread per element. Each
// thread records which block and thread handled its element and, when `verbose`, prints it
// as the seed does (lines of different threads may come out in any order).
extern "C" __global__
void thread_indexing(int* block_of, int* thread_of, int n, int verbose) {
    int global_id = blockIdx.x * blockDim.x + threadIdx.x;
    if (global_id < n) {
        block_of[global_id] = blockIdx.x;
        thread_of[global_id] = threadIdx.x;
        if (verbose) {
            printf("  Block %d, Thread %d -> Global ID %d -> data[%d]\n",
                   (int)blockIdx.x, (int)threadIdx.x, global_id, global_id);
        }
    }
}
