"""ember.masked: reductions and normalizations that skip the elements a boolean mask leaves out
(`_reductions.py`), as `torch.masked` computes them on strided tensors; and `MaskedTensor`
(`_tensor.py`, loaded on first use: defining a subclass that overrides dispatch turns on the
dispatcher's subclass checks for the whole process)."""
from ember.masked._reductions import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logaddexp,
    logsumexp,
    mean,
    median,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)

_TENSOR_NAMES = ("MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor")

__all__ = [
    "MaskedTensor",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "as_masked_tensor",
    "cumprod",
    "cumsum",
    "is_masked_tensor",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "masked_tensor",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]


def __getattr__(name: str):
    if name in _TENSOR_NAMES:
        from ember.masked import _tensor
        return getattr(_tensor, name)
    raise AttributeError(f"module 'ember.masked' has no attribute '{name}'")
