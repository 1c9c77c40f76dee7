"""Records CuPy's legacy random streams (cupy.random.seed / RandomState on cuRAND's XORWOW)
for `crates/cuprum/tests/random_cupy.rs`, which checks that cuprum draws the same numbers
bit for bit on a GPU. Run on a machine with CuPy and a GPU:

    python3 scripts/record_cupy_random.py [OUT]

OUT defaults to crates/cuprum/tests/fixtures/cupy_random.txt. One line per draw, in the
order drawn from one generator (the stream goes on from line to line until a `seed` line):

    seed <u64>
    <call> <dtype> <shape> <n> <hex64 ...>     (shorter draws: every value)
    <call> <dtype> <shape> <n> sum=<hex> first=<hex ...> last=<hex ...>   (longer ones)

A value is the bit pattern of the float64 (or int64) it holds, as 16 hex digits (float32
values widened to float64 first), so the comparison is exact.
"""

import sys

import cupy as cp
import numpy as np

FULL = 64  # draws up to this many values are recorded whole


def bits(a):
    a = cp.asnumpy(a).ravel()
    if a.dtype.kind == "f":
        a = a.astype(np.float64)
        return [f"{v:016x}" for v in a.view(np.uint64)]
    return [f"{int(v) & (2**64 - 1):016x}" for v in a.astype(np.int64)]


def line(call, a):
    shape = "x".join(str(d) for d in a.shape) or "()"
    n = a.size
    head = f"{call} {a.dtype.name} {shape} {n}"
    if n <= FULL:
        return head + " " + " ".join(bits(a))
    flat = bits(a)
    total = float(cp.asnumpy(a).astype(np.float64).sum())
    total_hex = f"{np.float64(total).view(np.uint64):016x}"
    return f"{head} sum={total_hex} first={','.join(flat[:8])} last={','.join(flat[-8:])}"


def session(out, seed):
    out.append(f"seed {seed}")
    cp.random.seed(seed)
    r = cp.random
    out.append(line("rand", r.rand(5)))
    out.append(line("rand", r.rand(7, dtype=cp.float32)))
    out.append(line("randn", r.randn(5)))
    out.append(line("randn", r.randn(4)))
    out.append(line("randn", r.randn(3, dtype=cp.float32)))
    out.append(line("random", r.random(3)))
    out.append(line("random", r.random((2, 3))))
    out.append(line("uniform(-3,5)", r.uniform(-3, 5, 6)))
    out.append(line("uniform(0,1)", r.uniform(0, 1, (2, 3), dtype=cp.float32)))
    out.append(line("uniform(0.1,0.7)", r.uniform(0.1, 0.7, 5, dtype=cp.float32)))
    out.append(line("normal(1.5,2)", r.normal(1.5, 2.0, 7)))
    out.append(line("normal(0.1,0.3)", r.normal(0.1, 0.3, 4, dtype=cp.float32)))
    out.append(line("normal(1.5,2)", r.normal(1.5, 2.0)))
    out.append(line("randint(0,10)", r.randint(0, 10, 9)))
    out.append(line("randint(-5,1000)", r.randint(-5, 1000, 11)))
    out.append(line("randint(0,16)", r.randint(0, 16, 6)))
    out.append(line("randint(0,2**40)", r.randint(0, 2**40, 5)))
    out.append(line("randint(5,6)", r.randint(5, 6, 4)))
    out.append(line("randint(7)", r.randint(7, size=5)))
    out.append(line("rand", r.rand(100_001)))
    out.append(line("randn", r.randn(100_001)))
    out.append(line("randn", r.randn(1000, 1000, dtype=cp.float32)))
    out.append(line("uniform(0,100)", r.uniform(0, 100, 1_000_000)))
    out.append(line("randint(0,1000)", r.randint(0, 1000, 100_000)))
    out.append(line("rand", r.rand(3)))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "crates/cuprum/tests/fixtures/cupy_random.txt"
    out = [
        (
            f"# CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, "
            f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: "
            "see scripts/record_cupy_random.py"
        ),
    ]
    for seed in (0, 1, 12345, 2**63 + 5):
        session(out, seed)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {len(out)} lines to {path}")


if __name__ == "__main__":
    main()
