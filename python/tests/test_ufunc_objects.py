"""cuprum's ufuncs as NumPy's ufunc objects (``cuprum.ufunc``): attributes, the forms of
``out`` (positional, tuples, two outputs), ``dtype``/``casting``/``where``, the methods
``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``, and ``matmul``'s ufunc
keywords, against NumPy on random inputs, with NumPy's errors."""

import warnings

import numpy as np
import pytest
from compare import random_values, same, same_error

import cuprum as cp

# NumPy warns of no imaginary part lost where complex values become bools: neither does cuprum
pytestmark = pytest.mark.filterwarnings("error::numpy.exceptions.ComplexWarning")

RNG = np.random.default_rng(11)
DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.float32, np.float64, np.bool_, np.complex64]
SHAPES = [(), (0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 5)]


def data(shape, dtype):
    """Random non-zero values of ``dtype`` (bools both ways)."""
    return random_values(RNG, shape, dtype, unsigned=(1, 10), signed=(1, 10))


def pair(shape, dtype):
    h = data(shape, dtype)
    return cp.asarray(h), h


# ---------------------------------------------------------------------------- attributes


@pytest.mark.parametrize(
    "name",
    ["add", "sin", "equal", "divmod", "modf", "frexp", "ldexp", "maximum", "invert", "fabs"],
)
def test_attributes_are_numpys(name):
    f, g = getattr(cp, name), getattr(np, name)
    assert isinstance(f, cp.ufunc)
    assert (f.nin, f.nout, f.nargs) == (g.nin, g.nout, g.nargs)
    assert f.__name__ == g.__name__
    assert repr(f) == repr(g)
    assert f.identity == g.identity
    want = [t for t in dict.fromkeys(g.types) if not any(c in t for c in "GgMmO")]
    assert f.types == want
    assert f.ntypes == len(want)
    assert f.__doc__
    assert f.signature is None


def test_other_names_are_the_same_objects():
    assert cp.abs is cp.absolute
    assert cp.conj is cp.conjugate
    assert cp.true_divide is cp.divide
    assert cp.mod is cp.remainder
    assert cp.bitwise_not is cp.invert
    assert cp.fabs is not cp.absolute
    assert cp.i0.types == ["e->e", "f->f", "d->d"]
    assert cp.ufunc.__doc__


def test_pickled_by_name():
    import pickle

    for f in (cp.add, cp.sin, cp.divmod, cp.fabs, cp.true_divide):
        assert pickle.loads(pickle.dumps(f)) is f


def test_import_does_not_import_numpy():
    import subprocess
    import sys

    code = "import sys, cuprum; cuprum.add; print('numpy' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "False"


# ---------------------------------------------------------------------------- calls, out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 4)])
def test_out_forms(dtype, shape):
    x, h = pair(shape, dtype)
    y, k = pair(shape, dtype)
    for make in (lambda o: {"out": o}, lambda o: {"out": (o,)}):
        o = cp.zeros(shape, dtype)
        r = cp.add(x, y, **make(o))
        assert r is o
        same(o, np.add(h, k))
        o = cp.zeros(shape, np.float64)
        assert cp.sin(x, **make(o)) is o
        same(o, np.sin(h).astype(np.float64), rtol=1e-6)
    o = cp.zeros(shape, dtype)
    assert cp.add(x, y, o) is o
    same(o, np.add(h, k))
    same(cp.add(x, y, None), np.add(h, k, None))
    same(cp.add(x, y, out=(None,)), np.add(h, k, out=(None,)))
    same(cp.negative(x, None), np.negative(h, None))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3)])
