"""A kernel that faults raises ``cuprum.CuprumError`` (kind ``KernelFault`` or the driver's)
and the interpreter keeps running with its data: NumPy arrays and arrays already copied
back are intact, and the error names what happened. Runs in a child process, since on a
GPU a fault ends the CUDA context for the rest of that process (the host device stays
usable, which the child checks there)."""

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    import json, os
    import numpy as np
    import cuprum as cp

    src = r'''
    extern "C" __global__ void trap_if(const int* x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n && x[i] == 3) __trap();
    }
    '''
    m = cp.RawModule(code=src)
    host = np.arange(10, dtype=np.int32)
    kept = cp.asarray(host * 2).get()
    report = {}
    x = cp.asarray(host)
    try:
        m.get_function("trap_if")((1,), (32,), (x, np.int32(10)))
        cp.cuda.Device().synchronize()
        report["raised"] = None
    except Exception as e:  # noqa: BLE001
        report["raised"] = [type(e).__name__, isinstance(e, cp.CuprumError), str(e)[:300]]
    report["host_intact"] = host.tolist() == list(range(10))
    report["copied_intact"] = kept.tolist() == [2 * i for i in range(10)]
    try:
        y = cp.asarray(np.ones(4, np.float32)) + 1
        report["after"] = ["ok", y.get().tolist()]
    except Exception as e:  # noqa: BLE001
        report["after"] = [type(e).__name__, isinstance(e, cp.CuprumError), str(e)[:300]]
    print(json.dumps(report))
    """
)


def test_a_faulting_kernel_raises_and_the_process_keeps_its_data():
    r = subprocess.run(
        [sys.executable, "-c", CHILD],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout.strip().splitlines()[-1])
    _, is_cuprum, message = report["raised"]
    assert is_cuprum, report
    assert "trap_if" in message or "fault" in message.lower() or "illegal" in message.lower()
    assert report["host_intact"] and report["copied_intact"]
    if os.environ.get("CUPRUM_DEVICE") == "host":
        # The host device stays usable after a fault.
        assert report["after"] == ["ok", [2.0, 2.0, 2.0, 2.0]], report
    else:
        # On a GPU the context is gone: later calls raise (never crash) and say so.
        assert report["after"][0] == "ok" or report["after"][1], report
