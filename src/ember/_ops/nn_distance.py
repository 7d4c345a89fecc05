"""one_hot: class indices spread into a trailing dim of 0/1 (int64)."""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.registry import register_op


def _one_hot_classes(self_array, num_classes):
    """The class count (inferred as max + 1 for -1); PyTorch's checks of the values."""
    if self_array.size == 0:
        _check(num_classes > 0, "Can not infer total number of classes from empty tensor.")
        return num_classes
    if num_classes == -1:
        num_classes = int(self_array.max()) + 1
    if self_array.size:
        _check(int(self_array.min()) >= 0, "Class values must be non-negative.")
        _check(int(self_array.max()) < num_classes, "Class values must be smaller than num_classes.")
    return num_classes


def _one_hot_meta(self, num_classes=-1):
    _check(self._dtype is dt.int64,
           "one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes < 0 and hasattr(self, "fake_mode"):
        self.max().item()       # a FakeTensor refuses the read: DataDependentOutputException
    _check(num_classes >= 0, "one_hot on the meta device needs an explicit num_classes")
    return tuple(self.shape) + (num_classes,), dt.int64


@register_op("one_hot(Tensor self, int num_classes=-1) -> Tensor", function=False, method=False,
             meta=_one_hot_meta, differentiable=False)
def one_hot(xp, self, num_classes=-1):
    """one_hot(tensor, num_classes=-1) -> LongTensor: out[..., c] = 1 where tensor[...] == c
    (num_classes -1: one more than the largest value)."""
    _check(self.dtype == np.int64,
           "one_hot is only applicable to index tensor of type LongTensor.")
    classes = _one_hot_classes(self, num_classes)
    return (self[..., None] == xp.arange(classes, dtype=np.int64)).astype(np.int64)
