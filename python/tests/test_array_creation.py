"""``cuprum.array`` and ``asarray`` against NumPy's rules: ``copy=True/None/False``, memory
orders (the strides of the result), nested lists of device arrays, byte-swapped host data;
``ndarray.copy``/``astype`` orders; histogram weights with ``density``; digitize's bins
test. Runs on the GPU when there is one, else on the host device."""

from __future__ import annotations

import numpy as np
import pytest

import cuprum as cp

ORDERS = ("C", "F", "A", "K")


def _strides_like(got, want):
    assert got.strides == want.strides, (got.strides, want.strides)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("src", ["C", "F", "T"])
def test_array_copy_orders_follow_numpy(order, src):
    h = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    h = {"C": h, "F": np.asfortranarray(h), "T": h.transpose(2, 0, 1)}[src]
    d = cp.asarray(np.ascontiguousarray(h)) if src != "F" else cp.asarray(h)
    if src == "T":
        d = cp.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4)).transpose(2, 0, 1)
    want = np.array(h, order=order)
    got = cp.array(d, order=order)
    np.testing.assert_array_equal(got.get(), want)
    _strides_like(got, want)
    # from the host too
    got = cp.array(h, order=order)
    np.testing.assert_array_equal(got.get(), want)
    if order != "K" or src != "T":  # NumPy's K of a permuted host view: its own layout
        _strides_like(got, want)


@pytest.mark.parametrize("order", ORDERS)
def test_copy_none_and_false_copy_only_where_needed(order):
    a = cp.arange(24.0).reshape(2, 3, 4)
    b = cp.array(a, copy=None, order=order)
    n = np.array(np.arange(24.0).reshape(2, 3, 4), copy=None, order=order)
    assert (b is a) == (order != "F")
    assert n.flags.c_contiguous == b.is_c_contiguous
    if order == "F":
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            cp.array(a, copy=False, order="F")
    else:
        assert cp.array(a, copy=False, order=order) is a
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        cp.array(a, dtype=np.float32, copy=False)
    c = cp.array(a, copy=True)
    a.fill(0)
    assert float(c.sum()) == 276.0
    with pytest.raises(ValueError, match="order must be one of"):
        cp.array(a, order="X")


def test_lists_of_device_arrays_are_stacked():
    rng = np.random.default_rng(0)
    h = [rng.random((3, 4)).astype(np.float32) for _ in range(2)]
    d = [cp.asarray(x) for x in h]
    np.testing.assert_array_equal(cp.array(d).get(), np.array(h))
    np.testing.assert_array_equal(cp.asarray(d).get(), np.array(h))
    got = cp.array([[d[0], d[1]]], dtype=np.float64, order="F")
    want = np.array([[h[0], h[1]]], dtype=np.float64, order="F")
    np.testing.assert_array_equal(got.get(), want)
    _strides_like(got, want)
    with pytest.raises(ValueError, match="inhomogeneous"):
        cp.array([d[0], cp.ones(3)])


@pytest.mark.parametrize("dtype", ["i2", "i4", "u8", "f4", "f8", "c8", "c16"])
def test_byte_swapped_host_data_keeps_its_values(dtype):
    h = (np.arange(12) - 5).astype(np.dtype(dtype).newbyteorder(">")).reshape(3, 4)
    want = h.astype(np.dtype(dtype))
    for got in (cp.asarray(h), cp.array(h), cp.array([h, h])[0]):
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.get(), want)
        np.testing.assert_array_equal((got + got).get(), want + want)


def test_asarray_keeps_numpys_fortran_order_and_identity():
    h = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    _strides_like(cp.asarray(h), np.asarray(h))
    _strides_like(cp.asarray(h, order="C"), np.asarray(h, order="C"))
    a = cp.ones((2, 3))
    assert cp.asarray(a) is a
    assert cp.asanyarray(a) is a
    _strides_like(cp.asarray(a, order="F"), np.asarray(np.ones((2, 3)), order="F"))


