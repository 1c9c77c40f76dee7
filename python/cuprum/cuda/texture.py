"""``cuprum.cuda.texture``: CUDA arrays, texture objects and surface objects as CuPy's
``cupy.cuda.texture`` names them.

- ``ChannelFormatDescriptor(x, y, z, w, f)``: channel widths in bits and the kind
  (``cuprum.cuda.runtime.cudaChannelFormatKind{Signed,Unsigned,Float}``);
- ``CUDAarray(desc, width, height=0, depth=0, flags=0)``: 1-, 2- or 3-D texels, filled by
  ``copy_from(arr, stream=None)`` and read by ``copy_to(arr, stream=None)`` from and into
  device or NumPy arrays shaped ``(depth, height, width * channels)`` (fewer dimensions
  for fewer), of the channel dtype; ``flags=cudaArraySurfaceLoadStore`` lets surface
  objects use it;
- ``ResourceDescriptor(restype, cuArr=None, arr=None, chDesc=None, sizeInBytes=0, width=0,
  height=0, pitchInBytes=0)``: a CUDA array, linear memory (``tex1Dfetch``) or pitched 2-D
  memory;
- ``TextureDescriptor(addressModes=None, filterMode=0, readMode=0, sRGB=None,
  borderColors=None, normalizedCoords=None, maxAnisotropy=None)``;
- ``TextureObject(ResDesc, TexDesc)`` and ``SurfaceObject(ResDesc)``, whose ``ptr`` is the
  64-bit handle kernels get.

A ``TextureObject`` is an ``ElementwiseKernel`` argument for a parameter whose type
placeholder appears nowhere else (``'T x, U texObj'``: ``U`` becomes
``cudaTextureObject_t``), sampled in the operation with ``tex1D<T>(texObj, float(i))``,
``tex2D``, ``tex3D`` or ``tex1Dfetch``; both objects are ``RawKernel`` arguments.
"""

from __future__ import annotations

from cuprum._cuprum import (
    ChannelFormatDescriptor,
    CUDAarray,
    ResourceDescriptor,
    SurfaceObject,
    TextureDescriptor,
    TextureObject,
)

__all__ = [
    "CUDAarray",
    "ChannelFormatDescriptor",
    "ResourceDescriptor",
    "SurfaceObject",
    "TextureDescriptor",
    "TextureObject",
]
