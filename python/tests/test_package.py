"""The ``cuprum`` package as a CuPy program uses it: arrays, kernels, operators, indexing,
reductions, random shapes, errors. Results are compared with NumPy on random inputs.

Runs on the GPU when there is one, else on the host device (``conftest.py``; a C++ compiler
is needed then).
"""

from __future__ import annotations

import os
import weakref

import numpy as np
import pytest
from compare import runs_in_a_fresh_python

RNG = np.random.default_rng(42)


def _choose_device():
    if os.environ.get("CUPRUM_DEVICE"):
        return
    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
    except OSError:
        os.environ["CUPRUM_DEVICE"] = "host"


_choose_device()

import cuprum as cp


def rand(shape, dtype=np.float32):
    return RNG.uniform(-10, 10, size=shape).astype(dtype)


# ---------------------------------------------------------------------------- arrays


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
def test_round_trip_keeps_values_shape_and_dtype(shape, dtype):
    h = rand(shape, dtype)
    a = cp.asarray(h)
    assert isinstance(a, cp.ndarray)
    assert a.shape == shape and a.dtype == np.dtype(dtype) and a.ndim == len(shape)
    assert a.size == h.size and a.nbytes == h.nbytes
    if h.size > 1:
        assert a.strides == h.strides
    np.testing.assert_array_equal(a.get(), h)
    np.testing.assert_array_equal(cp.asnumpy(a), h)


@pytest.mark.parametrize(
    "args, dtype",
    [
        ((2**60, 2**60 + 5), None),
        ((2**63 - 3, 2**63 - 1), None),
        ((-(2**62), -(2**62) + 10, 3), None),
        ((2**64 - 1, 2**64 - 40, -7), np.uint64),
        ((10, -10, -3), np.int8),
        ((2**60, 2**60 + 4), np.float64),
        ((7, 2, 1), np.int32),
        ((np.int64(3), np.int32(9), np.int16(2)), None),
    ],
)
def test_arange_of_integers_is_exact(args, dtype):
    want = np.arange(*args, dtype=dtype)
    got = cp.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.get(), want)


def test_arange_errors():
    with pytest.raises(ValueError, match="non-zero"):
        cp.arange(0, 5, 0)
    with pytest.raises(TypeError, match="does not fit in uint8"):
        cp.arange(250, 260, dtype=cp.uint8)


def test_creation_functions_match_numpy():
    np.testing.assert_array_equal(cp.zeros((2, 3)).get(), np.zeros((2, 3)))
    assert cp.zeros(3).dtype == np.float64 and cp.empty(4).dtype == np.float64
    np.testing.assert_array_equal(cp.ones(4, dtype=cp.int32).get(), np.ones(4, np.int32))
    np.testing.assert_array_equal(cp.full((2, 2), 7).get(), np.full((2, 2), 7))
    np.testing.assert_array_equal(cp.arange(2, 11, dtype=cp.int64).get(), np.arange(2, 11))
    assert cp.arange(5).dtype == np.int64 and cp.arange(0.5, 3).dtype == np.float64
    np.testing.assert_allclose(
        cp.linspace(0, 2 * cp.pi, 1000, dtype=cp.float32).get(),
        np.linspace(0, 2 * np.pi, 1000, dtype=np.float32),
        rtol=1e-6,
    )
    np.testing.assert_array_equal(cp.array([1, 2, 3]).get(), np.array([1, 2, 3]))
    assert cp.array([1.0, 2.0], dtype=cp.float32).dtype == np.float32
    x = cp.arange(6.0)
    np.testing.assert_array_equal(cp.zeros_like(x).get(), np.zeros(6))
    np.testing.assert_array_equal(cp.ones_like(x, dtype=cp.int8).get(), np.ones(6, np.int8))
    np.testing.assert_array_equal(cp.eye(3).get(), np.eye(3))


