"""``cuprum.cuda.runtime``: the names of CuPy's ``cupy.cuda.runtime`` that programs use —
device queries (``getDeviceCount``, ``getDevice``, ``deviceSynchronize``,
``getDeviceProperties``, ``memGetInfo``, ``driverGetVersion``, ``runtimeGetVersion``),
``is_hip``
(``False``), and the constants of textures and surfaces (``cudaChannelFormatKind*``, ``cudaResourceType*``,
``cudaAddressMode*``, ``cudaFilterMode*``, ``cudaReadMode*``, ``cudaArray*`` flags,
``cudaBoundaryMode*``), with CUDA's values.
"""

from __future__ import annotations

from cuprum import _cuprum

is_hip = False

# cudaChannelFormatKind
cudaChannelFormatKindSigned = 0
cudaChannelFormatKindUnsigned = 1
cudaChannelFormatKindFloat = 2
cudaChannelFormatKindNone = 3

# cudaResourceType
cudaResourceTypeArray = 0
cudaResourceTypeMipmappedArray = 1
cudaResourceTypeLinear = 2
cudaResourceTypePitch2D = 3

# cudaTextureAddressMode
cudaAddressModeWrap = 0
cudaAddressModeClamp = 1
cudaAddressModeMirror = 2
cudaAddressModeBorder = 3

# cudaTextureFilterMode
cudaFilterModePoint = 0
cudaFilterModeLinear = 1

# cudaTextureReadMode
cudaReadModeElementType = 0
cudaReadModeNormalizedFloat = 1

# cudaMalloc3DArray flags
cudaArrayDefault = 0
cudaArrayLayered = 1
cudaArraySurfaceLoadStore = 2
cudaArrayCubemap = 4
cudaArrayTextureGather = 8

# cudaSurfaceBoundaryMode
cudaBoundaryModeZero = 0
cudaBoundaryModeClamp = 1
cudaBoundaryModeTrap = 2


def getDeviceCount():
    """The number of devices."""
    return _cuprum.device_count()


def getDevice():
    """The current device's id (cuprum's Python package runs on device 0)."""
    return 0


def deviceSynchronize():
    """Waits for all work queued on the current device."""
    _cuprum.synchronize()


def getDeviceProperties(device):
    """The device's properties as CUDA's ``cudaDeviceProp`` names them (those cuprum
    reads): ``name`` (bytes), ``totalGlobalMem``, ``sharedMemPerBlock``,
    ``sharedMemPerBlockOptin``, ``warpSize``, ``maxThreadsPerBlock``, ``maxThreadsDim``,
    ``maxGridSize``, ``major``, ``minor``, ``multiProcessorCount``,
    ``maxThreadsPerMultiProcessor``, ``l2CacheSize``, ``uuid``."""
    device = int(device)
    if device < 0 or device >= getDeviceCount():
        raise ValueError(f"Invalid device id {device}")
    return _cuprum._device_properties(device)


def driverGetVersion():
    """The CUDA driver's version, as CUDA numbers it (13000 for 13.0)."""
    return _cuprum._driver_version()


def runtimeGetVersion():
    """The version of the CUDA toolkit cuprum compiles kernels with (its NVRTC; cuprum
    needs no CUDA runtime library), as CUDA numbers it (13000 for 13.0)."""
    return _cuprum._toolkit_version()


# CuPy's name of the same question.
_getLocalRuntimeVersion = runtimeGetVersion


def memGetInfo():
    """``(free, total)`` bytes of the current device's memory."""
    return _cuprum._mem_get_info()
