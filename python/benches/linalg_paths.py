"""cuprum.linalg's two paths side by side on one GPU: each one-block kernel (a block per
matrix) and the composed loop it replaces (a few launches per column), forced in turn, on
the same inputs; GPU time per call (median of 10 calls after a warm-up, 3 for calls over
50 ms). The constants of the rule that chooses between them (``one_block_pays``: each
kernel's rate and each loop's time a step) come from a run of this script.

    python3 python/benches/linalg_paths.py

Needs a GPU. Prints one line per case: the one-block and the composed time in ms.
"""

import numpy as np

import cuprum
from cuprum import _linalg_factor, _linalg_solve
from cuprum.profiler import benchmark


def gpu_ms(f, args):
    f(*args)  # compiled and checked to run before timing
    once = benchmark(f, args, n_repeat=1, n_warmup=0)
    slow = float(np.max(once.gpu_times)) > 0.05
    t = benchmark(f, args, n_repeat=3 if slow else 10, n_warmup=0 if slow else 1)
    return float(np.median(t.gpu_times)) * 1e3


def force(one_block):
    """Every cost rule answers ``one_block``."""
    rule = lambda *args: one_block
    _linalg_solve.one_block_pays = rule
    _linalg_factor.one_block_pays = rule


def main():
    rng = np.random.default_rng(0)
    cases = []
    for n in (64, 256, 512, 768, 1024):
        cases += [("solve", (n, n), np.float64), ("solve", (n, n), np.float32)]
        cases += [("cholesky", (n, n), np.float64), ("qr", (n, n), np.float32)]
    cases += [("qr", (2048, 256), np.float64), ("qr", (4096, 256), np.float64)]
    cases += [("solve", (500, 64, 64), np.float64), ("cholesky", (500, 64, 64), np.float64)]
    cases += [("qr", (200, 128, 32), np.float32)]
    print("function  shape            dtype    one-block ms  composed ms", flush=True)
    for name, shape, dt in cases:
        a = rng.standard_normal(shape).astype(dt)
        if name == "cholesky":
            a = a @ a.swapaxes(-1, -2) + shape[-1] * np.eye(shape[-1], dtype=dt)
        args = (a, a[..., :1].copy()) if name == "solve" else (a,)
        xs = tuple(cuprum.asarray(x) for x in args)
        f = getattr(cuprum.linalg, name)
        times = []
        for one_block in (True, False):
            force(one_block)
            times.append(gpu_ms(f, xs))
        print(
            f"{name:9s} {shape!s:16s} {np.dtype(dt).name:8s} {times[0]:12.3f} {times[1]:12.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
