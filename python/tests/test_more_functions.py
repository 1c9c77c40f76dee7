"""NumPy functions added or made NumPy's in ``cuprum._more_functions`` and around it
(``gcd``, ``lcm``, ``bitwise_count``, ``heaviside``, ``isposinf``/``isneginf``,
``packbits``/``unpackbits``, ``rollaxis``, ``asarray_chkfinite``, ``require``,
``fromfile``, ``iscomplex``/``isreal``/``isfortran``, ``real``/``imag``/``fabs``,
``mgrid``/``ogrid``, ``ravel_multi_index``/``unravel_index``, ``delete``,
``trim_zeros``, ``extract``, ``put``, ``interp``, ``convolve``/``correlate``, ``roll``,
``repeat`` …) against NumPy on random inputs: values, shapes, dtypes, 0-d, empty and
one-element inputs, and NumPy's errors."""

import warnings

import numpy as np
import pytest
from compare import random_values, same, same_error

import cuprum as cp

RNG = np.random.default_rng(11)
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
DTYPES = [np.int32, np.int64, np.float32, np.float64, np.bool_, np.complex64, np.complex128]


def data(shape, dtype):
    """Random non-zero values of ``dtype`` (bools both ways)."""
    return random_values(RNG, shape, dtype)


def pair(shape, dtype):
    h = data(shape, dtype)
    return cp.asarray(h), h


# ---------------------------------------------------------------------------- integer ufuncs


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7, 5)])
def test_gcd_lcm(dtype, shape):
    x, h = pair(shape, dtype)
    y, g = pair(shape, dtype)
    same(cp.gcd(x, y), np.gcd(h, g))
    same(cp.lcm(x, y), np.lcm(h, g))
    same(cp.gcd(x, 6), np.gcd(h, 6))
    same(cp.lcm(x, 0), np.lcm(h, 0))


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm_boundaries(dtype):
    info = np.iinfo(dtype)
    full = RNG.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    edges = np.array([0, 1, info.max, info.min, info.max // 2], dtype=dtype)
    h, g = np.concatenate([full, edges]), np.concatenate([edges, full])
    same(cp.gcd(cp.asarray(h), cp.asarray(g)), np.gcd(h, g))
    same(cp.lcm(cp.asarray(h), cp.asarray(g)), np.lcm(h, g))  # wrapping as NumPy's


@pytest.mark.parametrize("dtype", [np.bool_, np.float16, np.float64, np.complex128])
def test_gcd_lcm_refuse_non_integers(dtype):
    x = cp.ones(3, dtype=dtype)
    for name in ("gcd", "lcm"):
        with pytest.raises(TypeError):
            getattr(cp, name)(x, x)


@pytest.mark.parametrize("dtype", INTS + [np.bool_])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (4, 9)])
def test_bitwise_count(dtype, shape):
    x, h = pair(shape, dtype)
    same(cp.bitwise_count(x), np.bitwise_count(h))
    if dtype is not np.bool_:
        info = np.iinfo(dtype)
        e = np.array([0, info.min, info.max, info.min + 1, info.max - 1], dtype=dtype)
        same(cp.bitwise_count(cp.asarray(e)), np.bitwise_count(e))


def test_bitwise_count_refuses_floats():
    with pytest.raises(TypeError):
        cp.bitwise_count(cp.ones(3))


@pytest.mark.parametrize("d1", [np.int8, np.int64, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("d2", [np.int32, np.float32, np.float64])
def test_heaviside(d1, d2):
    x, h = pair((6, 4), d1)
    h[0] = 0
    x = cp.asarray(h)
    y, g = pair((6, 4), d2)
    same(cp.heaviside(x, y), np.heaviside(h, g))
    same(cp.heaviside(x, 0.5), np.heaviside(h, 0.5))
    f = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0])
    same(cp.heaviside(cp.asarray(f), cp.asarray(f[::-1])), np.heaviside(f, f[::-1]))
    same(cp.heaviside(cp.asarray(f)[:0], 1.0), np.heaviside(f[:0], 1.0))
    same(cp.heaviside(cp.asarray(2.0), 1.0), np.heaviside(np.asarray(2.0), 1.0))


