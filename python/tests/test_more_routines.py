"""NumPy's routines composed in Python (``diag``, ``diagflat``, ``tri``, ``rot90``,
``diag_indices_from``, ``mask_indices``, ``hsplit``/``vsplit``/``dsplit``, the array API's
``unique_*``, the ``broadcast`` class, ``r_``/``c_``, complex ``linspace`` and ``arange``)
against NumPy on random inputs: values, shapes, result dtypes, empty and one-element
inputs, and NumPy's errors."""

import warnings

import numpy as np
import pytest
from compare import random_values, same, same_error

import cuprum as cp

RNG = np.random.default_rng(7)
DTYPES = [np.int32, np.int64, np.float32, np.float64, np.bool_, np.complex64, np.complex128]


def data(shape, dtype):
    """Random non-zero values of ``dtype`` (bools both ways)."""
    return random_values(RNG, shape, dtype, unsigned=None)


def pair(shape, dtype):
    h = data(shape, dtype)
    return cp.asarray(h), h


# ---------------------------------------------------------------------------- diag, diagflat


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("k", [-3, -1, 0, 2])
def test_diag_of_1d(dtype, n, k):
    x, h = pair((n,), dtype)
    same(cp.diag(x, k), np.diag(h, k))
    same(cp.diag(x[::-1], k=k), np.diag(h[::-1], k=k))
    same(cp.diagflat(x, k), np.diagflat(h, k))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (3, 5), (4, 2)])
@pytest.mark.parametrize("k", [-4, -1, 0, 1, 3])
def test_diag_of_2d(dtype, shape, k):
    x, h = pair(shape, dtype)
    same(cp.diag(x, k), np.diag(h, k))
    same(cp.diag(x.T, k), np.diag(h.T, k))
    same(cp.diagflat(x, k), np.diagflat(h, k))


def test_diag_of_lists_scalars_and_bad_ndim():
    same(cp.diag([1, 2, 3], 1), np.diag([1, 2, 3], 1))
    same(cp.diagflat(2.5, -1), np.diagflat(2.5, -1))
    same(cp.diagflat([[1, 2], [3, 4]]), np.diagflat([[1, 2], [3, 4]]))
    for shape in [(), (2, 2, 2)]:
        same_error(lambda s=shape: cp.diag(cp.ones(s)), lambda s=shape: np.diag(np.ones(s)))
    # NumPy's own diag dispatches to cuprum's for a device array
    x, h = pair((4,), np.float64)
    same(np.diag(x, 1), np.diag(h, 1))


# ---------------------------------------------------------------------------- tri


@pytest.mark.parametrize("N,M,k", [(3, None, 0), (4, 6, -1), (5, 2, 2), (0, 3, 0), (3, 0, 1)])
@pytest.mark.parametrize("dtype", [float, np.float32, np.int32, bool, np.complex64, None])
def test_tri(N, M, k, dtype):
    same(cp.tri(N, M, k, dtype=dtype), np.tri(N, M, k, dtype=dtype))
    same(cp.tri(N, M=M, k=k), np.tri(N, M=M, k=k))


# ---------------------------------------------------------------------------- rot90


@pytest.mark.parametrize("shape", [(2, 3), (1, 1), (0, 4), (2, 3, 4)])
@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 7])
def test_rot90(shape, k):
    x, h = pair(shape, np.float32)
    same(cp.rot90(x, k), np.rot90(h, k))
    same(cp.rot90(x, k, axes=(1, 0)), np.rot90(h, k, axes=(1, 0)))
    if len(shape) == 3:
        for axes in [(0, 2), (2, 1), (-1, 0), [1, -3]]:
            same(cp.rot90(x, k, axes), np.rot90(h, k, axes))


@pytest.mark.parametrize(
    "shape,axes",
    [((3,), (0, 1)), ((), (0, 1)), ((2, 2), (0,)), ((2, 2), (0, 1, 2)), ((2, 2), (0, 0))]
    + [((2, 2), (0, -2)), ((2, 2), (1, 3)), ((2, 2, 2), (0, 3)), ((2, 2, 2), (-4, 0))],
)
def test_rot90_errors(shape, axes):
    same_error(
        lambda: cp.rot90(cp.ones(shape), axes=axes), lambda: np.rot90(np.ones(shape), axes=axes)
    )


