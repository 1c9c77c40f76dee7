"""NumPy's ``apply_along_axis``, ``apply_over_axes`` and ``put_along_axis`` on device
arrays: the function is called on device views (once per 1-D slice for
``apply_along_axis``, as NumPy and CuPy call it); the results are gathered on the
device."""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy


def _normalize_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise cuprum.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _as_array(r):
    if isinstance(r, (tuple, list)):
        return cuprum.array(r)
    return cuprum.asarray(r)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (NumPy's
    ``apply_along_axis``): the result's axes replace ``axis``."""
    arr = cuprum.asarray(arr)
    nd = arr.ndim
    axis = _normalize_axis(axis, nd)
    dims = list(range(nd))
    view = arr.transpose(dims[:axis] + dims[axis + 1 :] + [axis])
    inds = iter(numpy.ndindex(view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    res = _as_array(func1d(view[ind0 + (Ellipsis,)], *args, **kwargs))
    buff = cuprum.zeros(view.shape[:-1] + res.shape, res.dtype)
    buff[ind0 + (Ellipsis,)] = res
    for ind in inds:
        buff[ind + (Ellipsis,)] = _as_array(func1d(view[ind + (Ellipsis,)], *args, **kwargs))
    bd = list(range(buff.ndim))
    permute = bd[:axis] + bd[buff.ndim - res.ndim :] + bd[axis : buff.ndim - res.ndim]
    return buff.transpose(permute)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis of ``axes`` in turn, a removed axis put
    back with extent 1 (NumPy's ``apply_over_axes``)."""
    val = cuprum.asarray(a)
    n = val.ndim
    if numpy.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        res = func(val, axis)
        if res.ndim == val.ndim:
            val = res
        else:
            res = cuprum.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
            val = res
    return val


def put_along_axis(arr, indices, values, axis):
    """Writes ``values`` into ``arr`` at ``indices`` along ``axis`` (the scatter twin of
    ``take_along_axis``; ``axis=None`` takes flat indices), as NumPy's
    ``put_along_axis``."""
    indices = cuprum.asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        cuprum.put(arr, indices, values)
        return
    axis = _normalize_axis(axis, arr.ndim)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if arr.ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    index = []
    for dim, n in enumerate(arr.shape):
        if dim == axis:
            index.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[dim] = n
            index.append(cuprum.arange(n).reshape(shape))
    arr[tuple(index)] = values
