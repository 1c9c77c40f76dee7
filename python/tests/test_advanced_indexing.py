"""NumPy's subscripts in full against NumPy itself: several index arrays, index arrays
mixed with ints, slices, ``...`` and ``None``, boolean arrays inside tuples, 0-d and empty
masks; reading, assigning (scalars, broadcast values, non-contiguous targets) and
``ufunc.at`` (``add``, ``subtract``, ``maximum``, ``minimum``, the bitwise ones) with
repeated indices; and the errors, by class and message."""

import numpy as np
import pytest

import cuprum as cp

RNG = np.random.default_rng(7)

# Subscripts of a (4, 5, 6) array, each with what NumPy makes of it.
KEYS = [
    ([1, 0], slice(None)),
    (slice(None), [1, 0]),
    ([1, 0], Ellipsis),
    (Ellipsis, [1, 0]),
    ([1, 0], [2, 3]),
    ([[1], [0]], [2, 3, 4]),
    (0, slice(None), [0, 2]),  # int and array apart: the broadcast axes go first
    ([0, 2], slice(None), 0),
    (slice(1, 3), [0, -1], [1, 2]),
    (np.array([True, False, True, True]), 1),
    (slice(None), np.array([True, False, True, True, False])),
    (None, [1, 2], None, 3),
    (np.ones((4, 5), bool),),
    (np.ones((4, 5), bool), [0]),
    ([], slice(None)),
    (True,),
    (False, 1),
    ([1, 0], slice(None), [2, 3]),
    ([-1, -4], [0, 4], [5, 0]),
    (np.array(2), [1]),
    (slice(None, None, -1), [3, 1]),
    (Ellipsis, [[1, 2]], [[0], [1]]),
    (slice(None), [0, 1], Ellipsis, [0, 1]),  # `...` parts the arrays though it is empty
    (np.array([], bool),),
    (slice(None), np.zeros((5, 0), bool)),
    (np.int64(1), [2, 2, 0]),
    [3, 0, 3],
    np.array([[1, 2], [3, 0]]),
]


def _base(dtype, shape=(4, 5, 6)):
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "c":
        v = RNG.standard_normal(n) + 1j * RNG.standard_normal(n)
    elif np.dtype(dtype).kind == "f":
        v = RNG.standard_normal(n) * 10
    elif np.dtype(dtype).kind == "b":
        v = RNG.integers(0, 2, n)
    else:
        v = RNG.integers(1, 100, n)
    return v.astype(dtype).reshape(shape)


def _device(k):
    """The subscript with its NumPy arrays as cuprum arrays (both must be taken)."""
    if isinstance(k, tuple):
        return tuple(cp.asarray(e) if isinstance(e, np.ndarray) else e for e in k)
    return cp.asarray(k) if isinstance(k, np.ndarray) else k


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_reading_matches_numpy(k):
    key = KEYS[k]
    a = _base(np.float32)
    want = a[key]
    for given in (key, _device(key)):
        got = cp.asarray(a)[given]
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_reading_views_matches_numpy(k):
    # transposed, reversed and stepped, broadcast: read where they lie, not copied first
    key = KEYS[k]
    t = _base(np.float32, (6, 5, 4))
    s = _base(np.float32, (8, 5, 12))
    r = _base(np.float32, (4, 1, 6))
    views = [
        (t.transpose(2, 1, 0), cp.asarray(t).transpose(2, 1, 0)),
        (s[::-2, :, ::2], cp.asarray(s)[::-2, :, ::2]),
        (np.broadcast_to(r, (4, 5, 6)), cp.broadcast_to(cp.asarray(r), (4, 5, 6))),
    ]
    for host, dev in views:
        assert not dev.flags.c_contiguous
        want = host[key]
        got = dev[_device(key)]
        assert got.shape == want.shape, (key, got.shape, want.shape)
        np.testing.assert_array_equal(got.get(), want)


def test_an_index_into_a_broadcast_larger_than_memory():
    a = cp.lib.stride_tricks.as_strided(
        cp.arange(2, dtype=cp.int32), shape=(2, 2**32), strides=(4, 0)
    )
    np.testing.assert_array_equal(a[cp.array([1]), cp.array([1])].get(), [1])
    np.testing.assert_array_equal(a[[1, 0], [2**32 - 1, 0]].get(), [1, 0])
    with pytest.raises(IndexError, match="index 4294967296 is out of bounds for axis 1"):
        a[[0], [2**32]]


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float64, np.complex128, np.bool_])
def test_reading_and_writing_every_item_size(dtype):
    a = _base(dtype)
    for key in [([3, 1, 1], slice(1, 4), [5, 0, 2]), (Ellipsis, [4, 0]), ([0, 2], [1, 3])]:
        np.testing.assert_array_equal(cp.asarray(a)[key].get(), a[key])
        want = a.copy()
        v = _base(dtype, want[key].shape)
        want[key] = v
        x = cp.asarray(a)
        x[key] = cp.asarray(v)
        np.testing.assert_array_equal(x.get(), want, err_msg=str(key))


