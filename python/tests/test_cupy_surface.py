"""CuPy's surface beyond the kernels that CuPy's own tests and programs use: the
``cuprum.ndarray(shape, dtype, memptr, strides, order)`` constructor, ``cuprum.cuda.alloc``
and ``MemoryPointer`` (copies, ``memset``, offsets, as a raw kernel argument),
``RawModule.get_global`` as a pointer, pickling ``RawKernel`` and ``RawModule``, and
``maximum`` / ``minimum`` of complex numbers; against NumPy, with the error classes and
messages. Runs on the GPU when there is one, else on the host device (``conftest.py``)."""

from __future__ import annotations

import ctypes
import importlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cuprum as cp

ADD_ONE = r"""
extern "C" __global__ void add_one(double* x, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) x[i] += 1.0;
}
"""

CONST = r"""
__constant__ float table[8];
extern "C" __global__ void read_table(float* out) {
    int i = threadIdx.x;
    if (i < 8) out[i] = table[i] * 2.0f;
}
"""


# ---- ndarray(shape, dtype, memptr, strides, order) ------------------------------------


def test_constructor_new_memory():
    a = cp.ndarray((2, 3), cp.float32)
    assert isinstance(a, cp.ndarray)
    assert a.shape == (2, 3) and a.dtype == np.float32 and a.flags.c_contiguous
    b = cp.ndarray(4)
    assert b.shape == (4,) and b.dtype == np.float64
    f = cp.ndarray((2, 3), "int16", order="F")
    assert f.flags.f_contiguous and f.strides == np.empty((2, 3), "int16", order="F").strides
    f[...] = cp.asarray(np.arange(6, dtype=np.int16).reshape(2, 3))
    np.testing.assert_array_equal(f.get(), np.arange(6).reshape(2, 3))


def test_non_native_byte_order():
    # a dtype argument in the other byte order is refused (CuPy's message) ...
    for make in (
        lambda: cp.ndarray((2, 3), dtype=">i"),
        lambda: cp.zeros((2, 3), dtype=">i4"),
        lambda: cp.arange(3).astype(">f8"),
    ):
        with pytest.raises(
            ValueError,
            match="Unsupported dtype >i4 with big-endian byte-order|"
            "Unsupported dtype >f8 with big-endian byte-order",
        ):
            make()
    # ... while byte-swapped host data is read by value
    h = np.arange(5, dtype=">i4")
    x = cp.asarray(h)
    assert x.dtype == np.int32
    np.testing.assert_array_equal(x.get(), np.arange(5))


def test_constructor_errors():
    with pytest.raises(ValueError, match="Negative dimensions are not allowed"):
        cp.ndarray((2, -1))
    with pytest.raises(ValueError, match="order not understood"):
        cp.ndarray((2,), order="K")
    # Strides without memory: new memory of the contiguous size, the strides within it.
    with pytest.raises(ValueError, match="does not allow negative strides"):
        cp.ndarray((2, 3, 4), strides=(-8, 8, 8))
    with pytest.raises(ValueError, match="within a contiguous size of 192 but got 3344"):
        cp.ndarray((2, 3, 4), strides=(8, 128, 1024))
    with pytest.raises(TypeError, match="memptr must be a cuprum.cuda.MemoryPointer, got int"):
        cp.ndarray((2,), memptr=1234)


def test_constructor_strides_without_memory():
    a = cp.ndarray((2, 3, 4), strides=(8, 0, 8), dtype="float64")
    assert a.strides == (8, 0, 8) and a.data.mem.size >= 8 * 4
    assert a.data.mem.ptr == a.data.ptr and a.data.mem.device_id == a.data.device_id
    v = cp.arange(10, dtype=cp.float32)[3:]
    assert v.data.mem.ptr + 12 == v.data.ptr and v.data.mem.size >= 40
    assert isinstance(v.data.mem, cp.cuda.Memory)
    a[...] = 1.5  # overlapping elements: every one holds the last value written
    np.testing.assert_array_equal(a.get(), np.full((2, 3, 4), 1.5))
    e = cp.ndarray((2, 0, 4), strides=(8, 128, 1024), dtype="float64")
    assert e.shape == (2, 0, 4) and e.size == 0
    c = cp.ndarray((2, 3), strides=(12, 4), dtype="int32")
    assert c.flags.c_contiguous and c.strides == (12, 4)


