"""NumPy 2's names (from the array API standard) that are not aliases of one object:
``matrix_transpose``, ``astype``, ``unstack``, ``vecdot``. The plain aliases (``acos`` for
``arccos``, ``concat`` for ``concatenate``, ``pow`` for ``power`` …) are bound in
``cuprum/__init__.py`` to the same objects, as NumPy binds them."""

from __future__ import annotations

import cuprum


def matrix_transpose(x):
    """``x`` with its last two axes swapped (a view)."""
    x = cuprum.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, got {x.ndim}")
    return cuprum.swapaxes(x, -1, -2)


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` as ``dtype`` (a copy unless ``copy=False`` and nothing changes)."""
    if device is not None and device != x.device:
        raise ValueError("astype(device=...) takes only the array's own device")
    return x.astype(dtype, copy=copy)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple of views."""
    x = cuprum.asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(cuprum.moveaxis(x, axis, 0))


def vecdot(x1, x2, /, *, axis=-1, out=None):
    """The dot products of the vectors along ``axis`` (the first conjugated, NumPy's
    ``vecdot``), broadcast over the other axes."""
    x1, x2 = cuprum.asarray(x1), cuprum.asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(
            f"vecdot: the vectors' lengths differ: {x1.shape[axis]} and {x2.shape[axis]}"
        )
    r = (cuprum.conj(x1) * x2).sum(axis=axis)
    if out is not None:
        out[...] = r
        return out
    return r
