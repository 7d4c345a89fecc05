"""`ember.ao.nn.qat`: float layers for quantization-aware training whose weight passes through a
fake quantizer (`weight_fake_quant`, from the qconfig) on every call: Linear, Conv1d/2d/3d."""
from __future__ import annotations

from ember import nn
from ember.nn import functional as F

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Linear"]


class Linear(nn.Linear):
    """nn.Linear with its weight fake-quantized in the forward."""

    _FLOAT_MODULE = nn.Linear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None) -> None:
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f"qat.{cls.__name__}.from_float only works for "
                                 f"{cls._FLOAT_MODULE.__name__}")
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        qat = cls(mod.in_features, mod.out_features, bias=mod.bias is not None,
                  qconfig=mod.qconfig)
        qat.weight = mod.weight
        qat.bias = mod.bias
        return qat

    def to_float(self):
        linear = nn.Linear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = nn.Parameter(self.bias.detach())
        linear.train(self.training)
        return linear


def _qat_conv(dims: int):
    float_cls = getattr(nn, f"Conv{dims}d")

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", qconfig=None,
                 device=None, dtype=None) -> None:
        float_cls.__init__(self, in_channels, out_channels, kernel_size, stride=stride,
                           padding=padding, dilation=dilation, groups=groups, bias=bias,
                           padding_mode=padding_mode, device=device, dtype=dtype)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        if type(mod) is not float_cls:
            raise AssertionError(f"qat.{cls.__name__}.from_float only works for "
                                 f"{float_cls.__name__}")
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        qat = cls(mod.in_channels, mod.out_channels, mod.kernel_size, stride=mod.stride,
                  padding=mod.padding, dilation=mod.dilation, groups=mod.groups,
                  bias=mod.bias is not None, padding_mode=mod.padding_mode,
                  qconfig=mod.qconfig)
        qat.weight = mod.weight
        qat.bias = mod.bias
        return qat

    return type(f"Conv{dims}d", (float_cls,), {
        "__doc__": f"nn.Conv{dims}d with its weight fake-quantized in the forward.",
        "__module__": __name__, "_FLOAT_MODULE": float_cls, "__init__": __init__,
        "forward": forward, "from_float": from_float})


Conv1d = _qat_conv(1)
Conv2d = _qat_conv(2)
Conv3d = _qat_conv(3)