def test_two_outputs(dtype, shape):
    x, h = pair(shape, dtype)
    y, k = pair(shape, dtype)
    want = np.divmod(h, k)
    same(cp.divmod(x, y), want)
    same(cp.divmod(x, y, None, None), want)
    o0, o1 = cp.zeros(shape, dtype), cp.zeros(shape, dtype)
    r = cp.divmod(x, y, out=(o0, o1))
    assert r[0] is o0 and r[1] is o1
    same(r, want)
    o0 = cp.zeros(shape, dtype)
    r = cp.divmod(x, y, o0)
    assert r[0] is o0
    same(r, want)
    o1 = cp.zeros(shape, dtype)
    r = cp.divmod(x, y, out=(None, o1))
    assert r[1] is o1
    same(r, want)
    if np.dtype(dtype).kind == "f":
        o0, o1 = cp.zeros(shape, dtype), cp.zeros(shape, dtype)
        r = cp.modf(x, out=(o0, o1))
        assert r[0] is o0 and r[1] is o1
        same(r, np.modf(h))
        o0, o1 = cp.zeros(shape, dtype), cp.zeros(shape, np.int32)
        r = cp.frexp(x, o0, o1)
        assert r[0] is o0 and r[1] is o1
        same(r, np.frexp(h))


def test_call_errors_are_numpys():
    x, h = pair((3,), np.float64)
    same_error(lambda: cp.add(x), lambda: np.add(h), TypeError)
    same_error(lambda: cp.add(x, x, x, x), lambda: np.add(h, h, h, h), TypeError)
    same_error(lambda: cp.divmod(x), lambda: np.divmod(h), TypeError)
    same_error(lambda: cp.add(x, x, x, out=x), lambda: np.add(h, h, h, out=h), TypeError)
    same_error(lambda: cp.add(x, x, foo=1), lambda: np.add(h, h, foo=1), TypeError)
    same_error(lambda: cp.sin(x, out=()), lambda: np.sin(h, out=()))
    same_error(lambda: cp.sin(x, out=(x, x)), lambda: np.sin(h, out=(h, h)))
    same_error(lambda: cp.divmod(x, x, out=x), lambda: np.divmod(h, h, out=h), TypeError)
    same_error(lambda: cp.divmod(x, x, out=(x,)), lambda: np.divmod(h, h, out=(h,)))
    i8, j8 = cp.zeros(3, np.int8), np.zeros(3, np.int8)
    same_error(
        lambda: cp.divmod(x, x, out=(None, i8)), lambda: np.divmod(h, h, out=(None, j8)), TypeError
    )
    with pytest.raises(TypeError, match="Output arguments type must be cuprum.ndarray"):
        cp.add(x, x, out=[1, 2, 3])
    with pytest.raises(ValueError, match="casting must be one of"):
        cp.add(x, x, casting="bogus")


# ---------------------------------------------------------------------------- dtype, casting


@pytest.mark.parametrize("name", ["floor_divide", "fmod", "remainder", "add", "power"])
@pytest.mark.parametrize("a", [0, 2, -2, True, False, 2.5])
@pytest.mark.parametrize("b", [0, 2, -2, True, False, 1.5])
def test_dtype_is_the_loop_dtype_for_python_scalars(name, a, b):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(np, name)(a, b, dtype=np.float64)
        got = getattr(cp, name)(a, b, dtype=np.float64)
    same(got, want)


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64])
def test_dtype_with_arrays_and_scalars(dtype):
    x, h = pair((2, 3), np.int8)
    same(cp.add(x, 3, dtype=dtype), np.add(h, 3, dtype=dtype))
    same(cp.multiply(2, x, dtype=dtype), np.multiply(2, h, dtype=dtype))


def test_dtype_errors_are_numpys():
    x, h = pair((3,), np.int64)
    for f, g in [
        (lambda: cp.add(2.5, 1, dtype=np.int64), lambda: np.add(2.5, 1, dtype=np.int64)),
        (lambda: cp.add(x, 2.5, dtype=np.int64), lambda: np.add(h, 2.5, dtype=np.int64)),
        (
            lambda: cp.add(x.astype(np.float64), x, dtype=np.int64),
            lambda: np.add(h.astype(np.float64), h, dtype=np.int64),
        ),
    ]:
        same_error(f, g, TypeError)
    x8, h8 = pair((3,), np.int8)
    same_error(
        lambda: cp.add(x8, 300, dtype=np.int8),
        lambda: np.add(h8, 300, dtype=np.int8),
        OverflowError,
    )


