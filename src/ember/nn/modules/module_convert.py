"""Converting a Module's tensors: `Module._apply` (fn on every parameter, gradient and buffer)
and `Module.to`'s argument handling.

NOTE [parameters keep their identity]: a conversion replaces a parameter's values in place
(`param.data = fn(param)`, and the same for its gradient), so the Parameter objects an
optimizer holds stay the module's parameters, as with PyTorch's default. Buffers are plain
tensors and are replaced in the table.
"""
from __future__ import annotations

import warnings

from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import UninitializedTensorMixin


def apply_to_tensors(module, fn, recurse=True):
    """`fn` on the parameters, their gradients and the buffers of `module` (and below)."""
    if recurse:
        for child in module.children():
            child._apply(fn)
    for param in module._parameters.values():
        if param is None:
            continue
        with no_grad():
            param_applied = fn(param)
        grad = param.grad
        # NOTE [parameters keep their identity]
        param.data = param_applied
        if grad is not None:
            with no_grad():
                grad_applied = fn(grad)
            param.grad.data = grad_applied
    buffers = module._buffers
    for key, buf in buffers.items():
        if buf is None:
            continue
        if isinstance(buf, UninitializedTensorMixin):
            # A placeholder stays one (its new dtype and device are what it will materialise
            # with): ember's casts give plain tensors where PyTorch re-wraps the subclass.
            buf.data = fn(buf)
        else:
            buffers[key] = fn(buf)
    return module


def convert_module(module, args, kwargs):
    """Module.to(*args, **kwargs)."""
    from ember._tensor import _parse_to
    kwargs = dict(kwargs)
    memory_format = kwargs.pop("memory_format", None)
    dtype, device, _, non_blocking = _parse_to(None, args, kwargs)
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        if dtype.is_complex:
            warnings.warn(
                "Complex modules are a new feature under active development whose design may "
                "change, and some modules might not work as expected when using complex "
                "tensors as parameters or buffers. Please file an issue at "
                "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml if a "
                "complex module does not work as expected.", stacklevel=3)

    def convert(t):
        target = dtype if t.is_floating_point() or t.is_complex() else None
        if memory_format is not None and t.dim() in (4, 5):
            return t.to(device=device, dtype=target, non_blocking=non_blocking,
                        memory_format=memory_format)
        return t.to(device=device, dtype=target, non_blocking=non_blocking)

    return module._apply(convert)
