"""`LazyModuleMixin`: modules whose parameter shapes come from their first input.

How a layer family writes a lazy layer (LazyLinear, LazyConv2d, LazyBatchNorm1d ...), as in
PyTorch:

    class LazyLinear(LazyModuleMixin, Linear):
        cls_to_become = Linear              # the class the module becomes once initialised
        weight: UninitializedParameter
        bias: UninitializedParameter

        def __init__(self, out_features, bias=True, device=None, dtype=None):
            factory_kwargs = {"device": device, "dtype": dtype}
            super().__init__(0, 0, False)   # Linear.__init__ with empty shapes ...
            self.weight = UninitializedParameter(**factory_kwargs)   # ... then placeholders
            self.out_features = out_features
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)

        def reset_parameters(self):
            # Linear.__init__ calls this before the shapes are known: do nothing then.
            if not self.has_uninitialized_params() and self.in_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input):
            if self.has_uninitialized_params():
                with ember.no_grad():
                    self.in_features = input.shape[-1]
                    self.weight.materialize((self.out_features, self.in_features))
                    if self.bias is not None:
                        self.bias.materialize((self.out_features,))
                    self.reset_parameters()

What the mixin does:
- a forward pre-hook (with kwargs) calls `initialize_parameters(*args, **kwargs)` on the first
  call, checks nothing is left uninitialised (RuntimeError otherwise), removes itself and the
  load hook, and turns the module into `cls_to_become` (when set), so later calls are plain;
- a load_state_dict pre-hook materialises a placeholder to the shape of the tensor being loaded,
  so a lazy module can load a trained state dict before any call;
- `_save_to_state_dict` puts placeholders in the state dict as they are (not detached: every op
  on a placeholder raises), as PyTorch does.
Buffers work the same with `UninitializedBuffer` (Lazy BatchNorm's running statistics).

The mixin must come first in the bases, and the layer's `__init__` must call
`super().__init__(...)` (which reaches the mixin first, then the layer class).
`LazyModuleMixin` is reached as `ember.nn.modules.lazy.LazyModuleMixin`, where PyTorch has it
(`torch.nn` does not re-export it, so neither does `ember.nn`).
"""
from __future__ import annotations

import itertools

from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import is_lazy

# Empty so that `ember.nn` does not re-export the mixin (torch.nn does not either).
__all__: list[str] = []


class LazyModuleMixin:
    """Mixin for modules that infer their parameter shapes from the first input: see the
    module docstring."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars \
                    else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Give each placeholder the shape of the initialised tensor about to be loaded."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                input_param = state_dict[key]
                if not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise the placeholders from the first call's arguments (layers override)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module is still a placeholder."""
        return any(is_lazy(value) for value in
                   itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook of the first call."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")
