"""Convolution weights converted to a memory format (channels_last ...) throughout a model."""
from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    from ember.nn.modules import conv
    classes = tuple(getattr(conv, kind) for kind in kinds if hasattr(conv, kind))
    if classes and isinstance(module, classes):
        module.weight.data = module.weight.detach().clone().contiguous(
            memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every Conv2d / ConvTranspose2d weight in module the memory format; returns it."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every Conv3d / ConvTranspose3d weight in module the memory format; returns it."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