def test_constructor_over_memory():
    x = cp.asarray(np.arange(12, dtype=np.float64))
    v = cp.ndarray((3, 4), cp.float64, x.data)
    np.testing.assert_array_equal(v.get(), np.arange(12.0).reshape(3, 4))
    v[0, 0] = 100.0  # a view: writes reach x
    assert float(x[0]) == 100.0
    # Fortran order and explicit (byte) strides, negative ones included.
    f = cp.ndarray((3, 4), cp.float64, x.data, order="F")
    np.testing.assert_array_equal(f.get(), x.get().reshape(3, 4, order="F"))
    r = cp.ndarray((4,), cp.float64, x.data + 3 * 8, strides=(-8,))
    np.testing.assert_array_equal(r.get(), x.get()[3::-1])
    # Another dtype over the same bytes.
    u = cp.ndarray((24,), cp.int32, x.data)
    np.testing.assert_array_equal(u.get(), x.get().view(np.int32))


def test_constructor_out_of_bounds():
    p = cp.cuda.alloc(64)
    with pytest.raises(ValueError, match="expected the array to lie within the block"):
        cp.ndarray((100,), cp.float64, p + 8 * 4)
    with pytest.raises(ValueError, match="not a multiple of the item size"):
        cp.ndarray((2,), cp.float64, p, strides=(4,))
    with pytest.raises(ValueError, match="expected an aligned pointer"):
        cp.ndarray((2,), cp.float64, p + 4)
    with pytest.raises(ValueError, match="strides has 1 entries but the shape"):
        cp.ndarray((2, 2), cp.float64, p, strides=(8,))
    with pytest.raises(cp.ArgumentError, match="expected the array to lie within the block"):
        cp.ndarray((2,), cp.float64, p, strides=(-8,))


# ---- alloc and MemoryPointer ----------------------------------------------------------


def test_alloc_names():
    assert cp.cuda.alloc is cp.cuda.memory.alloc
    assert cp.cuda.MemoryPointer is cp.cuda.memory.MemoryPointer
    memory = importlib.import_module("cuprum.cuda.memory")  # a submodule: `import` works

    assert memory.alloc is cp.cuda.alloc
    p = memory.alloc(16)
    assert isinstance(p, cp.cuda.MemoryPointer)
    assert p.device_id == 0 and p.device == cp.cuda.Device(0)
    assert int(p) == p.ptr and (p + 8).ptr == p.ptr + 8 and (p + 8 - 8).ptr == p.ptr
    assert "MemoryPointer 0x" in repr(p)
    with pytest.raises(ValueError, match="non-negative"):
        memory.alloc(-1)
    with pytest.raises(TypeError, match="size must be an int"):
        memory.alloc("16")
    with pytest.raises(ValueError, match="leaves the memory block"):
        p - 1


def test_data_is_a_pointer_that_keeps_memory():
    x = cp.asarray(np.arange(6, dtype=np.float32))
    assert x.data.ptr == x.data_ptr and x[2:].data.ptr == x.data_ptr + 8
    p = x[2:].data
    del x
    v = cp.ndarray((4,), cp.float32, p)
    np.testing.assert_array_equal(v.get(), [2, 3, 4, 5])


def test_copies_and_memset():
    a = cp.asarray(np.arange(10, dtype=np.float64))
    p = cp.cuda.alloc(80)
    p.copy_from(a.data, 80)
    b = cp.ndarray((10,), cp.float64, p)
    np.testing.assert_array_equal(b.get(), np.arange(10.0))
    p.memset(0, 16)
    np.testing.assert_array_equal(b.get()[:3], [0, 0, 2])
    p.memset_async(0xFF, 8, stream=cp.cuda.Stream.null)
    assert np.isnan(b.get()[0])

    host = np.arange(10, 20, dtype=np.float64)
    p.copy_from_host(host.ctypes.data_as(ctypes.c_void_p), host.nbytes)
    np.testing.assert_array_equal(b.get(), host)
    back = np.zeros(5, np.float64)
    (p + 8).copy_to_host(back.ctypes.data, back.nbytes)
    np.testing.assert_array_equal(back, host[1:6])
    q = cp.cuda.alloc(80)
    q.copy_from_device_async(p, 80)
    np.testing.assert_array_equal(cp.ndarray((10,), cp.float64, q).get(), host)
    q.copy_from(host.ctypes.data_as(ctypes.c_void_p), 8)