def _unique_targets(key):
    """Whether NumPy writes each element of a (4, 5, 6) array at most once through ``key``
    (with repeats, which value wins is unspecified, as in CuPy)."""
    pos = np.arange(120).reshape(4, 5, 6)[key]
    return len(np.unique(pos)) == pos.size


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_writing_matches_numpy(k):
    key = KEYS[k]
    a = _base(np.float64)
    sel = a[key]
    # a scalar
    want = a.copy()
    want[key] = 7.5
    x = cp.asarray(a)
    x[key] = 7.5
    np.testing.assert_array_equal(x.get(), want)
    if not _unique_targets(key):
        return
    # values of the selection's shape, and values that broadcast to it
    for v in (_base(np.float64, sel.shape), _base(np.float64, sel.shape[-1:] or ())):
        want = a.copy()
        want[key] = v
        x = cp.asarray(a)
        x[_device(key)] = cp.asarray(v)
        np.testing.assert_array_equal(x.get(), want)


def test_writing_through_a_non_contiguous_view_and_with_a_cast():
    a = _base(np.float32, (6, 8))
    want = a.copy()
    want.T[[1, 3], 2:5] = np.arange(6).reshape(2, 3)
    x = cp.asarray(a)
    x.T[[1, 3], 2:5] = cp.arange(6).reshape(2, 3)  # int64 values into float32
    np.testing.assert_array_equal(x.get(), want)
    want[::2][[0, 2], [1, 1]] = -1
    x[::2][[0, 2], [1, 1]] = -1
    np.testing.assert_array_equal(x.get(), want)


def test_augmented_assignment_with_index_arrays():
    a = _base(np.int64, (5, 4))
    want = a.copy()
    want[[0, 4], 1:3] += 10
    want[[1, 2], [3, 0]] *= 2
    x = cp.asarray(a)
    x[[0, 4], 1:3] += 10
    x[[1, 2], [3, 0]] *= 2
    np.testing.assert_array_equal(x.get(), want)


def test_rows_of_a_1d_and_2d_array_by_one_index_array():
    # one integer array indexes the first axis: whole rows, for reading and writing
    a = _base(np.float32, (3, 4))
    want = a.copy()
    want[[2, 0]] = 5
    want[np.array(1)] = [1, 2, 3, 4]
    x = cp.asarray(a)
    x[[2, 0]] = 5
    x[cp.asarray(1)] = cp.asarray([1, 2, 3, 4], dtype=cp.float32)
    np.testing.assert_array_equal(x.get(), want)
    np.testing.assert_array_equal(x[[1, 1, 2]].get(), want[[1, 1, 2]])


@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "minimum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.uint16])
def test_ufunc_at_applies_every_repeated_index(name, dtype):
    a = _base(dtype, (4, 6))
    for key in [
        ([1, 1, 0, 1], slice(None)),
        ([2, 2, 3], [0, 0, 5]),
        np.array([3, 3, 1]),
        (np.array([True, False, True, True]), 0),
        (Ellipsis, [5, 5, 5]),
    ]:
        sel = a[key]
        v = _base(dtype, sel.shape)
        want = a.copy()
        getattr(np, name).at(want, key, v)
        x = cp.asarray(a)
        getattr(cp, name).at(x, _device(key), cp.asarray(v))
        if np.dtype(dtype).kind == "f":  # atomic float adds come in no fixed order
            np.testing.assert_allclose(x.get(), want, rtol=1e-5, err_msg=str(key))
        else:
            np.testing.assert_array_equal(x.get(), want, err_msg=str(key))


def test_ufunc_at_nan_wins_and_bitwise_operations():
    x = cp.asarray([1.0, np.nan, 3.0])
    cp.maximum.at(x, [0, 0, 1, 2], cp.asarray([np.nan, 5.0, 2.0, 1.0]))
    got = x.get()
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == 3.0
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    for name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
        want = a.copy()
        getattr(np, name).at(want, ([0, 0, 3], [1, 1, 5]), np.int32(6))
        x = cp.asarray(a)
        getattr(cp, name).at(x, ([0, 0, 3], [1, 1, 5]), np.int32(6))
        np.testing.assert_array_equal(x.get(), want)
    z = cp.zeros(3, dtype=cp.complex64)
    cp.add.at(z, [2, 2], 1 + 2j)
    assert z.get().tolist() == [0, 0, 2 + 4j]


