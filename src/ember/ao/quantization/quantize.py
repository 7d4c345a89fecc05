"""Eager-mode conversion: `convert` swaps each observed module for its quantized counterpart
(`swap_module`, by the mappings), and the whole recipes: `quantize` (prepare, calibrate,
convert), `quantize_dynamic` (Linear layers with int8 weights, inputs quantized per call),
`prepare_qat` / `quantize_qat` (fake-quantized training, then conversion)."""
from __future__ import annotations

import copy

import ember
from ember import nn
from ember.ao.nn import intrinsic as nni
from ember.ao.quantization import qconfig as qc
from ember.ao.quantization import quantization_mappings as maps
from ember.ao.quantization.prepare import observer_forward_hook, prepare, propagate_qconfig_

__all__ = ["convert", "prepare_qat", "quantize", "quantize_dynamic", "quantize_qat",
           "swap_module"]


def swap_module(mod, mapping, custom_module_class_mapping=None,
                use_precomputed_fake_quant: bool = False):
    """`mod`'s quantized counterpart (`mapping[type(mod)].from_float(mod)`) when it has a qconfig
    and a mapping, else `mod`; hooks other than the observer's carry over."""
    qconfig = getattr(mod, "qconfig", None)
    if qconfig is None:
        return mod
    custom = custom_module_class_mapping or {}
    kind = type(mod)
    if kind in custom:
        return custom[kind].from_observed(mod)
    target = mapping.get(kind)
    if target is None:
        if kind.__name__ in maps.NOT_BUILT and hasattr(mod, "activation_post_process"):
            raise NotImplementedError(f"ember has no quantized {kind.__name__} yet: give it "
                                      "qconfig=None to keep it in float")
        return mod
    new = target.from_float(mod, use_precomputed_fake_quant=use_precomputed_fake_quant) \
        if _takes_precomputed(target) else target.from_float(mod)
    for hook in mod._forward_pre_hooks.values():
        new.register_forward_pre_hook(hook)
    for hook in mod._forward_hooks.values():
        if hook is not observer_forward_hook:
            new.register_forward_hook(hook)
    return new


def _takes_precomputed(cls) -> bool:
    import inspect
    return "use_precomputed_fake_quant" in inspect.signature(cls.from_float).parameters


def _convert(module, mapping, inplace: bool, custom_module_class_mapping,
             use_precomputed_fake_quant: bool):
    if not inplace:
        module = copy.deepcopy(module)
    fused = tuple(getattr(nni, name) for name in nni.__all__)
    custom = custom_module_class_mapping or {}
    for name, child in list(module.named_children()):
        if not isinstance(child, fused) and type(child) not in custom:
            _convert(child, mapping, True, custom, use_precomputed_fake_quant)
        module._modules[name] = swap_module(child, mapping, custom, use_precomputed_fake_quant)
    return module


def _remove_qconfig(module) -> None:
    for child in module.children():
        _remove_qconfig(child)
    if hasattr(module, "qconfig"):
        del module.qconfig


def convert(module, mapping=None, inplace: bool = False, remove_qconfig: bool = True,
            is_reference: bool = False, convert_custom_config_dict=None,
            use_precomputed_fake_quant: bool = False):
    """The model with each observed (or QAT) module replaced by its quantized counterpart,
    using the scale and zero point its observer chose."""
    if is_reference:
        raise NotImplementedError("ember has no reference quantized modules")
    if mapping is None:
        mapping = maps.get_default_static_quant_module_mappings()
    custom = (convert_custom_config_dict or {}).get(
        "observed_to_quantized_custom_module_class", {})
    if not inplace:
        module = copy.deepcopy(module)
    _convert(module, mapping, True, custom, use_precomputed_fake_quant)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def quantize(model, run_fn, run_args, mapping=None, inplace: bool = False):
    """Post-training static quantization: prepare (observers), `run_fn(model, *run_args)` to
    calibrate, convert."""
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


_DYNAMIC_TYPES = ("Linear", "LSTM", "GRU", "LSTMCell", "RNNCell", "GRUCell")


def quantize_dynamic(model, qconfig_spec=None, dtype=None, mapping=None,
                     inplace: bool = False):
    """Dynamic quantization: the Linear layers (by default) swapped for ones with int8 (or
    float16) weights that quantize their input per call."""
    dtype = ember.qint8 if dtype is None else dtype
    if qconfig_spec is None:
        if dtype is ember.qint8:
            config = qc.default_dynamic_qconfig
        elif dtype is ember.float16:
            config = qc.float16_dynamic_qconfig
        elif dtype is ember.quint8:
            raise NotImplementedError("ember has no weight-only quantized Embedding / "
                                      "EmbeddingBag yet")
        else:
            raise ValueError(f"Don't know how to quantize with default settings for {dtype}. "
                             "Provide full qconfig please")
        qconfig_spec = {getattr(nn, name): config for name in _DYNAMIC_TYPES}
    elif isinstance(qconfig_spec, set):
        config = {ember.qint8: qc.default_dynamic_qconfig,
                  ember.float16: qc.float16_dynamic_qconfig,
                  ember.quint8: qc.float_qparams_weight_only_qconfig}.get(dtype)
        if config is None:
            raise RuntimeError(f"Unknown dtype specified for quantize_dynamic: {dtype}")
        qconfig_spec = dict.fromkeys(qconfig_spec, config)
    if mapping is None:
        mapping = maps.get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    for module in model.modules():
        if getattr(module, "qconfig", None) is not None and type(module) not in mapping \
                and type(module).__name__ in _DYNAMIC_TYPES:
            raise NotImplementedError(
                f"ember has no dynamically quantized {type(module).__name__} yet: pass "
                "qconfig_spec={nn.Linear} to quantize the Linear layers only")
    convert(model, mapping, inplace=True)
    return model


def prepare_qat(model, mapping=None, inplace: bool = False):
    """Quantization-aware training: the float layers swapped for QAT ones (fake-quantized
    weights) and observers (fake quantizers) put after each."""
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    if mapping is None:
        mapping = maps.get_default_qat_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model)
    convert(model, mapping, inplace=True, remove_qconfig=False)
    prepare(model, observer_non_leaf_module_list=set(mapping.values()), inplace=True)
    return model


def quantize_qat(model, run_fn, run_args, inplace: bool = False):
    """prepare_qat, `run_fn(model, *run_args)` to train, then convert (in evaluation)."""
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, inplace=True)
    return model
