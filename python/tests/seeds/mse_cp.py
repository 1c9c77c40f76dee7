"""Seed 003_01a76e35fee8379d.txt (course chapter "Custom kernels"),
section "When not to write kernels?", file mse_cp.py.

Mean square error of two 10,000,000-element float64 arrays with plain array operations
(`cp.mean((y_true - y_pred)**2)`): unseeded ground truth uniform on [0, 100) plus normal noise
(scale 5.0). Times `mse_fn` with `benchmark(..., n_repeat=20)`.

Prints two lines: the benchmark result line (`mse_fn              :    CPU: ... us ... GPU-0: ...
us`) and `MSE: <value>` (about 25.0; the exact value depends on the unseeded random data).
"""

import cupy as cp
from cupyx.profiler import benchmark


# Function to calculate MSE
def mse_fn(y_true, y_pred):
    mse_out = cp.mean((y_true - y_pred) ** 2)
    return mse_out


# Dummy data
n_samples = 10_000_000
y_cp_true = cp.random.uniform(low=0.0, high=100.0, size=n_samples)
noise = cp.random.normal(loc=0.0, scale=5.0, size=n_samples)
y_cp_pred = y_cp_true + noise

# completed: the seed calls mse_fn(y_true, y_pred) but defines only y_cp_true / y_cp_pred
# (y_true / y_pred are the names of its NumPy version, mse_np.py); bind them to the device arrays
y_true, y_pred = y_cp_true, y_cp_pred

# Calculate MSE
mse = mse_fn(y_true, y_pred)

print(benchmark(mse_fn, (y_true, y_pred), n_repeat=20))
print(f"MSE: {mse}")
