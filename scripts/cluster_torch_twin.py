"""PyTorch's twin of `collectives bench`: the same four collectives on the same bytes
(float32, `MiB` MiB; all_gather sends and reduce_scatter receives 1/n of it), the same
timing (2 warm-ups, then 9 trials of 10 calls queued back to back and one synchronize, each
after a barrier; the median trial counts) and the same bus
bandwidth factors (nccl-tests'). Started by scripts/cluster-gpu-check with torchrun's
variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT); rank 0 prints one
`busbw torch …` line per collective.

    python3 cluster_torch_twin.py [MiB]
"""

import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    nbytes = mib << 20
    count = nbytes // 4
    big = torch.ones(count, dtype=torch.float32, device="cuda")
    out = torch.zeros(count, dtype=torch.float32, device="cuda")
    chunk = count // n
    small_in = torch.ones(chunk, dtype=torch.float32, device="cuda")
    small_out = torch.zeros(chunk, dtype=torch.float32, device="cuda")
    if rank == 0:
        v = ".".join(str(x) for x in torch.cuda.nccl.version())
        print(f"nccl torch {v}", flush=True)
    cases = [
        ("all_reduce", 2 * (n - 1) / n, lambda: dist.all_reduce(big)),
        ("all_gather", (n - 1) / n, lambda: dist.all_gather_into_tensor(out, small_in)),
        ("reduce_scatter", (n - 1) / n, lambda: dist.reduce_scatter_tensor(small_out, big)),
        ("broadcast", 1.0, lambda: dist.broadcast(big, 0)),
    ]
    for name, factor, run in cases:
        for _ in range(2):
            run()
        torch.cuda.synchronize()
        iters = 10
        trials = []
        for _ in range(9):
            dist.barrier()
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(iters):
                run()
            torch.cuda.synchronize()
            trials.append((time.perf_counter() - t) / iters)
        secs = sorted(trials)[len(trials) // 2]
        if rank == 0:
            busbw = nbytes / secs * factor / 1e9
            print(
                f"busbw torch {name} ranks={n} bytes={nbytes} time_us={secs * 1e6:.1f} "
                f"busbw_GBps={busbw:.1f}",
                flush=True,
            )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
