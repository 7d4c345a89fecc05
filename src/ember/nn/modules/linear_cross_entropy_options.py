"""LinearCrossEntropyOptions: the settings of PyTorch's chunked `linear_cross_entropy` (batch
rows per chunk, accumulation precision). ember computes the logits whole, so the options are
validated and kept, and the values are the unchunked ones (the chunked path's are equal up to
rounding)."""
from __future__ import annotations

import dataclasses

from ember._core import dtype as dt

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How the chunked linear_cross_entropy would split and accumulate: `batch_chunk_size`
    rows per chunk or a `chunking_method` ("auto", "aspect_ratio", "aspect_ratio:N", None),
    an `acc_policy` and `acc_dtype` for the accumulators, and whether backward may run twice
    (`allow_retain_graph`)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: dt.dtype | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method not in (None, "auto"):
            method, colon, factor = self.chunking_method.partition(":")
            factor = factor if colon else "1"
            if method != "aspect_ratio" or not factor.isdigit() or int(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and not (isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        accumulators = (dt.float16, dt.bfloat16, dt.float32, dt.float64)
        if self.acc_dtype is not None and self.acc_dtype not in accumulators:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                "pick automatically.")
