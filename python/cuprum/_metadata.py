"""NumPy's functions of arrays' shapes and dtypes, for cuprum arrays (no device work).

NumPy hands its functions' calls on cuprum arrays to cuprum (``__array_function__``, as
CuPy does), so ``numpy.shape(x)`` or ``numpy.result_type(x, 1.0)`` on a cuprum array runs
the function of the same name here. Each reads only the arrays' shapes and dtypes (in
NumPy 2 an array's values never change a result dtype), so a cuprum array is answered
through its dtype, or an empty NumPy array of it, and NumPy decides.
"""

from __future__ import annotations

from cuprum._cuprum import ndarray
from cuprum._lazy import numpy

__all__ = [
    "broadcast_shapes",
    "can_cast",
    "common_type",
    "iscomplexobj",
    "isrealobj",
    "isscalar",
    "min_scalar_type",
    "ndim",
    "promote_types",
    "result_type",
    "shape",
    "size",
]

# Not dispatched by NumPy (they take shapes, dtypes or any object): NumPy's own, called
# through (NumPy is imported at the first call).


def broadcast_shapes(*args):
    """The shape that ``args`` broadcast to (``numpy.broadcast_shapes``)."""
    return numpy.broadcast_shapes(*args)


def promote_types(type1, type2):
    """The smallest dtype both cast to safely (``numpy.promote_types``)."""
    return numpy.promote_types(type1, type2)


def isscalar(element):
    """Whether ``element`` is a scalar (``numpy.isscalar``; a 0-d array is not)."""
    return numpy.isscalar(element)


def _dtype_of(x):
    return x.dtype if isinstance(x, ndarray) else x


def _proxy(x):
    """An empty NumPy array of a cuprum array's dtype (for NumPy's functions that read
    ``dtype`` of arrays only); anything else as it is."""
    return numpy.empty(0, dtype=x.dtype) if isinstance(x, ndarray) else x


def shape(a):
    """The shape of ``a`` (``numpy.shape``)."""
    return tuple(a.shape) if isinstance(a, ndarray) else numpy.shape(a)


def ndim(a):
    """The number of dimensions of ``a`` (``numpy.ndim``)."""
    return a.ndim if isinstance(a, ndarray) else numpy.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or along ``axis`` (``numpy.size``)."""
    if not isinstance(a, ndarray):
        return numpy.size(a, axis)
    if axis is None:
        return a.size
    return a.shape[axis]


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives these arrays, dtypes and scalars."""
    return numpy.result_type(*(_dtype_of(x) for x in arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    """Whether a cast from ``from_`` (an array or a dtype) to ``to`` follows ``casting``."""
    return numpy.can_cast(_dtype_of(from_), to, casting)


def min_scalar_type(a):
    """The smallest dtype that holds ``a`` (a 0-d array by its value, as NumPy)."""
    if isinstance(a, ndarray):
        return numpy.min_scalar_type(a.get() if a.ndim == 0 else numpy.empty(0, a.dtype))
    return numpy.min_scalar_type(a)


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype."""
    return numpy.iscomplexobj(_proxy(x))


def isrealobj(x):
    """Whether ``x`` has a dtype that is not complex."""
    return numpy.isrealobj(_proxy(x))


def common_type(*arrays):
    """The inexact scalar type common to ``arrays`` (``numpy.common_type``)."""
    return numpy.common_type(*(_proxy(a) for a in arrays))
