"""`Module`: the base class of every layer and model.

A Module keeps three ordered tables, `_parameters`, `_buffers` and `_modules`; assigning a
`Parameter`, a `Buffer` or a `Module` to an attribute files it in the right table (and removes
the name from the others), and attribute reads fall back to the tables. Names, orders and
prefixes of `named_parameters`, `named_modules` and `state_dict` follow PyTorch's, so state
dicts are interchangeable. Neighbours: hooks and the hooked call in module_hooks.py (backward
hooks in module_backward_hooks.py), state dicts in module_state.py.

NOTE [the plain module call]: `module(x)` is `Module._call_impl`, which runs `forward` directly
when neither the module nor the process has a forward or backward hook (four dicts of the module
and four global dicts, all empty); only otherwise does it walk the hook lists
(module_hooks.call_with_hooks). Keep that test first and free of function calls.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

from ember._tensor import Tensor
from ember.nn.modules import module_convert as _convert
from ember.nn.modules import module_hooks as _hooks
from ember.nn.modules import module_state as _state
from ember.nn.modules.module_hooks import (
    global_backward_hooks as _global_backward_hooks,
)
from ember.nn.modules.module_hooks import (
    global_backward_pre_hooks as _global_backward_pre_hooks,
)
from ember.nn.modules.module_hooks import (  # noqa: F401
    global_buffer_registration_hooks as _global_buffer_registration_hooks,
)
from ember.nn.modules.module_hooks import global_forward_hooks as _global_forward_hooks
from ember.nn.modules.module_hooks import (  # noqa: F401
    global_forward_hooks_always_called as _global_forward_hooks_always_called,
)
from ember.nn.modules.module_hooks import (  # noqa: F401
    global_forward_hooks_with_kwargs as _global_forward_hooks_with_kwargs,
)
from ember.nn.modules.module_hooks import (
    global_forward_pre_hooks as _global_forward_pre_hooks,
)
from ember.nn.modules.module_hooks import (  # noqa: F401
    global_module_registration_hooks as _global_module_registration_hooks,
)
from ember.nn.modules.module_hooks import (  # noqa: F401
    global_parameter_registration_hooks as _global_parameter_registration_hooks,
)
from ember.nn.modules.module_hooks import (
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ember.nn.modules.module_state import _IncompatibleKeys  # noqa: F401
from ember.nn.parameter import Buffer, Parameter

__all__ = [
    "Module",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# The tables every Module has (a fresh empty one each), in PyTorch's order.
_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    # Blank lines stay empty, as in PyTorch's printing.
    return first + "\n" + "\n".join(" " * spaces + line if line.strip() else ""
                                    for line in lines)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


def _typename(value) -> str:
    from ember import typename
    return typename(value)


class Module:
    """Base class of all neural-network modules; subclasses define `forward` (and usually
    `__init__`, registering parameters, buffers and child modules as attributes)."""

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _compiled_call_impl = None
    T_destination = TypeVar("T_destination", bound=dict)
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        state = self.__dict__
        state["training"] = True
        state["_parameters"] = {}
        state["_buffers"] = {}
        state["_non_persistent_buffers_set"] = set()
        state["_is_full_backward_hook"] = None
        for table in _HOOK_TABLES:
            state[table] = OrderedDict()
        state["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer: state that is not trained (running means...). `persistent=False`
        keeps it out of the state_dict; `None` registers the name without a tensor."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer name", "_buffers")
        if tensor is not None and not (isinstance(tensor, Tensor)
                                       or hasattr(tensor, "__torch_function__")):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _hooks.global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter (or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(self, name, "parameter name", "_parameters")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _hooks.global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Add a child module under `name` (None allowed)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _hooks.global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias of `add_module`."""
        self.add_module(name, module)

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name: str):
        # Only reached when normal lookup fails: look in the three tables.
        state = self.__dict__
        if "_parameters" in state:
            table = state["_parameters"]
            if name in table:
                return table[name]
        if "_buffers" in state:
            table = state["_buffers"]
            if name in table:
                return table[name]
        if "_modules" in state:
            table = state["_modules"]
            if name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        state = self.__dict__
        params = state.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_name(name, state, self._buffers, self._modules,
                         self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = state.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_name(name, state, self._parameters, self._buffers,
                         self._non_persistent_buffers_set)
            modules[name] = _run_module_registration_hooks(self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _run_module_registration_hooks(self, name, value)
            return
        buffers = state.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not (isinstance(value, Tensor)
                                          or hasattr(value, "__torch_function__")):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        # Modules pickled by older versions may lack some tables: give them empty ones.
        for table in _HOOK_TABLES:
            if table not in self.__dict__:
                self.__dict__[table] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members_fn(module):
                if value is None or value in seen:
                    continue
                if remove_duplicate:
                    seen.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def parameters(self, recurse: bool = True):
        """The parameters (of submodules too when `recurse`), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """(dotted name, parameter) pairs, depth first in registration order."""
        yield from self._named_members(lambda module: module._parameters.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True):
        """The buffers (persistent or not), each once."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        """(dotted name, buffer) pairs."""
        yield from self._named_members(lambda module: module._buffers.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self):
        """The immediate child modules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """(name, immediate child module) pairs, each module once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True):
        """Every module of the tree, this one first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """(dotted name, module) pairs, depth first, this module named `prefix`."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path `target` ("" is this module)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")  # noqa: TRY004
        return module

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put `module` at dotted path `target` (whose parent must exist; with `strict`, the
        target itself too)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(  # noqa: TRY004
                "`" + "module" + f"` is not an nn.Module, found {type(module)}")
        *path, last = target.split(".")
        parent = self.get_submodule(".".join(path)) if path else self
        if strict and not hasattr(parent, last):
            raise AttributeError(parent._get_name() + " has no attribute `" + last + "`")
        if hasattr(parent, last) and not isinstance(getattr(parent, last), Module):
            raise AttributeError("`" + last + "` is not an nn.Module")
        setattr(parent, last, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")  # noqa: TRY004
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    get_extra_state = _state.get_extra_state
    set_extra_state = _state.set_extra_state

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode: bool = True) -> Module:
        """Set training mode (dropout active, batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")  # noqa: TRY004
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode: `train(False)`."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set `requires_grad` of every parameter."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None, or to zeros in place)."""
        # `param.grad` read where PyTorch reads it: a TorchFunctionMode sees the same calls.
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
                continue
            if param.grad.grad_fn is not None:
                param.grad.detach_()
            else:
                param.grad.requires_grad_(False)
            param.grad.zero_()

    def share_memory(self) -> Module:
        """Tensor.share_memory_ on every parameter and buffer. ember's CPU tensors live in the
        process's memory, shared by its threads already; a tensor type without
        `share_memory_` is left as it is."""
        return self._apply(_share_memory)

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn, recurse: bool = True) -> Module:
        return _convert.apply_to_tensors(self, fn, recurse)

    def apply(self, fn) -> Module:
        """Call `fn(module)` on every submodule (children first) and then on this one."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move or cast parameters and buffers: `to(device)`, `to(dtype)`, `to(tensor)`,
        `to(device, dtype, non_blocking)`, `to(memory_format=...)`; only floating and complex
        tensors change dtype."""
        return _convert.convert_module(self, args, kwargs)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def ipu(self, device=None) -> Module:
        return self._apply(lambda t: t.ipu(device))

    def xpu(self, device=None) -> Module:
        return self._apply(lambda t: t.xpu(device))

    def mtia(self, device=None) -> Module:
        return self._apply(lambda t: t.mtia(device))

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move to `device` with uninitialised storage (for modules built on `meta`)."""
        from ember import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's call in place, with `ember.compile`'s arguments. Not built
        yet: the arguments are checked (PyTorch's errors) and calls stay eager; wrap the
        module with `ember.compile(module)` to capture it (NOTE [how capture runs])."""
        import ember
        ember.compile(self._call_impl, *args, **kwargs)

    # ------------------------------------------------------------------ calling
    def _call_impl(self, *args, **kwargs):
        # NOTE [the plain module call]
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    # One call, not two: `module(x)` goes straight to _call_impl (NOTE [the plain module call]).
    __call__ = _call_impl

    def _slow_forward(self, *input, **kwargs):
        return self.forward(*input, **kwargs)

    _get_backward_hooks = _hooks.get_backward_hooks
    _get_backward_pre_hooks = _hooks.get_backward_pre_hooks
    _maybe_warn_non_full_backward_hook = _hooks.maybe_warn_non_full_backward_hook

    # ------------------------------------------------------------------ state dict
    _save_to_state_dict = _state.save_to_state_dict
    state_dict = _state.state_dict
    _load_from_state_dict = _state.load_from_state_dict
    load_state_dict = _state.load_state_dict

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in `repr` (subclasses override)."""
        return ""

    def _get_name(self) -> str:
        return self.__class__.__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    # ------------------------------------------------------------------ hooks
    register_forward_pre_hook = _hooks.register_forward_pre_hook
    register_forward_hook = _hooks.register_forward_hook
    register_full_backward_pre_hook = _hooks.register_full_backward_pre_hook
    register_full_backward_hook = _hooks.register_full_backward_hook
    register_backward_hook = _hooks.register_backward_hook
    register_state_dict_pre_hook = _hooks.register_state_dict_pre_hook
    register_state_dict_post_hook = _hooks.register_state_dict_post_hook
    _register_state_dict_hook = _hooks.register_state_dict_hook
    register_load_state_dict_pre_hook = _hooks.register_load_state_dict_pre_hook
    _register_load_state_dict_pre_hook = _hooks.register_load_state_dict_pre_hook_private
    register_load_state_dict_post_hook = _hooks.register_load_state_dict_post_hook


def _check_name(module, name, what, table) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{what} should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{what} can\'t contain "."')
    if name == "":
        raise KeyError(f'{what} can\'t be empty string ""')
    if hasattr(module, name) and name not in getattr(module, table):
        raise KeyError(f"attribute '{name}' already exists")


def _remove_name(name, *tables) -> None:
    for table in tables:
        if name in table:
            if isinstance(table, dict):
                del table[name]
            else:
                table.discard(name)


def _run_module_registration_hooks(module, name, value):
    for hook in _hooks.global_module_registration_hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def _share_memory(tensor):
    share = getattr(tensor, "share_memory_", None)
    return share() if share is not None else tensor
