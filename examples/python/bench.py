"""Host and GPU cost of cuprum_example.custom_add on torch tensors, against CuPy's way in
the same run (issue 26's benchmark). Needs PyTorch with CUDA; CuPy is optional.

- host µs per call on two 4-element float32 tensors (median of batches, after warm-up):
  cuprum (`ce.custom_add(x, y)`) vs CuPy's way (`cp.from_dlpack` twice, then the same
  ElementwiseKernel); targets: cuprum <= 8 µs and >= 9x faster than CuPy's;
- GPU µs per call on 1e8-element tensors (CUDA events around batches of back-to-back
  calls, median): cuprum from Python (with out=, on torch's stream) vs the Rust-only call
  (`_bench_custom_add_rust`, the same batches on cuprum's stream); target: within 2 %.

Prints one JSON line. Usage: python bench.py [--batches N] [--per-batch N] [--large-n N] [--large-reps N] [--large-batch N]
"""

import argparse
import json
import statistics
import sys
import time

import cuprum_example as ce


def host_us(f, batches, per_batch, warmup=200):
    for _ in range(warmup):
        f()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(per_batch):
            f()
        times.append((time.perf_counter_ns() - t0) / per_batch / 1e3)
    return statistics.median(times)


def gpu_us(torch, f, reps, batch, warmup=3):
    """GPU µs per call: `batch` back-to-back calls between two events (so the host's launch
    cost overlaps the GPU's work, as in a real program), median over `reps` batches."""
    for _ in range(warmup):
        f()
    times = []
    stream = torch.cuda.current_stream()
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(batch):
            f()
        end.record(stream)
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / batch)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=50)
    ap.add_argument("--per-batch", type=int, default=200)
    ap.add_argument("--large-n", type=int, default=100_000_000)
    ap.add_argument("--large-reps", type=int, default=15)
    ap.add_argument("--large-batch", type=int, default=10)
    args = ap.parse_args()

    try:
        import torch
    except ImportError as e:
        print(json.dumps({"error": f"no PyTorch: {e}"}))
        return 1
    if not torch.cuda.is_available():
        print(json.dumps({"error": "PyTorch has no CUDA device"}))
        return 1
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}

    x = torch.arange(1, 5, dtype=torch.float32, device="cuda")
    y = torch.arange(5, 9, dtype=torch.float32, device="cuda")
    assert torch.equal(torch.from_dlpack(ce.custom_add(x, y)), x + y * 2)
    res["cuprum_small_host_us"] = host_us(lambda: ce.custom_add(x, y), args.batches, args.per_batch)
    out = torch.empty_like(x)
    res["cuprum_small_out_host_us"] = host_us(
        lambda: ce.custom_add(x, y, out=out), args.batches, args.per_batch
    )
    res["torch_add_small_host_us"] = host_us(
        lambda: torch.add(x, y, alpha=2), args.batches, args.per_batch
    )
    # Where cuprum's host time goes (stage medians, µs), and what the producer's own entry
    # points cost on their own.
    res["cuprum_small_stages_us"] = ce._profile_custom_add(x, y, 2000)
    res["torch_dlpack_method_us"] = host_us(
        lambda: x.__dlpack__(stream=-1, max_version=(1, 0)), args.batches, args.per_batch
    )
    res["torch_dlpack_device_us"] = host_us(
        lambda: x.__dlpack_device__(), args.batches, args.per_batch
    )
    a = ce.custom_add(x, y)
    b = ce.custom_add(x, y)
    res["cuprum_arrays_host_us"] = host_us(
        lambda: ce.custom_add(a, b), args.batches, args.per_batch
    )
    try:
        import cupy as cp

        k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
        assert bool(
            cp.array_equal(
                k(cp.from_dlpack(x), cp.from_dlpack(y)),
                cp.asarray([11, 14, 17, 20], dtype=cp.float32),
            )
        )
        res["cupy"] = cp.__version__
        res["cupy_way_small_host_us"] = host_us(
            lambda: k(cp.from_dlpack(x), cp.from_dlpack(y)), args.batches, args.per_batch
        )
        res["speedup_vs_cupy"] = res["cupy_way_small_host_us"] / res["cuprum_small_host_us"]
    except ImportError:
        res["cupy_way_small_host_us"] = None
    torch.cuda.synchronize()

    n = args.large_n
    xl = torch.ones(n, dtype=torch.float32, device="cuda")
    yl = torch.ones(n, dtype=torch.float32, device="cuda")
    zl = torch.empty_like(xl)
    res["large_n"] = n
    res["cuprum_large_gpu_us"] = gpu_us(
        torch, lambda: ce.custom_add(xl, yl, out=zl), args.large_reps, args.large_batch
    )
    assert bool((zl == 3).all())
    # The same kernel on the same (torch's) memory from Rust on cuprum's own stream, and
    # torch's own add: tells a path cost from a memory (placement) difference.
    res["rust_on_torch_memory_large_gpu_us"] = ce._bench_custom_add_rust(
        n, args.large_reps, args.large_batch, on=(xl, yl, zl)
    )[1]
    res["torch_add_large_gpu_us"] = gpu_us(
        torch, lambda: torch.add(xl, yl, alpha=2, out=zl), args.large_reps, args.large_batch
    )
    xl = yl = zl = None  # freed before the next measurement
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    rust_host, rust_gpu = ce._bench_custom_add_rust(n, args.large_reps, args.large_batch)
    res["rust_large_gpu_us"] = rust_gpu
    res["rust_large_host_us"] = rust_host
    res["large_gpu_ratio"] = res["cuprum_large_gpu_us"] / rust_gpu
    res["targets"] = {
        "small_host_le_8us": res["cuprum_small_host_us"] <= 8.0,
        "speedup_ge_9x": (res.get("speedup_vs_cupy") or 0) >= 9.0,
        "large_gpu_within_2pct": abs(res["large_gpu_ratio"] - 1.0) <= 0.02,
    }
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
