"""``cuprum.cuda.texture`` and ``cuprum.cuda.runtime``'s constants: CuPy's
``TestElementwiseKernelTexture`` (1-, 2- and 3-D float32 textures sampled by an
``ElementwiseKernel``), CUDA arrays filled from and read into NumPy and device arrays,
linear and pitched resources, linear filtering against a NumPy model, surfaces written by a
``RawKernel``, the descriptors' dicts, and the errors CuPy raises. Runs on the GPU when
there is one, else on the host device (``conftest.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import cuprum as cp
from cuprum.cuda import runtime
from cuprum.cuda.texture import (
    ChannelFormatDescriptor,
    CUDAarray,
    ResourceDescriptor,
    SurfaceObject,
    TextureDescriptor,
    TextureObject,
)


def _float_texture(shape, address=runtime.cudaAddressModeClamp, **tex):
    """A float32 CUDA array of ``shape`` (C order, CuPy's) filled with random data, and a
    texture object over it."""
    dims = shape[::-1] + (0,) * (3 - len(shape))
    data = np.random.default_rng(len(shape)).random(shape, dtype=np.float32)
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    arr = CUDAarray(ch, *dims)
    arr.copy_from(data)
    res = ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr)
    desc = TextureDescriptor(
        (address,) * 3,
        tex.pop("filter", runtime.cudaFilterModePoint),
        runtime.cudaReadModeElementType,
        **tex,
    )
    return TextureObject(res, desc), data, arr


KERNELS = {
    1: ("T x, U texObj", "T temp = tex1D<T>(texObj, float(i)); y = temp + x;"),
    2: (
        "T x, U texObj, uint64 width",
        "T temp = tex2D<T>(texObj, (float)(i % width), (float)(i / width)); y = temp + x;",
    ),
    3: (
        "T x, U texObj, uint64 width, uint64 height",
        (
            "T temp = tex3D<T>(texObj, (float)((i % (width * height)) % width), "
            "(float)((i % (width * height)) / width), (float)((i / (width * height)))); "
            "y = temp + x;"
        ),
    ),
}


@pytest.mark.parametrize("shape", [(64,), (16, 64), (7, 16, 64), (1,), (3, 1), (33,)])
def test_elementwise_kernel_samples_a_texture_as_cupys_test(shape):
    tex, data, arr = _float_texture(shape)
    dim = len(shape)
    params, body = KERNELS[dim]
    ker = cp.ElementwiseKernel(params, "T y", body, name=f"test_tex{dim}D")
    x = cp.asarray(np.random.default_rng(9).random(shape, dtype=np.float32))
    args = [x, tex] + [np.uint64(s) for s in shape[::-1][: dim - 1]]
    y = ker(*args)
    np.testing.assert_array_equal(cp.asnumpy(y), data + cp.asnumpy(x))
    # The output given, as CuPy's test gives it.
    out = cp.zeros(shape, dtype=cp.float32)
    ker(*args, out)
    np.testing.assert_array_equal(cp.asnumpy(out), data + cp.asnumpy(x))
    assert arr.ndim == dim
    assert (arr.width, arr.height, arr.depth) == shape[::-1] + (0,) * (3 - dim)
    assert isinstance(tex.ptr, int) and tex.ptr != 0


def test_cuda_arrays_copy_from_and_to_numpy_and_device_arrays():
    ch = ChannelFormatDescriptor(16, 16, 0, 0, runtime.cudaChannelFormatKindUnsigned)
    arr = CUDAarray(ch, 5, 3)
    data = np.arange(30, dtype=np.uint16).reshape(3, 10) * 7
    arr.copy_from(cp.asarray(data), stream=cp.cuda.Stream.null)
    out = np.zeros((3, 10), dtype=np.uint16)
    arr.copy_to(out)
    np.testing.assert_array_equal(out, data)
    dev = cp.zeros((3, 10), dtype=cp.uint16)
    s = cp.cuda.Stream()
    arr.copy_to(dev, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(dev), data)
    assert arr.desc.get_channel_format() == {"x": 16, "y": 16, "z": 0, "w": 0, "f": 1}


def test_linear_filtering_with_normalized_wrapped_coordinates():
    n = 16
    tex, data, _ = _float_texture(
        (n,),
        address=runtime.cudaAddressModeWrap,
        filter=runtime.cudaFilterModeLinear,
        normalizedCoords=True,
    )
    k = cp.ElementwiseKernel("float32 u, U t", "float32 y", "y = tex1D<float>(t, u)", "lin")
    u = np.linspace(-1.3, 2.2, 301, dtype=np.float32)
    got = cp.asnumpy(k(cp.asarray(u), tex))
    # CUDA's linear filter: x - 0.5 in texels, weights of 8 fractional bits, wrap.
    xb = (u - np.floor(u)) * n - 0.5
    i = np.floor(xb)
    a = np.round((xb - i) * 256) / 256
    i = i.astype(np.int64)
    want = (1 - a) * data[i % n] + a * data[(i + 1) % n]
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def _aligned(a):
    """``a`` in device memory that starts at a multiple of 512 bytes (CUDA's texture
    alignment, which linear and pitched resources need): a view of a larger array."""
    big = cp.zeros(a.size + 512 // a.itemsize, dtype=a.dtype)
    skip = (-big.data.ptr % 512) // a.itemsize
    view = big[skip : skip + a.size]
    view[...] = a.ravel()
    return view.reshape(a.shape)


def test_linear_and_pitched_resources():
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    mem = _aligned(cp.arange(64, dtype=cp.float32) * 0.5)
    res = ResourceDescriptor(runtime.cudaResourceTypeLinear, arr=mem, chDesc=ch, sizeInBytes=40 * 4)
    tex = TextureObject(res, TextureDescriptor())
    k = cp.ElementwiseKernel("int32 j, U t", "float32 y", "y = tex1Dfetch<float>(t, j)", "fetch")
    j = cp.asarray(np.array([0, 5, 39, 40, 63], dtype=np.int32))
    np.testing.assert_array_equal(cp.asnumpy(k(j, tex)), [0.0, 2.5, 19.5, 0.0, 0.0])
    d = res.get_resource_desc()
    assert d["resType"] == runtime.cudaResourceTypeLinear and d["sizeInBytes"] == 160

    # 4 rows of 5 texels, 16 texels (64 bytes) apart.
    mem2 = _aligned(cp.arange(64, dtype=cp.float32).reshape(4, 16))
    res = ResourceDescriptor(
        runtime.cudaResourceTypePitch2D, arr=mem2, chDesc=ch, width=5, height=4, pitchInBytes=64
    )
    tex = TextureObject(res, TextureDescriptor((runtime.cudaAddressModeClamp,) * 2))
    k = cp.ElementwiseKernel(
        "int32 x, int32 y, U t", "float32 z", "z = tex2D<float>(t, x + 0.5f, y + 0.5f)", "pitched"
    )
    xs, ys = np.meshgrid(np.arange(7, dtype=np.int32), np.arange(4, dtype=np.int32))
    got = cp.asnumpy(k(cp.asarray(xs), cp.asarray(ys), tex))
    np.testing.assert_array_equal(got, ys * 16 + np.minimum(xs, 4))


def test_surface_objects_are_written_by_raw_kernels():
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindSigned)
    arr = CUDAarray(ch, 8, 3, 0, runtime.cudaArraySurfaceLoadStore)
    surf = SurfaceObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr))
    k = cp.RawKernel(
        r"""extern "C" __global__ void fill(cudaSurfaceObject_t s) {
    surf2Dwrite(int(blockIdx.x * 10 + threadIdx.x), s, threadIdx.x * 4, blockIdx.x);
}""",
        "fill",
    )
    k((3,), (8,), (surf,))
    out = np.zeros((3, 8), dtype=np.int32)
    arr.copy_to(out)
    np.testing.assert_array_equal(out, np.arange(3)[:, None] * 10 + np.arange(8))
    # A texture object is a raw argument too.
    tex = TextureObject(
        ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr), TextureDescriptor()
    )
    r = cp.RawKernel(
        r"""extern "C" __global__ void read(cudaTextureObject_t t, int* o) {
    o[threadIdx.x] = tex2D<int>(t, threadIdx.x + 0.5f, 2.5f);
}""",
        "read",
    )
    o = cp.zeros(8, dtype=cp.int32)
    r((1,), (8,), (tex, o))
    np.testing.assert_array_equal(cp.asnumpy(o), 20 + np.arange(8))


def test_descriptors_report_their_fields():
    desc = TextureDescriptor(
        (runtime.cudaAddressModeBorder, runtime.cudaAddressModeMirror),
        runtime.cudaFilterModeLinear,
        runtime.cudaReadModeNormalizedFloat,
        borderColors=(0.5, 0.25),
        normalizedCoords=True,
    )
    d = desc.get_texture_desc()
    assert d["addressMode"] == [3, 2, 0]
    assert (d["filterMode"], d["readMode"], d["normalizedCoords"]) == (1, 1, 1)
    assert d["borderColor"] == [0.5, 0.25, 0.0, 0.0]
    # CUDA's int fields take ints as CuPy's do
    flags = TextureDescriptor(normalizedCoords=1, sRGB=0).get_texture_desc()
    assert (flags["normalizedCoords"], flags["sRGB"]) == (1, 0)
    ch = ChannelFormatDescriptor(8, 8, 8, 8, runtime.cudaChannelFormatKindUnsigned)
    arr = CUDAarray(ch, 4)
    res = ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr)
    assert res.get_resource_desc()["array"] is arr
    tex = TextureObject(res, desc)
    assert tex.ResDesc is res and tex.TexDesc is desc


def test_bad_inputs_raise_cupys_errors():
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    arr = CUDAarray(ch, 4, 3)
    with pytest.raises(ValueError, match=r"expected shape \(3, 4\)"):
        arr.copy_from(np.zeros((4, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="expected a float32 array"):
        arr.copy_from(np.zeros((3, 4), dtype=np.float64))
    with pytest.raises(ValueError, match="expected a float32 array"):
        arr.copy_to(cp.zeros((3, 4), dtype=cp.int32))
    with pytest.raises(ValueError, match=r"expected shape \(3, 4\)"):
        arr.copy_to(cp.zeros((3, 5), dtype=cp.float32))
    with pytest.raises(ValueError, match="width must be at least 1"):
        CUDAarray(ch, 0)
    with pytest.raises(ValueError, match="3-channel"):
        CUDAarray(ChannelFormatDescriptor(8, 8, 8, 0, runtime.cudaChannelFormatKindUnsigned), 4)
    with pytest.raises(ValueError, match="needs cuArr"):
        ResourceDescriptor(runtime.cudaResourceTypeArray)
    with pytest.raises(ValueError, match="needs arr"):
        ResourceDescriptor(runtime.cudaResourceTypeLinear, chDesc=ch, sizeInBytes=16)
    with pytest.raises(NotImplementedError, match="mipmapped"):
        ResourceDescriptor(runtime.cudaResourceTypeMipmappedArray)
    res = ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr)
    with pytest.raises(ValueError, match="made for surfaces"):
        SurfaceObject(res)
    ints = CUDAarray(ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindSigned), 4)
    with pytest.raises(ValueError, match="linear filtering needs float results"):
        TextureObject(
            ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=ints),
            TextureDescriptor(filterMode=runtime.cudaFilterModeLinear),
        )
    with pytest.raises(ValueError, match="texture alignment"):
        unaligned = _aligned(cp.arange(16, dtype=cp.float32))[1:]
        TextureObject(
            ResourceDescriptor(
                runtime.cudaResourceTypeLinear, arr=unaligned, chDesc=ch, sizeInBytes=8
            ),
            TextureDescriptor(),
        )
    with pytest.raises(ValueError, match="unknown value 7"):
        TextureDescriptor(filterMode=7)
    tex = TextureObject(res, TextureDescriptor())
    with pytest.raises(TypeError, match="TextureObject"):
        cp.add(cp.zeros(3, dtype=cp.float32), tex)
