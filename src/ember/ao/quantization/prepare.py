"""Preparing a float model for calibration: `propagate_qconfig_` gives each submodule its
`qconfig` (from its parent, or a dict by type / name), `prepare` attaches an observer
(`activation_post_process`) to the output of each leaf with a qconfig, `add_quant_dequant`
wraps leaves in QuantWrapper. Running the prepared model calibrates the observers."""
from __future__ import annotations

import copy

from ember.ao.nn import intrinsic as nni
from ember.ao.quantization.stubs import DeQuantStub, QuantWrapper

__all__ = ["add_quant_dequant", "default_eval_fn", "get_default_qconfig_propagation_list",
           "prepare", "propagate_qconfig_"]

def get_default_qconfig_propagation_list() -> set:
    """The module types `prepare` observes (and `propagate_qconfig_` reaches)."""
    from ember.ao.quantization import quantization_mappings
    return quantization_mappings.get_default_qconfig_propagation_list()


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None) -> None:
    """Give every submodule a `qconfig`: its own, else the dict's for its type or name, else its
    parent's."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod, name: str, inherited) -> None:
        qconfig = qconfig_dict.get(type(mod), qconfig_dict.get(name, inherited))
        qconfig = getattr(mod, "qconfig", qconfig)
        mod.qconfig = qconfig
        for child_name, child in mod.named_children():
            visit(child, f"{name}.{child_name}" if name else child_name, qconfig)
    visit(module, "", qconfig_dict.get("", None))


def observer_forward_hook(mod, inputs, output):
    """The hook `prepare` puts on an observed module (conversion drops it)."""
    return mod.activation_post_process(output)


def _observe(module, observer) -> None:
    module.add_module("activation_post_process", observer)
    module.register_forward_hook(observer_forward_hook)


def prepare(model, inplace: bool = False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    """A copy of `model` (or `model` itself, inplace) with an observer after each leaf module
    that has a qconfig (not after a DeQuantStub, whose output is float)."""
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, prepare_custom_config_dict=prepare_custom_config_dict)
    allowed = get_default_qconfig_propagation_list() if allow_list is None else set(allow_list)
    fused = tuple(getattr(nni, name) for name in nni.__all__)
    non_leaf = tuple(observer_non_leaf_module_list or ())
    leaves = [m for m in model.modules()
              if type(m) in allowed and (not list(m.children()) or isinstance(m, fused))
              or type(m) in non_leaf]
    for module in leaves:
        qconfig = getattr(module, "qconfig", None)
        if qconfig is None or isinstance(module, DeQuantStub) or \
                hasattr(module, "activation_post_process"):
            continue
        _observe(module, qconfig.activation())
    return model


def add_quant_dequant(module):
    """Each leaf with a qconfig wrapped between a QuantStub and a DeQuantStub."""
    if not list(module.children()) and getattr(module, "qconfig", None) is not None:
        return QuantWrapper(module)
    for name, child in module.named_children():
        module._modules[name] = add_quant_dequant(child)
    return module


def default_eval_fn(model, calib_data) -> None:
    """Run the model on each (data, target) of `calib_data` (to calibrate its observers)."""
    for data, _target in calib_data:
        model(data)

