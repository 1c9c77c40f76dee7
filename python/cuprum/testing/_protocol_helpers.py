"""Objects that are not cuprum arrays but offer one through a protocol: the CUDA Array
Interface and ``__cupy_get_ndarray__``; for tests of functions that accept such
objects."""

from __future__ import annotations

from cuprum.testing._loops import _contiguity

max_cuda_array_interface_version = 3


class DummyObjectWithCudaArrayInterface:
    """Exposes a cuprum array ``a`` (or a ``(shape, strides, typestr, descr, data)``
    tuple) only as ``__cuda_array_interface__`` of version ``ver``. ``include_strides``:
    ``True`` always gives strides, ``None`` gives ``strides: None`` for C-contiguous
    data, ``False`` leaves them out then; ``mask`` and ``stream`` are passed through
    (the null stream as 1, the legacy default stream)."""

    def __init__(self, a, ver=3, include_strides=False, mask=None, stream=None):
        if ver not in range(max_cuda_array_interface_version + 1):
            raise ValueError(f"unknown CUDA Array Interface version {ver}")
        import cuprum

        self.a = None
        if isinstance(a, cuprum.ndarray):
            self.a = a
        else:
            self.shape, self.strides, self.typestr, self.descr, self.data = a
        self.ver = ver
        self.include_strides = include_strides
        self.mask = mask
        self.stream = stream

    @property
    def __cuda_array_interface__(self):
        if self.a is not None:
            a = self.a
            desc = {
                "shape": a.shape,
                "typestr": a.dtype.str,
                "descr": a.dtype.descr,
                "data": (a.data.ptr, False),
                "version": self.ver,
            }
            c_contiguous = _contiguity(a)[0]
            strides = a.strides
        else:
            desc = {
                "shape": self.shape,
                "typestr": self.typestr,
                "descr": self.descr,
                "data": (self.data, False),
                "version": self.ver,
            }
            c_contiguous = True
            strides = self.strides
        if not c_contiguous or self.include_strides is True:
            desc["strides"] = strides
        elif self.include_strides is None:
            desc["strides"] = None
        if self.mask is not None:
            desc["mask"] = self.mask
        if self.stream is not None:
            from cuprum import cuda

            desc["stream"] = 1 if self.stream is cuda.Stream.null else self.stream.ptr
        return desc


class DummyObjectWithCuPyGetNDArray:
    """Hands out the array ``a`` only through ``__cupy_get_ndarray__()``."""

    def __init__(self, a):
        self.a = a

    def __cupy_get_ndarray__(self):
        return self.a