def test_heaviside_refuses_complex():
    with pytest.raises(TypeError):
        cp.heaviside(cp.ones(2, complex), 1.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.bool_])
def test_isposinf_isneginf(dtype):
    f = np.array([np.inf, -np.inf, np.nan, 0.0, 1.0, -2.0])
    h = f.astype(dtype) if np.dtype(dtype).kind == "f" else data((6,), dtype)
    x = cp.asarray(h)
    same(cp.isposinf(x), np.isposinf(h))
    same(cp.isneginf(x), np.isneginf(h))
    same(cp.isposinf(x[:0]), np.isposinf(h[:0]))
    out = cp.zeros(6, dtype=bool)
    assert cp.isneginf(x, out=out) is out
    same(out, np.isneginf(h))


def test_isposinf_refuses_complex():
    for name in ("isposinf", "isneginf"):
        same_error(
            lambda n=name: getattr(cp, n)(cp.ones(2, np.complex128)),
            lambda n=name: getattr(np, n)(np.ones(2, np.complex128)),
            TypeError,
        )


# ---------------------------------------------------------------------------- bit packing


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.uint64])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (9,), (2, 3, 11)])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits(dtype, shape, bitorder):
    h = (RNG.random(shape) < 0.5).astype(dtype) * np.asarray(3).astype(dtype)
    x = cp.asarray(h)
    same(cp.packbits(x, bitorder=bitorder), np.packbits(h, bitorder=bitorder))
    for axis in range(-len(shape), len(shape)):
        same(cp.packbits(x, axis=axis, bitorder=bitorder), np.packbits(h, axis, bitorder))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 4)])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_unpackbits(shape, bitorder):
    h = RNG.integers(0, 256, shape).astype(np.uint8)
    x = cp.asarray(h)
    same(cp.unpackbits(x, bitorder=bitorder), np.unpackbits(h, bitorder=bitorder))
    for axis in range(-len(shape), len(shape)):
        same(cp.unpackbits(x, axis=axis, bitorder=bitorder), np.unpackbits(h, axis, None, bitorder))
        n = h.shape[axis] * 8
        # (NumPy pads an empty input's bits with uninitialised memory: not compared)
        for count in (0, 3, n, n + 5, -2) if n else (0,):
            same(
                cp.unpackbits(x, axis=axis, count=count, bitorder=bitorder),
                np.unpackbits(h, axis, count, bitorder),
            )


def test_packbits_unpackbits_errors():
    same_error(lambda: cp.packbits(cp.ones(3)), lambda: np.packbits(np.ones(3)), TypeError)
    same_error(
        lambda: cp.packbits(cp.ones(3, int), bitorder="x"),
        lambda: np.packbits(np.ones(3, int), bitorder="x"),
    )
    same_error(
        lambda: cp.unpackbits(cp.ones(3, int)), lambda: np.unpackbits(np.ones(3, int)), TypeError
    )
    same_error(
        lambda: cp.unpackbits(cp.ones(3, np.uint8), bitorder="r"),
        lambda: np.unpackbits(np.ones(3, np.uint8), bitorder="r"),
    )
    same_error(
        lambda: cp.unpackbits(cp.ones(2, np.uint8), count=-20),
        lambda: np.unpackbits(np.ones(2, np.uint8), count=-20),
    )
    # a bitorder that is not a string: CuPy's ValueError (NumPy raises TypeError)
    with pytest.raises(ValueError, match="packbits: bitorder must be a str, not float"):
        cp.packbits(cp.ones(3, int), bitorder=10.4)
    with pytest.raises(ValueError, match="unpackbits: bitorder must be a str, not int"):
        cp.unpackbits(cp.ones(3, np.uint8), bitorder=10)
    with pytest.raises(np.exceptions.AxisError):
        cp.packbits(cp.ones((2, 3), int), axis=2)


# ---------------------------------------------------------------------------- axes


@pytest.mark.parametrize("shape", [(1,), (2, 3), (2, 3, 4), (0, 2, 1, 3)])
def test_rollaxis(shape):
    x, h = pair(shape, np.float32)
    n = len(shape)
    for axis in range(-n, n):
        for start in range(-n, n + 1):
            got = cp.rollaxis(x, axis, start)
            same(got, np.rollaxis(h, axis, start))


