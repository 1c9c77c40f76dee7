"""``cuprum.jit`` kernels against their ``RawKernel`` twins (same algorithm, same launch).

Twins: seed 003's ``prime_jit.py`` kernel (sum of the prime factors of 2..1,000,000, one
thread per number, 3907 x 256 threads) against ``prime_raw.py``'s CUDA C++ (both read from
the seed files in ``python/tests/seeds/``), and a block
reduction in ``jit.shared_memory`` (float32 partial sums of 64 Mi elements: a grid-stride
loop, then a tree in shared memory, 1024 x 256 threads) against the same in CUDA C++.
For each twin:

- **GPU time per call**: the best of 3 alternating rounds of the median of ``--repeat``
  calls of ``profiler.benchmark`` (events around each call), and of the GPU time per call
  of ``--repeat`` calls queued back to back between two events; ratio JIT / raw (the
  target is <= 1.02).
- **First call, empty kernel cache**: in a new process per measurement with a fresh
  ``CUPRUM_CACHE_DIR`` (NVRTC already loaded there by an unrelated kernel), the JIT's
  decoration, translation, compile, launch and synchronisation against the RawKernel's
  construction, compile, launch and synchronisation (a one-block launch: the kernel's run
  is negligible); the median of ``--cold-repeat`` (9 on a GPU: one cold compile varies
  by a fifth from process to process). The target is JIT <= 1.3 x raw. The translation
  alone is shown beside it.
- **Host µs per launch after the first** (a one-block launch; the launches of a batch are
  timed without the synchronisation after them; best and median of interleaved
  ``--rounds``): the target is JIT <= raw + 1 µs.

With CuPy installed and a GPU, the same twins run through ``cupyx.jit`` and
``cupy.RawKernel`` (the same Python functions, their ``cp``/``jit`` names bound to CuPy's)
for comparison (CuPy's first call uses a fresh ``CUPY_CACHE_DIR``).

    python3 python/benches/jit_bench.py [--repeat 50] [--rounds 15] [--no-cupy]

On the host device (``CUPRUM_DEVICE=host``) the sizes are small, GPU timing and CuPy are
skipped; the results are still checked (JIT == raw) and the first-call and host-launch
figures printed. Prints the tables (GPU time, first call, host time) and, last, one JSON
line.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings

import numpy as np

import cuprum as cp
from cuprum import jit

# ------------------------------------------------------------------------------ twins


SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "seeds")


def _seed_tree(name):
    path = os.path.normpath(os.path.join(SEEDS, name))
    with open(path, encoding="utf-8") as f:
        return path, ast.parse(f.read(), filename=path)


def _seed_jit_function(name, func):
    """The seed's ``@jit.rawkernel()`` function ``func``, undecorated: compiled from the
    seed file's own lines (so the JIT reads its source there), ``cp`` and ``jit``
    cuprum's until ``Lib.decorate`` binds them to a library."""
    path, tree = _seed_tree(name)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == func:
            node.decorator_list = []
            module = ast.Module(body=[node], type_ignores=[])
            namespace = {"cp": cp, "jit": jit}
            exec(compile(module, path, "exec"), namespace)  # noqa: S102 (the seed file, ours)
            return namespace[func]
    raise LookupError(f"{path} has no function {func}")


def _seed_raw_source(name):
    """The CUDA C++ of the seed's ``cp.RawKernel(code, name)``: (code, name)."""
    path, tree = _seed_tree(name)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "RawKernel"
            and len(node.args) >= 2
            and all(isinstance(a, ast.Constant) for a in node.args[:2])
        ):
            return node.args[0].value, node.args[1].value
    raise LookupError(f"{path} has no RawKernel(code, name)")


# Seed 003's two versions of one kernel: prime_jit.py's Python and prime_raw.py's CUDA C++.
prime_factorization_sum = _seed_jit_function("prime_jit.py", "primeFactorizationSum")
PRIME_RAW, PRIME_RAW_NAME = _seed_raw_source("prime_raw.py")


