"""NumPy's routines on cuprum arrays (``python/cuprum/_routines.py`` over ``routines.rs``)
against NumPy on random inputs: values, shapes and result dtypes, odd shapes (0-d, empty,
one element, non-contiguous views), NumPy's errors, the ``ndarray`` methods, and NumPy's
functions dispatching to cuprum's (``__array_function__``)."""

import warnings

import numpy as np
import pytest
from compare import same

import cuprum as cp

RNG = np.random.default_rng(2024)
AxisError = np.exceptions.AxisError

INTS = [np.int32, np.int64]
FLOATS = [np.float32, np.float64]
REAL = INTS + FLOATS
ALL = [*REAL, np.bool_, np.complex64]


def data(shape, dtype, low=-50, high=50, scale=20.0):
    """Random values of ``dtype`` (integers in ``[low, high)``, floats of standard deviation
    ``scale``; never all zeros; bools both ways)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        x = RNG.random(n) < 0.5
        x[:1] = True
        x[1:][-1:] = False
    elif dtype.kind == "f":
        x = RNG.standard_normal(n) * scale
    elif dtype.kind == "c":
        x = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)) * scale
    elif dtype.kind == "u":
        x = RNG.integers(0, high, n)
    else:
        x = RNG.integers(low, high, n)
    x = np.asarray(x).astype(dtype).reshape(shape)
    if n and not x.any():
        x.flat[0] = 1
    return x


def pair(shape, dtype, **kw):
    h = data(shape, dtype, **kw)
    return cp.asarray(h), h


# ---------------------------------------------------------------------------- sorting


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((4, 6), 0), ((4, 6), 1), ((2, 3, 5), 1)])
def test_sort_argsort(dtype, shape, axis):
    x, h = pair(shape, dtype)
    same(cp.sort(x, axis=axis), np.sort(h, axis=axis))
    same(cp.sort(x, axis=None), np.sort(h, axis=None))
    same(cp.argsort(x, axis=axis), np.argsort(h, axis=axis, kind="stable"))
    same(x.argsort(axis=axis), h.argsort(axis=axis, kind="stable"))
    x.sort(axis=axis)  # in place
    h.sort(axis=axis)
    same(x, h)


def test_sort_odd_shapes_and_views():
    x, h = pair((6, 8), np.float64)
    same(cp.sort(x[:, ::2]), np.sort(h[:, ::2]))
    same(cp.sort(x.T, axis=0), np.sort(h.T, axis=0))
    same(cp.argsort(x.T), np.argsort(h.T, kind="stable"))
    v = x[:, ::2]
    v.sort()  # in place through a strided view
    hv = h[:, ::2]
    hv.sort()
    same(x, h)
    for shape in [(0,), (1,), (3, 0)]:
        y, g = pair(shape, np.int32)
        same(cp.sort(y), np.sort(g))
        same(cp.argsort(y), np.argsort(g))
    f = cp.asarray(np.array([3.0, np.nan, -1.0, 2.0]))
    same(cp.sort(f), np.sort(f.get()))
    with pytest.raises(AxisError):
        cp.sort(x, axis=2)
    with pytest.raises(AxisError):
        x.sort(axis=-3)
    with pytest.raises(NotImplementedError):
        cp.sort(x, order="f")


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    a = np.sort(data((20,), dtype, low=-10, high=10))
    v = data((3, 4), dtype, low=-12, high=12)
    same(cp.searchsorted(cp.asarray(a), cp.asarray(v), side=side), np.searchsorted(a, v, side))
    unsorted = data((20,), dtype)
    order = np.argsort(unsorted, kind="stable")
    same(
        cp.searchsorted(cp.asarray(unsorted), cp.asarray(v), side, sorter=cp.asarray(order)),
        np.searchsorted(unsorted, v, side, sorter=order),
    )
    got = cp.searchsorted(cp.asarray(a), a[3])
    assert int(got) == np.searchsorted(a, a[3])
    with pytest.raises(ValueError):
        cp.searchsorted(cp.asarray(a), cp.asarray(v), side="middle")


# ---------------------------------------------------------------------------- scans, differences


@pytest.mark.parametrize("dtype", [*ALL, np.int8, np.uint32])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_cumsum_cumprod(dtype, fn):
    x, h = pair((3, 4, 5), dtype, low=-3, high=4, scale=1.0)
    f, g = getattr(cp, fn), getattr(np, fn)
    same(f(x), g(h))
    for axis in (0, 1, 2, -1):
        same(f(x, axis=axis), g(h, axis=axis))
        same(getattr(x, fn)(axis=axis), getattr(h, fn)(axis=axis))
    same(f(x[:, ::2].T, axis=1), g(h[:, ::2].T, axis=1))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    same(f(x, axis=1, dtype=wide), g(h, axis=1, dtype=wide))
    with pytest.raises(AxisError):
        f(x, axis=3)


def test_cumsum_out_and_odd_shapes():
    x, h = pair((4, 5), np.float32)
    out = cp.empty((4, 5), np.float32)
    assert cp.cumsum(x, axis=0, out=out) is out
    same(out, np.cumsum(h, axis=0))
    assert x.cumprod(axis=1, out=out) is out
    same(out, np.cumprod(h, axis=1))
    for shape in [(), (0,), (1,), (2, 0)]:
        y, g = pair(shape, np.int32)
        same(cp.cumsum(y), np.cumsum(g))
    with pytest.raises(NotImplementedError):
        cp.cumsum(x, axis=(0, 1))


@pytest.mark.parametrize("dtype", [*REAL, np.bool_, np.complex128])
def test_diff(dtype):
    x, h = pair((4, 7), dtype)
    same(cp.diff(x), np.diff(h))
    same(cp.diff(x, axis=0), np.diff(h, axis=0))
    same(cp.diff(x, n=2, axis=1), np.diff(h, n=2, axis=1))
    same(cp.diff(x, n=0), np.diff(h, n=0))
    same(cp.diff(x.T), np.diff(h.T))
    same(cp.diff(x, n=9), np.diff(h, n=9))


def test_diff_prepend_append_and_errors():
    x, h = pair((3, 5), np.int64)
    same(cp.diff(x, prepend=0), np.diff(h, prepend=0))
    p = data((3, 1), np.int64)
    same(cp.diff(x, append=cp.asarray(p)), np.diff(h, append=p))
    with pytest.raises(ValueError):
        cp.diff(cp.asarray(np.float64(3.0)))
    with pytest.raises(ValueError):
        cp.diff(x, n=-1)
    with pytest.raises(AxisError):
        cp.diff(x, axis=2)


# ---------------------------------------------------------------------------- rearranging


@pytest.mark.parametrize("dtype", ALL)
def test_flip(dtype):
    x, h = pair((3, 4, 2), dtype)
    same(cp.flip(x), np.flip(h))
    for axis in (0, 1, -1, (0, 2)):
        same(cp.flip(x, axis), np.flip(h, axis))
    same(cp.fliplr(x), np.fliplr(h))
    same(cp.flipud(x), np.flipud(h))
    same(cp.flip(x[:, ::2], 1), np.flip(h[:, ::2], 1))
    z, g = pair((), dtype)
    same(cp.flip(z), np.flip(g))
    with pytest.raises(AxisError):
        cp.flip(x, 3)
    with pytest.raises(ValueError):
        cp.fliplr(cp.asarray(data((3,), dtype)))
    with pytest.raises(ValueError):
        cp.flipud(z)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_])
def test_roll(dtype):
    x, h = pair((3, 5), dtype)
    for shift, axis in [(2, None), (-7, None), (1, 0), (3, 1), (-1, -1), ((1, 2), (0, 1))]:
        same(cp.roll(x, shift, axis), np.roll(h, shift, axis))
    same(cp.roll(x, (1, 2), 1), np.roll(h, (1, 2), 1))
    same(cp.roll(x.T, 2, 0), np.roll(h.T, 2, 0))
    e, g = pair((0,), dtype)
    same(cp.roll(e, 3), np.roll(g, 3))
    with pytest.raises(AxisError):
        cp.roll(x, 1, 2)


@pytest.mark.parametrize("dtype", ALL)
def test_repeat(dtype):
    x, h = pair((2, 3), dtype)
    same(cp.repeat(x, 2), np.repeat(h, 2))
    same(cp.repeat(x, 2, axis=1), np.repeat(h, 2, axis=1))
    same(cp.repeat(x, [1, 0, 3], axis=1), np.repeat(h, [1, 0, 3], axis=1))
    same(x.repeat([2, 1], axis=0), h.repeat([2, 1], axis=0))
    same(cp.repeat(x.T, 3, axis=0), np.repeat(h.T, 3, axis=0))
    same(cp.repeat(x, cp.asarray([1, 2, 0]), axis=1), np.repeat(h, [1, 2, 0], axis=1))
    z, g = pair((), dtype)
    same(cp.repeat(z, 3), np.repeat(g, 3))
    with pytest.raises(ValueError):
        cp.repeat(x, -1)
    with pytest.raises(ValueError):
        cp.repeat(x, [1, 2], axis=1)
    with pytest.raises(AxisError):
        cp.repeat(x, 2, axis=2)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64, np.bool_])
def test_tile(dtype):
    x, h = pair((2, 3), dtype)
    for reps in [2, (2, 1), (1, 2), (2, 1, 3), (0, 2)]:
        same(cp.tile(x, reps), np.tile(h, reps))
    same(cp.tile(x[:, ::2], 2), np.tile(h[:, ::2], 2))
    z, g = pair((), dtype)
    same(cp.tile(z, 3), np.tile(g, 3))
    with pytest.raises(ValueError):
        cp.tile(x, -1)


# ---------------------------------------------------------------------------- counting


@pytest.mark.parametrize("dtype", REAL)
def test_histogram(dtype):
    x, h = pair((50,), dtype)
    # float32 data: NumPy spaces the edges in float32 arithmetic and divides densities by
    # float32 widths; cuprum's may differ in the last bits of a float32
    tol = 1e-5 if dtype == np.float32 else None
    same(cp.histogram(x), np.histogram(h), tol)
    same(cp.histogram(x, bins=7, range=(-20, 20)), np.histogram(h, bins=7, range=(-20, 20)), tol)
    edges = np.array([-60.0, -5.0, 0.0, 3.0, 60.0])
    same(cp.histogram(x, bins=cp.asarray(edges)), np.histogram(h, bins=edges))
    same(cp.histogram(x, bins=5, density=True), np.histogram(h, bins=5, density=True), tol)
    view = h.reshape(5, 10)[:, ::2]
    same(cp.histogram(x.reshape(5, 10)[:, ::2]), np.histogram(view), tol)
    same(cp.histogram(x, bins=5, weights=x), np.histogram(h, bins=5, weights=h), tol)
    with pytest.raises(NotImplementedError):
        cp.histogram(x, bins="auto")
    with pytest.raises(ValueError):
        cp.histogram(x, bins=0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_bincount(dtype):
    x, h = pair((40,), dtype, low=0, high=9)
    same(cp.bincount(x), np.bincount(h))
    same(cp.bincount(x, minlength=15), np.bincount(h, minlength=15))
    w = data((40,), np.float32)
    same(cp.bincount(x, weights=cp.asarray(w)), np.bincount(h, weights=w))
    e, g = pair((0,), dtype)
    same(cp.bincount(e), np.bincount(g))
    with pytest.raises(ValueError):
        cp.bincount(cp.asarray(np.array([1, -1, 2])))
    with pytest.raises(ValueError):
        cp.bincount(x, minlength=-1)
    with pytest.raises(TypeError):
        cp.bincount(cp.asarray(np.array([1.0, 2.0])))


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("invert", [False, True])
def test_isin(dtype, invert):
    x, h = pair((4, 5), dtype, low=-5, high=5)
    t = data((6,), dtype, low=-5, high=5)
    same(cp.isin(x, cp.asarray(t), invert=invert), np.isin(h, t, invert=invert))
    same(cp.isin(x.T, cp.asarray(t[::2])), np.isin(h.T, t[::2]))
    same(cp.isin(x, cp.asarray(t[:0])), np.isin(h, t[:0]))


# ---------------------------------------------------------------------------- order statistics


@pytest.mark.parametrize("dtype", [*REAL, np.int8])
def test_median(dtype):
    x, h = pair((4, 7), dtype)
    same(cp.median(x), np.median(h))
    for axis in (0, 1, -1):
        same(cp.median(x, axis=axis), np.median(h, axis=axis))
        same(cp.median(x, axis=axis, keepdims=True), np.median(h, axis=axis, keepdims=True))
    same(cp.median(x[:, ::2].T, axis=1), np.median(h[:, ::2].T, axis=1))
    o, g = pair((1,), dtype)
    same(cp.median(o), np.median(g))
    with pytest.raises(AxisError):
        cp.median(x, axis=2)
    same(cp.median(x, axis=(0, 1)), np.median(h, axis=(0, 1)))


@pytest.mark.parametrize("dtype", REAL)
def test_quantile_percentile(dtype):
    x, h = pair((5, 6), dtype)
    for q in [0.5, 0.0, 1.0, [0.25, 0.75]]:
        same(cp.quantile(x, q), np.quantile(h, q))
        same(cp.quantile(x, q, axis=1), np.quantile(h, q, axis=1))
        same(cp.quantile(x, q, axis=0, keepdims=True), np.quantile(h, q, axis=0, keepdims=True))
        p = q * 100 if isinstance(q, float) else [v * 100 for v in q]
        same(cp.percentile(x, p), np.percentile(h, p))
        same(cp.percentile(x.T, p, axis=-1), np.percentile(h.T, p, axis=-1))
    qa = np.array([0.1, 0.9])
    same(cp.quantile(x, cp.asarray(qa), axis=0), np.quantile(h, qa, axis=0))
    with pytest.raises(ValueError):
        cp.quantile(x, 1.5)
    with pytest.raises(ValueError):
        cp.percentile(x, -1)
    same(cp.quantile(x, 0.5, method="weibull"), np.quantile(h, 0.5, method="weibull"))
    with pytest.raises(ValueError, match="is not a valid method"):
        cp.quantile(x, 0.5, method="nope")
    with pytest.raises(AxisError):
        cp.percentile(x, 50, axis=3)


# ---------------------------------------------------------------------------- indexing


@pytest.mark.parametrize("dtype", ALL)
def test_take(dtype):
    x, h = pair((4, 5), dtype)
    i = np.array([[0, 3], [-1, 2]])
    same(cp.take(x, cp.asarray(i)), np.take(h, i))
    same(cp.take(x, [1, 4, 0], axis=1), np.take(h, [1, 4, 0], axis=1))
    same(x.take(cp.asarray(i), axis=0), h.take(i, axis=0))
    same(cp.take(x.T, [0, 2], axis=0), np.take(h.T, [0, 2], axis=0))
    same(cp.take(x, [7, -9], axis=1, mode="wrap"), np.take(h, [7, -9], axis=1, mode="wrap"))
    same(cp.take(x, [7, -9], axis=1, mode="clip"), np.take(h, [7, -9], axis=1, mode="clip"))
    same(cp.take(x, 3), np.take(h, 3))
    out = cp.empty((2, 2), dtype)
    assert cp.take(x, cp.asarray(i), out=out) is out
    same(out, np.take(h, i))
    with pytest.raises(IndexError):
        cp.take(x, [20])
    with pytest.raises(AxisError):
        cp.take(x, [0], axis=2)
    with pytest.raises(ValueError):
        cp.take(x, [0], mode="bad")


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64])
def test_put(dtype):
    x, h = pair((3, 4), dtype)
    cp.put(x, [0, 5, -1], cp.asarray(data((3,), dtype)[:1]).repeat(3))
    np.put(h, [0, 5, -1], x.get().flat[[0, 5, -1]])
    same(x, h)
    cp.put(x, cp.asarray([1, 2]), 7)
    np.put(h, [1, 2], 7)
    same(x, h)
    x.put([20, -20], 3, mode="clip")
    h.put([20, -20], 3, mode="clip")
    same(x, h)
    x.put([13], 5, mode="wrap")
    h.put([13], 5, mode="wrap")
    same(x, h)
    with pytest.raises(IndexError):
        cp.put(x, [12], 1)
    with pytest.raises(TypeError):
        cp.put(h, [0], 1)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_])
def test_compress(dtype):
    x, h = pair((4, 5), dtype)
    c = np.array([True, False, True, True])
    same(cp.compress(cp.asarray(c), x, axis=0), np.compress(c, h, axis=0))
    same(cp.compress(c[:3], x), np.compress(c[:3], h))
    same(x.compress(c, axis=1), h.compress(c, axis=1))
    same(cp.compress(c, x.T, axis=0), np.compress(c, h.T, axis=0))
    with pytest.raises(AxisError):
        cp.compress(c, x, axis=2)


@pytest.mark.parametrize("dtype", ALL)
def test_nonzero_family(dtype):
    for shape in [(9,), (3, 4), (2, 3, 4), (0,), (1,)]:
        x, h = pair(shape, dtype, low=-2, high=2)
        same(cp.nonzero(x), np.nonzero(h))
        same(x.nonzero(), h.nonzero())
        same(cp.flatnonzero(x), np.flatnonzero(h))
        same(cp.argwhere(x), np.argwhere(h))
    x, h = pair((4, 6), dtype, low=-2, high=2)
    same(cp.nonzero(x[:, ::2]), np.nonzero(h[:, ::2]))
    same(cp.argwhere(x.T), np.argwhere(h.T))
    z, g = pair((), dtype)
    same(cp.argwhere(z), np.argwhere(g))
    with pytest.raises(ValueError):
        cp.nonzero(z)


@pytest.mark.parametrize("dtype", [*REAL, np.bool_, np.complex64])
def test_unique(dtype):
    x, h = pair((5, 6), dtype, low=-4, high=4)
    same(cp.unique(x), np.unique(h))
    got = cp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    same(got, want)
    same(cp.unique(x, return_counts=True), np.unique(h, return_counts=True))
    same(cp.unique(x.T[::2]), np.unique(h.T[::2]))
    e, g = pair((0,), dtype)
    same(cp.unique(e), np.unique(g))


def test_unique_of_a_large_integer_array():
    # 2^20 elements or more: the distinct values are gathered by a hash table
    h = np.random.default_rng(5).integers(-5000, 5000, size=(1 << 20) + 3).astype(np.int64)
    same(cp.unique(cp.asarray(h)), np.unique(h))
    same(cp.unique(cp.asarray(h[::3])), np.unique(h[::3]))


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_unique_axis(dtype):
    h = data((3, 4), dtype, low=0, high=2)
    h = np.concatenate([h, h[:2]], axis=0)
    x = cp.asarray(h)
    for axis in (0, 1, -1):
        got = cp.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True)
        want = np.unique(h, axis=axis, return_index=True, return_inverse=True, return_counts=True)
        same(got, want)
    with pytest.raises(AxisError):
        cp.unique(x, axis=2)


@pytest.mark.parametrize("dtype", [*FLOATS, np.int64, np.complex128])
def test_isclose(dtype):
    x, h = pair((4, 5), dtype)
    noise = data((4, 5), np.float64) * 1e-6
    y = (h + noise.astype(h.dtype) * (np.abs(h) + 1)).astype(dtype)
    for kw in [{}, {"rtol": 1e-9, "atol": 0.0}, {"atol": 1.0}]:
        same(cp.isclose(x, cp.asarray(y), **kw), np.isclose(h, y, **kw))
    same(cp.isclose(x, 3), np.isclose(h, 3))
    same(cp.isclose(3.0, x), np.isclose(3.0, h))
    same(cp.isclose(x.T, cp.asarray(y.T)), np.isclose(h.T, y.T))
    if np.dtype(dtype).kind == "f":
        n = np.array([np.nan, 1.0, np.inf], dtype)
        same(cp.isclose(cp.asarray(n), cp.asarray(n)), np.isclose(n, n))
        same(
            cp.isclose(cp.asarray(n), cp.asarray(n), equal_nan=True),
            np.isclose(n, n, equal_nan=True),
        )


# ---------------------------------------------------------------------------- joining, splitting


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_])
def test_stack_vstack_hstack(dtype):
    a, ha = pair((3, 4), dtype)
    b, hb = pair((3, 4), dtype)
    for axis in (0, 1, 2, -1):
        same(cp.stack([a, b], axis=axis), np.stack([ha, hb], axis=axis))
    same(cp.stack((a.T, b.T)), np.stack((ha.T, hb.T)))
    same(cp.vstack([a, b]), np.vstack([ha, hb]))
    same(cp.hstack([a, b]), np.hstack([ha, hb]))
    v, hv = pair((4,), dtype)
    same(cp.vstack([v, v]), np.vstack([hv, hv]))
    same(cp.hstack([v, v[:2]]), np.hstack([hv, hv[:2]]))
    same(cp.vstack([a, v]), np.vstack([ha, hv]))
    z, hz = pair((), dtype)
    same(cp.hstack([z, z]), np.hstack([hz, hz]))
    same(cp.stack([a, b], dtype=np.float64), np.stack([ha, hb], dtype=np.float64))
    with pytest.raises(ValueError):
        cp.stack([a, v])
    with pytest.raises(AxisError):
        cp.stack([a, b], axis=3)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_split_array_split(dtype):
    x, h = pair((6, 4), dtype)
    for how, axis in [(3, 0), (2, 1), ([1, 4], 0), ([1, -1], 1), ([5, 2], 0), ([], 0)]:
        same(cp.split(x, how, axis=axis), np.split(h, how, axis=axis))
        same(cp.array_split(x, how, axis=axis), np.array_split(h, how, axis=axis))
    same(cp.array_split(x, 4), np.array_split(h, 4))
    same(cp.array_split(x.T, 3, axis=1), np.array_split(h.T, 3, axis=1))
    with pytest.raises(ValueError):
        cp.split(x, 4)
    with pytest.raises(ValueError):
        cp.array_split(x, 0)


# ---------------------------------------------------------------------------- matrices


@pytest.mark.parametrize("dtype", [*REAL, np.bool_, np.complex64])
def test_matrix_routines(dtype):
    x, h = pair((4, 5), dtype)
    for k in (-2, 0, 1, 7):
        same(cp.tril(x, k), np.tril(h, k))
        same(cp.triu(x, k=k), np.triu(h, k=k))
        same(cp.diagonal(x, k), np.diagonal(h, k))
        same(x.diagonal(offset=-k), h.diagonal(offset=-k))
    t, ht = pair((3, 4, 5), dtype)
    same(cp.tril(t), np.tril(ht))
    same(cp.diagonal(t, 1, 0, 2), np.diagonal(ht, 1, 0, 2))
    same(cp.triu(x[:, ::2]), np.triu(h[:, ::2]))
    same(cp.trace(x), np.trace(h))
    same(cp.trace(t, -1, 2, 1), np.trace(ht, -1, 2, 1))
    same(x.trace(offset=1), h.trace(offset=1))
    same(cp.trace(x, dtype=np.complex128), np.trace(h, dtype=np.complex128))
    v, hv = pair((3,), dtype)
    same(cp.tril(v), np.tril(hv))
    same(cp.outer(v, x), np.outer(hv, h))
    with pytest.raises(ValueError):
        cp.diagonal(v)
    with pytest.raises(AxisError):
        cp.trace(t, 0, 0, 3)


# ---------------------------------------------------------------------------- shapes


def test_shape_routines():
    x, h = pair((1, 3, 1, 4), np.float32)
    same(cp.squeeze(x), np.squeeze(h))
    for axis in (0, 2, -2, (0, 2)):
        same(cp.squeeze(x, axis), np.squeeze(h, axis))
    with pytest.raises(ValueError):
        cp.squeeze(x, 1)
    with pytest.raises(AxisError):
        cp.squeeze(x, 4)
    y, g = pair((3, 4), np.int32)
    for axis in (0, 2, -1, (0, 3), (1, -1)):
        same(cp.expand_dims(y, axis), np.expand_dims(g, axis))
    with pytest.raises(AxisError):
        cp.expand_dims(y, 3)
    with pytest.raises(ValueError):
        cp.expand_dims(y, (1, 1))
    same(cp.swapaxes(x, 1, 3), np.swapaxes(h, 1, 3))
    same(y.swapaxes(0, -1), g.swapaxes(0, -1))
    with pytest.raises(AxisError):
        cp.swapaxes(y, 0, 2)
    t, ht = pair((2, 3, 4, 5), np.int64)
    for s, d in [(0, -1), (-1, 0), ((0, 1), (-1, -2)), ((3, 1), (0, 2)), ([], [])]:
        same(cp.moveaxis(t, s, d), np.moveaxis(ht, s, d))
    with pytest.raises(AxisError):
        cp.moveaxis(t, 4, 0)
    with pytest.raises(ValueError):
        cp.moveaxis(t, (0, 1), (2,))
    with pytest.raises(ValueError):
        cp.moveaxis(t, (0, 0), (1, 2))
    r, hr = pair((3,), np.float64)
    for shape in [(3,), (2, 3), (4, 1, 3)]:
        same(cp.broadcast_to(r, shape), np.broadcast_to(hr, shape))
    same(cp.broadcast_to(cp.asarray(np.float64(2.5)), 4), np.broadcast_to(2.5, 4))
    with pytest.raises(ValueError):
        cp.broadcast_to(r, (2, 4))


def test_atleast():
    for shape in [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        x, h = pair(shape, np.int32)
        same(cp.atleast_1d(x), np.atleast_1d(h))
        same(cp.atleast_2d(x), np.atleast_2d(h))
        same(cp.atleast_3d(x), np.atleast_3d(h))
    a, ha = pair((2,), np.float64)
    b, hb = pair((), np.float64)
    same(cp.atleast_2d(a, b), np.atleast_2d(ha, hb))


# ---------------------------------------------------------------------------- NumPy's dispatch


def test_numpy_functions_dispatch_to_cuprum():
    x, h = pair((4, 6), np.float64)
    i, hi = pair((12,), np.int64, low=0, high=5)
    cases = [
        (np.sort(x), np.sort(h)),
        (np.argsort(x, axis=0), np.argsort(h, axis=0, kind="stable")),
        (np.cumsum(x, axis=1), np.cumsum(h, axis=1)),
        (np.cumprod(x), np.cumprod(h)),
        (np.diff(x), np.diff(h)),
        (np.flip(x, 0), np.flip(h, 0)),
        (np.repeat(x, 2, axis=0), np.repeat(h, 2, axis=0)),
        (np.tile(x, 2), np.tile(h, 2)),
        (np.roll(x, 3), np.roll(h, 3)),
        (np.median(x, axis=1), np.median(h, axis=1)),
        (np.quantile(x, 0.3), np.quantile(h, 0.3)),
        (np.percentile(x, [10, 90], axis=0), np.percentile(h, [10, 90], axis=0)),
        (np.take(x, [1, 2]), np.take(h, [1, 2])),
        (np.unique(i), np.unique(hi)),
        (np.bincount(i), np.bincount(hi)),
        (np.searchsorted(cp.sort(i), i), np.searchsorted(np.sort(hi), hi)),
        (np.isin(i, i[:3]), np.isin(hi, hi[:3])),
        (np.flatnonzero(i), np.flatnonzero(hi)),
        (np.argwhere(x > 0), np.argwhere(h > 0)),
        (np.isclose(x, x), np.isclose(h, h)),
        (np.stack([x, x]), np.stack([h, h])),
        (np.vstack([x, x]), np.vstack([h, h])),
        (np.hstack([x, x]), np.hstack([h, h])),
        (np.tril(x), np.tril(h)),
        (np.trace(x), np.trace(h)),
        (np.outer(i, i), np.outer(hi, hi)),
        (np.squeeze(x[None]), np.squeeze(h[None])),
        (np.expand_dims(x, 1), np.expand_dims(h, 1)),
        (np.swapaxes(x, 0, 1), np.swapaxes(h, 0, 1)),
        (np.moveaxis(x, 0, 1), np.moveaxis(h, 0, 1)),
        (np.broadcast_to(x[0], (2, 6)), np.broadcast_to(h[0], (2, 6))),
        (np.atleast_3d(x), np.atleast_3d(h)),
    ]
    for got, want in cases:
        same(got, want)
    same(np.nonzero(x > 0), np.nonzero(h > 0))
    same(np.split(x, 2), np.split(h, 2))
    same(np.histogram(x, bins=4), np.histogram(h, bins=4))


# ---------------------------------------------------------------------------- edge cases


def test_unique_nans_count_once():
    for h in [
        np.array([np.nan, 1.0, np.nan, 2.0, 1.0, np.nan]).reshape(2, 3),
        np.array([np.nan, 3.0, np.nan], np.float32),
        np.array([1 + np.nan * 1j, 2, np.nan + 0j, 2]),
    ]:
        x = cp.asarray(h)
        for equal_nan in (True, False):
            kw = {"return_index": True, "return_inverse": True, "return_counts": True}
            same(cp.unique(x, equal_nan=equal_nan, **kw), np.unique(h, equal_nan=equal_nan, **kw))
        same(np.unique(x), np.unique(h))


def test_zero_d_and_scalar_arguments():
    z, g = pair((), np.float64)
    same(cp.sort(z, axis=None), np.sort(g, axis=None))
    with pytest.raises(AxisError):
        cp.sort(z)
    same(cp.cumsum(z), np.cumsum(g))
    same(cp.cumsum(z, axis=0), np.cumsum(g, axis=0))
    same(z.cumprod(axis=-1), g.cumprod(axis=-1))
    with pytest.raises(AxisError):
        cp.cumsum(z, axis=1)
    same(cp.flatnonzero(z), np.flatnonzero(g))
    same(cp.take(z, 0), np.asarray(np.take(g, 0)))
    x, h = pair((7,), np.int32)
    f = cp.asarray(np.linspace(0, 1, 5, dtype=np.float32))
    same(cp.searchsorted(f, 0.5), np.asarray(np.searchsorted(f.get(), 0.5)))
    same(cp.isin(x, int(h[2])), np.isin(h, int(h[2])))
    same(cp.isclose(x, 3.5), np.isclose(h, 3.5))
    same(cp.isclose(x, int(h[0])), np.isclose(h, int(h[0])))
    cp.put(x, [0], 2.7)
    np.put(h, [0], 2.7)
    same(x, h)
    q = np.array([[0.1, 0.2], [0.5, 0.9]])
    same(cp.quantile(f, cp.asarray(q)), np.quantile(f.get(), q))


def test_numpy_and_list_inputs_give_cuprum_arrays():
    h = data((4, 5), np.float64)
    same(cp.sort(h), np.sort(h))
    same(cp.cumsum([1, 2, 3]), np.cumsum([1, 2, 3]))
    same(cp.stack([h, h]), np.stack([h, h]))
    same(cp.take(h, [0, 3]), np.take(h, [0, 3]))
    same(cp.repeat([1.5, 2.5], 2), np.repeat([1.5, 2.5], 2))


def test_ufuncs_of_scalars_only_give_0d_arrays():
    for got, want in [
        (cp.add(1, 2), np.add(1, 2)),
        (cp.divide(1, 2.0), np.divide(1, 2.0)),
        (cp.multiply(np.float32(2), 3), np.multiply(np.float32(2), 3)),
        (cp.sqrt(4.0), np.sqrt(4.0)),
        (cp.subtract(True, 2), np.subtract(True, 2)),
    ]:
        assert isinstance(got, cp.ndarray) and got.shape == ()
        assert got.dtype == np.asarray(want).dtype and got.item() == want


def test_reshape_in_fortran_order_and_float_power():
    a = np.arange(12.0).reshape(3, 4)
    x = cp.asarray(a)
    np.testing.assert_array_equal(x.reshape(2, 6, order="F").get(), a.reshape(2, 6, order="F"))
    np.testing.assert_array_equal(
        cp.reshape(x.T, (4, 3), order="F").get(), a.T.reshape(4, 3, order="F")
    )
    i = np.array([1, 2, 3], np.int32)
    got = cp.float_power(cp.asarray(i), 2)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.get(), np.float_power(i, 2))


def test_nan_statistics_match_numpy():
    a = np.array([[1.0, np.nan, 3.0, 4.5], [np.nan, np.nan, np.nan, np.nan], [2.0, 2.0, 7.0, 1.0]])
    x = cp.asarray(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in ("nanvar", "nanstd", "nanmedian"):
            for axis in (None, 0, 1):
                want = getattr(np, f)(a, axis=axis)
                got = getattr(cp, f)(x, axis=axis)
                np.testing.assert_allclose(got.get(), want, rtol=1e-12, err_msg=f"{f} {axis}")
        np.testing.assert_allclose(
            cp.nanvar(x, axis=1, ddof=1, keepdims=True).get(),
            np.nanvar(a, axis=1, ddof=1, keepdims=True),
        )
    f32 = cp.asarray(a.astype(np.float32))
    assert cp.nanvar(f32, axis=1).dtype == np.float32


def test_nan_to_num_and_creation_routines():
    a = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    np.testing.assert_array_equal(cp.nan_to_num(cp.asarray(a)).get(), np.nan_to_num(a))
    np.testing.assert_array_equal(
        cp.nan_to_num(cp.asarray(a), nan=-1, posinf=9).get(), np.nan_to_num(a, nan=-1, posinf=9)
    )
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            got = cp.meshgrid(cp.arange(3), cp.arange(4.0), indexing=indexing, sparse=sparse)
            want = np.meshgrid(np.arange(3), np.arange(4.0), indexing=indexing, sparse=sparse)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.get(), w)
    np.testing.assert_allclose(cp.logspace(0, 3, 7).get(), np.logspace(0, 3, 7))
    np.testing.assert_allclose(cp.logspace(1, 2, 4, base=2.0).get(), np.logspace(1, 2, 4, base=2.0))
    for x in (np.array([1, 2, 3]), np.array([0.5, -1.0], np.float32)):
        for inc in (False, True):
            got = cp.vander(cp.asarray(x), 4, increasing=inc)
            want = np.vander(x, 4, increasing=inc)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got.get(), want)
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        for m in (0, 1, 6, 7):
            np.testing.assert_allclose(
                getattr(cp, name)(m).get(), getattr(np, name)(m), atol=1e-14, err_msg=name
            )
    np.testing.assert_allclose(cp.kaiser(9, 5.0).get(), np.kaiser(9, 5.0), rtol=1e-12)


def test_partition_and_placing_elements():
    a = np.array([[5, 1, 4, 2], [0, 9, 3, 3]])
    x = cp.asarray(a)
    p = cp.partition(x, 2, axis=1).get()
    assert (np.sort(p, axis=1) == np.sort(a, axis=1)).all()
    assert (p[:, 2] == np.partition(a, 2, axis=1)[:, 2]).all()
    ip = cp.argpartition(x, 1, axis=1).get()
    assert (np.take_along_axis(a, ip, 1)[:, 1] == np.partition(a, 1, axis=1)[:, 1]).all()
    y = x.copy()
    y.partition(3)
    assert (y.get()[:, 3] == np.partition(a, 3)[:, 3]).all()
    with pytest.raises(ValueError, match="out of bounds"):
        cp.partition(x, 4, axis=1)
    b = np.arange(12).reshape(3, 4)
    m = b % 3 == 0
    want = b.copy()
    np.putmask(want, m, [-1, -2, -3])
    got = cp.asarray(b)
    cp.putmask(got, cp.asarray(m), cp.asarray([-1, -2, -3]))
    np.testing.assert_array_equal(got.get(), want)
    want = b.copy()
    np.place(want, m, [7, 8])
    got = cp.asarray(b)
    cp.place(got, cp.asarray(m), cp.asarray([7, 8]))
    np.testing.assert_array_equal(got.get(), want)
    for shape, wrap in (((4, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False)):
        want = np.zeros(shape)
        np.fill_diagonal(want, [1, 2], wrap=wrap)
        got = cp.zeros(shape)
        cp.fill_diagonal(got, cp.asarray([1.0, 2.0]), wrap=wrap)
        np.testing.assert_array_equal(got.get(), want, err_msg=str(shape))
    i, j = cp.diag_indices(3)
    assert i.get().tolist() == j.get().tolist() == [0, 1, 2]
    for obj, axis in ((1, None), ([0, 2], 1), (slice(0, 2), 0), (-1, 1)):
        np.testing.assert_array_equal(
            cp.delete(cp.asarray(b), obj, axis=axis).get(), np.delete(b, obj, axis=axis)
        )
    z = np.array([0, 0, 1, 2, 0, 3, 0])
    for trim in ("fb", "f", "b"):
        np.testing.assert_array_equal(
            cp.trim_zeros(cp.asarray(z), trim).get(), np.trim_zeros(z, trim)
        )


def test_flat_reads_writes_and_iterates():
    a = np.arange(12).reshape(3, 4)
    x = cp.asarray(a)
    assert len(x.flat) == 12 and x.flat.base is x
    np.testing.assert_array_equal(x.flat[3:7].get(), a.flat[3:7])
    np.testing.assert_array_equal(x.T.flat[[0, 5]].get(), a.T.flat[[0, 5]])
    x.flat[[1, 11]] = -5
    t = x.T
    t.flat[0:3] = 100  # a transposed (not C-contiguous) array writes through
    want = a.copy()
    want.flat[[1, 11]] = -5
    want.T.flat[0:3] = 100
    np.testing.assert_array_equal(x.get(), want)
    assert [int(v) for v in cp.arange(3).flat] == [0, 1, 2]


@pytest.mark.parametrize("method", ["lower", "higher", "nearest", "midpoint"])
def test_quantile_methods_by_rank(method):
    a = RNG.standard_normal((4, 5, 6))
    a[1, 2, 3] = np.nan
    x = cp.asarray(a)
    for axis in (None, 1, (0, 2)):
        for keepdims in (False, True):
            for q in (0.3, [0.0, 0.5, 1.0]):
                want = np.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
                got = cp.quantile(x, q, axis=axis, method=method, keepdims=keepdims)
                np.testing.assert_allclose(got.get(), want, err_msg=f"{axis} {q} {keepdims}")
    i = np.array([[3, 1, 4, 1], [5, 9, 2, 6]])
    np.testing.assert_array_equal(
        cp.percentile(cp.asarray(i), 40, axis=1, method=method).get(),
        np.percentile(i, 40, axis=1, method=method),
    )
    with pytest.raises(ValueError, match="range"):
        cp.quantile(x, 1.5, method=method)


def test_isin_of_complex_values():
    e = np.array([1 + 1j, 2, 3j, 1 + 1j])
    t = np.array([3j, 1 + 1j, 5])
    np.testing.assert_array_equal(cp.isin(cp.asarray(e), cp.asarray(t)).get(), np.isin(e, t))
    np.testing.assert_array_equal(
        cp.isin(cp.asarray(e), cp.asarray(t), invert=True).get(), np.isin(e, t, invert=True)
    )
    np.testing.assert_array_equal(
        cp.isin(cp.asarray([1, 2]), cp.asarray([2 + 0j])).get(), [False, True]
    )


def test_more_numpy_routines_match_numpy():
    a = RNG.integers(0, 10, (3, 4))
    x = cp.asarray(a)
    idx = np.argsort(a, axis=1)
    np.testing.assert_array_equal(
        cp.take_along_axis(x, cp.asarray(idx), 1).get(), np.take_along_axis(a, idx, 1)
    )
    i0 = np.argsort(a, axis=0)[:1]
    np.testing.assert_array_equal(
        cp.take_along_axis(x, cp.asarray(i0), 0).get(), np.take_along_axis(a, i0, 0)
    )
    conds = [a < 3, a > 7]
    choices = [a, a * 10]
    np.testing.assert_array_equal(
        cp.select([cp.asarray(c) for c in conds], [cp.asarray(c) for c in choices], -1).get(),
        np.select(conds, choices, -1),
    )
    np.testing.assert_array_equal(cp.extract(x > 5, x).get(), np.extract(a > 5, a))
    w = np.array([1.0, 2.0, 0.5, 1.0])
    np.testing.assert_allclose(
        cp.average(x, axis=1, weights=cp.asarray(w)).get(), np.average(a, axis=1, weights=w)
    )
    avg, wsum = cp.average(x, axis=0, returned=True)
    want = np.average(a, axis=0, returned=True)
    np.testing.assert_allclose(avg.get(), want[0])
    np.testing.assert_allclose(wsum.get(), want[1])
    np.testing.assert_array_equal(cp.append(x, cp.asarray([1, 2])).get(), np.append(a, [1, 2]))
    np.testing.assert_array_equal(cp.append(x, x, axis=0).get(), np.append(a, a, axis=0))
    v = np.arange(3)
    np.testing.assert_array_equal(
        cp.column_stack([cp.asarray(v), cp.asarray(v * 2)]).get(), np.column_stack([v, v * 2])
    )
    np.testing.assert_array_equal(cp.dstack([x, x]).get(), np.dstack([a, a]))
    with pytest.warns(DeprecationWarning, match="`row_stack` alias is deprecated"):
        np.testing.assert_array_equal(cp.row_stack([x, x]).get(), np.vstack([a, a]))
    c = np.array([3 + 1j, 1 + 2j, 1 + 1j])
    np.testing.assert_array_equal(cp.sort_complex(cp.asarray(c)).get(), np.sort_complex(c))
    got = cp.sort_complex(cp.asarray(np.array([3, 1], np.int8)))
    assert got.dtype == np.sort_complex(np.array([3, 1], np.int8)).dtype
    k1, k2 = np.array([1, 0, 1, 0]), np.array([2, 2, 1, 1])
    np.testing.assert_array_equal(
        cp.lexsort([cp.asarray(k1), cp.asarray(k2)]).get(), np.lexsort([k1, k2])
    )
    one = cp.lexsort(cp.asarray([3.0, 1.0]))  # a 1-D array: keys of one element each
    assert one.shape == () and int(one) == np.lexsort(np.array([3.0, 1.0]))
    np.testing.assert_array_equal(cp.resize(x, (2, 7)).get(), np.resize(a, (2, 7)))
    np.testing.assert_array_equal(cp.median(x, axis=(0, 1)).get(), np.median(a, axis=(0, 1)))
    f = RNG.standard_normal((3, 4, 5))
    f[0, 1, 2] = np.nan
    np.testing.assert_allclose(
        cp.nanmedian(cp.asarray(f), axis=(0, 2)).get(), np.nanmedian(f, axis=(0, 2))
    )
    with pytest.raises(AxisError):
        cp.partition(cp.asarray(3.0), 0)


def test_signal_set_and_index_generation_routines_match_numpy():
    a = RNG.standard_normal(7)
    v = np.array([0.5, -1.0, 2.0])
    for mode in ("full", "same", "valid"):
        for p, q in ((a, v), (v, a)):
            np.testing.assert_allclose(
                cp.convolve(cp.asarray(p), cp.asarray(q), mode).get(), np.convolve(p, q, mode)
            )
            np.testing.assert_allclose(
                cp.correlate(cp.asarray(p), cp.asarray(q), mode).get(), np.correlate(p, q, mode)
            )
    z = np.array([1 + 2j, 3 - 1j])
    np.testing.assert_allclose(
        cp.correlate(cp.asarray(z), cp.asarray(z[::-1]), "full").get(),
        np.correlate(z, z[::-1], "full"),
    )
    xp_, fp = np.array([0.0, 1.0, 3.0]), np.array([1.0, 3.0, 2.0])
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 4.0])
    np.testing.assert_allclose(
        cp.interp(cp.asarray(x), cp.asarray(xp_), cp.asarray(fp)).get(), np.interp(x, xp_, fp)
    )
    np.testing.assert_allclose(
        cp.interp(cp.asarray(x), cp.asarray(xp_), cp.asarray(fp), left=-5, right=5).get(),
        np.interp(x, xp_, fp, left=-5, right=5),
    )
    np.testing.assert_allclose(
        cp.interp(cp.asarray(x), cp.asarray(xp_), cp.asarray(fp), period=4).get(),
        np.interp(x, xp_, fp, period=4),
    )
    assert cp.real_if_close(cp.asarray([1 + 1e-16j])).dtype == np.float64
    p, q = np.array([3, 1, 2, 3, 5]), np.array([2, 3, 7])
    for f in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        np.testing.assert_array_equal(
            getattr(cp, f)(cp.asarray(p), cp.asarray(q)).get(), getattr(np, f)(p, q), err_msg=f
        )
    got = cp.intersect1d(cp.asarray(p), cp.asarray(q), return_indices=True)
    for g, w in zip(got, np.intersect1d(p, q, return_indices=True)):
        np.testing.assert_array_equal(g.get(), w)
    coords = (np.array([0, 2, 1]), np.array([3, 0, 2]))
    np.testing.assert_array_equal(
        cp.ravel_multi_index(tuple(cp.asarray(c) for c in coords), (3, 4)).get(),
        np.ravel_multi_index(coords, (3, 4)),
    )
    for order in ("C", "F"):
        for g, w in zip(
            cp.unravel_index(cp.asarray([5, 11, 0]), (3, 4), order=order),
            np.unravel_index([5, 11, 0], (3, 4), order=order),
        ):
            np.testing.assert_array_equal(g.get(), w)
    np.testing.assert_array_equal(cp.indices((2, 3)).get(), np.indices((2, 3)))
    for g, w in zip(cp.ix_(cp.asarray([0, 2]), cp.asarray([1, 3])), np.ix_([0, 2], [1, 3])):
        np.testing.assert_array_equal(g.get(), w)
    for k in (-1, 0, 1):
        for g, w in zip(cp.tril_indices(4, k, 5), np.tril_indices(4, k, 5)):
            np.testing.assert_array_equal(g.get(), w)
        for g, w in zip(cp.triu_indices(4, k), np.triu_indices(4, k)):
            np.testing.assert_array_equal(g.get(), w)


def test_nan_scans_cumulative_differences_integrals_and_bins():
    a = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan]])
    x = cp.asarray(a)
    np.testing.assert_allclose(cp.nancumsum(x, axis=1).get(), np.nancumsum(a, axis=1))
    np.testing.assert_allclose(cp.nancumprod(x).get(), np.nancumprod(a))
    assert cp.nanargmax(x, axis=1).get().tolist() == np.nanargmax(a, axis=1).tolist()
    assert int(cp.nanargmin(x)) == int(np.nanargmin(a))
    for g, w in zip(cp.where(x > 1), np.where(a > 1)):
        np.testing.assert_array_equal(g.get(), w)
    assert cp.issubdtype(x.dtype, cp.floating) and not cp.issubdtype(x.dtype, cp.integer)
    b = np.arange(1, 7.0).reshape(2, 3)
    y = cp.asarray(b)
    np.testing.assert_allclose(
        cp.cumulative_sum(y, axis=1, include_initial=True).get(),
        np.cumulative_sum(b, axis=1, include_initial=True),
    )
    np.testing.assert_allclose(cp.cumulative_prod(y[0]).get(), np.cumulative_prod(b[0]))
    np.testing.assert_allclose(
        cp.ediff1d(y, to_end=[9], to_begin=[-1, -2]).get(),
        np.ediff1d(b, to_end=[9], to_begin=[-1, -2]),
    )
    np.testing.assert_allclose(cp.trapezoid(y).get(), np.trapezoid(b))
    np.testing.assert_allclose(
        cp.trapezoid(y, x=cp.asarray([0, 1, 3.0]), axis=1).get(),
        np.trapezoid(b, x=[0, 1, 3.0], axis=1),
    )
    xs = np.array([0.2, 6.4, 3.0, 1.6, -1, 10])
    bins = np.array([0.0, 1.0, 2.5, 4.0, 10.0])
    for right in (False, True):
        for bb in (bins, bins[::-1]):
            np.testing.assert_array_equal(
                cp.digitize(cp.asarray(xs), cp.asarray(bb), right=right).get(),
                np.digitize(xs, bb, right=right),
            )
    q, r = divmod(cp.asarray([7, -7]), cp.asarray([2, 2]))
    assert q.get().tolist() == [3, -4] and r.get().tolist() == [1, 1]
    q, r = divmod(7, cp.asarray([2, 3]))
    assert q.get().tolist() == [3, 2] and r.get().tolist() == [1, 1]


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order):
    f = np.array([[1, 2, 4, 7, 11], [2, 4, 8, 16, 32], [0, -1, 5, 2, 2]], dtype=float)
    x = np.array([0, 1, 1.5, 3.5, 4.0])
    for args, axis in [((), None), ((2.0,), None), ((0.5, x), None), ((x,), 1), ((), (0, 1))]:
        want = np.gradient(f, *args, axis=axis, edge_order=edge_order)
        dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        got = cp.gradient(cp.asarray(f), *dev, axis=axis, edge_order=edge_order)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.get(), w, err_msg=f"{args} {axis}")
    assert cp.gradient(cp.asarray([1, 4, 9, 16])).dtype == np.float64
    with pytest.raises(ValueError, match="too small"):
        cp.gradient(cp.asarray([1.0, 2.0]), edge_order=2)
    with pytest.raises(TypeError, match="invalid number of arguments"):
        cp.gradient(cp.asarray(f), 1.0, 2.0, 3.0)
    with pytest.raises(TypeError):
        np.gradient(f > 2)  # NumPy's boolean subtract raises, and so does cuprum's gradient
    with pytest.raises(TypeError, match="boolean subtract"):
        cp.gradient(cp.asarray(f > 2))


def test_histogramdd_histogram2d_and_weighted_histogram_match_numpy():
    s = RNG.standard_normal((100, 3))
    w = np.abs(RNG.standard_normal(100))
    for bins in (5, [3, 4, 5], [np.array([-2, -1, 0, 1, 2.0]), 4, np.array([-3, 0, 3.0])]):
        dev_bins = (
            [cp.asarray(b) if isinstance(b, np.ndarray) else b for b in bins]
            if isinstance(bins, list)
            else bins
        )
        for density in (False, True):
            for weights in (None, w):
                want, wedges = np.histogramdd(s, bins=bins, density=density, weights=weights)
                got, gedges = cp.histogramdd(
                    cp.asarray(s),
                    bins=dev_bins,
                    density=density,
                    weights=None if weights is None else cp.asarray(weights),
                )
                np.testing.assert_allclose(got.get(), want)
                for g, e in zip(gedges, wedges):
                    np.testing.assert_allclose(g.get(), e)
    x, y = s[:, 0], s[:, 1]
    want = np.histogram2d(x, y, bins=[4, 6], range=[[-2, 2], [-3, 3]])
    got = cp.histogram2d(cp.asarray(x), cp.asarray(y), bins=[4, 6], range=[[-2, 2], [-3, 3]])
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.get(), e)
    hw, ew = np.histogram(x, bins=6, weights=np.arange(100))
    gw, gew = cp.histogram(cp.asarray(x), bins=6, weights=cp.arange(100))
    assert gw.dtype == hw.dtype
    np.testing.assert_allclose(gw.get(), hw)
    np.testing.assert_allclose(gew.get(), ew)


def test_histogram2d_edges_as_device_arrays_and_quantile_method_names():
    x = (RNG.random(100) * 100).astype(np.float32)
    y = (RNG.random(100) * 100).astype(np.float32)
    edges = [np.arange(0, 100, 4), np.arange(0, 100, 10)]
    want = np.histogram2d(x, y, bins=edges, density=True)
    got = cp.histogram2d(
        cp.asarray(x), cp.asarray(y), bins=[cp.asarray(e) for e in edges], density=True
    )
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.get(), w, rtol=1e-6)
    h, e = cp.histogramdd(cp.asarray(np.stack([x, y], 1)), bins=(3, 5))
    assert e[0].dtype == np.float32 and h.dtype == np.float64
    with pytest.raises(ValueError, match="not a valid method"):
        cp.quantile(cp.ones(3), 0.5, method="deadbeef")
    r = cp.quantile(cp.asarray(RNG.random((3, 4))), [0.2, 0.7], axis=1, method="nearest")
    assert r.flags.c_contiguous and r.shape == (2, 3)


def test_mgrid_and_ogrid_match_numpy():
    for key in (np.s_[0:5:2], np.s_[0:3, 1:4], np.s_[-1:1:5j, 0:2], np.s_[0:1:3j]):
        want, got = np.mgrid[key], cp.mgrid[key]
        assert got.shape == want.shape
        np.testing.assert_allclose(got.get(), want)
        want, got = np.ogrid[key], cp.ogrid[key]
        if isinstance(want, (list, tuple)):
            for g, w in zip(got, want):
                assert g.shape == w.shape
                np.testing.assert_allclose(g.get(), w)
        else:
            np.testing.assert_allclose(got.get(), want)


def test_repeat_refuses_uint64_repeats_as_numpy():
    with pytest.raises(TypeError, match="uint64"):
        cp.repeat(cp.arange(3), cp.asarray(np.array([1, 2, 3], np.uint64)))
    with pytest.raises(TypeError):
        np.repeat(np.arange(3), np.array([1, 2, 3], np.uint64))
    got = cp.repeat(cp.arange(3), cp.asarray(np.array([1, 2, 3], np.uint32)))
    np.testing.assert_array_equal(got.get(), np.repeat(np.arange(3), [1, 2, 3]))
