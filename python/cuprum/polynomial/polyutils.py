"""NumPy's ``polynomial.polyutils`` helpers on device arrays: ``as_series``,
``trimseq``, ``trimcoef``."""

from __future__ import annotations

import operator

import cuprum


def _as_int(x, desc):
    """``x`` as an int (NumPy's: a float, even an integral one, is refused)."""
    try:
        return operator.index(x)
    except TypeError as e:
        raise TypeError(f"{desc} must be an integer, received {x}") from e


def trimseq(seq):
    """``seq`` without its trailing zeros (one element kept): a view (NumPy's
    ``trimseq``)."""
    if len(seq) == 0:
        return seq
    if getattr(seq, "ndim", 1) == 1 and isinstance(seq, cuprum.ndarray):
        nz = cuprum.flatnonzero(seq)
        last = int(nz[-1]) + 1 if nz.size else 1  # one number read back
        return seq[:last]
    if seq[-1] != 0:
        return seq
    for i in range(len(seq) - 1, -1, -1):
        if seq[i] != 0:
            break
    return seq[: i + 1]


def as_series(alist, trim=True):
    """The arrays of ``alist`` as 1-D coefficient arrays of one common type (trailing
    zeros trimmed with ``trim``), copies (NumPy's ``as_series``)."""
    arrays = [cuprum.atleast_1d(cuprum.asarray(a)) for a in alist]
    for a in arrays:
        if a.size == 0:
            raise ValueError("Coefficient array is empty")
    if any(a.ndim != 1 for a in arrays):
        raise ValueError("Coefficient array is not 1-d")
    if trim:
        arrays = [trimseq(a) for a in arrays]
    try:
        dtype = cuprum.common_type(*arrays)
    except Exception as e:
        raise ValueError("Coefficient arrays have no common type") from e
    return [a.astype(dtype, copy=True) for a in arrays]


def trimcoef(c, tol=0):
    """The coefficients ``c`` without the trailing ones of magnitude at most ``tol``
    (a zero when none is left), NumPy's ``trimcoef``."""
    if tol < 0:
        raise ValueError("tol must be non-negative")
    [c] = as_series([c])
    ind = cuprum.flatnonzero(abs(c) > tol)
    if ind.size == 0:
        return c[:1] * 0
    return c[: int(ind[-1]) + 1].copy()
