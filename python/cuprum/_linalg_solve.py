"""``cuprum.linalg``'s solvers of square systems: ``solve``, ``inv``, ``det``, ``slogdet``,
``tensorsolve``, ``tensorinv`` (and ``matrix_power``'s negative powers through ``inv``).

One design serves them all: Gauss-Jordan elimination with partial pivoting over a stack
of matrices at once. Each of the ``n`` steps finds every matrix's pivot (``argmax`` of a
column's magnitudes), swaps it into place and eliminates the column from every other row.
Real matrices of up to 1024 rows run the whole elimination in one launch (``_GJ_SOURCE``:
a block per matrix) where that pays (``one_block_pays``: stacks, and single matrices of up
to several hundred rows); complex ones and the rest compose each step from cuprum's array
operations (one advanced-indexing gather and scatter, one broadcast multiply-subtract),
so a batch of a thousand small systems costs what one does. The pivots are LU's (rows above the pivot never compete for a later one),
so their product with the swaps' sign is the determinant; ``det`` and ``slogdet`` skip
the elimination above the diagonal.

Dtypes follow CuPy's ``linalg_common_type``: bools and integers compute and return
float64, float16 is a ``TypeError``, float32/complex64 stay single precision. As CuPy
does by default (``errstate(linalg='ignore')``), a singular matrix is not checked for
(that would wait for the device): ``solve`` and ``inv`` give infinities or NaNs, ``det``
gives 0 and ``slogdet`` ``(0, -inf)``, as LAPACK's LU does for an exact zero pivot;
under ``cuprum.errstate(linalg='raise')`` ``solve`` and ``inv`` raise NumPy's
``LinAlgError``.
"""

from __future__ import annotations

import functools
import operator

import cuprum
from cuprum._errstate import linalg_raises
from cuprum._lazy import numpy


def _error(msg):
    return numpy.linalg.LinAlgError(msg)


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise _error(
                f"{a.ndim}-dimensional array given. Array must be at least two-dimensional"
            )


def _assert_stacked_square(*arrays):
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise _error("Last 2 dimensions of the array must be square")


def common_type(*arrays, reject_float16=True):
    """CuPy's ``linalg_common_type``: ``(compute dtype, result dtype)``; bools and
    integers as float64, float16 a ``TypeError`` or (``reject_float16=False``) computed
    in float32."""
    for a in arrays:
        name = getattr(a.dtype, "name", str(a.dtype))
        if name == "bfloat16" or (reject_float16 and name == "float16"):
            raise TypeError(f"{name} is unsupported in linalg")
    dts = [numpy.dtype(a.dtype) for a in arrays]
    inexact = [d if d.kind in "fc" else numpy.dtype("float64") for d in dts]
    dt = numpy.result_type(*inexact)
    return (numpy.dtype("float32") if dt == numpy.float16 else dt), dt


def square_stack(a, reject_float16=True):
    """``a`` as a device array checked to be a square matrix or a stack of them (NumPy's
    errors): ``(a, compute dtype, result dtype, result's real dtype)``."""
    a = cuprum.asarray(a)
    _assert_stacked_2d(a)
    _assert_stacked_square(a)
    dt, out_dt = common_type(a, reject_float16=reject_float16)
    return a, dt, out_dt, numpy.empty(0, dtype=out_dt).real.dtype


# Whether one block per matrix beats a composed loop: the block makes `updates` element
# updates at about `rate` a second (the kernel's, measured), a wave of blocks per SM's worth
# of matrices; the loop costs `steps` steps of about `step_s` seconds each (launches bound
# them: its arithmetic spreads over the whole GPU). A batch of small matrices takes the
# block, a single large one may take the loop. The rates and step times are an H100's
# (python/benches/linalg_paths.py times both paths).


@functools.cache
def _sm_count(device):
    return max(1, int(cuprum.cuda.runtime.getDeviceProperties(device)["multiProcessorCount"]))


