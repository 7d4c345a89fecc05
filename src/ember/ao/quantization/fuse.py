"""`fuse_modules`: runs of modules (conv, batch norm, ReLU; linear, ReLU ...) merged into one
fused module: in evaluation, batch norm folded into the conv / linear before it
(`nn.utils.fusion`); in training, kept as the parts of a fused module (`ConvBnReLU2d`). The first
module's place gets the fused module, the others' an Identity."""
from __future__ import annotations

import copy

from ember.ao.nn import intrinsic as nni
from ember.nn import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    Conv1d,
    Conv2d,
    Conv3d,
    Identity,
    Linear,
    ReLU,
)
from ember.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

__all__ = ["fuse_known_modules", "fuse_modules", "get_fuser_method"]


def _conv_bn(train_cls):
    def fuse(is_qat, conv, bn):
        if conv.training != bn.training:
            raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
        return train_cls(conv, bn) if is_qat else fuse_conv_bn_eval(conv, bn)
    return fuse


def _conv_bn_relu(train_cls, relu_cls):
    def fuse(is_qat, conv, bn, relu):
        if conv.training != bn.training or bn.training != relu.training:
            raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
        if is_qat:
            return train_cls(conv, bn, relu)
        return relu_cls(fuse_conv_bn_eval(conv, bn), relu)
    return fuse


def _pair(cls):
    def fuse(is_qat, first, second):
        return cls(first, second)
    return fuse


def _linear_bn(is_qat, linear, bn):
    return nni.LinearBn1d(linear, bn) if is_qat else fuse_linear_bn_eval(linear, bn)


_FUSERS = {
    (Conv1d, BatchNorm1d): _conv_bn(nni.ConvBn1d),
    (Conv2d, BatchNorm2d): _conv_bn(nni.ConvBn2d),
    (Conv3d, BatchNorm3d): _conv_bn(nni.ConvBn3d),
    (Conv1d, BatchNorm1d, ReLU): _conv_bn_relu(nni.ConvBnReLU1d, nni.ConvReLU1d),
    (Conv2d, BatchNorm2d, ReLU): _conv_bn_relu(nni.ConvBnReLU2d, nni.ConvReLU2d),
    (Conv3d, BatchNorm3d, ReLU): _conv_bn_relu(nni.ConvBnReLU3d, nni.ConvReLU3d),
    (Conv1d, ReLU): _pair(nni.ConvReLU1d),
    (Conv2d, ReLU): _pair(nni.ConvReLU2d),
    (Conv3d, ReLU): _pair(nni.ConvReLU3d),
    (Linear, BatchNorm1d): _linear_bn,
    (Linear, ReLU): _pair(nni.LinearReLU),
    (BatchNorm2d, ReLU): _pair(nni.BNReLU2d),
    (BatchNorm3d, ReLU): _pair(nni.BNReLU3d),
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The function that fuses modules of these types, in this order."""
    mapping = {**_FUSERS, **(additional_fuser_method_mapping or {})}
    fuser = mapping.get(tuple(op_list))
    if fuser is None:
        raise AssertionError(f"did not find fuser method for: {op_list} ")

    def fuser_method(*modules):
        return fuser(any(m.training for m in modules), *modules)
    return fuser_method


def fuse_known_modules(mod_list, is_qat=None, additional_fuser_method_mapping=None) -> list:
    """[fused, Identity, ...] for a list of modules of a known run of types."""
    types = tuple(type(m) for m in mod_list)
    mapping = {**_FUSERS, **(additional_fuser_method_mapping or {})}
    fuser = mapping.get(types)
    if fuser is None:
        raise NotImplementedError(f"Cannot fuse modules: {types}")
    qat = mod_list[0].training if is_qat is None else is_qat
    fused = fuser(qat, *mod_list)
    return [fused] + [Identity() for _ in mod_list[1:]]


def _get(model, dotted: str):
    for part in dotted.split("."):
        model = getattr(model, part)
    return model


def _set(model, dotted: str, value) -> None:
    *path, leaf = dotted.split(".")
    for part in path:
        model = getattr(model, part)
    setattr(model, leaf, value)


def fuse_modules(model, modules_to_fuse, inplace: bool = False,
                 fuser_func=fuse_known_modules, fuse_custom_config_dict=None):
    """Fuse each list of submodule names in `modules_to_fuse` (a list, or a list of lists)."""
    if not inplace:
        model = copy.deepcopy(model)
    groups = modules_to_fuse if all(isinstance(g, (list, tuple)) for g in modules_to_fuse) \
        else [modules_to_fuse]
    mapping = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping", {})
    for group in groups:
        modules = [_get(model, name) for name in group]
        fused = fuser_func(modules, is_qat=modules[0].training,
                           additional_fuser_method_mapping=mapping) \
            if fuser_func is fuse_known_modules else fuser_func(modules, mapping)
        for name, new in zip(group, fused):
            _set(model, name, new)
    return model
