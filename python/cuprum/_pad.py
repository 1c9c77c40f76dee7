"""NumPy's ``pad``, composed from cuprum's operations: the array is padded one axis at a
time (the axes before it already padded, as NumPy pads them), each side built from
slices, reductions and ``linspace`` of the device array and joined with
``concatenate``."""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy

_KWARGS = {
    "empty": (),
    "edge": (),
    "wrap": (),
    "constant": ("constant_values",),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def _pairs(x, ndim, as_index=False):
    """``x`` (a scalar, a pair or one pair per axis) as ``ndim`` pairs (before, after):
    NumPy's broadcasting of ``pad_width`` and the mode's keywords, on the host (they are
    a few numbers)."""
    if x is None:
        return [(None, None)] * ndim
    if isinstance(x, cuprum.ndarray):
        x = x.get()
    x = numpy.array(x)
    if as_index:
        x = numpy.round(x).astype(numpy.intp, copy=False)
    if x.ndim < 3 and x.size == 1:
        x = x.ravel()
        if as_index and x[0] < 0:
            raise ValueError("index can't contain negative values")
        return [(x[0].item(), x[0].item())] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        x = x.ravel()
        if as_index and (x[0] < 0 or x[1] < 0):
            raise ValueError("index can't contain negative values")
        return [(x[0].item(), x[1].item())] * ndim
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return [tuple(p) for p in numpy.broadcast_to(x, (ndim, 2)).tolist()]


def _at(axis, ndim, s):
    """An index taking ``s`` along ``axis`` and everything along the other axes."""
    return (slice(None),) * axis + (s,) + (slice(None),) * (ndim - axis - 1)


def _block(a, axis, width, value):
    """``width`` elements along ``axis`` (``a``'s other extents) filled with ``value`` (a
    scalar, or an array of extent 1 along ``axis``), in ``a``'s dtype."""
    shape = list(a.shape)
    shape[axis] = width
    out = cuprum.empty(tuple(shape), dtype=a.dtype)
    if out.size:
        out[...] = value
    return out


def _join(a, axis, left, right):
    parts = [p for p in (left, a, right) if p is not None and p.shape[axis] > 0]
    if len(parts) == 1:
        return parts[0]
    return cuprum.concatenate(parts, axis=axis) if parts else a


def _edges(a, axis):
    n = a.ndim
    return a[_at(axis, n, slice(0, 1))], a[_at(axis, n, slice(a.shape[axis] - 1, None))]


def _rounded(stat, dtype):
    """A statistic in ``dtype``: rounded to the nearest integer (half to even) for an
    integer dtype, as NumPy's ``pad`` rounds ``mean`` and ``median``."""
    if dtype.kind in "iu" and stat.dtype.kind in "fc":
        stat = cuprum.rint(stat)
    return stat.astype(dtype, copy=False)


def _stat_sides(a, axis, lengths, mode):
    n = a.shape[axis]
    left_len, right_len = lengths
    left_len = n if left_len is None or left_len > n else left_len
    right_len = n if right_len is None or right_len > n else right_len
    if (left_len == 0 or right_len == 0) and mode in ("maximum", "minimum"):
        raise ValueError("stat_length of 0 yields no value for padding")

    def stat(chunk):
        if mode == "maximum":
            r = cuprum.max(chunk, axis=axis, keepdims=True)
        elif mode == "minimum":
            r = cuprum.min(chunk, axis=axis, keepdims=True)
        elif mode == "mean":
            r = cuprum.mean(chunk, axis=axis, keepdims=True)
        else:
            r = cuprum.median(chunk, axis=axis, keepdims=True)
        return _rounded(r, a.dtype)

    left = stat(a[_at(axis, a.ndim, slice(0, left_len))])
    if left_len == right_len == n:
        return left, left
    return left, stat(a[_at(axis, a.ndim, slice(n - right_len, n))])


def _ramp(edge, end, width, axis, dtype):
    """``width`` values from ``end`` towards ``edge`` (not reaching it) along ``axis``, in
    ``dtype``: NumPy's ``linspace`` in double precision (floored for integers)."""
    shape = [1] * edge.ndim
    shape[axis] = width
    e = edge.astype(numpy.result_type(dtype, numpy.float64), copy=False)
    step = (e - end) / width
    r = cuprum.arange(width, dtype=numpy.float64).reshape(shape) * step + end
    if dtype.kind in "iu":
        r = cuprum.floor(r)
    return r.astype(dtype)


def _reflect(a, axis, left, right, odd, include_edge):
    """``a`` extended by ``left`` and ``right`` reflected elements along ``axis``: NumPy's
    rounds, each reflecting a whole number of periods of the original extent at most
    (``odd``: mirrored through the edge value)."""
    period = a.shape[axis]
    nd = a.ndim
    while left > 0 or right > 0:
        v = a.shape[axis]
        if include_edge:
            m = v // period * period
        else:
            m = (v - 1) // (period - 1) * (period - 1)
        lchunk = rchunk = None
        if left > 0:
            k = min(m, left)
            start = 0 if include_edge else 1
            lchunk = cuprum.flip(a[_at(axis, nd, slice(start, start + k))], axis)
            if odd:
                lchunk = 2 * a[_at(axis, nd, slice(0, 1))] - lchunk
            left -= k
        if right > 0:
            k = min(m, right)
            stop = v if include_edge else v - 1
            rchunk = cuprum.flip(a[_at(axis, nd, slice(stop - k, stop))], axis)
            if odd:
                rchunk = 2 * a[_at(axis, nd, slice(v - 1, v))] - rchunk
            right -= k
        a = _join(a, axis, lchunk, rchunk)
    return a


def _wrap(a, axis, left, right):
    n = a.shape[axis]
    # the source index of each padded position (a few integers, made on the host)
    idx = [(i - left) % n for i in range(left)] + [(n + i) % n for i in range(right)]
    taken = a.take(cuprum.asarray(idx, dtype=numpy.intp), axis=axis)
    return _join(
        a,
        axis,
        taken[_at(axis, a.ndim, slice(0, left))],
        taken[_at(axis, a.ndim, slice(left, None))],
    )


def _pad_callable(a, widths, function, kwargs):
    """NumPy's ``pad`` with a function as the mode: the zero-padded array, then
    ``function(vector, (before, after), axis, kwargs)`` on each 1-D view along each axis
    (it writes the padding in place)."""
    out = _pad_axes(a, widths, "constant", {})
    for axis in range(out.ndim):
        view = cuprum.moveaxis(out, axis, -1)
        for ind in numpy.ndindex(view.shape[:-1]):
            function(view[ind + (Ellipsis,)], widths[axis], axis, kwargs)
    return out


def _pad_axes(a, widths, mode, kwargs):
    nd = a.ndim
    if mode == "empty":
        shape = tuple(s + b + e for s, (b, e) in zip(a.shape, widths))
        out = cuprum.empty(shape, dtype=a.dtype)
        out[tuple(slice(b, b + s) for s, (b, _) in zip(a.shape, widths))] = a
        return out
    if mode == "constant":
        values = _pairs(kwargs.get("constant_values", 0), nd)
        for axis, ((b, e), (vb, ve)) in enumerate(zip(widths, values)):
            if b or e:
                a = _join(a, axis, _block(a, axis, b, vb), _block(a, axis, e, ve))
        return a
    if a.size == 0:
        for axis, (b, e) in enumerate(widths):
            if a.shape[axis] == 0 and (b or e):
                raise ValueError(
                    f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'"
                )
        shape = tuple(s + b + e for s, (b, e) in zip(a.shape, widths))
        return cuprum.empty(shape, dtype=a.dtype)
    if mode in ("maximum", "minimum", "mean", "median"):
        lengths = _pairs(kwargs.get("stat_length"), nd, as_index=True)
    elif mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), nd)
    odd = kwargs.get("reflect_type", "even") == "odd"
    for axis, (b, e) in enumerate(widths):
        if not (b or e):
            continue
        if mode == "edge" or (mode in ("reflect", "symmetric") and a.shape[axis] == 1):
            lo, hi = _edges(a, axis)
            a = _join(a, axis, _block(a, axis, b, lo), _block(a, axis, e, hi))
        elif mode in ("reflect", "symmetric"):
            a = _reflect(a, axis, b, e, odd, mode == "symmetric")
        elif mode == "wrap":
            a = _wrap(a, axis, b, e)
        elif mode == "linear_ramp":
            lo, hi = _edges(a, axis)
            left = _ramp(lo, ends[axis][0], b, axis, a.dtype)
            right = cuprum.flip(_ramp(hi, ends[axis][1], e, axis, a.dtype), axis)
            a = _join(a, axis, left, right)
        else:
            lo, hi = _stat_sides(a, axis, lengths[axis], mode)
            a = _join(a, axis, _block(a, axis, b, lo), _block(a, axis, e, hi))
    return a


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` elements before and after each axis (NumPy's
    ``pad``): ``mode`` is ``'constant'`` (``constant_values``), ``'edge'``,
    ``'linear_ramp'`` (``end_values``), ``'maximum'``, ``'mean'``, ``'median'``,
    ``'minimum'`` (``stat_length``), ``'reflect'``, ``'symmetric'`` (``reflect_type``
    ``'even'`` or ``'odd'``), ``'wrap'``, ``'empty'``, or a function
    ``f(vector, iaxis_pad_width, iaxis, kwargs)`` that writes the padding of each 1-D
    vector in place."""
    a = cuprum.asarray(array)
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * a.ndim
        for axis, width in pad_width.items():
            seq[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    widths_arr = numpy.asarray(
        pad_width.get() if isinstance(pad_width, cuprum.ndarray) else pad_width
    )
    if widths_arr.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = _pairs(widths_arr, a.ndim, as_index=True)
    if callable(mode):
        return _pad_callable(a, widths, mode, kwargs)
    if mode not in _KWARGS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - set(_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    out = _pad_axes(a, widths, mode, kwargs)
    if out is a:
        out = a.copy()
    return out
