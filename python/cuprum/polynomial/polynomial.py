"""NumPy's ``polynomial.polynomial`` routines on device arrays: ``polyvander``,
``polycompanion``."""

from __future__ import annotations

import cuprum
from cuprum.polynomial import polyutils as pu


def polyvander(x, deg):
    """The Vandermonde matrix of ``x`` up to degree ``deg``: ``x**0 ... x**deg`` along a
    new last axis, each power the previous one times ``x`` (NumPy's ``polyvander``; in
    ``x``'s floating type)."""
    ideg = pu._as_int(deg, "deg")
    if ideg < 0:
        raise ValueError("deg must be non-negative")
    x = cuprum.atleast_1d(cuprum.asarray(x)) + 0.0
    v = cuprum.empty((ideg + 1,) + x.shape, dtype=x.dtype)
    v[0] = x * 0 + 1
    if ideg > 0:
        v[1] = x
        for i in range(2, ideg + 1):
            v[i] = v[i - 1] * x
    return cuprum.moveaxis(v, 0, -1)


def polycompanion(c):
    """The companion matrix of the power series ``c`` (NumPy's ``polycompanion``): ones
    below the diagonal, ``-c[:-1] / c[-1]`` in the last column."""
    [c] = pu.as_series([c])
    if len(c) < 2:
        raise ValueError("Series must have maximum degree of at least 1.")
    if len(c) == 2:
        return (-c[0] / c[1]).reshape(1, 1)
    n = len(c) - 1
    mat = cuprum.eye(n, k=-1, dtype=c.dtype)
    mat[:, -1] -= c[:-1] / c[-1]
    return mat