def block_reduce(x, partial, n):
    smem = jit.shared_memory(cp.float32, 256)
    tid = jit.threadIdx.x
    acc = cp.float32(0)
    for i in range(jit.blockIdx.x * 256 + tid, n, jit.gridDim.x * 256):
        acc += x[i]
    smem[tid] = acc
    jit.syncthreads()
    s = 128
    while s > 0:
        if tid < s:
            smem[tid] += smem[tid + s]
        jit.syncthreads()
        s //= 2
    if tid == 0:
        partial[jit.blockIdx.x] = smem[0]


REDUCE_RAW = r"""
extern "C" __global__
void block_reduce(const float* x, float* partial, int n) {
    __shared__ float smem[256];
    unsigned int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * 256 + tid; i < n; i += gridDim.x * 256) acc += x[i];
    smem[tid] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (tid < s) smem[tid] += smem[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = smem[0];
}
"""

WARM_RAW = r"""
extern "C" __global__ void jit_bench_warm(int* out) { out[0] = 1; }
"""


def _prime_args(xp, n):
    """(grid, block, args for the JIT, args for the raw kernel, outputs to compare)."""
    a_jit = xp.zeros(n - 1, dtype=xp.int64)
    a_raw = xp.zeros(n - 1, dtype=xp.int64)
    grid = ((n - 1 + 255) // 256,)
    return grid, (256,), (a_jit, n - 1), (a_raw, n - 1), (a_jit, a_raw)


def _reduce_args(xp, n, blocks):
    x = xp.asarray(np.random.default_rng(7).random(n, dtype=np.float32))
    p_jit = xp.zeros(blocks, dtype=xp.float32)
    p_raw = xp.zeros(blocks, dtype=xp.float32)
    return (blocks,), (256,), (x, p_jit, n), (x, p_raw, n), (p_jit, p_raw)


def twins(small):
    """name -> (Python function, raw source, raw name, full-size args(xp), one-block
    args(xp))."""
    n_prime = 20_000 if small else 1_000_000
    n_red, b_red = (1 << 16, 16) if small else (1 << 26, 1024)
    return {
        "prime1M" if not small else "prime20k": (
            prime_factorization_sum,
            PRIME_RAW,
            PRIME_RAW_NAME,
            lambda xp: _prime_args(xp, n_prime),
            lambda xp: _prime_args(xp, 257),
        ),
        f"block_reduce{n_red >> 20}Mi_f32" if not small else "block_reduce64Ki_f32": (
            block_reduce,
            REDUCE_RAW,
            "block_reduce",
            lambda xp: _reduce_args(xp, n_red, b_red),
            lambda xp: _reduce_args(xp, 256, 1),
        ),
    }


# ------------------------------------------------------------------------------ libraries


class Lib:
    """cuprum or CuPy: the module, its JIT, its benchmark and what decorates a twin."""

    def __init__(self, name):
        self.name = name
        if name == "cuprum":
            self.xp, self.jit = cp, jit
            from cuprum.profiler import benchmark
        else:
            import cupy
            import cupyx.jit
            from cupyx.profiler import benchmark

            self.xp, self.jit = cupy, cupyx.jit
        self.benchmark = benchmark

    def decorate(self, f):
        """A new kernel object of ``f`` (its ``cp`` and ``jit`` names bound to this
        library): its first call translates and compiles."""
        g = types.FunctionType(f.__code__, {**f.__globals__, "cp": self.xp, "jit": self.jit})
        g.__name__ = f.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # CuPy: "rawkernel is experimental"
            return self.jit.rawkernel()(g)

    def sync(self):
        self.xp.cuda.Device().synchronize()

    def asnumpy(self, a):
        return self.xp.asnumpy(a)


def on_host():
    return cp.cuda.Device().compute_capability == "host"


# ------------------------------------------------------------------------------ measures


def gpu_us(lib, f, repeat):
    """(median GPU µs of ``repeat`` calls between events, GPU µs per call of ``repeat``
    calls queued back to back)."""
    r = lib.benchmark(f, n_repeat=repeat, n_warmup=5)
    each = statistics.median(float(t) for t in r.gpu_times[0]) * 1e6
    start, stop = lib.xp.cuda.Event(), lib.xp.cuda.Event()
    start.record()
    for _ in range(repeat):
        f()
    stop.record()
    stop.synchronize()
    return each, lib.xp.cuda.get_elapsed_time(start, stop) * 1e3 / repeat


def host_us(lib, calls_jit, calls_raw, rounds, calls=200):
    """Host µs per launch, interleaved rounds: {'jit': (best, median), 'raw': ...}."""
    out = {"jit": [], "raw": []}
    for _ in range(rounds):
        for side, f in (("raw", calls_raw), ("jit", calls_jit)):
            lib.sync()
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            t1 = time.perf_counter()
            lib.sync()
            out[side].append((t1 - t0) / calls * 1e6)
    return {k: (min(v), statistics.median(v)) for k, v in out.items()}


def run_twin(lib, name, twin, repeat, rounds, gpu):
    func, raw_src, raw_name, full, tiny = twin
    xp = lib.xp
    k_jit = lib.decorate(func)
    k_raw = xp.RawKernel(raw_src, raw_name)
    grid, block, a_jit, a_raw, outs = full(xp)
    k_jit(grid, block, a_jit)
    k_raw(grid, block, a_raw)
    lib.sync()
    got, want = lib.asnumpy(outs[0]), lib.asnumpy(outs[1])
    if not np.array_equal(got, want):
        raise AssertionError(f"{name} ({lib.name}): the JIT kernel's result differs from raw")
    row = {"twin": name, "lib": lib.name}
    if gpu:
        best = {"jit": (float("inf"),) * 2, "raw": (float("inf"),) * 2}
        for _ in range(3):
            for side, k, args in (("raw", k_raw, a_raw), ("jit", k_jit, a_jit)):
                t = gpu_us(lib, lambda k=k, args=args: k(grid, block, args), repeat)
                best[side] = tuple(min(a, b) for a, b in zip(best[side], t))
        row.update(
            jit_gpu_us=best["jit"][0],
            raw_gpu_us=best["raw"][0],
            ratio=best["jit"][0] / best["raw"][0],
            jit_queued_us=best["jit"][1],
            raw_queued_us=best["raw"][1],
            queued_ratio=best["jit"][1] / best["raw"][1],
        )
    g1, b1, t_jit, t_raw, _ = tiny(xp)
    k_jit(g1, b1, t_jit)  # the first launch with these arrays: not timed
    k_raw(g1, b1, t_raw)
    h = host_us(lib, lambda: k_jit(g1, b1, t_jit), lambda: k_raw(g1, b1, t_raw), rounds)
    row.update(
        jit_host_us=h["jit"][0],
        raw_host_us=h["raw"][0],
        host_diff_us=h["jit"][0] - h["raw"][0],
        jit_host_median_us=h["jit"][1],
        raw_host_median_us=h["raw"][1],
        host_median_diff_us=h["jit"][1] - h["raw"][1],
    )
    return row


# ------------------------------------------------------------------------------ first call


def cold_child(lib_name, twin_name, side):
    """In a fresh process with an empty kernel cache: the first call's ms (and the
    translation's alone for the JIT), printed as JSON."""
    lib = Lib(lib_name)
    xp = lib.xp
    twin = twins(on_host())[twin_name]
    func, raw_src, raw_name, _, tiny = twin
    warm = xp.zeros(1, dtype=xp.int32)
    xp.RawKernel(WARM_RAW, "jit_bench_warm")((1,), (1,), (warm,))  # NVRTC loaded, context up
    g1, b1, a_jit, a_raw, _ = tiny(xp)
    lib.sync()
    t0 = time.perf_counter()
    if side == "jit":
        k = lib.decorate(func)
        k(g1, b1, a_jit)
    else:
        k = xp.RawKernel(raw_src, raw_name)
        k(g1, b1, a_raw)
    lib.sync()
    out = {"first_ms": (time.perf_counter() - t0) * 1e3}
    if lib_name == "cuprum":
        out.update(_phases(lib, func, raw_src, raw_name, a_jit, a_raw, side))
    print(json.dumps(out))


def _phases(lib, func, raw_src, raw_name, a_jit, a_raw, side):
    """Where a first call's time goes (cuprum, after the measured call, so imports and
    the context are warm; a new kernel name so the cache misses again): translation,
    compile (NVRTC and module load), the first launch."""
    xp = lib.xp
    salt = f"_cold{os.getpid()}"
    t0 = time.perf_counter()
    if side == "jit":
        k = lib.decorate(func)
        code, name, _, coop = k._translate(k._keys(a_jit))
        t1 = time.perf_counter()
        # a new kernel name: a cache miss
        raw = xp.RawKernel(
            code.replace(name, name + salt), name + salt, enable_cooperative_groups=coop
        )
    else:
        t1 = time.perf_counter()
        raw = xp.RawKernel(raw_src.replace(raw_name, raw_name + salt), raw_name + salt)
    raw.compile()
    t2 = time.perf_counter()
    raw((1,), (1,), a_raw)
    lib.sync()
    t3 = time.perf_counter()
    return {
        "translate_ms": (t1 - t0) * 1e3,
        "compile_ms": (t2 - t1) * 1e3,
        "launch_ms": (t3 - t2) * 1e3,
    }


def cold(lib_name, twin_name, repeat):
    """{'jit', 'raw', 'translate', 'compile_jit', 'compile_raw': ms}: medians over ``repeat``
    alternating measurements (after one pair not counted), each in a new process with an
    empty cache folder."""
    res = {"jit": [], "raw": [], "translate": [], "compile_jit": [], "compile_raw": []}
    env = dict(os.environ)
    env.pop("CUPRUM_CACHE_IN_MEMORY", None)
    # A first pair, not counted: the first processes after an install write the package's
    # bytecode and fault in the libraries (an H200 run's first medians were 1.3-1.4 x where
    # the following runs gave 1.1 x, for the prime twin, whose two CUDA C++ sources match
    # line for line).
    for k in range(repeat + 1):
        for side in ("raw", "jit"):
            with tempfile.TemporaryDirectory(prefix="jit-bench-cache-") as d:
                env["CUPRUM_CACHE_DIR" if lib_name == "cuprum" else "CUPY_CACHE_DIR"] = d
                p = subprocess.run(
                    [sys.executable, __file__, "--cold-child", lib_name, twin_name, side],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
            if p.returncode != 0:
                raise RuntimeError(
                    f"first-call measurement ({lib_name}, {twin_name}, {side}) failed:\n{p.stderr}"
                )
            r = json.loads(p.stdout.strip().splitlines()[-1])
            if k == 0:
                continue
            res[side].append(r["first_ms"])
            if "translate_ms" in r and side == "jit":
                res["translate"].append(r["translate_ms"])
            if "compile_ms" in r:
                res[f"compile_{side}"].append(r["compile_ms"])
    return {k: statistics.median(v) if v else None for k, v in res.items()}


# ------------------------------------------------------------------------------ main


def _f(v, width, digits=1):
    return f"{v:{width}.{digits}f}" if v is not None else f"{'-':>{width}}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=50, help="calls per GPU timing")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of host-launch timing")
    ap.add_argument("--cold-repeat", type=int, default=None, help="first-call measurements")
    ap.add_argument("--no-cupy", action="store_true", help="leave CuPy out")
    ap.add_argument(
        "--cold-child", nargs=3, metavar=("LIB", "TWIN", "SIDE"), help=argparse.SUPPRESS
    )
    args = ap.parse_args()
    if args.cold_child:
        cold_child(*args.cold_child)
        return

    host = on_host()
    gpu = not host
    cold_repeat = args.cold_repeat or (1 if host else 9)
    libs = [Lib("cuprum")]
    cupy_note = "CuPy: left out"
    if gpu and not args.no_cupy:
        try:
            libs.append(Lib("cupy"))
            cupy_note = f"CuPy {libs[-1].xp.__version__}"
        except ImportError:
            cupy_note = "CuPy: not installed"
    elif host:
        cupy_note = "CuPy: skipped on the host device"
    cc = cp.cuda.Device().compute_capability
    device = "the host device" if host else f"a GPU of compute capability {cc[:-1]}.{cc[-1]}"
    print(f"jit_bench: cuprum on {device}; {cupy_note}")
    if host:
        print("GPU timing skipped: the host device runs kernels on the CPU (small sizes)")

    if host:
        print("on the host device a launch runs the kernel: host µs per launch include it")

    rows, colds, failed = [], [], []
    for lib in libs:
        for name, twin in twins(host).items():
            try:
                rows.append(run_twin(lib, name, twin, args.repeat, args.rounds, gpu))
                c = cold(lib.name, name, cold_repeat)
            except Exception as e:
                if lib.name == "cuprum":
                    raise
                # CuPy's JIT may refuse a twin: say so, keep cuprum's figures
                failed.append({"twin": name, "lib": lib.name, "error": f"{type(e).__name__}: {e}"})
                print(f"{name} with CuPy failed: {type(e).__name__}: {str(e)[:300]}")
                continue
            colds.append({"twin": name, "lib": lib.name, **c, "ratio": c["jit"] / c["raw"]})

    if gpu:
        print()
        print(
            f"{'GPU µs per call':24} {'lib':7} {'JIT':>10} {'raw':>10} {'ratio':>7}"
            f"   {'queued JIT':>10} {'raw':>10} {'ratio':>7}"
        )
        for r in rows:
            print(
                f"{r['twin']:24} {r['lib']:7} {_f(r['jit_gpu_us'], 10)} {_f(r['raw_gpu_us'], 10)}"
                f" {_f(r['ratio'], 7, 3)}   {_f(r['jit_queued_us'], 10)}"
                f" {_f(r['raw_queued_us'], 10)} {_f(r['queued_ratio'], 7, 3)}"
            )
    print()
    print(
        f"{'first call, empty cache':24} {'lib':7} {'JIT ms':>10} {'raw ms':>10} {'ratio':>7}"
        f"   {'translate ms':>12} {'compile JIT':>11} {'compile raw':>11}"
    )
    for c in colds:
        print(
            f"{c['twin']:24} {c['lib']:7} {_f(c['jit'], 10)} {_f(c['raw'], 10)}"
            f" {_f(c['ratio'], 7, 3)}   {_f(c['translate'], 12, 2)}"
            f" {_f(c.get('compile_jit'), 11)} {_f(c.get('compile_raw'), 11)}"
        )
    print()
    print(
        f"{'host µs per launch':24} {'lib':7} {'JIT best':>10} {'raw best':>10} {'JIT-raw':>8}"
        f"   {'JIT median':>10} {'raw median':>10} {'JIT-raw':>8}"
    )
    for r in rows:
        print(
            f"{r['twin']:24} {r['lib']:7} {_f(r['jit_host_us'], 10, 2)}"
            f" {_f(r['raw_host_us'], 10, 2)} {_f(r['host_diff_us'], 8, 2)}"
            f"   {_f(r['jit_host_median_us'], 10, 2)} {_f(r['raw_host_median_us'], 10, 2)}"
            f" {_f(r['host_median_diff_us'], 8, 2)}"
        )
    result = {"device": device, "calls": rows, "first_call": colds, "failed": failed}
    print(json.dumps({"jit_bench": result}))


if __name__ == "__main__":
    main()
