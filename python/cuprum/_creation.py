"""NumPy's creation routines that cuprum composes from its own operations: coordinate
grids (``meshgrid``, ``mgrid``, ``ogrid``), log-spaced ranges (``logspace``), the cases of
``linspace`` (complex values, arrays of start and stop points) and ``arange`` (complex
values) that the engine leaves out, Vandermonde matrices (``vander``) and the window
functions (``bartlett``, ``blackman``, ``hamming``, ``hanning``, ``kaiser``, by NumPy's
formulas, in float64). The values are computed on the device."""

from __future__ import annotations

import math
import operator

import cuprum
from cuprum._lazy import numpy


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D coordinate vectors (NumPy's ``meshgrid``)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    arrays = [cuprum.asarray(x).ravel() for x in xi]
    n = len(arrays)
    shapes = []
    for i, a in enumerate(arrays):
        s = [1] * n
        s[i] = a.size
        shapes.append(s)
    if indexing == "xy" and n > 1:
        for s in shapes:
            s[0], s[1] = s[1], s[0]
    out = [a.reshape(tuple(s)) for a, s in zip(arrays, shapes)]
    if not sparse:
        shape = cuprum.broadcast_shapes(*(o.shape for o in out))
        out = [cuprum.broadcast_to(o, shape) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (NumPy's ``logspace``)."""
    y = cuprum.linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    r = cuprum.power(base, y)
    return r if dtype is None else r.astype(dtype, copy=False)


def _is_complex(x):
    """Whether ``x`` is a complex number or an array of complex values (NumPy's, cuprum's)."""
    if isinstance(x, complex):
        return True
    dtype = getattr(x, "dtype", None)
    return getattr(dtype, "kind", None) == "c"


def _complex_dtype(dtype):
    """Whether ``dtype`` (given) is a complex dtype."""
    return dtype is not None and getattr(_numpy_dtype(dtype), "kind", None) == "c"


def _real_scalar(x):
    """Whether ``x`` is one real number (a Python or NumPy scalar, a 0-d array)."""
    if isinstance(x, complex):
        return False
    if isinstance(x, (int, float)):
        return True
    return getattr(x, "ndim", None) == 0 and not _is_complex(x)


def linspace_composed(start, stop, dtype, num=50, endpoint=True):
    """Whether ``linspace`` of these arguments is composed here (complex values, start
    and stop points that are not single numbers, a negative end point of an unsigned
    dtype, which NumPy computes in floats and casts, or a step that underflows to 0,
    where NumPy scales ``i / div`` instead) rather than the engine's."""
    if not (_real_scalar(start) and _real_scalar(stop)) or _complex_dtype(dtype):
        return True
    unsigned = dtype is not None and getattr(_numpy_dtype(dtype), "kind", None) == "u"
    if unsigned and (float(start) < 0 or float(stop) < 0):
        return True
    delta, div = float(stop) - float(start), (num - 1 if endpoint else num)
    return div > 0 and delta != 0 and delta / div == 0


def _weak(x):
    """``x`` as NumPy's ``result_type`` should see it: Python and NumPy scalars as they are
    (Python's weak), a device array by its dtype, other data as a NumPy array."""
    if isinstance(x, (int, float, complex, numpy.generic)):
        return x
    if isinstance(x, cuprum.ndarray):
        return x.dtype
    return numpy.asarray(x)


def linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """NumPy's ``linspace`` composed: ``start + i * step`` in the common inexact dtype of
    ``start`` and ``stop`` (broadcast together; the points along ``axis``), ``stop`` last
    with ``endpoint``, then cast to ``dtype``; the step is a NumPy scalar (NaN for fewer
    than two points with ``endpoint``) or an array."""
    dt = numpy.result_type(_weak(start), _weak(stop), 0.0)
    start = cuprum.asarray(start, dtype=dt)
    stop = cuprum.asarray(stop, dtype=dt)
    div = num - 1 if endpoint else num
    delta = stop - start
    y = cuprum.arange(num).astype(dt).reshape((-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        if bool((step == 0).any()):  # NumPy's care for denormal steps
            y = y / div * delta
        else:
            y = y * step
        step = step.get()[()] if step.ndim == 0 else step
    else:
        step = math.nan
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    if axis != 0:
        y = cuprum.moveaxis(y, 0, axis)
    if dtype is not None:
        if getattr(_numpy_dtype(dtype), "kind", None) in ("i", "u"):
            if dt.kind == "c":
                raise TypeError(
                    "ufunc 'floor' not supported for the input types, and the inputs could "
                    "not be safely coerced to any supported types according to the casting "
                    "rule ''safe''"
                )
            y = cuprum.floor(y)
        y = y.astype(dtype, copy=False)
    return (y, step) if retstep else y


def arange_composed(start, stop, step, dtype):
    """Whether ``arange`` of these arguments is composed here: complex values (unless a
    real ``dtype`` is asked for: NumPy's ``TypeError`` then) or a complex ``dtype``."""
    if dtype is not None:
        return _complex_dtype(dtype)
    return _is_complex(start) or _is_complex(stop) or _is_complex(step)


def _arange_ceil(value):
    """NumPy's ceiling of an ``arange`` length, with its errors."""
    value = float(value)
    if math.isnan(value):
        raise ValueError("arange: cannot compute length")
    if not -(2.0**63) <= value < 2.0**63:
        raise ValueError("Maximum allowed size exceeded")
    return math.ceil(value)


def _arange_length(start, stop, step):
    """NumPy's length of a complex ``arange``: the ceiling of ``(stop - start) / step``,
    the smaller of its real and imaginary parts' where that is complex."""
    delta = stop - start
    val = delta / step  # Python's ZeroDivisionError for a zero step, as NumPy's
    if delta == 0:
        return 0
    # (NumPy reads a quotient that is not a Python complex, complex64's, by its real part)
    if isinstance(val, complex):
        return min(_arange_ceil(val.real), _arange_ceil(val.imag))
    val = val.real
    if val == 0:  # underflow: one value, or none going the wrong way
        return 0 if math.copysign(1.0, float(val)) < 0 else 1
    return _arange_ceil(val)


def arange(start, stop, step, dtype):
    """NumPy's ``arange`` of a complex dtype (complex128 unless ``dtype`` says): its
    length, its first two values ``start`` and ``start + step`` as NumPy rounds them, and
    ``first + i * (second - first)`` in each of the real and imaginary parts."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    start, stop, step = (
        x.get()[()] if isinstance(x, cuprum.ndarray) else x for x in (start, stop, step)
    )
    dt = numpy.dtype(numpy.complex128 if dtype is None else dtype)
    n = max(_arange_length(start, stop, step), 0)
    head = numpy.array([start, start + step][:n], dtype=dt)
    if n <= 2:
        return cuprum.asarray(head)
    first, d = head[0], head[1] - head[0]
    i = cuprum.arange(n, dtype=first.real.dtype)
    r = cuprum.empty(n, dtype=dt)
    r.real[...] = i * d.real + first.real
    r.imag[...] = i * d.imag + first.imag
    r[:2] = cuprum.asarray(head)
    return r


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x ** (N - 1)`` … ``x ** 0`` (or
    increasing powers)."""
    x = cuprum.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.size if N is None else int(N)
    dtype = numpy.promote_types(x.dtype, numpy.int64)
    powers = cuprum.arange(n, dtype=cuprum.int64)
    if not increasing:
        powers = powers[::-1]
    return cuprum.power(x.astype(dtype)[:, None], powers[None, :].astype(dtype))


def _positions(M):
    """``(M, n)`` with ``n = 1 - M, 3 - M, …, M - 1`` (float64), or ``(M, window)`` for
    the windows of fewer than two points (empty, or one 1)."""
    M = int(M)
    if M < 2:
        return M, cuprum.ones(max(M, 0))
    return M, cuprum.arange(1 - M, M, 2, dtype=cuprum.float64)


def _symmetric(M, coefficients):
    """``Σ c_k cos(k π n / (M - 1))`` over ``n = 1 - M, 3 - M, …, M - 1``."""
    M, n = _positions(M)
    if M < 2:
        return n
    r = cuprum.zeros(M)
    for k, c in enumerate(coefficients):
        r = r + c * cuprum.cos(k * math.pi * n / (M - 1))
    return r


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points."""
    M, n = _positions(M)
    if M < 2:
        return n
    return cuprum.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def blackman(M):
    """The Blackman window of ``M`` points."""
    return _symmetric(M, (0.42, 0.5, 0.08))


def hamming(M):
    """The Hamming window of ``M`` points."""
    return _symmetric(M, (0.54, 0.46))


def hanning(M):
    """The Hann window of ``M`` points."""
    return _symmetric(M, (0.5, 0.5))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points and shape ``beta``."""
    M = int(M)
    if M == 1:
        return cuprum.ones(1)
    if M < 1:
        return cuprum.zeros(0)
    n = cuprum.arange(0, M, dtype=cuprum.float64)
    alpha = (M - 1) / 2.0
    return cuprum.i0(beta * cuprum.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / cuprum.i0(
        cuprum.asarray(float(beta))
    )


class _Grid:
    """``mgrid`` and ``ogrid``: ``grid[a:b:s, …]`` gives the coordinates of a grid, a step
    ``Nj`` (an imaginary number) meaning ``N`` points from ``a`` to ``b`` inclusive."""

    def __init__(self, sparse):
        self._sparse = sparse

    @staticmethod
    def _start_step(s):
        """A slice's start and step (``0`` and ``1`` when left out)."""
        if not isinstance(s, slice):
            raise TypeError("mgrid and ogrid take slices (start:stop:step)")
        return (0 if s.start is None else s.start), (1 if s.step is None else s.step)

    @staticmethod
    def _one(s):
        # NumPy's for one slice: arange, or `num` points as arange(num) * step + start
        # (start and stop may be arrays: the result is their broadcast with the points)
        start, step = _Grid._start_step(s)
        if isinstance(step, (complex, numpy.complexfloating)):
            step_float = abs(step)
            step = length = int(step_float)
            if step != 1:
                step = (s.stop - start) / float(step - 1)
            typ = cuprum.result_type(start, s.stop, step_float)
            return cuprum.arange(0, length, 1, dtype=typ) * step + start
        return cuprum.arange(start, s.stop, s.step)

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            return self._one(key)
        size = []
        num_list = [0]  # NumPy's: a dtype at least as large as int64
        for s in key:
            start, step = self._start_step(s)
            if isinstance(step, (complex, numpy.complexfloating)):
                size.append(int(abs(step)))
                step = abs(step)
            else:
                size.append(math.ceil((s.stop - start) / step))
            num_list += [start, s.stop, step]
        typ = cuprum.result_type(*num_list)
        if self._sparse:
            nn = [cuprum.arange(n, dtype=typ) for n in size]
        else:
            nn = cuprum.indices(size, typ)
        for k, s in enumerate(key):
            start, step = self._start_step(s)
            if isinstance(step, (complex, numpy.complexfloating)):
                step = int(abs(step))
                if step != 1:
                    step = (s.stop - start) / float(step - 1)
            nn[k] = nn[k] * step + start
        if self._sparse:
            slobj = [None] * len(size)
            for k in range(len(size)):
                slobj[k] = slice(None)
                nn[k] = nn[k][tuple(slobj)]
                slobj[k] = None
            return tuple(nn)
        return nn


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


# ---------------------------------------------------------------------------- array()

_NO_COPY = (
    "Unable to avoid copy while creating an array as requested "
    "(copy=False; copy=None copies only where needed)."
)


def order_arg(order):
    """NumPy's memory order argument, upper case (``None`` is ``'K'``)."""
    o = "K" if order is None else str(order).upper()
    if o not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return o


def f_contiguous(a):
    """Whether ``a``'s elements lie in Fortran order without gaps."""
    step = a.itemsize
    for n, s in zip(a.shape, a.strides):
        if n == 0:
            return True
        if n != 1 and s != step:
            return False
        step *= n
    return True


def _fits(a, order):
    """Whether ``a``'s layout already satisfies ``order`` (no copy needed)."""
    if order == "C":
        return a.is_c_contiguous
    if order == "F":
        return f_contiguous(a)
    if order == "A":
        return a.is_c_contiguous or f_contiguous(a)
    return True


def _axes_for(a, order):
    """The permutation that puts ``a``'s axes in the order a copy lays out C-contiguously:
    C as they are, F reversed, A by ``a``'s contiguity, K by decreasing strides (NumPy's)."""
    if order == "A":
        order = "F" if f_contiguous(a) and not a.is_c_contiguous else "C"
    if order == "C" or a.ndim < 2:
        return list(range(a.ndim))
    if order == "F":
        return list(range(a.ndim))[::-1]
    # K: contiguous layouts stay as they are (an axis of one element has no say in them)
    if a.is_c_contiguous:
        return list(range(a.ndim))
    if f_contiguous(a):
        return list(range(a.ndim))[::-1]
    return sorted(range(a.ndim), key=lambda i: -abs(a.strides[i]))


def like(a, dtype, order, subok, shape, make):
    """NumPy's ``*_like``: ``make(shape, dtype)`` (a new C-contiguous array) laid out in
    ``order`` of ``a``: ``'K'`` keeps ``a``'s stride order, ``'A'`` is ``'F'`` for a
    Fortran-contiguous ``a``; a ``shape`` of another rank than ``a``'s is laid out in C
    order under ``'K'``."""
    if subok is not None:
        raise TypeError("subok is not supported yet")
    o = order_arg(order)
    if not isinstance(a, cuprum.ndarray):
        a = cuprum.asarray(a)
    dtype = a.dtype if dtype is None else dtype
    if shape is None:
        shape = a.shape
    elif isinstance(shape, (list, tuple)):
        shape = tuple(operator.index(n) for n in shape)
    else:
        shape = (operator.index(shape),)
    if len(shape) == a.ndim:
        perm = _axes_for(a, o)
    elif o == "F" or (o == "A" and f_contiguous(a) and not a.is_c_contiguous):
        perm = list(range(len(shape)))[::-1]
    else:
        perm = list(range(len(shape)))
    if perm == sorted(perm):
        return make(shape, dtype)
    out = make(tuple(shape[p] for p in perm), dtype)
    return out.transpose(*[perm.index(i) for i in range(len(shape))])


def copy_in_order(a, order, dtype=None):
    """A new array with ``a``'s values (cast to ``dtype`` when given) laid out in ``order``
    (``'C'``, ``'F'``, ``'A'`` or ``'K'``), in one pass: the copy is made C-contiguous in
    the permuted axes, then permuted back."""
    perm = _axes_for(a, order_arg(order))
    v = a.transpose(*perm) if perm != list(range(a.ndim)) else a
    # both C: the layout is the permutation's
    out = v.astype(dtype, order="C") if dtype is not None and dtype != a.dtype else v.copy("C")
    if perm == list(range(a.ndim)):
        return out
    return out.transpose(*[perm.index(i) for i in range(a.ndim)])


def _holds_device_array(obj):
    return any(
        isinstance(x, cuprum.ndarray) or (isinstance(x, (list, tuple)) and _holds_device_array(x))
        for x in obj
    )


def _from_nested(obj):
    """Nested sequences that hold device arrays, stacked on the device (CuPy's
    ``array([a, b])``); the other items are uploaded."""
    if isinstance(obj, cuprum.ndarray):
        return obj
    if isinstance(obj, (list, tuple)):
        if not obj:
            return cuprum.asarray(numpy.asarray(obj))
        parts = [_from_nested(x) for x in obj]
        if len({p.shape for p in parts}) > 1:
            raise ValueError(
                "setting an array element with a sequence. The requested array has an "
                "inhomogeneous shape"
            )
        return cuprum.stack(parts)
    return cuprum.asarray(obj)


def _numpy_dtype(dtype):
    """``dtype`` as NumPy's, or ``None`` where NumPy does not know it."""
    if dtype is None:
        return None
    try:
        return numpy.dtype(dtype)
    except TypeError:
        return None


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    """A device array from ``obj`` (NumPy's and CuPy's ``array``): a copy unless
    ``copy=None`` and nothing has to change (``copy=False`` then raises ``ValueError``
    where a copy is needed); laid out in ``order`` (``'K'``: as ``obj``); ``ndmin``
    prepends axes of extent 1. Lists of device arrays are stacked on the device."""
    order = order_arg(order)
    if isinstance(obj, (list, tuple)) and _holds_device_array(obj):
        a = _from_nested(obj)
        fresh = True
    elif isinstance(obj, cuprum.ndarray):
        a, fresh = obj, False
    elif isinstance(obj, (numpy.ndarray, list, tuple)):
        a, fresh = _upload(obj, dtype, order), True
        dtype = None
    else:
        a = cuprum._cuprum.asarray(obj, dtype, copy is not False and copy is not None)
        fresh, dtype = True, None
    want = _numpy_dtype(dtype)
    if dtype is not None and want is None:  # a dtype only cuprum names (bfloat16)
        a, fresh, want = a.astype(dtype), True, None
    cast = want is not None and want != a.dtype
    if not fresh:
        if copy is False and (cast or not _fits(a, order)):
            raise ValueError(_NO_COPY)
        if copy or cast or not _fits(a, order):
            a = copy_in_order(a, order, want)
    elif cast or not _fits(a, order):
        a = copy_in_order(a, order, want)
    if ndmin > a.ndim:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def _upload(obj, dtype, order):
    """Host data uploaded: NumPy's conversion first (native byte order), in ``order``'s
    layout (F for ``'F'``, and for ``'A'``/``'K'`` where the NumPy array is in F order)."""
    h = numpy.asarray(obj, dtype=_numpy_dtype(dtype))
    if not h.dtype.isnative:
        h = h.astype(h.dtype.newbyteorder("="))
    fortran = h.ndim > 1 and (
        order == "F" or (order in ("A", "K") and h.flags.f_contiguous and not h.flags.c_contiguous)
    )
    d = None if _numpy_dtype(dtype) is not None else dtype
    if fortran:
        return cuprum._cuprum.asarray(numpy.ascontiguousarray(h.T), d).T
    return cuprum._cuprum.asarray(h, d)
