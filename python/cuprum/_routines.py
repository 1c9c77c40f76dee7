"""NumPy's routines on cuprum arrays: sorting, scans, searching, counting, order statistics,
indexing, joining and splitting (``hsplit``, ``vsplit``, ``dsplit`` among them), matrices
(``diag``, ``diagflat``, ``tri``, ``rot90``, ``diag_indices_from``, ``mask_indices`` among
them), shape changes and broadcasting (the ``broadcast`` class), and the array API's
``unique_all``, ``unique_counts``, ``unique_inverse`` and ``unique_values``.

Each function takes NumPy's (and CuPy's) signature and returns what NumPy returns (result
dtypes included); the work is the Rust engine's (``cuprum._cuprum``, ``routines.rs``).
Keywords NumPy has and cuprum does not carry out raise ``NotImplementedError``.
"""

from __future__ import annotations

from typing import NamedTuple

from cuprum import _cuprum


class _NoValueType:
    """An argument left out (``numpy._NoValue``'s role, without importing NumPy)."""

    def __repr__(self):
        return "<no value>"


_NoValue = _NoValueType()


def _given(x):
    """Whether ``x`` is an argument given (neither cuprum's ``_NoValue`` nor NumPy's)."""
    return not (x is _NoValue or type(x).__name__ == "_NoValueType")


_asarray = _cuprum.asarray


def _no_order(order, name):
    if order is not None:
        raise NotImplementedError(f"{name}: order= (sorting by record fields) is not supported")