# ---------------------------------------------------------------------------- index helpers


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 3, 3), (0, 0), (2, 2, 2, 2)])
def test_diag_indices_from(shape):
    x, h = pair(shape, np.int64)
    got, want = cp.diag_indices_from(x), np.diag_indices_from(h)
    same(list(got), list(want))
    same(x[got], h[want])


def test_diag_indices_from_errors():
    for shape in [(3,), ()]:
        same_error(
            lambda s=shape: cp.diag_indices_from(cp.ones(s)),
            lambda s=shape: np.diag_indices_from(np.ones(s)),
        )
    for shape in [(2, 3), (3, 3, 2)]:
        same_error(
            lambda s=shape: cp.diag_indices_from(cp.ones(s)),
            lambda s=shape: np.diag_indices_from(np.ones(s)),
        )


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("k", [-2, 0, 1])
def test_mask_indices(n, k):
    same(list(cp.mask_indices(n, cp.triu, k)), list(np.mask_indices(n, np.triu, k)))
    same(list(cp.mask_indices(n, cp.tril, k=k)), list(np.mask_indices(n, np.tril, k=k)))
    x, h = pair((n, n), np.float64)
    same(x[cp.mask_indices(n, cp.triu, k)], h[np.mask_indices(n, np.triu, k)])


# ---------------------------------------------------------------------------- splits


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64])
@pytest.mark.parametrize("sections", [1, 2, [1, 3], [], [0, 5]])
def test_hsplit_vsplit_dsplit(dtype, sections):
    x, h = pair((4, 4, 4), dtype)
    same(cp.hsplit(x, sections), np.hsplit(h, sections))
    same(cp.vsplit(x, sections), np.vsplit(h, sections))
    same(cp.dsplit(x, sections), np.dsplit(h, sections))
    v, hv = pair((4,), dtype)
    same(cp.hsplit(v, sections), np.hsplit(hv, sections))
    m, hm = pair((4, 2), dtype)
    same(cp.vsplit(m, sections), np.vsplit(hm, sections))
    e, he = pair((0, 4), dtype)
    same(cp.hsplit(e, sections), np.hsplit(he, sections))


def test_hsplit_vsplit_dsplit_errors():
    same_error(lambda: cp.hsplit(cp.ones(()), 1), lambda: np.hsplit(np.ones(()), 1))
    same_error(lambda: cp.vsplit(cp.ones(4), 2), lambda: np.vsplit(np.ones(4), 2))
    same_error(lambda: cp.dsplit(cp.ones((2, 2)), 2), lambda: np.dsplit(np.ones((2, 2)), 2))
    msg = "array split does not result in an equal division"
    with pytest.raises(ValueError, match=msg):
        cp.hsplit(cp.ones((2, 3)), 2)
    with pytest.raises(ValueError, match=msg):
        cp.dsplit(cp.ones((2, 2, 3)), 2)


# ---------------------------------------------------------------------------- unique_*


def _with_nans(h):
    if h.dtype.kind in "fc" and h.size > 2:
        h = h.copy()
        h.flat[0] = h.flat[-1] = np.nan
    return h


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (), (9,), (3, 4), (0, 3)])
def test_unique_array_api(dtype, shape):
    h = data(shape, dtype)
    if h.size > 2:
        h.flat[1] = h.flat[-2]  # a repeat at least
    h = _with_nans(h)
    x = cp.asarray(h)
    got, want = cp.unique_all(x), np.unique_all(h)
    assert type(got).__name__ == "UniqueAllResult" and got._fields == want._fields
    same(got.values, want.values)
    same(got.indices, want.indices)
    same(got.inverse_indices, want.inverse_indices)
    same(got.counts, want.counts)
    got, want = cp.unique_counts(x), np.unique_counts(h)
    assert type(got).__name__ == "UniqueCountsResult" and got._fields == want._fields
    same(tuple(got), tuple(want))
    got, want = cp.unique_inverse(x), np.unique_inverse(h)
    assert type(got).__name__ == "UniqueInverseResult" and got._fields == want._fields
    same(tuple(got), tuple(want))
    # NumPy's unique_values leaves the order unspecified (hashed); cuprum's is sorted
    same(cp.unique_values(x), np.sort(np.unique_values(h)))


