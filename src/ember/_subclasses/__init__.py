"""Tensor subclasses the system itself builds on (torch._subclasses): `fake_tensor`, tensors
with a shape, dtype, strides and device but no data, computed through the ops' meta rules;
`functional_tensor` (FunctionalTensor and FunctionalTensorMode, behind
`ember.func.functionalize`), loaded on first use."""
from ember._subclasses.fake_tensor import (
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
)

__all__ = ["DynamicOutputShapeException", "FakeTensor", "FakeTensorMode",
           "UnsupportedFakeTensorException"]
