"""``cuprum.linalg``'s spectral functions: ``svd``, ``eigh``, ``eigvalsh`` and what
stands on singular values (``pinv``, ``lstsq``, ``matrix_rank``, ``cond``, the matrix
2-norms and nuclear norm).

One design serves them all: one-sided (Hestenes) Jacobi over stacks of matrices. The
columns of ``W = A V`` are rotated in pairs until they are orthogonal; each round rotates
``n/2`` disjoint pairs at once (a round-robin tournament: ``n - 1`` rounds a sweep). Then
the singular values are the column norms, ``V`` the accumulated rotations and ``U`` the
normalised columns, completed to an orthonormal basis by Householder QR (the columns of
zero singular values, and ``full_matrices``). One-sided Jacobi computes small singular
values to high relative accuracy.

Real stacks (up to 1024 columns) run it in two launches, a block per matrix, in shared
memory where the matrices fit (``_SWEEP_SOURCE``): ``cuprum_svd_jacobi`` (a warp per pair,
the block meeting after each round and stopping after a sweep in which no cosine between
two columns exceeded ``n * eps``; then the values in descending order and ``U``'s
normalised columns) and the one-launch QR that completes ``U``
(``_linalg_factor.completed_basis``). Launches, not arithmetic, bound the small matrices
linear algebra is mostly made of: the composed glue around the iteration cost more than
the iteration for a stack of 32x32 matrices. Complex stacks take the composed loop: a
round is a few gathers, reductions and scatters over the whole stack and two fused kernels
(``cuprum.fuse``: the rotations' parameters, then each pair of columns rotated), and a
sweep ends with one read of the largest remaining cosine.

``eigh`` is the SVD of ``A + sigma I`` for the Hermitian ``A`` built from the triangle
``UPLO`` names, with ``sigma = ||A||_F`` (so the shifted matrix is positive
semidefinite and its singular values are the eigenvalues plus ``sigma``); for real stacks
all of it, the shift, the iteration, the eigenvalues and their order, is one launch
(``cuprum_eigh_jacobi``). Eigenvalues come out with an absolute error of ``eps * ||A||``,
as LAPACK's ``syevd``'s, and the eigenvectors are ``V``'s columns. Eigenvectors' signs
(phases) are not NumPy's, as no two LAPACK builds promise the same ones.
"""

from __future__ import annotations

import functools

import cuprum
from cuprum._lazy import numpy
from cuprum._linalg_factor import _form_q, _householder, completed_basis
from cuprum._linalg_solve import (
    _assert_stacked_2d,
    _assert_stacked_square,
    common_type,
    kernel_source,
    launch_one_block,
    square_stack,
)

_MAX_SWEEPS = 40
_EIGH_MAX_N = 1024  # the one-launch eigh's and svd's values stay in shared memory


