"""The native launch of a compiled ``cuprum.jit`` signature (``_JitLaunch``): a repeated
launch takes it, and whatever it launches is what the Python path launches — every
argument kind, strided arrays and their hidden extents and strides, a change of
signature, errors."""

from __future__ import annotations

import numpy
import pytest

import cuprum as cp
from cuprum import jit


@jit.rawkernel()
def axpb(x, y, a, b):
    i = jit.grid(1)
    if i < x.size:
        y[i] = x[i] * a + b


@jit.rawkernel()
def rows(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        out[i] = x[i, 0] + x[i, x.shape[1] - 1]


def _run(k, *args, grid=(2,), block=(64,)):
    k(grid, block, args)


@pytest.mark.parametrize(
    "a, b",
    [
        (2, 3),  # Python ints (int32)
        (2.5, 0.25),  # Python floats (float32)
        (numpy.float64(1.5), numpy.int16(-4)),  # NumPy scalars
        (numpy.float16(0.5), True),  # float16 (passed as float32) and a bool
        (2**40, 1),  # an int past int32
    ],
)
def test_repeated_launches_match_numpy(a, b):
    xh = numpy.arange(100, dtype=numpy.float64) - 30
    x = cp.asarray(xh)
    for _ in range(3):  # the first compiles, the others launch natively
        y = cp.zeros(100, dtype=cp.float64)
        _run(axpb, x, y, a, b)
        want = xh * numpy.float64(a) + numpy.float64(b)
        numpy.testing.assert_allclose(y.get(), want, rtol=1e-6)
    assert axpb._fast is not None


def test_complex_scalar_and_array():
    xh = (numpy.arange(50) + 1j * numpy.arange(50)).astype(numpy.complex64)
    x = cp.asarray(xh)
    for _ in range(2):
        y = cp.zeros(50, dtype=cp.complex64)
        _run(axpb, x, y, 1 + 2j, 0.5)
        numpy.testing.assert_allclose(y.get(), xh * (1 + 2j) + 0.5, rtol=1e-6)


def test_strided_views_and_extents():
    base = numpy.arange(60, dtype=numpy.int32).reshape(6, 10)
    x = cp.asarray(base)
    for view, hv in [(x[::2, 1::3], base[::2, 1::3]), (x[:, ::-1], base[:, ::-1]), (x, base)]:
        for _ in range(2):
            out = cp.zeros(hv.shape[0], dtype=cp.int32)
            _run(rows, view, out)
            numpy.testing.assert_array_equal(out.get(), hv[:, 0] + hv[:, -1])


def test_signature_changes_take_the_python_path():
    for dtype in ["float32", "int64", "float32", "float64"]:
        xh = numpy.arange(70).astype(dtype)
        x = cp.asarray(xh)
        y = cp.zeros(70, dtype=dtype)
        _run(axpb, x, y, 3, 1)
        numpy.testing.assert_array_equal(y.get(), (xh * 3 + 1).astype(dtype))


def test_errors_are_the_raw_kernels():
    x = cp.arange(10, dtype=cp.float32)
    y = cp.zeros(10, dtype=cp.float32)
    _run(axpb, x, y, 2, 1)
    with pytest.raises(ValueError, match="block must have 1 to 3 dimensions"):
        axpb((1,), (), (x, y, 2, 1))
    with pytest.raises(TypeError):
        axpb((1,), (32,), (x, y, 2))  # one argument short: another signature
    with pytest.raises(TypeError):
        axpb((1,), (32,), (x, y, "a", 1))
    numpy.testing.assert_array_equal(y.get(), numpy.arange(10) * 2 + 1)