def test_rollaxis_errors():
    x, h = pair((2, 3, 4), np.float64)
    for args in [(3,), (-4,), (1, 4), (1, -4)]:
        same_error(
            lambda a=args: cp.rollaxis(x, *a),
            lambda a=args: np.rollaxis(h, *a),
            np.exceptions.AxisError,
        )


# ---------------------------------------------------------------------------- conversion


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F", "A", "K", None])
def test_asarray_chkfinite(dtype, order):
    same(
        cp.asarray_chkfinite([0, 4, 0, 5], dtype=dtype, order=order),
        np.asarray_chkfinite([0, 4, 0, 5], dtype=dtype, order=order),
    )
    x, h = pair((3, 2), dtype)
    same(cp.asarray_chkfinite(x), np.asarray_chkfinite(h))
    same(cp.asarray_chkfinite(x[:0]), np.asarray_chkfinite(h[:0]))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.complex64])
def test_asarray_chkfinite_refuses_non_finite(dtype):
    for bad in ([1.0, np.inf], [np.nan], [[-np.inf, 0.0]]):
        same_error(
            lambda b=bad: cp.asarray_chkfinite(b, dtype=dtype),
            lambda b=bad: np.asarray_chkfinite(b, dtype=dtype),
        )
        with pytest.raises(ValueError, match="infs or NaNs"):
            cp.asarray_chkfinite(cp.asarray(bad, dtype=dtype))
    with pytest.raises(OverflowError):
        cp.asarray_chkfinite([np.inf], dtype=np.int8)


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128, np.bool_])
def test_require(dtype):
    x = cp.zeros((2, 3, 4), dtype=dtype)
    for req in (None, [], "C", ["F"], ["C_CONTIGUOUS"], ["FORTRAN", "A"], ["W", "E"]):
        r = cp.require(x, dtype, req)
        h = np.require(x.get(), dtype, req)
        same(r, h)
        assert r.flags.c_contiguous == h.flags.c_contiguous
        assert r.flags.f_contiguous == h.flags.f_contiguous
    assert cp.require(x, None, "C") is x
    assert cp.require(x, None, "F") is not x
    r = cp.require([[1, 2], [3, 4]], np.float32, ["F"])
    same(r, np.require([[1, 2], [3, 4]], np.float32, ["F"]))
    assert r.flags.f_contiguous
    assert cp.require(x[:, ::2], None, ["O"]) is not x


def test_require_errors():
    x, h = pair((2, 3), np.float64)
    same_error(lambda: cp.require(x, None, ["C", "F"]), lambda: np.require(h, None, ["C", "F"]))
    # CuPy's ValueError and message, also of NumPy's class
    for cls in (KeyError, ValueError):
        with pytest.raises(cls, match='Incorrect flag "Q" in requirements'):
            cp.require(x, None, ["C", "Q"])
    for cls in (TypeError, ValueError):
        with pytest.raises(cls, match='Incorrect dtype "random" provided'):
            cp.require(x, "random", "C")


@pytest.mark.parametrize("dtype", ["u1", "<i4", ">u4", "<f8", ">f4", "c16"])
def test_fromfile(tmp_path, dtype):
    h = data((10,), np.dtype(dtype).newbyteorder("="))
    path = tmp_path / "data.bin"
    h.astype(dtype).tofile(path)
    for count, offset in [(-1, 0), (3, 0), (-1, np.dtype(dtype).itemsize * 2), (0, 0)]:
        got = cp.fromfile(path, dtype=dtype, count=count, offset=offset)
        want = np.fromfile(path, dtype=dtype, count=count, offset=offset)
        same(got, want.astype(want.dtype.newbyteorder("=")))
    with open(path, "rb") as fh:
        same(cp.fromfile(fh, dtype=dtype) + 0, np.fromfile(path, dtype=dtype) + 0)
    path.write_text("1 2 3.5")
    same(cp.fromfile(path, sep=" "), np.fromfile(path, sep=" "))