CASTS = [
    (np.int64, np.float64),
    (np.uint64, np.int64),
    (np.float64, np.float32),
    (np.float32, np.float64),
    (np.int16, np.uint64),
    (np.complex128, np.float64),
    (np.complex64, np.bool_),
    (np.float64, np.bool_),
    (np.int32, np.int32),
]


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
@pytest.mark.parametrize(("src", "dst"), CASTS)
def test_casting_of_out(src, dst, casting):
    x, h = pair((2, 3), src)
    o, p = cp.zeros((2, 3), dst), np.zeros((2, 3), dst)
    try:
        with warnings.catch_warnings(record=True) as w_want:
            warnings.simplefilter("always")
            np.add(h, h, out=p, casting=casting)
    except TypeError as e:
        with pytest.raises(TypeError) as got:
            cp.add(x, x, out=o, casting=casting)
        if casting != "same_kind":  # (same_kind: the engine's own message)
            assert str(got.value) == str(e)
        return
    with warnings.catch_warnings(record=True) as w_got:
        warnings.simplefilter("always")
        r = cp.add(x, x, out=o, casting=casting)
    assert r is o
    same(o, p)
    assert [w.category for w in w_got] == [w.category for w in w_want]


def test_casting_of_inputs():
    a, h = pair((3,), np.int16)
    b, k = pair((3,), np.int32)
    for casting in ("no", "equiv"):
        same_error(
            lambda c=casting: cp.add(a, b, casting=c),
            lambda c=casting: np.add(h, k, casting=c),
            TypeError,
        )
    same(cp.add(b, b, casting="no"), np.add(k, k, casting="no"))
    same(cp.add(a, b, casting="safe"), np.add(h, k, casting="safe"))


@pytest.mark.parametrize("shape", [(), (1,), (3, 4)])
def test_where(shape):
    x, h = pair(shape, np.float64)
    m, n = pair(shape, np.bool_)
    o, p = pair(shape, np.float64)
    r = cp.add(x, 1.5, out=o, where=m)
    assert r is o
    same(o, np.add(h, 1.5, out=p, where=n))
    r = cp.add(x, 1.5, where=m)
    same(cp.where(m, r, 0.0), np.where(n, h + 1.5, 0.0))


def test_signature():
    x, h = pair((2, 3), np.int32)
    for sig in ["dd->d", (None, None, "f"), ("d", "d", "d")]:
        same(cp.add(x, x, signature=sig), np.add(h, h, signature=sig))
    same(cp.sin(x, signature="f->f"), np.sin(h, signature="f->f"))
    for sig, cls in [("d", TypeError), ("fd->d", TypeError), ("ddd", ValueError)]:
        same_error(
            lambda s=sig: cp.add(x, x, signature=s), lambda s=sig: np.add(h, h, signature=s), cls
        )
    same_error(
        lambda: cp.add(x, x, signature="dd->d", dtype="d"),
        lambda: np.add(h, h, signature="dd->d", dtype="d"),
        TypeError,
    )


def test_order():
    x, h = pair((3, 4), np.float32)
    r = cp.sin(x, order="F")
    assert r.flags.f_contiguous
    same(r, np.sin(h, order="F"))


# ---------------------------------------------------------------------------- reduce


REDUCERS = [
    "add",
    "multiply",
    "maximum",
    "minimum",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "subtract",
    "fmax",
    "fmin",
]


def _fits(name, dtype):
    kind = np.dtype(dtype).kind
    if name.startswith("bitwise"):
        return kind in "biu"
    if name == "subtract":
        return kind != "b"
    if name in ("maximum", "minimum", "fmax", "fmin"):
        return kind != "c"
    return True


