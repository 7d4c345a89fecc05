"""Out-of-tree back-ends: the device-module registry (`ember.<device type>`) and entry-point
autoloading. How a plug-in registers its back-end and kernels is in privateuse1.py.

At `import ember`, every entry point in the group `ember.backends` is loaded and called, unless
the environment variable EMBER_DEVICE_BACKEND_AUTOLOAD is "0". Discovery reads the
`entry_points.txt` of the installed distributions on `sys.path` directly: importing
`importlib.metadata` alone would cost more than all of ember's own import.
"""
from __future__ import annotations

import importlib
import os
import sys

from ember._core.checks import _check

GROUP = "ember.backends"
ENV_VARIABLE = "EMBER_DEVICE_BACKEND_AUTOLOAD"

_device_modules: dict = {}


def register_device_module(ember_module, device_type: str, module) -> None:
    """Attach `module` as `ember.<device_type>` and `sys.modules['ember.<device_type>']`."""
    from ember._core.device import as_device
    device_type = as_device(device_type).type
    existing = _device_modules.get(device_type) or getattr(ember_module, device_type, None)
    _check(existing is None or not _is_module(existing), lambda: (
        f"The runtime module of '{device_type}' has already been registered with "
        f"'{_device_modules.get(device_type) or getattr(ember_module, device_type)}'"))
    _device_modules[device_type] = module
    setattr(ember_module, device_type, module)
    sys.modules[f"ember.{device_type}"] = module


def _is_module(value) -> bool:
    return type(value).__name__ == "module"


def get_device_module(device, accelerator_type: str, load_builtin):
    """The module for a device type (`ember.cuda` for 'cuda'); `accelerator_type`'s (the
    caller finds the current accelerator, or 'cpu') when `device` is None. The facade's own
    device modules (cpu, cuda) come from `load_builtin(name)`: they sit above the back-ends."""
    from ember._core.device import device as device_class
    if device is None:
        name = accelerator_type
    elif isinstance(device, device_class):
        name = device.type
    elif isinstance(device, str):
        name = device_class(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    module = _device_modules.get(name)
    if module is None and name in ("cpu", "cuda", "meta"):
        if name == "meta":
            raise RuntimeError("Device 'meta' does not have a corresponding module registered "
                               "as 'torch.meta'.")
        module = load_builtin(name)
    _check(module is not None, lambda: (
        f"Device '{name}' does not have a corresponding module registered as 'ember.{name}'."))
    return module


def _entry_points_text():
    """Yield the text of every installed distribution's entry_points.txt on sys.path."""
    seen = set()
    for entry in sys.path:
        entry = entry or "."
        if entry in seen or not os.path.isdir(entry):
            continue
        seen.add(entry)
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                path = os.path.join(entry, name, "entry_points.txt")
                try:
                    with open(path, encoding="utf-8") as handle:
                        yield handle.read()
                except OSError:
                    continue


def discover(group: str = GROUP):
    """(name, "module:attr") for the entry points of `group`, in discovery order."""
    found = []
    names = set()
    for text in _entry_points_text():
        if f"[{group}]" not in text:
            continue
        in_group = False
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("["):
                in_group = line == f"[{group}]"
                continue
            if in_group and "=" in line and not line.startswith(("#", ";")):
                name, value = (part.strip() for part in line.split("=", 1))
                if name not in names:
                    names.add(name)
                    found.append((name, value.split()[0]))
    return found


def load_entry_point(value: str):
    module_name, _, attribute = value.partition(":")
    target = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        target = getattr(target, part)
    return target


def autoload() -> None:
    """Load and call every `ember.backends` entry point (see the module docstring)."""
    if os.environ.get(ENV_VARIABLE, "1") == "0":
        return
    for name, value in discover():
        try:
            hook = load_entry_point(value)
            if callable(hook):
                hook()
        except Exception as exc:
            raise RuntimeError(
                f"Failed to load the backend extension: {name} ({value}). You can disable "
                f"extension auto-loading with {ENV_VARIABLE}=0.") from exc
