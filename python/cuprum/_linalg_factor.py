"""``cuprum.linalg``'s factorizations: ``cholesky`` and ``qr``, over stacks of matrices
at once.

``qr`` is LAPACK's Householder QR (``geqrf``): column ``j``'s reflector
``H = I - tau v v^H`` has ``v[0] = 1``, ``beta = -sign(Re alpha) * |x|`` on the diagonal
and ``tau = (beta - alpha) / beta``, so ``R``'s signs, ``mode='raw'``'s ``(h, tau)`` and
``Q`` (``H_1 H_2 ... H_k`` applied to the identity, LAPACK's ``orgqr``) are NumPy's.
``cholesky`` is the right-looking outer-product form and reads the lower triangle only,
as LAPACK's ``potrf`` does.

Real matrices of up to 2^20 elements run each factorization in one launch, a block per
matrix (``_CHOLESKY_SOURCE``, ``_HOUSEHOLDER_SOURCE``), with the composed loop's
arithmetic per element, where that pays (``one_block_pays``); complex and larger ones
compose each column's step from cuprum's array operations (a few broadcast operations over
the whole stack). Launches, not arithmetic, bound the small matrices these serve: QR of
256x64 composed was 64 steps of a dozen launches (14.4 ms on an H100, 0.6 ms in one
launch), and ``svd``'s basis completion is a QR too. As CuPy by default, a matrix that is
not positive definite is not checked for (that would wait for the device): its factor has
NaNs; under ``cuprum.errstate(linalg='raise')`` it is NumPy's ``LinAlgError``.
"""

from __future__ import annotations

import functools

import cuprum
from cuprum._errstate import linalg_raises
from cuprum._lazy import numpy
from cuprum._linalg_solve import (
    _assert_stacked_2d,
    block_threads,
    common_type,
    kernel_source,
    launch_one_block,
    one_block_pays,
    square_stack,
)

_THREADS = 1024
# One SM's element updates a second in each kernel and the composed loops' time a step
# (an H100: python/benches/linalg_paths.py)
_CHOLESKY_RATE, _CHOLESKY_STEP_S = 4e9, 65e-6
_QR_RATE, _QR_STEP_S = 10e9, 85e-6
_MAX_ELEMENTS = 1 << 20

# Column j: its pivot's root divides the column (diagonal included, as the composed loop
# divides x[j:, j]); then a warp a row updates the trailing lower triangle (the upper one
# is never read, and tril() drops it).
_CHOLESKY_SOURCE = r"""
extern "C" __global__ void cuprum_cholesky(T* mats, int n, int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    T* g = mats + (long long)blockIdx.x * n * n;
    T* x = stage(g, staged ? reinterpret_cast<T*>(dyn) : nullptr, (long long)n * n);
    __shared__ T col[1024];
    const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31;
    const int warp = tid >> 5, warps = nt >> 5;
    for (int j = 0; j < n; ++j) {
        const T d = sqrt(x[(long long)j * n + j]);
        __syncthreads();
        for (int i = j + tid; i < n; i += nt) {
            const T v = x[(long long)i * n + j] / d;
            x[(long long)i * n + j] = v;
            col[i] = v;
        }
        __syncthreads();
        for (int i = j + 1 + warp; i < n; i += warps) {
            const T ci = col[i];
            T* row = x + (long long)i * n;
            for (int c = j + 1 + lane; c <= i; c += 32) row[c] -= ci * col[c];
        }
        __syncthreads();
    }
    unstage(g, x, (long long)n * n);
}
"""

