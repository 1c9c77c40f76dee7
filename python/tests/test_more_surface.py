"""NumPy's surface routines composed in Python (``pad``; the base-n and formatting
functions; ``piecewise``; the memory-range checks) against NumPy on random inputs:
values, result dtypes, odd shapes and NumPy's errors."""

import numpy as np
import pytest
from compare import same

import cuprum as cp

RNG = np.random.default_rng(11)
DTYPES = [np.int32, np.uint8, np.int64, np.float32, np.float64, np.complex64, np.complex128]


def data(shape, dtype):
    """Random non-zero values of ``dtype``."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        x = RNG.random(n) < 0.5
    elif dtype.kind == "f":
        x = RNG.standard_normal(n) * 10
    elif dtype.kind == "c":
        x = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)) * 10
    elif dtype.kind == "u":
        x = RNG.integers(1, 100, n)
    else:
        x = RNG.integers(1, 50, n) * RNG.choice([-1, 1], n)
    return np.asarray(x).astype(dtype).reshape(shape)


def same_error(f, g, cls=ValueError):
    """``f()`` (cuprum) raises ``cls`` with the message of NumPy's ``g()``."""
    with pytest.raises(cls) as want:
        g()
    with pytest.raises(cls) as got:
        f()
    assert str(got.value) == str(want.value)


# ---------------------------------------------------------------------------- pad

PAD_MODES = [
    ("constant", {}),
    ("constant", {"constant_values": (3, 5)}),
    ("edge", {}),
    ("wrap", {}),
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {"end_values": (2, -7)}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {}),
    ("mean", {"stat_length": (1, 2)}),
    ("median", {}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,kw", PAD_MODES)
@pytest.mark.parametrize("shape", [(5,), (2, 3), (1, 4), (3, 1, 2)])
@pytest.mark.parametrize("width", [1, (2, 7), 0])
def test_pad_modes(dtype, mode, kw, shape, width):
    h = data(shape, dtype)
    same(cp.pad(cp.asarray(h), width, mode, **kw), np.pad(h, width, mode, **kw))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "maximum"])
def test_pad_per_axis_and_odd_shapes(mode):
    h = data((3, 4), np.float64)
    w = [(1, 9), (0, 2)]
    same(cp.pad(cp.asarray(h), w, mode), np.pad(h, w, mode))
    one = data((1,), np.int64)
    same(cp.pad(cp.asarray(one), 3, mode), np.pad(one, 3, mode))
    zero_d = np.asarray(2.5)
    same(cp.pad(cp.asarray(zero_d), 2, "constant"), np.pad(zero_d, 2, "constant"))


def test_pad_empty_and_function():
    e = np.zeros((0, 3))
    same(cp.pad(cp.asarray(e), 1, constant_values=4), np.pad(e, 1, constant_values=4))
    got = cp.pad(cp.arange(6).reshape(2, 3), 2, "empty")
    assert got.shape == (6, 7) and got.dtype == np.int64
    same(got[2:4, 2:5], np.arange(6).reshape(2, 3))

    def tens(vector, width, axis, kwargs):
        vector[: width[0]] = 10
        vector[vector.size - width[1] :] = 10

    h = np.arange(6.0).reshape(2, 3)
    same(cp.pad(cp.asarray(h), 2, tens), np.pad(h, 2, tens))


def test_pad_errors():
    a, h = cp.arange(4), np.arange(4)
    same_error(lambda: cp.pad(a, [-1, 1]), lambda: np.pad(h, [-1, 1]))
    same_error(lambda: cp.pad(a, 1, "foo"), lambda: np.pad(h, 1, "foo"))
    same_error(
        lambda: cp.pad(a, 1, "edge", constant_values=1),
        lambda: np.pad(h, 1, "edge", constant_values=1),
    )
    same_error(lambda: cp.pad(a, 1.5), lambda: np.pad(h, 1.5), TypeError)
    same_error(lambda: cp.pad(a, [[3, 4], [5, 6]]), lambda: np.pad(h, [[3, 4], [5, 6]]))
    e, he = cp.zeros(0), np.zeros(0)
    same_error(lambda: cp.pad(e, 1, "edge"), lambda: np.pad(he, 1, "edge"))
    same_error(
        lambda: cp.pad(a, 1, "maximum", stat_length=0),
        lambda: np.pad(h, 1, "maximum", stat_length=0),
    )