# ---------------------------------------------------------------------------- type tests, real, imag, fabs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 4)])
def test_iscomplex_isreal_real_imag(dtype, shape):
    x, h = pair(shape, dtype)
    same(cp.iscomplex(x), np.iscomplex(h))
    same(cp.isreal(x), np.isreal(h))
    same(cp.real(x), np.real(h))
    same(cp.imag(x), np.imag(h))
    if np.dtype(dtype).kind != "c":
        assert cp.real(x) is x  # NumPy's: the array itself
    same(cp.real(h.tolist()), np.real(np.asarray(h.tolist())))


def test_isfortran():
    for h in [np.ones(24), np.ones((4, 6)), np.ones((4, 6), order="F"), np.ones((4, 6))[1:3]]:
        assert cp.isfortran(cp.asarray(h)) == np.isfortran(h)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint16, np.int32, np.int64, np.bool_, np.float16, np.float32, np.float64]
)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (5, 3)])
def test_fabs(dtype, shape):
    x, h = pair(shape, dtype)
    same(cp.fabs(x), np.fabs(h))
    out = cp.empty(shape, dtype=np.float64)
    assert cp.fabs(x, out=out) is out
    same(out, np.fabs(h).astype(np.float64))


def test_fabs_refuses_complex():
    with pytest.raises(TypeError):
        cp.fabs(cp.ones(2, complex))


# ---------------------------------------------------------------------------- mgrid, ogrid


def test_mgrid_ogrid():
    keys = [
        np.s_[0:5],
        np.s_[-1:2:4j],
        np.s_[0:5:2, -1:2:4j],
        np.s_[1.5:3, 0:2:0.5],
        np.s_[0:1:1j, 3:0:-1],
        np.s_[0:0],
        np.s_[2:8:3, 0:1:5j, -2:2],
    ]
    for k in keys:
        same(cp.mgrid[k], np.mgrid[k])
        want = np.ogrid[k]
        got = cp.ogrid[k]
        same(
            list(got) if isinstance(want, tuple) else got,
            list(want) if isinstance(want, tuple) else want,
        )


def test_mgrid_of_arrays():
    for xp_x, h_x in [(cp.zeros(10)[:, None], np.zeros(10)[:, None])]:
        y, g = cp.ones(10)[:, None], np.ones(10)[:, None]
        same(cp.mgrid[xp_x:y:10j], np.mgrid[h_x:g:10j])
        same(cp.mgrid[xp_x:y:10j, xp_x:y:10j], np.mgrid[h_x:g:10j, h_x:g:10j])


# ---------------------------------------------------------------------------- index conversion


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.bool_])
@pytest.mark.parametrize("order", ["C", "F", None])
def test_ravel_multi_index(dtype, order):
    dims = (8, 4, 2)
    h = [np.arange(8).astype(dtype), np.arange(8).astype(dtype), np.arange(8).astype(dtype)]
    x = [cp.asarray(a) for a in h]
    for mode in ("wrap", "clip", ("wrap", "clip", "clip")):
        same(
            cp.ravel_multi_index(x, dims, mode=mode, order=order),
            np.ravel_multi_index(h, dims, mode=mode, order=order),
        )
    ones = [np.ones((3, 3), dtype=dtype)] * 2
    same(
        cp.ravel_multi_index([cp.asarray(a) for a in ones], (8, 4), order=order),
        np.ravel_multi_index(ones, (8, 4), order=order),
    )
    # broadcasting coordinates, an empty one
    a, b = np.meshgrid(np.arange(3), np.arange(5), sparse=True)
    same(
        cp.ravel_multi_index((cp.asarray(a), cp.asarray(b)), (3, 5), order=order),
        np.ravel_multi_index((a, b), (3, 5), order=order),
    )
    e = np.zeros(0, dtype=np.int64)
    same(
        cp.ravel_multi_index((cp.asarray(e), cp.asarray(e)), (3, 5), order=order),
        np.ravel_multi_index((e, e), (3, 5), order=order),
    )


