"""Tensor attributes and methods about the tensor object rather than its values: grad_dtype
(the dtype autograd gives the leaf's gradient), name, module_load (how load_state_dict puts a
value into a parameter), map2_, and Tensor.index, which needs PyTorch's first-class dimensions.
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend
from ember._ops.tensor_storage import _element_name

# --------------------------------------------------------------------------- grad_dtype

# NOTE [grad_dtype]: a leaf's `__dict__["_grad_dtype"]` exists once grad_dtype was set: a dtype
# (incoming gradients are cast to it, autograd/engine.in_grad_dtype) or None (any dtype is
# kept). Unset means the tensor's own dtype, which the engine's gradients have already.


def _check_leaf(self, verb):
    _check(self._grad_fn is None, lambda: f"grad_dtype can only be {verb} on leaf tensors.")


def _grad_dtype(self):
    _check_leaf(self, "accessed")
    return self.__dict__.get("_grad_dtype", self._dtype)


def _set_grad_dtype(self, value):
    _check_leaf(self, "set")
    _check(value is None or isinstance(value, dt.dtype), lambda: (
        f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"))
    grad = self._grad
    _check(grad is None or value is None or grad._dtype is value, lambda: (
        f"Cannot set grad_dtype to '{value._cpp_name}' because there is already a gradient "
        f"with dtype '{_element_name(grad._dtype)}'. Please clear the gradient (.grad = None) "
        "before changing grad_dtype, or ensure the new grad_dtype matches the existing "
        "gradient's dtype."))
    self.__dict__["_grad_dtype"] = value


def check_assigned_grad_dtype(self, grad) -> None:
    """The `.grad = value` check when value's dtype is not the tensor's: allowed when
    grad_dtype is None or that dtype."""
    wanted = self.__dict__.get("_grad_dtype", self._dtype)
    _check(wanted is None or grad._dtype is wanted, lambda: (
        f"attempting to assign a gradient with dtype '{_element_name(grad._dtype)}' to a tensor "
        f"with grad_dtype '{wanted._cpp_name}'. The gradient must match the tensor's grad_dtype "
        "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
        "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
        "dtypes of a tensor and its gradient may break downstream systems that assume they "
        "match."))


register_frontend("grad_dtype", function=False,
                  method=property(_grad_dtype, _set_grad_dtype,
                                  doc="The dtype autograd gives this leaf's .grad (its own "
                                      "dtype unless set; None: any)."))(lambda self: None)


# --------------------------------------------------------------------------- name

def _name(self):
    return None


register_frontend("name", function=False,
                  method=property(_name, doc="The tensor's name: None (ember has no named "
                                             "tensors)."))(lambda self: None)


# --------------------------------------------------------------------------- module_load

def module_load(self, other, assign=False):
    """Tensor.module_load(other, assign=False) -> Tensor: the value `load_state_dict` swaps
    into this parameter or buffer when swapping is on: `other` detached (assign=True), or
    this tensor with other's values copied in, detached. A subclass overrides it to change how
    state-dict values are converted."""
    if _state.entry and _wants(locals()):
        return _handle(module_load, locals())
    if assign:
        return other.detach()
    return self.copy_(other).detach()


register_frontend("module_load", function=False)(module_load)


# --------------------------------------------------------------------------- map2_

def map2_(self, x, y, callable):
    """Tensor.map2_(x, y, callable) -> Tensor: replace every element a of self (a CPU tensor)
    by callable(a, b, c), b and c the matching elements of `x` and `y` broadcast to self's
    shape."""
    if _state.entry and _wants(locals()):
        return _handle(map2_, locals())
    from ember._ops.misc import _python_callable_checks, map_elements
    for name, position, value in (("x", 1, x), ("y", 2, y)):
        _check_type(isinstance(value, dispatch.Tensor), lambda name=name, position=position,
                    value=value: (f"map2_(): argument '{name}' (position {position}) must be "
                                  f"Tensor, not {type(value).__name__}"))
    _python_callable_checks(self, "map2_", (x, y))
    for name, value in (("x", x), ("y", y)):
        _check_type(value._dtype is self._dtype, lambda name=name, value=value: (
            f"map2_: expected {self.type()} for argument '{name}' (got {value.type()})"))
    return map_elements(self, (x, y), callable)


register_frontend("map2_", function=False)(map2_)