def _both(f, g):
    """``f()`` and ``g()`` agree: a result, or an error of one class and message."""
    try:
        with np.errstate(all="ignore"):
            want = g()
    except Exception as e:  # noqa: BLE001  (NumPy's error is the reference)
        with pytest.raises(type(e)) as got:
            f()
        assert str(got.value) == str(e)
        return
    same(f(), want, rtol=1e-4)


@pytest.mark.parametrize("name", REDUCERS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_reduce(name, dtype, shape):
    if not _fits(name, dtype):
        return
    x, h = pair(shape, dtype)
    f, g = getattr(cp, name), getattr(np, name)
    axes = [0, -1, None, (0, -1), ()]
    for axis in axes:
        if axis == () and name == "subtract":
            continue  # (NumPy's subtract.reduce on axis=() keeps the values, as cuprum's)
        for keepdims in (False, True):
            _both(
                lambda a=axis, k=keepdims: f.reduce(x, axis=a, keepdims=k),
                lambda a=axis, k=keepdims: g.reduce(h, axis=a, keepdims=k),
            )


@pytest.mark.parametrize("name", ["subtract", "true_divide"])
@pytest.mark.parametrize("axis", [0, -1])
def test_reduce_of_an_unordered_ufunc_skips_what_where_leaves_out(name, axis):
    # (elements out of the mask are skipped, not filled: no fill leaves subtract unchanged)
    h = np.arange(1.0, 13.0).reshape(3, 4)
    for mask in ([True, False, True, True], [False] * 4, [[False], [True], [False]]):
        n = np.broadcast_to(np.array(mask), h.shape)
        for keepdims in (False, True):
            kw = {"axis": axis, "initial": 2.0, "keepdims": keepdims}
            _both(
                lambda n=n, kw=kw: getattr(cp, name).reduce(
                    cp.asarray(h), where=cp.asarray(n), **kw
                ),
                lambda n=n, kw=kw: getattr(np, name).reduce(h, where=n, **kw),
            )


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract"])
@pytest.mark.parametrize("shape", [(0, 3), (1,), (4, 3)])
def test_reduce_keywords(name, shape):
    x, h = pair(shape, np.float32)
    f, g = getattr(cp, name), getattr(np, name)
    _both(lambda: f.reduce(x, initial=2.0), lambda: g.reduce(h, initial=2.0))
    _both(lambda: f.reduce(x, dtype=np.float64), lambda: g.reduce(h, dtype=np.float64))
    m, n = pair(shape, np.bool_)
    _both(
        lambda: f.reduce(x, where=m, initial=1.0, axis=None),
        lambda: g.reduce(h, where=n, initial=1.0, axis=None),
    )
    if name in ("add", "multiply"):
        _both(lambda: f.reduce(x, where=m), lambda: g.reduce(h, where=n))
    o, p = cp.zeros(shape[1:], np.float64), np.zeros(shape[1:], np.float64)
    try:
        g.reduce(h, out=p)
    except ValueError:
        return
    assert f.reduce(x, out=o) is o
    same(o, p, rtol=1e-5)
    assert f.reduce(x, out=(o,)) is o


def test_reduce_errors_are_numpys():
    x, h = pair((2, 3), np.float64)
    same_error(lambda: cp.sin.reduce(x), lambda: np.sin.reduce(h))
    same_error(lambda: cp.divmod.reduce(x), lambda: np.divmod.reduce(h))
    same_error(
        lambda: cp.subtract.reduce(x, axis=(0, 1)), lambda: np.subtract.reduce(h, axis=(0, 1))
    )
    same_error(lambda: cp.add.reduce(x, axis=(0, 0)), lambda: np.add.reduce(h, axis=(0, 0)))
    same_error(
        lambda: cp.add.reduce(x, axis=2), lambda: np.add.reduce(h, axis=2), np.exceptions.AxisError
    )
    m = cp.asarray([True, False, True])
    same_error(
        lambda: cp.maximum.reduce(x, where=m),
        lambda: np.maximum.reduce(h, where=m.get()),
    )
    e, k = pair((0, 2), np.float64)
    same_error(lambda: cp.maximum.reduce(e), lambda: np.maximum.reduce(k))
    same_error(lambda: cp.subtract.reduce(e), lambda: np.subtract.reduce(k))


# ---------------------------------------------------------------------------- accumulate


@pytest.mark.parametrize("name", REDUCERS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 5), (2, 0, 3)])
def test_accumulate(name, dtype, shape):
    if not _fits(name, dtype):
        return
    x, h = pair(shape, dtype)
    f, g = getattr(cp, name), getattr(np, name)
    for axis in range(-len(shape), len(shape)):
        _both(lambda a=axis: f.accumulate(x, axis=a), lambda a=axis: g.accumulate(h, axis=a))
        if len(shape) > 1 and _fits(name, dtype):
            assert f.accumulate(x, axis=axis).flags.c_contiguous