def test_unique_array_api_of_lists():
    same(tuple(cp.unique_counts([3, 1, 3])), tuple(np.unique_counts([3, 1, 3])))
    same(cp.unique_values([2.0, 2.0, 1.0]), np.sort(np.unique_values([2.0, 2.0, 1.0])))


# ---------------------------------------------------------------------------- broadcast


@pytest.mark.parametrize(
    "shapes",
    [[(2, 1), (3,)], [(4, 1, 3), (1, 5, 1), ()], [(0, 3), (1, 3)], [(1,)], [(2, 3)] * 3, []],
)
def test_broadcast(shapes):
    hs = [data(s, np.float64) for s in shapes]
    xs = [cp.asarray(h) for h in hs]
    got, want = cp.broadcast(*xs), np.broadcast(*hs)
    assert got.shape == want.shape
    assert got.nd == got.ndim == want.ndim
    assert got.size == want.size
    assert got.numiter == want.numiter
    assert isinstance(got.values, tuple)
    same(list(got.values), list(np.broadcast_arrays(*hs)))


def test_broadcast_scalars_nesting_and_errors():
    b = cp.broadcast(cp.ones((2, 1)), 5, [1, 2, 3])
    assert (b.shape, b.numiter) == ((2, 3), 3)
    same(list(b.values), np.broadcast_arrays(np.ones((2, 1)), 5, [1, 2, 3]))
    nested = cp.broadcast(b, cp.ones(1))
    want = np.broadcast(np.broadcast(np.ones((2, 1)), 5, [1, 2, 3]), np.ones(1))
    assert (nested.shape, nested.numiter) == (want.shape, want.numiter)
    same_error(
        lambda: cp.broadcast(cp.ones(2), cp.ones(3)),
        lambda: np.broadcast(np.ones(2), np.ones(3)),
    )
    same_error(lambda: cp.broadcast(*[1] * 65), lambda: np.broadcast(*[1] * 65))


# ---------------------------------------------------------------------------- r_, c_


def _index_cases(xp, a, m):
    """Subscripts of ``r_``/``c_`` with ``a`` (1-D float32) and ``m`` (2-D int64) of the
    module ``xp``'s arrays."""
    r, c = xp.r_, xp.c_
    return [
        lambda: r[a, 0, 7],
        lambda: r[a, 0, 7.5],
        lambda: r[a, np.float64(1)],
        lambda: r[a, 1j],
        lambda: r[1:10:2, [4, 5], 3],
        lambda: r[-1:1:6j, [0] * 3, 5, 6],
        lambda: r[:4],
        lambda: r[0.5:3:0.5],
        lambda: r[3],
        lambda: r[True, 2],
        lambda: r[m, m],
        lambda: r["-1", m, m],
        lambda: r["1", m, m[:, :1]],
        lambda: r["0,2", [1, 2, 3], [4, 5, 6]],
        lambda: r["0,2,0", [1, 2, 3], [4, 5, 6]],
        lambda: r["1,2,0", [1, 2, 3], [4, 5, 6]],
        lambda: r["0,3,1", m, m],
        lambda: r["0,2", a, 2:5],
        lambda: r["r", [1, 2, 3], [4, 5, 6]],
        lambda: r["c", [1, 2, 3], [4, 5, 6]],
        lambda: r["c", m, m],
        lambda: r[a[:0], 1],
        lambda: c[a, a],
        lambda: c[m, m],
        lambda: c[[1, 2, 3], [4, 5, 6], 0:3],
        lambda: c[m[:1], 0, 0, m[1:]],
        lambda: c[0:1:3j, 1:2:3j],
        lambda: c[a[:2], m[:, :2].T],
    ]


