"""Seed 003_01a76e35fee8379d.txt (course chapter "Custom kernels"),
section "Option 2: easier kernels", file prime_jit.py.

Sum of prime factors (with multiplicity) of every integer 2..1,000,000, one GPU thread per
number, written as a `@jit.rawkernel()` Python function (trial division with `while` loops,
`cp.int64(...)` casts inside the kernel body, early `return` for idx >= n). Launched with
3907 blocks x 256 threads through `benchmark(kernel, ((blocks,), (threads,), (A, n - 1)),
n_repeat=20)`; `n - 1` is a Python int (int32 in the JIT's typing).

Prints two lines: the benchmark result line (`primeFactorizationSum:    CPU: ... us ... GPU-0:
... us`) and `Primes sum array: [  2   3   4 ... 287  77  42]` (deterministic). The decorator
also emits a FutureWarning ("rawkernel is experimental") on stderr.
"""

import cupy as cp
from cupyx import jit
from cupyx.profiler import benchmark


@jit.rawkernel()
def primeFactorizationSum(A, n):
    # Calculate global thread ID
    idx = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
    if idx >= n:
        return

    # Use cp.int64 to explicitly enforce 'long long' C++ types
    num = cp.int64(idx) + 2
    total = cp.int64(0)

    if num % 2 == 0:
        count = 0
        while num % 2 == 0:
            num //= 2
            count += 1
        total += count * 2

    i = cp.int64(3)
    while i * i <= num:
        if num % i == 0:
            count = 0
            while num % i == 0:
                num //= i
                count += 1
            total += count * i
        i += 2

    if num > 1:
        total += num

    A[idx] = total


n = 1_000_000
A = cp.empty(n - 1, dtype=cp.int64)

threads = 256
blocks = (n - 1 + threads - 1) // threads

print(benchmark(primeFactorizationSum, ((blocks,), (threads,), (A, n - 1)), n_repeat=20))
print(f"Primes sum array: {A}")