def test_accumulate_keywords_and_errors():
    x, h = pair((3, 4), np.int8)
    same(cp.add.accumulate(x, dtype=np.float32), np.add.accumulate(h, dtype=np.float32))
    same(cp.maximum.accumulate(x, dtype=np.int64), np.maximum.accumulate(h, dtype=np.int64))
    o, p = cp.zeros((3, 4)), np.zeros((3, 4))
    assert cp.subtract.accumulate(x, axis=1, out=o) is o
    same(o, np.subtract.accumulate(h, axis=1, out=p))
    same(cp.add.accumulate(x[0], axis=None), np.add.accumulate(h[0], axis=None))
    same_error(lambda: cp.add.accumulate(x, axis=None), lambda: np.add.accumulate(h, axis=None))
    same_error(lambda: cp.sin.accumulate(x), lambda: np.sin.accumulate(h))
    s, t = pair((), np.float64)
    same_error(lambda: cp.add.accumulate(s), lambda: np.add.accumulate(t), TypeError)


# ---------------------------------------------------------------------------- reduceat


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "bitwise_or"])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
@pytest.mark.parametrize("indices", [[0, 3, 6, 7, 9], [0], [5, 1, 1, 8], [9], [], [0, 0, 0]])
def test_reduceat(name, dtype, indices):
    if not _fits(name, dtype):
        return
    x, h = pair((4, 10), dtype)
    f, g = getattr(cp, name), getattr(np, name)
    idx = np.asarray(indices, dtype=np.intp)
    _both(lambda: f.reduceat(x, idx, axis=-1), lambda: g.reduceat(h, idx, axis=-1))
    assert f.reduceat(x, idx, axis=-1).flags.c_contiguous
    _both(lambda: f.reduceat(x, cp.asarray(idx), axis=1), lambda: g.reduceat(h, idx, axis=1))
    y, k = pair((10,), dtype)
    _both(lambda: f.reduceat(y, indices), lambda: g.reduceat(k, indices))


def test_reduceat_keywords_and_errors():
    x, h = pair((6,), np.int8)
    same(cp.add.reduceat(x, [0, 2], dtype=np.float32), np.add.reduceat(h, [0, 2], dtype=np.float32))
    o, p = cp.zeros(2, np.int64), np.zeros(2, np.int64)
    assert cp.add.reduceat(x, [0, 2], out=o) is o
    same(o, np.add.reduceat(h, [0, 2], out=p))
    same_error(lambda: cp.add.reduceat(x, [0, 7]), lambda: np.add.reduceat(h, [0, 7]), IndexError)
    same_error(lambda: cp.add.reduceat(x, [-1]), lambda: np.add.reduceat(h, [-1]), IndexError)
    f = np.array([0.5])
    same_error(lambda: cp.add.reduceat(x, f), lambda: np.add.reduceat(h, f), TypeError)
    same(cp.add.reduceat(x, [0.5, 2]), np.add.reduceat(h, [0.5, 2]))
    same_error(lambda: cp.sin.reduceat(x, [0]), lambda: np.sin.reduceat(h, [0]))
    y, k = pair((2, 3), np.int8)
    same_error(
        lambda: cp.add.reduceat(y, [0], axis=None), lambda: np.add.reduceat(k, [0], axis=None)
    )


