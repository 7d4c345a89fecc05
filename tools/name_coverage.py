"""How many of PyTorch's public names ember has, namespace by namespace.

    python tools/name_coverage.py [namespace ...]     # default: the namespaces users touch

A namespace's public names are its `__all__` where it has one, else what `dir()` shows without a
leading underscore, less modules and classes or functions it imports from outside torch (the
definition tests/test_namespace_coverage.py checks, where the missing names are listed with
their reasons). PyTorch is read here, by the tool, never by ember.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import sys
import types
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))

DEFAULT = ("", "nn", "nn.functional", "optim", "utils.data", "cuda", "backends", "sparse",
           "compiler", "library", "export", "quantization", "utils.dlpack", "autograd", "func",
           "distributions", "linalg", "fft", "special", "amp")


def _wrapped_module(namespace):
    """The module a flag-holding module object wraps (PyTorch's `torch.backends.cudnn` is a
    `PropModule` whose `m` is the real module and whose class holds the flags), else None."""
    if type(namespace) is types.ModuleType or not isinstance(namespace, types.ModuleType):
        return None
    inner = vars(namespace).get("m")
    if isinstance(inner, types.ModuleType) and inner is not namespace and \
            inner.__name__ == namespace.__name__:
        return inner
    return None


def _properties(namespace) -> set:
    """The flags a wrapping module object's class defines (`cudnn.benchmark` ...)."""
    return {name for name, value in vars(type(namespace)).items()
            if not name.startswith("_") and (isinstance(value, property) or
                                              type(value).__name__ == "ContextProp")}


def public_names(namespace) -> frozenset:
    """The public names of a module or class, as the module docstring defines them."""
    listed = getattr(namespace, "__all__", None) if isinstance(namespace, types.ModuleType) \
        else None
    inner = _wrapped_module(namespace)
    if inner is not None:
        return (public_names(inner) - {"m"}) | _properties(namespace)
    names = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # some attributes warn when read
        for name in (listed if listed is not None else dir(namespace)):
            if name.startswith("_") or name == "TYPE_CHECKING":
                continue
            if not hasattr(namespace, name):
                continue            # listed in __all__ but not defined (torch.sparse.solve)
            value = getattr(namespace, name, None)
            if getattr(value, "__module__", None) == "typing":
                continue            # typing helpers a module imports (`Optional`, `Any`)
            if isinstance(value, types.ModuleType):
                if not value.__name__.startswith("torch") or value.__name__ == "torch":
                    continue        # (`torch` itself: the module imports it for its own use)
            elif (inspect.isclass(value) or inspect.isfunction(value)) and \
                    not getattr(value, "__module__", "torch").startswith("torch"):
                continue
            names.add(name)
    return frozenset(names)


def coverage(path: str):
    """(present, total, missing names) of `torch.<path>` in `ember.<path>`."""
    theirs = importlib.import_module("torch" + ("." + path if path else ""))
    oracle = public_names(theirs)
    try:
        ours = importlib.import_module("ember" + ("." + path if path else ""))
    except ImportError:
        return 0, len(oracle), sorted(oracle)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        present = {n for n in oracle if hasattr(ours, n)}
    return len(present), len(oracle), sorted(oracle - present)


def main(argv) -> int:
    for path in argv or DEFAULT:
        present, total, missing = coverage(path)
        share = 100 * present / total if total else 100.0
        print(f"torch{'.' + path if path else '':22} {present:4} of {total:4} ({share:3.0f}%)"
              f"  missing: {' '.join(missing[:12])}{' ...' if len(missing) > 12 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
