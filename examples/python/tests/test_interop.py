"""cuprum_example with PyTorch, CuPy, JAX and NumPy: results equal the framework's own, no
copy (same data pointer in and out), ordering on the framework's stream, and wrong dtypes
or devices are TypeError / ValueError naming them.

NumPy tests run anywhere (host memory: cuprum's host device, which compiles kernels with
g++); the others skip when their framework, or a CUDA GPU, is missing (fail instead with
CUPRUM_REQUIRE_GPU=1, as scripts/python-gpu-check runs them).
Run: pytest examples/python/tests/test_interop.py
"""

import gc
import importlib
import os
import weakref

import numpy as np
import pytest

import cuprum_example as ce

RNG = np.random.default_rng(26)
# As cuprum's Rust suite: CUPRUM_REQUIRE_GPU=1 (scripts/python-gpu-check sets it) turns
# every skip for a missing framework or GPU into a failure.
REQUIRE_GPU = os.environ.get("CUPRUM_REQUIRE_GPU") == "1"


def unavailable(why):
    if REQUIRE_GPU:
        pytest.fail(f"CUPRUM_REQUIRE_GPU=1 but {why}")
    pytest.skip(why)


def need(module):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        unavailable(f"{module} is not installed ({e})")


SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 3, 4)]


def prime_factor_sums(n):
    """The sum of the prime factors (with multiplicity) of i + 2 for i < n."""
    out = []
    for i in range(n):
        num, total, p = i + 2, 0, 2
        while p * p <= num:
            while num % p == 0:
                num //= p
                total += p
            p += 1
        out.append(total + (num if num > 1 else 0))
    return np.array(out, dtype=np.int64)


def rand32(shape):
    return RNG.uniform(-10, 10, size=shape).astype(np.float32)


class OnlyDlpack:
    """An array seen only through `__dlpack__` / `__dlpack_device__` (a type of no known
    framework and without an exchange table): the capsule import path."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack__(self, **kwargs):
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


class OnlyCai:
    """An array seen only through the CUDA Array Interface (as Numba's device arrays)."""

    def __init__(self, inner):
        self.inner = inner

    @property
    def __cuda_array_interface__(self):
        return self.inner.__cuda_array_interface__


# 0-d, empty and one-element shapes, each import path: the result keeps the shape.
ODD_SHAPES = [(), (0,), (3, 0), (1,), (1, 1)]


# ---------------------------------------------------------------------------- module


def test_module_exposes_array_and_errors():
    assert issubclass(ce.DTypeError, ce.CuprumError)
    assert issubclass(ce.DTypeError, TypeError)
    for cls in (ce.ShapeError, ce.DeviceError, ce.ArgumentError):
        assert issubclass(cls, ValueError) and issubclass(cls, ce.CuprumError)
    assert issubclass(ce.UnsupportedError, NotImplementedError)
    assert issubclass(ce.OutOfMemoryError, MemoryError)
    assert ce.Array.__module__ == "cuprum"


def test_not_an_array_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="got list"):
        ce.custom_add([1.0, 2.0], [3.0, 4.0])


# ---------------------------------------------------------------------------- NumPy


@pytest.fixture(scope="module", autouse=False)
def host():
    """cuprum's host device compiles kernels with g++ or clang++: skip without one."""
    try:
        ce.custom_add(np.ones(1, np.float32), np.ones(1, np.float32))
    except ce.CuprumError as e:
        if e.kind == "NoHostCompiler":
            pytest.skip(f"no C++ compiler for cuprum's host device: {e}")
        raise


@pytest.mark.parametrize("shape", SHAPES)
def test_numpy_custom_add_equals_numpy(host, shape):
    x, y = rand32(shape), rand32(shape)
    z = ce.custom_add(x, y)
    assert isinstance(z, ce.Array)
    assert z.shape == shape and z.dtype == "float32" and z.device == "host"
    assert z.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(z), x + y * np.float32(2))