def test_ravel_multi_index_errors():
    a = (np.arange(4), np.arange(4))
    x = tuple(cp.asarray(v) for v in a)
    big = np.iinfo(np.int64).max
    cases = [
        ((x, (8, 4)), {"order": "V"}, (a, (8, 4)), ValueError),
        ((x, (8, 4)), {"order": "A"}, (a, (8, 4)), ValueError),
        ((x, (8, 4)), {"mode": "invalid"}, (a, (8, 4)), ValueError),
        ((x, (8, 4)), {"mode": ("clip",)}, (a, (8, 4)), ValueError),
        ((x, (big, 4)), {}, (a, (big, 4)), ValueError),
        ((x, (2.0, 4)), {}, (a, (2.0, 4)), TypeError),
        ((x, (8, 4, 2)), {}, (a, (8, 4, 2)), ValueError),
        ((x, (3, 4)), {}, (a, (3, 4)), ValueError),
    ]
    for cargs, kw, nargs, cls in cases:
        same_error(
            lambda c=cargs, k=kw: cp.ravel_multi_index(*c, **k),
            lambda n=nargs, k=kw: np.ravel_multi_index(*n, **k),
            cls,
        )
    same_error(
        lambda: cp.ravel_multi_index(cp.ones((3, 5)), (2, 4, 8)),
        lambda: np.ravel_multi_index(np.ones((3, 5)), (2, 4, 8)),
        TypeError,
    )


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("order", ["C", "F", None])
def test_unravel_index(dtype, order):
    h = np.minimum(np.arange(24).reshape(4, 3, 2), 23).astype(dtype)
    same(
        list(cp.unravel_index(cp.asarray(h), (6, 4), order=order)),
        list(np.unravel_index(h, (6, 4), order=order)),
    )
    same(
        list(cp.unravel_index(cp.asarray(h[:0]), (6, 4), order=order)),
        list(np.unravel_index(h[:0], (6, 4), order=order)),
    )
    same(
        list(cp.unravel_index(cp.asarray(h[1, 1, 1]), 24, order=order)),
        [np.asarray(np.unravel_index(h[1, 1, 1], 24, order=order)[0])],
    )


def test_unravel_index_errors():
    h = np.arange(30)
    x = cp.asarray(h)
    same_error(lambda: cp.unravel_index(x, (6, 4)), lambda: np.unravel_index(h, (6, 4)))
    same_error(lambda: cp.unravel_index(x - 3, (6, 5)), lambda: np.unravel_index(h - 3, (6, 5)))
    same_error(
        lambda: cp.unravel_index(x, (6, 5), order="V"),
        lambda: np.unravel_index(h, (6, 5), order="V"),
    )
    same_error(
        lambda: cp.unravel_index(x, (6, 5), order="K"),
        lambda: np.unravel_index(h, (6, 5), order="K"),
    )
    same_error(
        lambda: cp.unravel_index(x * 1.0, (6, 5)),
        lambda: np.unravel_index(h * 1.0, (6, 5)),
        TypeError,
    )


def test_tril_triu_indices():
    for args in [(29, 0), (11, 4, 4), (4, 4, 3), (0,), (1, -1), (5, -2, 7)]:
        same(list(cp.tril_indices(*args)), list(np.tril_indices(*args)))
        same(list(cp.triu_indices(*args)), list(np.triu_indices(*args)))
    with pytest.raises(TypeError):
        cp.tril_indices(cp.ones((3, 3)))


# ---------------------------------------------------------------------------- flatiter


def test_flatiter_iterates_itself():
    x, h = pair((2, 3, 4), np.float64)
    it = x.flat
    assert iter(it) is it
    first = next(it)
    assert float(first) == h.flat[0]
    assert it.index == 1
    rest = [float(v) for v in it]
    assert rest == list(h.ravel()[1:])
    same(it.copy(), h.flat.copy())
    same(x.T.flat[[0, 5]], h.T.flat[[0, 5]])
    for key in (None, (0,), True):
        with pytest.raises(IndexError):
            x.flat[key]
        with pytest.raises(IndexError):
            x.flat[key] = 1


# ---------------------------------------------------------------------------- delete, trim_zeros, extract, put


