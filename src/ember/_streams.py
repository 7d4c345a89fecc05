"""`ember.Stream` and `ember.Event`, the device-generic stream and event classes.

ember runs every op to completion before returning, so a stream is an ordering that always
holds already: queries answer True and synchronising returns at once. On the CPU, events are
refused as PyTorch refuses them ("cpu backend doesn't support events.").
"""
from __future__ import annotations

from ember._core.checks import _check


def _device_of(device):
    import ember
    if device is None:
        found = ember.accelerator.current_accelerator()
        return found if found is not None else ember.device("cpu")
    device = ember.device(device)
    _check(device.type == "cpu" or ember.accelerator.is_available() and
           ember.accelerator.current_accelerator().type == device.type, lambda: (
        f"PyTorch is not linked with support for {device.type} devices"))
    return device


def _index(device) -> int:
    if device.type == "cpu":
        return -1
    return device.index if device.index is not None else 0


class Stream:
    """A queue of work on one device (Stream(device=None, *, priority=0))."""

    def __init__(self, device=None, *, priority: int = 0) -> None:
        self.device = _device_of(device)
        self.priority = int(priority)

    @property
    def device_type(self) -> int:
        return 0 if self.device.type == "cpu" else 1

    @property
    def device_index(self) -> int:
        return _index(self.device)

    @property
    def stream_id(self) -> int:
        return 0

    def query(self) -> bool:
        """Whether all work queued on the stream is done (always, in ember)."""
        return True

    def synchronize(self) -> None:
        """Wait for the stream's work (none is ever pending)."""

    def wait_event(self, event) -> None:
        """Make future work on this stream wait for `event` (nothing to wait for)."""

    def wait_stream(self, stream) -> None:
        """Make future work on this stream wait for the work queued on `stream`."""

    def record_event(self, event=None):
        """Record `event` (a new one when None) on this stream and return it."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def is_capturing(self) -> bool:
        return False

    @property
    def native_handle(self) -> int:
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.device == self.device and \
            other.stream_id == self.stream_id

    def __hash__(self) -> int:
        return hash((self.device.type, self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return (f"torch.Stream device_type={self.device.type}, device_index="
                f"{self.device_index}, stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work (Event(device=None, *, enable_timing=False, blocking=False,
    interprocess=False))."""

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self.device = _device_of(device)
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self._time = None

    @property
    def event_id(self) -> int:
        return 0

    def _check_supported(self) -> None:
        _check(self.device.type != "cpu", lambda: (
            f"{self.device.type} backend doesn't support events."))

    def record(self, stream=None) -> None:
        """Mark the point the stream's work has reached (now, in ember)."""
        import time
        self._check_supported()
        self._time = time.perf_counter()

    def query(self) -> bool:
        """Whether the work before the event is done (always, in ember)."""
        return True

    def synchronize(self) -> None:
        """Wait for the work before the event (none is ever pending)."""
        self._check_supported()

    def wait(self, stream=None) -> None:
        """Make future work on `stream` wait for the event."""
        self._check_supported()

    def elapsed_time(self, end_event) -> float:
        """Milliseconds between this event's record and `end_event`'s."""
        self._check_supported()
        _check(self.enable_timing and end_event.enable_timing,
               "Both events must be created with argument 'enable_timing=True'.")
        _check(self._time is not None and end_event._time is not None,
               "Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def ipc_handle(self):
        self._check_supported()
        raise RuntimeError(f"{self.device.type} backend doesn't support IPC events.")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise RuntimeError(f"{device} backend doesn't support IPC events.")

    def __repr__(self) -> str:
        return (f"torch.Event device_type={self.device.type}, device_index="
                f"{_index(self.device)}, event_flag=0, event_id={self.event_id}")
