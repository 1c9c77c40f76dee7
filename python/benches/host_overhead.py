"""Host time per call from Python, cuprum against CuPy in the same run: each library on its
own small arrays (4 float32 elements, so the GPU's work is negligible), and the time of
``import``. The ``empty_like`` row launches nothing: it is the cost of a call's output array
alone (from the pool, with its Python object), which every row that returns one pays on top
of its launch. Prints a table and, last, one JSON line.

    python3 python/benches/host_overhead.py [--calls N] [--batches B]

Each figure is the median over B batches of N calls (µs per call), after warm-up: the host
time of the calls, the GPU synchronised after each batch outside the timed span (N is kept
below the depth of the GPU's launch queue, so no call waits for the GPU). The rows' batches
interleave (a batch of each row in turn, B rounds), so a drift of the host reaches every row
alike. A second table times the same batches with the synchronisation inside the span: the
rate at which calls complete, bounded below by the GPU's own time per tiny kernel (a few
µs), which no host code can beat. CuPy's rows are absent where CuPy is not installed.

The launch floor is a bare ``cuLaunchKernel`` called from Python: one native call
(``cuprum._cuprum._launch_empty``) that launches an empty kernel on the current stream, what
any Python library pays at least; the "- floor" column is each row's excess over it. A
second floor launches an empty kernel that takes the RawKernel row's four parameters
(``_launch_empty(True)``: the driver copies each into the launch); the RawKernel row's
excess over it is what cuprum adds to that launch; the ``jit.rawkernel`` row launches the
same kernel written in Python (``cuprum.jit``; CuPy's ``cupyx.jit``), and its excess over the
RawKernel row is what the JIT's check of the argument types adds. The same launch through ``ctypes``
(CuPy's compiled ``axpy``, absent without CuPy or a GPU) is printed beside them: ctypes' own
argument conversion makes it dearer than a native call.
"""

from __future__ import annotations

import argparse
import importlib
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


def batch_us(f, sync, calls, drain):
    """The host time per call (µs) of one batch of ``calls`` calls of ``f``. The GPU is
    synchronised after the batch, outside the timed span (``drain``: inside it, so the
    figure is the rate at which calls complete, the GPU's own time per tiny kernel
    included)."""
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    if drain:
        sync()
    us = (time.perf_counter() - t0) / calls * 1e6
    if not drain:
        sync()
    return us


def per_call_us(rows, calls, batches, drain=False):
    """{name: the median over ``batches`` of :func:`batch_us`} for ``rows`` ({name: (f,
    sync)}), after warm-up. The rows' batches interleave (one batch of each row in turn,
    ``batches`` rounds), so the host's drift (clocks, other processes) reaches every row
    alike and the differences between rows (each row less the launch floor) hold within a
    run."""
    for f, sync in rows.values():
        for _ in range(3):
            f()
        sync()
    times = {name: [] for name in rows}
    for _ in range(batches):
        for name, (f, sync) in rows.items():
            times[name].append(batch_us(f, sync, calls, drain))
    return {name: statistics.median(t) for name, t in times.items()}


def import_ms(module, repeats=7):
    """The median time of ``import module`` in a new interpreter, timed inside it (the
    interpreter's own start-up, which varies by more than a light import takes, is not in
    the span)."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"

    def run():
        p = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        return float(p.stdout.strip().splitlines()[-1])

    return statistics.median(run() for _ in range(repeats)) * 1e3


def suite(xp):
    """{name: (call, sync)}: the same operations in one library (``xp`` is cuprum or cupy),
    each on that library's own arrays."""
    n = 4
    x = xp.arange(n, dtype=xp.float32)
    y = xp.ones(n, dtype=xp.float32)
    ek = xp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    rk = xp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    raw = xp.RawKernel(RAW, "axpy")
    a = xp.float32(2.0)

    jit = importlib.import_module("cuprum.jit" if xp.__name__ == "cuprum" else "cupyx.jit")

    @jit.rawkernel()
    def axpy_jit(x, y, a, n):
        i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        if i < n:
            y[i] = a * x[i] + y[i]

    @xp.fuse(kernel_name="fused_add")
    def fused(x, y):
        return x + y * 2

    sync = xp.cuda.Device().synchronize
    rows = {
        "ElementwiseKernel": lambda: ek(x, y),
        "ReductionKernel": lambda: rk(x),
        "RawKernel": lambda: raw((1,), (32,), (x, y, a, n)),
        # the same kernel written in Python (cuprum.jit; CuPy's cupyx.jit)
        "jit.rawkernel": lambda: axpy_jit((1,), (32,), (x, y, a, n)),
        "fuse": lambda: fused(x, y),
        "a + b": lambda: x + y,
        "a * 2.0": lambda: x * 2.0,
        "x.sum()": lambda: x.sum(),
        # No kernel: what the output of ElementwiseKernel's row costs by itself (an array
        # from the pool and its Python object), beside the launch floor.
        "empty_like": lambda: xp.empty_like(x),
    }
    return {name: (f, sync) for name, f in rows.items()}


