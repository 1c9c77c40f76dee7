"""cuprum.linalg against CuPy's (cuSOLVER, cuBLAS) on one GPU: GPU time per call on the same
inputs (median of 20 calls after 2 warm-ups, 3 for calls over 50 ms, ``benchmark`` of each library), small stacks and
single matrices, float32 and float64.

    python3 python/benches/linalg_vs_cupy.py

Needs a GPU and CuPy. Prints one line per case: both times and cuprum ÷ CuPy.
"""

import cupy
import numpy as np
from cupyx.profiler import benchmark as cb

import cuprum
from cuprum.profiler import benchmark as rb


def main():
    rng = np.random.default_rng(0)
    for name, shape, dt in [
        ("svd", (64, 64), np.float32),
        ("svd", (100, 32, 32), np.float32),
        ("svd", (256, 128), np.float64),
        ("eigh", (64, 64), np.float64),
        ("eigh", (100, 16, 16), np.float32),
        ("solve", (256, 256), np.float64),
        ("inv", (100, 16, 16), np.float32),
        ("qr", (256, 64), np.float64),
        ("cholesky", (100, 32, 32), np.float64),
        ("svd", (8, 3, 3), np.float64),
        # single large matrices: where one block per matrix stops paying
        ("solve", (1024, 1024), np.float32),
        ("cholesky", (1024, 1024), np.float64),
        ("qr", (1024, 1024), np.float32),
        ("qr", (4096, 256), np.float64),
        ("svd", (256, 256), np.float32),
    ]:
        a = rng.standard_normal(shape).astype(dt)
        if name in ("eigh", "cholesky"):
            a = a @ a.swapaxes(-1, -2) + shape[-1] * np.eye(shape[-1], dtype=dt)
        args = (a, a[..., :1]) if name == "solve" else (a,)
        out = []
        for mod, bench in ((cupy, cb), (cuprum, rb)):
            xs = tuple(mod.asarray(x) for x in args)
            f = getattr(mod.linalg, name)
            try:
                f(*xs)  # (compiled and checked to run before timing)
                once = bench(f, xs, n_repeat=1, n_warmup=0)
                slow = float(np.max(once.gpu_times)) > 0.05
                t = bench(f, xs, n_repeat=3 if slow else 20, n_warmup=0 if slow else 2)
                out.append(float(np.median(t.gpu_times)) * 1e6)
            except Exception as e:  # noqa: BLE001
                out.append(float("nan"))
                print(mod.__name__, name, shape, "failed:", e)
        print(
            f"{name:9s} {shape!s:16s} {np.dtype(dt).name:8s} cupy {out[0]:10.1f} us  cuprum {out[1]:10.1f} us  ratio {out[1] / out[0]:6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
