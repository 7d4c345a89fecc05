"""Which module replaces which when a model is converted: float (or observed, or QAT) modules to
quantized ones (static), float modules to QAT ones (`prepare_qat`), float modules to dynamically
quantized ones (`quantize_dynamic`); and the float functions that have quantized operators."""
from __future__ import annotations

import copy

from ember import nn
from ember.ao.nn import intrinsic as nni
from ember.ao.nn import qat as nnqat
from ember.ao.nn import quantized as nnq
from ember.ao.nn.intrinsic import quantized as nniq
from ember.ao.nn.quantized import dynamic as nnqd
from ember.ao.quantization.stubs import DeQuantStub, QuantStub

__all__ = ["DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS", "DEFAULT_QAT_MODULE_MAPPINGS",
           "DEFAULT_STATIC_QUANT_MODULE_MAPPINGS", "get_default_compare_output_module_list",
           "get_default_dynamic_quant_module_mappings", "get_default_qat_module_mappings",
           "get_default_qconfig_propagation_list", "get_default_static_quant_module_mappings",
           "get_dynamic_quant_module_class", "get_quantized_operator",
           "get_static_quant_module_class"]

DEFAULT_STATIC_QUANT_MODULE_MAPPINGS = {
    QuantStub: nnq.Quantize,
    DeQuantStub: nnq.DeQuantize,
    nn.Linear: nnq.Linear,
    nn.Conv1d: nnq.Conv1d,
    nn.Conv2d: nnq.Conv2d,
    nn.Conv3d: nnq.Conv3d,
    nn.ReLU6: nnq.ReLU6,
    nn.Dropout: nnq.Dropout,
    nni.LinearReLU: nniq.LinearReLU,
    nni.ConvReLU1d: nniq.ConvReLU1d,
    nni.ConvReLU2d: nniq.ConvReLU2d,
    nni.ConvReLU3d: nniq.ConvReLU3d,
    nnqat.Linear: nnq.Linear,
    nnqat.Conv1d: nnq.Conv1d,
    nnqat.Conv2d: nnq.Conv2d,
    nnqat.Conv3d: nnq.Conv3d,
}
DEFAULT_QAT_MODULE_MAPPINGS = {
    nn.Linear: nnqat.Linear,
    nn.Conv2d: nnqat.Conv2d,
    nn.Conv3d: nnqat.Conv3d,
}
DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS = {
    nn.Linear: nnqd.Linear,
}

# The float modules PyTorch's conversion replaces for which ember has no quantized module yet:
# converting one raises (rather than leaving an observed float module on quantized tensors).
NOT_BUILT = ("BatchNorm2d", "BatchNorm3d", "ELU", "Embedding", "EmbeddingBag",
             "GroupNorm", "Hardswish", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
             "LayerNorm", "LeakyReLU", "PReLU", "ConvTranspose1d", "ConvTranspose2d",
             "ConvTranspose3d", "BNReLU2d", "BNReLU3d", "LSTM", "GRU", "LSTMCell", "GRUCell",
             "RNNCell")


def get_default_static_quant_module_mappings() -> dict:
    """float / observed / QAT module class -> quantized module class (`convert`)."""
    return copy.deepcopy(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)


def get_default_qat_module_mappings() -> dict:
    """float module class -> QAT module class (`prepare_qat`)."""
    return copy.deepcopy(DEFAULT_QAT_MODULE_MAPPINGS)


def get_default_dynamic_quant_module_mappings() -> dict:
    """float module class -> dynamically quantized module class (`quantize_dynamic`)."""
    return DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS


def get_static_quant_module_class(float_module_class, additional_static_quant_mapping=None,
                                  is_reference: bool = False):
    """The quantized class a float module class converts to."""
    if is_reference:
        raise NotImplementedError("ember has no reference quantized modules")
    mapping = {**DEFAULT_STATIC_QUANT_MODULE_MAPPINGS, **(additional_static_quant_mapping or {})}
    found = mapping.get(float_module_class)
    if found is None:
        raise AssertionError(f"Floating point module class {float_module_class} does not have "
                             "a corresponding quantized module class")
    return copy.deepcopy(found)


def get_dynamic_quant_module_class(float_module_class, additional_dynamic_quant_mapping=None):
    """The dynamically quantized class a float module class converts to."""
    mapping = {**DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS,
               **(additional_dynamic_quant_mapping or {})}
    found = mapping.get(float_module_class)
    if found is None:
        raise AssertionError(f"Floating point module class {float_module_class} does not have "
                             "a corresponding quantized module class")
    return copy.deepcopy(found)


def get_default_qconfig_propagation_list() -> set:
    """The module classes that get a qconfig (and an observer from `prepare`)."""
    return (set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS) | set(DEFAULT_QAT_MODULE_MAPPINGS)
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS) | {nn.Sequential}
            | {getattr(nn, name) for name in NOT_BUILT if hasattr(nn, name)}
            | {getattr(nni, name) for name in nni.__all__})


def get_default_compare_output_module_list() -> set:
    """The module classes whose outputs the numeric-suite comparisons record."""
    return (set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS.values())
            | set(DEFAULT_QAT_MODULE_MAPPINGS.values())
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS.values())
            | set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)
            | set(DEFAULT_QAT_MODULE_MAPPINGS)
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS) | {nn.Sequential})


def get_quantized_operator(float_op):
    """The quantized operator of a float function (`F.relu6` ...)."""
    from ember.ao.nn.quantized import functional
    found = functional.FLOAT_TO_QUANTIZED.get(float_op)
    if found is None:
        raise AssertionError(f"Operator {float_op} does not have corresponding quantized op")
    return found