def test_r_and_c():
    ha = data((3,), np.float32)
    hm = data((2, 3), np.int64)
    got = _index_cases(cp, cp.asarray(ha), cp.asarray(hm))
    want = _index_cases(np, ha, hm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # NumPy's matrix
        for i, (g, w) in enumerate(zip(got, want)):
            r = g()
            assert isinstance(r, cp.ndarray), i
            same(r, np.asarray(w()))
    assert len(cp.r_) == len(cp.c_) == 0
    # host arrays and sequences of device arrays are joined too
    same(cp.r_[ha, cp.asarray(ha)], np.r_[ha, ha])


def test_r_and_c_errors():
    m = np.ones((2, 2))
    for key in [(m, "r"), ("1,", m), ("x", m), ("0,x", m)]:
        same_error(lambda k=key: cp.r_[k], lambda k=key: np.r_[k])
    same_error(lambda: cp.r_[()], lambda: np.r_[()])
    same_error(lambda: cp.r_["0,3", m, m, "r"], lambda: np.r_["0,3", m, m, "r"])
    same_error(
        lambda: cp.r_[cp.asarray(7, dtype=np.int8), 300],
        lambda: np.r_[np.asarray(7, np.int8), 300],
        OverflowError,
    )
    with pytest.raises(NotImplementedError):
        cp.r_["1 2; 3 4"]


# ---------------------------------------------------------------------------- complex ranges


@pytest.mark.parametrize(
    "start,stop",
    [(0, 1 + 1j), (-2.5j, 3), (1 + 2j, -4 - 1j), (np.complex64(1 - 1j), 2), (3j, 3j)],
)
@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_complex(start, stop, num, endpoint):
    got = cp.linspace(start, stop, num, endpoint=endpoint, retstep=True)
    want = np.linspace(start, stop, num, endpoint=endpoint, retstep=True)
    same(got[0], want[0])
    if np.isnan(want[1]):
        assert np.isnan(got[1])
    else:
        assert type(got[1]) is type(want[1])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    for dtype in [np.complex64, complex, float, np.float32]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            want = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
            same(cp.linspace(start, stop, num, endpoint=endpoint, dtype=dtype), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_of_arrays(dtype, axis):
    h0, h1 = data((3,), dtype), data((2, 1), dtype)
    x0, x1 = cp.asarray(h0), cp.asarray(h1)
    same(cp.linspace(x0, x1, 5, axis=axis), np.linspace(h0, h1, 5, axis=axis))
    same(cp.linspace(x0, 10, 4, endpoint=False), np.linspace(h0, 10, 4, endpoint=False))
    got, step = cp.linspace(x0, x1, 3, retstep=True)
    want, wstep = np.linspace(h0, h1, 3, retstep=True)
    same(got, want)
    same(step, wstep)
    same(cp.linspace([0, 1j], 2 + 2j, 3, axis=1), np.linspace([0, 1j], 2 + 2j, 3, axis=1))


def test_linspace_real_dtypes_and_errors():
    same(cp.linspace(0, 1, 5, dtype=complex), np.linspace(0, 1, 5, dtype=complex))
    same(cp.linspace(0.5, 2, 4, dtype=np.complex64), np.linspace(0.5, 2, 4, dtype=np.complex64))
    same(cp.linspace(-3, 9, 5, dtype=np.int32), np.linspace(-3, 9, 5, dtype=np.int32))
    same_error(lambda: cp.linspace(0, 1, -1), lambda: np.linspace(0, 1, -1))
    same_error(lambda: cp.linspace(0, 1j, -1), lambda: np.linspace(0, 1j, -1))
    same_error(lambda: cp.linspace(0, 1j, 2.5), lambda: np.linspace(0, 1j, 2.5), TypeError)
    same_error(
        lambda: cp.linspace(0, 1 + 1j, 3, dtype=int),
        lambda: np.linspace(0, 1 + 1j, 3, dtype=int),
        TypeError,
    )


@pytest.mark.parametrize(
    "args",
    [
        (0, 5 + 1j, 1),
        (5 + 2j,),
        (1j, 10 + 10j, 0.5 + 0.3j),
        (0, 10 + 20j, 2 + 3j),
        (-1 - 1j, 4 + 9j, 0.25 + 0.5j),
        (3 + 3j, 0, -0.5 - 0.5j),
        (1 + 1j, 4, 1),
        (0, 5 + 5j, 1 + 1j),
        (np.complex64(1 + 1j), 3.5),
        (cp.asarray(2j), 7 + 9j),
    ],
)
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # NumPy's complex64 case
def test_arange_complex(args):
    hargs = tuple(a.get()[()] if isinstance(a, cp.ndarray) else a for a in args)
    same(cp.arange(*args), np.arange(*hargs))
    same(cp.arange(*args, dtype=np.complex64), np.arange(*hargs, dtype=np.complex64))


@pytest.mark.parametrize("args", [(3,), (0.5, 7, 0.7), (5, -3, -1.5), (0, 0), (2, 1)])
@pytest.mark.parametrize("dtype", [complex, np.complex64, np.complex128])
def test_arange_complex_dtype_of_real_values(args, dtype):
    same(cp.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype))


def test_arange_complex_errors():
    nan, inf = float("nan"), float("inf")
    for args, cls in [
        ((1 + 1j, 1 + 1j, 0), ZeroDivisionError),
        ((0, 1j, 0j), ZeroDivisionError),
        ((0, complex(nan, 1), 1), ValueError),
        ((0, complex(inf, 1), 1), ValueError),
        ((0, complex(5, inf), 1), ValueError),
        ((0, 1e20 + 1e20j, 1), ValueError),
    ]:
        same_error(lambda a=args: cp.arange(*a), lambda a=args: np.arange(*a), cls)
    same_error(
        lambda: cp.arange(0, 3 + 1j, 1, dtype=float),
        lambda: np.arange(0, 3 + 1j, 1, dtype=float),
        TypeError,
    )


# ---------------------------------------------------------------------------- cov, corrcoef, unwrap


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128])
@pytest.mark.parametrize(
    "kw",
    [{}, {"bias": True}, {"ddof": 2}, {"rowvar": False}, {"fweights": True}, {"aweights": True}],
)
def test_cov_and_corrcoef_follow_numpy(dtype, kw):
    rng = np.random.default_rng(5)
    h = (rng.random((3, 7)) * 10).astype(dtype)
    if dtype == np.complex128:
        h = h + 1j * rng.random((3, 7))
    kw = dict(kw)
    if kw.pop("fweights", False):
        kw["fweights"] = rng.integers(1, 4, 7)
    if kw.pop("aweights", False):
        kw["aweights"] = rng.random(7) + 0.1
    dev = {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    same(cp.cov(cp.asarray(h), **dev), np.cov(h, **kw), rtol=1e-5)
    rowvar = kw.get("rowvar", True)
    same(cp.corrcoef(cp.asarray(h), rowvar=rowvar), np.corrcoef(h, rowvar=rowvar), rtol=1e-5)
    y = rng.random((2, 7))
    same(cp.cov(cp.asarray(h), cp.asarray(y)), np.cov(h, y), rtol=1e-5)
    same(cp.cov(cp.asarray(h[0])), np.cov(h[0]), rtol=1e-5)


def test_cov_errors_follow_numpy():
    x = cp.ones((2, 3))
    same_error(lambda: cp.cov(cp.ones((2, 2, 2))), lambda: np.cov(np.ones((2, 2, 2))))
    same_error(lambda: cp.cov(x, ddof=1.5), lambda: np.cov(np.ones((2, 3)), ddof=1.5))
    same_error(
        lambda: cp.cov(x, aweights=cp.asarray([1.0, -1.0, 1.0])),
        lambda: np.cov(np.ones((2, 3)), aweights=[1.0, -1.0, 1.0]),
    )
    same_error(
        lambda: cp.cov(x, fweights=cp.asarray([1.5, 1.0, 1.0])),
        lambda: np.cov(np.ones((2, 3)), fweights=[1.5, 1.0, 1.0]),
        TypeError,
    )


@pytest.mark.parametrize("period", [2 * np.pi, 6, 5.0])
def test_unwrap_follows_numpy(period):
    rng = np.random.default_rng(6)
    p = np.cumsum(rng.random((3, 20)) * 3, axis=1)
    w = np.mod(p, period)
    same(cp.unwrap(cp.asarray(w), period=period), np.unwrap(w, period=period))
    same(cp.unwrap(cp.asarray(w.T), axis=0, period=period), np.unwrap(w.T, axis=0, period=period))
    ints = np.array([0, 1, 2, 7, 8, 9, -3, 4])
    same(cp.unwrap(cp.asarray(ints), period=6), np.unwrap(ints, period=6))


def test_array_equiv_broadcasts():
    assert bool(cp.array_equiv(cp.ones(3), cp.ones((2, 3))))
    assert not bool(cp.array_equiv(cp.ones(3), cp.ones(4)))
    assert not bool(cp.array_equiv(cp.arange(3), cp.asarray([[0, 1, 2], [0, 1, 3]])))


@pytest.mark.parametrize("name", ["floor_divide", "fmod", "remainder", "true_divide", "power"])
def test_ufunc_dtype_is_the_loop_dtype(name):
    a = np.arange(6).reshape(2, 3)
    b = np.array([[0, 1, 0], [1, 0, 2]])
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b, dtype=np.float64)
        got = getattr(cp, name)(cp.asarray(a), cp.asarray(b), dtype=np.float64)
    same(got, want)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' input 0"):
        cp.add(cp.ones(2), cp.ones(2), dtype=np.int32)
    same(cp.float_power(cp.asarray(a), 2, dtype=np.float64), np.float_power(a, 2, dtype=np.float64))


