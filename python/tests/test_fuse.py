"""``cuprum.fuse`` as a CuPy program uses ``cupy.fuse``: operators, ufuncs, ``where``,
``astype`` and reductions inside the function, NumPy 2's promotion, shapes (0-d, empty,
broadcast, views), tuple returns, the decorator forms, and the errors with CuPy's
exception classes. Every result is compared with NumPy running the same function body on
the host data (random inputs, never zeros).

Runs on the GPU when there is one, else on the host device (``conftest.py``).
"""

from __future__ import annotations

import operator
import os

import numpy as np
import pytest

import cuprum as cp

RNG = np.random.default_rng(7)

INTS = (np.int32, np.int64)
FLOATS = (np.float32, np.float64)
ALL = (*INTS, *FLOATS, np.bool_, np.complex128)


def rand(shape, dtype=np.float64, low=-10, high=10):
    """Random values of ``dtype`` in ``[low, high)``, never zero."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dtype.kind == "c":
        v = RNG.uniform(low, high, size=shape) + 1j * RNG.uniform(low, high, size=shape)
    elif dtype.kind in "iu":
        v = RNG.integers(low, high, size=shape)
    else:
        v = RNG.uniform(low, high, size=shape)
    v = np.asarray(v).astype(dtype)
    return np.where(v == 0, np.asarray(1, dtype), v).astype(dtype)


def to_device(v):
    return cp.asarray(v) if isinstance(v, np.ndarray) else v


def check(got, want):
    """``got`` (cuprum arrays, or a tuple of them) equals NumPy's ``want``: dtype, shape,
    values (floats to their precision)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    assert isinstance(got, cp.ndarray), type(got)
    want = np.asarray(want)
    h = got.get()
    assert h.dtype == want.dtype, (h.dtype, want.dtype)
    assert h.shape == want.shape, (h.shape, want.shape)
    if want.dtype.kind in "fc":
        rtol = 2e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(h, want, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(h, want)


def run(body, *args):
    """``body(cp, *args)`` fused on the device copies of ``args``, checked against
    ``body(np, *args)`` on the host data; returns the fused function."""
    f = cp.fuse(lambda *a: body(cp, *a))
    with np.errstate(all="ignore"):
        want = body(np, *args)
    check(f(*[to_device(a) for a in args]), want)
    return f


# ---------------------------------------------------------------------------- operators

BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}


def _takes(op, dtype):
    kind = np.dtype(dtype).kind
    if op in ("&", "|", "^"):
        return kind in "iub"
    if op in ("<<", ">>"):
        return kind in "iu"
    if kind == "b":
        return op in ("+", "*", "/", "<", "<=", ">", ">=", "==", "!=")
    if kind == "c":
        return op in ("+", "-", "*", "/", "**", "==", "!=")
    return True


def _operands(op, dtype, shape=(7,)):
    x = rand(shape, dtype)
    if op == "**" and np.dtype(dtype).kind in "iu":
        return x, rand(shape, dtype, 0, 4)
    if op in ("<<", ">>"):
        return x, rand(shape, dtype, 0, 6)
    if op == "**" and np.dtype(dtype).kind == "f":
        return np.abs(x), rand(shape, dtype, -3, 3)
    if op == "**":
        return x / 4, rand(shape, dtype, -2, 2)
    return x, rand(shape, dtype)


CASES = [(op, d) for op in BINARY for d in ALL if _takes(op, d)]


@pytest.mark.parametrize(("op", "dtype"), CASES, ids=[f"{o}-{np.dtype(d)}" for o, d in CASES])
def test_binary_operator_matches_numpy(op, dtype):
    f = BINARY[op]
    x, y = _operands(op, dtype)
    run(lambda xp, a, b: f(a, b), x, y)


@pytest.mark.parametrize("dtype", [d for d in ALL if d is not np.bool_])
def test_unary_operators_match_numpy(dtype):
    x = rand((9,), dtype)
    run(lambda xp, a: -a, x)
    run(lambda xp, a: +a, x)
    run(lambda xp, a: abs(a), x)


@pytest.mark.parametrize("dtype", [*INTS, np.bool_])
def test_invert_matches_numpy(dtype):
    run(lambda xp, a: ~a, rand((9,), dtype))


