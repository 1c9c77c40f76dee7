"""``cuprum.cuda.memory``: CuPy's memory module as far as programs use it — ``alloc(size)``
gives a ``MemoryPointer`` to ``size`` new bytes on the current device, kept alive while the
pointer (or an array made over it with ``cuprum.ndarray(shape, dtype, memptr)``) lives.
``ndarray.data`` and ``RawModule.get_global(name)`` give pointers too.

A ``MemoryPointer`` has ``ptr`` (the address), ``device_id``, ``device``, ``mem`` (the
``Memory`` block it points into: ``ptr``, ``size``, ``device_id``, ``device``), the copies
``copy_from`` / ``copy_from_device`` / ``copy_from_host`` / ``copy_to_host`` and
``memset`` (each with an ``_async`` form taking ``stream=``), and ``+`` / ``-`` of a byte
offset. Every copy is checked against the memory block the pointer lies in.
"""

from __future__ import annotations

from cuprum import _cuprum
from cuprum._cuprum import Memory, MemoryPointer, OutOfMemoryError, alloc

__all__ = [
    "Memory",
    "MemoryPointer",
    "MemoryPool",
    "OutOfMemoryError",
    "UnownedMemory",
    "alloc",
    "get_allocator",
    "get_default_memory_pool",
    "set_allocator",
    "using_allocator",
]


class _DeviceBytes:
    """``size`` bytes of GPU memory at ``ptr`` offered through the CUDA array interface
    (what ``UnownedMemory`` imports); holds ``owner``."""

    def __init__(self, ptr, size, owner):
        self.owner = owner
        self.__cuda_array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            "data": (ptr, False),
            "strides": None,
            "version": 3,
            "stream": None,
        }


def UnownedMemory(ptr, size, owner, device_id=None):
    """CuPy's ``UnownedMemory``: ``size`` bytes of device memory at ``ptr`` that another
    library allocated, as a ``Memory`` (``MemoryPointer(mem, offset)`` points into it,
    ``cuprum.ndarray(shape, dtype, memptr)`` views it). ``owner`` is kept alive as long as
    any of them is; that library must not free the memory before. The address must be
    memory of the current GPU (``device_id``, when given, must name it)."""
    ptr, size = int(ptr), int(size)
    if size < 0:
        raise ValueError(f"UnownedMemory: size must be a non-negative number of bytes, got {size}")
    from cuprum import asarray
    from cuprum.cuda import runtime

    if device_id is not None and int(device_id) != runtime.getDevice():
        raise ValueError(
            f"UnownedMemory: device_id {device_id} is not the current device "
            f"({runtime.getDevice()}): cuprum's Python package runs on one device"
        )

    return Memory._of_bytes(asarray(_DeviceBytes(ptr, size, owner)))


class MemoryPool:
    """CuPy's ``MemoryPool``: the memory cuprum's pool holds on the current device."""

    def used_bytes(self):
        """Bytes that live arrays (and pointers from ``alloc``) use."""
        return int(_cuprum._pool_info(0)[1])

    def free_bytes(self):
        """Bytes the pool holds that no array uses (kept for reuse)."""
        reserved, used, _ = _cuprum._pool_info(0)
        return int(max(reserved - used, 0))

    def total_bytes(self):
        """Bytes the pool holds: ``used_bytes() + free_bytes()``."""
        reserved, used, _ = _cuprum._pool_info(0)
        return int(max(reserved, used))

    def n_free_blocks(self):
        """How many freed blocks the pool keeps for reuse."""
        return int(_cuprum._pool_free_blocks(0))

    def set_limit(self, size=None, fraction=None):
        """Limits the bytes the pool holds, live and kept for reuse (CuPy's ``set_limit``):
        ``size`` in bytes, or ``fraction`` of the device's memory; neither (or 0) removes
        the limit. An allocation past it first returns the kept blocks, then raises
        ``OutOfMemoryError``."""
        if size is None:
            if fraction is None:
                size = 0
            else:
                if not 0 <= fraction <= 1:
                    raise ValueError(f"memory limit fraction out of range: {fraction}")
                size = int(fraction * _cuprum._mem_get_info()[1])
        elif fraction is not None:
            raise ValueError("size and fraction cannot be specified at one time")
        if size < 0:
            raise ValueError(f"memory limit size out of range: {size}")
        _cuprum._set_memory_limit(0, int(size) or None)

    def get_limit(self):
        """The limit ``set_limit`` set, in bytes (0: none)."""
        return int(_cuprum._memory_limit(0))

    def malloc(self, size):
        """A ``MemoryPointer`` to ``size`` new bytes of the current device's pool (CuPy's
        ``MemoryPool.malloc``; the same as ``alloc``)."""
        return alloc(size)

    def free_all_blocks(self, stream=None):
        """Returns every byte no array uses to the driver (after the device's queued work;
        ``stream`` is accepted for CuPy's signature: the pool is the device's)."""
        _cuprum._free_all_blocks(0)

    def __repr__(self):
        return f"<cuprum.cuda.MemoryPool used={self.used_bytes()} total={self.total_bytes()}>"


_DEFAULT_POOL = MemoryPool()


def get_default_memory_pool():
    """The pool of the current device (CuPy's ``get_default_memory_pool``)."""
    return _DEFAULT_POOL


def _is_pool_malloc(allocator):
    """Whether ``allocator`` is a ``MemoryPool``'s ``malloc`` (every ``MemoryPool`` is a
    view of the device's one pool)."""
    return getattr(allocator, "__func__", None) is MemoryPool.malloc and isinstance(
        getattr(allocator, "__self__", None), MemoryPool
    )


def get_allocator():
    """The function device memory comes from: the pool's ``malloc`` (CuPy's
    ``get_allocator``)."""
    return _DEFAULT_POOL.malloc


def set_allocator(allocator=None):
    """CuPy's ``set_allocator``. cuprum's arrays always come from its pool (one per device,
    with its own caching): a ``MemoryPool``'s ``malloc`` is that pool and is accepted;
    ``None`` (no pool) and other allocators (RMM's, managed memory) are not supported and
    raise ``NotImplementedError``."""
    if not _is_pool_malloc(allocator):
        what = "None (no pool)" if allocator is None else repr(allocator)
        raise NotImplementedError(
            f"set_allocator({what}): cuprum allocates device memory from its own pool only; "
            "a MemoryPool's malloc is accepted, other allocators are not supported"
        )


class using_allocator:
    """CuPy's ``using_allocator(allocator)`` context manager, with ``set_allocator``'s
    limits: a ``MemoryPool``'s ``malloc`` (the pool cuprum uses anyway)."""

    def __init__(self, allocator=None):
        set_allocator(allocator)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
