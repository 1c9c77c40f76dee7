"""NumPy's 1-D signal, set and index-generation routines, composed from cuprum's
operations: ``convolve``, ``correlate``, ``interp``, ``real_if_close``; ``union1d``,
``intersect1d``, ``setdiff1d``, ``setxor1d``; ``ravel_multi_index``, ``unravel_index``,
``indices``, ``ix_``, ``tril_indices``/``triu_indices`` (and ``_from``); ``unwrap``,
``array_equiv``."""

from __future__ import annotations

import functools
import math
import operator

import cuprum
from cuprum._lazy import numpy
from cuprum._routines import _axes_of


def _shifted_sum(a, v):
    """The full convolution of the 1-D ``a`` and ``v``: one pass over the longer array
    per element of the shorter one."""
    if a.size < v.size:
        a, v = v, a
    n, m = a.size, v.size
    dtype = cuprum.result_type(a, v)
    out = cuprum.zeros(n + m - 1, dtype=dtype)
    a = a.astype(dtype, copy=False)
    v = v.astype(dtype, copy=False)
    for j in range(m):
        out[j : j + n] += a * v[j]
    return out


_MODES = ("full", "same", "valid")


def _one_dim(x):
    """NumPy's check of a 1-D operand of ``correlate``."""
    if x.ndim != 1:
        deep = "too deep" if x.ndim > 1 else "of too small depth"
        raise ValueError(f"object {deep} for desired array")


def _window(full, n, m, mode, a_shorter=False):
    """The part of the full correlation (length ``n + m - 1``) that ``mode`` keeps: NumPy's
    (for ``'same'``, centred as NumPy centres it, which depends on which operand is the
    shorter)."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    lo, hi = min(n, m), max(n, m)
    if mode == "full":
        return full
    if mode == "same":
        start = lo // 2 if a_shorter else lo - 1 - lo // 2
        return full[start : start + hi]
    return full[lo - 1 : hi]


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D arrays (``mode``: ``'full'``,
    ``'same'`` or ``'valid'``), NumPy's ``convolve``."""
    a = cuprum.array(a, copy=None, ndmin=1)
    v = cuprum.array(v, copy=None, ndmin=1)
    if len(a) == 0:
        raise ValueError("a cannot be empty")
    if len(v) == 0:
        raise ValueError("v cannot be empty")
    if len(v) > len(a):
        a, v = v, a
    _one_dim(a)
    _one_dim(v)
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    return _window(_shifted_sum(a, v), a.size, v.size, mode)


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D arrays, ``c[k] = sum(a[n + k] * conj(v[n]))``
    (``mode``: ``'valid'``, ``'same'`` or ``'full'``), NumPy's ``correlate``."""
    a = cuprum.asarray(a)
    v = cuprum.asarray(v)
    _one_dim(a)
    _one_dim(v)
    if a.size == 0:
        raise ValueError("first array argument cannot be empty")
    if v.size == 0:
        raise ValueError("second array argument cannot be empty")
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    w = cuprum.conjugate(v) if v.dtype.kind == "c" else v
    full = _shifted_sum(a, w[::-1])
    return _window(full, a.size, v.size, mode, a_shorter=a.size < v.size)


def _lerp(x, x0, x1, f0, f1, complex_form):
    """NumPy's linear interpolation between ``(x0, f0)`` and ``(x1, f1)`` at ``x``: from
    the left point, from the right one where that is NaN, and ``f0`` where both are NaN
    and ``f0 == f1`` (infinite values); its complex loop's form per part."""
    if complex_form:
        inv = 1.0 / (x1 - x0)
        r = inv * (x - x0) * (f1 - f0) + f0
        r2 = inv * (x - x1) * (f1 - f0) + f1
    else:
        slope = (f1 - f0) / (x1 - x0)
        r = slope * (x - x0) + f0
        r2 = slope * (x - x1) + f1
    r = cuprum.where(cuprum.isnan(r), r2, r)
    return cuprum.where(cuprum.isnan(r) & (f0 == f1), f0, r)


