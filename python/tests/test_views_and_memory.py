"""NumPy's view bookkeeping (``ndarray.base``, ``flags.owndata``), memory layouts of new
arrays (``order=`` of ``empty``/``zeros``/``ones``/``full`` and the ``*_like`` family),
complex ``argmax``/``argmin``/``nanmax``/``nanmin``, 0-d arrays taken and sorted along an
axis, CuPy's ``dtype=`` of ``argmax``/``argmin``, the median over a tuple of axes for
every dtype, bool arrays viewed from other bytes, and CuPy's page-locked host memory (``cuda.alloc_pinned_memory`` and its
pool) — each against NumPy where NumPy has it."""

import gc

import numpy as np
import pytest
from compare import same

import cuprum as cp

RNG = np.random.default_rng(11)


def complex_data(n, dtype, with_nan=False):
    x = (RNG.integers(-3, 4, n) + 1j * RNG.integers(-3, 4, n)).astype(dtype)
    if with_nan:
        x[n // 2] = complex(np.nan, 1.0)
    return x


# ------------------------------------------------------ bools viewed from other bytes

# Bytes other than 0 and 1 seen as bools (NumPy: every non-zero byte is true, in every
# operation; reading such a byte as a C++ bool is undefined, so kernels read its byte).
RAW_BOOL_BYTES = np.array([3, 0, 1, 2, 0, 255, 4, 128, 0, 1, 6], np.uint8)


def _raw_bools():
    return cp.asarray(RAW_BOOL_BYTES).view(cp.bool_), RAW_BOOL_BYTES.view(np.bool_)


@pytest.mark.parametrize(
    "op",
    [
        lambda m, b: b.astype(m.int8),
        lambda m, b: b.astype(m.float32),
        lambda m, b: b.astype(m.complex64),
        lambda m, b: m.logical_not(b),
        lambda m, b: ~b,
        lambda m, b: b + b,
        lambda m, b: b & b[::-1],
        lambda m, b: b ^ True,
        lambda m, b: b == True,
        lambda m, b: b != b[::-1],
        lambda m, b: m.where(b, 1, 0),
        lambda m, b: m.sum(b),
        lambda m, b: m.count_nonzero(b),
        lambda m, b: (b.any(), b.all(), b[1:3].any()),
        lambda m, b: m.nonzero(b),
        lambda m, b: m.flatnonzero(b),
        lambda m, b: m.argwhere(b),
        lambda m, b: m.arange(b.size)[b],
        lambda m, b: m.compress(b, m.arange(b.size)),
        lambda m, b: m.cumsum(b),
        lambda m, b: m.maximum(b, False),
        lambda m, b: m.isin(b, m.array([True])),
        lambda m, b: m.unique(b),
        lambda m, b: m.sort(b),
        lambda m, b: m.searchsorted(m.sort(b), True),
        lambda m, b: b.astype(m.int32).reshape(11, 1) * 2,
    ],
)
def test_bool_bytes_other_than_one_are_true_everywhere(op):
    b, nb = _raw_bools()
    got, want = op(cp, b), op(np, nb)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(cp.asarray(g), np.asarray(w))
    else:
        same(got, np.asarray(want))


def test_bool_bytes_other_than_one_in_user_kernels():
    b, nb = _raw_bools()
    expected = nb.astype(np.int32)
    ek = cp.ElementwiseKernel("bool x", "int32 y", "y = x", "raw_bool_to_int")
    np.testing.assert_array_equal(ek(b).get(), expected)
    rk = cp.ReductionKernel("bool x", "int32 y", "x", "a + b", "y = a", "0", "raw_bool_count")
    assert int(rk(b)) == int(expected.sum())
    sk = cp.ScanKernel("bool x", "int32 y", "x", "a + b", "0", "raw_bool_scan")
    np.testing.assert_array_equal(sk(b).get(), np.cumsum(expected))


# ---------------------------------------------------------------------------- base, owndata


def test_views_name_the_array_that_owns_the_memory():
    a = cp.asarray(RNG.standard_normal((4, 6)))
    assert a.base is None and a.flags.owndata and a.flags["OWNDATA"]
    for view in (a[1:], a.T, a.reshape(6, 4), a.ravel(), a.view(), a[..., None], a.mT):
        assert view.base is a, view
        assert not view.flags.owndata
    # a view of a view names the owner, as NumPy's
    assert a[1:][::2].base is a
    assert a.T.reshape(-1).base is None  # a copy (the transpose is not C-ordered)
    assert a.copy().base is None and a.astype(np.float32).base is None
    assert a.swapaxes(0, 1).base is a and a.diagonal().base is a
    c = cp.asarray(complex_data(6, np.complex64))
    assert c.real.base is c and c.imag.base is c
    assert "OWNDATA : True" in repr(a.flags)


def test_a_base_keeps_the_memory_alive():
    a = cp.arange(10.0)
    v = a[2:5]
    del a
    gc.collect()
    same(v.base, np.arange(10.0))
    same(v, np.arange(2.0, 5.0))


# ---------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("make", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("order", ["C", "F", "c", "f"])
def test_new_arrays_follow_order(make, order):
    got = getattr(cp, make)((2, 3, 4), dtype=np.float32, order=order)
    want = getattr(np, make)((2, 3, 4), dtype=np.float32, order=order)
    assert got.strides == want.strides
    assert got.flags.f_contiguous == want.flags.f_contiguous
    if make != "empty":
        same(got, want)
    full = cp.full((3, 5), 2.5, order=order)
    assert full.strides == np.full((3, 5), 2.5, order=order).strides
    same(full, np.full((3, 5), 2.5))


def test_new_arrays_refuse_other_orders():
    with pytest.raises(ValueError, match="only 'C' or 'F' order is permitted"):
        cp.zeros((2, 2), order="K")


def _layouts():
    base = np.arange(24.0).reshape(2, 3, 4)
    return [base, base.T, base[:, ::2, :].swapaxes(0, 1), np.asfortranarray(base), base[0]]


@pytest.mark.parametrize("like", ["empty_like", "zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("shape", [None, (4, 2, 3), (6, 4)])
def test_like_functions_lay_out_as_numpy(like, order, shape):
    for h in _layouts():
        if shape is not None and int(np.prod(shape)) != h.size:
            continue
        d = cp.asarray(h)
        if h.strides != d.strides:  # the upload is C-ordered; make the device layout
            d = cp.asarray(np.ascontiguousarray(h))
            if h.flags.f_contiguous:
                d = cp.asfortranarray(d)
            elif h.ndim == 3 and not h.flags.c_contiguous:
                d = cp.asarray(np.arange(24.0).reshape(2, 3, 4))[:, ::2, :].swapaxes(0, 1)
        extra = (1.5,) if like == "full_like" else ()
        got = getattr(cp, like)(d, *extra, order=order, shape=shape)
        want = getattr(np, like)(h, *extra, order=order, shape=shape)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.strides == want.strides, (h.strides, order, shape)
        if like != "empty_like":
            same(got, want)


def test_like_functions_check_their_arguments():
    a = cp.zeros((2, 3))
    with pytest.raises(ValueError, match="order must be one of"):
        cp.empty_like(a, order="X")
    with pytest.raises(TypeError, match="subok is not supported"):
        cp.zeros_like(a, subok=True)
    same(cp.ones_like(a, dtype=np.int8, shape=5), np.ones(5, np.int8))


# ---------------------------------------------------------------------------- complex order


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("with_nan", [False, True])
def test_complex_argmax_argmin_order_lexicographically(dtype, with_nan):
    h = complex_data(40, dtype, with_nan).reshape(5, 8)
    d = cp.asarray(h)
    for axis in (None, 0, 1, -1):
        same(d.argmax(axis=axis), np.argmax(h, axis=axis))
        same(cp.argmin(d, axis=axis), np.argmin(h, axis=axis))
    same(cp.argmax(d, axis=1, keepdims=True), np.argmax(h, axis=1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_nanmax_nanmin_skip_nans(dtype):
    h = complex_data(30, dtype).reshape(5, 6)
    h[1, 2] = complex(np.nan, 0.0)
    h[3, :] = complex(0.0, np.nan)  # an all-NaN row: NaN, with NumPy's warning
    d = cp.asarray(h)
    with pytest.warns(RuntimeWarning):
        want_max = np.nanmax(h, axis=1)
    with pytest.warns(RuntimeWarning):
        want_min = np.nanmin(h, axis=1)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        same(cp.nanmax(d, axis=1), want_max)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        same(cp.nanmin(d, axis=1), want_min)
    same(cp.nanmax(d, axis=0), np.nanmax(h, axis=0))
    same(cp.nanargmin(d[:3]), np.nanargmin(h[:3]))


# ---------------------------------------------------------------------------- 0-d, dtype=


@pytest.mark.parametrize("axis", [0, -1])
def test_zero_d_arrays_take_and_sort_along_an_axis_as_one_element(axis):
    h = np.array(4.5)
    d = cp.asarray(h)
    same(d.argsort(axis=axis), np.argsort(h, axis=axis))
    same(cp.argsort(d, axis=axis), np.argsort(h, axis=axis))
    for ind in (0, -1, [0], [0, -1]):
        same(cp.take(d, ind, axis=axis), np.asarray(np.take(h, ind, axis=axis)))
        same(d.take(ind, axis=axis), np.asarray(h.take(ind, axis=axis)))
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        d.argsort(axis=1)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_argmax_argmin_take_cupys_index_dtype(name, dtype):
    h = RNG.standard_normal((3, 4)).astype(np.float32)
    d = cp.asarray(h)
    for got in (getattr(cp, name)(d, dtype=dtype), getattr(d, name)(dtype=dtype)):
        assert got.dtype == dtype and got.shape == ()
        assert int(got) == int(getattr(np, name)(h))
    got = getattr(d, name)(axis=1, dtype=dtype)
    same(got, getattr(np, name)(h, axis=1).astype(dtype))


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.complex64, np.complex128])
@pytest.mark.parametrize("axis", [(0, 1), (0, 2), (-1, -2), [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median_over_a_tuple_of_axes_for_every_dtype(dtype, axis, keepdims):
    h = RNG.standard_normal((3, 4, 5)) * 5
    h = h > 0 if dtype == np.bool_ else h.astype(dtype)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * RNG.standard_normal((3, 4, 5)).astype(dtype)
    same(cp.median(cp.asarray(h), axis, keepdims=keepdims), np.median(h, axis, keepdims=keepdims))


# ---------------------------------------------------------------------------- pinned memory


def test_pinned_memory_backs_numpy_arrays_that_upload_and_download():
    n = 24
    p = cp.cuda.alloc_pinned_memory(n * 4)
    assert isinstance(p, cp.cuda.PinnedMemoryPointer) and p.size >= n * 4
    assert p.ptr == p.mem.ptr and (p + 8).ptr == p.ptr + 8 and (p + 8).size == p.size - 8
    h = np.frombuffer(p, dtype=np.float32, count=n).reshape(2, 3, 4)
    h[...] = RNG.standard_normal((2, 3, 4))
    want = h.copy()
    for order in ("C", "F"):
        d = cp.asarray(h[:, 1, :], order=order)
        h[...] = 0  # the upload has read the memory already
        same(d, want[:, 1, :])
        assert d.flags.c_contiguous == (order == "C")
        h[...] = want
    out = np.frombuffer(cp.cuda.alloc_pinned_memory(n * 4), dtype=np.float32, count=n)
    cp.asarray(want).ravel().get(out=out)
    np.testing.assert_array_equal(out, want.ravel())


def test_the_pinned_pool_keeps_freed_blocks_for_reuse():
    pool = cp.get_default_pinned_memory_pool()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0
    p = cp.cuda.alloc_pinned_memory(1000)
    view = np.frombuffer(p, dtype=np.uint8)
    addr = p.ptr
    del p
    gc.collect()
    assert pool.n_free_blocks() == 0  # the NumPy array still uses the block
    del view
    gc.collect()
    assert pool.n_free_blocks() == 1
    q = cp.cuda.alloc_pinned_memory(1020)  # the same rounded size: the kept block
    assert q.ptr == addr and pool.n_free_blocks() == 0
    del q
    gc.collect()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0


def test_the_pinned_allocator_can_be_replaced():
    sizes = []

    def mine(size):
        sizes.append(size)
        return cp.cuda.PinnedMemoryPointer(cp.cuda.PinnedMemory(size), 0)

    try:
        cp.cuda.set_pinned_memory_allocator(mine)
        p = cp.cuda.alloc_pinned_memory(100)
        assert sizes == [100] and p.size == 100
        cp.cuda.set_pinned_memory_allocator(None)  # no pool: exactly the size asked
        assert cp.cuda.alloc_pinned_memory(10).size == 10
        with pytest.raises(TypeError, match="allocator must be callable"):
            cp.cuda.set_pinned_memory_allocator(3)
    finally:
        cp.cuda.set_pinned_memory_allocator(cp.get_default_pinned_memory_pool().malloc)
    with pytest.raises(ValueError, match="outside the 16 bytes"):
        cp.cuda.PinnedMemoryPointer(cp.cuda.PinnedMemory(16), 17)
    assert len(memoryview(cp.cuda.alloc_pinned_memory(0))) == 0


# ---------------------------------------------------------------------------- order statistics


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
def test_an_all_nan_slice_warns_as_numpy(name):
    h = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        got = getattr(cp, name)(cp.asarray(h), axis=1)
    with pytest.warns(RuntimeWarning):
        want = getattr(np, name)(h, axis=1)
    same(got, want)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NaN result: no warning
        same(getattr(cp, name)(cp.asarray(h[0])), getattr(np, name)(h[0]))


@pytest.mark.parametrize("name", ["percentile", "quantile", "median"])
@pytest.mark.parametrize("axis", [None, -1, 1])
def test_overwrite_input_uses_the_input_as_work_space(name, axis):
    h = RNG.standard_normal((10, 2, 3, 2))
    d = cp.asarray(h)
    args = {"percentile": ([10.0, 50.0, 90.0],), "quantile": ([0.1, 0.5],), "median": ()}[name]
    got = getattr(cp, name)(d, *args, axis=axis, overwrite_input=True)
    same(got, getattr(np, name)(h, *args, axis=axis))
    assert not bool((d == cp.asarray(h)).all())  # sorted in place, as NumPy may
    same(
        cp.sort(d.reshape(-1) if axis is None else d, axis=-1 if axis is None else axis),
        np.sort(h.reshape(-1) if axis is None else h, axis=-1 if axis is None else axis),
    )


def test_quantiles_refuse_q_of_three_or_more_dimensions():
    d = cp.asarray(RNG.standard_normal((4, 3)))
    q = np.array([[10.0, 20.0], [50.0, 90.0]])
    same(cp.percentile(d, q, axis=-1), np.percentile(d.get(), q, axis=-1))
    for q in ([[[10.0, 20.0]]], cp.asarray([[[0.1]]])):
        with pytest.raises(ValueError, match="q must be a scalar or 1d"):
            cp.percentile(d, q, axis=-1)


# ---------------------------------------------------------------------------- protocols


class _Wrapper:
    """A class written for CuPy that hands out its device array (``__cupy_get_ndarray__``)."""

    def __init__(self, a):
        self.a = a

    def __cupy_get_ndarray__(self):
        return self.a


def test_cupy_get_ndarray_objects_are_arrays():
    h = RNG.standard_normal((3, 4)).astype(np.float32)
    d = cp.asarray(h)
    w = _Wrapper(d)
    assert cp.asarray(w) is d or cp.asarray(w).base is d or cp.asarray(w).data.ptr == d.data.ptr
    same(cp.add(w, 1.0), h + np.float32(1.0))
    same(cp.sum(w, axis=0), h.sum(axis=0))
    same(cp.ElementwiseKernel("T x", "T y", "y = 2 * x", "twice_w")(w), 2 * h)
    bad = _Wrapper(h)  # a NumPy array is not what the protocol hands out
    with pytest.raises(TypeError, match="__cupy_get_ndarray__ of a .* returned a"):
        cp.add(bad, 1.0)


# ---------------------------------------------------------------------------- host data


def test_host_data_readers_upload_numpys_arrays(tmp_path):
    same(
        cp.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int32),
        np.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int32),
    )
    same(cp.fromiter((x * x for x in range(7)), np.float32), np.arange(7.0, dtype=np.float32) ** 2)
    same(cp.fromstring("1 2 3.5", sep=" "), np.array([1.0, 2.0, 3.5]))
    f = tmp_path / "data.txt"
    f.write_text("# a comment\n1 2 3\n4 5 6\n")
    same(cp.loadtxt(f), np.loadtxt(f))
    f.write_text("1,2,\n4,,6\n")
    same(cp.genfromtxt(f, delimiter=","), np.genfromtxt(f, delimiter=","))


# ---------------------------------------------------------------------------- small checks


def test_astype_order_none_and_complex_to_bool():
    h = (RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))).astype(np.complex64)
    h[0, 0] = 0
    h[1, 1] = 1j  # real part zero: still true
    d = cp.asarray(h)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy does not warn for bool: nothing is discarded
        same(d.astype(bool), h.astype(bool))
    same(d.T.astype(np.complex128, order=None), h.T.astype(np.complex128, order=None))
    assert d.T.astype(np.complex128, order=None).strides == h.T.astype(np.complex128).strides
    with pytest.warns(np.exceptions.ComplexWarning):
        d.astype(np.float32)


def test_shape_none_and_take_out_dtype_are_numpys_type_errors():
    with pytest.raises(TypeError, match=r"Use \(\) not None as shape arguments"):
        cp.empty(None)
    a = cp.arange(60, dtype=cp.int32).reshape(3, 4, 5)
    i = cp.asarray([[0, 1, 2], [1, 2, 0]], dtype=cp.int32)
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float32'\)"):
        a.take(i, out=cp.zeros((2, 3), cp.float32))
    out = cp.zeros((2, 3), cp.int64)  # int64 -> int32 is not safe either
    with pytest.raises(TypeError):
        cp.take(a, i, out=out)
    out = cp.zeros((2, 3), cp.int16)  # int16 values fit int32: NumPy takes it
    same(cp.take(a, i, out=out), np.take(a.get(), i.get(), out=np.zeros((2, 3), np.int16)))


def test_an_empty_view_takes_a_larger_dtype_whatever_its_strides():
    h = np.ones((3, 20), np.int16)[:0, ::2]
    got = cp.ones((3, 20), cp.int16)[:0, ::2].view(cp.int32)
    assert got.shape == h.view(np.int32).shape == (0, 5)


def test_device_allocators_are_the_pool():
    pool = cp.cuda.MemoryPool()
    p = pool.malloc(1024)
    assert isinstance(p, cp.cuda.MemoryPointer) and p.ptr != 0
    a = cp.ndarray((256,), cp.float32, memptr=p)
    a[...] = 2.0
    same(a, np.full(256, 2.0, np.float32))
    assert cp.cuda.get_allocator()(16).ptr != 0
    cp.cuda.set_allocator(pool.malloc)  # the pool cuprum uses anyway
    cp.cuda.set_allocator(cp.get_default_memory_pool().malloc)
    with cp.cuda.using_allocator(pool.malloc):
        same(cp.ones(3), np.ones(3))
    with pytest.raises(NotImplementedError, match="its own pool only"):
        cp.cuda.set_allocator(None)
    with pytest.raises(NotImplementedError, match="its own pool only"):
        cp.cuda.using_allocator(lambda size: None)


@pytest.mark.parametrize("name", ["arctan2", "hypot", "nextafter"])
@pytest.mark.parametrize(
    "pair",
    [(np.int8, np.uint8), (np.uint16, np.int16), (np.uint8, np.int16), (np.bool_, np.int8)],
)
def test_float_loop_functions_of_mixed_integers_pick_numpys_loop(name, pair):
    x = RNG.integers(1, 100, 7).astype(pair[0])
    y = RNG.integers(1, 100, 7).astype(pair[1])
    got = getattr(cp, name)(cp.asarray(x), cp.asarray(y))
    want = getattr(np, name)(x, y)
    assert got.dtype == want.dtype
    same(got, want, rtol=1e-3)
    fused = cp.fuse(lambda a, b: getattr(cp, name)(a, b))(cp.asarray(x), cp.asarray(y))
    same(fused, want, rtol=1e-3)


def test_dump_and_dumps_pickle_the_array(tmp_path):
    import pickle

    h = RNG.standard_normal((3, 4)).astype(np.float32)
    d = cp.asarray(h)
    same(pickle.loads(d.dumps()), h)
    path = tmp_path / "a.pkl"
    d.dump(path)
    with open(path, "rb") as f:
        same(pickle.load(f), h)
    with open(tmp_path / "b.pkl", "wb") as f:
        d.T.dump(f)
    with open(tmp_path / "b.pkl", "rb") as f:
        same(pickle.load(f), h.T)


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint16, np.float32, np.float64, np.complex64, np.bool_]
)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5)])
def test_set_copies_a_host_array_in(dtype, shape):
    h = np.asarray(RNG.standard_normal(shape) * 10).astype(dtype)
    for order in ("C", "F"):
        d = cp.zeros(shape, dtype=dtype, order=order)
        assert d.set(h) is None
        same(d, h)
    d = cp.empty(shape, dtype=dtype)
    d.set(np.array(h, order="F"), stream=cp.cuda.Stream())
    cp.cuda.Device().synchronize()
    same(d, h)