def _rounds(n):
    """A round-robin tournament of the columns ``0..n-1``: for each round, the index
    arrays ``(P, Q)`` of its disjoint pairs."""
    players = list(range(n + (n % 2)))
    m = len(players)
    out = []
    for _ in range(m - 1):
        pairs = [(players[i], players[m - 1 - i]) for i in range(m // 2)]
        pairs = [(p, q) for p, q in pairs if p < n and q < n]
        if pairs:
            p = cuprum.asarray([min(x) for x in pairs])
            q = cuprum.asarray([max(x) for x in pairs])
            out.append((p, q))
        players = [players[0]] + [players[-1]] + players[1:-1]
    return out


def _rotation_math(alpha, beta, g, d):
    """One Jacobi rotation per pair from its columns' squared norms ``alpha``, ``beta``
    and their product's magnitude ``g`` (``d``: the signed product for real columns, ``g``
    for complex ones): ``(c, s, cosine between the columns)``; no rotation where ``g`` is
    0."""
    live = g > 0
    norm = cuprum.sqrt(alpha * beta)
    cos = cuprum.where(live, g / cuprum.where(norm > 0, norm, 1), 0)
    zeta = (beta - alpha) / (2 * cuprum.where(live, d, 1))
    t = cuprum.where(zeta >= 0, 1, -1) / (cuprum.abs(zeta) + cuprum.sqrt(1 + zeta * zeta))
    c = 1 / cuprum.sqrt(1 + t * t)
    return cuprum.where(live, c, 1), cuprum.where(live, c * t, 0), cos


def _rotate_math(c, s, xp, xq):
    """The pair of columns ``(xp, xq)`` rotated by ``(c, s)``."""
    return c * xp - s * xq, s * xp + c * xq


@functools.cache
def _fused():
    """The round's two kernels, fused once (``cuprum.fuse`` exists only once the package
    is imported): the rotations' parameters, and a pair of columns rotated."""
    return (
        cuprum.fuse(kernel_name="cuprum_jacobi_rotation")(_rotation_math),
        cuprum.fuse(kernel_name="cuprum_jacobi_rotate")(_rotate_math),
    )


# One block per matrix of a real stack: the whole Jacobi iteration in one launch. Each warp
# takes pairs of the round (the circle method: column 0 stays, the others turn by one a
# round), sums the pair's three products with shuffles and rotates both columns of W and
# of V; the block meets after each round, and stops after a sweep in which no pair's
# cosine exceeded `tol` (the composed loop's test, per matrix). W and V are column-major
# (a column's rows contiguous: a warp's loads coalesce), up to 32 warps a block (an H200
# took 709 ms for 256x256 float32 with row-major columns and 8 warps).
_SWEEP_SOURCE = r"""
__device__ __forceinline__ int player(int j, int r, int np) {
    return j == 0 ? 0 : (j - 1 + r) % (np - 1) + 1;
}

// The iteration on one block's W (m x n) and V (n x n), both column-major; `rotated` is
// a shared flag.
__device__ void jacobi(T* a, T* vv, int m, int n, int sweeps, T tol, int& rotated) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int np = n + (n & 1);
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        if (threadIdx.x == 0) rotated = 0;
        __syncthreads();
        for (int r = 0; r < np - 1; ++r) {
            for (int k = warp; k < np / 2; k += warps) {
                int p = player(k, r, np), q = player(np - 1 - k, r, np);
                if (p > q) { int t = p; p = q; q = t; }
                if (q >= n) continue;
                T alpha = 0, beta = 0, gamma = 0;
                for (int i = lane; i < m; i += 32) {
                    T x = a[(long long)p * m + i], y = a[(long long)q * m + i];
                    alpha += x * x; beta += y * y; gamma += x * y;
                }
                alpha = warp_sum(alpha); beta = warp_sum(beta); gamma = warp_sum(gamma);
                T g = gamma < 0 ? -gamma : gamma;
                if (!(g > 0)) continue;
                T norm = sqrt(alpha * beta);
                if (norm > 0 && g / norm > tol && lane == 0) rotated = 1;
                T zeta = (beta - alpha) / (2 * gamma);
                T t = (zeta >= 0 ? T(1) : T(-1)) / ((zeta < 0 ? -zeta : zeta) + sqrt(1 + zeta * zeta));
                T c = 1 / sqrt(1 + t * t), s = c * t;
                for (int i = lane; i < m; i += 32) {
                    T x = a[(long long)p * m + i], y = a[(long long)q * m + i];
                    a[(long long)p * m + i] = c * x - s * y;
                    a[(long long)q * m + i] = s * x + c * y;
                }
                for (int i = lane; i < n; i += 32) {
                    T x = vv[(long long)p * n + i], y = vv[(long long)q * n + i];
                    vv[(long long)p * n + i] = c * x - s * y;
                    vv[(long long)q * n + i] = s * x + c * y;
                }
            }
            __syncthreads();
        }
        if (rotated == 0) break;
        __syncthreads();
    }
}

extern "C" __global__ void cuprum_jacobi_sweeps(T* w, T* v, int m, int n, int sweeps, T tol,
                                                int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ int rotated;
    const long long mn = (long long)m * n, nn = (long long)n * n;
    T* s = staged ? reinterpret_cast<T*>(dyn) : nullptr;
    T* wg = w + blockIdx.x * mn;
    T* vg = v + blockIdx.x * nn;
    T* a = stage(wg, s, mn);
    T* vv = stage(vg, s ? s + mn : nullptr, nn);
    jacobi(a, vv, m, n, sweeps, tol, rotated);
    unstage(wg, a, mn);
    unstage(vg, vv, nn);
}

// Ascending, NaN last, ties in index order (argsort's order).
__device__ __forceinline__ bool before(T x, int i, T y, int j) {
    const bool xn = x != x, yn = y != y;
    if (xn || yn) return xn ? (yn && i < j) : true;
    return x < y || (x == y && i < j);
}

// eigh of one block's symmetric matrix, whole: the matrix from the triangle `lower` names
// into W (column-major) with sigma = ||A||_F added to its diagonal, V = I, the iteration,
// then the eigenvalues (W's column norms less sigma) in ascending order into `lams` and
// V's columns in that order into `vs` (row-major, eigenvectors as columns).
extern "C" __global__ void cuprum_eigh_jacobi(const T* as, T* lams, T* vs, T* work, int n,
                                              int lower, int vectors, int sweeps, T tol,
                                              int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ int rotated;
    __shared__ T red[32];
    __shared__ T lam[1024];
    const int nn = n * n, tid = threadIdx.x, nt = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = nt >> 5;
    const T* a = as + (long long)blockIdx.x * nn;
    T* w = staged ? reinterpret_cast<T*>(dyn) : work + (long long)blockIdx.x * 2 * nn;
    T* v = w + nn;
    T ss = 0;
    for (int e = tid; e < nn; e += nt) {
        const int c = e / n, i = e % n;
        const bool own = lower ? i >= c : i <= c;
        const T x = own ? a[i * n + c] : a[c * n + i];
        w[e] = x;
        v[e] = i == c ? T(1) : T(0);
        ss += x * x;
    }
    const T sigma = sqrt(block_sum(ss, red));
    for (int c = tid; c < n; c += nt) w[c * n + c] += sigma;
    __syncthreads();
    jacobi(w, v, n, n, sweeps, tol, rotated);
    __syncthreads();
    for (int c = warp; c < n; c += warps) {
        T s2 = 0;
        for (int i = lane; i < n; i += 32) s2 += w[c * n + i] * w[c * n + i];
        s2 = warp_sum(s2);
        if (lane == 0) lam[c] = sqrt(s2) - sigma;
    }
    __syncthreads();
    T* lo = lams + (long long)blockIdx.x * n;
    T* vo = vs + (long long)blockIdx.x * nn;
    for (int c = warp; c < n; c += warps) {
        const T x = lam[c];
        int r = 0;
        for (int j = lane; j < n; j += 32) r += before(lam[j], j, x, c) ? 1 : 0;
        for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        if (lane == 0) lo[r] = x;
        if (vectors)
            for (int i = lane; i < n; i += 32) vo[i * n + r] = v[c * n + i];
    }
}

// The SVD of one block's W (m x n, m >= n, column-major), but for completing U: V = I, the
// iteration, then the singular values (W's column norms) in descending order (NaN last,
// ties in index order: argsort(-s)'s) into `ss`, W's columns divided by them (0 for a zero
// value) into `us` and V's columns into `vs`, in that order (row-major, as columns).
extern "C" __global__ void cuprum_svd_jacobi(T* ws, T* work, T* ss, T* us, T* vs, int m,
                                             int n, int vectors, int sweeps, T tol, int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ int rotated;
    __shared__ T sv[1024];
    const int tid = threadIdx.x, nt = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = nt >> 5;
    T* s = staged ? reinterpret_cast<T*>(dyn) : nullptr;
    T* w = stage(ws + (long long)blockIdx.x * m * n, s, (long long)m * n);
    T* v = s ? s + (long long)m * n : work + (long long)blockIdx.x * n * n;
    for (int e = tid; e < n * n; e += nt) v[e] = e / n == e % n ? T(1) : T(0);
    __syncthreads();
    jacobi(w, v, m, n, sweeps, tol, rotated);
    __syncthreads();
    for (int c = warp; c < n; c += warps) {
        T s2 = 0;
        for (int i = lane; i < m; i += 32) s2 += w[(long long)c * m + i] * w[(long long)c * m + i];
        s2 = warp_sum(s2);
        if (lane == 0) sv[c] = sqrt(s2);
    }
    __syncthreads();
    T* so = ss + (long long)blockIdx.x * n;
    T* uo = us + (long long)blockIdx.x * m * n;
    T* vo = vs + (long long)blockIdx.x * n * n;
    for (int c = warp; c < n; c += warps) {
        const T x = sv[c];
        int r = 0;
        for (int j = lane; j < n; j += 32) r += before(-sv[j], j, -x, c) ? 1 : 0;
        for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        if (lane == 0) so[r] = x;
        if (vectors) {
            const T d = x > 0 ? x : T(1), keep = x > 0 ? T(1) : T(0);
            for (int i = lane; i < m; i += 32) uo[(long long)i * n + r] = w[(long long)c * m + i] / d * keep;
            for (int i = lane; i < n; i += 32) vo[i * n + r] = v[c * n + i];
        }
    }
}
"""


@functools.cache
def _sweep_kernel(dt, name="cuprum_jacobi_sweeps"):
    """A one-launch Jacobi kernel for real ``dt`` (float32 or float64): the iteration
    alone, ``cuprum_eigh_jacobi`` or ``cuprum_svd_jacobi``."""
    return cuprum.RawKernel(kernel_source(dt, _SWEEP_SOURCE), name)


def _launch_jacobi(name, dt, n, args, staged_count):
    """The Jacobi kernel ``name`` over a block per matrix of ``n`` columns, staging
    ``staged_count`` elements a block in shared memory where they fit."""
    k = _sweep_kernel(numpy.dtype(dt).name, name)
    launch_one_block(k, args[0].shape[0], 32 * _warps(n), args, staged_count, dt)


def _warps(n):
    return max(1, min((n + 1) // 2, 32))


def _jacobi(w):
    """Orthogonalises the columns of the stack ``w`` (``(B, m, n)``, ``m >= n``, a copy
    in the compute dtype) in place. Returns ``V`` (``(B, n, n)``) with ``w = A V``."""
    nb, m, n = w.shape
    dt = numpy.dtype(w.dtype)
    complex_ = dt.kind == "c"
    v = cuprum.zeros((nb, n, n), dtype=w.dtype)
    v[:, :, :] = cuprum.eye(n, dtype=w.dtype)
    if n < 2:
        return v
    tol = float(numpy.finfo(dt).eps) * n
    if not complex_:
        # column-major copies (a warp walks a column's rows, coalesced); V = I is its own
        # transpose
        wt = cuprum.ascontiguousarray(w.swapaxes(1, 2))
        args = (wt, v, numpy.int32(m), numpy.int32(n), numpy.int32(_MAX_SWEEPS), dt.type(tol))
        _launch_jacobi("cuprum_jacobi_sweeps", dt, n, args, m * n + n * n)
        w[...] = wt.swapaxes(1, 2)
        return v.swapaxes(1, 2)
    rounds = _rounds(n)
    rotation, rotate = _fused()
    for _ in range(_MAX_SWEEPS):
        cosines = []
        for p, q in rounds:
            wp, wq = w[:, :, p], w[:, :, q]
            if complex_:
                alpha = cuprum.sum((wp * cuprum.conj(wp)).real, axis=1)
                beta = cuprum.sum((wq * cuprum.conj(wq)).real, axis=1)
                gamma = cuprum.sum(cuprum.conj(wp) * wq, axis=1)
                g = cuprum.abs(gamma)
                # |gamma| rotates; its phase moves onto column q
                c, s, cos = rotation(alpha, beta, g, g)
                phase = cuprum.conj(gamma / cuprum.where(g > 0, g, 1))
                phase = cuprum.where(g > 0, phase, 1)[:, None, :]
                wq, vq = wq * phase, v[:, :, q] * phase
            else:
                alpha = cuprum.sum(wp * wp, axis=1)
                beta = cuprum.sum(wq * wq, axis=1)
                gamma = cuprum.sum(wp * wq, axis=1)
                c, s, cos = rotation(alpha, beta, cuprum.abs(gamma), gamma)
                vq = v[:, :, q]
            cosines.append(cos)
            c, s = c[:, None, :], s[:, None, :]
            w[:, :, p], w[:, :, q] = rotate(c, s, wp, wq)
            v[:, :, p], v[:, :, q] = rotate(c, s, v[:, :, p], vq)
        worst = cuprum.max(cuprum.concatenate(cosines, axis=1))
        if not float(worst) > tol:
            break
    return v


def _orthonormal(u, s, full):
    """``u``'s columns divided by ``s``, completed to an orthonormal basis (columns of
    zero singular values; all ``m`` columns for ``full``) by Householder QR."""
    safe = cuprum.where(s > 0, s, 1)
    u = u / safe[:, None, :]
    u *= (s > 0)[:, None, :]
    return _completed(u, full)


def _completed(u, full):
    """The orthonormal columns ``u`` (zero columns where singular values are 0)
    completed to an orthonormal basis by Householder QR."""
    m, n = u.shape[1:]
    if numpy.dtype(u.dtype).kind == "f":
        q = completed_basis(u, m if full else n)
        if q is not None:
            return q
    h = u.copy()
    tau = _householder(h)
    q = _form_q(h, tau, m if full else n)
    d = cuprum.diagonal(h, axis1=1, axis2=2)[:, :n]
    # QR of orthonormal columns: R's diagonal is +-1 (a phase), Q's column that phase
    # times u's; a zero column's R entry is ~0 and Q's column completes the basis
    big = cuprum.abs(d) > 0.5
    unit = cuprum.where(big, d / cuprum.where(big, cuprum.abs(d), 1), 1)
    q[:, :, :n] *= unit[:, None, :]
    return q


def _svd_one_launch(w, vectors):
    """``(s, U, V)`` of the real stack ``w`` (``(B, m, n)``, ``m >= n``) from one kernel:
    ``s`` descending, ``U``'s columns normalised (not yet completed), ``V``."""
    nb, m, n = w.shape
    dt = numpy.dtype(w.dtype)
    wt = cuprum.ascontiguousarray(w.swapaxes(1, 2))
    s = cuprum.empty((nb, n), dtype=dt)
    u = cuprum.empty((nb, m, n) if vectors else (1,), dtype=dt)
    v = cuprum.empty((nb, n, n) if vectors else (1,), dtype=dt)
    work = cuprum.empty((nb, n, n), dtype=dt)
    tol = dt.type(float(numpy.finfo(dt).eps) * n)
    ints = (numpy.int32(m), numpy.int32(n), numpy.int32(bool(vectors)), numpy.int32(_MAX_SWEEPS))
    args = (wt, work, s, u, v, *ints, tol)
    _launch_jacobi("cuprum_svd_jacobi", dt, n, args, m * n + n * n)
    return s, u, v


def _svd3(a, full, compute_uv):
    """The SVD of the stack ``a`` (``(B, m, n)``, a copy in the compute dtype)."""
    m, n = a.shape[1:]
    tall = m >= n
    w = a if tall else cuprum.conj(a.swapaxes(1, 2)).copy()
    if numpy.dtype(a.dtype).kind == "f" and min(m, n) <= _EIGH_MAX_N:
        s, u, v = _svd_one_launch(w, compute_uv)
        if not compute_uv:
            return s
        u = _completed(u, full)
        vh = v.swapaxes(1, 2)
        return (u, s, vh) if tall else (v, s, u.swapaxes(1, 2))
    v = _jacobi(w)
    s = cuprum.sqrt(cuprum.sum((w * cuprum.conj(w)).real, axis=1))
    order = cuprum.argsort(-s, axis=1)
    s = cuprum.take_along_axis(s, order, axis=1)
    if not compute_uv:
        return s
    w = cuprum.take_along_axis(w, order[:, None, :], axis=2)
    v = cuprum.take_along_axis(v, order[:, None, :], axis=2)
    u = _orthonormal(w, s, full)
    vh = cuprum.conj(v.swapaxes(1, 2))
    if tall:
        return u, s, vh
    return v, s, cuprum.conj(u.swapaxes(1, 2))


def svd(a, full_matrices=True, compute_uv=True):
    """The singular value decomposition ``a = u @ (s[..., None] * vh)`` of the matrix
    (or stack of them) ``a`` (``(..., M, N)``): ``s`` descending, real; ``u`` of shape
    ``(..., M, M)`` and ``vh`` ``(..., N, N)`` with ``full_matrices``, else ``K =
    min(M, N)`` columns / rows; ``s`` alone without ``compute_uv``."""
    a = cuprum.asarray(a)
    _assert_stacked_2d(a)
    dt, _ = common_type(a)
    real = numpy.empty(0, dtype=dt).real.dtype
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        s = cuprum.empty(batch + (k,), dtype=real)
        if not compute_uv:
            return s
        mu, nv = (m, n) if full_matrices else (k, k)
        u = cuprum.zeros(batch + (m, mu), dtype=dt)
        vh = cuprum.zeros(batch + (nv, n), dtype=dt)
        if full_matrices:
            u[...] = cuprum.eye(m, dtype=dt)
            vh[...] = cuprum.eye(n, dtype=dt)
        return u, s, vh
    a3 = a.astype(dt, copy=True).reshape(-1, m, n)
    r = _svd3(a3, full_matrices, compute_uv)
    if not compute_uv:
        return r.reshape(batch + (k,)).astype(real, copy=False)
    u, s, vh = r
    return (
        u.reshape(batch + u.shape[1:]),
        s.reshape(batch + (k,)).astype(real, copy=False),
        vh.reshape(batch + vh.shape[1:]),
    )


def _hermitian(a, uplo):
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    tri = cuprum.tril(a) if uplo == "L" else cuprum.triu(a)
    strict = cuprum.tril(a, -1) if uplo == "L" else cuprum.triu(a, 1)
    h = tri + cuprum.conj(strict.swapaxes(-1, -2))
    if numpy.dtype(h.dtype).kind == "c":
        # the diagonal's imaginary parts are ignored, as LAPACK's
        n = h.shape[-1]
        i = cuprum.arange(n)
        h[..., i, i] = h[..., i, i].real
    return h


def _eigh3(a, uplo, vectors):
    nb, n = a.shape[:2]
    dt = numpy.dtype(a.dtype)
    if dt.kind == "f" and n <= _EIGH_MAX_N:
        if uplo not in ("L", "U"):
            raise ValueError("UPLO argument must be 'L' or 'U'")
        lam = cuprum.empty((nb, n), dtype=dt)
        v = cuprum.empty((nb, n, n) if vectors else (1,), dtype=dt)
        work = cuprum.empty((nb, 2, n, n), dtype=dt)
        tol = dt.type(float(numpy.finfo(dt).eps) * n)
        ints = (numpy.int32(n), numpy.int32(uplo == "L"), numpy.int32(bool(vectors)))
        args = (a, lam, v, work, *ints, numpy.int32(_MAX_SWEEPS), tol)
        _launch_jacobi("cuprum_eigh_jacobi", dt, n, args, 2 * n * n)
        return (lam, v) if vectors else lam
    h = _hermitian(a, uplo)
    sigma = cuprum.sqrt(cuprum.sum((h * cuprum.conj(h)).real, axis=(1, 2)))
    i = cuprum.arange(n)
    h[:, i, i] += sigma[:, None]
    v = _jacobi(h)
    s = cuprum.sqrt(cuprum.sum((h * cuprum.conj(h)).real, axis=1))
    lam = s - sigma[:, None]
    order = cuprum.argsort(lam, axis=1)
    lam = cuprum.take_along_axis(lam, order, axis=1)
    if not vectors:
        return lam
    return lam, cuprum.take_along_axis(v, order[:, None, :], axis=2)


def eigh(a, UPLO="L"):
    """The eigenvalues (ascending, real) and eigenvectors (columns) of the Hermitian
    (real symmetric) matrix or stack ``a``, read from its lower (``UPLO='L'``) or upper
    triangle."""
    a, dt, out_dt, real = square_stack(a, reject_float16=False)
    n = a.shape[-1]
    if a.size == 0:
        return cuprum.empty(a.shape[:-1], dtype=real), cuprum.empty(a.shape, dtype=out_dt)
    lam, v = _eigh3(a.astype(dt, copy=True).reshape(-1, n, n), UPLO, True)
    lam = lam.reshape(a.shape[:-1]).astype(real, copy=False)
    return lam, v.reshape(a.shape).astype(out_dt, copy=False)


def eigvalsh(a, UPLO="L"):
    """The eigenvalues (ascending, real) of the Hermitian matrix or stack ``a``."""
    a, dt, _, real = square_stack(a, reject_float16=False)
    n = a.shape[-1]
    if a.size == 0:
        return cuprum.empty(a.shape[:-1], dtype=real)
    lam = _eigh3(a.astype(dt, copy=True).reshape(-1, n, n), UPLO, False)
    return lam.reshape(a.shape[:-1]).astype(real, copy=False)


def pinv(a, rcond=1e-15):
    """The Moore-Penrose pseudo-inverse of the matrix or stack ``a`` (singular values
    below ``rcond`` times the largest are dropped)."""
    a = cuprum.asarray(a)
    _assert_stacked_2d(a)
    if a.size == 0:
        _, out_dt = common_type(a)
        m, n = a.shape[-2:]
        if m == 0 or n == 0:
            out_dt = a.dtype
        return cuprum.empty(a.shape[:-2] + (n, m), dtype=out_dt)
    u, s, vh = svd(cuprum.conj(a), full_matrices=False)
    cutoff = cuprum.asarray(rcond) * cuprum.max(s, axis=-1)
    keep = s > cutoff[..., None]
    inv_s = cuprum.where(keep, 1 / cuprum.where(keep, s, 1), 0)
    return cuprum.matmul(vh.swapaxes(-2, -1), inv_s[..., None] * u.swapaxes(-2, -1))


def matrix_rank(A, tol=None, hermitian=False):
    """The number of singular values of ``A`` above ``tol`` (default: the largest times
    ``max(M, N) * eps``); 0 or 1 for a vector or scalar (nonzero or not)."""
    A = cuprum.asarray(A)
    if A.ndim < 2:
        return cuprum.any(A != 0).astype(int)
    if hermitian:
        s = cuprum.abs(eigvalsh(A))
    else:
        s = svd(A, compute_uv=False)
    if tol is None:
        eps = float(numpy.finfo(numpy.dtype(s.dtype)).eps)
        tol = cuprum.max(s, axis=-1, keepdims=True) * (max(A.shape[-2:]) * eps)
    else:
        tol = cuprum.asarray(tol)[..., None]
    return cuprum.count_nonzero(s > tol, axis=-1)


def cond(x, p=None):
    """The condition number of the matrix or stack ``x`` in the norm ``p`` (``None`` and
    ``2``: the largest singular value over the smallest; ``-2`` the inverse; others
    ``norm(x, p) * norm(inv(x), p)``)."""
    from cuprum._linalg import norm
    from cuprum._linalg_solve import inv

    x = cuprum.asarray(x)
    if x.size == 0:
        raise numpy.linalg.LinAlgError("cond is not defined on empty arrays")
    if p is None or p in (2, -2):
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        _assert_stacked_2d(x)
        _assert_stacked_square(x)
        _, out_dt = common_type(x)
        r = norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))
        r = r.astype(out_dt, copy=False)
    # NaN where the inverse failed is infinity, unless x had NaNs itself (NumPy's rule)
    fail = cuprum.isnan(r) & ~cuprum.any(cuprum.isnan(x), axis=(-2, -1))
    return cuprum.where(fail, numpy.inf, r).astype(r.dtype, copy=False)


def lstsq(a, b, rcond=None):
    """The least-squares solution ``x`` of ``a @ x = b`` (NumPy's ``linalg.lstsq``):
    ``(x, residuals, rank, s)``; singular values below ``rcond`` times the largest
    count as zero (default: ``eps * max(M, N)``)."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    if a.ndim != 2:
        raise numpy.linalg.LinAlgError(
            f"{a.ndim}-dimensional array given. Array must be two-dimensional"
        )
    if b.ndim > 2:
        raise numpy.linalg.LinAlgError(
            f"{b.ndim}-dimensional array given. Array must be at most two-dimensional"
        )
    m, n = a.shape
    if m != b.shape[0]:
        raise numpy.linalg.LinAlgError("Incompatible dimensions")
    dt, _ = common_type(a, b)
    real = numpy.empty(0, dtype=dt).real.dtype
    u, s, vh = svd(a.astype(dt), full_matrices=False)
    if rcond is None:
        rcond = float(numpy.finfo(real).eps) * max(m, n)
    elif rcond <= 0 or rcond >= 1:
        rcond = float(numpy.finfo(real).eps)
    keep = s > rcond * cuprum.max(s) if s.size else s > 0
    rank = cuprum.count_nonzero(keep).astype(numpy.int32)
    inv_s = cuprum.where(keep, 1 / cuprum.where(keep, s, 1), 0)
    bb = b.astype(dt)
    bb = bb[:, None] if b.ndim == 1 else bb
    x = cuprum.matmul(cuprum.conj(vh.T), inv_s[:, None] * cuprum.matmul(cuprum.conj(u.T), bb))
    if m > n and int(rank) == n:
        r = cuprum.matmul(a.astype(dt), x) - bb
        resids = cuprum.sum((r * cuprum.conj(r)).real, axis=0).astype(real, copy=False)
        if b.ndim == 1:
            resids = resids.reshape(1)
    else:
        resids = cuprum.empty((0,), dtype=real)
    x = x.reshape((n,) + b.shape[1:])
    return x, resids, rank, s
