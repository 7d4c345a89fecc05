"""Tensors during capture: a graph node plus a fake tensor with the real one's metadata
(shape, dtype, device, strides, requires_grad) as its example value."""
from __future__ import annotations

import operator

from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, VariableTracker

# Metadata a fake tensor answers exactly (the guards pin it), so reading it is a constant.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "is_cpu",
                       "is_sparse", "is_quantized", "layout", "is_leaf", "is_meta"})
# Methods whose answer is the tensor's data: reading one is a graph break, as in PyTorch.
_DATA_DEPENDENT = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__",
                             "__index__", "__len__", "data_ptr", "backward", "register_hook",
                             "retain_grad", "__iter__",
                             # the fake tensor does not keep it (FakeTensorConverter gives 0)
                             "storage_offset"})


class TensorVariable(VariableTracker):
    """A tensor: `node` is its graph node, `example` its fake tensor."""

    dynamic_dims = None      # an input's dims still dynamic (NOTE [dynamic dimensions])

    def __init__(self, node, example, source=None, real_type=None):
        self.node = node
        self.example = example
        self.source = source
        self.real_type = real_type

    def python_type(self):
        if self.real_type is None:
            from ember._tensor import Tensor
            return Tensor
        return self.real_type

    def truth(self, tx):
        unimplemented("data-dependent branching: a tensor's value read into Python control "
                      "flow (bool)")

    def unpack(self, tx):
        if self.example.dim() == 0:
            unimplemented("iteration over a 0-d tensor")
        tx.output.specialize(self, [0])
        return [tx.output.call_op("call_function", operator.getitem, [self, ConstantVariable(i)],
                                  {}) for i in range(self.example.shape[0])]

    def getattr(self, tx, name):
        if name in _METADATA:
            if name == "shape":
                return tx.output.size_of(self)
            return ConstantVariable(getattr(self.example, name))
        if name in ("T", "mT", "H", "mH", "real", "imag"):
            return tx.output.call_op("call_function", getattr, [self, ConstantVariable(name)],
                                     {})
        attr = getattr(type(self.example), name, None)
        if attr is None or not callable(attr):
            unimplemented(f"Tensor attribute {name!r}")
        return TensorMethodVariable(self, name)

    def call_method(self, tx, name, args, kwargs):
        if name in _DATA_DEPENDENT:
            unimplemented(f"Tensor.{name}() reads the tensor's data")
        if name == "size" and not kwargs and len(args) <= 1 and \
                all(type(a) is ConstantVariable and type(a.value) is int for a in args):
            return tx.output.size_of(self, args[0].value if args else None)
        return tx.output.call_op("call_method", name, [self, *args], kwargs)

    def rebuild(self, og):
        return og.tensor_rebuilder(self)

    def __repr__(self):
        return f"TensorVariable({self.node})"


class TensorMethodVariable(VariableTracker):
    """`x.sum` before it is called."""

    def __init__(self, tensor, name):
        self.tensor = tensor
        self.name = name

    def call(self, tx, args, kwargs):
        return self.tensor.call_method(tx, self.name, args, kwargs)

    def rebuild(self, og):
        owner, name = self.tensor.rebuild(og), self.name
        return lambda frame, outputs: getattr(owner(frame, outputs), name)
