"""NumPy's creation routines that cuprum composes from its own operations: coordinate
grids (``meshgrid``, ``mgrid``, ``ogrid``), log-spaced ranges (``logspace``), Vandermonde
matrices (``vander``) and the window functions (``bartlett``, ``blackman``, ``hamming``,
``hanning``, ``kaiser``, by NumPy's formulas, in float64). The values are computed on the
device."""

from __future__ import annotations

import math

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
    def _axis(s):
        if not isinstance(s, slice):
            raise TypeError("mgrid and ogrid take slices (start:stop:step)")
        start = 0 if s.start is None else s.start
        step = 1 if s.step is None else s.step
        if isinstance(step, complex):
            return cuprum.linspace(start, s.stop, int(abs(step)))
        return cuprum.arange(start, s.stop, step)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._axis(key)
        axes = [self._axis(s) for s in key]
        if self._sparse:
            return meshgrid(*axes, indexing="ij", sparse=True, copy=False)
        return cuprum.stack(meshgrid(*axes, indexing="ij"))


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
