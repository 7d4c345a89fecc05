"""`ShapeProp(gm).propagate(*args)`: run the graph and record, on each node whose value holds
tensors, `node.meta['tensor_meta']` (a `TensorMetadata`, or the same structure of them) and
`node.meta['type']`."""
from __future__ import annotations

from typing import Any, NamedTuple

from ember.fx.interpreter import Interpreter
from ember.fx.node import Node, map_aggregate


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict[str, Any]


def _extract_tensor_metadata(result, include_contiguity: bool = True) -> TensorMetadata:
    import ember
    memory_format = None
    if include_contiguity:
        # The first layout the tensor is dense in, in this order.
        for query in (ember.contiguous_format, ember.channels_last, ember.channels_last_3d):
            if result.is_contiguous(memory_format=query):
                memory_format = query
                break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          memory_format, result.is_quantized, {})


class ShapeProp(Interpreter):
    """An Interpreter that leaves each node's tensor metadata in its `meta`."""

    def __init__(self, gm, fake_mode=None) -> None:
        super().__init__(gm)
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp with a fake_mode is not implemented in ember "
                                      "yet")
        self.fake_mode = fake_mode

    def run_node(self, n: Node) -> Any:
        from ember._tensor import Tensor
        result = super().run_node(n)
        found = False

        def extract(value):
            nonlocal found
            if isinstance(value, Tensor):
                found = True
                return _extract_tensor_metadata(value)
            return value

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args) -> Any:
        """Run the graph on `args`, filling in the nodes' metadata; returns the output."""
        return super().run(*args)
