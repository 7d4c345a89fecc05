"""`ember.cuda.streams`: CUDA streams and events.

ember's ops finish before they return (NOTE in ember/_streams.py), so a CUDA stream is the
generic `ember.Stream` bound to a CUDA device; constructing one needs CUDA, as in PyTorch
("torch.cuda.Stream requires CUDA support").
"""
from __future__ import annotations

from ember import _streams
from ember._backends.cuda import _cupy, _index, _require, synchronize


def _cuda_device(device):
    if _cupy() is None:
        raise RuntimeError("torch.cuda.Stream requires CUDA support")
    from ember._core.device import as_device
    return as_device(f"cuda:{_index(device)}")


class Stream(_streams.Stream):
    """A CUDA stream (Stream(device=None, priority=0))."""

    def __init__(self, device=None, priority: int = 0, **kwargs) -> None:
        _streams.Stream.__init__(self, _cuda_device(device), priority=priority)

    def synchronize(self) -> None:
        synchronize(self.device)

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device={self.device} cuda_stream=0x0>"

    @property
    def cuda_stream(self) -> int:
        return 0


class ExternalStream(Stream):
    """A stream allocated outside (by its pointer); ember runs its work on its own stream."""

    def __init__(self, stream_ptr: int, device=None, **kwargs) -> None:
        Stream.__init__(self, device)
        self._pointer = int(stream_ptr)

    @property
    def cuda_stream(self) -> int:
        return self._pointer


class Event(_streams.Event):
    """A CUDA event (Event(enable_timing=False, blocking=False, interprocess=False))."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        if _cupy() is None:
            raise RuntimeError("torch.cuda.Event requires CUDA support")
        _streams.Event.__init__(self, f"cuda:{_index(None)}", enable_timing=enable_timing,
                                blocking=blocking, interprocess=interprocess)


def current_stream(device=None) -> Stream:
    _require()
    return Stream(device)


def default_stream(device=None) -> Stream:
    _require()
    return Stream(device)


def get_stream_from_external(data_ptr: int, device=None) -> ExternalStream:
    _require()
    return ExternalStream(data_ptr, device)


def set_stream(stream) -> None:
    """Make `stream` current (None: nothing to do, as in PyTorch)."""
    if stream is None:
        return
    _require()


class StreamContext:
    """`with ember.cuda.stream(s):` runs the block with `s` current; None, or a stream of
    another device, or no CUDA at all, makes it a no-op as in PyTorch."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)