@pytest.mark.parametrize("order", ORDERS)
def test_ndarray_copy_and_astype_follow_order(order):
    h = np.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0)
    d = cp.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0)
    for got, want in (
        (d.copy(order), h.copy(order)),
        (d.astype(np.float32, order=order), h.astype(np.float32, order=order)),
        (cp.copy(d, order=order), np.copy(h, order=order)),
    ):
        np.testing.assert_array_equal(got.get(), want)
        _strides_like(got, want)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_histogram_weights_with_density_and_edges(dtype):
    a = np.arange(9, dtype=dtype)
    bins = np.asarray([0, 1, 3, 6, 10], dtype=dtype)
    w = np.asarray([2, 1, 1, 1, 1, 1, 1, 1, 1], dtype=dtype)
    for kw in ({"density": True}, {}):
        got = cp.histogram(cp.asarray(a), cp.asarray(bins), weights=cp.asarray(w), **kw)
        want = np.histogram(a, bins, weights=w, **kw)
        for g, n in zip(got, want):
            assert g.dtype == n.dtype
            np.testing.assert_allclose(g.get(), n, rtol=1e-6)
    x = (np.arange(10) + 0.5).astype(dtype)
    got = cp.histogram(cp.asarray(x), range=[1, 9], weights=cp.asarray(x), density=True)
    want = np.histogram(x, range=[1, 9], weights=x, density=True)
    np.testing.assert_allclose(got[0].get(), want[0], rtol=1e-7)
    np.testing.assert_allclose(got[1].get(), want[1], rtol=1e-7)


def test_histogram_complex_weights_and_float32_edges():
    rng = np.random.default_rng(1)
    x = rng.random(50).astype(np.float32) * 10
    w = (rng.random(50) + 1j * rng.random(50)).astype(np.complex64)
    got = cp.histogram(cp.asarray(x), bins=7, weights=cp.asarray(w))
    want = np.histogram(x, bins=7, weights=w)
    assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype
    np.testing.assert_allclose(got[0].get(), want[0], rtol=1e-5)
    np.testing.assert_array_equal(got[1].get(), want[1])
    s = rng.random((40, 2)).astype(np.float32) * 100
    got = cp.histogramdd(cp.asarray(s), bins=10, density=True)
    want = np.histogramdd(s, bins=10, density=True)
    for g, n in zip(got[1], want[1]):
        np.testing.assert_array_equal(g.get(), n)
    np.testing.assert_allclose(got[0].get(), want[0], rtol=1e-6)


@pytest.mark.parametrize(
    "bins",
    [
        [np.nan] * 4,
        [0.0, np.nan, np.nan],
        [np.nan, np.nan, 3.0],
        [10.0, 5.0, np.nan],
        [1.0, 2.0, 2.0, 5.0],
        [5.0, 5.0, 2.0],
    ],
)
@pytest.mark.parametrize("right", [False, True])
def test_digitize_tests_bins_like_numpy(bins, right):
    x = np.arange(14, dtype=np.float32)
    x[5] = np.nan
    b = np.asarray(bins, np.float32)
    got = cp.digitize(cp.asarray(x), cp.asarray(b), right=right)
    np.testing.assert_array_equal(got.get(), np.digitize(x, b, right=right))


def test_digitize_refuses_bins_that_are_not_monotonic():
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        cp.digitize(cp.arange(3.0), cp.asarray([1.0, 3.0, 2.0]))
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        np.digitize(np.arange(3.0), np.asarray([1.0, 3.0, 2.0]))


def test_bincount_of_nothing_with_weights_is_int64():
    got = cp.bincount(cp.asarray(np.array([], np.int32)), weights=cp.zeros(0), minlength=2)
    want = np.bincount(np.array([], np.int32), weights=np.zeros(0), minlength=2)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_the_default_memory_pool_reports_and_releases():
    pool = cp.get_default_memory_pool()
    assert pool is cp.get_default_memory_pool()
    assert isinstance(pool, cp.cuda.MemoryPool)
    before = pool.used_bytes()
    a = cp.ones(1 << 20, dtype=np.float32)
    assert pool.used_bytes() >= before + (4 << 20)
    assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes()
    del a
    cp.cuda.Device().synchronize()
    pool.free_all_blocks()
    assert pool.used_bytes() <= before
    assert pool.free_bytes() >= 0


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
@pytest.mark.parametrize("src,dst", [("u4", "i1"), ("i8", "f4"), ("f4", "f8"), ("i2", "i2")])
def test_joins_check_casting_like_numpy(casting, src, dst):
    h = [np.arange(1, 7, dtype=src).reshape(2, 3)] * 2
    d = [cp.asarray(x) for x in h]
    for name in ("concatenate", "stack", "hstack", "vstack"):
        try:
            want = getattr(np, name)(h, dtype=dst, casting=casting)
        except TypeError as e:
            with pytest.raises(TypeError, match="Cannot cast array data"):
                getattr(cp, name)(d, dtype=dst, casting=casting)
            assert "Cannot cast array data" in str(e)
            continue
        got = getattr(cp, name)(d, dtype=dst, casting=casting)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("value", [0, 4, -4, 3.5, True, 1 + 1j])
