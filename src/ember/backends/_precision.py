"""The `fp32_precision` holders of PyTorch's back-end flags (`cudnn.conv.fp32_precision`,
`mkldnn.matmul.fp32_precision`): a settable string, 'none' (follow the parent), 'ieee' or
'tf32'. ember computes float32 in full precision whatever they say; they are stored for the
scripts that set and read them."""
from __future__ import annotations

_ALLOWED = ("none", "ieee", "tf32", "bf16")


class FP32Precision:
    def __init__(self, backend: str, op: str, default: str = "tf32") -> None:
        self._where = f"{backend}.{op}"
        self._value = default

    @property
    def fp32_precision(self) -> str:
        return self._value

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        if value not in _ALLOWED:
            raise RuntimeError(f"Unknown precision: {value}")
        self._value = value