def test_copy_errors():
    p = cp.cuda.alloc(16)
    with pytest.raises(ValueError, match="17 bytes asked for, but only 16 bytes"):
        p.memset(0, 17)
    with pytest.raises(ValueError, match=r"only 8 bytes of the memory block lie from this pointer"):
        (p + 8).copy_from_device(cp.cuda.alloc(16), 16)
    with pytest.raises(TypeError, match="expected a host address"):
        p.copy_from_host("nowhere", 8)
    with pytest.raises(ValueError, match="NULL"):
        p.copy_to_host(ctypes.c_void_p(), 8)


def test_pointer_as_raw_kernel_argument():
    k = cp.RawKernel(ADD_ONE, "add_one")
    p = cp.cuda.alloc(100 * 8)
    p.copy_from(cp.ones(100).data, 100 * 8)
    k((1,), (100,), (p, 100))
    np.testing.assert_array_equal(cp.ndarray((100,), cp.float64, p).get(), np.full(100, 2.0))


def test_get_global_is_a_pointer():
    m = cp.RawModule(code=CONST)
    ptr = m.get_global("table")
    assert isinstance(ptr, cp.cuda.MemoryPointer)
    table = cp.ndarray((8,), cp.float32, ptr)
    table[...] = cp.arange(8, dtype=cp.float32)
    out = cp.zeros(8, cp.float32)
    m.get_function("read_table")((1,), (8,), (out,))
    np.testing.assert_array_equal(out.get(), np.arange(8) * 2.0)
    typed = m.get_global("table", dtype=cp.float32)  # cuprum's typed view
    assert isinstance(typed, cp.ndarray) and typed.shape == (8,)
    with pytest.raises(ValueError, match="expected the array to lie within the block"):
        cp.ndarray((9,), cp.float32, ptr)


# ---- pickling RawKernel and RawModule --------------------------------------------------


def _run_add_one(k, n=10):
    x = cp.zeros(n)
    k((1,), (n,), (x, n))
    return x.get()


def test_pickle_raw_kernel():
    k = cp.RawKernel(ADD_ONE, "add_one", options=("-DUNUSED=1",), enable_cooperative_groups=False)
    again = pickle.loads(pickle.dumps(k))
    assert isinstance(again, cp.RawKernel) and again.name == "add_one"
    assert again.options == ("-DUNUSED=1",) and again.enable_cooperative_groups is False
    np.testing.assert_array_equal(_run_add_one(again), np.ones(10))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(k, protocol)).code == ADD_ONE


def test_pickle_raw_module_and_its_kernel(tmp_path):
    m = cp.RawModule(code=ADD_ONE, options=("-DUNUSED=1",))
    m2 = pickle.loads(pickle.dumps(m))
    assert isinstance(m2, cp.RawModule) and m2.code == ADD_ONE and m2.options == ("-DUNUSED=1",)
    np.testing.assert_array_equal(_run_add_one(m2.get_function("add_one")), np.ones(10))
    k = pickle.loads(pickle.dumps(m.get_function("add_one")))
    np.testing.assert_array_equal(_run_add_one(k), np.ones(10))
    # A module read from a file is read again from it (in the unpickling process).
    path = tmp_path / "add_one.cubin"
    f = pickle.loads(pickle.dumps(cp.RawModule(path=str(path), enable_cooperative_groups=True)))
    make, args = f.__reduce__()
    assert str(make.keywords["path"]) == str(path) and make.keywords["code"] is None
    assert f.enable_cooperative_groups is True and args == ()


def test_pickle_in_another_process(tmp_path):
    k = cp.RawKernel(ADD_ONE, "add_one")
    (tmp_path / "k.pkl").write_bytes(pickle.dumps(k))
    script = (
        "import pickle, numpy, cuprum as cp\n"
        "k = pickle.loads(open('k.pkl', 'rb').read())\n"
        "x = cp.zeros(4)\n"
        "k((1,), (4,), (x, 4))\n"
        "assert (x.get() == numpy.ones(4)).all()\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, check=True)


# ---- maximum / minimum of complex numbers --------------------------------------------


def _complex_cases(dtype):
    nan, inf = np.nan, np.inf
    a = np.array(
        [
            1 + 2j,
            1 + 2j,
            3 + 0j,
            -1 - 1j,
            complex(nan, 0),
            0 + 0j,
            complex(0, nan),
            2 + 1j,
            inf + 0j,
        ],
        dtype=dtype,
    )
    b = np.array(
        [1 + 3j, 0 + 9j, 3 + 0j, -1 - 2j, 1 + 1j, complex(nan, 1), 1 + 1j, complex(2, nan), 5 + 5j],
        dtype=dtype,
    )
    return a, b


def _same_parts(got, want):
    """Equal part by part (NumPy's array comparison takes any two NaN-holding complex
    values as equal)."""
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.real, want.real)
    np.testing.assert_array_equal(got.imag, want.imag)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_complex_maximum_minimum(name, dtype):
    a, b = _complex_cases(dtype)
    with np.errstate(invalid="ignore"):
        for x, y in ((a, b), (b, a)):
            got = getattr(cp, name)(cp.asarray(x), cp.asarray(y)).get()
            _same_parts(got, getattr(np, name)(x, y))


