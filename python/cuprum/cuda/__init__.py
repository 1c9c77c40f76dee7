"""``cuprum.cuda``: devices, streams, events and CUDA graphs as CuPy names them
(``Device``, ``Stream``, ``Stream.null``, ``Event``, ``get_current_stream``,
``get_elapsed_time``, ``stream.begin_capture()`` / ``end_capture()`` → ``Graph``,
``ExternalStream`` for another library's stream), ``profile()`` (deprecated as in CuPy:
``cuprum.profiler.profile``), and
device memory (``alloc``, ``MemoryPointer``, ``MemoryPool``; also as
``cuprum.cuda.memory``), page-locked host memory (``alloc_pinned_memory``,
``PinnedMemoryPointer``, ``PinnedMemoryPool``, ``set_pinned_memory_allocator``; also as
``cuprum.cuda.pinned_memory``),
``cuprum.cuda.compiler`` (``CompileException``, ``compile_using_nvrtc``),
``cuprum.cuda.texture`` (CUDA arrays, texture and surface objects) and
``cuprum.cuda.runtime`` (device queries, versions and CUDA's texture constants;
``get_local_runtime_version``), ``get_device_id``, ``is_available``, and where the CUDA
toolkit is (``get_cuda_path``, ``get_nvcc_path``).

``with stream:`` (or ``stream.use()``) makes a stream the current one of the calling
thread: every call on cuprum's arrays made meanwhile queues its work there. ``Stream.null``
is the device's default stream (cuprum's, which the library's work runs on when no stream
is chosen; its ``ptr`` is that stream's real handle).
"""

from __future__ import annotations

import threading
import warnings

from cuprum import _cuprum
from cuprum._cuprum import CompileException, Event, get_elapsed_time  # noqa: F401
from cuprum.cuda import compiler, memory, pinned_memory, runtime, texture  # noqa: F401
from cuprum.cuda._paths import get_cuda_path, get_nvcc_path  # noqa: F401
from cuprum.cuda.memory import (  # noqa: F401
    Memory,
    MemoryPointer,
    MemoryPool,
    UnownedMemory,
    alloc,
    get_allocator,
    set_allocator,
    using_allocator,
)
from cuprum.cuda.pinned_memory import (  # noqa: F401
    PinnedMemory,
    PinnedMemoryPointer,
    PinnedMemoryPool,
    alloc_pinned_memory,
    set_pinned_memory_allocator,
)


class Device:
    """A CUDA device (the current one by default); the host device answers as device 0."""

    def __init__(self, device=None):
        # As CuPy's, any id makes a Device; one the machine lacks fails where it is used.
        self.id = 0 if device is None else int(device)
        if self.id < 0:
            raise ValueError(f"Invalid device id {self.id}")

    def _check(self):
        if self.id >= _cuprum.device_count():
            raise ValueError(
                f"Invalid device id {self.id}: there are {_cuprum.device_count()} device(s)"
            )

    def synchronize(self):
        """Waits for all work queued on the device."""
        self._check()
        _cuprum.synchronize()

    @property
    def mem_info(self):
        """``(free, total)`` bytes of the device's memory (CuPy's ``Device.mem_info``)."""
        self._check()
        return runtime.memGetInfo()

    @property
    def compute_capability(self):
        """``'90'`` for compute capability 9.0 (a string, as CuPy's)."""
        self._check()
        return _cuprum.config().get("Device 0 Compute Capability", "host")

    def use(self):
        """Makes this device the current one (CuPy's ``Device(i).use()``). cuprum's
        Python package runs on one device, device 0: using it changes nothing, another
        id raises ``NotImplementedError`` rather than leave work on device 0."""
        if self.id != 0:
            raise NotImplementedError(
                f"cuprum.cuda.Device({self.id}).use(): cuprum's Python package runs on device 0 only"
            )

    def __enter__(self):
        # another device refuses here, rather than leave the block's work on device 0
        self.use()
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __lt__(self, other):
        return self.id < other.id if isinstance(other, Device) else NotImplemented

    def __le__(self, other):
        return self.id <= other.id if isinstance(other, Device) else NotImplemented

    def __gt__(self, other):
        return self.id > other.id if isinstance(other, Device) else NotImplemented

    def __ge__(self, other):
        return self.id >= other.id if isinstance(other, Device) else NotImplemented

    def __hash__(self):
        return hash(("cuprum.cuda.Device", self.id))