def one_block_pays(nb, updates, rate, steps, step_s):
    """Whether ``nb`` matrices of ``updates`` element updates each (at ``rate`` a second
    on one SM) are cheaper in one launch, a block per matrix, than in a loop of ``steps``
    steps of ``step_s`` seconds."""
    waves = -(-nb // _sm_count(cuprum.cuda.Device().id))
    return waves * updates / rate <= steps * step_s


def allowed_threads(kernel, threads):
    """``threads`` halved until ``kernel``'s registers allow them (an H100's float64
    Jacobi kernel allows 896 of 1024)."""
    most = int(kernel.max_threads_per_block)
    while threads > most and threads > 32:
        threads //= 2
    return threads


def block_threads(rows, most):
    """Threads of a one-block kernel for matrices of ``rows`` rows: a warp a row (or
    column) up to ``most`` (a power of two); fewer for small matrices, whose steps are
    short and meet at every barrier."""
    threads = 64
    while threads < most and threads < 32 * rows:
        threads *= 2
    return threads


# What every one-block kernel of cuprum.linalg shares: warp and block sums, and staging a
# block's matrices in shared memory. A kernel given `shared_mem` (`staged_bytes`: the
# matrices fit beside its own shared arrays) copies its matrix in, works there, and copies
# it back: each step's loads and stores then wait on shared memory instead of L2.
KERNEL_HELPERS = r"""
__device__ __forceinline__ T warp_sum(T x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

__device__ T block_sum(T x, T* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    x = warp_sum(x);
    if (lane == 0) red[warp] = x;
    __syncthreads();
    T s = 0;
    for (int k = 0; k < warps; ++k) s += red[k];
    __syncthreads();
    return s;
}

// `count` elements of `g` copied into `s` (when given, else `g` itself is worked on).
__device__ T* stage(T* g, T* s, long long count) {
    if (!s) return g;
    for (long long e = threadIdx.x; e < count; e += blockDim.x) s[e] = g[e];
    __syncthreads();
    return s;
}

__device__ void unstage(T* g, const T* s, long long count) {
    if (s == g) return;
    __syncthreads();
    for (long long e = threadIdx.x; e < count; e += blockDim.x) g[e] = s[e];
}
"""


@functools.cache
def _smem_room(device):
    p = cuprum.cuda.runtime.getDeviceProperties(device)
    return int(p.get("sharedMemPerBlockOptin") or p["sharedMemPerBlock"])


def staged_bytes(kernel, count, dtype):
    """Shared memory (bytes) for ``kernel`` to stage ``count`` elements of ``dtype`` a
    block in, beside its own shared arrays; 0 when they do not fit (it then works in
    global memory)."""
    need = count * numpy.dtype(dtype).itemsize
    room = _smem_room(cuprum.cuda.Device().id) - int(kernel.shared_size_bytes)
    return need if need <= room else 0


def launch_one_block(kernel, nb, threads, args, staged_count, dt):
    """``kernel`` over ``nb`` blocks (a block per matrix) of ``threads`` threads (halved
    to what it allows), staging ``staged_count`` elements of ``dt`` a block in shared
    memory where they fit (its last argument, appended, says whether they did)."""
    smem = staged_bytes(kernel, staged_count, dt)
    threads = (allowed_threads(kernel, threads),)
    kernel((nb,), threads, (*args, numpy.int32(smem > 0)), shared_mem=smem)


def kernel_source(dt, source):
    """``source`` for real ``dt`` (float32 or float64), after the shared helpers."""
    ctype = {"float32": "float", "float64": "double"}[numpy.dtype(dt).name]
    return f"typedef {ctype} T;\n" + KERNEL_HELPERS + source


# The whole elimination of a real stack in one launch: a block per matrix, each step's
# pivot found by a block-wide argmax (NumPy's: the first of the largest magnitudes, a NaN
# before any number), the rows swapped, the multipliers staged in shared memory, then every
# other row updated (a warp a row, coalesced); the same arithmetic, in the same order per
# element, as the composed loop below. Up to 512 threads: fewer left an SM waiting on
# memory (an H200 took 19.6 ms for solve of 256x256 float64 with 256 threads and a cell
# index divided out per element). Launches, not arithmetic, bound small systems: ``solve`` of 256x256 was 256
# steps of a dozen launches each.
_GJ_THREADS = 512  # the float64 kernel's registers allow 896
_GJ_RATE, _GJ_STEP_S = 3.3e9, 170e-6
_GJ_MAX_N = 1024
_GJ_SOURCE = r"""
__device__ __forceinline__ bool ahead(T v, int i, T bv, int bi) {
    if (bi < 0) return true;
    const bool vn = v != v, bn = bv != bv;
    if (vn || bn) return vn && (!bn || i < bi);
    return v > bv || (v == bv && i < bi);
}

extern "C" __global__ void cuprum_gauss_jordan(T* mats, T* pivots, bool* odd, int n, int w,
                                               int full, int staged) {
    extern __shared__ __align__(16) unsigned char dyn[];
    T* g = mats + (long long)blockIdx.x * n * w;
    T* m = stage(g, staged ? reinterpret_cast<T*>(dyn) : nullptr, (long long)n * w);
    __shared__ T best_v[512];
    __shared__ int best_i[512];
    __shared__ T f[1024];
    const int tid = threadIdx.x, nt = blockDim.x, lane = tid & 31;
    const int warp = tid >> 5, warps = nt >> 5;
    bool flip = false;
    for (int j = 0; j < n; ++j) {
        T bv = 0;
        int bi = -1;
        for (int i = j + tid; i < n; i += nt) {
            T v = m[(long long)i * w + j];
            v = v < 0 ? -v : v;
            if (ahead(v, i, bv, bi)) { bv = v; bi = i; }
        }
        best_v[tid] = bv;
        best_i[tid] = bi;
        __syncthreads();
        for (int s = nt / 2; s > 0; s >>= 1) {
            if (tid < s && best_i[tid + s] >= 0 &&
                ahead(best_v[tid + s], best_i[tid + s], best_v[tid], best_i[tid])) {
                best_v[tid] = best_v[tid + s];
                best_i[tid] = best_i[tid + s];
            }
            __syncthreads();
        }
        const int p = best_i[0];
        if (p != j) {
            for (int c = tid; c < w; c += nt) {
                T t = m[(long long)j * w + c];
                m[(long long)j * w + c] = m[(long long)p * w + c];
                m[(long long)p * w + c] = t;
            }
            flip = !flip;
        }
        __syncthreads();
        const T piv = m[(long long)j * w + j];
        if (tid == 0) pivots[(long long)blockIdx.x * n + j] = piv;
        __syncthreads();
        if (full) {
            for (int c = tid; c < w; c += nt) m[(long long)j * w + c] /= piv;
            for (int i = tid; i < n; i += nt) f[i] = i == j ? T(0) : m[(long long)i * w + j];
        } else {
            const bool zero = piv == 0;
            for (int i = tid; i < n; i += nt)
                f[i] = i > j ? (m[(long long)i * w + j] / (zero ? T(1) : piv)) * (zero ? T(0) : T(1))
                             : T(0);
        }
        __syncthreads();
        const T* top = m + (long long)j * w;
        for (int i = warp; i < n; i += warps) {
            if (i == j) continue;
            T* row = m + (long long)i * w;
            const T fi = f[i];
            for (int c = lane; c < w; c += 32) row[c] -= fi * top[c];
        }
        __syncthreads();
    }
    if (tid == 0) odd[blockIdx.x] = flip;
    unstage(g, m, (long long)n * w);
}
"""


@functools.cache
def _gj_kernel(dt):
    """The one-launch elimination for real ``dt`` (float32 or float64)."""
    return cuprum.RawKernel(kernel_source(dt, _GJ_SOURCE), "cuprum_gauss_jordan")


def _eliminate(a, b, full):
    """Gauss-Jordan (``full``) or LU elimination of the stack ``a`` (``(B, n, n)``, a
    copy in the compute dtype) with the right-hand sides ``b`` (``(B, n, k)`` or
    ``None``). Returns ``(x, pivots, odd)``: ``b``'s columns solved (``full``), LU's
    pivots ``(B, n)`` and whether each matrix's row swaps are odd."""
    nb, n = a.shape[0], a.shape[1]
    m = a if b is None else cuprum.concatenate([a, b], axis=2)
    pivots = cuprum.empty((nb, n), dtype=m.dtype)
    odd = cuprum.zeros(nb, dtype=cuprum.bool_)
    real = numpy.dtype(m.dtype).kind == "f"
    if real and n <= _GJ_MAX_N and one_block_pays(nb, n * n * m.shape[2], _GJ_RATE, n, _GJ_STEP_S):
        m = cuprum.ascontiguousarray(m)
        w = m.shape[2]
        k = _gj_kernel(numpy.dtype(m.dtype).name)
        args = (m, pivots, odd, numpy.int32(n), numpy.int32(w), numpy.int32(bool(full)))
        launch_one_block(k, nb, block_threads(n, _GJ_THREADS), args, n * w, m.dtype)
        x = None if b is None else m[:, :, n:]
        return x, pivots, odd
    rows = cuprum.arange(nb)
    for j in range(n):
        p = cuprum.argmax(cuprum.abs(m[:, j:, j]), axis=1)
        if j:
            p += j
        top = m[:, j, :].copy()
        row = m[rows, p, :]
        m[rows, p, :] = top
        odd ^= p != j
        piv = row[:, j].copy()
        pivots[:, j] = piv
        if full:
            # an exact zero pivot divides: infinities and NaNs, as LAPACK's solve
            row /= piv[:, None]
            factor = m[:, :, j].copy()
            factor[:, j] = 0
        else:
            # LAPACK's LU skips a zero pivot's column: the determinant comes out 0
            zero = piv == 0
            factor = m[:, :, j] / cuprum.where(zero, 1, piv)[:, None]
            factor[:, : j + 1] = 0
            factor *= ~zero[:, None]
        m -= factor[:, :, None] * row[:, None, :]
        m[:, j, :] = row
    x = None if b is None else m[:, :, n:]
    return x, pivots, odd


def solve(a, b):
    """The solution ``x`` of ``a @ x = b`` for square ``a`` (``(..., M, M)``) and ``b``
    of shape ``(M,)`` (a vector for every matrix) or ``(..., M, K)`` (NumPy 2's rule;
    CuPy's errors)."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    _assert_stacked_2d(a)
    _assert_stacked_square(a)
    if b.ndim == 0:
        raise ValueError("b must have at least one dimension")
    if b.ndim == 1:
        if a.shape[-1] != b.size:
            raise ValueError(
                "a must have (..., M, M) shape and b must have (M,) for one-dimensional b"
            )
        b = cuprum.broadcast_to(b, a.shape[:-1])
    elif a.shape[:-1] != b.shape[:-1]:
        raise ValueError(
            "a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b"
        )
    dt, out_dt = common_type(a, b)
    if a.size == 0 or b.size == 0:
        if a.size and linalg_raises():  # no right-hand sides: a is still checked
            _check_singular(_lu_pivots(a, dt)[0])
        return cuprum.empty(b.shape, dtype=out_dt)
    n = a.shape[-1]
    a3 = a.astype(dt, copy=True).reshape(-1, n, n)
    b3 = b.astype(dt, copy=True).reshape(a3.shape[0], n, -1)
    x, pivots, _ = _eliminate(a3, b3, True)
    _check_singular(pivots)
    return cuprum.ascontiguousarray(x).reshape(b.shape).astype(out_dt, copy=False)


def inv(a):
    """The inverse of the square matrix (or stack of them) ``a``."""
    a, dt, out_dt, _ = square_stack(a)
    if a.size == 0:
        return cuprum.empty(a.shape, dtype=out_dt)
    n = a.shape[-1]
    a3 = a.astype(dt, copy=True).reshape(-1, n, n)
    eye = cuprum.broadcast_to(cuprum.eye(n, dtype=dt), a3.shape).copy()
    x, pivots, _ = _eliminate(a3, eye, True)
    _check_singular(pivots)
    return cuprum.ascontiguousarray(x).reshape(a.shape).astype(out_dt, copy=False)


def _check_singular(pivots):
    """``linalg='raise'`` (``cuprum.errstate``): NumPy's error for an exact zero pivot."""
    if linalg_raises() and bool(cuprum.any(pivots == 0)):
        raise _error("Singular matrix")


def _lu_pivots(a, dt):
    n = a.shape[-1]
    a3 = a.astype(dt, copy=True).reshape(-1, n, n)
    _, pivots, odd = _eliminate(a3, None, False)
    return pivots, odd


def det(a):
    """The determinant of the square matrix (or stack of them) ``a``."""
    a, dt, _, _ = square_stack(a)
    batch = a.shape[:-2]
    if a.shape[-1] == 0:
        return cuprum.ones(batch, dtype=dt)
    if a.size == 0:
        return cuprum.empty(batch, dtype=dt)
    pivots, odd = _lu_pivots(a, dt)
    d = cuprum.prod(pivots, axis=-1)
    d = cuprum.where(odd & (d != 0), -d, d)  # a singular matrix's is +0, as NumPy's
    return d.reshape(batch)


def slogdet(a):
    """``(sign, logabsdet)`` of the square matrix (or stack of them) ``a``: the
    determinant is ``sign * exp(logabsdet)`` (``(0, -inf)`` for a singular matrix; a
    complex ``sign`` of modulus 1 for complex ``a``)."""
    a, dt, _, real = square_stack(a)
    batch = a.shape[:-2]
    if a.shape[-1] == 0:
        return cuprum.ones(batch, dtype=dt), cuprum.zeros(batch, dtype=real)
    if a.size == 0:
        return cuprum.empty(batch, dtype=dt), cuprum.empty(batch, dtype=real)
    pivots, odd = _lu_pivots(a, dt)
    mag = cuprum.abs(pivots)
    zero = cuprum.any(mag == 0, axis=-1)
    logdet = cuprum.sum(cuprum.log(mag), axis=-1)
    unit = pivots / cuprum.where(mag == 0, 1, mag)
    sign = cuprum.prod(unit, axis=-1)
    sign = cuprum.where(odd, -sign, sign)
    sign = cuprum.where(zero, 0, sign).astype(dt, copy=False)
    logdet = cuprum.where(zero, -numpy.inf, logdet).astype(real, copy=False)
    return sign.reshape(batch), logdet.reshape(batch)


def tensorsolve(a, b, axes=None):
    """The tensor ``x`` with ``tensordot(a, x, x.ndim) == b`` (NumPy's
    ``linalg.tensorsolve``; ``axes`` are moved to the end of ``a`` first)."""
    a, b = cuprum.asarray(a), cuprum.asarray(b)
    if axes is not None:
        allaxes = list(range(a.ndim))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(a.ndim, k)
        a = a.transpose(allaxes)
    oldshape = a.shape[-(a.ndim - b.ndim) :]
    prod = 1
    for k in oldshape:
        prod *= k
    if a.size != prod**2:
        raise _error(
            "Input arrays must satisfy the requirement "
            "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
        )
    a = a.reshape(prod, prod)
    b = b.ravel()
    return solve(a, b).reshape(oldshape)


def tensorinv(a, ind=2):
    """The inverse of ``a`` under ``tensordot(·, ·, ind)`` (NumPy's
    ``linalg.tensorinv``)."""
    a = cuprum.asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError("Invalid ind argument")
    oldshape = a.shape
    invshape = oldshape[ind:] + oldshape[:ind]
    prod = 1
    for k in oldshape[ind:]:
        prod *= k
    a = a.reshape(prod, -1)
    return inv(a).reshape(*invshape)
