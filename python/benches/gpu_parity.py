"""GPU time of kernels called from Python against the same calls from Rust, in one run.

Each workload here is a row of ``cuprum bench`` (same kernel, sizes, dtypes and call), timed
from Python with ``cuprum.profiler.benchmark`` (the median of the GPU times between events
around each call). Give the Rust side as a ``cuprum bench --json`` output taken in the same
session; the table shows both and their ratio (Python ÷ Rust; the target is within 2 %).

    cuprum bench --filter <name> --json > rust.json     # or the whole bench
    python3 python/benches/gpu_parity.py --rust-json rust.json [--repeat 50]

Prints a table and, last, one JSON line. Without ``--rust-json`` only the Python times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import numpy as np

import cuprum as cp
from cuprum.profiler import benchmark

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "..", "examples", "kernels")

N = 100_000_000


def _source(name):
    with open(os.path.join(KERNELS, name)) as f:
        return f.read()


def _rand(shape, dtype):
    return cp.random.random(shape, dtype=dtype)


def ew_add(out):
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    x, y = _rand(N, cp.float32), _rand(N, cp.float32)
    if out:
        z = cp.empty(N, dtype=cp.float32)
        return lambda: k(x, y, z)
    return lambda: k(x, y)


def raw_add():
    k = cp.RawKernel(_source("vector_add_f32.cu"), "vector_add")
    a, b = _rand(N, cp.float32), _rand(N, cp.float32)
    c = cp.empty(N, dtype=cp.float32)
    blocks = (N + 255) // 256
    return lambda: k((blocks,), (256,), (a, b, c, np.int32(N)))


def prime_raw():
    k = cp.RawKernel(_source("prime_factor_sum.cu"), "primeFactorizationSum")
    n = 1_000_000
    a = cp.empty(n - 1, dtype=cp.int64)
    blocks = (n - 1 + 255) // 256
    return lambda: k((blocks,), (256,), (a, np.int32(n - 1)))


def mse():
    k = cp.ReductionKernel(
        "T y_pred, T y_true",
        "T mse_out",
        "(y_pred - y_true) * (y_pred - y_true)",
        "a + b",
        "mse_out = a / _in_ind.size()",
        "0",
        "mse_kernel",
    )
    x, y = _rand(N, cp.float64), _rand(N, cp.float64)
    return lambda: k(x, y)


def ssq(shape, axis):
    k = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_of_squares")
    x = _rand(shape, cp.float32)
    return lambda: k(x, axis=axis)


WORKLOADS = {
    "ew_add100M_f32": lambda: ew_add(False),
    "ew_add100M_f32_out": lambda: ew_add(True),
    "raw_add100M_f32": raw_add,
    "prime1M_raw": prime_raw,
    "mse100M_f64_ReductionKernel": mse,
    "ssq100M_f32_ReductionKernel": lambda: ssq((N,), None),
    "ssq_8192x8192_axis1": lambda: ssq((8192, 8192), 1),
    "ssq_8192x8192_axis0": lambda: ssq((8192, 8192), 0),
}


def python_gpu_us(make, repeat):
    """The median GPU time between events around each call (``benchmark``'s figure, which
    includes the host's time from the start event to the launch), and the GPU time per
    call of ``repeat`` calls queued back to back between two events (the kernels alone:
    the GPU never waits for the host while calls of a few hundred µs are queued)."""
    f = make()
    r = benchmark(f, n_repeat=repeat, n_warmup=5)
    each = statistics.median(float(t) for t in r.gpu_times[0]) * 1e6
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(repeat):
        f()
    stop.record()
    stop.synchronize()
    return each, cp.cuda.get_elapsed_time(start, stop) * 1e3 / repeat


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-json", help="a `cuprum bench --json` output of the same session")
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    rust = {}
    if args.rust_json:
        with open(args.rust_json) as f:
            rust = {w["name"]: w["gpu_us"] for w in json.load(f)["workloads"]}
    rows = []
    for name, make in WORKLOADS.items():
        py_us, queued_us = python_gpu_us(make, args.repeat)
        rs_us = rust.get(name)
        ratio = py_us / rs_us if rs_us else None
        rows.append(
            {
                "name": name,
                "python_gpu_us": py_us,
                "python_queued_gpu_us": queued_us,
                "rust_gpu_us": rs_us,
                "ratio": ratio,
                "queued_ratio": queued_us / rs_us if rs_us else None,
            }
        )
    print(
        f"{'workload':34} {'Python GPU µs':>14} {'queued':>8} {'Rust GPU µs':>12} "
        f"{'ratio':>7} {'queued':>7}"
    )
    for r in rows:
        rs = f"{r['rust_gpu_us']:12.1f}" if r["rust_gpu_us"] else f"{'-':>12}"
        ratio = f"{r['ratio']:7.3f}" if r["ratio"] else f"{'-':>7}"
        qr = f"{r['queued_ratio']:7.3f}" if r["queued_ratio"] else f"{'-':>7}"
        print(
            f"{r['name']:34} {r['python_gpu_us']:14.1f} {r['python_queued_gpu_us']:8.1f} "
            f"{rs} {ratio} {qr}"
        )
    print(json.dumps({"gpu_parity": rows}))


if __name__ == "__main__":
    main()