# ---------------------------------------------------------------------------- quantile methods

METHODS = [
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint16])
def test_every_quantile_method_follows_numpy(method, dtype):
    rng = np.random.default_rng(8)
    a = (rng.random((6, 2, 5)) * 100).astype(dtype)
    a.flat[3] = a.flat[7]  # ties
    q = rng.random(4)
    for axis in (None, 1, (0, 2)):
        for qq in (q, 0.3, 0.0, 1.0):
            dq = cp.asarray(qq) if np.ndim(qq) else qq
            same(
                cp.quantile(cp.asarray(a), dq, axis=axis, method=method),
                np.quantile(a, qq, axis=axis, method=method),
            )
            same(
                cp.percentile(cp.asarray(a), dq * 100, axis=axis, method=method),
                np.percentile(a, qq * 100, axis=axis, method=method),
            )


def test_cumulative_functions_of_a_0d_array():
    for name in ("cumulative_sum", "cumulative_prod"):
        for inc in (False, True):
            same(
                getattr(cp, name)(cp.asarray(3.0), include_initial=inc),
                getattr(np, name)(np.asarray(3.0), include_initial=inc),
            )


def test_ravel_and_flatten_in_memory_order_keep_broadcast_axes_in_place():
    base = data((2, 3, 4), np.float64)
    views = [
        lambda xp, m: xp.broadcast_to(m[:, :1, 0], (3, 2, 4)),
        lambda xp, m: xp.broadcast_to(m[:1, :, :1], (5, 3, 4)).transpose(2, 0, 1),
        lambda xp, m: m.transpose(2, 0, 1),
        lambda xp, m: m.transpose(1, 0, 2)[:, :, 1:3],
        lambda xp, m: m[:, ::2, ::-1],
        lambda xp, m: m[:, :1, :].transpose(2, 1, 0),
    ]
    for view in views:
        want, got = view(np, base), view(cp, cp.asarray(base))
        np.testing.assert_array_equal(got.ravel("K").get(), want.ravel("K"))
        np.testing.assert_array_equal(got.flatten("K").get(), want.flatten("K"))
        assert got.ravel("K").flags.c_contiguous


