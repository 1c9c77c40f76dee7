"""Test marks: ``slow`` and ``multi_gpu``."""

from __future__ import annotations

import os


def slow(*args, **kwargs):
    """Marks a test as slow (``pytest.mark.slow``; deselect with ``-m 'not slow'``).
    Usable bare (``@slow``) or called (``@slow()``)."""
    import pytest

    return pytest.mark.slow(*args, **kwargs)


def multi_gpu(gpu_num):
    """Marks a test as needing ``gpu_num`` devices (``pytest.mark.multi_gpu``). It is
    skipped when the environment variable ``CUPY_TEST_GPU_LIMIT`` is set to a value
    ``>= 0`` below ``gpu_num``."""
    import pytest

    if gpu_num <= 1:
        raise ValueError("multi_gpu is for tests needing 2 or more devices")
    limit = int(os.getenv("CUPY_TEST_GPU_LIMIT", "-1"))

    def wrapper(f):
        f = pytest.mark.multi_gpu(f)
        return pytest.mark.skipif(0 <= limit < gpu_num, reason=f"{gpu_num} GPUs required")(f)

    return wrapper