@pytest.mark.parametrize("dtype", ALL)
def test_reflected_operators_with_python_scalars(dtype):
    x = rand((5, 3), dtype)
    if np.dtype(dtype).kind == "b":
        run(lambda xp, a: (True * a, 1 + a, a | False), x)
        return
    run(lambda xp, a: (2 * a, 3 - a, a + 1, a * 2), x)


def test_a_chain_is_one_expression():
    x, y = rand((4, 5), np.float32), rand((4, 5), np.float32)
    run(lambda xp, a, b: (a - b) * (a - b) / 2 + a * 0.5 - 1, x, y)
    run(lambda xp, a, b: ((a > b) & (a > 0)) | (b < -5), x, y)


# ---------------------------------------------------------------------------- ufuncs

FLOAT_UFUNCS = {
    "exp": lambda xp, a: xp.exp(a / 4),
    "log": lambda xp, a: xp.log(xp.abs(a) + 1),
    "sqrt": lambda xp, a: xp.sqrt(xp.absolute(a)),
    "trig": lambda xp, a: xp.sin(a) + xp.cos(a) * xp.tan(a / 8),
    "hyperbolic": lambda xp, a: xp.tanh(a) - xp.sinh(a / 4) + xp.cosh(a / 4),
    "inverse": lambda xp, a: xp.arctan(a) + xp.arcsin(a / 10) + xp.arccos(a / 10),
    "rounding": lambda xp, a: (xp.floor(a), xp.ceil(a), xp.trunc(a), xp.rint(a)),
    "sign": lambda xp, a: xp.sign(a) * xp.square(a) + xp.reciprocal(a),
    "log2_10": lambda xp, a: xp.log2(xp.abs(a)) + xp.log10(xp.abs(a)) + xp.log1p(xp.abs(a)),
    "exp2_expm1": lambda xp, a: xp.exp2(a / 4) + xp.expm1(a / 4) + xp.cbrt(a),
    "binary": lambda xp, a: (xp.maximum(a, 1), xp.minimum(a, -1), xp.hypot(a, 2)),
    "nextafter_i0": lambda xp, a: (xp.nextafter(a, a + 1), xp.nextafter(a, 0), xp.i0(a / 2)),
    "arctan2": lambda xp, a: xp.arctan2(a, a + 3) + xp.fmod(a, 3),
    "predicates": lambda xp, a: (xp.isnan(a), xp.isinf(a / 0.5), xp.isfinite(a), xp.signbit(a)),
    "where": lambda xp, a: xp.where(a > 0, a, 0.5 * a),
    "clip": lambda xp, a: (xp.clip(a, -2, 3), xp.clip(a, None, 1.5)),
    "logical": lambda xp, a: (xp.logical_and(a > 0, a < 5), xp.logical_not(a > 1)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", list(FLOAT_UFUNCS))
def test_ufuncs_match_numpy(name, dtype):
    run(FLOAT_UFUNCS[name], rand((3, 7), dtype))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_ufuncs_match_numpy(dtype):
    x, y = rand((11,), dtype), rand((11,), dtype)
    run(lambda xp, a, b: (xp.maximum(a, b), xp.remainder(a, b), xp.floor_divide(a, b)), x, y)
    run(lambda xp, a, b: (xp.bitwise_and(a, b), xp.left_shift(a, 2), xp.sign(a)), x, y)
    run(lambda xp, a, b: xp.where(a > b, a, b) + xp.abs(a), x, y)
    run(lambda xp, a, b: xp.sqrt(xp.abs(a)) * b, x, y)  # float64 from an integer


def test_complex_ufuncs_match_numpy():
    z = rand((6,), np.complex128)
    run(lambda xp, a: (xp.exp(a / 8), xp.abs(a), xp.conj(a), xp.sqrt(a)), z)
    run(lambda xp, a: (xp.real(a), xp.imag(a), a.real * a.imag, a.conj()), z)
    run(lambda xp, a: (xp.angle(a), a * 1j + 2), z)


def test_ufunc_dtype_keyword_and_astype():
    x = rand((8,), np.float64)
    run(lambda xp, a: xp.add(a, 1, dtype=np.float32), x)
    run(lambda xp, a: (a.astype(np.int32), a.astype("float32") * 2, (a > 0).astype(int)), x)


def test_dtype_and_ndim_inside_the_function():
    seen = {}

    @cp.fuse()
    def f(x):
        seen["dtype"], seen["ndim"] = x.dtype, x.ndim
        return x * 2

    f(cp.asarray(rand((2, 3), np.float32)))
    assert seen == {"dtype": np.dtype(np.float32), "ndim": 2}


# ---------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 3, 5), (0, 3)])
def test_shapes(shape):
    x, y = rand(shape, np.float64), rand(shape, np.float64)
    run(lambda xp, a, b: xp.exp(a / 10) * b - 1, x, y)


@pytest.mark.parametrize(
    ("sx", "sy"), [((3, 1), (1, 4)), ((5,), (2, 5)), ((), (3,)), ((2, 1, 3), (4, 1)), ((1,), ())]
)
def test_broadcasting(sx, sy):
    run(lambda xp, a, b: a * b + a, rand(sx, np.float32), rand(sy, np.float32))


def test_non_contiguous_views():
    h = rand((6, 8), np.float64)
    d = cp.asarray(h)
    f = cp.fuse(lambda a, b: a * 2 + b)
    check(f(d[::2], d[1::2]), h[::2] * 2 + h[1::2])
    check(f(d.T, d.T), h.T * 2 + h.T)
    check(f(d[:, 1::3], d[:, ::3]), h[:, 1::3] * 2 + h[:, ::3])
    check(f(d[::-1, 2], 1.5), h[::-1, 2] * 2 + 1.5)


def test_zero_dim_arguments_and_results():
    x = rand((), np.float32)
    run(lambda xp, a, b: a + b, x, rand((4,), np.float32))
    run(lambda xp, a: (a * a).sum(), rand((5,), np.float32))


# ---------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_with_axis_and_keepdims(axis, keepdims):
    x = rand((3, 4, 5), np.float64)
    k = {"axis": axis, "keepdims": keepdims}
    run(lambda xp, a: xp.sum(a * 2, **k), x)
    run(lambda xp, a: (xp.max(a, **k), xp.min(a, **k), xp.mean(a, **k)), x)
    run(lambda xp, a: (a.sum(**k), a.max(**k), a.min(**k), a.prod(**k)), x / 5)


@pytest.mark.parametrize("dtype", [*INTS, *FLOATS, np.bool_])
def test_reduction_dtypes(dtype):
    x = rand((4, 6), dtype, -3, 4)
    run(lambda xp, a: (xp.sum(a), xp.sum(a, axis=1)), x)
    run(lambda xp, a: (a.any(), a.all(axis=0)), x)
    if dtype is not np.bool_:
        run(lambda xp, a: (xp.max(a, axis=0), xp.mean(a), xp.prod(a, axis=1)), x)


def test_reduction_keywords_and_work_after_it():
    x = rand((5, 40), np.float64)
    run(lambda xp, a: xp.sqrt(xp.sum(a * a, axis=-1)), x)
    run(lambda xp, a: (a.var(axis=1), a.std(), xp.var(a, axis=0, ddof=1)), x)
    run(lambda xp, a: xp.sum(a, dtype=np.float32), x)
    run(lambda xp, a: xp.count_nonzero(a > 1, axis=1), x)
    run(lambda xp, a: a - xp.max(a, axis=1, keepdims=True), x)  # a softmax's first step


def test_mse_of_two_arrays():
    y, p = rand((1001,), np.float32), rand((1001,), np.float32)

    @cp.fuse(kernel_name="mse")
    def mse(a, b):
        d = a - b
        return cp.mean(d * d)

    check(mse(cp.asarray(y), cp.asarray(p)), np.mean((y - p) * (y - p)))


# ---------------------------------------------------------------------------- returns


def test_tuple_returns():
    x = rand((4,), np.float64)
    f = run(lambda xp, a: (a + 1, a * a, xp.sum(a)), x)
    r = f(cp.asarray(x))
    assert isinstance(r, tuple) and len(r) == 3
    one = cp.fuse(lambda a: (a + 1,))(cp.asarray(x))
    assert isinstance(one, tuple) and len(one) == 1
    check(one[0], x + 1)
    no_none = cp.fuse(lambda a: (a + 1, None))(cp.asarray(x))
    assert isinstance(no_none, tuple) and len(no_none) == 1


def test_one_value_returned_twice_and_beside_a_reduction():
    x = rand((5,), np.float64)

    def f(a):
        y = a * 2 + 1
        return y, cp.sum(a), y

    first, total, again = cp.fuse(f)(cp.asarray(x))
    check(first, x * 2 + 1)
    check(again, x * 2 + 1)
    check(total, np.sum(x))


def test_returning_none_runs_nothing():
    assert cp.fuse(lambda a: None)(cp.asarray(rand((3,)))) is None


# ---------------------------------------------------------------------------- scalars


@pytest.mark.parametrize(
    ("dtype", "scalar"),
    [
        (np.float32, 2.5),
        (np.int32, 3.5),
        (np.int8, 3),
        (np.int32, True),
        (np.float32, np.float64(2.5)),
        (np.float32, np.float32(2.5)),
        (np.int32, np.int64(3)),
        (np.int32, np.float32(2.0)),
        (np.int16, np.uint16(3)),
        (np.float32, 1 + 2j),
        (np.float32, np.complex64(1 + 2j)),
    ],
    ids=lambda v: repr(v),
)
def test_scalar_promotion_as_numpy_2(dtype, scalar):
    """Python scalars are weak, NumPy scalars strong: as arguments and as literals."""
    x = rand((6,), dtype)
    run(lambda xp, a, s: a * s, x, scalar)
    run(lambda xp, a: a * scalar, x)
    run(lambda xp, a, s: s + a, x, scalar)


def test_scalar_argument_values_are_not_traced():
    f = cp.fuse(lambda a, s: a + s)
    x = rand((3,), np.float64)
    for s in (1.0, -2.5, 1e10):
        check(f(cp.asarray(x), s), x + s)


def test_scalars_only_run_eagerly():
    @cp.fuse()
    def f(a, b):
        return (a - b) * (a - b)

    assert f(2.0, 5) == 9.0
    h = rand((3,), np.float64)
    r = f(h, 1.0)  # NumPy arrays only: NumPy runs it, as CuPy does
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, (h - 1.0) * (h - 1.0))


def test_none_arguments_reach_the_function():
    @cp.fuse()
    def f(a, b, c):
        return a * 2 if b is None else a * b

    x = rand((4,), np.float64)
    check(f(cp.asarray(x), None, 1), x * 2)
    check(f(cp.asarray(x), cp.asarray(x), None), x * x)


# ---------------------------------------------------------------------------- arguments


class Foreign:
    """Another framework's array (host memory here): ``__dlpack__`` only."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_other_frameworks_arrays_are_arguments():
    if os.environ.get("CUPRUM_DEVICE") != "host":
        pytest.skip("host memory is a device array on the host device only")
    x, y = rand((5,), np.float64), rand((5,), np.float64)
    f = cp.fuse(lambda a, b: a * b + 1)
    check(f(Foreign(x), cp.asarray(y)), x * y + 1)
    check(f(Foreign(x), Foreign(y)), x * y + 1)


def test_composed_fused_functions_inline():
    inner = cp.fuse(lambda a, b: a * b)

    @cp.fuse()
    def outer(a, b):
        return inner(a, b) + inner(a, 2.0)

    x, y = rand((5,), np.float32), rand((5,), np.float32)
    check(outer(cp.asarray(x), cp.asarray(y)), x * y + x * np.float32(2))


def test_in_place_on_a_local_value():
    @cp.fuse()
    def f(a, b):
        d = a - b
        alias = d
        d *= 2
        d += 1
        return d, alias

    x, y = rand((5,), np.float32), rand((5,), np.float32)
    want = (x - y) * 2 + 1
    check(f(cp.asarray(x), cp.asarray(y)), (want, want))


def test_in_place_on_arguments_writes_the_callers_arrays():
    """As CuPy: ``x += y`` on an argument writes the caller's array."""

    @cp.fuse()
    def update(p, g, lr):
        p -= lr * g

    p, g = rand((4, 5), np.float32), rand((4, 5), np.float32)
    dp = cp.asarray(p)
    assert update(dp, cp.asarray(g), 0.1) is None
    check(dp, p - np.float32(0.1) * g)

    @cp.fuse()
    def both(a, b):
        a *= 2
        b[...] = a + 1
        return a.sum()

    a, b = rand((3,), np.int64), rand((3,), np.float64)
    da, db = cp.asarray(a), cp.asarray(b)
    check(both(da, db), (a * 2).sum())
    check(da, a * 2)
    check(db, (a * 2 + 1).astype(np.float64))

    @cp.fuse()
    def fill(a):
        a[:] = np.nan

    h = rand((2, 3), np.float32)
    dh = cp.asarray(h)
    fill(dh)
    assert np.isnan(dh.get()).all()
    view = cp.asarray(rand((4, 6), np.float64))
    before = view.get()
    fill(view[:, ::2])  # a strided view of the caller's array
    after = view.get()
    assert np.isnan(after[:, ::2]).all()
    np.testing.assert_array_equal(after[:, 1::2], before[:, 1::2])


def test_the_same_array_twice_is_one_value():
    """``f(x, x)`` writing its first argument: the second sees the writes, as in NumPy."""

    @cp.fuse()
    def f(a, b):
        a += b
        a += b

    h = rand((3, 4), np.int64)
    d = cp.asarray(h)
    f(d, d)
    check(d, h * 4)


def test_repeat_calls_on_cuprum_arrays_read_their_own_arguments():
    """A call of cuprum arrays alone, of a signature traced before, runs the engine's
    program without binding them one by one, and a program of one element-wise kernel
    replays that kernel's launch (``express`` in ``python/fuse.rs``, ``fuse/run.rs``):
    each call must read its own arrays and return new ones; aliases, views, reductions and
    written arguments keep their meaning."""

    @cp.fuse()
    def f(x, y):
        return x * 2.5 + y, x - y

    @cp.fuse()
    def g(x, y):
        return (x * y).sum(axis=-1)

    @cp.fuse()
    def add_to(x, y):
        x += y

    kept = []
    for shape in [(1025,), (4, 34), (1025,), (0,), ()]:
        for _ in range(3):
            h, k = rand(shape), rand(shape)
            x, y = cp.asarray(h), cp.asarray(k)
            a, b = f(x, y)
            check((a, b), (h * 2.5 + k, h - k))
            assert all(a.data.ptr != p.data.ptr for p in kept if p.size)
            kept.append(a)
            check(f(x, x), (h * 2.5 + h, h - h))
            if len(shape) == 2:
                hv, kv = h[:, ::2], k[::-1, 1::2]
                check(f(x[:, ::2], y[::-1, 1::2]), (hv * 2.5 + kv, hv - kv))
                check(g(x, y), (h * k).sum(axis=-1))
            add_to(x, y)
            check(x, h + k)
    # Arrays of another dtype, then the first again.
    for dtype in (np.float32, np.int64, np.float64):
        h, k = rand((7,), dtype), rand((7,), dtype)
        check(f(cp.asarray(h), cp.asarray(k)), (h * 2.5 + k, h - k))


def test_written_arguments_sharing_memory_give_numpys_values():
    """A written argument whose memory another input shares gives what NumPy gives: fused
    when every read of the other comes before the write, else one operation at a time."""

    def twice(x, y, z):  # CuPy's test_inplace_same_memory_space: called as (x, x, x.T)
        x += z
        x += z

    def late_view(x):
        v = x[0]  # a view of the row, read after x is written
        x += 1
        return v * 1

    def both(a, b):
        a += 1
        b += 1

    def once(a, b):
        a += b

    def reread(a, b):
        t = b + 1
        a += 1
        return t, b + 1  # the same expression as t, reading what a's write changed

    for fn, views in (
        (twice, lambda a: (a, a, a.T)),
        (late_view, lambda a: (a,)),
        (both, lambda a: (a, a.T)),
        (reread, lambda a: (a, a.T)),
        (once, lambda a: (a, a.T)),
        (once, lambda a: (a[0], a[1])),  # one buffer, disjoint elements
        (once, lambda a: (a[:, 1:], a[:, :-1])),
    ):
        f = cp.fuse()(fn)
        for _ in range(2):  # the trace, then the signature's entry
            h = rand((4, 4), np.int64)
            d = cp.asarray(h)
            want = fn(*views(h))
            got = f(*views(d))
            if want is None:
                assert got is None
            else:
                check(got, want)
            check(d, h)


def test_new_axes_of_computed_values():
    """``v[None, :]`` of a value computed inside the function (CuPy's batch-norm example):
    the new axes reach the arrays the value reads, and reduced values are read through a
    view of what their kernel wrote."""

    def batchnorm(x, gamma, beta, running_mean, running_var, size, adjust):
        decay, eps = 0.9, 2e-5
        expander = (None, slice(None), None, None)
        gamma = gamma[expander]
        beta = beta[expander]
        mean = x.sum(axis=(0, 2, 3)) / size
        diff = x - mean[expander]
        var = (diff * diff).sum(axis=(0, 2, 3)) / size
        inv_std = (
            1.0 / np.sqrt(var + eps) if isinstance(x, np.ndarray) else 1.0 / cp.sqrt(var + eps)
        )
        y = gamma * diff * inv_std[expander] + beta
        running_mean *= decay
        running_mean += (1 - decay) * mean
        running_var *= decay
        running_var += (1 - decay) * adjust * var
        return y

    f = cp.fuse()(batchnorm)
    for dtype in (np.float32, np.float64):
        for shape in ((5, 4, 3, 2), (2, 3, 1, 7)):
            h = [rand(shape, dtype), rand(shape[1:2], dtype), rand(shape[1:2], dtype)]
            h += [rand(shape[1:2], dtype), rand(shape[1:2], dtype, 1, 3)]
            size = h[0].size // h[1].size
            adjust = size / max(size - 1.0, 1.0)
            d = [cp.asarray(a) for a in h]
            want = batchnorm(*h, size, adjust)
            got = f(*d, size, adjust)
            np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(d[3].get(), h[3], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(d[4].get(), h[4], rtol=1e-5, atol=1e-5)

    cases = {
        "row": lambda a, b: (a * 2)[None],
        "column": lambda a, b: (a + b)[:, None],
        "ellipsis": lambda a, b: (a - 1)[..., None, :],
        "both_ends": lambda a, b: (a * b)[None, ..., None],
        "twice": lambda a, b: (a + 1)[None][:, :, None] * b,
        "reduced_rows": lambda a, b: a - a.sum(axis=1)[:, None],
        "reduced_all": lambda a, b: a.sum()[None] + b[0],
        "reduced_keep": lambda a, b: a.max(axis=0)[None, :, None] + a[:, :, None],
        "reduction_of_view": lambda a, b: (a.sum(axis=1)[:, None] * b).sum(axis=1),
        "scanned": lambda a, b: a.cumsum(axis=1)[None] * 2,
        "broadcast_operand": lambda a, b: (a + b[0])[None, :, None],
        "scalar_operand": lambda a, b: (a * 3 + 1)[:, None, :],
        "zero_d": lambda a, b: (a[0, 0] * 2)[None, None],
    }

    def eager(fn, a, b):
        return fn(a, b)

    for name, fn in cases.items():
        f = cp.fuse()(fn)
        for shape in ((3, 4), (1, 5), (4, 1), (0, 3)):
            if (
                name in ("zero_d", "reduced_all", "reduced_keep", "broadcast_operand")
                and 0 in shape
            ):
                continue
            ha, hb = rand(shape, np.float64), rand(shape, np.float64)
            want = eager(fn, ha, hb)
            got = f(cp.asarray(ha), cp.asarray(hb))
            assert got.shape == want.shape, (name, shape, got.shape, want.shape)
            np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-12, err_msg=name)

    x = cp.asarray(rand((3, 4)))
    with pytest.raises(NotImplementedError, match="only new axes"):
        cp.fuse(lambda a: (a * 2)[0])(x)
    with pytest.raises(NotImplementedError, match="only new axes"):
        cp.fuse(lambda a: (a * 2)[::2])(x)
    with pytest.raises(IndexError, match="too many indices"):
        cp.fuse(lambda a: (a * 2)[:, :, :])(x)
    with pytest.raises(IndexError, match="single ellipsis"):
        cp.fuse(lambda a: (a * 2)[..., None, ...])(x)


def test_scalars_stay_immutable():
    """A scalar's value rebinds on ``s += ...``, as Python's scalars do (CuPy's too)."""

    @cp.fuse()
    def f(s, t, a):
        copy = s
        s += t
        u = t
        u += a  # a scalar plus an array: an array
        return a + s + copy, u

    a = rand((3,), np.float32)
    s, t = np.float32(2), np.float32(3)
    check(f(s, t, cp.asarray(a)), (a + (s + t) + s, t + a))
    with pytest.raises(TypeError, match="ArrayType"):
        cp.fuse(lambda a, s: cp.add(a, 1, out=s))(cp.asarray(a), 2.0)


def test_out_arguments_of_ufuncs_and_reductions():
    @cp.fuse()
    def f(a, b, c):
        cp.add(a, b, out=c)
        r = cp.multiply(a, 2, out=a)
        return r, cp.sum(b, axis=0, out=cp.max(b, axis=0))

    a, b, c = rand((3, 4)), rand((3, 4)), rand((3, 4))
    da, db, dc = cp.asarray(a), cp.asarray(b), cp.asarray(c)
    check(f(da, db, dc), (a * 2, b.sum(axis=0)))
    check(dc, a + b)
    check(da, a * 2)
    check(db, b)


def test_empty_tuple_return():
    assert cp.fuse(lambda a: ())(cp.asarray(rand((3,)))) == ()


def test_get_array_module_inside():
    seen = []

    @cp.fuse()
    def f(a):
        seen.append(cp.get_array_module(a))
        return a

    f(cp.asarray(rand((3,))))
    assert seen == [cp]


def test_cumsum_inside():
    run(lambda xp, a: (a * 2).cumsum() + 1, rand((9,), np.float64))
    run(lambda xp, a: a.cumsum(axis=1), rand((3, 4), np.int32))


def test_cache_per_signature():
    calls = []

    @cp.fuse()
    def f(a):
        calls.append(a.dtype)
        return a + 1

    for d in (np.float32, np.float32, np.int32, np.float32):
        h = rand((3,), d)
        check(f(cp.asarray(h)), h + 1)
    assert len(calls) == 2
    f.clear_cache()
    f(cp.asarray(rand((4,), np.float32)))
    assert len(calls) == 3


# ---------------------------------------------------------------------------- the object


def test_decorator_forms_and_repr():
    def sq(x):
        """Squares."""
        return x * x

    plain = cp.fuse(sq)
    called = cp.fuse()(sq)
    named = cp.fuse(kernel_name="n")(sq)
    positional = cp.fuse("m")(sq)
    assert repr(plain) == "<Fusion 'sq'>" and repr(called) == "<Fusion 'sq'>"
    assert repr(named) == "<Fusion 'n'>" and repr(positional) == "<Fusion 'm'>"
    assert plain.__name__ == "sq" and plain.__doc__ == "Squares." and plain.__wrapped__ is sq
    assert named.name == "n" and named.func is sq
    assert repr(cp.fuse(lambda x: x)) == "<Fusion '<lambda>'>"
    x = rand((3,), np.int64)
    for f in (plain, called, named, positional):
        check(f(cp.asarray(x)), x * x)


# ---------------------------------------------------------------------------- errors


def test_an_exception_in_the_function_surfaces_unchanged():
    class Mine(Exception):
        pass

    @cp.fuse()
    def type_error(a):
        return a + len(a)  # a traced value has no len()

    @cp.fuse()
    def raises(a):
        raise Mine("from the user")

    x = cp.asarray(rand((3,)))
    with pytest.raises(TypeError, match="len"):
        type_error(x)
    with pytest.raises(Mine, match="from the user"):
        raises(x)
    check(cp.fuse(lambda a: a * 3)(x), x.get() * 3)  # the process keeps working


def test_a_dtype_error_is_cuprums_type_error():
    f = cp.fuse(lambda a, b: a - b)
    b = cp.asarray(np.array([True, False]))
    with pytest.raises(cp.DTypeError, match="subtract") as e:
        f(b, b)
    assert isinstance(e.value, TypeError) and e.value.kind == "DType"
    assert "src/python" not in str(e.value)  # no Rust location in the message


def test_a_dtype_error_raises_at_the_operation():
    caught = []

    @cp.fuse()
    def f(a):
        try:
            a - a
        except TypeError as e:
            caught.append(e)
        return a

    with pytest.raises(cp.DTypeError):  # the trace stays failed
        f(cp.asarray(np.array([True])))
    assert isinstance(caught[0], cp.DTypeError)


def test_shapes_that_do_not_broadcast():
    f = cp.fuse(lambda a, b: a + b)
    with pytest.raises(cp.ShapeError, match="broadcast") as e:
        f(cp.asarray(rand((3,))), cp.asarray(rand((4,))))
    assert isinstance(e.value, ValueError)


def test_keyword_arguments_are_refused():
    f = cp.fuse(lambda a, b: a + b)
    with pytest.raises(TypeError, match="unexpected keyword argument 'b'"):
        f(cp.asarray(rand((3,))), b=1.0)


def test_other_refusals():
    x = cp.asarray(rand((3, 4)))
    with pytest.raises(TypeError, match="Cannot convert to Python scalar"):
        cp.fuse(lambda a: a if a > 0 else -a)(x)
    with pytest.raises(TypeError, match="Invalid argument type for 'f'"):
        cp.fuse(kernel_name="f")(lambda a, b: a)(x, [1, 2])
    with pytest.raises(TypeError, match="can't return <class 'float'>"):
        cp.fuse(lambda a: 1.0)(x)
    with pytest.raises(TypeError, match="not an argument"):
        cp.fuse(lambda a: a + x)(x)
    with pytest.raises(NotImplementedError, match="out= inside a fused function"):
        cp.fuse(lambda a: cp.add(a, 1, out=x))(x)
    with pytest.raises(TypeError, match="Python scalar"):
        cp.fuse(lambda a: int(a))(x)
    with pytest.raises(NotImplementedError, match="indexing"):
        cp.fuse(lambda a: a.__setitem__(0, 1))(x)
    with pytest.raises(TypeError, match="same_kind"):
        cp.fuse(lambda a: _imul((a > 0).astype(np.int32), 1.5))(x)
    with pytest.raises(cp.CuprumError, match="axis"):
        cp.fuse(lambda a: a.sum(axis=2))(x)
    with pytest.raises(NotImplementedError, match="indexing a value computed inside"):
        cp.fuse(lambda a: (a * 2)[1:])(x)
    with pytest.raises(TypeError, match="fuse takes a function"):
        cp.fuse()(3)


def _imul(v, s):
    v *= s
    return v


def test_a_traced_value_kept_after_its_call():
    kept = []
    f = cp.fuse(lambda a: kept.append(a) or a * 2)
    f(cp.asarray(rand((2,))))
    with pytest.raises(cp.ArgumentError, match="outside its fused function"):
        kept[0] + 1


def test_reducing_scalars_only_is_refused():
    f = cp.fuse(lambda a, s: (a + 1, (s * 2).sum()))
    with pytest.raises(NotImplementedError, match="computed from scalars only"):
        f(cp.asarray(rand((2,))), np.float64(3))


# ---------------------------------------------------------------- indexing of arguments


@pytest.mark.parametrize(
    "index",
    [
        1,
        -1,
        (1, 0),
        (-1, 0, -2),
        slice(None),
        slice(None, None, -1),
        (slice(None), slice(1, None, 2)),
        Ellipsis,
        (Ellipsis, 2),
        None,
        (None, slice(None), None),
        (1, None, slice(None, None, -1), None, 2),
    ],
    ids=repr,
)
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128])
def test_basic_indexing_of_an_argument_is_numpys(index, dtype):
    h = rand((2, 3, 4), dtype)
    f = cp.fuse(lambda a: a[index] * 2)
    got = f(cp.asarray(h))
    want = h[index] * 2
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


