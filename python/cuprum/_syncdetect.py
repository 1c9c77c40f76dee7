"""CuPy's synchronization detection (``cupyx.allow_synchronize``): code that must not make
the host wait for the device (a download, ``item()``, ``bool(x)``, a ``synchronize``) runs
inside ``allow_synchronize(False)`` and gets ``DeviceSynchronized`` where it would. The
setting is per thread and nests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from cuprum import _cuprum


class DeviceSynchronized(RuntimeError):
    """The host waited for the device inside ``allow_synchronize(False)`` (CuPy's
    ``cupyx.DeviceSynchronized``)."""

    def __init__(self, message: str | None = None) -> None:
        if message is None:
            message = "Device synchronization was detected while disallowed."
        super().__init__(message)


@contextlib.contextmanager
def allow_synchronize(allow: bool) -> Iterator[None]:
    """Within the block, this thread may (``True``) or may not (``False``) wait for the
    device; the previous setting comes back after it.

    >>> import cuprum as cp
    >>> a = cp.arange(3)
    >>> with cp.allow_synchronize(False):
    ...     b = a * 2          # queued, no wait
    >>> with cp.allow_synchronize(False):
    ...     b.get()
    Traceback (most recent call last):
    cuprum._syncdetect.DeviceSynchronized: Device synchronization was detected while disallowed.
    """
    previous = _cuprum._set_allow_synchronize(bool(allow))
    try:
        yield
    finally:
        _cuprum._set_allow_synchronize(previous)