@pytest.mark.parametrize("shape", ODD_SHAPES)
@pytest.mark.parametrize("wrap", [False, True])
def test_numpy_odd_shapes_keep_their_shape_on_every_path(host, shape, wrap):
    x, y = rand32(shape), rand32(shape)
    args = (OnlyDlpack(x), OnlyDlpack(y)) if wrap else (x, y)
    z = ce.custom_add(*args)
    assert z.shape == shape and z.ndim == len(shape) and z.size == x.size
    back = np.from_dlpack(z)
    assert back.shape == shape
    np.testing.assert_array_equal(back, x + y * np.float32(2))


def test_numpy_zero_d_scalars_from_numpy_scalars(host):
    z = ce.custom_add(np.asarray(np.float32(1.5)), np.asarray(np.float32(2.0)))
    assert z.shape == () and z.ndim == 0
    assert np.from_dlpack(z).item() == 5.5


def test_arrays_can_be_weakly_referenced(host):
    z = ce.custom_add(rand32((4,)), rand32((4,)))
    r = weakref.ref(z)
    assert r() is z
    cache = weakref.WeakValueDictionary({"z": z})
    assert cache["z"] is z
    del z
    gc.collect()
    assert r() is None and "z" not in cache


def test_numpy_views_and_broadcasting(host):
    base = rand32((6, 8))
    x = base[::2, 1::3]  # non-contiguous view
    y = rand32((3, 1))
    np.testing.assert_array_equal(np.from_dlpack(ce.custom_add(x, y)), x + y * np.float32(2))
    t = base.T  # transposed
    np.testing.assert_array_equal(np.from_dlpack(ce.custom_add(t, t)), t + t * np.float32(2))


def test_numpy_no_copy_in_and_out(host):
    x, y = rand32((1000,)), rand32((1000,))
    out = np.empty_like(x)
    assert ce.data_ptr(x) == x.ctypes.data
    r = ce.custom_add(x, y, out=out)
    back = np.from_dlpack(r)
    assert back.ctypes.data == out.ctypes.data
    np.testing.assert_array_equal(out, x + y * np.float32(2))
    view = x[10:]
    assert ce.data_ptr(view) == view.ctypes.data


def test_numpy_mse_and_prime_factor_sum(host):
    a = RNG.uniform(0, 100, 10_001)
    b = a + RNG.normal(0, 5, a.shape)
    got = np.from_dlpack(ce.mse(a, b))
    assert got.shape == () and got.dtype == np.float64
    want = np.mean((a - b) ** 2)
    assert abs(float(got) - want) <= 1e-12 * want
    out = np.zeros(1000, dtype=np.int64)
    r = ce.prime_factor_sum(out)
    np.testing.assert_array_equal(out, prime_factor_sums(1000))
    assert np.from_dlpack(r).ctypes.data == out.ctypes.data


def test_numpy_wrong_dtype_is_a_type_error_naming_it(host):
    with pytest.raises(TypeError, match="float32") as e:
        ce.prime_factor_sum(np.zeros(8, dtype=np.float32))
    assert isinstance(e.value, ce.CuprumError) and e.value.kind == "DType"


def test_numpy_kernel_dtype_mismatch_is_a_type_error_naming_it(host):
    with pytest.raises(TypeError, match="float64") as e:
        ce.custom_add(np.ones(3), np.ones(3))
    assert e.value.kind == "DType" and "float32" in str(e.value)


class Producer:
    """A DLPack producer that records the capsules it hands out; `legacy`: a pre-1.0
    producer whose __dlpack__ takes no max_version."""

    def __init__(self, array, legacy):
        self.array, self.legacy, self.capsules, self.calls = array, legacy, [], []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None, **kwargs):
        if self.legacy and kwargs:
            raise TypeError(f"__dlpack__() got unexpected keyword arguments {sorted(kwargs)}")
        self.calls.append((stream, kwargs))
        cap = self.array.__dlpack__(stream=stream, **kwargs)
        self.capsules.append(cap)
        return cap