@pytest.mark.parametrize(
    "key, cls, text",
    [
        (([0, 9], slice(None)), IndexError, "index 9 is out of bounds for axis 0 with size 4"),
        ((0, [1], [7]), IndexError, "index 7 is out of bounds for axis 2 with size 6"),
        (([0, 1], [0, 1, 2]), IndexError, "shape mismatch: indexing arrays could not be"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        (([0.5, 1],), IndexError, "integer or boolean"),
        ((np.ones(3, bool),), IndexError, "boolean index did not match"),
        ((0, 0, 0, [0]), IndexError, "too many indices for array"),
    ],
)
def test_errors_are_numpys(key, cls, text):
    a = _base(np.float32)
    with pytest.raises(cls):
        a[key]
    x = cp.asarray(a)
    with pytest.raises(cls, match=text.replace("(", r"\(")):
        x[key]
    with pytest.raises(cls, match=text.replace("(", r"\(")):
        x[key] = 1


def test_a_value_that_does_not_broadcast_is_a_value_error():
    x = cp.zeros((4, 5))
    with pytest.raises(ValueError, match="could not be broadcast to indexing result"):
        x[[0, 1], [1, 2]] = cp.ones(3)
    np.testing.assert_array_equal(x.get(), np.zeros((4, 5)))  # nothing written


def test_real_and_imag_are_views_that_take_assignments():
    z = cp.asarray(np.array([1 + 2j, 3 + 4j], np.complex64))
    z.real[1] = 9
    z.imag = cp.asarray([5.0, 6.0], dtype=cp.float32)
    assert z.get().tolist() == [1 + 5j, 9 + 6j]
    r = cp.arange(3.0)
    r.real = 4.0
    assert r.get().tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(TypeError, match="imaginary part"):
        r.imag = 1.0
    assert r.conj() is r


def test_methods_numpy_has_for_its_functions():
    a = np.array([[1.26, -2.5, 3.75], [0.5, 1.5, 2.5]])
    x = cp.asarray(a)
    np.testing.assert_array_equal(x.round(1).get(), a.round(1))
    np.testing.assert_array_equal(x.clip(0, 2).get(), a.clip(0, 2))
    np.testing.assert_array_equal(x.ptp(axis=1).get(), np.ptp(a, axis=1))
    np.testing.assert_array_equal(x.flatten("F").get(), a.flatten("F"))
    np.testing.assert_array_equal(x.ravel("F").get(), a.ravel("F"))
    s = cp.asarray([1.0, 2.0, 4.0])
    np.testing.assert_array_equal(s.searchsorted(cp.asarray([3.0])).get(), [2])
    np.testing.assert_array_equal(np.around(np.array([1500.0, 2500.0]), -3), [2000.0, 2000.0])
    np.testing.assert_array_equal(
        cp.around(cp.asarray([1500.0, 2500.0]), -3).get(), [2000.0, 2000.0]
    )
    choices = [np.arange(4) * 10, np.arange(4) * 100, 7]
    pick = np.array([0, 1, 2, 1])
    np.testing.assert_array_equal(
        cp.asarray(pick).choose([cp.asarray(c) for c in choices[:2]] + [7]).get(),
        pick.choose(choices),
    )
    np.testing.assert_array_equal(
        cp.choose(cp.asarray([5, -1]), [cp.zeros(2), cp.ones(2)], mode="clip").get(), [1.0, 0.0]
    )
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        cp.choose(cp.asarray([2]), [cp.zeros(1), cp.ones(1)])


def test_get_in_fortran_order_and_its_checks():
    x = cp.arange(6.0).reshape(2, 3)
    f = x.get(order="F")
    assert f.flags.f_contiguous and f.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(RuntimeError, match="non-contiguous"):
        x.get(out=np.empty((3, 4))[:2, :3])
    with pytest.raises(ValueError, match="Shape mismatch"):
        x.get(out=np.empty((3, 2)))
    with pytest.raises(TypeError, match="cannot be obtained"):
        x.get(out=np.empty((2, 3), np.float32))


def test_ndarray_can_be_subclassed():
    class Mine(cp.ndarray):
        pass

    m = Mine((2, 3), dtype=cp.float32)
    m[...] = 1
    assert isinstance(m, cp.ndarray) and m.get().sum() == 6


@pytest.mark.parametrize("dtype", [object, "i,i", "U3", "float32"])
def test_index_arrays_of_other_dtypes_are_numpys_index_error(dtype):
    a = cp.arange(10)
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        a[np.array([1, 2], dtype=dtype)]
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        np.arange(10)[np.array([1, 2], dtype=dtype)]