def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional linear interpolation of the points ``(xp, fp)`` at ``x`` (``xp``
    increasing)."""
    x = cuprum.asarray(x)
    xp = cuprum.asarray(xp).ravel()
    fp = cuprum.asarray(fp).ravel()
    if xp.size != fp.size:
        raise ValueError("fp and xp are not of the same length")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    out_dtype = numpy.complex128 if fp.dtype.kind == "c" else numpy.float64
    x = x.astype(numpy.float64)
    xp = xp.astype(numpy.float64)
    fp = fp.astype(out_dtype)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        x = x % period
        xp = xp % period
        order = cuprum.argsort(xp)
        xp, fp = xp[order], fp[order]
        xp = cuprum.concatenate((xp[-1:] - period, xp, xp[:1] + period))
        fp = cuprum.concatenate((fp[-1:], fp, fp[:1]))
    n = xp.size
    if n == 1:
        r = cuprum.full(x.shape, 0, dtype=out_dtype) + fp[0]
    else:
        xf = x.ravel()
        j = cuprum.clip(cuprum.searchsorted(xp, xf, side="right") - 1, 0, n - 2)
        x0, x1 = xp[j], xp[j + 1]
        f0, f1 = fp[j], fp[j + 1]
        if fp.dtype.kind == "c":
            r = cuprum.empty(xf.shape, dtype=out_dtype)  # each part apart (infinities kept)
            r.real[...] = _lerp(xf, x0, x1, f0.real, f1.real, True)
            r.imag[...] = _lerp(xf, x0, x1, f0.imag, f1.imag, True)
        else:
            r = _lerp(xf, x0, x1, f0, f1, False)
        r = r.astype(out_dtype, copy=False)
        # at a knot, its value (NumPy's: no interpolation with a neighbouring infinity)
        r = cuprum.where(xf == x0, f0, cuprum.where(xf == x1, f1, r)).reshape(x.shape)
    if period is None:
        lo = fp[0] if left is None else left
        hi = fp[-1] if right is None else right
        r = cuprum.where(x < xp[0], lo, r)
        r = cuprum.where(x > xp[-1], hi, r)
    return r.astype(out_dtype, copy=False)


def real_if_close(a, tol=100):
    """The real parts of a complex ``a`` when every imaginary part is within ``tol``
    machine epsilons (``tol`` > 1) or ``tol`` (≤ 1) of zero; ``a`` otherwise."""
    a = cuprum.asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = numpy.finfo(a.real.dtype).eps * tol
    if bool((cuprum.absolute(a.imag) < tol).all()):
        return a.real.copy()
    return a


def union1d(ar1, ar2):
    """The sorted distinct values of both arrays."""
    return cuprum.unique(
        cuprum.concatenate((cuprum.asarray(ar1).ravel(), cuprum.asarray(ar2).ravel()))
    )


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted distinct values in both arrays (with their first indices on request)."""
    a = cuprum.asarray(ar1).ravel()
    b = cuprum.asarray(ar2).ravel()
    dtype = cuprum.result_type(a, b)  # NumPy's: the values of both joined
    if return_indices:
        ua, ia = cuprum.unique(a, return_index=True)
        ub, ib = cuprum.unique(b, return_index=True)
        keep = cuprum.isin(ua, ub)
        common = ua[keep]
        jb = cuprum.searchsorted(ub, common)
        return common.astype(dtype, copy=False), ia[keep], ib[jb]
    ua = a if assume_unique else cuprum.unique(a)
    ub = b if assume_unique else cuprum.unique(b)
    r = ua[cuprum.isin(ua, ub)]
    return (cuprum.sort(r) if assume_unique else r).astype(dtype, copy=False)


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted distinct values of ``ar1`` that are not in ``ar2``."""
    a = cuprum.asarray(ar1).ravel()
    if not assume_unique:
        a = cuprum.unique(a)
    return a[cuprum.isin(a, cuprum.asarray(ar2).ravel(), invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the two arrays."""
    a = cuprum.asarray(ar1).ravel()
    b = cuprum.asarray(ar2).ravel()
    if not assume_unique:
        a, b = cuprum.unique(a), cuprum.unique(b)
    # NumPy's algorithm: the sorted values that differ from both neighbours (so a value
    # repeated inside one array, with assume_unique wrongly given, drops out as NumPy's)
    aux = cuprum.sort(cuprum.concatenate((a, b)))
    if aux.size == 0:
        return aux
    differs = aux[1:] != aux[:-1]
    edge = cuprum.ones(1, dtype=cuprum.bool_)
    flag = cuprum.concatenate((edge, differs, edge))
    return aux[flag[1:] & flag[:-1]]


def _index_order(order):
    """NumPy's order argument of ``ravel_multi_index``/``unravel_index``: ``'C'`` (also
    ``None``) or ``'F'``."""
    o = "C" if order is None else str(order).upper()
    if o not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if o not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    return o


def _int_dims(dims):
    dims = tuple(operator.index(d) for d in dims)
    size = 1
    for d in dims:
        size *= d
    return dims, size


def _int_indices(x):
    """``x`` as int64 indices (NumPy's ``TypeError`` for anything but integers and
    bools)."""
    x = cuprum.asarray(x)
    if x.dtype.kind not in "biu":
        raise TypeError("only int indices permitted")
    return x.astype(numpy.int64, copy=False)