@pytest.mark.parametrize("name", ["max", "min"])
def test_complex_max_min_reductions(name):
    x = np.array([[1 + 5j, 3 - 1j, 3 + 2j], [-4 + 0j, 3 + 2j, 0 + 9j]], np.complex128)
    for axis in (None, 0, 1):
        got = getattr(cp.asarray(x), name)(axis=axis)
        want = getattr(x, name)(axis=axis)
        np.testing.assert_array_equal(cp.asnumpy(got), want)
    with_nan = x.copy()
    with_nan[1, 1] = complex(1, np.nan)
    with np.errstate(invalid="ignore"):
        _same_parts(
            cp.asnumpy(getattr(cp.asarray(with_nan), name)(axis=0)), getattr(with_nan, name)(axis=0)
        )


# ---- raw kernels as CuPy's tests use them ----------------------------------------------

CUPY_COMPLEX = r"""
#include <cupy/complex.cuh>

template<typename T>
__global__ void square(T* x, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= x[i];
}

extern "C" __global__ void magnitude(const complex<double>* z, double* out, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = thrust::abs(z[i]) + abs(conj(z[i])) * 0.0;
}
"""


def test_cupy_complex_header():
    names = ["square<int>", "square<complex<double>>"]
    m = cp.RawModule(code=CUPY_COMPLEX, name_expressions=names)
    z = np.array([1 + 2j, -3 + 0.5j, 2j], np.complex128)
    x = cp.asarray(z)
    m.get_function("square<complex<double>>")((1,), (3,), (x, 3))
    np.testing.assert_allclose(x.get(), z * z)
    out = cp.zeros(3)
    m.get_function("magnitude")((1,), (3,), (cp.asarray(z), out, 3))
    np.testing.assert_allclose(out.get(), np.abs(z))


def test_driver_error_names():
    m = cp.RawModule(code=ADD_ONE)
    with pytest.raises(cp.CuprumError, match="named symbol not found") as e:
        m.get_function("no_such_kernel")
    assert str(e.value).startswith("no kernel named 'no_such_kernel'")
    assert "CUDA_ERROR_NOT_FOUND" in str(e.value)
    with pytest.raises(cp.CuprumError, match="CUDA_ERROR_NOT_FOUND"):
        cp.RawModule(code=CONST).get_global("nothing")
    with pytest.raises(cp.CuprumError, match="CUDA_ERROR_FILE_NOT_FOUND") as e:
        cp.RawModule(path="/nonexistent/module.cubin").get_function("k")
    assert str(e.value).startswith("cannot read the module file /nonexistent/module.cubin")


def test_jitify_and_backend_arguments():
    with pytest.warns(DeprecationWarning, match="Avoid passing jitify=False"):
        cp.RawKernel(ADD_ONE, "add_one", jitify=False)
    with pytest.warns(DeprecationWarning, match="Avoid passing jitify=False"):
        cp.RawModule(code=ADD_ONE, jitify=False)
    with pytest.raises(NotImplementedError, match="jitify=True is not supported"):
        cp.RawKernel(ADD_ONE, "add_one", jitify=True)
    with pytest.raises(ValueError, match="nvrtc"):
        cp.RawModule(code=CUPY_COMPLEX, backend="nvcc", name_expressions=["square<int>"])


def test_compile_log_stream_and_attributes():
    import io

    log = io.StringIO()
    k = cp.RawKernel(ADD_ONE, "add_one")
    k.compile(log_stream=log)  # the compiler's log: NVRTC's warnings (none here)
    assert isinstance(log.getvalue(), str)
    cp.RawModule(code=ADD_ONE).compile(log_stream=log)
    attrs = k.attributes
    assert attrs["cache_mode_ca"] in (0, 1) and attrs["max_threads_per_block"] > 0


