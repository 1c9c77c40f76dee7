"""``cuprum.linalg``'s general (non-Hermitian) eigenproblems: ``eig`` and ``eigvals``.

A general eigensolver is a long sequential iteration (Hessenberg reduction, then shifted
QR sweeps that deflate one eigenvalue at a time) with little parallel work per step for
the matrices it is used on; cuprum runs it on the CPU, through NumPy's LAPACK
(``geev``): the stack is copied to the host, solved there and the results copied back
(a wait for the device, like any read of its data). Results follow CuPy's ``eig``:
complex (``complex64`` for single precision; an empty stack keeps the real dtype),
eigenvectors in columns, normalised by LAPACK (unit norm, largest component real), so
they are NumPy's to the last bit.
"""

from __future__ import annotations

import cuprum
from cuprum._lazy import numpy
from cuprum._linalg_solve import square_stack


def _geev(a, vectors):
    a, dt, out_dt, _ = square_stack(a)
    cdt = numpy.dtype(dt.char.upper())
    if a.size == 0:  # CuPy's: the input's result dtype, real for real input
        w = cuprum.empty(a.shape[:-1], dtype=out_dt)
        return (w, cuprum.empty(a.shape, dtype=out_dt)) if vectors else w
    h = a.astype(dt, copy=False).get()
    if not vectors:
        return cuprum.asarray(numpy.linalg.eigvals(h).astype(cdt, copy=False))
    w, v = numpy.linalg.eig(h)
    return cuprum.asarray(w.astype(cdt, copy=False)), cuprum.asarray(v.astype(cdt, copy=False))


def eig(a):
    """The eigenvalues and right eigenvectors (columns) of the square matrix or stack
    ``a``, complex (CuPy's ``eig``), computed by LAPACK on the host."""
    return _geev(a, True)


def eigvals(a):
    """The eigenvalues of the square matrix or stack ``a``, complex (CuPy's
    ``eigvals``), computed by LAPACK on the host."""
    return _geev(a, False)