# LAPACK's geqrf and orgqr, a block per matrix of a column-major stack (a warp walks a
# column's rows, coalesced; the callers pass transposed copies). Step j:
# the column's tail norm by a block-wide sum, beta and tau, the tail scaled into v in place
# (v[j] = 1 is implied, and beta takes its slot), then a warp a column forms w = v . a[:, c]
# and subtracts (tau v) w from it. orgqr applies the reflectors in reverse to the identity,
# from column j on (the columns before it are still the identity's there).
_HOUSEHOLDER_SOURCE = r"""
// w = v . col (v[j] = 1, v[i > j] in h's column j; col's rows `rs` apart), then
// col -= (t v) w: one warp.
__device__ __forceinline__ void reflect(const T* h, T* col, int j, int m, T t, long long rs) {
    const int lane = threadIdx.x & 31;
    T w = 0;
    for (int i = j + lane; i < m; i += 32) w += (i == j ? T(1) : h[i]) * col[i * rs];
    w = warp_sum(w);
    for (int i = j + lane; i < m; i += 32) col[i * rs] -= (t * (i == j ? T(1) : h[i])) * w;
}

// geqrf of one block's column-major a (m x n) in place; tau in global memory.
__device__ void geqrf_steps(T* a, T* tau, int m, int n, T* red) {
    const int k = m < n ? m : n;
    const int tid = threadIdx.x, nt = blockDim.x, warp = tid >> 5, warps = nt >> 5;
    for (int j = 0; j < k; ++j) {
        T* x = a + (long long)j * m;
        T s = 0;
        for (int i = j + 1 + tid; i < m; i += nt) s += x[i] * x[i];
        const T xnorm2 = block_sum(s, red);
        const T alpha = x[j];
        const T anorm = sqrt(alpha * alpha + xnorm2);
        const bool trivial = xnorm2 == 0;
        const T beta = trivial ? alpha : (alpha >= 0 ? -anorm : anorm);
        const T t = trivial ? T(0) : (beta - alpha) / beta;
        const T scale = trivial ? T(0) : 1 / (alpha - beta);
        __syncthreads();
        for (int i = j + 1 + tid; i < m; i += nt) x[i] *= scale;
        if (tid == 0) { tau[j] = t; x[j] = beta; }
        __syncthreads();
        for (int c = j + 1 + warp; c < n; c += warps) reflect(x, a + (long long)c * m, j, m, t, 1);
        __syncthreads();
    }
}

// orgqr: q (element (i, c) at q[c * cs + i * rs], m x cols) set to the first `cols`
// columns of H_1 ... H_k from the reflectors below h's diagonal (column-major m x n).
__device__ void orgqr_steps(const T* h, const T* tau, T* q, int m, int n, int cols,
                            long long cs, long long rs) {
    const int k = m < n ? m : n;
    const int tid = threadIdx.x, nt = blockDim.x, warp = tid >> 5, warps = nt >> 5;
    for (long long e = tid; e < (long long)m * cols; e += nt) {
        const long long c = e / m, i = e % m;
        q[c * cs + i * rs] = i == c ? T(1) : T(0);
    }
    __syncthreads();
    for (int j = k - 1; j >= 0; --j) {
        const T t = tau[j];
        const T* v = h + (long long)j * m;
        for (int c = j + warp; c < cols; c += warps) reflect(v, q + c * cs, j, m, t, rs);
        __syncthreads();
    }
}

extern "C" __global__ void cuprum_geqrf(T* mats, T* taus, int m, int n, int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ T red[32];
    T* g = mats + (long long)blockIdx.x * m * n;
    T* a = stage(g, staged ? reinterpret_cast<T*>(dyn) : nullptr, (long long)m * n);
    geqrf_steps(a, taus + (long long)blockIdx.x * (m < n ? m : n), m, n, red);
    unstage(g, a, (long long)m * n);
}

extern "C" __global__ void cuprum_orgqr(T* hs, const T* taus, T* qs, int m, int n, int cols,
                                        int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    const long long mq = (long long)m * cols;
    T* qg = qs + (long long)blockIdx.x * mq;
    T* q = staged ? reinterpret_cast<T*>(dyn) : qg;
    const T* h = stage(hs + (long long)blockIdx.x * m * n, staged ? q + mq : nullptr, (long long)m * n);
    orgqr_steps(h, taus + (long long)blockIdx.x * (m < n ? m : n), q, m, n, cols, m, 1);
    unstage(qg, q, mq);
}

// svd's basis: the orthonormal columns u (column-major m x n, n <= m, zero columns where
// singular values are 0) by geqrf and orgqr into Q's first `cols` columns (row-major
// m x cols), each of the first n multiplied by the phase of R's diagonal entry (+-1 for a
// column of u, so Q keeps it; a zero column's entry is ~0 and Q's column completes the
// basis).
extern "C" __global__ void cuprum_qr_complete(T* us, T* taus, T* qs, int m, int n, int cols,
                                              int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ T red[32];
    const long long mn = (long long)m * n, mq = (long long)m * cols;
    T* s = staged ? reinterpret_cast<T*>(dyn) : nullptr;
    T* a = stage(us + blockIdx.x * mn, s, mn);
    T* qg = qs + blockIdx.x * mq;
    T* tau = taus + (long long)blockIdx.x * n;
    geqrf_steps(a, tau, m, n, red);
    T* q = s ? s + mn : qg;
    const long long cs = s ? m : 1, rs = s ? 1 : cols;
    orgqr_steps(a, tau, q, m, n, cols, cs, rs);
    for (long long e = threadIdx.x; e < mq; e += blockDim.x) {
        const int c = (int)(e / m), i = (int)(e % m);
        T unit = T(1);
        if (c < n) {
            const T d = a[(long long)c * m + c], ad = d < 0 ? -d : d;
            unit = ad > T(0.5) ? d / ad : T(1);
        }
        qg[(long long)i * cols + c] = q[c * cs + i * rs] * unit;
    }
}
"""


