"""Tensor subclasses the system itself builds on (torch._subclasses): `fake_tensor`, tensors
with a shape, dtype, strides and device but no data, computed through the ops' meta rules."""
from ember._subclasses.fake_tensor import (
    DynamicOutputShapeException,
    FakeTensor,
    FakeTensorMode,
    UnsupportedFakeTensorException,
)

__all__ = ["DynamicOutputShapeException", "FakeTensor", "FakeTensorMode",
           "UnsupportedFakeTensorException"]
