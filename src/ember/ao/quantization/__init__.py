"""`ember.ao.quantization` (also `ember.quantization`): eager-mode quantization's float side.

NOTE [quantization without quantized tensors]: ember has no quantized tensors or int8
kernels. What runs on float tensors is here and behaves as PyTorch's: QuantStub / DeQuantStub /
QuantWrapper (identities), observers and their (scale, zero_point) (observer.py), fake
quantization with its straight-through gradient for quantization-aware training
(fake_quantize.py), QConfig and the default configurations (qconfig.py), module fusion
(fuse.py: conv + batch norm folded), qconfig propagation and observer insertion (prepare.py).
The steps that produce quantized modules (`convert`, `quantize`, `quantize_dynamic`,
`prepare_qat`'s module swaps) are not here.
"""
from __future__ import annotations

from ember.ao.quantization import observer
from ember.ao.quantization.fake_quantize import (
    FakeQuantize,
    FakeQuantizeBase,
    FixedQParamsFakeQuantize,
    default_fake_quant,
    default_fixed_qparams_range_0to1_fake_quant,
    default_fixed_qparams_range_neg1to1_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
)
from ember.ao.quantization.fuse import fuse_known_modules, fuse_modules, get_fuser_method
from ember.ao.quantization.observer import (
    FixedQParamsObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    NoopObserver,
    ObserverBase,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
    default_dynamic_quant_observer,
    default_float_qparams_observer,
    default_observer,
    default_per_channel_weight_observer,
    default_placeholder_observer,
    default_weight_observer,
)
from ember.ao.quantization.prepare import (
    add_quant_dequant,
    default_eval_fn,
    get_default_qconfig_propagation_list,
    prepare,
    propagate_qconfig_,
)
from ember.ao.quantization.qconfig import (
    QConfig,
    QConfigDynamic,
    default_dynamic_qconfig,
    default_qat_qconfig,
    default_qconfig,
    float16_dynamic_qconfig,
    float_qparams_weight_only_qconfig,
)
from ember.ao.quantization.quant_type import QuantType
from ember.ao.quantization.stubs import DeQuantStub, QuantStub, QuantWrapper

__all__ = [
    "DeQuantStub", "FakeQuantize", "FakeQuantizeBase", "FixedQParamsFakeQuantize",
    "FixedQParamsObserver", "MinMaxObserver", "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver", "NoopObserver", "ObserverBase",
    "PerChannelMinMaxObserver", "PlaceholderObserver", "QConfig", "QConfigDynamic",
    "QuantStub", "QuantType", "QuantWrapper", "add_quant_dequant", "default_dynamic_qconfig",
    "default_dynamic_quant_observer", "default_eval_fn", "default_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant", "default_float_qparams_observer",
    "default_observer", "default_per_channel_weight_fake_quant",
    "default_per_channel_weight_observer", "default_placeholder_observer",
    "default_qat_qconfig", "default_qconfig", "default_weight_fake_quant",
    "default_weight_observer", "float16_dynamic_qconfig", "float_qparams_weight_only_qconfig",
    "fuse_known_modules", "fuse_modules", "get_default_qconfig_propagation_list",
    "get_fuser_method", "observer", "prepare",
    "propagate_qconfig_",
]
