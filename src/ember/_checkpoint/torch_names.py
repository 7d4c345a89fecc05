"""ember's objects under PyTorch's global names and back, for pickles that hold whole objects
(a model saved with `torch.save(model)`): NOTE [PyTorch's module paths]."""
from __future__ import annotations

import importlib

from ember._generated.torch_paths import PATHS

# NOTE [PyTorch's module paths]: a pickle names each class by module and qualified name, and
# PyTorch's modules are laid out differently from ember's (MultiheadAttention lives in
# torch.nn.modules.activation, ember's in ember.nn.modules.multihead). The generated table
# (tools/gen_torch_paths.py) maps every public class both have; any other `ember.X` name is
# PyTorch's `torch.X`. Checkpoints write PyTorch's names (so PyTorch loads what ember saves) and
# read them back to ember's; under the alias the same table gives the classes their PyTorch
# `__module__` and makes `torch.<PyTorch's path>` importable (utils/_alias.py).

_REVERSE: dict = {}


def torch_name(module: str, qualname: str):
    """PyTorch's (module, qualname) for ember's `module.qualname`; None when not ember's."""
    found = PATHS.get((module, qualname))
    if found is not None:
        return found
    if module == "ember" or module.startswith("ember."):
        return "torch" + module[len("ember"):], qualname
    return None


def reverse() -> dict:
    """PyTorch (module, qualname) -> ember (module, qualname), for the mapped classes."""
    if not _REVERSE:
        _REVERSE.update({theirs: ours for ours, theirs in PATHS.items()})
    return _REVERSE


def lookup(module: str, qualname: str):
    """The object at `module.qualname` (qualname may be dotted)."""
    value = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def ember_object(module: str, qualname: str):
    """ember's object for PyTorch's global `module.qualname`, or None when the table has none."""
    ours = reverse().get((module, qualname))
    return None if ours is None else lookup(*ours)