def test_complex_to_real_reduction_warns():
    x = np.array([1 + 2j, 3 - 1j], np.complex64)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = cp.asarray(x).sum(dtype=np.float32)
    with pytest.warns(np.exceptions.ComplexWarning):
        want = x.sum(dtype=np.float32)
    assert float(got) == float(want) == 4.0


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_complex_fmax_fmin(name):
    a, b = _complex_cases(np.complex128)
    b[4] = complex(np.nan, np.nan)  # both with a NaN (a[4] is nan+0j): NumPy gives x1
    with np.errstate(invalid="ignore"):
        for x, y in ((a, b), (b, a)):
            got = getattr(cp, name)(cp.asarray(x), cp.asarray(y)).get()
            _same_parts(got, getattr(np, name)(x, y))


# ---------------------------------------------------------------- translate_cucomplex

CUCOMPLEX = r"""
#include <cuComplex.h>
extern "C" {
__global__ void ops(const cuDoubleComplex* a, const cuDoubleComplex* b, cuDoubleComplex* out,
                    double* mag, cuFloatComplex* down, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i + 0] = cuCadd(a[i], b[i]);
    out[4 * i + 1] = cuCmul(a[i], cuConj(b[i]));
    out[4 * i + 2] = cuCdiv(a[i], b[i]);
    out[4 * i + 3] = cuCfma(a[i], b[i], make_cuDoubleComplex(cuCreal(a[i]), -cuCimag(b[i])));
    mag[i] = cuCabs(a[i]);
    down[i] = cuComplexDoubleToFloat(a[i]);
}
__global__ void addf(const cuComplex* a, cuComplex s, cuComplex* out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = cuCaddf(a[i], cuCmulf(s, make_cuFloatComplex(2.0f, 0.0f)));
}
}
"""


def test_translate_cucomplex_runs_cuda_complex_code_as_cuprums_complex():
    rng = np.random.default_rng(3)
    n = 37
    ha = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    hb = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    a, b = cp.asarray(ha), cp.asarray(hb)
    out = cp.zeros(4 * n, dtype=cp.complex128)
    mag = cp.zeros(n, dtype=cp.float64)
    down = cp.zeros(n, dtype=cp.complex64)
    m = cp.RawModule(code=CUCOMPLEX, translate_cucomplex=True)
    m.get_function("ops")((1,), (64,), (a, b, out, mag, down, np.int32(n)))
    got = out.get().reshape(n, 4)
    np.testing.assert_array_equal(got[:, 0], ha + hb)
    np.testing.assert_allclose(got[:, 1], ha * np.conj(hb), rtol=1e-14)
    # the division is cuprum's (NumPy's), bit for bit: what `a / b` gives
    np.testing.assert_array_equal(got[:, 2], (a / b).get())
    np.testing.assert_allclose(got[:, 3], ha * hb + (ha.real - 1j * hb.imag), rtol=1e-14)
    np.testing.assert_allclose(mag.get(), np.abs(ha), rtol=1e-15)
    np.testing.assert_array_equal(down.get(), ha.astype(np.complex64))
    k = cp.RawKernel(CUCOMPLEX, "addf", translate_cucomplex=True)
    af = a.astype(cp.complex64)
    outf = cp.zeros(n, dtype=cp.complex64)
    k((1,), (64,), (af, np.complex64(1 - 2j), outf, np.int32(n)))
    np.testing.assert_allclose(
        outf.get(), ha.astype(np.complex64) + np.complex64(2 - 4j), rtol=1e-6
    )
    # pickling keeps the translation
    again = pickle.loads(pickle.dumps(k))
    outf2 = cp.zeros(n, dtype=cp.complex64)
    again((1,), (64,), (af, np.complex64(1 - 2j), outf2, np.int32(n)))
    np.testing.assert_array_equal(outf2.get(), outf.get())
    with pytest.raises(cp.CompileException):  # without the option, cuComplex.h is CUDA's
        cp.RawKernel(
            "#include <cuComplex.h>\n"
            + 'extern "C" __global__ void k(cuComplex* x) { x[0] = cuCaddf(x[0], x[0]) + 1; }',
            "k",
        )((1,), (1,), (outf,))


# ---- cuprum.cuda.compiler ---------------------------------------------------------------

