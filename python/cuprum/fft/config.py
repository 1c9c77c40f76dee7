"""``cuprum.fft.config``: the cuFFT plan cache (CuPy's ``cupy.fft.config`` names).

cuprum keeps one process-wide cache of plans, keyed by device, stream and transform, the
least recently used destroyed beyond its size (16 unless set)."""

from __future__ import annotations

import sys
import types
import warnings

from cuprum import _cuprum

#: Transforms run on the array's own device (multi-GPU FFTs are not offered).
use_multi_gpus = False

_ND_PLANNING = [True]


def _nd_planning_deprecated() -> None:
    warnings.warn(
        "enable_nd_planning is deprecated: cuprum always transforms up to three trailing "
        "axes with one plan",
        DeprecationWarning,
        stacklevel=3,
    )


class _ConfigModule(types.ModuleType):
    """The module's class: ``enable_nd_planning`` warns when read or set (as CuPy's)."""

    @property
    def enable_nd_planning(self) -> bool:
        _nd_planning_deprecated()
        return _ND_PLANNING[0]

    @enable_nd_planning.setter
    def enable_nd_planning(self, value: bool) -> None:
        _nd_planning_deprecated()
        _ND_PLANNING[0] = bool(value)


class PlanCache:
    """The process's cuFFT plan cache (CuPy's ``PlanCache`` methods)."""

    def get_size(self) -> int:
        """The most plans kept."""
        return _cuprum._fft_plan_cache("size")

    def set_size(self, size: int) -> None:
        """Keeps at most ``size`` plans (0: none)."""
        size = int(size)
        if size < 0:
            raise ValueError(f"the plan cache size must be non-negative, got {size}")
        _cuprum._fft_plan_cache("set_size", size)

    def get_curr_size(self) -> int:
        """The plans kept now."""
        return _cuprum._fft_plan_cache("len")

    def clear(self) -> None:
        """Destroys every cached plan."""
        _cuprum._fft_plan_cache("clear")

    def show_info(self) -> None:
        """Prints the cache's size and use."""
        print(f"cuFFT plan cache (process-wide): {self.get_curr_size()} / {self.get_size()} plans")


_CACHE = PlanCache()


def get_plan_cache() -> PlanCache:
    """The plan cache."""
    return _CACHE


def set_plan_cache_size(size: int) -> None:
    """Keeps at most ``size`` plans."""
    _CACHE.set_size(size)


def get_plan_cache_size() -> int:
    """The most plans kept."""
    return _CACHE.get_size()


def clear_plan_cache() -> None:
    """Destroys every cached plan."""
    _CACHE.clear()


def show_plan_cache_info() -> None:
    """Prints the cache's size and use."""
    _CACHE.show_info()


def set_cufft_gpus(gpus: object) -> None:
    """Multi-GPU transforms are not offered: cuprum transforms on the array's device."""
    raise NotImplementedError(
        "cuprum.fft transforms on the array's own device; multi-GPU cuFFT is not offered"
    )


sys.modules[__name__].__class__ = _ConfigModule
