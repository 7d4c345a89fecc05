"""`QConfig`: how to observe a module's activations and weights (two observer factories), and
PyTorch's default configurations."""
from __future__ import annotations

from collections import namedtuple

import ember
from ember.ao.quantization import fake_quantize as fq
from ember.ao.quantization import observer as obs
from ember.ao.quantization.histogram import HistogramObserver

__all__ = ["QConfig", "QConfigDynamic", "default_dynamic_qconfig", "default_per_channel_qconfig",
           "default_qat_qconfig", "default_qconfig", "float16_dynamic_qconfig",
           "float_qparams_weight_only_qconfig", "get_default_qat_qconfig", "get_default_qconfig",
           "per_channel_dynamic_qconfig", "qconfig_equals"]


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
default_per_channel_qconfig = QConfig(activation=obs.default_observer,
                                      weight=obs.default_per_channel_weight_observer)
per_channel_dynamic_qconfig = QConfig(activation=obs.default_dynamic_quant_observer,
                                      weight=obs.default_per_channel_weight_observer)

_BACKENDS = ["fbgemm", "x86", "qnnpack", "onednn"]


def _check_backend(backend: str, version, supported_versions) -> None:
    if backend not in _BACKENDS:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of "
                             f"{_BACKENDS}")
    if version not in supported_versions:
        raise AssertionError(f"Version number: {version} in get_default_qconfig is not "
                             "supported. Version number must be 0")


def get_default_qconfig(backend: str = "x86", version: int = 0) -> QConfig:
    """The post-training qconfig for a kernel library: histogram-observed activations (range
    halved for x86 / fbgemm, whose int8 products could overflow), per-channel symmetric weights
    (per-tensor for qnnpack)."""
    _check_backend(backend, version, (0,))
    reduce_range = backend in ("x86", "fbgemm")
    weight = obs.default_weight_observer if backend == "qnnpack" else \
        obs.default_per_channel_weight_observer
    return QConfig(activation=HistogramObserver.with_args(reduce_range=reduce_range),
                   weight=weight)


def get_default_qat_qconfig(backend: str = "x86", version: int = 1) -> QConfig:
    """The quantization-aware-training qconfig for a kernel library: moving-average fake
    quantization of activations, per-channel (qnnpack: per-tensor) fake-quantized weights.
    Version 1 fuses observing and fake-quantizing (the same numbers)."""
    _check_backend(backend, version, (0, 1, None))
    reduce_range = backend in ("x86", "fbgemm")
    if version == 0:
        activation = fq.FakeQuantize.with_args(observer=obs.MovingAverageMinMaxObserver,
                                               quant_min=0, quant_max=255,
                                               reduce_range=reduce_range)
        weight = fq.default_weight_fake_quant if backend == "qnnpack" else \
            fq.default_per_channel_weight_fake_quant
    else:
        activation = fq.FusedMovingAvgObsFakeQuantize.with_args(
            observer=obs.MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
            reduce_range=reduce_range)
        weight = fq.default_fused_wt_fake_quant if backend == "qnnpack" else \
            fq.default_fused_per_channel_wt_fake_quant
    return QConfig(activation=activation, weight=weight)


def qconfig_equals(q1, q2) -> bool:
    """Whether two qconfigs make the same observers (factories compared by class and
    arguments)."""
    if q1 is None or q2 is None:
        return q1 == q2

    def same(a, b) -> bool:
        if hasattr(a, "func") and hasattr(b, "func"):
            return a.func == b.func and a.args == b.args and a.keywords == b.keywords
        return a == b
    return same(q1.activation, q2.activation) and same(q1.weight, q2.weight)
