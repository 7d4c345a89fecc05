"""`ember.__config__.show()`: what this ember runs on (versions, BLAS, optional back-ends)."""
from __future__ import annotations

import importlib.util
import platform
import sys

OPTIONAL = ("scipy", "sympy", "cupy", "triton", "mpi4py", "safetensors", "onnx", "tqdm",
            "threadpoolctl")


def _blas() -> str:
    import numpy as np
    config = getattr(np, "show_config", None)
    try:
        info = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{info.get('name', '?')} {info.get('version', '')}".strip()
    except (AttributeError, KeyError, TypeError):
        return "unknown" if config is None else "see numpy.show_config()"


def _optional_versions() -> dict:
    """Which optional dependencies are installed, without importing them."""
    from importlib import metadata
    found = {}
    for name in OPTIONAL:
        if importlib.util.find_spec(name) is None:
            found[name] = None
            continue
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "installed"
    return found


def _backends() -> list:
    """The device back-ends this process can use: built in, CUDA if CuPy is installed, and
    the plug-ins loaded from the `ember.backends` entry points."""
    from ember._backends.plugins import _device_modules
    found = ["cpu (NumPy)", "meta"]
    if importlib.util.find_spec("cupy") is not None:
        found.append("cuda (CuPy)")
    found += [f"{name} (plug-in)" for name in _device_modules]
    return found


def show() -> str:
    import ml_dtypes
    import numpy as np

    from ember.version import __version__
    lines = [
        f"ember {__version__}",
        f"  - Python {sys.version.split()[0]} on {platform.platform()}",
        f"  - NumPy {np.__version__} (BLAS: {_blas()})",
        f"  - ml_dtypes {ml_dtypes.__version__}",
        "  - Back-ends: " + ", ".join(_backends()),
    ]
    for name, version in _optional_versions().items():
        lines.append(f"  - {name}: {version or 'not installed'}")
    return "\n".join(lines) + "\n"


def parallel_info() -> str:
    from ember._switches import get_num_threads
    return f"ember parallel info: {get_num_threads()} threads (BLAS through NumPy)\n"
