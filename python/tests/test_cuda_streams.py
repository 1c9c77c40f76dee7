"""``cuprum.cuda``: streams (current stream, ``with``, ``use``, ``stream=``), events, CUDA
graphs (on a GPU; the host device refuses them), ``ndarray.device``, and the legacy random
generator's CuPy rules. Values are checked against NumPy."""

import os
import threading

import numpy as np
import pytest
from compare import runs_in_a_fresh_python

import cuprum as cp

ON_HOST = os.environ.get("CUPRUM_DEVICE") == "host"

twice = cp.ElementwiseKernel("T x", "T y", "y = 2 * x + 1", "twice_plus_one")


def test_null_stream_is_current_by_default():
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null
    assert cp.cuda.Stream.null == cp.cuda.Stream(null=True)
    assert "Stream" in repr(cp.cuda.Stream.null)
    # the per-thread default stream is the device's default stream in cuprum too
    assert cp.cuda.Stream.ptds is cp.cuda.Stream.ptds
    assert cp.cuda.Stream.ptds == cp.cuda.Stream.null


def test_with_block_makes_a_stream_current_and_restores_the_previous_one():
    s1, s2 = cp.cuda.Stream(), cp.cuda.Stream()
    assert s1 != s2 and s1.ptr != s2.ptr
    with s1:
        assert cp.cuda.get_current_stream() is s1
        with s2:
            assert cp.cuda.get_current_stream() is s2
        assert cp.cuda.get_current_stream() is s1
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null


def test_use_sets_the_current_stream_until_another_is_used():
    s = cp.cuda.Stream()
    try:
        assert s.use() is s
        assert cp.cuda.get_current_stream() is s
    finally:
        cp.cuda.Stream.null.use()
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null


def test_current_stream_is_per_thread():
    s = cp.cuda.Stream()
    seen = []
    with s:
        t = threading.Thread(target=lambda: seen.append(cp.cuda.get_current_stream()))
        t.start()
        t.join()
    assert seen == [cp.cuda.Stream.null]