class _NullDescriptor:
    """``Stream.null`` (and ``Stream.ptds``, the per-thread default stream, which is the
    device's default stream in cuprum too), made on first use (importing cuprum opens no
    device)."""

    def __init__(self, key="null"):
        self._key = key

    def __get__(self, obj, owner):
        slot = "_" + self._key
        stream = owner.__dict__.get(slot)
        if stream is None:
            stream = owner(**{self._key: True})
            setattr(owner, slot, stream)
        return stream


_local = threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


class Stream:
    """A CUDA stream of the current device (CuPy's ``cupy.cuda.Stream``).

    ``Stream()`` makes a new stream; ``Stream(null=True)`` (also ``Stream.null``) is the
    device's default stream. Use it as a context manager (``with s:``) or with ``s.use()``
    to make it current; pass it as ``stream=`` to a kernel call.
    """

    null = _NullDescriptor()
    _null = None
    ptds = _NullDescriptor("ptds")
    _ptds = None

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self._s = _cuprum._Stream(bool(null or ptds))
        self._is_null = bool(null or ptds)
        self.device_id = self._s.device_id

    @property
    def ptr(self):
        """The stream's handle (a ``CUstream`` on a GPU)."""
        return self._s.ptr

    @property
    def done(self):
        """Whether all work queued on the stream has run."""
        return self._s.done

    def synchronize(self):
        """Waits for the work queued on the stream."""
        self._s.synchronize()

    def use(self):
        """Makes this the current stream of the calling thread (until another is used)."""
        _cuprum._Stream.swap_current(None if self._is_null else self._s)
        _local.current = self
        return self

    def __enter__(self):
        _stack().append(get_current_stream())
        return self.use()

    def __exit__(self, *exc):
        stack = _stack()
        (stack.pop() if stack else Stream.null).use()
        return False

    def record(self, event=None):
        """Records ``event`` (a new one by default) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def wait_event(self, event):
        """Makes later work on this stream wait for ``event``."""
        self._s.wait_event(event)

    def begin_capture(self, mode=None):
        """Starts capturing the work queued on this stream into a CUDA graph (queue it
        with ``with stream:``); ``end_capture()`` returns the graph. The default stream
        cannot be captured."""
        self._s.begin_capture()

    def end_capture(self):
        """Ends the capture and returns a ``Graph`` (``graph.launch(stream=None)``)."""
        return self._s.end_capture()

    def is_capturing(self):
        """Whether a capture begun on this stream is open."""
        return self._s.is_capturing

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(("cuprum.cuda.Stream", self.ptr))

    def __repr__(self):
        return f"<Stream {self.ptr} (device {self.device_id})>"


class ExternalStream(Stream):
    """A stream another library made (CuPy's ``cupy.cuda.ExternalStream``): ``ptr`` its
    handle (a ``CUstream`` of the device's primary context, e.g. ``torch.cuda.current_stream()
    .cuda_stream``; 0 is the legacy default stream), ``device_id`` its device (-1: the
    current one). It is used like a ``Stream`` (``with``, ``use()``, ``stream=``); cuprum
    never destroys it, and the library that made it must keep it alive while work cuprum
    queued on it may still run."""

    def __init__(self, ptr, device_id=-1):
        self._s = _cuprum._Stream._external(int(ptr), int(device_id))
        self._is_null = False
        self.device_id = self._s.device_id

    def __repr__(self):
        return f"<ExternalStream {self.ptr} (device {self.device_id})>"


Graph = _cuprum.Graph


def profile():
    """Profile collection for a ``with`` block (deprecated, as in CuPy: use
    ``cuprum.profiler.profile()``)."""
    warnings.warn(
        "cuprum.cuda.profile is deprecated, as CuPy's cupy.cuda.profile: use "
        "cuprum.profiler.profile instead",
        DeprecationWarning,
        stacklevel=2,
    )
    from cuprum.profiler import profile as _profile

    return _profile()


def get_current_stream(device_id=-1):
    """The calling thread's current stream (``Stream.null`` unless one was made current)."""
    current = getattr(_local, "current", None)
    return Stream.null if current is None else current


def get_device_id():
    """The current device's id (0: cuprum's Python package runs on device 0)."""
    return runtime.getDevice()


def runtime_get_device_count():
    """The number of devices."""
    return _cuprum.device_count()


def get_local_runtime_version():
    """The version of the CUDA toolkit cuprum compiles with, as CUDA numbers it (13000 for
    13.0; ``runtime.runtimeGetVersion``)."""
    return runtime.runtimeGetVersion()


def is_available():
    """Whether a device is there to run on (a GPU, or the host device when chosen)."""
    try:
        return _cuprum.device_count() > 0
    except Exception:  # noqa: BLE001  (no device: the answer is no)
        return False
