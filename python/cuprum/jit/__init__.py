"""``cuprum.jit``: CUDA kernels written in Python — CuPy's ``cupyx.jit.rawkernel`` language.

>>> from cuprum import jit
>>> @jit.rawkernel()
... def saxpy(a, x, y, out):
...     i = jit.grid(1)
...     if i < out.size:
...         out[i] = a * x[i] + y[i]
>>> saxpy((128,), (256,), (numpy.float32(2), x, y, out))

A decorated function is translated to CUDA C++ at its first launch for each signature of
argument types (arrays by dtype, ndim, C-contiguity and index width; scalars by type: a
Python int is int32 when it fits, a float float32, as CuPy's JIT types them) and compiled
as a ``cuprum.RawKernel`` — NVRTC on a GPU, the system C++ compiler on the host device.
``k.cached_code`` / ``k.cached_codes`` show the C++, ``k.explain(*args)`` the C++ for given
arguments without launching.

The language: ``threadIdx``/``blockIdx``/``blockDim``/``gridDim`` (``.x/.y/.z``, uint32),
``grid(n)``, ``gridsize(n)``, ``laneid()``, ``warpsize``, ``syncthreads()``, ``syncwarp()``,
``shared_memory(dtype, size)``, ``atomic_*``, ``shfl_*_sync``, ``cg.this_thread_block()`` /
``cg.this_grid()``, ``cg.memcpy_async`` / ``cg.wait`` / ``cg.wait_prior``; ``if``/``elif``/``else``, ``while``, ``for ... in range(...)``,
``break``, ``continue``, ``return``, augmented assignment, conditional expressions, tuple
unpacking; casts with dtype constructors (``cuprum.int64(x)``); the ufuncs on scalars
(``cuprum.sqrt``, ``numpy.exp``, ``math.sin``); ``x[i, j]``, ``x.shape``, ``x.size``,
``x.ndim``, ``len``, ``min``, ``max``, ``abs``; complex64/128 and float16. Integer ``//``
and ``%`` follow Python (floor) as CuPy's do; where the operands' value ranges prove C's
``/`` and ``%`` equal (a non-zero divisor, operands of one sign), those are written, so a
kernel reads as its CUDA C++ twin. Device functions: ``rawkernel(device=True)``.

Design decisions live in the docstrings of :mod:`cuprum.jit._translate` (statements,
variables, errors), :mod:`cuprum.jit._types` (typing, arrays, operators),
:mod:`cuprum.jit._builtins` (built-ins, helpers) and :mod:`cuprum.jit._kernel` (signatures,
caching, launch). ``rawkernel(mode='numpy')`` types Python scalars and literals as
NumPy does (int64, float64, complex128). Not supported: ``jit.cub``/``jit.thrust``,
``assert``, slices and advanced indexing.
"""

from __future__ import annotations

from cuprum.jit import cg
from cuprum.jit._builtins import (
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_dec,
    atomic_exch,
    atomic_inc,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    blockDim,
    blockIdx,
    grid,
    gridDim,
    gridsize,
    laneid,
    shared_memory,
    shfl_down_sync,
    shfl_sync,
    shfl_up_sync,
    shfl_xor_sync,
    syncthreads,
    syncwarp,
    threadIdx,
    warpsize,
)
from cuprum.jit._builtins import range_ as range
from cuprum.jit._kernel import rawkernel

__all__ = [
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_dec",
    "atomic_exch",
    "atomic_inc",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_sub",
    "atomic_xor",
    "blockDim",
    "blockIdx",
    "cg",
    "grid",
    "gridDim",
    "gridsize",
    "laneid",
    "range",
    "rawkernel",
    "shared_memory",
    "shfl_down_sync",
    "shfl_sync",
    "shfl_up_sync",
    "shfl_xor_sync",
    "syncthreads",
    "syncwarp",
    "threadIdx",
    "warpsize",
]


def __getattr__(name: str):
    if name in ("cub", "thrust"):
        raise AttributeError(
            f"module 'cuprum.jit' has no attribute {name!r}: CuPy's device-side "
            f"{'CUB' if name == 'cub' else 'Thrust'} (cupyx.jit.{name}) is not supported"
        )
    raise AttributeError(f"module 'cuprum.jit' has no attribute {name!r}")