@pytest.mark.parametrize("dtype", ["u1", "i4", "f4", "c8", "?"])
def test_copyto_python_scalars_are_weak(value, dtype):
    h = np.ones((2, 2), dtype)
    d = cp.ones((2, 2), dtype)
    try:
        np.copyto(h, value)
    except (TypeError, OverflowError) as e:
        with pytest.raises(type(e)):
            cp.copyto(d, value)
        return
    cp.copyto(d, value)
    np.testing.assert_array_equal(d.get(), h)


def test_reshape_copy_and_matrix_transpose():
    h = np.arange(24.0).reshape(2, 3, 4)
    d = cp.asarray(h)
    r = cp.reshape(d, (6, 4), copy=True)
    r[0, 0] = 99
    assert float(d[0, 0, 0]) == 0.0
    assert d.reshape(6, 4, copy=False).shape == (6, 4)
    with pytest.raises(ValueError, match="copy"):
        d.transpose(2, 0, 1).reshape(24, copy=False)
    np.testing.assert_array_equal(cp.reshape(d, newshape=(4, 6)).get(), h.reshape(4, 6))
    np.testing.assert_array_equal(d.mT.get(), h.mT)
    with pytest.raises(ValueError, match="ndim < 2"):
        _ = cp.arange(3).mT


def test_joins_into_out_check_its_dtype_and_copyto_where_is_boolean():
    a = cp.ones((3, 4))
    with pytest.raises(TypeError, match="Cannot cast array data"):
        cp.concatenate((a, a), axis=1, out=cp.zeros((3, 8), dtype=np.int64))
    with pytest.raises(TypeError, match="only takes `out` or `dtype`"):
        cp.concatenate((a, a), out=cp.zeros((6, 4), dtype=np.int64), dtype=np.int64)
    with pytest.raises(TypeError, match="Cannot cast array data"):
        cp.stack((a, a), out=cp.zeros((2, 3, 4), dtype=np.int64))
    out = cp.zeros((6, 4), dtype=np.float32)
    assert cp.concatenate((a, a), out=out) is out
    assert float(out.sum()) == 24.0
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        cp.copyto(cp.ones(3, dtype=np.int32), cp.ones(3, dtype=np.int32), where=cp.ones(3))
    d = cp.arange(4.0)
    cp.copyto(d, 9.0, where=d > 1)
    np.testing.assert_array_equal(d.get(), [0.0, 1.0, 9.0, 9.0])


def test_comparing_with_an_unrelated_object_is_elementwise():
    a = cp.arange(6).reshape(2, 3)
    h = np.arange(6).reshape(2, 3)
    for other in (object(), None, "text"):
        np.testing.assert_array_equal((a == other).get(), h == other)
        np.testing.assert_array_equal((other != a).get(), other != h)

    class HasEq:
        def __eq__(self, other):
            return (other == 2) | (other == 4)

    np.testing.assert_array_equal((HasEq() == a).get(), h == HasEq())


def test_full_takes_array_values():
    same_as_numpy = [
        ((2, 3), [1, 2, 3], None),
        ((2, 2), np.asarray(2.5), None),
        ((2,), np.asarray(1.5, np.float32), None),
        ((2, 3), np.arange(3), "f4"),
    ]
    for shape, value, dtype in same_as_numpy:
        want = np.full(shape, value, dtype=dtype)
        dev = cp.asarray(value) if isinstance(value, np.ndarray) else value
        got = cp.full(shape, dev, dtype=dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("shape", [(1, 4, 1), (3, 1, 2), (2, 3), (1, 1)])
def test_copies_in_order_k_of_layouts_both_c_and_f(shape):
    # an axis of one element has no say in a layout: NumPy's K copy keeps C (or F) order
    h = np.asfortranarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    d = cp.asarray(h)
    for src_h, src_d in ((h, d), (h.T, d.T)):
        for order in "CFAK":
            assert cp.array(src_d, order=order).strides == np.array(src_h, order=order).strides
            assert src_d.copy(order=order).strides == src_h.copy(order=order).strides


@pytest.mark.parametrize("make", [cp.empty, cp.zeros, cp.ones])
@pytest.mark.parametrize("shape", [-1, (2, -3)])
def test_negative_dimensions_are_numpys_value_error(make, shape):
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        make(shape)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        np.empty(shape)
