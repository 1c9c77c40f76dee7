"""NumPy's protocols and exception classes, and the functions cuprum composes from its
ufuncs (``python/cuprum/_composed.py``), against NumPy on random inputs."""

import os
import warnings

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
    # NumPy's ufunc methods run cuprum's ufunc's method of the same name
    same_values = [
        (np.add.reduce(x), np.add.reduce(h)),
        (np.multiply.outer(x[:3], x[:4]), np.multiply.outer(h[:3], h[:4])),
        (np.maximum.accumulate(x), np.maximum.accumulate(h)),
    ]
    for got, want in same_values:
        assert isinstance(got, cp.ndarray)
        np.testing.assert_allclose(got.get(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="spacing"):  # a ufunc cuprum lacks
        np.spacing(x)
    # NumPy's functions mixing NumPy and cuprum arrays copy nothing implicitly (CuPy's rule)
    for call in (
        lambda: np.add(x, h),
        lambda: np.add(h, x),
        lambda: np.add(x, x, out=h),
        lambda: np.add(h, h, out=x),
    ):
        with pytest.raises(TypeError):
            call()
    # a 0-d NumPy array is a scalar there
    z = np.array(np.float32(0.5))
    for got, want in [(z + x, z + h), (z < x, z < h), (np.maximum(z, x), np.maximum(z, h))]:
        assert isinstance(got, cp.ndarray)
        np.testing.assert_array_equal(got.get(), want)


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
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # cuprum's own calls warn of nothing
            got = getattr(cp, name)(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # numpy.fix in NumPy 2.5
            want = getattr(np, name)(h)
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


# ------------------------------------------------------------- __array_function__, ufunc.at


def test_numpy_functions_on_cuprum_arrays_run_cuprums():
    h = _data(np.float32, 24).reshape(4, 6)
    x = cp.asarray(h)
    for got, want in [
        (np.full_like(x, 3), np.full_like(h, 3)),
        (np.zeros_like(x), np.zeros_like(h)),
        (np.sum(x, axis=0), np.sum(h, axis=0)),
        (np.concatenate([x, x], axis=1), np.concatenate([h, h], axis=1)),
        (np.where(x > 0, x, 0), np.where(h > 0, h, 0)),
        (np.transpose(x), np.transpose(h)),
    ]:
        assert isinstance(got, cp.ndarray), type(got)
        np.testing.assert_allclose(got.get(), want, rtol=1e-5)
    assert float(np.mean(x)) == pytest.approx(float(np.mean(h)), rel=1e-5)


def test_numpy_function_cuprum_lacks_is_numpys_type_error():
    x = cp.asarray(_data(np.float64, 8))
    with pytest.raises(TypeError, match="no implementation found for 'numpy.lib.scimath.sqrt'"):
        np.lib.scimath.sqrt(x.reshape(2, 4))
    with pytest.raises(TypeError, match="no implementation found"):
        np.emath.log(x)  # a module cuprum does not have
    # and ones it has run on the device
    d = np.linalg.det(x[:4].reshape(2, 2))
    assert isinstance(d, cp.ndarray)
    np.testing.assert_allclose(d.get(), np.linalg.det(x[:4].get().reshape(2, 2)))
    f = np.fft.ifft(x.reshape(2, 4))
    assert isinstance(f, cp.ndarray)
    np.testing.assert_allclose(f.get(), np.fft.ifft(x.get().reshape(2, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32])
def test_add_at_counts_every_repeated_index(dtype):
    base = _data(dtype, 10) if np.dtype(dtype).kind != "u" else np.arange(10, dtype=dtype)
    idx = RNG.integers(-10, 10, 50)
    vals = (_data(dtype, 50) if np.dtype(dtype).kind != "u" else np.arange(50)).astype(dtype)
    # Floats: a GPU's atomic adds of one element come in no fixed order, so the sums may
    # differ from NumPy's sequential ones by rounding, relative to the magnitudes summed
    # (not to a sum that cancels to near zero).
    rtol = {np.float32: 1e-5, np.float64: 1e-12}.get(dtype, 0)
    want = base.copy()
    np.add.at(want, idx, vals)
    x = cp.asarray(base)
    cp.add.at(x, cp.asarray(idx), cp.asarray(vals))
    magnitude = np.abs(base).astype(np.float64)
    np.add.at(magnitude, idx, np.abs(vals.astype(np.float64)))
    np.testing.assert_array_less(
        np.abs(x.get().astype(np.float64) - want), rtol * magnitude + 1e-300
    )
    if rtol == 0:
        np.testing.assert_array_equal(x.get(), want)
    want2 = base.copy()
    np.subtract.at(want2, idx, vals)
    y = cp.asarray(base)
    cp.subtract.at(y, cp.asarray(idx), cp.asarray(vals))
    np.testing.assert_allclose(y.get(), want2, rtol=rtol, atol=0)


def test_add_at_rows_scalars_lists_and_basic_indices():
    base = _data(np.float64, 12).reshape(4, 3)
    cases = [
        ([0, 0, 3, -1], 1.5),  # a list, a scalar broadcast to each row
        (np.array([2, 2]), np.arange(6.0).reshape(2, 3)),  # rows of values
        (1, np.array([1.0, 2.0, 3.0])),  # one int
        (slice(1, 3), 2.0),  # basic indexing: no repeats
        ((slice(None), 1), 4.0),
        ((np.array([1, 1, 0]),), 1.0),  # a one-array tuple
    ]
    for idx, v in cases:
        want = base.copy()
        np.add.at(want, idx, v)
        x = cp.asarray(base)
        cp.add.at(x, idx, cp.asarray(v) if isinstance(v, np.ndarray) else v)
        np.testing.assert_array_equal(x.get(), want, err_msg=str(idx))
    want = np.zeros(5, np.uint8)
    np.subtract.at(want, [1, 1, 4], 3)  # wraps
    x = cp.zeros(5, dtype=cp.uint8)
    cp.subtract.at(x, [1, 1, 4], 3)
    np.testing.assert_array_equal(x.get(), want)


def test_add_at_errors():
    x = cp.zeros(6)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 6"):
        cp.add.at(x, [1, 7], 1.0)
    with pytest.raises(ValueError, match="second operand needed for ufunc"):
        cp.add.at(x, [1])
    with pytest.raises(TypeError, match="must be a cuprum.ndarray"):
        cp.add.at(np.zeros(6), [1], 1.0)
    with pytest.raises(TypeError, match="does not support arrays of float64"):
        cp.bitwise_or.at(cp.zeros(3), [0], 1)
    with pytest.raises(TypeError, match="does not support arrays of bool"):
        cp.subtract.at(cp.zeros(3, dtype=bool), [0], True)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        cp.maximum.at(cp.zeros((3, 3)), (np.array([0]), np.array([3])), 1.0)
    # every ufunc has `at` (NumPy's)
    y = cp.ones(3)
    cp.multiply.at(y, [0, 0], 2.0)
    assert y.tolist() == [4.0, 1.0, 1.0]


def test_ufunc_at_casts_values_as_cupy_does():
    # CuPy casts the values to the target's dtype (NumPy's same_kind rule would refuse)
    for idx in ([0, 0], cp.asarray([0, 0])):
        x = cp.zeros(3, dtype=cp.int32)
        cp.add.at(x, idx, cp.asarray([1.7, 2.2]))
        assert x.get().tolist() == [3, 0, 0]


def test_numpy_shape_and_dtype_functions_on_cuprum_arrays():
    h = _data(np.float32, 24).reshape(4, 6)
    x = cp.asarray(h)
    z = cp.asarray(np.array(300, dtype=np.int64))
    c = cp.asarray(h.astype(np.complex64))
    assert np.shape(x) == cp.shape(x) == (4, 6)
    assert np.ndim(x) == 2 and np.size(x) == 24 and np.size(x, 1) == 6
    assert np.result_type(x, 1.0) == np.float32
    assert np.result_type(x, np.float64) == np.float64
    assert np.result_type(x, c) == np.complex64
    assert np.can_cast(x, np.float64) and not np.can_cast(x, np.int32)
    assert np.min_scalar_type(z) == np.min_scalar_type(np.int64(300)) == np.uint16
    assert np.min_scalar_type(x) == np.float32
    assert np.iscomplexobj(c) and not np.iscomplexobj(x)
    assert np.isrealobj(x) and not np.isrealobj(c)
    assert np.common_type(x, c) == np.complex64
    assert cp.isscalar(1.0) and not cp.isscalar(x)
    assert cp.broadcast_shapes((4, 1), (6,)) == (4, 6)
    assert cp.promote_types(np.int8, np.uint8) == np.int16


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16])
def test_nextafter_steps_one_bit_of_the_result_type(dtype):
    rng = np.random.default_rng(3)
    h1 = (rng.random(40) * 200 - 100).astype(dtype)
    h2 = (rng.random(40) * 200 - 100).astype(dtype)
    if np.dtype(dtype).kind == "f":
        h1[:6] = [0, -0.0, np.inf, np.nan, 1, 2]
        h2[:6] = [1, -1, 0, 1, 1, np.nan]
    got = cp.nextafter(cp.asarray(h1), cp.asarray(h2))
    want = np.nextafter(h1, h2)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    # a Python number stays weak: the array's type
    np.testing.assert_array_equal(cp.nextafter(cp.asarray(h1), 0).get(), np.nextafter(h1, 0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_i0_matches_numpy(dtype):
    # (|x| <= 10: NumPy's float16 i0 overflows in its exp(x) beyond; CuPy's and cuprum's
    # compute in float)
    h = (np.random.default_rng(4).random(50) * 20 - 10).astype(dtype)
    got, want = cp.i0(cp.asarray(h)), np.i0(h)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.get(), want, rtol={np.float16: 2e-3}.get(dtype, 2e-6))
    with pytest.raises(TypeError):
        cp.i0(cp.asarray(np.ones(2, np.complex64)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32])
def test_ldexp_and_frexp_match_numpy(dtype):
    rng = np.random.default_rng(5)
    h = (rng.random(30) * 2000 - 1000).astype(dtype)
    if np.dtype(dtype).kind == "f":
        h[:5] = [0, -0.0, np.inf, -np.inf, np.nan]
    ex = rng.integers(-30, 30, 30).astype(np.int32)
    ex[:3] = [-100000, 5000, 2**31 - 1]
    with np.errstate(over="ignore"):
        want = np.ldexp(h, ex)
    got = cp.ldexp(cp.asarray(h), cp.asarray(ex))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(cp.ldexp(cp.asarray(h), 3).get(), np.ldexp(h, 3))
    m, e = cp.frexp(cp.asarray(h))
    wm, we = np.frexp(h)
    assert (m.dtype, e.dtype) == (wm.dtype, we.dtype)
    np.testing.assert_array_equal(m.get(), wm)
    np.testing.assert_array_equal(e.get(), we)
    # Inside cuprum.fuse: the float64 pieces of the ufunc table, one kernel.
    fused = cp.fuse()(lambda a, k: (cp.ldexp(a, k), cp.ldexp(a, 3), *cp.frexp(a)))
    for _ in range(2):
        got = fused(cp.asarray(h), cp.asarray(ex))
        for g, w in zip(got, (want, np.ldexp(h, 3), wm, we)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g.get(), w)


def test_ldexp_and_frexp_errors():
    x = cp.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        cp.ldexp(x, cp.asarray(np.ones(3, np.float32)))
    with pytest.raises(TypeError):
        cp.frexp(cp.asarray(np.ones(3, np.complex64)))

    @cp.fuse()
    def f(a, k):
        return cp.ldexp(a, k)

    with pytest.raises(TypeError, match="ldexp"):
        f(x, x)
    with pytest.raises(TypeError, match="ldexp"):
        f(x, 2.5)
    with pytest.raises(TypeError):
        cp.fuse(lambda a: cp.frexp(a))(cp.asarray(np.ones(3, np.complex64)))


def test_ufuncs_refuse_host_arrays_as_cupy_does():
    x = cp.asarray([1, 2])
    for call in (
        lambda: cp.add(np.array([2, -3]), x),
        lambda: cp.add(x, np.array([2, -3])),
        lambda: cp.reciprocal(np.array([2, -3])),
        lambda: cp.float_power(np.array([2, 3]), x),
        lambda: cp.gcd(x, np.array([2, 3])),
    ):
        with pytest.raises(TypeError, match=r"Unsupported type <class 'numpy.ndarray'>"):
            call()
    # lists and 0-d NumPy arrays stay values (a 0-d array is a scalar)
    np.testing.assert_array_equal(cp.add([1, 1], x).get(), [2, 3])
    np.testing.assert_array_equal(cp.add(np.array(2), x).get(), [3, 4])
    with pytest.raises(TypeError, match="not numpy.ndarray"):
        cp.repeat(x, np.array([1, 2]))
    np.testing.assert_array_equal(cp.repeat(x, np.int64(2)).get(), [1, 1, 2, 2])


class _Overrides(np.lib.mixins.NDArrayOperatorsMixin):
    """Another library's array type with its own ``__array_ufunc__``: it reports the call."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ufunc.__name__, inputs, kwargs


class _OptsOut:
    """An object that opts out of NumPy's ufuncs and has reflected operators."""

    __array_ufunc__ = None

    def __radd__(self, other):
        return "radd"

    def __rmatmul__(self, other):
        return "rmatmul"

    def __gt__(self, other):
        return "gt"


def test_operators_hand_other_librarys_arrays_to_their_array_ufunc():
    x = cp.asarray(_data(np.float64, 4))
    y = _Overrides()
    for got, want in [
        (x + y, ("add", (x, y), {})),
        (y + x, ("add", (y, x), {})),
        (x * y, ("multiply", (x, y), {})),
        (x // y, ("floor_divide", (x, y), {})),
        (x**y, ("power", (x, y), {})),
        (x < y, ("less", (x, y), {})),
        (x == y, ("equal", (x, y), {})),
        (x @ y, ("matmul", (x, y), {})),
        (np.add(x, y), ("add", (x, y), {})),
    ]:
        assert got[0] == want[0] and got[2] == want[2]
        assert all(a is b for a, b in zip(got[1], want[1])), (got, want)
    with pytest.raises(TypeError):
        x += y
    z = _OptsOut()
    assert (x + z, x @ z, x < z) == ("radd", "rmatmul", "gt")


def test_asnumpy_takes_cupys_arguments():
    h = RNG.standard_normal((3, 4))
    x = cp.asarray(h)
    out = np.empty((3, 4))
    assert cp.asnumpy(x, out=out) is out
    np.testing.assert_array_equal(out, h)
    got = cp.asnumpy(x.T, order="F", blocking=False, stream=cp.cuda.Stream.null)
    assert got.flags.f_contiguous
    np.testing.assert_array_equal(got, h.T)
    assert cp.asnumpy(x.T, order="A").flags.f_contiguous
    assert cp.asnumpy(x, order="A").flags.c_contiguous
    # host data goes through numpy.asarray, into `out` when given
    out = np.zeros(3)
    assert cp.asnumpy([1.5, 2.5, 3.5], out=out) is out
    np.testing.assert_array_equal(out, [1.5, 2.5, 3.5])
    assert cp.asnumpy([[1, 2], [3, 4]], order="F").flags.f_contiguous


def test_cuda_array_interface_is_cupys_on_a_gpu():
    h = RNG.standard_normal((4, 6)).astype(np.float32)
    x = cp.asarray(h)
    if os.environ.get("CUPRUM_DEVICE") == "host":
        # host memory is no GPU memory: the attribute is absent
        assert not hasattr(x, "__cuda_array_interface__")
        return
    for a, strides in [(x, None), (x.T, (4, 24)), (x[1:, ::2], (24, 8))]:
        d = a.__cuda_array_interface__
        assert d["shape"] == a.shape and d["strides"] == strides
        assert (d["typestr"], d["descr"], d["version"]) == ("<f4", [("", "<f4")], 3)
        assert d["data"] == (a.data.ptr, False)
        assert d["stream"] not in (0, None)
    assert cp.empty((0, 3)).__cuda_array_interface__["data"] == (0, False)

    # cuprum imports it back without a copy
    class Wrapped:
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    y = cp.asarray(Wrapped(x.T))
    assert y.data.ptr == x.data.ptr
    np.testing.assert_array_equal(y.get(), h.T)


class _EqOnly:
    def __eq__(self, other):
        return (other == 2) | (other == 4)


class _NeOnly:
    def __ne__(self, other):
        return (other == 2) | (other == 4)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_comparison_with_objects_of_their_own_eq_or_ne_is_numpys(dtype):
    h = np.array([[1, 2, 3], [4, 5, 6]], dtype=dtype)
    x = cp.asarray(h)
    for value in (_EqOnly(), _NeOnly()):
        np.testing.assert_array_equal((x == value).get(), h == value)
        np.testing.assert_array_equal((x != value).get(), h != value)
