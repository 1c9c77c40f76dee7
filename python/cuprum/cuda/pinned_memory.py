"""``cuprum.cuda.pinned_memory``: CuPy's page-locked host memory.

``alloc_pinned_memory(size)`` gives a ``PinnedMemoryPointer`` to ``size`` bytes of
page-locked memory (ordinary memory on the host device), from the allocator
``set_pinned_memory_allocator`` chose: by default the pool ``get_default_pinned_memory_pool()``,
which keeps freed blocks for reuse. A pointer exposes its bytes to the buffer protocol, so
``numpy.frombuffer(p, dtype, count)`` makes a NumPy array in page-locked memory; copies
between such arrays and the device (``cuprum.asarray``, ``ndarray.get``) run at the link's
speed. The memory stays allocated while the pointer, or anything made over its buffer,
lives.
"""

from __future__ import annotations

import ctypes
import functools
import threading

from cuprum._cuprum import PinnedMemory

__all__ = [
    "PinnedMemory",
    "PinnedMemoryPointer",
    "PinnedMemoryPool",
    "alloc_pinned_memory",
    "get_default_pinned_memory_pool",
    "set_pinned_memory_allocator",
]


class PinnedMemoryPointer:
    """A pointer into page-locked memory (CuPy's): ``mem``, the memory it keeps alive;
    ``ptr``, the address; ``size``, the bytes from ``ptr`` to the end of ``mem``. It is a
    buffer of those bytes (``numpy.frombuffer(p, dtype, count)``, ``memoryview(p)``), and
    ``p + n`` points ``n`` bytes further."""

    def __new__(cls, mem, offset=0):
        offset = int(offset)
        if not 0 <= offset <= mem.size:
            raise ValueError(f"offset {offset} lies outside the {mem.size} bytes of the memory")
        size = mem.size - offset
        p = _sized(size).from_address(mem.ptr + offset)
        p.mem = mem
        p.ptr = mem.ptr + offset
        p.size = size
        return p

    def __init__(self, *args, **kwargs):
        # the buffer was made over the memory by `__new__` (not filled from the arguments)
        pass

    def __add__(self, offset):
        return PinnedMemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __sub__(self, offset):
        return self + -int(offset)

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return f"<cuprum.cuda.PinnedMemoryPointer {self.size} bytes at {self.ptr:#x}>"


@functools.lru_cache(maxsize=512)
def _sized(size):
    """The pointer class of ``size`` bytes: a ctypes array of ``size`` chars (which gives
    the buffer protocol on every Python version) that is a ``PinnedMemoryPointer``."""
    return type("PinnedMemoryPointer", (PinnedMemoryPointer, ctypes.c_char * size), {})


class _PooledPinnedMemory:
    """A block of a ``PinnedMemoryPool``: back to the pool when nothing uses it."""

    def __init__(self, block, pool):
        self._block = block
        self._pool = pool
        self.ptr = block.ptr
        self.size = block.size
        self.device_id = block.device_id

    def __del__(self):
        pool = self._pool
        if pool is not None:
            pool._free(self._block)


class PinnedMemoryPool:
    """CuPy's ``PinnedMemoryPool``: page-locked blocks (sizes rounded up to 512 bytes),
    kept for reuse when their pointers go; ``free_all_blocks`` releases the kept ones."""

    def __init__(self, allocator=None):
        self._allocator = PinnedMemory if allocator is None else allocator
        self._free_blocks = {}
        self._lock = threading.Lock()

    def malloc(self, size):
        """A ``PinnedMemoryPointer`` to at least ``size`` bytes."""
        size = int(size)
        if size < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        rounded = (size + 511) // 512 * 512
        block = None
        with self._lock:
            kept = self._free_blocks.get(rounded)
            if kept:
                block = kept.pop()
        if block is None:
            block = self._allocator(rounded)
        return PinnedMemoryPointer(_PooledPinnedMemory(block, self), 0)

    def _free(self, block):
        with self._lock:
            self._free_blocks.setdefault(block.size, []).append(block)

    def free_all_blocks(self):
        """Releases every kept block to the system."""
        with self._lock:
            self._free_blocks.clear()

    def n_free_blocks(self):
        """The number of blocks kept for reuse."""
        with self._lock:
            return sum(len(v) for v in self._free_blocks.values())

    def __repr__(self):
        return f"<cuprum.cuda.PinnedMemoryPool {self.n_free_blocks()} free blocks>"


_DEFAULT_POOL = PinnedMemoryPool()


def _malloc(size):
    return PinnedMemoryPointer(PinnedMemory(int(size)), 0)


_allocator = _DEFAULT_POOL.malloc


def get_default_pinned_memory_pool():
    """The pool ``alloc_pinned_memory`` uses unless another allocator is set."""
    return _DEFAULT_POOL


def set_pinned_memory_allocator(allocator=None):
    """Sets the function ``alloc_pinned_memory`` calls with a size (it returns a
    ``PinnedMemoryPointer``); ``None`` allocates each block directly, with no pool."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"allocator must be callable or None, got {type(allocator).__name__}")
    _allocator = _malloc if allocator is None else allocator


def alloc_pinned_memory(size):
    """A ``PinnedMemoryPointer`` to ``size`` bytes of page-locked memory, from the current
    allocator."""
    return _allocator(size)
