"""NumPy's ``lib.stride_tricks`` on device arrays: views of an array's memory with
other shapes and strides (``as_strided``, ``sliding_window_view``); nothing is copied
and nothing checks that the view stays inside the array's memory."""

from __future__ import annotations

import cuprum


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of ``x``'s memory with ``shape`` and byte ``strides`` (``x``'s own by
    default), starting at ``x``'s first element."""
    x = cuprum.asarray(x)
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    return cuprum.ndarray(shape, x.dtype, x.data, strides=strides)


def _axes(axis, ndim):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise cuprum.AxisError(f"axis {ax} is out of bounds for array of dimension {ndim}")
        out.append(ax % ndim)
    return tuple(out)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """A view of every window of ``window_shape`` over ``x`` (over all axes, or over
    ``axis``): the window axes are appended (NumPy's ``sliding_window_view``; read-only
    views: ``writeable=True`` is not supported, as CuPy's)."""
    if writeable:
        raise NotImplementedError("Writeable views are not supported.")
    window_shape = tuple(window_shape) if hasattr(window_shape, "__iter__") else (window_shape,)
    x = cuprum.asarray(x)
    if any(w < 0 for w in window_shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(
                f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                f"got {len(window_shape)} window_shape elements and `x.ndim` is {x.ndim}."
            )
    else:
        axis = _axes(axis, x.ndim)
        if len(window_shape) != len(axis):
            raise ValueError(
                f"Must provide matching length window_shape and axis; got "
                f"{len(window_shape)} window_shape elements and {len(axis)} axes elements."
            )
    out_strides = x.strides + tuple(x.strides[ax] for ax in axis)
    trimmed = list(x.shape)
    for ax, dim in zip(axis, window_shape):
        if trimmed[ax] < dim:
            raise ValueError("window shape cannot be larger than input array shape")
        trimmed[ax] -= dim - 1
    return as_strided(x, tuple(trimmed) + window_shape, out_strides)
