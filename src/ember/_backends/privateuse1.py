"""Registering an out-of-tree back-end (a "privateuse1" device) and its kernels; the public
face is `ember.utils.backend_registration`, which re-exports these functions.

How a plug-in uses them is shown there. Ops without a registered kernel run the shared `xp`
kernel on the back-end's array module.
"""
from __future__ import annotations

from ember._backends.registry import Backend, register_backend
from ember._core import device as _device
from ember._core.checks import _check
from ember._core.registry import OPS


def rename_privateuse1_backend(backend_name: str) -> None:
    """Name the privateuse1 device type: `ember.device(backend_name)` becomes valid."""
    current = _device.privateuse1_name()
    if current == backend_name:
        return
    _check(current == "privateuseone", lambda: (
        f"ember.register_privateuse1_backend() has already been set! Current backend: "
        f"{current}"))
    _device.rename_privateuse1(backend_name)


register_privateuse1_backend = rename_privateuse1_backend


def _get_privateuse1_backend_name() -> str:
    return _device.privateuse1_name()


def register_device_backend(name: str, xp, to_host, from_host) -> Backend:
    """Tell ember how tensors of device type `name` hold data: the NumPy-like module `xp`,
    and the copies to and from host NumPy arrays."""
    backend = Backend(name, xp, to_host, from_host)
    register_backend(backend)
    return backend


def register_kernel(op_name: str, device_type: str, kernel) -> None:
    """Run `kernel(xp, *args)` for op `op_name` ("add.Tensor") on `device_type` tensors."""
    _check(op_name in OPS, lambda: f"register_kernel: no op named '{op_name}'")
    OPS[op_name].register_kernel(device_type, kernel)


def generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True,
                                             for_packed_sequence=True, for_storage=False,
                                             unsupported_dtype=None) -> None:
    """Add `Tensor.<name>()` (move there) and `Tensor.is_<name>` for the renamed device."""
    name = _device.privateuse1_name()
    _check(name != "privateuseone", "rename the privateuse1 backend first")
    from ember._core import dispatch
    Tensor = dispatch.Tensor        # (the class ember._tensor defines and hands the dispatcher)
    if for_tensor:
        def to_backend(self, device=None, non_blocking=False, **kwargs):
            index = device if isinstance(device, int) else None
            target = _device.device(name, index) if index is not None else _device.device(name)
            return self.to(target, non_blocking=non_blocking)
        to_backend.__name__ = name
        setattr(Tensor, name, to_backend)
        setattr(Tensor, f"is_{name}", property(lambda self: self.device.type == name))