_CLIP_MODES = ("clip", "raise", "wrap")


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of the coordinate arrays ``multi_index`` (broadcast together) in an
    array of shape ``dims`` (``mode``: ``'raise'``, ``'wrap'`` or ``'clip'``, or one per
    axis; ``order``: ``'C'`` or ``'F'``), NumPy's ``ravel_multi_index``."""
    dims, size = _int_dims(dims)
    if size > numpy.iinfo(numpy.int64).max or any(d > numpy.iinfo(numpy.int64).max for d in dims):
        raise ValueError(
            "invalid dims: array size defined by dims is larger than the maximum possible size."
        )
    if isinstance(multi_index, cuprum.ndarray):
        coords = [multi_index[k] for k in range(multi_index.shape[0])] if multi_index.ndim else []
    else:
        coords = list(multi_index)
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if isinstance(mode, (tuple, list)):
        if len(mode) != len(dims):
            raise ValueError(
                f"list of clipmodes has wrong length ({len(mode)} instead of {len(dims)})"
            )
        modes = tuple(mode)
    else:
        modes = (mode,) * len(dims)
    for m in modes:
        if m not in _CLIP_MODES:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
    order = _index_order(order)
    coords = cuprum.broadcast_arrays(*(_int_indices(c) for c in coords))
    axes = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    flat = None
    for k in axes:
        c, n, m = coords[k], dims[k], modes[k]
        if m == "wrap":
            c = c % n
        elif m == "clip":
            c = cuprum.clip(c, 0, n - 1)
        elif bool(((c < 0) | (c >= n)).any()):
            raise ValueError("invalid entry in coordinates array")
        flat = c if flat is None else flat * n + c
    return flat


def unravel_index(indices, shape, order="C"):
    """The coordinate arrays of flat ``indices`` in an array of ``shape`` (``order``:
    ``'C'`` or ``'F'``), NumPy's ``unravel_index``."""
    shape, size = _int_dims((shape,) if not isinstance(shape, (tuple, list)) else shape)
    order = _index_order(order)
    if size > numpy.iinfo(numpy.int64).max:
        raise ValueError(
            "dimensions are too large; arrays and shapes with a total size greater than "
            "'intp' are not supported."
        )
    idx = _int_indices(indices)
    bad = (idx < 0) | (idx >= size)
    if bool(bad.any()):
        first = int(idx.ravel()[cuprum.flatnonzero(bad.ravel())[0]])
        raise ValueError(f"index {first} is out of bounds for array with size {size}")
    out = []
    axes = reversed(range(len(shape))) if order == "C" else range(len(shape))
    for k in axes:
        out.append(idx % shape[k])
        idx = idx // shape[k]
    return tuple(reversed(out)) if order == "C" else tuple(out)


def indices(dimensions, dtype=int, sparse=False):
    """Arrays of the coordinates of a grid of ``dimensions`` (one per axis)."""
    dims = tuple(dimensions)
    n = len(dims)
    out = []
    for k, d in enumerate(dims):
        shape = [1] * n
        shape[k] = d
        g = cuprum.arange(d, dtype=dtype).reshape(tuple(shape))
        out.append(g if sparse else cuprum.broadcast_to(g, dims).copy())
    return tuple(out) if sparse else cuprum.stack(out) if n else cuprum.empty((0,), dtype=dtype)


