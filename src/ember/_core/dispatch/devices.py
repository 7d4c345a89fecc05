"""Which device a call runs on: all its tensors' device, with PyTorch's allowance for zero-dim
CPU tensors (they act as scalars beside tensors on any device)."""
from __future__ import annotations

from ember._core.device import CPU


def common_device(op, tensors):
    device = None
    for t in tensors:
        d = t._device
        if device is None or d is device:
            device = d
            continue
        # A zero-dim CPU tensor may meet a tensor on any device (it acts as a scalar).
        if d is CPU and t._data.ndim == 0:
            continue
        if device is CPU and _zero_dim_cpu_only(tensors, device):
            device = d
            continue
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{device} and {d}! (when checking arguments for {op.schema.name})")
    return CPU if device is None else device


def _zero_dim_cpu_only(tensors, device):
    return all(t._device is not device or t._data.ndim == 0 for t in tensors)