@functools.cache
def _kernel(source, name, dt):
    """One of this module's one-launch kernels for real ``dt`` (float32 or float64)."""
    return cuprum.RawKernel(kernel_source(dt, source), name)


def _one_launch(x, updates, rate, steps, step_s):
    """Whether the stack ``x`` (``(B, m, n)``) takes a one-launch kernel of ``updates``
    element updates a matrix at ``rate`` a second, against a composed loop of ``steps``
    steps of ``step_s`` seconds."""
    nb, m, n = x.shape
    if numpy.dtype(x.dtype).kind != "f" or m * n > _MAX_ELEMENTS:
        return False
    return one_block_pays(nb, updates, rate, steps, step_s)


def _qr_updates(m, n, cols):
    """Element updates of geqrf (``cols == 0``) or orgqr of an ``m`` x ``n`` matrix:
    a dot product and an update per element of each step's trailing block."""
    k = min(m, n)
    w = n if cols == 0 else cols  # >= k: the sum of (m - j) (w - j) over j < k, closed
    return 2 * (k * m * w - (m + w) * k * (k - 1) // 2 + (k - 1) * k * (2 * k - 1) // 6)


def cholesky(a):
    """The lower-triangular ``L`` with ``L @ L.conj().T == a`` for the Hermitian
    positive-definite matrix (or stack of them) ``a``."""
    a, dt, out_dt, _ = square_stack(a)
    if a.size == 0:
        return cuprum.empty(a.shape, dtype=out_dt)
    n = a.shape[-1]
    x = a.astype(dt, copy=True).reshape(-1, n, n)
    if n <= 1024 and _one_launch(x, n**3 // 6, _CHOLESKY_RATE, n, _CHOLESKY_STEP_S):
        x = cuprum.ascontiguousarray(x)
        k = _kernel(_CHOLESKY_SOURCE, "cuprum_cholesky", x.dtype)
        launch_one_block(
            k, x.shape[0], block_threads(n, _THREADS), (x, numpy.int32(n)), n * n, x.dtype
        )
    else:
        _cholesky_composed(x)
    if linalg_raises():
        d = cuprum.diagonal(x, axis1=1, axis2=2).real
        if not bool(cuprum.all(d > 0)):
            raise numpy.linalg.LinAlgError("Matrix is not positive definite")
    return cuprum.tril(x).reshape(a.shape).astype(out_dt, copy=False)


def _cholesky_composed(x):
    """The factorization of the stack ``x`` in place, a column's step at a time."""
    n = x.shape[-1]
    complex_ = numpy.dtype(x.dtype).kind == "c"
    for j in range(n):
        d = cuprum.sqrt(x[:, j, j].real)
        col = x[:, j:, j] / d[:, None]
        x[:, j:, j] = col
        if j + 1 < n:
            below = col[:, 1:]
            h = cuprum.conj(below) if complex_ else below
            x[:, j + 1 :, j + 1 :] -= below[:, :, None] * h[:, None, :]


def _householder(r):
    """LAPACK's ``geqrf`` of the stack ``r`` (``(B, m, n)``, a copy in the compute
    dtype, overwritten with ``R`` above the diagonal and the reflectors below it).
    Returns ``tau`` (``(B, k)``)."""
    nb, m, n = r.shape
    k = min(m, n)
    complex_ = numpy.dtype(r.dtype).kind == "c"
    tau = cuprum.zeros((nb, k), dtype=r.dtype)
    if _one_launch(r, _qr_updates(m, n, 0), _QR_RATE, k, _QR_STEP_S):
        cm = cuprum.ascontiguousarray(r.swapaxes(1, 2))
        args = (cm, tau, numpy.int32(m), numpy.int32(n))
        kern = _kernel(_HOUSEHOLDER_SOURCE, "cuprum_geqrf", r.dtype)
        launch_one_block(kern, nb, block_threads(n, _THREADS), args, m * n, r.dtype)
        r[...] = cm.swapaxes(1, 2)
        return tau
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
    nb, m, n = h.shape
    k = tau.shape[1]
    complex_ = numpy.dtype(h.dtype).kind == "c"
    fits = m * cols <= _MAX_ELEMENTS
    if fits and _one_launch(h, _qr_updates(m, n, cols), _QR_RATE, k, _QR_STEP_S):
        cm = cuprum.ascontiguousarray(h.swapaxes(1, 2))
        qt = cuprum.empty((nb, cols, m), dtype=h.dtype)
        tau = cuprum.ascontiguousarray(tau)
        args = (cm, tau, qt, numpy.int32(m), numpy.int32(n), numpy.int32(cols))
        kern = _kernel(_HOUSEHOLDER_SOURCE, "cuprum_orgqr", h.dtype)
        launch_one_block(kern, nb, block_threads(cols, _THREADS), args, m * (n + cols), h.dtype)
        return qt.swapaxes(1, 2)
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


def completed_basis(u, cols):
    """``Q``'s first ``cols`` columns for the real stack ``u`` (``(B, m, n)``, ``n <= m``,
    orthonormal columns and zero ones) in one launch, the phases of ``u``'s columns kept
    (svd's ``U``); ``None`` where one launch does not pay."""
    nb, m, n = u.shape
    updates = _qr_updates(m, n, 0) + _qr_updates(m, n, cols)
    if m * cols > _MAX_ELEMENTS or not _one_launch(u, updates, _QR_RATE, n, 2 * _QR_STEP_S):
        return None
    cm = cuprum.ascontiguousarray(u.swapaxes(1, 2))
    tau = cuprum.empty((nb, n), dtype=u.dtype)
    q = cuprum.empty((nb, m, cols), dtype=u.dtype)
    args = (cm, tau, q, numpy.int32(m), numpy.int32(n), numpy.int32(cols))
    kern = _kernel(_HOUSEHOLDER_SOURCE, "cuprum_qr_complete", u.dtype)
    launch_one_block(kern, nb, block_threads(max(n, cols), _THREADS), args, m * (n + cols), u.dtype)
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
