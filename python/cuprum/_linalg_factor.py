"""``cuprum.linalg``'s factorizations: ``cholesky`` and ``qr``, over stacks of matrices
at once, composed from cuprum's array operations (one step per column, each a few
broadcast operations over the whole stack).

``qr`` is LAPACK's Householder QR (``geqrf``): column ``j``'s reflector
``H = I - tau v v^H`` has ``v[0] = 1``, ``beta = -sign(Re alpha) * |x|`` on the diagonal
and ``tau = (beta - alpha) / beta``, so ``R``'s signs, ``mode='raw'``'s ``(h, tau)`` and
``Q`` (``H_1 H_2 ... H_k`` applied to the identity, LAPACK's ``orgqr``) are NumPy's.
``cholesky`` is the right-looking outer-product form and reads the lower triangle only,
as LAPACK's ``potrf`` does. As CuPy by default, a matrix that is not positive definite
is not checked for (that would wait for the device): its factor has NaNs; under
``cuprum.errstate(linalg='raise')`` it is NumPy's ``LinAlgError``.
"""

from __future__ import annotations

import cuprum
from cuprum._errstate import linalg_raises
from cuprum._lazy import numpy
from cuprum._linalg_solve import _assert_stacked_2d, common_type, square_stack


def cholesky(a):
    """The lower-triangular ``L`` with ``L @ L.conj().T == a`` for the Hermitian
    positive-definite matrix (or stack of them) ``a``."""
    a, dt, out_dt, _ = square_stack(a)
    if a.size == 0:
        return cuprum.empty(a.shape, dtype=out_dt)
    n = a.shape[-1]
    x = a.astype(dt, copy=True).reshape(-1, n, n)
    complex_ = numpy.dtype(dt).kind == "c"
    for j in range(n):
        d = cuprum.sqrt(x[:, j, j].real)
        col = x[:, j:, j] / d[:, None]
        x[:, j:, j] = col
        if j + 1 < n:
            below = col[:, 1:]
            h = cuprum.conj(below) if complex_ else below
            x[:, j + 1 :, j + 1 :] -= below[:, :, None] * h[:, None, :]
    if linalg_raises():
        d = cuprum.diagonal(x, axis1=1, axis2=2).real
        if not bool(cuprum.all(d > 0)):
            raise numpy.linalg.LinAlgError("Matrix is not positive definite")
    return cuprum.tril(x).reshape(a.shape).astype(out_dt, copy=False)


def _householder(r):
    """LAPACK's ``geqrf`` of the stack ``r`` (``(B, m, n)``, a copy in the compute
    dtype, overwritten with ``R`` above the diagonal and the reflectors below it).
    Returns ``tau`` (``(B, k)``)."""
    nb, m, n = r.shape
    k = min(m, n)
    complex_ = numpy.dtype(r.dtype).kind == "c"
    tau = cuprum.zeros((nb, k), dtype=r.dtype)
    for j in range(k):
        x = r[:, j:, j]
        alpha = x[:, 0].copy()
        tail = x[:, 1:]
        xnorm2 = cuprum.sum((tail * cuprum.conj(tail)).real if complex_ else tail * tail, axis=1)
        anorm = cuprum.sqrt(
            alpha.real * alpha.real + (alpha.imag * alpha.imag if complex_ else 0) + xnorm2
        )
        beta = cuprum.where(alpha.real >= 0, -anorm, anorm)
        trivial = xnorm2 == 0
        if complex_:
            trivial &= alpha.imag == 0
        beta = cuprum.where(trivial, alpha.real, beta)
        safe = cuprum.where(trivial, 1, beta)
        t = cuprum.where(trivial, 0, (beta - alpha) / safe)
        scale = cuprum.where(trivial, 0, 1 / cuprum.where(trivial, 1, alpha - beta))
        v = x * scale[:, None]
        v[:, 0] = 1
        tau[:, j] = t
        if j + 1 < n:
            sub = r[:, j:, j + 1 :]
            vh = cuprum.conj(v) if complex_ else v
            w = cuprum.sum(vh[:, :, None] * sub, axis=1)
            tc = cuprum.conj(t) if complex_ else t
            sub -= (tc[:, None] * v)[:, :, None] * w[:, None, :]
        r[:, j, j] = beta
        r[:, j + 1 :, j] = v[:, 1:]
    return tau


def _form_q(h, tau, cols):
    """LAPACK's ``orgqr``: the first ``cols`` columns of ``H_1 ... H_k`` from the
    reflectors below ``h``'s diagonal."""
    nb, m, _ = h.shape
    k = tau.shape[1]
    complex_ = numpy.dtype(h.dtype).kind == "c"
    q = cuprum.zeros((nb, m, cols), dtype=h.dtype)
    q[:, :, :] = cuprum.eye(m, cols, dtype=h.dtype)
    for j in reversed(range(k)):
        v = h[:, j:, j].copy()
        v[:, 0] = 1
        sub = q[:, j:, :]
        vh = cuprum.conj(v) if complex_ else v
        w = cuprum.sum(vh[:, :, None] * sub, axis=1)
        sub -= (tau[:, j][:, None] * v)[:, :, None] * w[:, None, :]
    return q


def qr(a, mode="reduced"):
    """The QR factorization of the matrix (or stack of them) ``a`` (``(..., M, N)``):
    ``mode='reduced'`` gives ``(Q, R)`` with ``K = min(M, N)`` columns of ``Q``,
    ``'complete'`` all ``M``, ``'r'`` ``R`` alone, ``'raw'`` LAPACK's ``(h, tau)`` (``h``
    of shape ``(..., N, M)``)."""
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full", "e", "economic"):
            raise ValueError(f"The deprecated mode '{mode}' is not supported")
        raise ValueError(f"Unrecognized mode '{mode}'")
    a = cuprum.asarray(a)
    _assert_stacked_2d(a)
    dt, out_dt = common_type(a)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if k == 0 or a.size == 0:
        return _empty_qr(batch, m, n, k, mode, out_dt)
    r = a.astype(dt, copy=True).reshape(-1, m, n)
    tau = _householder(r)
    if mode == "raw":
        h = r.swapaxes(-1, -2).reshape(batch + (n, m))
        return h.astype(out_dt, copy=False), tau.reshape(batch + (k,)).astype(out_dt, copy=False)
    cols = m if mode == "complete" else k
    rr = cuprum.triu(r[:, :cols, :]).reshape(batch + (cols, n)).astype(out_dt, copy=False)
    if mode == "r":
        return rr
    q = _form_q(r, tau, cols).reshape(batch + (m, cols)).astype(out_dt, copy=False)
    return q, rr


def _empty_qr(batch, m, n, k, mode, dt):
    if mode == "reduced":
        return cuprum.empty(batch + (m, k), dtype=dt), cuprum.empty(batch + (k, n), dtype=dt)
    if mode == "complete":
        q = cuprum.zeros(batch + (m, m), dtype=dt)
        q[...] = cuprum.eye(m, dtype=dt)
        return q, cuprum.empty(batch + (m, n), dtype=dt)
    if mode == "r":
        return cuprum.empty(batch + (k, n), dtype=dt)
    return cuprum.empty(batch + (n, m), dtype=dt), cuprum.empty(batch + (k,), dtype=dt)
