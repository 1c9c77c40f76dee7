"""Seed 003_01a76e35fee8379d.txt (course chapter "Custom kernels"),
section "Option 1: reformulate entirely", file prime_cp.py.

Sum of prime factors (with multiplicity) of every integer 2..1,000,000, reformulated as array
operations: a host sieve gives the 168 primes up to 1000, then for each prime a few rounds of
`mask = (nums % p == 0)`, `totals[mask] += p`, `nums[mask] //= p` on int64 arrays; leftover
`nums > 1` are added. Benchmarked with `benchmark(..., n_repeat=20)` (10 warm-up calls by
default), then run once more for the printout.

Prints two lines: the benchmark result line (`primeFactorizationSum:    CPU: ... us ... GPU-0:
... us`) and `Primes sum array: [  2   3   4 ... 287  77  42]` (deterministic).
"""

import math

import cupy as cp
from cupyx.profiler import benchmark


def get_small_primes(limit):
    """Simple CPU sieve to get primes up to sqrt(N)"""
    is_prime = [True] * (limit + 1)
    primes = []
    for p in range(2, limit + 1):
        if is_prime[p]:
            primes.append(p)
            for i in range(p * p, limit + 1, p):
                is_prime[i] = False
    return primes


n = 1_000_000


def primeFactorizationSum(n):
    # 1. Get primes up to sqrt(1,000,000) which is 1000.
    # There are only 168 primes up to 1000.
    small_primes = get_small_primes(int(math.sqrt(n)))

    # 2. Initialize the main arrays on the GPU
    # nums represents the numbers [2, 3, 4 ... 1,000,000]
    nums = cp.arange(2, n + 1, dtype=cp.int64)
    totals = cp.zeros(n - 1, dtype=cp.int64)

    # 3. Apply broadcasting to divide out the small primes
    for p in small_primes:
        # Calculate how many times 'p' could possibly divide into 'n'
        power = p
        max_iter = 0
        while power <= n:
            max_iter += 1
            power *= p

        # Repeatedly divide out the prime and add to total where applicable
        for _ in range(max_iter):
            mask = nums % p == 0  # Find all elements divisible by p
            totals[mask] += p  # Add p to their totals
            nums[mask] //= p  # Divide them by p

    # 4. Any numbers left in 'nums' greater than 1 are primes themselves
    # (e.g. for number 14, after dividing by 2, 'nums' holds 7)
    mask = nums > 1
    totals[mask] += nums[mask]

    return totals


# Wait for GPU to finish
cp.cuda.Stream.null.synchronize()

print(benchmark(primeFactorizationSum, (n,), n_repeat=20))
print(f"Primes sum array: {primeFactorizationSum(n)}")