@pytest.mark.parametrize(
    "obj",
    [
        [],
        (),
        [0, 2],
        [True, False, True],
        (0, True),
        np.array([], np.int64),
        np.array([-1, -3]),
        1,
        slice(None, None, 2),
        np.array(1),
    ],
)
def test_delete_variants(obj):
    h = np.array([10, 20, 30])
    x = cp.asarray(h)
    o = cp.asarray(obj) if isinstance(obj, np.ndarray) else obj
    same(cp.delete(x, o), np.delete(h, obj))


@pytest.mark.parametrize(
    "obj", [True, False, [True, False], np.array(True), np.array([True, False]), np.array([], bool)]
)
def test_delete_bool_mask_errors(obj):
    h = np.array([10, 20, 30])
    o = cp.asarray(obj) if isinstance(obj, np.ndarray) else obj
    same_error(lambda: cp.delete(cp.asarray(h), o), lambda: np.delete(h, obj))
    same_error(lambda: cp.delete(cp.asarray(h), 5), lambda: np.delete(h, 5), IndexError)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
def test_trim_zeros(dtype, trim):
    h = data((9,), dtype)
    h[:2] = 0
    h[-3:] = 0
    same(cp.trim_zeros(cp.asarray(h), trim), np.trim_zeros(h, trim))
    for shape in [(), (0,), (1,)]:
        g = data(shape, dtype)
        same(cp.trim_zeros(cp.asarray(g), trim), np.trim_zeros(g, trim))
        z = np.zeros(shape, dtype)
        same(cp.trim_zeros(cp.asarray(z), trim), np.trim_zeros(z, trim))
    m = np.zeros((4, 5), dtype)
    m[1, 2] = m[2, 3] = 1
    for axis in (None, 0, 1, -1, (0, 1)):
        same(cp.trim_zeros(cp.asarray(m), trim, axis=axis), np.trim_zeros(m, trim, axis=axis))


def test_trim_zeros_errors():
    same_error(lambda: cp.trim_zeros(cp.ones(3), "x"), lambda: np.trim_zeros(np.ones(3), "x"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_extract(dtype):
    x, h = pair((3, 3), dtype)
    for c in [
        np.array([[True, False, True], [False, True, False]]),
        np.array([]),
        np.array([[1, 0, 1, 0], [0, 1, 0, 1]]),
        np.ones((3, 3), bool),
        np.array(True),
    ]:
        same(cp.extract(cp.asarray(c), x), np.extract(c, h))
    with pytest.raises(IndexError):
        cp.extract(cp.asarray([0] * 9 + [1]), x)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("shape", [(7,), (2, 3)])
def test_put_with_no_values(mode, shape):
    x, h = pair(shape, np.float32)
    cp.put(x, cp.asarray([2, -8, 3, 100]), cp.asarray([], np.float32), mode)
    np.put(h, [2, -8, 3, 100], [], mode)
    same(x, h)


@pytest.mark.parametrize("where", [3.2, 0, 4, -4, True, False, 1 + 1j, np.float64(0.5)])
@pytest.mark.parametrize("shape", [(3, 2), (0,)])
def test_copyto_scalar_where(where, shape):
    d, e = cp.zeros(shape, np.int32), np.zeros(shape, np.int32)
    cp.copyto(d, cp.ones(shape, np.int32), where=where)
    np.copyto(e, np.ones(shape, np.int32), where=where)
    same(d, e)


# ---------------------------------------------------------------------------- interp, trapezoid


@pytest.mark.parametrize("dtype_y", [np.float32, np.float64, np.complex128])
def test_interp_next_to_infinities(dtype_y):
    x = np.array([0, 1, 2, 4, 6, 8, 9, 10, 3.5, 1.0])
    fx = np.array([1.0, 3, 5, 7, 9])
    fy = np.sin(fx).astype(dtype_y)
    fy[0] = fy[2] = fy[-1] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        same(cp.interp(cp.asarray(x), cp.asarray(fx), cp.asarray(fy)), np.interp(x, fx, fy))
        knots = np.array([1.0, 2, 3, 4])
        f = np.array([1.0, 2.0, np.inf, 4.0], dtype=dtype_y)
        q = np.array([2.0, 2.5, 0.5, 4.0])
        same(cp.interp(cp.asarray(q), cp.asarray(knots), cp.asarray(f)), np.interp(q, knots, f))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32])
