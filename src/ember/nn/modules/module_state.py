"""State dicts: `Module.state_dict` (parameters and persistent buffers by dotted name, with
`_metadata` holding each module's `_version`) and `Module.load_state_dict` (copy in place under
no_grad, or assign with `assign=True`), with PyTorch's key bookkeeping, hooks and error text.

The four functions here are Module's methods (module.py binds them), so subclasses override
`_save_to_state_dict` / `_load_from_state_dict` as in PyTorch.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import Parameter, is_lazy
from ember.overrides import is_tensor_like

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def get_extra_state(self):
    """Extra (non-tensor) state for the state_dict: a module class overrides it together with
    `set_extra_state`."""
    raise RuntimeError(
        "Reached a code path in Module.get_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
        "bug-report.yml to report this bug.")


def set_extra_state(self, state) -> None:
    """Take back what `get_extra_state` returned, from a loaded state_dict."""
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called. "
        "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
        "bug-report.yml to report this bug.")


# ---------------------------------------------------------------------- saving
def save_to_state_dict(self, destination, prefix, keep_vars) -> None:
    """This module's own parameters and persistent buffers (not its children's) into
    `destination`, plus `get_extra_state()` when the class defines it."""
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if getattr(type(self), "get_extra_state", get_extra_state) is not get_extra_state:
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()


def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
    """An ordered dict of every parameter and persistent buffer by dotted name (detached unless
    `keep_vars`); its `_metadata` maps each module's prefix to {"version": _version}."""
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
            "state_dict for details.", FutureWarning, stacklevel=2)
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": self._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".",
                              keep_vars=keep_vars)
    for hook in self._state_dict_hooks.values():
        result = hook(self, destination, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        elif result is not None:
            destination = result
    return destination


# ---------------------------------------------------------------------- loading
def load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs) -> None:
    """Copy this module's own parameters and persistent buffers from `state_dict` (keys
    `prefix + name`); record missing and unexpected keys and errors in the lists."""
    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    local_state = {name: value for name, value in self._parameters.items()
                   if value is not None}
    local_state.update((name, value) for name, value in self._buffers.items()
                       if value is not None and name not in self._non_persistent_buffers_set)
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        input_param = state_dict[key]
        if not is_tensor_like(input_param):
            error_msgs.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(input_param)}")
            continue
        lazy = is_lazy(param)
        # Checkpoints of PyTorch 0.3 stored scalars as one-element vectors.
        if not lazy and len(param.shape) == 0 and len(input_param.shape) == 1 and \
                input_param.shape[0] == 1:
            input_param = input_param[0]
        if not lazy and input_param.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{input_param.shape} from checkpoint, the shape in current model "
                              f"is {param.shape}.")
            continue
        if param.is_meta and not input_param.is_meta and not assign:
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a "
                          "meta parameter in the current model, which is a no-op. (Did you "
                          "mean to pass `assign=True` to assign items in the state dictionary "
                          "to their corresponding key in the module instead of copying them "
                          "in place?)", stacklevel=2)
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param,
                                                    requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(self, name, input_param)
                else:
                    param.copy_(input_param)
        except Exception as error:  # noqa: BLE001 (reported in the error list, as PyTorch does)
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                              f"the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {input_param.size()}, an exception occurred : "
                              f"{error.args}.")
    extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if getattr(type(self), "set_extra_state", set_extra_state) is not set_extra_state:
        if extra_key in state_dict:
            self.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if not key.startswith(prefix) or key == extra_key:
                continue
            head = key[len(prefix):].split(".", 1)
            # A dotted remainder must belong to a child module.
            if len(head) > 1:
                if head[0] not in self._modules:
                    unexpected_keys.append(key)
            elif head[0] not in local_state:
                unexpected_keys.append(key)


def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
    """Copy parameters and buffers from `state_dict` into this module and its descendants;
    returns (missing_keys, unexpected_keys). With `strict`, any mismatch raises RuntimeError.
    `assign=True` puts the state dict's tensors in place of the module's (Parameters keep
    their requires_grad)."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list = []
    unexpected_keys: list = []
    error_msgs: list = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state_dict, prefix=""):
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                     missing_keys, unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in local_state_dict.items()
                               if k.startswith(child_prefix)}
                load(child, child_state, child_prefix)
        incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace.")

    load(self, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            self.__class__.__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)
