"""Host time per call from Python, cuprum against CuPy in the same run: each library on its
own small arrays (4 float32 elements, so the GPU's work is negligible), and the time of
``import``. Prints a table and, last, one JSON line.

    python3 python/benches/host_overhead.py [--calls N] [--batches B]

Each figure is the median over B batches of N calls (µs per call), after warm-up: the host
time of the calls, the GPU synchronised after each batch outside the timed span (N is kept
below the depth of the GPU's launch queue, so no call waits for the GPU). A second table
times the same batches with the synchronisation inside the span: the rate at which calls
complete, bounded below by the GPU's own time per tiny kernel (a few µs), which no host
code can beat. CuPy's rows are absent where CuPy is not installed. The launch floor is a bare ``cuLaunchKernel`` called from
Python: one native call (``cuprum._cuprum._launch_empty``) that launches an empty kernel on
the current stream, what any Python library pays at least; the "- floor" column is each
row's excess over it. The same launch through ``ctypes`` (CuPy's compiled ``axpy``, absent
without CuPy or a GPU) is printed beside it: ctypes' own argument conversion makes it dearer
than a native call.
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


def per_call_us(f, sync, calls, batches, drain=False):
    """The median over ``batches`` of the host time per call of ``calls`` calls of ``f``.
    The GPU is synchronised after each batch, outside the timed span (``drain``: inside
    it, so the figure is the rate at which calls complete, the GPU's own time per tiny
    kernel included)."""
    for _ in range(3):
        f()
    sync()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        if drain:
            sync()
        times.append((time.perf_counter() - t0) / calls * 1e6)
        if not drain:
            sync()
    return statistics.median(times)


def import_ms(module, repeats=5):
    """The median wall time of `python -c 'import module'` minus the interpreter's own."""

    def run(code):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t0

    base = statistics.median(run("pass") for _ in range(repeats))
    return (statistics.median(run(f"import {module}") for _ in range(repeats)) - base) * 1e3


def suite(xp, calls, batches, drain=False):
    """The same operations in one library (`xp` is cuprum or cupy)."""
    n = 4
    x = xp.arange(n, dtype=xp.float32)
    y = xp.ones(n, dtype=xp.float32)
    ek = xp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    rk = xp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    raw = xp.RawKernel(RAW, "axpy")
    a = xp.float32(2.0)

    @xp.fuse(kernel_name="fused_add")
    def fused(x, y):
        return x + y * 2

    device = xp.cuda.Device()
    sync = device.synchronize
    rows = {
        "ElementwiseKernel": lambda: ek(x, y),
        "ReductionKernel": lambda: rk(x),
        "RawKernel": lambda: raw((1,), (32,), (x, y, a, n)),
        "fuse": lambda: fused(x, y),
        "a + b": lambda: x + y,
        "a * 2.0": lambda: x * 2.0,
        "x.sum()": lambda: x.sum(),
    }
    return {name: per_call_us(f, sync, calls, batches, drain) for name, f in rows.items()}


def launch_floor_us(calls, batches):
    """The launch floor: a native call from Python that launches cuprum's empty kernel."""
    import cuprum
    from cuprum import _cuprum

    return per_call_us(_cuprum._launch_empty, cuprum.cuda.Device().synchronize, calls, batches)


def ctypes_launch_us(calls, batches):
    """A bare cuLaunchKernel from Python through ctypes of CuPy's compiled `axpy` (None
    without CuPy or a GPU)."""
    import ctypes

    try:
        import cupy

        cuda = ctypes.CDLL("libcuda.so.1")
    except (ImportError, OSError):
        return None
    n = 4
    x = cupy.arange(n, dtype=cupy.float32)
    y = cupy.ones(n, dtype=cupy.float32)
    k = cupy.RawKernel(RAW, "axpy")
    k((1,), (32,), (x, y, cupy.float32(2.0), n))  # compiled, loaded, context current
    values = [
        ctypes.c_void_p(x.data.ptr),
        ctypes.c_void_p(y.data.ptr),
        ctypes.c_float(2.0),
        ctypes.c_int(n),
    ]
    params = (ctypes.c_void_p * 4)(
        *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values]
    )
    launch = cuda.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    launch.restype = ctypes.c_int
    func = ctypes.c_void_p(k.kernel.ptr)

    def call():
        rc = launch(func, 1, 1, 1, 32, 1, 1, 0, None, params, None)
        if rc != 0:
            raise RuntimeError(f"cuLaunchKernel returned {rc}")

    return per_call_us(call, cupy.cuda.Device().synchronize, calls, batches)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--batches", type=int, default=100)
    args = p.parse_args()
    import cuprum

    result = {"cuprum": suite(cuprum, args.calls, args.batches)}
    result["cuprum_drained"] = suite(cuprum, args.calls, args.batches, drain=True)
    result["launch_floor_us"] = launch_floor_us(args.calls, args.batches)
    result["import_ms"] = {"cuprum": import_ms("cuprum"), "numpy": import_ms("numpy")}
    try:
        import cupy

        result["cupy"] = suite(cupy, args.calls, args.batches)
        result["cupy_drained"] = suite(cupy, args.calls, args.batches, drain=True)
        result["import_ms"]["cupy"] = import_ms("cupy")
        result["ctypes_launch_us"] = ctypes_launch_us(args.calls, args.batches)
    except ImportError:
        pass
    floor = result["launch_floor_us"]
    print(f"{'launch floor (native cuLaunchKernel)':<38} {floor:9.2f}")
    if result.get("ctypes_launch_us"):
        print(f"{'the same launch through ctypes':<38} {result['ctypes_launch_us']:9.2f}")
    for key, title in (("", "host µs per call"), ("_drained", "µs per call, GPU drained")):
        print(f"{title:<24} {'cuprum':>9} {'CuPy':>9} {'ratio':>7} {'- floor':>8}")
        for name, us in result["cuprum" + key].items():
            theirs = result.get("cupy" + key, {}).get(name)
            ratio = f"{us / theirs:7.2f}" if theirs else "      -"
            nan = float("nan")
            print(f"{name:<24} {us:9.2f} {theirs or nan:9.2f} {ratio} {us - floor:8.2f}")
    imp = result["import_ms"]
    print(
        f"{'import (ms)':<20} {imp['cuprum']:9.1f} {imp.get('cupy', float('nan')):9.1f}"
        f"   (numpy alone {imp['numpy']:.1f})"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
