"""CuPy's names that CuPy's own tests reach for: NumPy's that CuPy re-exports (``iinfo``,
``finfo``, ``cuprum.exceptions``), ``cuprum.copy`` in each memory order, reductions of
NumPy data, ``cuda.Device.use``, ``cuda.runtime``'s queries; against NumPy. Runs on the GPU when there is one, else on
the host device (``conftest.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import cuprum as cp


def test_numpy_names():
    assert cp.iinfo(cp.int8).max == 127 and cp.iinfo is np.iinfo
    assert cp.finfo(cp.float32).eps == np.finfo(np.float32).eps
    assert issubclass(cp.exceptions.AxisError, ValueError)
    assert issubclass(cp.exceptions.ComplexWarning, RuntimeWarning)


def _views(x):
    return {
        "c": x,
        "f": np.asfortranarray(x),
        "transposed": x.transpose(2, 0, 1),
        "sliced": x[:, ::2, 1:],
        "reversed": x[::-1],
    }


@pytest.mark.parametrize("order", ["C", "F", "A", "K", "c", None])
@pytest.mark.parametrize("view", ["c", "f", "transposed", "sliced", "reversed"])
def test_copy_orders(order, view):
    host = _views(np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4))[view]
    dev = {
        "c": lambda a: a,
        "f": lambda a: cp.copy(a, "F"),
        "transposed": lambda a: a.transpose(2, 0, 1),
        "sliced": lambda a: a[:, ::2, 1:],
        "reversed": lambda a: a[::-1],
    }[view](cp.arange(2 * 3 * 4, dtype=cp.float64).reshape(2, 3, 4))
    got, want = cp.copy(dev, order), np.copy(host, order)
    np.testing.assert_array_equal(got.get(), want)
    assert got.strides == want.strides
    assert got is not dev


def test_copy_small_and_bad_order():
    for shape in [(0,), (1, 0, 2), (), (5,)]:
        a = cp.zeros(shape, dtype=cp.int32)
        for order in "CFAK":
            assert cp.copy(a, order).shape == shape
    with pytest.raises(ValueError):
        cp.copy(cp.zeros(3), "X")


def test_reductions_of_numpy_data_are_numpys():
    # As CuPy's: cupy.sum(a) is a.sum(), so NumPy data gets NumPy's answer.
    host = np.arange(12, dtype=np.float64).reshape(3, 4)
    for name in ("sum", "prod", "mean", "max", "min", "amax", "amin", "argmax", "all", "any"):
        got = getattr(cp, name)(host, axis=0)
        assert isinstance(got, np.ndarray), name
        np.testing.assert_array_equal(got, getattr(np, name)(host, axis=0))
    assert cp.var(host, ddof=1) == np.var(host, ddof=1)
    assert isinstance(cp.sum(np.float32(2)), np.generic)
    dev = cp.sum(cp.asarray(host), axis=1)  # device data stays on the device
    assert isinstance(dev, cp.ndarray)
    np.testing.assert_array_equal(dev.get(), host.sum(axis=1))


def test_device_use():
    assert cp.cuda.Device(0).use() is None
    assert cp.cuda.Device().id == 0


def test_runtime_queries():
    from cuprum.cuda import runtime

    assert runtime.is_hip is False
    assert runtime.getDeviceCount() >= 1 and runtime.getDevice() == 0
    p = runtime.getDeviceProperties(0)
    assert isinstance(p["name"], bytes) and p["name"]
    assert p["warpSize"] == 32 and p["maxThreadsPerBlock"] >= 256
    assert p["multiProcessorCount"] >= 1 and p["totalGlobalMem"] > 0
    assert len(p["maxThreadsDim"]) == 3 and len(p["maxGridSize"]) == 3
    free, total = runtime.memGetInfo()
    assert 0 < free <= total
    runtime.deviceSynchronize()
    assert (runtime.cudaAddressModeBorder, runtime.cudaReadModeNormalizedFloat) == (3, 1)
    with pytest.raises(ValueError):
        runtime.getDeviceProperties(runtime.getDeviceCount() + 5)


def test_numpy2_names_and_scalar_type_aliases():
    x = cp.asarray(np.linspace(-0.9, 0.9, 12).reshape(3, 4))
    h = x.get()
    for ours, theirs in (
        (cp.acos(x), np.acos(h)),
        (cp.atan2(x, 2.0), np.atan2(h, 2.0)),
        (cp.pow(x, 2), np.pow(h, 2)),
        (cp.concat([x, x], axis=1), np.concat([h, h], axis=1)),
        (cp.permute_dims(x, (1, 0)), np.permute_dims(h, (1, 0))),
        (cp.matrix_transpose(x), np.matrix_transpose(h)),
        (cp.vecdot(x, x), np.vecdot(h, h)),
        (cp.astype(x, np.float32), np.astype(h, np.float32)),
    ):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours.get(), theirs, rtol=1e-6)
    i = cp.arange(5)
    np.testing.assert_array_equal(cp.bitwise_left_shift(i, 2).get(), np.arange(5) << 2)
    np.testing.assert_array_equal(cp.bitwise_invert(i).get(), ~np.arange(5))
    assert [u.tolist() for u in cp.unstack(x, axis=1)] == [list(c) for c in h.T.tolist()]
    assert cp.acos is cp.arccos and cp.concat is cp.concatenate
    for name in ("double", "single", "half", "longlong", "intc", "ubyte", "uint", "cdouble"):
        assert getattr(cp, name) is getattr(np, name), name
    assert cp.zeros(2, dtype=cp.double).dtype == np.float64
    assert cp.s_[1:3] == np.s_[1:3] and cp.isdtype(cp.float32, "real floating")
    with pytest.raises(ValueError):
        cp.matrix_transpose(cp.arange(3))
