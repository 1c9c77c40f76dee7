"""``cuprum.profiler``: ``benchmark``, CuPy's timing helper (``cupyx.profiler.benchmark``)
with its result's printing, and ``profile()``, the range of a program an attached profiler
records (``cupyx.profiler.profile``)."""

from __future__ import annotations

import contextlib
import math
import time

from cuprum import _cuprum
from cuprum._lazy import numpy as _numpy


class _PerfCaseResult:
    """What ``benchmark`` measured: ``cpu_times`` and ``gpu_times`` (seconds; one row of
    GPU times per device), printed as CuPy prints them."""

    def __init__(self, name, ts, devices):
        self.name = name
        self._ts = ts
        self._devices = devices

    @property
    def cpu_times(self):
        return self._ts[0]

    @property
    def gpu_times(self):
        return self._ts[1:]

    @staticmethod
    def _to_str_per_item(device_name, t):
        assert t.ndim == 1
        assert t.size > 0
        t_us = t * 1e6
        s = f"    {device_name}: {t_us.mean():9.03f} us"
        if t.size > 1:
            s += f"   +/- {t_us.std():6.03f} (min: {t_us.min():9.03f} / max: {t_us.max():9.03f}) us"
        return s

    def to_str(self, show_gpu=False):
        results = [self._to_str_per_item("CPU", self._ts[0])]
        if show_gpu:
            for i, d in enumerate(self._devices):
                results.append(self._to_str_per_item(f"GPU-{d}", self._ts[1 + i]))
        return "{:<20s}:{}".format(self.name, " ".join(results))

    def __str__(self):
        return self.to_str(show_gpu=True)

    __repr__ = __str__


def benchmark(
    func,
    args=(),
    kwargs=None,
    n_repeat=10000,
    *,
    name=None,
    n_warmup=10,
    max_duration=math.inf,
    devices=None,
):
    """Times ``func(*args, **kwargs)``: ``n_warmup`` calls first, then up to ``n_repeat``
    calls (stopping once ``max_duration`` seconds have passed), each with its CPU time
    (``perf_counter`` around the call) and GPU time (events on the current stream around
    it, then synchronised)."""
    if kwargs is None:
        kwargs = {}
    if name is None:
        name = func.__name__
    if not isinstance(args, tuple):
        raise ValueError("`args` should be of tuple type.")  # noqa: TRY004 (CuPy's class)
    if not isinstance(kwargs, dict):
        raise ValueError("`kwargs` should be of dict type.")  # noqa: TRY004 (CuPy's class)
    if not isinstance(n_repeat, int):
        raise ValueError("`n_repeat` should be an integer.")  # noqa: TRY004 (CuPy's class)
    if not isinstance(name, str):
        raise ValueError("`name` should be a string.")  # noqa: TRY004 (CuPy's class)
    if not isinstance(n_warmup, int):
        raise ValueError("`n_warmup` should be an integer.")  # noqa: TRY004 (CuPy's class)
    if not _numpy.isreal(max_duration):
        raise ValueError("`max_duration` should be given in seconds")
    if devices is None:
        devices = (0,)
    if not isinstance(devices, tuple):
        raise ValueError("`devices` should be of tuple type")  # noqa: TRY004 (CuPy's class)
    for _ in range(n_warmup):
        func(*args, **kwargs)
    start, end = _cuprum.Event(), _cuprum.Event()
    cpu, gpu = [], []
    t_begin = time.perf_counter()
    for _ in range(n_repeat):
        start.record()
        t0 = time.perf_counter()
        func(*args, **kwargs)
        t1 = time.perf_counter()
        end.record()
        end.synchronize()
        cpu.append(t1 - t0)
        gpu.append(_cuprum.get_elapsed_time(start, end) * 1e-3)
        if time.perf_counter() - t_begin > max_duration:
            break
    ts = _numpy.asarray([cpu] + [gpu] * len(devices), dtype=_numpy.float64)
    return _PerfCaseResult(name, ts, devices)


@contextlib.contextmanager
def profile():
    """Profile collection on the current device for the ``with`` block (CuPy's
    ``cupyx.profiler.profile``: ``cuProfilerStart`` on entry, ``cuProfilerStop`` on exit).
    A profiler told to record only such ranges (``nsys profile
    --capture-range=cudaProfilerApi``, ``ncu --profile-from-start off``) records the work
    in between; without one, and on the host device, nothing happens."""
    collecting = _cuprum._ProfileRange()
    try:
        yield
    finally:
        collecting.stop()
