"""Make `import torch` (and every `torch.X`) resolve to ember (and `ember.X`) in this process.

Used by `python -m ember.run script.py` and by notebooks (`ember.utils.alias_torch()`).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys

from ember.utils import _alias_paths as _paths

# The loader and finder follow the import protocol without subclassing importlib.abc's classes:
# importing importlib.abc pulls in importlib.resources, tempfile and more (several ms).


class _AliasLoader:
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        from ember.utils._alias_paths import torch_module
        try:
            return torch_module(spec.name, self.target)
        except ModuleNotFoundError as exc:
            if exc.name and (self.target == exc.name or self.target.startswith(exc.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named '{spec.name}': ember has no '{self.target}' (the module "
                    f"'{spec.name}' is not implemented by ember yet)", name=spec.name) from None
            raise

    def exec_module(self, module):
        # The ember module is already executed; nothing more to run.
        return None


class _TorchAliasFinder:
    """Finds `torch` and `torch.*` as the ember modules of the same path."""

    prefix = "torch"

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.prefix and not fullname.startswith(self.prefix + "."):
            if fullname.startswith("ember.") and _paths.wants_presenting(fullname):
                return _presenting_spec(self, fullname, path, target)
            return None
        ember_name = "ember" + fullname[len(self.prefix):]
        return importlib.util.spec_from_loader(fullname, _AliasLoader(ember_name))

    def find_distributions(self, context=None):
        """`importlib.metadata` asks every finder: for 'torch' (or all) the alias answers."""
        name = getattr(context, "name", None)
        if name is not None and name.lower().replace("-", "_") != self.prefix:
            return iter(())
        return iter((_distribution(),))


class _PresentingLoader:
    """Runs an ember module, then gives its classes PyTorch's `__module__`."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _paths.present(module)


def _presenting_spec(finder, fullname, path, target):
    for other in sys.meta_path:
        if other is finder or not hasattr(other, "find_spec"):
            continue
        spec = other.find_spec(fullname, path, target)
        if spec is not None:
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _PresentingLoader(spec.loader)
            return spec
    return None


_finder = _TorchAliasFinder()
_shim: list = []


def _distribution():
    """The installed-distribution record `importlib.metadata` gives for 'torch' under the
    alias: PyTorch's name at the API level ember implements (NOTE [the alias answers as
    PyTorch])."""
    if not _shim:
        import importlib.metadata as metadata
        import pathlib

        from ember import version

        class AliasDistribution(metadata.Distribution):
            def read_text(self, filename):
                if filename in ("METADATA", "PKG-INFO"):
                    return (f"Metadata-Version: 2.1\nName: torch\n"
                            f"Version: {version.api_version}\n"
                            f"Summary: ember {version.ember_version}, answering for PyTorch\n")
                return None

            def locate_file(self, path):
                return pathlib.Path(version.__file__).parent.parent / path

        _shim.append(AliasDistribution())
    return _shim[0]


# NOTE [the alias answers as PyTorch]: only while `torch` is aliased (ember.run, alias_torch())
# does ember say it is PyTorch: `torch.__version__` is the API level ember implements (a
# TorchVersion, comparable with tuples and version strings), `importlib.metadata.version("torch")`
# answers through the finder above, and ember's public classes present PyTorch's module paths.
# `import ember` alone changes none of this; unalias_torch() undoes it.

def _answer_as_torch(on: bool) -> None:
    import ember
    from ember import version
    from ember.torch_version import TorchVersion
    shown = TorchVersion(version.api_version if on else version.ember_version)
    version.__version__ = ember.__version__ = shown
    # PyTorch's module holds itself as `torch.torch` (libraries annotate `torch.torch.Tensor`).
    if on:
        ember.torch = ember
    else:
        ember.__dict__.pop("torch", None)
    _paths.present_all_loaded(on)


def alias_torch() -> None:
    """From now on in this process, `import torch` gives ember. A real torch already imported
    stays as it is only if it was imported before (its modules are replaced here). Processes
    started from this one with the 'spawn' or 'forkserver' method alias too (NOTE [children
    alias torch too])."""
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    _paths.tables()          # read before the finder, which consults them, is in place
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    _answer_as_torch(True)
    _children_alias(True)


def unalias_torch() -> None:
    """Undo alias_torch(): `import torch` finds the real PyTorch (if installed) again."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    _answer_as_torch(False)
    _children_alias(False)


# NOTE [children alias torch too]: a process started with 'spawn' (torch.multiprocessing.spawn,
# a DataLoader with a spawn context) or 'forkserver' begins a fresh interpreter that imports the
# parent's main script, whose `import torch` would find the real PyTorch. The preparation data
# multiprocessing sends such a child first is unpickled before the script is imported, so one
# more entry whose unpickling calls alias_torch() aliases the child in time (multiprocessing
# ignores keys it does not know). Only aliasing processes (ember.run, alias_torch()) add it.

class _AliasInChild:
    def __reduce__(self):
        return alias_torch, ()


def _preparation_data_with_alias(name, _original=None):
    data = _original(name)
    data["ember_alias_torch"] = _AliasInChild()
    return data


def _children_alias(on: bool) -> None:
    import functools
    from multiprocessing import spawn
    current = spawn.get_preparation_data
    wrapped = getattr(current, "_ember_original", None)
    if on and wrapped is None:
        patched = functools.partial(_preparation_data_with_alias, _original=current)
        patched._ember_original = current
        spawn.get_preparation_data = patched
    elif not on and wrapped is not None:
        spawn.get_preparation_data = wrapped
