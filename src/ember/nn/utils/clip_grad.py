"""Gradient clipping: the total norm of many gradients (`get_total_norm`), rescaling them to a
maximum norm (`clip_grads_with_norm_`, `clip_grad_norm_`) and clamping them (`clip_grad_value_`).
`foreach` (by default, for plain tensors) takes the `_foreach_*` list ops, as PyTorch's does."""
from __future__ import annotations

import warnings

import ember

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _tensors(values):
    if isinstance(values, ember.Tensor):
        return [values]
    return list(values)


def _grads(parameters):
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def _by_device_and_dtype(tensors):
    """The tensors grouped by (device, dtype), in first-seen order (PyTorch's grouping, so the
    casts and list ops come in its order)."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _use_foreach(foreach, group) -> bool:
    """PyTorch's choice: the list ops when asked, or by default for plain tensors (its CPU and
    CUDA kernels both take them)."""
    if foreach is not None:
        return bool(foreach)
    return all(type(t) is ember.Tensor or type(t) is ember.nn.Parameter for t in group)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (the norm of them all joined into one vector)."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return ember.tensor(0.0)
    first_device = tensors[0].device
    norms = []
    with ember.no_grad():
        for group in _by_device_and_dtype(tensors).values():
            if _use_foreach(foreach, group):
                norms.extend(ember._foreach_norm(group, norm_type))
            else:
                norms.extend(ember.linalg.vector_norm(g, norm_type) for g in group)
        total = ember.linalg.vector_norm(ember.stack([n.to(first_device) for n in norms]),
                                         norm_type)
    if error_if_nonfinite and ember.logical_or(total.isnan(), total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the parameters' gradients in place by max_norm / (total_norm + 1e-6), at most 1."""
    grads = _grads(parameters)
    if not grads:
        return
    with ember.no_grad():
        coefficient = ember.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for (device, _), group in _by_device_and_dtype(grads).items():
            on_device = coefficient.to(device)
            if _use_foreach(foreach, group):
                ember._foreach_mul_(group, on_device)
            else:
                for g in group:
                    g.mul_(on_device)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale the parameters' gradients so that their total norm is at most max_norm;
    returns the total norm before clipping."""
    parameters = _tensors(parameters)
    grads = _grads(parameters)
    if not grads:
        return ember.tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the parameters' gradients in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with ember.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
