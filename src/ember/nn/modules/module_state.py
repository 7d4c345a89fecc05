"""Loading a state dict into a Module tree: `Module.load_state_dict` and the default
`Module._load_from_state_dict` (copy in place under no_grad, or assign with `assign=True`),
with PyTorch's key bookkeeping and error text."""
from __future__ import annotations

from collections import OrderedDict

from ember._tensor import Tensor


def load_own_state(module, state_dict, prefix, local_metadata, strict, missing_keys,
                   unexpected_keys, error_msgs) -> None:
    """Copy this module's own parameters and persistent buffers from `state_dict`."""
    from ember import no_grad
    from ember.nn.parameter import Parameter, is_lazy

    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    persistent_buffers = {k: v for k, v in module._buffers.items()
                          if k not in module._non_persistent_buffers_set}
    local_state = {k: v for k, v in (*module._parameters.items(), *persistent_buffers.items())
                   if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        input_param = state_dict[key]
        if not isinstance(input_param, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(input_param)}")
            continue
        if not is_lazy(param) and input_param.shape != param.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{input_param.shape} from checkpoint, the shape in current model "
                              f"is {param.shape}.")
            continue
        if param.is_meta and not input_param.is_meta and not assign:
            import warnings
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a "
                          "meta parameter in the current model, which is a no-op. (Did you "
                          "mean to pass `assign=True` to assign items in the state dictionary "
                          "to their corresponding key in the module instead of copying them "
                          "in place?)", stacklevel=4)
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param,
                                                    requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(module, name, input_param)
                elif is_lazy(param):
                    param.materialize(input_param.shape)
                    param.copy_(input_param)
                else:
                    param.copy_(input_param)
        except Exception as ex:  # reported the way PyTorch reports a failed copy
            action = "swapping" if assign else "copying"
            error_msgs.append(f'While {action} the parameter named "{key}", whose dimensions '
                              f"in the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {input_param.size()}, an exception occurred : "
                              f"{ex.args}.")
    extra_key = prefix + "_extra_state"
    has_extra = type(module).set_extra_state is not _base_set_extra_state()
    if has_extra:
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if not key.startswith(prefix) or key == extra_key:
                continue
            input_name = key[len(prefix):].split(".", 1)
            if input_name[0] not in module._modules and input_name[0] not in local_state:
                unexpected_keys.append(key)


def _base_set_extra_state():
    from ember.nn.modules.module import Module
    return Module.set_extra_state


def load_state_dict(root, state_dict, strict, assign, incompatible_keys_cls):
    """Module.load_state_dict: walk the tree, collect key mismatches, raise if strict."""
    from collections.abc import Mapping
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
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
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
        incompatible = incompatible_keys_cls(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            out = hook(module, incompatible)
            if out is not None:
                raise RuntimeError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                    "expected to return new values, if incompatible_keys need to be modified,"
                    "it should be done inplace.")

    load(root, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            root.__class__.__name__, "\n\t".join(error_msgs)))
    return incompatible_keys_cls(missing_keys, unexpected_keys)
