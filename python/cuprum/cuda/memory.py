"""``cuprum.cuda.memory``: CuPy's memory module as far as programs use it — ``alloc(size)``
gives a ``MemoryPointer`` to ``size`` new bytes on the current device, kept alive while the
pointer (or an array made over it with ``cuprum.ndarray(shape, dtype, memptr)``) lives.
``ndarray.data`` and ``RawModule.get_global(name)`` give pointers too.

A ``MemoryPointer`` has ``ptr`` (the address), ``device_id``, ``device``, the copies
``copy_from`` / ``copy_from_device`` / ``copy_from_host`` / ``copy_to_host`` and
``memset`` (each with an ``_async`` form taking ``stream=``), and ``+`` / ``-`` of a byte
offset. Every copy is checked against the memory block the pointer lies in.
"""

from __future__ import annotations

from cuprum._cuprum import MemoryPointer, alloc

__all__ = ["MemoryPointer", "alloc"]
