"""Padding layers over `F.pad`: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and
CircularPad in 1, 2 and 3 dims."""
from __future__ import annotations

from ember.nn._functional.padding import pad
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _ntuple

__all__: list[str] = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]


class _PadNd(Module):
    """`padding` as F.pad's (left, right, top, bottom, ...) tuple: an int pads every side."""

    __constants__ = ["padding"]
    _dims = 1
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)

    def forward(self, input):
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """ConstantPad1d(padding, value): pads the last dim with `value`."""


class ConstantPad2d(_ConstantPadNd):
    """ConstantPad2d(padding, value): pads the last 2 dims with `value`."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """ConstantPad3d(padding, value): pads the last 3 dims with `value`."""

    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """ZeroPad1d(padding): pads the last dim with zeros."""


class ZeroPad2d(_ZeroPadNd):
    """ZeroPad2d(padding): pads the last 2 dims with zeros."""

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    """ZeroPad3d(padding): pads the last 3 dims with zeros."""

    _dims = 3


class _ReflectionPadNd(_PadNd):
    # The reflection layers' common base, as in PyTorch (libraries key tables and isinstance
    # checks on it).
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReflectionPad1d(_ReflectionPadNd):
    """ReflectionPad1d(padding): pads the last dim with its reflection (edge not repeated)."""

    _mode = "reflect"


class ReflectionPad2d(_ReflectionPadNd):
    """ReflectionPad2d(padding): pads the last 2 dims with their reflection."""

    _dims = 2
    _mode = "reflect"


class ReflectionPad3d(_ReflectionPadNd):
    """ReflectionPad3d(padding): pads the last 3 dims with their reflection."""

    _dims = 3
    _mode = "reflect"


class ReplicationPad1d(_ReplicationPadNd):
    """ReplicationPad1d(padding): pads the last dim by repeating its edge values."""

    _mode = "replicate"


class ReplicationPad2d(_ReplicationPadNd):
    """ReplicationPad2d(padding): pads the last 2 dims by repeating their edge values."""

    _dims = 2
    _mode = "replicate"


class ReplicationPad3d(_ReplicationPadNd):
    """ReplicationPad3d(padding): pads the last 3 dims by repeating their edge values."""

    _dims = 3
    _mode = "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        self._check_input_dim(input)
        return pad(input, self.padding, "circular")

    def _check_input_dim(self, input) -> None:
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got "
                             f"{input.dim()}D input)")


class CircularPad1d(_CircularPadNd):
    """CircularPad1d(padding): pads the last dim with the values from its other end."""


class CircularPad2d(_CircularPadNd):
    """CircularPad2d(padding): pads the last 2 dims with the values from their other ends."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """CircularPad3d(padding): pads the last 3 dims with the values from their other ends."""

    _dims = 3