# ---------------------------------------------------------------------------- outer, at


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "equal", "maximum", "power"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64, np.bool_])
@pytest.mark.parametrize(("sa", "sb"), [((), ()), ((3,), (4,)), ((2, 3), (0,)), ((1,), (2, 2))])
def test_outer(name, dtype, sa, sb):
    if (name, np.dtype(dtype).kind) in [("subtract", "b"), ("maximum", "c")]:
        return
    a, h = pair(sa, dtype)
    b, k = pair(sb, dtype)
    f, g = getattr(cp, name), getattr(np, name)
    if name == "power" and np.dtype(dtype).kind in "iu":
        b, k = abs(b), abs(k)
    if name == "power" and np.dtype(dtype).kind == "c":
        # Exponents up to 10 + 10j reach complex64's overflow, where a last-bit rounding
        # decides inf or 3e38: quarter them (exactly) to stay in range.
        b, k = b / 4, k / 4
    _both(lambda: f.outer(a, b), lambda: g.outer(h, k))


def test_outer_keywords_and_errors():
    a, h = pair((3,), np.int32)
    o, p = cp.zeros((3, 3), np.float64), np.zeros((3, 3), np.float64)
    assert cp.add.outer(a, a, out=o) is o
    same(o, np.add.outer(h, h, out=p))
    same(cp.add.outer(a, 2.5), np.add.outer(h, 2.5))
    same(cp.multiply.outer(a, a, dtype=np.float32), np.multiply.outer(h, h, dtype=np.float32))
    same_error(lambda: cp.sin.outer(a, a), lambda: np.sin.outer(h, h))


@pytest.mark.parametrize(
    "name", ["add", "subtract", "maximum", "minimum", "multiply", "sin", "negative"]
)
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_at_with_basic_indices(name, dtype):
    if name == "sin" and dtype == np.int32:
        return
    x, h = pair((5, 4), dtype)
    f, g = getattr(cp, name), getattr(np, name)
    args = () if f.nin == 1 else (3,)
    for index in [1, (slice(1, 3), 2), (Ellipsis, 0), slice(None, None, 2)]:
        f.at(x, index, *args)
        g.at(h, index, *args)
        same(x, h)


@pytest.mark.parametrize(
    "name", ["add", "subtract", "maximum", "minimum", "bitwise_or", "multiply", "left_shift"]
)
def test_at_with_repeated_indices(name):
    x, h = pair((6,), np.int64)
    f, g = getattr(cp, name), getattr(np, name)
    idx = np.array([0, 3, 3, 5, 0, 0])
    f.at(x, cp.asarray(idx), 2)
    g.at(h, idx, 2)
    same(x, h)
    v, w = pair((6,), np.int64)
    f.at(x, idx, v)
    g.at(h, idx, w)
    same(x, h)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's of a negative ** 1.5)
@pytest.mark.parametrize("name", ["multiply", "divide", "power", "sin", "negative", "square"])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (0,)])
def test_at_of_other_ufuncs_in_order(name, shape):
    x, h = pair(shape, np.float64)
    f, g = getattr(cp, name), getattr(np, name)
    args = (1.5,) if f.nin == 2 else ()
    n = shape[0]
    idx = np.array([0, n - 1, 0, 1, 0] if n else [], dtype=np.intp)
    f.at(x, cp.asarray(idx), *args)
    g.at(h, idx, *args)
    same(x, h)
    if len(shape) == 2:
        t = x.T  # not contiguous
        f.at(t, (np.array([1, 1, 3]), np.array([0, 0, 2])), *args)
        g.at(h.T, (np.array([1, 1, 3]), np.array([0, 0, 2])), *args)
        same(x, h)
        m = h > 0
        f.at(x, cp.asarray(m), *args)
        g.at(h, m, *args)
        same(x, h)
        if f.nin == 2:
            v, w = pair((3,), np.float64)
            f.at(x, np.array([2, 0, 2]), v[:, None])
            g.at(h, np.array([2, 0, 2]), w[:, None])
            same(x, h)