def ix_(*args):
    """Open meshes of 1-D sequences, each shaped to index one axis."""
    out = []
    n = len(args)
    for k, a in enumerate(args):
        a = cuprum.asarray(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == bool:
            a = cuprum.flatnonzero(a)
        shape = [1] * n
        shape[k] = a.size
        out.append(a.reshape(tuple(shape)))
    return tuple(out)


def _triangle_extents(n, m):
    """The extents of a triangle's array: integers (CuPy's ``TypeError`` for an array,
    where NumPy fails on its truth value)."""
    n = operator.index(n)
    return n, (n if m is None else operator.index(m))


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle of an ``(n, m)`` array (diagonal offset ``k``)."""
    n, m = _triangle_extents(n, m)
    return cuprum.nonzero(cuprum.tri(n, m, k=k, dtype=bool))


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle of an ``(n, m)`` array (diagonal offset ``k``)."""
    n, m = _triangle_extents(n, m)
    return cuprum.nonzero(~cuprum.tri(n, m, k=k - 1, dtype=bool))


def tril_indices_from(arr, k=0):
    """``tril_indices`` of the 2-D ``arr``'s shape."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` of the 2-D ``arr``'s shape."""
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def _along(nd, axis, s):
    key = [slice(None)] * nd
    key[axis] = s
    return tuple(key)


def _spacing(f, axes, varargs):
    """Each axis' spacing: a scalar, or the 1-D array of the coordinates' differences."""
    n = len(axes)
    if len(varargs) == 0:
        return [1.0] * n
    if len(varargs) == 1 and numpy.ndim(varargs[0]) == 0:
        return [varargs[0]] * n
    if len(varargs) != n:
        raise TypeError("invalid number of arguments")
    out = []
    for ax, d in zip(axes, varargs):
        if numpy.ndim(d) == 0:
            out.append(d)
            continue
        d = cuprum.asarray(d)
        if d.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if d.shape[0] != f.shape[ax]:
            raise ValueError(
                "when 1d, distances must match the length of the corresponding dimension"
            )
        if d.dtype.kind in "iub":
            d = d.astype(numpy.float64)
        dx = d[1:] - d[:-1]
        out.append(dx)
    return out


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of ``f`` by central differences inside and one-sided differences of
    ``edge_order`` 1 or 2 at the edges (NumPy's ``gradient``), per axis; spacings are
    scalars or 1-D coordinate arrays."""
    f = cuprum.asarray(f)
    nd = f.ndim
    axes = _axes_of(axis, nd)
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if f.dtype.kind == "b":
        # NumPy differences booleans as they are, and its boolean subtract raises
        raise TypeError(
            "boolean subtract, the `-` operator, is not supported (as in NumPy's gradient of "
            "a boolean array): cast to an integer or float type first"
        )
    spacing = _spacing(f, axes, varargs)
    dtype = f.dtype if f.dtype.kind in "fc" else numpy.dtype(numpy.float64)
    f = f.astype(dtype, copy=False)
    outs = []
    for ax, h in zip(axes, spacing):
        if f.shape[ax] < edge_order + 1:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least "
                "(edge_order + 1) elements are required."
            )
        out = cuprum.empty(f.shape, dtype=dtype)
        sl = functools.partial(_along, nd, ax)
        uniform = numpy.ndim(h) == 0
        if uniform:
            out[sl(slice(1, -1))] = (f[sl(slice(2, None))] - f[sl(slice(None, -2))]) / (2.0 * h)
        else:
            shape = [1] * nd
            shape[ax] = -1
            dx1 = h[:-1].reshape(tuple(shape))
            dx2 = h[1:].reshape(tuple(shape))
            a = -dx2 / (dx1 * (dx1 + dx2))
            b = (dx2 - dx1) / (dx1 * dx2)
            c = dx1 / (dx2 * (dx1 + dx2))
            out[sl(slice(1, -1))] = (
                a * f[sl(slice(None, -2))] + b * f[sl(slice(1, -1))] + c * f[sl(slice(2, None))]
            )
        if edge_order == 1:
            d0 = h if uniform else h[0]
            d1 = h if uniform else h[-1]
            out[sl(slice(0, 1))] = (f[sl(slice(1, 2))] - f[sl(slice(0, 1))]) / d0
            out[sl(slice(-1, None))] = (f[sl(slice(-1, None))] - f[sl(slice(-2, -1))]) / d1
        else:
            if uniform:
                a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
            else:
                dx1, dx2 = h[0], h[1]
                a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
                b = (dx1 + dx2) / (dx1 * dx2)
                c = -dx1 / (dx2 * (dx1 + dx2))
            out[sl(slice(0, 1))] = (
                a * f[sl(slice(0, 1))] + b * f[sl(slice(1, 2))] + c * f[sl(slice(2, 3))]
            )
            if uniform:
                a, b, c = 0.5 / h, -2.0 / h, 1.5 / h
            else:
                dx1, dx2 = h[-2], h[-1]
                a = dx2 / (dx1 * (dx1 + dx2))
                b = -(dx2 + dx1) / (dx1 * dx2)
                c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
            out[sl(slice(-1, None))] = (
                a * f[sl(slice(-3, -2))] + b * f[sl(slice(-2, -1))] + c * f[sl(slice(-1, None))]
            )
        outs.append(out)
    return outs[0] if len(axes) == 1 else tuple(outs)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """``p`` with jumps larger than ``discont`` along ``axis`` taken back by multiples of
    ``period`` (NumPy's ``unwrap``, its integer rule included)."""
    p = cuprum.asarray(p)
    dd = cuprum.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = numpy.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = cuprum.mod(dd - low, period) + low
    if ambiguous:
        ddmod = cuprum.where((ddmod == low) & (dd > 0), high, ddmod)
    correct = cuprum.where(cuprum.abs(dd) < discont, 0, ddmod - dd)
    up = cuprum.array(p, copy=True, dtype=dtype)
    index = [slice(None)] * p.ndim
    index[axis] = slice(1, None)
    index = tuple(index)
    up[index] = p[index] + cuprum.cumsum(correct, axis=axis)
    return up


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast to one shape with equal elements (a 0-d bool
    array, as CuPy's)."""
    a1, a2 = cuprum.asarray(a1), cuprum.asarray(a2)
    try:
        cuprum.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return cuprum.asarray(False)
    return (a1 == a2).all()