@pytest.mark.parametrize("legacy", [False, True])
def test_consumed_capsules_are_renamed(host, legacy):
    x, y = rand32((6,)), rand32((6,))
    px, py_ = Producer(x, legacy), Producer(y, legacy)
    np.testing.assert_array_equal(np.from_dlpack(ce.custom_add(px, py_)), x + y * np.float32(2))
    name = "used_dltensor" if legacy else "used_dltensor_versioned"
    assert all(f'"{name}"' in repr(c) for c in px.capsules + py_.capsules)
    assert px.calls[-1][0] is None  # host memory: no stream
    if not legacy:
        assert px.calls[-1][1] == {"max_version": (1, 0)}
    ce.custom_add(px, py_)  # a refused max_version is remembered per type: works again
    assert len(px.capsules) == 2


class Odd:
    """A producer that misbehaves as told."""

    def __init__(self, device=(1, 0), capsule=None):
        self.device, self.capsule = device, capsule

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None):
        return self.capsule


def test_bad_producers_are_named(host):
    with pytest.raises(
        TypeError, match="returned an object of type int, expected a DLPack capsule"
    ):
        ce.data_ptr(Odd(capsule=42))
    with pytest.raises(ValueError, match="device type 10 \\(kDLROCM\\)") as e:
        ce.data_ptr(Odd(device=(10, 0)))
    assert isinstance(e.value, ce.DeviceError)
    x = rand32((3,))
    reused = Odd(capsule=x.__dlpack__(max_version=(1, 0)))
    assert ce.data_ptr(reused) == x.ctypes.data
    with pytest.raises(BufferError, match="used_dltensor_versioned"):
        ce.data_ptr(reused)  # the same capsule again: consumed


def test_numpy_shape_mismatch_is_a_value_error(host):
    with pytest.raises(ValueError) as e:
        ce.custom_add(rand32((3,)), rand32((4,)))
    assert e.value.kind == "Shape"
    assert "3" in str(e.value) and "4" in str(e.value)


def test_numpy_read_only_input_reads_and_refuses_writes(host):
    x = rand32((5,))
    x.flags.writeable = False
    np.testing.assert_array_equal(np.from_dlpack(ce.custom_add(x, x)), x * np.float32(3))
    with pytest.raises(ValueError):
        ce.custom_add(x, x, out=x)


def test_capsule_protocol(host):
    z = ce.custom_add(rand32((4,)), rand32((4,)))
    cap = z.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    legacy = z.__dlpack__()
    assert '"dltensor"' in repr(legacy)
    del cap, legacy  # unconsumed: their destructors delete the tensors
    gc.collect()
    with pytest.raises(BufferError):
        z.__dlpack__(dl_device=(2, 0))
    copied = (
        np.from_dlpack(z, copy=True) if np.lib.NumpyVersion(np.__version__) >= "2.1.0" else None
    )
    if copied is not None:
        np.testing.assert_array_equal(copied, np.from_dlpack(z))
    # printed as CuPy prints: NumPy's repr of the values
    assert repr(z) == repr(np.from_dlpack(z)) and str(z) == str(np.from_dlpack(z))
    assert type(z).__name__ == "ndarray" and ce.Array is type(z)
    # a cuprum.Array goes back in without DLPack
    np.testing.assert_array_equal(np.from_dlpack(ce.custom_add(z, z)), np.from_dlpack(z) * 3)


def test_numpy_array_outlives_inputs(host):
    x = rand32((100,))
    y = x.copy()
    z = ce.custom_add(x, y, out=x)  # z is a view of x's memory
    del x, y
    gc.collect()
    back = np.from_dlpack(z)
    assert back.shape == (100,)


# ---------------------------------------------------------------------------- PyTorch


@pytest.fixture(scope="module")
def torch():
    torch = need("torch")
    if not torch.cuda.is_available():
        unavailable("PyTorch has no CUDA device")
    return torch


@pytest.mark.parametrize("shape", SHAPES)
def test_torch_custom_add_equals_torch(torch, shape):
    x = torch.from_numpy(rand32(shape)).cuda()
    y = torch.from_numpy(rand32(shape)).cuda()
    z = torch.from_dlpack(ce.custom_add(x, y))
    assert z.device == x.device and z.dtype == torch.float32 and tuple(z.shape) == shape
    assert torch.equal(z, x + y * 2)


def test_torch_views(torch):
    base = torch.randn(64, 33, device="cuda")
    x, y = base[::2, 1:], base.t()[1:, ::2].t()
    assert not x.is_contiguous()
    assert torch.equal(torch.from_dlpack(ce.custom_add(x, y)), x + y * 2)


