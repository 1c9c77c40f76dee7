"""CuPy's ``cupyx`` names that cuprum has at its top level: the ufunc ``rsqrt``,
``scatter_add``/``scatter_max``/``scatter_min`` (and the ndarray methods of those names,
deprecated in CuPy for ``add.at``, ``maximum.at``, ``minimum.at``), NumPy arrays in
page-locked memory (``empty_pinned``, ``zeros_pinned`` and their ``*_like`` forms) and
``get_runtime_info``, the text ``show_config`` prints. (``errstate``, ``allow_synchronize``,
``jit``, ``profiler`` … are bound in ``cuprum/__init__.py`` from their own modules.)"""

from __future__ import annotations

import math
import operator
import platform
import sys
import warnings

import cuprum
from cuprum import _composed, _cuprum
from cuprum._lazy import numpy
from cuprum._ufunc import ufunc

# ---------------------------------------------------------------------------- rsqrt

_RSQRT_LOOPS = "efdFD"


def _rsqrt(x, *, dtype=None, casting="same_kind"):
    """``1 / sqrt(x)`` in NumPy's float type of ``x`` (``dtype`` when given: one of the
    loops float16, float32, float64, complex64, complex128)."""
    dt = _composed._result_dtype(numpy.sqrt, x)
    if dtype is not None:
        want = numpy.dtype(dtype)
        if want.char not in _RSQRT_LOOPS or not numpy.can_cast(dt, want, casting=casting):
            raise TypeError(
                "No loop matching the specified signature and casting was found for ufunc rsqrt"
            )
        dt = want
    return cuprum.reciprocal(cuprum.sqrt(_composed._as(x, dt)))


rsqrt = ufunc("rsqrt", 1, impl=_rsqrt, doc="The reciprocal square root, element-wise.", loops=True)

# ---------------------------------------------------------------------------- scatter


def _scatter_method(op, message):
    def method(self, slices, value):
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        getattr(cuprum, op).at(self, slices, value)

    name = {"add": "scatter_add", "maximum": "scatter_max", "minimum": "scatter_min"}[op]
    method.__name__ = name
    method.__qualname__ = f"ndarray.{name}"
    method.__doc__ = (
        f"``cuprum.{op}.at(a, slices, value)`` after a ``DeprecationWarning`` (CuPy's "
        f"deprecated method): a repeated index counts each time."
    )
    return method


# CuPy's ndarray methods (their warnings' texts are CuPy's own), attached to the engine's
# ndarray type here.
_METHODS = {
    "scatter_add": _scatter_method(
        "add", "`ndarray.scatter_add` is deprecated. Please use `cupy.add.at` instead."
    ),
    "scatter_max": _scatter_method(
        "maximum", "`ndarray.scatter_max` is deprecated Please use `cupy.maximum.at` instead."
    ),
    "scatter_min": _scatter_method(
        "minimum", "`ndarray.scatter_min` is deprecated Please use `cupy.minimum.at` instead."
    ),
}
for _name, _method in _METHODS.items():
    setattr(_cuprum.ndarray, _name, _method)


def scatter_add(a, slices, value):
    """Adds ``value`` to ``a[slices]`` in place, a repeated index once per occurrence
    (``a.scatter_add``: ``cuprum.add.at`` after CuPy's ``DeprecationWarning``)."""
    a.scatter_add(slices, value)


def scatter_max(a, slices, value):
    """Keeps the largest of ``a[slices]`` and every value sent to each element, in place
    (``a.scatter_max``: ``cuprum.maximum.at`` after CuPy's ``DeprecationWarning``)."""
    a.scatter_max(slices, value)


def scatter_min(a, slices, value):
    """Keeps the smallest of ``a[slices]`` and every value sent to each element, in place
    (``a.scatter_min``: ``cuprum.minimum.at`` after CuPy's ``DeprecationWarning``)."""
    a.scatter_min(slices, value)