def test_indexing_with_computation_views_of_views_and_many_shapes():
    def body(points, mask, w):
        return cp.where(mask[:, None], cp.inf, points) + w[::-1][0] + points[1][::2].sum()

    f = cp.fuse(body)
    for n in (6, 9, 1):  # one signature, three shapes: views are made per call
        p, m, w = rand((n, 4)), rand((n,), np.bool_), rand((3,))
        args = (cp.asarray(p), cp.asarray(m), cp.asarray(w))
        if n < 2:  # points[1] does not exist: NumPy's error, from the call
            with pytest.raises(IndexError, match="out of bounds"):
                f(*args)
            continue
        want = np.where(m[:, None], np.inf, p) + w[::-1][0] + p[1][::2].sum()
        np.testing.assert_allclose(f(*args).get(), want)
    # the same array twice: one traced value, its views the caller's
    x = rand((5, 5))
    g = cp.fuse(lambda a, b: a[0] + b[:, 0])
    np.testing.assert_allclose(g(cp.asarray(x), cp.asarray(x)).get(), x[0] + x[:, 0])


def test_indexing_errors_are_numpys_or_say_what_is_supported():
    x = cp.asarray(rand((2, 3)))
    with pytest.raises(IndexError, match="out of bounds"):
        cp.fuse(lambda a: a[5])(x)
    with pytest.raises(IndexError):
        cp.fuse(lambda a: a[0, 0, 0])(x)
    with pytest.raises(NotImplementedError, match="ints, slices, ... and None"):
        cp.fuse(lambda a: a[[0, 1]])(x)
    with pytest.raises(NotImplementedError, match="ints, slices, ... and None"):
        cp.fuse(lambda a: a[True])(x)

    def write_through_view(a):
        v = a[0]
        v += 1

    with pytest.raises(NotImplementedError, match="writing through a view"):
        cp.fuse(write_through_view)(x)