def test_set_into_a_view_writes_only_the_view():
    h = RNG.standard_normal((4, 6))
    d = cp.asarray(h)
    row = RNG.standard_normal(6)
    d[2].set(row)
    h[2] = row
    same(d, h)
    block = RNG.standard_normal((2, 6))
    d[1:3].set(block)
    h[1:3] = block
    same(d, h)
    # the transpose is Fortran-contiguous: the values land transposed
    t = RNG.standard_normal((6, 4))
    d.T.set(t)
    same(d, t.T)


def test_set_errors_are_cupys():
    d = cp.zeros((2, 3), dtype=np.float32)
    with pytest.raises(TypeError, match="Only numpy.ndarray can be set to cuprum.ndarray"):
        d.set([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match="float64 array cannot be set to float32 array"):
        d.set(np.ones((2, 3)))
    with pytest.raises(
        ValueError, match=r"Shape mismatch. Old shape: \(2, 3\), new shape: \(3, 2\)"
    ):
        d.set(np.ones((3, 2), dtype=np.float32))
    with pytest.raises(RuntimeError, match="Cannot set to non-contiguous array"):
        d[:, ::2].set(np.ones((2, 2), dtype=np.float32))
    same(d, np.zeros((2, 3), dtype=np.float32))


def test_view_type_is_the_array_class():
    h = RNG.standard_normal((2, 3))
    a = cp.asarray(h)
    v = a.view(type=cp.ndarray)
    assert type(v) is cp.ndarray and v.base is a
    same(a.view(np.int64, cp.ndarray), h.view(np.int64))
    with pytest.raises(TypeError, match="view: type must be cuprum.ndarray"):
        a.view(type=np.ndarray)


@pytest.mark.parametrize("sep", ["", " "])
def test_tofile_writes_what_numpy_writes(tmp_path, sep):
    h = RNG.standard_normal((3, 4)).astype(np.float32)
    d = cp.asarray(h)
    d.T.tofile(tmp_path / "ours", sep=sep)
    h.T.tofile(tmp_path / "numpys", sep=sep)
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "numpys").read_bytes()
    with open(tmp_path / "open", "wb") as f:
        d.tofile(f, sep=sep, format="%.3f")
    h.tofile(tmp_path / "numpys3", sep=sep, format="%.3f")
    assert (tmp_path / "open").read_bytes() == (tmp_path / "numpys3").read_bytes()