# ---------------------------------------------------------------------------- pinned arrays


def _shape_tuple(shape):
    if isinstance(shape, (list, tuple)):
        return tuple(operator.index(n) for n in shape)
    return (operator.index(shape),)


def _pinned(shape, dtype, strides=None, order="C"):
    """A NumPy array over newly allocated page-locked memory."""
    dtype = numpy.dtype(dtype)
    mem = cuprum.cuda.alloc_pinned_memory(math.prod(shape) * dtype.itemsize)
    return numpy.ndarray(shape, dtype=dtype, buffer=mem, strides=strides, order=order)


def empty_pinned(shape, dtype=float, order="C"):
    """An uninitialised NumPy array in page-locked host memory (``numpy.empty``'s
    arguments)."""
    return _pinned(_shape_tuple(shape), dtype, order=order)


def zeros_pinned(shape, dtype=float, order="C"):
    """A NumPy array of zeros in page-locked host memory (``numpy.zeros``'s arguments)."""
    out = empty_pinned(shape, dtype, order)
    numpy.copyto(out, 0, casting="unsafe")
    return out


def _order_k_strides(a, dtype, shape):
    """Contiguous strides of ``shape`` with the axes in the order of ``a``'s strides
    (smallest stride innermost; NumPy's ``order='K'``)."""
    inner_first = sorted(range(a.ndim), key=lambda i: (abs(a.strides[i]), -i))
    strides = [0] * a.ndim
    step = dtype.itemsize
    for i in inner_first:
        strides[i] = step
        step *= shape[i]
    return tuple(strides)


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """An uninitialised NumPy array in page-locked host memory with ``a``'s shape and
    dtype (``a`` a NumPy or cuprum array), laid out as ``order`` says (``'K'`` keeps
    ``a``'s stride order)."""
    if subok is not None:
        raise TypeError("subok is not supported yet")
    dtype = numpy.dtype(a.dtype if dtype is None else dtype)
    shape = tuple(a.shape) if shape is None else _shape_tuple(shape)
    o = order.upper()
    if o not in ("C", "F", "K", "A"):
        raise ValueError(f"order not understood: {order}")
    c, f = a.flags.c_contiguous, a.flags.f_contiguous
    strides = None
    if o == "K" and len(shape) != a.ndim:
        o = "C"
    elif o == "A":
        o = "F" if f and not c else "C"
    elif o == "K":
        if c:
            o = "C"
        elif f:
            o = "F"
        else:
            strides, o = _order_k_strides(a, dtype, shape), "C"
    return _pinned(shape, dtype, strides, o)


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    """A NumPy array of zeros in page-locked host memory with ``a``'s shape and dtype,
    laid out as ``order`` says."""
    out = empty_like_pinned(a, dtype, order, subok, shape)
    numpy.copyto(out, 0, casting="unsafe")
    return out


# ---------------------------------------------------------------------------- runtime info


class _RuntimeInfo:
    """Where cuprum's pieces come from (``records``: the names and values); its text, one
    ``name: value`` line each, is what ``show_config`` prints."""

    def __init__(self, full=True):
        self.full = full
        from cuprum import cuda

        self.records = [
            ("OS", platform.platform()),
            ("Python Version", sys.version.split()[0]),
            ("NumPy Version", numpy.__version__),
            ("CUDA Root", cuda.get_cuda_path()),
            ("NVCC PATH", cuda.get_nvcc_path()),
        ]
        self.records += list(_cuprum.config().items())

    def __str__(self):
        width = max(len(k) for k, _ in self.records) + 2
        return "".join(f"{k:<{width}}: {v}\n" for k, v in self.records)


def get_runtime_info(*, full=True):
    """cuprum's runtime configuration (versions, the device, where NVRTC, the CUDA
    headers and the kernel cache are), as an object whose text ``show_config`` prints."""
    return _RuntimeInfo(full=full)