def test_trapezoid_bool_x(dtype):
    y, g = pair((5,), dtype)
    xs = np.array([0, 1, 1, 0, 1]).astype(dtype)
    same(cp.trapezoid(y, x=cp.asarray(xs)), np.trapezoid(g, x=xs))
    y2, g2 = pair((3, 4), dtype)
    x2 = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    same(cp.trapezoid(y2, x=cp.asarray(x2), axis=0), np.trapezoid(g2, x=x2, axis=0))


# ---------------------------------------------------------------------------- convolve, correlate


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex128])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate_shapes(dtype, mode):
    for n, m in [(1, 1), (1, 4), (6, 20), (20, 6), (6, 21), (20, 21), (5, 5), (7, 2)]:
        a, h = pair((n,), dtype)
        v, g = pair((m,), dtype)
        same(cp.correlate(a, v, mode), np.correlate(h, g, mode), rtol=1e-9)
        same(cp.convolve(a, v, mode), np.convolve(h, g, mode), rtol=1e-9)
    same(cp.convolve(cp.asarray(2.0), cp.ones(3), mode), np.convolve(2.0, np.ones(3), mode))


def test_convolve_correlate_errors():
    pairs = [
        ((2, 3, 4), (10, 5)),
        ((), (1,)),
        ((3,), ()),
        ((0,), (3,)),
        ((3,), (0,)),
        ((0,), (0,)),
        ((2, 2), (0,)),
    ]
    for sa, sv in pairs:
        for name in ("convolve", "correlate"):
            h, g = np.ones(sa), np.ones(sv)
            try:
                getattr(np, name)(h, g)
            except ValueError:
                same_error(
                    lambda n=name, a=h, b=g: getattr(cp, n)(cp.asarray(a), cp.asarray(b)),
                    lambda n=name, a=h, b=g: getattr(np, n)(a, b),
                )
            else:
                same(getattr(cp, name)(cp.asarray(h), cp.asarray(g)), getattr(np, name)(h, g))
    same_error(
        lambda: cp.correlate(cp.ones(3), cp.ones(4), mode="bad"),
        lambda: np.correlate(np.ones(3), np.ones(4), mode="bad"),
    )


# ---------------------------------------------------------------------------- roll, repeat


def test_roll_shift_forms():
    x, h = pair((5, 2), np.int64)
    for shift in ["0", 1.5, [1, "2"], np.array([1, 2]), np.float64(2), -3, 7, (1, 1)]:
        for axis in [0, None, (0, 1), -1, (0, 0)]:
            same(cp.roll(x, shift, axis=axis), np.roll(h, shift, axis=axis))
    same(cp.roll(x, cp.asarray([1, 2]), axis=(0, 1)), np.roll(h, [1, 2], axis=(0, 1)))
    same(cp.roll(cp.asarray(3), 1), np.roll(np.asarray(3), 1))
    same(cp.roll(cp.zeros((0, 3)), 1, axis=0), np.roll(np.zeros((0, 3)), 1, axis=0))
    same_error(lambda: cp.roll(x, "a", axis=0), lambda: np.roll(h, "a", axis=0))
    same_error(lambda: cp.roll(x, [[1]], axis=0), lambda: np.roll(h, [[1]], axis=0))
    with pytest.raises(TypeError):
        cp.roll(x, 2, axis="0")


def test_repeat_errors():
    x, h = pair((6,), np.float32)
    same_error(
        lambda: cp.repeat(x, cp.asarray([[1, 2, 3, 4, 5, 6]])),
        lambda: np.repeat(h, np.array([[1, 2, 3, 4, 5, 6]])),
    )
    # a nested list: NumPy's ValueError with CuPy's message
    with pytest.raises(ValueError, match="too deep"):
        cp.repeat(x, [[1] * 6])
    with pytest.raises(ValueError):
        np.repeat(h, [[1] * 6])
    same(cp.repeat(x, [2]), np.repeat(h, [2]))


# ---------------------------------------------------------------------------- small NumPy conformance