def test_at_errors_are_numpys():
    x, h = pair((3,), np.float64)
    same_error(lambda: cp.add.at(x, [0]), lambda: np.add.at(h, [0]))
    same_error(lambda: cp.sin.at(x, [0], 1), lambda: np.sin.at(h, [0], 1))
    same_error(lambda: cp.add.at(x, [5], 1), lambda: np.add.at(h, [5], 1), IndexError)
    same_error(lambda: cp.multiply.at(x, [5], 1), lambda: np.multiply.at(h, [5], 1), IndexError)
    same_error(lambda: cp.multiply.at(x, 3, 1), lambda: np.multiply.at(h, 3, 1), IndexError)
    with pytest.raises(TypeError, match="must be a cuprum.ndarray"):
        cp.add.at(h, [0], 1)


# ---------------------------------------------------------------------------- composed ufuncs


@pytest.mark.parametrize(
    "name", ["copysign", "fmax", "fmin", "logaddexp", "logaddexp2", "ldexp", "float_power"]
)
def test_composed_binary_ufuncs(name):
    x, h = pair((2, 3), np.float32)
    y, k = pair((2, 3), np.int32 if name == "ldexp" else np.float32)
    f, g = getattr(cp, name), getattr(np, name)
    assert isinstance(f, cp.ufunc) and (f.nin, f.nout) == (2, 1)
    with np.errstate(all="ignore"):
        want = g(h, k)
        same(f(x, y), want, rtol=1e-4)
        o = cp.zeros((2, 3), want.dtype)
        assert f(x, y, o) is o
        same(o, want, rtol=1e-4)
        assert f(x, y, out=(o,)) is o
    if name in ("fmax", "fmin"):
        _both(lambda: f.reduce(x, axis=1), lambda: g.reduce(h, axis=1))
    o, p = cp.zeros((2, 3), np.int32), np.zeros((2, 3), np.int32)
    with np.errstate(all="ignore"):
        _both(lambda: f(x, y, out=o), lambda: g(h, k, out=p))
    if name == "float_power":
        same_error(lambda: f(x, y, dtype=np.float32), lambda: g(h, k, dtype=np.float32), TypeError)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.bool_, np.float32])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3)])
def test_fabs_is_float_only(dtype, shape):
    x, h = pair(shape, dtype)
    same(cp.fabs(x), np.fabs(h))
    c, k = pair((2,), np.complex64)
    same_error(lambda: cp.fabs(c), lambda: np.fabs(k), TypeError)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint16, np.int64, np.float16, np.float64, np.complex64]
)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3)])
def test_positive_is_a_new_array_of_the_same_values(dtype, shape):
    x, h = pair(shape, dtype)
    for got in (cp.positive(x), +x):
        same(got, np.positive(h))
        assert not cp.shares_memory(got, x)
    out = cp.empty(shape, dtype=np.complex128)
    assert cp.positive(x, out=out) is out
    same(out, np.positive(h, out=np.empty(shape, dtype=np.complex128)))


def test_positive_of_bools_is_a_type_error():
    b = cp.asarray(np.array([True, False]))
    for f in (lambda: cp.positive(b), lambda: +b, lambda: cp.fuse(lambda v: +v)(b)):
        with pytest.raises(TypeError, match="boolean positive, the `\\+` operator"):
            f()
    with pytest.raises(TypeError):
        np.positive(np.array([True]))


@pytest.mark.parametrize("name", ["deg2rad", "rad2deg", "radians", "degrees"])
def test_composed_unary_ufuncs(name):
    x, h = pair((2, 3), np.float64)
    f, g = getattr(cp, name), getattr(np, name)
    assert isinstance(f, cp.ufunc) and f.__name__ == name
    same(f(x), g(h))
    same(f(x, dtype=np.float32), g(h, dtype=np.float32))