# ---------------------------------------------------------------------------- byteswap, flags

BYTESWAP_DTYPES = [np.int8, np.int16, np.uint32, np.int64, np.float16, np.float32]
BYTESWAP_DTYPES += [np.float64, np.complex64, np.complex128, np.bool_]


@pytest.mark.parametrize("dtype", BYTESWAP_DTYPES)
@pytest.mark.parametrize("inplace", [False, True])
def test_byteswap_as_numpy(dtype, inplace):
    h = (np.arange(24) * 7 - 50).astype(dtype).reshape(2, 3, 4)
    for view in (lambda x: x, lambda x: x.transpose(2, 0, 1), lambda x: x[::-1, :, ::2]):
        hv, dv = view(h.copy()), view(cp.asarray(h))
        got = dv.byteswap(inplace=inplace)
        want = hv.byteswap(inplace=inplace)
        assert (got is dv) == inplace
        bits = lambda x: np.ascontiguousarray(x).view(np.uint8)
        np.testing.assert_array_equal(bits(got.get()), bits(want))
        np.testing.assert_array_equal(bits(dv.get()), bits(hv))
    e = cp.zeros((0, 3), dtype)
    assert e.byteswap().shape == (0, 3)


def test_flags_name_every_layout_as_numpy():
    h = np.zeros((3, 4))
    for hv, dv in (
        (h, cp.asarray(h)),
        (h.T, cp.asarray(h).T),
        (h[:, ::2], cp.asarray(h)[:, ::2]),
        (h[:1], cp.asarray(h)[:1]),
    ):
        for key in ("fnc", "forc", "aligned", "c_contiguous", "f_contiguous"):
            assert getattr(dv.flags, key) == getattr(hv.flags, key), key
            assert dv.flags[key.upper()] == hv.flags[key.upper()], key