@pytest.mark.parametrize(
    "spelling",
    [
        "float32",
        "f4",
        "<f4",
        "int8",
        "i2",
        "u8",
        "bool",
        "?",
        "complex64",
        "c16",
        float,
        int,
        bool,
        complex,
        np.float16,
        np.uint32,
        np.int64,
        np.complex128,
        np.bool_,
        np.dtype("float64"),
        np.dtype(np.uint16),
    ],
)
def test_every_dtype_spelling_is_numpys(spelling):
    # The common spellings resolve without NumPy's help (names, by identity): each must
    # agree with numpy.dtype, twice (the second after NumPy's objects are known).
    for _ in range(2):
        a = cp.empty((2, 3), dtype=spelling)
        assert a.dtype == np.dtype(spelling).newbyteorder("=")
        assert a.dtype is np.dtype(a.dtype.name)
        assert cp.zeros(3, spelling).astype(spelling).dtype == a.dtype


def test_dtype_errors_stay_numpys_and_cuprums():
    with pytest.raises(TypeError, match="not understood"):
        cp.empty(2, dtype="nonsense")
    with pytest.raises(TypeError, match="not supported by cuprum"):
        cp.empty(2, dtype="U3")
    with pytest.raises(TypeError, match="non-negative ints"):
        cp.empty((2, "a"))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        cp.empty((2, -1))  # NumPy's ValueError


def test_printing_is_numpys():
    h = np.arange(2, 2000, dtype=np.int64)
    a = cp.asarray(h)
    assert str(a) == str(h) and repr(a) == repr(h)
    assert str(cp.asarray(np.float64(55.0))) == "55.0"
    assert f"{cp.asarray(np.float32(1.5))}" == "1.5"
    assert repr(cp.asarray(np.array([1.5, 2.5], np.float32))) == "array([1.5, 2.5], dtype=float32)"


def test_conversions_and_their_errors():
    a = cp.asarray(np.array([2.5]))
    assert float(a) == 2.5 and int(a) == 2 and bool(a) and a.item() == 2.5
    assert cp.asarray(np.array([[1, 2], [3, 4]])).tolist() == [[1, 2], [3, 4]]
    assert len(cp.zeros((5, 2))) == 5
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(cp.zeros(3))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(cp.zeros(3))


def test_weak_references():
    a = cp.zeros(3)
    r = weakref.ref(a)
    assert r() is a
    del a
    assert r() is None


def test_views_share_memory():
    h = rand((4, 6))
    a = cp.asarray(h)
    np.testing.assert_array_equal(a.T.get(), h.T)
    np.testing.assert_array_equal(a[1:3, ::2].get(), h[1:3, ::2])
    np.testing.assert_array_equal(a[..., -1].get(), h[..., -1])
    np.testing.assert_array_equal(a[None, 2].get(), h[None, 2])
    np.testing.assert_array_equal(a.reshape(3, 8).get(), h.reshape(3, 8))
    np.testing.assert_array_equal(a.reshape((-1,)).get(), h.ravel())
    np.testing.assert_array_equal(a.transpose(1, 0).get(), h.transpose(1, 0))
    v = a[1]
    v[...] = 0
    h[1] = 0
    np.testing.assert_array_equal(a.get(), h)
    assert a[2, 3].shape == () and float(a[2, 3]) == h[2, 3]


def test_astype_copy_view():
    h = rand((5,), np.float64)
    a = cp.asarray(h)
    np.testing.assert_array_equal(a.astype(cp.int32).get(), h.astype(np.int32))
    b = a.copy()
    b += 1
    np.testing.assert_array_equal(a.get(), h)
    np.testing.assert_array_equal(a.view(cp.int64).get(), h.view(np.int64))