TEMPLATED = r"""
template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N; }
extern "C" __global__ void plain(float* x) { x[threadIdx.x] = 1.0f; }
"""


def test_compile_using_nvrtc_returns_an_image_and_the_lowered_names():
    from cuprum.cuda import compiler

    try:
        image, mapping = compiler.compile_using_nvrtc(
            TEMPLATED, arch="90", name_expressions=["scale<3>"]
        )
    except cp.CuprumError as e:
        if "NVRTC" in str(e) and "not found" in str(e).lower():
            pytest.skip(f"no NVRTC here: {e}")
        raise
    assert isinstance(image, bytes) and image[:4] == b"\x7fELF"  # a cubin for sm_90
    assert set(mapping) == {"scale<3>"} and mapping["scale<3>"].startswith("_Z")
    image, mapping = compiler.compile_using_nvrtc(TEMPLATED, options=("-DX=1",), arch="sm_90")
    assert image[:4] == b"\x7fELF" and mapping is None
    with pytest.raises(cp.CompileException):
        compiler.compile_using_nvrtc("this is not C++", arch="90")
    with pytest.warns(DeprecationWarning, match="Avoid passing.*jitify=False"):
        compiler.compile_using_nvrtc("", arch="90", jitify=False)
    with pytest.raises(cp.CuprumError, match="jitify=True"):
        compiler.compile_using_nvrtc("", arch="90", jitify=True)
    with pytest.raises(ValueError, match="compute capability"):
        compiler.compile_using_nvrtc("", arch="ninety")
    if cp.cuda.Device().compute_capability == "host":
        with pytest.raises(cp.CuprumError, match="pass arch="):
            compiler.compile_using_nvrtc("")
    else:
        # the current GPU's architecture, loadable as a module
        image, _ = compiler.compile_using_nvrtc(TEMPLATED)
        assert image[:4] == b"\x7fELF"


# ---- dynamic parallelism (relocatable device code) ---------------------------------------

PARENT_CHILD = r"""
extern "C" {
__global__ void fill_one(float* arr, int n) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) arr[i] = 1.0f;
}
__global__ void parent(float* arr, int n, int chunk) {
    unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n / chunk) fill_one<<<1, chunk>>>(arr + i * chunk, chunk);
}
}
"""


def test_a_kernel_that_launches_kernels_compiles_with_dc():
    if cp.cuda.Device().compute_capability == "host":
        pytest.skip("launches from device code need a GPU")
    n, chunk = 169, 13
    k = cp.RawKernel(PARENT_CHILD, "parent", options=("-dc",))
    x = cp.zeros((n,), dtype=cp.float32)
    k((1,), (n // chunk,), (x, n, chunk))
    np.testing.assert_array_equal(x.get(), np.ones(n, np.float32))
    with pytest.raises(cp.CompileException):
        cp.RawKernel(PARENT_CHILD, "parent")((1,), (n // chunk,), (x, n, chunk))


def test_fill_takes_zero_d_arrays_and_refuses_others():
    a = cp.zeros(4, dtype=cp.int32)
    a.fill(cp.asarray(7.9))
    assert a.get().tolist() == [7, 7, 7, 7]
    a.fill(np.ones((), np.int16))
    assert a.get().tolist() == [1, 1, 1, 1]
    with pytest.raises(ValueError, match="0-d array"):
        a.fill(np.ones(1))


def test_values_with_more_leading_unit_axes_assign():
    a = cp.zeros((2, 3))
    a[...] = cp.arange(3.0).reshape(1, 1, 3)  # NumPy drops the leading 1s
    a[0, [0, 2]] = cp.asarray([[5.0, 6.0]])
    assert a.get().tolist() == [[5.0, 1.0, 6.0], [0.0, 1.0, 2.0]]


def test_tobytes_astype_warning_and_layout_functions():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    x = cp.asarray(a)
    assert bytes(x) == a.tobytes() and x.tobytes("F") == a.tobytes("F")
    with pytest.warns(np.exceptions.ComplexWarning):
        cp.asarray([1 + 1j]).astype(cp.float64)
    f = cp.asfortranarray(x)
    assert f.flags.f_contiguous and f.get().tolist() == a.tolist()
    b1, b2 = cp.broadcast_arrays(cp.arange(3), cp.zeros((2, 1)))
    assert b1.shape == b2.shape == (2, 3)
    with pytest.raises(ValueError):
        cp.arange(3, dtype=cp.int32).view(cp.int64)
