"""`QConfig`: how to observe a module's activations and weights (two observer factories), and
PyTorch's default configurations."""
from __future__ import annotations

from collections import namedtuple

import ember
from ember.ao.quantization import fake_quantize as fq
from ember.ao.quantization import observer as obs

__all__ = ["QConfig", "QConfigDynamic", "default_dynamic_qconfig", "default_qat_qconfig",
           "default_qconfig", "float16_dynamic_qconfig", "float_qparams_weight_only_qconfig"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """(activation, weight): observer classes or factories (`MinMaxObserver.with_args(...)`),
    never instances."""

    __slots__ = ()

    def __new__(cls, activation, weight):
        from ember.nn import Module
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError(  # noqa: TRY004 (PyTorch's class)
                "QConfig received observer instance, please pass observer class "
                "instead. Use MyObserver.with_args(x=1) to override arguments to "
                "constructor if needed")
        return super().__new__(cls, activation, weight)


QConfigDynamic = QConfig

default_qconfig = QConfig(activation=obs.default_observer, weight=obs.default_weight_observer)
default_dynamic_qconfig = QConfig(activation=obs.default_dynamic_quant_observer,
                                  weight=obs.default_weight_observer)
float16_dynamic_qconfig = QConfig(
    activation=obs.PlaceholderObserver.with_args(dtype=ember.float16, is_dynamic=True),
    weight=obs.PlaceholderObserver.with_args(dtype=ember.float16))
float_qparams_weight_only_qconfig = QConfig(activation=obs.default_placeholder_observer,
                                            weight=obs.default_float_qparams_observer)
default_qat_qconfig = QConfig(activation=fq.default_fake_quant,
                              weight=fq.default_weight_fake_quant)
