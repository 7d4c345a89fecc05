"""The old homes of quantization's modules: `ember.nn.quantized`, `.qat`, `.quantizable` and
`.intrinsic` are aliases of `ember.ao.nn.*`, where the modules live (as PyTorch moved them to
`torch.ao.nn`).

NOTE [nn's quantization namespaces are aliases]: each alias shows its `ember.ao.nn` package's
public names and, on attribute access, its submodules (`ember.nn.quantized.dynamic`). An
`ember.ao.nn` package not written yet makes an alias with no names; the alias fills itself once
the package exists, with nothing to change here.
"""
from __future__ import annotations

import importlib
import importlib.util


def _target(path: str):
    parent = path.rpartition(".")[0]
    importlib.import_module(parent)
    if importlib.util.find_spec(path) is None:
        return None
    return importlib.import_module(path)


def alias(alias_name: str, path: str):
    """(__getattr__, __dir__, __all__) for the alias module `alias_name` of package `path`."""
    module = _target(path)
    names = [] if module is None else list(getattr(
        module, "__all__", [n for n in vars(module) if not n.startswith("_")]))

    def __getattr__(name: str):
        if module is not None and not name.startswith("__"):
            if hasattr(module, name):
                return getattr(module, name)
            if importlib.util.find_spec(f"{path}.{name}") is not None:
                return importlib.import_module(f"{path}.{name}")
        raise AttributeError(f"module '{alias_name}' has no attribute '{name}'")

    def __dir__():
        return sorted(set(names) | {"__all__", "__doc__", "__name__"})

    return __getattr__, __dir__, names
