"""Parameters flattened into one vector and back."""
from __future__ import annotations

import ember

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param, device):
    if device is None:
        return param.device
    if param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return device


def parameters_to_vector(parameters):
    """The parameters' values, each flattened, joined into one 1-d tensor."""
    device = None
    pieces = []
    for param in parameters:
        device = _check_same_device(param, device)
        pieces.append(param.view(-1))
    return ember.cat(pieces)


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-d `vec` into the parameters (their `.data`)."""
    if not isinstance(vec, ember.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    start = 0
    for param in parameters:
        device = _check_same_device(param, device)
        count = param.numel()
        param.data = vec[start:start + count].view_as(param).data
        start += count