# ---------------------------------------------------------------------------- sorting


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """A sorted copy of ``a`` along ``axis`` (``None``: flattened); stable, NaNs last."""
    _no_order(order, "sort")
    return _cuprum.sort(a, axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """The indices (int64) that sort ``a`` along ``axis`` (``None``: flattened), stable."""
    _no_order(order, "argsort")
    return _cuprum.argsort(a, axis)


def searchsorted(a, v, side="left", sorter=None):
    """Indices (int64) where ``v``'s elements would be inserted into the sorted 1-D ``a``
    (``sorter``: integer indices that sort ``a``)."""
    if sorter is not None:
        kind = getattr(sorter, "dtype", None)
        kind = (kind if kind is not None else _asarray(sorter).dtype).kind
        if kind not in "biu":
            raise TypeError("sorter must only contain integers")
    return _cuprum.searchsorted(a, v, side, sorter)


# ---------------------------------------------------------------------------- scans, differences


def cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum along ``axis`` (``None``: of the flattened array)."""
    return _cuprum.cumsum(a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product along ``axis`` (``None``: of the flattened array)."""
    return _cuprum.cumprod(a, axis, dtype, out)


def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    """The ``n``-th discrete difference along ``axis``."""
    pre = prepend if _given(prepend) else None
    app = append if _given(append) else None
    return _cuprum.diff(a, n, axis, pre, app)


# ---------------------------------------------------------------------------- rearranging


def flip(m, axis=None):
    """``m`` with the order of elements reversed along ``axis`` (``None``: every axis)."""
    return _cuprum.flip(m, axis)


def fliplr(m):
    """``m`` with its columns (axis 1) reversed."""
    m = _asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _cuprum.flip(m, 1)


def flipud(m):
    """``m`` with its rows (axis 0) reversed."""
    m = _asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _cuprum.flip(m, 0)


def roll(a, shift, axis=None):
    """``a``'s elements shifted by ``shift`` along ``axis`` (``None``: flattened), wrapping
    around; ``shift`` and ``axis`` broadcast together, each shift taken by ``int()`` and
    those of one axis added (NumPy's ``roll``)."""
    import cuprum
    from cuprum._lazy import numpy

    a = _asarray(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    axes = numpy.lib.array_utils.normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    if isinstance(shift, cuprum.ndarray):
        shift = shift.get()  # a few numbers: the shifts
    pairs = numpy.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = dict.fromkeys(range(a.ndim), 0)
    for sh, ax in pairs:
        shifts[int(ax)] += int(sh)
    moved = [ax for ax in range(a.ndim) if shifts[ax]]
    if not moved:
        return a.copy()
    return _cuprum.roll(a, tuple(shifts[ax] for ax in moved), tuple(moved))


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times (``None``: of the flattened array)."""
    nd = getattr(repeats, "ndim", None)
    if nd and type(repeats).__module__ == "numpy":
        raise TypeError(  # CuPy's rule: no hidden copy from the host
            "repeat: repeats must be an int, a list or a cuprum.ndarray, not numpy.ndarray"
        )
    if nd is not None and nd > 1:
        raise ValueError("object too deep for desired array")
    if isinstance(repeats, (list, tuple)):
        from cuprum._lazy import numpy

        if numpy.ndim(repeats) > 1:  # CuPy's message (NumPy's differs for a list)
            raise ValueError("object too deep for desired array")
    d = getattr(repeats, "dtype", None)
    if d is not None and d.kind == "u" and d.itemsize == 8:
        raise TypeError(  # NumPy's: repeats cast to intp under the 'safe' rule
            "Cannot cast array data from dtype('uint64') to dtype('int64') according to the "
            "rule 'safe'"
        )
    return _cuprum.repeat(a, repeats, axis)


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis."""
    return _cuprum.tile(A, reps)


# ---------------------------------------------------------------------------- counting


def histogram(a, bins=10, range=None, weights=None, density=None):
    """The histogram of ``a``: ``(counts, bin_edges)`` (``bins`` a count or the edges;
    with ``weights``, the sums of the weights in each bin)."""
    if weights is not None:
        a = _asarray(a)
        w = _asarray(weights)
        if w.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        rng = None if range is None else [range]
        if w.dtype.kind == "c":  # NumPy's: the real and imaginary sums apart
            hist, edges = histogramdd(a.reshape(-1, 1), bins=[bins], range=rng, weights=w.real)
            hist = hist + 1j * histogramdd(a.reshape(-1, 1), [bins], rng, weights=w.imag)[0]
        else:
            hist, edges = histogramdd(a.reshape(-1, 1), bins=[bins], range=rng, weights=w)
        e = edges[0]
        if _ndim(bins) == 0 and a.dtype.kind == "f":
            e = e.astype(a.dtype)  # a count of bins: NumPy's edges in the data's float dtype
        if density:  # NumPy's: over the widths of the edges as returned
            import cuprum

            return hist / cuprum.diff(e).astype("float64") / hist.sum(), e
        return hist.astype(w.dtype), e  # NumPy's: the sums in the weights' dtype
    if isinstance(bins, str):
        raise NotImplementedError(f"histogram: bins={bins!r} (an estimator) is not supported")
    if range is not None:
        lo, hi = range
        range = (float(lo), float(hi))
    return _cuprum.histogram(a, bins, range, bool(density))


def bincount(x, weights=None, minlength=0):
    """The number of occurrences of each non-negative integer in ``x`` (or the sums of
    ``weights``)."""
    r = _cuprum.bincount(x, weights, minlength)
    if weights is not None and getattr(x, "size", 1) == 0:
        return r.astype("int64")  # NumPy's: an empty x counts in intp, weights or not
    return r


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (a bool array of
    ``element``'s shape). Complex values are compared block by block of the test values
    (the engine's hash tables hold real numbers)."""
    e = _asarray(element)
    t = _asarray(test_elements)
    if e.dtype.kind == "c" or t.dtype.kind == "c":
        return _isin_by_blocks(e, t.ravel(), invert)
    return _cuprum.isin(e, t, invert)


def _isin_by_blocks(e, t, invert):
    import cuprum

    found = cuprum.zeros(e.shape, dtype=bool)
    if t.size:
        step = max(1, (1 << 24) // max(e.size, 1))
        flat = e.reshape(e.shape + (1,))
        for i in range(0, t.size, step):
            found |= (flat == t[i : i + step]).any(axis=-1)
    return ~found if invert else found


# ---------------------------------------------------------------------------- order statistics


_NUMPY_METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)


def _linear_only(method, name):
    if method not in _NUMPY_METHODS:
        raise ValueError(
            f"{method!r} is not a valid method. Use one of: {', '.join(_NUMPY_METHODS)}"
        )
    if method != "linear":
        raise NotImplementedError(f"{name}: method={method!r} is not supported")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (an int, a tuple of ints, or ``None``: of the flattened
    array)."""
    _overwrite(a, axis, overwrite_input)
    if isinstance(axis, (tuple, list)):
        # the reduced axes merged into one last axis: the one-axis median (every dtype)
        a = _asarray(a)
        rows, rest, axes = _rows_along(a, tuple(axis))
        r = _cuprum.median(rows, 1, False)
        if keepdims:
            rest = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
        return _to_out(r.reshape(rest), out)
    r = _cuprum.median(a, axis, keepdims)
    return _to_out(r, out)


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """The ``q``-th quantiles (``q`` in ``[0, 1]``) along ``axis`` by NumPy's ``method``."""
    method = method if interpolation is None else interpolation
    _overwrite(a, axis, overwrite_input)
    return _quantiles("quantile", _cuprum.quantile, a, q, axis, out, method, keepdims, weights)


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """The ``q``-th percentiles (``q`` in ``[0, 100]``) along ``axis`` by NumPy's ``method``."""
    method = method if interpolation is None else interpolation
    _overwrite(a, axis, overwrite_input)
    return _quantiles("percentile", _cuprum.percentile, a, q, axis, out, method, keepdims, weights)


def _overwrite(a, axis, overwrite_input):
    """NumPy's ``overwrite_input=True``: ``a`` may serve as the work space, so a writeable
    device array is sorted in place along ``axis`` (the order statistics then read sorted
    data; what ``a`` holds afterwards is unspecified, as in NumPy)."""
    import cuprum

    if not overwrite_input or not isinstance(a, cuprum.ndarray) or not a.writeable:
        return
    if isinstance(axis, int) and a.ndim > 0:
        a.sort(axis=axis)
    elif axis is None and a.is_c_contiguous and a.size > 0:
        a.reshape(-1).sort()


def _quantiles(name, native, a, q, axis, out, method, keepdims, weights):
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported")
    q_ndim = q.ndim if hasattr(q, "ndim") else _q_ndim(q)
    if q_ndim > 2:  # NumPy's limit (its message, though it takes two)
        raise ValueError("q must be a scalar or 1d")
    if method in _NUMPY_METHODS and (method != "linear" or isinstance(axis, (tuple, list))):
        scale = 100.0 if name == "percentile" else 1.0
        return _to_out(_by_rank(name, a, q, scale, axis, keepdims, method), out)
    _linear_only(method, name)
    return _to_out(native(a, q, axis, keepdims), out)


def _q_ndim(q):
    """The number of dimensions of a nested sequence ``q`` (0 for a scalar)."""
    n = 0
    while isinstance(q, (list, tuple)):
        n += 1
        if not q:
            break
        q = q[0]
    return n


def _axes_of(axis, nd):
    """``axis`` (an int, a sequence of ints, or ``None``: every axis) as non-negative axes
    of an ``nd``-dimensional array, in the order given (NumPy's AxisError for one out of
    range)."""
    from cuprum._lazy import numpy

    if axis is None:
        return tuple(range(nd))
    given = axis if isinstance(axis, (tuple, list)) else (axis,)
    for ax in given:
        if not -nd <= ax < nd:
            raise numpy.exceptions.AxisError(ax, nd)
    return tuple(ax % nd for ax in given)


def _rows_along(a, axis):
    """``a`` as rows of the elements along ``axis`` (an int, a tuple of ints or ``None``):
    ``(rows, rest, axes)``, ``rest`` the shape of the other axes, ``axes`` the reduced
    ones normalised and sorted."""

    nd = a.ndim
    axes = tuple(sorted(_axes_of(axis, nd)))
    rest_axes = [d for d in range(nd) if d not in axes]
    moved = a.transpose(rest_axes + list(axes)) if nd else a.reshape(1)
    rest = tuple(a.shape[d] for d in rest_axes)
    n = 1
    for d in axes:
        n *= a.shape[d]
    return moved.reshape(-1, n), rest, axes


_ALPHA_BETA = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}


def _ranks(method, n, q):
    """NumPy's ranks for ``method`` over ``n`` sorted values at quantiles ``q`` (host
    float64): ``(k, None, None)`` for the methods that pick one value, else
    ``(previous, next, gamma)`` for its interpolation."""
    from cuprum._lazy import numpy

    def boundary(index, take_previous):
        prev = numpy.floor(index)
        k = numpy.where(take_previous(index - prev, index), prev, prev + 1).astype(numpy.int64)
        return numpy.clip(k, 0, None)

    if method == "lower":
        return numpy.floor((n - 1) * q).astype(numpy.int64), None, None
    if method == "higher":
        return numpy.ceil((n - 1) * q).astype(numpy.int64), None, None
    if method == "nearest":
        return numpy.around((n - 1) * q).astype(numpy.int64), None, None
    if method == "inverted_cdf":
        return boundary(n * q - 1, lambda g, _: g == 0), None, None
    if method == "closest_observation":
        odd = lambda g, i: (g == 0) & (numpy.floor(i) % 2 == 1)
        return boundary(n * q - 1 - 0.5, odd), None, None
    if method == "averaged_inverted_cdf":
        v = n * q - 1
    elif method == "midpoint":
        v = 0.5 * (numpy.floor((n - 1) * q) + numpy.ceil((n - 1) * q))
    elif method == "linear":
        v = (n - 1) * q
    else:
        alpha, beta = _ALPHA_BETA[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    prev = numpy.floor(v)
    nxt = prev + 1
    above, below = v >= n - 1, v < 0
    prev[above], nxt[above] = n - 1, n - 1
    prev[below], nxt[below] = 0, 0
    gamma = v - prev
    if method == "averaged_inverted_cdf":
        gamma = numpy.where(gamma == 0, 0.5, 1.0)
    elif method == "midpoint":
        gamma = numpy.where(v % 1 == 0, 0.0, 0.5)
    return prev.astype(numpy.int64), nxt.astype(numpy.int64), gamma


def _by_rank(name, a, q, scale, axis, keepdims, method):
    """NumPy's quantiles by ``method`` (every one of its thirteen): the sorted values at
    NumPy's ranks, interpolated as NumPy's ``_lerp`` does, in the dtype NumPy returns (NaN
    where a slice holds one)."""
    import cuprum
    from cuprum._lazy import numpy

    a = _asarray(a)
    qh = numpy.asarray(q.get() if isinstance(q, cuprum.ndarray) else q, dtype=numpy.float64)
    qh = qh / scale
    if numpy.any((qh < 0) | (qh > 1)):
        if name == "percentile":
            raise ValueError("Percentiles must be in the range [0, 100]")
        raise ValueError("Quantiles must be in the range [0, 1]")
    nd = a.ndim
    rows, rest, axes = _rows_along(a, axis)
    n = rows.shape[1]
    if n == 0:
        raise ValueError(f"{name} of an empty slice")
    # NumPy's result dtype for this input dtype, method and kind of q
    probe = 0.5 if isinstance(q, (int, float)) else numpy.zeros(qh.shape, getattr(q, "dtype", None))
    if name == "percentile" and not isinstance(probe, float):
        probe = numpy.true_divide(probe, 100)  # NumPy's percentile divides q first
    out_dtype = numpy.quantile(numpy.zeros(2, a.dtype), probe, method=method).dtype
    s = cuprum.sort(rows, axis=-1)  # NaNs last
    prev, nxt, gamma = _ranks(method, n, qh.ravel())
    if gamma is None:
        r = s[:, numpy.minimum(prev, n - 1)]
    else:
        # NumPy's _lerp: the difference in the data's dtype (floats), the rest in gamma's
        x = s if s.dtype.kind in "fc" else s.astype(numpy.float64)
        lo, hi = x[:, prev], x[:, nxt]
        t = cuprum.asarray(gamma)
        diff = hi - lo
        r = cuprum.where(t >= 0.5, hi - diff * (1 - t), lo + diff * t)
    if s.dtype.kind in "fc":
        r = cuprum.where(cuprum.isnan(s[:, -1:]), numpy.nan, r)
    r = r.astype(out_dtype, copy=False)
    if keepdims:
        rest = tuple(1 if d in axes else a.shape[d] for d in range(nd))
    r = r.T.reshape(qh.shape + rest)
    return r if r.is_c_contiguous else r.copy()  # 0-d stays 0-d


def _to_out(r, out):
    if out is None:
        return r
    out[...] = r
    return out


# ---------------------------------------------------------------------------- indexing


def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (``None``: of the flattened array)."""
    return _cuprum.take(a, indices, axis, out, mode)


def put(a, ind, v, mode="raise"):
    """Sets ``a.flat[ind] = v`` in place (``v`` repeated as needed; nothing for an empty
    ``v``, as NumPy's)."""
    if _asarray(v).size == 0 and isinstance(a, _cuprum.ndarray):
        return
    _cuprum.put(a, ind, v, mode)


def ptp(a, axis=None, out=None, keepdims=False):
    """The range of values (maximum minus minimum) along ``axis`` (NumPy's ``ptp``)."""
    a = _asarray(a)
    r = a.max(axis=axis, keepdims=keepdims) - a.min(axis=axis, keepdims=keepdims)
    return _to_out(r, out)


def choose(a, choices, out=None, mode="raise"):
    """NumPy's ``choose``: ``choices[a[i]][i]`` for every position ``i`` of ``a`` and the
    choices broadcast together; ``mode`` is ``'raise'`` (an index outside ``[0, n)`` is a
    ``ValueError``), ``'wrap'`` or ``'clip'``."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind not in "iub":
        raise TypeError(f"choose: the index array must be of an integer type, got {a.dtype}")
    arrays = [_asarray(c) for c in choices]
    n = len(arrays)
    if n == 0:
        raise ValueError("choose: at least one choice is needed")
    shape = cuprum.broadcast_shapes(a.shape, *(c.shape for c in arrays))
    dtype = cuprum.result_type(*arrays)
    stacked = cuprum.stack([cuprum.broadcast_to(c, shape).astype(dtype) for c in arrays])
    idx = cuprum.broadcast_to(a.astype("int64"), shape)
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = cuprum.clip(idx, 0, n - 1)
    elif mode == "raise":
        if idx.size and bool(((idx < 0) | (idx >= n)).any()):
            raise ValueError("invalid entry in choice array")
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    flat = stacked.reshape(n, -1)
    r = flat[idx.ravel(), cuprum.arange(flat.shape[1])].reshape(shape)
    return _to_out(r, out)


def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` where ``condition`` is true."""
    return _cuprum.compress(condition, a, axis, out)


def nonzero(a):
    """The indices of the non-zero elements: one int64 array per axis."""
    return _cuprum.nonzero(a)


def flatnonzero(a):
    """The indices of the non-zero elements of the flattened array."""
    return _cuprum.flatnonzero(a)


def argwhere(a):
    """The indices of the non-zero elements, one row per element."""
    return _cuprum.argwhere(a)


def unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
    sorted=True,
):
    """The sorted unique elements of ``ar`` (sub-arrays along ``axis``), optionally with
    the first indices, the inverse and the counts."""
    if axis is None and not (return_index or return_inverse or return_counts) and equal_nan:
        return _cuprum.unique(ar)
    values, index, inverse, counts = _cuprum.unique_all(ar, axis)
    if equal_nan and axis is None and values.dtype.kind in "fc" and values.size > 1:
        values, index, inverse, counts = _one_nan(values, index, inverse, counts)
    extra = []
    if return_index:
        extra.append(index)
    if return_inverse:
        extra.append(inverse)
    if return_counts:
        extra.append(counts)
    return (values, *extra) if extra else values


def _one_nan(values, index, inverse, counts):
    """``unique``'s results with its NaNs (sorted last, each its own value) counted as one
    value, as NumPy's ``equal_nan=True``."""
    nans = int(_cuprum.reduce("sum", _cuprum.ufunc("isnan", values), None, None, None, False))
    if nans < 2:
        return values, index, inverse, counts
    k = values.size - nans  # the first NaN
    total = _cuprum.reduce("sum", counts[k:], None, None, None, True)
    return (
        values[: k + 1],
        index[: k + 1],  # the first NaN in sorted order stands for them all
        _cuprum.ufunc("minimum", inverse, k),
        _cuprum.concatenate([counts[:k], total], 0),
    )


class UniqueAllResult(NamedTuple):
    """``unique_all``'s result (NumPy's field names)."""

    values: _cuprum.ndarray
    indices: _cuprum.ndarray
    inverse_indices: _cuprum.ndarray
    counts: _cuprum.ndarray


class UniqueCountsResult(NamedTuple):
    """``unique_counts``'s result (NumPy's field names)."""

    values: _cuprum.ndarray
    counts: _cuprum.ndarray


class UniqueInverseResult(NamedTuple):
    """``unique_inverse``'s result (NumPy's field names)."""

    values: _cuprum.ndarray
    inverse_indices: _cuprum.ndarray


def unique_all(x):
    """The array API's ``unique_all``: the sorted unique values of ``x`` (each NaN its own
    value), the first index of each, the inverse (of ``x``'s shape) and the counts."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


def unique_counts(x):
    """The array API's ``unique_counts``: the sorted unique values and their counts."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    """The array API's ``unique_inverse``: the sorted unique values and the indices into
    them that rebuild ``x`` (of ``x``'s shape)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_values(x):
    """The array API's ``unique_values``: the unique values of ``x`` (each NaN its own
    value), sorted here (NumPy's order is unspecified)."""
    return unique(x, equal_nan=False)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``a`` and ``b`` are equal within ``atol + rtol * |b|`` (element-wise)."""
    return _cuprum.isclose(a, b, float(rtol), float(atol), bool(equal_nan))


# ---------------------------------------------------------------------------- joining, splitting


def join_cast(arrays, dtype, casting, out=None, name="concatenate"):
    """The dtype that joined ``arrays`` take (``dtype``, else ``out``'s, else NumPy's
    promotion of theirs), after NumPy's check that each casts to it under ``casting`` (its
    ``TypeError``; also for ``out`` and ``dtype`` given together)."""
    from cuprum._lazy import numpy

    if out is not None:
        if dtype is not None:
            raise TypeError(
                f"{name}() only takes `out` or `dtype` as an argument, but both were provided."
            )
        if arrays:
            join_cast(arrays, out.dtype, casting)
        return None
    if not arrays:
        return None  # the join's own error: nothing to join
    dts = [a.dtype if hasattr(a, "dtype") else numpy.asarray(a).dtype for a in arrays]
    target = numpy.dtype(dtype) if dtype is not None else numpy.result_type(*dts)
    for d in dts:
        if not numpy.can_cast(d, target, casting=casting):
            raise TypeError(
                f"Cannot cast array data from {d!r} to {target!r} according to the rule {casting!r}"
            )
    return None if dtype is None else target


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along a new ``axis`` (cast to ``dtype`` under ``casting``)."""
    arrays = list(arrays)
    dtype = join_cast(arrays, dtype, casting, out, "stack")
    r = _cuprum.stack(arrays, axis)
    if dtype is not None and r.dtype != dtype:
        r = r.astype(dtype)
    return _to_out(r, out)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """The arrays joined along the first axis (1-D arrays as rows)."""
    arrs = [atleast_2d(a) for a in tup]
    dtype = join_cast(arrs, dtype, casting)
    r = _cuprum.concatenate(arrs, 0)
    return r if dtype is None or r.dtype == dtype else r.astype(dtype)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """The arrays joined along the second axis (the first for 1-D arrays)."""
    arrs = [atleast_1d(a) for a in tup]
    dtype = join_cast(arrs, dtype, casting)
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    r = _cuprum.concatenate(arrs, axis)
    return r if dtype is None or r.dtype == dtype else r.astype(dtype)


def split(ary, indices_or_sections, axis=0):
    """``ary`` split into equal sections, or before the given indices, along ``axis``."""
    return _cuprum.split(ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """``ary`` split into sections (the first ones one longer when the length does not
    divide), or before the given indices."""
    return _cuprum.array_split(ary, indices_or_sections, axis)


def _split_along(name, least, ary, indices_or_sections, axis_of):
    ary = _asarray(ary)
    if ary.ndim < least:
        raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
    return _cuprum.split(ary, indices_or_sections, axis_of(ary.ndim))


def hsplit(ary, indices_or_sections):
    """``split`` along the second axis (the first for a 1-D array)."""
    return _split_along("hsplit", 1, ary, indices_or_sections, lambda nd: 1 if nd > 1 else 0)


def vsplit(ary, indices_or_sections):
    """``split`` along the first axis (of an array of at least 2 dimensions)."""
    return _split_along("vsplit", 2, ary, indices_or_sections, lambda nd: 0)


def dsplit(ary, indices_or_sections):
    """``split`` along the third axis (of an array of at least 3 dimensions)."""
    return _split_along("dsplit", 3, ary, indices_or_sections, lambda nd: 2)


# ---------------------------------------------------------------------------- matrices


def tril(m, k=0):
    """A copy of ``m`` with the elements above the ``k``-th diagonal zeroed."""
    return _cuprum.tril(m, k)


def triu(m, k=0):
    """A copy of ``m`` with the elements below the ``k``-th diagonal zeroed."""
    return _cuprum.triu(m, k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal of ``a`` over ``axis1`` and ``axis2``."""
    return _cuprum.diagonal(a, offset, axis1, axis2)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along the ``offset``-th diagonal."""
    return _cuprum.trace(a, offset, axis1, axis2, dtype, out)


def outer(a, b, out=None):
    """The outer product of the flattened ``a`` and ``b``."""
    return _to_out(_cuprum.outer(a, b), out)


def _on_diagonal(v, k):
    """A square zero array of ``v``'s dtype with the 1-D ``v`` on its ``k``-th diagonal."""
    import cuprum

    n = v.size + abs(k)
    res = cuprum.zeros((n, n), dtype=v.dtype)
    if v.size:
        first = k if k >= 0 else -k * n  # the flat index of the diagonal's first element
        res.reshape(-1)[first : first + (v.size - 1) * (n + 1) + 1 : n + 1] = v
    return res


def diag(v, k=0):
    """The 2-D array with the 1-D ``v`` on its ``k``-th diagonal, or the ``k``-th diagonal
    of the 2-D ``v``."""
    v = _asarray(v)
    if v.ndim == 1:
        return _on_diagonal(v, k)
    if v.ndim == 2:
        return _cuprum.diagonal(v, k, 0, 1)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """The 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    return _on_diagonal(_asarray(v).ravel(), k)


def tri(N, M=None, k=0, dtype=float):
    """The ``N`` x ``M`` array with ones at and below the ``k``-th diagonal, zeros
    elsewhere."""
    import cuprum

    if M is None:
        M = N
    rows = cuprum.arange(N).reshape(-1, 1)
    cols = cuprum.arange(-k, M - k).reshape(1, -1)
    m = cuprum.greater_equal(rows, cols)
    return m.astype("float64" if dtype is None else dtype, copy=False)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the first
    axis towards the second (a view)."""
    import cuprum

    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = _asarray(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not (-m.ndim <= axes[0] < m.ndim and -m.ndim <= axes[1] < m.ndim):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[:]
    if k == 2:
        return cuprum.flip(cuprum.flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return cuprum.flip(m, axes[1]).transpose(perm)
    return cuprum.flip(m.transpose(perm), axes[1])


# ---------------------------------------------------------------------------- shapes


def squeeze(a, axis=None):
    """``a`` without its axes of extent 1 (all of them, or those in ``axis``; a 0-d array
    takes the int axis 0 or -1, as NumPy's)."""
    if isinstance(axis, int) and axis in (0, -1) and getattr(a, "ndim", None) == 0:
        return a[...]
    return _cuprum.squeeze(a, axis)


def expand_dims(a, axis):
    """``a`` with axes of extent 1 inserted at the positions ``axis`` of the result."""
    return _cuprum.expand_dims(a, axis)


def swapaxes(a, axis1, axis2):
    """A view of ``a`` with ``axis1`` and ``axis2`` interchanged."""
    return _cuprum.swapaxes(a, axis1, axis2)


def moveaxis(a, source, destination):
    """A view of ``a`` with the axes ``source`` moved to ``destination``."""
    return _cuprum.moveaxis(a, source, destination)


def broadcast_to(array, shape, subok=False):
    """A view of ``array`` broadcast to ``shape``."""
    return _cuprum.broadcast_to(array, shape)


class broadcast:
    """The broadcast of the arguments (NumPy's and CuPy's ``broadcast``): ``shape``,
    ``nd``/``ndim``, ``size`` and ``numiter`` (the number of arrays) of the result, and
    ``values``, the arguments as device arrays broadcast to ``shape`` (views)."""

    __slots__ = ("_shape", "_values")

    def __init__(self, *arrays):
        import cuprum

        flat = []
        for a in arrays:
            flat.extend(a.values if isinstance(a, broadcast) else (_asarray(a),))
        if len(flat) > 64:
            raise ValueError("Need at least 0 and at most 64 array objects.")
        self._shape = cuprum.broadcast_shapes(*(a.shape for a in flat))
        self._values = tuple(_cuprum.broadcast_to(a, self._shape) for a in flat)

    @property
    def shape(self):
        """The shape of the broadcast result."""
        return self._shape

    @property
    def values(self):
        """The arguments broadcast to ``shape`` (device arrays, views)."""
        return self._values

    @property
    def nd(self):
        """The number of dimensions of the broadcast result."""
        return len(self.shape)

    @property
    def ndim(self):
        """The number of dimensions of the broadcast result."""
        return len(self.shape)

    @property
    def size(self):
        """The number of elements of the broadcast result."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def numiter(self):
        """The number of arrays broadcast."""
        return len(self.values)


def _atleast(arys, shape_of):
    out = []
    for a in arys:
        a = _asarray(a)
        shape = shape_of(a.shape)
        out.append(a if shape == a.shape else a.reshape(shape))
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys):
    """The arguments as arrays of at least one dimension."""
    return _atleast(arys, lambda s: s if len(s) >= 1 else (1,))


def atleast_2d(*arys):
    """The arguments as arrays of at least two dimensions (a 1-D array becomes a row)."""
    return _atleast(arys, lambda s: s if len(s) >= 2 else (1,) * (2 - len(s)) + s)


def atleast_3d(*arys):
    """The arguments as arrays of at least three dimensions (``(N,)`` becomes ``(1, N, 1)``,
    ``(M, N)`` becomes ``(M, N, 1)``)."""

    def shape_of(s):
        if len(s) == 0:
            return (1, 1, 1)
        if len(s) == 1:
            return (1, s[0], 1)
        if len(s) == 2:
            return (*s, 1)
        return s

    return _atleast(arys, shape_of)


# ---------------------------------------------------------------------------- statistics with NaNs


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance of the values that are not NaN (NumPy's ``nanvar``; NaN where fewer
    than ``ddof + 1`` remain)."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return cuprum.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    if dtype is not None:
        a = a.astype(dtype)
    real = a.real.dtype
    keep = ~cuprum.isnan(a)
    n = keep.sum(axis=axis, keepdims=True).astype(real)
    mean = cuprum.nansum(a, axis=axis, keepdims=True) / n
    d = cuprum.where(keep, a - mean, 0)
    sq = (d.real * d.real + d.imag * d.imag) if a.dtype.kind == "c" else d * d
    dof = n - ddof
    r = sq.sum(axis=axis, keepdims=True).astype(real) / cuprum.maximum(dof, 0)
    r = cuprum.where(dof > 0, r, cuprum.nan).astype(real)
    if not keepdims:
        r = r.reshape(sq.sum(axis=axis).shape)
    return _to_out(r, out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation of the values that are not NaN (NumPy's ``nanstd``)."""
    import cuprum

    return _to_out(cuprum.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims)), out)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of the values that are not NaN along ``axis`` (an int, a tuple or
    ``None``; NaN where none are)."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return median(a, axis=axis, out=out, keepdims=keepdims)
    rows, rest, axes = _rows_along(a, axis)
    s = cuprum.sort(rows, axis=-1)  # NaNs last
    k = (~cuprum.isnan(s)).sum(axis=-1)
    idx = cuprum.arange(s.shape[0])
    lo = cuprum.maximum((k - 1) // 2, 0)
    hi = cuprum.minimum(k // 2, max(s.shape[1] - 1, 0))
    if s.shape[1] == 0:
        r = cuprum.full(s.shape[0], cuprum.nan, dtype=a.dtype)
    else:
        r = (s[idx, lo] + s[idx, hi]) / 2
        r = cuprum.where(k > 0, r, cuprum.nan).astype(a.dtype, copy=False)
    if keepdims:
        rest = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    return _to_out(r.reshape(rest), out)


# ---------------------------------------------------------------------------- partitions


def _check_kth(kth, n):
    for k in kth if isinstance(kth, (list, tuple)) else [kth]:
        k = int(k)
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` partitioned around ``kth`` (the ``kth`` element where a sort puts it, smaller
    ones before, larger after): here the whole axis is sorted, which satisfies that."""
    _no_order(order, "partition")
    a = _asarray(a)
    _check_kth(kth, _axis_length(a, axis))
    return _cuprum.sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` around ``kth`` (here: the indices that sort it)."""
    _no_order(order, "argpartition")
    a = _asarray(a)
    _check_kth(kth, _axis_length(a, axis))
    return _cuprum.argsort(a, axis)


def _axis_length(a, axis):
    """The length of ``a`` along ``axis`` (``None``: its size), NumPy's AxisError else."""
    if axis is None:
        return a.size
    if not -a.ndim <= axis < max(a.ndim, 0) or a.ndim == 0:
        from cuprum._lazy import numpy

        raise numpy.exceptions.AxisError(axis, a.ndim)
    return a.shape[axis]


# ---------------------------------------------------------------------------- placing elements


def putmask(a, mask, values):
    """``a.flat[i] = values.flat[i % values.size]`` where ``mask.flat[i]`` (in place)."""
    import cuprum

    mask = _asarray(mask)
    if mask.shape != a.shape:
        raise ValueError("putmask: mask and data must be the same size")
    if hasattr(values, "dtype"):
        from cuprum._lazy import numpy

        if not numpy.can_cast(values.dtype, a.dtype, "safe"):
            raise TypeError(
                f"Cannot cast array data from {numpy.dtype(values.dtype)!r} to "
                f"{numpy.dtype(a.dtype)!r} according to the rule 'safe'"
            )
    idx = cuprum.flatnonzero(mask)
    v = _asarray(values).ravel()
    if v.size == 0:
        return
    cuprum.put(a, idx, v[idx % v.size])


def place(arr, mask, vals):
    """The true positions of ``mask`` (in C order) take ``vals`` in turn, repeated when
    shorter (in place)."""
    import cuprum

    mask = _asarray(mask)
    if mask.size != _asarray(arr).size:
        raise ValueError("place: mask and data must be the same size")
    idx = cuprum.flatnonzero(mask)
    v = _asarray(vals).ravel()
    if idx.size == 0:
        return
    if v.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    cuprum.put(arr, idx, v)


def fill_diagonal(a, val, wrap=False):
    """Writes ``val`` (repeated when shorter) on the main diagonal of ``a`` (in place; a
    tall 2-D array's diagonal starts again below when ``wrap``)."""
    import cuprum

    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.size if wrap else a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + sum(int(x) for x in _cumulative_products(a.shape[:-1]))
        end = a.size
    idx = cuprum.arange(0, min(end, a.size), step)
    if idx.size:
        cuprum.put(a, idx, val)


def _cumulative_products(shape):
    out, p = [], 1
    for d in shape:
        p *= d
        out.append(p)
    return out


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n`` x … x ``n`` array."""
    import cuprum

    idx = cuprum.arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    """The indices of the main diagonal of ``arr`` (at least 2-D, every axis of one
    length)."""
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def mask_indices(n, mask_func, k=0):
    """The indices of the non-zero elements of ``mask_func(ones((n, n), int), k)`` (e.g.
    ``mask_func=triu``)."""
    import cuprum

    a = _asarray(mask_func(cuprum.ones((n, n), dtype="int64"), k))
    return _cuprum.nonzero(cuprum.not_equal(a, 0))


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an int, a slice, integer indices or a boolean
    mask of the axis's length) along ``axis`` (``None``: of the flattened array), NumPy's
    ``delete``."""
    import cuprum
    from cuprum._lazy import numpy

    arr = _asarray(arr)
    if axis is None:
        arr = arr.ravel()
        axis = 0
    n = arr.shape[axis]
    keep = numpy.ones(n, dtype=bool)  # which entries stay: index metadata, on the host
    if isinstance(obj, cuprum.ndarray):
        obj = obj.get()
    if isinstance(obj, slice) or (
        isinstance(obj, (int, numpy.integer)) and not isinstance(obj, (bool, numpy.bool_))
    ):
        keep[obj] = False
    else:
        o = numpy.asarray(obj)
        if o.size == 0 and not isinstance(obj, numpy.ndarray):
            o = o.astype(numpy.intp)  # NumPy's: an empty list or tuple deletes nothing
        if o.dtype == bool:
            if o.shape != (n,):
                raise ValueError(
                    "boolean array argument obj to delete must be one dimensional and match "
                    f"the axis length of {n}"
                )
            keep = ~o
        else:
            keep[o] = False
    return cuprum.compress(cuprum.asarray(keep), arr, axis=axis)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) zeros: along each of
    the axes ``axis`` (``None``: every axis), the slabs before the first and after the last
    non-zero element removed (NumPy's ``trim_zeros``; a 0-d array as it is)."""
    import cuprum

    a = _asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = _axes_of(axis, a.ndim)
    if not axes:
        return filt if isinstance(filt, cuprum.ndarray) else a
    nz = cuprum.argwhere(a)
    if nz.shape[0] == 0:
        start = stop = [0] * a.ndim
    else:
        # the first and last non-zero position along each axis (ndim numbers)
        start = [int(v) for v in nz.min(axis=0).get()]
        stop = [int(v) + 1 for v in nz.max(axis=0).get()]
        if "f" not in trim:
            start = [None] * a.ndim
        if "b" not in trim:
            stop = [None] * a.ndim
    key = tuple(slice(start[ax], stop[ax]) if ax in axes else slice(None) for ax in range(a.ndim))
    return a[key]


# ---------------------------------------------------------------------------- more indexing and joining


def take_along_axis(arr, indices, axis):
    """Values of ``arr`` at ``indices`` along ``axis`` (``None``: of the flattened array),
    the other axes matched position by position (NumPy's ``take_along_axis``)."""
    import cuprum

    arr = _asarray(arr)
    indices = _asarray(indices)
    if axis is None:
        return arr.ravel()[indices]
    nd = arr.ndim
    if indices.ndim != nd:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = _axis_index(axis, nd)
    key = []
    for d in range(nd):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * nd
            shape[d] = arr.shape[d]
            key.append(cuprum.arange(arr.shape[d]).reshape(tuple(shape)))
    return arr[tuple(key)]


def _axis_index(axis, nd):
    from cuprum._lazy import numpy

    if not -nd <= axis < nd:
        raise numpy.exceptions.AxisError(axis, nd)
    return axis % nd


def select(condlist, choicelist, default=0):
    """Elements of the first choice whose condition holds, ``default`` where none does."""
    import cuprum

    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_asarray(c) for c in condlist]
    for c in conds:
        if c.dtype != bool:
            raise TypeError("invalid entry in condlist: should be boolean ndarray")
    choices = [_asarray(c) for c in choicelist]
    dtype = cuprum.result_type(*choices, default)
    r = cuprum.asarray(default).astype(dtype)
    for c, v in zip(reversed(conds), reversed(choices)):
        r = cuprum.where(c, v.astype(dtype, copy=False), r)
    return r


def extract(condition, arr):
    """The elements of ``arr`` at the flat positions where ``condition`` is non-zero
    (NumPy's ``extract``: ``take(ravel(arr), nonzero(ravel(condition))[0])``, so a
    shorter ``condition`` reads the first elements)."""
    import cuprum

    c = _asarray(condition).ravel()
    a = _asarray(arr).ravel()
    return cuprum.take(a, cuprum.flatnonzero(c))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The (weighted) mean along ``axis``; with ``returned`` also the sum of the weights."""
    import cuprum

    a = _asarray(a)
    if weights is None:
        avg = cuprum.mean(a, axis=axis, keepdims=keepdims)
        if returned:
            n = a.size if axis is None else a.size // max(avg.size, 1)
            return avg, cuprum.full(avg.shape, n, dtype=avg.dtype)
        return avg
    w = _asarray(weights)
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1 or w.size != a.shape[axis]:
            raise ValueError("Length of weights not compatible with specified axis.")
        shape = [1] * a.ndim
        shape[axis] = w.size
        w = w.reshape(tuple(shape))
    scale = (w + cuprum.zeros(a.shape, dtype=w.dtype)).sum(axis=axis, keepdims=keepdims)
    if bool((scale == 0).any()):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = (a * w).sum(axis=axis, keepdims=keepdims) / scale
    return (avg, scale.astype(avg.dtype)) if returned else avg


def append(arr, values, axis=None):
    """``arr`` with ``values`` joined at its end (flattened when ``axis`` is ``None``)."""
    import cuprum

    arr = _asarray(arr)
    values = _asarray(values)
    if axis is None:
        return cuprum.concatenate((arr.ravel(), values.ravel()))
    return cuprum.concatenate((arr, values), axis=axis)


def column_stack(tup):
    """1-D arrays as columns (2-D arrays as they are), joined along the second axis."""
    import cuprum

    cols = []
    for t in tup:
        t = _asarray(t)
        cols.append(t.reshape(-1, 1) if t.ndim < 2 else t)
    return cuprum.concatenate(cols, axis=1)


def dstack(tup):
    """The arrays (made at least 3-D) joined along the third axis."""
    import cuprum

    return cuprum.concatenate([cuprum.atleast_3d(_asarray(t)) for t in tup], axis=2)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """``vstack``: the arrays (made at least 2-D) joined along the first axis (deprecated
    in NumPy 2, as here: use ``vstack``)."""
    import warnings

    warnings.warn(
        "`row_stack` alias is deprecated. Use `np.vstack` directly.",
        DeprecationWarning,
        stacklevel=2,
    )
    return vstack(tup, dtype=dtype, casting=casting)


def sort_complex(a):
    """``a`` sorted (real parts first, then imaginary), as complex numbers."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind != "c":
        # NumPy's choice: complex64 for 1- and 2-byte integers, complex128 otherwise
        small = a.dtype.char in "bhBH"
        a = a.astype(cuprum.complex64 if small else cuprum.complex128)
    return _cuprum.sort(a, -1)


def lexsort(keys, axis=-1):
    """The indices that sort by several keys, the last key first (stable)."""
    import cuprum

    if isinstance(keys, cuprum.ndarray) and keys.ndim == 1:
        # NumPy's reading: a 1-D array is that many keys of one element each
        if keys.size == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        return cuprum.zeros((), dtype="int64")
    keys = [_asarray(k) for k in keys] if not isinstance(keys, cuprum.ndarray) else list(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if axis not in (-1, keys[0].ndim - 1) or keys[0].ndim != 1:
        raise NotImplementedError("lexsort: 1-D keys only")
    idx = cuprum.argsort(keys[0], kind="stable")
    for k in keys[1:]:
        idx = idx[cuprum.argsort(k[idx], kind="stable")]
    return idx


def resize(a, new_shape):
    """``a`` with ``new_shape``, its elements repeated in C order to fill it."""
    import cuprum

    a = _asarray(a)
    shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    n = 1
    for d in shape:
        if d < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
        n *= d
    if a.size == 0 or n == 0:
        return cuprum.zeros(shape, dtype=a.dtype)
    flat = a.ravel()
    return flat[cuprum.arange(n) % a.size].reshape(shape)


# ---------------------------------------------------------------------------- more scans and differences


def nancumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum with NaNs counted as zero."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind in "fc":
        a = cuprum.where(cuprum.isnan(a), 0, a).astype(a.dtype, copy=False)
    return _cuprum.cumsum(a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product with NaNs counted as one."""
    import cuprum

    a = _asarray(a)
    if a.dtype.kind in "fc":
        a = cuprum.where(cuprum.isnan(a), 1, a).astype(a.dtype, copy=False)
    return _cuprum.cumprod(a, axis, dtype, out)


def _cumulative(native, identity, x, axis, dtype, out, include_initial):
    import cuprum

    x = _asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be specified for arrays of more than one dimension")
        axis = 0
    if x.ndim == 0:
        x = x.reshape(1)  # NumPy's: a 0-d array as one element
    r = native(x, axis, dtype, None)
    if include_initial:
        shape = list(r.shape)
        shape[axis] = 1
        first = cuprum.full(tuple(shape), identity, dtype=r.dtype)
        r = cuprum.concatenate((first, r), axis=axis)
    return _to_out(r, out)


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumulative sum (with a leading zero on ``include_initial``)."""
    return _cumulative(_cuprum.cumsum, 0, x, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The array API's cumulative product (with a leading one on ``include_initial``)."""
    return _cumulative(_cuprum.cumprod, 1, x, axis, dtype, out, include_initial)


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened array, with optional
    values before and after."""
    import cuprum

    a = _asarray(ary).ravel()
    parts = []
    if to_begin is not None:
        parts.append(_asarray(to_begin).ravel().astype(a.dtype))
    parts.append(a[1:] - a[:-1])
    if to_end is not None:
        parts.append(_asarray(to_end).ravel().astype(a.dtype))
    return cuprum.concatenate(parts) if len(parts) > 1 else parts[0]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (samples at ``x``, or
    ``dx`` apart)."""
    import cuprum

    y = _asarray(y)
    nd = y.ndim
    axis = axis % nd
    lo = [slice(None)] * nd
    hi = [slice(None)] * nd
    lo[axis] = slice(None, -1)
    hi[axis] = slice(1, None)
    if x is None:
        d = dx
    else:
        x = _asarray(x)
        if x.ndim == 1:
            d = cuprum.diff(x)  # NumPy's diff: of bools, where they differ
            shape = [1] * nd
            shape[axis] = d.shape[0]
            d = d.reshape(tuple(shape))
        else:
            d = cuprum.diff(x, axis=axis)
    return cuprum.sum(d * (y[tuple(hi)] + y[tuple(lo)]) / 2.0, axis=axis)


def digitize(x, bins, right=False):
    """The index of the bin each value of ``x`` falls in (``bins`` monotonic)."""
    import cuprum

    x = _asarray(x)
    bins = _asarray(bins)
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    side = "left" if right else "right"
    if _monotonicity(bins) < 0:
        # decreasing bins: search the reversed array
        rev = bins[::-1]
        return bins.size - cuprum.searchsorted(rev, x.ravel(), side=side).reshape(x.shape)
    return cuprum.searchsorted(bins, x.ravel(), side=side).reshape(x.shape)


def _monotonicity(bins):
    """NumPy's test of digitize's bins: 1 increasing (or all equal), -1 decreasing, by the
    first value that differs from the first (NaN differs from everything); bins that are
    neither are NumPy's ``ValueError``."""
    if bins.size < 2:
        return 1
    differs = bins[1:] != bins[0]
    if not bool(differs.any()):
        return 1
    i = int(differs.argmax()) + 1
    up = bool(bins[0] < bins[i])
    rest = bins[i:]
    if rest.size > 1:
        back = rest[:-1] > rest[1:] if up else rest[:-1] < rest[1:]
        if bool(back.any()):
            raise ValueError("bins must be monotonically increasing or decreasing")
    return 1 if up else -1


def _ndim(x):
    """The dimensions of an array (a device array's without converting it) or a scalar."""
    if hasattr(x, "ndim"):
        return x.ndim
    from cuprum._lazy import numpy

    return numpy.ndim(x)


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """The multidimensional histogram of ``sample`` (``(N, D)``, or D arrays of N):
    ``(hist, [edges per dimension])``; ``bins`` a count, counts or edges per dimension."""
    import cuprum
    from cuprum._lazy import numpy

    if isinstance(sample, (list, tuple)):
        sample = cuprum.stack([_asarray(x).ravel() for x in sample], axis=1)
    sample = _asarray(sample)
    if sample.ndim == 1:
        sample = sample.reshape(-1, 1)
    d = sample.shape[1]
    if isinstance(bins, (int, numpy.integer)):
        bins = [int(bins)] * d
    if len(bins) != d:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if range is not None and len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges, counts_per_dim = [], []
    for i, b in enumerate(bins):
        col = sample[:, i]
        if _ndim(b) == 0:
            b = int(b)
            if b < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            lo, hi = _outer_edges(col, None if range is None else range[i])
            # NumPy's edges: linspace of the outer edges as they are (the sample's float
            # dtype, float64 for integers or a given range), computed on the host as NumPy does
            e = cuprum.asarray(numpy.linspace(lo, hi, b + 1))
        else:
            e = _asarray(b)  # given edges keep their dtype
            if e.ndim != 1:
                raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
            if e.size > 1 and bool((e[1:] < e[:-1]).any()):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        edges.append(e)
        counts_per_dim.append(e.size + 1)  # with the two outlier bins
    # each point's bin per dimension (0 and len(edges): outliers), the last edge inclusive
    flat = None
    for i, e in enumerate(edges):
        col = sample[:, i].astype(numpy.float64)
        e = e.astype(numpy.float64)
        k = cuprum.searchsorted(e, col, side="right")
        k = cuprum.where(col == e[-1], e.size - 1, k)
        flat = k if flat is None else flat * counts_per_dim[i] + k
    size = 1
    for c in counts_per_dim:
        size *= c
    if weights is None:
        hist = cuprum.bincount(flat, minlength=size).astype(numpy.float64)
    else:
        w = _asarray(weights).ravel()
        hist = cuprum.bincount(flat, weights=w.astype(numpy.float64), minlength=size)
    hist = hist[:size].reshape(tuple(counts_per_dim))
    hist = hist[tuple(slice(1, -1) for _ in counts_per_dim)]
    if density:
        total = hist.sum()
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = e.size - 1
            hist = hist / (e[1:] - e[:-1]).reshape(tuple(shape))
        hist = hist / total
    return hist, edges


def _outer_edges(col, rng):
    """NumPy's outer edges of one dimension: ``rng``, or the column's minimum and maximum
    (NumPy scalars of its dtype), widened by one half each way where they are equal."""
    from cuprum._lazy import numpy

    if rng is not None:
        lo, hi = rng
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if not (numpy.isfinite(lo) and numpy.isfinite(hi)):
            raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
    elif col.size == 0:
        lo, hi = 0, 1
    else:
        lo, hi = col.min().get()[()], col.max().get()[()]
        if not (numpy.isfinite(lo) and numpy.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """The histogram of the points ``(x, y)``: ``(hist, xedges, yedges)``."""
    x, y = _asarray(x), _asarray(y)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-D arrays of the same length")
    # one count or one array of edges for both axes, or one per axis
    if not (isinstance(bins, (list, tuple)) and len(bins) == 2):
        bins = [bins, bins]
    hist, edges = histogramdd((x, y), bins, range, density, weights)
    return hist, edges[0], edges[1]