def test_setxor1d_sinc_percentile_clip_follow_numpy():
    x, y = [3, 4, 9, 1, 5, 4], [8, 7, 3, 9, 0]
    got = cp.setxor1d(cp.asarray(x), cp.asarray(y), assume_unique=True)
    np.testing.assert_array_equal(got.get(), np.setxor1d(x, y, assume_unique=True))
    np.testing.assert_array_equal(
        cp.setxor1d(cp.asarray(x), cp.asarray(y)).get(), np.setxor1d(x, y)
    )
    for dt in (np.float16, np.float32, np.float64):
        z = np.array([0.0, 0.5, -1.5], dtype=dt)
        got = cp.sinc(cp.asarray(z))
        assert got.dtype == dt and float(got[0]) == 1.0
        np.testing.assert_allclose(got.get(), np.sinc(z), rtol=2e-3)
    a = RNG.integers(0, 100, (1, 6, 3, 2)).astype(np.int8)
    q = np.array([10, 50, 90], dtype=np.int8)
    got = cp.percentile(cp.asarray(a), cp.asarray(q), axis=(0, 1, 2))
    want = np.percentile(a, q, axis=(0, 1, 2))
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.get(), want)
    m = data((2, 3), np.float32)
    got = cp.asarray(m).clip(None, None)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.get(), m)
    np.testing.assert_array_equal(cp.clip(cp.asarray(m), None, None).get(), m)