def test_fill_with_a_complex_value_warns_as_numpy():
    a = cp.zeros(3, np.uint8)
    with pytest.warns(np.exceptions.ComplexWarning):
        a.fill(np.complex64(2 + 1j))
    with pytest.warns(np.exceptions.ComplexWarning):
        a.fill(cp.ones((), np.complex64))
    assert a.tolist() == [1, 1, 1]
    b = cp.zeros(3, np.bool_)
    b.fill(np.complex64(1j))  # to bool nothing is discarded: NumPy is silent
    assert b.tolist() == [True] * 3


def test_dlpack_capsules_and_from_dlpacks_arguments():
    a = cp.arange(5, dtype=cp.float32)
    b = cp.from_dlpack(a.toDlpack())  # a bare (legacy) capsule
    assert b.data.ptr == a.data.ptr and b.tolist() == a.tolist()
    c = cp.from_dlpack(a, copy=True)
    assert c.data.ptr != a.data.ptr and c.tolist() == a.tolist()
    assert cp.from_dlpack(a, copy=False).data.ptr == a.data.ptr
    with pytest.raises(NotImplementedError, match="device"):
        cp.from_dlpack(a, device=a.device)
    used = a.toDlpack()
    cp.from_dlpack(used)
    with pytest.raises(BufferError, match="already consumed"):
        cp.from_dlpack(used)
    # CuPy's deprecated spelling: its warning, and its ValueError for a used capsule.
    legacy = a.toDlpack()
    with pytest.warns(cp.VisibleDeprecationWarning, match="from_dlpack"):
        assert cp.fromDlpack(legacy).data.ptr == a.data.ptr
    warned = pytest.warns(cp.VisibleDeprecationWarning)
    with warned, pytest.raises(ValueError, match="consumed multiple times"):
        cp.fromDlpack(legacy)


def test_versions_as_cuda_numbers_them():
    v = cp.cuda.get_local_runtime_version()
    assert v == cp.cuda.runtime.runtimeGetVersion() and v >= 13000 and v % 10 == 0