def test_broadcast_arrays_is_a_tuple():
    r = cp.broadcast_arrays(cp.ones(3), cp.zeros((2, 1)))
    assert isinstance(r, tuple)
    same(list(r), list(np.broadcast_arrays(np.ones(3), np.zeros((2, 1)))))
    assert cp.broadcast_arrays() == ()


def test_row_stack_warns():
    with pytest.warns(DeprecationWarning, match="`row_stack` alias is deprecated"):
        same(cp.row_stack([cp.ones(2), cp.zeros(2)]), np.vstack([np.ones(2), np.zeros(2)]))


def test_searchsorted_sorter_must_be_integers():
    a, h = pair((5,), np.float64)
    for sorter in [np.array([], np.float64), np.arange(5.0)]:
        same_error(
            lambda s=sorter: cp.searchsorted(a, cp.ones(3), sorter=cp.asarray(s)),
            lambda s=sorter: np.searchsorted(h, np.ones(3), sorter=s),
            TypeError,
        )
    order = np.argsort(h)
    same(
        cp.searchsorted(a, cp.ones(3), sorter=cp.asarray(order)),
        np.searchsorted(h, np.ones(3), sorter=order),
    )


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float16, np.float32])
def test_sort_complex_dtypes(dtype):
    x, h = pair((7,), dtype)
    same(cp.sort_complex(x), np.sort_complex(h))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.complex64, np.int32])
def test_array_equal_equal_nan(dtype):
    nan, inf = float("nan"), float("inf")
    vals = [0, nan, inf, -inf] if np.dtype(dtype).kind in "fc" else [0, 1, 2, 3]
    h = np.array(vals, dtype=dtype)
    for g in [h.copy(), h[::-1].copy()]:
        got = cp.array_equal(cp.asarray(h), cp.asarray(g), equal_nan=True)
        assert bool(got) == np.array_equal(h, g, equal_nan=True)
    if np.dtype(dtype).kind == "c":
        a = np.array([1 + 2j], dtype=dtype)
        b = a.copy()
        b.imag = nan
        a.real = nan
        got = cp.array_equal(cp.asarray(a), cp.asarray(b), equal_nan=True)
        assert bool(got) == np.array_equal(a, b, equal_nan=True)


def test_intersect1d_mixed_dtypes():
    a, b = np.array([0, 3, 1], np.int64), np.array([], np.float64)
    same(cp.intersect1d(cp.asarray(a), cp.asarray(b)), np.intersect1d(a, b))
    same(
        list(cp.intersect1d(cp.asarray(a), cp.asarray(b), return_indices=True)),
        list(np.intersect1d(a, b, return_indices=True)),
    )
    c = np.array([3.0, 0.5], np.float32)
    same(cp.intersect1d(cp.asarray(a), cp.asarray(c)), np.intersect1d(a, c))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.float16, np.float32])
def test_corrcoef_dtype(dtype):
    h = np.arange(6).reshape(2, 3).astype(dtype)
    x = cp.asarray(h)
    try:
        want = np.corrcoef(h, h, dtype=dtype)
    except TypeError as e:
        with pytest.raises(TypeError) as got:
            cp.corrcoef(x, x, dtype=dtype)
        assert str(got.value) == str(e)
    else:
        same(cp.corrcoef(x, x, dtype=dtype), want, rtol=1e-2)


def test_corrcoef_bias_and_ddof_warn_and_change_nothing():
    h = RNG.standard_normal((3, 7))
    x = cp.asarray(h)
    for kw in ({"bias": 1}, {"ddof": 0}, {"bias": True, "ddof": 2}):
        with pytest.warns(DeprecationWarning, match="bias and ddof have no effect"):
            got = cp.corrcoef(x, None, True, **kw)
        same(got, np.corrcoef(h))


def test_squeeze_of_0d():
    x, h = pair((), np.float64)
    for axis in (0, -1, None, ()):
        same(cp.squeeze(x, axis=axis), np.squeeze(h, axis=axis))
    for axis in (1, -2, (0,)):
        same_error(
            lambda a=axis: cp.squeeze(x, axis=a),
            lambda a=axis: np.squeeze(h, axis=a),
            np.exceptions.AxisError,
        )
