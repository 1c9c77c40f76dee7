"""Seed 003_01a76e35fee8379d.txt (course chapter "Custom kernels"),
section "When not to write kernels?", file mse_reduc.py.

Mean square error as one generic ReductionKernel `mse_kernel` (type placeholder T, map
`(y_pred - y_true) * (y_pred - y_true)`, reduce `a + b`, post-map `mse_out = a / _in_ind.size()`,
identity `0`) over two unseeded 10,000,000-element float64 arrays (uniform [0, 100) plus normal
noise, scale 5.0). Times the kernel with `benchmark(..., n_repeat=20)`.

Prints two lines: the benchmark result line (`mse_kernel          :    CPU: ... us ... GPU-0:
... us`) and `MSE: <value>` (about 25.0; the exact value depends on the unseeded random data).
"""

import cupy as cp
from cupyx.profiler import benchmark

mse_kernel = cp.ReductionKernel(
    "T y_pred, T y_true",
    "T mse_out",
    "(y_pred - y_true) * (y_pred - y_true)",
    "a + b",
    "mse_out = a / _in_ind.size()",
    "0",
    "mse_kernel",
)

# Dummy data
n_samples = 10_000_000
y_cp_true = cp.random.uniform(low=0.0, high=100.0, size=n_samples)
noise = cp.random.normal(loc=0.0, scale=5.0, size=n_samples)
y_cp_pred = y_cp_true + noise

# Calculate MSE
mse = mse_kernel(y_cp_true, y_cp_pred)

print(benchmark(mse_kernel, (y_cp_true, y_cp_pred), n_repeat=20))
print(f"MSE: {mse}")
