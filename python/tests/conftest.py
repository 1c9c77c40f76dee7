"""Where the package's tests run: on the GPU when the driver is there, else on cuprum's host
device (the CPU), as cuprum's Rust tests do. With CUPRUM_REQUIRE_GPU=1 a missing GPU fails
instead (the GPU machine's runs set it). The tests' shared helpers (``compare.py``) are
importable from this folder (pytest runs with ``--import-mode=importlib``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _choose_device():
    if os.environ.get("CUPRUM_DEVICE"):
        return
    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
    except OSError:
        if os.environ.get("CUPRUM_REQUIRE_GPU") == "1":
            raise RuntimeError("CUPRUM_REQUIRE_GPU=1 but the CUDA driver is not here") from None
        os.environ["CUPRUM_DEVICE"] = "host"


_choose_device()
