"""``x[mask] op= v`` run as one masked update (``_augmented.py``, ``augmented.rs``): the
results are NumPy's for every operator, dtype, mask shape and value form, errors
included, and a selection that the user can see is always an ordinary array."""

from __future__ import annotations

import operator
import weakref

import numpy as np
import pytest

import cuprum as cp
from cuprum import _augmented

OPS = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "**=": operator.ipow,
    "/=": operator.itruediv,
}
INT_ONLY = {"&=", "|=", "^=", "<<=", ">>="}


def _statement(op: str) -> str:
    # A real augmented statement (operator.iadd(x[m], v) would not be one).
    return f"def run(x, m, v):\n    x[m] {op} v\n"


def _compiled(op: str):
    ns: dict = {}
    exec(compile(_statement(op), "<augmented>", "exec"), ns)  # noqa: S102 (the statement under test)
    return ns["run"]


def _pair(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        xh = (rng.random(shape) * 20 + 1).astype(dtype)
    else:
        xh = rng.integers(1, 50, size=shape).astype(dtype)
    mh = rng.random(shape[:1] if len(shape) > 1 and seed % 2 else shape) > 0.4
    return xh, mh


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float32", "float64"])
def test_every_operator_matches_numpy(op, dtype):
    if op in INT_ONLY and np.dtype(dtype).kind == "f":
        pytest.skip("bitwise operators take integers")
    if op == "/=" and np.dtype(dtype).kind != "f":
        pytest.skip("true division of an integer array is a cast error (tested below)")
    run = _compiled(op)
    for seed, shape in enumerate([(1000,), (7, 5), (1,), (0,), (3, 4, 2)]):
        xh, mh = _pair(dtype, shape, seed)
        x, m = cp.asarray(xh), cp.asarray(mh)
        v = 3 if op not in ("<<=", ">>=") else 2
        run(x, m, v)
        run(xh, mh, v)
        if np.dtype(dtype).kind == "f":  # powf's last bit is the library's
            np.testing.assert_allclose(x.get(), xh, rtol=1e-6)
        else:
            np.testing.assert_array_equal(x.get(), xh)


def test_prime_loop_matches_numpy():
    n = 5000
    nums, totals = cp.arange(2, n + 1, dtype=cp.int64), cp.zeros(n - 1, dtype=cp.int64)
    nh, th = np.arange(2, n + 1, dtype=np.int64), np.zeros(n - 1, dtype=np.int64)
    for p in (2, 3, 5, 7, 11, 13):
        for _ in range(4):
            mask, mh = nums % p == 0, nh % p == 0
            totals[mask] += p
            nums[mask] //= p
            th[mh] += p
            nh[mh] //= p
    mask = nums > 1
    totals[mask] += nums[mask]
    th[nh > 1] += nh[nh > 1]
    np.testing.assert_array_equal(totals.get(), th)


def test_array_values_broadcast_and_ranked():
    xh = np.arange(12, dtype=np.float32).reshape(4, 3)
    rows = np.array([True, False, True, True])
    x, m = cp.asarray(xh), cp.asarray(rows)
    row = cp.asarray(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    x[m] += row
    xh[rows] += row.get()
    np.testing.assert_array_equal(x.get(), xh)
    ranked = cp.asarray(np.arange(9, dtype=np.float32).reshape(3, 3))
    x[m] -= ranked
    xh[rows] -= ranked.get()
    np.testing.assert_array_equal(x.get(), xh)
    wrong = cp.ones((2, 3), dtype=cp.float32)
    with pytest.raises(ValueError):
        x[m] += wrong


def test_numpy_mask_and_numpy_scalar_value():
    xh = np.arange(10, dtype=np.int32)
    mh = xh % 3 == 0
    x = cp.asarray(xh)
    v = np.int64(7)
    x[mh] += v
    xh[mh] += v
    assert x.dtype == np.int32
    np.testing.assert_array_equal(x.get(), xh)


def test_errors_are_the_in_place_ones():
    x = cp.arange(10)
    m = x > 4
    with pytest.raises(TypeError, match="same_kind"):
        x[m] += 0.5
    with pytest.raises(TypeError, match="unsupported operand type for add: str"):
        v = "a"
        x[m] += v
    with pytest.raises(TypeError, match="same_kind"):
        x[m] /= 2
    bad = cp.zeros(3, dtype=bool)
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[bad] += 1
    with pytest.raises(NameError):
        x[m] += undefined_name  # noqa: F821
    np.testing.assert_array_equal(x.get(), np.arange(10))


def test_a_selection_the_user_holds_is_an_array():
    x = cp.arange(10)
    m = x > 6
    y = x[m]
    assert isinstance(y, cp.ndarray)
    y += 1
    np.testing.assert_array_equal(x.get(), np.arange(10))
    np.testing.assert_array_equal(y.get(), [8, 9, 10])
    t = x[m]
    t += 100
    x[m] = t
    np.testing.assert_array_equal(x.get()[7:], [107, 108, 109])


def test_values_that_run_code_take_the_ordinary_path():
    x = cp.arange(6)
    m = x > 2
    calls = []

    def value():
        calls.append(1)
        x[...] = 0  # written between the load and the store: NumPy's t is the old x
        return 1

    x[m] += value()
    np.testing.assert_array_equal(x.get(), [0, 0, 0, 4, 5, 6])
    assert calls == [1]


def test_through_a_proxy_and_in_a_closure():
    x = cp.arange(6)
    m = x > 2
    p = weakref.proxy(x)
    p[m] += 10

    def inner():
        x[m] -= 1

    inner()
    np.testing.assert_array_equal(x.get(), [0, 1, 2, 12, 13, 14])


def test_module_level_statement():
    ns = {"cp": cp}
    exec(  # noqa: S102 (a module-level statement)
        compile("x = cp.arange(5)\nm = x > 1\np = 2\nx[m] *= p\n", "<module>", "exec"),
        ns,
    )
    np.testing.assert_array_equal(ns["x"].get(), [0, 1, 4, 6, 8])


def test_the_bytecode_test():
    import sys

    def load_of(src: str) -> list[bool]:
        seen: list[bool] = []

        class Probe:
            def __getitem__(self, key):
                seen.append(_augmented.augmented_load(2))
                return self

            def __setitem__(self, key, value):
                pass

            def __iadd__(self, other):
                return self

        ns = {"x": Probe(), "m": 1, "p": 2, "f": lambda: 1}
        exec(compile(src, "<probe>", "exec"), ns)  # noqa: S102 (bytecode under test)
        return seen

    assert load_of("x[m] += p") == [True]
    assert load_of("x[m] += 3") == [True]
    assert load_of("y = x[m]") == [False]
    assert load_of("x[m] += f()") == [False]
    assert load_of("x[m] += x[m]") == [False, False]
    assert load_of("x[m] += p if p else 1") == [False]
    assert sys.version_info >= (3, 9)