def test_torch_no_copy(torch):
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn(1 << 20, device="cuda")
    out = torch.empty_like(x)
    assert ce.data_ptr(x) == x.data_ptr()
    assert ce.data_ptr(x[5:]) == x[5:].data_ptr()
    r = ce.custom_add(x, y, out=out)
    assert torch.from_dlpack(r).data_ptr() == out.data_ptr()
    assert torch.equal(out, x + y * 2)


def test_torch_mse_and_prime_factor_sum(torch):
    a = torch.rand(1_000_003, dtype=torch.float64, device="cuda") * 100
    b = a + torch.randn_like(a) * 5
    got = torch.from_dlpack(ce.mse(a, b))
    assert got.shape == () and got.dtype == torch.float64
    want = ((a - b) ** 2).mean()
    assert abs(got.item() - want.item()) <= 1e-12 * want.item()
    out = torch.zeros(10_000, dtype=torch.int64, device="cuda")
    r = ce.prime_factor_sum(out)
    assert torch.from_dlpack(r).data_ptr() == out.data_ptr()
    assert np.array_equal(out.cpu().numpy(), prime_factor_sums(10_000))


def test_torch_runs_on_torchs_current_stream(torch):
    # A slow op is in flight on a non-default torch stream, then x is written there: the
    # cuprum call, made under `with torch.cuda.stream(s)`, must see the write.
    n = 1 << 22
    s = torch.cuda.Stream()
    y = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        x = torch.zeros(n, device="cuda")
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on s
        x.fill_(1.0)
        z = ce.custom_add(x, y)
        zt = torch.from_dlpack(z)
        copy = zt.clone()  # torch reads cuprum's result on s: ordered after it
    s.synchronize()
    assert torch.equal(copy, 1.0 + y * 2)


def test_torch_inputs_freed_at_once_are_reused_in_stream_order(torch):
    # cuprum gives torch's memory back as soon as its kernel is queued on torch's stream
    # (no event): torch may hand the blocks out again at once, but only to work queued
    # after the kernel on that stream. A slow op holds the kernel back while the inputs'
    # blocks are reused and overwritten: the result must still be the inputs'.
    n = 1 << 22
    xs = torch.randn(n, device="cuda")
    ys = torch.randn(n, device="cuda")
    want = xs + ys * 2
    torch.cuda.synchronize()
    x, y = xs.clone(), ys.clone()
    torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time before the kernel runs
    z = torch.from_dlpack(ce.custom_add(x, y))
    ptrs = {x.data_ptr(), y.data_ptr()}
    del x, y
    reused = [torch.full((n,), 7.0, device="cuda") for _ in range(2)]
    assert ptrs & {r.data_ptr() for r in reused}, "torch did not reuse the freed blocks"
    assert torch.equal(z, want)


def test_torch_exchange_table_and_requires_grad(torch):
    # torch.Tensor offers DLPack's C exchange table: cuprum uses it (no __dlpack__ call),
    # which reads a tensor that requires grad as a C++ extension would (no autograd).
    assert hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
    x = torch.randn(1000, device="cuda", requires_grad=True)
    y = torch.randn(1000, device="cuda")
    z = torch.from_dlpack(ce.custom_add(x, y))
    assert torch.equal(z, x.detach() + y * 2)


def test_torch_consumer_on_another_stream_waits(torch):
    # cuprum's result is produced on s1 behind a slow op; torch consumes it on s2:
    # __dlpack__(stream=s2) makes s2 wait (an event), no synchronisation.
    n = 1 << 22
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s1):
        torch.cuda._sleep(200_000_000)
        z = ce.custom_add(x, y)
    with torch.cuda.stream(s2):
        copy = torch.from_dlpack(z).clone()
    s2.synchronize()
    assert torch.equal(copy, x + y * 2)
    s1.synchronize()


def test_torch_wrong_dtype_is_a_type_error_naming_it(torch):
    with pytest.raises(TypeError, match="float64"):
        ce.prime_factor_sum(torch.zeros(8, dtype=torch.float64, device="cuda"))


