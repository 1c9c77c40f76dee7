"""NumPy's covariance and correlation matrices (``cov``, ``corrcoef``), composed from
cuprum's operations on the device: the weighted means, one matrix product of the centred
data with its conjugate transpose, NumPy's degrees of freedom and its checks of the
weights."""

from __future__ import annotations

import warnings

import cuprum
from cuprum._lazy import numpy


def _rows(a, rowvar, dtype):
    """``a`` as a 2-D array of variables by rows, in ``dtype``."""
    x = cuprum.array(a, dtype=dtype, ndmin=2)
    return x.T if not rowvar and x.shape[0] != 1 else x


def _weights(w, n, name):
    """NumPy's checks of ``fweights``/``aweights``: 1-D, ``n`` of them, not negative."""
    w = cuprum.asarray(w).astype(numpy.float64)
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if bool((w < 0).any()):
        raise ValueError(f"{name} cannot be negative")
    return w


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in ``m`` (and ``y``), NumPy's ``cov``."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = cuprum.asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = cuprum.asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        parts = (m.dtype,) if y is None else (m.dtype, y.dtype)
        dtype = numpy.result_type(*parts, numpy.float64)
    x = cuprum.array(m, dtype=dtype, ndmin=2)
    if not rowvar and m.ndim != 1:
        x = x.T
    if x.shape[0] == 0:
        return cuprum.zeros((0, 0), dtype=numpy.float64)
    if y is not None:
        x = cuprum.concatenate((x, _rows(y, rowvar, dtype)), axis=0)
    if ddof is None:
        ddof = 1 if not bias else 0
    n = x.shape[1]
    w = None
    if fweights is not None:
        f = cuprum.asarray(fweights).astype(numpy.float64)
        if not bool((f == cuprum.around(f)).all()):
            raise TypeError("fweights must be integer")
        w = _weights(f, n, "fweights")
    a = None if aweights is None else _weights(aweights, n, "aweights")
    if a is not None:
        w = a if w is None else w * a
    if w is None:
        avg = x.mean(axis=1)
        fact = n - ddof
    else:
        w_sum = float(w.sum())
        avg = (x * w).sum(axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif a is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * float((w * a).sum()) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    if not numpy.can_cast(avg.dtype, x.dtype, casting="same_kind"):
        # NumPy subtracts the means in place: no integer or bool ``dtype``
        raise TypeError(
            f"Cannot cast ufunc 'subtract' output from {avg.dtype!r} to {x.dtype!r} with "
            "casting rule 'same_kind'"
        )
    x = x - avg[:, None]
    xt = x.T if w is None else (x * w).T
    c = cuprum.dot(x, xt.conj())
    with numpy.errstate(divide="ignore"):
        scale = numpy.true_divide(1, fact)
    return (c * scale).astype(c.dtype).squeeze()


def corrcoef(x, y=None, rowvar=True, bias=None, ddof=None, *, dtype=None):
    """The Pearson correlation coefficients of the variables in ``x`` (and ``y``), NumPy's
    ``corrcoef`` (clipped to ``[-1, 1]``). ``bias`` and ``ddof`` change nothing (NumPy
    deprecated them): giving either warns."""
    if bias is not None or ddof is not None:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning, 2)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = cuprum.diagonal(c)
    stddev = cuprum.sqrt(d.real)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    if c.dtype.kind == "c":
        return cuprum.clip(c.real, -1, 1) + 1j * cuprum.clip(c.imag, -1, 1)
    return cuprum.clip(c, -1, 1)