# ---------------------------------------------------------------------------- operators


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_binary_operators_match_numpy(dtype):
    x, y = rand((3, 4), dtype), rand((4,), dtype)
    y[y == 0] = 1
    a, b = cp.asarray(x), cp.asarray(y)
    for op in ("__add__", "__sub__", "__mul__", "__lt__", "__ge__", "__eq__"):
        got = getattr(a, op)(b).get()
        want = getattr(x, op)(y)
        np.testing.assert_array_equal(got, want, err_msg=op)
        assert got.dtype == want.dtype, op
    np.testing.assert_allclose((a / b).get(), x / y, rtol=1e-6)
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal((a // b).get(), x // y)
        np.testing.assert_array_equal((a % b).get(), x % y)
        np.testing.assert_array_equal((a & b).get(), x & y)


def test_scalars_are_weak_python_and_strong_numpy():
    a = cp.asarray(np.array([1, 2, 3], np.int32))
    assert (a + 1).dtype == np.int32 and (a * 0.5).dtype == np.float64
    f = cp.asarray(np.array([1.0, 2.0], np.float32))
    assert (f * 2.0).dtype == np.float32
    assert (f * cp.float32(2)).dtype == np.float32
    i16 = cp.asarray(np.array([1, 2], np.int16))
    assert (i16 + np.int64(1)).dtype == np.int64  # NumPy 2: NumPy scalars are strong
    assert (1 - a).get().tolist() == [0, -1, -2]
    assert (2**a).get().tolist() == [2, 4, 8]
    z = cp.asarray(np.array([1.0, 2.0])) + 1j * cp.asarray(np.array([3.0, 4.0]))
    assert z.dtype == np.complex128
    np.testing.assert_allclose(cp.abs(z).get(), np.abs(np.array([1 + 3j, 2 + 4j])))


def test_in_place_and_masked_updates():
    nums = cp.arange(2, 30, dtype=cp.int64)
    totals = cp.zeros_like(nums)
    h_nums, h_tot = np.arange(2, 30), np.zeros(28, np.int64)
    for p in (2, 3, 5):
        mask = nums % p == 0
        totals[mask] += p
        nums[mask] //= p
        hm = h_nums % p == 0
        h_tot[hm] += p
        h_nums[hm] //= p
    np.testing.assert_array_equal(totals.get(), h_tot)
    np.testing.assert_array_equal(nums.get(), h_nums)
    a = cp.ones(4, dtype=cp.int32)
    with pytest.raises(TypeError):
        a += 1.5  # NumPy's same_kind rule
    x = cp.asarray(np.arange(10.0))
    x[x > 5] = -1
    np.testing.assert_array_equal(x.get(), np.where(np.arange(10.0) > 5, -1, np.arange(10.0)))
    idx = cp.asarray(np.array([0, 3, 3]))
    np.testing.assert_array_equal(x[idx].get(), np.array([0.0, 3.0, 3.0]))


def test_ufuncs_and_reductions_match_numpy():
    h = np.abs(rand((6, 5), np.float64)) + 0.1
    a = cp.asarray(h)
    for name in ("sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "abs", "negative"):
        np.testing.assert_allclose(getattr(cp, name)(a).get(), getattr(np, name)(h), rtol=1e-12)
    np.testing.assert_allclose(cp.maximum(a, 5.0).get(), np.maximum(h, 5.0))
    np.testing.assert_allclose(cp.where(a > 5, a, 0.0).get(), np.where(h > 5, h, 0.0))
    for name in ("sum", "mean", "max", "min", "prod"):
        got = getattr(cp, name)(a)
        assert got.shape == ()
        np.testing.assert_allclose(got.get(), getattr(np, name)(h), rtol=1e-12)
        np.testing.assert_allclose(getattr(a, name)(axis=1).get(), getattr(h, name)(axis=1))
    np.testing.assert_allclose(a.std(ddof=1).get(), h.std(ddof=1))
    np.testing.assert_allclose(cp.var(a, axis=0, keepdims=True).get(), h.var(0, keepdims=True))
    assert int(cp.argmax(a)) == int(np.argmax(h))
    i = cp.asarray(np.array([1, 2, 3], np.int32))
    assert cp.sum(i).dtype == np.int64
    assert bool(cp.allclose(a, a + 1e-9)) and not bool(cp.allclose(a, a + 1))
    np.testing.assert_allclose((a @ a.T).get(), h @ h.T, rtol=1e-6)
    np.testing.assert_allclose(cp.dot(a, a.T).get(), h @ h.T, rtol=1e-6)


# ---------------------------------------------------------------------------- kernels


def test_elementwise_kernel_as_the_seed_writes_it():
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add")
    x, y = rand((1000,)), rand((1000,))
    z = k(cp.asarray(x), cp.asarray(y))
    np.testing.assert_allclose(z.get(), x + y * 2, rtol=1e-6)
    out = cp.empty(1000, dtype=cp.float32)
    r = k(cp.asarray(x), cp.asarray(y), out)
    assert r.data_ptr == out.data_ptr
    assert k.__name__ == "custom_add" and k.nin == 2 and k.nout == 1
    # generic types and a scalar
    relu = cp.ElementwiseKernel("T x, T cap", "T y", "y = min(max(x, (T)0), cap)", "relu6")
    h = rand((3, 7), np.float64)
    np.testing.assert_array_equal(relu(cp.asarray(h), 6.0).get(), np.clip(h, 0, 6))
    # several outputs: a tuple
    two = cp.ElementwiseKernel("T x", "T a, T b", "a = x + 1; b = x * 2", "two")
    p, q = two(cp.asarray(h))
    np.testing.assert_array_equal(p.get(), h + 1)
    np.testing.assert_array_equal(q.get(), h * 2)


def test_elementwise_kernel_errors_are_cupys():
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y", "add_k")
    x = cp.zeros(4, dtype=cp.float32)
    with pytest.raises(TypeError, match="Wrong number of arguments for 'add_k'"):
        k(x)
    with pytest.raises(TypeError):
        k(x, cp.zeros(4, dtype=cp.float64))
    with pytest.raises(ValueError):
        k(x, cp.zeros(5, dtype=cp.float32))
    with pytest.raises(ValueError, match="i"):
        cp.ElementwiseKernel("T x", "T i", "i = x", "k")
    bad = cp.ElementwiseKernel("T x", "T y", "y = x +* 2", "bad_k")
    with pytest.raises(cp.CompileException) as e:
        bad(x)
    assert "error" in str(e.value)


def test_reduction_kernel_full_axis_and_keepdims():
    ssq = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
    h = rand((8, 33), np.float64)
    a = cp.asarray(h)
    full = ssq(a)
    assert full.shape == ()
    np.testing.assert_allclose(full.get(), (h * h).sum(), rtol=1e-12)
    np.testing.assert_allclose(ssq(a, axis=1).get(), (h * h).sum(1), rtol=1e-12)
    assert ssq(a, axis=0, keepdims=True).shape == (1, 33)
    l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    np.testing.assert_allclose(float(l2(a)), np.sqrt((h * h).sum()), rtol=1e-12)
    with pytest.raises(TypeError, match="Wrong number of arguments for ssq"):
        ssq(a, a, a)


def test_raw_kernel_and_module():
    code = r"""
    extern "C" __global__ void scale_add(const float* x, float* y, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }"""
    k = cp.RawKernel(code, "scale_add")
    h = rand((1000,))
    x, y = cp.asarray(h), cp.zeros(1000, dtype=cp.float32)
    k(((1000 + 127) // 128,), (128,), (x, y, cp.float32(3.0), 1000))
    np.testing.assert_allclose(y.get(), 3 * h, rtol=1e-6)
    assert k.num_regs >= 0 and k.max_threads_per_block > 0  # the host device has no registers
    with pytest.raises(cp.CuprumError, match="numpy.float32"):
        k((8,), (128,), (x, y, 3.0, 1000))
    with pytest.raises(TypeError, match="grid must be a tuple"):
        k(8, (128,), (x, y, cp.float32(3.0), 1000))
    m = cp.RawModule(
        code=r"""
        extern "C" __global__ void relu(float* x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] > 0 ? x[i] : 0; }
        extern "C" __global__ void neg(float* x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = -x[i]; }
        """
    )
    z = cp.asarray(h)
    m.get_function("relu")((8,), (128,), (z, 1000))
    np.testing.assert_array_equal(z.get(), np.maximum(h, 0))
    m.get_function("neg")((8,), (128,), (z, 1000))
    np.testing.assert_array_equal(z.get(), -np.maximum(h, 0))


RAW_KINDS = r"""
extern "C" __global__ void kinds(const float* x, double* y, float a, double b, int n,
                                 long long m, unsigned char flag, short s, unsigned int u) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * a + b + m + (flag ? 1000.0 : 0.0) + s + u * 1e-3;
}"""


def test_raw_launches_pack_every_argument_kind_alike_on_each_path():
    """A launch of cuprum arrays and scalars packs in one pass (``launch_plain``); one with
    ``stream=`` (or another argument kind) takes the general path. Both must pack every
    kind of scalar the same way and raise the same errors."""
    k = cp.RawKernel(RAW_KINDS, "kinds")
    n = 1000
    h = rand((n,))
    x = cp.asarray(h)
    stream = cp.cuda.get_current_stream()
    cases = [
        (np.float32(1.5), -2.25, n, 3, True, np.int16(-7), 4000000000),
        (
            np.float32(-0.5),
            np.float64(0.125),
            np.int32(n),
            np.int64(-(2**40)),
            np.bool_(False),
            -3,
            7,
        ),
        (np.float32(2.0), np.float64(-1.0), n, -5, 1, np.int16(300), np.uint32(123)),
    ]
    for a, b, count, m, flag, s, u in cases:
        want = (
            h.astype(np.float64) * np.float64(np.float32(a))
            + float(b)
            + int(m)
            + (1000.0 if flag else 0.0)
            + int(s)
            + int(u) * 1e-3
        )
        for kw in ({}, {"stream": stream}):
            y = cp.zeros(n, dtype=cp.float64)
            k((8,), (128,), (x, y, a, b, count, m, flag, s, u), **kw)
            np.testing.assert_allclose(y.get(), want, rtol=1e-12)
    y = cp.zeros(n, dtype=cp.float64)
    bad = [
        ((x, y, 1.5, 0.0, n, 0, 0, 0, 0), cp.CuprumError, "numpy.float32"),
        ((x, y, np.float64(1.5), 0.0, n, 0, 0, 0, 0), cp.CuprumError, "float64"),
        ((x, y, np.float32(1), 0.0, 2**40, 0, 0, 0, 0), cp.CuprumError, "does not fit"),
        ((x, y, np.float32(1), 0.0, n), cp.CuprumError, "takes 9 parameter"),
        ((x[::2], y, np.float32(1), 0.0, n, 0, 0, 0, 0), cp.CuprumError, "non-contiguous"),
        ((x, y, np.float32(1), 0.0, n, 0, 0, 0, "s"), TypeError, "str"),
    ]
    for args, cls, text in bad:
        for kw in ({}, {"stream": stream}):
            with pytest.raises(cls, match=text):
                k((8,), (128,), args, **kw)
    # A launch that failed packed nothing: the next one runs.
    k((8,), (128,), (x, y, np.float32(1), 0.0, n, 0, 0, 0, 0))
    np.testing.assert_allclose(y.get(), h.astype(np.float64), rtol=1e-12)


def test_repeat_calls_read_their_own_arguments():
    """Repeat calls of one kernel replay the plan of an earlier call with the same dtypes,
    shapes, strides and alignments (``kernel/call_memo.rs``): each call must still read
    its own arrays and scalars, and a view of another alignment or stride must not reuse a
    plan made for another."""
    k = cp.ElementwiseKernel("T x, T y, float64 s", "T z", "z = x * s + y", "memo_py")
    ssq = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "memo_ssq")
    raw = cp.RawKernel(
        r"""extern "C" __global__ void memo_axpy(const float* x, float* y, float a, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }""",
        "memo_axpy",
    )
    for _ in range(3):
        h, g = rand((1025,)), rand((1025,))
        s = float(RNG.uniform(-2, 2))
        x, y = cp.asarray(h), cp.asarray(g)
        want = (h.astype(np.float64) * s + g).astype(np.float32)
        np.testing.assert_allclose(k(x, y, s).get(), want, rtol=1e-6)
        np.testing.assert_allclose(k(x[1:], y[:-1], s).get(), want_of(h[1:], g[:-1], s), rtol=1e-6)
        np.testing.assert_allclose(
            k(x[:-1:2], y[1::2], s).get(), want_of(h[:-1:2], g[1::2], s), rtol=1e-6
        )
        m = h[:1024].reshape(4, 256)
        np.testing.assert_allclose(ssq(cp.asarray(m), axis=1).get(), (m * m).sum(1), rtol=1e-5)
        np.testing.assert_allclose(
            ssq(cp.asarray(m)[:, 1::2], axis=1).get(), (m[:, 1::2] ** 2).sum(1), rtol=1e-5
        )
        out = cp.zeros(1025, dtype=cp.float32)
        raw((9,), (128,), (x, out, np.float32(s), 1025))
        np.testing.assert_allclose(out.get(), np.float32(s) * h, rtol=1e-6)
    # Calls of cuprum arrays alone bind them in place (``own_operands``): given outputs,
    # views, tuples, no return, keepdims; and the same errors.
    sub = cp.ElementwiseKernel("T x, T y", "T z, T w", "z = x - y; w = x * y", "memo_sub")
    sub_tuple = cp.ElementwiseKernel("T x, T y", "T z", "z = x - y", "memo_sub1", return_tuple=True)
    sub_none = cp.ElementwiseKernel("T x, T y", "T z", "z = x - y", "memo_sub0", no_return=True)
    for n in (1025, 7, 1025):
        h, g = rand((n,)), rand((n,))
        x, y = cp.asarray(h), cp.asarray(g)
        z, w = sub(x, y)
        np.testing.assert_array_equal(z.get(), h - g)
        np.testing.assert_array_equal(w.get(), h * g)
        outs = (cp.empty(n, dtype=cp.float32), cp.empty(n, dtype=cp.float32))
        got = sub(x[::-1], y, *outs)
        assert got[0] is not None and got[0].data.ptr == outs[0].data.ptr
        np.testing.assert_array_equal(outs[0].get(), h[::-1] - g)
        (t,) = sub_tuple(x, y)
        np.testing.assert_array_equal(t.get(), h - g)
        assert sub_none(x, y, outs[1]) is None
        np.testing.assert_array_equal(outs[1].get(), h - g)
        m = h[: n - n % 7].reshape(-1, 7)
        np.testing.assert_allclose(ssq(cp.asarray(m)).get(), (m * m).sum(), rtol=1e-5)
        np.testing.assert_allclose(
            ssq(cp.asarray(m), keepdims=True).get(), (m * m).sum(keepdims=True), rtol=1e-5
        )
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        sub(x)
    with pytest.raises(TypeError):
        sub(x, cp.zeros(n, dtype=cp.float64))
    xs = cp.zeros(4, dtype=cp.float32)
    with pytest.raises(cp.CuprumError, match="takes 4 parameter"):
        raw((1,), (4,), (xs, xs, np.float32(1.0)))
    with pytest.raises(cp.CuprumError, match="non-contiguous"):
        raw((1,), (4,), (cp.zeros(8, dtype=cp.float32)[::2], xs, np.float32(1.0), 4))


def want_of(h, g, s):
    return (h.astype(np.float64) * s + g).astype(np.float32)


# ---------------------------------------------------------------------------- random


def test_random_shapes_dtypes_and_ranges():
    cp.random.seed(1)
    a = cp.random.rand(1000)
    assert a.shape == (1000,) and a.dtype == np.float64
    h = a.get()
    assert h.min() >= 0 and h.max() < 1 and 0.4 < h.mean() < 0.6
    cp.random.seed(1)
    np.testing.assert_array_equal(cp.random.rand(1000).get(), h)  # seeded: repeats
    assert cp.random.randn(3, 4, dtype=cp.float32).shape == (3, 4)
    assert cp.random.normal(1.5, 2.0).shape == ()
    u = cp.random.uniform(-3, 5, 2000).get()
    assert u.min() >= -3 and u.max() < 5
    r = cp.random.randint(0, 10, 500).get()
    assert r.dtype == np.int64 and r.min() >= 0 and r.max() <= 9
    with pytest.raises(TypeError, match="float32 and float64"):
        cp.random.rand(3, dtype=cp.int32)
    with pytest.raises(TypeError, match="Seed must be an integer"):
        cp.random.seed(1.5)


# ---------------------------------------------------------------------------- misc


def test_memoize_and_benchmark(capsys):
    calls = []

    @cp.memoize()
    def f(x):
        calls.append(x)
        return x * 2

    assert f(3) == 6 and f(3) == 6 and calls == [3]
    cp.clear_memo()
    assert f(3) == 6 and calls == [3, 3]
    from cuprum.profiler import benchmark

    x = cp.arange(1000.0)
    r = benchmark(lambda v: v * 2, (x,), n_repeat=5, n_warmup=1, name="double")
    assert r.cpu_times.shape == (5,) and r.gpu_times.shape == (1, 5)
    line = str(r)
    assert line.startswith("double              :    CPU:") and "GPU-0:" in line
    with pytest.raises(ValueError, match="tuple"):
        benchmark(lambda v: v, [x])


def test_import_does_not_import_numpy():
    """``import cuprum`` leaves NumPy to the first use of one of its names; those names are
    NumPy's own objects then, and cuprum's AxisError is still NumPy's too."""

    code = (
        "import sys, cuprum\n"
        "assert 'numpy' not in sys.modules, 'numpy imported by import cuprum'\n"
        "import numpy\n"
        "assert cuprum.float32 is numpy.float32 and cuprum.dtype is numpy.dtype\n"
        "assert cuprum.bool is numpy.bool_ and cuprum.int_ is numpy.int64\n"
        "assert issubclass(cuprum.AxisError, numpy.exceptions.AxisError)\n"
        "assert cuprum.exceptions.AxisError is numpy.exceptions.AxisError\n"
        "assert {'float32', 'AxisError', 'dtype'} <= set(dir(cuprum))\n"
        "from cuprum import uint8, finfo\n"
        "assert uint8 is numpy.uint8 and finfo is numpy.finfo\n"
        "try:\n"
        "    cuprum.no_such_name\n"
        "except AttributeError as e:\n"
        "    assert 'no_such_name' in str(e)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
    )
    runs_in_a_fresh_python(code)


def test_show_config(capsys):
    cp.show_config()
    out = capsys.readouterr().out
    assert "cuprum Version" in out and "NVRTC" in out


# ---------------------------------------------------------------------------- interop


@pytest.fixture(scope="module")
def cupy():
    import os

    if os.environ.get("CUPRUM_DEVICE") == "host":
        pytest.skip("the host device: CuPy's arrays are GPU memory")
    return pytest.importorskip("cupy")


class _OnlyCai:
    def __init__(self, inner):
        self.inner = inner

    @property
    def __cuda_array_interface__(self):
        return self.inner.__cuda_array_interface__


def test_other_libraries_arrays_without_a_copy(cupy):
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    for obj in (x, _OnlyCai(x)):
        a = cp.asarray(obj)
        assert a.data.ptr == x.data.ptr and a.shape == (3, 4)
        np.testing.assert_array_equal((a * 2).get(), cupy.asnumpy(x) * 2)
    k = cp.ElementwiseKernel("T x", "T y", "y = x + 1", "inc")
    np.testing.assert_array_equal(k(x).get(), cupy.asnumpy(x) + 1)
    back = cupy.from_dlpack(cp.arange(5.0))
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    z = cp.asarray(_OnlyCai(cupy.asarray(np.float32(2.5))))
    assert z.shape == () and float(z) == 2.5


# ---------------------------------------------------------------------------- bad input


def test_bad_input_gets_cupys_exception_classes():
    add = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_t")
    a, b = cp.zeros((3, 4)), cp.zeros((5,))
    with pytest.raises(ValueError):
        add(a, b)  # shapes that do not broadcast
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(TypeError, match="list"):
        add(a, [1.0, 2.0])
    with pytest.raises(TypeError):
        add(a, cp.zeros((3, 4), dtype=cp.float32))  # T bound twice, differently
    red = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "red_t")
    with pytest.raises(TypeError, match="Output arguments type must be"):
        cp.sum(a, out=np.zeros(()))
    with pytest.raises(ValueError):
        red(a, axis=5)
    raw = cp.RawKernel(
        r'extern "C" __global__ void one(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }',
        "one",
    )
    x = cp.zeros(4, dtype=cp.float32)
    with pytest.raises(cp.CuprumError, match="takes 2 parameter"):
        raw((1,), (4,), (x,))
    with pytest.raises(TypeError, match="args must be a tuple"):
        raw((1,), (4,), [x, 4])
    with pytest.raises(cp.CuprumError, match="non-contiguous"):
        raw((1,), (4,), (cp.zeros((4, 4), dtype=cp.float32)[:, 1], 4))
    with pytest.raises(cp.CompileException):
        cp.RawKernel("this is not C++", "k")((1,), (1,), ())
    with pytest.raises(ValueError, match="Invalid kernel name|kernel name"):
        cp.ElementwiseKernel("T x", "T y", "y = x", "bad-name")
    with pytest.raises(IndexError):
        x[cp.asarray(np.array([0.5]))]
    # the process goes on: the arrays made before still read back
    np.testing.assert_array_equal(x.get(), np.zeros(4, np.float32))