def test_torch_kernel_dtype_mismatch_is_a_type_error(torch):
    x = torch.randn(4, device="cuda", dtype=torch.float64)
    with pytest.raises(TypeError, match="float64"):
        ce.custom_add(x, x)
    with pytest.raises(ValueError, match="broadcast"):
        ce.mse(torch.randn(3, device="cuda"), torch.randn(4, device="cuda"))


def test_torch_export_stream_zero_is_a_value_error(torch):
    z = ce.custom_add(torch.ones(2, device="cuda"), torch.ones(2, device="cuda"))
    with pytest.raises(ValueError, match="stream=0"):
        z.__dlpack__(stream=0, max_version=(1, 0))
    assert z.__dlpack_device__() == (2, 0) and z.device == "cuda:0"
    assert repr(z) == "array([3., 3.], dtype=float32)"


def test_torch_cpu_tensor_with_gpu_tensor_is_a_value_error(torch):
    g = torch.randn(4, device="cuda")
    c = torch.randn(4)
    with pytest.raises(ValueError, match="host device") as e:
        ce.custom_add(g, c)
    assert "device 0 (" in str(e.value) and "Tensor" in str(e.value)
    with pytest.raises(ValueError, match=r"device 0 \("):
        ce.custom_add(c, g)


def test_torch_cpu_tensors_run_on_the_host_device(torch, host):
    x, y = torch.randn(9), torch.randn(9)
    z = ce.custom_add(x, y)
    assert z.device == "host"
    assert torch.equal(torch.from_dlpack(z), x + y * 2)


@pytest.mark.parametrize("path", ["exchange", "dlpack"])
def test_torch_zero_d_tensors_stay_zero_d(torch, path):
    # Made as a user would: torch.tensor(scalar, device=...), not from a NumPy array.
    a = torch.tensor(1.5, device="cuda")
    b = torch.tensor(2.0, device="cuda")
    args = (a, b) if path == "exchange" else (OnlyDlpack(a), OnlyDlpack(b))
    z = ce.custom_add(*args)
    assert z.shape == () and z.ndim == 0 and z.size == 1, z
    zt = torch.from_dlpack(z)
    assert zt.shape == () and zt.item() == 5.5
    # one 0-d argument beside a vector broadcasts as NumPy does
    v = torch.randn(5, device="cuda")
    w = torch.from_dlpack(ce.custom_add(v, b if path == "exchange" else OnlyDlpack(b)))
    assert w.shape == (5,) and torch.equal(w, v + 4.0)


@pytest.mark.parametrize("shape", ODD_SHAPES)
@pytest.mark.parametrize("path", ["exchange", "dlpack"])
def test_torch_odd_shapes_keep_their_shape(torch, shape, path):
    x = torch.randn(shape, device="cuda")
    y = torch.randn(shape, device="cuda")
    args = (x, y) if path == "exchange" else (OnlyDlpack(x), OnlyDlpack(y))
    z = ce.custom_add(*args)
    assert z.shape == shape, (z, shape)
    assert torch.equal(torch.from_dlpack(z), x + y * 2)


