"""The seeds' own ``benchmark(...)`` lines, CuPy against cuprum, on one GPU in one run.

Each seed program that times itself with ``cupyx.profiler.benchmark`` (the manifest's
``timing_lines`` select its ``name : CPU: … us GPU-0: … us`` lines) runs as written (CuPy) and
with only its import lines changed to cuprum's (``run_recorded.as_cuprum``), alternately,
``--rounds`` times; the table shows the median GPU-0 time of each side and their ratio
(cuprum ÷ CuPy; issue 42's target: ≤ 1, ``prime_cp.py``'s mask loop ≤ 0.1).

    python3 python/benches/seed_benchmarks.py [--rounds 3] [--only prime_cp.py ...]

Needs a GPU, CuPy, and cuprum importable. Prints the table, then one JSON line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import statistics
import sys
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "tests" / "seeds"
# ``name : CPU: 1.2 us +/- ... GPU-0: 3.4 us +/- ...`` (CuPy's format, cuprum's too)
GPU_TIME = re.compile(r"^(?P<name>\S+)\s*:\s+CPU:.*?GPU-0:\s*(?P<us>[0-9.eE+-]+)\s*us")


def _run_recorded():
    spec = importlib.util.spec_from_file_location("run_recorded", SEEDS / "run_recorded.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gpu_times(stdout):
    """``{benchmark name: GPU-0 µs}`` of a program's output."""
    return {
        m["name"]: float(m["us"])
        for m in (GPU_TIME.match(line.strip()) for line in stdout.splitlines())
        if m
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="runs of each side (alternating)")
    ap.add_argument("--only", nargs="+", metavar="FILE", help="only these seed programs")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per program run")
    args = ap.parse_args(argv)

    rr = _run_recorded()
    with rr.MANIFEST.open("rb") as f:
        manifest = rr.tomllib.load(f)
    names = [n for n, e in manifest.items() if "CPU:" in e.get("timing_lines", "")]
    if args.only:
        names = [n for n in names if n in args.only]
    rows = []
    for name in names:
        path = SEEDS / name
        copy = rr.as_cuprum(path)
        times = {"cupy": {}, "cuprum": {}}
        try:
            for _ in range(max(1, args.rounds)):
                for side, program in (("cupy", path), ("cuprum", copy)):
                    rc, out, err, _, timed_out = rr.run_one(sys.executable, program, args.timeout)
                    if rc != 0:
                        tail = err.strip().splitlines()[-1:] or ["(no output)"]
                        print(f"{name} ({side}): exit {rc}, timed out {timed_out}: {tail[0]}")
                        continue
                    for bench, us in _gpu_times(out).items():
                        times[side].setdefault(bench, []).append(us)
        finally:
            copy.unlink(missing_ok=True)
        for bench in sorted(set(times["cupy"]) | set(times["cuprum"])):
            cupy_us = statistics.median(times["cupy"].get(bench, [float("nan")]))
            ours_us = statistics.median(times["cuprum"].get(bench, [float("nan")]))
            rows.append(
                {
                    "program": name,
                    "benchmark": bench,
                    "cupy_gpu_us": cupy_us,
                    "cuprum_gpu_us": ours_us,
                    "ratio": ours_us / cupy_us if cupy_us else float("nan"),
                }
            )
    print(f"{'program':16s} {'benchmark':24s} {'CuPy µs':>12s} {'cuprum µs':>12s} {'ratio':>7s}")
    for r in rows:
        print(
            f"{r['program']:16s} {r['benchmark']:24s} {r['cupy_gpu_us']:12.1f} "
            f"{r['cuprum_gpu_us']:12.1f} {r['ratio']:7.3f}"
        )
    print(json.dumps({"seed_benchmarks": rows}))


if __name__ == "__main__":
    main()
