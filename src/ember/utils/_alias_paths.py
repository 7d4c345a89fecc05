"""Under the alias, ember's public classes present PyTorch's module paths and can be imported
from them (NOTE [PyTorch's module paths], NOTE [the alias answers as PyTorch])."""
from __future__ import annotations

import importlib
import sys
import types

_by_ember_module: dict = {}      # ember module -> [(qualname, PyTorch's module)] (classes)
_by_torch_module: dict = {}      # PyTorch module -> [(name, ember module, qualname)]
_saved: dict = {}                # class -> its ember __module__, while presented


def tables():
    if not _by_torch_module:
        from ember._generated.torch_paths import PATHS
        for (ours, qualname), (theirs, their_qualname) in PATHS.items():
            _by_torch_module.setdefault(theirs, []).append((their_qualname, ours, qualname))
            _by_ember_module.setdefault(ours, []).append((qualname, theirs))
    return _by_ember_module, _by_torch_module


def _lookup(module, qualname: str):
    """The object at `qualname` in `module` (None for a function kept under another name)."""
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


def present(module) -> None:
    """Give the classes `module` (an ember module) defines their PyTorch `__module__`."""
    for qualname, theirs in tables()[0].get(module.__name__, ()):
        value = _lookup(module, qualname)
        if isinstance(value, type) and value not in _saved:
            _saved[value] = value.__module__
            value.__module__ = theirs


def present_all_loaded(on: bool) -> None:
    """`present` every ember module already imported (on), or undo every presentation."""
    if not on:
        for value, module in _saved.items():
            value.__module__ = module
        _saved.clear()
        return
    for name in list(tables()[0]):
        module = sys.modules.get(name)
        if module is not None:
            present(module)


def wants_presenting(ember_name: str) -> bool:
    # Tables not read yet (alias_torch reads them before it installs the finder): no.
    return ember_name in _by_ember_module


def torch_module(torch_name: str, ember_name: str):
    """The module `import <torch_name>` gives under the alias: ember's module of the same path,
    with the classes PyTorch keeps there and ember elsewhere added; a module of those classes
    alone where ember has no module of that path (None when neither)."""
    entries = tables()[1].get(torch_name, ())
    try:
        module = importlib.import_module(ember_name)
    except ModuleNotFoundError as exc:
        if not entries or exc.name is None or not ember_name.startswith(exc.name):
            raise
        module = types.ModuleType(torch_name, f"PyTorch's {torch_name}, as ember's classes")
    for name, ours, qualname in entries:
        if "." not in name and name not in vars(module) and not hasattr(module, name):
            # (hasattr: a name the module loads on first use, NOTE [op families load on first
            # use], is its own already)
            value = _lookup(importlib.import_module(ours), qualname)
            if value is not None:
                setattr(module, name, value)
    return module
