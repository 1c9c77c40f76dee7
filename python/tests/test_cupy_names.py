"""CuPy's names that CuPy's own tests reach for: NumPy's that CuPy re-exports (``iinfo``,
``finfo``, ``cuprum.exceptions``), ``cuprum.copy`` in each memory order, reductions of
NumPy data, ``cuda.Device.use``, ``cuda.runtime``'s queries; NumPy 1's names CuPy keeps
(constants, deprecated routines, scalar-type helpers, removed functions that raise),
``make_aligned_dtype``, cupyx's names (``rsqrt``, ``scatter_*``, pinned arrays,
``get_runtime_info``), ``cuda``'s and ``random``'s module functions; against NumPy. Runs on
the GPU when there is one, else on the host device (``conftest.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from compare import runs_in_a_fresh_python

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


# ---------------------------------------------------------------------------- NumPy 1's names

RNG = np.random.default_rng(20261203)


def test_numpy1_constants_and_objects():
    import math

    assert cp.PINF == cp.Inf == cp.Infinity == cp.infty == math.inf
    assert cp.NINF == -math.inf
    assert math.isnan(cp.NAN) and math.isnan(cp.NaN)
    assert cp.PZERO == 0.0 and math.copysign(1.0, cp.PZERO) == 1.0
    assert cp.NZERO == 0.0 and math.copysign(1.0, cp.NZERO) == -1.0
    assert cp.singlecomplex is np.complex64 and cp.cfloat is np.complex128
    for name in ("ComplexWarning", "ModuleDeprecationWarning", "RankWarning", "TooHardError"):
        assert getattr(cp, name) is getattr(np.exceptions, name), name
        assert getattr(cp, name) is getattr(cp.exceptions, name), name
    assert cp.DataSource is np.lib.npyio.DataSource
    assert cp.format_parser is np.rec.format_parser
    for name in ("iterable", "get_printoptions", "set_printoptions", "printoptions"):
        assert getattr(cp, name) is getattr(np, name), name
    assert cp.alltrue is cp.all and cp.sometrue is cp.any and cp.trapz is cp.trapezoid
    assert cp.disable_experimental_feature_warning is False
    assert {"PINF", "cfloat", "DataSource", "RankWarning", "testing", "rsqrt"} <= set(dir(cp))


def test_testing_is_imported_at_first_use():

    code = (
        "import sys, cuprum\n"
        "assert 'cuprum.testing' not in sys.modules and 'pytest' not in sys.modules\n"
        "t = cuprum.testing\n"
        "assert t is sys.modules['cuprum.testing'] and callable(t.assert_allclose)\n"
    )
    runs_in_a_fresh_python(code)
    import cuprum.testing

    assert cp.testing is cuprum.testing


def test_product_cumproduct_msort_warn_and_compute():
    h = RNG.uniform(0.5, 2.0, (4, 5))
    x = cp.asarray(h)
    with pytest.warns(DeprecationWarning, match=r"^Please use `prod` instead\.$"):
        got = cp.product(x, axis=1)
    np.testing.assert_allclose(got.get(), np.prod(h, axis=1))
    with pytest.warns(DeprecationWarning, match=r"^Please use `prod` instead\.$"):
        got = cp.product(x, None, np.float32, None, True)
    assert got.shape == (1, 1) and got.dtype == np.float32
    np.testing.assert_allclose(got.get(), np.prod(h, keepdims=True), rtol=1e-5)
    with pytest.warns(DeprecationWarning, match=r"^Please use `cumprod` instead\.$"):
        got = cp.cumproduct(x, axis=0)
    np.testing.assert_allclose(got.get(), np.cumprod(h, axis=0))
    with pytest.warns(DeprecationWarning, match=r"^Please use `cumprod` instead\.$"):
        got = cp.cumproduct(x)
    np.testing.assert_allclose(got.get(), np.cumprod(h))
    with pytest.warns(
        DeprecationWarning, match=r"^msort is deprecated, use cupy\.sort\(a, axis=0\) instead$"
    ):
        got = cp.msort(x)
    np.testing.assert_array_equal(got.get(), np.sort(h, axis=0))


@pytest.mark.parametrize("invert", [False, True])
def test_in1d_flattens_both_and_inverts(invert):
    a = RNG.integers(-20, 20, (4, 6))
    b = RNG.integers(-20, 20, (3, 5))
    got = cp.in1d(cp.asarray(a), cp.asarray(b), invert=invert)
    want = np.isin(a.ravel(), b.ravel(), invert=invert)
    assert got.shape == want.shape == (24,) and got.dtype == np.bool_
    np.testing.assert_array_equal(got.get(), want)
    assert want.any() and not want.all()  # (both answers occur)
    got = cp.in1d(cp.asarray(a), cp.asarray(b), assume_unique=True, invert=invert)
    np.testing.assert_array_equal(got.get(), want)
    f = RNG.standard_normal(7)
    got = cp.in1d(cp.asarray(f), cp.asarray(f[::2]), invert=invert)
    np.testing.assert_array_equal(got.get(), np.isin(f, f[::2], invert=invert))
    for e1, e2 in ((np.zeros(0), b), (a, np.zeros(0))):
        got = cp.in1d(cp.asarray(e1), cp.asarray(e2), invert=invert)
        np.testing.assert_array_equal(got.get(), np.isin(e1.ravel(), e2.ravel(), invert=invert))


def test_asfarray_keeps_inexact_dtypes_only():
    i = RNG.integers(-50, 50, (3, 4)).astype(np.int32)
    f = RNG.standard_normal(5).astype(np.float32)
    for got, want in (
        (cp.asfarray(cp.asarray(i)), i.astype(np.float64)),
        (cp.asfarray(i.tolist()), i.astype(np.float64)),
        (cp.asfarray(cp.asarray(f)), f.astype(np.float64)),
        (cp.asfarray(cp.asarray(f), np.float32), f),
        (cp.asfarray(cp.asarray(i), np.float16), i.astype(np.float16)),
        (cp.asfarray(cp.asarray(f), np.complex64), f.astype(np.complex64)),
        (cp.asfarray(cp.asarray(f), np.int8), f.astype(np.float64)),
        (cp.asfarray(cp.asarray(i), "i4"), i.astype(np.float64)),
    ):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


def test_numpy1_scalar_type_helpers():
    assert cp.issubclass_(np.int32, np.integer) and cp.issubclass_(bool, int)
    assert cp.issubclass_(1, int) is False and cp.issubclass_(int, 1) is False
    assert cp.obj2sctype(np.int32) is np.int32 and cp.obj2sctype(np.integer) is np.integer
    assert cp.obj2sctype(np.array([1.5])) is np.float64
    assert cp.obj2sctype("f4") is np.float32 and cp.obj2sctype(np.dtype("c8")) is np.complex64
    assert cp.obj2sctype(float) is np.float64 and cp.obj2sctype(list) is np.object_
    assert cp.obj2sctype("no such type") is None
    assert cp.obj2sctype("no such type", default=np.int8) is np.int8
    assert cp.issubsctype(np.int32, np.integer) and cp.issubsctype("i8", np.signedinteger)
    assert not cp.issubsctype(np.float32, np.integer)
    assert cp.issubsctype(np.array([1], np.uint8), "u1")
    assert [cp.sctype2char(t) for t in (np.float64, "f4", np.array([1], np.int8), complex)] == [
        "d",
        "f",
        "b",
        "D",
    ]
    with pytest.raises(ValueError, match="^unrecognized type$"):
        cp.sctype2char("no such type")
    assert cp.issctype(np.int32) and cp.issctype(np.dtype("f")) and cp.issctype(float)
    assert not cp.issctype(np.object_) and not cp.issctype(np.dtype(object))
    assert not cp.issctype(1.5) and not cp.issctype("f4")


@pytest.mark.parametrize(
    "name, instead",
    [
        ("find_common_type", "`promote_types` or `result_type`"),
        ("set_string_function", "`np.set_printoptions`"),
        ("get_array_wrap", "<no replacement>"),
        ("disp", "your own print function"),
        ("safe_eval", "`ast.literal_eval`"),
    ],
)
def test_functions_numpy2_removed_raise(name, instead):
    with pytest.raises(RuntimeError) as e:
        getattr(cp, name)(np.float32, key=1)
    assert str(e.value) == f"This function has been removed in NumPy v2.\nUse {instead} instead.\n"


# ---------------------------------------------------------------------------- make_aligned_dtype


def _layout(dt):
    return [(n, dt.fields[n][0].str, dt.fields[n][1]) for n in dt.names], dt.itemsize


def test_make_aligned_dtype_aligns_fields_as_the_device():
    src = np.dtype([("a", "i1"), ("b", "c8"), ("c", "f2"), ("d", "f8"), ("e", "u2")])
    dt = cp.make_aligned_dtype(src)
    # complex64 is aligned to 8 on the device (4 in NumPy's align=True layout)
    assert _layout(dt) == (
        [("a", "|i1", 0), ("b", "<c8", 8), ("c", "<f2", 16), ("d", "<f8", 24), ("e", "<u2", 32)],
        40,
    )
    assert dt.alignment == 8 and dt.isalignedstruct
    # the values carry over field by field
    h = np.zeros(6, src)
    for name in src.names:
        h[name] = (RNG.standard_normal(6) * 10).astype(src[name])
    moved = h.astype(dt)
    for name in src.names:
        np.testing.assert_array_equal(moved[name], h[name])
    assert cp.make_aligned_dtype([("x", "i4"), ("y", "i1")]).itemsize == 8


def test_make_aligned_dtype_nesting_alignment_and_subarrays():
    inner = [("p", "i1"), ("q", "c16")]
    dt = cp.make_aligned_dtype([("x", "i1"), ("s", inner), ("v", "f4", (3,))])
    assert dt.fields["s"][1] == 16 and dt["s"].fields["q"][1] == 16 and dt["s"].itemsize == 32
    assert dt.fields["v"][1] == 48 and dt.itemsize == 64
    flat = cp.make_aligned_dtype([("x", "i1"), ("s", inner)], recurse=False)
    assert flat["s"] == np.dtype(inner, align=True) and flat.fields["s"][1] == 8
    big = cp.make_aligned_dtype([("a", "i2"), ("b", "i1")], alignment=16)
    assert big.itemsize == 16 and big.metadata == {"__cuda_alignment__": 16}
    outer = cp.make_aligned_dtype([("c", "i1"), ("big", big)])
    assert outer.fields["big"][1] == 16 and outer.itemsize == 32


def test_make_aligned_dtype_errors():
    msgs = {
        "int32": "make_aligned_dtype() only supports structured dtypes.",
        "alignment=3": "Reasonable alignments must be >0 and a power of 2.",
        "alignment=0": "Reasonable alignments must be >0 and a power of 2.",
        "alignment=4": ("make_aligned_dtype(): given alignment=4 smaller than minimum alignment 8"),
        "order": (
            "make_aligned_dtype() only supports well behaved in-order fields as it ignores "
            "field offsets."
        ),
    }
    ok = [("a", "i1"), ("b", "f8")]
    backwards = np.dtype({"names": ["a", "b"], "formats": ["i4", "i4"], "offsets": [4, 0]})
    for key, call in (
        ("int32", lambda: cp.make_aligned_dtype(np.int32)),
        ("alignment=3", lambda: cp.make_aligned_dtype(ok, alignment=3)),
        ("alignment=0", lambda: cp.make_aligned_dtype(ok, alignment=0)),
        ("alignment=4", lambda: cp.make_aligned_dtype(ok, alignment=4)),
        ("order", lambda: cp.make_aligned_dtype(backwards)),
    ):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == msgs[key], key


# ---------------------------------------------------------------------------- cupyx's names


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int8, np.int32]
)
def test_rsqrt_against_numpy(dtype):
    if np.dtype(dtype).kind == "c":
        h = (RNG.uniform(0.1, 10, 12) + 1j * RNG.uniform(-10, 10, 12)).astype(dtype)
    elif np.dtype(dtype).kind == "i":
        h = RNG.integers(1, 100, 12).astype(dtype)
    else:
        h = RNG.uniform(0.1, 100, 12).astype(dtype)
    want = 1 / np.sqrt(h)
    got = cp.rsqrt(cp.asarray(h))
    assert got.dtype == want.dtype
    rtol = {2: 2e-3, 4: 1e-5, 8: 1e-12}[np.finfo(want.dtype).dtype.itemsize]
    np.testing.assert_allclose(got.get(), want, rtol=rtol)
    out = cp.empty(h.shape, want.dtype)
    assert cp.rsqrt(cp.asarray(h), out=out) is out
    np.testing.assert_allclose(out.get(), want, rtol=rtol)


def test_rsqrt_is_a_ufunc():
    assert isinstance(cp.rsqrt, cp.ufunc) and repr(cp.rsqrt) == "<ufunc 'rsqrt'>"
    assert (cp.rsqrt.nin, cp.rsqrt.nout) == (1, 1)
    assert cp.rsqrt.types == ["e->e", "f->f", "d->d", "F->F", "D->D"]
    h = RNG.uniform(0.5, 9, (3, 4))
    x = cp.asarray(h)
    got = cp.rsqrt(x, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.get(), 1 / np.sqrt(h.astype(np.float32)), rtol=1e-6)
    out = cp.zeros(4, np.float64)
    cp.rsqrt(cp.asarray(h[0]), out)
    np.testing.assert_allclose(out.get(), 1 / np.sqrt(h[0]))
    with pytest.raises(TypeError, match="No loop matching .* ufunc rsqrt"):
        cp.rsqrt(x, dtype=np.int32)
    with pytest.raises(TypeError):
        cp.rsqrt(x, out=cp.empty(x.shape, np.int64))
    f = cp.fuse(lambda a, b: cp.rsqrt(a) * b)
    np.testing.assert_allclose(f(x, 2.0).get(), 2 / np.sqrt(h))


_SCATTER_TEXT = {
    "add": "`ndarray.scatter_add` is deprecated. Please use `cupy.add.at` instead.",
    "max": "`ndarray.scatter_max` is deprecated Please use `cupy.maximum.at` instead.",
    "min": "`ndarray.scatter_min` is deprecated Please use `cupy.minimum.at` instead.",
}
_NUMPY_AT = {"add": np.add, "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("op", ["add", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("as_method", [False, True])
def test_scatter_ops_are_ufunc_at(op, dtype, as_method):
    for slices, vshape in (
        (np.array([1, 0, 1, 4, 4, -1, 4]), (7, 3)),  # repeated indices count each time
        ((np.array([0, 2, 0]), np.array([1, 1, 1])), (3,)),
        (slice(1, 4), (3, 3)),
        (RNG.random(6) < 0.5, None),
    ):
        h = (RNG.standard_normal((6, 3)) * 10).astype(dtype)
        if vshape is None:
            vshape = (int(slices.sum()), 3)
        v = (RNG.standard_normal(vshape) * 10).astype(dtype)
        a = cp.asarray(h)
        idx = tuple(cp.asarray(s) for s in slices) if isinstance(slices, tuple) else slices
        if isinstance(idx, np.ndarray):
            idx = cp.asarray(idx)
        call = getattr(a, f"scatter_{op}") if as_method else getattr(cp, f"scatter_{op}")
        args = (idx, cp.asarray(v)) if as_method else (a, idx, cp.asarray(v))
        with pytest.warns(DeprecationWarning) as w:
            r = call(*args)
        assert r is None
        assert [str(x.message) for x in w] == [_SCATTER_TEXT[op]]
        _NUMPY_AT[op].at(h, slices, v)
        np.testing.assert_allclose(a.get(), h, rtol=1e-6)


def test_scatter_add_scalar_value():
    h = RNG.standard_normal(5)
    a = cp.asarray(h)
    with pytest.warns(DeprecationWarning):
        cp.scatter_add(a, cp.asarray([0, 0, 3]), 1.5)
    np.add.at(h, [0, 0, 3], 1.5)
    np.testing.assert_allclose(a.get(), h)


def _filled(x):
    x[...] = RNG.standard_normal(x.shape) * 10
    return x


@pytest.mark.parametrize("order", ["C", "F"])
def test_pinned_arrays(order):
    x = cp.empty_pinned((3, 5), np.float32, order)
    assert isinstance(x, np.ndarray) and x.shape == (3, 5) and x.dtype == np.float32
    assert isinstance(x.base, cp.cuda.PinnedMemoryPointer)
    assert x.flags.c_contiguous == (order == "C") and x.flags.f_contiguous == (order == "F")
    _filled(x)
    np.testing.assert_array_equal(cp.asarray(x).get(), x)  # uploads from pinned memory
    assert cp.empty_pinned(4).dtype == np.float64 and cp.empty_pinned(4).shape == (4,)
    z = cp.zeros_pinned([2, 3], np.int16, order)
    assert z.dtype == np.int16 and z.shape == (2, 3) and not z.any()
    assert isinstance(z.base, cp.cuda.PinnedMemoryPointer)
    assert cp.empty_pinned((0, 4)).size == 0


@pytest.mark.parametrize(
    "view",
    [
        lambda h, xp: h,
        lambda h, xp: xp.asfortranarray(h),
        lambda h, xp: h.transpose(1, 2, 0),
        lambda h, xp: h[:, ::2],
        lambda h, xp: h[::-1],
    ],
)
@pytest.mark.parametrize("order", ["K", "C", "F", "A", "k"])
def test_empty_like_pinned_lays_out_as_numpy(view, order):
    base = RNG.standard_normal((2, 4, 3))
    h = view(base, np)
    for proto in (h, view(cp.asarray(base), cp)):
        assert proto.strides == h.strides
        for dtype in (None, np.int32):
            got = cp.empty_like_pinned(proto, dtype, order)
            want = np.empty_like(h, dtype, order)
            assert (got.shape, got.dtype, got.strides) == (want.shape, want.dtype, want.strides)
            assert isinstance(got.base, cp.cuda.PinnedMemoryPointer)
            z = cp.zeros_like_pinned(proto, dtype, order)
            assert z.strides == want.strides and not z.any()
    got = cp.empty_like_pinned(h, order=order, shape=(6, 2))
    assert (
        got.shape == (6, 2) and got.strides == np.empty_like(h, order=order, shape=(6, 2)).strides
    )
    assert cp.empty_like_pinned(h, shape=5).shape == (5,)


def test_empty_like_pinned_errors():
    h = RNG.standard_normal(3)
    with pytest.raises(ValueError, match="^order not understood: X$"):
        cp.empty_like_pinned(h, order="X")
    with pytest.raises(TypeError, match="^subok is not supported yet$"):
        cp.zeros_like_pinned(h, subok=True)


def test_get_runtime_info_is_show_configs_text(capsys):
    info = cp.get_runtime_info()
    text = str(info)
    assert text.endswith("\n")
    rows = dict(line.split(": ", 1) for line in text.splitlines())
    rows = {k.strip(): v for k, v in rows.items()}
    assert rows["cuprum Version"] == cp.__version__ and rows["NumPy Version"] == np.__version__
    assert rows["CUDA Root"] == str(cp.cuda.get_cuda_path())
    assert rows["NVCC PATH"] == str(cp.cuda.get_nvcc_path())
    cp.show_config()
    assert capsys.readouterr().out == text


# ---------------------------------------------------------------------------- cuda and random


def test_is_available_and_device_id():
    assert cp.is_available() is True and cp.cuda.is_available() is True
    assert cp.cuda.get_device_id() == 0


def test_is_available_never_raises_without_a_device():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "CUPRUM_DEVICE"}
    code = "import cuprum; print(cuprum.is_available(), cuprum.cuda.is_available())"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
        want = None  # a driver: the answer is whether a GPU answers
    except OSError:
        want = "False False"
    assert done.stdout.strip() in ((want,) if want else ("True True", "False False"))


def test_cuda_and_nvcc_paths(monkeypatch):
    import os

    root = cp.cuda.get_cuda_path()
    assert root is None or os.path.isdir(root)
    assert cp.cuda.get_cuda_path() is root  # looked up once
    nvcc = cp.cuda.get_nvcc_path()
    assert nvcc is None or os.access(nvcc, os.X_OK)
    cp.cuda.get_nvcc_path.cache_clear()
    try:
        monkeypatch.setenv("NVCC", "ccache nvcc")
        assert cp.cuda.get_nvcc_path() == "ccache nvcc"
    finally:
        cp.cuda.get_nvcc_path.cache_clear()


def test_set_random_state_and_reset_states():
    before = cp.random.get_random_state()
    try:
        rs = cp.random.RandomState(1234)
        cp.random.set_random_state(rs)
        assert cp.random.get_random_state() is rs
        got = cp.random.rand(5)
        want = cp.random.RandomState(1234).rand(5)
        np.testing.assert_array_equal(got.get(), want.get())
        assert len(set(got.get().tolist())) == 5
        with pytest.raises(TypeError) as e:
            cp.random.set_random_state(np.random.RandomState(0))
        assert str(e.value) == (
            "Random state must be an instance of RandomState. Actual: "
            "<class 'numpy.random.mtrand.RandomState'>"
        )
        cp.random.reset_states()
        fresh = cp.random.get_random_state()
        assert fresh is not rs and isinstance(fresh, cp.random.RandomState)
    finally:
        cp.random.set_random_state(before)


def test_devices_compare_by_id_and_refuse_other_types():
    d0, d1 = cp.cuda.Device(0), cp.cuda.Device(1)  # any id makes a Device, as CuPy's
    assert d0 < d1 and d0 <= cp.cuda.Device(0) and d1 > d0 and d1 >= cp.cuda.Device(1)
    assert not d1 < d0
    assert d0 != d1 and d0 != 0 and d0 != None
    for other in (0, None, object()):
        with pytest.raises(TypeError):
            d0 < other  # noqa: B015 (the comparison raises)
        with pytest.raises(TypeError):
            other >= d1  # noqa: B015
    with pytest.raises(ValueError, match="Invalid device id -1"):
        cp.cuda.Device(-1)
    if cp.cuda.runtime.getDeviceCount() == 1:
        with pytest.raises(ValueError, match="Invalid device id 1"):
            d1.synchronize()
    with pytest.raises(NotImplementedError, match="device 0 only"), d1:
        pass
    with d0 as d:
        assert d is d0


def test_setting_the_shape_in_place_names_reshape():
    a = cp.ones((2, 3))
    with pytest.raises(
        AttributeError,
        match=r"cannot be set in place \(to \(3, 2\)\): write `a = a\.reshape\(\.\.\.\)`, a view",
    ):
        a.shape = (3, 2)
    assert a.shape == (2, 3)