def test_nan_to_num_place_putmask_reshape_repeat_errors():
    x = cp.asarray([0.0, 1.0, np.nan, 4.0])
    with pytest.raises(ValueError, match=r"from shape \(2,4\) into shape \(4,\)"):
        cp.nan_to_num(x, nan=cp.zeros((2, 4)))
    np.testing.assert_array_equal(cp.nan_to_num(x, nan=cp.full(4, 7.0)).get(), [0, 1, 7, 4])
    with pytest.raises(ValueError, match="place: mask and data must be the same size"):
        cp.place(cp.zeros((4, 3, 2)), cp.ones((3, 4), dtype=bool), cp.ones(1))
    a = cp.zeros(3, dtype=cp.int32)
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        cp.putmask(a, a == 0, cp.ones(3))
    cp.putmask(a, a == 0, cp.ones(3, dtype=cp.int16))
    np.testing.assert_array_equal(a.get(), [1, 1, 1])
    z = cp.zeros((2, 3, 4))
    with pytest.raises(ValueError, match="strings are not allowed for 'copy' keyword"):
        z.reshape(4, 3, 2, copy="False")
    with pytest.raises(ValueError, match="order 'K' is not permitted for reshaping"):
        z.reshape(24, order="K")
    assert z.reshape(4, 6, copy=True).shape == (4, 6)
    with pytest.raises(ValueError, match="same length"):
        cp.repeat(cp.arange(4), cp.asarray([1, 2]), axis=0)
    u = cp.linspace(-2, 4, 6, dtype=cp.uint8)  # computed in floats and cast, as NumPy
    assert u.dtype == np.uint8 and u.shape == (6,)


def test_ascontiguousarray_and_asarray_return_the_array_itself():
    a = cp.arange(24.0).reshape(2, 3, 4)
    assert cp.ascontiguousarray(a) is a
    t = a.T
    assert cp.asfortranarray(t) is t
    assert cp.ascontiguousarray(a.T) is not a
    assert cp.ascontiguousarray(cp.ones(())).shape == (1,)
    assert cp.asfortranarray(cp.ones(())).shape == (1,)

    class Wrapper:
        def __init__(self, x):
            self.x = x

        def __cupy_get_ndarray__(self):
            return self.x

    assert cp.asarray(Wrapper(a)) is a


def test_linspace_with_a_step_that_underflows_scales_as_numpy():
    tiny = 5e-324  # the smallest subnormal double: (stop - start) / 9 is 0
    np.testing.assert_array_equal(cp.linspace(0.0, tiny, 10).get(), np.linspace(0.0, tiny, 10))
