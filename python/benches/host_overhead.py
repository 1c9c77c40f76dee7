"""Host time per call from Python, cuprum against CuPy in the same run: each library on its
own small arrays (4 float32 elements, so the GPU's work is negligible), and the time of
``import``. Prints a table and, last, one JSON line.

    python3 python/benches/host_overhead.py [--calls N] [--batches B]

Each figure is the median over B batches of N calls (µs per call), after warm-up; the GPU
is synchronised after each batch, so queued launches are paid for. CuPy's rows are absent
where CuPy is not installed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

RAW = r"""
extern "C" __global__ void axpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def per_call_us(f, sync, calls, batches):
    for _ in range(3):
        f()
    sync()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        sync()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def import_ms(module, repeats=5):
    """The median wall time of `python -c 'import module'` minus the interpreter's own."""

    def run(code):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t0

    base = statistics.median(run("pass") for _ in range(repeats))
    return (statistics.median(run(f"import {module}") for _ in range(repeats)) - base) * 1e3


def suite(xp, calls, batches):
    """The same operations in one library (`xp` is cuprum or cupy)."""
    n = 4
    x = xp.arange(n, dtype=xp.float32)
    y = xp.ones(n, dtype=xp.float32)
    ek = xp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    rk = xp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    raw = xp.RawKernel(RAW, "axpy")
    a = xp.float32(2.0)
    device = xp.cuda.Device()
    sync = device.synchronize
    rows = {
        "ElementwiseKernel": lambda: ek(x, y),
        "ReductionKernel": lambda: rk(x),
        "RawKernel": lambda: raw((1,), (32,), (x, y, a, n)),
        "a + b": lambda: x + y,
        "a * 2.0": lambda: x * 2.0,
        "x.sum()": lambda: x.sum(),
    }
    return {name: per_call_us(f, sync, calls, batches) for name, f in rows.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--batches", type=int, default=15)
    args = p.parse_args()
    import cuprum

    result = {"cuprum": suite(cuprum, args.calls, args.batches)}
    result["import_ms"] = {"cuprum": import_ms("cuprum")}
    try:
        import cupy

        result["cupy"] = suite(cupy, args.calls, args.batches)
        result["import_ms"]["cupy"] = import_ms("cupy")
    except ImportError:
        pass
    print(f"{'host µs per call':<20} {'cuprum':>9} {'CuPy':>9} {'ratio':>7}")
    for name, us in result["cuprum"].items():
        theirs = result.get("cupy", {}).get(name)
        ratio = f"{us / theirs:7.2f}" if theirs else "      -"
        print(f"{name:<20} {us:9.2f} {theirs if theirs else float('nan'):9.2f} {ratio}")
    imp = result["import_ms"]
    print(f"{'import (ms)':<20} {imp['cuprum']:9.1f} {imp.get('cupy', float('nan')):9.1f}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