# ---------------------------------------------------------------------------- matmul


@pytest.mark.parametrize(
    ("sa", "sb", "axes"),
    [
        ((2, 5, 3, 2, 3, 4), (3, 5, 1, 1, 1, 4), [(1, 2), (0, 1), (0, 1)]),
        ((3, 2, 4, 4), (4, 4, 3, 2), [(0, 1), (-1, -2), (-2, -1)]),
        ((2, 10, 5), (10, 2, 5), [(0, 1), (0, 1), (0, 1)]),
    ],
)
def test_matmul_axes(sa, sb, axes):
    a, h = pair(sa, np.float64)
    b, k = pair(sb, np.float64)
    want = np.matmul(h, k, axes=axes)
    same(cp.matmul(a, b, axes=axes), want)
    o = cp.zeros(want.shape)
    assert cp.matmul(a, b, axes=axes, out=o) is o
    same(o, want)


@pytest.mark.parametrize("src", [np.int32, np.float32, np.complex64])
@pytest.mark.parametrize("dst", [np.bool_, np.int8, np.float64, np.complex128])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe", "safe"])
def test_matmul_out_casting(src, dst, casting):
    a, h = pair((2, 3), src)
    b, k = pair((3, 4), src)
    o, p = cp.zeros((2, 4), dst), np.zeros((2, 4), dst)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.matmul(h, k, out=p, casting=casting)
    except TypeError as e:
        with pytest.raises(TypeError) as got:
            cp.matmul(a, b, out=o, casting=casting)
        assert str(got.value) == str(e)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cp.matmul(a, b, out=o, casting=casting) is o
    same(o, p, rtol=1e-4)


def test_matmul_axes_errors_are_numpys():
    a, h = pair((2, 3), np.float64)
    b, k = pair((2, 3, 1), np.float64)
    for axes in [[0] * 2 + [()], [1] * 2 + [()], [(-1,)] * 2 + [()]]:
        same_error(
            lambda ax=axes: cp.matmul(a, a, axes=ax),
            lambda ax=axes: np.matmul(h, h, axes=ax),
            np.exceptions.AxisError,
        )
    for axes, cls in [
        ([(0, 1), (0, 1)], ValueError),
        ([(0, 1), (0, 1), (0, 1, 2)], np.exceptions.AxisError),
        ([(0, 5), (0, 1), (0, 1)], np.exceptions.AxisError),
        ([(0, 0), (0, 1), (0, 1)], ValueError),
    ]:
        same_error(
            lambda ax=axes: cp.matmul(b, b.reshape(2, 1, 3), axes=ax),
            lambda ax=axes: np.matmul(k, k.reshape(2, 1, 3), axes=ax),
            cls,
        )


def test_matmul_dtype_and_errors():
    a, h = pair((2, 3), np.int32)
    b, k = pair((3, 2), np.int32)
    same(cp.matmul(a, b, dtype=np.float32), np.matmul(h, k, dtype=np.float32))
    same_error(
        lambda: cp.matmul(a, b, dtype=np.int8, casting="safe"),
        lambda: np.matmul(h, k, dtype=np.int8, casting="safe"),
        TypeError,
    )
    with pytest.raises(TypeError, match="axis can only be used"):
        cp.matmul(a, b, axis=0)


# ---------------------------------------------------------------------------- real, imag


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 2)])
def test_real_and_imag_are_functions(dtype, shape):
    x, h = pair(shape, dtype)
    assert not isinstance(cp.real, cp.ufunc)
    same(cp.real(x), np.real(h))
    same(cp.imag(x), np.imag(h))
    if np.dtype(dtype).kind != "c":
        assert cp.real(x) is x  # (NumPy's: the array itself)
    else:
        r, i = cp.real(x), cp.imag(x)
        x += 1 + 1j  # views of the complex values
        same(r, np.real(h) + 1)
        same(i, np.imag(h) + 1)
    same(cp.real(2.5), np.asarray(np.real(2.5)))
