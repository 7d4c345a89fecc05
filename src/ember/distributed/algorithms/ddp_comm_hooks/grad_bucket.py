"""`GradBucket`: what a DDP communication hook receives, one bucket of flattened gradients."""
from __future__ import annotations

__all__ = ["GradBucket"]


class GradBucket:
    def __init__(self, index: int, buffer, parameters, offsets, is_last: bool):
        self._index = index
        self._buffer = buffer
        self._parameters = parameters
        self._offsets = offsets
        self._is_last = is_last

    def index(self) -> int:
        return self._index

    def buffer(self):
        """The flat gradients of the bucket's parameters (one 1-d tensor)."""
        return self._buffer

    def set_buffer(self, buffer) -> None:
        self._buffer = buffer

    def gradients(self) -> list:
        return [self._buffer[o:o + p.numel()].view(p.shape)
                for p, o in zip(self._parameters, self._offsets)]

    def parameters(self) -> list:
        return list(self._parameters)

    def is_last(self) -> bool:
        return self._is_last
