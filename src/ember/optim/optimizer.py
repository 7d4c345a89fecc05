"""`Optimizer`: parameter groups, per-parameter state, `zero_grad`, state dicts in PyTorch's
layout, and step / state-dict hooks. Each algorithm (sgd.py, adam.py ...) defines `step`.

NOTE [optimizer state layout]: `state` maps each parameter (the Parameter object) to a dict of
its buffers, as in PyTorch; `state_dict()` replaces parameters by their position across all
groups (0, 1, ...) and keeps every group's hyper-parameters, so a state dict saved by PyTorch's
optimizer loads into ember's and the other way round. Loading casts floating state to the
parameter's dtype and device, except `step`, which stays as saved (a float32 scalar tensor).

Every element-wise algorithm (SGD, Adam/AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam,
Adadelta, ASGD, Rprop) writes its update once in list ops (optim/_lists.py, NOTE [optimizer
updates as ops]): `_foreach_*` registry ops or per-tensor Tensor ops, so meta tensors, modes and
subclasses see them as PyTorch's. Adafactor, Muon and LBFGS call Tensor ops directly.
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from ember._core.dispatch.process_state import state as _dispatch_state
from ember._tensor import Tensor
from ember.utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_post_hook",
           "register_optimizer_step_pre_hook", "required"]


class _RequiredParameter:
    """The default of a hyper-parameter that must be given (`lr` of SGD in old PyTorch)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` before every optimizer's step."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _with_step_hooks(step):
    """Wrap a subclass's `step` so the step hooks run around it."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_in_step"):
            # A subclass's step calling its base's: the hooks run once, around the outer one.
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            if _dispatch_state.slow:     # NOTE [record_function is an op]: a mode sees the range
                from ember.profiler import record_function
                with record_function(f"Optimizer.step#{type(self).__name__}.step"):
                    return _hooked_step(step, self, args, kwargs)
            return _hooked_step(step, self, args, kwargs)
        finally:
            self._in_step = False
    wrapper._hooked = True
    return wrapper


def _hooked_step(step, self, args, kwargs):
    if _global_step_pre_hooks or self._optimizer_step_pre_hooks:
        for hook in chain(_global_step_pre_hooks.values(),
                          self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}.")
                args, kwargs = result
    out = step(self, *args, **kwargs)
    self._opt_called = True
    for hook in chain(self._optimizer_step_post_hooks.values(),
                      _global_step_post_hooks.values()):
        hook(self, args, kwargs)
    return out


_HOOK_TABLES = frozenset((
    "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks"))


class Optimizer:
    """Base class of the optimizers: `Optimizer(params, defaults)` where `params` is an
    iterable of tensors, of (name, tensor) pairs, or of dicts (parameter groups)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _with_step_hooks(step)

    def __getattr__(self, name: str):
        # NOTE [optimizers without Optimizer.__init__]: wrappers (Lookahead and the like) often
        # subclass Optimizer without calling its __init__, as PyTorch allows; the hook tables
        # they then lack are made empty on first use. Only reached when lookup fails.
        if name in _HOOK_TABLES:
            table = self.__dict__[name] = OrderedDict()
            return table
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyper-parameters (others from defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        extracted, names = [], []
        for item in param_group["params"]:
            if isinstance(item, tuple):
                names.append(item[0])
                extracted.append(item[1])
            else:
                extracted.append(item)
        if names and len(names) != len(extracted):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        if names:
            param_group["param_names"] = names
        param_group["params"] = extracted
        for param in extracted:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__name__)
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in extracted}) != len(extracted):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see github.com/pytorch/pytorch/"
                          "issues/40967 for more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in group) != ("param_names" in param_group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if not seen.isdisjoint(id(p) for p in extracted):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None, or to zeros in place)."""
        if _dispatch_state.slow:         # NOTE [record_function is an op]: a mode sees the range
            from ember.profiler import record_function
            with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
                self._zero_grad(set_to_none)
            return
        self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none):
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    # ------------------------------------------------------------------ hooks
    def _add_hook(self, table, hook, prepend=False) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` before this optimizer's step; may return new
        (args, kwargs)."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` after this optimizer's step."""
        return self._add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook,
                                           prepend: bool = False) -> RemovableHandle:
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict:
        """{'state': {index: buffers}, 'param_groups': [hyper-parameters + 'params': indices]}
        (NOTE [optimizer state layout])."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for offset, param in enumerate(group["params"], start):
                index_of.setdefault(id(param), offset)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(group["params"])
            groups.append(packed)
        state = {index_of[id(p)]: value for p, value in self.state.items()
                 if isinstance(p, Tensor) and id(p) in index_of}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state dict made by `state_dict()` (of ember or PyTorch)."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {old: p for g, s in zip(groups, saved_groups)
                  for old, p in zip(s["params"], g["params"])}
        state: defaultdict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = {k: _cast_state(param, v, k) for k, v in value.items()} \
                    if isinstance(value, dict) else value
            else:
                state[key] = value
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in _HOOK_TABLES:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        for group in self.param_groups:
            for key, default in self.defaults.items():
                group.setdefault(key, default)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n"
            text += f"Parameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _cast_state(param, value, key):
    """A loaded state entry on the parameter's device (and dtype if floating; `step` keeps
    its dtype)."""
    if not isinstance(value, Tensor):
        return value
    if key == "step":
        return value
    if param.is_floating_point() and value.is_floating_point():
        return value.to(dtype=param.dtype, device=param.device)
    return value.to(device=param.device)


def zeros_state(param):
    """A zero buffer shaped and strided like `param` (memory_format=preserve)."""
    from ember import zeros_like
    return zeros_like(param)


def scalar_step(value: float = 0.0):
    """The `step` entry of a state: a scalar tensor in PyTorch's scalar dtype (float64 when
    the default dtype is float64, else float32)."""
    import ember
    dtype = ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32
    return ember.tensor(value, dtype=dtype)


def as_float(value) -> float:
    """A hyper-parameter given as a number or a one-element tensor."""
    return float(value.item()) if isinstance(value, Tensor) else value


class step_grad_mode:
    """An optimizer step's grad mode (its `differentiable` default), switched as PyTorch's step
    switches it: once on entry and back on exit (NOTE [grad mode switches reach function
    modes], autograd/grad_mode.py)."""

    __slots__ = ("mode", "prev")

    def __init__(self, optimizer):
        self.mode = bool(optimizer.defaults.get("differentiable"))
        self.prev = True

    def __enter__(self):
        from ember.autograd import grad_mode
        self.prev = grad_mode._state.grad_enabled
        grad_mode._switch(self.mode)

    def __exit__(self, *exc):
        from ember.autograd import grad_mode
        grad_mode._switch(self.prev)
        return False


def run_closure(closure):
    if closure is None:
        return None
    from ember import enable_grad
    with enable_grad():
        return closure()


# NOTE [an observed step reads as PyTorch's]: a TorchFunctionMode (or a parameter's class that
# overrides __torch_function__) sees an optimizer step's property reads and checks as well as its
# ops: PyTorch's `_init_group` reads `p.grad` three times and `p.grad.is_sparse` once per
# parameter (Adam's also asks `torch.is_complex(p)`, and makes the parameter's state there), its
# default foreach choice reads the first parameter's device, and its single-tensor Adam asks each
# parameter `is_complex` and reads its device before the moments. While something can observe
# the step (`state.entry`) ember's steps make the same reads in that order
# (`params_with_grad`, `_lists.use_foreach`, `EACH.reads_of_single_tensor_adam`); the plain step
# reads each gradient once.

def params_with_grad(group, each=None, ask_complex=False):
    """(params, grads) of the group's parameters that have a gradient; `each(param)` runs on
    each of them in turn (the state it makes). NOTE [an observed step reads as PyTorch's]."""
    params, grads = [], []
    if _dispatch_state.entry:
        return _params_with_grad_observed(group, each, ask_complex)
    for param in group["params"]:
        grad = param.grad
        if grad is not None:
            if grad.is_sparse:
                raise RuntimeError("sparse gradients are not supported by this optimizer")
            params.append(param)
            grads.append(grad)
            if each is not None:
                each(param)
    return params, grads


def _params_with_grad_observed(group, each, ask_complex):
    import ember
    params, grads = [], []
    for param in group["params"]:
        if param.grad is not None:
            if ask_complex:
                ember.is_complex(param)
            params.append(param)
            if param.grad.is_sparse:
                raise RuntimeError("sparse gradients are not supported by this optimizer")
            grads.append(param.grad)
            if each is not None:
                each(param)
    return params, grads


def check_hyper(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