def test_work_on_a_side_stream_gives_the_right_values():
    rng = np.random.default_rng(5)
    host = rng.standard_normal(10_001).astype(np.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.asarray(host)
        y = twice(x)
        z = (y * 3).sum()
    s.synchronize()
    assert s.done
    np.testing.assert_allclose(cp.asnumpy(y), 2 * host + 1, rtol=1e-6)
    np.testing.assert_allclose(
        float(z), float((3 * (2 * host + 1)).sum(dtype=np.float64)), rtol=1e-4
    )


def test_stream_keyword_of_kernels():
    s = cp.cuda.Stream()
    x = cp.arange(7, dtype=cp.float64) - 3.5
    y = twice(x, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(y), 2 * (np.arange(7) - 3.5) + 1)
    red = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq_stream")
    r = red(x, stream=s)
    s.synchronize()
    assert float(r) == float(((np.arange(7) - 3.5) ** 2).sum())
    with pytest.raises(TypeError, match="stream"):
        twice(x, stream="not a stream")


def test_external_stream_wraps_another_stream_handle():
    owner = cp.cuda.Stream()
    ext = cp.cuda.ExternalStream(owner.ptr)
    assert ext.ptr == owner.ptr and ext.device_id == owner.device_id
    assert ext == owner and "ExternalStream" in repr(ext)
    x = cp.arange(1000, dtype=cp.float32)
    with ext:
        assert cp.cuda.get_current_stream() is ext
        y = twice(x)
        z = twice(x, stream=ext)
    ext.synchronize()
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null
    expected = 2 * np.arange(1000, dtype=np.float32) + 1
    np.testing.assert_array_equal(y.get(), expected)
    np.testing.assert_array_equal(z.get(), expected)
    # the legacy default stream (0), on the current device
    legacy = cp.cuda.ExternalStream(0, device_id=-1)
    np.testing.assert_array_equal(twice(x, stream=legacy).get(), expected)
    with pytest.raises(ValueError, match="device_id must be -1"):
        cp.cuda.ExternalStream(owner.ptr, device_id=-2)


@pytest.mark.skipif(ON_HOST, reason="PyTorch's streams are CUDA streams")
def test_external_stream_of_pytorch_orders_with_its_work():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        t = torch.arange(1 << 20, dtype=torch.float32, device="cuda") * 3
    ext = cp.cuda.ExternalStream(ts.cuda_stream)
    with ext:
        y = twice(cp.from_dlpack(t))  # queued after PyTorch's work on the same stream
    ext.synchronize()
    expected = 2 * (np.arange(1 << 20, dtype=np.float32) * 3) + 1
    np.testing.assert_array_equal(y.get(), expected)


def test_profile_ranges_run_the_work_inside_them():
    x = cp.arange(10, dtype=cp.float64)
    with cp.profiler.profile():
        y = x * 2
    np.testing.assert_array_equal(y.get(), np.arange(10) * 2.0)
    with pytest.warns(DeprecationWarning, match="cuprum.profiler.profile"):
        ctx = cp.cuda.profile()
    with ctx:
        y = x + 1
    np.testing.assert_array_equal(y.get(), np.arange(10) + 1.0)


@pytest.mark.skipif(ON_HOST, reason="the CUDA array interface names GPU memory")
def test_unowned_memory_views_another_librarys_allocation():
    owner = cp.arange(16, dtype=cp.float32)  # stands for another library's buffer
    mem = cp.cuda.UnownedMemory(owner.data.ptr, 64, owner)
    assert mem.ptr == owner.data.ptr and mem.size == 64
    view = cp.ndarray((4,), cp.float32, cp.cuda.MemoryPointer(mem, 16))
    np.testing.assert_array_equal(view.get(), np.arange(4, 8, dtype=np.float32))
    view[:] = 0
    np.testing.assert_array_equal(owner[4:8].get(), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="offset 65 lies outside the memory block of 64"):
        cp.cuda.MemoryPointer(mem, 65)
    with pytest.raises(ValueError, match="past|reach|bytes"):
        cp.ndarray((20,), cp.float32, cp.cuda.MemoryPointer(mem, 0))


def test_memory_pool_counts_its_free_blocks():
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0
    a = cp.empty(1 << 20, dtype=cp.float32)
    del a
    assert pool.n_free_blocks() >= 1
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0


def test_memory_pool_limit_refuses_allocations_past_it():
    pool = cp.get_default_memory_pool()
    assert pool.get_limit() == 0
    free, total = cp.cuda.Device().mem_info
    assert 0 < free <= total
    keep = cp.ones(1 << 20, dtype=cp.float32)  # 4 MiB held
    try:
        pool.set_limit(size=64 << 20)
        assert pool.get_limit() == 64 << 20
        a = cp.zeros(1 << 20, dtype=cp.float32)
        with pytest.raises(
            cp.cuda.memory.OutOfMemoryError,
            match="bytes .* are allocated and the limit is 67108864 bytes .64.0 MiB. .Device::set_memory_limit, CuPy's MemoryPool.set_limit.",
        ):
            cp.zeros(32 << 20, dtype=cp.float32)  # 128 MiB
        np.testing.assert_array_equal(a[:3].get(), np.zeros(3, np.float32))
        # a freed 40 MiB block kept for reuse is given back to fit 48 MiB of another size
        b = cp.empty(10 << 20, dtype=cp.float32)
        del b
        c = cp.full(12 << 20, 2.0, dtype=cp.float32)
        assert float(c[-1]) == 2.0
        del c
        pool.set_limit(fraction=0.5)
        assert pool.get_limit() == int(0.5 * total)
        with pytest.raises(ValueError, match="fraction out of range"):
            pool.set_limit(fraction=1.5)
        with pytest.raises(ValueError, match="cannot be specified at one time"):
            pool.set_limit(size=1, fraction=0.5)
        with pytest.raises(ValueError, match="size out of range"):
            pool.set_limit(size=-1)
    finally:
        pool.set_limit()
    assert pool.get_limit() == 0
    np.testing.assert_array_equal(keep[:2].get(), np.ones(2, np.float32))


def test_memory_limit_from_the_environment():
    code = """
import cuprum as cp, pytest
pool = cp.get_default_memory_pool()
assert pool.get_limit() == 64 << 20, pool.get_limit()
with pytest.raises(cp.cuda.memory.OutOfMemoryError, match="bytes .* are allocated and the limit is 67108864 bytes .64.0 MiB. .Device::set_memory_limit, CuPy's MemoryPool.set_limit."):
    cp.zeros(32 << 20, dtype=cp.float32)
"""
    runs_in_a_fresh_python(code, {"CUPY_GPU_MEMORY_LIMIT": "67108864"})
    bad = """
import cuprum as cp, pytest
with pytest.raises(ValueError, match="CUPRUM_GPU_MEMORY_LIMIT=.1GB. is not valid"):
    cp.zeros(4)
cp.get_default_memory_pool().set_limit(size=1 << 30)
assert float(cp.ones(4).sum()) == 4.0
"""
    runs_in_a_fresh_python(bad, {"CUPRUM_GPU_MEMORY_LIMIT": "1GB"})


def test_events_order_streams_and_time_them():
    s1, s2 = cp.cuda.Stream(), cp.cuda.Stream()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    with s1:
        start.record()
        x = cp.arange(100_000, dtype=cp.float32)
        y = twice(x)
        done = s1.record()
        stop.record(s1)
    s2.wait_event(done)
    with s2:
        z = y + 1
    s2.synchronize()
    stop.synchronize()
    assert done.done and stop.done
    assert cp.cuda.get_elapsed_time(start, stop) >= 0.0
    np.testing.assert_array_equal(cp.asnumpy(z), 2 * np.arange(100_000, dtype=np.float32) + 2)


def test_a_stream_entered_from_the_default_stream_sees_its_work():
    # CuPy's streams are blocking: work queued on the NULL stream before `with s:` is
    # ordered before the block's work, with no event in the program.
    n = 1 << 22
    for _ in range(3):
        x = cp.zeros(n, dtype=cp.float32)
        x += 1.0
        x *= 3.0  # queued on the default stream; large enough to be still running below
        s = cp.cuda.Stream()
        with s:
            total = x.sum()
        s.synchronize()
        assert float(total) == 3.0 * n


def test_the_default_stream_after_a_with_block_sees_its_work():
    # ...and the NULL stream's work after the block is ordered after the block's work.
    n = 1 << 22
    for _ in range(3):
        x = cp.zeros(n, dtype=cp.float32)
        s = cp.cuda.Stream()
        with s:
            x += 1.0
            x *= 3.0  # large enough to be still running below
        total = x.sum()  # the default stream
        assert float(total) == 3.0 * n
        with s:
            x *= 2.0
        s2 = cp.cuda.Stream()
        with s2:  # entered from the default stream, which waited for s
            total = x.sum()
        s2.synchronize()
        assert float(total) == 6.0 * n


def test_graph_capture_replays_the_captured_work():
    s = cp.cuda.Stream()
    x = cp.asarray(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    if ON_HOST:
        with s, pytest.raises(cp.UnsupportedError, match="graphs need a GPU"):
            s.begin_capture()
        assert not s.is_capturing()
        return
    with s:
        s.begin_capture()
        assert s.is_capturing()
        y = twice(twice(x))
        g = s.end_capture()
    assert not s.is_capturing()
    assert g.node_count >= 2
    g.launch(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(y), [7.0, 11.0, 15.0])
    x[...] = cp.asarray(np.array([0.0, -1.0, 10.0], dtype=np.float32))
    g.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(y), [3.0, -1.0, 43.0])


def test_capture_errors_are_exceptions():
    s = cp.cuda.Stream()
    with pytest.raises(ValueError, match="not capturing"):
        s.end_capture()
    with pytest.raises(ValueError, match="default stream"):
        cp.cuda.Stream.null.begin_capture()


def test_ndarray_device_is_a_cuda_device():
    a = cp.zeros(3)
    d = a.device
    assert isinstance(d, cp.cuda.Device)
    assert d == cp.cuda.Device(0) and d.id == 0


class TestLegacyRandomRules:
    def test_seed_repeats_the_stream(self):
        cp.random.seed(123)
        a = cp.asnumpy(cp.random.rand(5))
        b = cp.asnumpy(cp.random.randn(3, 2))
        cp.random.seed(123)
        np.testing.assert_array_equal(cp.asnumpy(cp.random.rand(5)), a)
        np.testing.assert_array_equal(cp.asnumpy(cp.random.randn(3, 2)), b)

    def test_ranges_and_shapes(self):
        rs = cp.random.RandomState(4)
        r = cp.asnumpy(rs.random_sample((100, 3), dtype=np.float32))
        assert r.shape == (100, 3) and r.dtype == np.float32
        assert ((r >= 0) & (r < 1)).all()
        u = cp.asnumpy(rs.uniform(5.0, 3.0, 1000))  # reversed bounds: CuPy allows them
        assert ((u > 3.0) & (u <= 5.0)).all()
        k = cp.asnumpy(rs.randint(-5, 1000, size=(7, 11)))
        assert k.dtype == np.int64 and k.min() >= -5 and k.max() < 1000
        assert cp.random.normal(1.5, 2.0).shape == ()
        assert rs.randn(3).size == 3

    def test_array_bounds(self):
        rs = cp.random.RandomState(9)
        low = cp.asarray(np.array([0.0, 10.0, -5.0]))
        high = cp.asarray(np.array([1.0, 20.0, -4.0]))
        u = cp.asnumpy(rs.uniform(low, high))
        assert ((u >= [0, 10, -5]) & (u < [1, 20, -4])).all()
        n = cp.asnumpy(rs.normal(cp.asarray(np.array([100.0, -100.0])), 0.001))
        np.testing.assert_allclose(n, [100.0, -100.0], atol=0.1)

    def test_bad_arguments(self):
        with pytest.raises(TypeError, match="float32 and float64"):
            cp.random.rand(3, dtype=np.int32)
        with pytest.raises(ValueError):
            cp.random.randint(5, 5)
        with pytest.raises(TypeError, match="integer"):
            cp.random.seed(1.5)


class TestScanKernel:
    def test_cumsum_like_scans_against_numpy(self):
        k = cp.ScanKernel("T x", "T y", "x", "a + b", "0", "my_cumsum")
        rng = np.random.default_rng(1)
        for dtype in (np.int32, np.int64, np.float64):
            for n in (1, 7, 1000, 4097):
                h = (rng.integers(-50, 50, n)).astype(dtype)
                got = cp.asnumpy(k(cp.asarray(h)))
                np.testing.assert_allclose(got, np.cumsum(h, dtype=dtype))
        assert repr(k) == "<ScanKernel 'my_cumsum'>"

    def test_axis_exclusive_out_and_stream(self):
        k = cp.ScanKernel("T x", "T y", "x", "max(a, b)", "-1e300", "run_max", scan_type="float64")
        h = np.random.default_rng(2).standard_normal((5, 33))
        x = cp.asarray(h)
        np.testing.assert_array_equal(cp.asnumpy(k(x, axis=1)), np.maximum.accumulate(h, 1))
        np.testing.assert_array_equal(cp.asnumpy(k(x, axis=0)), np.maximum.accumulate(h, 0))
        s = cp.ScanKernel("T x", "T y", "x", "a + b", "0", "excl")
        e = cp.asnumpy(s(cp.asarray(np.arange(1, 6)), exclusive=True))
        np.testing.assert_array_equal(e, [0, 1, 3, 6, 10])
        out = cp.empty(5, dtype=cp.int64)
        st = cp.cuda.Stream()
        r = s(cp.asarray(np.arange(1, 6)), out=out, stream=st)
        st.synchronize()
        np.testing.assert_array_equal(cp.asnumpy(out), [1, 3, 6, 10, 15])
        assert r.shape == (5,)
        two = cp.ScanKernel(
            "T x, T w", "T y", "x * w", "a + b", "0", "weighted", post_map_expr="y = 2 * a"
        )
        got = cp.asnumpy(two(cp.asarray(np.arange(4.0)), 3.0))
        np.testing.assert_array_equal(got, 2 * np.cumsum(3 * np.arange(4.0)))

    def test_bad_definitions_and_calls(self):
        with pytest.raises(ValueError, match="identity"):
            cp.ScanKernel("T x", "T y", "x", "a + b", "", "s")
        with pytest.raises(ValueError, match="one output parameter"):
            cp.ScanKernel("T x", "T y, T z", "x", "a + b", "0", "s")
        k = cp.ScanKernel("T x", "T y", "x", "a + b", "0", "s2")
        with pytest.raises(TypeError, match="Wrong number of arguments"):
            k()
        with pytest.raises(cp.CompileException):
            cp.ScanKernel("T x", "T y", "x", "a +* b", "0", "s3")(cp.arange(3))


def test_allow_synchronize_false_refuses_what_waits_for_the_device():
    a = cp.arange(6, dtype=cp.float32)
    with cp.allow_synchronize(False):
        b = a * 2 + 1  # queued work is no synchronization
        waits = [
            b.get,
            b[0].item,
            lambda: bool(b[1]),
            lambda: float(b[2]),
            b.tolist,
            lambda: cp.asnumpy(b),
            cp.cuda.get_current_stream().synchronize,
            cp.cuda.Device().synchronize,
        ]
        for wait in waits:
            with pytest.raises(cp.DeviceSynchronized, match="synchronization was detected"):
                wait()
        with cp.allow_synchronize(True):  # nested: allowed again inside
            np.testing.assert_array_equal(b.get(), np.arange(6, dtype=np.float32) * 2 + 1)
        with pytest.raises(cp.DeviceSynchronized):
            b.get()
    assert b.sum().item() == 36.0  # the setting came back after the block


def test_allow_synchronize_is_per_thread():
    a = cp.arange(3)
    seen = []
    with cp.allow_synchronize(False):
        t = threading.Thread(target=lambda: seen.append(a.get().tolist()))
        t.start()
        t.join()
    assert seen == [[0, 1, 2]]
    assert issubclass(cp.DeviceSynchronized, RuntimeError)
