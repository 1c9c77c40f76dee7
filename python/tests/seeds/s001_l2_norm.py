"""Seed 001_057da2a9865e7777.txt ("Custom CUDA Kernels in CuPy"),
section "Definition: ReductionKernel".

A ReductionKernel `l2_norm_sq` (map `x * x`, reduce `a + b`, post-map `y = a`, identity `0`)
over 10,000,000 unseeded standard-normal float64 values; the full reduction gives a 0-d array,
whose square root is converted with float().

Prints one line: the L2 norm as a Python float (about 3162.3, i.e. sqrt(1e7); the exact value
depends on the unseeded random data).
"""

# completed: the seed's snippet continues the previous one and has no import line
import cupy as cp

l2_norm_squared = cp.ReductionKernel(
    "float64 x",  # input
    "float64 y",  # output
    "x * x",  # map expression
    "a + b",  # reduce expression
    "y = a",  # post-map (assign result)
    "0",  # identity value
    "l2_norm_sq",  # kernel name
)
x = cp.random.randn(10_000_000)
result = l2_norm_squared(x)  # sum of squares on GPU
print(float(cp.sqrt(result)))  # L2 norm
