"""The quantized `Linear` layer: quint8 in, quint8 out, int8 weights (per tensor or per output
channel) and a float bias, with NOTE [int8 products and requantization]."""
from __future__ import annotations

import ember
from ember import nn
from ember.ao.nn.quantized import _kernels
from ember.nn import Module

__all__ = ["Linear", "LinearPackedParams"]


class LinearPackedParams(Module):
    """A quantized linear layer's weight and bias (what PyTorch packs for its kernel); saved as
    PyTorch saves them: `dtype` and the (weight, bias) pair `_packed_params`."""

    _version = 3

    def __init__(self, dtype=None) -> None:
        super().__init__()
        self.dtype = ember.qint8 if dtype is None else dtype
        self._weight = None
        self._bias = None

    def set_weight_bias(self, weight, bias) -> None:
        self._weight, self._bias = weight, bias

    def _weight_bias(self):
        return self._weight, self._bias

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.dtype = state_dict.pop(prefix + "dtype")
        weight, bias = state_dict.pop(prefix + "_packed_params")
        self.set_weight_bias(weight, bias)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self) -> str:
        return repr(self._weight_bias())


def quantize_weight(weight, observer):
    """A float weight quantized with an observer's parameters (per tensor, or per channel
    along its `ch_axis`)."""
    scale, zero_point = observer.calculate_qparams()
    scheme = observer.qscheme.name
    if scheme in ("per_tensor_affine", "per_tensor_symmetric"):
        return ember.quantize_per_tensor(weight.detach().float(), float(scale),
                                         int(zero_point), observer.dtype)
    return ember.quantize_per_channel(weight.detach().float(), scale.double(),
                                      zero_point.long(), observer.ch_axis, observer.dtype)


def observed_weight(mod, use_precomputed_fake_quant: bool = False):
    """The observer (or fake quantizer) of a float or QAT module's weight, after it has seen
    the weight."""
    observer = getattr(mod, "weight_fake_quant", None)
    if observer is None:
        observer = mod.qconfig.weight()
    if not use_precomputed_fake_quant:
        observer(mod.weight)
    return observer


def observed_parts(cls, mod, use_precomputed_fake_quant: bool, messages: tuple):
    """What `from_float` of a static quantized layer reads from an observed float module (or a
    fused Sequential, or a QAT module) after calibration: (the float layer, its weight's
    observer, the output's observer), with PyTorch's AssertionErrors; `messages` are the
    layer's own wording of the qconfig and weight-dtype refusals."""
    floats = cls._float_types()
    if not isinstance(mod, floats):
        raise AssertionError(  # noqa: TRY004 (PyTorch's class)
            f"nnq.{cls.__name__}.from_float only works for {floats[0].__name__}")
    if not hasattr(mod, "qconfig"):
        raise AssertionError(messages[0])
    activation = mod.activation_post_process
    inner = mod[0] if isinstance(mod, nn.Sequential) else mod
    if not hasattr(inner, "qconfig"):
        inner.qconfig = mod.qconfig
    observer = observed_weight(inner, use_precomputed_fake_quant)
    if observer.dtype is not ember.qint8:
        raise AssertionError(messages[1])
    return inner, observer, activation


class Linear(Module):
    """y = x W^T + b on quantized tensors; the output quantized with `scale` / `zero_point`."""

    _version = 3
    _relu = False

    @staticmethod
    def _float_types() -> tuple:
        return (nn.Linear,)

    def __init__(self, in_features: int, out_features: int, bias_: bool = True,
                 dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        dtype = ember.qint8 if dtype is None else dtype
        if dtype is not ember.qint8:
            raise RuntimeError("Unsupported dtype specified for quantized Linear!")
        weight = ember.quantize_per_tensor(ember.zeros(out_features, in_features), 1.0, 0,
                                           dtype)
        bias = ember.zeros(out_features) if bias_ else None
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(weight, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self) -> str:
        return "QuantizedLinear"

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"scale={self.scale}, zero_point={self.zero_point}, "
                f"qscheme={self.weight().qscheme()}")

    def __repr__(self) -> str:
        # PyTorch prints the layer without its packed-parameters child.
        if list(self._modules) == ["_packed_params"]:
            return f"{self._get_name()}({self.extra_repr()})"
        return super().__repr__()

    def forward(self, x):
        if not x.is_quantized:
            raise NotImplementedError(
                "Could not run 'quantized::linear' with arguments from the 'CPU' backend.")
        weight, bias = self._weight_bias()
        acc = _kernels.linear_accumulate(x, weight)
        return _kernels.requantize(acc, x, weight, bias, self.scale, self.zero_point,
                                   self._relu, acc.ndim - 1)

    def _weight_bias(self):
        return self._packed_params._weight_bias()

    def weight(self):
        return self._weight_bias()[0]

    def bias(self):
        return self._weight_bias()[1]

    def set_weight_bias(self, w, b) -> None:
        self._packed_params.set_weight_bias(w, b)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = ember.tensor(self.scale)
        destination[prefix + "zero_point"] = ember.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        """From an observed float Linear (or LinearReLU, or QAT Linear) after calibration."""
        inner, observer, activation = observed_parts(
            cls, mod, use_precomputed_fake_quant,
            ("Input float module must have qconfig defined",
             "Weight observer must have dtype torch.qint8"))
        weight = quantize_weight(inner.weight, observer)
        scale, zero_point = activation.calculate_qparams()
        layer = cls(inner.in_features, inner.out_features, dtype=observer.dtype)
        bias = None if inner.bias is None else inner.bias.detach().clone()
        layer.set_weight_bias(weight, bias)
        layer.scale, layer.zero_point = float(scale), int(zero_point)
        return layer