def test_torch_inputs_dropped_under_a_side_stream_are_not_reused_early(torch):
    # x is made on the default stream (its block is reused in that stream's order); the
    # cuprum call runs under `torch.cuda.stream(s)` behind a slow op. Python drops x right
    # after the call and the default stream allocates (and fills) the same size at once:
    # cuprum must keep x's memory until its kernel on s has read it.
    n = 1 << 22
    y = torch.randn(n, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    for _ in range(3):
        x = torch.full((n,), 1.0, device="cuda")
        ptr = x.data_ptr()
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on s before the kernel
            z = ce.custom_add(x, y)
        del x
        other = torch.full((n,), 7.0, device="cuda")  # the default stream, at once
        assert other.data_ptr() != ptr, "torch reused the block while cuprum's kernel was queued"
        s.synchronize()
        zt = torch.from_dlpack(z)
        assert torch.equal(zt, 1.0 + y * 2)
        del other, z, zt
    # memory made on the side stream and used there: given back in that stream's order
    with torch.cuda.stream(s):
        x = torch.full((n,), 3.0, device="cuda")
        torch.cuda._sleep(200_000_000)
        z = ce.custom_add(x, y)
        del x
        later = torch.full((n,), 9.0, device="cuda")  # on s: ordered after the kernel
        zt = torch.from_dlpack(z).clone()
    s.synchronize()
    assert torch.equal(zt, 3.0 + y * 2)
    del later


# ---------------------------------------------------------------------------- CuPy


@pytest.fixture(scope="module")
def cp():
    cp = need("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            unavailable("CuPy sees no CUDA device")
    except cp.cuda.runtime.CUDARuntimeError:
        unavailable("CuPy sees no CUDA device")
    return cp


@pytest.mark.parametrize("shape", SHAPES)
def test_cupy_custom_add_equals_cupy(cp, shape):
    x, y = cp.asarray(rand32(shape)), cp.asarray(rand32(shape))
    z = cp.from_dlpack(ce.custom_add(x, y))
    assert z.shape == shape and z.dtype == cp.float32
    assert bool(cp.array_equal(z, x + y * cp.float32(2)))


def test_cupy_no_copy_and_mse(cp):
    x, y = cp.asarray(rand32((5000,))), cp.asarray(rand32((5000,)))
    out = cp.empty_like(x)
    assert ce.data_ptr(x) == x.data.ptr
    r = ce.custom_add(x, y, out=out)
    assert cp.from_dlpack(r).data.ptr == out.data.ptr
    a = cp.random.uniform(0, 100, 100_001)
    b = a + cp.random.normal(0, 5, a.shape)
    got = float(cp.from_dlpack(ce.mse(a, b)))
    want = float(cp.mean((a - b) ** 2))
    assert abs(got - want) <= 1e-12 * want


def test_cupy_runs_on_cupys_current_stream(cp):
    spin = cp.RawKernel(
        r"""extern "C" __global__ void spin(long long cycles) {
            long long t0 = clock64();
            while (clock64() - t0 < cycles) {}
        }""",
        "spin",
    )
    n = 1 << 22
    y = cp.asarray(rand32((n,)))
    cp.cuda.Device().synchronize()
    with cp.cuda.Stream(non_blocking=True) as s:
        x = cp.zeros(n, dtype=cp.float32)
        spin((1,), (1,), (cp.int64(200_000_000),))
        x.fill(1.0)
        z = ce.custom_add(x, y)
        copy = cp.from_dlpack(z).copy()
        # z's memory was allocated on s, and returns to cuprum's pool in s's order: drop it
        # while s (a stream CuPy destroys with its object) is alive.
        del z
    s.synchronize()
    assert bool(cp.array_equal(copy, 1.0 + y * cp.float32(2)))


def test_cupy_wrong_dtype(cp):
    with pytest.raises(TypeError, match="int32"):
        ce.prime_factor_sum(cp.zeros(8, dtype=cp.int32))


def test_cupy_zero_d_and_odd_shapes(cp):
    for shape in ODD_SHAPES:
        x, y = cp.asarray(rand32(shape)), cp.asarray(rand32(shape))
        for args in ((x, y), (OnlyDlpack(x), OnlyDlpack(y))):
            z = ce.custom_add(*args)
            assert z.shape == shape, (z, shape)
            assert bool(cp.array_equal(cp.from_dlpack(z), x + y * cp.float32(2)))
    z = ce.custom_add(cp.float32(1.5) * cp.ones((), cp.float32), cp.asarray(2.0, cp.float32))
    assert z.shape == () and float(cp.from_dlpack(z)) == 5.5


def test_cupy_through_the_cuda_array_interface(cp):
    for shape in ODD_SHAPES + [(3, 5)]:
        x, y = cp.asarray(rand32(shape)), cp.asarray(rand32(shape))
        z = ce.custom_add(OnlyCai(x), OnlyCai(y))
        assert z.shape == shape, (z, shape)
        assert bool(cp.array_equal(cp.from_dlpack(z), x + y * cp.float32(2)))
    base = cp.asarray(rand32((6, 8)))
    view = base[::2, 1::3]  # strided: byte strides become element strides
    assert ce.data_ptr(OnlyCai(view)) == view.data.ptr
    z = ce.custom_add(OnlyCai(view), OnlyCai(view))
    assert bool(cp.array_equal(cp.from_dlpack(z), view * cp.float32(3)))
    # work CuPy queued on a side stream (the interface's `stream`) is waited for
    spin = cp.RawKernel(
        r"""extern "C" __global__ void spin_fill(float* x, int n, long long cycles) {
            long long t0 = clock64();
            while (clock64() - t0 < cycles) {}
            for (int i = 0; i < n; ++i) x[i] = 5.0f;
        }""",
        "spin_fill",
    )
    s = cp.cuda.Stream(non_blocking=True)
    x = cp.zeros(1000, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    with s:
        spin((1,), (1,), (x, cp.int32(1000), cp.int64(100_000_000)))
        z = ce.custom_add(OnlyCai(x), OnlyCai(x))  # CuPy's interface names s
    s.synchronize()
    assert bool((cp.from_dlpack(z) == 15.0).all())


def test_cupy_inputs_dropped_under_a_side_stream_are_not_reused_early(cp):
    spin = cp.RawKernel(
        r"""extern "C" __global__ void spin(long long cycles) {
            long long t0 = clock64();
            while (clock64() - t0 < cycles) {}
        }""",
        "spin",
    )
    n = 1 << 22
    y = cp.asarray(rand32((n,)))
    cp.cuda.Device().synchronize()
    s = cp.cuda.Stream(non_blocking=True)
    for _ in range(3):
        x = cp.full(n, 1.0, dtype=cp.float32)  # CuPy's null stream
        ptr = x.data.ptr
        cp.cuda.Device().synchronize()
        with s:
            spin((1,), (1,), (cp.int64(200_000_000),))
            z = ce.custom_add(x, y)
        del x
        other = cp.full(n, 7.0, dtype=cp.float32)  # the null stream, at once
        assert other.data.ptr != ptr, "CuPy reused the block while cuprum's kernel was queued"
        s.synchronize()
        assert bool(cp.array_equal(cp.from_dlpack(z), 1.0 + y * cp.float32(2)))
        with s:
            del z  # allocated on s: back to cuprum's pool in s's order
        del other
    s.synchronize()


# ---------------------------------------------------------------------------- JAX


@pytest.fixture(scope="module")
def jax():
    # JAX takes 75 % of the GPU's memory at its first use unless told otherwise.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = need("jax")
    if REQUIRE_GPU and not any(d.platform == "gpu" for d in jax.devices()):
        unavailable(f"JAX sees no GPU ({jax.devices()})")
    return jax


def test_jax_custom_add_equals_jax(jax):
    import jax.numpy as jnp

    x, y = jnp.asarray(rand32((3, 7))), jnp.asarray(rand32((3, 7)))
    z = ce.custom_add(x, y)
    want = x + y * 2
    got = jnp.from_dlpack(z)
    assert got.shape == (3, 7)
    assert bool(jnp.array_equal(got, want))
    kind = next(iter(x.devices())).platform
    assert z.device == ("host" if kind == "cpu" else "cuda:0")


def test_jax_mse(jax):
    import jax.numpy as jnp

    a = jnp.asarray(RNG.uniform(0, 100, 4097).astype(np.float32))
    b = jnp.asarray(RNG.uniform(0, 100, 4097).astype(np.float32))
    got = (
        float(np.from_dlpack(ce.mse(a, b)))
        if next(iter(a.devices())).platform == "cpu"
        else float(jnp.from_dlpack(ce.mse(a, b)))
    )
    want = float(jnp.mean((a - b) ** 2))
    assert abs(got - want) <= 1e-5 * want


def test_jax_zero_d_and_odd_shapes(jax):
    import jax.numpy as jnp

    for shape in ODD_SHAPES:
        x, y = jnp.asarray(rand32(shape)), jnp.asarray(rand32(shape))
        z = ce.custom_add(x, y)
        assert z.shape == shape, (z, shape)
        got = np.from_dlpack(z) if z.device == "host" else jnp.from_dlpack(z)
        assert bool(jnp.array_equal(jnp.asarray(got), x + y * 2))
