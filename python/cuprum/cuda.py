"""``cuprum.cuda``: devices and streams as CuPy names them (``Device``, ``Stream.null``).

This first version covers the device (``Device(id)``, its ``synchronize``,
``compute_capability`` and ``id``) and the null stream's ``synchronize``; cuprum's own
streams, events and graphs come to Python next.
"""

from __future__ import annotations

from cuprum import _cuprum
from cuprum._cuprum import CompileException, Event, get_elapsed_time  # noqa: F401


class Device:
    """A CUDA device (the current one by default); the host device answers as device 0."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if self.id < 0 or self.id >= _cuprum.device_count():
            raise ValueError(f"Invalid device id {self.id}")

    def synchronize(self):
        """Waits for all work queued on the device."""
        _cuprum.synchronize()

    @property
    def compute_capability(self):
        """``'90'`` for compute capability 9.0 (a string, as CuPy's)."""
        return _cuprum.config().get("Device 0 Compute Capability", "host")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cuprum.cuda.Device", self.id))


class Stream:
    """A CUDA stream. ``Stream.null`` is the default stream (``ptr`` 0)."""

    null: Stream

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        if not null:
            raise NotImplementedError(
                "cuprum.cuda.Stream() is not available yet from Python: use Stream.null"
            )
        self.ptr = 0

    def synchronize(self):
        """Waits for the work queued on the stream."""
        _cuprum.synchronize()

    def __repr__(self):
        return f"<Stream {self.ptr}>"


Stream.null = Stream(null=True)


def get_current_stream(device_id=-1):
    """The current stream (the null stream)."""
    return Stream.null


def runtime_get_device_count():
    """The number of devices."""
    return _cuprum.device_count()


def is_available():
    """Whether a device is there to run on (a GPU, or the host device when chosen)."""
    try:
        return _cuprum.device_count() > 0
    except Exception:  # noqa: BLE001  (no device: the answer is no)
        return False
