"""NumPy's protocols and exception classes, and the functions cuprum composes from its
ufuncs (``python/cuprum/_composed.py``), against NumPy on random inputs."""

import numpy as np
import pytest

import cuprum as cp

RNG = np.random.default_rng(11)


def _data(dtype, n=37):
    if np.dtype(dtype).kind == "f":
        x = RNG.standard_normal(n) * 50
        x[::7] = -x[::7]
        return x.astype(dtype)
    return RNG.integers(-100, 100, n).astype(dtype)


def test_numpy_scalar_on_the_left_and_numpy_ufuncs():
    x = cp.asarray(_data(np.float32))
    h = x.get()
    for got, want in [
        (np.float32(2) * x, np.float32(2) * h),
        (np.float64(2) + x, np.float64(2) + h),
        (np.int64(3) - x, np.int64(3) - h),
        (np.add(x, 1), np.add(h, 1)),
        (np.sqrt(cp.absolute(x)), np.sqrt(np.abs(h))),
    ]:
        assert isinstance(got, cp.ndarray)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)
    with pytest.raises(TypeError):
        np.add.reduce(x)


def test_exception_classes_are_numpys_too():
    a = cp.arange(3, dtype=cp.int8)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        a.sum(axis=2)
    with pytest.raises(cp.AxisError):
        a.sum(axis=-2)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        a[5]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 1]
    with pytest.raises(IndexError):
        a[7] = 1
    with pytest.raises(OverflowError, match="out of range for int8"):
        a + 300
    with pytest.raises(OverflowError):
        cp.full(3, 300, dtype=cp.int8)
    # Still cuprum's own classes and the built-ins they were.
    with pytest.raises(cp.ShapeError):
        a[5]
    with pytest.raises(ValueError):
        a.sum(axis=4)
    with pytest.raises(cp.CuprumError) as e:
        a + 300
    # NumPy's class only: an OverflowError, not a TypeError (CuPy's tests compare classes).
    assert isinstance(e.value, OverflowError) and not isinstance(e.value, TypeError)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int16])
def test_composed_binary_functions(dtype):
    h1, h2 = _data(dtype), _data(dtype)[::-1].copy()
    if np.dtype(dtype).kind == "f":
        h1[3] = np.nan
        h2[5] = np.nan
        h1[8] = h2[8] = np.nan
    x1, x2 = cp.asarray(h1), cp.asarray(h2)
    for name in ["copysign", "fmax", "fmin", "logaddexp", "logaddexp2"]:
        if name.startswith("logaddexp") and np.dtype(dtype).kind != "f":
            continue
        got, want = getattr(cp, name)(x1, x2), getattr(np, name)(h1, h2)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got.get(), want, rtol=2e-6, atol=1e-6, err_msg=name)
    q, r = cp.divmod(x1, x2 + (x2 == 0))
    wq, wr = np.divmod(h1, h2 + (h2 == 0))
    np.testing.assert_allclose(q.get(), wq)
    np.testing.assert_allclose(r.get(), wr, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_composed_unary_functions(dtype):
    h = _data(dtype)
    x = cp.asarray(h)
    for name in ["deg2rad", "rad2deg", "radians", "degrees", "fix", "sinc"]:
        got, want = getattr(cp, name)(x), getattr(np, name)(h)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got.get(), want, rtol=2e-6, atol=1e-12, err_msg=name)
    if np.dtype(dtype).kind == "f":
        f, w = cp.modf(x)
        wf, ww = np.modf(h)
        np.testing.assert_allclose(f.get(), wf, rtol=1e-6)
        np.testing.assert_array_equal(w.get(), ww)
        for d in (0, 1, 2, -1):
            np.testing.assert_allclose(cp.around(x, d).get(), np.around(h, d), rtol=1e-6)
        hn = h.copy()
        hn[::3] = np.nan
        np.testing.assert_allclose(cp.nanprod(cp.asarray(hn[:6])).get(), np.nanprod(hn[:6]))
    assert float(cp.sinc(cp.asarray(np.array([0.0])))[0]) == 1.0


def test_copyto_casting_and_where():
    dst = cp.zeros(5, dtype=cp.float32)
    cp.copyto(dst, cp.arange(5, dtype=cp.int16))
    np.testing.assert_array_equal(dst.get(), np.arange(5, dtype=np.float32))
    mask = cp.asarray(np.array([True, False, True, False, True]))
    cp.copyto(dst, 9.0, where=mask)
    np.testing.assert_array_equal(dst.get(), [9, 1, 9, 3, 9])
    with pytest.raises(TypeError, match="same_kind"):
        cp.copyto(cp.zeros(3, dtype=cp.int32), cp.ones(3))


def test_random_integers_and_order_none():
    r = cp.random.random_integers(3, 6, size=1000).get()
    assert r.min() >= 3 and r.max() <= 6 and set(np.unique(r)) == {3, 4, 5, 6}
    assert cp.random.random_integers(2, size=50).get().max() <= 2
    assert cp.zeros(3, order=None).flags.c_contiguous


def test_flags():
    a = cp.zeros((3, 4))
    assert a.flags.c_contiguous and not a.flags.f_contiguous and a.flags.writeable
    t = a.T
    assert t.flags["F_CONTIGUOUS"] and not t.flags["C"]
    assert not a[:, ::2].flags.c_contiguous and not a[:, ::2].flags.f_contiguous
    assert "C_CONTIGUOUS : True" in repr(a.flags)
    with pytest.raises(KeyError):
        a.flags["X"]


def test_a_fused_functions_axis_error_is_numpys():
    f = cp.fuse(lambda x: cp.sum(x, axis=3))
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds"):
        f(cp.zeros((2, 2)))
