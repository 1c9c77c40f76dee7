"""Seed 003_01a76e35fee8379d.txt (course chapter "Custom kernels"),
section "Option 3: raw kernel", file prime_raw.py.

Sum of prime factors (with multiplicity) of every integer 2..1,000,000, one GPU thread per
number, as a CUDA C RawKernel (`long long*` output, `int n`; trial division). Launched with
3907 blocks x 256 threads through `benchmark(kernel, ((blocks,), (threads,), (A, n - 1)),
n_repeat=20)`.

Prints two lines: the benchmark result line (`primeFactorizationSum:    CPU: ... us ... GPU-0:
... us`) and `Primes sum array: [  2   3   4 ... 287  77  42]` (deterministic).
"""

import cupy as cp
from cupyx.profiler import benchmark

# Define the CUDA kernel — each GPU thread handles one number
primeFactorizationSum_kernel = cp.RawKernel(
    r"""
extern "C" __global__
void primeFactorizationSum(long long* A, int n) {
    int idx = blockDim.x * blockIdx.x + threadIdx.x;
    if (idx >= n) return;

    long long num = idx + 2;   // numbers 2..n
    long long total = 0;

    if (num % 2 == 0) {
        int count = 0;
        while (num % 2 == 0) { num /= 2; count++; }
        total += count * 2;
    }

    for (long long i = 3; i * i <= num; i += 2) {
        if (num % i == 0) {
            int count = 0;
            while (num % i == 0) { num /= i; count++; }
            total += count * i;
        }
    }

    if (num > 1) total += num;
    A[idx] = total;
}
""",
    "primeFactorizationSum",
)

n = 1_000_000
A = cp.empty(n - 1, dtype=cp.int64)

threads = 256
blocks = (n - 1 + threads - 1) // threads

print(benchmark(primeFactorizationSum_kernel, ((blocks,), (threads,), (A, n - 1)), n_repeat=20))
print(f"Primes sum array: {A}")