def floors():
    """{name: (call, sync)}: the launch floors, native calls from Python that launch
    cuprum's empty kernel (``params``: the one taking ``axpy``'s four parameters)."""
    import cuprum
    from cuprum import _cuprum

    def launch_params():
        _cuprum._launch_empty(True)

    sync = cuprum.cuda.Device().synchronize
    return {"floor": (_cuprum._launch_empty, sync), "floor_params": (launch_params, sync)}


def ctypes_launch():
    """{'ctypes': (call, sync)}: a bare cuLaunchKernel from Python through ctypes of CuPy's
    compiled ``axpy`` ({} without CuPy or a GPU)."""
    import ctypes

    try:
        import cupy

        cuda = ctypes.CDLL("libcuda.so.1")
    except (ImportError, OSError):
        return {}
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

    # Keep the arrays and the packed values alive as long as the call.
    call.keep = (x, y, values, params)
    return {"ctypes": (call, cupy.cuda.Device().synchronize)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--batches", type=int, default=100)
    args = p.parse_args()
    import cuprum

    rows = {("cuprum", k): v for k, v in suite(cuprum).items()}
    rows.update({(k, None): v for k, v in floors().items()})
    libs = ["cuprum"]
    try:
        import cupy

        rows.update({("cupy", k): v for k, v in suite(cupy).items()})
        rows.update({(k, None): v for k, v in ctypes_launch().items()})
        libs.append("cupy")
    except ImportError:
        pass
    result = {}
    for key in ("", "_drained"):
        us = per_call_us(rows, args.calls, args.batches, drain=bool(key))
        for lib in libs:
            result[lib + key] = {name: t for (who, name), t in us.items() if who == lib}
        if not key:
            result["launch_floor_us"] = us[("floor", None)]
            result["launch_floor_params_us"] = us[("floor_params", None)]
            if ("ctypes", None) in us:
                result["ctypes_launch_us"] = us[("ctypes", None)]
    result["import_ms"] = {"cuprum": import_ms("cuprum"), "numpy": import_ms("numpy")}
    if "cupy" in libs:
        result["import_ms"]["cupy"] = import_ms("cupy")
    floor = result["launch_floor_us"]
    floor4 = result["launch_floor_params_us"]
    print(f"{'launch floor (native cuLaunchKernel)':<38} {floor:9.2f}")
    print(f"{'the floor with four parameters (axpy)':<38} {floor4:9.2f}")
    if result.get("ctypes_launch_us"):
        print(f"{'the same launch through ctypes':<38} {result['ctypes_launch_us']:9.2f}")
    for key, title in (("", "host µs per call"), ("_drained", "µs per call, GPU drained")):
        print(f"{title:<24} {'cuprum':>9} {'CuPy':>9} {'ratio':>7} {'- floor':>8}")
        for name, us in result["cuprum" + key].items():
            theirs = result.get("cupy" + key, {}).get(name)
            ratio = f"{us / theirs:7.2f}" if theirs else "      -"
            nan = float("nan")
            own = ""
            if name == "RawKernel" and not key:
                own = f"  ({us - floor4:.2f} over the four-parameter floor)"
            excess = "       -" if name == "empty_like" else f"{us - floor:8.2f}"
            print(f"{name:<24} {us:9.2f} {theirs or nan:9.2f} {ratio} {excess}{own}")
    imp = result["import_ms"]
    print(
        f"{'import (ms)':<20} {imp['cuprum']:9.1f} {imp.get('cupy', float('nan')):9.1f}"
        f"   (numpy alone {imp['numpy']:.1f})"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
