"""`ember.ao.quantization` (also `ember.quantization`): eager-mode quantization.

QuantStub / DeQuantStub / QuantWrapper (stubs.py), observers and their (scale, zero_point)
(observer.py, histogram.py), fake quantization with its straight-through gradient
(fake_quantize.py), QConfig and the default configurations (qconfig.py), module fusion
(fuse.py), qconfig propagation and observer insertion (prepare.py), the module mappings
(quantization_mappings.py) and conversion to the quantized modules of `ember.ao.nn`
(quantize.py: convert, quantize, quantize_dynamic, prepare_qat, quantize_qat). The quantized
tensors they run on: NOTE [quantized tensors].
"""
from __future__ import annotations

from ember.ao.quantization import observer
from ember.ao.quantization.fake_quantize import (
    FakeQuantize,
    FakeQuantizeBase,
    FixedQParamsFakeQuantize,
    FusedMovingAvgObsFakeQuantize,
    default_fake_quant,
    default_fixed_qparams_range_0to1_fake_quant,
    default_fixed_qparams_range_neg1to1_fake_quant,
    default_fused_act_fake_quant,
    default_fused_per_channel_wt_fake_quant,
    default_fused_wt_fake_quant,
    default_histogram_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
)
from ember.ao.quantization.fuse import (
    fuse_known_modules,
    fuse_modules,
    get_fuser_method,
)
from ember.ao.quantization.histogram import (
    HistogramObserver,
    default_histogram_observer,
)
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
    prepare,
    propagate_qconfig_,
)
from ember.ao.quantization.qconfig import (
    QConfig,
    QConfigDynamic,
    default_dynamic_qconfig,
    default_per_channel_qconfig,
    default_qat_qconfig,
    default_qconfig,
    float16_dynamic_qconfig,
    float_qparams_weight_only_qconfig,
    get_default_qat_qconfig,
    get_default_qconfig,
    per_channel_dynamic_qconfig,
    qconfig_equals,
)
from ember.ao.quantization.quant_type import (
    QuantType,
)
from ember.ao.quantization.quantization_mappings import (
    DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS,
    DEFAULT_QAT_MODULE_MAPPINGS,
    DEFAULT_STATIC_QUANT_MODULE_MAPPINGS,
    get_default_compare_output_module_list,
    get_default_dynamic_quant_module_mappings,
    get_default_qat_module_mappings,
    get_default_qconfig_propagation_list,
    get_default_static_quant_module_mappings,
    get_dynamic_quant_module_class,
    get_quantized_operator,
    get_static_quant_module_class,
)
from ember.ao.quantization.quantize import (
    convert,
    prepare_qat,
    quantize,
    quantize_dynamic,
    quantize_qat,
    swap_module,
)
from ember.ao.quantization.quantize_jit import quantize_dynamic_jit, quantize_jit
from ember.ao.quantization.stubs import (
    DeQuantStub,
    QuantStub,
    QuantWrapper,
)

__all__ = [
    "DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS", "DEFAULT_QAT_MODULE_MAPPINGS",
    "DEFAULT_STATIC_QUANT_MODULE_MAPPINGS", "DeQuantStub", "FakeQuantize", "FakeQuantizeBase",
    "FixedQParamsFakeQuantize", "FixedQParamsObserver", "FusedMovingAvgObsFakeQuantize",
    "HistogramObserver", "MinMaxObserver", "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver", "NoopObserver", "ObserverBase",
    "PerChannelMinMaxObserver", "PlaceholderObserver", "QConfig", "QConfigDynamic", "QuantStub",
    "QuantType", "QuantWrapper", "add_quant_dequant", "convert", "default_dynamic_qconfig",
    "default_dynamic_quant_observer", "default_eval_fn", "default_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant", "default_float_qparams_observer",
    "default_fused_act_fake_quant", "default_fused_per_channel_wt_fake_quant",
    "default_fused_wt_fake_quant", "default_histogram_fake_quant", "default_histogram_observer",
    "default_observer", "default_per_channel_qconfig", "default_per_channel_weight_fake_quant",
    "default_per_channel_weight_observer", "default_placeholder_observer", "default_qat_qconfig",
    "default_qconfig", "default_weight_fake_quant", "default_weight_observer",
    "float16_dynamic_qconfig", "float_qparams_weight_only_qconfig", "fuse_known_modules",
    "fuse_modules", "get_default_compare_output_module_list",
    "get_default_dynamic_quant_module_mappings", "get_default_qat_module_mappings",
    "get_default_qat_qconfig", "get_default_qconfig", "get_default_qconfig_propagation_list",
    "get_default_static_quant_module_mappings", "get_dynamic_quant_module_class",
    "get_fuser_method", "get_quantized_operator", "get_static_quant_module_class", "observer",
    "per_channel_dynamic_qconfig", "prepare", "prepare_qat", "propagate_qconfig_",
    "qconfig_equals", "quantize", "quantize_dynamic", "quantize_dynamic_jit", "quantize_jit",
    "quantize_qat", "swap_module",
]
